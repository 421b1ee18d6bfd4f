"""Each node's derivatives from sympy at the values the node saw, evaluated vectorised.

A node's output elements are expressions of its inputs' elements (the op's forward run on
symbols). Elements whose expressions differ only in which input elements they read share one
*template*: sympy differentiates each template once per process (cached across checks), and its
partial derivatives are evaluated for all the elements at once -- in float64 with numpy (the
verification of each node's VJP rule) or to :data:`DIGITS` digits with mpmath (the reference
values of :func:`~symgrad.symbolic.check`). Only each op's forward is used: none of its VJP
rules and none of the engine's gradient helpers (seeds, broadcasting reductions), so agreement
with the engine is evidence.

A 2-d matmul is not expanded (64x784 @ 784x128 would be 6.4 million terms): its template is
one row times one column, differentiated by sympy like any other, and which input elements fill
the template's positions is computed from the output's index.

Everything here is picklable data (no Tensors, no graph nodes): :func:`vjp`, :func:`tangent`
and friends run unchanged in another process (``check(executor=...)``).
"""

from __future__ import annotations

import hashlib
import math
import pickle
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy

from symgrad.numeric.numpy_namespace import SYMPY_FUNCTIONS

DIGITS = 40  # working precision of the exact reference values
_CHUNK = 1 << 20  # positions gathered at once (memory bound of the vectorised evaluation)
# lambdify's namespace for numpy code: the module itself and lambdify's own numpy translations.
# (``modules="numpy"`` runs ``from numpy import *``, which imports numpy.testing, numpy.f2py
# and the other lazy submodules: over half a second of the first check.)
# numpy has no erf (gelu's template), loggamma ...: symgrad.numeric's, elementwise
NUMPY: list[Any] = [{"I": 1j, "Heaviside": np.heaviside, **SYMPY_FUNCTIONS}, np]


def canonical(m: int) -> list[sympy.Symbol]:
    """The symbols ``_c0 ... _c{m-1}`` that stand for a template's positions.

    >>> canonical(2)
    [_c0, _c1]
    """
    while len(_SYMBOLS) < m:
        _SYMBOLS.append(sympy.Symbol(f"_c{len(_SYMBOLS)}", real=True))
    return _SYMBOLS[:m]


_SYMBOLS: list[sympy.Symbol] = []


# --- templates --------------------------------------------------------------------------------


def partial_derivatives(expr: Any, symbols: Sequence[Any]) -> list[tuple[int, Any]]:
    """``[(position, d expr / d symbols[position])]`` for the ``symbols`` that ``expr`` holds.

    A sum (or a number times a sum) is split by symbol first, so that each derivative is taken
    of the few terms holding that symbol (a matmul element is a sum over a whole row).

    >>> a, b = sympy.symbols("a b")
    >>> partial_derivatives(3 * (a * b + sympy.sin(a)), [a, b])
    [(0, 3*b + 3*cos(a)), (1, 3*a)]
    """
    factor, body = sympy.Integer(1), expr
    if expr.is_Mul:
        coefficient, rest = expr.as_coeff_Mul()
        if rest.is_Add:
            factor, body = coefficient, rest
    where = {s: p for p, s in enumerate(symbols)}
    terms: dict[int, list[Any]] = defaultdict(list)
    if body.is_Add:
        for term in body.args:
            for s in term.free_symbols:
                if s in where:
                    terms[where[s]].append(term)
    else:
        for s in body.free_symbols:
            if s in where:
                terms[where[s]].append(body)
    result = []
    for p in sorted(terms):
        derivative = sympy.Add(*[diff_term(term, symbols[p]) for term in terms[p]])
        result.append((p, factor * derivative))
    return result


def diff_term(term: Any, u: Any) -> Any:
    """``sympy.diff(term, u)``, answered directly when ``term`` is ``u`` times factors free of
    ``u`` (the terms of a matmul), where sympy's general machinery costs a millisecond."""
    if term is u:
        return sympy.Integer(1)
    if term.is_Mul:
        others = [f for f in term.args if f is not u]
        if len(others) == len(term.args) - 1 and not any(u in f.free_symbols for f in others):
            return sympy.Mul(*others)
    return sympy.diff(term, u)


