"""Neural-network ops: the softmax family, the gated linear unit, the fused weight norm and
the losses PyTorch records as one node.

Softmax and log-softmax reduce over ``dim`` (a 1-tuple, or ``()`` for a 0-d input); their
forwards are the namespace's numerically stable ``xp.softmax`` / ``xp.log_softmax``.

Losses take ``reduction`` ('none', 'mean', 'sum') as a param. Class-index targets never enter
an op: :func:`nll_params` turns them, numerically, into an index ``key`` that picks the target
entry of every non-ignored sample, so that ``nll_loss``'s forward is a plain gather that
replays on any namespace. Weights are constants (PyTorch does not differentiate them) and are
params too. Conventions follow PyTorch's kernels: binary cross-entropy clamps its logs at -100
and divides its gradient by ``max(x (1 - x), 1e-12)``; smooth L1 and Huber switch branch at
``|input - target| < beta``.
"""

from __future__ import annotations

import math

import numpy as np

from symgrad.ops.record import Op, Sample, register

# PyTorch's EPSILON of binary_cross_entropy_backward, a float literal 1e-12f
BCE_EPS = float(np.float32(1e-12))


def _reduce(xp, loss, reduction):
    if reduction == "none":
        return loss
    return xp.sum(loss) if reduction == "sum" else xp.mean(loss)


def _unreduce(xp, g, shape, reduction):
    """The cotangent of the unreduced loss of ``shape`` from that of the reduced one."""
    if reduction == "none":
        return g
    g = xp.spread(g, shape)
    return g if reduction == "sum" else g / math.prod(shape)


def _loss_shape(a, b):
    """The broadcast shape of ``a`` and ``b`` (that of an unreduced pairwise loss)."""
    sa, sb = tuple(a.shape), tuple(b.shape)
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    return tuple(x if y == 1 else y for x, y in zip(sa, sb, strict=True))


# ---------------------------------------------------------------------------- softmax family
def _softmax_grad(xp, g, ans, a, dim):
    gy = g * ans
    return gy - ans * xp.sum(gy, axis=dim, keepdims=True)


def _log_softmax_grad(xp, g, ans, a, dim):
    return g - xp.exp(ans) * xp.sum(g, axis=dim, keepdims=True)


_SOFTMAX_SAMPLES = (
    Sample(((4,),), {"dim": (0,)}),
    Sample(((2, 3),), {"dim": (1,)}),
    Sample(((2, 3, 2),), {"dim": (0,)}),
    Sample(((),), {"dim": ()}),
    Sample(((2, 3),), {"dim": (0,)}, low=-30.0, high=30.0),
)

softmax = register(Op(
    "softmax", "SoftmaxBackward0",
    forward=lambda xp, a, dim: xp.softmax(a, dim),
    vjp=(_softmax_grad,),
    saves_output=True,
    float_only=True,
    samples=_SOFTMAX_SAMPLES,
))

log_softmax = register(Op(
    "log_softmax", "LogSoftmaxBackward0",
    forward=lambda xp, a, dim: xp.log_softmax(a, dim),
    vjp=(_log_softmax_grad,),
    saves_output=True,
    float_only=True,
    samples=_SOFTMAX_SAMPLES,
))


# ---------------------------------------------------------------------------- regression losses
def _mse_grad(sign):
    def rule(xp, g, ans, a, b, reduction="mean"):
        d = a - b
        g = _unreduce(xp, g, _loss_shape(a, b), reduction)
        return 2 * d * g if sign > 0 else -2 * d * g

    return rule


_PAIR_SAMPLES = (
    Sample(((3,), (3,)), {"reduction": "none"}),
    Sample(((2, 3), (2, 3)), {"reduction": "mean"}),
    Sample(((2, 3), (2, 3)), {"reduction": "sum"}),
    Sample(((2, 1), (3,)), {"reduction": "mean"}),
    Sample(((), ()), {"reduction": "sum"}),
)

mse_loss = register(Op(
    "mse_loss", "MseLossBackward0",
    forward=lambda xp, a, b, reduction="mean": _reduce(xp, (a - b) * (a - b), reduction),
    vjp=(_mse_grad(+1), _mse_grad(-1)),
    saved=(0, 1),
    float_only=True,
    samples=_PAIR_SAMPLES,
))


def _smooth_l1_forward(xp, a, b, reduction="mean", beta=1.0):
    d = a - b
    z = xp.abs(d)
    return _reduce(xp, xp.where(z < beta, 0.5 * d * d / beta, z - 0.5 * beta), reduction)


