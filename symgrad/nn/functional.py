"""``symgrad.nn.functional`` (``import symgrad.nn.functional as F``): activations, softmax,
padding and losses, with PyTorch's signatures.

Activations shared with ``symgrad.<name>`` are defined once in ``symgrad.methods`` and imported
here; the losses live in ``symgrad.nn.losses``.
"""

from __future__ import annotations
