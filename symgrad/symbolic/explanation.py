"""``explain``: where a NaN or infinite gradient comes from, and how to avoid it.

The numeric backward runs once more (on a retained or replayed graph, ``.grad`` untouched) with a
temporary hook on every node, which records the gradient each node received and the gradients it
passed on. From an input element whose gradient is not finite the non-finite values are followed
back toward the output, to the node that made them out of a finite incoming gradient: the
culprit. Its op and the values at the offending elements name the cause (0 times an infinite
derivative in the masked branch of a ``where``, a log or sqrt at 0, a division by zero, an
overflow, a NaN already in the forward). sympy's derivative of the lowered graph at the same
point (a ``where`` is a choice there, so its masked branch contributes exactly 0) says what the
gradient should have been, with the one-sided limits where it is undefined.
"""

from __future__ import annotations

import linecache
import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from symgrad.autograd import api
from symgrad.autograd.api import _seed_gradients
from symgrad.autograd.graph import Node, _rules
from symgrad.autograd.naming import caller_names, topological
from symgrad.numeric import numpy_namespace as numeric_xp
from symgrad.ops.record import Op, Singularity
from symgrad.symbolic.calculus import Chain, _inputs, as_gradient, seeds
from symgrad.symbolic.crosscheck import (
    _as_float,
    _index,
    _numeric_vjp,
    _one_sided,
    _Point,
    _tidy,
    live_graph,
)
from symgrad.symbolic.lowering import Lowered, Source, lower
from symgrad.tensor import Tensor

MAX_EXACT = 4  # input elements whose exact derivative (and one-sided limits) are computed
_MAX_LIMIT_OPS = 400  # larger gradient expressions get no one-sided limits (sympy.limit is slow)
_SHOWN = 6  # elements listed in the text


@dataclass
class Explanation:
    """What :func:`explain` found. ``finite`` says whether the gradient is finite everywhere
    (an Explanation is always truthy: test ``finite``).

    Otherwise ``input`` names the first input whose gradient is not finite, ``elements`` are
    the indices into it where it is not, ``numeric`` the engine's values there; ``exact`` is
    sympy's derivative at the first :data:`MAX_EXACT` of them (``nan``/``zoo`` where it is
    undefined) and ``one_sided`` its ``(left, right)`` limits there (None where the derivative
    is defined; a side is None where the forward leaves its real domain). ``node_name``,
    ``created_at`` and ``source`` name the node that first made a non-finite gradient and the
    line of user code that recorded it; ``cause`` is a short key (``"log at 0"``, ``"0*inf in
    masked where branch"`` ...), ``detail`` the values behind it, ``masked_by`` the node that
    zeroed the incoming gradient in the 0·∞ case, ``fix`` the standard remedy, and ``others``
    the other inputs whose gradient is not finite, with their elements.

    >>> x = symgrad.tensor([0.0, 4.0], requires_grad=True)
    >>> e = symgrad.symbolic.explain(x.sqrt().sum(), x)
    >>> e.finite, e.node_name, e.cause, e.elements, e.numeric
    (False, 'SqrtBackward0', 'sqrt at 0', [(0,)], [inf])
    >>> e.exact, e.one_sided
    ([zoo], [(None, oo)])
    """

    finite: bool
    output: str
    input: str
    elements: list[tuple[int, ...]] = field(default_factory=list)
    numeric: list[float] = field(default_factory=list)
    exact: list[Any] = field(default_factory=list)
    one_sided: list[tuple[Any, Any] | None] = field(default_factory=list)
    node_name: str | None = None
    created_at: str | None = None
    source: str | None = None
    cause: str | None = None
    detail: str = ""
    masked_by: str | None = None
    fix: str | None = None
    others: dict[str, list[tuple[int, ...]]] = field(default_factory=dict)

    def __str__(self) -> str:
        if self.finite:
            return (f"The gradient of {self.output} with respect to {self.input} is finite at "
                    "every element.")
        shown = ", ".join(f"{_number(v)} at {i}" for i, v in
                          zip(self.elements[:_SHOWN], self.numeric, strict=False))
        more = " ..." if len(self.elements) > _SHOWN else ""
        lines = [f"The gradient of {self.output} with respect to {self.input} is not finite at "
                 f"{len(self.elements)} element(s): {shown}{more}."]
        if self.node_name is not None:
            where = f", created at {self.created_at}" if self.created_at else ""
            lines.append(f"It starts at {self.node_name}{where}" + (":" if self.source else "."))
            if self.source:
                lines.append(f"    {self.source}")
        lines.append(f"Cause: {self.cause}. {self.detail}".rstrip())
        if self.exact:
            lines.append("Exact derivative (sympy, on the lowered graph): "
                         + "; ".join(_exact_text(i, e, s) for i, e, s in
                                     zip(self.elements, self.exact, self.one_sided,
                                         strict=False)) + ".")
            if self.cause == _MASKED and all(e == 0 for e in self.exact):
                lines.append("The masked branch contributes exactly 0; the numeric nan is "
                             "0 * inf, from evaluating that branch's derivative anyway.")
        for name, elements in self.others.items():
            more = " ..." if len(elements) > _SHOWN else ""
            lines.append(f"Also not finite: the gradient of {name} at "
                         f"{', '.join(map(str, elements[:_SHOWN]))}{more}.")
        if self.fix:
            lines.append("Fix: " + self.fix)
        return "\n".join(lines)

    __repr__ = __str__


