"""The layering of docs/architecture.md, checked from the source: the import graph of the
package (module-level and function-level imports alike) has no cycle, and every import goes
down the layers or stays in its own."""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "symgrad"
sys.path.insert(0, str(ROOT / "tools"))

import import_graph  # noqa: E402
from import_graph import LAYERS, cycles, imports, layer_of  # noqa: E402

GRAPH = import_graph.graph()


def test_the_import_graph_has_no_cycle():
    found = cycles(GRAPH)
    assert not found, "import cycles: " + "; ".join(
        " <-> ".join(c) + " (" + ", ".join(f"{a} -> {sorted(GRAPH[a] & set(c))}" for a in c)
        + ")" for c in found)


def test_every_import_goes_down_the_layers():
    upward = [f"{a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})"
              for a, targets in sorted(GRAPH.items()) for b in sorted(targets)
              if layer_of(b) > layer_of(a)]
    assert not upward, "\n".join(upward)


def test_the_checker_sees_every_kind_of_import_and_every_cycle():
    # a function-level import, a relative one, a submodule through its package, a module named
    # in a string for importlib: each is an edge
    source = ("import importlib\nfrom . import engine\nfrom symgrad.ops import elementwise\n"
              "def f():\n    from symgrad.tensor import Tensor\n"
              "    return importlib.import_module('symgrad.dispatch')\n")
    assert imports("symgrad.autograd.graph", source) == {
        "symgrad.autograd.engine", "symgrad.ops.elementwise", "symgrad.tensor",
        "symgrad.dispatch"}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"b"}}) == []
    assert (layer_of("symgrad.autograd.graph") < layer_of("symgrad.tensor")
            < layer_of("symgrad.autograd.engine"))


def test_import_symgrad_does_not_import_sympy():
    result = subprocess.run(
        [sys.executable, "-c", "import sys, symgrad; x = symgrad.ones(2, requires_grad=True); "
         "(x * x).sum().backward(); print('sympy' in sys.modules)"],
        capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_numeric_never_imports_sympy():
    for path in (PACKAGE / "numeric").rglob("*.py"):
        text = path.read_text()
        assert "import sympy" not in text and "from sympy" not in text, path


def test_op_rules_do_not_import_numpy_for_computation():
    # op rules compute through the xp namespace only (numpy may appear in samples)
    for path in (PACKAGE / "ops").glob("*.py"):
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith(("lambda", "return")) or "forward=" in stripped:
                assert "np." not in stripped, f"{path.name}: {stripped}"


def test_every_namespace_provides_what_the_op_rules_call():

    from symgrad.autograd import tensor_namespace
    from symgrad.numeric import numpy_namespace
    from symgrad.symbolic import sympy_namespace

    used = {"sum_to_shape"}  # the engine's broadcasting rule
    for path in (PACKAGE / "ops").glob("*.py"):
        used |= set(re.findall(r"\bxp\.(\w+)", path.read_text()))
    for xp in (numpy_namespace, tensor_namespace, sympy_namespace):
        missing = sorted(name for name in used if not hasattr(xp, name))
        assert not missing, f"{xp.__name__} lacks {missing}"


def test_pytorch_module_level_helpers_exist():
    import symgrad as t

    assert t.cuda.is_available() is False and t.cuda.device_count() == 0
    assert t.is_anomaly_enabled() is False
    values = t.tensor([[1.0, 3.0], [2.0, 0.0]]).max(1)
    assert isinstance(values, t.return_types.max)
