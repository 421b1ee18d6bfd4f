"""``check_hessian``: the numeric double backward against sympy's second derivatives.

The numeric Hessian is the Jacobian of the gradient that symgrad's engine builds with
``create_graph=True`` (its VJP rules run on Tensors, then differentiated again). The exact one
comes from sympy alone: the first and second derivatives of each node's lowered forward,
chained forward-over-reverse at the current point (a tangent sweep from one input element, then
the adjoints' derivatives along it), so the cost grows with the graph rather than with the
expanded expression. Where they disagree, each node's VJP and double backward are checked on
their own against sympy, and the first wrong one is named with where it was created.
"""

from __future__ import annotations

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
from symgrad.autograd.naming import caller_names
from symgrad.symbolic.calculus import (
    Chain,
    _inputs,
    add_numbers,
    as_gradient,
    seeds,
    templated_partials,
)
from symgrad.symbolic.crosscheck import (
    GradientMismatch,
    Kink,
    _as_float,
    _fresh_inputs,
    _index,
    _kinks,
    _Point,
    _probe,
    _rerun,
    _special_points,
    _sympy_vjp,
    _tally,
    culprit_line,
    default_tolerances,
    live_graph,
    node_vjp_error,
)
from symgrad.symbolic.lowering import (
    Lowered,
    Source,
    Step,
    exact_params,
    lower,
    symbolic_forward,
)
from symgrad.symbolic.scale import Shared, run, workers
from symgrad.tensor import Tensor


class HessianMismatch(GradientMismatch):
    """The numeric Hessian (double backward) disagrees with sympy's second derivative.

    Raised by :func:`check_hessian`; ``inputs`` names the two inputs of the block, ``index``
    the element in that block (indexed as ``inputs[0].shape + inputs[1].shape``) and ``node``
    the first node found whose VJP or double backward disagrees with sympy (None if none does).

    >>> error = symgrad.symbolic.HessianMismatch("...", ("x", "x"), (), "CubeBackward")
    >>> isinstance(error, AssertionError), error.node
    (True, 'CubeBackward')
    """

    def __init__(self, message: str, inputs: tuple[str, str] = ("", ""),
                 index: tuple[int, ...] = (), node: str | None = None) -> None:
        super().__init__(message)
        self.inputs = inputs
        self.index = index
        self.node = node


@dataclass
class HessianBlock:
    """What :func:`check_hessian` found in the block of second derivatives d²/d``rows``
    d``columns`` (its elements indexed as ``rows.shape + columns.shape``).

    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> print(symgrad.symbolic.check_hessian(x.sum() ** 2).blocks[0])
    (x, x): 4 elements, max abs error 0, max rel error 0
    """

    rows: str
    columns: str
    shape: tuple[int, ...]
    checked: int = 0
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    undefined: list[tuple[tuple[int, ...], str, float]] = field(default_factory=list)
    at_kinks: list[tuple[tuple[int, ...], str, float]] = field(default_factory=list)

    def __str__(self) -> str:
        count = self.checked
        return (f"({self.rows}, {self.columns}): {count} element{'' if count == 1 else 's'}, "
                f"max abs error {self.max_abs_error:.3g}, max rel error "
                f"{self.max_rel_error:.3g}{_special_points(self)}")


@dataclass
class HessianReport:
    """The result of :func:`check_hessian`.

    ``blocks`` has one :class:`HessianBlock` per ordered pair of inputs; ``numeric`` and
    ``symbolic`` are the two Hessians over the inputs' elements flattened and concatenated in
    order (float64; sympy's nan where it is undefined); ``max_asymmetry`` is the largest
    ``|H - Hᵀ|`` of the numeric one; ``kinks`` the non-differentiable points met.

    >>> x = symgrad.tensor(0.5, requires_grad=True)
    >>> y = symgrad.tensor(2.0, requires_grad=True)
    >>> report = symgrad.symbolic.check_hessian(x * y, [x, y])
    >>> [(b.rows, b.columns) for b in report.blocks]
    [('x', 'x'), ('x', 'y'), ('y', 'x'), ('y', 'y')]
    >>> report.numeric
    array([[0., 1.],
           [1., 0.]])
    """

    output: str
    inputs: list[str]
    blocks: list[HessianBlock]
    kinks: list[Kink]
    rtol: float
    atol: float
    numeric: np.ndarray
    symbolic: np.ndarray
    max_asymmetry: float

    @property
    def symmetric(self) -> bool:
        """Whether the numeric Hessian equals its transpose within the tolerances.

        >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> symgrad.symbolic.check_hessian((x[0] * x[1] ** 2).sin(), x).symmetric
        True
        """
        finite = np.abs(self.numeric[np.isfinite(self.numeric)])
        scale = float(finite.max()) if finite.size else 0.0
        return bool(self.max_asymmetry <= self.atol + self.rtol * scale)

    def __str__(self) -> str:
        lines = [f"Hessian check of {self.output} passed (rtol={self.rtol:g}, "
                 f"atol={self.atol:g})"]
        lines += [f"  {b}" for b in self.blocks]
        verdict = "symmetric" if self.symmetric else "NOT symmetric"
        lines.append(f"  numeric Hessian {verdict}: max |H - H.T| {self.max_asymmetry:.3g}")
        lines += [f"  kink: {k}" for k in self.kinks]
        return "\n".join(lines)

    __repr__ = __str__


