"""``symgrad.backends.mkldnn``: oneDNN (MKL-DNN), which symgrad does not use (numpy computes)."""


def is_available() -> bool:
    """False: symgrad computes without it.

    >>> symgrad.backends.mkldnn.is_available()
    False
    """
    return False


enabled = True
