"""``symgrad.nn.init``: PyTorch's initialisers, filling a tensor in place without recording.

The distributions, bounds and gains are PyTorch's; the random numbers are numpy's (the stream
``symgrad.manual_seed`` seeds, or a ``symgrad.Generator`` given as ``generator``), so the same
seed gives different values from PyTorch's.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.autograd.grad_mode import no_grad
from symgrad.creation import Generator, from_numpy, randperm, stream
from symgrad.tensor import Tensor

__all__ = [
    "calculate_gain", "constant", "constant_", "dirac", "dirac_", "eye", "eye_",
    "kaiming_normal", "kaiming_normal_", "kaiming_uniform", "kaiming_uniform_", "normal",
    "normal_", "ones_", "orthogonal", "orthogonal_", "sparse", "sparse_", "trunc_normal_",
    "uniform", "uniform_", "xavier_normal", "xavier_normal_", "xavier_uniform",
    "xavier_uniform_", "zeros_",
]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def _fill(tensor: Tensor, values: np.ndarray) -> Tensor:
    """Copy ``values`` into ``tensor`` (its dtype) without recording; returns ``tensor``."""
    with no_grad():
        tensor.copy_(from_numpy(np.asarray(values, order="C")))
    return tensor


def _draws(size: tuple[int, ...], generator: Generator | None, normal: bool) -> np.ndarray:
    """Standard normal (or uniform [0, 1)) float64 draws from ``generator`` or the global
    stream; PyTorch's initialisers draw with ``normal_`` / ``uniform_`` and refuse a wrong
    ``generator`` in those methods' words."""
    rng = stream(generator, "normal_" if normal else "uniform_")
    return np.asarray(rng.standard_normal(size) if normal else rng.random(size))


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table: 1 for linear, conv and
    sigmoid, 5/3 for tanh, √2 for relu, √(2/(1+slope²)) for leaky_relu, 3/4 for selu).

    >>> symgrad.nn.init.calculate_gain("relu")
    1.4142135623730951
    >>> symgrad.nn.init.calculate_gain("leaky_relu", 0.2)
    1.3867504905630728
    """
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int | float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: Generator | None = None) -> Tensor:
    """Fill with values drawn uniformly from [a, b).

    >>> _ = symgrad.manual_seed(0)
    >>> w = symgrad.nn.init.uniform_(symgrad.empty(1000), -0.5, 0.5)
    >>> bool((w >= -0.5).all() and (w < 0.5).all())
    True
    """
    return _fill(tensor, a + (b - a) * _draws(tuple(tensor.shape), generator, False))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Generator | None = None) -> Tensor:
    """Fill with values drawn from N(mean, std²).

    >>> _ = symgrad.manual_seed(0)
    >>> w = symgrad.nn.init.normal_(symgrad.empty(10000), 3.0, 0.5)
    >>> round(w.mean().item(), 1), round(w.std().item(), 1)
    (3.0, 0.5)
    """
    return _fill(tensor, mean + std * _draws(tuple(tensor.shape), generator, True))


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Generator | None = None) -> Tensor:
    """Fill with values from N(mean, std²) truncated to [a, b] (draws outside are redrawn).

    >>> _ = symgrad.manual_seed(0)
    >>> w = symgrad.nn.init.trunc_normal_(symgrad.empty(1000), std=1.0, a=-0.5, b=0.5)
    >>> bool((w.abs() <= 0.5).all())
    True
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    values = np.empty(tuple(tensor.shape))
    todo = np.ones(values.shape, dtype=bool)
    while todo.any():
        values[todo] = mean + std * _draws((int(todo.sum()),), generator, True)
        todo = (values < a) | (values > b)
    return _fill(tensor, values)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``.

    >>> symgrad.nn.init.constant_(symgrad.empty(3), 0.5)
    tensor([0.5000, 0.5000, 0.5000])
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones.

    >>> symgrad.nn.init.ones_(symgrad.empty(2))
    tensor([1., 1.])
    """
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros.

    >>> symgrad.nn.init.zeros_(symgrad.empty(2))
    tensor([0., 0.])
    """
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-d tensor with the identity matrix.

    >>> symgrad.nn.init.eye_(symgrad.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-d convolution weight with the Dirac delta (the convolution keeps
    the identity of as many input channels as possible).

    >>> symgrad.nn.init.dirac_(symgrad.empty(1, 1, 3))
    tensor([[[0., 1., 0.]]])
    """
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    shape = tuple(tensor.shape)
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = shape[0] // groups
    values = np.zeros(shape)
    centre = tuple(k // 2 for k in shape[2:])
    for g in range(groups):
        for d in range(min(out_per_group, shape[1])):
            values[(g * out_per_group + d, d, *centre)] = 1
    return _fill(tensor, values)


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0,
                    generator: Generator | None = None) -> Tensor:
    """Glorot's uniform initialisation: U(-a, a) with a = gain·√(6 / (fan_in + fan_out)).

    >>> _ = symgrad.manual_seed(0)
    >>> w = symgrad.nn.init.xavier_uniform_(symgrad.empty(30, 20))
    >>> bool((w.abs() < (6 / 50) ** 0.5).all())
    True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0,
                   generator: Generator | None = None) -> Tensor:
    """Glorot's normal initialisation: N(0, std²) with std = gain·√(2 / (fan_in + fan_out)).

    >>> _ = symgrad.manual_seed(0)
    >>> w = symgrad.nn.init.xavier_normal_(symgrad.empty(200, 200))
    >>> round(w.std().item(), 2)
    0.07
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    """He's uniform initialisation: U(-b, b) with b = gain·√(3 / fan). ``Linear`` and
    ``Conv`` weights start as ``kaiming_uniform_(w, a=√5)``: b = 1/√fan_in.

    >>> _ = symgrad.manual_seed(0)
    >>> w = symgrad.nn.init.kaiming_uniform_(symgrad.empty(50, 16), a=5 ** 0.5)
    >>> bool((w.abs() < 1 / 16 ** 0.5).all())
    True
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu",
                    generator: Generator | None = None) -> Tensor:
    """He's normal initialisation: N(0, std²) with std = gain / √fan.

    >>> _ = symgrad.manual_seed(0)
    >>> w = symgrad.nn.init.kaiming_normal_(symgrad.empty(100, 400), nonlinearity="relu")
    >>> round(w.std().item(), 3)
    0.071
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix (QR of a Gaussian matrix, signs fixed by R's
    diagonal), times ``gain``; dimensions after the first are flattened.

    >>> _ = symgrad.manual_seed(0)
    >>> q = symgrad.nn.init.orthogonal_(symgrad.empty(3, 3))
    >>> symgrad.allclose(q @ q.t(), symgrad.eye(3), atol=1e-6)
    True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _draws((rows, cols), generator, True)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tuple(tensor.shape)))


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01,
            generator: Generator | None = None) -> Tensor:
    """Fill a 2-d tensor as a sparse matrix: values from N(0, std²), then in each column the
    rows of a random ``ceil(sparsity·rows)``-subset set to zero.

    >>> _ = symgrad.manual_seed(0)
    >>> w = symgrad.nn.init.sparse_(symgrad.empty(4, 3), sparsity=0.5)
    >>> (w == 0).sum(dim=0).tolist()
    [2, 2, 2]
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    values = std * _draws((rows, cols), generator, True)
    for col in range(cols):  # (the rows from the global stream, as PyTorch's randperm here)
        values[randperm(rows).numpy()[:num_zeros], col] = 0
    return _fill(tensor, values)


def _make_deprecate(method: Callable[..., Tensor],
                    example: str = "symgrad.empty(3, 3, 3)") -> Callable[..., Tensor]:
    """PyTorch's old spelling without the trailing underscore: warns (FutureWarning), then
    calls ``method`` (``example``: its arguments in the docstring's example)."""
    new_name = method.__name__
    old_name = new_name[:-1]

    @functools.wraps(method)
    def deprecated_init(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return method(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = (
        f"Deprecated spelling of :func:`{new_name}` (warns a FutureWarning, as PyTorch).\n\n"
        "    >>> import warnings\n"
        "    >>> with warnings.catch_warnings(record=True) as caught:\n"
        "    ...     warnings.simplefilter('always')\n"
        f"    ...     _ = symgrad.nn.init.{old_name}({example})\n"
        "    >>> print(caught[0].message)\n"
        f"    `nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.\n")
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_, "symgrad.empty(3), 0.5")
eye = _make_deprecate(eye_, "symgrad.empty(3, 3)")
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_, "symgrad.empty(3, 3), 0.5")
