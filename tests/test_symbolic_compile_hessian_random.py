"""Random programs through the symbolic tools: ``compile``, ``check_hessian``,
``Formula.cse`` and the mask -> ``Piecewise`` lowering, each against a reference that shares no
code with it: the eager forward and ``autograd.grad`` at the recorded and at fresh points,
central finite differences of the eager gradient, and sympy's own ``lambdify`` of the formulas.

A program starts from two float64 leaves of broadcast-compatible shapes (up to 3x3) and applies
a few ops: arithmetic with tensors, Python numbers and a constant tensor, pointwise functions,
reductions, matmul, softmax/logsumexp, kinked ops (relu, abs, clamp, maximum) and ``where`` /
``masked_fill`` on masks compared from graph values and combined with ``& | ~``. Leaves are
drawn away from 0; points where a kinked op or a mask is within ``_MARGIN`` of its switch are
left out (their derivatives are conventions, not something finite differences can confirm).
hypothesis runs derandomized, so CI sees the same programs every time.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import symgrad as t
from symgrad import symbolic

_MARGIN = 1e-3  # distance from every kink and mask switch at the points that are checked
_FRESH = 3  # fresh points per program
_EXAMPLES = 2  # programs per op and property (each holds that op)


def _fits(x: t.Tensor, y: t.Tensor) -> t.Tensor:
    """``y`` if it broadcasts with ``x``, else its sum (a 0-d tensor broadcasts with all)."""
    try:
        np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except ValueError:
        return y.sum()
    return y


def _gap(margins: list[float], *pairs: tuple[t.Tensor | float, t.Tensor | float]) -> None:
    """Record how far apart each compared pair is (its smallest element-wise distance)."""
    for x, y in pairs:
        if x is y:  # a value compared with itself: the mask is constant, not a switch
            continue
        xv = x.detach().numpy() if isinstance(x, t.Tensor) else x
        yv = y.detach().numpy() if isinstance(y, t.Tensor) else y
        margins.append(float(np.min(np.abs(np.subtract(xv, yv)))))


def _unary(name: str, x: t.Tensor, margins: list[float]) -> t.Tensor:
    if name == "sin":
        return x.sin()
    if name == "exp":
        return (x * 0.3).exp()
    if name == "log":
        return (x * x + 0.5).log()
    if name == "tanh":
        return x.tanh()
    if name == "sigmoid":
        return x.sigmoid()
    if name == "relu":
        _gap(margins, (x, 0.0))
        return x.relu()
    if name == "abs":
        _gap(margins, (x, 0.0))
        return x.abs()
    if name == "cube":
        return x ** 3
    if name == "rpow":
        return 2.0 ** x
    if name == "clamp":
        _gap(margins, (x, -0.5), (x, 0.6))
        return x.clamp(-0.5, 0.6)
    if name == "sum_dim":
        return x.sum(-1) if x.ndim else x * 2
    if name == "sum_keepdim":
        return x.sum(0, keepdim=True) if x.ndim else x + 1
    if name == "mean":
        return x.mean()
    if name == "softmax":
        return x.softmax(-1) if x.ndim else x.exp()
    if name == "logsumexp":
        return x.logsumexp(-1) if x.ndim else x.exp()
    if name == "masked_fill":
        _gap(margins, (x, -0.2))
        return x.masked_fill(x < -0.2, 0.7)
    raise AssertionError(name)


def _matmul(x: t.Tensor, y: t.Tensor, constant: t.Tensor) -> t.Tensor:
    """``x @ y`` where the shapes allow it, else ``x`` times a block of the constant."""
    if x.ndim == 0:
        return x * constant.sum()
    n = x.shape[-1]
    if y.ndim == 1 and y.shape[0] == n:
        return x @ y
    if y.ndim == 2 and y.shape[-1] == n:
        return x @ y.mT
    return x @ constant[:n, :2]


def _binary(name: str, x: t.Tensor, y: t.Tensor, constant: t.Tensor,
            margins: list[float]) -> t.Tensor:
    if name == "matmul":
        return _matmul(x, y, constant)
    y = _fits(x, y)
    if name == "add":
        return x + y
    if name == "sub":
        return x - y
    if name == "mul":
        return x * y
    if name == "div":
        return x / (y * y + 1)
    if name == "pow":
        return (x * x + 0.5) ** (y * 0.5)
    if name == "maximum":
        _gap(margins, (x, y))
        return t.maximum(x, y)
    if name == "where":
        _gap(margins, (x, y))
        return t.where(x > y, x.sin(), y * 2)
    if name == "where_and":
        _gap(margins, (x, 0.1), (y, 0.3))
        return t.where((x > 0.1) & (y < 0.3), x * y, x - 1.0)
    if name == "where_or_not":
        _gap(margins, (x, 0.3), (y, -0.4))
        return t.where(~(x > 0.3) | (y <= -0.4), -1.0, x + y)
    raise AssertionError(name)


UNARY = ["sin", "exp", "log", "tanh", "sigmoid", "relu", "abs", "cube", "rpow", "clamp",
         "sum_dim", "sum_keepdim", "mean", "softmax", "logsumexp", "masked_fill"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "matmul", "where", "where_and",
          "where_or_not"]
SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 2)), ((3, 2), (2,)),
          ((2, 2), (2, 2)), ((1, 3), ())]


OPS = [*UNARY, *BINARY, "scalar_affine", "scalar_over", "constant"]


NUMBERS = [-1.5, -0.4, 0.3, 0.75, 2.0]


@st.composite
def programs(draw, focus: str):
    """(leaf shapes, steps, seed); a step is (op, which value it takes, a Python number), and
    one step is ``focus``. Each test runs once per op with a few examples; derandomized
    hypothesis draws the same choices for every op, so the choices are mapped through a
    permutation seeded by the op (otherwise every op would meet the same program)."""
    offset = OPS.index(focus)
    order = np.random.default_rng(offset).permutation(len(OPS))
    shapes = SHAPES[(draw(st.integers(0, len(SHAPES) - 1)) + offset) % len(SHAPES)]
    step = st.tuples(st.integers(0, len(OPS) - 1), st.integers(0, 5), st.sampled_from(NUMBERS))
    steps = [(OPS[order[op]], (pick + offset) % 6, number)
             for op, pick, number in draw(st.lists(step, max_size=4))]
    where = draw(st.integers(0, len(steps)))
    pick, number = draw(st.integers(0, 5)), draw(st.sampled_from(NUMBERS))
    steps.insert(where, (focus, (pick + offset) % 6, number))
    seed = draw(st.integers(0, 2**16)) + 7919 * offset
    return shapes, steps, seed


def _constant_like(constant: t.Tensor, x: t.Tensor) -> t.Tensor:
    return constant[(0,) * (2 - x.ndim) + tuple(slice(0, n) for n in x.shape)]


def _run(steps, a: t.Tensor, b: t.Tensor, constant: t.Tensor) -> tuple[t.Tensor, float]:
    """The program's output (shape of its last value) and its smallest kink margin."""
    values, margins = [a, b], []
    for op, pick, number in steps:
        x = values[pick % len(values)]
        if op in UNARY:
            values.append(_unary(op, x, margins))
        elif op in BINARY:
            y = values[(pick + 1) % len(values)]
            values.append(_binary(op, x, y, constant, margins))
        elif op == "scalar_affine":
            values.append(number - x * number)
        elif op == "scalar_over":
            values.append(number / (x * x + 1))
        else:
            values.append(x * _constant_like(constant, x) + number)
    y = values[-1] * 1.5 + a.sum() * 0.5  # the output always depends on a
    return y, min(margins, default=np.inf)


