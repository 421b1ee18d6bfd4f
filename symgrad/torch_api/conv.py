"""PyTorch spellings of convolution and pooling (``symgrad.conv2d``, ``F.conv2d``,
``F.max_pool2d`` ...), with PyTorch's signatures, argument checks and error messages.

The ops (forward and VJP rules) are in ``symgrad.ops.conv``. Unbatched inputs (no N dim) are
pooled or convolved as a batch of one and squeezed back, as PyTorch does; the 1-d poolings run
the 2-d op on an inserted dim of size 1 (PyTorch's nodes are then ``SqueezeBackward1``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from symgrad import ops
from symgrad.dispatch import apply_op
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor, _make
from symgrad.torch_api.declaration import COMPOSITE, torch_api
from symgrad.torch_api.pointwise import _tensor

_conv = ops.conv

IntOrTuple = int | Sequence[int]


_FLOATS = ("float16", "float32", "float64")
_NOT_BOOL = ("int64", "int32", "int16", "int8", "uint8", *_FLOATS)


def _compiled_for(kernel: str, x: Tensor, names: Sequence[str]) -> None:
    """Refuse, as PyTorch, a dtype its ``kernel`` is not compiled for (``names`` are those it
    is)."""
    if x.dtype.name not in names:
        raise dtypes.not_implemented(kernel, x.dtype)


def _size(value: object) -> str:
    return f"[{', '.join(str(n) for n in value)}]"


_COUNT = {1: "one", 2: "two", 3: "three"}


def _expand(value: IntOrTuple, d: int, name: str, conv: bool | str = True) -> tuple[int, ...]:
    """``value`` as a ``d``-tuple of ints (an int is repeated), PyTorch's message otherwise
    (``conv`` True: a convolution's; else the name of the pooling that checks it)."""
    if isinstance(value, int | np.integer):
        return (int(value),) * d
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * d
    if len(value) != d:
        if conv is True:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {d} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={_size(value)}")
        what = {"stride": "must either be omitted, a single int,",
                "dilation": "must be either a single int,"}.get(
                    name, "must either be a single int,")
        raise RuntimeError(f"{conv}: {name} {what} or a tuple of {_COUNT[d]} ints")
    return value


def _batched(input: Tensor, d: int, message: str) -> tuple[Tensor, bool]:  # noqa: A002
    """``input`` with a batch dim (and whether it had none), or PyTorch's RuntimeError."""
    if input.ndim == d + 2:
        return input, False
    if input.ndim == d + 1:
        return input.unsqueeze(0), True
    raise RuntimeError(message)


# ---------------------------------------------------------------------------- convolution
def _convolution(name: str, d: int, input: Tensor, weight: Tensor,  # noqa: A002
                 bias: Tensor | None, stride: IntOrTuple, padding: IntOrTuple | str,
                 dilation: IntOrTuple, groups: int, transposed: bool = False,
                 output_padding: IntOrTuple = 0) -> Tensor:
    _tensor(input, name)
    _tensor(weight, name, "weight", 2)
    x, unbatched = _batched(input, d, f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) "
                            f"input to {name}, but got input of size: {_size(input.shape)}")
    k = weight.ndim - 2
    stride, dilation = _expand(stride, d, "stride"), _expand(dilation, d, "dilation")
    if weight.ndim != d + 2:
        raise RuntimeError(f"expected stride to be a single integer value or a list of {k} "
                           f"values to match the convolution dimensions, but got "
                           f"stride={_size(stride)}")
    kernel = tuple(weight.shape[2:])
    pads = _conv_padding(padding, d, stride, dilation, kernel)
    out_pad = _expand(output_padding, d, "output_padding")
    _check_conv_params(stride, pads, out_pad, dilation, groups)
    if transposed:
        out_channels = _transposed_out_channels(d, x, weight, groups, out_pad, stride, dilation)
    else:
        out_channels = _out_channels(x, weight, groups, pads, dilation, kernel)
    _check_bias_and_dtypes(name, x, weight, bias, out_channels)
    params = dict(stride=stride, padding=pads, dilation=dilation, groups=int(groups),
                  transposed=transposed, output_padding=out_pad)
    if x.is_floating_point():
        y = apply_op(_conv.convolution, x, weight, bias, **params)
    else:  # (integers: computed in float64, exact, and wrapped into the dtype as PyTorch's)
        y = apply_op(_conv.convolution, x.double(), weight.double(),
                     None if bias is None else bias.double(), **params)
        y = _make(y._value.astype(np.int64).astype(x._value.dtype))
    return y.squeeze(0) if unbatched else y


def _conv_padding(padding: IntOrTuple | str, d: int, stride: tuple[int, ...],
                  dilation: tuple[int, ...], kernel: tuple[int, ...]) -> tuple:
    """``padding`` (an int, a tuple, 'valid' or 'same') as (before, after) per spatial dim."""
    if not isinstance(padding, str):
        return tuple((p, p) for p in _expand(padding, d, "padding"))
    if padding == "valid":
        return ((0, 0),) * d
    if padding == "same":
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [dl * (n - 1) for dl, n in zip(dilation, kernel, strict=True)]
        return tuple((t // 2, t - t // 2) for t in total)
    raise RuntimeError(f"Invalid padding string: '{padding}'")


def _check_conv_params(stride: tuple[int, ...], pads: tuple, out_pad: tuple[int, ...],
                       dilation: tuple[int, ...], groups: int) -> None:
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for pair in pads for p in pair) or any(p < 0 for p in out_pad):
        raise RuntimeError("negative padding is not supported")
    if any(dl <= 0 for dl in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")


def _check_groups(weight: Tensor, groups: int) -> None:
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"{_size(weight.shape)} instead")


def _transposed_out_channels(d: int, x: Tensor, weight: Tensor, groups: int,
                             out_pad: tuple[int, ...], stride: tuple[int, ...],
                             dilation: tuple[int, ...]) -> int:
    """The output channels of a transposed convolution, its arguments checked."""
    channels = x.shape[1]
    if channels != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_size(weight.shape)}, "
                           f"expected input{_size(x.shape)} to have {weight.shape[0]} "
                           f"channels, but got {channels} channels instead")
    _check_groups(weight, groups)
    if any(op >= s and op >= dl for op, s, dl in zip(out_pad, stride, dilation, strict=True)):
        sides = ("depth", "height", "width")[3 - d:] if d > 1 else ("width",)
        raise RuntimeError("output padding must be smaller than either stride or dilation, "
                           "but got " + " ".join(
                               f"{what}_{side}: {v}" for what, values in (
                                   ("output_padding", out_pad), ("stride", stride),
                                   ("dilation", dilation))
                               for side, v in zip(sides, values, strict=True)))
    return weight.shape[1] * groups


