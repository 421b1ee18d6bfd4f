"""Reference pages generated from the code at build time (tools/mkdocs_hooks.py inserts them).

- :func:`coverage_table`: every op of ``symgrad.ops.REGISTRY``, the PyTorch spellings that record
  it, its node name, its numeric VJP and symbolic rule, and its declared kinks.
- :func:`conventions_table`: the gradient symgrad uses at each declared kink (``Sample.kinks``
  of the registry), computed by running the op's own VJP there, next to the one-sided
  derivatives of its forward; and at ties of the max/min-like ops.
- :func:`convention_rules_table`: each op's convention at its kinks as its record states it
  (``Op.convention``), and its singular points with their fixes (``Op.singular``).
- :func:`api_markdown`: mkdocstrings directives for every public name of a module.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
import sys
import textwrap
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np

import symgrad
from symgrad import torch_api
from symgrad.dispatch import apply_op
from symgrad.ops import REGISTRY, Op

# the sibling module, also when this file is loaded by path (mkdocs' hooks, the tests)
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from docstring_markdown import markdown_docstring  # noqa: E402
from signature_markers import with_separators  # noqa: E402

SOURCES = Path(symgrad.__file__).resolve().parent


# --- which public spellings record which op -------------------------------------------------

def _public_callables() -> dict[str, Callable]:
    """The public spellings: ``Tensor.x``, ``symgrad.x``, ``F.x``, ``linalg.x``."""
    from symgrad.nn import functional

    torch_api.load_all()  # every spelling installed on Tensor (they install on first use)
    found: dict[str, Callable] = {}
    for prefix, owner in (("Tensor.", symgrad.Tensor), ("symgrad.", symgrad),
                          ("F.", functional), ("linalg.", symgrad.linalg)):
        for name in dir(owner):
            if name.startswith("_") and not (prefix == "Tensor." and name in _DUNDERS):
                continue
            # a class's attributes as declared; a module's as exported (symgrad.exp is bound
            # when first read)
            obj = (inspect.getattr_static(owner, name, None) if isinstance(owner, type)
                   else getattr(owner, name, None))
            if isinstance(obj, property):
                obj = obj.fget
            obj = getattr(obj, "__func__", obj)
            if isinstance(obj, types.FunctionType) and obj.__module__.startswith("symgrad"):
                found[prefix + name] = obj
    return found


_DUNDERS = {"__add__": "+", "__sub__": "-", "__mul__": "*", "__truediv__": "/",
            "__pow__": "**", "__matmul__": "@", "__neg__": "unary -", "__getitem__": "x[...]",
            "__setitem__": "x[...] = v", "__rsub__": "scalar - x", "__rtruediv__": "scalar / x",
            "__rpow__": "scalar ** x", "__abs__": "abs(x)"}


_VISITING: set[tuple[str, int]] = set()


@functools.cache
def _ops_referenced(filename: str, lineno: int) -> frozenset[str]:
    """Registry ops that the function defined at ``filename:lineno`` names in its body, or
    through the private helpers it calls."""
    if (filename, lineno) in _VISITING:  # recursion among helpers
        return frozenset()
    _VISITING.add((filename, lineno))
    try:
        return _ops_in_function(filename, lineno)
    finally:
        _VISITING.discard((filename, lineno))


def _ops_in_function(filename: str, lineno: int) -> frozenset[str]:
    tree = _parse(filename)
    module = next((m for m in list(sys.modules.values())
                   if getattr(m, "__file__", None) == filename), None)
    if module is None:
        return frozenset()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                (d.lineno if node.decorator_list else node.lineno) == lineno
                for d in [*node.decorator_list, node]):
            return frozenset(op.name for op in _resolved_ops(node, vars(module)))
    return frozenset()


@functools.cache
def _parse(filename: str) -> ast.Module:
    return ast.parse(Path(filename).read_text(encoding="utf-8"))


def _resolved_ops(function: ast.AST, namespace: dict) -> list[Op]:
    found = []
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute | ast.Name):
            obj = _resolve(node, namespace)
            if isinstance(obj, Op):
                if obj.name in REGISTRY:  # not the unregistered NotImplemented-node ops
                    found.append(obj)
            elif (isinstance(obj, types.FunctionType) and obj.__name__.startswith("_")
                  and obj.__module__.startswith("symgrad")):
                # a private helper does the recording for its public caller
                code = obj.__code__
                found += [REGISTRY[n] for n in _ops_referenced(code.co_filename,
                                                                code.co_firstlineno)
                          if n in REGISTRY]  # an unregistered Op (floor_divide) is no row
    return found


def _resolve(node: ast.AST, namespace: dict) -> object:
    if isinstance(node, ast.Name):
        return namespace.get(node.id)
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            # a Tensor method calling its own private helper (self._cast)
            return getattr(symgrad.Tensor, node.attr, None) if node.attr.startswith("_") \
                else None
        base = _resolve(node.value, namespace)
        if isinstance(base, types.ModuleType):
            return getattr(base, node.attr, None)
    return None


def recorded_by() -> dict[str, list[str]]:
    """For each registry op, the public spellings that record it (declared with
    ``torch_api(records=...)`` or naming the op in their own body)."""
    spellings: dict[str, set[str]] = {name: set() for name in REGISTRY}
    for public, fn in _public_callables().items():
        declared = getattr(fn, "records", None)
        if declared in REGISTRY:
            spellings[declared].add(public)
        try:
            code = inspect.unwrap(fn).__code__
        except AttributeError:
            continue
        for op_name in _ops_referenced(code.co_filename, code.co_firstlineno):
            spellings[op_name].add(public)
    return {name: sorted(s, key=_spelling_order) for name, s in spellings.items()}


def _spelling_order(spelling: str) -> tuple[int, str]:
    order = ("Tensor.", "symgrad.", "F.", "linalg.")
    return next(i for i, p in enumerate(order) if spelling.startswith(p)), spelling


def _show_spelling(spelling: str) -> str:
    prefix, _, name = spelling.partition(".")
    if name in _DUNDERS:
        return f"`{_DUNDERS[name]}`"
    return f"`{spelling}`"


# --- tables --------------------------------------------------------------------------------

# ops that only gradients of gradients record: the Tensor namespace applies them
_DOUBLE_BACKWARD = frozenset(re.findall(
    r"ops\.\w+\.(\w+)", (SOURCES / "autograd" / "tensor_namespace.py").read_text(encoding="utf-8")))

def _kink_points(op: Op) -> list[float]:
    points = sorted({k for s in op.samples for k in s.kinks})
    return points


def _fmt(x: float) -> str:
    x = float(x)
    if np.isnan(x):
        return "jump"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{round(x, 6):g}"


def _points(points: list[float], limit: int = 5) -> str:
    shown = ", ".join(_fmt(p) for p in points[:limit])
    return shown + (", ..." if len(points) > limit else "")


def coverage_table() -> str:
    """The op coverage table (Markdown), one row per registry op."""
    spellings = recorded_by()
    rows = ["| op | node | recorded by | numeric VJP | symbolic rule | kinks at |",
            "| --- | --- | --- | --- | --- | --- |"]
    for name in sorted(REGISTRY):
        op = REGISTRY[name]
        shown = ", ".join(_show_spelling(s) for s in spellings[name]) or (
            "(double backward)" if name in _DOUBLE_BACKWARD else "(internal)")
        vjp = "joint" if op.joint_vjp is not None else "per input"
        rule = "explicit `lower`" if op.lower is not None else "forward replayed"
        kinks = _points(_kink_points(op))
        rows.append(f"| `{name}` | `{op.node_name}` | {shown} | {vjp} | {rule} | {kinks} |")
    return "\n".join(rows) + "\n"


def _derivative_rows(op: Op) -> list[tuple[str, float, float, float, float]]:
    """(params, point, left, right, used) at each declared kink of a one-input op."""
    rows = []
    seen = set()
    for sample in op.samples:
        if (not sample.kinks or len(sample.shapes) != 1
                or op.forward.__module__ not in ("symgrad.ops.elementwise",
                                                 "symgrad.ops.nn")):
            continue
        key = repr(sorted(sample.params.items()))
        if key in seen:
            continue
        seen.add(key)
        kinks = sorted(set(sample.kinks))
        shape = sample.shapes[0] or ()
        size = max(int(np.prod(shape)), len(kinks))
        if shape and size != int(np.prod(shape)):
            shape = (size,) if len(shape) == 1 else (*shape[:-1], -1)
        points = np.resize(np.array(kinks, dtype=np.float64), size).reshape(shape or size)
        if points.size != size:
            points = np.resize(np.array(kinks, dtype=np.float64), size)
        x = symgrad.tensor(points, dtype=symgrad.float64, requires_grad=True)
        out = apply_op(op, x, **sample.params)
        if out.shape != x.shape:  # a reduction (vector_norm): not a per-point convention
            continue
        used = symgrad.autograd.grad(out.sum(), x)[0].numpy()
        h = 1e-7

        def f(v, sample=sample):
            return apply_op(op, symgrad.tensor(v, dtype=symgrad.float64),
                                     **sample.params).numpy()
        at = f(points)
        jump = 1e-4  # a step of h moving the value this much is a discontinuity
        left = np.where(np.abs(at - f(points - h)) > jump, np.nan, (at - f(points - h)) / h)
        right = np.where(np.abs(f(points + h) - at) > jump, np.nan, (f(points + h) - at) / h)
        params = ", ".join(f"{k}={v}" for k, v in sample.params.items())
        found = {}
        for p, lft, rgt, u in zip(points.ravel(), left.ravel(), right.ravel(), used.ravel(),
                                  strict=True):
            found.setdefault(float(p), (params, float(p), lft, rgt, u))
        rows += [found[p] for p in sorted(found)]
    return rows


def convention_rules_table() -> str:
    """What each op's record says about its non-differentiable and singular points (Markdown):
    the convention at its kinks (``Op.convention``) and where its derivative is infinite, with
    the fix ``symbolic.explain`` suggests (``Op.singular``)."""
    lines = ["| op | node | at its kinks | singular at | usual fix |",
             "| --- | --- | --- | --- | --- |"]
    for name in sorted(REGISTRY):
        op = REGISTRY[name]
        if not (op.convention or op.singular):
            continue
        causes = "; ".join(point.cause for point in op.singular) or "—"
        fixes = " / ".join(point.fix for point in op.singular) or "—"
        lines.append(f"| `{name}` | `{op.node_name}` | {op.convention or '—'} | {causes} | "
                     f"{fixes} |")
    return "\n".join(lines) + "\n"


def conventions_table() -> str:
    """The conventions at the registry's declared kinks (Markdown)."""
    lines = ["| op | node | params | point | left derivative | right derivative | "
             "gradient used |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for name in sorted(REGISTRY):
        op = REGISTRY[name]
        rows = _derivative_rows(op)
        if rows:  # one line per distinct result (floor: all integers alike)
            merged: dict[tuple, list[float]] = {}
            for params, p, lft, rgt, u in rows:
                key = (params, _fmt(lft), _fmt(rgt), _fmt(u))
                merged.setdefault(key, []).append(p)
            rows = [(k[0], pts, k[1], k[2], k[3]) for k, pts in merged.items()]
        for params, p, lft, rgt, u in rows:
            point = _points(p) if isinstance(p, list) else _fmt(p)
            lines.append(f"| `{name}` | `{op.node_name}` | {params or '—'} | {point} | "
                         f"{_fmt(lft) if not isinstance(lft, str) else lft} | "
                         f"{_fmt(rgt) if not isinstance(rgt, str) else rgt} | "
                         f"{_fmt(u) if not isinstance(u, str) else u} |")
    return "\n".join(lines) + "\n"


_C = [1.0, 1.0, 0.0]
TIES: tuple[tuple[str, Callable], ...] = (
    ("x.max()", lambda x: x.max()),
    ("x.min()", lambda x: x.min()),
    ("x.amax()", lambda x: x.amax()),
    ("x.amin()", lambda x: x.amin()),
    ("x.max(dim=0).values", lambda x: x.max(dim=0).values),
    ("x.min(dim=0).values", lambda x: x.min(dim=0).values),
    ("linalg.vector_norm(x, inf)", lambda x: symgrad.linalg.vector_norm(x, float("inf"))),
    ("symgrad.maximum(x, c)", lambda x: symgrad.maximum(x, symgrad.tensor(_C))),
    ("symgrad.minimum(x, c)", lambda x: symgrad.minimum(x, symgrad.tensor(_C))),
    ("x.median()", lambda x: x.median()),
    ("x.median(dim=0).values", lambda x: x.median(dim=0).values),
    ("x.kthvalue(2).values", lambda x: x.kthvalue(2).values),
    ("x.mode().values", lambda x: x.mode().values),
    ("x.topk(1).values", lambda x: x.topk(1).values),
    ("x.sort().values", lambda x: x.sort().values),
    ("x.cummax(0).values", lambda x: x.cummax(0).values),
    ("x.cummin(0).values", lambda x: x.cummin(0).values),
    ("F.max_pool2d(x.view(1, 1, 1, 3), (1, 3))",
     lambda x: _functional().max_pool2d(x.view(1, 1, 1, 3), (1, 3))),
    ("F.adaptive_max_pool2d(x.view(1, 1, 1, 3), 1)",
     lambda x: _functional().adaptive_max_pool2d(x.view(1, 1, 1, 3), 1)),
)


def _functional() -> types.ModuleType:
    from symgrad.nn import functional

    return functional


def ties_table() -> str:
    """The gradient at ties: each expression differentiated at ``x = [1, 0, 1]``, computed."""
    lines = ["| expression at `x = [1., 0., 1.]`, `c = [1., 1., 0.]` | node | "
             "`x.grad` of its sum |",
             "| --- | --- | --- |"]
    for shown, fn in TIES:
        x = symgrad.tensor([1.0, 0.0, 1.0], requires_grad=True)
        y = fn(x)
        y.sum().backward()
        grad = "[" + ", ".join(_fmt(v) for v in x.grad.numpy()) + "]"
        lines.append(f"| `{shown}` | `{type(y.grad_fn).__name__}` | `{grad}` |")
    return "\n".join(lines) + "\n"


# --- API reference ---------------------------------------------------------------------------

def public_names(module: types.ModuleType) -> list[str]:
    """The names a module documents: its ``__all__``, else its public functions and classes
    defined in symgrad (imported helpers such as ``np`` or ``Sequence`` excluded)."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")
                 and (inspect.isfunction(getattr(module, n)) or inspect.isclass(getattr(module, n)))
                 and getattr(module, n).__module__.startswith("symgrad")]
    return sorted(names)


def _static_home(obj: object) -> str | None:
    """Where griffe's static analysis finds ``obj`` with the docstring Python shows, or None
    (functions copied, wrapped or documented at import time: rendered by :func:`_render`)."""
    home = _home(obj)
    if home is None or inspect.isclass(obj):
        return home
    code = getattr(obj, "__code__", None)
    if code is None or hasattr(obj, "__wrapped__") or code.co_name != obj.__name__:
        return None
    for node in ast.walk(_parse(code.co_filename)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == code.co_name \
                and code.co_firstlineno in (node.lineno, *(d.lineno for d in node.decorator_list)):
            return home if ast.get_docstring(node, clean=False) == obj.__doc__ else None
    return None


def _wrapped_signature(name: str, signature: inspect.Signature, width: int = 76) -> str:
    """``name(params) -> result`` on one line, or one parameter a line when that is too wide
    for the page's code column."""
    line = f"{name}{signature}"
    if len(line) <= width:
        return line
    params = [str(p) for p in with_separators(signature.parameters.values())]
    shown = signature.replace(parameters=[])
    result = str(shown).removeprefix("()")
    return name + "(\n" + "".join(f"    {p},\n" for p in params) + ")" + result


def _render(obj: object, heading: str, level: int) -> str:
    """A function documented by hand: heading, signature and docstring, as Python shows them."""
    try:
        signature = _wrapped_signature(obj.__name__, inspect.signature(obj))
    except (TypeError, ValueError):
        signature = obj.__name__
    doc = markdown_docstring(inspect.cleandoc(obj.__doc__ or ""))
    # in a "doc" block like mkdocstrings' own entries, so that they look and wrap the same
    return (f"{'#' * level} `{heading}`\n\n<div class=\"doc\" markdown>\n\n```python\n"
            f"{signature}\n```\n\n{doc}\n\n</div>\n")


def _home(obj: object) -> str | None:
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    code = getattr(obj, "__code__", None)
    if qualname and code is not None and code.co_name != obj.__name__:
        # an alias made by torch_api (symgrad.concat): documented where its code is (cat)
        qualname = qualname.rpartition(".")[0] + "." * ("." in qualname) + code.co_name
    if module and qualname and "<" not in qualname:
        return f"{module}.{qualname}"
    return None


OWN_PAGES = {"symgrad.tensor.Tensor": "tensor.md"}  # documented on a page of their own


def api_markdown(module_name: str, exclude: tuple[str, ...] = ()) -> str:
    """mkdocstrings directives for every public name of ``module_name``; names that are
    Tensor methods (``symgrad.exp is Tensor.exp``) are listed in a table instead."""
    module = sys.modules.get(module_name) or __import__(module_name, fromlist=["_"])
    blocks, aliases, others = [], [], []
    homes: dict[str, list[str]] = {}
    for name in public_names(module):
        if name in exclude:
            continue
        obj = getattr(module, name)
        if isinstance(obj, types.ModuleType):
            continue
        home = _home(obj)
        if home in OWN_PAGES:
            blocks.append(f"## `{module_name}.{name}`\n\nSee [{name}]({OWN_PAGES[home]}).\n")
        elif (inspect.isfunction(obj) and getattr(symgrad.Tensor, getattr(obj, "__name__", ""),
                                                 None) is obj):
            aliases.append(name)
        elif home is None or not (inspect.isfunction(obj) or inspect.isclass(obj)):
            others.append(name)
        else:
            homes.setdefault(home, []).append(name)
    for home, names in sorted(homes.items(), key=lambda item: item[1][0]):
        heading = " / ".join(f"{module_name}.{n}" for n in names)
        obj = getattr(module, names[0])
        if _static_home(obj) is None:
            blocks.append(_render(obj, heading, 2))
        else:
            blocks.append(f"::: {home}\n    options:\n      heading: \"{heading}\"\n"
                          f"      toc_label: \"{names[0]}\"\n")
    text = "\n".join(blocks)
    if aliases:
        rows = "\n".join(f"| `{module_name}.{n}(x, ...)` | `x.{getattr(module, n).__name__}"
                         f"(...)` |" for n in aliases)
        text += ("\n## Function spellings of Tensor methods\n\n"
                 "| function | same as |\n| --- | --- |\n" + rows + "\n")
    if others:
        text += ("\n## Other names\n\n" + ", ".join(f"`{module_name}.{n}`" for n in others)
                 + "\n")
    return textwrap.dedent(text)


def tensor_methods_markdown() -> str:
    """mkdocstrings directives for the Tensor methods that ``symgrad.torch_api`` installs (static
    analysis of ``symgrad/tensor.py`` cannot see them): one entry per function, headed by the
    method name(s) it is installed under."""
    names: dict[str, list[str]] = {}
    for name, fn in torch_api.METHODS.items():
        if not name.startswith("_"):  # operators and helpers: documented by their named twin
            names.setdefault(_home(fn), []).append(name)
    blocks = []
    for home, spellings in sorted(names.items(), key=lambda item: min(item[1])):
        shown = " / ".join(f"Tensor.{n}" for n in sorted(spellings))
        fn = torch_api.METHODS[min(spellings)]
        if _static_home(fn) is None:
            blocks.append(_render(fn, shown, 3))
            continue
        blocks.append(f"::: {home}\n    options:\n      heading: \"{shown}\"\n"
                      f"      toc_label: \"{min(spellings)}\"\n      heading_level: 3\n")
    return "\n".join(blocks)
