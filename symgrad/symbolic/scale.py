"""``check`` at model scale: every node verified on all its elements, leaves exact.

A graph whose expanded lowering would be large (a 784x128 layer is millions of terms) is
checked node by node from :mod:`symgrad.symbolic.local`:

* every node's VJP rule, run by the engine on a random cotangent at the node's recorded inputs,
  is compared over all its input elements with sympy's derivative of the op's own forward
  (derived once per template, evaluated vectorised in float64): a rule wrong on one element is
  named, whatever is sampled;
* each leaf element checked (all of them, or ``sample=k`` per input) gets sympy's derivative
  chained along the graph exactly (integers of 2**-SHIFT, transcendental partials to
  :data:`~symgrad.symbolic.local.DIGITS` digits): a reverse sweep through only the elements
  the checked ones reach (the cost grows with that cone, not with the graph).

The node checks and the sweep's transcendental partials are independent tasks: ``executor``
(any ``concurrent.futures.Executor``) runs them (:func:`exact_and_nodes`), and results are
gathered in submission order, so the report is the serial one.
"""

from __future__ import annotations

import hashlib
import math
import pickle
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from symgrad.autograd.graph import Node
from symgrad.autograd.naming import mask_producers, topological
from symgrad.numeric import numpy_namespace as numeric_xp
from symgrad.symbolic import local
from symgrad.symbolic import sympy_namespace as sx
from symgrad.symbolic.lowering import exact_operand, exact_params, symbolic_forward
from symgrad.symbolic.progress import Progress
from symgrad.tensor import Tensor

# graphs whose lowering would hold more terms than this are checked node by node
LOWERING_BUDGET = 20_000


def lowering_size(output: Tensor) -> int:
    """About how many terms lowering ``output``'s graph would build (a 2-d matmul counts its
    multiply-adds).

    >>> a = symgrad.ones(3, 4, requires_grad=True)
    >>> symgrad.symbolic.scale.lowering_size(a @ symgrad.ones(4, 5))
    60
    """
    if output.grad_fn is None:
        return int(output._value.size)
    total = 0
    for node in topological(output.grad_fn, mask_producers):
        sizes = [int(np.size(v)) for v in node.values]
        if node.op.name == "matmul" and all(np.ndim(v) == 2 for v in node.values):
            (n, k), (_, m) = (np.shape(v) for v in node.values)
            total += n * k * m
        elif node.op.name == "convolution":  # each output element reads one window
            x, w = (np.shape(v) for v in node.values[:2])
            windows = math.prod(x) // x[1] * w[0] if len(x) > 1 else 1
            total += windows * math.prod(w[1:])
        else:
            total += max(sizes, default=1)
    return total


@dataclass(eq=False)
class Graph:
    """The graph as :class:`~symgrad.symbolic.local.LocalNode` s (picklable), its leaves and the
    output's seed."""

    nodes: list[local.LocalNode]
    shapes: list[tuple[int, ...]]
    root: int
    seed: np.ndarray



def build(output: Tensor, leaves: list[Tensor], progress: bool | None = None) -> Graph:
    """Each node's forward on fresh symbols, grouped by template (a 2-d matmul by its
    indices); ``leaves`` are the tensors whose symbols the report is about."""
    order = topological(output.grad_fn, mask_producers)
    index = {node: n for n, node in enumerate(order)}
    leaf_index = {id(t): s for s, t in enumerate(leaves)}
    nodes = []
    with Progress(len(order), "symbolic: node structure", progress) as bar:
        for node in order:
            nodes.append(_local_node(node, index, leaf_index))
            bar.update()
    return Graph(nodes, [tuple(t.shape) for t in leaves], len(order) - 1,
                 np.ones(output._value.shape))


def _site(node: Node) -> str | None:
    site = getattr(node, "creation_site", None)
    return None if site is None else f"{site[0]}:{site[1]}"