def _out_channels(x: Tensor, weight: Tensor, groups: int, pads: tuple,
                  dilation: tuple[int, ...], kernel: tuple[int, ...]) -> int:
    """The output channels of a convolution, its arguments checked."""
    channels = x.shape[1]
    _check_groups(weight, groups)
    if channels != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_size(weight.shape)}, "
                           f"expected input{_size(x.shape)} to have "
                           f"{weight.shape[1] * groups} channels, but got {channels} "
                           "channels instead")
    padded = [n + lo + hi for n, (lo, hi) in zip(x.shape[2:], pads, strict=True)]
    span = [dl * (n - 1) + 1 for dl, n in zip(dilation, kernel, strict=True)]
    if any(s > p for s, p in zip(span, padded, strict=True)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, span))}). Kernel size can't be greater "
                           "than actual input size")
    return weight.shape[0]


def _check_bias_and_dtypes(name: str, x: Tensor, weight: Tensor, bias: Tensor | None,
                           out_channels: int) -> None:
    if bias is not None:
        _tensor(bias, name, "bias", 3)
        if bias.ndim != 1 or bias.shape[0] != out_channels:
            raise RuntimeError(f"Given weight of size {_size(weight.shape)}, expected bias to "
                               f"be 1-dimensional with {out_channels} elements, but got bias "
                               f"of size {_size(bias.shape)} instead")
    if x.dtype is dtypes.bool_:
        raise dtypes.not_implemented("slow_conv2d_cpu", x.dtype)
    for other, what in ((weight, "weight"), (bias, "bias")):
        if other is not None and other.dtype is not x.dtype:
            if not (x.is_floating_point() and other.is_floating_point()):
                raise RuntimeError(f"expected scalar type {x.dtype._torch_name} but found "
                                   f"{other.dtype._torch_name}")
            if what == "bias":
                raise RuntimeError(f"Input type ({x.dtype._cpp_name}) and bias type "
                                   f"({other.dtype._cpp_name}) should be the same")
            raise RuntimeError(f"Input type (torch.{x.dtype._torch_name}Tensor) and weight type "
                               f"(torch.{other.dtype._torch_name}Tensor) should be the same or "
                               "input should be a MKLDNN tensor and weight is a dense tensor")


def _conv_fn(d: int):
    name = f"conv{d}d"

    def conv(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
             stride: IntOrTuple = 1, padding: IntOrTuple | str = 0, dilation: IntOrTuple = 1,
             groups: int = 1) -> Tensor:
        return _convolution(name, d, input, weight, bias, stride, padding, dilation, groups)

    conv.__name__ = conv.__qualname__ = name
    shape = "2, 3" + ", 5" * d
    conv.__doc__ = f"""A {d}-d convolution (PyTorch's cross-correlation) of ``input`` (N, C_in,
    *spatial, or unbatched) with ``weight`` (C_out, C_in / groups, *kernel), plus ``bias``;
    ``padding`` may be an int, a tuple or 'same' / 'valid' (``ConvolutionBackward0``).

    >>> x = symgrad.ones({shape})
    >>> F.{name}(x, symgrad.ones(4, 3{', 3' * d})).shape
    symgrad.Size([2, 4{', 3' * d}])
    """
    return torch_api("convolution", method=False)(conv)


conv1d, conv2d, conv3d = (_conv_fn(d) for d in (1, 2, 3))


def _conv_transpose_fn(d: int):
    name = f"conv_transpose{d}d"

    def conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                       stride: IntOrTuple = 1, padding: IntOrTuple = 0,
                       output_padding: IntOrTuple = 0, groups: int = 1,
                       dilation: IntOrTuple = 1) -> Tensor:
        return _convolution(name, d, input, weight, bias, stride, padding, dilation, groups,
                            transposed=True, output_padding=output_padding)

    conv_transpose.__name__ = conv_transpose.__qualname__ = name
    conv_transpose.__doc__ = f"""A {d}-d transposed convolution ("deconvolution", the input
    gradient of :func:`conv{d}d`) of ``input`` (N, C_in, *spatial) with ``weight`` (C_in,
    C_out / groups, *kernel) (``ConvolutionBackward0``).

    >>> F.{name}(symgrad.ones(1, 2{', 3' * d}), symgrad.ones(2, 1{', 2' * d}), stride=2).shape
    symgrad.Size([1, 1{', 6' * d}])
    """
    return torch_api("convolution", method=False)(conv_transpose)


conv_transpose1d, conv_transpose2d, conv_transpose3d = (_conv_transpose_fn(d)
                                                        for d in (1, 2, 3))


