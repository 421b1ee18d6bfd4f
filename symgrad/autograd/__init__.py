"""Reverse-mode automatic differentiation: the graph, the engine and its public functions.

``backward``, ``grad`` and ``Variable`` load on first use: they need the Tensor class, which
itself imports this package's grad-mode and graph modules.
"""

from __future__ import annotations

from typing import Any

from symgrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from symgrad.autograd.graph import AccumulateGrad, Node, RemovableHandle

__all__ = [
    "AccumulateGrad",
    "Node",
    "RemovableHandle",
    "Variable",
    "backward",
    "enable_grad",
    "grad",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]


def __getattr__(name: str) -> Any:
    if name in ("backward", "grad"):
        from symgrad.autograd import api

        return getattr(api, name)
    if name == "Variable":
        from symgrad.autograd.variable import Variable

        return Variable
    raise AttributeError(f"module 'symgrad.autograd' has no attribute {name!r}")