def _point(rng: np.random.Generator, shapes) -> list[np.ndarray]:
    """Leaf values away from 0: magnitudes in [0.2, 1.5], random signs."""
    return [np.asarray(rng.uniform(0.2, 1.5, s) * rng.choice([-1.0, 1.0], s))
            for s in shapes]


class _Case:
    """A program recorded at a random point, with what the properties need."""

    def __init__(self, program) -> None:
        shapes, self.steps, seed = program
        self.rng = np.random.default_rng(seed)
        self.constant = t.tensor(self.rng.uniform(-1, 1, (3, 3)), dtype=t.float64)
        self.values = _point(self.rng, shapes)
        self.a, self.b = (t.tensor(v, dtype=t.float64, requires_grad=True)
                          for v in self.values)
        self.y, margin = _run(self.steps, self.a, self.b, self.constant)
        assume(margin > _MARGIN)
        self.out = self.y.sum()
        self.lowered = symbolic.lower(self.y)
        # the inputs the gradient flows to (a leaf seen only in a mask gets none)
        self.used = [k for k, x in enumerate((self.a, self.b))
                     if any(s.tensor is x and s.requires_grad for s in self.lowered.sources)]
        self.v = t.tensor(self.rng.standard_normal(tuple(self.y.shape)), dtype=t.float64)

    def eager(self, values, gradient=None):
        """Output and ``autograd.grad`` w.r.t. the used leaves at ``values``, and the margin."""
        leaves = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
        y, margin = _run(self.steps, *leaves, self.constant)
        out = y.sum() if gradient is None else y
        grads = t.autograd.grad(out, [leaves[k] for k in self.used], grad_outputs=gradient,
                                allow_unused=True)
        grads = [np.zeros(values[k].shape) if g is None else g.numpy()
                 for k, g in zip(self.used, grads, strict=True)]
        return y.detach().numpy(), out.detach().numpy(), grads, margin

    def fresh(self, count: int = _FRESH, every_leaf: bool = False) -> list[list[np.ndarray]]:
        """Points away from every kink; unless ``every_leaf``, a leaf the gradient does not
        reach (seen only in a mask) keeps its value: the compiled function reads it as a
        constant."""
        points = []
        while len(points) < count:
            values = _point(self.rng, [v.shape for v in self.values])
            values = [v if every_leaf or k in self.used else self.values[k]
                      for k, v in enumerate(values)]
            with t.no_grad():
                leaves = [t.tensor(v, dtype=t.float64) for v in values]
                _, margin = _run(self.steps, *leaves, self.constant)
            if margin > 1e-6:
                points.append(values)
        return points