def _number(value: float) -> str:
    return repr(float(value))


def _exact_text(index: tuple[int, ...], exact: Any, sides: tuple[Any, Any] | None) -> str:
    text = f"{exact} at {index}"
    if exact not in (sympy.zoo, sympy.nan) and exact.is_extended_real is False:
        return text + " (not real: the forward leaves its real domain there)"
    if sides is not None:
        if sides == (None, None):
            return text + " (undefined, and without one-sided limits)"
        left, right = ("none" if s is None else str(s) for s in sides)
        text += f" (undefined; left limit {left}, right limit {right})"
    return text


# --- running the numeric backward with a recorder on every node ----------------------------


@dataclass
class _Record:
    order: int  # when the node ran in the backward pass
    g: np.ndarray | None  # the gradient it received
    grads: dict[int, np.ndarray]  # the gradient it passed on, per index into node.next


@dataclass
class _Run:
    nodes: list[Node]  # the nodes that ran, in the order of lowered.steps
    leaves: list[Tensor]  # the leaves they reached, one per source
    gradients: list[np.ndarray]  # the engine's gradient of each source
    records: dict[Node, _Record]
    consumers: dict[int, list[tuple[Node, int]]]  # id(target) -> (node, index into next)
    root_seed: np.ndarray


def _run(lowered: Lowered, sources: list[Source], gradient: Tensor | None) -> _Run:
    """The engine's gradients, recording every node on the way; the graph is left as it was
    (retained, or replayed when a backward has already freed it)."""
    output, leaves = live_graph(lowered, sources)
    nodes = [step.node for step in lowered.steps]
    if output is not lowered.output:  # replayed: the replay's nodes, in the same order
        nodes = topological(output.grad_fn)
    records: dict[Node, _Record] = {}
    handles = []
    try:
        for node in nodes:
            handles.append(node.register_hook(_recorder(node, records)))
        grads = api.grad(output, leaves, grad_outputs=gradient,
                                      retain_graph=True, allow_unused=True)
    finally:
        for handle in handles:
            handle.remove()
    consumers: dict[int, list[tuple[Node, int]]] = {}
    for node in nodes:
        for i, target in enumerate(node.next):
            if target is not None:
                consumers.setdefault(id(target), []).append((node, i))
    gradients = [np.zeros(src.symbols.shape) if g is None else np.asarray(g._value)
                 for src, g in zip(sources, grads, strict=True)]
    (root_seed,) = _seed_gradients([output], [gradient], False)
    return _Run(nodes, leaves, gradients, records, consumers, np.asarray(root_seed))


def _recorder(node: Node, records: dict[Node, _Record]) -> Callable[[tuple, tuple], None]:
    # a post-hook sees one gradient per next_functions entry: map them back to node.next
    shown = [i for i, rule in enumerate(_rules(node.op, node.next)) if rule is not None]

    def record(grad_inputs: tuple, grad_outputs: tuple) -> None:
        (g,) = grad_outputs
        records[node] = _Record(len(records), None if g is None else np.asarray(g._value),
                                {i: np.asarray(gi._value) for i, gi in
                                 zip(shown, grad_inputs, strict=True) if gi is not None})

    return record


def _finite(value: Any) -> bool:
    return bool(np.isfinite(np.asarray(value, dtype=np.float64)).all())


