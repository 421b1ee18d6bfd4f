"""Lowering: the graph recorded for a tensor, replayed on sympy expressions.

Every node of the graph stores its op, its inputs' values and its params, so its forward rule can
run again in the symbolic namespace. Leaves that require grad become arrays of real sympy
symbols; other tensors become exact constants (or symbols, with ``constants="symbols"``).

Two forms are built in one walk:

* the *inlined* form (``Lowered.expr``): each node's output written in the leaves' symbols,
  sharing subexpressions as Python objects;
* the *local* form (``Lowered.steps``): each node's output elements named by placeholder symbols
  and defined in terms of its inputs' placeholders. Derivatives are taken on these small
  definitions and chained along the graph, so their cost grows with the number of nodes rather
  than with the size of the expanded expression.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from symgrad.autograd import graph
from symgrad.autograd.graph import Node
from symgrad.autograd.naming import TensorNames, caller_names, mask_producers, topological
from symgrad.symbolic import sympy_namespace as sx
from symgrad.symbolic.printing import Formula, formula, register_leaf, unevaluated
from symgrad.symbolic.progress import Progress
from symgrad.tensor import Tensor


@dataclass(eq=False)
class Step:
    """One node of the graph in local form.

    ``definition[k]`` is output element ``k`` as an expression of the node's inputs (their
    ``out`` symbols, leaf symbols and constants); ``out[k]`` is the placeholder symbol that
    stands for it downstream, or the definition itself where that is already a symbol or a
    number (views, constants), which needs no derivative of its own.
    """

    node: Node
    inputs: list[Any]  # per input: the lowered (local form) array, or the raw param value
    definition: np.ndarray
    out: np.ndarray
    inlined: np.ndarray | None = None  # the output in the leaves' symbols (filled on demand)
    _placeholders: list[tuple[int, Any, Any]] | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        """The node's PyTorch name (``'MulBackward0'``)."""
        return type(self.node).__name__

    def placeholders(self) -> list[tuple[int, Any, Any]]:
        """``(flat index, placeholder, definition)`` of the elements that have a placeholder."""
        if self._placeholders is None:
            out = self.out.reshape(-1)
            definition = self.definition.reshape(-1)
            self._placeholders = [(k, s, d) for k, (s, d) in
                                  enumerate(zip(out, definition, strict=True)) if s is not d]
        return self._placeholders


@dataclass(eq=False)
class Source:
    """A tensor entering the graph as symbols: a leaf that requires grad (or a constant kept as
    symbols)."""

    tensor: Tensor
    name: str
    symbols: np.ndarray
    values: np.ndarray  # exact sympy numbers, as the forward saw them
    requires_grad: bool


