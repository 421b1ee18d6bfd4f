"""PyTorch's samplers: the orders in which a DataLoader visits a dataset's indices. The
random ones draw from symgrad's global stream (:func:`symgrad.manual_seed`) or from the
``generator`` given: a ``symgrad.Generator`` or a numpy ``Generator``."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any

import numpy as np

from symgrad import creation
from symgrad.creation import Generator


def _generator(generator: Generator | np.random.Generator | None) -> Any:
    """The numpy Generator to draw from: ``generator``'s (a symgrad or numpy Generator), or
    symgrad's global stream; anything else refused as PyTorch's ``randperm`` refuses it."""
    return creation.stream(generator, "randperm", ((0,), {"generator": generator}))


def _permutation(n: int, generator: Generator | np.random.Generator | None) -> list[int]:
    return _generator(generator).permutation(n).tolist()


class Sampler:
    """Base class of the samplers: an iterable of dataset indices (or of lists of them).

    >>> class Evens(symgrad.utils.data.Sampler):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(0, self.n, 2))
    >>> list(Evens(5))
    [0, 2, 4]
    """

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``.

    >>> list(symgrad.utils.data.SequentialSampler("abc"))
    [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A fresh random permutation of the indices every pass (``num_samples`` of them; with
    ``replacement``, independent draws).

    >>> import numpy as np
    >>> sampler = symgrad.utils.data.RandomSampler(range(5), generator=np.random.default_rng(0))
    >>> sorted(sampler)
    [0, 1, 2, 3, 4]
    """

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None,
                 generator: Generator | np.random.Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got replacement="
                            f"{self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """How many indices a pass yields (default: the dataset's length).

        >>> symgrad.utils.data.RandomSampler(range(4)).num_samples
        4
        """
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        rng = _generator(self.generator)
        if self.replacement:
            yield from rng.integers(0, n, self.num_samples).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from rng.permutation(n).tolist()
        yield from rng.permutation(n).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order, fresh every pass.

    >>> sorted(symgrad.utils.data.SubsetRandomSampler([7, 3, 5]))
    [3, 5, 7]
    """

    def __init__(self, indices: Sequence[int],
                 generator: Generator | np.random.Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _permutation(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``.

    >>> list(symgrad.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0], 3))
    [1, 1, 1]
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Generator | np.random.Generator | None = None) -> None:
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got replacement="
                             f"{replacement}")
        values = np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights,
                            dtype=np.float64)
        if values.ndim != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(values.shape)}")
        self.weights = creation.from_numpy(values)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        if not isinstance(self.generator, np.random.Generator):  # (PyTorch's draw)
            yield from creation.multinomial(self.weights, self.num_samples, self.replacement,
                                            generator=self.generator).tolist()
            return
        p = self.weights.numpy() / self.weights.numpy().sum()
        yield from self.generator.choice(p.size, self.num_samples, replace=self.replacement,
                                         p=p).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Group another sampler's indices into lists of ``batch_size`` (the last one shorter,
    or dropped with ``drop_last``).

    >>> list(symgrad.utils.data.BatchSampler(range(5), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        batch = list(itertools.islice(indices, self.batch_size))
        while batch:
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self) -> int:
        size = len(self.sampler)  # type: ignore[arg-type]
        if self.drop_last:
            return size // self.batch_size
        return (size + self.batch_size - 1) // self.batch_size
