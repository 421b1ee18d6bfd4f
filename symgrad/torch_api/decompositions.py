"""PyTorch spellings of the matrix decompositions and what is built on them (see
``symgrad.torch_api``): the torch-level ``svd``, ``qr``, ``pinverse`` and ``matrix_exp`` and
their Tensor methods; ``symgrad.linalg`` spells the ``torch.linalg`` forms through the helpers
here. The ops and their rules are in ``symgrad.ops.linalg``.

LAPACK leaves the sign of each singular vector and eigenvector to the implementation: symgrad's
(numpy's LAPACK) may differ from PyTorch's (MKL's) by a sign per vector, as PyTorch's own CPU
and GPU results may. Gradients of quantities that do not depend on those signs agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.autograd.graph import warn_at_user
from symgrad.dispatch import apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make
from symgrad.torch_api.declaration import torch_api
from symgrad.torch_api.reductions import result_type

_LinalgSvd = result_type("linalg_svd", ("U", "S", "Vh"), """What
    :func:`symgrad.linalg.svd` returns (``torch.return_types.linalg_svd``).""", __name__)
_Svd = result_type("svd", ("U", "S", "V"), """What :func:`svd` returns (``V``, not ``Vh``:
    ``torch.return_types.svd``).""", __name__)
_LinalgEigh = result_type("linalg_eigh", ("eigenvalues", "eigenvectors"), """What
    :func:`symgrad.linalg.eigh` returns (``torch.return_types.linalg_eigh``).""", __name__)
_LinalgQr = result_type("linalg_qr", ("Q", "R"), """What :func:`symgrad.linalg.qr` returns
    (``torch.return_types.linalg_qr``).""", __name__)
_Qr = result_type("qr", ("Q", "R"), """What :func:`qr` returns (``torch.return_types.qr``).""",
                  __name__)


def floating_matrices(fn: str, A: Tensor, kernel: str | None = None,  # noqa: N803
                      name: str = "A", position: int = 1) -> None:
    """PyTorch's checks of a decomposition's argument, in its order: a Tensor, at least 2-d,
    of a floating dtype (float16 refused by ``kernel``'s name)."""
    parser.tensor_arg(fn.replace(".", "_"), name, A, position)
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    if A._value.dtype.kind != "f":
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype._torch_name}")
    if A.dtype is dtypes.float16 and kernel is not None:
        raise dtypes.not_implemented(kernel, A.dtype)


def square(fn: str, A: Tensor) -> None:  # noqa: N803
    rows, cols = A.shape[-2:]
    if rows != cols:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {rows} "
                           f"by {cols} matrices")


def svd_parts(A: Tensor, full_matrices: Any, fn: str = "linalg.svd"  # noqa: N803
              ) -> tuple[Tensor, Tensor, Tensor]:
    floating_matrices(fn, A, "linalg_svd_cpu")
    full = parser.bool_arg("linalg_svd", "full_matrices", full_matrices)
    return tuple(apply_op(op, A, full_matrices=full)  # type: ignore[return-value]
                 for op in (ops.linalg.svd_u, ops.linalg.svd_s, ops.linalg.svd_vh))


def singular_values(A: Tensor) -> Tensor:  # noqa: N803
    floating_matrices("linalg.svd", A, "linalg_svd_cpu")
    return apply_op(ops.linalg.svdvals, A)


def eigh_parts(A: Tensor, UPLO: Any, vectors: bool = True  # noqa: N803
               ) -> tuple[Tensor, Tensor | None]:
    fn = "linalg_eigh" if vectors else "linalg_eigvalsh"
    parser.tensor_arg(fn, "A", A)
    if not isinstance(UPLO, str):
        raise parser.wrong_type(fn, "UPLO", "str", UPLO)
    if A.ndim < 2:
        raise RuntimeError("linalg.eigh: The input tensor A must have at least 2 dimensions.")
    square("linalg.eigh", A)
    if A._value.dtype.kind != "f" or A.dtype is dtypes.float16:
        raise dtypes.not_implemented("linalg_eigh_cpu", A.dtype)
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    upper = UPLO in ("U", "u")
    values = apply_op(ops.linalg.eigh_values, A, upper=upper)
    return values, apply_op(ops.linalg.eigh_vectors, A, upper=upper) if vectors else None