@dataclass(eq=False)
class Lowered:
    """A recorded graph as sympy expressions (see :func:`lower`).

    ``expr`` is the output as a sympy Array of its shape, in the leaves' symbols; ``symbols``
    maps each leaf tensor (and, with ``constants="symbols"``, each constant tensor) to the
    sympy Array of its symbols; ``values`` maps each symbol to its exact current value.

    >>> a = t.tensor([1.0, 2.0], requires_grad=True)
    >>> symgrad.symbolic.lower(a * 3)
    Lowered(2, 1 node)
      a: [a_0, a_1] (requires grad)
      = [3*a_0, 3*a_1]
    """

    output: Tensor
    sources: list[Source]
    steps: list[Step]
    root: np.ndarray  # the output in local form
    constants: str = "numbers"
    _inlined: dict[Any, Any] | None = field(default=None, repr=False)
    # what the symbolic side derives from this lowering once, for every use of it: the chain
    # rule's partials ("chain"), the values at the point ("point")
    derived: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def expr(self) -> Formula:
        """The output as a :class:`~symgrad.symbolic.Formula` (a sympy Array) of its shape,
        written in the leaves' symbols.

        >>> x = t.tensor([1.0, 2.0], requires_grad=True)
        >>> symgrad.symbolic.lower(x.exp() * 2).expr
        [2*exp(x_0), 2*exp(x_1)]
        """
        expr = self.derived.get("expr")  # (made once: its printed forms are kept on it)
        if expr is None:
            expr = self.derived["expr"] = _array(self.inlined)
        return expr

    def text(self, compact: bool = False) -> str:
        """The output as text (see :meth:`Formula.text`).

        >>> a = t.tensor(2.0, requires_grad=True)
        >>> h = a.exp()
        >>> print(symgrad.symbolic.lower(h * h - h).text(compact=True))
        t₁ := exp(a)
        t₁**2 - t₁
        """
        return self.expr.text(compact)

    def latex(self, compact: bool = False) -> str:
        """The output as LaTeX (see :meth:`Formula.latex`).

        >>> a = t.tensor(2.0, requires_grad=True)
        >>> print(symgrad.symbolic.lower(a.exp() / 2).latex())
        \\frac{e^{a}}{2}
        """
        return self.expr.latex(compact)

    def _repr_latex_(self) -> str:
        return self.expr._repr_latex_()

    def simplify(self, **kwargs: Any) -> Formula:
        """The output, each element through ``sympy.simplify`` (see :meth:`Formula.simplify`).

        >>> a = t.tensor(2.0, requires_grad=True)
        >>> symgrad.symbolic.lower(a.exp().log()).simplify()
        a
        """
        return self.expr.simplify(**kwargs)

    @property
    def inlined(self) -> np.ndarray:
        """The output as an object array in the leaves' symbols.

        >>> a = t.tensor([1.0, 2.0], requires_grad=True)
        >>> symgrad.symbolic.lower(a * 3).inlined
        Expressions([3*a_0, 3*a_1], dtype=object)
        """
        return self.inline_array(self.root)

    def inlined_placeholders(self) -> dict[Any, Any]:
        """Each placeholder symbol -> its expression in the leaves' symbols.

        Built once, in graph order: a definition's placeholders are replaced by expressions
        already built, without sympy's automatic simplification (which walks the whole
        expanded tree of its arguments: exponential in a deep graph whose values are used
        twice), so the cost grows with the local definitions, not with the expanded
        expressions.

        >>> a = t.tensor(2.0, requires_grad=True)
        >>> symgrad.symbolic.lower(a.sin() * 3).inlined_placeholders()
        {_t0_0: sin(a), _t1_0: 3*sin(a)}
        """
        if self._inlined is None:
            mapping: dict[Any, Any] = {}
            memo: dict[Any, Any] = {}
            for step in self.steps:
                for _, placeholder, definition in step.placeholders():
                    mapping[placeholder] = _substitute(definition, mapping, memo, _unevaluated)
            self._inlined = mapping
        return self._inlined

    def inline_array(self, local: np.ndarray) -> np.ndarray:
        """A local-form array with its placeholders replaced by their inlined expressions.

        >>> a = t.tensor(2.0, requires_grad=True)
        >>> lowered = symgrad.symbolic.lower(a.sin() * 3)
        >>> lowered.inline_array(lowered.steps[0].out)
        Expressions(sin(a), dtype=object)
        """
        mapping = self.inlined_placeholders()
        out = np.empty(np.shape(local), dtype=object)
        flat = out.reshape(-1)
        for k, e in enumerate(np.asarray(local, dtype=object).reshape(-1)):
            flat[k] = mapping.get(e, e) if isinstance(e, sympy.Symbol) else e
        return out.view(sx.Expressions)

    def inlined_step(self, step: Step) -> np.ndarray:
        """A step's output in the leaves' symbols (cached on the step).

        >>> a = t.tensor(2.0, requires_grad=True)
        >>> lowered = symgrad.symbolic.lower(a.sin() * 3)
        >>> [lowered.inlined_step(step) for step in lowered.steps]
        [Expressions(sin(a), dtype=object), Expressions(3*sin(a), dtype=object)]
        """
        if step.inlined is None:
            step.inlined = self.inline_array(step.out)
        return step.inlined

    @property
    def symbols(self) -> dict[Tensor, sympy.Array]:
        """Each source tensor -> the sympy Array of its symbols (in the tensor's shape).

        >>> a = t.tensor([1.0, 2.0], requires_grad=True)
        >>> symgrad.symbolic.lower(a * 3).symbols[a]
        [a_0, a_1]
        """
        return {s.tensor: _array(s.symbols) for s in self.sources}

    @property
    def values(self) -> dict[sympy.Symbol, Any]:
        """Each symbol -> its exact current value (the shortest decimal of the stored float).

        >>> a = t.tensor([0.1, 2.0], dtype=t.float64, requires_grad=True)
        >>> symgrad.symbolic.lower(a * 3).values
        {a_0: 1/10, a_1: 2}
        """
        return {sym: value for s in self.sources
                for sym, value in zip(s.symbols.reshape(-1), s.values.reshape(-1), strict=True)}

    @property
    def shape(self) -> tuple[int, ...]:
        """The output's shape.

        >>> symgrad.symbolic.lower(t.ones(2, 3, requires_grad=True).sum(0)).shape
        (3,)
        """
        return tuple(self.inlined.shape)

    def source_of(self, tensor: Tensor) -> Source:
        """The :class:`Source` of ``tensor`` (a ValueError if it is not in the graph).

        >>> a = t.tensor([1.0, 2.0], requires_grad=True)
        >>> symgrad.symbolic.lower(a * 3).source_of(a).name
        'a'
        """
        for s in self.sources:
            if s.tensor is tensor:
                return s
        raise ValueError("One of the differentiated Tensors appears to not have been used in "
                         "the graph. Set allow_unused=True if this is the desired behavior.")

    def __repr__(self) -> str:
        shape = "x".join(map(str, self.shape)) or "scalar"
        count = len(self.steps)
        lines = [f"Lowered({shape}, {count} node{'' if count == 1 else 's'})"]
        for s in self.sources:
            kind = "requires grad" if s.requires_grad else "constant"
            lines.append(f"  {s.name}: {_array(s.symbols)} ({kind})")
        text = repr(self.expr)  # compact when the expanded form is long
        text = text if len(text) < 2000 else text[:2000] + " ..."
        lines.append("  = " + text.replace("\n", "\n    "))
        return "\n".join(lines)


