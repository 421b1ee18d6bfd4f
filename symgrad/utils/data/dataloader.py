"""PyTorch's ``DataLoader``, loading in the main process."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from symgrad.creation import Generator, from_numpy, stream
from symgrad.tensor import Tensor
from symgrad.utils.data._collate import default_collate, default_convert
from symgrad.utils.data.dataset import IterableDataset, TensorDataset
from symgrad.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler


def get_worker_info() -> None:
    """Information about the worker process running the code: always None, since symgrad
    loads every batch in the main process.

    >>> print(symgrad.utils.data.get_worker_info())
    None
    """
    return None


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: None forever (the dataset decides the end)."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
           "persistent_workers")


class DataLoader:
    """Iterate over a dataset in batches: indices from ``sampler`` (``shuffle=True``: a
    fresh random order every epoch, from ``generator``, a ``symgrad.Generator`` or a numpy
    Generator, or the global stream), grouped by ``batch_size`` (or a ``batch_sampler``),
    samples merged by ``collate_fn`` (default: :func:`default_collate`). Everything runs in the main
    process: ``num_workers > 0`` loads there too, with a warning.

    >>> x = symgrad.arange(10.0).view(5, 2)
    >>> y = symgrad.arange(5)
    >>> loader = symgrad.utils.data.DataLoader(
    ...     symgrad.utils.data.TensorDataset(x, y), batch_size=2)
    >>> len(loader)
    3
    >>> for xb, yb in loader:
    ...     print(tuple(xb.shape), yb.tolist())
    (2, 2) [0, 1]
    (2, 2) [2, 3]
    (1, 2) [4]
    """

    __initialized = False

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Iterable[Any] | None = None,
                 batch_sampler: Iterable[list[Any]] | None = None, num_workers: int = 0,
                 collate_fn: Callable[[Any], Any] | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context: Any = None,
                 generator: Generator | np.random.Generator | None = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        _check_workers(num_workers, timeout, prefetch_factor, persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            _check_iterable(shuffle, sampler, batch_sampler)
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        if num_workers > 0:
            warnings.warn(f"symgrad's DataLoader loads every batch in the main process: "
                          f"num_workers={num_workers} gives the same batches, without worker "
                          "processes (worker_init_fn is not called)", UserWarning, stacklevel=2)

    def __setattr__(self, attr: str, value: Any) -> None:
        if self.__initialized and attr in _FROZEN:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(attr, value)

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __iter__(self) -> Iterator[Any]:
        # (PyTorch draws each epoch's base seed from ``generator`` first: refused in its words)
        stream(self.generator, "random_", ((), {"generator": self.generator}))
        if self._iterable:
            return self._iterate_stream()
        return self._iterate_map()

    def _iterate_map(self) -> Iterator[Any]:
        batched = self.batch_sampler is not None
        getitems = getattr(self.dataset, "__getitems__", None)
        rows = _rows_of(self.dataset) if self.collate_fn is default_collate else None
        for index in self._index_sampler:
            if rows is not None and batched:  # the same batch, indexed in one go
                picked = from_numpy(np.asarray(index, dtype=np.int64))
                yield [t[picked] for t in rows]
            elif not batched:
                yield self.collate_fn(self.dataset[index])
            elif callable(getitems):
                yield self.collate_fn(getitems(index))
            else:
                yield self.collate_fn([self.dataset[i] for i in index])

    def _iterate_stream(self) -> Iterator[Any]:
        stream = iter(self.dataset)
        if self.batch_sampler is None:
            for item in stream:
                yield self.collate_fn(item)
            return
        for index in self.batch_sampler:
            data = []
            for _ in index:
                try:
                    data.append(next(stream))
                except StopIteration:
                    break
            if not data or (self.drop_last and len(data) < len(index)):
                return
            yield self.collate_fn(data)
            if len(data) < len(index):
                return

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                length = (length // self.batch_size if self.drop_last
                          else math.ceil(length / self.batch_size))
            return length
        return len(self._index_sampler)


def _rows_of(dataset: Any) -> tuple[Tensor, ...] | None:
    """The tensors of a plain ``TensorDataset`` whose batches ``default_collate`` would stack
    from rows: indexing them with the batch's indices gives the same batch at once. None for
    any other dataset, or when a tensor requires grad (the graph would differ)."""
    if type(dataset) is not TensorDataset:
        return None
    if any(t.requires_grad for t in dataset.tensors):
        return None
    return dataset.tensors


def _check_workers(num_workers: int, timeout: float, prefetch_factor: int | None,
                   persistent_workers: bool) -> None:
    """PyTorch's checks of the worker options, in its order."""
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


def _check_iterable(shuffle: bool | None, sampler: Any, batch_sampler: Any) -> None:
    """An iterable dataset decides its own order: no shuffle, sampler or batch_sampler."""
    if shuffle not in {False, None}:
        raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                         f"option, but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                         f"option, but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler "
                         f"option, but got batch_sampler={batch_sampler}")
