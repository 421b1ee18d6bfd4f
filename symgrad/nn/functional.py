"""``symgrad.nn.functional`` (``import symgrad.nn.functional as F``): activations, softmax,
padding, convolution, pooling, normalization and losses, with PyTorch's signatures.

Activations shared with ``symgrad.<name>`` are defined once in ``symgrad.torch_api`` and imported
here; the losses live in ``symgrad.nn.losses``.
"""

from __future__ import annotations

from symgrad.nn.losses import (  # noqa: F401 - the losses
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
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
