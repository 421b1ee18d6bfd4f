"""Graph nodes leave Python's cycle collector (``graph._untrack_graphs``): from the user's side
nothing changes. Gradients are the same when collections run in the middle of a forward, in
threads, with ``retain_graph`` / ``create_graph``, double backward, custom Functions and module
hooks; and typical training loops free what PyTorch frees: by reference counting alone (the
collector disabled) where PyTorch's graph has no cycle, by a collection where the user made one
(a hook capturing its own tensor, ``backward(create_graph=True)`` storing a graph in ``.grad``).
"""

from __future__ import annotations

import contextlib
import gc
import threading
import warnings
import weakref

import numpy as np
import pytest

import symgrad as t
from symgrad import nn
from symgrad.autograd import engine

RNG = np.random.default_rng(16)
X = RNG.standard_normal((16, 8))
W1 = RNG.standard_normal((8, 12)) * 0.5
W2 = RNG.standard_normal((12, 3)) * 0.5


@contextlib.contextmanager
def collecting_often():
    """The young generation collected every few allocations (inside the ops, then)."""
    old = gc.get_threshold()
    gc.set_threshold(3, 1, 1)
    try:
        yield
    finally:
        gc.set_threshold(*old)


@contextlib.contextmanager
def no_collector():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class Cube(t.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        ctx.note = "cube"
        return a * a * a

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return g * 3 * a * a


def model(x, w1, w2, collect=False):
    """Fast-path ops, a view, a custom Function, a hook; ``collect``: gc.collect() between."""
    steps = []
    h = x @ w1
    steps.append(h)
    h = (h * 0.5 + 0.1).tanh()
    if collect:
        gc.collect()
    h = Cube.apply(h[:, 1:]) / 2.0 + h[:, :-1].sigmoid()
    h.register_hook(lambda g: g * 1.5)
    if collect:
        gc.collect()
    y = (h.exp() - 1.0) @ w2[1:]
    return (y * y).mean()


def numpy_model(x, w1, w2):
    """The same function in float64 numpy, for finite differences."""
    h = np.tanh((x @ w1) * 0.5 + 0.1)
    h = h[:, 1:] ** 3 / 2.0 + 1 / (1 + np.exp(-h[:, :-1]))
    y = (np.exp(h) - 1.0) @ w2[1:]
    return (y * y).mean()


def grads(collect=False, often=False):
    w1 = t.tensor(W1, requires_grad=True)
    w2 = t.tensor(W2, requires_grad=True)
    with collecting_often() if often else contextlib.nullcontext():
        loss = model(t.tensor(X), w1, w2, collect)
        if collect:
            gc.collect()
        loss.backward()
    return loss.item(), w1.grad.numpy(), w2.grad.numpy()


def test_collections_in_the_middle_of_a_forward_change_no_gradient():
    with no_collector():
        reference = grads()
    for collected in (grads(collect=True), grads(often=True), grads(True, True)):
        assert collected[0] == reference[0]
        for a, b in zip(collected[1:], reference[1:], strict=True):
            np.testing.assert_array_equal(a, b)


def test_the_gradients_are_right():
    """The reference itself against central finite differences (the hook scales by 1.5)."""
    _, g1, _ = grads()
    eps = 1e-6
    for index in [(0, 0), (3, 5), (7, 11)]:
        up, down = W1.copy(), W1.copy()
        up[index] += eps
        down[index] -= eps
        numeric = (numpy_model(X, up, W2) - numpy_model(X, down, W2)) / (2 * eps)
        # the hook scales every gradient reaching h by 1.5 (linear from there to w1)
        assert g1[index] == pytest.approx(1.5 * numeric, rel=1e-5, abs=1e-9)


def test_threads_building_graphs_while_another_collects():
    reference = grads()
    stop = threading.Event()
    failures = []

    def collector():
        while not stop.is_set():
            gc.collect()

    def worker():
        try:
            for _ in range(15):
                got = grads()
                assert got[0] == reference[0]
                np.testing.assert_array_equal(got[1], reference[1])
                np.testing.assert_array_equal(got[2], reference[2])
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    sweeper = threading.Thread(target=collector)
    sweeper.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    sweeper.join()
    assert not failures, failures[0]


def test_retain_graph_and_double_backward_across_collections():
    x = t.tensor([0.5, -1.0, 2.0], dtype=t.float64, requires_grad=True)
    y = (x * x * x).sum() + x.sin().sum()
    gc.collect()
    y.backward(retain_graph=True)
    gc.collect()
    y.backward()
    v = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (3 * v ** 2 + np.cos(v)), rtol=1e-12)
    x.grad = None
    y = (x * x * x).sum() + x.sin().sum()
    g, = t.autograd.grad(y, x, create_graph=True)
    gc.collect()
    gg, = t.autograd.grad(g.sum(), x, create_graph=True)
    gc.collect()
    ggg, = t.autograd.grad(gg.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), 3 * v ** 2 + np.cos(v), rtol=1e-12)
    np.testing.assert_allclose(gg.detach().numpy(), 6 * v - np.sin(v), rtol=1e-12)
    np.testing.assert_allclose(ggg.numpy(), 6 - np.cos(v), rtol=1e-12)


