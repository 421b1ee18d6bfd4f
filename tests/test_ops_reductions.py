"""Reductions beyond sum/mean: prod, max/min/amax/amin/argmax/argmin, var/std, norms,
logsumexp, cumsum/cumprod -- PyTorch's values, node names, gradient conventions at zeros and
ties, dtypes and errors. The registry test checks every op's VJP against finite differences on
generic points; here are the edges, checked against closed forms (written independently, by
brute force) or finite differences."""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest

import symgrad as t

F64 = t.float64


def leaf(values, dtype=F64):
    return t.tensor(values, dtype=dtype, requires_grad=True)


def grad_of(fn, values, v=None, dtype=F64):
    """(output, gradient of <v, fn(x)>) at ``values``."""
    x = leaf(values, dtype)
    y = fn(x)
    y.backward(t.ones_like(y) if v is None else t.tensor(v, dtype=y.dtype))
    return y.detach().numpy(), x.grad.numpy()


def node(y) -> str:
    return type(y.grad_fn).__name__


def others_product(values: np.ndarray) -> np.ndarray:
    """d prod / d x_i by brute force: the product of every other element."""
    flat = values.reshape(-1)
    return np.array([math.prod(np.delete(flat, i)) for i in range(flat.size)]).reshape(
        values.shape)


def cumprod_vjp(values, v) -> np.ndarray:
    """The VJP of a 1-D cumprod by brute force: sum_{j >= i} v_j prod_{m <= j, m != i} x_m."""
    n = len(values)
    return np.array([sum(v[j] * math.prod(values[m] for m in range(j + 1) if m != i)
                         for j in range(i, n)) for i in range(n)])


def fd_second(fn, values, v, w, eps=1e-6):
    """d/dx <w, grad <v, fn(x)>> by central differences of the (first-order) gradient."""
    values = np.asarray(values, dtype=np.float64)

    def inner(point):
        _, g = grad_of(fn, point, v)
        return float(np.sum(w * g))

    out = np.zeros_like(values)
    for index in np.ndindex(values.shape):
        step = np.zeros_like(values)
        step[index] = eps
        out[index] = (inner(values + step) - inner(values - step)) / (2 * eps)
    return out


def second(fn, values, v, w):
    x = leaf(values)
    y = fn(x)
    (g,) = t.autograd.grad(y, [x], grad_outputs=t.tensor(v, dtype=F64), create_graph=True)
    (s,) = t.autograd.grad((g * t.tensor(w, dtype=F64)).sum(), [x])
    return s.numpy()


# ---------------------------------------------------------------- node names and spellings
SPELLINGS = [
    ("prod", lambda x: x.prod(), "ProdBackward0"),
    ("prod dim", lambda x: t.prod(x, 1), "ProdBackward1"),
    ("prod keepdim", lambda x: x.prod(-1, keepdim=True), "ProdBackward1"),
    ("max", lambda x: t.max(x), "MaxBackward1"),
    ("min", lambda x: x.min(), "MinBackward1"),
    ("max dim", lambda x: x.max(1).values, "MaxBackward0"),
    ("min dim", lambda x: t.min(x, dim=0)[0], "MinBackward0"),
    ("max other", lambda x: t.max(x, x * 2), "MaximumBackward0"),
    ("min other", lambda x: x.min(other=x * 2), "MinimumBackward0"),
    ("amax", lambda x: x.amax(), "AmaxBackward0"),
    ("amax dims", lambda x: t.amax(x, (0, 1)), "AmaxBackward0"),
    ("amin", lambda x: x.amin(1), "AminBackward0"),
    ("var", lambda x: x.var(), "VarBackward0"),
    ("var dim", lambda x: t.var(x, 1), "VarBackward0"),
    ("std", lambda x: x.std(0, correction=0), "StdBackward0"),
    ("var_mean", lambda x: t.var_mean(x, 1)[0], "VarMeanBackward0"),
    ("var_mean mean", lambda x: t.var_mean(x)[1], "VarMeanBackward0"),
    ("std_mean", lambda x: t.std_mean(x)[0], "StdMeanBackward0"),
    ("std_mean mean", lambda x: t.std_mean(x, 0)[1], "StdMeanBackward0"),
    ("norm", lambda x: x.norm(), "LinalgVectorNormBackward0"),
    ("norm p", lambda x: t.norm(x, 1, dim=1), "LinalgVectorNormBackward0"),
    ("norm inf", lambda x: x.norm(math.inf), "LinalgVectorNormBackward0"),
    ("vector_norm", lambda x: t.linalg.vector_norm(x, 3), "LinalgVectorNormBackward0"),
    ("linalg.norm", lambda x: t.linalg.norm(x), "LinalgVectorNormBackward0"),
    ("linalg.norm 1", lambda x: t.linalg.norm(x, 1), "AmaxBackward0"),
    ("linalg.norm -inf", lambda x: t.linalg.norm(x, -math.inf), "AminBackward0"),
    ("logsumexp", lambda x: x.logsumexp(1), "LogsumexpBackward0"),
    ("logsumexp fn", lambda x: t.logsumexp(x, (0, 1)), "LogsumexpBackward0"),
    ("cumsum", lambda x: x.cumsum(1), "CumsumBackward0"),
    ("cumsum fn", lambda x: t.cumsum(x, dim=0), "CumsumBackward0"),
    ("cumprod", lambda x: x.cumprod(-1), "CumprodBackward0"),
    ("cumsum_", lambda x: (x * 1).cumsum_(1), "CumsumBackward0"),
    ("cumprod_", lambda x: (x * 1).cumprod_(0), "CumprodBackward0"),
]


