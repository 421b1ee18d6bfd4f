"""``symgrad.optim.Optimizer``: parameter groups, state, ``zero_grad`` and ``state_dict``, as
in PyTorch."""

from __future__ import annotations

import copy
import functools
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

import numpy as np

from symgrad.autograd.grad_mode import enable_grad, no_grad
from symgrad.autograd.graph import warn_at_user
from symgrad.creation import from_numpy, tensor
from symgrad.nn.modules.module import RemovableHandle, typename, zero_grads
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor


class _RequiredParameter:
    """The default of a hyperparameter that has none (``SGD``'s ``lr`` in old PyTorch)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


_global_step_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_global_step_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()


def _register(hooks: OrderedDict[int, Callable[..., Any]], hook: Callable[..., Any],
              prepend: bool = False) -> RemovableHandle:
    """Add ``hook`` to ``hooks`` (first when ``prepend``) and return its handle."""
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)``, called before every optimizer's ``step``
    (it may return new ``(args, kwargs)``).

    >>> handle = symgrad.optim.optimizer.register_optimizer_step_pre_hook(
    ...     lambda opt, args, kwargs: print("stepping", type(opt).__name__))
    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> symgrad.optim.SGD([w], lr=0.1).step()
    stepping SGD
    >>> handle.remove()
    """
    return _register(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)``, called after every optimizer's ``step``.

    >>> handle = symgrad.optim.optimizer.register_optimizer_step_post_hook(
    ...     lambda opt, args, kwargs: print("stepped"))
    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> symgrad.optim.SGD([w], lr=0.1).step()
    stepped
    >>> handle.remove()
    """
    return _register(_global_step_post_hooks, hook)


def _restored_group(mine: dict[str, Any], saved: dict[str, Any]) -> dict[str, Any]:
    """A loaded group: the saved hyperparameters with this optimizer's parameters (and its
    parameter names when the saved group has none)."""
    group = copy.deepcopy({k: v for k, v in saved.items() if k != "params"})
    group["params"] = mine["params"]
    if "param_names" in mine and "param_names" not in group:
        group["param_names"] = mine["param_names"]
    return group


def _with_step_hooks(step: Callable[..., Any]) -> Callable[..., Any]:
    """``step`` running the global and the optimizer's step pre- and post-hooks around it, as
    PyTorch wraps every optimizer's ``step`` (once: a ``step`` calling its base's runs them
    once)."""
    if getattr(step, "_hooked", False):
        return step

    @functools.wraps(step)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        self = args[0]
        if self.__dict__.get("_in_step", False):
            return step(*args, **kwargs)
        for pre_hook in chain(_global_step_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        self._in_step = True
        try:
            out = step(*args, **kwargs)
        finally:
            self._in_step = False
        self._opt_called = True  # what the schedulers' order warning reads
        for post_hook in chain(self._optimizer_step_post_hooks.values(),
                               _global_step_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    wrapper._hooked = True  # type: ignore[attr-defined]
    return wrapper


class Optimizer:
    """Base class of the optimizers: ``param_groups`` (each a dict holding ``'params'`` and
    its hyperparameters, defaults filled in), ``state`` (per parameter), ``zero_grad``,
    ``step`` and ``state_dict`` / ``load_state_dict``. A subclass defines ``_init_state`` and
    ``_update``, which read and write numpy arrays with PyTorch's CPU rounding.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0, 2.0]))
    >>> opt = symgrad.optim.SGD([w], lr=0.1)
    >>> (w ** 2).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000, 1.6000], requires_grad=True)
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _with_step_hooks(cls.__dict__["step"])  # type: ignore[method-assign]

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {typename(params)}")
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]] = \
            OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict[int, Callable[..., Any]] = \
            OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]] = \
            OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict[int, Callable[..., Any]] = \
            OrderedDict()
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        self._opt_called = False
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own hyperparameters (the others from the
        defaults), for example a new layer to train at another learning rate.

        >>> a = symgrad.nn.Parameter(symgrad.ones(1))
        >>> b = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([a], lr=0.1)
        >>> opt.add_param_group({"params": [b], "lr": 0.01})
        >>> [group["lr"] for group in opt.param_groups]
        [0.1, 0.01]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        names = [param[0] for param in params if isinstance(param, tuple)]
        params = [param[1] if isinstance(param, tuple) else param for param in params]
        if names and len(names) != len(params):
            raise ValueError("all optimizer params should be with/without names. Some param "
                             "names are missing")
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(param))
            if not (param.is_leaf or param._retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group, params=params)
        if names:
            group["param_names"] = names
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warn_at_user("optimizer contains a parameter group with duplicate parameters; in "
                         "future, this will cause an error; see "
                         "github.com/pytorch/pytorch/issues/40967 for more information")
        for other in self.param_groups:
            if ("param_names" in group) != ("param_names" in other):
                kind = "with names" if "param_names" in group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)
        for param in params:
            self._init_state(param, group)

    def _init_state(self, param: Tensor, group: dict[str, Any]) -> None:
        """Create a parameter's state when its group is added (Adagrad does); most
        optimizers create it at the first step."""

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None (default), or to zeros.

        >>> w = symgrad.nn.Parameter(symgrad.ones(2))
        >>> opt = symgrad.optim.SGD([w], lr=0.1)
        >>> w.sum().backward()
        >>> opt.zero_grad()
        >>> print(w.grad)
        None
        """
        for group in self.param_groups:
            zero_grads(group["params"], set_to_none)

    @_with_step_hooks
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; ``closure`` (re-evaluating the
        loss) is called first, with grad enabled, and its loss returned.

        >>> w = symgrad.nn.Parameter(symgrad.tensor([3.0]))
        >>> opt = symgrad.optim.SGD([w], lr=0.5)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (w ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> opt.step(closure)
        tensor(9., grad_fn=<SumBackward0>)
        >>> w
        Parameter containing:
        tensor([0.], requires_grad=True)
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._opt_called = True
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                value = np.array(param.detach().numpy())  # updated, then copied back once
                grad = param.grad.detach().numpy()
                if group.get("maximize", False):
                    grad = -grad
                self._update(value, grad, self.state[param], group)
                with no_grad():
                    param.copy_(from_numpy(value))
        return loss

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        """Update ``param`` (a copy of the parameter's values, written back afterwards) in
        place from ``grad`` (negated when ``maximize``); ``state`` is the parameter's state
        dict of Tensors, empty before the first step, whose arrays are updated in place."""
        raise NotImplementedError

    @staticmethod
    def _zeros(value: np.ndarray) -> Tensor:
        """A state tensor of zeros shaped and typed like ``value``."""
        return from_numpy(np.zeros_like(value))

    @staticmethod
    def _new_step() -> Tensor:
        """PyTorch's step counter: a float32 scalar tensor, 0."""
        return tensor(0.0, dtype=dtypes.float32)

    @staticmethod
    def _count(state: dict[str, Any], param: np.ndarray | None = None,
               zeros: tuple[str, ...] = ()) -> float:
        """Increment the float32 ``step`` tensor of ``state`` (created at 0) and return
        it, as PyTorch counts steps; on the first step, the state buffers named in ``zeros``
        (after ``step``, in PyTorch's order) are made as zeros like ``param``."""
        if "step" not in state:
            state["step"] = Optimizer._new_step()
            for name in zeros:
                state[name] = Optimizer._zeros(param)
        counter = state["step"].numpy()
        counter += 1
        return float(counter)

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs)``, called before this optimizer's
        ``step``; it may return new ``(args, kwargs)`` for ``step``.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1)
        >>> handle = opt.register_step_pre_hook(lambda o, args, kwargs: print("before"))
        >>> opt.step()
        before
        >>> handle.remove()
        >>> opt.step()
        """
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs)``, called after this optimizer's ``step``.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1)
        >>> handle = opt.register_step_post_hook(lambda o, args, kwargs: print("after"))
        >>> opt.step()
        after
        """
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable[[Optimizer], None],
                                     prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer)``, called before ``state_dict`` builds its dict
        (first of the hooks when ``prepend``).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1)
        >>> _ = opt.register_state_dict_pre_hook(lambda o: print("saving"))
        >>> _ = opt.state_dict()
        saving
        """
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
            self, hook: Callable[[Optimizer, dict[str, Any]], dict[str, Any] | None],
            prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict)``, called on ``state_dict``'s result; it
        may change it in place or return a new one.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1)
        >>> _ = opt.register_state_dict_post_hook(lambda o, sd: {**sd, "note": "hi"})
        >>> opt.state_dict()["note"]
        'hi'
        """
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
            self, hook: Callable[[Optimizer, dict[str, Any]], dict[str, Any] | None],
            prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict)``, called before ``load_state_dict``
        loads; it may return the state_dict to load instead.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1)
        >>> def halve(o, sd):
        ...     sd["param_groups"][0]["lr"] /= 2
        >>> _ = opt.register_load_state_dict_pre_hook(halve)
        >>> opt.load_state_dict(opt.state_dict())
        >>> opt.param_groups[0]["lr"]
        0.05
        """
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable[[Optimizer], None],
                                           prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer)``, called after ``load_state_dict`` has loaded.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1)
        >>> _ = opt.register_load_state_dict_post_hook(lambda o: print("loaded"))
        >>> opt.load_state_dict(opt.state_dict())
        loaded
        """
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------ state_dict
    def state_dict(self) -> dict[str, Any]:
        """``{'state': {index: {...}}, 'param_groups': [...]}``, parameters numbered in group
        order (the state's tensors are the optimizer's own, as in PyTorch).

        >>> w = symgrad.nn.Parameter(symgrad.ones(2))
        >>> opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> w.sum().backward()
        >>> opt.step()
        >>> opt.state_dict()["state"]
        {0: {'momentum_buffer': tensor([1., 1.])}}
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            ids = []
            for param in group["params"]:
                index.setdefault(id(param), len(index))
                ids.append(index[id(param)])
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index and s}
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore ``state_dict()``'s state and hyperparameters (tensors copied, converted to
        each parameter's dtype; ``step`` kept as it is). The groups must match in number and
        size.

        >>> w = symgrad.nn.Parameter(symgrad.ones(2))
        >>> opt = symgrad.optim.Adam([w], lr=0.1)
        >>> w.sum().backward()
        >>> opt.step()
        >>> fresh = symgrad.optim.Adam([w], lr=0.5)
        >>> fresh.load_state_dict(opt.state_dict())
        >>> fresh.param_groups[0]["lr"], fresh.state[w]["step"]
        (0.1, tensor(1.))
        """
        state_dict = dict(state_dict)
        state_dict["param_groups"] = copy.deepcopy(state_dict["param_groups"])
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for mine, saved in zip(self.param_groups, saved_groups, strict=True):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
        by_index = {}
        for mine, saved in zip(self.param_groups, saved_groups, strict=True):
            for index, param in zip(saved["params"], mine["params"], strict=True):
                by_index[index] = param
        state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for index, values in state_dict["state"].items():
            if index not in by_index:
                state[index] = copy.deepcopy(values)
                continue
            param = by_index[index]
            restored = {}
            for key, value in values.items():
                if isinstance(value, Tensor):
                    value = value.detach().clone()
                    if key != "step" and value.is_floating_point():
                        value = value.to(param.dtype)
                else:
                    value = copy.deepcopy(value)
                restored[key] = value
            state[param] = restored
        self.state = state
        self.param_groups = [_restored_group(mine, saved)
                             for mine, saved in zip(self.param_groups, saved_groups,
                                                    strict=True)]
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_opt_called", False)