class _SecondDerivatives:
    """sympy's exact Hessian at the point, one column per input element: forward-over-reverse
    over the local definitions, with their first and second partials from ``sympy.diff``."""

    def __init__(self, lowered: Lowered, chain: Chain, point: _Point,
                 root_seeds: dict[Any, Any]) -> None:
        self.active = chain.active
        self.templates = chain._templates  # (picklable, for an executor: not the chain)
        self.point = point
        self.order = [placeholder for step in lowered.steps
                      for _, placeholder, _ in step.placeholders()]
        # placeholder -> [(w, d definition / dw, its value at the point)]
        self.first = {placeholder: [(w, p, point.value(p))
                                    for w, p in chain.partials(placeholder, definition)]
                      for step in lowered.steps
                      for _, placeholder, definition in step.placeholders()}
        self.second: dict[tuple[Any, Any], list[tuple[Any, Any]]] = {}
        # adjoints at the point, the placeholders' included (chain.reverse keeps the leaves')
        adjoint: dict[Any, Any] = defaultdict(lambda: sympy.Integer(0))
        for symbol, value in root_seeds.items():
            if symbol in chain.active:
                adjoint[symbol] += value
        for placeholder in reversed(self.order):
            a = adjoint.get(placeholder)
            if a is not None and a != 0:
                for w, _, value in self.first[placeholder]:
                    adjoint[w] += a * value
        self.adjoint = dict(adjoint)

    def column(self, u: Any) -> dict[Any, Any]:
        """d (gradient) / du: symbol -> the derivative of its adjoint along ``u``."""
        tangent = {u: sympy.Integer(1)}
        for placeholder in self.order:
            terms = [value * tangent[w] for w, _, value in self.first[placeholder]
                     if w in tangent]
            if terms:
                tangent[placeholder] = add_numbers(terms)
        dot: dict[Any, list[Any]] = defaultdict(list)
        for placeholder in reversed(self.order):
            a_dot = add_numbers(dot.pop(placeholder, ()))
            a = self.adjoint.get(placeholder, 0)
            for w, p, value in self.first[placeholder]:
                if a_dot != 0:
                    dot[w].append(a_dot * value)
                if a != 0:
                    curvature = self._along(placeholder, w, p, tangent)
                    if curvature != 0:
                        dot[w].append(a * curvature)
        return {w: add_numbers(terms) for w, terms in dot.items()}

    def _along(self, placeholder: Any, w: Any, partial: Any, tangent: dict[Any, Any]) -> Any:
        """The derivative of one local partial along the tangent (second partials cached,
        derived once per template: :meth:`Chain.partials`)."""
        key = (placeholder, w)
        seconds = self.second.get(key)
        if seconds is None:
            seconds = self.second[key] = _seconds(self.point, self.active, self.templates,
                                                  partial)
        return add_numbers([value * tangent[z] for z, value in seconds if z in tangent])

    def needed(self) -> list[tuple[tuple[Any, Any], Any]]:
        """``((placeholder, w), partial)`` of every local partial whose second partials the
        columns read (those under a nonzero adjoint), in sweep order."""
        return [((placeholder, w), p) for placeholder in reversed(self.order)
                if self.adjoint.get(placeholder, 0) != 0
                for w, p, _ in self.first[placeholder]]


def _seconds(point: _Point, active: Any, templates: Any, partial: Any
             ) -> list[tuple[Any, Any]]:
    """One local partial's own partials (derived once per template), at the point."""
    return [(z, point.value(d)) for z, d in templated_partials(partial, active, templates)]