# ---------------------------------------------------------------------------- unfold / fold
@torch_api("im2col", method=False, function=False)
def unfold(input: Tensor, kernel_size: IntOrTuple, dilation: IntOrTuple = 1,  # noqa: A002
           padding: IntOrTuple = 0, stride: IntOrTuple = 1) -> Tensor:
    """The sliding blocks of a (N, C, H, W) input as columns (N, C * kH * kW, L), im2col
    (``Im2ColBackward0``).

    >>> F.unfold(symgrad.arange(9.0).reshape(1, 1, 3, 3), 2)
    tensor([[[0., 1., 3., 4.],
             [1., 2., 4., 5.],
             [3., 4., 6., 7.],
             [4., 5., 7., 8.]]])
    """
    _tensor(input, "unfold")
    if input.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{input.ndim}, "
                         f"{input.ndim - 1}], but got 2)")
    if input.ndim > 4:
        raise RuntimeError("Input Error: Only 3D or 4D input Tensors are supported (got "
                           f"{input.ndim}D)")
    x = input
    spatial = tuple(x.shape[-2:])
    kernel, dilation = _expand(kernel_size, 2, "kernel_size"), _expand(dilation, 2, "dilation")
    padding, stride = _expand(padding, 2, "padding"), _expand(stride, 2, "stride")
    padded = [n + 2 * p for n, p in zip(spatial, padding, strict=True)]
    out = [_conv.window_count(*v) for v in zip(padded, kernel, stride, dilation, strict=True)]
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input with spatial size ({spatial[0]}, {spatial[1]}), "
                           f"kernel_size=({kernel[0]}, {kernel[1]}), dilation=({dilation[0]}, "
                           f"{dilation[1]}), padding=({padding[0]}, {padding[1]}), calculated "
                           f"shape of the array of sliding blocks as ({out[0]}, {out[1]}), but "
                           "its components must be at least one.")
    _compiled_for("im2col_out_cpu", x, ("bool", *_FLOATS))
    return _bool_as_float(x, lambda v: apply_op(
        _conv.im2col, v, kernel=kernel, dilation=dilation,
        padding=tuple((p, p) for p in padding), stride=stride))


def _bool_as_float(x: Tensor, run) -> Tensor:
    """``run(x)``, a bool ``x`` run in float32 and the result read as bool (nonzero: True), as
    PyTorch's bool im2col and col2im give."""
    if x.dtype is not dtypes.bool_:
        return run(x)
    return _make(run(x.float())._value != 0)


@torch_api("col2im", method=False, function=False)
def fold(input: Tensor, output_size: IntOrTuple, kernel_size: IntOrTuple,  # noqa: A002
         dilation: IntOrTuple = 1, padding: IntOrTuple = 0, stride: IntOrTuple = 1) -> Tensor:
    """Columns (N, C * kH * kW, L) summed back into a (N, C, *output_size) image, col2im: the
    adjoint of :func:`unfold` (``Col2ImBackward0``).

    >>> F.fold(symgrad.ones(1, 4, 4), (3, 3), 2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    _tensor(input, "fold")
    if input.ndim not in (2, 3):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{_size(input.shape)}")
    x = input
    size, kernel = _expand(output_size, 2, "output_size"), _expand(kernel_size, 2, "kernel_size")
    dilation, padding = _expand(dilation, 2, "dilation"), _expand(padding, 2, "padding")
    stride = _expand(stride, 2, "stride")
    blocks = int(np.prod(kernel))
    if x.shape[-2] % blocks:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={x.shape[-2]} and "
                           f"kernel_size=({kernel[0]}, {kernel[1]}).")
    out = [_conv.window_count(n + 2 * p, k, s, dl)
           for n, p, k, s, dl in zip(size, padding, kernel, stride, dilation, strict=True)]
    if out[0] * out[1] != x.shape[-1]:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, "
                           f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=("
                           f"{padding[0]}, {padding[1]}), stride=({stride[0]}, {stride[1]}), "
                           f"expected size of input's dimension 2 to match the calculated number"
                           f" of sliding blocks {out[0]} * {out[1]} = {out[0] * out[1]}, but got"
                           f" input.size(2)={x.shape[-1]}.")
    _compiled_for("col2im_out_cpu", x, ("bool", *_FLOATS))
    return _bool_as_float(x, lambda v: apply_op(
        _conv.col2im, v, output_size=size, kernel=kernel, dilation=dilation,
        padding=tuple((p, p) for p in padding), stride=stride))


# ---------------------------------------------------------------------------- pooling
def _pool_args(name: str, x: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None,
               padding: IntOrTuple, dilation: IntOrTuple, ceil_mode: bool, d: int = 2):
    kernel = _expand(kernel_size, d, "kernel_size", name)
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else _expand(stride, d, "stride", name)
    padding = _expand(padding, d, "padding", name)
    dilation = _expand(dilation, d, "dilation", name)
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} "
                           f"kW: {kernel[-1]}")
    for p, k, dl in zip(padding, kernel, dilation, strict=True):
        if p > (dl * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={dl}")
    dims = [_conv.pool_padding(n, k, s, p, dl, ceil_mode) for n, k, s, p, dl in
            zip(x.shape[2:], kernel, stride, padding, dilation, strict=True)]
    out = tuple(o for o, _ in dims)
    if any(o < 1 for o in out):
        plane = "x".join(str(n) for n in x.shape[1:])
        raise RuntimeError(f"Given input size: ({plane}). Calculated output size: "
                           f"({x.shape[1]}x{'x'.join(str(o) for o in out)}). Output size is "
                           "too small")
    return kernel, stride, padding, dilation, tuple(p for _, p in dims), out


def _max_pool(name: str, input: Tensor, kernel_size, stride, padding, dilation,  # noqa: A002
              ceil_mode, return_indices, d: int = 2):
    """Max pooling of a batched or unbatched ``input``: one node, as PyTorch records it."""
    x, _ = _batched(input, d, "")
    kernel, stride, _, dilation, pads, _ = _pool_args(name, x, kernel_size, stride, padding,
                                                      dilation, ceil_mode, d)
    _compiled_for(name, input, _NOT_BOOL)
    key, indices = _conv.max_pool_key(input._value, kernel, stride, pads, dilation)
    y = apply_op(_conv.max_pool, input, key=key, spatial=d)
    return (y, _make(np.asarray(indices, dtype=np.int64))) if return_indices else y


@torch_api(COMPOSITE, method=False)
def max_pool1d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,  # noqa: A002
               padding: IntOrTuple = 0, dilation: IntOrTuple = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The maximum of each window along the last dim of a (N, C, L) or (C, L) input; ties
    give the gradient to the first maximum, the index returned (``SqueezeBackward1`` over
    the 2-d pooling, as PyTorch).

    >>> F.max_pool1d(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[3., 2.]])
    """
    _tensor(input, "max_pool1d")
    if input.ndim not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{_size(input.shape)}")
    k, s = _expand(kernel_size, 1, "kernel_size", "max_pool1d"), stride
    s = None if s is None or (not isinstance(s, int) and len(s) == 0) else \
        (1, *_expand(s, 1, "stride", "max_pool1d"))
    pad = (0, *_expand(padding, 1, "padding", "max_pool1d"))
    dilation = (1, *_expand(dilation, 1, "dilation", "max_pool1d"))
    if not return_indices:  # (PyTorch's own 1-d kernel, compiled for floats only)
        _compiled_for("max_pool1d_impl", input, _FLOATS)
    y = max_pool2d(input.unsqueeze(-2), (1, *k), s, pad, dilation, ceil_mode, return_indices)
    if return_indices:
        return y[0].squeeze(-2), y[1].squeeze(-2)
    return y.squeeze(-2)


