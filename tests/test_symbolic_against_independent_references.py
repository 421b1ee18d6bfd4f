"""Independent checks of the symbolic tools (Formula printing, compile, explain,
check_hessian): every answer against a reference that shares no code with symgrad's symbolic
side (hand-written sympy, numpy, central finite differences), plus the regressions found."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sympy

import symgrad as t
import symgrad.nn.functional as F
from symgrad import symbolic


def _fd(fun, values: list[np.ndarray], h: float = 1e-6) -> list[np.ndarray]:
    """Central finite differences of a scalar numpy function of several arrays."""
    grads = []
    for k, v in enumerate(values):
        g = np.zeros_like(v)
        for idx in np.ndindex(*v.shape):
            up = [a.copy() for a in values]
            down = [a.copy() for a in values]
            up[k][idx] += h
            down[k][idx] -= h
            g[idx] = (fun(*up) - fun(*down)) / (2 * h)
        grads.append(g)
    return grads


def _leaves(rng: np.random.Generator, *shapes: tuple[int, ...]) -> list[t.Tensor]:
    return [t.tensor(rng.uniform(-1, 1, s), dtype=t.float64, requires_grad=True)
            for s in shapes]


def _np_log_softmax(z: np.ndarray, axis: int) -> np.ndarray:
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def _np_huber(d: np.ndarray, delta: float) -> np.ndarray:
    return np.where(np.abs(d) < delta, 0.5 * d * d, delta * (np.abs(d) - 0.5 * delta))


TARGET = np.array([2, 0])
C = np.array([0.3, -1.2, 2.0])

# (name, symgrad program, the same program in numpy, leaf shapes)
PROGRAMS = [
    ("cross_entropy", lambda a: F.cross_entropy(a, t.tensor(TARGET)),
     lambda a: -_np_log_softmax(a, 1)[np.arange(2), TARGET].mean(), [(2, 3)]),
    ("log_softmax dim -1", lambda a: (a.log_softmax(-1) * t.tensor(C)).sum(),
     lambda a: (_np_log_softmax(a, -1) * C).sum(), [(2, 3)]),
    ("huber", lambda a, b: F.huber_loss(a, b, delta=0.5),
     lambda a, b: _np_huber(a - b, 0.5).mean(), [(2, 3), (2, 3)]),
    ("batched matmul broadcast", lambda a, b: (a @ b).tanh().sum(),
     lambda a, b: np.tanh(a @ b).sum(), [(2, 1, 2, 3), (3, 3, 2)]),
    ("mean over dims and prod", lambda a: (a.mean((0, 2)) ** 2).sum() + a.prod(1).sum(),
     lambda a: (a.mean((0, 2)) ** 2).sum() + a.prod(1).sum(), [(2, 3, 2)]),
    ("a leaf used many times", lambda a: (a * a * a + a.sin() * a + a / a.exp()).sum() * a.sum(),
     lambda a: (a ** 3 + np.sin(a) * a + a / np.exp(a)).sum() * a.sum(), [(3,)]),
]


@pytest.mark.parametrize("index", range(len(PROGRAMS)))
def test_compile_against_numpy_and_finite_differences_at_a_new_point(index):
    rng = np.random.default_rng(index)
    name, build, reference, shapes = PROGRAMS[index]
    f = symbolic.compile(build(*_leaves(rng, *shapes)))
    values = [rng.uniform(-1, 1, s) for s in shapes]
    value, grads = f(*values)
    np.testing.assert_allclose(value, reference(*values), rtol=1e-12, err_msg=name)
    for g, fd in zip(grads, _fd(reference, values), strict=True):
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8, err_msg=name)


def test_compile_inputs_subset_and_gradient_v_against_finite_differences():
    rng = np.random.default_rng(7)
    a, b = _leaves(rng, (2,), (3,))
    frozen = a._value.copy()
    v = rng.normal(size=(2, 3))
    f = symbolic.compile(a.reshape(2, 1) * b.sin(), b, gradient=t.tensor(v))
    new = rng.uniform(-1, 1, 3)
    value, (g,) = f(new)
    np.testing.assert_allclose(value, frozen[:, None] * np.sin(new), rtol=1e-14)
    (fd,) = _fd(lambda x: (v * frozen[:, None] * np.sin(x)).sum(), [new])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize(("reduce", "reference"), [
    (lambda a: a.amax(1).sum(), lambda a: a.max(1).sum()),
    (lambda a: a.max(), lambda a: a.max()),
    (lambda a: a.min(0).values.sum(), lambda a: a.min(0).sum()),
    (lambda a: t.linalg.vector_norm(a, float("inf")), lambda a: np.abs(a).max())])
def test_compile_warns_that_a_max_of_the_inputs_is_frozen(reduce, reference):
    # regression: the lowering of max/min reads the elements picked when recording, so the
    # compiled function silently returned a wrong max at points where another element wins
    a = t.tensor([[0.1, 0.5, -0.2], [0.3, 0.0, 0.9]], dtype=t.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="keeps the elements picked"):
        f = symbolic.compile(reduce(a), a)
    value, _ = f(a._value)  # still right at the recording point
    np.testing.assert_allclose(value, reference(a._value))


def test_compile_does_not_warn_for_a_max_of_a_frozen_leaf_or_for_maximum():
    a = t.tensor([0.1, 0.5], dtype=t.float64, requires_grad=True)
    c = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = symbolic.compile(a.sum() * c.max(), a)  # c is not an input: a constant 2
        g = symbolic.compile(t.maximum(a, c).sum(), a)  # decided at every call
    value, (grad,) = f(np.array([1.0, 3.0]))
    assert value == 8.0 and grad.tolist() == [2.0, 2.0]
    value, (grad,) = g(np.array([3.0, 0.0]))  # max(3, 1) + max(0, 2)
    assert value == 5.0 and grad.tolist() == [1.0, 0.0]


def test_compact_form_substituted_back_equals_a_hand_written_formula():
    x = t.tensor(0.4, dtype=t.float64, requires_grad=True)
    w = t.tensor([0.5, -1.5], dtype=t.float64, requires_grad=True)
    h = (x * w).tanh()
    y = (h * h + h.exp() * h).sum()
    X, W0, W1 = sympy.symbols("x w_0 w_1", real=True)
    expected = sum(sympy.tanh(X * wk) ** 2 + sympy.exp(sympy.tanh(X * wk)) * sympy.tanh(X * wk)
                   for wk in (W0, W1))
    for formula, reference in [(symbolic.lower(y).expr, expected),
                               (symbolic.grad(y, x)[0], sympy.diff(expected, X))]:
        definitions, result = formula.cse()
        assert definitions  # tanh(x*w_k) is shared
        e = result[()]
        for name, definition in reversed(definitions):
            e = e.xreplace({name: definition})
        assert sympy.simplify(e - reference) == 0
        latex = formula.latex(compact=True)
        assert latex.count("{") == latex.count("}")
        assert formula.latex() == sympy.latex(formula.evaluated()[()])


def test_check_hessian_against_sympy_hessian_of_a_hand_written_expression():
    x = t.tensor([0.3, -0.7], dtype=t.float64, requires_grad=True)
    y = t.tensor([1.1, 0.4], dtype=t.float64, requires_grad=True)
    out = F.softplus(x * y).sum() + (x.sin() * y).logsumexp(0)
    report = symbolic.check_hessian(out, [x, y])
    s = sympy.symbols("x0 x1 y0 y1", real=True)
    xs, ys = s[:2], s[2:]
    f = sum(sympy.log(1 + sympy.exp(a * b)) for a, b in zip(xs, ys, strict=True)) + sympy.log(
        sum(sympy.exp(sympy.sin(a) * b) for a, b in zip(xs, ys, strict=True)))
    point = dict(zip(s, [0.3, -0.7, 1.1, 0.4], strict=True))
    expected = np.array(sympy.hessian(f, s).subs(point).evalf(), dtype=float)
    np.testing.assert_allclose(report.numeric, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(report.symbolic, expected, rtol=1e-12, atol=1e-14)


def test_explain_std_of_one_element_is_undefined_not_zero():
    # regression: sympy folds std of one element (0/0) to the constant nan, whose derivative
    # sympy takes as 0; explain reported "exact derivative 0" and an infinite local derivative
    x = t.tensor([1.0], dtype=t.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the degrees-of-freedom warning (as PyTorch)
        y = x.std()
        e = symbolic.explain(y, x)
        reference = np.std([1.0], ddof=1)  # numpy: nan, the function is undefined there
    assert math.isnan(reference) and not e.finite and math.isnan(e.numeric[0])
    assert e.exact == [sympy.nan]
    assert e.node_name == "StdBackward0" and e.cause == "no degrees of freedom"
    assert "correction=0" in e.fix


def test_explain_keeps_the_elementwise_exact_derivative_next_to_a_nan_element():
    # x / y at y = 0: d/dx is 1/y (zoo) at every element, even where another element is 0/0
    x = t.tensor([1.0, 0.0], dtype=t.float64, requires_grad=True)
    y = t.tensor([0.0, 0.0], dtype=t.float64, requires_grad=True)
    with np.errstate(all="ignore"):
        e = symbolic.explain((x / y).sum(), [x, y])
    a, b = sympy.symbols("a b", real=True)
    assert e.exact == [sympy.diff(a / b, a).subs(b, 0)] * 2


def test_compiled_gradient_is_exact_zero_in_a_branch_not_taken():
    # regression: numpy evaluates every branch of a Piecewise, so the gradient of sqrt(relu(x))
    # compiled to select(x > 0, 1, 0) / sqrt(relu(x)): 0 * inf = nan for x <= 0, where the
    # derivative (finite differences, and PyTorch's backward) is 0
    x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
    f = symbolic.compile(x.relu().sqrt().sum(), x)
    points = np.array([-1.0, 4.0])
    value, (g,) = f(points)
    (fd,) = _fd(lambda a: np.sqrt(np.maximum(a, 0)).sum(), [points])
    assert value == 2.0
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)
    assert f(np.array([0.0, 0.0]))[1][0].tolist() == [0.0, 0.0]  # as PyTorch's relu backward


def test_compiled_where_takes_the_branch_at_every_call_with_an_exact_gradient():
    x = t.tensor([1.0, -2.0], dtype=t.float64, requires_grad=True)
    with np.errstate(invalid="ignore"):  # sqrt(-2) in the branch not taken
        f = symbolic.compile(t.where(x > 0, x.sqrt(), x * x).sum(), x)
    points = np.array([[-1.0, 4.0], [-3.0, 0.25]])
    value, (g,) = f(points)
    np.testing.assert_allclose(value, [1.0 + 2.0, 9.0 + 0.5])
    np.testing.assert_allclose(g, [[-2.0, 0.25], [-6.0, 1.0]])  # 2x, and 1 / (2 sqrt(x))


def test_nested_piecewise_conditions_stay_cheap():
    # a relu of a relu puts a Piecewise inside a condition; sympy's Piecewise constructor
    # rewrites such conditions by set simplification, exponential in the nesting (12 layers
    # took hours); the graph is built without it, and grad and compile agree with backward
    x = t.tensor(0.3, dtype=t.float64, requires_grad=True)
    h = x
    for _ in range(12):
        h = (h * h).sin().relu() + h
    (g,) = symbolic.grad(h, x)
    f = symbolic.compile(h, x)
    (eager,) = t.autograd.grad(h, x)
    value, (compiled,) = f(0.3)
    assert value == pytest.approx(h.item()) and compiled == pytest.approx(eager.item())
    assert len(g.text(compact=True)) < 5000  # printable in size linear in the layers
    symbolic.check(h)  # sympy's derivative at the point, evaluated along the DAG
