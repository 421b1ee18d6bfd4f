"""Shared by the test modules whose cases were recorded from PyTorch (their data files are
written by ``tools/record_torch_cases.py``)."""

from __future__ import annotations


def first_sentence(error: BaseException) -> list[str]:
    """The error's type and its message's first sentence (the library's name read as torch's:
    ``[torch.FloatTensor [2, 3]]``)."""
    text = str(error).strip().split("\n")[0].replace("symgrad.", "torch.")
    return [type(error).__name__, text.split(". ")[0].rstrip(".")]


def leaves_of(out) -> list:
    """The distinct leaves ``out``'s graph reaches (its ``AccumulateGrad`` nodes' variables), in
    the order a depth-first walk from ``out.grad_fn`` finds them."""
    found, stack = [], [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if hasattr(node, "variable"):
            if not any(node.variable is f for f in found):
                found.append(node.variable)
            continue
        stack.extend(f for f, _ in reversed(node.next_functions))
    return found
