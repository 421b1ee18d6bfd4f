"""PyTorch functions of ``torch`` that have no Tensor method (see ``symgrad.torch_api``):
``rsub``, ``fill``, ``gradient``, and the deprecated ``nuclear_norm`` and ``frobenius_norm``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import parser
from symgrad.autograd.graph import named_node, warn_at_user
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _dim, _make
from symgrad.torch_api.arguments import check_alpha, check_not_bool_sub, scalar
from symgrad.torch_api.arithmetic import sub, where
from symgrad.torch_api.declaration import COMPOSITE, torch_api
from symgrad.torch_api.reductions import _vector_norm, singular_value_norm
from symgrad.torch_api.shaping import cat


@torch_api(COMPOSITE, method=False, example=lambda x: rsub(x, 2.0, alpha=3))
def rsub(input: Tensor, other: Any, alpha: float = 1) -> Tensor:  # noqa: A002
    """``other - alpha * input``: :func:`sub` with its operands swapped (``RsubBackward0``;
    ``RsubBackward1`` when ``other`` is a number).

    >>> symgrad.rsub(symgrad.tensor([1.0, 2.0]), 5.0, alpha=2)
    tensor([3., 1.])
    """
    if isinstance(other, Tensor):
        return named_node(sub(other, input, alpha=alpha), "RsubBackward0")
    if not isinstance(other, int | float | np.number) or isinstance(other, np.bool_):
        if not isinstance(other, bool):
            raise parser.invalid_combination("rsub", (input, other), {})
    check_not_bool_sub(input, other)
    if alpha != 1:
        check_alpha(input, other, alpha)
    return named_node(sub(other, input, alpha=alpha), "RsubBackward1")


@torch_api(COMPOSITE, method=False, example=lambda x: fill(x, 2.0))
def fill(input: Tensor, value: Any) -> Tensor:  # noqa: A002
    """A tensor of ``input``'s shape and dtype filled with ``value``, a number
    (``FillBackward0``) or a 0-d tensor, whose gradient is the sum of the result's
    (``FillBackward1``); ``input``'s gradient is zero.

    >>> symgrad.fill(symgrad.ones(2, dtype=symgrad.int64), 3.7)
    tensor([3, 3])
    """
    if not isinstance(value, Tensor | bool | int | float | np.number):
        raise parser.invalid_combination("fill", (input, value), {})
    everywhere = _make(np.ones(input._value.shape, dtype=bool))
    if isinstance(value, Tensor):
        if value._value.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._value.ndim} dimensions.")
        return named_node(where(everywhere, value.to(input.dtype), input), "FillBackward1")
    value = dtypes.check_fill(scalar(value), input._value.dtype)
    filler = _make(np.asarray(value).astype(input._value.dtype))
    return named_node(where(everywhere, filler, input), "FillBackward0")


@torch_api(COMPOSITE, method=False, example=lambda x: nuclear_norm(x))
def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A002
    """Deprecated (PyTorch warns so): the sum of the singular values of the matrices in dims
    ``dim`` (the last two by default; ``nuclear_norm(input, keepdim)`` too), as
    ``linalg.matrix_norm(input, 'nuc', dim, keepdim)`` (``SumBackward1``).

    >>> import warnings; warnings.simplefilter("ignore")
    >>> symgrad.nuclear_norm(symgrad.tensor([[3.0, 0.0], [0.0, -4.0]]))
    tensor(7.)
    """
    if isinstance(dim, bool):  # the (input, keepdim) overload
        dim, keepdim = None, dim
    warn_at_user("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It "
                 "will be removed in a future PyTorch release. Please use "
                 "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    dims = (-2, -1) if dim is None else tuple(int(d) for d in (
        [dim] if parser._is_int(dim) else dim))
    if len(dims) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(map(str, dims)))
    rows, cols = (_dim(d, input.ndim) for d in dims)
    if not input.is_floating_point():
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input.dtype._torch_name}")
    return singular_value_norm(input, "nuc", rows, cols, keepdim)


@torch_api(COMPOSITE, method=False, example=lambda x: frobenius_norm(x, (0, 1)))
def frobenius_norm(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:  # noqa: A002
    """Deprecated (PyTorch warns so): the 2-norm over at most two dims, as
    ``linalg.vector_norm(input, 2, dim, keepdim)`` recorded as PyTorch's ``at::norm``
    (``NormBackward1``).

    >>> import warnings; warnings.simplefilter("ignore")
    >>> symgrad.frobenius_norm(symgrad.tensor([[3.0], [4.0]]), [0, 1])
    tensor(5.)
    """
    warn_at_user("at::frobenius_norm is deprecated and it is just left for JIT compatibility. "
                 "It will be removed in a future PyTorch release. Please use "
                 "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    dims = tuple(int(d) for d in ([dim] if parser._is_int(dim) else dim))
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions "
                           "instead.")
    if not input.is_floating_point():
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {input.dtype._torch_name} instead.")
    return _vector_norm(input, 2, dims, keepdim, None, legacy=True)


@torch_api(COMPOSITE, method=False, example=lambda x: gradient(x, dim=1)[0])
def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None,  # noqa: A002
             edge_order: int = 1) -> tuple[Tensor, ...]:
    """Estimates of the derivatives of ``input`` along each dim in ``dim`` (all by default) by
    central differences inside and one-sided ones of order ``edge_order`` (1 or 2) at the
    ends; ``spacing`` is a scalar, a scalar per dim, or a coordinate tensor per dim
    (``CatBackward0``). Integers give the default float dtype.

    >>> symgrad.gradient(symgrad.tensor([1.0, 2.0, 4.0, 8.0]))
    (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    >>> coordinates = symgrad.tensor([0.0, 1.0, 3.0])
    >>> symgrad.gradient(symgrad.tensor([1.0, 2.0, 4.0]), spacing=(coordinates,))
    (tensor([1., 1., 1.]),)
    """
    if input.ndim == 0:
        return ()
    given_dim = dim is not None
    dims = list(range(input.ndim)) if dim is None else (
        [int(dim)] if parser._is_int(dim) else [int(d) for d in dim])
    dims = [_dim(d, input.ndim) for d in dims]
    if isinstance(spacing, Tensor) and spacing.ndim == 0 or isinstance(
            spacing, int | float | np.number):
        steps: list[Any] = [float(spacing)] * len(dims)
    else:
        steps = list(spacing)
        if len(steps) != len(dims):
            if given_dim:
                raise RuntimeError(
                    "torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                    "and dim arguments to have the same length, but got a spacing argument of "
                    f"length {len(steps)} and a dim argument of length {len(dims)}")
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar, or a list of "
                f"length equal to 'self.dim() = {input.ndim}', since dim argument was not "
                f"given, but got a list of length {len(steps)}")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    f = input if input.is_floating_point() else input.to(dtypes.get_default_dtype())
    return tuple(_gradient_along(f, d, step, edge_order)
                 for d, step in zip(dims, steps, strict=True))


def _gradient_along(f: Tensor, d: int, step: Any, edge_order: int) -> Tensor:
    n = f.shape[d]

    def part(start: int, length: int) -> Tensor:
        return f.narrow(d, start if start >= 0 else n + start, length)

    if isinstance(step, Tensor) and step.ndim:  # coordinates
        x = step.to(f.dtype)
        dx = x[1:] - x[:-1]
        shape = [1] * f.ndim
        shape[d] = -1

        def along(v: Tensor) -> Tensor:
            return v.reshape(shape)

        dx1, dx2 = along(dx[:-1]), along(dx[1:])
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        center = a * part(0, n - 2) + b * part(1, n - 2) + c * part(2, n - 2)
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) / dx[0]
            last = (part(-1, 1) - part(-2, 1)) / dx[-1]
        else:
            h1, h2 = dx[0], dx[1]
            first = (-(2 * h1 + h2) / (h1 * (h1 + h2)) * part(0, 1)
                     + (h1 + h2) / (h1 * h2) * part(1, 1) - h1 / (h2 * (h1 + h2)) * part(2, 1))
            h1, h2 = dx[-2], dx[-1]
            last = (h2 / (h1 * (h1 + h2)) * part(-3, 1) - (h2 + h1) / (h1 * h2) * part(-2, 1)
                    + (2 * h2 + h1) / (h2 * (h1 + h2)) * part(-1, 1))
    else:
        h = float(step)
        center = (part(2, n - 2) - part(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) / h
            last = (part(-1, 1) - part(-2, 1)) / h
        else:
            first = (-1.5 * part(0, 1) + 2 * part(1, 1) - 0.5 * part(2, 1)) / h
            last = (0.5 * part(-3, 1) - 2 * part(-2, 1) + 1.5 * part(-1, 1)) / h
    return cat([first, center, last], d)
