"""The process-wide switches (``symgrad.runtime``), ``symgrad.backends``, ``compile``,
``typename``, the window functions, ``unravel_index``, ``threshold`` and ``is_signed`` against
PyTorch 2.13: each case's value (tensors as their values and dtype) or its error's type and
first sentence, recorded by ``python tools/record_torch_cases.py
tests/test_runtime_switches.py`` into ``tests/data/torch_runtime_switches.json``; this module
never imports torch. Window values are compared to a few float32 ulps (PyTorch computes them in
the dtype asked, symgrad in float64 then rounds: Kaiser's float32 values differ by up to 7 ulps).
"""

from __future__ import annotations

import json
import pathlib
import warnings

import numpy as np
import pytest
from torch_cases import first_sentence

import symgrad as t

DATA = pathlib.Path(__file__).parent / "data" / "torch_runtime_switches.json"


def _restoring(setter, getter, value):
    def case(L):
        before = getattr(L, getter)()
        getattr(L, setter)(value)
        try:
            return getattr(L, getter)()
        finally:
            getattr(L, setter)(before)
    return case


def _debug_mode(mode):
    def case(L):
        L.set_deterministic_debug_mode(mode)
        try:
            return [L.get_deterministic_debug_mode(), L.are_deterministic_algorithms_enabled(),
                    L.is_deterministic_algorithms_warn_only_enabled()]
        finally:
            L.set_deterministic_debug_mode(0)
    return case


def _matmul_precision(value):
    def case(L):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            L.set_float32_matmul_precision(value)
        try:
            return [L.get_float32_matmul_precision(),
                    [str(w.message).split(" (Triggered")[0] for w in caught]]
        finally:
            L.set_float32_matmul_precision("highest")
    return case


def _compiled(L):
    model = L.nn.Linear(2, 1)
    x = L.ones(3, 2)
    return bool(L.equal(L.compile(model)(x), model(x)))


def _compiled_decorator(L):
    @L.compile(mode="reduce-overhead")
    def f(x):
        return x.sin() * 2

    return f(L.tensor([0.0, 1.0]))


def _warned_twice(L):
    x = L.ones(1, requires_grad=True)
    L.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            float(x)
            float(x)
        return sum("to a scalar" in str(w.message) for w in caught)
    finally:
        L.set_warn_always(False)


