"""Derivatives of a lowered graph by ``sympy.diff``, chained node by node.

Each node's output elements are defined by small expressions of its inputs (the local form of
:mod:`symgrad.symbolic.lower`); sympy differentiates those, and the chain rule runs over the
graph in reverse (adjoints summed where a value has several uses). None of symgrad's own VJP
rules take part, which is what makes these derivatives an independent check of the numeric
backward.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy

from symgrad import creation
from symgrad.symbolic.lowering import (
    Lowered,
    Source,
    Step,
    _array,
    _exact,
    _substitute,
    _symbol_names,
    lower,
    symbol_array,
)
from symgrad.symbolic.printing import Formula
from symgrad.tensor import Tensor


def local_partials(definition: Any, active: set[Any]) -> list[tuple[Any, Any]]:
    """``[(u, d definition / du)]`` for the ``active`` symbols ``u`` in ``definition``.

    A sum is split by symbol first, so that each derivative is taken of the few terms that
    contain that symbol (a matmul element is a sum over a whole row).
    """
    symbols = [u for u in definition.free_symbols if u in active]
    if not symbols:
        return []
    if definition.is_Add and len(symbols) > 1:
        by_symbol: dict[Any, list[Any]] = defaultdict(list)
        for term in definition.args:
            for u in term.free_symbols:
                if u in active:
                    by_symbol[u].append(term)
        return [(u, sympy.Add(*[_diff(term, u) for term in terms]))
                for u, terms in by_symbol.items()]
    return [(u, _diff(definition, u)) for u in symbols]


def _diff(expr: Any, u: Any) -> Any:
    """``sympy.diff(expr, u)``, answered directly when ``expr`` is ``u`` times factors free of
    ``u`` (the terms of a matmul), where sympy's general machinery costs a millisecond."""
    if expr is u:
        return sympy.Integer(1)
    if expr.is_Mul:
        others = [f for f in expr.args if f is not u]
        if len(others) == len(expr.args) - 1 and not any(u in f.free_symbols for f in others):
            return sympy.Mul(*others)
    return sympy.diff(expr, u)


# stand-ins for a definition's symbols in the templates of Chain.partials
_CANONICAL = [sympy.Dummy(f"s{k}", real=True) for k in range(16)]


class Chain:
    """The chain rule over a :class:`Lowered` graph, with the local partials cached."""

    def __init__(self, lowered: Lowered) -> None:
        self.lowered = lowered
        self.active: set[Any] = set()
        for src in lowered.sources:
            if src.requires_grad:
                self.active.update(src.symbols.reshape(-1))
        for step in lowered.steps:
            self.active.update(s for _, s, _ in step.placeholders())
        self._partials: dict[Any, list[tuple[Any, Any]]] = {}
        self._templates: dict[Any, list[tuple[Any, Any]]] = {}

    def partials(self, placeholder: Any, definition: Any) -> list[tuple[Any, Any]]:
        """The cached :func:`local_partials` of one placeholder's definition.

        Definitions that differ only in their symbols (the same op on every element, the same
        layer repeated) share one template: sympy differentiates each shape once.
        """
        found = self._partials.get(placeholder)
        if found is None:
            symbols = sorted(definition.free_symbols, key=str)
            canonical = [_CANONICAL[k] for k in range(len(symbols))] \
                if len(symbols) <= len(_CANONICAL) else None
            if canonical is None:
                found = local_partials(definition, self.active)
            else:
                key = (definition.xreplace(dict(zip(symbols, canonical, strict=True))),
                       tuple(u in self.active for u in symbols))
                template = self._templates.get(key)
                if template is None:
                    active = {c for c, on in zip(canonical, key[1], strict=True) if on}
                    template = self._templates[key] = local_partials(key[0], active)
                back = dict(zip(canonical, symbols, strict=True))
                found = [(back[c], p.xreplace(back)) for c, p in template]
            self._partials[placeholder] = found
        return found

    def reverse(self, seeds: dict[Any, Any],
                partial_value: Callable[[Any], Any] = lambda p: p) -> dict[Any, Any]:
        """Adjoints of the leaf symbols given adjoints ``seeds`` of output symbols.

        ``partial_value`` turns a local partial into what the adjoints are made of: the
        expression itself (formulas) or its value at a point (checks).
        """
        adjoint: dict[Any, list[Any]] = defaultdict(list)
        for symbol, value in seeds.items():
            if symbol in self.active:
                adjoint[symbol].append(value)
        for step in reversed(self.lowered.steps):
            for _, placeholder, definition in step.placeholders():
                terms = adjoint.pop(placeholder, None)
                if not terms:
                    continue
                a = _sum(terms)
                if a == 0:
                    continue
                for u, p in self.partials(placeholder, definition):
                    adjoint[u].append(a * partial_value(p))
        return {u: _sum(terms) for u, terms in adjoint.items()}

    def inline(self, expr: Any, memo: dict[Any, Any] | None = None) -> Any:
        """``expr`` with every placeholder replaced by its expression in the leaves' symbols."""
        from symgrad.symbolic.lowering import _unevaluated

        mapping = self.lowered.inlined_placeholders()
        return _substitute(expr, mapping, {} if memo is None else memo, _unevaluated)


