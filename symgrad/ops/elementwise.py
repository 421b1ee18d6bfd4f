"""Elementwise ops: arithmetic (with Python scalars on either side) and unary functions.

Binary ops broadcast in the forward; their VJPs return cotangents in the broadcast shape and the
engine sums them back to each input's shape (one rule for all). Conventions at non-differentiable
points follow PyTorch: relu'(0) = 0, |x|'(0) = 0, d(x**c)/dx = 0 when c == 0.
"""

from __future__ import annotations

from symgrad.ops import Op, Sample, register

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
    vjp=(lambda xp, g, ans, a, b, alpha=1: g,
         lambda xp, g, ans, a, b, alpha=1: g if alpha == 1 else g * alpha),
    samples=BINARY + (Sample(((3,), (3,)), {"alpha": 2.5}),),
))

sub = register(Op(
    "sub", "SubBackward0",
    forward=_alpha_forward(-1),
    vjp=(lambda xp, g, ans, a, b, alpha=1: g,
         lambda xp, g, ans, a, b, alpha=1: -g if alpha == 1 else g * -alpha),
    samples=BINARY + (Sample(((3,), (3,)), {"alpha": 2.5}),),
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
    vjp=(lambda xp, g, ans, a, b: g * b,
         lambda xp, g, ans, a, b: g * a),
    saved={0: (1,), 1: (0,)},
    samples=BINARY,
))

div = register(Op(
    "div", "DivBackward0",
    forward=lambda xp, a, b: a / b,
    vjp=(lambda xp, g, ans, a, b: g / b,
         lambda xp, g, ans, a, b: -g * a / (b * b)),
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
    forward=lambda xp, a, b: a ** b,
    vjp=(_pow_grad_base, _pow_grad_exponent),
    saved=(0, 1),
    saves_output=True,
    samples=(Sample(((3,), (3,)), **POSITIVE), Sample(((2, 3), (3,)), **POSITIVE),
             Sample(((), (2,)), **POSITIVE)),
))


def _pow_scalar_grad(xp, g, ans, a, exponent):
    if exponent == 0:
        return xp.zeros_like(g)  # zeros, not g * 0: an infinite g must not turn into nan
    # written with a power even for squares: a ** 1 keeps higher derivatives connected to a
    return g * exponent * a ** (exponent - 1)


pow_scalar = register(Op(
    "pow_scalar", "PowBackward0",
    forward=lambda xp, a, exponent: a ** exponent,
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
    forward=lambda xp, a, base: base ** a,
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
    forward=lambda xp, a: 1.0 / a,
    vjp=(lambda xp, g, ans, a: -g * ans * ans,),
    saves_output=True,
    float_only=True,
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in UNARY),
))

exp = register(Op(
    "exp", "ExpBackward0",
    forward=lambda xp, a: xp.exp(a),
    vjp=(lambda xp, g, ans, a: g * ans,),
    saves_output=True,
    float_only=True,
    samples=UNARY,
))

log = register(Op(
    "log", "LogBackward0",
    forward=lambda xp, a: xp.log(a),
    vjp=(lambda xp, g, ans, a: g / a,),
    saved=(0,),
    float_only=True,
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in UNARY),
))

sqrt = register(Op(
    "sqrt", "SqrtBackward0",
    forward=lambda xp, a: xp.sqrt(a),
    vjp=(lambda xp, g, ans, a: g / (2 * ans),),
    saves_output=True,
    float_only=True,
    samples=tuple(Sample(s.shapes, **POSITIVE) for s in UNARY),
))

sin = register(Op(
    "sin", "SinBackward0",
    forward=lambda xp, a: xp.sin(a),
    vjp=(lambda xp, g, ans, a: g * xp.cos(a),),
    saved=(0,),
    float_only=True,
    samples=UNARY,
))

cos = register(Op(
    "cos", "CosBackward0",
    forward=lambda xp, a: xp.cos(a),
    vjp=(lambda xp, g, ans, a: -g * xp.sin(a),),
    saved=(0,),
    float_only=True,
    samples=UNARY,
))

tanh = register(Op(
    "tanh", "TanhBackward0",
    forward=lambda xp, a: xp.tanh(a),
    vjp=(lambda xp, g, ans, a: g * (1 - ans * ans),),
    saves_output=True,
    float_only=True,
    samples=UNARY,
))

sigmoid = register(Op(
    "sigmoid", "SigmoidBackward0",
    forward=lambda xp, a: xp.sigmoid(a),
    vjp=(lambda xp, g, ans, a: g * ans * (1 - ans),),
    saves_output=True,
    float_only=True,
    samples=UNARY,
))

relu = register(Op(
    "relu", "ReluBackward0",
    forward=lambda xp, a: xp.relu(a),
    vjp=(lambda xp, g, ans, a: xp.where(ans > 0, g, 0.0),),  # select, as PyTorch
    saves_output=True,
    samples=tuple(Sample(s.shapes, kinks=(0.0,)) for s in UNARY),
))

abs = register(Op(
    "abs", "AbsBackward0",
    forward=lambda xp, a: xp.abs(a),
    vjp=(lambda xp, g, ans, a: g * xp.sign(a),),
    saved=(0,),
    samples=tuple(Sample(s.shapes, kinks=(0.0,)) for s in UNARY),
))

sign = register(Op(
    "sign", "SignBackward0",
    forward=lambda xp, a: xp.sign(a),
    vjp=(lambda xp, g, ans, a: xp.zeros_like(g),),  # piecewise constant: zero gradient
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
