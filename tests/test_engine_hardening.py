"""The engine refuses gradients of the wrong shape, accumulates atomically across threads and
frees saved values after a backward that does not retain the graph (as PyTorch does)."""

import gc
import threading
import tracemalloc

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
