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

__all__ = ["ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
           "CyclicLR", "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR", "MultiStepLR",
           "MultiplicativeLR", "OneCycleLR", "PolynomialLR", "ReduceLROnPlateau", "SequentialLR",
           "StepLR"]

EPOCH_DEPRECATION_WARNING = _EPOCH_DEPRECATION = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available. Please open an issue if you are unable to replicate "
    "your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def _lrs(optimizer: Optimizer) -> list[float]:
    return [group["lr"] for group in optimizer.param_groups]


def _warn_get_lr_called_within_step(scheduler: LRScheduler) -> None:
    """PyTorch's warning when ``get_lr`` is called by hand (``get_last_lr`` is the public
    way to read the rates)."""
    if not scheduler._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, please use "
                      "`get_last_lr()`.", UserWarning, stacklevel=3)


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """One value per parameter group: ``param`` repeated, or a list of the right length."""
    if isinstance(param, list | tuple):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


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
    _get_lr_called_within_step = False

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
        self._initial_step()

    def _initial_step(self) -> None:
        """The step at construction, which sets epoch 0's rates."""
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
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        """Set the groups' rates for the next epoch (or ``epoch``, by the closed form)."""
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
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


class _LRScheduler(LRScheduler):
    """PyTorch's old name of :class:`LRScheduler`, which older custom schedulers subclass."""


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
        >>> sched = symgrad.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5 ** e)
        >>> opt.step()
        >>> sched.step()
        >>> sched.get_last_lr()
        [1.0]
        """
        _warn_get_lr_called_within_step(self)
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
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.lr_scheduler.StepLR(opt, 2)
        >>> opt.step()
        >>> sched.step()
        >>> sched.get_last_lr()
        [1.0]
        """
        _warn_get_lr_called_within_step(self)
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
        >>> sched = symgrad.optim.lr_scheduler.MultiStepLR(opt, [1])
        >>> opt.step()
        >>> sched.step()
        >>> sched.get_last_lr()
        [0.1]
        """
        _warn_get_lr_called_within_step(self)
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
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        >>> opt.step()
        >>> sched.step()
        >>> sched.get_last_lr()
        [0.5]
        """
        _warn_get_lr_called_within_step(self)
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
        >>> opt.step()
        >>> sched.step()
        >>> sched.get_last_lr()
        [0.8535533905932737]
        """
        _warn_get_lr_called_within_step(self)
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


def _check_chain(kind: str, optimizer: Optimizer, schedulers: Any) -> None:
    """PyTorch's checks of the schedulers SequentialLR and ChainedScheduler combine."""
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{kind} at index {index} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{kind} does not support `ReduceLROnPlateau` scheduler as it "
                             "requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {index} in the given schedulers sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(f"{kind} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(scheduler).__name__} at index {index} "
                             f"has {scheduler.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class MultiplicativeLR(LRScheduler):
    """Multiply each group's rate by ``lr_lambda(epoch)`` every epoch.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
    >>> opt.step(); sched.step(); opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]
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
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    state_dict = LambdaLR.state_dict
    load_state_dict = LambdaLR.load_state_dict

    def get_lr(self) -> list[float]:
        """The groups' rates times ``lr_lambda(last_epoch)`` (unchanged at construction).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=2.0)
        >>> sched = symgrad.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.5)
        >>> opt.step()
        >>> sched.step()
        >>> opt.param_groups[0]["lr"]
        1.0
        """
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _lrs(self.optimizer)
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]


class ConstantLR(LRScheduler):
    """Scale the rate by ``factor`` for the first ``total_iters`` epochs, then restore it.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.5, 0.5, 1.0, 1.0]
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """``factor`` at epoch 0, ``1/factor`` at ``total_iters``, else unchanged.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=1)
        >>> opt.step()
        >>> sched.step()
        >>> opt.param_groups[0]["lr"]
        1.0
        """
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer)
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate linearly from ``start_factor`` to ``end_factor`` over ``total_iters``
    epochs (warm-up).

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The next rate of PyTorch's recursive linear schedule.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=1)
        >>> opt.step()
        >>> sched.step()
        >>> opt.param_groups[0]["lr"]
        1.0
        """
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        change = self.end_factor - self.start_factor
        return [group["lr"] * (1.0 + change / (self.total_iters * self.start_factor
                                               + (self.last_epoch - 1) * change))
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * (self.start_factor + (self.end_factor - self.start_factor)
                        * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the rate as ``(1 - epoch/total_iters)^power`` until ``total_iters``.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)
    >>> lrs = []
    >>> for _ in range(5):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.5625, 0.25, 0.0625, 0.0, 0.0]
    """

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' rates times this epoch's decay factor.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.lr_scheduler.PolynomialLR(opt, total_iters=2)
        >>> opt.step()
        >>> sched.step()
        >>> opt.param_groups[0]["lr"]
        0.5
        """
        _warn_get_lr_called_within_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        factor = ((1.0 - self.last_epoch / self.total_iters)
                  / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the initial rate to ``eta_min`` over ``T_i`` epochs, then a
    restart; each period is ``T_mult`` times the previous (the first is ``T_0``). ``step``
    also takes a fractional epoch (for per-batch steps).

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 6))
    >>> lrs
    [0.5, 1.0, 0.5, 1.0]
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1,  # noqa: N803
                 eta_min: float = 0.0, last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, float | int):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """``eta_min + (base - eta_min)·(1 + cos(π·T_cur/T_i))/2`` per group.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4)
        >>> sched.step(2.0)
        >>> opt.param_groups[0]["lr"]
        0.5
        """
        _warn_get_lr_called_within_step(self)
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2 for base in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:  # type: ignore[override]
        """Advance one epoch, or go to ``epoch`` (may be fractional).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2,
        ...                                                                T_mult=2)
        >>> sched.step(5.0)
        >>> sched.T_i, sched.T_cur
        (4, 3.0)
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


