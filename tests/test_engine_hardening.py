"""The engine refuses gradients of the wrong shape, accumulates atomically across threads and
frees saved values after a backward that does not retain the graph (as PyTorch does)."""

import gc
import threading
import tracemalloc
import weakref

import numpy as np
import pytest

import symgrad as t
from symgrad.dispatch import apply_op
from symgrad.ops import Op

# ----------------------------------------------------------------- gradient shapes (item 7)


def _op_with_rule(rule, name="BadBackward0"):
    return Op("bad_for_test", name, forward=lambda xp, a: a * 2, vjp=(rule,))


def test_a_rule_returning_a_wrong_shape_gets_pytorchs_message_and_changes_nothing():
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    bad = _op_with_rule(lambda xp, g, ans, a: g[:2])
    y = apply_op(bad, x)
    with pytest.raises(RuntimeError, match=r"^Function BadBackward0 returned an invalid gradient "
                                           r"at index 0 - got \[2\] but expected shape "
                                           r"compatible with \[3\]$"):
        y.sum().backward()
    assert x.grad is None


@pytest.mark.parametrize("create_graph", [False, True])
def test_the_shape_check_also_covers_create_graph_and_later_nodes(create_graph):
    x = t.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    bad = _op_with_rule(lambda xp, g, ans, a: xp.reshape(g, (3, 1)), "SwappedBackward0")
    y = apply_op(bad, x.exp())  # the bad node sits behind a good one
    with pytest.raises(RuntimeError, match=r"Function SwappedBackward0 returned an invalid "
                                           r"gradient at index 0 - got \[3, 1\]"):
        y.sum().backward(create_graph=create_graph)
    assert x.grad is None


def test_a_broadcast_shaped_gradient_is_still_summed_back():
    x = t.tensor([[1.0], [2.0]], requires_grad=True)  # (2, 1)
    wide = _op_with_rule(lambda xp, g, ans, a: xp.broadcast_to(g, (3, 2, 4)))
    y = apply_op(wide, x)
    y.sum().backward()
    assert x.grad.tolist() == [[12.0], [12.0]]  # 3 copies x 4 columns


# ----------------------------------------------------------------- atomic accumulation (item 10)


