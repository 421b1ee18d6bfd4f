"""``symgrad.optim.Muon``: momentum orthogonalized by a Newton–Schulz iteration, as PyTorch
computes it (the iteration in bfloat16, emulated on float32 arrays)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


def _bf16(values: np.ndarray | float) -> np.ndarray:
    """``values`` rounded to bfloat16 (to nearest, ties to even), held in float32."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1)))
    return (rounded & np.uint32(0xFFFF0000)).view(np.float32)


def _addmm(bias: np.ndarray, a: np.ndarray, b: np.ndarray, beta: float = 1.0,
           alpha: float = 1.0) -> np.ndarray:
    """bfloat16 ``addmm``: ``beta·bias + alpha·(a @ b)`` accumulated in float32, rounded
    once to bfloat16."""
    product = a.astype(np.float32) @ b.astype(np.float32)
    return _bf16(np.float32(beta) * bias + np.float32(alpha) * product)


def _zeropower_via_newtonschulz(grad: np.ndarray, ns_coefficients: tuple[float, float, float],
                                ns_steps: int, eps: float) -> np.ndarray:
    """PyTorch's quintic Newton–Schulz iteration towards the orthogonal factor of ``grad``."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    ortho = _bf16(grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        ortho = ortho.T
    norm = _bf16(np.sqrt(np.sum(ortho.astype(np.float64) ** 2)))
    ortho = _bf16(ortho / np.maximum(norm, _bf16(eps)))
    for _ in range(ns_steps):
        gram = _addmm(np.zeros((), np.float32), ortho, ortho.T, beta=0.0)
        update = _addmm(gram, gram, gram, beta=b, alpha=c)
        ortho = _addmm(ortho, update, ortho, beta=a)
    return ortho.T if tall else ortho


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Muon, for 2-d weights: SGD momentum (Nesterov by default) whose update is replaced by
    an approximately orthogonal matrix (five Newton–Schulz steps in bfloat16), scaled by
    ``lr·√max(1, rows/cols)`` (``adjust_lr_fn='match_rms_adamw'``: ``0.2·√max(rows, cols)``),
    with decoupled weight decay. PyTorch's arithmetic, bfloat16 rounding emulated.

    >>> w = symgrad.nn.Parameter(symgrad.eye(2))
    >>> opt = symgrad.optim.Muon([w], lr=0.1, weight_decay=0.0)
    >>> w.grad = symgrad.tensor([[2.0, 0.0], [0.0, 2.0]])
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([[0.8875, 0.0000],
            [0.0000, 0.8875]], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B,
                                                                DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS,
                 adjust_lr_fn: str | None = None) -> None:
        _check(lr >= 0.0, f"Learning rate should be >= 0 but is: {lr}")
        _check(momentum >= 0.0, f"momentum should be >= 0 but is: {momentum}")
        _check(weight_decay >= 0.0, f"weight decay should be >= 0 but is: {weight_decay}")
        _check(adjust_lr_fn is None or adjust_lr_fn in ("original", "match_rms_adamw"),
               f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any],
                group: dict[str, Any]) -> None:
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = self._zeros(grad)
        momentum = group["momentum"]
        buf = state["momentum_buffer"].numpy()
        K.lerp_(buf, grad, 1 - momentum)
        update = K.lerp_(np.array(grad), buf, momentum) if group["nesterov"] else buf
        update = _zeropower_via_newtonschulz(update, group["ns_coefficients"],
                                             group["ns_steps"], group["eps"])
        adjusted_lr = _adjust_lr(group["lr"], group["adjust_lr_fn"], param.shape)
        K.mul_(param, 1 - group["lr"] * group["weight_decay"])
        K.add_(param, update.astype(param.dtype), -adjusted_lr)
