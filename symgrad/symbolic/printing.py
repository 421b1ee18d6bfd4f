"""Readable formulas: lowered outputs and symbolic gradients as text and LaTeX.

The expressions built by lowering and by :func:`symgrad.symbolic.grad` are DAG-shaped: a value
used twice is one Python object referenced twice, built without sympy's automatic
simplification. Printed as a tree, a deep graph whose values are used twice doubles its size per
layer. So every formula prints in two forms:

* *expanded*: the evaluated expression, as sympy prints it;
* *compact*: each shared subexpression named once (``t₁ := sin(a)``), in dependency order, then
  the result in those names — a common-subexpression elimination read off the DAG, so the size
  follows the graph's nodes rather than its expanded tree.

:func:`dag_cse` is that elimination; :mod:`symgrad.symbolic.codegen` compiles with it too.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import sympy

_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

# above this many nodes in the expanded tree, repr and _repr_latex_ show the compact form
_EXPANDED_LIMIT = 400


def postorder(roots: Iterable[Any]) -> list[Any]:
    """The non-atomic nodes under ``roots``, each Python object once, after its arguments
    (iterative: no recursion into a deep expression).

    >>> from symgrad.symbolic.printing import postorder
    >>> x = sympy.Symbol("x")
    >>> postorder([sympy.sin(x) + 1])
    [sin(x), sin(x) + 1]
    """
    by_identity: list[Any] = []
    seen: set[int] = set()
    for root in roots:
        if not isinstance(root, sympy.Basic) or id(root) in seen or not root.args:
            continue
        seen.add(id(root))
        stack = [(root, iter(root.args))]
        while stack:
            node, args = stack[-1]
            for a in args:
                if id(a) not in seen and a.args:
                    seen.add(id(a))
                    stack.append((a, iter(a.args)))
                    break
            else:
                stack.pop()
                by_identity.append(node)
    return by_identity


def _nodes(roots: Iterable[Any]) -> tuple[list[Any], dict[Any, int], set[Any]]:
    """The DAG under ``roots``: its non-atomic nodes, each once (by structure) and after its
    arguments; for each, how many distinct parents use it (a root counts as one use); and the
    atoms.

    The walk is by identity first, so each Python object is visited once, and hashes are taken
    children first (sympy caches them), so no step recurses into a deep expression.
    """
    roots = [r for r in roots if isinstance(r, sympy.Basic)]
    order: list[Any] = []
    known: set[Any] = set()
    uses: dict[Any, int] = defaultdict(int)
    atoms: set[Any] = set()
    for node in postorder(roots):
        if node in known:
            continue
        known.add(node)
        order.append(node)
        for a in set(node.args):
            if a.args:
                uses[a] += 1
            else:
                atoms.add(a)
    for r in roots:
        if r.args:
            uses[r] += 1
        else:
            atoms.add(r)
    return order, uses, atoms


def evaluate(exprs: Sequence[Any], replace: dict[Any, Any] | None = None) -> list[Any]:
    """``exprs`` rebuilt with sympy's automatic simplification, each shared node once.

    ``replace`` maps atoms (symbols) to what they become.

    >>> from symgrad.symbolic.printing import evaluate
    >>> x = sympy.Symbol("x")
    >>> h = sympy.Add(x, x, evaluate=False)
    >>> evaluate([sympy.Mul(h, h, evaluate=False)])
    [4*x**2]
    """
    replace = replace or {}
    order, _, _ = _nodes(exprs)
    value: dict[Any, Any] = {}
    for node in order:
        value[node] = node.func(*[value[a] if a.args else replace.get(a, a) for a in node.args])
    return [value[e] if isinstance(e, sympy.Basic) and e.args else replace.get(e, e)
            for e in exprs]


def dag_cse(exprs: Sequence[Any], names: Iterator[sympy.Symbol],
            replace: dict[Any, Any] | None = None,
            inline: Callable[[Any], bool] | None = None) -> tuple[list[tuple[Any, Any]], list[Any]]:
    """Common subexpressions of DAG-shaped ``exprs``, read off their sharing.

    Returns ``(definitions, reduced)`` as ``sympy.cse`` does: every non-atomic subexpression
    (an ``Expr``: conditions and Piecewise pairs stay inline) with more than one parent, or
    used by more than one of ``exprs``, gets the next symbol of ``names``, in dependency order;
    each definition is evaluated (sympy's automatic simplification) in the names before it,
    and equal definitions share one name. ``replace`` maps atoms to what they become;
    ``inline(definition)`` true keeps a shared definition inline (small ones, for reading).
    Linear in the DAG's nodes, unlike ``sympy.cse``, which also looks for subexpressions that
    are equal without being shared.

    >>> from symgrad.symbolic.printing import dag_cse
    >>> x = sympy.Symbol("x")
    >>> h = sympy.sin(x)
    >>> dag_cse([sympy.Add(h, sympy.Mul(h, h, evaluate=False), evaluate=False)],
    ...         iter(sympy.symbols("t1:9")))
    ([(t1, sin(x))], [t1**2 + t1])
    """
    replace = replace or {}
    order, uses, _ = _nodes(exprs)
    value: dict[Any, Any] = {}
    named: dict[Any, Any] = {}
    definitions: list[tuple[Any, Any]] = []
    for node in order:
        e = node.func(*[value[a] if a.args else replace.get(a, a) for a in node.args])
        if e in named:
            e = named[e]
        elif (uses[node] > 1 and e.args and isinstance(e, sympy.Expr)
              and not (inline is not None and inline(e))):
            name = named[e] = next(names)
            definitions.append((name, e))
            e = name
        value[node] = e
    reduced = [value[e] if isinstance(e, sympy.Basic) and e.args else replace.get(e, e)
               for e in exprs]
    return definitions, reduced


def fresh_base(taken: Iterable[str]) -> str:
    """A letter for numbered names (``t1``, ``t₁``, ``t_{1}``) that no name in ``taken`` could
    be mistaken for: none is the letter itself or the letter followed by ``_`` or a digit.

    >>> from symgrad.symbolic.printing import fresh_base
    >>> fresh_base(["x", "t_1"])
    'u'
    """
    taken = list(taken)

    def clashes(base: str, name: str) -> bool:
        rest = name[len(base):]
        return name.startswith(base) and (
            not rest or rest[0] == "_" or rest[0].isdigit() or rest[0] in "₀₁₂₃₄₅₆₇₈₉")

    for base in itertools.chain("tusrqw", (f"t{chr(39) * k}" for k in itertools.count(1))):
        if not any(clashes(base, name) for name in taken):
            return base
    raise AssertionError("unreachable")


def _small(e: Any) -> bool:
    """A definition short enough to repeat: ``-t₁``, ``2*x``, ``t₁**2``, ``x + 1``."""
    return (e.is_Add or e.is_Mul or e.is_Pow) and len(e.args) <= 2 and all(
        not a.args for a in e.args)


def _tree_size(exprs: Sequence[Any]) -> int:
    """The number of nodes of ``exprs`` written out as trees (memoized over the DAG)."""
    order, _, _ = _nodes(exprs)
    size: dict[Any, int] = {}
    for node in order:
        size[node] = 1 + sum(size[a] if a.args else 1 for a in node.args)
    return sum(size[e] if isinstance(e, sympy.Basic) and e.args else 1 for e in exprs)


class Formula(sympy.ImmutableDenseNDimArray):
    """A sympy Array of formulas that prints readably (see :mod:`symgrad.symbolic.printing`).

    Returned by ``Lowered.expr``, :func:`~symgrad.symbolic.grad`,
    :func:`~symgrad.symbolic.jacobian` and :func:`~symgrad.symbolic.hessian`. Indexing,
    iteration, ``.shape`` and comparison are those of ``sympy.ImmutableDenseNDimArray`` (a
    one-element output has shape ``()``: ``f[()]``). ``text()`` and ``latex()`` give the
    expanded form, ``compact=True`` the form that names each shared subexpression once;
    ``str`` is ``text()``, while ``repr`` and ``_repr_latex_`` (notebooks) switch to the compact
    form when the expanded one would be long.

    >>> x = t.tensor(0.5, requires_grad=True)
    >>> h = (x * x).sin()
    >>> f = symgrad.symbolic.lower(h * h + h).expr
    >>> print(f)
    sin(x**2)**2 + sin(x**2)
    >>> print(f.text(compact=True))
    t₁ := sin(x**2)
    t₁**2 + t₁
    >>> print(f.latex(compact=True))
    \\begin{aligned} t_{1} &:= \\sin{\\left(x^{2} \\right)} \\\\ & t_{1}^{2} + t_{1} \\end{aligned}
    """

    def _elements(self) -> list[Any]:
        return list(self._array) if self.shape else [self[()]]

    def _wrap(self, elements: list[Any]) -> Formula:
        return Formula(elements, self.shape) if self.shape else Formula(elements[0])

    def cse(self) -> tuple[list[tuple[sympy.Symbol, Any]], Formula]:
        """The compact form as data: ``(definitions, result)``, as ``sympy.cse`` returns it.

        ``definitions`` is a list of ``(name, expression)`` in dependency order; substituting
        them back (last first) into ``result`` gives the expanded formula.

        >>> x = t.tensor(0.5, requires_grad=True)
        >>> h = x.exp()
        >>> symgrad.symbolic.lower(h * (h + 1)).expr.cse()
        ([(t₁, exp(x))], t₁*(t₁ + 1))
        """
        elements = self._elements()
        _, _, atoms = _nodes(elements)
        base = fresh_base(str(a) for a in atoms if isinstance(a, sympy.Symbol))
        names = (sympy.Symbol(f"{base}{str(k).translate(_SUBSCRIPTS)}")
                 for k in itertools.count(1))
        definitions, reduced = dag_cse(elements, names, inline=_small)
        return definitions, self._wrap(reduced)

    def evaluated(self) -> Formula:
        """The same formulas with sympy's automatic simplification applied (the expanded form).

        >>> a = t.tensor(1.0, requires_grad=True)
        >>> symgrad.symbolic.lower((a + a) + a).expr.evaluated()
        3*a
        """
        return self._wrap(evaluate(self._elements()))

    def _printable(self, elements: list[Any]) -> Any:
        return sympy.ImmutableDenseNDimArray(elements, self.shape) if self.shape else elements[0]

    def text(self, compact: bool = False) -> str:
        """The formula as text: expanded (sympy's ``str`` of the evaluated expression), or
        compact (``t₁ := …`` lines, then the result).

        >>> a = t.tensor(1.0, requires_grad=True)
        >>> h = a.sin()
        >>> print(symgrad.symbolic.grad((h * h).exp(), a)[0].text(compact=True))
        t₁ := sin(a)
        2*t₁*exp(t₁**2)*cos(a)
        """
        if not compact:
            return sympy.sstr(self._printable(evaluate(self._elements())))
        definitions, result = self.cse()
        lines = [f"{name} := {sympy.sstr(e)}" for name, e in definitions]
        lines.append(sympy.sstr(self._printable(result._elements())))
        return "\n".join(lines)

    def latex(self, compact: bool = False) -> str:
        """The formula as LaTeX: expanded (``sympy.latex`` of the evaluated expression), or
        compact (rows ``t_{1} &:= …`` of an ``aligned`` environment, then the result).

        >>> a = t.tensor(1.0, requires_grad=True)
        >>> print(symgrad.symbolic.lower((a * a).sin()).expr.latex())
        \\sin{\\left(a^{2} \\right)}
        """
        if not compact:
            return sympy.latex(self._printable(evaluate(self._elements())))
        definitions, result = self.cse()
        names = {name: f"{str(name).rstrip('₀₁₂₃₄₅₆₇₈₉')}_{{{k}}}"
                 for k, (name, _) in enumerate(definitions, 1)}
        body = sympy.latex(self._printable(result._elements()), symbol_names=names)
        if not definitions:
            return body
        rows = [f"{names[name]} &:= {sympy.latex(e, symbol_names=names)}"
                for name, e in definitions]
        rows.append(f"& {body}")
        return "\\begin{aligned} " + " \\\\ ".join(rows) + " \\end{aligned}"

    def _long(self) -> bool:
        return _tree_size(self._elements()) > _EXPANDED_LIMIT

    def _repr_latex_(self) -> str:
        """LaTeX for notebooks: the expanded form, or the compact one if that is long."""
        return f"$\\displaystyle {self.latex(compact=self._long())}$"

    def simplify(self, **kwargs: Any) -> Formula:
        """Each element through ``sympy.simplify`` (keywords passed on).

        >>> a = t.tensor(0.3, requires_grad=True)
        >>> f = symgrad.symbolic.lower(a.sin() ** 2 + a.cos() ** 2).expr
        >>> f.simplify()
        1
        """
        return self._wrap([sympy.simplify(e, **kwargs) for e in evaluate(self._elements())])

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text(compact=self._long())


def formula(values: Any) -> Formula:
    """A :class:`Formula` of a numpy object array (or of one expression: shape ``()``).

    >>> from symgrad.symbolic.printing import formula
    >>> formula(np.array([sympy.Symbol("a"), 1], dtype=object))
    [a, 1]
    """
    values = np.asarray(values, dtype=object)
    if values.ndim == 0:
        return Formula(values[()])
    return Formula(values.reshape(-1).tolist(), values.shape)


__all__ = ["Formula", "dag_cse", "evaluate", "formula", "fresh_base", "postorder"]