def qr_parts(A: Tensor, mode: Any) -> tuple[Tensor, Tensor]:  # noqa: N803
    parser.tensor_arg("linalg_qr", "A", A)
    if not isinstance(mode, str):
        raise parser.wrong_type("linalg_qr", "mode", "str", mode)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    floating_matrices("linalg.qr", A, "geqrf_cpu")
    return apply_op(ops.linalg.qr_q, A, mode=mode), apply_op(ops.linalg.qr_r, A, mode=mode)


def pinv_of(A: Tensor, atol: Any, rtol: Any, hermitian: Any, fn: str = "linalg_pinv"  # noqa: N803
            ) -> Tensor:
    parser.tensor_arg(fn, "input" if fn == "pinverse" else "A", A)
    if A.ndim < 2 or A._value.dtype.kind != "f" or A.dtype is dtypes.float16:
        kind = A.dtype._torch_name
        raise RuntimeError(f"linalg.pinv({kind}{{{list(A.shape)}}}): expected a tensor with 2 or "
                           "more dimensions of float, double, cfloat or cdouble types")
    hermitian = parser.bool_arg(fn, "hermitian", hermitian)
    atol = 0.0 if atol is None else float(parser.number_arg(fn, "atol", atol, 2, "float"))
    if rtol is None:  # PyTorch's default: eps * max(m, n), unless an atol is given
        rtol = 0.0 if atol > 0 else float(np.finfo(A._value.dtype).eps) * max(A.shape[-2:])
    else:
        rtol = float(parser.number_arg(fn, "rtol", rtol, 3, "float"))
    return apply_op(ops.linalg.pinv, A, atol=atol, rtol=rtol, hermitian=hermitian)


def exponential(A: Tensor) -> Tensor:  # noqa: N803
    floating_matrices("linalg.matrix_exp", A)
    square("linalg.matrix_exp", A)
    return apply_op(ops.linalg.matrix_exp, A)


@torch_api("svd_u", example=lambda x: x.svd()[1])
def svd(self, some: bool = True, compute_uv: bool = True) -> _Svd:
    """``U, S, V`` with ``A = U diag(S) V^T`` (``V``, not ``Vh``: a transpose of
    :func:`symgrad.linalg.svd`'s, ``TransposeBackward0``); ``some=False`` gives square ``U``
    and ``V``; without ``compute_uv``, ``U`` and ``V`` are zeros. ``LinalgSvdBackward0``.

    >>> symgrad.tensor([[3.0, 0.0], [0.0, -2.0]]).svd().S
    tensor([3., 2.])
    """
    parser.tensor_arg("svd", "input", self)
    some = parser.bool_arg("svd", "some", some)
    compute_uv = parser.bool_arg("svd", "compute_uv", compute_uv)
    if self.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{self.ndim} dimensions instead")
    if not compute_uv:
        s = singular_values(self)
        rows, cols = self.shape[-2:]
        zeros = (np.zeros(self.shape[:-2] + (rows, rows), self._value.dtype),
                 np.zeros(self.shape[:-2] + (cols, cols), self._value.dtype))
        return _Svd(_make(zeros[0]), s, _make(zeros[1]))
    u, s, vh = svd_parts(self, not some)
    return _Svd(u, s, vh.mT)


