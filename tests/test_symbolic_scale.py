"""check at model scale (issue 13): node-by-node verification, exact sampled gradients,
executors, progress; and the checker against deliberately wrong rules (mutations)."""

from __future__ import annotations

import re
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
import sympy

import symgrad as t
import symgrad.nn.functional as F
from symgrad import symbolic
from symgrad.ops import REGISTRY
from symgrad.symbolic import local, scale


def _mlp(i: int = 64, h: int = 32, o: int = 10, batch: int = 16, seed: int = 0,
         activation=None):
    rng = np.random.default_rng(seed)
    x = t.tensor(rng.standard_normal((batch, i)), dtype=t.float64)
    W1 = t.tensor(rng.standard_normal((i, h)) / np.sqrt(i), dtype=t.float64,
                  requires_grad=True)
    b1 = t.tensor(rng.standard_normal(h) * 0.1, dtype=t.float64, requires_grad=True)
    W2 = t.tensor(rng.standard_normal((h, o)) / np.sqrt(h), dtype=t.float64,
                  requires_grad=True)
    y = t.tensor(rng.integers(0, o, batch))
    hidden = x @ W1 + b1
    hidden = hidden.tanh() if activation is None else activation(hidden)
    return F.cross_entropy(hidden @ W2, y), (W1, b1, W2)


def test_a_model_step_is_checked_node_by_node():
    loss, (W1, b1, W2) = _mlp()
    assert scale.lowering_size(loss) > scale.LOWERING_BUDGET
    report = symbolic.check(loss)
    assert [r.name for r in report.inputs] == ["W1", "b1", "W2"]
    assert [len(r.checked) for r in report.inputs] == [p.numel() for p in (W1, b1, W2)]
    names = [n.node for n in report.nodes]
    assert names == ["MmBackward0", "AddBackward0", "TanhBackward0", "MmBackward0",
                     "LogSoftmaxBackward0", "NllLossBackward0"]
    assert all(n.elements > 0 for n in report.nodes)
    assert "node: TanhBackward0" in str(report)


def test_exact_gradients_agree_with_the_lowered_check():
    # the same graph both ways: node by node, sympy's derivatives are evaluated exactly at the
    # values each node saw (rounded to float64 by the forward), the lowered check at values
    # propagated exactly from the leaves: they agree to that rounding
    loss, (W1, b1, W2) = _mlp(6, 4, 3, 2)
    leaves = [W1, b1, W2]
    graph = scale.build(loss, leaves)
    graph.seed = np.ones(())
    items = [(s, k) for s, p in enumerate(leaves) for k in range(p.numel())]
    ours = [local.exact_value(v) for v in scale.leaf_task(graph, items)]
    formulas = symbolic.grad(loss, leaves)
    point = symbolic.lower(loss).values
    for (s, k), value in zip(items, ours, strict=True):
        exact = sympy.sympify(np.asarray(formulas[s], dtype=object).reshape(-1)[k])
        reference = exact.xreplace(point).evalf(50)
        assert abs(float(value - reference)) <= 1e-14 * max(1.0, abs(float(reference)))


def test_sampled_elements_are_exact_and_independent_of_the_split():
    loss, _ = _mlp()
    graph = scale.build(loss, [p for p in _leaves(loss)])
    graph.seed = np.ones(())
    items = [(0, 5), (0, 700), (1, 3), (2, 17), (2, 300)]
    together = scale.leaf_task(graph, items)
    apart = [scale.leaf_task(graph, [item])[0] for item in items]
    assert together == apart  # integers of 2**-SHIFT: bit-identical however split
    full = symbolic.check(loss)
    sampled = symbolic.check(loss, sample=7)
    for f, s in zip(full.inputs, sampled.inputs, strict=True):
        assert s.sampled and len(s.checked) == 7 and set(s.checked) <= set(f.checked)


def test_gelu_at_model_scale_is_checked():
    # its template holds erf, which numpy lacks: evaluated elementwise (math.erf)
    loss, _ = _mlp(activation=F.gelu)
    report = symbolic.check(loss, sample=4)
    assert [n.node for n in report.nodes][2] == "GeluBackward0"
    assert report.nodes[2].elements == 512


def test_the_vectorised_sweep_gives_the_element_by_element_values(monkeypatch):
    # the same integers of 2**-SHIFT whether each node input's adjoint is summed over object
    # arrays or pulled element by element, here with an undefined value among them
    rng = np.random.default_rng(3)
    x = t.tensor(rng.standard_normal((8, 20)), dtype=t.float64)
    W = t.tensor(rng.standard_normal((20, 6)) / 4, dtype=t.float64, requires_grad=True)
    h = x @ W
    h = h - h.detach() * t.tensor((np.arange(48).reshape(8, 6) % 7 == 0) * 1.0)
    loss = (h.abs().sqrt() + h.tanh()).sum()  # sqrt of 0: an infinite partial
    graph = scale.build(loss, [W])
    items = [(0, k) for k in range(W.numel())]
    vectorised = scale.leaf_task(graph, items)
    assert any(isinstance(v, float) for v in vectorised)  # the undefined elements
    monkeypatch.setattr(local.Reverse, "_adjoint", lambda *args: None)
    pulled = scale.leaf_task(graph, items)
    assert [str(v) for v in vectorised] == [str(v) for v in pulled]


