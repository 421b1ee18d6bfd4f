"""The nodes PyTorch records: for each call, the chain of ``grad_fn`` names and their
``next_functions`` (to depth 3) as torch 2.13 records them, so that a PyTorch user who reads
the graph sees the nodes they know. The expected chains were recorded by running the same
lambdas with ``torch`` and ``torch.nn.functional`` in place of symgrad
(``python tools/record_torch_graphs.py`` rewrites the table)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F


def chain(y, depth=3):
    """``y.grad_fn`` and what its ``next_functions`` lead to, to ``depth`` levels, as text:
    ``"AddmmBackward0(AccumulateGrad, None, TBackward0(...))"`` (a leaf's node is
    ``AccumulateGrad``; an input that needs no gradient is None)."""

    def walk(node, d):
        if node is None:
            return "None"
        name = node.name().replace("torch::autograd::", "")
        nxt = node.next_functions
        if not nxt:
            return name
        if d >= depth:
            return f"{name}(...)"
        return f"{name}({', '.join(walk(n, d + 1) for n, _ in nxt)})"

    return walk(y.grad_fn, 0)


def leaf(L, *shape):
    values = np.linspace(-1.5, 2.0, int(np.prod(shape))).reshape(shape)
    return L.tensor(values, dtype=L.float64, requires_grad=True)


CASES = {  # id: call(L, F), L the library (symgrad here, torch when recording)
    "linear_2d": lambda L, F: F.linear(leaf(L, 2, 3), leaf(L, 4, 3), leaf(L, 4)),
    "linear_3d": lambda L, F: F.linear(leaf(L, 2, 5, 3), leaf(L, 4, 3), leaf(L, 4)),
    "linear_1d": lambda L, F: F.linear(leaf(L, 3), leaf(L, 4, 3), leaf(L, 4)),
    "linear_2d_matrix_bias": lambda L, F: F.linear(leaf(L, 2, 3), leaf(L, 4, 3), leaf(L, 2, 4)),
    "linear_2d_no_bias": lambda L, F: F.linear(leaf(L, 2, 3), leaf(L, 4, 3)),
    "kron": lambda L, F: L.kron(leaf(L, 2, 3), leaf(L, 2, 2)),
    "kron_ranks": lambda L, F: L.kron(leaf(L, 3), leaf(L, 2, 2)),
    "bmm": lambda L, F: L.bmm(leaf(L, 2, 2, 3), leaf(L, 2, 3, 4)),
    "addcmul": lambda L, F: L.addcmul(leaf(L, 3), leaf(L, 3), leaf(L, 2, 1), value=0.5),
    "addcdiv": lambda L, F: L.addcdiv(leaf(L, 3), leaf(L, 3), leaf(L, 3) + 3),
    "tensordot": lambda L, F: L.tensordot(leaf(L, 2, 3), leaf(L, 3, 4), dims=1),
    "logit_eps": lambda L, F: L.logit(leaf(L, 3) / 4 + 0.5, eps=0.1),
    "xlogy": lambda L, F: L.xlogy(leaf(L, 3), leaf(L, 3) + 2),
    "float_power": lambda L, F: L.float_power(leaf(L, 3), 2),
    "sort": lambda L, F: leaf(L, 2, 3).sort(1).values,
    "sort_stable": lambda L, F: leaf(L, 2, 3).sort(dim=1, stable=True).values,
    "sort_stable_none": lambda L, F: L.sort(leaf(L, 2, 3), stable=None).values,
    "asinh_": lambda L, F: (leaf(L, 3) * 1).asinh_(),
    "acosh_": lambda L, F: (leaf(L, 3) + 3).acosh_(),
    "atanh_": lambda L, F: (leaf(L, 3) / 3).atanh_(),
    "interpolate_bicubic": lambda L, F: F.interpolate(leaf(L, 1, 1, 3, 3), scale_factor=2,
                                                      mode="bicubic"),
    "interpolate_area": lambda L, F: F.interpolate(leaf(L, 1, 1, 4, 4), size=2, mode="area"),
    "interpolate_area_3d": lambda L, F: F.interpolate(leaf(L, 1, 1, 4, 4, 2), size=2,
                                                      mode="area"),
    "pairwise_distance": lambda L, F: F.pairwise_distance(leaf(L, 2, 3), leaf(L, 2, 3) * 2),
    "embedding_max_norm": lambda L, F: F.embedding(L.tensor([0, 2]), leaf(L, 3, 2),
                                                   max_norm=1.0),
}

# recorded with torch 2.13 (the module's CASES run with torch and torch.nn.functional)
# --- recorded chains ---
RECORDED = {
    "linear_2d": "AddmmBackward0(AccumulateGrad, AccumulateGrad, TBackward0(AccumulateGrad))",
    "linear_3d": (
        "ViewBackward0(AddmmBackward0(AccumulateGrad, ViewBackward0(AccumulateGrad), "
        "TBackward0(AccumulateGrad)))"),
    "linear_1d": (
        "ViewBackward0(AddmmBackward0(AccumulateGrad, ViewBackward0(AccumulateGrad), "
        "TBackward0(AccumulateGrad)))"),
    "linear_2d_matrix_bias": (
        "AddmmBackward0(AccumulateGrad, AccumulateGrad, TBackward0(AccumulateGrad))"),
    "linear_2d_no_bias": "MmBackward0(AccumulateGrad, TBackward0(AccumulateGrad))",
    "kron": (
        "UnsafeViewBackward0(MulBackward0(UnsafeViewBackward0(AccumulateGrad), "
        "UnsafeViewBackward0(AccumulateGrad)))"),
    "kron_ranks": (
        "UnsafeViewBackward0(MulBackward0(UnsafeViewBackward0(AccumulateGrad), "
        "UnsafeViewBackward0(AccumulateGrad)))"),
    "bmm": "BmmBackward0(AccumulateGrad, AccumulateGrad)",
    "addcmul": "AddcmulBackward0(AccumulateGrad, AccumulateGrad, AccumulateGrad)",
    "addcdiv": (
        "AddcdivBackward0(AccumulateGrad, AccumulateGrad, AddBackward0(AccumulateGrad, None))"),
    "tensordot": (
        "ViewBackward0(MmBackward0(ViewBackward0(PermuteBackward0(...)), "
        "ViewBackward0(PermuteBackward0(...))))"),
    "logit_eps": "LogitBackward0(AddBackward0(DivBackward0(AccumulateGrad, None), None))",
    "xlogy": "XlogyBackward0(AccumulateGrad, AddBackward0(AccumulateGrad, None))",
    "float_power": "PowBackward0(AccumulateGrad)",
    "sort": "SortBackward0(AccumulateGrad)",
    "sort_stable": "SortBackward1(AccumulateGrad)",
    "sort_stable_none": "SortBackward1(AccumulateGrad)",
    "asinh_": "AsinhBackward1(MulBackward0(AccumulateGrad, None))",
    "acosh_": "AcoshBackward1(AddBackward0(AccumulateGrad, None))",
    "atanh_": "AtanhBackward1(DivBackward0(AccumulateGrad, None))",
    "interpolate_bicubic": "UpsampleBicubic2DBackward0(AccumulateGrad)",
    "interpolate_area": "AdaptiveAvgPool2DBackward0(AccumulateGrad)",
    "interpolate_area_3d": "AdaptiveAvgPool3DBackward0(AccumulateGrad)",
    "pairwise_distance": (
        "NormBackward1(AddBackward1(SubBackward0(AccumulateGrad, MulBackward0(...))))"),
    "embedding_max_norm": "EmbeddingBackward0(AccumulateGrad)",
}
# --- end ---


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_records_pytorchs_nodes(case):
    assert chain(CASES[case](t, F)) == RECORDED[case]
