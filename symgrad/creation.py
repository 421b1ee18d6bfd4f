"""Tensor factories: tensor(), ones, zeros, full, arange, linspace, eye, rand, randn, *_like."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import parser
from symgrad.autograd.graph import warn_at_user
from symgrad.numeric import dtypes
from symgrad.numeric import numpy_namespace as xp
from symgrad.tensor import _CPU_ONLY, CPU, Tensor, _make, check_device
from symgrad.tensor import device as _device


class _FirstUse:
    """Stands for the generator until its first use, which makes it (importing numpy.random
    would cost ``import symgrad`` a fifth of its time)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_default_stream(), name)


def _default_stream() -> np.random.Generator:
    """The numpy Generator behind the global stream, made on first use."""
    global _rng
    if isinstance(_rng, _FirstUse):
        _rng = np.random.default_rng(initial_seed())
    return _rng


_rng: Any = _FirstUse()
_seed: int | None = None  # the seed of _rng (drawn from the OS on first use unless set)
_DEFAULT_SEED = 67280421310721  # the seed PyTorch gives a new Generator
_SEED_END = 2 ** 64


def _seed_value(seed: int) -> int:
    """A seed as PyTorch stores it: an int from int64's least to uint64's largest, negative
    ones read as their uint64 bits; beyond, PyTorch's ValueError."""
    if not dtypes.INT64_MIN <= seed < _SEED_END:
        raise ValueError("Overflow when unpacking long long")
    return seed % _SEED_END


def _fresh_seed() -> int:
    return int(np.random.SeedSequence().entropy) % 2**63


def initial_seed() -> int:
    """The seed of the generator behind the random factories: the last ``manual_seed`` or
    ``seed``, else one drawn from the operating system on first use.

    >>> _ = symgrad.manual_seed(7)
    >>> symgrad.initial_seed()
    7
    """
    global _seed
    if _seed is None:
        _seed = _fresh_seed()
    return _seed


def seed() -> int:
    """Seed the generator with a fresh non-deterministic seed, and return it.

    >>> s = symgrad.seed()
    >>> s == symgrad.initial_seed()
    True
    """
    value = _fresh_seed()
    manual_seed(value)
    return value


def _state_arg(new_state: Any) -> dict:
    if not isinstance(new_state, dict) or "bit_generator" not in new_state:
        raise TypeError("expected a state returned by get_rng_state() or "
                        f"Generator.get_state(), but got {type(new_state).__name__}")
    import copy  # (here: the module costs import symgrad more than these rare calls)

    return copy.deepcopy(new_state)


def get_rng_state() -> dict:
    """The generator's state, for :func:`set_rng_state` (numpy's PCG64 state as a dict, where
    PyTorch gives a ByteTensor of its own generator's).

    >>> _ = symgrad.manual_seed(0)
    >>> state = symgrad.get_rng_state()
    >>> a = symgrad.rand(2)
    >>> symgrad.set_rng_state(state)
    >>> symgrad.equal(a, symgrad.rand(2))
    True
    """
    return _state_arg(_default_stream().bit_generator.state)


def set_rng_state(new_state: dict) -> None:
    """Restore a state that :func:`get_rng_state` returned.

    >>> state = symgrad.get_rng_state()
    >>> symgrad.set_rng_state(state)
    >>> symgrad.get_rng_state() == state
    True
    """
    _default_stream().bit_generator.state = _state_arg(new_state)


def manual_seed(seed: int) -> Generator:
    """Seed the generator behind rand/randn and return it (:data:`default_generator`). Its
    stream differs from PyTorch's, so the same seed gives other numbers than in PyTorch, but
    the same numbers on every run. As PyTorch, any int from -2**63 to 2**64 - 1 is a seed
    (``int(seed)``: a float is truncated); a negative one is kept as its uint64 bits.

    >>> _ = symgrad.manual_seed(0)
    >>> a = symgrad.rand(2)
    >>> _ = symgrad.manual_seed(0)
    >>> symgrad.equal(a, symgrad.rand(2))
    True
    >>> symgrad.manual_seed(-1).initial_seed()
    18446744073709551615
    """
    global _rng, _seed
    value = _seed_value(int(seed))
    _rng = np.random.default_rng(value)
    _seed = value
    return default_generator


