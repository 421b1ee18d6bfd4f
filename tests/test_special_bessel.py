"""The Bessel functions of ``symgrad.special``, ``erfcx``, ``zeta`` and the orthogonal
polynomials against PyTorch 2.13: values,
dtypes, node names, the gradient of a weighted sum (or that there is none), errors, recorded by
``python tools/record_torch_cases.py tests/test_special_bessel.py`` into
``tests/data/torch_special_bessel.json``; this module never imports torch. The values are also
checked against mpmath (independent of PyTorch), and the gradient rules against central
differences and sympy, which are shown to catch a wrong rule.
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

DATA = pathlib.Path(__file__).parent / "data" / "torch_special_bessel.json"

NAN, INF = math.nan, math.inf
# I0, I1: the series, the asymptotic expansion from 30, overflow past log(max) (88.7 in float32)
MODIFIED = [-800.0, -100.0, -30.5, -5.0, -0.7, 0.0, 1e-6, 0.3, 2.0, 8.0, 29.9, 30.1, 85.0,
            88.5, 100.0, 700.0, 715.0, INF, -INF, NAN]
SMALL_MODIFIED = [-30.5, -5.0, -0.7, 0.0, 1e-6, 0.3, 2.0, 8.0, 29.9, 30.1, 60.0]
# erfcx: e^(x²) erfc(x) below 5, the continued fraction above, overflow below -26.6
ERFCX = [-30.0, -26.0, -10.0, -2.0, -0.5, 0.0, 1e-8, 0.5, 2.0, 4.9, 5.1, 10.0, 26.0, 30.0,
         1e3, 1e10, INF, -INF, NAN]
ERFCX_SMOOTH = [-10.0, -2.0, -0.5, 0.0, 0.5, 2.0, 4.9, 5.1, 10.0]
# J, Y: the series below 2, Miller's recurrence to 25, Hankel's expansion beyond
ORDINARY = [0.0, 1e-300, 1e-5, 0.5, 1.0, 2.0, 3.7, 6.2, 11.0, 19.5, 26.0, 40.0, -3.7, -0.5,
            INF, -INF, NAN]
FAR = [100.0, 1e3, 1e5]
# K: the series below 1, the trapezoidal rule beyond (K underflows from about 700)
SECOND_KIND = [0.0, 1e-300, 1e-5, 0.5, 1.0, 1.5, 4.0, 12.0, 30.0, 75.0, -1.0, INF, NAN]
FAR_K = [300.0, 800.0, 1e5]
# zeta(x, q): PyTorch's edges (x = 1, x < 1, the poles q = 0, -1 ..., negative q, inf, nan)
ZETA_X = [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 3.5, 3.0, 1.0, 0.5, -1.0, INF, INF, INF, NAN, 2.0,
          1.0001, 50.0, 2.0, 2.0, 2.0, 2.0, 1e-3, 3.0, 3.0, 2.0, 1.0, NAN, INF, INF, 4.0, 12.0]
ZETA_Q = [1.0, 0.5, -0.5, -1.0, 0.0, -2.5, -2.5, -2.5, 1.0, 1.0, 1.0, 1.0, 2.0, 0.5, 1.0, NAN,
          1.0, 1.0, INF, -INF, 1e-10, 1e10, 1.0, -0.0, 1e-300, -3.0, NAN, 0.0, -0.5, -1.5,
          -20.5, 1e6]


def _unary(name, values):
    return lambda L, dtype: getattr(L.special, name)(L.tensor(values, dtype=dtype,
                                                              requires_grad=True))


# name -> f(L, dtype): one output of leaves requiring grad
CASES = {
    "i0": _unary("i0", MODIFIED),
    "i0e": _unary("i0e", MODIFIED),
    "i1": _unary("i1", MODIFIED),
    "i1e": _unary("i1e", MODIFIED),
    "erfcx": _unary("erfcx", ERFCX_SMOOTH),
    "torch.i0": lambda L, d: L.i0(L.tensor(SMALL_MODIFIED, dtype=d, requires_grad=True)),
    "Tensor.i0": lambda L, d: L.tensor(SMALL_MODIFIED, dtype=d, requires_grad=True).i0(),
    "Tensor.i0_": lambda L, d: (L.tensor(SMALL_MODIFIED, dtype=d, requires_grad=True)
                                * 1).i0_(),
    "i1 broadcast product": lambda L, d: L.special.i1(
        L.tensor([[0.5], [2.0]], dtype=d, requires_grad=True)
        * L.tensor([1.0, -3.0, 0.0], dtype=d, requires_grad=True)),
    "zeta": lambda L, d: L.special.zeta(
        L.tensor([2.0, 3.5, 1.5, 10.0, 2.0, 1.0001, 60.0], dtype=d),
        L.tensor([1.0, 0.5, 3.0, 2.0, 100.0, 1.0, 1.5], dtype=d, requires_grad=True)),
    "zeta a number input": lambda L, d: L.special.zeta(
        2.5, L.tensor([0.25, 1.0, 40.0], dtype=d, requires_grad=True)),
    "zeta negative q": lambda L, d: L.special.zeta(
        L.tensor([2.0, 3.0, 4.0], dtype=d),
        L.tensor([-0.5, -2.5, -20.5], dtype=d, requires_grad=True)),
    "zeta broadcast": lambda L, d: L.special.zeta(
        L.tensor([[2.0], [3.0]], dtype=d),
        L.tensor([1.0, 2.0, 3.0], dtype=d, requires_grad=True)),
}

# name -> f(L, dtype): the functions without a derivative, given inputs requiring grad
NO_GRADIENT = {
    "bessel_j0": (ORDINARY, FAR), "bessel_j1": (ORDINARY, FAR), "bessel_y0": (ORDINARY, FAR),
    "bessel_y1": (ORDINARY, FAR), "modified_bessel_i0": (MODIFIED, []),
    "modified_bessel_i1": (MODIFIED, []), "modified_bessel_k0": (SECOND_KIND, FAR_K),
    "modified_bessel_k1": (SECOND_KIND, FAR_K), "scaled_modified_bessel_k0": (SECOND_KIND, FAR_K),
    "scaled_modified_bessel_k1": (SECOND_KIND, FAR_K),
    "spherical_bessel_j0": ([0.0, 1e-300, 1e-5, -1e-3, 0.5, 3.0, -7.5, 100.0, 1e6, INF, -INF,
                             NAN], []),
    "airy_ai": ([-20.0, -12.5, -8.7, -5.0, -3.5, -2.5, -1.0, 0.0, 1e-300, 0.5, 1.0, 2.0, 5.0,
                 30.0, INF, -INF, NAN], [-50.0, 103.0, 110.0]),
}

# name -> f(L): refused by PyTorch, or a value without gradient
OTHERS = {
    "erfcx far": lambda L: L.special.erfcx(L.tensor(ERFCX, dtype=L.float64)),
    "erfcx far float32": lambda L: L.special.erfcx(L.tensor(ERFCX)),
    "i0 of int64": lambda L: L.special.i0(L.tensor([1, -2, 3])),
    "i0e of bool": lambda L: L.special.i0e(L.tensor([True, False])),
    "i1 of int8": lambda L: L.special.i1(L.tensor([1, -2], dtype=L.int8)),
    "i1e of uint8": lambda L: L.special.i1e(L.tensor([1, 200], dtype=L.uint8)),
    "erfcx of int64": lambda L: L.special.erfcx(L.tensor([0, 3])),
    "i0 of half": lambda L: L.i0(L.tensor([1.0, -3.5, 11.0, 13.5], dtype=L.float16)),
    "i1e of half": lambda L: L.special.i1e(L.tensor([1.0, -3.5, 11.0], dtype=L.float16)),
    "erfcx of half": lambda L: L.special.erfcx(L.tensor([1.0], dtype=L.float16)),
    "bessel_j0 of half": lambda L: L.special.bessel_j0(L.tensor([1.0], dtype=L.float16)),
    "modified_bessel_k1 of half": lambda L: L.special.modified_bessel_k1(
        L.tensor([1.0], dtype=L.float16)),
    "bessel_y1 of int64": lambda L: L.special.bessel_y1(L.tensor([1, 2, 0])),
    "spherical_bessel_j0 of bool": lambda L: L.special.spherical_bessel_j0(
        L.tensor([True, False])),
    "special.i0 of a float": lambda L: L.special.i0(2.0),
    "i0 of a list": lambda L: L.i0([1.0]),
    "i1e of None": lambda L: L.special.i1e(None),
    "bessel_j0 of a float": lambda L: L.special.bessel_j0(2.0),
    "erfcx of an int": lambda L: L.special.erfcx(3),
    "i0_ of int64": lambda L: L.tensor([1, 2]).i0_(),
    "torch.i0_": lambda L: L.i0_(L.tensor([1.0, 2.0])),
    "i0_ of a leaf requiring grad": lambda L: L.tensor([1.0], requires_grad=True).i0_(),
    "bessel_j0 backward": lambda L: L.special.bessel_j0(
        L.tensor([1.0, 2.0], requires_grad=True)).sum().backward(),
    "modified_bessel_i0 backward": lambda L: L.special.modified_bessel_i0(
        L.tensor([1.0], requires_grad=True)).sum().backward(),
    # zeta: PyTorch's edge values, its dtypes and refusals, no gradient in x
    "zeta edges": lambda L: L.special.zeta(L.tensor(ZETA_X, dtype=L.float64),
                                           L.tensor(ZETA_Q, dtype=L.float64)),
    "zeta edges float32": lambda L: L.special.zeta(L.tensor(ZETA_X), L.tensor(ZETA_Q)),
    "zeta of int64 and a number": lambda L: L.special.zeta(L.tensor([2, 3]), 1),
    "zeta of a number and int64": lambda L: L.special.zeta(2, L.tensor([1, 2])),
    "zeta of int64 and a float": lambda L: L.special.zeta(L.tensor([2, 3]), 1.5),
    "zeta of bool": lambda L: L.special.zeta(L.tensor([True]), L.tensor([True])),
    "zeta of float32 and float64": lambda L: L.special.zeta(
        L.tensor([2.0]), L.tensor([1.0], dtype=L.float64)),
    "zeta of half": lambda L: L.special.zeta(L.tensor([2.0], dtype=L.float16),
                                             L.tensor([1.0], dtype=L.float16)),
    "zeta of half and a number": lambda L: L.special.zeta(L.tensor([2.0], dtype=L.float16), 1.0),
    "zeta of two numbers": lambda L: L.special.zeta(2.0, 3.0),
    "zeta of None": lambda L: L.special.zeta(L.tensor([2.0]), None),
    "zeta of a list": lambda L: L.special.zeta([2.0], L.tensor([2.0])),
    "zeta gradient in x": lambda L: L.special.zeta(
        L.tensor([2.0, 3.0], requires_grad=True), L.tensor([1.0, 2.0])).sum().backward(),
    "zeta gradient in x, a number q": lambda L: L.special.zeta(
        L.tensor([2.0, 3.0], requires_grad=True), 2.0).sum().backward(),
    "zeta gradient in q, x requiring grad": lambda L: _q_gradient(L),
}

def _q_gradient(L):
    """zeta's gradient in q alone, x requiring grad (asked for q only: no error)."""
    q = L.tensor([1.0, 2.0], requires_grad=True)
    out = L.special.zeta(L.tensor([2.0, 3.0], requires_grad=True), q)
    return L.autograd.grad(out.sum(), q)[0]


