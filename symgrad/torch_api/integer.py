"""PyTorch spellings of the integer-aware arithmetic (see symgrad.methods): ``div`` with
``rounding_mode``, ``floor_divide`` and ``//``, ``remainder`` and ``%``, ``fmod``, ``copysign``,
the bitwise operators and shifts (``& | ^ ~ << >>``), the logical functions, the
floating-point predicates (``isnan``, ``isclose`` ...), ``logaddexp``, ``lerp`` and
``nan_to_num``, with their operator, reflected and in-place forms.

Integer results follow PyTorch: ``//`` rounds toward minus infinity, ``%`` takes the sign of the
divisor, ``fmod`` the sign of the dividend, and an integer division by zero raises. Float
results are recorded (``RemainderBackward0``/``1``, ``DivBackward2`` ...); ``x // y`` is
recorded, as in PyTorch, by a node whose backward raises. The op rules live in
``symgrad.ops.elementwise``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.dispatch import _broadcast_error, apply_inplace, apply_op, output_shape_error
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make, counter_of
from symgrad.torch_api.arguments import operand as _operand
from symgrad.torch_api.arguments import result_dtype
from symgrad.torch_api.arguments import scalar as _scalar
from symgrad.torch_api.comparison import _compare
from symgrad.torch_api.declaration import NO_GRAPH, torch_api
from symgrad.torch_api.pointwise import _binary, _pointwise, _tensor

_ew = ops.elementwise


def _operands(fn: str, input: Any, other: Any) -> tuple[Any, Any]:  # noqa: A002
    """Tensor-or-number operands of ``fn`` (at least one a Tensor), else PyTorch's TypeError."""
    a, b = _operand(input), _operand(other)
    if a is None or b is None or not (isinstance(a, Tensor) or isinstance(b, Tensor)):
        # (a number and a non-operand: the latter is refused, else the first)
        raise parser.refused_argument((input, other), int(a is not None and b is None))
    return _converted(a, b), _converted(b, a)


def _converted(x: Any, other: Any) -> Any:
    """A Python int operand as PyTorch converts it beside ``other`` (dtypes.int_operand)."""
    if x.__class__ is int and isinstance(other, Tensor):
        return dtypes.int_operand(x, other._value)
    return x


def _value(x: Any) -> Any:
    return x._value if isinstance(x, Tensor) else x


def _check_integer_division(kernel: str, a: Any, b: Any) -> None:
    """PyTorch's errors for an integer division: bool operands, a zero divisor."""
    result = result_dtype(a, b)
    if result is dtypes.bool_:
        raise dtypes.not_implemented(kernel, dtypes.bool_)
    if not result.is_floating_point and np.any(np.asarray(_value(b)) == 0):
        raise RuntimeError("ZeroDivisionError")


def _run(inplace: bool) -> Callable[..., Tensor]:
    return apply_inplace if inplace else apply_op


# ---------------------------------------------------------------- division
_ROUNDING = (None, "trunc", "floor")


def _div(fn: str, input: Any, other: Any, rounding_mode: str | None,  # noqa: A002
         inplace: bool = False) -> Tensor:
    if rounding_mode not in _ROUNDING:
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    a, b = _operands(fn, input, other)
    if rounding_mode is None:
        if not isinstance(a, Tensor):
            return apply_op(_ew.div, _make(np.asarray(a)), b)
        return _run(inplace)(_ew.div, a, b)
    kernel = "div_floor_cpu" if rounding_mode == "floor" else "div_trunc_cpu"
    _check_integer_division(kernel, a, b)
    if not isinstance(a, Tensor):
        a = _make(np.asarray(a, dtype=result_dtype(a, b).np_dtype))
    return _run(inplace)(_ew.div_rounded, a, b, rounding_mode=rounding_mode)


