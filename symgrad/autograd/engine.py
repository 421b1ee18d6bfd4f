"""The reverse pass: an iterative walk of the recorded graph in dependency order.

Each node runs once, after every gradient flowing into it has arrived. Nothing is written to any
tensor until the whole pass has succeeded, so a backward that fails (a modified saved value, a
freed graph, a hook that raises, a NaN in anomaly mode) leaves every ``.grad`` as it was.

Plain nodes take an inlined fast path; a node with hooks, retained grad or a freed graph has its
``special`` flag set, and such nodes (all nodes in anomaly mode) go through :func:`_run_node`.

A gradient may be *undefined* (None), as in PyTorch: a custom Function's backward returns None
for an input, or a hook drops a gradient. It is not replaced by zeros: it adds nothing where
other paths give a gradient, and a target that only undefined gradients reach still runs, with
None. A leaf then keeps its ``.grad`` (``autograd.grad`` reports it unused), every hook is called
with None (and may not replace it), an op's node passes None on without calling its VJP rules,
and a custom Function's node calls its backward with zeros (None after
``set_materialize_grads(False)``). A registry op's joint VJP giving None still means zeros.
"""

from __future__ import annotations

import re
import sys
import threading
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.autograd import anomaly
from symgrad.autograd import graph as _graph
from symgrad.autograd import tensor_namespace as differentiable
from symgrad.autograd.grad_mode import _mode, set_recording
from symgrad.autograd.graph import DROPPED as _DROPPED
from symgrad.autograd.graph import FREED_GRAPH, Node, _rules, runs_custom_backward
from symgrad.dispatch import _edge
from symgrad.numeric import numpy_namespace as numeric_xp
from symgrad.tensor import Tensor, _make, _torch_size, counter_of


def _short_name(node: Node) -> str:
    """The node's name as PyTorch's version-check message spells it: ExpBackward0 -> Exp,
    PowBackward1 -> Pow1, CopySlices -> symgrad::autograd::CopySlices."""
    name = type(node).__name__
    if "Backward" not in name or name == "CopyBackwards":
        return f"symgrad::autograd::{name}"
    return re.sub(r"Backward0$", "", name).replace("Backward", "")


def _modified_error(value: Any, version: int, expected: int, node: Any) -> RuntimeError:
    owner = f", which is output 0 of {_short_name(node)}," if isinstance(node, Node) else ""
    kind = f"symgrad.{value.dtype._torch_name}Tensor" if isinstance(value, Tensor) else "tensor"
    shape = _torch_size(np.shape(value._value if isinstance(value, Tensor) else value))
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{kind} {shape}]{owner} is at version {version}; expected version "
        f"{expected} instead. Hint: the saved value was changed in place after the operation "
        "that needs it; use .clone() before the in-place change, or change it out of place."
    )


def _holds_saved_values(node: Node) -> bool:
    """Whether backward of ``node`` reads values that a non-retained pass frees (PyTorch raises
    on a second pass only through such nodes: ``(a + b).sum()`` may be run backward twice)."""
    op = node.op
    if node.saved or op.saves_output or op.saves_params:
        return True
    return any(isinstance(p, np.ndarray) or (isinstance(p, tuple) and any(
        isinstance(q, np.ndarray) for q in p)) for p in (node.params or {}).values())


def _check_saved(node: Node) -> None:
    """Raise PyTorch's error when a value this node's backward reads changed in place."""
    inputs, versions = node.inputs, node.versions
    for k, i in enumerate(node.saved):
        expected = versions[k] if versions.__class__ is tuple else 0
        counter = getattr(inputs[i], "_counter", None)
        version = 0 if counter is None else counter.value
        if version != expected:
            # PyTorch names the tensor's current producer (after in-place changes, the last one)
            raise _modified_error(inputs[i], version, expected, inputs[i].grad_fn)
    counter = node.out_version
    if counter is not None and counter.value != node.out_version_value:
        out = _make(node.ans)
        raise _modified_error(out, counter.value, node.out_version_value, node)


def _collect(roots: Sequence[Any], list_nodes: bool = True) -> tuple[dict[Any, int], list[Any]]:
    """Count the edges into every target reachable from ``roots``; also list the nodes (only
    the roots unless ``list_nodes``)."""
    dependencies: dict[Any, int] = {}
    nodes = [r for r in dict.fromkeys(roots) if isinstance(r, Node)]
    # a root reached from another root is not walked twice (one root: no node reaches it)
    root_set = set(nodes) if len(nodes) > 1 else ()
    stack = list(nodes)
    get, pop, push = dependencies.get, stack.pop, stack.append
    found = nodes.append if list_nodes else None
    while stack:
        for target in pop().next:
            if target is not None:
                count = get(target)
                if count is None:
                    dependencies[target] = 1
                    if not isinstance(target, Tensor) and target not in root_set:
                        push(target)
                        if found is not None:
                            found(target)
                else:
                    dependencies[target] = count + 1
    return dependencies, nodes


def _useful(nodes: list[Node], dependencies: dict[Any, int], wanted: set[Any]) -> set[Any]:
    """The targets from which some wanted target can be reached (they must run)."""
    # reverse topological order: a node comes after every node that feeds it
    order = _topological(nodes, dependencies)
    useful = set(wanted)
    for node in reversed(order):
        if node in useful or any(t in useful for t in node.next if t is not None):
            useful.add(node)
    return useful