def _local_node(node: Node, index: dict[Node, int], leaf_index: dict[int, int]
                ) -> local.LocalNode:
    values: list[np.ndarray | None] = []
    parents: list[tuple[str, int] | None] = []
    args: list[Any] = []
    symbols: dict[Any, tuple[int, int]] = {}
    floating = []
    for edge, raw, value in zip(node.next, node.inputs, node.values, strict=True):
        if isinstance(edge, Node):
            parents.append(("node", index[edge]))
        elif isinstance(edge, Tensor) and id(edge) in leaf_index:
            parents.append(("leaf", leaf_index[id(edge)]))
        else:
            parents.append(None)
        array = np.asarray(value) if isinstance(raw, Tensor) or isinstance(value, np.ndarray) \
            else None
        if array is not None and array.dtype.kind == "f":
            values.append(array.astype(np.float64))
            floating.append(True)
        else:
            values.append(None if array is None else array)
            floating.append(False)
            parents[-1] = None
    active = [p is not None for p in parents]
    if node.op.name == "matmul" and len(values) == 2 and all(
            v is not None and v.ndim == 2 for v in values) and all(floating):
        (n, k), (_, m) = values[0].shape, values[1].shape
        groups: list[Any] = local.matmul_structure(n, k, m, active)
        shape: tuple[int, ...] = (n, m)
    elif _elementwise(node, values):
        shape, groups = _elementwise_groups(node, values, floating, active)
    elif (found := _custom_elementwise(node, values, floating, active)) is not None:
        shape, groups = found
    elif node.op.name == "convolution" and (found := _conv_groups(node, values, floating,
                                                                  active)) is not None:
        shape, groups = found
    elif node.op.name in _ALONG_DIM and floating[0]:
        shape, groups = _sliced_groups(node, values[0], active)
    else:
        for i, (raw, value) in enumerate(zip(node.inputs, node.values, strict=True)):
            if floating[i]:
                pool = _fresh(i, values[i].size)
                symbols.update((s, (i, k)) for k, s in enumerate(pool))
                args.append(np.array(pool, dtype=object).reshape(values[i].shape)
                            .view(sx.Expressions))
            else:
                args.append(exact_operand(raw, value))
        definition = symbolic_forward(node.op, args, exact_params(node))
        shape = tuple(np.shape(definition))
        groups = local.structure(definition, symbols, active)
    return local.LocalNode(type(node).__name__, _site(node),
                           [v if f else None for v, f in zip(values, floating, strict=True)],
                           parents, shape, groups)


