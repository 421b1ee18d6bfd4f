"""Symbolic-side correctness (issue 15, items 1-6 and 17): leaf names fixed once, internal
symbols that no user name can hit, compile's own identifiers, names escaped in text and LaTeX,
every output rank against every input rank, deep graphs without recursion, and a simplify that
never lengthens a formula."""

from __future__ import annotations

import ast
import itertools
import sys

import numpy as np
import pytest
import sympy

import symgrad as t
import symgrad.nn.functional as F
from symgrad import symbolic
from symgrad.symbolic.lowering import _substitute


def _numbers(formula, values) -> np.ndarray:
    """A Formula evaluated at ``values`` (symbol -> exact value), as float64, node by node
    (``xreplace`` would recurse through a deep expression)."""
    memo: dict = {}
    values = {k: sympy.Float(v, 30) for k, v in values.items()}  # each node a number at once
    out = [float(_substitute(sympy.sympify(e), values, memo).evalf())
           for e in formula._elements()]
    return np.array(out).reshape(formula.shape)


# --------------------------------------------------------------------------- item 1: names
def _helper(out, leaf_t):
    """A function of the user's whose own variable names differ from the caller's."""
    return (symbolic.lower(out).sources[0].name, symbolic.grad(out, leaf_t)[0],
            symbolic.jacobian(out, leaf_t), symbolic.check(out).inputs[0].name,
            symbolic.compile(out, leaf_t).inputs)


def test_leaf_symbols_are_fixed_the_first_time_and_shared_by_every_call():
    x = t.tensor([0.5, -1.0], dtype=t.float64, requires_grad=True)
    y = (x * x).sum()
    top = symbolic.lower(y).expr
    name, g, jac, checked, inputs = _helper(y, x)
    assert name == checked == "x" and inputs == ("x",)
    assert top == symbolic.lower(y).expr
    X = [sympy.Symbol(f"x_{k}", real=True) for k in range(2)]
    assert g.free_symbols == jac.free_symbols == set(X)  # one set of symbols: combinable
    assert sympy.simplify(top[()].diff(X[0]) - g[0]) == 0


def test_a_leaf_first_named_inside_a_helper_keeps_that_name_everywhere():
    z = t.tensor(1.0, requires_grad=True)
    name, *_ = _helper(z * 3, z)
    assert name == "leaf_t"
    assert symbolic.lower(z * 2).sources[0].name == "leaf_t"  # from the top level too
    z.name = "zed"  # name= still wins
    assert symbolic.lower(z * 2).sources[0].name == "zed"
    assert str(symbolic.lower(z * 2).expr) == "2*zed"


def test_fixed_names_are_shared_with_the_graph_pictures():
    w = t.tensor([1.0, 2.0], requires_grad=True)

    def draw(leaf):
        return t.viz.mermaid(leaf.exp().sum())

    assert symbolic.lower(w.sum()).sources[0].name == "w"
    assert '(["w<br>' in draw(w)  # the picture drawn in a helper names w as lowering did
    v = t.tensor([1.0, 2.0], requires_grad=True)
    assert '(["leaf<br>' in draw(v)  # named first in the helper: that name stays
    assert symbolic.lower(v.sum()).sources[0].name == "leaf"


# ------------------------------------------------------------------ item 2: internal symbols
@pytest.mark.parametrize("name", ["_t0_0", "_t1_0", "_t0", "_in0_0", "_g0", "s0", "eps",
                                  "t1", "a0", "a0_0"])
def test_a_leaf_named_like_an_internal_symbol_gives_correct_results(name):
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True, name=name)
    s = t.tensor(0.25, dtype=t.float64, requires_grad=True, name=name + "s")
    y = (x.sin() * 2 * s + x * x).sum() + s.exp()
    lowered = symbolic.lower(y)
    assert float(lowered.expr[()].xreplace(lowered.values)) == pytest.approx(y.item())
    gx, gs = t.autograd.grad(y, [x, s])
    sx, ss = symbolic.grad(y, [x, s])
    np.testing.assert_allclose(_numbers(sx, lowered.values), gx.numpy())
    assert float(_numbers(ss, lowered.values)) == pytest.approx(gs.item())
    symbolic.check(y)  # no false mismatch
    value, (cx, cs) = symbolic.compile(y, [x, s])(x, s)
    assert float(value) == pytest.approx(y.item())
    np.testing.assert_allclose(cx, gx.numpy())
    assert float(cs) == pytest.approx(gs.item())


# ------------------------------------------------------------------ item 3: compile's names
KELVIN = "\u212a"  # the Kelvin sign: folds to K in a Python identifier


