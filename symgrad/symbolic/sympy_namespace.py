"""The sympy namespace: the ``xp`` names of the op rules on sympy expressions.

Values are numpy object arrays (:class:`Expressions`) whose elements are sympy expressions, so
the op rules of ``symgrad.ops`` -- written once against ``xp`` -- replay here unchanged: array
arithmetic, shape ops and indexing work on object arrays as they are; the functions below supply
what numpy cannot do on objects (``exp``, ``where`` as a Piecewise, sums as one ``Add``). Results
stay arrays, 0-d included.

Non-differentiable points are encoded so that ``sympy.diff`` gives symgrad's numeric choice there
(PyTorch's convention): ``relu`` is ``Piecewise((x, x > 0), (0, True))`` (derivative 0 at 0),
``abs`` is ``Abs`` (derivative ``sign``, 0 at 0).
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy

from symgrad.numeric import numpy_namespace as _numeric


class Expressions(np.ndarray):
    """An object array of sympy expressions whose comparisons are sympy relations.

    numpy's object comparisons call Python ``==``, which sympy answers structurally (``x == 0``
    is False); here ``a == b`` gives ``Eq(a, b)`` elementwise, so that the op rules' masks
    (``xp.where(b == 0, ...)``) become conditions of a Piecewise.
    """

    def __eq__(self, other: Any) -> Expressions:  # type: ignore[override]
        return _elementwise2(sympy.Eq, self, other)

    def __ne__(self, other: Any) -> Expressions:  # type: ignore[override]
        return _elementwise2(sympy.Ne, self, other)

    # numpy's object comparisons would call bool() on sympy's relations, which is undecidable
    # for symbols: build them elementwise instead
    def __lt__(self, other: Any) -> Expressions:
        return _elementwise2(sympy.Lt, self, other)

    def __le__(self, other: Any) -> Expressions:
        return _elementwise2(sympy.Le, self, other)

    def __gt__(self, other: Any) -> Expressions:
        return _elementwise2(sympy.Gt, self, other)

    def __ge__(self, other: Any) -> Expressions:
        return _elementwise2(sympy.Ge, self, other)

    def __and__(self, other: Any) -> Expressions:
        return _elementwise2(sympy.And, self, other)

    def __or__(self, other: Any) -> Expressions:
        return _elementwise2(sympy.Or, self, other)

    def __xor__(self, other: Any) -> Expressions:
        return _elementwise2(sympy.Xor, self, other)

    def __invert__(self) -> Expressions:
        return _map(sympy.Not, self)

    __hash__ = None  # type: ignore[assignment]


def number(value: Any) -> Any:
    """A Python or numpy number as an exact sympy number: floats become the rational of the
    shortest decimal that rounds to them (``0.1`` -> ``1/10``), which is what the user typed."""
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, bool | np.bool_):
        return sympy.true if value else sympy.false
    if isinstance(value, int | np.integer):
        return sympy.Integer(int(value))
    value = value.item() if isinstance(value, np.generic) and value.dtype == np.float64 \
        else value
    if isinstance(value, np.floating):  # float32: its own shortest decimal ('0.1', not 0.1000..)
        text = str(value)
        as_float = float(value)
    else:
        as_float = float(value)
        text = repr(as_float)
    if math.isnan(as_float):
        return sympy.nan
    if math.isinf(as_float):
        return sympy.oo if as_float > 0 else -sympy.oo
    return sympy.Rational(text)


def asarray(value: Any) -> Expressions:
    """``value`` (array, number or sympy expression) as an :class:`Expressions` array."""
    if isinstance(value, Expressions):
        return value
    if isinstance(value, np.ndarray) and value.dtype == object:
        return value.view(Expressions)
    if isinstance(value, np.ndarray):
        out = np.empty(value.shape, dtype=object)
        flat = out.reshape(-1)
        for i, v in enumerate(value.reshape(-1)):
            flat[i] = number(v)
        return out.view(Expressions)
    out = np.empty((), dtype=object)
    out[()] = number(value) if not isinstance(value, sympy.Basic) else value
    return out.view(Expressions)


def _map(fn: Callable[[Any], Any], a: Any) -> Expressions:
    a = asarray(a)
    out = np.empty(a.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(a.reshape(-1)):
        flat[i] = fn(v)
    return out.view(Expressions)


def _elementwise2(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> Expressions:
    a, b = np.broadcast_arrays(asarray(a), asarray(b))
    out = np.empty(a.shape, dtype=object)
    flat = out.reshape(-1)
    for i, (x, y) in enumerate(zip(a.reshape(-1), b.reshape(-1), strict=True)):
        flat[i] = fn(x, y)
    return out.view(Expressions)


# functions that sympy's evaluation leaves as they are on a real symbol (a leaf's, or the
# placeholder of a node's output): built directly there, skipping an evaluation that costs a
# millisecond per element (sin asks whether its argument is a multiple of I ...)
_PLAIN_ON_SYMBOLS = frozenset({sympy.exp, sympy.log, sympy.sin, sympy.cos, sympy.tanh,
                               sympy.tan, sympy.sinh, sympy.cosh, sympy.atan})


def _unary(fn: Callable[[Any], Any]) -> Callable[[Any], Expressions]:
    if fn in _PLAIN_ON_SYMBOLS:
        def direct(v: Any) -> Any:
            if isinstance(v, sympy.Symbol) and v.is_real:
                return fn(v, evaluate=False)
            return fn(v)
    else:
        direct = fn

    def apply(a: Any) -> Expressions:
        return _map(direct, a)

    apply.__name__ = getattr(fn, "__name__", "unary")
    apply.__doc__ = f"Elementwise ``{apply.__name__}`` of the expressions."
    return apply


exp = _unary(sympy.exp)
log = _unary(sympy.log)
sqrt = _unary(sympy.sqrt)
sin = _unary(sympy.sin)
cos = _unary(sympy.cos)
tanh = _unary(sympy.tanh)
sign = _unary(sympy.sign)
abs = _unary(sympy.Abs)  # noqa: A001 - numpy's name


def _relu(x: Any) -> Any:
    return sympy.Piecewise((x, x > 0), (0, True))


relu = _unary(_relu)
relu.__doc__ = "``Piecewise((x, x > 0), (0, True))``: derivative 0 at 0, as PyTorch."


def _sigmoid(x: Any) -> Any:
    return 1 / (1 + sympy.exp(-x))


sigmoid = _unary(_sigmoid)

# the pointwise family (symgrad.ops.elementwise)
tan = _unary(sympy.tan)
arcsin = _unary(sympy.asin)
arccos = _unary(sympy.acos)
arctan = _unary(sympy.atan)
sinh = _unary(sympy.sinh)
cosh = _unary(sympy.cosh)
erf = _unary(sympy.erf)
erfc = _unary(sympy.erfc)
lgamma = _unary(sympy.loggamma)
digamma = _unary(lambda x: sympy.polygamma(0, x))
erfinv = _unary(sympy.erfinv)
entr = _unary(lambda x: -x * sympy.log(x))
log_ndtr = _unary(lambda x: sympy.log(sympy.erfc(-x / sympy.sqrt(2)) / 2))
ndtri = _unary(lambda x: sympy.sqrt(2) * sympy.erfinv(2 * x - 1))
i0 = _unary(lambda x: sympy.besseli(0, x))
i1 = _unary(lambda x: sympy.besseli(1, x))
i0e = _unary(lambda x: sympy.exp(-sympy.Abs(x)) * sympy.besseli(0, x))
i1e = _unary(lambda x: sympy.exp(-sympy.Abs(x)) * sympy.besseli(1, x))
erfcx = _unary(lambda x: sympy.exp(x * x) * sympy.erfc(x))




def zeta(a: Any, q: Any) -> Expressions:
    """The Hurwitz zeta function ``Σ (k + q)^-a`` elementwise."""
    return _elementwise2(sympy.zeta, a, q)


def igamma(a: Any, x: Any) -> Expressions:
    """The regularized lower incomplete gamma function ``γ(a, x) / Γ(a)`` elementwise."""
    return _elementwise2(lambda s, t: sympy.lowergamma(s, t) / sympy.gamma(s), a, x)


def igammac(a: Any, x: Any) -> Expressions:
    """The regularized upper incomplete gamma function ``Γ(a, x) / Γ(a)`` elementwise."""
    return _elementwise2(lambda s, t: sympy.uppergamma(s, t) / sympy.gamma(s), a, x)


def igamma_grad_x(a: Any, x: Any) -> Expressions:
    """``x^(a-1) e^-x / Γ(a)`` elementwise (igamma's derivative in x)."""
    return _elementwise2(lambda s, t: t ** (s - 1) * sympy.exp(-t) / sympy.gamma(s), a, x)


def standard_gamma_grad(a: Any, sample: Any) -> Any:
    """A gamma draw's derivative in its shape has no formula (see ops.standard_gamma)."""
    raise NotImplementedError("a gamma draw's gradient in its shape is implicit, which sympy "
                              "cannot express")


def polygamma(n: int, a: Any) -> Any:
    """``polygamma(n, a)`` elementwise, exact."""
    return _unary(lambda x: sympy.polygamma(n, x))(a)
log1p = _unary(lambda x: sympy.log(1 + x))
expm1 = _unary(lambda x: sympy.exp(x) - 1)
log2 = _unary(lambda x: sympy.log(x) / sympy.log(2))
log10 = _unary(lambda x: sympy.log(x) / sympy.log(10))
exp2 = _unary(lambda x: sympy.Integer(2) ** x)
softplus = _unary(lambda x: sympy.log(1 + sympy.exp(x)))
arcsinh = _unary(sympy.asinh)
arccosh = _unary(sympy.acosh)
arctanh = _unary(sympy.atanh)
pi = sympy.pi


def hypot(a: Any, b: Any) -> Any:
    """``sqrt(a**2 + b**2)``, exact."""
    return sqrt(a * a + b * b)


def power(a: Any, b: Any) -> Any:
    """``a ** b``, exact (sympy's Pow of each element)."""
    return a ** b


def eps(a: Any) -> Any:
    """float64's machine epsilon, exactly (the symbolic side computes in float64)."""
    return sympy.Rational(1, 2**52)


def scalar_sqrt(c: Any) -> Any:
    """The exact square root of a number (or of a constant expression such as ``2 / pi``)."""
    return sympy.sqrt(number(c))


def arctan2(a: Any, b: Any) -> Expressions:
    return _elementwise2(sympy.atan2, a, b)


# maximum/minimum as Max/Min: sympy's derivative at a tie is Heaviside(0) = 1/2, PyTorch's
# split; fmax/fmin give a tie to their first input, as a Piecewise does
def maximum(a: Any, b: Any) -> Expressions:
    return _elementwise2(sympy.Max, a, b)


def minimum(a: Any, b: Any) -> Expressions:
    return _elementwise2(sympy.Min, a, b)


def fmax(a: Any, b: Any) -> Expressions:
    return _elementwise2(lambda x, y: sympy.Piecewise((x, x >= y), (y, True)), a, b)


def fmin(a: Any, b: Any) -> Expressions:
    return _elementwise2(lambda x, y: sympy.Piecewise((x, x <= y), (y, True)), a, b)


# Rounding: derivative 0 (sympy leaves floor's unevaluated). The floor/ceiling subclasses keep
# sympy's names, so printers and lambdify treat them as floor and ceiling.
def _zero_fdiff(self: Any, argindex: int = 1) -> Any:
    return sympy.Integer(0)


_Floor = type("floor", (sympy.floor,), {"fdiff": _zero_fdiff, "__module__": __name__})
_Ceiling = type("ceiling", (sympy.ceiling,), {"fdiff": _zero_fdiff, "__module__": __name__})


def _rint_eval(cls: Any, x: Any) -> Any:
    if x.is_Number and x.is_finite:
        return sympy.Rational(x).round()  # sympy rounds halves to even
    return None


def _trunc_eval(cls: Any, x: Any) -> Any:
    return sympy.Integer(int(x)) if x.is_Number and x.is_finite else None


# round half to even (PyTorch's round) and round toward zero: exact on rationals, derivative 0;
# named as numpy names them, which is what lambdify calls
_Rint = type("rint", (sympy.Function,), {"eval": classmethod(_rint_eval), "fdiff": _zero_fdiff,
                                          "__module__": __name__})
_Trunc = type("trunc", (sympy.Function,), {"eval": classmethod(_trunc_eval),
                                            "fdiff": _zero_fdiff, "__module__": __name__})

floor = _unary(_Floor)
ceil = _unary(_Ceiling)
rint = _unary(_Rint)
trunc = _unary(_Trunc)


def div_rounded(a: Any, b: Any, mode: str) -> Expressions:
    """``a / b`` rounded down (``mode="floor"``) or toward zero (``"trunc"``)."""
    q = asarray(a) / asarray(b)
    return floor(q) if mode == "floor" else trunc(q)


def copysign(a: Any, b: Any) -> Expressions:
    """``|a|`` with the sign of ``b`` (negative where ``b < 0``)."""
    return where(asarray(b) < 0, -abs(a), abs(a))


def remainder(a: Any, b: Any) -> Expressions:
    """``a - b * floor(a / b)``: the sign of ``b``."""
    a, b = asarray(a), asarray(b)
    return a - b * floor(a / b)


def fmod(a: Any, b: Any) -> Expressions:
    """``a - b * trunc(a / b)``: the sign of ``a``."""
    a, b = asarray(a), asarray(b)
    return a - b * trunc(a / b)


def nan_to_num(a: Any, nan: Any, posinf: Any, neginf: Any) -> Expressions:
    """``a`` itself: symbols stand for finite numbers."""
    return asarray(a)


def logaddexp(a: Any, b: Any) -> Expressions:
    return _elementwise2(lambda x, y: sympy.log(sympy.exp(x) + sympy.exp(y)), a, b)


def logaddexp2(a: Any, b: Any) -> Expressions:
    two = sympy.Integer(2)
    return _elementwise2(lambda x, y: sympy.log(two ** x + two ** y) / sympy.log(two), a, b)


def isfinite(a: Any) -> Expressions:
    """Elementwise finiteness: true for an expression sympy cannot prove infinite or nan."""
    return _map(lambda x: sympy.false if x.is_finite is False or x is sympy.nan else sympy.true,
                a)


def scalar_log(c: Any) -> Any:
    """The exact natural log of a number."""
    return sympy.log(number(c))


def _condition(c: Any) -> Any:
    if isinstance(c, bool | np.bool_):
        return sympy.true if c else sympy.false
    return c


def _select(c: Any, a: Any, b: Any) -> Any:
    c = _condition(c)
    if c is sympy.true:
        return a
    if c is sympy.false:
        return b
    return sympy.Piecewise((a, c), (b, True))


def where(condition: Any, a: Any, b: Any) -> Expressions:
    """Elementwise ``a if condition else b``: a Piecewise where the condition is symbolic."""
    c, x, y = np.broadcast_arrays(np.asarray(condition, dtype=object), asarray(a), asarray(b))
    out = np.empty(c.shape, dtype=object)
    flat = out.reshape(-1)
    for i, (ci, xi, yi) in enumerate(zip(c.reshape(-1), x.reshape(-1), y.reshape(-1),
                                         strict=True)):
        flat[i] = _select(ci, xi, yi)
    return out.view(Expressions)


def zeros_like(a: Any) -> Expressions:
    """Exact zeros shaped like ``a``."""
    return full_like(a, 0)


def full_like(a: Any, value: Any) -> Expressions:
    """An array shaped like ``a`` filled with the exact ``value``."""
    out = np.empty(np.shape(a), dtype=object)
    out.fill(number(value))
    return out.view(Expressions)


def _axes(axis: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    return tuple(int(d) % ndim for d in axes) if ndim else ()


def _reduce(a: Any, axis: int | Sequence[int] | None, keepdims: bool,
            combine: Callable[[np.ndarray], Any]) -> Expressions:
    """``combine(row)`` of each slice of ``a`` along ``axis`` (a 1-D object array per slice)."""
    a = asarray(a)
    axes = _axes(axis, a.ndim)
    kept = [d for d in range(a.ndim) if d not in axes]
    rows = np.transpose(a, kept + list(axes))
    rows = rows.reshape(tuple(a.shape[d] for d in kept) + (math.prod(a.shape[d] for d in axes),))
    out = np.empty(rows.shape[:-1], dtype=object)
    for index in np.ndindex(*rows.shape[:-1]):
        out[index] = combine(rows[index])
    if keepdims:
        out = out.reshape(tuple(1 if d in axes else n for d, n in enumerate(a.shape)))
    return out.view(Expressions)


def sum(a: Any, axis: int | Sequence[int] | None = None,  # noqa: A001 - numpy's name
        keepdims: bool = False) -> Expressions:
    """Sum over ``axis`` as one flat ``Add`` per result (not a chain of binary additions)."""
    return _reduce(a, axis, keepdims, lambda row: sympy.Add(*row))


def masked_extreme(a: Any, mask: Any, axis: int | Sequence[int] | None, keepdims: bool,
                   largest: bool) -> Expressions:
    """``Max`` (``Min``) over the elements of each slice that ``mask`` marks: the tied extremes
    of a max/min reduction, which equal it near the recorded point. sympy's derivative of a
    ``Max`` of two is 1/2 each, the even split symgrad (and PyTorch) use; with more ties the
    check reports the kink."""
    a = asarray(a)
    marked = np.broadcast_to(np.asarray(mask, dtype=bool), a.shape)
    pairs = np.empty(a.shape, dtype=object)
    for index in np.ndindex(*a.shape):
        pairs[index] = (a[index], bool(marked[index]))
    pick = sympy.Max if largest else sympy.Min
    return _reduce(pairs, axis, keepdims, lambda row: pick(*[v for v, m in row if m]))


def mean(a: Any, axis: int | Sequence[int] | None = None,
         keepdims: bool = False) -> Expressions:
    """Mean over ``axis``: the sum divided by the exact count."""
    a = asarray(a)
    count = math.prod(a.shape[d] for d in _axes(axis, a.ndim))
    return sum(a, axis, keepdims) / sympy.Integer(count)


def softmax(a: Any, axis: Sequence[int]) -> Expressions:
    """exp(a) / sum(exp(a)) over ``axis`` (the numeric side's max shift cancels exactly)."""
    e = exp(a)
    return asarray(e / sum(e, axis, keepdims=True))


def log_softmax(a: Any, axis: Sequence[int]) -> Expressions:
    """a - log(sum(exp(a))) over ``axis``."""
    return asarray(asarray(a) - log(sum(exp(a), axis, keepdims=True)))


# -- products, logsumexp and scans (symgrad.ops.reduction)
def prod(a: Any, axis: int | Sequence[int] | None = None,
         keepdims: bool = False) -> Expressions:
    """Product over ``axis`` as one flat ``Mul`` per result."""
    return _reduce(a, axis, keepdims, lambda row: sympy.Mul(*row))


def _along(a: Any, axis: int, fn: Callable[[list, int], Any]) -> Expressions:
    """An array shaped like ``a`` whose element i along ``axis`` is ``fn(slice, i)``."""
    moved = np.moveaxis(asarray(a), axis, -1)
    out = np.empty(moved.shape, dtype=object)
    for index in np.ndindex(*moved.shape[:-1]):
        row = list(moved[index])
        for i in range(len(row)):
            out[(*index, i)] = fn(row, i)
    return asarray(np.moveaxis(out, -1, axis))


def prod_backward(g: Any, ans: Any, a: Any, axis: Sequence[int] | None) -> Expressions:
    """``g`` times the exact product of the other elements along ``axis`` (all when None)."""
    a = asarray(a)
    if a.ndim == 0:
        return asarray(g)
    flat = a.reshape(-1) if axis is None else a
    others = _along(flat, 0 if axis is None else axis[0],
                    lambda row, i: sympy.Mul(*row[:i], *row[i + 1:]))
    return asarray(asarray(g) * others.reshape(a.shape))


def logsumexp(a: Any, axis: Sequence[int], keepdims: bool = False) -> Expressions:
    """log(sum(exp(a))) over ``axis`` (the numeric side's max shift cancels exactly)."""
    return log(sum(exp(a), axis, keepdims))


def cumsum(a: Any, axis: int) -> Expressions:
    """Running sums along ``axis``, each one flat ``Add``."""
    a = asarray(a)
    return _along(a, axis, lambda row, i: sympy.Add(*row[:i + 1])) if a.ndim else a.copy()


def logcumsumexp(a: Any, axis: int) -> Expressions:
    return log(cumsum(exp(a), axis))


def cumprod(a: Any, axis: int) -> Expressions:
    """Running products along ``axis``, each one flat ``Mul``."""
    a = asarray(a)
    return _along(a, axis, lambda row, i: sympy.Mul(*row[:i + 1])) if a.ndim else a.copy()


def cumprod_backward(g: Any, ans: Any, a: Any, axis: int) -> Expressions:
    """The VJP of cumprod, exactly: element i gets the sum over j >= i of ``g[j]`` times the
    product of ``a[:j+1]`` without ``a[i]`` (no division: zeros are fine)."""
    a = asarray(a)
    if a.ndim == 0:
        return asarray(g)
    xs = np.moveaxis(a, axis, -1)
    gs = np.moveaxis(asarray(np.broadcast_to(asarray(g), a.shape)), axis, -1)
    out = np.empty(xs.shape, dtype=object)
    for index in np.ndindex(*xs.shape[:-1]):
        x, w = list(xs[index]), list(gs[index])
        for i in range(len(x)):
            out[(*index, i)] = sympy.Add(*[w[j] * sympy.Mul(*x[:i], *x[i + 1:j + 1])
                                           for j in range(i, len(x))])
    return asarray(np.moveaxis(out, -1, axis))


def matmul(a: Any, b: Any) -> Expressions:
    """Matrix product with numpy's rules for 1-D and batched operands."""
    a, b = asarray(a), asarray(b)
    vector_a, vector_b = a.ndim == 1, b.ndim == 1
    if vector_a:
        a = a.reshape(1, -1)
    if vector_b:
        b = b.reshape(-1, 1)
    products = a[..., :, :, None] * b[..., None, :, :]
    out = sum(products, axis=-2)
    if vector_a:
        out = out[..., 0, :]
    if vector_b:
        out = out[..., 0]
    return asarray(out)


def _per_matrix(a: Any, fn: Callable[[sympy.Matrix], Any], trailing: tuple[int, ...]) -> Any:
    """``fn`` of each matrix in the last two dims of ``a``, stacked (``trailing``: the shape
    of one result)."""
    a = asarray(a)
    out = np.empty(a.shape[:-2] + trailing, dtype=object)
    for index in np.ndindex(*a.shape[:-2]):
        result = fn(sympy.Matrix(a[index].tolist()))
        out[index] = np.array(result.tolist(), dtype=object) if trailing else result
    return asarray(out)


def inv(a: Any) -> Expressions:
    """The inverse of each matrix (the adjugate over the determinant: sympy's LU would pick
    pivots by value)."""
    n = asarray(a).shape[-1]
    return _per_matrix(a, lambda m: m.adjugate() / m.det(), (n, n))


inv_unless_singular = inv


def det(a: Any) -> Expressions:
    """The determinant of each matrix (its Laplace expansion: a polynomial of the entries)."""
    return _per_matrix(a, lambda m: m.det(method="berkowitz"), ())


def cholesky(a: Any) -> Expressions:
    """The lower Cholesky factor of each matrix, from its lower triangle (as LAPACK's)."""
    n = asarray(a).shape[-1]
    return _per_matrix(a, lambda m: sympy.Matrix(n, n, lambda i, j: m[max(i, j), min(i, j)])
                       .cholesky(hermitian=False), (n, n))


def solve_triangular(t: Any, b: Any, lower: bool, unit: bool = False) -> Expressions:
    """``t⁻¹ b`` for the triangle of ``t`` (its diagonal taken as ones with ``unit``)."""
    part = tril(t, -1 if unit else 0) if lower else triu(t, 1 if unit else 0)
    if unit:
        part = part + asarray(np.eye(asarray(t).shape[-1], dtype=int))
    return solve(part, b)


def slogabsdet(a: Any) -> Expressions:
    """``log|det a|`` of each matrix."""
    return log(abs(det(a)))


inv_or_nan = inv


def full_rank_pinv(a: Any) -> Expressions:
    """The pseudoinverse of each matrix of full rank: ``(A^T A)^-1 A^T`` for a tall one,
    ``A^T (A A^T)^-1`` for a wide one (what ``pinv`` is wherever its tolerances cut nothing)."""
    rows, cols = asarray(a).shape[-2:]
    transposed = swapaxes(a, -1, -2)
    if rows >= cols:
        return matmul(inv(matmul(transposed, a)), transposed)
    return matmul(transposed, inv(matmul(a, transposed)))


def pinv(a: Any, atol: float, rtol: float, hermitian: bool) -> Expressions:
    """The pseudoinverse of each matrix, taken of full rank (see :func:`full_rank_pinv`)."""
    return full_rank_pinv(a)


def off_diagonal(k: int) -> np.ndarray:
    """The mask of the off-diagonal entries of a k x k matrix."""
    return ~np.eye(k, dtype=bool)


def _no_closed_form(name: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{name} has no closed form that sympy can differentiate in "
                                  "general: symgrad does not lower it (check its gradients with "
                                  "gradcheck, or a closed form of your own)")
    refuse.__name__ = name
    return refuse


inv_ex = inv


def solve_ex(a: Any, b: Any) -> Expressions:
    """:func:`solve` (a singular matrix has no expression anyway)."""
    return solve(a, b)


def cholesky_ex(a: Any) -> tuple[Expressions, None]:
    """The lower Cholesky factor (a factorization that succeeded: sympy's, as :func:`cholesky`)."""
    return cholesky(a), None


svd = _no_closed_form("linalg.svd")
geqrf = _no_closed_form("geqrf")
lu_factor = _no_closed_form("linalg.lu_factor")


def lu_permutation(pivots: np.ndarray, rows: int, dtype: Any) -> np.ndarray:
    """The (constant) permutation matrices of LAPACK's row swaps, as integers."""
    from symgrad.numeric import numpy_namespace

    return numpy_namespace.lu_permutation(pivots, rows, np.dtype(np.int64))
svdvals = _no_closed_form("linalg.svdvals")
eigh = _no_closed_form("linalg.eigh")
qr = _no_closed_form("linalg.qr")
matrix_exp = _no_closed_form("linalg.matrix_exp")


def solve(a: Any, b: Any) -> Expressions:
    """``inv(a) @ b`` per matrix, ``b`` read as a stack of matrices (numpy's reading)."""
    return matmul(inv(a), b)


def reshape(a: Any, shape: Sequence[int]) -> Expressions:
    return asarray(a).reshape(tuple(shape))


def transpose(a: Any, axes: Sequence[int] | None = None) -> Expressions:
    return asarray(a).transpose(axes)


def swapaxes(a: Any, axis1: int, axis2: int) -> Expressions:
    return asarray(a).swapaxes(axis1, axis2)


def squeeze(a: Any, axis: int | Sequence[int] | None = None) -> Expressions:
    return asarray(a).squeeze(axis)


def expand_dims(a: Any, axis: int | Sequence[int]) -> Expressions:
    return asarray(np.expand_dims(asarray(a), axis))


def broadcast_to(a: Any, shape: Sequence[int]) -> Expressions:
    return asarray(np.broadcast_to(asarray(a), tuple(shape)))


def spread(g: Any, shape: Sequence[int]) -> Expressions:
    """``g`` broadcast to ``shape`` as a new array (a reduction's VJP)."""
    return asarray(np.array(np.broadcast_to(asarray(g), tuple(shape))))


def astype(a: Any, dtype: str | None) -> Expressions:
    """A copy: symbolic values have no precision to change."""
    return asarray(np.array(asarray(a)))


def tanh_backward(g: Any, ans: Any) -> Expressions:
    """tanh's VJP from its output, ``g * (1 - ans**2)``."""
    return g * (1 - ans * ans)


def sum_to_shape(g: Any, shape: Sequence[int]) -> Expressions:
    """Sum a broadcast cotangent back to ``shape`` (the broadcasting rule)."""
    g = asarray(g)
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead:
        g = sum(g, axis=tuple(range(lead)))
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and g.shape[i] != 1)
    return sum(g, axis=axes, keepdims=True) if axes else g


def index_backward(g: Any, shape: Sequence[int], key: Any) -> Expressions:
    """Scatter ``g`` into zeros of ``shape`` at ``key``, adding where indices repeat."""
    out = np.array(zeros_like(np.empty(tuple(shape))))
    np.add.at(out, key, asarray(g))
    return asarray(out)


def index_multiply(g: Any, shape: Sequence[int], key: Any) -> Expressions:
    """Ones of ``shape`` multiplied by ``g`` at ``key``, multiplying where indices repeat."""
    out = np.array(full_like(np.empty(tuple(shape)), 1))
    np.multiply.at(out, key, asarray(g))
    return asarray(out)


def index_put(a: Any, key: Any, value: Any) -> Expressions:
    """A copy of ``a`` with ``a[key] = value``."""
    out = np.array(asarray(a))
    value = asarray(value)
    # a 0-d object array put at one position would be stored as an element itself
    out[key] = value[()] if value.ndim == 0 else value
    return asarray(out)


def is_basic_index(key: object) -> bool:
    """Whether ``key`` holds only ints, slices, None and ``...``."""
    parts = key if isinstance(key, tuple) else (key,)
    return builtins.all(p is None or p is Ellipsis or isinstance(p, int | slice) for p in parts)


# -- shape and linear-algebra ops (symgrad.ops.shape, symgrad.ops.linalg)
def tile(a: Any, reps: Sequence[int]) -> Expressions:
    return asarray(np.tile(asarray(a), tuple(reps)))


def flip(a: Any, axes: Sequence[int]) -> Expressions:
    return asarray(np.flip(asarray(a), tuple(axes)).copy())


def roll(a: Any, shifts: int | Sequence[int], axes: Sequence[int] | None) -> Expressions:
    return asarray(np.roll(asarray(a), shifts, axes))


def concatenate(arrays: Sequence[Any], axis: int) -> Expressions:
    return asarray(np.concatenate([asarray(x) for x in arrays], axis=axis))


def stack(arrays: Sequence[Any], axis: int) -> Expressions:
    return asarray(np.stack([asarray(x) for x in arrays], axis=axis))


def diagonal(a: Any, offset: int, axis1: int, axis2: int) -> Expressions:
    """The diagonal of dims ``axis1``, ``axis2`` as the last dim."""
    return asarray(np.diagonal(asarray(a), offset, axis1, axis2).copy())


def diagonal_backward(g: Any, shape: Sequence[int], offset: int, axis1: int,
                      axis2: int) -> Expressions:
    """Exact zeros of ``shape`` with ``g`` (its last dim) on the diagonal of ``axis1``,
    ``axis2``."""
    out = np.array(zeros_like(np.empty(tuple(shape))))
    view = out.diagonal(offset, axis1, axis2)
    view.flags.writeable = True  # numpy's diagonal views are read-only; out is ours
    view[...] = asarray(g)
    return asarray(out)


def _triangle(a: Any, keep: np.ndarray) -> Expressions:
    return asarray(np.where(keep, asarray(a), sympy.Integer(0)))


def tril(a: Any, k: int) -> Expressions:
    """Exact zeros above diagonal ``k`` of the last two dims."""
    a = asarray(a)
    return _triangle(a, np.tri(a.shape[-2], a.shape[-1], k, dtype=bool))


def triu(a: Any, k: int) -> Expressions:
    """Exact zeros below diagonal ``k`` of the last two dims."""
    a = asarray(a)
    return _triangle(a, ~np.tri(a.shape[-2], a.shape[-1], k - 1, dtype=bool))


def pad(a: Any, widths: Sequence[tuple[int, int]], value: Any) -> Expressions:
    """``a`` surrounded by the exact ``value``: ``widths`` gives (before, after) per dim."""
    a = asarray(a)
    shape = tuple(n + before + after for n, (before, after) in zip(a.shape, widths, strict=True))
    out = np.empty(shape, dtype=object)
    out.fill(number(value))
    out[tuple(slice(before, before + n) for n, (before, _) in zip(a.shape, widths,
                                                                    strict=True))] = a
    return asarray(out)


def windows(a: Any, kernel: Sequence[int], stride: Sequence[int],
            dilation: Sequence[int]) -> Expressions:
    """The sliding windows of ``a`` (N, C, *spatial) as (N, C, *out, *kernel), a copy."""
    return asarray(np.array(_numeric.windows(np.asarray(asarray(a)), tuple(kernel),
                                            tuple(stride), tuple(dilation))))


def windows_backward(g: Any, shape: Sequence[int], kernel: Sequence[int],
                     stride: Sequence[int], dilation: Sequence[int]) -> Expressions:
    """``g`` (N, C, *out, *kernel) added into exact zeros of ``shape`` at the windows."""
    out = np.asarray(zeros_like(np.empty(tuple(shape))))
    return asarray(_numeric.add_windows(out, np.asarray(asarray(g)), tuple(kernel),
                                       tuple(stride), tuple(dilation)))


def frexp_exponent(a: Any) -> Expressions:
    """frexp's exponent ``floor(log2 |a|) + 1`` elementwise (a step function: its derivative
    is 0)."""
    return floor(log2(abs(a))) + 1


def frexp_mantissa(a: Any) -> Expressions:
    """frexp's mantissa ``a / 2^e`` elementwise."""
    return a * exp2(-frexp_exponent(a))


def nextafter(a: Any, b: Any) -> Expressions:
    """``a`` itself, in the broadcast shape: the next float differs from it by a rounding step,
    which formulas do not see."""
    return asarray(a) + 0 * asarray(b)
