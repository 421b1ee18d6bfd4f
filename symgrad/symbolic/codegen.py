"""Compiled gradients: a lowered output and its exact gradient as one numpy function.

:func:`compile` lowers a recorded graph, takes its exact gradient by the chain of
:func:`symgrad.symbolic.grad`, and writes both as one Python function on numpy from the DAG's
own common-subexpression elimination (:func:`symgrad.symbolic.printing.dag_cse`), so each
shared value is computed once, as the graph computed it, and a deep graph becomes a sequence
of short lines (sympy's ``lambdify`` would print it as one nested expression, recursively).
"""

from __future__ import annotations

import builtins
import functools
import importlib
import inspect
import itertools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.printing.numpy import NumPyPrinter

from symgrad.numeric.numpy_namespace import SYMPY_FUNCTIONS
from symgrad.symbolic.calculus import _inputs, grad
from symgrad.symbolic.lowering import Lowered, _unevaluated, lower
from symgrad.symbolic.printing import MAX_DEPTH, dag_cse, depth, postorder
from symgrad.symbolic.progress import Progress
from symgrad.tensor import Tensor

# ops whose recorded node holds which elements they picked, chosen from the values when
# recording (the first largest, the tied extremes): lowered, they read those elements only
_SELECTIONS = frozenset({"max", "min", "amax", "amin", "max_dim", "min_dim"})

# the generated code names a value at most this deep (Python's parser refuses deeper
# nesting of parentheses, and printing recurses through it)
_CODE_DEPTH = 30


class _Printer(NumPyPrinter):
    """lambdify's numpy printer, with exact fractions written as the nearest float (the input
    values were floats: ``0.1`` reads better than ``1/10``, and is the same number) and the
    leaf symbols under the names of the variables that hold them (``W_0,1`` as ``W_0_1``).

    Renaming when printing rather than substituting keeps the leaves' real assumptions, which
    sympy's simplification of the definitions asks for at every step."""

    def __init__(self, names: dict[Any, str]) -> None:
        super().__init__({"fully_qualified_modules": False, "inline": True,
                          "allow_unknown_functions": True})
        self.names = names

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        name = self.names.get(expr)
        return name if name is not None else super()._print_Symbol(expr)

    def _print_Rational(self, expr: sympy.Rational) -> str:
        return str(expr.p) if expr.q == 1 else repr(float(expr))

    def _print_Pow(self, expr: Any, rational: bool = False) -> str:
        # the arrays are floats, so numpy's error for negative integer powers of integers
        # (which NumPyPrinter avoids by writing t**(-1.0)) cannot arise: 1/t reads better
        return self._hprint_Pow(expr, rational=rational,
                                sqrt=self._module_format(self._module + ".sqrt"))

    def _print_And(self, expr: Any) -> str:
        return self._fold("logical_and", expr.args)

    def _print_Or(self, expr: Any) -> str:
        return self._fold("logical_or", expr.args)

    def _fold(self, name: str, args: Sequence[Any]) -> str:
        # NumPyPrinter writes logical_and.reduce((p, q)), which stacks p and q into one array
        # and so fails when inputs with different batch dimensions (or a batched one and an
        # unbatched one) meet in a condition; nested binary calls broadcast them
        function = self._module_format(f"{self._module}.{name}")
        text = self._print(args[0])
        for arg in args[1:]:
            text = f"{function}({text}, {self._print(arg)})"
        return text

    def _print_ITE(self, expr: Any) -> str:
        # sympy writes a condition on a Piecewise (a where of a where) as an ITE; NumPyPrinter
        # prints it as select(..., default=nan), a float array that select then rejects as a
        # condition (its simplify_logic, which removes the ITE, gives up above 8 variables)
        where = self._module_format(self._module + ".where")
        return f"{where}({', '.join(self._print(a) for a in expr.args)})"

    def _print_ComplexInfinity(self, expr: Any) -> str:
        # 1/0 folded by sympy (in a branch that select evaluates but may not take): undefined
        return self._module_format(self._module + ".nan")

    def parenthesize(self, item: Any, level: int, strict: bool = False) -> str:
        if isinstance(item, sympy.Rational) and item > 0:  # a float needs no parentheses
            return self._print(item)
        return super().parenthesize(item, level, strict)


