"""``symgrad.optim.ASGD``, as PyTorch computes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.creation import tensor
from symgrad.numeric import dtypes
from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check
from symgrad.optim.sgd import _unsupported


class ASGD(Optimizer):
    """Averaged stochastic gradient descent: ``p = p·(1 - λ·η) - η·g`` with the decaying
    rate ``η = lr / (1 + λ·lr·t)^α``, and the running average ``ax`` of the iterates
    (from step ``t0`` on). PyTorch's single-tensor float32 arithmetic, in its order.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0]))
    >>> opt = symgrad.optim.ASGD([w], lr=0.1, lambd=0.0)
    >>> w.sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _unsupported(differentiable, None)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        if not state:
            state["step"] = self._new_step()
            state["eta"] = tensor(float(group["lr"]), dtype=dtypes.float32)
            state["mu"] = tensor(1.0, dtype=dtypes.float32)
            state["ax"] = self._zeros(param)
        step = self._count(state)
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        if group["weight_decay"] != 0:
            grad = K.add(grad, param, group["weight_decay"])
        eta, mu = state["eta"].numpy(), state["mu"].numpy()
        ax = state["ax"].numpy()
        eta_value = float(eta)
        K.mul_(param, 1 - lambd * eta_value)
        K.add_(param, grad, -eta_value)
        if float(mu) != 1:
            ax += (param - ax) * mu.astype(ax.dtype)
        else:
            np.copyto(ax, param)
        eta[...] = lr / ((1 + lambd * lr * step) ** alpha)
        mu[...] = 1 / max(1, step - t0)
