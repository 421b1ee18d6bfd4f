"""Reductions: sum and mean over all elements or over given dims (with keepdim); prod, var/std,
vector norms, logsumexp; the selections behind max/min/amax/amin; the scans cumsum/cumprod.

Selections get their indices from the methods layer (numerically, as the ``key`` param, an
advanced index): their forward is a plain gather, which replays on any namespace, and their VJP
sends the gradient to the selected element, or evenly among tied extremes where PyTorch does
(``mask`` marks the ties, ``count`` counts them per slice). Reduced dims are tuples of
non-negative ints; ``dim=None`` reduces all elements (PyTorch's ``...Backward0`` variants).
"""

from __future__ import annotations

import math

import numpy as np

from symgrad.ops.record import LazySamples, Op, Sample, Singularity, register
from symgrad.ops.shape import _take_op

SAMPLES = (
    Sample(((3,),)),
    Sample(((2, 3),)),
    Sample(((2, 3),), {"dim": (0,), "keepdim": False}),
    Sample(((2, 3),), {"dim": (1,), "keepdim": True}),
    Sample(((2, 3, 4),), {"dim": (0, 2), "keepdim": False}),
    Sample(((),)),
    Sample(((2, 3),), {"dim": (0, 1), "keepdim": True}),
    Sample(((),), {"dim": (), "keepdim": False}),
)


def _spread(xp, g, a, dim, keepdim):
    """Broadcast a reduced cotangent back over the reduced dims of ``a``."""
    if dim is not None and not keepdim:
        g = xp.expand_dims(g, dim)
    return xp.spread(g, a.shape)


def _count(shape, dim):
    return math.prod(shape) if dim is None else math.prod(shape[d] for d in dim)


def _by_dim(variant0: str, variant1: str):
    return lambda params, *values: variant0 if params.get("dim") is None else variant1


def _sum_vjp(xp, g, ans, a, dim=None, keepdim=False):
    if dim is None:  # (all elements: the common case, one call)
        return xp.spread(g, a.shape)
    return _spread(xp, g, a, dim, keepdim)


sum = register(Op(
    "sum", "SumBackward0",
    forward=lambda xp, a, dim=None, keepdim=False: xp.sum(a, axis=dim, keepdims=keepdim),
    vjp=(_sum_vjp,),
    node_name_of=_by_dim("SumBackward0", "SumBackward1"),
    samples=SAMPLES,
))

mean = register(Op(
    "mean", "MeanBackward0",
    forward=lambda xp, a, dim=None, keepdim=False: xp.mean(a, axis=dim, keepdims=keepdim),
    vjp=(lambda xp, g, ans, a, dim=None, keepdim=False:
         _spread(xp, g, a, dim, keepdim) / _count(a.shape, dim),),
    float_only=True,
    node_name_of=_by_dim("MeanBackward0", "MeanBackward1"),
    samples=SAMPLES,
))


def _dims_sample(shape, **params):
    return Sample((shape,), params)


# ---------------------------------------------------------------- prod
def _prod_grad(xp, g, ans, a, dim=None, keepdim=False):
    if dim is not None and not keepdim:
        g, ans = xp.expand_dims(g, dim), xp.expand_dims(ans, dim)
    return xp.prod_backward(g, ans, a, dim)


prod = register(Op(
    "prod", "ProdBackward0",
    # dim: None (all elements) or a 1-tuple (() for a 0-d tensor)
    forward=lambda xp, a, dim=None, keepdim=False: xp.prod(a, axis=dim, keepdims=keepdim),
    vjp=(_prod_grad,),
    saved=(0,),
    saves_output=True,
    node_name_of=_by_dim("ProdBackward0", "ProdBackward1"),
    samples=(Sample(((3,),)), Sample(((2, 3),)), Sample(((),)),
             _dims_sample((2, 3), dim=(0,), keepdim=False),
             _dims_sample((2, 3), dim=(1,), keepdim=True),
             _dims_sample((2, 3, 4), dim=(2,), keepdim=False),
             _dims_sample((), dim=(), keepdim=False)),
))


# ---------------------------------------------------------------- selections
def gather_key(positions, shape, dims, keepdim):
    """The advanced index that picks, in each slice of a tensor of ``shape`` along ``dims``, the
    element at ``positions`` (one int array per reduced dim, in the keepdim shape); ``a[key]``
    has the reduction's output shape."""
    key = []
    for k, size in enumerate(shape):
        if k in dims:
            part = positions[dims.index(k)]
        else:
            part = np.arange(size).reshape([-1 if j == k else 1 for j in range(len(shape))])
        if not keepdim:
            part = part.reshape([s for j, s in enumerate(part.shape) if j not in dims])
        key.append(part)
    return tuple(key)


