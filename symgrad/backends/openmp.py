"""``symgrad.backends.openmp``: OpenMP, which symgrad does not use (numpy computes)."""


def is_available() -> bool:
    """False: symgrad computes without it.

    >>> symgrad.backends.openmp.is_available()
    False
    """
    return False

