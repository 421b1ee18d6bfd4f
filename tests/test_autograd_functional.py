"""``symgrad.autograd.functional`` (jacobian, hessian, vjp, jvp, hvp, vhp) against closed forms
and sympy, with PyTorch's return structures and strict-mode errors; ``gradcheck`` and
``gradgradcheck`` themselves."""

import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest
import sympy

import symgrad as t
from symgrad.autograd import functional as F
from symgrad.autograd import gradcheck, gradgradcheck
from symgrad.autograd.gradcheck import GradcheckError

X = np.array([1.0, 2.0, 3.0])
Y = np.array([[0.5, -1.0], [2.0, 0.3]])


def _t(values, requires_grad=False):
    return t.tensor(np.asarray(values).tolist(), dtype=t.float64, requires_grad=requires_grad)


def _np(tensor):
    return tensor.detach().numpy()


def cubic_times_sum(x):
    return x ** 2 * x.sum()


def cubic_times_sum_jacobian(x):
    # d/dx_j (x_i^2 S) = 2 x_i S delta_ij + x_i^2
    return np.diag(2 * x * x.sum()) + np.outer(x ** 2, np.ones_like(x))


def test_jacobian_closed_form_and_structure():
    x = _t(X)
    jac = F.jacobian(cubic_times_sum, x)
    assert isinstance(jac, t.Tensor) and jac.shape == (3, 3) and not jac.requires_grad
    np.testing.assert_allclose(_np(jac), cubic_times_sum_jacobian(X))
    (only,) = F.jacobian(cubic_times_sum, (x,))  # a tuple of inputs gives a tuple
    np.testing.assert_allclose(_np(only), cubic_times_sum_jacobian(X))

    def two_out(x, y):
        return x.sum() * y, x * 2

    jac = F.jacobian(two_out, (x, _t(Y)))
    assert [[tuple(b.shape) for b in row] for row in jac] == [[(2, 2, 3), (2, 2, 2, 2)],
                                                              [(3, 3), (3, 2, 2)]]
    np.testing.assert_allclose(_np(jac[0][0]), np.broadcast_to(Y[..., None], (2, 2, 3)))
    np.testing.assert_allclose(_np(jac[0][1]).reshape(4, 4), X.sum() * np.eye(4))
    np.testing.assert_allclose(_np(jac[1][0]), 2 * np.eye(3))
    np.testing.assert_array_equal(_np(jac[1][1]), np.zeros((3, 2, 2)))  # independent: zeros
    by_output = F.jacobian(lambda x: (x * 2, x.sum()), x)  # tuple of outputs, one input
    assert [tuple(b.shape) for b in by_output] == [(3, 3), (3,)]


def test_jacobian_against_sympy():
    a, b, c = sympy.symbols("a b c")
    exprs = [sympy.sin(a) * b ** 2, sympy.exp(a * c) + b, a * b * c]
    expected = np.array(sympy.Matrix(exprs).jacobian([a, b, c]).subs(
        {a: 0.3, b: -1.2, c: 0.7}).evalf(), dtype=np.float64)

    def f(v):
        x0, x1, x2 = v[0], v[1], v[2]
        return x0.sin() * x1 ** 2, (x0 * x2).exp() + x1, x0 * x1 * x2

    jac = F.jacobian(f, _t([0.3, -1.2, 0.7]))  # a tuple of outputs: one row each
    rows = [_np(r) for r in jac]
    np.testing.assert_allclose(np.array(rows), expected, rtol=1e-12)


def _sympy_function():
    """f(x, y) with x, y of two elements, as a sympy expression and a symgrad function."""
    x0, x1, y0, y1 = sympy.symbols("x0 x1 y0 y1")
    expr = sympy.sin(x0) * y0 ** 2 + sympy.exp(x1 * y1) + x0 * x1 * y0 + x0 ** 3 * y1

    def f(x, y):
        return ((x[0].sin() * y[0] ** 2) + (x[1] * y[1]).exp() + x[0] * x[1] * y[0]
                + x[0] ** 3 * y[1])

    return expr, (x0, x1, y0, y1), f


