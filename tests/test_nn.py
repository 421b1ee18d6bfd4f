"""symgrad.nn against PyTorch: registration, traversal order and dotted names, state_dict and
its errors, train/eval, hooks, reprs, containers, layers, losses and initialisation.

Expected strings and numbers were confirmed by running the same code on PyTorch 2.13 (CPU).
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad import nn
from symgrad.nn import init


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.BatchNorm1d(3))
        self.scale = nn.Parameter(symgrad.ones(1))
        self.register_buffer("steps", symgrad.zeros(1))
        self.register_buffer("scratch", symgrad.zeros(1), persistent=False)
        self.head = nn.Linear(3, 2, bias=False)

    def forward(self, x):
        return self.head(self.features[0](x)) * self.scale


# ------------------------------------------------------------------ names and order
def test_parameter_order_and_dotted_names_are_pytorchs():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "features.0.weight", "features.0.bias", "features.2.weight", "features.2.bias",
        "head.weight"]
    assert [n for n, _ in net.named_buffers()] == [
        "steps", "scratch", "features.2.running_mean", "features.2.running_var",
        "features.2.num_batches_tracked"]
    assert [n for n, _ in net.named_modules()] == ["", "features", "features.0", "features.1",
                                                   "features.2", "head"]
    assert [n for n, _ in net.named_children()] == ["features", "head"]
    assert list(net.state_dict()) == [
        "scale", "steps", "features.0.weight", "features.0.bias", "features.2.weight",
        "features.2.bias", "features.2.running_mean", "features.2.running_var",
        "features.2.num_batches_tracked", "head.weight"]
    assert [n for n, _ in net.named_parameters(prefix="model", recurse=False)] == ["model.scale"]


def test_shared_modules_and_parameters_are_listed_once():
    shared = nn.Linear(2, 2)
    net = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in net.named_modules()] == ["", "0", "1"]
    assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias"]
    # state_dict keeps both names (PyTorch's duplicate keys for tied weights)
    assert list(net.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(list(net.named_modules(remove_duplicate=False))) == 4


def test_deep_nesting_does_not_recurse():
    net = nn.Identity()
    for _ in range(3000):
        net = nn.Sequential(net)
    assert len(list(net.modules())) == 3001
    net.train(False)
    assert net.apply(lambda m: None) is net


# ------------------------------------------------------------------ state_dict
def test_state_dict_round_trip():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert not sd["scale"].requires_grad and sd["scale"].grad_fn is None
    assert b.load_state_dict(sd).missing_keys == []
    for (name, p), (_, q) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert symgrad.equal(p, q), name
    x = symgrad.randn(5, 4)
    assert symgrad.equal(a(x), b(x))
    assert a.state_dict(keep_vars=True)["scale"] is a.scale


def test_load_state_dict_strict_errors_are_pytorchs_and_change_nothing():
    lin = nn.Linear(2, 3)
    before = lin.weight.detach().clone()
    with pytest.raises(RuntimeError) as info:
        lin.load_state_dict({"weight": symgrad.zeros(3, 2)})
    assert str(info.value) == ('Error(s) in loading state_dict for Linear:\n\tMissing key(s) '
                               'in state_dict: "bias". ')
    assert symgrad.equal(lin.weight, before)  # raised before anything was copied
    with pytest.raises(RuntimeError) as info:
        lin.load_state_dict({"weight": symgrad.ones(3, 2), "bias": symgrad.ones(3),
                             "x": symgrad.ones(1), "y.z": symgrad.ones(1)})
    assert str(info.value) == ('Error(s) in loading state_dict for Linear:\n\tUnexpected '
                               'key(s) in state_dict: "x", "y.z". ')
    with pytest.raises(RuntimeError) as info:
        lin.load_state_dict({"weight": symgrad.ones(2, 2), "bias": 3})
    assert str(info.value) == (
        "Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a "
        "param with shape symgrad.Size([2, 2]) from checkpoint, the shape in current model is "
        "symgrad.Size([3, 2]).\n\tWhile copying the parameter named \"bias\", expected "
        "symgrad.Tensor or Tensor-like object from checkpoint but received <class 'int'>")
    assert symgrad.equal(lin.weight, before)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class "
                                        "'list'>."):
        lin.load_state_dict([1])


def test_load_state_dict_non_strict_reports_keys():
    lin = nn.Linear(2, 3)
    result = lin.load_state_dict({"weight": symgrad.ones(3, 2), "extra": symgrad.ones(1)},
                                 strict=False)
    # PyTorch 2.13 reports both lists whatever strict is; strict only decides the error
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra"]
    assert lin.weight.tolist() == [[1.0, 1.0]] * 3
    assert repr(lin.load_state_dict(lin.state_dict())) == "<All keys matched successfully>"


def test_load_state_dict_converts_dtype_and_keeps_parameters():
    lin = nn.Linear(2, 1)
    weight = lin.weight
    lin.load_state_dict({"weight": symgrad.tensor([[1.0, 2.0]], dtype=symgrad.float64),
                         "bias": symgrad.tensor([0.5])})
    assert lin.weight is weight and weight.dtype is symgrad.float32
    assert weight.tolist() == [[1.0, 2.0]] and weight.requires_grad


# ------------------------------------------------------------------ registration errors
@pytest.mark.parametrize("action, error, message", [
    (lambda m: setattr(m, "weight", symgrad.ones(2)), TypeError,
     "cannot assign 'symgrad.FloatTensor' as parameter 'weight' (symgrad.nn.Parameter or None "
     "expected)"),
    (lambda m: m.register_parameter("a.b", None), KeyError, "parameter name can't contain \".\""),
    (lambda m: m.register_parameter("", None), KeyError, "parameter name can't be empty string"),
    (lambda m: m.register_parameter(1, None), TypeError, "parameter name should be a string. "
     "Got int"),
    (lambda m: m.register_parameter("training", None), KeyError,
     "attribute 'training' already exists"),
    (lambda m: m.register_parameter("q", symgrad.ones(1)), TypeError,
     "cannot assign 'symgrad.FloatTensor' object to parameter 'q'"),
    (lambda m: m.register_buffer("weight", symgrad.ones(1)), KeyError,
     "attribute 'weight' already exists"),
    (lambda m: m.register_buffer("b2", 3), TypeError, "cannot assign 'int' object to buffer "
     "'b2'"),
    (lambda m: m.add_module("a.b", None), KeyError, "module name can't contain \".\", got: a.b"),
    (lambda m: m.add_module("x", 3), TypeError, "int is not a Module subclass"),
    (lambda m: m.train(1), ValueError, "training mode is expected to be boolean"),
    (lambda m: m.to(symgrad.int64), TypeError, "nn.Module.to only accepts floating point or "
     "complex dtypes, but got desired dtype=symgrad.int64"),
    (lambda m: m.nosuch, AttributeError, "'Linear' object has no attribute 'nosuch'"),
    (lambda m: m(symgrad.ones(4, 5)), RuntimeError, "mat1 and mat2 shapes cannot be multiplied "
     "(4x5 and 2x3)"),
    (lambda m: nn.Module()(1), NotImplementedError, 'Module [Module] is missing the required '
     '"forward" function'),
])
def test_errors_are_pytorchs(action, error, message):
    lin = nn.Linear(2, 3)
    with pytest.raises(error) as info:
        action(lin)
    text = info.value.args[0]
    assert text == message or text.startswith(message)


def test_wrong_size_input_raises_before_changing_anything():
    net = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                                           r"\(4x5 and 3x2\)"):
        net(symgrad.ones(4, 5))
    assert net[1].num_batches_tracked.item() == 0
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        nn.BatchNorm1d(2)(symgrad.ones(1, 2, 3, 4))


def test_assignment_replaces_registration():
    m = nn.Module()
    m.x = nn.Parameter(symgrad.ones(1))
    m.x = None  # a registered parameter may be cleared
    assert list(m.named_parameters()) == [] and m.x is None
    m.y = nn.Linear(1, 1)
    del m.y
    assert list(m.children()) == []
    m.z = 3
    assert m.z == 3 and "z" in dir(m)


# ------------------------------------------------------------------ modes, grads, dtypes
def test_train_eval_reach_every_submodule():
    net = Net()
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert net.features[2].training


def test_requires_grad_zero_grad_apply_and_dtype():
    net = Net()
    net(symgrad.randn(2, 4)).sum().backward()
    assert net.head.weight.grad is not None
    net.zero_grad(set_to_none=False)
    assert net.head.weight.grad.abs().sum().item() == 0
    net.zero_grad()
    assert net.head.weight.grad is None
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "BatchNorm1d", "Sequential", "Linear", "Net"]
    weight = net.head.weight
    net.double()
    assert net.head.weight is weight and weight.dtype is symgrad.float64
    assert net.features[2].running_mean.dtype is symgrad.float64
    assert net.features[2].num_batches_tracked.dtype is symgrad.int64  # not floating point
    assert net.to(symgrad.float32).head.weight.dtype is symgrad.float32
    assert net.float() is net


def test_forward_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append(args[0].sum().item()))
    h3 = lin.register_forward_hook(lambda m, args, out: out + 100)
    out = lin(symgrad.ones(1, 2))
    assert calls == [0.0] and symgrad.allclose(out, lin.bias + 100)
    for h in (h1, h2, h3):
        h.remove()
    assert symgrad.allclose(lin(symgrad.zeros(1, 2)), lin.bias)


def test_deepcopy_gives_independent_parameters():
    net = Net()
    twin = copy.deepcopy(net)
    assert isinstance(twin.scale, nn.Parameter)
    with symgrad.no_grad():
        twin.scale.fill_(5.0)
    assert net.scale.item() == 1.0


# ------------------------------------------------------------------ Parameter
def test_parameter():
    p = nn.Parameter(symgrad.tensor([1.0, 2.0]))
    assert isinstance(p, symgrad.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert repr(nn.Parameter(symgrad.ones(2), requires_grad=False)) == \
        "Parameter containing:\ntensor([1., 1.])"
    (p * p).sum().backward()
    assert p.grad.tolist() == [2.0, 4.0]
    assert type(p * 2) is symgrad.Tensor and type(p.detach()) is symgrad.Tensor
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        nn.Parameter(symgrad.tensor([1, 2]))
    assert nn.Parameter().shape == (0,)


# ------------------------------------------------------------------ reprs
def test_reprs_are_pytorchs():
    net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Sequential(nn.Conv2d(1, 2, 3),
                                                                  nn.BatchNorm2d(2)))
    assert repr(net) == (
        "Sequential(\n  (0): Linear(in_features=3, out_features=2, bias=True)\n  (1): ReLU()\n"
        "  (2): Sequential(\n    (0): Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1))\n"
        "    (1): BatchNorm2d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, "
        "track_running_stats=True)\n  )\n)")
    assert repr(nn.ModuleList([nn.Linear(1, 1) for _ in range(3)] + [nn.ReLU()])) == (
        "ModuleList(\n  (0-2): 3 x Linear(in_features=1, out_features=1, bias=True)\n"
        "  (3): ReLU()\n)")
    cases = {
        "Identity()": nn.Identity(),
        "Flatten(start_dim=1, end_dim=-1)": nn.Flatten(),
        "Unflatten(dim=1, unflattened_size=(2, 2))": nn.Unflatten(1, (2, 2)),
        "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)":
            nn.Bilinear(2, 3, 4),
        "Embedding(5, 3, padding_idx=0, max_norm=1.0)": nn.Embedding(5, 3, padding_idx=0,
                                                                     max_norm=1.0),
        "Conv1d(2, 3, kernel_size=(3,), stride=(1,))": nn.Conv1d(2, 3, 3),
        "Conv2d(2, 4, kernel_size=(3, 5), stride=(2, 2), padding=(1, 1), bias=False)":
            nn.Conv2d(2, 4, (3, 5), stride=2, padding=1, bias=False),
        "ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2))":
            nn.ConvTranspose2d(2, 3, 3, stride=2),
        "Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1), padding=same, dilation=(2, 2), "
        "groups=2, padding_mode=reflect)": nn.Conv2d(2, 4, 3, padding="same", dilation=2,
                                                     groups=2, padding_mode="reflect"),
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)":
            nn.MaxPool2d(2),
        "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))": nn.AvgPool1d(3),
        "AvgPool2d(kernel_size=2, stride=2, padding=0)": nn.AvgPool2d(2),
        "AdaptiveAvgPool2d(output_size=(2, 3))": nn.AdaptiveAvgPool2d((2, 3)),
        "LayerNorm((2, 3), eps=1e-05, elementwise_affine=False, bias=False)":
            nn.LayerNorm((2, 3), elementwise_affine=False),
        "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)": nn.GroupNorm(2, 4),
        "BatchNorm1d(2, eps=1e-05, momentum=None, affine=False, bias=False, "
        "track_running_stats=True)": nn.BatchNorm1d(2, affine=False, momentum=None),
        "Dropout(p=0.2, inplace=True)": nn.Dropout(0.2, inplace=True),
        "ReLU(inplace=True)": nn.ReLU(True),
        "LeakyReLU(negative_slope=0.01)": nn.LeakyReLU(),
        "GELU(approximate='tanh')": nn.GELU("tanh"),
        "Softmax(dim=None)": nn.Softmax(),
        "Hardtanh(min_val=-2, max_val=2, inplace=True)": nn.Hardtanh(-2, 2, True),
        "Threshold(threshold=0.1, value=20, inplace=True)": nn.Threshold(0.1, 20, True),
        "Softplus(beta=1.0, threshold=20.0)": nn.Softplus(),
        "Softshrink(0.5)": nn.Softshrink(),
        "PReLU(num_parameters=1)": nn.PReLU(),
        "Hardswish()": nn.Hardswish(True),
        "CrossEntropyLoss()": nn.CrossEntropyLoss(label_smoothing=0.1),
    }
    for text, module in cases.items():
        assert repr(module) == text


# ------------------------------------------------------------------ containers
def test_sequential_indexing():
    seq = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
    assert isinstance(seq[-1], nn.Sigmoid) and list(seq[1:]._modules) == ["1", "2"]
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and isinstance(seq[0], nn.Tanh)
    with pytest.raises(IndexError, match="index 5 is out of range"):
        seq[5]
    seq.append(nn.ReLU()).insert(0, nn.Identity())
    assert [type(m).__name__ for m in seq] == ["Identity", "Tanh", "Sigmoid", "ReLU"]
    assert isinstance(seq.pop(1), nn.Tanh) and len(seq) == 3
    from collections import OrderedDict
    named = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    assert [n for n, _ in named.named_children()] == ["a", "b"]
    assert named(symgrad.tensor([-1.0])).item() == 0.0


def test_module_list_and_dict():
    layers = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
    layers += [nn.Tanh()]
    assert len(layers) == 3 and [n for n, _ in layers.named_parameters()] == ["0.weight",
                                                                              "0.bias"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        layers[3]
    with pytest.raises(NotImplementedError, match="ModuleList"):
        layers(symgrad.ones(1))
    heads = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(1, 1)})
    assert list(heads) == ["b", "a"] and "a" in heads
    assert [n for n, _ in heads.named_parameters()] == ["a.weight", "a.bias"]
    heads["c"] = nn.Tanh()
    assert list(heads.keys()) == ["b", "a", "c"]


# ------------------------------------------------------------------ layers
def test_linear_and_bilinear_values():
    lin = nn.Linear(2, 1)
    with symgrad.no_grad():
        lin.weight.copy_(symgrad.tensor([[2.0, -1.0]]))
        lin.bias.fill_(0.5)
    assert lin(symgrad.tensor([[1.0, 3.0]])).tolist() == [[-0.5]]
    bil = nn.Bilinear(2, 3, 4)
    with symgrad.no_grad():
        bil.weight.copy_(symgrad.arange(24, dtype=symgrad.float32).reshape(4, 2, 3) / 10 - 1)
        bil.bias.copy_(symgrad.tensor([0.1, -0.2, 0.3, 0.0]))
    x1 = symgrad.tensor([[0.5, -1.0], [2.0, 0.25]])
    x2 = symgrad.tensor([[1.0, 0.0, -2.0], [0.5, 0.5, 0.5]])
    np.testing.assert_allclose(bil(x1, x2).tolist(), [  # PyTorch's values
        [0.10000000149011612, 0.10000006854534149, 0.9000001549720764, 0.8999999761581421],
        [-2.825000047683716, -1.100000023841858, 1.4249999523162842, 3.1500000953674316]],
        rtol=1e-6, atol=1e-7)


def test_linear_and_bilinear_gradients():
    x = symgrad.randn(3, 2, dtype=symgrad.float64, requires_grad=True)
    z = symgrad.randn(3, 4, dtype=symgrad.float64, requires_grad=True)
    w = symgrad.randn(5, 2, 4, dtype=symgrad.float64, requires_grad=True)
    b = symgrad.randn(5, dtype=symgrad.float64, requires_grad=True)
    assert symgrad.autograd.gradcheck(F.bilinear, (x, z, w, b))
    assert symgrad.autograd.gradcheck(F.linear, (x, w[:, :, 0], b))


def test_flatten_unflatten_identity():
    x = symgrad.randn(2, 3, 4)
    assert nn.Flatten()(x).shape == (2, 12) and nn.Flatten(0, 1)(x).shape == (6, 4)
    assert nn.Unflatten(1, (3, 1))(x.flatten(1, 2)[:, :3]).shape == (2, 3, 1)
    assert nn.Identity(3, foo=4)(x) is x


def test_prelu():
    act = nn.PReLU(3, 0.2)
    x = symgrad.tensor([[0.2, -1.5, 0.7], [1.1, 0.3, -0.4]]).unsqueeze(-1).expand(2, 3, 2)
    np.testing.assert_allclose(act(x).tolist(), [  # PyTorch's values
        [[0.2, 0.2], [-0.3, -0.3], [0.7, 0.7]], [[1.1, 1.1], [0.3, 0.3], [-0.08, -0.08]]],
        rtol=1e-6)
    assert [n for n, _ in act.named_parameters()] == ["weight"]


ACTIVATIONS = [
    (nn.ReLU(), F.relu, {}), (nn.ReLU6(), F.relu6, {}), (nn.LeakyReLU(0.2), F.leaky_relu,
                                                          {"negative_slope": 0.2}),
    (nn.ELU(0.5), F.elu, {"alpha": 0.5}), (nn.GELU("tanh"), F.gelu, {"approximate": "tanh"}),
    (nn.SiLU(), F.silu, {}), (nn.Tanh(), F.tanh, {}), (nn.Sigmoid(), F.sigmoid, {}),
    (nn.Hardtanh(-0.5, 0.5), F.hardtanh, {"min_val": -0.5, "max_val": 0.5}),
    (nn.Softplus(2.0, 1.0), F.softplus, {"beta": 2.0, "threshold": 1.0}),
    (nn.Softmax(1), F.softmax, {"dim": 1}), (nn.LogSoftmax(0), F.log_softmax, {"dim": 0}),
    (nn.Softmin(1), F.softmin, {"dim": 1}),
]


@pytest.mark.parametrize("module, function, kwargs", ACTIVATIONS,
                         ids=[type(m).__name__ for m, _, _ in ACTIVATIONS])
def test_activation_modules_call_their_function(module, function, kwargs):
    x = symgrad.tensor([[0.2, -1.5, 0.7], [1.1, 0.3, -0.4]])
    assert symgrad.equal(module(x), function(x, **kwargs))


def test_inplace_activation_modules_change_their_input():
    x = symgrad.tensor([-1.0, 2.0])
    assert nn.ReLU(inplace=True)(x) is x and x.tolist() == [0.0, 2.0]


# ------------------------------------------------------------------ losses
_INPUT = [[0.2, -1.5, 0.7], [1.1, 0.3, -0.4]]
_INDEX = [2, 0]
_PROBS = [[0.0, 1.0, 0.5], [1.0, 0.0, 0.25]]
LOSSES = [  # PyTorch's values
    ("CrossEntropyLoss", lambda: nn.CrossEntropyLoss(weight=symgrad.tensor([1.0, 2.0, 0.5]),
                                                     label_smoothing=0.1), False, _INDEX,
     0.7139809131622314),
    ("CrossEntropyLoss-sum", lambda: nn.CrossEntropyLoss(reduction="sum", ignore_index=0),
     False, _INDEX, 0.5407729744911194),
    ("NLLLoss", lambda: nn.NLLLoss(weight=symgrad.tensor([1.0, 2.0, 0.5])), True, _INDEX,
     0.5231210589408875),
    ("MSELoss", lambda: nn.MSELoss(reduction="sum"), False, _PROBS, 6.852499961853027),
    ("L1Loss", lambda: nn.L1Loss(), False, _PROBS, 0.6583333611488342),
    ("SmoothL1Loss", lambda: nn.SmoothL1Loss(beta=0.5), False, _PROBS, 0.4716666638851166),
    ("HuberLoss", lambda: nn.HuberLoss(delta=0.5), False, _PROBS, 0.2358333319425583),
    ("BCEWithLogitsLoss", lambda: nn.BCEWithLogitsLoss(
        pos_weight=symgrad.tensor([1.0, 2.0, 3.0])), False, _PROBS, 1.2614251375198364),
    ("KLDivLoss", lambda: nn.KLDivLoss(reduction="batchmean"), True, _PROBS,
     1.667940616607666),
]


@pytest.mark.parametrize("name, make, log, target, expected", LOSSES,
                         ids=[c[0] for c in LOSSES])
def test_loss_modules_are_pytorchs(name, make, log, target, expected):
    x = symgrad.tensor(_INPUT, requires_grad=True)
    loss = make()(x.log_softmax(1) if log else x, symgrad.tensor(target))
    assert loss.item() == pytest.approx(expected, rel=1e-6)
    loss.backward()
    assert x.grad is not None


def test_loss_options_buffers_and_reduction():
    x = symgrad.tensor(_INPUT)
    assert nn.BCELoss()(x.sigmoid(), symgrad.tensor(_PROBS)).item() == pytest.approx(
        0.8345739245414734, rel=1e-6)
    np.testing.assert_allclose(nn.MSELoss(reduction="none")(x, symgrad.tensor(_PROBS)).tolist(),
                               [[0.04, 6.25, 0.04], [0.01, 0.09, 0.4225]], rtol=1e-5)
    assert list(nn.CrossEntropyLoss(weight=symgrad.ones(3)).state_dict()) == ["weight"]
    assert list(nn.BCEWithLogitsLoss(pos_weight=symgrad.ones(3)).state_dict()) == ["pos_weight"]
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, "
                                         "please use reduction='sum' instead."):
        assert nn.MSELoss(size_average=False).reduction == "sum"
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        nn.L1Loss(reduction="bad")(x, x)


# ------------------------------------------------------------------ init
def _uniform_bound_check(values, bound):
    values = np.asarray(values)
    assert np.abs(values).max() <= bound
    assert np.abs(values).max() > 0.9 * bound  # fills the interval
    assert abs(values.mean()) < 0.1 * bound


def test_default_initialisation_distributions_are_pytorchs():
    symgrad.manual_seed(0)
    lin = nn.Linear(400, 300)
    _uniform_bound_check(lin.weight.detach().numpy(), 1 / math.sqrt(400))
    _uniform_bound_check(lin.bias.detach().numpy(), 1 / math.sqrt(400))
    # U(-b, b) has standard deviation b/√3
    assert lin.weight.std().item() == pytest.approx(1 / math.sqrt(400) / math.sqrt(3), rel=0.02)
    conv = nn.Conv2d(8, 64, 3)
    _uniform_bound_check(conv.weight.detach().numpy(), 1 / math.sqrt(8 * 9))
    _uniform_bound_check(conv.bias.detach().numpy(), 1 / math.sqrt(8 * 9))
    tconv = nn.ConvTranspose2d(8, 64, 3)  # fan_in from the weight's dimension 1: 64 * 9
    _uniform_bound_check(tconv.weight.detach().numpy(), 1 / math.sqrt(64 * 9))
    bil = nn.Bilinear(25, 3, 200)
    _uniform_bound_check(bil.weight.detach().numpy(), 1 / 5)
    emb = nn.Embedding(1000, 50, padding_idx=3)
    assert emb.weight.std().item() == pytest.approx(1.0, rel=0.05)
    assert emb.weight[3].abs().sum().item() == 0
    bn = nn.BatchNorm2d(4)
    assert bn.weight.tolist() == [1.0] * 4 and bn.running_var.tolist() == [1.0] * 4


def test_seeded_initialisation_is_reproducible():
    symgrad.manual_seed(3)
    a = nn.Linear(3, 2).weight.detach().clone()
    symgrad.manual_seed(3)
    assert symgrad.equal(a, nn.Linear(3, 2).weight)


def test_init_functions():
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01**2))
    assert init.calculate_gain("conv2d") == 1 and init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    symgrad.manual_seed(1)
    w = init.kaiming_normal_(symgrad.empty(256, 512), mode="fan_out", nonlinearity="relu")
    assert w.std().item() == pytest.approx(math.sqrt(2 / 256), rel=0.02)
    w = init.xavier_uniform_(symgrad.empty(300, 200), gain=2.0)
    _uniform_bound_check(w.numpy(), 2.0 * math.sqrt(6 / 500))
    w = init.trunc_normal_(symgrad.empty(10000), mean=1.0, std=2.0, a=0.0, b=1.5)
    assert w.min().item() >= 0.0 and w.max().item() <= 1.5
    q = init.orthogonal_(symgrad.empty(4, 6), gain=2.0)
    assert symgrad.allclose(q @ q.t(), 4 * symgrad.eye(4), atol=1e-5)
    p = nn.Parameter(symgrad.ones(3))
    init.zeros_(p)  # no recording: a leaf that requires grad may be filled
    assert p.tolist() == [0.0] * 3 and p.grad_fn is None and p.requires_grad
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        init.xavier_normal_(symgrad.empty(3))
    with pytest.raises(ValueError, match="Mode fan_up not supported"):
        init.kaiming_uniform_(symgrad.empty(3, 3), mode="fan_up")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="Initializing zero-element tensors is a no-op"):
            init.kaiming_uniform_(symgrad.empty(0, 3))


# ------------------------------------------------------------------ layers built on F's ops
def _cnn():
    return nn.Sequential(
        nn.Conv2d(1, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(),
        nn.MaxPool2d(2), nn.Conv2d(3, 4, 3, padding="same", dilation=2), nn.GroupNorm(2, 4),
        nn.AvgPool2d(2), nn.Flatten(), nn.LayerNorm(16), nn.Dropout(0.0), nn.Linear(16, 3))


def test_cnn_training_run_running_stats_and_eval_follow_pytorch():
    rng = np.random.default_rng(21)
    x = symgrad.tensor(rng.standard_normal((2, 1, 8, 8)).astype(np.float32))
    y = symgrad.tensor(rng.integers(0, 3, 2))
    net = _cnn()
    weights = np.random.default_rng(5)
    with symgrad.no_grad():
        for p in net.parameters():
            p.copy_(symgrad.tensor((weights.standard_normal(tuple(p.shape)) * 0.3)
                                   .astype(np.float32)))
    opt = symgrad.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    # PyTorch's values for the same weights and data
    np.testing.assert_allclose(losses, [1.6169543266296387, 1.192022442817688,
                                        0.6276329755783081, 0.2532784938812256], rtol=1e-5)
    bn = net[1]
    np.testing.assert_allclose(bn.running_mean.tolist(), [
        -0.03392018377780914, -0.1048797070980072, -0.0259034913033247], rtol=1e-4)
    np.testing.assert_allclose(bn.running_var.tolist(), [
        0.799813985824585, 0.9158332347869873, 0.7743492126464844], rtol=1e-5)
    assert bn.num_batches_tracked.item() == 4
    net.eval()
    with symgrad.no_grad():
        out = net(x)
    np.testing.assert_allclose(out.tolist(), [
        [-1.4341423511505127, -1.4953677654266357, 1.567441463470459],
        [-1.3066169023513794, -1.4017186164855957, 1.5697394609451294]], rtol=1e-4)
    assert bn.num_batches_tracked.item() == 4  # eval mode leaves the statistics alone


def test_batch_norm_cumulative_average_and_eval():
    bn = nn.BatchNorm1d(2, momentum=None)
    bn(symgrad.tensor([[1.0, 2.0], [3.0, 6.0]]))
    bn(symgrad.tensor([[0.0, 0.0], [1.0, 1.0]]))
    assert bn.running_mean.tolist() == [1.25, 2.25]  # PyTorch's values
    assert bn.running_var.tolist() == [1.25, 4.25]
    bn.eval()
    out = bn(symgrad.tensor([[1.25, 2.25]]))
    assert out.abs().max().item() < 1e-6


def test_transposed_convolution_output_size():
    up = nn.ConvTranspose2d(2, 1, 3, stride=2, padding=1)
    assert up(symgrad.zeros(1, 2, 4, 4), output_size=(8, 8)).shape == (1, 1, 8, 8)
    assert up(symgrad.zeros(1, 2, 4, 4)).shape == (1, 1, 7, 7)
    with pytest.raises(ValueError) as info:
        up(symgrad.zeros(1, 2, 4, 4), output_size=(10, 10))
    assert str(info.value) == ("requested an output size of (10, 10), but valid sizes range "
                               "from [7, 7] to [8, 8] (for an input of symgrad.Size([4, 4]))")


def test_pooling_embedding_dropout_modules():
    out, idx = nn.MaxPool2d(2, return_indices=True)(
        symgrad.tensor([[[[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 8.0, 1.0]]]]))
    assert out.tolist() == [[[[5.0, 8.0]]]] and idx.tolist() == [[[[1, 6]]]]
    assert nn.AdaptiveAvgPool2d(1)(symgrad.ones(2, 3, 5, 7)).shape == (2, 3, 1, 1)
    emb = nn.Embedding(4, 2, padding_idx=1)
    with symgrad.no_grad():
        emb.weight.copy_(symgrad.arange(8.0).reshape(4, 2))
    emb(symgrad.tensor([[1, 3], [1, 0]])).sum().backward()
    assert emb.weight.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
    drop = nn.Dropout(0.5)
    x = symgrad.ones(1000)
    kept = drop(x)
    assert set(np.unique(kept.numpy()).tolist()) <= {0.0, 2.0}  # scaled by 1/(1-p)
    assert 300 < (kept > 0).sum().item() < 700
    assert symgrad.equal(drop.eval()(x), x)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but "
                                         "got 1.5"):
        nn.Dropout(1.5)


@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
    (lambda: nn.Conv2d(2, 3, 3, groups=2), ValueError, "out_channels must be divisible by "
     "groups"),
    (lambda: nn.Conv2d(2, 4, 3, padding="same", stride=2), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: nn.Conv2d(2, 4, 3, padding="full"), ValueError, "Invalid padding string 'full'"),
    (lambda: nn.Conv2d(2, 4, 3, padding_mode="mirror"), ValueError, "padding_mode must be one "
     "of"),
    (lambda: nn.GroupNorm(3, 4), ValueError, "num_channels must be divisible by num_groups"),
])
def test_layer_construction_errors_are_pytorchs(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert str(info.value).startswith(message)


def test_conv_wrong_input_size_error():
    conv = nn.Conv2d(3, 4, 3)
    with pytest.raises(RuntimeError, match="expected input"):
        conv(symgrad.zeros(1, 2, 5, 5))


# PyTorch's values at [[-1.0, 0.5, 2.0]] (and its gradients where noted)
MORE_ACTIVATIONS = [
    (nn.CELU(), [-0.6321, 0.5000, 2.0000]), (nn.SELU(), [-1.1113, 0.5254, 2.1014]),
    (nn.Mish(), [-0.3034, 0.3752, 1.9440]), (nn.Hardswish(), [-0.3333, 0.2917, 1.6667]),
    (nn.Hardsigmoid(), [0.3333, 0.5833, 0.8333]), (nn.Softsign(), [-0.5000, 0.3333, 0.6667]),
    (nn.Tanhshrink(), [-0.2384, 0.0379, 1.0360]), (nn.LogSigmoid(), [-1.3133, -0.4741, -0.1269]),
    (nn.Threshold(0.5, 20.0), [20.0, 20.0, 2.0]), (nn.Hardshrink(), [-1.0, 0.0, 2.0]),
    (nn.Softshrink(), [-0.5, 0.0, 1.5]),
]


@pytest.mark.parametrize("module, expected", MORE_ACTIVATIONS,
                         ids=[type(m).__name__ for m, _ in MORE_ACTIVATIONS])
def test_more_activation_modules_are_pytorchs(module, expected):
    x = symgrad.tensor([[-1.0, 0.5, 2.0]])
    np.testing.assert_allclose(module(x).tolist(), [expected], atol=1e-4)


def test_shrink_threshold_glu_gradients_are_pytorchs():
    x = symgrad.tensor([[-1.0, 0.25, 0.5, 2.0]], requires_grad=True)
    for fn, grad in [(F.softshrink, [1.0, 0.0, 0.0, 1.0]), (F.hardshrink, [1.0, 0.0, 0.0, 1.0]),
                     (lambda v: F.threshold(v, 0.5, 20.0), [0.0, 0.0, 0.0, 1.0])]:
        x.grad = None
        fn(x).sum().backward()
        assert x.grad.tolist() == [grad]
    np.testing.assert_allclose(nn.GLU()(x).tolist(), [[-0.6225, 0.2202]], atol=1e-4)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is "
                                           "size 3"):
        F.glu(symgrad.ones(2, 3))
    y = symgrad.randn(3, 4, dtype=symgrad.float64, requires_grad=True)
    assert symgrad.autograd.gradcheck(F.glu, (y,))


# PyTorch's values for the same inputs
_X = [[0.2, -1.5, 0.7], [1.1, 0.3, -0.4]]
_SIGNS = [[1.0, -1.0, 1.0], [-1.0, 1.0, -1.0]]
_X2 = [[0.5, 0.5, -0.2], [0.9, -0.3, 0.4]]
_X3 = [[-1.0, 0.0, 0.3], [0.1, 0.2, 0.3]]
MARGIN_LOSSES = [
    ("SoftMarginLoss", lambda T: nn.SoftMarginLoss()(T(_X), T(_SIGNS)), 0.609574019908905),
    ("MarginRankingLoss", lambda T: nn.MarginRankingLoss(0.3, reduction="sum")(
        T(_X[0]), T(_X[1]), T(_SIGNS[0])), 1.2000000476837158),
    ("HingeEmbeddingLoss", lambda T: nn.HingeEmbeddingLoss(0.5, reduction="none")(
        T(_X), T(_SIGNS)), [[0.2, 2.0, 0.7], [0.0, 0.3, 0.9]]),
    ("PoissonNLLLoss", lambda T: nn.PoissonNLLLoss()(
        T(_X), T([[2.0, 0.5, 1.0], [0.5, 3.0, 0.1]])), 1.1204384565353394),
    ("PoissonNLLLoss-full", lambda T: nn.PoissonNLLLoss(log_input=False, full=True,
                                                        reduction="sum")(
        T([[2.0, 0.5, 1.0], [0.5, 3.0, 0.1]]), T(_X2).abs() * 4), 16.17034339904785),
    ("CosineEmbeddingLoss", lambda T: nn.CosineEmbeddingLoss(0.1, reduction="none")(
        T(_X), T(_X2), T([1.0, -1.0])), [1.6447744369506836, 0.4948429763317108]),
    ("MultiLabelSoftMarginLoss", lambda T: nn.MultiLabelSoftMarginLoss(
        weight=T([1.0, 2.0, 0.5]))(T(_X), T([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])),
     0.7925186157226562),
    ("TripletMarginLoss-swap", lambda T: nn.TripletMarginLoss(swap=True, reduction="none")(
        T(_X), T(_X2), T(_X3)), [1.5552804470062256, 1.071120262145996]),
    ("TripletMarginLoss-p1", lambda T: nn.TripletMarginLoss(margin=0.5, p=1)(
        T(_X), T(_X2), T(_X3)), 0.4499990940093994),
]


@pytest.mark.parametrize("name, compute, expected", MARGIN_LOSSES,
                         ids=[c[0] for c in MARGIN_LOSSES])
def test_margin_and_embedding_losses_are_pytorchs(name, compute, expected):
    np.testing.assert_allclose(compute(symgrad.tensor).tolist(), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name, compute, expected", MARGIN_LOSSES,
                         ids=[c[0] for c in MARGIN_LOSSES])
def test_margin_and_embedding_loss_gradients(name, compute, expected):
    def leaf(values):
        return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=True)

    made = []

    def tensor(values):
        made.append(leaf(values))
        return made[-1]

    loss = compute(tensor).sum()
    loss.backward()

    def replay():  # the loss again, at the same (now changed) leaves
        leaves = iter(list(made))
        return compute(lambda values: next(leaves)).sum().item()

    # every differentiable input got a gradient; check one against central differences
    x = made[0]
    assert x.grad is not None
    h = 1e-6
    for index in [(0, 0), (1, 1)] if x.ndim == 2 else [(0,), (1,)]:
        with symgrad.no_grad():
            x[index] += h
            up = replay()
            x[index] -= 2 * h
            down = replay()
            x[index] += h
        assert x.grad[index].item() == pytest.approx((up - down) / (2 * h), abs=1e-5)


def test_gaussian_nll_loss_is_pytorchs():
    x = symgrad.tensor(_X, requires_grad=True)
    target = symgrad.tensor([[0.0, 1.0, 0.5], [1.0, 0.0, 0.25]])
    var = symgrad.tensor([[0.5, 1e-8, 2.0], [1.0, 0.3, 0.1]], requires_grad=True)
    loss = nn.GaussianNLLLoss()(x, target, var)  # var 1e-8 is clamped to eps = 1e-6
    assert loss.item() == pytest.approx(520832.25, rel=1e-6)  # PyTorch's values from here on
    loss.backward()
    np.testing.assert_allclose(x.grad.tolist(), [
        [0.06666667014360428, -416666.6875, 0.01666666567325592],
        [0.016666671261191368, 0.1666666567325592, -1.0833333730697632]], rtol=1e-5)
    np.testing.assert_allclose(var.grad.tolist(), [
        [0.15333333611488342, -520833236992.0, 0.04083333536982536],
        [0.08250000327825546, 0.1944444179534912, -2.687499523162842]], rtol=1e-5)
    full = F.gaussian_nll_loss(x, target, var[:, :1], full=True, reduction="sum")
    assert full.item() == pytest.approx(11.065159797668457, rel=1e-6)
    np.testing.assert_allclose(
        F.gaussian_nll_loss(x, target, symgrad.tensor([0.5, 2.0]), reduction="none").tolist(),
        [[-0.3065735995769501, 5.903426170349121, -0.3065735995769501],
         [0.349073588848114, 0.3690735995769501, 0.4521985650062561]], rtol=1e-6)
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        F.gaussian_nll_loss(x, target, -var)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(x, target, symgrad.ones(3))
    with pytest.raises(ValueError, match="x is not valid"):
        F.gaussian_nll_loss(x, target, var, reduction="x")