# the orthogonal polynomials, without gradient: x down a column, the degrees along a row
# (negative: 0; 2.5 truncated to 2; from 7 the trigonometric forms inside (-1, 1))
POLYNOMIAL_X = [[-2.0], [-1.0], [-0.7], [-0.3], [0.0], [0.3], [0.5], [0.9], [1.0], [1.5], [3.0],
                [INF], [-INF]]
POLYNOMIAL_N = [0.0, 1.0, 2.0, 3.0, 5.0, 7.0, 9.0, 12.0, 30.0, -1.0, 2.5]
POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")
for _name in POLYNOMIALS:
    OTHERS[f"{_name} float64"] = lambda L, f=_name: getattr(L.special, f)(
        L.tensor(POLYNOMIAL_X, dtype=L.float64, requires_grad=True),
        L.tensor(POLYNOMIAL_N, dtype=L.float64))
    OTHERS[f"{_name} float32"] = lambda L, f=_name: getattr(L.special, f)(
        L.tensor(POLYNOMIAL_X, requires_grad=True), L.tensor(POLYNOMIAL_N))
OTHERS.update({
    "chebyshev_polynomial_t a number n": lambda L: L.special.chebyshev_polynomial_t(
        L.tensor([0.5, 2.0, -0.3], dtype=L.float64), 3),
    "chebyshev_polynomial_u a float n": lambda L: L.special.chebyshev_polynomial_u(
        L.tensor([0.5, 2.0]), 3.7),
    "hermite_polynomial_h a number x": lambda L: L.special.hermite_polynomial_h(
        0.5, L.tensor([0, 3, 6])),
    "legendre_polynomial_p a number x, float64 n": lambda L: L.special.legendre_polynomial_p(
        0.5, L.tensor([3.0, 8.0], dtype=L.float64)),
    "laguerre_polynomial_l of bool": lambda L: L.special.laguerre_polynomial_l(
        L.tensor([True, False]), L.tensor([2])),
    "hermite_polynomial_he of int8 and int64": lambda L: L.special.hermite_polynomial_he(
        L.tensor([2, -1], dtype=L.int8), L.tensor([3, 4])),
    "chebyshev_polynomial_t float32 and float64 n": lambda L: L.special.chebyshev_polynomial_t(
        L.tensor([0.5]), L.tensor([3.0], dtype=L.float64)),
    "chebyshev_polynomial_t a huge degree": lambda L: L.special.chebyshev_polynomial_t(
        L.tensor([0.5, -0.3], dtype=L.float64), L.tensor([1000.0, 12345.0],
                                                         dtype=L.float64)),
    "chebyshev_polynomial_w of half": lambda L: L.special.chebyshev_polynomial_w(
        L.tensor([0.5], dtype=L.float16), 2),
    "legendre_polynomial_p of two numbers": lambda L: L.special.legendre_polynomial_p(0.5, 3),
    "hermite_polynomial_h of None": lambda L: L.special.hermite_polynomial_h(
        L.tensor([0.5]), None),
    "chebyshev_polynomial_t of unbroadcastable shapes": lambda L:
    L.special.chebyshev_polynomial_t(L.zeros(2), L.zeros(3)),
    "chebyshev_polynomial_v backward": lambda L: L.special.chebyshev_polynomial_v(
        L.tensor([0.5], requires_grad=True), 3).sum().backward(),
})