def test_a_second_backward_after_a_collection_still_raises_pytorchs_error():
    x = t.ones(200, requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    gc.collect()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second "
                                           "time"):
        y.backward()


def test_module_hooks_across_collections():
    lin = nn.Linear(8, 3).double()
    seen = []
    lin.register_forward_hook(lambda module, args, out: seen.append(("forward", out.shape)))
    lin.register_full_backward_hook(
        lambda module, grad_in, grad_out: seen.append(("backward", grad_out[0].shape)))
    x = t.tensor(X, requires_grad=True)
    out = lin(x).tanh()
    gc.collect()
    out.sum().backward()
    assert seen == [("forward", (16, 3)), ("backward", (16, 3))]
    expected = (1 - np.tanh(X @ lin.weight.detach().numpy().T
                            + lin.bias.detach().numpy()) ** 2) @ lin.weight.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_a_custom_functions_ctx_survives_collections_and_is_freed_with_its_graph():
    a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = Cube.apply(a * 1)
    gc.collect()
    assert y.grad_fn.saved_tensors[0].tolist() == [1.0, 2.0, 3.0]
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 12.0, 27.0])
    node = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert node() is None


# --------------------------------------------------------- training loops free what PyTorch frees


def _mlp():
    return nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 4))


def _data():
    return t.tensor(RNG.standard_normal((64, 32)), dtype=t.float32)


def test_a_training_loop_frees_each_steps_graph_by_reference_counting():
    """losses kept as numbers: nothing of a step outlives it, the collector disabled (no
    reference cycle anywhere, as in PyTorch)."""
    net, data = _mlp(), _data()
    opt = t.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    losses, refs = [], []
    with no_collector():
        for _ in range(5):
            opt.zero_grad()
            hidden = net[1](net[0](data))
            loss = net[2](hidden).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            refs.append((weakref.ref(loss), weakref.ref(loss.grad_fn), weakref.ref(hidden),
                         weakref.ref(hidden._value)))
            del hidden, loss
            assert all(ref() is None for ref in refs[-1])
    assert losses[-1] < losses[0]


def test_kept_loss_tensors_keep_their_nodes_but_not_the_saved_activations():
    """PyTorch: a kept loss keeps its graph's nodes; backward has freed their saved tensors."""
    net, data = _mlp(), _data()
    opt = t.optim.SGD(net.parameters(), lr=0.01)
    losses, saved = [], []
    for _ in range(4):
        opt.zero_grad()
        hidden = net[1](net[0](data))
        saved.append(weakref.ref(hidden._value))
        loss = net[2](hidden).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss)
        del hidden, loss
    gc.collect()
    assert all(ref() is None for ref in saved)
    assert all(loss.grad_fn is not None for loss in losses)  # the nodes stay, as in PyTorch
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second "):
        losses[0].backward()


def test_a_gradient_penalty_with_create_graph_leaves_no_cycle():
    net, data = _mlp(), _data()
    opt = t.optim.Adam(net.parameters(), lr=1e-3)
    refs = []
    with no_collector():
        for _ in range(3):
            opt.zero_grad()
            x = data.clone().requires_grad_()
            loss = net(x).pow(2).mean()
            g, = t.autograd.grad(loss, x, create_graph=True)
            total = loss + (g * g).sum()
            total.backward()
            opt.step()
            refs.append((weakref.ref(total.grad_fn), weakref.ref(g), weakref.ref(x)))
            del x, loss, g, total
            assert all(ref() is None for ref in refs[-1])


def test_user_made_cycles_are_collected(monkeypatch):
    """A hook capturing its own tensor, and ``backward(create_graph=True)`` (a graph in
    ``.grad``, which holds the parameter: PyTorch warns of this cycle, once per process):
    freed by a collection, as PyTorch's are."""
    monkeypatch.setattr(engine, "_warned_create_graph", False)  # (as in a fresh process)
    net, data = _mlp(), _data()
    refs = []
    for step in range(2):
        hidden = net[1](net[0](data))
        gc.collect()  # (the nodes so far leave the collector)
        hidden.register_hook(lambda g, hidden=hidden: g * hidden.detach().sign().abs())
        loss = net[2](hidden).pow(2).mean()
        if step == 0:
            with pytest.warns(UserWarning, match="^Using backward\\(\\) with create_graph="
                                                 "True will create a reference cycle"):
                loss.backward(create_graph=True)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                loss.backward(create_graph=True)
        gc.collect()  # (and the nodes backward made)
        refs.append((weakref.ref(hidden), weakref.ref(loss.grad_fn),
                     weakref.ref(net[0].weight.grad)))
        assert net[0].weight.grad.grad_fn is not None
        del hidden, loss
        net.zero_grad(set_to_none=True)
    net_ref = weakref.ref(net)
    del net
    gc.collect()
    assert net_ref() is None
    assert all(ref() is None for pair in refs for ref in pair)
