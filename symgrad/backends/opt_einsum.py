"""``symgrad.backends.opt_einsum``: opt_einsum (einsum's contraction order), which symgrad
does not use (numpy computes)."""


def is_available() -> bool:
    """False: symgrad computes without it.

    >>> symgrad.backends.opt_einsum.is_available()
    False
    """
    return False


enabled = False
strategy = None