# name -> f(L): an output whose node's name is recorded
NODES = {
    "zeta of two tensors": lambda L: L.special.zeta(L.tensor([2.0], requires_grad=True),
                                                    L.tensor([1.0], requires_grad=True)),
    "zeta of a number q": lambda L: L.special.zeta(L.tensor([2.0], requires_grad=True), 2.0),
    "zeta of a number x": lambda L: L.special.zeta(2.0, L.tensor([1.0], requires_grad=True)),
    "torch.i0": lambda L: L.i0(L.tensor([1.0], requires_grad=True)),
    "i0_": lambda L: L.tensor([1.0], requires_grad=True).clone().i0_(),
}


def _leaves(out):
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


def _no_gradient(L, name, values, dtype_name):
    try:
        x = L.tensor(values, dtype=getattr(L, dtype_name), requires_grad=True)
        out = getattr(L.special, name)(x)
    except Exception as e:  # noqa: BLE001
        return ["error", *first_sentence(e)]
    return ["value", _plain(out.tolist()), str(out.dtype).split(".")[-1], out.requires_grad,
            out.grad_fn is None]


def _other(L, f):
    try:
        out = f(L)
    except Exception as e:  # noqa: BLE001
        return ["error", *first_sentence(e)]
    if out is None:
        return ["value", None, None]
    return ["value", _plain(out.tolist()), str(out.dtype).split(".")[-1]]


