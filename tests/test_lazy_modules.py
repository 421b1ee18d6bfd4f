"""The lazy modules (``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyConvTranspose1d/2d/3d``,
``LazyBatchNorm1d/2d/3d``, ``LazyInstanceNorm1d/2d/3d``) and ``UninitializedParameter`` /
``UninitializedBuffer`` against PyTorch 2.13: reprs before and after the first call, the
parameters' and buffers' types and shapes, state_dicts, loading a plain layer's state_dict,
the output's shape and errors, recorded by ``python tools/record_torch_cases.py
tests/test_lazy_modules.py`` into ``tests/data/torch_lazy_modules.json``; this module never
imports torch. (Initial values come from the generators, which differ: shapes are compared,
and the values the layers compute are those of the plain layers, tested elsewhere.)"""

from __future__ import annotations

import copy
import json
import pathlib

import pytest
from torch_cases import first_sentence

import symgrad as t

DATA = pathlib.Path(__file__).parent / "data" / "torch_lazy_modules.json"


def _state(module):
    return {"repr": repr(module), "class": type(module).__name__,
            "parameters": [(name, type(p).__name__, repr(p) if "Uninit" in type(p).__name__
                            else list(p.shape)) for name, p in module.named_parameters()],
            "buffers": [(name, type(b).__name__, repr(b) if "Uninit" in type(b).__name__
                         else list(b.shape)) for name, b in module.named_buffers()],
            "state_dict": [(key, type(v).__name__) for key, v in module.state_dict().items()]}


def _life(make, shape):
    """A lazy module before and after its first call on ``ones(shape)``."""
    def run(L):
        module = make(L)
        before = _state(module)
        out = module(L.ones(*shape))
        return {"before": before, "after": _state(module), "output": list(out.shape)}
    return run


CASES = {
    "LazyLinear": _life(lambda L: L.nn.LazyLinear(3), (2, 4)),
    "LazyLinear without bias": _life(lambda L: L.nn.LazyLinear(2, bias=False), (5,)),
    "LazyLinear float64": _life(lambda L: L.nn.LazyLinear(2, dtype=L.float64), (1, 3)),
    "LazyConv1d groups": _life(lambda L: L.nn.LazyConv1d(4, 3, groups=2, bias=False), (4, 6)),
    "LazyConv2d": _life(lambda L: L.nn.LazyConv2d(4, 3, padding=1), (1, 2, 5, 5)),
    "LazyConv3d": _life(lambda L: L.nn.LazyConv3d(2, (1, 2, 2), stride=2), (1, 3, 2, 4, 4)),
    "LazyConvTranspose1d": _life(lambda L: L.nn.LazyConvTranspose1d(2, 3), (1, 5, 4)),
    "LazyConvTranspose2d": _life(lambda L: L.nn.LazyConvTranspose2d(3, 2, stride=2,
                                                                    output_padding=1),
                                 (2, 2, 3, 3)),
    "LazyConvTranspose3d": _life(lambda L: L.nn.LazyConvTranspose3d(2, 2, stride=2),
                                 (1, 3, 2, 2, 2)),
    "LazyBatchNorm1d": _life(lambda L: L.nn.LazyBatchNorm1d(), (4, 3)),
    "LazyBatchNorm2d without affine": _life(lambda L: L.nn.LazyBatchNorm2d(affine=False),
                                            (2, 3, 2, 2)),
    "LazyBatchNorm3d without statistics": _life(
        lambda L: L.nn.LazyBatchNorm3d(track_running_stats=False), (2, 2, 1, 2, 2)),
    "LazyInstanceNorm1d": _life(lambda L: L.nn.LazyInstanceNorm1d(track_running_stats=False),
                                (2, 3, 4)),
    "LazyInstanceNorm2d": _life(lambda L: L.nn.LazyInstanceNorm2d(), (2, 3, 2, 2)),
    "LazyInstanceNorm3d": _life(lambda L: L.nn.LazyInstanceNorm3d(affine=False), (1, 2, 2, 2, 2)),
    "a lazy Sequential": _life(lambda L: L.nn.Sequential(L.nn.LazyLinear(4), L.nn.ReLU(),
                                                         L.nn.LazyLinear(1)), (3, 5)),
    "loading a Linear's state_dict": lambda L: (lambda m: (m.load_state_dict(
        L.nn.Linear(4, 3).state_dict()), _state(m))[1])(L.nn.LazyLinear(3)),
    "loading a Conv2d's state_dict": lambda L: (lambda m: (m.load_state_dict(
        L.nn.Conv2d(2, 4, 3).state_dict()), _state(m))[1])(L.nn.LazyConv2d(4, 3)),
    "loading a BatchNorm1d's state_dict": lambda L: (lambda m: (m.load_state_dict(
        L.nn.BatchNorm1d(5).state_dict()), _state(m))[1])(L.nn.LazyBatchNorm1d()),
    "a deep copy": lambda L: _state(copy.deepcopy(L.nn.LazyConv1d(2, 2))),
    "the shape of an uninitialized parameter": lambda L: L.nn.LazyLinear(2).weight.shape,
    "has_uninitialized_params": lambda L: [L.nn.LazyLinear(2).has_uninitialized_params(),
                                           L.nn.LazyBatchNorm1d(affine=False,
                                                                track_running_stats=False)
                                           .has_uninitialized_params()],
    "UninitializedParameter": lambda L: (lambda p: [repr(p), p.requires_grad,
                                                    p.materialize((2, 3)), type(p).__name__,
                                                    list(p.shape), str(p.dtype)])(
        L.nn.UninitializedParameter()),
    "UninitializedBuffer": lambda L: (lambda b: [repr(b), b.requires_grad,
                                                 b.materialize(4, dtype=L.float64),
                                                 type(b).__name__, list(b.shape),
                                                 str(b.dtype)])(L.nn.UninitializedBuffer()),
    "a wrong input": lambda L: L.nn.LazyConv2d(4, 3, groups=2)(L.ones(1, 3, 5, 5)),
}


def _run(L, f):
    try:
        return ["value", json.loads(json.dumps(f(L), default=str).replace("torch.", "")
                                    .replace("symgrad.", ""))]
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        return ["error", *first_sentence(e)]


def record_all(L) -> dict:
    return {name: _run(L, f) for name, f in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert _run(t, CASES[name]) == RECORDED[name]


def test_an_optimizer_made_before_the_first_call_trains_the_materialized_parameters():
    model = t.nn.Sequential(t.nn.LazyLinear(4), t.nn.Tanh(), t.nn.LazyLinear(1))
    opt = t.optim.SGD(model.parameters(), lr=0.1)
    x, y = t.randn(8, 3), t.randn(8, 1)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[2] < losses[0]
    held = opt.param_groups[0]["params"]
    assert all(any(p is q for q in held) for p in model.parameters())