def _smooth_l1_grad(sign):
    def rule(xp, g, ans, a, b, reduction="mean", beta=1.0):
        d = a - b
        # PyTorch's branches: d / beta between -beta and beta, nan included (beta 0: l1's)
        slope = xp.sign(d) if beta == 0 else \
            xp.where(d < -beta, -1.0, xp.where(d > beta, 1.0, d / beta))
        g = _unreduce(xp, g, _loss_shape(a, b), reduction)
        return slope * g if sign > 0 else -slope * g

    return rule


smooth_l1_loss = register(Op(
    "smooth_l1_loss", "SmoothL1LossBackward0",
    forward=_smooth_l1_forward,
    vjp=(_smooth_l1_grad(+1), _smooth_l1_grad(-1)),
    saved=(0, 1),
    float_only=True,
    samples=_PAIR_SAMPLES + (Sample(((2, 3), (2, 3)), {"reduction": "sum", "beta": 0.5}),),
))


def _huber_forward(xp, a, b, reduction="mean", delta=1.0):
    d = a - b
    z = xp.abs(d)
    return _reduce(xp, xp.where(z < delta, 0.5 * d * d, delta * (z - 0.5 * delta)), reduction)


def _huber_grad(sign):
    def rule(xp, g, ans, a, b, reduction="mean", delta=1.0):
        d = a - b
        slope = xp.where(d < -delta, -delta, xp.where(d > delta, delta, d))  # (nan: nan)
        g = _unreduce(xp, g, _loss_shape(a, b), reduction)
        return slope * g if sign > 0 else -slope * g

    return rule


huber_loss = register(Op(
    "huber_loss", "HuberLossBackward0",
    forward=_huber_forward,
    vjp=(_huber_grad(+1), _huber_grad(-1)),
    saved=(0, 1),
    float_only=True,
    samples=_PAIR_SAMPLES + (Sample(((2, 3), (2, 3)), {"reduction": "sum", "delta": 0.5}),),
))


# ---------------------------------------------------------------------------- binary losses
def _clamp_log(xp, log):
    return xp.maximum(log, -100.0)  # nan stays nan, as std::max(nan, -100) in PyTorch


def _bce_forward(xp, x, t, weight=None, reduction="mean"):
    loss = (t - 1) * _clamp_log(xp, xp.log1p(-x)) - t * _clamp_log(xp, xp.log(x))
    if weight is not None:
        loss = loss * weight
    return _reduce(xp, loss, reduction)


def _bce_grad_input(xp, g, ans, x, t, weight=None, reduction="mean"):
    # PyTorch's rule: (x - t) / max(x (1 - x), eps), finite at x = 0 and x = 1
    grad = (x - t) / xp.maximum(x * (1 - x), BCE_EPS)
    if weight is not None:
        grad = grad * weight
    return grad * _unreduce(xp, g, x.shape, reduction)


def _bce_grad_target(xp, g, ans, x, t, weight=None, reduction="mean"):
    grad = xp.log1p(-x) - xp.log(x)  # not clamped, as PyTorch
    if weight is not None:
        grad = grad * weight
    return grad * _unreduce(xp, g, x.shape, reduction)


_UNIT = dict(low=0.05, high=0.95)
_W4 = np.array([0.5, 2.0, 1.0, 0.25])

binary_cross_entropy = register(Op(
    "binary_cross_entropy", "BinaryCrossEntropyBackward0",
    forward=_bce_forward,
    vjp=(_bce_grad_input, _bce_grad_target),
    saved=(0, 1),
    float_only=True,
    samples=(
        Sample(((3,), (3,)), {"reduction": "none"}, **_UNIT),
        Sample(((2, 4), (2, 4)), {"reduction": "mean"}, **_UNIT),
        Sample(((2, 4), (2, 4)), {"reduction": "sum", "weight": _W4}, **_UNIT),
        Sample(((2, 4), (2, 4)), {"reduction": "none", "weight": _W4}, **_UNIT),
        Sample(((), ()), {"reduction": "mean"}, **_UNIT),
    ),
))


