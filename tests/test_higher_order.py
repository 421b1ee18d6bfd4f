"""Higher-order gradients (create_graph=True) against sympy's derivatives and closed forms."""

import warnings

import numpy as np
import pytest
import sympy

import symgrad as t

X = sympy.Symbol("x", real=True)

# (symgrad function, the same function written in sympy, sample points)
FUNCTIONS = [
    (lambda x: x ** 3, X ** 3, [-1.5, 0.3, 2.0]),
    (lambda x: x.sin() * x, sympy.sin(X) * X, [-1.0, 0.5, 2.5]),
    (lambda x: x.tanh(), sympy.tanh(X), [-1.0, 0.2, 1.3]),
    (lambda x: x.exp() / (1 + x * x), sympy.exp(X) / (1 + X ** 2), [-0.7, 0.0, 1.1]),
    (lambda x: (x * x + 1).log().sqrt(), sympy.sqrt(sympy.log(X ** 2 + 1)), [0.4, 1.0, 2.0]),
    (lambda x: x.sigmoid() * x.cos(), X * 0 + sympy.cos(X) / (1 + sympy.exp(-X)),
     [-2.0, 0.1, 1.7]),
    (lambda x: 2 ** x + x ** x, 2 ** X + X ** X, [0.5, 1.2, 2.2]),
    (lambda x: (x - 1).abs() * x, sympy.Abs(X - 1) * X, [-0.5, 0.3, 2.0]),
]


def _derivatives(fn, x_values, order):
    """d^k f / dx^k for k = 1..order by repeated autograd.grad with create_graph."""
    x = t.tensor(x_values, dtype=t.float64, requires_grad=True)
    y = fn(x).sum()
    results = []
    for _ in range(order):
        (y,) = t.autograd.grad(y, x, create_graph=True)
        results.append(y.detach().numpy().copy())
        y = y.sum()
    return results


@pytest.mark.parametrize(("fn", "expr", "points"), FUNCTIONS)
def test_first_second_third_derivatives_match_sympy(fn, expr, points):
    ours = _derivatives(fn, points, order=3)
    for k in range(1, 4):
        derivative = sympy.diff(expr, X, k)
        # away from kinks (the sample points avoid them) the delta terms vanish
        derivative = derivative.replace(sympy.DiracDelta, lambda *args: 0)
        exact = sympy.lambdify(X, derivative, "numpy")
        expected = np.array([float(exact(p)) for p in points])
        np.testing.assert_allclose(ours[k - 1], expected, rtol=1e-10, atol=1e-12,
                                   err_msg=f"derivative {k}")


def test_second_derivative_through_matmul_chain():
    # f(x) = sum(tanh(W x)); Hessian-vector products against the closed form
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 4))
    x0 = rng.standard_normal(4)
    v = rng.standard_normal(4)
    x = t.tensor(x0, dtype=t.float64, requires_grad=True)
    y = (t.tensor(w) @ x).tanh().sum()
    (g,) = t.autograd.grad(y, x, create_graph=True)
    (hv,) = t.autograd.grad(g, x, grad_outputs=t.tensor(v))
    z = np.tanh(w @ x0)
    hessian = w.T @ np.diag(-2 * z * (1 - z ** 2)) @ w
    np.testing.assert_allclose(g.detach().numpy(), w.T @ (1 - z ** 2), rtol=1e-12)
    np.testing.assert_allclose(hv.numpy(), hessian @ v, rtol=1e-10)


def test_gradient_of_gradient_norm_and_grad_fn_of_gradients():
    x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
    (g,) = t.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.requires_grad and type(g.grad_fn).__name__ == "MulBackward0"
    penalty = (g * g).sum()  # sum 9 x^4
    penalty.backward()
    np.testing.assert_allclose(x.grad.numpy(), 36 * np.array([1.0, 8.0]))


def test_backward_create_graph_then_differentiate_grad():
    x = t.tensor([0.5, -1.0], dtype=t.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reference-cycle warning
        (x.sin() * x).sum().backward(create_graph=True)
    first = x.grad
    (second,) = t.autograd.grad(first.sum(), x)
    xv = np.array([0.5, -1.0])
    np.testing.assert_allclose(first.detach().numpy(), np.cos(xv) * xv + np.sin(xv))
    np.testing.assert_allclose(second.numpy(), 2 * np.cos(xv) - xv * np.sin(xv))


def test_double_backward_through_broadcasting_and_indexing():
    x = t.tensor([[1.0, 2.0, 3.0]], dtype=t.float64, requires_grad=True)
    b = t.tensor([[1.0], [2.0]], dtype=t.float64, requires_grad=True)
    y = ((x * b) ** 2)[:, t.tensor([0, 2, 2])].sum()
    gx, gb = t.autograd.grad(y, [x, b], create_graph=True)
    # y = sum_i b_i^2 (x0^2 + 2 x2^2)
    np.testing.assert_allclose(gx.detach().numpy(), [[2 * 5.0 * 1.0, 0.0, 4 * 5.0 * 3.0]])
    (hxx,) = t.autograd.grad(gx.sum(), x, retain_graph=True)
    np.testing.assert_allclose(hxx.numpy(), [[10.0, 0.0, 20.0]])
    (hbx,) = t.autograd.grad(gb.sum(), x)
    np.testing.assert_allclose(hbx.numpy(), [[2 * 2 * 3.0 * 1.0, 0.0, 2 * 2 * 3.0 * 2 * 3.0]])