@torch_api("div", aliases=("divide", "true_divide"), example=lambda x: x.div(2.0))
def div(input: Tensor | float, other: Tensor | float, *,  # noqa: A002 - PyTorch's name
        rounding_mode: str | None = None) -> Tensor:
    """Division with broadcasting; either operand may be a Python number. Without
    ``rounding_mode`` true division (integers divide to floats, ``DivBackward0``); with
    ``"trunc"`` or ``"floor"`` the quotient rounded toward zero or down, in the operands' dtype
    (integer division by zero raises; gradient zero, ``DivBackward2``). Aliases ``divide``,
    ``true_divide``.

    >>> symgrad.div(symgrad.tensor([1.0, 3.0]), 2)
    tensor([0.5000, 1.5000])
    >>> symgrad.div(symgrad.tensor([7, -7]), 2, rounding_mode="trunc")
    tensor([ 3, -3])
    >>> symgrad.div(symgrad.tensor([7, -7]), 2, rounding_mode="floor")
    tensor([ 3, -4])
    """
    return _div("div", input, other, rounding_mode)


@torch_api("div", function=False, aliases=("divide_", "true_divide_"), inplace=True,
           example=lambda x: x.div_(2.0))
def div_(self: Tensor, other: Tensor | float, *, rounding_mode: str | None = None) -> Tensor:
    """In-place :func:`div`."""
    return _div("div_", self, other, rounding_mode, inplace=True)


