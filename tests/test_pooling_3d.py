"""``F.lp_pool3d``/``nn.LPPool3d``, the infinite-order LP poolings of every rank (PyTorch's max
pooling of ``|x|``), max unpooling in 1 to 3 d (one ``MaxUnpool2DBackward0``/``3D`` node, the
1-d form through the 2-d one as PyTorch's) and the deprecated ``nn.NLLLoss2d``
against PyTorch 2.13: values, node names, the gradients of a weighted sum, reprs, warnings and
errors, recorded by ``python tools/record_torch_cases.py tests/test_pooling_3d.py`` into
``tests/data/torch_pooling_3d.json``; this module never imports torch. Gradients are also
checked against central differences and sympy."""

from __future__ import annotations

import json
import pathlib
import warnings

import numpy as np
import pytest
from torch_cases import first_sentence

import symgrad as t
from symgrad import symbolic
from symgrad.autograd.gradcheck import gradcheck

DATA = pathlib.Path(__file__).parent / "data" / "torch_pooling_3d.json"
INF = float("inf")


def _x(L):
    values = (np.arange(2 * 4 * 4 * 5) % 7 - 2.5) * 0.3
    return L.tensor(values.reshape(1, 2, 4, 4, 5), dtype=L.float64, requires_grad=True)


def _unpooled(L, x, **kwargs):
    pooled, indices = L.nn.functional.max_pool3d(x, 2, return_indices=True)
    return L.nn.functional.max_unpool3d(pooled, indices, 2, **kwargs)


CASES = {
    "lp_pool3d 2": lambda L, x: L.nn.functional.lp_pool3d(x, 2, 2),
    "lp_pool3d 1.5 of |x|": lambda L, x: L.nn.functional.lp_pool3d(x.abs() + 0.1, 1.5, (2, 1, 3)),
    "lp_pool3d stride": lambda L, x: L.nn.functional.lp_pool3d(x, 2, 2, stride=1),
    "lp_pool3d ceil_mode": lambda L, x: L.nn.functional.lp_pool3d(x * x + 0.1, 3, 3,
                                                                   ceil_mode=True),
    "lp_pool3d inf": lambda L, x: L.nn.functional.lp_pool3d(x, INF, 2),
    "lp_pool3d -inf": lambda L, x: L.nn.functional.lp_pool3d(x, -INF, 2),
    "lp_pool2d inf": lambda L, x: L.nn.functional.lp_pool2d(x[0], INF, (2, 3)),
    "lp_pool1d -inf": lambda L, x: L.nn.functional.lp_pool1d(x[0, 0], -INF, 2),
    "LPPool3d": lambda L, x: L.nn.LPPool3d(2, (2, 2, 2))(x),
    "LPPool3d repr": lambda L, x: repr(L.nn.LPPool3d(1.5, 2, stride=(1, 2, 1), ceil_mode=True)),
    "max_unpool2d": lambda L, x: L.nn.functional.max_unpool2d(
        *L.nn.functional.max_pool2d(x[0], 2, return_indices=True), 2),
    "max_unpool2d overlapping windows": lambda L, x: L.nn.functional.max_unpool2d(
        *L.nn.functional.max_pool2d(x[0], 2, stride=1, return_indices=True), 2, stride=1),
    "max_unpool1d": lambda L, x: L.nn.functional.max_unpool1d(
        *L.nn.functional.max_pool1d(x[0, 0], 2, return_indices=True), 2),
    "max_unpool3d": lambda L, x: _unpooled(L, x[..., :4]),
    "max_unpool3d output_size": lambda L, x: _unpooled(L, x, output_size=(4, 4, 5)),
    "max_unpool3d bad output_size": lambda L, x: _unpooled(L, x, output_size=(4, 4, 9)),
    "max_unpool3d int32 indices": lambda L, x: L.nn.functional.max_unpool3d(
        x[..., :2, :2, :2], L.zeros(1, 2, 2, 2, 2, dtype=L.int32), 2),
    "max_unpool3d an index too far": lambda L, x: L.nn.functional.max_unpool3d(
        x[..., :1, :1, :1], L.full((1, 2, 1, 1, 1), 8, dtype=L.long), 2),
    "MaxUnpool3d": lambda L, x: L.nn.MaxUnpool3d(2)(*L.nn.MaxPool3d(2, return_indices=True)(x)),
    "MaxUnpool3d repr": lambda L, x: repr(L.nn.MaxUnpool3d((2, 1, 2), stride=1, padding=1)),
    "NLLLoss2d": lambda L, x: L.nn.NLLLoss2d()(x[0, :, 0].log_softmax(0).unsqueeze(0),
                                               L.tensor([[0, 1, 1, 0, 1]])),
    "NLLLoss2d repr": lambda L, x: repr(L.nn.NLLLoss2d(ignore_index=1)),
}


def _run(L, f):
    x = _x(L)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = f(L, x)
        said = [[w.category.__name__, str(w.message).split("\n")[0]] for w in caught]
        if isinstance(out, str):
            return ["text", out, said]
        result = ["value", np.asarray(out.detach().tolist(), dtype=float).tolist(),
                  out.grad_fn.name() if out.grad_fn is not None else None, said]
        if out.requires_grad:
            weights = L.arange(1.0, 1.0 + out.numel(), dtype=out.dtype).reshape(out.shape)
            result.append(L.autograd.grad((out * weights).sum(), x)[0].tolist())
        return result
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        return ["error", *first_sentence(e)]


def record_all(L) -> dict:
    return {name: _run(L, f) for name, f in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    got, expected = _run(t, CASES[name]), RECORDED[name]
    assert got[0] == expected[0], (got, expected)
    if got[0] != "value":
        assert got == expected
        return
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-12, atol=1e-14)
    assert got[2:4] == expected[2:4]
    if len(expected) > 4:
        np.testing.assert_allclose(got[4], expected[4], rtol=1e-12, atol=1e-14)


def test_max_unpool_gradients_agree_with_differences_and_sympy():
    """The unpooling of given values at fixed indices (those of a max pooling of distinct
    values, so that no window ties)."""
    distinct = t.arange(2 * 4 * 4 * 4, dtype=t.float64).reshape(1, 2, 4, 4, 4).sin()
    _, indices = t.nn.functional.max_pool3d(distinct, 2, return_indices=True)
    values = t.linspace(-1.0, 2.0, 16, dtype=t.float64).reshape(1, 2, 2, 2, 2).requires_grad_()
    unpool = lambda v: t.nn.functional.max_unpool3d(v, indices, 2)  # noqa: E731
    assert gradcheck(unpool, (values,))
    out = unpool(values)
    symbolic.check((out * t.arange(1.0, 1.0 + out.numel(), dtype=t.float64)
                    .reshape(out.shape)).sum(), inputs=[values])


@pytest.mark.parametrize("name", ["lp_pool3d 2", "lp_pool3d ceil_mode"])
def test_gradients_agree_with_differences_and_sympy(name):
    x = _x(t)
    assert gradcheck(lambda v: CASES[name](t, v), (x,))
    out = CASES[name](t, x)
    symbolic.check((out * t.arange(1.0, 1.0 + out.numel(), dtype=t.float64)
                    .reshape(out.shape)).sum(), inputs=[x])
