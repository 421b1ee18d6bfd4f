"""``linalg.svd``/``svdvals``, ``eigh``/``eigvalsh``, ``qr``, ``pinv``, ``lstsq``,
``matrix_exp``, ``matrix_rank``, ``cond``, the matrix 2- and nuclear norms and the torch-level
``svd``, ``qr``, ``pinverse`` and ``matrix_exp`` against PyTorch 2.13: each case's value, dtype,
node and the gradients of a weighted sum, or its error's type and first sentence, recorded by
``python tools/record_torch_cases.py tests/test_linalg_decompositions.py`` into
``tests/data/torch_linalg_decompositions.json``; this module never imports torch.

Singular vectors and eigenvectors are defined up to a sign per vector, which LAPACKs choose
differently (PyTorch's MKL and numpy's OpenBLAS do), so the cases read them through
sign-invariant quantities (each vector times the sign of its first entry). The rules are also
checked against central differences and against sympy on closed forms (2x2 eigenvalues, the QR
of Gram-Schmidt, the exponential of a 2x2 matrix), and wrong rules are shown to be caught.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
import sympy
from torch_cases import assert_weighted_same, weighted_outcome

import symgrad as t
from symgrad import ops, symbolic
from symgrad.autograd.gradcheck import gradcheck, gradgradcheck

DATA = pathlib.Path(__file__).parent / "data" / "torch_linalg_decompositions.json"


def _leaves(L):
    """A (4x3), S (3x3 symmetric, distinct eigenvalues), B (4x2), float64, requiring grad."""
    return (L.tensor([[2.0, 0.5, 0.3], [1.0, 3.0, -0.7], [0.2, -1.0, 1.5], [0.4, 0.1, -0.3]],
                     dtype=L.float64, requires_grad=True),
            L.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, -0.2], [0.5, -0.2, 1.0]], dtype=L.float64,
                     requires_grad=True),
            L.tensor([[1.0, 2.0], [0.5, -1.0], [2.0, 1.0], [-1.0, 0.3]], dtype=L.float64,
                     requires_grad=True))


def _columns(U):
    """``U`` with each column's sign fixed by its first entry (sign-invariant)."""
    return U * U[..., :1, :].sign()


def _rows(Vh):
    return Vh * Vh[..., :, :1].sign()


