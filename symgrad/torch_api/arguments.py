"""PyTorch's argument conversions and checks shared by the spellings of ``symgrad.torch_api``:
operands of binary ops, Python scalars, index keys, target shapes.

Each raises PyTorch's exception type and message before anything runs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make, _torch_size

FAST_OPERANDS = frozenset((float, int, Tensor))  # operands taken as they are, checked fast


def scalar(value: Any) -> Any:
    """A Python number from a Python or numpy scalar (anything else is refused)."""
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Tensor):
        return value.item()
    raise TypeError(f"expected a Python number, got {type(value).__name__}")


def operand(value: Any, strict: bool = False) -> Any:
    """A Tensor or Python number as a binary op's operand; None for anything else (so that an
    operator can return NotImplemented), or a TypeError when ``strict`` (method spellings)."""
    cls = value.__class__
    if cls is float or cls is Tensor or cls is int or cls is bool:  # the common cases, fast
        return value
    if isinstance(value, (Tensor, bool, int, float)):  # noqa: UP038 - tuple is faster
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return _make(value)
    if strict:
        raise TypeError(f"expected a Tensor or a number as the other operand, got "
                        f"{type(value).__name__}")
    return None


def check_not_bool_sub(a: Tensor, b: Any) -> None:
    if (a._value.dtype.kind == "b" or isinstance(b, bool)
            or (isinstance(b, Tensor) and b._value.dtype.kind == "b")):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def check_alpha(a: Tensor, b: Any, alpha: float) -> None:
    integral = a._value.dtype.kind in "biu" and (
        not isinstance(b, Tensor) or b._value.dtype.kind in "biu")
    if integral and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
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


def _key_part(part: Any) -> Any:
    if isinstance(part, Tensor):
        if part.dtype is dtypes.bool_ or part.dtype is dtypes.int64:
            # a copy: the graph keeps the index as it was (PyTorch saves the index tensor)
            return part._value.copy() if part._value.ndim else part._value.item()
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
