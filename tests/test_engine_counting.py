"""A plain backward does not walk the graph before it starts: each node counts the edges into it
as they are recorded (``Node.uses``), and runs once that many gradients arrived. These tests
check the counts against the graph, and the gradients against a pass that counts by walking
(``autograd.grad`` does) and against finite differences, also where a node has uses outside the
graph being differentiated."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t
from symgrad.autograd.graph import Node


def _edges_into(root: Node) -> dict[Node, int]:
    """The edges into every node reachable from ``root``, counted by walking."""
    counts: dict[Node, int] = {}
    seen, stack = {root}, [root]
    while stack:
        for target in stack.pop().next:
            if isinstance(target, Node):
                counts[target] = counts.get(target, 0) + 1
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
    return counts


class _Double(t.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def _every_recording_path(x: t.Tensor, w: t.Tensor) -> t.Tensor:
    """Ops recorded by each path of dispatch: the operators' and unary methods' fast paths,
    apply_unary / apply_binary with params, the general path (three inputs), a view, an in-place
    op, a joint-VJP op (cat) and a custom Function."""
    h = (x * w + x).tanh()  # fast paths
    h = h.add(w, alpha=2.0) * 3.0  # apply_binary with params; a Python number
    h = h.pow(2).clamp(-5.0, 5.0)  # apply_unary with params
    h = t.where(h > 0, h, w)  # three inputs
    v = h[1:]  # a view
    v = v.exp()
    g = h.clone()
    g.mul_(w)  # in place
    c = t.cat([v, g, h * h])  # x * x: two edges into one node
    return _Double.apply(c).sum()


def test_every_recording_path_counts_its_edges():
    x = t.tensor([0.3, -0.2, 0.9], requires_grad=True)
    w = t.tensor([1.2, 0.5, -0.7], requires_grad=True)
    root = _every_recording_path(x, w).grad_fn
    counts = _edges_into(root)
    assert len(counts) > 10
    assert {node.name(): node.uses for node in counts} == {
        node.name(): n for node, n in counts.items()}
    assert all(node.uses == n for node, n in counts.items())


def _grads_by_walking(loss: t.Tensor, leaves: list[t.Tensor]) -> list[np.ndarray]:
    return [g.numpy() for g in t.autograd.grad(loss, leaves, retain_graph=True)]


@pytest.mark.parametrize("dangling", [False, True])
def test_backward_agrees_with_a_pass_that_walks_the_graph(dangling):
    x = t.tensor([0.3, -0.7, 1.1], dtype=t.float64, requires_grad=True)
    w = t.tensor([1.5, 0.2, -0.4], dtype=t.float64, requires_grad=True)
    y = (x * w).tanh()
    kept = [y.exp(), (y * 2).sin()] if dangling else []  # uses of y outside the loss's graph
    loss = t.cat([y.sin() * y, y * x, y[:2].cos()]).sum()
    assert y.grad_fn.uses == 4 + 2 * dangling
    expected = _grads_by_walking(loss, [x, w])
    loss.backward()
    assert np.array_equal(x.grad.numpy(), expected[0])
    assert np.array_equal(w.grad.numpy(), expected[1])
    assert len(kept) == 2 * dangling


def test_a_node_waiting_for_uses_outside_the_graph_runs_once_nothing_else_can():
    x = t.tensor([0.5, -1.5], dtype=t.float64, requires_grad=True)
    a = x.exp()
    b = a * a  # a: two uses inside
    unused = a.sin()  # and one outside
    c = (b + a).tanh()
    c.sum().backward()
    v = x.detach().numpy()
    ev = np.exp(v)
    expected = (1 - np.tanh(ev * ev + ev) ** 2) * (2 * ev + 1) * ev
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)
    assert unused.grad_fn.next[0] is a.grad_fn


def test_counts_survive_a_retained_graph_run_twice():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x.sigmoid()
    loss = (y * y + y).sum()
    loss.backward(retain_graph=True)
    first = x.grad.clone()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first.numpy(), rtol=1e-6)


def test_a_hooked_leaf_still_runs_its_hook_when_its_gradient_is_complete():
    calls = []
    x = t.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: calls.append(("x", g.tolist())))
    y = x * 3
    y.register_hook(lambda g: calls.append(("y", g.tolist())))
    z = (y.exp() * x).sum()
    z.backward()
    assert [name for name, _ in calls] == ["y", "x"]


def _node_fields(node: Node) -> dict:
    """What a recorded node holds, comparable between two recordings of the same op."""
    def same(x):  # tensors and arrays by identity, the rest by value
        return id(x) if isinstance(x, t.Tensor | np.ndarray) else x
    # (special's truth: a plain node's flag says whether it fits, Node.fits, which only the
    # fast paths prove)
    return dict(cls=type(node), op=node.op, params=node.params, saved=node.saved,
                versions=node.versions, special=bool(node.special), freed=node.freed,
                uses=node.uses, next=tuple(same(e) for e in node.next),
                inputs=tuple(same(r) for r in node._inputs),
                values=tuple(same(v) for v in node.values), line=node.creation_site[1])


@pytest.mark.parametrize("dtype", [t.float32, t.float64])
@pytest.mark.parametrize("case", ["leaf-leaf", "node-leaf", "node-number", "same", "no-grad-other",
                                  "changed-in-place"])
@pytest.mark.parametrize("spelling", ["__mul__", "__add__", "__sub__", "__truediv__"])
def test_the_operators_fast_path_records_what_the_general_path_records(spelling, case, dtype):
    from symgrad.dispatch import apply_binary
    from symgrad.ops import elementwise as ew

    op = {"__mul__": ew.mul, "__add__": ew.add, "__sub__": ew.sub, "__truediv__": ew.div}[spelling]
    x = t.tensor([0.5, -1.5, 2.0], dtype=dtype, requires_grad=True)
    w = t.tensor([1.5, 0.25, -3.0], dtype=dtype, requires_grad=True)
    h = x * 2.0
    a, b = {"leaf-leaf": (x, w), "node-leaf": (h, w), "node-number": (h, 3.0), "same": (h, h),
            "no-grad-other": (h, w.detach()), "changed-in-place": (h, h.clone())}[case]
    if case == "changed-in-place":
        b.mul_(2.0)  # a version counter with changes: the node keeps the versions it saw
    fast = getattr(a, spelling)(b)
    line = __import__("sys")._getframe().f_lineno - 1
    general = apply_binary(op, a, b)  # (called from here: its creation site is not this line)
    expected = _node_fields(general.grad_fn)
    expected.update(line=line)
    assert _node_fields(fast.grad_fn) == expected
    assert fast._value.dtype == general._value.dtype and np.array_equal(fast._value,
                                                                        general._value)


@pytest.mark.parametrize("dtype", [t.float32, t.float64])
@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "log", "relu", "sin"])
@pytest.mark.parametrize("leaf", [True, False])
def test_the_unary_fast_path_records_what_the_general_path_records(name, leaf, dtype):
    from symgrad.dispatch import apply_unary
    from symgrad.ops import elementwise as ew

    x = t.tensor([0.5, 1.5, 2.0], dtype=dtype, requires_grad=True)
    a = x if leaf else x * 2.0
    fast = getattr(a, name)()
    line = __import__("sys")._getframe().f_lineno - 1
    general = apply_unary(getattr(ew, name), a)
    expected = _node_fields(general.grad_fn)
    expected.update(line=line)
    assert _node_fields(fast.grad_fn) == expected
    assert np.array_equal(fast._value, general._value)


def _random_graph(seed: int) -> tuple[t.Tensor, list[t.Tensor], list[t.Tensor]]:
    """A random graph over three leaves whose loss uses the last few results only: the others,
    and some results made on the side, are uses outside the loss's graph."""
    rng = np.random.default_rng(seed)
    leaves = [t.tensor(rng.standard_normal(4), dtype=t.float64, requires_grad=True)
              for _ in range(3)]
    pool, side = list(leaves), []
    for _ in range(int(rng.integers(3, 25))):
        a, b = pool[int(rng.integers(len(pool)))], pool[int(rng.integers(len(pool)))]
        kind = int(rng.integers(8))
        if kind == 0:
            r = a * b
        elif kind == 1:
            r = a + b
        elif kind == 2:
            r = a.tanh()
        elif kind == 3:
            r = (a * 0.3).exp()
        elif kind == 4:
            r = t.cat([a[:2], b[2:]])
        elif kind == 5:
            r = a - b * 2.0
        elif kind == 6:
            r = a.clone()
            r.mul_(b.tanh())
        else:
            r = a[1:].sum() * b
        if rng.random() < 0.2:
            side.append(r * 3.0)
        pool.append(r)
    loss = sum((p * (i + 1.0)).sum() for i, p in enumerate(pool[-3:]))
    return loss, leaves, side