def _topological(nodes: list[Node], dependencies: dict[Any, int]) -> list[Node]:
    remaining = {n: dependencies.get(n, 0) for n in nodes}
    ready = [n for n in nodes if remaining[n] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for target in node.next:
            if isinstance(target, Node):
                remaining[target] -= 1
                if remaining[target] == 0:
                    ready.append(target)
    return order


def _reduce_to(g: Tensor, like: Any) -> Tensor:
    """The one broadcasting rule, differentiably: sum a cotangent back to its input's shape and
    dtype (the numeric engine loop inlines the same rule on arrays)."""
    shape = like._value.shape
    if g._value.shape != shape:
        g = differentiable.sum_to_shape(g, shape)
    if g._value.dtype != like._value.dtype:
        g = g._cast(like.dtype)
    return g


def _as_tensor(g: Any) -> Tensor | None:
    return g if g is None or isinstance(g, Tensor) else _make(g)


_REPLACED_NONE = "can't replace a None gradient with a non-None value"


def _hook_name(hook: Any) -> str:
    return getattr(hook, "__name__", type(hook).__name__)


def _checked(hook: Any, result: Any, before: Any, create_graph: bool) -> Any:
    """A gradient a hook returned in place of ``before``, checked as PyTorch does (a Tensor of
    the same size and dtype) and in the pass's form (a Tensor with create_graph, else an
    array)."""
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    before = before._value if isinstance(before, Tensor) else before
    if result._value.shape != before.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    if result._value.dtype != before.dtype:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"{_make(before).type()} got {result.type()})")
    return result if create_graph else result._value


def _run_hooks(hooks: dict, g: Any, create_graph: bool) -> Any:
    """Tensor hooks, in registration order: each sees the previous one's gradient (None when it
    is undefined, which a hook may not replace)."""
    for hook in list(hooks.values()):
        result = hook(_as_tensor(g))
        if result is not None:
            if g is None:
                raise RuntimeError(_REPLACED_NONE)
            g = _checked(hook, result, g, create_graph)
    return g


def _run_tuple_hooks(hooks: dict, grads: list, create_graph: bool, *extra: Any) -> list:
    """Node hooks, in registration order: ``hook(grads, *extra)`` (a pre-hook gets the
    gradients of the node's output, a post-hook those of its inputs and then of its output);
    a returned tuple replaces ``grads`` (None: no gradient)."""
    for hook in list(hooks.values()):
        result = hook(tuple(None if g is None else _as_tensor(g) for g in grads), *extra)
        if result is None:
            continue
        if not isinstance(result, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
        if len(result) != len(grads):
            raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                               f"values (got {len(result)}, but expected {len(grads)})")
        replaced = []
        for new, before in zip(result, grads, strict=True):
            if new is not None and before is None:
                if not isinstance(new, Tensor):
                    raise TypeError("expected Variable, but hook returned "
                                    f"'{type(new).__name__}'")
                raise RuntimeError(_REPLACED_NONE)
            replaced.append(None if new is None else _checked(hook, new, before, create_graph))
        grads = replaced
    return grads


def _input_grads(node: Node, g: Any, xp: Any, create_graph: bool, needs: list[bool]) -> list:
    """The gradient of each input of ``node`` for which ``needs`` is true and its rule gives one
    (None for the others), summed to its shape and cast to its dtype (the engine loop inlines
    the same steps). ``g`` may be None (undefined) only when it runs a custom backward."""
    op, params = node.op, node.params or {}
    if create_graph:
        inputs = values = node.inputs
        ans = _make(node.ans, node, True)
    else:
        values, ans = node.values, node.ans
    joint = op.joint_vjp
    if joint is not None:
        joint = joint(xp, g, ans, tuple(needs), *values, **params)
    results = []
    for i, need in enumerate(needs):
        if not need:
            results.append(None)
            continue
        if joint is None:
            gi = op.vjp[i](xp, g, ans, *values, **params)
        else:
            gi = joint[i]
            if gi is None:
                if runs_custom_backward(node):  # undefined: no gradient for this input
                    results.append(None)
                    continue
                gi = xp.zeros_like(values[i])  # a registry op's None: zeros
        if _shape_of(gi) != _shape_of(values[i]):
            gi = _fit(node, i, gi, values[i])
        if create_graph:
            gi = _reduce_to(gi, inputs[i])
        else:
            dtype = values[i].dtype if node.input_dtypes is None else node.input_dtypes[i]
            if gi.dtype != dtype:
                gi = gi.astype(dtype)
        results.append(gi)
    return results


def _run_node(node: Node, g: Any, xp: Any, create_graph: bool, useful: set | None,
              anomalous: bool, check_nan: bool) -> list:
    """Run ``node`` the careful way: its pre-hooks, its VJP rules, its post-hooks and, in
    anomaly mode, the NaN check. One gradient (or None) per entry of ``node.next``. ``g`` may
    be None (undefined): the hooks see None, and only a custom Function's backward runs."""
    edges = node.next
    needs = [nxt is not None and (useful is None or nxt in useful) for nxt in edges]
    if not any(needs):  # reached only to be captured: PyTorch does not run it
        return [None] * len(edges)
    if node.pre_hooks:
        g = _run_tuple_hooks(node.pre_hooks, [g], create_graph)[0]
    if g is None and not runs_custom_backward(node):
        results = [None] * len(edges)
    elif anomalous:  # nodes recorded by these rules (create_graph) remember this one
        parent, anomaly._state.parent = anomaly._state.parent, node
        try:
            results = _input_grads(node, g, xp, create_graph, needs)
        finally:
            anomaly._state.parent = parent
    else:
        results = _input_grads(node, g, xp, create_graph, needs)
    if node.post_hooks or check_nan:
        # the outputs as PyTorch numbers them: the next_functions entries
        shown = [i for i, rule in enumerate(_rules(node.op, edges)) if rule is not None]
        if node.post_hooks:
            hooked = _run_tuple_hooks(node.post_hooks, [results[i] for i in shown],
                                      create_graph, (_as_tensor(g),))
            for i, gi in zip(shown, hooked, strict=True):
                results[i] = gi
        if check_nan:
            for k, i in enumerate(shown):
                gi = results[i]
                if gi is not None and np.isnan(gi._value if isinstance(gi, Tensor) else gi).any():
                    raise anomaly.nan_error(node, k)
    return results