def _exact_spread(executor):
    loss, _ = _mlp()
    leaves = _leaves(loss)
    graph = scale.build(loss, leaves)
    items = [(s, k) for s, p in enumerate(leaves) for k in range(0, p.numel(), 7)]
    tasks = [(scale.node_task, (node, np.ones(node.out_shape))) for node in graph.nodes]
    serial = scale.exact_and_nodes(graph, items, tasks, None, "test", False)
    spread = scale.exact_and_nodes(graph, items, tasks, executor, "test", False)
    assert spread[0] == serial[0]  # the exact values, bit for bit, in the items' order
    for ours, theirs in zip(spread[1], serial[1], strict=True):
        assert [None if a is None else a.tolist() for a in ours] == \
            [None if a is None else a.tolist() for a in theirs]


def _leaves(loss):
    from symgrad.autograd.naming import topological
    seen = {}
    for node in topological(loss.grad_fn):
        seen.update((id(e), e) for e in node.next if isinstance(e, t.Tensor))
    return list(seen.values())


class _OffByOne(t.autograd.Function):
    """tanh whose backward is wrong on one element."""

    @staticmethod
    def forward(ctx, x):
        y = x.tanh()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        wrong = t.zeros(y.shape, dtype=y.dtype)
        wrong[3, 5] = 1e-3
        return g * (1 - y * y) + wrong


def test_a_custom_function_wrong_on_one_element_is_named_even_when_sampling():
    loss, _ = _mlp(activation=_OffByOne.apply)
    with pytest.raises(symbolic.GradientMismatch, match=r"_OffByOneBackward .*created at "
                       r".*test_symbolic_scale.py.*input 0 element \(3, 5\).*1 of 512"):
        symbolic.check(loss, sample=2)


@pytest.mark.parametrize("op, node", [("tanh", "TanhBackward0"), ("add", "AddBackward0"),
                                      ("log_softmax", "LogSoftmaxBackward0")])
def test_a_registry_rule_wrong_on_one_element_is_named(monkeypatch, op, node):
    rule = REGISTRY[op].vjp[0]

    def mutated(xp, g, ans, *args, **params):
        out = np.array(rule(xp, g, ans, *args, **params), dtype=np.float64)
        out.reshape(-1)[1] += 0.25
        return out

    monkeypatch.setattr(REGISTRY[op], "vjp", (mutated,) + tuple(REGISTRY[op].vjp[1:]))
    loss, _ = _mlp()
    with pytest.raises(symbolic.GradientMismatch, match=node):
        symbolic.check(loss, sample=3)


def test_a_swapped_matmul_rule_is_named(monkeypatch):
    grad_a, grad_b = REGISTRY["matmul"].vjp

    def swapped(xp, g, ans, a, b):  # right shape, wrong values: the other operand's order
        return xp.matmul(g[::-1], xp.swapaxes(b, -1, -2))

    monkeypatch.setattr(REGISTRY["matmul"], "vjp", (swapped, grad_b))
    loss, _ = _mlp()
    with pytest.raises(symbolic.GradientMismatch, match="MmBackward0"):
        symbolic.check(loss, sample=3)


@pytest.mark.parametrize("size", [(64, 32, 10, 16), (3, 2, 2, 2)])  # by nodes, and lowered
def test_a_wrongly_shaped_gradient_is_a_mismatch_naming_the_node(monkeypatch, size):
    monkeypatch.setattr(REGISTRY["tanh"], "vjp",
                        (lambda xp, g, ans, a: (g * (1 - ans * ans))[:1],))
    loss, _ = _mlp(*size)
    with pytest.raises(symbolic.GradientMismatch, match="TanhBackward0") as caught:
        symbolic.check(loss)
    assert "shape" in str(caught.value)


class _NoGradient(t.autograd.Function):
    """tanh whose backward returns None (no gradient: zeros, as in the engine)."""

    @staticmethod
    def forward(ctx, x):
        return x.tanh()

    @staticmethod
    def backward(ctx, g):
        return None


@pytest.mark.parametrize("size", [(64, 32, 10, 16), (3, 2, 2, 2)])
def test_a_rule_returning_none_counts_as_zeros(size):
    loss, _ = _mlp(*size, activation=_NoGradient.apply)
    with pytest.raises(symbolic.GradientMismatch, match="_NoGradientBackward"):
        symbolic.check(loss)


