"""symbolic.check_hessian: the double backward against sympy's second derivatives.

Expected Hessians come from ``sympy.hessian`` of hand-written expressions (independent of the
lowering) and from central finite differences of the engine's first-order gradient."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest
import sympy

import symgrad as t
from symgrad import symbolic


def _sym(name):
    return sympy.Symbol(name, real=True)


def _hand_hessian(expr, symbols, values):
    """sympy.hessian of a hand-written expression, at ``values`` (float64)."""
    at = dict(zip(symbols, values, strict=True))
    return np.array(sympy.hessian(expr, symbols).subs(at).evalf(30), dtype=np.float64)


def _fd_hessian(f, inputs, eps=1e-5):
    """Central differences of the engine's first-order gradient of ``f(*inputs)``: row i is
    the gradient of gradient element i (as check_hessian's rows)."""
    values = [x.detach().numpy().astype(np.float64) for x in inputs]
    sizes = [v.size for v in values]

    def gradient(flat):
        pieces = np.split(flat, np.cumsum(sizes)[:-1])
        leaves = [t.tensor(p.reshape(v.shape), dtype=t.float64, requires_grad=True)
                  for p, v in zip(pieces, values, strict=True)]
        grads = t.autograd.grad(f(*leaves), leaves, allow_unused=True)
        return np.concatenate([np.zeros(v.size) if g is None else g.numpy().reshape(-1)
                               for g, v in zip(grads, values, strict=True)])

    flat = np.concatenate([v.reshape(-1) for v in values])
    columns = []
    for k in range(flat.size):
        step = np.zeros_like(flat)
        step[k] = eps
        columns.append((gradient(flat + step) - gradient(flat - step)) / (2 * eps))
    return np.array(columns).T


# --------------------------------------------------------------------------- closed forms
def test_cube_hessian_is_six_x_on_the_diagonal():
    x = t.tensor([1.0, -2.0, 0.5], dtype=t.float64, requires_grad=True)
    y = (x ** 3).sum()
    report = symbolic.check_hessian(y, x)
    X = [_sym(f"x_{i}") for i in range(3)]
    expected = _hand_hessian(sum(s ** 3 for s in X), X, [1.0, -2.0, 0.5])
    np.testing.assert_allclose(expected, np.diag([6.0, -12.0, 3.0]))
    np.testing.assert_allclose(report.numeric, expected, rtol=1e-12)
    np.testing.assert_allclose(report.symbolic, expected, rtol=1e-12)
    (block,) = report.blocks
    assert (block.rows, block.columns, block.shape, block.checked) == ("x", "x", (3, 3), 9)
    assert "(x, x): 9 elements" in str(report) and "Hessian check of y passed" in str(report)


def test_mixed_blocks_of_sin_x_times_y():
    x = t.tensor([0.3, 1.1], dtype=t.float64, requires_grad=True)
    y = t.tensor([2.0, -0.5], dtype=t.float64, requires_grad=True)
    report = symbolic.check_hessian((x.sin() * y).sum(), [x, y])
    X, Y = [_sym("x_0"), _sym("x_1")], [_sym("y_0"), _sym("y_1")]
    expr = sum(sympy.sin(a) * b for a, b in zip(X, Y, strict=True))
    expected = _hand_hessian(expr, X + Y, [0.3, 1.1, 2.0, -0.5])
    np.testing.assert_allclose(report.numeric, expected, rtol=1e-12, atol=1e-15)
    assert [(b.rows, b.columns, b.shape) for b in report.blocks] == [
        ("x", "x", (2, 2)), ("x", "y", (2, 2)), ("y", "x", (2, 2)), ("y", "y", (2, 2))]
    assert report.symmetric and report.max_asymmetry == 0.0


def test_tanh_layer_against_hand_written_sympy_and_finite_differences():
    t.manual_seed(0)
    W = t.randn(2, 3, dtype=t.float64, requires_grad=True)
    x = t.randn(3, dtype=t.float64, requires_grad=True)
    report = symbolic.check_hessian((W @ x).tanh().sum())
    assert report.inputs == ["W", "x"]
    Ws = sympy.Matrix(2, 3, lambda i, j: _sym(f"W_{i},{j}"))
    Xs = sympy.Matrix(3, 1, lambda i, _: _sym(f"x_{i}"))
    expr = sum(sympy.tanh(e) for e in Ws * Xs)
    values = np.concatenate([W.detach().numpy().reshape(-1), x.detach().numpy()])
    expected = _hand_hessian(expr, list(Ws) + list(Xs), values)
    np.testing.assert_allclose(report.symbolic, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(report.numeric, expected, rtol=1e-10, atol=1e-14)
    fd = _fd_hessian(lambda W_, x_: (W_ @ x_).tanh().sum(), [W, x])
    np.testing.assert_allclose(report.numeric, fd, rtol=1e-6, atol=1e-8)
    assert [b.shape for b in report.blocks] == [(2, 3, 2, 3), (2, 3, 3), (3, 2, 3), (3, 3)]
    assert sum(b.checked for b in report.blocks) == 81


def test_softmax_and_logsumexp():
    a = t.tensor([0.1, -0.4, 0.7], dtype=t.float64, requires_grad=True)
    report = symbolic.check_hessian(a.softmax(0)[0] + a.logsumexp(0), a)
    A = [_sym(f"a_{i}") for i in range(3)]
    total = sum(sympy.exp(s) for s in A)
    expected = _hand_hessian(sympy.exp(A[0]) / total + sympy.log(total), A, [0.1, -0.4, 0.7])
    np.testing.assert_allclose(report.numeric, expected, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(report.symbolic, expected, rtol=1e-12, atol=1e-15)


def test_vector_output_with_gradient_is_the_hessian_of_v_dot_output():
    b = t.tensor([0.5, -1.0], dtype=t.float64, requires_grad=True)
    out = b.sin() * b.exp() * b.flip(0)
    v = t.tensor([1.0, -2.0], dtype=t.float64)
    report = symbolic.check_hessian(out, gradient=v)
    B = [_sym("b_0"), _sym("b_1")]
    expr = (sympy.sin(B[0]) * sympy.exp(B[0]) * B[1]
            - 2 * sympy.sin(B[1]) * sympy.exp(B[1]) * B[0])
    np.testing.assert_allclose(report.numeric, _hand_hessian(expr, B, [0.5, -1.0]),
                               rtol=1e-12, atol=1e-15)
    assert str(report).startswith("Hessian check of (gradient · out) passed")


def test_float32_uses_float32_tolerances():
    x = t.tensor([0.1, 0.2, 0.3], requires_grad=True)
    report = symbolic.check_hessian((x.exp() * x.sin()).sum())
    assert (report.rtol, report.atol) == (1e-4, 1e-6)
    assert 0 < report.blocks[0].max_rel_error < 1e-5  # float32 rounding, well inside


# --------------------------------------------------------------------------- kinks, undefined
def test_relu_kink_is_reported_not_a_mismatch():
    x = t.tensor([-1.0, 0.0, 2.0], dtype=t.float64, requires_grad=True)
    report = symbolic.check_hessian((x.relu() * x.sin()).sum())
    (kink,) = report.kinks
    assert kink.node == "ReluBackward0" and kink.index == (1,)


def test_second_derivative_of_abs_at_zero_is_undefined():
    x = t.tensor([-1.0, 0.0, 2.0], dtype=t.float64, requires_grad=True)
    report = symbolic.check_hessian(x.abs().sum())
    (block,) = report.blocks
    assert [(index, numeric) for index, _, numeric in block.undefined] == [((1, 1), 0.0)]
    assert "DiracDelta(0)" in block.undefined[0][1]
    assert report.kinks[0].node == "AbsBackward0"
    assert "undefined at (1, 1)" in str(report)


def test_singular_point_spreads_nan_that_is_reported_as_undefined():
    y = t.tensor([0.0, 4.0], dtype=t.float64, requires_grad=True)
    report = symbolic.check_hessian(y.sqrt().sum())
    undefined = {index for index, _, _ in report.blocks[0].undefined}
    assert (0, 0) in undefined
    assert report.numeric[1, 1] == pytest.approx(-1 / 32)  # d²√y/dy² at 4, still checked


# --------------------------------------------------------------------------- custom Functions
class Sine(t.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos()  # symgrad ops: differentiable again


class DetachedCube(t.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x.detach()  # right value, half the second derivative


class NumpySine(Sine):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * t.tensor(np.cos(x.detach().numpy()))  # not differentiable in x


def test_custom_function_with_differentiable_backward_passes():
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    w = t.tensor([2.0, -1.0], dtype=t.float64, requires_grad=True)
    report = symbolic.check_hessian((Sine.apply(x * w) * w).sum())
    fd = _fd_hessian(lambda x_, w_: ((x_ * w_).sin() * w_).sum(), [x, w])
    np.testing.assert_allclose(report.numeric, fd, rtol=1e-6, atol=1e-8)


def test_backward_wrong_to_second_order_names_input_index_and_node():
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    y = DetachedCube.apply(x).sum()
    line = sys._getframe().f_lineno - 1
    symbolic.check(y)  # first order is right
    with pytest.raises(symbolic.HessianMismatch) as caught:
        symbolic.check_hessian(y)
    error = caught.value
    message = str(error)
    assert isinstance(error, symbolic.GradientMismatch)
    assert message.startswith("Hessian of y w.r.t. x at index (0, 0): numeric 1.5 but sympy 3.0")
    assert "2 element(s) differ" in message
    assert f"DetachedCubeBackward created at {__file__}:{line}" in message
    assert (error.inputs, error.index, error.node) == (("x", "x"), (0, 0), "DetachedCubeBackward")


def test_backward_through_numpy_is_named_as_not_differentiable():
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    w = t.tensor([2.0, -1.0], dtype=t.float64, requires_grad=True)
    y = (NumpySine.apply(x.exp()) * w).sum()
    with pytest.raises(symbolic.HessianMismatch) as caught:
        symbolic.check_hessian(y, [w, x])
    message = str(caught.value)
    # d²y/dx0² = w0 (e^x0 cos e^x0 - e^2x0 sin e^x0); the numeric side loses the second term
    e = np.exp(0.5)
    found = re.match(r"Hessian of y w\.r\.t\. x at index \(0, 0\): numeric (\S+) but sympy "
                     r"(\S+) ", message)
    assert float(found[1]) == pytest.approx(2 * e * np.cos(e), rel=1e-12)
    assert float(found[2]) == pytest.approx(2 * (e * np.cos(e) - e * e * np.sin(e)), rel=1e-12)
    assert "NumpySineBackward" in message and "do not require grad" in message
    assert caught.value.inputs == ("x", "x")


def test_backward_wrong_at_first_order_is_named_as_such():
    class Bad(Sine):
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos() * 2

    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    with pytest.raises(symbolic.HessianMismatch, match="first node whose VJP disagrees with "
                                                       "sympy: BadBackward"):
        symbolic.check_hessian(Bad.apply(x).sum())


def test_asymmetric_double_backward_names_the_off_diagonal_block():
    class Product(t.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b.detach(), g * a

    a = t.tensor(2.0, dtype=t.float64, requires_grad=True)
    b = t.tensor(3.0, dtype=t.float64, requires_grad=True)
    with pytest.raises(symbolic.HessianMismatch) as caught:
        symbolic.check_hessian(Product.apply(a, b), [a, b])
    assert str(caught.value).startswith("Hessian of the output w.r.t. (a, b) at index (): "
                                        "numeric 0.0 but sympy 1.0")
    assert caught.value.node == "ProductBackward"


# --------------------------------------------------------------------------- state, errors
def test_grads_untouched_and_graph_still_usable():
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    y = (x.sin() * x).sum()
    symbolic.check_hessian(y)
    assert x.grad is None
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.5, 1.5]) * [0.5, 1.5]
                               + np.sin([0.5, 1.5]))


def test_works_after_backward_freed_the_graph():
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    report = symbolic.check_hessian(y)
    np.testing.assert_allclose(np.diag(report.numeric), np.exp([0.5, 1.5]) * [2.5, 3.5])


def test_replay_after_backward_keeps_float64_constants():
    # the replay of a freed graph once rebuilt constant inputs with Tensor(array), which is
    # float32: x @ W then differed by ~1e-8 and check_hessian reported a false mismatch
    rng = np.random.default_rng(0)
    x = t.tensor(rng.standard_normal((4, 3)), dtype=t.float64)
    W = t.tensor(rng.standard_normal((3, 5)), dtype=t.float64, requires_grad=True)
    y = ((x @ W).tanh() ** 2).sum()
    fresh = symbolic.check_hessian(y)
    y.backward()
    replayed = symbolic.check_hessian(y)
    np.testing.assert_array_equal(replayed.numeric, fresh.numeric)
    assert replayed.blocks[0].max_abs_error <= 1e-12


def test_custom_function_after_backward_freed_the_graph():
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    y = Sine.apply(x).sum()
    y.backward()  # frees the saved tensors: the replay calls Sine.apply again
    symbolic.check(y)  # (the first-order check shares the replay)
    report = symbolic.check_hessian(y)
    np.testing.assert_allclose(report.numeric, np.diag(-np.sin([0.5, 1.5])), rtol=1e-14)


def test_unused_input_gives_a_zero_block():
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    u = t.tensor(1.0, dtype=t.float64, requires_grad=True)
    report = symbolic.check_hessian((x * x).sum(), [x, u])
    np.testing.assert_array_equal(report.numeric, [[2, 0, 0], [0, 2, 0], [0, 0, 0]])


def test_errors_mirror_autograd():
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        symbolic.check_hessian(x * x)
    with pytest.raises(RuntimeError, match="does not require grad"):
        symbolic.check_hessian((x * x).sum(), t.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="check_hessian\\(\\) expects a Tensor"):
        symbolic.check_hessian([1.0])
