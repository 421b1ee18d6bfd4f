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
from symgrad.numeric import dtypes, numpy_namespace
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
    s = numpy_namespace.svdvals(A._value)
    rank = numpy_namespace.above_tolerance(s, 0.0, rtol).sum(-1).astype(np.int64)
    empty = _make(np.zeros(0, A._value.dtype))
    residuals = apply_op(ops.linalg.lstsq_residuals if rows > cols and driver != "gelsy" and bool(
        np.all(rank == cols)) else ops.linalg.lstsq_no_residuals, A, B, rtol=rtol)
    return _LinalgLstsq(solution, residuals,
                        _make(np.zeros(0, np.int64)) if driver == "gels" else _make(rank),
                        _make(s) if driver in ("gelsd", "gelss") else empty)


# ---------------------------------------------------------------- LU and Cholesky factors
_LinalgLuFactor = result_type("linalg_lu_factor", ("LU", "pivots"), """What
    :func:`symgrad.linalg.lu_factor` returns (``torch.return_types.linalg_lu_factor``).""",
                              __name__)
_LinalgLuFactorEx = result_type("linalg_lu_factor_ex", ("LU", "pivots", "info"), """What
    :func:`symgrad.linalg.lu_factor_ex` returns.""", __name__)
_LinalgLu = result_type("linalg_lu", ("P", "L", "U"), """What :func:`symgrad.linalg.lu`
    returns (``torch.return_types.linalg_lu``).""", __name__)
_LuUnpack = result_type("lu_unpack", ("P", "L", "U"), """What :func:`lu_unpack` returns
    (``torch.return_types.lu_unpack``).""", __name__)
_LuWithInfo = result_type("_lu_with_info", ("LU", "pivots", "info"), """What :func:`lu`
    returns with ``get_infos=True``.""", __name__)
_TriangularSolve = result_type("triangular_solve", ("solution", "cloned_coefficient"), """What
    :func:`triangular_solve` returns (``torch.return_types.triangular_solve``).""", __name__)


def lu_factors(A: Tensor, pivot: Any, fn: str) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803
    """The packed LU factor (an op), the int32 pivots and info of ``A``'s matrices."""
    parser.tensor_arg(fn.replace("torch.", "").replace(".", "_"), "A", A)
    if A.ndim < 2:  # (PyTorch names lu_factor here for all but linalg.lu)
        raise RuntimeError(f"{'linalg.lu' if fn == 'linalg.lu' else 'torch.lu_factor'}: "
                           f"Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if A._value.dtype.kind != "f" or A.dtype is dtypes.float16:
        raise dtypes.not_implemented("lu_cpu", A.dtype)
    if not parser.bool_arg(fn.replace("torch.", "").replace(".", "_"), "pivot", pivot):
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    _, pivots, info = numpy_namespace.lu_factor(A._value)
    return apply_op(ops.linalg.lu_factor, A), _make(pivots), _make(info)


def lu_factor_checked(A: Tensor, pivot: Any, fn: str = "torch.linalg.lu_factor"  # noqa: N803
                      ) -> tuple[Tensor, Tensor]:
    """:func:`lu_factors` that raises PyTorch's error at a zero pivot, in ``fn``'s name."""
    lu, pivots, info = lu_factors(A, pivot, fn)
    failed = np.flatnonzero(info._value.reshape(-1))
    if failed.size:
        index = np.unravel_index(failed[0], info.shape) if info.ndim else ()
        prefix = f"(Batch element {failed[0]}): " if info.ndim else ""
        k = int(info._value[index])
        raise RuntimeError(f"{fn}: {prefix}U[{k},{k}] is zero and using it on "
                           "lu_solve would result in a division by zero. If you still want to "
                           "perform the factorization, consider calling linalg.lu(A, pivot) or "
                           "linalg.lu_factor_ex(A, pivot)")
    return lu, pivots


def lu_parts(A: Tensor, pivot: Any) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803
    """``P, L, U`` of ``A = P L U`` (``P`` a constant)."""
    _, pivots, _ = lu_factors(A, pivot, "linalg.lu")
    p = numpy_namespace.lu_permutation(pivots._value, A.shape[-2], A._value.dtype)
    return _make(p), apply_op(ops.linalg.lu_l, A), apply_op(ops.linalg.lu_u, A)


def _int32_pivots(pivots: Any, fn: str, message: str) -> np.ndarray:
    parser.tensor_arg(fn, "pivots", pivots)
    if pivots.dtype is not dtypes.int32:
        raise RuntimeError(message)
    return pivots._value


def lu_solved(LU: Tensor, pivots: Tensor, B: Tensor, left: Any, adjoint: Any  # noqa: N803
              ) -> Tensor:
    fn = "linalg.lu_solve"
    parser.tensor_arg("linalg_lu_solve", "LU", LU)
    parser.tensor_arg("linalg_lu_solve", "B", B, 3)
    left = parser.bool_arg("linalg_lu_solve", "left", left)
    adjoint = parser.bool_arg("linalg_lu_solve", "adjoint", adjoint)
    if LU._value.dtype.kind != "f":
        raise RuntimeError(f"torch.{fn}: Expected a floating point or complex tensor as input. "
                           f"Got {LU.dtype._torch_name}")
    rows, cols = LU.shape[-2:] if LU.ndim >= 2 else (0, -1)
    if rows != cols:
        raise RuntimeError(f"torch.{fn}: A must be batches of square matrices, but they are "
                           f"{rows} by {cols} matrices")
    if B.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    b_rows, b_cols = B.shape[-2:]
    if (b_rows if left else b_cols) != rows:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {equation} "
                           f"({rows}x{cols} and {b_rows}x{b_cols})")
    if B.dtype is not LU.dtype:
        raise RuntimeError(f"{fn}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {LU.dtype._torch_name} and B of type {B.dtype._torch_name} "
                           "instead")
    pivot_values = _int32_pivots(pivots, "linalg_lu_solve", "linalg.lu_solve: pivots should be "
                                 "a Tensor of scalar type torch.int32")
    return apply_op(ops.linalg.lu_solve, LU, B, pivots=pivot_values, left=left, adjoint=adjoint)