def _pool_input(input: Tensor, fn: str, dims: int) -> None:  # noqa: A002
    """PyTorch's checks of a pooling input with ``dims`` spatial dims, batched or not."""
    _tensor(input, fn)
    if input.ndim not in (dims + 1, dims + 2) or 0 in input.shape[1:]:
        raise RuntimeError(f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected "
                           "for input")


@torch_api("max_pool", method=False)
def max_pool2d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,  # noqa: A002
               padding: IntOrTuple = 0, dilation: IntOrTuple = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The maximum of each (dilated) window of a (N, C, H, W) or (C, H, W) input, padding with
    -inf; ``return_indices`` also gives each maximum's flat index in its H x W plane. Ties give
    the gradient to the first maximum in scan order, the index returned
    (``MaxPool2DWithIndicesBackward0``).

    >>> F.max_pool2d(symgrad.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
    """
    _pool_input(input, "max_pool2d", 2)
    return _max_pool("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


@torch_api("max_pool", method=False)
def max_pool3d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,  # noqa: A002
               padding: IntOrTuple = 0, dilation: IntOrTuple = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """:func:`max_pool2d` over three spatial dims (``MaxPool3DWithIndicesBackward0``).

    >>> F.max_pool3d(symgrad.arange(8.0).reshape(1, 2, 2, 2), 2)
    tensor([[[[7.]]]])
    """
    _pool_input(input, "max_pool3d", 3)
    return _max_pool("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices, d=3)


def _avg_pool(input: Tensor, kernel_size, stride, padding, ceil_mode,  # noqa: A002
              count_include_pad, divisor_override, d: int) -> Tensor:
    """Average pooling of a batched or unbatched ``input``: one node, as PyTorch records it."""
    x, _ = _batched(input, d, "")
    kernel, stride, padding, _, pads, out = _pool_args(f"avg_pool{d}d", x, kernel_size, stride,
                                                       padding, 1, ceil_mode, d)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    divisor = _conv.avg_pool_divisor(tuple(x.shape[2:]), kernel, stride, padding,
                                     count_include_pad, divisor_override, out)
    if d == 3:
        _compiled_for("avg_pool3d_out_frame", input, ("int64", "float32", "float64"))
    else:
        _compiled_for("avg_pool2d", input, ("int64", *_FLOATS))
    if input.dtype is dtypes.int64:  # (the window sums divided in int64: toward zero)
        y = apply_op(_conv.avg_pool, input.double(), kernel=kernel, stride=stride,
                     padding=pads, divisor=divisor)
        return _make(np.trunc(y._value).astype(np.int64))
    return apply_op(_conv.avg_pool, input, kernel=kernel, stride=stride, padding=pads,
                    divisor=divisor)


@torch_api(COMPOSITE, method=False)
def avg_pool1d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,  # noqa: A002
               padding: IntOrTuple = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """The mean of each window along the last dim of a (N, C, L) or (C, L) input
    (``SqueezeBackward1`` over the 2-d pooling, as PyTorch).

    >>> F.avg_pool1d(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[2., 1.]])
    """
    _tensor(input, "avg_pool1d")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got "
                           f"{_size(input.shape)}")
    k = _expand(kernel_size, 1, "kernel_size", "avg_pool1d")
    s = None if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        (1, *_expand(stride, 1, "stride", "avg_pool1d"))
    return avg_pool2d(input.unsqueeze(-2), (1, *k), s,
                      (0, *_expand(padding, 1, "padding", "avg_pool1d")), ceil_mode,
                      count_include_pad).squeeze(-2)


@torch_api("avg_pool", method=False, function=False)
def avg_pool2d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,  # noqa: A002
               padding: IntOrTuple = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of each window of a (N, C, H, W) or (C, H, W) input, zero-padded; the
    divisor counts the padding (``count_include_pad``) or not, or is ``divisor_override``
    (``AvgPool2DBackward0``).

    >>> F.avg_pool2d(symgrad.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 2.5000,  4.5000],
             [10.5000, 12.5000]]])
    """
    _pool_input(input, "avg_pool2d", 2)
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2)


@torch_api("avg_pool", method=False, function=False)
def avg_pool3d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,  # noqa: A002
               padding: IntOrTuple = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """:func:`avg_pool2d` over three spatial dims (``AvgPool3DBackward0``).

    >>> F.avg_pool3d(symgrad.arange(8.0).reshape(1, 2, 2, 2), 2)
    tensor([[[[3.5000]]]])
    """
    _pool_input(input, "avg_pool3d", 3)
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3)