def _sum(terms: list[Any]) -> Any:
    """The sum of adjoint terms, kept as one node over them where they are expressions: an
    evaluated sum would splice in the terms of an adjoint that is itself a sum, so a deep
    chain's adjoints would repeat ever longer sums instead of sharing one (see
    :mod:`symgrad.symbolic.printing`)."""
    if all(term.is_number for term in terms):
        return sympy.Add(*terms)
    terms = [term for term in terms if term != 0]  # an adjoint term that is exactly 0
    if len(terms) == 1:
        return terms[0]
    return sympy.Add(*terms, evaluate=False)


def _inputs(lowered: Lowered, inputs: Tensor | Sequence[Tensor] | None,
            allow_unused: bool = False) -> list[Source]:
    """The sources of ``inputs`` (default: every leaf that requires grad). An input the
    graph does not use is an error, as in ``autograd.grad``, unless ``allow_unused``: it then
    gets symbols of its own, on which nothing depends (a zero gradient)."""
    if not lowered.output.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                           "grad_fn")
    if inputs is None:
        return [s for s in lowered.sources if s.requires_grad]
    tensors = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    sources = []
    for k, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"inputs must be Tensors, got {type(x).__name__}")
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        found = [s for s in lowered.sources if s.tensor is x]
        if found and found[0].requires_grad:
            sources.append(found[0])
        elif allow_unused:  # zero gradient: unused, or used only in a mask (x > 0)
            if found:
                sources.append(found[0])
                continue
            name, shape = x.name or f"unused{k}", x._value.shape
            sources.append(Source(x, name, symbol_array(_symbol_names(name, shape), shape),
                                  _exact(x._value, x), True))
        else:
            raise RuntimeError(f"The differentiated Tensor at index {k} appears to not have "
                               "been used in the graph. Set allow_unused=True if this is the "
                               "desired behavior.")
    return sources


def as_gradient(output: Tensor, gradient: Any) -> Tensor | None:
    """``gradient`` (None, a Tensor or array-like) as backward takes it: a Tensor (of the
    output's dtype when array-like), or None."""
    if gradient is None or isinstance(gradient, Tensor):
        return gradient
    return creation.tensor(np.asarray(gradient), dtype=output.dtype)


def seed_array(output: Tensor, gradient: Tensor | None) -> np.ndarray:
    """The v of vᵀJ as an array of the output's shape (ones for a one-element output), with
    backward's errors; built here, not by the engine's helpers, so that a bug there cannot
    agree with itself in a check.

    >>> seed_array(symgrad.tensor(2.0, requires_grad=True), None)
    array(1.)
    """
    if not output.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                           "grad_fn")
    if gradient is None:
        if output._value.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        return np.ones(output._value.shape, dtype=output._value.dtype)
    if not isinstance(gradient, Tensor):
        raise TypeError("gradients can be either Tensors or None, but got "
                        f"{type(gradient).__name__}")
    if gradient._value.shape != output._value.shape:
        raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of "
                           f"{gradient.shape!r} and output[0] has a shape of {output.shape!r}.")
    return np.asarray(gradient._value).astype(output._value.dtype)


