"""The learning-rate schedulers beyond StepLR/MultiStepLR/ExponentialLR/CosineAnnealingLR/
LambdaLR/ReduceLROnPlateau, against PyTorch.

``tests/data/torch_lr_schedules.json`` holds PyTorch 2.13's values (PyTorch is not needed to
run these tests): for each case, ``opt = getattr(torch.optim, optimizer)([{"params": [a]},
{"params": [b], "lr": 0.3}], lr=0.1)`` (SGD with momentum=0.9), the scheduler built as
:func:`_build` builds it, then ``get_last_lr()`` of both groups (and group 0's momentum or
beta1 when the scheduler cycles it) at construction and after each of 31
``opt.step(); sched.step()``. ``closed_form``: ``sched.step(epoch)`` for the listed epochs.
"""

from __future__ import annotations

import json
import pathlib
import warnings

import pytest

import symgrad
from symgrad import nn, optim
from symgrad.optim import lr_scheduler as L

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "torch_lr_schedules.json")
                  .read_text())
CALLABLES = {"lambda e: 0.97 ** (e % 3)": lambda e: 0.97 ** (e % 3),
             "lambda x: 0.9 ** x": lambda x: 0.9**x}


def _build(scheduler, optimizer, kwargs):
    a, b = nn.Parameter(symgrad.ones(1)), nn.Parameter(symgrad.ones(1))
    extra = {"momentum": 0.9} if optimizer == "SGD" else {}
    opt = getattr(optim, optimizer)([{"params": [a]}, {"params": [b], "lr": 0.3}], lr=0.1,
                                    **extra)
    kwargs = {k: CALLABLES.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
    if scheduler == "Sequential":
        sched = L.SequentialLR(opt, [L.LinearLR(opt, 0.2, total_iters=5),
                                     L.CosineAnnealingLR(opt, T_max=10), L.StepLR(opt, 4, 0.5)],
                               milestones=[5, 15])
    elif scheduler == "Chained":
        sched = L.ChainedScheduler([L.ConstantLR(opt, 0.5, total_iters=6),
                                    L.ExponentialLR(opt, 0.93), L.MultiStepLR(opt, [4, 9, 20],
                                                                              0.5)])
    else:
        sched = getattr(L, scheduler)(opt, **kwargs)
    return opt, sched


def _momentum(group):
    return group.get("momentum", group.get("betas", (None,))[0])


@pytest.mark.parametrize("case", DATA["chainable"],
                         ids=[f"{c['scheduler']}-{i}" for i, c in enumerate(DATA["chainable"])])
def test_schedule_is_pytorchs_for_32_steps(case):
    opt, sched = _build(case["scheduler"], case["optimizer"], case["kwargs"])
    lrs, momentums = [sched.get_last_lr()], [_momentum(opt.param_groups[0])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the right order of calls warns about nothing
        for _ in range(31):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
            momentums.append(_momentum(opt.param_groups[0]))
    assert [lr[0] for lr in lrs] == case["lr"][0]  # the same float64 formulas, bit for bit
    assert [lr[1] for lr in lrs] == case["lr"][1]
    if "momentum" in case:
        assert momentums == case["momentum"]


@pytest.mark.parametrize("name", sorted(DATA["closed_form"]))
def test_step_with_an_epoch_uses_the_closed_form_and_warns(name):
    case = DATA["closed_form"][name]
    opt = optim.SGD([nn.Parameter(symgrad.ones(1))], lr=0.1)
    sched = getattr(L, name)(opt, **case["kwargs"])
    got = []
    for epoch in case["epochs"]:
        opt.step()
        if name == "CosineAnnealingWarmRestarts":  # its own step: no deprecation
            sched.step(epoch)
        else:
            with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step"):
                sched.step(epoch)
        got.append(sched.get_last_lr()[0])
    assert got == case["lr"]


def test_scheduler_step_before_optimizer_step_warns_as_pytorch():
    opt = optim.SGD([nn.Parameter(symgrad.ones(1))], lr=0.1)
    sched = L.LinearLR(opt)
    with pytest.warns(UserWarning, match=r"^Detected call of `lr_scheduler.step\(\)` before "
                                         r"`optimizer.step\(\)`"):
        sched.step()


def test_get_lr_by_hand_warns_as_pytorch():
    opt = optim.SGD([nn.Parameter(symgrad.ones(1))], lr=0.1)
    sched = L.PolynomialLR(opt)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


@pytest.mark.parametrize("case", [c for c in DATA["chainable"]
                                  if c["scheduler"] in ("CyclicLR", "OneCycleLR", "Sequential",
                                                        "Chained")][::2],
                         ids=lambda c: c["scheduler"])
def test_state_dict_round_trip_resumes_the_schedule(case):
    opt, sched = _build(case["scheduler"], case["optimizer"], case["kwargs"])
    for _ in range(9):
        opt.step()
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state
    opt2, sched2 = _build(case["scheduler"], case["optimizer"], case["kwargs"])
    opt2.load_state_dict(opt.state_dict())
    sched2.load_state_dict(state)
    for _ in range(5):
        for o, s in ((opt, sched), (opt2, sched2)):
            o.step()
            s.step()
        assert sched2.get_last_lr() == sched.get_last_lr()


ERRORS = [
    ("ConstantLR", {"factor": 1.5}, ValueError,
     "Constant multiplicative factor expected to be between 0 and 1."),
    ("LinearLR", {"start_factor": 0}, ValueError,
     "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."),
    ("LinearLR", {"end_factor": 1.5}, ValueError,
     "Ending multiplicative factor expected to be between 0 and 1."),
    ("CosineAnnealingWarmRestarts", {"T_0": 0}, ValueError,
     "Expected positive integer T_0, but got 0"),
    ("CosineAnnealingWarmRestarts", {"T_0": 2, "T_mult": 0}, ValueError,
     "Expected integer T_mult >= 1, but got 0"),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "mode": "bogus"}, ValueError,
     "mode is invalid and scale_fn is None"),
    ("CyclicLR", {"base_lr": [0.1, 0.2], "max_lr": 1.0}, ValueError,
     "base_lr must have the same length as optimizer.param_groups. base_lr has 2 values, "
     "param_groups has 1."),
    ("OneCycleLR", {"max_lr": 1.0}, ValueError,
     "You must define either total_steps OR (epochs AND steps_per_epoch)"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 0}, ValueError,
     "Expected positive integer total_steps, but got 0"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 10, "pct_start": 1}, ValueError,
     "Expected float between 0 and 1 pct_start, but got 1"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 10, "anneal_strategy": "exp"}, ValueError,
     "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
    ("MultiplicativeLR", {"lr_lambda": 3}, TypeError,
     "lr_lambda should be a function, but got int"),
]


