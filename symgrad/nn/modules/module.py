"""``symgrad.nn.Module``: the base class of every layer, with PyTorch's registration, traversal
order, state_dict, train/eval, hooks and repr."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.parameter import Parameter
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


class RemovableHandle:
    """What ``register_forward_hook`` returns: ``handle.remove()`` unregisters the hook.

    >>> m = symgrad.nn.Identity()
    >>> handle = m.register_forward_hook(lambda module, args, out: out * 2)
    >>> m(symgrad.ones(1))
    tensor([2.])
    >>> handle.remove()
    >>> m(symgrad.ones(1))
    tensor([1.])
    """

    _next_id = 0

    def __init__(self, hooks: dict) -> None:
        self._hooks = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        """Unregister the hook (again: nothing happens).

        >>> m = symgrad.nn.Identity()
        >>> m.register_forward_pre_hook(lambda module, args: None).remove()
        >>> len(m._forward_pre_hooks)
        0
        """
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


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
        setattr_(self, "_modules", {})
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())

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
        for hook in list(self._forward_pre_hooks.values()):
            changed = hook(self, args)
            if changed is not None:
                args = changed if isinstance(changed, tuple) else (changed,)
        result = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            changed = hook(self, args, result)
            if changed is not None:
                result = changed
        return result

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
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(symgrad.Tensor or None expected)")
            buffers[name] = value
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

        >>> symgrad.manual_seed(0)
        Generator(PCG64) at 0x...
        >>> sd = symgrad.nn.Linear(2, 1).state_dict()
        >>> list(sd), sd["bias"].requires_grad
        (['weight', 'bias'], False)
        """
        if args:  # PyTorch's deprecated positional (destination, prefix, keep_vars)
            destination, prefix, keep_vars = (*args, *(destination, prefix, keep_vars)[len(args):])
        if destination is None:
            destination = OrderedDict()
        for module_prefix, module in self.named_modules(prefix=prefix.rstrip("."),
                                                        remove_duplicate=False):
            dotted = module_prefix + "." if module_prefix else ""
            for name, param in module._parameters.items():
                if param is not None:
                    destination[dotted + name] = param if keep_vars else param.detach()
            for name, buffer in module._buffers.items():
                if buffer is not None and name not in module._non_persistent_buffers_set:
                    destination[dotted + name] = buffer if keep_vars else buffer.detach()
        return destination

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
        copies: list[tuple[Module, str, Tensor, Tensor]] = []
        for prefix, module in self.named_modules(remove_duplicate=False):
            dotted = prefix + "." if prefix else ""
            local = module._local_state()
            for name, current in local.items():
                key = dotted + name
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
                copies.append((module, name, current, given))
            if strict:
                for key in state_dict:
                    if not key.startswith(dotted):
                        continue
                    head = key[len(dotted):].split(".", 1)
                    if len(head) > 1 and head[0] not in module._modules or (
                            len(head) == 1 and head[0] not in local):
                        unexpected.append(key)
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
            for module, name, current, given in copies:
                if not assign:
                    current.copy_(given)
                elif name in module._parameters:
                    module._parameters[name] = Parameter(given.detach(),
                                                         current.requires_grad)
                else:
                    module._buffers[name] = given
        return _IncompatibleKeys(missing, unexpected)

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
        for param in self.parameters():
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
    def _apply_to_floats(self, convert: Callable[[Tensor], Tensor]) -> Module:
        """Convert every floating-point parameter (in place: the Parameter objects stay, as
        optimizers hold them), its gradient and every floating-point buffer."""
        for module in self.modules():
            for param in module._parameters.values():
                if param is None or not param.is_floating_point():
                    continue
                with no_grad():
                    param.data = convert(param.data)
                    if param.grad is not None:
                        param.grad = None if param.grad is None else convert(param.grad)
            for name, buffer in module._buffers.items():
                if buffer is not None and buffer.is_floating_point():
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

    def cpu(self) -> Module:
        """Self: symgrad's tensors live in host memory.

        >>> symgrad.nn.ReLU().cpu()
        ReLU()
        """
        return self

    # ------------------------------------------------------------------ hooks
    def register_forward_hook(self, hook: Callable[..., Any], *,
                              prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after every forward; a value it returns replaces
        the output. Returns a handle whose ``remove()`` unregisters it.

        >>> m = symgrad.nn.ReLU()
        >>> _ = m.register_forward_hook(lambda mod, args, out: print(type(mod).__name__, out))
        >>> _ = m(symgrad.tensor([-1.0, 2.0]))
        ReLU tensor([0., 2.])
        """
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook: Callable[..., Any], *,
                                  prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, args)`` before every forward; a value it returns replaces the
        positional arguments (a non-tuple is wrapped in one).

        >>> m = symgrad.nn.Identity()
        >>> _ = m.register_forward_pre_hook(lambda mod, args: args[0] + 1)
        >>> m(symgrad.zeros(2))
        tensor([1., 1.])
        """
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
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