CASES = {
    "get_num_interop_threads is positive": lambda L: L.get_num_interop_threads() > 0,
    "set_num_interop_threads 0": lambda L: L.set_num_interop_threads(0),
    "set_num_interop_threads 1.5": lambda L: L.set_num_interop_threads(1.5),
    "matmul precision at first": lambda L: L.get_float32_matmul_precision(),
    "matmul precision high": _matmul_precision("high"),
    "matmul precision medium": _matmul_precision("medium"),
    "matmul precision low": _matmul_precision("low"),
    "matmul precision an int": lambda L: L.set_float32_matmul_precision(5),
    "deterministic at first": lambda L: [L.are_deterministic_algorithms_enabled(),
                                         L.is_deterministic_algorithms_warn_only_enabled(),
                                         L.get_deterministic_debug_mode()],
    "use_deterministic_algorithms": _restoring("use_deterministic_algorithms",
                                               "are_deterministic_algorithms_enabled", True),
    "use_deterministic_algorithms a str": lambda L: L.use_deterministic_algorithms("x"),
    "use_deterministic_algorithms warn_only an int": lambda L: L.use_deterministic_algorithms(
        True, warn_only=1),
    "debug mode warn": _debug_mode("warn"),
    "debug mode error": _debug_mode("error"),
    "debug mode 1": _debug_mode(1),
    "debug mode True": _debug_mode(True),
    "debug mode bad": lambda L: L.set_deterministic_debug_mode("bad"),
    "debug mode 5": lambda L: L.set_deterministic_debug_mode(5),
    "warn always at first": lambda L: L.is_warn_always_enabled(),
    "warn always warns twice": _warned_twice,
    "flush_denormal an int": lambda L: L.set_flush_denormal(1),
    "default device": lambda L: str(L.get_default_device()),
    "set_default_device cpu": lambda L: L.set_default_device("cpu"),
    "set_default_device None": lambda L: L.set_default_device(None),
    "compile a module": _compiled,
    "compile as a decorator": _compiled_decorator,
    "compile a function": lambda L: L.compile(lambda x: x + 1)(L.ones(2)),
    "compile disabled": lambda L: L.compile(lambda x: x * 3, disable=True)(L.ones(1)),
    "compile mode and options": lambda L: L.compile(L.sin, mode="max-autotune", options={}),
    "compile a bad mode": lambda L: L.compile(L.sin, mode="bad"),
    "compile a number": lambda L: L.compile(5),
    "typename float32": lambda L: L.typename(L.ones(2)).split(".")[-1],
    "typename int64": lambda L: L.typename(L.ones(2, dtype=L.long)).split(".")[-1],
    "typename bool": lambda L: L.typename(L.ones(2, dtype=L.bool)).split(".")[-1],
    "typename float64": lambda L: L.typename(L.ones(2, dtype=L.float64)).split(".")[-1],
    "typename int": lambda L: L.typename(3),
    "typename a module": lambda L: L.typename(L.nn.Linear(1, 1)).split(".")[-1],
    "cudnn flags": lambda L: [L.backends.cudnn.enabled, L.backends.cudnn.benchmark,
                              L.backends.cudnn.deterministic, L.backends.cudnn.allow_tf32],
    "cudnn available": lambda L: [L.backends.cudnn.is_available(), L.backends.cudnn.version()],
    "mps": lambda L: [L.backends.mps.is_available(), L.backends.mps.is_built()],
    "cuda built": lambda L: L.backends.cuda.is_built(),
    "cuda matmul flags": lambda L: [L.backends.cuda.matmul.allow_tf32,
                                    L.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
                                    L.backends.cuda.matmul.allow_bf16_reduced_precision_reduction],
    "cuda matmul an unknown flag": lambda L: L.backends.cuda.matmul.foo,
    "cuda matmul set an unknown flag": lambda L: setattr(L.backends.cuda.matmul, "foo", 1),
    "sdp switches": lambda L: [L.backends.cuda.flash_sdp_enabled(),
                               L.backends.cuda.mem_efficient_sdp_enabled(),
                               L.backends.cuda.math_sdp_enabled()],
    "unravel_index": lambda L: L.unravel_index(L.tensor([4, 1]), (2, 3)),
    "unravel_index 0-d": lambda L: L.unravel_index(L.tensor(4), (2, 3)),
    "unravel_index wraps": lambda L: L.unravel_index(L.tensor([7, -1, -7]), (2, 3)),
    "unravel_index an int shape": lambda L: L.unravel_index(L.tensor([1]), 6),
    "unravel_index a Size and 2-d": lambda L: L.unravel_index(L.tensor([[5, 2]]),
                                                              L.Size([2, 3])),
    "unravel_index no dims": lambda L: L.unravel_index(L.tensor([1]), ()),
    "unravel_index float indices": lambda L: L.unravel_index(L.tensor([1.0]), (2, 3)),
    "unravel_index bool indices": lambda L: L.unravel_index(L.tensor([True]), (2,)),
    "unravel_index a negative size": lambda L: L.unravel_index(L.tensor([1]), (2, -3)),
    "unravel_index a zero size": lambda L: L.unravel_index(L.tensor([3]), (2, 0)),
    "unravel_index a float size": lambda L: L.unravel_index(L.tensor([3]), [2.0, 3])[0],
    "unravel_index of an int": lambda L: L.unravel_index(5, (2, 3)),
    "threshold": lambda L: L.threshold(L.tensor([1.0, 2.0, -3.0]), 1.5, 0.5),
    "threshold's node": lambda L: L.threshold(L.ones(2, requires_grad=True), 0.5, 0.0).grad_fn,
    "threshold_": lambda L: (lambda x: (L.threshold_(x, 0.0, 5.0), x)[1])(L.tensor([-1.0, 2.0])),
    "is_signed": lambda L: [L.is_signed(L.ones(2, dtype=d)) for d in (L.float32, L.long,
                                                                       L.bool)],
    "hann_window of a float length": lambda L: L.hann_window(2.5),
    "blackman_window of -1": lambda L: L.blackman_window(-1),
    "hann_window of int64": lambda L: L.hann_window(4, dtype=L.long),
    "hann_window requires grad": lambda L: L.hann_window(4, requires_grad=True).requires_grad,
    "bartlett_window of 0": lambda L: L.bartlett_window(0),
    "bartlett_window of 1": lambda L: L.bartlett_window(1),
    "hamming_window alpha beta": lambda L: L.hamming_window(9, False, 0.6, 0.2),
    "kaiser_window beta": lambda L: L.kaiser_window(9, True, 3.0, dtype=L.float64),
}
WINDOWS = ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window")
for _name in WINDOWS:
    for _length in (2, 3, 5, 8, 17, 64):
        for _periodic in (True, False):
            for _dtype in ("float32", "float64"):
                CASES[f"{_name}({_length}, {_periodic}, {_dtype})"] = (
                    lambda L, n=_name, k=_length, p=_periodic, d=_dtype:
                    getattr(L, n)(k, p, dtype=getattr(L, d)))


def _outcome(f, L):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = f(L)
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        kind, text = first_sentence(e)
        return ["error", kind, text.split(" (symgrad computes on the CPU only")[0]]
    return ["value", _plain(L, value)]


def _plain(L, value):
    if isinstance(value, L.Tensor):
        return {"values": value.tolist(), "dtype": str(value.dtype).split(".")[-1]}
    if isinstance(value, tuple | list):
        return [_plain(L, v) for v in value]
    if hasattr(value, "name") and callable(value.name):
        return value.name()
    return value if value is None or isinstance(value, bool | int | float | str) else \
        type(value).__name__


def record_all(L) -> dict:
    return {name: _outcome(f, L) for name, f in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


def _same(got, expected):
    if isinstance(expected, dict):
        assert got["dtype"] == expected["dtype"]
        np.testing.assert_allclose(np.asarray(got["values"], dtype=np.float64),
                                   np.asarray(expected["values"], dtype=np.float64),
                                   rtol=0, atol=1e-6 if expected["dtype"] == "float32" else 1e-14)
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _same(g, e)
    else:
        assert got == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    got, expected = _outcome(CASES[name], t), RECORDED[name]
    assert got[0] == expected[0], (got, expected)
    if expected[0] == "error":
        assert got == expected
    else:
        _same(got[1], expected[1])


def test_the_cudnn_module_takes_what_a_script_sets():
    import symgrad.backends.cudnn as cudnn

    cudnn.benchmark, cudnn.deterministic = True, True
    try:
        assert t.backends.cudnn.benchmark and t.backends.cudnn.deterministic
    finally:
        cudnn.benchmark, cudnn.deterministic = False, False


def test_a_device_other_than_the_cpu_is_refused_before_anything_changes():
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled"):
        t.set_default_device("cuda")
    assert str(t.get_default_device()) == "cpu"
