"""The engine and the autograd API: backward, autograd.grad, hooks, grad mode, failures."""

import threading
import warnings

import numpy as np
import pytest

import symgrad as t


def test_backward_without_saved_values_may_run_twice_like_pytorch():
    a = t.ones(3, requires_grad=True)
    b = t.ones(3, requires_grad=True)
    s = (a + b).sum()
    s.backward()
    s.backward()  # AddBackward0 and SumBackward0 keep no values that backward frees
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0, 2.0])
    s = (a * 2).sum()
    s.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        s.backward()


def test_explicit_gradient_shape_is_checked_before_anything_changes():
    a = t.ones(3, requires_grad=True)
    c = a * 2
    for wrong in (t.ones(4), t.ones(1, 3), t.ones(1)):
        with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape "
                                               r"of symgrad.Size\(\[.*\]\) and output\[0\] has a "
                                               r"shape of symgrad.Size\(\[3\]\)"):
            c.backward(wrong)
    with pytest.raises(TypeError, match="gradients can be either Tensors or None, but got float"):
        c.backward([1.0, 1.0, 1.0])
    assert a.grad is None
    c.backward(t.tensor([1, 2, 3]))  # an integer gradient is converted, as in PyTorch
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0, 6.0])
    assert a.grad.dtype is t.float32


def test_matrix_backward_with_gradient_equals_vjp_of_matmul():
    rng = np.random.default_rng(0)
    w = t.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    x = t.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    v = rng.standard_normal((3, 2)).astype(np.float32)
    (w @ x).backward(t.tensor(v))
    np.testing.assert_allclose(w.grad.numpy(), v @ x.detach().numpy().T, rtol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), w.detach().numpy().T @ v, rtol=1e-5)


def test_broadcast_gradients_are_reduced_to_input_shapes():
    a = t.ones(2, 1, 3, requires_grad=True)
    b = t.ones(4, 1, requires_grad=True)
    s = t.tensor(2.0, requires_grad=True)
    (a * b * s).sum().backward()
    assert a.grad.shape == (2, 1, 3) and b.grad.shape == (4, 1) and s.grad.shape == ()
    np.testing.assert_array_equal(a.grad.numpy(), np.full((2, 1, 3), 8.0))
    np.testing.assert_array_equal(b.grad.numpy(), np.full((4, 1), 12.0))
    assert s.grad.item() == 24.0


def test_shared_subexpressions_and_repeated_use_accumulate():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    z = y + y * x + x  # x used directly and through y, y used twice
    z.sum().backward()
    xv = np.array([1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * xv + 3 * xv**2 + 1)


def test_repeated_indices_accumulate():
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[t.tensor([0, 0, 2, 0])].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 0.0, 1.0])
    m = t.ones(2, 3, requires_grad=True)
    m[m > 0.5][::2].sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), [[1, 0, 1], [0, 1, 0]])


def test_chain_of_100000_ops_is_iterative():
    x = t.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.item() == 1.0
    del y  # freeing the long chain must not overflow the stack either


def test_failed_backward_leaves_every_grad_unchanged():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor([3.0, 4.0], requires_grad=True)
    (a * b).sum().backward()
    before = a.grad.numpy().copy(), b.grad.numpy().copy()
    # a graph where a's branch succeeds but b's saved value was modified in place
    c = b.exp()
    d = a * 2 + c
    c.detach().add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        d.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), before[0])
    np.testing.assert_array_equal(b.grad.numpy(), before[1])

    def bad_hook(g):
        raise ValueError("hook failed")

    e = a * 3
    e.register_hook(bad_hook)
    with pytest.raises(ValueError, match="hook failed"):
        (e + b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), before[0])
    np.testing.assert_array_equal(b.grad.numpy(), before[1])


def test_autograd_grad_returns_without_accumulating():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = t.tensor([3.0, 4.0], requires_grad=True)
    z = (x * y).sum()
    gx, gy = t.autograd.grad(z, [x, y])
    np.testing.assert_array_equal(gx.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(gy.numpy(), [1.0, 2.0])
    assert x.grad is None and y.grad is None
    assert gx.requires_grad is False


def test_autograd_grad_errors_and_allow_unused():
    x = t.ones(2, requires_grad=True)
    unused = t.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^The differentiated Tensor at index 1 appears to not "
                                           "have been used in the graph"):
        t.autograd.grad((x * 2).sum(), [x, unused])
    g = t.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert g[1] is None
    g = t.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
    np.testing.assert_array_equal(g[1].numpy(), [0.0, 0.0])
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require "
                                           "grad"):
        t.autograd.grad((x * 2).sum(), [t.ones(2)])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        t.autograd.grad(x * 2, x)


def test_autograd_grad_with_respect_to_intermediate():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    y = (h * h).sum()
    (gh,) = t.autograd.grad(y, h)
    np.testing.assert_array_equal(gh.numpy(), 2 * np.array([3.0, 6.0]))


