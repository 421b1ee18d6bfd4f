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

import sys
import types
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


# id() of the code of each installed spelling -> (the code, its name, whether it is the Tensor
# method): filled by symgrad.torch_api.declaration, read by :func:`spelling_running` on an
# error's way out (by id: code objects of the same text compare equal)
SPELLINGS: dict[int, tuple[types.CodeType, str, bool]] = {}


def _spelling_frame(depth: int, within: int) -> tuple[Any, str, bool] | None:
    """(frame, name, method) of :func:`spelling_running`, ``depth`` counted from this
    function's caller."""
    frame = sys._getframe(depth + 1)
    for _ in range(within + 1):
        if frame is None:
            return None
        code = frame.f_code
        found = SPELLINGS.get(id(code))
        if found is not None and found[0] is code:
            return frame, found[1], found[2]
        frame = frame.f_back
    return None


def spelling_running(depth: int = 2, within: int = 3) -> tuple[str, bool] | None:
    """The spelling whose code runs ``depth`` frames up from the function calling this (1: its
    caller), or up to ``within`` frames above that (the first found: a check made by a
    spelling's helper), as (name, whether called as the Tensor method); None when no spelling
    runs there. It tells ``x.add(None)`` (PyTorch counts ``other`` as position 1) from
    ``symgrad.add(x, None)`` (position 2), and an alias (``subtract``) from its original, which
    share their code's text.

    >>> import symgrad
    >>> symgrad.ones(2).mm(None)
    Traceback (most recent call last):
    TypeError: mm(): argument 'mat2' (position 1) must be Tensor, not NoneType
    """
    found = _spelling_frame(depth, within)
    return None if found is None else found[1:]


# the spellings of two operands whose PyTorch binding has several signatures (a Tensor or a
# Scalar ``other``, ...): a call none accepts is refused by listing the types it got; the
# others' refusal names the argument (``add``, but ``subtract``; ``div``, but ``divide``)
OVERLOADED = frozenset(
    f"{name}{suffix}" for suffix in ("", "_") for name in (
        "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "fmod",
        "pow", "float_power", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less",
        "greater_equal", "less_equal", "not_equal", "bitwise_and", "bitwise_or", "bitwise_xor",
        "bitwise_left_shift", "bitwise_right_shift", "copysign", "xlogy", "clamp_min",
        "clamp_max", "bucketize", "searchsorted", "where", "rsub", "fill"))


def refused_argument(args: Sequence[Any], bad: int) -> TypeError:
    """PyTorch's TypeError for a call of the running spelling (:func:`spelling_running`) whose
    argument ``args[bad]`` has the wrong type. ``args`` are the function form's: ``input`` and
    ``other`` (a third, ``where``'s, only in an overloaded list). A spelling with one
    signature names the argument, by its position among those given (a method's ``self`` is
    not counted); an overloaded one (:data:`OVERLOADED`) lists the types it got (a method's
    list leaves ``self`` out).

    >>> import symgrad
    >>> symgrad.add(symgrad.ones(2), None)
    Traceback (most recent call last):
    TypeError: add(): argument 'other' (position 2) must be Tensor, not NoneType
    """
    running = spelling_running(2)
    if running is None:  # (not called from a spelling)
        return TypeError(f"expected a Tensor or a number, got {type_name(args[bad])}")
    name, method = running
    if name in OVERLOADED:
        return invalid_combination(name, args[1:] if method else args, {})
    return wrong_type(name, ("input", "other")[bad], "Tensor", args[bad], bad + (not method))


def invalid_combination(fn: str, args: Sequence[Any], kwargs: dict[str, Any]) -> TypeError:
    """PyTorch's error for a call no overload of ``fn`` accepts: the arguments given, by type
    (keyword arguments left at None are not listed).

    >>> print(invalid_combination("eye", (2,), {"dtype": "float32"}))
    eye() received an invalid combination of arguments - got (int, dtype=str), but expected one of:
     * see help(symgrad.eye)
    """
    got = [type_name(a) for a in args]
    named = [f"{k}={type_name(v)}" for k, v in kwargs.items() if v is not None]
    # (PyTorch lists keywords alone sorted, each followed by a comma: "(generator=int, )")
    listed = ", ".join(got + named) if got else "".join(f"{k}, " for k in sorted(named))
    return TypeError(f"{fn}() received an invalid combination of arguments - got "
                     f"({listed}), but expected one of:\n * see help(symgrad.{fn})")


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


