"""``symgrad.optim.SparseAdam``: PyTorch's Adam for sparse gradients. symgrad's gradients are
dense, so ``step`` refuses them with PyTorch's error."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from symgrad.autograd.grad_mode import enable_grad
from symgrad.optim.optimizer import Optimizer, _check


class SparseAdam(Optimizer):
    """Adam for sparse gradients (embedding tables); symgrad has no sparse tensors, so a
    step with a (dense) gradient raises PyTorch's RuntimeError; use ``Adam`` instead.

    >>> w = symgrad.nn.Parameter(symgrad.ones(2))
    >>> opt = symgrad.optim.SparseAdam([w])
    >>> w.sum().backward()
    >>> opt.step()
    Traceback (most recent call last):
        ...
    RuntimeError: SparseAdam does not support dense gradients, please consider Adam instead
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        _check(lr > 0.0, f"Invalid learning rate: {lr}")
        _check(eps > 0.0, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Refuse every (dense) gradient as PyTorch does; parameters without one are skipped.

        >>> opt = symgrad.optim.SparseAdam([symgrad.nn.Parameter(symgrad.ones(1))])
        >>> opt.step() is None
        True
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is not None:
                    raise RuntimeError("SparseAdam does not support dense gradients, please "
                                       "consider Adam instead")
        return loss