def _seconds_task(shared: Shared, partials: list[Any]) -> list[list[tuple[Any, Any]]]:
    """:func:`_seconds` of each of ``partials`` (a task: ``shared`` holds the point, the
    active symbols and the templates)."""
    point, active, templates = shared.value
    return [_seconds(point, active, templates, p) for p in partials]


def _columns(sweeps: Shared, symbols: list[Any]) -> list[dict[Any, Any]]:
    """The Hessian columns of ``symbols`` (a task: runs in another process just as well)."""
    return [sweeps.value.column(u) for u in symbols]


def _numeric_hessian(lowered: Lowered, sources: list[Source],
                     gradient: Tensor | None) -> np.ndarray:
    """The Jacobian of the engine's ``create_graph`` gradient, rows = gradient elements."""
    output, tensors = live_graph(lowered, sources)
    sizes = [t._value.size for t in tensors]
    offsets = np.cumsum([0, *sizes])
    hessian = np.zeros((offsets[-1], offsets[-1]))
    with grad_mode.enable_grad():
        first = api.grad(output, tensors, grad_outputs=gradient,
                                      retain_graph=True, create_graph=True, allow_unused=True)
        for a, g in enumerate(first):
            # a gradient that does not require grad has zero derivative: what a backward that
            # is not differentiable gives, so it is compared, not an error
            if g is None or not g.requires_grad:
                continue
            for i in range(sizes[a]):
                seed = np.zeros(g._value.size, dtype=g._value.dtype)
                seed[i] = 1
                row = api.grad(g, tensors, grad_outputs=Tensor(
                    seed.reshape(g._value.shape)), retain_graph=True, allow_unused=True)
                for b, r in enumerate(row):
                    if r is not None:
                        hessian[offsets[a] + i, offsets[b]:offsets[b + 1]] = \
                            r.numpy().reshape(-1)
    return hessian


def check_hessian(output: Tensor, inputs: Tensor | Sequence[Tensor] | None = None,
                  gradient: Tensor | None = None, rtol: float | None = None,
                  atol: float | None = None, *, executor: Executor | None = None,
                  progress: bool | None = None) -> HessianReport:
    """Check the double backward of ``output`` against sympy's second derivatives.

    The numeric Hessian is the Jacobian of the gradient built with ``create_graph=True``; the
    exact one is sympy's, of the lowered forward, at the current values. With several
    ``inputs`` (default: every leaf that requires grad) every block d²/dx dy is checked,
    indexed as ``x.shape + y.shape`` (as ``autograd.functional.hessian``). ``gradient`` is the
    v of vᵀJ for an output of more than one element (the Hessian of ⟨v, output⟩). Tolerances
    default by dtype as in :func:`~symgrad.symbolic.check`. No ``.grad`` is touched and the
    graph stays usable. Points where a second derivative is undefined, and kinks, are
    reported, not treated as mismatches. ``executor`` (any ``concurrent.futures.Executor``)
    computes the exact Hessian's columns; the report is the serial one. ``progress`` shows a
    bar on stderr (None: on a terminal, after about 2 s).

    Raises :class:`HessianMismatch` naming the inputs, the index, both values and the first
    node whose VJP or double backward disagrees with sympy, with where it was created.

    >>> x = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, requires_grad=True)
    >>> report = symgrad.symbolic.check_hessian((x ** 3).sum(), x)
    >>> report.numeric
    array([[ 6.,  0.],
           [ 0., 12.]])
    >>> print(report)
    Hessian check of ... passed (rtol=1e-07, atol=1e-10)
      (x, x): 4 elements, max abs error 0, max rel error 0
      numeric Hessian symmetric: max |H - H.T| 0
    """
    if not isinstance(output, Tensor):
        raise TypeError(f"check_hessian() expects a Tensor, but got {type(output).__name__}")
    names = caller_names()
    lowered = lower(output)
    sources = _inputs(lowered, inputs, allow_unused=True)
    gradient = as_gradient(output, gradient)
    root_seeds = seeds(lowered, gradient)  # raises backward's error for a non-scalar output
    default_rtol, default_atol = default_tolerances(output)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    name = output.name or names.get(id(output))
    label = name or "the output"
    if gradient is not None:
        label = f"(gradient · {name or 'output'})"

    numeric = _numeric_hessian(lowered, sources, gradient)
    point = _Point.of(lowered)
    chain = Chain.of(lowered)
    kinks, near_kink = _kinks(lowered, point, chain)
    sweeps = _SecondDerivatives(lowered, chain, point, root_seeds)
    symbols = [u for src in sources for u in src.symbols.reshape(-1)]
    exact = _exact_hessian(sweeps, symbols, executor, progress)
    # where a first or second derivative is undefined (sqrt at 0), the engine's nan or inf
    # spreads along that element's row and column (0 * inf): undefined there, not wrong
    singular = {u for k, u in enumerate(symbols)
                if not all(math.isfinite(_as_float(e)) for e in
                           (sweeps.adjoint.get(u, 0), *exact[:, k]))}
    blocks, failures = _compare_blocks(sources, symbols, numeric, exact, singular, near_kink,
                                       rtol, atol)
    if failures:
        message, node = _mismatch_message(lowered, label, failures, rtol, atol)
        block, index = failures[0][:2]
        raise HessianMismatch(message, (block.rows, block.columns), index, node)
    with np.errstate(invalid="ignore"):
        asymmetry = np.abs(numeric - numeric.T)
    asymmetry = asymmetry[np.isfinite(asymmetry)]  # undefined elements left out
    return HessianReport(label, [src.name for src in sources], blocks, kinks, rtol, atol,
                         numeric, np.vectorize(_as_float, otypes=[float])(exact)
                         if exact.size else np.zeros(exact.shape),
                         float(asymmetry.max()) if asymmetry.size else 0.0)