_INT64 = (-2**63, 2**63 - 1)


def tensor_arg(fn: str, name: str, value: Any, position: int = 1) -> Any:
    """``value`` when it is a Tensor, else PyTorch's TypeError for argument ``name``.

    >>> tensor_arg("dot", "tensor", None)
    Traceback (most recent call last):
    TypeError: dot(): argument 'tensor' (position 1) must be Tensor, not NoneType
    """
    from symgrad.tensor import Tensor

    if not isinstance(value, Tensor):
        # (checked by the spelling or its helper: the position in the form called)
        found = _spelling_frame(1, 2)
        if found is not None:
            frame, spelling, method = found
            names = frame.f_code.co_varnames[:frame.f_code.co_argcount]
            if name in names:
                fn, position = spelling, names.index(name) + (not method)
        raise wrong_type(fn, name, "Tensor", value, position)
    return value


def int64(value: Any) -> Any:
    """``value`` unchanged, unless it is an int beyond int64 (PyTorch's ValueError).

    >>> int64(10**30)
    Traceback (most recent call last):
    ValueError: Overflow when unpacking long long
    """
    if isinstance(value, int) and not _INT64[0] <= value <= _INT64[1]:
        raise ValueError("Overflow when unpacking long long")
    return value


def _unpack_error(fn: str, position: int, value: Any, name: str = "size") -> TypeError:
    return TypeError(f"{fn}(): argument '{name}' failed to unpack the object at pos {position} "
                     f"with error \"type must be tuple of ints,but got {type_name(value)}\"")


def varargs(fn: str, name: str, args: tuple, keyword: Any) -> tuple:
    """The sizes of ``f(*args)`` or of ``f(name=...)``: PyTorch's varargs int lists take their
    name as a keyword too (``x.permute(dims=(1, 0))``, ``ones(size=(2, 3))``).

    >>> varargs("permute", "dims", (), (1, 0)), varargs("permute", "dims", (1, 0), None)
    (((1, 0),), (1, 0))
    """
    if keyword is None:
        return args
    if args:
        raise TypeError(f"{fn}() got multiple values for argument '{name}'")
    return (keyword,)


def size_arg(fn: str, size: Any, varargs: bool = True, name: str = "size") -> tuple[int, ...]:
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
            raise TypeError(f'{fn}() missing 1 required positional arguments: "{name}"')
        first = size[0]
        if _is_int(first):
            for i, s in enumerate(size[1:], 2):
                if not _is_int(s, bool_ok=True):
                    raise _unpack_error(fn, i, s, name)
            return _in_int64(fn, name, tuple(int(s) for s in size))
        if len(size) > 1:
            raise TypeError(f"{fn}() takes 1 positional argument but {len(size)} were given")
        size = first
    if not isinstance(size, tuple | list):  # (symgrad.Size is a tuple)
        raise wrong_type(fn, name, "tuple of ints", size, 1)
    for i, s in enumerate(size):
        if not _is_int(s, bool_ok=i > 0):
            if i == 0:
                raise TypeError(f"{fn}(): argument '{name}' (position 1) must be tuple of "
                                f"ints, but found element of type {type_name(s)} at pos 0")
            raise _unpack_error(fn, i + 1, s, name)
    return _in_int64(fn, name, tuple(int(s) for s in size))


def _in_int64(fn: str, name: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    for i, s in enumerate(shape, 1):
        if not _INT64[0] <= s <= _INT64[1]:
            raise TypeError(f"{fn}(): argument '{name}' failed to unpack the object at pos {i} "
                            "with error \"Overflow when unpacking long long")
    total = 1
    for s in shape:
        total *= max(s, 0)
    if total > _INT64[1]:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    return shape


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


def number_arg(fn: str, name: str, value: Any, position: int, expected: str = "Number") -> Any:
    """A Python number, a numpy scalar or a 0-d Tensor's value (``fill_value``); ``expected``:
    how PyTorch's refusal names the type (``float`` for a ``double`` parameter).

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
    raise wrong_type(fn, name, expected, value, position)
