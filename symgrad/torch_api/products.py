"""PyTorch spellings of the matrix products (see ``symgrad.torch_api``): ``matmul`` and
``a @ b`` with numpy's rank rules, ``mm``, ``mv``, ``dot``; the node is named as PyTorch names
it for the ranks involved (``MmBackward0``, ``MvBackward0``, ``DotBackward0`` ...). The op rule
is in ``symgrad.ops.linalg``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.autograd.graph import node_class, warn_at_user
from symgrad.dispatch import _broadcast_error, apply_op, binary_method
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor
from symgrad.torch_api.declaration import COMPOSITE, torch_api
from symgrad.torch_api.reductions import result_type

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_MATMUL, _MM = ops.linalg.matmul, node_class("MmBackward0")
# a @ b of two float matrices of one dtype: the operators' fast path, with np.matmul (the op's
# forward without xp), two frames below the op's caller
_mm_plain = binary_method(_MATMUL, lambda other: None, kernel=np.matmul, cls=_MM, depth=2)


def _mm(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a @ b`` is the common case: two float matrices of one dtype (no error to word;
    an ``mm``, as PyTorch names its node)."""
    dtype = a.dtype
    return a.ndim == 2 and b.ndim == 2 and b.dtype is dtype and (dtype is _F32 or dtype is _F64)


@torch_api("matmul", example=lambda x: x.matmul(x.T))
def matmul(self, other: Tensor) -> Tensor:
    """Matrix product with numpy/PyTorch rank rules (1-D, 2-D, batched, broadcast), also
    written ``a @ b`` (``MmBackward0``, ``MvBackward0``, ``DotBackward0`` ... as PyTorch names
    them).

    >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> symgrad.matmul(a, symgrad.tensor([1.0, 1.0]))
    tensor([3., 7.])
    """
    parser.tensor_arg("matmul", "other", other, 2)
    a, b = self._value, other._value
    if _mm(a, b):
        return _mm_plain(self, other)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    if a.dtype != b.dtype:  # (PyTorch's wording is the kernel's each shape reaches)
        da, db = self.dtype, other.dtype
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                               f"{da._torch_name} and {db._torch_name}")
        if b.ndim == 1:
            raise RuntimeError("addmv input tensors must have the same dtype, but got "
                               f"{db._torch_name}, {da._torch_name}, and {db._torch_name}")
        if b.ndim > 2:
            raise RuntimeError(f"expected scalar type {da._torch_name} but found "
                               f"{db._torch_name}")
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{da._cpp_name} != {db._cpp_name}")
    return apply_op(ops.linalg.matmul, self, other)


@torch_api("matmul", example=lambda x: x.mm(x.T))
def mm(self, mat2: Tensor) -> Tensor:
    """Product of two 2-D matrices.

    >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> symgrad.mm(a, symgrad.eye(2))
    tensor([[1., 2.],
            [3., 4.]])
    """
    parser.tensor_arg("mm", "mat2", mat2)
    for name, t in (("self", self), ("mat2", mat2)):
        if t.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix")
    return self.matmul(mat2)


@torch_api("matmul", example=lambda x: x.mv(x[0]))
def mv(self, vec: Tensor) -> Tensor:
    """Product of a 2-D matrix and a 1-D vector.

    >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> symgrad.mv(a, symgrad.tensor([1.0, -1.0]))
    tensor([-1., -1.])
    """
    parser.tensor_arg("mv", "vec", vec)
    if self.dim() != 2 or vec.dim() != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"1, {self.dim()}, {vec.dim()}")
    return self.matmul(vec)


@torch_api("matmul", example=lambda x: x[0].dot(x[1]))
def dot(self, tensor: Tensor) -> Tensor:
    """Inner product of two 1-D tensors.

    >>> symgrad.dot(symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]))
    tensor(11.)
    """
    parser.tensor_arg("dot", "tensor", tensor)
    if self.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError("1D tensors expected, but got "
                           f"{self.dim()}D and {tensor.dim()}D tensors")
    return self.matmul(tensor)


@torch_api("matmul", function=False, example=lambda x: x @ x.T)
def __matmul__(self, other: Any) -> Tensor:
    if not isinstance(other, Tensor):
        return NotImplemented
    a, b = self._value, other._value
    dtype = a.dtype  # (_mm, inlined)
    if a.ndim == 2 and b.ndim == 2 and b.dtype is dtype and (dtype is _F32 or dtype is _F64):
        return _mm_plain(self, other)
    return self.matmul(other)