class Generator:
    """A random stream of its own, as ``torch.Generator``: the random factories, in-place
    fills, ``nn.init`` and the samplers take one as ``generator=``. It starts from PyTorch's
    default seed; ``manual_seed`` returns it, so ``Generator().manual_seed(0)`` is one line.
    Its numbers are numpy's (PCG64), not PyTorch's, and its state is numpy's (a dict), where
    PyTorch's is a ByteTensor.

    >>> g = symgrad.Generator().manual_seed(0)
    >>> a = symgrad.randn(3, generator=g)
    >>> symgrad.equal(a, symgrad.randn(3, generator=symgrad.Generator().manual_seed(0)))
    True
    >>> g.initial_seed(), g.device
    (0, device(type='cpu'))
    """

    def __init__(self, device: Any = "cpu") -> None:
        if device is not None and not isinstance(device, str | _device):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        kind = _device(device).type if device is not None else "cpu"
        if kind in ("cuda", "xpu", "mtia"):  # (PyTorch's errors without these backends)
            raise RuntimeError(f"Cannot get {kind.upper()} generator without ATen_{kind} "
                               f"library.{_CPU_ONLY}")
        if kind == "mps":
            raise RuntimeError(f"Cannot execute getNewGenerator() without MPS backend.{_CPU_ONLY}")
        if kind != "cpu":
            raise RuntimeError(f"{kind.upper()} device type not an accelerator.")
        self._seed = _DEFAULT_SEED
        self._stream: np.random.Generator | None = None
        self._global = False  # (default_generator: the global stream, which manual_seed seeds)

    @property
    def device(self) -> _device:
        """Where the stream's numbers go: the CPU.

        >>> symgrad.Generator().device
        device(type='cpu')
        """
        return CPU

    def _numpy(self) -> np.random.Generator:
        if self._global:
            return _default_stream()
        if self._stream is None:
            self._stream = np.random.default_rng(self._seed)
        return self._stream

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed`` (an int, as PyTorch's; a negative one is kept as
        its uint64 bits); returns the generator.

        >>> symgrad.Generator().manual_seed(5).initial_seed()
        5
        """
        if not parser._is_int(seed) or isinstance(seed, np.ndarray | Tensor):
            raise RuntimeError(f"manual_seed expected a long, but got {parser.type_name(seed)}")
        if self._global:
            return manual_seed(seed)
        self._seed = _seed_value(int(seed))
        self._stream = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Restart the stream from a fresh non-deterministic seed, and return it.

        >>> g = symgrad.Generator()
        >>> g.seed() == g.initial_seed()
        True
        """
        value = _fresh_seed()
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        """The seed the stream started from (PyTorch's default one for a new generator).

        >>> symgrad.Generator().initial_seed()
        67280421310721
        """
        return initial_seed() if self._global else self._seed

    def get_state(self) -> dict:
        """The stream's state, for :meth:`set_state` (numpy's PCG64 state as a dict).

        >>> symgrad.Generator().get_state()["bit_generator"]
        'PCG64'
        """
        return _state_arg(self._numpy().bit_generator.state)

    def set_state(self, new_state: dict) -> Generator:
        """Go back to a state :meth:`get_state` returned; returns the generator.

        >>> g = symgrad.Generator()
        >>> state = g.get_state()
        >>> a = symgrad.rand(2, generator=g)
        >>> symgrad.equal(a, symgrad.rand(2, generator=g.set_state(state)))
        True
        """
        self._numpy().bit_generator.state = _state_arg(new_state)
        return self

    def clone_state(self) -> Generator:
        """A new generator in this one's state: both give the same numbers from here on.

        >>> g = symgrad.Generator().manual_seed(1)
        >>> twin = g.clone_state()
        >>> symgrad.equal(symgrad.rand(2, generator=g), symgrad.rand(2, generator=twin))
        True
        """
        twin = Generator()
        twin._seed = self.initial_seed()
        twin.set_state(self.get_state())
        return twin

    def get_offset(self) -> int:
        """Refused, as PyTorch refuses it for a CPU generator (only device streams have one).

        >>> symgrad.Generator().get_offset()
        Traceback (most recent call last):
        RuntimeError: CPU Generator does not use offset
        """
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset: int) -> Generator:
        """Refused, as :meth:`get_offset`.

        >>> symgrad.Generator().set_offset(0)
        Traceback (most recent call last):
        RuntimeError: CPU Generator does not use offset
        """
        raise RuntimeError("CPU Generator does not use offset")

    def __repr__(self) -> str:
        return f"<symgrad.Generator object at {id(self):#x}>"


default_generator = Generator()  # the global stream (PyTorch's torch.default_generator)
default_generator._global = True


def stream(generator: Any, fn: str, call: tuple | None = None) -> Any:
    """The numpy Generator a random function draws from: the global stream for None, a
    :class:`Generator`'s own, or a numpy Generator given as it is. Anything else is refused
    with PyTorch's TypeError for ``fn``: one naming the argument, or, given ``call`` (the
    arguments, as :func:`parser.invalid_combination` takes them), the one listing them."""
    if generator is None:
        return _rng
    if isinstance(generator, Generator):
        return generator._numpy()
    if isinstance(generator, np.random.Generator):
        return generator
    if call is not None:
        raise parser.invalid_combination(fn, *call)
    raise parser.wrong_type(fn, "generator", "symgrad.Generator", generator)


def _finish(value: np.ndarray, requires_grad: bool, name: str | None = None,
            dev: Any = None) -> Tensor:
    check_device(dev)
    out = _make(value)
    if requires_grad:
        if value.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        out._requires_grad = True
    if name is not None:
        out.name = name
    return out


