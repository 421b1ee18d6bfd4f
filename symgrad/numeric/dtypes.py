"""symgrad's dtypes and PyTorch's type-promotion rules, on numpy dtypes."""

from __future__ import annotations

import numpy as np


class dtype:  # noqa: N801 - named like torch.dtype
    """A tensor element type, as PyTorch's ``torch.dtype``: ``symgrad.float32`` (alias
    ``float``), ``float64`` (``double``), ``float16`` (``half``), ``int64`` (``long``),
    ``int32`` (``int``), ``int16`` (``short``), ``int8``, ``uint8`` or ``bool``. Its
    ``is_floating_point``, ``is_signed`` and ``itemsize`` attributes are PyTorch's.

    >>> symgrad.float32, symgrad.float64.is_floating_point
    (symgrad.float32, True)
    >>> symgrad.tensor([1, 2], dtype=symgrad.float64)
    tensor([1., 2.], dtype=symgrad.float64)
    """

    __slots__ = ("name", "np_dtype", "is_floating_point", "is_signed", "itemsize", "_torch_name",
                 "_cpp_name", "_category")

    def __new__(cls, *args: object, **kwargs: object) -> dtype:
        if _FROZEN:
            raise TypeError("cannot create 'symgrad.dtype' instances")
        return super().__new__(cls)

    def __init__(self, name: str, np_dtype: np.dtype, torch_name: str, cpp_name: str,
                 category: int) -> None:
        self.name = name
        self.np_dtype = np.dtype(np_dtype)
        self.is_floating_point = category == 2
        self.is_signed = self.np_dtype.kind in "if"
        self.itemsize = self.np_dtype.itemsize
        self._torch_name = torch_name  # as PyTorch names it in error messages: 'Float'
        self._cpp_name = cpp_name  # as other PyTorch messages name it: 'float'
        self._category = category  # 0 bool, 1 integer, 2 floating point

    def __repr__(self) -> str:
        return f"symgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name


_FROZEN = False  # (the dtypes below are the only instances, as PyTorch's)
float32 = dtype("float32", np.float32, "Float", "float", 2)
float64 = dtype("float64", np.float64, "Double", "double", 2)
float16 = dtype("float16", np.float16, "Half", "c10::Half", 2)
int64 = dtype("int64", np.int64, "Long", "long int", 1)
int32 = dtype("int32", np.int32, "Int", "int", 1)
int16 = dtype("int16", np.int16, "Short", "short int", 1)
int8 = dtype("int8", np.int8, "Char", "signed char", 1)
uint8 = dtype("uint8", np.uint8, "Byte", "unsigned char", 1)
bool_ = dtype("bool", np.bool_, "Bool", "bool", 0)

_FROZEN = True
ALL = (float32, float64, float16, int64, int32, int16, int8, uint8, bool_)
NARROW = (float16, int32, int16, int8, uint8)  # (what many Python numbers do not fit)
_BY_NUMPY = {d.np_dtype: d for d in ALL}
# numpy types without a symgrad dtype that convert without loss of meaning
_WIDENED = {
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
# overflow" (where a fill value, a clamp bound ... does not fit)
_CHECKED = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
            np.dtype(np.float16): "c10::Half", np.dtype(np.int64): "int64_t",
            np.dtype(np.int32): "int", np.dtype(np.int16): "int16_t", np.dtype(np.int8): "int8_t",
            np.dtype(np.uint8): "uint8_t", np.dtype(np.bool_): "bool"}
_FLOAT_MAX = {np.dtype(np.float32): FLOAT32_MAX, np.dtype(np.float16): 65504.0}


