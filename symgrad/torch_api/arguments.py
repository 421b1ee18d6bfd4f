"""PyTorch's argument conversions and checks shared by the spellings of ``symgrad.torch_api``:
operands of binary ops, Python scalars, index keys, target shapes.

Each raises PyTorch's exception type and message before anything runs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import parser
from symgrad.autograd.graph import warn_at_user
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make, _torch_size

FAST_OPERANDS = frozenset((float, int, Tensor))  # operands taken as they are, checked fast


def scalar(value: Any) -> Any:
    """A Python number from a Python or numpy scalar (anything else is refused)."""
    if isinstance(value, bool | int | float):
        if value.__class__ is int:
            dtypes.check_int(value)
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Tensor):
        return value.item()
    raise TypeError(f"expected a Python number, got {type(value).__name__}")


def check_ints(*values: Any) -> None:
    """Refuse, as PyTorch's Scalar arguments do, a Python int among ``values`` that neither
    int64 nor uint64 holds (OverflowError); other values pass unchecked.

    >>> check_ints(1.5, 2 ** 70)
    Traceback (most recent call last):
    OverflowError: int too big to convert
    """
    for value in values:
        if value.__class__ is int:
            dtypes.check_int(value)


def result_dtype(*operands: Any) -> dtypes.dtype:
    """PyTorch's result dtype of tensors and Python numbers (a 0-d tensor or a number counts
    only when of a higher kind).

    >>> result_dtype(symgrad.ones(2, dtype=symgrad.int8), symgrad.tensor(3), 2)
    symgrad.int8
    """
    tensors = [(x.dtype, x._value.ndim) for x in operands if isinstance(x, Tensor)]
    return dtypes.promote(tensors, [x for x in operands if not isinstance(x, Tensor)])


def checked_number(value: Any, *tensors: Tensor, half_checked: bool = True) -> Any:
    """``value``, a Python number beside ``tensors`` (a clamp bound, a where operand), refused
    as PyTorch refuses it when it converts it, checked, to the result's dtype (see
    dtypes.check_fill: a huge, infinite or nan one, 300 for int8 ...), and wrapped into an
    unsigned one (uint8: -1 is 255). PyTorch's ``where`` converts a float into float16
    unchecked (``half_checked=False``: 1e5 becomes inf).

    >>> checked_number(2 ** 63, symgrad.tensor([1, 2]))
    Traceback (most recent call last):
    RuntimeError: value cannot be converted to type int64_t without overflow
    """
    narrow = any(x.dtype in dtypes.NARROW for x in tensors)
    if narrow or not -dtypes.FLOAT32_MAX <= value <= dtypes.FLOAT32_MAX or (
            value.__class__ is int and not dtypes.INT64_MIN <= value < dtypes.INT64_END):
        result = result_dtype(*tensors, value)
        if result is dtypes.float16 and not half_checked:
            return value
        return dtypes.check_fill(value, result.np_dtype)
    return value


def operand(value: Any, call: tuple[Any, ...] | None = None) -> Any:
    """A Tensor or Python number as a binary op's operand; for anything else None (so that an
    operator can return NotImplemented) or, given ``call``, PyTorch's TypeError for the running
    spelling called with those arguments (its function form's, ``value`` among them: see
    parser.refused_argument)."""
    cls = value.__class__
    if cls is float or cls is Tensor or cls is bool:  # the common cases, fast
        return value
    if cls is int:
        if not dtypes.INT64_MIN <= value < dtypes.UINT64_END:
            dtypes.check_int(value)
        return value
    if isinstance(value, (Tensor, bool, int, float)):  # noqa: UP038 - tuple is faster
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return _make(value)
    if call is not None:
        raise parser.refused_argument(call, next(i for i, x in enumerate(call) if x is value))
    return None


def check_not_bool_sub(a: Tensor, b: Any) -> None:
    a_bool = a._value.dtype.kind == "b"
    b_bool = isinstance(b, bool) or (isinstance(b, Tensor) and b._value.dtype.kind == "b")
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def check_alpha(a: Tensor, b: Any, alpha: float, name: str = "alpha") -> None:
    """Refuse ``alpha`` (the scalar argument ``name``) as PyTorch's add and sub do: an int
    beyond int64 and uint64, or a float when both operands are integral (or bool)."""
    check_ints(alpha)
    integral = a._value.dtype.kind in "biu" and (
        not isinstance(b, Tensor) or b._value.dtype.kind in "biu")
    if integral and isinstance(alpha, float):
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating "
                           "point number.")


def value_of(value: Any) -> Any:
    return value._value if isinstance(value, Tensor) else value


def normalize_key(key: Any) -> Any:
    """Turn Tensors and lists inside an index into numpy arrays; keep slices, ints, None, ...

    An index of integers only gets a trailing ``...``, so that numpy returns a 0-d view rather
    than a scalar copy: ``x[0]`` is a view of ``x``, as in PyTorch.
    """
    if isinstance(key, tuple):
        key = tuple(_key_part(k) for k in key)
    else:
        key = _key_part(key)
    if isinstance(key, int) or (isinstance(key, tuple) and key and all(
            isinstance(k, int) for k in key)):
        return (*key, Ellipsis) if isinstance(key, tuple) else (key, Ellipsis)
    return key


def split_key(key: Any, ndim: int) -> tuple[tuple, tuple] | None:
    """PyTorch's two steps for an index mixing ints with index arrays, or None for any other
    index (one step, numpy's rule agrees): the ints, slices, None and ``...`` first (a view
    whose int dims are gone), then the arrays on that view. numpy counts an int as an index
    array, so ``zeros(2, 3, 4)[0, :, idx]`` would put idx's dim first, where PyTorch gives
    (3, 2).

    >>> basic, advanced = split_key((0, slice(None), np.array([1, 0])), 3)
    >>> basic
    (0, slice(None, None, None), slice(None, None, None))
    >>> advanced
    (slice(None, None, None), array([1, 0]))
    """
    parts = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(p, np.ndarray) for p in parts) or any(
            isinstance(p, bool) for p in parts) or not any(isinstance(p, int) for p in parts):
        return None
    basic: list[Any] = []
    advanced: list[Any] = []
    for p in parts:
        if isinstance(p, np.ndarray):
            basic += [slice(None)] * (p.ndim if p.dtype == bool else 1)
            advanced.append(p)
        elif isinstance(p, int):
            basic.append(p)
        elif p is Ellipsis:
            basic.append(p)
            advanced.append(p)
        else:  # a slice, or None (its new dim is there for the second step)
            basic.append(p)
            advanced.append(slice(None))
    return tuple(basic), tuple(advanced)


def check_masks(shape: tuple[int, ...], key: Any) -> None:
    """PyTorch's IndexError for a bool mask whose shape differs from the dims it covers."""
    parts = key if isinstance(key, tuple) else (key,)
    consumed = [p.ndim if isinstance(p, np.ndarray) and p.dtype == bool else
                0 if p is None or p is Ellipsis or isinstance(p, bool) else 1 for p in parts]
    dim = 0
    for p, n in zip(parts, consumed, strict=True):
        if p is Ellipsis:
            dim += max(len(shape) - sum(consumed), 0)
            continue
        if isinstance(p, np.ndarray) and p.dtype == bool:
            for j, size in enumerate(p.shape):
                if dim + j < len(shape) and size != shape[dim + j]:
                    raise IndexError(f"The shape of the mask {list(p.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor {list(shape)} "
                                     f"at index {dim + j}")
        dim += n


