"""``symgrad.nn.utils``: gradient clipping and parameter/vector conversion, against values
confirmed with PyTorch 2.13 (recorded here; torch is not imported)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t
from symgrad.nn import utils

G1 = [[0.5, -1.5], [2.0, 0.25]]
G2 = [3.0, -4.0, 0.1]

# norm_type -> (total norm, clipped G1, clipped G2) from torch.nn.utils.clip_grad_norm_(.., 1.5)
CLIPPED = {
    2.0: (5.618941307067871, [[0.1334770768880844, -0.40043121576309204],
                              [0.5339083075523376, 0.0667385384440422]],
          [0.8008624315261841, -1.0678166151046753, 0.026695415377616882]),
    1.0: (11.350000381469727, [[0.0660792887210846, -0.19823786616325378],
                               [0.2643171548843384, 0.0330396443605423]],
          [0.39647573232650757, -0.5286343097686768, 0.013215857557952404]),
    float("inf"): (4.0, [[0.18749995529651642, -0.5624998807907104],
                         [0.7499998211860657, 0.09374997764825821]],
                   [1.124999761581421, -1.4999996423721313, 0.037499990314245224]),
    3.0: (4.680204391479492, [[0.16024938225746155, -0.48074814677238464],
                              [0.6409975290298462, 0.08012469112873077]],
          [0.9614962935447693, -1.2819950580596924, 0.03204987570643425]),
}


def _params():
    a = t.zeros(2, 2, requires_grad=True)
    b = t.zeros(3, requires_grad=True)
    a.grad = t.tensor(G1)
    b.grad = t.tensor(G2)
    return a, b


@pytest.mark.parametrize("norm_type", list(CLIPPED))
def test_clip_grad_norm_matches_pytorch(norm_type):
    a, b = _params()
    total = utils.clip_grad_norm_([a, b], 1.5, norm_type=norm_type, foreach=None)
    want_total, want_a, want_b = CLIPPED[norm_type]
    np.testing.assert_allclose(total.item(), want_total, rtol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), want_a, rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), want_b, rtol=1e-6)


def test_clip_grad_norm_leaves_small_gradients_and_skips_missing_ones():
    a, b = _params()
    b.grad = None
    total = utils.clip_grad_norm_(iter([a, b]), 100.0)
    np.testing.assert_allclose(total.item(), 2.5617377758026123, rtol=1e-6)
    np.testing.assert_array_equal(a.grad.numpy(), np.array(G1, np.float32))
    assert b.grad is None
    assert utils.get_total_norm([]).item() == 0.0


def test_get_total_norm_then_clip_is_clip_grad_norm():
    a, b = _params()
    total = utils.get_total_norm([a.grad, b.grad], 3.0)
    utils.clip_grads_with_norm_([a, b], 1.5, total)
    np.testing.assert_allclose(a.grad.numpy(), CLIPPED[3.0][1], rtol=1e-6)


def test_nonfinite_norm_raises_only_when_asked_and_before_any_change():
    a, _ = _params()
    a.grad = t.tensor([[float("nan"), 1.0], [0.0, 0.0]])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients"):
        utils.clip_grad_norm_(a, 1.0, error_if_nonfinite=True)
    assert a.grad[0, 1].item() == 1.0
    assert utils.clip_grad_norm_(a, 1.0).isnan().item()


def test_deprecated_clip_grad_norm_warns():
    a, _ = _params()
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        utils.clip_grad_norm(a, 1.0)


def test_clip_grad_value():
    a, b = _params()
    utils.clip_grad_value_([a, b], 1.0)
    np.testing.assert_array_equal(a.grad.numpy(), np.array([[0.5, -1.0], [1.0, 0.25]], np.float32))
    np.testing.assert_array_equal(b.grad.numpy(), np.array([1.0, -1.0, 0.1], np.float32))


def test_parameters_to_vector_and_back():
    lin = t.nn.Linear(3, 2)
    vec = utils.parameters_to_vector(lin.parameters())
    assert vec.shape == (8,) and vec.grad_fn is not None
    np.testing.assert_array_equal(vec[:6].detach().numpy(), lin.weight.detach().numpy().ravel())
    utils.vector_to_parameters(t.arange(8.0), lin.parameters())
    np.testing.assert_array_equal(lin.weight.detach().numpy(), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(lin.bias.detach().numpy(), [6.0, 7.0])
    assert isinstance(lin.weight, t.nn.Parameter)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        utils.vector_to_parameters([1.0], lin.parameters())
