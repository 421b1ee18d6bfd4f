"""Softmax family and losses: closed forms, PyTorch's edge conventions and error messages.

The expected values are PyTorch 2.13's (observed case by case), written as the closed forms
they come from. Gradients at ordinary points are checked against finite differences by the
registry test (every op's samples); here they are checked where a convention decides them.
"""

import math
import warnings

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F


def _t(values, requires_grad=False, dtype=t.float64):
    return t.tensor(np.asarray(values, dtype=np.float64), dtype=dtype,
                    requires_grad=requires_grad)


def _np(y):
    return y.detach().numpy()


def _node(y):
    return type(y.grad_fn).__name__


def _chain(y):
    """Node names from the output back along each node's first recorded input."""
    names, node = [], y.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        node = next((n for n in node.next if isinstance(n, t.autograd.Node)), None)
    return names


def _grad(y, x, v=None):
    (g,) = t.autograd.grad(y, x, grad_outputs=v)
    return _np(g)


def _softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4))
Y = RNG.standard_normal((3, 4))


# ---------------------------------------------------------------------------- softmax family
def test_softmax_closed_form_and_its_jacobian():
    x = _t(np.log([1.0, 2.0, 3.0]), requires_grad=True)
    y = x.softmax(0)
    np.testing.assert_allclose(_np(y), [1 / 6, 2 / 6, 3 / 6])
    assert _node(y) == "SoftmaxBackward0"
    s = _np(y)
    v = np.array([1.0, -2.0, 0.5])
    jacobian = np.diag(s) - np.outer(s, s)
    np.testing.assert_allclose(_grad(y, x, _t(v)), jacobian.T @ v)


def test_log_softmax_closed_form_and_its_jacobian():
    x = _t(np.log([1.0, 2.0, 3.0]), requires_grad=True)
    y = x.log_softmax(-1)
    np.testing.assert_allclose(_np(y), np.log([1 / 6, 2 / 6, 3 / 6]))
    assert _node(y) == "LogSoftmaxBackward0"
    v = np.array([1.0, -2.0, 0.5])
    s = np.array([1, 2, 3]) / 6
    np.testing.assert_allclose(_grad(y, x, _t(v)), v - s * v.sum())


def test_every_spelling_records_the_op_along_the_dim():
    x = _t(X, requires_grad=True)
    for y in (x.softmax(1), t.softmax(x, 1), F.softmax(x, 1), F.softmax(x, dim=-1)):
        np.testing.assert_allclose(_np(y), _softmax(X, 1))
        assert _node(y) == "SoftmaxBackward0"
    for y in (x.log_softmax(0), t.log_softmax(x, 0), F.log_softmax(x, dim=0)):
        np.testing.assert_allclose(_np(y), np.log(_softmax(X, 0)))
        assert _node(y) == "LogSoftmaxBackward0"
    np.testing.assert_allclose(_np(F.softmin(x, 1)), _softmax(-X, 1))