def _infer_dtype(data: Any) -> dtypes.dtype:
    """PyTorch's dtype for Python data: bools -> bool, ints -> int64, floats -> the default;
    numpy scalars inside keep their own dtype (a np.float64 makes the result float64)."""
    flat = _flatten(data)
    if any(isinstance(v, complex | np.complexfloating) for v in flat):
        raise TypeError("symgrad does not support complex numbers")
    best: dtypes.dtype | None = None
    for v in flat:
        if isinstance(v, np.generic):
            d = dtypes.from_numpy_dtype(v.dtype)
        elif isinstance(v, bool | int | float):
            d = (dtypes.bool_, dtypes.int64, dtypes.get_default_dtype())[
                dtypes.scalar_category(v)]
        elif isinstance(v, str | bytes):
            raise TypeError(f"new(): invalid data type '{type(v).__name__}'")
        else:
            raise RuntimeError(f"Could not infer dtype of {parser.type_name(v)}")
        if best is None or (d._category, d.np_dtype.itemsize) > (best._category,
                                                                 best.np_dtype.itemsize):
            best = d
    return best if best is not None else dtypes.get_default_dtype()


def _flatten(data: Any) -> list:
    if isinstance(data, list | tuple):
        return [v for item in data for v in _flatten(item)]
    if isinstance(data, np.ndarray):
        return [data.dtype.type(0)] if data.size else []
    return [data]


def tensor(data: Any, dtype: dtypes.dtype | None = None, device: Any = None,
           requires_grad: bool = False, *, name: str | None = None) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (nested lists, numbers, numpy arrays).

    >>> symgrad.tensor([[1, 2], [3, 4]]).dtype
    symgrad.int64
    >>> symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    tensor([1., 2.], requires_grad=True)
    """
    dtype = parser.dtype_arg("tensor", dtype)
    parser.bool_arg("tensor", "requires_grad", requires_grad)
    return _tensor(data, dtype, device, requires_grad, name)


def _tensor(data: Any, dtype: dtypes.dtype | None, device: Any, requires_grad: bool,
            name: str | None) -> Tensor:
    if isinstance(data, Tensor):
        warn_at_user(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than symgrad.tensor(sourceTensor).")
        value = data._value
    elif isinstance(data, np.ndarray | np.generic):
        value = np.asarray(data)
        if dtype is None:
            dtype = dtypes.from_numpy_dtype(value.dtype)
    else:
        if isinstance(data, range):
            data = list(data)
        if isinstance(data, Sequence) and not isinstance(data, str):
            _refuse_strings(data)
            data = _unwrap_nested(data)
        if dtype is None:
            dtype = _infer_dtype(data)
        value = data
    target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.from_numpy_dtype(
        np.asarray(value).dtype)
    if isinstance(value, list | tuple):
        _check_rectangular(value)
    if target.np_dtype.kind in "iu" and not isinstance(value, np.ndarray | np.generic):
        _refuse_overflow(value, target)
        if target.itemsize < 8:  # (numpy refuses uint8's -1; PyTorch wraps it)
            value = np.array(value)
    try:
        array = xp.quietly(np.array, value, dtype=target.np_dtype, copy=True)
    except OverflowError:  # a Python int beyond int64
        raise ValueError("Overflow when unpacking long long") from None
    except (TypeError, ValueError) as error:
        raise TypeError(f"could not convert the data to a tensor: {error}") from None
    return _finish(array, requires_grad, name, device)


def _refuse_overflow(data: Any, target: dtypes.dtype) -> None:
    """PyTorch refuses a number an integer tensor cannot hold (see dtypes.fits: an inf or nan,
    300 for int8 ...), where numpy casts it to a garbage int; an int beyond int64 is refused
    as numpy refuses it."""
    for v in _flatten(data):
        if isinstance(v, float | np.floating) and not np.isfinite(v) or (
                isinstance(v, int | float) and target.itemsize < 8
                and not dtypes.fits(v, target.np_dtype)):
            raise RuntimeError(f"value cannot be converted to type {target.name} without "
                               "overflow")


def _refuse_strings(data: Sequence) -> None:
    """PyTorch reads a str met first along a nested sequence's first elements as one more
    dimension, and then finds too many."""
    while isinstance(data, list | tuple) and data:
        data = data[0]
        if isinstance(data, str):
            raise ValueError("too many dimensions 'str'")


def _check_rectangular(data: Any, dim: int = 0) -> None:
    """Refuse ragged nested lists with PyTorch's message."""
    if not isinstance(data, list | tuple) or not data:
        return
    first = data[0]
    length = len(first) if isinstance(first, list | tuple) else None
    for item in data:
        here = len(item) if isinstance(item, list | tuple) else None
        if here != length:
            if length is None:
                raise TypeError(f"not a sequence: found a nested sequence at dim {dim + 1}")
            raise ValueError(f"expected sequence of length {length} at dim {dim + 1} "
                             f"(got {here if here is not None else 'a number'})")
        _check_rectangular(item, dim + 1)


