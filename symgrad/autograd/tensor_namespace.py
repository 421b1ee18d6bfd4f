"""The Tensor namespace: the names of ``symgrad.numeric.numpy_namespace`` on Tensors.

With ``create_graph=True`` the engine runs the very same VJP rules with this namespace, so the
gradients it computes are themselves recorded and can be differentiated again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import ops
from symgrad.dispatch import apply_op
from symgrad.numeric import numpy_namespace as numeric_xp
from symgrad.tensor import Tensor, _make


def _t(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else _make(np.asarray(x))


def exp(a: Tensor) -> Tensor:
    return a.exp()


def log(a: Tensor) -> Tensor:
    return a.log()


def sin(a: Tensor) -> Tensor:
    return a.sin()


def cos(a: Tensor) -> Tensor:
    return a.cos()


def sqrt(a: Tensor) -> Tensor:
    return a.sqrt()


def tanh(a: Tensor) -> Tensor:
    return a.tanh()


def sigmoid(a: Tensor) -> Tensor:
    return a.sigmoid()


def abs(a: Tensor) -> Tensor:  # noqa: A001 - numpy's name
    return a.abs()


def relu(a: Tensor) -> Tensor:
    return a.relu()


def softmax(a: Tensor, axis: Sequence[int]) -> Tensor:
    return apply_op(ops.nn.softmax, _t(a), dim=tuple(axis))


def log_softmax(a: Tensor, axis: Sequence[int]) -> Tensor:
    return apply_op(ops.nn.log_softmax, _t(a), dim=tuple(axis))


pi = math.pi


def eps(a: Tensor) -> float:
    return numeric_xp.eps(_t(a)._value)


def scalar_sqrt(c: float) -> float:
    return math.sqrt(c)


def _unary(op: ops.Op) -> Any:
    return lambda a: apply_op(op, a)


# the pointwise family (symgrad.ops.elementwise), recorded so that higher orders stay connected
_ew = ops.elementwise
tan, arcsin, arccos, arctan = _unary(_ew.tan), _unary(_ew.asin), _unary(_ew.acos), _unary(_ew.atan)
sinh, cosh, log1p, expm1 = _unary(_ew.sinh), _unary(_ew.cosh), _unary(_ew.log1p), _unary(_ew.expm1)
log2, log10, exp2, erf = _unary(_ew.log2), _unary(_ew.log10), _unary(_ew.exp2), _unary(_ew.erf)
floor, ceil, trunc, rint = _unary(_ew.floor), _unary(_ew.ceil), _unary(_ew.trunc), _unary(_ew.round)


def div_rounded(a: Any, b: Any, mode: str) -> Tensor:
    return apply_op(ops.elementwise.div_rounded, _t(a), _t(b), rounding_mode=mode)


def isfinite(a: Tensor) -> Tensor:
    return _make(np.isfinite(a._value))


arcsinh, arccosh, arctanh = _unary(_ew.asinh), _unary(_ew.acosh), _unary(_ew.atanh)
erfc = _unary(_ew.erfc)
lgamma, digamma, erfinv = _unary(_ew.lgamma), _unary(_ew.digamma), _unary(_ew.erfinv)
entr, log_ndtr, ndtri = _unary(_ew.entr), _unary(_ew.log_ndtr), _unary(_ew.ndtri)
i0, i1, i0e, i1e = _unary(_ew.i0), _unary(_ew.i1), _unary(_ew.i0e), _unary(_ew.i1e)
erfcx = _unary(_ew.erfcx)


def polygamma(n: int, a: Tensor) -> Tensor:
    return apply_op(_ew.polygamma, _t(a), n=n)


def frexp_mantissa(a: Tensor) -> Tensor:
    return apply_op(_ew.frexp_mantissa, _t(a))


def frexp_exponent(a: Tensor) -> Tensor:
    """frexp's exponent, a constant (it is piecewise constant)."""
    return _make(numeric_xp.frexp_exponent(_t(a)._value))


def nextafter(a: Any, b: Any) -> Tensor:
    return apply_op(_ew.nextafter, _t(a), _t(b))


def zeta(a: Any, q: Any) -> Tensor:
    return apply_op(_ew.zeta, _t(a), _t(q))