# name -> f(L, A, S, B)
CASES = {
    "svd S": lambda L, A, S, B: L.linalg.svd(A)[1],
    "svd U reduced": lambda L, A, S, B: _columns(L.linalg.svd(A, full_matrices=False)[0]),
    "svd Vh reduced": lambda L, A, S, B: _rows(L.linalg.svd(A, full_matrices=False)[2]),
    "svd U full": lambda L, A, S, B: _columns(L.linalg.svd(A)[0][:, :3]),
    "svd Vh wide": lambda L, A, S, B: _rows(L.linalg.svd(A.mT, full_matrices=False)[2]),
    "svd U wide": lambda L, A, S, B: _columns(L.linalg.svd(A.mT)[0]),
    "svd all three": lambda L, A, S, B: (lambda U, s, Vh: _columns(U) * s + _rows(Vh)[:, :1])(
        *L.linalg.svd(S)),
    "svd U S Vh product": lambda L, A, S, B: (lambda U, s, Vh: (U * s) @ Vh)(
        *L.linalg.svd(A, full_matrices=False)),
    "svd batched": lambda L, A, S, B: L.linalg.svd(L.stack([S, S * 2 + 1]))[1],
    "svd full shapes": lambda L, A, S, B: L.tensor([list(x.shape) for x in L.linalg.svd(A)],
                                                   dtype=L.float64),
    "svd float32": lambda L, A, S, B: L.linalg.svd(A.float())[1],
    "svd int64": lambda L, A, S, B: L.linalg.svd(L.ones(2, 2, dtype=L.long)),
    "svd half": lambda L, A, S, B: L.linalg.svd(L.ones(2, 2, dtype=L.half)),
    "svd a vector": lambda L, A, S, B: L.linalg.svd(L.ones(3)),
    "svd full_matrices int": lambda L, A, S, B: L.linalg.svd(A, full_matrices=1),
    "svd driver": lambda L, A, S, B: L.linalg.svd(A, driver="gesvd"),
    "svd a list": lambda L, A, S, B: L.linalg.svd([[1.0]]),
    "svdvals": lambda L, A, S, B: L.linalg.svdvals(A),
    "svdvals wide": lambda L, A, S, B: L.linalg.svdvals(A.mT @ A + 1),
    "svdvals int64": lambda L, A, S, B: L.linalg.svdvals(L.ones(2, 2, dtype=L.long)),
    "torch.svd S": lambda L, A, S, B: L.svd(A)[1],
    "torch.svd V": lambda L, A, S, B: _columns(L.svd(A)[2]),
    "torch.svd some=False": lambda L, A, S, B: _columns(L.svd(A, some=False)[0][:, :3]),
    "torch.svd compute_uv=False": lambda L, A, S, B: L.svd(A, compute_uv=False)[0],
    "torch.svd compute_uv=False S": lambda L, A, S, B: L.svd(A, compute_uv=False)[1],
    "Tensor.svd": lambda L, A, S, B: A.svd().S,
    "torch.svd a vector": lambda L, A, S, B: L.svd(L.ones(3)),
    "eigh values": lambda L, A, S, B: L.linalg.eigh(S)[0],
    "eigh vectors": lambda L, A, S, B: _columns(L.linalg.eigh(S)[1]),
    "eigh both": lambda L, A, S, B: (lambda w, V: _columns(V) * w)(*L.linalg.eigh(S)),
    "eigh upper": lambda L, A, S, B: _columns(L.linalg.eigh(S + L.triu(A[:3], 1), "U")[1]),
    "eigh reads the lower triangle": lambda L, A, S, B: L.linalg.eigh(S + L.triu(A[:3], 1))[0],
    "eigh batched": lambda L, A, S, B: L.linalg.eigh(L.stack([S, S @ S]))[0],
    "eigh not square": lambda L, A, S, B: L.linalg.eigh(A),
    "eigh int64": lambda L, A, S, B: L.linalg.eigh(L.ones(2, 2, dtype=L.long)),
    "eigh bad UPLO": lambda L, A, S, B: L.linalg.eigh(S, UPLO="X"),
    "eigh UPLO int": lambda L, A, S, B: L.linalg.eigh(S, UPLO=1),
    "eigh a vector": lambda L, A, S, B: L.linalg.eigh(L.ones(3)),
    "eigvalsh": lambda L, A, S, B: L.linalg.eigvalsh(S),
    "eigvalsh upper": lambda L, A, S, B: L.linalg.eigvalsh(S + L.tril(A[:3], -1), UPLO="U"),
    "eigvalsh half": lambda L, A, S, B: L.linalg.eigvalsh(L.ones(2, 2, dtype=L.half)),
    "qr Q": lambda L, A, S, B: L.linalg.qr(A)[0],
    "qr R": lambda L, A, S, B: L.linalg.qr(A)[1],
    "qr both": lambda L, A, S, B: (lambda Q, R: Q @ R.exp())(*L.linalg.qr(A)),
    "qr square complete": lambda L, A, S, B: (lambda Q, R: Q * 2 + R)(*L.linalg.qr(S, "complete")),
    "qr wide Q": lambda L, A, S, B: L.linalg.qr(A.mT)[0],
    "qr wide R": lambda L, A, S, B: L.linalg.qr(A.mT)[1],
    "qr wide complete": lambda L, A, S, B: L.linalg.qr(A.mT, mode="complete")[1],
    "qr batched": lambda L, A, S, B: L.linalg.qr(L.stack([A, A * A]))[1],
    "qr complete tall": lambda L, A, S, B: L.linalg.qr(A, mode="complete")[0],
    "qr complete tall backward": lambda L, A, S, B: L.autograd.grad(
        L.linalg.qr(A, mode="complete")[1].sum(), A),
    "qr mode r": lambda L, A, S, B: L.linalg.qr(A, mode="r")[1],
    "qr mode r Q": lambda L, A, S, B: L.linalg.qr(A, mode="r")[0],
    "qr mode r backward": lambda L, A, S, B: L.autograd.grad(L.linalg.qr(A, mode="r")[1].sum(),
                                                             A),
    "qr bad mode": lambda L, A, S, B: L.linalg.qr(A, mode="x"),
    "qr mode int": lambda L, A, S, B: L.linalg.qr(A, mode=1),
    "qr int64": lambda L, A, S, B: L.linalg.qr(L.ones(2, 2, dtype=L.long)),
    "qr half": lambda L, A, S, B: L.linalg.qr(L.ones(2, 2, dtype=L.half)),
    "torch.qr": lambda L, A, S, B: L.qr(A)[1],
    "torch.qr some=False": lambda L, A, S, B: L.qr(S, some=False)[0],
    "Tensor.qr": lambda L, A, S, B: A.qr().Q,
    "pinv tall": lambda L, A, S, B: L.linalg.pinv(A),
    "pinv wide": lambda L, A, S, B: L.linalg.pinv(A.mT),
    "pinv square": lambda L, A, S, B: L.linalg.pinv(S),
    "pinv hermitian": lambda L, A, S, B: L.linalg.pinv(S, hermitian=True),
    "pinv rank deficient": lambda L, A, S, B: L.linalg.pinv(A[:, :2] @ B.mT),
    "pinv rtol": lambda L, A, S, B: L.linalg.pinv(A, rtol=0.3),
    "pinv atol": lambda L, A, S, B: L.linalg.pinv(A, atol=1.0),
    "pinv rcond": lambda L, A, S, B: L.linalg.pinv(A, rcond=0.3),
    "pinv batched": lambda L, A, S, B: L.linalg.pinv(L.stack([S, S * 3])),
    "pinv int64": lambda L, A, S, B: L.linalg.pinv(L.ones(2, 2, dtype=L.long)),
    "pinv a vector": lambda L, A, S, B: L.linalg.pinv(L.ones(3)),
    "pinverse": lambda L, A, S, B: L.pinverse(A),
    "pinverse rcond": lambda L, A, S, B: A.pinverse(rcond=0.3),
    "pinverse rcond str": lambda L, A, S, B: A.pinverse(rcond="x"),
    "matrix_exp": lambda L, A, S, B: L.linalg.matrix_exp(A[:3]),
    "matrix_exp large": lambda L, A, S, B: L.linalg.matrix_exp(S * 2),
    "matrix_exp small": lambda L, A, S, B: L.linalg.matrix_exp(A[:3] * 0.01),
    "matrix_exp batched": lambda L, A, S, B: L.linalg.matrix_exp(L.stack([S, -S])),
    "matrix_exp 1x1": lambda L, A, S, B: L.matrix_exp(S[:1, :1]),
    "matrix_exp float32": lambda L, A, S, B: L.matrix_exp(S.float() * 0.3),
    "matrix_exp method": lambda L, A, S, B: (A[:3] * 0.5).matrix_exp(),
    "matrix_exp not square": lambda L, A, S, B: L.linalg.matrix_exp(A),
    "matrix_exp int64": lambda L, A, S, B: L.linalg.matrix_exp(L.ones(2, 2, dtype=L.long)),
    "matrix_exp a vector": lambda L, A, S, B: L.linalg.matrix_exp(L.ones(3)),
    "matrix_exp nan": lambda L, A, S, B: L.linalg.matrix_exp(L.tensor([[float("inf"), 0.0],
                                                                       [0.0, 1.0]])).isnan(),
    "matrix_rank": lambda L, A, S, B: L.linalg.matrix_rank(A),
    "matrix_rank deficient": lambda L, A, S, B: L.linalg.matrix_rank(A[:, :2] @ B.mT),
    "matrix_rank atol": lambda L, A, S, B: L.linalg.matrix_rank(S, atol=1.5),
    "matrix_rank rtol": lambda L, A, S, B: L.linalg.matrix_rank(S, rtol=0.3),
    "matrix_rank tol": lambda L, A, S, B: L.linalg.matrix_rank(S, tol=1.5),
    "matrix_rank hermitian": lambda L, A, S, B: L.linalg.matrix_rank(S - 2, hermitian=True),
    "matrix_rank batched": lambda L, A, S, B: L.linalg.matrix_rank(L.stack([S, L.ones(3, 3)])),
    "matrix_rank int64": lambda L, A, S, B: L.linalg.matrix_rank(L.ones(2, 2, dtype=L.long)),
    "matrix_rank a vector": lambda L, A, S, B: L.linalg.matrix_rank(L.ones(3)),
    "cond": lambda L, A, S, B: L.linalg.cond(A),
    "cond -2": lambda L, A, S, B: L.linalg.cond(S, -2),
    "cond fro": lambda L, A, S, B: L.linalg.cond(S.detach(), "fro"),  # (torch fails to
    # differentiate cond through an inverse: it modifies the inverse in place)
    "cond nuc": lambda L, A, S, B: L.linalg.cond(S, "nuc"),
    "cond 1": lambda L, A, S, B: L.linalg.cond(S.detach(), 1),
    "cond -inf": lambda L, A, S, B: L.linalg.cond(S.detach(), float("-inf")),  # (torch fails to
    # differentiate it: its inverse is modified in place)
    "cond singular 1": lambda L, A, S, B: L.linalg.cond(L.zeros(2, 2), 1),
    "cond not square": lambda L, A, S, B: L.linalg.cond(A, 1),
    "cond bad p": lambda L, A, S, B: L.linalg.cond(S, 3),
    "cond a vector": lambda L, A, S, B: L.linalg.cond(L.ones(3)),
    "cond int64": lambda L, A, S, B: L.linalg.cond(L.ones(2, 2, dtype=L.long)),
    "matrix_norm 2": lambda L, A, S, B: L.linalg.matrix_norm(A, 2),
    "matrix_norm -2": lambda L, A, S, B: L.linalg.matrix_norm(A, -2),
    "matrix_norm nuc": lambda L, A, S, B: L.linalg.matrix_norm(A, "nuc"),
    "matrix_norm 2 dims keepdim": lambda L, A, S, B: L.linalg.matrix_norm(
        L.stack([A, A * 2], 1), 2, dim=(0, 2), keepdim=True),
    "linalg.norm 2": lambda L, A, S, B: L.linalg.norm(S, 2),
    "torch.norm nuc": lambda L, A, S, B: L.norm(A, "nuc"),
    "matrix_norm nuc int64": lambda L, A, S, B: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.long),
                                                                     "nuc"),
    "matrix_norm 2 half": lambda L, A, S, B: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.half), 2),
    "matrix_norm 2 empty": lambda L, A, S, B: L.linalg.matrix_norm(L.ones(2, 0, 3), 2),
    "matrix_norm -2 empty": lambda L, A, S, B: L.linalg.matrix_norm(L.ones(0, 3), -2),
    "matrix_norm nuc empty": lambda L, A, S, B: L.linalg.matrix_norm(L.ones(3, 0), "nuc"),
    "amax of an empty dim": lambda L, A, S, B: L.ones(2, 0).amax(-1),
    "amin of empty dims": lambda L, A, S, B: L.ones(2, 0).amin((0, -1)),
    "cond empty": lambda L, A, S, B: L.linalg.cond(L.ones(2, 0, 0)),
    "cond empty 1": lambda L, A, S, B: L.linalg.cond(L.ones(0, 0), 1),
    "svd empty": lambda L, A, S, B: L.linalg.svd(L.ones(0, 3))[2],
    "svdvals empty": lambda L, A, S, B: L.linalg.svdvals(L.ones(2, 3, 0)),
    "lstsq": lambda L, A, S, B: L.linalg.lstsq(A, B).solution,
    "lstsq gelsd residuals": lambda L, A, S, B: L.linalg.lstsq(A, B, driver="gelsd").residuals,
    "lstsq gelss singular values": lambda L, A, S, B: L.linalg.lstsq(
        A, B, driver="gelss").singular_values,
    "lstsq rank": lambda L, A, S, B: L.linalg.lstsq(A, B).rank,
    "lstsq gels rank": lambda L, A, S, B: L.linalg.lstsq(A, B, driver="gels").rank,
    "lstsq gelsy residuals": lambda L, A, S, B: L.linalg.lstsq(A, B).residuals,
    "lstsq a vector": lambda L, A, S, B: L.linalg.lstsq(A, B[:, 0]).solution,
    "lstsq a vector residuals": lambda L, A, S, B: L.linalg.lstsq(A, B[:, 0],
                                                                  driver="gelsd").residuals,
    "lstsq square": lambda L, A, S, B: L.linalg.lstsq(S, B[:3]).solution,
    "lstsq wide": lambda L, A, S, B: L.linalg.lstsq(A.mT, B[:3], driver="gelsd").solution,
    "lstsq rank deficient": lambda L, A, S, B: L.linalg.lstsq(
        (A[:, :2] @ B.mT).detach(), B, driver="gelsd").solution,
    "lstsq rcond": lambda L, A, S, B: L.linalg.lstsq(A, B, rcond=0.5, driver="gelsd").rank,
    "lstsq dtypes": lambda L, A, S, B: L.linalg.lstsq(A, B.float()),
    "lstsq shapes": lambda L, A, S, B: L.linalg.lstsq(A, S),
    "lstsq driver": lambda L, A, S, B: L.linalg.lstsq(A, B, driver="x"),
    "lstsq int64": lambda L, A, S, B: L.linalg.lstsq(L.ones(2, 2, dtype=L.long),
                                                     L.ones(2, 2, dtype=L.long)),
    "lstsq a vector A": lambda L, A, S, B: L.linalg.lstsq(L.ones(2), L.ones(2)),
}


