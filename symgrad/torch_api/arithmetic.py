"""PyTorch spellings of arithmetic (see ``symgrad.torch_api``): ``+ - * / **`` and their
method, function and in-place spellings (``x.add(y, alpha=2)``, ``symgrad.sub(1.0, x)``,
``x.mul_(2)``, ``x += y``), and the core unary functions (``exp``, ``log``, ``relu`` ...).

Operators return NotImplemented for operands they do not take, so Python raises its own
"unsupported operand type(s)" TypeError, exactly as with PyTorch. The op rules are in
``symgrad.ops.elementwise``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.autograd.grad_mode import is_grad_enabled
from symgrad.autograd.graph import named_node, warn_at_user
from symgrad.dispatch import (
    apply_binary,
    apply_inplace,
    apply_op,
    apply_unary,
    binary_method,
    unary_method,
)
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make
from symgrad.torch_api.arguments import (
    check_alpha,
    check_ints,
    check_not_bool_sub,
    checked_number,
    operand,
    scalar,
)
from symgrad.torch_api.declaration import NO_GRAPH, torch_api

_ew = ops.elementwise


def _runs(op: ops.Op, refuse_bool: Callable[[], Exception] | None = None
          ) -> Callable[[Callable[..., Tensor]], Callable[..., Tensor]]:
    """The decorated unary method, documented by its ``def`` (signature and docstring), is run
    by :func:`symgrad.dispatch.unary_method` for ``op`` (its body is not used); a bool tensor
    raises ``refuse_bool()`` when given."""

    def install(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
        method = unary_method(op, refuse_bool)
        for attribute in ("__name__", "__qualname__", "__doc__", "__module__", "__annotations__"):
            setattr(method, attribute, getattr(fn, attribute))
        return method

    return install


def _relu_bool() -> Exception:
    return RuntimeError("Boolean inputs not supported for relu")


def _abs_bool() -> Exception:
    return dtypes.not_implemented("abs_cpu", dtypes.bool_)


def _refusing_bool(self: Tensor, refuse_bool: Callable[[], Exception]) -> Tensor:
    if self._value.dtype.kind == "b":
        raise refuse_bool()
    return self


__add__ = torch_api("add", function=False, method_aliases=("__radd__",), name="__add__",
                    example=lambda x: x + x)(binary_method(_ew.add, operand))
__mul__ = torch_api("mul", function=False, method_aliases=("__rmul__",), name="__mul__",
                    example=lambda x: x * x)(binary_method(_ew.mul, operand))
__truediv__ = torch_api("div", function=False, name="__truediv__",
                        example=lambda x: x / 2.0)(binary_method(_ew.div, operand))


def _number_beside_tensor(input: Any, other: Any) -> None:  # noqa: A002
    """Refuse, as PyTorch, a non-Tensor ``input`` that is no number, or one beside an
    ``other`` that is no Tensor (then ``other`` is named)."""
    operand(input, call=(input, other))
    if not isinstance(other, Tensor):
        raise parser.refused_argument((input, other), 1)


@torch_api("add", example=lambda x: x.add(x))
def add(input: Any, other: Any, *, alpha: float = 1) -> Tensor:  # noqa: A002 - PyTorch's name
    """``input + alpha * other`` with broadcasting (``AddBackward0``); either may be a Python
    number.

    >>> symgrad.add(symgrad.tensor([1.0, 2.0]), symgrad.tensor([10.0, 20.0]), alpha=2)
    tensor([21., 42.])
    >>> symgrad.add(1.0, symgrad.tensor([1.0, 2.0]))
    tensor([2., 3.])
    >>> symgrad.tensor([1.0, 2.0]).add(1.0)
    tensor([2., 3.])
    """
    if not isinstance(input, Tensor):
        _number_beside_tensor(input, other)
        check_ints(alpha)
        return other.mul(alpha).add(input) if alpha != 1 else other.add(input)
    other = operand(other, call=(input, other))
    if alpha != 1:
        check_alpha(input, other, alpha)
        return apply_op(_ew.add, input, other, alpha=alpha)
    return apply_binary(_ew.add, input, other)


@torch_api("sub", aliases=("subtract",), example=lambda x: x.sub(1.0))
def sub(input: Any, other: Any, *, alpha: float = 1) -> Tensor:  # noqa: A002
    """``input - alpha * other`` with broadcasting (``SubBackward0``); either may be a Python
    number. Alias ``subtract``.

    >>> symgrad.sub(symgrad.tensor([5.0, 6.0]), symgrad.tensor([1.0, 2.0]), alpha=2)
    tensor([3., 2.])
    >>> symgrad.sub(1.0, symgrad.tensor([1.0, 2.0]))
    tensor([ 0., -1.])
    >>> symgrad.tensor([1.0, 2.0]).sub(symgrad.tensor([10.0, 20.0]), alpha=2)
    tensor([-19., -38.])
    """
    if not isinstance(input, Tensor):
        _number_beside_tensor(input, other)
        check_ints(alpha)
        return apply_op(_ew.sub, operand(input), other * alpha if alpha != 1 else other)
    other = operand(other, call=(input, other))
    check_not_bool_sub(input, other)
    if alpha != 1:
        check_alpha(input, other, alpha)
        return apply_op(_ew.sub, input, other, alpha=alpha)
    return apply_binary(_ew.sub, input, other)


@torch_api("mul", aliases=("multiply",), example=lambda x: x.mul(x))
def mul(input: Any, other: Any) -> Tensor:  # noqa: A002
    """Elementwise product with broadcasting (``MulBackward0``); either may be a Python number.
    Alias ``multiply``.

    >>> symgrad.mul(symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]))
    tensor([3., 8.])
    """
    if not isinstance(input, Tensor):
        _number_beside_tensor(input, other)
        return other.mul(input)
    return apply_binary(_ew.mul, input, operand(other, call=(input, other)))


@torch_api("pow_scalar", example=lambda x: x.pow(2))
def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001,A002 - PyTorch's name
    """``input ** exponent`` for a tensor or Python number exponent (``PowBackward0``, or
    ``PowBackward1`` for a tensor exponent); the base may be a Python number
    (``symgrad.pow(2, x)``).

    >>> symgrad.pow(symgrad.tensor([1.0, 2.0, 3.0]), 2)
    tensor([1., 4., 9.])
    >>> symgrad.pow(2, symgrad.tensor([0.0, 3.0]))
    tensor([1., 8.])
    """
    if not isinstance(input, Tensor):
        if operand(input) is None or not isinstance(exponent, Tensor):
            raise parser.refused_argument((input, exponent), 0)
        return exponent.__rpow__(input)
    if isinstance(exponent, Tensor):
        _check_bool_pow(input, exponent)
        return apply_binary(_ew.pow, input, exponent)
    if operand(exponent) is None:
        raise parser.refused_argument((input, exponent), 1)
    if input._value.dtype.kind == "b" and isinstance(exponent, bool):
        return input.clone() if exponent else input.new_ones(input.shape)  # x**True is x
    exponent = scalar(exponent)
    if exponent.__class__ is int and input._value.dtype.kind == "i":  # (PyTorch converts an
        dtypes.check_fill(exponent, input._value.dtype)  # int one to int64, checked)
    return apply_op(_ew.pow_scalar, input, exponent=exponent)


def _check_bool_pow(base: Any, exponent: Any) -> None:
    """PyTorch has no bool ``pow`` kernel: a bool base to a bool exponent is refused."""
    kinds = {v._value.dtype.kind if isinstance(v, Tensor) else
             ("b" if isinstance(v, bool) else "") for v in (base, exponent)}
    if kinds == {"b"}:
        raise dtypes.not_implemented("pow", dtypes.bool_)


@torch_api("neg", aliases=("negative",))
def neg(self) -> Tensor:
    """``-self`` (``NegBackward0``); refused for bool tensors. Also ``symgrad.neg``.

    >>> symgrad.neg(symgrad.tensor([1.0, -2.0]))
    tensor([-1.,  2.])
    """
    if self._value.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return apply_unary(_ew.neg, self)


@torch_api("reciprocal")
@_runs(_ew.reciprocal)
def reciprocal(self) -> Tensor:
    """``1 / self`` (``ReciprocalBackward0``).

    >>> symgrad.reciprocal(symgrad.tensor([2.0, 4.0]))
    tensor([0.5000, 0.2500])
    """


@torch_api("pow_scalar")
def square(self) -> Tensor:
    """``self ** 2`` (``PowBackward0``, as in PyTorch).

    >>> symgrad.square(symgrad.tensor([2.0, -3.0]))
    tensor([4., 9.])
    """
    return self.pow(2)


@torch_api("exp")
@_runs(_ew.exp)
def exp(self) -> Tensor:
    """Elementwise ``e ** x`` (``ExpBackward0``).

    >>> symgrad.exp(symgrad.tensor([0.0, 1.0]))
    tensor([1.0000, 2.7183])
    """


@torch_api("log")
@_runs(_ew.log)
def log(self) -> Tensor:
    """Elementwise natural logarithm (``LogBackward0``); nan below 0, -inf at 0.

    >>> symgrad.log(symgrad.tensor([1.0, 2.0]))
    tensor([0.0000, 0.6931])
    """


@torch_api("sqrt")
@_runs(_ew.sqrt)
def sqrt(self) -> Tensor:
    """Elementwise square root (``SqrtBackward0``).

    >>> symgrad.sqrt(symgrad.tensor([4.0, 2.0]))
    tensor([2.0000, 1.4142])
    """


@torch_api("sin")
@_runs(_ew.sin)
def sin(self) -> Tensor:
    """Elementwise sine (``SinBackward0``).

    >>> symgrad.sin(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8415])
    """


@torch_api("cos")
@_runs(_ew.cos)
def cos(self) -> Tensor:
    """Elementwise cosine (``CosBackward0``).

    >>> symgrad.cos(symgrad.tensor([0.0, 1.0]))
    tensor([1.0000, 0.5403])
    """


@torch_api("tanh")
@_runs(_ew.tanh)
def tanh(self) -> Tensor:
    """Elementwise hyperbolic tangent (``TanhBackward0``).

    >>> symgrad.tanh(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7616])
    """


@torch_api("sigmoid")
@_runs(_ew.sigmoid)
def sigmoid(self) -> Tensor:
    """Elementwise logistic function ``1 / (1 + e ** -x)`` (``SigmoidBackward0``).

    >>> symgrad.sigmoid(symgrad.tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808])
    """


@torch_api("relu")
@_runs(_ew.relu, _relu_bool)
def relu(self) -> Tensor:
    """Elementwise ``max(x, 0)``; the gradient at 0 is 0, as in PyTorch (``ReluBackward0``).

    >>> symgrad.relu(symgrad.tensor([-1.0, 0.0, 2.0]))
    tensor([0., 0., 2.])
    """


@torch_api("abs", aliases=("absolute",))
@_runs(_ew.abs, _abs_bool)
def abs(self) -> Tensor:
    """Elementwise absolute value; the gradient at 0 is 0, as in PyTorch (``AbsBackward0``).

    >>> symgrad.abs(symgrad.tensor([-1.5, 2.0]))
    tensor([1.5000, 2.0000])
    """


@torch_api("sign")
@_runs(_ew.sign)
def sign(self) -> Tensor:
    """Elementwise sign (-1, 0 or 1); its gradient is zero (``SignBackward0``).

    >>> symgrad.sign(symgrad.tensor([-2.0, 0.0, 3.0]))
    tensor([-1.,  0.,  1.])
    """


__sub__ = torch_api("sub", function=False, name="__sub__", example=lambda x: x - 1.0)(
    binary_method(_ew.sub, operand, check_not_bool_sub))


@torch_api("rsub", function=False, example=lambda x: 1.0 - x)
def __rsub__(self, other: Any) -> Tensor:
    other = operand(other)
    if other is None:
        return NotImplemented
    check_not_bool_sub(self, other)
    if isinstance(other, Tensor):
        return apply_binary(_ew.sub, other, self)
    if other.__class__ is int:
        other = dtypes.int_operand(other, self._value)
    return apply_op(_ew.rsub, self, other=other)


@torch_api("mul", function=False, example=lambda x: 2.0 / x)
def __rtruediv__(self, other: Any) -> Tensor:
    other = operand(other)
    if other is None:
        return NotImplemented
    if isinstance(other, Tensor):
        return apply_binary(_ew.div, other, self)
    return self.reciprocal() * other  # PyTorch records 2 / x as MulBackward0(reciprocal)


@torch_api("pow_scalar", function=False, example=lambda x: x ** 2)
def __pow__(self, exponent: Any) -> Tensor:
    exponent = operand(exponent)
    if exponent is None:
        return NotImplemented
    return self.pow(exponent)


@torch_api("rpow_scalar", function=False, example=lambda x: 2.0 ** x)
def __rpow__(self, base: Any) -> Tensor:
    base = operand(base)
    if base is None:
        return NotImplemented
    _check_bool_pow(base, self)
    if isinstance(base, Tensor):
        return apply_binary(_ew.pow, base, self)
    if base.__class__ is int:
        base = dtypes.int_operand(base, self._value)
    return apply_op(_ew.rpow_scalar, self, base=base)


@torch_api("neg", function=False)
def __neg__(self) -> Tensor:
    return self.neg()


@torch_api(NO_GRAPH, function=False)
def __pos__(self) -> Tensor:
    return self


@torch_api("abs", function=False)
def __abs__(self) -> Tensor:
    return self.abs()


@torch_api("add", function=False, inplace=True, example=lambda x: x.add_(1.0))
def add_(self, other: Any, *, alpha: float = 1) -> Tensor:
    """In-place ``self += alpha * other``."""
    other = operand(other, call=(self, other))
    if alpha != 1:
        check_alpha(self, other, alpha)
        return apply_inplace(_ew.add, self, other, alpha=alpha)
    return apply_inplace(_ew.add, self, other)


@torch_api("sub", function=False, inplace=True, aliases=("subtract_",),
           example=lambda x: x.sub_(1.0))
def sub_(self, other: Any, *, alpha: float = 1) -> Tensor:
    """In-place ``self -= alpha * other``."""
    other = operand(other, call=(self, other))
    check_not_bool_sub(self, other)
    if alpha != 1:
        check_alpha(self, other, alpha)
        return apply_inplace(_ew.sub, self, other, alpha=alpha)
    return apply_inplace(_ew.sub, self, other)


@torch_api("mul", function=False, inplace=True, aliases=("multiply_",),
           example=lambda x: x.mul_(2.0))
def mul_(self, other: Any) -> Tensor:
    """In-place ``self *= other``."""
    return apply_inplace(_ew.mul, self, operand(other, call=(self, other)))


@torch_api("pow_scalar", function=False, inplace=True, example=lambda x: x.pow_(2))
def pow_(self, exponent: Any) -> Tensor:
    """In-place ``self **= exponent`` for a Python number exponent."""
    if operand(exponent) is None:
        raise parser.refused_argument((self, exponent), 1)
    _check_bool_pow(self, exponent)
    if isinstance(exponent, Tensor):
        return apply_inplace(_ew.pow, self, exponent)
    return apply_inplace(_ew.pow_scalar, self, exponent=scalar(exponent))


@torch_api("zero", function=False, inplace=True)
def zero_(self) -> Tensor:
    """Fill with zeros in place.

    >>> x = symgrad.tensor([1.0, 2.0])
    >>> x.zero_()
    tensor([0., 0.])
    >>> x
    tensor([0., 0.])
    """
    return apply_inplace(_ew.zero, self)


@torch_api("fill", function=False, inplace=True, example=lambda x: x.fill_(2.0))
def fill_(self, value: Any) -> Tensor:
    """Fill with ``value`` in place.

    >>> x = symgrad.zeros(3)
    >>> x.fill_(2.5)
    tensor([2.5000, 2.5000, 2.5000])

    A 0-d tensor ``value`` that requires grad gets the sum of the gradient, as in PyTorch
    (``FillBackward3``).
    """
    if isinstance(value, Tensor):
        if value._value.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._value.ndim} dimensions.")
        if value._requires_grad and is_grad_enabled():
            out = self.copy_(value.expand(self._value.shape))
            if out.grad_fn is not None and type(out.grad_fn).__name__ == "CopyBackwards":
                named_node(out, "FillBackward3")
            return out
    value = scalar(value)
    value = dtypes.check_fill(value, self._value.dtype)
    if self._value.dtype.kind == "b":
        value = bool(value)  # (numpy refuses an int beyond int64 for bool)
    return apply_inplace(_ew.fill, self, value=value)


@torch_api("copy", function=False, inplace=True, example=lambda x: x.copy_(x.new_ones(3)))
def copy_(self, src: Tensor) -> Tensor:
    """Copy ``src``'s values (broadcast, converted to this dtype) into self in place.

    >>> x = symgrad.zeros(2, 2)
    >>> x.copy_(symgrad.tensor([1, 2]))
    tensor([[1., 2.],
            [1., 2.]])
    >>> symgrad.zeros(3, dtype=symgrad.long).copy_(symgrad.tensor([1.7, -2.5, 3.2]))
    tensor([ 1, -2,  3])
    """
    if isinstance(src, bool | int | float):  # (PyTorch reads a number as a 0-d tensor)
        if src.__class__ is int:  # (beyond int64 refused; wrapped into a small dtype)
            dtypes.check_int(src)
            src = np.array(dtypes.int_operand(src, self._value), np.int64)
        src = _make(np.asarray(src).astype(self._value.dtype))
    if not isinstance(src, Tensor):
        raise TypeError("copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    if not self.dtype.is_floating_point and src.dtype != self.dtype:
        # into an integer or bool tensor PyTorch converts any source (floats truncated toward
        # zero); such a tensor carries no gradient, so neither does the converted source
        src = src.detach().to(self.dtype)
    return apply_inplace(_ew.copy, self, src)


@torch_api("neg", function=False, inplace=True, aliases=("negative_",))
def neg_(self) -> Tensor:
    """In-place ``-self``."""
    return apply_inplace(_ew.neg, self)


@torch_api("exp", function=False, inplace=True)
def exp_(self) -> Tensor:
    """In-place exp."""
    return apply_inplace(_ew.exp, self)


@torch_api("log", function=False, inplace=True)
def log_(self) -> Tensor:
    """In-place natural logarithm."""
    return apply_inplace(_ew.log, self)


@torch_api("sqrt", function=False, inplace=True)
def sqrt_(self) -> Tensor:
    """In-place square root."""
    return apply_inplace(_ew.sqrt, self)


@torch_api("sin", function=False, inplace=True)
def sin_(self) -> Tensor:
    """In-place sine."""
    return apply_inplace(_ew.sin, self)


@torch_api("cos", function=False, inplace=True)
def cos_(self) -> Tensor:
    """In-place cosine."""
    return apply_inplace(_ew.cos, self)


@torch_api("tanh", function=False, inplace=True)
def tanh_(self) -> Tensor:
    """In-place hyperbolic tangent."""
    return apply_inplace(_ew.tanh, self)


@torch_api("sigmoid", function=False, inplace=True)
def sigmoid_(self) -> Tensor:
    """In-place logistic function."""
    return apply_inplace(_ew.sigmoid, self)


@torch_api("relu", function=True, inplace=True)
def relu_(self) -> Tensor:
    """In-place max(x, 0)."""
    return apply_inplace(_ew.relu, _refusing_bool(self, _relu_bool))


@torch_api("abs", function=False, inplace=True, aliases=("absolute_",))
def abs_(self) -> Tensor:
    """In-place absolute value."""
    return apply_inplace(_ew.abs, _refusing_bool(self, _abs_bool))


@torch_api("sign", function=False, inplace=True)
def sign_(self) -> Tensor:
    """In-place sign."""
    return apply_inplace(_ew.sign, self)


@torch_api("reciprocal", function=False, inplace=True)
def reciprocal_(self) -> Tensor:
    """In-place ``1 / self``."""
    return apply_inplace(_ew.reciprocal, self)


@torch_api("pow_scalar", function=False, inplace=True)
def square_(self) -> Tensor:
    """In-place ``self ** 2``."""
    return self.pow_(2)


@torch_api("add", function=False, inplace=True, example=lambda x: x.__iadd__(1.0))
def __iadd__(self, other: Any) -> Tensor:
    return self.add_(other)


@torch_api("sub", function=False, inplace=True, example=lambda x: x.__isub__(1.0))
def __isub__(self, other: Any) -> Tensor:
    return self.sub_(other)


@torch_api("mul", function=False, inplace=True, example=lambda x: x.__imul__(2.0))
def __imul__(self, other: Any) -> Tensor:
    return self.mul_(other)


@torch_api("div", function=False, inplace=True, example=lambda x: x.__itruediv__(2.0))
def __itruediv__(self, other: Any) -> Tensor:
    return self.div_(other)


@torch_api("pow_scalar", function=False, inplace=True, example=lambda x: x.__ipow__(2))
def __ipow__(self, other: Any) -> Tensor:
    return self.pow_(other)


_CONDITION_ONLY: Any = type("ConditionOnly", (), {"__repr__": lambda self: "<not given>"})()


@torch_api("where", method=False)
def where(condition: Tensor, input: Any = _CONDITION_ONLY,  # noqa: A002
          other: Any = _CONDITION_ONLY) -> Any:
    """Elementwise ``input`` where ``condition`` else ``other`` (``WhereBackward0``); with the
    condition alone, the indices where it is nonzero, one tensor per dim
    (``nonzero(condition, as_tuple=True)``).

    >>> x = symgrad.tensor([-1.0, 2.0])
    >>> symgrad.where(x > 0, x, 0.0)
    tensor([0., 2.])
    >>> symgrad.where(x > 0)
    (tensor([1]),)
    """
    if input is _CONDITION_ONLY or other is _CONDITION_ONLY:
        if input is not other:  # (one of the two)
            given = [x for x in (condition, input, other) if x is not _CONDITION_ONLY]
            raise parser.invalid_combination("where", given, {})
        if not isinstance(condition, Tensor):
            raise parser.wrong_type("where", "condition", "Tensor", condition, 1)
        return condition.nonzero(as_tuple=True)
    if isinstance(condition, Tensor) and condition.dtype is dtypes.uint8:  # (PyTorch's legacy)
        warn_at_user("where received a uint8 condition tensor. This behavior is deprecated and "
                     "will be removed in a future version of PyTorch. Use a boolean condition "
                     "instead.")
        condition = condition.bool()
    if not isinstance(condition, Tensor) or condition.dtype is not dtypes.bool_:
        got = f", but got a tensor with dtype {condition.dtype._torch_name}" if isinstance(
            condition, Tensor) else ""
        raise RuntimeError(f"where expected condition to be a boolean tensor{got}")
    call = (condition, input, other)
    input, other = operand(input, call=call), operand(other, call=call)
    tensors = [x for x in (input, other) if isinstance(x, Tensor)]
    if len(tensors) < 2:
        input, other = (x if isinstance(x, Tensor) else checked_number(
            x, *tensors, half_checked=False) for x in (input, other))
    return apply_op(_ew.where, condition, input, other)


@torch_api("where", function=False, name="where", example=lambda x: x.where(x > 2, 0.0))
def _where_method(self, condition: Tensor, other: Any) -> Tensor:
    """``self`` where ``condition`` holds, else ``other`` (see :func:`symgrad.where`).

    >>> x = symgrad.tensor([-1.0, 2.0])
    >>> x.where(x > 0, 0.0)
    tensor([0., 2.])
    """
    if operand(other) is None:  # (the method's own error: without self)
        raise parser.refused_argument((self, condition, other), 2)
    return where(condition, self, other)


# ---------------------------------------------------------------- addcmul, addcdiv
def _addc(run: Any, op: ops.Op, fn: str, input: Tensor, tensor1: Tensor,  # noqa: A002
          tensor2: Tensor, value: Any) -> Tensor:
    for i, (x, arg) in enumerate(((input, "input"), (tensor1, "tensor1"), (tensor2, "tensor2"))):
        if not isinstance(x, Tensor):
            raise TypeError(f"{fn}(): argument '{arg}' (position {i + 1}) must be Tensor, not "
                            f"{type(x).__name__}")
    if op is _ew.addcdiv and all(x._value.dtype.kind in "iub" for x in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
            "for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    value = scalar(value)
    if all(x._value.dtype.kind in "iub" for x in (input, tensor1, tensor2)):
        value = int(value)  # PyTorch casts value to the integer result type
    if value == 1:
        return run(op, input, tensor1, tensor2)
    return run(op, input, tensor1, tensor2, value=value)


@torch_api("addcmul", example=lambda x: x.addcmul(x, x.exp(), value=0.5))
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *,  # noqa: A002
            value: float = 1) -> Tensor:
    """``input + value * tensor1 * tensor2`` with broadcasting (``AddcmulBackward0``).

    >>> symgrad.addcmul(symgrad.ones(2), symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]),
    ...                 value=0.5)
    tensor([2.5000, 5.0000])
    """
    return _addc(apply_op, _ew.addcmul, "addcmul", input, tensor1, tensor2, value)


@torch_api("addcmul", inplace=True, function=False,
           example=lambda x: x.addcmul_(x, x.exp(), value=0.5))
def addcmul_(input: Tensor, tensor1: Tensor, tensor2: Tensor, *,  # noqa: A002
             value: float = 1) -> Tensor:
    """In-place :func:`addcmul`."""
    return _addc(apply_inplace, _ew.addcmul, "addcmul_", input, tensor1, tensor2, value)


@torch_api("addcdiv", example=lambda x: x.addcdiv(x, x.exp(), value=0.5))
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *,  # noqa: A002
            value: float = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` with broadcasting (``AddcdivBackward0``); refused
    when both tensor1 and tensor2 are integer tensors, as in PyTorch.

    >>> symgrad.addcdiv(symgrad.ones(2), symgrad.tensor([1.0, 2.0]), symgrad.tensor([4.0, 4.0]),
    ...                 value=2)
    tensor([1.5000, 2.0000])
    """
    return _addc(apply_op, _ew.addcdiv, "addcdiv", input, tensor1, tensor2, value)


@torch_api("addcdiv", inplace=True, function=False,
           example=lambda x: x.addcdiv_(x, x.exp(), value=0.5))
def addcdiv_(input: Tensor, tensor1: Tensor, tensor2: Tensor, *,  # noqa: A002
             value: float = 1) -> Tensor:
    """In-place :func:`addcdiv`."""
    return _addc(apply_inplace, _ew.addcdiv, "addcdiv_", input, tensor1, tensor2, value)
