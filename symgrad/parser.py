"""PyTorch's argument parser, as far as its type checks go: the TypeError texts it gives for a
size, dtype, flag or Number of the wrong type (``ones(): argument 'size' (position 1) must be
tuple of ints, not float``), shared by the factories and the Tensor methods that take them. It
sits below ``symgrad.torch_api`` (whose ``arguments`` module converts operands, index keys and
target shapes), so that ``symgrad.creation`` can use it too.

PyTorch words the error two ways. A function with one signature names the argument
(:func:`wrong_type`); one with several overloads (``arange``, ``linspace``, ``eye``, ``rand``,
``randn``) lists what it got (:func:`invalid_combination`). ``overloaded=True`` picks the second.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.numeric import dtypes


def type_name(obj: Any) -> str:
    """The name PyTorch's messages give ``obj``'s type: ``float``, ``NoneType``, ``Tensor``,
    ``numpy.float64``, ``numpy.dtypes.Float32DType``.

    >>> import symgrad
    >>> type_name(2.5), type_name(np.float64(1)), type_name(symgrad.ones(1))
    ('float', 'numpy.float64', 'Tensor')
    """
    cls = type(obj)
    module = cls.__module__
    if module == "builtins" or module.startswith("symgrad"):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def invalid_combination(fn: str, args: Sequence[Any], kwargs: dict[str, Any]) -> TypeError:
    """PyTorch's error for a call no overload of ``fn`` accepts: the arguments given, by type
    (keyword arguments left at None are not listed).

    >>> print(invalid_combination("eye", (2,), {"dtype": "float32"}))
    eye() received an invalid combination of arguments - got (int, dtype=str), but expected one of:
     * see help(symgrad.eye)
    """
    got = [type_name(a) for a in args]
    got += [f"{k}={type_name(v)}" for k, v in kwargs.items() if v is not None]
    return TypeError(f"{fn}() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n * see help(symgrad.{fn})")


def wrong_type(fn: str, name: str, expected: str, value: Any,
               position: int | None = None) -> TypeError:
    """PyTorch's error for one argument of the wrong type.

    >>> str(wrong_type("ones", "dtype", "symgrad.dtype", "float32"))
    "ones(): argument 'dtype' must be symgrad.dtype, not str"
    """
    where = f" (position {position})" if position is not None else ""
    return TypeError(f"{fn}(): argument '{name}'{where} must be {expected}, not "
                     f"{type_name(value)}")


def _is_int(value: Any, bool_ok: bool = False) -> bool:
    """An int as PyTorch's parser takes one: Python and numpy ints, a 0-d integer Tensor."""
    if isinstance(value, bool | np.bool_):
        return bool_ok
    if isinstance(value, int | np.integer):
        return True
    from symgrad.tensor import Tensor

    return isinstance(value, Tensor) and value.ndim == 0 and value.dtype.np_dtype.kind in "iu"


def _unpack_error(fn: str, position: int, value: Any) -> TypeError:
    return TypeError(f"{fn}(): argument 'size' failed to unpack the object at pos {position} "
                     f"with error \"type must be tuple of ints,but got {type_name(value)}\"")


def size_arg(fn: str, size: Any, varargs: bool = True) -> tuple[int, ...]:
    """A size given PyTorch's ways, checked with its messages: ``f(2, 3)``, ``f((2, 3))``,
    ``f([2, 3])`` (``varargs``: ``size`` is the tuple of positional arguments) or
    ``f(size=(2, 3))`` (not ``varargs``: ``size`` is the one argument).

    >>> size_arg("ones", (2, 3)), size_arg("ones", ([2, 3],))
    ((2, 3), (2, 3))
    >>> size_arg("ones", (2.5,))
    Traceback (most recent call last):
    TypeError: ones(): argument 'size' (position 1) must be tuple of ints, not float
    """
    if varargs:
        if not size:
            raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')
        first = size[0]
        if _is_int(first):
            for i, s in enumerate(size[1:], 2):
                if not _is_int(s, bool_ok=True):
                    raise _unpack_error(fn, i, s)
            return tuple(int(s) for s in size)
        if len(size) > 1:
            raise TypeError(f"{fn}() takes 1 positional argument but {len(size)} were given")
        size = first
    if not isinstance(size, tuple | list):  # (symgrad.Size is a tuple)
        raise wrong_type(fn, "size", "tuple of ints", size, 1)
    for i, s in enumerate(size):
        if not _is_int(s, bool_ok=i > 0):
            if i == 0:
                raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, "
                                f"but found element of type {type_name(s)} at pos 0")
            raise _unpack_error(fn, i + 1, s)
    return tuple(int(s) for s in size)


def dtype_arg(fn: str, dtype: Any, call: tuple[Sequence[Any], dict[str, Any]] | None = None,
              ) -> dtypes.dtype | None:
    """``dtype`` (None stays None) as a symgrad dtype; anything but a dtype or the Python
    types ``float``, ``int``, ``bool`` is refused as PyTorch refuses it (``call``: the
    arguments of an overloaded function, for :func:`invalid_combination`).

    >>> dtype_arg("ones", float)
    symgrad.float64
    >>> dtype_arg("ones", "float32")
    Traceback (most recent call last):
    TypeError: ones(): argument 'dtype' must be symgrad.dtype, not str
    """
    if dtype is None or isinstance(dtype, dtypes.dtype):
        return dtype
    if dtype is float or dtype is int or dtype is bool:
        return dtypes.as_dtype(dtype)
    if dtype is complex:
        raise TypeError("symgrad does not support complex numbers")
    if call is not None:
        raise invalid_combination(fn, *call)
    raise wrong_type(fn, "dtype", "symgrad.dtype", dtype)


def bool_arg(fn: str, name: str, value: Any,
             call: tuple[Sequence[Any], dict[str, Any]] | None = None) -> bool:
    """A flag that must be a Python bool (``requires_grad``, ``keepdim``), as PyTorch's parser
    wants it.

    >>> bool_arg("zeros", "requires_grad", 1)
    Traceback (most recent call last):
    TypeError: zeros(): argument 'requires_grad' must be bool, not int
    """
    if value is True or value is False:
        return value
    if call is not None:
        raise invalid_combination(fn, *call)
    raise wrong_type(fn, name, "bool", value)


def number_arg(fn: str, name: str, value: Any, position: int) -> Any:
    """A Python number, a numpy scalar or a 0-d Tensor's value (``fill_value``).

    >>> import symgrad
    >>> number_arg("full", "fill_value", symgrad.tensor(1.5), 2)
    1.5
    >>> number_arg("full", "fill_value", "a", 2)
    Traceback (most recent call last):
    TypeError: full(): argument 'fill_value' (position 2) must be Number, not str
    """
    if isinstance(value, np.number | np.bool_):  # a Number to PyTorch: its dtype is not kept
        return value.item()
    if isinstance(value, bool | int | float | complex):
        return value
    from symgrad.tensor import Tensor

    if isinstance(value, Tensor) and value.ndim == 0:
        return value.item()
    raise wrong_type(fn, name, "Number", value, position)