@torch_api("matmul", function=False, example=lambda x: x.T.__rmatmul__(x))
def __rmatmul__(self, other: Any) -> Tensor:
    if not isinstance(other, Tensor):
        return NotImplemented
    return other.matmul(self)


@torch_api("bmm", example=lambda x: x.unsqueeze(0).bmm(x.T.unsqueeze(0)))
def bmm(self, mat2: Tensor) -> Tensor:
    """Batched matrix product of two 3-D tensors with the same batch size: ``(b, n, k) @
    (b, k, m)`` (``BmmBackward0``).

    >>> symgrad.bmm(symgrad.ones(2, 1, 3), symgrad.ones(2, 3, 2)).shape
    symgrad.Size([2, 1, 2])
    """
    parser.tensor_arg("bmm", "mat2", mat2)
    for name, x in (("batch1", self), ("batch2", mat2)):
        if x.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    (b, _, k), got = self._value.shape, mat2._value.shape
    if got[:2] != (b, k):
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {k}] but got: [{got[0]}, {got[1]}].")
    if self._value.dtype != mat2._value.dtype:
        raise RuntimeError(f"expected scalar type {self.dtype._torch_name} but found "
                           f"{mat2.dtype._torch_name}")
    return apply_op(ops.linalg.bmm, self, mat2)


@torch_api(COMPOSITE, example=lambda x: x.inner(x))
def inner(self, other: Tensor) -> Tensor:
    """Sum over the last dimension of both: ``out[i..., j...] = sum_k self[i..., k] *
    other[j..., k]``; a 0-d operand multiplies.

    >>> symgrad.inner(symgrad.tensor([1.0, 2.0]), symgrad.tensor([[3.0, 4.0], [1.0, 0.0]]))
    tensor([11.,  1.])
    """
    parser.tensor_arg("inner", "other", other)
    if self.dim() == 0 or other.dim() == 0:
        return self * other
    a, b = self._value.shape, other._value.shape
    if a[-1] != b[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(a)} and {list(b)}")
    if self.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    return tensordot(self, other, ([self.dim() - 1], [other.dim() - 1]))


@torch_api(COMPOSITE, example=lambda x: x[0].vdot(x[1]))
def vdot(self, other: Tensor) -> Tensor:
    """The dot product of two 1-D tensors (for real tensors, :func:`dot`).

    >>> symgrad.vdot(symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]))
    tensor(11.)
    """
    parser.tensor_arg("vdot", "other", other)
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError("1D tensors expected, but got "
                           f"{self.dim()}D and {other.dim()}D tensors")
    if self._value.shape != other._value.shape:
        n, m = self._value.shape[0], other._value.shape[0]
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                           f"have the same number of elements, but got {n} and {m} elements "
                           "respectively")
    return self.matmul(other)