def _no_gradient_keys():
    for name, (values, far) in NO_GRADIENT.items():
        for dtype in ("float32", "float64"):
            yield f"{name}|{dtype}", name, values, dtype
        if far:  # (float64 only: PyTorch's float32 kernels lose the phase far out)
            yield f"{name} far|float64", name, far, "float64"


def record_all(L) -> dict:
    recorded = {f"{name}|{d}": _run(L, f, d) for name, f in CASES.items()
                for d in ("float32", "float64")}
    recorded.update({f"node: {name}": f(L).grad_fn.name() for name, f in NODES.items()})
    recorded.update({key: _no_gradient(L, name, values, d)
                     for key, name, values, d in _no_gradient_keys()})
    recorded.update({name: _other(L, f) for name, f in OTHERS.items()})
    return recorded


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}
KEYS = [f"{name}|{d}" for name in CASES for d in ("float32", "float64")]
NO_GRADIENT_KEYS = {key: (name, values, d) for key, name, values, d in _no_gradient_keys()}


def test_every_case_is_recorded():
    assert set(RECORDED) == (set(KEYS) | set(NO_GRADIENT_KEYS) | set(OTHERS)
                             | {f"node: {name}" for name in NODES})


@pytest.mark.parametrize("name", sorted(NODES))
def test_node_names_as_pytorch(name):
    assert NODES[name](t).grad_fn.name() == RECORDED[f"node: {name}"]