@pytest.mark.parametrize("seed", range(40))
def test_backward_sums_in_the_order_of_a_pass_that_walks_the_graph(seed, monkeypatch):
    from symgrad.autograd import engine

    monkeypatch.setattr(engine, "_walk_first", 0)  # (after a pass started over, walk first)
    loss, leaves, side = _random_graph(seed)
    expected = t.autograd.grad(loss, leaves, retain_graph=True, allow_unused=True)
    loss.backward()
    for leaf, g in zip(leaves, expected, strict=True):
        if g is None:
            assert leaf.grad is None
        else:  # bit for bit: the same sums in the same order
            assert np.array_equal(leaf.grad.numpy(), g.numpy())


def test_a_custom_backward_that_ran_is_not_run_again_when_a_node_waits():
    calls = []

    class Logged(t.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0

        @staticmethod
        def backward(ctx, g):
            calls.append(g.tolist())
            return g

    x = t.tensor([0.5, -1.0], dtype=t.float64, requires_grad=True)
    a = x.exp()
    side = a.sin()  # a use of a outside the loss's graph: a waits
    Logged.apply(a * a).sum().backward()
    assert calls == [[1.0, 1.0]]
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * x.detach().numpy()), rtol=1e-12)
    assert side.grad_fn.next[0] is a.grad_fn


