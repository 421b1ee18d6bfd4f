"""``a @ b`` of two matrices and ``x.sum()`` record their node on a short way (the operators'
fast paths, ``dispatch.binary_method`` / ``unary_method`` with their own kernel and node class)
in the common case: both are compared
here with the general path (``apply_binary`` / ``apply_unary``) over operands of every kind
(leaves, computed tensors, views, parameters, named tensors, int and bool tensors, bad shapes
and dtypes) in every variant of tests/test_hot_path_parity.py (grad modes, anomaly mode, hooks,
in-place changes before and after, numpy's error state): what the result and its backward
show, and the recorded node itself, slot by slot."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from test_hot_path_parity import TENSORS, VARIANTS, describe, differences

import symgrad as t
from symgrad import ops
from symgrad.autograd import graph
from symgrad.autograd.graph import node_class
from symgrad.dispatch import apply_binary, apply_unary

_MM, _SUM_ALL = node_class("MmBackward0"), node_class("SumBackward0")
mm = functools.partial(apply_binary, ops.linalg.matmul)
sum_all = functools.partial(apply_unary, ops.reduction.sum)
_R = [[1.0, -0.5], [2.0, 0.25], [-1.5, 3.0]]


def _right(dtype="float32", shape=None, take=None, computed=False, named=False):
    def make(L, rg):
        value = np.array(_R) if shape is None else np.linspace(-1, 2, math.prod(shape)) \
            .reshape(shape)
        x = L.tensor(value, dtype=getattr(L, dtype), requires_grad=rg and dtype[0] == "f")
        leaf = x if x.requires_grad else None
        if computed:
            x = x * 2.0
        if take is not None:
            x = take(x)
        if named:
            x.name = "b"
        return x, leaf
    return make


RIGHTS = {
    "f32": _right(), "f64": _right("float64"), "f32_nonleaf": _right(computed=True),
    "f32_named": _right(computed=True, named=True),
    "f32_slice": _right(shape=(3, 4), take=lambda b: b[:, 1:3]),
    "f32_t": _right(shape=(2, 3), take=lambda b: b.t()),
    "param": lambda L, rg: (lambda p: (p, p if rg else None))(
        L.nn.Parameter(L.tensor(_R), requires_grad=rg)),
    "i64": _right("int64"), "f32_vector": _right(shape=(3,)), "f32_bad": _right(shape=(4, 2)),
    "f32_0d": _right(shape=()),
}
LEFTS = ("f32", "f64", "f32_nonleaf", "f32_slice", "f32_strided", "f32_expand", "param",
         "f32_0d", "i64", "bool", "f32_row")


def _common(a, b):
    """Whether ``a @ b`` is the common case (else the spelling's own checks come first)."""
    return isinstance(b, t.Tensor) and a.dim() == 2 == b.dim() and a.dtype == b.dtype \
        and a.is_floating_point()


def _slots(node, call):
    """What a node recorded, with the inputs it keeps and its edges as kinds."""
    if node is None:
        return None

    def kind(x):
        return x if x is graph.DROPPED or x is graph.AT_EDGE or x is None else type(x).__name__

    site = node.creation_site
    return {"class": type(node).__name__, "saved": node.saved, "params": node.params,
            "values": [(v.dtype.str, v.shape) for v in node.values],
            "versions": node.versions if node.versions is not graph._epoch else "epoch",
            "next": [kind(e) for e in node.next], "inputs": [kind(x) for x in node._inputs],
            "edge_uses": [getattr(e, "uses", None) for e in node.next],
            "special": node.special, "fits": node.fits, "uses": node.uses,
            "line": None if site is None else site[1] - call.__code__.co_firstlineno}


def _anomaly_line(node, call):
    """The line of ``call`` (from its first) that anomaly mode's traceback names last."""
    lines = [int(frame.split(", line ")[1].split(",")[0])
             for frame in node.metadata.get("traceback_", []) if __file__ in frame]
    return lines[-1] - call.__code__.co_firstlineno if lines else None


def _compare(fast, general, makers, rgs, label):
    for variant in VARIANTS:  # (the traceback's line is compared below: one fn for both)
        ours = describe(t, variant, fast, fast, makers, rgs)
        theirs = describe(t, variant, general, fast, makers, rgs)
        assert not differences(ours, theirs), (label, rgs, variant, ours, theirs)
    for anomalous in (False, True):
        nodes = []
        for call in (fast, general):
            operands = [make(t, rg)[0] for make, rg in zip(makers, rgs, strict=True)]
            try:
                if anomalous:
                    with pytest.warns(UserWarning), t.autograd.detect_anomaly():
                        out = call(*operands)
                else:
                    out = call(*operands)
            except Exception as error:  # noqa: BLE001 - the same error both ways
                nodes.append((type(error), str(error)))
                continue
            nodes.append(_slots(out.grad_fn, call))
            if anomalous and out.grad_fn is not None:
                nodes[-1]["anomaly_line"] = _anomaly_line(out.grad_fn, call)
        assert nodes[0] == nodes[1], (label, rgs, anomalous)


@pytest.mark.parametrize("left", LEFTS)
def test_matmul_equals_the_general_path(left):
    fast = lambda a, b: a @ b  # noqa: E731
    method = lambda a, b: a.matmul(b)  # noqa: E731
    # (the general path, or the spelling's own checks first: one line, the caller's)
    general = lambda a, b: mm(a, b, None, 1, _MM) if _common(a, b) else a.matmul(b)  # noqa: E731
    for right, make_b in RIGHTS.items():
        for ra in (False, True):
            for rb in (False, True):
                makers = [TENSORS[left], make_b]
                _compare(fast, general, makers, (ra, rb), right)
                _compare(method, general, makers, (ra, rb), right)


@pytest.mark.parametrize("kind", sorted(TENSORS))
def test_sum_equals_the_general_path(kind):
    fast = lambda x: x.sum()  # noqa: E731
    function = lambda x: t.sum(x)  # noqa: E731
    # (the general path; ints and bools sum as int64 the spelling's own way)
    general = lambda x: sum_all(x, None, 1, _SUM_ALL) if x.is_floating_point() else x.sum()  # noqa: E731
    for rg in (False, True):
        _compare(fast, general, [TENSORS[kind]], (rg,), kind)
        _compare(function, general, [TENSORS[kind]], (rg,), kind)


def test_a_named_input_is_kept_and_an_unnamed_one_dropped():
    a = t.ones(2, 3, requires_grad=True) * 2
    b = t.ones(3, 2, requires_grad=True) * 3
    node = (a @ b).grad_fn  # (each rule reads the other input: both kept)
    assert node._inputs == (a, b)
    c = t.ones(2, 3, requires_grad=True) * 2
    d = t.ones(3, 2) * 3  # (no gradient: input 0 is not saved, and dropped)
    assert (c @ d).grad_fn._inputs == (graph.DROPPED, d)
    node = c.sum().grad_fn
    assert node._inputs == graph.ONE_DROPPED
    c.name = "c"
    assert c.sum().grad_fn._inputs == (c,)