def _adaptive_size(output_size, spatial: Sequence[int], d: int) -> tuple[int, ...]:
    if isinstance(output_size, int | np.integer) or output_size is None:
        output_size = (output_size,) * d
    size = tuple(n if o is None else int(o) for o, n in zip(output_size, spatial, strict=False))
    if len(size) != d:
        raise ValueError(f"Input dimension should be at least {d + 1}")
    return size


@torch_api("adaptive_avg_pool", method=False, function=False)
def adaptive_avg_pool2d(input: Tensor, output_size: IntOrTuple) -> Tensor:  # noqa: A002
    """Average pooling to a fixed (oH, oW): window i spans ``[floor(i H / oH), ceil((i + 1) H
    / oH))`` (``AdaptiveAvgPool2DBackward0``); None in ``output_size`` keeps that dim.

    >>> F.adaptive_avg_pool2d(symgrad.arange(16.0).reshape(1, 4, 4), 1)
    tensor([[[7.5000]]])
    """
    _tensor(input, "adaptive_avg_pool2d")
    if input.ndim not in (3, 4) or 0 in input.shape[-2:]:
        raise RuntimeError("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{_size(input.shape)}")
    size = _adaptive_size(output_size, input.shape[-2:], 2)
    _adaptive_mean_dtype(input, size)
    if 0 in size:
        return _make(np.zeros(input.shape[:-2] + size, input._value.dtype))
    return apply_op(_conv.adaptive_avg_pool, input, matrices=(
        _conv.adaptive_matrix(input.shape[-2], size[0]),
        _conv.adaptive_matrix(input.shape[-1], size[1])))


@torch_api(COMPOSITE, method=False)
def adaptive_avg_pool1d(input: Tensor, output_size: IntOrTuple) -> Tensor:  # noqa: A002
    """:func:`adaptive_avg_pool2d` along the last dim of a (N, C, L) or (C, L) input.

    >>> F.adaptive_avg_pool1d(symgrad.tensor([[1.0, 3.0, 2.0]]), 2)
    tensor([[2.0000, 2.5000]])
    """
    _tensor(input, "adaptive_avg_pool1d")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d() argument 'input' (position 1) must be 2D or "
                           f"3D, got {_size(input.shape)}")
    size = _expand(output_size, 1, "output_size", "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, *size)).squeeze(-2)


def _adaptive_mean_dtype(input: Tensor, size: tuple[int, ...]) -> None:  # noqa: A002
    """PyTorch's adaptive average pooling takes a mean: floating-point inputs only (unless
    the output is empty)."""
    if not input.is_floating_point() and 0 not in size:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           "floating point or complex dtype. Got: "
                           f"{input.dtype._torch_name}")


def _adaptive_max(input: Tensor, output_size, return_indices: bool, d: int):  # noqa: A002
    size = _adaptive_size(output_size, input.shape[input.ndim - d:], d)
    _compiled_for("adaptive_max_pool2d" if d < 3 else "adaptive_max_pool3d_cpu", input, _FLOATS)
    key, indices = _conv.adaptive_max_key(input._value, size)
    y = apply_op(_conv.max_pool, input, key=key, spatial=d, adaptive=True)
    return (y, _make(np.asarray(indices, dtype=np.int64))) if return_indices else y