def _trace(run: _Run, leaf: Tensor) -> tuple[Any, int | None]:
    """Follow the non-finite gradient of ``leaf`` toward the output, to the node that made it
    from a finite incoming gradient: ``(node, index into its next)``. Else ``(target, None)``
    for the target where no single node sent a non-finite gradient."""
    target: Any = leaf
    while True:
        sent = []
        for node, i in run.consumers.get(id(target), ()):
            rec = run.records.get(node)
            if rec is not None and i in rec.grads and not _finite(rec.grads[i]):
                sent.append((rec.order, id(node), node, i))
        if not sent:
            return target, None
        _, _, node, i = min(sent)  # the one nearest to the output
        g = run.records[node].g
        if g is None or _finite(g):
            return node, i
        target = node


# --- the cause at the culprit ----------------------------------------------------------------

_MASKED = "0*inf in masked where branch"
# what to do when no op's record knows better (an op's singular points carry their own fixes:
# ``Op.singular``, read below)
_FIXES = {
    "overflow": "keep the values in range: t.logsumexp(x, dim) instead of x.exp().sum().log(), "
                "x.log_softmax(dim) instead of x.softmax(dim).log(), F.softplus(x) instead of "
                "(1 + x.exp()).log(), or subtract the maximum before exp.",
    "nan in forward": "the forward already computes nan there: keep the argument of the op "
                      "that makes it inside its domain (clamp it, or mask it with a double where).",
    "non-finite gradient passed in": "pass a finite gradient (the v of vᵀJ).",
    "infinite local derivative": "keep the argument away from the point where the op's "
                                 "derivative is infinite (clamp it), or mask it with a double "
                                 "where.",
}


def _double_where(op: Op) -> str:
    call, safe = next((s.safe for s in op.singular if s.safe), ("f(safe)", "1.0"))
    return ("compute the masked-out branch on a safe value, so that its derivative is finite "
            "there (the \"double where\"):\n"
            f"    safe = t.where(mask, x, {safe})\n"
            f"    y = t.where(mask, {call}, 0.0)")


class _Culprit:
    """The node that made the non-finite gradient of one of its inputs, and its values at the
    offending elements."""

    def __init__(self, node: Node, i: int, record: _Record) -> None:
        self.node, self.i, self.record = node, i, record
        self.name = type(node).__name__
        self.bad = ~np.isfinite(np.asarray(record.grads[i], dtype=np.float64))
        out_shape = np.shape(node.ans)
        # output positions of the offending input elements, where they map elementwise
        self.positions: np.ndarray | None = None
        value_shape = np.shape(node.values[i])
        if _broadcasts(value_shape, out_shape) and self.bad.shape == value_shape:
            self.positions = np.broadcast_to(self.bad, out_shape)

    def at(self, j: int) -> np.ndarray:
        """Input ``j``'s values at the offending positions (all of them where the op is not
        elementwise)."""
        value = np.asarray(self.node.values[j], dtype=np.float64)
        if self.positions is not None and _broadcasts(value.shape, self.positions.shape):
            return np.broadcast_to(value, self.positions.shape)[self.positions]
        return value.reshape(-1)

    def output_at(self) -> np.ndarray:
        ans = np.asarray(self.node.ans, dtype=np.float64)
        return ans[self.positions] if self.positions is not None else ans.reshape(-1)

    def inputs_at(self) -> list[np.ndarray]:
        return [self.at(j) for j, v in enumerate(self.node.values) if _numeric(v)]

    def singular(self) -> tuple[Singularity, str] | None:
        """The op's singular point (from its record, ``Op.singular``) where its derivative is
        infinite at its input values, and why, in words."""
        params = self.node.params or {}
        shapes = [np.shape(v) for v in self.node.values]
        for point in self.node.op.singular:
            if point.hits(self.at, params, shapes):
                why = point.why if isinstance(point.why, str) else point.why(params, shapes)
                return point, why
        return None


