"""PyTorch spellings of the pointwise ops (see symgrad.torch_api): trigonometric, hyperbolic,
logarithmic and error functions, ``atan2``, ``maximum``/``minimum``, ``clamp``, the rounding
functions, and the activations of ``symgrad.nn.functional`` (imported there).

Every function checks its arguments as PyTorch does, before anything runs; the op rules
(forward, VJP, conventions at kinks) are in ``symgrad.ops.elementwise``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.autograd.graph import named_node
from symgrad.dispatch import apply_inplace, apply_op, output_shape_error
from symgrad.numeric import dtypes
from symgrad.numeric import numpy_namespace as _xp
from symgrad.numeric.dtypes import float64 as _float64
from symgrad.tensor import Tensor, _make
from symgrad.torch_api.arguments import check_ints, checked_number, result_dtype
from symgrad.torch_api.arguments import operand as _operand
from symgrad.torch_api.arguments import scalar as _scalar
from symgrad.torch_api.declaration import COMPOSITE, NO_GRAPH, torch_api  # noqa: F401
from symgrad.torch_api.reductions import result_type

_ew = ops.elementwise


def _tensor(value: Any, fn: str, arg: str = "input", position: int = 1) -> Tensor:
    """``value`` if it is a Tensor, else PyTorch's TypeError for argument ``arg`` of ``fn``."""
    return parser.tensor_arg(fn, arg, value, position)


def _floating(x: Tensor, kernel: str, *others: Tensor) -> None:
    """Refuse an integer or bool dtype, as PyTorch's floating-only CPU ``kernel`` does: ``x``'s,
    or with ``others`` their common one (int16 with float16 is float16, and runs; int8 with uint8
    is int16, refused)."""
    common = result_dtype(x, *others) if others else x.dtype
    if not common.is_floating_point:
        raise dtypes.not_implemented(kernel, common)