@pytest.mark.parametrize("uses", [2, 3, 4, 50, 1030, 2100])
@pytest.mark.parametrize("kind", ["float32", "float64", "0-d", "wider later", "wider first",
                                  "large"])
def test_a_leafs_many_gradients_sum_to_the_walking_passs_bits(uses, kind):
    # a counted pass sums a leaf's small gradients at the end (engine._sum_parts, in batches
    # past 1024): the same additions in the same order as a pass that adds them as they come
    rng = np.random.default_rng(uses)
    shape = () if kind == "0-d" else (2000,) if kind == "large" else (3,)
    dtype = t.float64 if kind == "float64" else t.float32
    x = t.tensor(rng.uniform(-1, 1, shape), dtype=dtype, requires_grad=True)
    wide = t.tensor(rng.uniform(0.5, 1.5, shape), dtype=t.float64)
    h = x * 1.0
    for i in range(uses - 1):
        if kind == "wider later" and i == uses // 2 or kind == "wider first" and i == 0:
            h = (h * wide).float() + x  # (x's gradient from this use is float64)
        else:
            h = h * 0.999 + x * float(rng.uniform(0.5, 2.0))  # (gradients of one magnitude)
    loss = h.sum()
    expected, = t.autograd.grad(loss, [x], retain_graph=True)  # (walks: adds as they come)
    loss.backward()
    assert x.grad.dtype == expected.dtype
    assert x.grad.numpy().tobytes() == expected.numpy().tobytes()
