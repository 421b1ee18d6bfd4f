"""PyTorch's process-wide switches, kept so that scripts written for PyTorch run: thread
counts, matmul precision, deterministic algorithms, warn-always, denormals, the default
device, and ``compile``. symgrad computes through numpy on the CPU, in float32 or float64 as
asked and the same way on every run, so most of them are recorded and read back, with
PyTorch's checks, without changing what symgrad computes; each docstring says what it does.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable
from typing import Any

from symgrad.autograd import graph as _graph
from symgrad.numeric import dtypes
from symgrad.tensor import CPU, Tensor, check_device, device

_threads = os.cpu_count() or 1
_interop_threads = os.cpu_count() or 1
_matmul_precision = "highest"
_deterministic = False
_deterministic_warn_only = False


def _exact_int(fn: str, value: Any) -> int:
    if isinstance(value, builtins.bool) or not isinstance(value, builtins.int):
        raise RuntimeError(f"{fn} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{fn} expects a positive integer")
    return value


def get_num_threads() -> int:
    """The number of threads PyTorch would use for intra-op work (symgrad computes through
    numpy, whose BLAS threads are its own): the CPU count, or what :func:`set_num_threads` set.

    >>> symgrad.get_num_threads() >= 1
    True
    """
    return _threads


def set_num_threads(int: int) -> None:  # noqa: A002 - PyTorch's name
    """Record a thread count for :func:`get_num_threads` (numpy's BLAS is not changed).

    >>> n = symgrad.get_num_threads()
    >>> symgrad.set_num_threads(1); symgrad.get_num_threads()
    1
    >>> symgrad.set_num_threads(n)
    """
    global _threads
    if isinstance(int, builtins.bool) or not isinstance(int, builtins.int):
        raise TypeError(f"set_num_threads(): argument 'int' (position 1) must be int, not "
                        f"{type(int).__name__}")
    if int <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _threads = int


def get_num_interop_threads() -> int:
    """The number of threads PyTorch would use for inter-op work: the CPU count, or what
    :func:`set_num_interop_threads` set (symgrad runs one op after another).

    >>> symgrad.get_num_interop_threads() >= 1
    True
    """
    return _interop_threads


def set_num_interop_threads(num: int) -> None:
    """Record a count for :func:`get_num_interop_threads`.

    >>> symgrad.set_num_interop_threads(0)
    Traceback (most recent call last):
    RuntimeError: set_num_interop_threads expects a positive integer
    """
    global _interop_threads
    _interop_threads = _exact_int("set_num_interop_threads", num)


_PRECISIONS = ("highest", "high", "medium")


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision :func:`set_float32_matmul_precision` last set
    (``"highest"`` at first).

    >>> symgrad.get_float32_matmul_precision()
    'highest'
    """
    return _matmul_precision


def set_float32_matmul_precision(precision: str) -> None:
    """Record ``"highest"``, ``"high"`` or ``"medium"`` (another string is ignored with
    PyTorch's warning). It changes nothing: numpy's float32 matmul is always full float32,
    PyTorch's ``"highest"``; the lower settings allow PyTorch TF32 or bfloat16 products on
    hardware that has them.

    >>> symgrad.set_float32_matmul_precision("high")
    >>> symgrad.get_float32_matmul_precision()
    'high'
    >>> symgrad.set_float32_matmul_precision("highest")
    """
    global _matmul_precision
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in _PRECISIONS:
        from symgrad.autograd.graph import warn_at_user

        warn_at_user(f"{precision} is not one of 'highest', 'high', or 'medium'; the "
                     "currentsetFloat32MatmulPrecision call has no effect.")  # (PyTorch's text)
        return
    _matmul_precision = precision


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record PyTorch's deterministic-algorithms switch. symgrad's ops are deterministic
    whatever it says: the same inputs give the same bits on every run.

    >>> symgrad.use_deterministic_algorithms(True)
    >>> symgrad.are_deterministic_algorithms_enabled()
    True
    >>> symgrad.use_deterministic_algorithms(False)
    """
    global _deterministic, _deterministic_warn_only
    for name, value in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(value, builtins.bool):
            where = " (position 1)" if name == "mode" else ""
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}'{where} must be "
                            f"bool, not {type(value).__name__}")
    _deterministic, _deterministic_warn_only = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` switched them on.

    >>> symgrad.are_deterministic_algorithms_enabled()
    False
    """
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` was given ``warn_only=True``.

    >>> symgrad.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _deterministic_warn_only


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """:func:`use_deterministic_algorithms` by name or number: ``"default"`` (0) off,
    ``"warn"`` (1) on with ``warn_only``, ``"error"`` (2) on.

    >>> symgrad.set_deterministic_debug_mode("warn")
    >>> symgrad.get_deterministic_debug_mode()
    1
    >>> symgrad.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, builtins.int):
        raise TypeError("debug_mode must be str or int, but got "
                        f"{type(debug_mode).__name__}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """The mode :func:`set_deterministic_debug_mode` would set for the current switches.

    >>> symgrad.get_deterministic_debug_mode()
    0
    """
    return 0 if not _deterministic else 1 if _deterministic_warn_only else 2


def set_warn_always(b: bool) -> None:
    """Give the warnings PyTorch gives once per process every time (as PyTorch's switch).

    >>> symgrad.set_warn_always(True); symgrad.is_warn_always_enabled()
    True
    >>> symgrad.set_warn_always(False)
    """
    _graph.warn_always = builtins.bool(b)


def is_warn_always_enabled() -> bool:
    """Whether :func:`set_warn_always` is on.

    >>> symgrad.is_warn_always_enabled()
    False
    """
    return _graph.warn_always


def set_flush_denormal(mode: bool) -> bool:
    """PyTorch's switch to flush denormal floats to zero, where the CPU can: symgrad cannot
    (numpy keeps them), so it answers False, as PyTorch does on a CPU without the feature.

    >>> symgrad.set_flush_denormal(True)
    False
    """
    if not isinstance(mode, builtins.bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False


def get_default_device() -> device:
    """The device new tensors go to: the CPU.

    >>> symgrad.get_default_device()
    device(type='cpu')
    """
    return CPU


_TENSOR_TYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16"}


def set_default_tensor_type(t: Any, /) -> None:
    """Deprecated (PyTorch warns so): set the default float dtype from a tensor type's name,
    ``'torch.FloatTensor'`` (float32), ``'torch.DoubleTensor'`` (float64) or
    ``'torch.HalfTensor'`` (float16); use :func:`set_default_dtype`.

    >>> import warnings; warnings.simplefilter("ignore")
    >>> symgrad.set_default_tensor_type("torch.DoubleTensor"); symgrad.get_default_dtype()
    symgrad.float64
    >>> symgrad.set_default_tensor_type("torch.FloatTensor")
    """
    if not isinstance(t, str):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    module, _, kind = t.rpartition(".")
    if module not in ("torch", "symgrad"):
        if module.endswith(".cuda"):
            raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
        raise ModuleNotFoundError(f"No module named '{module or t}'")
    if kind not in _TENSOR_TYPES:
        if kind.endswith("Tensor") and kind[:-len("Tensor")] in (
                "Byte", "Char", "Short", "Int", "Long", "Bool"):
            raise TypeError("only floating-point types are supported as the default type")
        raise AttributeError(f"module '{module}' has no attribute '{kind}'")
    _graph.warn_at_user("symgrad.set_default_tensor_type() is deprecated as of PyTorch 2.1, "
                        "please use symgrad.set_default_dtype() and symgrad.set_default_device() "
                        "as alternatives.")
    dtypes.set_default_dtype(getattr(dtypes, _TENSOR_TYPES[kind]))


def set_default_device(device: Any) -> None:  # noqa: A002 - PyTorch's name
    """Accept the CPU (or None); any other device is refused as PyTorch refuses a device it was
    not built with.

    >>> symgrad.set_default_device("cpu")
    """
    check_device(device)


_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model: Callable | None = None, *, fullgraph: bool = False,  # noqa: A001
            dynamic: bool | None = None, backend: str | Callable | None = None,
            mode: str | None = None, options: dict | None = None, name: str | None = None,
            disable: bool = False, **kwargs: Any) -> Callable:
    """``torch.compile``, for scripts that call it: there is nothing to compile (numpy runs
    every op as it comes), so the model or function comes back as it is, as a decorator too
    (``@symgrad.compile`` or ``@symgrad.compile(mode=...)``), after PyTorch's checks of the
    arguments. (PyTorch wraps a module in an ``OptimizedModule``, whose ``state_dict`` keys
    start with ``_orig_mod.``; symgrad's keys stay the module's.)

    >>> f = symgrad.compile(lambda x: x.sin() + 1)
    >>> f(symgrad.zeros(2))
    tensor([1., 1.])
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                  mode=mode, options=options, name=name, disable=disable)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model


def typename(obj: Any) -> str:
    """The type of ``obj`` as PyTorch names it: a tensor's legacy type (``FloatTensor`` ...),
    a class's or function's qualified name, an instance's class's.

    >>> symgrad.typename(symgrad.ones(2)), symgrad.typename(3)
    ('symgrad.FloatTensor', 'int')
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:  # (an instance: its class's names)
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"
