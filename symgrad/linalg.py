"""``symgrad.linalg``: the functions of PyTorch's ``torch.linalg`` that symgrad provides: norms,
``inv``, ``det``, ``slogdet``, ``cholesky``, ``solve``, ``solve_triangular``, ``cross``,
``matrix_power``, ``multi_dot``, ``vecdot``, ``matmul``, ``diagonal`` and ``vander``.

The decompositions ``svd``/``svdvals``, ``eigh``/``eigvalsh`` and ``qr``, and ``pinv``,
``lstsq``, ``matrix_exp``, ``matrix_rank`` and ``cond`` are there too, with PyTorch's gradients
(their forwards have no sympy form, except ``pinv``'s and ``lstsq``'s for full-rank matrices:
``symbolic.check`` refuses graphs with the others). The signs of singular vectors and
eigenvectors are LAPACK's choice and may differ from PyTorch's by a sign per vector.

Vector norms record ``LinalgVectorNormBackward0``; the matrix norms 1, -1, inf and -inf are
composites (sums of ``|A|``, then ``amax``/``amin``), and 2, -2 and 'nuc' reduce the singular
values, as in PyTorch. The ``_ex`` variants report LAPACK's ``info`` instead of raising.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from symgrad import creation, ops, parser
from symgrad.dispatch import apply_op
from symgrad.numeric import dtypes, numpy_namespace
from symgrad.tensor import Tensor, _dim
from symgrad.torch_api import decompositions, products
from symgrad.torch_api.arguments import result_dtype
from symgrad.torch_api.composites import _matrix_power, cross_product
from symgrad.torch_api.products import LinAlgError, solve
from symgrad.torch_api.reductions import singular_value_norm, vector_norm

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh",
           "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor",
           "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
           "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex",
           "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
           "vector_norm"]


def inv(A: Tensor) -> Tensor:  # noqa: N803 - PyTorch's name
    """The inverse of each square matrix in the last two dims (``LinalgInvExBackward0``); a
    singular one raises :class:`LinAlgError`.

    >>> symgrad.linalg.inv(symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    return products._inverse(A, "linalg.inv")


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002
    """The cross product of 3-vectors along ``dim`` (the last by default), with broadcasting:
    :func:`symgrad.cross` with a default dim.

    >>> symgrad.linalg.cross(symgrad.tensor([1.0, 0.0, 0.0]), symgrad.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    return cross_product("linalg_cross", input, other, dim)


def matrix_power(A: Tensor, n: int) -> Tensor:  # noqa: N803 - PyTorch's name
    """The ``n``-th power of each square matrix in the last two dims (see
    :func:`symgrad.matrix_power`).

    >>> symgrad.linalg.matrix_power(symgrad.tensor([[2.0, 0.0], [0.0, 1.0]]), -1)
    tensor([[0.5000, 0.0000],
            [0.0000, 1.0000]])
    """
    return _matrix_power("linalg.matrix_power", A, n)


def det(A: Tensor) -> Tensor:  # noqa: N803
    """The determinant of each square matrix in the last two dims (``LinalgDetBackward0``).

    >>> symgrad.linalg.det(symgrad.tensor([[2.0, 1.0], [1.0, 3.0]]))
    tensor(5.)
    """
    return products.det(A)


def slogdet(A: Tensor) -> products._LinalgSlogdet:  # noqa: N803
    """The sign and the log of the absolute determinant of each square matrix (see
    :func:`symgrad.slogdet`).

    >>> symgrad.linalg.slogdet(symgrad.tensor([[2.0, 1.0], [1.0, 3.0]])).logabsdet
    tensor(1.6094)
    """
    return products._LinalgSlogdet(*products._slogdet(A, "linalg.slogdet"))


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:  # noqa: N803
    """The Cholesky factor ``L`` (lower; ``U = L^T`` with ``upper``) of each symmetric positive
    definite matrix, ``A = L L^T``; only A's lower triangle is read
    (``LinalgCholeskyExBackward0``: the gradient of a symmetric ``A``, as PyTorch's). A matrix
    that is not positive definite raises :class:`LinAlgError`, naming the first leading minor
    that is not.

    >>> symgrad.linalg.cholesky(symgrad.tensor([[4.0, 2.0], [2.0, 3.0]]))
    tensor([[2.0000, 0.0000],
            [1.0000, 1.4142]])
    """
    return products._cholesky(A, upper, "linalg.cholesky")


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,  # noqa: N803
                     unitriangular: bool = False) -> Tensor:
    """``X`` with ``A @ X = B`` (``X @ A = B`` when not ``left``) for triangular ``A``: only its
    upper or lower triangle is read (with ``unitriangular``, not its diagonal either, taken as
    ones); batched and broadcast (``LinalgSolveTriangularBackward0``). A zero on the diagonal
    gives inf and nan, as PyTorch's.

    >>> A = symgrad.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> symgrad.linalg.solve_triangular(A, symgrad.tensor([[2.0], [3.0]]), upper=False)
    tensor([[1.],
            [2.]])
    """
    fn = "linalg.solve_triangular"
    parser.tensor_arg("linalg_solve_triangular", "A", A)
    parser.tensor_arg("linalg_solve_triangular", "B", B, 2)
    for name, value in (("upper", upper), ("left", left), ("unitriangular", unitriangular)):
        parser.bool_arg("linalg_solve_triangular", name, value)
    for name, x in (("A", A), ("B", B)):
        if x.ndim < 2:
            raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    common = result_dtype(A, B)
    if not common.is_floating_point or common is dtypes.float16:
        raise dtypes.not_implemented("triangular_solve_cpu", common)
    A, B = A.to(common), B.to(common)
    rows, cols = A.shape[-2:]
    if rows != cols:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {rows} "
                           f"by {cols} matrices")
    b_rows, b_cols = B.shape[-2:]
    if (b_rows if left else b_cols) != rows:
        equation, shapes = ("AX = B", f"{rows}x{cols} and {b_rows}x{b_cols}") if left else \
            ("XA = B", f"{rows}x{cols} and {b_rows}x{b_cols}")
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {equation} "
                           f"({shapes})")
    return apply_op(ops.linalg.solve_triangular, A, B, upper=upper, left=left,
                    unitriangular=unitriangular)


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of the matrices ``tensors`` (the first may be a row vector, the last a
    column vector, given 1-d), multiplied in the cheapest order, as PyTorch chooses it.

    >>> symgrad.linalg.multi_dot([symgrad.ones(3), symgrad.ones(3, 2), symgrad.ones(2)])
    tensor(6.)
    """
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    for i, x in enumerate(tensors):
        parser.tensor_arg("linalg_multi_dot", "tensors", x)
        if i in (0, n - 1) and x.ndim not in (1, 2):
            which = "first" if i == 0 else "last"
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got "
                               f"{x.ndim}D")
        if 0 < i < n - 1 and x.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {x.ndim}D")
        if x._value.dtype != first._value.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {first.dtype._cpp_name} and tensor {i} "
                               f"{x.dtype._cpp_name}")
    matrices = [x.unsqueeze(0) if i == 0 and x.ndim == 1 else x for i, x in enumerate(tensors)]
    if last.ndim == 1:
        matrices[-1] = last.unsqueeze(-1)
    for i in range(n - 1):
        left, right = matrices[i], matrices[i + 1]
        if left.shape[-1] != right.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(tensors[i].shape)} and {list(tensors[i + 1].shape)} "
                               "cannot be multiplied")
    shape = [*(() if first.ndim == 1 else (first.shape[0],)),
             *(() if last.ndim == 1 else (last.shape[-1],))]
    return _chain_product(matrices).view(shape)


