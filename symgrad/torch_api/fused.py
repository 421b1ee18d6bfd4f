"""PyTorch spellings of the fused products (see symgrad.methods): ``addmm``, ``addmv``,
``baddbmm`` (one record each: ``beta * input + alpha * (mat1 @ mat2)``) and ``kron``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import ops
from symgrad.dispatch import apply_inplace, apply_op
from symgrad.tensor import Tensor
from symgrad.torch_api.arguments import check_alpha, expanded_shape, scalar
from symgrad.torch_api.declaration import COMPOSITE, torch_api
from symgrad.torch_api.pointwise import _tensor

_la = ops.linalg
_sh = ops.shape


def _matrix(x: Tensor, name: str, ndim: int = 2) -> None:
    if x._value.ndim != ndim:
        kind = {1: "vector", 2: "matrix", 3: "3D tensor"}[ndim]
        raise RuntimeError(f"{name} must be a {kind}, got {x._value.ndim}-D tensor")


def _integral_scalars(beta: float, alpha: float, *tensors: Tensor) -> tuple[float, float]:
    """``beta`` and ``alpha`` as PyTorch's fused products read them: truncated to ints when
    every tensor is integral (its kernels take them as the tensors' type)."""
    if all(t._value.dtype.kind in "biu" for t in tensors):
        return int(beta), int(alpha)
    return beta, alpha


def _add_product(run: Any, op: ops.Op, fn: str, input: Tensor, a: Tensor, b: Tensor,  # noqa: A002
                 beta: float, alpha: float, shape: tuple[int, ...]) -> Tensor:
    expanded_shape(input._value.shape, shape)  # PyTorch's expand error when input does not fit
    beta, alpha = _integral_scalars(beta, alpha, input, a, b)
    params = {}
    if beta != 1:
        params["beta"] = scalar(beta)
    if alpha != 1:
        params["alpha"] = scalar(alpha)
    return run(op, input, a, b, **params)


def _same_dtypes(input: Tensor, mat1: Tensor, mat2: Tensor) -> None:  # noqa: A002
    """PyTorch's addmm kernel's dtype checks, in its order (no promotion)."""
    for first, name in ((input, "self"), (mat1, "mat1")):
        if first.dtype is not mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{first.dtype._torch_name} and {mat2.dtype._torch_name}")


def _addmm(run: Any, fn: str, input: Tensor, mat1: Tensor, mat2: Tensor, beta: float,  # noqa: A002
           alpha: float) -> Tensor:
    for i, (x, arg) in enumerate(((input, "input"), (mat1, "mat1"), (mat2, "mat2"))):
        _tensor(x, fn, arg, i + 1)
    _matrix(mat1, "mat1")
    _matrix(mat2, "mat2")
    _same_dtypes(input, mat1, mat2)
    (n, k), (k2, m) = mat1._value.shape, mat2._value.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    return _add_product(run, _la.addmm, fn, input, mat1, mat2, beta, alpha, (n, m))


@torch_api("addmm", example=lambda x: x[:, :2].addmm(x, x.T.exp()))
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1,  # noqa: A002
          alpha: float = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` for matrices, ``input`` broadcast to the
    product's shape (ignored when ``beta == 0``, nan included) (``AddmmBackward0``).

    >>> symgrad.addmm(symgrad.ones(2, 2), symgrad.eye(2), symgrad.tensor([[1.0, 2.0],
    ...                                                               [3.0, 4.0]]), alpha=2)
    tensor([[3., 5.],
            [7., 9.]])
    """
    return _addmm(apply_op, "addmm", input, mat1, mat2, beta, alpha)


@torch_api("addmm", function=False, inplace=True,
           example=lambda x: x.addmm_(x, x.T @ x))
def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1,
           alpha: float = 1) -> Tensor:
    """In-place :func:`addmm`."""
    return _addmm(apply_inplace, "addmm_", self, mat1, mat2, beta, alpha)


def _addmv(run: Any, fn: str, input: Tensor, mat: Tensor, vec: Tensor, beta: float,  # noqa: A002
           alpha: float) -> Tensor:
    for i, (x, arg) in enumerate(((input, "input"), (mat, "mat"), (vec, "vec"))):
        _tensor(x, fn, arg, i + 1)
    _matrix(mat, "vector + matrix @ vector expected, got mat", 2)
    _matrix(vec, "vector + matrix @ vector expected, got vec", 1)
    if not input.dtype is mat.dtype is vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{input.dtype._torch_name}, {mat.dtype._torch_name}, and "
                           f"{vec.dtype._torch_name}")
    n, k = mat._value.shape
    if vec._value.shape[0] != k or input._value.ndim > 1 or (
            input._value.ndim == 1 and input._value.shape[0] not in (1, n)):
        raise RuntimeError(f"size mismatch, got input ({_numel_text(input)}), mat ({n}x{k}), "
                           f"vec ({vec._value.shape[0]})")
    return _add_product(run, _la.addmv, fn, input, mat, vec, beta, alpha, (n,))


def _numel_text(x: Tensor) -> str:
    return str(x._value.shape[0]) if x._value.ndim == 1 else str(x._value.size)


@torch_api("addmv", example=lambda x: x[0, :2].addmv(x[:, :2], x[1, :2]))
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1,  # noqa: A002
          alpha: float = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` (``AddmvBackward0``).

    >>> symgrad.addmv(symgrad.ones(2), symgrad.eye(2), symgrad.tensor([3.0, 4.0]), beta=2)
    tensor([5., 6.])
    """
    return _addmv(apply_op, "addmv", input, mat, vec, beta, alpha)


@torch_api("addmv", function=False, inplace=True,
           example=lambda x: x[0].addmv_(x.T, x[1, :2]))
def addmv_(self: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1,
           alpha: float = 1) -> Tensor:
    """In-place :func:`addmv`."""
    return _addmv(apply_inplace, "addmv_", self, mat, vec, beta, alpha)


def _baddbmm(run: Any, fn: str, input: Tensor, batch1: Tensor, batch2: Tensor,  # noqa: A002
             beta: float, alpha: float) -> Tensor:
    for i, (x, arg) in enumerate(((input, "input"), (batch1, "batch1"), (batch2, "batch2"))):
        _tensor(x, fn, arg, i + 1)
    for batch in (batch1, batch2):
        if batch._value.ndim < 3:  # PyTorch reads its size(2) first
            n = batch._value.ndim
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, "
                             f"{n - 1}], but got 2)")
        _matrix(batch, "batch1" if batch is batch1 else "batch2", 3)
    (b, n, k), (b2, k2, m) = batch1._value.shape, batch2._value.shape
    if b != b2 or k != k2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {k}] but got: [{b2}, {k2}].")
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {input.dtype._cpp_name}, "
                           f"batch1: {batch1.dtype._cpp_name}, batch2: "
                           f"{batch2.dtype._cpp_name}")
    if batch1.dtype is not batch2.dtype:
        raise RuntimeError(f"expected scalar type {batch1.dtype._torch_name} but found "
                           f"{batch2.dtype._torch_name}")
    return _add_product(run, _la.baddbmm, fn, input, batch1, batch2, beta, alpha, (b, n, m))


@torch_api("baddbmm", example=lambda x: x.unsqueeze(0)[..., :2].baddbmm(
    x.unsqueeze(0), x.T.unsqueeze(0)))
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1,  # noqa: A002
            alpha: float = 1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices
    (``BaddbmmBackward0``).

    >>> symgrad.baddbmm(symgrad.zeros(1, 2, 2), symgrad.ones(1, 2, 3), symgrad.ones(1, 3, 2))
    tensor([[[3., 3.],
             [3., 3.]]])
    """
    return _baddbmm(apply_op, "baddbmm", input, batch1, batch2, beta, alpha)


@torch_api("baddbmm", function=False, inplace=True,
           example=lambda x: x.unsqueeze(0)[..., :2].baddbmm_(x.unsqueeze(0),
                                                               x.T.unsqueeze(0)))
def baddbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1,
             alpha: float = 1) -> Tensor:
    """In-place :func:`baddbmm`."""
    return _baddbmm(apply_inplace, "baddbmm_", self, batch1, batch2, beta, alpha)