def _substitute(expr: Any, mapping: dict[Any, Any], memo: dict[Any, Any],
                rebuild: Callable[..., Any] | None = None) -> Any:
    """``expr.xreplace(mapping)`` with shared subexpressions rebuilt once (xreplace walks every
    path of a DAG-shaped expression, which can be exponentially many). ``rebuild(node,
    args)``, when given, builds each changed node instead of ``node.func(*args)``."""
    if not isinstance(expr, sympy.Basic):
        return expr
    stack = [(expr, False)]
    while stack:
        node, ready = stack.pop()
        if node in memo:
            continue
        if node in mapping:
            memo[node] = mapping[node]
            continue
        if not node.args:
            memo[node] = node
            continue
        if not ready:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in memo)
            continue
        args = [memo[a] for a in node.args]
        if all(a is b for a, b in zip(args, node.args, strict=True)):
            memo[node] = node
        else:
            memo[node] = node.func(*args) if rebuild is None else rebuild(node, args)
    return memo[expr]


def _unevaluated(node: Any, args: list[Any]) -> Any:
    """``node`` rebuilt on ``args`` without sympy's automatic simplification.

    The result's hash and commutativity are taken at once: both are computed from the
    arguments' and cached, so taken bottom-up (as every walk here builds) each costs one step,
    where asked first of the top of a deep expression they would recurse through all of it.
    """
    return unevaluated(node.func, args)


def _array(values: np.ndarray) -> Formula:
    return formula(values)


