"""symgrad.symbolic: lowering, sympy derivatives, the cross-check and its failure reports.

Expected derivatives come from sympy.diff of hand-written expressions (independent of the
lowering) and from finite differences."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sympy

import symgrad as t
from symgrad import symbolic
from symgrad.dispatch import apply_op
from symgrad.ops import Op, Sample
from symgrad.symbolic import sympy_namespace as symbolic_namespace


def _sym(name):
    return sympy.Symbol(name, real=True)


# --------------------------------------------------------------------------- lowering
def test_lower_names_leaves_after_variables_and_keeps_constants_exact():
    a = t.tensor(2.0, requires_grad=True)
    w = t.tensor([0.1, 0.25], requires_grad=True)
    c = t.tensor([3.0, 0.5])  # no grad: an exact constant
    y = (w * c).sum() * a
    lowered = symbolic.lower(y)
    A, w0, w1 = _sym("a"), _sym("w_0"), _sym("w_1")
    assert sympy.simplify(lowered.expr[()] - A * (3 * w0 + sympy.Rational(1, 2) * w1)) == 0
    assert lowered.symbols[a][()] == A
    assert list(lowered.symbols[w]) == [w0, w1]
    assert lowered.values[w0] == sympy.Rational(1, 10)  # the decimal the user typed
    assert lowered.values[A] == 2
    assert "a" in repr(lowered) and "requires grad" in repr(lowered)


def test_lower_uses_tensor_name_then_stable_default():
    x = t.tensor([1.0, 2.0], requires_grad=True, name="theta")
    lowered = symbolic.lower((x * x).sum())
    assert [str(s) for s in lowered.symbols[x]] == ["theta_0", "theta_1"]
    made = [t.tensor(1.5, requires_grad=True) for _ in range(2)]  # no variable names
    lowered = symbolic.lower(made[0] * made[1])
    assert sorted(str(s) for s in lowered.values) == ["x0", "x1"]


def test_lower_constants_as_symbols():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    k = t.tensor([3.0, 4.0])
    lowered = symbolic.lower((x * k).sum(), constants="symbols")
    assert [str(s) for s in lowered.symbols[k]] == ["k_0", "k_1"]
    assert lowered.values[_sym("k_1")] == 4
    with pytest.raises(ValueError, match="constants"):
        symbolic.lower(x.sum(), constants="floats")


def test_lower_matrix_symbols_and_shape():
    W = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    v = t.tensor([1.0, -1.0])
    lowered = symbolic.lower(W @ v)
    assert lowered.expr.shape == (2,)
    assert lowered.expr[0] == _sym("W_0,0") - _sym("W_0,1")


def test_lowering_works_after_backward_freed_the_graph():
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()
    lowered = symbolic.lower(y)
    x0 = _sym("x_0")
    assert sympy.simplify(lowered.expr[()].diff(x0) - (sympy.exp(x0) * (1 + x0))) == 0
    report = symbolic.check(y)  # the numeric side replays the freed graph
    assert report.inputs[0].max_rel_error < 1e-12


def test_import_symgrad_alone_does_not_load_sympy():
    code = ("import sys, symgrad; symgrad.symbolic; print('sympy' in sys.modules); "
            "symgrad.symbolic.lower; print('sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True"]


# --------------------------------------------------------------------------- derivatives
def test_grad_matches_sympy_diff_of_hand_written_expression():
    a = t.tensor(0.7, requires_grad=True)
    b = t.tensor(-1.3, requires_grad=True)
    y = (a * b).tanh() + (a.sin() / (b * b + 1)).exp()
    ga, gb = symbolic.grad(y, [a, b])
    A, B = _sym("a"), _sym("b")
    f = sympy.tanh(A * B) + sympy.exp(sympy.sin(A) / (B ** 2 + 1))
    assert sympy.simplify(ga[()] - f.diff(A)) == 0
    assert sympy.simplify(gb[()] - f.diff(B)) == 0


def test_vector_backward_gradient_is_v_transpose_jacobian():
    # the source document's example: c = a * b; c.backward(gradient=v)
    a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = t.tensor([4.0, 5.0, 6.0], requires_grad=True)
    c = a * b
    v = t.tensor([1.0, 0.1, 0.01])
    c.backward(gradient=v)
    ga, gb = symbolic.grad(c, [a, b], gradient=v)
    values = symbolic.lower(c).values
    assert [float(e.subs(values)) for e in ga] == pytest.approx(a.grad.tolist())
    assert [float(e.subs(values)) for e in gb] == pytest.approx(b.grad.tolist())
    report = symbolic.check(c, gradient=v)  # the one-line check
    assert [r.name for r in report.inputs] == ["a", "b"]
    assert all(len(r.checked) == 3 for r in report.inputs)


def test_grad_errors_mirror_autograd_grad():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        symbolic.grad(x * 2, x)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        symbolic.grad(x * 2, x, gradient=t.ones(3))
    with pytest.raises(RuntimeError, match="does not require grad"):
        symbolic.grad((x * 2).sum(), t.ones(2))


def test_jacobian_and_hessian_against_sympy():
    x = t.tensor([0.3, -0.8], requires_grad=True)
    y = (x * x.sin()).exp() * x.sum()
    X0, X1 = _sym("x_0"), _sym("x_1")
    f = [sympy.exp(X0 * sympy.sin(X0)) * (X0 + X1), sympy.exp(X1 * sympy.sin(X1)) * (X0 + X1)]
    J = symbolic.jacobian(y, x)
    assert J.shape == (2, 2)
    for i in range(2):
        for j, s in enumerate((X0, X1)):
            assert sympy.simplify(J[i, j] - f[i].diff(s)) == 0
    H = symbolic.hessian(y.sum(), x)
    assert H.shape == (2, 2)
    total = f[0] + f[1]
    for i, si in enumerate((X0, X1)):
        for j, sj in enumerate((X0, X1)):
            assert sympy.simplify(H[i, j] - total.diff(si, sj)) == 0


def test_deep_graph_derivative_cost_follows_nodes_not_expanded_size():
    # y_{k+1} = y_k * sin(y_k): the expanded tree doubles each layer (2**40 leaves)
    x = t.tensor(0.4, requires_grad=True)
    y = x
    for _ in range(40):
        y = y * y.sin()
    report = symbolic.check(y)
    assert report.inputs[0].max_rel_error < 1e-9


# --------------------------------------------------------------------------- check
def test_check_reports_elements_and_errors_per_input():
    t.manual_seed(0)
    W = t.randn(3, 4, dtype=t.float64, requires_grad=True)
    b = t.randn(3, dtype=t.float64, requires_grad=True)
    x = t.randn(4, dtype=t.float64)
    y = (W @ x + b).tanh().sum()
    report = symbolic.check(y)
    assert [r.name for r in report.inputs] == ["W", "b"]
    assert [len(r.checked) for r in report.inputs] == [12, 3]
    assert report.inputs[0].max_abs_error < 1e-15
    assert report.inputs[0].max_rel_error < 1e-9
    assert W.grad is None and b.grad is None  # nobody's .grad touched
    assert "W: 12 elements" in str(report)


def test_check_samples_large_inputs_and_says_so():
    t.manual_seed(0)
    W = t.randn(20, 20, dtype=t.float64, requires_grad=True)
    y = (W @ t.ones(20, dtype=t.float64)).sigmoid().sum()
    report = symbolic.check(y, sample=5)
    assert report.inputs[0].sampled and len(report.inputs[0].checked) == 5
    assert "5 of 400 elements (sampled)" in str(report)


def test_check_float32_uses_float32_tolerances():
    x = t.tensor([0.1, 0.2, 0.3], requires_grad=True)
    report = symbolic.check((x.exp() * x).sum())
    assert report.rtol == 1e-4
    assert report.inputs[0].max_rel_error < 1e-6


def _wrong_op():
    # a test-only op whose VJP forgets the chain rule's inner factor: d sin(2x) = cos(2x)
    return Op("wrong_sin2", "WrongSin2Backward0",
              forward=lambda xp, a: xp.sin(a * 2),
              vjp=(lambda xp, g, ans, a: g * xp.cos(a * 2),),
              saved=(0,), samples=(Sample(((3,),)),))


def wrong_sin2(x):
    """The test-only op's method (apply_op's caller counts as library code)."""
    return apply_op(_wrong_op(), x)


def test_wrong_vjp_is_caught_and_the_node_named_with_its_line():
    x = t.tensor([0.1, 0.2, 0.3], dtype=t.float64, requires_grad=True)
    h = x.exp()
    y = wrong_sin2(h)
    line = sys._getframe().f_lineno - 1
    loss = (y * y).sum()
    with pytest.raises(symbolic.GradientMismatch) as caught:
        symbolic.check(loss)
    message = str(caught.value)
    assert isinstance(caught.value, AssertionError)
    assert "gradient of x at index (0,)" in message
    assert "WrongSin2Backward0" in message
    assert f"test_symbolic.py:{line}" in message
    assert "ExpBackward0" not in message.split("first node")[1]


def test_wrong_custom_function_backward_is_caught():
    class Cube(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x * x  # should be 3 x**2

    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    y = Cube.apply(x).sum()
    with pytest.raises(symbolic.GradientMismatch, match="CubeBackward"):
        symbolic.check(y)


def test_correct_custom_function_lowers_and_checks():
    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

    x = t.tensor([0.5, -1.5], dtype=t.float64, requires_grad=True)
    y = Square.apply(x.sin()).sum()
    assert symbolic.lower(y).expr[()] == sympy.sin(_sym("x_0")) ** 2 + sympy.sin(_sym("x_1")) ** 2
    symbolic.check(y)


def test_exact_mode_proves_rules_as_formulas():
    x = t.tensor([0.3, 0.7], dtype=t.float64, requires_grad=True)
    y = (x.sin() * x.exp() + x.tanh()).sum()
    report = symbolic.check(y, exact=True)
    assert report.proofs and all(p.at_point for p in report.proofs)
    assert {p.formula for p in report.proofs} <= {"proved", "undecided"}
    assert any(p.formula == "proved" for p in report.proofs)


def test_exact_mode_catches_wrong_rule_at_the_point():
    x = t.tensor([0.3, 0.7], dtype=t.float64, requires_grad=True)
    y = wrong_sin2(x).sum()
    with pytest.raises(symbolic.GradientMismatch, match="WrongSin2Backward0"):
        symbolic.check(y, exact=True)


# --------------------------------------------------------------------------- kinks
@pytest.mark.parametrize(("build", "left", "right", "convention"), [
    (lambda x: x.relu(), 0, 1, 0),
    (lambda x: x.abs(), -1, 1, 0),
    (lambda x: x.clamp(min=0.0), 0, 1, 1),
    (lambda x: t.nn.functional.leaky_relu(x, 0.25), sympy.Rational(1, 4), 1,
     sympy.Rational(1, 4)),
])
def test_kinks_reported_with_one_sided_derivatives_and_convention(build, left, right,
                                                                  convention):
    x = t.tensor([-1.0, 0.0, 2.0], dtype=t.float64, requires_grad=True)
    report = symbolic.check(build(x).sum())
    (kink,) = report.kinks
    assert kink.index == (1,)
    assert (kink.left, kink.right, kink.convention) == (left, right, convention)


def test_max_tie_is_a_kink_not_a_mismatch():
    x = t.tensor([1.0, 3.0, 3.0, 3.0], dtype=t.float64, requires_grad=True)
    report = symbolic.check(x.max())  # numeric: 1/3 each, a three-way tie
    assert report.kinks
    two = t.tensor([3.0, 1.0, 3.0], dtype=t.float64, requires_grad=True)
    report = symbolic.check(two.amax())  # two-way tie: sympy's Max splits 1/2 too
    assert report.inputs[0].max_abs_error == 0


def test_undefined_derivative_is_reported_not_a_mismatch():
    x = t.tensor([0.0, 4.0], dtype=t.float64, requires_grad=True)
    report = symbolic.check(x.sqrt().sum())
    assert [u[0] for u in report.inputs[0].undefined] == [(0,)]


def test_custom_function_with_symgrad_ops_lowers_through_its_forward():
    class SinExp(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin() * x.exp()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (x.cos() + x.sin()) * x.exp()

    x = t.tensor([0.5, -1.5], dtype=t.float64, requires_grad=True)
    y = SinExp.apply(x).sum()
    X0 = _sym("x_0")
    assert symbolic.lower(y).expr[()].has(sympy.sin(X0) * sympy.exp(X0))
    symbolic.check(y)


def test_custom_function_forward_in_numpy_needs_a_symbolic_rule():
    class NumpyTanh(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = t.tensor(np.tanh(x.detach().numpy()), dtype=x.dtype)
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * (1 - out * out)

    x = t.tensor([0.5, -1.5], dtype=t.float64, requires_grad=True)
    with pytest.raises(TypeError, match="cannot lower NumpyTanhBackward.*staticmethod symbolic"):
        symbolic.lower(NumpyTanh.apply(x).sum())

    class DeclaredTanh(NumpyTanh):
        @staticmethod
        def symbolic(x):
            return symbolic_namespace.tanh(x)

    report = symbolic.check(DeclaredTanh.apply(x).sum())
    assert report.inputs[0].max_rel_error < 1e-12


def test_exact_mode_accepts_a_right_custom_backward_that_computes_in_floats():
    # a Function's backward reads its saved tensors (floats): equal to rtol is equal
    class Softplus(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return (1 + x.exp()).log()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.sigmoid()

    x = t.tensor([0.0, 1.0, -2.0], dtype=t.float64, requires_grad=True)
    report = symbolic.check(Softplus.apply(x).sum(), exact=True)
    proof = report.proofs[0]
    assert proof.node == "SoftplusBackward" and proof.at_point
    assert proof.formula in ("proved", "undecided")


def test_a_nan_gradient_from_right_rules_points_to_explain():
    # sqrt(-1) is nan in the masked branch: 0 * nan = nan, where sympy's Piecewise gives 0
    p = t.tensor([-1.0, 2.0], dtype=t.float64, requires_grad=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = t.where(p > 0, p.sqrt(), 0.0).sum()
        with pytest.raises(symbolic.GradientMismatch, match=r"explain\(output, p\)"):
            symbolic.check(y)


# --------------------------------------------------------------------------- masks
def test_a_mask_compared_from_graph_values_lowers_to_its_condition():
    x = t.tensor([2.0, -3.0], dtype=t.float64, requires_grad=True)
    y = t.where(x > 0, x * x, -x)
    X0, X1 = _sym("x_0"), _sym("x_1")
    expected = [sympy.Piecewise((X0**2, X0 > 0), (-X0, True)),
                sympy.Piecewise((X1**2, X1 > 0), (-X1, True))]
    assert list(symbolic.lower(y).expr) == expected
    # so the compiled function takes the other branch at other points, as eager does
    f = symbolic.compile(y.sum(), x)
    for point in ([-1.5, 0.5], [3.0, 4.0], [-2.0, -0.25]):
        z = t.tensor(point, dtype=t.float64, requires_grad=True)
        eager = t.where(z > 0, z * z, -z).sum()
        (g,) = t.autograd.grad(eager, z)
        value, (grad,) = f(np.array(point))
        assert value == pytest.approx(eager.item()) and grad == pytest.approx(g.numpy())


def test_masks_combine_and_may_come_from_other_tensors():
    x = t.tensor([2.0, 0.25, 3.5], dtype=t.float64, requires_grad=True)
    w = t.tensor([1.0, -1.0, 1.0], dtype=t.float64, requires_grad=True)
    y = (x * 2).masked_fill((w < 0) | ~(x.sin() > 0), 0.0).sum()
    X = [_sym(f"x_{i}") for i in range(3)]
    W = [_sym(f"w_{i}") for i in range(3)]
    expected = sum(sympy.Piecewise((0, (W[i] < 0) | ~(sympy.sin(X[i]) > 0)), (2 * X[i], True))
                   for i in range(3))
    assert sympy.simplify(symbolic.lower(y).expr[()] - expected) == 0
    # w only decides the mask: no gradient path, as autograd.grad says
    with pytest.raises(RuntimeError, match="^The differentiated Tensor at index 0 appears to "
                                           "not have been used in the graph"):
        symbolic.grad(y, w)
    report = symbolic.check(y)
    assert [r.name for r in report.inputs] == ["x"]


def test_a_where_switch_is_reported_as_a_kink_with_both_sides():
    x = t.tensor([0.0, 1.0], dtype=t.float64, requires_grad=True)
    y = t.where(x > 0, x * x, -x).sum()
    (kink,) = symbolic.check(y).kinks
    # left of 0 the output is -x, right of it x**2; the numeric gradient takes the -x branch
    assert (kink.input, kink.left, kink.right, kink.convention) == ("x_0", -1, 0, -1)


def test_leaf_symbols_are_distinct_even_when_names_collide():
    # the elements of a vector a are a_0, a_1: a 0-d leaf called a_0 gets another symbol
    a = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
    a_0 = t.tensor(3.0, dtype=t.float64, requires_grad=True)
    y = (a * a_0).sum()
    lowered = symbolic.lower(y)
    symbols = [s for arr in lowered.symbols.values() for s in arr]
    assert len(set(symbols)) == 3
    ga, g0 = symbolic.grad(y, [a, a_0])
    y.backward()
    values = lowered.values
    assert [float(e.subs(values)) for e in ga] == a.grad.tolist() == [3.0, 3.0]
    assert float(g0[()].subs(values)) == a_0.grad.item() == 3.0


def test_an_output_without_graph_gets_autograd_grads_error():
    a = t.tensor(1.0, requires_grad=True)
    for call in (lambda: symbolic.grad(t.tensor(1.0), a),
                 lambda: symbolic.compile(t.tensor(1.0), a)):
        with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad"):
            call()


def test_an_array_gradient_keeps_the_outputs_dtype():
    # a float64 output's v given as a numpy array is read in float64, not the default float32
    a = t.tensor([1.0, 2.0, 3.0], dtype=t.float64, requires_grad=True)
    (g,) = symbolic.grad(a * 2.0, a, gradient=np.array([0.123456789012345, -1.3, 2.0]))
    assert list(g) == [sympy.Rational("0.24691357802469"), sympy.Rational(-13, 5), 4]


# --------------------------------------------------------------------------- shared lowering
def test_lower_gives_a_graphs_lowering_again_until_something_it_read_changes():
    w = t.tensor([0.5, -1.0], dtype=t.float64, requires_grad=True)
    y = (w.sin() * 3).sum()
    first = symbolic.lower(y)
    assert symbolic.lower(y) is first  # check, grad, explain ... share one lowering
    assert symbolic.lower(y, constants="symbols") is not first
    with t.no_grad():
        w.mul_(2)  # the forward saw w's array: its values changed in place
    again = symbolic.lower(y)
    assert again is not first
    assert again.values[symbolic.lower(y).source_of(w).symbols[0]] == 1
    w.name = "weights"
    renamed = symbolic.lower(y)
    assert renamed is not again and renamed.source_of(w).name == "weights"
    other = y * 1  # another output: its own lowering
    assert symbolic.lower(other).output is other


def test_number_node_agrees_with_sympys_constructors():
    from symgrad.symbolic.calculus import add_numbers, number_node

    values = [sympy.Float("0.3", 40), sympy.Float("-2.5", 40), sympy.Rational(9, 10)]
    for func in (sympy.sin, sympy.cos, sympy.exp, sympy.tanh, sympy.atan, sympy.erf):
        for v in values:
            assert number_node(func, [v]) == func(v)
    assert number_node(sympy.Add, values) == sympy.Add(*values)
    assert number_node(sympy.Mul, values) == sympy.Mul(*values)
    assert number_node(sympy.sin, [sympy.Float(0)]) == sympy.sin(sympy.Float(0))
    assert add_numbers([sympy.oo, sympy.Float(1)]) is sympy.oo
    assert add_numbers([sympy.Rational(1, 3), sympy.Rational(2, 3)]) == 1