@pytest.mark.parametrize(("fn", "name"), [pytest.param(f, n, id=i) for i, f, n in SPELLINGS])
def test_node_names(fn, name):
    x = leaf([[1.0, 2.0, 3.0], [4.0, 6.0, 5.0]])
    assert node(fn(x)) == name


# ---------------------------------------------------------------- prod
@pytest.mark.parametrize("values", [[2.0, -1.5, 3.0, 4.0], [2.0, 0.0, 3.0, 4.0],
                                    [2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0]])
def test_prod_gradient_is_the_product_of_the_others_even_with_zeros(values):
    y, g = grad_of(lambda x: x.prod(), values)
    assert y == math.prod(values)
    np.testing.assert_allclose(g, others_product(np.array(values)), rtol=1e-15)


def test_prod_one_zero_and_two_zeros_as_pytorch():
    # PyTorch: one zero gets the product of the others, everything else 0; two zeros: all 0
    assert grad_of(lambda x: x.prod(), [2.0, 0.0, 3.0, 4.0])[1].tolist() == [0, 24, 0, 0]
    assert grad_of(lambda x: x.prod(), [2.0, 0.0, 3.0, 0.0])[1].tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize(("dim", "keepdim"), [(1, False), (0, True), (-1, True), (-2, False)])
def test_prod_along_a_dim_with_zeros_in_some_slices(dim, keepdim):
    values = np.array([[2.0, 0.0, 3.0], [1.0, 2.0, 3.0], [0.0, 0.0, 1.0], [0.0, 5.0, -2.0]])
    rng = np.random.default_rng(0)
    shape = list(values.shape)
    shape[dim] = 1
    v = rng.standard_normal(shape if keepdim else [s for s in shape if s != 1] or [1])
    y, g = grad_of(lambda x: x.prod(dim, keepdim=keepdim), values, v)
    np.testing.assert_array_equal(y, values.prod(dim, keepdims=keepdim))
    moved = np.moveaxis(values, dim, -1)
    expected = np.stack([others_product(row) for row in moved])
    expected = np.moveaxis(expected, -1, dim) * (v if keepdim else np.expand_dims(v, dim))
    np.testing.assert_allclose(g, expected, rtol=1e-14)


@pytest.mark.parametrize(("fn", "values"), [
    (lambda x: x.prod(), [2.0, 0.0, 3.0, 4.0]),
    (lambda x: x.prod(), [0.0, 1.5, 0.0, -2.0]),
    (lambda x: x.prod(), [1.5, -2.0, 0.5]),
    (lambda x: x.prod(1), [[2.0, 0.0, 3.0], [1.0, 2.0, 3.0], [0.0, 0.0, 1.0]]),
    (lambda x: x.prod(0, True), [[2.0, 0.0, 3.0], [1.0, 2.0, 3.0], [0.0, 0.0, 1.0]]),
])
def test_prod_second_derivative_with_zeros_matches_finite_differences(fn, values):
    rng = np.random.default_rng(1)
    out_shape = fn(t.tensor(values)).shape
    v, w = rng.standard_normal(out_shape), rng.standard_normal(np.shape(values))
    np.testing.assert_allclose(second(fn, values, v, w), fd_second(fn, values, v, w),
                               rtol=1e-6, atol=1e-6)


def test_prod_edges_and_dtypes():
    y, g = grad_of(lambda x: x.prod(0), 3.0)  # a 0-d tensor: dim 0 allowed, gradient 1
    assert y == 3.0 and g == 1.0
    assert t.tensor([1, 2, 3]).prod().dtype is t.int64
    assert t.tensor([True, True]).prod().item() == 1
    assert t.tensor([True, True]).prod().dtype is t.int64
    assert t.tensor([1, 2]).prod(dtype=t.float64).dtype is t.float64
    assert t.tensor([]).prod().item() == 1.0
    assert t.zeros(0, 3).prod(0).tolist() == [1.0, 1.0, 1.0]
    assert leaf([1.0, 2.0], t.float32).prod(0, dtype=t.float64).dtype is t.float64
    with pytest.raises(TypeError, match=r"^prod\(\) received an invalid combination"):
        t.ones(2, 3).prod(dim=(0, 1))
    with pytest.raises(TypeError, match=r"^prod\(\) received an invalid combination"):
        t.ones(2, 3).prod(keepdim=True)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range "
                                         r"of \[-2, 1\], but got 2\)"):
        t.ones(2, 3).prod(2)


# ---------------------------------------------------------------- max, min, amax, amin
def test_max_and_min_split_the_gradient_evenly_among_ties():
    assert grad_of(lambda x: x.max(), [1.0, 3.0, 3.0, 2.0, 3.0])[1].tolist() == pytest.approx(
        [0, 1 / 3, 1 / 3, 0, 1 / 3], rel=1e-15)
    assert grad_of(lambda x: x.min(), [1.0, 3.0, 1.0, 2.0])[1].tolist() == [0.5, 0, 0.5, 0]
    y, g = grad_of(lambda x: x.max(), [1.0, 3.0], v=-6.0)
    assert y == 3.0 and g.tolist() == [0, -6]