def _scaled_sum(input: Tensor, product: Tensor, beta: float, alpha: float) -> Tensor:  # noqa: A002
    """``beta * input + alpha * product``, ``input`` broadcast to the product's shape and
    ignored when ``beta`` is 0 (its nan and inf too), as PyTorch's fused products."""
    expanded_shape(input._value.shape, product._value.shape)
    beta, alpha = _integral_scalars(beta, alpha, input, product)
    scaled = product if alpha == 1 else product * scalar(alpha)
    if beta == 0:
        return scaled
    return scaled + (input if beta == 1 else input * scalar(beta))


def _addr(fn: str, input: Tensor, vec1: Tensor, vec2: Tensor, beta: float,  # noqa: A002
          alpha: float) -> Tensor:
    for i, (x, arg) in enumerate(((input, "input"), (vec1, "vec1"), (vec2, "vec2"))):
        _tensor(x, fn, arg, i + 1)
    for v, arg in ((vec1, "vec1"), (vec2, "vec2")):
        if v._value.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {arg}, but got {v._value.ndim}-D")
    if input._value.dtype.kind in "biu":  # (addr's own check; addmm truncates instead)
        check_alpha(vec1, vec2, beta, "beta")
        check_alpha(vec1, vec2, alpha)
    return _scaled_sum(input, vec1.outer(vec2), beta, alpha)