@pytest.mark.parametrize("names", [("𝐱", "x"), ("x²", "x2"), ("K", KELVIN), ("ﬁ", "fi"),
                                   ("x y", "x-y"), ("'''", '"""'), ("a\nb", "a\\b"),
                                   ("def", "lambda"), ("exp", "np")])
def test_compile_keeps_inputs_apart_whatever_their_names(names):
    a = t.tensor([0.5, 2.0], dtype=t.float64, requires_grad=True, name=names[0])
    b = t.tensor(0.75, dtype=t.float64, requires_grad=True, name=names[1])
    y = (a.sin() * b + b * b).sum()
    f = symbolic.compile(y, [a, b])
    value, (ga, gb) = f(a, b)
    ea, eb = t.autograd.grad(y, [a, b])
    assert float(value) == pytest.approx(y.item())
    np.testing.assert_allclose(ga, ea.numpy())
    assert float(gb) == pytest.approx(eb.item())
    assert f.inputs == names
    # the code's identifiers are its own: the user's names only in comments
    tree = ast.parse(f.source)
    identifiers = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    identifiers |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
                    for a in n.args}
    for identifier in identifiers:
        assert identifier.isascii() and (identifier in dir(np) or identifier[0] in "at")
    for name in names:
        assert repr(name) in f.source


# ------------------------------------------------------------------- item 4: escaped names
@pytest.mark.parametrize(("name", "text", "latex"), [
    ("x+y", "`x+y`", r"\text{x+y}"),
    ("a{b}", "`a{b}`", r"\text{a\{b\}}"),
    ("#", "`#`", r"\text{\#}"),
    ("my_var", "my_var", r"\text{my\_var}"),
    ("50%", "`50%`", r"\text{50\%}"),
    ("a\\b", "`a\\b`", r"\text{a\textbackslash{}b}"),
    ("x^2", "`x^2`", r"\text{x\textasciicircum{}2}"),
    ("w", "w", "w"),
    ("W1", "W1", "W_{1}"),
])
def test_names_are_escaped_in_text_and_latex(name, text, latex):
    v = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True, name=name)
    s = t.tensor(0.5, dtype=t.float64, requires_grad=True, name=name)
    y = (v.sin() * s).sum()
    lowered = symbolic.lower(y)
    assert [src.name for src in lowered.sources] == [name, "x0"]  # a second "name": x0
    formula = lowered.expr
    assert f"sin({text}_0)" in formula.text()
    assert f"sin({text}_1)" in formula.text(compact=True)
    element = f"{{{latex}}}_{{0}}" if "_{" in latex else f"{latex}_{{0}}"
    assert element in formula.latex() and element in formula.latex(compact=True)
    # the LaTeX is balanced: every brace the name brings is escaped
    tex = formula.latex().replace(r"\{", "").replace(r"\}", "")
    assert tex.count("{") == tex.count("}")


# ------------------------------------------------------------------ item 5: every rank pair
SHAPES = {0: (), 1: (3,), 2: (2, 2), 3: (1, 2, 2)}


@pytest.mark.parametrize(("rank_in", "rank_out"), itertools.product(range(4), range(4)))
def test_every_output_rank_against_every_input_rank(rank_in, rank_out):
    shape_in, shape_out = SHAPES[rank_in], SHAPES[rank_out]
    rng = np.random.default_rng(rank_in * 4 + rank_out)
    x = t.tensor(rng.uniform(0.2, 0.9, shape_in), dtype=t.float64, requires_grad=True)
    c = t.tensor(rng.uniform(-1, 1, shape_out), dtype=t.float64)
    y = (x.sin() * x).sum() * c + x.sum() ** 2
    v = t.tensor(rng.uniform(-1, 1, shape_out), dtype=t.float64)
    values = symbolic.lower(y).values

    jac = symbolic.jacobian(y, x)
    assert isinstance(jac, symbolic.Formula) and jac.shape == shape_out + shape_in
    expected = t.autograd.functional.jacobian(lambda z: (z.sin() * z).sum() * c + z.sum() ** 2,
                                              x)
    np.testing.assert_allclose(_numbers(jac, values), expected.numpy(), rtol=1e-12)
    str(jac), jac.latex(), jac.text(compact=True), jac.evaluated(), jac.simplify()

    (g,) = symbolic.grad(y, x, gradient=v)
    (eg,) = t.autograd.grad(y, x, grad_outputs=v, retain_graph=True)
    assert g.shape == shape_in
    np.testing.assert_allclose(_numbers(g, values), eg.numpy(), rtol=1e-12)
    symbolic.check(y, gradient=v)
    value, (cg,) = symbolic.compile(y, x, gradient=v)(x)
    assert value.shape == shape_out and cg.shape == shape_in
    np.testing.assert_allclose(cg, eg.numpy(), rtol=1e-12)

    scalar = (y * v).sum()
    hess = symbolic.hessian(scalar, x)
    assert isinstance(hess, symbolic.Formula) and hess.shape == shape_in * 2
    expected = t.autograd.functional.hessian(
        lambda z: (((z.sin() * z).sum() * c + z.sum() ** 2) * v).sum(), x)
    np.testing.assert_allclose(_numbers(hess, values), expected.numpy(), rtol=1e-12,
                               atol=1e-12)
    symbolic.check_hessian(scalar, x)