def seeds(lowered: Lowered, gradient: Any) -> dict[Any, Any]:
    """The output adjoints: ``gradient`` (the v of vᵀJ, as backward takes it) as exact
    numbers on the output's local symbols; implicit 1 for a one-element output."""
    output = lowered.output
    v = _exact(seed_array(output, as_gradient(output, gradient)), output).reshape(-1)
    result: dict[Any, Any] = defaultdict(lambda: sympy.Integer(0))
    for symbol, value in zip(lowered.root.reshape(-1), v, strict=True):
        if isinstance(symbol, sympy.Symbol):
            result[symbol] = result[symbol] + value
    return dict(result)


def _shaped(src: Source, adjoint: dict[Any, Any], transform: Callable[[Any], Any]) -> np.ndarray:
    out = np.empty(src.symbols.shape, dtype=object)
    flat = out.reshape(-1)
    for k, u in enumerate(src.symbols.reshape(-1)):
        flat[k] = transform(adjoint.get(u, sympy.Integer(0)))
    return out


def grad(output: Tensor | Lowered, inputs: Tensor | Sequence[Tensor] | None = None,
         gradient: Tensor | None = None) -> tuple[Formula, ...]:
    """The exact gradient of ``output`` with respect to each of ``inputs``, by sympy.

    Mirrors ``symgrad.autograd.grad``: ``gradient`` is the v of vᵀJ (what ``backward`` takes),
    required for an output of more than one element; the result is a tuple with one
    :class:`~symgrad.symbolic.Formula` (a sympy Array that prints readably) per input, in that
    input's shape, written in the leaves' symbols (``inputs`` defaults to every leaf that
    requires grad).

    >>> a = symgrad.tensor(3.0, requires_grad=True)
    >>> symgrad.symbolic.grad(a.sin() * a, a)
    (a*cos(a) + sin(a),)
    """
    lowered = output if isinstance(output, Lowered) else lower(output)
    sources = _inputs(lowered, inputs)
    chain = Chain(lowered)
    adjoint = chain.reverse(seeds(lowered, gradient))
    memo: dict[Any, Any] = {}
    return tuple(_array(_shaped(src, adjoint, lambda e: chain.inline(e, memo)))
                 for src in sources)


def jacobian(output: Tensor | Lowered, input: Tensor) -> Formula:  # noqa: A002
    """The exact Jacobian ``d output / d input``, shaped ``output.shape + input.shape`` (as
    ``symgrad.autograd.functional.jacobian``).

    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> symgrad.symbolic.jacobian(x * x.sum(), x)
    [[2*x_0 + x_1, x_0], [x_1, x_0 + 2*x_1]]
    """
    lowered = output if isinstance(output, Lowered) else lower(output)
    (src,) = _inputs(lowered, input)
    chain = Chain(lowered)
    memo: dict[Any, Any] = {}
    rows = []
    for symbol in lowered.root.reshape(-1):
        if isinstance(symbol, sympy.Symbol):
            adjoint = chain.reverse({symbol: sympy.Integer(1)})
        else:
            adjoint = {}
        rows.append(_shaped(src, adjoint, lambda e: chain.inline(e, memo)))
    out = np.array(rows, dtype=object).reshape(lowered.shape + src.symbols.shape)
    return _array(out)


def hessian(output: Tensor | Lowered, input: Tensor) -> Formula:  # noqa: A002
    """The exact Hessian of a one-element ``output``, shaped ``input.shape * 2``.

    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> symgrad.symbolic.hessian((x * x * x).sum() * x[0], x)
    [[12*x_0**2, 3*x_1**2], [3*x_1**2, 6*x_0*x_1]]
    """
    lowered = output if isinstance(output, Lowered) else lower(output)
    if int(np.prod(lowered.shape)) != 1:
        raise RuntimeError("hessian() expects an output with a single element, got shape "
                           f"{tuple(lowered.shape)}")
    (gradient,) = grad(lowered, input)
    (src,) = _inputs(lowered, input)
    symbols = src.symbols.reshape(-1)
    first = gradient.tolist() if gradient.shape else [gradient[()]]
    out = np.empty((len(symbols), len(symbols)), dtype=object)
    for i, g in enumerate(np.array(first, dtype=object).reshape(-1)):
        for j, u in enumerate(symbols):
            out[i, j] = sympy.diff(g, u)
    return _array(out.reshape(src.symbols.shape * 2))


__all__ = ["Chain", "Step", "grad", "hessian", "jacobian", "local_partials", "seeds"]