def test_hessian_against_sympy():
    expr, symbols, f = _sympy_function()
    point = dict(zip(symbols, [0.4, -0.7, 1.3, 0.2], strict=True))
    full = np.array(sympy.hessian(expr, symbols).subs(point).evalf(), dtype=np.float64)
    x, y = _t([0.4, -0.7]), _t([1.3, 0.2])
    hess = F.hessian(f, (x, y))
    assert [[tuple(b.shape) for b in row] for row in hess] == [[(2, 2)] * 2] * 2
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(_np(hess[i][j]), full[2 * i:2 * i + 2, 2 * j:2 * j + 2],
                                       rtol=1e-12)
    v = (_t([1.0, -2.0]), _t([0.5, 3.0]))
    flat_v = np.array([1.0, -2.0, 0.5, 3.0])
    for product in (F.hvp, F.vhp):
        value, result = product(f, (x, y), v)
        np.testing.assert_allclose(value.item(), float(expr.subs(point)), rtol=1e-12)
        np.testing.assert_allclose(np.concatenate([_np(r) for r in result]), full @ flat_v,
                                   rtol=1e-12)
    grad_expr = [sympy.diff(expr, s) for s in symbols]
    value, (gx, gy) = F.vjp(f, (x, y))  # v may be omitted for a one-element output
    np.testing.assert_allclose(np.concatenate([_np(gx), _np(gy)]),
                               np.array([float(d.subs(point)) for d in grad_expr]), rtol=1e-12)


def test_hessian_closed_form_single_input():
    hess = F.hessian(lambda x: (x ** 3).sum() * x[0], _t(X))
    # f = x0 S3 with S3 = sum x^3: H = x0 diag(6x) + 3x^2 e0^T + e0 (3x^2)^T
    expected = X[0] * np.diag(6 * X)
    expected[0, :] += 3 * X ** 2
    expected[:, 0] += 3 * X ** 2
    np.testing.assert_allclose(_np(hess), expected)
    assert isinstance(hess, t.Tensor) and not hess.requires_grad


def test_vjp_jvp_closed_forms_and_structure():
    x = _t(X)
    jac = cubic_times_sum_jacobian(X)
    v = np.array([1.0, -1.0, 2.0])
    out, vjp = F.vjp(cubic_times_sum, x, _t(v))
    np.testing.assert_allclose(_np(out), X ** 2 * X.sum())
    np.testing.assert_allclose(_np(vjp), v @ jac)
    out, jvp = F.jvp(cubic_times_sum, x, _t(v))
    np.testing.assert_allclose(_np(jvp), jac @ v)
    out, jvp = F.jvp(cubic_times_sum, (x,), (_t(v),))  # J v is structured as the outputs
    assert isinstance(out, t.Tensor) and isinstance(jvp, t.Tensor)
    np.testing.assert_allclose(_np(jvp), jac @ v)
    out, (a, b) = F.jvp(lambda x: (x * 2, x.sum()), x, _t(v))
    np.testing.assert_allclose(_np(a), 2 * v)
    np.testing.assert_allclose(b.item(), v.sum())


def test_hvp_vhp_closed_form():
    # f = (sum x^3) (sum x): H = diag(6 x) S1 + 3x^2 1^T + 1 (3x^2)^T
    def f(x):
        return (x ** 3).sum() * x.sum()

    hess = np.diag(6 * X) * X.sum() + np.outer(3 * X ** 2, np.ones(3)) \
        + np.outer(np.ones(3), 3 * X ** 2)
    v = np.array([0.5, -1.0, 2.0])
    for product in (F.hvp, F.vhp):
        value, result = product(f, _t(X), _t(v))
        np.testing.assert_allclose(value.item(), (X ** 3).sum() * X.sum())
        np.testing.assert_allclose(_np(result), hess @ v)
    np.testing.assert_allclose(_np(F.hessian(f, _t(X))), hess)


