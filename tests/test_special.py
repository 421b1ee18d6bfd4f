"""``symgrad.special`` against PyTorch 2.13's ``torch.special``: each case's values, node
name and the gradient of a weighted sum, or the error's type and first sentence, recorded by
``python tools/record_torch_cases.py tests/test_special.py`` into
``tests/data/torch_special.json``; this module never imports torch. The new rules (``entr``,
``ndtr``, ``log_ndtr``, ``ndtri``, ``xlog1py``) are also checked against central differences
and sympy's derivatives of the recorded graph, and the checks are shown to catch a wrong rule.
"""

from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest
from torch_cases import first_sentence, leaves_of

import symgrad as t
from symgrad import ops, symbolic
from symgrad.autograd.gradcheck import gradcheck, gradgradcheck

DATA = pathlib.Path(__file__).parent / "data" / "torch_special.json"

NAN, INF = math.nan, math.inf
WIDE = [-40.0, -10.0, -3.0, -0.5, 0.0, 0.3, 2.0, 8.5, 40.0, INF, -INF, NAN]
PROBABILITIES = [0.0, 1e-300, 1e-20, 1e-5, 0.025, 0.3, 0.5, 0.9, 1 - 1e-12, 1.0, -0.1, 1.5, NAN]
POSITIVE = [0.0, 1e-300, 0.2, 0.5, 1.0, 3.0, INF, -1.0, NAN]


def _unary(name, values):
    return lambda L, dtype: getattr(L.special, name)(L.tensor(values, dtype=dtype,
                                                              requires_grad=True))


# name -> f(L, dtype): one output of leaves requiring grad (the leaves: _leaves)
CASES = {
    "entr": _unary("entr", POSITIVE),
    "ndtr": _unary("ndtr", WIDE),
    "log_ndtr": _unary("log_ndtr", WIDE),
    "ndtri": _unary("ndtri", PROBABILITIES),
    "expit": _unary("expit", WIDE),
    "gammaln": _unary("gammaln", [0.5, 1.0, 3.5, 10.0]),
    "psi": _unary("psi", [0.5, 1.0, 3.5, 10.0]),
    "digamma": _unary("digamma", [0.5, 2.0]),
    "erf": _unary("erf", [-1.0, 0.5]),
    "erfc": _unary("erfc", [-1.0, 0.5, 5.0]),
    "erfinv": _unary("erfinv", [-0.5, 0.0, 0.9]),
    "exp2": _unary("exp2", [-1.0, 3.0]),
    "expm1": _unary("expm1", [1e-10, 1.0]),
    "log1p": _unary("log1p", [1e-10, 1.0]),
    "sinc": _unary("sinc", [0.0, 0.5, 2.5]),
    "logit": _unary("logit", [0.2, 0.5, 0.9]),
    "logit eps": lambda L, d: L.special.logit(L.tensor([0.0, 0.5, 1.0], dtype=d,
                                                       requires_grad=True), eps=0.1),
    "round": _unary("round", [0.5, 1.5, -2.7]),
    "polygamma": lambda L, d: L.special.polygamma(2, L.tensor([0.5, 3.0], dtype=d,
                                                              requires_grad=True)),
    "multigammaln": lambda L, d: L.special.multigammaln(L.tensor([2.5, 4.0], dtype=d,
                                                                  requires_grad=True), 2),
    "softmax": lambda L, d: L.special.softmax(L.tensor([[1.0, 2.0, 0.5]], dtype=d,
                                                       requires_grad=True), 1),
    "log_softmax": lambda L, d: L.special.log_softmax(L.tensor([[1.0, 2.0, 0.5]], dtype=d,
                                                               requires_grad=True), -1),
    "logsumexp": lambda L, d: L.special.logsumexp(L.tensor([[1.0, 2.0], [0.5, -3.0]], dtype=d,
                                                           requires_grad=True), 1),
    "xlogy": lambda L, d: L.special.xlogy(L.tensor([0.0, 2.0, 1.5], dtype=d, requires_grad=True),
                                          L.tensor([0.0, 3.0, 0.5], dtype=d,
                                                   requires_grad=True)),
    "xlog1py": lambda L, d: L.special.xlog1py(
        L.tensor([0.0, 0.0, 0.0, 2.0, 2.0, 1.5, 0.0], dtype=d, requires_grad=True),
        L.tensor([-1.0, 0.0, NAN, -1.0, 0.5, INF, -2.0], dtype=d, requires_grad=True)),
    "xlog1py broadcast": lambda L, d: L.special.xlog1py(
        L.tensor([[1.0], [2.0]], dtype=d, requires_grad=True),
        L.tensor([0.5, 3.0], dtype=d, requires_grad=True)),
    "xlog1py a number input": lambda L, d: L.special.xlog1py(2.0, L.tensor([0.5, 1.0], dtype=d,
                                                                           requires_grad=True)),
    "xlog1py a number other": lambda L, d: L.special.xlog1py(L.tensor([0.5, 1.0], dtype=d,
                                                                      requires_grad=True), 3),
    "xlogy a number input": lambda L, d: L.xlogy(2.0, L.tensor([0.5, 1.0], dtype=d,
                                                               requires_grad=True)),
    "xlogy a number other": lambda L, d: L.xlogy(L.tensor([0.5, 1.0], dtype=d,
                                                          requires_grad=True), 3),
    "xlogy_ a number other": lambda L, d: L.tensor([0.5, 1.0], dtype=d,
                                                   requires_grad=True).clone().xlogy_(3),
    "gammainc": lambda L, d: L.special.gammainc(
        L.tensor([0.5, 1.0, 2.5, 10.0, 100.0, 0.01], dtype=d),
        L.tensor([0.1, 1.0, 2.5, 30.0, 90.0, 1e-3], dtype=d, requires_grad=True)),
    "gammaincc": lambda L, d: L.special.gammaincc(
        L.tensor([0.5, 1.0, 2.5, 10.0, 100.0, 30.0], dtype=d),
        L.tensor([0.1, 1.0, 2.5, 30.0, 90.0, 1.0], dtype=d, requires_grad=True)),
    "igamma broadcast": lambda L, d: L.igamma(L.tensor([[1.5], [4.0]], dtype=d),
                                              L.tensor([0.5, 3.0, 8.0], dtype=d,
                                                       requires_grad=True)),
    "frexp": lambda L, d: L.frexp(L.tensor([8.0, -0.3, 0.0, INF, NAN, 1.7], dtype=d,
                                          requires_grad=True)).mantissa,
    "nextafter": lambda L, d: L.nextafter(L.tensor([1.0, 0.0, -2.0], dtype=d,
                                                   requires_grad=True),
                                          L.tensor([2.0, -1.0, -2.0], dtype=d,
                                                   requires_grad=True)),
    "igammac_": lambda L, d: L.tensor([1.5, 4.0], dtype=d).igammac_(
        L.tensor([0.5, 3.0], dtype=d, requires_grad=True) * 1),
}

