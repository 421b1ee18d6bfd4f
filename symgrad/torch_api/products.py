"""PyTorch spellings of the matrix products (see ``symgrad.torch_api``): ``matmul`` and
``a @ b`` with numpy's rank rules, ``mm``, ``mv``, ``dot``; the node is named as PyTorch names
it for the ranks involved (``MmBackward0``, ``MvBackward0``, ``DotBackward0`` ...). The op rule
is in ``symgrad.ops.linalg``.
"""

from __future__ import annotations

from typing import Any

from symgrad import ops
from symgrad.dispatch import apply_op
from symgrad.tensor import Tensor
from symgrad.torch_api.declaration import torch_api


@torch_api("matmul", example=lambda x: x.matmul(x.T))
def matmul(self, other: Tensor) -> Tensor:
    """Matrix product with numpy/PyTorch rank rules (1-D, 2-D, batched, broadcast), also
    written ``a @ b`` (``MmBackward0``, ``MvBackward0``, ``DotBackward0`` ... as PyTorch names
    them).

    >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> symgrad.matmul(a, symgrad.tensor([1.0, 1.0]))
    tensor([3., 7.])
    """
    if not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not "
                        f"{type(other).__name__}")
    a, b = self._value, other._value
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    if a.dtype != b.dtype:
        da, db = self.dtype, other.dtype
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                               f"{da._torch_name} and {db._torch_name}")
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{da._cpp_name} != {db._cpp_name}")
    return apply_op(ops.linalg.matmul, self, other)


@torch_api("matmul", example=lambda x: x.mm(x.T))
def mm(self, other: Tensor) -> Tensor:
    """Product of two 2-D matrices.

    >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> symgrad.mm(a, symgrad.eye(2))
    tensor([[1., 2.],
            [3., 4.]])
    """
    for name, t in (("self", self), ("mat2", other)):
        if t.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix")
    return self.matmul(other)


@torch_api("matmul", example=lambda x: x.mv(x[0]))
def mv(self, vec: Tensor) -> Tensor:
    """Product of a 2-D matrix and a 1-D vector.

    >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> symgrad.mv(a, symgrad.tensor([1.0, -1.0]))
    tensor([-1., -1.])
    """
    if self.dim() != 2 or vec.dim() != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"1, {self.dim()}, {vec.dim()}")
    return self.matmul(vec)


@torch_api("matmul", example=lambda x: x[0].dot(x[1]))
def dot(self, other: Tensor) -> Tensor:
    """Inner product of two 1-D tensors.

    >>> symgrad.dot(symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]))
    tensor(11.)
    """
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError("1D tensors expected, but got "
                           f"{self.dim()}D and {other.dim()}D tensors")
    return self.matmul(other)


@torch_api("matmul", function=False, example=lambda x: x @ x.T)
def __matmul__(self, other: Any) -> Tensor:
    if not isinstance(other, Tensor):
        return NotImplemented
    return self.matmul(other)


@torch_api("matmul", function=False, example=lambda x: x.T.__rmatmul__(x))
def __rmatmul__(self, other: Any) -> Tensor:
    if not isinstance(other, Tensor):
        return NotImplemented
    return other.matmul(self)