def test_max_of_nans_shares_the_gradient_among_the_nans():
    y, g = grad_of(lambda x: x.max(), [1.0, math.nan, 3.0, math.nan])
    assert math.isnan(y) and g.tolist() == [0, 0.5, 0, 0.5]


def test_amax_splits_ties_per_slice():
    values = [[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]]
    y, g = grad_of(lambda x: x.amax(1), values, v=[1.0, -2.0])
    assert y.tolist() == [3, 2] and g.tolist() == [[0, 0.5, 0.5], [-1, -1, 0]]
    y, g = grad_of(lambda x: x.amin(0, keepdim=True), [[1.0, 2.0, 3.0], [1.0, 2.0, 1.0]],
                   v=[[1.0, 2.0, 4.0]])
    assert y.tolist() == [[1, 2, 1]] and g.tolist() == [[0.5, 1, 0], [0.5, 1, 4]]
    _, g = grad_of(lambda x: x.amax((0, -1)), [[1.0, 3.0, 3.0], [2.0, 3.0, 1.0]])
    np.testing.assert_allclose(g, [[0, 1 / 3, 1 / 3], [0, 1 / 3, 0]], rtol=1e-15)


def test_amax_over_a_nan_slice_gives_nan_gradients_as_pytorch():
    _, g = grad_of(lambda x: x.amax(1), [[1.0, math.nan, 3.0], [1.0, 2.0, 3.0]])
    assert np.isnan(g[0]).all() and g[1].tolist() == [0, 0, 1]


def test_max_with_dim_returns_values_and_first_indices():
    x = leaf([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]])
    result = x.max(1)
    values, indices = result
    assert result.values is values and result.indices is indices and result[0] is values
    assert type(result).__name__ == "max" and isinstance(result, tuple) and len(result) == 2
    assert values.tolist() == [3, 2] and indices.tolist() == [1, 0]  # first of the ties
    assert indices.dtype is t.int64 and not indices.requires_grad
    (values * t.tensor([1.0, -2.0], dtype=F64)).sum().backward()
    assert x.grad.tolist() == [[0, 1, 0], [-2, 0, 0]]  # only the returned index
    assert repr(result) == ("symgrad.return_types.max(\nvalues=tensor([3., 2.], "
                            "dtype=torch.float64, grad_fn=<MaxBackward0>),\n"
                            "indices=tensor([1, 0]))").replace("torch", "symgrad")
    low = t.tensor([[1.0, 3.0, 1.0], [2.0, 1.0, 1.0]]).min(1)
    assert low.indices.tolist() == [0, 1] and type(low).__name__ == "min"
    assert repr(t.tensor([1.0, 2.0]).min(0)) == ("symgrad.return_types.min(\nvalues=tensor(1.),"
                                                 "\nindices=tensor(0))")
    assert pickle.loads(pickle.dumps(low)).indices.tolist() == [0, 1]


def test_max_with_dim_shapes_nans_and_0d():
    x = t.tensor([[1.0, math.nan, 3.0], [1.0, 2.0, 3.0]])
    result = x.max(1, keepdim=True)
    assert result.values.shape == (2, 1) and result.indices.tolist() == [[1], [2]]
    assert math.isnan(result.values[0, 0].item())
    assert x.min(dim=-1).indices.tolist() == [1, 0]
    scalar = leaf(2.0).max(0)
    assert scalar.values.item() == 2.0 and scalar.indices.item() == 0
    assert scalar.values.shape == () and scalar.indices.shape == ()
    assert t.zeros(0, 3).max(1).values.shape == (0,)
    # the indices are a copy: changing them does not move the recorded gradient
    y = leaf([1.0, 5.0, 2.0])
    found = y.max(0)
    found.indices.add_(1)
    found.values.backward()
    assert y.grad.tolist() == [0, 1, 0]


def test_max_with_a_tensor_is_maximum():
    a, b = t.tensor([1.0, 4.0]), t.tensor([3.0, 2.0])
    assert t.max(a, b).tolist() == [3, 4] and a.max(b).tolist() == [3, 4]
    assert t.min(a, other=b).tolist() == [1, 2]


def test_integer_and_bool_extremes():
    assert t.tensor([1, 5, 2]).max().item() == 5 and t.tensor([1, 5, 2]).max().dtype is t.int64
    assert t.tensor([True, False]).max().item() is True
    assert t.tensor([1, 5, 2]).amax().item() == 5 and t.tensor([4, 1]).min(0).indices.item() == 1