def _key_part(part: Any) -> Any:
    if isinstance(part, str):  # PyTorch tries to make a tensor of it
        raise TypeError(f"new(): invalid data type '{type(part).__name__}'")
    if not (part is None or part is Ellipsis or isinstance(
            part, int | np.integer | slice | list | tuple | np.ndarray | Tensor)):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                         f"Variables are valid indices (got {type(part).__name__})")
    if part.__class__ is slice and part.step is not None:
        step = part.step
        if isinstance(step, int | np.integer) and step <= 0:  # (numpy reverses, PyTorch refuses)
            raise ValueError("step must be greater than zero" if step else
                             "slice step cannot be zero")
    if isinstance(part, tuple):
        part = list(part)
    if isinstance(part, Tensor):
        d = part.dtype
        if d is dtypes.uint8:  # (a mask, as PyTorch's legacy reads it)
            warn_at_user("indexing with dtype symgrad.uint8 is now deprecated, please use a dtype "
                         "symgrad.bool instead.")
            d, part = dtypes.bool_, part.bool()
        if d is dtypes.bool_ or dtypes.is_index(d):
            # a copy: the graph keeps the index as it was (PyTorch saves the index tensor)
            value = part._value.astype(np.int64) if d is dtypes.int32 else part._value.copy()
            # (a 0-d mask stays an array: numpy, as PyTorch, reads it as a new dim of 1 or 0)
            return value if value.ndim or d is dtypes.bool_ else value.item()
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if isinstance(part, list) and not part:
        return np.zeros(0, dtype=np.int64)  # x[[]]: an empty integer index
    if isinstance(part, list | np.ndarray):
        return np.array(part, copy=True)
    if isinstance(part, np.integer):
        return int(part)
    return part


def expanded_shape(shape: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...]:
    """``target`` with -1 resolved, checked as PyTorch checks an ``expand`` to it."""
    if len(target) < len(shape):
        raise RuntimeError(f"expand(symgrad.Tensor{{{_torch_size(shape)}}}, "
                           f"size={_torch_size(target)}): the number of sizes provided "
                           f"({len(target)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(shape)})")
    lead = len(target) - len(shape)
    for i, s in enumerate(target[:lead]):
        if s < 0:
            raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                               f"leading, non-existing dimension {i}")
    resolved = tuple(shape[i - lead] if s == -1 and i >= lead else s
                     for i, s in enumerate(target))
    for i, s in enumerate(shape):
        if s != 1 and s != resolved[lead + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({resolved[lead + i]}) must match the "
                f"existing size ({s}) at non-singleton dimension {lead + i}.  Target sizes: "
                f"{_torch_size(target)}.  Tensor sizes: {_torch_size(shape)}")
    return resolved


def infer_shape(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    unknown = [i for i, s in enumerate(shape) if s == -1]
    known = math.prod(s for s in shape if s != -1)
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if unknown and known and numel % known == 0:
        shape = shape[: unknown[0]] + (numel // known,) + shape[unknown[0] + 1:]
    if any(s < 0 for s in shape) or math.prod(shape) != numel:
        raise RuntimeError(f"shape '{_torch_size(shape)}' is invalid for input of size {numel}")
    return shape
