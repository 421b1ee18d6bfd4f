"""PyTorch spellings of comparisons and logical reductions (see ``symgrad.torch_api``):
``== != < <= > >=`` and ``eq`` ... ``ge``, ``& | ^ ~``, ``all``, ``any``, ``equal``,
``allclose``. None of them is recorded for autograd.

A bool tensor compared from graph values keeps its recipe (``Tensor._recipe``): the numpy
function and its operands, so that lowering writes the mask as the condition it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad import parser
from symgrad.dispatch import _broadcast_error, output_shape_error
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _dims, _make
from symgrad.torch_api.arguments import value_of
from symgrad.torch_api.declaration import NO_GRAPH, torch_api


def _from_graph(operand: Any) -> bool:
    """Whether ``operand`` is a graph value or a mask computed from one (see
    ``Tensor._recipe``)."""
    return isinstance(operand, Tensor) and (operand._requires_grad or operand.grad_fn is not None
                                            or operand._recipe is not None)


def _compare(self, other: Any, fn: Callable[[Any, Any], np.ndarray]) -> Tensor:
    if isinstance(other, Tensor):
        other_value = other._value
    elif isinstance(other, bool | int | float | np.generic):
        other_value = dtypes.int_operand(other, self._value) if other.__class__ is int else other
    elif isinstance(other, complex):
        raise TypeError("symgrad does not support complex numbers")
    else:  # (an operator's answer; the named spellings refuse it as PyTorch does)
        running = parser.spelling_running(1)
        if running is None or running[0].startswith("__"):
            return NotImplemented
        raise parser.refused_argument((self, other), 1)
    try:
        out = _make(np.asarray(fn(self._value, other_value)))
    except ValueError:
        raise RuntimeError(_broadcast_error([self._value, other_value])) from None
    if _from_graph(self) or _from_graph(other):
        out._recipe = (fn.__name__, ((self, self.grad_fn),
                                     (other, getattr(other, "grad_fn", None))))
    return out


@torch_api(NO_GRAPH, method_aliases=("__eq__",))
def eq(self, other: Any) -> Tensor:  # type: ignore[override]
    """Elementwise ``self == other`` with broadcasting, as a bool tensor (``Tensor.eq``); not
    recorded for autograd.

    >>> symgrad.tensor([1.0, 2.0]).eq(2.0)
    tensor([False,  True])
    """
    return _compare(self, other, np.equal)


@torch_api(NO_GRAPH, aliases=("not_equal",), method_aliases=("__ne__",))
def ne(self, other: Any) -> Tensor:  # type: ignore[override]
    """Elementwise ``self != other`` with broadcasting, as a bool tensor (``Tensor.ne``); not
    recorded for autograd.

    >>> symgrad.tensor([1.0, 2.0]).ne(2.0)
    tensor([ True, False])
    """
    return _compare(self, other, np.not_equal)


@torch_api(NO_GRAPH, aliases=("less",), method_aliases=("__lt__",))
def lt(self, other: Any) -> Tensor:
    """Elementwise ``self < other`` with broadcasting, as a bool tensor (``Tensor.lt``); not
    recorded for autograd.

    >>> symgrad.tensor([1.0, 2.0]).lt(2.0)
    tensor([ True, False])
    """
    return _compare(self, other, np.less)


@torch_api(NO_GRAPH, aliases=("less_equal",), method_aliases=("__le__",))
def le(self, other: Any) -> Tensor:
    """Elementwise ``self <= other`` with broadcasting, as a bool tensor (``Tensor.le``); not
    recorded for autograd.

    >>> symgrad.tensor([1.0, 2.0]).le(2.0)
    tensor([True, True])
    """
    return _compare(self, other, np.less_equal)


@torch_api(NO_GRAPH, aliases=("greater",), method_aliases=("__gt__",))
def gt(self, other: Any) -> Tensor:
    """Elementwise ``self > other`` with broadcasting, as a bool tensor (``Tensor.gt``); not
    recorded for autograd.

    >>> symgrad.tensor([1.0, 2.0]).gt(1.0)
    tensor([False,  True])
    """
    return _compare(self, other, np.greater)


@torch_api(NO_GRAPH, aliases=("greater_equal",), method_aliases=("__ge__",))
def ge(self, other: Any) -> Tensor:
    """Elementwise ``self >= other`` with broadcasting, as a bool tensor (``Tensor.ge``); not
    recorded for autograd.

    >>> symgrad.tensor([1.0, 2.0]).ge(2.0)
    tensor([False,  True])
    """
    return _compare(self, other, np.greater_equal)


def _compare_into(self: Tensor, other: Any, fn: Callable[[Any, Any], np.ndarray]) -> Tensor:
    """``self`` overwritten with the comparison's 1s and 0s in its own dtype (``x.lt_(y)``)."""
    out = _compare(self, other, fn)
    if out.shape != self.shape:
        raise output_shape_error(self.shape, out.shape)
    return self.copy_(out)


