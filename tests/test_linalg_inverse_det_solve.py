"""``inverse``/``linalg.inv``, ``det``/``linalg.det`` and ``linalg.solve``: values against numpy,
gradients against central differences and against sympy's derivative of the same expression
(the registry tests check the rules on their samples too), PyTorch's node names, its gradient of
det at a singular matrix, and its errors (recorded from torch 2.13 by hand: type and first
sentence)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgrad as t
from symgrad import ops

RNG = np.random.default_rng(7)


def _matrix(*shape: int) -> np.ndarray:
    """A well-conditioned random matrix (or batch): identity plus small noise."""
    return np.eye(shape[-1]) + 0.3 * RNG.standard_normal(shape)


def _central(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for index in np.ndindex(*x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = (f(up) - f(down)) / (2 * eps)
    return grad


def test_values_match_numpy():
    a, b = _matrix(2, 3, 3), RNG.standard_normal((2, 3, 2))
    assert np.allclose(t.linalg.inv(t.tensor(a)).numpy(), np.linalg.inv(a), rtol=1e-12)
    assert np.allclose(t.tensor(a).inverse().numpy(), np.linalg.inv(a), rtol=1e-12)
    assert np.allclose(t.det(t.tensor(a)).numpy(), np.linalg.det(a), rtol=1e-12)
    assert np.allclose(t.linalg.solve(t.tensor(a), t.tensor(b)).numpy(), np.linalg.solve(a, b))
    v = RNG.standard_normal(3)  # one vector for each matrix, and a batch of vectors
    assert np.allclose(t.linalg.solve(t.tensor(a), t.tensor(v)).numpy(),
                       np.linalg.solve(a, np.broadcast_to(v, (2, 3))[..., None])[..., 0])
    vs = RNG.standard_normal((2, 3))
    assert np.allclose(t.linalg.solve(t.tensor(a), t.tensor(vs)).numpy(),
                       np.linalg.solve(a, vs[..., None])[..., 0])


@pytest.mark.parametrize("name", ["inverse", "det", "solve"])
def test_gradients_match_central_differences(name):
    a, b = _matrix(3, 3), RNG.standard_normal((3, 2))
    weights = RNG.standard_normal((3, 3) if name == "inverse" else () if name == "det" else (3, 2))

    def forward(lib, a_value, b_value=b):
        if name == "inverse":
            out = np.linalg.inv(a_value) if lib is np else t.inverse(a_value)
        elif name == "det":
            out = np.linalg.det(a_value) if lib is np else t.det(a_value)
        else:
            out = np.linalg.solve(a_value, b_value) if lib is np else t.linalg.solve(a_value,
                                                                                     b_value)
        return (out * weights).sum()

    ta, tb = t.tensor(a, requires_grad=True), t.tensor(b, requires_grad=True)
    forward(t, ta, tb).backward()
    assert np.allclose(ta.grad.numpy(), _central(lambda x: forward(np, x), a), atol=1e-7)
    if name == "solve":
        assert np.allclose(tb.grad.numpy(), _central(lambda y: forward(np, a, y), b), atol=1e-7)


def test_gradient_of_det_and_inverse_against_sympy():
    """The numeric gradients equal sympy's derivative of the same expression, at a point."""
    symbols = sympy.Matrix(2, 2, sympy.symbols("a:4"))
    value = np.array([[2.0, 1.0], [0.5, 3.0]])
    at = dict(zip(symbols, value.reshape(-1), strict=True))
    weights = np.array([[1.0, -2.0], [0.5, 3.0]])
    x = t.tensor(value, requires_grad=True)
    t.det(x).backward()
    exact = [[float(symbols.det().diff(s).subs(at)) for s in row] for row in symbols.tolist()]
    assert np.allclose(x.grad.numpy(), exact, rtol=1e-14)
    x.grad = None
    (t.linalg.inv(x) * t.tensor(weights)).sum().backward()
    total = sum(w * e for w, e in zip(weights.reshape(-1), symbols.inv(), strict=True))
    exact = [[float(total.diff(s).subs(at)) for s in row] for row in symbols.tolist()]
    assert np.allclose(x.grad.numpy(), exact, rtol=1e-13)


