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
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import sympy
from sympy.core.function import Function
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.printing.latex import LatexPrinter
from sympy.printing.str import StrPrinter

_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

# above this many nodes in the expanded tree, repr and _repr_latex_ show the compact form
_EXPANDED_LIMIT = 400

# above this many nodes in the expanded tree, text() and latex() print the compact form with a
# note (``limit=None`` prints the expanded form whatever its size)
PRINT_LIMIT = 20_000

# deeper expressions are cut into named parts before sympy sees them: its printers, its
# evaluation and its cache lookups recurse through an expression's depth
MAX_DEPTH = 60
# a sum or product with more terms is named too: evaluating a chain of products in sympy
# merges each into the next, a cost that grows with the square of the chain
_MAX_ARGS = 16

# leaf symbols: symbol name -> (the tensor's name, the element's index text or "")
_LEAVES: dict[str, tuple[str, str]] = {}


def register_leaf(symbol_name: str, base: str, index: str) -> None:
    """Remember that the symbol ``symbol_name`` is element ``index`` of the leaf named
    ``base``, so that printing can show the name as written (see :func:`leaf_text`).

    >>> from symgrad.symbolic.printing import register_leaf, leaf_latex
    >>> register_leaf("x+y_0", "x+y", "0")
    >>> leaf_latex(sympy.Symbol("x+y_0"))
    '\\\\text{x+y}_{0}'
    """
    _LEAVES[symbol_name] = (base, index)


def _plain_text(base: str) -> bool:
    return re.fullmatch(r"\w+", base) is not None


def leaf_text(symbol: Any) -> str | None:
    """A leaf symbol as text: its name as written, in backquotes when it is not a plain word
    (``x+y`` would read as a sum), then ``_`` and the element's index; None for other symbols.

    >>> from symgrad.symbolic.printing import register_leaf, leaf_text
    >>> register_leaf("x+y_0", "x+y", "0")
    >>> leaf_text(sympy.Symbol("x+y_0"))
    '`x+y`_0'
    """
    found = _LEAVES.get(getattr(symbol, "name", None))
    if found is None:
        return None
    base, index = found
    if not _plain_text(base):
        base = "`" + base.replace("`", "\\`") + "`"
    return f"{base}_{index}" if index else base


_TEX_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "#": r"\#", "$": r"\$",
                "%": r"\%", "&": r"\&", "_": r"\_", "^": r"\textasciicircum{}",
                "~": r"\textasciitilde{}"}