# PyTorch's float64 J0, J1, Y0, Y1 err by up to ~4e-7 relative between x = 2.5 and 8 (its
# rational fits there), where symgrad's agree with mpmath to ~1e-14 (test_accuracy_against_
# mpmath); its float32 kernels lose ~3e-5 at x = 40 to the phase of the Hankel expansion
ORDINARY_NAMES = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")
LOOSER = {"float64": 1e-6, "float32": 5e-5}
# PyTorch's airy_ai errs by up to 3e-6 absolute (7e-5 relative) between x = -2.1 and -3.3, and
# by ~1e-8 down to -8; symgrad's agree with mpmath to ~1e-13 there
AIRY_LOOSER = 1e-4


def _close(got, expected, dtype, name="", gradient=False):
    # float32: a few ulps (PyTorch's float32 kernels, symgrad's float64 ones rounded);
    # float64: about 1e-13 relative
    rtol = 5e-6 if dtype in ("float32", "float16") else 2e-12
    if name.split(" ")[0] in ORDINARY_NAMES:
        rtol = LOOSER.get(dtype, rtol)
    if name.startswith("airy_ai"):
        rtol = AIRY_LOOSER
    if "polynomial" in name:
        # the recurrences and trigonometric forms round differently (PyTorch's float32 ones in
        # float32): a few ulps of the terms, near a zero of the polynomial too
        rtol = 1e-12 if dtype == "float64" else 5e-5
        np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                                   np.asarray(expected, dtype=np.float64), rtol=rtol,
                                   atol=1e-13 if dtype == "float64" else 1e-5, equal_nan=True)
        return
    if dtype == "float16":
        rtol = 1e-3
    expected = np.asarray(expected, dtype=np.float64)
    atol = 1e-300
    if gradient and dtype == "float32":
        # the rules of i0e, i1e (and i1 for large x) subtract nearly equal float32 values
        # (i1e - i0e): a few ulps of the terms, PyTorch's float32 kernels' and symgrad's
        finite = np.abs(expected[np.isfinite(expected)])
        atol = 1e-6 * float(finite.max(initial=0.0))
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), expected, rtol=rtol,
                               atol=atol, equal_nan=True)


@pytest.mark.parametrize("key", KEYS)
def test_values_gradients_and_nodes_as_pytorch(key):
    name, dtype = key.split("|")
    got, expected = _run(t, CASES[name], dtype), RECORDED[key]
    assert got[0] == expected[0] == "value", (got, expected)
    _close(got[1], expected[1], dtype, name)
    assert got[2:4] == expected[2:4]
    for g, e in zip(got[4], expected[4], strict=True):
        _close(g, e, dtype, name, gradient=True)