def _broadcasts(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def _numeric(value: Any) -> bool:
    return isinstance(value, np.ndarray | float | int | np.number) and not isinstance(
        value, bool) and np.asarray(value).dtype.kind in "fiu"


def _zero_times_infinite(culprit: _Culprit) -> bool:
    """Whether the offending gradients are 0 times an infinite derivative: the node's VJP
    applied to the indicator of its zero incoming gradients is not finite there."""
    g = culprit.record.g
    grads = culprit.record.grads[culprit.i]
    if g is None or not (g == 0).any() or not np.isnan(grads[culprit.bad]).any():
        return False
    indicator = (g == 0).astype(g.dtype)
    node = culprit.node
    vjp = _numeric_vjp(node, indicator, node.ans)[culprit.i]
    if vjp is None:
        return False
    vjp = numeric_xp.sum_to_shape(np.asarray(vjp, dtype=np.float64), culprit.bad.shape)
    return not np.isfinite(vjp[culprit.bad]).all()


def _zeroer(run: _Run, culprit: Node) -> Node | None:
    """The nearest node on the way from ``culprit`` to the output that turned part of its
    incoming gradient into zeros (a where's masked branch, a multiplication by 0, ...)."""
    queue, seen = deque([culprit]), {culprit}
    while queue:
        target = queue.popleft()
        for node, i in run.consumers.get(id(target), ()):
            rec = run.records.get(node)
            if rec is None or i not in rec.grads or node in seen:
                continue
            if rec.g is not None and _zeros(rec.grads[i]) > _zeros(rec.g):
                return node
            seen.add(node)
            queue.append(node)
    return None


def _zeros(value: np.ndarray) -> float:
    return float(np.mean(np.asarray(value) == 0)) if np.size(value) else 0.0


def _origin(lowered: Lowered, run: _Run, bad: Callable[[np.ndarray], np.ndarray]) -> str:
    """Where values for which ``bad`` holds (nan, inf) first appear in the forward."""
    for src in lowered.sources:
        if bad(np.asarray(src.tensor._value, dtype=np.float64)).any():
            return f"the input {src.name} holds it"
    for step, node in zip(lowered.steps, run.nodes, strict=True):
        for edge, value in zip(node.next, node.values, strict=True):
            if edge is None and _numeric(value) and bad(np.asarray(value, np.float64)).any():
                return f"a constant input of {_where(step.node)} holds it"
        inputs = [np.asarray(v, dtype=np.float64) for v in node.values if _numeric(v)]
        if bad(np.asarray(node.ans, dtype=np.float64)).any() and \
                not any(bad(v).any() for v in inputs):
            return f"it first appears in the forward of {_where(step.node)}"
    return "where it first appears was not found"


def _where(node: Node) -> str:
    site = node.created_at
    return f"{type(node).__name__}" + (f" created at {site}" if site else "")


def _values(values: np.ndarray) -> str:
    shown = ", ".join(repr(float(v)) for v in values.reshape(-1)[:_SHOWN])
    return f"[{shown}{', ...' if values.size > _SHOWN else ''}]"


def _diagnose(lowered: Lowered, run: _Run, culprit: _Culprit
              ) -> tuple[str, str, str | None, str]:
    """``(cause, detail, masked_by, fix)`` at the culprit."""
    inputs = culprit.inputs_at()
    singular = culprit.singular()
    if any(np.isnan(v).any() for v in inputs):
        origin = _origin(lowered, run, np.isnan)
        return ("nan in forward", f"An input of {culprit.name} is already nan in the forward "
                f"there: {origin}.", None, _FIXES["nan in forward"])
    zeroer = _zeroer(run, culprit.node) if _zero_times_infinite(culprit) else False
    masked = zeroer is not False and zeroer is not None \
        and type(zeroer).__name__.startswith("Where")
    # inf from upstream, or made here from large finite inputs (an exp at 1000); an infinite
    # output at a singular point (log at 0, 1/0) or from small inputs is not an overflow
    overflow = any(np.isinf(v).any() for v in inputs) or (
        singular is None and np.isinf(culprit.output_at()).any()
        and any((np.abs(v) >= 1).any() for v in inputs))
    if overflow and not masked:
        origin = _origin(lowered, run, np.isinf)
        return ("overflow", f"The forward of {culprit.name} holds inf there (an overflow): "
                f"{origin}.", None, _FIXES["overflow"])
    if zeroer is not False:
        why = singular[1] if singular else "its local derivative is infinite there"
        if zeroer is not None:
            masked_by = _where(lowered.steps[run.nodes.index(zeroer)].node)
            source = f"{masked_by} zeroed it"
        else:
            masked_by, source = "the gradient passed in", "the gradient passed in is 0 there"
        detail = (f"{why[0].upper()}{why[1:]} (its input is {_values(culprit.at(culprit.i))} "
                  f"there), and the gradient arriving there is exactly 0 ({source}): "
                  "0 * inf = nan.")
        fix = _double_where(culprit.node.op)
        if singular:
            fix += "\nor " + singular[0].fix
        return _MASKED if masked else "0*inf", detail, masked_by, fix
    if singular is None and np.isnan(culprit.output_at()).any():
        # finite inputs, nan output, no known singular point: std of one element (0/0) ...
        return ("nan in forward", f"The forward of {culprit.name} is nan there though its "
                f"inputs are not: {_origin(lowered, run, np.isnan)}.", None,
                _FIXES["nan in forward"])
    if singular is not None:
        point, why = singular
        detail = f"{why[0].upper()}{why[1:]}."
        if point.shows is not None:
            detail = (f"{why[0].upper()}{why[1:]}; the {point.shown_as} there is "
                      f"{_values(culprit.at(point.shows))}.")
        if point.nan_note and np.isnan(culprit.output_at()).any():
            detail += point.nan_note
        return point.cause, detail, None, point.fix
    return ("infinite local derivative", f"The derivative of {culprit.name} is not finite at "
            f"its input {_values(culprit.at(culprit.i))}.", None,
            _FIXES["infinite local derivative"])


# --- the exact derivative --------------------------------------------------------------------


def _exact(lowered: Lowered, source: Source, elements: list[tuple[int, ...]],
           root_seeds: dict[Any, Any], root_seed: np.ndarray
           ) -> tuple[list[Any], list[tuple[Any, Any] | None]]:
    """sympy's derivative at the first :data:`MAX_EXACT` elements, with one-sided limits where
    it is undefined; nan where the forward (an element ``root_seed`` weighs) is nan."""
    point = _Point.of(lowered)
    # a node whose forward sympy folded to the constant nan (std of one element) has
    # derivative 0 to sympy: undefined, where the output it reaches is nan
    folded = any(e is sympy.nan for step in lowered.steps
                 for e in np.asarray(step.definition).reshape(-1))
    if folded and any(point.value(f) is sympy.nan for f, v in
                      zip(np.asarray(lowered.root).reshape(-1), root_seed.reshape(-1),
                          strict=True) if v != 0):
        count = min(len(elements), MAX_EXACT)
        return [sympy.nan] * count, [None] * count
    adjoint = Chain.of(lowered).reverse(root_seeds, point.value)
    symbols = source.symbols
    exact, sides = [], []
    total = None
    for index in elements[:MAX_EXACT]:
        u = symbols[index] if index else symbols[()]
        value = point.value(adjoint.get(u, sympy.Integer(0)))
        real = value in (sympy.zoo, sympy.nan) or value.is_extended_real is not False
        value = _tidy(value)
        exact.append(value)
        if not real or math.isfinite(_as_float(value)):
            sides.append(None)
            continue
        if total is None:
            mapping = lowered.inlined_placeholders()
            total = sympy.Add(*[v * mapping.get(r, r) for r, v in root_seeds.items()])
        sides.append(_limits(total, u, point))
    return exact, sides


def _limits(total: Any, u: Any, point: _Point) -> tuple[Any, Any] | None:
    """The one-sided limits of d total / du at the point; a side is None where ``total`` is
    not real next to the point (outside the forward's domain)."""
    if sympy.count_ops(total) > _MAX_LIMIT_OPS:
        return None
    left, right, _ = _one_sided(total, u, point)
    others = {s: v for s, v in point.env.items() if s != u}
    along = total.xreplace(others)
    step = sympy.Rational(1, 10**12)
    result = []
    for side, limit in ((-1, left), (1, right)):
        near = sympy.N(along.xreplace({u: point.env[u] + side * step}), 30)
        real = near.is_extended_real is not False and limit.is_extended_real is not False
        result.append(limit if real and limit is not sympy.nan else None)
    return result[0], result[1]


# --- the entry point -------------------------------------------------------------------------


def _describe(lowered: Lowered, gradient: Tensor | None, name: str | None = None) -> str:
    """The output by its name (``name=`` or the caller's variable), else as its lowered
    formula when short, else by its node."""
    root = lowered.root
    if name is not None:
        return f"vᵀ·{name}" if gradient is not None and np.ndim(root) else name
    if np.ndim(root) == 0:
        text = str(lowered.inlined[()])
        if len(text) <= 60:
            return text
    node = lowered.output.grad_fn
    what = f"the output of {type(node).__name__}" if node is not None else "the output"
    return f"vᵀ·({what})" if gradient is not None and np.ndim(root) else what


def explain(output: Tensor, input: Tensor | Sequence[Tensor] | None = None,  # noqa: A002
            gradient: Tensor | Any | None = None) -> Explanation:
    """Explain where a NaN or infinite gradient of ``output`` comes from, and how to avoid it.

    ``input`` is a Tensor or a sequence of them (default: every leaf that requires grad);
    ``gradient`` is the v of vᵀJ, as ``backward`` takes it. The numeric backward runs once more,
    on a retained graph (or a replay of one already freed), with temporary hooks: no ``.grad``
    changes and the graph stays usable. The :class:`Explanation` names the node that first made
    a non-finite gradient from a finite one, the line that recorded it, the cause, sympy's exact
    derivative there (the masked branch of a ``where`` contributes exactly 0) or its one-sided
    limits, and the standard fix. When the gradient is finite it says so.

    >>> x = symgrad.tensor([0.0, 2.0], requires_grad=True)
    >>> y = symgrad.where(x > 0, x.log(), 0.0).sum()
    >>> e = symgrad.symbolic.explain(y, x)
    >>> e.cause, e.node_name, e.masked_by.split()[0], e.numeric, e.exact
    ('0*inf in masked where branch', 'LogBackward0', 'WhereBackward0', [nan], [0])
    >>> print(e.fix)
    compute the masked-out branch on a safe value, so that its derivative is finite there (the
    "double where"):
        safe = t.where(mask, x, 1.0)
        y = t.where(mask, safe.log(), 0.0)
    or keep the argument away from 0, ...
    >>> symgrad.symbolic.explain((x * x).sum(), x)
    The gradient of x_0**2 + x_1**2 with respect to x is finite at every element.
    """
    if not isinstance(output, Tensor):
        raise TypeError(f"explain() expects a Tensor, but got {type(output).__name__}")
    gradient = as_gradient(output, gradient)
    lowered = lower(output)
    root_seeds = seeds(lowered, gradient)  # checks output and gradient as backward does
    sources = _inputs(lowered, input, allow_unused=True)
    run = _run(lowered, sources, gradient)
    described = _describe(lowered, gradient, output.name or caller_names().get(id(output)))
    bad = [(src, leaf, g) for src, leaf, g in zip(sources, run.leaves, run.gradients,
                                                  strict=True) if not _finite(g)]
    if not bad:
        return Explanation(True, described, ", ".join(s.name for s in sources))
    source, leaf, g = bad[0]
    flat = np.flatnonzero(~np.isfinite(g.reshape(-1)))
    elements = [_index(int(k), g.shape) for k in flat]
    result = Explanation(False, described, source.name, elements,
                         [float(g.reshape(-1)[k]) for k in flat])
    result.others = {s.name: [_index(int(k), other.shape)
                              for k in np.flatnonzero(~np.isfinite(other.reshape(-1)))]
                     for s, _, other in bad[1:]}
    node, i = _trace(run, leaf)
    if i is None:
        _unattributed(result, run, node)
    else:
        original = lowered.steps[run.nodes.index(node)].node
        result.node_name = type(original).__name__
        result.created_at = original.created_at
        site = original.creation_site
        if site is not None:
            result.source = linecache.getline(site[0], site[1]).strip() or None
        culprit = _Culprit(node, i, run.records[node])
        result.cause, result.detail, result.masked_by, result.fix = _diagnose(
            lowered, run, culprit)
    if _finite(run.root_seed):  # (with a nan in v, vᵀJ is nan: nothing to compare)
        result.exact, result.one_sided = _exact(lowered, source, elements, root_seeds,
                                                run.root_seed)
    return result


def _unattributed(result: Explanation, run: _Run, target: Any) -> None:
    """No node made the non-finite values from finite ones: the seed, or a sum."""
    if not _finite(run.root_seed) and (target is run.nodes[-1] if run.nodes else True):
        result.cause = "non-finite gradient passed in"
        result.detail = "The gradient passed in (the v of vᵀJ) already holds nan or inf."
        result.fix = _FIXES["non-finite gradient passed in"]
        return
    result.cause = "overflow"
    result.detail = ("Every node passed on finite gradients: their sum overflowed, or a "
                     "tensor hook returned non-finite values.")
    result.fix = _FIXES["overflow"]


__all__ = ["MAX_EXACT", "Explanation", "explain"]
