"""The margin losses PyTorch has beyond the basic ones (multi_margin_loss,
multilabel_margin_loss, triplet_margin_with_distance_loss), rrelu and the dropout variants:
values and gradients confirmed with PyTorch 2.13 and recorded here (torch is not imported),
gradcheck, the symbolic check, modules' reprs and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F
from symgrad import nn, symbolic

X = [[0.126, -0.132, 0.64, 0.105], [-0.536, 0.362, 1.304, 0.947],
     [-0.704, -1.265, -0.623, 0.041]]
Y = [3, 0, 2]
W = [1.0, 2.0, 0.5, 3.0]
YM = [[3, 0, -1, 1], [1, 2, 3, -1], [2, 2, -1, 0]]
THIRD, TWELFTH = 1 / 3, 1 / 12

# (kwargs, loss, d loss.sum() / dX) from torch.nn.functional.multi_margin_loss in float64
MULTI_MARGIN = [
    ({}, 1.1234166666666665,
     [[TWELFTH, TWELFTH, TWELFTH, -0.25], [-0.25, TWELFTH, TWELFTH, TWELFTH],
      [TWELFTH, TWELFTH, -0.25, TWELFTH]]),
    ({"p": 2, "margin": 0.7, "weight": W}, 1.8060423749999996,
     [[0.3605, 0.2315, 0.6175, -1.2095],
      [-1.0535, 0.2663333333333333, 0.42333333333333334, 0.3638333333333333],
      [0.05158333333333333, 0.004833333333333337, -0.1700833333333333, 0.11366666666666665]]),
    ({"reduction": "sum"}, 3.3702499999999995,
     [[0.25, 0.25, 0.25, -0.75], [-0.75, 0.25, 0.25, 0.25], [0.25, 0.25, -0.75, 0.25]]),
    ({"reduction": "none", "p": 2}, [0.99520875, 4.45832325, 0.93540525],
     [[0.5105, 0.3815, 0.7675, -1.6595], [-3.6105, 0.949, 1.42, 1.2415],
      [0.4595, 0.179, -1.4705, 0.832]]),
]


def _x():
    return t.tensor(X, dtype=t.float64, requires_grad=True)


@pytest.mark.parametrize("case", range(len(MULTI_MARGIN)))
def test_multi_margin_loss_matches_pytorch(case):
    kwargs, want, want_grad = MULTI_MARGIN[case]
    kwargs = dict(kwargs)
    if "weight" in kwargs:
        kwargs["weight"] = t.tensor(kwargs["weight"], dtype=t.float64)
    x = _x()
    loss = F.multi_margin_loss(x, t.tensor(Y), **kwargs)
    loss.sum().backward()
    np.testing.assert_allclose(loss.detach().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), want_grad, rtol=1e-12, atol=1e-15)
    assert t.autograd.gradcheck(lambda v: F.multi_margin_loss(v, t.tensor(Y), **kwargs), (_x(),))
    symbolic.check(F.multi_margin_loss(_x(), t.tensor(Y), **kwargs).sum())


def test_multilabel_margin_loss_matches_pytorch():
    x = _x()
    loss = F.multilabel_margin_loss(x, t.tensor(YM), reduction="none")
    loss.sum().backward()
    np.testing.assert_allclose(loss.detach().numpy(), [1.1385, 0.0255, 1.4705], rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), [[-0.5, 0.5, 0.5, -0.5], [0.25, -0.25, 0, 0],
                                                [0.5, 0.5, -1.5, 0.5]], rtol=1e-12, atol=1e-15)
    mean = F.multilabel_margin_loss(_x(), t.tensor(YM))
    np.testing.assert_allclose(mean.item(), 0.8781666666666667, rtol=1e-12)
    assert t.autograd.gradcheck(lambda v: F.multilabel_margin_loss(v, t.tensor(YM)), (_x(),))
    symbolic.check(F.multilabel_margin_loss(_x(), t.tensor(YM)))


def test_margin_losses_one_sample_and_hinge_gradient():
    # a vector input is one sample; at the hinge (margin - x[y] + x[i] == 0) the gradient is 0
    x = t.tensor([0.0, 1.0], requires_grad=True)
    F.multi_margin_loss(x, t.tensor(1)).backward()
    assert x.grad.tolist() == [0.0, 0.0]
    assert F.multi_margin_loss(t.tensor(X[0]), t.tensor([3])).shape == ()
    one = F.multilabel_margin_loss(t.tensor(X[0]), t.tensor(YM[0]), reduction="none")
    assert one.shape == () and abs(one.item() - 1.1385) < 1e-6


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda x: F.multi_margin_loss(x, t.tensor(Y), p=3), ValueError,
     "only p == 1 and p == 2 supported"),
    (lambda x: F.multi_margin_loss(x, t.tensor([3, 4, 0])), RuntimeError, "target out of range"),
    (lambda x: F.multi_margin_loss(x, t.tensor([3, 0])), RuntimeError,
     "multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
     "samples (batch size). Expected target size [3], but got [2]. Input has shape [3, 4]."),
    (lambda x: F.multi_margin_loss(x, t.tensor(Y).float()), RuntimeError,
     "expected scalar type Long but found Float"),
    (lambda x: F.multi_margin_loss(x.unsqueeze(0), t.tensor(Y)), RuntimeError,
     "Expected non-empty vector or matrix with optional 0-dim batch size, but got: [1, 3, 4]"),
    (lambda x: F.multi_margin_loss(x, t.tensor(Y), weight=t.ones(3)), RuntimeError,
     "inconsistent weight size, expected 4 but got [3]"),
    (lambda x: F.multi_margin_loss(x, t.tensor(Y), weight=t.ones(2, 2)), ValueError,
     "weight must be one-dimensional"),
    (lambda x: F.multi_margin_loss(x, t.tensor(Y), reduction="bad"), ValueError,
     "bad is not a valid value for reduction"),
    (lambda x: F.multi_margin_loss(x.long(), t.tensor(Y)), NotImplementedError,
     "\"multi_margin_loss_cpu_kernel\" not implemented for 'Long'"),
    (lambda x: F.multilabel_margin_loss(x, t.tensor(YM[0])), RuntimeError,
     "inconsistent target size: [4] for input of size: [3, 4]"),
    (lambda x: F.multilabel_margin_loss(x, t.tensor([[4, 0, -1, 1]] * 3)), RuntimeError,
     "argument #2 'target' is out of range"),
    (lambda x: F.multilabel_margin_loss(x, t.tensor(YM).float()), RuntimeError,
     "expected scalar type Long but found Float"),
    (lambda x: F.multilabel_margin_loss(t.zeros(2, 0), t.zeros(2, 0, dtype=t.int64)),
     RuntimeError, "Expected non-empty vector or matrix"),
    (lambda x: F.triplet_margin_with_distance_loss(x, x, x, margin=0), ValueError,
     "margin must be greater than 0, got 0"),
    (lambda x: F.triplet_margin_with_distance_loss(x, x, x[0]), RuntimeError,
     "The anchor, positive, and negative tensors are expected to have the same number of "
     "dimensions, but got: anchor 2D, positive 2D, and negative 1D inputs"),
])
def test_margin_loss_errors_as_pytorch(call, error, message):
    with pytest.raises(error) as caught:
        call(t.tensor(X))
    assert str(caught.value).startswith(message)


def test_triplet_margin_with_distance_loss_matches_pytorch():
    x = t.tensor(X, dtype=t.float64)
    a, p, n = x[:2], x[1:], x[t.tensor([2, 0])]
    loss = F.triplet_margin_with_distance_loss(a, p, n, swap=True, margin=2.0, reduction="none")
    np.testing.assert_allclose(loss.numpy(), [1.4636280126884769, 3.3314896354399606],
                               rtol=1e-12)
    cos = F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.5)
    np.testing.assert_allclose(cos.item(), 0.7558599839316007, rtol=1e-12)
    module = nn.TripletMarginWithDistanceLoss(margin=2.0, swap=True, reduction="none")
    np.testing.assert_allclose(module(a, p, n).numpy(), loss.numpy())


def test_loss_modules_repr_buffers_and_errors():
    assert repr(nn.MultiMarginLoss(p=2, weight=t.ones(3))) == "MultiMarginLoss()"
    assert list(nn.MultiMarginLoss(weight=t.ones(4)).state_dict()) == ["weight"]
    assert repr(nn.MultiLabelMarginLoss()) == "MultiLabelMarginLoss()"
    assert repr(nn.TripletMarginWithDistanceLoss()) == (
        "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)")
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="MultiMarginLoss: expected weight to be None or 1D "
                                         "tensor, got 2D instead"):
        nn.MultiMarginLoss(weight=t.ones(2, 2))
    with pytest.raises(ValueError, match="TripletMarginWithDistanceLoss: expected margin to be "
                                         "greater than 0, got 0 instead"):
        nn.TripletMarginWithDistanceLoss(margin=0)
    loss = nn.MultiMarginLoss(p=2, margin=0.7, weight=t.tensor(W, dtype=t.float64))
    np.testing.assert_allclose(loss(t.tensor(X, dtype=t.float64), t.tensor(Y)).item(),
                               MULTI_MARGIN[1][1], rtol=1e-12)
    np.testing.assert_allclose(
        nn.MultiLabelMarginLoss(reduction="sum")(t.tensor(X), t.tensor(YM)).item(),
        1.1385 + 0.0255 + 1.4705, rtol=1e-6)


def test_distance_modules():
    assert repr(nn.PairwiseDistance()) == "PairwiseDistance()"
    assert repr(nn.CosineSimilarity()) == "CosineSimilarity()"
    x = t.tensor(X)
    np.testing.assert_allclose(nn.PairwiseDistance(p=1.0, keepdim=True)(x[:2], x[1:]).numpy(),
                               F.pairwise_distance(x[:2], x[1:], 1.0, keepdim=True).numpy())
    np.testing.assert_allclose(nn.CosineSimilarity(dim=0)(x[0], x[1]).numpy(),
                               F.cosine_similarity(x[0], x[1], dim=0).numpy())


def test_rrelu_train_eval_and_gradient():
    x = t.tensor([-2.0, 0.0, 1.0, -0.5], dtype=t.float64, requires_grad=True)
    # eval: the mean slope, as PyTorch: rrelu([-2, 0, 1]) = [-0.4583, 0, 1]
    out = F.rrelu(x)
    np.testing.assert_allclose(out.detach().numpy(), [-2 * 11 / 48, 0, 1, -0.5 * 11 / 48])
    t.manual_seed(3)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    y.sum().backward()
    slopes = x.grad.numpy()
    assert slopes[2] == 1.0 and 0.1 <= slopes[0] <= 0.3 and 0.1 <= slopes[1] <= 0.3
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy() * slopes)
    t.manual_seed(3)
    again = F.rrelu(x.detach(), 0.1, 0.3, training=True)
    np.testing.assert_array_equal(again.numpy(), y.detach().numpy())
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the "
                                           "upper bound"):
        F.rrelu(x, 0.5, 0.1)
    with pytest.raises(NotImplementedError, match="\"leaky_relu_cpu\" not implemented for 'Long'"):
        F.rrelu(t.tensor([1]))
    z = t.tensor([-2.0, 3.0])
    assert F.rrelu_(z, 0.5, 0.5, training=True) is z and z.tolist() == [-1.0, 3.0]
    assert repr(nn.RReLU()) == "RReLU(lower=0.125, upper=0.3333333333333333)"
    assert repr(nn.RReLU(0.1, 0.3, True)) == "RReLU(lower=0.1, upper=0.3, inplace=True)"
    module = nn.RReLU(0.2, 0.2)
    assert module(t.tensor([-1.0])).tolist() == pytest.approx([-0.2])


def test_inplace_selu_celu():
    x = t.tensor([-1.0, 1.0])
    assert F.selu_(x) is x and x.tolist() == pytest.approx([-1.1113307, 1.0507010])
    y = t.tensor([-1.0, 1.0])
    assert F.celu_(y, 2.0) is y and y.tolist() == pytest.approx([-0.7869387, 1.0])


def test_dropout_variants():
    assert [repr(m) for m in (nn.Dropout1d(0.2), nn.Dropout2d(), nn.Dropout3d(0.1, True),
                              nn.AlphaDropout(0.3), nn.FeatureAlphaDropout())] == [
        "Dropout1d(p=0.2, inplace=False)", "Dropout2d(p=0.5, inplace=False)",
        "Dropout3d(p=0.1, inplace=True)", "AlphaDropout(p=0.3, inplace=False)",
        "FeatureAlphaDropout(p=0.5, inplace=False)"]
    t.manual_seed(0)
    out = nn.Dropout3d()(t.ones(4, 6, 2, 2, 2)).numpy()
    per_channel = out.reshape(4, 6, -1)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # whole channels
    unbatched = F.dropout3d(t.ones(8, 2, 2, 2)).numpy().reshape(8, -1)
    assert (unbatched.min(-1) == unbatched.max(-1)).all()
    with pytest.warns(UserWarning, match="dropout3d: Received a 2-D input to dropout3d"):
        rows = F.dropout3d(t.ones(20, 3)).numpy()
    assert (rows.min(-1) == rows.max(-1)).all()  # one draw per row of an unbatched input
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input to dropout2d"):
        F.dropout2d(t.ones(2, 3, 4))
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a "
                                           "1D input"):
        F.dropout1d(t.ones(3))
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        F.feature_alpha_dropout(t.ones(3), training=True)
    feature = F.feature_alpha_dropout(t.ones(30, 5, 4), 0.5, training=True).numpy()
    assert (feature.min(-1) == feature.max(-1)).all()
    assert len(np.unique(feature.round(4))) == 2
    assert nn.AlphaDropout(0.5).eval()(t.ones(3)).tolist() == [1.0, 1.0, 1.0]
