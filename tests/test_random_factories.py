"""randint, randint_like, randperm and multinomial: PyTorch's dtypes, shapes and errors
(confirmed with PyTorch 2.13); the values come from numpy's stream (symgrad.manual_seed)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t


def test_randint_and_randint_like():
    t.manual_seed(0)
    x = t.randint(3, 10, (200,))
    assert x.dtype is t.int64 and x.shape == (200,)
    assert x.min().item() == 3 and x.max().item() == 9  # both ends reached, high excluded
    assert t.randint(10, (2, 3)).shape == (2, 3)
    assert t.randint(1, 10, ()).shape == ()
    f = t.randint(5, (4,), dtype=t.float32, requires_grad=True)
    assert f.dtype is t.float32 and f.requires_grad
    like = t.randint_like(t.ones(50), 2, 5)
    assert like.dtype is t.float32 and set(like.tolist()) == {2.0, 3.0, 4.0}
    with pytest.raises(RuntimeError, match="^random_ expects 'from' to be less than 'to', but got "
                                           "from=3 >= to=3"):
        t.randint(3, 3, (2,))
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype "
                                           "can require gradients"):
        t.randint(5, (2,), requires_grad=True)
    with pytest.raises(TypeError, match=r"^randint\(\): argument 'size' \(position 2\) must be "
                                        "tuple of ints, not int"):
        t.randint(5, 2)


def test_randperm_and_seed():
    t.manual_seed(1)
    a = t.randperm(10)
    t.manual_seed(1)
    assert t.randperm(10).tolist() == a.tolist()
    assert sorted(a.tolist()) == list(range(10)) and a.dtype is t.int64
    assert t.randperm(4, dtype=t.float32).dtype is t.float32
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1"):
        t.randperm(-1)


def test_multinomial():
    t.manual_seed(2)
    # without replacement, categories of weight 0 come only after the others
    for _ in range(20):
        first, second = t.multinomial(t.tensor([0.0, 1.0, 0.0]), 2).tolist()
        assert first == 1 and second in (0, 2)
    draws = t.multinomial(t.tensor([1.0, 3.0]), 4000, replacement=True)
    assert draws.shape == (4000,) and draws.dtype is t.int64
    assert np.mean(draws.numpy()) == pytest.approx(0.75, abs=0.03)
    rows = t.tensor([[0.2, 0.8], [1.0, 0.0]]).multinomial(3, True)
    assert rows.shape == (2, 3) and rows[1].tolist() == [0, 0, 0]
    assert sorted(t.multinomial(t.tensor([1.0, 2.0, 3.0]), 3).tolist()) == [0, 1, 2]
    cases = ((t.tensor([-1.0, 1.0]), 1, "probability tensor contains either `inf`, `nan` or "
                                         "element < 0"),
             (t.tensor([0.0, 0.0]), 1, r"invalid multinomial distribution \(sum of "
                                       r"probabilities <= 0\)"),
             (t.tensor([1.0, 1.0]), 3, "cannot sample n_sample > prob_dist.size"),
             (t.tensor([1, 1]), 1, "multinomial only supports floating-point dtypes for input, "
                                   "got: Long"))
    for weights, n, message in cases:
        with pytest.raises(RuntimeError, match=f"^{message}"):
            t.multinomial(weights, n)