# name -> f(L): refused by PyTorch, or a value without gradient (integer inputs)
OTHERS = {
    "entr of int64": lambda L: L.special.entr(L.tensor([1, 2])),
    "entr of bool": lambda L: L.special.entr(L.tensor([True, False])),
    "ndtr of int64": lambda L: L.special.ndtr(L.tensor([1, -2])),
    "log_ndtr of bool": lambda L: L.special.log_ndtr(L.tensor([True])),
    "ndtri of int64": lambda L: L.special.ndtri(L.tensor([0, 1])),
    "xlog1py of int64": lambda L: L.special.xlog1py(L.tensor([1, 2]), L.tensor([1, 2])),
    "xlog1py of int64 and a float": lambda L: L.special.xlog1py(L.tensor([1, 2]), 2.5),
    "entr of a float": lambda L: L.special.entr(2.0),
    "ndtri of a list": lambda L: L.special.ndtri([0.5]),
    "log_ndtr of None": lambda L: L.special.log_ndtr(None),
    "xlog1py of two numbers": lambda L: L.special.xlog1py(2, 3),
    "float32 ndtri of a tiny probability": lambda L: L.special.ndtri(L.tensor([1e-30, 0.3])),
    "float32 log_ndtr far left": lambda L: L.special.log_ndtr(L.tensor([-40.0, -10.0])),
    "gammainc edges": lambda L: L.special.gammainc(
        L.tensor([0.0, 0.0, 1.0, 1.0, -1.0, 2.0, INF, INF, NAN, 1.0], dtype=L.float64),
        L.tensor([0.0, 1.0, 0.0, INF, 1.0, -1.0, 1.0, INF, 1.0, NAN], dtype=L.float64)),
    "gammaincc edges": lambda L: L.special.gammaincc(
        L.tensor([0.0, 0.0, 1.0, 1.0, -1.0, 2.0, INF, INF, NAN, 1.0], dtype=L.float64),
        L.tensor([0.0, 1.0, 0.0, INF, 1.0, -1.0, 1.0, INF, 1.0, NAN], dtype=L.float64)),
    "gammainc large shapes": lambda L: L.special.gammainc(
        L.tensor([1e4, 1e6, 30.0, 0.1], dtype=L.float64),
        L.tensor([1e4, 1e6 + 500, 1.0, 40.0], dtype=L.float64)),
    "gammainc of int64": lambda L: L.special.gammainc(L.tensor([1, 2]), L.tensor([1, 2])),
    "gammainc half and float": lambda L: L.special.gammainc(
        L.ones(2, dtype=L.float16), L.ones(2)),
    "gammainc of a number": lambda L: L.special.gammainc(L.ones(2), 2.0),
    "igamma shape gradient": lambda L: L.igamma(L.tensor([1.5], requires_grad=True),
                                                L.tensor([0.7])).sum().backward(),
    "igamma_ of int64": lambda L: L.tensor([1, 2]).igamma_(L.tensor([1.5, 2.5])),
    "frexp exponents": lambda L: L.frexp(L.tensor([8.0, -0.3, 0.0, INF, NAN, 1e-40])).exponent,
    "frexp half": lambda L: L.frexp(L.tensor([3.0, 1e-6], dtype=L.float16)).mantissa,
    "frexp of int64": lambda L: L.frexp(L.tensor([3])),
    "nextafter of int64": lambda L: L.nextafter(L.tensor([1]), L.tensor([2])),
    "nextafter mixed": lambda L: L.nextafter(L.tensor([1.0]), L.tensor([2.0],
                                                                        dtype=L.float64)),
    "nextafter_": lambda L: L.tensor([1.0, 2.0]).nextafter_(L.tensor([2.0, 0.0])),
}


