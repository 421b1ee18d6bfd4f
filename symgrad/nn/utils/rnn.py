"""``symgrad.nn.utils.rnn``: padding and packing variable-length sequences for the recurrent
layers, as ``torch.nn.utils.rnn`` does (``pad_sequence``, ``pack_padded_sequence``,
``pad_packed_sequence``, ``pack_sequence``, ``unpack_sequence``, ``unpad_sequence`` and
``PackedSequence``). Every step is recorded ops (indexing, ``cat``), so gradients flow back to
the sequences.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from symgrad.creation import tensor
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor
from symgrad.torch_api.shaping import cat, stack

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence",
           "pad_packed_sequence", "pad_sequence", "unpack_sequence", "unpad_sequence"]


def _long(values: Any) -> Tensor:
    return tensor(np.asarray(values, dtype=np.int64), dtype=dtypes.int64)


class PackedSequence(NamedTuple):
    """A batch of sequences of different lengths, stored time step by time step: ``data``
    holds the ``batch_sizes[t]`` sequences still running at step ``t`` one after the other;
    ``sorted_indices`` (``None`` when the batch was given sorted) orders the batch by
    decreasing length and ``unsorted_indices`` undoes it. Made by :func:`pack_padded_sequence`
    or :func:`pack_sequence`, read by the recurrent layers and :func:`pad_packed_sequence`.

    >>> from symgrad.nn.utils.rnn import pack_sequence
    >>> p = pack_sequence([symgrad.tensor([1.0, 2.0, 3.0]), symgrad.tensor([4.0])])
    >>> p.data, p.batch_sizes
    (tensor([1., 4., 2., 3.]), tensor([2, 1, 1]))
    """

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """``data.to(...)``, the indices kept.

        >>> from symgrad.nn.utils.rnn import pack_sequence
        >>> pack_sequence([symgrad.ones(2)]).to(symgrad.float64).data.dtype
        symgrad.float64
        """
        return self._replace(data=self.data.to(*args, **kwargs))

    def double(self) -> PackedSequence:
        """``data`` in float64.

        >>> from symgrad.nn.utils.rnn import pack_sequence
        >>> pack_sequence([symgrad.ones(2)]).double().data.dtype
        symgrad.float64
        """
        return self.to(dtypes.float64)

    def float(self) -> PackedSequence:
        """``data`` in float32.

        >>> from symgrad.nn.utils.rnn import pack_sequence
        >>> pack_sequence([symgrad.ones(2)]).float().data.dtype
        symgrad.float32
        """
        return self.to(dtypes.float32)

    @property
    def is_cuda(self) -> bool:
        """False: symgrad runs on the CPU."""
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of ``0..n-1`` (``None`` stays ``None``).

    >>> from symgrad.nn.utils.rnn import invert_permutation
    >>> invert_permutation(symgrad.tensor([2, 0, 1]))
    tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    order = np.asarray(permutation._value, dtype=np.int64)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return _long(inverse)


def _side(padding_side: str) -> None:
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")


def pad_sequence(sequences: Tensor | Iterable[Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """Stack sequences of shapes ``(L_i, *)`` into ``(T, B, *)`` (``(B, T, *)`` with
    ``batch_first``), ``T`` the longest length, padding the shorter ones with
    ``padding_value`` on ``padding_side``.

    >>> from symgrad.nn.utils.rnn import pad_sequence
    >>> pad_sequence([symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0])], batch_first=True)
    tensor([[1., 2.],
            [3., 0.]])
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    sequences = tuple(sequences)
    _side(padding_side)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            fill = s.new_full((missing, *s.shape[1:]), padding_value)
            s = cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    trailing = [tuple(s.shape[1:]) for s in padded]
    for shape in trailing[1:]:
        if shape != trailing[0]:
            bad = next(i for i, (a, b) in enumerate(zip(shape, trailing[0], strict=False))
                       if a != b) if len(shape) == len(trailing[0]) else 0
            raise RuntimeError(f"The size of tensor a ({trailing[0][bad]}) must match the size "
                               f"of tensor b ({shape[bad]}) at non-singleton dimension "
                               f"{bad + 1}")
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor,
                   batch_first: bool = False) -> list[Tensor]:
    """The sequences :func:`pad_sequence` padded, cut back to ``lengths``.

    >>> from symgrad.nn.utils.rnn import unpad_sequence
    >>> unpad_sequence(symgrad.tensor([[1.0, 2.0], [3.0, 0.0]]), symgrad.tensor([2, 1]), True)
    [tensor([1., 2.]), tensor([3.])]
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    sizes = np.asarray(lengths._value if isinstance(lengths, Tensor) else lengths).tolist()
    return [padded_sequences[b, :int(n)] for b, n in enumerate(sizes)]


def pack_padded_sequence(input: Tensor, lengths: Tensor | list[int],  # noqa: A002
                         batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences of
    the given ``lengths``; ``lengths`` must decrease unless ``enforce_sorted=False``.

    >>> from symgrad.nn.utils.rnn import pack_padded_sequence
    >>> x = symgrad.arange(6.0).reshape(3, 2)
    >>> pack_padded_sequence(x, [3, 2]).data
    tensor([0., 1., 2., 3., 4.])
    """
    sizes = np.asarray(lengths._value if isinstance(lengths, Tensor) else lengths,
                       dtype=np.int64).reshape(-1)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-sizes, kind="stable")
        sizes = sizes[order]
        sorted_indices = _long(order)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if sizes.size and sizes.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if np.any(np.diff(sizes) > 0):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")
    if batch_first:
        input = input.transpose(0, 1)
    if sizes.size and sizes[0] > input.shape[0]:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to the length "
                           f"of the longest sequence {sizes[0]}, but got {input.shape[0]}")
    batch_sizes = (sizes[None, :] > np.arange(int(sizes[0]))[:, None]).sum(1)
    data = cat([input[t, :int(n)] for t, n in enumerate(batch_sizes)])
    return PackedSequence(data, _long(batch_sizes), sorted_indices,
                          invert_permutation(sorted_indices))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The padded batch a :class:`PackedSequence` packs, in its original order, and the
    sequences' lengths.

    >>> from symgrad.nn.utils.rnn import pack_sequence, pad_packed_sequence
    >>> p = pack_sequence([symgrad.tensor([1.0]), symgrad.tensor([2.0, 3.0])],
    ...                   enforce_sorted=False)
    >>> pad_packed_sequence(p, batch_first=True)
    (tensor([[1., 0.],
            [2., 3.]]), tensor([1, 2]))
    """
    batch_sizes = np.asarray(sequence.batch_sizes._value, dtype=np.int64)
    steps = batch_sizes.size
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
        steps = total_length
    data = sequence.data
    batch = int(batch_sizes[0])
    rows, start = [], 0
    for n in batch_sizes.tolist():
        step = data[start:start + n]
        start += n
        if n < batch:
            step = cat([step, data.new_full((batch - n, *data.shape[1:]), padding_value)])
        rows.append(step)
    for _ in range(steps - batch_sizes.size):
        rows.append(data.new_full((batch, *data.shape[1:]), padding_value))
    padded = stack(rows, 0)
    lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(1)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[np.asarray(sequence.unsorted_indices._value)]
    return padded, _long(lengths)


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """``pack_padded_sequence(pad_sequence(sequences), lengths, ...)``.

    >>> from symgrad.nn.utils.rnn import pack_sequence
    >>> pack_sequence([symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0])]).batch_sizes
    tensor([2, 1])
    """
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The sequences a :class:`PackedSequence` packs, as a list in their original order.

    >>> from symgrad.nn.utils.rnn import pack_sequence, unpack_sequence
    >>> unpack_sequence(pack_sequence([symgrad.tensor([1.0]), symgrad.tensor([2.0, 3.0])],
    ...                               enforce_sorted=False))
    [tensor([1.]), tensor([2., 3.])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
