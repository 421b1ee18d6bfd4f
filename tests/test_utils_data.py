"""symgrad.utils.data against PyTorch 2.13: default_collate's types, dtypes and shapes, the
DataLoader's batches, lengths and errors, the samplers, datasets and random_split. The
expected values were produced by running the same calls on torch.utils.data (PyTorch is not
needed to run these tests); the random orders use numpy's streams, so they are checked for
their properties (a permutation, reproducible from a seed, fresh every epoch)."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import symgrad
from symgrad.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)

P = collections.namedtuple("P", "a b")


def _show(x):
    """A plain description of a batch: tensors as (dtype, shape, values)."""
    if isinstance(x, symgrad.Tensor):
        return ("T", str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return {k: _show(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return (type(x).__name__, [_show(v) for v in x])
    return x


COLLATE = [
    ([symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0])],
     ("T", "float32", (2, 2), [[1.0, 2.0], [3.0, 4.0]])),
    ([1, 2, 3], ("T", "int64", (3,), [1, 2, 3])),
    ([0.5, 1.5], ("T", "float64", (2,), [0.5, 1.5])),
    ([True, False], ("T", "bool", (2,), [True, False])),
    (["a", "b"], ("list", ["a", "b"])),
    ([np.array([1, 2], dtype=np.float32), np.array([3, 4], dtype=np.float32)],
     ("T", "float32", (2, 2), [[1.0, 2.0], [3.0, 4.0]])),
    ([np.float32(1.5), np.float32(2.5)], ("T", "float32", (2,), [1.5, 2.5])),
    ([(symgrad.tensor(1.0), 2, "x"), (symgrad.tensor(3.0), 4, "y")],
     ("list", [("T", "float32", (2,), [1.0, 3.0]), ("T", "int64", (2,), [2, 4]),
               ("tuple", ["x", "y"])])),
    ([[1, 2.0], [3, 4.0]],
     ("list", [("T", "int64", (2,), [1, 3]), ("T", "float64", (2,), [2.0, 4.0])])),
    ([{"x": symgrad.tensor([1]), "y": 0.5}, {"x": symgrad.tensor([2]), "y": 1.5}],
     {"x": ("T", "int64", (2, 1), [[1], [2]]), "y": ("T", "float64", (2,), [0.5, 1.5])}),
    ([P(1, symgrad.zeros(2)), P(2, symgrad.ones(2))],
     ("P", [("T", "int64", (2,), [1, 2]), ("T", "float32", (2, 2), [[0.0, 0.0], [1.0, 1.0]])])),
]


@pytest.mark.parametrize("batch, expected", COLLATE,
                         ids=["tensors", "ints", "floats", "bools", "strs", "np_arrays",
                              "np_scalars", "tuples", "lists", "dicts", "namedtuples"])
def test_default_collate_is_pytorchs(batch, expected):
    assert _show(default_collate(batch)) == expected


def test_numpy_integers_collate_in_their_dtype_or_widened():
    # PyTorch keeps int32; symgrad has no uint16 and widens it to int64
    batch = default_collate([np.array([1, 2], dtype=np.int32), np.array([3, 4], np.int32)])
    assert batch.dtype == symgrad.int32 and batch.tolist() == [[1, 2], [3, 4]]
    batch = default_collate([np.array([1, 2], dtype=np.uint16), np.array([3, 4], np.uint16)])
    assert batch.dtype == symgrad.int64 and batch.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("batch, error, message", [
    ([[1, 2], [3]], RuntimeError, "each element in list of batch should be of equal size"),
    ([object(), object()], TypeError, "default_collate: batch must contain tensors, numpy "
     "arrays, numbers, dicts or lists; found <class 'object'>"),
    ([np.array(["a"]), np.array(["b"])], TypeError, "default_collate: batch must contain "
     "tensors, numpy arrays, numbers, dicts or lists; found <U1"),
])
def test_default_collate_errors_are_pytorchs(batch, error, message):
    with pytest.raises(error) as info:
        default_collate(batch)
    assert str(info.value) == message


def _dataset():
    return TensorDataset(symgrad.arange(10.0).view(5, 2), symgrad.arange(5))


def test_loader_batches_and_lengths_are_pytorchs():
    ds = _dataset()
    assert len(DataLoader(ds, batch_size=2, drop_last=True)) == 2
    assert [_show(b) for b in DataLoader(ds, batch_size=2, drop_last=True)][-1] == (
        "list", [("T", "float32", (2, 2), [[4.0, 5.0], [6.0, 7.0]]),
                 ("T", "int64", (2,), [2, 3])])
    unbatched = [_show(b) for b in DataLoader(ds, batch_size=None)]
    assert unbatched[:2] == [
        ("list", [("T", "float32", (2,), [0.0, 1.0]), ("T", "int64", (), 0)]),
        ("list", [("T", "float32", (2,), [2.0, 3.0]), ("T", "int64", (), 1)])]
    assert [_show(b) for b in DataLoader(ds, batch_sampler=[[4, 0], [1]])] == [
        ("list", [("T", "float32", (2, 2), [[8.0, 9.0], [0.0, 1.0]]),
                  ("T", "int64", (2,), [4, 0])]),
        ("list", [("T", "float32", (1, 2), [[2.0, 3.0]]), ("T", "int64", (1,), [1])])]


class _Stream(IterableDataset):
    def __iter__(self):
        return iter(range(7))

    def __len__(self):
        return 7


def test_iterable_dataset_batches_are_pytorchs():
    assert [b.tolist() for b in DataLoader(_Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5],
                                                                         [6]]
    assert len(DataLoader(_Stream(), batch_size=3)) == 3
    assert [b.tolist() for b in DataLoader(_Stream(), batch_size=3, drop_last=True)] == [
        [0, 1, 2], [3, 4, 5]]
    assert len(DataLoader(_Stream(), batch_size=3, drop_last=True)) == 2
    with pytest.raises(ValueError, match=r"^DataLoader with IterableDataset: expected "
                                         r"unspecified shuffle option, but got shuffle=True$"):
        DataLoader(_Stream(), shuffle=True)


@pytest.mark.parametrize("kwargs, message", [
    ({"num_workers": -1}, "num_workers option should be non-negative; use num_workers=0 to "
     "disable multiprocessing."),
    ({"timeout": -1}, "timeout option should be non-negative"),
    ({"prefetch_factor": 2}, "prefetch_factor option could only be specified in "
     "multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set "
     "prefetch_factor to None."),
    ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
    ({"sampler": [0], "shuffle": True}, "sampler option is mutually exclusive with shuffle"),
    ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive "
     "with batch_size, shuffle, sampler, and drop_last"),
    ({"batch_size": None, "drop_last": True}, "batch_size=None option disables auto-batching "
     "and is mutually exclusive with drop_last"),
    ({"batch_size": 0}, "batch_size should be a positive integer value, but got batch_size=0"),
])
def test_loader_argument_errors_are_pytorchs(kwargs, message):
    with pytest.raises(ValueError) as info:
        DataLoader(_dataset(), **kwargs)
    assert str(info.value) == message


def test_loader_attributes_are_frozen_as_pytorchs():
    loader = DataLoader(_dataset())
    with pytest.raises(ValueError, match=r"^batch_size attribute should not be set after "
                                         r"DataLoader is initialized$"):
        loader.batch_size = 3
    loader.collate_fn = default_collate  # others may change


def test_workers_load_in_the_main_process_with_a_warning():
    called = []
    with pytest.warns(UserWarning, match="loads every batch in the main process"):
        loader = DataLoader(_dataset(), batch_size=2, num_workers=2,
                            worker_init_fn=called.append)
    assert [b[1].tolist() for b in loader] == [[0, 1], [2, 3], [4]]
    assert called == []  # no worker process, so nothing to initialise


def test_shuffle_is_a_fresh_permutation_each_epoch_and_reproducible():
    ds = TensorDataset(symgrad.arange(50))
    loader = DataLoader(ds, batch_size=8, shuffle=True, generator=np.random.default_rng(4))
    epochs = [[i for (batch,) in loader for i in batch.tolist()] for _ in range(3)]
    assert all(sorted(e) == list(range(50)) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2] and epochs[0] != list(range(50))
    again = DataLoader(ds, batch_size=8, shuffle=True, generator=np.random.default_rng(4))
    assert [i for (batch,) in again for i in batch.tolist()] == epochs[0]
    symgrad.manual_seed(11)
    first = [b.tolist() for (b,) in DataLoader(ds, batch_size=50, shuffle=True)]
    symgrad.manual_seed(11)
    assert [b.tolist() for (b,) in DataLoader(ds, batch_size=50, shuffle=True)] == first


def test_a_loader_feeds_a_training_loop():
    symgrad.manual_seed(0)
    x = symgrad.randn(64, 3)
    y = x @ symgrad.tensor([1.0, -2.0, 0.5]) + 0.25
    model = symgrad.nn.Linear(3, 1)
    opt = symgrad.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    for _ in range(30):
        for xb, yb in loader:
            opt.zero_grad()
            loss = symgrad.nn.functional.mse_loss(model(xb).squeeze(1), yb)
            loss.backward()
            opt.step()
    assert loss.item() < 1e-4
    assert model.weight.detach().numpy().round(2).tolist() == [[1.0, -2.0, 0.5]]


def test_samplers_are_pytorchs():
    assert list(BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, True)) == 2
    assert len(BatchSampler(range(7), 3, False)) == 3
    assert list(SequentialSampler("abc")) == [0, 1, 2]
    sampler = RandomSampler(range(5), num_samples=12)
    assert len(sampler) == 12
    counts = collections.Counter(sampler)  # two whole permutations, then 2 of a third
    assert sorted(counts) == [0, 1, 2, 3, 4] and sorted(counts.values()) == [2, 2, 2, 3, 3]
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=40))
    assert len(drawn) == 40 and set(drawn) == {0, 1, 2}


@pytest.mark.parametrize("make, error, message", [
    (lambda: BatchSampler(range(3), 0, False), ValueError,
     "batch_size should be a positive integer value, but got batch_size=0"),
    (lambda: BatchSampler(range(3), 2, 1), ValueError,
     "drop_last should be a boolean value, but got drop_last=1"),
    (lambda: RandomSampler(range(3), replacement=1), TypeError,
     "replacement should be a boolean value, but got replacement=1"),
    (lambda: RandomSampler(range(3), num_samples=0), ValueError,
     "num_samples should be a positive integer value, but got num_samples=0"),
    (lambda: Dataset()[0], NotImplementedError,
     "Subclasses of Dataset should implement __getitem__."),
    (lambda: TensorDataset(symgrad.ones(3), symgrad.ones(4)), AssertionError,
     "Size mismatch between tensors"),
    (lambda: ConcatDataset([[1, 2], [3]])[-4], ValueError,
     "absolute value of index should not exceed dataset length"),
    (lambda: ConcatDataset([]), AssertionError, "datasets should not be an empty iterable"),
    (lambda: random_split(range(10), [3, 3]), ValueError,
     "Sum of input lengths does not equal the length of the input dataset!"),
    (lambda: random_split(range(10), [1.5, -0.5]), ValueError,
     "Fraction at index 0 is not between 0 and 1"),
])
def test_dataset_and_sampler_errors_are_pytorchs(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert str(info.value) == message


def test_random_split_lengths_are_pytorchs():
    assert [len(s) for s in random_split(range(10), [0.33, 0.33, 0.34])] == [4, 3, 3]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parts = random_split(range(2), [0.2, 0.2, 0.6])
    assert [len(s) for s in parts] == [1, 0, 1]
    assert [str(w.message) for w in caught] == [
        "Length of split at index 1 is 0. This might result in an empty dataset."]
    parts = random_split(range(20), [5, 15], generator=np.random.default_rng(1))
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(20))
    again = random_split(range(20), [5, 15], generator=np.random.default_rng(1))
    assert list(again[0]) == list(parts[0])


def test_subset_concat_and_add():
    sub = Subset(_dataset(), [4, 1])
    assert [_show(b) for b in DataLoader(sub, batch_size=2)] == [
        ("list", [("T", "float32", (2, 2), [[8.0, 9.0], [2.0, 3.0]]),
                  ("T", "int64", (2,), [4, 1])])]
    both = _dataset() + Subset(_dataset(), [0])
    assert isinstance(both, ConcatDataset) and len(both) == 6 and both[5][1].item() == 0


def test_tensor_dataset_batches_equal_the_sample_by_sample_ones():
    # a plain TensorDataset is indexed once per batch; the batches are default_collate's
    rng = np.random.default_rng(5)
    ds = TensorDataset(symgrad.tensor(rng.random((23, 2, 3)).astype(np.float32)),
                       symgrad.tensor(rng.integers(0, 9, 23)))
    sampler = [[4, -1, 0], [22, 3], [7]]
    fast = list(DataLoader(ds, batch_sampler=sampler))
    slow = list(DataLoader(ds, batch_sampler=sampler,
                           collate_fn=lambda batch: default_collate(batch)))
    assert len(fast) == len(slow) == 3
    for got, expected in zip(fast, slow, strict=True):
        assert isinstance(got, list) and len(got) == 2
        for a, b in zip(got, expected, strict=True):
            assert a.dtype == b.dtype and symgrad.equal(a, b)
    leaf = symgrad.ones(4, 2, requires_grad=True)
    (batch,) = next(iter(DataLoader(TensorDataset(leaf), batch_size=2)))
    assert batch.grad_fn.name() == "StackBackward0"  # as PyTorch records it
    with pytest.raises(IndexError):
        list(DataLoader(ds, batch_sampler=[[23]]))
