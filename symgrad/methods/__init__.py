"""PyTorch's spellings of the registered ops: ``x.tan()``, ``symgrad.tan(x)``, ``F.gelu(x)``.

``tensor.py`` holds the Tensor's core methods. The op library beyond them lives in the family
modules of this package as plain functions with PyTorch's signatures and argument checks, each
decorated with :func:`torch_api`, which installs it as a Tensor method and/or a ``symgrad.<name>``
function and records which registered op it records (the registry test reads that to check every
public method). The ops themselves (forward and VJP rules) stay in ``symgrad.ops``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad import _docs
from symgrad.tensor import Tensor

COMPOSITE = "composite of registered ops"
NO_GRAPH = "not differentiable / no graph"

FUNCTIONS: dict[str, Callable[..., Any]] = {}  # symgrad.<name>, re-exported by symgrad/__init__
METHODS: dict[str, Callable[..., Any]] = {}  # Tensor.<name> installed from here


def torch_api(
    records: str,
    *,
    method: bool = True,
    function: bool = True,
    aliases: tuple[str, ...] = (),
    example: Callable[[Tensor], Any] | None = None,
    inplace: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Install the decorated function under its name (and ``aliases``) as a Tensor method
    (``method``) and as a ``symgrad`` function (``function``).

    ``records`` is the registry name of the op it records, or :data:`COMPOSITE` /
    :data:`NO_GRAPH`. ``example(x)`` calls it on a 2x3 float64 tensor that requires grad (for
    the registry test; default ``x.name()``); ``inplace`` marks in-place methods, which the test
    calls on a non-leaf copy.

    Docstrings: an in-place function without an example gets one derived from its out-of-place
    twin's (``name`` without the trailing ``_``), and each alias is installed as a copy of the
    function with its own "Alias of" docstring and example (see ``symgrad._docs``).
    """

    def install(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.records = records  # type: ignore[attr-defined]
        fn.example = example  # type: ignore[attr-defined]
        fn.inplace = inplace  # type: ignore[attr-defined]
        if inplace:
            base = _out_of_place(fn)
            if base is not None:
                _docs.document_inplace(fn, base, method=method)
        for name in (fn.__name__, *aliases):
            named = fn if name == fn.__name__ else _docs.alias(fn, name, method=not function)
            if method:
                if name in METHODS or name in Tensor.__dict__:
                    raise ValueError(f"Tensor.{name} is defined twice")
                METHODS[name] = named
                setattr(Tensor, name, named)
            if function:
                if name in FUNCTIONS:
                    raise ValueError(f"symgrad.{name} is defined twice")
                FUNCTIONS[name] = named
        return fn

    return install


def _out_of_place(fn: Callable[..., Any]) -> Callable[..., Any] | None:
    """The function that in-place ``fn`` (``acos_``) is a variant of (``acos``)."""
    name = fn.__name__.removesuffix("_")
    twin = fn.__globals__.get(name)
    if callable(twin) and hasattr(twin, "records"):
        return twin
    return METHODS.get(name) or FUNCTIONS.get(name) or getattr(Tensor, name, None)


# the family modules install themselves on import
from symgrad.methods import conv, nn, pointwise, reductions, shaping, softmax  # noqa: E402,F401