def _chain_product(matrices: list[Tensor]) -> Tensor:
    """The product of the 2-d ``matrices`` in the order of fewest multiplications (the
    classic dynamic programme; two or three matrices compared directly, as PyTorch)."""
    n = len(matrices)
    if n == 2:
        return matrices[0].mm(matrices[1])
    sizes = [m.shape[0] for m in matrices] + [matrices[-1].shape[1]]
    if n == 3:
        a, b, c, d = sizes
        if a * b * c + a * c * d <= b * c * d + a * b * d:  # (AB)C, else A(BC)
            return matrices[0].mm(matrices[1]).mm(matrices[2])
        return matrices[0].mm(matrices[1].mm(matrices[2]))
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i: int, j: int) -> Tensor:
        if i == j:
            return matrices[i]
        k = split[i][j]
        return product(i, k).mm(product(k + 1, j))

    return product(0, n - 1)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of the vectors along ``dim``, with broadcasting (``(x * y).sum(dim)``).

    >>> symgrad.linalg.vecdot(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), symgrad.tensor([1.0, 1.0]))
    tensor([3., 7.])
    """
    parser.tensor_arg("linalg_vecdot", "x", x)
    parser.tensor_arg("linalg_vecdot", "y", y, 2)
    if x._value.dtype != y._value.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {x.dtype._torch_name} and y of type "
                           f"{y.dtype._torch_name} instead")
    if not x.is_floating_point():
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. "
                           f"Got {x.dtype._torch_name}")
    return (x * y).sum(dim)


def matmul(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """:func:`symgrad.matmul`.

    >>> symgrad.linalg.matmul(symgrad.eye(2), symgrad.tensor([[1.0], [2.0]]))
    tensor([[1.],
            [2.]])
    """
    return input @ other


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: N803
    """The diagonals of the matrices in the last two dims: :func:`symgrad.diagonal` with other
    defaults.

    >>> symgrad.linalg.diagonal(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([1., 4.])
    """
    return A.diagonal(offset, dim1, dim2)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of ``x`` with increasing powers ``x**0 ... x**(N - 1)`` along a
    new last dim (``N`` defaults to ``x``'s last size), as PyTorch records it: a column of
    ones beside the cumulative product of ``x`` repeated.

    >>> symgrad.linalg.vander(symgrad.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
    """
    parser.tensor_arg("linalg_vander", "x", x)
    if x._value.dtype.kind == "b":
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, "
                           "but got Bool")
    if x.ndim == 0:
        x = x.unsqueeze(-1)
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    repeated = x.unsqueeze(-1).expand(*x.shape, n - 1)
    ones = creation.ones_like(x).unsqueeze(-1)
    from symgrad.torch_api.shaping import cat

    return cat([ones, repeated.cumprod(-1)], -1)