_SETTINGS = dict(derandomize=True, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _close(actual, expected, rtol: float = 1e-9, atol: float = 1e-10) -> None:
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("focus", OPS)
@settings(max_examples=_EXAMPLES, **_SETTINGS)
@given(st.data())
def test_compile_matches_eager_forward_and_autograd_at_recorded_and_fresh_points(focus, data):
    case = _Case(data.draw(programs(focus), label='program'))
    inputs = [(case.a, case.b)[k] for k in case.used]
    f = symbolic.compile(case.out, inputs)
    assert f.output_shape == () and f.shapes == tuple(tuple(x.shape) for x in inputs)

    points = [case.values, *case.fresh()]
    for values in points:
        _, out, grads, _ = case.eager(values)
        value, compiled = f(*[values[k] for k in case.used])
        assert value.shape == () and len(compiled) == len(grads)
        _close(value, out)
        for g, e in zip(compiled, grads, strict=True):
            assert g.shape == e.shape
            _close(g, e)

    # several points in one call: the same as one call per point
    stacked = [np.stack([p[k] for p in points]) for k in case.used]
    value, grads = f(*stacked)
    assert value.shape == (len(points),)
    for i, values in enumerate(points):
        one, one_grads = f(*[values[k] for k in case.used])
        _close(value[i], one, rtol=1e-12, atol=1e-14)
        for g, e in zip(grads, one_grads, strict=True):
            _close(g[i], e, rtol=1e-12, atol=1e-14)
    if len(case.used) == 2:  # batch dimensions broadcast: a grid (i, j) of a_i and b_j
        a_batch = stacked[0][:, None]
        b_batch = stacked[1][None]
        value, grads = f(a_batch, b_batch)
        assert value.shape == (len(points), len(points))
        for i, j in np.ndindex(value.shape):
            one, one_grads = f(points[i][0], points[j][1])
            _close(value[i, j], one, rtol=1e-12, atol=1e-14)
            for g, e in zip(grads, one_grads, strict=True):
                _close(g[i, j], e, rtol=1e-12, atol=1e-14)

    # a vector output with an explicit gradient: vᵀJ, v baked in
    if case.y.ndim:
        f = symbolic.compile(case.y, inputs, gradient=case.v)
        assert f.output_shape == tuple(case.y.shape)
        for values in points[:2]:
            y, _, grads, _ = case.eager(values, gradient=case.v)
            value, compiled = f(*[values[k] for k in case.used])
            _close(value, y)
            for g, e in zip(compiled, grads, strict=True):
                _close(g, e)


def test_batch_dimensions_broadcast_through_combined_masks():
    # a condition joining a batched input and an unbatched one (or two batches that only
    # broadcast): the generated code must broadcast them, not stack them
    x = t.tensor([0.5, -0.7], dtype=t.float64, requires_grad=True)
    s = t.tensor(0.2, dtype=t.float64, requires_grad=True)
    f = symbolic.compile(t.where((x > 0.1) & (s < 0.3) | (x < -0.5), x * s, x).sum(), [x, s])
    xs = np.array([[0.5, -0.7], [0.2, 0.4], [-0.6, 0.05]])
    ss = np.array([0.2, 0.5])
    value, (gx, gs) = f(xs[:, None], ss[None])
    assert value.shape == gs.shape == (3, 2) and gx.shape == (3, 2, 2)
    value_x, (gx_x, gs_x) = f(xs, 0.2)
    for i, j in np.ndindex(3, 2):
        mask = ((xs[i] > 0.1) & (ss[j] < 0.3)) | (xs[i] < -0.5)
        _close(value[i, j], np.sum(np.where(mask, xs[i] * ss[j], xs[i])))
        _close(gx[i, j], np.where(mask, ss[j], 1.0))
        _close(gs[i, j], np.sum(np.where(mask, xs[i], 0.0)))
        if j == 0:
            _close(value_x[i], value[i, j])
            _close(gx_x[i], gx[i, j])
            _close(gs_x[i], gs[i, j])


def test_compile_where_of_nested_wheres():
    # sympy writes a condition on a where as an ITE; with more than 8 relations under it the
    # numpy printer used to emit a float select as a condition, which numpy rejects
    x0, y0 = np.array([0.5, -0.7]), np.array([0.2, 0.9])
    x = t.tensor(x0, dtype=t.float64, requires_grad=True)
    y = t.tensor(y0, dtype=t.float64, requires_grad=True)
    u = x
    for k in range(3):
        u = t.where((u > 0.1 * k) & (y < 0.3 + 0.1 * k), u * y, u - 1.0)
    out = t.where(u < y, x.sin(), y * 2).sum()
    f = symbolic.compile(out, [x, y])
    for xv, yv in [(x0, y0), (np.array([0.4, 0.3]), np.array([0.25, -0.5]))]:
        value, grads = f(xv, yv)
        u = xv
        for k in range(3):
            mask = (u > 0.1 * k) & (yv < 0.3 + 0.1 * k)
            u = np.where(mask, u * yv, u - 1.0)
        last = u < yv  # the branches' derivatives: cos(x) or 2, the masks have none
        _close(value, np.sum(np.where(last, np.sin(xv), 2 * yv)))
        _close(grads[0], np.where(last, np.cos(xv), 0.0))
        _close(grads[1], np.where(last, 0.0, 2.0))


def _fd_hessian(case: _Case, gradient, h: float = 1e-5) -> np.ndarray:
    """Central differences of the eager gradient over the used leaves' elements."""
    sizes = [case.values[k].size for k in case.used]
    offsets = np.cumsum([0, *sizes])
    hessian = np.zeros((offsets[-1], offsets[-1]))
    for col, k in enumerate(case.used):
        for i in range(case.values[k].size):
            sides = []
            for sign in (1, -1):
                values = [v.copy() for v in case.values]
                values[k].flat[i] += sign * h
                *_, grads, margin = case.eager(values, gradient)
                assert margin > 0.1 * _MARGIN  # the step crossed no kink
                sides.append(np.concatenate([g.reshape(-1) for g in grads]))
            hessian[:, offsets[col] + i] = (sides[0] - sides[1]) / (2 * h)
    return hessian


@pytest.mark.parametrize("focus", OPS)
@settings(max_examples=_EXAMPLES, **_SETTINGS)
@given(st.data())
def test_check_hessian_passes_and_its_hessian_matches_finite_differences(focus, data):
    case = _Case(data.draw(programs(focus), label='program'))
    inputs = [(case.a, case.b)[k] for k in case.used]
    n = sum(x.numel() for x in inputs)
    # the scalar output, and the vector one with an explicit gradient (Hessian of <v, y>)
    for target, gradient in [(case.out, None)] + [(case.y, case.v)] * (case.y.ndim > 0):
        report = symbolic.check_hessian(target, inputs, gradient=gradient)
        assert report.numeric.shape == (n, n) and not report.kinks
        assert sum(b.checked for b in report.blocks) == n * n
        fd = _fd_hessian(case, gradient)
        scale = max(1.0, float(np.abs(fd).max()))
        np.testing.assert_allclose(report.numeric, fd, rtol=1e-5, atol=1e-6 * scale)
        np.testing.assert_allclose(report.symbolic, fd, rtol=1e-5, atol=1e-6 * scale)
        assert report.symmetric


def _leaf_symbols(case: _Case) -> list[tuple[sympy.Symbol, int, int]]:
    """Every leaf symbol of the lowered output as (symbol, leaf: 0 = a, 1 = b, flat index)."""
    found = []
    for s in case.lowered.sources:
        for k, x in enumerate((case.a, case.b)):
            if s.tensor is x:
                found.extend((u, k, i) for i, u in enumerate(s.symbols.reshape(-1)))
    return found


def _without_ite(expr):
    """``expr`` with each ``ITE(a, b, c)`` written ``(a & b) | (~a & c)``: sympy turns a
    condition on a Piecewise (a where of a where) into an ITE, which its numpy printer writes
    as a float ``select`` that numpy then rejects as a condition once ``simplify_logic``
    gives up (above 8 variables)."""
    return expr.replace(sympy.ITE, lambda a, b, c: sympy.Or(sympy.And(a, b),
                                                           sympy.And(sympy.Not(a), c)))


def _lambdified(case: _Case, exprs, points) -> np.ndarray:
    """``exprs`` evaluated by sympy, through its numpy ``lambdify``, all ``points`` in one
    call: shape (points, expressions)."""
    leaves = _leaf_symbols(case)
    plain = [sympy.Symbol(f"u{j}", real=True) for j in range(len(leaves))]
    rename = dict(zip([u for u, _, _ in leaves], plain, strict=True))
    exprs = [_without_ite(sympy.sympify(e).xreplace(rename)) for e in exprs]
    function = sympy.lambdify(plain, exprs, modules="numpy")
    args = [np.array([p[k].reshape(-1)[i] for p in points]) for _, k, i in leaves]
    with np.errstate(all="ignore"):
        columns = function(*args)
    return np.stack([np.broadcast_to(c, (len(points),)) for c in columns], axis=1)


def _at(case: _Case, exprs, values) -> np.ndarray:
    """``exprs`` with the leaf symbols replaced by 30-digit Floats, then ``evalf``."""
    replace = {u: sympy.Float(float(values[k].reshape(-1)[i]), 30)
               for u, k, i in _leaf_symbols(case)}
    return np.array([float(sympy.sympify(e).xreplace(replace).evalf(30)) for e in exprs])


@pytest.mark.parametrize("focus", OPS)
@settings(max_examples=_EXAMPLES, **_SETTINGS)
@given(st.data())
def test_lowered_expression_evaluates_to_the_eager_forward_at_fresh_points(focus, data):
    case = _Case(data.draw(programs(focus), label='program'))
    expr = case.lowered.expr
    assert tuple(expr.shape) == tuple(case.y.shape)
    points = [case.values, *case.fresh(every_leaf=True)]
    expected = np.stack([case.eager(values)[0].reshape(-1) for values in points])
    _close(_lambdified(case, expr._elements(), points), expected, rtol=1e-11, atol=1e-12)


def _substituted(definitions, result):
    """``result`` with the definitions put back, last first."""
    for name, definition in reversed(definitions):
        result = [e.xreplace({name: definition}) for e in result]
    return result


@pytest.mark.parametrize("focus", OPS)
@settings(max_examples=_EXAMPLES, **_SETTINGS)
@given(st.data())
def test_cse_definitions_substituted_back_equal_the_expanded_formula(focus, data):
    case = _Case(data.draw(programs(focus), label='program'))
    formulas = [case.lowered.expr,
                *symbolic.grad(case.out, [(case.a, case.b)[k] for k in case.used])]
    points = case.fresh(2)
    for formula in formulas:
        definitions, result = formula.cse()
        names = [name for name, _ in definitions]
        expanded = formula.evaluated()._elements()
        free = set().union(*(sympy.sympify(e).free_symbols for e in expanded))
        assert len(set(names)) == len(names) and not set(names) & free
        assert result.shape == formula.shape
        back = _substituted(definitions, result._elements())
        for values in points:
            _close(_at(case, back, values), _at(case, expanded, values), rtol=1e-12,
                   atol=1e-13)
        lines = formula.text(compact=True).split("\n")
        assert len(lines) == len(definitions) + 1
        assert formula.latex(compact=True).count(":=") == len(definitions)
