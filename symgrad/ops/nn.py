"""Neural-network ops: activations, softmax family and losses."""

from __future__ import annotations

from symgrad.ops import Op, Sample, register  # noqa: F401
