"""Derivatives of a lowered graph by ``sympy.diff``, chained node by node.

Each node's output elements are defined by small expressions of its inputs (the local form of
:mod:`symgrad.symbolic.lower`); sympy differentiates those, and the chain rule runs over the
graph in reverse (adjoints summed where a value has several uses). None of symgrad's own VJP
rules take part, which is what makes these derivatives an independent check of the numeric
backward.
"""

from __future__ import annotations

import functools
import math
import operator
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy

from symgrad import creation
from symgrad.autograd.naming import fixed_name
from symgrad.symbolic.local import diff_term
from symgrad.symbolic.lowering import (
    Lowered,
    Source,
    Step,
    _array,
    _exact,
    _substitute,
    _unevaluated,
    leaf_symbols,
    lower,
    unevaluated,
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
        return [(u, sympy.Add(*[diff_term(term, u) for term in terms]))
                for u, terms in by_symbol.items()]
    return [(u, diff_term(definition, u)) for u in symbols]


def _name(symbol: Any) -> str:
    return symbol.name


# stand-ins for a definition's symbols in the templates of Chain.partials
_CANONICAL = [sympy.Dummy(f"s{k}", real=True) for k in range(16)]


def templated_partials(definition: Any, active: set[Any],
                       templates: dict[Any, list[tuple[Any, Any]]]) -> list[tuple[Any, Any]]:
    """:func:`local_partials` of ``definition``, through ``templates``: definitions that differ
    only in their symbols (the same op on every element, the same layer repeated) share one
    template, which sympy differentiates once.

    >>> from symgrad.symbolic.calculus import templated_partials
    >>> a, b = sympy.symbols("a b")
    >>> templates = {}
    >>> templated_partials(sympy.sin(a), {a}, templates), len(templates)
    ([(a, cos(a))], 1)
    >>> templated_partials(sympy.sin(b), {b}, templates), len(templates)
    ([(b, cos(b))], 1)
    """
    symbols = sorted(definition.free_symbols, key=_name)
    if len(symbols) > len(_CANONICAL):
        return local_partials(definition, active)
    canonical = _CANONICAL[:len(symbols)]
    # renamed and rebuilt as they are (xreplace would evaluate each node again)
    key = (_substitute(definition, dict(zip(symbols, canonical, strict=True)), {},
                       _unevaluated),
           tuple(u in active for u in symbols))
    template = templates.get(key)
    if template is None:
        on = {c for c, flag in zip(canonical, key[1], strict=True) if flag}
        template = templates[key] = local_partials(key[0], on)
    back = dict(zip(canonical, symbols, strict=True))
    return [(back[c], _substitute(p, back, {}, _unevaluated)) for c, p in template]


class Chain:
    """The chain rule over a :class:`Lowered` graph, with the local partials cached."""

    @classmethod
    def of(cls, lowered: Lowered) -> Chain:
        """The Chain of ``lowered``, made once (its partials are then shared by every
        function given that lowering: :func:`lower` gives a graph's lowering again).

        >>> a = t.tensor(2.0, requires_grad=True)
        >>> lowered = symgrad.symbolic.lower(a.sin())
        >>> Chain.of(lowered) is Chain.of(lowered)
        True
        """
        chain = lowered.derived.get("chain")
        if chain is None:
            chain = lowered.derived["chain"] = cls(lowered)
        return chain

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
        self._seconds: dict[tuple[Any, Any], list[tuple[Any, Any]]] = {}
        self._inline_memo: dict[Any, Any] = {}
        self._adjoints: dict[Any, dict[Any, Any]] = {}

    def partials(self, placeholder: Any, definition: Any) -> list[tuple[Any, Any]]:
        """The cached :func:`local_partials` of one placeholder's definition.

        Definitions that differ only in their symbols (the same op on every element, the same
        layer repeated) share one template: sympy differentiates each shape once.
        """
        found = self._partials.get(placeholder)
        if found is None:
            found = self._partials[placeholder] = self.templated(definition)
        return found

    def templated(self, definition: Any) -> list[tuple[Any, Any]]:
        """:func:`local_partials` of ``definition`` through the shared templates."""
        return templated_partials(definition, self.active, self._templates)

    def reverse(self, seeds: dict[Any, Any],
                partial_value: Callable[[Any], Any] = lambda p: p) -> dict[Any, Any]:
        """Adjoints of the leaf symbols given adjoints ``seeds`` of output symbols.

        ``partial_value`` turns a local partial into what the adjoints are made of: the
        expression itself (formulas) or its value at a point (checks).
        """
        return self._sweep(seeds, lambda a, p: a * partial_value(p))

    def inline(self, expr: Any, memo: dict[Any, Any] | None = None) -> Any:
        """``expr`` with every placeholder replaced by its expression in the leaves' symbols."""
        mapping = self.lowered.inlined_placeholders()
        return _substitute(expr, mapping, self._inline_memo if memo is None else memo,
                           _unevaluated)

    def adjoints(self, seeds: dict[Any, Any], everything: bool = False) -> dict[Any, Any]:
        """Adjoints of the leaf symbols (``everything``: of the placeholders too) given
        adjoints ``seeds`` of output symbols, as expressions in the leaves' symbols.

        The reverse sweep of :meth:`reverse`, but each term is built once on the inlined
        expressions, unevaluated, so the result is a DAG whose size follows the graph's nodes:
        a chain's adjoints share their factors instead of repeating ever longer products.
        The result is kept for the same seeds (``grad`` then ``compile`` of one lowering
        share it): read it, do not change it.
        """
        key = (tuple(seeds.items()), everything)
        found = self._adjoints.get(key)
        if found is None:
            found = self._adjoints[key] = self._adjoints_of(seeds, everything)
        return found

    def _adjoints_of(self, seeds: dict[Any, Any], everything: bool) -> dict[Any, Any]:
        return self._sweep(seeds, lambda a, p: _times(a, self.inline(p)), everything)

    def _sweep(self, seeds: dict[Any, Any], term: Callable[[Any, Any], Any],
               everything: bool = False) -> dict[Any, Any]:
        """The reverse sweep shared by :meth:`reverse` and :meth:`adjoints`: each
        placeholder's adjoint ``a`` (its terms summed) sends ``term(a, p)`` to every symbol
        ``u`` of its definition, ``p`` being the partial by ``u``; ``everything`` keeps the
        placeholders' adjoints in the result too."""
        adjoint: dict[Any, list[Any]] = defaultdict(list)
        for symbol, value in seeds.items():
            if symbol in self.active:
                adjoint[symbol].append(value)
        done: dict[Any, Any] = {}
        for step in reversed(self.lowered.steps):
            for _, placeholder, definition in step.placeholders():
                terms = adjoint.pop(placeholder, None)
                if not terms:
                    continue
                a = _sum(terms)
                if everything:
                    done[placeholder] = a
                if _is_zero(a):
                    continue
                for u, p in self.partials(placeholder, definition):
                    adjoint[u].append(term(a, p))
        done.update((u, _sum(terms)) for u, terms in adjoint.items())
        return done

    def hessian_column(self, seeds: dict[Any, Any], u: Any,
                       adjoint: dict[Any, Any]) -> dict[Any, Any]:
        """d(adjoint of each leaf symbol) / du, in the leaves' symbols: one column of the
        Hessian of ``<seeds, output>``, by a tangent sweep from ``u`` and the adjoints'
        derivatives along it (forward over reverse on the local definitions, whose first and
        second partials sympy takes; ``adjoint`` is :meth:`adjoints` with ``everything``)."""
        order = [(placeholder, definition) for step in self.lowered.steps
                 for _, placeholder, definition in step.placeholders()]
        tangent: dict[Any, Any] = {u: sympy.Integer(1)}
        for placeholder, definition in order:
            terms = [_times(self.inline(p), tangent[w])
                     for w, p in self.partials(placeholder, definition) if w in tangent]
            if terms:
                tangent[placeholder] = _sum(terms)
        dot: dict[Any, list[Any]] = defaultdict(list)
        for symbol, value in seeds.items():
            if symbol in self.active and symbol not in adjoint:
                adjoint = {**adjoint, symbol: value}
        for placeholder, definition in reversed(order):
            a_dot = _sum(dot.pop(placeholder, []))
            a = adjoint.get(placeholder, sympy.Integer(0))
            for w, p in self.partials(placeholder, definition):
                if not _is_zero(a_dot):
                    dot[w].append(_times(a_dot, self.inline(p)))
                if _is_zero(a):
                    continue
                key = (placeholder, w)
                seconds = self._seconds.get(key)
                if seconds is None:
                    seconds = self._seconds[key] = self.templated(p)
                curvature = [_times(self.inline(d), tangent[z]) for z, d in seconds
                             if z in tangent]
                if curvature:
                    dot[w].append(_times(a, _sum(curvature)))
        return {w: _sum(terms) for w, terms in dot.items()}


# functions that sympy evaluates at a nonzero Float by evalf alone (no exact special value)
_SMOOTH = frozenset({sympy.sin, sympy.cos, sympy.tan, sympy.exp, sympy.sinh, sympy.cosh,
                     sympy.tanh, sympy.atan, sympy.erf})


def add_numbers(numbers: Sequence[Any]) -> Any:
    """The sum of sympy numbers, as ``sympy.Add`` computes it, without its cache.

    sympy's constructors look their arguments up in a cache, and a Float hashes as the
    nearest double: the values of a deep chain that converges (many 40-digit Floats equal
    as doubles) all land on one hash, and each lookup compares them one by one.

    >>> from symgrad.symbolic.calculus import add_numbers
    >>> add_numbers([sympy.Rational(1, 2), sympy.Float(0.25)])
    0.750000000000000
    """
    if not all(_finite_number(a) for a in numbers):
        return sympy.Add(*numbers)  # oo, nan, zoo: sympy's rules, not mpmath's
    return functools.reduce(operator.add, numbers, sympy.Integer(0))


def _finite_number(a: Any) -> bool:
    return bool((a.is_Rational or a.is_Float) and a.is_finite)


def number_node(func: Any, args: Sequence[Any]) -> Any:
    """``func(*args)`` (evaluated) for number ``args``; where one of them is a Float, by
    Float arithmetic or evalf instead of sympy's cached constructors (see
    :func:`add_numbers`), which give the same value.

    >>> from symgrad.symbolic.calculus import number_node
    >>> number_node(sympy.sin, [sympy.Float(0.5, 20)])
    0.47942553860420300027
    """
    if any(a.is_Float for a in args) and all(_finite_number(a) for a in args):
        if func is sympy.Add:
            return add_numbers(args)
        if func is sympy.Mul:
            return functools.reduce(operator.mul, args, sympy.Integer(1))
        if len(args) == 1 and func in _SMOOTH and args[0] != 0:
            return sympy.Expr.__new__(func, args[0]).evalf(
                sympy.core.evalf.prec_to_dps(args[0]._prec))
    return func(*args)


def _sum(terms: list[Any]) -> Any:
    """The sum of adjoint terms, kept as one node over them where they are expressions: an
    evaluated sum would splice in the terms of an adjoint that is itself a sum, so a deep
    chain's adjoints would repeat ever longer sums instead of sharing one (see
    :mod:`symgrad.symbolic.printing`). Numbers are summed. Only class flags are asked of the
    terms (``is_number`` would walk a whole deep expression)."""
    terms = [sympy.sympify(term) for term in terms]
    numbers = [term for term in terms if term.is_Number]
    rest = [term for term in terms if not term.is_Number]
    if numbers:
        number = add_numbers(numbers)
        if not rest or number != 0:
            rest.append(number)
    if len(rest) == 1:
        return rest[0]
    if not rest:
        return sympy.Integer(0)
    return unevaluated(sympy.Add, rest)


def _times(a: Any, b: Any) -> Any:
    """``a * b`` as one unevaluated node where both are expressions (a number factor of 1 or
    0 folds away; two numbers multiply)."""
    a, b = sympy.sympify(a), sympy.sympify(b)
    if a.is_Number and b.is_Number:
        return a * b
    if _is_zero(a) or _is_zero(b):
        return sympy.Integer(0)
    if a.is_Number and a == 1:
        return b
    if b.is_Number and b == 1:
        return a
    return unevaluated(sympy.Mul, [a, b])


def _is_zero(expr: Any) -> bool:
    """Whether ``expr`` is the number 0 (a class flag and one comparison: no walk)."""
    return bool(getattr(expr, "is_Number", False) and not expr)


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
            name, shape = x.name or fixed_name(x) or f"unused{k}", x._value.shape
            sources.append(Source(x, name, leaf_symbols(name, shape), _exact(x._value, x),
                                  True))
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


def _shaped(src: Source, adjoint: dict[Any, Any]) -> np.ndarray:
    out = np.empty(src.symbols.shape, dtype=object)
    flat = out.reshape(-1)
    for k, u in enumerate(src.symbols.reshape(-1)):
        flat[k] = adjoint.get(u, sympy.Integer(0))
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
    adjoint = Chain.of(lowered).adjoints(seeds(lowered, gradient))
    return tuple(_array(_shaped(src, adjoint)) for src in sources)


def jacobian(output: Tensor | Lowered, input: Tensor) -> Formula:  # noqa: A002
    """The exact Jacobian ``d output / d input``, shaped ``output.shape + input.shape`` (as
    ``symgrad.autograd.functional.jacobian``).

    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> symgrad.symbolic.jacobian(x * x.sum(), x)
    [[2*x_0 + x_1, x_0], [x_1, x_0 + 2*x_1]]
    """
    lowered = output if isinstance(output, Lowered) else lower(output)
    (src,) = _inputs(lowered, input)
    chain = Chain.of(lowered)
    root = np.asarray(lowered.root, dtype=object)
    out = np.empty((root.size, src.symbols.size), dtype=object)
    for k, symbol in enumerate(root.reshape(-1)):
        adjoint = chain.adjoints({symbol: sympy.Integer(1)}) \
            if isinstance(symbol, sympy.Symbol) else {}
        out[k] = _shaped(src, adjoint).reshape(-1)
    return _array(out.reshape(root.shape + src.symbols.shape))


def hessian(output: Tensor | Lowered, input: Tensor) -> Formula:  # noqa: A002
    """The exact Hessian of a one-element ``output``, shaped ``input.shape * 2``.

    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> symgrad.symbolic.hessian((x * x * x).sum() * x[0], x)
    [[12*x_0**2, 3*x_1**2], [3*x_1**2, 6*x_0*x_1]]
    """
    lowered = output if isinstance(output, Lowered) else lower(output)
    shape = tuple(np.shape(lowered.root))
    if math.prod(shape) != 1:
        raise RuntimeError("hessian() expects an output with a single element, got shape "
                           f"{shape}")
    (src,) = _inputs(lowered, input)
    chain = Chain.of(lowered)
    root_seeds = seeds(lowered, None)
    adjoint = chain.adjoints(root_seeds, everything=True)
    symbols = src.symbols.reshape(-1)
    out = np.empty((len(symbols), len(symbols)), dtype=object)
    for j, u in enumerate(symbols):
        column = chain.hessian_column(root_seeds, u, adjoint)
        for i, w in enumerate(symbols):
            out[i, j] = column.get(w, sympy.Integer(0))
    return _array(out.reshape(src.symbols.shape * 2))


__all__ = ["Chain", "Step", "grad", "hessian", "jacobian", "local_partials", "seeds"]