def test_selection_nodes_save_what_pytorch_saves():
    x = leaf([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]])
    for fn in (lambda y: y.max(), lambda y: y.amax(1).sum()):  # save self: in-place is caught
        y = x * 1
        out = fn(y)
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.backward()
    y = x * 1
    out = y.max(1).values.sum()  # saves only the indices
    y.add_(1)
    out.backward()


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: t.tensor([]).max(), RuntimeError,
     r"^max\(\): Expected reduction dim to be specified for input.numel\(\) == 0\. Specify"),
    (lambda: t.tensor([]).min(), RuntimeError, r"^min\(\): Expected reduction dim to be spec"),
    (lambda: t.tensor([]).amax(), RuntimeError, r"^amax\(\): Expected reduction dim to be spe"),
    (lambda: t.zeros(0, 3).amin(0), IndexError,
     r"^amin\(\): Expected reduction dim 0 to have non-zero size\.$"),
    (lambda: t.zeros(0, 3).max(0), IndexError,
     r"^max\(\): Expected reduction dim 0 to have non-zero size\.$"),
    (lambda: t.tensor([1.0, 2.0]).max(2), IndexError,
     r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got 2\)$"),
    (lambda: t.tensor(2.0).max(1), IndexError,
     r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)$"),
    (lambda: t.ones(2, 3).amax(-3), IndexError,
     r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got -3\)$"),
    (lambda: t.ones(2, 3).amax((1, -1)), RuntimeError,
     r"^dim 1 appears multiple times in the list of dims$"),
    (lambda: t.ones(2, 3).max(keepdim=True), TypeError,
     r"^max\(\) received an invalid combination of arguments - got \(keepdim=bool, \)"),
    (lambda: t.ones(2, 3).max(1.0), TypeError,
     r"^max\(\) received an invalid combination of arguments - got \(float\)"),
    (lambda: t.ones(2, 3).max(1, 2), TypeError,
     r"^max\(\): argument 'keepdim' \(position 2\) must be bool, not int$"),
])
def test_selection_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------- argmax, argmin
def test_argmax_and_argmin_take_the_first_extreme():
    x = t.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]])
    assert x.argmax().item() == 1 and t.argmin(x).item() == 0
    assert x.argmax(1).tolist() == [1, 0] and x.argmin(dim=0).tolist() == [0, 1, 1]
    assert x.argmax(1, keepdim=True).tolist() == [[1], [0]]
    assert x.argmax(keepdim=True).tolist() == [[1]]  # dim None with keepdim: all dims kept
    assert x.argmax(-1).dtype is t.int64 and x.argmax().grad_fn is None
    assert t.tensor([1.0, math.nan, 3.0]).argmax().item() == 1  # nan is the extreme
    assert t.tensor(2.0).argmax(0).item() == 0 and t.tensor([4, 9]).argmax().item() == 1
    assert not leaf([1.0, 2.0]).argmax().requires_grad


def test_argmax_errors():
    with pytest.raises(RuntimeError, match=r"^argmax\(\): does not support bool input$"):
        t.tensor([True]).argmax()
    with pytest.raises(IndexError, match=r"^argmin\(\): Expected reduction dim to be specified "
                                         r"for input.numel\(\) == 0\.$"):
        t.tensor([]).argmin()
    with pytest.raises(IndexError, match=r"^argmax\(\): Expected reduction dim 0 to have "):
        t.zeros(0, 3).argmax(0)
    with pytest.raises(IndexError, match=r"^Dimension out of range"):
        t.ones(2, 3).argmax(5)


