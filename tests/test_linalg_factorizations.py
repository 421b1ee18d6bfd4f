"""The LU factorization (``linalg.lu_factor``/``lu_factor_ex``/``lu``/``lu_solve``, the
deprecated ``lu``/``lu_solve`` and ``lu_unpack``), the ``_ex`` variants (``inv_ex``,
``cholesky_ex``, ``solve_ex``), ``cholesky_solve``/``cholesky_inverse``,
``triangular_solve``, ``linalg.solve(left=False)``, ``tensorinv`` and ``tensorsolve`` against
PyTorch 2.13: values, dtypes, nodes and the gradients of a weighted sum, or the error's type
and first sentence, recorded by ``python tools/record_torch_cases.py
tests/test_linalg_factorizations.py`` into ``tests/data/torch_linalg_factorizations.json``;
this module never imports torch. symgrad's LU is its own (partial pivoting as LAPACK's
``getrf``), so its pivots and factors are compared with MKL's exactly, singular matrices
included. The rules are also checked against central differences and sympy (``lu_solve``
and ``cholesky_solve`` lower to triangular solves), and wrong rules are shown to be caught.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from torch_cases import assert_weighted_same, weighted_outcome

import symgrad as t
from symgrad import ops, symbolic
from symgrad.autograd.gradcheck import gradcheck

DATA = pathlib.Path(__file__).parent / "data" / "torch_linalg_factorizations.json"


def _leaves(L):
    """A (3x3), W (4x3), B (3x2), float64, requiring grad."""
    return (L.tensor([[1.0, 2.0, 0.5], [3.0, 1.0, -1.0], [0.5, 2.0, 4.0]], dtype=L.float64,
                     requires_grad=True),
            L.tensor([[2.0, 0.5, 0.3], [1.0, 3.0, -0.7], [0.2, -1.0, 1.5], [4.0, 0.1, -0.3]],
                     dtype=L.float64, requires_grad=True),
            L.tensor([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]], dtype=L.float64, requires_grad=True))


def _spd_factor(L, A, upper=False):
    return L.linalg.cholesky(A @ A.mT + L.eye(3, dtype=L.float64), upper=upper)


SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
NOT_PD = [[1.0, 2.0], [2.0, 1.0]]

# name -> f(L, A, W, B)
CASES = {
    "lu_factor LU": lambda L, A, W, B: L.linalg.lu_factor(A)[0],
    "lu_factor pivots": lambda L, A, W, B: L.linalg.lu_factor(A)[1],
    "lu_factor tall": lambda L, A, W, B: L.linalg.lu_factor(W)[0],
    "lu_factor wide": lambda L, A, W, B: L.linalg.lu_factor(W.mT)[0],
    "lu_factor batched": lambda L, A, W, B: L.linalg.lu_factor(L.stack([A, A.mT]))[0],
    "lu_factor singular": lambda L, A, W, B: L.linalg.lu_factor(L.tensor(SINGULAR)),
    "lu_factor batch singular": lambda L, A, W, B: L.linalg.lu_factor(
        L.stack([L.eye(2), L.tensor(SINGULAR)])),
    "lu_factor no pivot": lambda L, A, W, B: L.linalg.lu_factor(A, pivot=False),
    "lu_factor int64": lambda L, A, W, B: L.linalg.lu_factor(L.ones(2, 2, dtype=L.long)),
    "lu_factor a vector": lambda L, A, W, B: L.linalg.lu_factor(L.ones(2)),
    "lu_factor empty": lambda L, A, W, B: L.linalg.lu_factor(L.ones(2, 0, 3))[1],
    "lu empty P": lambda L, A, W, B: L.linalg.lu(L.ones(3, 0)).P,
    "lu_solve empty": lambda L, A, W, B: L.linalg.lu_solve(*L.linalg.lu_factor(L.ones(2, 0, 0)),
                                                           L.ones(2, 0, 1)),
    "lu_factor_ex info": lambda L, A, W, B: L.linalg.lu_factor_ex(L.tensor(SINGULAR)).info,
    "lu_factor_ex LU singular": lambda L, A, W, B: L.linalg.lu_factor_ex(L.tensor(SINGULAR)).LU,
    "lu_factor_ex zeros": lambda L, A, W, B: L.linalg.lu_factor_ex(L.zeros(2, 2)).pivots,
    "lu_factor_ex check_errors": lambda L, A, W, B: L.linalg.lu_factor_ex(
        L.tensor(SINGULAR), check_errors=True),
    "lu L": lambda L, A, W, B: L.linalg.lu(A).L,
    "lu U": lambda L, A, W, B: L.linalg.lu(A).U,
    "lu P": lambda L, A, W, B: L.linalg.lu(A).P,
    "lu tall L": lambda L, A, W, B: L.linalg.lu(W).L,
    "lu tall U": lambda L, A, W, B: L.linalg.lu(W).U,
    "lu wide": lambda L, A, W, B: (lambda P, Lo, U: Lo.sum() + U.sum() * 2)(*L.linalg.lu(W.mT)),
    "lu product": lambda L, A, W, B: (lambda P, Lo, U: P @ Lo @ U)(*L.linalg.lu(W)),
    "lu_solve": lambda L, A, W, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B),
    "lu_solve adjoint": lambda L, A, W, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B,
                                                             adjoint=True),
    "lu_solve right": lambda L, A, W, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B.mT,
                                                           left=False),
    "lu_solve right adjoint": lambda L, A, W, B: L.linalg.lu_solve(
        *L.linalg.lu_factor(A), B.mT, left=False, adjoint=True),
    "lu_solve of a detached factor": lambda L, A, W, B: L.linalg.lu_solve(
        *L.linalg.lu_factor(A.detach()), B),
    "lu_solve int64 pivots": lambda L, A, W, B: L.linalg.lu_solve(
        L.linalg.lu_factor(A)[0], L.ones(3, dtype=L.long), B),
    "lu_solve a vector": lambda L, A, W, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B[:, 0]),
    "lu_solve shapes": lambda L, A, W, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), W),
    "lu_solve dtypes": lambda L, A, W, B: L.linalg.lu_solve(*L.linalg.lu_factor(A), B.float()),
    "lu_solve not square": lambda L, A, W, B: L.linalg.lu_solve(
        W, L.ones(3, dtype=L.int32), B),
    "torch.lu": lambda L, A, W, B: L.lu(A)[0],
    "torch.lu infos": lambda L, A, W, B: L.lu(L.tensor(SINGULAR), get_infos=True)[2],
    "Tensor.lu": lambda L, A, W, B: A.lu()[1],
    "torch.lu_solve": lambda L, A, W, B: L.lu_solve(B, *L.lu(A)),
    "Tensor.lu_solve": lambda L, A, W, B: B.lu_solve(*L.linalg.lu_factor(A)),
    "lu_unpack L": lambda L, A, W, B: L.lu_unpack(*L.linalg.lu_factor(A)).L,
    "lu_unpack U": lambda L, A, W, B: L.lu_unpack(*L.linalg.lu_factor(W)).U,
    "lu_unpack P": lambda L, A, W, B: L.lu_unpack(*L.linalg.lu_factor(W)).P,
    "lu_unpack tall L": lambda L, A, W, B: L.lu_unpack(*L.linalg.lu_factor(W)).L,
    "lu_unpack wide U": lambda L, A, W, B: L.lu_unpack(*L.linalg.lu_factor(W.mT)).U,
    "lu_unpack no data": lambda L, A, W, B: L.lu_unpack(*L.linalg.lu_factor(A),
                                                        unpack_data=False).P,
    "lu_unpack no pivots": lambda L, A, W, B: L.lu_unpack(*L.linalg.lu_factor(A),
                                                          unpack_pivots=False).P,
    "lu_unpack int64 pivots": lambda L, A, W, B: L.lu_unpack(A, L.ones(3, dtype=L.long)),
    "inv_ex": lambda L, A, W, B: L.linalg.inv_ex(A).inverse,
    "inv_ex info": lambda L, A, W, B: L.linalg.inv_ex(A).info,
    "inv_ex singular": lambda L, A, W, B: L.linalg.inv_ex(L.tensor(SINGULAR)).inverse,
    "inv_ex singular info": lambda L, A, W, B: L.linalg.inv_ex(
        L.stack([L.eye(2), L.tensor(SINGULAR), L.zeros(2, 2)])).info,
    "inv_ex check_errors": lambda L, A, W, B: L.linalg.inv_ex(L.zeros(2, 2), check_errors=True),
    "inv_ex int64": lambda L, A, W, B: L.linalg.inv_ex(L.ones(2, 2, dtype=L.long)),
    "cholesky_ex": lambda L, A, W, B: L.linalg.cholesky_ex(A @ A.mT + 1).L,
    "cholesky_ex upper": lambda L, A, W, B: L.linalg.cholesky_ex(A @ A.mT + 1, upper=True).L,
    "cholesky_ex failed": lambda L, A, W, B: L.linalg.cholesky_ex(L.tensor(NOT_PD)).L,
    "cholesky_ex failed info": lambda L, A, W, B: L.linalg.cholesky_ex(
        L.stack([L.eye(2), -L.eye(2), L.tensor(NOT_PD)])).info,
    "cholesky_ex batch failed": lambda L, A, W, B: L.linalg.cholesky_ex(
        L.stack([L.eye(2), -L.eye(2)])).L,
    "cholesky_ex check_errors": lambda L, A, W, B: L.linalg.cholesky_ex(L.tensor(NOT_PD),
                                                                        check_errors=True),
    "solve_ex": lambda L, A, W, B: L.linalg.solve_ex(A, B).result,
    "solve_ex info": lambda L, A, W, B: L.linalg.solve_ex(A, B).info,
    "solve_ex singular": lambda L, A, W, B: L.linalg.solve_ex(L.tensor(SINGULAR), L.ones(2)),
    "solve_ex right": lambda L, A, W, B: L.linalg.solve_ex(A, B.mT, left=False).result,
    "solve_ex check_errors": lambda L, A, W, B: L.linalg.solve_ex(
        L.tensor(SINGULAR), L.ones(2), check_errors=True),
    "solve right": lambda L, A, W, B: L.linalg.solve(A, B.mT, left=False),
    "solve right a vector": lambda L, A, W, B: L.linalg.solve(A, B[:, 0], left=False),
    "solve right shapes": lambda L, A, W, B: L.linalg.solve(A, B, left=False),
    "cholesky_solve": lambda L, A, W, B: L.cholesky_solve(B, _spd_factor(L, A)),
    "cholesky_solve upper": lambda L, A, W, B: L.cholesky_solve(B, _spd_factor(L, A, True),
                                                                upper=True),
    "cholesky_solve a leaf factor": lambda L, A, W, B: L.cholesky_solve(B, L.tril(A) + 3),
    "cholesky_solve reads the triangle": lambda L, A, W, B: L.cholesky_solve(B.detach(), A + 3),
    "Tensor.cholesky_solve": lambda L, A, W, B: B.cholesky_solve(L.tril(A) + 3),
    "cholesky_solve batched": lambda L, A, W, B: L.cholesky_solve(L.stack([B, B * 2]),
                                                                  L.tril(A) + 3),
    "cholesky_solve dtypes": lambda L, A, W, B: L.cholesky_solve(B.float(), A),
    "cholesky_solve a vector": lambda L, A, W, B: L.cholesky_solve(B[:, 0], A),
    "cholesky_solve shapes": lambda L, A, W, B: L.cholesky_solve(W, A),
    "cholesky_solve int64": lambda L, A, W, B: L.cholesky_solve(L.ones(2, 1, dtype=L.long),
                                                                L.ones(2, 2, dtype=L.long)),
    "cholesky_inverse": lambda L, A, W, B: L.cholesky_inverse(L.tril(A) + 3),
    "cholesky_inverse upper": lambda L, A, W, B: L.cholesky_inverse(L.triu(A) + 3, upper=True),
    "Tensor.cholesky_inverse": lambda L, A, W, B: _spd_factor(L, A).cholesky_inverse(),
    "cholesky_inverse int64": lambda L, A, W, B: L.cholesky_inverse(L.ones(2, 2, dtype=L.long)),
    "cholesky_inverse a vector": lambda L, A, W, B: L.cholesky_inverse(L.ones(2)),
    "triangular_solve": lambda L, A, W, B: L.triangular_solve(B, A).solution,
    "triangular_solve lower transposed": lambda L, A, W, B: L.triangular_solve(
        B, A, upper=False, transpose=True).solution,
    "triangular_solve unitriangular": lambda L, A, W, B: B.triangular_solve(
        A, unitriangular=True)[0],
    "triangular_solve copy": lambda L, A, W, B: L.triangular_solve(B, A).cloned_coefficient,
    "householder_product": lambda L, A, W, B: L.linalg.householder_product(W, W[0, :2] ** 2),
    "householder_product square": lambda L, A, W, B: L.linalg.householder_product(A, A[0]),
    "householder_product batched": lambda L, A, W, B: L.linalg.householder_product(
        L.stack([W, W * 0.5]), L.stack([W[1, :1], W[2, :1]])),
    "householder_product no reflector": lambda L, A, W, B: L.linalg.householder_product(
        W, W[0, :0]),
    "householder_product of geqrf": lambda L, A, W, B: L.linalg.householder_product(
        *L.geqrf(W.detach())),
    "orgqr": lambda L, A, W, B: L.orgqr(W, W[1, :3]),
    "Tensor.orgqr": lambda L, A, W, B: W.orgqr(W[1, :1]),
    "householder_product wide": lambda L, A, W, B: L.linalg.householder_product(W.mT, A[0]),
    "householder_product more taus": lambda L, A, W, B: L.linalg.householder_product(
        W, W[0]),
    "householder_product tau dims": lambda L, A, W, B: L.linalg.householder_product(
        W, W[:1, :2]),
    "householder_product dtypes": lambda L, A, W, B: L.linalg.householder_product(
        W, W[0, :2].float()),
    "householder_product int64": lambda L, A, W, B: L.linalg.householder_product(
        L.ones(3, 2, dtype=L.long), L.ones(1, dtype=L.long)),
    "householder_product batch": lambda L, A, W, B: L.linalg.householder_product(
        L.stack([W, W]), W[:3, :1]),
    "geqrf a": lambda L, A, W, B: L.geqrf(W)[0],
    "geqrf tau": lambda L, A, W, B: W.geqrf().tau,
    "geqrf wide": lambda L, A, W, B: L.geqrf(W.mT).a,
    "geqrf backward": lambda L, A, W, B: L.autograd.grad(L.geqrf(W)[0].sum(), W),
    "geqrf int64": lambda L, A, W, B: L.geqrf(L.ones(2, 2, dtype=L.long)),
    "geqrf a vector": lambda L, A, W, B: L.geqrf(L.ones(2)),
    "tensorinv": lambda L, A, W, B: L.linalg.tensorinv(L.cat([W, W[:2] ** 2]).reshape(6, 2, 3),
                                                       ind=1),
    "tensorinv ind 0": lambda L, A, W, B: L.linalg.tensorinv(A, ind=0),
    "tensorinv not square": lambda L, A, W, B: L.linalg.tensorinv(W, ind=1),
    "tensorsolve": lambda L, A, W, B: L.linalg.tensorsolve(
        L.cat([W, W[:2] ** 2]).reshape(2, 3, 6), B),
    "tensorsolve dims": lambda L, A, W, B: L.linalg.tensorsolve(
        L.cat([W, W[:2] ** 2]).reshape(6, 2, 3), B.reshape(6), dims=(1,)),
}


def record_all(L) -> dict:
    return {name: weighted_outcome(L, f, _leaves(L)) for name, f in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert_weighted_same(weighted_outcome(t, CASES[name], _leaves(t)), RECORDED[name],
                         rtol=1e-11, atol=1e-12)


SMOOTH = {
    "lu_factor": lambda A, W, B: t.linalg.lu_factor(A)[0],
    "lu tall": lambda A, W, B: (lambda P, Lo, U: Lo * 2 + P @ Lo)(*t.linalg.lu(W)),
    "lu wide": lambda A, W, B: (lambda P, Lo, U: U * 2)(*t.linalg.lu(W.mT)),
    "lu_solve": lambda A, W, B: t.linalg.lu_solve(*t.linalg.lu_factor(A), B),
    "lu_solve adjoint right": lambda A, W, B: t.linalg.lu_solve(*t.linalg.lu_factor(A), B.mT,
                                                                left=False, adjoint=True),
    "lu_unpack": lambda A, W, B: (lambda P, Lo, U: Lo + U)(*t.lu_unpack(*t.linalg.lu_factor(A))),
    "solve right": lambda A, W, B: t.linalg.solve(A, B.mT, left=False),
    # (triangular factors: PyTorch's rule multiplies by the whole factor)
    "cholesky_solve": lambda A, W, B: t.cholesky_solve(B, t.tril(A + 3)),
    "cholesky_solve upper": lambda A, W, B: t.cholesky_solve(B, t.triu(A + 3), upper=True),
    "cholesky_inverse": lambda A, W, B: t.cholesky_inverse(t.tril(A + 3)),
    "inv_ex": lambda A, W, B: t.linalg.inv_ex(A).inverse,
    "householder_product": lambda A, W, B: t.linalg.householder_product(W, B[:, 0] * 0.7),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_gradients_agree_with_differences(name):
    assert gradcheck(SMOOTH[name], _leaves(t))


@pytest.mark.parametrize("name", ["lu_solve", "solve right", "cholesky_solve",
                                  "cholesky_solve upper", "cholesky_inverse", "inv_ex",
                                  "householder_product"])
def test_gradients_agree_with_sympy(name):
    """lu_solve lowers to triangular solves with the recorded pivots, the others to inverses:
    symbolic.check proves their rules (lu_factor's input enters as a constant factor)."""
    A, W, B = _leaves(t)
    out = SMOOTH[name](A, W, B) if name != "lu_solve" else t.linalg.lu_solve(
        *t.linalg.lu_factor(A.detach()), B)
    weights = t.arange(1.0, 1.0 + out.numel(), dtype=t.float64).reshape(out.shape)
    used = [B] if name == "lu_solve" else [A, B] if "solve" in name else [W, B] \
        if name == "householder_product" else [A]
    symbolic.check((out * weights).sum(), inputs=used)


def _scaled(rule, factor):
    return lambda *args, **kwargs: rule(*args, **kwargs) * factor


@pytest.mark.parametrize("op, name, index", [
    (ops.linalg.lu_factor, "lu_factor", 0), (ops.linalg.lu_u, "lu wide", 0),
    (ops.linalg.lu_solve, "lu_solve", 0), (ops.linalg.lu_solve, "lu_solve", 1),
    (ops.linalg.cholesky_solve, "cholesky_solve", 1),
    (ops.linalg.cholesky_inverse, "cholesky_inverse", 0),
    (ops.linalg.householder_product, "householder_product", 0),
    (ops.linalg.householder_product, "householder_product", 1)])
def test_a_wrong_rule_is_caught(monkeypatch, op, name, index):
    rules = list(op.vjp)
    rules[index] = _scaled(rules[index], 1.01)
    monkeypatch.setattr(op, "vjp", tuple(rules))
    with pytest.raises(Exception, match="(?i)jacobian|mismatch"):
        gradcheck(SMOOTH[name], _leaves(t))
