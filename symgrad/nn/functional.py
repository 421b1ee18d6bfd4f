"""``symgrad.nn.functional`` (``import symgrad.nn.functional as F``): activations, softmax,
padding, convolution, pooling, normalization and losses, with PyTorch's signatures.

Activations shared with ``symgrad.<name>`` are defined once in ``symgrad.torch_api`` and imported
here; the losses live in ``symgrad.nn.losses``.
"""

from __future__ import annotations

import math

import numpy as np

from symgrad import ops as _ops
from symgrad.creation import zeros as _zeros
from symgrad.dispatch import apply_op as _apply_op
from symgrad.nn.losses import (  # noqa: F401 - the losses
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    cross_entropy,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    nll_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from symgrad.numeric.dtypes import bool_ as _bool
from symgrad.numeric.dtypes import dtype as _dtype
from symgrad.numeric.dtypes import not_implemented as _not_implemented
from symgrad.tensor import Tensor as _Tensor
from symgrad.tensor import _dim
from symgrad.torch_api.arguments import check_ints as _check_ints
from symgrad.torch_api.composites import hardshrink  # noqa: F401 - also symgrad.hardshrink
from symgrad.torch_api.conv import (  # noqa: F401 - convolution and pooling
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    channel_shuffle,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    fold,
    interpolate,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
    pixel_shuffle,
    pixel_unshuffle,
    unfold,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
from symgrad.torch_api.fused import addmm as _addmm
from symgrad.torch_api.nn import (  # noqa: F401 - activations, normalization, dropout, ...
    affine_grid,
    alpha_dropout,
    batch_norm,
    celu,
    celu_,
    cosine_similarity,
    ctc_loss,
    dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    embedding,
    embedding_bag,
    feature_alpha_dropout,
    grid_sample,
    group_norm,
    gumbel_softmax,
    hardsigmoid,
    hardswish,
    instance_norm,
    layer_norm,
    local_response_norm,
    logsigmoid,
    mish,
    normalize,
    one_hot,
    pairwise_distance,
    pdist,
    prelu,
    rms_norm,
    rrelu,
    rrelu_,
    scaled_dot_product_attention,
    selu,
    selu_,
    softsign,
    tanhshrink,
    threshold,
    threshold_,
)
from symgrad.torch_api.pointwise import (  # noqa: F401 - the pointwise activations
    elu,
    elu_,
    gelu,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    relu,
    relu6,
    relu_,
    sigmoid,
    silu,
    softplus,
    tanh,
)
from symgrad.torch_api.shaping import cat as _cat
from symgrad.torch_api.shaping import einsum as _einsum
from symgrad.torch_api.shaping import pad  # noqa: F401 - constant padding
from symgrad.torch_api.softmax import implicit_dim as _implicit_dim


def softmax(input: _Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
            dtype: _dtype | None = None) -> _Tensor:
    """``input.softmax(dim, dtype)``; without ``dim``, PyTorch's deprecated implicit choice
    (0 for 0-, 1- and 3-d inputs, else 1) with its warning.

    >>> F.softmax(symgrad.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return input.softmax(dim, dtype)


def log_softmax(input: _Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
                dtype: _dtype | None = None) -> _Tensor:
    """``input.log_softmax(dim, dtype)``; ``dim`` may be omitted as in :func:`softmax`.

    >>> F.log_softmax(symgrad.tensor([0.0, 0.0]), dim=0)
    tensor([-0.6931, -0.6931])
    """
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return input.log_softmax(dim, dtype)


def softmin(input: _Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
            dtype: _dtype | None = None) -> _Tensor:
    """``softmax(-input)``: largest weight on the smallest entry.

    >>> F.softmin(symgrad.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim, _stacklevel)
    return (-input).softmax(dim, dtype)


def linear(input: _Tensor, weight: _Tensor, bias: _Tensor | None = None) -> _Tensor:  # noqa: A002
    """``input @ weight.T + bias``: the affine map of ``nn.Linear`` (weight is (out, in)).

    >>> F.linear(symgrad.tensor([[1.0, 2.0]]), symgrad.tensor([[1.0, 1.0]]), symgrad.tensor([0.5]))
    tensor([[3.5000]])
    """
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    if bias is None:
        return input.matmul(weight.t())
    # PyTorch's kernels, so the graph has PyTorch's nodes: addmm for a matrix, and for a
    # contiguous batch with a vector bias, addmm on its rows viewed as one matrix
    if input.ndim == 2:
        return _addmm(bias, input, weight.t())
    if bias.ndim == 1 and input._value.flags.c_contiguous:
        rows = input.view(-1, input.shape[-1])
        return _addmm(bias, rows, weight.t()).view(*input.shape[:-1], -1)
    return input.matmul(weight.t()) + bias


def bilinear(input1: _Tensor, input2: _Tensor, weight: _Tensor,
             bias: _Tensor | None = None) -> _Tensor:
    """``y_k = x1ᵀ A_k x2 + b_k`` over the last dimension of both inputs (weight is
    (out, in1, in2)), as ``nn.Bilinear`` computes it.

    >>> F.bilinear(symgrad.ones(1, 2), symgrad.ones(1, 3), symgrad.ones(1, 2, 3))
    tensor([[6.]])
    """
    if input1.ndim != input2.ndim:
        raise RuntimeError("bilinear(): input dimensions do not match: got "
                           f"{input1.ndim} and {input2.ndim}")
    for d, (n1, n2) in enumerate(zip(input1.shape[:-1], input2.shape[:-1], strict=True)):
        if n1 != n2:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: "
                               f"got {n1} and {n2}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    given = [(input1, "input1"), (input2, "input2"), (weight, "weight")] + (
        [(bias, "bias")] if bias is not None else [])
    if len({x.dtype for x, _ in given}) > 1:
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{name}: {x.dtype._cpp_name}" for x, name in given))
    out = _einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


def softshrink(input: _Tensor, lambd: float = 0.5) -> _Tensor:  # noqa: A002
    """``input`` moved ``lambd`` towards 0, and 0 within ``[-lambd, lambd]``.

    >>> F.softshrink(symgrad.tensor([-1.0, 0.25, 2.0]))
    tensor([-0.5000,  0.0000,  1.5000])
    """
    _check_ints(lambd)
    largest = float(np.finfo(input._value.dtype).max) if input.is_floating_point() else math.inf
    if not 0 <= lambd <= largest:  # (nan too)
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype "
                           f"{input.dtype._torch_name}, but found {lambd:g}")
    if not input.is_floating_point():
        raise _not_implemented("softshrink_check", input.dtype)
    return _apply_op(_ops.elementwise.softshrink, input, lambd=float(lambd))