def matrix_norm(A: Tensor, ord: float | str = "fro",  # noqa: A002,N803 - PyTorch's names
                dim: tuple[int, int] = (-2, -1), keepdim: bool = False, *,
                dtype: dtypes.dtype | None = None) -> Tensor:
    """The ``ord``-norm of the matrices in dims ``dim``: ``'fro'``, or 1 / -1 (largest /
    smallest column sum of ``|A|``), inf / -inf (row sums).

    >>> symgrad.linalg.matrix_norm(symgrad.tensor([[1.0, -2.0], [3.0, 4.0]]), 1)
    tensor(6.)
    """
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    dims = tuple(dim)
    if len(dims) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(map(str, dims)))
    rows, cols = (_dim(d, A.ndim) for d in dims)
    if ord == "fro":
        return vector_norm(A, 2, (rows, cols), keepdim, dtype=dtype)
    if isinstance(ord, str) and ord != "nuc" or not isinstance(ord, str) and ord not in (
            1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if not A.is_floating_point():
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {A.dtype._torch_name}")
    if dtype is not None:
        A = A.to(dtypes.as_dtype(dtype))
    if ord in ("nuc", 2, -2):
        return singular_value_norm(A, ord, rows, cols, keepdim)
    summed, kept = (rows, cols) if ord in (1, -1) else (cols, rows)  # 1: sums down columns
    sums = A.abs().sum(summed, keepdim=keepdim)
    if not keepdim and kept > summed:
        kept -= 1
    return sums.amax(kept, keepdim) if ord > 0 else sums.amin(kept, keepdim)


def norm(A: Tensor, ord: float | str | None = None,  # noqa: A002,N803 - PyTorch's names
         dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
         dtype: dtypes.dtype | None = None) -> Tensor:
    """A vector norm (1-D input, or one ``dim``) or a matrix norm (2-D input, or two dims);
    with ``ord=None``, the 2-norm of all the elements over ``dim``.

    >>> symgrad.linalg.norm(symgrad.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor(5.)
    """
    dims = None if dim is None else (dim,) if isinstance(dim, int | np.integer) else tuple(dim)
    if dims is not None and len(dims) not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                           f"{list(dims)}")
    if ord is None:
        return vector_norm(A, 2, dims, keepdim, dtype=dtype)
    if dims is None:
        if A.ndim not in (1, 2):
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must "
                               f"be 1D or 2D. Got {A.ndim}D.")
        if isinstance(ord, str) or A.ndim == 2:
            return matrix_norm(A, ord, keepdim=keepdim, dtype=dtype)
        dims = (0,)
    if len(dims) == 2:
        return matrix_norm(A, ord, dims, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dims[0]}")
    return vector_norm(A, ord, dims, keepdim, dtype=dtype)


