"""Shared by the test modules whose cases were recorded from PyTorch (their data files are
written by ``tools/record_torch_cases.py``)."""

from __future__ import annotations


def first_sentence(error: BaseException) -> list[str]:
    """The error's type and its message's first sentence (the library's name read as torch's:
    ``[torch.FloatTensor [2, 3]]``)."""
    text = str(error).strip().split("\n")[0].replace("symgrad.", "torch.")
    return [type(error).__name__, text.split(". ")[0].rstrip(".")]
