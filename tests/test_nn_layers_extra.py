"""Norm, pooling, embedding-bag, container and lazy layers added for PyTorch parity
(InstanceNorm1d/2d/3d, RMSNorm, LocalResponseNorm, LPPool1d/2d, MaxUnpool1d/2d, PReLU through
F.prelu, EmbeddingBag, ParameterList/ParameterDict, Buffer, LazyLinear) and F.pdist /
F.gumbel_softmax / F.threshold_: values confirmed with PyTorch 2.13 and recorded here (torch is
not imported), gradcheck, the symbolic check and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F
from symgrad import nn, symbolic

# (constructor, input shape, repr, output shape, output sum, sum(output * cotangent),
#  sum(input grad * arange)) from PyTorch; inputs from default_rng(len(code) + sum(shape))
RECORDED = [
    ('nn.InstanceNorm1d(2)', (2, 2, 4),
     'InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=False, bias=False, '
     'track_running_stats=False)',
     (2, 2, 4), 0.0, 3.5965869429, 9.7011471093),
    ('nn.InstanceNorm1d(3, affine=True)', (3, 5),
     'InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, '
     'track_running_stats=False)',
     (3, 5), 0.0, 13.2611011596, 11.0912711673),
    ('nn.InstanceNorm2d(2, track_running_stats=True)', (2, 2, 3, 3),
     'InstanceNorm2d(2, eps=1e-05, momentum=0.1, affine=False, bias=False, '
     'track_running_stats=True)',
     (2, 2, 3, 3), 0.0, 5.3090649894, 16.7693901117),
    ('nn.InstanceNorm2d(2, track_running_stats=True).eval()', (2, 2, 3, 3),
     'InstanceNorm2d(2, eps=1e-05, momentum=0.1, affine=False, bias=False, '
     'track_running_stats=True)',
     (2, 2, 3, 3), 14.9879250606, -11.8869405654, 34.9998250013),
    ('nn.InstanceNorm3d(1, affine=True, momentum=None, track_running_stats=True)', (2, 1, 2, 2, 3),
     'InstanceNorm3d(1, eps=1e-05, momentum=None, affine=True, bias=True, '
     'track_running_stats=True)',
     (2, 1, 2, 2, 3), 0.0, -1.8015903481, -1.2257406008),
    ('nn.RMSNorm(4)', (3, 4),
     'RMSNorm((4,), eps=None, elementwise_affine=True)',
     (3, 4), 0.0534555793, -1.9641054789, -11.7113982846),
    ('nn.RMSNorm([2, 3], eps=1e-3, elementwise_affine=False)', (2, 2, 3),
     'RMSNorm((2, 3), eps=0.001, elementwise_affine=False)',
     (2, 2, 3), -2.0954996011, 4.4298529984, -2.5931071426),
    ('nn.LocalResponseNorm(2)', (2, 3, 4),
     'LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)',
     (2, 3, 4), -1.2023589764, 6.8849625908, -46.0122200452),
    ('nn.LocalResponseNorm(3, alpha=0.5, beta=0.6, k=2.0)', (1, 4, 2, 3),
     'LocalResponseNorm(3, alpha=0.5, beta=0.6, k=2.0)',
     (1, 4, 2, 3), 0.3859035614, 6.8331513173, -22.3312925512),
    ('nn.LocalResponseNorm(2, alpha=1.0)', (1, 3, 2, 2, 2),
     'LocalResponseNorm(2, alpha=1.0, beta=0.75, k=1.0)',
     (1, 3, 2, 2, 2), 3.5901751564, 3.7391907612, -19.9554150103),
    ('nn.LPPool1d(2, 3)', (1, 2, 7),
     'LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)',
     (1, 2, 2), 7.1607894891, -9.838413679, 0.359039831),
    ('nn.LPPool2d(2.0, (2, 3), stride=1, ceil_mode=True)', (1, 1, 4, 5),
     'LPPool2d(norm_type=2.0, kernel_size=(2, 3), stride=1, ceil_mode=True)',
     (1, 1, 3, 3), 22.0305548332, -9.5093108052, -2.3188975057),
    ('nn.LPPool2d(4, 2)', (1, 2, 4, 4),
     'LPPool2d(norm_type=4, kernel_size=2, stride=None, ceil_mode=False)',
     (1, 2, 2, 2), 13.7760811107, 0.2581830127, 227.2737077117),
    ('nn.PReLU(3)', (2, 3, 2),
     'PReLU(num_parameters=3)',
     (2, 3, 2), 8.706, -2.89825, -19.0),
    ('nn.PReLU()', (4,),
     'PReLU(num_parameters=1)',
     (4,), -0.67325, -1.20525, -1.0),
]

# embedding_bag gradients recorded from PyTorch (see test_embedding_bag_matches_pytorch)
PSW_GRAD = [1.148, -0.461, -2.711, -0.226, -0.226, -17.164001, 6.854]
MAX_W_GRAD = [9.0, 10.0, 13.0, 6.0, 7.0, 8.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("case", RECORDED, ids=lambda c: c[0])
def test_layer_matches_pytorch(case):
    code, shape, text, out_shape, total, weighted, grad_weighted = case
    rng = np.random.default_rng(len(code) + sum(shape))
    x = t.tensor(rng.normal(size=shape).round(3), dtype=t.float64, requires_grad=True)
    layer = eval(code, {"nn": nn}).double()  # noqa: S307 - the recorded constructor calls
    assert repr(layer) == text
    y = layer(x)
    assert tuple(y.shape) == out_shape
    cot = t.tensor(np.arange(y.numel()).reshape(tuple(y.shape)) % 7 - 3.0, dtype=t.float64)
    (y * cot).sum().backward()
    arange = t.arange(x.numel(), dtype=t.float64).reshape(tuple(x.shape))
    np.testing.assert_allclose(y.detach().sum().item(), total, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose((y * cot).detach().sum().item(), weighted, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose((x.grad * arange).sum().item(), grad_weighted, rtol=1e-9,
                               atol=1e-9)


def test_instance_norm_running_statistics():
    x = t.tensor(np.random.default_rng(1).normal(size=(2, 2, 3, 3)).round(3))
    norm = nn.InstanceNorm2d(2, track_running_stats=True).double()
    norm(x)
    norm(x * 2)
    np.testing.assert_allclose(norm.running_mean.numpy(), [-0.029418888888888887,
                                                           0.061625000000000006], rtol=1e-12)
    np.testing.assert_allclose(norm.running_var.numpy(), [1.3231788511111113,
                                                          1.14776637125], rtol=1e-12)
    assert norm.num_batches_tracked.item() == 0  # PyTorch's instance norm does not count
    norm.eval()
    np.testing.assert_allclose(norm(x).sum().item(), 1.4078388164496327, rtol=1e-12)
    assert list(nn.InstanceNorm1d(3).state_dict()) == []
    assert list(nn.InstanceNorm1d(3, affine=True, track_running_stats=True).state_dict()) == [
        "weight", "bias", "running_mean", "running_var", "num_batches_tracked"]


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: nn.InstanceNorm1d(3)(t.ones(2, 3, 4, 5)), ValueError,
     "expected 2D or 3D input (got 4D input)"),
    (lambda: nn.InstanceNorm2d(3, affine=True)(t.ones(2, 4, 3, 3)), ValueError,
     "expected input's size at dim=1 to match num_features (3), but got: 4."),
    (lambda: F.instance_norm(t.ones(2, 3, 1)), ValueError,
     "Expected more than 1 spatial element when training, got input size "
     "symgrad.Size([2, 3, 1])"),
    (lambda: F.instance_norm(t.ones(2, 3, 2), weight=t.ones(2)), RuntimeError,
     "weight should contain 6 elements not 4"),
    (lambda: F.rms_norm(t.ones(2, 3), (2,)), RuntimeError,
     "Given normalized_shape=[2], expected input with shape [*2], but got input of size[2, 3]"),
    (lambda: F.rms_norm(t.ones(2, 3), (3,), weight=t.ones(2)), RuntimeError,
     "Expected weight to be of same shape as normalized_shape, but got weight of shape [2] and "
     "normalized_shape = [3]"),
    (lambda: F.local_response_norm(t.ones(2, 3), 2), ValueError,
     "Expected 3D or higher dimensionality                          input (got 2 dimensions)"),
    (lambda: F.prelu(t.ones(2, 3), t.ones(2)), RuntimeError,
     "Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and "
     "channel size = 3."),
    (lambda: F.prelu(t.ones(2, 3), t.ones(1, 3)), RuntimeError,
     "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
    (lambda: F.pdist(t.ones(2, 3, 1)), RuntimeError, "pdist only supports 2D tensors, got: 3D"),
    (lambda: F.pdist(t.ones(2, 3).long()), RuntimeError,
     "pdist only supports floating-point dtypes"),
    (lambda: F.pdist(t.ones(2, 3), -1), RuntimeError, "pdist only supports non-negative p values"),
    (lambda: F.max_unpool1d(t.ones(1, 1, 4), t.tensor([[[1, 3, 5, 7]]]), 2, output_size=(12,)),
     ValueError, 'invalid output_size "(12,)" (dim 0 must be between 6 and 10)'),
    (lambda: F.max_unpool2d(t.ones(1, 1, 2, 2), t.tensor([[[[0, 1], [2, 20]]]]), 2),
     RuntimeError, "Found an invalid max index: 20 (output volumes are of size 4x4)"),
    (lambda: F.max_unpool2d(t.ones(1, 1, 2, 2), t.tensor([[[0, 1, 2, 3]]]), 2), RuntimeError,
     "Expected shape of indices to be same as that of the input tensor ([1, 1, 2, 2]) but got "
     "indices tensor with shape: [1, 1, 4]"),
])
def test_errors_as_pytorch(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value) == message


def test_max_unpool_inverts_max_pool():
    x = t.arange(16.0).reshape(1, 1, 4, 4)
    out = nn.MaxUnpool2d(2)(*nn.MaxPool2d(2, return_indices=True)(x))
    assert out.flatten().tolist() == [0, 0, 0, 0, 0, 5, 0, 7, 0, 0, 0, 0, 0, 13, 0, 15]
    values, indices = F.max_pool1d(t.arange(8.0).reshape(1, 1, 8), 2, return_indices=True)
    assert F.max_unpool1d(values, indices, 2, output_size=(9,)).flatten().tolist() == [
        0, 1, 0, 3, 0, 5, 0, 7, 0]
    v = t.tensor([[[[2.0, 3.0]]]], dtype=t.float64, requires_grad=True)
    idx = t.tensor([[[[1, 2]]]])
    assert t.autograd.gradcheck(lambda a: F.max_unpool2d(a, idx, (1, 2)), (v,))


def test_pdist_values_gradient_and_zero_distance():
    x = t.tensor([[0.0, 0], [3, 4], [0, 1], [1, 1]], dtype=t.float64, requires_grad=True)
    y = F.pdist(x, 1.5)
    (y * t.arange(6.0, dtype=t.float64)).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), [5.584250376480029, 1.0, 1.5874010519681994,
                                                    4.762203155904598, 4.008188992688178, 1.0],
                               rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), [
        [-1.5874010519681994, -2.5874010519681994], [5.20663789446297, 5.841662690529425],
        [-7.3811015779522995, -1.3811015779522995], [3.7618647354575288, -1.8731600606089258]],
        rtol=1e-12)
    same = t.tensor([[0.0, 0], [0, 0], [1, 1]], requires_grad=True)
    F.pdist(same).sum().backward()  # the zero distance contributes no gradient, as PyTorch
    np.testing.assert_allclose(same.grad.numpy(), [[-0.70710677] * 2, [-0.70710677] * 2,
                                                   [1.4142135] * 2], rtol=1e-6)
    z = t.tensor(np.random.default_rng(2).normal(size=(4, 3)), requires_grad=True)
    assert t.autograd.gradcheck(lambda a: F.pdist(a, 3.0), (z,))
    symbolic.check(F.pdist(z).sum())


def test_gumbel_softmax_and_threshold_():
    t.manual_seed(0)
    soft = F.gumbel_softmax(t.zeros(3, 4), tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).numpy(), 1.0, rtol=1e-6)
    logits = t.tensor([[0.0, 1.0, 2.0]], requires_grad=True)
    hard = F.gumbel_softmax(logits, hard=True)
    assert sorted(hard.detach().flatten().tolist()) == [0.0, 0.0, 1.0]
    (hard * t.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert logits.grad.abs().sum().item() > 0  # straight-through: the soft sample's gradient
    x = t.tensor([-1.0, 0.5, 2.0])
    assert F.threshold_(x, 0.5, 9.0) is x and x.tolist() == [9.0, 9.0, 2.0]


def test_new_norms_gradcheck_and_symbolic():
    x = t.tensor(np.random.default_rng(3).normal(size=(2, 3, 4)), requires_grad=True)
    w = t.tensor([1.5, -0.5, 2.0, 1.0], dtype=t.float64, requires_grad=True)
    assert t.autograd.gradcheck(lambda a, b: F.rms_norm(a, (4,), b), (x, w))
    assert t.autograd.gradcheck(lambda a: F.instance_norm(a), (x,))
    assert t.autograd.gradcheck(lambda a: F.local_response_norm(a, 2, alpha=0.5), (x,))
    assert t.autograd.gradcheck(lambda a: F.lp_pool1d(a.abs() + 0.1, 3, 2), (x,))
    symbolic.check(F.rms_norm(x, (4,), w).sum())
    symbolic.check(F.local_response_norm(x, 3, alpha=0.5).sum())


EMBED_W = [[0.126, -0.132, 0.64], [0.105, -0.536, 0.362], [1.304, 0.947, -0.704],
           [-1.265, -0.623, 0.041], [-2.325, -0.219, -1.246]]


def test_embedding_bag_matches_pytorch():
    w = t.tensor(EMBED_W, requires_grad=True)
    idx, offsets = t.tensor([0, 2, 4, 1, 1, 3, 0]), t.tensor([0, 3, 3, 5])
    cot = t.arange(12.0).reshape(4, 3)
    expected = {  # recorded from torch.nn.functional.embedding_bag
        "sum": [-0.895, 0.596, -1.31, 0.0, 0.0, 0.0, 0.21, -1.072, 0.724, -1.139, -0.755, 0.681],
        "mean": [-0.298333, 0.198667, -0.436667, 0.0, 0.0, 0.0, 0.105, -0.536, 0.362, -0.5695,
                 -0.3775, 0.3405],
        "max": [1.304, 0.947, 0.64, 0.0, 0.0, 0.0, 0.105, -0.536, 0.362, 0.126, -0.132, 0.64],
    }
    for mode, want in expected.items():
        out = F.embedding_bag(idx, w, offsets, mode=mode)
        np.testing.assert_allclose(out.detach().numpy().ravel(), want, atol=5e-6)
    psw = t.tensor([1.0, 2, 3, 4, 5, 6, 7], requires_grad=True)
    y = F.embedding_bag(idx, w, offsets, mode="sum", per_sample_weights=psw)
    (y * cot).sum().backward()
    np.testing.assert_allclose(psw.grad.numpy(), PSW_GRAD, atol=5e-5)
    w.grad = None
    (F.embedding_bag(idx, w, offsets, mode="max") * cot).sum().backward()
    np.testing.assert_allclose(w.grad.numpy().ravel(), MAX_W_GRAD, atol=1e-6)
    bag = nn.EmbeddingBag(5, 3, mode="max", padding_idx=0)
    assert repr(bag) == "EmbeddingBag(5, 3, mode='max', padding_idx=0)"
    assert list(bag.state_dict()) == ["weight"] and bag.weight[0].tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(idx, w, offsets, mode="min")
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(idx, w)
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for "
                                                  r"mode='sum' \(got mode='mean'\)"):
        F.embedding_bag(idx, w, offsets, per_sample_weights=psw)


def test_parameter_containers_and_buffer():
    params = nn.ParameterList([t.ones(2), nn.Parameter(t.zeros(2, 3)), 3])
    assert repr(params) == (
        "ParameterList(\n    (0): Parameter containing: [symgrad.float32 of size 2]\n"
        "    (1): Parameter containing: [symgrad.float32 of size 2x3]\n"
        "    (2): Object of type: int\n)")
    assert [n for n, _ in params.named_parameters()] == ["0", "1"]
    assert isinstance(params[0], nn.Parameter) and len(params[1:]) == 2
    with pytest.raises(IndexError, match="index 3 is out of range"):
        params[3]
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        params()
    pd = nn.ParameterDict({"b": t.ones(2), "a": nn.Parameter(t.zeros(1))})
    assert list(pd) == ["a", "b"] and list(pd.state_dict()) == ["a", "b"]
    assert repr(pd) == ("ParameterDict(\n    (a): Parameter containing: [symgrad.FloatTensor of "
                        "size 1]\n    (b): Parameter containing: [symgrad.FloatTensor of size "
                        "2]\n)")
    pd["c"] = t.ones(3)
    assert pd.popitem()[0] == "c" and "c" not in pd and len(pd | {"z": t.ones(1)}) == 3
    with pytest.raises(TypeError, match="Index given to ParameterDict cannot be used as a key"):
        pd[1]
    module = nn.Module()
    module.steps = nn.Buffer(t.zeros(1))
    module.scratch = nn.Buffer(t.zeros(1), persistent=False)
    assert list(module.state_dict()) == ["steps"]
    assert [n for n, _ in module.named_buffers()] == ["steps", "scratch"]
    assert isinstance(module.steps, nn.Buffer) and not isinstance(t.ones(1), nn.Buffer)


def test_lazy_linear_materialises_the_same_parameters():
    lazy = nn.LazyLinear(3)
    assert repr(lazy) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    held = list(lazy.parameters())
    y = lazy(t.ones(2, 4))
    assert type(lazy) is nn.Linear
    assert repr(lazy) == "Linear(in_features=4, out_features=3, bias=True)"
    assert held[0] is lazy.weight and tuple(lazy.weight.shape) == (3, 4)
    assert float(lazy.weight.detach().abs().max()) <= 0.5  # PyTorch's U(±1/sqrt(in_features))
    y.sum().backward()
    assert held[1].grad.tolist() == [2.0, 2.0, 2.0]