def _contracted(dims: Any, na: int, nb: int) -> tuple[list[int], list[int]]:
    """tensordot's ``dims`` as the contracted dimensions of each operand."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > na or dims > nb:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(na - dims, na)), list(range(dims))
    first, second = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(first) != len(second):
        raise RuntimeError("both dimension lists should have same length")
    return [d % na for d in first], [d % nb for d in second]


@torch_api(COMPOSITE, method=False, example=lambda x: tensordot(x, x, ([1], [1])))
def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """Sum of products over the dimensions ``dims`` names: an int ``d`` (the last ``d`` of
    ``a`` with the first ``d`` of ``b``) or two lists of dimensions; the result has ``a``'s
    free dimensions, then ``b``'s. Computed as PyTorch does: permute, reshape, ``mm``, view.

    >>> symgrad.tensordot(symgrad.ones(2, 3), symgrad.ones(3, 4), dims=1)
    tensor([[3., 3., 3., 3.],
            [3., 3., 3., 3.]])
    """
    parser.tensor_arg("tensordot", "a", a)
    parser.tensor_arg("tensordot", "b", b)
    if out is not None:
        raise TypeError("symgrad's tensordot does not take out=")
    ca, cb = _contracted(dims, a.dim(), b.dim())
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    sa, sb = a._value.shape, b._value.shape
    for i, j in zip(ca, cb, strict=True):
        if sa[i] != sb[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{sa[i]} in dim {i} and second has size {sb[j]} in dim {j}")
    fa = [d for d in range(a.dim()) if d not in ca]
    fb = [d for d in range(b.dim()) if d not in cb]
    size = int(np.prod([sa[d] for d in ca]))
    left = a.permute(*fa, *ca).reshape(-1, size)
    right = b.permute(*cb, *fb).reshape(size, -1)
    return left.mm(right).view(tuple(sa[d] for d in fa) + tuple(sb[d] for d in fb))


@torch_api(COMPOSITE, method=False, example=lambda x: chain_matmul(x, x.T, x))
def chain_matmul(*matrices: Tensor, out: Any = None) -> Tensor:
    """The product of 2-D matrices, left to right (deprecated in PyTorch for
    ``linalg.multi_dot``, and warns so).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     symgrad.chain_matmul(symgrad.eye(2), symgrad.ones(2, 3)).shape
    symgrad.Size([2, 3])
    """
    warnings.warn("symgrad.chain_matmul is deprecated and will be removed in a future release "
                  "(as torch.chain_matmul in PyTorch). Multiply with @ instead.", UserWarning,
                  stacklevel=2)
    if out is not None:
        raise TypeError("symgrad's chain_matmul does not take out=")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        parser.tensor_arg("chain_matmul", "matrices", m)
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
        if i and matrices[i - 1]._value.shape[1] != m._value.shape[0]:
            p, q = matrices[i - 1]._value.shape, m._value.shape
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(p)} and "
                               f"{list(q)} cannot be multiplied")
    if len(matrices) == 1:
        return matrices[0].clone()
    result = matrices[0]
    for m in matrices[1:]:
        result = result.mm(m)
    return result



# ---------------------------------------------------------------- inverse, det, solve
class LinAlgError(RuntimeError):
    """A linear algebra function met a matrix it cannot handle (a singular one): PyTorch's
    ``torch.linalg.LinAlgError``, a RuntimeError.

    >>> symgrad.linalg.inv(symgrad.zeros(2, 2))
    Traceback (most recent call last):
    symgrad.linalg.LinAlgError: linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular.
    """  # noqa: E501 - a doctest's exception line is one line


LinAlgError.__module__ = "symgrad.linalg"  # (where users find it)


# the kernels PyTorch has no float16 version of; the other functions refuse low precision
_HALF_KERNELS = {"linalg.det": "lu_cpu", "linalg.solve": "lu_cpu", "linalg.cholesky":
                 "cholesky_cpu"}


def _square_matrices(fn: str, A: Tensor, label: str | None = None) -> None:  # noqa: N803
    """PyTorch's checks of a linear algebra function's matrix argument, in its order
    (``label``: the name its low-precision refusal gives, when not ``fn``)."""
    parser.tensor_arg(fn.replace(".", "_"), "A", A)  # (the parser names linalg_inv)
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if A._value.dtype.kind != "f":
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype._torch_name}")
    rows, cols = A.shape[-2:]
    if rows != cols:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {rows} "
                           f"by {cols} matrices")
    if A.dtype is dtypes.float16:
        if fn in _HALF_KERNELS:
            raise dtypes.not_implemented(_HALF_KERNELS[fn], A.dtype)
        raise RuntimeError(f"{label or fn}: Low precision dtypes not supported. Got Half")


def _batch_prefix(a: np.ndarray, index: tuple[int, ...]) -> str:
    """PyTorch's "(Batch element i): " before a message about the matrix ``a[index]`` of a
    batch (nothing for a single matrix)."""
    return f"(Batch element {np.ravel_multi_index(index, a.shape[:-2])}): " if a.ndim > 2 else ""


def _first_singular(a: np.ndarray) -> tuple[str, int]:
    """Where LAPACK's LU factorization (partial pivoting, as PyTorch's inverse runs it) of
    ``a``'s matrices first meets a zero pivot: the "(Batch element i): " prefix PyTorch writes
    for a batch, and the 1-based index of that diagonal element."""
    for index in np.ndindex(*a.shape[:-2]):
        u = np.array(a[index], dtype=np.float64)
        n = u.shape[0]
        for k in range(n):
            pivot = k + int(np.argmax(np.abs(u[k:, k])))
            if u[pivot, k] == 0:
                return _batch_prefix(a, index), k + 1
            u[[k, pivot]] = u[[pivot, k]]
            u[k + 1:] -= np.outer(u[k + 1:, k] / u[k, k], u[k])
    return "", 1  # (numpy found it singular in finite precision: the first element)


@torch_api("inverse", example=lambda x: x[:, :2].inverse())
def inverse(self) -> Tensor:
    """The inverse of each square matrix in the last two dims (``LinalgInvExBackward0``);
    a singular one raises :class:`symgrad.linalg.LinAlgError`. Also ``symgrad.linalg.inv``.

    >>> symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]).inverse()
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    return _inverse(self, "linalg.inv")


