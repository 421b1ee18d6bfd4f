"""Docstrings derived from other docstrings: in-place variants and aliases.

PyTorch documents ``x.acos_()`` as "In-place version of acos()" and ``arccos`` as "Alias for
acos()". Here each such object gets its own docstring the same way, with an example built from
the first example of the function it derives from: the call ``symgrad.acos(symgrad.tensor(...))``
becomes ``x = symgrad.tensor(...)``, ``x.acos_()`` (then ``x``, to show it changed), or
``symgrad.arccos(...)``. ``tests/test_docstrings.py`` runs the results like any other example; a
base example that cannot be rewritten leaves the derived docstring without one, which that test
reports.

Deriving an example parses the base's examples, which would cost ``import symgrad`` a fifth of its
time: the derived examples are therefore generated once, into ``symgrad/_derived_docs.py``
(``python tools/generate_tensor_stub.py``, which ``tests/test_public_namespace.py`` checks), and
looked up at import by what they are derived from. A derivation missing from that table (a new
spelling, a changed base docstring) is computed at import, so a docstring is never stale.
"""

from __future__ import annotations

import ast
import inspect
import types
import zlib
from collections.abc import Callable
from typing import Any

_MODULES = ("symgrad", "t", "F")  # example calls on these are function spellings

try:
    from symgrad._derived_docs import EXAMPLES as _KNOWN
except ImportError:  # (while the table is first generated)
    _KNOWN = {}

# every derivation made or looked up in this process: key -> the base docstring it is from
USED: dict[tuple[str, str, str, bool, int], str] = {}


def _derived(kind: str, base: Callable[..., Any], name: str, method: bool) -> str | None:
    """The example derived from ``base``'s for ``name`` (``kind``: "inplace" or "alias"), from
    the generated table when it holds one for ``base``'s docstring as it is now."""
    doc = base.__doc__ or ""
    key = (kind, base.__name__, name, method, zlib.crc32(doc.encode()))
    USED[key] = doc
    return _KNOWN[key] if key in _KNOWN else derive(key, doc)


def derive(key: tuple[str, str, str, bool, int], doc: str) -> str | None:
    """Compute the derived example that ``key`` (see :func:`_derived`) names, from the base's
    docstring ``doc``; ``tools/generate_tensor_stub.py`` writes the table with it.

    >>> key = ("alias", "exp", "special_exp", False, 0)
    >>> derive(key, symgrad.exp.__doc__).startswith(">>> symgrad.special_exp(")
    True
    """
    kind, base_name, name, method, _ = key
    if kind == "alias":
        return _alias_example(doc, base_name, name)
    return _inplace_example(doc, base_name, name, method)


def _prompted(source: str) -> str:
    """``source`` as doctest input lines (``>>>`` then ``...``)."""
    first, *rest = source.rstrip("\n").split("\n")
    return "".join([f">>> {first}\n", *(f"... {line}\n" for line in rest)])


def _examples(doc: str) -> list[tuple[str, str]]:
    """The doctest examples of ``doc`` as (source, expected output), each ending with a newline
    as doctest's parser gives them (a small parser: importing doctest costs ``import symgrad``
    a quarter of its time)."""
    lines = doc.expandtabs().split("\n")
    examples = []
    i = 0
    while i < len(lines):
        stripped = lines[i].lstrip()
        if not stripped.startswith(">>>"):
            i += 1
            continue
        indent = len(lines[i]) - len(stripped)
        source = [stripped[4:]]
        i += 1
        while i < len(lines) and lines[i][indent:].startswith("..."):
            source.append(lines[i][indent + 4:])
            i += 1
        want = []
        while i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith(">>>"):
            want.append(lines[i][indent:])
            i += 1
        examples.append(("\n".join(source) + "\n", "".join(w + "\n" for w in want)))
    return examples


def _first_call(doc: str | None, attr: str) -> tuple[list[str], ast.Call, str, str] | None:
    """The first example of ``doc`` that prints something, if it calls ``attr``
    (``symgrad.acos(...)``, ``x.add(...)``, ``symgrad.cat(...).shape``): the sources before it,
    that call, the example's source and its expected output."""
    setup = []
    for source, want in _examples(doc or ""):
        if not want:
            setup.append(source)
            continue
        source = source.strip()
        try:
            tree = ast.parse(source, mode="eval")
        except SyntaxError:
            return None
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == attr:
                return setup, node, source, want
        return None
    return None


