"""The API reference: every public name has a docstring with an example, and the examples run.

The public names are found by introspection (module ``__all__`` or ``dir``, Tensor's methods and
properties, the members of every public class), so a new public function without an example
fails here. Objects reached under several names (``symgrad.exp`` is ``Tensor.exp``) are checked
once, under their first name.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import types

import numpy as np
import pytest
import sympy

import symgrad
import symgrad.nn.functional as F
from symgrad.autograd.function import FunctionCtx

# The spellings install on first use; install them all, so that the static lookups below
# (inspect.getattr_static) find every method instead of its placeholder.
symgrad.torch_api.load_all()

# Where users reach public names; ``symgrad.symbolic`` and ``symgrad.viz`` load lazily.
MODULES = ("symgrad", "symgrad.nn", "symgrad.nn.functional", "symgrad.nn.init",
           "symgrad.nn.utils", "symgrad.nn.utils.parametrize", "symgrad.nn.utils.parametrizations",
           "symgrad.nn.utils.stateless",
           "symgrad.optim", "symgrad.optim.lr_scheduler",
           "symgrad.optim.swa_utils", "symgrad.linalg",
           "symgrad.autograd", "symgrad.autograd.functional", "symgrad.cuda", "symgrad.symbolic",
           "symgrad.utils.data", "symgrad.viz")
# Public classes reached without a public name: the ``ctx`` of a custom Function's forward.
EXTRA = {"symgrad.autograd.function.FunctionCtx": FunctionCtx}


def _ours(obj: object) -> bool:
    """Whether ``obj`` is defined in symgrad (not re-exported from typing, numpy ...)."""
    return (getattr(obj, "__module__", None) or "").startswith("symgrad")


def _members(cls: type) -> dict[str, object]:
    """The public methods and properties that symgrad defines on ``cls`` (inherited ones from
    builtins such as ``tuple.count`` excluded). Data attributes (slots such as
    ``Tensor.grad_fn``) are described in their class's docstring."""
    found = {}
    for name in dir(cls):
        if name.startswith("_"):
            continue
        attr = inspect.getattr_static(cls, name)
        if isinstance(attr, staticmethod | classmethod):
            attr = attr.__func__
        if isinstance(attr, property):
            if _ours(attr.fget):
                found[name] = attr
        elif inspect.isfunction(attr) and _ours(attr):
            found[name] = attr
    return found


def _module_names(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return list(names)


UNRESOLVED: dict[str, str] = {}  # public name -> why it cannot be reached


def public_objects() -> dict[str, object]:
    """Qualified public name -> object, the first name of each object only."""
    named: dict[str, object] = {}
    seen: set[int] = set()

    def add(name: str, obj: object) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        named[name] = obj
        if inspect.isclass(obj):
            for member, attr in _members(obj).items():
                add(f"{name}.{member}", attr)

    for module_name in MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            continue
        for name in _module_names(module):
            qualified = f"{module_name}.{name}"
            try:
                obj = getattr(module, name)
            except Exception as error:  # noqa: BLE001 - a lazy export that does not load
                UNRESOLVED[qualified] = f"{type(error).__name__}: {error}"
                continue
            if isinstance(obj, types.ModuleType):
                continue
            if isinstance(obj, types.SimpleNamespace):  # symgrad.return_types
                for inner, value in vars(obj).items():
                    add(f"{qualified}.{inner}", value)
            elif inspect.isclass(obj) or callable(obj):
                if _ours(obj):
                    add(qualified, obj)
            elif _ours(type(obj)):  # symgrad.float32: its type's docstring documents it
                add(f"{module_name}.{type(obj).__name__}", type(obj))
    for name, obj in EXTRA.items():
        add(name, obj)
    return named


PUBLIC = public_objects()


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_has_docstring_with_example(name):
    doc = PUBLIC[name].__doc__ or ""
    assert doc.strip(), f"{name} has no docstring"
    assert ">>>" in doc, f"{name}'s docstring has no example"


GLOBS = {"symgrad": symgrad, "t": symgrad, "np": np, "F": F, "sympy": sympy}
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


@pytest.mark.parametrize("name", sorted(n for n, o in PUBLIC.items() if ">>>" in (o.__doc__ or "")))
def test_examples_run(name):
    obj = PUBLIC[name]
    test = doctest.DocTestParser().get_doctest(obj.__doc__, dict(GLOBS), name, name, 0)
    assert test.examples, name
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    dtype = symgrad.get_default_dtype()
    try:
        result = runner.run(test, out=report.append)
    finally:
        symgrad.set_default_dtype(dtype)
    assert result.failed == 0, "".join(report)
    assert result.attempted > 0, f"{name}: every example is skipped"


def test_every_public_name_resolves():
    assert not UNRESOLVED, UNRESOLVED