@pytest.mark.parametrize("key", sorted(NO_GRADIENT_KEYS))
def test_functions_without_gradient_as_pytorch(key):
    name, values, dtype = NO_GRADIENT_KEYS[key]
    got, expected = _no_gradient(t, name, values, dtype), RECORDED[key]
    assert got[0] == expected[0] == "value", (got, expected)
    assert got[2:] == expected[2:]  # (dtype, requires_grad False, no grad_fn)
    _close(got[1], expected[1], dtype, name)


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_other_inputs_as_pytorch(name):
    got, expected = _other(t, OTHERS[name]), RECORDED[name]
    assert got[0] == expected[0], (got, expected)
    if got[0] == "error":
        assert got[1:] == expected[1:]
    elif got[1] is not None:
        assert got[2] == expected[2]
        _close(got[1], expected[1], got[2], name)


def test_signed_zeros_as_pytorch():
    # (the recorded values compare equal whatever the sign of a zero)
    x = t.tensor([0.0, -0.0], dtype=t.float64)
    signs = {name: np.signbit(getattr(t.special, name)(x).numpy()).tolist()
             for name in ("i1", "i1e", "bessel_j1", "modified_bessel_i1")}
    assert signs == {"i1": [False, False], "i1e": [False, False], "bessel_j1": [False, True],
                     "modified_bessel_i1": [False, False]}


def test_bad_input_changes_nothing():
    x = t.tensor([1, 2])
    with pytest.raises(RuntimeError):
        x.i0_()
    assert x.tolist() == [1, 2] and x.dtype is t.int64


# ------------------------------------------------------------------ values against mpmath

def _mpmath_references():
    import mpmath

    def scaled(f, sign):
        return lambda x: f(x) * mpmath.exp(sign * abs(x))

    return {
        "i0": lambda x: mpmath.besseli(0, x), "i1": lambda x: mpmath.besseli(1, x),
        "i0e": scaled(lambda x: mpmath.besseli(0, x), -1),
        "i1e": scaled(lambda x: mpmath.besseli(1, x), -1),
        "erfcx": lambda x: mpmath.erfc(x) * mpmath.exp(x * x),
        "bessel_j0": lambda x: mpmath.besselj(0, x), "bessel_j1": lambda x: mpmath.besselj(1, x),
        "bessel_y0": lambda x: mpmath.bessely(0, x), "bessel_y1": lambda x: mpmath.bessely(1, x),
        "modified_bessel_k0": lambda x: mpmath.besselk(0, x),
        "modified_bessel_k1": lambda x: mpmath.besselk(1, x),
        "scaled_modified_bessel_k0": scaled(lambda x: mpmath.besselk(0, x), 1),
        "scaled_modified_bessel_k1": scaled(lambda x: mpmath.besselk(1, x), 1),
        "spherical_bessel_j0": lambda x: mpmath.sin(x) / x,
        "airy_ai": mpmath.airyai,
    }


# each function's points: every method's range and the switches between them, both signs where
# the function is defined there; J and Y away from their zeros (there the absolute error, ~1e-16,
# is what is kept)
_GRID = np.concatenate([[1e-300, 1e-12, 1e-5, 0.01, 0.3, 0.99, 1.0, 1.01, 1.99, 2.0, 2.01, 4.9,
                         5.1, 7.3, 12.5, 24.9, 25.1, 29.9, 30.1, 55.0, 140.0, 650.0, 1e4, 1e6],
                        np.linspace(0.05, 60.0, 97)])
EVEN_OR_ODD = ("i0", "i1", "i0e", "i1e", "bessel_j0", "bessel_j1", "spherical_bessel_j0")