def test_v_may_be_omitted_only_for_one_element():
    for fn in (F.jvp, F.hvp, F.vhp):
        _, result = fn(lambda x: (x ** 3).sum(), _t([3.0]))
        np.testing.assert_allclose(_np(result), [27.0 if fn is F.jvp else 18.0])  # 3x^2, 6x
        with pytest.raises(RuntimeError, match="^The vector v can only be None if the input to "
                                               "the user-provided function is a single Tensor "
                                               "with a single element."):
            fn(lambda x: (x ** 2).sum(), _t(X))
    with pytest.raises(RuntimeError, match="^The vector v can only be None if the user-provided "
                                           "function returns a single Tensor with a single "
                                           "element."):
        F.vjp(lambda x: x ** 2, _t(X))


def test_argument_errors_as_pytorch():
    x = _t(X)
    with pytest.raises(RuntimeError, match=r"^v has invalid size: should be symgrad.Size\(\[3\]\) "
                                           r"but got symgrad.Size\(\[2\]\)."):
        F.vjp(lambda x: x ** 2, x, _t([1.0, 2.0]))
    with pytest.raises(RuntimeError, match=r"^Entry 0 in v has invalid size"):
        F.jvp(lambda x: x ** 2, (x,), (_t([1.0, 2.0]),))
    with pytest.raises(RuntimeError, match="^v is a tuple of invalid length: should be 1 but got "
                                           "2."):
        F.jvp(lambda x: x ** 2, (x,), (x, x))
    with pytest.raises(RuntimeError, match="^The given v should contain a single Tensor."):
        F.vjp(lambda x: x ** 2, x, (x, x))
    with pytest.raises(TypeError, match="^The outputs of the user-provided function given to "
                                        "jacobian must be either a Tensor or a tuple of Tensors "
                                        "but the given outputs of the user-provided function has "
                                        "type <class 'list'>."):
        F.jacobian(lambda x: [x], x)
    with pytest.raises(TypeError, match="^The inputs given to vjp must be either a Tensor or a "
                                        "tuple of Tensors but the value at index 1 has type "
                                        "<class 'int'>."):
        F.vjp(lambda x, k: x * k, (x, 3), x)
    with pytest.raises(RuntimeError, match="^The function given to hessian should return a "
                                           "single Tensor"):
        F.hessian(lambda x: (x.sum(),), x)
    with pytest.raises(RuntimeError, match="^The Tensor returned by the function given to hvp "
                                           "should contain a single element"):
        F.hvp(lambda x: x * 2, x, x)


def test_strict_mode_errors():
    x, y = _t(X), _t(Y)

    def only_x(x, y):
        return (x ** 3).sum()

    with pytest.raises(RuntimeError, match="^Output 0 of the user-provided function is "
                                           "independent of input 1. This is not allowed in "
                                           "strict mode."):
        F.jacobian(only_x, (x, y), strict=True)
    with pytest.raises(RuntimeError, match="^The output of the user-provided function is "
                                           "independent of input 1. This is not allowed in "
                                           "strict mode."):
        F.vjp(only_x, (x, y), strict=True)
    w = _t(X, requires_grad=True)  # captured: requires grad, independent of the input
    with pytest.raises(RuntimeError, match="^The gradient with respect to the input is "
                                           "independent of entry 1 in the grad_outputs when using "
                                           "the double backward trick"):
        F.jvp(lambda x: (x * 2, w * 3), x, x, strict=True)
    _, (_, zero) = F.jvp(lambda x: (x * 2, w * 3), x, x)
    np.testing.assert_array_equal(_np(zero), np.zeros(3))
    with pytest.raises(RuntimeError, match="^Output 0 of the user-provided function does not "
                                           "require gradients."):
        F.vjp(lambda x: x.detach() * 2, x, x, strict=True)
    with pytest.raises(RuntimeError, match="^While computing the hessian, found that the jacobian "
                                           "of the user-provided function with respect to input "
                                           "0 is independent of the input."):
        F.hessian(lambda x: (x * 2).sum(), x, strict=True)
    with pytest.raises(RuntimeError, match="^The jacobian of the user-provided function is "
                                           "independent of input 0. This is not allowed in strict "
                                           "mode when create_graph=True."):
        F.jacobian(lambda x: x * 2, x, strict=True, create_graph=True)
    # without strict, the mathematically right zeros
    _, (gx, gy) = F.vjp(only_x, (x, y))
    np.testing.assert_array_equal(_np(gy), np.zeros((2, 2)))
    np.testing.assert_array_equal(_np(F.hessian(lambda x: (x * 2).sum(), x)), np.zeros((3, 3)))


