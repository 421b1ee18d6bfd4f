"""Parameters of a signature with the ``/`` and ``*`` separators Python writes between them,
shared by the API reference (tools/docs_reference.py) and the stub generator
(tools/generate_tensor_stub.py)."""

from __future__ import annotations

import inspect
from collections.abc import Iterable


def with_separators(params: Iterable[inspect.Parameter]) -> list[inspect.Parameter | str]:
    """``params`` in order, with ``"/"`` after the last positional-only one and ``"*"`` before
    the first keyword-only one that does not follow ``*args``."""
    items: list[inspect.Parameter | str] = []
    previous = None
    for p in params:
        if previous is p.POSITIONAL_ONLY and p.kind is not p.POSITIONAL_ONLY:
            items.append("/")
        if p.kind is p.KEYWORD_ONLY and previous not in (p.KEYWORD_ONLY, p.VAR_POSITIONAL):
            items.append("*")
        items.append(p)
        previous = p.kind
    if previous is inspect.Parameter.POSITIONAL_ONLY:
        items.append("/")
    return items
