"""``check``: the numeric backward against sympy's derivative of the lowered forward.

The numeric gradient comes from symgrad's engine (its VJP rules); the symbolic one from
``sympy.diff`` of each node's lowered forward, chained along the graph and evaluated at the
current values taken as exact rationals (transcendental results to 40 digits). They share no
code, so agreement is evidence and disagreement names a culprit: each node's VJP rule is then
checked on its own against sympy, and the first wrong one is reported with where it was created.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from symgrad import creation
from symgrad.autograd import api, grad_mode
from symgrad.autograd.graph import Node
from symgrad.autograd.naming import topological
from symgrad.numeric import numpy_namespace as numeric_xp
from symgrad.symbolic import local, scale
from symgrad.symbolic import sympy_namespace as sx
from symgrad.symbolic.calculus import (
    Chain,
    _inputs,
    as_gradient,
    local_partials,
    number_node,
    seed_array,
    seeds,
)
from symgrad.symbolic.local import switches as _switches
from symgrad.symbolic.lowering import (
    Lowered,
    Source,
    Step,
    _exact,
    _substitute,
    exact_operand,
    exact_params,
    lower,
    symbol_array,
    symbolic_forward,
)
from symgrad.symbolic.progress import Progress
from symgrad.tensor import Tensor

DIGITS = 40  # working precision of transcendental values
_DENOMINATOR = 2 ** local.SHIFT  # the exact values of the node-by-node check are integers of it
_TOLERANCES = {"float64": (1e-7, 1e-10), "float32": (1e-4, 1e-6),
               "float16": (1e-2, 1e-3)}  # (rtol, atol)


def default_tolerances(output: Tensor) -> tuple[float, float]:
    """The rtol and atol a check of ``output`` uses unless given: those of the least precise
    floating-point dtype among ``output``, the leaves its graph reaches and the values its
    nodes computed (a float32 loss of float16 parameters is checked to float16's precision)."""
    names = {output._value.dtype.name}
    if output.grad_fn is not None:
        for node in topological(output.grad_fn):
            names.update(e._value.dtype.name for e in node.next if isinstance(e, Tensor))
            ans = getattr(node, "ans", None)
            if isinstance(ans, np.ndarray):
                names.add(ans.dtype.name)
    return next((_TOLERANCES[n] for n in ("float16", "float32", "float64") if n in names),
                _TOLERANCES["float32"])


class GradientMismatch(AssertionError):
    """The numeric gradient disagrees with sympy's derivative (raised by :func:`check`).

    An ``AssertionError``, so a failed check fails a test like an ``assert`` does.

    >>> class Twice(symgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         return g * 3  # wrong: d(2x)/dx is 2
    >>> x = t.tensor([1.0], dtype=t.float64, requires_grad=True)
    >>> symgrad.symbolic.check(Twice.apply(x).sum())
    Traceback (most recent call last):
    ...
    symgrad.symbolic.crosscheck.GradientMismatch: gradient of x at index (0,): numeric 3.0 ...
    """


@dataclass
class Kink:
    """A point where a node's output is not differentiable (relu at 0, a max tie ...).

    ``left`` and ``right`` are the one-sided derivatives of the node's output element with
    respect to ``input`` there; ``convention`` is the value symgrad (and PyTorch) uses, and
    ``rule`` the op's record's words for it (``Op.convention``: "0 at 0 (the left derivative)").

    >>> x = t.tensor([-1.0, 0.0], dtype=t.float64, requires_grad=True)
    >>> (kink,) = symgrad.symbolic.check(x.relu().sum()).kinks
    >>> kink.node, kink.input, kink.left, kink.right, kink.convention
    ('ReluBackward0', 'x_1', 0, 1, 0)
    """

    node: str
    site: str | None
    index: tuple[int, ...]
    input: str
    left: Any
    right: Any
    convention: Any
    rule: str = ""

    def __str__(self) -> str:
        where = f" (created at {self.site})" if self.site else ""
        return (f"{self.node}{where} output {self.index} is not differentiable in {self.input}: "
                f"left derivative {self.left}, right {self.right}; convention {self.convention}")


@dataclass
class InputReport:
    """What :func:`check` found for one input."""

    name: str
    shape: tuple[int, ...]
    checked: list[tuple[int, ...]]
    max_abs_error: float
    max_rel_error: float
    undefined: list[tuple[tuple[int, ...], str, float]] = field(default_factory=list)
    at_kinks: list[tuple[tuple[int, ...], float, float]] = field(default_factory=list)
    sampled: bool = False

    def __str__(self) -> str:
        total = math.prod(self.shape)
        count = len(self.checked)
        what = (f"{count} of {total} elements (sampled)" if self.sampled
                else f"{count} element{'' if count == 1 else 's'}")
        return (f"{self.name}: {what}, max abs error {self.max_abs_error:.3g}, "
                f"max rel error {self.max_rel_error:.3g}{_special_points(self)}")


def _special_points(report: Any) -> str:
    """The lines of a report (:class:`InputReport` or a Hessian block) for the elements not
    compared: undefined points and kinks."""
    text = ""
    for index, symbolic, numeric in report.undefined:
        text += f"\n    undefined at {index}: sympy {symbolic}, numeric {numeric}"
    for index, symbolic, numeric in report.at_kinks:
        text += f"\n    at a kink at {index}: sympy {symbolic}, numeric {numeric}"
    return text


@dataclass
class NodeProof:
    """Exact mode: one node's VJP rule against sympy's derivative of its forward."""

    node: str
    site: str | None
    at_point: bool
    formula: str  # "proved", "undecided" or "differs"

    def __str__(self) -> str:
        where = f" ({self.site})" if self.site else ""
        point = "equal at the point" if self.at_point else "DIFFERENT at the point"
        return f"{self.node}{where}: {point}; as formulas: {self.formula}"


@dataclass
class NodeReport:
    """One node's VJP rule compared, on a random cotangent over all its input elements, with
    sympy's derivative of its forward at the inputs it saw (see :func:`check`)."""

    node: str
    site: str | None
    elements: int
    max_abs_error: float
    skipped: int = 0  # elements at a kink or where sympy's derivative is undefined

    def __str__(self) -> str:
        where = f" ({self.site})" if self.site else ""
        skipped = f", {self.skipped} at kinks or undefined" if self.skipped else ""
        return (f"{self.node}{where}: VJP rule agrees with sympy on {self.elements} input "
                f"elements, max abs error {self.max_abs_error:.3g}{skipped}")


@dataclass
class CheckReport:
    """The result of :func:`check`: per input, per kink and (exact mode) per node.

    >>> a = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
    >>> print(symgrad.symbolic.check((a * a).sum()))
    gradient check passed (rtol=1e-07, atol=1e-10)
      a: 2 elements, max abs error 0, max rel error 0
    """

    inputs: list[InputReport]
    kinks: list[Kink]
    rtol: float
    atol: float
    proofs: list[NodeProof] = field(default_factory=list)
    nodes: list[NodeReport] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"gradient check passed (rtol={self.rtol:g}, atol={self.atol:g})"]
        lines += [f"  {r}" for r in self.inputs]
        lines += [f"  kink: {k}" for k in self.kinks]
        lines += [f"  exact: {p}" for p in self.proofs]
        lines += [f"  node: {n}" for n in self.nodes]
        return "\n".join(lines)

    __repr__ = __str__