def _unwrap_nested(data: Any) -> Any:
    """A nested sequence with its tensors replaced by their values: as in PyTorch, a tensor
    inside a sequence is one number (of its own dtype), so it must have one element."""
    if isinstance(data, Tensor):
        if data._requires_grad:
            float(data)  # PyTorch's warning about converting such a tensor to a scalar
        data._scalar_value()  # PyTorch's error for a tensor of several elements
        return data._value.reshape(-1)[0]
    if isinstance(data, list | tuple):
        return [_unwrap_nested(d) for d in data]
    return data


def as_tensor(data: Any, dtype: dtypes.dtype | None = None, device: Any = None) -> Tensor:
    """``data`` itself when it is a Tensor of that dtype, else a tensor of it (shares numpy
    storage when possible).

    >>> a = np.array([1.0, 2.0])
    >>> x = symgrad.as_tensor(a)
    >>> a[0] = 5.0
    >>> x
    tensor([5., 2.], dtype=symgrad.float64)
    """
    dtype = parser.dtype_arg("as_tensor", dtype)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and dtype is None:
        return from_numpy(data)
    return _tensor(data, dtype, device, False, None)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing ``array``'s memory (and dtype).

    >>> a = np.array([1, 2])
    >>> x = symgrad.from_numpy(a)
    >>> x.add_(10); a
    tensor([11, 12])
    array([11, 12])
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    if dtypes.from_numpy_dtype(array.dtype).np_dtype != array.dtype:  # (uint16, uint32)
        raise TypeError(f"symgrad.from_numpy cannot share memory of a numpy.{array.dtype} array; "
                        "use symgrad.tensor() to convert it")
    return _make(array)


def _checked_size(fn: str, size: tuple, varargs: bool = True) -> tuple[int, ...]:
    shape = parser.size_arg(fn, size, varargs)
    if any(s < 0 for s in shape):
        negative = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: "
                           f"{list(shape)}")
    return shape


def _filled(fn: str, fill: Any, size: tuple, dtype: Any, requires_grad: Any,
            name: str | None, dev: Any, varargs: bool = True) -> Tensor:
    """A tensor of ``fill`` for factory ``fn``, its arguments checked as PyTorch checks them
    (``size`` as ``fn``'s varargs or as its one ``size`` argument)."""
    shape = _checked_size(fn, size, varargs)
    dtype = parser.dtype_arg(fn, dtype)
    parser.bool_arg(fn, "requires_grad", requires_grad)
    if isinstance(fill, complex | np.complexfloating):
        raise TypeError("symgrad does not support complex numbers")
    target = dtypes.as_dtype(dtype) if dtype is not None else _infer_dtype(fill)
    fill = dtypes.check_fill(fill, target.np_dtype)
    if target is dtypes.bool_:
        fill = bool(fill)  # (numpy refuses an int beyond int64 for bool)
    with xp.quiet():  # (np.full casts in numpy's own Python code, out of symgrad's filter)
        values = np.full(shape, fill, dtype=target.np_dtype)
    return _finish(values, requires_grad, name, dev)