def leaf_latex(symbol: Any) -> str | None:
    """A leaf symbol as LaTeX: a plain name (letters, then digits) as sympy writes it (``W1``
    as :math:`W_{1}`, ``alpha`` as :math:`\\alpha`), any other in ``\\text{}`` with LaTeX's
    special characters escaped, so the rendered formula shows the name as written; then the
    element's index as a subscript. None for other symbols.

    >>> from symgrad.symbolic.printing import register_leaf, leaf_latex
    >>> register_leaf("a_b", "a_b", "")
    >>> leaf_latex(sympy.Symbol("a_b"))
    '\\\\text{a\\\\_b}'
    """
    found = _LEAVES.get(getattr(symbol, "name", None))
    if found is None:
        return None
    base, index = found
    if re.fullmatch(r"[A-Za-z]+[0-9]*", base):
        text = sympy.latex(sympy.Symbol(base))
    else:
        text = r"\text{" + "".join(_TEX_ESCAPES.get(c, c) for c in base) + "}"
    if not index:
        return text
    if "_" in text.replace(r"\_", "") or "^" in text:
        text = "{" + text + "}"
    return f"{text}_{{{index}}}"


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
            inline: Callable[[Any], bool] | None = None, *,
            share: bool = True, max_depth: int | None = MAX_DEPTH, evaluate: bool = True
            ) -> tuple[list[tuple[Any, Any]], list[Any]]:
    """Common subexpressions of DAG-shaped ``exprs``, read off their sharing.

    Returns ``(definitions, reduced)`` as ``sympy.cse`` does: every non-atomic subexpression
    (an ``Expr``: conditions and Piecewise pairs stay inline) with more than one parent, or
    used by more than one of ``exprs``, gets the next symbol of ``names``, in dependency order;
    each definition is evaluated (sympy's automatic simplification) in the names before it,
    and equal definitions share one name. ``replace`` maps atoms to what they become;
    ``inline(definition)`` true keeps a shared definition inline (small ones, for reading).
    An expression deeper than ``max_depth`` is named too, shared or not, so that neither the
    definitions nor the results hand sympy a deep expression; ``share=False`` names only
    those (the expanded form, cut where it is deep). ``evaluate=False`` rebuilds the nodes
    as they are, without sympy's automatic simplification (whose assumption queries walk
    far into a deep expression). Linear in the DAG's nodes, unlike
    ``sympy.cse``, which also looks for subexpressions that are equal without being shared.

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
    depth: dict[int, int] = {}
    definitions: list[tuple[Any, Any]] = []
    for node in order:
        args = [value[a] if a.args else replace.get(a, a) for a in node.args]
        if evaluate:
            e = node.func(*args)
        else:
            e = node if all(a is b for a, b in zip(args, node.args, strict=True)) \
                else unevaluated(node.func, args)
        if e in named:
            e = named[e]
        elif e.args and isinstance(e, sympy.Expr) and (
                (share and uses[node] > 1 and not (inline is not None and inline(e)))
                or (max_depth is not None and (_depth(e, depth) > max_depth
                                               or len(e.args) > _MAX_ARGS))):
            name = named[e] = next(names)
            definitions.append((name, e))
            e = name
        value[node] = e
    reduced = [value[e] if isinstance(e, sympy.Basic) and e.args else replace.get(e, e)
               for e in exprs]
    return definitions, reduced


def unevaluated(func: Any, args: Sequence[Any]) -> Any:
    """``func(*args)`` without sympy's automatic simplification, uncached (see below).

    >>> from symgrad.symbolic.printing import unevaluated
    >>> unevaluated(sympy.Add, [sympy.Integer(1), sympy.Integer(1)])
    1 + 1
    """
    # sympy's constructors look their arguments up in its cache, which compares them with
    # equal ones built earlier, element by element: through a whole deep expression built
    # twice (two lowerings of one graph). Add, Mul, Pow and functions are built uncached.
    if func is sympy.Piecewise or func is ExprCondPair:
        # their constructors rewrite conditions that hold a Piecewise (a relu of a relu) by
        # set simplification, exponential in the nesting, even with evaluate=False
        result = sympy.Basic.__new__(func, *args)
    elif func is sympy.Add or func is sympy.Mul:
        result = func._from_args(args)
    elif func is sympy.Pow:
        result = sympy.Pow.__new__.__wrapped__(func, *args, evaluate=False)
    elif isinstance(func, type) and issubclass(func, Function) \
            and not issubclass(func, sympy.core.operations.LatticeOp):
        result = sympy.Expr.__new__(func, *args)
    else:
        try:
            result = func(*args, evaluate=False)
        except TypeError:  # a function without the keyword
            result = func(*args)
    hash(result)
    if isinstance(result, sympy.Expr):
        result.is_commutative  # noqa: B018 - cached by sympy, see above
    return result


def _deep(elements: Sequence[Any]) -> bool:
    """Whether ``elements`` are too deep to hand to sympy's evaluation (see :func:`dag_cse`)."""
    return depth(elements) > MAX_DEPTH


def _depth(expr: Any, known: dict[int, int]) -> int:
    """The depth of ``expr`` (atoms 0), with the depths of subexpressions already met in
    ``known`` (by identity; the caller keeps them alive)."""
    if not expr.args:
        return 0
    stack = [expr]
    while stack:
        node = stack[-1]
        if id(node) in known:
            stack.pop()
            continue
        pending = [a for a in node.args if a.args and id(a) not in known]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        known[id(node)] = 1 + max(known[id(a)] if a.args else 0 for a in node.args)
    return known[id(expr)]


def depth(exprs: Iterable[Any]) -> int:
    """The largest depth of ``exprs`` (an atom's is 0), walked iteratively.

    >>> from symgrad.symbolic.printing import depth
    >>> x = sympy.Symbol("x")
    >>> depth([sympy.sin(sympy.sin(x)), x])
    2
    """
    known: dict[int, int] = {}
    order = postorder(exprs)
    for node in order:
        known[id(node)] = 1 + max(known[id(a)] if a.args else 0 for a in node.args)
    return max((known[id(e)] for e in exprs if isinstance(e, sympy.Basic) and e.args),
               default=0)