def record_all(L) -> dict:
    return {name: weighted_outcome(L, f, _leaves(L)) for name, f in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}
# float32 kernels agree to float32 precision; PyTorch's exponential of a matrix of norm 0.05 errs
# by 4e-11 (a low-degree Taylor polynomial), symgrad's by 2e-18 (test_matrix_exp_against_mpmath)
LOOSE = {"svd float32", "matrix_exp float32", "matrix_exp small"}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    rtol, atol = (1e-5, 1e-6) if name in LOOSE else (1e-10, 1e-12)
    assert_weighted_same(weighted_outcome(t, CASES[name], _leaves(t)), RECORDED[name],
                         rtol=rtol, atol=atol)


# ---------------------------------------------------------------- differences, double backward
SMOOTH = {
    "svd": lambda A, S, B: (lambda U, s, Vh: (_columns(U) * s).sum(0) + _rows(Vh).sum(1))(
        *t.linalg.svd(A, full_matrices=False)),
    "svd wide": lambda A, S, B: (lambda U, s, Vh: _columns(U).sum(0) * s + _rows(Vh).sum(1))(
        *t.linalg.svd(A.mT, full_matrices=False)),
    # (eigh reads one triangle and its rule is that of a symmetric input: differences in a
    # symmetric direction)
    "eigh": lambda A, S, B: (lambda w, V: _columns(V) * w)(*t.linalg.eigh((S + S.mT) / 2)),
    "qr": lambda A, S, B: (lambda Q, R: Q.sum(0) + R.sum(1))(*t.linalg.qr(A)),
    "qr wide": lambda A, S, B: (lambda Q, R: Q.sum(0) * 2 + R[:, :3].sum(0))(*t.linalg.qr(A.mT)),
    "pinv": lambda A, S, B: t.linalg.pinv(A),
    "pinv hermitian": lambda A, S, B: t.linalg.pinv(S @ S.mT, hermitian=True),
    "matrix_exp": lambda A, S, B: t.linalg.matrix_exp(A[:3] * 0.7),
    "lstsq": lambda A, S, B: t.linalg.lstsq(A, B).solution,
    "lstsq residuals": lambda A, S, B: t.linalg.lstsq(A, B, driver="gelsd").residuals,
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_gradients_agree_with_differences(name):
    assert gradcheck(SMOOTH[name], _leaves(t))


@pytest.mark.parametrize("name", ["svd", "eigh", "qr", "pinv", "matrix_exp"])
def test_second_derivatives_agree_with_differences(name):
    assert gradgradcheck(SMOOTH[name], _leaves(t))


# ---------------------------------------------------------------- sympy, on closed forms
def _numbers(expr, values):
    return np.array(sympy.Matrix(expr).subs(values).evalf(30).tolist(), dtype=np.float64)


def test_eigh_against_sympy_closed_form():
    """A 2x2 symmetric matrix's eigenvalues are ``(a + c ∓ sqrt((a - c)^2 + 4 b^2)) / 2``: sympy
    differentiates them; symgrad's gradient of ``w . eigenvalues`` agrees."""
    a, b, c = sympy.symbols("a b c", real=True)
    root = sympy.sqrt((a - c) ** 2 + 4 * b ** 2)
    loss = 2 * (a + c - root) / 2 + 5 * (a + c + root) / 2
    point = {a: 1.5, b: -0.7, c: 0.4}
    # symmetric gradient: d/db counts both off-diagonal entries, shared equally
    dA = _numbers([[sympy.diff(loss, a), sympy.diff(loss, b) / 2],
                   [sympy.diff(loss, b) / 2, sympy.diff(loss, c)]], point)
    M = t.tensor([[1.5, -0.7], [-0.7, 0.4]], dtype=t.float64, requires_grad=True)
    (t.linalg.eigvalsh(M) * t.tensor([2.0, 5.0], dtype=t.float64)).sum().backward()
    np.testing.assert_allclose(M.grad.numpy(), dA, rtol=1e-13)


def _gram_schmidt(columns):
    q = []
    for v in columns:
        w = v - sum(((u.T * v)[0] * u for u in q), sympy.zeros(*v.shape))
        q.append(w / sympy.sqrt((w.T * w)[0]))
    return q


def test_qr_against_sympy_gram_schmidt():
    """Householder's QR is Gram-Schmidt's with each column of Q (row of R) times the sign of R's
    diagonal: sympy differentiates Gram-Schmidt's factors, and symgrad's gradients of weighted
    sums of Q and R agree."""
    values = [[2.0, 0.5], [1.0, 3.0], [0.2, -1.0]]
    symbols = sympy.Matrix(3, 2, lambda i, j: sympy.Symbol(f"a{i}{j}"))
    q = sympy.Matrix.hstack(*_gram_schmidt([symbols[:, j] for j in range(2)]))
    r = q.T * symbols
    A = t.tensor(values, dtype=t.float64, requires_grad=True)
    Q, R = t.linalg.qr(A)
    signs = np.sign(np.diag(R.detach().numpy()))
    wq, wr = np.arange(1.0, 7.0).reshape(3, 2), np.array([[1.0, -2.0], [0.0, 3.0]])
    loss = sum(wq[i, j] * signs[j] * q[i, j] for i in range(3) for j in range(2)) + sum(
        wr[i, j] * signs[i] * r[i, j] for i in range(2) for j in range(2))
    point = {symbols[i, j]: values[i][j] for i in range(3) for j in range(2)}
    expected = _numbers([[sympy.diff(loss, symbols[i, j]) for j in range(2)] for i in range(3)],
                        point)
    ((Q * t.tensor(wq)).sum() + (R * t.tensor(wr)).sum()).backward()
    np.testing.assert_allclose(A.grad.numpy(), expected, rtol=1e-12, atol=1e-13)


def test_matrix_exp_against_sympy():
    """sympy's exponential of ``A + s E`` (a 2x2 with distinct eigenvalues), differentiated in
    s at 0, is the directional derivative symgrad's gradient must give."""
    s = sympy.Symbol("s")
    values = [[0.3, 1.2], [-0.4, 0.8]]
    E = sympy.Matrix([[1, 2], [-1, 3]])
    W = sympy.Matrix([[1, -2], [0.5, 3]])
    exp = (sympy.Matrix(values).applyfunc(sympy.nsimplify) + s * E).exp()
    directional = sympy.diff(sum(W[i, j] * exp[i, j] for i in range(2) for j in range(2)), s)
    expected = float(sympy.re(sympy.N(directional.subs(s, 0), 30)))  # (complex eigenvalues)
    A = t.tensor(values, dtype=t.float64, requires_grad=True)
    (t.linalg.matrix_exp(A) * t.tensor(np.array(W.tolist(), dtype=float))).sum().backward()
    got = float((A.grad.numpy() * np.array(E.tolist(), dtype=float)).sum())
    assert abs(got - expected) < 1e-12 * max(1.0, abs(expected))


def test_matrix_exp_against_mpmath():
    import mpmath

    rng = np.random.default_rng(5)
    for scale in (1e-3, 0.05, 0.6, 3.0, 20.0):
        a = rng.standard_normal((4, 4)) * scale
        exact = np.array(mpmath.expm(mpmath.matrix(a.tolist())).tolist(), dtype=np.float64)
        got = t.linalg.matrix_exp(t.tensor(a)).numpy()
        assert np.abs(got - exact).max() <= 1e-14 * max(1.0, np.abs(exact).max()) * (
            1 + scale), scale


def test_pinv_and_lstsq_are_proved_by_symbolic_check():
    """pinv and lstsq lower (for full-rank matrices) to closed forms sympy differentiates."""
    A = t.tensor([[2.0, 0.5], [1.0, 3.0], [0.2, -1.0]], dtype=t.float64, requires_grad=True)
    B = t.tensor([[1.0], [0.5], [2.0]], dtype=t.float64, requires_grad=True)
    symbolic.check((t.linalg.pinv(A) * t.arange(6.0, dtype=t.float64).reshape(2, 3)).sum(),
                   inputs=[A])
    symbolic.check((t.linalg.pinv(A.mT) * t.arange(6.0, dtype=t.float64).reshape(3, 2)).sum(),
                   inputs=[A])
    out = t.linalg.lstsq(A, B, driver="gelsd")
    symbolic.check(out.solution.sum() + out.residuals.sum(), inputs=[A, B])


def test_symbolic_check_refuses_decompositions_clearly():
    A = _leaves(t)[0]
    with pytest.raises(NotImplementedError, match="linalg.svdvals has no closed form"):
        symbolic.check(t.linalg.svdvals(A).sum(), inputs=[A])


# ---------------------------------------------------------------- wrong rules are caught
def _scaled(rule, factor):
    return lambda *args, **kwargs: rule(*args, **kwargs) * factor


@pytest.mark.parametrize("op, name", [(ops.linalg.svd_u, "svd"), (ops.linalg.eigh_vectors, "eigh"),
                                      (ops.linalg.qr_r, "qr"), (ops.linalg.pinv, "pinv"),
                                      (ops.linalg.matrix_exp, "matrix_exp")])
def test_a_wrong_rule_is_caught(monkeypatch, op, name):
    monkeypatch.setattr(op, "vjp", (_scaled(op.vjp[0], 1.01),))
    with pytest.raises(Exception, match="(?i)jacobian|mismatch"):
        gradcheck(SMOOTH[name], _leaves(t))