def _floor_divide(fn: str, input: Any, other: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    a, b = _operands(fn, input, other)
    _check_integer_division("div_floor_cpu", a, b)
    if not isinstance(a, Tensor):  # a Python number // a tensor
        a = _make(np.asarray(a, dtype=result_dtype(a, b).np_dtype))
    return _run(inplace)(_ew.floor_divide, a, b)


@torch_api(NO_GRAPH)
def floor_divide(input: Tensor | float, other: Tensor | float) -> Tensor:  # noqa: A002
    """``input // other``: the quotient rounded toward minus infinity, in the operands' dtype
    (``7 // -2 == -4``); integer division by zero raises. PyTorch defines no gradient for it:
    the recorded node (``NotImplemented``) raises in backward; use ``div(rounding_mode=
    "floor")`` for a zero gradient.

    >>> symgrad.floor_divide(symgrad.tensor([7.5, -7.5]), 2)
    tensor([ 3., -4.])
    >>> symgrad.tensor([7, -7, 5]) // symgrad.tensor([2, 2, -3])
    tensor([ 3, -4, -2])
    """
    return _floor_divide("floor_divide", input, other)


@torch_api(NO_GRAPH, function=False, inplace=True)
def floor_divide_(self: Tensor, other: Tensor | float) -> Tensor:
    """In-place :func:`floor_divide` (``x //= y``)."""
    return _floor_divide("floor_divide_", self, other, inplace=True)


def _modulo(fn: str, kernel: str, tensor_op: ops.Op, scalar_op: ops.Op, input: Any,  # noqa: A002
            other: Any, inplace: bool = False) -> Tensor:
    a, b = _operands(fn, input, other)
    _check_integer_division(kernel, a, b)
    if not isinstance(a, Tensor):  # a Python number % a tensor: not differentiable in PyTorch
        return apply_op(_ew.rremainder, b, other=a)
    if isinstance(b, Tensor):
        return _run(inplace)(tensor_op, a, b)
    return _run(inplace)(scalar_op, a, other=b)


@torch_api("remainder", example=lambda x: x.remainder(x * 0 + 1.5))
def remainder(input: Tensor | float, other: Tensor | float) -> Tensor:  # noqa: A002
    """``input % other`` with the sign of ``other`` (Python's modulo): ``-7 % 2 == 1``. The
    gradient is ``g`` for ``input`` and ``-g * floor(input / other)`` for a tensor ``other``
    (``RemainderBackward1``; ``RemainderBackward0`` for a number ``other``).

    >>> symgrad.remainder(symgrad.tensor([-1.5, 2.5]), 2)
    tensor([0.5000, 0.5000])
    >>> symgrad.tensor([7, -7, 5, -5]) % symgrad.tensor([2, 2, -3, -3])
    tensor([ 1,  1, -1, -2])
    """
    return _modulo("remainder", "remainder_cpu", _ew.remainder, _ew.remainder_scalar, input,
                   other)


@torch_api("remainder", function=False, inplace=True, example=lambda x: x.remainder_(x * 0 + 1.5))
def remainder_(self: Tensor, other: Tensor | float) -> Tensor:
    """In-place :func:`remainder` (``x %= y``)."""
    return _modulo("remainder_", "remainder_cpu", _ew.remainder, _ew.remainder_scalar, self,
                   other, inplace=True)


@torch_api("fmod", example=lambda x: x.fmod(x * 0 + 1.5))
def fmod(input: Tensor, other: Tensor | float) -> Tensor:  # noqa: A002
    """C's ``fmod``: the remainder with the sign of ``input`` (``fmod(-7, 2) == -1``). The
    gradient is ``g`` for ``input`` and ``-g * trunc(input / other)`` for a tensor ``other``
    (``FmodBackward1``; ``FmodBackward0`` for a number).

    >>> symgrad.fmod(symgrad.tensor([7, -7, 5, -5]), symgrad.tensor([2, 2, -3, -3]))
    tensor([ 1, -1,  2, -2])
    """
    _tensor(input, "fmod")
    return _modulo("fmod", "fmod_cpu", _ew.fmod, _ew.fmod_scalar, input, other)


@torch_api("fmod", function=False, inplace=True, example=lambda x: x.fmod_(x * 0 + 1.5))
def fmod_(self: Tensor, other: Tensor | float) -> Tensor:
    """In-place :func:`fmod`."""
    return _modulo("fmod_", "fmod_cpu", _ew.fmod, _ew.fmod_scalar, self, other, inplace=True)


def _copysign(fn: str, input: Any, other: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    _tensor(input, fn)
    a, b = _operands(fn, input, other)
    if isinstance(b, Tensor):
        return _run(inplace)(_ew.copysign, a, b)
    return _run(inplace)(_ew.copysign_scalar, a, other=float(b))


@torch_api("copysign", example=lambda x: x.copysign(1.5 - x))
def copysign(input: Tensor, other: Tensor | float) -> Tensor:  # noqa: A002
    """``|input|`` with the sign of ``other`` (``-0.0`` counts as negative); integers give
    floats. The gradient is ``g * sign`` and 0 where ``input == 0`` (``CopysignBackward0``,
    ``CopysignBackward1`` for a number ``other``).

    >>> symgrad.copysign(symgrad.tensor([1.0, -2.0, 3.0]), symgrad.tensor([-1.0, 1.0, -0.0]))
    tensor([-1.,  2., -3.])
    """
    return _copysign("copysign", input, other)


@torch_api("copysign", function=False, inplace=True, example=lambda x: x.copysign_(x * 0 - 1))
def copysign_(self: Tensor, other: Tensor | float) -> Tensor:
    """In-place :func:`copysign`."""
    return _copysign("copysign_", self, other, inplace=True)


# ---------------------------------------------------------------- bitwise and shifts
def _shift(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    """``a << b`` / ``a >> b`` in int64 as PyTorch computes it: shifts out of [0, 64) give 0
    (left) or the sign (right)."""
    b = np.asarray(b)
    inside = (b >= 0) & (b < 64)
    amount = np.where(inside, b, 0)
    if left:
        return np.where(inside, np.left_shift(a, amount), 0)
    return np.where(inside, np.right_shift(a, amount), np.where(np.asarray(a) < 0, -1, 0))


_BITWISE = {
    "bitwise_and": (np.bitwise_and, "bitwise_and_cpu"),
    "bitwise_or": (np.bitwise_or, "bitwise_or_cpu"),
    "bitwise_xor": (np.bitwise_xor, "bitwise_xor_cpu"),
    "bitwise_left_shift": (lambda a, b: _shift(a, b, True), "lshift_cpu"),
    "bitwise_right_shift": (lambda a, b: _shift(a, b, False), "rshift_cpu"),
}


def _bitwise(name: str, input: Any, other: Any, inplace: bool = False) -> Any:  # noqa: A002
    """``name`` of two integer or bool operands (at least one a Tensor), not recorded."""
    fn, kernel = _BITWISE[name]
    a, b = _operand(input), _operand(other)
    if a is None or b is None:
        return NotImplemented
    a, b = _converted(a, b), _converted(b, a)
    result = result_dtype(a, b)
    if inplace and not dtypes.can_cast(result, input.dtype):  # (PyTorch checks this first)
        raise RuntimeError(f"result type {result._torch_name} can't be cast to the desired "
                           f"output type {input.dtype._torch_name}")
    if result.is_floating_point or ("shift" in name and result is dtypes.bool_):
        raise dtypes.not_implemented(kernel, result)
    av = np.asarray(_value(a), dtype=result.np_dtype)
    bv = np.asarray(_value(b), dtype=result.np_dtype)
    if inplace:
        try:
            input._value[...] = fn(av, bv)
        except ValueError:
            raise RuntimeError(_broadcast(av, bv)) from None
        counter_of(input).value += 1
        return input
    if name in ("bitwise_and", "bitwise_or", "bitwise_xor") and isinstance(a, Tensor):
        out = _compare(a, b, fn)  # keeps how a mask was computed, for lowering
        if out._value.dtype != result.np_dtype:  # (numpy's promotion, not PyTorch's)
            out._value = out._value.astype(result.np_dtype)
        return out
    try:
        return _make(np.asarray(fn(av, bv), dtype=result.np_dtype))
    except ValueError:
        raise RuntimeError(_broadcast(av, bv)) from None


def _broadcast(a: np.ndarray, b: np.ndarray) -> str:
    return _broadcast_error([a, b])


def _install_bitwise(name: str, operator: str, doc: str) -> None:
    def function(input: Tensor | int, other: Tensor | int) -> Tensor:  # noqa: A002
        out = _bitwise(name, input, other)
        if out is NotImplemented:
            raise parser.refused_argument((input, other), 1)
        return out

    def inplace(self: Tensor, other: Tensor | int) -> Tensor:
        out = _bitwise(name, self, other, inplace=True)
        if out is NotImplemented:
            raise parser.refused_argument((self, other), 1)
        return out

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    inplace.__name__ = inplace.__qualname__ = name + "_"
    example = (lambda x: getattr(x.long(), name)(1))  # noqa: E731
    torch_api(NO_GRAPH, example=example)(function)
    torch_api(NO_GRAPH, function=False, inplace=True,
              example=lambda x: getattr(x.long(), name + "_")(1))(inplace)
    def forward(self: Tensor, other: Any) -> Any:
        return _bitwise(name, self, other)

    def reflected(self: Tensor, other: Any) -> Any:
        return _bitwise(name, other, self)

    def augmented(self: Tensor, other: Any) -> Any:
        return _bitwise(name, self, other, inplace=True)

    torch_api(NO_GRAPH, function=False, name=f"__{operator}__")(forward)
    torch_api(NO_GRAPH, function=False, name=f"__r{operator}__")(reflected)
    torch_api(NO_GRAPH, function=False, name=f"__i{operator}__")(augmented)


_install_bitwise("bitwise_and", "and", """Elementwise ``input & other`` of integer or bool
    tensors (``&``); floats raise as in PyTorch.

    >>> symgrad.bitwise_and(symgrad.tensor([12, 10]), symgrad.tensor([10, 6]))
    tensor([8, 2])
    >>> symgrad.tensor([True, True]) & symgrad.tensor([True, False])
    tensor([ True, False])
    """)
_install_bitwise("bitwise_or", "or", """Elementwise ``input | other`` of integer or bool
    tensors (``|``).

    >>> symgrad.bitwise_or(symgrad.tensor([12, 10]), symgrad.tensor([1, 1]))
    tensor([13, 11])
    """)
_install_bitwise("bitwise_xor", "xor", """Elementwise ``input ^ other`` of integer or bool
    tensors (``^``).

    >>> symgrad.bitwise_xor(symgrad.tensor([12, 10]), symgrad.tensor([10, 6]))
    tensor([ 6, 12])
    >>> symgrad.tensor([True, False]) ^ True
    tensor([False,  True])
    """)
_install_bitwise("bitwise_left_shift", "lshift", """Elementwise ``input << other`` of integer
    tensors (``<<``); a shift outside [0, 64) gives 0.

    >>> symgrad.bitwise_left_shift(symgrad.tensor([1, -3]), symgrad.tensor([2, 2]))
    tensor([  4, -12])
    >>> symgrad.tensor([1, -3]) << 2
    tensor([  4, -12])
    """)
_install_bitwise("bitwise_right_shift", "rshift", """Elementwise arithmetic ``input >> other``
    of integer tensors (``>>``), rounding toward minus infinity.

    >>> symgrad.bitwise_right_shift(symgrad.tensor([8, -7]), symgrad.tensor([1, 1]))
    tensor([ 4, -4])
    """)


def _bitwise_not(fn: str, input: Tensor) -> np.ndarray:  # noqa: A002
    _tensor(input, fn)
    if input._value.dtype.kind not in "biu":
        raise dtypes.not_implemented("bitwise_not_cpu", input.dtype)
    return np.invert(input._value)


@torch_api(NO_GRAPH, example=lambda x: x.long().bitwise_not())
def bitwise_not(input: Tensor) -> Tensor:  # noqa: A002
    """Elementwise ``~input`` of an integer (two's complement) or bool tensor.

    >>> symgrad.bitwise_not(symgrad.tensor([0, 5, -1]))
    tensor([-1, -6,  0])
    """
    out = _make(_bitwise_not("bitwise_not", input))
    if input._recipe is not None:  # the negation of a mask computed from graph values
        out._recipe = ("invert", ((input, None),))
    return out


@torch_api(NO_GRAPH, function=False, inplace=True, example=lambda x: x.long().bitwise_not_())
def bitwise_not_(self: Tensor) -> Tensor:
    """In-place :func:`bitwise_not`."""
    self._value[...] = _bitwise_not("bitwise_not_", self)
    counter_of(self).value += 1
    return self


@torch_api(NO_GRAPH, function=False)
def __invert__(self: Tensor) -> Tensor:
    if self._value.dtype.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(self)


# ---------------------------------------------------------------- operators // and %
def _operator(fn: Callable[..., Tensor], name: str, reflected: bool = False,
              example: Callable[[Tensor], Any] | None = None) -> None:
    """Install ``fn`` as the operator ``name`` (NotImplemented for operands it does not take,
    so that Python raises its own TypeError, as with PyTorch)."""
    def method(self: Tensor, other: Any) -> Any:
        if _operand(other) is None:
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)

    torch_api(fn.records, function=False, name=name, inplace=fn.inplace,
              example=example)(method)


_operator(floor_divide, "__floordiv__")
_operator(floor_divide, "__rfloordiv__", reflected=True)
_operator(floor_divide_, "__ifloordiv__")
_operator(remainder, "__mod__", example=lambda x: x % (x * 0 + 1.5))
_operator(remainder, "__rmod__", reflected=True, example=lambda x: x.__rmod__(x * 0 + 7.5))
_operator(remainder_, "__imod__", example=lambda x: x.__imod__(x.detach() * 0 + 1.5))


# ---------------------------------------------------------------- logical functions
def _written_into(self: Tensor, out: Tensor) -> Tensor:
    """``out`` written into ``self`` in its dtype, a new version (an in-place spelling that is
    not recorded), unless ``out`` has a broadcast shape of its own (PyTorch's error)."""
    if out.shape != self.shape:
        raise output_shape_error(self.shape, out.shape)
    self._value[...] = out._value
    counter_of(self).value += 1
    return self


def _logical(name: str, fn: Callable[..., np.ndarray], doc: str) -> None:
    def function(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
        _tensor(input, name)
        _tensor(other, name, "other", 2)
        try:
            return _make(np.asarray(fn(input._value.astype(bool), other._value.astype(bool))))
        except ValueError:
            raise RuntimeError(_broadcast(input._value, other._value)) from None

    def inplace(self: Tensor, other: Tensor) -> Tensor:
        _tensor(other, name + "_", "other", 2)
        return _written_into(self, function(self, other))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    inplace.__name__ = inplace.__qualname__ = name + "_"
    result = fn(np.array([True, False]), np.array([True, True]))
    inplace.__doc__ = f"""In-place :func:`{name}` (1/0 written in the tensor's dtype).

    >>> x = symgrad.tensor([True, False])
    >>> x.{name}_(symgrad.tensor([True, True]))
    {_make(result)!r}
    """
    torch_api(NO_GRAPH, example=lambda x: getattr(x, name)(x > 3))(function)
    torch_api(NO_GRAPH, function=False, inplace=True,
              example=lambda x: getattr(x.detach(), name + "_")(x > 3))(inplace)


_logical("logical_and", np.logical_and, """Elementwise logical and (nonzero is true), as bool.

    >>> symgrad.logical_and(symgrad.tensor([1.0, 0.0, 2.0]), symgrad.tensor([1, 1, 0]))
    tensor([ True, False, False])
    """)
_logical("logical_or", np.logical_or, """Elementwise logical or (nonzero is true), as bool.

    >>> symgrad.logical_or(symgrad.tensor([1.0, 0.0]), symgrad.tensor([0, 0]))
    tensor([ True, False])
    """)
_logical("logical_xor", np.logical_xor, """Elementwise logical xor (nonzero is true), as bool.

    >>> symgrad.logical_xor(symgrad.tensor([1.0, 0.0]), symgrad.tensor([2.0, 0.0]))
    tensor([False, False])
    """)


def _lcm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """PyTorch's lcm: ``|a / gcd * b|``, the product wrapping in the dtype (numpy's own takes
    the absolute values first, and a wrapped product stays negative)."""
    g = np.gcd(a, b)
    with np.errstate(over="ignore"):
        return np.abs(np.where(g == 0, 0, a // np.where(g == 0, 1, g) * b))


def _integer_pair(name: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                  doc: str) -> None:
    """Install ``name(input, other)`` of two integer tensors (broadcast) and ``x.name_``; not
    recorded (integers have no gradient)."""
    kernel = f"{name}_cpu"

    def function(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
        _tensor(input, name)
        _tensor(other, name, "other", 2)
        result = result_dtype(input, other)
        if result.np_dtype.kind not in "iu":
            raise dtypes.not_implemented(kernel, result)
        a, b = input._value.astype(result.np_dtype), other._value.astype(result.np_dtype)
        try:
            return _make(np.asarray(fn(a, b), dtype=result.np_dtype))
        except ValueError:
            raise RuntimeError(_broadcast(a, b)) from None

    def inplace(self: Tensor, other: Tensor) -> Tensor:
        _tensor(other, f"{name}_", "other", 2)
        result = result_dtype(self, other)
        if not dtypes.can_cast(result, self.dtype):  # (PyTorch checks this before the kernel)
            raise RuntimeError(f"result type {result._torch_name} can't be cast to the desired "
                               f"output type {self.dtype._torch_name}")
        return _written_into(self, function(self, other))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    inplace.__name__ = inplace.__qualname__ = f"{name}_"
    inplace.__doc__ = f"In-place :func:`{name}`."
    torch_api(NO_GRAPH, example=lambda x: getattr(x.long(), name)(x.long() + 2))(function)
    torch_api(NO_GRAPH, function=False, inplace=True,
              example=lambda x: getattr(x.long(), f"{name}_")(x.long() + 2))(inplace)


_integer_pair("gcd", np.gcd, """The greatest common divisor of two integer tensors, elementwise
    (non-negative; ``gcd(0, 0)`` is 0).

    >>> symgrad.gcd(symgrad.tensor([4, -6, 0]), symgrad.tensor([6, 9, 0]))
    tensor([2, 3, 0])
    """)
_integer_pair("lcm", _lcm, """The least common multiple of two integer tensors, elementwise
    (non-negative; 0 if either is 0).

    >>> symgrad.lcm(symgrad.tensor([4, -6, 0]), symgrad.tensor([6, 9, 5]))
    tensor([12, 18,  0])
    """)


@torch_api(NO_GRAPH, example=lambda x: x.logical_not())
def logical_not(input: Tensor) -> Tensor:  # noqa: A002
    """Elementwise logical not (zero is false), as bool.

    >>> symgrad.logical_not(symgrad.tensor([0.0, 2.0]))
    tensor([ True, False])
    """
    _tensor(input, "logical_not")
    return _make(np.logical_not(input._value))


@torch_api(NO_GRAPH, function=False, inplace=True, example=lambda x: x.detach().logical_not_())
def logical_not_(self: Tensor) -> Tensor:
    """In-place :func:`logical_not` (1/0 written in the tensor's dtype).

    >>> x = symgrad.tensor([True, False])
    >>> x.logical_not_()
    tensor([False,  True])
    """
    self._value[...] = np.logical_not(self._value)
    counter_of(self).value += 1
    return self


# ---------------------------------------------------------------- floating-point predicates
def _predicate(name: str, fn: Callable[[np.ndarray], np.ndarray], doc: str) -> None:
    def function(input: Tensor) -> Tensor:  # noqa: A002
        return _make(np.asarray(fn(_tensor(input, name)._value)))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    torch_api(NO_GRAPH)(function)


_predicate("isnan", np.isnan, """Elementwise ``input != input``: where the value is nan.

    >>> symgrad.isnan(symgrad.tensor([1.0, float("nan")]))
    tensor([False,  True])
    """)
_predicate("isinf", np.isinf, """Where the value is inf or -inf.

    >>> symgrad.isinf(symgrad.tensor([1.0, float("-inf")]))
    tensor([False,  True])
    """)
_predicate("isfinite", np.isfinite, """Where the value is neither nan nor infinite.

    >>> symgrad.isfinite(symgrad.tensor([1.0, float("inf"), float("nan")]))
    tensor([ True, False, False])
    """)
_predicate("isposinf", np.isposinf, """Where the value is inf.

    >>> symgrad.isposinf(symgrad.tensor([1.0, float("inf")]))
    tensor([False,  True])
    """)
_predicate("isneginf", np.isneginf, """Where the value is -inf.

    >>> symgrad.isneginf(symgrad.tensor([1.0, float("-inf")]))
    tensor([False,  True])
    """)


@torch_api(NO_GRAPH, example=lambda x: x.isclose(x + 1e-9))
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
            equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (equal infinities are close;
    nans only with ``equal_nan``), as bool.

    >>> symgrad.isclose(symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0 + 1e-6, 2.1]))
    tensor([ True, False])
    """
    _tensor(input, "isclose")
    _tensor(other, "isclose", "other", 2)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype._torch_name} did not match {other.dtype._torch_name}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    try:
        return _make(np.asarray(np.isclose(input._value, other._value, rtol=rtol, atol=atol,
                                           equal_nan=equal_nan)))
    except ValueError:
        raise RuntimeError(_broadcast(input._value, other._value)) from None


# ---------------------------------------------------------------- differentiable functions
_pointwise("asinh", _ew.asinh, """Elementwise inverse hyperbolic sine (``AsinhBackward0``);
    alias ``arcsinh``.

    >>> symgrad.asinh(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8814])
    """, aliases=("arcsinh",), inplace_op=_ew.asinh_inplace)
_pointwise("acosh", _ew.acosh, """Elementwise inverse hyperbolic cosine, nan below 1
    (``AcoshBackward0``, inf gradient at 1); alias ``arccosh``.

    >>> symgrad.acosh(symgrad.tensor([1.0, 2.0]))
    tensor([0.0000, 1.3170])
    """, aliases=("arccosh",), inplace_op=_ew.acosh_inplace)
_pointwise("atanh", _ew.atanh, """Elementwise inverse hyperbolic tangent, inf at 1
    (``AtanhBackward0``); alias ``arctanh``.

    >>> symgrad.atanh(symgrad.tensor([0.0, 0.5]))
    tensor([0.0000, 0.5493])
    """, aliases=("arctanh",), unit_domain=True, inplace_op=_ew.atanh_inplace)
_binary("logaddexp", _ew.logaddexp, """``log(exp(input) + exp(other))`` without overflow
    (``LogaddexpBackward0``).

    >>> symgrad.logaddexp(symgrad.tensor([0.0, 100.0]), symgrad.tensor([0.0, 100.0]))
    tensor([  0.6931, 100.6931])
    """, floating=True)
_binary("logaddexp2", _ew.logaddexp2, """``log2(2**input + 2**other)`` without overflow
    (``Logaddexp2Backward0``).

    >>> symgrad.logaddexp2(symgrad.tensor([0.0, 3.0]), symgrad.tensor([0.0, 3.0]))
    tensor([1., 4.])
    """, floating=True)


def _lerp(run: Callable[..., Tensor], fn: str, input: Tensor, end: Tensor,  # noqa: A002
          weight: Tensor | float) -> Tensor:
    _tensor(input, fn)
    _tensor(end, fn, "end", 2)
    if end.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {input.dtype._cpp_name} for `end` but got dtype "
                           f"{end.dtype._cpp_name}")
    if not input.is_floating_point():
        raise dtypes.not_implemented("lerp_kernel_scalar", input.dtype)
    if isinstance(weight, Tensor):
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"expected dtype {input.dtype._cpp_name} for `weight` but got "
                               f"dtype {weight.dtype._cpp_name}")
        return run(_ew.lerp_tensor, input, end, weight)
    return run(_ew.lerp, input, end, weight=_scalar(weight))


@torch_api("lerp", example=lambda x: x.lerp(x * 2, 0.25))
def lerp(input: Tensor, end: Tensor, weight: Tensor | float) -> Tensor:  # noqa: A002
    """``input + weight * (end - input)``, computed from the nearer end as PyTorch does
    (``LerpBackward0``; ``LerpBackward1`` for a tensor weight, which gets ``g * (end - input)``).

    >>> symgrad.lerp(symgrad.tensor([0.0, 10.0]), symgrad.tensor([10.0, 20.0]), 0.25)
    tensor([ 2.5000, 12.5000])
    """
    return _lerp(apply_op, "lerp", input, end, weight)


@torch_api("lerp", function=False, inplace=True, example=lambda x: x.lerp_(x * 2, 0.25))
def lerp_(self: Tensor, end: Tensor, weight: Tensor | float) -> Tensor:
    """In-place :func:`lerp`."""
    return _lerp(apply_inplace, "lerp_", self, end, weight)


def _nan_to_num(run: Callable[..., Tensor], fn: str, input: Tensor, nan: float,  # noqa: A002
                posinf: float | None, neginf: float | None) -> Tensor:
    _tensor(input, fn)
    if not input.is_floating_point():  # nothing to replace: a copy
        return run(_ew.clone, input) if run is apply_op else input
    return run(_ew.nan_to_num, input, nan=float(nan),
               posinf=None if posinf is None else float(posinf),
               neginf=None if neginf is None else float(neginf))


@torch_api("nan_to_num", example=lambda x: x.nan_to_num(0.0))
def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,  # noqa: A002
               neginf: float | None = None) -> Tensor:
    """nan replaced by ``nan``, inf and -inf by ``posinf``/``neginf`` (default: the dtype's
    largest and smallest finite values). The gradient passes where the input is finite
    (``NanToNumBackward0``).

    >>> symgrad.nan_to_num(symgrad.tensor([float("nan"), float("inf"), -1.0]), posinf=9.0)
    tensor([ 0.,  9., -1.])
    """
    return _nan_to_num(apply_op, "nan_to_num", input, nan, posinf, neginf)


@torch_api("nan_to_num", function=False, inplace=True, example=lambda x: x.nan_to_num_())
def nan_to_num_(self: Tensor, nan: float = 0.0, posinf: float | None = None,
                neginf: float | None = None) -> Tensor:
    """In-place :func:`nan_to_num`."""
    return _nan_to_num(apply_inplace, "nan_to_num_", self, nan, posinf, neginf)