class CompiledGradient:
    """A numpy function computing an output and its exact gradient (see :func:`compile`).

    Call it with one array per input (numbers, arrays or Tensors), each shaped like that
    input, optionally with extra *leading* batch dimensions: ``f(x)`` with ``x`` of shape
    ``(N, *x_shape)`` evaluates ``N`` points in one call (batch dimensions of different inputs
    broadcast against each other). It returns ``(value, grads)``: ``value`` shaped
    ``batch + output shape``, ``grads`` a tuple with one array ``batch + input shape`` per input.

    Results are float64, or float32 when every array given is float32 (other dtypes are read
    as float64); the arithmetic is numpy's on that dtype.

    ``source`` is the generated code: its parameters are ``a0``, ``a1`` ... (one per input,
    in order; a comment gives each input's name), and it reads element ``(i, j)`` of ``a0``
    as ``a0[i, j]``, with any batch dimensions moved last there (the call does that, so each
    element is a scalar or one array over the whole batch); ``inputs`` names the inputs.

    >>> x = t.tensor([1.0, 2.0], requires_grad=True)
    >>> f = symgrad.symbolic.compile((x * x).sum(), x)
    >>> f
    CompiledGradient(x: (2,) -> ())
    >>> f(np.array([3.0, 4.0]))
    (array(25.), (array([6., 8.]),))
    >>> value, (g,) = f(np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]]))  # 3 points at once
    >>> value
    array([ 1.,  4., 18.])
    """

    def __init__(self, function: Any, inputs: tuple[str, ...],
                 shapes: tuple[tuple[int, ...], ...], output_shape: tuple[int, ...],
                 source: str = "") -> None:
        self.function = function
        self._source = source
        self.inputs = inputs
        self.shapes = shapes
        self.output_shape = output_shape
        sizes = [int(np.prod(s)) for s in (output_shape, *shapes)]
        self._slices = [slice(a, b) for a, b in itertools.pairwise(np.cumsum([0, *sizes]))]

    @property
    def source(self) -> str:
        """The generated Python source.

        >>> a = t.tensor(1.0, requires_grad=True)
        >>> h = a.exp()
        >>> print(symgrad.symbolic.compile(h * h + h, a).source)
        def compiled(a0):
            # a0: 'a', shape ()
            t1 = exp(a0)
            return [t1**2 + t1, t1*(2*t1 + 1)]
        <BLANKLINE>
        """
        return self._source or inspect.getsource(self.function)

    def __repr__(self) -> str:
        args = ", ".join(f"{n}: {s}" for n, s in zip(self.inputs, self.shapes, strict=True))
        return f"CompiledGradient({args} -> {self.output_shape})"

    def __call__(self, *arrays: Any) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        if len(arrays) != len(self.inputs):
            raise TypeError(
                f"compiled function takes {len(self.inputs)} arrays "
                f"({', '.join(self.inputs)}) but {len(arrays)} were given")
        values = []
        for name, shape, a in zip(self.inputs, self.shapes, arrays, strict=True):
            a = np.asarray(a._value if isinstance(a, Tensor) else a)
            if a.dtype not in (np.float32, np.float64):
                a = a.astype(np.float64)
            if a.shape[a.ndim - len(shape):] != shape or a.ndim < len(shape):
                raise ValueError(
                    f"input {name} must have shape {shape} (after any leading batch "
                    f"dimensions), got shape {a.shape}")
            values.append(a)
        dtype = np.result_type(*values) if values else np.dtype(np.float64)
        batches = [a.shape[:a.ndim - len(s)] for a, s in zip(values, self.shapes, strict=True)]
        try:
            batch = np.broadcast_shapes(*batches)
        except ValueError:
            raise ValueError("the batch dimensions of the inputs do not broadcast: "
                             + ", ".join(f"{n} {b}" for n, b in
                                         zip(self.inputs, batches, strict=True))) from None
        args = []
        for a, b in zip(values, batches, strict=True):
            a = a.astype(dtype, copy=False)
            if b:  # batch dimensions last: a[i, j] is then one array over the batch
                a = a.transpose(*range(len(b), a.ndim), *range(len(b)))
            args.append(a if a.ndim else a[()])
        with np.errstate(all="ignore"):
            flat = self.function(*args)
        value, *grads = (_assemble(flat[s], shape, batch, dtype) for s, shape in
                         zip(self._slices, (self.output_shape, *self.shapes), strict=True))
        return value, tuple(grads)