def test_concurrent_backward_passes_lose_no_update():
    n, threads, passes = 100_000, 4, 100
    x = t.zeros(n, dtype=t.float64, requires_grad=True)
    start = threading.Barrier(threads)
    errors = []

    def work(k):
        try:
            start.wait()
            for _ in range(passes):
                (x * float(k)).sum().backward()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    pool = [threading.Thread(target=work, args=(k + 1,)) for k in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert not errors
    expected = passes * sum(range(1, threads + 1))  # every pass adds k to every element
    assert np.array_equal(x.grad.numpy(), np.full(n, float(expected)))


# ----------------------------------------------------------------- freeing saved values (item 11)


def _step(w, data):
    h = (data @ w).tanh()
    return (h * h).mean()


def test_kept_losses_keep_no_saved_values():
    rng = np.random.default_rng(0)
    w = t.tensor(rng.standard_normal((32, 64)), dtype=t.float32, requires_grad=True)
    data = t.tensor(rng.standard_normal((64, 32)), dtype=t.float32)
    losses = [_step(w, data)]
    losses[0].backward()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(50):
            w.grad = None
            loss = _step(w, data)
            loss.backward()
            losses.append(loss)
        gc.collect()
        kept = (tracemalloc.get_traced_memory()[0] - before) / 50
    finally:
        tracemalloc.stop()
    activation = 64 * 64 * 4  # one (64, 64) float32 intermediate: 16 KiB
    assert kept < activation / 4, f"{kept:.0f} bytes kept per step"


def test_a_second_backward_after_freeing_raises_pytorchs_error():
    x = t.ones(200, requires_grad=True)
    y = (x.exp() * x.exp()).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()


def test_nodes_that_save_nothing_run_again_after_freeing():
    x = t.ones(200, requires_grad=True)
    y = ((x + 1) - x).sum()  # add, sub and sum read only shapes: PyTorch runs them again
    y.backward()
    assert y.grad_fn.next_functions[0][0].freed
    y.backward()
    assert x.grad.tolist() == [0.0] * 200
    z = (x + 2).expand(3, 200).sum()
    z.backward()
    z.backward()
    assert x.grad.tolist() == [6.0] * 200


def test_freeing_keeps_shapes_and_producers_but_no_values():
    x = t.ones(200, requires_grad=True)
    d = x * 2
    e = d + 1  # add reads no value (a dropped input); mul reads its inputs
    y = (e * e).sum()
    node_sum = y.grad_fn
    node_mul = node_sum.next_functions[0][0]
    node_add = node_mul.next_functions[0][0]
    y.backward()
    for node in (node_add, node_mul):
        assert node.freed
        assert all(v.strides == (0,) for v in node.values[:1])  # a stand-in holds no data
    given = node_add.inputs[0]
    assert given.shape == (200,) and given.dtype == t.float32
    assert given.grad_fn is d.grad_fn
    a, b = node_mul.inputs  # the tensor read twice: one stand-in for both
    assert a is b and a.grad_fn is node_add and a.shape == (200,)
    assert x.grad.tolist() == [12.0] * 200


def test_lowering_and_check_after_freeing_use_the_replay():
    from symgrad import symbolic

    x = t.tensor(np.linspace(0.1, 1.0, 130), dtype=t.float64, requires_grad=True)
    e = x.exp()
    y = (e * e).sum()
    y.backward()
    assert y.grad_fn.next_functions[0][0].freed
    lowered = symbolic.lower(y)
    value = float(lowered.expr.subs(lowered.values)[()])
    assert abs(value - y.item()) < 1e-9 * abs(y.item())
    assert str(symbolic.check(y)).startswith("gradient check passed")  # (a replay's backward)


# ----------------------------------------------------------------- the cycle collector


def _chain(n):
    """An n-op chain (h*w, h+x, tanh, exp) on two leaves; the leaves and the output."""
    rng = np.random.default_rng(3)
    x = t.tensor(rng.uniform(-0.5, 0.5, 10), requires_grad=True)
    w = t.tensor(rng.uniform(0.3, 0.7, 10), requires_grad=True)
    steps = (lambda h: h * w, lambda h: h + x, lambda h: h.tanh(), lambda h: h.exp())
    h = x
    for i in range(n):
        h = steps[i & 3](h)
    return x, w, h


def _nodes(y):
    node, found = y.grad_fn, []
    while node is not None:
        found.append(node)
        node = next((e for e in node.next if e is not None and not isinstance(e, t.Tensor)), None)
    return found


def test_a_collection_untracks_a_long_graphs_nodes_and_edges_and_backward_is_unchanged():
    x, w, y = _chain(2000)
    gc.collect()
    nodes = _nodes(y)
    assert len(nodes) == 2000
    assert not any(gc.is_tracked(node) or gc.is_tracked(node.next) for node in nodes)
    y.sum().backward()
    gc.disable()  # the same graph, never seen by a collection
    try:
        x2, w2, y2 = _chain(2000)
        assert all(gc.is_tracked(node) for node in _nodes(y2))
        y2.sum().backward()
    finally:
        gc.enable()
    np.testing.assert_array_equal(x.grad.numpy(), x2.grad.numpy())
    np.testing.assert_array_equal(w.grad.numpy(), w2.grad.numpy())


def test_an_untracked_graph_is_freed_when_dropped_without_a_collection():
    x, w, y = _chain(200)
    gc.collect()
    first, last = (weakref.ref(n) for n in (_nodes(y)[-1], y.grad_fn))
    gc.disable()
    try:
        del y
        assert first() is None and last() is None
    finally:
        gc.enable()


def _hook_on_tensor(y):
    y.register_hook(lambda g: g + 0 * y)


def _hook_on_node(y):
    y.grad_fn.register_hook(lambda gi, go: None if y is not None else gi)


def _prehook_on_node(y):
    y.grad_fn.register_prehook(lambda go: None if y is not None else go)


def _metadata(y):
    y.grad_fn.metadata["output"] = y


@pytest.mark.parametrize("make_cycle", [_hook_on_tensor, _hook_on_node, _prehook_on_node,
                                        _metadata])
def test_a_reference_cycle_through_a_node_is_still_collected(make_cycle):
    x = t.ones(3, requires_grad=True)
    y = (x * 2).exp()
    gc.collect()  # the nodes are untracked now
    assert not gc.is_tracked(y.grad_fn)
    make_cycle(y)  # y -> node -> hook/metadata -> y
    assert gc.is_tracked(y.grad_fn)
    node = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert node() is None


def _lowered_and_dropped():
    x = t.ones(2, requires_grad=True)
    y = (x * 3).sum()
    gc.collect()
    t.symbolic.lower(y)  # cached on y.grad_fn, and the lowering holds y
    return weakref.ref(y.grad_fn)  # (lower reads this frame's locals: they go with it)


def test_a_symbolic_lowering_cache_on_a_root_is_collected():
    node = _lowered_and_dropped()
    gc.collect()
    assert node() is None


def test_a_custom_functions_node_stays_tracked():
    class Twice(t.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            out = a * 2
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Twice.apply(t.ones(2, requires_grad=True))
    gc.collect()
    assert gc.is_tracked(y.grad_fn)
    node = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert node() is None


def test_a_node_a_collection_finds_half_made_is_untracked_by_the_next_one():
    from symgrad.autograd import graph

    node = object.__new__(graph.node_class("MulBackward0"))  # no slot written yet
    info = {"generation": 1, "collected": 0, "uncollectable": 0}
    graph._untrack_graphs("start", info)
    assert gc.is_tracked(node)  # left alone while half made
    gc.collect()  # (moves it to the oldest generation, which a collection does not scan)
    node.next, node._inputs, node.special = (None,), (1.0,), False
    graph._untrack_graphs("start", info)
    assert not gc.is_tracked(node)


# ----------------------------------------------------------------- 0-d results (W2's loss / N)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_operators_on_0d_tensors_run_their_forward_once(dtype):
    from symgrad.dispatch import binary_method, unary_method

    calls = []
    add = Op("add_counted", "AddBackward0", forward=lambda xp, a, b: calls.append(1) or a + b,
             vjp=(lambda xp, g, ans, a, b: g, lambda xp, g, ans, a, b: g))
    neg = Op("neg_counted", "NegBackward0", forward=lambda xp, a: calls.append(1) or -a,
             vjp=(lambda xp, g, ans, a: -g,))
    x = t.tensor(3.0, dtype=getattr(t, dtype), requires_grad=True)
    y = binary_method(add, lambda other: None)(x, 2)  # numpy gives a scalar for a 0-d result
    z = unary_method(neg)(y)
    assert len(calls) == 2
    assert z.shape == () and z.dtype == x.dtype and z.item() == -5.0
    z.backward()
    assert x.grad.item() == -1.0


def test_a_full_sums_gradient_is_expanded_as_in_pytorch():
    # PyTorch's SumBackward0 expands the gradient (strides 0): a hook sees the view and may not
    # change it in place; .grad and retained grads are arrays of their own
    x = t.ones(3, 4, requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.stride()))
    y.retain_grad()
    y.sum().backward()
    assert seen == [(0, 0)]
    assert y.grad.stride() == (4, 1) and x.grad.stride() == (4, 1)
    y.grad.add_(1)
    x.grad.add_(1)
    assert y.grad.tolist() == [[2.0] * 4] * 3 and x.grad.tolist() == [[3.0] * 4] * 3
    z = x * 2
    z.register_hook(lambda g: g.add_(1))
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of "
                                           "the written-to tensor refers to a single memory"):
        z.sum().backward()


