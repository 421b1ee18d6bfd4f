"""nn.init's sparse_ and PyTorch's deprecated spellings without the trailing underscore."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad
from symgrad.nn import init


def test_sparse_zeroes_the_same_count_in_every_column():
    symgrad.manual_seed(3)
    w = init.sparse_(symgrad.empty(10, 400), sparsity=0.25, std=0.2)
    values = w.numpy()
    assert ((values == 0).sum(axis=0) == math.ceil(0.25 * 10)).all()
    nonzero = values[values != 0]
    assert nonzero.size == 400 * (10 - 3)
    assert abs(nonzero.std() - 0.2) < 0.01 and abs(nonzero.mean()) < 0.01
    # rows are chosen afresh per column
    assert len({tuple(np.flatnonzero(col == 0)) for col in values.T}) > 50


def test_sparse_refuses_other_ranks_as_pytorch():
    with pytest.raises(ValueError, match=r"^Only tensors with 2 dimensions are supported$"):
        init.sparse_(symgrad.empty(3), 0.1)


@pytest.mark.parametrize("old, args", [
    ("uniform", ()), ("normal", ()), ("constant", (0.25,)), ("eye", ()), ("xavier_uniform", ()),
    ("xavier_normal", ()), ("kaiming_uniform", ()), ("kaiming_normal", ()),
    ("orthogonal", ()), ("sparse", (0.5,))])
def test_deprecated_spellings_warn_and_do_the_same(old, args):
    symgrad.manual_seed(5)
    expected = getattr(init, old + "_")(symgrad.empty(4, 6), *args)
    symgrad.manual_seed(5)
    with pytest.warns(FutureWarning) as caught:
        got = getattr(init, old)(symgrad.empty(4, 6), *args)
    assert str(caught[0].message) == (f"`nn.init.{old}` is now deprecated in favor of "
                                      f"`nn.init.{old}_`.")
    assert symgrad.equal(got, expected)
    assert getattr(init, old).__name__ == old


def test_deprecated_dirac_warns():
    with pytest.warns(FutureWarning, match=r"^`nn.init.dirac` is now deprecated"):
        w = init.dirac(symgrad.empty(2, 2, 3))
    assert w[:, :, 1].tolist() == [[1.0, 0.0], [0.0, 1.0]]
