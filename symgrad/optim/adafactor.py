"""``symgrad.optim.Adafactor``, as PyTorch computes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.creation import from_numpy
from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check


def _norm(values: np.ndarray, axis: int | None = None) -> np.ndarray:
    """The 2-norm (over ``axis``, kept), accumulated in float64 and rounded to the dtype."""
    wide = values.astype(np.float64)
    total = np.sqrt(np.sum(wide * wide, axis=axis, keepdims=axis is not None))
    return np.asarray(total).astype(values.dtype)


class Adafactor(Optimizer):
    """Adafactor: the second moment of a matrix gradient is kept factored as row and column
    means of g² (a vector's in full), decayed with ``1 - β2ₜ = t^beta2_decay``; the update
    ``g/√v̂`` is clipped to RMS ``d`` and scaled by ``max(eps2, RMS(p))·min(lr, 1/√t)``.
    PyTorch's single-tensor float32 arithmetic, in its order.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.0, -1.0]))
    >>> opt = symgrad.optim.Adafactor([w], lr=0.1)
    >>> (w * symgrad.tensor([3.0, -0.5])).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        _check(lr >= 0.0, f"Learning rate should be >= 0 but is: {lr}")
        _check(beta2_decay <= 0.0, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        _check(eps[0] is None or eps[0] >= 0.0, f"epsilon1 should be >= 0 but is: {eps[0]}")
        _check(eps[1] >= 0.0, f"epsilon2 should be >= 0 but is: {eps[1]}")
        _check(d >= 1.0, f"Clipping threshold d should be >= 1 but is: {d}")
        _check(weight_decay >= 0.0, f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        if not state:
            state["step"] = self._new_step()
            if grad.ndim > 1:
                state["row_var"] = from_numpy(np.zeros(grad.shape[:-1] + (1,), grad.dtype))
                state["col_var"] = from_numpy(np.zeros(grad.shape[:-2] + (1,)
                                                       + grad.shape[-1:], grad.dtype))
            else:
                state["variance"] = self._zeros(grad)
        lr, d, weight_decay = group["lr"], group["d"], group["weight_decay"]
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(np.finfo(param.dtype).eps)
        kind = param.dtype.type
        step = self._count(state)
        one_minus_beta2_t = step ** group["beta2_decay"]
        rho_t = min(lr, 1 / (step**0.5))
        alpha = max(eps2, float(_norm(param)) / (param.size**0.5)) * rho_t
        if weight_decay != 0:
            K.mul_(param, 1 - lr * weight_decay)
        if grad.ndim > 1:
            row_var, col_var = state["row_var"].numpy(), state["col_var"].numpy()
            row_mean = K.div(np.square(_norm(grad, -1)), grad.shape[-1])
            K.lerp_(row_var, row_mean, one_minus_beta2_t)
            col_mean = K.div(np.square(_norm(grad, -2)), grad.shape[-2])
            K.lerp_(col_var, col_mean, one_minus_beta2_t)
            var_estimate = row_var @ col_var
            row_scale = np.mean(row_var.astype(np.float64), axis=-2, keepdims=True)
            var_estimate /= np.maximum(row_scale.astype(param.dtype), kind(eps1))
        else:
            variance = state["variance"].numpy()
            K.lerp_(variance, grad * grad, one_minus_beta2_t)
            var_estimate = variance.copy()
        np.maximum(var_estimate, kind(eps1 * eps1), out=var_estimate)
        update = np.reciprocal(np.sqrt(var_estimate))
        update *= grad
        denom = max(1.0, float(_norm(update)) / ((update.size**0.5) * d))
        K.add_(param, update, -alpha / denom)