def test_node_names_and_singular_det():
    x = t.tensor(_matrix(2, 2), requires_grad=True)
    assert t.inverse(x).grad_fn.name() == "LinalgInvExBackward0"
    assert t.linalg.det(x).grad_fn.name() == "LinalgDetBackward0"
    assert t.linalg.solve(x, t.ones(2, dtype=t.float64)).grad_fn.name() == \
        "LinalgSolveExBackward0"
    singular = t.tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
    t.det(singular).backward()  # PyTorch's gradient there: det(A) A^-T with det(A) = 0
    assert singular.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: t.inverse(t.tensor([[1.0, 2.0], [2.0, 4.0]])), t.linalg.LinAlgError,
     "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because "
     "the input matrix is singular."),
    (lambda: t.linalg.inv(t.stack([t.eye(2), t.zeros(2, 2)])), t.linalg.LinAlgError,
     "linalg.inv: (Batch element 1): The diagonal element 1 is zero"),
    (lambda: t.linalg.solve(t.zeros(2, 2), t.ones(2)), t.linalg.LinAlgError,
     "symgrad.linalg.solve: The solver failed because the input matrix is singular."),
    (lambda: t.det(t.ones(3)), RuntimeError,
     "linalg.det: The input tensor A must have at least 2 dimensions."),
    (lambda: t.inverse(t.ones(2, 2, dtype=t.long)), RuntimeError,
     "linalg.inv: Expected a floating point or complex tensor as input. Got Long"),
    (lambda: t.det(t.ones(2, 3)), RuntimeError,
     "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda: t.linalg.solve(t.eye(2), t.ones(3, 2)), RuntimeError,
     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x2)"),
    (lambda: t.linalg.solve(t.eye(2), t.ones(2, dtype=t.float64)), RuntimeError,
     "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B "
     "of type Double instead"),
    (lambda: t.linalg.solve(t.eye(2).expand(3, 2, 2), t.ones(5, 2, 1)), RuntimeError,
     "The size of tensor a (5) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda: t.linalg.inv(None), TypeError,
     "linalg_inv(): argument 'A' (position 1) must be Tensor, not NoneType"),
])
def test_errors_are_pytorchs(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value).startswith(message)
    assert issubclass(t.linalg.LinAlgError, RuntimeError)


def test_empty_matrices():
    assert t.det(t.ones(2, 0, 0)).tolist() == [1.0, 1.0]
    assert t.inverse(t.ones(0, 0)).shape == (0, 0)


WRONG_RULES = {  # each with a transpose left out
    "inverse": (lambda xp, g, ans, a: -xp.matmul(ans, xp.matmul(g, ans)),),
    "det": (lambda xp, g, ans, a: xp.expand_dims(g * ans, (-2, -1)) * xp.inv_unless_singular(a),),
    "solve": (lambda xp, g, ans, a, b: -xp.matmul(xp.solve(a, g), xp.swapaxes(ans, -1, -2)),
              ops.linalg.solve.vjp[1]),
}


@pytest.mark.parametrize("name", sorted(WRONG_RULES))
def test_a_wrong_rule_is_named_by_the_symbolic_check(monkeypatch, name):
    op = getattr(ops.linalg, name)
    monkeypatch.setattr(op, "vjp", WRONG_RULES[name])
    x = t.tensor([[2.0, 1.0], [0.5, 3.0]], dtype=t.float64, requires_grad=True)
    weights = t.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=t.float64)
    out = {"inverse": lambda: (t.inverse(x) * weights).sum(), "det": lambda: t.det(x),
           "solve": lambda: (t.linalg.solve(x, weights) * weights).sum()}[name]()
    with pytest.raises(t.symbolic.GradientMismatch,
                       match=f"first node whose VJP disagrees with sympy: {op.node_name} "):
        t.symbolic.check(out)
