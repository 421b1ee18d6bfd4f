"""symgrad.optim against PyTorch: the update arithmetic, a short training run, param_groups,
state_dict round trips, argument errors and the learning-rate schedules.

The reference numbers were produced by running PyTorch 2.13 (CPU, float32) on the same inputs
(the script that made them is reproduced in ``_REFERENCE_SCRIPT`` below); PyTorch is not needed
to run these tests.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

import symgrad
from symgrad import nn, optim
from symgrad.optim import lr_scheduler

_REFERENCE_SCRIPT = """
rng = np.random.default_rng(14)          # _data() below draws the same numbers
... torch.nn.Sequential(Linear(4, 8), Tanh(), Linear(8, 3)) with those weights,
CrossEntropyLoss, 10 steps of getattr(torch.optim, name)(net.parameters(), **kw): loss.item()
rng = np.random.default_rng(7): w0 (6,), 5 gradients (6,): w.grad = g; opt.step()
schedulers: SGD([w], lr=1.0), 12 x (opt.step(); sched.step()): get_last_lr()[0]
"""

# losses of PyTorch's run (first: the loss before the first update)
TRAINING = {
    "SGD": ({"lr": 0.1, "momentum": 0.9}, [
        1.4039348363876343, 1.366670846939087, 1.3038827180862427, 1.23098623752594,
        1.1623382568359375, 1.1072428226470947, 1.0684995651245117, 1.043684720993042,
        1.0278748273849487, 1.016222357749939]),
    "Adam": ({"lr": 0.01}, [
        1.4039348363876343, 1.3663402795791626, 1.3312604427337646, 1.298774003982544,
        1.2689086198806763, 1.2416263818740845, 1.2168214321136475, 1.1943328380584717,
        1.173969030380249, 1.1555284261703491]),
    "AdamW": ({"lr": 0.01, "amsgrad": True}, [
        1.4039348363876343, 1.3662768602371216, 1.3311445713043213, 1.298616647720337,
        1.2687187194824219, 1.2414122819900513, 1.2165902853012085, 1.1940909624099731,
        1.1737215518951416, 1.1552798748016357]),
    "RMSprop": ({"lr": 0.01}, [
        1.4039348363876343, 1.1401522159576416, 1.0669152736663818, 1.0212833881378174,
        0.9897810816764832, 0.9656347632408142, 0.9459505677223206, 0.928849995136261,
        0.9134179949760437, 0.899099588394165]),
    "Adagrad": ({"lr": 0.1}, [
        1.4039348363876343, 1.1401512622833252, 1.0670912265777588, 1.0216337442398071,
        0.9903069138526917, 0.966362476348877, 0.9468904733657837, 0.9300325512886047,
        0.9148751497268677, 0.9008666276931763]),
}

# final weights after 5 updates from fixed gradients
FIXED = [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01},
     [0.5181725025177002, 0.42471349239349365, 0.9059069156646729, -0.6191434264183044,
      -0.012342630885541439, -0.996597945690155]),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True},
     [-0.8294975757598877, -0.03922394663095474, -2.0180776119232178, -1.2770999670028687,
      -1.0230680704116821, -1.0412591695785522]),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True},
     [-0.002050087321549654, 0.2966124415397644, -0.23208506405353546, -0.8669209480285645,
      -0.4441898763179779, -0.9907172918319702]),
    ("AdamW", {"lr": 0.01},
     [-0.00205007242038846, 0.2974727749824524, -0.23250682651996613, -0.8715943098068237,
      -0.44527721405029297, -1.0000063180923462]),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5},
     [-0.13172508776187897, 0.35679423809051514, 0.2538151144981384, -0.6587404608726501,
      -0.4008779525756836, -1.0607446432113647]),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1},
     [0.09999095648527145, 0.34676337242126465, 0.01370404101908207, -0.7476062774658203,
      -0.4274544417858124, -0.9787481427192688]),
]


def _data():
    rng = np.random.default_rng(14)
    x = rng.standard_normal((32, 4)).astype(np.float32)
    y = rng.integers(0, 3, 32)
    w1 = (rng.standard_normal((8, 4)) * 0.5).astype(np.float32)
    b1 = (rng.standard_normal(8) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((3, 8)) * 0.5).astype(np.float32)
    b2 = (rng.standard_normal(3) * 0.1).astype(np.float32)
    return x, y, [w1, b1, w2, b2]


def _net():
    x, y, weights = _data()
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    with symgrad.no_grad():
        for p, w in zip(net.parameters(), weights, strict=True):
            p.copy_(symgrad.tensor(w))
    return net, symgrad.tensor(x), symgrad.tensor(y)


@pytest.mark.parametrize("name", sorted(TRAINING))
def test_training_run_follows_pytorch_losses(name):
    kwargs, expected = TRAINING[name]
    net, x, y = _net()
    opt = getattr(optim, name)(net.parameters(), **kwargs)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(10):
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    # forward/backward sum in another order than PyTorch's kernels: float32 rounding apart
    np.testing.assert_allclose(losses, expected, rtol=2e-6)
    assert losses[-1] < losses[0]


def _fixed_run(name, kwargs):
    rng = np.random.default_rng(7)
    w0 = rng.standard_normal(6).astype(np.float32)
    grads = [rng.standard_normal(6).astype(np.float32) for _ in range(5)]
    w = nn.Parameter(symgrad.tensor(w0))
    opt = getattr(optim, name)([w], **kwargs)
    for g in grads:
        w.grad = symgrad.tensor(g)
        opt.step()
    return w.detach().numpy(), opt


@pytest.mark.parametrize("name, kwargs, expected", FIXED, ids=[f"{n}-{i}" for i, (n, _, _) in
                                                              enumerate(FIXED)])
def test_update_arithmetic_matches_pytorch(name, kwargs, expected):
    got, _ = _fixed_run(name, kwargs)
    expected = np.array(expected, dtype=np.float32)
    if name == "SGD":  # no sqrt: the same float32 operations, bit for bit
        np.testing.assert_array_equal(got, expected)
    else:  # PyTorch's CPU sqrt is not correctly rounded (1 ulp apart on some inputs)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_fused_multiply_add_rounding_is_pytorchs():
    # PyTorch's p.add_(g, alpha=-lr) rounds p + (-lr)*g once (a fused multiply-add); rounding
    # the product first gives -0.48525112867355347 and 0.029823392629623413 here
    p = nn.Parameter(symgrad.tensor([-0.5677695870399475, -0.4526492953300476]))
    p.grad = symgrad.tensor([-0.2750614583492279, -1.6082422733306885])
    optim.SGD([p], lr=0.3).step()
    assert p.tolist() == [-0.48525115847587585, 0.029823405668139458]  # PyTorch's values


def test_param_groups_have_their_own_options_and_defaults():
    a = nn.Parameter(symgrad.tensor([1.0]))
    b = nn.Parameter(symgrad.tensor([1.0]))
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.0)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["params"] == [b]
    (a + b).sum().backward()
    opt.step()
    assert a.item() == pytest.approx(0.9) and b.item() == pytest.approx(0.5)
    assert repr(opt).splitlines()[:3] == ["SGD (", "Parameter Group 0", "    dampening: 0"]


def test_repr_is_pytorchs():
    w = nn.Parameter(symgrad.ones(1))
    assert repr(optim.Adam([w])) == (
        "Adam (\nParameter Group 0\n    amsgrad: False\n    betas: (0.9, 0.999)\n"
        "    capturable: False\n    decoupled_weight_decay: False\n    differentiable: False\n"
        "    eps: 1e-08\n    foreach: None\n    fused: None\n    lr: 0.001\n"
        "    maximize: False\n    weight_decay: 0\n)")


def test_zero_grad_sets_none_or_zeros():
    w = nn.Parameter(symgrad.ones(2))
    opt = optim.SGD([w], lr=0.1)
    w.sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None


def test_parameters_without_grad_are_skipped():
    a, b = nn.Parameter(symgrad.ones(1)), nn.Parameter(symgrad.ones(1))
    opt = optim.Adam([a, b], lr=0.1)
    a.sum().backward()
    opt.step()
    assert b.item() == 1.0 and a.item() != 1.0
    assert list(opt.state_dict()["state"]) == [0]


@pytest.mark.parametrize("name, kwargs", [(n, k) for n, k, _ in FIXED])
def test_state_dict_round_trip_continues_identically(name, kwargs):
    _, opt = _fixed_run(name, kwargs)
    w = opt.param_groups[0]["params"][0]
    buffer = io.BytesIO()
    symgrad.save({"w": w, "opt": opt.state_dict()}, buffer)
    buffer.seek(0)
    saved = symgrad.load(buffer)
    w2 = nn.Parameter(saved["w"].detach().clone())
    opt2 = getattr(optim, name)([w2], lr=123.0)  # hyperparameters come from the state_dict
    opt2.load_state_dict(saved["opt"])
    assert opt2.param_groups[0]["lr"] == kwargs["lr"]
    g = symgrad.tensor([0.5, -1.0, 2.0, 0.0, 1.0, -0.25])
    for param, o in ((w, opt), (w2, opt2)):
        for _ in range(3):
            param.grad = g.clone()
            o.step()
    np.testing.assert_array_equal(w.detach().numpy(), w2.detach().numpy())


def test_state_dict_layout_is_pytorchs():
    w = nn.Parameter(symgrad.ones(2))
    b = nn.Parameter(symgrad.ones(1))
    opt = optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.5}])
    (w.sum() + b.sum()).backward()
    opt.step()
    sd = opt.state_dict()
    assert list(sd["state"]) == [0, 1]
    assert list(sd["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]
    assert repr(sd["state"][1]["step"]) == "tensor(1.)"
    assert sd["state"][0]["exp_avg"].tolist() == pytest.approx([0.1, 0.1])
    assert sd["param_groups"][1]["params"] == [1] and sd["param_groups"][1]["lr"] == 0.5
    assert list(optim.Adagrad([w]).state_dict()["state"][0]) == ["step", "sum"]


def test_load_state_dict_errors():
    w = nn.Parameter(symgrad.ones(1))
    opt = optim.SGD([w], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0, 1]}]})


@pytest.mark.parametrize("make, error, message", [
    (lambda w: optim.SGD(w), TypeError, "params argument given to the optimizer should be an "
     "iterable of Tensors or dicts, but got symgrad.FloatTensor"),
    (lambda w: optim.SGD([]), ValueError, "optimizer got an empty parameter list"),
    (lambda w: optim.SGD([w * 2]), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda w: optim.SGD([1]), TypeError, "optimizer can only optimize Tensors, but one of the "
     "params is int"),
    (lambda w: optim.SGD([{"params": {w}}]), TypeError, "optimizer parameters need to be "
     "organized in ordered collections"),
    (lambda w: optim.SGD([w], lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda w: optim.SGD([w], momentum=-1), ValueError, "Invalid momentum value: -1"),
    (lambda w: optim.SGD([w], nesterov=True), ValueError, "Nesterov momentum requires a "
     "momentum and zero dampening"),
    (lambda w: optim.Adam([w], betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at "
     "index 0: 1.0"),
    (lambda w: optim.Adam([w], eps=-1), ValueError, "Invalid epsilon value: -1"),
    (lambda w: optim.AdamW([w], weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
    (lambda w: optim.RMSprop([w], alpha=-1), ValueError, "Invalid alpha value: -1"),
    (lambda w: optim.Adagrad([w], lr_decay=-1), ValueError, "Invalid lr_decay value: -1"),
    (lambda w: optim.SGD([{"params": [w]}, {"params": [w]}]), ValueError,
     "some parameters appear in more than one parameter group"),
])
def test_argument_errors_are_pytorchs(make, error, message):
    w = nn.Parameter(symgrad.ones(1))
    with pytest.raises(error) as info:
        make(w)
    assert str(info.value) == message or str(info.value).startswith(message)


def test_step_updates_in_place_and_bumps_the_version():
    w = nn.Parameter(symgrad.ones(2))
    y = (w * w).sum()  # saves w
    opt = optim.SGD([w], lr=0.1)
    before = w._version
    w.grad = symgrad.ones(2)
    opt.step()
    assert w._version > before and w.tolist() == pytest.approx([0.9, 0.9])
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


# ------------------------------------------------------------------ schedulers
SCHEDULES = {
    "StepLR": (lambda o: lr_scheduler.StepLR(o, 3, 0.5),
               [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125, 0.0625]),
    "MultiStepLR": (lambda o: lr_scheduler.MultiStepLR(o, [2, 5, 5], 0.5),
                    [1.0, 0.5, 0.5, 0.5, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125,
                     0.125]),
    "ExponentialLR": (lambda o: lr_scheduler.ExponentialLR(o, 0.8),
                      [0.8, 0.6400000000000001, 0.5120000000000001, 0.40960000000000013,
                       0.32768000000000014, 0.2621440000000001, 0.2097152000000001,
                       0.1677721600000001, 0.13421772800000006, 0.10737418240000006,
                       0.08589934592000005, 0.06871947673600004]),
    "CosineAnnealingLR": (lambda o: lr_scheduler.CosineAnnealingLR(o, 5, 0.1),
                          [0.9140576474687263, 0.6890576474687263, 0.41094235253127365,
                           0.1859423525312737, 0.1, 0.18594235253127367, 0.41094235253127387,
                           0.6890576474687268, 0.9140576474687271, 1.0000000000000009,
                           0.9140576474687274, 0.689057647468727]),
    "LambdaLR": (lambda o: lr_scheduler.LambdaLR(o, lambda e: 0.9**e + 0.01 * e),
                 [0.91, 0.8300000000000001, 0.7590000000000001, 0.6961, 0.6404900000000001,
                  0.5914410000000001, 0.5482969000000001, 0.5104672100000001,
                  0.4774204890000001, 0.44867844010000013, 0.42381059609000005,
                  0.4024295364810001]),
}
PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.91, 0.92, 0.93, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6]
PLATEAU_LRS = [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2]


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedules_are_pytorchs(name):
    make, expected = SCHEDULES[name]
    w = nn.Parameter(symgrad.ones(1))
    opt = optim.SGD([w], lr=1.0)
    sched = make(opt)
    got = []
    for _ in range(12):
        opt.step()
        sched.step()
        got.append(sched.get_last_lr()[0])
    assert got == expected  # the same float operations: equal, not merely close
    assert opt.param_groups[0]["lr"] == expected[-1]
    assert opt.param_groups[0]["initial_lr"] == 1.0


def test_reduce_lr_on_plateau_is_pytorchs():
    w = nn.Parameter(symgrad.ones(1))
    opt = optim.SGD([w], lr=1.0)
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5, cooldown=1, min_lr=0.2)
    got = []
    for metric in PLATEAU_METRICS:
        opt.step()
        sched.step(symgrad.tensor(metric))
        got.append(sched.get_last_lr()[0])
    assert got == PLATEAU_LRS
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)


def test_scheduler_closed_form_and_state_dict():
    w = nn.Parameter(symgrad.ones(1))
    opt = optim.SGD([w], lr=1.0)
    sched = lr_scheduler.StepLR(opt, 2, 0.5)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter"):
        sched.step(5)
    assert opt.param_groups[0]["lr"] == 0.25
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 5
    other = lr_scheduler.StepLR(optim.SGD([w], lr=1.0), 9)
    other.load_state_dict(state)
    assert other.step_size == 2 and other.last_epoch == 5


def test_scheduler_step_before_optimizer_step_warns():
    w = nn.Parameter(symgrad.ones(1))
    opt = optim.SGD([w], lr=1.0)
    sched = lr_scheduler.ExponentialLR(opt, 0.5)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before"):
        sched.step()


def test_cosine_schedule_reaches_eta_min():
    w = nn.Parameter(symgrad.ones(1))
    opt = optim.SGD([w], lr=1.0)
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.0)
    for _ in range(10):
        opt.step()
        sched.step()
    assert math.isclose(sched.get_last_lr()[0], 0.0, abs_tol=1e-12)
