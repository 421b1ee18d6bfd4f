"""The losses of ``symgrad.nn.functional``, with PyTorch's signatures, checks and reductions.

Losses that PyTorch records as one node (``MseLossBackward0``, ``NllLossBackward0``,
``BinaryCrossEntropyBackward0`` ...) run an op of ``symgrad.ops.nn``; the others are composites,
recorded node by node as PyTorch records them (``l1_loss`` is ``(input - target).abs().mean()``,
``cross_entropy`` is ``log_softmax`` then ``nll_loss``). Class-index targets and weights never
enter the graph: they become constant params (see ``symgrad.ops.nn``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import ops
from symgrad.autograd.grad_mode import _mode, no_grad
from symgrad.dispatch import _broadcast_error, apply_op, output_shape_error
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make, _torch_size
from symgrad.torch_api.nn import logsigmoid, pairwise_distance

_REDUCTIONS = ("none", "mean", "sum")

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def _quiet() -> np.errstate:
    # log(0) of the BCE clamp, 0/0 of a mean over nothing: PyTorch gives inf/nan silently
    return np.errstate(divide="ignore", invalid="ignore")


def _reduction(reduction: str, size_average: bool | None = None, reduce: bool | None = None,
               allowed: tuple[str, ...] = _REDUCTIONS) -> str:
    """``reduction`` checked as PyTorch checks it, or the one the legacy flags ask for."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{reduction}' instead.", UserWarning, stacklevel=3)
    if reduction not in allowed:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _check_size_attr(*values: Any) -> None:
    # PyTorch's regression losses call .size() on both arguments first
    for value in values:
        if not isinstance(value, Tensor):
            raise AttributeError(f"'{type(value).__name__}' object has no attribute 'size'")