def lower(output: Tensor, constants: str = "numbers", *,
          progress: bool | None = None) -> Lowered:
    """Lower the graph recorded for ``output`` to sympy expressions.

    Leaves that require grad become arrays of real symbols named after the tensor's ``name``,
    else after the variable that holds it in the calling code, else ``x0``, ``x1`` ...; other
    tensors become exact constants (``constants="symbols"`` keeps them as symbols too). Works
    after a backward that freed the graph. ``progress`` shows a bar on stderr (None: on a
    terminal, once lowering has run for about 2 s).

    >>> a = symgrad.tensor(2.0, requires_grad=True)
    >>> symgrad.symbolic.lower(a * a + 1).expr
    a**2 + 1
    """
    if not isinstance(output, Tensor):
        raise TypeError(f"lower() expects a Tensor, but got {type(output).__name__}")
    if constants not in ("numbers", "symbols"):
        raise ValueError(f"constants must be 'numbers' or 'symbols', got {constants!r}")
    root = output.grad_fn
    if root is None:
        return _Lowering(output, constants, caller_names()).run(progress)
    cache = root.__dict__.get("_symbolic_lowered")
    if cache is None:  # (the cache leads back to the root: a cycle the collector must see)
        cache = root.__dict__["_symbolic_lowered"] = {}
        graph.keep_tracked(root)
    found = cache.get(constants)
    if found is not None and found[1].output is output and found[0] == _fingerprint(found[1]):
        return found[1]
    lowered = _Lowering(output, constants, caller_names()).run(progress)
    cache[constants] = (_fingerprint(lowered), lowered)
    return lowered


def _fingerprint(lowered: Lowered) -> bytes:
    """What a lowering read besides the graph's structure (which a recorded graph never
    changes): the leaves' and constants' values as the forward saw them (an in-place change
    of a leaf can reach them), the leaves' names (``name=`` can be set later), and the count
    of in-place changes in the process.

    ``lower`` keeps the last lowering of a graph on its root node, and gives it again while
    this digest is the same: ``check``, ``check_hessian``, ``explain``, ``grad`` ... of one
    output then lower it once (a deep graph's lowering takes seconds).
    """
    digest = hashlib.blake2b(digest_size=16)
    digest.update(str(graph._epoch).encode())  # any in-place change since (a mask's operand)
    for step in lowered.steps:
        node = step.node
        for edge, value in zip(node.next, node.values, strict=True):
            if isinstance(edge, Node):
                continue
            if isinstance(value, np.ndarray):
                digest.update(str((value.dtype.str, value.shape)).encode())
                digest.update(np.ascontiguousarray(value).tobytes())
            else:
                digest.update(repr((type(value).__name__, value)).encode())
    for src in lowered.sources:
        digest.update(repr((src.tensor.name, src.name)).encode())
    return digest.digest()


def _symbol_names(base: str, shape: tuple[int, ...]) -> list[str]:
    if not shape:
        return [base]
    return [f"{base}_{','.join(map(str, index))}" for index in np.ndindex(*shape)]


def _exact(value: Any, like: Any) -> np.ndarray:
    """Exact sympy numbers of ``value`` (an array as the forward saw it), read in the dtype of
    the tensor ``like`` (a float32 input may have been widened for its op's VJP)."""
    array = np.asarray(value)
    if isinstance(like, Tensor) and array.dtype != like._value.dtype:
        array = array.astype(like._value.dtype)
    return np.array(sx.asarray(array))


def leaf_symbols(name: str, shape: tuple[int, ...]) -> sx.Expressions:
    """The symbols of a tensor named ``name`` of ``shape`` (``x_0``, ``x_1`` ...), registered
    for printing so that the name shows as written (:func:`~symgrad.symbolic.printing.
    leaf_latex`).

    >>> from symgrad.symbolic.lowering import leaf_symbols
    >>> leaf_symbols("w", (2,))
    Expressions([w_0, w_1], dtype=object)
    """
    names = _symbol_names(name, shape)
    for symbol_name, index in zip(names, np.ndindex(*shape), strict=True):
        register_leaf(symbol_name, name, ",".join(map(str, index)))
    return symbol_array(names, shape)


