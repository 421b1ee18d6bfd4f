"""symbolic.compile: the compiled value and gradients against the eager numeric forward and
backward, against central finite differences of the compiled value, batching, dtypes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t
from symgrad import symbolic


def _leaf(rng: np.random.Generator, shape: tuple[int, ...], low: float = -1.0,
          high: float = 1.0) -> t.Tensor:
    return t.tensor(rng.uniform(low, high, shape), dtype=t.float64, requires_grad=True)


def _programs(rng: np.random.Generator):
    """(name, build(*leaves) -> output, leaf shapes, gradient v or None)."""
    c = t.tensor(rng.uniform(-1, 1, (3,)), dtype=t.float64)
    x_layer = t.tensor(rng.uniform(-1, 1, (4,)), dtype=t.float64)
    return [
        ("elementwise", lambda a, b: ((a * b).sin() + (a / (b * b + 1)).exp()).sum(),
         [(3,), (3,)], None),
        ("layer", lambda W, b: (W @ x_layer + b).tanh().sum(), [(3, 4), (3,)], None),
        ("softmax", lambda z: (z.softmax(0) * c).sum(), [(3,)], None),
        ("logsumexp", lambda z: z.logsumexp(0), [(3,)], None),
        ("relu_where", lambda z: (z.relu() * z + t.where(c > 0, z.sin(), z * z)).sum(),
         [(3,)], None),
        ("broadcast", lambda a, s: (a * s + s.exp()).sum(), [(2, 3), (1, 3)], None),
        ("vector_output", lambda a, b: a.tanh() * b + b,
         [(3,), (3,)], [1.0, -0.5, 2.0]),
    ]


def _eager(build, values, gradient):
    leaves = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
    out = build(*leaves)
    v = None if gradient is None else t.tensor(gradient, dtype=t.float64)
    grads = t.autograd.grad(out, leaves, grad_outputs=v)
    return out.detach().numpy(), [g.numpy() for g in grads]


@pytest.mark.parametrize("index", range(7))
def test_compiled_matches_eager_forward_backward_on_random_inputs(index):
    rng = np.random.default_rng(index)
    name, build, shapes, gradient = _programs(rng)[index]
    leaves = [_leaf(rng, s) for s in shapes]
    f = symbolic.compile(build(*leaves), leaves, gradient=gradient)
    assert len(f.inputs) == len(shapes)
    for _ in range(3):  # fresh points: nothing of the recording point is baked in
        values = [rng.uniform(-1, 1, s) for s in shapes]
        value, grads = f(*values)
        expected, expected_grads = _eager(build, values, gradient)
        assert value.shape == expected.shape
        np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12, err_msg=name)
        assert len(grads) == len(expected_grads)
        for g, e in zip(grads, expected_grads, strict=True):
            assert g.shape == e.shape and g.dtype == np.float64
            np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("index", [0, 1, 3, 6])
def test_compiled_gradients_match_finite_differences_of_compiled_value(index):
    rng = np.random.default_rng(10 + index)
    _, build, shapes, gradient = _programs(rng)[index]
    leaves = [_leaf(rng, s) for s in shapes]
    f = symbolic.compile(build(*leaves), leaves, gradient=gradient)
    values = [rng.uniform(-1, 1, s) for s in shapes]
    _, grads = f(*values)
    v = np.ones(()) if gradient is None else np.asarray(gradient)
    h = 1e-6
    for k, s in enumerate(shapes):
        for idx in np.ndindex(*s):
            up = [a.copy() for a in values]
            down = [a.copy() for a in values]
            up[k][idx] += h
            down[k][idx] -= h
            fd = np.sum(v * (f(*up)[0] - f(*down)[0])) / (2 * h)
            assert grads[k][idx] == pytest.approx(fd, rel=1e-6, abs=1e-8)


def test_batched_call_equals_a_loop_and_batches_broadcast():
    rng = np.random.default_rng(3)
    W, b = _leaf(rng, (3, 4)), _leaf(rng, (3,))
    x = t.tensor(rng.uniform(-1, 1, 4), dtype=t.float64)
    f = symbolic.compile((W @ x + b).tanh().sum(), [W, b])
    Ws = rng.uniform(-1, 1, (5, 2, 3, 4))
    bs = rng.uniform(-1, 1, (2, 3))  # batch (2,) broadcasts against (5, 2)
    value, (gW, gb) = f(Ws, bs)
    assert value.shape == (5, 2) and gW.shape == (5, 2, 3, 4) and gb.shape == (5, 2, 3)
    for i in range(5):
        for j in range(2):
            v1, (gW1, gb1) = f(Ws[i, j], bs[j])
            assert value[i, j] == pytest.approx(float(v1), rel=1e-14)
            np.testing.assert_allclose(gW[i, j], gW1, rtol=1e-14)
            np.testing.assert_allclose(gb[i, j], gb1, rtol=1e-14)


def test_scalar_input_batch_and_tensor_and_number_arguments():
    a = t.tensor(0.5, dtype=t.float64, requires_grad=True)
    f = symbolic.compile((a * a).sin(), a)
    value, (g,) = f(0.5)
    assert value.shape == () and g.shape == ()
    assert float(value) == pytest.approx(np.sin(0.25)) and float(g) == pytest.approx(
        np.cos(0.25))
    points = np.linspace(-1, 1, 7)
    value, (g,) = f(points)
    np.testing.assert_allclose(value, np.sin(points ** 2), rtol=1e-14)
    np.testing.assert_allclose(g, 2 * points * np.cos(points ** 2), rtol=1e-14)
    assert float(f(a)[0]) == float(f(0.5)[0])  # a Tensor is read by value


def test_float32_in_float32_out_and_mixed_is_float64():
    x = t.tensor([0.3, -0.2], requires_grad=True)  # float32, PyTorch's default
    y = (x.exp() * 3.0).sum()
    y.backward()
    f = symbolic.compile(y, x)
    value, (g,) = f(np.array([0.3, -0.2], dtype=np.float32))
    assert value.dtype == np.float32 and g.dtype == np.float32
    np.testing.assert_allclose(g, x.grad.numpy(), rtol=1e-6)
    value, (g,) = f(np.array([1, 0]))  # integers are read as float64
    assert value.dtype == np.float64
    assert float(value) == pytest.approx(3 * (np.e + 1))


def test_frozen_leaves_keep_their_value_and_source_is_readable():
    a = t.tensor(2.0, dtype=t.float64, requires_grad=True)
    w = t.tensor([1.0, 3.0], dtype=t.float64, requires_grad=True)
    y = (a.exp() * w).sum() + a.exp()
    f = symbolic.compile(y, w)  # a is not an input: exp(2) is baked in
    assert f.inputs == ("w",)
    value, (gw,) = f(np.array([0.0, 1.0]))
    assert float(value) == pytest.approx(2 * np.exp(2.0))
    np.testing.assert_allclose(gw, [np.exp(2.0)] * 2)
    assert "def " in f.source and "a0_0 = a0[0]" in f.source and "# a0: 'w'" in f.source
    assert repr(f) == "CompiledGradient(w: (2,) -> ())"


def test_shared_subexpressions_are_computed_once():
    x = t.tensor([0.1, 0.2], dtype=t.float64, requires_grad=True)
    h = x
    for _ in range(25):  # expanded tree: 2**25 leaves; the code stays linear
        h = (h * h).sin() + h
    f = symbolic.compile(h.sum(), x)
    assert len(f.source) < 200 * 25 * 2
    value, (g,) = f(np.array([0.1, 0.2]))
    expected, (e,) = _eager(lambda z: _chain(z, 25).sum(), [np.array([0.1, 0.2])], None)
    np.testing.assert_allclose(value, expected, rtol=1e-12)
    np.testing.assert_allclose(g, e, rtol=1e-10)


def _chain(z: t.Tensor, layers: int) -> t.Tensor:
    for _ in range(layers):
        z = (z * z).sin() + z
    return z


def test_errors():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    W = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        symbolic.compile(x * 2, x)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        symbolic.compile(x * 2, x, gradient=[1.0, 2.0, 3.0])
    f = symbolic.compile((W @ x).sum(), [W, x])
    with pytest.raises(TypeError, match=r"takes 2 arrays \(W, x\) but 1 were given"):
        f(np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"input x must have shape \(2,\)"):
        f(np.ones((2, 2)), np.ones(3))
    with pytest.raises(ValueError, match=r"input W must have shape \(2, 2\)"):
        f(np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match="batch dimensions of the inputs do not broadcast"):
        f(np.ones((3, 2, 2)), np.ones((4, 2)))
