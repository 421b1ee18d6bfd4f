"""``symgrad.linalg``: the functions of PyTorch's ``torch.linalg`` that symgrad provides: norms,
``inv``, ``det``, ``solve``, ``cross`` and ``matrix_power``.

Vector norms record ``LinalgVectorNormBackward0``; the matrix norms 1, -1, inf and -inf are
composites (sums of ``|A|``, then ``amax``/``amin``), as in PyTorch. Norms that need a singular
value decomposition (2, -2, 'nuc') are not supported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _dim
from symgrad.torch_api import products
from symgrad.torch_api.composites import _matrix_power, cross_product
from symgrad.torch_api.products import LinAlgError, solve
from symgrad.torch_api.reductions import vector_norm

__all__ = ["LinAlgError", "cross", "det", "inv", "matrix_norm", "matrix_power", "norm", "solve",
           "vector_norm"]


def inv(A: Tensor) -> Tensor:  # noqa: N803 - PyTorch's name
    """The inverse of each square matrix in the last two dims (``LinalgInvExBackward0``); a
    singular one raises :class:`LinAlgError`.

    >>> symgrad.linalg.inv(symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    return products._inverse(A, "linalg.inv")


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002
    """The cross product of 3-vectors along ``dim`` (the last by default), with broadcasting:
    :func:`symgrad.cross` with a default dim.

    >>> symgrad.linalg.cross(symgrad.tensor([1.0, 0.0, 0.0]), symgrad.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    return cross_product("linalg_cross", input, other, dim)


def matrix_power(A: Tensor, n: int) -> Tensor:  # noqa: N803 - PyTorch's name
    """The ``n``-th power of each square matrix in the last two dims (see
    :func:`symgrad.matrix_power`).

    >>> symgrad.linalg.matrix_power(symgrad.tensor([[2.0, 0.0], [0.0, 1.0]]), -1)
    tensor([[0.5000, 0.0000],
            [0.0000, 1.0000]])
    """
    return _matrix_power("linalg.matrix_power", A, n)


def det(A: Tensor) -> Tensor:  # noqa: N803
    """The determinant of each square matrix in the last two dims (``LinalgDetBackward0``).

    >>> symgrad.linalg.det(symgrad.tensor([[2.0, 1.0], [1.0, 3.0]]))
    tensor(5.)
    """
    return products.det(A)


def matrix_norm(A: Tensor, ord: float | str = "fro",  # noqa: A002,N803 - PyTorch's names
                dim: tuple[int, int] = (-2, -1), keepdim: bool = False, *,
                dtype: dtypes.dtype | None = None) -> Tensor:
    """The ``ord``-norm of the matrices in dims ``dim``: ``'fro'``, or 1 / -1 (largest /
    smallest column sum of ``|A|``), inf / -inf (row sums).

    >>> symgrad.linalg.matrix_norm(symgrad.tensor([[1.0, -2.0], [3.0, 4.0]]), 1)
    tensor(6.)
    """
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    dims = tuple(dim)
    if len(dims) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(map(str, dims)))
    rows, cols = (_dim(d, A.ndim) for d in dims)
    if ord == "fro":
        return vector_norm(A, 2, (rows, cols), keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(f"symgrad does not support the matrix {ord}-norm (it needs a "
                                  "singular value decomposition)")
    if isinstance(ord, str) or ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if not A.is_floating_point():
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {A.dtype._torch_name}")
    if dtype is not None:
        A = A.to(dtypes.as_dtype(dtype))
    summed, kept = (rows, cols) if ord in (1, -1) else (cols, rows)  # 1: sums down columns
    sums = A.abs().sum(summed, keepdim=keepdim)
    if not keepdim and kept > summed:
        kept -= 1
    return sums.amax(kept, keepdim) if ord > 0 else sums.amin(kept, keepdim)


def norm(A: Tensor, ord: float | str | None = None,  # noqa: A002,N803 - PyTorch's names
         dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
         dtype: dtypes.dtype | None = None) -> Tensor:
    """A vector norm (1-D input, or one ``dim``) or a matrix norm (2-D input, or two dims);
    with ``ord=None``, the 2-norm of all the elements over ``dim``.

    >>> symgrad.linalg.norm(symgrad.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor(5.)
    """
    dims = None if dim is None else (dim,) if isinstance(dim, int | np.integer) else tuple(dim)
    if dims is not None and len(dims) not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                           f"{list(dims)}")
    if ord is None:
        return vector_norm(A, 2, dims, keepdim, dtype=dtype)
    if dims is None:
        if A.ndim not in (1, 2):
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must "
                               f"be 1D or 2D. Got {A.ndim}D.")
        if isinstance(ord, str) or A.ndim == 2:
            return matrix_norm(A, ord, keepdim=keepdim, dtype=dtype)
        dims = (0,)
    if len(dims) == 2:
        return matrix_norm(A, ord, dims, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dims[0]}")
    return vector_norm(A, ord, dims, keepdim, dtype=dtype)