def igamma(a: Any, x: Any) -> Tensor:
    return apply_op(_ew.igamma, _t(a), _t(x))


def igammac(a: Any, x: Any) -> Tensor:
    return apply_op(_ew.igammac, _t(a), _t(x))


def standard_gamma_grad(a: Tensor, sample: Tensor) -> Tensor:
    """A gamma draw's implicit derivative in its shape, as a constant: PyTorch's has no
    derivative of its own either."""
    return _make(numeric_xp.standard_gamma_grad(_t(a)._value, _t(sample)._value))


def igamma_grad_x(a: Any, x: Tensor) -> Tensor:
    """The standard gamma density ``x^(a-1) e^-x / Γ(a)``, recorded (igamma's x-derivative)."""
    return ((_t(a) - 1) * log(x) - x - lgamma(_t(a))).exp()


def hypot(a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.hypot, _t(a), _t(b))


def copysign(a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.copysign, _t(a), _t(b))


def remainder(a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.remainder, _t(a), _t(b))


def fmod(a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.fmod, _t(a), _t(b))


def logaddexp(a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.logaddexp, _t(a), _t(b))


def logaddexp2(a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.logaddexp2, _t(a), _t(b))


def nan_to_num(a: Tensor, nan: float, posinf: float | None, neginf: float | None) -> Tensor:
    return apply_op(ops.elementwise.nan_to_num, a, nan=nan, posinf=posinf, neginf=neginf)


def softplus(a: Tensor) -> Tensor:
    return apply_op(ops.elementwise.softplus, a, beta=1, threshold=math.inf)


def power(a: Any, b: Any) -> Tensor:
    return a ** b


def arctan2(a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.atan2, _t(a), _t(b))


def maximum(a: Any, b: Any) -> Tensor:
    if not isinstance(b, Tensor):
        return apply_op(ops.elementwise.clamp_min, _t(a), min=b)
    return apply_op(ops.elementwise.maximum, _t(a), b)


def minimum(a: Any, b: Any) -> Tensor:
    if not isinstance(b, Tensor):
        return apply_op(ops.elementwise.clamp_max, _t(a), max=b)
    return apply_op(ops.elementwise.minimum, _t(a), b)


def fmax(a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.fmax, _t(a), _t(b))


def fmin(a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.fmin, _t(a), _t(b))