def _role(method: bool) -> str:
    return ":meth:" if method else ":func:"


def _inplace_example(doc: str, base_name: str, name: str, method: bool) -> str | None:
    """The first example of ``doc`` (the docstring of ``base_name``) rewritten to call the
    in-place ``name`` on a tensor that does not require grad, then to show that tensor."""
    found = _first_call(doc, base_name)
    if found is None:
        return None
    setup, call, source, want = found
    if ast.get_source_segment(source, call) != source or "grad_fn" in want:
        return None
    args = [ast.get_source_segment(source, a) for a in (*call.args, *call.keywords)]
    receiver = call.func.value
    if isinstance(receiver, ast.Name) and receiver.id in _MODULES:
        if not call.args:
            return None
        module, first, rest = receiver.id, args[0], args[1:]
    else:
        module, first, rest = None, ast.get_source_segment(source, receiver), args
    lines = [_prompted(s) for s in setup]
    target = first if first.isidentifier() else "x"
    if target != first:
        lines.append(_prompted(f"{target} = {first}"))
    if method:
        lines.append(_prompted(f"{target}.{name}({', '.join(rest)})"))
    elif module is not None:
        lines.append(_prompted(f"{module}.{name}({', '.join([target, *rest])})"))
    else:
        return None
    lines.append(want)
    if want.startswith("tensor("):
        lines += [_prompted(target), want]
    return "".join(lines)


def inplace_of(base: Callable[..., Any], *, method: bool = True
               ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: give the in-place variant an example derived from ``base``'s (and, if it has
    no docstring, "In-place version of ``base``"); a docstring that has an example is kept."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        document_inplace(fn, base, method=method)
        return fn

    return decorate


def document_inplace(fn: Callable[..., Any], base: Callable[..., Any], *,
                     method: bool = True) -> None:
    """Set the docstring of ``fn``, the in-place variant of ``base`` (see :func:`inplace_of`)."""
    if ">>>" in (fn.__doc__ or ""):
        return
    summary = inspect.cleandoc(fn.__doc__ or
                               f"In-place version of {_role(method)}`{base.__name__}`.")
    example = _derived("inplace", base, fn.__name__, method)
    fn.__doc__ = summary if example is None else f"{summary}\n\n{example}"


def _alias_example(doc: str, base_name: str, name: str) -> str | None:
    """The first example of ``doc`` (the docstring of ``base_name``) with the call renamed to
    ``name``."""
    found = _first_call(doc, base_name)
    if found is None or "\n" in found[2]:
        return None
    setup, call, source, want = found
    end = call.func.end_col_offset
    renamed = source[:end - len(base_name)] + name + source[end:]
    return "".join([*(_prompted(s) for s in setup), _prompted(renamed), want])


def function_copy(fn: types.FunctionType, name: str | None = None) -> types.FunctionType:
    """A copy of function ``fn`` (renamed ``name``) that runs a code object of its own, of the
    same text, with ``fn``'s defaults, closure, attributes and docstring: a frame then tells
    which of the two runs (tracebacks and PyTorch's argument errors name the spelling called,
    see parser.spelling_running)."""
    code = fn.__code__.replace(co_name=name) if name else fn.__code__.replace()
    name = name or fn.__name__
    copy = types.FunctionType(code, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__, copy.__annotations__ = fn.__kwdefaults__, fn.__annotations__
    copy.__module__, copy.__doc__ = fn.__module__, fn.__doc__
    copy.__dict__.update(fn.__dict__)
    owner = fn.__qualname__.rpartition(".")[0]
    copy.__qualname__ = fn.__qualname__ if name == fn.__name__ else \
        f"{owner}.{name}" if owner else name
    return copy


def alias(fn: Callable[..., Any], name: str, *, method: bool = True,
          doc: str | None = None) -> Callable[..., Any]:
    """A copy of function ``fn`` named ``name`` (:func:`function_copy`), documented as its
    alias (or with ``doc``), so that the API reference shows ``arccos`` as "Alias of acos"
    with an ``arccos`` example.
    """
    copy = function_copy(fn, name)
    if doc is None:
        example = _derived("alias", fn, name, method)
        doc = f"Alias of {_role(method)}`{fn.__name__}`."
        if example is not None:
            doc = f"{doc}\n\n{example}"
    copy.__doc__ = doc
    return copy
