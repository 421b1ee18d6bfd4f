"""Convolution layers with padding_mode 'reflect', 'replicate' and 'circular' (Conv1d/2d/3d):
outputs and gradients against values confirmed with PyTorch 2.13 (recorded here from the same
numpy-seeded inputs and weights; torch is not imported), against ``F.pad`` followed by the
zero-padded convolution, gradcheck and the symbolic check."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F
from symgrad import nn, symbolic

CASES = [  # dims, input shape, out_channels, kernel, padding, stride, dilation, groups
    (1, (2, 2, 6), 3, 3, 2, 1, 1, 1),
    (1, (1, 2, 5), 2, 4, "same", 1, 1, 2),
    (2, (1, 2, 5, 4), 2, 3, (1, 2), 2, 1, 1),
    (2, (1, 1, 4, 5), 1, 2, "same", 1, 2, 1),
    (3, (1, 1, 3, 4, 3), 2, 2, 1, 1, 1, 1),
    (3, (1, 2, 3, 3, 4), 2, (1, 2, 3), (0, 1, 2), (1, 2, 1), 1, 2),
]
MODES = ("reflect", "replicate", "circular")

# (case, mode) -> (output shape, first output values, output sum, sum(output * cotangent),
#                  first input-gradient values, sum(input grad * arange), first weight grads)
EXPECTED = {(0, 'reflect'): ((2, 3, 8),
                             [2.320136, 0.074698, -0.819044, 0.379947, 3.423436, 2.582149],
                             46.235364000000004,
                             2.4699670000000005,
                             [1.397, -1.872, 2.097, 0.372, -5.531, 1.397],
                             -49.44199999999995,
                             [-0.709, 5.485, -3.597, 3.978]),
            (0, 'replicate'): ((2, 3, 8),
                               [4.4252, 3.792071, 3.870165, 1.013497, -4.748924, -3.685076],
                               -0.3905919999999994,
                               -25.798324999999995,
                               [-6.07, 0.462, -4.9, 3.988, 1.406, -4.754],
                               -246.77500000000012,
                               [2.115, 0.529, -5.367, 1.949]),
            (0, 'circular'): ((2, 3, 8),
                              [0.69827, 0.003002, -4.15397, -3.564747, 0.594136, 1.193549],
                              -60.825616000000004,
                              11.253518999999997,
                              [2.101, 3.471, 5.555, -4.386, -6.158, -8.983],
                              14.176999999999964,
                              [2.747, 6.084, -1.21, 5.032]),
            (1, 'reflect'): ((1, 2, 5),
                             [-1.228504, -0.353169, 0.233019, -1.939192, 0.581769, 0.077856],
                             -4.051694,
                             1.518806999999999,
                             [-1.122, 0.869, 0.764, -0.869, 0.358, -0.716],
                             4.560000000000002,
                             [-4.266, -1.007, -3.675, 0.0]),
            (1, 'replicate'): ((1, 2, 5),
                               [1.51725, -0.895205, -0.645251, 2.658673, 2.036201, -1.985807],
                               -0.8866949999999996,
                               3.5669199999999996,
                               [0.528, -2.312, -3.3, -1.267, 6.351, 11.911],
                               -31.397000000000006,
                               [-3.314, -1.007, 0.741, 3.358]),
            (1, 'circular'): ((1, 2, 5),
                              [2.062512, -2.801005, 3.882485, 2.679664, -2.050556, -0.086554],
                              3.3391520000000003,
                              0.5186599999999988,
                              [1.393, 5.954, -1.59, 1.081, -6.838, -4.649],
                              -6.465000000000003,
                              [-4.432, -1.007, -0.377, 2.633]),
            (2, 'reflect'): ((1, 2, 3, 3),
                             [7.424585, 1.801342, 0.826274, 3.646553, -1.42775, -1.332564],
                             1.3075469999999962,
                             -36.115464,
                             [-0.675, 1.689, 1.307, 0.179, 2.204, -4.743],
                             -202.23899999999998,
                             [2.775, -0.855, -0.691, 0.221]),
            (2, 'replicate'): ((1, 2, 3, 3),
                               [-0.030692, 1.074355, -2.769238, -0.752949, -2.161048, 0.549728],
                               10.648435999999997,
                               -14.172520999999998,
                               [-7.272, 3.238, 3.52, 3.214, 8.233, -1.553],
                               -11.181000000000012,
                               [6.267, 2.915, -0.133, -2.098]),
            (2, 'circular'): ((1, 2, 3, 3),
                              [2.137353, -4.011179, 2.137353, 0.618921, 3.091671, 0.618921],
                              8.087906000000004,
                              25.277203000000004,
                              [0.781, -0.461, 3.78, 1.588, 1.806, 1.783],
                              -10.367000000000047,
                              [3.126, 3.905, -3.667, 0.221]),
            (3, 'reflect'): ((1, 1, 4, 5),
                             [-3.4352, -0.547416, -2.232845, 3.144235, -1.57565, -4.21004],
                             -17.876869,
                             19.471961999999998,
                             [-0.024, -3.14, -1.522, 3.14, 1.546, -0.593],
                             38.639999999999986,
                             [5.804, 13.431, 1.124, 4.048]),
            (3, 'replicate'): ((1, 1, 4, 5),
                               [-2.288479, 3.029939, -0.723416, -0.396589, -0.759105, -2.814567],
                               5.938962000000002,
                               24.032582,
                               [-3.246, -7.74, -2.788, 2.164, 11.61, -0.813],
                               62.78399999999999,
                               [-17.291, 18.733, 2.091, 9.413]),
            (3, 'circular'): ((1, 1, 4, 5),
                              [1.891065, 0.182926, -2.900148, 2.084638, -1.531691, 0.103405],
                              1.0850350000000004,
                              4.101473999999997,
                              [0.579, -0.576, -0.291, -0.006, 0.294, 0.579],
                              -2.6645352591003757e-15,
                              [-7.51, 14.163, -7.51, 14.163]),
            (4, 'reflect'): ((1, 2, 4, 5, 4),
                             [-5.617158, 2.394194, -6.092624, 0.593733, 0.377343, -2.667147],
                             -83.76442399999999,
                             113.980743,
                             [-5.371, 9.475, -0.816, 7.29, -11.189, 2.921],
                             -55.440000000000055,
                             [23.552, -5.488, -22.817, 18.676]),
            (4, 'replicate'): ((1, 2, 4, 5, 4),
                               [0.643116, 2.062191, 7.1478, 5.661888, 2.692209, -1.53158],
                               139.939187,
                               101.698218,
                               [-0.138, -13.402, 0.971, 11.215, 2.012, -13.402],
                               180.288,
                               [36.296, 12.897, 8.195, 43.518]),
            (4, 'circular'): ((1, 2, 4, 5, 4),
                              [-2.200687, -3.567487, -2.694603, -2.200687, -1.446005, -2.896444],
                              -230.86119800000003,
                              -23.119544999999974,
                              [22.46, -4.193, -15.684, -4.79, 23.732, -14.188],
                              -45.14400000000023,
                              [12.29, 9.026, -18.616, 27.587]),
            (5, 'reflect'): ((1, 2, 3, 2, 6),
                             [2.533939, 2.234372, 1.203426, -0.007725, -1.010002, 0.674106],
                             -10.853748999999999,
                             -7.708113000000004,
                             [3.765, 6.248, -1.363, -1.088, -1.72, -1.648],
                             153.03900000000004,
                             [2.342, 0.865, -11.437, -5.52]),
            (5, 'replicate'): ((1, 2, 3, 2, 6),
                               [0.086172, -0.609132, 1.020372, 2.362696, 0.344736, -0.75212],
                               -10.105530999999997,
                               41.735683,
                               [3.39, -2.974, -3.66, 4.616, 0.329, -2.716],
                               270.08799999999974,
                               [-6.246, 8.217, 10.682, -8.49]),
            (5, 'circular'): ((1, 2, 3, 2, 6),
                              [-0.806195, -1.977611, -1.627637, -0.223335, -0.806195, -1.977611],
                              -5.339335000000002,
                              -4.239759999999999,
                              [-0.3, -6.083, 0.1, 3.041, -0.681, -2.122],
                              -53.678000000000225,
                              [1.972, 2.342, -9.814, -10.614])}


def _cases():
    """The layers and inputs of the recording script, drawn in its order."""
    made = {}
    for ci, (dims, shape, oc, k, p, s, d, g) in enumerate(CASES):
        rng = np.random.default_rng(ci)
        x = rng.normal(size=shape).round(3)
        cls = getattr(nn, f"Conv{dims}d")
        for mode in MODES:
            conv = cls(shape[1], oc, k, stride=s, padding=p, dilation=d, groups=g,
                       padding_mode=mode).double()
            w = rng.normal(size=tuple(conv.weight.shape)).round(3)
            b = rng.normal(size=tuple(conv.bias.shape)).round(3)
            with t.no_grad():
                conv.weight.copy_(t.tensor(w))
                conv.bias.copy_(t.tensor(b))
            made[(ci, mode)] = (conv, x)
    return made


CONVS = _cases()


def _cotangent(y):
    return t.tensor(np.arange(y.numel()).reshape(tuple(y.shape)) % 5 - 2.0)


@pytest.mark.parametrize("key", list(EXPECTED), ids=lambda k: f"{k[0]}-{k[1]}")
def test_padding_mode_matches_pytorch(key):
    conv, x = CONVS[key]
    shape, first, total, weighted, grad_first, grad_weighted, weight_first = EXPECTED[key]
    xt = t.tensor(x, requires_grad=True)
    y = conv(xt)
    assert tuple(y.shape) == shape
    np.testing.assert_allclose(y.detach().numpy().ravel()[:6], first, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(y.sum().item(), total, rtol=1e-9, atol=1e-9)
    (y * _cotangent(y)).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy().ravel()[:6], grad_first, rtol=1e-9, atol=1e-9)
    arange = t.arange(xt.numel(), dtype=t.float64).reshape(tuple(xt.shape))
    np.testing.assert_allclose((xt.grad * arange).sum().item(), grad_weighted, rtol=1e-9,
                               atol=1e-9)
    np.testing.assert_allclose(conv.weight.grad.numpy().ravel()[:4], weight_first, rtol=1e-9,
                               atol=1e-9)
    conv.zero_grad()


@pytest.mark.parametrize("key", list(EXPECTED), ids=lambda k: f"{k[0]}-{k[1]}")
def test_padding_mode_is_pad_then_convolution(key):
    conv, x = CONVS[key]
    xt = t.tensor(x)
    padded = F.pad(xt, conv._reversed_padding_repeated_twice, mode=conv.padding_mode)
    dims = len(conv.kernel_size)
    want = getattr(F, f"conv{dims}d")(padded, conv.weight, conv.bias, conv.stride, 0,
                                      conv.dilation, conv.groups)
    np.testing.assert_allclose(conv(xt).detach().numpy(), want.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("key", [k for k in EXPECTED if k[0] in (0, 3, 5)],
                         ids=lambda k: f"{k[0]}-{k[1]}")
def test_padding_mode_gradcheck_and_symbolic(key):
    conv, x = CONVS[key]
    weight, bias = conv.weight.detach().clone(), conv.bias.detach().clone()

    def run(inp, w, b):
        dims = len(conv.kernel_size)
        padded = F.pad(inp, conv._reversed_padding_repeated_twice, mode=conv.padding_mode)
        return getattr(F, f"conv{dims}d")(padded, w, b, conv.stride, 0, conv.dilation,
                                          conv.groups)

    inputs = (t.tensor(x, requires_grad=True), weight.requires_grad_(),
              bias.requires_grad_())
    assert t.autograd.gradcheck(run, inputs)
    y = conv(t.tensor(x, requires_grad=True))
    symbolic.check((y * _cotangent(y)).sum())


def test_padding_mode_repr_and_errors():
    assert repr(nn.Conv2d(1, 1, 3, padding=1, padding_mode="reflect")) == (
        "Conv2d(1, 1, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), padding_mode=reflect)")
    for mode in MODES:
        with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                             'ConvTranspose2d'):
            nn.ConvTranspose2d(1, 1, 3, padding_mode=mode)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(1, 1, 3, padding_mode="bad")
    conv = nn.Conv2d(1, 1, 3, padding=3, padding_mode="reflect")
    with pytest.raises(RuntimeError, match=r"Argument #4: Padding size should be less than the "
                                           r"corresponding input dimension, but got: padding "
                                           r"\(3, 3\) at dimension 3 of input \[1, 1, 3, 3\]"):
        conv(t.ones(1, 1, 3, 3))
    with pytest.raises(RuntimeError, match=r"Argument #6: .* at dimension 2 of input"):
        F.pad(t.ones(1, 1, 3, 3), (0, 0, 3, 3), mode="reflect")
    same = nn.Conv2d(1, 1, 4, padding="same", padding_mode="circular")
    assert same._reversed_padding_repeated_twice == [1, 2, 1, 2]
    assert same(t.ones(1, 1, 5, 5)).shape == (1, 1, 5, 5)
    assert nn.Conv1d(1, 1, 3, padding=1, padding_mode="reflect")(t.ones(1, 5)).shape == (1, 5)
