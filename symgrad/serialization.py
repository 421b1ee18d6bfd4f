"""``symgrad.save`` / ``symgrad.load``: tensors, state_dicts and optimizer state in a file that
cannot run code when loaded.

The file is a numpy ``.npz`` archive: each tensor one ``.npy`` array, and the structure around
them (dicts, lists, tuples, numbers, strings, None) as JSON in the array ``structure.json``.
``load`` reads it with ``allow_pickle=False``, so loading never unpickles; a file that would
need unpickling (a ``torch.save`` or ``pickle`` file, an object array) is refused with
``pickle.UnpicklingError``, as PyTorch's ``weights_only=True`` refuses what it cannot vouch for.
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import zipfile
from collections import Counter, OrderedDict
from typing import IO, Any

import numpy as np

from symgrad.creation import from_numpy
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor, check_device, device

_STRUCTURE = "structure.json"
_FORMAT = "symgrad-npz-1"


def _encode(obj: Any, arrays: dict[str, np.ndarray], seen: dict[int, str]) -> Any:
    """``obj`` as JSON-able data, its tensors moved into ``arrays``."""
    if obj is None or isinstance(obj, bool | int | str):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else {"float": repr(obj)}
    if isinstance(obj, Tensor):
        key = seen.get(id(obj))
        if key is None:
            key = f"t{len(arrays)}"
            seen[id(obj)] = key
            arrays[key] = np.asarray(obj.detach().numpy(), order="C")
        return {"tensor": key, "requires_grad": obj.requires_grad,
                "parameter": isinstance(obj, Parameter)}
    if isinstance(obj, np.generic):
        return _encode(obj.item(), arrays, seen)
    if isinstance(obj, list | tuple):
        items = [_encode(x, arrays, seen) for x in obj]
        return items if isinstance(obj, list) else {"tuple": items}
    if isinstance(obj, dict):
        kind = ("counter" if isinstance(obj, Counter) else
                "odict" if isinstance(obj, OrderedDict) else "dict")
        pairs = []
        for key, value in obj.items():
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise TypeError(f"symgrad.save cannot store a dict key of type "
                                f"{type(key).__name__}")
            pairs.append([key, _encode(value, arrays, seen)])
        return {kind: pairs}
    raise TypeError(f"symgrad.save cannot store {type(obj).__name__} objects: only tensors, "
                    "numbers, strings, None and lists, tuples and dicts of them (an .npz "
                    "archive that loads without unpickling)")


def _decode(data: Any, arrays: Any, made: dict[str, Tensor]) -> Any:
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return [_decode(x, arrays, made) for x in data]
    (kind, payload), = data.items() if len(data) == 1 else [("tensor", data)]
    if kind == "tensor":
        key = data["tensor"]
        if key not in made:
            value = from_numpy(np.array(arrays[key]))
            made[key] = (Parameter(value, data["requires_grad"]) if data["parameter"]
                         else value.requires_grad_(data["requires_grad"]))
        return made[key]
    if kind == "float":
        return float(payload)
    if kind == "tuple":
        return tuple(_decode(x, arrays, made) for x in payload)
    cls = {"dict": dict, "odict": OrderedDict, "counter": Counter}[kind]
    return cls(dict((key, _decode(value, arrays, made)) for key, value in payload))


def save(obj: Any, f: str | os.PathLike | IO[bytes]) -> None:
    """Write ``obj`` — a tensor, a ``state_dict``, an optimizer's ``state_dict``, or lists,
    tuples and dicts of tensors, numbers, strings and None — to the path or binary file ``f``
    as an ``.npz`` archive that :func:`load` reads without unpickling.

    >>> import io
    >>> buffer = io.BytesIO()
    >>> symgrad.save({"w": symgrad.tensor([1.0, 2.0]), "step": 3}, buffer)
    >>> _ = buffer.seek(0)
    >>> symgrad.load(buffer)
    {'w': tensor([1., 2.]), 'step': 3}
    """
    arrays: dict[str, np.ndarray] = {}
    structure = {"format": _FORMAT, "object": _encode(obj, arrays, {})}
    text = json.dumps(structure, allow_nan=False).encode()
    arrays[_STRUCTURE.removesuffix(".json")] = np.frombuffer(text, dtype=np.uint8)
    if isinstance(f, str | os.PathLike):
        with open(f, "wb") as handle:
            np.savez(handle, **arrays)
    else:
        np.savez(f, **arrays)


def _refuse(detail: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        f"symgrad.load refused the file: {detail}. Loading it would need unpickling, which can "
        "run arbitrary code; symgrad.load reads only the .npz archives symgrad.save writes "
        "(allow_pickle=False)")


def load(f: str | os.PathLike | IO[bytes], map_location: Any = None, *,
         weights_only: bool | None = None, **kwargs: Any) -> Any:
    """Read what :func:`save` wrote. Never unpickles: a pickle or ``torch.save`` file is
    refused with ``pickle.UnpicklingError``. ``map_location`` may only name the CPU.

    >>> import io, pickle
    >>> buffer = io.BytesIO()
    >>> symgrad.save(symgrad.nn.Linear(2, 1).state_dict(), buffer)
    >>> _ = buffer.seek(0)
    >>> list(symgrad.load(buffer))
    ['weight', 'bias']
    >>> symgrad.load(io.BytesIO(pickle.dumps([1, 2])))
    Traceback (most recent call last):
        ...
    _pickle.UnpicklingError: symgrad.load refused the file: it is not an .npz archive ...
    """
    if isinstance(map_location, str | device):
        check_device(map_location)  # symgrad's tensors live on the CPU
    if isinstance(f, str | os.PathLike):
        with open(f, "rb") as handle:
            return load(io.BytesIO(handle.read()), map_location, weights_only=weights_only)
    raw = f.read()
    if not raw.startswith(b"PK"):
        raise _refuse("it is not an .npz archive (a pickle or legacy torch.save file?)")
    try:
        archive = np.load(io.BytesIO(raw), allow_pickle=False)
    except (ValueError, OSError, zipfile.BadZipFile) as error:
        raise _refuse(f"not a readable .npz archive ({error})") from None
    with archive:
        if _STRUCTURE.removesuffix(".json") not in archive.files:
            raise _refuse("it holds no symgrad structure (a torch.save zip archive?)")
        try:
            text = archive[_STRUCTURE.removesuffix(".json")].tobytes()
            structure = json.loads(text)
            if structure.get("format") != _FORMAT:
                raise _refuse(f"unknown format {structure.get('format')!r}")
            return _decode(structure["object"], archive, {})
        except ValueError as error:  # an object array: numpy would have to unpickle it
            raise _refuse(str(error)) from None
