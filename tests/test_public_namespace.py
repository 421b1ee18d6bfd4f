"""The public namespace: ``dir(symgrad)`` is exactly ``__all__``, and every name in it is real."""

from __future__ import annotations

import types
from pathlib import Path

import symgrad

PACKAGE = Path(symgrad.__file__).parent


def test_dir_is_exactly_all():
    assert dir(symgrad) == sorted(symgrad.__all__)
    assert symgrad.__all__ == sorted(set(symgrad.__all__))


def test_no_stray_helpers_in_the_namespace():
    for stray in ("Any", "annotations", "warnings", "np", "creation", "dispatch", "numeric",
                  "torch_api", "ops"):
        assert stray not in symgrad.__all__, stray


def test_every_public_name_resolves_and_star_import_gives_exactly_all():
    for name in symgrad.__all__:
        assert getattr(symgrad, name) is not None, name
    namespace: dict = {}
    exec("from symgrad import *", namespace)
    assert sorted(k for k in namespace if k != "__builtins__") == symgrad.__all__


def test_public_subpackages_and_pytorch_names_are_exported():
    modules = {n for n in symgrad.__all__ if isinstance(getattr(symgrad, n), types.ModuleType)}
    assert {"autograd", "nn", "symbolic", "linalg", "testing", "viz", "cuda"} <= modules
    for name in ("tensor", "Tensor", "ones", "no_grad", "float32", "exp", "matmul", "manual_seed"):
        assert name in symgrad.__all__, name


def test_internal_modules_stay_importable():
    import symgrad.creation
    import symgrad.ops

    assert symgrad.ops.REGISTRY
    assert "creation" not in dir(symgrad)


def test_the_package_ships_py_typed():
    assert (PACKAGE / "py.typed").is_file()


def _tool(name: str):
    import importlib.util

    path = PACKAGE.parent / "tools" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_stubs_of_installed_methods_and_functions_are_current():
    # the Tensor methods and symgrad.<name> functions torch_api installs, for type checkers
    stubs = _tool("generate_tensor_stub")
    for path, text in stubs.render().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.name} is out of date: run python tools/generate_tensor_stub.py")


def test_the_stubs_declare_every_installed_name():
    from symgrad import torch_api

    methods = (PACKAGE / "_tensor_methods.pyi").read_text(encoding="utf-8")
    functions = (PACKAGE / "_functions.pyi").read_text(encoding="utf-8")
    for name in torch_api.METHODS:
        assert f"    def {name}(" in methods, name
    for name in torch_api.FUNCTIONS:
        assert f"\ndef {name}(" in functions, name
