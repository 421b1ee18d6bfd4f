"""``gcd``/``lcm`` of integer tensors, a real tensor's complex views (``conj``, ``real``, ``imag``,
``isreal``, ...), ``is_floating_point``/``is_complex`` as functions and ``swapaxes_``: PyTorch's
values (checked against Python's own integer arithmetic) and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad as t

A = [4, -6, 0, 7, -2**62, 2**40, 12]
B = [6, 9, 0, 0, 3, 3**30, -18]


def _wrapped(value: int) -> int:
    """``value`` read as an int64's bits (PyTorch's lcm wraps its product)."""
    return (value + 2**63) % 2**64 - 2**63


def test_gcd_and_lcm_match_python():
    a, b = t.tensor(A), t.tensor(B)
    assert t.gcd(a, b).tolist() == [math.gcd(x, y) for x, y in zip(A, B, strict=True)]
    # PyTorch: |a / gcd * b| with the product in int64 (2**40 * 3**30 wraps)
    expected = [0 if math.gcd(x, y) == 0 else abs(_wrapped(x // math.gcd(x, y) * y))
                for x, y in zip(A, B, strict=True)]
    assert t.lcm(a, b).tolist() == expected
    assert a.gcd(b).dtype is t.int64


def test_in_place_and_broadcasting():
    a = t.tensor([4, 6, 9])
    assert a.gcd_(t.tensor(6)) is a and a.tolist() == [2, 6, 3] and a._version == 1
    assert t.lcm(t.tensor([2, 3]), t.tensor([[4], [5]])).tolist() == [
        [math.lcm(x, y) for x in (2, 3)] for y in (4, 5)]
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the "
                                           r"broadcast shape \[2, 2\]"):
        t.tensor([2, 3]).lcm_(t.tensor([[4], [5]]))


@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_refusals(name):
    fn = getattr(t, name)
    with pytest.raises(NotImplementedError, match=f'^"{name}_cpu" not implemented for '
                                                  "'Float'$"):
        fn(t.tensor([4]), t.tensor([2.0]))
    with pytest.raises(NotImplementedError, match="'Bool'"):
        fn(t.tensor([True]), t.tensor([False]))
    with pytest.raises(TypeError, match=f"^{name}\\(\\): argument 'other' \\(position 2\\) must "
                                        "be Tensor, not int$"):
        fn(t.tensor([4]), 2)


def test_a_real_tensor_is_its_own_conjugate_and_real_part():
    x = t.tensor([1.0, -2.0], requires_grad=True)
    assert x.conj() is x and t.conj(x) is x and x.resolve_conj() is x and x.resolve_neg() is x
    assert x.real is x and t.real(x) is x
    assert not x.is_conj() and not x.is_neg() and not t.is_complex(x)
    assert t.isreal(x).tolist() == [True, True]
    for imag in (lambda: x.imag, lambda: t.imag(x)):
        with pytest.raises(RuntimeError, match="^imag is not implemented for tensors with "
                                               "non-complex dtypes"):
            imag()
    assert t.is_floating_point(x) and not t.is_floating_point(t.tensor([1]))
    with pytest.raises(TypeError, match=r"^is_floating_point\(\): argument 'input' \(position "
                                        r"1\) must be Tensor, not float$"):
        t.is_floating_point(1.0)


@pytest.mark.parametrize("name", ["swapaxes_", "swapdims_"])
def test_swapaxes_in_place(name):
    values = np.arange(6.0).reshape(2, 3)
    x = t.tensor(values)
    assert getattr(x, name)(0, 1) is x
    assert x.shape == (3, 2) and x.tolist() == values.T.tolist()
