"""``symgrad.optim.Rprop``, as PyTorch computes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.creation import from_numpy
from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check
from symgrad.optim.sgd import _unsupported


class Rprop(Optimizer):
    """Resilient backpropagation: each element's step size grows by ``etas[1]`` while its
    gradient keeps its sign and shrinks by ``etas[0]`` when it flips (that step is then
    skipped), clamped to ``step_sizes``; ``p -= sign(g)·step_size``. PyTorch's
    single-tensor float32 arithmetic, in its order.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0, -1.0]))
    >>> opt = symgrad.optim.Rprop([w], lr=0.1)
    >>> (w * symgrad.tensor([3.0, -0.5])).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        _unsupported(differentiable, None)
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        fresh = not state
        self._count(state)
        if fresh:
            state["prev"] = self._zeros(param)
            state["step_size"] = from_numpy(np.full_like(grad, group["lr"]))
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        prev = state["prev"].numpy()
        step_size = state["step_size"].numpy()
        kind = param.dtype.type
        sign = np.sign(grad * prev)
        factor = np.where(sign > 0, kind(etaplus), np.where(sign < 0, kind(etaminus),
                                                            kind(1))).astype(param.dtype)
        step_size *= factor
        np.clip(step_size, kind(step_size_min), kind(step_size_max), out=step_size)
        grad = np.where(factor == kind(etaminus), kind(0), grad).astype(param.dtype)
        K.addcmul_(param, np.sign(grad), step_size, -1)
        np.copyto(prev, grad)
