"""Random programs over the Tensor API: backward agrees with central finite differences.

Each program starts from two float64 leaves of random broadcast-compatible shapes and applies a
random sequence of unary functions, binary operations (with tensors, Python numbers and
broadcast constants) and reductions, so shared subexpressions, broadcasting and scalar operands
meet in one graph. hypothesis runs derandomized, so CI sees the same programs every time.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symgrad as t

UNARY = {
    "exp": lambda x: (x * 0.3).exp(),
    "tanh": lambda x: x.tanh(),
    "sin": lambda x: x.sin(),
    "sigmoid": lambda x: x.sigmoid(),
    "softplus_like": lambda x: (x.exp() + 1).log(),
    "sqrt": lambda x: (x * x + 1).sqrt(),
    "square": lambda x: x ** 2,
    "neg": lambda x: -x,
    "recip": lambda x: 1 / (x * x + 1),
}
BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / (y * y + 1),
    "rsub": lambda x, y: 2.5 - x * y,
}
SHAPES = st.sampled_from([((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 2)),
                          ((4, 1, 2), (3, 1))])


@st.composite
def programs(draw):
    shapes = draw(SHAPES)
    steps = draw(st.lists(
        st.one_of(
            st.tuples(st.just("unary"), st.sampled_from(sorted(UNARY)), st.integers(0, 5)),
            st.tuples(st.just("binary"), st.sampled_from(sorted(BINARY)), st.integers(0, 5)),
            st.tuples(st.just("scalar"), st.floats(-2, 2), st.integers(0, 5)),
        ),
        min_size=1, max_size=8))
    reduce_mean = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    return shapes, steps, reduce_mean, seed


def _run(program, a, b):
    _, steps, reduce_mean, _ = program
    values = [a, b]
    for kind, what, pick in steps:
        x = values[pick % len(values)]
        if kind == "unary":
            values.append(UNARY[what](x))
        elif kind == "binary":
            values.append(BINARY[what](x, values[(pick + 1) % len(values)]))
        else:
            values.append(x * what + what)
    out = sum(v.sum() for v in values[2:]) if len(values) > 2 else values[-1].sum()
    return out.mean() if reduce_mean else out


@settings(max_examples=60, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_match_finite_differences(program):
    shapes, _, _, seed = program
    rng = np.random.default_rng(seed)
    a0 = rng.uniform(-1.5, 1.5, shapes[0])
    b0 = rng.uniform(-1.5, 1.5, shapes[1])
    a = t.tensor(a0, dtype=t.float64, requires_grad=True)
    b = t.tensor(b0, dtype=t.float64, requires_grad=True)
    _run(program, a, b).backward()

    def f(av, bv):
        with t.no_grad():
            return _run(program, t.tensor(av, dtype=t.float64),
                        t.tensor(bv, dtype=t.float64)).item()

    eps = 1e-6
    for leaf, base, other, first in ((a, a0, b0, True), (b, b0, a0, False)):
        u = rng.standard_normal(base.shape)
        plus, minus = base + eps * u, base - eps * u
        fd = ((f(plus, other) - f(minus, other)) if first
              else (f(other, plus) - f(other, minus))) / (2 * eps)
        grad = leaf.grad.numpy() if leaf.grad is not None else 0.0  # None: leaf unused
        analytic = float(np.sum(u * grad))
        assert abs(analytic - fd) <= 1e-6 * max(1.0, abs(fd)), (analytic, fd)