@torch_api("max_pool", method=False, function=False)
def adaptive_max_pool2d(input: Tensor, output_size: IntOrTuple,  # noqa: A002
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """Max pooling to a fixed (oH, oW), windows as :func:`adaptive_avg_pool2d`'s; ties give
    the gradient to the first maximum, the index returned (``AdaptiveMaxPool2DBackward0``).

    >>> F.adaptive_max_pool2d(symgrad.arange(16.0).reshape(1, 4, 4), 1)
    tensor([[[15.]]])
    """
    _tensor(input, "adaptive_max_pool2d")
    if input.ndim not in (3, 4) or 0 in input.shape[-2:]:
        raise RuntimeError("adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{_size(input.shape)}")
    return _adaptive_max(input, output_size, return_indices, 2)


@torch_api(COMPOSITE, method=False)
def adaptive_max_pool1d(input: Tensor, output_size: IntOrTuple,  # noqa: A002
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """:func:`adaptive_max_pool2d` along the last dim of a (N, C, L) or (C, L) input.

    >>> F.adaptive_max_pool1d(symgrad.tensor([[1.0, 3.0, 2.0]]), 2)
    tensor([[3., 3.]])
    """
    _tensor(input, "adaptive_max_pool1d")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_max_pool1d() argument 'input' (position 1) must be 2D or "
                           f"3D, got {_size(input.shape)}")
    size = _expand(output_size, 1, "output_size", "adaptive_max_pool1d")
    out = adaptive_max_pool2d(input.unsqueeze(-2), (1, *size), return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


@torch_api("adaptive_avg_pool", method=False, function=False)
def adaptive_avg_pool3d(input: Tensor, output_size: IntOrTuple) -> Tensor:  # noqa: A002
    """:func:`adaptive_avg_pool2d` over three spatial dims of a (N, C, D, H, W) or (C, D, H, W)
    input (``AdaptiveAvgPool3DBackward0``).

    >>> F.adaptive_avg_pool3d(symgrad.arange(8.0).reshape(1, 2, 2, 2), 1)
    tensor([[[[3.5000]]]])
    """
    _tensor(input, "adaptive_avg_pool3d")
    if input.ndim not in (4, 5) or 0 in input.shape[-3:]:
        raise RuntimeError("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{_size(input.shape)}")
    size = _adaptive_size(output_size, input.shape[-3:], 3)
    _adaptive_mean_dtype(input, size)
    if 0 in size:
        return _make(np.zeros(input.shape[:-3] + size, input._value.dtype))
    return apply_op(_conv.adaptive_avg_pool, input, matrices=tuple(
        _conv.adaptive_matrix(n, o) for n, o in zip(input.shape[-3:], size, strict=True)))


@torch_api("max_pool", method=False, function=False)
def adaptive_max_pool3d(input: Tensor, output_size: IntOrTuple,  # noqa: A002
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """:func:`adaptive_max_pool2d` over three spatial dims (``AdaptiveMaxPool3DBackward0``).

    >>> F.adaptive_max_pool3d(symgrad.arange(8.0).reshape(1, 2, 2, 2), 1)
    tensor([[[[7.]]]])
    """
    _tensor(input, "adaptive_max_pool3d")
    if input.ndim not in (4, 5) or 0 in input.shape[-3:]:
        raise RuntimeError("adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: "
                           f"{_size(input.shape)}")
    return _adaptive_max(input, output_size, return_indices, 3)


def _with_indices(pool):
    """PyTorch's ``F.<pool>_with_indices``: the pooling with ``return_indices=True``."""
    def with_indices(input: Tensor, *args, **kwargs) -> tuple[Tensor, Tensor]:  # noqa: A002
        kwargs["return_indices"] = True
        return pool(input, *args, **kwargs)

    with_indices.__name__ = with_indices.__qualname__ = f"{pool.__name__}_with_indices"
    shape = "(1, 2, 2, 2)" if pool.__name__.endswith("3d") else "(1, 2, 2)"
    with_indices.__doc__ = f"""``{pool.__name__}(..., return_indices=True)``: the pooled values
    and the flat index of each maximum in its input plane.

    >>> values, indices = F.{pool.__name__}_with_indices(symgrad.ones{shape}, 1)
    >>> indices.dtype
    symgrad.int64
    """
    return with_indices


max_pool1d_with_indices = _with_indices(max_pool1d)
max_pool2d_with_indices = _with_indices(max_pool2d)
max_pool3d_with_indices = _with_indices(max_pool3d)
adaptive_max_pool1d_with_indices = _with_indices(adaptive_max_pool1d)
adaptive_max_pool2d_with_indices = _with_indices(adaptive_max_pool2d)
adaptive_max_pool3d_with_indices = _with_indices(adaptive_max_pool3d)


@torch_api(COMPOSITE, method=False)
def channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """Interleave the channels (dim 1) of ``groups`` groups: (N, g, C/g, *) transposed to
    (N, C/g, g, *).

    >>> F.channel_shuffle(symgrad.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    _tensor(input, "channel_shuffle")
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {_size(input.shape)}")
    groups = int(groups)
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} "
                           f"channels and {groups} groups.")
    n, rest = input.shape[0], tuple(input.shape[2:])
    return (input.reshape(n, groups, channels // groups, *rest).transpose(1, 2)
            .reshape(n, channels, *rest))


def _lp_pool(name: str, d: int, input: Tensor, norm_type: float,  # noqa: A002
             kernel_size: IntOrTuple, stride: IntOrTuple | None, ceil_mode: bool) -> Tensor:
    """PyTorch's composite: an average pooling of ``x^p`` times the window size, to the power
    ``1/p`` (for ``p = ±inf``, the largest / smallest ``|x|`` of each window)."""
    _tensor(input, name)
    window = math.prod(_expand(kernel_size, d, "kernel_size", name))
    max_pool = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}[d]
    if isinstance(norm_type, int | float) and math.isinf(norm_type):
        if norm_type > 0:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    average = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}[d]
    out = average(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu() * window).pow(1.0 / norm_type)


@torch_api(COMPOSITE, method=False, function=False)
def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int,  # noqa: A002
              stride: IntOrTuple | None = None, ceil_mode: bool = False) -> Tensor:
    """``(sum of x^p over each window)^(1/p)``, PyTorch's composite: an average pooling of
    ``x^p`` times the window size (``p = inf``: the largest ``|x|``, a max pooling).

    >>> F.lp_pool1d(symgrad.tensor([[[3.0, 4.0]]]), 2, 2)
    tensor([[[5.]]])
    """
    return _lp_pool("lp_pool1d", 1, input, norm_type, kernel_size, stride, ceil_mode)


@torch_api(COMPOSITE, method=False, function=False)
def lp_pool2d(input: Tensor, norm_type: float, kernel_size: IntOrTuple,  # noqa: A002
              stride: IntOrTuple | None = None, ceil_mode: bool = False) -> Tensor:
    """:func:`lp_pool1d` over 2-d windows.

    >>> F.lp_pool2d(symgrad.ones(1, 2, 2), 1, 2)
    tensor([[[4.]]])
    """
    return _lp_pool("lp_pool2d", 2, input, norm_type, kernel_size, stride, ceil_mode)


@torch_api(COMPOSITE, method=False, function=False)
def lp_pool3d(input: Tensor, norm_type: float, kernel_size: IntOrTuple,  # noqa: A002
              stride: IntOrTuple | None = None, ceil_mode: bool = False) -> Tensor:
    """:func:`lp_pool1d` over 3-d windows.

    >>> F.lp_pool3d(symgrad.ones(1, 2, 2, 2), 1, 2)
    tensor([[[[8.]]]])
    """
    return _lp_pool("lp_pool3d", 3, input, norm_type, kernel_size, stride, ceil_mode)


def _unpool_size(input: Tensor, kernel: tuple[int, ...], stride: tuple[int, ...],  # noqa: A002
                 padding: tuple[int, ...], output_size: Sequence[int] | None) -> list[int]:
    """PyTorch's ``_unpool_output_size``: the default size, or ``output_size`` checked."""
    d = len(kernel)
    default = [(input.shape[input.ndim - d + i] - 1) * stride[i] + kernel[i] - 2 * padding[i]
               for i in range(d)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == d + 2:
        output_size = output_size[2:]
    if len(output_size) != d:
        raise ValueError(f"output_size should be a sequence containing {d} or {d + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for i in range(d):
        low, high = default[i] - stride[i], default[i] + stride[i]
        if not low < output_size[i] < high:
            raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {i} must be '
                             f"between {low} and {high})")
    return output_size


def _max_unpool(name: str, input: Tensor, indices: Tensor, kernel_size, stride,  # noqa: A002
                padding, output_size, d: int) -> Tensor:
    _tensor(input, name)
    kernel = _expand(kernel_size, d, "kernel_size", name)
    stride = kernel if stride is None else _expand(stride, d, "stride", name)
    padding = _expand(padding, d, "padding", name)
    size = _unpool_size(input, kernel, stride, padding, output_size)
    if indices.dtype.name != "int64":  # (PyTorch's 3-d kernel does not say what it got)
        raise RuntimeError("elements in indices should be type int64" + (
            f" but got: {indices.dtype._torch_name}" if d < 3 else ""))
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({_size(input.shape)}) but got indices tensor with shape: "
                           f"{_size(indices.shape)}")
    plane = int(np.prod(size))
    flat_index = indices._value.reshape(*indices.shape[:input.ndim - d], -1)
    if flat_index.size and (flat_index.min() < 0 or flat_index.max() >= plane):
        bad = flat_index[(flat_index < 0) | (flat_index >= plane)].flat[0]
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, size))})")
    lead = flat_index.shape[:-1]
    key = tuple(np.arange(n).reshape((1,) * i + (n,) + (1,) * (len(lead) - i))
                for i, n in enumerate(lead)) + (flat_index,)
    if d == 1:  # (PyTorch's 1-d unpooling is its 2-d one on an unsqueezed input)
        out = apply_op(ops.conv.max_unpool, input.unsqueeze(-2), key=key, size=(1, *size))
        return out.squeeze(-2)
    return apply_op(ops.conv.max_unpool, input, key=key, size=tuple(size))


