"""The import graph of the ``symgrad`` package, read from its source, and its layers.

``tests/test_architecture.py`` checks that the graph has no cycle and that every import goes
down :data:`LAYERS`; ``docs/architecture.md`` shows :func:`mermaid`, the layers and the imports
between them (the ``<!-- symgrad:import-graph -->`` marker, see ``tools/mkdocs_hooks.py``).

Every ``import`` statement counts, at module level or inside a function (a function-level import
runs the first time the function is called: it can close a cycle as surely as a module-level
one), and so does ``importlib.import_module`` of a module named by a string in the module. Only
imports under ``if TYPE_CHECKING:`` are left out: type checkers read them, Python never runs them.
"""

from __future__ import annotations

import ast
import pathlib
import re
from collections.abc import Iterator

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "symgrad"

# Bottom to top. A module belongs to the layer of the longest prefix that names it; it may
# import from its own layer (the graph stays acyclic) and from the layers below, never above.
LAYERS = (
    ("numeric", ("symgrad.numeric",)),
    ("ops", ("symgrad.ops",)),
    ("graph state", ("symgrad.autograd.grad_mode", "symgrad.autograd.graph",
               "symgrad.autograd.anomaly")),
    ("tensor", ("symgrad.tensor", "symgrad._docs", "symgrad._derived_docs", "symgrad.parser")),
    ("dispatch", ("symgrad.dispatch", "symgrad.creation")),
    ("autograd", ("symgrad.autograd",)),
    ("torch_api", ("symgrad.torch_api",)),
    ("library", ("symgrad.nn", "symgrad.optim", "symgrad.serialization", "symgrad.linalg",
                 "symgrad.cuda", "symgrad.utils")),
    ("symbolic", ("symgrad.symbolic", "symgrad.viz")),
    ("testing", ("symgrad.testing",)),
    ("package", ("symgrad", "symgrad.__main__")),
)


def module_name(path: pathlib.Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def resolve(name: str) -> str | None:
    """The module an import of ``name`` runs: itself, or the package that holds it."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement in ``body``, nested ones included (imports are statements: walking the
    statements only is enough, and much faster than walking every expression)."""
    for statement in body:
        yield statement
        if _type_checking_only(statement):
            # read by type checkers, never run: only its else branch imports at run time
            yield from _statements(statement.orelse)  # type: ignore[attr-defined]
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            yield from _statements(getattr(statement, field, None) or [])


def _type_checking_only(statement: ast.stmt) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    if not isinstance(statement, ast.If):
        return False
    test = statement.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(module: str, source: str | None = None) -> set[str]:
    """The symgrad modules ``module`` imports anywhere in its source (module level, functions,
    ``importlib.import_module`` of a module named by a string in it)."""
    path = MODULES[module]
    source = path.read_text() if source is None else source
    tree = ast.parse(source, str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str | None] = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            found |= {resolve(a.name) for a in node.names if a.name.startswith("symgrad")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            if base == "symgrad" or base.startswith("symgrad."):
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    found.add(full if full in MODULES else resolve(base))
    if "import_module(" in source:
        # a module named by a string anywhere in this module may be what it imports
        found |= {resolve(name) for name in re.findall(r"[\"']((?:symgrad)(?:\.\w+)*)[\"']",
                                                         source)}
    found.discard(None)
    found.discard(module)
    return found  # type: ignore[return-value]


def graph() -> dict[str, set[str]]:
    """Each module of the package -> the package modules it imports."""
    return {module: imports(module) for module in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return components


def layer_of(module: str) -> int:
    best, layer = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, layer = len(prefix), i
    assert layer is not None, f"{module} is in no layer of LAYERS"
    return layer




def mermaid() -> str:
    """A Mermaid flowchart of the layers, bottom to top, each listing its modules, with an arrow
    from a layer to each layer it imports from (an arrow that a longer path implies is left out,
    so the picture stays readable)."""
    edges = graph()
    members: dict[int, list[str]] = {}
    for module in sorted(MODULES):
        members.setdefault(layer_of(module), []).append(module)
    pairs = {(layer_of(a), layer_of(b)) for a, targets in edges.items() for b in targets
             if layer_of(a) != layer_of(b)}
    lines = ["```mermaid", "flowchart BT"]
    for i, (name, _) in enumerate(LAYERS):
        shown = ", ".join(m.removeprefix("symgrad.") or "symgrad" for m in
                          _collapse(members.get(i, [])))
        lines.append(f'    L{i}["<b>{name}</b><br/>{shown}"]')
    lines += [f"    L{a} --> L{b}" for a, b in sorted(_reduced(pairs))]
    lines.append("```")
    return "\n".join(lines) + "\n"


def _reduced(pairs: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The transitive reduction of an acyclic relation: the pairs no longer path implies."""
    reach: dict[int, set[int]] = {}
    for a, b in pairs:
        reach.setdefault(a, set()).add(b)

    def reachable(start: int, skip: tuple[int, int]) -> set[int]:
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            for target in reach.get(node, ()):
                if (node, target) != skip and target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen

    return {(a, b) for a, b in pairs if b not in reachable(a, (a, b))}


def _collapse(modules: list[str]) -> list[str]:
    """Module names, a package whose modules are all listed shown once as ``package.*``."""
    packages = [m for m in modules if MODULES[m].name == "__init__.py" and m != "symgrad"
                and all(n in modules for n in MODULES if n.startswith(m + "."))]
    return [m + ".*" if m in packages else m for m in modules
            if not any(m.startswith(p + ".") for p in packages)]