class _Inlining:
    """A sympy printer that prints named definitions in place of their names, as text already
    printed (so printing never recurses deeper than one definition), parenthesized by the
    definition's own precedence; and leaf symbols under their tensors' names as written."""

    _leaf: Callable[[Any], str | None] = staticmethod(leaf_text)

    def __init__(self, definitions: Sequence[tuple[Any, Any]] = (), **settings: Any) -> None:
        super().__init__(settings)  # type: ignore[call-arg]
        self.inlined: dict[Any, Any] = {}
        self.memo: dict[int, str] = {}
        for name, definition in definitions:
            self.memo[id(definition)] = self._print(definition)
            self.inlined[name] = definition

    def _print(self, expr: Any, **kwargs: Any) -> str:
        found = self.memo.get(id(expr))
        if found is not None:
            return found
        definition = self.inlined.get(expr) if isinstance(expr, sympy.Symbol) else None
        if definition is not None:
            return self.memo[id(definition)]
        if isinstance(expr, sympy.Symbol):
            leaf = self._leaf(expr)
            if leaf is not None:
                return leaf
        return super()._print(expr, **kwargs)  # type: ignore[misc]

    def parenthesize(self, item: Any, level: int, *args: Any, **kwargs: Any) -> str:
        if isinstance(item, sympy.Symbol) and item in self.inlined:
            item = self.inlined[item]
        return super().parenthesize(item, level, *args, **kwargs)  # type: ignore[misc]


class _TextPrinter(_Inlining, StrPrinter):
    pass


class _LatexPrinter(_Inlining, LatexPrinter):
    _leaf = staticmethod(leaf_latex)


def text_of(exprs: Any, definitions: Sequence[tuple[Any, Any]] = ()) -> str:
    """sympy's text of ``exprs`` (an expression or an Array), with ``definitions``' names
    replaced by their text and leaf names as written (see :func:`leaf_text`).

    >>> from symgrad.symbolic.printing import text_of
    >>> x, t1 = sympy.symbols("x t1")
    >>> text_of(2 * t1, [(t1, x + 1)])
    '2*(x + 1)'
    """
    return _TextPrinter(definitions).doprint(exprs)


