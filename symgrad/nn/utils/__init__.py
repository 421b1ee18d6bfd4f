"""``symgrad.nn.utils``: PyTorch's ``torch.nn.utils`` — gradient clipping, the
parameters/vector conversions and the sequence helpers of ``rnn``."""

from symgrad.nn.utils import rnn
from symgrad.nn.utils.clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from symgrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "rnn", "vector_to_parameters"]
