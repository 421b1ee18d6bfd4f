"""``symgrad.optim.NAdam``, as PyTorch computes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.creation import tensor
from symgrad.numeric import dtypes
from symgrad.optim import _kernels as K
from symgrad.optim.adamax import _check_adam_like
from symgrad.optim.optimizer import Optimizer, _check
from symgrad.optim.sgd import _unsupported


class NAdam(Optimizer):
    """Adam with Nesterov momentum: the momentum coefficient ``μₜ = β1·(1 - ½·0.96^(t·ψ))``
    (ψ = ``momentum_decay``) and its running product set the weights of the gradient and the
    first moment in the update; ``decoupled_weight_decay`` shrinks p as AdamW does.
    PyTorch's single-tensor float32 arithmetic, in its order.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0, -1.0]))
    >>> opt = symgrad.optim.NAdam([w], lr=0.1)
    >>> (w * symgrad.tensor([3.0, -0.5])).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.8944, -0.8944], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_adam_like(lr, eps, betas, weight_decay)
        _check(momentum_decay >= 0.0, f"Invalid momentum_decay value: {momentum_decay}")
        _unsupported(differentiable, None)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        fresh = not state
        step = self._count(state)
        if fresh:
            state["mu_product"] = tensor(1.0, dtype=dtypes.float32)
            state["exp_avg"] = self._zeros(param)
            state["exp_avg_sq"] = self._zeros(param)
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
        bias_correction2 = 1 - beta2**step
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                K.mul_(param, 1 - lr * weight_decay)
            else:
                grad = K.add(grad, param, weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = K.mul_(state["mu_product"].numpy(), mu)
        exp_avg = state["exp_avg"].numpy()
        exp_avg_sq = state["exp_avg_sq"].numpy()
        K.lerp_(exp_avg, grad, 1 - beta1)
        K.addcmul_(K.mul_(exp_avg_sq, beta2), grad, grad, 1 - beta2)
        denom = np.sqrt(K.div(exp_avg_sq, bias_correction2))
        product = float(mu_product)
        mu_product_next = product * mu_next
        K.add_(denom, np.asarray(denom.dtype.type(eps)))
        K.addcdiv_(param, grad, denom, -lr * (1.0 - mu) / (1.0 - product))
        K.addcdiv_(param, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))