def symbol_array(names: Sequence[str], shape: tuple[int, ...]) -> sx.Expressions:
    """An array of real sympy symbols of ``shape`` named ``names`` (in C order)."""
    symbols = np.empty(shape, dtype=object)
    flat = symbols.reshape(-1)
    for k, name in enumerate(names):
        flat[k] = sympy.Symbol(name, real=True)
    return symbols.view(sx.Expressions)


def exact_operand(raw: Any, value: Any) -> Any:
    """A node input that is no symbol (a constant tensor or a Python number), exact."""
    if isinstance(raw, Tensor) or isinstance(value, np.ndarray):
        return sx.asarray(_exact(value, raw))
    return _exact_param(value)


def exact_params(node: Node) -> dict[str, Any]:
    """A node's params as its forward rule sees them symbolically (floats exact)."""
    return {k: _exact_param(v) for k, v in (node.params or {}).items()}


def _exact_param(value: Any) -> Any:
    """A param or number operand as the forward rule should see it symbolically: floats (and
    float arrays, such as a loss's weights) exact, everything else (dims, keys) unchanged."""
    if isinstance(value, float | np.floating):
        return sx.number(value)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return sx.asarray(value)
    return value


class _Lowering:
    def __init__(self, output: Tensor, constants: str, names: dict[int, str]) -> None:
        self.output = output
        self.constants = constants
        self.names = TensorNames(names)
        self.sources: list[Source] = []
        self.by_tensor: dict[int, Source] = {}
        self.symbol_names: set[str] = set()  # every source's element symbols: all distinct

    def run(self, progress: bool | None = None) -> Lowered:
        output = self.output
        root_node = output.grad_fn
        steps: list[Step] = []
        if root_node is None:
            if output.requires_grad:
                root = self._source(output, output._value, True).symbols
            else:
                root = sx.asarray(_exact(output._value, output))
            return Lowered(output, self.sources, steps, root, self.constants)
        local: dict[Node, Step] = {}
        order = topological(root_node, mask_producers)
        with Progress(len(order), "symbolic.lower", progress) as bar:
            for index, node in enumerate(order):
                step = self._step(node, index, local)
                local[node] = step
                steps.append(step)
                bar.update()
        return Lowered(output, self.sources, steps, local[root_node].out, self.constants)

    def _source(self, tensor: Tensor, value: Any, requires_grad: bool) -> Source:
        known = self.by_tensor.get(id(tensor))
        if known is not None:
            known.requires_grad |= requires_grad  # met in a mask first, then differentiated
            return known
        shape = tuple(np.shape(value))
        name = self.names(tensor, "x" if requires_grad else "c")
        names = _symbol_names(name, shape)
        while self.symbol_names.intersection(names):  # a 0-d leaf a_0 beside a vector a
            name += "'"
            names = _symbol_names(name, shape)
        self.symbol_names.update(names)
        src = Source(tensor, name, leaf_symbols(name, shape), _exact(value, tensor),
                     requires_grad)
        self.sources.append(src)
        self.by_tensor[id(tensor)] = src
        return src

    def _step(self, node: Node, index: int, local: dict[Node, Step]) -> Step:
        local_args = []
        for edge, raw, value in zip(node.next, node.inputs, node.values, strict=True):
            if isinstance(edge, Node):
                local_args.append(local[edge].out)
            elif isinstance(edge, Tensor):  # a leaf that requires grad
                local_args.append(self._source(edge, value, True).symbols)
            elif isinstance(raw, Tensor) and raw._recipe is not None:
                local_args.append(self._condition(raw._recipe, local))
            else:
                local_args.append(self._constant(raw, value))
        definition = symbolic_forward(node.op, local_args, exact_params(node))
        out = np.empty(definition.shape, dtype=object)
        flat_out, flat_def = out.reshape(-1), definition.reshape(-1)
        for k, d in enumerate(flat_def):
            if isinstance(d, sympy.Symbol) or (isinstance(d, sympy.Basic) and d.is_number):
                flat_out[k] = d
            else:
                # a Dummy: equal to no other symbol, whatever a leaf is named (it prints as
                # _t3_0 but is not the symbol a leaf named "_t3_0" gets)
                flat_out[k] = sympy.Dummy(f"t{index}_{k}", real=True)
        return Step(node, local_args, definition, out.view(sx.Expressions))

    def _constant(self, raw: Any, value: Any) -> Any:
        """A constant tensor or a Python number operand: exact, or symbols with
        ``constants="symbols"``."""
        if isinstance(raw, Tensor) and raw.dtype.is_floating_point \
                and self.constants == "symbols":
            return self._source(raw, value, False).symbols
        return exact_operand(raw, value)

    def _condition(self, recipe: tuple[str, tuple], local: dict[Node, Step]) -> Any:
        """A mask compared from graph values (``Tensor._recipe``) as sympy relations."""
        name, operands = recipe
        args = []
        for operand, node in operands:
            if isinstance(operand, Tensor) and operand._recipe is not None:
                args.append(self._condition(operand._recipe, local))
            elif node is not None:
                args.append(local[node].out)
            elif isinstance(operand, Tensor) and operand.requires_grad:
                # a leaf seen only here has a zero gradient: a symbol, but no input of the chain
                args.append(self._source(operand, operand._value, False).symbols)
            else:
                args.append(self._constant(operand, getattr(operand, "_value", operand)))
        return _RELATIONS[name](*args)


