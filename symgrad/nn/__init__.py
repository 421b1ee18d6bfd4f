"""``symgrad.nn``: the functional interface of PyTorch's ``torch.nn``."""

from symgrad.nn import functional

__all__ = ["functional"]
