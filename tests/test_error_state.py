"""symgrad's results do not depend on numpy's global error state or on the warnings filters:
PyTorch computes inf and nan silently, so a user's ``np.seterr(all="raise")`` or
``warnings.simplefilter("error")`` must change nothing. Every registered op runs forward and
backward on inf, nan, 0, huge and tiny values under both and must give what it gives under
numpy's default state; so do the public spellings that compute on numpy themselves."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F
from symgrad.dispatch import apply_op
from symgrad.ops import REGISTRY

EXTREMES = np.array([0.0, -1.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 1e-300, 2.5, -0.0])


@contextlib.contextmanager
def _default_state():
    with np.errstate(all="warn", under="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # what the default state prints
        yield


@contextlib.contextmanager
def _raising_state():
    with np.errstate(all="raise"):
        yield


@contextlib.contextmanager
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


HOSTILE = {"seterr raise": _raising_state, "warnings error": _warnings_are_errors}


def _inputs(op, sample, offset: int):
    out = []
    for i, shape in enumerate(sample.shapes):
        if i in sample.bool_inputs:
            out.append(t.tensor(np.arange(int(np.prod(shape or ()))).reshape(shape or ()) % 2 == 0))
        elif shape is None:
            out.append(float(EXTREMES[(offset + i) % len(EXTREMES)]))
        else:
            n = int(np.prod(shape))
            values = np.resize(np.roll(EXTREMES, offset + i), n).reshape(shape)
            out.append(t.tensor(values, dtype=t.float64, requires_grad=True))
    return out


def _run(op, sample, offset):
    """Forward and backward of ``op`` on extreme values: arrays, or the exception's type."""
    inputs = _inputs(op, sample, offset)
    try:
        out = apply_op(op, *inputs, **sample.params)
        wrt = [x for x in inputs if isinstance(x, t.Tensor) and x.requires_grad]
        grads = t.autograd.grad(out, wrt, grad_outputs=t.ones_like(out), allow_unused=True)
    except Exception as error:  # noqa: BLE001 - compared below: the same in every state
        return type(error)
    return [out.detach().numpy()] + [g.numpy() if g is not None else None for g in grads]


def _same(a, b) -> bool:
    if isinstance(a, type) or isinstance(b, type):
        return a is b
    return all((x is None and y is None) or np.array_equal(x, y, equal_nan=True)
               for x, y in zip(a, b, strict=True))


CASES = [pytest.param(op, sample, id=f"{name}-{i}")
         for name, op in sorted(REGISTRY.items()) for i, sample in enumerate(op.samples[:2])]


@pytest.mark.parametrize(("op", "sample"), CASES)
@pytest.mark.parametrize("state", sorted(HOSTILE))
def test_registry_ops_ignore_numpy_error_state(op, sample, state):
    for offset in (0, 3):
        with _default_state():
            expected = _run(op, sample, offset)
        with HOSTILE[state]():
            got = _run(op, sample, offset)
        assert got is not FloatingPointError and got is not RuntimeWarning, \
            f"{op.name}: numpy's error state leaked ({got.__name__})"
        assert _same(expected, got), f"{op.name} at offset {offset}"


@pytest.mark.parametrize(("op", "sample"), CASES)
def test_registry_ops_do_not_warn_under_default_filters(op, sample):
    """numpy's default state warns; symgrad, as PyTorch, computes inf and nan silently (also
    where numpy warns from its own Python code, out of reach of symgrad's warnings filter)."""
    for offset in (0, 3):
        with np.errstate(all="warn", under="ignore"), \
                warnings.catch_warnings(record=True) as seen:
            _run(op, sample, offset)
        assert not [w for w in seen if issubclass(w.category, RuntimeWarning)], \
            [f"{w.filename}:{w.lineno}: {w.message}" for w in seen]


X = [0.0, -1.0, float("inf"), float("nan"), 1e30, -2.0]

PUBLIC = {  # the spellings that compute on numpy outside the ops, and the factories
    "tensor float32 overflow": lambda: t.tensor([1e300, -1e300]),
    "full float32 underflow": lambda: t.full((2,), 1e-50),
    "to float32": lambda: t.tensor([1e300], dtype=t.float64).float(),
    "linspace to inf": lambda: t.linspace(0, float("inf"), 3),
    "arange": lambda: t.arange(0, 1, 0.25),
    "softmax": lambda: t.tensor(X).softmax(0),
    "log_softmax": lambda: t.tensor(X).log_softmax(0),
    "logsumexp": lambda: t.tensor(X).logsumexp(0),
    "norm": lambda: t.tensor([1e30, 1e30]).norm(),
    "mean of nothing": lambda: t.tensor([]).mean(),
    "prod": lambda: t.tensor(X).prod(),
    "sigmoid": lambda: t.tensor([-1e30, 1e30, float("nan")]).sigmoid(),
    "printing": lambda: repr(t.tensor([1e30, 1e-30, float("nan"), float("inf")])),
    "binary_cross_entropy": lambda: F.binary_cross_entropy(t.tensor([0.0, 1.0]),
                                                           t.tensor([1.0, 0.0])),
    "cross_entropy": lambda: F.cross_entropy(t.tensor([[float("-inf"), 0.0]]), t.tensor([0])),
    "int power": lambda: t.tensor([1, 2, 3]) ** t.tensor([-2, -3, -4]),
    "backward at a singular point": lambda: _grad(lambda x: x.sqrt(), [0.0, 1.0]),
    "cumprod backward with zeros": lambda: _grad(lambda x: x.cumprod(0), [0.0, 2.0, 0.0, 3.0]),
    "prod backward with zeros": lambda: _grad(lambda x: x.prod(), [0.0, 2.0, 0.0]),
    "gradcheck": lambda: t.autograd.gradcheck(
        lambda a: a.exp(), (t.tensor([800.0], dtype=t.float64, requires_grad=True),),
        raise_exception=False),
}


def _grad(fn, values):
    x = t.tensor(values, dtype=t.float64, requires_grad=True)
    fn(x).sum().backward()
    return x.grad


def _plain(value):
    if isinstance(value, t.Tensor):
        return value.detach().numpy()
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


@pytest.mark.parametrize("name", sorted(PUBLIC))
@pytest.mark.parametrize("state", sorted(HOSTILE))
def test_public_spellings_ignore_numpy_error_state(name, state):
    with _default_state():
        expected = _plain(PUBLIC[name]())
    with HOSTILE[state]():
        got = _plain(PUBLIC[name]())
    if isinstance(expected, np.ndarray):
        np.testing.assert_array_equal(got, expected)
    else:
        assert got == expected


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_spellings_do_not_warn_under_default_filters(name):
    with np.errstate(all="warn", under="ignore"), warnings.catch_warnings(record=True) as seen:
        PUBLIC[name]()
    assert not [w for w in seen if issubclass(w.category, RuntimeWarning)], \
        [str(w.message) for w in seen]


def test_the_users_error_state_is_left_as_it_was():
    with np.errstate(all="raise"):
        t.tensor([0.0]).log()
        assert np.geterr() == {"divide": "raise", "over": "raise", "under": "raise",
                               "invalid": "raise"}
        with pytest.raises(FloatingPointError):  # the user's own numpy still raises
            np.log(np.zeros(1))
