"""``symgrad.nn``: PyTorch's ``torch.nn`` — ``Parameter``, ``Module`` and the layers,
``functional``, ``init`` and ``utils``."""

from symgrad.nn import functional, init, utils
from symgrad.nn.modules import *  # noqa: F403 - the layers, as torch.nn exports them
from symgrad.nn.modules import __all__ as _layers
from symgrad.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter", "functional",
           "init", "utils", *_layers]
