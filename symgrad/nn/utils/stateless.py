"""``symgrad.nn.utils.stateless``: PyTorch's ``torch.nn.utils.stateless.functional_call``,
deprecated there in favour of ``torch.func.functional_call`` (here
:func:`symgrad.func.functional_call`), which this module implements for both."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from symgrad.nn.modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()
_PROPERTY = object()  # a name set through its class's property


def functional_call(module: Module, parameters_and_buffers: dict, args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """Call ``module`` with some of its parameters and buffers replaced by the tensors given
    (by their dotted names), leaving the module as it was afterwards. Deprecated, with
    PyTorch's FutureWarning: :func:`symgrad.func.functional_call` is the same.

    >>> import warnings
    >>> m = symgrad.nn.Linear(2, 1)
    >>> params = {"weight": symgrad.ones(1, 2), "bias": symgrad.zeros(1)}
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.nn.utils.stateless.functional_call(m, params, (symgrad.ones(1, 2),))
    tensor([[2.]])
    """
    warnings.warn("`symgrad.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`symgrad.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)


def _functional_call(module: Module, parameter_and_buffer_dicts: dict | Sequence[dict],
                     args: Any = None, kwargs: dict | None = None, *, tie_weights: bool = True,
                     strict: bool = False) -> Any:
    dicts = [parameter_and_buffer_dicts] if isinstance(parameter_and_buffer_dicts, dict) \
        else list(parameter_and_buffer_dicts)
    given: dict[str, Any] = {}
    repeated = [key for i, d in enumerate(dicts) for key in d
                if any(key in other for other in dicts[:i])]
    if repeated:
        raise ValueError(f"{sorted(set(repeated))} appeared in multiple dictionaries; behavior "
                         "of functional call is ambiguous")
    for d in dicts:
        given.update(d)
    names = [n for n, _ in module.named_parameters()] + [n for n, _ in module.named_buffers()]
    if strict:
        unexpected = [k for k in given if k not in names]
        missing = [n for n in names if n not in given]
        if unexpected or missing:
            lines = []
            if unexpected:
                lines.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected)
                             + ".")
            if missing:
                lines.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + "\n\t".join(lines))
    saved = []
    try:
        for key, value in given.items():
            owner_name, _, attr = key.rpartition(".")
            owner = module.get_submodule(owner_name) if owner_name else module
            store = owner._parameters if attr in owner._parameters else (
                owner._buffers if attr in owner._buffers else None)
            if store is None and isinstance(getattr(type(owner), attr, None), property):
                # a parametrized tensor (nn.utils.parametrize): set and restored through its
                # property, hence through the parametrizations' right_inverse, as in PyTorch
                old = getattr(owner, attr)
                setattr(owner, attr, value)
                saved.append((owner, attr, _PROPERTY, old))
                continue
            if store is None:
                saved.append((owner, attr, None, owner.__dict__.get(attr, _MISSING)))
                owner.__dict__[attr] = value
                continue
            saved.append((owner, attr, store, store[attr]))
            store[attr] = value
        call_args = args if isinstance(args, tuple) else (() if args is None else (args,))
        return module(*call_args, **(kwargs or {}))
    finally:
        for owner, attr, store, old in reversed(saved):
            if store is _PROPERTY:
                setattr(owner, attr, old)
            elif store is not None:
                store[attr] = old
            elif old is _MISSING:
                owner.__dict__.pop(attr, None)
            else:
                owner.__dict__[attr] = old


