"""Gradient clipping as ``torch.nn.utils.clip_grad``: the total norm of the gradients seen as
one vector, and the in-place scaling or clamping of ``.grad``. ``foreach`` is accepted and
changes nothing (there is one implementation)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from symgrad.autograd.grad_mode import no_grad
from symgrad.creation import tensor
from symgrad.tensor import Tensor
from symgrad.torch_api.reductions import vector_norm
from symgrad.torch_api.shaping import stack

TensorOrTensors = Tensor | Iterable[Tensor]


def _as_list(tensors: TensorOrTensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors: TensorOrTensors, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of ``tensors`` taken together as one vector (the norm of their
    norms); ``error_if_nonfinite`` raises on a nan or infinite total.

    >>> symgrad.nn.utils.get_total_norm([symgrad.tensor([3.0]), symgrad.tensor([4.0])])
    tensor(5.)
    """
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    with no_grad():
        norms = [vector_norm(t, norm_type) for t in tensors]
        total = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and (total.isnan() | total.isinf()).item():
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: TensorOrTensors, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale every ``.grad`` in place by ``min(max_norm / (total_norm + 1e-6), 1)``.

    >>> w = symgrad.zeros(2, requires_grad=True); w.grad = symgrad.tensor([3.0, 4.0])
    >>> symgrad.nn.utils.clip_grads_with_norm_([w], 1.0, symgrad.tensor(5.0)); w.grad
    tensor([0.6000, 0.8000])
    """
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters: TensorOrTensors, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Clip the gradients' total norm to ``max_norm`` in place; returns the total norm before
    clipping (:func:`get_total_norm` then :func:`clip_grads_with_norm_`).

    >>> w = symgrad.zeros(2, requires_grad=True); w.grad = symgrad.tensor([3.0, 4.0])
    >>> symgrad.nn.utils.clip_grad_norm_(w, 1.0), w.grad
    (tensor(5.), tensor([0.6000, 0.8000]))
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        parameters = list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: TensorOrTensors, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated spelling of :func:`clip_grad_norm_` (warns, as PyTorch does).

    >>> import warnings; warnings.simplefilter("ignore")
    >>> symgrad.nn.utils.clip_grad_norm([], 1.0)
    tensor(0.)
    """
    warnings.warn("`symgrad.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`symgrad.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: TensorOrTensors, clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every ``.grad`` in place to ``[-clip_value, clip_value]``.

    >>> w = symgrad.zeros(2, requires_grad=True); w.grad = symgrad.tensor([-3.0, 0.5])
    >>> symgrad.nn.utils.clip_grad_value_(w, 1.0); w.grad
    tensor([-1.0000,  0.5000])
    """
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
