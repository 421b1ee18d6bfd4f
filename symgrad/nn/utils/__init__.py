"""``symgrad.nn.utils``: PyTorch's ``torch.nn.utils`` — gradient clipping, the
parameters/vector conversions, the sequence helpers of ``rnn``, parametrizations
(``parametrize``, ``parametrizations``), the hook-based ``weight_norm`` and
``spectral_norm``, the folding of batch norms into the layer before (``fusion``) and the deprecated
``stateless.functional_call``."""

from symgrad.nn.utils import fusion, parametrizations, parametrize, rnn, stateless
from symgrad.nn.utils.clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from symgrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from symgrad.nn.utils.fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from symgrad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from symgrad.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "fusion", "get_total_norm", "parameters_to_vector",
           "parametrizations", "parametrize", "remove_spectral_norm", "remove_weight_norm",
           "rnn", "spectral_norm", "stateless", "vector_to_parameters", "weight_norm"]
