"""The spellings of ``symgrad.torch_api``, installed when first used: importing ``symgrad``
does not import the family modules (they are most of its import time). This module puts a
:class:`~symgrad.torch_api.declaration.Placeholder` on ``Tensor`` for every method the families
declare, as listed in the generated ``_manifest.py`` (and one for ``Node.__call__``, which
``symgrad.autograd.engine`` installs); ``symgrad.__getattr__`` asks
:func:`function` for the ``symgrad.<name>`` functions. The first use of a spelling imports its
family, which installs its spellings as it always does (``@torch_api``), so a method costs
nothing more per call once used; ``x.exp``, ``symgrad.exp``, ``help()`` and ``dir()`` answer as if
every family had been imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.autograd.graph import Node
from symgrad.tensor import Tensor
from symgrad.torch_api._manifest import SPELLINGS
from symgrad.torch_api.declaration import FUNCTIONS, AttributePlaceholder, Placeholder, load

PACKAGE = __name__.rpartition(".")[0]  # symgrad.torch_api
ENGINE = "symgrad.autograd.engine"  # installs Node.__call__
# every family module, in the order that imports them all (see load_all)
FAMILIES = tuple(f"{PACKAGE}.{name}" for name in SPELLINGS)
# symgrad.<name> -> the family module that declares it
FUNCTION_FAMILIES = {name: f"{PACKAGE}.{family}" for family, (_, _, functions) in
                     SPELLINGS.items() for name in functions.split()}


def _install() -> None:
    """A placeholder on Tensor for each declared method not installed yet, and for
    ``Node.__call__`` (``y.grad_fn(g)``), which the engine installs."""
    owned = Tensor.__dict__
    for family, (methods, attributes, _) in SPELLINGS.items():
        module = f"{PACKAGE}.{family}"
        for kind, names in ((Placeholder, methods), (AttributePlaceholder, attributes)):
            for name in names.split():
                if name not in owned:
                    setattr(Tensor, name, kind(Tensor, name, module))
    if "__call__" not in Node.__dict__:
        Node.__call__ = Placeholder(Node, "__call__", ENGINE)  # type: ignore[method-assign]


def function(name: str) -> Callable[..., Any] | None:
    """The ``symgrad.<name>`` function, its family imported; None for a name no family declares.

    >>> function("exp") is symgrad.exp
    True
    """
    family = FUNCTION_FAMILIES.get(name)
    if family is None:
        return None
    load(family)
    return FUNCTIONS.get(name)  # (None if the family did not declare it: a stale manifest)


def load_all() -> None:
    """Import every family module: every spelling installed, :data:`FUNCTIONS` and
    :data:`METHODS` complete.

    >>> load_all(); isinstance(symgrad.Tensor.__dict__["exp"], Placeholder)
    False
    """
    for family in FAMILIES:
        load(family)


_install()
