"""PyTorch spellings of softmax, log_softmax (see ``symgrad.torch_api``).

``x.softmax(dim)`` and ``symgrad.softmax(x, dim)`` require ``dim``; ``F.softmax`` (in
``symgrad.nn.functional``) may omit it, with PyTorch's deprecation warning and implicit choice.
"""

from __future__ import annotations

import warnings

from symgrad import ops
from symgrad.dispatch import apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _dim
from symgrad.torch_api.declaration import torch_api

_REQUIRED = object()  # marks an omitted dim: PyTorch's own message, not Python's


def _prepare(input: Tensor, name: str, dim: object, dtype: dtypes.dtype | None) -> tuple:  # noqa: A002
    """Check a softmax-family call as PyTorch does; return the (cast) input and the op's dim."""
    if dim is _REQUIRED:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{name}(): argument 'dim' (position 1) must be int, not "
                        f"{type(dim).__name__}")
    ndim = input._value.ndim
    d = _dim(dim, ndim)
    if dtype is not None:
        input = input.to(dtype)
    if not input.is_floating_point():
        kernel = "lastdim_kernel_impl" if d == ndim - 1 or ndim == 0 else "kernel_impl"
        raise dtypes.not_implemented(f"{name}_{kernel}", input.dtype)
    return input, ((d,) if ndim else ())


def implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    """The dim PyTorch picks when ``F.softmax`` & co. get none, with its deprecation warning
    (``stacklevel`` counts from here: 3 is the caller of ``F.softmax``)."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


@torch_api("softmax", example=lambda x: x.softmax(1))
def softmax(input: Tensor, dim: int = _REQUIRED,  # type: ignore[assignment]  # noqa: A002
            dtype: dtypes.dtype | None = None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim`` (``SoftmaxBackward0``), stable for large inputs;
    ``dtype`` casts the input first.

    >>> symgrad.tensor([0.0, 0.0]).softmax(0)
    tensor([0.5000, 0.5000])
    """
    input, d = _prepare(input, "softmax", dim, dtype)
    return apply_op(ops.nn.softmax, input, dim=d)


@torch_api("log_softmax", example=lambda x: x.log_softmax(1))
def log_softmax(input: Tensor, dim: int = _REQUIRED,  # type: ignore[assignment]  # noqa: A002
                dtype: dtypes.dtype | None = None) -> Tensor:
    """x - log(sum(exp(x))) along ``dim`` (``LogSoftmaxBackward0``), stable for large inputs;
    ``dtype`` casts the input first.

    >>> symgrad.tensor([1000.0, 0.0]).log_softmax(0)
    tensor([    0., -1000.])
    """
    input, d = _prepare(input, "log_softmax", dim, dtype)
    return apply_op(ops.nn.log_softmax, input, dim=d)