def mean(a: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    return a.mean(axis, keepdims)


# -- products, logsumexp and scans (symgrad.ops.reduction)
def prod(a: Tensor, axis: tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    if axis is None:
        return apply_op(ops.reduction.prod, a)
    return apply_op(ops.reduction.prod, a, dim=tuple(axis), keepdim=keepdims)


def prod_backward(g: Tensor, ans: Tensor, a: Tensor, axis: tuple[int, ...] | None) -> Tensor:
    """As the numeric rule (a division without zeros, exact products with them), recorded."""
    if a.ndim == 0:
        return g
    if not bool((a == 0).any()):
        return g * (ans / a)
    if axis is None:
        return g * _products_of_others(a.reshape(-1), 0).reshape(tuple(a.shape))
    return g * _products_of_others(a, axis[0])


def _products_of_others(a: Tensor, axis: int) -> Tensor:
    before = _exclusive_cumprod(a, axis)
    return before * _flip(_exclusive_cumprod(_flip(a, axis), axis), axis)


def _exclusive_cumprod(a: Tensor, axis: int) -> Tensor:
    """The product of the elements before each one along ``axis`` (1 for the first)."""
    lead = (slice(None),) * axis
    head = cumprod(apply_op(ops.shape.index, a, key=(*lead, slice(0, -1))), axis)
    shifted = apply_op(ops.shape.index_backward, head, shape=tuple(a.shape),
                       key=(*lead, slice(1, None)))
    first = np.zeros(a.shape, dtype=a._value.dtype)
    first[(*lead, 0)] = 1
    return shifted + _make(first)


def _flip(a: Tensor, axis: int) -> Tensor:
    return apply_op(ops.shape.index, a, key=(*(slice(None),) * axis, slice(None, None, -1)))


def logsumexp(a: Tensor, axis: Sequence[int], keepdims: bool = False) -> Tensor:
    return apply_op(ops.reduction.logsumexp, a, dim=tuple(axis), keepdim=keepdims)


def cumsum(a: Tensor, axis: int) -> Tensor:
    return apply_op(ops.reduction.cumsum, _t(a), dim=axis)


def logcumsumexp(a: Tensor, axis: int) -> Tensor:
    return apply_op(ops.reduction.logcumsumexp, a, dim=axis)


def cumprod(a: Tensor, axis: int) -> Tensor:
    return apply_op(ops.reduction.cumprod, _t(a), dim=axis)


def cumprod_backward(g: Tensor, ans: Tensor, a: Tensor, axis: int) -> Tensor:
    """As the numeric rule without zeros; with zeros, PyTorch's grad-mode formula: for each i,
    the cumprod of ``a`` with ``a[i]`` replaced by 1, weighted by ``g`` from i on (O(n^2))."""
    if a.ndim == 0 or a.shape[axis] <= 1:
        return g
    if not bool((a == 0).any()):
        return _flip(cumsum(_flip(ans * g, axis), axis), axis) / a
    n = a.shape[axis]
    moved = a.transpose(axis, -1)
    rows = moved.unsqueeze(-2).expand((*moved.shape[:-1], n, n))  # rows[..., i, :] = a
    rows = where(np.eye(n, dtype=bool), 1.0, rows)
    products = cumprod(rows, rows.ndim - 1)  # [..., i, j]: prod of a[:j+1] without a[i]
    weights = where(np.triu(np.ones((n, n), dtype=bool)), g.transpose(axis, -1).unsqueeze(-2),
                    0.0)  # g[j] for j >= i
    return (products * weights).sum(-1).transpose(axis, -1)


def sign(a: Tensor) -> Tensor:
    """Elementwise sign, recorded (its gradient is zero) so that higher orders stay connected."""
    return a.sign()


def zeros_like(a: Tensor) -> Tensor:
    """Zeros outside the graph: a gradient that is identically zero, as PyTorch returns it."""
    return _make(np.zeros_like(_t(a)._value))


def where(condition: Any, a: Any, b: Any) -> Tensor:
    return apply_op(ops.elementwise.where, _t(condition), a, b)


def scalar_log(c: float) -> float:
    return math.log(c) if c > 0 else (-math.inf if c == 0 else math.nan)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    return apply_op(ops.linalg.matmul, a, b)


def inv(a: Tensor) -> Tensor:
    return apply_op(ops.linalg.inverse, a)


inv_unless_singular = inv  # (a second derivative of det at a singular matrix: not finite)


def det(a: Tensor) -> Tensor:
    return apply_op(ops.linalg.det, a)


def solve(a: Tensor, b: Tensor) -> Tensor:
    """``a``'s matrices solved for the matrices ``b`` (the rules give a 1-d ``b`` its own
    axis first)."""
    return apply_op(ops.linalg.solve, a, b)


def cholesky(a: Tensor) -> Tensor:
    return apply_op(ops.linalg.cholesky, a)


def solve_triangular(t: Tensor, b: Tensor, lower: bool, unit: bool = False) -> Tensor:
    """``t``'s triangle solved for the matrices ``b``."""
    return apply_op(ops.linalg.solve_triangular, t, b, upper=not lower, unitriangular=unit)


def slogabsdet(a: Tensor) -> Tensor:
    return apply_op(ops.linalg.slogdet, a)


inv_or_nan = inv  # (a second derivative at a singular matrix: not finite)


off_diagonal = numeric_xp.off_diagonal  # (a constant mask)


def full_rank_pinv(a: Tensor) -> Tensor:
    transposed = a.mT
    if a.shape[-2] >= a.shape[-1]:
        return (transposed @ a).inverse() @ transposed
    return transposed @ (a @ transposed).inverse()


def inv_ex(a: Tensor) -> Tensor:
    return apply_op(ops.linalg.inverse_ex, a)


def solve_ex(a: Tensor, b: Tensor) -> Tensor:
    return apply_op(ops.linalg.solve_ex, a, b)


def cholesky_ex(a: Tensor) -> tuple[Tensor, np.ndarray]:
    return apply_op(ops.linalg.cholesky_ex, a), numeric_xp.cholesky_ex(a._value)[1]


def geqrf(a: Tensor) -> tuple[Tensor, Tensor]:
    return apply_op(ops.linalg.geqrf_a, a), apply_op(ops.linalg.geqrf_tau, a)


def lu_factor(a: Tensor) -> tuple[Tensor, np.ndarray, np.ndarray]:
    """The packed factor as a recorded op; the pivots and info as numbers (constants)."""
    _, pivots, info = numeric_xp.lu_factor(a._value)
    return apply_op(ops.linalg.lu_factor, a), pivots, info


lu_permutation = numeric_xp.lu_permutation  # (constant permutation matrices)


def svd(a: Tensor, full_matrices: bool) -> tuple[Tensor, Tensor, Tensor]:
    return tuple(apply_op(op, a, full_matrices=full_matrices)  # type: ignore[return-value]
                 for op in (ops.linalg.svd_u, ops.linalg.svd_s, ops.linalg.svd_vh))


def svdvals(a: Tensor) -> Tensor:
    return apply_op(ops.linalg.svdvals, a)


def eigh(a: Tensor, upper: bool) -> tuple[Tensor, Tensor]:
    return (apply_op(ops.linalg.eigh_values, a, upper=upper),
            apply_op(ops.linalg.eigh_vectors, a, upper=upper))


def qr(a: Tensor, complete: bool) -> tuple[Tensor, Tensor]:
    mode = "complete" if complete else "reduced"
    return apply_op(ops.linalg.qr_q, a, mode=mode), apply_op(ops.linalg.qr_r, a, mode=mode)


def matrix_exp(a: Tensor) -> Tensor:
    return apply_op(ops.linalg.matrix_exp, a)


def pinv(a: Tensor, atol: float, rtol: float, hermitian: bool) -> Tensor:
    return apply_op(ops.linalg.pinv, a, atol=atol, rtol=rtol, hermitian=hermitian)


def swapaxes(a: Tensor, axis1: int, axis2: int) -> Tensor:
    return a.transpose(axis1, axis2)


def transpose(a: Tensor, axes: Sequence[int] | None = None) -> Tensor:
    if axes is None:
        return a.permute((*reversed(range(a.ndim)),))
    return a.permute((*axes,))


def reshape(a: Tensor, shape: Sequence[int]) -> Tensor:
    return a.reshape(tuple(shape))


def expand_dims(a: Tensor, axis: int | Sequence[int]) -> Tensor:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    shape = list(a.shape)
    for d in sorted(x % (len(shape) + len(axes)) for x in axes):
        shape.insert(d, 1)
    return a.reshape(tuple(shape))


def squeeze(a: Tensor, axis: int | None = None) -> Tensor:
    return a.squeeze(axis)


def broadcast_to(a: Tensor, shape: Sequence[int]) -> Tensor:
    return _t(a).expand(tuple(shape))


def sum(a: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    return a.sum(axis, keepdims)


def spread(g: Tensor, shape: Sequence[int]) -> Tensor:
    return _t(g).expand(tuple(shape))


def tanh_backward(g: Tensor, ans: Tensor) -> Tensor:
    return g * (1 - ans * ans)


def sum_to_shape(g: Tensor, shape: Sequence[int]) -> Tensor:
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and g.shape[lead + i] != 1)
    out = g.sum(axes, keepdim=True) if axes else g
    return out.reshape(shape) if lead or out.shape != shape else out


def index_backward(g: Tensor, shape: Sequence[int], key: Any) -> Tensor:
    return apply_op(ops.shape.index_backward, g, shape=tuple(shape), key=key)


def index_multiply(g: Tensor, shape: Sequence[int], key: Any) -> Tensor:
    ones = _make(np.ones(tuple(shape), dtype=g._value.dtype))
    return apply_op(ops.shape.scatter_reduce, ones, g, key=key,
                    src_key=tuple(slice(None) for _ in g.shape), reduce="prod",
                    include_self=True)


def index_put(a: Tensor, key: Any, value: Any) -> Tensor:
    return apply_op(ops.shape.setitem, a, value, key=key)


# -- shape and linear-algebra ops (symgrad.ops.shape, symgrad.ops.linalg)
def tile(a: Tensor, reps: Sequence[int]) -> Tensor:
    reps = (1,) * (a.ndim - len(reps)) + tuple(reps)
    return apply_op(ops.shape.repeat, a, repeats=reps)


def flip(a: Tensor, axes: Sequence[int]) -> Tensor:
    return apply_op(ops.shape.flip, a, dims=tuple(axes))


def roll(a: Tensor, shifts: Any, axes: Any) -> Tensor:
    return apply_op(ops.shape.roll, a, shifts=shifts, dims=axes)


def concatenate(arrays: Sequence[Tensor], axis: int) -> Tensor:
    return apply_op(ops.shape.cat, *arrays, dim=axis)


def stack(arrays: Sequence[Tensor], axis: int) -> Tensor:
    return apply_op(ops.shape.stack, *arrays, dim=axis)


def diagonal(a: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    return apply_op(ops.linalg.diagonal, a, offset=offset, dim1=axis1, dim2=axis2)


def diagonal_backward(g: Tensor, shape: Sequence[int], offset: int, axis1: int,
                      axis2: int) -> Tensor:
    return apply_op(ops.linalg.diag_embed, _t(g), shape=tuple(shape), offset=offset,
                    dim1=axis1, dim2=axis2)


def tril(a: Tensor, k: int) -> Tensor:
    return apply_op(ops.linalg.tril, a, diagonal=k)


def triu(a: Tensor, k: int) -> Tensor:
    return apply_op(ops.linalg.triu, a, diagonal=k)


def pad(a: Tensor, widths: Sequence[tuple[int, int]], value: float) -> Tensor:
    return apply_op(ops.shape.constant_pad, a, pad=tuple(widths), value=value)


def full_like(a: Tensor, value: float) -> Tensor:
    return _make(np.full_like(_t(a)._value, value))


def astype(a: Tensor, dtype: str | None) -> Tensor:
    return apply_op(ops.elementwise.to_dtype, a, dtype=dtype or a._value.dtype.name)


def masked_extreme(a: Tensor, mask: Any, axis: Any, keepdims: bool, largest: bool) -> Tensor:
    fill = -math.inf if largest else math.inf
    masked = where(_t(mask), a, fill)
    return masked.amax(axis, keepdims) if largest else masked.amin(axis, keepdims)



# -- sliding windows (symgrad.ops.conv), through im2col / col2im so that they are recorded
def windows(a: Tensor, kernel: Sequence[int], stride: Sequence[int],
            dilation: Sequence[int]) -> Tensor:
    kernel = tuple(kernel)
    d = len(kernel)
    cols = apply_op(ops.conv.im2col, _t(a), kernel=kernel, dilation=tuple(dilation),
                    padding=((0, 0),) * d, stride=tuple(stride))
    out = tuple(ops.conv.window_count(*v) for v in zip(a.shape[2:], kernel, stride, dilation,
                                                         strict=True))
    cols = cols.reshape((*a.shape[:2], *kernel, *out))
    return cols.permute(0, 1, *range(2 + d, 2 + 2 * d), *range(2, 2 + d))


def windows_backward(g: Tensor, shape: Sequence[int], kernel: Sequence[int],
                     stride: Sequence[int], dilation: Sequence[int]) -> Tensor:
    kernel, shape = tuple(kernel), tuple(shape)
    d = len(kernel)
    out = tuple(g.shape[2:2 + d])
    covered = tuple((o - 1) * s + dl * (k - 1) + 1
                    for o, k, s, dl in zip(out, kernel, stride, dilation, strict=True))
    cols = g.permute(0, 1, *range(2 + d, 2 + 2 * d), *range(2, 2 + d))
    cols = cols.reshape((g.shape[0], g.shape[1] * math.prod(kernel), math.prod(out)))
    y = apply_op(ops.conv.col2im, cols, output_size=covered, kernel=kernel,
                 dilation=tuple(dilation), padding=((0, 0),) * d, stride=tuple(stride))
    rest = tuple((0, n - c) for n, c in zip(shape[2:], covered, strict=True))
    return pad(y, ((0, 0), (0, 0), *rest), 0.0) if any(r for _, r in rest) else y