def glu(input: _Tensor, dim: int = -1) -> _Tensor:  # noqa: A002
    """Gated linear unit: the first half of ``input`` along ``dim`` times the sigmoid of the
    second half.

    >>> F.glu(symgrad.tensor([[-1.0, 0.25, 0.5, 2.0]]))
    tensor([[-0.6225,  0.2202]])
    """
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not input.is_floating_point():
        raise _not_implemented("glu_cpu", input.dtype)
    d = _dim(dim, input.ndim)
    size = input.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    return _apply_op(_ops.nn.glu, input, dim=d)


def _canonical_mask(mask: _Tensor | None, mask_name: str, target_type: _dtype) -> _Tensor | None:
    """PyTorch's ``F._canonical_mask``: a boolean mask (True: masked out) as an additive float
    mask of ``target_type`` (``-inf`` where True); a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype != _bool and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if mask.dtype.is_floating_point:
        return mask
    return _zeros(tuple(mask.shape), dtype=target_type).masked_fill(mask, float("-inf"))


def _mha_shape_check(query: _Tensor, key: _Tensor, value: _Tensor,
                     key_padding_mask: _Tensor | None, attn_mask: _Tensor | None,
                     num_heads: int) -> bool:
    """PyTorch's checks of the inputs' dimensions; whether the query is batched."""
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.ndim}-D query tensor")
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be "
                             f"{query.ndim}-D but found {key.ndim}-D and {value.ndim}-D tensors "
                             f"respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{query.ndim - 1}-D but found {key_padding_mask.ndim}-D tensor "
                             f"instead")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.ndim}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return batched


def multi_head_attention_forward(  # noqa: C901 - PyTorch's reference, step for step
        query: _Tensor, key: _Tensor, value: _Tensor, embed_dim_to_check: int,
        num_heads: int, in_proj_weight: _Tensor | None, in_proj_bias: _Tensor | None,
        bias_k: _Tensor | None, bias_v: _Tensor | None, add_zero_attn: bool,
        dropout_p: float, out_proj_weight: _Tensor, out_proj_bias: _Tensor | None,
        training: bool = True, key_padding_mask: _Tensor | None = None,
        need_weights: bool = True, attn_mask: _Tensor | None = None,
        use_separate_proj_weight: bool = False, q_proj_weight: _Tensor | None = None,
        k_proj_weight: _Tensor | None = None, v_proj_weight: _Tensor | None = None,
        static_k: _Tensor | None = None, static_v: _Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple[_Tensor, _Tensor | None]:
    """Multi-head attention on time-major inputs ``(L, N, E)`` (or unbatched ``(L, E)``), as
    ``nn.MultiheadAttention`` runs it: project, split into heads, ``softmax(q kᵀ/√d + mask)
    v``, merge, project out. Boolean masks mark what is *masked out* (True), float masks are
    added. Returns ``(output, weights)``, the weights averaged over heads unless
    ``average_attn_weights=False``, ``None`` without ``need_weights``.

    >>> x = symgrad.ones(2, 1, 4)
    >>> w, b = symgrad.eye(4).repeat(3, 1), symgrad.zeros(12)
    >>> out, weights = F.multi_head_attention_forward(
    ...     x, x, x, 4, 2, w, b, None, None, False, 0.0, symgrad.eye(4), None)
    >>> out.shape, weights
    (symgrad.Size([2, 1, 4]), tensor([[[0.5000, 0.5000],
             [0.5000, 0.5000]]]))
    """
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q = linear(query, q_proj_weight, b_q)
        k = linear(key, k_proj_weight, b_k)
        v = linear(value, v_proj_weight, b_v)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape "
                                 f"{value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3)
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * num_heads, tgt_len, src_len)}.")
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k is set but bias_v is None" if bias_v is None
                             else "bias_v is set but bias_k is None")
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key.")
        k = _cat([k, bias_k.repeat(1, bsz, 1)])
        v = _cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
         if static_k is None else static_k)
    v = (v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
         if static_v is None else static_v)
    if add_zero_attn:
        k = _cat([k, _zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)], 1)
        v = _cat([v, _zeros((bsz * num_heads, 1, head_dim), dtype=v.dtype)], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        padding = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1) \
            .reshape(bsz * num_heads, 1, src_len)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = (q * math.sqrt(1.0 / float(q.shape[-1]))) @ k.transpose(-2, -1)
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = scores.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = (weights @ v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        attn_mask = (attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 and attn_mask.ndim == 3
                     else attn_mask.reshape(bsz, num_heads, -1, src_len))
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    return (out if batched else out.squeeze(1)), None
