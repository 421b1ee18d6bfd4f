"""The numpy namespace: the numpy subset that op rules are written against.

Op forwards and VJPs call ``xp.exp``, ``xp.matmul``, ``xp.sum_to_shape`` ... and never import
numpy themselves, so the same rules run here on float arrays, in
``symgrad.autograd.tensor_namespace`` on Tensors (for ``create_graph=True``) and in
``symgrad.symbolic.sympy_namespace`` on sympy object arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy import (  # noqa: F401 - re-exported as the namespace
    abs,
    broadcast_to,
    ceil,
    cos,
    exp,
    floor,
    full_like,
    log,
    matmul,
    maximum,
    minimum,
    rint,
    sin,
    sqrt,
    tanh,
    trunc,
    where,
    zeros_like,
)

from symgrad.numeric.bessel import erfcx, i0, i0e, i1, i1e  # noqa: F401 - the namespace's
from symgrad.numeric.zeta import zeta  # noqa: F401

pi = math.pi

# -- numpy's error state. PyTorch computes inf and nan silently (log(0), 0/0, exp overflow), so
# symgrad's results must not depend on the user's np.seterr / np.errstate nor on a warnings
# filter that turns RuntimeWarning into an error. Computations run as they are (setting an
# error state costs microseconds per op) and, where the user's state raised, once more quietly.

FLOAT_ERRORS = (FloatingPointError, RuntimeWarning)
"""What numpy raises for an inf or nan under ``np.seterr(all="raise")`` or a warnings filter
set to "error"."""


try:  # numpy's error state is a context variable holding an "extobj"; setting it directly
    # costs a tenth of ``np.errstate``'s Python (which the engine would pay twice per backward)
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
except ImportError:  # pragma: no cover - another numpy layout: np.errstate
    _extobj_contextvar = _make_extobj = None

# the state last silenced and its silent version (bufsize kept), as one tuple: threads that
# silence different states at once replace it whole, and each uses the pair it read
_quiet: tuple[Any, Any] = (None, None)


def silence() -> Any:
    """Enter :func:`quiet`'s error state without a context manager (the engine's hot path);
    the token returned goes to :func:`restore`, in a ``finally``.

    >>> token = silence()
    >>> try:
    ...     float(np.log(np.float64(0.0)))
    ... finally:
    ...     restore(token)
    -inf
    """
    global _quiet
    if _extobj_contextvar is None:  # pragma: no cover
        state = np.errstate(all="ignore")
        state.__enter__()
        return state
    current = _extobj_contextvar.get()
    pair = _quiet
    if pair[0] is not current:
        # (made from the current one: its bufsize)
        pair = _quiet = (current, _make_extobj(all="ignore"))
    return _extobj_contextvar.set(pair[1])


def restore(token: Any) -> None:
    """Leave the error state :func:`silence` entered (``token``: what it returned)."""
    if _extobj_contextvar is None:  # pragma: no cover
        token.__exit__(None, None, None)
    else:
        _extobj_contextvar.reset(token)


class _Quiet:
    """The context of :func:`quiet`."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = silence()

    def __exit__(self, *exc_info: object) -> None:
        restore(self._token)


def quiet() -> Any:
    """The error state symgrad computes in: inf and nan arise silently, as in PyTorch (a
    context manager, as ``np.errstate(all="ignore")``, cheaper).

    >>> with quiet():
    ...     float(np.log(np.float64(0.0)))
    -inf
    """
    return _Quiet()



