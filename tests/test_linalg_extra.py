"""``linalg.cholesky`` (and ``symgrad.cholesky``), ``linalg.solve_triangular``, ``slogdet``
(and ``symgrad.slogdet``/``logdet``), ``multi_dot``, ``vecdot``, ``matmul``, ``diagonal`` and
``vander`` against PyTorch 2.13: each case's value, dtype, node and the gradients of a weighted
sum, or its error's type and first sentence, recorded by ``python tools/record_torch_cases.py
tests/test_linalg_extra.py`` into ``tests/data/torch_linalg_extra.json``; this module never
imports torch. The gradients are also checked against central differences and sympy's
derivatives of the recorded graph (cholesky's through a symmetric positive definite A, the
inputs it is defined for), and a wrong cholesky rule is shown to be caught.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from torch_cases import assert_weighted_same, leaves_of, weighted_outcome

import symgrad as t
from symgrad import symbolic
from symgrad.autograd.gradcheck import gradcheck

DATA = pathlib.Path(__file__).parent / "data" / "torch_linalg_extra.json"


def _leaves(L):
    """A (3x3, well conditioned), B (3x2) and C (2x3), float64, requiring grad."""
    return (L.tensor([[2.0, 0.5, 0.3], [1.0, 3.0, -0.7], [0.2, -1.0, 1.5]], dtype=L.float64,
                     requires_grad=True),
            L.tensor([[1.0, 2.0], [0.5, -1.0], [2.0, 1.0]], dtype=L.float64, requires_grad=True),
            L.tensor([[1.0, 2.0, 0.5], [0.5, -1.0, 3.0]], dtype=L.float64, requires_grad=True))


_FLIP = [[-1.0], [1.0], [1.0]]  # (a row's sign flipped: a negative determinant)


def _spd(L, A):
    """A symmetric positive definite matrix made of ``A``."""
    return A @ A.mT + L.eye(3, dtype=L.float64)


# name -> f(L, A, B, C)
CASES = {
    "cholesky": lambda L, A, B, C: L.linalg.cholesky(_spd(L, A)),
    "cholesky upper": lambda L, A, B, C: L.linalg.cholesky(_spd(L, A), upper=True),
    "cholesky batched": lambda L, A, B, C: L.linalg.cholesky(
        L.stack([_spd(L, A), _spd(L, A) * 2])),
    "cholesky reads the lower triangle": lambda L, A, B, C: L.linalg.cholesky(
        L.tril(_spd(L, A)) + 5 * L.triu(A, 1)),
    "symgrad.cholesky": lambda L, A, B, C: L.cholesky(_spd(L, A)),
    "Tensor.cholesky upper": lambda L, A, B, C: _spd(L, A).cholesky(upper=True),
    "cholesky not positive definite": lambda L, A, B, C: L.linalg.cholesky(
        L.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "cholesky negative": lambda L, A, B, C: L.linalg.cholesky(L.tensor([[-1.0, 0.0],
                                                                        [0.0, 1.0]])),
    "cholesky a batch element": lambda L, A, B, C: L.linalg.cholesky(
        L.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    "cholesky not square": lambda L, A, B, C: L.linalg.cholesky(C),
    "cholesky int64": lambda L, A, B, C: L.linalg.cholesky(L.ones(2, 2, dtype=L.long)),
    "cholesky upper an int": lambda L, A, B, C: L.linalg.cholesky(_spd(L, A), upper=1),
    "solve_triangular lower": lambda L, A, B, C: L.linalg.solve_triangular(A, B, upper=False),
    "solve_triangular upper": lambda L, A, B, C: L.linalg.solve_triangular(A, B, upper=True),
    "solve_triangular unitriangular": lambda L, A, B, C: L.linalg.solve_triangular(
        A, B, upper=True, unitriangular=True),
    "solve_triangular right": lambda L, A, B, C: L.linalg.solve_triangular(A, C, upper=False,
                                                                           left=False),
    "solve_triangular right unitriangular": lambda L, A, B, C: L.linalg.solve_triangular(
        A, C, upper=True, left=False, unitriangular=True),
    "solve_triangular batched": lambda L, A, B, C: L.linalg.solve_triangular(
        A.expand(2, 3, 3), B, upper=False),
    "solve_triangular promotes": lambda L, A, B, C: L.linalg.solve_triangular(
        A, L.ones(3, 1), upper=True),
    "solve_triangular singular": lambda L, A, B, C: L.linalg.solve_triangular(
        L.tensor([[0.0, 1.0], [0.0, 2.0]]), L.ones(2, 1), upper=True).isinf(),
    "solve_triangular a vector": lambda L, A, B, C: L.linalg.solve_triangular(A, L.ones(3),
                                                                              upper=True),
    "solve_triangular shapes": lambda L, A, B, C: L.linalg.solve_triangular(A, C, upper=True),
    "solve_triangular right shapes": lambda L, A, B, C: L.linalg.solve_triangular(
        A, B, upper=True, left=False),
    "solve_triangular int64": lambda L, A, B, C: L.linalg.solve_triangular(
        L.ones(2, 2, dtype=L.long), L.ones(2, 2, dtype=L.long), upper=True),
    "solve_triangular not square": lambda L, A, B, C: L.linalg.solve_triangular(C, B, upper=True),
    "slogdet": lambda L, A, B, C: L.linalg.slogdet(A).logabsdet,
    "slogdet sign": lambda L, A, B, C: L.linalg.slogdet(A * L.tensor(_FLIP, dtype=L.float64))[0],
    "slogdet a negative determinant": lambda L, A, B, C: L.slogdet(
        A * L.tensor(_FLIP, dtype=L.float64))[1],
    "slogdet batched": lambda L, A, B, C: L.linalg.slogdet(A.expand(2, 3, 3) * 2)[1],
    "slogdet as a method": lambda L, A, B, C: A.slogdet().logabsdet,
    "slogdet singular": lambda L, A, B, C: L.linalg.slogdet(L.zeros(2, 2))[1],
    "slogdet not square": lambda L, A, B, C: L.linalg.slogdet(C),
    "slogdet int64": lambda L, A, B, C: L.linalg.slogdet(L.ones(2, 2, dtype=L.long)),
    "slogdet a vector": lambda L, A, B, C: L.linalg.slogdet(L.ones(2)),
    "logdet": lambda L, A, B, C: L.logdet(A),
    "logdet as a method": lambda L, A, B, C: (A @ A.mT).logdet(),
    "logdet of a negative determinant": lambda L, A, B, C: L.logdet(
        A * L.tensor(_FLIP, dtype=L.float64)).isnan(),
    "multi_dot of 2": lambda L, A, B, C: L.linalg.multi_dot([C, B]),
    "multi_dot of 3": lambda L, A, B, C: L.linalg.multi_dot([C, A, B]),
    "multi_dot of vectors": lambda L, A, B, C: L.linalg.multi_dot([A[0], B, C, A[:, 1]]),
    "multi_dot of 5": lambda L, A, B, C: L.linalg.multi_dot([B, C, A, B, C]),
    "multi_dot of int64": lambda L, A, B, C: L.linalg.multi_dot([L.ones(2, 2, dtype=L.long),
                                                                 L.ones(2, 2, dtype=L.long)]),
    "multi_dot of 1": lambda L, A, B, C: L.linalg.multi_dot([B]),
    "multi_dot 3-d": lambda L, A, B, C: L.linalg.multi_dot([L.ones(2, 2, 2), L.ones(2, 2)]),
    "multi_dot a vector inside": lambda L, A, B, C: L.linalg.multi_dot(
        [L.ones(2, 2), L.ones(2), L.ones(2, 2)]),
    "multi_dot shapes": lambda L, A, B, C: L.linalg.multi_dot([L.ones(2, 3), L.ones(2, 2)]),
    "multi_dot dtypes": lambda L, A, B, C: L.linalg.multi_dot(
        [L.ones(2, 2), L.ones(2, 2, dtype=L.float64)]),
    "vecdot": lambda L, A, B, C: L.linalg.vecdot(A, A[0]),
    "vecdot dim 0": lambda L, A, B, C: L.linalg.vecdot(B, B, dim=0),
    "vecdot dtypes": lambda L, A, B, C: L.linalg.vecdot(L.ones(2), L.ones(2, dtype=L.float64)),
    "vecdot int64": lambda L, A, B, C: L.linalg.vecdot(L.ones(2, dtype=L.long),
                                                       L.ones(2, dtype=L.long)),
    "linalg.matmul": lambda L, A, B, C: L.linalg.matmul(A, B),
    "linalg.diagonal": lambda L, A, B, C: L.linalg.diagonal(A, offset=1),
    "vander": lambda L, A, B, C: L.linalg.vander(A[0]),
    "vander N": lambda L, A, B, C: L.linalg.vander(A, N=4),
    "vander int64": lambda L, A, B, C: L.linalg.vander(L.tensor([1, 2, 3])),
    "vander N 1": lambda L, A, B, C: L.linalg.vander(A[0], N=1),
    "vander 0-d": lambda L, A, B, C: L.linalg.vander(L.tensor(2.0)),
    "vander bool": lambda L, A, B, C: L.linalg.vander(L.tensor([True, False])),
}


def record_all(L) -> dict:
    return {name: weighted_outcome(L, f, _leaves(L)) for name, f in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert_weighted_same(weighted_outcome(t, CASES[name], _leaves(t)), RECORDED[name],
                         rtol=1e-12, atol=1e-14)


SMOOTH = {
    "cholesky": lambda A, B, C: t.linalg.cholesky(_spd(t, A)),
    "cholesky upper": lambda A, B, C: t.linalg.cholesky(_spd(t, A) + B @ B.mT, upper=True),
    "solve_triangular": lambda A, B, C: t.linalg.solve_triangular(A, B, upper=False),
    "solve_triangular right unitriangular": lambda A, B, C: t.linalg.solve_triangular(
        A, C, upper=True, left=False, unitriangular=True),
    "slogdet": lambda A, B, C: t.linalg.slogdet(A).logabsdet,
    "logdet": lambda A, B, C: t.logdet(A @ A.mT + B @ B.mT),
    "multi_dot": lambda A, B, C: t.linalg.multi_dot([C, A, B]),
    "vecdot": lambda A, B, C: t.linalg.vecdot(A, B[:, 0]),
    "vander": lambda A, B, C: t.linalg.vander(A[1]),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_gradients_agree_with_differences_and_sympy(name):
    leaves = _leaves(t)
    assert gradcheck(SMOOTH[name], leaves)
    out = SMOOTH[name](*leaves)
    weights = t.arange(1.0, 1.0 + out.numel(), dtype=t.float64).reshape(out.shape)
    used = [x for x in leaves if any(x is y for y in leaves_of(out))]
    symbolic.check((out * weights).sum(), inputs=used)  # (raises GradientMismatch)
