"""The padding, shuffle, upsampling, fold and 3-d pooling / norm / transposed-convolution
layers: repr, output, gradient and errors of each against values confirmed with PyTorch 2.13
(recorded here from numpy-seeded inputs; torch is not imported)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad as t
from symgrad import nn

# (constructor, input shape, repr, output shape, output sum, sum(output * cotangent),
#  sum(input grad * arange)) from PyTorch; inputs from default_rng(len(code) + sum(shape))
RECORDED = [
    ('nn.ZeroPad1d(2)', (1, 2, 3),
     'ZeroPad1d((2, 2))',
     (1, 2, 7), 0.924, -4.632, 4.0),
    ('nn.ZeroPad2d((1, 2, 0, 1))', (1, 1, 2, 3),
     'ZeroPad2d((1, 2, 0, 1))',
     (1, 1, 3, 6), -0.103, 1.781, -23.0),
    ('nn.ZeroPad3d(1)', (1, 1, 2, 2, 2),
     'ZeroPad3d((1, 1, 1, 1, 1, 1))',
     (1, 1, 4, 4, 4), -1.785, -6.31, -1.0),
    ('nn.ConstantPad1d((1, 0), 3.5)', (2, 3),
     'ConstantPad1d(padding=(1, 0), value=3.5)',
     (2, 4), 9.194, -2.142, 2.0),
    ('nn.ConstantPad2d(1, -1.0)', (1, 2, 2),
     'ConstantPad2d(padding=(1, 1, 1, 1), value=-1.0)',
     (1, 4, 4), -10.864, 15.349, 1.0),
    ('nn.ConstantPad3d((1, 0, 0, 1, 1, 0), 2.0)', (1, 1, 2, 2, 2),
     'ConstantPad3d(padding=(1, 0, 0, 1, 1, 0), value=2.0)',
     (1, 1, 3, 3, 3), 36.677, -1.962, 2.0),
    ('nn.ReflectionPad1d((2, 1))', (1, 2, 4),
     'ReflectionPad1d((2, 1))',
     (1, 2, 7), 1.84, 2.11, 12.0),
    ('nn.ReflectionPad2d(1)', (1, 1, 3, 3),
     'ReflectionPad2d((1, 1, 1, 1))',
     (1, 1, 5, 5), -0.304, -0.644, -18.0),
    ('nn.ReflectionPad3d((1, 1, 0, 1, 1, 0))', (1, 1, 2, 3, 2),
     'ReflectionPad3d((1, 1, 0, 1, 1, 0))',
     (1, 1, 3, 4, 4), -31.822, 7.813, -11.0),
    ('nn.ReplicationPad1d(2)', (1, 2, 3),
     'ReplicationPad1d((2, 2))',
     (1, 2, 7), -2.68, 14.568, 24.0),
    ('nn.ReplicationPad2d((0, 2, 1, 0))', (1, 1, 2, 3),
     'ReplicationPad2d((0, 2, 1, 0))',
     (1, 1, 3, 5), -12.311, 1.525, 3.0),
    ('nn.ReplicationPad3d(1)', (1, 2, 2, 2),
     'ReplicationPad3d((1, 1, 1, 1, 1, 1))',
     (1, 4, 4, 4), -4.72, 1.582, 5.0),
    ('nn.CircularPad1d((1, 2))', (1, 2, 3),
     'CircularPad1d((1, 2))',
     (1, 2, 6), 6.422, 7.725, -8.0),
    ('nn.CircularPad2d(1)', (1, 1, 3, 3),
     'CircularPad2d((1, 1, 1, 1))',
     (1, 1, 5, 5), 8.531, 0.812, -23.0),
    ('nn.CircularPad3d((1, 0, 1, 0, 1, 0))', (1, 1, 2, 2, 2),
     'CircularPad3d((1, 0, 1, 0, 1, 0))',
     (1, 1, 3, 3, 3), 1.144, -2.644, -14.0),
    ('nn.PixelShuffle(2)', (1, 8, 2, 3),
     'PixelShuffle(upscale_factor=2)',
     (1, 2, 4, 6), 4.484, -2.977, 38.0),
    ('nn.PixelUnshuffle(2)', (1, 2, 4, 2),
     'PixelUnshuffle(downscale_factor=2)',
     (1, 8, 2, 1), -6.569, 3.062, -23.0),
    ('nn.ChannelShuffle(3)', (2, 6, 2),
     'ChannelShuffle(groups=3)',
     (2, 6, 2), 8.084, -9.984, -56.0),
    ('nn.Upsample(scale_factor=2)', (1, 2, 3),
     "Upsample(scale_factor=2.0, mode='nearest')",
     (1, 2, 6), -0.206, 6.055, -2.0),
    ("nn.Upsample(size=(3, 5), mode='bilinear', align_corners=True)", (1, 1, 2, 3),
     "Upsample(size=(3, 5), mode='bilinear')",
     (1, 1, 3, 5), 14.19975, -5.355, 2.0),
    ("nn.Upsample(scale_factor=1.5, mode='bilinear')", (1, 1, 2, 4),
     "Upsample(scale_factor=1.5, mode='bilinear')",
     (1, 1, 3, 6), 4.707, 4.54575, -12.5),
    ('nn.UpsamplingNearest2d(scale_factor=2)', (1, 1, 2, 2),
     "UpsamplingNearest2d(scale_factor=2.0, mode='nearest')",
     (1, 1, 4, 4), 12.044, -6.884, -9.0),
    ('nn.UpsamplingBilinear2d(size=(4, 3))', (1, 2, 2, 2),
     "UpsamplingBilinear2d(size=(4, 3), mode='bilinear')",
     (1, 2, 4, 3), -4.11, -6.8553333333, -12.6666666667),
    ('nn.Unfold(2, padding=1)', (1, 2, 3, 3),
     'Unfold(kernel_size=2, dilation=1, padding=1, stride=1)',
     (1, 8, 16), 0.76, 4.01, -310.0),
    ('nn.Unfold((2, 3), dilation=(1, 2), stride=2)', (1, 1, 5, 6),
     'Unfold(kernel_size=(2, 3), dilation=(1, 2), padding=0, stride=2)',
     (1, 6, 2), -0.05, -8.228, -40.0),
    ('nn.Fold((3, 4), 2)', (1, 8, 6),
     'Fold(output_size=(3, 4), kernel_size=2, dilation=1, padding=0, stride=1)',
     (1, 2, 3, 4), 1.664, 2.002, -55.0),
    ('nn.Fold(4, (2, 2), padding=1, stride=2)', (1, 4, 9),
     'Fold(output_size=4, kernel_size=(2, 2), dilation=1, padding=1, stride=2)',
     (1, 1, 4, 4), 5.606, 2.777, -175.0),
    ('nn.MaxPool3d(2)', (1, 2, 4, 4, 4),
     'MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)',
     (1, 2, 2, 2, 2), 25.769, -5.158, -47.0),
    ('nn.MaxPool3d((1, 2, 2), stride=1, padding=(0, 1, 0), ceil_mode=True)', (1, 3, 3, 3),
     'MaxPool3d(kernel_size=(1, 2, 2), stride=1, padding=(0, 1, 0), dilation=1, ceil_mode=True)',
     (1, 3, 4, 2), 26.336, -2.361, -38.0),
    ('nn.AvgPool3d(2, stride=1)', (1, 1, 3, 3, 3),
     'AvgPool3d(kernel_size=2, stride=1, padding=0)',
     (1, 1, 2, 2, 2), -1.194625, -0.658625, 1.5),
    ('nn.AvgPool3d(3, padding=1, count_include_pad=False)', (1, 1, 4, 4, 4),
     'AvgPool3d(kernel_size=3, stride=3, padding=1)',
     (1, 1, 2, 2, 2), 0.85225, 0.07325, 50.5),
    ('nn.AdaptiveAvgPool3d((2, 1, 3))', (1, 2, 3, 4, 5),
     'AdaptiveAvgPool3d(output_size=(2, 1, 3))',
     (1, 2, 2, 1, 3), 0.6573958333, 1.0212291667, -156.0),
    ('nn.AdaptiveMaxPool3d(2)', (2, 3, 4, 5),
     'AdaptiveMaxPool3d(output_size=2)',
     (2, 2, 2, 2), 22.441, -11.901, -134.0),
    ('nn.BatchNorm3d(2)', (2, 2, 2, 2, 2),
     'BatchNorm3d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)',
     (2, 2, 2, 2, 2), -0.0, -13.360773086, -52.5053314867),
    ('nn.BatchNorm3d(2).eval()', (2, 2, 2, 2, 2),
     'BatchNorm3d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)',
     (2, 2, 2, 2, 2), 4.2999785002, 7.9689601553, -59.9997000022),
]


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


# call -> PyTorch's result or "ErrorType first line"
ERRORS = [
    ('nn.ReflectionPad2d(1)(t.ones(2, 3))',
     'NotImplementedError Padding size 4 is not supported for 2D input tensor.'),
    ('nn.ReflectionPad1d(3)(t.ones(1, 2, 3))',
     'RuntimeError Argument #4: Padding size should be less than the corresponding '
     'input dimension, but got: padding (3, 3) at dimension 2 of input [1, 2, 3]'),
    ('nn.ReplicationPad3d(1)(t.ones(2, 2, 2))',
     'NotImplementedError Padding size 6 is not supported for 3D input tensor.'),
    ('nn.CircularPad1d(4)(t.ones(1, 1, 3))',
     'RuntimeError Padding value causes wrapping around more than once.'),
    ('nn.ZeroPad2d((1, 2, 3))(t.ones(1, 2, 2))',
     'RuntimeError Padding length must be divisible by 2'),
    ('nn.ConstantPad1d(1, 2.0)(t.ones(1, 2, 2)).shape',
     'symgrad.Size([1, 2, 4])'),
    ('nn.BatchNorm3d(2)(t.ones(2, 2, 2, 2))',
     'ValueError expected 5D input (got 4D input)'),
    ('nn.MaxPool3d(2)(t.ones(2, 2))',
     'RuntimeError non-empty 4D or 5D (batch mode) tensor expected for input'),
    ('nn.AvgPool3d(2)(t.ones(2, 2))',
     'RuntimeError non-empty 4D or 5D (batch mode) tensor expected for input'),
    ('nn.AdaptiveAvgPool3d(2)(t.ones(2, 2))',
     'RuntimeError adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [2, 2]'),
    ('nn.AdaptiveMaxPool3d(2)(t.ones(2, 2, 2))',
     'RuntimeError adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [2, 2, 2]'),
    ('nn.PixelShuffle(2)(t.ones(1, 3, 2, 2))',
     "RuntimeError pixel_shuffle expects its input's 'channel' dimension to be "
     'divisible by the square of upscale_factor, but input.size(-3)=3 is not '
     'divisible by 4'),
    ('nn.PixelUnshuffle(2)(t.ones(1, 1, 3, 2))',
     'RuntimeError pixel_unshuffle expects height to be divisible by '
     'downscale_factor, but input.size(-2)=3 is not divisible by 2'),
    ('nn.ChannelShuffle(4)(t.ones(1, 6, 2))',
     'RuntimeError Number of channels must be divisible by groups. Got 6 channels and '
     '4 groups.'),
    ('nn.Fold((3, 3), 2)(t.ones(1, 4, 5))',
     'RuntimeError Given output_size=(3, 3), kernel_size=(2, 2), dilation=(1, 1), '
     "padding=(0, 0), stride=(1, 1), expected size of input's dimension 2 to match "
     'the calculated number of sliding blocks 2 * 2 = 4, but got input.size(2)=5.'),
    ('nn.Unfold(2)(t.ones(2, 2))',
     'IndexError Dimension out of range (expected to be in range of [-2, 1], but got 2)'),
    ('nn.Upsample()(t.ones(1, 1, 2))',
     'ValueError either size or scale_factor should be defined'),
    ("nn.Upsample(scale_factor=2, mode='bilinear')(t.ones(1, 1, 2))",
     'NotImplementedError Got 3D input, but bilinear mode needs 4D input'),
    ('nn.ConvTranspose3d(2, 1, 2)(t.ones(1, 3, 2, 2, 2))',
     'RuntimeError Given transposed=1, weight of size [2, 1, 2, 2, 2], expected '
     'input[1, 3, 2, 2, 2] to have 2 channels, but got 3 channels instead'),
    ('nn.ConvTranspose3d(1, 1, 2, stride=2)(t.ones(1, 1, 2, 2, 2), output_size=(5, 5, 5)).shape',
     'symgrad.Size([1, 1, 5, 5, 5])'),
    ('nn.ConvTranspose3d(1, 1, 2, stride=2)(t.ones(1, 1, 2, 2, 2), output_size=(7, 5, 5))',
     'ValueError requested an output size of (7, 5, 5), but valid sizes range from '
     '[4, 4, 4] to [5, 5, 5] (for an input of symgrad.Size([2, 2, 2]))'),
]


@pytest.mark.parametrize(("call", "want"), ERRORS, ids=[c for c, _ in ERRORS])
def test_wrong_inputs_fail_as_pytorch(call, want):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = repr(eval(call, {"nn": nn, "t": t}))  # noqa: S307 - the recorded calls
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            got = f"{type(error).__name__} {str(error).splitlines()[0]}"
    assert got == want


def test_state_dicts_and_parameters():
    assert list(nn.BatchNorm3d(2).state_dict()) == [
        "weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    deconv = nn.ConvTranspose3d(2, 4, (1, 2, 3), groups=2)
    assert [(n, tuple(p.shape)) for n, p in deconv.named_parameters()] == [
        ("weight", (2, 2, 1, 2, 3)), ("bias", (4,))]
    bound = 1 / np.sqrt(2 * 1 * 2 * 3)  # PyTorch's U(±1/sqrt(fan_in)), fan_in = dim 1 x kernel
    assert float(deconv.weight.detach().abs().max()) <= bound
    assert float(deconv.bias.detach().abs().max()) <= bound
    for layer in (nn.ZeroPad2d(1), nn.PixelShuffle(2), nn.Upsample(scale_factor=2),
                  nn.Fold(3, 2), nn.MaxPool3d(2), nn.AdaptiveAvgPool3d(1)):
        assert list(layer.state_dict()) == [] and list(layer.parameters()) == []
    assert isinstance(nn.ZeroPad1d(1), nn.ConstantPad1d)  # as in PyTorch
    assert nn.Upsample(scale_factor=(2, 3)).scale_factor == (2.0, 3.0)


def test_with_indices_and_adaptive_3d_functions():
    F = t.nn.functional
    x = t.arange(27.0).reshape(1, 3, 3, 3)
    values, indices = F.adaptive_max_pool3d_with_indices(x, 2)
    assert values.flatten().tolist() == [13.0, 14.0, 16.0, 17.0, 22.0, 23.0, 25.0, 26.0]
    assert indices.flatten().tolist() == [13, 14, 16, 17, 22, 23, 25, 26]
    avg = F.adaptive_avg_pool3d(x, (2, 1, None))
    assert avg.flatten().tolist() == [7.5, 8.5, 9.5, 16.5, 17.5, 18.5]
    xg = t.arange(8.0, requires_grad=True)
    y = F.adaptive_avg_pool3d(xg.reshape(1, 2, 2, 2), 1)
    assert y.grad_fn.name() == "AdaptiveAvgPool3DBackward0"
    y.sum().backward()
    assert xg.grad.tolist() == [0.125] * 8
    pooled, where = F.max_pool2d_with_indices(t.arange(16.0).reshape(1, 4, 4), 2)
    assert where.flatten().tolist() == [5, 7, 13, 15]
    assert F.adaptive_max_pool1d_with_indices(t.arange(4.0).reshape(1, 4), 2)[1].tolist() == [
        [1, 3]]
    shuffled = F.channel_shuffle(t.arange(24.0).reshape(1, 6, 2, 2), 2)
    assert shuffled.flatten()[:8].tolist() == [0.0, 1.0, 2.0, 3.0, 12.0, 13.0, 14.0, 15.0]
    with pytest.raises(RuntimeError, match="Number of groups to divide channels in must be "
                                           "positive. Value of groups:0"):
        F.channel_shuffle(t.ones(1, 6, 2), 0)


def test_gradcheck_of_new_functions():
    F = t.nn.functional
    x = t.tensor(np.random.default_rng(0).normal(size=(1, 2, 3, 4, 3)), dtype=t.float64,
                 requires_grad=True)
    assert t.autograd.gradcheck(lambda v: F.adaptive_avg_pool3d(v, (2, 3, 2)), (x,))
    assert t.autograd.gradcheck(lambda v: F.adaptive_max_pool3d(v, (2, 2, 1)), (x,))
    assert t.autograd.gradcheck(lambda v: F.channel_shuffle(v, 2), (x,))
    assert t.autograd.gradcheck(lambda v: nn.ReflectionPad3d((1, 2, 0, 1, 2, 0))(v), (x,))