def _exact_hessian(sweeps: Any, symbols: list[Any], executor: Executor | None,
                   progress: bool | None) -> np.ndarray:
    """sympy's Hessian at the point, column by column (on ``executor`` when given)."""
    exact = np.empty((len(symbols), len(symbols)), dtype=object)
    if executor is None:  # one task per column: the bar moves
        chunks = [[u] for u in symbols]
    else:  # the second partials first (most of the work), spread too
        needed = sweeps.needed()
        count = max(1, min(len(needed), 4 * workers(executor)))
        point = Shared((sweeps.point, sweeps.active, sweeps.templates))
        parts = [needed[c::count] for c in range(count)]  # a node's partials cost alike
        done = run([(_seconds_task, (point, [p for _, p in part])) for part in parts],
                   executor, "symbolic.check_hessian", progress)
        for part, seconds in zip(parts, done, strict=True):
            sweeps.second.update((key, found) for (key, _), found in zip(part, seconds,
                                                                          strict=True))
        count = max(1, min(len(symbols), 4 * workers(executor)))
        size = -(-len(symbols) // count)
        chunks = [symbols[c:c + size] for c in range(0, len(symbols), size)]
    shared = Shared(sweeps)  # unpickled once per worker, not once per chunk
    columns = [column for chunk in run([(_columns, (shared, chunk)) for chunk in chunks],
                                       executor, "symbolic.check_hessian", progress)
               for column in chunk]
    for k, column in enumerate(columns):
        for i, w in enumerate(symbols):
            exact[i, k] = column.get(w, sympy.Integer(0))
    return exact


def _compare_blocks(sources: list[Any], symbols: list[Any], numeric: np.ndarray,
                    exact: np.ndarray, singular: set[Any], near_kink: set[Any], rtol: float,
                    atol: float) -> tuple[list[HessianBlock], list[tuple]]:
    """One block per pair of inputs, every element compared; and the elements that differ."""
    blocks, failures = [], []
    offsets = np.cumsum([0, *(src.symbols.size for src in sources)])
    for a, rows in enumerate(sources):
        for b, columns in enumerate(sources):
            block = HessianBlock(rows.name, columns.name,
                                 tuple(rows.symbols.shape) + tuple(columns.symbols.shape))
            for i in range(rows.symbols.size):
                for j in range(columns.symbols.size):
                    r, c = offsets[a] + i, offsets[b] + j
                    index = _index(i, rows.symbols.shape) + _index(j, columns.symbols.shape)
                    block.checked += 1
                    if not math.isfinite(numeric[r, c]) and {symbols[r], symbols[c]} & singular:
                        block.undefined.append((index, str(exact[r, c]), float(numeric[r, c])))
                        continue
                    at_kink = symbols[r] in near_kink or symbols[c] in near_kink
                    if not _tally(block, index, exact[r, c], float(numeric[r, c]), at_kink,
                                 rtol, atol):
                        failures.append((block, index, float(numeric[r, c]),
                                         _as_float(exact[r, c])))
            blocks.append(block)
    return blocks, failures


def _mismatch_message(lowered: Lowered, label: str, failures: list, rtol: float,
                      atol: float) -> tuple[str, str | None]:
    block, index, numeric, symbolic = failures[0]
    what = block.rows if block.rows == block.columns else f"({block.rows}, {block.columns})"
    lines = [f"Hessian of {label} w.r.t. {what} at index {index}: numeric {numeric!r} but "
             f"sympy {symbolic!r} (rtol={rtol:g}, atol={atol:g}); {len(failures)} element(s) "
             "differ"]
    for step in lowered.steps:
        verdict = node_vjp_error(step)
        kind = "VJP"
        if verdict is None:
            verdict, kind = node_hessian_error(step), "double backward"
        if verdict is not None:
            lines.append(culprit_line(step, kind, verdict))
            return "\n".join(lines), step.name
    lines.append("every node's VJP and double backward agree with sympy on their own: the "
                 "graph's wiring (edges, broadcasting, accumulation) is at fault")
    return "\n".join(lines), None


# --- one node against sympy ----------------------------------------------------------------


def node_hessian_error(step: Step, rtol: float = 1e-6) -> str | None:
    """None if the node's double backward agrees with sympy's second derivative of its forward
    at the recorded values; otherwise what differs.

    The node's op runs again on fresh float64 leaves; its VJP of a probe cotangent ``g``,
    built with ``create_graph=True``, is contracted with a probe ``w`` and differentiated
    again, against ``sympy.diff`` of ``Σ w · (gᵀ ∂forward)``.

    >>> x = symgrad.tensor([0.5, 1.0], dtype=symgrad.float64, requires_grad=True)
    >>> step = symgrad.symbolic.lower(x.sin() * x).steps[-1]
    >>> print(symgrad.symbolic.second_order.node_hessian_error(step))
    None
    """
    node = step.node
    params = node.params or {}
    if getattr(type(node), "_forward_cls", None) is not None and (
            params.get("layout") is not None or "args" not in params):
        return None  # a Function with several outputs: its replay shares the recorded ctx
    try:
        fresh, args, env = _fresh_inputs(step)
        definition = symbolic_forward(node.op, args, exact_params(node))
    except Exception:  # noqa: BLE001 - a node that cannot be replayed is not the culprit
        return None
    call, leaves = [], []
    for i, (edge, raw, value) in enumerate(zip(node.next, node.inputs, node.values,
                                               strict=True)):
        if edge is None:
            call.append(creation.tensor(np.asarray(value).astype(raw._value.dtype))
                        if isinstance(raw, Tensor) else value)
            continue
        leaf = creation.tensor(np.asarray(value, dtype=np.float64), requires_grad=True)
        call.append(leaf)
        leaves.append((i, leaf, _probe(np.shape(value), seed=i + 1)))
    tensors = [leaf for _, leaf, _ in leaves]
    try:
        with grad_mode.enable_grad(), np.errstate(all="ignore"):
            out = _rerun(node, call)
            if not out.requires_grad:
                return None
            g = _probe(out.shape)
            firsts = api.grad(out, tensors, Tensor(g), create_graph=True,
                                           allow_unused=True)
            terms = [(r * Tensor(w)).sum() for r, (_, _, w) in zip(firsts, leaves, strict=True)
                     if r is not None and r.requires_grad]
            seconds: Sequence[Tensor | None] = [None] * len(leaves)
            if terms:
                seconds = api.grad(sum(terms[1:], terms[0]), tensors,
                                                allow_unused=True)
    except Exception:  # noqa: BLE001 - as above
        return None
    flat_def = definition.reshape(-1)
    flat_g = [sympy.Rational(str(v)) for v in g.reshape(-1)]
    contracted = sympy.Add(*[
        sympy.Rational(str(w_m)) * _sympy_vjp(flat_def, flat_g, u)
        for i, _, w in leaves for u, w_m in zip(fresh[i].reshape(-1), w.reshape(-1),
                                               strict=True)])
    point = _Point(env=env)
    for (i, leaf, _), h in zip(leaves, seconds, strict=True):
        num = np.zeros(leaf._value.size) if h is None else h.numpy().reshape(-1)
        for k, u in enumerate(fresh[i].reshape(-1)):
            value = _as_float(point.value(sympy.diff(contracted, u)))
            if not math.isfinite(value) or abs(num[k] - value) <= 1e-9 + rtol * abs(value):
                continue
            text = (f"input {i} element {k}: differentiating its backward gives "
                    f"{float(num[k])!r}, sympy's second derivative of its forward gives "
                    f"{value!r}")
            if not terms:
                text += (" (the gradients its backward returns do not require grad: detached, "
                         "or computed outside symgrad's ops)")
            return text
    return None


__all__ = ["HessianBlock", "HessianMismatch", "HessianReport", "check_hessian",
           "node_hessian_error"]