def test_hooks_added_after_a_freeing_backward_keep_the_node_freed():
    """A node's ``special`` flag doubles as its freed mark (graph.FREED): whatever sets the flag
    later (a tensor hook, a node hook, retain_grad) keeps the mark, so a second backward through
    it still raises PyTorch's error."""
    x = t.ones(2, requires_grad=True)
    y = x.exp()  # (its backward reads its output: freed by a backward)
    loss = y.sum()
    loss.backward()
    y.register_hook(lambda g: g)
    y.grad_fn.register_prehook(lambda grads: None)
    y.grad_fn.register_hook(lambda grads_in, grads_out: None)
    y.retain_grad()
    assert y.grad_fn.freed
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        loss.backward()


def test_nothing_is_untracked_while_another_thread_runs():
    """gc.get_objects lists the objects other threads are making too; holding them across a
    thread switch made a tuple's final resize fail (SystemError in dask's tokenize), so with a
    second thread alive a collection leaves the graph tracked (refcounting still frees it); a
    graph made once the thread is gone is untracked again."""
    import threading

    x, w, y = _chain(200)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        gc.collect()
        assert all(gc.is_tracked(node) for node in _nodes(y))
    finally:
        release.set()
        other.join()
    x2, w2, y2 = _chain(200)
    gc.collect()
    assert not any(gc.is_tracked(node) for node in _nodes(y2))
