"""``symgrad.optim.RAdam``, as PyTorch computes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.optim import _kernels as K
from symgrad.optim.adam import decay_and_moments
from symgrad.optim.adamax import _check_adam_like
from symgrad.optim.optimizer import Optimizer
from symgrad.optim.sgd import _unsupported


class RAdam(Optimizer):
    """Rectified Adam: Adam's moments; while the length of the approximated simple moving
    average ``ρₜ`` is at most 5 the step is ``lr·m̂`` (momentum only), after that it is
    rectified by ``r = √((ρₜ-4)(ρₜ-2)ρ∞ / ((ρ∞-4)(ρ∞-2)ρₜ))`` and scaled by
    ``√(1-β2ᵗ)/(√v + eps)``. ``decoupled_weight_decay`` shrinks p as AdamW does.
    PyTorch's single-tensor float32 arithmetic, in its order.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0, -1.0]))
    >>> opt = symgrad.optim.RAdam([w], lr=0.1)
    >>> (w * symgrad.tensor([3.0, -0.5])).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.7000, -0.9500], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_adam_like(lr, eps, betas, weight_decay)
        _unsupported(differentiable, None)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        step, exp_avg, exp_avg_sq = decay_and_moments(self, param, grad, state, group)
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        update = K.div(exp_avg, bias_correction1)
        K.mul_(update, lr)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            root = np.sqrt(exp_avg_sq)
            K.add_(root, np.asarray(root.dtype.type(eps)))
            # scalar / tensor is PyTorch's reciprocal-then-multiply
            adaptive = K.mul_(np.reciprocal(root), bias_correction2**0.5)
            update *= adaptive
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            K.mul_(update, rect)
        K.add_(param, update, -1.0)
