"""PyTorch's in-place random fills and random functions (see ``symgrad.torch_api``):
``uniform_``, ``normal_``, ``bernoulli_``, ``exponential_``, ``random_``, ``cauchy_``,
``log_normal_``, ``geometric_``, ``fill_diagonal_``,
and ``symgrad.bernoulli``, ``normal``, ``poisson``.

The values come from numpy's generator behind ``symgrad.manual_seed``, or a
``symgrad.Generator`` given as ``generator`` (other streams than PyTorch's, the same on every
run with the same seed). An in-place fill records a node whose
gradient is zero (``UniformBackward0`` ...), as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import creation, ops, parser
from symgrad.dispatch import apply_inplace, apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make
from symgrad.torch_api.arguments import result_dtype
from symgrad.torch_api.declaration import NO_GRAPH, torch_api
from symgrad.torch_api.pointwise import _floating

_ew = ops.elementwise


def _fill(x: Tensor, op: ops.Op, values: np.ndarray) -> Tensor:
    return apply_inplace(op, x, values=np.asarray(values, dtype=x._value.dtype))


@torch_api(_ew.uniform_fill.name, function=False, inplace=True,
           example=lambda x: x.uniform_(-1, 1))
def uniform_(self, from_: float = 0, /, to: float = 1, *,
             generator: creation.Generator | None = None) -> Tensor:
    """Fill with values drawn uniformly from ``[from_, to)`` (``UniformBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.empty(1000).uniform_(-2, 2)
    >>> bool((x >= -2).all() and (x < 2).all())
    True
    """
    rng = creation.stream(generator, "uniform_")
    _floating(self, "check_uniform_bounds")
    from_, to = (parser.number_arg("uniform_", n, v, i + 1, "float")
                 for i, (n, v) in enumerate((("from", from_), ("to", to))))
    for name, value in (("from", from_), ("to", to)):
        if not np.isfinite(value) or abs(value) > np.finfo(self._value.dtype).max:
            raise RuntimeError(f"{name} is out of bounds for {self.dtype._cpp_name}")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_:g} > to={to:g}")
    return _fill(self, _ew.uniform_fill, rng.uniform(from_, to, self._value.shape))


@torch_api(_ew.normal_fill.name, function=False, inplace=True,
           example=lambda x: x.normal_(0, 2))
def normal_(self, mean: float = 0, std: float = 1, *,
            generator: creation.Generator | None = None) -> Tensor:
    """Fill with values drawn from N(mean, std²) (``NormalBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.empty(10000).normal_(3.0, 0.5)
    >>> round(x.mean().item(), 1), round(x.std().item(), 1)
    (3.0, 0.5)
    """
    rng = creation.stream(generator, "normal_")
    _floating(self, "normal_kernel_cpu")
    mean, std = (parser.number_arg("normal_", n, v, i + 1, "float")
                 for i, (n, v) in enumerate((("mean", mean), ("std", std))))
    if not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    return _fill(self, _ew.normal_fill, rng.normal(mean, std, self._value.shape))


_HALF = 0.5  # bernoulli_'s default p (PyTorch's refusal lists only the arguments given)


@torch_api(_ew.bernoulli_fill.name, function=False, inplace=True,
           example=lambda x: x.bernoulli_(0.25))
def bernoulli_(self, p: Any = _HALF, *, generator: creation.Generator | None = None) -> Tensor:
    """Fill with 1 with probability ``p`` (a number or a tensor broadcast to this shape),
    else 0 (``BernoulliBackward2``).

    >>> _ = symgrad.manual_seed(0)
    >>> symgrad.zeros(4).bernoulli_(symgrad.tensor([0.0, 1.0, 0.0, 1.0]))
    tensor([0., 1., 0., 1.])
    """
    rng = creation.stream(generator, "bernoulli_", (() if p is _HALF else (p,),
                                                    {"generator": generator}))
    if not isinstance(p, Tensor):
        p = parser.number_arg("bernoulli_", "p", p, 1)
    probability = p._value if isinstance(p, Tensor) else p
    if not isinstance(p, Tensor) and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    if isinstance(p, Tensor) and ((probability < 0) | (probability > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    draws = rng.random(self._value.shape) < probability
    return _fill(self, _ew.bernoulli_fill, draws)


@torch_api(_ew.exponential_fill.name, function=False, inplace=True,
           example=lambda x: x.exponential_(2.0))
def exponential_(self, lambd: float = 1, *,
                 generator: creation.Generator | None = None) -> Tensor:
    """Fill with values drawn from the exponential distribution of rate ``lambd``
    (``ExponentialBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> bool((symgrad.empty(100).exponential_() >= 0).all())
    True
    """
    rng = creation.stream(generator, "exponential_")
    _floating(self, "exponential_cpu")
    lambd = parser.number_arg("exponential_", "lambd", lambd, 1, "float")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    return _fill(self, _ew.exponential_fill, rng.exponential(1 / lambd, self._value.shape))


@torch_api(_ew.random_fill.name, function=False, inplace=True,
           example=lambda x: x.random_(0, 10))
def random_(self, from_: int = 0, /, to: int | None = None, *,
            generator: creation.Generator | None = None) -> Tensor:
    """Fill with integers drawn uniformly from ``[from_, to)``; ``random_(to)`` draws from
    ``[0, to)``, ``random_()`` from 0 to the largest integer the dtype holds exactly
    (``RandomBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.zeros(100, dtype=symgrad.int64).random_(3)
    >>> sorted(set(x.tolist()))
    [0, 1, 2]
    """
    given = (from_,) if to is None else (from_, to)
    rng = creation.stream(generator, "random_", None if to is not None else (
        given if from_ else (), {"generator": generator}))  # (PyTorch's overloads)
    if not all(parser._is_int(v) for v in given):
        raise parser.invalid_combination("random_", given, {})
    from_, to = parser.int64(from_), None if to is None else parser.int64(to)
    if to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:  # (each dtype's exact integers from 0)
        kind = self._value.dtype
        to = 2 ** np.finfo(kind).nmant + 1 if kind.kind == "f" else (
            2 if kind.kind == "b" else 2 ** 63 - 1 if kind.itemsize == 8
            else int(np.iinfo(kind).max) + 1)
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} "
                           f">= to={to}")
    dtypes.check_random_bounds(from_, to, self.dtype)
    return _fill(self, _ew.random_fill, rng.integers(from_, to, self._value.shape))


@torch_api(_ew.cauchy_fill.name, function=False, inplace=True,
           example=lambda x: x.cauchy_(0.5, 2.0))
def cauchy_(self, median: float = 0, sigma: float = 1, *,
            generator: creation.Generator | None = None) -> Tensor:
    """Fill with values drawn from the Cauchy distribution centred on ``median`` with scale
    ``sigma`` (``CauchyBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.empty(10001).cauchy_(3.0, 0.5)
    >>> round(x.median().item())
    3
    """
    rng = creation.stream(generator, "cauchy_")
    median, sigma = (parser.number_arg("cauchy_", n, v, i + 1, "float")
                     for i, (n, v) in enumerate((("median", median), ("sigma", sigma))))
    if self._value.dtype.kind != "f":
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{self.dtype._cpp_name}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return _fill(self, _ew.cauchy_fill, median + sigma * rng.standard_cauchy(self._value.shape))


@torch_api(_ew.log_normal_fill.name, function=False, inplace=True,
           example=lambda x: x.log_normal_(0.0, 0.5))
def log_normal_(self, mean: float = 1, std: float = 2, *,
                generator: creation.Generator | None = None) -> Tensor:
    """Fill with values whose logarithm is drawn from N(mean, std²) (``LogNormalBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.empty(10000).log_normal_(0.0, 0.25)
    >>> round(x.log().mean().item(), 1), round(x.log().std().item(), 2)
    (0.0, 0.25)
    """
    rng = creation.stream(generator, "log_normal_")
    mean, std = (parser.number_arg("log_normal_", n, v, i + 1, "float")
                 for i, (n, v) in enumerate((("mean", mean), ("std", std))))
    _floating(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _fill(self, _ew.log_normal_fill, rng.lognormal(mean, std, self._value.shape))


@torch_api(_ew.geometric_fill.name, function=False, inplace=True,
           example=lambda x: x.geometric_(0.5))
def geometric_(self, p: float, *, generator: creation.Generator | None = None) -> Tensor:
    """Fill with the number of Bernoulli trials of success probability ``p`` up to the
    first success (1, 2, ...), in any dtype but bool (``GeometricBackward0``).

    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.zeros(10000, dtype=symgrad.int64).geometric_(0.5)
    >>> int(x.min()), round(x.double().mean().item())
    (1, 2)
    """
    rng = creation.stream(generator, "geometric_")
    p = parser.number_arg("geometric_", "p", p, 1, "float")
    if self._value.dtype.kind == "b":
        raise dtypes.not_implemented("geometric_cpu", dtypes.bool_)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill(self, _ew.geometric_fill, rng.geometric(p, self._value.shape))


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


@torch_api(_ew.bernoulli_draw.name, example=lambda x: (x / 10).sigmoid().bernoulli())
def bernoulli(input: Tensor, p: float | None = None, *,  # noqa: A002
              generator: creation.Generator | None = None) -> Tensor:
    """1 with the probability each element of ``input`` gives (or ``p``), else 0; drawn from
    ``input``'s probabilities, a node of zero gradient is recorded (``BernoulliBackward0``).

    >>> symgrad.bernoulli(symgrad.tensor([0.0, 1.0]))
    tensor([0., 1.])
    """
    parser.tensor_arg("bernoulli", "input", input)
    rng = creation.stream(generator, "bernoulli", (
        (input,) if p is None else (input, p), {"generator": generator}))
    probability = input._value if p is None else p
    if ((np.asarray(probability) < 0) | (np.asarray(probability) > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    draws = (rng.random(input._value.shape) < probability).astype(input._value.dtype)
    if p is None and input.requires_grad:
        return apply_op(_ew.bernoulli_draw, input, values=draws)
    return _make(draws)


@torch_api(NO_GRAPH, method=False)
def poisson(input: Tensor, generator: creation.Generator | None = None) -> Tensor:  # noqa: A002
    """Counts drawn from Poisson distributions of the rates in ``input``, in its dtype.

    >>> symgrad.poisson(symgrad.zeros(3))
    tensor([0., 0., 0.])
    """
    parser.tensor_arg("poisson", "input", input)
    rng = creation.stream(generator, "poisson")
    return _make(np.asarray(rng.poisson(input._value), dtype=input._value.dtype))


@torch_api(NO_GRAPH, method=False)
def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *,
           generator: creation.Generator | None = None,
           dtype: Any = None, requires_grad: bool = False, **kwargs: Any) -> Tensor:
    """Values drawn from N(mean, std²): ``mean`` and ``std`` numbers or tensors (broadcast),
    or numbers with ``size``; not recorded.

    >>> _ = symgrad.manual_seed(0)
    >>> symgrad.normal(symgrad.zeros(3), 0.0)
    tensor([0., 0., 0.])
    """
    given = (mean, std) if size is None else (mean, std, size)
    rng = creation.stream(generator, "normal", (given, {"generator": generator}))
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    m = mean._value if isinstance(mean, Tensor) else mean
    s = std._value if isinstance(std, Tensor) else std
    if (np.asarray(s) < 0).any():
        raise RuntimeError(f"normal expects std >= 0.0, but found std {np.min(s)}")
    if tensors:
        shape = np.broadcast_shapes(*(t._value.shape for t in tensors))
        target = result_dtype(*tensors)
    else:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            "(float, float), but expected one of:\n * (Tensor mean, Tensor "
                            "std)\n * (float mean, float std, tuple of ints size)")
        shape = parser.size_arg("normal", size, varargs=False)
        target = parser.dtype_arg("normal", dtype) or dtypes.get_default_dtype()
    values = rng.normal(m, s, shape).astype(target.np_dtype)
    return creation._finish(values, requires_grad)