def test_extreme_logits_do_not_overflow():
    x = _t([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -999.0]], requires_grad=True)
    p = x.softmax(1)
    np.testing.assert_allclose(_np(p)[0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(_np(p)[1], [1 / (2 + math.e), 1 / (2 + math.e),
                                              math.e / (2 + math.e)])
    logp = x.log_softmax(1)
    np.testing.assert_allclose(_np(logp)[0], [0.0, -2000.0, -1000.0])
    assert np.isfinite(_grad(logp.sum(), x)).all() and np.isfinite(_grad(p[:, 0].sum(), x)).all()
    # float32 too: exp(90) overflows float32, the shifted exp does not
    x32 = t.tensor([88.0, 89.0, 90.0], requires_grad=True)
    np.testing.assert_allclose(_np(x32.softmax(0)), _softmax(np.array([88.0, 89, 90]), 0),
                               rtol=1e-6)
    assert x32.log_softmax(0).dtype is t.float32


def test_infinite_logits_follow_pytorch():
    x = _t([[-np.inf, 1.0, 1.0], [-np.inf, -np.inf, -np.inf]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warnings either
        p, logp = x.softmax(1), x.log_softmax(1)
    np.testing.assert_array_equal(_np(p)[0], [0.0, 0.5, 0.5])
    np.testing.assert_array_equal(_np(logp)[0], [-np.inf, -math.log(2), -math.log(2)])
    assert np.isnan(_np(p)[1]).all() and np.isnan(_np(logp)[1]).all()  # a row of -inf
    assert np.isnan(_np(_t([np.inf, 1.0]).softmax(0))).all()


def test_zero_dim_and_empty_inputs():
    x = _t(2.0, requires_grad=True)
    for dim in (0, -1):
        y = x.softmax(dim)
        assert y.shape == () and y.item() == 1.0 and _node(y) == "SoftmaxBackward0"
        assert x.log_softmax(dim).item() == 0.0
    assert _grad(x.softmax(0), x) == 0.0
    assert _t(np.zeros((0, 3))).softmax(0).shape == (0, 3)
    assert _t(np.zeros((0, 3))).log_softmax(1).shape == (0, 3)


def test_dtype_argument_casts_first():
    x = t.tensor(X.tolist(), requires_grad=True)  # float32
    y = x.softmax(1, dtype=t.float64)
    assert y.dtype is t.float64 and _chain(y) == ["SoftmaxBackward0", "ToCopyBackward0"]
    assert F.log_softmax(x, 1, dtype=t.float64).dtype is t.float64
    assert _grad(y.sum(), x).dtype == np.float32
    ints = t.tensor([[1, 2], [3, 4]])
    np.testing.assert_allclose(_np(ints.softmax(1, dtype=t.float32)),
                               _softmax(np.array([[1.0, 2], [3, 4]]), 1), rtol=1e-6)


def test_softmax_argument_errors():
    x = _t(X)
    with pytest.raises(TypeError, match='softmax\\(\\) missing 1 required positional arguments: '
                                        '"dim"'):
        x.softmax()
    with pytest.raises(TypeError, match="log_softmax\\(\\): argument 'dim' \\(position 1\\) must "
                                        "be int, not NoneType"):
        x.log_softmax(None)
    with pytest.raises(TypeError, match="must be int, not float"):
        t.softmax(x, 1.0)
    with pytest.raises(IndexError, match="Dimension out of range \\(expected to be in range of "
                                         "\\[-2, 1\\], but got 2\\)"):
        x.softmax(2)
    ints = t.tensor([[1, 2], [3, 4]])
    with pytest.raises(NotImplementedError, match="\"softmax_lastdim_kernel_impl\" not "
                                                  "implemented for 'Long'"):
        ints.softmax(1)
    with pytest.raises(NotImplementedError, match="\"log_softmax_kernel_impl\" not implemented "
                                                  "for 'Long'"):
        ints.log_softmax(0)
    with pytest.raises(NotImplementedError, match="for 'Long'"):
        _t(X).softmax(0, dtype=t.int64)


@pytest.mark.parametrize(("shape", "dim"), [((), 0), ((4,), 0), ((2, 3), 1), ((2, 3, 4), 0),
                                            ((2, 3, 4, 5), 1)])
def test_functional_softmax_without_dim_warns_and_picks_pytorchs_dim(shape, dim):
    a = RNG.standard_normal(shape)
    for fn, expected in ((F.softmax, _softmax(a, dim)),
                         (F.log_softmax, np.log(_softmax(a, dim))),
                         (F.softmin, _softmax(-a, dim))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = fn(_t(a))
        np.testing.assert_allclose(_np(y), expected)
        (w,) = caught
        assert str(w.message) == (f"Implicit dimension choice for {fn.__name__} has been "
                                  "deprecated. Change the call to include dim=X as an argument.")
        assert w.category is UserWarning and w.filename == __file__  # points at the caller


# ---------------------------------------------------------------------------- reductions
@pytest.mark.parametrize("loss", [F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss,
                                  F.binary_cross_entropy, F.binary_cross_entropy_with_logits,
                                  F.kl_div, F.nll_loss, F.cross_entropy])
def test_invalid_reduction_is_a_value_error(loss):
    p = _t(np.full((2, 2), 0.5))
    target = t.tensor([0, 1]) if loss in (F.nll_loss, F.cross_entropy) else p
    with pytest.raises(ValueError, match="^avg is not a valid value for reduction$"):
        loss(p, target, reduction="avg")


def test_legacy_size_average_and_reduce_flags():
    x, y = _t(X), _t(Y)
    for kwargs, reduction in ((dict(size_average=False), "sum"), (dict(reduce=False), "none"),
                              (dict(size_average=True, reduce=True, reduction="none"), "mean")):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, "
                                             f"please use reduction='{reduction}' instead."):
            legacy = F.mse_loss(x, y, **kwargs)
        np.testing.assert_allclose(_np(legacy), _np(F.mse_loss(x, y, reduction=reduction)))


# ---------------------------------------------------------------------------- regression
def test_mse_loss_values_nodes_and_gradients():
    x, y = _t(X, requires_grad=True), _t(Y, requires_grad=True)
    d = X - Y
    for reduction, value, scale in (("none", d ** 2, 1.0), ("mean", (d ** 2).mean(), 1 / 12),
                                    ("sum", (d ** 2).sum(), 1.0)):
        loss = F.mse_loss(x, y, reduction=reduction)
        np.testing.assert_allclose(_np(loss), value)
        assert _node(loss) == "MseLossBackward0"
        gx, gy = t.autograd.grad(loss.sum(), [x, y])
        np.testing.assert_allclose(_np(gx), 2 * d * scale)
        np.testing.assert_allclose(_np(gy), -2 * d * scale)


def test_mse_loss_broadcasts_with_pytorchs_warning():
    x, y = _t([[1.0], [2.0], [3.0]], requires_grad=True), _t([0.0, 1.0, 2.0])
    with pytest.warns(UserWarning) as caught:
        loss = F.mse_loss(x, y)
    assert str(caught[0].message) == (
        "Using a target size (symgrad.Size([3])) that is different to the input size "
        "(symgrad.Size([3, 1])). This will likely lead to incorrect results due to broadcasting. "
        "Please ensure they have the same size.")
    assert caught[0].filename == __file__
    d = np.array([[1.0], [2.0], [3.0]]) - np.array([0.0, 1.0, 2.0])
    np.testing.assert_allclose(loss.item(), (d ** 2).mean())
    np.testing.assert_allclose(_grad(loss, x), (2 * d / 9).sum(1, keepdims=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size "
                                               "of tensor b \\(2\\) at non-singleton dimension 0"):
            F.mse_loss(_t([1.0, 2.0, 3.0]), _t([1.0, 2.0]))


def test_regression_loss_dtype_errors_and_promotion():
    ints = t.tensor([1, 2, 3])
    with pytest.raises(NotImplementedError, match="\"mse_cpu\" not implemented for 'Long'"):
        F.mse_loss(ints, ints)
    with pytest.raises(NotImplementedError, match="\"smooth_l1_cpu\" not implemented for 'Long'"):
        F.smooth_l1_loss(ints, ints)
    with pytest.raises(NotImplementedError, match="\"huber_cpu\" not implemented for 'Long'"):
        F.huber_loss(ints, ints)
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        F.l1_loss(ints, ints)
    with pytest.raises(AttributeError, match="'float' object has no attribute 'size'"):
        F.mse_loss(_t([1.0]), 1.0)
    x32 = t.tensor([1.0, 2.0], requires_grad=True)
    assert F.mse_loss(x32, _t([1.0, 0.0])).dtype is t.float64  # promoted, as PyTorch
    assert F.mse_loss(x32, ints[:2]).dtype is t.float32
    assert F.huber_loss(x32, _t([1.0, 0.0])).dtype is t.float32  # huber keeps the input's dtype


def test_mean_over_nothing_is_nan_and_sum_is_zero():
    e = _t(np.zeros((0, 2)), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for loss in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss):
            assert math.isnan(loss(e, e).item()) and loss(e, e, reduction="sum").item() == 0.0


def test_l1_loss_is_recorded_as_pytorch_and_its_gradient_at_zero_is_zero():
    x = _t([0.0, 1.0, -1.0], requires_grad=True)
    y = _t([0.0, 0.0, 0.0])
    loss = F.l1_loss(x, y)
    assert _chain(loss) == ["MeanBackward0", "AbsBackward0", "SubBackward0"]
    assert _chain(F.l1_loss(x, y, reduction="sum"))[0] == "SumBackward0"
    assert _chain(F.l1_loss(x, y, reduction="none"))[0] == "AbsBackward0"
    np.testing.assert_array_equal(_grad(loss, x), [0.0, 1 / 3, -1 / 3])


@pytest.mark.parametrize("beta", [1.0, 0.5])
def test_smooth_l1_and_huber_branches(beta):
    d = np.array([0.0, 0.2, -0.3, beta, -beta, 2.0, -3.0])
    x, y = _t(d, requires_grad=True), _t(np.zeros_like(d))
    smooth = F.smooth_l1_loss(x, y, reduction="none", beta=beta)
    inside = np.abs(d) < beta
    np.testing.assert_allclose(_np(smooth),
                               np.where(inside, 0.5 * d ** 2 / beta, np.abs(d) - 0.5 * beta))
    np.testing.assert_allclose(_grad(smooth.sum(), x), np.where(inside, d / beta, np.sign(d)))
    assert _node(smooth) == "SmoothL1LossBackward0"
    huber = F.huber_loss(x, y, reduction="none", delta=beta)
    np.testing.assert_allclose(_np(huber), beta * _np(smooth.detach()))
    np.testing.assert_allclose(_grad(huber.sum(), x), np.where(inside, d, beta * np.sign(d)))
    assert _node(huber) == "HuberLossBackward0"


def test_smooth_l1_with_beta_zero_is_l1_and_bad_parameters():
    x, y = _t(X, requires_grad=True), _t(Y)
    loss = F.smooth_l1_loss(x, y, beta=0.0)
    assert _chain(loss) == ["MeanBackward0", "AbsBackward0", "SubBackward0"]
    np.testing.assert_allclose(loss.item(), np.abs(X - Y).mean())
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values for "
                                           "beta."):
        F.smooth_l1_loss(x, y, beta=-1.0)
    with pytest.raises(RuntimeError, match="huber_loss does not support non-positive values for "
                                           "delta."):
        F.huber_loss(x, y, delta=0.0)


def test_weighted_regression_losses():
    x, y, w = _t(X, requires_grad=True), _t(Y), _t(np.abs(Y), requires_grad=True)
    d2 = (X - Y) ** 2
    np.testing.assert_allclose(F.mse_loss(x, y, weight=w).item(),
                               (d2 * np.abs(Y)).sum() / np.abs(Y).sum())
    np.testing.assert_allclose(F.l1_loss(x, y, weight=w, reduction="sum").item(),
                               (np.abs(X - Y) * np.abs(Y)).sum())
    huber = np.where(np.abs(X - Y) < 1, 0.5 * d2, np.abs(X - Y) - 0.5)
    np.testing.assert_allclose(F.huber_loss(x, y, weight=w).item(), (huber * np.abs(Y)).mean())
    assert _grad(F.mse_loss(x, y, weight=w), w).shape == (3, 4)  # the weight is differentiable
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        F.mse_loss(x, y, weight=_t([1.0, 2.0, 3.0, 4.0]))
    with pytest.raises(ValueError, match="Invalid reduction mode: avg. Expected one of 'none', "
                                         "'mean', 'sum'."):
        F.l1_loss(x, y, weight=w, reduction="avg")


# ---------------------------------------------------------------------------- binary
def test_binary_cross_entropy_closed_form():
    p, q = RNG.uniform(0.05, 0.95, (3, 4)), RNG.uniform(0, 1, (3, 4))
    x, y = _t(p, requires_grad=True), _t(q, requires_grad=True)
    loss = F.binary_cross_entropy(x, y)
    assert _node(loss) == "BinaryCrossEntropyBackward0"
    np.testing.assert_allclose(loss.item(), -(q * np.log(p) + (1 - q) * np.log(1 - p)).mean())
    gx, gy = t.autograd.grad(loss, [x, y])
    np.testing.assert_allclose(_np(gx), (p - q) / (p * (1 - p)) / 12)
    np.testing.assert_allclose(_np(gy), (np.log(1 - p) - np.log(p)) / 12)


def test_binary_cross_entropy_at_zero_and_one_clamps_the_log_at_minus_100():
    x = _t([0.0, 1.0, 0.0, 1.0], requires_grad=True)
    y = _t([0.0, 1.0, 1.0, 0.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = F.binary_cross_entropy(x, y, reduction="none")
    np.testing.assert_array_equal(_np(loss), [0.0, 0.0, 100.0, 100.0])
    assert not np.signbit(_np(loss)[0]) and np.signbit(_np(loss)[1])  # 0. and -0.
    gx, gy = t.autograd.grad(loss.sum(), [x, y])
    eps = float(np.float32(1e-12))  # PyTorch divides by max(x (1 - x), 1e-12f)
    np.testing.assert_array_equal(_np(gx), [0.0, 0.0, -1 / eps, 1 / eps])
    np.testing.assert_array_equal(_np(gy), [np.inf, -np.inf, np.inf, -np.inf])  # unclamped
    tiny = F.binary_cross_entropy(_t([1e-50]), _t([1.0]))
    assert tiny.item() == 100.0  # -log(1e-50) = 115 is clamped too
    # float32: the log of 1 - x is log1p(-x), as PyTorch's kernel
    x32 = t.tensor([1e-7, 1 - 1e-7])
    np.testing.assert_allclose(_np(F.binary_cross_entropy(x32, t.tensor([0.0, 1.0]),
                                                      reduction="none")),
                               [-math.log1p(-np.float32(1e-7)),
                                -math.log(np.float32(1 - 1e-7))], rtol=1e-6)


def test_binary_cross_entropy_weight_and_errors():
    p, q = RNG.uniform(0.05, 0.95, (3, 4)), RNG.uniform(0, 1, (3, 4))
    w = np.array([0.5, 2.0, 1.0, 0.25])
    x, y = _t(p, requires_grad=True), _t(q)
    loss = F.binary_cross_entropy(x, y, weight=_t(w), reduction="sum")
    each = -(q * np.log(p) + (1 - q) * np.log(1 - p))
    np.testing.assert_allclose(loss.item(), (each * w).sum())
    np.testing.assert_allclose(_grad(loss, x), w * (p - q) / (p * (1 - p)))
    with pytest.raises(RuntimeError, match="The function 'binary_cross_entropy' is not "
                                           "differentiable with respect to argument 'weight'."):
        F.binary_cross_entropy(x, y, weight=_t(w, requires_grad=True))
    with t.no_grad():
        F.binary_cross_entropy(x, y, weight=_t(w, requires_grad=True))
    with pytest.raises(RuntimeError, match="Attempting to broadcast a dimension of length 3 at "
                                           "-1! Mismatching argument at index 1 had "
                                           "symgrad.Size\\(\\[3\\]\\); but expected shape should "
                                           "be broadcastable to \\[3, 4\\]"):
        F.binary_cross_entropy(x, y, weight=_t([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="output with shape \\[3, 4\\] doesn't match the "
                                           "broadcast shape \\[2, 3, 4\\]"):
        F.binary_cross_entropy(x, y, weight=_t(np.ones((2, 3, 4))))
    with pytest.raises(ValueError, match="Using a target size \\(symgrad.Size\\(\\[4\\]\\)\\) "
                                         "that is different to the input size \\(symgrad.Size"
                                         "\\(\\[3, 4\\]\\)\\) is deprecated."):
        F.binary_cross_entropy(x, _t(q[0]))
    for bad in (1.5, -0.5, np.nan):
        with pytest.raises(RuntimeError, match="^all elements of input should be between 0 and "
                                               "1$"):
            F.binary_cross_entropy(_t([bad]), _t([0.5]))
    with pytest.raises(RuntimeError, match="^all elements of target should be between 0 and 1$"):
        F.binary_cross_entropy(_t([0.5]), _t([1.5]))
    with pytest.raises(RuntimeError, match="^Found dtype Long but expected Double$"):
        F.binary_cross_entropy(_t([0.5]), t.tensor([1]))
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        F.binary_cross_entropy(t.tensor([0.5]), _t([1.0]))
    with pytest.raises(NotImplementedError, match="\"binary_cross_entropy\" not implemented for "
                                                  "'Long'"):
        F.binary_cross_entropy(t.tensor([1]), t.tensor([1]))


def test_binary_cross_entropy_with_logits_is_stable():
    x = _t([1000.0, -1000.0, 1000.0, -1000.0, 0.0], requires_grad=True)
    y = _t([1.0, 0.0, 0.0, 1.0, 0.5], requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    assert _node(loss) == "BinaryCrossEntropyWithLogitsBackward0"
    np.testing.assert_allclose(_np(loss), [0.0, 0.0, 1000.0, 1000.0, math.log(2)])
    gx, gy = t.autograd.grad(loss.sum(), [x, y])
    np.testing.assert_allclose(_np(gx), [0.0, 0.0, 1.0, -1.0, 0.0])  # sigmoid(x) - y
    np.testing.assert_allclose(_np(gy), [-1000.0, 1000.0, -1000.0, 1000.0, 0.0])  # -x
    pos = _t([2.0, 2.0, 3.0, 3.0, 0.5])
    weighted = F.binary_cross_entropy_with_logits(x, y, pos_weight=pos, reduction="none")
    np.testing.assert_allclose(_np(weighted), [0.0, 0.0, 1000.0, 3000.0,
                                                  0.5 * 0.0 + 0.75 * math.log(2)])


def test_binary_cross_entropy_with_logits_weights_closed_form():
    q = RNG.uniform(0, 1, (3, 4))
    w, pw = np.array([0.5, 2.0, 1.0, 0.25]), np.array([1.5, 0.5, 3.0, 1.0])
    x, y = _t(X, requires_grad=True), _t(q)
    loss = F.binary_cross_entropy_with_logits(x, y, weight=_t(w), pos_weight=_t(pw))
    s = 1 / (1 + np.exp(-X))
    each = -w * (pw * q * np.log(s) + (1 - q) * np.log(1 - s))
    np.testing.assert_allclose(loss.item(), each.mean())
    np.testing.assert_allclose(_grad(loss, x), w * ((pw * q + 1 - q) * s - pw * q) / 12)


def test_binary_cross_entropy_with_logits_errors():
    x, y = _t(X), _t(RNG.uniform(0, 1, (3, 4)))
    with pytest.raises(ValueError, match="Target size \\(symgrad.Size\\(\\[4\\]\\)\\) must be the "
                                         "same as input size \\(symgrad.Size\\(\\[3, 4\\]\\)\\)"):
        F.binary_cross_entropy_with_logits(x, y[0])
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of "
                                           "tensor b \\(4\\) at non-singleton dimension 1"):
        F.binary_cross_entropy_with_logits(x, y, pos_weight=_t([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="output with shape \\[3, 4\\] doesn't match the "
                                           "broadcast shape \\[2, 3, 4\\]"):
        F.binary_cross_entropy_with_logits(x, y, weight=_t(np.ones((2, 3, 4))))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output "
                                           "type Long"):
        F.binary_cross_entropy_with_logits(t.tensor([0.5]), t.tensor([1]))
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument "
                                           "'pos_weight'"):
        F.binary_cross_entropy_with_logits(x, y, pos_weight=_t(np.ones(4), requires_grad=True))
    # targets outside [0, 1] are accepted, as PyTorch
    assert math.isfinite(F.binary_cross_entropy_with_logits(x, 3 * y - 1).item())


# ---------------------------------------------------------------------------- class targets
def test_nll_loss_picks_the_targets():
    x = _t(X, requires_grad=True)
    target = t.tensor([0, 3, 1])
    picked = X[[0, 1, 2], [0, 3, 1]]
    for reduction, value in (("none", -picked), ("mean", -picked.mean()), ("sum", -picked.sum())):
        loss = F.nll_loss(x, target, reduction=reduction)
        np.testing.assert_allclose(_np(loss), value)
        assert _node(loss) == "NllLossBackward0"
    expected = np.zeros((3, 4))
    expected[[0, 1, 2], [0, 3, 1]] = -1 / 3
    np.testing.assert_array_equal(_grad(F.nll_loss(x, target), x), expected)


def test_nll_loss_weights_and_ignore_index():
    w = np.array([0.5, 2.0, 1.0, 0.25])
    x = _t(X, requires_grad=True)
    target = t.tensor([1, 3, 1])
    loss = F.nll_loss(x, target, weight=_t(w), ignore_index=1, reduction="none")
    np.testing.assert_array_equal(_np(loss), [0.0, -0.25 * X[1, 3], 0.0])
    assert not np.signbit(_np(loss)[0])  # an ignored sample gives +0, as PyTorch
    mean = F.nll_loss(x, t.tensor([0, 3, 1]), weight=_t(w))  # divides by the weights' sum
    np.testing.assert_allclose(mean.item(), -(0.5 * X[0, 0] + 0.25 * X[1, 3] + 2.0 * X[2, 1])
                               / (0.5 + 0.25 + 2.0))
    ignored = F.nll_loss(x, t.tensor([0, -100, 1]))
    np.testing.assert_allclose(ignored.item(), -(X[0, 0] + X[2, 1]) / 2)
    g = _grad(ignored, x)
    assert (g[1] == 0).all() and g[0, 0] == g[2, 1] == -0.5


def test_nll_loss_with_nothing_to_average():
    x = _t(X, requires_grad=True)
    loss = F.nll_loss(x, t.tensor([-100, -100, -100]))
    assert math.isnan(loss.item())
    np.testing.assert_array_equal(_grad(loss, x), np.zeros((3, 4)))  # no sample, no gradient
    assert F.nll_loss(x, t.tensor([-100, -100, -100]), reduction="sum").item() == 0.0
    zero = F.nll_loss(x, t.tensor([0, 1, 2]), weight=_t([0.0, 0.0, 0.0, 1.0]))
    assert math.isnan(zero.item())
    g = _grad(zero, x)  # 0 / 0 at the picked entries, as PyTorch
    assert np.isnan(g[[0, 1, 2], [0, 1, 2]]).all() and np.nansum(np.abs(g)) == 0
    empty = _t(np.zeros((0, 4)), requires_grad=True)
    assert math.isnan(F.nll_loss(empty, t.tensor(np.zeros(0, dtype=np.int64))).item())
    spatial = _t(np.zeros((0, 3, 4)), requires_grad=True)
    none = F.nll_loss(spatial, t.tensor(np.zeros((0, 4), dtype=np.int64)), reduction="none")
    assert none.shape == (0, 4) and _node(none) == "ViewBackward0"


def test_nll_loss_shapes_and_node_names():
    v = _t(X[0], requires_grad=True)
    one = F.nll_loss(v, t.tensor(2), reduction="none")
    assert one.shape == () and one.item() == -X[0, 2] and _node(one) == "NllLossBackward0"
    assert F.nll_loss(v, t.tensor([2])).item() == -X[0, 2]  # a 1-d target of size 1
    assert F.nll_loss(v, t.tensor(2), ignore_index=2, reduction="none").item() == 0.0
    x4 = RNG.standard_normal((2, 3, 2, 2))
    t4 = RNG.integers(0, 3, (2, 2, 2))
    loss4 = F.nll_loss(_t(x4, requires_grad=True), t.tensor(t4), reduction="none")
    assert _node(loss4) == "NllLoss2DBackward0"
    n, i, j = np.indices((2, 2, 2))
    np.testing.assert_allclose(_np(loss4), -x4[n, t4, i, j])
    x3 = RNG.standard_normal((2, 3, 4))
    t3 = RNG.integers(0, 3, (2, 4))
    loss3 = F.nll_loss(_t(x3, requires_grad=True), t.tensor(t3), reduction="none")
    assert _chain(loss3) == ["ViewBackward0", "NllLoss2DBackward0", "ViewBackward0"]
    n, i = np.indices((2, 4))
    np.testing.assert_allclose(_np(loss3), -x3[n, t3, i])
    assert _chain(F.nll_loss(_t(x3, requires_grad=True), t.tensor(t3))) == [
        "NllLoss2DBackward0", "ViewBackward0"]


def test_nll_loss_errors():
    x = _t(X)
    cases = [
        ((x, t.tensor([0.0, 1.0, 2.0])), RuntimeError,
         "expected target dtype to be Long or Byte, but got Float"),
        ((x, t.tensor([0, 1])), ValueError,
         "Expected input batch_size \\(3\\) to match target batch_size \\(2\\)."),
        ((x, t.tensor([[0, 1, 2]])), ValueError, "batch_size \\(1\\)"),
        ((x, t.tensor([0, 1, 4])), IndexError, "^Target 4 is out of bounds.$"),
        ((x, t.tensor([0, -1, 2])), IndexError, "^Target -1 is out of bounds.$"),
        ((_t(1.0), t.tensor(0)), ValueError, "Expected 1 or more dimensions \\(got 0\\)"),
        ((_t(X[0]), t.tensor([1, 2])), ValueError,
         "For 1D input, 1D target must have size 1, but got target size: 2"),
        ((t.tensor([[1, 2]]), t.tensor([0])), NotImplementedError,
         "\"nll_loss_out_frame\" not implemented for 'Long'"),
        ((_t(np.zeros((2, 3, 4))), t.tensor(np.zeros((2, 5), dtype=np.int64))), RuntimeError,
         "Expected target size \\[2, 4\\], got \\[2, 5\\]"),
        ((_t(np.zeros((2, 3, 4, 5))), t.tensor(np.zeros((2, 4), dtype=np.int64))), RuntimeError,
         "only batches of spatial targets supported \\(3D tensors\\) but got targets of "
         "dimension: 2"),
        ((x, [0, 1, 2]), TypeError,
         "nll_loss_nd\\(\\): argument 'target' \\(position 2\\) must be Tensor, not list"),
    ]
    for args, error, message in cases:
        with pytest.raises(error, match=message):
            F.nll_loss(*args)
    target = t.tensor([0, 1, 2])
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 4 "
                                           "classes or no classes but got weight tensor of "
                                           "shape: \\[3\\]"):
        F.nll_loss(x, target, weight=_t([1.0, 1.0, 1.0]))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        F.nll_loss(t.tensor(X.tolist()), target, weight=_t(np.ones(4)))
    with pytest.raises(RuntimeError, match="The function 'nll_loss_forward' is not "
                                           "differentiable with respect to argument 'weight'."):
        F.nll_loss(x, target, weight=_t(np.ones(4), requires_grad=True))
    assert F.nll_loss(x, t.tensor([0, -1, 2]), ignore_index=-1).item() == -(X[0, 0] + X[2, 2]) / 2


def test_cross_entropy_is_log_softmax_then_nll():
    x = _t(X, requires_grad=True)
    target = t.tensor([0, 3, 1])
    logp = np.log(_softmax(X, 1))
    loss = F.cross_entropy(x, target)
    assert _chain(loss) == ["NllLossBackward0", "LogSoftmaxBackward0"]
    np.testing.assert_allclose(loss.item(), -logp[[0, 1, 2], [0, 3, 1]].mean())
    onehot = np.eye(4)[[0, 3, 1]]
    np.testing.assert_allclose(_grad(loss, x), (_softmax(X, 1) - onehot) / 3)


def test_cross_entropy_with_extreme_logits():
    x = _t([[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 999.0]], requires_grad=True)
    loss = F.cross_entropy(x, t.tensor([0, 2]), reduction="none")
    np.testing.assert_allclose(_np(loss), [0.0, math.log1p(math.e)])
    g = _grad(loss.sum(), x)
    np.testing.assert_allclose(g, [[0.0, 0.0, 0.0],
                                   [0.0, math.e / (1 + math.e), -math.e / (1 + math.e)]],
                               atol=1e-15)
    masked = _t([[0.0, -np.inf, 1.0], [-np.inf, 2.0, -np.inf]], requires_grad=True)
    np.testing.assert_allclose(_np(F.cross_entropy(masked, t.tensor([0, 1]), reduction="none")),
                               [math.log1p(math.e), 0.0])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_label_smoothing_closed_form(reduction):
    eps, w = 0.2, np.array([0.5, 2.0, 1.0, 0.25])
    x = _t(X, requires_grad=True)
    target = t.tensor([1, 3, 1])
    loss = F.cross_entropy(x, target, weight=_t(w), ignore_index=3, reduction=reduction,
                           label_smoothing=eps)
    assert _node(loss) == "AddBackward0"
    logp = np.log(_softmax(X, 1))
    keep = np.array([1.0, 0.0, 1.0])
    nll = -w[[1, 3, 1]] * logp[[0, 1, 2], [1, 3, 1]] * keep
    smooth = -(logp * w).sum(1) * keep
    if reduction == "none":
        expected = (1 - eps) * nll + eps / 4 * smooth
    elif reduction == "sum":
        expected = (1 - eps) * nll.sum() + eps / 4 * smooth.sum()
    else:  # both terms divide by the weights of the kept targets
        expected = ((1 - eps) * nll.sum() + eps / 4 * smooth.sum()) / (2 * w[1])
    np.testing.assert_allclose(_np(loss), expected)


def test_cross_entropy_label_smoothing_unweighted_is_a_mixture_with_the_uniform():
    eps = 0.1
    x = _t(X, requires_grad=True)
    loss = F.cross_entropy(x, t.tensor([0, 3, 1]), label_smoothing=eps)
    mixed = (1 - eps) * np.eye(4)[[0, 3, 1]] + eps / 4
    np.testing.assert_allclose(loss.item(), -(mixed * np.log(_softmax(X, 1))).sum(1).mean())
    np.testing.assert_allclose(_grad(loss, x), (_softmax(X, 1) - mixed) / 3)
    as_probabilities = F.cross_entropy(x, _t(np.eye(4)[[0, 3, 1]]), label_smoothing=eps)
    np.testing.assert_allclose(as_probabilities.item(), loss.item())


def test_cross_entropy_with_class_probabilities():
    q = RNG.uniform(0, 1, (3, 4))
    w = np.array([0.5, 2.0, 1.0, 0.25])
    x, y, wt = _t(X, requires_grad=True), _t(q, requires_grad=True), _t(w, requires_grad=True)
    logp = np.log(_softmax(X, 1))
    per = -(logp * q * w).sum(1)
    for reduction, value in (("none", per), ("sum", per.sum()), ("mean", per.sum() / 3)):
        loss = F.cross_entropy(x, y, weight=wt, reduction=reduction)
        np.testing.assert_allclose(_np(loss), value)
    # target and weight are differentiable here, as in PyTorch
    gx, gy, gw = t.autograd.grad(F.cross_entropy(x, y, weight=wt, reduction="sum"), [x, y, wt])
    np.testing.assert_allclose(_np(gy), -logp * w)
    np.testing.assert_allclose(_np(gw), -(logp * q).sum(0))
    one = F.cross_entropy(_t(X[0], requires_grad=True), _t(q[0]), reduction="mean")
    np.testing.assert_allclose(one.item(), -(np.log(_softmax(X[0], 0)) * q[0]).sum())


def test_cross_entropy_errors():
    x, target = _t(X), t.tensor([0, 1, 2])
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0. Got: "
                                           "1.5"):
        F.cross_entropy(x, target, label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point "
                                           "target"):
        F.cross_entropy(x, _t(np.full((3, 4), 0.25)), ignore_index=1)
    with pytest.raises(RuntimeError, match="Expected floating point type for target with class "
                                           "probabilities, got Long"):
        F.cross_entropy(_t(X[0]), t.tensor([0, 1, 2, 3]))
    with pytest.raises(RuntimeError, match="^cross_entropy: weight tensor should be defined "
                                           "either for all 4 classes"):
        F.cross_entropy(x, _t(np.full((3, 4), 0.25)), weight=_t([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected, multi-target not "
                                           "supported"):
        F.cross_entropy(x, _t(np.zeros((3, 5))))
    with pytest.raises(NotImplementedError, match="\"log_softmax_lastdim_kernel_impl\" not "
                                                  "implemented for 'Long'"):
        F.cross_entropy(t.tensor([[1, 2]]), t.tensor([0]))
    with pytest.raises(IndexError, match="^Target 4 is out of bounds.$"):
        F.cross_entropy(x, t.tensor([0, 1, 4]), label_smoothing=0.1)


# ---------------------------------------------------------------------------- kl_div
def test_kl_div_closed_forms_and_reductions():
    q = np.array([[0.0, 0.5, 0.2, 0.3]] * 3)
    x, y = _t(X, requires_grad=True), _t(q, requires_grad=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        pointwise = np.where(q > 0, q * np.log(q), 0.0) - q * X
    loss = F.kl_div(x, y, reduction="none")
    np.testing.assert_allclose(_np(loss), pointwise)
    assert _np(loss)[0, 0] == 0.0  # a zero target contributes nothing
    assert _node(loss) == "SubBackward0"
    np.testing.assert_allclose(F.kl_div(x, y, reduction="sum").item(), pointwise.sum())
    batchmean = F.kl_div(x, y, reduction="batchmean")
    assert _node(batchmean) == "DivBackward0"
    np.testing.assert_allclose(batchmean.item(), pointwise.sum() / 3)
    np.testing.assert_allclose(_grad(batchmean, x), -q / 3)
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the "
                                         "batch size and the support size."):
        mean = F.kl_div(x, y)
    np.testing.assert_allclose(mean.item(), pointwise.mean())
    logq = _t(Y, requires_grad=True)
    with_log = F.kl_div(x, logq, reduction="sum", log_target=True)
    np.testing.assert_allclose(with_log.item(), (np.exp(Y) * (Y - X)).sum())
    np.testing.assert_allclose(_grad(with_log, logq), np.exp(Y) * (Y - X + 1))


def test_kl_div_errors():
    x = _t(X)
    with pytest.raises(RuntimeError, match="kl_div: Integral inputs not supported."):
        F.kl_div(x, t.tensor(np.ones((3, 4), dtype=np.int64)), reduction="sum")
    with pytest.raises(TypeError, match="kl_div\\(\\): argument 'target' \\(position 2\\) must "
                                        "be Tensor, not float"):
        F.kl_div(x, 1.0, reduction="sum")


# ---------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("loss", [
    lambda x, p: F.mse_loss(x, p),
    lambda x, p: F.smooth_l1_loss(x, p),
    lambda x, p: F.huber_loss(x, p),
    lambda x, p: F.binary_cross_entropy(p, p),
    lambda x, p: F.binary_cross_entropy_with_logits(x, p),
    lambda x, p: F.nll_loss(x, t.tensor([0, 1, 2])),
    lambda x, p: F.cross_entropy(x, t.tensor([0, 1, 2]), label_smoothing=0.1),
    lambda x, p: F.cross_entropy(x, p),
    lambda x, p: F.kl_div(x, p, reduction="batchmean"),
])
def test_float32_losses_stay_float32(loss):
    x = t.tensor(X.tolist(), requires_grad=True)
    p = t.tensor(RNG.uniform(0.1, 0.9, (3, 4)).tolist(), requires_grad=True)
    out = loss(x, p)
    assert out.dtype is t.float32
    for g in t.autograd.grad(out, [x, p], allow_unused=True):
        assert g is None or g.dtype is t.float32