def fits(value: object, target: np.dtype) -> bool:
    """Whether PyTorch converts the Python number ``value`` to numpy dtype ``target`` without
    overflow (its checked conversion): a float type takes inf, nan and anything up to its
    largest finite value; an integer type takes a finite float within its range, and an int
    within it (an unsigned one also a negative int down to minus its largest value: it wraps).
    An int beyond int64 and uint64 is :func:`check_int`'s to refuse.

    >>> byte = np.dtype(np.uint8)
    >>> fits(-1, byte), fits(-1.5, byte), fits(1e5, np.dtype(np.float16))
    (True, False, False)
    """
    cls = value.__class__
    if cls is not int and cls is not float or target.kind == "b" or target == np.float64:
        return True
    if target.kind == "f":
        return not _FLOAT_MAX[target] < abs(value) < float("inf")
    if cls is int:
        if target == np.int64:
            return value < INT64_END
        info = np.iinfo(target)
        return (-int(info.max) if target.kind == "u" else int(info.min)) <= value <= int(info.max)
    if value != value or abs(value) == float("inf"):
        return False
    if target == np.int64:
        return INT64_MIN <= value < INT64_END
    info = np.iinfo(target)
    return int(info.min) <= value <= int(info.max)


def check_fill(value: bool | int | float, target: np.dtype) -> bool | int | float:
    """Refuse a Python number that PyTorch will not store in a tensor of numpy dtype ``target``
    (a fill value, a masked_fill or scatter value, a clamp bound): an int beyond int64 and
    uint64 (OverflowError, as :func:`check_int`), and a number ``target`` cannot hold
    (RuntimeError; see :func:`fits`). Returns the number to store: a negative int wrapped into
    an unsigned ``target`` (uint8 and -1: 255), else ``value``.

    >>> check_fill(2 ** 63, np.dtype(np.int64))
    Traceback (most recent call last):
    RuntimeError: value cannot be converted to type int64_t without overflow
    >>> check_fill(1e300, np.dtype(np.float32))
    Traceback (most recent call last):
    RuntimeError: value cannot be converted to type float without overflow
    """
    if value.__class__ is int:
        check_int(value)
    if not fits(value, target):
        raise RuntimeError(f"value cannot be converted to type {_CHECKED[target]} without "
                           "overflow")
    if target.kind == "u" and value.__class__ is int and value < 0:
        return value % (1 << (8 * target.itemsize))
    return value


def not_implemented(kernel: str, d: dtype) -> NotImplementedError:
    """PyTorch's error for a dtype its ``kernel`` is not compiled for.

    >>> not_implemented("avg_pool2d", int32)
    NotImplementedError('"avg_pool2d" not implemented for \'Int\'')
    """
    return NotImplementedError(f"\"{kernel}\" not implemented for '{d._torch_name}'")


def check_random_bounds(low: int, high: int, d: dtype) -> None:
    """PyTorch's refusal of random integers in ``[low, high)`` that dtype ``d`` cannot hold.

    >>> check_random_bounds(0, 300, uint8)
    Traceback (most recent call last):
    RuntimeError: to - 1 is out of bounds for unsigned char
    """
    if d._category == 0:
        smallest, largest = 0, 1
    elif d._category == 1:
        info = np.iinfo(d.np_dtype)
        smallest, largest = int(info.min), int(info.max)
    else:
        largest = float(np.finfo(d.np_dtype).max)
        smallest = -largest
    if not smallest <= low <= largest:
        raise RuntimeError(f"from is out of bounds for {d._cpp_name}")
    if not smallest <= high - 1 <= largest:
        raise RuntimeError(f"to - 1 is out of bounds for {d._cpp_name}")


def is_index(d: dtype) -> bool:
    """Whether PyTorch takes a tensor of dtype ``d`` as positions where it takes int32 as well
    as int64 (gather, index_select, scatter, index_add, embedding, advanced indexing)."""
    return d is int64 or d is int32


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
        if best is None or (d._category, d.itemsize) > (best._category, best.itemsize):
            best = d
        elif d is not best and d.itemsize == best.itemsize == 1 and d._category == 1:
            best = int16  # (uint8 with int8: neither holds the other's values)
    return best


def can_cast(source: dtype, target: dtype) -> bool:
    """Whether an in-place op may write a ``source`` result into a ``target`` tensor."""
    return source._category <= target._category


def _dtype_arg(fn: str, value: object, name: str = "type", position: int = 1) -> dtype:
    if not isinstance(value, dtype):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be symgrad.dtype, "
                        f"not {type(value).__name__}")
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
    result = _widest([_dtype_arg("promote_types", type1, "type1"),
                      _dtype_arg("promote_types", type2, "type2", 2)])
    assert result is not None
    return result