# ---------------------------------------------------------------- var, std
B = [[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]


@pytest.mark.parametrize("kwargs", [{}, {"correction": 0}, {"correction": 2.5},
                                    {"correction": -1}, {"unbiased": False}, {"dim": 1},
                                    {"dim": (0,), "correction": 0, "keepdim": True},
                                    {"dim": [0, 1], "keepdim": True}])
def test_var_and_std_closed_forms(kwargs):
    values = np.array(B)
    dim = kwargs.get("dim")
    axes = None if dim is None else tuple(dim) if isinstance(dim, list | tuple) else dim
    correction = kwargs.get("correction", 0 if kwargs.get("unbiased") is False else 1)
    keepdim = kwargs.get("keepdim", False)
    count = values.size if axes is None else values.shape[axes] if isinstance(axes, int) \
        else math.prod(values.shape[a] for a in axes)
    deviation = values - values.mean(axis=axes, keepdims=True)
    expected = (deviation ** 2).sum(axis=axes, keepdims=keepdim) / (count - correction)
    y, g = grad_of(lambda x: x.var(**kwargs), B)
    np.testing.assert_allclose(y, expected, rtol=1e-14)
    np.testing.assert_allclose(g, 2 * deviation / (count - correction), rtol=1e-14)
    y, g = grad_of(lambda x: x.std(**kwargs), B)
    spread = np.sqrt(expected)
    np.testing.assert_allclose(y, spread, rtol=1e-14)
    spread = spread if keepdim or axes is None else np.expand_dims(spread, axes)
    np.testing.assert_allclose(g, deviation / ((count - correction) * spread), rtol=1e-14)


def test_var_legacy_positional_arguments():
    x = t.tensor(B)
    assert x.var(False).item() == pytest.approx(x.var(correction=0).item())
    assert x.var(1, False, True).shape == (2, 1)
    assert t.var(x, 1).tolist() == pytest.approx([7 / 3, 28 / 3])
    assert x.var(keepdim=True).shape == (1, 1)


def test_std_of_a_constant_slice_has_zero_gradient():
    _, g = grad_of(lambda x: x.std(), [2.0, 2.0, 2.0])
    assert g.tolist() == [0, 0, 0]
    _, g = grad_of(lambda x: x.std(1), [[2.0, 2.0], [1.0, 3.0]])
    assert g.tolist() == [[0, 0], [-1 / math.sqrt(2), 1 / math.sqrt(2)]]


def test_var_with_no_degrees_of_freedom_follows_pytorch():
    with pytest.warns(UserWarning, match=r"^var\(\): degrees of freedom is <= 0"):
        y, g = grad_of(lambda x: x.var(correction=3), [-5.0, 0.0, 4.0])
    # over all elements: inf, and an inf gradient (nan where x equals the mean), as PyTorch
    assert y == math.inf and g.tolist() == [math.inf] * 3
    with pytest.warns(UserWarning):
        _, g = grad_of(lambda x: x.var(correction=3), [-5.0, 0.0, 5.0])
    assert g[0] == g[2] == math.inf and math.isnan(g[1])
    # over given dims PyTorch keeps the negative dof in the gradient: finite
    with pytest.warns(UserWarning):
        y, g = grad_of(lambda x: x.var(0, correction=3), [[-5.0, 0.0], [1.0, 2.0]])
    assert y.tolist() == [math.inf, math.inf] and g.tolist() == [[6, 2], [-6, -2]]
    with pytest.warns(UserWarning, match=r"^std\(\): degrees of freedom"):
        y, g = grad_of(lambda x: x.std(), 2.0)  # a 0-d tensor: 0 / 0
    assert math.isnan(y) and math.isnan(g)
    with pytest.warns(UserWarning):
        assert math.isnan(t.tensor([]).var().item())


def test_var_mean_and_std_mean():
    variance, mean = t.var_mean(leaf(B), 1, keepdim=True)
    assert variance.reshape(-1).tolist() == pytest.approx([7 / 3, 28 / 3])
    assert mean.reshape(-1).tolist() == pytest.approx([7 / 3, 17 / 3])
    spread, mean = t.std_mean(leaf([1.0, 3.0]), correction=0)
    assert spread.item() == 1.0 and mean.item() == 2.0
    assert node(spread) == node(mean) == "StdMeanBackward0"
    with pytest.warns(UserWarning, match=r"^var_mean\(\): degrees of freedom"):
        variance, mean = t.var_mean(t.tensor([1.0]))
    assert math.isnan(variance.item()) and mean.item() == 1.0
    assert not hasattr(t.Tensor, "var_mean")  # a function only, as in PyTorch


def test_var_errors():
    with pytest.raises(RuntimeError, match=r"^std and var only support floating point"):
        t.tensor([1, 2]).var()
    with pytest.raises(RuntimeError, match=r"^std and var only support floating point"):
        t.tensor([1, 2]).std()
    with pytest.raises(TypeError, match=r"^var\(\) received an invalid combination of "
                                        r"arguments - got \(int, correction=int, unbiased=bool\)"):
        t.tensor(B).var(1, unbiased=True, correction=1)
    with pytest.raises(IndexError, match=r"^Dimension out of range"):
        t.tensor(B).var(2)


# ---------------------------------------------------------------- norms
N = [[3.0, -4.0, 0.0], [1.0, -1.0, 1.0]]


@pytest.mark.parametrize("p", [2, 1, 3, 1.5, 0.5, -1, -0.5, 2.5])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_norm_closed_forms(p, dim):
    values = np.array([[3.0, -4.0, 0.5], [1.0, -1.5, 2.0]])
    axes = dim if dim is None or isinstance(dim, tuple) else (dim,)
    expected = (np.abs(values) ** p).sum(axis=axes) ** (1 / p)
    y, g = grad_of(lambda x: x.norm(p, dim=dim), values)
    np.testing.assert_allclose(y, expected, rtol=1e-13)
    norm = expected if axes is None else np.expand_dims(expected, axes)
    np.testing.assert_allclose(g, np.sign(values) * (np.abs(values) / norm) ** (p - 1),
                               rtol=1e-12)


def test_norm_at_zero_has_zero_gradient():
    for p in (2, 1, 3, 1.5, 0.5, -1, math.inf, -math.inf, "fro", 0):
        y, g = grad_of(lambda x, p=p: x.norm(p), [0.0, 0.0, 0.0])
        assert y == 0 and g.tolist() == [0, 0, 0], p
    # below 1, elements at zero get 0 (not inf * 0); with negative p the norm itself is 0
    _, g = grad_of(lambda x: x.norm(0.5), [1.0, 0.0, 4.0])
    assert g.tolist() == [3, 0, 1.5]
    y, g = grad_of(lambda x: x.norm(-1), [1.0, 0.0, 3.0])
    assert y == 0 and g.tolist() == [0, 0, 0]


def test_inf_norms_split_the_gradient_among_ties_with_signs():
    y, g = grad_of(lambda x: x.norm(math.inf), [3.0, -3.0, 1.0])
    assert y == 3 and g.tolist() == [0.5, -0.5, 0]
    y, g = grad_of(lambda x: t.linalg.vector_norm(x, -math.inf), [1.0, -1.0, 3.0])
    assert y == 1 and g.tolist() == [0.5, -0.5, 0]
    y, g = grad_of(lambda x: x.norm(math.inf, dim=1), N, v=[1.0, 3.0])
    assert y.tolist() == [4, 1] and g.tolist() == [[0, -1, 0], [1, -1, 1]]


def test_norm_p_values_and_conventions():
    x = t.tensor(N)
    assert x.norm().item() == pytest.approx(math.sqrt(28))
    assert x.norm("fro", dim=1).tolist() == pytest.approx([5, math.sqrt(3)])
    assert x.norm(p=None).item() == pytest.approx(math.sqrt(28))
    assert x.norm(0).item() == 5 and x.norm(0, dim=0).tolist() == [2, 2, 1]
    assert x.norm(dim=-1, keepdim=True).shape == (2, 1)
    assert t.tensor(-3.0).norm().item() == 3 and t.tensor([]).norm().item() == 0
    assert t.zeros(0, 2).norm(math.inf, dim=1).shape == (0,)
    _, g = grad_of(lambda x: x.norm(0), N)
    assert g.tolist() == [[0, 0, 0], [0, 0, 0]]  # PyTorch leaves .grad None here
    half = leaf(N, t.float32)
    assert half.norm().dtype is t.float32 and half.norm(dtype=F64).dtype is F64


def test_linalg_norms():
    a = t.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert t.linalg.norm(a).item() == pytest.approx(math.sqrt(30))
    assert t.linalg.norm(a, 1).item() == 6 and t.linalg.norm(a, -1).item() == 4
    assert t.linalg.norm(a, math.inf).item() == 7 and t.linalg.norm(a, -math.inf).item() == 3
    assert t.linalg.norm(a, "fro").item() == pytest.approx(math.sqrt(30))
    assert t.linalg.norm(a, 3, dim=1).tolist() == pytest.approx([9 ** (1 / 3), 91 ** (1 / 3)])
    assert t.linalg.norm(a[0], math.inf).item() == 2
    assert t.linalg.norm(a, 1, dim=(1, 0), keepdim=True).tolist() == [[7.0]]
    assert t.linalg.matrix_norm(a.reshape(1, 2, 2), 1).tolist() == [6]
    _, g = grad_of(lambda x: t.linalg.norm(x, 1), [[1.0, -2.0], [3.0, 4.0]])
    assert g.tolist() == [[0, -1], [0, 1]]  # the largest column sum's column, signed


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: t.tensor([1, 2]).norm(), RuntimeError,
     r"^linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long$"),
    (lambda: t.ones(2).norm("abc"), RuntimeError, r"^linalg.matrix_norm: Order abc not "),
    (lambda: t.ones(2, dtype=F64).norm(dtype=t.float32), RuntimeError,
     r"^linalg.vector_norm: the dtype of the input \(Double\) should be convertible without "
     r"narrowing to the specified dtype \(Float\)$"),
    (lambda: t.linalg.vector_norm(t.ones(2), "fro"), TypeError,
     r"^linalg_vector_norm\(\): argument 'ord' \(position 2\) must be Number, not str$"),
    (lambda: t.linalg.vector_norm(t.tensor([]), math.inf), RuntimeError,
     r"^linalg.vector_norm cannot compute the inf norm on an empty tensor because"),
    (lambda: t.linalg.vector_norm(t.zeros(0, 2), -1, dim=0), RuntimeError,
     r"^linalg.vector_norm cannot compute the -1 norm on the dimension 0because"),
    (lambda: t.zeros(2, 2, 2).norm("fro", dim=(0, 1, 2)), RuntimeError,
     r"^linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2$"),
    (lambda: t.linalg.norm(t.zeros(2, 2, 2), 1), RuntimeError,
     r"^linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.$"),
    (lambda: t.linalg.norm(t.ones(2), "fro"), RuntimeError,
     r"^linalg.matrix_norm: The input tensor A must have at least 2 dimensions.$"),
    (lambda: t.linalg.matrix_norm(t.ones(2, 2), 3), RuntimeError,
     r"^linalg.matrix_norm: Order 3 not supported.$"),
    (lambda: t.ones(2, 3).norm(dim=2), IndexError, r"^Dimension out of range"),
])
def test_norm_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------- logsumexp
def test_logsumexp_is_stable_and_its_gradient_is_the_softmax():
    values = [[1.0, 2.0, 3.0], [1000.0, 1000.0, -math.inf]]
    y, g = grad_of(lambda x: x.logsumexp(1), values, v=[1.0, 2.0])
    assert y[0] == pytest.approx(math.log(math.exp(1) + math.exp(2) + math.exp(3)), rel=1e-15)
    assert y[1] == 1000 + math.log(2)
    e = np.exp(np.array(values[0]) - 3.0)
    np.testing.assert_allclose(g[0], e / e.sum(), rtol=1e-15)
    assert g[1].tolist() == pytest.approx([1, 1, 0], rel=1e-12)