def _distribute(node: Node, results: list, p: _Pass) -> None:
    """Pass the gradients ``node`` computed on to its inputs' targets (None, undefined, adds
    nothing but counts as arrived)."""
    grads, dependencies, useful, counted = p.grads, p.dependencies, p.useful, p.counted
    for nxt, gi in zip(node.next, results, strict=True):
        if nxt is None or (useful is not None and nxt not in useful):
            continue
        if gi is not None:
            earlier = grads.get(nxt)
            if earlier.__class__ is _Parts:  # (a leaf's gradients so far: see _run)
                earlier = _sum_parts(earlier)
            grads[nxt] = gi if earlier is None else earlier + gi
        if counted:  # (see _run)
            if isinstance(nxt, Tensor):
                continue
            left = dependencies.get(nxt, nxt.uses) - 1
            if left == 0:
                dependencies.pop(nxt, None)
                p.ready.append(nxt)
            else:
                dependencies[nxt] = left
            continue
        left = dependencies[nxt] - 1
        dependencies[nxt] = left
        if left == 0:
            p.ready.append(nxt)


_WALK_AFTER_RESTART = 64
_walk_first = 0  # passes left that walk the graph first: a pass had to start over (_recount)


def _recount(p: _Pass) -> None:
    """Leave the counted way (see _run), where nodes wait for gradients from uses outside this
    graph. Unless user code ran (a hook, a custom Function's backward), the pass starts over,
    counting exactly, so that it runs the nodes and sums their gradients in the same order as
    a pass that counts from the start (floating-point sums depend on it). Else the waiting nodes
    get their exact counts (those of the nodes they reach too, by a walk of the rest of the
    graph), and those that nothing left reaches are ready."""
    if not p.observed:
        global _walk_first
        _walk_first = _WALK_AFTER_RESTART  # (the next passes likely have such uses too)
        root, g = p.seed
        p.grads.clear()
        p.grads[root] = g
        p.processed.clear()
        p.held.clear()
        p.retained.clear()
        p.dependencies, _ = _collect([root], False)
        p.ready.append(root)
    else:
        for leaf, g in p.grads.items():  # (the counted way's parts of a leaf's gradient: see _run)
            if g.__class__ is _Parts:
                p.grads[leaf] = _sum_parts(g)
        waiting = list(p.dependencies)
        p.dependencies, _ = _collect(waiting, False)
        p.ready.extend(node for node in waiting if node not in p.dependencies)
    p.counted = False


def _after_accumulation(tensor: Tensor, g: Any) -> None:
    """A leaf's post-accumulate-grad hooks, then its AccumulateGrad's post-hooks (also run when
    its gradient was undefined, ``g`` None, and nothing was accumulated)."""
    hooks = tensor._leaf_hooks
    for hook in list(hooks.post_accumulate.values()):
        if hook(tensor) is not None:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
    if hooks.post:
        _run_tuple_hooks(hooks.post, [], False, (_as_tensor(g),))


class _Pass:
    """The state of one reverse pass: what is pending, what it found, how it runs."""

    __slots__ = ("grads", "dependencies", "ready", "useful", "wanted", "capture",
                 "accumulate_into", "create_graph", "xp", "anomalous", "check_nan", "captured",
                 "leaf_grads", "retained", "processed", "held", "hooked_leaves", "node",
                 "counted", "seed", "observed", "mode", "leaves_in_grads")

    def __init__(self, capture: Sequence[Any] | None, accumulate_into: set[Any] | None,
                 create_graph: bool) -> None:
        self.capture = capture
        self.accumulate_into = accumulate_into
        self.wanted = set(capture) if capture is not None else accumulate_into
        self.create_graph = create_graph
        self.xp = differentiable if create_graph else numeric_xp
        # (a thread-local read only while some thread has anomaly mode on)
        self.anomalous = anomalous = _graph._anomaly_threads > 0 and anomaly._state.enabled
        self.check_nan = anomalous and anomaly._state.check_nan
        self.grads: dict[Any, Any] = {}
        self.captured: dict[Any, Any] = {}
        self.leaf_grads: list[tuple[Tensor, Any]] = []
        self.retained: list[tuple[Tensor, Any]] = []
        self.processed: list[Node] = []
        self.held: list[Node] = []  # those of them that hold a large value (see _release)
        self.hooked_leaves: list[tuple[Tensor, Any]] = []  # to run after accumulation
        self.node: Node | None = None  # the node running (for anomaly mode's report)
        self.counted = False  # whether nodes run after their recorded uses (see _run)
        self.seed: tuple[Any, Any] | None = None  # a counted pass's root and its gradient
        self.observed = False  # whether user code ran (hooks, custom backward: see _recount)
        # the grad mode to restore at the end, None while the pass has not switched it (a plain
        # pass, backward_root, switches it only before user code runs: see _run_careful)
        self.mode: bool | None = None
        self.leaves_in_grads = False  # whether the leaves' gradients are left in grads (_run)