@pytest.mark.parametrize("size", [(64, 32, 10, 16), (3, 2, 2, 2)])
def test_the_seed_does_not_come_from_the_engine(monkeypatch, size):
    # a bug in the engine's seed helper must not agree with itself
    from symgrad.autograd import api
    seed = api._seed_gradients
    monkeypatch.setattr(api, "_seed_gradients",
                        lambda *a, **k: [2 * s for s in seed(*a, **k)])
    loss, _ = _mlp(*size)
    with pytest.raises(symbolic.GradientMismatch):
        symbolic.check(loss)


def _serial_and(executor, **kwargs):
    loss, _ = _mlp()
    serial = symbolic.check(loss, **kwargs)
    spread = symbolic.check(loss, executor=executor, **kwargs)
    return serial, spread


def test_a_process_pool_gives_the_serial_report():
    with ProcessPoolExecutor(2) as pool:
        serial, spread = _serial_and(pool, sample=5)
        assert str(serial) == str(spread)
        serial, spread = _serial_and(pool)
        assert str(serial) == str(spread)
        assert serial.inputs == spread.inputs  # every field, the order included


def test_exact_values_and_node_checks_on_a_process_pool_are_the_serial_ones():
    with ProcessPoolExecutor(2) as pool:
        _exact_spread(pool)


def test_a_mutation_is_caught_on_a_process_pool():
    loss, _ = _mlp(activation=_OffByOne.apply)
    with ProcessPoolExecutor(2) as pool, pytest.raises(symbolic.GradientMismatch,
                                                       match="_OffByOneBackward"):
        symbolic.check(loss, sample=2, executor=pool)


def test_a_dask_cluster_gives_the_serial_report():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        serial, spread = _serial_and(client.get_executor(), sample=4)
    # the workers are threads of this process: two products running at once may be split
    # differently by the one BLAS they share, so the float error figures may differ in their
    # last bits (a cluster of processes, below, gives the serial values exactly)
    assert _without_error_figures(serial) == _without_error_figures(spread)
    assert len(serial.inputs) == len(spread.inputs)


def _without_error_figures(report: object) -> str:
    return re.sub(r"error [-+0-9.e]+", "error <figure>", str(report))


def test_exact_values_on_a_dask_cluster_of_processes_are_the_serial_ones():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        assert scale.workers(client.get_executor()) == 2
        _exact_spread(client.get_executor())


def test_progress_is_shown_when_asked_and_only_then(capsys):
    loss, _ = _mlp()
    symbolic.check(loss, sample=2, progress=True)
    assert re.search(r"symbolic", capsys.readouterr().err)
    symbolic.check(loss, sample=2, progress=False)
    assert capsys.readouterr().err == ""
    symbolic.check(loss, sample=2)  # stderr is not a terminal under pytest
    assert capsys.readouterr().err == ""


def test_progress_without_tqdm(capsys, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name == "tqdm":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    from symgrad.symbolic.progress import Progress
    with Progress(3, "demo", progress=True) as bar:
        for _ in range(3):
            bar.update()
    assert "demo: [" in capsys.readouterr().err


def test_kinks_at_model_scale_are_listed_not_mismatched():
    rng = np.random.default_rng(1)
    x = t.tensor(rng.standard_normal((16, 64)), dtype=t.float64)
    W = t.tensor(rng.standard_normal((64, 32)) / 8, dtype=t.float64, requires_grad=True)
    b = t.tensor(np.zeros(32), dtype=t.float64, requires_grad=True)
    h = x @ W
    z = (h - h.detach()[0]) + b  # row 0 is exactly 0 in value: relu's kinks
    report = symbolic.check(z.relu().sum())
    assert report.kinks and all(k.node == "ReluBackward0" for k in report.kinks)
    assert {k.index[0] for k in report.kinks} == {0}


def test_check_hessian_on_a_process_pool_gives_the_serial_report():
    rng = np.random.default_rng(2)
    W = t.tensor(rng.standard_normal((3, 2)), dtype=t.float64, requires_grad=True)
    x = t.tensor(rng.standard_normal((4, 3)), dtype=t.float64)
    loss = (x @ W).tanh().sum()
    serial = symbolic.check_hessian(loss, W)
    with ProcessPoolExecutor(2) as pool:
        spread = symbolic.check_hessian(loss, W, executor=pool)
    assert str(serial) == str(spread)
    assert np.array_equal(serial.symbolic, spread.symbolic)


def test_lower_compile_and_check_hessian_show_progress_when_asked(capsys):
    W = t.tensor(np.ones((2, 2)), dtype=t.float64, requires_grad=True)
    loss = (W * W).tanh().sum()
    symbolic.lower(loss, progress=True)
    assert "symbolic.lower" in capsys.readouterr().err
    symbolic.compile(loss, W, progress=True)
    assert "symbolic.compile" in capsys.readouterr().err
    symbolic.check_hessian(loss, W, progress=True)
    assert "symbolic.check_hessian" in capsys.readouterr().err
    symbolic.compile(loss, W, progress=False)
    symbolic.lower(loss)
    assert capsys.readouterr().err == ""