def _install_compare_into(name: str, fn: Callable[[Any, Any], np.ndarray],
                          aliases: tuple[str, ...]) -> None:
    def compare_into(self: Tensor, other: Any) -> Tensor:
        return _compare_into(self, other, fn)

    compare_into.__name__ = compare_into.__qualname__ = f"{name}_"
    compare_into.__doc__ = f"""In-place :meth:`{name}`: ``self`` becomes 1 where the comparison
    holds and 0 elsewhere, in its own dtype.

    >>> symgrad.tensor([1.0, 2.0]).{name}_(2.0)
    {_make(fn(np.array([1.0, 2.0], np.float32), 2.0).astype(np.float32))!r}
    """
    torch_api(NO_GRAPH, function=False, inplace=True, aliases=aliases,
              example=lambda x: getattr(x, f"{name}_")(2.0))(compare_into)


for _name, _fn, _aliases in (("eq", np.equal, ()), ("ne", np.not_equal, ("not_equal_",)),
                             ("lt", np.less, ("less_",)), ("le", np.less_equal, ("less_equal_",)),
                             ("gt", np.greater, ("greater_",)),
                             ("ge", np.greater_equal, ("greater_equal_",))):
    _install_compare_into(_name, _fn, _aliases)


def _as_input_if_byte(found: Any, input: Tensor) -> np.ndarray:  # noqa: A002
    """all's and any's answer: uint8 for a uint8 input (PyTorch's legacy), else bool."""
    return np.asarray(found, np.uint8 if input._value.dtype == np.uint8 else np.bool_)


def _reduced(dim: int | Sequence[int], ndim: int) -> tuple[int, ...]:
    """all's and any's dims: an empty list reduces none (as PyTorch's; a sum reduces all)."""
    return () if isinstance(dim, Sequence) and not dim else _dims(dim, ndim)


@torch_api(NO_GRAPH)
def all(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
    """Whether all elements (or all along ``dim``, an int or a tuple) are true, as a bool
    tensor.

    >>> x = symgrad.tensor([[True, False], [True, True]])
    >>> x.all()
    tensor(False)
    >>> x.all(dim=1)
    tensor([False,  True])
    """
    if not (dim is None or parser._is_int(dim) or isinstance(dim, tuple | list)) or not isinstance(
            keepdim, bool):
        raise parser.invalid_combination("all", (dim, keepdim), {})
    axis = None if dim is None else _reduced(dim, self._value.ndim)
    return _make(_as_input_if_byte(np.all(self._value, axis=axis, keepdims=keepdim), self))


@torch_api(NO_GRAPH)
def any(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
    """Whether any element (or any along ``dim``, an int or a tuple) is true, as a bool
    tensor.

    >>> x = symgrad.tensor([[0.0, 0.0], [0.0, 1.0]])
    >>> x.any()
    tensor(True)
    >>> x.any(dim=1)
    tensor([False,  True])
    """
    if not (dim is None or parser._is_int(dim) or isinstance(dim, tuple | list)) or not isinstance(
            keepdim, bool):
        raise parser.invalid_combination("any", (dim, keepdim), {})
    axis = None if dim is None else _reduced(dim, self._value.ndim)
    return _make(_as_input_if_byte(np.any(self._value, axis=axis, keepdims=keepdim), self))


@torch_api(NO_GRAPH)
def equal(self, other: Tensor) -> bool:
    """True when both tensors have the same shape and values.

    >>> symgrad.tensor([1.0, 2.0]).equal(symgrad.tensor([1.0, 2.0]))
    True
    """
    parser.tensor_arg("equal", "other", other)
    return self._value.shape == other._value.shape and bool(
        np.array_equal(self._value, other._value))


@torch_api(NO_GRAPH)
def allclose(self, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8,
             equal_nan: bool = False) -> bool:
    """Whether all elements are close: ``|self - other| <= atol + rtol * |other|``.

    >>> symgrad.tensor([1.0, 2.0]).allclose(symgrad.tensor([1.0, 2.000001]))
    True
    """
    parser.tensor_arg("allclose", "other", other)
    if isinstance(other, Tensor) and other.dtype is not self.dtype:
        raise RuntimeError(f"{self.dtype._torch_name} did not match {other.dtype._torch_name}")
    try:
        return bool(np.allclose(self._value, value_of(other), rtol=rtol, atol=atol,
                                equal_nan=equal_nan))
    except ValueError:
        raise RuntimeError(_broadcast_error([self._value, value_of(other)])) from None