@torch_api(COMPOSITE, example=lambda x: x.addr(x[:, 0], x[0]))
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: float = 1,  # noqa: A002
         alpha: float = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``, ``input`` broadcast to the outer
    product's shape (ignored when ``beta == 0``).

    >>> symgrad.addr(symgrad.zeros(2, 2), symgrad.tensor([1.0, 2.0]), symgrad.ones(2))
    tensor([[1., 1.],
            [2., 2.]])
    """
    return _addr("addr", input, vec1, vec2, beta, alpha)


@torch_api(COMPOSITE, function=False, inplace=True, example=lambda x: x.addr_(x[:, 0], x[0]))
def addr_(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: float = 1,
          alpha: float = 1) -> Tensor:
    """In-place :func:`addr`.

    >>> symgrad.ones(2, 2).addr_(symgrad.ones(2), symgrad.ones(2))
    tensor([[2., 2.],
            [2., 2.]])
    """
    return self.copy_(addr(self, vec1, vec2, beta=beta, alpha=alpha))


@torch_api(COMPOSITE, example=lambda x: x[:, :2].addbmm(x.unsqueeze(0), x.T.unsqueeze(0)[..., :2]))
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1,  # noqa: A002
           alpha: float = 1) -> Tensor:
    """``beta * input + alpha * sum(batch1[i] @ batch2[i])``: the batches' matrix products
    added up (``input`` broadcast to their shape, ignored when ``beta == 0``).

    >>> symgrad.addbmm(symgrad.zeros(2, 2), symgrad.ones(3, 2, 4), symgrad.ones(3, 4, 2))
    tensor([[12., 12.],
            [12., 12.]])
    """
    for i, (x, arg) in enumerate(((input, "input"), (batch1, "batch1"), (batch2, "batch2"))):
        _tensor(x, "addbmm", arg, i + 1)
    for batch, arg in ((batch1, "batch1"), (batch2, "batch2")):
        _matrix(batch, arg, 3)
    if batch1._value.shape[0] != batch2._value.shape[0]:
        raise RuntimeError("batch1 and batch2 must have same number of batches, got "
                           f"{batch1._value.shape[0]} and {batch2._value.shape[0]}")
    _same_dtypes(input, batch1, batch2)  # (PyTorch's addbmm runs addmm's kernel)
    return _scaled_sum(input, batch1.bmm(batch2).sum(0), beta, alpha)


@torch_api(COMPOSITE, function=False, inplace=True,
           example=lambda x: x[:, :2].clone().addbmm_(x.unsqueeze(0), x.T.unsqueeze(0)[..., :2]))
def addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1,
            alpha: float = 1) -> Tensor:
    """In-place :func:`addbmm`.

    >>> symgrad.ones(2, 2).addbmm_(symgrad.ones(3, 2, 2), symgrad.ones(3, 2, 2))
    tensor([[7., 7.],
            [7., 7.]])
    """
    return self.copy_(addbmm(self, batch1, batch2, beta=beta, alpha=alpha))


@torch_api(COMPOSITE, example=lambda x: x.kron(x[:1, :2]))
def kron(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The Kronecker product: every element of ``input`` times the whole of ``other``, as
    blocks (the shorter shape padded with leading 1s); a product and a reshape of the graph.

    >>> symgrad.kron(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), symgrad.tensor([[0.0, 1.0],
    ...                                                                     [1.0, 0.0]]))
    tensor([[0., 1., 0., 2.],
            [1., 0., 2., 0.],
            [0., 3., 0., 4.],
            [3., 0., 4., 0.]])
    """
    _tensor(input, "kron")
    _tensor(other, "kron", "other", 2)
    ndim = max(input._value.ndim, other._value.ndim)
    a = (1,) * (ndim - input._value.ndim) + tuple(input._value.shape)
    b = (1,) * (ndim - other._value.ndim) + tuple(other._value.shape)
    # a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...), then merged pairwise: PyTorch's
    # three _unsafe_view nodes (UnsafeViewBackward0) around one MulBackward0
    view = _sh.unsafe_view
    product = (apply_op(view, input, shape=tuple(s for n in a for s in (n, 1)))
               * apply_op(view, other, shape=tuple(s for n in b for s in (1, n))))
    return apply_op(view, product, shape=tuple(int(np.prod(p)) for p in zip(a, b, strict=True)))

