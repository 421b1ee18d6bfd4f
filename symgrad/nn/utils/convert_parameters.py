"""``parameters_to_vector`` / ``vector_to_parameters`` as ``torch.nn.utils.convert_parameters``."""

from __future__ import annotations

from collections.abc import Iterable

from symgrad.nn.modules.module import typename
from symgrad.tensor import Tensor
from symgrad.torch_api.shaping import cat


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated into one vector (recorded: it has a
    ``grad_fn`` when they require grad).

    >>> symgrad.nn.utils.parameters_to_vector([symgrad.ones(2, 2), symgrad.zeros(1)])
    tensor([1., 1., 1., 1., 0.])
    """
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' ``.data``, in order.

    >>> w = symgrad.zeros(2, 2)
    >>> symgrad.nn.utils.vector_to_parameters(symgrad.arange(4.0), [w]); w
    tensor([[0., 1.],
            [2., 3.]])
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n