def execute(
    roots: Sequence[Tensor],
    root_grads: Sequence[Any],
    *,
    keep_graph: bool,
    create_graph: bool,
    capture: Sequence[Any] | None = None,
    accumulate_into: set[Any] | None = None,
) -> dict[Any, Any]:
    """Run the reverse pass from ``roots`` seeded with ``root_grads``.

    Without ``capture`` the gradients reaching leaves are accumulated into their ``.grad`` (only
    those in ``accumulate_into`` when given). With ``capture`` (targets: nodes or leaf tensors)
    their incoming gradients are returned instead and nothing is accumulated.
    ``accumulate_into`` holds the targets (nodes or leaves) of ``backward(inputs=...)``; the
    non-leaf ones receive their gradient through ``retain_grad``.
    """
    p = _Pass(capture, accumulate_into, create_graph)
    global _walk_first
    # (``hooked_leaves.data``: its dict, read without the weak dictionary's Python __len__; a
    # dead leaf not yet removed from it only makes the pass walk the graph first)
    counted = len(roots) == 1 and p.wanted is None and not (create_graph or p.anomalous
                                                            or _graph.hooked_leaves.data)
    if counted and _walk_first:  # (a recent pass had to start over: see _recount)
        _walk_first -= 1
        counted = False
    if counted:  # (no walk of the graph: see _run)
        target = _edge(roots[0])
        p.dependencies, p.useful, p.counted = {}, None, True
        p.seed = (target, root_grads[0])
        p.grads[target] = root_grads[0]
        p.ready = [target]
    else:
        targets = [_edge(r) for r in roots]
        p.dependencies, nodes = _collect(targets, p.wanted is not None)
        p.useful = _useful(nodes, p.dependencies, p.wanted) if p.wanted is not None else None
        del nodes
        grads = p.grads
        for target, g in zip(targets, root_grads, strict=True):
            grads[target] = grads[target] + g if target in grads else g
        p.ready = [t for t in dict.fromkeys(targets) if p.dependencies.get(t, 0) == 0]
    # the pass records only with create_graph; PyTorch is silent about inf and nan in
    # gradients (a sqrt at 0, say), and so is the pass
    p.mode = previous_mode = _mode.enabled
    set_recording(create_graph)
    quiet = numeric_xp.silence()
    try:
        _run(p)
    except BaseException:
        if p.anomalous and p.node is not None:
            anomaly.warn_error_in(p.node)
        raise
    finally:
        numeric_xp.restore(quiet)
        set_recording(previous_mode)
    _commit(p, keep_graph)
    return p.captured


def implicit_seed(out: Tensor) -> np.ndarray:
    """The gradient of ``out`` when none is given: a fresh 1 of its dtype; PyTorch's errors
    when ``out`` is not a real one-element tensor."""
    value = out._value
    if value.size != 1:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if value.dtype.kind != "f":
        raise RuntimeError("grad can be implicitly created only for real scalar outputs")
    # (np.array of a 0-d one: a quarter of np.ones's time, a fresh writeable array too)
    return np.ones(value.shape, value.dtype) if value.ndim else np.array(1, value.dtype)


NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"


def backward_root(root: Tensor) -> None:
    """``root.backward()`` without arguments, the commonest call: :func:`execute` for one root
    seeded with 1, the graph freed, without what such a pass does not use. When no leaf has
    hooks, anomaly mode is off and the graph need not be walked first (see :func:`_run`), the
    pass is built here, leaves the grad mode as it is until user code runs (a node's hook, a
    custom Function's backward: see :func:`_run_careful`) and takes the leaves' gradients from
    its ``grads`` when it commits; else it is :func:`execute`'s.

    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> backward_root((x * x).sum())
    >>> x.grad
    tensor([2., 4.])
    """
    if not root._requires_grad:
        raise RuntimeError(NO_GRAD_FN.format(0))
    seed = implicit_seed(root)
    if _walk_first or _graph._anomaly_threads or _graph.hooked_leaves.data:
        execute((root,), (seed,), keep_graph=False, create_graph=False)
        return
    target = root.grad_fn if root._base is None else _edge(root)  # (_edge, inlined)
    if target is None:
        target = root
    p = _Pass(None, None, False)
    p.grads[target] = seed
    p.dependencies, p.useful, p.counted = {}, None, True
    p.seed = (target, seed)
    p.ready = [target]
    quiet = numeric_xp.silence()  # (PyTorch is silent about inf and nan in gradients)
    try:
        _run(p)
    finally:
        numeric_xp.restore(quiet)
        if p.mode is not None:
            set_recording(p.mode)
    _commit(p, False)


