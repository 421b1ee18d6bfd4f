"""``symgrad.optim.RMSprop``, as PyTorch computes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check
from symgrad.optim.sgd import _unsupported


class RMSprop(Optimizer):
    """RMSprop: ``v = α·v + (1-α)·g²``; ``avg = √v`` (centered: ``√(v - ḡ²)`` with the
    running mean ḡ of g) ``+ eps``; then ``p -= lr·g/avg``, or with momentum
    ``buf = momentum·buf + g/avg`` and ``p -= lr·buf``. PyTorch's float32 arithmetic, in
    its order.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0]))
    >>> opt = symgrad.optim.RMSprop([w], lr=0.01)
    >>> w.sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(alpha >= 0.0, f"Invalid alpha value: {alpha}")
        _unsupported(differentiable, None)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        fresh = not state
        self._count(state)
        if fresh:
            state["square_avg"] = self._zeros(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = self._zeros(param)
            if group["centered"]:
                state["grad_avg"] = self._zeros(param)
        alpha = group["alpha"]
        if group["weight_decay"] != 0:
            grad = K.add(grad, param, group["weight_decay"])
        square_avg = state["square_avg"].numpy()
        K.addcmul_(K.mul_(square_avg, alpha), grad, grad, 1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"].numpy()
            K.lerp_(grad_avg, grad, 1 - alpha)
            avg = np.sqrt(K.addcmul_(square_avg.copy(), grad_avg, grad_avg, -1))
        else:
            avg = np.sqrt(square_avg)
        K.add_(avg, np.asarray(avg.dtype.type(group["eps"])))
        if group["momentum"] > 0:
            buf = state["momentum_buffer"].numpy()
            K.addcdiv_(K.mul_(buf, group["momentum"]), grad, avg)
            K.add_(param, buf, -group["lr"])
        else:
            K.addcdiv_(param, grad, avg, -group["lr"])
