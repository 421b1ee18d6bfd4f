"""``symgrad.optim.Adadelta``, as PyTorch computes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check
from symgrad.optim.sgd import _unsupported


class Adadelta(Optimizer):
    """Adadelta: ``v = ρ·v + (1-ρ)·g²``, ``δ = √(u + eps)/√(v + eps) · g``,
    ``u = ρ·u + (1-ρ)·δ²``, then ``p -= lr·δ``. PyTorch's single-tensor float32 arithmetic,
    in its order.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0]))
    >>> opt = symgrad.optim.Adadelta([w])
    >>> w.sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9968], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _unsupported(differentiable, None)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        self._count(state, param, ("square_avg", "acc_delta"))
        rho = group["rho"]
        eps = np.asarray(param.dtype.type(group["eps"]))
        if group["weight_decay"] != 0:
            grad = K.add(grad, param, group["weight_decay"])
        square_avg = state["square_avg"].numpy()
        acc_delta = state["acc_delta"].numpy()
        K.addcmul_(K.mul_(square_avg, rho), grad, grad, 1 - rho)
        std = np.sqrt(square_avg + eps)
        delta = np.sqrt(acc_delta + eps)
        delta /= std
        delta *= grad
        K.addcmul_(K.mul_(acc_delta, rho), delta, delta, 1 - rho)
        K.add_(param, delta, -group["lr"])