@torch_api("lu_factor", example=lambda x: x[:, :2].lu()[0])
def lu(self, pivot: bool = True, get_infos: bool = False) -> Any:
    """The packed LU factor and the int32 pivots (and infos with ``get_infos``) of each
    matrix, with PyTorch's deprecation warning: :func:`symgrad.linalg.lu_factor` and
    ``lu_factor_ex`` are the current spellings (``LinalgLuFactorExBackward0``).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).lu()[1]
    tensor([2, 2], dtype=symgrad.int32)
    """
    warn_at_user("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                 "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\n"
                 "LU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots "
                 "= torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = "
                 "torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\nLU, "
                 "pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")
    if parser.bool_arg("lu", "get_infos", get_infos):
        return _LuWithInfo(*lu_factors(self, pivot, "torch.lu_factor"))
    return lu_factor_checked(self, pivot, "torch.linalg.lu_factor_ex")


@torch_api("lu_solve", example=lambda x: x[:, :1].lu_solve(*x[:, :2].lu()))
def lu_solve(self, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:  # noqa: N803
    """``A^-1 self`` from ``A``'s packed LU factor and pivots, with PyTorch's deprecation
    warning (:func:`symgrad.linalg.lu_solve`, arguments reversed; ``LinalgLuSolveBackward0``).

    >>> import warnings
    >>> LU, pivots = symgrad.linalg.lu_factor(symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.tensor([[2.0], [2.0]]).lu_solve(LU, pivots)
    tensor([[1.0000],
            [0.5000]])
    """
    warn_at_user("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
                 "removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has its "
                 "arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced "
                 "with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    return lu_solved(LU_data, LU_pivots, self, True, False)


@torch_api("lu_unpack_l", method=False)
def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,  # noqa: N803
              unpack_pivots: bool = True) -> _LuUnpack:
    """``P, L, U`` from a packed LU factor and its int32 pivots (``LuUnpackBackward0`` for L
    and U; ``P`` a constant); what is not unpacked is an empty tensor (without the node
    PyTorch gives empty L and U).

    >>> symgrad.lu_unpack(*symgrad.linalg.lu_factor(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))).P
    tensor([[0., 1.],
            [1., 0.]])
    """
    parser.tensor_arg("lu_unpack", "LU_data", LU_data)
    pivots = _int32_pivots(LU_pivots, "lu_unpack", "torch.lu_unpack: LU_pivots is expected to be "
                           "a contiguous tensor of torch.int32 dtype.")
    unpack_data = parser.bool_arg("lu_unpack", "unpack_data", unpack_data)
    unpack_pivots = parser.bool_arg("lu_unpack", "unpack_pivots", unpack_pivots)
    empty = _make(np.zeros(0, LU_data._value.dtype))
    p = _make(numpy_namespace.lu_permutation(pivots, LU_data.shape[-2], LU_data._value.dtype)) \
        if unpack_pivots else empty
    if not unpack_data:
        return _LuUnpack(p, empty, empty)
    return _LuUnpack(p, apply_op(ops.linalg.lu_unpack_l, LU_data),
                     apply_op(ops.linalg.lu_unpack_u, LU_data))


def _factor_checks(fn: str, B: Tensor, factor: Tensor, kernel: str) -> None:  # noqa: N803
    if B.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.ndim} dimensions "
                           "instead")
    if factor.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {factor.ndim} "
                           "dimensions instead")
    if B.dtype is not factor.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{B.dtype._torch_name} and A of type {factor.dtype._torch_name} "
                           "instead.")
    if B._value.dtype.kind != "f" or B.dtype is dtypes.float16:
        raise dtypes.not_implemented(kernel, B.dtype)
    n = factor.shape[-1]
    if factor.shape[-2] != n or B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {fn}: each A matrix is "
                           f"{factor.shape[-2]} by {n} but each b matrix is {B.shape[-2]} by "
                           f"{B.shape[-1]}")