def test_create_graph_results_are_differentiable():
    x = _t(X, requires_grad=True)
    hess = F.hessian(lambda x: (x ** 4).sum(), x, create_graph=True)  # diag(12 x^2)
    assert hess.requires_grad
    np.testing.assert_allclose(_np(hess), np.diag(12 * X ** 2))
    (g,) = t.autograd.grad(hess.sum(), x)
    np.testing.assert_allclose(_np(g), 24 * X)
    jac = F.jacobian(lambda x: x.exp() * x[0], x, create_graph=True)
    (g,) = t.autograd.grad(jac.sum(), x)
    # jac = diag(x0 e^x) + e^x e0^T; d/dx of its sum
    expected = X[0] * np.exp(X) + np.exp(X)
    expected[0] += np.exp(X).sum()
    np.testing.assert_allclose(_np(g), expected)
    v = _t([1.0, 0.0, -1.0])
    out, r = F.hvp(lambda x: (x ** 4).sum(), x, v, create_graph=True)
    assert out.requires_grad and r.requires_grad
    (g,) = t.autograd.grad(r.sum(), x)  # r = 12 x^2 v
    np.testing.assert_allclose(_np(g), 24 * X * np.array([1.0, 0.0, -1.0]))
    # without create_graph, results are detached even for inputs requiring grad
    out, r = F.vjp(lambda x: x ** 2, x, v)
    assert not out.requires_grad and not r.requires_grad
    assert x.grad is None


def test_strategy_and_vectorize():
    x = _t(X)
    reverse = F.jacobian(cubic_times_sum, x)
    forward = F.jacobian(cubic_times_sum, x, strategy="forward-mode", vectorize=True)
    np.testing.assert_array_equal(_np(forward), _np(reverse))  # forward-mode falls back
    with pytest.raises(AssertionError, match='^Expected strategy to be either "forward-mode" or '
                                             '"reverse-mode".'):
        F.jacobian(cubic_times_sum, x, strategy="sideways")
    np.testing.assert_allclose(_np(F.hessian(lambda x: (x ** 3).sum(), x, vectorize=True)),
                               np.diag(6 * X))


# the refusals torch 2.13 gives for these combinations, in its order of checks
OPTION_REFUSALS = [
    (dict(strategy="forward-mode"), NotImplementedError, "Computing Jacobian using forward-AD "
     "or forward-over-reverse Hessian isonly implemented for `vectorize=True`."),
    (dict(strategy="forward-mode", vectorize=True, create_graph=True), NotImplementedError,
     "symgrad.autograd.functional.jacobian: `create_graph=True` and `strategy=\"forward-mode\"`"
     " are not supported together (yet)."),
    (dict(strategy="forward-mode", vectorize=True, strict=True), RuntimeError,
     "symgrad.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` are "
     "not supported together (yet)."),
    (dict(vectorize=True, strict=True), RuntimeError, "symgrad.autograd.functional.jacobian: "
     "`strict=True` and `vectorized=True` are not supported together."),
]