def ones(*args: Any, size: Sequence[int] | None = None,
         dtype: dtypes.dtype | None = None, device: Any = None,
         requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of ones (float32 unless ``dtype``).

    >>> symgrad.ones(3, requires_grad=True)
    tensor([1., 1., 1.], requires_grad=True)
    """
    size = parser.varargs("ones", "size", args, size)
    return _filled("ones", 1.0, size, dtype, requires_grad, name, device)


def zeros(*args: Any, size: Sequence[int] | None = None,
          dtype: dtypes.dtype | None = None, device: Any = None,
          requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor of zeros (float32 unless ``dtype``); the size is given as ints or one sequence.

    >>> symgrad.zeros(2, 3)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    >>> symgrad.zeros((2,), dtype=symgrad.int64)
    tensor([0, 0])
    """
    size = parser.varargs("zeros", "size", args, size)
    return _filled("zeros", 0.0, size, dtype, requires_grad, name, device)


def empty(*args: Any, size: Sequence[int] | None = None,
          dtype: dtypes.dtype | None = None, device: Any = None,
          requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A new tensor of the given size (symgrad fills it with zeros; PyTorch leaves it
    uninitialized).

    >>> symgrad.empty(2, 2).shape
    symgrad.Size([2, 2])
    """
    size = parser.varargs("empty", "size", args, size)
    return _filled("empty", 0.0, size, dtype, requires_grad, name, device)


def full(size: Sequence[int], fill_value: Any, *, dtype: dtypes.dtype | None = None,
         device: Any = None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A tensor filled with ``fill_value``; its dtype follows the value, as in PyTorch.

    >>> symgrad.full((2, 2), 1.5)
    tensor([[1.5000, 1.5000],
            [1.5000, 1.5000]])
    >>> symgrad.full((3,), 7)
    tensor([7, 7, 7])
    """
    fill_value = parser.number_arg("full", "fill_value", fill_value, 2)
    return _filled("full", fill_value, size, dtype, requires_grad, name, device, varargs=False)


def _number(fn: str, value: Any, call: tuple) -> Any:
    """A start/end/step bound: a Python number, numpy scalar or 0-d Tensor (others refused as
    PyTorch's overloaded factories refuse them)."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise parser.wrong_type(fn, "end", "Number", value, 1) if fn == "arange" \
                else RuntimeError(f"{fn} only supports 0-dimensional start and end tensors, but "
                                  f"got {'start' if value is call[0][0] else 'end'} with "
                                  f"{value.ndim} dimension(s).")
        return value.item()
    if isinstance(value, bool | int | float | np.number | np.bool_):
        if value.__class__ is int:  # (PyTorch reads a Scalar)
            dtypes.check_int(value)
        return value.item() if isinstance(value, np.generic) else value
    if fn == "arange" and len(call[0]) == 1 and not any(v is not None for v in call[1].values()):
        raise parser.wrong_type(fn, "end", "Number", value, 1)
    raise parser.invalid_combination(fn, *call)


def _float_kernel(kernel: str, target: dtypes.dtype, ok: str = "f") -> None:
    """PyTorch's kernels are not compiled for some dtypes (bool for arange and linspace,
    integers for the random ones)."""
    if target.np_dtype.kind not in ok:
        raise dtypes.not_implemented(kernel, target)


def arange(start: float, end: float | None = None, step: float = 1, *,
           dtype: dtypes.dtype | None = None, device: Any = None,
           requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Values from ``start`` up to (not including) ``end`` by ``step``; int64 for int args.

    >>> symgrad.arange(4)
    tensor([0, 1, 2, 3])
    >>> symgrad.arange(1.0, 2.0, 0.25)
    tensor([1.0000, 1.2500, 1.5000, 1.7500])
    """
    given = (start,) if end is None else (start, end) if step == 1 else (start, end, step)
    call = (given, {"dtype": dtype, "requires_grad": requires_grad or None})
    start, end, step = (_number("arange", v, call) if v is not None else None
                        for v in (start, end, step))
    dtype = parser.dtype_arg("arange", dtype, call)
    parser.bool_arg("arange", "requires_grad", requires_grad, call)
    if end is None:
        start, end = 0, start
    if dtype is None:
        dtype = _infer_dtype([start, end, step])
    _float_kernel("arange_cpu", dtype, "iuf")
    for bound in (start, end, step):
        dtypes.check_fill(bound, dtype.np_dtype)
    _check_range(start, end, step)
    count = int(np.ceil((end - start) / step))
    values = start + step * np.arange(count, dtype=np.float64)
    return _finish(values.astype(dtype.np_dtype), requires_grad, name, device)


def _check_range(start: float, end: float, step: float) -> None:
    """PyTorch's checks of the bounds and step of ``arange`` and ``range``."""
    if not all(np.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def range_(start: float = 0, end: float | None = None, step: float = 1, *,
           dtype: dtypes.dtype | None = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    """Deprecated (PyTorch warns so): values from ``start`` to ``end`` *inclusive* by
    ``step``, in the default float dtype unless ``dtype``; use :func:`arange`.

    >>> import warnings; warnings.simplefilter("ignore")
    >>> symgrad.range(1, 4)
    tensor([1., 2., 3., 4.])
    """
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warn_at_user("symgrad.range is deprecated and will be removed in a future release because "
                 "its behavior is inconsistent with Python's range builtin. Instead, use "
                 "symgrad.arange, which produces values in [start, end).")
    call = ((start, end, step), {"dtype": dtype, "requires_grad": requires_grad or None})
    start, end, step = (_number("range", v, call) for v in (start, end, step))
    dtype = parser.dtype_arg("range", dtype, call)
    parser.bool_arg("range", "requires_grad", requires_grad, call)
    target = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    _float_kernel("range_cpu", target, "iuf")
    _check_range(start, end, step)
    count = int(np.floor((end - start) / step)) + 1
    values = start + step * np.arange(count, dtype=np.float64)
    return _finish(values.astype(target.np_dtype), requires_grad, None, device)


range_.__name__ = range_.__qualname__ = "range"  # symgrad.range (a name builtins.range keeps here)


def empty_strided(size: Sequence[int], stride: Sequence[int], *,
                  dtype: dtypes.dtype | None = None, layout: Any = None, device: Any = None,
                  requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor of ``size`` whose elements lie ``stride`` apart in a storage of its own
    (symgrad fills it with zeros; PyTorch leaves it uninitialized); ``layout`` must be
    ``strided``.

    >>> symgrad.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    shape = _checked_size("empty_strided", size, varargs=False)
    steps = parser.size_arg("empty_strided", stride, False, name="stride")
    if len(steps) != len(shape):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality "
                           f"of strides ({len(steps)})")
    if any(s < 0 for s in steps):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and "
                           f"strides={list(steps)}")
    if layout is not None and repr(layout) != "symgrad.strided":
        raise parser.wrong_type("empty_strided", "layout", "symgrad.layout", layout)
    dtype = parser.dtype_arg("empty_strided", dtype)
    parser.bool_arg("empty_strided", "requires_grad", requires_grad)
    target = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    storage = 0 if 0 in shape else 1 + sum((n - 1) * k for n, k in zip(shape, steps, strict=True))
    buffer = np.zeros(storage, dtype=target.np_dtype)
    size_of = buffer.itemsize
    values = np.lib.stride_tricks.as_strided(buffer, shape, tuple(k * size_of for k in steps))
    if 0 in shape:
        values = np.zeros(shape, dtype=target.np_dtype)
    return _finish(values, requires_grad, None, device)


_UNSET: Any = object()


def asarray(obj: Any, *, dtype: dtypes.dtype | None = None, device: Any = None,
            copy: bool | None = None, requires_grad: bool | None = _UNSET) -> Tensor:
    """``obj`` as a tensor, sharing memory where it can, as PyTorch's ``asarray``: a Tensor
    comes back itself (converted or cloned, in the graph, when ``dtype`` differs or ``copy``),
    a numpy array shares its memory unless converted or copied, numbers and sequences are
    read as by :func:`tensor`. ``copy=False`` refuses to convert; ``requires_grad`` defaults
    to the Tensor's (PyTorch warns then).

    >>> a = np.array([1.0, 2.0])
    >>> symgrad.asarray(a).add_(1); a
    tensor([2., 3.], dtype=symgrad.float64)
    array([2., 3.])
    >>> symgrad.asarray([1, 2], dtype=symgrad.float32)
    tensor([1., 2.])
    """
    dtype = parser.dtype_arg("asarray", dtype)
    check_device(device)
    unset = requires_grad is _UNSET
    if unset:
        requires_grad = None
    if requires_grad is not None:
        parser.bool_arg("asarray", "requires_grad", requires_grad)
    if copy is not None:
        parser.bool_arg("asarray", "copy", copy)
    if isinstance(obj, Tensor | np.ndarray):
        tensor = obj if isinstance(obj, Tensor) else from_numpy(obj) if \
            dtypes.from_numpy_dtype(obj.dtype).np_dtype == obj.dtype else None
        source = obj.dtype if isinstance(obj, Tensor) else dtypes.from_numpy_dtype(obj.dtype)
        wrong = dtype is not None and dtype is not source
        if copy is False and wrong:
            raise ValueError(f"can't alias tensor with dtype '{source._torch_name}' into dtype "
                             f"'{dtype._torch_name}'.")
        if tensor is None:
            tensor = _make(np.array(obj, dtype=source.np_dtype))
        if copy or wrong:
            tensor = tensor.to(dtype if wrong else tensor.dtype, copy=True) if wrong \
                else tensor.clone()
        if requires_grad is None:
            if unset and isinstance(obj, Tensor) and obj.requires_grad:
                warn_at_user("symgrad.asarray: unspecified requires_grad now defaults to "
                             "obj.requires_grad instead of False. Pass requires_grad=False "
                             "explicitly to get the old behavior and silence this warning.")
            return tensor
        if not requires_grad and tensor.grad_fn is not None:
            tensor = tensor.detach()
        if requires_grad and tensor.dtype.np_dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        if tensor.grad_fn is None:
            tensor.requires_grad_(requires_grad)
        return tensor
    if copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    return _tensor(obj, dtype, device, bool(requires_grad), None)


def linspace(start: float, end: float, steps: int, *, dtype: dtypes.dtype | None = None,
             device: Any = None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    >>> symgrad.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    call = ((start, end, steps), {"dtype": dtype, "requires_grad": requires_grad or None})
    if any(isinstance(v, complex | np.complexfloating) for v in (start, end)):
        raise TypeError("symgrad does not support complex numbers")
    start, end = _number("linspace", start, call), _number("linspace", end, call)
    if not parser._is_int(steps):
        raise parser.invalid_combination("linspace", *call)
    dtype = parser.dtype_arg("linspace", dtype, call)
    parser.bool_arg("linspace", "requires_grad", requires_grad, call)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    target = dtype if dtype is not None else dtypes.get_default_dtype()
    _float_kernel("linspace_cpu", target, "iuf")
    with xp.quiet():
        values = np.linspace(start, end, int(steps), dtype=np.float64)
    return _finish(values.astype(target.np_dtype), requires_grad, name, device)


def eye(n: int, m: int | None = None, *, dtype: dtypes.dtype | None = None, device: Any = None,
        requires_grad: bool = False, name: str | None = None) -> Tensor:
    """An ``n`` x ``m`` identity matrix (``m`` defaults to ``n``).

    >>> symgrad.eye(2, 3)
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    call = ((n,) if m is None else (n, m), {"dtype": dtype, "requires_grad": requires_grad or None})
    if not parser._is_int(n):
        if m is None and call[1]["dtype"] is None and call[1]["requires_grad"] is None:
            raise parser.wrong_type("eye", "n", "int", n, 1)
        raise parser.invalid_combination("eye", *call)
    parser.int64(n), parser.int64(m)
    if m is not None and not parser._is_int(m):
        raise parser.invalid_combination("eye", *call)
    dtype = parser.dtype_arg("eye", dtype, call)
    parser.bool_arg("eye", "requires_grad", requires_grad, call)
    for label, value in (("n", n), ("m", m)):
        if value is not None and value < 0:
            raise RuntimeError(f"{label} must be greater or equal to 0, got {int(value)}")
    target = dtype if dtype is not None else dtypes.get_default_dtype()
    return _finish(np.eye(int(n), None if m is None else int(m), dtype=target.np_dtype),
                   requires_grad, name, device)


def _random(fn: str, method: str, kernel: str, size: tuple, generator: Any, dtype: Any,
            requires_grad: Any, name: str | None, dev: Any) -> Tensor:
    shape = _checked_size(fn, size)
    call = (size, {"generator": generator, "dtype": dtype,
                   "requires_grad": requires_grad or None})
    rng = stream(generator, fn, call)
    dtype = parser.dtype_arg(fn, dtype, call)
    parser.bool_arg(fn, "requires_grad", requires_grad, call)
    target = dtype if dtype is not None else dtypes.get_default_dtype()
    _float_kernel(kernel, target)
    values = np.asarray(getattr(rng, method)(shape)).astype(target.np_dtype)
    return _finish(values, requires_grad, name, dev)


def rand(*args: Any, size: Sequence[int] | None = None, generator: Generator | None = None,
         dtype: dtypes.dtype | None = None, device: Any = None,
         requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Uniform random values in [0, 1), from the global stream (see :func:`manual_seed`) or
    ``generator``'s.

    >>> x = symgrad.rand(2, 3)
    >>> x.shape, bool(((x >= 0) & (x < 1)).all())
    (symgrad.Size([2, 3]), True)
    """
    size = parser.varargs("rand", "size", args, size)
    return _random("rand", "random", "check_uniform_bounds", size, generator, dtype,
                   requires_grad, name, device)


def randn(*args: Any, size: Sequence[int] | None = None, generator: Generator | None = None,
          dtype: dtypes.dtype | None = None, device: Any = None,
          requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Standard normal random values, from the global stream (see :func:`manual_seed`) or
    ``generator``'s.

    >>> _ = symgrad.manual_seed(0)
    >>> x = symgrad.randn(10000)
    >>> abs(x.mean().item()) < 0.05, abs(x.std().item() - 1) < 0.05
    (True, True)
    """
    size = parser.varargs("randn", "size", args, size)
    return _random("randn", "standard_normal", "normal_kernel_cpu", size, generator, dtype,
                   requires_grad, name, device)


def _like(fn: str, factory: Any, other: Any, dtype: Any, requires_grad: Any,
          name: str | None, dev: Any, **random: Any) -> Tensor:
    if not isinstance(other, Tensor):
        raise parser.wrong_type(fn, "input", "Tensor", other, 1)
    if random:  # (a random factory's generator)
        stream(random["generator"], fn, ((other,), random))
    dtype = parser.dtype_arg(fn, dtype)
    parser.bool_arg(fn, "requires_grad", requires_grad)
    return factory(tuple(other.shape), dtype=dtype or other.dtype, requires_grad=requires_grad,
                   name=name, device=dev, **random)


def ones_like(input: Tensor, *, dtype: dtypes.dtype | None = None, device: Any = None,  # noqa: A002
              requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Ones shaped like ``input`` (in its dtype unless ``dtype``).

    >>> symgrad.ones_like(symgrad.tensor([[1, 2]]))
    tensor([[1, 1]])
    """
    return _like("ones_like", ones, input, dtype, requires_grad, name, device)


def zeros_like(input: Tensor, *, dtype: dtypes.dtype | None = None, device: Any = None,  # noqa: A002
               requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Zeros shaped like ``input`` (in its dtype unless ``dtype``).

    >>> symgrad.zeros_like(symgrad.tensor([1.5, 2.5]))
    tensor([0., 0.])
    """
    return _like("zeros_like", zeros, input, dtype, requires_grad, name, device)


def empty_like(input: Tensor, *, dtype: dtypes.dtype | None = None, device: Any = None,  # noqa: A002
               requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A new tensor shaped like ``input`` (zeros; uninitialized in PyTorch).

    >>> symgrad.empty_like(symgrad.ones(2, 3)).shape
    symgrad.Size([2, 3])
    """
    return _like("empty_like", zeros, input, dtype, requires_grad, name, device)


def full_like(input: Tensor, fill_value: Any, *, dtype: dtypes.dtype | None = None,  # noqa: A002
              device: Any = None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    """``fill_value`` shaped like ``input``, in ``input``'s dtype unless ``dtype``.

    >>> symgrad.full_like(symgrad.tensor([1, 2]), 2.7)
    tensor([2, 2])
    >>> symgrad.full_like(symgrad.tensor([1, 2]), 2.7, dtype=symgrad.float32)
    tensor([2.7000, 2.7000])
    """
    if not isinstance(input, Tensor):
        raise parser.wrong_type("full_like", "input", "Tensor", input, 1)
    fill_value = parser.number_arg("full_like", "fill_value", fill_value, 2)
    dtype = parser.dtype_arg("full_like", dtype)
    return _filled("full_like", fill_value, (tuple(input.shape),), dtype or input.dtype,
                   requires_grad, name, device)


def rand_like(input: Tensor, *, generator: Generator | None = None,  # noqa: A002
              dtype: dtypes.dtype | None = None, device: Any = None,
              requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Uniform random values in [0, 1) shaped like ``input`` (from ``generator``, if given).

    >>> symgrad.rand_like(symgrad.zeros(2, 2)).shape
    symgrad.Size([2, 2])
    """
    return _like("rand_like", rand, input, dtype, requires_grad, name, device,
                 generator=generator)


def randn_like(input: Tensor, *, generator: Generator | None = None,  # noqa: A002
               dtype: dtypes.dtype | None = None, device: Any = None,
               requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Standard normal values shaped like ``input`` (from ``generator``, if given).

    >>> symgrad.randn_like(symgrad.zeros(3)).shape
    symgrad.Size([3])
    """
    return _like("randn_like", randn, input, dtype, requires_grad, name, device,
                 generator=generator)


def _randint_bounds(args: tuple, fn: str) -> tuple[int, int, tuple]:
    """(low, high, size) from ``randint(high, size)`` / ``randint(low, high, size)``."""
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError(f"{fn}() received an invalid combination of arguments - got "
                        f"{len(args)} positional arguments, but expected one of:")
    if not isinstance(size, tuple | list):
        raise TypeError(f"{fn}(): argument 'size' (position {len(args)}) must be tuple of ints, "
                        f"not {type(size).__name__}")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    return int(low), int(high), tuple(size)


def randint(*args: Any, generator: Generator | None = None, dtype: dtypes.dtype | None = None,
            device: Any = None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Random integers uniform in ``[low, high)``: ``randint(high, size)`` or
    ``randint(low, high, size)``; int64 unless ``dtype`` (numpy's random stream, see
    :func:`manual_seed`).

    >>> x = symgrad.randint(3, 10, (2, 2))
    >>> x.dtype, bool(((x >= 3) & (x < 10)).all())
    (symgrad.int64, True)
    """
    rng = stream(generator, "randint", (args, {"generator": generator}))
    low, high, size = _randint_bounds(args, "randint")
    target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.int64
    dtypes.check_random_bounds(low, high, target)
    values = rng.integers(low, high, size=_checked_size("randint", size, varargs=False))
    return _finish(values.astype(target.np_dtype), requires_grad, name, device)


def randint_like(input: Tensor, *args: Any, generator: Generator | None = None,  # noqa: A002
                 dtype: dtypes.dtype | None = None, device: Any = None,
                 requires_grad: bool = False, name: str | None = None) -> Tensor:
    """Random integers in ``[low, high)`` shaped like ``input`` and in its dtype unless
    ``dtype``: ``randint_like(input, high)`` or ``randint_like(input, low, high)``.

    >>> x = symgrad.randint_like(symgrad.ones(3), 2, 5)
    >>> x.dtype, bool(((x >= 2) & (x < 5)).all())
    (symgrad.float32, True)
    """
    stream(generator, "randint_like", ((input, *args), {"generator": generator}))
    low, high, _ = _randint_bounds((*args, ()), "randint_like")
    return randint(low, high, tuple(input.shape), generator=generator, dtype=dtype or input.dtype,
                   device=device, requires_grad=requires_grad, name=name)


def randperm(n: int, *, generator: Generator | None = None, dtype: dtypes.dtype | None = None,
             device: Any = None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    """A random permutation of ``0, ..., n - 1`` (int64 unless ``dtype``).

    >>> sorted(symgrad.randperm(4).tolist())
    [0, 1, 2, 3]
    """
    if not isinstance(n, int | np.integer) or isinstance(n, bool):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    rng = stream(generator, "randperm", ((n,), {"generator": generator}))
    _checked_size("randperm", (n,), varargs=False)
    target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.int64
    return _finish(rng.permutation(int(n)).astype(target.np_dtype), requires_grad, name,
                   device)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False,  # noqa: A002
                *, generator: Generator | None = None) -> Tensor:
    """``num_samples`` category indices per row of ``input`` (unnormalized non-negative
    weights), drawn with or without replacement; without, categories of weight 0 come only
    after all the others, as in PyTorch.

    >>> symgrad.multinomial(symgrad.tensor([0.0, 1.0, 0.0]), 1)
    tensor([1])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    rng = stream(generator, "multinomial")
    if not input.is_floating_point():
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype._torch_name}")
    value = input._value.astype(np.float64)
    if value.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    rows = value.reshape(-1, value.shape[-1])
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows.sum(-1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for i, p in enumerate(rows):
        if replacement:
            out[i] = rng.choice(p.size, size=num_samples, p=p / p.sum())
        else:  # weighted sampling without replacement: keys u ** (1 / p), largest first
            with np.errstate(divide="ignore"):
                keys = rng.random(p.size) ** (1 / p)
            order = np.lexsort((rng.random(p.size), -keys))
            out[i] = order[:num_samples]
    return _make(out.reshape(*value.shape[:-1], num_samples))
