"""``symgrad.optim.Adam`` and ``AdamW`` (with amsgrad), as PyTorch computes them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check
from symgrad.optim.sgd import _unsupported


def decay_and_moments(optimizer: Optimizer, param: np.ndarray, grad: np.ndarray,
                      state: dict[str, Any], group: dict[str, Any],
                      extra: tuple[str, ...] = ()) -> tuple[float, np.ndarray, np.ndarray]:
    """The first half of an Adam-family step, as PyTorch orders it: count the step (state
    ``exp_avg``, ``exp_avg_sq`` and the ``extra`` buffers made on the first), apply weight
    decay (to the gradient, or to p when decoupled), then update the moments in place:
    ``m = lerp(m, g, 1-β1)``, ``v = β2·v + (1-β2)·g²``. Returns the step and m, v."""
    step = optimizer._count(state, param, ("exp_avg", "exp_avg_sq", *extra))
    beta1, beta2 = group["betas"]
    weight_decay = group["weight_decay"]
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            K.mul_(param, 1 - group["lr"] * weight_decay)
        else:
            grad = K.add(grad, param, weight_decay)
    exp_avg = state["exp_avg"].numpy()
    exp_avg_sq = state["exp_avg_sq"].numpy()
    K.lerp_(exp_avg, grad, 1 - beta1)
    K.addcmul_(K.mul_(exp_avg_sq, beta2), grad, grad, 1 - beta2)
    return step, exp_avg, exp_avg_sq


class Adam(Optimizer):
    """Adam: ``m = lerp(m, g, 1-β1)``, ``v = β2·v + (1-β2)·g²``, then
    ``p -= lr/(1-β1ᵗ) · m / (√v̂/√(1-β2ᵗ) + eps)`` where v̂ is v, or its running maximum with
    ``amsgrad``. ``weight_decay`` adds ``weight_decay·p`` to the gradient (AdamW instead
    shrinks p by ``lr·weight_decay``). PyTorch's single-tensor float32 arithmetic, in its order.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0, -1.0]))
    >>> opt = symgrad.optim.Adam([w], lr=0.1)
    >>> (w * symgrad.tensor([3.0, -0.5])).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    _decoupled = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _unsupported(differentiable, fused)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay or self._decoupled}
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        extra = ("max_exp_avg_sq",) if group["amsgrad"] else ()
        step, exp_avg, exp_avg_sq = decay_and_moments(self, param, grad, state, group, extra)
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if group["amsgrad"]:
            top = state["max_exp_avg_sq"].numpy()
            np.maximum(top, exp_avg_sq, out=top)
            denom = K.div(np.sqrt(top), bias_correction2_sqrt)
        else:
            denom = K.div(np.sqrt(exp_avg_sq), bias_correction2_sqrt)
        K.add_(denom, np.asarray(denom.dtype.type(eps)))
        K.addcdiv_(param, exp_avg, denom, -step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p *= 1 - lr·weight_decay`` before the Adam step
    (default weight_decay 0.01).

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0]))
    >>> opt = symgrad.optim.AdamW([w], lr=0.1, weight_decay=0.5, amsgrad=True)
    >>> w.sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8500], requires_grad=True)
    """

    _decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
