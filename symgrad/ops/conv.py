"""Convolution, pooling and sliding windows (im2col / col2im): the ops of ``nn.functional``
that slide a kernel over the spatial dims of an (N, C, *spatial) input.

Everything is written on two namespace primitives: ``xp.windows`` (a strided view of the
windows, (N, C, *out, *kernel), no copy on numpy) and its adjoint ``xp.windows_backward``
(col2im: one strided add per kernel offset). A convolution is one reshape of the windows into
rows and one matmul with the weight (a batched matmul over groups); its input gradient is a
matmul and a col2im, its weight gradient a matmul of the windows with the output gradient.
Transposed convolution is the input gradient of a convolution, so the same three helpers serve
both directions. Padding is given per spatial dim as a (before, after) pair.

Max pooling follows ``max(dim)``: the methods layer finds the index of each window's maximum
numerically (:func:`max_pool_key`; ties go to the first in scan order, as PyTorch's kernel)
and the op is a gather at those indices, so its gradient goes to the index PyTorch returns.
Average pooling divides each window's sum by a constant divisor array (its count, PyTorch's
``count_include_pad`` / ``divisor_override`` rules), computed by :func:`avg_pool_divisor`.
"""

from __future__ import annotations

import math

import numpy as np

from symgrad.numeric import numpy_namespace as numeric
from symgrad.ops.record import LazySamples, Op, Sample, register


# ---------------------------------------------------------------------------- helpers
def _pad(xp, x, padding, value=0.0):
    """``x`` with (before, after) ``padding`` on each spatial dim."""
    if not any(lo or hi for lo, hi in padding):
        return x
    return xp.pad(x, ((0, 0), (0, 0), *padding), value)


def _crop(x, padding, spatial):
    """The inverse of :func:`_pad` to spatial size ``spatial`` (drops any excess after)."""
    if not any(lo for lo, _ in padding) and tuple(x.shape[2:]) == tuple(spatial):
        return x
    return x[(slice(None), slice(None),
              *(slice(lo, lo + n) for (lo, _), n in zip(padding, spatial, strict=True)))]


def window_count(size: int, kernel: int, stride: int, dilation: int) -> int:
    """How many windows fit in ``size`` elements (one spatial dim)."""
    return (size - dilation * (kernel - 1) - 1) // stride + 1


def _rows(xp, cols, d):
    """Windows (N, C, *out, *K) as rows (N * L, C * prod(K)), channel-major in each row."""
    c = cols.shape[1]
    perm = (0, *range(2, 2 + d), 1, *range(2 + d, 2 + 2 * d))
    return xp.reshape(xp.transpose(cols, perm), (-1, c * math.prod(cols.shape[2 + d:])))


def _out_rows(xp, gy, d):
    """An output-shaped (N, O, *out) array as rows (N * L, O)."""
    return xp.reshape(xp.transpose(gy, (0, *range(2, 2 + d), 1)), (-1, gy.shape[1]))


