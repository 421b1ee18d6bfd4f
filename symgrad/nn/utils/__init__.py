"""``symgrad.nn.utils``: helpers around the layers, as ``torch.nn.utils``."""

from symgrad.nn.utils import rnn

__all__ = ["rnn"]