def test_jacobian_of_a_0d_output_wrt_a_0d_input():
    a = t.tensor(0.5, dtype=t.float64, requires_grad=True)
    jac = symbolic.jacobian(a.exp() * a, a)
    assert jac.shape == () and str(jac) == "a*exp(a) + exp(a)"


# ------------------------------------------------------------------------ item 6: deep graphs
def _deep(depth: int, kind: str) -> tuple[t.Tensor, t.Tensor]:
    x = t.tensor(0.3, dtype=t.float64, requires_grad=True)
    h = x
    for i in range(depth):
        if kind == "nested":
            h = h.sin()
        else:
            h = h.sin() if i % 3 == 0 else (h * 0.9 if i % 3 == 1 else h + 0.1)
    return x, h


@pytest.mark.parametrize("kind", ["nested", "chain"])
def test_deep_graphs_raise_no_recursion_error(kind):
    limit = sys.getrecursionlimit()
    depth = 1100  # beyond sympy's own recursion (about 250)
    x, y = _deep(depth, kind)
    lowered = symbolic.lower(y)
    assert len(lowered.steps) == depth
    (g,) = symbolic.grad(y, x)
    (eg,) = t.autograd.grad(y, x, retain_graph=True)
    assert float(_numbers(g, lowered.values)) == pytest.approx(eg.item(), rel=1e-9)
    assert symbolic.jacobian(y, x).shape == ()
    symbolic.hessian(y, x)
    symbolic.check(y)
    symbolic.check_hessian(y)
    symbolic.explain(y, x)
    for formula in (lowered.expr, g):
        for compact in (False, True):
            assert formula.text(compact=compact) and formula.latex(compact=compact)
        repr(formula), formula.evaluated(), formula.simplify(), formula.cse()
    expanded = lowered.expr.text()
    if kind == "nested":  # printed in full: every sin of the nesting
        assert expanded.count("sin(") == depth and expanded.endswith("(x)" + ")" * (depth - 1))
    value, (cg,) = symbolic.compile(y, x)(np.array(0.3))
    assert float(value) == pytest.approx(y.item()) and float(cg) == pytest.approx(eg.item())
    assert sys.getrecursionlimit() == limit


def test_a_huge_expanded_form_prints_compact_with_a_note():
    x = t.tensor([0.1, 0.2], dtype=t.float64, requires_grad=True)
    h = x
    for _ in range(30):  # expanded: about 2**30 nodes
        h = (h * h).sin() + h
    formula = symbolic.lower(h.sum()).expr
    text = formula.text()
    first, rest = text.split("\n", 1)
    assert first.startswith("# the expanded form has") and "text(limit=None)" in first
    assert rest == formula.text(compact=True)
    latex = formula.latex()
    assert latex.startswith("% the expanded form has") and "latex(limit=None)" in latex
    assert str(formula) == text
    small = symbolic.lower(x.sin().sum()).expr
    assert small.text(limit=None) == small.text() == "sin(x_0) + sin(x_1)"


# ------------------------------------------------------------------------- item 17: simplify
def test_simplify_never_returns_a_longer_formula():
    a = t.tensor(0.5, dtype=t.float64, requires_grad=True)
    b = t.tensor(-1.0, dtype=t.float64, requires_grad=True)
    y = F.softplus(a) * F.softplus(b)
    for g in symbolic.grad(y, [a, b]):
        plain = g.evaluated()[()]
        # sympy's own simplify merges the Piecewise branches: longer than it was given
        assert len(str(sympy.simplify(plain))) > len(str(plain))
        assert len(str(g.simplify())) <= len(str(g))
        assert g.simplify()[()] == plain
    c = t.tensor(0.3, dtype=t.float64, requires_grad=True)
    assert str(symbolic.lower(c.sin() ** 2 + c.cos() ** 2).simplify()) == "1"