def _selection_sample(shape, dims, keepdim=False, reduce_all=False, kinks=(), **params):
    """A sample selecting a fixed element of each slice (the rules hold for any selection;
    which element is the extreme one is the methods layer's business)."""
    keep_shape = tuple(1 if d in dims else s for d, s in enumerate(shape))
    sizes = [shape[d] for d in dims]
    flat = (np.arange(math.prod(keep_shape)) * 2 + 1) % math.prod(sizes)
    positions = np.unravel_index(flat.reshape(keep_shape), sizes) if dims else ()
    mask = np.zeros(shape, dtype=bool)
    mask[gather_key(positions, shape, dims, True)] = True
    params.update(key=gather_key(positions, shape, dims, keepdim), mask=mask,
                  count=np.ones(keep_shape, dtype=np.int64))
    if not reduce_all:
        params.update(dim=dims, keepdim=keepdim)
    return Sample((shape,), params, kinks=kinks)


def _gather(xp, a, key, mask=None, count=None, dim=None, keepdim=False):
    return a[key]


def _evenly(xp, g, ans, a, key, mask, count, dim=None, keepdim=False):
    # max()/min(): the gradient split evenly among the tied extremes, exact zeros elsewhere
    return xp.where(mask, _spread(xp, g, a, dim, keepdim) / count, 0.0)


def _by_count(xp, g, ans, a, key, mask, count, dim=None, keepdim=False):
    # amax/amin: (g / count) * mask as PyTorch computes it, so a nan g stays nan everywhere
    share = _spread(xp, g, a, dim, keepdim) / count
    return xp.where(mask, share, share * 0)


def _lower_extreme(largest):
    def lower(xp, a, key, mask=None, count=None, dim=None, keepdim=False):
        if mask is None:  # max(dim): the gradient goes to the returned index only
            return a[key]
        return xp.masked_extreme(a, mask, dim, keepdim, largest)

    return lower


def _selection_op(name, node_name, vjp, samples, saves=True):
    return register(Op(
        name, node_name,
        forward=_gather,
        lower=_lower_extreme(name in ("max", "amax")),
        vjp=(vjp,),
        saved=(0,) if saves else (),  # PyTorch saves self (and result) for the tie rule
        saves_output=saves,
        samples=samples,
    ))


# (built on first use: each sample's gather key and mask take real work)
_ALL_SAMPLES = LazySamples(lambda: (_selection_sample(s, tuple(range(len(s))), reduce_all=True)
                                    for s in ((3,), (2, 3), ())))
_AMAX_CASES = (((2, 3), (1,), False), ((2, 3), (0,), True), ((2, 3, 4), (0, 2), False),
               ((2, 3), (0, 1), True), ((), (), False))
_AMAX_SAMPLES = LazySamples(lambda: (_selection_sample(*case) for case in _AMAX_CASES))
_DIM_SAMPLES = LazySamples(lambda: (Sample(s.shapes, {"key": s.params["key"]}) for s in (
    _selection_sample((3,), (0,)), _selection_sample((2, 3), (1,)),
    _selection_sample((2, 3), (0,), True), _selection_sample((2, 3, 2), (1,)),
    _selection_sample((), ()))))

max = _selection_op("max", "MaxBackward1", _evenly, _ALL_SAMPLES)  # noqa: A001
min = _selection_op("min", "MinBackward1", _evenly, _ALL_SAMPLES)  # noqa: A001
amax = _selection_op("amax", "AmaxBackward0", _by_count, _AMAX_SAMPLES)
amin = _selection_op("amin", "AminBackward0", _by_count, _AMAX_SAMPLES)


def _to_selected(xp, g, ans, a, key):
    return xp.index_backward(g, a.shape, key)


max_dim = _selection_op("max_dim", "MaxBackward0", _to_selected, _DIM_SAMPLES, saves=False)
min_dim = _selection_op("min_dim", "MinBackward0", _to_selected, _DIM_SAMPLES, saves=False)


# ---------------------------------------------------------------- var, std
def _all(a, dim):
    return tuple(range(a.ndim)) if dim is None else dim


