"""The declaration of a PyTorch spelling: :func:`torch_api` installs a function as a Tensor method
and/or a ``symgrad`` function and notes the op it records; :data:`METHODS` and :data:`FUNCTIONS`
hold what it installed (see ``symgrad.torch_api``).
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
    method_aliases: tuple[str, ...] = (),
    function_aliases: tuple[str, ...] = (),
    example: Callable[[Tensor], Any] | None = None,
    inplace: bool = False,
    name: str | None = None,
    attribute: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Install the decorated function under its name (and ``aliases``) as a Tensor method
    (``method``) and as a ``symgrad`` function (``function``).

    ``records`` is the registry name of the op it records, or :data:`COMPOSITE` /
    :data:`NO_GRAPH`. ``example(x)`` calls it on a 2x3 float64 tensor that requires grad (for
    the registry test; default ``x.name()``); ``inplace`` marks in-place methods, which the test
    calls on a non-leaf copy.

    ``method_aliases`` are further names on Tensor only (operators: ``__eq__`` for ``eq``),
    ``function_aliases`` further names in ``symgrad`` only (``subtract`` for ``sub``). ``name``
    renames the function first (a function made by a factory, or a method whose name its module
    already uses for the function spelling); ``attribute`` installs a property (``x.T``).
    Operators are declared here like any method: the installed function is the one Python calls,
    so a declaration costs nothing per call.

    Docstrings: an in-place function without an example gets one derived from its out-of-place
    twin's (``name`` without the trailing ``_``), and each alias is installed as a copy of the
    function with its own "Alias of" docstring and example (see ``symgrad._docs``).
    """

    def install(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name is not None:
            fn.__name__ = name
            fn.__qualname__ = fn.__qualname__.rpartition(".")[0] + "." * (
                "." in fn.__qualname__) + name
        fn.records = records  # type: ignore[attr-defined]
        fn.example = example  # type: ignore[attr-defined]
        fn.inplace = inplace  # type: ignore[attr-defined]
        if inplace:
            base = _out_of_place(fn)
            if base is not None:
                _docs.document_inplace(fn, base, method=method)
        for spelling in (fn.__name__, *aliases, *method_aliases, *function_aliases):
            named = fn if spelling == fn.__name__ else _docs.alias(fn, spelling,
                                                                    method=not function)
            if method and spelling not in function_aliases:
                if spelling in METHODS or spelling in Tensor.__dict__:
                    raise ValueError(f"Tensor.{spelling} is defined twice")
                METHODS[spelling] = named
                setattr(Tensor, spelling, property(named) if attribute else named)
            if function and spelling not in method_aliases:
                if spelling in FUNCTIONS:
                    raise ValueError(f"symgrad.{spelling} is defined twice")
                FUNCTIONS[spelling] = named
        return fn

    return install


def _out_of_place(fn: Callable[..., Any]) -> Callable[..., Any] | None:
    """The function that in-place ``fn`` (``acos_``) is a variant of (``acos``)."""
    name = fn.__name__.removesuffix("_")
    twin = fn.__globals__.get(name)
    if callable(twin) and hasattr(twin, "records"):
        return twin
    return METHODS.get(name) or FUNCTIONS.get(name) or getattr(Tensor, name, None)
