"""Random programs over the whole op registry (issue 15): chains of registered ops, each fed by
the values before it, where the numeric backward, sympy's derivative of the lowered graph
(``symbolic.check``) and central finite differences must agree. tests/test_random_graphs.py and
tests/test_symbolic_random.py draw from a hand-picked set of spellings; here every op of the
registry can appear, with the inputs and params of its own samples.

Each op's inputs are its sample's values (kept away from its kinks, as the registry test draws
them) shifted by a small multiple of the previous result's sum, so the chain is one graph while
no input comes within reach of a kink. hypothesis runs derandomized: CI sees the same programs.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_registry import _draw

import symgrad as t
from symgrad import symbolic
from symgrad.dispatch import apply_op
from symgrad.ops import REGISTRY

OPS = sorted(REGISTRY)


@st.composite
def programs(draw):
    steps = draw(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 3)),
                          min_size=1, max_size=3))
    return [(name, REGISTRY[name].samples[k % len(REGISTRY[name].samples)]) for name, k in steps]


def _constants(program, seed: int):
    """Per step, the sample's input values (or masks, or Python scalars) and a weight."""
    rng = np.random.default_rng(seed)
    out = []
    for name, sample in program:
        inputs = []
        for i, shape in enumerate(sample.shapes):
            if i in sample.bool_inputs:
                inputs.append(("mask", t.tensor(rng.random(shape) > 0.5)))
            elif shape is None:
                inputs.append(("scalar", float(_draw(rng, None, sample))))
            else:
                inputs.append(("tensor", _draw(rng, shape, sample)))
        out.append((name, sample, inputs, rng.standard_normal()))
    return out


def _run(steps, leaf, scales):
    """The program on ``leaf``: each op's tensor inputs move with the previous result, by
    ``scales[k]`` times its sum (fixed on the first run, so that finite differences see the
    same function)."""
    previous = leaf
    total = leaf.sum() * 0.5
    for k, (name, sample, inputs, weight) in enumerate(steps):
        c = previous.sum()
        if len(scales) == k:  # the shift stays within a quarter of the gap to any kink
            scales.append(sample.gap / 4 / max(1.0, abs(c.item())))
        scale = scales[k]
        args = [value if kind != "tensor" else t.tensor(value, dtype=t.float64) + c * scale
                for kind, value in inputs]
        out = apply_op(REGISTRY[name], *args, **sample.params)
        if out.dtype.is_floating_point:
            previous = out
            total = total + out.sum() * weight
    return total


@settings(max_examples=25, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), st.integers(0, 2**16))
def test_registry_programs_numeric_symbolic_and_finite_differences_agree(program, seed):
    steps = _constants(program, seed)
    rng = np.random.default_rng(seed + 1)
    a0 = rng.uniform(-1.0, 1.0, (3,))
    a = t.tensor(a0, dtype=t.float64, requires_grad=True)
    scales: list[float] = []
    out = _run(steps, a, scales)
    assume(np.isfinite(out.item()))  # an overflowed program is drawn again
    (grad,) = t.autograd.grad(out, a, retain_graph=True)

    report = symbolic.check(out, inputs=[a])  # numeric backward vs sympy, element by element
    assert all(r.max_rel_error < 1e-6 for r in report.inputs), report

    def f(values):
        with t.no_grad():
            return _run(steps, t.tensor(values, dtype=t.float64), scales).item()

    eps = 1e-6
    u = rng.standard_normal(a0.shape)
    fd = (f(a0 + eps * u) - f(a0 - eps * u)) / (2 * eps)
    analytic = float(np.sum(u * grad.numpy()))
    assert abs(analytic - fd) <= 1e-5 * max(1.0, abs(fd)), (program, analytic, fd)
