"""``symgrad.nn.utils.parametrizations``: PyTorch's ``orthogonal``, ``weight_norm`` and
``spectral_norm`` as parametrizations (:mod:`symgrad.nn.utils.parametrize`)."""

from __future__ import annotations

import enum
from typing import Any

from symgrad import creation, linalg
from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from symgrad.nn.modules.module import Module
from symgrad.nn.utils import parametrize
from symgrad.nn.utils.weight_norm import _weight_norm, norm_except_dim
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor
from symgrad.torch_api.nn import normalize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    """The weight-norm parametrization: ``(g, v) -> v * g / ||v||`` (norms along ``dim``)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Weight normalization as a parametrization: ``module.<name>`` is computed from
    ``parametrizations.<name>.original0`` (the norms along ``dim``, ``g``) and ``original1``
    (the direction, ``v``) as ``g * v / ||v||`` (``dim=None``: one norm of the whole tensor).
    A state_dict of the hook-based :func:`symgrad.nn.utils.weight_norm` (``<name>_g``,
    ``<name>_v``) still loads. Returns ``module``.

    >>> from symgrad.nn.utils.parametrizations import weight_norm
    >>> lin = weight_norm(symgrad.nn.Linear(3, 2))
    >>> [name for name, _ in lin.named_parameters()]
    ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    >>> lin.weight.grad_fn.name()
    'WeightNormInterfaceBackward0'
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_old_names(module: Module, state_dict: dict, prefix: str, *rest: Any) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module.register_load_state_dict_pre_hook(load_old_names)
    return module


class _SpectralNorm(Module):
    """The spectral-norm parametrization: the weight divided by its largest singular value,
    estimated by power iteration on the buffers ``_u`` and ``_v`` (one step per read in
    training mode); a 1-d weight is divided by its norm."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            rows, cols = weight_mat.shape
            u = weight_mat.new_empty(rows).normal_(0, 1)
            v = weight_mat.new_empty(cols).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = normalize(weight_mat.mv(self._v), dim=0, eps=self.eps, out=self._u)
                self._v = normalize(weight_mat.H.mv(self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Spectral normalization as a parametrization: ``module.<name>`` is the original divided
    by its largest singular value, estimated by power iteration on the buffers
    ``parametrizations.<name>.0._u`` and ``_v`` (drawn from the global random generator and
    iterated 15 times at registration; ``n_power_iterations`` more at each read in training
    mode). ``dim`` (default: 1 for the transposed convolutions, else 0) is the dimension taken
    as the rows. Returns ``module``.

    >>> from symgrad.nn.utils.parametrizations import spectral_norm
    >>> lin = spectral_norm(symgrad.nn.Linear(3, 2))
    >>> list(lin.state_dict())
    ['bias', 'parametrizations.weight.original', 'parametrizations.weight.0._u', \
'parametrizations.weight.0._v']
    >>> round(float(np.linalg.norm(lin.weight.detach().numpy(), 2)), 4)  # largest singular value
    1.0
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, ConvTranspose1d | ConvTranspose2d | ConvTranspose3d) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


def _is_orthogonal(Q: Tensor) -> bool:  # noqa: N803
    """Whether the columns of ``Q`` are orthonormal, to PyTorch's tolerance."""
    rows, cols = Q.shape[-2:]
    eps = 10.0 * rows * float(dtypes.finfo(Q.dtype).eps)
    return bool((Q.mT @ Q).allclose(creation.eye(cols, dtype=Q.dtype), atol=eps))


def _make_orthogonal(A: Tensor) -> Tensor:  # noqa: N803
    """The Q of ``A = QR`` (A tall) with R's diagonal non-negative."""
    reflectors, tau = A.geqrf()
    Q = linalg.householder_product(reflectors, tau)  # noqa: N806
    return Q * reflectors.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


class _Orthogonal(Module):
    """The orthogonal parametrization: a skew-symmetric matrix through ``matrix_exp`` or the
    Cayley map, or a product of Householder reflectors; with ``base`` (the dynamic
    trivialization), ``base @`` that."""

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:  # noqa: N803
        rows, cols = X.shape[-2:]
        transposed = rows < cols
        if transposed:
            X, rows, cols = X.mT, cols, rows  # noqa: N806
        if self.orthogonal_map is _OrthMaps.householder:
            A = X.tril(-1)  # noqa: N806
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)  # noqa: N806
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)  # noqa: N806
        else:
            X = X.tril()  # noqa: N806
            if rows != cols:
                from symgrad.torch_api.shaping import cat

                X = cat([X, X.new_zeros(rows, rows - cols).expand(*X.shape[:-2], -1, -1)],  # noqa: N806
                        dim=-1)
            A = X - X.mT  # noqa: N806
            if self.orthogonal_map is _OrthMaps.matrix_exp:
                Q = linalg.matrix_exp(A)  # noqa: N806
            else:
                eye = creation.eye(rows, dtype=A.dtype)
                Q = linalg.solve(eye - A * 0.5, eye + A * 0.5)  # noqa: N806
            if rows != cols:
                Q = Q[..., :cols]  # noqa: N806
        if hasattr(self, "base"):
            Q = self.base @ Q  # noqa: N806
        return Q.mT if transposed else Q

    @no_grad()
    def right_inverse(self, Q: Tensor) -> Tensor:  # noqa: N803
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        given = Q
        rows, cols = Q.shape[-2:]
        transposed = rows < cols
        if transposed:
            Q, rows, cols = Q.mT, cols, rows  # noqa: N806
        if not hasattr(self, "base"):
            if self.orthogonal_map is not _OrthMaps.householder:
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            A, tau = Q.geqrf()  # noqa: N806
            signs = A.diagonal(dim1=-2, dim2=-1).sign()
            A.diagonal(dim1=-2, dim2=-1).copy_(signs.where(tau != 0.0, -signs))
            return A.mT if transposed else A
        if rows == cols:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)  # noqa: N806
        else:
            from symgrad.torch_api.shaping import cat

            filler = creation.randn(*Q.shape[:-2], rows, rows - cols, dtype=Q.dtype)
            Q = _make_orthogonal(cat([Q, filler], dim=-1))  # noqa: N806
        self.base = Q
        minus_identity = creation.zeros_like(given)
        minus_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return minus_identity


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Make ``module.<name>`` (a matrix or a batch of them) orthogonal: orthonormal columns
    when it is tall, rows when it is wide. ``orthogonal_map``: ``'matrix_exp'`` or
    ``'cayley'`` of a skew-symmetric matrix, or ``'householder'`` reflectors (default
    ``'matrix_exp'`` for a square matrix, ``'householder'`` otherwise); with
    ``use_trivialization`` (default), a buffer ``base`` stores the current orthogonal matrix
    and the parametrization starts from the identity (PyTorch's dynamic trivialization).
    A weight that is not orthogonal is first made so by a QR decomposition.

    >>> from symgrad.nn.utils.parametrizations import orthogonal
    >>> lin = orthogonal(symgrad.nn.Linear(3, 3))
    >>> bool((lin.weight @ lin.weight.mT).allclose(symgrad.eye(3), atol=1e-6))
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    chosen = getattr(_OrthMaps, str(orthogonal_map), None)
    if chosen is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    parametrize.register_parametrization(
        module, name, _Orthogonal(weight, chosen, use_trivialization=use_trivialization),
        unsafe=True)
    return module