def test_logsumexp_of_infinite_rows_as_pytorch():
    values = [[-math.inf, -math.inf], [math.inf, 1.0], [math.inf, math.inf]]
    y, g = grad_of(lambda x: x.logsumexp(1), values)
    assert y.tolist() == [-math.inf, math.inf, math.inf]
    assert np.isnan(g[0]).all() and math.isnan(g[1, 0]) and g[1, 1] == 0 and np.isnan(g[2]).all()
    assert t.zeros(0, 3).logsumexp(0).tolist() == [-math.inf] * 3


def test_logsumexp_dims_and_dtypes():
    x = t.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.logsumexp((0, 1)).item() == pytest.approx(
        math.log(sum(math.exp(v) for v in (1, 2, 3, 4))))
    assert x.logsumexp(-1, keepdim=True).shape == (2, 1)
    assert t.tensor([1, 2, 3]).logsumexp(0).dtype is t.float32
    y, g = grad_of(lambda z: z.logsumexp(0), 3.0)
    assert y == 3.0 and g == 1.0
    with pytest.raises(TypeError, match=r'^logsumexp\(\) missing 1 required positional '
                                        r'arguments: "dim"$'):
        x.logsumexp()
    with pytest.raises(TypeError, match=r"^logsumexp\(\): argument 'dim' \(position 1\) must "
                                        r"be tuple of ints, not NoneType$"):
        x.logsumexp(None)
    with pytest.raises(IndexError, match=r"^Dimension out of range"):
        x.logsumexp(2)


