"""The ``torch.<name>`` forms of functions symgrad has in ``nn.functional``: ``symgrad.kl_div``,
``symgrad.layer_norm``, ``symgrad.embedding`` ...

PyTorch's top-level forms are its ATen functions, whose arguments differ from ``F``'s: the
reduction is an int (0 ``'none'``, 1 ``'mean'``, 2 ``'sum'``; as PyTorch's Python binding reads
them, left out it means no reduction), ``batch_norm`` and ``instance_norm`` take the weight and
bias before the running statistics, ``embedding`` the weight before the indices, and the
normalizations take a ``cudnn_enabled`` flag that changes nothing; ``convolution`` takes every
argument. Each calls the ``F`` function, so the values, nodes and gradients are ``F``'s.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from symgrad import parser
from symgrad.nn import functional as F
from symgrad.tensor import Tensor

_REDUCTIONS = {1: "mean", 2: "sum"}


def _reduction(fn: str, reduction: Any, position: int) -> str:
    """PyTorch's int reduction as ``F``'s string (any other int: none, as PyTorch's kernels
    read it)."""
    if not parser._is_int(reduction):
        raise parser.wrong_type(fn, "reduction", "int", reduction, position)
    return _REDUCTIONS.get(int(reduction), "none")


def _tensors(fn: str, **named: Any) -> None:
    for position, (name, value) in enumerate(named.items(), 1):
        parser.tensor_arg(fn, name, value, position)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None,
                                     reduction: int = 0) -> Tensor:
    """``torch.binary_cross_entropy_with_logits``: :func:`F.binary_cross_entropy_with_logits
    <symgrad.nn.functional.binary_cross_entropy_with_logits>` with an int ``reduction``.

    >>> symgrad.binary_cross_entropy_with_logits(symgrad.zeros(2), symgrad.ones(2), reduction=2)
    tensor(1.3863)
    """
    _tensors("binary_cross_entropy_with_logits", input=input, target=target)
    how = _reduction("binary_cross_entropy_with_logits", reduction, 5)
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=how,
                                              pos_weight=pos_weight)


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *,  # noqa: A002
           log_target: bool = False) -> Tensor:
    """``torch.kl_div``: :func:`F.kl_div <symgrad.nn.functional.kl_div>` with an int
    ``reduction`` (1 is the plain mean, without F's warning about it).

    >>> symgrad.kl_div(symgrad.zeros(2), symgrad.ones(2), 2)
    tensor(0.)
    """
    _tensors("kl_div", input=input, target=target)
    how = _reduction("kl_div", reduction, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (F's about 'mean' vs 'batchmean')
        return F.kl_div(input, target, reduction=how, log_target=log_target)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor,
                          margin: float = 0.0, reduction: int = 0) -> Tensor:
    """``torch.cosine_embedding_loss``: :func:`F.cosine_embedding_loss
    <symgrad.nn.functional.cosine_embedding_loss>` with an int ``reduction``.

    >>> symgrad.cosine_embedding_loss(symgrad.ones(1, 2), symgrad.ones(1, 2), symgrad.ones(1))
    tensor([0.])
    """
    _tensors("cosine_embedding_loss", input1=input1, input2=input2, target=target)
    how = _reduction("cosine_embedding_loss", reduction, 5)
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=how)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,  # noqa: A002
                         reduction: int = 0) -> Tensor:
    """``torch.hinge_embedding_loss``: :func:`F.hinge_embedding_loss
    <symgrad.nn.functional.hinge_embedding_loss>` with an int ``reduction``.

    >>> symgrad.hinge_embedding_loss(symgrad.tensor([0.5]), symgrad.tensor([-1.0]))
    tensor([0.5000])
    """
    _tensors("hinge_embedding_loss", input=input, target=target)
    how = _reduction("hinge_embedding_loss", reduction, 4)
    return F.hinge_embedding_loss(input, target, margin, reduction=how)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor,
                        margin: float = 0.0, reduction: int = 0) -> Tensor:
    """``torch.margin_ranking_loss``: :func:`F.margin_ranking_loss
    <symgrad.nn.functional.margin_ranking_loss>` with an int ``reduction``.

    >>> symgrad.margin_ranking_loss(symgrad.tensor([1.0]), symgrad.tensor([2.0]),
    ...                             symgrad.tensor([1.0]))
    tensor([1.])
    """
    _tensors("margin_ranking_loss", input1=input1, input2=input2, target=target)
    how = _reduction("margin_ranking_loss", reduction, 5)
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=how)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, reduction: int = 0) -> Tensor:
    """``torch.triplet_margin_loss``: :func:`F.triplet_margin_loss
    <symgrad.nn.functional.triplet_margin_loss>` with an int ``reduction``.

    >>> symgrad.triplet_margin_loss(symgrad.zeros(1, 2), symgrad.zeros(1, 2), symgrad.ones(1, 2))
    tensor([0.])
    """
    _tensors("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    how = _reduction("triplet_margin_loss", reduction, 8)
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=how)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool,  # noqa: A002
                     eps: float, reduction: int) -> Tensor:
    """``torch.poisson_nll_loss``: :func:`F.poisson_nll_loss
    <symgrad.nn.functional.poisson_nll_loss>` with every argument given and an int
    ``reduction``.

    >>> symgrad.poisson_nll_loss(symgrad.zeros(2), symgrad.ones(2), True, False, 1e-8, 2)
    tensor(2.)
    """
    _tensors("poisson_nll_loss", input=input, target=target)
    how = _reduction("poisson_nll_loss", reduction, 6)
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=how)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    """``torch.ctc_loss``: :func:`F.ctc_loss <symgrad.nn.functional.ctc_loss>` with an int
    ``reduction``.

    >>> lp = symgrad.zeros(3, 1, 2).log_softmax(2)
    >>> symgrad.ctc_loss(lp, symgrad.tensor([[1]]), [3], [1])
    tensor([0.2877])
    """
    _tensors("ctc_loss", log_probs=log_probs, targets=targets)
    how = _reduction("ctc_loss", reduction, 6)
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, how,
                      zero_infinity)


def layer_norm(input: Tensor, normalized_shape: Sequence[int] | int,  # noqa: A002
               weight: Tensor | None = None, bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:
    """``torch.layer_norm``: :func:`F.layer_norm <symgrad.nn.functional.layer_norm>`
    (``cudnn_enable`` changes nothing).

    >>> symgrad.layer_norm(symgrad.tensor([1.0, 3.0]), [2])
    tensor([-1.0000,  1.0000])
    """
    parser.tensor_arg("layer_norm", "input", input)
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:
    """``torch.group_norm``: :func:`F.group_norm <symgrad.nn.functional.group_norm>`
    (``cudnn_enabled`` changes nothing).

    >>> symgrad.group_norm(symgrad.tensor([[[1.0], [3.0]]]), 1).flatten()
    tensor([-1.0000,  1.0000])
    """
    parser.tensor_arg("group_norm", "input", input)
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """``torch.batch_norm``: :func:`F.batch_norm <symgrad.nn.functional.batch_norm>` with
    PyTorch's order of arguments (weight and bias first), all of them given.

    >>> symgrad.batch_norm(symgrad.tensor([[1.0], [3.0]]), None, None, None, None, True,
    ...                    0.1, 1e-5, False).flatten()
    tensor([-1.0000,  1.0000])
    """
    parser.tensor_arg("batch_norm", "input", input)
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                        eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """``torch.instance_norm``: :func:`F.instance_norm <symgrad.nn.functional.instance_norm>`
    with PyTorch's order of arguments (weight and bias first), all of them given.

    >>> symgrad.instance_norm(symgrad.tensor([[[1.0, 3.0]]]), None, None, None, None, True,
    ...                       0.1, 1e-5, False)
    tensor([[[-1.0000,  1.0000]]])
    """
    parser.tensor_arg("instance_norm", "input", input)
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """``torch.embedding``: :func:`F.embedding <symgrad.nn.functional.embedding>` with the
    weight first; a ``padding_idx`` of -1 means none.

    >>> symgrad.embedding(symgrad.tensor([[1.0], [2.0]]), symgrad.tensor([1, 1]))
    tensor([[2.],
            [2.]])
    """
    _tensors("embedding", weight=weight, indices=indices)
    padding = None if padding_idx == -1 else padding_idx
    return F.embedding(indices, weight, padding, scale_grad_by_freq=scale_grad_by_freq,
                       sparse=sparse)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Tensor | None = None) -> Tensor:
    """``torch.bilinear``: :func:`F.bilinear <symgrad.nn.functional.bilinear>`.

    >>> symgrad.bilinear(symgrad.ones(1, 2), symgrad.ones(1, 2), symgrad.ones(1, 2, 2))
    tensor([[4.]])
    """
    _tensors("bilinear", input1=input1, input2=input2, weight=weight)
    return F.bilinear(input1, input2, weight, bias)


def constant_pad_nd(input: Tensor, pad: Sequence[int], value: float = 0) -> Tensor:  # noqa: A002
    """``torch.constant_pad_nd``: :func:`F.pad <symgrad.nn.functional.pad>` in
    ``'constant'`` mode (``ConstantPadNdBackward0``).

    >>> symgrad.constant_pad_nd(symgrad.ones(2), [1, 0], 5.0)
    tensor([5., 1., 1.])
    """
    parser.tensor_arg("constant_pad_nd", "input", input)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    return F.pad(input, pad, "constant", value)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (),  # noqa: A002
                            padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """``torch.max_pool1d_with_indices``: :func:`F.max_pool1d_with_indices
    <symgrad.nn.functional.max_pool1d_with_indices>` (an empty ``stride`` is the kernel size).

    >>> symgrad.max_pool1d_with_indices(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    (tensor([[3., 2.]]), tensor([[1, 2]]))
    """
    parser.tensor_arg("max_pool1d_with_indices", "input", input)
    if isinstance(stride, Sequence) and not len(stride):
        stride = None
    return F.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None,  # noqa: A002
                stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                transposed: bool, output_padding: Sequence[int], groups: int) -> Tensor:
    """``torch.convolution``: the batched 1-, 2- or 3-d convolution (or, ``transposed``, its
    transpose) that ``F.conv{n}d`` / ``F.conv_transpose{n}d`` compute, every argument given
    and the sizes as sequences (``ConvolutionBackward0``).

    >>> x = symgrad.ones(1, 1, 3)
    >>> symgrad.convolution(x, symgrad.ones(1, 1, 2), None, [1], [0], [1], False, [0], 1)
    tensor([[[2., 2.]]])
    """
    _tensors("convolution", input=input, weight=weight)
    for position, (name, value) in enumerate((("stride", stride), ("padding", padding),
                                              ("dilation", dilation)), 4):
        if not isinstance(value, Sequence):
            raise parser.wrong_type("convolution", name, "tuple of ints", value, position)
    if not isinstance(output_padding, Sequence):
        raise parser.wrong_type("convolution", "output_padding", "tuple of ints",
                                output_padding, 8)
    if input.ndim != weight.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    n = weight.ndim - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"symgrad.convolution: {n}-d convolutions are not implemented")

    def sized(value: Sequence[int], name: str) -> tuple[int, ...]:
        values = tuple(int(v) for v in value)
        if len(values) == 1:
            return values * n
        if len(values) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={list(values)}")
        return values

    steps, pads, dilations = sized(stride, "stride"), sized(padding, "padding"), \
        sized(dilation, "dilation")
    if transposed:
        run = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return run(input, weight, bias, steps, pads, sized(output_padding, "output_padding"),
                   groups, dilations)
    run = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    return run(input, weight, bias, steps, pads, dilations, groups)


NAMES = ("binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss",
         "hinge_embedding_loss", "margin_ranking_loss", "triplet_margin_loss",
         "poisson_nll_loss", "ctc_loss", "layer_norm", "group_norm", "batch_norm", "embedding",
         "bilinear", "constant_pad_nd", "convolution", "max_pool1d_with_indices",
         "instance_norm")
