"""Failures that must be loud: anomaly mode (NaN in backward, forward tracebacks) and what symgrad
refuses (devices other than the CPU, complex numbers, sparse layouts), as PyTorch reports them."""

import inspect
import re
import threading
import warnings

import numpy as np
import pytest

import symgrad as t
from symgrad.autograd import graph

# symgrad's numpy forward warns about 0 / 0 and 0 * inf (PyTorch does not): not what is tested
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

ENABLED = ("Anomaly Detection has been enabled. This mode will increase the runtime and should "
           "only be enabled for debugging.")


def _line() -> int:
    return inspect.currentframe().f_back.f_lineno


@pytest.fixture(autouse=True)
def _anomaly_off_around_each_test():
    assert not t.autograd.is_anomaly_enabled() and graph._anomaly_threads == 0
    yield
    assert not t.autograd.is_anomaly_enabled() and graph._anomaly_threads == 0


def _messages(record):
    return [str(w.message) for w in record if w.category is UserWarning]


# ------------------------------------------------------------------ anomaly mode
def test_off_by_default_nan_passes_silently():
    assert not t.autograd.is_anomaly_enabled() and t.autograd.is_anomaly_check_nan_enabled()
    x = t.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt() * 0
    assert y.grad_fn.next_functions[0][0].forward_stack is None
    y.sum().backward()
    assert np.isnan(x.grad[0].item()) and x.grad[1].item() == 0.0  # 0 * inf, as PyTorch


def test_nan_from_0_over_0_names_the_node_and_the_forward_line():
    x = t.tensor([0.0, 1.0], requires_grad=True)
    x.grad = t.tensor([5.0, 5.0])
    with pytest.warns(UserWarning) as record, t.autograd.detect_anomaly():
        y = x / x; line = _line()  # noqa: E702
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
    # d(x/x)/dx through the denominator is -x/x^2 = nan at 0 (through the numerator 1/0 = inf)
    message = str(info.value)
    assert message.startswith("Function 'DivBackward0' returned nan values in its 1th output.")
    assert f"(div) was called at {__file__}:{line}" in message
    messages = _messages(record)
    assert messages[0] == ENABLED
    assert messages[1].startswith("Error detected in DivBackward0. Traceback of forward call "
                                  "that caused the error:\n")
    assert f'File "{__file__}", line {line}, in ' in messages[1]
    assert messages[1].rstrip().endswith("y = x / x; line = _line()  # noqa: E702")
    assert x.grad.tolist() == [5.0, 5.0]  # a failed backward changes no .grad


def test_nan_from_sqrt_at_zero():
    x = t.tensor([0.0, 4.0], requires_grad=True)
    with pytest.warns(UserWarning) as record, t.autograd.detect_anomaly():
        y = x.sqrt(); line = _line()  # noqa: E702
        with pytest.raises(RuntimeError, match=re.escape(
                "Function 'SqrtBackward0' returned nan values in its 0th output. Its forward op "
                f"(sqrt) was called at {__file__}:{line}.")):
            (y * 0).sum().backward()  # 0 / (2 * sqrt(0)) = nan
    assert _messages(record)[1].startswith("Error detected in SqrtBackward0.")
    assert x.grad is None


def test_a_nan_seed_is_caught_at_the_first_node():
    x = t.tensor([1.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning), t.autograd.detect_anomaly():
        y = x * 2
        with pytest.raises(RuntimeError, match="^Function 'MulBackward0' returned nan values in "
                                               "its 0th output."):
            y.backward(t.tensor([float("nan"), 1.0]))


def test_nan_in_a_forward_input_is_not_an_anomaly_if_gradients_are_finite():
    x = t.tensor([float("nan"), 1.0], requires_grad=True)
    with pytest.warns(UserWarning), t.autograd.detect_anomaly():
        (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_a_node_recorded_before_anomaly_mode_has_no_traceback_but_a_site():
    x = t.tensor([0.0, 1.0], requires_grad=True)
    y = x / x; line = _line()  # noqa: E702
    with pytest.warns(UserWarning) as record, t.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match=f"was called at {re.escape(__file__)}:{line}"):
            y.sum().backward()
    assert _messages(record)[1] == (
        "Error detected in DivBackward0. No forward pass information available. Enable detect "
        "anomaly during forward pass for more information.")


def test_check_nan_false_records_tracebacks_without_checking():
    x = t.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning), t.autograd.detect_anomaly(check_nan=False):
        assert t.autograd.is_anomaly_enabled() and not t.autograd.is_anomaly_check_nan_enabled()
        y = x / x
        assert y.grad_fn.forward_stack is not None
        y.sum().backward()
    assert np.isnan(x.grad[0].item())