def test_autograd_backward_function_and_inputs_argument():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = t.tensor([3.0, 4.0], requires_grad=True)
    t.autograd.backward([(x * y).sum(), (x * x).sum()], [t.tensor(1.0), t.tensor(2.0)])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0 + 4.0, 4.0 + 8.0])
    x.grad = None
    y.grad = None
    (x * y).sum().backward(inputs=[y])
    assert x.grad is None
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 2.0])
    with pytest.raises(RuntimeError, match="`inputs` argument to `backward\\(\\)` cannot be empty"):
        (x * y).sum().backward(inputs=[])
    h = x * 2
    (h * h).sum().backward(inputs=[h])
    np.testing.assert_array_equal(h.grad.numpy(), [4.0, 8.0])


def test_backward_on_a_leaf_accumulates_into_itself():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    x.backward(t.tensor([5.0, 6.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 6.0])


def test_retain_grad_and_nonleaf_grad_warning():
    a = t.ones(3, requires_grad=True)
    c = a * 2
    with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf"):
        assert c.grad is None
    c.retain_grad()
    assert c.retains_grad
    (c * c).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(c.grad.numpy(), [4.0, 4.0, 4.0])
    np.testing.assert_array_equal(a.grad.numpy(), [8.0, 8.0, 8.0])
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                           "requires_grad=False"):
        t.ones(2).retain_grad()


def test_hooks_on_leaves_and_non_leaves_and_removal():
    a = t.ones(3, requires_grad=True)
    seen = []
    handle = a.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 10)
    b = a * 2
    b.register_hook(lambda g: g + 1)
    b.sum().backward()
    np.testing.assert_array_equal(seen[0], [4.0, 4.0, 4.0])  # (1 + 1) * 2 reached a
    np.testing.assert_array_equal(a.grad.numpy(), [40.0, 40.0, 40.0])
    handle.remove()
    a.grad = None
    (a * 2).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0, 2.0])
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't "
                                           "require gradient"):
        t.ones(3).register_hook(lambda g: g)


def test_grad_assignment_is_checked():
    a = t.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient of size '\\[4\\]' to a "
                                           "tensor of size '\\[3\\]'"):
        a.grad = t.ones(4)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype"):
        a.grad = t.ones(3, dtype=t.float64)
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None"):
        a.grad = [1, 2, 3]
    a.grad = t.full((3,), 5.0)
    (a * 1).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [6.0, 6.0, 6.0])
    a.grad = None
    assert a.grad is None


def test_accumulation_is_in_place_on_the_existing_grad_tensor():
    a = t.ones(2, requires_grad=True)
    (a * 3).sum().backward()
    first = a.grad
    (a * 3).sum().backward()
    assert a.grad is first  # PyTorch adds into the existing .grad when not creating a graph
    np.testing.assert_array_equal(first.numpy(), [6.0, 6.0])


def test_grads_of_distinct_leaves_do_not_alias():
    a = t.ones(2, requires_grad=True)
    b = t.ones(2, requires_grad=True)
    (a + b).sum().backward()
    a.grad.add_(100)
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])


def test_grad_dtype_follows_the_leaf_under_promotion():
    a = t.ones(2, requires_grad=True)
    b = t.ones(2, dtype=t.float64, requires_grad=True)
    y = a * b
    assert y.dtype is t.float64
    y.sum().backward()
    assert a.grad.dtype is t.float32 and b.grad.dtype is t.float64


def test_no_grad_enable_grad_set_grad_enabled():
    x = t.ones(2, requires_grad=True)
    with t.no_grad():
        y = x * 2
        assert not t.is_grad_enabled()
        with t.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    assert z.requires_grad

    @t.no_grad()
    def doubled(v):
        return v * 2

    assert not doubled(x).requires_grad
    assert t.is_grad_enabled()
    with t.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert t.is_grad_enabled()
    t.set_grad_enabled(False)
    assert not t.is_grad_enabled()
    t.set_grad_enabled(True)

    @t.set_grad_enabled(False)
    def off(v):
        return v * 2

    assert t.is_grad_enabled() and not off(x).requires_grad


def test_grad_mode_is_thread_local():
    results = {}

    def worker():
        results["other"] = t.is_grad_enabled()

    with t.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert results["other"] is True


def test_recording_follows_each_threads_grad_mode():
    # the fast paths read the thread-local mode only while some thread turned it off: each
    # switch, in either thread, must be seen by the recording of every op spelling
    x = t.ones(3, requires_grad=True)
    spellings = (lambda v: v * 2.0, lambda v: v + v, lambda v: v.exp(), lambda v: v.sum(),
                 lambda v: v @ t.ones(3), lambda v: v.reshape(3, 1))
    inside, released = threading.Event(), threading.Event()
    seen = {}

    def other(key):
        seen[key] = [f(x).requires_grad for f in spellings]

    def holder():
        with t.no_grad():
            seen["holder, off"] = [f(x).requires_grad for f in spellings]
            inside.set()
            released.wait(5)
        seen["holder, on again"] = [f(x).requires_grad for f in spellings]

    thread = threading.Thread(target=holder)
    thread.start()
    inside.wait(5)
    other("main, while the holder is off")
    with t.set_grad_enabled(False):
        other("main, off")
        with t.enable_grad():
            other("main, enabled inside")
    released.set()
    thread.join()
    other("main, after")
    assert seen == {"holder, off": [False] * 6, "holder, on again": [True] * 6,
                    "main, while the holder is off": [True] * 6, "main, off": [False] * 6,
                    "main, enabled inside": [True] * 6, "main, after": [True] * 6}
    assert t.is_grad_enabled()
    with t.inference_mode():
        assert not (x * 2.0).requires_grad and not t.is_grad_enabled()
    assert (x * 2.0).requires_grad