def quietly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` whatever numpy's error state: as it is first (free), again under
    :func:`quiet` if the user's state made an inf or nan raise. ``fn`` must be pure.

    >>> with np.errstate(all="raise"):
    ...     float(quietly(np.exp, np.float64(1000.0)))
    inf
    """
    try:
        return fn(*args, **kwargs)
    except FLOAT_ERRORS:
        with quiet():
            return fn(*args, **kwargs)

_F32 = np.dtype(np.float32)


def _in_float64(ufunc: np.ufunc) -> Callable[..., np.ndarray]:
    """``ufunc`` computed in float64 for float32 inputs and rounded back: numpy's float32
    loops of these are often an ulp or more off (``log10(100)`` is ``2.0000002``), PyTorch's
    are correctly rounded almost everywhere."""

    def apply(*args: np.ndarray) -> np.ndarray:
        # (a Python number, a scalar operand's value, has no dtype: float64)
        if (getattr(args[0], "dtype", None) if len(args) == 1 else np.result_type(*args)) == _F32:
            return ufunc(*args, dtype=np.float64).astype(_F32)
        return ufunc(*args)

    apply.__name__ = ufunc.__name__
    apply.__doc__ = f"``numpy.{ufunc.__name__}``, in float64 for float32 inputs."
    return apply


tan, arcsin, arccos, arctan = (_in_float64(f) for f in (np.tan, np.arcsin, np.arccos, np.arctan))
sinh, cosh, log1p, expm1 = (_in_float64(f) for f in (np.sinh, np.cosh, np.log1p, np.expm1))
log2, log10, exp2, arctan2 = (_in_float64(f) for f in (np.log2, np.log10, np.exp2, np.arctan2))
arcsinh, arccosh, arctanh = (_in_float64(f) for f in (np.arcsinh, np.arccosh, np.arctanh))
logaddexp, logaddexp2 = _in_float64(np.logaddexp), _in_float64(np.logaddexp2)
copysign, fmod, isfinite = np.copysign, np.fmod, np.isfinite


def remainder(a: Any, b: Any) -> Any:
    """``a`` modulo ``b`` with the divisor's sign (numpy's ``remainder``), a zero result signed
    as ``a`` (PyTorch adjusts ``fmod``, whose zeros keep ``a``'s sign; numpy's take ``b``'s)."""
    out = np.remainder(a, b)
    if np.result_type(out).kind == "f":
        out = np.where(out == 0, np.copysign(out, a), out)
    return out


def div_rounded(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    """``a / b`` rounded down (``mode="floor"``, Python's ``//``) or toward zero ("trunc"),
    in the inputs' dtype: integers divide exactly."""
    if mode == "floor":
        return np.floor_divide(a, b)
    if np.result_type(a, b).kind in "biu":
        q = np.floor_divide(a, b)
        return q + ((q < 0) & (q * b != a))
    return np.trunc(np.true_divide(a, b))


def nan_to_num(a: np.ndarray, nan: float, posinf: float | None,
               neginf: float | None) -> np.ndarray:
    """nan, inf and -inf replaced (infinities by the dtype's extremes unless given)."""
    return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)

def power(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """``a ** b``; integers to negative integer powers as PyTorch computes them (numpy refuses
    them): 1 for a base of 1, -1 or 1 for -1 (odd or even powers), 0 for any other base.

    >>> power(np.array([1, 2, -1, -1, 0]), np.array([-2, -3, -1, -2, -1]))
    array([ 1,  0, -1,  1,  0])
    """
    try:
        return a ** b
    except ValueError:  # "Integers to negative integer powers are not allowed."
        a, b = np.asarray(a), np.asarray(b)
        negative = b < 0
        out = a ** np.where(negative, 0, b)
        sign = np.where(b % 2 == 0, 1, -1)
        return np.where(negative, np.where(a == 1, 1, np.where(a == -1, sign, 0)),
                        out).astype(out.dtype, copy=False)


_add_reduce = np.add.reduce

# numpy's function spellings of the array methods below cost about a microsecond of Python
# dispatch each; the methods themselves do not, and the engine calls these on every node.


def sum(a: np.ndarray, axis: tuple[int, ...] | None = None,  # noqa: A001 - numpy's name
        keepdims: bool = False) -> np.ndarray:
    """``numpy.sum`` as the ufunc's reduce (the array method goes through numpy's Python
    wrappers, slower, and warnings raised there escape symgrad's filter). Unsigned integers sum
    as int64, as PyTorch's (numpy's reduce would give uint64)."""
    if a.dtype.kind == "u":
        return _add_reduce(a, axis, keepdims=keepdims, dtype=np.int64)
    return _add_reduce(a, axis, keepdims=keepdims)


def mean(a: np.ndarray, axis: tuple[int, ...] | None = None,
         keepdims: bool = False) -> np.ndarray:
    """``numpy.mean`` as sum / count (numpy's own mean has several microseconds of overhead)."""
    count = a.size if axis is None else math.prod(a.shape[d] for d in axis)
    return _add_reduce(a, axis, keepdims=keepdims) / count


def reshape(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``numpy.reshape`` through the array method."""
    return a.reshape(shape)


inv, solve = np.linalg.inv, np.linalg.solve  # (they set numpy's error state themselves)


def det(a: np.ndarray) -> np.ndarray:
    """``numpy.linalg.det``, silent on an inf or nan (numpy's warns from its Python code)."""
    with quiet():
        return np.linalg.det(a)


def cholesky(a: np.ndarray) -> np.ndarray:
    """The lower Cholesky factor of each matrix (numpy's, from the lower triangle)."""
    return np.linalg.cholesky(a)


def solve_triangular(t: np.ndarray, b: np.ndarray, lower: bool,
                     unit: bool = False) -> np.ndarray:
    """``t⁻¹ b`` for triangular matrices ``t`` (only the triangle is read; with ``unit``, its
    diagonal is taken as ones), by substitution row by row, batched and broadcast: a zero on
    the diagonal gives inf and nan, as LAPACK's ``trsm`` in PyTorch, where a general solver
    would raise.

    >>> solve_triangular(np.array([[2.0, 0.0], [1.0, 1.0]]), np.array([[2.0], [3.0]]), True)
    array([[1.],
           [2.]])
    """
    n = t.shape[-1]
    shape = np.broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:]
    x = np.zeros(shape, dtype=np.result_type(t, b))
    b = np.broadcast_to(b, shape)
    with np.errstate(all="ignore"):
        for i in range(n) if lower else range(n - 1, -1, -1):
            known = slice(0, i) if lower else slice(i + 1, n)
            row = b[..., i:i + 1, :] - np.matmul(t[..., i:i + 1, known], x[..., known, :])
            x[..., i:i + 1, :] = row if unit else row / t[..., i:i + 1, i:i + 1]
    return x


def slogabsdet(a: np.ndarray) -> np.ndarray:
    """``log|det a|`` of each matrix (numpy's slogdet: no overflow for large determinants)."""
    with quiet():
        return np.linalg.slogdet(a)[1]


def _inverse_or(a: np.ndarray, fill: float) -> np.ndarray:
    """``inv(a)`` for each matrix of ``a``, ``fill`` in every entry of a singular one."""
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        out = np.full_like(a, fill)
        for index in np.ndindex(*a.shape[:-2]):
            try:
                out[index] = np.linalg.inv(a[index])
            except np.linalg.LinAlgError:
                pass
        return out


def inv_or_nan(a: np.ndarray) -> np.ndarray:
    """``inv(a)`` for each matrix of ``a``, nan for a singular one (the gradient of slogdet
    there is not finite; PyTorch's has inf and nan)."""
    return _inverse_or(a, np.nan)


def inv_unless_singular(a: np.ndarray) -> np.ndarray:
    """``inv(a)`` for each matrix of ``a``, zeros for a singular one: det's VJP scales it by
    the determinant, 0 there (PyTorch's gradient of det at a singular matrix is 0 too)."""
    return _inverse_or(a, 0.0)


def off_diagonal(k: int) -> np.ndarray:
    """The mask of the off-diagonal entries of a k x k matrix.

    >>> off_diagonal(2)
    array([[False,  True],
           [ True, False]])
    """
    return ~np.eye(k, dtype=bool)


def full_rank_pinv(a: np.ndarray) -> np.ndarray:
    """``(A^T A)^-1 A^T`` for a tall matrix, ``A^T (A A^T)^-1`` for a wide one: the
    pseudoinverse of a matrix of full rank (``pinv``'s lowering, here for symmetry)."""
    transposed = np.swapaxes(a, -1, -2)
    if a.shape[-2] >= a.shape[-1]:
        return np.matmul(np.linalg.inv(np.matmul(transposed, a)), transposed)
    return np.matmul(transposed, np.linalg.inv(np.matmul(a, transposed)))


def lu_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's ``getrf`` for each m x n matrix, batched: Gaussian elimination with partial
    pivoting (the first largest ``|entry|`` of each column), going on past a zero pivot.
    Returns the packed factors (L's multipliers below the diagonal, U on and above it), the
    1-based int32 pivots and the int32 info (the 1-based index of the first zero pivot, or 0).

    >>> lu, pivots, info = lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> lu, pivots, info
    (array([[3.        , 4.        ],
           [0.33333333, 0.66666667]]), array([2, 2], dtype=int32), array(0, dtype=int32))
    """
    lu = np.array(a, dtype=a.dtype, copy=True)
    batch, (rows, cols) = a.shape[:-2], a.shape[-2:]
    k = min(rows, cols)
    count = math.prod(batch)
    flat = lu.reshape((count, rows, cols))
    pivots = np.zeros((count, k), np.int32)
    info = np.zeros(count, np.int32)
    every = np.arange(count)
    with quiet():
        for j in range(k):
            p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1)
            pivots[:, j] = p + 1
            flat[every, [j] * count], flat[every, p] = flat[every, p], flat[every, [j] * count]
            pivot = flat[:, j, j]
            zero = pivot == 0
            info = np.where(zero & (info == 0), j + 1, info)
            safe = ~zero
            flat[safe, j + 1:, j] /= pivot[safe, None]
            flat[safe, j + 1:, j + 1:] -= flat[safe, j + 1:, j, None] * flat[safe, None, j, j + 1:]
    return (flat.reshape(a.shape), pivots.reshape(batch + (k,)),
            info.reshape(batch).astype(np.int32))


def _per_matrix_or(a: np.ndarray, fast: Callable[[np.ndarray], np.ndarray],
                   fallback: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``fast(a)`` when LAPACK succeeds for the whole batch, else each matrix by ``fast`` or,
    where that fails, by ``fallback``."""
    try:
        return fast(a)
    except np.linalg.LinAlgError:
        out = np.empty(a.shape, a.dtype)
        for index in np.ndindex(*a.shape[:-2]):
            try:
                out[index] = fast(a[index])
            except np.linalg.LinAlgError:
                out[index] = fallback(a[index])
        return out


def lu_solve_values(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``A^-1 b`` from ``A``'s packed LU factor, with inf and nan past a zero pivot (LAPACK's
    ``getrs``, as in PyTorch's ``_ex`` functions on a singular matrix)."""
    swapped = np.matmul(np.swapaxes(lu_permutation(pivots, lu.shape[-1], lu.dtype), -1, -2), b)
    return solve_triangular(lu, solve_triangular(lu, swapped, True, True), False)


def inv_ex(a: np.ndarray) -> np.ndarray:
    """``inv(a)``; a singular matrix's inverse is that of its LU factors, inf and nan past the
    zero pivot, as PyTorch's ``linalg.inv_ex``."""
    def through_lu(m: np.ndarray) -> np.ndarray:
        lu, pivots, _ = lu_factor(m)
        return lu_solve_values(lu, pivots, np.eye(m.shape[-1], dtype=m.dtype))
    return _per_matrix_or(a, np.linalg.inv, through_lu)


def solve_ex(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``solve(a, b)`` (b a stack of matrices); through LU factors for a singular ``a``."""
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        lu, pivots, _ = lu_factor(np.broadcast_to(a, np.broadcast_shapes(
            a.shape[:-2], b.shape[:-2]) + a.shape[-2:]))
        return lu_solve_values(lu, pivots, b)


def cholesky_ex(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lower Cholesky factor of each matrix and LAPACK's info (the order of the first
    leading minor that is not positive definite, or 0); a failed factorization keeps what
    LAPACK's ``potrf`` leaves: the columns done, the failed pivot's value unrooted, the rest of
    the lower triangle as it was."""
    def partial(m: np.ndarray) -> np.ndarray:
        out = np.tril(m).astype(m.dtype)
        for j in range(m.shape[-1]):
            pivot = m[j, j] - out[j, :j] @ out[j, :j]
            if not pivot > 0:
                out[j, j] = pivot
                return out
            out[j, j] = math.sqrt(pivot)
            out[j + 1:, j] = (m[j + 1:, j] - out[j + 1:, :j] @ out[j, :j]) / out[j, j]
        return out
    factor = _per_matrix_or(a, np.linalg.cholesky, partial)
    info = np.zeros(a.shape[:-2], np.int32)
    for index in np.ndindex(*a.shape[:-2]):
        diagonal = np.diagonal(factor[index])
        failed = np.flatnonzero(~(diagonal > 0))
        if failed.size:
            info[index] = failed[0] + 1
    return factor, info


def geqrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's ``geqrf`` of each matrix: R on and above the diagonal, the Householder vectors
    below it, and their scales ``tau`` (numpy's raw QR, transposed back)."""
    if a.ndim == 2:
        h, tau = np.linalg.qr(a, mode="raw")
        return np.ascontiguousarray(h.T), tau
    parts = [geqrf(a[index]) for index in np.ndindex(*a.shape[:-2])]
    k = min(a.shape[-2:])
    return (np.stack([h for h, _ in parts]).reshape(a.shape) if parts else a.copy(),
            np.stack([t for _, t in parts]).reshape(a.shape[:-2] + (k,)) if parts
            else np.zeros(a.shape[:-2] + (k,), a.dtype))


def lu_permutation(pivots: np.ndarray, rows: int, dtype: np.dtype) -> np.ndarray:
    """The permutation matrices ``P`` (``A = P L U``) of LAPACK's 1-based row swaps."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    count = math.prod(batch)
    order = np.broadcast_to(np.arange(rows), batch + (rows,)).copy()
    flat, swaps = order.reshape(count, rows), pivots.reshape(count, k) - 1
    every = np.arange(flat.shape[0])
    for j in range(k):
        target = swaps[:, j]
        flat[every, j], flat[every, target] = flat[every, target], flat[every, j].copy()
    eye = np.eye(rows, dtype=dtype)
    return np.swapaxes(eye[order], -1, -2)


def svd(a: np.ndarray, full_matrices: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``U, S, Vh`` of each matrix (LAPACK's ``gesdd``, as PyTorch's CPU kernel; the signs of
    singular vectors are LAPACK's choice, so they may differ from another LAPACK's)."""
    rows, cols = a.shape[-2:]
    if rows == 0 or cols == 0:  # (numpy refuses an empty matrix; its factors are identities)
        k = min(rows, cols)
        u_cols, v_rows = (rows, cols) if full_matrices else (k, k)
        batch = a.shape[:-2]
        return (np.broadcast_to(np.eye(rows, u_cols, dtype=a.dtype), batch + (rows, u_cols)).copy(),
                np.zeros(batch + (k,), a.dtype),
                np.broadcast_to(np.eye(v_rows, cols, dtype=a.dtype), batch + (v_rows, cols)).copy())
    return np.linalg.svd(a, full_matrices=full_matrices)


def svdvals(a: np.ndarray) -> np.ndarray:
    """The singular values of each matrix, in descending order."""
    if 0 in a.shape[-2:]:
        return np.zeros(a.shape[:-2] + (0,), a.dtype)
    return np.linalg.svd(a, compute_uv=False)


def eigh(a: np.ndarray, upper: bool) -> tuple[np.ndarray, np.ndarray]:
    """The eigenvalues (ascending) and eigenvectors of each symmetric matrix, from its lower
    (or ``upper``) triangle."""
    return np.linalg.eigh(a, UPLO="U" if upper else "L")


def qr(a: np.ndarray, complete: bool) -> tuple[np.ndarray, np.ndarray]:
    """``Q, R`` of each matrix by Householder reflections (LAPACK's ``geqrf``, as PyTorch's)."""
    return np.linalg.qr(a, mode="complete" if complete else "reduced")


def above_tolerance(magnitudes: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """Which singular values (or |eigenvalues|) of each matrix count: those above
    ``max(atol, rtol * the largest)`` (PyTorch's rule for pinv, matrix_rank and lstsq).

    >>> above_tolerance(np.array([4.0, 1.0, 1e-3]), 0.0, 0.01)
    array([ True,  True, False])
    """
    largest = magnitudes.max(-1, keepdims=True, initial=0.0)
    return magnitudes > np.maximum(atol, rtol * largest)


def pinv(a: np.ndarray, atol: float, rtol: float, hermitian: bool) -> np.ndarray:
    """The pseudoinverse of each matrix: singular values at most ``max(atol, rtol * the
    largest)`` count as zero (PyTorch's rule); from ``eigh`` when ``hermitian``."""
    if hermitian:
        values, vectors = np.linalg.eigh(a)
        magnitudes = np.abs(values)
        left, right = vectors * np.sign(values)[..., None, :], np.swapaxes(vectors, -1, -2)
    else:
        left, magnitudes, right = svd(a, False)
    kept = above_tolerance(magnitudes, atol, rtol)
    with quiet():
        inverse = np.where(kept, 1 / np.where(kept, magnitudes, 1), 0).astype(a.dtype)
    return np.matmul(np.swapaxes(right, -1, -2) * inverse[..., None, :],
                     np.swapaxes(left, -1, -2))


def matrix_exp(a: np.ndarray) -> np.ndarray:
    """``exp`` of each square matrix: scaling to a 1-norm of at most 1/2, Taylor's series to
    degree 18 (truncation error below 1e-22), then squaring back; nan for a matrix with an inf
    or nan.

    >>> matrix_exp(np.zeros((2, 2)))
    array([[1., 0.],
           [0., 1.]])
    """
    n = a.shape[-1]
    if a.size == 0:
        return a.copy()
    work = a.astype(np.float64)
    norms = np.abs(work).sum(-2).max(-1)
    finite = np.isfinite(norms)
    work = np.where(finite[..., None, None], work, 0.0)
    largest = float(norms[finite].max(initial=0.0))
    squarings = max(0, math.ceil(math.log2(largest / 0.5))) if largest > 0.5 else 0
    scaled = work / 2.0 ** squarings
    eye = np.eye(n)
    result = eye + scaled / 18
    for k in range(17, 0, -1):  # Horner: I + X (I + X/2 (I + ... X/18))
        result = eye + np.matmul(scaled, result) / k
    with quiet():
        for _ in range(squarings):
            result = np.matmul(result, result)
    return np.where(finite[..., None, None], result, np.nan).astype(a.dtype)


swapaxes = np.ndarray.swapaxes
"""``numpy.swapaxes`` as the array method itself (no frame of its own: a matmul's VJPs call it)."""


def transpose(a: np.ndarray, axes: tuple[int, ...] | None = None) -> np.ndarray:
    """``numpy.transpose`` through the array method."""
    return a.transpose(axes)


def squeeze(a: np.ndarray, axis: int | tuple[int, ...] | None = None) -> np.ndarray:
    """``numpy.squeeze`` through the array method."""
    return a.squeeze(axis)


def expand_dims(a: np.ndarray, axis: int | tuple[int, ...]) -> np.ndarray:
    """``numpy.expand_dims`` as a reshape."""
    axes = (axis,) if isinstance(axis, int) else axis
    ndim = a.ndim + len(axes)
    shape = list(a.shape)
    for d in sorted(x % ndim for x in axes):
        shape.insert(d, 1)
    return a.reshape(shape)


_SPREAD: dict[tuple, np.ndarray] = {}  # spread's read-only views, by shape, bytes and dtype
_SPREAD_MAX = 1024


def spread(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``g`` broadcast to ``shape``: a reduction's VJP. A single value (``g`` 0-d: a full
    reduction's) becomes a read-only view with zero strides, as PyTorch's ``expand``: nothing is
    written, and an in-place change of it is refused as in PyTorch; any other ``g``, a new
    array (``broadcast_to`` would give a view, but through numpy's slower Python wrapper).

    >>> view = spread(np.float32(2.0), (2, 3))
    >>> view.tolist(), view.strides, view.flags.writeable
    ([[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]], (0, 0), False)
    """
    if g.ndim == 0:  # (g: a 0-d array or a numpy scalar) a view of a copy of its bytes, which
        # are immutable: the view is read-only without a write to its flags (a microsecond),
        # and can be given again for the same value and shape (a training loop's loss: half
        # the time of making it)
        data = g.tobytes()
        key = (shape, data, g.dtype)
        view = _SPREAD.get(key)
        if view is None:
            if len(_SPREAD) >= _SPREAD_MAX:
                _SPREAD.clear()
            view = _SPREAD[key] = np.ndarray(shape, g.dtype, data, 0, (0,) * len(shape))
        return view
    out = np.empty(shape, dtype=g.dtype)
    out[...] = g
    return out


def astype(a: np.ndarray, dtype: str | None) -> np.ndarray:
    """A copy of ``a`` converted to the dtype named ``dtype`` (its own dtype when None)."""
    return a.astype(dtype if dtype is not None else a.dtype, copy=True)


def scalar_log(c: float) -> float:
    """Natural log of a Python scalar (nan for negatives, as numpy; exact when symbolic)."""
    return math.log(c) if c > 0 else (-math.inf if c == 0 else math.nan)


def eps(a: np.ndarray) -> float:
    """The machine epsilon of ``a``'s floating dtype (float64's for any other)."""
    kind = getattr(a, "dtype", None)
    return float(np.finfo(kind).eps) if kind is not None and kind.kind == "f" else _EPS64


_EPS64 = float(np.finfo(np.float64).eps)


def scalar_sqrt(c: float) -> float:
    """Square root of a Python scalar (a rule's constant: exact when symbolic)."""
    return math.sqrt(c)


def sign(a: np.ndarray) -> np.ndarray:
    """Elementwise sign, 0 at nan as in PyTorch (numpy's sign gives nan there); bools are
    their own sign."""
    if a.dtype.kind == "b":
        return a.copy()
    out = np.sign(a)
    return np.where(out != out, 0.0, out) if out.dtype.kind == "f" else out


_erf = np.frompyfunc(math.erf, 1, 1)


_erfc = np.frompyfunc(math.erfc, 1, 1)


def erfc(a: np.ndarray) -> np.ndarray:
    """``1 - erf(a)``, elementwise through ``math.erfc`` (accurate where erf is near 1)."""
    a = np.asarray(a)
    return np.asarray(_erfc(a), dtype=a.dtype if a.dtype.kind == "f" else np.float64)


def hypot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sqrt(a**2 + b**2)`` without overflow or underflow in the squares."""
    return np.hypot(a, b)


def erf(a: np.ndarray) -> np.ndarray:
    """The error function, elementwise through ``math.erf`` (numpy has none): correctly
    rounded to the last bit or so in float64, kept in ``a``'s floating dtype."""
    a = np.asarray(a)
    return np.asarray(_erf(a), dtype=a.dtype if a.dtype.kind == "f" else np.float64)


def sigmoid(a: np.ndarray) -> np.ndarray:
    """Logistic function, computed without overflow for large negative inputs."""
    out = np.exp(-np.logaddexp(0, -a))
    return out.astype(a.dtype, copy=False) if out.dtype != a.dtype else out


def softplus(a: np.ndarray) -> np.ndarray:
    """log(1 + exp(a)), computed without overflow for large inputs."""
    out = np.logaddexp(0, a)
    return out.astype(a.dtype, copy=False) if out.dtype != a.dtype else out


def relu(a: np.ndarray) -> np.ndarray:
    """max(a, 0), keeping the dtype; -0.0 stays -0.0 and nan nan, as PyTorch's (numpy's
    maximum gives its second operand on a tie)."""
    return np.maximum(0, a)


def _shifted(a: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    # minus the max over axis, so that exp cannot overflow (rows of -inf give nan, as PyTorch)
    return a - a.max(axis=axis, keepdims=True, initial=-np.inf)


def softmax(a: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    """exp(a) / sum(exp(a)) over ``axis``, stable for large inputs."""
    with np.errstate(invalid="ignore"):
        e = np.exp(_shifted(a, axis))
        return e / e.sum(axis=axis, keepdims=True)


def log_softmax(a: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    """a - log(sum(exp(a))) over ``axis``, stable for large inputs."""
    with np.errstate(invalid="ignore", divide="ignore"):
        s = _shifted(a, axis)
        return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def fmax(a: Any, b: Any) -> Any:
    """numpy's ``fmax`` (nan ignored), but ``a`` on a tie, as PyTorch's: of ``0.0`` and ``-0.0``
    numpy's loops return one or the other depending on the CPU's vector width.

    >>> np.signbit(fmax(np.array([0.0, -0.0]), np.array([-0.0, 0.0]))).tolist()
    [False, True]
    """
    return _first_on_ties(np.fmax(a, b), a, b)


def fmin(a: Any, b: Any) -> Any:
    """numpy's ``fmin`` (nan ignored), but ``a`` on a tie, as PyTorch's (see :func:`fmax`).

    >>> np.signbit(fmin(np.array([0.0, -0.0]), np.array([-0.0, 0.0]))).tolist()
    [False, True]
    """
    return _first_on_ties(np.fmin(a, b), a, b)


def _first_on_ties(out: Any, a: Any, b: Any) -> Any:
    out = np.asarray(out)
    ties = a == b
    if ties.any():
        np.copyto(out, a, where=ties)
    return out


def tanh_backward(g: np.ndarray, ans: np.ndarray) -> np.ndarray:
    """``g * (1 - ans * ans)``, tanh's VJP from its output, into one new array (the expression
    as written makes three, which costs a third of the time on large arrays).

    >>> tanh_backward(np.array([2.0, 1.0]), np.array([0.5, 0.0])).tolist()
    [1.5, 1.0]
    """
    out = ans * ans
    if out.__class__ is np.ndarray and out.dtype is g.dtype \
            and (one := _ONES.get(out.dtype)) is not None:  # (a Python 1 costs numpy ~0.4 us)
        _subtract(one, out, out)  # (out positional: numpy parses a keyword more slowly)
        try:
            return _multiply(g, out, out)
        except ValueError:  # (g of a larger shape than ans's: not into out)
            return g * out
    return g * (1 - out)


_ONES = {np.dtype(t): t(1) for t in (np.float16, np.float32, np.float64)}
_subtract, _multiply = np.subtract, np.multiply


def sum_to_shape(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a broadcast gradient back to ``shape``: the one rule for broadcasting's VJP."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead:  # (a fresh array: no reshape, a view, is needed after)
        g = _add_reduce(g, 0 if lead == 1 else tuple(range(lead)))
        if g.shape == shape:  # (a bias's gradient: g.sum(0))
            return g
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and g.shape[i] != 1)
    return _add_reduce(g, axes, keepdims=True) if axes else g


def index_backward(g: np.ndarray, shape: tuple[int, ...], key: object) -> np.ndarray:
    """Scatter ``g`` into zeros of ``shape`` at ``key``, adding where indices repeat."""
    out = np.zeros(shape, dtype=g.dtype)
    if is_basic_index(key):
        out[key] = g
    else:
        np.add.at(out, key, g)
    return out


def index_multiply(g: np.ndarray, shape: tuple[int, ...], key: object) -> np.ndarray:
    """Ones of ``shape`` multiplied by ``g`` at ``key``, multiplying where indices repeat."""
    out = np.ones(shape, dtype=g.dtype)
    np.multiply.at(out, key, g)
    return out


def index_put(a: np.ndarray, key: object, value: object) -> np.ndarray:
    """A copy of ``a`` with ``a[key] = value``."""
    out = np.array(a, copy=True)
    out[key] = value
    return out


def is_basic_index(key: object) -> bool:
    """Whether ``key`` holds only ints, slices, None and ``...`` (numpy returns a view)."""
    parts = key if isinstance(key, tuple) else (key,)
    return all(p is None or p is Ellipsis or isinstance(p, int | slice) for p in parts)


def is_mask_view_index(key: object) -> bool:
    """Whether ``key`` is a basic index with a 0-d bool mask in it, which PyTorch reads as a
    new dim of 1 or 0 (a view, so a write through it is recorded as ``CopySlices``)."""
    parts = key if isinstance(key, tuple) else (key,)

    def zero_d_mask(p: object) -> bool:
        return isinstance(p, np.ndarray) and p.ndim == 0 and p.dtype == bool

    return any(zero_d_mask(p) for p in parts) and all(
        zero_d_mask(p) or is_basic_index(p) for p in parts)


# -- products, logsumexp and scans (symgrad.ops.reduction)


def prod(a: np.ndarray, axis: tuple[int, ...] | None = None,
         keepdims: bool = False) -> np.ndarray:
    """``numpy.prod`` as the ufunc's reduce (see :func:`sum`; unsigned integers as int64)."""
    return np.multiply.reduce(a, axis, keepdims=keepdims,
                              dtype=np.int64 if a.dtype.kind == "u" else None)


def prod_backward(g: np.ndarray, ans: np.ndarray, a: np.ndarray,
                  axis: tuple[int, ...] | None) -> np.ndarray:
    """``g`` times the product of the other elements of ``a`` along ``axis`` (a 1-tuple, or all
    elements when None); ``g`` and ``ans`` keep the reduced dims. As PyTorch: ``ans / a``
    without zeros, exact products of the others (no division) where ``a`` has zeros."""
    if a.ndim == 0:
        return g
    if not (a == 0).any():
        return g * (ans / a)
    if axis is None:
        return g * _products_of_others(a.reshape(-1), 0).reshape(a.shape)
    return g * _products_of_others(a, axis[0])


def _products_of_others(a: np.ndarray, axis: int) -> np.ndarray:
    b = np.moveaxis(a, axis, -1)
    before = np.ones_like(b)  # products of the elements before each one
    np.cumprod(b[..., :-1], axis=-1, out=before[..., 1:])
    after = np.ones_like(b)  # and after it
    after[..., :-1] = np.cumprod(b[..., :0:-1], axis=-1)[..., ::-1]
    return np.moveaxis(before * after, -1, axis)


def logsumexp(a: np.ndarray, axis: tuple[int, ...], keepdims: bool = False) -> np.ndarray:
    """log(sum(exp(a))) over ``axis``, shifted by the max so that exp cannot overflow; a slice
    whose max is infinite is not shifted (all -inf gives -inf, a +inf gives inf, as PyTorch)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        top = a.max(axis=axis, keepdims=True, initial=-np.inf)
        top = np.where(np.isinf(top), 0, top)
        out = np.log(np.exp(a - top).sum(axis=axis, keepdims=True)) + top
    return out if keepdims else out.squeeze(axis)


def cumsum(a: np.ndarray, axis: int) -> np.ndarray:
    """``numpy.cumsum`` (bools and ints sum as int64); a 0-d ``a`` is copied."""
    wide = np.int64 if a.dtype.kind in "biu" else None
    return a.cumsum(axis, dtype=wide) if a.ndim else a.astype(wide or a.dtype)


def logcumsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    """``log(cumsum(exp(a)))`` along ``axis``, without overflow."""
    if not a.ndim:
        return a.copy()
    return np.logaddexp.accumulate(a, axis=axis)


def cumprod(a: np.ndarray, axis: int) -> np.ndarray:
    """``numpy.cumprod`` (bools and ints as int64); a 0-d ``a`` is copied."""
    wide = np.int64 if a.dtype.kind in "biu" else None
    return a.cumprod(axis, dtype=wide) if a.ndim else a.astype(wide or a.dtype)


def cumprod_backward(g: np.ndarray, ans: np.ndarray, a: np.ndarray, axis: int) -> np.ndarray:
    """The VJP of ``ans = cumprod(a, axis)``: element i gets the sum over j >= i of ``g[j]``
    times the product of ``a[:j+1]`` without ``a[i]``. As PyTorch: through a division when ``a``
    has no zeros; exactly otherwise (up to a slice's first zero by division, at it by products,
    nothing after it)."""
    if a.ndim == 0 or a.shape[axis] <= 1:
        return g
    with np.errstate(divide="ignore", invalid="ignore"):
        weighted = ans * g
        zero = a == 0
        if not zero.any():
            return _sum_from_end(weighted, axis) / a
        zeros_so_far = zero.cumsum(axis)
        before = zeros_so_far == 0
        out = np.where(before, _sum_from_end(np.where(before, weighted, 0), axis) / a, 0)
        first = zero & (zeros_so_far == 1)
        between = (zeros_so_far == 1) & ~first  # after the first zero, before the second
        # at the first zero z: prod(a[:z]) * sum over z <= j < next zero of g[j] * prod(a[z+1:j+1])
        tail = (np.where(between, a, 1).cumprod(axis) * np.where(zeros_so_far == 1, g, 0))
        tail = tail.sum(axis, keepdims=True)
        shifted = np.moveaxis(np.ones_like(ans), axis, -1)
        shifted[..., 1:] = np.moveaxis(ans, axis, -1)[..., :-1]  # prod(a[:i]) at i
        head = np.where(first, np.moveaxis(shifted, -1, axis), 0).sum(axis, keepdims=True)
        return np.where(first, head * tail, out)


def _sum_from_end(a: np.ndarray, axis: int) -> np.ndarray:
    return np.flip(np.flip(a, axis).cumsum(axis), axis)


# -- shape and linear-algebra ops (symgrad.ops.shape, symgrad.ops.linalg)


def tile(a: np.ndarray, reps: tuple[int, ...]) -> np.ndarray:
    """``numpy.tile``: a new array (also when every repeat is 1)."""
    return np.tile(a, reps)


def flip(a: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """``a`` reversed along ``axes``, as a new array (numpy's flip is a view)."""
    return np.flip(a, axes).copy()


def roll(a: np.ndarray, shifts: int | tuple[int, ...],
         axes: tuple[int, ...] | None) -> np.ndarray:
    """``numpy.roll``: shift cyclically along ``axes`` (the flattened array when None)."""
    return np.roll(a, shifts, axes)


def concatenate(arrays: list[np.ndarray], axis: int) -> np.ndarray:
    """``numpy.concatenate``."""
    return np.concatenate(arrays, axis=axis)


def stack(arrays: list[np.ndarray], axis: int) -> np.ndarray:
    """``numpy.stack``."""
    return np.stack(arrays, axis=axis)


def diagonal(a: np.ndarray, offset: int, axis1: int, axis2: int) -> np.ndarray:
    """A view of the diagonal of dims ``axis1``, ``axis2`` as the last dim; writable when ``a``
    is (numpy makes it read-only, PyTorch's diagonal can be written through)."""
    d = a.diagonal(offset, axis1, axis2)
    if a.flags.writeable:
        d.flags.writeable = True
    return d


def diagonal_backward(g: np.ndarray, shape: tuple[int, ...], offset: int, axis1: int,
                      axis2: int) -> np.ndarray:
    """Zeros of ``shape`` with ``g`` (its last dim) on the diagonal of ``axis1``, ``axis2``."""
    out = np.zeros(shape, dtype=g.dtype)
    diagonal(out, offset, axis1, axis2)[...] = g
    return out


def tril(a: np.ndarray, k: int) -> np.ndarray:
    """``numpy.tril``: zeros above diagonal ``k`` of the last two dims."""
    return np.tril(a, k)


def triu(a: np.ndarray, k: int) -> np.ndarray:
    """``numpy.triu``: zeros below diagonal ``k`` of the last two dims."""
    return np.triu(a, k)


def pad(a: np.ndarray, widths: tuple[tuple[int, int], ...], value: float) -> np.ndarray:
    """``a`` surrounded by ``value``: ``widths`` gives (before, after) counts per dim."""
    shape = tuple(n + before + after for n, (before, after) in zip(a.shape, widths, strict=True))
    out = np.full(shape, value, dtype=a.dtype)
    out[tuple(slice(before, before + n) for n, (before, _) in zip(a.shape, widths,
                                                                    strict=True))] = a
    return out


def masked_extreme(a: np.ndarray, mask: np.ndarray, axis: tuple[int, ...] | None,
                   keepdims: bool, largest: bool) -> np.ndarray:
    """The max (min) over the elements ``mask`` marks, per slice along ``axis``."""
    fill = -np.inf if largest else np.inf
    masked = np.where(mask, a, fill)
    return masked.max(axis=axis, keepdims=keepdims) if largest \
        else masked.min(axis=axis, keepdims=keepdims)



# -- sliding windows (symgrad.ops.conv: convolution, pooling, unfold/fold)


def windows(a: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...],
            dilation: tuple[int, ...]) -> np.ndarray:
    """The sliding windows of ``a`` (N, C, *spatial) as a read-only strided view of shape
    (N, C, *out, *kernel): element ``[n, c, *o, *k]`` is ``a[n, c, *(o * stride + k *
    dilation)]``. No copy: a convolution's single copy is the reshape that feeds its matmul."""
    d = len(kernel)
    spatial = a.shape[2:]
    out = tuple((n - dl * (k - 1) - 1) // s + 1
                for n, k, s, dl in zip(spatial, kernel, stride, dilation, strict=True))
    strides = a.strides[2:]
    return np.lib.stride_tricks.as_strided(
        a, a.shape[:2] + out + tuple(kernel),
        a.strides[:2] + tuple(st * s for st, s in zip(strides, stride, strict=True))
        + tuple(st * dl for st, dl in zip(strides, dilation, strict=True)),
        writeable=False) if d else a


def windows_backward(g: np.ndarray, shape: tuple[int, ...], kernel: tuple[int, ...],
                     stride: tuple[int, ...], dilation: tuple[int, ...]) -> np.ndarray:
    """The adjoint of :func:`windows`: ``g`` (N, C, *out, *kernel) added into zeros of
    ``shape`` (N, C, *spatial) at the windows' positions (col2im), one strided add per
    kernel offset."""
    return add_windows(np.zeros(shape, dtype=g.dtype), g, kernel, stride, dilation)


def add_windows(out: np.ndarray, g: np.ndarray, kernel: tuple[int, ...],
                stride: tuple[int, ...], dilation: tuple[int, ...]) -> np.ndarray:
    """``out`` (N, C, *spatial) with ``g`` (N, C, *out, *kernel) added at the windows'
    positions, in place; also used on object arrays by the symbolic namespace."""
    d = len(kernel)
    n_out = g.shape[2:2 + d]
    for offset in np.ndindex(*kernel):
        key = tuple(slice(k * dl, k * dl + s * (o - 1) + 1, s)
                    for k, dl, s, o in zip(offset, dilation, stride, n_out, strict=True))
        out[(slice(None), slice(None), *key)] += g[(Ellipsis, *offset)]
    return out


# ---------------------------------------------------------------- gamma-family special functions
# numpy has no kernels for these: math's lgamma elementwise, and series for the rest (recurrence
# up to a threshold, then the asymptotic expansion), accurate to a few ulps in float64.

def _lgamma1(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:  # a pole (0, -1, -2 ...): PyTorch gives inf
        return math.inf


_lgamma = np.frompyfunc(_lgamma1, 1, 1)


def _float(a: Any) -> np.ndarray:
    a = np.asarray(a)
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def lgamma(a: np.ndarray) -> np.ndarray:
    """``log|Γ(a)|`` elementwise; inf at the poles (0, -1, -2 ...), as PyTorch."""
    a = _float(a)
    return np.asarray(_lgamma(a), dtype=a.dtype)


# B_2k / 2k, for the asymptotic expansion of digamma
_DIGAMMA_TERMS = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
# B_2k / (2k)!, for the Hurwitz zeta function's Euler-Maclaurin tail
_ZETA_TERMS = (1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160,
               -691 / 1307674368000, 1 / 74724249600)


def digamma(a: np.ndarray) -> np.ndarray:
    """``Γ'(a)/Γ(a)`` elementwise: -inf at 0 and nan at the negative integers, as PyTorch."""
    a = _float(a)
    x0 = a.astype(np.float64)
    pole = (x0 <= 0) & (x0 == np.floor(x0))
    reflect = (x0 < 0.5) & ~pole & np.isfinite(x0)
    with np.errstate(all="ignore"):
        x = np.where(reflect, 1.0 - x0, x0)
        x = np.where(pole, 1.0, x)
        out = np.where(reflect, -np.pi / np.tan(np.pi * x0), 0.0)
        for _ in range(10):  # psi(x) = psi(x + 1) - 1/x, up to x >= 10
            small = x < 10
            if not small.any():
                break
            out = out - np.where(small, 1.0 / x, 0.0)
            x = np.where(small, x + 1.0, x)
        inv2 = 1.0 / (x * x)
        series = 0.0
        for c in reversed(_DIGAMMA_TERMS):
            series = (series + c) * inv2
        out = out + np.log(x) - 0.5 / x - series
    # (at ±0 PyTorch's is -inf at 0 and +inf at -0: copysign(inf, -x))
    out = np.where(pole, np.where(x0 == 0, np.copysign(np.inf, -x0), np.nan), out)
    out = np.where(x0 == -np.inf, np.nan, out)
    return np.asarray(out, dtype=a.dtype)


def _hurwitz_zeta(s: int, x: np.ndarray) -> np.ndarray:
    """``sum_k (x + k)^-s`` for an integer ``s >= 2`` (x not a pole)."""
    out = np.zeros_like(x)
    threshold = 10.0 + min(s, 200)
    # below -2**20 the recurrence would take millions of steps (and x + 1 stops changing)
    x = np.where(x < -(2.0 ** 20), np.nan, x)
    while True:
        small = x < threshold
        if not small.any():
            break
        out = out + np.where(small, x ** -s, 0.0)
        x = np.where(small, x + 1.0, x)
    tail = x ** (1.0 - s) / (s - 1) + 0.5 * x ** -s
    rising, power = float(s), x ** (-s - 1.0)
    for j, c in enumerate(_ZETA_TERMS):
        tail = tail + c * rising * power
        rising *= (s + 2 * j + 1) * (s + 2 * j + 2)
        power = power / (x * x)
    return out + tail


def polygamma(n: int, a: np.ndarray) -> np.ndarray:
    """The ``n``-th derivative of digamma elementwise (``n = 0``: digamma itself)."""
    if n == 0:
        return digamma(a)
    a = _float(a)
    x0 = a.astype(np.float64)
    pole = (x0 <= 0) & (x0 == np.floor(x0))
    finite = np.isfinite(x0) & ~pole
    with np.errstate(all="ignore"):
        zeta = _hurwitz_zeta(n + 1, np.where(finite, x0, 1.0))
        out = (-1.0) ** (n + 1) * math.exp(math.lgamma(n + 1) if n < 171 else math.inf) * zeta
    out = np.where(pole, (-1.0) ** (n + 1) * np.inf, out)
    out = np.where(x0 == np.inf, 0.0, np.where(x0 == -np.inf, np.nan, out))
    out = np.where(np.isnan(x0), np.nan, out)
    return np.asarray(out, dtype=a.dtype)


nextafter = np.nextafter


def frexp_mantissa(a: np.ndarray) -> np.ndarray:
    """``numpy.frexp``'s mantissa, in [0.5, 1) in magnitude (0, inf and nan as they are)."""
    return np.frexp(a)[0]


def frexp_exponent(a: np.ndarray) -> np.ndarray:
    """``numpy.frexp``'s exponent, as int32 (PyTorch's dtype)."""
    return np.frexp(a)[1].astype(np.int32)


def _log1pmx(t: np.ndarray) -> np.ndarray:
    """``log(1 + t) - t`` without cancellation for small t (its series below |t| = 0.5)."""
    small = np.abs(t) < 0.5
    out = np.log1p(t) - t
    ts = t[small]
    power, total = -ts * ts, np.zeros(ts.shape)
    for k in range(2, 80):  # -t²/2 + t³/3 - ...
        total += power / k
        power = -power * ts
    out[small] = total
    return out


def _log_gamma_front(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``log(x^a e^-x / Γ(a))`` for positive a and x. For a of 10 or more its two large terms
    cancel: written as ``a log1pmx((x - a) / a) + log(a) / 2 - log(2π) / 2 - S(a)``, S the
    Stirling series of lgamma, it keeps full relative precision."""
    out = a * np.log(x) - x - lgamma(a)
    big = a >= 10
    ab, xb = a[big], x[big]
    r = 1 / (ab * ab)
    stirling = (1 / 12 - r * (1 / 360 - r * (1 / 1260 - r * (1 / 1680 - r / 1188)))) / ab
    out[big] = ab * _log1pmx((xb - ab) / ab) + 0.5 * np.log(ab / (2 * math.pi)) - stirling
    return out


def _gamma_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``Σ x^n / (a (a+1) ... (a+n))`` (P's series without its front factor), each element
    summed until its terms no longer change it."""
    term = 1 / a
    total = term.copy()
    live = np.arange(a.size)  # (the elements still being summed)
    sa, sx, st, denominator = a, x, term, a.copy()
    for _ in range(100000):  # (x < a + 1 here: the terms fall geometrically)
        if not live.size:
            break
        denominator = denominator + 1
        st = st * sx / denominator
        total[live] += st
        going = np.abs(st) > np.abs(total[live]) * 1e-17
        live, sa, sx, st, denominator = (v[going] for v in (live, sa, sx, st, denominator))
    return total


def _gamma_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q's continued fraction ``1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...))``
    by Lentz's method, each element until its factor is 1 to within rounding."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full(a.shape, 1 / tiny)
    d = 1 / b
    h = d.copy()
    live = np.arange(a.size)
    for i in range(1, 100000):
        if not live.size:
            break
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        step = d * c
        h[live] *= step
        going = np.abs(step - 1) > 1e-15
        live, a, b, c, d = (v[going] for v in (live, a, b, c, d))
    return h


def _incomplete_gamma(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The regularized incomplete gamma functions ``P(a, x)`` and ``Q(a, x) = 1 - P(a, x)`` in
    float64, each computed directly where it is the small one: the power series of P below
    ``x = a + 1``, a continued fraction for Q above (evaluated by Lentz's method). PyTorch's
    conventions at the edges: nan for a negative or nan argument and for ``a = x = 0`` or both
    infinite; ``P(0, x) = 1``, ``P(a, 0) = 0``, ``P(inf, x) = 0``, ``P(a, inf) = 1``."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    lower, upper = np.full(a.shape, np.nan), np.full(a.shape, np.nan)
    inner = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    with np.errstate(all="ignore"):
        ones = ((a == 0) & (x > 0)) | ((x == np.inf) & np.isfinite(a) & (a >= 0))
        zeros = ((x == 0) & (a > 0)) | ((a == np.inf) & np.isfinite(x) & (x >= 0))
        lower[ones], upper[ones], lower[zeros], upper[zeros] = 1.0, 0.0, 0.0, 1.0
        av, xv = a[inner], x[inner]
        log_front = _log_gamma_front(av, xv)
        series = xv < av + 1
        p = np.empty(av.shape)
        q = np.empty(av.shape)
        p[series] = np.exp(log_front[series]) * _gamma_series(av[series], xv[series])
        q[series] = 1 - p[series]
        q[~series] = np.exp(log_front[~series]) * _gamma_fraction(av[~series], xv[~series])
        p[~series] = 1 - q[~series]
    lower[inner], upper[inner] = p, q
    return lower, upper


def igamma(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularized lower incomplete gamma function ``P(a, x)`` (PyTorch's ``igamma``,
    ``special.gammainc``), in the operands' float dtype.

    >>> igamma(np.array([0.5, 2.5]), np.array([0.1, 2.5])).round(6).tolist()
    [0.345279, 0.58412]
    """
    dtype = np.result_type(_float(a), _float(x))
    return _incomplete_gamma(a, x)[0].astype(dtype)


def igammac(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)`` (PyTorch's
    ``igammac``, ``special.gammaincc``), computed directly where it is small."""
    dtype = np.result_type(_float(a), _float(x))
    return _incomplete_gamma(a, x)[1].astype(dtype)


def igamma_grad_x(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dP(a, x)/dx = x^(a-1) e^-x / Γ(a)``, the density of the standard gamma distribution."""
    dtype = np.result_type(_float(a), _float(x))
    a64, x64 = np.asarray(a, np.float64), np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        out = np.exp((a64 - 1) * np.log(x64) - x64 - lgamma(a64))
    return out.astype(dtype)


def standard_gamma_grad(a: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """How a standard gamma draw ``x`` of shape ``a`` moves with ``a`` when its quantile is held
    (implicit reparameterization): ``dx/da = -(∂P/∂a) / (∂P/∂x)``, ∂P/∂a by a central difference
    of :func:`_incomplete_gamma` in float64."""
    a64, x64 = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(sample, np.float64))
    step = 1e-5 * np.maximum(a64, 1.0)
    with np.errstate(all="ignore"):
        slope = (_incomplete_gamma(a64 + step, x64)[0]
                 - _incomplete_gamma(np.maximum(a64 - step, 0.5 * a64), x64)[0]) \
            / (step + np.minimum(step, 0.5 * a64))
        out = -slope / igamma_grad_x(a64, x64)
    return np.where(np.isfinite(out), out, 0.0).astype(np.result_type(_float(sample)))


_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def log_ndtr(a: np.ndarray) -> np.ndarray:
    """The log of the standard normal CDF elementwise, accurate in both tails: ``log1p`` of
    minus the upper tail on the right, ``log(erfc(-x/√2) / 2)`` on the left, and beyond
    ``x = -37`` (where erfc underflows) the asymptotic series of Mills' ratio.

    >>> log_ndtr(np.array([0.0, -40.0])).round(4).tolist()
    [-0.6931, -804.6084]
    """
    a = _float(a)
    x = a.astype(np.float64)
    with np.errstate(all="ignore"):
        upper = 0.5 * np.asarray(_erfc(x / _SQRT2), dtype=np.float64)  # 1 - ndtr(x)
        lower = 0.5 * np.asarray(_erfc(-x / _SQRT2), dtype=np.float64)  # ndtr(x)
        out = np.where(x > -1, np.log1p(-upper), np.log(lower))
        z = 1 / (x * x)  # log ndtr(x) = -x²/2 - log(-x √(2π)) + log(1 - z + 3z² - 15z³ ...)
        series = 1 - z * (1 - 3 * z * (1 - 5 * z * (1 - 7 * z * (1 - 9 * z))))
        far = -x * x / 2 - np.log(-x) - _LOG_SQRT_2PI + np.log(series)
        out = np.where(x < -37, far, out)
    return np.asarray(out, dtype=a.dtype)


def ndtri(a: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal CDF elementwise: -inf at 0, inf at 1, nan outside
    [0, 1]. Solved on the smaller tail ``q = min(p, 1 - p)`` (exact in float64) by Newton's
    steps on ``log_ndtr(x) = log(q)`` from Abramowitz and Stegun's 26.2.23, so that tiny
    probabilities keep their precision.

    >>> ndtri(np.array([0.5, 0.975, 1e-300])).round(4).tolist()
    [0.0, 1.96, -37.0471]
    """
    a = _float(a)
    y = a.astype(np.float64)
    inside = (y > 0) & (y < 1)
    q = np.where(inside, np.minimum(y, 1 - y), 0.25)
    with np.errstate(all="ignore"):
        t = np.sqrt(-2 * np.log(q))
        x = -(t - (2.515517 + t * (0.802853 + t * 0.010328))
              / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
        target = np.log(q)
        for _ in range(8):
            value = log_ndtr(x)
            slope = np.exp(-x * x / 2 - value - _LOG_SQRT_2PI)  # d log_ndtr / dx
            step = (value - target) / slope
            x = x - step
            if np.all(np.abs(step) <= 1e-15 * np.maximum(np.abs(x), 1.0)):
                break
        x = np.where(y > 0.5, -x, x)
    out = np.where(inside, np.where(y == 0.5, 0.0, x),
                   np.where(y == 0, -np.inf, np.where(y == 1, np.inf, np.nan)))
    return np.asarray(out, dtype=a.dtype)


def entr(a: np.ndarray) -> np.ndarray:
    """``-x log(x)`` elementwise: 0 at 0, -inf for negative x, nan at nan (PyTorch's
    ``special.entr``).

    >>> entr(np.array([0.5, 0.0, -1.0])).round(4).tolist()
    [0.3466, 0.0, -inf]
    """
    a = _float(a)
    with np.errstate(all="ignore"):
        out = np.where(a > 0, -a * np.log(a), np.where(a == 0, 0.0, np.where(a < 0, -np.inf,
                                                                              a)))
    return np.asarray(out, dtype=a.dtype)


def erfinv(a: np.ndarray) -> np.ndarray:
    """The inverse of erf elementwise: ±inf at ±1, nan outside [-1, 1]."""
    a = _float(a)
    y = a.astype(np.float64)
    inside = np.abs(y) < 1
    t = np.where(inside, np.abs(y), 0.0)
    c = 1.0 - t  # exact for t >= 0.5, where Newton's steps solve erfc(x) = c instead of erf
    tail = t >= 0.5
    with np.errstate(all="ignore"):
        # a first guess from erf's series near 0 and erfc's asymptotic form near 1
        w = np.maximum(-np.log(np.where(tail, c, 0.5)), 0.5)
        guess_tail = np.sqrt(np.maximum(w - 0.5 * np.log(np.pi * w), 0.1))
        x = np.where(tail, guess_tail, t * math.sqrt(math.pi) / 2 * (1 + np.pi / 12 * t * t))
        for _ in range(60):
            slope = 2 / math.sqrt(math.pi) * np.exp(-x * x)
            err = np.where(tail, c - np.asarray(_erfc(x), dtype=np.float64),
                           np.asarray(_erf(x), dtype=np.float64) - t)
            step = err / slope
            x = x - step
            if np.all(np.abs(step) <= 1e-16 * np.maximum(np.abs(x), 1e-300)):
                break
    # (copysign: erfinv(-0.0) is -0.0, as PyTorch's)
    out = np.where(inside, np.copysign(x, y), np.where(np.abs(y) == 1, np.sign(y) * np.inf,
                                                         np.nan))
    return np.asarray(out, dtype=a.dtype)


# sympy's names of the special functions numpy lacks, for code generated from formulas
# (lambdify's namespace in symbolic.check, symbolic.compile's generated module)
SYMPY_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "erf": erf, "erfc": erfc, "erfinv": erfinv, "loggamma": lgamma, "polygamma": polygamma,
    "gamma": lambda a: np.exp(lgamma(a)),  # (the positive arguments the formulas here meet)
    "lowergamma": lambda a, x: igamma(a, x) * np.exp(lgamma(a)),
    "uppergamma": lambda a, x: igammac(a, x) * np.exp(lgamma(a)),
}