def _run(p: _Pass) -> None:
    """The loop of the pass: each target runs once all its gradients have arrived. Plain nodes
    (the hot path) are inlined; leaves and careful nodes go through helpers.

    Counted (``p.counted``: one root, all leaves wanted, none hooked, no anomaly mode nor
    create_graph), the graph is not walked first: a node runs once it has a gradient from each
    of its recorded uses (``Node.uses``), and the leaves, complete only at the end, are reached
    then (nothing can tell when: they have no hooks). A node some of whose uses lie outside
    this graph waits; when only such nodes are left, the pass counts exactly (_recount)."""
    grads, dependencies, ready, useful = p.grads, p.dependencies, p.ready, p.useful
    counted = deferred = p.counted
    careful = p.anomalous or p.create_graph
    capturing = p.capture is not None
    wanted = p.wanted
    processed, hold = p.processed.append, p.held.append
    xp = numeric_xp
    plain_classes = _graph._plain_classes
    pop, push, take, get = ready.pop, ready.append, grads.pop, grads.get
    # ``target``: the next to run, when it is known without the ready stack (the last target a
    # node made ready, with its only gradient ``g_next``: what the stack would give next)
    target = g_next = None
    while True:
        if target is None:
            if not ready:
                if counted and dependencies:
                    _recount(p)
                    counted, dependencies = False, p.dependencies
                    deferred = p.observed
                    continue
                break
            target = pop()
            g = take(target, None)
            if isinstance(target, Tensor):  # a leaf (g None: its gradient is undefined)
                _reach_leaf(p, target, g)
                target = None
                continue
        else:
            g = g_next
            if not counted and isinstance(target, Tensor):  # (counted: leaves wait for the end)
                _reach_leaf(p, target, g)
                target = None
                continue
        node = target
        target = None
        # carefully: hooked, retaining or freed nodes and those of ops whose input gradients
        # come from one joint call (special), in anomaly mode or with create_graph, and when no
        # gradient reached it (undefined: it still runs)
        special = node.special
        if special or careful or g is None:
            p.node = node
            _run_careful(p, node, g)
            continue
        # (changed since it was made? A node that saved nothing was given the epoch too)
        if node.versions is not _graph._epoch and node.saved:
            _check_versions(node)
        # (one watching its output's version counter, out_version, is special: see Node)
        processed(node)
        if capturing and node in wanted:
            p.captured[node] = g
        values, ans, op = node.values, node.ans, node.op
        vjp = op.vjp
        forms = op.inline_vjp if vjp is op.inline_of else _CALLED  # (see Op.inline_vjp)
        if useful is not None and _holds_large(node):  # (edges not followed are not read)
            hold(node)
        # the rules are called with the values unpacked (a call with ``*values`` builds a tuple)
        # (a node that fits, Node.fits, has no params; its rules give each input's gradient
        # the input's shape and dtype, g having the output's: every node casts each input's
        # gradient to the input's dtype, as PyTorch does, and so does the seed)
        fits = special is None
        n = len(values) if fits or not node.params else 0
        if n == 1:
            a = values[0]
        elif n == 2:
            a, b = values
        i = -1
        for nxt in node.next:
            i += 1
            if nxt is None:
                continue
            if useful is not None and nxt not in useful:
                continue
            # (a rule of one of the simple forms, Op.inline_vjp: computed here, without a call)
            # (np.multiply itself: the same ufunc as ``*``, without the operator's checks)
            if n == 1:
                form = forms[0]
                gi = _multiply(g, ans) if form == 5 else xp.tanh_backward(g, ans) if form == 6 \
                    else vjp[0](xp, g, ans, a)
                value = a
            elif n == 2:
                form = forms[i]
                if not form:
                    gi = vjp[i](xp, g, ans, a, b)
                elif form == 1:
                    gi = g
                elif form == 4:
                    gi = _multiply(g, b)
                elif form == 3:
                    gi = _multiply(g, a)
                elif form == 2:
                    gi = -g
                else:
                    gi = _multiply(g, ans)
                value = b if i else a
            else:
                params, value = node.params, values[i]
                gi = vjp[i](xp, g, ans, *values, **params) if params else \
                    vjp[i](xp, g, ans, *values)
            if not fits:
                if gi.shape != value.shape:  # the broadcasting rule, inlined
                    gi = _fit(node, i, gi, value)
                if gi.dtype is not value.dtype and gi.dtype != value.dtype:
                    gi = gi.astype(value.dtype)
            if counted:
                # a leaf: at the end (type(): CPython caches __class__ for one class, and nodes
                # are of many; a registry op's node class is known without isinstance)
                kind = type(nxt)
                if kind is Tensor or kind not in plain_classes and isinstance(nxt, Tensor):
                    earlier = get(nxt)
                    if earlier is None:
                        grads[nxt] = gi
                    elif type(earlier) is _Parts:  # (small ones are summed at the end)
                        earlier.append(gi)
                        if len(earlier) == _PARTS_MAX:
                            grads[nxt] = _Parts((_sum_parts(earlier),))
                    elif gi.nbytes < _SUM_LATER_BELOW:
                        grads[nxt] = _Parts((earlier, gi))
                    else:
                        grads[nxt] = earlier + gi
                    continue
                if value.nbytes >= _KEEP_BELOW:  # (another node's value: _release frees it)
                    hold(node)
                uses = nxt.uses
                if uses == 1:  # its one gradient (no other is waiting: it runs next)
                    if target is not None:
                        grads[target] = g_next
                        push(target)
                    target, g_next = nxt, gi
                    continue
                left = dependencies.get(nxt, uses) - 1
                if not left:
                    del dependencies[nxt]
            else:
                if value.nbytes >= _KEEP_BELOW:  # (_release frees it, unless a leaf's)
                    hold(node)
                left = dependencies[nxt] - 1
            if left:  # more gradients to come
                dependencies[nxt] = left
                earlier = get(nxt)
                grads[nxt] = gi if earlier is None else earlier + gi
            else:  # its last one: it runs next, and one found before waits on the stack
                earlier = take(nxt, None)
                if target is not None:
                    grads[target] = g_next
                    push(target)
                target, g_next = nxt, gi if earlier is None else earlier + gi
    if deferred:  # the leaves' gradients are complete
        if not _graph.hooked_leaves.data:  # (none has hooks: _commit takes them from grads)
            for leaf, g in grads.items():
                if g.__class__ is _Parts:
                    grads[leaf] = _sum_parts(g)
            p.leaves_in_grads = True
            return
        for leaf, g in list(grads.items()):
            _reach_leaf(p, leaf, _sum_parts(g) if g.__class__ is _Parts else g)