@dataclass(eq=False)
class Template:
    """One shape of output element: ``expr`` in :func:`canonical` symbols, the input that fills
    each position, and sympy's partial derivatives for the positions of differentiable inputs.
    """

    expr: Any
    inputs: tuple[int, ...]
    partials: list[tuple[int, Any]]
    switches: list[Any] = field(default_factory=list)  # zero where expr is not differentiable
    _numpy: Any = field(default=None, repr=False)
    _mpmath: Any = field(default=None, repr=False)
    _switch: Any = field(default=None, repr=False)
    _linear: Any = field(default=None, repr=False)

    active: tuple[bool, ...] = ()

    def __reduce__(self) -> tuple[Any, tuple]:
        # sent to a worker as bytes under their digest: unpickled (sympy rebuilding a long sum
        # term by term) only the first time a process meets the template; there it joins that
        # process's cache, so that its compiled functions are built once per process
        packed = self.__dict__.get("_packed")
        if packed is None:
            payload = pickle.dumps((self.expr, self.inputs, self.active, self.partials,
                                    self.switches), protocol=pickle.HIGHEST_PROTOCOL)
            packed = self.__dict__["_packed"] = (hashlib.sha256(payload).hexdigest(), payload)
        return _restore, packed

    @property
    def size(self) -> int:
        return len(self.inputs)

    def linear(self) -> list[tuple[int, int | None, Any]]:
        """Per partial: ``(position, q, value)`` -- the derivative is the value at position
        ``q`` (q set), the number ``value`` (q None), or needs evaluating (both None)."""
        if self._linear is not None:
            return self._linear
        symbols = {s: q for q, s in enumerate(canonical(self.size))}
        out = []
        for p, d in self.partials:
            if d in symbols:
                out.append((p, symbols[d], None))
            elif d.is_number:
                out.append((p, None, d))
            else:
                out.append((p, None, None))
        self._linear = out
        return out

    def position(self, p: int) -> tuple[int, int | None, Any]:
        """``(index in partials, q, value)`` of the partial for position ``p`` (see
        :meth:`linear`)."""
        found = self.__dict__.get("_positions")
        if found is None:
            found = self.__dict__["_positions"] = {pp: (n, q, c) for n, (pp, q, c)
                                                   in enumerate(self.linear())}
        return found[p]

    def numpy_function(self) -> Any:
        if self._numpy is None:
            self._numpy = sympy.lambdify(canonical(self.size), [d for _, d in self.partials],
                                         modules=NUMPY)
        return self._numpy

    def mpmath_function(self) -> Any:
        if self._mpmath is None:
            self._mpmath = sympy.lambdify(canonical(self.size), [d for _, d in self.partials],
                                          modules=mpmath, cse=True)
        return self._mpmath

    def switch_function(self) -> Any:
        if self._switch is None:
            self._switch = sympy.lambdify(canonical(self.size), self.switches, modules=NUMPY)
        return self._switch


_TEMPLATES: dict[Any, Template] = {}


def template(expr: Any, inputs: tuple[int, ...], active: tuple[bool, ...]) -> Template:
    """The :class:`Template` of ``expr`` (in canonical symbols), its partials derived by sympy
    once per process."""
    key = (expr, inputs, active)
    found = _TEMPLATES.get(key)
    if found is None:
        symbols = canonical(len(inputs))
        wanted = [s if active[i] else sympy.Dummy() for s, i in zip(symbols, inputs, strict=True)]
        partials = partial_derivatives(expr, wanted)
        found = _TEMPLATES[key] = Template(expr, inputs, partials,
                                           [s for s in switches(expr) if not s.is_number],
                                           active=active)
    return found


def switches(expr: Any) -> list[Any]:
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


def _restore(digest: str, payload: bytes) -> Template:
    """A pickled :class:`Template`: the one this process has already received or derived,
    else this one, cached."""
    found = _RECEIVED.get(digest)
    if found is None:
        expr, inputs, active, partials, found_switches = pickle.loads(payload)  # noqa: S301
        key = (expr, inputs, active)
        found = _TEMPLATES.get(key)
        if found is None:
            found = _TEMPLATES[key] = Template(expr, inputs, partials, found_switches,
                                               active=active)
        _RECEIVED[digest] = found
    return found


_RECEIVED: dict[str, Template] = {}


# --- which input elements fill each element's template ----------------------------------------