@torch_api("cholesky_solve", example=lambda x: x[:, :1].cholesky_solve(x[:, :2].tril() + 3))
def cholesky_solve(self, input2: Tensor, upper: bool = False) -> Tensor:
    """``A^-1 self`` for ``A = L L^T`` given its Cholesky factor ``input2`` (``U^T U`` with
    ``upper``), of which only the triangle is read (``CholeskySolveBackward0``: PyTorch's
    gradient, ``(gA + gA^T) L``, which multiplies by the whole of ``input2``: it is the
    derivative when ``input2`` is triangular).

    >>> L = symgrad.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> symgrad.cholesky_solve(symgrad.tensor([[4.0], [2.0]]), L)
    tensor([[1.],
            [0.]])
    """
    parser.tensor_arg("cholesky_solve", "input", self)
    parser.tensor_arg("cholesky_solve", "input2", input2, 2)
    upper = parser.bool_arg("cholesky_solve", "upper", upper)
    _factor_checks("cholesky_solve", self, input2, "cholesky_solve_cpu")
    return apply_op(ops.linalg.cholesky_solve, self, input2, upper=upper)


@torch_api("cholesky_inverse", example=lambda x: (x[:, :2].tril() + 3).cholesky_inverse())
def cholesky_inverse(self, upper: bool = False) -> Tensor:
    """``(L L^T)^-1`` from the Cholesky factor ``L`` (``(U^T U)^-1`` with ``upper``)
    (``CholeskyInverseBackward0``, PyTorch's gradient: see :func:`cholesky_solve`).

    >>> symgrad.cholesky_inverse(symgrad.tensor([[2.0, 0.0], [0.0, 1.0]]))
    tensor([[0.2500, 0.0000],
            [0.0000, 1.0000]])
    """
    parser.tensor_arg("cholesky_inverse", "input", self)
    upper = parser.bool_arg("cholesky_inverse", "upper", upper)
    if self.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 "
                           "dimensions.")
    if self._value.dtype.kind != "f" or self.dtype is dtypes.float16:
        raise dtypes.not_implemented("cholesky_inverse_out_cpu", self.dtype)
    square("cholesky_inverse", self)
    return apply_op(ops.linalg.cholesky_inverse, self, upper=upper)


