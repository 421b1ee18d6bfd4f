"""PyTorch functions of ``torch`` that have no Tensor method (see ``symgrad.torch_api``):
``rsub`` and ``fill``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import parser
from symgrad.autograd.graph import named_node
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make
from symgrad.torch_api.arguments import check_alpha, check_not_bool_sub, scalar
from symgrad.torch_api.arithmetic import sub, where
from symgrad.torch_api.declaration import COMPOSITE, torch_api


@torch_api(COMPOSITE, method=False, example=lambda x: rsub(x, 2.0, alpha=3))
def rsub(input: Tensor, other: Any, alpha: float = 1) -> Tensor:  # noqa: A002
    """``other - alpha * input``: :func:`sub` with its operands swapped (``RsubBackward0``;
    ``RsubBackward1`` when ``other`` is a number).

    >>> symgrad.rsub(symgrad.tensor([1.0, 2.0]), 5.0, alpha=2)
    tensor([3., 1.])
    """
    if isinstance(other, Tensor):
        return named_node(sub(other, input, alpha=alpha), "RsubBackward0")
    if not isinstance(other, int | float | np.number) or isinstance(other, np.bool_):
        if not isinstance(other, bool):
            raise parser.invalid_combination("rsub", (input, other), {})
    check_not_bool_sub(input, other)
    if alpha != 1:
        check_alpha(input, other, alpha)
    return named_node(sub(other, input, alpha=alpha), "RsubBackward1")


@torch_api(COMPOSITE, method=False, example=lambda x: fill(x, 2.0))
def fill(input: Tensor, value: Any) -> Tensor:  # noqa: A002
    """A tensor of ``input``'s shape and dtype filled with ``value``, a number
    (``FillBackward0``) or a 0-d tensor, whose gradient is the sum of the result's
    (``FillBackward1``); ``input``'s gradient is zero.

    >>> symgrad.fill(symgrad.ones(2, dtype=symgrad.int64), 3.7)
    tensor([3, 3])
    """
    if not isinstance(value, Tensor | bool | int | float | np.number):
        raise parser.invalid_combination("fill", (input, value), {})
    everywhere = _make(np.ones(input._value.shape, dtype=bool))
    if isinstance(value, Tensor):
        if value._value.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._value.ndim} dimensions.")
        return named_node(where(everywhere, value.to(input.dtype), input), "FillBackward1")
    value = dtypes.check_fill(scalar(value), input._value.dtype)
    filler = _make(np.asarray(value).astype(input._value.dtype))
    return named_node(where(everywhere, filler, input), "FillBackward0")
