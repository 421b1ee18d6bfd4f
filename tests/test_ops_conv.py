"""Convolution and pooling (``symgrad.ops.conv``, ``F.conv2d`` ...): values against a direct
loop implementation and against values recorded from PyTorch 2.x, PyTorch's node names, the
tie convention of max pooling, and PyTorch's errors. The VJPs of every op are checked against
finite differences and sympy by the registry tests."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F


def _reference_conv(x, w, b, stride, padding, dilation, groups):
    """Direct loops over every output element: the definition, no windows or matmul."""
    n, c, *spatial = x.shape
    o, cg, *kernel = w.shape
    d = len(spatial)
    x = np.pad(x, ((0, 0), (0, 0), *((p, p) for p in padding)))
    out = [(s + 2 * p - dl * (k - 1) - 1) // st + 1
           for s, p, dl, k, st in zip(spatial, padding, dilation, kernel, stride, strict=True)]
    y = np.zeros((n, o, *out))
    og = o // groups
    for i, j, *pos in itertools.product(range(n), range(o), *(range(m) for m in out)):
        g = j // og
        total = b[j] if b is not None else 0.0
        for ci, *k in itertools.product(range(cg), *(range(m) for m in kernel)):
            at = tuple(pos[a] * stride[a] + k[a] * dilation[a] for a in range(d))
            total += w[(j, ci, *k)] * x[(i, g * cg + ci, *at)]
        y[(i, j, *pos)] = total
    return y


CONV_CASES = [
    ((2, 3, 6, 5), (4, 3, 3, 2), (1, 1), (0, 0), (1, 1), 1),
    ((1, 4, 7, 7), (6, 2, 3, 3), (2, 2), (1, 1), (1, 1), 2),
    ((2, 2, 8, 6), (2, 2, 2, 3), (2, 1), (0, 2), (2, 1), 1),
    ((1, 2, 9), (3, 2, 3), (2,), (1,), (2,), 1),
    ((1, 2, 4, 5, 3), (2, 1, 2, 2, 2), (1, 2, 1), (1, 0, 1), (1, 1, 2), 2),
]


@pytest.mark.parametrize(("xs", "ws", "stride", "padding", "dilation", "groups"), CONV_CASES)
def test_convolution_matches_direct_loops(xs, ws, stride, padding, dilation, groups):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[len(xs) - 2]
    y = conv(t.tensor(x), t.tensor(w), t.tensor(b), stride, padding, dilation, groups)
    np.testing.assert_allclose(y.numpy(), _reference_conv(x, w, b, stride, padding, dilation,
                                                          groups), rtol=1e-12, atol=1e-12)


def test_conv2d_values_and_gradients_recorded_from_pytorch():
    x = t.tensor((np.arange(2 * 3 * 5 * 5.0) % 7 - 3).reshape(2, 3, 5, 5), dtype=t.float32,
                 requires_grad=True)
    w = t.tensor((np.arange(4 * 3 * 3 * 3.0) % 5 - 2).reshape(4, 3, 3, 3) / 4, dtype=t.float32,
                 requires_grad=True)
    b = t.tensor([0.5, -1.0, 0.0, 2.0], requires_grad=True)
    y = F.conv2d(x, w, b, stride=2, padding=1)
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"
    (y * y).sum().backward()
    assert y[0, :, 0].tolist() == [[1.25, -2.5, -1.5], [-3.25, 1.75, -0.5], [2.25, -4.0, 0.5],
                                   [3.75, 6.25, 0.0]]
    assert x.grad[1, 2].tolist() == [[-1.75, -9.875, -4.75, 16.375, 3.75],
                                     [5.875, -4.5, -14.5, -24.125, -3.125],
                                     [1.875, 11.875, 9.375, -4.125, -4.0],
                                     [-13.75, -11.625, -1.875, 9.0, 12.625],
                                     [2.875, 2.125, -2.25, 0.625, -0.5]]
    assert w.grad[3, 1].tolist() == [[-11.5, -50.0, -33.5], [111.5, 44.0, -32.5],
                                     [-48.0, 70.5, 100.0]]
    assert b.grad.tolist() == [21.5, -22.0, 4.5, 62.0]


def test_conv_transpose_is_the_input_gradient_of_conv():
    rng = np.random.default_rng(1)
    w = t.tensor(rng.standard_normal((4, 3, 3, 2)))
    x = t.tensor(rng.standard_normal((2, 3, 9, 9)), requires_grad=True)
    y = F.conv2d(x, w, stride=2, padding=1)
    g = t.tensor(rng.standard_normal(tuple(y.shape)))
    (gx,) = t.autograd.grad(y, x, g)
    back = F.conv_transpose2d(g, w, stride=2, padding=1, output_padding=(0, 1))
    assert back.shape == x.shape
    np.testing.assert_allclose(back.numpy(), gx.numpy(), rtol=1e-12, atol=1e-12)


def test_padding_same_keeps_the_size_and_pads_more_after_for_even_kernels():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 2, 6, 5))
    w = rng.standard_normal((3, 2, 2, 4))
    y = F.conv2d(t.tensor(x), t.tensor(w), padding="same")
    assert y.shape == (1, 3, 6, 5)
    padded = np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 2)))  # total k - 1: half before, rest after
    expected = _reference_conv(padded, w, None, (1, 1), (0, 0), (1, 1), 1)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-12)
    assert F.conv2d(t.tensor(x), t.tensor(w), padding="valid").shape == (1, 3, 5, 2)


def test_unbatched_conv_and_pool():
    x = t.ones(3, 5, 5, requires_grad=True)
    y = F.conv2d(x, t.ones(2, 3, 3, 3))
    assert y.shape == (2, 3, 3) and type(y.grad_fn).__name__ == "SqueezeBackward1"
    # unbatched pooling and im2col record their own node, as PyTorch's
    for y, shape, node in ((F.max_pool2d(x, 2), (3, 2, 2), "MaxPool2DWithIndicesBackward0"),
                           (F.avg_pool2d(x, 2), (3, 2, 2), "AvgPool2DBackward0"),
                           (F.unfold(x, 2), (12, 16), "Im2ColBackward0"),
                           (F.fold(F.unfold(x, 2), (5, 5), 2), (3, 5, 5), "Col2ImBackward0")):
        assert y.shape == shape and type(y.grad_fn).__name__ == node


def test_max_pool_indices_and_ties_recorded_from_pytorch():
    x = t.tensor([[[[1.0, 3, 3, 0], [2, 3, 1, 1], [0, 0, 5, 5], [4, 1, 5, 2]]]],
                 requires_grad=True)
    v, i = F.max_pool2d(x, 2, return_indices=True)
    assert type(v.grad_fn).__name__ == "MaxPool2DWithIndicesBackward0"
    v.sum().backward()
    assert v.tolist() == [[[[3.0, 3.0], [4.0, 5.0]]]]
    assert i.tolist() == [[[[1, 2], [12, 10]]]] and i.dtype is t.int64
    # ties: the gradient goes to the first maximum in scan order, the index returned
    assert x.grad.tolist() == [[[[0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0],
                                 [0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]]]]
    x.grad = None
    v, i = F.max_pool2d(x, 3, stride=1, padding=1, return_indices=True)
    v.sum().backward()
    assert i.tolist() == [[[[1, 1, 1, 2], [1, 10, 10, 10], [12, 10, 10, 10],
                            [12, 10, 10, 10]]]]
    assert x.grad.tolist() == [[[[0.0, 4.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0],
                                 [0.0, 0.0, 9.0, 0.0], [2.0, 0.0, 0.0, 0.0]]]]


def test_pooling_node_names():
    x = t.ones(1, 2, 6, 6, requires_grad=True)
    names = {
        "AvgPool2DBackward0": F.avg_pool2d(x, 2),
        "AdaptiveAvgPool2DBackward0": F.adaptive_avg_pool2d(x, 3),
        "AdaptiveMaxPool2DBackward0": F.adaptive_max_pool2d(x, 3),
        "Im2ColBackward0": F.unfold(x, 2),
        "SqueezeBackward1": F.max_pool1d(x[0], 2),
        "MaxPool3DWithIndicesBackward0": F.max_pool3d(x.unsqueeze(0), 2),
        "AvgPool3DBackward0": F.avg_pool3d(x.unsqueeze(0), 2),
    }
    for name, y in names.items():
        assert type(y.grad_fn).__name__ == name


def test_avg_pool_divisors_follow_pytorch():
    x = t.arange(1.0, 7.0).reshape(1, 1, 6)
    # count_include_pad: padding counts in the divisor; ceil mode's overhang does not
    assert F.avg_pool1d(x, 3, 2, 1, ceil_mode=True).tolist() == [[[1.0, 3.0, 5.0, 3.0]]]
    assert F.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False).tolist() == \
        [[[1.5, 3.0, 5.0, 6.0]]]
    y = F.avg_pool2d(t.ones(1, 1, 4, 4), 2, divisor_override=3)
    np.testing.assert_allclose(y.numpy(), np.full((1, 1, 2, 2), 4 / 3))


def test_adaptive_pools_use_pytorch_windows():
    x = t.arange(5.0).reshape(1, 1, 5)
    # windows [0, 2), [1, 4), [3, 5)
    assert F.adaptive_avg_pool1d(x, 3).tolist() == [[[0.5, 2.0, 3.5]]]
    v, i = F.adaptive_max_pool1d(x, 3, return_indices=True)
    assert v.tolist() == [[[1.0, 3.0, 4.0]]] and i.tolist() == [[[1, 3, 4]]]


def test_unfold_fold_adjoint():
    rng = np.random.default_rng(3)
    x = t.tensor(rng.standard_normal((2, 3, 5, 6)))
    cols = F.unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=(1, 2))
    c = t.tensor(rng.standard_normal(tuple(cols.shape)))
    back = F.fold(c, (5, 6), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2))
    assert float((cols * c).sum()) == pytest.approx(float((x * back).sum()), rel=1e-12)


@pytest.mark.parametrize(("call", "message"), [
    (lambda x, w: F.conv2d(x, t.randn(4, 2, 3, 3)),
     "Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 8, 8] to have 2 "
     "channels, but got 3 channels instead"),
    (lambda x, w: F.conv2d(x[0, 0], w),
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [8, 8]"),
    (lambda x, w: F.conv2d(x, t.randn(4, 3, 9, 9)),
     "Calculated padded input size per channel: (8 x 8). Kernel size: (9 x 9). Kernel size "
     "can't be greater than actual input size"),
    (lambda x, w: F.conv2d(x, w, groups=2),
     "Given groups=2, weight of size [4, 3, 3, 3], expected input[2, 3, 8, 8] to have 6 "
     "channels, but got 3 channels instead"),
    (lambda x, w: F.conv2d(x, t.randn(3, 1, 3, 3), groups=3, bias=t.randn(4)),
     "Given weight of size [3, 1, 3, 3], expected bias to be 1-dimensional with 3 elements, "
     "but got bias of size [4] instead"),
    (lambda x, w: F.conv2d(x, w, stride=2, padding="same"),
     "padding='same' is not supported for strided convolutions"),
    (lambda x, w: F.conv2d(x, w, padding="foo"), "Invalid padding string: 'foo'"),
    (lambda x, w: F.conv2d(x, w, stride=0), "non-positive stride is not supported"),
    (lambda x, w: F.conv2d(x, w, padding=-1), "negative padding is not supported"),
    (lambda x, w: F.conv2d(x, w.double()),
     "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same"),
    (lambda x, w: F.conv_transpose2d(x, w),
     "Given transposed=1, weight of size [4, 3, 3, 3], expected input[2, 3, 8, 8] to have 4 "
     "channels, but got 3 channels instead"),
    (lambda x, w: F.max_pool2d(x, 3, padding=2),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and "
     "dilation=1"),
    (lambda x, w: F.max_pool2d(x, 10),
     "Given input size: (3x8x8). Calculated output size: (3x0x0). Output size is too small"),
    (lambda x, w: F.max_pool2d(x[0, 0], 2),
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda x, w: F.max_pool2d(x, 2, stride=0), "stride should not be zero"),
    (lambda x, w: F.max_pool2d(x, (2, 2, 2)),
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda x, w: F.avg_pool2d(x, 2, divisor_override=0), "divisor must be not zero"),
    (lambda x, w: F.fold(t.randn(2, 5, 4), 3, 2),
     "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
     "got input.size(1)=5 and kernel_size=(2, 2)."),
])
def test_errors_are_pytorchs(call, message):
    x, w = t.randn(2, 3, 8, 8, requires_grad=True), t.randn(4, 3, 3, 3)
    with pytest.raises(RuntimeError) as info:
        call(x, w)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(("mode", "values", "node"), [
    ("reflect", [[[2.0, 1, 0, 1, 2, 1], [5, 4, 3, 4, 5, 4]]], "ReflectionPad1DBackward0"),
    ("replicate", [[[0.0, 0, 0, 1, 2, 2], [3, 3, 3, 4, 5, 5]]], "ReplicationPad1DBackward0"),
    ("circular", [[[1.0, 2, 0, 1, 2, 0], [4, 5, 3, 4, 5, 3]]], "CopySlices"),
])
def test_pad_modes_recorded_from_pytorch(mode, values, node):
    x = t.arange(6.0).reshape(1, 2, 3).requires_grad_()
    y = F.pad(x, (2, 1), mode=mode)
    assert y.tolist() == values and type(y.grad_fn).__name__ == node
    if mode == "reflect":
        (y * t.arange(12.0).reshape(1, 2, 6)).sum().backward()
        assert x.grad.tolist() == [[[2.0, 9.0, 4.0], [8.0, 27.0, 16.0]]]


def test_circular_pad_wraps_within_what_negative_pads_leave():
    x = t.arange(6.0).reshape(1, 1, 6)
    assert F.pad(x, (-1, 2), mode="circular").tolist() == [[[1.0, 2, 3, 4, 5, 1, 2]]]
    assert F.pad(x, (2, -1), mode="circular").tolist() == [[[3.0, 4, 0, 1, 2, 3, 4]]]


def test_interpolate_recorded_from_pytorch():
    x = t.tensor([[[[1.0, 2], [3, 5]]]], requires_grad=True)
    y = F.interpolate(x, size=(3, 3), mode="bilinear")
    assert type(y.grad_fn).__name__ == "UpsampleBilinear2DBackward0"
    assert y.tolist() == [[[[1.0, 1.5, 2.0], [2.0, 2.75, 3.5], [3.0, 4.0, 5.0]]]]
    (y * t.arange(9.0).reshape(1, 1, 3, 3)).sum().backward()
    assert x.grad.tolist() == [[[[3.0, 6.0], [12.0, 15.0]]]]
    nearest = F.interpolate(x, scale_factor=1.5)
    assert type(nearest.grad_fn).__name__ == "UpsampleNearest2DBackward0"
    assert nearest.tolist() == [[[[1.0, 1.0, 2.0], [1.0, 1.0, 2.0], [3.0, 3.0, 5.0]]]]


def test_pixel_shuffle_round_trip():
    x = t.arange(2 * 8 * 3 * 2.0).reshape(2, 8, 3, 2)
    y = F.pixel_shuffle(x, 2)
    assert y.shape == (2, 2, 6, 4) and y[0, 0, :2, :2].tolist() == [[0.0, 6.0], [12.0, 18.0]]
    assert (F.pixel_unshuffle(y, 2) == x).all()


def test_scaled_dot_product_attention_recorded_from_pytorch():
    q = t.tensor([[1.0, 0], [0, 1], [1, 1]])
    k = t.tensor([[1.0, 2], [0, 1], [2, 0]])
    v = t.tensor([[1.0, 0], [0, 2], [3, 1]])
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy(),
                               [[1.0, 0.0], [0.669762, 0.660477], [1.427962, 0.564054]],
                               rtol=1e-5)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda x: F.pad(x, (4, 4, 1, 1), mode="reflect"), RuntimeError,
     "Argument #4: Padding size should be less than the corresponding input dimension, but "
     "got: padding (4, 4) at dimension 3 of input [1, 2, 3, 4]"),
    (lambda x: F.pad(x, (5, 5, 1, 1), mode="circular"), RuntimeError,
     "Padding value causes wrapping around more than once."),
    (lambda x: F.pad(x, (1, 1, 1, 1), mode="replicate", value=1.0), RuntimeError,
     'Padding mode "replicate" doesn\'t take in value argument'),
    (lambda x: F.pad(x[0, 0, 0], (1, 1), mode="reflect"), NotImplementedError,
     "Padding size 2 is not supported for 1D input tensor."),
    (lambda x: F.interpolate(x), ValueError, "either size or scale_factor should be defined"),
    (lambda x: F.interpolate(x, size=3, scale_factor=2), ValueError,
     "only one of size or scale_factor should be defined"),
    (lambda x: F.interpolate(x, size=3, align_corners=True), ValueError,
     "align_corners option can only be set with the interpolating modes: linear | bilinear | "
     "bicubic | trilinear"),
    (lambda x: F.interpolate(x[0], size=3, mode="bilinear"), NotImplementedError,
     "Got 3D input, but bilinear mode needs 4D input"),
    (lambda x: F.pixel_shuffle(t.randn(1, 3, 2, 2), 2), RuntimeError,
     "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
     "upscale_factor, but input.size(-3)=3 is not divisible by 4"),
    (lambda x: F.pixel_unshuffle(t.randn(1, 3, 3, 2), 2), RuntimeError,
     "pixel_unshuffle expects height to be divisible by downscale_factor, but "
     "input.size(-2)=3 is not divisible by 2"),
])
def test_resampling_errors_are_pytorchs(call, error, message):
    x = t.randn(1, 2, 3, 4, requires_grad=True)
    with pytest.raises(error) as info:
        call(x)
    assert str(info.value).startswith(message)
