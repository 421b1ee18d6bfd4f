"""``symgrad.nn.utils.spectral_norm``: PyTorch's hook-based spectral normalization
(``spectral_norm`` / ``remove_spectral_norm``): the weight divided by its largest singular
value, estimated by power iteration on the buffers ``<name>_u`` and ``<name>_v``."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd.grad_mode import no_grad
from symgrad.creation import tensor as _tensor
from symgrad.nn.modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor
from symgrad.torch_api.nn import normalize

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm`: before each call it sets
    ``module.<name>`` to ``<name>_orig / sigma``, after ``n_power_iterations`` power
    iterations in training mode."""

    _version: int = 1
    name: str
    dim: int
    n_power_iterations: int
    eps: float

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """``weight`` as a matrix with dimension ``dim`` as its rows."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        """``<name>_orig / sigma``, ``sigma = u . (W v)`` (after the power iterations, which
        update the buffers in place, when ``do_power_iteration``)."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = normalize(weight_mat.t().mv(u), dim=0, eps=self.eps, out=v)
                    u = normalize(weight_mat.mv(v), dim=0, eps=self.eps, out=u)
                u = u.clone()
                v = v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Make ``<name>`` a plain parameter again, holding the current normalized weight."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat: Tensor, u: Tensor, target_sigma: Tensor) -> Tensor:
        """A ``v`` with ``normalize(W v) = u`` (least squares, through the pseudo-inverse of
        ``W^T W``) scaled so that ``u . (W v) = target_sigma``: what an old state_dict lacks."""
        w = weight_mat.detach().numpy()
        solved = np.linalg.pinv(w.T @ w, rcond=1e-15) @ w.T @ u.detach().numpy()
        v = _tensor(solved.astype(w.dtype))
        return v.mul_(target_sigma / u.dot(weight_mat.mv(v)))

    def _load_old_state(self, module: Module, state_dict: dict, prefix: str,
                        local_metadata: dict, strict: bool, missing: list[str],
                        *rest: Any) -> None:
        """The load_state_dict pre-hook: a state_dict saved before PyTorch 1.1 holds
        ``<name>`` (the normalized weight) instead of ``<name>_v``, which is solved for."""
        version = local_metadata.get("spectral_norm", {}).get(self.name + ".version")
        if version is not None and version >= 1:
            return
        key = prefix + self.name
        if (version is None and key not in state_dict
                and all(key + suffix in state_dict for suffix in ("_orig", "_u", "_v"))):
            return  # the current layout
        absent = [key + suffix for suffix in ("_orig", "", "_u") if key + suffix not in state_dict]
        if absent:
            if strict:
                missing.extend(absent)
            return
        with no_grad():
            weight_orig = state_dict[key + "_orig"]
            sigma = (weight_orig / state_dict.pop(key)).mean()
            state_dict[key + "_v"] = self._solve_v_and_rescale(
                self.reshape_weight_to_matrix(weight_orig), state_dict[key + "_u"], sigma)

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> SpectralNorm:
        """Move parameter ``name`` to ``<name>_orig``, draw ``<name>_u`` and ``<name>_v`` and
        add the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            rows, cols = fn.reshape_weight_to_matrix(weight).shape
            u = normalize(weight.new_empty(rows).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(cols).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module.register_load_state_dict_pre_hook(fn._load_old_state)
        return fn


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """PyTorch's hook-based spectral normalization: parameter ``name`` moves to
    ``<name>_orig``, the buffers ``<name>_u`` and ``<name>_v`` (drawn from the global random
    generator, normalized) hold the power iteration's vectors, and a forward pre-hook sets
    ``module.<name>`` to ``<name>_orig / sigma`` before each call, iterating
    ``n_power_iterations`` times first in training mode. ``dim`` (default: 1 for the
    transposed convolutions, else 0) is the dimension taken as the rows. A state_dict saved
    before PyTorch 1.1 (the normalized ``<name>`` in place of ``<name>_v``) still loads: ``v``
    is solved for. Returns ``module``.

    >>> lin = symgrad.nn.utils.spectral_norm(symgrad.nn.Linear(3, 2))
    >>> list(lin.state_dict())
    ['bias', 'weight_orig', 'weight_u', 'weight_v']
    >>> for _ in range(30):  # each call in training mode iterates once more
    ...     out = lin(symgrad.ones(1, 3))
    >>> round(float(np.linalg.norm(lin.weight.detach().numpy(), 2)), 4)  # largest singular value
    1.0
    """
    if dim is None:
        dim = 1 if isinstance(module, ConvTranspose1d | ConvTranspose2d | ConvTranspose3d) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`spectral_norm`: ``name`` is a parameter again, holding the current
    normalized weight (the load_state_dict hook goes too, which PyTorch 2.13 leaves).

    >>> lin = symgrad.nn.utils.spectral_norm(symgrad.nn.Linear(3, 2))
    >>> list(symgrad.nn.utils.remove_spectral_norm(lin).state_dict())
    ['bias', 'weight']
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for key, hook in list(module._load_state_dict_pre_hooks.items()):
        owner = getattr(hook, "__self__", None)
        if isinstance(owner, SpectralNorm) and owner.name == name:
            del module._load_state_dict_pre_hooks[key]
            break
    return module