@pytest.mark.parametrize("name, kwargs, error, message", ERRORS,
                         ids=[f"{n}-{i}" for i, (n, *_) in enumerate(ERRORS)])
def test_bad_arguments_raise_pytorchs_errors(name, kwargs, error, message):
    opt = optim.SGD([nn.Parameter(symgrad.ones(1))], lr=0.1, momentum=0.9)
    with pytest.raises(error) as info:
        getattr(L, name)(opt, **kwargs)
    assert str(info.value) == message


def test_combination_errors_are_pytorchs():
    w = nn.Parameter(symgrad.ones(1))
    with pytest.raises(ValueError, match=r"^optimizer must support momentum or beta1"):
        L.CyclicLR(optim.Adagrad([w]), 0.1, 1.0)
    opt = optim.SGD([w], lr=0.1)
    sched = L.OneCycleLR(opt, 1.0, total_steps=3, cycle_momentum=False)
    with pytest.raises(ValueError, match=r"^Tried to step 4 times. The specified number of "
                                         r"total steps is 3$"):
        for _ in range(4):
            opt.step()
            sched.step()
    with pytest.raises(ValueError, match=r"^Sequential Schedulers expects number of "
                                         r"schedulers provided to be one more"):
        L.SequentialLR(opt, [L.StepLR(opt, 2)], milestones=[3])
    with pytest.raises(ValueError, match=r"^ChainedScheduler expects at least one scheduler"):
        L.ChainedScheduler([])
    other = optim.SGD([w], lr=0.1)
    with pytest.raises(ValueError, match=r"^SequentialLR expects all schedulers to belong to "
                                         r"the same optimizer, but got scheduler StepLR at "
                                         r"index 1"):
        L.SequentialLR(opt, [L.StepLR(opt, 2), L.StepLR(other, 2)], milestones=[3])
    with pytest.raises(ValueError, match=r"^ChainedScheduler does not support "
                                         r"`ReduceLROnPlateau`"):
        L.ChainedScheduler([L.StepLR(opt, 2), L.ReduceLROnPlateau(opt)])


def test_old_style_custom_scheduler_subclassing_lrscheduler_alias():
    class Halving(L._LRScheduler):  # PyTorch's old base-class name, still used by old code
        def get_lr(self):
            return [base * 0.5**self.last_epoch for base in self.base_lrs]

    opt = optim.SGD([nn.Parameter(symgrad.ones(1))], lr=0.8)
    sched = Halving(opt)
    lrs = []
    for _ in range(3):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    assert lrs == [0.4, 0.2, 0.1]
    assert isinstance(sched, L.LRScheduler)
    assert L.EPOCH_DEPRECATION_WARNING.startswith("The epoch parameter in `scheduler.step()`")
