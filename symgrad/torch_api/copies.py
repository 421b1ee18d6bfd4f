"""PyTorch's copying forms of its views (see ``symgrad.torch_api``): ``view_copy``,
``permute_copy``, ``transpose_copy``, ``t_copy``, ``squeeze_copy``, ``unsqueeze_copy``,
``expand_copy``, ``diagonal_copy``, ``select_copy``, ``slice_copy``, ``split_copy``,
``split_with_sizes_copy``, ``unbind_copy``, ``unfold_copy``, ``alias_copy``, ``detach_copy``,
``as_strided_copy``; ``unsafe_split``, ``unsafe_chunk``, ``unsafe_split_with_sizes``, whose
pieces are not tracked as views; ``as_strided``, read from the storage a tensor views; and
``resize_`` / ``resize_as_``, which give a tensor a new size over that storage.

Each takes the view and copies it: the result has storage of its own, and its node is named as
PyTorch names it, the view's node name with ``_copy`` after it (``ViewBackward0_copy``), or
``UnsafeSplitBackward0``. symgrad records the view's node and a copy above it, which carries
that name; the values, dtypes and gradients are the view's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import ops, parser
from symgrad.autograd.graph import named_node
from symgrad.dispatch import apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _dim, _make, counter_of
from symgrad.torch_api.arithmetic import where
from symgrad.torch_api.declaration import COMPOSITE, NO_GRAPH, torch_api


def _copied(view: Tensor, name: str | None = None) -> Tensor:
    """A copy of ``view`` whose node is named ``name`` (default: the view's node name with
    ``_copy`` after it)."""
    if name is None and view.grad_fn is not None:
        name = view.grad_fn.name() + "_copy"
    out = view.clone()
    return named_node(out, name) if name is not None else out


def _copied_pieces(pieces: Sequence[Tensor], name: str | None = None) -> tuple[Tensor, ...]:
    return tuple(_copied(piece, name) for piece in pieces)


@torch_api(COMPOSITE, method=False, example=lambda x: view_copy(x, [3, 2]))
def view_copy(input: Tensor, size: Sequence[int] | dtypes.dtype | None = None,  # noqa: A002
              *, dtype: dtypes.dtype | None = None) -> Tensor:
    """:meth:`Tensor.view` (by a size or a dtype), copied (``ViewBackward0_copy``).

    >>> symgrad.view_copy(symgrad.arange(6.0), [2, 3])
    tensor([[0., 1., 2.],
            [3., 4., 5.]])
    """
    if isinstance(size, int) and not isinstance(size, bool) or size is None and dtype is None:
        raise parser.invalid_combination("view_copy", (input, size), {})
    return _copied(input.view(dtype if size is None else size))


@torch_api(COMPOSITE, method=False, example=lambda x: permute_copy(x, [1, 0]))
def permute_copy(input: Tensor, dims: Sequence[int]) -> Tensor:  # noqa: A002
    """:func:`symgrad.permute`, copied (``PermuteBackward0_copy``).

    >>> symgrad.permute_copy(symgrad.ones(2, 3), [1, 0]).shape
    symgrad.Size([3, 2])
    """
    return _copied(input.permute(dims))


@torch_api(COMPOSITE, method=False, example=lambda x: transpose_copy(x, 0, 1))
def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    """:func:`symgrad.transpose`, copied (``TransposeBackward0_copy``).

    >>> symgrad.transpose_copy(symgrad.ones(2, 3), 0, 1).shape
    symgrad.Size([3, 2])
    """
    return _copied(input.transpose(dim0, dim1))


@torch_api(COMPOSITE, method=False, example=lambda x: t_copy(x))
def t_copy(input: Tensor) -> Tensor:  # noqa: A002
    """:func:`symgrad.t`, copied (``TBackward0_copy``).

    >>> symgrad.t_copy(symgrad.tensor([[1.0, 2.0]]))
    tensor([[1.],
            [2.]])
    """
    return _copied(input.t())


@torch_api(COMPOSITE, method=False, example=lambda x: squeeze_copy(x.unsqueeze(0)))
def squeeze_copy(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:  # noqa: A002
    """:func:`symgrad.squeeze`, copied (``SqueezeBackward0_copy``, ``1`` with a dim, ``2``
    with dims).

    >>> symgrad.squeeze_copy(symgrad.ones(1, 2, 1), 0).shape
    symgrad.Size([2, 1])
    """
    return _copied(input.squeeze(dim))


@torch_api(COMPOSITE, method=False, example=lambda x: unsqueeze_copy(x, 1))
def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    """:func:`symgrad.unsqueeze`, copied (``UnsqueezeBackward0_copy``).

    >>> symgrad.unsqueeze_copy(symgrad.ones(2), 0).shape
    symgrad.Size([1, 2])
    """
    return _copied(input.unsqueeze(dim))


@torch_api(COMPOSITE, method=False, example=lambda x: expand_copy(x, [2, 2, 3]))
def expand_copy(input: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:  # noqa: A002
    """:meth:`Tensor.expand`, copied (``ExpandBackward0_copy``; ``implicit`` changes nothing).

    >>> symgrad.expand_copy(symgrad.tensor([1.0, 2.0]), [2, 2])
    tensor([[1., 2.],
            [1., 2.]])
    """
    return _copied(input.expand(size))


@torch_api(COMPOSITE, method=False, example=lambda x: diagonal_copy(x))
def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """:func:`symgrad.diagonal`, copied (``DiagonalBackward0_copy``).

    >>> symgrad.diagonal_copy(symgrad.arange(6.0).reshape(2, 3), 1)
    tensor([1., 5.])
    """
    return _copied(input.diagonal(offset, dim1, dim2))


@torch_api(COMPOSITE, method=False, example=lambda x: select_copy(x, 1, 2))
def select_copy(input: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """:func:`symgrad.select`, copied (``SelectBackward0_copy``).

    >>> symgrad.select_copy(symgrad.arange(6.0).reshape(2, 3), 0, 1)
    tensor([3., 4., 5.])
    """
    return _copied(input.select(dim, index))


@torch_api(COMPOSITE, method=False, example=lambda x: slice_copy(x, 1, 0, 3, 2))
def slice_copy(input: Tensor, dim: int = 0, start: int | None = None,  # noqa: A002
               end: int | None = None, step: int = 1) -> Tensor:
    """``input[..., start:end:step]`` along ``dim``, copied (``SliceBackward0_copy``); the
    step must be positive.

    >>> symgrad.slice_copy(symgrad.arange(6.0), 0, 1, None, 2)
    tensor([1., 3., 5.])
    """
    ndim = input._value.ndim
    if ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return _copied(input[(slice(None),) * d + (slice(start, end, step),)], "SliceBackward0_copy")


@torch_api(COMPOSITE, method=False, example=lambda x: split_copy(x, 2, 1)[1])
def split_copy(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """:func:`symgrad.split` into pieces of ``split_size``, copied (``SplitBackward0_copy``).

    >>> [p.tolist() for p in symgrad.split_copy(symgrad.arange(5.0), 2)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    """
    if not parser._is_int(split_size):
        raise parser.wrong_type("split_copy", "split_size", "int", split_size, 2)
    return _copied_pieces(input.split(int(split_size), dim))


@torch_api(COMPOSITE, method=False, example=lambda x: split_with_sizes_copy(x, [1, 2], 1)[1])
def split_with_sizes_copy(input: Tensor, split_sizes: Sequence[int],  # noqa: A002
                          dim: int = 0) -> tuple[Tensor, ...]:
    """:func:`symgrad.split_with_sizes`, copied (``SplitWithSizesBackward0_copy``).

    >>> [p.tolist() for p in symgrad.split_with_sizes_copy(symgrad.arange(3.0), [1, 2])]
    [[0.0], [1.0, 2.0]]
    """
    return _copied_pieces(input.split_with_sizes(split_sizes, dim))


@torch_api(COMPOSITE, method=False, example=lambda x: unbind_copy(x, 1)[2])
def unbind_copy(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """:func:`symgrad.unbind`, copied (``UnbindBackward0_copy``).

    >>> symgrad.unbind_copy(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    (tensor([1., 2.]), tensor([3., 4.]))
    """
    return _copied_pieces(input.unbind(dim))


@torch_api(COMPOSITE, method=False, example=lambda x: unfold_copy(x, 1, 2, 1))
def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:  # noqa: A002
    """:meth:`Tensor.unfold`, copied (``UnfoldBackward0_copy``).

    >>> symgrad.unfold_copy(symgrad.arange(4.0), 0, 2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    return _copied(input.unfold(dimension, size, step))


@torch_api(COMPOSITE, method=False, example=lambda x: alias_copy(x))
def alias_copy(input: Tensor) -> Tensor:  # noqa: A002
    """A copy of ``input`` (``AliasBackward0_copy``).

    >>> symgrad.alias_copy(symgrad.tensor([1.0, 2.0]))
    tensor([1., 2.])
    """
    return _copied(input, "AliasBackward0_copy")


@torch_api("detach_copy", method=False, example=lambda x: detach_copy(x.detach()))
def detach_copy(input: Tensor) -> Tensor:  # noqa: A002
    """A copy of ``input``; as in PyTorch, an input that requires grad gives a result that
    does too, whose node (``NotImplemented``) refuses to be differentiated.

    >>> symgrad.detach_copy(symgrad.ones(2, requires_grad=True))
    tensor([1., 1.], grad_fn=<NotImplemented>)
    """
    return apply_op(ops.elementwise.detach_copy, input)


# ---------------------------------------------------------------- unsafe splits


@torch_api(COMPOSITE, method=False, name="unsafe_split",
           example=lambda x: unsafe_split_function(x, 2, 1)[1])
def unsafe_split_function(tensor: Tensor, split_size_or_sections: int,
                          dim: int = 0) -> tuple[Tensor, ...]:
    """:meth:`Tensor.unsafe_split` as a function (PyTorch names its arguments so).

    >>> [p.tolist() for p in symgrad.unsafe_split(symgrad.arange(3.0), 2)]
    [[0.0, 1.0], [2.0]]
    """
    parser.tensor_arg("unsafe_split", "tensor", tensor)
    return tensor.unsafe_split(split_size_or_sections, dim)


@torch_api(COMPOSITE, function=False, example=lambda x: x.unsafe_split(2, 1)[1])
def unsafe_split(self, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """:meth:`split` into pieces of ``split_size``, not tracked as views of ``self``
    (``UnsafeSplitBackward0``): each piece can be changed in place (symgrad's pieces are
    copies, so such a change does not reach ``self`` as PyTorch's shared storage would).

    >>> [p.tolist() for p in symgrad.arange(5.0).unsafe_split(2)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    """
    if not parser._is_int(split_size):
        raise parser.wrong_type("unsafe_split", "split_size", "int", split_size, 2)
    return _copied_pieces(self.split(int(split_size), dim), "UnsafeSplitBackward0")


@torch_api(COMPOSITE, example=lambda x: x.unsafe_chunk(2, 1)[1])
def unsafe_chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """:meth:`chunk`, its pieces not tracked as views (``UnsafeSplitBackward0``; see
    :meth:`unsafe_split`).

    >>> [p.tolist() for p in symgrad.arange(4.0).unsafe_chunk(2)]
    [[0.0, 1.0], [2.0, 3.0]]
    """
    return _copied_pieces(self.chunk(chunks, dim), "UnsafeSplitBackward0")


@torch_api(COMPOSITE, example=lambda x: x.unsafe_split_with_sizes([1, 2], 1)[1])
def unsafe_split_with_sizes(self, split_sizes: Sequence[int], dim: int = 0,
                            ) -> tuple[Tensor, ...]:
    """:meth:`split_with_sizes`, its pieces not tracked as views
    (``UnsafeSplitWithSizesBackward0``; see :meth:`unsafe_split`).

    >>> [p.tolist() for p in symgrad.arange(3.0).unsafe_split_with_sizes([2, 1])]
    [[0.0, 1.0], [2.0]]
    """
    return _copied_pieces(self.split_with_sizes(split_sizes, dim),
                          "UnsafeSplitWithSizesBackward0")


# ---------------------------------------------------------------- as_strided


def _storage(x: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The storage ``x`` views, flat, and the position in it of each of ``x``'s elements (in
    ``x``'s shape), as :meth:`Tensor.stride` and :meth:`Tensor.storage_offset` report them: the
    numpy base it views, or ``x``'s own elements where symgrad reports it contiguous."""
    value = x._value
    root = value
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is value or root.dtype != value.dtype or not root.flags.c_contiguous or any(
            s < 0 for s in value.strides) or value.size == 0:
        return np.ascontiguousarray(value).reshape(-1), np.arange(value.size).reshape(
            value.shape)
    offset = x.storage_offset()
    positions = np.full(value.shape, offset, dtype=np.int64)
    for d, (n, step) in enumerate(zip(value.shape, x.stride(), strict=True)):
        positions = positions + (np.arange(n) * step).reshape((1,) * d + (n,) + (1,) * (
            value.ndim - d - 1))
    return root.reshape(-1), positions


def _as_strided(input: Tensor, size: Sequence[int], stride: Sequence[int],  # noqa: A002
                storage_offset: int | None) -> Tensor:
    shape = tuple(int(s) for s in size)
    steps = tuple(int(s) for s in stride)
    if len(shape) != len(steps):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in steps):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(steps)}")
    storage, positions = _storage(input)
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in shape else offset + 1 + sum((n - 1) * k for n, k in zip(
        shape, steps, strict=True))
    if needed > storage.size:
        item = storage.itemsize
        raise RuntimeError(f"setStorage: sizes {list(shape)}, strides {list(steps)}, storage "
                           f"offset {offset}, and itemsize {item} requiring a storage size of "
                           f"{needed * item} are out of bounds for storage of size "
                           f"{storage.size * item}")
    index = np.full(shape, offset, dtype=np.int64)
    for d, (n, step) in enumerate(zip(shape, steps, strict=True)):
        index = index + (np.arange(n) * step).reshape((1,) * d + (n,) + (1,) * (
            len(shape) - d - 1))
    owner = np.full(storage.size, -1, dtype=np.int64)  # storage position -> input element
    owner[positions.reshape(-1)[::-1]] = np.arange(positions.size)[::-1]
    element = owner[index]
    inside = element >= 0
    flat = input.reshape(-1)
    picked = flat[_make(np.where(inside, element, 0))] if positions.size else None
    if picked is not None and inside.all():
        out = picked
    else:
        outside = _make(storage[index].copy())
        out = outside if picked is None else where(_make(inside), picked, outside)
    return out


@torch_api(COMPOSITE, example=lambda x: x.as_strided((2, 2), (1, 2)))
def as_strided(self, size: Sequence[int], stride: Sequence[int],
               storage_offset: int | None = None) -> Tensor:
    """The elements of the storage ``self`` views at ``storage_offset + sum(i_k * stride_k)``
    for each index ``i`` of ``size`` (``AsStridedBackward0``; the offset defaults to
    ``self``'s); the gradient reaches the elements of ``self`` among them. symgrad's result is
    a copy, not a view: writing into it does not change ``self``.

    >>> symgrad.arange(6.0).as_strided((3, 2), (1, 1))
    tensor([[0., 1.],
            [1., 2.],
            [2., 3.]])
    """
    return named_node(_as_strided(self, size, stride, storage_offset), "AsStridedBackward0")


@torch_api(COMPOSITE, method=False, example=lambda x: as_strided_copy(x, (2, 2), (1, 2)))
def as_strided_copy(input: Tensor, size: Sequence[int], stride: Sequence[int],  # noqa: A002
                    storage_offset: int | None = None) -> Tensor:
    """:func:`as_strided`, copied (``AsStridedBackward0_copy``).

    >>> symgrad.as_strided_copy(symgrad.arange(6.0), (2,), (2,))
    tensor([0., 2.])
    """
    return named_node(_as_strided(input, size, stride, storage_offset),
                      "AsStridedBackward0_copy")


# ---------------------------------------------------------------- resize_


def _resize(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Give ``self`` the contiguous shape ``shape`` over its storage from its offset on, the
    storage grown (with zeros) when it is too small; PyTorch's refusal for a tensor that
    requires grad."""
    if any(n < 0 for n in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    storage, positions = _storage(self)
    offset = int(positions.reshape(-1)[0]) if positions.size else 0
    count = int(np.prod(shape, dtype=np.int64))
    if offset + count <= storage.size:
        value = storage[offset:offset + count].reshape(shape)  # (a view: the storage shared)
    else:
        value = np.zeros(count, dtype=storage.dtype)
        kept = storage[offset:offset + count]
        value[:kept.size] = kept
        value = value.reshape(shape)
    self._value = value
    counter_of(self).value += 1
    return self


@torch_api(NO_GRAPH, function=False, inplace=True, example=lambda x: x.detach().resize_(3))
def resize_(self, *args: Any, size: Sequence[int] | None = None,
            memory_format: Any = None) -> Tensor:
    """Give this tensor the (contiguous) size ``size`` in place, over the elements of its
    storage from its offset on: fewer keep the first ones, more grow the storage (symgrad
    fills the new elements with zeros; PyTorch leaves them uninitialized). Refused for a
    tensor that requires grad, as PyTorch refuses it.

    >>> symgrad.arange(6.0).resize_(2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    shape = parser.size_arg("resize_", parser.varargs("resize_", "size", args, size))
    return _resize(self, shape)


@torch_api(NO_GRAPH, inplace=True, example=lambda x: x.detach().resize_as_(x[0]))
def resize_as_(self, the_template: Tensor, memory_format: Any = None) -> Tensor:
    """:meth:`resize_` to the size of ``the_template``.

    >>> symgrad.arange(6.0).resize_as_(symgrad.ones(3, 1))
    tensor([[0.],
            [1.],
            [2.]])
    """
    parser.tensor_arg("resize_as_", "the_template", the_template)
    return _resize(self, tuple(the_template._value.shape))
