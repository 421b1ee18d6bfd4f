"""PyTorch spellings of the autograd entry points on a Tensor (see ``symgrad.torch_api``):
``x.backward()`` and ``x.detach()`` / ``symgrad.detach(x)``. The tensor's autograd state
itself (``requires_grad``, ``grad``, hooks) is in ``symgrad.tensor``.
"""

from __future__ import annotations

from collections.abc import Sequence

from symgrad.autograd import api
from symgrad.tensor import Tensor, _make, counter_of
from symgrad.torch_api.declaration import NO_GRAPH, torch_api


@torch_api(NO_GRAPH, function=False)
def backward(
    self,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Accumulate the gradient of this tensor into the ``.grad`` of the graph's leaves.

    ``gradient`` is the vector v of the vector-Jacobian product vᵀJ and must have this
    tensor's shape; it may be omitted only for a one-element tensor. See
    :func:`symgrad.autograd.backward` for ``retain_graph``, ``create_graph`` and ``inputs``.

    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> (x ** 2).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    >>> (x * 3).backward(symgrad.tensor([1.0, 10.0]))
    >>> x.grad
    tensor([ 5., 34.])
    """
    api.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


@torch_api(NO_GRAPH)
def detach(self) -> Tensor:
    """A tensor with the same values and storage, outside the graph.

    It shares the version counter: an in-place change through it to a value that backward
    needs is detected at backward.

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> (x * 2).detach()
    tensor([2., 2.])
    """
    out = _make(self._value)
    out._counter = counter_of(self)
    return out


@torch_api(NO_GRAPH, method=False)
def detach_(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """:meth:`Tensor.detach_` as a function: ``input`` leaves the graph in place.

    >>> y = symgrad.ones(2, requires_grad=True) * 2
    >>> symgrad.detach_(y) is y, y.requires_grad
    (True, False)
    """
    return input.detach_()