_multiply = np.multiply
_CALLED = (0, 0)  # inline_vjp of an op whose rules changed since: every rule is called


class _Parts(list):
    """A leaf's gradients in a counted pass, in the order they came, while they are small: the
    pass sums them at the end (:func:`_sum_parts`)."""

    __slots__ = ()


_SUM_LATER_BELOW = 4096  # bytes: a leaf's smaller gradients are summed at the end of the pass
_PARTS_MAX = 1024  # (and then summed as they come, in batches of this many)


def _sum_parts(parts: list) -> Any:
    """``((parts[0] + parts[1]) + parts[2]) + ...``: the sum the pass would have made as the
    gradients came, in a few numpy calls instead of one per gradient (the running sums of
    numpy's ``add.accumulate`` over the stacked gradients are the same additions in the same
    order, hence the same bits)."""
    first = parts[0]
    if len(parts) > 3:
        try:
            stacked = np.concatenate(parts).reshape(len(parts), *first.shape) if first.ndim \
                else np.array(parts)
        except ValueError:  # (shapes that do not stack: added one by one)
            stacked = None
        # (a wider dtype later than the first: the first additions are narrower, one by one)
        if stacked is not None and stacked.dtype == first.dtype:
            total = np.add.accumulate(stacked, axis=0)[-1]
            return total.copy() if total.ndim else total
    total = first
    for g in parts[1:]:
        total = total + g
    return total


def _check_versions(node: Node) -> None:
    """Raise PyTorch's error when a saved input changed in place (inlined here for the common
    case: no input has a counter with changes)."""
    if node.versions.__class__ is tuple:
        _check_saved(node)
        return
    inputs = node.inputs
    for i in node.saved:
        counter = getattr(inputs[i], "_counter", None)
        if counter is not None and counter.value:
            _check_saved(node)


def _fit(node: Node, i: int, gi: Any, value: Any) -> Any:
    """Input ``i``'s gradient summed from the broadcast shape to the input's; a shape the
    input does not broadcast to is refused with PyTorch's message for an invalid gradient."""
    if gi.__class__ is np.ndarray and value.__class__ is np.ndarray:  # (the common case)
        shape, wanted = gi.shape, value.shape
        lead = len(shape) - len(wanted)
        if lead >= 0 and (shape[lead:] == wanted or all(
                s == t or s == 1 for s, t in zip(wanted, shape[lead:], strict=True))):
            return numeric_xp.sum_to_shape(gi, wanted)
    shape, wanted = _shape_of(gi), _shape_of(value)
    if not _expandable(wanted, shape):
        raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - "
                           f"got {_torch_size(shape)} but expected shape compatible with "
                           f"{_torch_size(wanted)}")
    if isinstance(gi, Tensor):
        return differentiable.sum_to_shape(gi, wanted)
    return numeric_xp.sum_to_shape(gi, wanted)


def _shape_of(value: Any) -> tuple[int, ...]:
    return value._value.shape if isinstance(value, Tensor) else np.shape(value)