@torch_api(COMPOSITE, method=False, function=False)
def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple,  # noqa: A002
                 stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """The partial inverse of :func:`max_pool1d`: each value written at its index in a zero
    (N, C, L_out) output.

    >>> F.max_unpool1d(symgrad.tensor([[[5.0]]]), symgrad.tensor([[[1]]]), 2)
    tensor([[[0., 5.]]])
    """
    return _max_unpool("max_unpool1d", input, indices, kernel_size, stride, padding,
                       output_size, 1)


@torch_api(COMPOSITE, method=False, function=False)
def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple,  # noqa: A002
                 stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """The partial inverse of :func:`max_pool2d`: each value written at its flat index in a
    zero (N, C, H_out, W_out) output.

    >>> F.max_unpool2d(symgrad.tensor([[[[5.0]]]]), symgrad.tensor([[[[3]]]]), 2)
    tensor([[[[0., 0.],
              [0., 5.]]]])
    """
    return _max_unpool("max_unpool2d", input, indices, kernel_size, stride, padding,
                       output_size, 2)


@torch_api(COMPOSITE, method=False, function=False)
def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple,  # noqa: A002
                 stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """The partial inverse of :func:`max_pool3d`: each value written at its flat index in a
    zero (N, C, D_out, H_out, W_out) output.

    >>> F.max_unpool3d(symgrad.tensor([[[[[5.0]]]]]), symgrad.tensor([[[[[7]]]]]), 2).sum()
    tensor(5.)
    """
    return _max_unpool("max_unpool3d", input, indices, kernel_size, stride, padding,
                       output_size, 3)


# ---------------------------------------------------------------------------- resampling
def pad_by_mode(input: Tensor, pad: Sequence[int], mode: str,  # noqa: A002
                value: float | None = None) -> Tensor:
    """``F.pad`` in mode 'reflect', 'replicate' or 'circular' (see ``F.pad``)."""
    if value is not None:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if len(pad) % 2 or k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    sizes = tuple(input.shape[input.ndim - k:])
    pairs = tuple((int(pad[2 * (k - 1 - i)]), int(pad[2 * (k - 1 - i) + 1])) for i in range(k))
    # PyTorch checks the last dimension first, naming it argument #4 (#6, #8 the ones before)
    for i, (n, (before, after)) in reversed(list(enumerate(zip(sizes, pairs, strict=True)))):
        dim = input.ndim - k + i
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(f"Argument #{4 + 2 * (k - 1 - i)}: Padding size should be less "
                               "than the corresponding input dimension, but got: padding "
                               f"({before}, {after}) at dimension {dim} of input "
                               f"{_size(input.shape)}")
        if mode == "circular" and (before > n or after > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "replicate" and n == 0:
            raise RuntimeError(f"Expected input with non-zero spatial size, but got "
                               f"{_size(input.shape)}")
    if mode != "circular":
        kernel = "reflection" if mode == "reflect" else "replication"
        _compiled_for(f"{kernel}_pad{k}d", input, _NOT_BOOL)
    key = _conv.pad_key(sizes, pairs, mode, input.ndim - k)
    return apply_op(_conv.pad_gather, input, key=key, mode=mode, dims=k)


_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}