def _log_sigmoid(xp, x):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): no overflow for any x."""
    return -(xp.relu(-x) + xp.log1p(xp.exp(-xp.abs(x))))


def _bce_logits_forward(xp, x, t, weight=None, pos_weight=None, reduction="mean"):
    log_weight = 1 if pos_weight is None else 1 + (pos_weight - 1) * t
    loss = (1 - t) * x - log_weight * _log_sigmoid(xp, x)
    if weight is not None:
        loss = loss * weight
    return _reduce(xp, loss, reduction)


def _bce_logits_grad_input(xp, g, ans, x, t, weight=None, pos_weight=None, reduction="mean"):
    s = xp.sigmoid(x)
    grad = s - t if pos_weight is None else (1 + (pos_weight - 1) * t) * s - pos_weight * t
    if weight is not None:
        grad = grad * weight
    return grad * _unreduce(xp, g, _loss_shape(x, t), reduction)


def _bce_logits_grad_target(xp, g, ans, x, t, weight=None, pos_weight=None, reduction="mean"):
    grad = -x if pos_weight is None else -x - (pos_weight - 1) * _log_sigmoid(xp, x)
    if weight is not None:
        grad = grad * weight
    return grad * _unreduce(xp, g, _loss_shape(x, t), reduction)


binary_cross_entropy_with_logits = register(Op(
    "binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
    forward=_bce_logits_forward,
    vjp=(_bce_logits_grad_input, _bce_logits_grad_target),
    saved=(0, 1),
    float_only=True,
    samples=(
        Sample(((3,), (3,)), {"reduction": "none"}),
        Sample(((2, 4), (2, 4)), {"reduction": "mean"}),
        Sample(((2, 4), (2, 4)), {"reduction": "sum", "weight": _W4, "pos_weight": _W4[::-1]}),
        Sample(((2, 4), (2, 4)), {"reduction": "none", "pos_weight": _W4}),
        Sample(((3,), (3,)), {"reduction": "mean"}, low=-40.0, high=40.0),
    ),
))


# ---------------------------------------------------------------------------- nll_loss
def nll_params(shape: tuple[int, ...], targets, weight=None, ignore_index: int = -100) -> dict:
    """The params of ``nll_loss`` on an input of ``shape`` for class-index ``targets`` (an int
    array of the target's shape, in range where not ``ignore_index``; ``weight`` the per-class
    weights in the input's dtype): ``key`` gathers the target entry of every kept sample, in
    order, ``kept`` locates those samples in the unreduced loss (None: all of them), ``weight``
    holds their weights and ``total`` is the divisor of 'mean' (their number, or weight sum)."""
    keep = targets != ignore_index
    if len(shape) == 1:  # one sample: (C,) input, 0-d target
        picked = targets.reshape(1)[keep.reshape(1)]
        key, kept = (picked,), None
    else:
        where = np.nonzero(keep)
        picked = targets[keep]
        key, kept = (where[0], picked, *where[1:]), None if keep.all() else where
    weights = None if weight is None else weight[picked]
    total = len(picked) if weights is None else float(weights.sum())
    return {"key": key, "weight": weights, "kept": kept, "total": total}


def _nll_forward(xp, a, key, weight=None, kept=None, reduction="mean", total=1):
    picked = -a[key]  # a gather, one entry per kept sample
    if weight is not None:
        picked = picked * weight
    if reduction == "none":
        if a.ndim == 1:  # the sample's loss, or +0 when it is ignored (as PyTorch)
            return xp.reshape(picked, ()) if len(key[0]) else xp.sum(picked)
        shape = a.shape[:1] + a.shape[2:]
        return xp.reshape(picked, shape) if kept is None else \
            xp.index_backward(picked, shape, kept)
    loss = xp.sum(picked)
    return loss / total if reduction == "mean" else loss


def _nll_grad(xp, g, ans, a, key, weight=None, kept=None, reduction="mean", total=1):
    if reduction == "none" and a.ndim > 1:
        g = xp.reshape(g, (-1,)) if kept is None else g[kept]
    elif reduction == "mean":
        g = g / total
    return xp.index_backward(-g if weight is None else -g * weight, a.shape, key)


def _nll_sample(shape, targets, weight=None, ignore=-100, reduction="mean"):
    params = nll_params(shape, np.asarray(targets), None if weight is None else
                        np.asarray(weight), ignore)
    return Sample((shape,), {**params, "reduction": reduction})


nll_loss = register(Op(
    "nll_loss", "NllLossBackward0",
    forward=_nll_forward,
    vjp=(_nll_grad,),
    node_name_of=lambda params, a: "NllLoss2DBackward0" if a.ndim == 4 else "NllLossBackward0",
    float_only=True,
    samples=(
        _nll_sample((3, 4), [0, 3, 1]),
        _nll_sample((3, 4), [0, 3, 1], reduction="none"),
        _nll_sample((3, 4), [2, 2, 1], reduction="sum", ignore=1),
        _nll_sample((3, 4), [0, 3, 3], weight=_W4, ignore=0, reduction="none"),
        _nll_sample((3, 4), [0, 3, 3], weight=_W4, ignore=0),
        _nll_sample((4,), 2, reduction="none"),
        _nll_sample((4,), 2, weight=_W4),
        _nll_sample((4,), 2, ignore=2, reduction="none"),
        _nll_sample((2, 3, 2, 2), [[[0, 1], [2, 2]], [[1, 0], [0, 2]]], weight=_W4[:3],
                    reduction="none"),
        _nll_sample((2, 3, 2, 2), [[[0, 1], [2, 2]], [[1, 0], [0, 2]]], ignore=2,
                    reduction="none"),
    ),
))


# ---------------------------------------------------------------------------- activations
# Conventions at the kinks follow PyTorch's backward kernels: the scaled elu (selu, celu) takes
# the x <= 0 branch at 0; hardsigmoid's gradient is 0 at -3 and 3; hardswish's is 0 at -3 and
# 1 at 3 (its middle branch is the open interval).
def _scaled_elu_forward(xp, a, alpha, scale, input_scale, celu=False):
    return xp.where(a > 0, a * scale, xp.expm1(a * input_scale) * (alpha * scale))


def _scaled_elu_grad(xp, g, ans, a, alpha, scale, input_scale, celu=False):
    return xp.where(a <= 0, g * (alpha * scale * input_scale) * xp.exp(a * input_scale),
                    g * scale)


_SELU = {"alpha": 1.6732632423543772, "scale": 1.0507009873554805, "input_scale": 1.0}

scaled_elu = register(Op(
    "scaled_elu", "EluBackward0",
    forward=_scaled_elu_forward,
    vjp=(_scaled_elu_grad,),
    node_name_of=lambda params, a: "CeluBackward0" if params.get("celu") else "EluBackward0",
    saved=(0,),
    float_only=True,
    convention="the x <= 0 branch at 0: alpha * scale * input_scale (selu: 1.7581; celu: 1)",
    samples=(Sample(((2, 3),), _SELU, kinks=(0.0,)),
             Sample(((3,),), {"alpha": 2.0, "scale": 1.0, "input_scale": 0.5, "celu": True},
                    kinks=(0.0,)),
             Sample(((),), _SELU, kinks=(0.0,))),
))

hardsigmoid = register(Op(
    "hardsigmoid", "HardsigmoidBackward0",
    forward=lambda xp, a: xp.where(a <= -3, 0.0, xp.where(a >= 3, 1.0, a / 6 + 0.5)),
    vjp=(lambda xp, g, ans, a: xp.where((a > -3) & (a < 3), g / 6, 0.0),),
    saved=(0,),
    float_only=True,
    convention="0 at -3 and at 3 (the flat sides)",
    samples=(Sample(((2, 3),), low=-5.0, high=5.0, kinks=(-3.0, 3.0)),
             Sample(((4,),), low=-5.0, high=5.0, kinks=(-3.0, 3.0))),
))

hardswish = register(Op(
    "hardswish", "HardswishBackward0",
    # (a * 0 below -3, as PyTorch's: -0.0 for a finite a, nan at -inf)
    forward=lambda xp, a: xp.where(a <= -3, a * 0.0, xp.where(a < 3, a * (a + 3) / 6, a)),
    vjp=(lambda xp, g, ans, a: xp.where(a <= -3, 0.0, xp.where(a < 3, g * (a / 3 + 0.5), g)),),
    saved=(0,),
    float_only=True,
    convention="0 at -3 and 1 at 3 (the outer branches)",
    samples=(Sample(((2, 3),), low=-5.0, high=5.0, kinks=(-3.0, 3.0)),
             Sample(((4,),), low=-5.0, high=5.0, kinks=(-3.0, 3.0))),
))


def _mish_grad(xp, g, ans, a):
    t = xp.tanh(xp.softplus(a))
    return g * (t + a * xp.sigmoid(a) * (1 - t * t))


mish = register(Op(
    "mish", "MishBackward0",
    forward=lambda xp, a: a * xp.tanh(xp.softplus(a)),
    vjp=(_mish_grad,),
    saved=(0,),
    float_only=True,
    samples=(Sample(((2, 3),), low=-4.0, high=4.0), Sample(((),))),
))

log_sigmoid = register(Op(
    "log_sigmoid", "LogSigmoidBackward0",
    # PyTorch's form (its 0 at +inf is +0.0); the symbolic side keeps -softplus(-a)
    forward=lambda xp, a: xp.minimum(a, 0) - xp.log1p(xp.exp(-xp.abs(a))),
    lower=lambda xp, a: -xp.softplus(-a),
    vjp=(lambda xp, g, ans, a: g * xp.sigmoid(-a),),
    saved=(0,),
    float_only=True,
    samples=(Sample(((2, 3),), low=-5.0, high=5.0), Sample(((),)),
             Sample(((3,),), low=-40.0, high=40.0)),
))


# ---------------------------------------------------------------------------- normalization
# batch_norm, layer_norm and group_norm normalize over ``axes`` with the biased variance,
# then scale and shift by the optional ``weight`` and ``bias`` (reshaped by ``affine_shape``
# to broadcast). A batch norm in eval mode normalizes with constant params instead: ``mean``
# and ``invstd`` = 1 / sqrt(var + eps) of the running statistics. Group norm views its input
# as (N, G, -1) first.
def _affine(xp, y, w, b, affine_shape):
    if w is not None:
        y = y * xp.reshape(w, affine_shape)
    if b is not None:
        y = y + xp.reshape(b, affine_shape)
    return y


def _grouped(xp, x, groups):
    return x if groups is None else xp.reshape(x, (x.shape[0], groups, -1))


def _stats(xp, x, axes, eps, mean=None, invstd=None):
    """(centred x, 1 / sqrt(var + eps)): the batch's own statistics unless given (constants)."""
    if mean is not None:
        return x - mean, invstd
    mean = xp.mean(x, axis=axes, keepdims=True)
    d = x - mean
    return d, 1 / xp.sqrt(xp.mean(d * d, axis=axes, keepdims=True) + eps)


def _norm_forward(xp, x, w, b, axes, eps, affine_shape, groups=None, mean=None, invstd=None):
    d, inv = _stats(xp, _grouped(xp, x, groups), axes, eps, mean, invstd)
    return _affine(xp, xp.reshape(d * inv, x.shape), w, b, affine_shape)


def _norm_grad_input(xp, g, ans, x, w, b, axes, eps, affine_shape, groups=None, mean=None,
                     invstd=None):
    if w is not None:
        g = g * xp.reshape(w, affine_shape)
    g = _grouped(xp, g, groups)
    d, inv = _stats(xp, _grouped(xp, x, groups), axes, eps, mean, invstd)
    if mean is not None:  # constant statistics: an affine map
        return xp.reshape(g * inv, x.shape)
    xhat = d * inv
    gx = (g - xp.mean(g, axis=axes, keepdims=True)
          - xhat * xp.mean(g * xhat, axis=axes, keepdims=True)) * inv
    return xp.reshape(gx, x.shape)


def _param_axes(x, affine_shape):
    """The axes of ``x`` that a weight of ``affine_shape`` (broadcast on the right) sums over."""
    lead = x.ndim - len(affine_shape)
    return tuple(range(lead)) + tuple(lead + i for i, n in enumerate(affine_shape) if n == 1)


def _norm_grad_weight(xp, g, ans, x, w, b, axes, eps, affine_shape, groups=None, mean=None,
                      invstd=None):
    d, inv = _stats(xp, _grouped(xp, x, groups), axes, eps, mean, invstd)
    xhat = xp.reshape(d * inv, x.shape)
    return xp.reshape(xp.sum(g * xhat, axis=_param_axes(x, affine_shape)), w.shape)


def _norm_grad_bias(xp, g, ans, x, w, b, axes, eps, affine_shape, groups=None, mean=None,
                    invstd=None):
    return xp.reshape(xp.sum(g, axis=_param_axes(x, affine_shape)), b.shape)


def _norm_op(name, node_name, samples):
    return register(Op(
        name, node_name,
        forward=_norm_forward,
        vjp=(_norm_grad_input, _norm_grad_weight, _norm_grad_bias),
        saved={0: (0, 1), 1: (0,), 2: ()},
        float_only=True,
        samples=samples,
    ))


_EPS = 1e-5
batch_norm = _norm_op("batch_norm", "NativeBatchNormBackward0", (
    Sample(((4, 3), (3,), (3,)), {"axes": (0,), "eps": _EPS, "affine_shape": (1, 3)}),
    Sample(((2, 2, 3), (2,), (2,)), {"axes": (0, 2), "eps": _EPS, "affine_shape": (1, 2, 1)}),
    Sample(((3, 2), (2,), (2,)), {"axes": (0,), "eps": 0.1, "affine_shape": (1, 2),
                                  "mean": np.array([[0.5, -0.25]]),
                                  "invstd": 1 / np.sqrt(np.array([[2.0, 0.5]]) + 0.1)}),
))
layer_norm = _norm_op("layer_norm", "NativeLayerNormBackward0", (
    Sample(((2, 3), (3,), (3,)), {"axes": (1,), "eps": _EPS, "affine_shape": (3,)}),
    Sample(((2, 2, 2), (2, 2), (2, 2)), {"axes": (1, 2), "eps": _EPS, "affine_shape": (2, 2)}),
))
group_norm = _norm_op("group_norm", "NativeGroupNormBackward0", (
    Sample(((2, 4, 2), (4,), (4,)), {"axes": (2,), "eps": _EPS, "affine_shape": (1, 4, 1),
                                     "groups": 2}),
    Sample(((1, 3, 2), (3,), (3,)), {"axes": (2,), "eps": _EPS, "affine_shape": (1, 3, 1),
                                     "groups": 3}),
))


# ---------------------------------------------------------------------------- embedding
# With a padding_idx, the rows that look it up hold ``fill`` (its row's value when the op
# ran, a constant) where ``keep`` is False: they receive no gradient, as in PyTorch.
# ``scale`` (scale_grad_by_freq) divides each lookup's gradient by the number of lookups of
# its row in the batch: PyTorch's deliberate departure from the derivative, so symbolic.check
# reports it as a mismatch.
def _embedding_forward(xp, weight, key, keep=None, fill=None, scale=None):
    rows = weight[key]
    return rows if keep is None else xp.where(keep, rows, fill)


def _embedding_grad(xp, g, ans, weight, key, keep=None, fill=None, scale=None):
    if keep is not None:
        g = xp.where(keep, g, 0.0)
    if scale is not None:
        g = g * scale
    return xp.index_backward(g, weight.shape, key)


embedding = register(Op(
    "embedding", "EmbeddingBackward0",
    forward=_embedding_forward,
    vjp=(_embedding_grad,),
    samples=(Sample(((4, 3),), {"key": (np.array([0, 2, 2, 3]),)}),
             Sample(((5, 2),), {"key": (np.array([[1, 0], [4, 1]]),),
                                "keep": np.array([[[True], [False]], [[True], [True]]]),
                                "fill": np.array([0.5, -1.0])})),
))


# ---------------------------------------------------------------------------- CTC loss
# The connectionist temporal classification loss of each sequence, -log p(target | input),
# over the input's (T, N, C) log-probabilities. Targets and lengths never enter the op: the
# spelling turns them into params, numerically: ``ext`` (N, L) the extended labels (blank,
# l1, blank, l2, ..., blank; L = 2 * longest target + 1), ``skip`` (N, L) where the step from
# s - 2 to s is allowed (a label unlike the one two before), ``ends`` the input lengths and
# ``tl2`` twice the target lengths (the extended label of the final blank). The recursions run
# in log space over the whole batch at once, one time step at a time. Which states an
# alignment can reach is known from the params alone (boolean masks, computed alongside), so a
# sum only ever combines reachable states: no rule adds log 0 to anything or subtracts two
# infinities (the double backward, which runs the same rules on Tensors, stays finite, and
# the rules run on sympy hold no stand-in for log 0); unreachable states hold the finite
# ``CTC_NEG``, never read. A sequence no alignment can produce has loss inf (0 with
# ``zero_infinity``). Gradient: the exact derivative of the loss with respect to
# ``log_probs`` -- PyTorch's kernel returns it plus ``exp(log_probs)`` (a term that cancels
# through a ``log_softmax``, its documented input).
CTC_NEG = -1e30


def _shift(x, by, xp=None):
    """``x`` (N, L) moved ``by`` places along L (right if positive), filled with log 0 (or
    False, for a mask)."""
    if xp is None:
        out = np.zeros_like(x)
        if by > 0:
            out[:, by:] = x[:, :-by]
        else:
            out[:, :by] = x[:, -by:]
        return out
    widths = ((0, 0), (by, 0)) if by > 0 else ((0, 0), (0, -by))
    padded = xp.pad(x, widths, CTC_NEG)
    return padded[:, :-by] if by > 0 else padded[:, -by:]


def _logsum(xp, terms):
    """``log(sum(exp(value)))`` over the terms (value, mask) whose mask is set, elementwise,
    and where any is."""
    value, mask = terms[0]
    for other, present in terms[1:]:
        both = xp.logaddexp(value, other)
        value = xp.where(mask & present, both, xp.where(mask, value, other))
        mask = mask | present
    return value, mask


def _ctc_alphas(xp, a, ext, skip, ends, tl2):
    """The extended labels' log-probabilities ``lpe`` (T, N, L), the forward variables
    ``alpha`` (T, N, L) and where they are reachable, each sequence's negative
    log-likelihood (N,) and whether any alignment produces it."""
    steps, batch, width = a.shape[0], a.shape[1], ext.shape[1]
    rows = np.arange(batch)
    lpe = a[:, rows[:, None], ext]
    mask = np.zeros((batch, width), dtype=bool)
    mask[:, 0] = True
    mask[:, 1:2] = (tl2 > 0)[:, None]
    alpha = xp.where(mask, lpe[0], CTC_NEG)
    alphas, masks = [alpha], [mask]
    for t in range(1, steps):
        total, mask = _logsum(xp, [(alpha, mask), (_shift(alpha, 1, xp), _shift(mask, 1)),
                                   (_shift(alpha, 2, xp), _shift(mask, 2) & skip)])
        alpha = xp.where(mask, total + lpe[t], CTC_NEG)
        alphas.append(alpha)
        masks.append(mask)
    alpha, reach = xp.stack(alphas, 0), np.stack(masks, 0)
    at = np.maximum(ends - 1, 0)
    last, last_reach = alpha[at, rows], reach[at, rows]
    before = np.maximum(tl2 - 1, 0)
    total, feasible = _logsum(xp, [(last[rows, tl2], last_reach[rows, tl2]),
                                   (last[rows, before], last_reach[rows, before] & (tl2 > 0))])
    feasible = np.where(ends > 0, feasible, tl2 == 0)
    nll = xp.where(feasible & (ends > 0), -total, 0.0)
    return lpe, alpha, reach, nll, feasible


def _ctc_forward(xp, a, ext, skip, ends, tl2, zero_infinity=False):
    _, _, _, nll, feasible = _ctc_alphas(xp, a, ext, skip, ends, tl2)
    return xp.where(feasible, nll, math.inf)


def _ctc_grad(xp, g, ans, a, ext, skip, ends, tl2, zero_infinity=False):
    lpe, alpha, reach, nll, feasible = _ctc_alphas(xp, a, ext, skip, ends, tl2)
    steps, batch, width = reach.shape
    positions = np.arange(width)
    last = (positions == tl2[:, None]) | (positions == tl2[:, None] - 1)
    skip_back = _shift(skip, -2)  # from s to s + 2
    beta, mask = alpha[0], np.zeros((batch, width), dtype=bool)  # (t = T: nothing reached)
    betas, masks = [None] * steps, [None] * steps
    for t in reversed(range(steps)):
        total, through = _logsum(xp, [(beta, mask), (_shift(beta, -1, xp), _shift(mask, -1)),
                                      (_shift(beta, -2, xp), _shift(mask, -2) & skip_back)])
        starts = last & (ends - 1 == t)[:, None]
        through = through & (ends - 1 > t)[:, None]
        beta = xp.where(starts, lpe[t], xp.where(through, total + lpe[t], CTC_NEG))
        mask = starts | through
        betas[t], masks[t] = beta, mask
    both = reach & np.stack(masks, 0) & feasible[None, :, None]
    share = xp.where(both, xp.exp(alpha + xp.stack(betas, 0) - lpe
                                  + xp.reshape(nll, (1, batch, 1))), 0.0)
    share = share * xp.reshape(-g, (1, batch, 1))
    key = (np.arange(steps)[:, None, None], np.arange(batch)[None, :, None], ext[None])
    grad = xp.index_backward(share, a.shape, key)
    if feasible.all() or zero_infinity:
        return grad
    running = np.arange(steps)[:, None, None] < ends[None, :, None]
    return xp.where(feasible[None, :, None] | ~running, grad, math.nan)  # as PyTorch


def _ctc_lower(xp, a, ext, skip, ends, tl2, zero_infinity=False):
    """The loss as the sum over alignments it is: the same recursion in probability space."""
    y = xp.exp(a)
    likelihoods = []
    for n in range(a.shape[1]):
        width = int(tl2[n]) + 1
        alpha = [y[0, n, ext[n, s]] if s < 2 else 0 for s in range(width)]
        for t in range(1, int(ends[n])):
            alpha = [(alpha[s] + (alpha[s - 1] if s >= 1 else 0)
                      + (alpha[s - 2] if s >= 2 and skip[n, s] else 0)) * y[t, n, ext[n, s]]
                     for s in range(width)]
        likelihoods.append(alpha[-1] + (alpha[-2] if width > 1 else 0))
    return -xp.log(xp.stack(likelihoods, 0))


def ctc_params(targets, input_lengths, target_lengths, blank):
    """The CTC op's params from padded (N, S) ``targets`` and the lengths (numpy arrays)."""
    batch = len(input_lengths)
    longest = int(target_lengths.max()) if batch else 0
    width = 2 * longest + 1
    ext = np.full((batch, width), blank, dtype=np.int64)
    ext[:, 1::2] = targets[:, :longest]
    s = np.arange(width)
    skip = (s >= 2) & (ext != blank) & (ext != np.pad(ext, ((0, 0), (2, 0)),
                                                      constant_values=blank)[:, :width])
    skip &= s[None, :] <= 2 * target_lengths[:, None]
    ends = np.asarray(input_lengths, dtype=np.int64)
    tl2 = 2 * np.asarray(target_lengths, dtype=np.int64)
    return {"ext": ext, "skip": skip, "ends": ends, "tl2": tl2}


def _ctc_sample(shape, targets, input_lengths, target_lengths, blank=0):
    params = ctc_params(np.asarray(targets), np.asarray(input_lengths),
                        np.asarray(target_lengths), blank)
    return Sample((shape,), params, low=-2.0, high=0.0)


ctc_loss = register(Op(
    "ctc_loss", "CtcLossBackward0",
    forward=_ctc_forward,
    vjp=(_ctc_grad,),
    lower=_ctc_lower,
    saved=(0,),
    float_only=True,
    samples=(
        _ctc_sample((3, 2, 3), [[1, 2], [2, 2]], [3, 3], [2, 1]),
        _ctc_sample((4, 2, 3), [[1, 1], [2, 0]], [4, 2], [2, 1], blank=0),
        _ctc_sample((3, 1, 4), [[0, 3]], [3], [2], blank=2),
        _ctc_sample((2, 2, 2), [[1], [1]], [2, 1], [0, 1]),
    ),
))


# ---------------------------------------------------------------- glu
def _halves(a, dim):
    """The first and the second half of ``a`` along ``dim`` (of even size)."""
    n = a.shape[dim] // 2
    before = (slice(None),) * dim
    return a[(*before, slice(0, n))], a[(*before, slice(n, None))]


def _glu_forward(xp, a, dim):
    first, second = _halves(a, dim)
    return first * xp.sigmoid(second)


def _glu_grad(xp, g, ans, a, dim):
    first, second = _halves(a, dim)
    gate = xp.sigmoid(second)
    return xp.concatenate([g * gate, g * first * gate * (1 - gate)], dim)


glu = register(Op(
    "glu", "GluBackward0",
    forward=_glu_forward,
    vjp=(_glu_grad,),
    saved=(0,),
    samples=(Sample(((2, 4),), {"dim": 1}), Sample(((4, 3),), {"dim": 0}),
             Sample(((2, 2, 2),), {"dim": 2})),
))


# ---------------------------------------------------------------- weight norm
# PyTorch's fused weight norm (``_weight_norm_interface``, one node): w = v * g / ||v||, the
# norm over every dimension but ``dim`` (the first or the last), g one scale per slice along
# ``dim`` (any shape with that many elements; it is read in the norm's kept-dims shape).
def _slice_axes(v, dim):
    return tuple(d for d in range(v.ndim) if d != dim)


def _slice_norm(xp, v, dim):
    return xp.sqrt(xp.sum(v * v, axis=_slice_axes(v, dim), keepdims=True))


def _kept_shape(v, dim):
    return tuple(n if d == dim else 1 for d, n in enumerate(v.shape))


def _weight_norm_forward(xp, v, g, dim):
    return v * (xp.reshape(g, _kept_shape(v, dim)) / _slice_norm(xp, v, dim))


def _weight_norm_grad_v(xp, g_out, ans, v, g, dim):
    norm = _slice_norm(xp, v, dim)
    scale = xp.reshape(g, _kept_shape(v, dim)) / norm
    along = xp.sum(g_out * v, axis=_slice_axes(v, dim), keepdims=True)
    return scale * (g_out - v * (along / (norm * norm)))


def _weight_norm_grad_g(xp, g_out, ans, v, g, dim):
    along = xp.sum(g_out * v, axis=_slice_axes(v, dim), keepdims=True)
    return xp.reshape(along / _slice_norm(xp, v, dim), g.shape)


weight_norm = register(Op(
    "weight_norm", "WeightNormInterfaceBackward0",
    forward=_weight_norm_forward,
    vjp=(_weight_norm_grad_v, _weight_norm_grad_g),
    saved=(0, 1),
    float_only=True,
    samples=(Sample(((3, 2), (3, 1)), {"dim": 0}, low=0.2, high=2.0),
             Sample(((2, 3), (1, 3)), {"dim": 1}),
             Sample(((2, 2, 3), (2,)), {"dim": 0}),
             Sample(((2, 1, 3), (1, 1, 3)), {"dim": 2})),
))