def _check_tensor(fn: str, name: str, position: int, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _warn_size(input: Tensor, target: Tensor) -> None:  # noqa: A002
    if input._value.shape != target._value.shape:
        warnings.warn(f"Using a target size ({target.shape!r}) that is different to the input "
                      f"size ({input.shape!r}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)


def _check_float(kernel: str, *tensors: Tensor) -> None:
    """PyTorch's error for a loss kernel run on integers (the promoted dtype of its inputs)."""
    if not any(t.is_floating_point() for t in tensors):
        raise dtypes.not_implemented(kernel, tensors[0].dtype)


def _check_no_grad(fn: str, name: str, weight: Tensor | None) -> None:
    if weight is not None and weight._requires_grad and _mode.enabled:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument "
                           f"'{name}'. This input cannot have requires_grad True.")


def _constant(weight: Tensor, input: Tensor, first: bool) -> np.ndarray:  # noqa: A002
    """A weight's values in the input's dtype, as a constant param, checked to broadcast to
    the input's shape (``first``: the weight is the left operand of PyTorch's product, which
    the error message's wording follows)."""
    shape = input._value.shape
    operands = (weight._value, np.empty(shape)) if first else (np.empty(shape), weight._value)
    try:
        full = np.broadcast_shapes(shape, weight._value.shape)
    except ValueError:
        raise RuntimeError(_broadcast_error(operands)) from None
    if full != shape:
        raise output_shape_error(shape, full)
    return weight._value.astype(input._value.dtype)


def _weighted(loss: Tensor, weight: Tensor, reduction: str, mean_by_weight: bool) -> Tensor:
    """PyTorch's weighting of a regression loss, recorded node by node: 'mean' divides by the
    weights' sum (``mean_by_weight``: mse, l1) or by the count (huber)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                         "'sum'.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / weight.sum() if mean_by_weight else loss.mean()


def _regression_weight(weight: Tensor | None, input: Tensor) -> None:  # noqa: A002
    if weight is not None and weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")


# ---------------------------------------------------------------------------- regression
def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
             reduce: bool | None = None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Mean squared error (``MseLossBackward0``); input and target broadcast, with PyTorch's
    warning when their sizes differ. ``weight`` (the input's size) weights each element, and
    'mean' then divides by its sum.

    >>> F.mse_loss(symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 4.0]))
    tensor(2.)
    """
    _check_size_attr(input, target)
    _warn_size(input, target)
    if weight is not None:
        _regression_weight(weight, input)
        return _weighted((input - target) ** 2, weight, reduction, True)
    reduction = _reduction(reduction, size_average, reduce)
    _check_float("mse_cpu", input, target)
    with _quiet():
        return apply_op(ops.nn.mse_loss, input, target, reduction=reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
            reduce: bool | None = None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Mean absolute error, recorded as PyTorch records it: ``(input - target).abs()`` then
    the reduction (the gradient at ``input == target`` is 0). ``weight`` as in :func:`mse_loss`.

    >>> F.l1_loss(symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 4.0]), reduction="sum")
    tensor(2.)
    """
    _check_size_attr(input, target)
    _warn_size(input, target)
    if weight is not None:
        _regression_weight(weight, input)
        return _weighted((input - target).abs(), weight, reduction, True)
    reduction = _reduction(reduction, size_average, reduce)
    loss = (input - target).abs()
    with _quiet():
        return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
                   reduce: bool | None = None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """Squared error below ``beta`` (halved, over ``beta``), absolute error above it
    (``SmoothL1LossBackward0``); ``beta=0`` is :func:`l1_loss`, as in PyTorch.

    >>> F.smooth_l1_loss(symgrad.tensor([0.0, 0.0]), symgrad.tensor([0.5, 3.0]), reduction="none")
    tensor([0.1250, 2.5000])
    """
    _check_size_attr(input, target)
    _warn_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_float("smooth_l1_cpu", input, target)
    with _quiet():
        return apply_op(ops.nn.smooth_l1_loss, input, target, reduction=reduction,
                        beta=float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean",  # noqa: A002
               delta: float = 1.0, weight: Tensor | None = None) -> Tensor:
    """Squared error (halved) below ``delta``, ``delta`` times the absolute error (less
    ``delta / 2``) above it (``HuberLossBackward0``). The result has the input's dtype, as
    in PyTorch; ``weight`` (the input's size) weights each element.

    >>> F.huber_loss(symgrad.tensor([0.0, 0.0]), symgrad.tensor([0.5, 3.0]), reduction="none")
    tensor([0.1250, 2.5000])
    """
    _check_size_attr(input, target)
    _warn_size(input, target)
    if weight is None:
        reduction = _reduction(reduction)
    else:
        _regression_weight(weight, input)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_float("huber_cpu", input, target)
    if target.dtype is not input.dtype and target.is_floating_point():
        if not input.is_floating_point():
            raise RuntimeError(f"result type {target.dtype._torch_name} can't be cast to the "
                               f"desired output type {input.dtype._torch_name}")
        target = target.to(input.dtype)
    with _quiet():
        if weight is not None:
            loss = apply_op(ops.nn.huber_loss, input, target, reduction="none",
                            delta=float(delta))
            return _weighted(loss, weight, reduction, False)
        return apply_op(ops.nn.huber_loss, input, target, reduction=reduction,
                        delta=float(delta))


# ---------------------------------------------------------------------------- binary
def binary_cross_entropy(input: Tensor, target: Tensor,  # noqa: A002
                         weight: Tensor | None = None, size_average: bool | None = None,
                         reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of probabilities ``input`` (``BinaryCrossEntropyBackward0``).

    As PyTorch: each log is clamped at -100 (so ``input`` may be exactly 0 or 1), the input
    gradient is ``(input - target) / max(input (1 - input), 1e-12)``, values outside [0, 1]
    are refused; ``weight`` broadcasts to the input and is not differentiated.

    >>> F.binary_cross_entropy(symgrad.tensor([0.0, 1.0]), symgrad.tensor([1.0, 1.0]),
    ...                        reduction="none")
    tensor([100.,  -0.])
    """
    _check_size_attr(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape!r}) that is different to the "
                         f"input size ({input.shape!r}) is deprecated. Please ensure they have "
                         "the same size.")
    w = None
    if weight is not None:
        try:
            np.broadcast_shapes(target._value.shape, weight._value.shape)
        except ValueError:
            raise RuntimeError(_weight_broadcast_error(weight, target)) from None
        w = _constant(weight, input, False)
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype._torch_name} but expected "
                           f"{input.dtype._torch_name}")
    _check_float("binary_cross_entropy", input)
    for name, v in (("input", input._value), ("target", target._value)):
        if not ((v >= 0) & (v <= 1)).all():
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    _check_no_grad("binary_cross_entropy", "weight", weight)
    with _quiet():
        return apply_op(ops.nn.binary_cross_entropy, input, target, weight=w,
                        reduction=reduction)


