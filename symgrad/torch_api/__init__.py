"""PyTorch's spellings of the registered ops: ``x.tan()``, ``symgrad.tan(x)``, ``F.gelu(x)``,
``x + y``, ``x.add_(y)``, ``x[key]``.

Every spelling that records an op (method, ``symgrad`` function, ``nn.functional`` name,
operator, in-place variant) is declared once, in a family module of this package, as a plain
function with PyTorch's signature and argument checks, decorated with :func:`torch_api`. The
decorator installs it as a Tensor method and/or a ``symgrad.<name>`` function (``symgrad``
exports :data:`FUNCTIONS`, ``tensor.py`` defines no such method) and notes which registered op
it records, which the registry test reads to check every public method. The ops themselves
(forward and VJP rules) are in ``symgrad.ops``; ``tensor.py`` keeps the Tensor's state.
"""

from __future__ import annotations

# the family modules install their spellings on import
from symgrad.torch_api import (  # noqa: F401
    arithmetic,
    arranging,
    autograd,
    comparison,
    composites,
    conv,
    conversion,
    fused,
    inplace_functions,
    integer,
    metadata,
    nn,
    pointwise,
    products,
    random,
    reductions,
    shaping,
    softmax,
    sorting,
    views,
)
from symgrad.torch_api.declaration import (  # noqa: F401 - the declaration API
    COMPOSITE,
    FUNCTIONS,
    METHODS,
    NO_GRAPH,
    torch_api,
)
