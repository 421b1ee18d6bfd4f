"""``nn.utils.parametrizations.orthogonal`` against PyTorch 2.13: for each map
(``matrix_exp``, ``cayley``, ``householder``), with and without the dynamic trivialization, on
square, tall and wide weights, the parametrized weight, its node, the gradient of a weighted
loss with respect to the original, buffers and errors, recorded by ``python
tools/record_torch_cases.py tests/test_orthogonal.py`` into
``tests/data/torch_orthogonal.json``; this module never imports torch.

A tall or wide weight with the trivialization completes its base with random columns, which
symgrad's generator draws differently from PyTorch's: those cases compare the weight (which
does not depend on them), not the gradient.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from torch_cases import first_sentence

import symgrad as t
from symgrad import symbolic
from symgrad.autograd.gradcheck import gradcheck

DATA = pathlib.Path(__file__).parent / "data" / "torch_orthogonal.json"


def _linear(L, rows, cols):
    lin = L.nn.Linear(cols, rows, dtype=L.float64)
    with L.no_grad():
        lin.weight.copy_(L.tensor([[0.1 * (i + 1) * (j - 1.3) + (i == j) for j in range(cols)]
                                   for i in range(rows)], dtype=L.float64))
        lin.bias.zero_()
    return lin


def _orthogonal(L):
    return L.nn.utils.parametrizations.orthogonal


def _case(rows, cols, orthogonal_map, trivialization, gradients=True):
    def run(L):
        lin = _orthogonal(L)(_linear(L, rows, cols), orthogonal_map=orthogonal_map,
                             use_trivialization=trivialization)
        weight = lin.weight
        out = {"weight": weight.detach().tolist(), "node": weight.grad_fn.name(),
               "class": type(lin.parametrizations.weight[0]).__name__,
               "names": [name for name, _ in lin.named_parameters()],
               "buffers": [name for name, _ in lin.named_buffers()]}
        if gradients:
            loss = (weight * L.arange(1.0, 1.0 + weight.numel(), dtype=L.float64)
                    .reshape(weight.shape)).sum()
            original = lin.parametrizations.weight.original
            out["grad"] = L.autograd.grad(loss, original)[0].tolist()
        return out
    return run


def _assigned(L):
    """Assigning an orthogonal matrix to the parametrized weight sets the base."""
    lin = _orthogonal(L)(_linear(L, 3, 3))
    with L.no_grad():
        lin.weight = L.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
                              dtype=L.float64)
    return {"weight": lin.weight.tolist(),
            "original": lin.parametrizations.weight.original.tolist()}


def _steps(L):
    """Three SGD steps on an orthogonal (matrix_exp) layer: the weight stays orthogonal."""
    lin = _orthogonal(L)(_linear(L, 3, 3))
    opt = L.optim.SGD(lin.parameters(), lr=0.1)
    x = L.tensor([[1.0, -2.0, 0.5], [0.3, 0.2, -1.0]], dtype=L.float64)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = (lin(x) ** 3).sum()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "weight": lin.weight.detach().tolist()}


CASES = {
    **{f"{rows}x{cols} {m} trivialization={triv}": _case(rows, cols, m, triv,
                                                        gradients=rows == cols or not triv)
       for rows, cols in ((3, 3), (4, 3), (3, 5))
       for m in (None, "matrix_exp", "cayley", "householder") for triv in (True, False)},
    "assigned": _assigned,
    "sgd steps": _steps,
    "a bad map": lambda L: _orthogonal(L)(_linear(L, 3, 3), orthogonal_map="qr"),
    "a vector": lambda L: _orthogonal(L)(L.nn.Linear(3, 3), "bias"),
    "a missing name": lambda L: _orthogonal(L)(L.nn.Linear(3, 3), "kernel"),
    "assigning without trivialization": lambda L: setattr(
        _orthogonal(L)(_linear(L, 3, 3), use_trivialization=False), "weight",
        L.eye(3, dtype=L.float64)),
    "assigning a shape": lambda L: setattr(_orthogonal(L)(_linear(L, 3, 3)), "weight",
                                           L.eye(2, dtype=L.float64)),
}


def _run(L, f):
    try:
        L.manual_seed(0)
        return ["value", f(L)]
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        return ["error", *first_sentence(e)]


def record_all(L) -> dict:
    return {name: _run(L, f) for name, f in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


def _close(got, expected):
    if isinstance(expected, dict):
        assert got.keys() == expected.keys()
        for key in expected:
            _close(got[key], expected[key])
    elif isinstance(expected, list) and expected and isinstance(expected[0], str):
        assert got == expected
    elif isinstance(expected, str):
        assert got == expected
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    got, expected = _run(t, CASES[name]), RECORDED[name]
    assert got[0] == expected[0], (got, expected)
    if got[0] == "error":
        assert got == expected
    else:
        _close(got[1], expected[1])


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley"])
def test_gradients_agree_with_differences_and_sympy(orthogonal_map):
    """The parametrized weight as a function of its original, checked by differences and by
    sympy (matrix_exp has no sympy form: differences only). (The householder map reads the
    sign of the original's diagonal through ``int()``, a step at the ±1 it holds, where
    differences mean nothing; householder_product's own rule is checked in
    test_linalg_factorizations.py.)"""
    lin = _orthogonal(t)(_linear(t, 3, 3), orthogonal_map=orthogonal_map)
    parametrization = lin.parametrizations.weight[0]
    original = (lin.parametrizations.weight.original.detach()
                + t.tensor([[0.0, 0.1, 0.2], [0.3, 0.0, -0.4], [0.5, -0.6, 0.0]],
                           dtype=t.float64)).requires_grad_()
    assert gradcheck(lambda x: parametrization(x), (original,))
    if orthogonal_map != "matrix_exp":
        weights = t.arange(1.0, 10.0, dtype=t.float64).reshape(3, 3)
        symbolic.check((parametrization(original) * weights).sum(), inputs=[original])
