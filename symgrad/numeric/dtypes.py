"""symgrad's dtypes and PyTorch's type-promotion rules, on numpy dtypes."""

from __future__ import annotations

import numpy as np


class dtype:  # noqa: N801 - named like torch.dtype
    """A tensor element type: ``symgrad.float32`` (alias ``float``), ``float64`` (``double``),
    ``int64`` (``long``) or ``bool``, as PyTorch's ``torch.dtype``. Its ``is_floating_point``
    attribute tells floating types apart.

    >>> symgrad.float32, symgrad.float64.is_floating_point
    (symgrad.float32, True)
    >>> symgrad.tensor([1, 2], dtype=symgrad.float64)
    tensor([1., 2.], dtype=symgrad.float64)
    """

    __slots__ = ("name", "np_dtype", "is_floating_point", "_torch_name", "_cpp_name", "_category")

    def __init__(self, name: str, np_dtype: np.dtype, torch_name: str, cpp_name: str,
                 category: int) -> None:
        self.name = name
        self.np_dtype = np.dtype(np_dtype)
        self.is_floating_point = category == 2
        self._torch_name = torch_name  # as PyTorch names it in error messages: 'Float'
        self._cpp_name = cpp_name  # as other PyTorch messages name it: 'float'
        self._category = category  # 0 bool, 1 integer, 2 floating point

    def __repr__(self) -> str:
        return f"symgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name


float32 = dtype("float32", np.float32, "Float", "float", 2)
float64 = dtype("float64", np.float64, "Double", "double", 2)
int64 = dtype("int64", np.int64, "Long", "long int", 1)
bool_ = dtype("bool", np.bool_, "Bool", "bool", 0)

ALL = (float32, float64, int64, bool_)
_BY_NUMPY = {d.np_dtype: d for d in ALL}
# numpy types that PyTorch users meet and that convert without loss of meaning
_WIDENED = {
    np.dtype(np.float16): float32,
    np.dtype(np.int8): int64,
    np.dtype(np.int16): int64,
    np.dtype(np.int32): int64,
    np.dtype(np.uint8): int64,
    np.dtype(np.uint16): int64,
    np.dtype(np.uint32): int64,
}

_default_float = float32


# a Python int operand is converted as PyTorch converts it: to int64, or to uint64 above
INT64_MIN, INT64_END, UINT64_END = -(2 ** 63), 2 ** 63, 2 ** 64
FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_int(value: int) -> None:
    """Refuse a Python int operand that neither int64 nor uint64 holds, with PyTorch's error.

    >>> check_int(2 ** 64)
    Traceback (most recent call last):
    OverflowError: int too big to convert
    """
    if value < INT64_MIN:
        raise OverflowError("can't convert negative int to unsigned")
    if value >= UINT64_END:
        raise OverflowError("int too big to convert")


def int_operand(value: int, other: object) -> int:
    """A Python int operand as PyTorch converts it beside ``other`` (the other operand's
    array, or a number): refused beyond int64 and uint64 (:func:`check_int`); one in
    [2**63, 2**64) is read as uint64, and beside an integer or bool array PyTorch then takes its
    bits as int64 (it wraps), where a float array gets its value.

    >>> int_operand(2 ** 64 - 1, np.array([1, 2]))
    -1
    >>> int_operand(2 ** 64 - 1, np.array([1.0]))
    18446744073709551615
    """
    check_int(value)
    if value >= INT64_END and isinstance(other, np.ndarray) and other.dtype.kind in "biu":
        if other.dtype.kind == "b":
            raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                               "attempted to promote Bool and UInt64")
        return value - UINT64_END
    return value


# PyTorch's name of each dtype's C++ type in "value cannot be converted to type ... without
# overflow", and the largest finite value a number converted to it may have
_CHECKED = {np.dtype(np.float32): ("float", FLOAT32_MAX),
            np.dtype(np.float64): ("double", None), np.dtype(np.int64): ("int64_t", None),
            np.dtype(np.bool_): ("bool", None)}


def check_fill(value: bool | int | float, target: np.dtype) -> None:
    """Refuse a Python number that PyTorch will not store in a tensor of numpy dtype ``target``
    (a fill value, a masked_fill or scatter value, a clamp bound): an int beyond int64 and
    uint64 (OverflowError, as :func:`check_int`), and a number ``target`` cannot hold: inf, nan
    or out of range for int64, finite beyond float32's range for float32 (RuntimeError).

    >>> check_fill(2 ** 63, np.dtype(np.int64))
    Traceback (most recent call last):
    RuntimeError: value cannot be converted to type int64_t without overflow
    >>> check_fill(1e300, np.dtype(np.float32))
    Traceback (most recent call last):
    RuntimeError: value cannot be converted to type float without overflow
    """
    cls = value.__class__
    if cls is int:
        check_int(value)
    name, largest = _CHECKED.get(target, (None, None))
    if target.kind == "i":
        if not (cls is bool or (cls is int and value < INT64_END) or (
                cls is float and INT64_MIN <= value < INT64_END)):
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    elif largest is not None and cls is float and largest < abs(value) < float("inf"):
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def get_default_dtype() -> dtype:
    """The dtype given to Python floats and float factories (float32 unless changed).

    >>> symgrad.get_default_dtype()
    symgrad.float32
    """
    return _default_float


