"""Node.fits: the fast paths' promise that each input's gradient has the input's shape and
dtype, so that the engine neither sums nor casts it. Set wrongly, these gradients break."""
import numpy as np
import pytest

import symgrad as t


def test_same_shape_operands_fit_and_broadcast_ones_do_not():
    a = t.ones(3, requires_grad=True)
    assert (a * t.ones(3)).grad_fn.fits
    assert (a * 2.0).grad_fn.fits
    assert a.exp().grad_fn.fits
    assert not (a * t.ones(2, 3)).grad_fn.fits
    assert not (t.ones(2, 1, requires_grad=True) * a).grad_fn.fits
    assert not (a * t.ones(3, dtype=t.float64)).grad_fn.fits  # promoting: the general path
    assert not a.sum().grad_fn.fits


@pytest.mark.parametrize("shapes", [((2, 1), (3,)), ((3,), (2, 3)), ((1, 3), (2, 1))])
def test_a_broadcast_inputs_gradient_is_summed_to_its_shape(shapes):
    rng = np.random.default_rng(0)
    va, vb = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    a = t.tensor(va, requires_grad=True)
    b = t.tensor(vb, requires_grad=True)
    ((a * b).exp() * 1.5).sum().backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    assert a.grad.dtype == t.float32 and b.grad.dtype == t.float32
    # finite differences in float64, on the summed shapes
    eps = 1e-6

    def f(x, y):
        return float(np.sum(np.exp(x * y) * 1.5))

    xa, xb = va.astype(np.float64), vb.astype(np.float64)
    for k in range(xa.size):
        d = np.zeros_like(xa)
        d.reshape(-1)[k] = eps
        fd = (f(xa + d, xb) - f(xa - d, xb)) / (2 * eps)
        assert a.grad.numpy().reshape(-1)[k] == pytest.approx(fd, rel=1e-3)
    for k in range(xb.size):
        d = np.zeros_like(xb)
        d.reshape(-1)[k] = eps
        fd = (f(xa, xb + d) - f(xa, xb - d)) / (2 * eps)
        assert b.grad.numpy().reshape(-1)[k] == pytest.approx(fd, rel=1e-3)


def test_a_float64_gradient_reaching_float32_nodes_is_cast_to_float32():
    x = t.tensor([0.5, 1.5, -2.0], requires_grad=True)  # float32
    y = x * x  # fits: float32 in, float32 out
    assert y.grad_fn.fits
    w = t.tensor([1e-3, 3.0, 7.0], dtype=t.float64)
    z = (y.double() * w).exp().sum()  # float64 downstream
    z.backward()
    assert x.grad.dtype == t.float32
    xv = np.array([0.5, 1.5, -2.0], dtype=np.float32).astype(np.float64)
    g64 = np.exp(xv * xv * w.numpy()) * w.numpy()  # dz/dy in float64
    expected = (g64.astype(np.float32) * np.float32(2) * xv.astype(np.float32))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    # a promoting consumer (float32 times float64, the general path): its gradient for the
    # float32 input is cast there, before the float32 node upstream runs its rule
    # (its rules read the float32 input in float64: the cast is at its end)
    rng = np.random.default_rng(2)
    v32 = rng.standard_normal(64).astype(np.float32)
    w64 = rng.standard_normal(64)
    u = t.tensor(v32, requires_grad=True)
    e = u.exp()
    assert e.grad_fn.fits
    q = e * t.tensor(w64)
    assert q.dtype == t.float64 and not q.grad_fn.fits
    q.sum().backward()
    assert u.grad.dtype == t.float32
    # (as PyTorch's engine does: torch gives exactly w64.astype(float32) * exp(u) here, with
    # its own exp; the float32 node never sees float64)
    ans1 = np.exp(v32)
    np.testing.assert_array_equal(u.grad.numpy(), w64.astype(np.float32) * ans1)
    # two float32 nodes after the promoting one: both work in float32
    u.grad = None
    (u.exp().sin() * t.tensor(w64)).sum().backward()
    g1 = w64.astype(np.float32) * np.cos(ans1)
    np.testing.assert_array_equal(u.grad.numpy(), g1 * ans1)
    # the seed: a float64 gradient given for a float32 output
    x.grad = None
    v = (x * x).exp()
    v.backward(t.tensor([1.0, 2.0, 3.0], dtype=t.float64))
    assert x.grad.dtype == t.float32


def test_the_engine_gives_the_same_bits_with_and_without_the_flag():
    rng = np.random.default_rng(1)
    for dtype in (t.float32, t.float64):
        va, vb = rng.standard_normal(5), rng.standard_normal(5)
        grads = []
        for fits in (True, False):
            a = t.tensor(va, dtype=dtype, requires_grad=True)
            b = t.tensor(vb, dtype=dtype, requires_grad=True)
            out = ((a * b + a / (b * b + 1.0)).tanh() - b.sigmoid()).exp()
            node, seen = out.grad_fn, []
            stack = [node]
            while stack:
                n = stack.pop()
                if n is None or not hasattr(n, "fits") or n in seen:
                    continue
                seen.append(n)
                if not fits:
                    n.fits = False
                stack.extend(e for e, _ in n.next_functions)
            assert any(n.fits for n in seen) == fits
            out.sum().backward()
            grads.append((a.grad.numpy(), b.grad.numpy()))
        for got, expected in zip(*grads, strict=True):
            np.testing.assert_array_equal(got, expected, strict=True)
