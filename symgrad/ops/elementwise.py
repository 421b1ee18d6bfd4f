"""Elementwise ops: arithmetic (with Python scalars on either side) and unary functions.

Binary ops broadcast in the forward; their VJPs return cotangents in the broadcast shape and the
engine sums them back to each input's shape (one rule for all). Conventions at non-differentiable
points follow PyTorch: relu'(0) = 0, |x|'(0) = 0, d(x**c)/dx = 0 when c == 0; the rest are
noted at each op (clamp passes the gradient at its bounds, hardtanh does not; maximum splits it
at ties; rounding ops have zero gradient).
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

from symgrad.numeric import numpy_namespace as _np_xp
from symgrad.ops.record import Op, Sample, Singularity, register

# ---------------------------------------------------------------- singular points
# Where an op's derivative is infinite, what ``symbolic.explain`` says about it and the usual fix


def _at_zero(j: int = 0):
    return lambda at, params, shapes: (at(j) == 0).any()


def _log_at_0(function: str, derivative: str, call: str) -> Singularity:
    return Singularity(
        "log at 0", _at_zero(), f"the derivative of {function}(x), {derivative}, is infinite at "
        "x = 0", "keep the argument away from 0, e.g. x.clamp_min(eps).log() or (x + eps).log(); "
        "write log(1 + x) as x.log1p() and log(softmax(x)) as x.log_softmax(dim).",
        safe=(call, "1.0"))


def _power_below_1_at_0(exponent: str) -> Singularity:
    def hits(at, params, shapes):
        p = params.get("exponent") if exponent == "param" else at(1)
        return p is not None and ((at(0) == 0) & (p < 1)).any()

    return Singularity(
        "pow at 0", hits, "the derivative of x**p, p*x**(p - 1), is infinite at x = 0 for p < 1",
        "a power below 1 has an infinite slope at 0: add an epsilon, (x + eps) ** p, or use "
        "t.linalg.vector_norm for p-norms.", safe=("safe ** p", "1.0"))


def _at_unit(function: str) -> Singularity:
    return Singularity(
        f"{function} at ±1", lambda at, params, shapes: ((at(0) == 1) | (at(0) == -1)).any(),
        f"the derivative of {function}(x), {'-' if function == 'acos' else ''}"
        "1/sqrt(1 - x**2), is infinite at x = ±1",
        f"clamp into the open interval: x.clamp(-1 + eps, 1 - eps).{function}().",
        safe=(f"safe.{function}()", "0.0"), value=1.0)


_DIVISION_BY_ZERO = Singularity(
    "division by zero", _at_zero(1), "the denominator b is 0: d(a/b)/da = 1/b and d(a/b)/db = "
    "-a/b**2 are infinite there (nan where a is 0 too)", "keep the denominator away from 0, e.g. "
    "x / y.clamp_min(eps); to normalize, x / x.norm().clamp_min(eps) (as torch's F.normalize "
    "does).", safe=("a / safe", "1.0"), shows=1, shown_as="denominator",
    nan_note=" The forward value is nan there too (0/0).")
_RECIPROCAL_AT_0 = Singularity(
    "reciprocal at 0", _at_zero(), "the derivative of 1/x, -1/x**2, is infinite at x = 0",
    "keep the argument away from 0, e.g. x.clamp_min(eps).reciprocal().",
    safe=("safe.reciprocal()", "1.0"))
_SQRT_AT_0 = Singularity(
    "sqrt at 0", _at_zero(), "the derivative of sqrt(x), 1/(2*sqrt(x)), is infinite at x = 0",
    "use t.linalg.vector_norm(x) (whose gradient at 0 is 0) instead of (x ** 2).sum().sqrt(); "
    "else add an epsilon inside: (x + eps).sqrt().", safe=("safe.sqrt()", "1.0"))
_RSQRT_AT_0 = Singularity(
    "rsqrt at 0", _at_zero(), "the derivative of x**(-1/2) is infinite at x = 0",
    "add an epsilon inside: (x + eps).rsqrt(), as normalization layers do.",
    safe=("safe.rsqrt()", "1.0"))
_LOG1P_AT_MINUS_1 = Singularity(
    "log1p at -1", lambda at, params, shapes: (at(0) == -1).any(), "the derivative of log1p(x), "
    "1/(1 + x), is infinite at x = -1", "keep the argument above -1, e.g. "
    "x.clamp_min(-1 + eps).log1p().", safe=("safe.log1p()", "0.0"), value=-1.0)



UNARY = (Sample(((3,),)), Sample(((2, 3),)), Sample(((),)))
BINARY = (
    Sample(((3,), (3,))),
    Sample(((2, 3), (3,))),
    Sample(((2, 1), (1, 3))),
    Sample(((), (2, 2))),
    Sample(((2, 3), None)),
    Sample((None, (3,))),
)
POSITIVE = dict(low=0.3, high=2.5)


def _alpha_forward(sign: int):
    def forward(xp, a, b, alpha=1):
        if alpha != 1:
            b = b * alpha
        return a + b if sign > 0 else a - b

    return forward


add = register(Op(
    "add", "AddBackward0",
    forward=_alpha_forward(+1),
    kernel=np.add,
    vjp=(lambda xp, g, ans, a, b, alpha=1: g,
         lambda xp, g, ans, a, b, alpha=1: g if alpha == 1 else g * alpha),
    inline_vjp=("g", "g"),
    samples=BINARY + (Sample(((3,), (3,)), {"alpha": 2.5}),),
))

sub = register(Op(
    "sub", "SubBackward0",
    forward=_alpha_forward(-1),
    kernel=np.subtract,
    vjp=(lambda xp, g, ans, a, b, alpha=1: g,
         lambda xp, g, ans, a, b, alpha=1: -g if alpha == 1 else g * -alpha),
    inline_vjp=("g", "-g"),
    samples=BINARY + (Sample(((3,), (3,)), {"alpha": 2.5}),),
))

# a tensor plus a number inside PyTorch's own kernels (add.Scalar: F.pairwise_distance's eps)
add_scalar = register(Op(
    "add_scalar", "AddBackward1",
    forward=lambda xp, a, other: a + other,
    vjp=(lambda xp, g, ans, a, other: g,),
    scalar_params=("other",),
    samples=(Sample(((3,),), {"other": 1e-6}), Sample(((2, 2),), {"other": -1.5})),
))

rsub = register(Op(
    "rsub", "RsubBackward1",
    forward=lambda xp, a, other: other - a,
    vjp=(lambda xp, g, ans, a, other: -g,),
    scalar_params=("other",),
    samples=(Sample(((3,),), {"other": 2.0}), Sample(((2, 2),), {"other": -1})),
))

mul = register(Op(
    "mul", "MulBackward0",
    forward=lambda xp, a, b: a * b,
    kernel=np.multiply,
    vjp=(lambda xp, g, ans, a, b: g * b,
         lambda xp, g, ans, a, b: g * a),
    inline_vjp=("g * b", "g * a"),
    saved={0: (1,), 1: (0,)},
    samples=BINARY,
))

div = register(Op(
    "div", "DivBackward0",
    singular=(_DIVISION_BY_ZERO,),
    forward=lambda xp, a, b: a / b,
    kernel=np.true_divide,
    vjp=(lambda xp, g, ans, a, b: g / b,
         # (a / b) / b, as PyTorch: b * b would overflow at half the exponent range, and
         # a / a then gives exactly 0
         lambda xp, g, ans, a, b: -g * (a / b / b)),
    saved={0: (1,), 1: (0, 1)},
    float_only=True,
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in BINARY),
))


def _pow_grad_base(xp, g, ans, a, b):
    # d(a**b)/da = b * a**(b-1), taken as 0 where b == 0 (PyTorch's convention, also at a == 0)
    return xp.where(b == 0, 0.0, g * b * a ** (b - 1))


def _pow_grad_exponent(xp, g, ans, a, b):
    # d(a**b)/db = a**b * log(a), taken as 0 where a == 0 and b >= 0 (PyTorch's convention)
    return xp.where((a == 0) & (b >= 0), 0.0, g * ans * xp.log(a))


pow = register(Op(
    "pow", "PowBackward1",
    singular=(_power_below_1_at_0("input"),),
    forward=lambda xp, a, b: xp.power(a, b),
    vjp=(_pow_grad_base, _pow_grad_exponent),
    saved=(0, 1),
    saves_output=True,
    samples=(Sample(((3,), (3,)), **POSITIVE), Sample(((2, 3), (3,)), **POSITIVE),
             Sample(((), (2,)), **POSITIVE)),
))


def _power(xp, a, exponent):
    """``a ** exponent``, with PyTorch's special case: to -0.5 it takes ``1 / sqrt(a)`` (nan at
    -inf and -inf at -0.0, where C's pow gives 0 and inf); numpy's own ``** 0.5`` is a sqrt."""
    if exponent == -0.5:
        return 1 / xp.sqrt(a)
    return a ** exponent


def _pow_scalar_grad(xp, g, ans, a, exponent):
    if exponent == 0:
        return xp.zeros_like(g)  # zeros, not g * 0: an infinite g must not turn into nan
    # written with a power even for squares: a ** 1 keeps higher derivatives connected to a
    return g * exponent * _power(xp, a, exponent - 1)


pow_scalar = register(Op(
    "pow_scalar", "PowBackward0",
    singular=(_power_below_1_at_0("param"),),
    forward=_power,
    vjp=(_pow_scalar_grad,),
    saved=(0,),
    scalar_params=("exponent",),
    samples=(Sample(((3,),), {"exponent": 2}), Sample(((2, 3),), {"exponent": 3}),
             Sample(((3,),), {"exponent": 0.5}, **POSITIVE),
             Sample(((3,),), {"exponent": -1.5}, **POSITIVE),
             Sample(((3,),), {"exponent": 0})),
))


def _rpow_grad(xp, g, ans, a, base):
    if base == 0:
        return xp.where(a >= 0, 0.0, g * ans * float("-inf"))
    return g * ans * xp.scalar_log(base)


rpow_scalar = register(Op(
    "rpow_scalar", "PowBackward2",
    forward=lambda xp, a, base: xp.power(base, a),
    vjp=(_rpow_grad,),
    saves_output=True,
    scalar_params=("base",),
    samples=(Sample(((3,),), {"base": 2.0}), Sample(((2, 2),), {"base": 0.5})),
))

neg = register(Op(
    "neg", "NegBackward0",
    forward=lambda xp, a: -a,
    vjp=(lambda xp, g, ans, a: -g,),
    samples=UNARY,
))

reciprocal = register(Op(
    "reciprocal", "ReciprocalBackward0",
    singular=(_RECIPROCAL_AT_0,),
    forward=lambda xp, a: 1.0 / a,
    kernel=functools.partial(operator.truediv, 1.0),
    vjp=(lambda xp, g, ans, a: -g * (ans * ans),),  # (PyTorch's order: 0 * inf is nan)
    saves_output=True,
    float_only=True,
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in UNARY),
))

exp = register(Op(
    "exp", "ExpBackward0",
    forward=lambda xp, a: xp.exp(a),
    kernel=_np_xp.exp,
    vjp=(lambda xp, g, ans, a: g * ans,),
    inline_vjp=("g * ans",),
    saves_output=True,
    float_only=True,
    samples=UNARY,
))

log = register(Op(
    "log", "LogBackward0",
    singular=(_log_at_0("log", "1/x", "safe.log()"),),
    forward=lambda xp, a: xp.log(a),
    kernel=_np_xp.log,
    vjp=(lambda xp, g, ans, a: g / a,),
    saved=(0,),
    float_only=True,
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in UNARY),
))

sqrt = register(Op(
    "sqrt", "SqrtBackward0",
    singular=(_SQRT_AT_0,),
    forward=lambda xp, a: xp.sqrt(a),
    kernel=_np_xp.sqrt,
    vjp=(lambda xp, g, ans, a: g / (2 * ans),),
    saves_output=True,
    float_only=True,
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in UNARY),
))

sin = register(Op(
    "sin", "SinBackward0",
    forward=lambda xp, a: xp.sin(a),
    kernel=_np_xp.sin,
    vjp=(lambda xp, g, ans, a: g * xp.cos(a),),
    saved=(0,),
    float_only=True,
    samples=UNARY,
))

cos = register(Op(
    "cos", "CosBackward0",
    forward=lambda xp, a: xp.cos(a),
    kernel=_np_xp.cos,
    vjp=(lambda xp, g, ans, a: -g * xp.sin(a),),
    saved=(0,),
    float_only=True,
    samples=UNARY,
))

tanh = register(Op(
    "tanh", "TanhBackward0",
    forward=lambda xp, a: xp.tanh(a),
    kernel=_np_xp.tanh,
    vjp=(lambda xp, g, ans, a: xp.tanh_backward(g, ans),),
    inline_vjp=("tanh_backward(g, ans)",),
    saves_output=True,
    float_only=True,
    samples=UNARY,
))

sigmoid = register(Op(
    "sigmoid", "SigmoidBackward0",
    forward=lambda xp, a: xp.sigmoid(a),
    kernel=_np_xp.sigmoid,
    vjp=(lambda xp, g, ans, a: g * (1 - ans) * ans,),  # (PyTorch's order of the products)
    saves_output=True,
    float_only=True,
    samples=UNARY,
))

relu = register(Op(
    "relu", "ReluBackward0",
    convention="0 at 0 (the left derivative)",
    forward=lambda xp, a: xp.relu(a),
    kernel=_np_xp.relu,
    # select, as PyTorch: the gradient passes at nan too (nan <= 0 is false)
    vjp=(lambda xp, g, ans, a: xp.where(ans <= 0, 0.0, g),),
    saves_output=True,
    samples=tuple(Sample(s.shapes, kinks=(0.0,)) for s in UNARY),
))

abs = register(Op(
    "abs", "AbsBackward0",
    convention="0 at 0 (the gradient is sign(x))",
    forward=lambda xp, a: xp.abs(a),
    kernel=_np_xp.abs,
    vjp=(lambda xp, g, ans, a: g * xp.sign(a),),
    saved=(0,),
    samples=tuple(Sample(s.shapes, kinks=(0.0,)) for s in UNARY),
))

sign = register(Op(
    "sign", "SignBackward0",
    convention="0 everywhere, 0 (a jump) included",
    forward=lambda xp, a: xp.sign(a),
    kernel=_np_xp.sign,
    vjp=(lambda xp, g, ans, a: xp.zeros_like(g),),  # piecewise constant: zero gradient
    samples=tuple(Sample(s.shapes, kinks=(0.0,)) for s in UNARY),
))

# angle of a real number: pi where it is negative, 0 elsewhere, nan kept; piecewise constant,
# so its gradient is 0, as PyTorch's
angle = register(Op(
    "angle", "AngleBackward0",
    convention="0 everywhere, 0 (a jump) included",
    forward=lambda xp, a: xp.where(a < 0, math.pi, xp.where(a == a, 0.0, a)),
    vjp=(lambda xp, g, ans, a: xp.zeros_like(g),),
    float_only=True,
    samples=tuple(Sample(s.shapes, kinks=(0.0,)) for s in UNARY),
))

clone = register(Op(
    "clone", "CloneBackward0",
    forward=lambda xp, a: a.copy(),
    vjp=(lambda xp, g, ans, a: g,),
    samples=UNARY,
))

to_dtype = register(Op(
    "to_dtype", "ToCopyBackward0",
    forward=lambda xp, a, dtype: xp.astype(a, dtype),
    vjp=(lambda xp, g, ans, a, dtype: g,),
    promotes=False,
    samples=(Sample(((3,),), {"dtype": "float64"}), Sample(((2, 2),), {"dtype": "float64"})),
))

# In-place-only ops: their node names are PyTorch's for zero_, fill_ and copy_.
zero = register(Op(
    "zero", "ZeroBackward0",
    forward=lambda xp, a: xp.zeros_like(a),
    vjp=(lambda xp, g, ans, a: xp.zeros_like(g),),
    samples=UNARY,
))

fill = register(Op(
    "fill", "FillBackward2",
    forward=lambda xp, a, value: xp.full_like(a, value),
    vjp=(lambda xp, g, ans, a, value: xp.zeros_like(g),),
    samples=(Sample(((3,),), {"value": 1.5}),),
))

copy = register(Op(
    "copy", "CopyBackwards",
    forward=lambda xp, a, src: xp.astype(xp.broadcast_to(src, a.shape), None),
    vjp=(lambda xp, g, ans, a, src: xp.zeros_like(g),
         lambda xp, g, ans, a, src: g),
    samples=(Sample(((3,), (3,))), Sample(((2, 3), (3,)))),
))

where = register(Op(
    "where", "WhereBackward0",
    forward=lambda xp, condition, a, b: xp.where(condition, a, b),
    vjp=(None,
         lambda xp, g, ans, condition, a, b: xp.where(condition, g, 0.0),
         lambda xp, g, ans, condition, a, b: xp.where(condition, 0.0, g)),
    saved=(0,),
    samples=(Sample(((3,), (3,), (3,)), bool_inputs=(0,)),
             Sample(((2, 3), (3,), ()), bool_inputs=(0,)),
             Sample(((2, 3), (2, 3), None), bool_inputs=(0,))),
))


# ---------------------------------------------------------------- more unary functions
TENSOR_BINARY = tuple(s for s in BINARY if None not in s.shapes)  # ops taking two tensors


def _unary_samples(**kwargs) -> tuple[Sample, ...]:
    return tuple(Sample(s.shapes, **kwargs) for s in UNARY)


tan = register(Op(
    "tan", "TanBackward0",
    forward=lambda xp, a: xp.tan(a),
    vjp=(lambda xp, g, ans, a: g * (1 + ans * ans),),
    saves_output=True,
    float_only=True,
    samples=_unary_samples(low=-1.2, high=1.2),
))

asin = register(Op(
    "asin", "AsinBackward0",
    singular=(_at_unit("asin"),),
    forward=lambda xp, a: xp.arcsin(a),
    vjp=(lambda xp, g, ans, a: g / xp.sqrt(1 - a * a),),  # inf at +-1, nan outside
    saved=(0,),
    float_only=True,
    samples=_unary_samples(low=-0.9, high=0.9),
))

acos = register(Op(
    "acos", "AcosBackward0",
    singular=(_at_unit("acos"),),
    forward=lambda xp, a: xp.arccos(a),
    vjp=(lambda xp, g, ans, a: -g / xp.sqrt(1 - a * a),),
    saved=(0,),
    float_only=True,
    samples=_unary_samples(low=-0.9, high=0.9),
))

atan = register(Op(
    "atan", "AtanBackward0",
    forward=lambda xp, a: xp.arctan(a),
    vjp=(lambda xp, g, ans, a: g / (a * a + 1),),
    saved=(0,),
    float_only=True,
    samples=_unary_samples(low=-3.0, high=3.0),
))

sinh = register(Op(
    "sinh", "SinhBackward0",
    forward=lambda xp, a: xp.sinh(a),
    vjp=(lambda xp, g, ans, a: g * xp.cosh(a),),
    saved=(0,),
    float_only=True,
    samples=UNARY,
))

cosh = register(Op(
    "cosh", "CoshBackward0",
    forward=lambda xp, a: xp.cosh(a),
    vjp=(lambda xp, g, ans, a: g * xp.sinh(a),),
    saved=(0,),
    float_only=True,
    samples=UNARY,
))

log1p = register(Op(
    "log1p", "Log1PBackward0",
    singular=(_LOG1P_AT_MINUS_1,),
    forward=lambda xp, a: xp.log1p(a),
    vjp=(lambda xp, g, ans, a: g / (a + 1),),
    saved=(0,),
    float_only=True,
    samples=_unary_samples(low=-0.7, high=2.5),
))

expm1 = register(Op(
    "expm1", "Expm1Backward0",
    forward=lambda xp, a: xp.expm1(a),
    vjp=(lambda xp, g, ans, a: g * (ans + 1),),
    saves_output=True,
    float_only=True,
    samples=UNARY,
))

log2 = register(Op(
    "log2", "Log2Backward0",
    singular=(_log_at_0("log2", "1/(x*log(2))", "safe.log2()"),),
    forward=lambda xp, a: xp.log2(a),
    vjp=(lambda xp, g, ans, a: g / (a * xp.scalar_log(2)),),
    saved=(0,),
    float_only=True,
    samples=_unary_samples(**POSITIVE),
))

log10 = register(Op(
    "log10", "Log10Backward0",
    singular=(_log_at_0("log10", "1/(x*log(10))", "safe.log10()"),),
    forward=lambda xp, a: xp.log10(a),
    vjp=(lambda xp, g, ans, a: g / (a * xp.scalar_log(10)),),
    saved=(0,),
    float_only=True,
    samples=_unary_samples(**POSITIVE),
))

exp2 = register(Op(
    "exp2", "Exp2Backward0",
    forward=lambda xp, a: xp.exp2(a),
    vjp=(lambda xp, g, ans, a: g * ans * xp.scalar_log(2),),
    saves_output=True,
    float_only=True,
    samples=UNARY,
))

erf = register(Op(
    "erf", "ErfBackward0",
    forward=lambda xp, a: xp.erf(a),
    vjp=(lambda xp, g, ans, a: g * (2 / xp.scalar_sqrt(xp.pi)) * xp.exp(-(a * a)),),
    saved=(0,),
    float_only=True,
    samples=UNARY,
))

rsqrt = register(Op(
    "rsqrt", "RsqrtBackward0",
    singular=(_RSQRT_AT_0,),
    forward=lambda xp, a: 1 / xp.sqrt(a),
    vjp=(lambda xp, g, ans, a: g * (-0.5 * ans * ans * ans),),
    saves_output=True,
    float_only=True,
    samples=_unary_samples(**POSITIVE),
))


def _atan2_scale(xp, a, b):
    # 1 / (a**2 + b**2), taken as 0 where that is infinite (a == b == 0), as PyTorch does
    recip = 1 / (a * a + b * b)
    return xp.where(recip == float("inf"), 0.0, recip)


atan2 = register(Op(
    "atan2", "Atan2Backward0",
    convention="0 for both inputs at the origin, where both partials are 0/0",
    forward=lambda xp, a, b: xp.arctan2(a, b),
    vjp=(lambda xp, g, ans, a, b: g * b * _atan2_scale(xp, a, b),
         lambda xp, g, ans, a, b: g * -a * _atan2_scale(xp, a, b)),
    saved=(0, 1),
    float_only=True,
    # kinks: keep a away from 0, where atan2 jumps by 2 pi for b < 0
    samples=tuple(Sample(s.shapes, kinks=(0.0,)) for s in TENSOR_BINARY),
))


# ---------------------------------------------------------------- maximum, minimum, clamp
# maximum/minimum split the gradient half and half at ties and pass it to both inputs at nan;
# fmax/fmin give it to the input they return (the first one at ties).
maximum = register(Op(
    "maximum", "MaximumBackward0",
    forward=lambda xp, a, b: xp.maximum(a, b),
    vjp=(lambda xp, g, ans, a, b: xp.where(a == b, g / 2, xp.where(a < b, 0.0, g)),
         lambda xp, g, ans, a, b: xp.where(a == b, g / 2, xp.where(a > b, 0.0, g))),
    saved=(0, 1),
    samples=TENSOR_BINARY,
))

minimum = register(Op(
    "minimum", "MinimumBackward0",
    forward=lambda xp, a, b: xp.minimum(a, b),
    vjp=(lambda xp, g, ans, a, b: xp.where(a == b, g / 2, xp.where(a > b, 0.0, g)),
         lambda xp, g, ans, a, b: xp.where(a == b, g / 2, xp.where(a < b, 0.0, g))),
    saved=(0, 1),
    samples=TENSOR_BINARY,
))

fmax = register(Op(
    "fmax", "FmaxBackward0",
    forward=lambda xp, a, b: xp.fmax(a, b),  # (a on a tie of ±0, as PyTorch's)
    vjp=(lambda xp, g, ans, a, b: xp.where((a >= b) | (b != b), g, 0.0),
         lambda xp, g, ans, a, b: xp.where((a >= b) | (b != b), 0.0, g)),
    saved=(0, 1),
    samples=TENSOR_BINARY,
))

fmin = register(Op(
    "fmin", "FminBackward0",
    forward=lambda xp, a, b: xp.fmin(a, b),
    vjp=(lambda xp, g, ans, a, b: xp.where((a <= b) | (b != b), g, 0.0),
         lambda xp, g, ans, a, b: xp.where((a <= b) | (b != b), 0.0, g)),
    saved=(0, 1),
    samples=TENSOR_BINARY,
))


# clamp with Python-number bounds: the gradient passes where min <= x <= max, bounds included
# (nan, or min > max: nowhere)
def _clamp_forward(xp, a, min=None, max=None):  # noqa: A002 - PyTorch's names
    if min is not None:
        a = xp.maximum(a, min)
    if max is not None:
        a = xp.minimum(a, max)
    return a


def _clamp_lower(xp, a, min=None, max=None):  # noqa: A002
    """clamp as nested wheres, so that sympy's derivative passes the gradient at the bounds as
    the VJP does (a Max/Min would give 1/2 there). Where min > max the result is max."""
    if min is not None:
        a = xp.where(a < min, min, a)
    if max is not None:
        a = xp.where((a > max) | (max < min) if min is not None else a > max, max, a)
    return a


def _clamp_grad(xp, g, ans, a, min=None, max=None):  # noqa: A002
    if max is None:
        inside = a >= min
    elif min is None:
        inside = a <= max
    else:
        inside = (a >= min) & (a <= max)
    return xp.where(inside, g, 0.0)


clamp = register(Op(
    "clamp", "ClampBackward1",
    convention="1 at a bound: the input passes through where it equals min or max",
    forward=_clamp_forward,
    lower=_clamp_lower,
    vjp=(_clamp_grad,),
    saved=(0,),
    scalar_params=("min", "max"),
    samples=(Sample(((3,),), {"min": -0.5, "max": 0.5}, kinks=(-0.5, 0.5)),
             Sample(((2, 3),), {"min": -0.5}, kinks=(-0.5,)),
             Sample(((2, 3),), {"max": 0.5}, kinks=(0.5,)),
             Sample(((),), {"min": -1, "max": 1}, kinks=(-1.0, 1.0))),
))

clamp_min = register(Op(
    "clamp_min", "ClampMinBackward0",
    convention="1 at the bound: the input passes through where it equals min",
    forward=lambda xp, a, min: xp.maximum(a, min),
    lower=lambda xp, a, min: _clamp_lower(xp, a, min=min),
    vjp=(lambda xp, g, ans, a, min: xp.where(a >= min, g, 0.0),),
    saved=(0,),
    scalar_params=("min",),
    samples=(Sample(((2, 3),), {"min": 0.5}, kinks=(0.5,)),
             Sample(((),), {"min": -1}, kinks=(-1.0,))),
))

clamp_max = register(Op(
    "clamp_max", "ClampMaxBackward0",
    convention="1 at the bound: the input passes through where it equals max",
    forward=lambda xp, a, max: xp.minimum(a, max),
    lower=lambda xp, a, max: _clamp_lower(xp, a, max=max),
    vjp=(lambda xp, g, ans, a, max: xp.where(a <= max, g, 0.0),),
    saved=(0,),
    scalar_params=("max",),
    samples=(Sample(((2, 3),), {"max": 0.5}, kinks=(0.5,)),
             Sample(((),), {"max": 1}, kinks=(1.0,))),
))


# clamp with tensor bounds (either may be a Python number when the other is a tensor). Bounds
# receive the gradient where they are the result: min where x < min < max, max where x > max
# or max < min (PyTorch's rule; where min > max the result is max).
def _clamp_input_grad(xp, g, ans, a, lo, hi):
    return xp.where((a >= lo) & (a <= hi), g, 0.0)


def _clamp_lower_grad(xp, g, ans, a, lo, hi):
    return xp.where((a < lo) & (lo < hi), g, 0.0)


def _clamp_upper_grad(xp, g, ans, a, lo, hi):
    return xp.where((a > hi) | (hi < lo), g, 0.0)


clamp_tensor = register(Op(
    "clamp_tensor", "ClampBackward0",
    forward=lambda xp, a, lo, hi: xp.minimum(xp.maximum(a, lo), hi),
    lower=_clamp_lower,
    vjp=(_clamp_input_grad, _clamp_lower_grad, _clamp_upper_grad),
    saved=(0, 1, 2),
    samples=(Sample(((3,), (3,), (3,))), Sample(((2, 3), (3,), ())),
             Sample(((2, 3), None, (2, 3))), Sample(((2, 1), (1, 3), None))),
))

_CLAMP_ONE_BOUND = (Sample(((3,), (3,))), Sample(((2, 3), (3,))), Sample(((2, 1), (1, 3))),
                    Sample(((), (2, 2))))


def _one_bound_clamp(name: str, node_name: str, lower: bool) -> Op:
    """clamp with a single tensor bound; ``x.clamp(min=t)`` and ``x.clamp_min(t)`` compute
    the same but PyTorch names their nodes differently."""
    if lower:
        forward = lambda xp, a, lo: xp.maximum(a, lo)  # noqa: E731
        vjp = (lambda xp, g, ans, a, lo: xp.where(a >= lo, g, 0.0),
               lambda xp, g, ans, a, lo: xp.where(a < lo, g, 0.0))
    else:
        forward = lambda xp, a, hi: xp.minimum(a, hi)  # noqa: E731
        vjp = (lambda xp, g, ans, a, hi: xp.where(a <= hi, g, 0.0),
               lambda xp, g, ans, a, hi: xp.where(a > hi, g, 0.0))
    lower_rule = (lambda xp, a, lo: _clamp_lower(xp, a, min=lo)) if lower \
        else (lambda xp, a, hi: _clamp_lower(xp, a, max=hi))
    return register(Op(name, node_name, forward=forward, vjp=vjp, saved=(0, 1),
                       lower=lower_rule, samples=_CLAMP_ONE_BOUND))


clamp_tensor_lower = _one_bound_clamp("clamp_tensor_lower", "ClampBackward0", lower=True)
clamp_tensor_upper = _one_bound_clamp("clamp_tensor_upper", "ClampBackward0", lower=False)
clamp_min_tensor = _one_bound_clamp("clamp_min_tensor", "ClampMinBackward1", lower=True)
clamp_max_tensor = _one_bound_clamp("clamp_max_tensor", "ClampMaxBackward1", lower=False)


# ---------------------------------------------------------------- rounding (zero gradient)
_INTEGERS = (-2.0, -1.0, 0.0, 1.0, 2.0)


def _zero_grad(xp, g, ans, a, **params):
    return xp.zeros_like(g)


floor = register(Op(
    "floor", "FloorBackward0",
    convention="0 everywhere, the integers (jumps) included",
    forward=lambda xp, a: xp.floor(a),
    vjp=(_zero_grad,),
    samples=_unary_samples(kinks=_INTEGERS),
))

ceil = register(Op(
    "ceil", "CeilBackward0",
    convention="0 everywhere, the integers (jumps) included",
    forward=lambda xp, a: xp.ceil(a),
    vjp=(_zero_grad,),
    samples=_unary_samples(kinks=_INTEGERS),
))

trunc = register(Op(
    "trunc", "TruncBackward0",
    convention="0 everywhere, the integers (jumps) included",
    forward=lambda xp, a: xp.trunc(a),
    vjp=(_zero_grad,),
    samples=_unary_samples(kinks=_INTEGERS),
))

round = register(Op(
    "round", "RoundBackward0",
    convention="0 everywhere, the half-integers (jumps) included",
    forward=lambda xp, a: xp.rint(a),  # halves to even
    vjp=(_zero_grad,),
    samples=_unary_samples(kinks=(-1.5, -0.5, 0.5, 1.5)),
))


def _round_decimals(xp, a, decimals):
    # PyTorch's kernel: scale by 10**|decimals| in the input's dtype, round half to even
    if decimals < 0:
        scale = 10.0 ** -decimals
        return xp.rint(a / scale) * scale
    scale = 10.0 ** decimals
    return xp.rint(a * scale) / scale


round_decimals = register(Op(
    "round_decimals", "RoundBackward1",
    convention="0 everywhere, the jumps included",
    forward=_round_decimals,
    vjp=(_zero_grad,),
    samples=(Sample(((2, 3),), {"decimals": 1}, gap=0.01,
                    kinks=tuple(k / 10 + 0.05 for k in range(-21, 21))),
             Sample(((3,),), {"decimals": -1}, low=-30.0, high=30.0,
                    kinks=(-25.0, -15.0, -5.0, 5.0, 15.0, 25.0))),
))

frac = register(Op(
    "frac", "FracBackward0",
    convention="1 everywhere, the integers (jumps) included",
    forward=lambda xp, a: a - xp.trunc(a),
    vjp=(lambda xp, g, ans, a: g,),
    samples=_unary_samples(kinks=_INTEGERS),
))


# ---------------------------------------------------------------- activations
# Their gradients at the kinks follow PyTorch: leaky_relu'(0) = negative_slope, elu'(0) =
# alpha, hardtanh'(min_val) = hardtanh'(max_val) = 0. PyTorch's gradient at nan for hardtanh and
# elu depends on the tensor's size (vectorised and scalar kernels differ); these rules follow
# its scalar kernels (the gradient passes).
hardtanh = register(Op(
    "hardtanh", "HardtanhBackward0",
    convention="0 at min_val and max_val (the flat side)",
    # (the bound first: numpy's maximum gives its second operand on a tie, so -0.0 stays)
    forward=lambda xp, a, min_val, max_val: xp.minimum(max_val, xp.maximum(min_val, a)),
    # the bounds taken by the outer branches, so that sympy's derivative there is 0 too
    lower=lambda xp, a, min_val, max_val: xp.where(
        a <= min_val, min_val, xp.where(a >= max_val, max_val, a)),
    vjp=(lambda xp, g, ans, a, min_val, max_val:
         xp.where((a <= min_val) | (a >= max_val), 0.0, g),),
    saved=(0,),
    samples=(Sample(((3,),), {"min_val": -1.0, "max_val": 1.0}, kinks=(-1.0, 1.0)),
             Sample(((2, 3),), {"min_val": 0.0, "max_val": 6.0}, low=-2.0, high=8.0,
                    kinks=(0.0, 6.0)),
             Sample(((),), {"min_val": -0.5, "max_val": 0.5}, kinks=(-0.5, 0.5))),
))

# hardshrink, softshrink, threshold: the gradient is 0 where the output does not follow the
# input (bounds included) and passes elsewhere, nan included (PyTorch's kernels test "inside")
def _inside(a, lambd):
    return (a >= -lambd) & (a <= lambd)


_SHRINK_SAMPLES = (Sample(((3,),), {"lambd": 0.5}, kinks=(-0.5, 0.5)),
                   Sample(((2, 3),), {"lambd": 0.25}, kinks=(-0.25, 0.25)))


hardshrink = register(Op(
    "hardshrink", "HardshrinkBackward0",
    convention="0 at -lambd and lambd (the flat side); nan passes the gradient",
    forward=lambda xp, a, lambd: xp.where(_inside(a, lambd), 0.0, a),
    vjp=(lambda xp, g, ans, a, lambd: xp.where(_inside(a, lambd), 0.0, g),),
    saved=(0,),
    samples=_SHRINK_SAMPLES,
))

softshrink = register(Op(
    "softshrink", "SoftshrinkBackward0",
    convention="0 at -lambd and lambd (the flat side); nan passes the gradient",
    # (a * 0 in between, as PyTorch's: -0.0 stays -0.0 and nan nan)
    forward=lambda xp, a, lambd: xp.where(a > lambd, a - lambd,
                                          xp.where(a < -lambd, a + lambd, a * 0)),
    vjp=(lambda xp, g, ans, a, lambd: xp.where(_inside(a, lambd), 0.0, g),),
    saved=(0,),
    samples=_SHRINK_SAMPLES,
))

threshold = register(Op(
    "threshold", "ThresholdBackward0",
    convention="0 at the threshold (the replaced side); nan passes the gradient",
    forward=lambda xp, a, threshold, value: xp.where(a <= threshold, value, a),
    vjp=(lambda xp, g, ans, a, threshold, value: xp.where(a <= threshold, 0.0, g),),
    saved=(0,),
    samples=(Sample(((3,),), {"threshold": 0.1, "value": 20.0}, kinks=(0.1,)),
             Sample(((2, 3),), {"threshold": -0.3, "value": -1.0}, kinks=(-0.3,))),
))


leaky_relu = register(Op(
    "leaky_relu", "LeakyReluBackward0",
    convention="negative_slope at 0 (the left derivative)",
    forward=lambda xp, a, negative_slope: xp.where(a > 0, a, a * negative_slope),
    vjp=(lambda xp, g, ans, a, negative_slope: xp.where(a > 0, g, g * negative_slope),),
    saved=(0,),
    samples=(*(Sample(s.shapes, {"negative_slope": 0.01}, kinks=(0.0,)) for s in UNARY),
             Sample(((2, 3),), {"negative_slope": 0.2}, kinks=(0.0,)),
             Sample(((3,),), {"negative_slope": -0.5}, kinks=(0.0,))),
))


def _leaky_relu_result_grad(xp, g, ans, a, negative_slope):
    if negative_slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which "
            "is not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead.")
    return xp.where(ans > 0, g, g * negative_slope)


# the in-place spelling: its node computes the gradient from the result (LeakyReluBackward1)
leaky_relu_result = register(Op(
    "leaky_relu_result", "LeakyReluBackward1",
    convention="negative_slope at 0 (the left derivative)",
    forward=leaky_relu.forward,
    vjp=(_leaky_relu_result_grad,),
    saves_output=True,
    samples=(Sample(((2, 3),), {"negative_slope": 0.01}, kinks=(0.0,)),
             Sample(((),), {"negative_slope": 0.2}, kinks=(0.0,))),
))

elu = register(Op(
    "elu", "EluBackward0",
    convention="alpha at 0 (the left derivative)",
    forward=lambda xp, a, alpha: xp.where(a > 0, a, alpha * xp.expm1(a)),
    vjp=(lambda xp, g, ans, a, alpha: xp.where(a <= 0, g * alpha * xp.exp(a), g),),
    saved=(0,),
    samples=(Sample(((3,),), {"alpha": 1.0}, kinks=(0.0,)),
             Sample(((2, 3),), {"alpha": 2.0}, kinks=(0.0,)),
             Sample(((),), {"alpha": 0.5}, kinks=(0.0,))),
))


def _elu_result_grad(xp, g, ans, a, alpha):
    if alpha < 0:
        raise RuntimeError(
            "In-place elu backward calculation is triggered with a negative slope which is not "
            "supported. This is caused by calling in-place forward function with a negative "
            "slope, please call out-of-place version instead.")
    return xp.where(ans <= 0, g * (ans + alpha), g)


elu_result = register(Op(
    "elu_result", "EluBackward1",
    convention="alpha at 0 (the left derivative)",
    forward=elu.forward,
    vjp=(_elu_result_grad,),
    saves_output=True,
    samples=(Sample(((2, 3),), {"alpha": 1.0}, kinks=(0.0,)),
             Sample(((3,),), {"alpha": 2.0}, kinks=(0.0,))),
))


# (halves written as "/ 2", not "* 0.5", so that the symbolic rules stay exact)
def _gelu_forward(xp, a, approximate):
    if approximate == "tanh":
        inner = xp.scalar_sqrt(2 / xp.pi) * (a + 0.044715 * (a * a * a))
        return a * (1 + xp.tanh(inner)) / 2
    return a * (1 + xp.erf(a * (xp.scalar_sqrt(2) / 2))) / 2


def _gelu_grad(xp, g, ans, a, approximate):
    if approximate == "tanh":
        beta, kappa = xp.scalar_sqrt(2 / xp.pi), 0.044715
        t = xp.tanh(beta * (a + kappa * (a * a * a)))
        slope = (1 - t * t) * (beta * (1 + 3 * kappa * (a * a)))
        return g * ((1 + t) + a * slope) / 2
    cdf = (1 + xp.erf(a * (xp.scalar_sqrt(2) / 2))) / 2
    pdf = (1 / xp.scalar_sqrt(2 * xp.pi)) * xp.exp(-(a * a) / 2)
    return g * (cdf + a * pdf)


gelu = register(Op(
    "gelu", "GeluBackward0",
    forward=_gelu_forward,
    vjp=(_gelu_grad,),
    saved=(0,),
    samples=(*(Sample(s.shapes, {"approximate": "none"}) for s in UNARY),
             Sample(((2, 3),), {"approximate": "tanh"}),
             Sample(((),), {"approximate": "tanh"}, low=-4.0, high=4.0)),
))


def _silu_grad(xp, g, ans, a):
    s = xp.sigmoid(a)
    return g * s * (1 + a * (1 - s))


silu = register(Op(
    "silu", "SiluBackward0",
    forward=lambda xp, a: a * xp.sigmoid(a),
    vjp=(_silu_grad,),
    saved=(0,),
    samples=_unary_samples(low=-4.0, high=4.0),
))


# softplus is linear (exactly x) where beta * x > threshold, as in PyTorch; below, it is
# log(1 + exp(beta * x)) / beta (xp.softplus: without overflow in the branch not taken)
softplus = register(Op(
    "softplus", "SoftplusBackward0",
    convention=("at the threshold (beta * x = threshold) the smooth side's derivative, "
                "sigmoid(beta * x)"),
    forward=lambda xp, a, beta, threshold: xp.where(
        a * beta > threshold, a, xp.softplus(a * beta) / beta),
    vjp=(lambda xp, g, ans, a, beta, threshold: xp.where(
        a * beta > threshold, g, g * xp.sigmoid(a * beta)),),
    saved=(0,),
    samples=(Sample(((3,),), {"beta": 1.0, "threshold": 20.0}, low=-5.0, high=5.0),
             Sample(((2, 3),), {"beta": 2.0, "threshold": 1.0}, kinks=(0.5,)),
             Sample(((),), {"beta": 0.5, "threshold": 20.0})),
))


# ---------------------------------------------------------------- inverse hyperbolic functions
asinh = register(Op(
    "asinh", "AsinhBackward0",
    forward=lambda xp, a: xp.arcsinh(a),
    vjp=(lambda xp, g, ans, a: g / xp.sqrt(a * a + 1),),
    saved=(0,),
    float_only=True,
    samples=_unary_samples(low=-3.0, high=3.0),
))

acosh = register(Op(
    "acosh", "AcoshBackward0",
    forward=lambda xp, a: xp.arccosh(a),
    vjp=(lambda xp, g, ans, a: g / xp.sqrt(a * a - 1),),  # inf at 1, nan below
    saved=(0,),
    float_only=True,
    samples=_unary_samples(low=1.2, high=3.0),
))

atanh = register(Op(
    "atanh", "AtanhBackward0",
    forward=lambda xp, a: xp.arctanh(a),
    vjp=(lambda xp, g, ans, a: g / (1 - a * a),),  # inf at +-1
    saved=(0,),
    float_only=True,
    samples=_unary_samples(low=-0.9, high=0.9),
))



def _inplace_twin(op: Op, node_name: str) -> Op:
    """The op that ``op``'s in-place spelling records: the same rules under the node name
    PyTorch gives its in-place variant (``asinh_`` records ``AsinhBackward1``)."""
    return register(Op(op.name + "_inplace", node_name, forward=op.forward, vjp=op.vjp,
                       saved=op.saved, float_only=op.float_only, samples=op.samples))


asinh_inplace = _inplace_twin(asinh, "AsinhBackward1")
acosh_inplace = _inplace_twin(acosh, "AcoshBackward1")
atanh_inplace = _inplace_twin(atanh, "AtanhBackward1")


# ---------------------------------------------------------------- logaddexp, lerp, copysign
logaddexp = register(Op(
    "logaddexp", "LogaddexpBackward0",
    forward=lambda xp, a, b: xp.logaddexp(a, b),
    vjp=(lambda xp, g, ans, a, b: g / (1 + xp.exp(b - a)),
         lambda xp, g, ans, a, b: g / (1 + xp.exp(a - b))),
    saved=(0, 1),
    float_only=True,
    samples=TENSOR_BINARY,
))

logaddexp2 = register(Op(
    "logaddexp2", "Logaddexp2Backward0",
    forward=lambda xp, a, b: xp.logaddexp2(a, b),
    vjp=(lambda xp, g, ans, a, b: g / (1 + xp.exp2(b - a)),
         lambda xp, g, ans, a, b: g / (1 + xp.exp2(a - b))),
    saved=(0, 1),
    float_only=True,
    samples=TENSOR_BINARY,
))


def _lerp_forward(xp, start, end, weight):
    # PyTorch's formula: exact at both ends (weight 0 gives start, weight 1 gives end)
    return xp.where(weight < 0.5, start + weight * (end - start),
                    end - (end - start) * (1 - weight))


lerp = register(Op(
    "lerp", "LerpBackward0",
    forward=lambda xp, start, end, weight: _lerp_forward(xp, start, end, weight),
    lower=lambda xp, start, end, weight: start + weight * (end - start),
    vjp=(lambda xp, g, ans, start, end, weight: g * (1 - weight),
         lambda xp, g, ans, start, end, weight: g * weight),
    scalar_params=("weight",),
    samples=(Sample(((3,), (3,)), {"weight": 0.3}), Sample(((2, 3), (3,)), {"weight": 0.75})),
))

lerp_tensor = register(Op(
    "lerp_tensor", "LerpBackward1",
    convention="none needed: the two formulas agree at weight 0.5, so the gradient is continuous",
    forward=_lerp_forward,
    lower=lambda xp, start, end, weight: start + weight * (end - start),
    vjp=(lambda xp, g, ans, start, end, weight: g * (1 - weight),
         lambda xp, g, ans, start, end, weight: g * weight,
         lambda xp, g, ans, start, end, weight: g * (end - start)),
    saved=(0, 1, 2),
    # weight kept away from 0.5, where the forward switches between two equal formulas
    samples=(Sample(((3,), (3,), (3,)), kinks=(0.5,)), Sample(((2, 3), (3,), ()), kinks=(0.5,))),
))


def _copysign_grad(xp, g, ans, a, b):
    # d|a|sign(b)/da = ans / a, taken as 0 at a == 0 (PyTorch's convention, which multiplies
    # g by that 0: the zero has g's sign, and a nan g stays nan)
    return g * xp.where(a == 0, 0.0, ans / a)


def _copysign_lower(xp, a, b):
    return xp.where(b < 0, -xp.abs(a), xp.abs(a))


copysign = register(Op(
    "copysign", "CopysignBackward0",
    convention="0 for the input at 0; 0 for the sign source everywhere",
    forward=lambda xp, a, b: xp.copysign(a, b),
    lower=_copysign_lower,
    vjp=(_copysign_grad, lambda xp, g, ans, a, b: xp.zeros_like(g)),
    saved={0: (0,)},
    saves_output=True,
    float_only=True,
    samples=tuple(Sample(s.shapes, kinks=(0.0,)) for s in TENSOR_BINARY),
))

copysign_scalar = register(Op(
    "copysign_scalar", "CopysignBackward1",
    convention="0 at 0",
    forward=lambda xp, a, other: xp.copysign(a, other),
    lower=lambda xp, a, other: _copysign_lower(xp, a, other),
    vjp=(lambda xp, g, ans, a, other: _copysign_grad(xp, g, ans, a, other),),
    saved=(0,),
    saves_output=True,
    float_only=True,
    scalar_params=("other",),
    samples=(Sample(((3,),), {"other": -1.0}, kinks=(0.0,)),
             Sample(((2, 3),), {"other": 2.0}, kinks=(0.0,))),
))


# ---------------------------------------------------------------- rounding divisions
# remainder has the sign of the divisor (Python's %), fmod the sign of the dividend (C's fmod);
# both pass the gradient to the dividend, and -g * (the rounded quotient) to a tensor divisor.
# Division with a rounding mode is piecewise constant: zero gradient (PyTorch's DivBackward2).
def _rounded_quotient(xp, a, b, mode):
    return xp.floor(a / b) if mode == "floor" else xp.trunc(a / b)


remainder = register(Op(
    "remainder", "RemainderBackward1",
    forward=lambda xp, a, b: xp.remainder(a, b),
    lower=lambda xp, a, b: a - b * xp.floor(a / b),
    vjp=(lambda xp, g, ans, a, b: g,
         lambda xp, g, ans, a, b: -g * xp.div_rounded(a, b, "floor")),
    saved={1: (0, 1)},
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in TENSOR_BINARY),
))

remainder_scalar = register(Op(
    "remainder_scalar", "RemainderBackward0",
    convention="1 everywhere, the multiples of other (jumps) included",
    forward=lambda xp, a, other: xp.remainder(a, other),
    lower=lambda xp, a, other: a - other * xp.floor(a / other),
    vjp=(lambda xp, g, ans, a, other: g,),
    scalar_params=("other",),
    samples=(Sample(((3,),), {"other": 0.75}, kinks=(-1.5, -0.75, 0.0, 0.75, 1.5)),
             Sample(((2, 3),), {"other": -1.5}, kinks=(-1.5, 0.0, 1.5))),
))

fmod = register(Op(
    "fmod", "FmodBackward1",
    forward=lambda xp, a, b: xp.fmod(a, b),
    lower=lambda xp, a, b: a - b * xp.trunc(a / b),
    vjp=(lambda xp, g, ans, a, b: g,
         lambda xp, g, ans, a, b: -g * xp.div_rounded(a, b, "trunc")),
    saved={1: (0, 1)},
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in TENSOR_BINARY),
))

fmod_scalar = register(Op(
    "fmod_scalar", "FmodBackward0",
    convention="1 everywhere, the multiples of other (jumps) included",
    forward=lambda xp, a, other: xp.fmod(a, other),
    lower=lambda xp, a, other: a - other * xp.trunc(a / other),
    vjp=(lambda xp, g, ans, a, other: g,),
    scalar_params=("other",),
    samples=(Sample(((3,),), {"other": 0.75}, kinks=(-1.5, -0.75, 0.0, 0.75, 1.5)),
             Sample(((2, 3),), {"other": -1.5}, kinks=(-1.5, 0.0, 1.5))),
))

div_rounded = register(Op(
    "div_rounded", "DivBackward2",
    forward=lambda xp, a, b, rounding_mode: xp.div_rounded(a, b, rounding_mode),
    lower=lambda xp, a, b, rounding_mode: _rounded_quotient(xp, a, b, rounding_mode),
    vjp=(lambda xp, g, ans, a, b, rounding_mode: xp.zeros_like(g),
         lambda xp, g, ans, a, b, rounding_mode: xp.zeros_like(g)),
    samples=(Sample(((3,), (3,)), {"rounding_mode": "floor"}, **POSITIVE),
             Sample(((2, 3), None), {"rounding_mode": "trunc"})),
))


def _not_implemented(name):
    def vjp(xp, g, ans, *args, **params):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    return vjp


# Not registered (no gradient to check): PyTorch records these with a node named
# "NotImplemented" whose backward raises: `x // y`, and a Python number `%` or `//` a tensor.
floor_divide = Op(
    "floor_divide", "NotImplemented",
    forward=lambda xp, a, b: xp.div_rounded(a, b, "floor"),
    lower=lambda xp, a, b: xp.floor(a / b),
    vjp=(_not_implemented("floor_divide"), _not_implemented("floor_divide")),
)

# Not registered (no gradient): detach_copy, which PyTorch records on an input requiring grad
# with a node named "NotImplemented" whose backward raises.
detach_copy = Op(
    "detach_copy", "NotImplemented",
    forward=lambda xp, a: a.copy(),
    lower=lambda xp, a: a,
    vjp=(_not_implemented("detach_copy"),),
)

# Not registered (no gradient): histogram's and histogramdd's results, which PyTorch records,
# for an input or weight requiring grad, with a node named "NotImplemented" whose backward
# raises; the values are computed outside (``value``), these only put them in the graph.
histogram = Op(
    "histogram", "NotImplemented",
    forward=lambda xp, a, value: value.copy(),
    vjp=(_not_implemented("histogram"),),
)
histogram_weighted = Op(
    "histogram_weighted", "NotImplemented",
    forward=lambda xp, a, weight, value: value.copy(),
    vjp=(_not_implemented("histogram"), _not_implemented("histogram")),
)

rremainder = Op(
    "rremainder", "NotImplemented",
    forward=lambda xp, a, other: xp.remainder(other, a),
    lower=lambda xp, a, other: other - a * xp.floor(other / a),
    vjp=(_not_implemented("remainder"),),
    scalar_params=("other",),
)


# nan_to_num: the gradient passes where the input is finite (PyTorch: grad * isfinite(x))
nan_to_num = register(Op(
    "nan_to_num", "NanToNumBackward0",
    forward=lambda xp, a, nan, posinf, neginf: xp.nan_to_num(a, nan, posinf, neginf),
    lower=lambda xp, a, nan, posinf, neginf: a * 1,
    vjp=(lambda xp, g, ans, a, nan, posinf, neginf: xp.where(xp.isfinite(a), g, 0.0),),
    saved=(0,),
    samples=(Sample(((3,),), {"nan": 0.0, "posinf": None, "neginf": None}),
             Sample(((2, 3),), {"nan": 1.0, "posinf": 2.0, "neginf": -2.0})),
))


# ---------------------------------------------------------------- special functions and friends
erfc = register(Op(
    "erfc", "ErfcBackward0",
    forward=lambda xp, a: xp.erfc(a),
    vjp=(lambda xp, g, ans, a: g * (-2 / xp.scalar_sqrt(xp.pi)) * xp.exp(-(a * a)),),
    saved=(0,),
    float_only=True,
    samples=UNARY,
))


# the gamma family: each derivative is the next polygamma (numpy has no kernels: numeric's own)
lgamma = register(Op(
    "lgamma", "LgammaBackward0",
    forward=lambda xp, a: xp.lgamma(a),
    vjp=(lambda xp, g, ans, a: g * xp.digamma(a),),
    saved=(0,),
    float_only=True,
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in UNARY),
))

digamma = register(Op(
    "digamma", "DigammaBackward0",
    forward=lambda xp, a: xp.digamma(a),
    vjp=(lambda xp, g, ans, a: g * xp.polygamma(1, a),),
    saved=(0,),
    float_only=True,
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in UNARY),
))

polygamma = register(Op(
    "polygamma", "PolygammaBackward0",
    forward=lambda xp, a, n: xp.polygamma(n, a),
    vjp=(lambda xp, g, ans, a, n: g * xp.polygamma(n + 1, a),),
    saved=(0,),
    float_only=True,
    samples=(Sample(((3,),), {"n": 1}, **POSITIVE), Sample(((2, 3),), {"n": 2}, **POSITIVE),
             Sample(((),), {"n": 3}, **POSITIVE)),
))

def _mvlgamma_forward(xp, a, p):
    # PyTorch's sum: lgamma(x - (p - 1) / 2) + ... + lgamma(x - 1/2) + lgamma(x), then the constant
    total = xp.lgamma(a - (p - 1) / 2)
    for j in range(p - 2, -1, -1):
        total = total + xp.lgamma(a - j / 2)
    return total + p * (p - 1) / 4 * xp.scalar_log(math.pi)


def _mvlgamma_grad(xp, g, ans, a, p):
    total = xp.digamma(a)
    for j in range(1, p):
        total = total + xp.digamma(a - j / 2)
    return g * total


# the multivariate log-gamma function: p (p - 1) / 4 log(pi) + sum of lgamma(x - j / 2), j < p
mvlgamma = register(Op(
    "mvlgamma", "MvlgammaBackward0",
    forward=_mvlgamma_forward,
    vjp=(_mvlgamma_grad,),
    saved=(0,),
    float_only=True,
    samples=(Sample(((3,),), {"p": 2}, low=1.5, high=4.0),
             Sample(((2, 3),), {"p": 3}, low=2.0, high=4.0),
             Sample(((),), {"p": 1}, low=0.5, high=3.0)),
))

def _no_derivative(what):
    """A rule raising PyTorch's error for a derivative it does not implement (``what``: the
    function, and the input where PyTorch names it)."""
    def vjp(xp, g, ans, *args, **params):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")

    return vjp


def _no_shape_grad(name):
    """PyTorch has no derivative of the incomplete gamma functions in their shape ``a``."""
    return _no_derivative(f"{name}: input")


# P(a, x) and Q(a, x) = 1 - P(a, x), the regularized incomplete gamma functions: in x their
# derivatives are ±x^(a-1) e^-x / Γ(a); in a PyTorch has none. The registry samples a as a number
igamma = register(Op(
    "igamma", "IgammaBackward0",
    forward=lambda xp, a, b: xp.igamma(a, b),
    vjp=(_no_shape_grad("igamma"), lambda xp, g, ans, a, b: g * xp.igamma_grad_x(a, b)),
    saved=(0, 1),
    float_only=True,
    samples=(Sample((None, (3,)), low=0.5, high=2.5), Sample((None, (2, 3)), low=1.5, high=3.0)),
))
igammac = register(Op(
    "igammac", "IgammacBackward0",
    forward=lambda xp, a, b: xp.igammac(a, b),
    vjp=(_no_shape_grad("igammac"), lambda xp, g, ans, a, b: -g * xp.igamma_grad_x(a, b)),
    saved=(0, 1),
    float_only=True,
    samples=(Sample((None, (3,)), low=0.5, high=2.5), Sample((None, (2, 3)), low=1.5, high=3.0)),
))


# frexp's mantissa a / 2^e, e = floor(log2 |a|) + 1 (0 at 0, inf and nan, as frexp): piecewise
# a scaling of a, so its derivative is 1 / 2^e (1 where e is 0), as PyTorch's FrexpBackward0
frexp_mantissa = register(Op(
    "frexp_mantissa", "FrexpBackward0",
    convention="at a power of two (where the exponent steps), 1 / 2^e of the upper side, as "
               "PyTorch; at 0, inf and nan 1",
    forward=lambda xp, a: xp.frexp_mantissa(a),
    lower=lambda xp, a: a * xp.exp2(-(xp.floor(xp.log2(xp.abs(a))) + 1)),
    vjp=(lambda xp, g, ans, a: g / xp.exp2(xp.frexp_exponent(a)),),
    saved=(0,),
    samples=_unary_samples(low=0.3, high=3.0, kinks=(-2.0, -1.0, -0.5, 0.5, 1.0, 2.0)),
))

# nextafter(a, b): the float after a towards b (b itself where a == b); PyTorch passes the
# gradient to a, but not where a == b, and gives b none
nextafter = register(Op(
    "nextafter", "NextafterBackward0",
    convention="0 for a where a == b (the result is b there), as PyTorch",
    forward=lambda xp, a, b: xp.nextafter(a, b),
    lower=lambda xp, a, b: a + 0 * b,  # (a, in the broadcast shape)
    vjp=(lambda xp, g, ans, a, b: xp.where(a == b, 0.0, g),
         lambda xp, g, ans, a, b: xp.zeros_like(g)),
    saved=(0, 1),
    samples=TENSOR_BINARY,
))


def _implicit_only(xp, a, draw):
    raise NotImplementedError("a gamma draw's gradient in its shape is implicit (through the "
                              "draw's quantile), which sympy cannot express: symgrad does not "
                              "lower StandardGammaBackward0")


# A standard gamma draw x of shape a (the values drawn, a param): its gradient in a holds the
# draw's quantile P(a, x) fixed (implicit reparameterization), as PyTorch's _standard_gamma.
# Not registered: the forward is a random draw, and the rule has no formula to prove
standard_gamma = Op(
    "standard_gamma", "StandardGammaBackward0",
    forward=lambda xp, a, draw: xp.astype(xp.broadcast_to(draw, a.shape), None),
    lower=_implicit_only,
    vjp=(lambda xp, g, ans, a, draw: g * xp.standard_gamma_grad(a, ans),),
    saved=(0,),
    saves_output=True,
    float_only=True,
)

# d erfinv(y) / dy = sqrt(pi) / 2 * exp(erfinv(y)^2), from the output
erfinv = register(Op(
    "erfinv", "ErfinvBackward0",
    forward=lambda xp, a: xp.erfinv(a),
    vjp=(lambda xp, g, ans, a: g * (xp.scalar_sqrt(xp.pi) / 2) * xp.exp(ans * ans),),
    saves_output=True,
    float_only=True,
    samples=_unary_samples(low=-0.9, high=0.9),
))


# xlogy(x, y) = x * log(y), and 0 where x == 0 (PyTorch: also for y = 0 or inf; a nan y
# stays nan); its x-derivative is log(y) (0 where x == 0 and y <= 0, as PyTorch's rule)
xlogy = register(Op(
    "xlogy", "XlogyBackward0",
    forward=lambda xp, a, b: xp.where((a == 0) & (b == b), 0.0, a * xp.log(b)),
    lower=lambda xp, a, b: a * xp.log(b),  # its derivative in x is log(y) at x = 0 too
    vjp=(lambda xp, g, ans, a, b: xp.where((a == 0) & (b <= 0), 0.0, g * xp.log(b)),
         lambda xp, g, ans, a, b: g * a / b),
    saved=(0, 1),
    float_only=True,
    samples=tuple(Sample(s.shapes, low=0.3, high=2.5) for s in TENSOR_BINARY),
))

# xlog1py(x, y) = x * log1p(y), and 0 where x == 0 unless y is nan; its x-derivative is
# xlog1py(x != 0, y): log1p(y), 0 where x == 0 (nan for a nan y), as PyTorch's rule
xlog1py = register(Op(
    "xlog1py", "SpecialXlog1PyBackward0",
    forward=lambda xp, a, b: xp.where((a == 0) & (b == b), 0.0, a * xp.log1p(b)),
    lower=lambda xp, a, b: a * xp.log1p(b),
    vjp=(lambda xp, g, ans, a, b: g * xp.where((a == 0) & (b == b), 0.0, xp.log1p(b)),
         lambda xp, g, ans, a, b: g * a / (b + 1)),
    saved=(0, 1),
    float_only=True,
    samples=tuple(Sample(s.shapes, low=0.3, high=2.5) for s in TENSOR_BINARY),
))

# entr(x) = -x log(x): 0 at 0 and -inf below (PyTorch's special.entr); its rule -(1 + log x)
# holds everywhere (inf at 0, nan below)
entr = register(Op(
    "entr", "SpecialEntrBackward0",
    forward=lambda xp, a: xp.entr(a),
    lower=lambda xp, a: -a * xp.log(a),
    vjp=(lambda xp, g, ans, a: g * -(xp.log(a) + 1),),
    saved=(0,),
    float_only=True,
    samples=_unary_samples(low=0.1, high=2.5),
))

# log_ndtr(x) = log Φ(x), Φ the standard normal CDF; its derivative φ(x) / Φ(x), from the
# output: exp(-x²/2 - log_ndtr(x)) / √(2π), finite far into the left tail
log_ndtr = register(Op(
    "log_ndtr", "SpecialLogNdtrBackward0",
    forward=lambda xp, a: xp.log_ndtr(a),
    lower=lambda xp, a: xp.log(xp.erfc(-a / xp.scalar_sqrt(2)) / 2),
    vjp=(lambda xp, g, ans, a: g * xp.exp(-(a * a) / 2 - ans) / xp.scalar_sqrt(2 * xp.pi),),
    saved=(0,),
    saves_output=True,
    float_only=True,
    samples=_unary_samples(low=-3.0, high=2.0),
))

# ndtri = Φ⁻¹; its derivative √(2π) exp(ndtri(p)²/2), from the output
ndtri = register(Op(
    "ndtri", "SpecialNdtriBackward0",
    forward=lambda xp, a: xp.ndtri(a),
    lower=lambda xp, a: xp.scalar_sqrt(2) * xp.erfinv(2 * a - 1),
    vjp=(lambda xp, g, ans, a: g * xp.scalar_sqrt(2 * xp.pi) * xp.exp(ans * ans / 2),),
    saves_output=True,
    float_only=True,
    samples=_unary_samples(low=0.05, high=0.95),
))

# the modified Bessel functions of the first kind I0, I1 and e^-|x| times them (PyTorch's i0,
# special.i1, i0e, i1e): I0' = I1, I1' = I0 - I1/x, and 1/2 where |x| is not above the dtype's
# epsilon (nan included), as PyTorch's rules; e^-|x| I0 has a kink at 0, where PyTorch's rule
# i1e - sign(x) i0e gives 0
i0 = register(Op(
    "i0", "I0Backward0",
    forward=lambda xp, a: xp.i0(a),
    vjp=(lambda xp, g, ans, a: g * xp.i1(a),),
    saved=(0,),
    float_only=True,
    samples=UNARY,
))
i1 = register(Op(
    "i1", "SpecialI1Backward0",
    forward=lambda xp, a: xp.i1(a),
    vjp=(lambda xp, g, ans, a: g * xp.where(xp.abs(a) > xp.eps(a), xp.i0(a) - ans / a, 0.5),),
    saved=(0,),
    saves_output=True,
    float_only=True,
    samples=UNARY,
))
i0e = register(Op(
    "i0e", "SpecialI0EBackward0",
    convention="0 at 0 (sign(0) = 0), as PyTorch",
    forward=lambda xp, a: xp.i0e(a),
    vjp=(lambda xp, g, ans, a: g * (xp.i1e(a) - xp.sign(a) * ans),),
    saved=(0,),
    saves_output=True,
    float_only=True,
    samples=_unary_samples(kinks=(0.0,)),
))
i1e = register(Op(
    "i1e", "SpecialI1EBackward0",
    forward=lambda xp, a: xp.i1e(a),
    vjp=(lambda xp, g, ans, a: g * xp.where(xp.abs(a) > xp.eps(a),
                                            xp.i0e(a) - ans * (xp.sign(a) + 1 / a), 0.5),),
    saved=(0,),
    saves_output=True,
    float_only=True,
    samples=UNARY,
))

# erfcx(x) = e^(x²) erfc(x), the scaled complementary error function; its derivative
# 2x erfcx(x) - 2/√π, from the output
erfcx = register(Op(
    "erfcx", "SpecialErfcxBackward0",
    forward=lambda xp, a: xp.erfcx(a),
    vjp=(lambda xp, g, ans, a: g * (2 * a * ans - 2 / xp.scalar_sqrt(xp.pi)),),
    saved=(0,),
    saves_output=True,
    float_only=True,
    samples=UNARY,
))

# the Hurwitz zeta function ζ(x, q) = Σ (k + q)^-x: its derivative in q is -x ζ(x + 1, q); in x
# PyTorch has none (NotImplementedError at backward). The registry samples x as a number
zeta = register(Op(
    "zeta", "SpecialZetaBackward0",
    forward=lambda xp, a, b: xp.zeta(a, b),
    vjp=(_no_derivative("zeta"), lambda xp, g, ans, a, b: g * -a * xp.zeta(a + 1, b)),
    saved=(0, 1),
    float_only=True,
    samples=(Sample((None, (3,)), low=1.5, high=3.0), Sample((None, (2, 3)), low=1.2, high=4.0)),
))

hypot = register(Op(
    "hypot", "HypotBackward0",
    forward=lambda xp, a, b: xp.hypot(a, b),
    vjp=(lambda xp, g, ans, a, b: g * a / ans,
         lambda xp, g, ans, a, b: g * b / ans),
    saved=(0, 1),
    saves_output=True,
    samples=tuple(Sample(s.shapes, low=0.3, high=2.5) for s in TENSOR_BINARY),
))


def _logit_forward(xp, a, eps=None):
    if eps is not None:
        a = _clamp_forward(xp, a, eps, 1 - eps)
    return xp.log(a / (1 - a))


def _logit_lower(xp, a, eps=None):
    if eps is not None:
        a = _clamp_lower(xp, a, eps, 1 - eps)
    return xp.log(a / (1 - a))


def _logit_grad(xp, g, ans, a, eps=None):
    grad = g / (a * (1 - a))
    if eps is None:  # (outside [0, 1] nan, as PyTorch's)
        return xp.where((a < 0) | (a > 1), math.nan, grad)
    return xp.where((a < eps) | (a > 1 - eps), 0.0, grad)  # the bounds themselves pass


logit = register(Op(
    "logit", "LogitBackward0",
    convention="with eps: the gradient passes at eps and 1 - eps, 0 beyond (as PyTorch)",
    forward=_logit_forward,
    lower=_logit_lower,
    vjp=(_logit_grad,),
    saved=(0,),
    float_only=True,
    samples=(_unary_samples(low=0.1, high=0.9)
             + (Sample(((2, 3),), {"eps": 0.25}, low=0.05, high=0.95, kinks=(0.25, 0.75)),)),
))


def _sinc_grad(xp, g, ans, a):
    x = a * xp.pi
    # 0 where pi a^2 is 0 (a = 0, or so small that it underflows), as PyTorch's
    denominator = x * a
    return xp.where(denominator == 0, 0.0, g * (xp.cos(x) * x - xp.sin(x)) / denominator)


sinc = register(Op(
    "sinc", "SincBackward0",
    forward=lambda xp, a: xp.where(a == 0, 1.0, xp.sin(a * xp.pi) / (a * xp.pi)),
    vjp=(_sinc_grad,),
    saved=(0,),
    float_only=True,
    samples=_unary_samples(low=0.1, high=2.2),
))

sgn = register(Op(
    "sgn", "SgnBackward0",
    convention="0 everywhere, 0 (a jump) included",
    forward=sign.forward,
    vjp=sign.vjp,
    samples=sign.samples,
))

deg2rad = register(Op(
    "deg2rad", "Deg2RadBackward0",
    forward=lambda xp, a: a * (xp.pi / 180),
    vjp=(lambda xp, g, ans, a: g * (xp.pi / 180),),
    float_only=True,
    samples=UNARY,
))

rad2deg = register(Op(
    "rad2deg", "Rad2DegBackward0",
    forward=lambda xp, a: a * (180 / xp.pi),
    vjp=(lambda xp, g, ans, a: g * (180 / xp.pi),),
    float_only=True,
    samples=UNARY,
))


# ---------------------------------------------------------------- addcmul, addcdiv
def _scaled_by(g, value):
    return g if value == 1 else g * value


addcmul = register(Op(
    "addcmul", "AddcmulBackward0",
    forward=lambda xp, a, b, c, value=1: a + _scaled_by(b * c, value),
    vjp=(lambda xp, g, ans, a, b, c, value=1: g,
         lambda xp, g, ans, a, b, c, value=1: _scaled_by(g, value) * c,
         lambda xp, g, ans, a, b, c, value=1: _scaled_by(g, value) * b),
    saved={1: (2,), 2: (1,)},
    samples=(Sample(((3,), (3,), (3,))), Sample(((2, 3), (3,), (2, 1)), {"value": 0.5})),
))

addcdiv = register(Op(
    "addcdiv", "AddcdivBackward0",
    singular=(_DIVISION_BY_ZERO.replace(hits=_at_zero(2), shows=2),),
    forward=lambda xp, a, b, c, value=1: a + _scaled_by(b / c, value),
    vjp=(lambda xp, g, ans, a, b, c, value=1: g,
         lambda xp, g, ans, a, b, c, value=1: _scaled_by(g, value) / c,
         lambda xp, g, ans, a, b, c, value=1: -_scaled_by(g, value) * b / (c * c)),
    saved={1: (2,), 2: (1, 2)},
    samples=(Sample(((3,), (3,), (3,)), **POSITIVE),
             Sample(((2, 3), (3,), (2, 1)), {"value": -2.0}, **POSITIVE)),
))


# ---------------------------------------------------------------- in-place random fills
# x.uniform_(), x.normal_() ... overwrite x with values drawn by the spelling (given as the
# param ``values``): their gradient is zero, as PyTorch's UniformBackward0 & co.
def _overwrite(name: str, node_name: str) -> Op:
    return register(Op(
        name, node_name,
        forward=lambda xp, a, values: xp.astype(xp.broadcast_to(values, a.shape), None),
        vjp=(lambda xp, g, ans, a, values: xp.zeros_like(g),),
        samples=(Sample(((3,),), {"values": np.array([0.25, -1.5, 2.0])}),),
    ))


uniform_fill = _overwrite("uniform_fill", "UniformBackward0")
normal_fill = _overwrite("normal_fill", "NormalBackward0")
bernoulli_fill = _overwrite("bernoulli_fill", "BernoulliBackward2")
exponential_fill = _overwrite("exponential_fill", "ExponentialBackward0")
random_fill = _overwrite("random_fill", "RandomBackward0")
cauchy_fill = _overwrite("cauchy_fill", "CauchyBackward0")
log_normal_fill = _overwrite("log_normal_fill", "LogNormalBackward0")
geometric_fill = _overwrite("geometric_fill", "GeometricBackward0")
bernoulli_draw = _overwrite("bernoulli_draw", "BernoulliBackward0")  # symgrad.bernoulli(x)
