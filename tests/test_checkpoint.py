"""``symgrad.utils.checkpoint`` as ``torch.utils.checkpoint`` (behaviour read off torch 2.13):
the reentrant variant recomputes the function in the backward pass, replaying the forward's
random draws, and gives the gradients of the plain call; the non-reentrant one records the
function's own nodes; the refusals and warnings are PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad as t
from symgrad import nn
from symgrad.utils.checkpoint import checkpoint, checkpoint_sequential


def _leaves():
    x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=t.float64, requires_grad=True)
    w = t.tensor([0.3, -0.7, 1.1], dtype=t.float64, requires_grad=True)
    return x, w


def _block(x: t.Tensor, w: t.Tensor) -> t.Tensor:
    return (x * w).tanh().exp() * x


def _gradients(run) -> tuple[np.ndarray, np.ndarray]:
    x, w = _leaves()
    (run(x, w) ** 2).sum().backward()
    return x.grad.numpy(), w.grad.numpy()


@pytest.mark.parametrize("reentrant", [True, False])
def test_gradients_are_those_of_the_plain_call(reentrant: bool) -> None:
    plain = _gradients(lambda x, w: _block(x, w))
    # w reaches the function through its closure only: its gradient comes from the inner pass
    checked = _gradients(lambda x, w: checkpoint(lambda a: _block(a, w), x,
                                                 use_reentrant=reentrant))
    for ours, theirs in zip(checked, plain, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-14)


def test_reentrant_records_one_node_and_recomputes_in_backward() -> None:
    x, w = _leaves()
    calls = []

    def block(a: t.Tensor) -> t.Tensor:
        calls.append(t.is_grad_enabled())
        return _block(a, w)

    y = checkpoint(block, x, use_reentrant=True)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"
    assert [f.name() for f, _ in y.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"]
    assert calls == [False]  # the forward records nothing
    y.sum().backward()
    assert calls == [False, True]  # the backward runs it again, recording
    z = checkpoint(block, x, use_reentrant=False)
    assert z.grad_fn.name() == "MulBackward0" and calls[-1] is True


@pytest.mark.parametrize("preserve", [True, False])
def test_the_forward_random_draws_are_replayed(preserve: bool) -> None:
    def dropped(a: t.Tensor) -> t.Tensor:
        return nn.functional.dropout(a.exp(), 0.5)

    x = t.linspace(-1.0, 1.0, 200, dtype=t.float64, requires_grad=True)
    t.manual_seed(3)
    y = checkpoint(dropped, x, use_reentrant=True, preserve_rng_state=preserve)
    y.sum().backward()
    kept = (y != 0).numpy()
    expected = np.where(kept, 2 * np.exp(x.detach().numpy()), 0.0)
    # replayed: the gradient flows where the forward kept; not replayed: another mask
    assert np.array_equal(x.grad.numpy(), expected) is preserve


def test_refusals_and_warnings_as_pytorch() -> None:
    x, w = _leaves()
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: k,j$"):
        checkpoint(lambda a, k=1, j=2: a * k, x, use_reentrant=True, k=3, j=4)
    assert checkpoint(lambda a, k=1: a * k, x, use_reentrant=False, k=3).grad_fn is not None
    with pytest.raises(ValueError, match=r"^Passing `context_fn` or `debug` is only supported "
                                         r"when use_reentrant=False.$"):
        checkpoint(_block, x, w, use_reentrant=True, debug=True)
    y = checkpoint(lambda a: a.exp(), x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="^When use_reentrant=True, symgrad.utils.checkpoint "
                                           r"is incompatible with .grad\(\)"):
        t.autograd.grad(y.sum(), x)
    y = checkpoint(lambda a: a.exp(), x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="^When use_reentrant=True"):
        y.sum().backward(inputs=[x])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        z = checkpoint(lambda a: a * w, x.detach())  # no use_reentrant, no input needing grad
    assert [str(m.message).split(":")[0].split(".")[0] for m in caught] == [
        "symgrad", "None of the inputs have requires_grad=True"]
    assert all(m.filename == __file__ for m in caught)
    assert not z.requires_grad  # (reentrant: the parameter in the closure gets no gradient)


def test_checkpoint_sequential_gives_the_plain_gradients() -> None:
    t.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 3), nn.ReLU(),
                          nn.Linear(3, 1)).double()
    x = t.tensor([[0.5, -1.0], [2.0, 0.25], [-0.5, 1.5]], dtype=t.float64)
    model(x).sum().backward()
    plain = [p.grad.numpy().copy() for p in model.parameters()]
    for reentrant in (True, False):
        model.zero_grad()
        inputs = x.clone().requires_grad_()
        checkpoint_sequential(model, 2, inputs, use_reentrant=reentrant).sum().backward()
        for p, expected in zip(model.parameters(), plain, strict=True):
            np.testing.assert_allclose(p.grad.numpy(), expected, rtol=1e-14)
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: bogus$"):
        checkpoint_sequential(model, 2, x, use_reentrant=True, bogus=1)
