"""``symgrad.optim.Adagrad``, as PyTorch computes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.creation import from_numpy
from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check
from symgrad.optim.sgd import _unsupported


class Adagrad(Optimizer):
    """Adagrad: ``sum += g²``, then ``p -= clr·g/(√sum + eps)`` with
    ``clr = lr / (1 + (t-1)·lr_decay)``. Its state exists from construction, as in PyTorch.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0]))
    >>> opt = symgrad.optim.Adagrad([w], lr=0.5)
    >>> (w * 4).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.5000], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(lr_decay >= 0.0, f"Invalid lr_decay value: {lr_decay}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(initial_accumulator_value >= 0.0,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _unsupported(differentiable, fused)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)

    def _init_state(self, param: Any, group: dict[str, Any]) -> None:
        state = self.state[param]
        state["step"] = self._new_step()
        value = param.detach().numpy()
        state["sum"] = from_numpy(np.full_like(value, group["initial_accumulator_value"]))

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        step = self._count(state)
        if group["weight_decay"] != 0:
            grad = K.add(grad, param, group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state_sum = state["sum"].numpy()
        K.addcmul_(state_sum, grad, grad, 1)
        std = K.add_(np.sqrt(state_sum), np.asarray(state_sum.dtype.type(group["eps"])))
        K.addcdiv_(param, grad, std, -clr)
