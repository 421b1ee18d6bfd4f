"""PyTorch spellings of softmax, log_softmax (see ``symgrad.methods``)."""

from __future__ import annotations

from symgrad import ops  # noqa: F401
from symgrad.dispatch import apply_op  # noqa: F401
from symgrad.methods import COMPOSITE, NO_GRAPH, torch_api  # noqa: F401
from symgrad.tensor import Tensor  # noqa: F401
