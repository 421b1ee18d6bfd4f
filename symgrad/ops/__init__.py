"""The op registry: every differentiable op declared once, as data.

An :class:`Op` is a forward rule and one vector-Jacobian-product rule per input, both written
against an array namespace ``xp``: ``symgrad.numeric.numpy_namespace`` runs them on numpy,
``symgrad.autograd.tensor_namespace`` on Tensors (higher-order gradients) and
``symgrad.symbolic.sympy_namespace`` on sympy object arrays. Adding an op means adding one
record to one of the family modules below (``Op`` itself is defined in ``record.py``), plus its
samples, which the registry test picks up automatically.

The family modules load on first use (``ops.elementwise``, as the PyTorch spellings that record
their ops do), not with ``import symgrad``; reading ``REGISTRY`` from this package loads them
all first, so that it is complete.
"""

from __future__ import annotations

import importlib
from typing import Any

from symgrad.ops.record import Op, Sample, register  # noqa: F401 - the record types

FAMILIES = ("symgrad.ops.conv", "symgrad.ops.elementwise", "symgrad.ops.linalg",
            "symgrad.ops.nn", "symgrad.ops.reduction", "symgrad.ops.shape")


def __getattr__(name: str) -> Any:
    if name == "REGISTRY":
        for family in FAMILIES:
            importlib.import_module(family)
        from symgrad.ops import record

        return record.REGISTRY
    if f"{__name__}.{name}" in FAMILIES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