def test_next_functions_and_accumulate_grad():
    a = t.ones(2, requires_grad=True)
    c = (a * 2).sum()
    (mul_fn, _), = c.grad_fn.next_functions
    assert mul_fn.name() == "MulBackward0"
    (acc, _), (none, _) = mul_fn.next_functions
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is a
    assert none is None


def test_leaf_requires_grad_rules():
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require "
                                           "gradients"):
        t.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        t.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf "
                                           "variables"):
        (t.ones(2, requires_grad=True) * 2).requires_grad = False
    x = t.ones(2)
    x.requires_grad = True
    assert repr(x) == "tensor([1., 1.], requires_grad=True)"


def test_detach_and_detach_():
    a = t.ones(3, requires_grad=True)
    c = a * 2
    d = c.detach()
    assert not d.requires_grad and d.is_leaf
    d[0] = 7.0  # shares storage
    assert c[0].item() == 7.0
    c.detach_()
    assert c.grad_fn is None and not c.requires_grad and c.is_leaf


def test_create_graph_warns_once_on_backward(monkeypatch):
    from symgrad.autograd import engine

    monkeypatch.setattr(engine, "_warned_create_graph", False)
    x = t.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="Using backward\\(\\) with create_graph=True"):
        (x * x).sum().backward(create_graph=True)
    y = t.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch warns once per process
        (y * y).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    assert x.grad.grad_fn is not None


def test_calling_a_grad_fn_applies_its_vjp():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor([3.0, 4.0], requires_grad=True)
    ga, gb = (a * b).grad_fn(t.tensor([1.0, 10.0]))
    np.testing.assert_array_equal(ga.detach().numpy(), [3.0, 40.0])
    np.testing.assert_array_equal(gb.detach().numpy(), [1.0, 20.0])
    assert ga.requires_grad  # recorded with grad mode on, as in PyTorch: b requires grad
    assert (a * 2).grad_fn(t.ones(2))[1] is None
    m = t.ones(2, 3, requires_grad=True)
    node = (m + t.ones(3, requires_grad=True)).grad_fn
    with t.no_grad():
        (gm, gv) = node(t.ones(2, 3))
    assert not gm.requires_grad
    assert gm.shape == (2, 3) and gv.tolist() == [2.0, 2.0, 2.0]  # reduced to the input shape
    assert a.grad is None  # calling a node accumulates nothing
    # a node with one input returns a tensor, so calls chain as in PyTorch tutorials
    y = a * 2
    z = y.tanh()
    g1 = z.grad_fn(t.ones(2))
    assert isinstance(g1, t.Tensor)
    g0, _ = y.grad_fn(g1)
    np.testing.assert_allclose(g0.detach().numpy(), 2 * (1 - np.tanh([2.0, 4.0]) ** 2),
                               atol=1e-6)  # float32: 1 - tanh² loses digits near 1
    w = t.where(a > 1, a, t.zeros(2))
    assert len(w.grad_fn.next_functions) == 2  # the condition is not a backward input


def test_nodes_show_their_saved_values_as_pytorch():
    """``grad_fn._saved_<name>``, read off torch 2.13: the inputs as the very tensors passed
    (None for one saved only when another input requires grad), the output as a new tensor
    with the node as its grad_fn, a number param as the number; names a node does not save
    are missing; a freed node raises PyTorch's error."""
    x = t.tensor([1.0, 2.0], requires_grad=True)
    w = t.tensor([3.0, 4.0])
    product = (x * w).grad_fn
    assert product._saved_other is w and product._saved_self is None
    both = (x * x).grad_fn
    assert both._saved_self is x and both._saved_other is x
    assert (x * 2).grad_fn._saved_other.tolist() == 2
    assert (x.sin().grad_fn._saved_self is x) and (x ** 2).grad_fn._saved_exponent == 2
    power = (x ** w).grad_fn
    assert power._saved_self is x and power._saved_exponent is w
    assert power._saved_result.tolist() == [1.0, 16.0]
    mm = (x[None] @ w[:, None]).grad_fn
    assert mm._saved_self is None and mm._saved_mat2.tolist() == [[3.0], [4.0]]
    y = x.exp()
    saved = y.grad_fn._saved_result
    assert saved is not y and saved.grad_fn is y.grad_fn and t.equal(saved, y)
    for missing in ("_saved_self", "_saved_other", "_saved_nothing"):
        with pytest.raises(AttributeError, match=f"'ExpBackward0' object has no attribute "
                                                 f"'{missing}'"):
            getattr(y.grad_fn, missing)
    assert not hasattr((x + w).grad_fn, "_saved_self")
    y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second "
                                           "time"):
        _ = y.grad_fn._saved_result
