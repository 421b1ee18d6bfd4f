"""``symgrad.backends.mps``: Apple's Metal (MPS), which symgrad does not use (numpy computes)."""


def is_available() -> bool:
    """False: symgrad computes without it.

    >>> symgrad.backends.mps.is_available()
    False
    """
    return False


def is_built() -> bool:
    """False: symgrad is not built with MPS.

    >>> symgrad.backends.mps.is_built()
    False
    """
    return False