# ---------------------------------------------------------------- cumsum, cumprod
def test_cumsum_gradient_sums_from_the_end():
    y, g = grad_of(lambda x: x.cumsum(1), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
                   v=[[1.0, 2.0, 3.0], [1.0, -1.0, 2.0]])
    assert y.tolist() == [[1, 3, 6], [4, 9, 15]] and g.tolist() == [[6, 5, 3], [2, 1, 2]]
    _, g = grad_of(lambda x: t.cumsum(x, dim=0), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                   v=[[1.0, 0.0], [2.0, 1.0], [3.0, 5.0]])
    assert g.tolist() == [[6, 6], [5, 6], [3, 5]]


@pytest.mark.parametrize("values", [[2.0, 3.0, -1.5, 4.0, 5.0], [2.0, 3.0, 0.0, 4.0, 5.0],
                                    [2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 3.0, 2.0, 4.0, 5.0],
                                    [2.0, 3.0, 2.0, 4.0, 0.0], [0.0, 0.0, 0.0, 1.0, 2.0]])
def test_cumprod_gradient_is_exact_with_zeros(values):
    v = [1.0, -2.0, 3.0, 0.5, 2.0]
    y, g = grad_of(lambda x: x.cumprod(0), values, v=v)
    np.testing.assert_array_equal(y, np.cumprod(values))
    np.testing.assert_allclose(g, cumprod_vjp(values, v), rtol=1e-14, atol=1e-14)


def test_cumprod_with_zeros_pinned_against_pytorch():
    v = [1.0, -2.0, 3.0, 0.5, 2.0]
    assert grad_of(lambda x: x.cumprod(0), [2.0, 3.0, 0.0, 4.0, 5.0], v=v)[1].tolist() == [
        -5, -4, 270, 0, 0]
    assert grad_of(lambda x: x.cumprod(0), [2.0, 0.0, 3.0, 0.0, 5.0], v=v)[1].tolist() == [
        1, 14, 0, 0, 0]


def test_cumprod_along_a_dim_with_zeros_in_some_slices():
    values = np.array([[2.0, 0.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [0.0, 2.0, 0.0, 3.0]])
    v = np.random.default_rng(2).standard_normal(values.shape)
    for dim in (1, 0):
        _, g = grad_of(lambda x, dim=dim: x.cumprod(dim), values, v=v)
        rows, weights = np.moveaxis(values, dim, -1), np.moveaxis(v, dim, -1)
        expected = np.array([cumprod_vjp(r, w) for r, w in zip(rows, weights, strict=True)])
        np.testing.assert_allclose(g, np.moveaxis(expected, -1, dim), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize(("fn", "values"), [
    (lambda x: x.cumprod(0), [2.0, 3.0, 0.0, 4.0, 5.0]),
    (lambda x: x.cumprod(0), [2.0, 0.0, 3.0, 0.0, 5.0]),
    (lambda x: x.cumprod(0), [1.5, -2.0, 0.5, 3.0]),
    (lambda x: x.cumprod(1), [[2.0, 0.0, 3.0], [1.0, 2.0, 3.0], [0.0, 2.0, 0.0]]),
    (lambda x: x.cumprod(0), [[2.0, 0.0, 3.0], [1.0, 2.0, 3.0], [0.0, 2.0, 0.0]]),
])
def test_scan_second_derivatives_match_finite_differences(fn, values):
    rng = np.random.default_rng(3)
    v, w = rng.standard_normal(np.shape(values)), rng.standard_normal(np.shape(values))
    np.testing.assert_allclose(second(fn, values, v, w), fd_second(fn, values, v, w),
                               rtol=1e-6, atol=1e-6)


def test_scan_edges_and_dtypes():
    y, g = grad_of(lambda x: x.cumprod(0), 3.0)
    assert y == 3 and g == 1
    y, g = grad_of(lambda x: x.cumsum(-1), 3.0)
    assert y == 3 and g == 1
    assert t.tensor([1, 2]).cumsum(0).dtype is t.int64
    assert t.tensor([True, True]).cumsum(0).tolist() == [1, 2]
    assert t.tensor([True, True]).cumsum(0).dtype is t.int64
    assert t.tensor([True, True]).cumprod(0).tolist() == [1, 1]
    assert t.tensor([1, 2]).cumsum(0, dtype=t.float32).dtype is t.float32
    assert t.zeros(0, 3).cumprod(0).shape == (0, 3)
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    y.cumprod_(1)
    assert y.tolist() == [[1, 2], [3, 12]] and node(y) == "CumprodBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [[3, 1], [5, 3]]
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.cumsum_(0)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: t.ones(2, 3).cumsum(), TypeError,
     r'^cumsum\(\) missing 1 required positional arguments: "dim"$'),
    (lambda: t.ones(2, 3).cumprod(None), TypeError,
     r"^cumprod\(\): argument 'dim' \(position 1\) must be int, not NoneType$"),
    (lambda: t.ones(2, 3).cumsum((0,)), TypeError, r"must be int, not tuple$"),
    (lambda: t.ones(2, 3).cumsum(2), IndexError,
     r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$"),
    (lambda: t.ones(2).cumprod(-2), IndexError,
     r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got -2\)$"),
])
def test_scan_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------- sum and mean alongside
def test_sum_and_mean_keep_pytorch_dtype_rules():
    x = leaf([[1.0, 2.0], [3.0, 4.0]], t.float32)
    assert x.sum(1, dtype=F64).dtype is F64 and x.sum(dtype=F64).grad_fn is not None
    assert x.mean((0, 1), keepdim=True).shape == (1, 1)
    assert t.tensor([True, True]).sum().dtype is t.int64
    x.sum(0, keepdim=True, dtype=F64).sum().backward()
    assert x.grad.dtype is t.float32 and x.grad.tolist() == [[1, 1], [1, 1]]