def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None  # noqa: N803
        ) -> decompositions._LinalgSvd:
    """``U, S, Vh`` with ``A = U diag(S) Vh`` for each matrix (``full_matrices=False``: ``U``
    m x k and ``Vh`` k x n, k = min(m, n)); ``LinalgSvdBackward0`` with PyTorch's rule (nan where
    singular values repeat and ``U`` or ``Vh`` is used). Each vector's sign is LAPACK's choice.

    >>> symgrad.linalg.svd(symgrad.tensor([[3.0, 0.0], [0.0, -2.0]])).S
    tensor([3., 2.])
    """
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    return decompositions._LinalgSvd(*decompositions.svd_parts(A, full_matrices))


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:  # noqa: N803
    """The singular values of each matrix, in descending order (``LinalgSvdBackward0``:
    ``U diag(g) Vh``).

    >>> symgrad.linalg.svdvals(symgrad.tensor([[3.0, 0.0], [0.0, -2.0]]))
    tensor([3., 2.])
    """
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    return decompositions.singular_values(A)


def eigh(A: Tensor, UPLO: str = "L") -> decompositions._LinalgEigh:  # noqa: N803
    """The eigenvalues (ascending) and eigenvectors of each symmetric matrix, read from its
    lower triangle (``UPLO='U'``: upper); ``LinalgEighBackward0`` with PyTorch's rule (a
    symmetric gradient; nan where eigenvalues repeat and the eigenvectors are used).

    >>> symgrad.linalg.eigh(symgrad.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
    tensor([1., 3.])
    """
    values, vectors = decompositions.eigh_parts(A, UPLO)
    return decompositions._LinalgEigh(values, vectors)


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    """The eigenvalues of each symmetric matrix, ascending (see :func:`eigh`).

    >>> symgrad.linalg.eigvalsh(symgrad.tensor([[2.0, 1.0], [1.0, 2.0]]))
    tensor([1., 3.])
    """
    return decompositions.eigh_parts(A, UPLO, vectors=False)[0]


def qr(A: Tensor, mode: str = "reduced") -> decompositions._LinalgQr:  # noqa: N803
    """``Q, R`` with ``A = Q R`` by Householder reflections (LAPACK's signs, as PyTorch's):
    ``mode`` 'reduced' (Q m x k), 'complete' (Q m x m) or 'r' (R only, Q empty);
    ``LinalgQrBackward0``, with PyTorch's errors where it has no derivative.

    >>> symgrad.linalg.qr(symgrad.tensor([[3.0, 1.0], [4.0, 2.0]])).R
    tensor([[-5.0000, -2.2000],
            [ 0.0000,  0.4000]])
    """
    return decompositions._LinalgQr(*decompositions.qr_parts(A, mode))