@torch_api("qr_q", example=lambda x: x.qr()[1])
def qr(self, some: bool = True) -> _Qr:
    """``Q, R`` with ``A = Q R`` (``some=False``: square ``Q``), with PyTorch's deprecation
    warning: :func:`symgrad.linalg.qr` is the current spelling (``LinalgQrBackward0``).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.tensor([[3.0, 1.0], [4.0, 2.0]]).qr().R
    tensor([[-5.0000, -2.2000],
            [ 0.0000,  0.4000]])
    """
    parser.tensor_arg("qr", "input", self)
    some = parser.bool_arg("qr", "some", some)
    warn_at_user("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a "
                 "future PyTorch release.\nThe boolean parameter 'some' has been replaced with "
                 "a string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced "
                 "with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
    return _Qr(*qr_parts(self, "reduced" if some else "complete"))


@torch_api("pinv", example=lambda x: x.pinverse())
def pinverse(self, rcond: float = 1e-15) -> Tensor:
    """The pseudoinverse of each matrix, singular values below ``rcond`` times the largest
    taken as zero (:func:`symgrad.linalg.pinv` with ``rtol=rcond``; ``LinalgPinvBackward0``).

    >>> symgrad.tensor([[2.0, 0.0], [0.0, 0.0]]).pinverse()
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    if not isinstance(rcond, float | int) or isinstance(rcond, bool):
        raise parser.wrong_type("pinverse", "rcond", "float", rcond)
    return pinv_of(self, None, rcond, False, "pinverse")


@torch_api("matrix_exp", example=lambda x: x[:, :2].matrix_exp())
def matrix_exp(self) -> Tensor:
    """The exponential of each square matrix, ``sum_k A^k / k!`` (``LinalgMatrixExpBackward0``;
    also :func:`symgrad.linalg.matrix_exp`).

    >>> symgrad.tensor([[0.0, 1.0], [0.0, 0.0]]).matrix_exp()
    tensor([[1., 1.],
            [0., 1.]])
    """
    parser.tensor_arg("linalg_matrix_exp", "input", self)
    return exponential(self)


def largest_over_smallest(s: Tensor) -> Tensor:
    """``s[..., :1] / s[..., -1:]`` squeezed: the 2-norm condition number from singular values
    (PyTorch's graph: ``SliceBackward0``, ``DivBackward0``, ``SqueezeBackward1``)."""
    return (s[..., :1] / s[..., -1:]).squeeze(-1)




_LinalgLstsq = result_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"),
                           """What :func:`symgrad.linalg.lstsq` returns
    (``torch.return_types.linalg_lstsq``).""", __name__)
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def least_squares(A: Tensor, B: Tensor, rcond: Any, driver: Any) -> Any:  # noqa: N803
    """:func:`symgrad.linalg.lstsq`'s work: PyTorch's checks in its order, then the solution
    (and the residuals, when PyTorch computes them) as ops, rank and singular values as
    plain tensors."""
    fn = "torch.linalg.lstsq"
    parser.tensor_arg("linalg_lstsq", "self", A)
    parser.tensor_arg("linalg_lstsq", "b", B, 2)
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if A._value.dtype.kind != "f" or A.dtype is dtypes.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if B.dtype is not A.dtype:
        raise RuntimeError(f"{fn}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype._torch_name} and other's dtype "
                           f"{B.dtype._torch_name}")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(f"{fn}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           "gelss)")
    vector = B.ndim == A.ndim - 1
    if B.shape[-1 if vector else -2] != A.shape[-2]:
        raise RuntimeError(f"{fn}: input.size(-2) should match other.size(-2)")
    rows, cols = A.shape[-2:]
    eps = float(np.finfo(A._value.dtype).eps)
    rtol = eps * max(rows, cols) if rcond is None or rcond < 0 else float(rcond)
    solution = apply_op(ops.linalg.lstsq, A, B, rtol=rtol)
    s = np.linalg.svd(A._value, compute_uv=False) if min(rows, cols) else np.zeros(
        A.shape[:-2] + (0,), A._value.dtype)
    largest = s.max(-1, keepdims=True, initial=0.0)
    rank = (s > rtol * largest).sum(-1).astype(np.int64)
    empty = _make(np.zeros(0, A._value.dtype))
    residuals = apply_op(ops.linalg.lstsq_residuals if rows > cols and driver != "gelsy" and bool(
        np.all(rank == cols)) else ops.linalg.lstsq_no_residuals, A, B, rtol=rtol)
    return _LinalgLstsq(solution, residuals,
                        _make(np.zeros(0, np.int64)) if driver == "gels" else _make(rank),
                        _make(s) if driver in ("gelsd", "gelss") else empty)
