"""PyTorch spellings of the neural-network ops beyond convolution and pooling: activations
(``F.selu``, ``F.hardswish`` ...), normalization (``F.batch_norm``, ``F.layer_norm``,
``F.group_norm``), ``F.embedding``, dropout, and the small composites (``F.one_hot``,
``F.normalize``, ``F.cosine_similarity``, ``F.pairwise_distance``, ``F.softsign``,
``F.tanhshrink``).

The ops are in ``symgrad.ops.nn``. Random masks (dropout) come from symgrad's numpy stream
(``symgrad.manual_seed``), so they differ from PyTorch's for the same seed.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import creation, ops, parser
from symgrad.autograd.grad_mode import no_grad
from symgrad.dispatch import apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make
from symgrad.torch_api.arguments import check_ints, result_dtype
from symgrad.torch_api.composites import broadcast_tensors
from symgrad.torch_api.conv import avg_pool2d, avg_pool3d
from symgrad.torch_api.declaration import COMPOSITE, NO_GRAPH, torch_api
from symgrad.torch_api.pointwise import _floating, _tensor
from symgrad.torch_api.pointwise import leaky_relu as F_leaky_relu
from symgrad.torch_api.reductions import _vector_norm
from symgrad.torch_api.shaping import pad, stack

_nn = ops.nn


def _size(value: Sequence[int]) -> str:
    return f"[{', '.join(str(n) for n in value)}]"


def _inplace(input: Tensor, result: Tensor, inplace: bool) -> Tensor:  # noqa: A002
    """``result``, or written into ``input`` when ``inplace`` (PyTorch's ``inplace=True``)."""
    return input.copy_(result) if inplace else result


# ---------------------------------------------------------------------------- activations
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@torch_api("scaled_elu", method=False)
def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``scale * elu(x, alpha)`` with PyTorch's self-normalizing constants (``EluBackward0``).

    >>> F.selu(symgrad.tensor([-1.0, 1.0]))
    tensor([-1.1113,  1.0507])
    """
    _tensor(input, "selu")
    _floating(input, "elu_cpu")
    y = apply_op(_nn.scaled_elu, input, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1.0)
    return _inplace(input, y, inplace)


@torch_api("scaled_elu", method=False)
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (``CeluBackward0``).

    >>> F.celu(symgrad.tensor([-1.0, 1.0]), alpha=2.0)
    tensor([-0.7869,  1.0000])
    """
    _tensor(input, "celu")
    check_ints(alpha)
    _floating(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    y = apply_op(_nn.scaled_elu, input, alpha=float(alpha), scale=1.0, input_scale=1 / alpha,
                 celu=True)
    return _inplace(input, y, inplace)


@torch_api("hardsigmoid", method=False, function=False)
def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``relu6(x + 3) / 6``; the gradient is 0 at -3 and 3 (``HardsigmoidBackward0``).

    >>> F.hardsigmoid(symgrad.tensor([-4.0, 0.0, 1.5]))
    tensor([0.0000, 0.5000, 0.7500])
    """
    _tensor(input, "hardsigmoid")
    _floating(input, "hardsigmoid_cpu")
    return _inplace(input, apply_op(_nn.hardsigmoid, input), inplace)


@torch_api("hardswish", method=False, function=False)
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x * relu6(x + 3) / 6``; the gradient is 0 at -3 and 1 at 3 (``HardswishBackward0``).

    >>> F.hardswish(symgrad.tensor([-4.0, 0.0, 1.5]))
    tensor([-0.0000, 0.0000, 1.1250])
    """
    _tensor(input, "hardswish")
    _floating(input, "hardswish_cpu")
    return _inplace(input, apply_op(_nn.hardswish, input), inplace)


@torch_api("mish", method=False, function=False)
def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x * tanh(softplus(x))`` (``MishBackward0``).

    >>> F.mish(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8651])
    """
    _tensor(input, "mish")
    _floating(input, "mish_cpu")
    return _inplace(input, apply_op(_nn.mish, input), inplace)


@torch_api("log_sigmoid", method=False, function=False)
def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """``log(sigmoid(x))``, without overflow for large ``|x|`` (``LogSigmoidBackward0``).

    >>> F.logsigmoid(symgrad.tensor([0.0, -100.0]))
    tensor([  -0.6931, -100.0000])
    """
    _tensor(input, "logsigmoid")
    _floating(input, "log_sigmoid_cpu")
    return apply_op(_nn.log_sigmoid, input)


@torch_api(COMPOSITE, method=False, function=False)
def softsign(input: Tensor) -> Tensor:  # noqa: A002
    """``x / (1 + |x|)`` (``DivBackward0``, as PyTorch's composite).

    >>> F.softsign(symgrad.tensor([-1.0, 3.0]))
    tensor([-0.5000,  0.7500])
    """
    _tensor(input, "softsign")
    return input / (input.abs() + 1)


@torch_api(COMPOSITE, method=False, function=False)
def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002
    """``x - tanh(x)`` (``SubBackward0``, as PyTorch's composite).

    >>> F.tanhshrink(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.2384])
    """
    _tensor(input, "tanhshrink")
    return input - input.tanh()



@torch_api("threshold", method=False)
def threshold(input: Tensor, threshold: float, value: float,  # noqa: A002
              inplace: bool = False) -> Tensor:
    """``input`` where it is greater than ``threshold``, else ``value`` (gradient 0 there;
    ``ThresholdBackward0``).

    >>> symgrad.threshold(symgrad.tensor([-1.0, 0.5, 2.0]), 0.5, 20.0)
    tensor([20., 20.,  2.])
    """
    check_ints(threshold, value)
    out = apply_op(ops.elementwise.threshold, input, threshold=threshold, value=value)
    return input.copy_(out) if inplace else out


@torch_api("threshold", method=False, inplace=True)
def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    """In-place :func:`threshold`.

    >>> x = symgrad.tensor([-1.0, 2.0]); _ = symgrad.threshold_(x, 0.0, 5.0); x
    tensor([5., 2.])
    """
    return globals()["threshold"](input, threshold, value, inplace=True)


@torch_api(COMPOSITE, method=False, inplace=True)
def selu_(input: Tensor) -> Tensor:  # noqa: A002
    """In-place :func:`selu`."""
    return selu(input, inplace=True)


@torch_api(COMPOSITE, method=False, inplace=True)
def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """In-place :func:`celu`."""
    return celu(input, alpha, inplace=True)


@torch_api(COMPOSITE, method=False)
def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,  # noqa: A002
          training: bool = False, inplace: bool = False) -> Tensor:
    """Randomized leaky relu: in training each negative element is multiplied by its own
    slope drawn uniformly from ``[lower, upper]`` (numpy's stream, ``symgrad.manual_seed``), the
    gradient there being that slope; in eval the slope is ``(lower + upper) / 2``, as PyTorch.

    >>> F.rrelu(symgrad.tensor([-2.0, 1.0]), 0.25, 0.25, training=True)
    tensor([-0.5000,  1.0000])
    """
    _tensor(input, "rrelu")
    check_ints(lower, upper)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        _floating(input, "leaky_relu_cpu")
        return F_leaky_relu(input, (lower + upper) / 2, inplace)
    _floating(input, "rrelu_with_noise_out_cpu")
    value = input._value
    slopes = creation._rng.uniform(lower, upper, value.shape)
    noise = np.where(value > 0, 1.0, slopes).astype(value.dtype)
    return _inplace(input, input * _make(noise), inplace)


@torch_api(COMPOSITE, method=False, inplace=True)
def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,  # noqa: A002
           training: bool = False) -> Tensor:
    """In-place :func:`rrelu`."""
    return rrelu(input, lower, upper, training, inplace=True)


# ---------------------------------------------------------------------------- normalization
def _channel_param(name: str, value: Tensor | None, channels: int) -> None:
    if value is not None and value.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {value.numel()}")


@torch_api("batch_norm", method=False, function=False)
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,  # noqa: A002
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    """Normalize each channel (dim 1) over the batch and spatial dims, then scale by
    ``weight`` and shift by ``bias`` (``NativeBatchNormBackward0``). In training, with the
    batch's statistics (biased variance), and the running statistics are updated in place:
    ``running = (1 - momentum) * running + momentum * batch`` (unbiased variance); in eval,
    with the running statistics.

    >>> F.batch_norm(symgrad.tensor([[1.0], [3.0]]), None, None, training=True)
    tensor([[-1.0000],
            [ 1.0000]])
    """
    _tensor(input, "batch_norm")
    if momentum is None or isinstance(momentum, bool):
        raise TypeError("batch_norm(): argument 'momentum' (position 7) must be float, not "
                        f"{type(momentum).__name__}")
    channels = input.shape[1] if input.ndim > 1 else 1
    for name, value in (("running_mean", running_mean), ("running_var", running_var),
                        ("weight", weight), ("bias", bias)):
        _channel_param(name, value, channels)
    axes = (0, *range(2, input.ndim))
    affine = (1, channels) + (1,) * (input.ndim - 2)
    count = math.prod(input.shape[d] for d in axes)
    if not training:
        if running_mean is None or running_var is None:
            raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be "
                               "defined in evaluation mode")
        dtype = input._value.dtype
        mean = running_mean._value.astype(dtype).reshape(affine)
        invstd = (1 / np.sqrt(running_var._value.astype(np.float64) + eps)).astype(dtype)
        return apply_op(_nn.batch_norm, input, weight, bias, axes=axes, eps=eps,
                        affine_shape=affine, mean=mean, invstd=invstd.reshape(affine))
    if count <= 1:
        raise ValueError("Expected more than 1 value per channel when training, got input "
                         f"size symgrad.Size({list(input.shape)})")
    out = apply_op(_nn.batch_norm, input, weight, bias, axes=axes, eps=eps, affine_shape=affine)
    if running_mean is not None or running_var is not None:
        value = input._value.astype(np.float64)
        mean = value.mean(axis=axes)
        var = value.var(axis=axes) * count / (count - 1)
        m = float(momentum)
        with no_grad():
            for running, batch in ((running_mean, mean), (running_var, var)):
                if running is not None:
                    dt = running._value.dtype
                    new = (m * batch.astype(dt) + (1 - m) * running._value).astype(dt)
                    running.copy_(_make(new.reshape(running.shape)))
    return out


@torch_api("layer_norm", method=False, function=False)
def layer_norm(input: Tensor, normalized_shape: Sequence[int] | int,  # noqa: A002
               weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalize over the last ``len(normalized_shape)`` dims, then scale and shift
    elementwise (``NativeLayerNormBackward0``).

    >>> F.layer_norm(symgrad.tensor([[1.0, 3.0]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    _tensor(input, "layer_norm")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    k = len(shape)
    if tuple(input.shape[input.ndim - k:]) != shape or input.ndim < k:
        raise RuntimeError(f"Given normalized_shape={_size(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{_size(input.shape)}")
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and tuple(value.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {_size(value.shape)} and normalized_shape "
                               f"= {_size(shape)}")
    params = [v for v in (weight, bias) if v is not None]
    if any(v.dtype is not input.dtype for v in params):
        # (PyTorch's mixed precision: float32 parameters of a float16 input, the result in
        # the input's dtype)
        if input.dtype is not dtypes.float16 or any(v.dtype is not dtypes.float32
                                                     for v in params):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of "
                               "Float")
        return layer_norm(input.float(), normalized_shape, weight, bias, eps).half()
    return apply_op(_nn.layer_norm, input, weight, bias,
                    axes=tuple(range(input.ndim - k, input.ndim)), eps=eps, affine_shape=shape)


@torch_api("group_norm", method=False, function=False)
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalize each sample over groups of ``num_groups`` channels (and all spatial
    positions), then scale and shift per channel (``NativeGroupNormBackward0``).

    >>> F.group_norm(symgrad.tensor([[[1.0], [3.0]]]), 1)
    tensor([[[-1.0000],
             [ 1.0000]]])
    """
    _tensor(input, "group_norm")
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    channels = input.shape[1]
    if channels % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {_size(input.shape)} and "
                           f"num_groups={num_groups}")
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and (value.ndim != 1 or value.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{_size(value.shape)} and input of shape {_size(input.shape)}")
    return apply_op(_nn.group_norm, input, weight, bias, axes=(2,), eps=eps,
                    affine_shape=(1, channels) + (1,) * (input.ndim - 2),
                    groups=int(num_groups))


# ---------------------------------------------------------------------------- embedding
@torch_api("embedding", method=False, function=False)
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,  # noqa: A002
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` at the integer indices ``input`` (``EmbeddingBackward0``); rows
    looked up at ``padding_idx`` get no gradient. With ``max_norm``, the rows looked up whose
    ``norm_type``-norm exceeds it are first scaled in place to norm ``max_norm`` (as PyTorch:
    ``weight`` is modified, outside the graph); ``scale_grad_by_freq`` divides each row's
    gradient by the number of times the batch looks it up. symgrad has no sparse tensors:
    ``sparse=True`` is refused.

    >>> F.embedding(symgrad.tensor([2, 0]), symgrad.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]))
    tensor([[4., 5.],
            [0., 1.]])
    """
    _tensor(input, "embedding")
    _tensor(weight, "embedding", "weight", 2)
    if sparse:
        raise NotImplementedError("symgrad has no sparse tensors: embedding(sparse=True) would "
                                  "give weight a sparse gradient; use sparse=False")
    index = input._value
    if not dtypes.is_index(input.dtype):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"symgrad.{input.dtype._torch_name}Tensor instead (while checking "
                           "arguments for embedding)")
    rows = weight.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= rows
    if index.size and (index.min() < 0 or index.max() >= rows):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, np.unique(index), float(max_norm), float(norm_type))
    key = (index.astype(np.int64),)
    params: dict = {}
    if scale_grad_by_freq:
        counts = np.bincount(key[0].reshape(-1), minlength=rows)
        params["scale"] = (1.0 / counts[key[0]])[..., None]
    if padding_idx is not None and (index == padding_idx).any():
        params["keep"] = (index != padding_idx)[..., None]
        params["fill"] = weight._value[padding_idx].copy()
    return apply_op(_nn.embedding, weight, key=key, **params)


def _renorm_rows(weight: Tensor, rows: np.ndarray, max_norm: float, norm_type: float) -> None:
    """PyTorch's embedding_renorm_: scale the given rows of ``weight`` whose norm exceeds
    ``max_norm`` to ``max_norm / (norm + 1e-7)`` times themselves, in place, unrecorded."""
    values = weight._value[rows].astype(np.float64)
    norms = np.linalg.norm(values, ord=norm_type, axis=1) if values.size else values[:, 0]
    over = norms > max_norm
    if not over.any():
        return
    scale = (max_norm / (norms[over] + 1e-7))[:, None]
    with no_grad():
        weight[_make(rows[over])] = _make((values[over] * scale).astype(weight._value.dtype))


# ---------------------------------------------------------------------------- CTC loss
def _lengths(value: Any, name: str) -> np.ndarray:
    """Sequence lengths given as a Tensor, a tuple or an int, as an int64 array."""
    raw = value._value if isinstance(value, Tensor) else value
    return np.asarray(raw, dtype=np.int64).reshape(-1)


def _ctc_targets(targets: Tensor, target_lengths: np.ndarray, batch: int) -> np.ndarray:
    """Padded (N, S) targets, from padded or concatenated ones, checked as PyTorch checks."""
    labels = np.asarray(targets._value).astype(np.int64)
    where = "for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)"
    if labels.ndim == 1 and batch:
        total = int(target_lengths.sum())
        if labels.size != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got "
                               f"size {labels.size} {where}")
        padded = np.zeros((batch, int(target_lengths.max(initial=0))), dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
        for n, (start, length) in enumerate(zip(starts, target_lengths, strict=True)):
            padded[n, :length] = labels[start:start + length]
        return padded
    longest = int(target_lengths.max(initial=0))
    if labels.shape[1] < longest:
        raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, "
                           f"but got size {labels.shape[1]} {where}")
    return labels


@torch_api("ctc_loss", method=False, function=False,
           example=lambda x: ctc_loss(x.log_softmax(1).unsqueeze(1), creation.tensor([[1]]),
                                      [2], [1]))
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification: ``-log p(target | input)`` summed over every
    alignment, from ``log_probs`` (T, N, C) (or unbatched (T, C)) and ``targets`` padded
    (N, S) or concatenated (sum of target_lengths,) (``CtcLossBackward0``). ``'mean'``
    divides each loss by its target length, then averages, as PyTorch; ``zero_infinity``
    turns the inf loss of an impossible alignment (and its gradient) into 0.

    The gradient is the exact derivative with respect to ``log_probs``; PyTorch's kernel
    returns it plus ``exp(log_probs)``, a term that cancels through ``log_softmax`` (the
    documented input), so the gradients reaching the logits are the same.

    >>> lp = symgrad.zeros(3, 1, 2).log_softmax(2)  # T=3, N=1, C=2 (blank 0)
    >>> F.ctc_loss(lp, symgrad.tensor([[1]]), [3], [1], reduction="sum")
    tensor(0.2877)
    """
    _tensor(log_probs, "ctc_loss", "log_probs")
    _tensor(targets, "ctc_loss", "targets", 2)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    batched = log_probs.ndim == 3
    if not batched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.ndim == 1 else targets
    steps, batch, classes = log_probs.shape
    inputs = _lengths(input_lengths, "input_lengths")
    lengths = _lengths(target_lengths, "target_lengths")
    if inputs.size != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if lengths.size != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if inputs.size and inputs.max() > steps:
        raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                           f"value {inputs.max()} (while checking arguments for "
                           f"ctc_loss_allocate_outputs)")
    labels = _ctc_targets(targets, lengths, batch)
    loss = apply_op(_nn.ctc_loss, log_probs, zero_infinity=bool(zero_infinity),
                    **_nn.ctc_params(labels, inputs, lengths, blank))
    if zero_infinity:
        loss = loss.where(loss != math.inf, 0.0)
    if reduction == "none":
        return loss if batched else loss.squeeze(0)
    if reduction == "sum":
        return loss.sum()
    divisor = _make(np.maximum(lengths, 1).astype(loss._value.dtype))
    return (loss / divisor).mean()


# ---------------------------------------------------------------------------- dropout
def _check_p(p: float) -> None:
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _masked(input: Tensor, p: float, mask_shape: tuple[int, ...]) -> Tensor:  # noqa: A002
    """``input * mask / (1 - p)`` with a Bernoulli(1 - p) ``mask`` of ``mask_shape``
    (broadcast), one multiplication as PyTorch records it (``MulBackward0``)."""
    dtype = input._value.dtype
    if p == 1:
        scaled = np.zeros(mask_shape, dtype=dtype)
    else:
        keep = creation._rng.random(mask_shape) >= p
        scaled = keep.astype(dtype) * dtype.type(1 / (1 - p))
    return input * _make(scaled)


@torch_api(COMPOSITE, method=False, function=False)
def dropout(input: Tensor, p: float = 0.5, training: bool = True,  # noqa: A002
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` in
    training; the input itself otherwise or when ``p`` is 0 (``MulBackward0``).

    >>> F.dropout(symgrad.ones(3), p=0.5, training=False)
    tensor([1., 1., 1.])
    """
    _tensor(input, "dropout")
    _check_p(p)
    if not training or p == 0:
        return input
    return _inplace(input, _masked(input, p, tuple(input.shape)), inplace)


def _channel_dropout(name: str, d: int, input: Tensor, p: float, training: bool,  # noqa: A002
                     inplace: bool) -> Tensor:
    _tensor(input, name)
    _check_p(p)
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"{name}: Expected {d + 1}D or {d + 2}D input, but received a "
                           f"{input.ndim}D input. Note that {name} exists to provide "
                           f"channel-wise dropout on inputs with {d} spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. "
                           f"{d + 1}D or {d + 2}D inputs).")
    if not training or p == 0:
        return input
    lead = input.ndim - d  # (N, C) or (C,)
    shape = tuple(input.shape[:lead]) + (1,) * d
    return _inplace(input, _masked(input, p, shape), inplace)


@torch_api(COMPOSITE, method=False, function=False)
def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,  # noqa: A002
              inplace: bool = False) -> Tensor:
    """Zero whole channels of a (N, C, L) or (C, L) input with probability ``p``.

    >>> F.dropout1d(symgrad.ones(1, 2, 3), training=False).shape
    symgrad.Size([1, 2, 3])
    """
    return _channel_dropout("dropout1d", 1, input, p, training, inplace)


def _feature_dropout(name: str, d: int, input: Tensor, p: float, training: bool,  # noqa: A002
                     inplace: bool) -> Tensor:
    """PyTorch's dropout2d/3d: one draw per (dim 0, dim 1) pair (dropout3d: per dim 0 when the
    input is not 5-d, seen as unbatched), warning for an input of unexpected rank."""
    _tensor(input, name)
    _check_p(p)
    expected = (d + 1, d + 2)
    if input.ndim not in expected:
        warnings.warn(
            f"{name}: Received a {input.ndim}-D input to {name}, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            f"warning, please use dropout instead. Note that {name} exists to provide "
            f"channel-wise dropout on inputs with {d} spatial dimensions, a channel dimension, "
            f"and an optional batch dimension (i.e. {expected[0]}D or {expected[1]}D inputs).",
            UserWarning, stacklevel=3)
    if d == 2 and input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning, stacklevel=3)
    if not training or p == 0:
        return input
    lead = 1 if d == 3 and input.ndim != 5 else 2  # dropout3d unsqueezes an unbatched input
    if input.ndim + 2 - lead < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:lead]) + (1,) * (input.ndim - lead)
    return _inplace(input, _masked(input, p, shape), inplace)


@torch_api(COMPOSITE, method=False, function=False)
def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,  # noqa: A002
              inplace: bool = False) -> Tensor:
    """Zero whole channels of a (N, C, H, W) input with probability ``p`` (one draw per sample
    and channel; PyTorch's warnings for other ranks, a 3-d input read as (N, C, L)).

    >>> F.dropout2d(symgrad.ones(1, 2, 3, 3), training=False).shape
    symgrad.Size([1, 2, 3, 3])
    """
    return _feature_dropout("dropout2d", 2, input, p, training, inplace)


@torch_api(COMPOSITE, method=False, function=False)
def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,  # noqa: A002
              inplace: bool = False) -> Tensor:
    """Zero whole channels of a (N, C, D, H, W) or (C, D, H, W) input with probability ``p``.

    >>> F.dropout3d(symgrad.ones(1, 2, 1, 3, 3), training=False).shape
    symgrad.Size([1, 2, 1, 3, 3])
    """
    return _feature_dropout("dropout3d", 3, input, p, training, inplace)


@torch_api(COMPOSITE, method=False, function=False)
def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,  # noqa: A002
                  inplace: bool = False) -> Tensor:
    """Dropout that keeps selu's self-normalizing mean and variance: dropped elements take
    selu's negative saturation value, then an affine map restores the statistics.

    >>> F.alpha_dropout(symgrad.ones(2), 0.5, training=False)
    tensor([1., 1.])
    """
    _tensor(input, "alpha_dropout")
    return _alpha_dropout(input, p, training, inplace, tuple(input.shape))


@torch_api(COMPOSITE, method=False, function=False)
def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,  # noqa: A002
                          inplace: bool = False) -> Tensor:
    """:func:`alpha_dropout` of whole channels: one draw per (sample, channel), shared by all
    positions of the channel.

    >>> F.feature_alpha_dropout(symgrad.ones(1, 2, 2), 0.5, training=False)
    tensor([[[1., 1.],
             [1., 1.]]])
    """
    _tensor(input, "feature_alpha_dropout")
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _alpha_dropout(input, p, training, inplace, shape)


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool,  # noqa: A002
                   shape: tuple[int, ...]) -> Tensor:
    _check_p(p)
    if not training or p == 0:
        return input
    if p == 1:
        return _inplace(input, input * 0, inplace)
    alpha = -_SELU_ALPHA * _SELU_SCALE
    a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    keep = (creation._rng.random(shape) >= p).astype(input._value.dtype)
    b = _make(((1 - keep) * (alpha * a) + alpha * a * -p).astype(input._value.dtype))
    return _inplace(input, input * _make(keep * input._value.dtype.type(a)) + b, inplace)


# symgrad.dropout & co: PyTorch's torch.<name>(input, p, train), whose bad p is a RuntimeError
def _torch_dropout(name: str, input: Tensor, p: float, train: bool,  # noqa: A002
                   inplace: bool) -> Tensor:
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    if name in ("feature_dropout", "feature_alpha_dropout") and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if name == "dropout":
        return dropout(input, p, train, inplace)
    if name == "alpha_dropout":
        return alpha_dropout(input, p, train, inplace)
    if name == "feature_alpha_dropout":
        return feature_alpha_dropout(input, p, train, inplace)
    if not train or p == 0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _inplace(input, _masked(input, p, shape), inplace)


@torch_api(COMPOSITE, method=False, name="dropout")
def _dropout_function(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.dropout``: :func:`F.dropout <symgrad.nn.functional.dropout>` with the
    arguments ``(input, p, train)`` (a ``p`` outside [0, 1] is a RuntimeError here).

    >>> symgrad.dropout(symgrad.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return _torch_dropout("dropout", input, p, train, False)


@torch_api(COMPOSITE, method=False, inplace=True, name="dropout_")
def _dropout_inplace(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """:func:`symgrad.dropout` in place.

    >>> symgrad.dropout_(symgrad.ones(3), 1.0, True)
    tensor([0., 0., 0.])
    """
    return _torch_dropout("dropout", input, p, train, True)


@torch_api(COMPOSITE, method=False, name="alpha_dropout")
def _alpha_dropout_function(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.alpha_dropout``: :func:`F.alpha_dropout
    <symgrad.nn.functional.alpha_dropout>` with the arguments ``(input, p, train)``.

    >>> symgrad.alpha_dropout(symgrad.ones(2), 0.5, False)
    tensor([1., 1.])
    """
    return _torch_dropout("alpha_dropout", input, p, train, False)


@torch_api(COMPOSITE, method=False, inplace=True, name="alpha_dropout_")
def _alpha_dropout_inplace(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """:func:`symgrad.alpha_dropout` in place.

    >>> symgrad.alpha_dropout_(symgrad.ones(2), 1.0, True)
    tensor([0., 0.])
    """
    return _torch_dropout("alpha_dropout", input, p, train, True)


@torch_api(COMPOSITE, method=False, name="feature_alpha_dropout")
def _feature_alpha_dropout_function(input: Tensor, p: float,  # noqa: A002
                                    train: bool) -> Tensor:
    """``torch.feature_alpha_dropout``: :func:`F.feature_alpha_dropout
    <symgrad.nn.functional.feature_alpha_dropout>` with the arguments ``(input, p, train)``.

    >>> symgrad.feature_alpha_dropout(symgrad.ones(1, 2), 0.5, False)
    tensor([[1., 1.]])
    """
    return _torch_dropout("feature_alpha_dropout", input, p, train, False)


@torch_api(COMPOSITE, method=False, inplace=True, name="feature_alpha_dropout_")
def _feature_alpha_dropout_inplace(input: Tensor, p: float,  # noqa: A002
                                   train: bool) -> Tensor:
    """:func:`symgrad.feature_alpha_dropout` in place.

    >>> symgrad.feature_alpha_dropout_(symgrad.ones(1, 2), 1.0, True)
    tensor([[0., 0.]])
    """
    return _torch_dropout("feature_alpha_dropout", input, p, train, True)


@torch_api(COMPOSITE, method=False)
def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """Dropout of whole channels: one draw per (dim 0, dim 1) pair, shared along the other
    dims (``MulBackward0``); the input needs at least 2 dims.

    >>> symgrad.feature_dropout(symgrad.ones(1, 2, 2), 1.0, True)
    tensor([[[0., 0.],
             [0., 0.]]])
    """
    return _torch_dropout("feature_dropout", input, p, train, False)


@torch_api(COMPOSITE, method=False, inplace=True)
def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """:func:`feature_dropout` in place.

    >>> symgrad.feature_dropout_(symgrad.ones(1, 2), 0.0, True)
    tensor([[1., 1.]])
    """
    return _torch_dropout("feature_dropout", input, p, train, True)


# ---------------------------------------------------------------------------- composites
@torch_api(NO_GRAPH, method=False, function=False)
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices as int64 one-hot rows over a new last dim of ``num_classes`` (the largest
    index + 1 when -1).

    >>> F.one_hot(symgrad.tensor([0, 2]))
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    _tensor(tensor, "one_hot", "tensor")
    value = tensor._value
    if value.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if value.size and value.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if not value.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(value.max()) + 1
    elif value.size and value.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _make((value[..., None] == np.arange(num_classes)).astype(np.int64))


@torch_api(COMPOSITE, method=False, function=False)
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,  # noqa: A002
              out: Tensor | None = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim`` (``DivBackward0``).

    >>> F.normalize(symgrad.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    _tensor(input, "normalize")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    result = input / denom
    return result if out is None else out.copy_(result)


@torch_api(COMPOSITE, method=False)
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast), each
    norm clamped below at ``eps`` (``SumBackward1``).

    >>> F.cosine_similarity(symgrad.tensor([[1.0, 0.0]]), symgrad.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    _tensor(x1, "cosine_similarity", "x1")
    _tensor(x2, "cosine_similarity", "x2", 2)
    common = result_dtype(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{common._torch_name}")
    # (an integer or bool one in the common dtype; each normalized in its own dtype)
    x1, x2 = broadcast_tensors(*(x if x.is_floating_point() else x.to(common) for x in (x1, x2)))
    a = x1 / x1.norm(2, dim, keepdim=True).clamp_min(eps)
    b = x2 / x2.norm(2, dim, keepdim=True).clamp_min(eps)
    return (a * b).sum(dim)


@torch_api(COMPOSITE, method=False)
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last dim (broadcast).

    >>> F.pairwise_distance(symgrad.tensor([[1.0, 1.0]]), symgrad.tensor([[0.0, 0.0]]))
    tensor([1.4142])
    """
    _tensor(x1, "pairwise_distance", "x1")
    _tensor(x2, "pairwise_distance", "x2", 2)
    ndim = max(x1.ndim, x2.ndim)
    # PyTorch's kernel: at::norm(x1 - x2 + eps), recorded as NormBackward1(AddBackward1(...))
    shifted = apply_op(ops.elementwise.add_scalar, x1 - x2, other=eps)
    return _vector_norm(shifted, p, -1 if ndim else None, keepdim, None, legacy=True)


@torch_api(COMPOSITE, method=False, function=False)
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(q k^T * scale + mask) v`` over the last two dims (batch dims broadcast):
    ``scale`` defaults to ``1 / sqrt(E)``; a boolean ``attn_mask`` keeps where True, a float
    one is added; ``is_causal`` masks the upper triangle; ``dropout_p`` drops attention
    weights. PyTorch's math reference, recorded as its ops (PyTorch's CPU kernel records one
    fused node instead).

    >>> q = symgrad.ones(1, 2, 4)
    >>> F.scaled_dot_product_attention(q, q, symgrad.arange(8.0).reshape(1, 2, 4))
    tensor([[[2., 3., 4., 5.],
             [2., 3., 4., 5.]]])
    """
    for i, (arg, x) in enumerate((("query", query), ("key", key), ("value", value))):
        _tensor(x, "scaled_dot_product_attention", arg, i + 1)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        repeat = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(repeat, -3)
        value = value.repeat_interleave(repeat, -3)
    length, source = query.shape[-2], key.shape[-2]
    factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    weights = (query @ key.transpose(-2, -1)) * factor
    if is_causal:
        keep = np.tril(np.ones((length, source), dtype=bool))
        weights = weights.masked_fill(_make(~keep), -math.inf)
    if attn_mask is not None:
        if attn_mask.dtype.is_floating_point:
            weights = weights + attn_mask
        else:
            weights = weights.masked_fill(_make(~attn_mask._value.astype(bool)), -math.inf)
    weights = weights.softmax(-1)
    if dropout_p > 0:
        weights = dropout(weights, dropout_p)
    return weights @ value


# ---------------------------------------------------------------------------- more layers
@torch_api(COMPOSITE, method=False, function=False)  # (symgrad.instance_norm: nn.toplevel)
def instance_norm(input: Tensor, running_mean: Tensor | None = None,  # noqa: A002
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalize each (sample, channel) over its spatial positions, as PyTorch: a batch norm
    of the input viewed as (1, N * C, *spatial); the running statistics, when given, are
    updated with the mean over the batch of the per-sample ones.

    >>> F.instance_norm(symgrad.tensor([[[1.0, 3.0], [0.0, 2.0]]]))
    tensor([[[-1.0000,  1.0000],
             [-1.0000,  1.0000]]])
    """
    _tensor(input, "instance_norm")
    if use_input_stats and math.prod(input.shape[2:]) <= 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         f"{input.shape!r}")
    n, c = input.shape[0], input.shape[1]
    for name, value in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                        ("running_var", running_var)):
        _channel_param(name, None if value is None else value.repeat(n), n * c)
    repeat = (lambda v: None if v is None else v.repeat(n))
    mean, var = repeat(running_mean), repeat(running_var)
    out = batch_norm(input.reshape(1, n * c, *input.shape[2:]), mean, var, repeat(weight),
                     repeat(bias), use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            for given, repeated in ((running_mean, mean), (running_var, var)):
                if given is not None:
                    given.copy_(repeated.view(n, c).mean(0))
    return out.view(*input.shape)


@torch_api(COMPOSITE, method=False)
def rms_norm(input: Tensor, normalized_shape: Sequence[int] | int,  # noqa: A002
             weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """``input / sqrt(mean(input²) + eps) * weight`` over the last ``len(normalized_shape)``
    dims; ``eps`` defaults to the dtype's machine epsilon, as PyTorch.

    >>> F.rms_norm(symgrad.tensor([[3.0, 4.0]]), (2,))
    tensor([[0.8485, 1.1314]])
    """
    _tensor(input, "rms_norm")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    k = len(shape)
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={_size(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size"
                           f"{_size(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {_size(weight.shape)} and normalized_shape = "
                           f"{_size(shape)}")
    if eps is None:
        eps = float(np.finfo(input._value.dtype).eps)
    dims = tuple(range(input.ndim - k, input.ndim))
    out = input * (input.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


@torch_api(COMPOSITE, method=False, function=False)
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4,  # noqa: A002
                        beta: float = 0.75, k: float = 1.0) -> Tensor:
    """Divide each element by ``(k + alpha * mean of the squares of ``size`` neighbouring
    channels)^beta``, PyTorch's composite (average pooling over the channel dim).

    >>> F.local_response_norm(symgrad.ones(1, 2, 1), 2, alpha=1.0)
    tensor([[[0.7378],
             [0.5946]]])
    """
    _tensor(input, "local_response_norm")
    dim = input.ndim
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input * input
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = tuple(input.shape)
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(*sizes)
    div = (div * alpha + k).pow(beta)
    return input / div


@torch_api(COMPOSITE, example=lambda x: x.prelu(x.new_tensor([0.25])))
def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    """``input`` where positive, ``weight * input`` elsewhere; ``weight`` has one slope or
    one per channel (dim 1).

    >>> F.prelu(symgrad.tensor([-2.0, 3.0]), symgrad.tensor([0.25]))
    tensor([-0.5000,  3.0000])
    """
    _tensor(input, "prelu")
    running = parser.spelling_running(1)
    _tensor(weight, "prelu", "weight", 1 if running is not None and running[1] else 2)
    # (PyTorch's order of checks: the dtypes, the slope count, weight's ndim, the kernel)
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype._torch_name} "
                           f"and {weight.dtype._torch_name}")
    count = weight.numel()
    channels = input.shape[1] if input.ndim >= 2 else (input.shape[0] if input.ndim else 1)
    if count not in (1, channels):
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {count} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    if not input.is_floating_point():
        raise dtypes.not_implemented("prelu_cpu", input.dtype)
    if count == 1:
        weight = weight.reshape(())  # one slope: the output keeps the input's shape
    elif input.ndim >= 2:
        weight = weight.reshape(-1, *([1] * (input.ndim - 2)))
    return input.where(input > 0, weight * input)


@torch_api(COMPOSITE, method=False)
def pdist(input: Tensor, p: float = 2) -> Tensor:  # noqa: A002
    """The ``p``-norm distances between the rows of an (N, M) input, for each pair i < j in
    row-major order (N (N - 1) / 2 values); the gradient at a zero distance is 0.

    >>> F.pdist(symgrad.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
    tensor([5.0000, 1.0000, 4.2426])
    """
    _tensor(input, "pdist")
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if input.dtype is dtypes.float16:
        raise dtypes.not_implemented("pdist", input.dtype)
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows, cols = np.triu_indices(input.shape[0], 1)
    diff = input[_make(rows.astype(np.int64))] - input[_make(cols.astype(np.int64))]
    return diff.norm(p, 1)


@torch_api(COMPOSITE, method=False, function=False)
def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    Gumbel noise ``g`` from numpy's stream; ``hard`` returns the one-hot argmax with the soft
    sample's gradient (straight-through).

    >>> y = F.gumbel_softmax(symgrad.zeros(2, 3), hard=True)
    >>> y.sum(-1)
    tensor([1., 1.])
    """
    _tensor(logits, "gumbel_softmax", "logits")
    noise = -np.log(creation._rng.exponential(size=tuple(logits.shape)))
    gumbels = (logits + _make(noise.astype(logits._value.dtype))) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def _bags(input: Tensor, offsets: Tensor | None, per_sample_weights: Tensor | None,  # noqa: A002
          include_last_offset: bool) -> tuple[np.ndarray, np.ndarray, Tensor | None]:
    """The flat indices and each bag's (start, end), PyTorch's checks in its order."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape!r}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape!r})")
    index = input._value
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {type(offsets)}")
        starts = np.arange(0, index.size, max(index.shape[1], 1))
        ends = starts + index.shape[1]
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        return index.reshape(-1), np.stack([starts, ends], 1), per_sample_weights
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    starts = offsets._value.astype(np.int64)
    if include_last_offset:
        bounds = np.stack([starts[:-1], starts[1:]], 1)
    else:
        bounds = np.stack([starts, np.append(starts[1:], index.size)], 1)
    return index, bounds, per_sample_weights


@torch_api(COMPOSITE, method=False)
def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,  # noqa: A002
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """The sum, mean or max of the embeddings of each bag of indices: the rows of a (B, n)
    ``input``, or the slices of a 1-d ``input`` that ``offsets`` start; entries equal to
    ``padding_idx`` are left out and an empty bag gives zeros. ``per_sample_weights`` scales
    each embedding (mode 'sum').

    >>> w = symgrad.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])
    >>> F.embedding_bag(symgrad.tensor([0, 1, 2]), w, symgrad.tensor([0, 2]), mode="sum")
    tensor([[1., 2.],
            [3., 3.]])
    """
    _tensor(input, "embedding_bag")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.ndim}")
    index, bounds, per_sample_weights = _bags(input, offsets, per_sample_weights,
                                              include_last_offset)
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("symgrad's embedding_bag supports neither "
                                  "scale_grad_by_freq nor sparse")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    rows = weight.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise AssertionError("padding_idx must be within the number of embeddings")
        padding_idx %= rows
    keep = np.ones(index.shape, bool) if padding_idx is None else index != padding_idx
    # max_norm: the looked-up rows of weight renormalised in place first, as PyTorch
    vectors = embedding(_make(index.astype(np.int64)), weight, max_norm=max_norm,
                        norm_type=norm_type)
    if per_sample_weights is not None:
        vectors = vectors * per_sample_weights.unsqueeze(1)
    if mode == "max":
        pieces = []
        for start, end in bounds:
            kept = np.nonzero(keep[start:end])[0] + start
            pieces.append(vectors[_make(kept.astype(np.int64))].max(0)[0] if kept.size
                          else weight.new_zeros((weight.shape[1],)))
        return stack(pieces) if pieces else weight.new_zeros((0, weight.shape[1]))
    # sum and mean: one constant (bags, n) matrix times the embeddings
    member = np.zeros((len(bounds), index.size), dtype=weight._value.dtype)
    for b, (start, end) in enumerate(bounds):
        member[b, start:end] = keep[start:end]
    if mode == "mean":
        member /= np.maximum(member.sum(1, keepdims=True), 1)
    return _make(member).matmul(vectors)


# ---------------------------------------------------------------------------- spatial transformers
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


def _base_coordinates(steps: int, align_corners: bool, dtype: np.dtype) -> np.ndarray:
    """PyTorch's ``linspace_from_neg_one``: the normalised pixel coordinates of one axis."""
    if steps <= 1:
        return np.zeros(1, dtype)
    grid = np.linspace(-1, 1, steps, dtype=dtype)
    return grid if align_corners else grid * dtype.type((steps - 1) / steps)


@torch_api(COMPOSITE, method=False, function=False)
def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid of a batch of affine maps ``theta`` (N, 2, 3) for an output of
    ``size`` (N, C, H, W) (or (N, 3, 4) for (N, C, D, H, W)): each output pixel's normalised
    coordinates mapped by theta, (N, H, W, 2), for :func:`grid_sample`.

    >>> F.affine_grid(symgrad.tensor([[[1.0, 0, 0], [0, 1, 0]]]), (1, 1, 2, 2),
    ...               align_corners=True)
    tensor([[[[-1., -1.],
              [ 1., -1.]],
    <BLANKLINE>
             [[-1.,  1.],
              [ 1.,  1.]]]])
    """
    _tensor(theta, "affine_grid", "theta")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape!r}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape!r}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      UserWarning, stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    dtype = theta._value.dtype
    axes = [_base_coordinates(n, align_corners, dtype) for n in reversed(spatial)]  # x, y, (z)
    mesh = np.meshgrid(*reversed(axes), indexing="ij")  # (z,) y, x over (D,) H, W
    base = np.stack([*reversed(mesh), np.ones(spatial, dtype)], -1)  # x, y, (z), 1
    rows = base.reshape(1, -1, len(spatial) + 1)
    grid = _make(rows).matmul(theta.transpose(1, 2))
    return grid.view(size[0], *spatial, len(spatial))


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


@torch_api(COMPOSITE, method=False, function=False)
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",  # noqa: A002
                padding_mode: str = "zeros", align_corners: bool | None = None) -> Tensor:
    """Sample a (N, C, H, W) ``input`` at the normalised (x, y) locations of ``grid`` (N, Ho,
    Wo, 2), -1 and 1 being the edges (pixel centres with ``align_corners``): bilinear or
    nearest, and 0 (``'zeros'``) or the edge value (``'border'``) outside. Differentiable in
    both ``input`` and (bilinear) ``grid``, PyTorch's composite arithmetic.

    >>> image = symgrad.arange(4.0).reshape(1, 1, 2, 2)
    >>> F.grid_sample(image, symgrad.zeros(1, 1, 1, 2), align_corners=False)
    tensor([[[[1.5000]]]])
    """
    _tensor(input, "grid_sample")
    _tensor(grid, "grid_sample", "grid", 2)
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if mode == "bicubic" or padding_mode == "reflection" or input.ndim != 4:
        raise NotImplementedError("symgrad's grid_sample supports 4-D input with modes "
                                  "'bilinear' and 'nearest' and padding 'zeros' and 'border'")
    if grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid to have size 2 in last dimension and "
                           f"the same batch size as input, but got input with sizes "
                           f"{_size(input.shape)} and grid with sizes {_size(grid.shape)}")
    n, _, height, width = input.shape
    ix = _unnormalize(grid[..., 0], width, align_corners)
    iy = _unnormalize(grid[..., 1], height, align_corners)
    if padding_mode == "border":  # clipped, the gradient 0 at and beyond the edges
        ix = ix.where((ix > 0) & (ix < width - 1), ix.detach().clamp(0, width - 1))
        iy = iy.where((iy > 0) & (iy < height - 1), iy.detach().clamp(0, height - 1))
    pixels = input.permute(0, 2, 3, 1)  # (N, H, W, C)
    batch = np.arange(n).reshape(-1, 1, 1)
    if mode == "nearest":
        xs = np.rint(ix._value).astype(np.int64)
        ys = np.rint(iy._value).astype(np.int64)
        corners = [(xs, ys, None)]
    else:
        x0 = np.floor(ix._value)
        y0 = np.floor(iy._value)
        tx, ty = ix - _make(x0), iy - _make(y0)
        x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
        corners = [(x0, y0, (1 - tx) * (1 - ty)), (x0 + 1, y0, tx * (1 - ty)),
                   (x0, y0 + 1, (1 - tx) * ty), (x0 + 1, y0 + 1, tx * ty)]
    out = None
    for xs, ys, weight in corners:
        inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
        key = (_make(np.broadcast_to(batch, xs.shape).copy()),
               _make(np.clip(ys, 0, height - 1)), _make(np.clip(xs, 0, width - 1)))
        values = pixels[key] * _make(inside[..., None].astype(input._value.dtype))
        term = values if weight is None else values * weight.unsqueeze(-1)
        out = term if out is None else out + term
    return out.permute(0, 3, 1, 2)