def latex_of(exprs: Any, definitions: Sequence[tuple[Any, Any]] = (),
             **settings: Any) -> str:
    """sympy's LaTeX of ``exprs``, as :func:`text_of` (``settings`` for sympy's printer).

    >>> from symgrad.symbolic.printing import latex_of
    >>> x, t1 = sympy.symbols("x t1")
    >>> latex_of(t1 ** 2, [(t1, sympy.sin(x))])
    '\\sin^{2}{\\left(x \\right)}'
    """
    return _LatexPrinter(definitions, **settings).doprint(exprs)


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
        them back (last first) into ``result`` gives the expanded formula. Besides the shared
        subexpressions, a deep one is cut into named parts (every few dozen levels).

        >>> x = t.tensor(0.5, requires_grad=True)
        >>> h = x.exp()
        >>> symgrad.symbolic.lower(h * (h + 1)).expr.cse()
        ([(t₁, exp(x))], t₁*(t₁ + 1))
        """
        found = self.__dict__.get("_cse")  # (text and latex of one formula share it)
        if found is None:
            found = self.__dict__["_cse"] = self._cse()
        return found

    def _cse(self) -> tuple[list[tuple[sympy.Symbol, Any]], Formula]:
        elements = self._elements()
        _, _, atoms = _nodes(elements)
        taken = [str(a) for a in atoms if isinstance(a, sympy.Symbol)]
        taken += [leaf_text(a) or "" for a in atoms if isinstance(a, sympy.Symbol)]
        base = fresh_base(taken)
        names = (sympy.Symbol(f"{base}{str(k).translate(_SUBSCRIPTS)}")
                 for k in itertools.count(1))
        definitions, reduced = dag_cse(elements, names, inline=_small,
                                       evaluate=not _deep(elements))
        return definitions, self._wrap(reduced)

    def evaluated(self) -> Formula:
        """The same formulas with sympy's automatic simplification applied (the expanded form).
        A formula too deep for it (sympy's evaluation asks questions that walk the whole
        expression, recursively) is returned as it is.

        >>> a = t.tensor(1.0, requires_grad=True)
        >>> symgrad.symbolic.lower((a + a) + a).expr.evaluated()
        3*a
        """
        elements = self._elements()
        if _deep(elements):
            return self
        return self._wrap(evaluate(elements))

    def _printable(self, elements: list[Any]) -> Any:
        return sympy.ImmutableDenseNDimArray(elements, self.shape) if self.shape else elements[0]

    def _expanded(self, limit: int | None) -> tuple[list[tuple[Any, Any]], Any] | int:
        """The expanded form, cut into parts where deep (printed back in place), or the size
        of its tree when that is above ``limit``."""
        key = ("_expanded", limit)
        found = self.__dict__.get(key)
        if found is None:
            found = self.__dict__[key] = self._expand(limit)
        return found

    def _expand(self, limit: int | None) -> tuple[list[tuple[Any, Any]], Any] | int:
        elements = self._elements()
        size = _tree_size(elements)
        if limit is not None and size > limit:
            return size
        names = (sympy.Dummy(f"p{k}") for k in itertools.count())
        definitions, reduced = dag_cse(elements, names, share=False,
                                       evaluate=not _deep(elements))
        return definitions, self._printable(reduced)

    def text(self, compact: bool = False, limit: int | None = PRINT_LIMIT) -> str:
        """The formula as text: expanded (sympy's ``str`` of the evaluated expression), or
        compact (``t₁ := …`` lines, then the result). Leaves show their names as written
        (in backquotes if not a plain word: ```x+y`_0``).

        An expanded form of more than ``limit`` nodes (a deep graph whose values are used
        twice doubles its size per layer) is printed compact, after a one-line note;
        ``limit=None`` prints it expanded whatever its size.

        >>> a = t.tensor(1.0, requires_grad=True)
        >>> h = a.sin()
        >>> print(symgrad.symbolic.grad((h * h).exp(), a)[0].text(compact=True))
        t₁ := sin(a)
        2*t₁*exp(t₁**2)*cos(a)
        """
        if not compact:
            expanded = self._expanded(limit)
            if not isinstance(expanded, int):
                return text_of(expanded[1], expanded[0])
            note = (f"# the expanded form has {expanded:,} nodes: shown compact "
                    "(text(limit=None) prints it expanded)\n")
            return note + self.text(compact=True)
        definitions, result = self.cse()
        lines = [f"{name} := {text_of(e)}" for name, e in definitions]
        lines.append(text_of(self._printable(result._elements())))
        return "\n".join(lines)

    def latex(self, compact: bool = False, limit: int | None = PRINT_LIMIT) -> str:
        """The formula as LaTeX: expanded (``sympy.latex`` of the evaluated expression), or
        compact (rows ``t_{1} &:= …`` of an ``aligned`` environment, then the result). Leaf
        names show as written (``\\text{}`` with LaTeX's special characters escaped, unless
        a plain name). Above ``limit`` nodes the expanded form is printed compact after a
        ``%`` comment line, as :meth:`text` does.

        >>> a = t.tensor(1.0, requires_grad=True)
        >>> print(symgrad.symbolic.lower((a * a).sin()).expr.latex())
        \\sin{\\left(a^{2} \\right)}
        """
        if not compact:
            expanded = self._expanded(limit)
            if not isinstance(expanded, int):
                return latex_of(expanded[1], expanded[0])
            note = (f"% the expanded form has {expanded:,} nodes: shown compact "
                    "(latex(limit=None) prints it expanded)\n")
            return note + self.latex(compact=True)
        definitions, result = self.cse()
        names = {name: f"{str(name).rstrip('₀₁₂₃₄₅₆₇₈₉')}_{{{k}}}"
                 for k, (name, _) in enumerate(definitions, 1)}
        body = latex_of(self._printable(result._elements()), symbol_names=names)
        if not definitions:
            return body
        rows = [f"{names[name]} &:= {latex_of(e, symbol_names=names)}"
                for name, e in definitions]
        rows.append(f"& {body}")
        return "\\begin{aligned} " + " \\\\ ".join(rows) + " \\end{aligned}"

    def _long(self) -> bool:
        return _tree_size(self._elements()) > _EXPANDED_LIMIT

    def _repr_latex_(self) -> str:
        """LaTeX for notebooks: the expanded form, or the compact one if that is long."""
        return f"$\\displaystyle {self.latex(compact=self._long())}$"

    def simplify(self, **kwargs: Any) -> Formula:
        """Each element through ``sympy.simplify`` (keywords passed on), kept only where that
        made it shorter: the result is never longer than the evaluated formula. An element too
        deep for sympy's recursive simplification is left as it is.

        >>> a = t.tensor(0.3, requires_grad=True)
        >>> f = symgrad.symbolic.lower(a.sin() ** 2 + a.cos() ** 2).expr
        >>> f.simplify()
        1
        """
        out = []
        for e in self._elements():
            if _tree_size([e]) > PRINT_LIMIT or depth([e]) > MAX_DEPTH:
                out.append(e)
                continue
            (e,) = evaluate([e])
            simple = sympy.simplify(e, **kwargs)
            out.append(simple if len(text_of(simple)) <= len(text_of(e)) else e)
        return self._wrap(out)

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


__all__ = ["Formula", "dag_cse", "depth", "evaluate", "formula", "fresh_base", "latex_of",
           "postorder", "text_of", "unevaluated"]
