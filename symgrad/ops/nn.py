"""Neural-network ops: the softmax family and the losses PyTorch records as one node.

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
        slope = xp.where(xp.abs(d) < beta, d / beta, xp.sign(d))
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
        slope = xp.where(xp.abs(d) < delta, d, delta * xp.sign(d))
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