# the numpy functions of Tensor._recipe, on sympy expressions
_RELATIONS = {
    "equal": lambda a, b: sx.asarray(a) == b,
    "not_equal": lambda a, b: sx.asarray(a) != b,
    "less": lambda a, b: sx.asarray(a) < b,
    "less_equal": lambda a, b: sx.asarray(a) <= b,
    "greater": lambda a, b: sx.asarray(a) > b,
    "greater_equal": lambda a, b: sx.asarray(a) >= b,
    "bitwise_and": lambda a, b: sx.asarray(a) & b,
    "bitwise_or": lambda a, b: sx.asarray(a) | b,
    "bitwise_xor": lambda a, b: sx.asarray(a) ^ b,
    "invert": lambda a: ~sx.asarray(a),
}


def symbolic_forward(op: Any, args: Sequence[Any], params: dict[str, Any]) -> sx.Expressions:
    """An op's forward on sympy expressions: its ``lower`` rule if it has one, else its
    forward rule run in the symbolic namespace.

    A custom Function's forward calls symgrad ops on Tensors: it runs with the dispatcher
    switched to the symbolic namespace, so its Tensors hold sympy expressions. If that fails
    (it calls numpy, say), the error says how to declare a ``symbolic`` rule instead.
    """
    if getattr(op, "lower", None) is not None:
        return sx.asarray(op.lower(sx, *args, **params))
    function_class = getattr(op.node_class, "_forward_cls", None)
    if function_class is None:
        return sx.asarray(op.forward(sx, *args, **params))
    from symgrad import dispatch

    numeric, dispatch.xp = dispatch.xp, sx
    try:
        with np.errstate(all="ignore"):
            return sx.asarray(op.forward(sx, *args, **params))
    except Exception as error:  # noqa: BLE001 - any failure means: give a symbolic rule
        raise TypeError(
            f"cannot lower {op.node_name}: the forward of {function_class.__name__} did not "
            f"run on sympy expressions ({type(error).__name__}: {error}). Give "
            f"{function_class.__name__} a staticmethod symbolic(*inputs) that computes its "
            "output from numpy object arrays of sympy expressions.") from error
    finally:
        dispatch.xp = numeric
