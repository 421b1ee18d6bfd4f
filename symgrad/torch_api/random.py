"""PyTorch's in-place random fills and random functions (see ``symgrad.torch_api``):
``uniform_``, ``normal_``, ``bernoulli_``, ``exponential_``, ``random_``, ``fill_diagonal_``,
and ``symgrad.bernoulli``, ``normal``, ``poisson``.

The values come from numpy's generator behind ``symgrad.manual_seed`` (other streams than
PyTorch's, the same on every run with the same seed). An in-place fill records a node whose
gradient is zero (``UniformBackward0`` ...), as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import creation, ops, parser
from symgrad.dispatch import apply_inplace
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make
from symgrad.torch_api.declaration import NO_GRAPH, torch_api

_ew = ops.elementwise


def _rng() -> Any:
    return creation._rng  # looked up at each call: manual_seed replaces it


def _floating(x: Tensor, kernel: str) -> None:
    if x._value.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{x.dtype._torch_name}'")


def _fill(x: Tensor, op: ops.Op, values: np.ndarray) -> Tensor:
    return apply_inplace(op, x, values=np.asarray(values, dtype=x._value.dtype))


@torch_api(_ew.uniform_fill.name, function=False, inplace=True,
           example=lambda x: x.uniform_(-1, 1))
def uniform_(self, from_: float = 0, to: float = 1, *, generator: Any = None) -> Tensor:
    """Fill with values drawn uniformly from ``[from_, to)`` (``UniformBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.empty(1000).uniform_(-2, 2)
    >>> bool((x >= -2).all() and (x < 2).all())
    True
    """
    _floating(self, "check_uniform_bounds")
    from_, to = (parser.number_arg("uniform_", n, v, i + 1)
                 for i, (n, v) in enumerate((("from", from_), ("to", to))))
    for name, value in (("from", from_), ("to", to)):
        if not np.isfinite(value) or abs(value) > np.finfo(self._value.dtype).max:
            raise RuntimeError(f"{name} is out of bounds for {self.dtype._cpp_name}")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_} > to={to}")
    return _fill(self, _ew.uniform_fill, _rng().uniform(from_, to, self._value.shape))


@torch_api(_ew.normal_fill.name, function=False, inplace=True,
           example=lambda x: x.normal_(0, 2))
def normal_(self, mean: float = 0, std: float = 1, *, generator: Any = None) -> Tensor:
    """Fill with values drawn from N(mean, std²) (``NormalBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.empty(10000).normal_(3.0, 0.5)
    >>> round(x.mean().item(), 1), round(x.std().item(), 1)
    (3.0, 0.5)
    """
    _floating(self, "normal_kernel_cpu")
    mean, std = (parser.number_arg("normal_", n, v, i + 1)
                 for i, (n, v) in enumerate((("mean", mean), ("std", std))))
    if not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill(self, _ew.normal_fill, _rng().normal(mean, std, self._value.shape))


@torch_api(_ew.bernoulli_fill.name, function=False, inplace=True,
           example=lambda x: x.bernoulli_(0.25))
def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fill with 1 with probability ``p`` (a number or a tensor broadcast to this shape),
    else 0 (``BernoulliBackward2``).

    >>> _ = symgrad.manual_seed(0)
    >>> symgrad.zeros(4).bernoulli_(symgrad.tensor([0.0, 1.0, 0.0, 1.0]))
    tensor([0., 1., 0., 1.])
    """
    if not isinstance(p, Tensor):
        p = parser.number_arg("bernoulli_", "p", p, 1)
    probability = p._value if isinstance(p, Tensor) else p
    if not isinstance(p, Tensor) and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    if isinstance(p, Tensor) and ((probability < 0) | (probability > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    draws = _rng().random(self._value.shape) < probability
    return _fill(self, _ew.bernoulli_fill, draws)


@torch_api(_ew.exponential_fill.name, function=False, inplace=True,
           example=lambda x: x.exponential_(2.0))
def exponential_(self, lambd: float = 1, *, generator: Any = None) -> Tensor:
    """Fill with values drawn from the exponential distribution of rate ``lambd``
    (``ExponentialBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> bool((symgrad.empty(100).exponential_() >= 0).all())
    True
    """
    _floating(self, "exponential_cpu")
    lambd = parser.number_arg("exponential_", "lambd", lambd, 1)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _fill(self, _ew.exponential_fill, _rng().exponential(1 / lambd, self._value.shape))


@torch_api(_ew.random_fill.name, function=False, inplace=True,
           example=lambda x: x.random_(0, 10))
def random_(self, from_: int = 0, to: int | None = None, *, generator: Any = None) -> Tensor:
    """Fill with integers drawn uniformly from ``[from_, to)``; ``random_(to)`` draws from
    ``[0, to)``, ``random_()`` from 0 to the largest integer the dtype holds exactly
    (``RandomBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.zeros(100, dtype=symgrad.int64).random_(3)
    >>> sorted(set(x.tolist()))
    [0, 1, 2]
    """
    given = (from_,) if to is None else (from_, to)
    if not all(parser._is_int(v) for v in given):
        raise parser.invalid_combination("random_", given, {})
    from_, to = parser.int64(from_), None if to is None else parser.int64(to)
    if to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:
        kind = self._value.dtype
        to = 2 ** np.finfo(kind).nmant + 1 if kind.kind == "f" else (
            2 if kind.kind == "b" else 2 ** 63 - 1)
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} "
                           f">= to={to}")
    return _fill(self, _ew.random_fill, _rng().integers(from_, to, self._value.shape))


@torch_api("setitem", function=False, inplace=True, example=lambda x: x.fill_diagonal_(5.0))
def fill_diagonal_(self, fill_value: Any, wrap: bool = False) -> Tensor:
    """Set the main diagonal (all indices equal) to ``fill_value``; for a tall matrix,
    ``wrap`` starts it again after every ``columns + 1`` rows, as numpy's ``fill_diagonal``
    (``CopySlices``).

    >>> symgrad.zeros(2, 3).fill_diagonal_(5)
    tensor([[5., 0., 0.],
            [0., 5., 0.]])
    """
    fill_value = parser.number_arg("fill_diagonal_", "fill_value", fill_value, 1)
    shape = self._value.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if len(shape) > 2:
        mask = np.zeros(shape, dtype=bool)
        np.fill_diagonal(mask, True)
        self[_make(mask)] = fill_value
        return self
    rows, cols = shape
    step = cols + 1 if wrap and rows > cols else rows  # the diagonal's blocks, as numpy's wrap
    for start in range(0, rows, step):
        self[start:].diagonal().fill_(fill_value)  # a view: recorded as CopySlices
    return self


@torch_api(NO_GRAPH, method=False)
def bernoulli(input: Tensor, p: float | None = None, *,  # noqa: A002
              generator: Any = None) -> Tensor:
    """1 with the probability each element of ``input`` gives (or ``p``), else 0; not
    recorded.

    >>> symgrad.bernoulli(symgrad.tensor([0.0, 1.0]))
    tensor([0., 1.])
    """
    parser.tensor_arg("bernoulli", "input", input)
    probability = input._value if p is None else p
    if ((np.asarray(probability) < 0) | (np.asarray(probability) > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    draws = _rng().random(input._value.shape) < probability
    return _make(draws.astype(input._value.dtype))


@torch_api(NO_GRAPH, method=False)
def poisson(input: Tensor, generator: Any = None) -> Tensor:  # noqa: A002
    """Counts drawn from Poisson distributions of the rates in ``input``, in its dtype.

    >>> symgrad.poisson(symgrad.zeros(3))
    tensor([0., 0., 0.])
    """
    parser.tensor_arg("poisson", "input", input)
    return _make(_rng().poisson(input._value).astype(input._value.dtype))


@torch_api(NO_GRAPH, method=False)
def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *, generator: Any = None,
           dtype: Any = None, requires_grad: bool = False, **kwargs: Any) -> Tensor:
    """Values drawn from N(mean, std²): ``mean`` and ``std`` numbers or tensors (broadcast),
    or numbers with ``size``; not recorded.

    >>> _ = symgrad.manual_seed(0)
    >>> symgrad.normal(symgrad.zeros(3), 0.0)
    tensor([0., 0., 0.])
    """
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    m = mean._value if isinstance(mean, Tensor) else mean
    s = std._value if isinstance(std, Tensor) else std
    if (np.asarray(s) < 0).any():
        raise RuntimeError(f"normal expects std >= 0.0, but found std {np.min(s)}")
    if tensors:
        shape = np.broadcast_shapes(*(t._value.shape for t in tensors))
        target = dtypes.promote([(t.dtype, t._value.ndim) for t in tensors], [])
    else:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            "(float, float), but expected one of:\n * (Tensor mean, Tensor "
                            "std)\n * (float mean, float std, tuple of ints size)")
        shape = parser.size_arg("normal", size, varargs=False)
        target = parser.dtype_arg("normal", dtype) or dtypes.get_default_dtype()
    values = _rng().normal(m, s, shape).astype(target.np_dtype)
    return creation._finish(values, requires_grad)