def _leaves(out):
    """The leaves a case's output depends on, the largest first."""
    return sorted(leaves_of(out), key=lambda x: -x.numel())


def _plain(values):
    return np.asarray(values, dtype=np.float64).tolist()


def _run(L, f, dtype_name):
    try:
        out = f(L, getattr(L, dtype_name))
        leaves = _leaves(out)
        weights = L.arange(1.0, 1.0 + out.numel(), dtype=out.dtype).reshape(out.shape)
        grads = L.autograd.grad((out * weights).sum(), leaves)
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        return ["error", *first_sentence(e)]
    return ["value", _plain(out.detach().tolist()), str(out.dtype).split(".")[-1],
            out.grad_fn.name(), [_plain(g.tolist()) for g in grads]]


def _other(L, f):
    try:
        out = f(L)
    except Exception as e:  # noqa: BLE001
        return ["error", *first_sentence(e)]
    return ["value", _plain(out.tolist()), str(out.dtype).split(".")[-1]]


def record_all(L) -> dict:
    recorded = {f"{name}|{d}": _run(L, f, d) for name, f in CASES.items()
                for d in ("float32", "float64")}
    recorded.update({name: _other(L, f) for name, f in OTHERS.items()})
    return recorded


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}
KEYS = [f"{name}|{d}" for name in CASES for d in ("float32", "float64")]


def test_every_case_is_recorded():
    assert set(RECORDED) == set(KEYS) | set(OTHERS)


# PyTorch's float64 trigamma (digamma's derivative) is good to about 1e-9: at 0.5 it gives
# 4.934802202..., where π²/2 = 4.934802200544679 (symgrad's)
LOOSER = {"digamma": 1e-9, "psi": 1e-9}  # (gradients)
# PyTorch's float64 incomplete gamma functions err by up to ~1e-9 relative for a shape near 100
# and above, where symgrad's agree with mpmath to ~1e-14 (test_incomplete_gamma_accuracy)
LOOSER_VALUES = {"gammainc": 1e-8, "gammaincc": 1e-8, "gammainc large shapes": 1e-8}


def _close(got, expected, dtype, name="", looser=LOOSER):
    # float32: a few ulps (PyTorch's float32 kernels and symgrad's float64-then-rounded ones;
    # PyTorch's float32 log_ndtr(8.5) is 2.4e-6 off); float64: about 1e-13 relative
    rtol = 5e-6 if dtype == "float32" else looser.get(name, 2e-12)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                               np.asarray(expected, dtype=np.float64), rtol=rtol,
                               atol=1e-300, equal_nan=True)


@pytest.mark.parametrize("key", KEYS)
def test_values_gradients_and_nodes_as_pytorch(key):
    name, dtype = key.split("|")
    got, expected = _run(t, CASES[name], dtype), RECORDED[key]
    assert got[0] == expected[0] == "value", (got, expected)
    _close(got[1], expected[1], dtype, name, LOOSER_VALUES)
    assert got[2:4] == expected[2:4]
    for g, e in zip(got[4], expected[4], strict=True):
        _close(g, e, dtype, name)


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_other_inputs_as_pytorch(name):
    got, expected = _other(t, OTHERS[name]), RECORDED[name]
    assert got[0] == expected[0]
    if got[0] == "error":
        assert got[1:] == expected[1:]
    else:
        assert got[2] == expected[2]
        _close(got[1], expected[1], got[2], name, LOOSER_VALUES)


