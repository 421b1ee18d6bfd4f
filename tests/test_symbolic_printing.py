"""Readable formulas: Formula and Lowered as text and LaTeX, expanded and compact, simplify."""

from __future__ import annotations

import sympy

import symgrad as t
from symgrad import symbolic
from symgrad.symbolic.printing import _tree_size


def _sym(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, real=True)


def _chain(x: t.Tensor, layers: int) -> t.Tensor:
    for _ in range(layers):
        x = (x * x).sin() + x
    return x


def test_expanded_text_and_latex_are_sympys_of_the_evaluated_expression():
    a = t.tensor(0.5, requires_grad=True)
    b = t.tensor(-1.5, requires_grad=True)
    y = (a * b).tanh() + (a.sin() / (b * b + 1)).exp()
    A, B = _sym("a"), _sym("b")
    expected = sympy.tanh(A * B) + sympy.exp(sympy.sin(A) / (B ** 2 + 1))
    f = symbolic.lower(y).expr
    assert isinstance(f, symbolic.Formula) and isinstance(f, sympy.ImmutableDenseNDimArray)
    assert f.text() == str(f) == sympy.sstr(expected)
    assert f.latex() == sympy.latex(expected)
    assert f._repr_latex_() == f"$\\displaystyle {sympy.latex(expected)}$"


def test_array_formulas_print_as_arrays():
    x = t.tensor([0.2, 0.4], requires_grad=True)
    f = symbolic.lower(x.exp() * 2).expr
    X0, X1 = _sym("x_0"), _sym("x_1")
    expected = sympy.Array([2 * sympy.exp(X0), 2 * sympy.exp(X1)])
    assert f.shape == (2,) and f[1] == 2 * sympy.exp(X1)
    assert f.text() == sympy.sstr(expected)
    assert f.latex() == sympy.latex(expected)


def test_compact_form_names_shared_subexpressions_once():
    a = t.tensor(0.5, requires_grad=True)
    h = a.exp() + a
    y = (h * h).sin() * h
    f = symbolic.lower(y).expr
    assert f.text(compact=True) == "t₁ := a + exp(a)\nt₁*sin(t₁**2)"
    T = sympy.Symbol("t_1")
    A = _sym("a")
    body = sympy.latex(T * sympy.sin(T ** 2))
    defn = sympy.latex(A + sympy.exp(A))
    assert f.latex(compact=True) == (
        f"\\begin{{aligned}} t_{{1}} &:= {defn} \\\\ & {body} \\end{{aligned}}")
    # nothing shared: the compact form is the expanded one
    g = symbolic.lower(a.sin() + 1).expr
    assert g.text(compact=True) == g.text() and g.latex(compact=True) == g.latex()


def test_compact_names_avoid_the_formulas_own_symbols():
    t_ = t.tensor([0.1, 0.2], requires_grad=True)
    t_.name = "t"
    h = t_.exp()
    text = symbolic.lower((h * h + h).sum()).text(compact=True)
    assert "t₁ :=" not in text and "u₁ := exp(t_0)" in text


def _flat(array):
    return list(array) if array.shape else [array[()]]


def _substitute_back(definitions, result):
    expr = result
    for name, value in reversed(definitions):
        expr = expr.subs(name, value)
    return expr


def test_compact_round_trip_equals_expanded():
    x = t.tensor([0.3, -0.7], requires_grad=True)
    y = _chain(x, 3).sum()
    lowered = symbolic.lower(y)
    for f in (lowered.expr, *symbolic.grad(y, x)):
        definitions, result = f.cse()
        assert definitions  # the chain shares values
        back = _substitute_back(definitions, result)
        assert back.shape == f.shape
        for e, g in zip(_flat(back), _flat(f.evaluated()), strict=True):
            assert sympy.expand(e - g) == 0


def test_deep_graph_compact_size_is_linear_and_expanded_grows_geometrically():
    sizes = {}
    for layers in (10, 20, 30):
        x = t.tensor([0.3], requires_grad=True)
        y = _chain(x, layers).sum()
        lowered = symbolic.lower(y)
        (g,) = symbolic.grad(y, x)
        sizes[layers] = (len(lowered.text(compact=True)), len(g.text(compact=True)),
                         _tree_size([lowered.expr[()]]))
    for k in (0, 1):  # compact: the same growth per 10 layers, within rounding of the names
        step1 = sizes[20][k] - sizes[10][k]
        step2 = sizes[30][k] - sizes[20][k]
        assert abs(step2 - step1) <= 0.1 * step1
    assert sizes[30][2] > 1000 * sizes[20][2]  # the expanded tree doubles per layer
    # printed expanded text grows geometrically as well
    lengths = [len(symbolic.lower(_chain(t.tensor([0.3], requires_grad=True), n).sum()).text())
               for n in (4, 6, 8)]
    assert lengths[1] > 3 * lengths[0] and lengths[2] > 3 * lengths[1]
    # repr switches to the compact form for a deep graph (and returns quickly)
    x = t.tensor([0.3], requires_grad=True)
    lowered = symbolic.lower(_chain(x, 30).sum())
    assert repr(lowered.expr) == lowered.text(compact=True)
    assert "t₁ :=" in repr(lowered)


def test_simplify():
    a = t.tensor(0.3, requires_grad=True)
    f = symbolic.lower(a.sin() ** 2 + a.cos() ** 2).expr
    assert f.simplify() == sympy.Array(1)
    assert isinstance(f.simplify(), symbolic.Formula)
    assert symbolic.lower(a.exp().log() * 2).simplify()[()] == 2 * _sym("a")


def test_lowered_delegates_and_keeps_a_readable_repr():
    a = t.tensor(0.5, requires_grad=True)
    h = a.exp()
    lowered = symbolic.lower(h * h + h)
    A = _sym("a")
    assert lowered.text() == sympy.sstr(sympy.exp(2 * A) + sympy.exp(A))
    assert lowered.latex() == sympy.latex(sympy.exp(2 * A) + sympy.exp(A))
    assert lowered.text(compact=True) == "t₁ := exp(a)\nt₁**2 + t₁"
    assert lowered._repr_latex_() == lowered.expr._repr_latex_()
    assert repr(lowered).splitlines() == [
        "Lowered(scalar, 3 nodes)", "  a: a (requires grad)", "  = exp(2*a) + exp(a)"]


def test_gradient_jacobian_and_hessian_print():
    x = t.tensor([0.3, -0.8], requires_grad=True)
    y = x.sin() * x.sum()
    X0, X1 = _sym("x_0"), _sym("x_1")
    f = [sympy.sin(X0) * (X0 + X1), sympy.sin(X1) * (X0 + X1)]
    J = symbolic.jacobian(y, x)
    expected_J = sympy.Array([[fi.diff(s) for s in (X0, X1)] for fi in f])
    assert isinstance(J, symbolic.Formula)
    assert J.text() == sympy.sstr(expected_J) and J.latex() == sympy.latex(expected_J)
    (g,) = symbolic.grad(y.sum(), x)
    total = f[0] + f[1]
    expected_g = sympy.Array([total.diff(X0), total.diff(X1)])
    assert g.text() == sympy.sstr(expected_g)
    H = symbolic.hessian(y.sum(), x)
    expected_H = sympy.Array([[total.diff(a, b) for b in (X0, X1)] for a in (X0, X1)])
    assert H.latex() == sympy.latex(expected_H)
