"""``symgrad.backends.cudnn``: cuDNN's switches, with PyTorch's defaults (symgrad has no cuDNN;
setting them changes nothing it computes)."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = None


def is_available() -> bool:
    """False: symgrad computes without cuDNN.

    >>> symgrad.backends.cudnn.is_available()
    False
    """
    return False


def version() -> None:
    """None: no cuDNN is loaded.

    >>> symgrad.backends.cudnn.version() is None
    True
    """
    return None
