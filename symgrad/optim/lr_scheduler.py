"""``symgrad.optim.lr_scheduler``: PyTorch's learning-rate schedules, with its formulas
(the chainable form when stepped, the closed form when given an epoch)."""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from symgrad.optim.optimizer import Optimizer

__all__ = ["CosineAnnealingLR", "ExponentialLR", "LRScheduler", "LambdaLR", "MultiStepLR",
           "ReduceLROnPlateau", "StepLR"]

_EPOCH_DEPRECATION = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available. Please open an issue if you are unable to replicate "
    "your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def _lrs(optimizer: Optimizer) -> list[float]:
    return [group["lr"] for group in optimizer.param_groups]


class LRScheduler:
    """Base class: remembers each group's ``initial_lr`` (``base_lrs``), counts epochs in
    ``last_epoch`` and sets each group's ``lr`` from ``get_lr()`` at every ``step()``
    (once at construction, for epoch 0).

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(5):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming scheduler with last_epoch >= 0.")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The learning rates for the current ``last_epoch`` (called by ``step``).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> symgrad.optim.lr_scheduler.LRScheduler.get_lr(
        ...     symgrad.optim.lr_scheduler.StepLR(opt, 1))
        Traceback (most recent call last):
            ...
        NotImplementedError
        """
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step`` set.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1)
        >>> symgrad.optim.lr_scheduler.StepLR(opt, 1).get_last_lr()
        [0.1]
        """
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to ``epoch``, deprecated: the closed form) and set the
        groups' learning rates. Call it after ``optimizer.step()``.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> opt.step()
        >>> sched.step()
        >>> opt.param_groups[0]["lr"]
        0.5
        """
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", True):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                "1.1.0 and later, you should call them in the opposite order: "
                "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                "result in PyTorch skipping the first value of the learning rate schedule. See "
                "more details at "
                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> sched = symgrad.optim.lr_scheduler.StepLR(symgrad.optim.SGD([w], lr=1.0), 3)
        >>> sched.state_dict()["last_epoch"], sched.state_dict()["step_size"]
        (0, 3)
        """
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore ``state_dict()``.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> sched = symgrad.optim.lr_scheduler.StepLR(symgrad.optim.SGD([w], lr=1.0), 3)
        >>> sched.load_state_dict({"last_epoch": 7})
        >>> sched.last_epoch
        7
        """
        self.__dict__.update(state_dict)


class LambdaLR(LRScheduler):
    """``lr = initial_lr · lr_lambda(epoch)`` (one function, or one per group).

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
    >>> opt.step(); sched.step(); opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.3333333333333333]
    """

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, list | tuple):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """``base_lr · lr_lambda(last_epoch)`` per group.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=2.0)
        >>> symgrad.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5).get_lr()
        [1.0]
        """
        return [base * fn(self.last_epoch)
                for fn, base in zip(self.lr_lambdas, self.base_lrs, strict=True)]

    def state_dict(self) -> dict[str, Any]:
        """As the base class's, with each lambda that is a plain function saved as None (a
        callable object's ``__dict__`` is saved).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> symgrad.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0).state_dict()["lr_lambdas"]
        [None]
        """
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else
                               fn.__dict__.copy() for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore ``state_dict()`` (the lambdas themselves stay).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> sched = symgrad.optim.lr_scheduler.LambdaLR(symgrad.optim.SGD([w], lr=1.0),
        ...                                             lambda e: 1.0)
        >>> sched.load_state_dict({"last_epoch": 4, "lr_lambdas": [None]})
        >>> sched.last_epoch
        4
        """
        state_dict = dict(state_dict)
        saved = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, attributes in zip(self.lr_lambdas, saved, strict=False):
            if attributes is not None:
                fn.__dict__.update(attributes)


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> symgrad.optim.lr_scheduler.StepLR(symgrad.optim.SGD([w], lr=1.0), 30).gamma
    0.1
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' rates times ``gamma`` at a multiple of ``step_size``, else unchanged.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> symgrad.optim.lr_scheduler.StepLR(symgrad.optim.SGD([w], lr=1.0), 2).get_lr()
        [1.0]
        """
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` at each milestone epoch.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' rates times ``gamma`` (per repetition) at a milestone, else unchanged.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> symgrad.optim.lr_scheduler.MultiStepLR(opt, [5]).get_lr()
        [1.0]
        """
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        return [base * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every epoch.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> symgrad.optim.lr_scheduler.ExponentialLR(symgrad.optim.SGD([w], lr=1.0), 0.9).gamma
    0.9
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' rates times ``gamma`` (unchanged at construction).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> sched = symgrad.optim.lr_scheduler.ExponentialLR(symgrad.optim.SGD([w], lr=1.0), 0.5)
        >>> sched.get_lr()
        [0.5]
        """
        if self._is_initial:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneal from the initial rate to ``eta_min`` along half a cosine over ``T_max``
    epochs (PyTorch's recursive form, which continues past T_max).

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2)
    >>> lrs = []
    >>> for _ in range(2):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 6))
    >>> lrs
    [0.5, 0.0]
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The next rate of the recursive cosine schedule.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        >>> sched.last_epoch = 1
        >>> sched.get_lr()
        [0.8535533905932737]
        """
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _lrs(self.optimizer)
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base - self.eta_min)
                    * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base, group in zip(self.base_lrs, groups, strict=True)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class ReduceLROnPlateau(LRScheduler):
    """Multiply the learning rate by ``factor`` when a metric (passed to ``step``) has not
    improved for ``patience`` epochs (improved: by ``threshold``, relative or absolute),
    then wait ``cooldown`` epochs; never below ``min_lr``.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
    >>> for loss in [1.0, 0.9, 0.9, 0.9, 0.9]:
    ...     sched.step(loss)
    >>> sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: list[float] | float = 0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, list | tuple):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _lrs(optimizer)
        self._init_is_better(mode, threshold, threshold_mode)
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: float, epoch: int | None = None) -> None:  # type: ignore[override]
        """Record this epoch's ``metrics`` (a number or one-element tensor) and reduce the
        rates if it has stalled.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
        >>> sched.step(symgrad.tensor(1.0)); sched.step(symgrad.tensor(2.0))
        >>> opt.param_groups[0]["lr"]
        0.1
        """
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self.optimizer)

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` "
                                   f"({len(groups)}) differs from when `ReduceLROnPlateau` was "
                                   f"initialized ({len(self.min_lrs)}), usually due to a new "
                                   "param group being added to the optimizer. Please modify "
                                   "the `min_lrs` field to match the length of the "
                                   "`optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                group["lr"] = new

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is waiting out its cooldown.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> symgrad.optim.lr_scheduler.ReduceLROnPlateau(opt).in_cooldown
        False
        """
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore ``state_dict()``.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> sched = symgrad.optim.lr_scheduler.ReduceLROnPlateau(symgrad.optim.SGD([w], lr=1.0))
        >>> sched.load_state_dict({"best": 0.5, "mode": "max"})
        >>> sched.mode_worse
        -inf
        """
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