def test_any_backward_error_in_anomaly_mode_shows_the_forward_traceback():
    x = t.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning) as record, t.autograd.detect_anomaly():
        y = x.exp(); line = _line()  # noqa: E702
        y.add_(1)
        with pytest.raises(RuntimeError, match="^one of the variables needed for gradient "
                                               "computation has been modified by an inplace"):
            y.sum().backward()
    assert _messages(record)[1].startswith("Error detected in ExpBackward0. Traceback of "
                                           "forward call that caused the error:\n")
    assert f"line {line}" in _messages(record)[1]


def test_a_raising_hook_is_reported_at_its_node():
    x = t.tensor([1.0, 4.0], requires_grad=True)
    with pytest.warns(UserWarning) as record, t.autograd.detect_anomaly():
        y = x.sqrt()
        y.register_hook(lambda g: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            y.sum().backward()
    assert _messages(record)[1].startswith("Error detected in SqrtBackward0.")
    with pytest.warns(UserWarning), t.autograd.detect_anomaly():
        y = x.sqrt()
        y.register_hook(lambda g: g * float("nan"))
        with pytest.raises(RuntimeError, match="^Function 'SqrtBackward0' returned nan values"):
            y.sum().backward()


def test_double_backward_shows_the_node_that_induced_the_calculation():
    x = t.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning) as record, t.autograd.detect_anomaly():
        y = x.sqrt(); sqrt_line = _line()  # noqa: E702
        (g,) = t.autograd.grad(y.sum(), x, create_graph=True); grad_line = _line()  # noqa: E702
        with pytest.raises(RuntimeError, match="^Function 'DivBackward0' returned nan values in "
                                               "its 1th output."):
            (g * 0).sum().backward()
    messages = _messages(record)
    assert messages[1].startswith("Error detected in DivBackward0.")
    assert f"line {grad_line}" in messages[1]
    assert messages[2].startswith("\n\nPrevious calculation was induced by SqrtBackward0. "
                                  "Traceback of forward call that induced the previous "
                                  "calculation:\n")
    assert f"line {sqrt_line}" in messages[2]
    assert g.grad_fn.metadata["parent_"] is y.grad_fn


def test_metadata_holds_the_traceback_in_anomaly_mode():
    x = t.ones(2, requires_grad=True)
    with pytest.warns(UserWarning), t.autograd.detect_anomaly():
        y = x * 2; line = _line()  # noqa: E702
    trace = y.grad_fn.metadata["traceback_"]
    assert isinstance(trace, list) and f"line {line}" in trace[-1]
    z = x * 2
    assert z.grad_fn.metadata == {} and z.grad_fn.forward_stack is None
    z.grad_fn.metadata["note"] = 1  # a dict for the user's own annotations
    assert z.grad_fn.metadata == {"note": 1}


def test_contexts_nest_and_restore_the_previous_mode():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with t.autograd.detect_anomaly():
            with t.autograd.detect_anomaly(check_nan=False):
                assert t.autograd.is_anomaly_enabled()
                assert not t.autograd.is_anomaly_check_nan_enabled()
            assert t.autograd.is_anomaly_check_nan_enabled()
            with t.autograd.set_detect_anomaly(False):
                assert not t.autograd.is_anomaly_enabled()
            assert t.autograd.is_anomaly_enabled()
        assert not t.autograd.is_anomaly_enabled()
    assert _messages(record) == [ENABLED, ENABLED]  # set_detect_anomaly does not warn


def test_set_detect_anomaly_takes_effect_at_once():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning
        t.autograd.set_detect_anomaly(True)
    try:
        assert t.autograd.is_anomaly_enabled() and graph._anomaly_threads == 1
        assert (t.ones(1, requires_grad=True) * 2).grad_fn.forward_stack is not None
    finally:
        t.autograd.set_detect_anomaly(False)
    assert (t.ones(1, requires_grad=True) * 2).grad_fn.forward_stack is None


def test_detect_anomaly_decorates_functions():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        @t.autograd.detect_anomaly()
        def inside():
            return t.autograd.is_anomaly_enabled()

    assert inside() and not t.autograd.is_anomaly_enabled()


def test_anomaly_mode_is_per_thread():
    seen = []

    def other():
        seen.append(t.autograd.is_anomaly_enabled())
        seen.append((t.ones(1, requires_grad=True) * 2).grad_fn.forward_stack)

    with pytest.warns(UserWarning), t.autograd.detect_anomaly():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert seen == [False, None]


def test_a_joint_vjp_op_is_checked_too():
    a = t.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning), t.autograd.detect_anomaly():
        c = t.cat([a.sqrt(), a])
        with pytest.raises(RuntimeError, match="^Function 'SqrtBackward0' returned nan"):
            (c * 0).sum().backward()