# ------------------------------------------------------------------ the new rules, checked

SMOOTH = {  # (function, leaves' values inside the domain, where the rules are smooth)
    "entr": (lambda x: t.special.entr(x), ([0.2, 0.7, 2.5],)),
    "ndtr": (lambda x: t.special.ndtr(x), ([-2.0, 0.1, 1.5],)),
    "log_ndtr": (lambda x: t.special.log_ndtr(x), ([-6.0, -1.2, 0.4, 3.0],)),
    "ndtri": (lambda x: t.special.ndtri(x), ([0.01, 0.3, 0.5, 0.97],)),
    "xlog1py": (lambda x, y: t.special.xlog1py(x, y), ([0.5, -1.5, 2.0], [0.2, 1.5, -0.4])),
    "igamma": (lambda x: t.igamma(t.tensor([0.5, 2.5, 8.0], dtype=t.float64), x),
               ([0.2, 1.5, 11.0],)),
    "igammac": (lambda x: t.igammac(t.tensor([0.5, 2.5, 8.0], dtype=t.float64), x),
                ([0.2, 1.5, 11.0],)),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_the_rules_agree_with_differences_and_sympy(name):
    f, values = SMOOTH[name]
    leaves = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
    assert gradcheck(f, tuple(leaves))
    assert gradgradcheck(f, tuple(leaves))  # (the rules recorded with create_graph)
    out = f(*leaves)
    weights = t.arange(1.0, 1.0 + out.numel(), dtype=t.float64)
    symbolic.check((out * weights).sum(), inputs=leaves)  # (raises GradientMismatch)


def _scaled(rule):
    return lambda xp, g, *rest, **params: 1.01 * rule(xp, g, *rest, **params)


@pytest.mark.parametrize("name", ["entr", "log_ndtr", "ndtri", "xlog1py", "igamma", "igammac"])
def test_a_wrong_rule_is_caught(name, monkeypatch):
    op = getattr(ops.elementwise, name)
    right = op.vjp
    wrong = tuple(_scaled(rule) for rule in right)
    monkeypatch.setattr(op, "vjp", wrong)
    f, values = SMOOTH[name]
    leaves = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
    with pytest.raises(symbolic.GradientMismatch):
        symbolic.check(f(*leaves).sum(), inputs=leaves)
    with pytest.raises(Exception, match="Jacobian mismatch"):
        gradcheck(f, tuple(leaves))


def test_ndtri_inverts_ndtr_and_log_ndtr_far_into_the_tails():
    p = t.tensor(10.0 ** -np.arange(1.0, 300.0, 7.0), dtype=t.float64)
    x = t.special.ndtri(p)
    np.testing.assert_allclose(t.special.log_ndtr(x).numpy(), np.log(p.numpy()), rtol=1e-13)
    q = t.tensor([0.2, 0.5, 0.7, 0.999], dtype=t.float64)
    np.testing.assert_allclose(t.special.ndtr(t.special.ndtri(q)).numpy(), q.numpy(), rtol=1e-14)


def test_incomplete_gamma_accuracy():
    # against mpmath (sympy's arbitrary precision), where P or Q is small and near x = a
    import mpmath

    a = [0.5, 2.5, 12.0, 100.0, 1e3, 1e4, 1e6, 30.0, 0.1, 50.0]
    x = [0.1, 2.5, 11.9, 90.0, 900.0, 1e4, 1e6 + 500, 1.0, 40.0, 80.0]
    p = t.special.gammainc(t.tensor(a, dtype=t.float64), t.tensor(x, dtype=t.float64))
    q = t.special.gammaincc(t.tensor(a, dtype=t.float64), t.tensor(x, dtype=t.float64))
    with mpmath.workdps(40):
        exact_p = [float(mpmath.gammainc(s, 0, v, regularized=True))
                   for s, v in zip(a, x, strict=True)]
        exact_q = [float(mpmath.gammainc(s, v, mpmath.inf, regularized=True))
                   for s, v in zip(a, x, strict=True)]
    np.testing.assert_allclose(p.numpy(), exact_p, rtol=1e-13, atol=0)
    np.testing.assert_allclose(q.numpy(), exact_q, rtol=1e-13, atol=0)