def singular_error(fn: str, a: np.ndarray) -> LinAlgError:
    """PyTorch's error for inverting the singular matrices ``a``, in ``fn``'s name."""
    prefix, k = _first_singular(a)
    return LinAlgError(f"{fn}: {prefix}The diagonal element {k} is zero, the inversion could "
                       "not be completed because the input matrix is singular.")


def unsolvable_error(fn: str, a: np.ndarray) -> LinAlgError:
    """PyTorch's error for solving with the singular matrices ``a``, in ``fn``'s name."""
    prefix, _ = _first_singular(a)
    return LinAlgError(f"{fn}: {prefix}The solver failed because the input matrix is "
                       "singular.")


def not_positive_error(fn: str, a: np.ndarray) -> LinAlgError:
    """PyTorch's error for the Cholesky factorization of matrices ``a`` not all positive
    definite, in ``fn``'s name."""
    prefix, order = _first_not_positive(a)
    return LinAlgError(f"{fn}: {prefix}The factorization could not be completed because the "
                       f"input is not positive-definite (the leading minor of order {order} is "
                       "not positive-definite).")


def _inverse(A: Tensor, fn: str) -> Tensor:  # noqa: N803
    _square_matrices(fn, A)
    try:
        return apply_op(ops.linalg.inverse, A)
    except np.linalg.LinAlgError:
        raise singular_error(fn, A._value) from None


@torch_api("det", example=lambda x: x[:, :2].det())
def det(self) -> Tensor:
    """The determinant of each square matrix in the last two dims (``LinalgDetBackward0``; its
    gradient ``det(A) A^-T`` is 0 at a singular matrix, as PyTorch's). Also
    ``symgrad.linalg.det``.

    >>> symgrad.tensor([[2.0, 1.0], [1.0, 3.0]]).det()
    tensor(5.)
    """
    _square_matrices("linalg.det", self)
    return apply_op(ops.linalg.det, self)


def _cholesky(A: Tensor, upper: Any, fn: str) -> Tensor:  # noqa: N803
    _square_matrices(fn, A)
    parser.bool_arg(fn.replace(".", "_"), "upper", upper)
    try:
        return apply_op(ops.linalg.cholesky, A, upper=bool(upper))
    except np.linalg.LinAlgError:
        raise not_positive_error(fn, A._value) from None


def _first_not_positive(a: np.ndarray) -> tuple[str, int]:
    """The first matrix of ``a`` (its "(Batch element i): " prefix in a batch) that is not
    positive definite, and the order of its first leading minor that is not."""
    for index in np.ndindex(*a.shape[:-2]):
        for order in range(1, a.shape[-1] + 1):
            try:
                np.linalg.cholesky(a[index][:order, :order])
            except np.linalg.LinAlgError:
                return _batch_prefix(a, index), order
    return "", a.shape[-1]


@torch_api("cholesky", example=lambda x: (x @ x.mT).cholesky())
def cholesky(self, upper: bool = False) -> Tensor:
    """The Cholesky factor of each symmetric positive definite matrix, with PyTorch's
    deprecation warning (:func:`symgrad.linalg.cholesky` is the current spelling;
    ``CholeskyBackward0``).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.tensor([[4.0, 2.0], [2.0, 3.0]]).cholesky()
    tensor([[2.0000, 0.0000],
            [1.0000, 1.4142]])
    """
    warn_at_user("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
                 "removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be "
                 "replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, "
                 "upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis "
                 "transform will produce equivalent results for all valid (symmetric positive "
                 "definite) inputs.")
    out = _cholesky(self, upper, "linalg.cholesky")
    if out.grad_fn is not None:
        out.grad_fn.__class__ = node_class("CholeskyBackward0")
    return out