def _var_forward(xp, a, dim=None, correction=1, keepdim=False):
    deviation = a - xp.mean(a, axis=_all(a, dim), keepdims=True)
    dof = _count(a.shape, dim) - correction
    # dof <= 0 divides by zero: inf, or nan for 0 / 0 (PyTorch; the methods layer warns)
    return xp.sum(deviation * deviation, axis=dim, keepdims=keepdim) / (dof if dof > 0 else 0)


def _var_grad(xp, g, ans, a, dim=None, correction=1, keepdim=False):
    if dim is not None and not keepdim:
        g = xp.expand_dims(g, dim)
    mean = xp.mean(a, axis=_all(a, dim), keepdims=True)
    dof = _count(a.shape, dim) - correction
    if dim is None and dof <= 0:
        # PyTorch: 2 / 0 = inf times (a - mean), taken as nan where a == mean and inf elsewhere
        return g * xp.where(a == mean, math.nan, math.inf)
    # over given dims PyTorch does not clamp the dof: a negative one gives a finite gradient,
    # 0 gives inf (nan where a == mean); divided last, so that the symbolic rule stays exact
    return 2 * g * (a - mean) / dof


def _std_grad(xp, g, ans, a, dim=None, correction=1, keepdim=False):
    scaled = xp.where(ans == 0, 0.0, g / (ans * 2))  # a constant slice gets 0, not nan
    return _var_grad(xp, scaled, ans, a, dim, correction, keepdim)


_VAR_SAMPLES = (Sample(((5,),)), Sample(((2, 3),), {"correction": 2.5}),
                _dims_sample((2, 3), dim=(1,), correction=0, keepdim=False),
                _dims_sample((2, 3, 4), dim=(0, 2), correction=1, keepdim=True),
                _dims_sample((4, 2), dim=(0,), correction=-1, keepdim=False))


def _no_degrees_of_freedom(function: str) -> Singularity:
    """N - correction <= 0: the divisor of var/std is not positive."""

    def counts(params, shapes):
        shape, dim = shapes[0], params.get("dim")
        count = math.prod(shape[d] for d in (range(len(shape)) if dim is None else dim))
        return count, params.get("correction", 1)

    def hits(at, params, shapes):
        count, correction = counts(params, shapes)
        return count - correction <= 0

    def why(params, shapes):
        count, correction = counts(params, shapes)
        return (f"the divisor of {function}(), the number of elements minus the correction, is "
                f"{count} - {correction} <= 0: its value and derivative are inf there, or nan "
                "where every deviation is 0")

    return Singularity("no degrees of freedom", hits, why,
                       "reduce over more elements than the correction, or pass correction=0 "
                       "(the population variance) for a single element.", shows=None)


var = register(Op(
    "var", "VarBackward0",
    singular=(_no_degrees_of_freedom("var"),),
    forward=_var_forward,
    vjp=(_var_grad,),
    saved=(0,),
    float_only=True,
    samples=_VAR_SAMPLES,
))

std = register(Op(
    "std", "StdBackward0",
    singular=(_no_degrees_of_freedom("std"),),
    forward=lambda xp, a, dim=None, correction=1, keepdim=False:
    xp.sqrt(_var_forward(xp, a, dim, correction, keepdim)),
    vjp=(_std_grad,),
    saved=(0,),
    saves_output=True,
    float_only=True,
    samples=_VAR_SAMPLES,
))


# ---------------------------------------------------------------- vector norms
def _norm_forward(xp, a, ord, dim=None, keepdim=False, key=None, mask=None, count=None,
                  legacy=False):
    if key is not None:  # ord = +-inf: the largest / smallest |a| of each slice, selected
        return xp.abs(a[key])
    if ord == 2:
        return xp.sqrt(xp.sum(a * a, axis=dim, keepdims=keepdim))
    if ord == 1:
        return xp.sum(xp.abs(a), axis=dim, keepdims=keepdim)
    if ord == 0:
        return xp.sum(xp.where(a != 0, 1.0, 0.0), axis=dim, keepdims=keepdim)
    return xp.sum(xp.abs(a) ** ord, axis=dim, keepdims=keepdim) ** (1 / ord)


