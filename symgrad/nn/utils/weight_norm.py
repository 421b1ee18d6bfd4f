"""``symgrad.nn.utils.weight_norm``: PyTorch's deprecated hook-based weight normalization
(``weight_norm`` / ``remove_weight_norm``), and the two tensor functions both weight norms are
made of (PyTorch's ``torch._weight_norm`` and ``torch.norm_except_dim``)."""

from __future__ import annotations

import warnings
from typing import Any

from symgrad import ops
from symgrad.dispatch import apply_op
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.norm_except_dim``: the ``pow``-norm of each slice of ``v`` along
    ``dim``, in a shape that broadcasts against ``v`` (``dim=-1``: the norm of all of ``v``).

    >>> from symgrad.nn.utils.weight_norm import norm_except_dim
    >>> norm_except_dim(symgrad.tensor([[3.0, 4.0], [0.0, 1.0]]), 2, 0)
    tensor([[5.],
            [1.]])
    """
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [v.shape[0]] + [1] * (v.ndim - 1)
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(shape)
    if dim == v.ndim - 1:
        shape = [1] * (v.ndim - 1) + [v.shape[-1]]
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """PyTorch's ``torch._weight_norm``: ``v * g / norm_except_dim(v, 2, dim)``, recorded as
    one ``WeightNormInterfaceBackward0`` node when ``dim`` is the first or the last dimension,
    as PyTorch's fused kernel is (on the CPU, for every floating dtype).

    >>> from symgrad.nn.utils.weight_norm import _weight_norm
    >>> v = symgrad.tensor([[3.0, 4.0]], requires_grad=True)
    >>> _weight_norm(v, symgrad.tensor([[10.0]]), 0)
    tensor([[6., 8.]], grad_fn=<WeightNormInterfaceBackward0>)
    """
    if dim in (0, v.ndim - 1):
        return apply_op(ops.nn.weight_norm, v.contiguous(), g.contiguous(), dim=dim)
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm`: before each call it recomputes
    ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    name: str
    dim: int

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        """The weight: ``_weight_norm(<name>_v, <name>_g, dim)``."""
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"),
                            self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        """Replace parameter ``name`` by ``<name>_g`` and ``<name>_v`` and add the hook."""
        warnings.warn("`symgrad.nn.utils.weight_norm` is deprecated in favor of "
                      "`symgrad.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        g = Parameter(norm_except_dim(weight, 2, fn.dim).data)
        del module._parameters[name]
        module.register_parameter(name + "_g", g)
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Make ``<name>`` a plain parameter again, holding the current weight."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """PyTorch's deprecated hook-based weight normalization (a FutureWarning says so; prefer
    :func:`symgrad.nn.utils.parametrizations.weight_norm`): parameter ``name`` becomes
    ``<name>_g`` (the norms along ``dim``) and ``<name>_v`` (the direction), and a forward
    pre-hook recomputes ``module.<name> = <name>_g * <name>_v / ||<name>_v||`` before each call
    (``dim=None``: one norm of the whole tensor). Returns ``module``.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     lin = symgrad.nn.utils.weight_norm(symgrad.nn.Linear(3, 2))
    >>> [name for name, _ in lin.named_parameters()]
    ['bias', 'weight_g', 'weight_v']
    >>> lin.weight_g.shape, lin.weight.grad_fn.name()
    (symgrad.Size([2, 1]), 'WeightNormInterfaceBackward0')
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`weight_norm`: ``name`` is a parameter again, holding the current weight.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     lin = symgrad.nn.utils.weight_norm(symgrad.nn.Linear(3, 2))
    >>> [name for name, _ in symgrad.nn.utils.remove_weight_norm(lin).named_parameters()]
    ['bias', 'weight']
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
