"""The symbolic interpretation: recorded graphs lowered to sympy (see docs/architecture.md).

``lower`` replays a graph on sympy expressions; ``grad``, ``jacobian`` and ``hessian`` take
sympy's derivatives of it node by node; ``check`` compares them with the numeric backward.
``import symgrad`` loads this package but not sympy: the names below load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:  # what __getattr__ below loads on first use, for type checkers
    # ruff: noqa: F401
    from symgrad.symbolic.calculus import grad, hessian, jacobian
    from symgrad.symbolic.codegen import CompiledGradient, compile
    from symgrad.symbolic.crosscheck import CheckReport, GradientMismatch, Kink, check
    from symgrad.symbolic.explanation import Explanation, explain
    from symgrad.symbolic.lowering import Lowered, lower
    from symgrad.symbolic.printing import Formula
    from symgrad.symbolic.second_order import HessianMismatch, HessianReport, check_hessian


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'symgrad.symbolic' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