def _assemble(elements: Sequence[Any], shape: tuple[int, ...], batch: tuple[int, ...],
              dtype: np.dtype) -> np.ndarray:
    """An array ``batch + shape`` of the elements (each a scalar or broadcasting to
    ``batch``)."""
    if not batch:
        return np.array(elements, dtype=dtype).reshape(shape)
    out = np.empty((len(elements), *batch), dtype=dtype)
    for k, e in enumerate(elements):
        out[k] = e
    return np.moveaxis(out, 0, -1).reshape(batch + shape)


def compile(output: Tensor | Lowered,  # noqa: A001 - the issue's name
            inputs: Tensor | Sequence[Tensor] | None = None,
            gradient: Any = None, *, progress: bool | None = None) -> CompiledGradient:
    """Compile ``output`` and its exact gradient into one numpy function.

    The graph recorded for ``output`` is lowered and differentiated exactly as
    :func:`symgrad.symbolic.grad` does (``inputs`` defaults to every leaf that requires grad;
    ``gradient`` is the v of vᵀJ as ``backward`` takes it, baked into the code as exact
    numbers, and required when the output has more than one element); value and gradients
    are then printed as one numpy function, each shared subexpression computed once. Leaves
    that require grad but are not among ``inputs``, and constants, keep their current
    values. The result is a :class:`CompiledGradient`: call it with arrays shaped
    like the inputs, or with leading batch dimensions to evaluate many points at once (where
    compiling pays most: one numpy call per operation for the whole batch). ``progress``
    shows its stages on stderr (None: on a terminal, once it has run for about 2 s).

    >>> w = t.tensor([0.5, -1.0], requires_grad=True)
    >>> x = t.tensor([2.0, 1.0])
    >>> f = symgrad.symbolic.compile((w @ x).tanh(), w)
    >>> value, (gw,) = f(np.array([0.5, -1.0]))
    >>> value, gw
    (array(0.), array([2., 1.]))
    """
    with Progress(4, "symbolic.compile", progress) as bar:
        lowered = output if isinstance(output, Lowered) else lower(output, progress=False)
        bar.update()
        return _compile(lowered, inputs, gradient, bar)


def _compile(lowered: Lowered, inputs: Tensor | Sequence[Tensor] | None, gradient: Any,
             bar: Progress) -> CompiledGradient:
    sources = _inputs(lowered, inputs)
    _warn_frozen_selections(lowered, sources)
    gradients = grad(lowered, [s.tensor for s in sources], gradient)
    bar.update()
    chosen = {id(s) for s in sources}
    replace: dict[Any, Any] = {}
    for s in lowered.sources:  # everything else keeps its current value
        if id(s) not in chosen:
            replace.update(zip(s.symbols.reshape(-1), s.values.reshape(-1), strict=True))
    # the code's identifiers are its own (a0, a1 ... for the inputs, a0_1_2 for element (1, 2)
    # of a0, t1, t2 ... for shared values): a user's name, whatever its characters, appears
    # only in a comment, as Python writes it in a string
    params = [f"a{k}" for k in range(len(sources))]
    lines = [f"def compiled({', '.join(params)}):"]
    names: dict[Any, str] = {}
    reads = []
    for param, s in zip(params, sources, strict=True):
        lines.append(f"    # {param}: {s.name!r}, shape {tuple(s.symbols.shape)}")
        if s.symbols.ndim == 0:
            names[s.symbols[()]] = param
            continue
        for index, symbol in np.ndenumerate(s.symbols):
            names[symbol] = f"{param}_{'_'.join(map(str, index))}"
            reads.append(f"    {names[symbol]} = {param}[{', '.join(map(str, index))}]")
    elements = [*lowered.inlined.reshape(-1)]
    for g in gradients:
        elements.extend(g._elements())
    elements = _fold_branches(elements)
    bar.update()
    fresh = (sympy.Symbol(f"t{k}") for k in itertools.count(1))
    definitions, reduced = dag_cse(elements, fresh, replace, max_depth=_CODE_DEPTH,
                                   evaluate=depth(elements) <= MAX_DEPTH)
    printer = _Printer(names)
    lines += reads
    lines += [f"    {name} = {printer.doprint(e)}" for name, e in definitions]
    lines.append(f"    return [{', '.join(printer.doprint(e) for e in reduced)}]")
    source = "\n".join(lines) + "\n"
    namespace = dict(_numpy_names())
    for module, imported in printer.module_imports.items():  # functools.reduce, say
        for name in imported:
            namespace[name.rsplit(".", 1)[-1]] = getattr(importlib.import_module(module), name)
    exec(builtins.compile(source, "<symgrad.symbolic.compile>", "exec"), namespace)  # noqa: S102
    bar.update()
    return CompiledGradient(namespace["compiled"], tuple(s.name for s in sources),
                            tuple(tuple(s.symbols.shape) for s in sources), lowered.shape,
                            source)