_Slogdet = result_type("slogdet", ("sign", "logabsdet"), """What :func:`slogdet` returns:
    ``(sign, logabsdet)`` with names (PyTorch's ``torch.return_types.slogdet``).""", __name__)
_LinalgSlogdet = result_type("linalg_slogdet", ("sign", "logabsdet"), """What
    :func:`symgrad.linalg.slogdet` returns (``torch.return_types.linalg_slogdet``).""", __name__)


def _slogdet(A: Tensor, fn: str, label: str | None = None) -> tuple[Tensor, Tensor]:  # noqa: N803
    _square_matrices(fn, A, label)
    return apply_op(ops.linalg.slogdet_sign, A), apply_op(ops.linalg.slogdet, A)


@torch_api("slogdet", example=lambda x: x[:, :2].slogdet()[1])
def slogdet(self) -> _Slogdet:
    """The sign and the log of the absolute value of each square matrix's determinant, without
    overflow (``LinalgSlogdetBackward0``: ``logabsdet``'s gradient is ``A^-T``, nan at a
    singular matrix; ``sign``'s, -1, 0 or 1, is 0). Also ``symgrad.linalg.slogdet``.

    >>> symgrad.tensor([[2.0, 1.0], [1.0, -3.0]]).slogdet()
    symgrad.return_types.slogdet(
    sign=tensor(-1.),
    logabsdet=tensor(1.9459))
    """
    return _Slogdet(*_slogdet(self, "linalg.slogdet"))


@torch_api(COMPOSITE, example=lambda x: x[:, :2].logdet())
def logdet(self) -> Tensor:
    """The log of each square matrix's determinant: nan for a negative one, -inf for a singular
    one (as PyTorch, through :func:`slogdet` and ``where``: ``WhereBackward0``).

    >>> symgrad.tensor([[2.0, 1.0], [1.0, 3.0]]).logdet()
    tensor(1.6094)
    """
    from symgrad.torch_api.arithmetic import where  # (arithmetic imports this module)

    sign, logabsdet = _slogdet(self, "linalg.slogdet", "logdet")
    return where(sign == -1, math.nan, logabsdet)


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:  # noqa: N803 - PyTorch's names
    """``X`` with ``A @ X = B`` for square ``A`` (``X @ A = B`` when not ``left``; batched,
    broadcast); ``B`` a vector when it is 1-d or ``A``'s batch of vectors
    (``LinalgSolveExBackward0``). ``symgrad.linalg.solve``.

    >>> symgrad.linalg.solve(symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]), symgrad.tensor([2.0, 2.0]))
    tensor([1.0000, 0.5000])
    """
    return _solved(A, B, left, ops.linalg.solve)


def _solved(A: Tensor, B: Tensor, left: Any, op: Any) -> Tensor:  # noqa: N803
    """linalg.solve's checks, in PyTorch's order, then ``op`` (solve, or solve_ex's)."""
    fn = "linalg.solve"
    _square_matrices(fn, A)
    parser.tensor_arg("linalg_solve", "B", B, 2)
    left = parser.bool_arg("linalg_solve", "left", left)
    if B.dtype is not A.dtype:
        raise RuntimeError(f"{fn}: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype._torch_name} and B of type {B.dtype._torch_name} instead")
    n = A.shape[-1]
    vectors = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    rows, cols = (B.shape[-1], 1) if vectors else B.shape[-2:]
    if (rows if left else cols) != n or vectors and not left:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {equation} "
                           f"({n}x{n} and {rows}x{cols})")
    # (batch dims that do not broadcast: PyTorch's error, B's batch read as tensor a)
    batches = [np.empty(s + (0,)) for s in (B.shape[:-1] if vectors else B.shape[:-2],
                                             A.shape[:-2])]
    if _broadcast_error(batches, True):
        raise RuntimeError(_broadcast_error(batches))
    try:
        if vectors and B.ndim > 1:  # (a batch of vectors: as matrices of one column)
            return apply_op(op, A, B.unsqueeze(-1)).squeeze(-1)
        return apply_op(op, A, B) if left else apply_op(op, A, B, left=False)
    except np.linalg.LinAlgError:
        raise unsolvable_error("symgrad.linalg.solve", A._value) from None
