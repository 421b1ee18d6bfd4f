"""Tests for the PyTorch-style tensor repr in symgrad.numeric.printing.

Every expected string below was produced by ``repr()`` of the same data in
torch 2.13 (with ``dtype=torch.`` renamed to ``dtype=symgrad.``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from symgrad.numeric.printing import format_tensor, get_printoptions, set_printoptions

DEFAULT_OPTIONS = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": 80,
    "sci_mode": None,
}


@pytest.fixture(autouse=True)
def default_printoptions():
    """Start every test from the default options and restore them afterwards."""
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")


# (id, values, dtype_name, is_default_dtype, suffixes, print options, expected)
CASES = [
    pytest.param(
        np.ones(3, dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([1., 1., 1.])",
        id="ones_float32",
    ),
    pytest.param(
        np.ones(3, dtype=np.float32),
        "float32",
        True,
        ["requires_grad=True"],
        None,
        "tensor([1., 1., 1.], requires_grad=True)",
        id="requires_grad_suffix",
    ),
    pytest.param(
        np.array([0.9373, 0.0556, 0.6426], dtype=np.float32),
        "float32",
        True,
        ["grad_fn=<MulBackward0>"],
        None,
        "tensor([0.9373, 0.0556, 0.6426], grad_fn=<MulBackward0>)",
        id="grad_fn_suffix",
    ),
    pytest.param(
        np.array(3.5, dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor(3.5000)",
        id="scalar_fraction",
    ),
    pytest.param(
        np.array(-2.0, dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor(-2.)",
        id="scalar_integral",
    ),
    pytest.param(
        np.array(3.5),
        "float64",
        False,
        [],
        None,
        "tensor(3.5000, dtype=symgrad.float64)",
        id="scalar_float64_shows_dtype",
    ),
    pytest.param(
        np.array([1.25, 2.0]),
        "float64",
        True,
        [],
        None,
        "tensor([1.2500, 2.0000])",
        id="float64_default_hides_dtype",
    ),
    pytest.param(
        np.array([1.25, 2.0], dtype=np.float32),
        "float32",
        False,
        ["requires_grad=True"],
        None,
        "tensor([1.2500, 2.0000], dtype=symgrad.float32, requires_grad=True)",
        id="float32_non_default_shows_dtype",
    ),
    pytest.param(
        np.array([1e10, 1.0], dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([1.0000e+10, 1.0000e+00])",
        id="sci_ratio",
    ),
    pytest.param(
        np.array([1e-5, 0.5], dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([1.0000e-05, 5.0000e-01])",
        id="sci_small_min",
    ),
    pytest.param(
        np.array([123456789.5, 200000000.25]),
        "float64",
        True,
        [],
        None,
        "tensor([1.2346e+08, 2.0000e+08])",
        id="sci_large_max",
    ),
    pytest.param(
        np.array([0.0002, 0.15, 0.1999]),
        "float64",
        True,
        [],
        None,
        "tensor([0.0002, 0.1500, 0.1999])",
        id="no_sci_below_limits",
    ),
    pytest.param(
        np.array([1.0, 5000.0], dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([1.0000e+00, 5.0000e+03])",
        id="integral_ratio_sci",
    ),
    pytest.param(
        np.array([1.0, 1000.0, -7.0], dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([   1., 1000.,   -7.])",
        id="integral_ratio_limit",
    ),
    pytest.param(
        np.array([0.0, -0.0, 3.0]),
        "float64",
        True,
        [],
        None,
        "tensor([0., -0., 3.])",
        id="integral_small_values",
    ),
    pytest.param(
        np.array([np.nan, np.inf, -np.inf], dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([nan, inf, -inf])",
        id="nan_inf_only",
    ),
    pytest.param(
        np.array([1.5, np.nan, -np.inf, 2.0, 0.0], dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([1.5000,    nan,   -inf, 2.0000, 0.0000])",
        id="nan_inf_mixed",
    ),
    pytest.param(
        np.array([1e-6, np.nan, np.inf, -3.0], dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([ 1.0000e-06,         nan,         inf, -3.0000e+00])",
        id="nan_inf_sci",
    ),
    pytest.param(
        np.array([np.nan, 2.0, -np.inf]),
        "float64",
        True,
        [],
        None,
        "tensor([nan, 2., -inf])",
        id="nan_integral",
    ),
    pytest.param(
        np.array(np.nan, dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor(nan)",
        id="scalar_nan",
    ),
    pytest.param(
        np.array(1e-5, dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor(1.0000e-05)",
        id="scalar_sci",
    ),
    pytest.param(
        np.array([-1.25, 2.5, 100.125, -0.5], dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([ -1.2500,   2.5000, 100.1250,  -0.5000])",
        id="negative_alignment",
    ),
    pytest.param(
        np.array([1.00005, 2.00005], dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([1.0000, 2.0001])",
        id="float32_own_rounding",
    ),
    pytest.param(
        np.array([1.00005, 2.00005]),
        "float64",
        True,
        [],
        None,
        "tensor([1.0001, 2.0000])",
        id="float64_own_rounding",
    ),
    pytest.param(
        np.array([1, 2], dtype=np.int64),
        "int64",
        False,
        [],
        None,
        "tensor([1, 2])",
        id="int64_vector",
    ),
    pytest.param(
        np.array([-10, 5, 300], dtype=np.int64),
        "int64",
        False,
        [],
        None,
        "tensor([-10,   5, 300])",
        id="int64_alignment",
    ),
    pytest.param(
        np.array(7, dtype=np.int64),
        "int64",
        False,
        [],
        None,
        "tensor(7)",
        id="int64_scalar",
    ),
    pytest.param(
        np.array([True, False]),
        "bool",
        False,
        [],
        None,
        "tensor([ True, False])",
        id="bool_vector",
    ),
    pytest.param(
        np.array(False),
        "bool",
        False,
        [],
        None,
        "tensor(False)",
        id="bool_scalar",
    ),
    pytest.param(
        np.array([[0.2275, 0.6809], [1.6400, 1.5783]], dtype=np.float32),
        "float32",
        True,
        ["grad_fn=<MulBackward0>"],
        None,
        ("tensor([[0.2275, 0.6809],\n        [1.6400, 1.5783]], grad_fn=<MulBackward0>)"),
        id="two_d_grad_fn",
    ),
    pytest.param(
        np.array([[1, -2, 3], [40, 5, 6]], dtype=np.int64),
        "int64",
        False,
        [],
        None,
        ("tensor([[ 1, -2,  3],\n        [40,  5,  6]])"),
        id="two_d_int",
    ),
    pytest.param(
        np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 4,
        "float32",
        True,
        ["requires_grad=True"],
        None,
        (
            "tensor([[[0.0000, 0.2500],\n"
            "         [0.5000, 0.7500],\n"
            "         [1.0000, 1.2500]],\n"
            "\n"
            "        [[1.5000, 1.7500],\n"
            "         [2.0000, 2.2500],\n"
            "         [2.5000, 2.7500]]], requires_grad=True)"
        ),
        id="three_d_blocks",
    ),
    pytest.param(
        np.arange(16, dtype=np.int64).reshape(2, 2, 2, 2),
        "int64",
        False,
        [],
        None,
        (
            "tensor([[[[ 0,  1],\n"
            "          [ 2,  3]],\n"
            "\n"
            "         [[ 4,  5],\n"
            "          [ 6,  7]]],\n"
            "\n"
            "\n"
            "        [[[ 8,  9],\n"
            "          [10, 11]],\n"
            "\n"
            "         [[12, 13],\n"
            "          [14, 15]]]])"
        ),
        id="four_d_blocks",
    ),
    pytest.param(
        np.arange(2000, dtype=np.float32),
        "float32",
        True,
        [],
        None,
        (
            "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
            "        1.9990e+03])"
        ),
        id="summarize_arange_2000",
    ),
    pytest.param(
        np.arange(10000, dtype=np.float32).reshape(100, 100) / 100,
        "float32",
        True,
        [],
        None,
        (
            "tensor([[0.0000e+00, 1.0000e-02, 2.0000e-02,  ..., 9.7000e-01, 9.8000e-01,\n"
            "         9.9000e-01],\n"
            "        [1.0000e+00, 1.0100e+00, 1.0200e+00,  ..., 1.9700e+00, 1.9800e+00,\n"
            "         1.9900e+00],\n"
            "        [2.0000e+00, 2.0100e+00, 2.0200e+00,  ..., 2.9700e+00, 2.9800e+00,\n"
            "         2.9900e+00],\n"
            "        ...,\n"
            "        [9.7000e+01, 9.7010e+01, 9.7020e+01,  ..., 9.7970e+01, 9.7980e+01,\n"
            "         9.7990e+01],\n"
            "        [9.8000e+01, 9.8010e+01, 9.8020e+01,  ..., 9.8970e+01, 9.8980e+01,\n"
            "         9.8990e+01],\n"
            "        [9.9000e+01, 9.9010e+01, 9.9020e+01,  ..., 9.9970e+01, 9.9980e+01,\n"
            "         9.9990e+01]])"
        ),
        id="summarize_100x100",
    ),
    pytest.param(
        np.arange(1200, dtype=np.int64).reshape(12, 10, 10),
        "int64",
        False,
        [],
        None,
        (
            "tensor([[[   0,    1,    2,  ...,    7,    8,    9],\n"
            "         [  10,   11,   12,  ...,   17,   18,   19],\n"
            "         [  20,   21,   22,  ...,   27,   28,   29],\n"
            "         ...,\n"
            "         [  70,   71,   72,  ...,   77,   78,   79],\n"
            "         [  80,   81,   82,  ...,   87,   88,   89],\n"
            "         [  90,   91,   92,  ...,   97,   98,   99]],\n"
            "\n"
            "        [[ 100,  101,  102,  ...,  107,  108,  109],\n"
            "         [ 110,  111,  112,  ...,  117,  118,  119],\n"
            "         [ 120,  121,  122,  ...,  127,  128,  129],\n"
            "         ...,\n"
            "         [ 170,  171,  172,  ...,  177,  178,  179],\n"
            "         [ 180,  181,  182,  ...,  187,  188,  189],\n"
            "         [ 190,  191,  192,  ...,  197,  198,  199]],\n"
            "\n"
            "        [[ 200,  201,  202,  ...,  207,  208,  209],\n"
            "         [ 210,  211,  212,  ...,  217,  218,  219],\n"
            "         [ 220,  221,  222,  ...,  227,  228,  229],\n"
            "         ...,\n"
            "         [ 270,  271,  272,  ...,  277,  278,  279],\n"
            "         [ 280,  281,  282,  ...,  287,  288,  289],\n"
            "         [ 290,  291,  292,  ...,  297,  298,  299]],\n"
            "\n"
            "        ...,\n"
            "\n"
            "        [[ 900,  901,  902,  ...,  907,  908,  909],\n"
            "         [ 910,  911,  912,  ...,  917,  918,  919],\n"
            "         [ 920,  921,  922,  ...,  927,  928,  929],\n"
            "         ...,\n"
            "         [ 970,  971,  972,  ...,  977,  978,  979],\n"
            "         [ 980,  981,  982,  ...,  987,  988,  989],\n"
            "         [ 990,  991,  992,  ...,  997,  998,  999]],\n"
            "\n"
            "        [[1000, 1001, 1002,  ..., 1007, 1008, 1009],\n"
            "         [1010, 1011, 1012,  ..., 1017, 1018, 1019],\n"
            "         [1020, 1021, 1022,  ..., 1027, 1028, 1029],\n"
            "         ...,\n"
            "         [1070, 1071, 1072,  ..., 1077, 1078, 1079],\n"
            "         [1080, 1081, 1082,  ..., 1087, 1088, 1089],\n"
            "         [1090, 1091, 1092,  ..., 1097, 1098, 1099]],\n"
            "\n"
            "        [[1100, 1101, 1102,  ..., 1107, 1108, 1109],\n"
            "         [1110, 1111, 1112,  ..., 1117, 1118, 1119],\n"
            "         [1120, 1121, 1122,  ..., 1127, 1128, 1129],\n"
            "         ...,\n"
            "         [1170, 1171, 1172,  ..., 1177, 1178, 1179],\n"
            "         [1180, 1181, 1182,  ..., 1187, 1188, 1189],\n"
            "         [1190, 1191, 1192,  ..., 1197, 1198, 1199]]])"
        ),
        id="summarize_3d",
    ),
    pytest.param(
        np.concatenate([[1.5, 2.5, 3.5], np.full(1000, 1e-9), [4.5, 5.5, 6.5]]).astype(np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([1.5000, 2.5000, 3.5000,  ..., 4.5000, 5.5000, 6.5000])",
        id="summarize_hidden_values_ignored",
    ),
    pytest.param(
        np.arange(30, dtype=np.float32) / 7,
        "float32",
        True,
        [],
        None,
        (
            "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, "
            "1.1429,\n"
            "        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, "
            "2.4286,\n"
            "        2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, "
            "3.7143,\n"
            "        3.8571, 4.0000, 4.1429])"
        ),
        id="wrap_long_vector",
    ),
    pytest.param(
        np.arange(24) * 1.5,
        "float64",
        False,
        ["grad_fn=<MulBackward0>"],
        None,
        (
            "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, "
            "10.5000,\n"
            "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, "
            "22.5000,\n"
            "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, "
            "34.5000],\n"
            "       dtype=symgrad.float64, grad_fn=<MulBackward0>)"
        ),
        id="wrap_long_vector_float64_grad",
    ),
    pytest.param(
        np.array([[0.5, 1.5], [2.5, 3.5]]),
        "float64",
        False,
        ["requires_grad=True"],
        None,
        (
            "tensor([[0.5000, 1.5000],\n"
            "        [2.5000, 3.5000]], dtype=symgrad.float64, requires_grad=True)"
        ),
        id="suffix_same_line_after_bracket",
    ),
    pytest.param(
        np.arange(20, dtype=np.float64).reshape(5, 4) * 1111.0625,
        "float64",
        False,
        ["grad_fn=<MulBackward0>"],
        None,
        (
            "tensor([[    0.0000,  1111.0625,  2222.1250,  3333.1875],\n"
            "        [ 4444.2500,  5555.3125,  6666.3750,  7777.4375],\n"
            "        [ 8888.5000,  9999.5625, 11110.6250, 12221.6875],\n"
            "        [13332.7500, 14443.8125, 15554.8750, 16665.9375],\n"
            "        [17777.0000, 18888.0625, 19999.1250, 21110.1875]], "
            "dtype=symgrad.float64,\n"
            "       grad_fn=<MulBackward0>)"
        ),
        id="suffix_moves_to_new_line",
    ),
    pytest.param(
        np.array([0.25, 1.5, 2.75, 3.125, 4.5, 5.5, 6.5, 7.5, 8.5]),
        "float64",
        False,
        ["grad_fn=<AddBackward0>"],
        None,
        (
            "tensor([0.2500, 1.5000, 2.7500, 3.1250, 4.5000, 5.5000, 6.5000, 7.5000, "
            "8.5000],\n"
            "       dtype=symgrad.float64, grad_fn=<AddBackward0>)"
        ),
        id="suffix_long_single_line",
    ),
    pytest.param(
        np.arange(10.0, 20.0),
        "float64",
        False,
        [],
        None,
        ("tensor([10., 11., 12., 13., 14., 15., 16., 17., 18., 19.], dtype=symgrad.float64)"),
        id="dtype_suffix_wraps_like_torch",
    ),
    pytest.param(
        np.arange(10.0, 20.0, dtype=np.float32),
        "float32",
        False,
        ["requires_grad=True"],
        None,
        (
            "tensor([10., 11., 12., 13., 14., 15., 16., 17., 18., 19.], "
            "dtype=symgrad.float32,\n"
            "       requires_grad=True)"
        ),
        id="second_suffix_wraps_to_new_line",
    ),
    pytest.param(
        np.ones(0, dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([])",
        id="empty_default",
    ),
    pytest.param(
        np.ones(0),
        "float64",
        False,
        [],
        None,
        "tensor([], dtype=symgrad.float64)",
        id="empty_float64",
    ),
    pytest.param(
        np.ones((2, 0), dtype=np.float32),
        "float32",
        True,
        [],
        None,
        "tensor([], size=(2, 0))",
        id="empty_2d",
    ),
    pytest.param(
        np.ones((2, 0), dtype=np.int64),
        "int64",
        False,
        [],
        None,
        "tensor([], size=(2, 0), dtype=symgrad.int64)",
        id="empty_2d_int64",
    ),
    pytest.param(
        np.ones(0, dtype=bool),
        "bool",
        False,
        [],
        None,
        "tensor([], dtype=symgrad.bool)",
        id="empty_bool",
    ),
    pytest.param(
        np.ones((0, 3), dtype=np.float32),
        "float32",
        True,
        ["requires_grad=True"],
        None,
        "tensor([], size=(0, 3), requires_grad=True)",
        id="empty_requires_grad",
    ),
    pytest.param(
        np.array([1.23456, -0.5], dtype=np.float32),
        "float32",
        True,
        [],
        [{"precision": 2}],
        "tensor([ 1.23, -0.50])",
        id="option_precision",
    ),
    pytest.param(
        np.array([1.5, 2.0, -3.0], dtype=np.float32),
        "float32",
        True,
        [],
        [{"sci_mode": True}],
        "tensor([ 1.5000e+00,  2.0000e+00, -3.0000e+00])",
        id="option_sci_mode_true",
    ),
    pytest.param(
        np.array([1e10, 2.5, -3.0], dtype=np.float32),
        "float32",
        True,
        [],
        [{"sci_mode": False}],
        "tensor([10000000000.0000,           2.5000,          -3.0000])",
        id="option_sci_mode_false",
    ),
    pytest.param(
        np.array([0.0, 0.0], dtype=np.float32),
        "float32",
        True,
        [],
        [{"sci_mode": True}],
        "tensor([0., 0.])",
        id="option_sci_mode_ignored_for_zeros",
    ),
    pytest.param(
        np.arange(10, dtype=np.int64),
        "int64",
        False,
        [],
        [{"threshold": 5, "edgeitems": 2}],
        "tensor([0, 1,  ..., 8, 9])",
        id="option_threshold_edgeitems",
    ),
    pytest.param(
        np.arange(10, dtype=np.float32) / 3,
        "float32",
        True,
        ["requires_grad=True"],
        [{"linewidth": 40}],
        (
            "tensor([0.0000, 0.3333, 0.6667, 1.0000,\n"
            "        1.3333, 1.6667, 2.0000, 2.3333,\n"
            "        2.6667, 3.0000],\n"
            "       requires_grad=True)"
        ),
        id="option_linewidth",
    ),
    pytest.param(
        np.arange(5, dtype=np.float32),
        "float32",
        True,
        [],
        [{"edgeitems": 0}],
        "tensor([0., 1., 2., 3., 4.], size=(5,))",
        id="option_edgeitems_zero",
    ),
    pytest.param(
        np.arange(1001, dtype=np.float32) / 3,
        "float32",
        True,
        [],
        [{"profile": "short"}],
        "tensor([0.00e+00, 3.33e-01,  ..., 3.33e+02, 3.33e+02])",
        id="profile_short",
    ),
    pytest.param(
        np.arange(10, dtype=np.int64),
        "int64",
        False,
        [],
        [{"threshold": 5}, {"profile": "full"}],
        "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])",
        id="profile_full",
    ),
]


@pytest.mark.parametrize(
    ("values", "dtype_name", "is_default", "suffixes", "options", "expected"), CASES
)
def test_matches_torch_repr(
    values: np.ndarray,
    dtype_name: str,
    is_default: bool,
    suffixes: list[str],
    options: list[dict] | None,
    expected: str,
) -> None:
    for option_set in options or []:
        set_printoptions(**option_set)
    assert format_tensor(values, dtype_name, is_default, suffixes) == expected


def test_suffixes_default_to_none() -> None:
    assert format_tensor(np.array([1.5, 2.0]), "float64", True) == "tensor([1.5000, 2.0000])"


def test_input_array_is_not_modified() -> None:
    values = np.array([[1e-6, np.nan], [3.0, -np.inf]], dtype=np.float32)
    before = values.copy()
    format_tensor(values, "float32", True)
    np.testing.assert_array_equal(values, before)


def test_get_printoptions_defaults() -> None:
    assert get_printoptions() == DEFAULT_OPTIONS


def test_set_printoptions_updates_options() -> None:
    set_printoptions(precision=2, threshold=10, edgeitems=1, linewidth=60, sci_mode=True)
    assert get_printoptions() == {
        "precision": 2,
        "threshold": 10,
        "edgeitems": 1,
        "linewidth": 60,
        "sci_mode": True,
    }


def test_profiles() -> None:
    set_printoptions(profile="short")
    assert get_printoptions() == {**DEFAULT_OPTIONS, "precision": 2, "edgeitems": 2}
    set_printoptions(profile="full")
    options = get_printoptions()
    assert math.isinf(options["threshold"])
    assert {k: v for k, v in options.items() if k != "threshold"} == {
        k: v for k, v in DEFAULT_OPTIONS.items() if k != "threshold"
    }
    set_printoptions(profile="default")
    assert get_printoptions() == DEFAULT_OPTIONS


def test_profile_then_explicit_argument() -> None:
    set_printoptions(profile="short", precision=6)
    assert get_printoptions()["precision"] == 6
    assert get_printoptions()["edgeitems"] == 2


def test_sci_mode_is_reset_by_next_call() -> None:
    # torch assigns sci_mode on every call, so omitting it restores auto mode.
    set_printoptions(sci_mode=True)
    set_printoptions(precision=3)
    assert get_printoptions()["sci_mode"] is None
    assert format_tensor(np.array([1.5, 2.0]), "float64", True) == "tensor([1.500, 2.000])"


def test_unknown_profile_is_ignored() -> None:
    set_printoptions(precision=2)
    set_printoptions(profile="no-such-profile")
    assert get_printoptions() == {**DEFAULT_OPTIONS, "precision": 2}


def test_options_affect_later_output_only_until_reset() -> None:
    values = np.array([1.23456], dtype=np.float32)
    set_printoptions(precision=1)
    assert format_tensor(values, "float32", True) == "tensor([1.2])"
    set_printoptions(profile="default")
    assert format_tensor(values, "float32", True) == "tensor([1.2346])"