# ---------------------------------------------------------------- unary functions
def _pointwise(name: str, op: ops.Op, doc: str, aliases: tuple[str, ...] = (),
               bool_kernel: str | None = None, float_kernel: str | None = None,
               unit_domain: bool = False, inplace_op: ops.Op | None = None) -> None:
    """Install ``name(input)`` (Tensor method and ``symgrad`` function) and its in-place
    ``name_`` for the unary ``op``; ``bool_kernel``/``float_kernel`` name the PyTorch kernel
    that refuses bool / non-floating inputs; ``unit_domain`` makes the registry's examples
    call it inside [-1, 1]; ``inplace_op`` is what ``name_`` records, when PyTorch names its
    node otherwise (default ``op``)."""
    inplace_op = inplace_op or op

    def check(x: Any, fn: str) -> Tensor:
        _tensor(x, fn)
        if float_kernel is not None:
            _floating(x, float_kernel)
        elif bool_kernel is not None and x._value.dtype.kind == "b":
            raise dtypes.not_implemented(bool_kernel, dtypes.bool_)
        return x

    def function(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return apply_op(op, check(input, name))

    def inplace(input: Tensor) -> Tensor:  # noqa: A002
        return apply_inplace(inplace_op, check(input, name + "_"))

    function.__name__ = function.__qualname__ = name
    inplace.__name__ = inplace.__qualname__ = name + "_"
    function.__doc__ = doc
    example = example_ = None
    if unit_domain:
        example = lambda x: function(x / 10)  # noqa: E731
        example_ = lambda x: inplace(x.div_(10))  # noqa: E731
    torch_api(records=op.name, aliases=aliases, example=example)(function)
    torch_api(records=inplace_op.name, aliases=tuple(a + "_" for a in aliases), inplace=True,
              example=example_)(inplace)


_pointwise("tan", _ew.tan, """Elementwise tangent (``TanBackward0``).

    >>> symgrad.tan(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 1.5574])
    """)
_pointwise("asin", _ew.asin, """Elementwise arcsine (``AsinBackward0``); alias ``arcsin``.
    Its gradient is inf at -1 and 1.

    >>> symgrad.asin(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 1.5708])
    """, aliases=("arcsin",), unit_domain=True)
_pointwise("acos", _ew.acos, """Elementwise arccosine (``AcosBackward0``); alias ``arccos``.

    >>> symgrad.acos(symgrad.tensor([1.0, 0.0]))
    tensor([0.0000, 1.5708])
    """, aliases=("arccos",), unit_domain=True)
_pointwise("atan", _ew.atan, """Elementwise arctangent (``AtanBackward0``); alias ``arctan``.

    >>> symgrad.atan(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7854])
    """, aliases=("arctan",))
_pointwise("sinh", _ew.sinh, """Elementwise hyperbolic sine (``SinhBackward0``).

    >>> symgrad.sinh(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 1.1752])
    """)
_pointwise("cosh", _ew.cosh, """Elementwise hyperbolic cosine (``CoshBackward0``).

    >>> symgrad.cosh(symgrad.tensor([0.0, 1.0]))
    tensor([1.0000, 1.5431])
    """)
_pointwise("log1p", _ew.log1p, """Elementwise ``log(1 + x)``, accurate for small x
    (``Log1PBackward0``).

    >>> symgrad.log1p(symgrad.tensor([0.0, 1e-10]))
    tensor([0.0000e+00, 1.0000e-10])
    """)
_pointwise("expm1", _ew.expm1, """Elementwise ``exp(x) - 1``, accurate for small x
    (``Expm1Backward0``).

    >>> symgrad.expm1(symgrad.tensor([0.0, 1e-10]))
    tensor([0.0000e+00, 1.0000e-10])
    """)
_pointwise("log2", _ew.log2, """Elementwise base-2 logarithm (``Log2Backward0``).

    >>> symgrad.log2(symgrad.tensor([1.0, 8.0]))
    tensor([0., 3.])
    """)
_pointwise("log10", _ew.log10, """Elementwise base-10 logarithm (``Log10Backward0``).

    >>> symgrad.log10(symgrad.tensor([1.0, 100.0]))
    tensor([0., 2.])
    """)
_pointwise("exp2", _ew.exp2, """Elementwise ``2 ** x`` (``Exp2Backward0``).

    >>> symgrad.exp2(symgrad.tensor([-1.0, 3.0]))
    tensor([0.5000, 8.0000])
    """)
_pointwise("erf", _ew.erf, """Elementwise error function (``ErfBackward0``).

    >>> symgrad.erf(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8427])
    """)
_pointwise("rsqrt", _ew.rsqrt, """Elementwise ``1 / sqrt(x)`` (``RsqrtBackward0``).

    >>> symgrad.rsqrt(symgrad.tensor([4.0, 0.25]))
    tensor([0.5000, 2.0000])
    """)
_pointwise("floor", _ew.floor, """Elementwise floor; integer tensors keep their dtype. Its
    gradient is zero (``FloorBackward0``).

    >>> symgrad.floor(symgrad.tensor([-1.5, 1.5]))
    tensor([-2.,  1.])
    """, bool_kernel="floor_vml_cpu")
_pointwise("ceil", _ew.ceil, """Elementwise ceiling; its gradient is zero (``CeilBackward0``).

    >>> symgrad.ceil(symgrad.tensor([-1.5, 1.5]))
    tensor([-1.,  2.])
    """, bool_kernel="ceil_vml_cpu")
_pointwise("trunc", _ew.trunc, """Elementwise rounding toward zero; alias ``fix``. Its
    gradient is zero (``TruncBackward0``).

    >>> symgrad.trunc(symgrad.tensor([-1.5, 1.5]))
    tensor([-1.,  1.])
    """, aliases=("fix",), bool_kernel="trunc_vml_cpu")
_pointwise("frac", _ew.frac, """Elementwise fractional part ``x - trunc(x)``, with the sign of
    x; its gradient is 1 (``FracBackward0``).

    >>> symgrad.frac(symgrad.tensor([-1.5, 2.25]))
    tensor([-0.5000,  0.2500])
    """, float_kernel="frac_cpu")


def _round(run: Any, input: Tensor, decimals: int | None, fn: str) -> Tensor:  # noqa: A002
    _tensor(input, fn)
    if decimals is None:
        if input._value.dtype.kind == "b":
            raise dtypes.not_implemented("round_vml_cpu", dtypes.bool_)
        return run(_ew.round, input)
    _floating(input, "round_cpu")
    return run(_ew.round_decimals, input, decimals=int(decimals))


@torch_api(records="round")
def round(input: Tensor, *, decimals: int | None = None) -> Tensor:  # noqa: A001,A002
    """Round half to even, to ``decimals`` decimal places if given (negative: to tens,
    hundreds ...). Its gradient is zero (``RoundBackward0``; ``RoundBackward1`` with decimals).

    >>> symgrad.round(symgrad.tensor([0.5, 1.5, 2.5]))
    tensor([0., 2., 2.])
    >>> symgrad.round(symgrad.tensor([1.25, 123.0]), decimals=-1)
    tensor([  0., 120.])
    """
    return _round(apply_op, input, decimals, "round")


@torch_api(records="round", inplace=True)
def round_(input: Tensor, *, decimals: int | None = None) -> Tensor:  # noqa: A002
    """In-place :func:`round`."""
    return _round(apply_inplace, input, decimals, "round_")


# ---------------------------------------------------------------- binary functions
@torch_api(records="atan2", aliases=("arctan2",), example=lambda x: x.atan2(x * 0.5 - 2))
def atan2(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The angle of the point ``(other, input)``: ``atan(input / other)`` in the right
    quadrant (``Atan2Backward0``; its gradient at the origin is 0). Alias ``arctan2``.

    >>> symgrad.atan2(symgrad.tensor([1.0, 1.0]), symgrad.tensor([1.0, -1.0]))
    tensor([0.7854, 2.3562])
    """
    return apply_op(_ew.atan2, _tensor(input, "atan2"), _tensor(other, "atan2", "other", 2))


@torch_api(records="atan2", function=False, aliases=("arctan2_",), inplace=True,
           example=lambda x: x.atan2_(x * 0.5 - 2))
def atan2_(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """In-place :func:`atan2`."""
    return apply_inplace(_ew.atan2, input, _tensor(other, "atan2_", "other", 1))


def _binary(name: str, op: ops.Op, doc: str, floating: bool = False) -> None:
    """Install ``name(input, other)`` for a binary op that takes two tensors (``floating``:
    PyTorch's kernel is compiled for floating-point dtypes only, see :func:`_float_binary`)."""

    def function(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
        if floating:
            return _float_binary(op, name, input, other)
        _tensor(input, name)
        _tensor(other, name, "other", 2)
        return apply_op(op, input, other)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    torch_api(records=op.name, example=lambda x: getattr(x, name)(4 - x))(function)


_binary("maximum", _ew.maximum, """Elementwise maximum of two tensors, with broadcasting; nan
    wins. At ties the gradient is split half and half between the inputs, as in PyTorch
    (``MaximumBackward0``).

    >>> symgrad.maximum(symgrad.tensor([1.0, 5.0]), symgrad.tensor([3.0, 2.0]))
    tensor([3., 5.])
    """)
_binary("minimum", _ew.minimum, """Elementwise minimum of two tensors, with broadcasting; nan
    wins; ties split the gradient half and half (``MinimumBackward0``).

    >>> symgrad.minimum(symgrad.tensor([1.0, 5.0]), symgrad.tensor([3.0, 2.0]))
    tensor([1., 2.])
    """)
_binary("fmax", _ew.fmax, """Elementwise maximum that ignores nan (the other value is taken);
    at ties the gradient goes to ``input`` (``FmaxBackward0``).

    >>> symgrad.fmax(symgrad.tensor([1.0, float("nan")]), symgrad.tensor([3.0, 2.0]))
    tensor([3., 2.])
    """)
_binary("fmin", _ew.fmin, """Elementwise minimum that ignores nan; at ties the gradient goes
    to ``input`` (``FminBackward0``).

    >>> symgrad.fmin(symgrad.tensor([1.0, float("nan")]), symgrad.tensor([3.0, 2.0]))
    tensor([1., 2.])
    """)


# ---------------------------------------------------------------- clamp
def _bound(value: Any) -> Any:
    return value if isinstance(value, Tensor) else _scalar(value)


def _clamp(run: Any, input: Tensor, min: Any, max: Any, fn: str) -> Tensor:  # noqa: A002
    _tensor(input, fn)
    if min is None and max is None:
        raise RuntimeError("symgrad.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if max is None:
            return run(_ew.clamp_tensor_lower, input, min)
        if min is None:
            return run(_ew.clamp_tensor_upper, input, max)
        return run(_ew.clamp_tensor, input, _bound(min), _bound(max))
    params = {name: checked_number(_scalar(bound), input)
              for name, bound in (("min", min), ("max", max)) if bound is not None}
    return run(_ew.clamp, input, **params)


@torch_api(records="clamp", aliases=("clip",), example=lambda x: x.clamp(2, 4))
def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Clamp every element into ``[min, max]``; bounds are numbers or tensors (broadcast),
    either may be None but not both. Alias ``clip``.

    The gradient passes where ``min <= x <= max``, bounds included (``ClampBackward1`` for
    number bounds, ``ClampBackward0`` for tensor bounds, which receive the gradient where they
    are the result); nan stays nan, with zero gradient.

    >>> symgrad.clamp(symgrad.tensor([-2.0, 0.5, 3.0]), min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """
    return _clamp(apply_op, input, min, max, "clamp")


@torch_api(records="clamp", aliases=("clip_",), inplace=True,
           example=lambda x: x.clamp_(2, 4))
def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """In-place :func:`clamp`."""
    return _clamp(apply_inplace, input, min, max, "clamp_")


def _one_bound(run: Any, input: Tensor, bound: Any, fn: str, name: str, scalar_op: ops.Op,
               tensor_op: ops.Op) -> Tensor:  # noqa: A002
    _tensor(input, fn)
    if _operand(bound) is None:
        raise parser.refused_argument((input, bound), 1)
    if isinstance(bound, Tensor):
        return run(tensor_op, input, bound)
    return run(scalar_op, input, **{name: checked_number(_scalar(bound), input)})


@torch_api(records="clamp_min", example=lambda x: x.clamp_min(3))
def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    """``clamp(input, min=min)``, recorded as ``ClampMinBackward0`` (number) or
    ``ClampMinBackward1`` (tensor).

    >>> symgrad.clamp_min(symgrad.tensor([-1.0, 2.0]), 0.0)
    tensor([0., 2.])
    """
    return _one_bound(apply_op, input, min, "clamp_min", "min", _ew.clamp_min,
                      _ew.clamp_min_tensor)


@torch_api(records="clamp_min", inplace=True, example=lambda x: x.clamp_min_(3))
def clamp_min_(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    """In-place :func:`clamp_min`."""
    return _one_bound(apply_inplace, input, min, "clamp_min_", "min", _ew.clamp_min,
                      _ew.clamp_min_tensor)


@torch_api(records="clamp_max", example=lambda x: x.clamp_max(3))
def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    """``clamp(input, max=max)``, recorded as ``ClampMaxBackward0`` (number) or
    ``ClampMaxBackward1`` (tensor).

    >>> symgrad.clamp_max(symgrad.tensor([-1.0, 2.0]), 0.0)
    tensor([-1.,  0.])
    """
    return _one_bound(apply_op, input, max, "clamp_max", "max", _ew.clamp_max,
                      _ew.clamp_max_tensor)


@torch_api(records="clamp_max", inplace=True, example=lambda x: x.clamp_max_(3))
def clamp_max_(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    """In-place :func:`clamp_max`."""
    return _one_bound(apply_inplace, input, max, "clamp_max_", "max", _ew.clamp_max,
                      _ew.clamp_max_tensor)


# ---------------------------------------------------------------- activations (nn.functional)
# Not Tensor methods nor symgrad.<name> functions in PyTorch: symgrad.nn.functional imports them.
def _run(inplace: bool) -> Any:
    return apply_inplace if inplace else apply_op


@torch_api(records="relu", method=False, function=False)
def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """max(x, 0); the gradient at 0 is 0 (``ReluBackward0``).

    >>> F.relu(symgrad.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    _tensor(input, "relu")
    return input.relu_() if inplace else input.relu()


@torch_api(records="relu", method=False, function=False, inplace=True)
def relu_(input: Tensor) -> Tensor:  # noqa: A002
    """In-place :func:`relu`."""
    return _tensor(input, "relu_").relu_()


@torch_api(records="sigmoid", method=False, function=False)
def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """The logistic function ``1 / (1 + exp(-x))`` (``SigmoidBackward0``).

    >>> F.sigmoid(symgrad.tensor([0.0]))
    tensor([0.5000])
    """
    return _tensor(input, "sigmoid").sigmoid()


@torch_api(records="tanh", method=False, function=False)
def tanh(input: Tensor) -> Tensor:  # noqa: A002
    """Hyperbolic tangent (``TanhBackward0``).

    >>> F.tanh(symgrad.tensor([0.0]))
    tensor([0.])
    """
    return _tensor(input, "tanh").tanh()


@torch_api(records="hardtanh", method=False, function=False)
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,  # noqa: A002
             inplace: bool = False) -> Tensor:
    """Clamp into ``[min_val, max_val]``. Unlike :func:`symgrad.clamp`, the gradient is 0 at
    the bounds themselves (``HardtanhBackward0``).

    >>> F.hardtanh(symgrad.tensor([-2.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    _tensor(input, "hardtanh")
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    check_ints(min_val, max_val)
    if input._value.dtype.kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    return _run(inplace)(_ew.hardtanh, input, min_val=min_val, max_val=max_val)


@torch_api(records="hardtanh", method=False, function=False, inplace=True)
def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:  # noqa: A002
    """In-place :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, inplace=True)


@torch_api(records="hardtanh", method=False, function=False)
def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``min(max(x, 0), 6)``: :func:`hardtanh` on ``[0, 6]`` (``HardtanhBackward0``).

    >>> F.relu6(symgrad.tensor([-1.0, 3.0, 7.0]))
    tensor([0., 3., 6.])
    """
    _tensor(input, "relu6")
    return hardtanh(input, 0.0, 6.0, inplace)


@torch_api(records="leaky_relu", method=False, function=False)
def leaky_relu(input: Tensor, negative_slope: float = 0.01,  # noqa: A002
               inplace: bool = False) -> Tensor:
    """``x`` where x > 0, else ``negative_slope * x``; the gradient at 0 is
    ``negative_slope`` (``LeakyReluBackward0``; in place ``LeakyReluBackward1``, which refuses
    a negative slope at backward, as in PyTorch).

    >>> F.leaky_relu(symgrad.tensor([-2.0, 3.0]), 0.1)
    tensor([-0.2000,  3.0000])
    """
    _tensor(input, "leaky_relu")
    check_ints(negative_slope)
    _floating(input, "leaky_relu_cpu")
    op = _ew.leaky_relu_result if inplace else _ew.leaky_relu
    return _run(inplace)(op, input, negative_slope=negative_slope)


@torch_api(records="leaky_relu_result", method=False, function=False, inplace=True)
def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    """In-place :func:`leaky_relu`."""
    return leaky_relu(input, negative_slope, inplace=True)


@torch_api(records="elu", method=False, function=False)
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x`` where x > 0, else ``alpha * (exp(x) - 1)``; the gradient at 0 is ``alpha``
    (``EluBackward0``; in place ``EluBackward1``, which refuses a negative alpha at backward).

    >>> F.elu(symgrad.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.0000])
    """
    _tensor(input, "elu")
    check_ints(alpha)
    _floating(input, "elu_cpu")
    op = _ew.elu_result if inplace else _ew.elu
    return _run(inplace)(op, input, alpha=alpha)


@torch_api(records="elu_result", method=False, function=False, inplace=True)
def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """In-place :func:`elu`."""
    return elu(input, alpha, inplace=True)


@torch_api(records="gelu", method=False, function=False)
def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    """``x * Phi(x)`` with Phi the standard normal CDF (through erf), or PyTorch's tanh
    approximation when ``approximate='tanh'`` (``GeluBackward0``).

    >>> F.gelu(symgrad.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
    """
    _tensor(input, "gelu")
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating(input, "GeluKernelImpl")
    return apply_op(_ew.gelu, input, approximate=approximate)


@torch_api(records="silu", method=False, function=False)
def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x * sigmoid(x)`` (swish; ``SiluBackward0``).

    >>> F.silu(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7311])
    """
    _tensor(input, "silu")
    _floating(input, "silu_cpu")
    return _run(inplace)(_ew.silu, input)


@torch_api(records="softplus", method=False, function=False)
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    """``log(1 + exp(beta * x)) / beta``, and exactly ``x`` where ``beta * x > threshold``
    (``SoftplusBackward0``).

    >>> F.softplus(symgrad.tensor([0.0, 30.0]))
    tensor([ 0.6931, 30.0000])
    """
    _tensor(input, "softplus")
    check_ints(beta, threshold)
    _floating(input, "softplus_cpu")
    return apply_op(_ew.softplus, input, beta=beta, threshold=threshold)


# ---------------------------------------------------------------- special functions and friends
_pointwise("erfc", _ew.erfc, """Elementwise complementary error function ``1 - erf(x)``,
    accurate where erf is near 1 (``ErfcBackward0``).

    >>> symgrad.erfc(symgrad.tensor([0.0, 5.0]))
    tensor([1.0000e+00, 1.5375e-12])
    """)
_pointwise("sinc", _ew.sinc, """Elementwise normalized sinc ``sin(pi x) / (pi x)``, 1 at 0
    (``SincBackward0``).

    >>> symgrad.sinc(symgrad.tensor([0.0, 0.5]))
    tensor([1.0000, 0.6366])
    """)
_pointwise("sgn", _ew.sgn, """Elementwise sign (for real tensors, :func:`sign` recorded as
    ``SgnBackward0``); its gradient is zero.

    >>> symgrad.sgn(symgrad.tensor([-2.0, 0.0, 3.0]))
    tensor([-1.,  0.,  1.])
    """)


@torch_api("angle")
def angle(self) -> Tensor:
    """The argument of each element as a complex number: ``pi`` where it is negative, 0
    elsewhere, nan kept; integers and bools give the default float dtype
    (``AngleBackward0``, whose gradient is zero).

    >>> symgrad.tensor([-2.0, 0.0, 3.0]).angle()
    tensor([3.1416, 0.0000, 0.0000])
    """
    return apply_op(_ew.angle, self)


_pointwise("deg2rad", _ew.deg2rad, """Degrees to radians, ``x * pi / 180``
    (``Deg2RadBackward0``).

    >>> symgrad.deg2rad(symgrad.tensor([180.0, 90.0]))
    tensor([3.1416, 1.5708])
    """)
_pointwise("rad2deg", _ew.rad2deg, """Radians to degrees, ``x * 180 / pi``
    (``Rad2DegBackward0``).

    >>> symgrad.rad2deg(symgrad.tensor([3.141592653589793]))
    tensor([180.])
    """)


_pointwise("lgamma", _ew.lgamma, """Elementwise ``log|Γ(x)|``, inf at the poles 0, -1, -2 ...
    (``LgammaBackward0``; its derivative is :func:`digamma`).

    >>> symgrad.lgamma(symgrad.tensor([0.5, 1.0, 10.0]))
    tensor([ 0.5724,  0.0000, 12.8018])
    """)
_pointwise("digamma", _ew.digamma, """Elementwise ``Γ'(x)/Γ(x)``: -inf at 0 and nan at the
    negative integers, as PyTorch (``DigammaBackward0``; its derivative is
    ``polygamma(1, x)``).

    >>> symgrad.digamma(symgrad.tensor([1.0, 0.5]))
    tensor([-0.5772, -1.9635])
    """)
_pointwise("erfinv", _ew.erfinv, """Elementwise inverse of :func:`erf`: ±inf at ±1 and nan
    outside [-1, 1] (``ErfinvBackward0``).

    >>> symgrad.erfinv(symgrad.tensor([0.0, 0.5, 1.0]))
    tensor([0.0000, 0.4769,    inf])
    """, unit_domain=True)

_pointwise("i0", _ew.i0, """Elementwise modified Bessel function of the first kind of order
    zero, ``I0(x) = Σ (x/2)^2k / k!²`` (``I0Backward0``; its derivative is ``special.i1``).
    Like PyTorch's it is inf where ``e^|x|`` overflows and nan at ±inf.

    >>> symgrad.i0(symgrad.tensor([0.0, 1.0, -2.0]))
    tensor([1.0000, 1.2661, 2.2796])
    """)


def _polygamma_order(n: Any, fn: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(f"{fn}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return int(n)


@torch_api(records="polygamma", method=False, example=lambda x: polygamma(1, x.abs() + 0.5))
def polygamma(n: int, input: Tensor) -> Tensor:  # noqa: A002
    """The ``n``-th derivative of :func:`digamma` elementwise (``PolygammaBackward0``; its
    derivative is ``polygamma(n + 1, x)``).

    >>> symgrad.polygamma(1, symgrad.tensor([1.0, 2.5]))
    tensor([1.6449, 0.4904])
    """
    n = _polygamma_order(n, "polygamma")
    _tensor(input, "polygamma", position=2)
    return apply_op(_ew.polygamma, input, n=n)


@torch_api(records="polygamma", function=False, name="polygamma",
           example=lambda x: (x.abs() + 0.5).polygamma(2))
def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """``polygamma(n, self)``.

    >>> symgrad.tensor([2.5]).polygamma(1)
    tensor([0.4904])
    """
    return apply_op(_ew.polygamma, self, n=_polygamma_order(n, "polygamma"))


@torch_api(records="polygamma", function=False, inplace=True,
           example=lambda x: x.abs_().add_(0.5).polygamma_(1))
def polygamma_(self: Tensor, n: int) -> Tensor:
    """In-place ``polygamma(n, self)``.

    >>> x = symgrad.tensor([1.0, 2.5])
    >>> x.polygamma_(1)
    tensor([1.6449, 0.4904])
    """
    return apply_inplace(_ew.polygamma, self, n=_polygamma_order(n, "polygamma_"))


@torch_api(records="logit", example=lambda x: (x / 5 + 0.5).logit())
def logit(input: Tensor, eps: float | None = None) -> Tensor:  # noqa: A002
    """``log(x / (1 - x))``, the inverse of sigmoid; with ``eps``, x is first clamped into
    ``[eps, 1 - eps]`` and the gradient is 0 beyond (``LogitBackward0``).

    >>> symgrad.logit(symgrad.tensor([0.25, 0.5]))
    tensor([-1.0986,  0.0000])
    >>> symgrad.logit(symgrad.tensor([0.0, 0.5]), eps=0.1)
    tensor([-2.1972,  0.0000])
    """
    _tensor(input, "logit")
    return apply_op(_ew.logit, input, **({} if eps is None else {"eps": _scalar(eps)}))


@torch_api(records="logit", inplace=True, example=lambda x: (x.div_(5).add_(0.5)).logit_())
def logit_(input: Tensor, eps: float | None = None) -> Tensor:  # noqa: A002
    """In-place :func:`logit`."""
    _tensor(input, "logit_")
    return apply_inplace(_ew.logit, input, **({} if eps is None else {"eps": _scalar(eps)}))


def _xlogy_operands(input: Any, other: Any, fn: str) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``xlogy``'s operands as tensors: either may be a Python number, not both."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"{fn}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one "
                        "of:\n * (Tensor input, Tensor other)\n * (Number self, Tensor other)"
                        "\n * (Tensor input, Number other)")
    return _operand(input, call=(input, other)), _operand(other, call=(input, other))


def _xlogy_named(out: Tensor, input: Any, other: Any,  # noqa: A002
                 stem: str = "Xlogy") -> Tensor:
    """PyTorch's node for a number operand of xlogy (or ``special.xlog1py``, ``stem``
    ``SpecialXlog1Py``): ``<stem>Backward1`` for a number ``input``, ``2`` for a number
    ``other``."""
    if not isinstance(input, Tensor):
        return named_node(out, f"{stem}Backward1")
    return out if isinstance(other, Tensor) else named_node(out, f"{stem}Backward2")


@torch_api(records="xlogy", example=lambda x: x.xlogy(x.abs() + 0.5))
def xlogy(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``input * log(other)``, and 0 where ``input == 0`` (unless ``other`` is nan), with
    broadcasting; either may be a Python number (``XlogyBackward0``; ``1`` for a number
    ``input``, ``2`` for a number ``other``).

    >>> symgrad.xlogy(symgrad.tensor([0.0, 2.0]), symgrad.tensor([0.0, 4.0]))
    tensor([0.0000, 2.7726])
    """
    return _xlogy_named(apply_op(_ew.xlogy, *_xlogy_operands(input, other, "xlogy")), input,
                        other)


@torch_api(records="xlogy", function=False, inplace=True,
           example=lambda x: x.xlogy_(x.abs() + 0.5))
def xlogy_(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    """In-place :func:`xlogy`."""
    return _xlogy_named(apply_inplace(_ew.xlogy, *_xlogy_operands(input, other, "xlogy_")),
                        input, other)


def _float_binary(op: ops.Op, fn: str, input: Any, other: Any,  # noqa: A002
                  inplace: bool = False) -> Tensor:
    """``op`` of two tensors (``input`` in place with ``inplace``), refused as PyTorch's
    ``<op>_cpu`` kernel refuses a common dtype that is not floating point."""
    _tensor(input, fn)
    _tensor(other, fn, "other", 2)
    _floating(input, f"{op.name}_cpu", other)
    return (apply_inplace if inplace else apply_op)(op, input, other)


@torch_api(records="hypot", example=lambda x: x.hypot(x + 3))
def hypot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``sqrt(input**2 + other**2)`` elementwise, without overflow in the squares
    (``HypotBackward0``).

    >>> symgrad.hypot(symgrad.tensor([3.0, 5.0]), symgrad.tensor([4.0, 12.0]))
    tensor([ 5., 13.])
    """
    return _float_binary(_ew.hypot, "hypot", input, other)


@torch_api(records="hypot", function=False, inplace=True, example=lambda x: x.hypot_(x + 3))
def hypot_(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """In-place :func:`hypot`."""
    return _float_binary(_ew.hypot, "hypot_", input, other, inplace=True)


@torch_api(records="nextafter", example=lambda x: x.nextafter(x + 1))
def nextafter(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The next floating-point value after ``input`` towards ``other`` (``NextafterBackward0``:
    the gradient passes to ``input``, ``other`` gets 0, as PyTorch's).

    >>> symgrad.nextafter(symgrad.tensor([1.0], dtype=symgrad.float64),
    ...                   symgrad.tensor([2.0], dtype=symgrad.float64)).item() - 1
    2.220446049250313e-16
    """
    return _float_binary(_ew.nextafter, "nextafter", input, other)


@torch_api(records="nextafter", function=False, inplace=True,
           example=lambda x: x.nextafter_(x.detach() + 1))
def nextafter_(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """In-place :func:`nextafter`.

    >>> symgrad.tensor([1.0, 2.0]).nextafter_(symgrad.tensor([1.0, 0.0])).tolist()
    [1.0, 1.9999998807907104]
    """
    return _float_binary(_ew.nextafter, "nextafter_", input, other, inplace=True)


_Frexp = result_type("frexp", ("mantissa", "exponent"), """What :func:`frexp` returns: the
    tuple ``(mantissa, exponent)`` with names (PyTorch's ``torch.return_types.frexp``).

    >>> symgrad.frexp(symgrad.tensor([8.0])).exponent
    tensor([4], dtype=symgrad.int32)
    """, __name__)


@torch_api(records="frexp_mantissa", example=lambda x: x.frexp().mantissa)
def frexp(input: Tensor) -> Any:  # noqa: A002
    """``input = mantissa * 2**exponent``, the mantissa in [0.5, 1) in magnitude (0, inf and nan
    kept, exponent 0) and the exponent int32: the named tuple ``(mantissa, exponent)``; the
    mantissa's gradient is ``g / 2**exponent`` (``FrexpBackward0``).

    >>> symgrad.frexp(symgrad.tensor([8.0, -0.3]))
    symgrad.return_types.frexp(
    mantissa=tensor([ 0.5000, -0.6000]),
    exponent=tensor([ 4, -1], dtype=symgrad.int32))
    """
    _tensor(input, "frexp")
    if not input.is_floating_point():
        raise RuntimeError("symgrad.frexp() only supports floating-point dtypes")
    return _Frexp(apply_op(_ew.frexp_mantissa, input),
                  _make(_xp.frexp_exponent(input._value)))


@torch_api(records="igamma", example=lambda x: (x.abs() + 0.5).igamma(x.abs() + 0.1))
def igamma(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The regularized lower incomplete gamma function ``P(input, other) = γ(a, x) / Γ(a)``
    (``IgammaBackward0``; ``special.gammainc``). Its gradient in ``other`` is ``x^(a-1) e^-x /
    Γ(a)``; PyTorch has none in ``input`` (NotImplementedError).

    >>> symgrad.igamma(symgrad.tensor([0.5, 2.5]), symgrad.tensor([0.1, 2.5]))
    tensor([0.3453, 0.5841])
    """
    return _float_binary(_ew.igamma, "igamma", input, other)


@torch_api(records="igamma", function=False, inplace=True,
           example=lambda x: x.igamma_(x.detach().abs() + 0.1))
def igamma_(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """In-place :func:`igamma`."""
    return _float_binary(_ew.igamma, "igamma_", input, other, inplace=True)


@torch_api(records="igammac", example=lambda x: (x.abs() + 0.5).igammac(x.abs() + 0.1))
def igammac(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P`` computed
    directly where it is small (``IgammacBackward0``; ``special.gammaincc``).

    >>> symgrad.igammac(symgrad.tensor([0.5, 2.5]), symgrad.tensor([0.1, 2.5]))
    tensor([0.6547, 0.4159])
    """
    return _float_binary(_ew.igammac, "igammac", input, other)


@torch_api(records="igammac", function=False, inplace=True,
           example=lambda x: x.igammac_(x.detach().abs() + 0.1))
def igammac_(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """In-place :func:`igammac`."""
    return _float_binary(_ew.igammac, "igammac_", input, other, inplace=True)


@torch_api(records=COMPOSITE, example=lambda x: x.float_power(2))
def float_power(input: Any, exponent: Any) -> Tensor:  # noqa: A002
    """``input ** exponent`` computed in float64 (``ToCopyBackward0`` then ``PowBackward0``).

    >>> symgrad.float_power(symgrad.tensor([1, 2]), 2)
    tensor([1., 4.], dtype=symgrad.float64)
    """
    if _operand(input) is None or _operand(exponent) is None or not isinstance(
            input, Tensor) and not isinstance(exponent, Tensor):
        raise parser.refused_argument((input, exponent), 1)
    if not isinstance(input, Tensor):
        return exponent.to(_float64).__rpow__(input)
    exponent = exponent.to(_float64) if isinstance(exponent, Tensor) else exponent
    return input.to(_float64).pow(exponent)


@torch_api(records=COMPOSITE, function=False, inplace=True,
           example=lambda x: x.float_power_(2))
def float_power_(input: Tensor, exponent: Any) -> Tensor:  # noqa: A002
    """In-place :func:`float_power`, for a float64 tensor only (as PyTorch).

    >>> symgrad.tensor([1.0, 2.0], dtype=symgrad.float64).float_power_(2)
    tensor([1., 4.], dtype=symgrad.float64)
    """
    if _operand(exponent) is None:
        raise parser.refused_argument((input, exponent), 1)
    if input._value.dtype != "float64":
        raise RuntimeError(f"the base given to float_power_ has dtype {input.dtype._torch_name} "
                           "but the operation's result requires dtype Double")
    return input.pow_(exponent)


@torch_api(records=NO_GRAPH)
def signbit(input: Tensor) -> Tensor:  # noqa: A002
    """Whether the sign bit is set (True for -0.0), as a bool tensor; not recorded.

    >>> symgrad.signbit(symgrad.tensor([-0.0, 0.0, -2.0]))
    tensor([ True, False,  True])
    """
    return _make(np.signbit(_tensor(input, "signbit")._value))


@torch_api(records=NO_GRAPH, example=lambda x: x.heaviside(x * 0 + 0.5))
def heaviside(input: Tensor, values: Tensor) -> Tensor:  # noqa: A002
    """The step function: 0 where input < 0, ``values`` where input == 0, 1 where input > 0
    (broadcast); not recorded (PyTorch has no derivative for it).

    >>> symgrad.heaviside(symgrad.tensor([-1.0, 0.0, 2.0]), symgrad.tensor(0.5))
    tensor([0.0000, 0.5000, 1.0000])
    """
    _tensor(input, "heaviside")
    _tensor(values, "heaviside", "values", 2)
    if input._value.dtype != values._value.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes.")
    return _make(np.heaviside(input._value, values._value).astype(input._value.dtype))


@torch_api(records=NO_GRAPH, function=False, inplace=True,
           example=lambda x: x.heaviside_(x * 0 + 0.5))
def heaviside_(self: Tensor, values: Tensor) -> Tensor:
    """In-place :func:`heaviside`.

    >>> symgrad.tensor([-1.0, 0.0, 2.0]).heaviside_(symgrad.tensor(0.5))
    tensor([0.0000, 0.5000, 1.0000])
    """
    _tensor(values, "heaviside_", "values", 2)
    out = heaviside(self, values)
    if out.shape != self.shape:
        raise output_shape_error(self.shape, out.shape)
    return self.copy_(out)