def pinv(A: Tensor, rcond: float | None = None, hermitian: bool = False, *,  # noqa: N803
         atol: float | None = None, rtol: float | None = None) -> Tensor:
    """The pseudoinverse of each matrix: singular values at most ``max(atol, rtol * the
    largest)`` are taken as zero (``rtol`` defaults to ``eps * max(m, n)``, or 0 when ``atol``
    is given; ``rcond`` is ``rtol``'s older name); ``hermitian`` uses ``eigh``.
    ``LinalgPinvBackward0`` (lowered as ``(A^T A)^-1 A^T`` for a full-rank matrix).

    >>> symgrad.linalg.pinv(symgrad.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    if rcond is not None:
        if rtol is not None or atol is not None:
            raise TypeError("linalg_pinv() received an invalid combination of arguments - got "
                            "rcond together with atol or rtol")
        rtol = rcond
    return decompositions.pinv_of(A, atol, rtol, hermitian)


def matrix_exp(A: Tensor) -> Tensor:  # noqa: N803
    """The exponential of each square matrix (``LinalgMatrixExpBackward0``; see
    :func:`symgrad.matrix_exp`).

    >>> symgrad.linalg.matrix_exp(symgrad.tensor([[0.0, 1.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [0., 1.]])
    """
    parser.tensor_arg("linalg_matrix_exp", "input", A)
    return decompositions.exponential(A)


def matrix_rank(A: Tensor, *, atol: float | None = None, rtol: float | None = None,  # noqa: N803
                hermitian: bool = False, tol: float | None = None) -> Tensor:
    """The number of singular values (absolute eigenvalues with ``hermitian``) above
    ``max(atol, rtol * the largest)`` of each matrix, int64, not differentiable (``rtol``'s
    default as :func:`pinv`'s; ``tol`` is an older name of ``atol`` with ``rtol=0``).

    >>> symgrad.linalg.matrix_rank(symgrad.tensor([[1.0, 2.0], [2.0, 4.0]]))
    tensor(1)
    """
    parser.tensor_arg("linalg_matrix_rank", "input", A)
    if tol is not None:
        if atol is not None or rtol is not None:
            raise TypeError("linalg_matrix_rank() received an invalid combination of arguments "
                            "- got tol together with atol or rtol")
        atol, rtol = tol, 0.0
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least "
                           "2 dimensions.")
    if A._value.dtype.kind != "f" or A.dtype is dtypes.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    hermitian = parser.bool_arg("linalg_matrix_rank", "hermitian", hermitian)
    value = A._value
    magnitudes = (np.abs(np.linalg.eigvalsh(value)) if hermitian
                  else numpy_namespace.svdvals(value))
    atol = 0.0 if atol is None else float(atol)
    if rtol is None:
        rtol = 0.0 if atol > 0 else float(np.finfo(value.dtype).eps) * max(value.shape[-2:])
    kept = numpy_namespace.above_tolerance(magnitudes, atol, float(rtol))
    return creation.tensor(kept.sum(-1).astype(np.int64))


def cond(A: Tensor, p: float | str | None = None) -> Tensor:  # noqa: N803
    """The condition number of each matrix in the ``p``-norm: ``None``/2 (largest over smallest
    singular value, any shape) or -2, and for square matrices 'fro', 'nuc', inf, -inf, 1, -1
    (``norm(A) * norm(inv(A))``, inf for a singular matrix), composed as PyTorch composes it.

    >>> symgrad.linalg.cond(symgrad.tensor([[4.0, 0.0], [0.0, 2.0]]))
    tensor(2.)
    """
    if p not in (None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1) or isinstance(p, bool):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    parser.tensor_arg("linalg_cond", "input", A)
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if A.numel() == 0 and A.is_floating_point():  # (PyTorch's condition number of nothing)
        return creation.zeros(A.shape[:-2], dtype=A.dtype)
    if p in (None, 2, -2):
        s = decompositions.singular_values(A)
        return decompositions.largest_over_smallest(s if p != -2 else s.flip(-1))
    decompositions.floating_matrices("linalg.svd", A, "linalg_svd_cpu")
    rows, cols = A.shape[-2:]
    if rows != cols:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but "
                           f"they are {rows} by {cols} matrices")
    if p == "nuc":
        s = decompositions.singular_values(A)
        return s.sum(-1) * s.reciprocal().sum(-1)
    try:
        inverse = products._inverse(A, "linalg.inv")
    except LinAlgError:  # (PyTorch's inverse of a singular matrix is not finite: cond is inf)
        inverse = creation.full_like(A, math.nan)
    return (matrix_norm(A, p) * matrix_norm(inverse, p)).nan_to_num(math.inf)


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *,  # noqa: N803
          driver: str | None = None) -> decompositions._LinalgLstsq:
    """The least-squares solution ``X`` minimising ``|A X - B|`` for each matrix (the
    minimum-norm one, through the pseudoinverse, for a rank-deficient ``A``), with PyTorch's
    other fields: ``residuals`` (the squared residual of each column, when m > n, every matrix
    is of full rank and the driver is not 'gelsy'), ``rank`` (not for 'gels') and
    ``singular_values`` ('gelsd', 'gelss'). ``LinalgLstsqBackward0`` for ``solution`` and
    ``residuals``.

    >>> A, B = symgrad.tensor([[1.0], [1.0]]), symgrad.tensor([[1.0], [3.0]])
    >>> symgrad.linalg.lstsq(A, B).solution
    tensor([[2.0000]])
    """
    return decompositions.least_squares(A, B, rcond, driver)


def _info(values: np.ndarray) -> Tensor:
    return creation.tensor(np.asarray(values, dtype=np.int32))


def inv_ex(A: Tensor, *, check_errors: bool = False) -> decompositions._LinalgInvEx:  # noqa: N803
    """The inverse of each square matrix and LAPACK's int32 ``info`` (0, or the 1-based index
    of the first zero pivot of a singular matrix, whose inverse is then that of its LU factors:
    inf and nan); ``check_errors`` raises :class:`LinAlgError` instead
    (``LinalgInvExBackward0``).

    >>> symgrad.linalg.inv_ex(symgrad.tensor([[1.0, 2.0], [2.0, 4.0]])).info
    tensor(2, dtype=symgrad.int32)
    """
    products._square_matrices("linalg.inv", A)
    check_errors = parser.bool_arg("linalg_inv_ex", "check_errors", check_errors)
    info = numpy_namespace.lu_factor(A._value)[2]
    if check_errors and info.any():
        raise products.singular_error("linalg.inv_ex", A._value)
    return decompositions._LinalgInvEx(apply_op(ops.linalg.inverse_ex, A), _info(info))


def cholesky_ex(A: Tensor, *, upper: bool = False,  # noqa: N803
                check_errors: bool = False) -> decompositions._LinalgCholeskyEx:
    """The Cholesky factor of each symmetric positive definite matrix and LAPACK's int32
    ``info`` (0, or the order of the first leading minor that is not positive definite; that
    matrix's factor is what LAPACK leaves); ``check_errors`` raises :class:`LinAlgError`
    instead (``LinalgCholeskyExBackward0``).

    >>> symgrad.linalg.cholesky_ex(symgrad.tensor([[1.0, 2.0], [2.0, 1.0]])).info
    tensor(2, dtype=symgrad.int32)
    """
    products._square_matrices("linalg.cholesky", A)
    upper = parser.bool_arg("linalg_cholesky_ex", "upper", upper)
    check_errors = parser.bool_arg("linalg_cholesky_ex", "check_errors", check_errors)
    info = numpy_namespace.cholesky_ex(A._value)[1]
    if check_errors and info.any():
        raise products.not_positive_error("linalg.cholesky_ex", A._value)
    return decompositions._LinalgCholeskyEx(apply_op(ops.linalg.cholesky_ex, A, upper=upper),
                                            _info(info))


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True,  # noqa: N803
             check_errors: bool = False) -> decompositions._LinalgSolveEx:
    """:func:`solve` with LAPACK's int32 ``info`` (0, or the first zero pivot of a singular
    ``A``, whose solution is then inf and nan); ``check_errors`` raises :class:`LinAlgError`
    instead (``LinalgSolveExBackward0``).

    >>> symgrad.linalg.solve_ex(symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]), symgrad.ones(2)).info
    tensor(0, dtype=symgrad.int32)
    """
    check_errors = parser.bool_arg("linalg_solve_ex", "check_errors", check_errors)
    products._square_matrices("linalg.solve", A)
    info = numpy_namespace.lu_factor(A._value)[2]
    if check_errors and info.any():
        raise products.unsolvable_error("torch.linalg.solve_ex", A._value)
    return decompositions._LinalgSolveEx(products._solved(A, B, left, ops.linalg.solve_ex),
                                         _info(info))


def lu_factor(A: Tensor, *, pivot: bool = True) -> decompositions._LinalgLuFactor:  # noqa: N803
    """The packed LU factor of each matrix (L's multipliers below the diagonal, U on and
    above) and LAPACK's 1-based int32 pivots, by partial pivoting as LAPACK's ``getrf``
    (``LinalgLuFactorExBackward0``). A zero pivot raises, as PyTorch's; see
    :func:`lu_factor_ex`.

    >>> symgrad.linalg.lu_factor(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])).pivots
    tensor([2, 2], dtype=symgrad.int32)
    """
    return decompositions._LinalgLuFactor(*decompositions.lu_factor_checked(A, pivot))


def lu_factor_ex(A: Tensor, *, pivot: bool = True,  # noqa: N803
                 check_errors: bool = False) -> decompositions._LinalgLuFactorEx:
    """:func:`lu_factor` with LAPACK's int32 ``info`` (the first zero pivot, or 0) instead of
    an error (``check_errors``: the error).

    >>> symgrad.linalg.lu_factor_ex(symgrad.zeros(2, 2)).info
    tensor(1, dtype=symgrad.int32)
    """
    if parser.bool_arg("linalg_lu_factor_ex", "check_errors", check_errors):
        lu, pivots = decompositions.lu_factor_checked(A, pivot, "torch.linalg.lu_factor_ex")
        return decompositions._LinalgLuFactorEx(lu, pivots, _info(np.zeros(A.shape[:-2])))
    return decompositions._LinalgLuFactorEx(
        *decompositions.lu_factors(A, pivot, "torch.linalg.lu_factor_ex"))


def lu(A: Tensor, *, pivot: bool = True) -> decompositions._LinalgLu:  # noqa: N803
    """``P, L, U`` with ``A = P L U`` for each m x n matrix: ``L`` m x k unit lower
    triangular, ``U`` k x n upper, k = min(m, n), ``P`` a permutation (not differentiable;
    ``LinalgLuBackward0`` for L and U).

    >>> symgrad.linalg.lu(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])).U
    tensor([[3.0000, 4.0000],
            [0.0000, 0.6667]])
    """
    return decompositions._LinalgLu(*decompositions.lu_parts(A, pivot))


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,  # noqa: N803
             adjoint: bool = False) -> Tensor:
    """``X`` with ``A X = B`` from ``A``'s packed LU factor and pivots (``X A = B`` when not
    ``left``; ``A^T`` in place of ``A`` with ``adjoint``); ``LinalgLuSolveBackward0``.

    >>> LU, pivots = symgrad.linalg.lu_factor(symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> symgrad.linalg.lu_solve(LU, pivots, symgrad.tensor([[2.0], [2.0]]))
    tensor([[1.0000],
            [0.5000]])
    """
    return decompositions.lu_solved(LU, pivots, B, left, adjoint)


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:  # noqa: N803
    """The inverse of ``A`` read as a linear map from its last ``A.ndim - ind`` dims to its
    first ``ind``: ``inv`` of it as a square matrix, reshaped to ``A.shape[ind:] +
    A.shape[:ind]``.

    >>> symgrad.linalg.tensorinv(symgrad.eye(4).reshape(4, 2, 2), ind=1).shape
    symgrad.Size([2, 2, 4])
    """
    if not isinstance(ind, int) or ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return inv(A.reshape(rows, cols)).reshape(*A.shape[ind:], *A.shape[:ind])


def tensorsolve(A: Tensor, B: Tensor, dims: Sequence[int] | None = None) -> Tensor:  # noqa: N803
    """``X`` with ``tensordot(A, X, X.ndim) = B``: ``A``'s first ``B.ndim`` dims against
    ``X``'s (``dims`` of ``A`` moved to the end first).

    >>> symgrad.linalg.tensorsolve(symgrad.eye(6).reshape(6, 2, 3), symgrad.ones(6)).shape
    symgrad.Size([2, 3])
    """
    if dims is not None:
        rest = [d for d in range(A.ndim) if d not in [_dim(d, A.ndim) for d in dims]]
        A = A.permute(rest + [_dim(d, A.ndim) for d in dims])
    rows, cols = math.prod(A.shape[:B.ndim]), math.prod(A.shape[B.ndim:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(*A.shape[B.ndim:])


def householder_product(A: Tensor, tau: Tensor) -> Tensor:  # noqa: N803
    """The first n columns of ``H_1 ... H_k`` for the Householder reflectors
    ``H_i = I - tau_i v_i v_i^T``, ``v_i`` column i of ``A`` below the diagonal with a 1 on it
    (LAPACK's ``orgqr``; ``LinalgHouseholderProductBackward0``, lowered to sympy as the
    product, so ``symbolic.check`` proves its rule).

    >>> a, tau = symgrad.geqrf(symgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> symgrad.linalg.householder_product(a, tau)
    tensor([[-0.6000, -0.8000],
            [-0.8000,  0.6000]])
    """
    return decompositions.reflector_product(A, tau, "linalg_householder_product")