@pytest.mark.parametrize("name", sorted(_mpmath_references()))
def test_accuracy_against_mpmath(name):
    import mpmath

    exact = _mpmath_references()[name]
    x = np.concatenate([_GRID, -_GRID]) if name in EVEN_OR_ODD else _GRID
    if name == "erfcx":
        x = np.concatenate([_GRID, -_GRID[_GRID < 26]])
        far = t.special.erfcx(t.tensor([1e10, 1e100, 1e300], dtype=t.float64)).numpy()
        np.testing.assert_allclose(far * [1e10, 1e100, 1e300] * math.sqrt(math.pi), 1.0,
                                   rtol=1e-15)  # (1/(x√π) (1 - 1/(2x²) ...))
    if "_k" in name:
        x = x[::3]  # (mpmath's K of order one takes ~0.2 s between 30 and 60)
    if name in ("i0", "i1"):
        x = x[np.abs(x) < 700]  # (beyond, inf, where e^x overflows, as PyTorch)
    if name == "airy_ai":  # (the series, K_1/3 beyond 1, J_±1/3 to -12, the expansion)
        x = np.concatenate([np.linspace(-40.0, 100.0, 281), [-12.01, -11.99, -3.01, -2.99,
                                                             0.99, 1.01, 1e-300]])
    got = getattr(t.special, name)(t.tensor(x, dtype=t.float64)).numpy()
    with mpmath.workdps(40):
        ref = np.array([float(exact(mpmath.mpf(float(v)))) for v in x])
    keep = np.abs(ref) > 1e-300
    if name in ORDINARY_NAMES or name == "airy_ai":  # (relative error near a zero)
        keep &= np.abs(ref) > 1e-3
    # (Ai below -12 oscillates with the phase (2/3)|x|^(3/2), rounded: absolute 1e-14)
    atol = 1e-14 if name == "airy_ai" else 0.0
    np.testing.assert_allclose(got[keep], ref[keep], rtol=2e-14, atol=atol)


def test_zeta_accuracy_against_mpmath():
    import mpmath

    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(1.001, 4.0, 12), rng.uniform(4.0, 60.0, 12),
                        [1 + 1e-10, 1 + 1e-6, 2.0, 3.0, 5.0, 7.0, 400.0]])
    q = np.concatenate([rng.uniform(1e-3, 3.0, 12), 10 ** rng.uniform(-3, 5, 12),
                        [1.0, 1.0, 1e-5, 1e7, -0.5, -20.25, 2.0]])
    got = t.special.zeta(t.tensor(x, dtype=t.float64), t.tensor(q, dtype=t.float64)).numpy()
    with mpmath.workdps(300):  # (mpmath's zeta needs the digits where q^-x is tiny)
        ref = np.array([float(mpmath.zeta(a, b)) for a, b in zip(x, q, strict=True)])
    np.testing.assert_allclose(got, ref, rtol=2e-14, atol=0)


def _polynomial_references():
    import mpmath

    def v(n, x):  # V_n(x) = U_n(x) - U_(n-1)(x)
        return mpmath.chebyu(n, x) - (mpmath.chebyu(n - 1, x) if n else 0)

    def w(n, x):  # W_n(x) = U_n(x) + U_(n-1)(x)
        return mpmath.chebyu(n, x) + (mpmath.chebyu(n - 1, x) if n else 0)

    return {
        "chebyshev_polynomial_t": mpmath.chebyt, "chebyshev_polynomial_u": mpmath.chebyu,
        "chebyshev_polynomial_v": v, "chebyshev_polynomial_w": w,
        "shifted_chebyshev_polynomial_t": lambda n, x: mpmath.chebyt(n, 2 * x - 1),
        "shifted_chebyshev_polynomial_u": lambda n, x: mpmath.chebyu(n, 2 * x - 1),
        "shifted_chebyshev_polynomial_v": lambda n, x: v(n, 2 * x - 1),
        "shifted_chebyshev_polynomial_w": lambda n, x: w(n, 2 * x - 1),
        "hermite_polynomial_h": mpmath.hermite,
        "hermite_polynomial_he": lambda n, x: mpmath.hermite(n, x / mpmath.sqrt(2))
        * mpmath.mpf(2) ** (-mpmath.mpf(n) / 2),
        "laguerre_polynomial_l": lambda n, x: mpmath.fsum(  # (Σ C(n, k) (-x)^k / k!)
            mpmath.binomial(n, k) * (-x) ** k / mpmath.factorial(k) for k in range(n + 1)),
        "legendre_polynomial_p": mpmath.legendre,
    }


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_against_mpmath(name):
    import mpmath

    x = np.array([-2.5, -1.0, -0.83, -0.4, 0.0, 0.15, 0.45, 0.77, 0.95, 1.0, 1.3, 4.0])
    n = np.array([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 17, 40])
    got = getattr(t.special, name)(t.tensor(x[:, None], dtype=t.float64),
                                   t.tensor(n, dtype=t.float64)).numpy()
    exact = _polynomial_references()[name]
    with mpmath.workdps(40):
        ref = np.array([[float(exact(int(k), mpmath.mpf(float(v)))) for k in n] for v in x])
    # relative to the size of the terms: at most the values of the polynomial's degree at |x|
    scale = np.maximum(np.abs(ref), 1.0)
    assert np.all(np.abs(got - ref) <= 1e-13 * scale * np.maximum(n, 1)), name


