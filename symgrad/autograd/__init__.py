"""Reverse-mode automatic differentiation: the graph, the engine and its public functions.

``backward``, ``grad``, ``Variable``, ``Function``, ``functional``, ``gradcheck`` and
``gradgradcheck`` load on first use: they need the Tensor class, which itself imports this
package's grad-mode and graph modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from symgrad.autograd.anomaly import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from symgrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from symgrad.autograd.graph import AccumulateGrad, Node, RemovableHandle

if TYPE_CHECKING:  # what __getattr__ below loads on first use, for type checkers
    from symgrad.autograd import functional
    from symgrad.autograd.api import backward, grad
    from symgrad.autograd.function import Function
    from symgrad.autograd.gradcheck import gradcheck, gradgradcheck
    from symgrad.autograd.variable import Variable

__all__ = [
    "AccumulateGrad",
    "Function",
    "Node",
    "RemovableHandle",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
]


def __getattr__(name: str) -> Any:
    if name in ("backward", "grad"):
        from symgrad.autograd import api

        return getattr(api, name)
    if name == "Variable":
        from symgrad.autograd.variable import Variable

        return Variable
    if name == "Function":
        from symgrad.autograd.function import Function

        return Function
    if name == "functional":
        return importlib.import_module("symgrad.autograd.functional")
    if name in ("gradcheck", "gradgradcheck"):
        # importing the submodule binds the package's ``gradcheck`` to it; rebind the names to
        # the functions, as PyTorch does (the module is callable too, for the other order)
        module = importlib.import_module("symgrad.autograd.gradcheck")
        globals().update(gradcheck=module.gradcheck, gradgradcheck=module.gradgradcheck)
        return globals()[name]
    raise AttributeError(f"module 'symgrad.autograd' has no attribute {name!r}")
