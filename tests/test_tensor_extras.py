"""Tensor methods added for parity (``bernoulli``, ``prelu``, ``renorm_``, ``ldexp_``,
``addr_``, ``addbmm_``, ``narrow_copy``, ``get_device``, ``is_pinned``, ``pin_memory``,
``share_memory_``/``is_shared``, ``dim_order``, ``apply_``, ``map_``, ``new``) against PyTorch
2.13: each case's values, node and dtype, or its error's type and first sentence, recorded by
``python tools/record_torch_cases.py tests/test_tensor_extras.py`` into
``tests/data/torch_tensor_extras.json``; this module never imports torch.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from torch_cases import assert_same, outcome

import symgrad as t

DATA = pathlib.Path(__file__).parent / "data" / "torch_tensor_extras.json"

CASES = {
    "bernoulli method": lambda L: L.tensor([0.0, 1.0]).bernoulli(),
    "bernoulli p": lambda L: L.tensor([0.0, 1.0]).bernoulli(0.0),
    "bernoulli node": lambda L: L.tensor([0.0, 1.0], requires_grad=True).bernoulli(),
    "bernoulli grad": lambda L: (lambda x: L.autograd.grad(L.bernoulli(x).sum(), x))(
        L.tensor([0.2, 0.9], requires_grad=True)
    ),
    "prelu": lambda L: L.tensor([-1.0, 2.0]).prelu(L.tensor([0.25])),
    "prelu channels": lambda L: L.arange(4.0).reshape(2, 2).sub(2).prelu(L.tensor([0.5, 0.1])),
    "renorm_": lambda L: L.ones(2, 3).renorm_(2, 0, 1.0),
    "ldexp_": lambda L: L.ones(2).ldexp_(L.tensor([1, 2])),
    "addr_": lambda L: L.ones(2, 2).addr_(L.ones(2), L.ones(2)),
    "addbmm_": lambda L: L.ones(2, 2).addbmm_(L.ones(3, 2, 2), L.ones(3, 2, 2)),
    "renorm_ of a leaf": lambda L: L.ones(2, 3, requires_grad=True).renorm_(2, 0, 1.0),
    "narrow_copy": lambda L: L.arange(6.0).narrow_copy(0, 1, 2),
    "narrow_copy node": lambda L: L.arange(6.0, requires_grad=True).narrow_copy(0, 1, 2),
    "narrow_copy bad": lambda L: L.ones(2, 3).narrow_copy(1, 1, 5),
    "get_device": lambda L: L.ones(2).get_device(),
    "is_pinned": lambda L: L.ones(2).is_pinned(),
    "pin_memory": lambda L: L.ones(2).pin_memory(),
    "share": lambda L: [L.ones(2).is_shared(), L.ones(2).share_memory_().is_shared()],
    "dim_order": lambda L: [
        L.ones(2, 3).dim_order(),
        L.ones(2, 3).t().dim_order(),
        L.ones(2, 1, 3).dim_order(),
        L.ones(2, 3, 4).permute(2, 0, 1).dim_order(),
    ],
    "apply_": lambda L: L.tensor([1.0, 2.0]).apply_(lambda v: v * 3),
    "apply_ long": lambda L: L.ones(2, dtype=L.long).apply_(lambda v: v * 2.5),
    "apply_ grad": lambda L: L.ones(2, requires_grad=True).apply_(lambda v: v),
    "apply_ str": lambda L: L.ones(2).apply_(lambda v: "a"),
    "map_": lambda L: L.ones(2).map_(L.tensor([1.0, 2.0]), lambda a, b: a + b),
    "map_ broadcast": lambda L: L.ones(2, 2).map_(L.tensor([1.0, 2.0]), lambda a, b: a * b),
    "map_ bad": lambda L: L.ones(2).map_(L.tensor([1.0, 2.0, 3.0]), lambda a, b: a + b),
    "new size": lambda L: L.tensor([1.0, 2.0]).new(2, 3).shape,
    "new data": lambda L: L.tensor([1.0, 2.0]).new([1, 2]),
    "new tuple": lambda L: L.tensor([1.0, 2.0]).new((2, 2)),
    "new long": lambda L: L.ones(2, dtype=L.long).new([1.5, 2]),
    "new empty": lambda L: L.ones(2).new(),
    "new tensor": lambda L: L.ones(2).new(L.tensor([3.0])),
    "new wrong dtype": lambda L: L.ones(2).new(L.tensor([3, 4])),
    "new str": lambda L: L.ones(2).new("a"),
}


def record_all(L) -> dict:
    return {name: outcome(L, case) for name, case in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert_same(json.loads(json.dumps(outcome(t, CASES[name]))), RECORDED[name], rtol=0, atol=0)
