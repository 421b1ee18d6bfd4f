"""PyTorch's spellings of the registered ops: ``x.tan()``, ``symgrad.tan(x)``, ``F.gelu(x)``,
``x + y``, ``x.add_(y)``, ``x[key]``.

Every spelling that records an op (method, ``symgrad`` function, ``nn.functional`` name,
operator, in-place variant) is declared once, in a family module of this package, as a plain
function with PyTorch's signature and argument checks, decorated with :func:`torch_api`. The
decorator installs it as a Tensor method and/or a ``symgrad.<name>`` function (``symgrad``
exports :data:`FUNCTIONS`, ``tensor.py`` defines no such method) and notes which registered op
it records, which the registry test reads to check every public method. The ops themselves
(forward and VJP rules) are in ``symgrad.ops``; ``tensor.py`` keeps the Tensor's state.

The family modules are imported on first use of one of their spellings (``lazy.py``), not by
``import symgrad``; reading :data:`METHODS` or :data:`FUNCTIONS` from this package imports them
all first, so that both are complete.
"""

from __future__ import annotations

from typing import Any

from symgrad.torch_api import lazy
from symgrad.torch_api.declaration import (  # noqa: F401 - the declaration API
    COMPOSITE,
    NO_GRAPH,
    load,
    torch_api,
)
from symgrad.torch_api.lazy import load_all  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in ("METHODS", "FUNCTIONS"):
        lazy.load_all()
        from symgrad.torch_api import declaration

        return getattr(declaration, name)
    if f"{lazy.PACKAGE}.{name}" in lazy.FAMILIES:
        return load(f"{lazy.PACKAGE}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