def test_numpy_axis_and_keepdims_names_are_accepted():
    x = t.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    assert x.max(axis=1).indices.tolist() == [1, 2]
    assert t.min(x, axis=0, keepdims=True).values.shape == (1, 3)
    assert x.prod(axis=0, keepdims=True).tolist() == [[4, 10, 18]]
    assert x.amax(axis=(0, 1)).item() == 6 and x.argmin(axis=1).tolist() == [0, 1]
    assert x.var(axis=1, keepdims=True).shape == (2, 1) and x.std(axis=0).shape == (3,)
    assert x.cumsum(axis=1).tolist() == [[1, 6, 9], [4, 6, 12]]
    assert x.logsumexp(axis=0).shape == (3,)


# ---------------------------------------------------------------- float32 and the symbolic side
@pytest.mark.parametrize(("name", "fn", "_"), SPELLINGS[:-2])
def test_float32_in_float32_out(name, fn, _):
    x = leaf([[1.0, 2.0, 3.0], [4.0, 6.0, 5.0]], t.float32)
    y = fn(x)
    assert y.dtype is t.float32
    y.sum().backward()
    assert x.grad.dtype is t.float32


@pytest.mark.parametrize("fn", [
    lambda x, z: z.prod(), lambda x, z: z.prod(1), lambda x, z: z.cumprod(1),
    lambda x, z: z.cumprod(0), lambda x, z: x.cumsum(0), lambda x, z: x.max(),
    lambda x, z: x.min(1).values, lambda x, z: x.amax(0), lambda x, z: x.var(1),
    lambda x, z: x.std(), lambda x, z: x.norm(dim=1), lambda x, z: x.norm(3),
    lambda x, z: x.norm(math.inf), lambda x, z: x.logsumexp(1),
])
def test_vjp_rules_agree_with_sympy(fn):
    x = leaf([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]])
    z = leaf([[1.5, 0.0, 0.5], [3.0, 0.25, 0.0]])
    y = fn(x, z)
    weights = t.arange(1, y.numel() + 1, dtype=F64).reshape(y.shape)
    report = t.symbolic.check((y * weights).sum(), exact=True)
    assert all(p.formula in ("proved", "undecided") and p.at_point for p in report.proofs)


def test_every_spelling_is_installed():
    names = ("prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std", "norm",
             "logsumexp", "cumsum", "cumprod")
    for name in names:
        assert callable(getattr(t, name)) and callable(getattr(t.Tensor, name)), name
    for name in ("var_mean", "std_mean"):
        assert callable(getattr(t, name))
    for name in ("cumsum_", "cumprod_"):
        assert callable(getattr(t.Tensor, name))
    assert callable(t.linalg.vector_norm) and callable(t.linalg.norm)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the common paths are silent
        t.tensor([1.0, 2.0]).var()
        t.tensor([0.0, 2.0]).norm(-1)
        t.tensor([-math.inf, -math.inf]).logsumexp(0)


@pytest.mark.parametrize("ord", [2.0, 1.0, 3.0, 0.5])
def test_norm_at_zero_with_nan_incoming_gradient_follows_pytorch(ord):
    # at a zero norm PyTorch 2.13 multiplies a nan incoming gradient in (nan) for ord 2, 1
    # and < 1, but masks it out (0) for the other ord > 1: values taken from torch
    a = t.zeros(3, dtype=t.float64, requires_grad=True)
    nan = t.tensor(float("nan"), dtype=t.float64)
    (g,) = t.autograd.grad(t.linalg.vector_norm(a, ord=ord), a, grad_outputs=nan)
    expected_nan = ord != 3.0
    assert np.isnan(g.numpy()).all() == expected_nan
    assert expected_nan or (g.numpy() == 0).all()


def test_an_empty_dim_list_as_pytorch_reads_it():
    """torch 2.13: ``count_nonzero`` counts over every dim, ``any``/``all`` reduce none (the
    elements as bools), ``sum`` and ``mean`` reduce every dim."""
    x = t.tensor([[1.0, -2.0, 0.0]])
    for dim in ((), []):
        assert t.count_nonzero(x, dim).tolist() == 2
        assert x.any(dim).tolist() == [[True, True, False]]
        assert t.all(x, dim=dim).tolist() == [[True, True, False]]
        assert x.sum(dim).tolist() == -1.0 and x.mean(dim).shape == ()


@pytest.mark.parametrize(("call", "got"), [
    (lambda x: x.sum(1.0), "(float)"), (lambda x: x.sum("a"), "(str)"),
    (lambda x: x.mean(True), "(bool)"), (lambda x: x.sum(keepdim=True), "(keepdim=bool, )")])
def test_a_dim_of_no_accepted_type_is_refused_as_pytorch_refuses_it(call, got):
    with pytest.raises(TypeError) as caught:
        call(t.ones(2, 3))
    name = "mean" if "mean" in str(caught.value) else "sum"
    assert str(caught.value).splitlines()[0] == (
        f"{name}() received an invalid combination of arguments - got {got}, but expected one "
        "of:")
