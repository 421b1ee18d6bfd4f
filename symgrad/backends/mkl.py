"""``symgrad.backends.mkl``: Intel's MKL, which symgrad does not use (numpy computes)."""


def is_available() -> bool:
    """False: symgrad computes without it.

    >>> symgrad.backends.mkl.is_available()
    False
    """
    return False