@dataclass(eq=False)
class Group:
    """Output ``elements`` (flat indices) sharing ``template``; ``flats[r, p]`` is the flat
    index, in input ``template.inputs[p]``, of the element at position ``p`` of row ``r``."""

    template: Template
    elements: np.ndarray
    flats: np.ndarray
    _users: dict[int, dict[int, list[tuple[int, int]]]] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.elements)

    def chunk(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        return self.elements[start:stop], self.flats[start:stop]

    def row(self, r: int) -> np.ndarray:
        return self.flats[r]

    def flat_at(self, r: int, q: int) -> int:
        return int(self.flats[r, q])

    def users(self, i: int, k: int) -> list[tuple[int, int]]:
        """``(row, position)`` of every use of element ``k`` of input ``i``."""
        if self._users is None:
            users: dict[int, dict[int, list[tuple[int, int]]]] = defaultdict(
                lambda: defaultdict(list))
            for p, inp in enumerate(self.template.inputs):
                for r, flat in enumerate(self.flats[:, p].tolist()):
                    users[inp][flat].append((r, p))
            self._users = users
        return self._users.get(i, {}).get(k, [])

    def reached(self, i: int, incoming: np.ndarray) -> np.ndarray:
        """The elements that read any of the ``incoming`` elements of input ``i``."""
        columns = [p for p, inp in enumerate(self.template.inputs) if inp == i]
        if not columns:
            return self.elements[:0]
        return self.elements[np.isin(self.flats[:, columns], incoming).any(axis=1)]

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_users": None}


@dataclass(eq=False)
class MatmulGroup:
    """The elements of ``a @ b`` (2-d by 2-d): each one row of ``a`` times one column of ``b``,
    positions ``0..k-1`` from ``a`` and ``k..2k-1`` from ``b``."""

    template: Template
    n: int
    k: int
    m: int

    def __len__(self) -> int:
        return self.n * self.m

    @property
    def elements(self) -> np.ndarray:
        return np.arange(self.n * self.m)

    def chunk(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        elements = np.arange(start, stop)
        return elements, self._flats(elements)

    def _flats(self, elements: np.ndarray) -> np.ndarray:
        i, j = np.divmod(elements, self.m)
        kk = np.arange(self.k)
        return np.concatenate([i[:, None] * self.k + kk, kk * self.m + j[:, None]], axis=1)

    def row(self, r: int) -> np.ndarray:
        return self._flats(np.array([r]))[0]

    def flat_at(self, r: int, q: int) -> int:
        i, j = divmod(r, self.m)
        return i * self.k + q if q < self.k else (q - self.k) * self.m + j

    def users(self, i: int, flat: int) -> list[tuple[int, int]]:
        if i == 0:
            row, kk = divmod(flat, self.k)
            return [(row * self.m + j, kk) for j in range(self.m)]
        kk, col = divmod(flat, self.m)
        return [(r * self.m + col, self.k + kk) for r in range(self.n)]

    def reached(self, i: int, incoming: np.ndarray) -> np.ndarray:
        """The elements that read any of the ``incoming`` elements of input ``i``: whole rows
        (``a``) or whole columns (``b``) of the product."""
        if i == 0:
            rows = np.unique(np.asarray(incoming) // self.k)
            return (rows[:, None] * self.m + np.arange(self.m)).reshape(-1)
        columns = np.unique(np.asarray(incoming) % self.m)
        return (np.arange(self.n)[:, None] * self.m + columns).reshape(-1)

    def bilinear(self) -> bool:
        """Whether sympy's partials of the template are those of a row times a column
        (d/da_p = b_p and d/db_p = a_p for every differentiable position): the adjoints over
        all elements are then the matrix products :meth:`adjoint` computes."""
        k = self.k
        linear = self.template.linear()
        return bool(linear) and all(q == (p + k if p < k else p - k) for p, q, _ in linear)

    def adjoint_at(self, i: int, wanted: np.ndarray, g: np.ndarray, take: Any) -> np.ndarray:
        """The ``wanted`` elements (flat) of :meth:`adjoint`, without the others; ``take``
        gives the other input's elements at an array of flat indices (only those read)."""
        g = g.reshape(self.n, self.m)
        if i == 0:
            rows, kk = np.divmod(wanted, self.k)
            return (g[rows] * take(kk[:, None] * self.m + np.arange(self.m))).sum(axis=1)
        kk, columns = np.divmod(wanted, self.m)
        return (g[:, columns] * take(np.arange(self.n)[:, None] * self.k + kk)).sum(axis=0)

    def adjoint(self, i: int, g: np.ndarray, other: np.ndarray) -> np.ndarray:
        """``sum_e g_e d out_e / d input_i`` over all elements, flat, for a :meth:`bilinear`
        template: ``g @ bᵀ`` (``i == 0``, ``other`` is b) or ``aᵀ @ g`` (``other`` is a). With
        object arrays of integers the sums are exact."""
        g = g.reshape(self.n, self.m)
        if i == 0:
            return (g @ other.reshape(self.k, self.m).T).reshape(-1)
        return (other.reshape(self.n, self.k).T @ g).reshape(-1)


@dataclass(eq=False)
class LocalNode:
    """One node of the graph as data: its inputs' values as the node saw them, which inputs
    carry a gradient (``parents[i]``: ``("node", index)``, ``("leaf", source)`` or None), and
    its output elements in :class:`Group` s."""

    name: str
    site: str | None
    values: list[np.ndarray | None]
    parents: list[tuple[str, int] | None]
    out_shape: tuple[int, ...]
    groups: list[Any]

    @property
    def out_size(self) -> int:
        return math.prod(self.out_shape)

    def input_size(self, i: int) -> int:
        return int(np.size(self.values[i]))


def structure(definition: np.ndarray, symbols: dict[Any, tuple[int, int]],
              active: Sequence[bool]) -> list[Group]:
    """Group the elements of ``definition`` (the forward on fresh ``symbols``, each naming its
    ``(input, flat index)``) by template."""
    rows: dict[Any, tuple[Template, list[int], list[list[int]]]] = {}
    for e, d in enumerate(np.asarray(definition, dtype=object).reshape(-1)):
        if not isinstance(d, sympy.Basic) or d.is_number:
            continue
        used = _in_order(d, symbols)
        if not used:
            continue
        positions = [symbols[s] for s in used]
        inputs = tuple(i for i, _ in positions)
        canon = canonical(len(used))
        expr = d.xreplace(dict(zip(used, canon, strict=True)))
        key = (expr, inputs)
        if key not in rows:
            rows[key] = (template(expr, inputs, tuple(active)), [], [])
        rows[key][1].append(e)
        rows[key][2].append([k for _, k in positions])
    return [Group(t, np.array(es, dtype=np.int64), np.array(fl, dtype=np.int64))
            for t, es, fl in rows.values()]


def _in_order(expr: Any, symbols: dict[Any, Any]) -> list[Any]:
    """The ``symbols`` in ``expr`` in order of first appearance (a preorder walk): elements that
    are the same expression up to renaming (each element of a softmax row) then share one
    template."""
    found: dict[Any, None] = {}
    stack = [expr]
    seen: set[Any] = set()
    while stack:
        node = stack.pop()
        if node.is_Symbol:
            if node in symbols:
                found.setdefault(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.extend(reversed(node.args))
    return list(found)


def elementwise_structure(expressions: dict[tuple, Any], keys: np.ndarray,
                          flats: np.ndarray, inputs: tuple[int, ...],
                          active: Sequence[bool]) -> list[Group]:
    """The groups of an elementwise op: ``expressions[key]`` is the op on canonical symbols
    (one per input of ``inputs``) for the elements whose non-symbolic operands (a mask, say)
    are ``key``; ``keys[e]`` indexes them and ``flats[e, p]`` is element ``e``'s position ``p``.
    """
    groups = []
    for key, expr in enumerate(expressions):
        if not isinstance(expr, sympy.Basic) or expr.is_number:
            continue
        rows = np.flatnonzero(keys == key)
        symbols = canonical(len(inputs))
        used = [p for p, c in enumerate(symbols) if c in expr.free_symbols]
        expr = expr.xreplace({symbols[p]: symbols[n] for n, p in enumerate(used)})
        t = template(expr, tuple(inputs[p] for p in used), tuple(active))
        groups.append(Group(t, rows.astype(np.int64), flats[rows][:, used]))
    return groups


def matmul_structure(n: int, k: int, m: int, active: Sequence[bool]) -> list[MatmulGroup]:
    """The one group of a 2-d ``(n, k) @ (k, m)`` matmul: its template differentiated by sympy
    like any other."""
    key = (k, tuple(active))
    found = _ROW_TIMES_COLUMN.get(key)
    if found is None:  # built once per process: a sum of k products costs sympy k terms' work
        a, b = canonical(2 * k)[:k], canonical(2 * k)[k:]
        expr = sympy.Add(*[x * y for x, y in zip(a, b, strict=True)])
        found = _ROW_TIMES_COLUMN[key] = template(expr, (0,) * k + (1,) * k, tuple(active))
    return [MatmulGroup(found, n, k, m)]


_ROW_TIMES_COLUMN: dict[tuple[int, tuple[bool, ...]], Template] = {}


# --- evaluation -------------------------------------------------------------------------------

def _mp_partials(t: Template, args: Sequence[Any]) -> list[Any]:
    """The template's partials at one element, to DIGITS digits (nan where undefined)."""
    with mpmath.workdps(DIGITS):
        try:
            return list(t.mpmath_function()(*args))
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            return [_mp_single(d, args) for _, d in t.partials]


def _mp_single(d: Any, args: Sequence[Any]) -> Any:
    try:
        value = d.xreplace(dict(zip(canonical(len(args)),
                                    (sympy.Float(a, DIGITS) for a in args), strict=False)))
        value = value.evalf(DIGITS)
        return mpmath.mpf(value) if value.is_real and value.is_finite else mpmath.mpf("nan")
    except (TypeError, ValueError):
        return mpmath.mpf("nan")


def vjp(node: LocalNode, g: np.ndarray) -> list[np.ndarray | None]:
    """``sum_j g_j d out_j / d input_i`` in float64 for each input with a parent (None for
    the others), from sympy's partials of the node's templates. ``g`` is in the output's shape.
    """
    values = [None if v is None else np.asarray(v, dtype=np.float64).reshape(-1)
              for v in node.values]
    g = np.asarray(g, dtype=np.float64).reshape(-1)
    out = [np.zeros(node.input_size(i)) if node.parents[i] is not None else None
           for i in range(len(node.values))]
    for group in node.groups:
        t = group.template
        wanted = [(n, p, q, c) for n, (p, q, c) in enumerate(t.linear())
                  if out[t.inputs[p]] is not None]
        if not wanted:
            continue
        if isinstance(group, MatmulGroup) and group.bilinear():
            with np.errstate(all="ignore"):
                for i in {t.inputs[p] for _, p, _, _ in wanted}:
                    out[i] += group.adjoint(i, g, values[1 - i])
            continue
        needs_function = any(q is None and c is None for _, _, q, c in wanted)
        size = max(1, _CHUNK // max(1, t.size))
        for start in range(0, len(group), size):
            elements, flats = group.chunk(start, min(len(group), start + size))
            gathered = _gather(t, flats, values)
            evaluated = None
            if needs_function:
                with np.errstate(all="ignore"):
                    evaluated = t.numpy_function()(*gathered.T)
            gj = g[elements]
            for i in {t.inputs[p] for _, p, _, _ in wanted}:
                mine = [w for w in wanted if t.inputs[w[1]] == i]
                products = np.empty((len(elements), len(mine)))
                for column, (n, _, q, c) in enumerate(mine):
                    d = gathered[:, q] if q is not None else float(c) if c is not None \
                        else np.asarray(evaluated[n], dtype=np.float64)
                    with np.errstate(all="ignore"):
                        products[:, column] = gj * d
                where = flats[:, [p for _, p, _, _ in mine]]
                out[i] += np.bincount(where.reshape(-1), weights=products.reshape(-1),
                                      minlength=out[i].size)
    return [None if o is None else o.reshape(np.shape(v)) for o, v in zip(out, node.values,
                                                                          strict=True)]


def _gather(t: Template, flats: np.ndarray, values: list[np.ndarray | None]) -> np.ndarray:
    """The values filling the template's positions for each row of ``flats``."""
    gathered = np.empty(flats.shape)
    for i in set(t.inputs):
        columns = [p for p, inp in enumerate(t.inputs) if inp == i]
        gathered[:, columns] = values[i][flats[:, columns]]
    return gathered


def kinks(node: LocalNode) -> list[tuple[Template, int, np.ndarray]]:
    """``(template, element, row values)`` of the output elements at a non-differentiable point
    (a switch of their template is exactly zero at the node's inputs)."""
    found = []
    for group in node.groups:
        t = group.template
        if not t.switches:
            continue
        values = [None if v is None else np.asarray(v, dtype=np.float64).reshape(-1)
                  for v in node.values]
        elements, flats = group.chunk(0, len(group))
        gathered = _gather(t, flats, values)
        with np.errstate(all="ignore"):
            switched = t.switch_function()(*gathered.T)
        at = np.zeros(len(elements), dtype=bool)
        for s in switched:
            at |= np.broadcast_to(np.asarray(s) == 0, at.shape)
        found += [(t, int(elements[r]), gathered[r]) for r in np.flatnonzero(at)]
    return found


SHIFT = 192  # exact values are integers in units of 2**-SHIFT (about 58 decimal places)


def fixed(value: Any) -> int | float:
    """``value`` (a float, an mpmath or sympy number) as an integer count of 2**-SHIFT
    (truncated beyond that); nan and infinities stay floats (an undefined derivative).

    >>> fixed(0.5) == 2 ** (SHIFT - 1)
    True
    """
    if isinstance(value, float | np.floating):
        value = float(value)
        if not math.isfinite(value):
            return value
        return int(value * _SCALE) if abs(value) < 1e250 else int(mpmath.ldexp(value, SHIFT))
    if isinstance(value, sympy.Basic):
        if value.is_Rational:
            return int(value.p * 2 ** SHIFT // value.q)
        value = mpmath.mpf(sympy.Float(value, DIGITS)) if value.is_finite else float(value)
        if isinstance(value, float):
            return value
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            return float(value)
        return int(mpmath.ldexp(value, SHIFT))
    return fixed(float(value))


_SCALE = float(2 ** SHIFT)


def fixed_list(values: Any) -> list[int | float]:
    """:func:`fixed` of every element of a float array, flat (vectorised: a power-of-two
    scaling is exact in floats)."""
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    if array.size and np.all(np.abs(array) < 1e250):
        return [int(v) for v in (array * _SCALE).tolist()]
    return [fixed(v) for v in array.tolist()]


def _mul(a: int | float, b: int | float) -> int | float:
    if a.__class__ is int and b.__class__ is int:
        return (a * b) >> SHIFT
    if a == 0 and b == 0:
        return 0
    return float(a) / _SCALE * float(b) if a.__class__ is int else \
        float(a) * float(b) / (_SCALE if b.__class__ is int else 1.0)


def exact_value(v: int | float) -> Any:
    """A value from :class:`Reverse` as a sympy number (an exact rational, or nan/oo)."""
    if isinstance(v, int):
        return sympy.Rational(v, 2 ** SHIFT)
    if math.isnan(v):
        return sympy.nan
    return sympy.oo if v > 0 else -sympy.oo


def partial_rows(t: Template, arguments: np.ndarray) -> list[list[int | float]]:
    """The template's partials at each row of ``arguments``, to :data:`DIGITS` digits, as
    :func:`fixed` values (the same numbers in any process)."""
    with mpmath.workdps(DIGITS):
        return [[fixed(v) for v in _mp_partials(t, [mpmath.mpf(a) for a in row])]
                for row in np.asarray(arguments, dtype=np.float64).tolist()]


class Reverse:
    """sympy's derivative of ``seed``ᵀ output for chosen leaf elements, exact: a reverse sweep
    that pulls each adjoint only for the elements the chosen ones reach (so a sampled check
    costs what its elements' cones cost, not the graph), in integers of 2**-SHIFT: each adjoint
    element is the exact sum of its products, truncated once at 2**-SHIFT, so the result does
    not depend on how the elements are split into tasks nor on pushing or pulling.

    Transcendental partials come from the templates' sympy derivatives evaluated by mpmath to
    :data:`DIGITS` digits."""

    def __init__(self, nodes: list[LocalNode], seed: np.ndarray, root: int) -> None:
        self.nodes = nodes
        self.seed = np.asarray(seed, dtype=np.float64).reshape(-1)
        self.root = root
        self.consumers: dict[tuple[str, int], list[tuple[int, int]]] = defaultdict(list)
        for n, node in enumerate(nodes):
            for i, parent in enumerate(node.parents):
                if parent is not None:
                    self.consumers[parent].append((n, i))
        self._fixed: dict[tuple[int, int], list[Any]] = {}
        self._rows: dict[tuple[int, int, int], list[Any]] = {}
        self._arrays: dict[tuple[int, int], np.ndarray] = {}

    def _input(self, n: int, i: int) -> list[Any]:
        found = self._fixed.get((n, i))
        if found is None:
            found = self._fixed[(n, i)] = fixed_list(self.nodes[n].values[i])
        return found

    def _fixed_at(self, n: int, i: int, flats: np.ndarray) -> np.ndarray:
        """Input ``i`` of node ``n`` at the flat indices ``flats`` (any shape), as an object
        array of :func:`fixed` values, converting only those unless all are at hand."""
        found = self._arrays.get((n, i))
        if found is not None:
            return found[flats]
        values = np.asarray(self.nodes[n].values[i], dtype=np.float64).reshape(-1)[flats]
        out = np.empty(values.shape, dtype=object)
        out.reshape(-1)[:] = fixed_list(values)
        return out

    def _input_array(self, n: int, i: int) -> np.ndarray:
        found = self._arrays.get((n, i))
        if found is None:
            values = self._input(n, i)
            found = self._arrays[(n, i)] = np.empty(len(values), dtype=object)
            found[:] = values
        return found

    def _partial(self, n: int, gi: int, r: int, p: int) -> Any:
        group = self.nodes[n].groups[gi]
        t = group.template
        index, q, c = t.position(p)
        if q is not None:
            return self._input(n, t.inputs[q])[group.flat_at(r, q)]
        if c is not None:
            return fixed(c)
        return self._row(n, gi, r)[index]

    def _row(self, n: int, gi: int, r: int) -> list[Any]:
        """Row ``r`` of group ``gi`` of node ``n``: its template's partials there (fixed)."""
        key = (n, gi, r)
        found = self._rows.get(key)
        if found is None:
            group = self.nodes[n].groups[gi]
            found = self._rows[key] = partial_rows(group.template,
                                                   self.row_arguments(n, gi, [r]))[0]
        return found

    def _rows_of(self, n: int, gi: int, rows: list[int]) -> list[list[Any]]:
        """:meth:`_row` of each of ``rows``, the missing ones evaluated together."""
        missing = [r for r in rows if (n, gi, r) not in self._rows]
        if missing:
            t = self.nodes[n].groups[gi].template
            for r, found in zip(missing, partial_rows(t, self.row_arguments(n, gi, missing)),
                                strict=True):
                self._rows[(n, gi, r)] = found
        return [self._rows[(n, gi, r)] for r in rows]

    def row_arguments(self, n: int, gi: int, rows: Sequence[int]) -> np.ndarray:
        """The input values filling the template's positions at ``rows`` of group ``gi`` of
        node ``n`` (one row of floats per element)."""
        node = self.nodes[n]
        group = node.groups[gi]
        t = group.template
        flats = group.flats[rows] if isinstance(group, Group) else \
            np.array([group.row(r) for r in rows], dtype=np.int64).reshape(len(rows), t.size)
        values = [None if v is None else np.asarray(v, dtype=np.float64).reshape(-1)
                  for v in node.values]
        return _gather(t, flats, values)

    def _element(self, group: Any, r: int) -> int:
        return int(group.elements[r]) if isinstance(group, Group) else r

    def _cones(self, wanted: dict[int, list[int]]) -> dict[tuple[str, int], set[int]]:
        """The elements of each node that the wanted leaf elements reach."""
        needed: dict[tuple[str, int], set[int]] = {("leaf", s): set(ks)
                                                   for s, ks in wanted.items()}
        for n, node in enumerate(self.nodes):
            reached: set[int] = set()
            for i, parent in enumerate(node.parents):
                incoming = needed.get(parent) if parent is not None else None
                if not incoming:
                    continue
                if len(incoming) == node.input_size(i):  # every element: every output
                    reached.update(e for g in node.groups for e in g.elements.tolist())
                    continue
                flats = np.fromiter(incoming, dtype=np.int64, count=len(incoming))
                for group in node.groups:
                    if i in group.template.inputs:
                        reached.update(group.reached(i, flats).tolist())
            if reached:
                needed[("node", n)] = reached
        return needed

    def _adjoint(self, n: int, i: int, targets: list[int], out: dict[int, Any]
                 ) -> list[Any] | None:
        """The ``targets`` elements of input ``i``'s adjoint from node ``n``'s output adjoints,
        vectorised (object arrays of integers: the same exact sums as :meth:`_pull`); None,
        having changed nothing, where an undefined value (a float) is met: the element by
        element pull handles those."""
        node = self.nodes[n]
        a = np.zeros(node.out_size, dtype=object)
        for e, v in out.items():
            a[e] = v
        wanted = np.asarray(targets, dtype=np.int64)
        every = len(targets) == node.input_size(i)
        total = np.zeros(node.input_size(i), dtype=object)
        try:
            for gi, group in enumerate(node.groups):
                t = group.template
                if i not in t.inputs:
                    continue
                if isinstance(group, MatmulGroup):
                    if not group.bilinear():
                        return None
                    if every:
                        total += group.adjoint(i, a, self._input_array(n, 1 - i))
                    else:
                        np.add.at(total, wanted, group.adjoint_at(
                            i, wanted, a, lambda flats: self._fixed_at(n, 1 - i, flats)))
                    continue
                for index, (p, q, c) in enumerate(t.linear()):
                    if t.inputs[p] != i:
                        continue
                    rows = np.arange(len(group)) if every else \
                        np.flatnonzero(np.isin(group.flats[:, p], wanted))
                    adjoints = a[group.elements[rows]]
                    live = np.not_equal(adjoints, 0).astype(bool)
                    rows, adjoints = rows[live], adjoints[live]
                    if q is not None:
                        d: Any = self._fixed_at(n, t.inputs[q], group.flats[rows, q])
                    elif c is not None:
                        d = fixed(c)
                    else:
                        d = np.empty(len(rows), dtype=object)
                        d[:] = [found[index] for found in self._rows_of(n, gi, rows.tolist())]
                    np.add.at(total, group.flats[rows, p], adjoints * d)
            return [v >> SHIFT for v in total[wanted].tolist()]
        except (TypeError, OverflowError):  # a nan or an infinity among the values
            return None

    def _pull(self, n: int, i: int, k: int, out: dict[int, Any]) -> int | float:
        """Element ``k`` of input ``i``'s adjoint from node ``n``'s output adjoints: the exact
        sum of the products, truncated once (as :meth:`_adjoint`, so the two agree)."""
        total: Any = 0
        for gi, group in enumerate(self.nodes[n].groups):
            if i not in group.template.inputs:
                continue
            for r, p in group.users(i, k):
                a = out.get(self._element(group, r))
                if a is None or (a == 0 and a.__class__ is int):
                    continue
                d = self._partial(n, gi, r, p)
                if a.__class__ is int and d.__class__ is int and total.__class__ is int:
                    total += a * d
                else:  # an undefined value: the sum is nan or infinite, whatever else
                    total = (0.0 if total.__class__ is int else total) + _mul(a, d)
        return total >> SHIFT if total.__class__ is int else total

    def row_plan(self, wanted: dict[int, list[int]]) -> list[tuple[int, int, list[int]]]:
        """``(node, group, rows)`` whose transcendental partials the sweep for ``wanted`` may
        read: the rows of the elements the wanted leaf elements reach (evaluate them anywhere
        with :func:`partial_rows` and :meth:`install` them)."""
        needed = self._cones(wanted)
        plan = []
        for n, node in enumerate(self.nodes):
            cone = needed.get(("node", n))
            if not cone:
                continue
            elements = np.fromiter(cone, dtype=np.int64, count=len(cone))
            for gi, group in enumerate(node.groups):
                if isinstance(group, Group) and any(q is None and c is None
                                                    for _, q, c in group.template.linear()):
                    rows = np.flatnonzero(np.isin(group.elements, elements)).tolist()
                    if rows:
                        plan.append((n, gi, rows))
        return plan

    def install(self, n: int, gi: int, rows: list[int], values: list[list[Any]]) -> None:
        """Rows of :meth:`row_plan` evaluated elsewhere (:func:`partial_rows`)."""
        self._rows.update(((n, gi, r), v) for r, v in zip(rows, values, strict=True))

    def gradients(self, wanted: dict[int, list[int]]) -> dict[tuple[int, int], Any]:
        """``{(leaf, flat index): value}`` for the ``wanted`` elements of each leaf."""
        with mpmath.workdps(DIGITS):
            needed = self._cones(wanted)
            root = self.root
            adjoint: dict[tuple[str, int], dict[int, Any]] = {
                ("node", root): {e: fixed(self.seed[e]) for e in needed.get(("node", root), ())}}
            for n in range(len(self.nodes) - 1, -1, -1):
                out = adjoint.pop(("node", n), None)
                if not out:
                    continue
                node = self.nodes[n]
                for i, parent in enumerate(node.parents):
                    targets = needed.get(parent) if parent is not None else None
                    if not targets:
                        continue
                    into = adjoint.setdefault(parent, {})
                    ks = sorted(targets)
                    values = self._adjoint(n, i, ks, out)
                    if values is None:
                        values = [self._pull(n, i, k, out) for k in ks]
                    for k, v in zip(ks, values, strict=True):
                        into[k] = into.get(k, 0) + v
            return {(s, k): adjoint.get(("leaf", s), {}).get(k, 0)
                    for s, ks in wanted.items() for k in ks}


__all__ = ["DIGITS", "Group", "LocalNode", "MatmulGroup", "Reverse", "Template", "canonical",
           "elementwise_structure", "exact_value", "fixed", "kinks", "matmul_structure",
           "partial_derivatives", "structure", "switches", "template", "vjp"]
