"""Warnings that PyTorch raises from its C++ core point at the user's call (the line shown, and
what a ``warnings.filterwarnings(module=...)`` filter sees): so do symgrad's, however deep in
the package they are raised (``symgrad.autograd.graph.warn_at_user``). Checked against torch
2.13: each of these warnings' ``filename`` is the calling script's."""

from __future__ import annotations

import importlib
import warnings

import pytest

import symgrad as t

TRIGGERS = {
    "var with one element": (lambda: t.tensor([1.0]).var(), "var(): degrees of freedom"),
    "std over a dim of size 1": (lambda: t.ones(1, 3).std(0), "std(): degrees of freedom"),
    "x.T of a 3-d tensor": (lambda: t.ones(2, 2, 2).T, "The use of `x.T`"),
    "x.T of a 0-d tensor": (lambda: t.tensor(1.0).T, "Tensor.T is deprecated"),
    "cross without dim": (lambda: t.cross(t.ones(3, 3), t.ones(3, 3)), "Using symgrad.cross"),
    "tensor of a tensor": (lambda: t.tensor(t.ones(2)), "To copy construct"),
    "grad of a non-leaf": (lambda: (t.ones(2, requires_grad=True) * 2).grad,
                           "The .grad attribute"),
    "volatile": (lambda: t.ones(2).volatile, "volatile was removed"),
    "scatter with reduce": (lambda: t.zeros(3).scatter(0, t.tensor([0]), t.tensor([1.0]),
                                                       reduce="add"),
                            "The reduce argument of symgrad.scatter"),
    "duplicate parameters": (lambda: t.optim.SGD([t.ones(1, requires_grad=True)] * 2, lr=0.1),
                             "optimizer contains a parameter group with duplicate"),
}


@pytest.mark.parametrize("name", list(TRIGGERS))
def test_warning_points_at_the_callers_line(name: str) -> None:
    trigger, message = TRIGGERS[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trigger()
    mine = [w for w in caught if str(w.message).startswith(message)]
    assert len(mine) == 1, [str(w.message) for w in caught]
    assert mine[0].category is UserWarning
    assert mine[0].filename == __file__


def test_scalar_conversion_warning_points_at_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    tensor_module = importlib.import_module("symgrad.tensor")  # (symgrad.tensor: the factory)
    monkeypatch.setattr(tensor_module, "_warned_scalar_conversion", False)  # (once per process)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        float(t.ones(1, requires_grad=True) * 2)
    assert [w.filename for w in caught] == [__file__]
    assert str(caught[0].message).startswith("Converting a tensor with requires_grad=True")


def test_warning_from_a_users_helper_points_at_the_helper() -> None:
    """The first frame outside symgrad is the user's own function, not its caller."""

    def users_helper() -> None:
        t.tensor([2.0]).var()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        users_helper()
    assert caught[0].filename == __file__
    assert caught[0].lineno == users_helper.__code__.co_firstlineno + 1