def _correlate(xp, x, w, stride, dilation, groups):
    """``y[n, o, *p] = sum_{c, k} w[o, c, k] x[n, g(o) * C/G + c, p * stride + k * dilation]``
    for an already padded ``x``: the cross-correlation PyTorch calls convolution."""
    d = w.ndim - 2
    cols = xp.windows(x, tuple(w.shape[2:]), stride, dilation)
    n, out, o = x.shape[0], tuple(cols.shape[2:2 + d]), w.shape[0]
    rows = _rows(xp, cols, d)
    if groups == 1:
        y = xp.matmul(rows, xp.transpose(xp.reshape(w, (o, -1))))
    else:
        rows = xp.transpose(xp.reshape(rows, (rows.shape[0], groups, -1)), (1, 0, 2))
        wg = xp.swapaxes(xp.reshape(w, (groups, o // groups, -1)), 1, 2)
        y = xp.reshape(xp.transpose(xp.matmul(rows, wg), (1, 0, 2)), (-1, o))
    return xp.transpose(xp.reshape(y, (n, *out, o)), (0, d + 1, *range(1, d + 1)))


def _correlate_input_grad(xp, gy, w, shape, stride, dilation, groups):
    """The adjoint of :func:`_correlate` in ``x``: ``gy`` (N, O, *out) to an array of the
    padded input's ``shape``."""
    d = w.ndim - 2
    n, o, out, kernel = gy.shape[0], gy.shape[1], tuple(gy.shape[2:]), tuple(w.shape[2:])
    gy = _out_rows(xp, gy, d)
    if groups == 1:
        rows = xp.matmul(gy, xp.reshape(w, (o, -1)))
    else:
        gy = xp.transpose(xp.reshape(gy, (gy.shape[0], groups, o // groups)), (1, 0, 2))
        rows = xp.matmul(gy, xp.reshape(w, (groups, o // groups, -1)))
        rows = xp.transpose(rows, (1, 0, 2))
    cols = xp.reshape(rows, (n, *out, shape[1], *kernel))
    cols = xp.transpose(cols, (0, d + 1, *range(1, d + 1), *range(d + 2, 2 * d + 2)))
    return xp.windows_backward(cols, tuple(shape), kernel, stride, dilation)


def _correlate_weight_grad(xp, gy, x, kernel, stride, dilation, groups):
    """The adjoint of :func:`_correlate` in ``w``: (O, C / groups, *kernel)."""
    d = len(kernel)
    o, c = gy.shape[1], x.shape[1]
    rows = _rows(xp, xp.windows(x, kernel, stride, dilation), d)
    gy = _out_rows(xp, gy, d)
    # rows^T @ gy, transposed after: OpenBLAS runs this orientation of the long-K product
    # several times faster than gy^T @ rows on a busy 2-core machine (benchmarks/bench_conv.py)
    if groups == 1:
        gw = xp.transpose(xp.matmul(xp.transpose(rows), gy))
    else:
        rows = xp.transpose(xp.reshape(rows, (rows.shape[0], groups, -1)), (1, 2, 0))
        gy = xp.transpose(xp.reshape(gy, (gy.shape[0], groups, o // groups)), (1, 0, 2))
        gw = xp.swapaxes(xp.matmul(rows, gy), 1, 2)
    return xp.reshape(gw, (o, c // groups, *kernel))


# ---------------------------------------------------------------------------- convolution
def transposed_shape(x_shape, w_shape, stride, padding, dilation, groups, output_padding):
    """The output shape of a transposed convolution (padding as (before, after) pairs)."""
    return (x_shape[0], w_shape[1] * groups,
            *((n - 1) * s - lo - hi + dl * (k - 1) + op + 1
              for n, k, s, (lo, hi), dl, op in zip(x_shape[2:], w_shape[2:], stride, padding,
                                                   dilation, output_padding, strict=True)))


def _conv_forward(xp, x, w, b, stride, padding, dilation, groups, transposed=False,
                  output_padding=()):
    d = w.ndim - 2
    if transposed:
        full = transposed_shape(x.shape, w.shape, stride, ((0, 0),) * d, dilation, groups,
                                output_padding)
        y = _correlate_input_grad(xp, x, w, full, stride, dilation, groups)
        y = _crop(y, padding, transposed_shape(x.shape, w.shape, stride, padding, dilation,
                                               groups, output_padding)[2:])
    else:
        y = _correlate(xp, _pad(xp, x, padding), w, stride, dilation, groups)
    if b is not None:
        y = y + xp.reshape(b, (-1,) + (1,) * d)
    return y


def _transposed_grad_out(xp, g, x, w, stride, padding, dilation):
    """The output gradient of a transposed convolution, uncropped and cut to what the windows
    of its input reach (output padding beyond them only ever held the bias)."""
    g = _pad(xp, g, padding)
    return g[(slice(None), slice(None),
              *(slice(0, (n - 1) * s + dl * (k - 1) + 1)
                for n, k, s, dl in zip(x.shape[2:], w.shape[2:], stride, dilation,
                                       strict=True)))]


def _conv_grad_input(xp, g, ans, x, w, b, stride, padding, dilation, groups, transposed=False,
                     output_padding=()):
    if transposed:
        return _correlate(xp, _transposed_grad_out(xp, g, x, w, stride, padding, dilation), w,
                          stride, dilation, groups)
    shape = (*x.shape[:2], *(n + lo + hi for n, (lo, hi) in zip(x.shape[2:], padding,
                                                                  strict=True)))
    gx = _correlate_input_grad(xp, g, w, shape, stride, dilation, groups)
    return _crop(gx, padding, tuple(x.shape[2:]))


def _conv_grad_weight(xp, g, ans, x, w, b, stride, padding, dilation, groups, transposed=False,
                      output_padding=()):
    kernel = tuple(w.shape[2:])
    if transposed:
        gp = _transposed_grad_out(xp, g, x, w, stride, padding, dilation)
        return _correlate_weight_grad(xp, x, gp, kernel, stride, dilation, groups)
    return _correlate_weight_grad(xp, g, _pad(xp, x, padding), kernel, stride, dilation, groups)


def _conv_grad_bias(xp, g, ans, x, w, b, stride, padding, dilation, groups, transposed=False,
                    output_padding=()):
    return xp.sum(g, axis=(0, *range(2, g.ndim)))


def _conv_sample(x, w, stride=1, padding=0, dilation=1, groups=1, transposed=False,
                 output_padding=0):
    d = len(x) - 2
    each = (lambda v: (v,) * d if isinstance(v, int) else tuple(v))  # noqa: E731
    pads = tuple(p if isinstance(p, tuple) else (p, p) for p in
                 (padding if isinstance(padding, tuple) else (padding,) * d))
    bias = w[1] * groups if transposed else w[0]
    return Sample((x, w, (bias,)), {
        "stride": each(stride), "padding": pads, "dilation": each(dilation), "groups": groups,
        "transposed": transposed, "output_padding": each(output_padding)})


convolution = register(Op(
    "convolution", "ConvolutionBackward0",
    forward=_conv_forward,
    vjp=(_conv_grad_input, _conv_grad_weight, _conv_grad_bias),
    saved={0: (1,), 1: (0,), 2: ()},
    float_only=True,
    samples=(
        _conv_sample((1, 2, 4, 4), (3, 2, 2, 2)),
        _conv_sample((2, 2, 5, 4), (2, 1, 3, 2), stride=(2, 1), padding=((1, 1), (0, 1)),
                     groups=2),
        _conv_sample((1, 1, 6), (2, 1, 2), dilation=2, padding=1),
        _conv_sample((1, 2, 3, 3, 3), (2, 2, 2, 2, 2), stride=(1, 2, 1)),
        _conv_sample((1, 2, 3, 3), (2, 2, 2, 2), transposed=True, stride=2, padding=1,
                     output_padding=1),
        _conv_sample((2, 2, 4), (2, 1, 3), transposed=True, groups=2, dilation=2,
                     stride=1, output_padding=1),
    ),
))


# ---------------------------------------------------------------------------- im2col / col2im
def _im2col(xp, x, kernel, dilation, padding, stride):
    d = len(kernel)
    if x.ndim == d + 1:  # unbatched: (C, *spatial) to (C * prod(kernel), L)
        y = _im2col(xp, xp.reshape(x, (1, *x.shape)), kernel, dilation, padding, stride)
        return xp.reshape(y, tuple(y.shape[1:]))
    cols = xp.windows(_pad(xp, x, padding), kernel, stride, dilation)
    cols = xp.transpose(cols, (0, 1, *range(2 + d, 2 + 2 * d), *range(2, 2 + d)))
    return xp.reshape(cols, (x.shape[0], x.shape[1] * math.prod(kernel), -1))


def _col2im(xp, cols, output_size, kernel, dilation, padding, stride):
    d = len(kernel)
    if cols.ndim == 2:  # unbatched: (C * prod(kernel), L) to (C, *output_size)
        y = _col2im(xp, xp.reshape(cols, (1, *cols.shape)), output_size, kernel, dilation,
                    padding, stride)
        return xp.reshape(y, tuple(y.shape[1:]))
    n, c = cols.shape[0], cols.shape[1] // math.prod(kernel)
    padded = tuple(m + lo + hi for m, (lo, hi) in zip(output_size, padding, strict=True))
    out = tuple(window_count(*v) for v in zip(padded, kernel, stride, dilation, strict=True))
    cols = xp.reshape(cols, (n, c, *kernel, *out))
    cols = xp.transpose(cols, (0, 1, *range(2 + d, 2 + 2 * d), *range(2, 2 + d)))
    y = xp.windows_backward(cols, (n, c, *padded), kernel, stride, dilation)
    return _crop(y, padding, output_size)


def _im2col_grad(xp, g, ans, x, kernel, dilation, padding, stride):
    return _col2im(xp, g, tuple(x.shape[x.ndim - len(kernel):]), kernel, dilation, padding,
                   stride)


def _col2im_grad(xp, g, ans, cols, output_size, kernel, dilation, padding, stride):
    return _im2col(xp, g, kernel, dilation, padding, stride)


_WINDOW_PARAMS = (
    {"kernel": (2, 2), "dilation": (1, 1), "padding": ((0, 0), (0, 0)), "stride": (1, 1)},
    {"kernel": (2, 3), "dilation": (2, 1), "padding": ((1, 1), (0, 0)), "stride": (1, 2)},
    {"kernel": (2,), "dilation": (1,), "padding": ((1, 1),), "stride": (2,)},
)

im2col = register(Op(
    "im2col", "Im2ColBackward0",
    forward=_im2col,
    vjp=(_im2col_grad,),
    float_only=True,
    samples=(Sample(((1, 2, 3, 3),), _WINDOW_PARAMS[0]),
             Sample(((2, 3, 3),), _WINDOW_PARAMS[0]),
             Sample(((2, 1, 4, 5),), _WINDOW_PARAMS[1]),
             Sample(((1, 2, 5),), _WINDOW_PARAMS[2])),
))

col2im = register(Op(
    "col2im", "Col2ImBackward0",
    forward=_col2im,
    vjp=(_col2im_grad,),
    float_only=True,
    samples=(Sample(((1, 8, 4),), {**_WINDOW_PARAMS[0], "output_size": (3, 3)}),
             Sample(((8, 4),), {**_WINDOW_PARAMS[0], "output_size": (3, 3)}),
             Sample(((2, 6, 8),), {**_WINDOW_PARAMS[1], "output_size": (4, 5)}),
             Sample(((1, 4, 3),), {**_WINDOW_PARAMS[2], "output_size": (5,)})),
))


# ---------------------------------------------------------------------------- pooling
def pool_padding(size, kernel, stride, padding, dilation, ceil_mode):
    """One spatial dim of a pooling: its output length and its (before, after) padding, the
    after part extended so that ceil mode's last window fits (PyTorch's
    ``pooling_output_shape``: a last window starting in the right padding is dropped)."""
    span = dilation * (kernel - 1) + 1
    full = size + 2 * padding - span
    out = (-(-full // stride) if ceil_mode else full // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    needed = (out - 1) * stride + span
    return out, (padding, max(padding, needed - size - padding))


def max_pool_key(value: np.ndarray, kernel, stride, padding, dilation):
    """The gather key of a max pooling of ``value`` (N, C, *spatial; padding as (before,
    after) pairs) and PyTorch's returned indices (flat positions in each (n, c) plane): the
    first maximum of each window in scan order, or its first nan. An unbatched (C, *spatial)
    ``value`` gets a key without the batch part."""
    d = len(kernel)
    if value.ndim == d + 1:
        key, indices = max_pool_key(value[None], kernel, stride, padding, dilation)
        return tuple(k[0] for k in key[1:]), indices[0]
    fill = -np.inf if value.dtype.kind == "f" else np.iinfo(value.dtype).min
    padded = np.pad(value, ((0, 0), (0, 0), *padding), constant_values=fill) \
        if any(lo or hi for lo, hi in padding) else value
    cols = numeric.windows(padded, tuple(kernel), tuple(stride), tuple(dilation))
    out = cols.shape[2:2 + d]
    flat = cols.reshape(*cols.shape[:2 + d], -1)
    pick = flat.argmax(-1)
    if value.dtype.kind == "f":
        nan = np.isnan(flat)
        if nan.any():
            pick = np.where(nan.any(-1), nan.argmax(-1), pick)
    offsets = np.unravel_index(pick, kernel)
    key = [np.arange(value.shape[0]).reshape((-1,) + (1,) * (d + 1)),
           np.arange(value.shape[1]).reshape((1, -1) + (1,) * d)]
    for i in range(d):
        start = (np.arange(out[i]) * stride[i]).reshape((1, 1) + tuple(
            -1 if j == i else 1 for j in range(d)))
        key.append(start + offsets[i] * dilation[i] - padding[i][0])
    n, c = value.shape[:2]
    key = tuple(np.broadcast_to(k, (n, c, *out)) for k in key)
    indices = np.ravel_multi_index(key[2:], value.shape[2:]) if d else np.zeros((n, c), int)
    return key, indices


def adaptive_max_key(value: np.ndarray, size: tuple[int, ...]):
    """As :func:`max_pool_key` for an adaptive max pooling of ``value`` (N, C, *spatial) to
    ``size``: window i of a dim of length n spans ``[floor(i n / o), ceil((i + 1) n / o))``.
    One vectorised argmax per output position (their number is the output's, not the
    input's)."""
    if value.ndim == len(size) + 1:  # unbatched
        key, indices = adaptive_max_key(value[None], size)
        return tuple(k[0] for k in key[1:]), indices[0]
    n, c = value.shape[:2]
    spatial = value.shape[2:]
    d = len(size)
    positions = [np.empty((n, c, *size), dtype=np.int64) for _ in range(d)]
    for out in np.ndindex(*size):
        bounds = [((o * m) // s, -(-((o + 1) * m) // s))
                  for o, m, s in zip(out, spatial, size, strict=True)]
        block = value[(slice(None), slice(None), *(slice(a, b) for a, b in bounds))]
        flat = block.reshape(n, c, -1)
        pick = flat.argmax(-1)
        if value.dtype.kind == "f":
            nan = np.isnan(flat)
            pick = np.where(nan.any(-1), nan.argmax(-1), pick)
        for i, offset in enumerate(np.unravel_index(pick, [b - a for a, b in bounds])):
            positions[i][(slice(None), slice(None), *out)] = offset + bounds[i][0]
    key = (np.broadcast_to(np.arange(n).reshape((-1,) + (1,) * (d + 1)), (n, c, *size)),
           np.broadcast_to(np.arange(c).reshape((1, -1) + (1,) * d), (n, c, *size)),
           *positions)
    indices = np.ravel_multi_index(tuple(positions), spatial)
    return key, indices


def _pool_gather(xp, a, key, spatial=2, adaptive=False):
    return a[key]


def _pool_gather_grad(xp, g, ans, a, key, spatial=2, adaptive=False):
    return xp.index_backward(g, a.shape, key)


def _max_pool_name(params, a):
    prefix = "AdaptiveMaxPool" if params.get("adaptive") else "MaxPool"
    suffix = "Backward0" if params.get("adaptive") else "WithIndicesBackward0"
    return f"{prefix}{params.get('spatial', 2)}D{suffix}"


def _distinct(shape, seed):
    """Distinct values in no particular order (where the maxima of a sample's windows lie),
    without numpy.random, which ``import symgrad`` then need not import."""
    values = np.cos((np.arange(int(np.prod(shape))) + seed) * 2.399963)  # (a sample's data)
    return values.reshape(shape)


def _max_pool_sample(shape, kernel, stride, padding=None, dilation=None):
    d = len(kernel)
    padding = padding or ((0, 0),) * d
    dilation = dilation or (1,) * d
    key, _ = max_pool_key(_distinct(shape, len(shape) + sum(kernel)), kernel, stride, padding,
                          dilation)
    return Sample((shape,), {"key": key, "spatial": d})


max_pool = register(Op(
    "max_pool", "MaxPool2DWithIndicesBackward0",
    forward=_pool_gather,
    vjp=(_pool_gather_grad,),
    node_name_of=_max_pool_name,
    samples=LazySamples(lambda: (  # (the gather keys take real work: built on first use)
        _max_pool_sample((1, 2, 4, 4), (2, 2), (2, 2)),
        _max_pool_sample((2, 1, 5, 5), (3, 3), (2, 2), ((1, 1), (1, 1))),
        _max_pool_sample((1, 1, 5, 6), (2, 2), (1, 2), dilation=(2, 1)),
        _max_pool_sample((1, 1, 4, 4, 4), (2, 2, 2), (2, 2, 2)),
        _max_pool_sample((2, 4, 4), (2, 2), (2, 2)),
        Sample(((1, 2, 5, 3),), {"key": adaptive_max_key(
            _distinct((1, 2, 5, 3), 1), (3, 2))[0],
            "adaptive": True}),
    )),
))


def avg_pool_divisor(sizes, kernel, stride, padding, count_include_pad, divisor_override,
                     out):
    """The divisor of each window of an average pooling, shaped (*out,): PyTorch's window
    size clipped to the padded input (``count_include_pad``) or to the input, or the
    override. ``padding`` is symmetric per dim (PyTorch's)."""
    if divisor_override is not None:
        total = np.full(out, float(divisor_override))
        return total
    counts = []
    for n, k, s, p, o in zip(sizes, kernel, stride, padding, out, strict=True):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        counts.append(end - start)
    total = counts[0].astype(np.float64)
    for c in counts[1:]:
        total = np.multiply.outer(total, c)
    return total


def _avg_pool_forward(xp, a, kernel, stride, padding, divisor):
    d = len(kernel)
    if a.ndim == d + 1:  # unbatched
        y = _avg_pool_forward(xp, xp.reshape(a, (1, *a.shape)), kernel, stride, padding, divisor)
        return xp.reshape(y, tuple(y.shape[1:]))
    cols = xp.windows(_pad(xp, a, padding), kernel, stride, (1,) * d)
    return xp.sum(cols, axis=tuple(range(2 + d, 2 + 2 * d))) / divisor


def _avg_pool_grad(xp, g, ans, a, kernel, stride, padding, divisor):
    d = len(kernel)
    unbatched = a.ndim == d + 1
    if unbatched:
        g = xp.reshape(g, (1, *g.shape))
    spatial = tuple(a.shape[a.ndim - d:])
    shape = (*g.shape[:2], *(n + lo + hi for n, (lo, hi) in zip(spatial, padding, strict=True)))
    share = xp.reshape(g / divisor, (*g.shape, *(1,) * d))
    cols = xp.spread(share, (*g.shape, *kernel))
    gx = _crop(xp.windows_backward(cols, shape, kernel, stride, (1,) * d), padding, spatial)
    return xp.reshape(gx, tuple(a.shape)) if unbatched else gx


def _avg_pool_sample(shape, kernel, stride, padding=0, ceil_mode=False,
                     count_include_pad=True, divisor_override=None):
    d = len(kernel)
    dims = [pool_padding(n, k, s, padding, 1, ceil_mode)
            for n, k, s in zip(shape[2:], kernel, stride, strict=True)]
    out = tuple(o for o, _ in dims)
    divisor = avg_pool_divisor(shape[2:], kernel, stride, (padding,) * d, count_include_pad,
                               divisor_override, out)
    return Sample((shape,), {"kernel": kernel, "stride": stride,
                             "padding": tuple(p for _, p in dims), "divisor": divisor})


avg_pool = register(Op(
    "avg_pool", "AvgPool2DBackward0",
    forward=_avg_pool_forward,
    vjp=(_avg_pool_grad,),
    node_name_of=lambda params, a: f"AvgPool{len(params['kernel'])}DBackward0",
    float_only=True,
    samples=(
        _avg_pool_sample((1, 2, 4, 4), (2, 2), (2, 2)),
        _avg_pool_sample((1, 1, 5, 5), (3, 3), (2, 2), padding=1, ceil_mode=True,
                         count_include_pad=False),
        _avg_pool_sample((2, 1, 5, 4), (2, 2), (2, 1), padding=1, divisor_override=3),
        _avg_pool_sample((1, 1, 4, 4, 4), (2, 2, 2), (2, 2, 2)),
        Sample(((2, 4, 4),), _avg_pool_sample((1, 2, 4, 4), (2, 2), (2, 2)).params),
    ),
))


def _along(xp, a, matrices):
    """``a`` with each spatial dim i (from dim 2) mapped by ``matrices[i]`` (out, in)."""
    d = len(matrices)
    for i, m in enumerate(matrices):
        axis = a.ndim - d + i
        a = xp.swapaxes(xp.matmul(xp.swapaxes(a, axis, -1), m.T), axis, -1)
    return a


def _along_grad(xp, g, ans, a, matrices, mode=None):
    return _along(xp, g, tuple(m.T for m in matrices))


def adaptive_matrix(size: int, out: int) -> np.ndarray:
    """(out, size): row i averages PyTorch's adaptive window ``[floor(i size / out),
    ceil((i + 1) size / out))``."""
    m = np.zeros((out, size))
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, start:end] = 1.0 / (end - start)
    return m


adaptive_avg_pool = register(Op(
    "adaptive_avg_pool", "AdaptiveAvgPool2DBackward0",
    forward=lambda xp, a, matrices: _along(xp, a, matrices),
    vjp=(_along_grad,),
    node_name_of=lambda params, a: f"AdaptiveAvgPool{len(params['matrices'])}DBackward0",
    float_only=True,
    samples=(
        Sample(((1, 2, 4, 4),), {"matrices": (adaptive_matrix(4, 2), adaptive_matrix(4, 2))}),
        Sample(((2, 1, 5, 3),), {"matrices": (adaptive_matrix(5, 3), adaptive_matrix(3, 2))}),
        Sample(((1, 1, 3, 4, 2),), {"matrices": (adaptive_matrix(3, 2), adaptive_matrix(4, 3),
                                                 adaptive_matrix(2, 1))}),
    ),
))



# ---------------------------------------------------------------------------- resampling
# Padding by reflection, replication or wrapping, and nearest / linear upsampling, are gathers
# and linear maps along each spatial dim: their params are the index arrays (``key``) or
# matrices the torch_api layer computes from the sizes (:func:`pad_key`,
# :func:`resample_matrix`).
def pad_key(sizes: tuple[int, ...], pads: tuple[tuple[int, int], ...], mode: str,
            lead: int) -> tuple:
    """The gather key that pads the last ``len(sizes)`` dims by (before, after) ``pads``
    (negative: crop) in ``mode`` 'reflect' (mirror without repeating the edge), 'replicate'
    (repeat the edge) or 'circular' (wrap around)."""
    parts = []
    for n, (before, after) in zip(sizes, pads, strict=True):
        i = np.arange(-before, n + after)
        if mode == "reflect":
            period = 2 * (n - 1)
            i = np.abs(i) % period if period else np.zeros_like(i)
            i = np.where(i >= n, period - i, i)
        elif mode == "replicate":
            i = np.clip(i, 0, n - 1)
        else:  # PyTorch wraps within what is left after negative (cropping) pads
            start = max(-before, 0)
            kept = n - start - max(-after, 0)
            i = (np.arange(-max(before, 0), kept + max(after, 0)) % kept) + start
        parts.append(i)
    grid = np.ix_(*parts)
    return (slice(None),) * lead + grid


def _pad_name(params, a):
    mode, dims = params["mode"], params["dims"]
    if mode == "circular":
        return "CopySlices"
    return f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{dims}DBackward0"


def _pad_sample(shape, pads, mode):
    return Sample((shape,), {"key": pad_key(shape[-len(pads):], pads, mode,
                                            len(shape) - len(pads)),
                             "mode": mode, "dims": len(pads)})


pad_gather = register(Op(
    "pad_gather", "ReflectionPad2DBackward0",
    forward=lambda xp, a, key, mode, dims: a[key],
    vjp=(lambda xp, g, ans, a, key, mode, dims: xp.index_backward(g, a.shape, key),),
    node_name_of=_pad_name,
    samples=(_pad_sample((1, 2, 4), ((2, 1),), "reflect"),
             _pad_sample((1, 3, 3), ((1, 2), (2, 0)), "replicate"),
             _pad_sample((2, 2, 3), ((1, 1), (3, -1)), "circular"),
             _pad_sample((1, 2, 2, 3), ((1, 1), (1, 0), (0, 2)), "reflect")),
))


def resample_matrix(size: int, out: int, mode: str, scale: float | None,
                    align_corners: bool, dtype: type = np.float32) -> np.ndarray:
    """(out, size): PyTorch's nearest ('nearest', 'nearest-exact') or linear interpolation
    weights along one dim; ``scale`` is the input/output ratio PyTorch uses (1 / the given
    scale_factor, or None for size / out). Nearest source positions are computed in float32,
    linear ones in the input's ``dtype``, as PyTorch's CPU kernels do."""
    m = np.zeros((out, size))
    rows = np.arange(out)
    if mode in ("nearest", "nearest-exact"):
        f32 = np.float32
        at = rows.astype(f32)
        ratio = f32(size / out if scale is None else scale)
        if mode == "nearest-exact":
            at = at + f32(0.5)
        src = np.minimum(np.floor(at * ratio).astype(np.int64), size - 1)
        m[rows, src] = 1.0
        return m
    if mode == "area":  # adaptive average pooling: the mean of each output's input window
        starts = (rows * size) // out
        stops = -((-(rows + 1) * size) // out)
        for i, (a, b) in enumerate(zip(starts, stops, strict=True)):
            m[i, a:b] = 1.0 / (b - a)
        return m
    real = dtype
    at = rows.astype(real)
    if align_corners:
        src = at * real((size - 1) / (out - 1) if out > 1 else 0.0)
    else:
        ratio = real(size / out if scale is None else scale)
        src = (at + real(0.5)) * ratio - real(0.5)
        if mode != "bicubic":  # the cubic kernel reads the clamped neighbours instead
            src = np.maximum(src, real(0.0))
    if mode == "bicubic":
        return _bicubic_matrix(m, rows, src, size, real)
    low = np.minimum(np.floor(src).astype(np.int64), size - 1)
    high = np.minimum(low + 1, size - 1)
    frac = src - low.astype(real)
    np.add.at(m, (rows, low), real(1.0) - frac)
    np.add.at(m, (rows, high), frac)
    return m


def _bicubic_matrix(m: np.ndarray, rows: np.ndarray, src: np.ndarray, size: int,
                    real: type) -> np.ndarray:
    """PyTorch's bicubic weights (cubic convolution, A = -0.75) of the four neighbours
    ``floor(src) - 1 .. floor(src) + 2``, clamped to the border, in the input's float type."""
    f32 = real
    a = f32(-0.75)
    low = np.floor(src)
    t = (src - low).astype(f32)

    def near(x: np.ndarray) -> np.ndarray:  # |x| <= 1
        return ((a + f32(2)) * x - (a + f32(3))) * x * x + f32(1)

    def far(x: np.ndarray) -> np.ndarray:  # 1 < |x| < 2
        return ((a * x - f32(5) * a) * x + f32(8) * a) * x - f32(4) * a

    weights = (far(t + f32(1)), near(t), near(f32(1) - t), far(f32(2) - t))
    for k, w in enumerate(weights):
        np.add.at(m, (rows, np.clip(low.astype(np.int64) - 1 + k, 0, size - 1)), w)
    return m


def _upsample_name(params, a):
    d = len(params["matrices"])
    if params["mode"] == "area":
        return f"AdaptiveAvgPool{d}DBackward0"
    kind = {"nearest": "Nearest", "nearest-exact": "NearestExact", "bicubic": "Bicubic"}.get(
        params["mode"], {1: "Linear", 2: "Bilinear", 3: "Trilinear"}[d])
    return f"Upsample{kind}{d}DBackward0"


upsample = register(Op(
    "upsample", "UpsampleNearest2DBackward0",
    forward=lambda xp, a, matrices, mode: _along(xp, a, matrices),
    vjp=(_along_grad,),
    node_name_of=_upsample_name,
    float_only=True,
    samples=(
        Sample(((1, 2, 2, 3),), {"mode": "nearest", "matrices": (
            resample_matrix(2, 4, "nearest", None, False),
            resample_matrix(3, 5, "nearest", None, False))}),
        Sample(((1, 1, 3, 2),), {"mode": "bilinear", "matrices": (
            resample_matrix(3, 5, "bilinear", None, False),
            resample_matrix(2, 4, "bilinear", None, True))}),
        Sample(((2, 1, 3),), {"mode": "linear", "matrices": (
            resample_matrix(3, 4, "linear", 0.5, False),)}),
        Sample(((1, 1, 3, 4),), {"mode": "bicubic", "matrices": (
            resample_matrix(3, 5, "bicubic", None, False),
            resample_matrix(4, 6, "bicubic", None, True))}),
        Sample(((1, 2, 5),), {"mode": "area", "matrices": (
            resample_matrix(5, 3, "area", None, False),)}),
    ),
))


def _pixel_shuffle(xp, a, factor, inverse=False):
    r, lead = factor, tuple(a.shape[:-3])
    k = len(lead)
    c, h, w = a.shape[-3:]
    if inverse:  # (*, C, H r, W r) -> (*, C r r, H, W)
        a = xp.reshape(a, (*lead, c, h // r, r, w // r, r))
        a = xp.transpose(a, (*range(k), k, k + 2, k + 4, k + 1, k + 3))
        return xp.reshape(a, (*lead, c * r * r, h // r, w // r))
    a = xp.reshape(a, (*lead, c // (r * r), r, r, h, w))
    a = xp.transpose(a, (*range(k), k, k + 3, k + 1, k + 4, k + 2))
    return xp.reshape(a, (*lead, c // (r * r), h * r, w * r))


pixel_shuffle = register(Op(
    "pixel_shuffle", "PixelShuffleBackward0",
    forward=_pixel_shuffle,
    vjp=(lambda xp, g, ans, a, factor, inverse=False:
         _pixel_shuffle(xp, g, factor, not inverse),),
    node_name_of=lambda params, a: "PixelUnshuffleBackward0" if params.get("inverse")
    else "PixelShuffleBackward0",
    samples=(Sample(((1, 4, 2, 3),), {"factor": 2}),
             Sample(((2, 1, 4, 2),), {"factor": 2, "inverse": True})),
))


# ---------------------------------------------------------------- max unpooling
# Each value written (not added: overlapping pooling windows may pick one element twice, with
# the same value) at its flat index of a zero plane; ``key`` is the advanced index of
# (the leading dims..., the flat index) and ``size`` the spatial output size. The gradient
# reads the output's cotangent back at those indices.
def _max_unpool_forward(xp, a, key, size):
    lead = a.shape[:len(a.shape) - len(size)]
    plane = 1
    for n in size:
        plane *= n
    values = xp.reshape(a, lead + (-1,) if lead else (-1,))
    zeros = xp.broadcast_to(values[..., :1] * 0, lead + (plane,))
    return xp.reshape(xp.index_put(zeros, key, values), lead + tuple(size))


def _max_unpool_grad(xp, g, ans, a, key, size):
    lead = a.shape[:len(a.shape) - len(size)]
    flat = xp.reshape(g, lead + (-1,) if lead else (-1,))
    return xp.reshape(flat[key], a.shape)


max_unpool = register(Op(
    "max_unpool", "MaxUnpool2DBackward0",
    forward=_max_unpool_forward,
    vjp=(_max_unpool_grad,),
    node_name_of=lambda params, a: f"MaxUnpool{len(params['size'])}DBackward0",
    samples=(Sample(((1, 2, 2, 2),), {"key": (np.zeros((1, 1, 1), int),
                                              np.arange(2).reshape(1, 2, 1),
                                              np.array([[[0, 2, 4, 8], [1, 3, 5, 7]]])),
                                      "size": (3, 3)}),),
))
