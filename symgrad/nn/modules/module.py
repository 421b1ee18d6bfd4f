"""``symgrad.nn.Module``: the base class of every layer, with PyTorch's registration, traversal
order, state_dict, train/eval, hooks and repr."""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from symgrad.autograd.grad_mode import no_grad
from symgrad.autograd.graph import RemovableHandle
from symgrad.creation import empty_like
from symgrad.nn.modules._hooks import BackwardHook
from symgrad.nn.parameter import Buffer, Parameter
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, check_device


def typename(obj: Any) -> str:
    """PyTorch's ``torch.typename``: ``'symgrad.FloatTensor'`` for a tensor, else the qualified
    name of the object's type (builtins unqualified)."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__ or ""
    return cls.__qualname__ if module in ("", "builtins") else f"{module}.{cls.__qualname__}"


def _addindent(text: str, spaces: int) -> str:
    """Indent every line of ``text`` but the first by ``spaces``."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    return "\n".join([first] + [" " * spaces + line for line in rest])


class _IncompatibleKeys(NamedTuple):
    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
                f"unexpected_keys={self.unexpected_keys!r})")

    __str__ = __repr__


def _check_name(kind: str, name: Any, module: Module, own: dict) -> None:
    """PyTorch's checks of a parameter, buffer or submodule name, in its order."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
    if "." in name:
        got = f", got: {name}" if kind == "module" else ""
        raise KeyError(f"{kind} name can't contain \".\"{got}")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")
    if hasattr(module, name) and name not in own:
        raise KeyError(f"attribute '{name}' already exists")


class Module:
    """Base class of every layer: assigning a :class:`Parameter`, a Module or a registered
    buffer to an attribute registers it, and the traversals (``parameters``,
    ``named_modules``, ``state_dict`` ...) visit them in PyTorch's order (own members in
    assignment order, then each child's, depth first) under PyTorch's dotted names.

    >>> class Net(symgrad.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = symgrad.nn.Linear(2, 1)
    ...         self.scale = symgrad.nn.Parameter(symgrad.ones(1))
    ...     def forward(self, x):
    ...         return self.fc(x) * self.scale
    >>> net = Net()
    >>> [name for name, _ in net.named_parameters()]
    ['scale', 'fc.weight', 'fc.bias']
    >>> net
    Net(
      (fc): Linear(in_features=2, out_features=1, bias=True)
    )
    >>> net(symgrad.zeros(3, 2)).shape
    symgrad.Size([3, 1])
    """

    training: bool
    _version: int = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            given = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected argument: "
                            f"{given}")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks_always_called", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())
        setattr_(self, "_modules", {})

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation of the layer; subclasses define it, and calling the module runs it
        (with the hooks around it).

        >>> symgrad.nn.Module()(symgrad.ones(1))
        Traceback (most recent call last):
            ...
        NotImplementedError: Module [Module] is missing the required "forward" function
        """
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        """PyTorch's ``Module._call_impl``: forward pre-hooks, the backward hooks' identity on
        the inputs, forward, forward hooks, the identity on the outputs; forward hooks
        registered with ``always_call`` also run when forward raises."""
        full_hooks: list[Callable] = []
        old_hooks: list[Callable] = []
        if self._backward_hooks:
            hooks = list(self._backward_hooks.values())
            if self._is_full_backward_hook:
                full_hooks = hooks
            else:
                old_hooks = hooks
        pre_hooks = list(self._backward_pre_hooks.values())
        called: set[int] = set()
        result = None
        try:
            for hook_id, hook in list(self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    changed = hook(self, args, kwargs)
                    if changed is not None:
                        if not (isinstance(changed, tuple) and len(changed) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple "
                                               f"of (new_args, new_kwargs), but got {changed}.")
                        args, kwargs = changed
                else:
                    changed = hook(self, args)
                    if changed is not None:
                        args = changed if isinstance(changed, tuple) else (changed,)
            bw_hook = None
            if full_hooks or pre_hooks:
                bw_hook = BackwardHook(self, full_hooks, pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    called.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    changed = hook(self, args, kwargs, result)
                else:
                    changed = hook(self, args, result)
                if changed is not None:
                    result = changed
            if bw_hook is not None:
                if not isinstance(result, Tensor | tuple):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  "Tensor or a tuple of Tensors but received "
                                  f"{type(result)}", UserWarning, stacklevel=3)
                result = bw_hook.setup_output_hook(result)
            if old_hooks:
                self._attach_old_backward_hooks(old_hooks, args, result)
            return result
        except Exception:
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id not in self._forward_hooks_always_called or hook_id in called:
                    continue
                try:
                    if hook_id in self._forward_hooks_with_kwargs:
                        changed = hook(self, args, kwargs, result)
                    else:
                        changed = hook(self, args, result)
                    if changed is not None:
                        result = changed
                except Exception as error:  # noqa: BLE001 - PyTorch silences it with a warning
                    warnings.warn("module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {error}", UserWarning, stacklevel=3)
            raise

    def _attach_old_backward_hooks(self, hooks: list[Callable], args: tuple,
                                   result: Any) -> None:
        """``register_backward_hook``'s deprecated hooks go on the node of the first output
        tensor, with PyTorch's warnings where that node does not see the whole module."""
        var = result
        while not isinstance(var, Tensor):
            var = (next(v for v in var.values() if isinstance(v, Tensor))
                   if isinstance(var, dict) else var[0])
        grad_fn = var.grad_fn
        if grad_fn is None:
            return
        for hook in hooks:
            grad_fn.register_hook(
                lambda grad_input, grad_output, hook=hook: hook(self, grad_input, grad_output))
        message = _non_full_hook_warning(args, result, grad_fn)
        if message:
            warnings.warn(message, FutureWarning, stacklevel=4)

    # ------------------------------------------------------------------ registration
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (a :class:`Parameter`, or None for an absent one) as ``name``.

        >>> m = symgrad.nn.Module()
        >>> m.register_parameter("w", symgrad.nn.Parameter(symgrad.zeros(2)))
        >>> [name for name, _ in m.named_parameters()]
        ['w']
        >>> m.register_parameter("v", symgrad.zeros(2))
        Traceback (most recent call last):
            ...
        TypeError: cannot assign 'symgrad.FloatTensor' object to parameter 'v' ...
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self, self._parameters)
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                                "(symgrad.nn.Parameter or None required)")
            if param.grad_fn is not None:
                raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                                 "parameters must be created explicitly. To express "
                                 f"'{name}' as a function of another Tensor, compute the value "
                                 "in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register a tensor that is state but not a parameter (BatchNorm's running mean);
        a persistent buffer is part of ``state_dict``.

        >>> m = symgrad.nn.Module()
        >>> m.register_buffer("count", symgrad.zeros(1))
        >>> m.register_buffer("scratch", symgrad.zeros(1), persistent=False)
        >>> list(m.state_dict())
        ['count']
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(symgrad Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` as the child ``name`` (same as assigning the attribute).

        >>> m = symgrad.nn.Module()
        >>> m.add_module("act", symgrad.nn.ReLU())
        >>> m
        Module(
          (act): ReLU()
        )
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        _check_name("module", name, self, self._modules)
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path ``target`` (``''``: this module).

        >>> net = symgrad.nn.Sequential(symgrad.nn.Sequential(symgrad.nn.ReLU()))
        >>> net.get_submodule("0.0")
        ReLU()
        """
        module = self
        if target == "":
            return module
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target``.

        >>> symgrad.nn.Sequential(symgrad.nn.Linear(2, 1)).get_parameter("0.bias").shape
        symgrad.Size([1])
        """
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``.

        >>> symgrad.nn.Sequential(symgrad.nn.BatchNorm1d(2)).get_buffer("0.running_var")
        tensor([1., 1.])
        """
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(module, name)

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at dotted path ``target`` (its parent must exist; ``strict``: so must
        the name).

        >>> net = symgrad.nn.Sequential(symgrad.nn.ReLU())
        >>> net.set_submodule("0", symgrad.nn.Tanh()); net
        Sequential(
          (0): Tanh()
        )
        """
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_extra_state(self) -> Any:
        """A module's state beyond parameters and buffers: a subclass that defines it (with
        :meth:`set_extra_state`) gets a ``'_extra_state'`` entry in ``state_dict``.

        >>> class Counter(symgrad.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.calls = 0
        ...     def get_extra_state(self):
        ...         return {"calls": self.calls}
        ...     def set_extra_state(self, state):
        ...         self.calls = state["calls"]
        >>> c = Counter(); c.calls = 3
        >>> dict(c.state_dict())
        {'_extra_state': {'calls': 3}}
        >>> d = Counter(); _ = d.load_state_dict(c.state_dict()); d.calls
        3
        """
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called. Please file an issue at "
                           "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml"
                           " to report this bug.")

    def set_extra_state(self, state: Any) -> None:
        """Restore what :meth:`get_extra_state` returned (called by ``load_state_dict``).

        >>> symgrad.nn.Module().set_extra_state({})
        Traceback (most recent call last):
            ...
        RuntimeError: Reached a code path in Module.set_extra_state() that should never be ...
        """
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called. Please file an issue at "
                           "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml"
                           " to report this bug.")

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(symgrad.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(symgrad.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(symgrad.Tensor or None expected)")
            if isinstance(value, Buffer):
                if buffers is None:
                    raise AttributeError("cannot assign buffer before Module.__init__() call")
                if name not in buffers:
                    self._forget(name)
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        """Drop ``name`` from every registry before it is registered as something else."""
        self.__dict__.pop(name, None)
        for registry in ("_parameters", "_buffers", "_modules"):
            self.__dict__[registry].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            members = state.get(registry)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in ("_parameters", "_buffers", "_modules"):
            members = self.__dict__.get(registry)
            if members is not None and name in members:
                del members[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    # ------------------------------------------------------------------ traversal
    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """This module and every submodule, depth first, with dotted names (``''`` for this
        one); a module reached twice is listed once unless ``remove_duplicate=False``.

        >>> net = symgrad.nn.Sequential(symgrad.nn.Linear(1, 1), symgrad.nn.Sequential(
        ...     symgrad.nn.ReLU()))
        >>> [name for name, _ in net.named_modules()]
        ['', '0', '1', '1.0']
        """
        if memo is None:
            memo = set()
        stack: list[tuple[str, Module]] = [(prefix, self)]
        while stack:  # iterative: no recursion limit on deep nesting
            name, module = stack.pop()
            if remove_duplicate:
                if id(module) in memo:
                    continue
                memo.add(id(module))
            yield name, module
            children = [(name + ("." if name else "") + key, child)
                        for key, child in module._modules.items() if child is not None]
            stack.extend(reversed(children))

    def modules(self) -> Iterator[Module]:
        """This module and every submodule, in ``named_modules`` order.

        >>> len(list(symgrad.nn.Sequential(symgrad.nn.ReLU(), symgrad.nn.ReLU()).modules()))
        3
        """
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct submodules with their names (each once).

        >>> [name for name, _ in symgrad.nn.Sequential(symgrad.nn.ReLU()).named_children()]
        ['0']
        """
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct submodules.

        >>> list(symgrad.nn.Sequential(symgrad.nn.ReLU(), symgrad.nn.Tanh()).children())
        [ReLU(), Tanh()]
        """
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry: str, prefix: str, recurse: bool,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        seen = set()
        for module_prefix, module in modules:
            for key, value in module.__dict__[registry].items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + key, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """The parameters with dotted names: a module's own first, then each child's; a
        parameter shared by two modules is listed once.

        >>> [name for name, _ in symgrad.nn.Sequential(symgrad.nn.Linear(1, 1)).named_parameters()]
        ['0.weight', '0.bias']
        """
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters, in ``named_parameters`` order (what an optimizer takes).

        >>> [tuple(p.shape) for p in symgrad.nn.Linear(3, 2).parameters()]
        [(2, 3), (2,)]
        """
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """The buffers with dotted names, in the order of ``named_parameters``.

        >>> [name for name, _ in symgrad.nn.BatchNorm1d(2).named_buffers()]
        ['running_mean', 'running_var', 'num_batches_tracked']
        """
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers, in ``named_buffers`` order.

        >>> len(list(symgrad.nn.BatchNorm1d(2).buffers()))
        3
        """
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    # ------------------------------------------------------------------ state
    def state_dict(self, *args: Any, destination: dict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Tensor]:
        """An ordered dict from dotted names to the parameters and persistent buffers (their
        ``detach()``ed values unless ``keep_vars``), for ``load_state_dict`` and
        ``symgrad.save``.

        >>> _ = symgrad.manual_seed(0)
        >>> sd = symgrad.nn.Linear(2, 1).state_dict()
        >>> list(sd), sd["bias"].requires_grad
        (['weight', 'bias'], False)
        """
        if args:  # PyTorch's deprecated positional (destination, prefix, keep_vars)
            destination, prefix, keep_vars = (*args, *(destination, prefix, keep_vars)[len(args):])
        if destination is None:
            destination = OrderedDict()
        # depth first without recursion: (module, its prefix, whether its children are done)
        stack: list[tuple[Module, str, bool]] = [(self, prefix, False)]
        while stack:
            module, dotted, done = stack.pop()
            if done:
                for hook in list(module._state_dict_hooks.values()):
                    if hook(module, destination, dotted, {"version": module._version}) is not None:
                        raise RuntimeError("state_dict post-hook must return None")
                continue
            for hook in list(module._state_dict_pre_hooks.values()):
                hook(module, dotted, keep_vars)
            module._save_to_state_dict(destination, dotted, keep_vars)
            stack.append((module, dotted, True))
            stack.extend((child, dotted + name + ".", False)
                         for name, child in reversed(module._modules.items()) if child is not None)
        return destination

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, value in self._local_state().items():
            destination[prefix + name] = value if keep_vars else value.detach()
        if _overrides(type(self), "get_extra_state"):
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def _local_state(self) -> dict[str, Tensor]:
        own = {k: v for k, v in self._parameters.items() if v is not None}
        own.update((k, v) for k, v in self._buffers.items()
                   if v is not None and k not in self._non_persistent_buffers_set)
        return own

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy the tensors of ``state_dict`` into this module's parameters and buffers.
        ``strict`` (default) requires exactly this module's keys; every error is collected
        and raised as PyTorch's RuntimeError before anything is copied. Returns the missing
        and unexpected keys.

        >>> lin = symgrad.nn.Linear(2, 1)
        >>> lin.load_state_dict(symgrad.nn.Linear(2, 1).state_dict())
        <All keys matched successfully>
        >>> lin.load_state_dict({"weight": symgrad.zeros(1, 2)})
        Traceback (most recent call last):
            ...
        RuntimeError: Error(s) in loading state_dict for Linear:
            Missing key(s) in state_dict: "bias". 
        """  # noqa: W291 - PyTorch's message ends with a space
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        changes: list[Callable[[], None]] = []  # made once nothing failed
        keys = _IncompatibleKeys(missing, unexpected)
        # PyTorch's recursion, depth first without recursion: each child sees the entries under
        # its prefix; the post-hooks run when a module's subtree is done
        stack: list[tuple[Module, dict, str, bool]] = [(self, OrderedDict(state_dict), "", False)]
        while stack:
            module, local, prefix, done = stack.pop()
            if done:
                for hook in list(module._load_state_dict_post_hooks.values()):
                    if hook(module, keys) is not None:
                        raise AssertionError(
                            "Hooks registered with ``register_load_state_dict_post_hook`` are "
                            "not expected to return new values, if incompatible_keys need to be "
                            "modified, it should be done inplace.")
                continue
            module._load_from_state_dict(local, prefix, missing, unexpected, errors, changes,
                                         assign)
            stack.append((module, local, prefix, True))
            children = []
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    children.append((child, {k: v for k, v in local.items()
                                             if k.startswith(child_prefix)}, child_prefix, False))
            stack.extend(reversed(children))
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        with no_grad():
            for change in changes:
                change()
        return keys

    def _load_from_state_dict(self, state_dict: dict, prefix: str, missing: list[str],
                              unexpected: list[str], errors: list[str],
                              changes: list[Callable[[], None]], assign: bool) -> None:
        """This module's part of ``load_state_dict``: its pre-hooks, then the checks of its
        own entries (the copies are queued in ``changes``), as PyTorch's method of that name."""
        for hook in list(self._load_state_dict_pre_hooks.values()):
            hook(self, state_dict, prefix, {"version": self._version}, True, missing, unexpected,
                 errors)
        local = self._local_state()
        for name, current in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            given = state_dict[key]
            if not isinstance(given, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected '
                              "symgrad.Tensor or Tensor-like object from checkpoint but "
                              f"received {type(given)}")
                continue
            if given.shape != current.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{given.shape} from checkpoint, the shape in current model "
                              f"is {current.shape}.")
                continue
            changes.append(functools.partial(self._assign_loaded, name, current, given, assign))
        extra_key = prefix + "_extra_state"
        if _overrides(type(self), "set_extra_state"):
            if extra_key in state_dict:
                changes.append(functools.partial(self.set_extra_state, state_dict[extra_key]))
            else:
                missing.append(extra_key)
        elif extra_key in state_dict:
            unexpected.append(extra_key)
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                head = key[len(prefix):].split(".", 1)
                if (head[0] not in self._modules) if len(head) > 1 else (head[0] not in local):
                    unexpected.append(key)

    def _assign_loaded(self, name: str, current: Tensor, given: Tensor, assign: bool) -> None:
        if not assign:
            current.copy_(given)
        elif name in self._parameters:
            self._parameters[name] = Parameter(given.detach(), current.requires_grad)
        else:
            self._buffers[name] = given

    # ------------------------------------------------------------------ modes and grads
    def train(self, mode: bool = True) -> Module:
        """Set training mode (``.training``) here and in every submodule; returns self.
        Dropout and BatchNorm behave differently in training and evaluation.

        >>> net = symgrad.nn.Sequential(symgrad.nn.Dropout())
        >>> net.train(False)[0].training
        False
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        """``train(False)``: evaluation mode.

        >>> symgrad.nn.Dropout().eval().training
        False
        """
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter (freeze with False); returns self.

        >>> lin = symgrad.nn.Linear(2, 1).requires_grad_(False)
        >>> lin.weight.requires_grad
        False
        """
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None (default), or to zeros.

        >>> lin = symgrad.nn.Linear(2, 1)
        >>> lin(symgrad.ones(2)).sum().backward()
        >>> lin.zero_grad()
        >>> print(lin.weight.grad)
        None
        """
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every submodule (children first) and then on self; returns self.
        The usual way to initialise weights.

        >>> seen = []
        >>> _ = symgrad.nn.Sequential(symgrad.nn.ReLU()).apply(lambda m: seen.append(m._get_name()))
        >>> seen
        ['ReLU', 'Sequential']
        """
        stack: list[tuple[Module, bool]] = [(self, False)]
        while stack:  # post-order, iterative
            module, expanded = stack.pop()
            if expanded:
                fn(module)
                continue
            stack.append((module, True))
            stack.extend((child, False) for child in reversed(list(module.children())))
        return self

    # ------------------------------------------------------------------ dtype
    def _apply_to_floats(self, convert: Callable[[Tensor], Tensor], floats_only: bool = True,
                         recurse: bool = True) -> Module:
        """Convert every floating-point parameter (in place: the Parameter objects stay, as
        optimizers hold them), its gradient and every floating-point buffer (``floats_only``
        False: every one)."""
        for module in self.modules() if recurse else [self]:
            for param in module._parameters.values():
                if param is None or (floats_only and not param.is_floating_point()):
                    continue
                with no_grad():
                    param.data = convert(param.data)
                    if param.grad is not None:
                        param.grad = None if param.grad is None else convert(param.grad)
            for name, buffer in module._buffers.items():
                if buffer is not None and (buffer.is_floating_point() or not floats_only):
                    module._buffers[name] = convert(buffer)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Convert floating-point parameters and buffers to a dtype (``to(symgrad.float64)``);
        the device may only be the CPU. Returns self.

        >>> symgrad.nn.Linear(2, 1).to(symgrad.float64).weight.dtype
        symgrad.float64
        """
        target = kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        for arg in (*args, kwargs.pop("device", None)):
            if isinstance(arg, dtypes.dtype):
                target = arg
            elif isinstance(arg, Tensor):
                target = arg.dtype
            elif arg is not None:
                check_device(arg)  # only the CPU
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
        if target is None:
            return self
        if target.np_dtype.kind != "f":
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={target!r}")
        return self._apply_to_floats(lambda t: t.to(target))

    def float(self) -> Module:
        """Floating-point parameters and buffers to float32; returns self.

        >>> symgrad.nn.Linear(2, 1).double().float().weight.dtype
        symgrad.float32
        """
        return self._apply_to_floats(lambda t: t.float())

    def double(self) -> Module:
        """Floating-point parameters and buffers to float64; returns self.

        >>> symgrad.nn.Linear(2, 1).double().bias.dtype
        symgrad.float64
        """
        return self._apply_to_floats(lambda t: t.double())

    def half(self) -> Module:
        """Floating-point parameters and buffers to float16; returns self.

        >>> symgrad.nn.Linear(2, 1).half().bias.dtype
        symgrad.float16
        """
        return self._apply_to_floats(lambda t: t.half())

    def bfloat16(self) -> Module:
        """Refused, nothing changed: symgrad has no bfloat16 dtype (numpy has none).

        >>> symgrad.nn.Linear(2, 1).bfloat16()
        Traceback (most recent call last):
            ...
        TypeError: symgrad has no bfloat16 dtype; use .half(), .float() or .double()
        """
        raise TypeError("symgrad has no bfloat16 dtype; use .half(), .float() or .double()")

    def type(self, dst_type: dtypes.dtype) -> Module:
        """Every parameter and buffer (floating or not) converted to ``dst_type``; returns
        self.

        >>> symgrad.nn.Linear(2, 1).type(symgrad.float64).weight.dtype
        symgrad.float64
        """
        target = dtypes.as_dtype(dst_type)
        return self._apply_to_floats(lambda t: t.type(target), floats_only=False)

    def share_memory(self) -> Module:
        """Self: one process's tensors need no shared memory here.

        >>> symgrad.nn.ReLU().share_memory()
        ReLU()
        """
        return self

    def to_empty(self, *, device: Any = None, recurse: bool = True) -> Module:
        """Parameters and buffers replaced by uninitialised tensors of their shapes and
        dtypes (``recurse=False``: this module's own only); returns self.

        >>> symgrad.nn.Linear(2, 1).to_empty(device="cpu").weight.shape
        symgrad.Size([1, 2])
        """
        check_device(device)
        return self._apply_to_floats(lambda t: empty_like(t), floats_only=False,
                                     recurse=recurse)

    def cpu(self) -> Module:
        """Self: symgrad's tensors live in host memory.

        >>> symgrad.nn.ReLU().cpu()
        ReLU()
        """
        return self

    # ------------------------------------------------------------------ hooks
    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Call ``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
        output)``) after every forward; a value it returns replaces the output. ``prepend``
        runs it before the hooks already registered, ``always_call`` also when forward
        raises. Returns a handle whose ``remove()`` unregisters it.

        >>> m = symgrad.nn.ReLU()
        >>> _ = m.register_forward_hook(lambda mod, args, out: print(type(mod).__name__, out))
        >>> _ = m(symgrad.tensor([-1.0, 2.0]))
        ReLU tensor([0., 2.])
        """
        handle = RemovableHandle(self._forward_hooks, extra_dict=[
            self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Call ``hook(module, args)`` before every forward; a value it returns replaces the
        positional arguments (a non-tuple is wrapped in one). ``with_kwargs``: ``hook(module,
        args, kwargs)``, returning None or ``(new_args, new_kwargs)``.

        >>> m = symgrad.nn.Identity()
        >>> _ = m.register_forward_pre_hook(lambda mod, args: args[0] + 1)
        >>> m(symgrad.zeros(2))
        tensor([1., 1.])
        """
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable[..., Any],
                                    prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_input, grad_output)`` when the gradients with respect to
        the module's inputs are computed: tuples with one entry per positional argument and
        per output (None for non-tensors). A tuple it returns replaces ``grad_input``. The
        inputs and outputs pass through an identity node (``BackwardHookFunctionBackward``),
        so they may not be modified in place.

        >>> lin = symgrad.nn.Linear(2, 1)
        >>> _ = lin.register_full_backward_hook(
        ...     lambda mod, gin, gout: print([tuple(g.shape) for g in gin + gout]))
        >>> lin(symgrad.ones(3, 2, requires_grad=True)).sum().backward()
        [(3, 2), (3, 1)]
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", True)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable[..., Any],
                                        prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_output)`` when the gradients with respect to the module's
        outputs are computed, before any flows into the module; a tuple it returns replaces
        ``grad_output``.

        >>> lin = symgrad.nn.Linear(2, 1)
        >>> _ = lin.register_full_backward_pre_hook(lambda mod, gout: (gout[0] * 0,))
        >>> lin(symgrad.ones(1, 2, requires_grad=True)).sum().backward(); lin.bias.grad
        tensor([0.])
        """
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Deprecated (use :meth:`register_full_backward_hook`): ``hook(module, grad_input,
        grad_output)`` on the node of the module's first output tensor, so ``grad_input`` is
        that node's, with PyTorch's FutureWarning when it does not cover the whole module.

        >>> tanh = symgrad.nn.Tanh()
        >>> _ = tanh.register_backward_hook(lambda mod, gin, gout: print(gin, gout))
        >>> x = symgrad.zeros(2, requires_grad=True) * 1
        >>> tanh(x).sum().backward()
        (tensor([1., 1.]),) (tensor([1., 1.]),)
        """
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", False)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, prefix, keep_vars)`` before this module's entries are put into
        a ``state_dict``.

        >>> lin = symgrad.nn.Linear(2, 1)
        >>> _ = lin.register_state_dict_pre_hook(lambda mod, prefix, keep: print(repr(prefix)))
        >>> _ = symgrad.nn.Sequential(lin).state_dict()
        '0.'
        """
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, state_dict, prefix, local_metadata)`` after this module's (and
        its submodules') entries are in ``state_dict``; it may change the dict in place and
        must return None.

        >>> lin = symgrad.nn.Linear(2, 1)
        >>> _ = lin.register_state_dict_post_hook(lambda m, sd, prefix, meta: sd.pop("bias"))
        >>> list(lin.state_dict())
        Traceback (most recent call last):
            ...
        RuntimeError: state_dict post-hook must return None
        """
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module's entries are loaded; it may change
        ``state_dict`` (to rename keys) and the lists in place.

        >>> lin = symgrad.nn.Linear(2, 1)
        >>> def rename(mod, sd, prefix, *rest):
        ...     if prefix + "w" in sd:
        ...         sd[prefix + "weight"] = sd.pop(prefix + "w")
        >>> _ = lin.register_load_state_dict_pre_hook(rename)
        >>> lin.load_state_dict({"w": symgrad.zeros(1, 2), "bias": symgrad.zeros(1)})
        <All keys matched successfully>
        """
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, incompatible_keys)`` after this module and its submodules were
        loaded (before strict mode's error); it may empty the key lists in place and must
        return None.

        >>> lin = symgrad.nn.Linear(2, 1)
        >>> _ = lin.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.clear())
        >>> lin.load_state_dict({"weight": symgrad.zeros(1, 2)})
        <All keys matched successfully>
        """
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ------------------------------------------------------------------ repr
    def extra_repr(self) -> str:
        """The text between the parentheses of this module's repr (a subclass overrides it;
        PyTorch's format per layer).

        >>> symgrad.nn.Linear(3, 2).extra_repr()
        'in_features=3, out_features=2, bias=True'
        """
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


def _overrides(cls: type, name: str) -> bool:
    """Whether ``cls`` defines its own ``name`` (extra state: get/set_extra_state)."""
    return getattr(cls, name) is not getattr(Module, name)


def _non_full_hook_warning(inputs: tuple, result: Any, grad_fn: Any) -> str | None:
    """PyTorch's FutureWarning for a deprecated backward hook that misses gradients, or None."""
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        return ("Using non-full backward hooks on a Module that does not return a single Tensor "
                "or a tuple of Tensors is deprecated and will be removed in future versions. "
                "This hook will be missing some of the grad_output. Please use "
                "register_full_backward_hook to get the documented behavior.")
    if not all(isinstance(i, Tensor) for i in inputs):
        return ("Using non-full backward hooks on a Module that does not take as input a single "
                "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                "versions. This hook will be missing some of the grad_input. Please use "
                "register_full_backward_hook to get the documented behavior.")
    out_fns = {id(r.grad_fn) for r in result if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and id(grad_fn) not in out_fns):
        return ("Using a non-full backward hook when outputs are nested in python data "
                "structure is deprecated and will be removed in future versions. This hook will "
                "be missing some grad_output.")
    if len(out_fns) > 1:
        return ("Using a non-full backward hook when outputs are generated by different autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_output. Please use register_full_backward_hook to get the "
                "documented behavior.")
    input_fns = {id(i.grad_fn) for i in inputs if i.grad_fn is not None}
    next_fns = {id(n) for n, _ in grad_fn.next_functions if n is not None}
    if input_fns != next_fns:
        return ("Using a non-full backward hook when the forward contains multiple autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_input. Please use register_full_backward_hook to get the "
                "documented behavior.")
    return None


def zero_grads(params: Iterable[Tensor], set_to_none: bool = True) -> None:
    """Reset the ``.grad`` of ``params``: to None, or to zeros in place (detached first), as
    ``Module.zero_grad`` and ``Optimizer.zero_grad`` do."""
    for param in params:
        grad = param.grad
        if grad is None:
            continue
        if set_to_none:
            param.grad = None
        else:
            if grad.grad_fn is not None:
                grad.detach_()
            else:
                grad.requires_grad_(False)
            grad.zero_()

