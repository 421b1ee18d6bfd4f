"""Every registered op, on every sample, against sympy: the lowered forward equals the numeric
forward, the numeric VJP equals sympy.diff of the lowered forward (at random points and at the
op's kinks, where the symbolic rule must encode symgrad's convention), and the VJP rules run on
sympy expressions equal that derivative exactly. A new op without a working symbolic rule fails
here."""

from __future__ import annotations

import math

import pytest
from test_registry import CASES, _build

import symgrad as t
from symgrad.dispatch import apply_op
from symgrad.ops import REGISTRY
from symgrad.symbolic import crosscheck as symcheck
from symgrad.symbolic import lower


def _lowered_step(op, sample, seed, at_kinks=False):
    inputs, differentiable, _ = _build(op, sample, seed=seed)
    if at_kinks:
        inputs = [_at_kinks(x, sample) if i in differentiable else x
                  for i, x in enumerate(inputs)]
    out = apply_op(op, *inputs, **sample.params)
    lowered = lower(out)
    assert lowered.steps[-1].node is out.grad_fn
    return out, lowered


def _at_kinks(x, sample):
    """The input with its elements moved onto the op's kinks, in turn."""
    values = x.detach().numpy().copy()
    flat = values.reshape(-1)
    for k in range(flat.size):
        flat[k] = sample.kinks[k % len(sample.kinks)]
    return t.tensor(values, dtype=t.float64, requires_grad=True)


@pytest.mark.parametrize(("op", "sample"), CASES)
def test_lowered_forward_matches_numeric_forward(op, sample):
    out, lowered = _lowered_step(op, sample, seed=3)
    values = lowered.values
    numeric = out.detach().numpy().reshape(-1)
    for k, expr in enumerate(lowered.inlined.reshape(-1)):
        exact = float(expr.xreplace(values).evalf(30))
        assert exact == pytest.approx(float(numeric[k]), rel=1e-12, abs=1e-12), k


@pytest.mark.parametrize(("op", "sample"), CASES)
def test_numeric_vjp_matches_sympy_diff_of_lowered_forward(op, sample):
    _, lowered = _lowered_step(op, sample, seed=4)
    assert symcheck.node_vjp_error(lowered.steps[-1], rtol=1e-9) is None


@pytest.mark.parametrize(("op", "sample"), CASES)
def test_lowered_vjp_equals_sympy_derivative_exactly(op, sample):
    _, lowered = _lowered_step(op, sample, seed=5)
    proof = symcheck.prove_node(lowered.steps[-1], formulas=False)
    assert proof.at_point, proof


KINK_CASES = [case for case in CASES if case.values[1].kinks]


@pytest.mark.parametrize(("op", "sample"), KINK_CASES)
def test_numeric_vjp_matches_symbolic_rule_at_kinks(op, sample):
    """At a non-differentiable point the symbolic rule encodes the numeric convention."""
    _, lowered = _lowered_step(op, sample, seed=6, at_kinks=True)
    assert symcheck.node_vjp_error(lowered.steps[-1], rtol=1e-9) is None


def test_registry_ops_all_have_kink_or_smooth_samples():
    assert len(KINK_CASES) >= 5
    assert all(math.isfinite(k) for c in KINK_CASES for k in c.values[1].kinks)
    assert set(REGISTRY) == {c.values[0].name for c in CASES}