@torch_api("solve_triangular", example=lambda x: x[:, :1].triangular_solve(x[:, :2])[0])
def triangular_solve(self, A: Tensor, upper: bool = True, transpose: bool = False,  # noqa: N803
                     unitriangular: bool = False) -> _TriangularSolve:
    """``A^-1 self`` (``A^-T self`` with ``transpose``) for triangular ``A`` and a copy of
    ``A``, with PyTorch's deprecation warning (:func:`symgrad.linalg.solve_triangular`;
    ``TriangularSolveBackward0``).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.tensor([[2.0], [4.0]]).triangular_solve(symgrad.tensor([[1.0, 1.0],
    ...                                                                  [0.0, 2.0]])).solution
    tensor([[0.],
            [2.]])
    """
    from symgrad.autograd.graph import node_class

    warn_at_user("torch.triangular_solve is deprecated in favor of "
                 "torch.linalg.solve_triangularand will be removed in a future PyTorch release.\n"
                 "torch.linalg.solve_triangular has its arguments reversed and does not return a "
                 "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould "
                 "be replaced with\nX = torch.linalg.solve_triangular(A, B).")
    parser.tensor_arg("triangular_solve", "input", self)
    parser.tensor_arg("triangular_solve", "A", A, 2)
    for name, value in (("upper", upper), ("transpose", transpose),
                        ("unitriangular", unitriangular)):
        parser.bool_arg("triangular_solve", name, value)
    floating_matrices("triangular_solve", A, "triangular_solve_cpu")
    coefficient = A.mT if transpose else A
    solution = apply_op(ops.linalg.solve_triangular, coefficient, self, upper=upper != transpose,
                        unitriangular=unitriangular)
    copy = A.clone()
    for out in (solution, copy):
        if out.grad_fn is not None:
            out.grad_fn.__class__ = node_class("TriangularSolveBackward0")
    return _TriangularSolve(solution, copy)


_LinalgInvEx = result_type("linalg_inv_ex", ("inverse", "info"), """What
    :func:`symgrad.linalg.inv_ex` returns (``torch.return_types.linalg_inv_ex``).""", __name__)
_LinalgCholeskyEx = result_type("linalg_cholesky_ex", ("L", "info"), """What
    :func:`symgrad.linalg.cholesky_ex` returns.""", __name__)
_LinalgSolveEx = result_type("linalg_solve_ex", ("result", "info"), """What
    :func:`symgrad.linalg.solve_ex` returns.""", __name__)


# ---------------------------------------------------------------- Householder reflectors
_Geqrf = result_type("geqrf", ("a", "tau"), """What :func:`geqrf` returns
    (``torch.return_types.geqrf``).""", __name__)


def reflector_product(A: Tensor, tau: Tensor, fn: str) -> Tensor:  # noqa: N803
    """:func:`symgrad.linalg.householder_product`'s checks, in PyTorch's order, and its op."""
    name = "torch.linalg.householder_product"
    parser.tensor_arg(fn, "input", A)
    parser.tensor_arg(fn, "tau", tau, 2)
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if A.shape[-1] < (tau.shape[-1] if tau.ndim else 1):
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau.ndim} and input.ndim is equal to "
                           f"{A.ndim}")
    if tau.shape[:-1] != A.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{name}: tau dtype {tau.dtype._torch_name} does not match input "
                           f"dtype {A.dtype._torch_name}")
    if A._value.dtype.kind != "f" or A.dtype is dtypes.float16:
        raise dtypes.not_implemented("orgqr_cpu", A.dtype)
    return apply_op(ops.linalg.householder_product, A, tau)


@torch_api("householder_product", example=lambda x: x.mT.orgqr(x[:, 0]))
def orgqr(self, input2: Tensor) -> Tensor:
    """The first n columns of the product of the Householder reflectors stored below the
    diagonal of ``self`` with scales ``input2`` (:func:`symgrad.linalg.householder_product`).

    >>> symgrad.orgqr(symgrad.tensor([[1.0], [0.0]]), symgrad.tensor([0.0]))
    tensor([[1.],
            [0.]])
    """
    return reflector_product(self, input2, "orgqr")


@torch_api("geqrf_a", example=lambda x: x.mT.geqrf()[0])
def geqrf(self) -> _Geqrf:
    """LAPACK's compact QR of each matrix: R on and above the diagonal, the Householder
    vectors below it, and their scales ``tau`` (``GeqrfBackward0``, which has no derivative,
    as in PyTorch).

    >>> symgrad.tensor([[3.0], [4.0]]).geqrf().a
    tensor([[-5.0000],
            [ 0.5000]])
    """
    parser.tensor_arg("geqrf", "input", self)
    if self.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if self._value.dtype.kind != "f" or self.dtype is dtypes.float16:
        raise dtypes.not_implemented("geqrf_cpu", self.dtype)
    return _Geqrf(apply_op(ops.linalg.geqrf_a, self), apply_op(ops.linalg.geqrf_tau, self))
