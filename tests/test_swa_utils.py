"""optim.swa_utils against PyTorch 2.13: AveragedModel (the running mean, exponential
moving averages, use_buffers), update_bn and SWALR.

The reference values were produced by running :func:`_run` with ``torch`` in place of
``symgrad`` (PyTorch is not needed to run these tests); ``SWALR_TRACES``: SGD with two groups
(lr 0.5 and 0.2), ``SWALR(opt, swa_lr=[0.05, 0.1], anneal_epochs, anneal_strategy)``,
``get_last_lr()`` at construction and after each of 31 ``opt.step(); sched.step()``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad import nn, optim
from symgrad.optim import swa_utils

AVERAGED = {'swa': [[0.33919036388397217, -0.49014371633529663, -0.10202346742153168,
                     -0.37396466732025146, 0.5568914413452148, 0.14129218459129333],
                    [-0.3682880997657776, 0.6726537346839905],
                    [0.41351795196533203, -0.22391287982463837],
                    [-0.4692920446395874, -0.3095121681690216],
                    [0.8916558027267456, -0.10462645441293716], [1.0, 1.0], [18]],
            'ema_multi_buffers': [[0.3182400166988373, -0.48853394389152527, -0.29186734557151794,
                                   -1.415206789970398, 1.181273102760315, 0.6338893175125122],
                                  [-0.3778684437274933, 0.7485833168029785],
                                  [0.3531128168106079, -0.4060267210006714],
                                  [0.2756677567958832, -0.35229405760765076],
                                  [0.1626507043838501, -0.3667747974395752], [1.0, 1.0], [5]],
            'ema': [[0.506281852722168, -0.4295971393585205, -0.2699102461338043,
                     -0.7402958273887634, 0.7688320279121399, 0.2630044221878052],
                    [-0.4614357352256775, 0.7790155410766602],
                    [0.4091561436653137, -0.32784411311149597],
                    [-0.15858694911003113, -0.4525505304336548],
                    [0.8916558027267456, -0.10462645441293716], [1.0, 1.0], [18]],
            'swa_multi': [[0.33919036388397217, -0.49014371633529663, -0.10202348232269287,
                           -0.37396466732025146, 0.5568913817405701, 0.14129216969013214],
                          [-0.3682880699634552, 0.6726537346839905],
                          [0.41351795196533203, -0.22391286492347717],
                          [-0.4692920446395874, -0.3095122277736664],
                          [0.8916558027267456, -0.10462645441293716], [1.0, 1.0], [18]],
            'update_bn': [[-0.19699256122112274, 0.4718727469444275],
                          [0.29933592677116394, 0.3623376786708832], [2]],
            'training': True}

SWALR_TRACES = [('cos', 7,
  [[0.5, 0.2], [0.47771799527804426, 0.19504844339512095],
   [0.41528520541821506, 0.1811744900929367], [0.3250672101401707, 0.16112604669781572],
   [0.22493278985982929, 0.1388739533021843], [0.13471479458178498, 0.11882550990706335],
   [0.07228200472195571, 0.10495155660487906], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1]]),
 ('linear', 4,
  [[0.5, 0.2], [0.3875, 0.17500000000000002], [0.275, 0.15000000000000002],
   [0.1625, 0.12500000000000003], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1]]),
 ('linear', 0,
  [[0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1],
   [0.05, 0.1], [0.05, 0.1], [0.05, 0.1], [0.05, 0.1]])]


def _run():
    rng = np.random.default_rng(2)
    net = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    models = {
        "swa": swa_utils.AveragedModel(net),
        "ema_multi_buffers": swa_utils.AveragedModel(
            net, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9), use_buffers=True),
        "ema": swa_utils.AveragedModel(net, avg_fn=swa_utils.get_ema_avg_fn(0.8)),
        "swa_multi": swa_utils.AveragedModel(net, multi_avg_fn=swa_utils.get_swa_multi_avg_fn()),
    }
    for _ in range(6):
        with symgrad.no_grad():
            for p in net.parameters():
                p.copy_(symgrad.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
            net[1].running_mean.copy_(symgrad.tensor(rng.standard_normal(2).astype(np.float32)))
            net[1].num_batches_tracked.add_(3)
        for model in models.values():
            model.update_parameters(net)
    out = {name: [p.detach().numpy().ravel().tolist() for p in m.module.parameters()]
           + [b.detach().numpy().ravel().tolist() for b in m.module.buffers()]
           for name, m in models.items()}
    x = symgrad.tensor(rng.standard_normal((10, 3)).astype(np.float32))
    swa_utils.update_bn([(x[:4], 0), (x[4:], 1)], models["swa"])
    out["update_bn"] = [b.detach().numpy().ravel().tolist() for b in models["swa"].module.buffers()]
    out["training"] = models["swa"].training
    return out, models


@pytest.mark.parametrize("name", [k for k in AVERAGED if k != "training"])
def test_averages_are_pytorchs(name):
    got, _ = _run()
    assert len(got[name]) == len(AVERAGED[name])
    for mine, theirs in zip(got[name], AVERAGED[name], strict=True):
        # the same float32 operations; the in-place lerp may round one ulp apart
        np.testing.assert_allclose(mine, theirs, rtol=3e-7, atol=1e-8)
    assert got["training"] == AVERAGED["training"]


def test_averaged_model_counts_and_runs_the_copy():
    _, models = _run()
    swa = models["swa"]
    assert swa.n_averaged.item() == 6 and swa.n_averaged.dtype == symgrad.int64
    assert [name for name, _ in swa.named_parameters()] == [
        "module.0.weight", "module.0.bias", "module.1.weight", "module.1.bias"]
    assert "n_averaged" in swa.state_dict()
    swa.eval()
    x = symgrad.ones(4, 3)
    assert symgrad.equal(swa(x), swa.module(x))


def test_averaged_model_argument_errors():
    with pytest.raises(AssertionError, match="^Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(nn.Linear(1, 1), avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
    with pytest.raises(ValueError, match=r"^Invalid decay value 1.5 provided"):
        swa_utils.get_ema_avg_fn(1.5)


def test_update_bn_without_batch_norm_does_nothing():
    net = nn.Linear(2, 2)
    swa_utils.update_bn([symgrad.ones(1, 2)], net)  # no BatchNorm: not even run
    model = nn.Sequential(net, nn.BatchNorm1d(2))
    model.eval()
    swa_utils.update_bn([symgrad.ones(3, 2), symgrad.zeros(3, 2)], model)
    assert not model.training and not model[1].training  # the mode is restored
    assert model[1].num_batches_tracked.item() == 2


@pytest.mark.parametrize("strategy, epochs, expected", SWALR_TRACES,
                         ids=[f"{s}-{e}" for s, e, _ in SWALR_TRACES])
def test_swalr_schedule_is_pytorchs(strategy, epochs, expected):
    groups = [{"params": [nn.Parameter(symgrad.ones(1))]},
              {"params": [nn.Parameter(symgrad.ones(1))], "lr": 0.2}]
    opt = optim.SGD(groups, lr=0.5)
    sched = swa_utils.SWALR(opt, swa_lr=[0.05, 0.1], anneal_epochs=epochs,
                            anneal_strategy=strategy)
    got = [sched.get_last_lr()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(31):
            opt.step()
            sched.step()
            got.append(sched.get_last_lr())
    assert got == expected
    restored = swa_utils.SWALR(optim.SGD(groups, lr=0.5), swa_lr=0.3)
    restored.load_state_dict(sched.state_dict())
    assert restored.anneal_func(0.25) == sched.anneal_func(0.25)


@pytest.mark.parametrize("kwargs, message", [
    ({"anneal_strategy": "exp"}, "anneal_strategy must be one of 'cos' or 'linear', instead "
     "got exp"),
    ({"anneal_epochs": -1}, "anneal_epochs must be equal or greater than 0, got -1"),
    ({"swa_lr": [0.1, 0.2]}, "swa_lr must have the same length as optimizer.param_groups. "
     "swa_lr has 2 values, param_groups has 1."),
])
def test_swalr_errors_are_pytorchs(kwargs, message):
    opt = optim.SGD([nn.Parameter(symgrad.ones(1))], lr=0.5)
    with pytest.raises(ValueError) as info:
        swa_utils.SWALR(opt, **{"swa_lr": 0.1, **kwargs})
    assert str(info.value) == message
