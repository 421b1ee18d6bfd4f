"""The op registry: every differentiable op declared once, as data.

An :class:`Op` is a forward rule and one vector-Jacobian-product rule per input, both written
against an array namespace ``xp``: ``symgrad.numeric.numpy_namespace`` runs them on numpy,
``symgrad.autograd.tensor_namespace`` on Tensors (higher-order gradients) and
``symgrad.symbolic.sympy_namespace`` on sympy object arrays. Adding an op means adding one
record to one of the family modules below (``Op`` itself is defined in ``record.py``), plus its
samples, which the registry test picks up automatically.
"""

from __future__ import annotations

from symgrad.ops import conv, elementwise, linalg, nn, reduction, shape  # noqa: F401 - fill REGISTRY
from symgrad.ops.record import REGISTRY, Op, Sample, register  # noqa: F401 - the record types