def _conv_groups(node: Node, values: list[np.ndarray | None], floating: list[bool],
                 active: list[bool]) -> tuple[tuple[int, ...], list[Any]] | None:
    """A convolution (not transposed, one group, no padding) as one group: each output element
    is one window of the input times the kernel, plus the bias. The windows are computed from
    the indices, and the template's values must reproduce the op's numeric forward at the
    recorded inputs (else None: the op is lowered whole)."""
    p = node.params or {}
    x, w = values[0], values[1]
    b = values[2] if len(values) > 2 else None
    if p.get("transposed") or p.get("groups", 1) != 1 or x is None or w is None \
            or any(any(pad) for pad in p.get("padding", ())) or not all(floating[:2]) \
            or (len(values) > 2 and (b is None or not floating[2])) or x.ndim < 3:
        return None
    n, c, *space = x.shape
    co, _, *kernel = w.shape
    stride, dilation = p["stride"], p["dilation"]
    out = [(space[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
           for i in range(len(space))]
    shape = (n, co, *out)
    index = np.unravel_index(np.arange(math.prod(shape)), shape)
    taps = math.prod(w.shape[1:])
    tap = np.unravel_index(np.arange(taps), w.shape[1:])
    where = [index[0][:, None], tap[0][None, :]] + [
        index[2 + i][:, None] * stride[i] + tap[1 + i][None, :] * dilation[i]
        for i in range(len(space))]
    columns = [np.ravel_multi_index(np.broadcast_arrays(*where), x.shape),
               index[1][:, None] * taps + np.arange(taps)[None, :]]
    if b is not None:
        columns.append(index[1][:, None])
    flats = np.concatenate(columns, axis=1).astype(np.int64)
    reference = np.asarray(node.op.forward(numeric_xp, *node.values, **p), dtype=np.float64)
    ours = np.einsum("et,et->e", x.reshape(-1)[flats[:, :taps]],
                     w.reshape(-1)[flats[:, taps:2 * taps]])
    if b is not None:
        ours = ours + b.reshape(-1)[flats[:, -1]]
    if reference.shape != shape or not np.allclose(ours, reference.reshape(-1), rtol=1e-9,
                                                   atol=1e-12):
        return None
    symbols = local.canonical(2 * taps + (b is not None))
    expr = sympy.Add(*[symbols[k] * symbols[taps + k] for k in range(taps)])
    if b is not None:
        expr = expr + symbols[-1]
    inputs = (0,) * taps + (1,) * taps + ((2,) if b is not None else ())
    t = local.template(expr, inputs, tuple(active))
    return shape, [local.Group(t, np.arange(math.prod(shape), dtype=np.int64), flats)]


# ops whose output element depends on its input's slice along ``dim`` only, in the same
# way for every slice: lowered on one slice, the structure repeated
_ALONG_DIM = {"softmax", "log_softmax"}


def _sliced_groups(node: Node, a: np.ndarray, active: list[bool]
                   ) -> tuple[tuple[int, ...], list[Any]]:
    dims = {d % a.ndim for d in node.params["dim"]} if a.ndim else set()
    one = tuple(s if d in dims else 1 for d, s in enumerate(a.shape))
    batch = tuple(1 if d in dims else s for d, s in enumerate(a.shape))
    pool = _fresh(0, math.prod(one))
    args = [np.array(pool, dtype=object).reshape(one).view(sx.Expressions)]
    definition = symbolic_forward(node.op, args, exact_params(node))
    groups = local.structure(definition, {s: (0, k) for k, s in enumerate(pool)}, active)
    # a flat index is linear in the multi-index: slice offsets plus batch offsets
    base = np.ravel_multi_index(np.unravel_index(np.arange(math.prod(one)), one), a.shape)
    shift = np.ravel_multi_index(np.unravel_index(np.arange(math.prod(batch)), batch), a.shape)
    full = []
    for g in groups:
        elements = (base[g.elements][None, :] + shift[:, None]).reshape(-1)
        flats = (base[g.flats][None, :, :] + shift[:, None, None]).reshape(-1, g.flats.shape[1])
        full.append(local.Group(g.template, elements, flats))
    return tuple(a.shape), full


_POOL: dict[int, list[Any]] = {}


def _fresh(i: int, size: int) -> list[Any]:
    """Symbols ``_v{i}_0 ...`` for the elements of a node's input ``i`` (made once per process:
    a real symbol costs sympy a tenth of a millisecond)."""
    pool = _POOL.setdefault(i, [])
    while len(pool) < size:
        pool.append(sympy.Symbol(f"_v{i}_{len(pool)}", real=True))
    return pool[:size]


def _custom_elementwise(node: Node, values: list[np.ndarray | None], floating: list[bool],
                        active: list[bool]) -> tuple[tuple[int, ...], list[Any]] | None:
    """A custom Function that computes elementwise, as its groups (None otherwise).

    Its forward is user code: it is run on one element's symbols, and the expression it gives
    must reproduce the numeric forward on every element at the recorded inputs and at two
    random points (a randomized identity test); otherwise the Function is lowered whole."""
    if getattr(node.op.node_class, "_forward_cls", None) is None or not any(floating) \
            or any(v is not None and not f for v, f in zip(values, floating, strict=True)):
        return None
    try:
        shape = np.broadcast_shapes(*[v.shape for v in values if v is not None])
        params = node.params or {}
        reference = np.asarray(node.op.forward(numeric_xp, *node.values, **params))
        if reference.shape != shape or math.prod(shape) < 2:
            return None
        found = _elementwise_groups(node, values, floating, active)
        inputs = [i for i, f in enumerate(floating) if f]
        symbols = local.canonical(len(inputs))
        probe = np.asarray(symbolic_forward(node.op, [
            np.array(symbols[inputs.index(i)], dtype=object).view(sx.Expressions)
            if floating[i] else v for i, v in enumerate(node.values)], exact_params(node)))
        function = sympy.lambdify(symbols, probe.reshape(-1)[0],
                                  modules=local.NUMPY)
        rng = np.random.default_rng(0)
        for attempt in range(3):
            points = [np.asarray(values[i]) if attempt == 0 else
                      np.asarray(values[i]) + rng.standard_normal(values[i].shape) * 0.1
                      for i in inputs]
            expected = reference if attempt == 0 else np.asarray(node.op.forward(
                numeric_xp, *[points[inputs.index(i)].astype(np.asarray(v).dtype)
                              if floating[i] else v for i, v in enumerate(node.values)],
                **params))
            with np.errstate(all="ignore"):
                got = np.broadcast_to(function(*[np.broadcast_to(p, shape) for p in points]),
                                      shape)
            if not np.allclose(got, expected, rtol=1e-9, atol=1e-12, equal_nan=True):
                return None
        return found
    except Exception:  # noqa: BLE001 - anything unexpected: lower it whole
        return None


def _elementwise(node: Node, values: list[np.ndarray | None]) -> bool:
    """Whether ``node`` is an op of the elementwise family whose tensor inputs broadcast to its
    output: its elements are one expression of the corresponding input elements."""
    if getattr(node.op.forward, "__module__", None) != "symgrad.ops.elementwise":
        return False
    shapes = [v.shape for v in values if v is not None]
    try:
        out = np.shape(node.op.forward(numeric_xp, *node.values, **(node.params or {})))
        return bool(shapes) and np.broadcast_shapes(*shapes) == out
    except Exception:  # noqa: BLE001 - not replayable here: the general path decides
        return False


def _elementwise_groups(node: Node, values: list[np.ndarray | None], floating: list[bool],
                        active: list[bool]) -> tuple[tuple[int, ...], list[Any]]:
    """An elementwise node's groups: the op run once on canonical symbols per combination of
    its non-float operands' values (a mask's True and False)."""
    shape = np.broadcast_shapes(*[v.shape for v in values if v is not None])
    inputs = tuple(i for i, f in enumerate(floating) if f)
    size = math.prod(shape)
    flats = np.stack([np.broadcast_to(np.arange(values[i].size).reshape(values[i].shape),
                                      shape).reshape(-1) for i in inputs], axis=1) \
        if inputs else np.zeros((size, 0), dtype=np.int64)
    others = [i for i, v in enumerate(values) if v is not None and not floating[i]]
    if others:
        stacked = np.stack([np.broadcast_to(values[i], shape).reshape(-1) for i in others], 1)
        combos, keys = np.unique(stacked, axis=0, return_inverse=True)
    else:
        combos, keys = np.zeros((1, 0)), np.zeros(size, dtype=np.int64)
    symbols = local.canonical(len(inputs))
    params = exact_params(node)
    expressions = []
    for combo in combos:
        args: list[Any] = []
        given = dict(zip(others, combo, strict=True))
        for i, (raw, value) in enumerate(zip(node.inputs, node.values, strict=True)):
            if i in inputs:
                args.append(np.array(symbols[inputs.index(i)], dtype=object).view(sx.Expressions))
            elif i in given:
                args.append(exact_operand(raw, np.asarray(given[i], dtype=values[i].dtype)))
            else:
                args.append(exact_operand(raw, value))
        expressions.append(np.asarray(symbolic_forward(node.op, args, params)).reshape(-1)[0])
    return tuple(shape), local.elementwise_structure(
        expressions, np.asarray(keys).reshape(-1), flats, inputs, active)


def _reduce_to(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """``array`` summed over the dims broadcasting added to ``shape`` (None if it cannot
    broadcast to ``shape``'s broadcast); written here so the check shares no helper with the
    engine."""
    array = np.asarray(array)
    if array.shape == tuple(shape):
        return array
    if array.size == math.prod(shape) and array.ndim == 0:
        return array.reshape(shape)
    extra = array.ndim - len(shape)
    if extra < 0:
        return None
    for a, s in zip(array.shape[extra:], shape, strict=True):
        if a != s and s != 1:
            return None
    summed = array.sum(axis=tuple(range(extra))) if extra else array
    dims = tuple(d for d, (a, s) in enumerate(zip(summed.shape, shape, strict=True))
                 if s == 1 and a != 1)
    return summed.sum(axis=dims, keepdims=True) if dims else summed


# --- tasks (run anywhere: they take and return plain data) ------------------------------------


def node_task(node: local.LocalNode, g: np.ndarray) -> list[np.ndarray | None]:
    """sympy's VJP of one node at a cotangent, in float64."""
    return local.vjp(node, g)


def leaf_task(graph: Graph, items: list[tuple[int, int]]) -> list[int | float]:
    """sympy's derivative of the output at each ``(leaf, flat index)``, exact (see
    :class:`~symgrad.symbolic.local.Reverse`; the same numbers wherever computed)."""
    wanted = _wanted(items)
    values = local.Reverse(graph.nodes, graph.seed, graph.root).gradients(wanted)
    return [values[item] for item in items]


def _wanted(items: list[tuple[int, int]]) -> dict[int, list[int]]:
    wanted: dict[int, list[int]] = {}
    for s, k in items:
        wanted.setdefault(s, []).append(k)
    return wanted


def exact_and_nodes(graph: Graph, items: list[tuple[int, int]], node_tasks: list,
                    executor: Executor | None, desc: str, progress: bool | None
                    ) -> tuple[list[int | float], list[Any]]:
    """The exact gradients at ``items`` (:func:`leaf_task`) and the results of
    ``node_tasks``, in their order.

    Serially, one sweep evaluates what it needs as it goes. On an ``executor``, the node tasks
    and the sweep's transcendental rows (:meth:`~symgrad.symbolic.local.Reverse.row_plan`, in
    chunks of about equal cost, a few per worker) are spread over the workers, each task
    shipping one template and the floats it reads; the sweep itself, integer sums, runs here.
    Every number is computed by the same code from the same inputs either way, so the results
    are the serial ones, bit for bit.
    """
    if executor is None:
        results = run([(leaf_task, (graph, items)), *node_tasks], None, desc, progress)
        return results[0], results[1:]
    reverse = local.Reverse(graph.nodes, graph.seed, graph.root)
    wanted = _wanted(items)
    plan = reverse.row_plan(wanted)
    cost = sum(len(rows) * len(graph.nodes[n].groups[gi].template.partials)
               for n, gi, rows in plan)
    per_task = max(256, cost // (3 * workers(executor)) + 1)
    row_tasks, keys = [], []
    for n, gi, rows in plan:
        t = graph.nodes[n].groups[gi].template
        step = max(1, per_task // max(1, len(t.partials)))
        for start in range(0, len(rows), step):
            chunk = rows[start:start + step]
            row_tasks.append((local.partial_rows, (t, reverse.row_arguments(n, gi, chunk))))
            keys.append((n, gi, chunk))
    results = run([*node_tasks, *row_tasks], executor, desc, progress)
    for (n, gi, chunk), values in zip(keys, results[len(node_tasks):], strict=True):
        reverse.install(n, gi, chunk, values)
    values = reverse.gradients(wanted)
    return [values[item] for item in items], results[:len(node_tasks)]


class Shared:
    """``value`` for tasks on several workers: pickled once here, sent as bytes under their
    digest and unpickled once per worker process (sympy rebuilds each expression it
    unpickles: a task per chunk would pay that per chunk).

    >>> Shared([1, 2]).value
    [1, 2]
    """

    def __init__(self, value: Any) -> None:
        self.value = value
        self._packed: tuple[str, bytes] | None = None

    def __reduce__(self) -> tuple[Any, tuple]:
        if self._packed is None:
            payload = pickle.dumps(self.value, protocol=pickle.HIGHEST_PROTOCOL)
            self._packed = (hashlib.sha256(payload).hexdigest(), payload)
        return _received, self._packed


_RECEIVED: OrderedDict[str, Shared] = OrderedDict()


def _received(digest: str, payload: bytes) -> Shared:
    """A :class:`Shared` in a worker: the one already unpickled in this process, if any."""
    found = _RECEIVED.get(digest)
    if found is None:
        found = _RECEIVED[digest] = Shared(pickle.loads(payload))  # noqa: S301
        while len(_RECEIVED) > 4:  # the last few checks' values, not every one
            _RECEIVED.popitem(last=False)
    return found


def workers(executor: Executor) -> int:
    """How many tasks ``executor`` runs at once: a process or thread pool's workers, a Dask
    client's threads (2 when it does not say)."""
    found = getattr(executor, "_max_workers", None)
    if found is None:
        client = getattr(executor, "_client", None)
        try:
            found = sum(client.nthreads().values()) if client is not None else None
        except Exception:  # noqa: BLE001 - a client that cannot say
            found = None
    return max(1, int(found or 2))


def run(tasks: Sequence[tuple[Any, tuple]], executor: Executor | None, desc: str,
        progress: bool | None) -> list[Any]:
    """``[function(*args)]`` for the tasks, on ``executor`` when given, in task order."""
    results: list[Any] = []
    with Progress(len(tasks), desc, progress) as bar:
        if executor is None:
            for function, args in tasks:
                results.append(function(*args))
                bar.update()
        else:
            futures = [executor.submit(function, *args) for function, args in tasks]
            for future in futures:
                results.append(future.result())
                bar.update()
    return results


__all__ = ["LOWERING_BUDGET", "Graph", "Shared", "build", "exact_and_nodes", "leaf_task",
           "lowering_size", "node_task", "run", "workers"]
