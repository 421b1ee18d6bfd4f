"""``symgrad.nn.utils.parametrizations``: PyTorch's ``weight_norm`` and ``spectral_norm`` as
parametrizations (:mod:`symgrad.nn.utils.parametrize`). ``orthogonal`` is not provided: it
needs ``linalg.matrix_exp``, ``linalg.qr`` and ``linalg.householder_product``, which symgrad
does not have."""

from __future__ import annotations

from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from symgrad.nn.modules.module import Module
from symgrad.nn.utils import parametrize
from symgrad.nn.utils.weight_norm import _weight_norm, norm_except_dim
from symgrad.tensor import Tensor
from symgrad.torch_api.nn import normalize

__all__ = ["spectral_norm", "weight_norm"]


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