@pytest.mark.parametrize(("options", "kind", "message"), OPTION_REFUSALS)
def test_jacobian_and_hessian_refuse_what_pytorch_refuses(options, kind, message):
    x = _t(X)
    with pytest.raises(kind) as caught:
        F.jacobian(cubic_times_sum, x, **options)
    assert str(caught.value).startswith(message)
    if "strategy" in options:  # (the hessian's outer jacobian)
        options = {("outer_jacobian_strategy" if k == "strategy" else k): v
                   for k, v in options.items()}
    with pytest.raises(kind) as caught:
        F.hessian(lambda x: (x ** 3).sum(), x, **options)
    assert str(caught.value).startswith(message)


def test_grad_with_batched_grad_outputs_maps_over_their_first_dim():
    """``is_grads_batched``: each row of the grad_outputs is one vector-Jacobian product
    (values from torch 2.13); an unused input's materialized gradient has no batch dim."""
    x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=t.float64, requires_grad=True)
    unused = t.ones(2, requires_grad=True)
    y = (x.sin() * x.exp()).sum(1)
    rows, none = t.autograd.grad(y, [x, unused], grad_outputs=t.eye(2, dtype=t.float64),
                                 is_grads_batched=True, allow_unused=True, retain_graph=True)
    assert none is None
    np.testing.assert_allclose(_np(rows), [
        [[2.23732812, -0.11079377, 3.64391738], [0.0, 0.0, 0.0]],
        [[0.0, 0.0, 0.0], [4.78748452, 1.56178115, 0.023642]]], rtol=1e-8, atol=1e-8)
    # the same rows as one grad call per row of the grad_outputs
    for k in range(2):
        (row,) = t.autograd.grad(y, x, grad_outputs=t.eye(2, dtype=t.float64)[k],
                                 retain_graph=True)
        np.testing.assert_array_equal(_np(rows[k]), _np(row))
    materialized = t.autograd.grad(y, [x, unused], grad_outputs=t.eye(2, dtype=t.float64),
                                   is_grads_batched=True, materialize_grads=True,
                                   retain_graph=True)[1]
    assert materialized.shape == (2,) and not materialized.any()
    (with_graph,) = t.autograd.grad(y, x, grad_outputs=t.eye(2, dtype=t.float64),
                                    is_grads_batched=True, create_graph=True)
    assert with_graph.requires_grad
    (second,) = t.autograd.grad(with_graph.sum(), x)  # d/dx of sum of the two rows
    np.testing.assert_allclose(_np(second), _np(2 * x.cos() * x.exp()), rtol=1e-12)
    with pytest.raises(RuntimeError, match="^If `is_grads_batched=True`, we interpret the first "
                                           "dimension of each grad_output as the batch "
                                           "dimension."):
        t.autograd.grad((x * 2).sum(1), x, grad_outputs=t.ones(2, dtype=t.float64),
                        is_grads_batched=True)


# ---------------------------------------------------------------- gradcheck, gradgradcheck
def test_gradcheck_passes_and_returns_true():
    x, y = _t(X, True), _t([0.5, -1.0, 2.0], True)
    assert gradcheck(lambda a, b: ((a * b).sin(), a.exp() * 2), (x, y)) is True
    assert gradcheck(lambda a: a ** 2, x)  # one tensor, not a tuple
    assert gradgradcheck(lambda a, b: (a * b).sin() * a, (x, y)) is True
    assert gradgradcheck(lambda a: a ** 3, x, (_t([1.0, 2.0, -1.0], True),))


