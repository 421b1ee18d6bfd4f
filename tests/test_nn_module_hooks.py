"""Module hooks and the rest of Module's API (full backward hooks and pre-hooks, the
deprecated backward hook, forward hooks with kwargs / always_call / prepend, state_dict and
load_state_dict hooks, extra state, get_parameter/get_buffer/set_submodule ...), each expected
value confirmed with PyTorch 2.13 and recorded here (torch is not imported)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad as t
from symgrad import nn


def _flat(value):
    if isinstance(value, tuple):
        return tuple(_flat(v) for v in value)
    if value is None:
        return None
    return [round(float(a), 4) for a in value.detach().reshape(-1).tolist()]


class TwoInputs(nn.Module):
    def forward(self, x, z, k=3):
        return x * z, z * 2


def test_full_backward_hooks_see_pytorchs_tuples():
    m = TwoInputs()
    log = []
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", _flat(go))))
    m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", _flat(gi), _flat(go))))
    m.register_forward_pre_hook(lambda mod, args: log.append("fpre"))
    m.register_forward_hook(lambda mod, args, out: log.append("fpost"))
    x = t.ones(2, requires_grad=True)
    a, b = m(x, t.full((2,), 2.0), 5)
    assert a.grad_fn.name() == "BackwardHookFunctionBackward"
    assert b.grad_fn is None and not b.requires_grad
    a.sum().backward()
    # the input that requires no grad gets zeros, the int argument None (as PyTorch)
    assert log == ["fpre", "fpost", ("pre", ([1.0, 1.0], None)),
                   ("full", ([2.0, 2.0], [0.0, 0.0], None), ([1.0, 1.0], None))]
    assert x.grad.tolist() == [2.0, 2.0]


def test_full_backward_hook_without_inputs_requiring_grad_warns_and_fires_at_outputs():
    lin = nn.Linear(2, 1)
    log = []
    lin.register_full_backward_hook(lambda mod, gi, go: log.append((_flat(gi), _flat(go))))
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are "
                                         "computed with respect to module outputs"):
        lin(t.ones(1, 2)).sum().backward()
    assert log == [((None,), ([1.0],))]
    bad = nn.Linear(2, 1)
    bad.register_full_backward_hook(lambda mod, gi, go: (t.ones(1),))
    with pytest.warns(UserWarning), pytest.raises(
            RuntimeError, match="Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients."):
        bad(t.ones(1, 2)).sum().backward()


def _fixed_linear():
    lin = nn.Linear(2, 1)
    with t.no_grad():
        lin.weight.copy_(t.tensor([[0.5, -1.0]]))
        lin.bias.fill_(0.0)
    return lin


def test_backward_hook_and_pre_hook_replacements():
    lin = _fixed_linear()
    lin.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
    x = t.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()
    assert x.grad.tolist() == [[5.0, -10.0]] and lin.weight.grad.tolist() == [[1.0, 1.0]]
    lin = _fixed_linear()
    lin.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
    x = t.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()
    assert x.grad.tolist() == [[5.0, -10.0]] and lin.weight.grad.tolist() == [[10.0, 10.0]]


@pytest.mark.parametrize(("register", "message"), [
    ("register_full_backward_hook",
     "Backward hook returned an invalid number of grad_input, got 2, but expected 1"),
    ("register_full_backward_pre_hook",
     "Backward pre hook returned an invalid number of grad_output, got 2, but expected 1"),
])
def test_wrong_number_of_gradients_returned(register, message):
    lin = nn.Linear(2, 1)
    getattr(lin, register)(lambda mod, *grads: (grads[0][0], grads[0][0]))
    with pytest.raises(RuntimeError, match=message):
        lin(t.ones(1, 2, requires_grad=True)).sum().backward()


INPLACE = ("Output 0 of BackwardHookFunction is a view and is being modified inplace. This view "
           "was created inside a custom Function (or because an input was returned as-is)")


def test_inplace_on_hooked_inputs_or_outputs_is_refused():
    relu = nn.ReLU(inplace=True)
    relu.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError) as caught:
        relu(t.ones(2, requires_grad=True) * 1)
    assert str(caught.value).startswith(INPLACE)
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda *a: None)
    y = lin(t.ones(1, 2, requires_grad=True))
    with pytest.raises(RuntimeError) as caught:
        y.relu_()
    assert str(caught.value).startswith(INPLACE)
    with t.no_grad():
        y.relu_()  # allowed without grad, as in PyTorch


def test_mixing_full_and_deprecated_backward_hooks_is_refused():
    message = ("Cannot use both regular backward hooks and full backward hooks on a single "
               "Module. Please use only one of them.")
    lin = nn.Linear(2, 1)
    lin.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match=message):
        lin.register_backward_hook(lambda *a: None)
    lin = nn.Linear(2, 1)
    lin.register_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match=message):
        lin.register_full_backward_hook(lambda *a: None)


def test_hook_order_over_nested_modules():
    order = []
    seq = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    for name, mod in seq.named_modules():
        mod.register_full_backward_pre_hook(lambda m, go, n=name: order.append(("pre", n)))
        mod.register_full_backward_hook(lambda m, gi, go, n=name: order.append(("full", n)))
        mod.register_forward_pre_hook(lambda m, a, n=name: order.append(("fpre", n)))
        mod.register_forward_hook(lambda m, a, o, n=name: order.append(("fwd", n)))
    seq(t.ones(1, 2, requires_grad=True)).sum().backward()
    assert order == [("fpre", ""), ("fpre", "0"), ("fwd", "0"), ("fpre", "1"), ("fwd", "1"),
                     ("fwd", ""), ("pre", ""), ("pre", "1"), ("full", "1"), ("pre", "0"),
                     ("full", "0"), ("full", "")]


def test_prepend_and_remove():
    m = nn.Identity()
    order = []
    m.register_forward_hook(lambda *a: order.append(1))
    h2 = m.register_forward_hook(lambda *a: order.append(2), prepend=True)
    m.register_full_backward_hook(lambda *a: order.append("b1"))
    h4 = m.register_full_backward_hook(lambda *a: order.append("b0"), prepend=True)
    m(t.ones(1, requires_grad=True)).sum().backward()
    assert order == [2, 1, "b0", "b1"]
    order.clear()
    h2.remove()
    h4.remove()
    h2.remove()
    m(t.ones(1, requires_grad=True)).sum().backward()
    assert order == [1, "b1"]
    kw = m.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True)
    kw.remove()
    assert not m._forward_hooks_with_kwargs and not m._forward_hooks_always_called


def test_forward_hooks_with_kwargs_and_always_call():
    lin = nn.Linear(2, 1)
    seen = []
    lin.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] * 0,), kwargs),
                                  with_kwargs=True)
    lin.register_forward_hook(lambda mod, args, kwargs, out: seen.append((_flat(args), kwargs)),
                              with_kwargs=True)
    lin(t.ones(1, 2))
    assert seen == [(([0.0, 0.0],), {})]
    ident = nn.Identity()
    ident.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"forward pre-hook must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got 5."):
        ident(t.ones(1))

    class Bad(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    bad = Bad()
    calls = []
    bad.register_forward_hook(lambda m, a, out: calls.append(("always", out)), always_call=True)
    bad.register_forward_hook(lambda *a: calls.append("never"))
    bad.register_forward_hook(lambda *a: 1 / 0, always_call=True)
    with pytest.warns(UserWarning, match="module forward hook with ``always_call=True`` raised "
                                         "an exception that was silenced as another error was "
                                         "raised in forward: division by zero"), \
            pytest.raises(ValueError, match="boom"):
        bad(t.ones(1))
    assert calls == [("always", None)]


def test_deprecated_backward_hook():
    log = []
    tanh = nn.Tanh()
    tanh.register_backward_hook(lambda mod, gi, go: log.append((_flat(gi), _flat(go))))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one node seeing the whole module: no warning
        tanh(t.zeros(2, requires_grad=True) * 1).sum().backward()
    assert log == [(([1.0, 1.0],), ([1.0, 1.0],))]
    with pytest.warns(FutureWarning, match="Using a non-full backward hook when the forward "
                                           "contains multiple autograd Nodes is deprecated"):
        tanh(t.zeros(2, requires_grad=True)).sum().backward()
    shapes = []
    lin = nn.Linear(2, 1)
    lin.register_backward_hook(lambda mod, gi, go: shapes.append(
        ([None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go])))
    with pytest.warns(FutureWarning):
        lin(t.ones(1, 2, requires_grad=True)).sum().backward()
    assert shapes == [([(1,), (1, 2), (2, 1)], [(1, 1)])]  # AddmmBackward0's, as PyTorch

    class Dict(nn.Module):
        def forward(self, x):
            return {"a": x * 2}

    d = Dict()
    d.register_full_backward_hook(lambda *a: None)
    with pytest.warns(UserWarning, match="For backward hooks to be called, module output should "
                                         "be a Tensor or a tuple of Tensors but received "
                                         "<class 'dict'>"):
        d(t.ones(1, requires_grad=True))


def test_hooks_in_double_backward():
    log = []
    lin = nn.Linear(1, 1)
    lin.register_full_backward_hook(lambda m, gi, go: log.append(1))
    x = t.ones(1, 1, requires_grad=True)
    g, = t.autograd.grad((lin(x) ** 2).sum(), x, create_graph=True)
    assert len(log) == 1
    g.sum().backward()  # the second backward passes the module's output again: PyTorch calls it
    assert len(log) == 2


def _hooked_net(log):
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.BatchNorm1d(2)))
    for name, m in net.named_modules():
        m.register_state_dict_pre_hook(
            lambda mod, prefix, keep, n=name: log.append(("pre", n, prefix, keep)))
        m.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta, n=name: log.append(("post", n, prefix, len(sd))))
        m.register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, meta, strict, missing, unexpected, errors, n=name:
            log.append(("lpre", n, prefix, strict, list(missing))))
        m.register_load_state_dict_post_hook(
            lambda mod, keys, n=name: log.append(("lpost", n, list(keys.missing_keys),
                                                  list(keys.unexpected_keys))))
    return net


def test_state_dict_hooks_order():
    log = []
    net = _hooked_net(log)
    sd = net.state_dict(prefix="p.")
    assert list(sd) == ["p.0.weight", "p.0.bias", "p.1.0.weight", "p.1.0.bias",
                        "p.1.0.running_mean", "p.1.0.running_var", "p.1.0.num_batches_tracked"]
    assert log == [("pre", "", "p.", False), ("pre", "0", "p.0.", False), ("post", "0", "p.0.", 2),
                   ("pre", "1", "p.1.", False), ("pre", "1.0", "p.1.0.", False),
                   ("post", "1.0", "p.1.0.", 7), ("post", "1", "p.1.", 7), ("post", "", "p.", 7)]


def test_load_state_dict_hooks_order_and_keys():
    log = []
    net = _hooked_net(log)
    sd = net.state_dict()
    del sd["0.bias"]
    sd["zzz"] = t.zeros(1)
    log.clear()
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "0.bias". \n\t'
                                           'Unexpected key\\(s\\) in state_dict: "zzz".'):
        net.load_state_dict(sd)
    assert log == [("lpre", "", "", True, []), ("lpre", "0", "0.", True, []),
                   ("lpost", "0", ["0.bias"], ["zzz"]), ("lpre", "1", "1.", True, ["0.bias"]),
                   ("lpre", "1.0", "1.0.", True, ["0.bias"]), ("lpost", "1.0", ["0.bias"], ["zzz"]),
                   ("lpost", "1", ["0.bias"], ["zzz"]), ("lpost", "", ["0.bias"], ["zzz"])]
    keys = net.load_state_dict(sd, strict=False)
    assert keys.missing_keys == ["0.bias"] and keys.unexpected_keys == ["zzz"]


def test_hooks_that_return_values_are_refused():
    lin = nn.Linear(2, 1)
    lin.register_state_dict_post_hook(lambda *a: 1)
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        lin.state_dict()
    lin = nn.Linear(2, 1)
    before = lin.weight.detach().clone()
    lin.register_load_state_dict_post_hook(lambda *a: 1)
    with pytest.raises(AssertionError, match="Hooks registered with "
                                             "``register_load_state_dict_post_hook`` are not "
                                             "expected to return new values"):
        lin.load_state_dict({"weight": t.zeros(1, 2), "bias": t.zeros(1)})
    assert t.equal(lin.weight.detach(), before)  # refused before anything changed


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.lin = nn.Linear(1, 1)

    def get_extra_state(self):
        return {"calls": self.calls}

    def set_extra_state(self, state):
        self.calls = state["calls"]


def test_extra_state_round_trip():
    c = Counter()
    c.calls = 4
    sd = c.state_dict()
    assert list(sd) == ["_extra_state", "lin.weight", "lin.bias"]
    assert sd["_extra_state"] == {"calls": 4}
    d = Counter()
    assert repr(d.load_state_dict(sd)) == "<All keys matched successfully>" and d.calls == 4
    partial = dict(sd)
    del partial["_extra_state"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state".'):
        d.load_state_dict(partial)
    assert d.load_state_dict(partial, strict=False).missing_keys == ["_extra_state"]
    assert list(nn.Sequential(Counter()).state_dict()) == [
        "0._extra_state", "0.lin.weight", "0.lin.bias"]
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: '
                                           '"_extra_state".'):
        nn.Linear(1, 1).load_state_dict({"weight": t.zeros(1, 1), "bias": t.zeros(1),
                                         "_extra_state": 1})
    with pytest.raises(RuntimeError, match="Reached a code path in Module.get_extra_state"):
        nn.Module().get_extra_state()


def test_get_parameter_buffer_and_set_submodule():
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.BatchNorm1d(2)))
    assert net.get_parameter("0.weight") is net[0].weight
    assert net.get_buffer("1.0.running_mean") is net[1][0].running_mean
    for call, error, message in [
        (lambda: net.get_parameter("0.nope"), AttributeError, "Linear has no attribute `nope`"),
        (lambda: net.get_parameter("1.0.running_mean"), AttributeError,
         "`running_mean` is not an nn.Parameter"),
        (lambda: net.get_buffer("0.weight"), AttributeError, "`weight` is not a buffer"),
        (lambda: net.get_buffer("2.x"), AttributeError, "Sequential has no attribute `2`"),
        (lambda: net.set_submodule("", nn.ReLU()), ValueError,
         "Cannot set the submodule without a target name!"),
        (lambda: net.set_submodule("0", 3), ValueError,
         "`module` is not an nn.Module, found <class 'int'>"),
        (lambda: net.set_submodule("1.zz", nn.ReLU(), strict=True), AttributeError,
         "Sequential has no attribute `zz`"),
        (lambda: net.set_submodule("0.weight", nn.ReLU()), AttributeError,
         "`weight` is not an nn.Module"),
    ]:
        with pytest.raises(error) as caught:
            call()
        assert str(caught.value) == message
    net.set_submodule("1.zz", nn.ReLU())
    assert [name for name, _ in net.named_modules()] == ["", "0", "1", "1.0", "1.zz"]


def test_dtype_and_memory_methods():
    lin = nn.Linear(2, 1)
    before = lin.weight
    with pytest.raises(TypeError, match="symgrad has no bfloat16 dtype"):
        lin.bfloat16()
    assert lin.weight.dtype is t.float32
    assert lin.half() is lin and lin.weight.dtype is t.float16 and lin.weight is before
    lin.float()
    assert lin.type(t.float64) is lin and lin.weight.dtype is t.float64 and lin.weight is before
    bn = nn.BatchNorm1d(2).type(t.float64)
    assert bn.num_batches_tracked.dtype is t.float64  # type converts every tensor, as PyTorch
    assert lin.share_memory() is lin
    emptied = nn.Linear(3, 2).to_empty(device="cpu")
    assert emptied.weight.shape == (2, 3) and isinstance(emptied.weight, nn.Parameter)
    assert list(vars(nn.Module())) == [
        "training", "_parameters", "_buffers", "_non_persistent_buffers_set",
        "_backward_pre_hooks", "_backward_hooks", "_is_full_backward_hook", "_forward_hooks",
        "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_forward_pre_hooks",
        "_forward_pre_hooks_with_kwargs", "_state_dict_hooks", "_state_dict_pre_hooks",
        "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks", "_modules"]
    np.testing.assert_array_equal(nn.Linear(2, 1).double().weight.shape, (1, 2))