def _norm_grad(xp, g, ans, a, ord, dim=None, keepdim=False, key=None, mask=None, count=None,
               legacy=False):
    """PyTorch's norm_backward: 0 where the norm is 0, and at a == 0 for ord < 1."""
    if dim is not None and not keepdim:
        g, ans = xp.expand_dims(g, dim), xp.expand_dims(ans, dim)
    if key is not None:  # as amax of |a|: split evenly among the tied extremes
        share = g / count
        return xp.sign(a) * xp.where(mask, share, share * 0)
    if ord == 0:
        return xp.zeros_like(a)  # PyTorch gives no gradient at all (None); zeros here
    if ord == 1:
        return g * xp.sign(a)
    if ord == 2:  # g multiplies after the mask: a nan g at a zero norm stays nan (PyTorch)
        return g * xp.where(ans == 0, 0.0, a / ans)
    if ord < 1:
        scaled = xp.where(a == 0, 0.0, xp.sign(a) * xp.abs(a) ** (ord - 1))
        return scaled * g * ans ** (1 - ord)
    share = xp.where(ans == 0, 0.0, g / ans ** (ord - 1))
    if ord < 2:
        return xp.sign(a) * xp.abs(a) ** (ord - 1) * share
    return a * xp.abs(a) ** (ord - 2) * share


def _norm_samples(ord, kinks=(0.0,)):
    return (Sample(((3,),), {"ord": ord}, kinks=kinks),
            Sample(((2, 3),), {"ord": ord, "dim": (1,), "keepdim": False}, kinks=kinks),
            Sample(((2, 3),), {"ord": ord, "dim": (0, 1), "keepdim": True}, kinks=kinks),
            Sample(((),), {"ord": ord}, kinks=kinks))


def _norm_lower(xp, a, ord, dim=None, keepdim=False, key=None, mask=None, count=None,
                legacy=False):
    if key is not None:  # ord = +-inf: the tied extremes of |a|, as max/amax lower
        return xp.masked_extreme(xp.abs(a), mask, dim, keepdim, ord > 0)
    return _norm_forward(xp, a, ord, dim, keepdim)


# ``legacy``: the same norm as computed by PyTorch's older at::norm (F.pairwise_distance),
# whose node is named NormBackward1
vector_norm = register(Op(
    "vector_norm", "LinalgVectorNormBackward0",
    node_name_of=lambda params, a: "NormBackward1" if params.get("legacy")
    else "LinalgVectorNormBackward0",
    convention="0 at the zero vector (a subgradient), as PyTorch",
    forward=_norm_forward,
    lower=_norm_lower,
    vjp=(_norm_grad,),
    saved=(0,),
    saves_output=True,
    float_only=True,
    samples=LazySamples(lambda: (
        (Sample(((2, 3),), {"ord": 2.0, "dim": (1,), "keepdim": False, "legacy": True}),)
        + _norm_samples(2.0, ()) + _norm_samples(1.0) + _norm_samples(3.0)
        + _norm_samples(1.5) + _norm_samples(0.5) + _norm_samples(-1.0) + _norm_samples(0.0)
        + tuple(_selection_sample(shape, dims, keepdim, kinks=(0.0,), ord=o)
                for o in (math.inf, -math.inf) for shape, dims, keepdim in _AMAX_CASES))),
))


# ---------------------------------------------------------------- logsumexp
def _logsumexp_grad(xp, g, ans, a, dim, keepdim=False):
    if not keepdim:
        g, ans = xp.expand_dims(g, dim), xp.expand_dims(ans, dim)
    return g * xp.exp(a - ans)  # softmax; nan on rows of infinities, as PyTorch


logsumexp = register(Op(
    "logsumexp", "LogsumexpBackward0",
    forward=lambda xp, a, dim, keepdim=False: xp.logsumexp(a, dim, keepdims=keepdim),
    vjp=(_logsumexp_grad,),
    saved=(0,),
    saves_output=True,
    float_only=True,
    samples=(_dims_sample((3,), dim=(0,)), _dims_sample((2, 3), dim=(1,), keepdim=True),
             _dims_sample((2, 3, 4), dim=(0, 2)), _dims_sample((), dim=())),
))


# ---------------------------------------------------------------- scans
_SCAN_SAMPLES = (_dims_sample((4,), dim=0), _dims_sample((2, 3), dim=1),
                 _dims_sample((3, 2), dim=0), _dims_sample((2, 3, 2), dim=1),
                 _dims_sample((), dim=0))

def _cumsum_grad(xp, g, ans, a, dim):
    if not a.ndim:
        return g
    return xp.flip(xp.cumsum(xp.flip(g, (dim,)), dim), (dim,))  # sums from the end


cumsum = register(Op(
    "cumsum", "CumsumBackward0",
    forward=lambda xp, a, dim: xp.cumsum(a, dim),
    vjp=(_cumsum_grad,),
    samples=_SCAN_SAMPLES,
))