@torch_api("upsample", method=False, function=False)
def interpolate(input: Tensor, size: IntOrTuple | None = None,  # noqa: A002
                scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dims of a (N, C, *spatial) input to ``size`` or by
    ``scale_factor``, with PyTorch's 'nearest', 'nearest-exact', 'linear', 'bilinear' or
    'trilinear' source positions (``align_corners`` for the linear modes);
    ``UpsampleNearest2DBackward0``, ``UpsampleBilinear2DBackward0`` ...

    >>> F.interpolate(symgrad.tensor([[[1.0, 2.0]]]), scale_factor=2, mode="linear")
    tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    """
    _tensor(input, "interpolate")
    d = input.ndim - 2
    if mode not in _MODES or d not in (1, 2, 3):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.ndim}D) for the modes: nearest | linear | bilinear |"
                                  f" bicubic | trilinear | lanczos | area | nearest-exact (got "
                                  f"{mode})")
    if align_corners is not None and mode not in _LINEAR and mode != "bicubic":
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if mode in _LINEAR and _LINEAR[mode] != d:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{_LINEAR[mode] + 2}D input")
    if mode == "bicubic" and d != 2:
        raise NotImplementedError(f"Got {input.ndim}D input, but bicubic mode needs 4D input")
    if antialias:
        if mode not in ("bilinear", "bicubic"):
            raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes "
                             "and requires a 4-D tensor as input")
        raise NotImplementedError("symgrad's interpolate does not support antialias=True")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = tuple(input.shape[2:])
    if size is not None:
        out = (int(size),) * d if isinstance(size, int | np.integer) else tuple(size)
        if len(out) != d:
            raise ValueError(f"Input and output must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(spatial)} and output size of {size}. Please provide input "
                             "tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, "
                             "o2, ...,oK) format.")
        scales = (None,) * d
    elif scale_factor is not None:
        factors = (scale_factor,) * d if isinstance(scale_factor, int | float) else \
            tuple(scale_factor)
        if len(factors) != d:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(spatial)} and scale_factor of shape {scale_factor}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             "scale_factor in (s1, s2, ...,sK) format.")
        out = tuple(int(np.floor(n * float(f))) for n, f in zip(spatial, factors, strict=True))
        scales = (None,) * d if recompute_scale_factor else tuple(1 / float(f) for f in factors)
    else:
        raise ValueError("either size or scale_factor should be defined")
    if not input.is_floating_point():
        _resampled_dtype(input, mode, d)
        matrices = tuple(_conv.resample_matrix(n, o, mode, s, False, np.float64)
                         for n, o, s in zip(spatial, out, scales, strict=True))
        y = apply_op(_conv.upsample, input.double(), matrices=matrices, mode=mode)
        return _make(y._value.astype(input._value.dtype))  # (nearest: values picked, exact)
    matrices = tuple(_conv.resample_matrix(n, o, mode, s, bool(align_corners),
                                           input._value.dtype.type)
                     for n, o, s in zip(spatial, out, scales, strict=True))
    return apply_op(_conv.upsample, input, matrices=matrices, mode=mode)


def _resampled_dtype(input: Tensor, mode: str, d: int) -> None:  # noqa: A002
    """PyTorch's kernel names refusing an integer or bool input in each mode; of those, uint8
    in the nearest modes is resampled (exactly: values are picked), and uint8 in 'bilinear' and
    'bicubic' (PyTorch's fixed-point kernels, whose rounding symgrad does not reproduce) is
    refused."""
    if mode == "area":
        _compiled_for(f"adaptive_avg_pool{max(d, 2)}d" + ("_cpu" if d == 3 else ""), input,
                      _FLOATS)
    kernel = {"nearest": "compute_indices_weights_nearest", "linear": "compute_indices_weights_"
              "linear", "trilinear": "compute_indices_weights_linear", "bilinear":
              "upsample_bilinear2d_channels_last", "bicubic": "compute_indices_weights_cubic"}
    name = kernel.get(mode.removesuffix("-exact"))
    if d == 2 and mode.startswith("nearest"):
        name = "upsample_nearest2d_channels_last"
    _compiled_for(name, input, ("uint8",) if mode.startswith("nearest") or d == 2 else ())
    if not mode.startswith("nearest"):
        raise NotImplementedError(f"symgrad's interpolate does not support uint8 input in "
                                  f"'{mode}' mode (PyTorch's fixed-point kernel); convert it to "
                                  "float first")


@torch_api("upsample", method=False, function=False)
def upsample(input: Tensor, size: IntOrTuple | None = None,  # noqa: A002
             scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated spelling of :func:`interpolate` (with PyTorch's warning).

    >>> import warnings; warnings.simplefilter("ignore")
    >>> F.upsample(symgrad.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    """
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


@torch_api("upsample", method=False, function=False)
def upsample_nearest(input: Tensor, size: IntOrTuple | None = None,  # noqa: A002
                     scale_factor: float | None = None) -> Tensor:
    """Deprecated: :func:`interpolate` with mode 'nearest' (with PyTorch's warning).

    >>> import warnings; warnings.simplefilter("ignore")
    >>> F.upsample_nearest(symgrad.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    """
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


@torch_api("upsample", method=False, function=False)
def upsample_bilinear(input: Tensor, size: IntOrTuple | None = None,  # noqa: A002
                      scale_factor: float | None = None) -> Tensor:
    """Deprecated: :func:`interpolate` with mode 'bilinear' and ``align_corners=True``.

    >>> import warnings; warnings.simplefilter("ignore")
    >>> F.upsample_bilinear(symgrad.tensor([[[[1.0, 2.0]]]]), size=(1, 3))
    tensor([[[[1.0000, 1.5000, 2.0000]]]])
    """
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


@torch_api("pixel_shuffle", method=False)
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    """(*, C r^2, H, W) to (*, C, H r, W r): channel blocks become spatial blocks
    (``PixelShuffleBackward0``).

    >>> F.pixel_shuffle(symgrad.arange(4.0).reshape(4, 1, 1), 2)
    tensor([[[0., 1.],
             [2., 3.]]])
    """
    _tensor(input, "pixel_shuffle")
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if input.shape[-3] % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           "divisible by the square of upscale_factor, but input.size(-3)="
                           f"{input.shape[-3]} is not divisible by {r * r}")
    return apply_op(_conv.pixel_shuffle, input, factor=r)


@torch_api("pixel_shuffle", method=False)
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    """(*, C, H r, W r) to (*, C r^2, H, W), the inverse of :func:`pixel_shuffle`
    (``PixelUnshuffleBackward0``).

    >>> F.pixel_unshuffle(symgrad.arange(4.0).reshape(1, 2, 2), 2).flatten()
    tensor([0., 1., 2., 3.])
    """
    _tensor(input, "pixel_unshuffle")
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for side, dim in (("height", -2), ("width", -1)):
        if input.shape[dim] % r:
            raise RuntimeError(f"pixel_unshuffle expects {side} to be divisible by "
                               f"downscale_factor, but input.size({dim})={input.shape[dim]} is "
                               f"not divisible by {r}")
    return apply_op(_conv.pixel_shuffle, input, factor=r, inverse=True)