def _weight_broadcast_error(weight: Tensor, target: Tensor) -> str:
    """PyTorch's ``broadcast_shapes`` message for a weight that does not fit the target."""
    ws, ts = weight._value.shape, target._value.shape
    for i in range(1, min(len(ws), len(ts)) + 1):
        if ws[-i] != ts[-i] and ws[-i] != 1 and ts[-i] != 1:
            return (f"Attempting to broadcast a dimension of length {ws[-i]} at -{i}! "
                    f"Mismatching argument at index 1 had {weight.shape!r}; but expected shape "
                    f"should be broadcastable to {_torch_size(ts)}")
    return f"shapes {_torch_size(ts)} and {_torch_size(ws)} are not compatible"


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     weight: Tensor | None = None,
                                     size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross-entropy of ``sigmoid(input)``, computed stably from the logits
    (``BinaryCrossEntropyWithLogitsBackward0``): ``(1 - t) x - (1 + (p - 1) t) log_sigmoid(x)``
    with ``p = pos_weight``. ``weight`` and ``pos_weight`` broadcast to the input and are not
    differentiated.

    >>> F.binary_cross_entropy_with_logits(symgrad.tensor([1000.0, -1000.0]),
    ...                                    symgrad.tensor([0.0, 1.0]), reduction="none")
    tensor([1000., 1000.])
    """
    _check_size_attr(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape!r}) must be the same as input size "
                         f"({input.shape!r})")
    _check_float("log_sigmoid_cpu", input)
    if not target.is_floating_point():
        raise RuntimeError(f"result type {input.dtype._torch_name} can't be cast to the desired "
                           f"output type {target.dtype._torch_name}")
    pw = None if pos_weight is None else _constant(pos_weight, input, True)
    w = None if weight is None else _constant(weight, input, False)
    _check_no_grad("binary_cross_entropy_with_logits", "weight", weight)
    _check_no_grad("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    with _quiet():
        return apply_op(ops.nn.binary_cross_entropy_with_logits, input, target, weight=w,
                        pos_weight=pw, reduction=reduction)


# ---------------------------------------------------------------------------- class targets
def _class_weight(weight: Tensor | None, input: Tensor, prefix: str = "") -> None:  # noqa: A002
    classes = input._value.shape[0 if input._value.ndim == 1 else 1]
    if weight is not None and (weight._value.ndim != 1 or weight._value.shape[0] != classes):
        raise RuntimeError(f"{prefix}weight tensor should be defined either for all {classes} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{_torch_size(weight._value.shape)}")


def _check_targets(input: Tensor, target: Tensor, weight: Tensor | None) -> None:  # noqa: A002
    """nll_loss's checks of the shapes and dtypes of class-index targets, in PyTorch's order."""
    x, t = input._value, target._value
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim != 1 and x.shape[0] != (t.shape[0] if t.ndim else 0):
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                         f"({t.shape[0] if t.ndim else 0}).")
    if x.ndim <= 2:
        if t.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if x.ndim == 1 and t.ndim == 1 and t.shape[0] != 1:
            raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                             f"{t.shape[0]}")
    elif x.ndim == 4:
        if t.ndim != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {t.ndim}")
        if t.shape != x.shape[:1] + x.shape[2:]:
            raise RuntimeError(f"size mismatch (got input: {_torch_size(x.shape)} , target: "
                               f"{_torch_size(t.shape)}")
    elif t.shape != x.shape[:1] + x.shape[2:]:
        raise RuntimeError(f"Expected target size {_torch_size(x.shape[:1] + x.shape[2:])}, "
                           f"got {_torch_size(t.shape)}")
    if target.dtype.name not in ("int64", "uint8"):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{target.dtype._torch_name}")
    _class_weight(weight, input)
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._torch_name} but found "
                           f"{weight.dtype._torch_name}")


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
             size_average: bool | None = None, ignore_index: int = -100,
             reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class-index ``target`` (int64) under log-probabilities
    ``input`` of shape (C,), (N, C) or (N, C, d1, ...) (``NllLossBackward0``, or
    ``NllLoss2DBackward0`` beyond 2 dims, as PyTorch).

    Samples whose target is ``ignore_index`` count for nothing; ``weight`` (C,) weights each
    class and 'mean' divides by the summed weights of the samples kept (nan if none).

    >>> F.nll_loss(symgrad.tensor([[-1.0, -2.0], [-3.0, -4.0]]), symgrad.tensor([0, 1]))
    tensor(2.5000)
    """
    _check_tensor("nll_loss_nd", "input", 1, input)
    _check_tensor("nll_loss_nd", "target", 2, target)
    reduction = _reduction(reduction, size_average, reduce)
    return _nll(input, target, weight, ignore_index, reduction)


