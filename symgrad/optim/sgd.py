"""``symgrad.optim.SGD``: stochastic gradient descent with momentum, as PyTorch computes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.creation import from_numpy
from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check


class SGD(Optimizer):
    """Stochastic gradient descent: ``g = grad + weight_decay·p``; with momentum
    ``buf = momentum·buf + (1 - dampening)·g`` (the first step: ``buf = g``) and ``g = buf``
    (nesterov: ``g + momentum·buf``); then ``p -= lr·g`` (``maximize``: ascend).
    The float32 arithmetic is PyTorch's single-tensor implementation, in its order.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0]))
    >>> opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     opt.zero_grad()
    ...     (w * 2).sum().backward()
    ...     opt.step()
    >>> w
    Parameter containing:
    tensor([0.4200], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(not nesterov or (momentum > 0 and dampening == 0),
               "Nesterov momentum requires a momentum and zero dampening")
        _unsupported(differentiable, fused)
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        if group["weight_decay"] != 0:
            grad = K.add(grad, param, group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            if state.get("momentum_buffer") is None:
                state["momentum_buffer"] = from_numpy(np.array(grad))
                buf = state["momentum_buffer"].numpy()
            else:
                buf = state["momentum_buffer"].numpy()
                K.add_(K.mul_(buf, momentum), grad, 1 - group["dampening"])
            grad = K.add(grad, buf, momentum) if group["nesterov"] else buf
        K.add_(param, grad, -group["lr"])


def _unsupported(differentiable: bool, fused: bool | None) -> None:
    """symgrad's optimizers update outside the graph with PyTorch's single-tensor arithmetic;
    ``foreach`` is accepted and ignored (the results are the same)."""
    if differentiable:
        raise RuntimeError("symgrad's optimizers do not support differentiable=True")
    if fused:
        raise RuntimeError("symgrad's optimizers do not support fused=True")