def _site(node: Node) -> str | None:
    site = getattr(node, "creation_site", None)
    if site is None:
        return None
    return f"{site[0]}:{site[1]}"


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def _indices(flats: list[int], shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """:func:`_index` of each of ``flats``, at once."""
    if not shape:
        return [()] * len(flats)
    return list(zip(*(axis.tolist() for axis in np.unravel_index(flats, shape)), strict=True)) \
        if flats else []


def _numeric_power(node: Any, args: list[Any]) -> Any:
    if node.func is sympy.Pow and args[0].is_number and args[1].is_number \
            and not args[1].is_Integer:
        return sympy.Pow(args[0], sympy.Float(args[1], DIGITS))
    return number_node(node.func, args)


class _Point:
    """Values of every symbol of a lowered graph at the current point: the leaves' exact
    rationals, and each node's elements to :data:`DIGITS` digits."""

    @classmethod
    def of(cls, lowered: Lowered) -> _Point:
        """The point of ``lowered``, evaluated once for every check of that lowering."""
        point = lowered.derived.get("point")
        if point is None:
            point = lowered.derived["point"] = cls(lowered)
        return point

    def __init__(self, lowered: Lowered | None = None, env: dict[Any, Any] | None = None) -> None:
        self.env: dict[Any, Any] = dict(env or {})
        self.memo: dict[Any, Any] = {}
        if lowered is None:
            return
        for src in lowered.sources:
            self.env.update(zip(src.symbols.reshape(-1), src.values.reshape(-1), strict=True))
        for step in lowered.steps:
            for _, placeholder, definition in step.placeholders():
                self.env[placeholder] = self.value(definition)

    def __getstate__(self) -> dict[str, Any]:
        # sent to a worker without the memo: a cache, slower to unpickle than to rebuild
        return {"env": self.env, "memo": {}}

    def value(self, expr: Any) -> Any:
        """``expr`` at the point: exact where rational, else to :data:`DIGITS` digits.

        Powers with a non-integer exponent are taken numerically: sympy's exact rational
        powers (a 17-digit rational to a 17-digit rational power) factor integers for minutes.
        Substitutions are memoized at the point, so shared subexpressions are computed once.
        """
        if not isinstance(expr, sympy.Basic):
            return sympy.sympify(expr)
        result = _substitute(expr, self.env, self.memo, _numeric_power)
        if result.is_Rational or result in (sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            return result
        return result.evalf(DIGITS)

    def is_zero(self, expr: Any) -> bool:
        """Whether ``expr`` is exactly zero at the point (a kink's switching expression)."""
        return expr.xreplace(self.env) == 0


def _as_float(value: Any) -> float:
    if value is sympy.zoo or value is sympy.nan:
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _tally(report: Any, index: tuple[int, ...], exact_value: Any, numeric: float,
          near_kink: bool, rtol: float, atol: float) -> bool:
    """Compare one numeric derivative with sympy's exact value into ``report`` (anything with
    ``max_abs_error``, ``max_rel_error``, ``undefined`` and ``at_kinks``, as
    :class:`InputReport`); False if they differ beyond the tolerances.

    Where sympy's value is undefined (nan, zoo) the element is listed as undefined, not
    compared; a difference at a non-differentiable point (``near_kink``) is listed, not a
    mismatch, unless the numeric value is nan or infinite where sympy's is finite (a kink
    excuses a convention, not a nan).
    """
    value = _as_float(exact_value)
    if not math.isfinite(value):
        report.undefined.append((index, str(exact_value), numeric))
        if math.isnan(value) or math.isnan(numeric) or (
                math.isinf(numeric) and (exact_value is sympy.zoo
                                         or np.sign(numeric) == np.sign(value))):
            return True
    error = abs(numeric - value)
    if not error <= atol + rtol * abs(value):  # also catches a nan
        if near_kink and math.isfinite(numeric):
            report.at_kinks.append((index, str(_tidy(exact_value)), numeric))
            return True
        return False
    _record(report, value, error, atol)
    return True


def _record(report: Any, value: float, error: float, atol: float) -> None:
    """Count an agreeing element's error (``value`` is sympy's) into ``report``'s maxima."""
    if error > report.max_abs_error:
        report.max_abs_error = error
    if abs(value) > atol:  # relative error of values at the noise floor means nothing
        report.max_rel_error = max(report.max_rel_error, error / abs(value))


def _numeric_gradients(lowered: Lowered, sources: list[Source],
                       gradient: Tensor | None) -> list[np.ndarray]:
    """The engine's gradients, leaving every ``.grad`` untouched: on the recorded graph, or on
    a replay of it when a backward has already freed it."""
    output, tensors = live_graph(lowered, sources)
    try:
        grads = api.grad(output, tensors, grad_outputs=gradient, retain_graph=True,
                         allow_unused=True)
    except Exception as error:
        # a wrong rule can make the backward fail (a gradient of the wrong shape refused by
        # the engine, or breaking the next rule): name it, if one is wrong
        for step in lowered.steps:
            verdict = node_vjp_error(step)
            if verdict is not None:
                raise GradientMismatch(f"the numeric backward failed ({type(error).__name__}: "
                                       f"{error})\n" + culprit_line(step, "VJP", verdict)
                                       ) from error
        raise
    return [np.zeros(src.symbols.shape) if g is None else g.numpy().astype(np.float64)
            for src, g in zip(sources, grads, strict=True)]


def live_graph(lowered: Lowered, sources: list[Source]) -> tuple[Tensor, list[Tensor]]:
    """The output and the ``sources``' tensors of a graph that backward can run through: the
    recorded one, or a replay of it (:func:`_replay`) when a backward has already freed it."""
    if any(step.node.freed for step in lowered.steps):
        return _replay(lowered, sources)
    return lowered.output, [s.tensor for s in sources]


def _replay(lowered: Lowered, sources: list[Source]) -> tuple[Tensor, list[Tensor]]:
    """Re-run the recorded ops numerically on fresh leaves (same values, same rules)."""
    fresh: dict[int, Tensor] = {}
    for src in lowered.sources:
        if src.requires_grad:
            copy = creation.tensor(np.array(src.tensor._value), requires_grad=True)
            fresh[id(src.tensor)] = copy
    results: dict[Node, Tensor] = {}
    with grad_mode.enable_grad():
        for step in lowered.steps:
            node = step.node
            args = []
            for edge, raw, value in zip(node.next, node.inputs, node.values, strict=True):
                if isinstance(edge, Node):
                    args.append(results[edge])
                elif isinstance(edge, Tensor):
                    args.append(fresh[id(edge)])
                elif isinstance(raw, Tensor):
                    args.append(creation.tensor(np.asarray(value).astype(raw._value.dtype)))
                else:
                    args.append(value)
            results[node] = _rerun(node, args)
    return results[lowered.steps[-1].node], [fresh[id(s.tensor)] for s in sources]


def _rerun(node: Node, args: list[Any]) -> Tensor:
    """The node's op applied again to ``args``: a custom Function through its ``apply`` (a new
    ctx, so that its backward reads the new tensors, not the recorded ones, freed or not);
    other ops, and a Function with several outputs, through ``apply_op``."""
    from symgrad.autograd.function import Slot
    from symgrad.dispatch import apply_op

    params = node.params or {}
    function_class = getattr(type(node), "_forward_cls", None)
    if function_class is not None and params.get("layout") is None and "args" in params:
        call = [args[a.index] if isinstance(a, Slot) else a for a in params["args"]]
        out = function_class.apply(*call, **params["kwargs"])
        if isinstance(out, Tensor):
            return out
    return apply_op(node.op, *args, **params)


def _kinks(lowered: Lowered, point: _Point, chain: Chain) -> tuple[list[Kink], set[Any]]:
    """Non-differentiable points among the nodes' elements, and the leaf symbols whose
    gradient they affect."""
    kinks: list[Kink] = []
    affected: set[Any] = set()
    leaf_symbols = {s for src in lowered.sources for s in src.symbols.reshape(-1)}
    chain_active = chain.active
    for step in lowered.steps:
        for k, _, definition in step.placeholders():
            switches = _switches(definition)
            if not any(point.is_zero(s) for s in switches):
                continue
            at_zero = [s for s in switches if point.is_zero(s)]
            inlined = lowered.inlined_step(step).reshape(-1)[k]
            valued = _without_conditions(definition).free_symbols
            for u in sorted(definition.free_symbols & chain_active, key=str):
                if not any(u in s.free_symbols for s in at_zero):
                    continue
                if u in valued:
                    function, variables = definition, [u]
                else:  # only a mask's condition holds u (where(x > 0, ...)): the jump is
                    # between the branches, so take the output's sides along the leaves
                    function = inlined
                    variables = sorted(chain.inline(u).free_symbols & leaf_symbols, key=str)
                for v in variables:
                    left, right, convention = _one_sided(function, v, point)
                    kinks.append(Kink(step.name, _site(step.node), _index(k, step.out.shape),
                                      "its input" if isinstance(v, sympy.Dummy) else str(v),
                                      left, right, convention, step.node.op.convention))
            affected |= inlined.free_symbols & leaf_symbols
    return kinks, affected


def _without_conditions(expr: Any) -> Any:
    """``expr`` with each Piecewise replaced by the sum of its branches' values: the symbols
    it depends on other than through a condition."""
    return expr.replace(sympy.Piecewise,
                        lambda *pairs: sympy.Add(*[pair[0] for pair in pairs]))


def _one_sided(definition: Any, u: Any, point: _Point) -> tuple[Any, Any, Any]:
    partial = sympy.diff(definition, u)
    others = {s: v for s, v in point.env.items() if s != u}
    along = partial.xreplace(others)
    at = point.env[u]
    eps = sympy.Symbol("eps", positive=True)  # sides as at -/+ eps, so Piecewise decides
    try:
        left = sympy.limit(along.xreplace({u: at - eps}), eps, 0, "+")
        right = sympy.limit(along.xreplace({u: at + eps}), eps, 0, "+")
    except (NotImplementedError, ValueError):  # pragma: no cover - sympy gave up
        left = right = sympy.nan
    return _tidy(left), _tidy(right), _tidy(point.value(partial))


def _tidy(value: Any) -> Any:
    """A derivative for a report: a simple fraction when it is one (to working precision),
    else 15 digits."""
    value = sympy.sympify(value)
    if value.is_Rational or not value.is_number or not value.is_finite:
        return value
    if value.is_extended_real is False:  # the forward left its real domain (log of -1 ...)
        return value.evalf(15)
    fraction = sympy.Rational(value.evalf(DIGITS)).limit_denominator(1000)
    if abs(value - fraction) < sympy.Float(10) ** (5 - DIGITS):
        return fraction
    return value.evalf(15)


def _forward_sparse(chain: Chain, point: _Point, root_seeds: dict[Any, Any], u: Any,
                    users: dict[Any, list[tuple[int, Any, Any]]]) -> Any:
    """d(vᵀ output)/du by propagating a tangent from ``u`` through the elements that depend
    on it only (the cost of a sampled check grows with that cone, not with the graph)."""
    tangent = {u: sympy.Integer(1)}
    heap = list(users.get(u, ()))
    heapq.heapify(heap)
    done = set()
    while heap:
        order, placeholder, definition = heapq.heappop(heap)
        if placeholder in done:
            continue
        done.add(placeholder)
        total = sympy.Add(*[point.value(p) * tangent[w]
                            for w, p in chain.partials(placeholder, definition) if w in tangent])
        tangent[placeholder] = total
        for item in users.get(placeholder, ()):
            heapq.heappush(heap, item)
    return sympy.Add(*[v * tangent[r] for r, v in root_seeds.items() if r in tangent])


def _users(lowered: Lowered, chain: Chain) -> dict[Any, list[tuple[int, Any, Any]]]:
    users: dict[Any, list[tuple[int, Any, Any]]] = defaultdict(list)
    order = 0
    for step in lowered.steps:
        for _, placeholder, definition in step.placeholders():
            for w in definition.free_symbols & chain.active:
                users[w].append((order, placeholder, definition))
            order += 1
    return users


def check(output: Tensor, gradient: Tensor | None = None,
          inputs: Tensor | Sequence[Tensor] | None = None, rtol: float | None = None,
          atol: float | None = None, sample: int | None = None, *,
          exact: bool = False, executor: Executor | None = None,
          progress: bool | None = None) -> CheckReport:
    """Check the numeric backward of ``output`` against sympy's derivative, element by element.

    ``gradient`` is the v of vᵀJ, as ``backward`` takes it; ``inputs`` default to every leaf
    that requires grad. No ``.grad`` is touched. Tolerances default by the least precise dtype
    of the output and its graph's leaves (float64: rtol 1e-7, atol 1e-10; float32: 1e-4, 1e-6;
    float16: 1e-2, 1e-3, too coarse to tell a rule off by 1% apart: prove rules in float32 or
    float64). ``sample=k`` checks ``k`` random elements of each
    input (the report says which). Points where the derivative is undefined and
    non-differentiable points (kinks) are reported, not treated as mismatches. ``exact=True``
    also proves each node's VJP rule equal to sympy's derivative of its forward.

    Raises :class:`GradientMismatch` naming the input, the index, both values and the first
    node whose VJP rule disagrees with sympy, with where it was created.

    A graph whose lowering would be large (more than ``scale.LOWERING_BUDGET`` terms: a real
    layer) is checked node by node instead of lowered whole: every node's VJP rule is compared
    on all its elements with sympy's derivative of its forward at the inputs it saw (a rule
    wrong on one element is named, whatever is sampled; the report lists the nodes), and each
    checked leaf element gets sympy's derivative chained to 40 digits, through only the
    elements it reaches when sampled. ``executor`` (any ``concurrent.futures.Executor``, such
    as a ``ProcessPoolExecutor`` or ``distributed.Client(...).get_executor()``) runs the node
    checks and the sampled elements; the report is the serial one. ``progress`` shows a bar on
    stderr (None: on a terminal, after about 2 s).

    >>> a = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, requires_grad=True)
    >>> b = symgrad.tensor([3.0, 4.0], dtype=symgrad.float64, requires_grad=True)
    >>> c = a * b
    >>> print(symgrad.symbolic.check(c, gradient=symgrad.tensor([1.0, 0.5])))
    gradient check passed (rtol=1e-07, atol=1e-10)
      a: 2 elements, max abs error 0, max rel error 0
      b: 2 elements, max abs error 0, max rel error 0
    """
    if not isinstance(output, Tensor):
        return check(lower(output))  # lower's TypeError
    default_rtol, default_atol = default_tolerances(output)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    gradient = as_gradient(output, gradient)
    if not exact and output.grad_fn is not None \
            and scale.lowering_size(output) > scale.LOWERING_BUDGET:
        return _check_by_nodes(output, gradient, inputs, rtol, atol, sample, executor, progress)
    lowered = lower(output, progress=progress)
    sources = _inputs(lowered, inputs, allow_unused=True)
    root_seeds = seeds(lowered, gradient)
    numeric = _numeric_gradients(lowered, sources, gradient)
    point = _Point.of(lowered)
    chain = Chain.of(lowered)
    kinks, near_kink = _kinks(lowered, point, chain)

    if sample is None:
        adjoint = chain.reverse(root_seeds, point.value)

        def symbolic_at(u: Any) -> Any:
            return point.value(adjoint.get(u, sympy.Integer(0)))
    else:
        users = _users(lowered, chain)

        def symbolic_at(u: Any) -> Any:
            return point.value(_forward_sparse(chain, point, root_seeds, u, users))

    rng = np.random.default_rng(0)
    reports, failures = [], []
    total = sum(min(src.symbols.size, sample or src.symbols.size) for src in sources)
    bar = Progress(total, "symbolic.check", progress)
    for src, num in zip(sources, numeric, strict=True):
        symbols = src.symbols.reshape(-1)
        chosen = range(len(symbols))
        if sample is not None and sample < len(symbols):
            chosen = sorted(rng.choice(len(symbols), size=sample, replace=False).tolist())
        report = InputReport(src.name, tuple(src.symbols.shape), [], 0.0, 0.0,
                             sampled=sample is not None and sample < len(symbols))
        if num.shape != tuple(src.symbols.shape):  # a rule's wrongly shaped gradient
            raise GradientMismatch(_mismatch_message(lowered, [
                (src, (), f"of shape {list(num.shape)}", f"of shape {list(src.symbols.shape)}")
            ], rtol, atol))
        flat_num = num.reshape(-1)
        for k in chosen:
            index = _index(k, report.shape)
            report.checked.append(index)
            exact_value = symbolic_at(symbols[k])
            n = float(flat_num[k])
            if not _tally(report, index, exact_value, n, symbols[k] in near_kink, rtol, atol):
                failures.append((src, index, n, _as_float(exact_value)))
            bar.update()
        reports.append(report)
    bar.__exit__(None, None, None)
    if failures:
        raise GradientMismatch(_mismatch_message(lowered, failures, rtol, atol))
    result = CheckReport(reports, kinks, rtol, atol)
    if exact:
        result.proofs = [prove_node(step, rtol) for step in lowered.steps]
        wrong = [p for p in result.proofs if not p.at_point or p.formula == "differs"]
        if wrong:
            raise GradientMismatch("the VJP rule of " + "; ".join(map(str, wrong))
                                   + " disagrees with sympy's derivative of its forward")
    return result


def _mismatch_message(lowered: Lowered, failures: list, rtol: float, atol: float) -> str:
    src, index, numeric, symbolic = failures[0]
    if isinstance(numeric, str):
        lines = [f"gradient of {src.name}: numeric {numeric} but {src.name} is {symbolic}"]
    else:
        lines = [f"gradient of {src.name} at index {index}: numeric {float(numeric)!r} but "
                 f"sympy {symbolic!r} (rtol={rtol:g}, atol={atol:g}); {len(failures)} "
                 "element(s) differ"]
    for step in lowered.steps:
        verdict = node_vjp_error(step)
        if verdict is not None:
            lines.append(culprit_line(step, "VJP", verdict))
            break
    else:
        if isinstance(numeric, str):
            lines.append("every node's VJP agrees with sympy on its own: the graph's wiring "
                         "(edges, broadcasting, accumulation) is at fault")
        elif not math.isfinite(float(numeric)):
            # each rule is right, but one met a point where its local derivative is infinite
            # (0 * inf = nan in the masked branch of a where, log or sqrt at 0 ...)
            lines.append("every node's VJP agrees with sympy on its own, but the numeric "
                         "gradient is not finite: symgrad.symbolic.explain(output, "
                         f"{src.name}) names the node that produced it and the usual fix")
        else:
            lines.append("every node's VJP agrees with sympy on its own: the graph's wiring "
                         "(edges, broadcasting, accumulation) is at fault")
    return "\n".join(lines)


def culprit_line(step: Step, rule: str, verdict: str) -> str:
    """The line of a mismatch message that names the first node whose ``rule`` (its VJP, its
    double backward) disagrees with sympy, and where it was created."""
    where = f" created at {_site(step.node)}" if _site(step.node) else ""
    return f"first node whose {rule} disagrees with sympy: {step.name}{where}: {verdict}"


# --- model scale: node by node ------------------------------------------------------------


def _leaves(output: Tensor, inputs: Tensor | Sequence[Tensor] | None) -> tuple[
        list[Node], list[Tensor], list[tuple[Tensor, str, bool]]]:
    """The graph's nodes (lowering's order), every leaf tensor met as an edge, and the inputs
    to report on: ``(tensor, name, used)``, named as :func:`lower` names them."""
    from symgrad.autograd.naming import TensorNames, caller_names, mask_producers

    if not output.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                           "grad_fn")
    order = topological(output.grad_fn, mask_producers)
    leaves: list[Tensor] = []
    seen: set[int] = set()
    for node in order:
        for edge in node.next:
            if isinstance(edge, Tensor) and id(edge) not in seen:
                seen.add(id(edge))
                leaves.append(edge)
    names = TensorNames(caller_names())
    named = {id(t): names(t, "x") for t in leaves}
    if inputs is None:
        return order, leaves, [(t, named[id(t)], True) for t in leaves]
    chosen = []
    for k, x in enumerate([inputs] if isinstance(inputs, Tensor) else list(inputs)):
        if not isinstance(x, Tensor):
            raise TypeError(f"inputs must be Tensors, got {type(x).__name__}")
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        used = id(x) in named
        chosen.append((x, named[id(x)] if used else (x.name or f"unused{k}"), used))
    return order, leaves, chosen


def _node_tasks(order: list[Node], graph: scale.Graph) -> tuple[list, list, list]:
    """Per node with a differentiable input: the task computing sympy's VJP at a random
    cotangent, the engine's rules' result there (or what went wrong), and its kinks."""
    tasks, numeric, kinked = [], [], []
    for n, (node, lnode) in enumerate(zip(order, graph.nodes, strict=True)):
        if not any(p is not None for p in lnode.parents):
            continue
        g = _probe(lnode.out_shape, seed=n)
        try:
            ans = node.op.forward(numeric_xp, *node.values, **(node.params or {}))
            rules: Any = _numeric_vjp(node, g, ans)
        except Exception as error:  # noqa: BLE001 - a rule that crashes is a wrong rule
            rules = f"its VJP rule raised {type(error).__name__}: {error}"
        tasks.append((scale.node_task, (lnode, g)))
        numeric.append((n, rules))
        kinked.append(local.kinks(lnode))
    return tasks, numeric, kinked


def _node_checks(graph: scale.Graph, numeric: list, results: list, kinked: list, rtol: float,
                 atol: float) -> tuple[list[NodeReport], list[tuple[int, str]], list[Kink]]:
    """Each node's VJP rule (the engine's, on a random cotangent) against sympy's derivative
    of its forward at the node's recorded inputs (``results``), over all input elements."""
    reports, wrong, kinks = [], [], []
    for (n, rules), theirs, at_kinks in zip(numeric, results, kinked, strict=True):
        lnode = graph.nodes[n]
        kinks += _local_kinks(lnode, at_kinks)
        skip = _kink_inputs(lnode, at_kinks)
        report = NodeReport(lnode.name, lnode.site, 0, 0.0)
        verdict = rules if isinstance(rules, str) else None
        for i, sym in enumerate(theirs):
            if sym is None or verdict is not None:
                continue
            shape = np.shape(lnode.values[i])
            rule = rules[i] if i < len(rules) else None
            ours = np.zeros(shape) if rule is None else _reduce_to(rule, shape)
            if ours is None:
                verdict = (f"its VJP rule returned a gradient of shape {list(np.shape(rule))} "
                           f"for input {i} of shape {list(shape)}")
                continue
            ours = np.asarray(ours, dtype=np.float64).reshape(-1)
            sym = sym.reshape(-1)
            valid = np.isfinite(sym)
            valid[list(skip.get(i, ()))] = False
            report.skipped += int(sym.size - valid.sum())
            report.elements += int(valid.sum())
            error = np.abs(ours - sym)
            limit = max(atol, 1e-9 * (1 + float(np.max(np.abs(sym[valid]), initial=0)))) \
                + max(rtol, 1e-6) * np.abs(sym)
            bad = valid & ~(error <= limit)
            if valid.any():
                report.max_abs_error = max(report.max_abs_error,
                                           float(np.max(np.where(valid, error, 0))))
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                verdict = (f"input {i} element {_index(k, shape)}: its VJP rule gives "
                           f"{float(ours[k])!r}, sympy.diff of its forward gives "
                           f"{float(sym[k])!r} (random cotangent; {int(bad.sum())} of "
                           f"{sym.size} elements differ)")
        if verdict is not None:
            wrong.append((n, verdict))
        reports.append(report)
    return reports, wrong, kinks


def _reduce_to(array: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    return scale._reduce_to(np.asarray(array), shape)


def _kink_inputs(lnode: local.LocalNode, at_kinks: list) -> dict[int, set[int]]:
    """Per input, the elements read by an output element at a kink."""
    skip: dict[int, set[int]] = {}
    for group in lnode.groups:
        for t, element, _ in at_kinks:
            if t is not group.template:
                continue
            rows = np.flatnonzero(group.elements == element) if isinstance(group, local.Group) \
                else [element]
            for r in rows:
                for i, flat in zip(t.inputs, group.row(r), strict=True):
                    skip.setdefault(i, set()).add(int(flat))
    return skip


def _local_kinks(lnode: local.LocalNode, at_kinks: list) -> list[Kink]:
    """:class:`Kink` s of one node from its templates: one-sided derivatives along each input
    element whose switch is zero."""
    found = []
    for t, element, row in at_kinks:
        symbols = local.canonical(t.size)
        point = _Point(env={c: sympy.Rational(float(v)) for c, v in zip(symbols, row,
                                                                         strict=True)})
        zero = [s for s in t.switches if point.is_zero(s)]
        for p, u in enumerate(symbols):
            if lnode.parents[t.inputs[p]] is None or not any(u in z.free_symbols for z in zero):
                continue
            left, right, convention = _one_sided(t.expr, u, point)
            found.append(Kink(lnode.name, lnode.site, _index(element, lnode.out_shape),
                              f"input {t.inputs[p]}", left, right, convention))
    return found


def _check_by_nodes(output: Tensor, gradient: Tensor | None,
                    inputs: Tensor | Sequence[Tensor] | None, rtol: float, atol: float,
                    sample: int | None, executor: Executor | None,
                    progress: bool | None) -> CheckReport:
    """:func:`check` of a large graph, node by node (see :mod:`symgrad.symbolic.scale`)."""
    order, leaves, chosen = _leaves(output, inputs)
    used = [t for t, _, on in chosen if on]
    graph = scale.build(output, used, progress)
    graph.seed = seed_array(output, gradient).astype(np.float64)
    rng = np.random.default_rng(0)
    plan = []
    for tensor, _, _ in chosen:
        size = int(tensor._value.size)
        picked = list(range(size))
        if sample is not None and sample < size:
            picked = sorted(rng.choice(size, size=sample, replace=False).tolist())
        plan.append(picked)
    index = {id(t): s for s, t in enumerate([t for t, _, on in chosen if on])}
    items = [(index[id(t)], k) for (t, _, on), picked in zip(chosen, plan, strict=True)
             if on for k in picked]
    tasks, rules, kinked = _node_tasks(order, graph)
    exact_values, results = scale.exact_and_nodes(graph, items, tasks, executor,
                                                  "symbolic.check", progress)
    nodes, wrong, kinks = _node_checks(graph, rules, results, kinked, rtol, atol)
    values = dict(zip(items, exact_values, strict=True))  # integers of 2**-SHIFT, nan, inf
    exact = [[values[(index[id(t)], k)] for k in picked] if on else [0] * len(picked)
             for (t, _, on), picked in zip(chosen, plan, strict=True)]
    try:
        numeric = _numeric_by_nodes(output, order, leaves, chosen, gradient)
    except Exception as error:  # as in _numeric_gradients
        if not wrong:
            raise
        n, verdict = wrong[0]
        where = f" created at {graph.nodes[n].site}" if graph.nodes[n].site else ""
        raise GradientMismatch(f"the numeric backward failed ({type(error).__name__}: {error})"
                               f"\nfirst node whose VJP disagrees with sympy: "
                               f"{graph.nodes[n].name}{where}: {verdict}") from error
    reports, failures = [], []
    for (tensor, name, _), picked, num, values in zip(chosen, plan, numeric, exact,
                                                      strict=True):
        shape = tuple(tensor._value.shape)
        report = InputReport(name, shape, [], 0.0, 0.0,
                             sampled=sample is not None and sample < math.prod(shape))
        if np.shape(num) != shape:  # a rule's wrongly shaped gradient
            failures.append((name, (), f"of shape {list(np.shape(num))}", f"shape {list(shape)}"))
            break
        flat = np.asarray(num, dtype=np.float64).reshape(-1)[picked].tolist()
        report.checked = _indices(picked, shape)
        for index, numeric_value, raw in zip(report.checked, flat, values, strict=True):
            if raw.__class__ is int:  # the common case, without making a sympy number
                value = raw / _DENOMINATOR  # correctly rounded
                error = abs(numeric_value - value)
                if error <= atol + rtol * abs(value):
                    _record(report, value, error, atol)
                    continue
            value = local.exact_value(raw)
            if not _tally(report, index, value, numeric_value, bool(kinks), rtol, atol):
                failures.append((name, index, numeric_value, _as_float(value)))
        reports.append(report)
    culprit = [f"the VJP rule of {graph.nodes[n].name}"
               + (f" (created at {graph.nodes[n].site})" if graph.nodes[n].site else "")
               + f" disagrees with sympy's derivative of its forward: {verdict}"
               for n, verdict in wrong[:1]]
    if failures:
        name, index, numeric_value, symbolic = failures[0]
        lines = [f"gradient of {name}: numeric {numeric_value} but {name} has {symbolic}"
                 if isinstance(numeric_value, str) else
                 f"gradient of {name} at index {index}: numeric {numeric_value!r} but sympy "
                 f"{symbolic!r} (rtol={rtol:g}, atol={atol:g}); {len(failures)} element(s) "
                 "differ"]
        if wrong:
            n, verdict = wrong[0]
            where = f" created at {graph.nodes[n].site}" if graph.nodes[n].site else ""
            lines.append(f"first node whose VJP disagrees with sympy: {graph.nodes[n].name}"
                         f"{where}: {verdict}")
        else:
            lines.append("every node's VJP agrees with sympy on its own: the graph's wiring "
                         "(edges, broadcasting, accumulation) is at fault")
        raise GradientMismatch("\n".join(lines))
    if culprit:
        raise GradientMismatch(culprit[0])
    return CheckReport(reports, kinks, rtol, atol, nodes=nodes)


def _numeric_by_nodes(output: Tensor, order: list[Node], leaves: list[Tensor],
                      chosen: list[tuple[Tensor, str, bool]], gradient: Tensor | None
                      ) -> list[np.ndarray]:
    """The engine's gradients of the chosen inputs (zeros for those the graph does not use),
    every ``.grad`` untouched; on a replay when a backward freed the graph."""
    from types import SimpleNamespace

    sources = [SimpleNamespace(tensor=t, requires_grad=True) for t in leaves]
    view = SimpleNamespace(steps=[SimpleNamespace(node=n) for n in order], sources=sources,
                           output=output)
    wanted = [next(s for s in sources if s.tensor is t) for t, _, on in chosen if on]
    out, tensors = live_graph(view, wanted)  # type: ignore[arg-type]
    grads = iter(api.grad(out, tensors, grad_outputs=gradient, retain_graph=True,
                          allow_unused=True) if tensors else [])
    result = []
    for tensor, _, on in chosen:
        g = next(grads) if on else None
        result.append(np.zeros(tensor._value.shape) if g is None
                      else g.numpy().astype(np.float64))
    return result


# --- one node against sympy ----------------------------------------------------------------


def _fresh_inputs(step: Step) -> tuple[list[Any], list[Any], dict[Any, Any]]:
    """Per differentiable input of the node: fresh symbols (so that ``x * x`` has two inputs),
    the arguments to replay its forward, and the symbols' exact values."""
    node = step.node
    fresh, args, env = [], [], {}
    for i, (edge, raw, value) in enumerate(zip(node.next, node.inputs, node.values,
                                               strict=True)):
        if edge is None:
            fresh.append(None)
            args.append(exact_operand(raw, value))
            continue
        shape = np.shape(value)
        symbols = symbol_array([f"_in{i}_{k}" for k in range(math.prod(shape))], shape)
        env.update(zip(symbols.reshape(-1), _exact(value, raw).reshape(-1), strict=True))
        fresh.append(symbols)
        args.append(symbols)
    return fresh, args, env


def _probe(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """A cotangent with small-integer entries (exact in floats and in sympy)."""
    rng = np.random.default_rng(seed)
    return rng.integers(-3, 4, size=shape).astype(np.float64) + 0.5


def _sympy_vjp(definition: np.ndarray, g: np.ndarray, u: Any) -> Any:
    """sum_j g_j * d definition_j / du: sympy's VJP of a node's forward for one input element."""
    return sympy.Add(*[gj * sympy.diff(d, u) for gj, d in zip(g, definition, strict=True)
                       if isinstance(d, sympy.Basic) and u in d.free_symbols])


def node_vjp_error(step: Step, rtol: float = 1e-6) -> str | None:
    """None if the node's numeric VJP agrees with sympy's derivative of its forward at the
    recorded values (on a probe cotangent); otherwise what differs."""
    node = step.node
    op = node.op
    params = node.params or {}
    values = node.values
    fresh, args, env = _fresh_inputs(step)
    try:
        ans = op.forward(numeric_xp, *values, **params)
        definition = symbolic_forward(op, args, exact_params(node))
    except Exception:  # noqa: BLE001 - a node that cannot be replayed is not the culprit
        return None
    g = _probe(np.shape(ans))
    point = _Point(env=env)
    try:
        numeric = _numeric_vjp(node, g, ans)
    except Exception as error:  # noqa: BLE001 - a rule that crashes is a wrong rule
        return f"its VJP rule raised {type(error).__name__}: {error}"
    flat_def = definition.reshape(-1)
    flat_g = [sympy.Rational(str(gj)) for gj in g.reshape(-1)]
    for i, symbols in enumerate(fresh):
        if symbols is None:
            continue
        shape = np.shape(values[i])
        rule = numeric[i] if i < len(numeric) else None
        # a rule's None means zeros, as in the engine
        num = np.zeros(shape) if rule is None else _reduce_to(rule, shape)
        if num is None:
            return (f"its VJP rule returned a gradient of shape {list(np.shape(rule))} for "
                    f"input {i} of shape {list(shape)}")
        num = np.asarray(num, dtype=np.float64).reshape(-1)
        for k, u in enumerate(symbols.reshape(-1)):
            value = _as_float(point.value(_sympy_vjp(flat_def, flat_g, u)))
            if not math.isfinite(value):
                continue
            if not abs(num[k] - value) <= 1e-9 + rtol * abs(value):
                return (f"input {i} element {k}: its VJP rule gives {float(num[k])!r}, "
                        f"sympy.diff of its forward gives {value!r}")
    return None


def _numeric_vjp(node: Node, g: np.ndarray, ans: Any) -> list[Any]:
    op = node.op
    params = node.params or {}
    needs = tuple(e is not None for e in node.next)
    with np.errstate(all="ignore"):
        if op.joint_vjp is not None:
            return list(op.joint_vjp(numeric_xp, g, ans, needs, *node.values, **params))
        return [rule(numeric_xp, g, ans, *node.values, **params) if need and rule else None
                for rule, need in zip(op.vjp, needs, strict=True)]


def _rationalize(expr: Any) -> Any:
    """``expr`` with its Floats replaced by the exact rationals they hold."""
    floats = expr.atoms(sympy.Float)
    return expr.xreplace({f: sympy.Rational(f) for f in floats}) if floats else expr


def prove_node(step: Step, rtol: float = 1e-6, formulas: bool = True) -> NodeProof:
    """Exact mode for one node: its VJP rule run on sympy expressions against sympy's
    derivative of its forward -- at the recorded point (exactly) and, where sympy's
    simplification can decide it, as formulas."""
    node = step.node
    op = node.op
    fresh, args, env = _fresh_inputs(step)
    params = exact_params(node)
    definition = symbolic_forward(op, args, params)
    g_symbols = symbol_array([f"_g{k}" for k in range(definition.size)], definition.shape)
    flat_g = g_symbols.reshape(-1)
    env.update(zip(flat_g, (sympy.Rational(str(v)) for v in _probe(definition.shape).reshape(-1)),
                   strict=True))
    needs = tuple(s is not None for s in fresh)
    if op.joint_vjp is not None:
        rules = op.joint_vjp(sx, g_symbols, definition, needs, *args, **params)
    else:
        rules = [rule(sx, g_symbols, definition, *args, **params) if need and rule else None
                 for rule, need in zip(op.vjp, needs, strict=True)]
    point = _Point(env=env)
    at_point, formula = True, "proved"
    flat_def = definition.reshape(-1)
    # a custom Function's backward computes in floats from its saved tensors: equal at the
    # point means equal to rtol; the registry's rules run on the exact symbols
    floating = getattr(op.node_class, "_forward_cls", None) is not None
    for symbols, rule in zip(fresh, rules, strict=True):
        if symbols is None or rule is None:
            continue
        ours = sx.sum_to_shape(sx.asarray(rule), symbols.shape).reshape(-1)
        for k, u in enumerate(symbols.reshape(-1)):
            theirs = _sympy_vjp(flat_def, flat_g, u)
            # the rules' float literals (0.5, 1.0) are exact binary fractions: make them
            # rationals, so that a 15-digit Float does not limit the exact comparison
            difference = _rationalize(ours[k] - theirs)
            value = _as_float(point.value(difference))
            limit = rtol * max(1.0, abs(_as_float(point.value(theirs)))) if floating else 1e-25
            if math.isfinite(value) and abs(value) > limit:
                at_point, formula = False, "differs"
                continue
            if formula != "proved":
                continue
            if not formulas:
                formula = "not attempted"
                continue
            try:
                simplified = sympy.simplify(difference)
            except Exception:  # noqa: BLE001 - sympy could not decide
                simplified = None
            if simplified != 0:
                formula = "undecided"
    return NodeProof(step.name, _site(node), at_point, formula)


__all__ = ["CheckReport", "GradientMismatch", "InputReport", "Kink", "NodeProof", "check",
           "local_partials"]