cumprod = register(Op(
    "cumprod", "CumprodBackward0",
    forward=lambda xp, a, dim: xp.cumprod(a, dim),
    vjp=(lambda xp, g, ans, a, dim: xp.cumprod_backward(g, ans, a, dim),),
    saved=(0,),
    saves_output=True,
    samples=_SCAN_SAMPLES,
))


def _logcumsumexp_grad(xp, g, ans, a, dim):
    # d ans_j / d a_i = exp(a_i - ans_j) for i <= j: exp(a) * (sums from the end of g / exp(ans))
    if not a.ndim:
        return g
    return xp.exp(a) * _cumsum_grad(xp, g * xp.exp(-ans), ans, a, dim)


logcumsumexp = register(Op(
    "logcumsumexp", "LogcumsumexpBackward0",
    forward=lambda xp, a, dim: xp.logcumsumexp(a, dim),
    lower=lambda xp, a, dim: xp.log(xp.cumsum(xp.exp(a), dim)),
    vjp=(_logcumsumexp_grad,),
    saved=(0,),
    saves_output=True,
    float_only=True,
    samples=_SCAN_SAMPLES,
))


# ---------------------------------------------------------------- sorts and order statistics
# sort, topk, kthvalue, median(dim), mode, cummax and cummin gather the elements the methods
# layer picked (``key``: an advanced index, computed numerically with PyTorch's choice among
# ties) and send each output's gradient to the element it came from, adding where one element
# was picked more than once (cummax). median() and nanmedian() split it evenly among the
# elements equal to the median, as max() does.
def _take_along_key(shape, dim, positions):
    """The advanced index reading ``positions`` (an int array, the output's shape) along
    ``dim`` of a tensor of ``shape``: ``a[key]`` is ``take_along_axis(a, positions, dim)``."""
    positions = np.asarray(positions)
    return tuple(positions if d == dim else
                 np.arange(positions.shape[d]).reshape([-1 if j == d else 1
                                                        for j in range(positions.ndim)])
                 for d in range(len(shape)))


def _picked_sample(shape, dim, positions):
    positions = np.asarray(positions)
    if not shape:
        return Sample(((),), {"key": ()})
    return Sample((shape,), {"key": _take_along_key(shape, dim, positions)})


sort = _take_op("sort", "SortBackward0", (
    _picked_sample((4,), 0, [2, 0, 3, 1]),
    _picked_sample((2, 3), 1, [[2, 1, 0], [0, 2, 1]]),
    _picked_sample((3, 2), 0, [[1, 2], [0, 0], [2, 1]]),
    _picked_sample((), 0, ()),
))
sort_stable = _take_op("sort_stable", "SortBackward1", sort.samples)  # sort(stable=...)
topk = _take_op("topk", "TopkBackward0", (
    _picked_sample((4,), 0, [3, 1]),
    _picked_sample((2, 3), 1, [[2], [0]]),
    _picked_sample((3, 2), 0, [[1, 0], [2, 1]]),
))
kthvalue = _take_op("kthvalue", "KthvalueBackward0", (
    _picked_sample((4,), 0, [2]),
    _picked_sample((2, 3), 1, [[1], [2]]),
))
median_dim = _take_op("median_dim", "MedianBackward1", (
    _picked_sample((3,), 0, [1]),
    _picked_sample((2, 3), 1, [[0], [2]]),
))
nanmedian_dim = _take_op("nanmedian_dim", "NanmedianBackward1", (
    _picked_sample((2, 3), 1, [[2], [1]]),
))
mode = _take_op("mode", "ModeBackward0", (
    _picked_sample((2, 3), 1, [[2], [0]]),
    _picked_sample((3, 2), 0, [[1, 2]]),
))
cummax = _take_op("cummax", "CummaxBackward0", (
    _picked_sample((4,), 0, [0, 0, 2, 2]),
    _picked_sample((2, 3), 1, [[0, 1, 1], [0, 0, 0]]),
))
cummin = _take_op("cummin", "CumminBackward0", (
    _picked_sample((4,), 0, [0, 1, 1, 3]),
    _picked_sample((3, 2), 0, [[0, 0], [1, 0], [1, 2]]),
))
median = _selection_op("median", "MedianBackward0", _evenly, _ALL_SAMPLES)
nanmedian = _selection_op("nanmedian", "NanmedianBackward0", _evenly, _ALL_SAMPLES)
