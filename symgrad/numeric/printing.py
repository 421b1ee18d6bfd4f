"""PyTorch-compatible string formatting of numpy arrays.

``format_tensor`` reproduces the text ``repr(torch_tensor)`` produces for
the same values (torch 2.x rules): fixed or scientific float notation chosen
from the data, column alignment, summarisation with ``...``, line wrapping
and the trailing ``dtype=`` / ``size=`` / user-supplied suffixes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["format_tensor", "get_printoptions", "set_printoptions"]

_PREFIX = "tensor("
_DTYPE_MODULE = "symgrad"
# Line breaks before suffixes are decided on the length torch's own text
# ("dtype=torch.float64") would have, so that the output is exactly torch's
# repr with only the module name in the dtype changed.
_LAYOUT_DTYPE_MODULE = "torch"
_ALWAYS_HIDDEN_DTYPES = ("int64", "bool")


class _PrintOptions:
    """Mutable print settings shared by every call to ``format_tensor`` (a plain class: a
    dataclass would cost ``import symgrad`` the compilation of its generated methods)."""

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self) -> None:
        self.precision: int = 4
        self.threshold: float = 1000
        self.edgeitems: int = 3
        self.linewidth: int = 80
        self.sci_mode: bool | None = None


_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

_OPTS = _PrintOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change the print options, like ``torch.set_printoptions``.

    A ``profile`` ("default", "short" or "full") is applied first, then the
    explicit arguments. ``sci_mode`` is always overwritten (``None`` restores
    the automatic choice), and unknown profile names are ignored, as in torch.

    >>> symgrad.set_printoptions(precision=2)
    >>> symgrad.tensor([1.23456])
    tensor([1.23])
    >>> symgrad.set_printoptions(profile="default")
    >>> symgrad.tensor([1.23456])
    tensor([1.2346])
    """
    if profile is not None and profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(_OPTS, name, value)
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return the current print options as a dict."""
    return {name: getattr(_OPTS, name) for name in _PrintOptions.__slots__}


class _ElementFormatter:
    """Formats single elements so that every column has the same width."""

    def __init__(self, sample: np.ndarray) -> None:
        self.is_float = sample.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = sample.reshape(-1)
        if not self.is_float:
            for item in flat.tolist():
                self.max_width = max(self.max_width, len(str(item)))
        else:
            self._scan_floats(flat)

    def _scan_floats(self, flat: np.ndarray) -> None:
        """Choose integer/fixed/scientific notation and the column width.

        Only finite non-zero values take part; without any, the defaults
        (integer notation, width 1) stay and ``sci_mode`` is not applied.
        """
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        magnitudes = np.abs(finite).astype(np.float64)
        smallest = float(magnitudes.min())
        largest = float(magnitudes.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        wide_range = largest / smallest > 1000.0 or largest > 1.0e8
        if not self.int_mode:
            wide_range = wide_range or smallest < 1.0e-4
        self.sci_mode = wide_range if _OPTS.sci_mode is None else bool(_OPTS.sci_mode)
        items = finite.tolist()
        if self.sci_mode:
            spec = f".{_OPTS.precision}e"
            widths = [len(format(item, spec)) for item in items]
        elif self.int_mode:
            widths = [len(format(item, ".0f")) + 1 for item in items]
        else:
            spec = f".{_OPTS.precision}f"
            widths = [len(format(item, spec)) for item in items]
        self.max_width = max(self.max_width, *widths)

    def width(self) -> int:
        """Width of one formatted element."""
        return self.max_width

    def __call__(self, item: Any) -> str:
        """Format one Python scalar, right-aligned to the common width."""
        if not self.is_float:
            text = str(item)
        elif self.sci_mode:
            text = format(item, f"{self.max_width}.{_OPTS.precision}e")
        elif self.int_mode:
            text = format(item, ".0f")
            if math.isfinite(item):
                text += "."
        else:
            text = format(item, f".{_OPTS.precision}f")
        return text.rjust(self.max_width)


def _summarized_sample(values: np.ndarray) -> np.ndarray:
    """Return the elements that stay visible once ``...`` elision applies."""
    edge = _OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        if values.shape[0] > 2 * edge:
            # ``values[-0:]`` is the whole vector; torch behaves the same way.
            return np.concatenate([values[:edge], values[-edge:]])
        return values
    if not edge:
        return np.empty((0,) * values.ndim, dtype=values.dtype)
    rows = range(values.shape[0])
    if values.shape[0] > 2 * edge:
        rows = [*range(edge), *range(values.shape[0] - edge, values.shape[0])]
    return np.stack([_summarized_sample(values[i]) for i in rows])


def _vector_text(values: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    """Format a 1-D array, wrapping lines at the configured width."""
    edge = _OPTS.edgeitems
    per_line = max(1, (_OPTS.linewidth - indent) // (fmt.width() + 2))
    if summarize and not edge:
        items = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        items = [fmt(v) for v in values[:edge].tolist()]
        items.append(" ...")
        items += [fmt(v) for v in values[-edge:].tolist()]
    else:
        items = [fmt(v) for v in values.tolist()]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_text(values: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    """Recursively format an array of any rank."""
    if values.ndim == 0:
        return fmt(values.item())
    if values.ndim == 1:
        return _vector_text(values, indent, summarize, fmt)
    edge = _OPTS.edgeitems
    count = values.shape[0]
    if summarize and count > 2 * edge:
        head = [_nested_text(values[i], indent + 1, summarize, fmt) for i in range(edge)]
        tail = [
            _nested_text(values[i], indent + 1, summarize, fmt) for i in range(count - edge, count)
        ]
        blocks = [*head, "...", *tail]
    else:
        blocks = [_nested_text(values[i], indent + 1, summarize, fmt) for i in range(count)]
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(blocks) + "]"


def _body_text(values: np.ndarray, indent: int) -> str:
    """Format the bracketed contents of a non-empty array."""
    summarize = values.size > _OPTS.threshold
    fmt = _ElementFormatter(_summarized_sample(values) if summarize else values)
    return _nested_text(values, indent, summarize, fmt)


def _append_suffixes(body: str, suffixes: Sequence[tuple[str, int]], indent: int) -> str:
    """Join ``(text, layout_length)`` suffixes, wrapping when a line overflows."""
    parts = [body]
    # torch measures the last line this way (two more than its real length).
    line_len = len(body) - body.rfind("\n") + 1
    for text, length in suffixes:
        if line_len + length + 2 > _OPTS.linewidth:
            parts.append(",\n" + " " * indent + text)
            line_len = indent + length
        else:
            parts.append(", " + text)
            line_len += length + 2
    parts.append(")")
    return "".join(parts)


def format_tensor(
    values: np.ndarray,
    dtype_name: str,
    is_default_dtype: bool,
    suffixes: Sequence[str] = (),
) -> str:
    """Return the repr PyTorch would print, e.g. 'tensor([1., 1., 1.], requires_grad=True)'.

    ``dtype_name`` is the bare dtype name ("float32", "int64", ...), and
    ``is_default_dtype`` tells whether it is the current default float dtype
    (then, as for int64 and bool, ``dtype=`` is omitted for non-empty arrays).
    ``suffixes`` such as ``"requires_grad=True"`` are appended after it.
    """
    values = np.asarray(values)
    if values.dtype.kind == "f" and values.dtype.itemsize < 4:
        values = values.astype(np.float32)
    indent = len(_PREFIX)
    extra: list[tuple[str, int]] = []
    dtype_suffix = (
        f"dtype={_DTYPE_MODULE}.{dtype_name}",
        len(f"dtype={_LAYOUT_DTYPE_MODULE}.{dtype_name}"),
    )
    if values.size == 0:
        if values.ndim != 1:
            size_text = f"size={tuple(values.shape)}"
            extra.append((size_text, len(size_text)))
        if not is_default_dtype:
            extra.append(dtype_suffix)
        body = "[]"
    else:
        if not _OPTS.edgeitems:
            size_text = f"size={tuple(values.shape)}"
            extra.append((size_text, len(size_text)))
        if not is_default_dtype and dtype_name not in _ALWAYS_HIDDEN_DTYPES:
            extra.append(dtype_suffix)
        body = _body_text(values, indent)
    extra.extend((text, len(text)) for text in suffixes)
    return _append_suffixes(_PREFIX + body, extra, indent)
