"""The pointwise family: every spelling, PyTorch's node names, and its conventions at the edges
(kinks, ties, bounds, nan, rounding) -- values observed in PyTorch 2.x, checked here against
closed forms. Gradients away from the edges are checked against finite differences by the
registry test (tests/test_registry.py)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F

NAN, INF = math.nan, math.inf


def leaf(values, dtype=t.float64):
    return t.tensor(values, dtype=dtype, requires_grad=True)


def grad_of(fn, values, dtype=t.float64):
    """(forward values, gradient of sum(fn(x))) as lists."""
    x = leaf(values, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y = fn(x)
    y.sum().backward()
    return y.detach().tolist(), x.grad.tolist()


def same(a, b) -> bool:
    """Equal lists, nan equal to nan."""
    return np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True)


def node(y) -> str:
    return type(y.grad_fn).__name__


# ---------------------------------------------------------------- spellings and node names
X = [-1.5, -0.25, 0.5, 2.0]
SPELLINGS = [
    ("TanBackward0", [lambda x: t.tan(x), lambda x: x.tan(), lambda x: (x * 1).tan_(),
                      lambda x: t.tan_(x * 1)]),
    ("AsinBackward0", [lambda x: t.asin(x / 4), lambda x: (x / 4).arcsin(),
                       lambda x: t.arcsin(x / 4), lambda x: (x / 4).asin_(),
                       lambda x: (x / 4).arcsin_()]),
    ("AcosBackward0", [lambda x: t.acos(x / 4), lambda x: (x / 4).arccos(),
                       lambda x: (x / 4).acos_()]),
    ("AtanBackward0", [lambda x: t.atan(x), lambda x: x.arctan(), lambda x: (x * 1).atan_()]),
    ("SinhBackward0", [lambda x: t.sinh(x), lambda x: x.sinh(), lambda x: (x * 1).sinh_()]),
    ("CoshBackward0", [lambda x: t.cosh(x), lambda x: x.cosh(), lambda x: (x * 1).cosh_()]),
    ("Log1PBackward0", [lambda x: t.log1p(x / 4), lambda x: (x / 4).log1p(),
                        lambda x: (x / 4).log1p_()]),
    ("Expm1Backward0", [lambda x: t.expm1(x), lambda x: x.expm1(), lambda x: (x * 1).expm1_()]),
    ("Log2Backward0", [lambda x: t.log2(x.abs()), lambda x: x.abs().log2_()]),
    ("Log10Backward0", [lambda x: t.log10(x.abs()), lambda x: x.abs().log10_()]),
    ("Exp2Backward0", [lambda x: t.exp2(x), lambda x: x.exp2(), lambda x: (x * 1).exp2_()]),
    ("ErfBackward0", [lambda x: t.erf(x), lambda x: x.erf(), lambda x: (x * 1).erf_()]),
    ("RsqrtBackward0", [lambda x: t.rsqrt(x.abs()), lambda x: x.abs().rsqrt_()]),
    ("Atan2Backward0", [lambda x: t.atan2(x, -x), lambda x: x.arctan2(-x),
                        lambda x: t.arctan2(x, -x), lambda x: (x * 1).atan2_(-x),
                        lambda x: (x * 1).arctan2_(-x)]),
    ("MaximumBackward0", [lambda x: t.maximum(x, -x), lambda x: x.maximum(-x)]),
    ("MinimumBackward0", [lambda x: t.minimum(x, -x), lambda x: x.minimum(-x)]),
    ("FmaxBackward0", [lambda x: t.fmax(x, -x), lambda x: x.fmax(-x)]),
    ("FminBackward0", [lambda x: t.fmin(x, -x), lambda x: x.fmin(-x)]),
    ("ClampBackward1", [lambda x: t.clamp(x, 0, 1), lambda x: x.clamp(min=0),
                        lambda x: x.clamp(max=0.5), lambda x: x.clip(0, 1),
                        lambda x: t.clip(x, 0, 1), lambda x: (x * 1).clamp_(0, 1),
                        lambda x: (x * 1).clip_(max=1), lambda x: t.clamp_(x * 1, 0, 1)]),
    ("ClampBackward0", [lambda x: x.clamp(-x, x * x), lambda x: x.clamp(min=-x),
                        lambda x: x.clamp(max=-x), lambda x: t.clamp(x, t.tensor(0.0), 1.0),
                        lambda x: (x * 1).clamp_(-x)]),
    ("ClampMinBackward0", [lambda x: t.clamp_min(x, 0), lambda x: x.clamp_min(0.5),
                           lambda x: (x * 1).clamp_min_(0)]),
    ("ClampMinBackward1", [lambda x: x.clamp_min(-x), lambda x: (x * 1).clamp_min_(-x)]),
    ("ClampMaxBackward0", [lambda x: t.clamp_max(x, 0), lambda x: (x * 1).clamp_max_(0)]),
    ("ClampMaxBackward1", [lambda x: x.clamp_max(-x), lambda x: (x * 1).clamp_max_(-x)]),
    ("FloorBackward0", [lambda x: t.floor(x), lambda x: x.floor(), lambda x: (x * 1).floor_()]),
    ("CeilBackward0", [lambda x: t.ceil(x), lambda x: x.ceil(), lambda x: (x * 1).ceil_()]),
    ("TruncBackward0", [lambda x: t.trunc(x), lambda x: x.fix(), lambda x: t.fix(x),
                        lambda x: (x * 1).trunc_(), lambda x: (x * 1).fix_()]),
    ("RoundBackward0", [lambda x: t.round(x), lambda x: x.round(), lambda x: (x * 1).round_()]),
    ("RoundBackward1", [lambda x: t.round(x, decimals=1), lambda x: x.round(decimals=0),
                        lambda x: (x * 1).round_(decimals=2)]),
    ("FracBackward0", [lambda x: t.frac(x), lambda x: x.frac(), lambda x: (x * 1).frac_()]),
    ("SignBackward0", [lambda x: t.sign(x), lambda x: (x * 1).sign_()]),
    ("WhereBackward0", [lambda x: t.where(x > 0, x, 0.0), lambda x: x.where(x > 0, 1.0),
                        lambda x: t.where(x > 0, 2, x)]),
    ("ReluBackward0", [lambda x: F.relu(x), lambda x: F.relu(x * 1, inplace=True),
                       lambda x: F.relu_(x * 1)]),
    ("SigmoidBackward0", [lambda x: F.sigmoid(x)]),
    ("TanhBackward0", [lambda x: F.tanh(x)]),
    ("HardtanhBackward0", [lambda x: F.hardtanh(x), lambda x: F.hardtanh(x * 1, inplace=True),
                           lambda x: F.hardtanh_(x * 1, -0.5, 0.5), lambda x: F.relu6(x),
                           lambda x: F.relu6(x * 1, inplace=True)]),
    ("LeakyReluBackward0", [lambda x: F.leaky_relu(x), lambda x: F.leaky_relu(x, 0.2)]),
    ("LeakyReluBackward1", [lambda x: F.leaky_relu(x * 1, inplace=True),
                            lambda x: F.leaky_relu_(x * 1, 0.2)]),
    ("EluBackward0", [lambda x: F.elu(x), lambda x: F.elu(x, alpha=2.0)]),
    ("EluBackward1", [lambda x: F.elu(x * 1, inplace=True), lambda x: F.elu_(x * 1, 0.5)]),
    ("GeluBackward0", [lambda x: F.gelu(x), lambda x: F.gelu(x, approximate="tanh")]),
    ("SiluBackward0", [lambda x: F.silu(x), lambda x: F.silu(x * 1, inplace=True)]),
    ("SoftplusBackward0", [lambda x: F.softplus(x), lambda x: F.softplus(x, 2.0, 1.0)]),
]


@pytest.mark.parametrize(("name", "spelling"),
                         [(name, fn) for name, fns in SPELLINGS for fn in fns])
def test_node_names(name, spelling):
    y = spelling(leaf(X))
    assert node(y) == name
    y.sum().backward()  # every spelling runs its backward


def test_function_and_method_are_the_same_and_aliases_agree():
    x = t.tensor([0.1, -0.7, 0.3], dtype=t.float64)
    assert t.asin(x).equal(x.arcsin()) and t.acos(x).equal(t.arccos(x))
    assert t.atan(x).equal(t.arctan(x)) and t.trunc(x * 9).equal((x * 9).fix())
    assert t.atan2(x, -x).equal(x.arctan2(-x))
    assert t.clamp(x, -0.5, 0.2).equal(x.clip(-0.5, 0.2))
    assert t.clamp(x, min=0.0).equal(t.clamp_min(x, 0.0))
    assert t.clamp(x, max=0.0).equal(x.clamp_max(0.0))


def test_inplace_spellings_change_the_tensor_and_bump_its_version():
    x = t.tensor([-2.0, 0.5, 3.0])
    before = x._version
    out = x.clamp_(-1, 1)
    assert out is x and x.tolist() == [-1.0, 0.5, 1.0] and x._version == before + 1
    x.tan_()
    assert np.allclose(x.tolist(), [math.tan(-1), math.tan(0.5), math.tan(1)], rtol=1e-6)
    y = t.tensor([0.5, -1.5])
    assert F.leaky_relu_(y, 0.5) is y and y.tolist() == [0.5, -0.75]


def test_inplace_on_a_leaf_requiring_grad_is_refused():
    x = leaf([1.0, 2.0])
    for call in (lambda: x.tan_(), lambda: x.clamp_(0, 1), lambda: F.elu(x, inplace=True),
                 lambda: F.relu6(x, inplace=True), lambda: x.round_()):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            call()
    assert x.tolist() == [1.0, 2.0]


def test_saved_result_modified_in_place_is_caught_at_backward():
    x = leaf([0.1, 0.2])
    y = x.tan()  # TanBackward0 saves its result
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    z = leaf([0.1, 0.2]).floor()  # FloorBackward0 saves nothing
    z.add_(1)
    z.sum().backward()


def test_functions_refuse_non_tensors_with_pytorchs_type_error():
    with pytest.raises(TypeError, match=r"^tan\(\): argument 'input' \(position 1\) must be "
                                        r"Tensor, not float"):
        t.tan(1.0)
    with pytest.raises(TypeError, match=r"^maximum\(\): argument 'other' \(position 2\) must "
                                        r"be Tensor, not float"):
        t.maximum(t.ones(2), 2.0)
    with pytest.raises(TypeError, match=r"^atan2\(\): argument 'other'"):
        t.ones(2).atan2(2.0)
    with pytest.raises(TypeError, match=r"^gelu\(\): argument 'input'"):
        F.gelu([1.0])


# ---------------------------------------------------------------- unary functions
def test_unary_values_and_gradients_match_closed_forms():
    xs = [-0.9, -0.3, 0.0, 0.4, 0.8]
    closed = {
        "tan": (math.tan, lambda x: 1 / math.cos(x) ** 2),
        "asin": (math.asin, lambda x: 1 / math.sqrt(1 - x * x)),
        "acos": (math.acos, lambda x: -1 / math.sqrt(1 - x * x)),
        "atan": (math.atan, lambda x: 1 / (1 + x * x)),
        "sinh": (math.sinh, math.cosh),
        "cosh": (math.cosh, math.sinh),
        "log1p": (math.log1p, lambda x: 1 / (1 + x)),
        "expm1": (math.expm1, math.exp),
        "exp2": (lambda x: 2.0 ** x, lambda x: 2.0 ** x * math.log(2)),
        "erf": (math.erf, lambda x: 2 / math.sqrt(math.pi) * math.exp(-x * x)),
    }
    for name, (f, df) in closed.items():
        values, grads = grad_of(getattr(t, name), xs)
        assert values == pytest.approx([f(x) for x in xs], rel=1e-14, abs=1e-15), name
        assert grads == pytest.approx([df(x) for x in xs], rel=1e-13), name
    ps = [0.25, 1.0, 3.0, 100.0]
    for name, f, df in (("log2", math.log2, lambda x: 1 / (x * math.log(2))),
                        ("log10", math.log10, lambda x: 1 / (x * math.log(10))),
                        ("rsqrt", lambda x: x ** -0.5, lambda x: -0.5 * x ** -1.5)):
        values, grads = grad_of(getattr(t, name), ps)
        assert values == pytest.approx([f(x) for x in ps], rel=1e-15), name
        assert grads == pytest.approx([df(x) for x in ps], rel=1e-14), name


def test_exact_values_where_pytorch_gives_them():
    assert t.log2(t.tensor([8.0, 1024.0])).tolist() == [3.0, 10.0]
    assert t.log10(t.tensor([100.0, 1e-3], dtype=t.float64)).tolist() == [2.0, -3.0]
    assert t.exp2(t.tensor([-1.0, 10.0])).tolist() == [0.5, 1024.0]
    assert t.rsqrt(t.tensor([4.0, 0.25])).tolist() == [0.5, 2.0]
    tiny = t.tensor([1e-20], dtype=t.float64)
    assert t.log1p(tiny).item() == 1e-20 and t.expm1(tiny).item() == 1e-20


def test_gradients_at_the_edges_of_the_domain():
    # PyTorch: asin'(+-1) = inf, nan outside; rsqrt'(0) = -inf; log1p'(-1) = inf
    _, g = grad_of(t.asin, [-1.0, 1.0, 2.0])
    assert same(g, [INF, INF, NAN])
    _, g = grad_of(t.acos, [-1.0, 1.0])
    assert g == [-INF, -INF]
    values, g = grad_of(t.rsqrt, [0.0, -1.0])
    assert same(values, [INF, NAN]) and same(g, [-INF, NAN])
    values, g = grad_of(t.log1p, [-1.0, -2.0])
    assert same(values, [-INF, NAN]) and g == [INF, -1.0]
    values, g = grad_of(t.log2, [0.0, -1.0])
    assert same(values, [-INF, NAN]) and g == [INF, pytest.approx(-1 / math.log(2))]
    values, g = grad_of(t.atan, [-INF, INF])
    assert values == [-math.pi / 2, math.pi / 2] and g == [0.0, 0.0]
    values, g = grad_of(t.expm1, [800.0])
    assert values == [INF] and g == [INF]
    values, g = grad_of(t.erf, [6.0, -INF, NAN])
    assert same(values, [1.0, -1.0, NAN])
    assert g[0] == pytest.approx(2 / math.sqrt(math.pi) * math.exp(-36.0), rel=1e-14)
    assert same(g[1:], [0.0, NAN])


def test_erf_is_accurate_to_the_last_bits_in_float64():
    xs = np.concatenate([np.linspace(-7, 7, 2001), [1e-300, -1e-10, 0.5, 3.2, 26.0]])
    got = t.erf(t.tensor(xs, dtype=t.float64)).tolist()
    expected = [math.erf(x) for x in xs]
    assert got == expected  # math.erf, element by element
    # a few values to many digits (Abramowitz & Stegun, table 7.1)
    assert got[-3] == pytest.approx(0.5204998778130465, rel=1e-16)
    ones = t.erf(t.tensor([0.1, 1.0, 2.0], dtype=t.float64)).tolist()
    assert ones == pytest.approx([0.1124629160182849, 0.8427007929497149, 0.9953222650189527],
                                 rel=2e-16)


def test_float_functions_promote_integers_and_keep_float32():
    i = t.tensor([1, 1])
    for name in ("tan", "asin", "acos", "atan", "sinh", "cosh", "log1p", "expm1", "log2",
                 "log10", "exp2", "erf", "rsqrt"):
        assert getattr(t, name)(i).dtype is t.float32, name
        x = leaf([0.5, 0.25], t.float32)
        y = getattr(t, name)(x)
        y.sum().backward()
        assert y.dtype is t.float32 and x.grad.dtype is t.float32, name
    assert t.atan2(i, i).dtype is t.float32
    assert t.erf(t.tensor([True, False])).tolist() == pytest.approx([0.8427007929, 0.0])


def test_float32_transcendentals_are_correctly_rounded_as_in_pytorch():
    # numpy's float32 log10 gives 2.0000002 for 100; PyTorch (and symgrad) give 2
    assert t.log10(t.tensor([100.0, 1000.0])).tolist() == [2.0, 3.0]
    xs = np.linspace(0.05, 0.95, 181).astype(np.float32)
    for name, reference in (("tan", np.tan), ("asin", np.arcsin), ("acos", np.arccos),
                            ("atan", np.arctan), ("sinh", np.sinh), ("cosh", np.cosh),
                            ("log1p", np.log1p), ("expm1", np.expm1), ("log2", np.log2),
                            ("log10", np.log10), ("exp2", np.exp2)):
        got = getattr(t, name)(t.tensor(xs)).numpy()
        assert got.dtype == np.float32
        assert np.array_equal(got, reference(xs.astype(np.float64)).astype(np.float32)), name


def test_float32_erf_is_float64_erf_rounded():
    xs = np.linspace(-3, 3, 101).astype(np.float32)
    got = t.erf(t.tensor(xs)).numpy()
    assert got.dtype == np.float32
    assert np.array_equal(got, np.array([math.erf(float(x)) for x in xs], dtype=np.float32))


# ---------------------------------------------------------------- atan2
def test_atan2_quadrants_and_its_gradient_at_the_origin():
    y = leaf([1.0, 1.0, -1.0, 0.0, 0.0])
    x = leaf([1.0, -1.0, -1.0, -1.0, 0.0])
    out = t.atan2(y, x)
    pi = math.pi
    assert out.tolist() == pytest.approx([pi / 4, 3 * pi / 4, -3 * pi / 4, pi, 0.0])
    out.sum().backward()
    # d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2); PyTorch takes both as 0 at the origin
    assert y.grad.tolist() == [0.5, -0.5, -0.5, -1.0, 0.0]
    assert x.grad.tolist() == [-0.5, -0.5, 0.5, 0.0, 0.0]


def test_atan2_broadcasts_and_sums_gradients_back():
    y = leaf([[1.0], [2.0]])
    x = leaf([1.0, 2.0, 4.0])
    out = t.atan2(y, x)
    assert out.shape == (2, 3)
    out.sum().backward()
    expected_y = [sum(b / (a * a + b * b) for b in (1.0, 2.0, 4.0)) for a in (1.0, 2.0)]
    assert y.grad.reshape(-1).tolist() == pytest.approx(expected_y)
    assert x.grad.shape == (3,)


# ---------------------------------------------------------------- maximum, minimum, fmax, fmin
def test_maximum_and_minimum_split_the_gradient_at_ties_and_pass_it_at_nan():
    a = leaf([1.0, 2.0, NAN, 1.0, NAN, -INF, 0.0])
    b = leaf([1.0, 1.0, 1.0, NAN, NAN, -INF, -0.0])
    out = t.maximum(a, b)
    assert same(out.tolist(), [1.0, 2.0, NAN, NAN, NAN, -INF, 0.0])
    out.sum().backward()
    assert a.grad.tolist() == [0.5, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5]
    assert b.grad.tolist() == [0.5, 0.0, 1.0, 1.0, 1.0, 0.5, 0.5]
    a.grad = b.grad = None
    out = t.minimum(a, b)
    assert same(out.tolist(), [1.0, 1.0, NAN, NAN, NAN, -INF, 0.0])
    out.sum().backward()
    assert a.grad.tolist() == [0.5, 0.0, 1.0, 1.0, 1.0, 0.5, 0.5]
    assert b.grad.tolist() == [0.5, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5]


def test_fmax_and_fmin_ignore_nan_and_give_ties_to_the_first_input():
    a = leaf([1.0, 2.0, NAN, 1.0, NAN])
    b = leaf([1.0, 1.0, 1.0, NAN, NAN])
    out = t.fmax(a, b)
    assert same(out.tolist(), [1.0, 2.0, 1.0, 1.0, NAN])
    out.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 0.0, 1.0, 1.0]
    assert b.grad.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]
    a.grad = b.grad = None
    out = t.fmin(a, b)
    assert same(out.tolist(), [1.0, 1.0, 1.0, 1.0, NAN])
    out.sum().backward()
    assert a.grad.tolist() == [1.0, 0.0, 0.0, 1.0, 1.0]
    assert b.grad.tolist() == [0.0, 1.0, 1.0, 0.0, 0.0]


def test_maximum_broadcasts_and_promotes():
    a = leaf([[1.0], [3.0]])
    b = leaf([2.0, 2.0, 3.0])
    out = a.maximum(b)
    assert out.tolist() == [[2.0, 2.0, 3.0], [3.0, 3.0, 3.0]]
    out.sum().backward()
    assert a.grad.tolist() == [[0.0], [2.5]]  # 1 < 2, 2, 3; 3 > 2, 2 and ties 3
    assert b.grad.tolist() == [1.0, 1.0, 1.5]
    assert t.maximum(t.tensor([1, 2]), t.tensor([1.5, 0.5])).dtype is t.float32
    assert t.maximum(t.tensor([1, 5]), t.tensor([3, 2])).tolist() == [3, 5]
    assert t.maximum(t.tensor([True, False]), t.tensor([False, False])).dtype is t.bool
    assert t.maximum(t.tensor([1.0]), t.tensor(2.0, dtype=t.float64)).dtype is t.float32


# ---------------------------------------------------------------- clamp
V = [-2.0, -1.0, 0.0, 1.0, 2.0, NAN, INF, -INF]


def test_clamp_with_numbers_passes_the_gradient_at_the_bounds():
    values, g = grad_of(lambda x: x.clamp(-1, 1), V)
    assert same(values, [-1.0, -1.0, 0.0, 1.0, 1.0, NAN, 1.0, -1.0])
    assert g == [0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    values, g = grad_of(lambda x: x.clamp(min=-1), V)
    assert same(values, [-1.0, -1.0, 0.0, 1.0, 2.0, NAN, INF, -1.0])
    assert g == [0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    values, g = grad_of(lambda x: x.clamp(max=1), V)
    assert same(values, [-2.0, -1.0, 0.0, 1.0, 1.0, NAN, 1.0, -INF])
    assert g == [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    for spelling in (lambda x: x.clamp_min(-1), lambda x: t.clamp_max(x, 1)):
        _, g = grad_of(spelling, [-1.0, 1.0, NAN])
        assert g == [1.0, 1.0, 0.0]


def test_clamp_with_min_above_max_gives_max_and_no_gradient():
    values, g = grad_of(lambda x: x.clamp(1, -1), V)
    assert same(values, [-1.0] * 5 + [NAN] + [-1.0] * 2)
    assert g == [0.0] * 8


def test_clamp_with_a_nan_bound_gives_nan():
    for spelling in (lambda x: x.clamp(NAN, 1), lambda x: x.clamp(-1, NAN),
                     lambda x: x.clamp_min(NAN)):
        values, g = grad_of(spelling, [-2.0, 0.0, 2.0])
        assert same(values, [NAN] * 3) and g == [0.0] * 3


def test_clamp_with_tensor_bounds_sends_the_gradient_to_the_bound_that_is_the_result():
    x = leaf([-2.0, -1.0, 0.0, 1.0, 2.0, NAN, 0.5, 0.5, -5.0])
    lo = leaf([-1.0, -1.0, -1.0, -1.0, -1.0, -1.0, NAN, 1.0, 1.0])
    hi = leaf([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0])
    out = x.clamp(lo, hi)
    assert same(out.tolist(), [-1.0, -1.0, 0.0, 1.0, 1.0, NAN, NAN, 0.0, 0.0])
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert lo.grad.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    # max receives it wherever max < min, whatever x is (PyTorch's rule)
    assert hi.grad.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize("spelling", ["clamp", "clamp_min"])
def test_clamp_with_a_lower_tensor_bound(spelling):
    x = leaf([-2.0, -1.0, 0.0, NAN])
    lo = leaf([-1.0, -1.0, 1.0, 0.0])
    out = x.clamp(min=lo) if spelling == "clamp" else x.clamp_min(lo)
    assert same(out.tolist(), [-1.0, -1.0, 1.0, NAN])
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0, 0.0]
    assert lo.grad.tolist() == [1.0, 0.0, 1.0, 0.0]


@pytest.mark.parametrize("spelling", ["clamp", "clamp_max"])
def test_clamp_with_an_upper_tensor_bound(spelling):
    x = leaf([2.0, 1.0, 0.0, NAN])
    hi = leaf([1.0, 1.0, -1.0, 0.0])
    out = x.clamp(max=hi) if spelling == "clamp" else t.clamp_max(x, hi)
    assert same(out.tolist(), [1.0, 1.0, -1.0, NAN])
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0, 0.0]
    assert hi.grad.tolist() == [1.0, 0.0, 1.0, 0.0]


def test_clamp_bounds_broadcast_and_mix_with_numbers():
    x = leaf([[-3.0, 0.0, 3.0]])
    lo = leaf([[-1.0], [0.5]])
    out = x.clamp(lo, 2.0)
    assert out.tolist() == [[-1.0, 0.0, 2.0], [0.5, 0.5, 2.0]]
    out.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0]]
    assert lo.grad.tolist() == [[1.0], [2.0]]
    # a bound wider than the tensor: broadcast out of place, refused in place
    assert t.ones(2).clamp(t.zeros(2, 2)).shape == (2, 2)
    y = t.ones(2)
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the "
                                           r"broadcast shape \[2, 2\]"):
        y.clamp_(t.zeros(2, 2))
    assert y.tolist() == [1.0, 1.0]


def test_clamp_dtypes():
    i = t.tensor([1, 2])
    assert i.clamp(0, 1).dtype is t.int64 and i.clamp(0, 1).tolist() == [1, 1]
    assert i.clamp(0.5).dtype is t.float32
    assert i.clamp_min(0.5).tolist() == [1.0, 2.0]
    assert i.clamp(max=t.tensor(0)).dtype is t.int64
    assert i.clamp(min=t.tensor([0.5])).dtype is t.float32
    assert t.tensor([True, False]).clamp(0, 1).dtype is t.int64
    f = t.tensor([1.0, 2.0])
    assert f.clamp(t.tensor(0.5, dtype=t.float64)).dtype is t.float32  # 0-d does not promote
    assert f.clamp(t.tensor([0.5], dtype=t.float64)).dtype is t.float64
    x = leaf([0.5, 2.0], t.float32)
    y = x.clamp(0.0, 1.0)
    y.sum().backward()
    assert y.dtype is t.float32 and x.grad.dtype is t.float32
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type"):
        t.tensor([1, 2]).clamp_(0.5)


def test_clamp_without_bounds_is_an_error():
    x = t.ones(2)
    for call in (lambda: x.clamp(), lambda: t.clamp(x, None, None), lambda: x.clip(min=None),
                 lambda: x.clamp_()):
        with pytest.raises(RuntimeError, match="clamp: At least one of 'min' or 'max' must not "
                                               "be None"):
            call()
    for call in (lambda: x.clamp_min(None), lambda: t.clamp_max(x, None)):
        with pytest.raises(TypeError, match=r"received an invalid combination of arguments"):
            call()


# ---------------------------------------------------------------- rounding
def test_round_halves_to_even_with_zero_gradient():
    values, g = grad_of(t.round, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999999999999994, NAN])
    assert same(values, [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 0.0, NAN])
    assert g == [0.0] * 8


def test_round_with_decimals_scales_as_pytorch_does():
    values, g = grad_of(lambda x: x.round(decimals=1),
                        [-0.25, 0.15, 0.25, 0.35, 1.05, 123.456, NAN])
    # x * 10 rounded half to even, / 10: 0.15 * 10 is 1.5000000000000002 in float64
    assert same(values, [-0.2, 0.2, 0.2, 0.4, 1.0, 123.5, NAN])
    assert g == [0.0] * 7
    values, _ = grad_of(lambda x: x.round(decimals=-1), [-25.0, 15.0, 25.0, 35.0, 105.0, 123.4])
    assert values == [-20.0, 20.0, 20.0, 40.0, 100.0, 120.0]
    x = t.tensor([1.23456], dtype=t.float64)
    assert x.round(decimals=3).item() == 1.235 and x.round(decimals=0).item() == 1.0
    # float32: the scale is a float32 too
    f = t.tensor([0.125, 2.675, 1.005], dtype=t.float32).round(decimals=2)
    assert f.dtype is t.float32
    assert f.numpy().tolist() == np.array([0.12, 2.68, 1.0], dtype=np.float32).tolist()


def test_floor_ceil_trunc_frac():
    xs = [-1.5, -1.0, -0.5, 0.0, 0.5, 2.25, NAN, INF]
    for fn, expected in ((t.floor, [-2.0, -1.0, -1.0, 0.0, 0.0, 2.0, NAN, INF]),
                         (t.ceil, [-1.0, -1.0, -0.0, 0.0, 1.0, 3.0, NAN, INF]),
                         (t.trunc, [-1.0, -1.0, -0.0, 0.0, 0.0, 2.0, NAN, INF])):
        values, g = grad_of(fn, xs)
        assert same(values, expected) and g == [0.0] * 8
    values, g = grad_of(t.frac, xs)
    assert same(values, [-0.5, 0.0, -0.5, 0.0, 0.5, 0.25, NAN, NAN])
    assert g == [1.0] * 8


def test_rounding_keeps_integer_dtypes_and_refuses_bool_as_pytorch():
    i = t.tensor([1, -2])
    for name in ("floor", "ceil", "trunc", "round", "fix"):
        out = getattr(i, name)()
        assert out.dtype is t.int64 and out.tolist() == [1, -2], name
    b = t.tensor([True, False])
    for name, kernel in (("floor", "floor_vml_cpu"), ("ceil", "ceil_vml_cpu"),
                         ("trunc", "trunc_vml_cpu"), ("round", "round_vml_cpu"),
                         ("frac", "frac_cpu")):
        with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for '
                                                      "'Bool'"):
            getattr(b, name)()
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Long'"):
        i.frac()
    with pytest.raises(NotImplementedError, match="\"round_cpu\" not implemented for 'Long'"):
        i.round(decimals=1)


# ---------------------------------------------------------------- sign, abs, relu at nan
def test_sign_abs_relu_at_nan_and_zero_follow_pytorch():
    values, g = grad_of(t.sign, [NAN, -0.0, 0.0, -3.0, INF])
    assert values == [0.0, 0.0, 0.0, -1.0, 1.0] and g == [0.0] * 5
    values, g = grad_of(t.abs, [NAN, 0.0, -2.0])
    assert same(values, [NAN, 0.0, 2.0]) and g == [0.0, 0.0, -1.0]
    values, g = grad_of(F.relu, [NAN, 0.0, -1.0, 2.0])
    assert same(values, [NAN, 0.0, 0.0, 2.0]) and g == [1.0, 0.0, 0.0, 1.0]
    assert t.tensor([True, False]).sign().tolist() == [True, False]
    assert t.tensor([3, 0, -2]).sign().tolist() == [1, 0, -1]


# ---------------------------------------------------------------- where
def test_where_spellings_with_numbers_and_broadcasting():
    cond = t.tensor([[True], [False]])
    x = leaf([1.0, 2.0, 3.0])
    y = leaf([[10.0], [20.0]])
    assert t.where(cond, x, y).tolist() == [[1.0, 2.0, 3.0], [20.0, 20.0, 20.0]]
    assert t.where(cond, x, 0.5).tolist() == [[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]]
    assert t.where(cond, 2, y).tolist() == [[2.0], [20.0]]
    assert x.where(cond, 7).tolist() == [[1.0, 2.0, 3.0], [7.0, 7.0, 7.0]]
    assert t.where(cond, 1.0, 2.0).dtype is t.float32
    assert t.where(cond, 1, 2).dtype is t.int64
    assert t.where(cond, x.float(), 0.5).dtype is t.float32
    out = t.where(cond, x, y) + x.where(cond, y)
    out.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    assert y.grad.tolist() == [[0.0], [6.0]]
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        t.where(t.tensor([1.0]), x, y)


# ---------------------------------------------------------------- activations
def test_leaky_relu_gradient_at_zero_is_the_slope():
    values, g = grad_of(lambda x: F.leaky_relu(x, 0.1), [-2.0, -0.0, 0.0, 1.0, NAN, INF, -INF])
    assert same(values, [-0.2, 0.0, 0.0, 1.0, NAN, INF, -INF])
    assert g == [0.1, 0.1, 0.1, 1.0, 0.1, 1.0, 0.1]
    values, _ = grad_of(F.leaky_relu, [-3.0])
    assert values == [-0.03]  # default slope 0.01


def test_leaky_relu_in_place_computes_from_the_result_and_refuses_a_negative_slope():
    x = leaf([-2.0, 0.0, 3.0])
    y = F.leaky_relu(x * 1, 0.5, inplace=True)
    assert node(y) == "LeakyReluBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [0.5, 0.5, 1.0]
    x.grad = None
    y = F.leaky_relu(x * 1, -0.5, inplace=True)  # the forward runs
    assert y.tolist() == [1.0, 0.0, 3.0]
    with pytest.raises(RuntimeError, match="In-place leakyReLu backward calculation is "
                                           "triggered with a negative slope which is not "
                                           "supported."):
        y.sum().backward()
    assert x.grad is None
    values, g = grad_of(lambda x: F.leaky_relu(x, -0.5), [-2.0, 3.0])  # out of place: fine
    assert values == [1.0, 3.0] and g == [-0.5, 1.0]


def test_elu_gradient_at_zero_is_alpha_and_in_place_uses_the_result():
    values, g = grad_of(lambda x: F.elu(x, 2.0), [-1.0, 0.0, 1.0, -INF])
    assert values == pytest.approx([2 * math.expm1(-1), 0.0, 1.0, -2.0])
    assert g == pytest.approx([2 * math.exp(-1), 2.0, 1.0, 0.0])
    x = leaf([-1.0, 0.0, 1.0])
    y = F.elu_(x * 1, 2.0)
    assert node(y) == "EluBackward1"
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([2 * math.exp(-1), 2.0, 1.0])
    x.grad = None
    y = F.elu(x * 1, -1.0, inplace=True)
    with pytest.raises(RuntimeError, match="In-place elu backward calculation is triggered with "
                                           "a negative slope which is not supported."):
        y.sum().backward()
    _, g = grad_of(lambda x: F.elu(x, 0.0, inplace=False), [-1.0, 1.0])
    assert g == [0.0, 1.0]


def test_hardtanh_and_relu6_have_zero_gradient_at_their_bounds():
    values, g = grad_of(F.hardtanh, [-2.0, -1.0, 0.0, 1.0, 2.0])
    assert values == [-1.0, -1.0, 0.0, 1.0, 1.0] and g == [0.0, 0.0, 1.0, 0.0, 0.0]
    values, g = grad_of(F.relu6, [-1.0, 0.0, 3.0, 6.0, 7.0])
    assert values == [0.0, 0.0, 3.0, 6.0, 6.0] and g == [0.0, 0.0, 1.0, 0.0, 0.0]
    values, g = grad_of(lambda x: F.hardtanh(x, -0.5, 0.5), [-0.5, 0.25, 0.5])
    assert values == [-0.5, 0.25, 0.5] and g == [0.0, 1.0, 0.0]
    # clamp, unlike hardtanh, passes the gradient at the bounds
    _, g = grad_of(lambda x: x.clamp(0, 6), [0.0, 6.0])
    assert g == [1.0, 1.0]
    assert F.relu6(t.tensor([1, -2, 9])).tolist() == [1, 0, 6]
    assert F.hardtanh(t.tensor([1, 2])).dtype is t.int64
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(t.ones(2), 1.0, -1.0)
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        F.relu6(t.tensor([True]))


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def test_gelu_exact_and_tanh_approximation():
    xs = [-3.0, -1.0, 0.0, 0.5, 2.0]
    values, g = grad_of(F.gelu, xs)
    assert values == pytest.approx([x * _phi(x) for x in xs], rel=1e-14, abs=1e-16)
    pdf = [math.exp(-x * x / 2) / math.sqrt(2 * math.pi) for x in xs]
    assert g == pytest.approx([_phi(x) + x * p for x, p in zip(xs, pdf, strict=True)],
                              rel=1e-13)
    k = math.sqrt(2 / math.pi)

    def approx(x):
        return 0.5 * x * (1 + math.tanh(k * (x + 0.044715 * x ** 3)))

    def approx_grad(x):
        th = math.tanh(k * (x + 0.044715 * x ** 3))
        return 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * k * (1 + 3 * 0.044715 * x * x)

    values, g = grad_of(lambda x: F.gelu(x, approximate="tanh"), xs)
    assert values == pytest.approx([approx(x) for x in xs], rel=1e-14, abs=1e-16)
    assert g == pytest.approx([approx_grad(x) for x in xs], rel=1e-13)
    # the observed PyTorch values at 1
    assert F.gelu(t.tensor([1.0], dtype=t.float64)).item() == pytest.approx(0.841344746068543)
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh."):
        F.gelu(t.ones(1), approximate="erf")


def test_silu_values_gradients_and_infinities():
    xs = [-3.0, 0.0, 1.0, 4.0]
    values, g = grad_of(F.silu, xs)
    sig = [1 / (1 + math.exp(-x)) for x in xs]
    assert values == pytest.approx([x * s for x, s in zip(xs, sig, strict=True)], rel=1e-15)
    assert g == pytest.approx([s * (1 + x * (1 - s)) for x, s in zip(xs, sig, strict=True)],
                              rel=1e-14)
    values, g = grad_of(F.silu, [INF, -INF, -800.0])
    assert same(values, [INF, NAN, -0.0]) and same(g, [NAN, NAN, -0.0])


def test_softplus_is_exactly_linear_above_the_threshold():
    values, g = grad_of(F.softplus, [-30.0, 0.0, 19.9, 20.0, 20.00001, 50.0])
    assert values[1] == pytest.approx(math.log(2))
    assert values[3] == pytest.approx(20 + math.log1p(math.exp(-20)))  # at 20: not linear yet
    assert values[4] == 20.00001 and values[5] == 50.0  # beta * x > threshold: x itself
    assert g[:4] == pytest.approx([1 / (1 + math.exp(-x)) for x in (-30.0, 0.0, 19.9, 20.0)])
    assert g[4:] == [1.0, 1.0]
    # beta and threshold: linear where beta * x > threshold, so discontinuous for small ones
    values, g = grad_of(lambda x: F.softplus(x, beta=2, threshold=2), [0.5, 1.0, 1.0000001])
    assert values[:2] == pytest.approx([math.log1p(math.e) / 2, math.log1p(math.e ** 2) / 2])
    assert values[2] == 1.0000001
    assert g == pytest.approx([1 / (1 + math.exp(-1)), 1 / (1 + math.exp(-2)), 1.0])
    values, g = grad_of(F.softplus, [NAN])
    assert same(values, [NAN]) and same(g, [NAN])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow in the branch not taken
        assert F.softplus(t.tensor([1000.0, -1000.0])).tolist() == [1000.0, 0.0]


def test_sigmoid_tanh_relu_in_functional():
    x = t.tensor([-1.0, 0.0, 2.0])
    assert F.sigmoid(x).equal(x.sigmoid()) and F.tanh(x).equal(x.tanh())
    assert F.relu(x).equal(x.relu())
    y = x.clone()
    assert F.relu(y, inplace=True) is y and y.tolist() == [0.0, 0.0, 2.0]
    z = x.clone()
    assert F.relu_(z) is z and F.silu(z, inplace=True) is z


@pytest.mark.parametrize(("call", "kernel"), [
    (lambda x: F.leaky_relu(x), "leaky_relu_cpu"), (lambda x: F.elu(x), "elu_cpu"),
    (lambda x: F.gelu(x), "GeluKernelImpl"), (lambda x: F.silu(x), "silu_cpu"),
    (lambda x: F.softplus(x), "softplus_cpu"),
])
def test_floating_only_activations_refuse_integers(call, kernel):
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Long'"):
        call(t.tensor([1, 2]))


def test_activations_keep_float32():
    for fn in (F.leaky_relu, F.elu, F.gelu, lambda x: F.gelu(x, approximate="tanh"), F.silu,
               F.softplus, F.hardtanh, F.relu6):
        x = leaf([-1.5, 0.5, 3.0], t.float32)
        y = fn(x)
        y.sum().backward()
        assert y.dtype is t.float32 and x.grad.dtype is t.float32


# ---------------------------------------------------------------- higher order
def test_second_derivatives_match_closed_forms():
    x = leaf([-0.7, 0.3, 1.2])
    (g,) = t.autograd.grad(F.gelu(x).sum(), x, create_graph=True)
    (h,) = t.autograd.grad(g.sum(), x)
    # gelu'' = pdf(x) * (2 - x^2)
    expected = [math.exp(-v * v / 2) / math.sqrt(2 * math.pi) * (2 - v * v)
                for v in (-0.7, 0.3, 1.2)]
    assert h.tolist() == pytest.approx(expected, rel=1e-12)
    x = leaf([0.2, 0.5])
    (g,) = t.autograd.grad(t.tan(x).sum(), x, create_graph=True)
    (h,) = t.autograd.grad(g.sum(), x)
    assert h.tolist() == pytest.approx([2 * math.tan(v) / math.cos(v) ** 2 for v in (0.2, 0.5)])
    x = leaf([1.0, 3.0])
    y = leaf([2.0, 2.0])
    (g,) = t.autograd.grad(t.maximum(x, y).pow(2).sum(), x, create_graph=True)
    assert g.tolist() == [0.0, 6.0]
    (h,) = t.autograd.grad(g.sum(), x)
    assert h.tolist() == [0.0, 2.0]
