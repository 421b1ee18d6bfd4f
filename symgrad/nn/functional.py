"""``symgrad.nn.functional`` (``import symgrad.nn.functional as F``): activations, softmax,
padding, convolution, pooling, normalization and losses, with PyTorch's signatures.

Activations shared with ``symgrad.<name>`` are defined once in ``symgrad.torch_api`` and imported
here; the losses live in ``symgrad.nn.losses``.
"""

from __future__ import annotations

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
    multilabel_soft_margin_loss,
    nll_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
)
from symgrad.numeric.dtypes import dtype as _dtype
from symgrad.tensor import Tensor as _Tensor
from symgrad.torch_api.conv import (  # noqa: F401 - convolution and pooling
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    fold,
    interpolate,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    pixel_shuffle,
    pixel_unshuffle,
    unfold,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
from symgrad.torch_api.fused import addmm as _addmm
from symgrad.torch_api.nn import (  # noqa: F401 - activations, normalization, dropout, ...
    alpha_dropout,
    batch_norm,
    celu,
    cosine_similarity,
    dropout,
    dropout1d,
    dropout2d,
    embedding,
    group_norm,
    hardsigmoid,
    hardswish,
    layer_norm,
    logsigmoid,
    mish,
    normalize,
    one_hot,
    pairwise_distance,
    scaled_dot_product_attention,
    selu,
    softsign,
    tanhshrink,
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
    out = _einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


def threshold(input: _Tensor, threshold: float, value: float,  # noqa: A002
              inplace: bool = False) -> _Tensor:
    """``input`` where it is greater than ``threshold``, else ``value`` (gradient 0 there).

    >>> F.threshold(symgrad.tensor([-1.0, 0.5, 2.0]), 0.5, 20.0)
    tensor([20., 20.,  2.])
    """
    out = input.where(input > threshold, value)
    return input.copy_(out) if inplace else out


def hardshrink(input: _Tensor, lambd: float = 0.5) -> _Tensor:  # noqa: A002
    """``input`` where ``|input| > lambd``, else 0.

    >>> F.hardshrink(symgrad.tensor([-1.0, 0.25, 2.0]))
    tensor([-1.,  0.,  2.])
    """
    return input.where(input.abs() > lambd, 0.0)


def softshrink(input: _Tensor, lambd: float = 0.5) -> _Tensor:  # noqa: A002
    """``input`` moved ``lambd`` towards 0, and 0 within ``[-lambd, lambd]``.

    >>> F.softshrink(symgrad.tensor([-1.0, 0.25, 2.0]))
    tensor([-0.5000,  0.0000,  1.5000])
    """
    inner = (input + lambd).where(input < -lambd, 0.0)
    return (input - lambd).where(input > lambd, inner)


def glu(input: _Tensor, dim: int = -1) -> _Tensor:  # noqa: A002
    """Gated linear unit: the first half of ``input`` along ``dim`` times the sigmoid of the
    second half.

    >>> F.glu(symgrad.tensor([[-1.0, 0.25, 0.5, 2.0]]))
    tensor([[-0.6225,  0.2202]])
    """
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension "
                           f"{dim % input.ndim} is size {size}")
    first, second = input.chunk(2, dim)
    return first * second.sigmoid()
