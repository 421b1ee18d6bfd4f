"""The dtypes int32, int16, int8, uint8 and float16 against PyTorch 2.13: creation, conversion,
promotion, arithmetic (overflow included), reductions, comparisons, bitwise ops, indexing,
printing and gradients of float16 graphs. Each case's values, node and dtype, or its error's type
and first sentence, recorded by ``python tools/record_torch_cases.py tests/test_small_dtypes.py``
into ``tests/data/torch_small_dtypes.json``; this module never imports torch.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from torch_cases import assert_same, outcome

import symgrad as t
from symgrad import ops, symbolic
from symgrad.symbolic.crosscheck import default_tolerances

DATA = pathlib.Path(__file__).parent / "data" / "torch_small_dtypes.json"

SMALL = ("int32", "int16", "int8", "uint8", "float16")
ALL = (*SMALL, "int64", "float32", "float64", "bool")


def _d(L, name):
    return getattr(L, name)


def _sample(L, name, values=(3, 0, 5, 1)):
    return L.tensor(list(values), dtype=_d(L, name))


CASES: dict = {}

# creation and conversion
for _n in SMALL:
    CASES[f"tensor {_n}"] = lambda L, n=_n: L.tensor([1, 2, 300], dtype=_d(L, n))
    CASES[f"tensor floats {_n}"] = lambda L, n=_n: L.tensor([1.7, -2.5, 0.5], dtype=_d(L, n))
    CASES[f"zeros {_n}"] = lambda L, n=_n: L.zeros(2, 2, dtype=_d(L, n))
    CASES[f"ones_like {_n}"] = lambda L, n=_n: L.ones_like(_sample(L, n))
    CASES[f"full {_n}"] = lambda L, n=_n: L.full((2,), 7, dtype=_d(L, n))
    CASES[f"full overflow {_n}"] = lambda L, n=_n: L.full((2,), 70000, dtype=_d(L, n))
    CASES[f"arange {_n}"] = lambda L, n=_n: L.arange(5, dtype=_d(L, n))
    CASES[f"from numpy {_n}"] = lambda L, n=_n: L.from_numpy(np.array([1, 2], dtype=n))
    CASES[f"as_tensor numpy {_n}"] = lambda L, n=_n: L.as_tensor(np.array([4, 5], dtype=n))
    CASES[f"numpy back {_n}"] = lambda L, n=_n: str(_sample(L, n).numpy().dtype)
    CASES[f"to {_n}"] = lambda L, n=_n: L.tensor([1.5, -2.7, 300.0]).to(_d(L, n))
    CASES[f"type {_n}"] = lambda L, n=_n: _sample(L, n).type()
    CASES[f"repr {_n}"] = lambda L, n=_n: repr(_sample(L, n))
    CASES[f"str dtype {_n}"] = lambda L, n=_n: str(_d(L, n))
    CASES[f"item {_n}"] = lambda L, n=_n: repr(_sample(L, n)[0].item())
    CASES[f"tolist {_n}"] = lambda L, n=_n: repr(_sample(L, n).tolist())
    CASES[f"element_size {_n}"] = lambda L, n=_n: [_sample(L, n).element_size(), _d(L, n).itemsize]
    CASES[f"flags {_n}"] = lambda L, n=_n: [
        _d(L, n).is_floating_point,
        _d(L, n).is_signed,
        _sample(L, n).is_floating_point(),
    ]
    CASES[f"requires_grad {_n}"] = lambda L, n=_n: _sample(L, n).requires_grad_()
    CASES[f"randint {_n}"] = lambda L, n=_n: L.randint(0, 1, (3,), dtype=_d(L, n))
    CASES[f"float {_n}"] = lambda L, n=_n: _sample(L, n).float()
    CASES[f"bool {_n}"] = lambda L, n=_n: _sample(L, n).bool()
    CASES[f"long {_n}"] = lambda L, n=_n: _sample(L, n).long()

CASES.update(
    {
        "int()": lambda L: L.tensor([1.9, -1.9]).int(),
        "short()": lambda L: L.tensor([1.9, -1.9]).short(),
        "char()": lambda L: L.tensor([1.9, -1.9]).char(),
        "byte()": lambda L: L.tensor([1.9, 250.0]).byte(),
        "half()": lambda L: L.tensor([1.0 / 3, 65504.0, 1e-8]).half(),
        "half rounding": lambda L: L.tensor([1.0 / 3, 2049.0]).half().double(),
        "half overflow": lambda L: L.tensor([70000.0]).half(),
        "type string": lambda L: L.tensor([1.5]).type("torch.IntTensor"),
        "type dtype": lambda L: L.tensor([1.5]).type(L.int8),
        "iinfo int8": lambda L: [L.iinfo(L.int8).max, L.iinfo(L.int8).min, L.iinfo(L.uint8).max],
        "iinfo int32": lambda L: repr(L.iinfo(L.int32)),
        "finfo half": lambda L: [
            L.finfo(L.float16).eps,
            L.finfo(L.float16).max,
            L.finfo(L.half).tiny,
        ],
        "aliases": lambda L: [L.int is L.int32, L.short is L.int16, L.half is L.float16],
        "default dtype half": lambda L: L.set_default_dtype(L.float16),
        "tensor uint8 negative": lambda L: L.tensor([-1], dtype=L.uint8),
        "tensor int8 overflow": lambda L: L.tensor([200], dtype=L.int8),
        "half requires grad": lambda L: L.tensor([1.0], dtype=L.half, requires_grad=True),
        "int requires grad": lambda L: L.tensor([1], dtype=L.int32, requires_grad=True),
        "zeros_like dtype": lambda L: L.zeros_like(L.ones(2), dtype=L.int16),
        "new_zeros": lambda L: _sample(L, "uint8").new_zeros(2),
        "new_tensor": lambda L: _sample(L, "int8").new_tensor([1, 2]),
        "empty int8 size": lambda L: L.empty(3, dtype=L.int8).shape,
    }
)

# promotion
for _a in ALL:
    for _b in ALL:
        if _a < _b:
            CASES[f"promote_types {_a} {_b}"] = lambda L, a=_a, b=_b: L.promote_types(
                _d(L, a), _d(L, b)
            )
for _a in SMALL:
    for _b in ALL:
        CASES[f"add {_a} {_b}"] = lambda L, a=_a, b=_b: _sample(L, a) + _sample(L, b, (1, 1, 0, 1))
    for _s in (2, 2.5, True, 300, -1):
        CASES[f"add scalar {_a} {_s!r}"] = lambda L, a=_a, s=_s: _sample(L, a) + s
    CASES[f"add 0-d {_a}"] = lambda L, a=_a: _sample(L, a) + L.tensor(2)
    CASES[f"add 0-d float {_a}"] = lambda L, a=_a: _sample(L, a) + L.tensor(2.5, dtype=L.float64)
    CASES[f"0-d {_a} plus float32"] = lambda L, a=_a: L.tensor(2, dtype=_d(L, a)) + L.ones(2)
    CASES[f"result_type {_a}"] = lambda L, a=_a: [
        L.result_type(_sample(L, a), 1),
        L.result_type(_sample(L, a), 1.0),
        L.result_type(_sample(L, a), L.tensor(1)),
    ]

# arithmetic and the functions every dtype meets
BINARY = {
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "floordiv": lambda x, y: x // y,
    "mod": lambda x, y: x % y,
    "pow": lambda x, y: x**y,
    "eq": lambda x, y: x == y,
    "lt": lambda x, y: x < y,
    "max": lambda x, y: x.maximum(y),
    "and": lambda x, y: x & y,
    "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y,
    "lshift": lambda x, y: x << y,
    "rshift": lambda x, y: x >> y,
    "where": lambda x, y: x.where(x > y, y),
    "atan2": lambda x, y: x.atan2(y),
    "matmul": lambda x, y: x.reshape(2, 2) @ y.reshape(2, 2),
    "dot": lambda x, y: x.dot(y),
    "cat": lambda x, y: _module(x).cat([x, y]),
}


def _module(x):
    """The library (torch or symgrad) a tensor belongs to."""
    import sys

    return sys.modules[type(x).__module__.split(".")[0]]


for _n in SMALL:
    for _op, _f in BINARY.items():
        CASES[f"{_op} {_n}"] = lambda L, n=_n, f=_f: f(_sample(L, n), _sample(L, n, (2, 7, 1, 1)))
    _top = 60000 if _n == "float16" else int(np.iinfo(_n).max)
    CASES[f"overflow add {_n}"] = lambda L, n=_n, m=_top: (
        _sample(L, n, (m, m - 1, 1, 0)) + _sample(L, n, (m, 2, 1, 0))
    )
    CASES[f"overflow mul {_n}"] = lambda L, n=_n, m=_top: _sample(L, n, (m, 16, 3, 0)) * 1000
    CASES[f"overflow neg {_n}"] = lambda L, n=_n, m=_top: -_sample(L, n, (m, 1, 0, 2))

UNARY = {
    "neg": lambda x: -x,
    "abs": lambda x: x.abs(),
    "exp": lambda x: x.exp(),
    "sqrt": lambda x: x.sqrt(),
    "sin": lambda x: x.sin(),
    "sigmoid": lambda x: x.sigmoid(),
    "floor": lambda x: x.floor(),
    "round": lambda x: x.round(),
    "sign": lambda x: x.sign(),
    "invert": lambda x: ~x,
    "clamp": lambda x: x.clamp(1, 4),
    "clamp float": lambda x: x.clamp(0.5, 4.5),
    "sum": lambda x: x.sum(),
    "sum dim": lambda x: x.reshape(2, 2).sum(0),
    "sum dtype": lambda x: x.sum(dtype=x.new_ones(1).dtype),
    "prod": lambda x: x.prod(),
    "cumsum": lambda x: x.cumsum(0),
    "mean": lambda x: x.mean(),
    "mean dtype": lambda x: x.float().mean(),
    "max": lambda x: x.max(),
    "max dim": lambda x: x.reshape(2, 2).max(1),
    "argmax": lambda x: x.argmax(),
    "sort": lambda x: x.sort(),
    "topk": lambda x: x.topk(2),
    "unique": lambda x: x.unique(),
    "std": lambda x: x.std(),
    "norm": lambda x: x.norm(),
    "softmax": lambda x: x.softmax(0),
    "index": lambda x: x[x.new_tensor([0, 2]).long()],
    "mask": lambda x: x[x > 1],
    "setitem": lambda x: x.clone().index_fill_(0, x.new_tensor([1]).long(), 9),
    "fill_ float": lambda x: x.clone().fill_(2.7),
    "add_ float": lambda x: x.clone().add_(1.5),
    "mul_ int": lambda x: x.clone().mul_(3),
    "div_": lambda x: x.clone().div_(2),
    "reciprocal": lambda x: x.reciprocal(),
    "square": lambda x: x.square(),
    "bincount": lambda x: x.bincount(),
    "count_nonzero": lambda x: x.count_nonzero(),
    "any": lambda x: x.any(),
    "nonzero": lambda x: x.nonzero(),
    "flip": lambda x: x.flip(0),
    "repeat": lambda x: x.repeat(2),
    "stack": lambda x: x.reshape(2, 2).t().contiguous(),
    "isnan": lambda x: x.isnan(),
    "relu": lambda x: x.relu(),
    "hash dtype": lambda x: {x.dtype: 1}[x.dtype],
}
for _n in SMALL:
    for _op, _f in UNARY.items():
        CASES[f"{_op} {_n}"] = lambda L, n=_n, f=_f: f(_sample(L, n))

# indexing with small integer index tensors
CASES.update(
    {
        "embedding int32": lambda L: L.nn.functional.embedding(
            L.tensor([1, 0], dtype=L.int32), L.eye(3)
        ),
        "one_hot int32": lambda L: L.nn.functional.one_hot(L.tensor([1], dtype=L.int32), 3),
        "cross_entropy int32": lambda L: L.nn.functional.cross_entropy(
            L.zeros(2, 3), L.tensor([1, 2], dtype=L.int32)
        ),
        "cross_entropy uint8": lambda L: L.nn.functional.cross_entropy(
            L.zeros(2, 3), L.tensor([1, 2], dtype=L.uint8)
        ),
        "linear half int": lambda L: L.nn.functional.linear(
            L.ones(2, 2, dtype=L.half), L.ones(2, 2)
        ),
        "linear half": lambda L: L.nn.functional.linear(
            L.ones(2, 2, dtype=L.half), L.ones(2, 2, dtype=L.half)
        ),
        "module half": lambda L: (lambda m: [m.weight.dtype, m(L.ones(1, 2, dtype=L.half))])(
            L.nn.Linear(2, 1)
            .requires_grad_(False)
            .apply(lambda m: (m.weight.fill_(0.3), m.bias.fill_(0.1)))
            .half()
        ),
        "module to int": lambda L: L.nn.Linear(2, 1).to(L.int32),
    }
)

INDEXING = {
    "getitem": lambda L, i: L.arange(5.0)[i],
    "setitem": lambda L, i: (lambda x: (x.__setitem__(i, 7.0), x)[1])(L.arange(5.0)),
    "index_select": lambda L, i: L.arange(5.0).index_select(0, i),
    "gather": lambda L, i: L.arange(5.0).gather(0, i),
    "scatter": lambda L, i: L.arange(5.0).scatter(0, i, 5.0),
    "scatter_add": lambda L, i: L.arange(5.0).scatter_add(0, i, L.ones(2)),
    "index_add": lambda L, i: L.arange(5.0).index_add(0, i, L.ones(2)),
    "take": lambda L, i: L.take(L.arange(5.0), i),
    "take_along_dim": lambda L, i: L.take_along_dim(L.arange(5.0), i),
    "index_fill": lambda L, i: L.arange(5.0).index_fill(0, i, 5.0),
    "index_copy": lambda L, i: L.arange(5.0).index_copy(0, i, L.ones(2)),
    "index_put": lambda L, i: L.arange(5.0).index_put((i,), L.ones(2)),
    "embedding": lambda L, i: L.nn.functional.embedding(i, L.eye(5)),
    "nll_loss": lambda L, i: L.nn.functional.nll_loss(L.zeros(2, 3), i),
    "grad": lambda L, i: (lambda x: L.autograd.grad(x[i].sum(), x))(
        L.arange(5.0, requires_grad=True)
    ),
}
for _n in ("int32", "int16", "int8", "uint8"):
    for _op, _f in INDEXING.items():
        CASES[f"{_op} index {_n}"] = lambda L, n=_n, f=_f: f(L, L.tensor([1, 0], dtype=_d(L, n)))
CASES.update(
    {
        "getitem uint8 mask": lambda L: L.arange(3.0)[L.tensor([1, 0, 1], dtype=L.uint8)],
        "setitem uint8 mask": lambda L: (
            lambda x: (x.__setitem__(L.tensor([1, 0, 1], dtype=L.uint8), 7.0), x)[1]
        )(L.arange(3.0)),
        "masked_fill uint8": lambda L: L.arange(3.0).masked_fill(
            L.tensor([1, 0, 1], dtype=L.uint8), 2.0
        ),
        "where uint8": lambda L: L.where(L.tensor([1, 0, 1], dtype=L.uint8), L.arange(3.0), 0.0),
        "masked_select uint8": lambda L: L.arange(3.0).masked_select(
            L.tensor([1, 0, 1], dtype=L.uint8)
        ),
    }
)

# the nn kernels' dtypes: PyTorch compiles each for some dtypes only (integer convolutions and
# max pooling keep the dtype, average pooling takes int64, adaptive pooling floats ...)
_X1 = ([[[3, 0, 5, 1]]],)
_X2 = ([[[[3, 0], [5, 1]]]],)
NN = {
    "max_pool1d": lambda F, x1, x2, x3: F.max_pool1d(x1, 2),
    "max_pool1d indices": lambda F, x1, x2, x3: F.max_pool1d(x1, 2, return_indices=True),
    "max_pool2d": lambda F, x1, x2, x3: F.max_pool2d(x2, 2),
    "max_pool3d": lambda F, x1, x2, x3: F.max_pool3d(x3, 1),
    "avg_pool1d": lambda F, x1, x2, x3: F.avg_pool1d(x1, 2),
    "avg_pool2d": lambda F, x1, x2, x3: F.avg_pool2d(x2 * 7, 2),
    "avg_pool3d": lambda F, x1, x2, x3: F.avg_pool3d(x3, 1),
    "adaptive_avg_pool1d": lambda F, x1, x2, x3: F.adaptive_avg_pool1d(x1, 1),
    "adaptive_avg_pool1d empty": lambda F, x1, x2, x3: F.adaptive_avg_pool1d(x1, 0),
    "adaptive_avg_pool2d": lambda F, x1, x2, x3: F.adaptive_avg_pool2d(x2, 1),
    "adaptive_avg_pool3d": lambda F, x1, x2, x3: F.adaptive_avg_pool3d(x3, 1),
    "adaptive_max_pool1d": lambda F, x1, x2, x3: F.adaptive_max_pool1d(x1, 1),
    "adaptive_max_pool2d": lambda F, x1, x2, x3: F.adaptive_max_pool2d(x2, 1),
    "adaptive_max_pool3d": lambda F, x1, x2, x3: F.adaptive_max_pool3d(x3, 1),
    "lp_pool1d": lambda F, x1, x2, x3: F.lp_pool1d(x1, 2, 2),
    "lp_pool2d": lambda F, x1, x2, x3: F.lp_pool2d(x2, 2, 2),
    "conv1d": lambda F, x1, x2, x3: F.conv1d(x1 * 40, x1.new_ones(1, 1, 2) * 3),
    "conv2d bias": lambda F, x1, x2, x3: F.conv2d(x2, x2.new_ones(1, 1, 1, 1), x2.new_ones(1)),
    "conv1d float weight": lambda F, x1, x2, x3: F.conv1d(x1, x1.new_ones(1, 1, 2).float()),
    "interpolate nearest 1d": lambda F, x1, x2, x3: F.interpolate(x1, scale_factor=2),
    "interpolate nearest-exact 2d": lambda F, x1, x2, x3: F.interpolate(
        x2, scale_factor=2, mode="nearest-exact"
    ),
    "interpolate nearest 3d": lambda F, x1, x2, x3: F.interpolate(x3, scale_factor=2),
    "interpolate linear": lambda F, x1, x2, x3: F.interpolate(x1, scale_factor=2, mode="linear"),
    "interpolate trilinear": lambda F, x1, x2, x3: F.interpolate(
        x3, scale_factor=2, mode="trilinear"
    ),
    "interpolate area": lambda F, x1, x2, x3: F.interpolate(x2, scale_factor=2, mode="area"),
    "pad reflect": lambda F, x1, x2, x3: F.pad(x1, (1, 1), mode="reflect"),
    "pad replicate 2d": lambda F, x1, x2, x3: F.pad(x2, (1, 1, 1, 1), mode="replicate"),
    "pad circular": lambda F, x1, x2, x3: F.pad(x1, (1, 1), mode="circular"),
    "unfold": lambda F, x1, x2, x3: F.unfold(x2, 1),
    "fold": lambda F, x1, x2, x3: F.fold(x1.new_ones(1, 4, 1), (2, 2), 2),
}
for _n in ("int64", "int32", "int8", "uint8", "bool", "float16"):
    for _op, _f in NN.items():
        CASES[f"nn {_op} {_n}"] = lambda L, n=_n, f=_f: f(
            L.nn.functional,
            L.tensor(*_X1, dtype=_d(L, n)),
            L.tensor(*_X2, dtype=_d(L, n)),
            L.ones(1, 1, 2, 2, 2, dtype=_d(L, n)),
        )

# kernels PyTorch does not compile for integer, bool or float16 inputs, and in-place ops whose
# result the tensor's dtype cannot hold
for _n in ("int32", "bool", "float16"):
    for _op, _f in {
        "logcumsumexp": lambda x: x.logcumsumexp(0),
        "quantile": lambda x: x.quantile(0.5),
        "nanquantile": lambda x: x.nanquantile(0.5),
        "pdist": lambda x: _module(x).nn.functional.pdist(x.reshape(2, 2)),
        "topk bool": lambda x: x.topk(1),
        "kthvalue": lambda x: x.kthvalue(1),
        "median": lambda x: x.median(),
        "median dim": lambda x: x.median(0),
        "trace": lambda x: x.reshape(2, 2).trace(),
        "trapezoid": lambda x: _module(x).trapezoid(x),
        "cumulative_trapezoid": lambda x: _module(x).cumulative_trapezoid(x),
        "mvlgamma": lambda x: x.mvlgamma(1),
        "isin": lambda x: _module(x).isin(x, x),
        "bincount": lambda x: x.bincount(),
        "repeat_interleave": lambda x: _module(x).repeat_interleave(x.short()),
        "std_mean": lambda x: _module(x).std_mean(x),
        "var_mean": lambda x: _module(x).var_mean(x),
        "sigmoid_": lambda x: x.clone().sigmoid_(),
        "round_": lambda x: x.clone().round_(),
        "square_": lambda x: x.clone().square_(),
        "exp_": lambda x: x.clone().exp_(),
        "is_signed": lambda x: [x.is_signed(), x.byte().is_signed()],
    }.items():
        CASES[f"kernel {_op} {_n}"] = lambda L, n=_n, f=_f: f(_sample(L, n, (3, 0, 5, 1)))
CASES.update(
    {
        "exp_ int8": lambda L: _sample(L, "int8").exp_(),
        "promote_types refusal": lambda L: L.promote_types(L.int8, 3),
        "can_cast refusal": lambda L: L.can_cast(L.ones(1), L.int8),
        "dtype constructor": lambda L: L.dtype(),
    }
)


# two tensors of different dtypes (a 0-d one counts only when of a higher kind)
PAIRED = (
    "bitwise_and",
    "bitwise_xor",
    "block_diag",
    "cdist",
    "dist",
    "cross",
    "hypot",
    "inner",
    "tensordot",
    "matmul",
    "logaddexp",
    "logaddexp2",
    "ldexp",
    "prelu",
    "atan2",
    "maximum",
    "gcd",
    "lcm_",
    "remainder",
    "floor_divide",
    "eq",
    "where",
)
DTYPE_PAIRS = (
    ("int32", "int32"),
    ("int8", "uint8"),
    ("float16", "float32"),
    ("int16", "float16"),
    ("uint8", "int64"),
    ("float16", "float16"),
    ("int32", "float64"),
    ("bool", "int8"),
)


def _paired(L, name, a, b, zero):
    x = L.tensor([[3, 0, 5], [1, 2, 7]], dtype=getattr(L, a))
    y = (
        L.tensor(2, dtype=getattr(L, b))
        if zero
        else L.tensor([[1, 2, 1], [2, 1, 3]], dtype=getattr(L, b))
    )
    if name == "cross":
        return L.cross(x, y.expand(2, 3), dim=1)
    if name == "where":
        return L.where(x > 1, x, y)
    if name == "cosine_similarity":
        return L.nn.functional.cosine_similarity(x, y)
    if name == "matmul":
        return [
            _outcome_of(L, lambda: x @ y.t()),
            _outcome_of(L, lambda: x[0] @ y.t()),
            _outcome_of(L, lambda: x @ y[0]),
            _outcome_of(L, lambda: x[None] @ y.t()),
        ]
    if name.endswith("_"):
        return getattr(x, name)(y)
    return getattr(L, name)(x, y)


def _outcome_of(L, run):
    return outcome(L, lambda _: run())


for _f in (*PAIRED, "cosine_similarity"):
    for _a, _b in DTYPE_PAIRS:
        for _zero in (False, True):
            CASES[f"paired {_f} {_a} {_b}{' 0-d' if _zero else ''}"] = (
                lambda L, f=_f, a=_a, b=_b, z=_zero: _paired(L, f, a, b, z)
            )

# in-place methods: the result type is checked before the kernel, numbers are copied as 0-d
CASES.update(
    {
        "bitwise_and_ int16 float16": lambda L: _sample(L, "int16").bitwise_and_(
            _sample(L, "float16")
        ),
        "bitwise_left_shift_ int16 float16": lambda L: _sample(L, "int16").bitwise_left_shift_(
            _sample(L, "float16")
        ),
        "bitwise_or_ int8 int16": lambda L: _sample(L, "int8").bitwise_or_(_sample(L, "int16")),
        "ldexp_ int8": lambda L: _sample(L, "int8").ldexp_(_sample(L, "int8")),
        "ldexp_ float16": lambda L: _sample(L, "float16").ldexp_(_sample(L, "int8")),
        "copy_ int": lambda L: _sample(L, "int8").copy_(300),
        "copy_ float": lambda L: _sample(L, "float16").copy_(1.5),
        "copy_ bool": lambda L: _sample(L, "float32").copy_(True),
        "copy_ node": lambda L: L.zeros(2, requires_grad=True).clone().copy_(2.5),
        "copy_ big int": lambda L: _sample(L, "int64").copy_(2**64 - 1),
        "copy_ too big": lambda L: _sample(L, "int64").copy_(2**70),
        "copy_ str": lambda L: _sample(L, "int64").copy_("a"),
        "mvlgamma float p": lambda L: L.ones(2).mvlgamma(1.5),
        "mvlgamma function float p": lambda L: L.mvlgamma(L.ones(2), 1.5),
        "mvlgamma bool p": lambda L: L.ones(2).mvlgamma(True),
    }
)


def _fixed(L, m, v=0.1):
    with L.no_grad():
        for p in m.parameters():
            p.copy_(L.linspace(-v, v, p.numel()).reshape(p.shape))
    return m


def _xin(L, *shape, dtype=None):
    n = 1
    for s in shape:
        n *= s
    return L.linspace(-1, 1, n).reshape(shape).to(dtype or L.float16)


# modules, optimizers, losses, printing, factories and ops on the new dtypes
MORE = {
    "linear half": lambda L: _fixed(L, L.nn.Linear(3, 2)).half()(_xin(L, 2, 3)),
    "linear half grad": lambda L: (lambda m: (m(_xin(L, 2, 3)).sum().backward(), m.weight.grad)[1])(
        _fixed(L, L.nn.Linear(3, 2)).half()
    ),
    "conv2d half": lambda L: _fixed(L, L.nn.Conv2d(1, 2, 2)).half()(_xin(L, 1, 1, 3, 3)),
    "conv2d half grad": lambda L: (
        lambda m: (m(_xin(L, 1, 1, 3, 3)).sum().backward(), m.weight.grad)[1]
    )(_fixed(L, L.nn.Conv2d(1, 2, 2)).half()),
    "batchnorm half": lambda L: _fixed(L, L.nn.BatchNorm1d(3)).half()(_xin(L, 4, 3)),
    "batchnorm half stats": lambda L: (
        lambda m: (m(_xin(L, 4, 3)), m.running_mean, m.running_var)[1:]
    )(_fixed(L, L.nn.BatchNorm1d(3)).half()),
    "layernorm half": lambda L: _fixed(L, L.nn.LayerNorm(3)).half()(_xin(L, 2, 3)),
    "layernorm half input float params": lambda L: _fixed(L, L.nn.LayerNorm(3))(
        _xin(L, 2, 3)
    ).detach(),
    "embedding half": lambda L: _fixed(L, L.nn.Embedding(4, 2)).half()(
        L.tensor([1, 3], dtype=L.int32)
    ),
    "softmax half": lambda L: _xin(L, 2, 3).softmax(1),
    "log_softmax half": lambda L: _xin(L, 2, 3).log_softmax(1),
    "cross_entropy half": lambda L: L.nn.functional.cross_entropy(_xin(L, 2, 3), L.tensor([0, 2])),
    "mse half": lambda L: L.nn.functional.mse_loss(_xin(L, 2, 3), _xin(L, 2, 3) * 0.5),
    "mse half float": lambda L: L.nn.functional.mse_loss(
        _xin(L, 2, 3), _xin(L, 2, 3, dtype=L.float32)
    ),
    "bce half": lambda L: L.nn.functional.binary_cross_entropy(
        _xin(L, 2, 3).sigmoid(), _xin(L, 2, 3).sigmoid()
    ),
    "gelu half": lambda L: L.nn.functional.gelu(_xin(L, 2, 3)),
    "silu half": lambda L: L.nn.functional.silu(_xin(L, 2, 3)),
    "relu int8": lambda L: L.nn.functional.relu(L.tensor([-1, 2], dtype=L.int8)),
    "leaky_relu int": lambda L: L.nn.functional.leaky_relu(L.tensor([-1, 2], dtype=L.int32)),
    "sgd half": lambda L: (
        lambda m: (
            L.optim.SGD(m.parameters(), lr=0.5, momentum=0.9).__class__,
            m(_xin(L, 2, 3)).sum().backward(),
            L.optim.SGD(m.parameters(), lr=0.5).step(),
            m.weight,
        )[3]
    )(_fixed(L, L.nn.Linear(3, 2)).half()),
    "adam half": lambda L: (
        lambda m, o: (
            m(_xin(L, 2, 3)).sum().backward(),
            o.step(),
            m.weight,
            o.state[m.weight]["exp_avg_sq"],
        )[2:]
    )(*(lambda m: (m, L.optim.Adam(m.parameters(), lr=0.1)))(_fixed(L, L.nn.Linear(3, 2)).half())),
    "dropout eval half": lambda L: L.nn.functional.dropout(_xin(L, 2, 3), 0.5, False),
    "clip_grad_norm half": lambda L: (
        lambda m: (
            m(_xin(L, 2, 3)).sum().backward(),
            L.nn.utils.clip_grad_norm_(m.parameters(), 0.1),
            m.weight.grad,
        )[1:]
    )(_fixed(L, L.nn.Linear(3, 2)).half()),
    "repr half big": lambda L: repr(L.tensor([1e4, 65504.0, 1e-5, -3.5], dtype=L.float16)),
    "repr half ints": lambda L: repr(L.tensor([1.0, 2.0, 3.0], dtype=L.float16)),
    "repr half 2d": lambda L: repr(L.tensor([[1e-3, 2.0], [3.0, 4.5]], dtype=L.float16)),
    "repr int8 neg": lambda L: repr(L.tensor([-128, 127, 0], dtype=L.int8)),
    "repr uint8 empty": lambda L: repr(L.tensor([], dtype=L.uint8)),
    "repr int32 0d": lambda L: repr(L.tensor(5, dtype=L.int32)),
    "repr half grad": lambda L: repr(L.tensor([1.5], dtype=L.float16, requires_grad=True) * 2),
    "repr half nan inf": lambda L: repr(
        L.tensor([float("nan"), float("inf"), 1.0], dtype=L.float16)
    ),
    "str int16": lambda L: str(L.tensor([[1, 2], [300, -4]], dtype=L.int16)),
    "half item": lambda L: repr(L.tensor(1 / 3, dtype=L.float16).item()),
    "half tolist": lambda L: repr(L.tensor([1 / 3], dtype=L.float16).tolist()),
    "int32 item": lambda L: repr(type(L.tensor(3, dtype=L.int32).item()).__name__),
    "uint8 float()": lambda L: float(L.tensor(200, dtype=L.uint8)),
    "int8 int()": lambda L: int(L.tensor(-5, dtype=L.int8)),
    "half bool()": lambda L: bool(L.tensor(0.5, dtype=L.float16)),
    "int32 index()": lambda L: [10, 20, 30][L.tensor(1, dtype=L.int32)],
    "uint8 index()": lambda L: [10, 20, 30][L.tensor(2, dtype=L.uint8)],
    "half index()": lambda L: [10, 20, 30][L.tensor(2, dtype=L.float16)],
    "arange half": lambda L: L.arange(0, 1, 0.25, dtype=L.float16),
    "linspace int8": lambda L: L.linspace(0, 10, 4, dtype=L.int8),
    "linspace half": lambda L: L.linspace(0, 1, 4, dtype=L.float16),
    "eye uint8": lambda L: L.eye(2, dtype=L.uint8),
    "full_like int16 float": lambda L: L.full_like(L.ones(2, dtype=L.int16), 2.7),
    "zeros_like half": lambda L: L.zeros_like(L.ones(2, dtype=L.float16)),
    "rand half": lambda L: L.rand(3, dtype=L.float16).dtype,
    "randn int": lambda L: L.randn(3, dtype=L.int32),
    "randint uint8 range": lambda L: L.randint(0, 300, (3,), dtype=L.uint8).dtype,
    "randperm int32": lambda L: L.randperm(4, dtype=L.int32).sort().values,
    "normal half": lambda L: L.empty(3, dtype=L.float16).normal_().dtype,
    "uniform int": lambda L: L.empty(3, dtype=L.int32).uniform_(),
    "random_ uint8": lambda L: L.empty(1000, dtype=L.uint8).random_().max() <= 255,
    "random_ int8 min": lambda L: L.empty(1000, dtype=L.int8).random_().min() >= 0,
    "bernoulli_ int": lambda L: L.empty(3, dtype=L.int32).bernoulli_(1.0),
    "fill half": lambda L: L.empty(2, dtype=L.float16).fill_(70000.0),
    "clamp int8 float bound": lambda L: L.tensor([-5, 5], dtype=L.int8).clamp(-2.5, 2.5),
    "clamp uint8 neg": lambda L: L.tensor([0, 5], dtype=L.uint8).clamp(min=-1),
    "abs int8 min": lambda L: L.tensor([-128], dtype=L.int8).abs(),
    "div int8 floor": lambda L: L.tensor([-7, 7], dtype=L.int8).div(2, rounding_mode="floor"),
    "div int8 trunc": lambda L: L.tensor([-7, 7], dtype=L.int8).div(2, rounding_mode="trunc"),
    "true div uint8": lambda L: L.tensor([7], dtype=L.uint8) / L.tensor([2], dtype=L.uint8),
    "pow int8 neg exponent": lambda L: L.tensor([2], dtype=L.int8) ** -1,
    "pow uint8 float": lambda L: L.tensor([2], dtype=L.uint8) ** 0.5,
    "mean dtype half": lambda L: L.tensor([1, 2], dtype=L.int16).mean(dtype=L.float16),
    "sum dtype half": lambda L: L.tensor([1.5, 2.5]).sum(dtype=L.float16),
    "cumsum dtype int8": lambda L: L.tensor([100, 100]).cumsum(0, dtype=L.int8),
    "prod int8 wrap": lambda L: L.tensor([100, 100], dtype=L.int8).prod(dtype=L.int8),
    "argmax uint8": lambda L: L.tensor([3, 200, 7], dtype=L.uint8).argmax(),
    "max uint8 dim": lambda L: L.tensor([[3, 200, 7]], dtype=L.uint8).max(1),
    "sort int8 desc": lambda L: L.tensor([3, -100, 7], dtype=L.int8).sort(descending=True),
    "unique half": lambda L: L.tensor([1.5, 1.5, 2.0], dtype=L.float16).unique(),
    "histc half": lambda L: L.tensor([1.5, 1.5, 2.0], dtype=L.float16).histc(2),
    "cat int8 int16": lambda L: L.cat([L.ones(1, dtype=L.int8), L.ones(1, dtype=L.int16)]),
    "cat half float": lambda L: L.cat([L.ones(1, dtype=L.float16), L.ones(1)]),
    "stack uint8 bool": lambda L: L.stack([L.ones(1, dtype=L.uint8), L.ones(1, dtype=L.bool)]),
    "where int8 float scalar": lambda L: L.where(
        L.tensor([True, False]), L.tensor([1, 2], dtype=L.int8), 2.5
    ),
    "where int8 int scalar": lambda L: L.where(
        L.tensor([True, False]), L.tensor([1, 2], dtype=L.int8), 300
    ),
    "masked_fill uint8 neg": lambda L: L.tensor([1, 2], dtype=L.uint8).masked_fill(
        L.tensor([True, False]), -1
    ),
    "masked_fill int8 overflow": lambda L: L.tensor([1, 2], dtype=L.int8).masked_fill(
        L.tensor([True, False]), 300
    ),
    "setitem uint8 neg": lambda L: (lambda x: (x.__setitem__(0, -1), x)[1])(
        L.tensor([1, 2], dtype=L.uint8)
    ),
    "setitem int8 float": lambda L: (lambda x: (x.__setitem__(0, 2.9), x)[1])(
        L.tensor([1, 2], dtype=L.int8)
    ),
    "setitem half tensor": lambda L: (lambda x: (x.__setitem__(0, L.tensor(1 / 3)), x)[1])(
        L.tensor([1, 2], dtype=L.float16)
    ),
    "index_put int8 float values": lambda L: L.tensor([1, 2], dtype=L.int8).index_put(
        (L.tensor([0]),), L.tensor([2.5])
    ),
    "scatter_add int8": lambda L: L.zeros(2, dtype=L.int8).scatter_add(
        0, L.tensor([0, 0]), L.tensor([100, 100], dtype=L.int8)
    ),
    "view dtype int8": lambda L: L.tensor([1.0]).view(L.int8),
    "view dtype half": lambda L: L.tensor([1, 2], dtype=L.int16).view(L.float16),
    "view dtype int32": lambda L: L.tensor([1.0, 2.0]).view(L.int32),
    "nonzero int32": lambda L: L.tensor([0, 3], dtype=L.int32).nonzero(),
    "logical int8": lambda L: L.logical_and(
        L.tensor([0, 3], dtype=L.int8), L.tensor([1, 1], dtype=L.uint8)
    ),
    "sign uint8": lambda L: L.tensor([0, 3], dtype=L.uint8).sign(),
    "neg uint8": lambda L: -L.tensor([0, 3], dtype=L.uint8),
    "floor int8": lambda L: L.tensor([-3], dtype=L.int8).floor(),
    "isfinite int8": lambda L: L.tensor([-3], dtype=L.int8).isfinite(),
    "nan_to_num half": lambda L: L.tensor(
        [float("inf"), float("nan")], dtype=L.float16
    ).nan_to_num(),
    "lerp half": lambda L: L.lerp(L.zeros(2, dtype=L.float16), L.ones(2, dtype=L.float16), 0.3),
    "addmm int8": lambda L: L.addmm(
        L.ones(2, 2, dtype=L.int8), L.ones(2, 2, dtype=L.int8) * 100, L.ones(2, 2, dtype=L.int8)
    ),
    "mm int32": lambda L: L.ones(2, 3, dtype=L.int32) @ L.ones(3, 2, dtype=L.int32),
    "bmm uint8": lambda L: L.bmm(
        L.ones(1, 2, 3, dtype=L.uint8) * 100, L.ones(1, 3, 2, dtype=L.uint8)
    ),
    "einsum half": lambda L: L.einsum(
        "ij,jk->ik", L.ones(2, 3, dtype=L.float16), L.ones(3, 2, dtype=L.float16)
    ),
    "inverse half": lambda L: L.linalg.inv(L.eye(2, dtype=L.float16)),
    "det int": lambda L: L.linalg.det(L.eye(2, dtype=L.int32)),
    "norm half": lambda L: L.tensor([3.0, 4.0], dtype=L.float16).norm(),
    "norm int dtype": lambda L: L.tensor([3, 4], dtype=L.int32).norm(dtype=L.float32),
}
CASES.update({f"more {k}": v for k, v in MORE.items()})

# gradients through float16
CASES.update(
    {
        "half grad": lambda L: (lambda x: L.autograd.grad((x * x).exp().sum(), x))(
            L.tensor([0.5, -1.25, 2.0], dtype=L.half, requires_grad=True)
        ),
        "half grad mixed": lambda L: (lambda x, w: L.autograd.grad((x * w).tanh().sum(), (x, w)))(
            L.tensor([0.5, -1.25], dtype=L.half, requires_grad=True),
            L.tensor([0.3, 0.7], requires_grad=True),
        ),
        "half node": lambda L: L.tensor([0.5], dtype=L.half, requires_grad=True).sigmoid(),
        "half backward": lambda L: (lambda x: ((x @ x.t()).sum().backward(), x.grad)[1])(
            L.tensor([[0.5, 1.0], [2.0, -1.0]], dtype=L.half, requires_grad=True)
        ),
        "half to float grad": lambda L: (lambda x: L.autograd.grad(x.float().sum() * 3, x))(
            L.tensor([0.5], dtype=L.half, requires_grad=True)
        ),
        "float to half grad": lambda L: (lambda x: L.autograd.grad(x.half().sum() * 3, x))(
            L.tensor([0.5], requires_grad=True)
        ),
        "int times float grad": lambda L: (
            lambda x: L.autograd.grad((x * L.tensor([2, 3], dtype=L.int16)).sum(), x)
        )(L.tensor([0.5, 1.0], requires_grad=True)),
        "half sum": lambda L: L.full((3000,), 0.1, dtype=L.half).sum(),
        "half mean": lambda L: L.full((3000,), 0.1, dtype=L.half).mean(),
        "half cumsum": lambda L: L.full((5,), 0.1, dtype=L.half).cumsum(0),
        "half matmul": lambda L: (
            L.full((2, 300), 0.1, dtype=L.half) @ L.full((300, 2), 0.3, dtype=L.half)
        ),
        "half print": lambda L: repr(L.tensor([1.0 / 3, 1000.5, 1e-3], dtype=L.half)),
        "half grad repr": lambda L: repr(L.tensor([0.5], dtype=L.half, requires_grad=True) * 2),
    }
)


# the fused products and linear layers refuse mixed dtypes, each with its kernel's message
CASES.update(
    {
        "addmm self and mat2": lambda L: L.addmm(L.ones(2, dtype=L.float64), L.ones(1, 3),
                                                 L.ones(3, 2)),
        "addmm mat1 and mat2": lambda L: L.addmm(L.ones(2), L.ones(1, 3, dtype=L.float64),
                                                 L.ones(3, 2)),
        "addmm int64 self": lambda L: L.addmm(L.ones(2, dtype=L.long), L.ones(1, 3),
                                              L.ones(3, 2)),
        "addmm_ mat1": lambda L: L.ones(2, 2).addmm_(L.ones(2, 3, dtype=L.float64),
                                                     L.ones(3, 2)),
        "addmv dtypes": lambda L: L.addmv(L.ones(2), L.ones(2, 3), L.ones(3, dtype=L.float64)),
        "baddbmm input": lambda L: L.baddbmm(L.ones(2, dtype=L.float64), L.ones(1, 1, 3),
                                             L.ones(1, 3, 2)),
        "baddbmm batches": lambda L: L.baddbmm(L.ones(2), L.ones(1, 1, 3),
                                               L.ones(1, 3, 2, dtype=L.float64)),
        "addbmm dtypes": lambda L: L.addbmm(L.ones(2), L.ones(1, 1, 3, dtype=L.float64),
                                            L.ones(1, 3, 2)),
        "addr promotes": lambda L: L.addr(L.ones(2, 2, dtype=L.float64), L.ones(2), L.ones(2)),
        "linear bias": lambda L: L.nn.functional.linear(L.ones(2, 2, 3), L.ones(2, 3),
                                                        L.ones(2, dtype=L.float64)),
        "linear weight": lambda L: L.nn.functional.linear(L.ones(3), L.ones(2, 3, dtype=L.float64),
                                                          L.ones(2, dtype=L.float64)),
        "bilinear dtypes": lambda L: L.nn.functional.bilinear(L.ones(1, 3), L.ones(1, 3),
                                                              L.ones(2, 3, 3),
                                                              L.ones(2, dtype=L.float64)),
        "lazy linear of another dtype": lambda L: L.nn.LazyLinear(2, dtype=L.float64)(
            L.ones(1, 3)),
    }
)

def record_all(L) -> dict:
    results = {}
    for name, case in CASES.items():
        results[name] = outcome(L, case)
        L.set_default_dtype(L.float32)
    return results


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    try:
        got = json.loads(json.dumps(outcome(t, CASES[name])))
    finally:
        t.set_default_dtype(t.float32)
    expected = RECORDED[name]
    half = "half" in name or "float16" in name
    assert_same(got, expected, rtol=1e-3 if half else 1e-6, atol=1e-3 if half else 1e-7)


# float16 graphs against sympy and against the same graph in float64


def _mixed_loss(x, w):
    return ((x * w).tanh() * x + (x * x).exp()).sum()


def test_float16_gradients_agree_with_sympy_and_with_float64():
    values = [0.5, -1.25, 0.75]
    x = t.tensor(values, dtype=t.half, requires_grad=True)
    w = t.tensor([0.3, 0.7, -0.2], requires_grad=True)
    loss = _mixed_loss(x, w)
    report = symbolic.check(loss)  # (raises GradientMismatch)
    assert (report.rtol, report.atol) == (1e-2, 1e-3)  # float16's, from the leaf x
    loss.backward()
    assert x.grad.dtype is t.float16 and w.grad.dtype is t.float32
    x64 = t.tensor(values, dtype=t.float64, requires_grad=True)
    w64 = w.detach().double().requires_grad_()
    _mixed_loss(x64, w64).backward()
    np.testing.assert_allclose(x.grad.double().numpy(), x64.grad.numpy(), rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(w.grad.double().numpy(), w64.grad.numpy(), rtol=1e-2, atol=1e-2)


def test_float16_gradients_agree_with_central_differences():
    x = t.tensor([0.5, -1.25, 0.75], dtype=t.float64, requires_grad=True)
    w = t.tensor([0.3, 0.7, -0.2], dtype=t.float64)
    h = 1e-6
    numeric = [
        (_mixed_loss(x.detach() + h * e, w) - _mixed_loss(x.detach() - h * e, w)).item() / (2 * h)
        for e in t.eye(3, dtype=t.float64)
    ]
    xh = x.detach().half().requires_grad_()
    _mixed_loss(xh, w.half()).backward()
    np.testing.assert_allclose(xh.grad.double().numpy(), numeric, rtol=1e-2, atol=1e-2)


def _scaled(rule, factor):
    return lambda xp, g, *rest, **params: factor * rule(xp, g, *rest, **params)


def test_a_wrong_rule_is_caught_in_a_float16_graph(monkeypatch):
    op = ops.elementwise.tanh
    monkeypatch.setattr(op, "vjp", tuple(_scaled(rule, 1.1) for rule in op.vjp))
    x = t.tensor([0.5, -1.25, 0.75], dtype=t.half, requires_grad=True)
    with pytest.raises(symbolic.GradientMismatch):
        symbolic.check(x.tanh().sum())


def test_tolerances_follow_the_least_precise_leaf_or_value():
    x = t.tensor([0.5], dtype=t.half, requires_grad=True)
    y = t.tensor([0.5], dtype=t.float64, requires_grad=True)
    assert default_tolerances(x.float().sum()) == (1e-2, 1e-3)
    assert default_tolerances((y * 2).sum()) == (1e-7, 1e-10)
    assert default_tolerances((y * y.float().exp()).sum()) == (1e-4, 1e-6)  # (a float32 value)


def test_uint8_bilinear_resampling_is_refused_not_approximated():
    # PyTorch's uint8 bilinear and bicubic kernels round in fixed point: symgrad says so
    x = t.tensor([[[[0, 255], [10, 200]]]], dtype=t.uint8)
    for mode in ("bilinear", "bicubic"):
        with pytest.raises(NotImplementedError, match="uint8 input"):
            t.nn.functional.interpolate(x, scale_factor=2, mode=mode)
    assert t.nn.functional.interpolate(x, scale_factor=2).dtype is t.uint8
