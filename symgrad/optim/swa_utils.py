"""``symgrad.optim.swa_utils``: stochastic weight averaging and exponential moving averages
of a model's weights (``AveragedModel``), the ``SWALR`` schedule and ``update_bn``, as in
PyTorch."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.creation import tensor
from symgrad.nn.modules.module import Module
from symgrad.nn.modules.normalization import _BatchNorm
from symgrad.numeric import dtypes
from symgrad.optim.lr_scheduler import LRScheduler, _format_param
from symgrad.optim.optimizer import Optimizer
from symgrad.tensor import Tensor

__all__ = ["SWALR", "AveragedModel", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"]

AvgFn = Callable[[Tensor, Tensor, Any], Tensor]
MultiAvgFn = Callable[[list[Tensor], list[Tensor], Any], None]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_avg_fn(decay: float = 0.999) -> AvgFn:
    """The exponential moving average ``decay·ema + (1 - decay)·current`` of one parameter.

    >>> ema = symgrad.optim.swa_utils.get_ema_avg_fn(0.5)
    >>> ema(symgrad.tensor([0.0]), symgrad.tensor([2.0]), 1)
    tensor([1.])
    """
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> AvgFn:
    """The running mean ``avg + (current - avg)/(n + 1)`` of one parameter.

    >>> swa = symgrad.optim.swa_utils.get_swa_avg_fn()
    >>> swa(symgrad.tensor([1.0]), symgrad.tensor([4.0]), 2)
    tensor([2.])
    """

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def get_ema_multi_avg_fn(decay: float = 0.999) -> MultiAvgFn:
    """The exponential moving average of lists of parameters, in place
    (``ema.lerp_(current, 1 - decay)``).

    >>> ema = symgrad.optim.swa_utils.get_ema_multi_avg_fn(0.5)
    >>> a = [symgrad.tensor([0.0])]
    >>> ema(a, [symgrad.tensor([2.0])], 1)
    >>> a
    [tensor([1.])]
    """
    _check_decay(decay)

    def ema_update(ema_params: list[Tensor], current_params: list[Tensor], _: Any) -> None:
        with no_grad():
            for p_ema, p_model in zip(ema_params, current_params, strict=True):
                if p_ema.is_floating_point():
                    p_ema.lerp_(p_model, 1 - decay)
                else:
                    p_ema.copy_((p_ema * decay + p_model * (1 - decay)).to(p_ema.dtype))

    return ema_update


def get_swa_multi_avg_fn() -> MultiAvgFn:
    """The running mean of lists of parameters, in place (``avg.lerp_(current, 1/(n+1))``).

    >>> swa = symgrad.optim.swa_utils.get_swa_multi_avg_fn()
    >>> a = [symgrad.tensor([1.0])]
    >>> swa(a, [symgrad.tensor([4.0])], 2)
    >>> a
    [tensor([2.])]
    """

    def swa_update(averaged: list[Tensor], current: list[Tensor], num_averaged: Any) -> None:
        with no_grad():
            for p_avg, p_model in zip(averaged, current, strict=True):
                if p_avg.is_floating_point():
                    p_avg.lerp_(p_model, float(1 / (num_averaged + 1)))
                else:
                    p_avg.add_(p_model - p_avg, alpha=1.0 / (float(num_averaged) + 1))

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters are the average of the ``model``'s parameters
    over the calls of ``update_parameters`` (the running mean by default: stochastic weight
    averaging; ``avg_fn``/``multi_avg_fn``: for example an exponential moving average).
    Buffers are copied from the model, or averaged too with ``use_buffers=True``.

    >>> net = symgrad.nn.Linear(1, 1, bias=False)
    >>> swa = symgrad.optim.swa_utils.AveragedModel(net)
    >>> for value in (1.0, 2.0, 6.0):
    ...     _ = symgrad.nn.init.constant_(net.weight, value)
    ...     swa.update_parameters(net)
    >>> swa.module.weight.item(), swa.n_averaged
    (3.0, tensor(3))
    """

    def __init__(self, model: Module, device: Any = None, avg_fn: AvgFn | None = None,
                 multi_avg_fn: MultiAvgFn | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        self.register_buffer("n_averaged", tensor(0, dtype=dtypes.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Run the averaged copy of the model.

        >>> swa = symgrad.optim.swa_utils.AveragedModel(symgrad.nn.Identity())
        >>> swa(symgrad.ones(2))
        tensor([1., 1.])
        """
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters into the average (the first call copies
        them).

        >>> net = symgrad.nn.Linear(1, 1, bias=False)
        >>> ema = symgrad.optim.swa_utils.AveragedModel(
        ...     net, multi_avg_fn=symgrad.optim.swa_utils.get_ema_multi_avg_fn(0.5))
        >>> for value in (4.0, 0.0):
        ...     _ = symgrad.nn.init.constant_(net.weight, value)
        ...     ema.update_parameters(net)
        >>> ema.module.weight.item()
        2.0
        """
        if self.use_buffers:
            mine = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            theirs = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            mine, theirs = list(self.parameters()), list(model.parameters())
        pairs = list(zip(mine, theirs, strict=False))
        averaged = [p.detach() for p, _ in pairs]
        current = [p.detach() for _, p in pairs]
        with no_grad():
            if int(self.n_averaged) == 0:
                for p_avg, p_model in zip(averaged, current, strict=True):
                    p_avg.copy_(p_model)
            elif self.multi_avg_fn is not None:
                groups: dict[Any, tuple[list[Tensor], list[Tensor]]] = {}
                for p_avg, p_model in zip(averaged, current, strict=True):
                    group = groups.setdefault(p_avg.dtype, ([], []))
                    group[0].append(p_avg)
                    group[1].append(p_model)
                for group_avg, group_model in groups.values():  # one call per dtype
                    self.multi_avg_fn(group_avg, group_model, self.n_averaged)
            else:
                avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                for p_avg, p_model in zip(averaged, current, strict=True):
                    p_avg.copy_(avg_fn(p_avg, p_model, self.n_averaged))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_swa.copy_(b_model.detach())
            self.n_averaged += 1


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the running statistics of every BatchNorm layer of ``model`` with one pass
    over ``loader`` (batches, or tuples whose first item is the input), as a cumulative
    average; the model's train/eval mode is restored afterwards.

    >>> net = symgrad.nn.Sequential(symgrad.nn.BatchNorm1d(1))
    >>> batches = [symgrad.tensor([[1.0], [3.0]]), symgrad.tensor([[5.0], [7.0]])]
    >>> symgrad.optim.swa_utils.update_bn(batches, net)
    >>> net[0].running_mean
    tensor([4.])
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, list | tuple):
                batch = batch[0]
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` epochs
    (``'cos'`` or ``'linear'``), then hold it: the schedule of stochastic weight averaging.

    >>> w = symgrad.nn.Parameter(symgrad.ones(1))
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> sched = symgrad.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=2,
    ...                                       anneal_strategy="linear")
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 6))
    >>> lrs
    [1.0, 0.55, 0.1, 0.1]
    """

    def __init__(self, optimizer: Optimizer, swa_lr: float | list[float],
                 anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for value, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t: float) -> float:
        """The fraction of the way to ``swa_lr`` at progress ``t`` in [0, 1].

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> sched = symgrad.optim.swa_utils.SWALR(symgrad.optim.SGD([w], lr=1.0), 0.1)
        >>> round(sched.anneal_func(0.5), 6)
        0.5
        """
        if self._anneal_strategy == "cos":
            return (1 - math.cos(math.pi * t)) / 2
        return t

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float]:
        """This epoch's rates, recovered from the groups' current ones (the recursive form).

        >>> w = symgrad.nn.Parameter(symgrad.ones(1))
        >>> opt = symgrad.optim.SGD([w], lr=1.0)
        >>> sched = symgrad.optim.swa_utils.SWALR(opt, 0.5, anneal_epochs=1)
        >>> opt.step()
        >>> sched.step()
        >>> opt.param_groups[0]["lr"]
        0.5
        """
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]