def _set_momentum(optimizer: Optimizer, use_beta1: bool, momentums: Iterable[float]) -> None:
    """Write each group's momentum (``betas[0]`` for the Adam family)."""
    for group, momentum in zip(optimizer.param_groups, momentums, strict=True):
        if use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum


def _momentum_bounds(optimizer: Optimizer, base_momentum: Any,
                     max_momentum: Any) -> tuple[bool, list[Any], list[Any]]:
    """CyclicLR's and OneCycleLR's momentum set-up: the optimizer must have a momentum (or
    betas); returns (use_beta1, base momentums, max momentums)."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled")
    return ("betas" in optimizer.defaults,
            _format_param("base_momentum", optimizer, base_momentum),
            _format_param("max_momentum", optimizer, max_momentum))


class CyclicLR(LRScheduler):
    """Cycle the rate between ``base_lr`` and ``max_lr`` (a triangle of ``step_size_up`` +
    ``step_size_down`` steps; ``triangular2`` halves the amplitude every cycle, ``exp_range``
    scales it by ``gamma**iteration``), and the momentum the opposite way. Step it after
    every batch.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> sched = symgrad.optim.lr_scheduler.CyclicLR(opt, 0.1, 0.5, step_size_up=2)
    >>> lrs = []
    >>> for _ in range(5):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 6))
    >>> lrs
    [0.3, 0.5, 0.3, 0.1, 0.3]
    """

    def __init__(self, optimizer: Optimizer, base_lr: float | list[float],
                 max_lr: float | list[float], step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None,
                 scale_mode: str = "cycle", cycle_momentum: bool = True,
                 base_momentum: float = 0.8, max_momentum: float = 0.9,
                 last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                group["lr"] = lr
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1, self.base_momentums, self.max_momentums = _momentum_bounds(
                optimizer, base_momentum, max_momentum)
            if last_epoch == -1:
                _set_momentum(optimizer, self.use_beta1, self.max_momentums)
                for top, bottom, group in zip(self.max_momentums, self.base_momentums,
                                              optimizer.param_groups, strict=True):
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is None and self.mode in ("triangular", "triangular2"):
            self.scale_mode = "cycle"
        elif self._scale_fn_custom is None and self.mode == "exp_range":
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The amplitude's scale at cycle (or iteration) ``x``: the custom ``scale_fn``, or
        the mode's (1; ``1/2**(x-1)``; ``gamma**x``).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> symgrad.optim.lr_scheduler.CyclicLR(opt, 0.1, 1.0, mode="triangular2").scale_fn(3)
        0.25
        """
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self) -> list[float]:
        """This iteration's rates (and, with ``cycle_momentum``, sets the momentums).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> sched = symgrad.optim.lr_scheduler.CyclicLR(opt, 0.0, 1.0, step_size_up=4)
        >>> opt.step()
        >>> sched.step()
        >>> opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]
        (0.25, 0.875)
        """
        _warn_get_lr_called_within_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base + (top - base) * scale_factor * scale
               for base, top in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            _set_momentum(self.optimizer, self.use_beta1, [
                top - (top - base) * scale_factor * scale
                for base, top in zip(self.base_momentums, self.max_momentums, strict=True)])
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """As the base class's, with a custom ``scale_fn`` that is a plain function saved as
        None (a callable object's ``__dict__`` is saved).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> symgrad.optim.lr_scheduler.CyclicLR(opt, 0.1, 1.0).state_dict()["total_size"]
        4000.0
        """
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore ``state_dict()`` (a custom ``scale_fn`` itself stays).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> sched = symgrad.optim.lr_scheduler.CyclicLR(opt, 0.1, 1.0)
        >>> sched.load_state_dict({**sched.state_dict(), "last_epoch": 9})
        >>> sched.last_epoch
        9
        """
        state_dict = dict(state_dict)
        fn = state_dict.pop("_scale_fn_custom")
        saved_custom = self._scale_fn_custom
        super().load_state_dict(state_dict)
        self._scale_fn_custom = saved_custom
        if fn is not None and saved_custom is not None:
            saved_custom.__dict__.update(fn)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the rate rises from ``max_lr/div_factor`` to ``max_lr`` over
    ``pct_start`` of ``total_steps``, then anneals (``'cos'`` or ``'linear'``) to
    ``initial_lr/final_div_factor`` (``three_phase``: back to the initial rate first); the
    momentum (or Adam's β1) moves the opposite way. Step it after every batch.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> sched = symgrad.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=4,
    ...                                               anneal_strategy="linear")
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 6))
    >>> lrs
    [0.04, 0.714287, 0.357145, 4e-06]
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float],
                 total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | list[float] = 0.85,
                 max_momentum: float | list[float] = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = _one_cycle_phases(self.total_steps, pct_start, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for top, group in zip(max_lrs, optimizer.param_groups, strict=True):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1, base_momentums, max_momentums = _momentum_bounds(
                optimizer, base_momentum, max_momentum)
            if last_epoch == -1:
                _set_momentum(optimizer, self.use_beta1, max_momentums)
                for top, bottom, group in zip(max_momentums, base_momentums,
                                              optimizer.param_groups, strict=True):
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        """This step's rates (and, with ``cycle_momentum``, sets the momentums).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.Adam([w])
        >>> sched = symgrad.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10)
        >>> round(opt.param_groups[0]["lr"], 6), opt.param_groups[0]["betas"]
        (0.004, (0.95, 0.999))
        """
        _warn_get_lr_called_within_step(self)
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs, momentums = [], []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(self._anneal_func(group[phase["start_lr"]],
                                                 group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        momentums.append(self._anneal_func(group[phase["start_momentum"]],
                                                           group[phase["end_momentum"]], pct))
                    break
                start_step = phase["end_step"]
        if self.cycle_momentum:
            _set_momentum(self.optimizer, self.use_beta1, momentums)
        return lrs


def _total_steps(total_steps: int | None, epochs: int | None,
                 steps_per_epoch: int | None) -> int:
    """OneCycleLR's number of steps, checked as PyTorch checks it."""
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is not None and steps_per_epoch is not None:
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
            raise ValueError("Expected positive integer steps_per_epoch, but got "
                             f"{steps_per_epoch}")
        return epochs * steps_per_epoch
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