def test_gradcheck_error_is_a_runtime_error_with_pytorchs_first_sentence():
    assert issubclass(GradcheckError, RuntimeError)
    x, y = _t([1.0, 2.0], True), _t([3.0, 4.0, 5.0], True)

    def wrong(a, b):  # the gradient for b is scaled by 1.5 through a hook
        b2 = b * 1
        b2.register_hook(lambda g: g * 1.5)
        return a.sum() * b2

    with pytest.raises(GradcheckError, match=r"(?s)^Jacobian mismatch for output 0 with respect to "
                                             r"input 1,\nnumerical:tensor\(\[\[3\.0000, 0\.0000,"
                                             r" 0\.0000\],\n.*\nanalytical:tensor\(\[\[4\.5000"):
        gradcheck(wrong, (x, y))
    assert gradcheck(wrong, (x, y), raise_exception=False) is False
    assert gradcheck(wrong, (x, y), atol=2.0, rtol=0.0)  # tolerances are used


def test_gradcheck_input_checks():
    with pytest.raises(ValueError, match="^gradcheck expects at least one input tensor to require "
                                         "gradient, but none of them have requires_grad=True."):
        gradcheck(lambda a: a * 2, (_t(X),))
    x32 = t.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="^Input #0 requires gradient and is not a double "
                                         "precision floating point or complex."):
        with pytest.raises(GradcheckError, match="^Jacobian mismatch"):  # float32 differences
            gradcheck(lambda a: a ** 2, (x32,))
    wide = _t([1.0], True).expand(3)
    with pytest.raises(RuntimeError, match="^The 0th input has a dimension with stride 0."):
        gradcheck(lambda a: a * 2, (wide,))


def test_gradcheck_without_differentiable_outputs():
    x = _t(X, True)
    with pytest.raises(GradcheckError, match="^Numerical gradient for function expected to be "
                                             "zero"):
        gradcheck(lambda a: (a ** 2).detach(), (x,))
    assert gradcheck(lambda a: (a > 1).long(), (x,))


def test_gradcheck_leaves_inputs_unchanged_and_catches_nondeterminism():
    x = _t(X, True)
    calls = []

    def drift(g):  # each backward scales a little more
        calls.append(1)
        return g * (1 + 1e-3 * len(calls))

    def noisy(a):
        out = a * 1
        out.register_hook(drift)
        return out

    with pytest.raises(GradcheckError, match="^Backward is not reentrant"):
        gradcheck(noisy, (x,), atol=1e-1)
    np.testing.assert_array_equal(_np(x), X)
    calls.clear()
    assert gradcheck(noisy, (x,), atol=1e-1, nondet_tol=1.0)


def test_gradcheck_options_pytorch_checks_and_unsupported_modes():
    x = _t(X, True)
    with pytest.raises(AssertionError, match="^Expected at least one of check_forward_ad or "
                                             "check_backward_ad to be True"):
        gradcheck(lambda a: a, x, check_backward_ad=False)
    with pytest.raises(NotImplementedError, match="forward-mode"):
        gradcheck(lambda a: a, x, check_forward_ad=True)
    assert gradcheck(lambda a: a * 2, x, fast_mode=True, check_batched_grad=True,
                     check_grad_dtypes=True, check_undefined_grad=False)


def test_gradcheck_name_is_callable_in_every_import_order():
    import symgrad.autograd

    module = sys.modules["symgrad.autograd.gradcheck"]
    x = _t([1.0], True)
    assert module(lambda a: a * 2, (x,))  # the module is callable too
    assert symgrad.autograd.gradcheck(lambda a: a * 2, (x,))
    assert module.GradcheckError is GradcheckError
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gradgradcheck(lambda a: a ** 2, (x,))
    # importing the submodule first binds symgrad.autograd.gradcheck to the (callable) module
    code = ("from symgrad.autograd.gradcheck import GradcheckError; import symgrad as t; "
            "x = t.tensor([1.0], dtype=t.float64, requires_grad=True); "
            "print(t.autograd.gradcheck(lambda a: a * 2, (x,)), "
            "t.autograd.gradgradcheck(lambda a: a ** 2, (x,)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=pathlib.Path(__file__).resolve().parent.parent, timeout=120)
    assert result.stdout.split() == ["True", "True"], result.stderr