def _nll(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int,  # noqa: A002
         reduction: str) -> Tensor:
    _check_targets(input, target, weight)
    ndim = input._value.ndim
    _check_float("nll_loss_out_frame" if ndim <= 2 else "nll_loss2d_forward_out_frame", input)
    _check_no_grad("nll_loss_forward" if ndim <= 2 else "nll_loss2d_forward", "weight", weight)
    if ndim == 3 or ndim > 4:  # PyTorch views these as 4-d (N, C, d1, rest): NllLoss2D
        n, c, d, *rest = input._value.shape
        rest = math.prod(rest)
        loss = _nll(input.reshape(n, c, d, rest), target.reshape(n, d, rest), weight,
                    ignore_index, reduction)
        return loss.reshape(target.shape) if reduction == "none" else loss
    x, t = input._value, target._value
    if ndim == 1:
        t = t.reshape(())  # a target of size 1 is that target
    classes = x.shape[0 if ndim == 1 else 1]
    bad = (t != ignore_index) & ((t < 0) | (t >= classes))
    if bad.any():
        raise IndexError(f"Target {t[bad].flat[0]} is out of bounds.")
    w = None if weight is None else weight._value.astype(x.dtype)
    params = ops.nn.nll_params(x.shape, t, w, ignore_index)
    with _quiet():
        return apply_op(ops.nn.nll_loss, input, reduction=reduction, **params)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                  size_average: bool | None = None, ignore_index: int = -100,
                  reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy of logits ``input`` (class dim 1, or 0 for a (C,) input), recorded as
    PyTorch records it: ``log_softmax`` then ``nll_loss`` for class-index targets; for class
    probabilities (a float ``target`` of the input's shape) ``-(log_softmax * target).sum``,
    'mean' dividing by the number of samples.

    ``label_smoothing`` mixes the targets with the uniform distribution; ``weight`` and
    ``ignore_index`` act as in :func:`nll_loss`, and on the smoothing term as in PyTorch.

    >>> F.cross_entropy(symgrad.tensor([[0.0, 0.0]]), symgrad.tensor([1]))
    tensor(0.6931)
    """
    _check_tensor("cross_entropy_loss", "input", 1, input)
    _check_tensor("cross_entropy_loss", "target", 2, target)
    reduction = _reduction(reduction, size_average, reduce)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    ndim = input._value.ndim
    class_dim = 0 if ndim == 1 else 1
    if target._value.shape == input._value.shape:
        return _cross_entropy_probabilities(input, target, weight, ignore_index, reduction,
                                            label_smoothing, class_dim)
    logp = input.log_softmax(class_dim)
    if label_smoothing <= 0.0:
        return _nll(logp, target, weight, ignore_index, reduction)
    nll = _nll(logp, target, weight, ignore_index, reduction)
    classes = input._value.shape[class_dim]
    smooth = -(logp * _class_view(weight, ndim, class_dim) if weight is not None else logp
               ).sum(class_dim)
    keep = target._value != ignore_index
    smooth = apply_op(ops.elementwise.where, _make(keep), smooth, 0.0)
    with _quiet():
        if reduction == "sum":
            smooth = smooth.sum()
        elif reduction == "mean":
            kept = target._value[keep]
            denominator = (float(weight._value[kept].sum()) if weight is not None
                           else int(keep.sum()))
            smooth = smooth.sum() / denominator
        return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def _class_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    """``weight`` (C,) shaped to broadcast along the class dim of an ``ndim``-d input."""
    return weight.reshape((-1,) + (1,) * (ndim - class_dim - 1))


def _cross_entropy_probabilities(input: Tensor, target: Tensor,  # noqa: A002
                                 weight: Tensor | None, ignore_index: int, reduction: str,
                                 label_smoothing: float, class_dim: int) -> Tensor:
    if not target.is_floating_point():
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {target.dtype._torch_name}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    ndim = input._value.ndim
    if ndim == 0:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    _class_weight(weight, input, "cross_entropy: ")
    logp = input.log_softmax(class_dim)
    classes = input._value.shape[class_dim]
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    loss = logp * target
    if weight is not None:
        loss = loss * _class_view(weight, ndim, class_dim)
    if reduction == "none":
        return -loss.sum(class_dim)
    if reduction == "sum":
        return -loss.sum()
    with _quiet():
        return -loss.sum() / (input.numel() / classes)


def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
           reduce: bool | None = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence of ``target`` from log-probabilities ``input``, pointwise
    ``target * (log(target) - input)`` (0 where ``target`` is 0), or with ``log_target``
    ``exp(target) * (target - input)``. 'batchmean' divides the sum by the batch size (the
    mathematical KL divergence); 'mean', the default, divides by every element, with
    PyTorch's warning.

    >>> F.kl_div(symgrad.tensor([-1.0, -1.0]), symgrad.tensor([0.0, 1.0]), reduction="sum")
    tensor(1.)
    """
    _check_tensor("kl_div", "input", 1, input)
    _check_tensor("kl_div", "target", 2, target)
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          UserWarning, stacklevel=2)
        _reduction(reduction, allowed=(*_REDUCTIONS, "batchmean"))
    if not (input.is_floating_point() and target.is_floating_point()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    with _quiet():
        if log_target:
            loss = target.exp() * (target - input)
        else:
            # xlogy(target, target): 0 where the target is 0
            positive = apply_op(ops.elementwise.where, target == 0, 1.0, target)
            loss = target * positive.log() - target * input
        if reduction == "none":
            return loss
        if reduction == "mean":
            return loss.mean()
        total = loss.sum()
        return total / input.shape[0] if reduction == "batchmean" and input.ndim else total


# ---------------------------------------------------------------------------- margin losses
# composites recorded op by op, in the order of PyTorch's ATen implementations


def _reduced(loss: Tensor, reduction: str, size_average: bool | None = None,
             reduce: bool | None = None) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    with _quiet():
        return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


def soft_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Two-class logistic loss ``log(1 + exp(-target·input))`` for targets ±1.

    >>> F.soft_margin_loss(symgrad.tensor([0.0, 2.0]), symgrad.tensor([1.0, -1.0]))
    tensor(1.4100)
    """
    return _reduced((-input * target).exp().log1p(), reduction, size_average, reduce)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor,
                        margin: float = 0.0, size_average: bool | None = None,
                        reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """``max(0, -target·(input1 - input2) + margin)``: input1 should rank above input2 where
    target is 1, below where it is -1.

    >>> F.margin_ranking_loss(symgrad.tensor([1.0, 0.0]), symgrad.tensor([0.5, 0.5]),
    ...                       symgrad.tensor([1.0, 1.0]))
    tensor(0.2500)
    """
    loss = (-target * (input1 - input2) + margin).clamp_min(0)
    return _reduced(loss, reduction, size_average, reduce)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,  # noqa: A002
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """``input`` where target is 1, ``max(0, margin - input)`` where it is -1.

    >>> F.hinge_embedding_loss(symgrad.tensor([0.3, 0.3]), symgrad.tensor([1.0, -1.0]))
    tensor(0.5000)
    """
    zeros = input.new_zeros(input.shape)
    margin_part = (margin - input).clamp_min(0).where(target != 1, zeros)
    self_part = input.where(target != -1, zeros)
    return _reduced(margin_part + self_part, reduction, size_average, reduce)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True,  # noqa: A002
                     full: bool = False, size_average: bool | None = None, eps: float = 1e-8,
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of a Poisson target: ``exp(input) - target·input`` (the input
    a log-rate), or ``input - target·log(input + eps)``; ``full`` adds Stirling's term.

    >>> F.poisson_nll_loss(symgrad.tensor([0.0, 1.0]), symgrad.tensor([1.0, 2.0]))
    tensor(0.8591)
    """
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduced(loss, reduction, size_average, reduce)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor,
                          margin: float = 0.0, size_average: bool | None = None,
                          reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """``1 - cos(input1, input2)`` where target is 1, ``max(0, cos - margin)`` where it is -1.

    >>> F.cosine_embedding_loss(symgrad.tensor([[1.0, 0.0]]), symgrad.tensor([[1.0, 1.0]]),
    ...                         symgrad.tensor([1.0]))
    tensor(0.2929)
    """
    dim = input1.ndim - 1
    products = (input1 * input2).sum(dim)
    squares1 = (input1 * input1).sum(dim) + 1e-12
    squares2 = (input2 * input2).sum(dim) + 1e-12
    cos = products / (squares1 * squares2).sqrt()
    zeros = cos.new_zeros(cos.shape)
    positive = (1 - cos).where(target == 1, zeros)
    negative = (cos - margin).clamp_min(0).where(target == -1, zeros)
    return _reduced(positive + negative, reduction, size_average, reduce)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor,  # noqa: A002
                                weight: Tensor | None = None,
                                size_average: bool | None = None, reduce: bool | None = None,
                                reduction: str = "mean") -> Tensor:
    """Binary cross entropy of logits per class, averaged over the classes (the last
    dimension), for multi-label targets in {0, 1}.

    >>> F.multilabel_soft_margin_loss(symgrad.tensor([[0.0, 2.0]]), symgrad.tensor([[1.0, 0.0]]))
    tensor(1.4100)
    """
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    dim = input.ndim - 1
    loss = loss.sum(dim) / input.shape[dim]
    return _reduced(loss, reduction, size_average, reduce)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average: bool | None = None,
                        reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """``max(d(anchor, positive) - d(anchor, negative) + margin, 0)`` with the p-norm
    distance of ``pairwise_distance`` (``swap``: the smaller of the two negative distances).

    >>> F.triplet_margin_loss(symgrad.tensor([[0.0, 0.0]]), symgrad.tensor([[1.0, 0.0]]),
    ...                       symgrad.tensor([[3.0, 0.0]]))
    tensor(0.)
    """
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduced((margin + d_pos - d_neg).clamp_min(0), reduction, size_average, reduce)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float,  # noqa: A002
                      full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """Gaussian negative log likelihood ``0.5·(log(var) + (input - target)²/var)`` (``full``:
    plus ``0.5·log(2π)``), with ``var`` clamped to at least ``eps`` outside the graph; ``var``
    may lack the last dimension or have size 1 in one dimension.

    >>> F.gaussian_nll_loss(symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 0.0]),
    ...                     symgrad.tensor([1.0, 2.0]))
    tensor(0.6733)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * input.new_ones(input.shape)
    elif (var < 0).any().item():
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(
                y for x, y in zip(input.shape, var.shape, strict=True) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


def _margin_input(input: Tensor) -> tuple[int, int]:  # noqa: A002
    """The (batch, classes) of a multi-margin loss's input: a non-empty vector or matrix (a
    0-d input is one sample of one class)."""
    shape = input._value.shape
    if input.ndim > 2 or (input.ndim and not shape[-1]):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(shape)}")
    return (shape[0] if input.ndim == 2 else 1), (shape[-1] if input.ndim else 1)


def _expect_dtype(tensor: Tensor, expected: Any) -> None:
    if tensor.dtype is not expected:
        raise RuntimeError(f"expected scalar type {expected._torch_name} but found "
                           f"{tensor.dtype._torch_name}")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1,  # noqa: A002
                      margin: float = 1.0, weight: Tensor | None = None,
                      size_average: bool | None = None, reduce: bool | None = None,
                      reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: per sample ``Σ_{i≠y} w[y]·max(0, margin - x[y] + x[i])^p / C``
    for class-index ``target`` y (int64), ``input`` of shape (C,) or (N, C); ``p`` is 1 or 2.
    The gradient at the hinge is 0, as PyTorch's kernel gives.

    >>> F.multi_margin_loss(symgrad.tensor([[0.1, 0.2, 0.4, 0.8]]), symgrad.tensor([3]))
    tensor(0.3250)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    batch, classes = _margin_input(input)
    t = target._value
    if not ((input.ndim <= 1 and t.size == 1 and t.ndim <= 1)
            or (t.ndim == 1 and t.shape[0] == batch)):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{batch}], but got "
            f"{list(t.shape)}. Input has shape {list(input.shape)}.")
    _check_float("multi_margin_loss_cpu_kernel", input)
    if weight is not None and weight._value.shape[0] != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{list(weight._value.shape)}")
    _expect_dtype(target, dtypes.int64)
    if weight is not None:
        _expect_dtype(weight, input.dtype)
    if ((t < 0) | (t >= classes)).any():
        raise RuntimeError("target out of range")
    _check_no_grad("multi_margin_loss", "weight", weight)
    x = input.reshape(batch, classes)
    y = t.reshape(batch)
    picked = x.gather(1, _make(y.reshape(batch, 1).astype(np.int64)))
    hinge = (margin - picked + x).relu()
    if p == 2:
        hinge = hinge * hinge
    scale = (np.arange(classes) != y[:, None]).astype(x._value.dtype)
    if weight is not None:
        scale = scale * weight._value.astype(x._value.dtype)[y][:, None]
    loss = (hinge * _make(scale / classes)).sum(1)
    if input.ndim <= 1:
        loss = loss.reshape(())
    return _reduced(loss, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor,  # noqa: A002
                           size_average: bool | None = None, reduce: bool | None = None,
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss: per sample ``Σ_j Σ_{i∉targets} max(0, 1 - (x[j] - x[i])) / C``
    over the target classes ``j``, which are ``target``'s entries (int64, same shape as
    ``input``) before the first -1. The gradient at the hinge is 0, as PyTorch's kernel gives.

    >>> F.multilabel_margin_loss(symgrad.tensor([[0.1, 0.2, 0.4, 0.8]]),
    ...                          symgrad.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    reduction = _reduction(reduction, size_average, reduce)
    batch, classes = _margin_input(input)
    t = target._value
    if t.shape != input._value.shape and not (input.ndim == 0 and t.size == 1 and t.ndim <= 1):
        raise RuntimeError(f"inconsistent target size: {list(t.shape)} for input of size: "
                           f"{list(input.shape)}")
    _check_float("multilabel_margin_loss_forward_out_frame", input)
    t = t.reshape(batch, classes)
    # the targets are the entries before the first -1
    valid = np.cumsum(t == -1, axis=1) == 0
    if (valid & ((t < 0) | (t >= classes))).any():
        raise RuntimeError("argument #2 'target' is out of range")
    _expect_dtype(target, dtypes.int64)
    counts = np.zeros((batch, classes))
    rows = np.broadcast_to(np.arange(batch)[:, None], t.shape)
    np.add.at(counts, (rows[valid], t[valid]), 1.0)
    others = counts == 0
    x = input.reshape(batch, classes)
    hinge = (1 - x.unsqueeze(2) + x.unsqueeze(1)).relu()  # [n, j, i]: target j, other i
    scale = (counts[:, :, None] * others[:, None, :]).astype(x._value.dtype) / classes
    loss = (hinge * _make(scale)).sum((1, 2))
    if input.ndim <= 1:
        loss = loss.reshape(())
    return _reduced(loss, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable[[Tensor, Tensor], Tensor]
                                      | None = None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """``max(d(anchor, positive) - d(anchor, negative) + margin, 0)`` for any distance
    function ``d`` (``pairwise_distance`` by default); ``swap`` takes the smaller of the
    negative's distances to the anchor and to the positive.

    >>> F.triplet_margin_with_distance_loss(symgrad.tensor([[0.0]]), symgrad.tensor([[1.0]]),
    ...                                     symgrad.tensor([[1.5]]))
    tensor(0.5000)
    """
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {dims[0]}D, positive "
                           f"{dims[1]}D, and negative {dims[2]}D inputs")
    distance = pairwise_distance if distance_function is None else distance_function
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(distance(positive, negative))
    return _reduced((margin + d_pos - d_neg).clamp_min(0), reduction)