# ------------------------------------------------------------------ refused: devices
@pytest.mark.parametrize("make", [
    lambda: t.tensor([1.0], device="cuda"),
    lambda: t.ones(2, device="cuda:0"),
    lambda: t.zeros(2, device=t.device("cuda")),
    lambda: t.randn(2, device="cuda"),
    lambda: t.ones_like(t.ones(2), device="cuda"),
    lambda: t.ones(2).cuda(),
    lambda: t.ones(2).to("cuda"),
    lambda: t.ones(2).to(device="cuda"),
    lambda: t.ones(2).to("cuda", t.float64),
    lambda: t.ones(2).new_zeros(2, device="cuda"),
    lambda: t.ones(2).new_tensor([1.0], device="cuda"),
])
def test_cuda_is_refused_as_pytorch_without_cuda_does(make):
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled"):
        make()


@pytest.mark.parametrize("make, error, message", [
    (lambda: t.ones(2).to("mps"), RuntimeError, "PyTorch is not linked with support for mps "
                                                "devices"),
    (lambda: t.ones(2, device="mps"), RuntimeError, "PyTorch is not linked with support for mps "
                                                    "devices"),
    (lambda: t.ones(2, device="meta"), RuntimeError, "PyTorch is not linked with support for "
                                                     "meta devices"),
    (lambda: t.tensor([1.0], device="xpu"), AssertionError, "Torch not compiled with XPU "
                                                            "enabled"),
    (lambda: t.ones(2, device=0), RuntimeError, "Cannot access accelerator device when none is "
                                                "available."),
    (lambda: t.ones(2).to(0), RuntimeError, "Cannot access accelerator device when none is "
                                            "available."),
    (lambda: t.ones(2).cuda(0), RuntimeError, "Cannot access accelerator device when none is "
                                              "available."),
    (lambda: t.ones(2, device="foo"), RuntimeError, "Expected one of cpu, cuda, ipu, xpu"),
    (lambda: t.device("CPU"), RuntimeError, "Expected one of cpu, cuda"),
    (lambda: t.device("cuda:x"), RuntimeError, "Invalid device string: 'cuda:x'"),
    (lambda: t.device("cpu", -1), RuntimeError, "Device index must not be negative"),
])
def test_other_devices_are_refused(make, error, message):
    with pytest.raises(error, match="^" + re.escape(message)):
        make()


def test_the_cpu_is_accepted_everywhere():
    x = t.ones(2)
    cpu = t.device("cpu")
    assert x.to("cpu") is x and x.to(cpu) is x and x.to(device="cpu:0") is x and x.cpu() is x
    for make in (lambda d: t.tensor([1.0], device=d), lambda d: t.zeros(2, device=d),
                 lambda d: t.full((2,), 1.0, device=d), lambda d: t.arange(3, device=d),
                 lambda d: t.rand(2, device=d), lambda d: t.zeros_like(x, device=d),
                 lambda d: x.new_ones(2, device=d), lambda d: x.new_full((2,), 3.0, device=d)):
        for d in ("cpu", "cpu:0", cpu):
            assert make(d).device == cpu
    assert not x.is_cuda and not x.is_sparse and not x.is_complex()


def test_devices_are_named_as_in_pytorch():
    assert repr(t.device("cuda", 0)) == "device(type='cuda', index=0)"
    assert str(t.device("cuda:1")) == "cuda:1" and t.device("cuda:1").index == 1
    assert t.device("cpu").index is None and t.device(t.device("cpu:0")).index == 0
    assert t.ones(1).device == t.device("cpu") and t.ones(1).device != t.device("cpu:0")
    assert len({t.device("cpu"), t.device("cpu"), t.device("cpu:0")}) == 2


# ------------------------------------------------------------------ refused: complex, sparse
@pytest.mark.parametrize("make", [
    lambda: t.tensor([1 + 2j]),
    lambda: t.tensor(1j),
    lambda: t.tensor(np.array([1j])),
    lambda: t.as_tensor(np.array([1j])),
    lambda: t.from_numpy(np.array([1j])),
    lambda: t.full((2,), 1j),
    lambda: t.full_like(t.ones(2), 1j),
    lambda: t.ones(2).new_full((2,), 1j),
    lambda: t.linspace(0, 1j, 3),
    lambda: t.ones(2) * 1j,
    lambda: t.ones(2) + (1 + 2j),
    lambda: t.ones(2).add(1j),
    lambda: t.ones(2) == 1j,
    lambda: t.ones(2).eq(1j),
    lambda: t.ones(2).fill_(1j),
])
def test_complex_numbers_are_refused(make):
    with pytest.raises(TypeError):
        make()


def test_sparse_layouts_are_refused():
    with pytest.raises(RuntimeError, match="^symgrad does not support sparse layouts"):
        t.ones(2).to_sparse()
