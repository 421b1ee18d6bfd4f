"""``loss.backward()`` without arguments takes a short way (engine.backward_root): a pass built
without what it does not use, which leaves the grad mode alone until user code runs and takes
the leaves' gradients straight from its own table. Each test here exercises a behaviour that
way could skip; the expected values are PyTorch's (checked with torch 2.13 when written)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import symgrad as t
from symgrad.autograd import engine


def test_hooks_and_custom_backward_run_without_recording_and_the_mode_comes_back() -> None:
    x = t.ones(2, requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(("hook", t.is_grad_enabled())))

    class Double(t.autograd.Function):
        @staticmethod
        def forward(ctx, a):  # noqa: ANN001, ANN205
            return a * 2

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            seen.append(("function", t.is_grad_enabled()))
            out = g * 2
            seen.append(("recorded", out.grad_fn is not None))
            return out

    Double.apply(y).sum().backward()
    assert seen == [("function", False), ("recorded", False), ("hook", False)]
    assert t.is_grad_enabled()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])


def test_the_mode_comes_back_after_a_hook_raises_and_nothing_is_written() -> None:
    x = t.ones(2, requires_grad=True)
    y = x * 2

    def fail(g: t.Tensor) -> None:
        raise ValueError("no")

    y.register_hook(fail)
    with pytest.raises(ValueError, match="no"):
        (y * 3).sum().backward()
    assert t.is_grad_enabled()
    assert x.grad is None


def test_backward_inside_no_grad_keeps_the_mode_off() -> None:
    x = t.ones(2, requires_grad=True)
    loss = (x * 3).sum()
    with t.no_grad():
        loss.backward()
        assert not t.is_grad_enabled()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_a_leaf_hook_registered_during_backward_is_called() -> None:
    x = t.ones(2, requires_grad=True)
    seen = []
    z = (x * 2) * 3
    z.register_hook(lambda g: x.register_hook(lambda gx: seen.append(gx.tolist())) and None)
    z.sum().backward()
    assert seen == [[6.0, 6.0]]
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])


def test_retain_grad_and_a_root_hook() -> None:
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.retain_grad()
    loss = y.sum()
    loss.register_hook(lambda g: g * 10)
    loss.backward()
    np.testing.assert_array_equal(y.grad.numpy(), [10.0, 10.0])
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 40.0])


def test_accumulation_is_in_place_and_counts_a_version() -> None:
    x = t.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    grad, version = x.grad, x.grad._version
    (x * 3).sum().backward()
    assert x.grad is grad
    assert x.grad._version == version + 1
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])


def test_a_gradient_two_leaves_share_or_a_broadcast_one_is_copied() -> None:
    x, y = t.ones(2, requires_grad=True), t.ones(2, requires_grad=True)
    (x + y).sum().backward()  # (one array reaches both leaves, a read-only broadcast view)
    x.grad.add_(1)
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])
    a, b = t.ones(2, requires_grad=True), t.ones(2, requires_grad=True)
    (a * 2 + b * 1).sum().backward()  # (fresh arrays, each a leaf's own)
    a.grad.add_(1)
    b.grad.add_(1)
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(b.grad.numpy(), [2.0, 2.0])


def test_a_leaf_gets_its_own_dtype_and_a_scalar_leaf_its_seed() -> None:
    x = t.ones(2, requires_grad=True)
    (x.double() * 2).sum().backward()
    assert x.grad.dtype == t.float32
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    s = t.tensor(2.0, requires_grad=True)
    s.backward()
    assert s.grad.item() == 1.0
    s.grad.add_(1)  # (a fresh, writeable seed)
    assert s.grad.item() == 2.0


@pytest.mark.parametrize("call", [lambda r: r.backward(), lambda r: t.autograd.backward(r)])
def test_errors(call) -> None:  # noqa: ANN001
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad"):
        call(t.ones(()))
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar"):
        call(t.ones(2, requires_grad=True) * 2)
    x = t.ones(2, requires_grad=True)
    loss = (x * x).sum()
    call(loss)
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        call(loss)
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_anomaly_mode_is_seen() -> None:
    x = t.tensor([0.0], requires_grad=True)
    loss = (x.sqrt() * 0).sum()  # (0 * inf: nan)
    with pytest.warns(UserWarning) as record, t.autograd.detect_anomaly(), \
            pytest.raises(RuntimeError, match="returned nan values"):
        loss.backward()
    assert any("Error detected in" in str(w.message) for w in record)
    assert x.grad is None


def test_the_mode_of_another_thread_is_not_touched() -> None:
    # a plain pass switches nothing; one running a hook switches only its own thread's mode
    x = t.ones(2, requires_grad=True)
    y = x * 2
    started, release, seen = threading.Event(), threading.Event(), []

    def hook(g: t.Tensor) -> None:
        started.set()
        release.wait(10)

    y.register_hook(hook)
    worker = threading.Thread(target=lambda: y.sum().backward())
    worker.start()
    started.wait(10)
    seen.append(t.is_grad_enabled())
    release.set()
    worker.join()
    assert seen == [True]
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_the_short_way_is_taken() -> None:
    # (the tests above exercise the short way only while backward() goes through it)
    calls = []
    original = engine.backward_root
    try:
        engine.backward_root = lambda root: calls.append(root) or original(root)
        loss = (t.ones(2, requires_grad=True) * 2).sum()
        loss.backward()
    finally:
        engine.backward_root = original
    assert calls == [loss]
