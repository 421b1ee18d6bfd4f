"""``symgrad.cuda``: symgrad runs on the CPU only, so CUDA is never available.

Scripts written for PyTorch commonly ask ``torch.cuda.is_available()`` before choosing a
device; here the answer is always False (and asking for a CUDA device raises PyTorch's error).
"""

from __future__ import annotations


def is_available() -> bool:
    """False: symgrad has no CUDA support.

    >>> symgrad.cuda.is_available()
    False
    """
    return False


def device_count() -> int:
    """0: no CUDA devices.

    >>> symgrad.cuda.device_count()
    0
    """
    return 0