def _expandable(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether ``shape`` broadcasts to ``target`` (a gradient may be given in a broadcast
    shape, which the engine sums back)."""
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(shape[::-1], target[::-1], strict=False))


def _reach_leaf(p: _Pass, tensor: Tensor, g: Any) -> None:
    """A leaf's gradient is complete: its hooks run, then it is captured or kept for
    accumulation (which happens only once the whole pass has succeeded)."""
    if tensor._hooks:
        p.node = None  # (for anomaly mode's report)
        g = _run_hooks(tensor._hooks, g, p.create_graph)
    if p.capture is not None:
        p.captured[tensor] = g
        return
    if p.accumulate_into is not None and tensor not in p.accumulate_into:
        return
    hooks = tensor._leaf_hooks
    if hooks is not None:  # its AccumulateGrad's or post-accumulate hooks
        p.node = None
        if hooks.pre:
            g = _run_tuple_hooks(hooks.pre, [g], p.create_graph)[0]
        if hooks.post or hooks.post_accumulate:
            p.hooked_leaves.append((tensor, g))
    if g is not None:
        p.leaf_grads.append((tensor, g))


def _run_careful(p: _Pass, node: Node, g: Any) -> None:
    """Run a node that is not plain: a freed graph's, hooked or retaining (``special``), in
    anomaly mode or with create_graph, one no gradient reached, or a joint-VJP op's."""
    if p.mode is None:  # (a plain pass: user code may run from here, without recording)
        p.mode = _mode.enabled
        set_recording(False)
    useful = p.useful
    if node.custom_backward or node.special and (node.tensor_hooks or node.pre_hooks
                                                  or node.post_hooks):
        p.observed = True  # (see _recount)
    if node.special:
        if node.freed and _holds_saved_values(node) and any(
                nxt is not None and (useful is None or nxt in useful)
                for nxt in node.next):  # (not when it is only captured)
            raise RuntimeError(FREED_GRAPH)
        if node.tensor_hooks:
            g = _run_hooks(node.tensor_hooks, g, p.create_graph)
        if node.retained is not None and g is not None:
            tensor = node.retained()
            if tensor is not None and tensor.grad_fn is node:
                p.retained.append((tensor, g))
    if node.saved:
        _check_versions(node)
    counter = node.out_version
    if counter is not None and counter.value != node.out_version_value:
        _check_saved(node)
    p.processed.append(node)
    if node.custom_backward or _holds_large(node):  # (see _release)
        p.held.append(node)
    if p.capture is not None and node in p.wanted:
        p.captured[node] = g
    custom = node.custom_backward
    if custom:  # (what its backward may ask: see partial_pass)
        before, _custom.partial = getattr(_custom, "partial", False), p.wanted is not None
    try:
        results = _run_node(node, g, p.xp, p.create_graph, useful, p.anomalous, p.check_nan)
    finally:
        if custom:
            _custom.partial = before
    _distribute(node, results, p)


_custom = threading.local()  # per thread: whether the custom backward running is in a partial pass


def partial_pass() -> bool:
    """Whether the custom Function backward running on this thread runs in a pass that
    computes only some gradients (``autograd.grad``, ``backward(inputs=...)``): PyTorch's
    ``not torch.autograd._is_checkpoint_valid()``, which a reentrant checkpoint refuses."""
    return getattr(_custom, "partial", False)


_accumulation = threading.Lock()  # one backward at a time adds into .grad (atomic per leaf)
_acquire, _release_lock = _accumulation.acquire, _accumulation.release
_getrefcount = sys.getrefcount


def _commit(p: _Pass, keep_graph: bool) -> None:
    """The pass succeeded: now change state (accumulate into leaves and retained grads, free
    the graph unless it is kept, run post-accumulation hooks)."""
    create_graph = p.create_graph
    grads = p.grads
    if p.leaves_in_grads:  # (the leaves' gradients, taken from the end as from leaf_grads)
        leaf_grads, take = grads, grads.popitem
    else:
        grads.clear()  # drop the pass's references, so that fresh gradients can be taken over
        leaf_grads = p.leaf_grads
        take = leaf_grads.pop
    quiet = None  # numpy's error state silenced once some arithmetic is needed
    _acquire()  # (one backward at a time adds into .grad)
    try:
        while True:
            while leaf_grads:
                tensor, g = take()
                # a fresh array that nothing else references can become .grad without a copy
                # (PyTorch steals such buffers too); 2 = the local name + getrefcount's argument
                exclusive = g.__class__ is np.ndarray and g.base is None \
                    and _getrefcount(g) == 2
                if exclusive and tensor._grad is None and not create_graph and \
                        tensor._requires_grad and g.dtype is tensor._value.dtype and \
                        g.flags.writeable:  # (the common case of _accumulate, inlined)
                    tensor._grad = _make(g)
                    continue
                if quiet is None:  # (a cast or sum to inf is silent, as in the pass)
                    quiet = numeric_xp.silence()
                _accumulate(tensor, g, create_graph, exclusive)
            if leaf_grads is p.leaf_grads:
                break
            leaf_grads, take = p.leaf_grads, p.leaf_grads.pop  # (those reached in the loop)
        g = None
        if p.retained:
            if quiet is None:
                quiet = numeric_xp.silence()
            for tensor, g in p.retained:
                _accumulate(tensor, g, create_graph)
    finally:
        _release_lock()
        if quiet is not None:
            numeric_xp.restore(quiet)
    if not keep_graph:  # free what PyTorch frees
        _release(p.processed, p.held)
    for tensor, g in p.hooked_leaves:
        _after_accumulation(tensor, g)


_PLACEHOLDERS: dict[tuple, np.ndarray] = {}
_KEEP_BELOW = 512  # bytes: a smaller saved value costs less than its stand-in, and stays


def _placeholder(value: np.ndarray) -> np.ndarray:
    """A stand-in for a freed intermediate value: its shape and dtype (all that a node's
    rules read when they read no saved value), no data (read-only, zero strides)."""
    key = (value.shape, value.dtype)
    known = _PLACEHOLDERS.get(key)
    if known is None:
        if len(_PLACEHOLDERS) > 1024:
            _PLACEHOLDERS.clear()
        known = _PLACEHOLDERS[key] = np.broadcast_to(np.zeros((), value.dtype), value.shape)
    return known


def _release(nodes: list[Node], held: Sequence[Node] = ()) -> None:
    """Free what a backward without ``retain_graph`` frees in PyTorch (the caller drops the
    nodes' outputs): the intermediate values they saved. ``held``: those of the ``nodes`` that
    hold a large value (:func:`_holds_large`; the engine loop notes them as it reads their
    values), and the custom Functions' nodes (whose ctx goes too). An input computed by another
    node keeps its shape, dtype and producer (a placeholder value): a dropped one (see
    :attr:`Node.inputs`) gets its stand-in when asked, a kept one gets it now (see
    :func:`_stand_in`); the node that computed it drops its output too. (A small output stays:
    the inputs of the nodes that read it hold it anyway.) What lowering's replay reads stays: the
    graph, the leaves, the constants."""
    freed = _graph.FREED
    for node in nodes:
        node.special = freed
    for node in dict.fromkeys(held) if len(held) > 1 else held:  # (a node may be noted twice)
        if node.custom_backward:
            node.freed = True  # (its ctx's saved tensors go too)
        _release_values(node)


def _holds_large(node: Node) -> bool:
    """Whether ``node`` holds a value from another node that :func:`_release` frees (a small
    one costs less than its placeholder, and stays)."""
    i = -1
    for edge in node.next:
        i += 1
        if edge is not None and not isinstance(edge, Tensor):
            value = node.values[i]
            if value.__class__ is np.ndarray and value.nbytes >= _KEEP_BELOW:
                return True
    return False


def _release_values(node: Node) -> None:
    """The part of :func:`_release` for a node that holds a large value."""
    values = inputs = None
    i = -1
    for edge in node.next:
        i += 1
        if edge is None or isinstance(edge, Tensor):  # (a leaf's value stays)
            continue
        value = node.values[i]
        if value.__class__ is not np.ndarray or value.nbytes < _KEEP_BELOW:
            continue
        if values is None:
            values = list(node.values)
        if edge.special is _graph.FREED:  # (its producer, run by this pass: see _release)
            edge.ans = None
        if node._inputs[i] is _DROPPED:
            values[i] = _placeholder(value)
            continue
        if inputs is None:
            inputs = list(node._inputs)
        _stand_in(node._inputs, i, edge, values, inputs)
    if values is not None:
        node.values = tuple(values)
        if inputs is not None:
            node._inputs = tuple(inputs)


def _stand_in(raws: tuple, i: int, edge: Node, values: list[Any], inputs: list[Any]) -> None:
    """Replace the kept tensor ``raws[i]`` of a freed node in ``inputs`` by a stand-in: a
    tensor with a placeholder value (put into ``values``), the same producer and a weak
    reference to the tensor for naming; the same stand-in as at an earlier input when the
    node reads the tensor twice (``x * x``)."""
    raw = raws[i]  # (a Tensor: neither dropped nor, its edge being a node, AT_EDGE)
    for j in range(i):
        if raws[j] is raw and inputs[j] is not raw:
            values[i], inputs[i] = values[j], inputs[j]
            return
    values[i] = array = _placeholder(values[i])
    inputs[i] = stand_in = _make(array, edge, True)
    stand_in.__dict__["_stands_for"] = weakref.ref(raw)
    if raw._name is not None:
        stand_in.name = raw._name


_warned_create_graph = False


def _accumulate(tensor: Tensor, g: Any, create_graph: bool, exclusive: bool = False) -> None:
    """Add ``g`` into ``tensor.grad`` the way PyTorch's AccumulateGrad does."""
    if not tensor._requires_grad:
        return  # a leaf switched off with requires_grad_(False) after the graph was built
    dtype = tensor._value.dtype
    if create_graph:
        g = g if isinstance(g, Tensor) else _make(g)
        if g._value.dtype != dtype:
            g = g._cast(tensor.dtype)
        if tensor._grad is None:
            global _warned_create_graph
            if g._requires_grad and tensor.grad_fn is None and (
                    not _warned_create_graph or _graph.warn_always):
                _warned_create_graph = True  # once per process, as PyTorch
                warnings.warn(
                    "Using backward() with create_graph=True will create a reference cycle "
                    "between the parameter and its gradient which can cause a memory leak. We "
                    "recommend using autograd.grad when creating the graph to avoid this. If you "
                    "have to use this function, make sure to reset the .grad fields of your "
                    "parameters to None after use to break the cycle and avoid the leak.",
                    UserWarning, stacklevel=5)
            tensor._grad = g
        else:
            tensor._grad = tensor._grad + g
        return
    if isinstance(g, Tensor):
        g = g._value
    if tensor._grad is None:
        owned = exclusive and g.dtype == dtype and g.flags.writeable
        tensor._grad = _make(g if owned else np.array(g, dtype=dtype, copy=True))
    else:  # in place, as PyTorch does outside create_graph (a graph on .grad is kept)
        tensor._grad._value += g
        counter_of(tensor._grad).value += 1


def _call_node(self: Node, grad: Any) -> Any:
    """Apply this node's VJP to ``grad`` (a Tensor shaped like the output), as calling a
    PyTorch ``grad_fn`` does: the gradient of its one input, or a tuple with one gradient
    per differentiable input (None where an input needs none, or where a custom Function's
    backward gives none). With grad mode on, the results are recorded, so they can be
    differentiated again.

    >>> a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> b = symgrad.tensor([3.0, 4.0])
    >>> (a * b).grad_fn(symgrad.ones(2))
    (tensor([3., 4.]), None)
    """
    if self.freed and _holds_saved_values(self):
        raise RuntimeError(FREED_GRAPH)
    recording = _mode.enabled
    if recording:
        xp, g = differentiable, grad if isinstance(grad, Tensor) else _make(grad)
    else:
        xp, g = numeric_xp, grad._value if isinstance(grad, Tensor) else grad
    grads = _input_grads(self, g, xp, recording, [t is not None for t in self.next])
    # a where's condition (no rule) is not an input of the backward function
    results = [gi if gi is None or recording else _make(gi)
               for gi, rule in zip(grads, _rules(self.op, self.next), strict=True)
               if rule is not None]
    return results[0] if len(results) == 1 else tuple(results)


_call_node.__name__, _call_node.__qualname__ = "__call__", "Node.__call__"
Node.__call__ = _call_node  # type: ignore[method-assign] - see graph.Node
