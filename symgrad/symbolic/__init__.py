"""The symbolic interpretation: recorded graphs lowered to sympy (see docs/architecture.md).

``lower`` replays a graph on sympy expressions; ``grad``, ``jacobian`` and ``hessian`` take
sympy's derivatives of it node by node; ``check`` compares them with the numeric backward.
``import symgrad`` loads this package but not sympy: the names below load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "lower": "symgrad.symbolic.lowering",
    "Lowered": "symgrad.symbolic.lowering",
    "grad": "symgrad.symbolic.calculus",
    "jacobian": "symgrad.symbolic.calculus",
    "hessian": "symgrad.symbolic.calculus",
    "check": "symgrad.symbolic.crosscheck",
    "CheckReport": "symgrad.symbolic.crosscheck",
    "GradientMismatch": "symgrad.symbolic.crosscheck",
    "Kink": "symgrad.symbolic.crosscheck",
    "Formula": "symgrad.symbolic.printing",
    "compile": "symgrad.symbolic.codegen",
    "CompiledGradient": "symgrad.symbolic.codegen",
    "explain": "symgrad.symbolic.explanation",
    "Explanation": "symgrad.symbolic.explanation",
    "check_hessian": "symgrad.symbolic.second_order",
    "HessianReport": "symgrad.symbolic.second_order",
    "HessianMismatch": "symgrad.symbolic.second_order",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'symgrad.symbolic' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