def test_polynomials_of_nan_are_nan():
    # (PyTorch's U, W, shifted T, Laguerre and Legendre return uninitialized values at nan for
    # some degrees: symgrad returns nan, and 1 for degree 0)
    x = t.tensor([[NAN]], dtype=t.float64)
    n = t.tensor([0.0, 1.0, 2.0, 9.0], dtype=t.float64)
    for name in POLYNOMIALS:
        got = getattr(t.special, name)(x, n).numpy()
        assert np.array_equal(got, [[1.0, NAN, NAN, NAN]], equal_nan=True), name


def test_float32_results_are_the_float64_values_rounded():
    x = np.linspace(-20.0, 40.0, 601).astype(np.float32)
    for name in ("i0e", "i1e", "erfcx", "bessel_j0", "bessel_y1", "scaled_modified_bessel_k0"):
        got32 = getattr(t.special, name)(t.tensor(x)).numpy()
        got64 = getattr(t.special, name)(t.tensor(x, dtype=t.float64)).numpy()
        with np.errstate(over="ignore"):  # (erfcx below -9.4 is inf in float32)
            np.testing.assert_array_equal(got32, got64.astype(np.float32))


# ------------------------------------------------------------------ the rules, checked

SMOOTH = {  # (function, leaves' values where the rules are smooth)
    "i0": (lambda x: t.special.i0(x), ([-3.0, -0.4, 0.7, 5.0, 31.0],)),
    "i1": (lambda x: t.special.i1(x), ([-3.0, -0.4, 0.7, 5.0, 31.0],)),
    "i0e": (lambda x: t.special.i0e(x), ([-3.0, -0.4, 0.7, 5.0, 31.0],)),
    "i1e": (lambda x: t.special.i1e(x), ([-3.0, -0.4, 0.7, 5.0, 31.0],)),
    "erfcx": (lambda x: t.special.erfcx(x), ([-3.0, -0.4, 0.7, 5.0, 7.5],)),
    "zeta": (lambda q: t.special.zeta(t.tensor([2.0, 3.5, 1.5, 7.0], dtype=t.float64), q),
             ([0.5, 2.0, 7.0, -2.5],)),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_the_rules_agree_with_differences_and_sympy(name):
    f, values = SMOOTH[name]
    leaves = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
    assert gradcheck(f, tuple(leaves))
    assert gradgradcheck(f, tuple(leaves))
    out = f(*leaves)
    weights = t.arange(1.0, 1.0 + out.numel(), dtype=t.float64)
    symbolic.check((out * weights).sum(), inputs=leaves)  # (raises GradientMismatch)


def test_the_gradients_at_zero_as_pytorch():
    # i1's and i1e's rules divide by x: PyTorch gives 1/2 at 0; i0e's kink gives 0 there
    x = t.zeros(3, dtype=t.float64, requires_grad=True)
    grads = [t.autograd.grad(f(x).sum(), x)[0].tolist()
             for f in (t.special.i1, t.special.i1e, t.special.i0e, t.special.i0)]
    assert grads == [[0.5] * 3, [0.5] * 3, [0.0] * 3, [0.0] * 3]


def _scaled(rule):
    return lambda xp, g, *rest, **params: 1.01 * rule(xp, g, *rest, **params)


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_a_wrong_rule_is_caught(name, monkeypatch):
    op = getattr(ops.elementwise, name)
    monkeypatch.setattr(op, "vjp", tuple(_scaled(rule) for rule in op.vjp))
    f, values = SMOOTH[name]
    leaves = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
    with pytest.raises(symbolic.GradientMismatch):
        symbolic.check(f(*leaves).sum(), inputs=leaves)
    with pytest.raises(Exception, match="Jacobian mismatch"):
        gradcheck(f, tuple(leaves))