def _one_cycle_phases(total: int, pct_start: float, three_phase: bool) -> list[dict[str, Any]]:
    """OneCycleLR's phases: where each ends and the group keys it anneals between."""
    def phase(end: float, lr: tuple[str, str], momentum: tuple[str, str]) -> dict[str, Any]:
        return {"end_step": end, "start_lr": lr[0], "end_lr": lr[1],
                "start_momentum": momentum[0], "end_momentum": momentum[1]}

    up = phase(float(pct_start * total) - 1, ("initial_lr", "max_lr"),
               ("max_momentum", "base_momentum"))
    if three_phase:
        return [up, phase(float(2 * pct_start * total) - 2, ("max_lr", "initial_lr"),
                          ("base_momentum", "max_momentum")),
                phase(total - 1, ("initial_lr", "min_lr"), ("max_momentum", "max_momentum"))]
    return [up, phase(total - 1, ("max_lr", "min_lr"), ("base_momentum", "max_momentum"))]


class SequentialLR(LRScheduler):
    """Run ``schedulers`` one after another, switching at each of ``milestones`` (the next
    scheduler starts from its epoch 0).

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> warmup = symgrad.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> decay = symgrad.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched = symgrad.optim.lr_scheduler.SequentialLR(opt, [warmup, decay], milestones=[2])
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler],
                 milestones: list[int], last_epoch: int = -1) -> None:
        kind = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{kind} expects at least one scheduler, but got no scheduler.")
        _check_chain(kind, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        index = bisect_right(milestones, 0)
        schedulers[index]._initial_step()
        self._last_lr = schedulers[index].get_last_lr()

    def recursive_undo(self, sched: Any = None) -> None:
        """Step every (nested) scheduler back one epoch: their constructors each took one.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> s = symgrad.optim.lr_scheduler.StepLR(opt, 2)
        >>> seq = symgrad.optim.lr_scheduler.SequentialLR(opt, [s], milestones=[])
        >>> s.last_epoch
        0
        """
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for inner in scheds._schedulers:
                self.recursive_undo(inner)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Advance one epoch: the current scheduler steps (a new one starts at epoch 0).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> s = symgrad.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        >>> seq = symgrad.optim.lr_scheduler.SequentialLR(opt, [s], milestones=[])
        >>> opt.step()
        >>> seq.step()
        >>> seq.get_last_lr()
        [0.5]
        """
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict[str, Any]:
        """Its own state and each scheduler's ``state_dict`` (under ``_schedulers``).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> s = symgrad.optim.lr_scheduler.StepLR(opt, 2)
        >>> seq = symgrad.optim.lr_scheduler.SequentialLR(opt, [s], milestones=[])
        >>> seq.state_dict()["_schedulers"][0]["step_size"]
        2
        """
        return _chained_state(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore ``state_dict()``, each scheduler's included.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> s = symgrad.optim.lr_scheduler.StepLR(opt, 2)
        >>> seq = symgrad.optim.lr_scheduler.SequentialLR(opt, [s], milestones=[])
        >>> seq.load_state_dict({**seq.state_dict(), "last_epoch": 3})
        >>> seq.last_epoch
        3
        """
        _load_chained_state(self, state_dict)


def _chained_state(scheduler: Any) -> dict[str, Any]:
    state = {k: v for k, v in scheduler.__dict__.items() if k not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in scheduler._schedulers]
    return state


def _load_chained_state(scheduler: Any, state_dict: dict[str, Any]) -> None:
    state_dict = dict(state_dict)
    saved = state_dict.pop("_schedulers")
    scheduler.__dict__.update(state_dict)
    for inner, state in zip(scheduler._schedulers, saved, strict=False):
        inner.load_state_dict(state)


class ChainedScheduler(LRScheduler):
    """Step several schedulers of one optimizer together, each multiplying in its change.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> a = symgrad.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> b = symgrad.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    >>> sched = symgrad.optim.lr_scheduler.ChainedScheduler([a, b])
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 6))
    >>> lrs
    [0.5, 0.45, 0.81, 0.729]
    """

    def __init__(self, schedulers: list[LRScheduler],
                 optimizer: Optimizer | None = None) -> None:
        kind = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{kind} expects at least one scheduler to be chained, but got no "
                             "scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_chain(kind, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _lrs(schedulers[-1].optimizer)

    def step(self) -> None:  # type: ignore[override]
        """Step every scheduler, in order.

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> s = symgrad.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        >>> chained = symgrad.optim.lr_scheduler.ChainedScheduler([s])
        >>> opt.step()
        >>> chained.step()
        >>> chained.get_last_lr()
        [0.5]
        """
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _lrs(self._schedulers[-1].optimizer)

    state_dict = SequentialLR.state_dict
    load_state_dict = SequentialLR.load_state_dict
