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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from symgrad import creation
from symgrad.autograd import api, grad_mode
from symgrad.autograd.graph import Node
from symgrad.numeric import numpy_namespace as numeric_xp
from symgrad.symbolic import sympy_namespace as sx
from symgrad.symbolic.calculus import (
    Chain,
    _inputs,
    as_gradient,
    local_partials,
    seeds,
)
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
from symgrad.tensor import Tensor

DIGITS = 40  # working precision of transcendental values
_TOLERANCES = {"float64": (1e-7, 1e-10), "float32": (1e-4, 1e-6)}  # (rtol, atol)


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

    def __str__(self) -> str:
        lines = [f"gradient check passed (rtol={self.rtol:g}, atol={self.atol:g})"]
        lines += [f"  {r}" for r in self.inputs]
        lines += [f"  kink: {k}" for k in self.kinks]
        lines += [f"  exact: {p}" for p in self.proofs]
        return "\n".join(lines)

    __repr__ = __str__


def _site(node: Node) -> str | None:
    site = getattr(node, "creation_site", None)
    if site is None:
        return None
    return f"{site[0]}:{site[1]}"


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def _numeric_power(node: Any, args: list[Any]) -> Any:
    if node.func is sympy.Pow and args[0].is_number and args[1].is_number \
            and not args[1].is_Integer:
        return sympy.Pow(args[0], sympy.Float(args[1], DIGITS))
    return node.func(*args)


class _Point:
    """Values of every symbol of a lowered graph at the current point: the leaves' exact
    rationals, and each node's elements to :data:`DIGITS` digits."""

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
    report.max_abs_error = max(report.max_abs_error, error)
    if abs(value) > atol:  # relative error of values at the noise floor means nothing
        report.max_rel_error = max(report.max_rel_error, error / abs(value))
    return True


def _numeric_gradients(lowered: Lowered, sources: list[Source],
                       gradient: Tensor | None) -> list[np.ndarray]:
    """The engine's gradients, leaving every ``.grad`` untouched: on the recorded graph, or on
    a replay of it when a backward has already freed it."""
    output, tensors = live_graph(lowered, sources)
    grads = api.grad(output, tensors, grad_outputs=gradient, retain_graph=True,
                                  allow_unused=True)
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
                    args.append(Tensor(np.asarray(value).astype(raw._value.dtype)))
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
                                      str(v) if not str(v).startswith("_t") else "its input",
                                      left, right, convention, step.node.op.convention))
            affected |= inlined.free_symbols & leaf_symbols
    return kinks, affected


def _without_conditions(expr: Any) -> Any:
    """``expr`` with each Piecewise replaced by the sum of its branches' values: the symbols
    it depends on other than through a condition."""
    return expr.replace(sympy.Piecewise,
                        lambda *pairs: sympy.Add(*[pair[0] for pair in pairs]))


def _switches(expr: Any) -> list[Any]:
    """Expressions whose zeros are the non-differentiable points of ``expr``."""
    found = []
    for atom in expr.atoms(sympy.Abs, sympy.sign, sympy.Heaviside, sympy.Max, sympy.Min,
                           sympy.Piecewise, sympy.floor, sympy.ceiling):
        if isinstance(atom, sympy.Piecewise):
            for _, condition in atom.args:
                for rel in condition.atoms(sympy.core.relational.Relational):
                    found.append(rel.lhs - rel.rhs)
        elif isinstance(atom, sympy.Max | sympy.Min):
            args = list(atom.args)
            found += [a - b for i, a in enumerate(args) for b in args[i + 1:]]
        elif isinstance(atom, sympy.floor | sympy.ceiling):
            found.append(atom.args[0] - atom)
        else:
            found.append(atom.args[0])
    return found


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
          exact: bool = False) -> CheckReport:
    """Check the numeric backward of ``output`` against sympy's derivative, element by element.

    ``gradient`` is the v of vᵀJ, as ``backward`` takes it; ``inputs`` default to every leaf
    that requires grad. No ``.grad`` is touched. Tolerances default by dtype (float64: rtol
    1e-7, atol 1e-10; float32: 1e-4, 1e-6). ``sample=k`` checks ``k`` random elements of each
    input (the report says which). Points where the derivative is undefined and
    non-differentiable points (kinks) are reported, not treated as mismatches. ``exact=True``
    also proves each node's VJP rule equal to sympy's derivative of its forward.

    Raises :class:`GradientMismatch` naming the input, the index, both values and the first
    node whose VJP rule disagrees with sympy, with where it was created.

    >>> a = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, requires_grad=True)
    >>> b = symgrad.tensor([3.0, 4.0], dtype=symgrad.float64, requires_grad=True)
    >>> c = a * b
    >>> print(symgrad.symbolic.check(c, gradient=symgrad.tensor([1.0, 0.5])))
    gradient check passed (rtol=1e-07, atol=1e-10)
      a: 2 elements, max abs error 0, max rel error 0
      b: 2 elements, max abs error 0, max rel error 0
    """
    lowered = lower(output)
    sources = _inputs(lowered, inputs, allow_unused=True)
    dtype = output._value.dtype.name
    default_rtol, default_atol = _TOLERANCES.get(dtype, _TOLERANCES["float32"])
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    gradient = as_gradient(output, gradient)
    root_seeds = seeds(lowered, gradient)
    numeric = _numeric_gradients(lowered, sources, gradient)
    point = _Point(lowered)
    chain = Chain(lowered)
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
    for src, num in zip(sources, numeric, strict=True):
        symbols = src.symbols.reshape(-1)
        chosen = range(len(symbols))
        if sample is not None and sample < len(symbols):
            chosen = sorted(rng.choice(len(symbols), size=sample, replace=False).tolist())
        report = InputReport(src.name, tuple(src.symbols.shape), [], 0.0, 0.0,
                             sampled=sample is not None and sample < len(symbols))
        flat_num = num.reshape(-1)
        for k in chosen:
            index = _index(k, report.shape)
            report.checked.append(index)
            exact_value = symbolic_at(symbols[k])
            n = float(flat_num[k])
            if not _tally(report, index, exact_value, n, symbols[k] in near_kink, rtol, atol):
                failures.append((src, index, n, _as_float(exact_value)))
        reports.append(report)
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
    lines = [f"gradient of {src.name} at index {index}: numeric {float(numeric)!r} but sympy "
             f"{symbolic!r} (rtol={rtol:g}, atol={atol:g}); {len(failures)} element(s) differ"]
    for step in lowered.steps:
        verdict = node_vjp_error(step)
        if verdict is not None:
            lines.append(culprit_line(step, "VJP", verdict))
            break
    else:
        if not math.isfinite(float(numeric)):
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
    numeric = _numeric_vjp(node, g, ans)
    flat_def = definition.reshape(-1)
    flat_g = [sympy.Rational(str(gj)) for gj in g.reshape(-1)]
    for i, symbols in enumerate(fresh):
        if symbols is None or numeric[i] is None:
            continue
        num = numeric_xp.sum_to_shape(np.asarray(numeric[i], dtype=np.float64),
                                      np.shape(values[i])).reshape(-1)
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
