"""PyTorch's dataset classes and ``random_split``."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from symgrad.creation import Generator
from symgrad.tensor import Tensor
from symgrad.utils.data.sampler import _permutation


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``);
    ``a + b`` concatenates two datasets.

    >>> class Squares(symgrad.utils.data.Dataset):
    ...     def __len__(self):
    ...         return 3
    ...     def __getitem__(self, i):
    ...         return i * i
    >>> list(Squares() + Squares())
    [0, 1, 4, 0, 1, 4]
    """

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read as a stream: subclasses define ``__iter__``; ``a + b`` chains two.

    >>> class Count(symgrad.utils.data.IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(3))
    >>> list(Count() + Count())
    [0, 1, 2, 0, 1, 2]
    """

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows of tensors sharing their first dimension: item ``i`` is
    ``tuple(t[i] for t in tensors)``.

    >>> ds = symgrad.utils.data.TensorDataset(symgrad.arange(6).view(3, 2), symgrad.arange(3))
    >>> len(ds), ds[1]
    (3, (tensor([2, 3]), tensor(1)))
    """

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Zip datasets of one length: item ``i`` is a tuple (positional datasets) or a dict
    (keyword datasets) of their items ``i``.

    >>> ds = symgrad.utils.data.StackDataset(x=[1, 2], y=["a", "b"])
    >>> ds[1]
    {'x': 2, 'y': 'b'}
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        datasets = list(args) if args else list(kwargs.values())
        self._length = len(datasets[0])
        if any(self._length != len(d) for d in datasets):
            raise ValueError("Size mismatch between datasets")
        self.datasets: tuple[Any, ...] | dict[str, Any] = args if args else kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    """Several map-style datasets one after the other.

    >>> ds = symgrad.utils.data.ConcatDataset([[1, 2], [3, 4, 5]])
    >>> len(ds), ds[2], ds[-1], ds.cumulative_sizes
    (5, 3, 5, [2, 5])
    """

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        """The running total of the lengths.

        >>> symgrad.utils.data.ConcatDataset.cumsum([[1], [2, 3]])
        [1, 3]
        """
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Several iterable datasets one after the other.

    >>> class Two(symgrad.utils.data.IterableDataset):
    ...     def __iter__(self):
    ...         return iter("ab")
    >>> list(symgrad.utils.data.ChainDataset([Two(), Two()]))
    ['a', 'b', 'a', 'b']
    """

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)  # type: ignore[arg-type]
        return total


class Subset(Dataset):
    """The items of ``dataset`` at ``indices``, in that order.

    >>> sub = symgrad.utils.data.Subset(["a", "b", "c", "d"], [3, 0])
    >>> len(sub), sub[0], sub[1]
    (2, 'd', 'a')
    """

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[Any]:
        """The items at several positions (what the DataLoader asks for a batch).

        >>> symgrad.utils.data.Subset("abcd", [3, 2, 1]).__getitems__([0, 2])
        ['d', 'b']
        """
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Any, lengths: Sequence[int | float],
                 generator: Generator | np.random.Generator | None = None) -> list[Subset]:
    """Split ``dataset`` at random into non-overlapping subsets of the given lengths, or of
    the given fractions (summing to 1; the remainder is spread one item at a time from the
    first subset). ``generator``: a ``symgrad.Generator`` or a numpy Generator (default: the
    global stream).

    >>> import numpy as np
    >>> train, test = symgrad.utils.data.random_split(range(10), [0.7, 0.3],
    ...                                               generator=np.random.default_rng(0))
    >>> len(train), len(test), sorted(list(train) + list(test)) == list(range(10))
    (7, 3, True)
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(len(dataset) * fraction))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _permutation(int(sum(lengths)), generator)
    return [Subset(dataset, indices[end - int(length):end])
            for end, length in zip(itertools.accumulate(int(n) for n in lengths), lengths,
                                   strict=True)]
