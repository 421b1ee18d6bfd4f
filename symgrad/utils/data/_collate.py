"""PyTorch's ``default_collate`` and ``default_convert``: how the DataLoader turns a list of
samples into a batch."""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.creation import as_tensor, tensor
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor
from symgrad.torch_api.shaping import stack

_STRING_OR_OBJECT = re.compile(r"[SaUO]")
_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
          "found {}")


def _is_numpy(value: Any) -> bool:
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def _as_tensor(value: Any) -> Tensor:
    """``as_tensor`` (sharing memory where symgrad can), else a copy (uint16, uint32 widened
    to int64)."""
    try:
        return as_tensor(value)
    except TypeError:
        return tensor(np.asarray(value))


def default_convert(data: Any) -> Any:
    """Convert numpy arrays and scalars (inside dicts, tuples and lists too) to tensors,
    leaving everything else; the DataLoader's ``collate_fn`` when ``batch_size=None``.

    >>> import numpy as np
    >>> symgrad.utils.data.default_convert({"x": np.array([1.0, 2.0]), "name": "a"})
    {'x': tensor([1., 2.], dtype=symgrad.float64), 'name': 'a'}
    """
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data):
        if isinstance(data, np.ndarray) and _STRING_OR_OBJECT.search(data.dtype.str):
            return data
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, str | bytes):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(like: Any, items: dict[Any, Any]) -> Any:
    """``items`` in a mapping of ``like``'s type when it can be built, else a dict."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(items)
            return clone
        return type(like)(items)
    except TypeError:
        return items


def _rebuild_sequence(like: Any, items: list[Any]) -> Any:
    """``items`` in a sequence of ``like``'s type when it can be built, else a list."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def default_collate(batch: Sequence[Any]) -> Any:
    """Stack a list of samples into a batch as PyTorch does: tensors are stacked (a new first
    dimension), numpy arrays and numbers become tensors (Python floats float64, ints int64),
    strings stay a list, and dicts, named tuples, tuples and lists are collated field by
    field (a tuple gives a list).

    >>> batch = [(symgrad.tensor([1.0, 2.0]), 0), (symgrad.tensor([3.0, 4.0]), 1)]
    >>> symgrad.utils.data.default_collate(batch)
    [tensor([[1., 2.],
            [3., 4.]]), tensor([0, 1])]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if _STRING_OR_OBJECT.search(elem.dtype.str):
            raise TypeError(_ERROR.format(elem.dtype))
        return default_collate([_as_tensor(b) for b in batch])
    if isinstance(elem, np.bool_ | np.number | np.object_):
        return _as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, str | bytes):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: default_collate([d[key] for d in batch])
                                       for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        fields = zip(*batch, strict=False)
        return type(elem)(*(default_collate(samples) for samples in fields))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(other) != size for other in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(samples) for samples in zip(*batch, strict=False)]
        if isinstance(elem, tuple):
            return transposed
        return _rebuild_sequence(elem, transposed)
    raise TypeError(_ERROR.format(type(elem)))
