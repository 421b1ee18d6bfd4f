"""Fuzz: bad arguments to every public factory and Tensor method end in a clean exception
(issue 15): one of PyTorch's types (TypeError, ValueError, RuntimeError, IndexError,
NotImplementedError), raised by symgrad itself or by Python's argument binding, never from
inside numpy, never an AttributeError or a RecursionError; and nothing changed: the tensor's
values, version counter and .grad are as they were."""

from __future__ import annotations

import traceback

import numpy as np
import pytest

import symgrad as t
from symgrad.torch_api.declaration import FUNCTIONS

# (OverflowError: PyTorch's for a Python int operand beyond int64/uint64, "int too big to convert")
CLEAN = (TypeError, ValueError, RuntimeError, IndexError, NotImplementedError, OverflowError)
BAD = {
    "None": None, "str": "a", "float": 2.5, "list": [], "dict": {}, "object": object(),
    "nan": float("nan"), "huge": 10**30, "bool tensor": None, "wrong shape": None,
    "str array": np.array(["a"]), "nested": [[1.0], 2.0],
}
PACKAGE = t.__file__.rsplit("/", 1)[0]
FACTORIES = ["tensor", "as_tensor", "from_numpy", "ones", "zeros", "empty", "full", "arange",
             "linspace", "eye", "rand", "randn", "ones_like", "zeros_like", "empty_like",
             "full_like", "rand_like", "randn_like"]
METHODS = sorted(n for n in dir(t.Tensor) if not n.startswith("_") and callable(
    getattr(t.Tensor, n, None)) and n not in ("register_hook", "backward", "apply_",
                                              "map_", "register_post_accumulate_grad_hook"))


def _bad(label):
    if label == "bool tensor":
        return t.tensor([True, False])
    if label == "wrong shape":
        return t.ones(5, dtype=t.float64)
    return BAD[label]


def _check_clean(error: BaseException, where: str) -> None:
    also = {"Tensor.cuda": AssertionError}  # PyTorch's no-CUDA error
    extra = tuple(kind for prefix, kind in also.items() if where.startswith(prefix + "("))
    assert isinstance(error, CLEAN + extra), \
        f"{where}: {type(error).__name__}: {error}"
    frames = traceback.extract_tb(error.__traceback__)
    last = frames[-1].filename if frames else __file__
    assert last.startswith(PACKAGE) or last == __file__, \
        f"{where}: {type(error).__name__} from {last}: {error}"


# a bad argument may also warn on its way to the error (symgrad.tensor(tensor) warns as PyTorch
# does; numpy deprecates some dtype strings): the warnings are captured here, not asserted
_WARNINGS = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")


@_WARNINGS
@pytest.mark.parametrize("label", sorted(BAD))
@pytest.mark.parametrize("name", FACTORIES)
def test_factories_refuse_bad_arguments_cleanly(name, label):
    fn = FUNCTIONS.get(name) or getattr(t, name)
    for args in ((_bad(label),), (2, _bad(label)), ((2,), _bad(label))):
        try:
            fn(*args)
        except BaseException as error:  # noqa: BLE001 - what is raised is the point
            _check_clean(error, f"{name}{args!r}")


@_WARNINGS
@pytest.mark.parametrize("label", sorted(BAD))
@pytest.mark.parametrize("name", METHODS)
def test_methods_refuse_bad_arguments_cleanly_and_change_nothing(name, label):
    leaf = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=t.float64,
                    requires_grad=True)
    leaf.sum().backward()
    grad_before = leaf.grad.numpy().copy()
    x = leaf.detach().clone()
    x_before = x.numpy().copy()
    for args in ((_bad(label),), (0, _bad(label)), (_bad(label), 0)):
        for target, before in ((x, x_before), (leaf, leaf.detach().numpy().copy())):
            version = target._version
            try:
                getattr(target, name)(*args)
            except BaseException as error:  # noqa: BLE001 - what is raised is the point
                _check_clean(error, f"Tensor.{name}{args!r}")
                assert target._version == version, f"Tensor.{name}{args!r} bumped the version"
                assert np.array_equal(target.detach().numpy(), before, equal_nan=True), \
                    f"Tensor.{name}{args!r} changed the values"
            else:
                return  # accepted: what it does is other tests' business
    np.testing.assert_array_equal(leaf.grad.numpy(), grad_before)