@functools.cache
def _numpy_names() -> dict[str, Any]:
    """numpy's public names, for the generated code (read once: some of numpy's names are
    attributes that import a submodule or warn on first access)."""
    return {**{k: getattr(np, k) for k in dir(np) if not k.startswith("_")}, **SYMPY_FUNCTIONS}


def _fold_branches(exprs: Sequence[Any]) -> list[Any]:
    """``exprs`` with each product that has a ``Piecewise`` factor written as a ``Piecewise``
    of products.

    numpy evaluates every branch (``select``): a gradient ``Piecewise((1, x > 0), (0, True)) /
    sqrt(x)`` (the masked branch of a where) is ``0 * nan`` at ``x < 0``, where the exact
    value, and that of ``Piecewise((1/sqrt(x), x > 0), (0, True))``, is 0. Only the nodes
    above such a product are rebuilt, unevaluated (sympy's evaluation of a deep DAG written
    out is exponential); :func:`~symgrad.symbolic.printing.dag_cse` evaluates them in names.
    """
    value: dict[int, Any] = {}
    for node in postorder(exprs):
        args = [value.get(id(a), a) for a in node.args]
        if node.func is sympy.Mul and any(isinstance(a, sympy.Piecewise) for a in args):
            value[id(node)] = _folded(args)
        elif any(new is not old for new, old in zip(args, node.args, strict=True)):
            value[id(node)] = _unevaluated(node, args)
    return [value.get(id(e), e) for e in exprs]


def _folded(factors: list[Any]) -> Any:
    for k, factor in enumerate(factors):
        if isinstance(factor, sympy.Piecewise):
            rest = factors[:k] + factors[k + 1:]
            pairs = [sympy.Basic.__new__(ExprCondPair, e if e == 0 else _folded([e, *rest]), c)
                     for e, c in factor.args]
            return _unevaluated(factor, pairs)
    return sympy.Mul(*factors, evaluate=False)  # evaluated, a Pow of a Piecewise distributes


def _warn_frozen_selections(lowered: Lowered, sources: Sequence[Any]) -> None:
    """Warn when a max/min reduction of a value that depends on the inputs is in the graph:
    its lowering reads the elements it picked while recording, so the compiled function keeps
    reading them at points where others are the extreme."""
    chosen = {id(s.tensor) for s in sources}
    depends: set[int] = set()
    frozen = []
    for step in lowered.steps:
        node = step.node
        if not any(id(edge) in chosen or id(edge) in depends for edge in node.next
                   if edge is not None):
            continue
        depends.add(id(node))
        params = node.params or {}
        if node.op.name in _SELECTIONS or (node.op.name == "vector_norm"
                                           and params.get("key") is not None):
            where = node.created_at
            frozen.append(step.name + (f" created at {where}" if where else ""))
    if frozen:
        warnings.warn(
            "compile(): the output takes a max or min that picks its elements from the input "
            f"values ({', '.join(frozen)}); the compiled function keeps the elements picked "
            "when the graph was recorded, so its value and gradient are wrong where another "
            "element is the extreme. Use maximum/minimum/clamp (decided at every call), or "
            "compile again at each point.", UserWarning, stacklevel=3)


__all__ = ["CompiledGradient", "compile"]
