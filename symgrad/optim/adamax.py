"""``symgrad.optim.Adamax``, as PyTorch computes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check
from symgrad.optim.sgd import _unsupported


def _check_adam_like(lr: float, eps: float, betas: tuple[float, float],
                     weight_decay: float) -> None:
    """The argument checks Adam, Adamax, NAdam and RAdam share, in PyTorch's order."""
    _check(lr >= 0.0, f"Invalid learning rate: {lr}")
    _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
    _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
    _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")


class Adamax(Optimizer):
    """Adamax (Adam with the infinity norm): ``m = lerp(m, g, 1-β1)``,
    ``u = max(β2·u, |g| + eps)``, then ``p -= lr/(1-β1ᵗ) · m/u``. ``weight_decay`` adds
    ``weight_decay·p`` to the gradient. PyTorch's single-tensor float32 arithmetic, in its
    order.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0, -1.0]))
    >>> opt = symgrad.optim.Adamax([w], lr=0.1)
    >>> (w * symgrad.tensor([3.0, -0.5])).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_adam_like(lr, eps, betas, weight_decay)
        _unsupported(differentiable, None)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        step = self._count(state, param, ("exp_avg", "exp_inf"))
        beta1, beta2 = group["betas"]
        if group["weight_decay"] != 0:
            grad = K.add(grad, param, group["weight_decay"])
        exp_avg = state["exp_avg"].numpy()
        exp_inf = state["exp_inf"].numpy()
        K.lerp_(exp_avg, grad, 1 - beta1)
        bound = np.abs(grad)
        K.add_(bound, np.asarray(bound.dtype.type(group["eps"])))
        np.maximum(K.mul_(exp_inf, beta2), bound, out=exp_inf)
        clr = group["lr"] / (1 - beta1**step)
        K.addcdiv_(param, exp_avg, exp_inf, -clr)