def set_default_dtype(d: dtype) -> None:
    """Set the default floating-point dtype: ``symgrad.float32`` or ``symgrad.float64``.

    >>> symgrad.set_default_dtype(symgrad.float64)
    >>> symgrad.tensor([1.5]).dtype
    symgrad.float64
    >>> symgrad.set_default_dtype(symgrad.float32)
    """
    global _default_float
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d


def from_numpy_dtype(np_dtype: np.dtype) -> dtype:
    """The symgrad dtype that holds values of a numpy dtype."""
    np_dtype = np.dtype(np_dtype)
    found = _BY_NUMPY.get(np_dtype) or _WIDENED.get(np_dtype)
    if found is None:
        if np_dtype.kind == "c":
            raise TypeError("symgrad does not support complex dtypes")
        raise TypeError(f"can't convert np.ndarray of type numpy.{np_dtype.type.__name__}. The "
                        "only supported "
                        "types are: float64, float32, float16, int64, int32, int16, int8, "
                        "uint8, and bool.")
    return found


def as_dtype(d: object) -> dtype:
    """Accept a symgrad dtype (or a numpy dtype / Python type standing for one)."""
    if isinstance(d, dtype):
        return d
    if d is float:
        return float64
    if d is int:
        return int64
    if d is bool:
        return bool_
    try:
        return from_numpy_dtype(np.dtype(d))
    except TypeError:
        raise TypeError(f"expected a symgrad dtype, got {d!r}") from None


def scalar_category(value: object) -> int:
    """Category of a Python scalar: 0 bool, 1 integer, 2 floating point."""
    if isinstance(value, bool | np.bool_):
        return 0
    if isinstance(value, int | np.integer):
        return 1
    return 2


def promote(tensor_dtypes: list[tuple[dtype, int]], scalars: list[object]) -> dtype:
    """PyTorch's result type for tensors (given as ``(dtype, ndim)``) and Python scalars.

    Tensors with dimensions decide first; zero-dimensional tensors and then Python scalars
    only matter when they belong to a higher category (bool < integer < floating point).
    """
    dims = [d for d, ndim in tensor_dtypes if ndim > 0]
    zero_dims = [d for d, ndim in tensor_dtypes if ndim == 0]
    result = _widest(dims)
    zero = _widest(zero_dims)
    if result is None or (zero is not None and zero._category > result._category):
        result = zero if result is None or zero._category > result._category else result
    if scalars:
        top = max(scalar_category(s) for s in scalars)
        if result is None or top > result._category:
            result = (bool_, int64, _default_float)[top]
    return result if result is not None else _default_float


def _widest(dtypes: list[dtype]) -> dtype | None:
    best = None
    for d in dtypes:
        if best is None or (d._category, d.np_dtype.itemsize) > (best._category,
                                                                 best.np_dtype.itemsize):
            best = d
    return best


def can_cast(source: dtype, target: dtype) -> bool:
    """Whether an in-place op may write a ``source`` result into a ``target`` tensor."""
    return source._category <= target._category


def _dtype_arg(fn: str, value: object) -> dtype:
    if not isinstance(value, dtype):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be symgrad.dtype, not "
                        f"{type(value).__name__}")
    return value


class finfo:  # noqa: N801 - named like torch.finfo
    """The limits of a floating-point dtype (the default one if none is given), as
    ``torch.finfo``: ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``),
    ``resolution`` and ``dtype`` (its name).

    >>> symgrad.finfo(symgrad.float32).eps
    1.1920928955078125e-07
    >>> symgrad.finfo(symgrad.float64)
    finfo(resolution=1e-15, min=-1.79769e+308, max=1.79769e+308, eps=2.22045e-16, smallest_normal=2.22507e-308, tiny=2.22507e-308, dtype=float64)
    """  # noqa: E501 - PyTorch's repr

    def __init__(self, type: dtype | None = None) -> None:  # noqa: A002 - PyTorch's name
        d = _default_float if type is None else _dtype_arg("finfo", type)
        if not d.is_floating_point:
            raise TypeError("symgrad.finfo() requires a floating point input type. Use "
                            "symgrad.iinfo to handle 'symgrad.finfo'")
        info = np.finfo(d.np_dtype)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = float(info.resolution)
        self.dtype = d.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801 - named like torch.iinfo
    """The limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``max``, ``min`` and
    ``dtype`` (its name).

    >>> symgrad.iinfo(symgrad.int64).max
    9223372036854775807
    """

    def __init__(self, type: dtype) -> None:  # noqa: A002 - PyTorch's name
        d = _dtype_arg("iinfo", type)
        if d is bool_:
            raise TypeError("symgrad.bool is not supported by symgrad.iinfo")
        if d._category != 1:
            raise TypeError("symgrad.iinfo() requires an integer input type. Use "
                            "symgrad.finfo to handle 'symgrad.iinfo'")
        info = np.iinfo(d.np_dtype)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), \
            int(info.min), d.name

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both promote to (PyTorch's rule: bool < integer < floating point,
    the wider within a kind).

    >>> symgrad.promote_types(symgrad.int64, symgrad.float32)
    symgrad.float32
    """
    result = _widest([_dtype_arg("promote_types", type1), _dtype_arg("promote_types", type2)])
    assert result is not None
    return result
