"""F.affine_grid and F.grid_sample (bilinear / nearest, zeros / border padding, align_corners):
values and gradients (input and grid) against PyTorch 2.13's, recorded here from seeded inputs
(torch is not imported), gradcheck, the symbolic check and PyTorch's errors and warnings."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F
from symgrad import symbolic

# affine_grid of THETA for size (1, 1, 2, 3), align_corners False then True
GRIDS = [
    [-0.283333333333, -1.083333333333, 0.25, -0.95, 0.783333333333, -0.816666666667,
     -0.583333333333, 0.016666666667, -0.05, 0.15, 0.483333333333, 0.283333333333],
    [-0.4, -1.7, 0.4, -1.5, 1.2, -1.3, -1.0, 0.5, -0.2, 0.7, 0.6, 0.9],
]
# (mode, padding_mode, align_corners, sum(out), sum(out * cot), sum(d input * arange),
#  sum(d grid * arange))
SAMPLES = [
    ('bilinear', 'zeros', False, -2.604339249, -1.380443843, -52.98651, -195.919826),
    ('bilinear', 'border', True, -6.462369851, 4.5962541865, 11.0385, -55.2404135),
    ('nearest', 'zeros', True, 3.004, -0.551, 24.0, 0.0),
    ('nearest', 'border', False, 8.313, -3.925, 22.0, 0.0),
    ('bilinear', 'zeros', True, -0.5941366705, 0.7723268845, -48.859755, 69.037222),
]


THETA = [[[0.8, -0.3, 0.1], [0.2, 1.1, -0.4]]]


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_pytorch(align_corners):
    grid = F.affine_grid(t.tensor(THETA, dtype=t.float64), (1, 1, 2, 3),
                         align_corners=align_corners)
    assert tuple(grid.shape) == (1, 2, 3, 2)
    np.testing.assert_allclose(grid.numpy().ravel(), GRIDS[align_corners], atol=1e-11)
    theta = t.tensor(THETA, dtype=t.float64, requires_grad=True)
    assert t.autograd.gradcheck(lambda th: F.affine_grid(th, (1, 1, 2, 3), align_corners=False),
                                (theta,))


@pytest.mark.parametrize("case", SAMPLES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_grid_sample_matches_pytorch(case):
    mode, padding_mode, align_corners, total, weighted, input_grad, grid_grad = case
    ci = SAMPLES.index(case)
    rng = np.random.default_rng(10 + ci)
    image = t.tensor(rng.normal(size=(2, 2, 3, 4)).round(3), requires_grad=True)
    grid = t.tensor(rng.uniform(-1.3, 1.3, size=(2, 2, 3, 2)).round(3), requires_grad=True)
    y = F.grid_sample(image, grid, mode=mode, padding_mode=padding_mode,
                      align_corners=align_corners)
    cot = t.tensor(np.arange(y.numel()).reshape(tuple(y.shape)) % 5 - 2.0)
    (y * cot).sum().backward()
    np.testing.assert_allclose(y.detach().sum().item(), total, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose((y * cot).detach().sum().item(), weighted, rtol=1e-9, atol=1e-9)
    arange = t.arange(image.numel(), dtype=t.float64).reshape(tuple(image.shape))
    np.testing.assert_allclose((image.grad * arange).sum().item(), input_grad, rtol=1e-9,
                               atol=1e-9)
    if mode == "bilinear":
        arange = t.arange(grid.numel(), dtype=t.float64).reshape(tuple(grid.shape))
        np.testing.assert_allclose((grid.grad * arange).sum().item(), grid_grad, rtol=1e-9,
                                   atol=1e-9)
        assert t.autograd.gradcheck(
            lambda a, g: F.grid_sample(a, g, padding_mode=padding_mode,
                                       align_corners=align_corners),
            (image.detach().requires_grad_(), grid.detach().requires_grad_()))
        symbolic.check((y * cot).sum())


def test_errors_and_warnings():
    image, grid = t.ones(1, 1, 2, 2), t.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has "
                                         "changed to align_corners=False since 1.3.0."):
        F.grid_sample(image, grid)
    with pytest.raises(ValueError, match="nn.functional.grid_sample\\(\\): expected mode to be "
                                         "'bilinear', 'nearest' or 'bicubic', but got: 'area'"):
        F.grid_sample(image, grid, mode="area", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or "
                                         "'reflection', but got: 'wrap'"):
        F.grid_sample(image, grid, padding_mode="wrap", align_corners=False)
    with pytest.raises(NotImplementedError):
        F.grid_sample(image, grid, mode="bicubic", align_corners=False)
    with pytest.raises(ValueError, match="Expected a batch of 2D affine matrices of shape Nx2x3 "
                                         "for size \\(1, 1, 2, 2\\)."):
        F.affine_grid(t.ones(1, 3, 4), (1, 1, 2, 2), align_corners=False)
    with pytest.raises(NotImplementedError, match="affine_grid only supports 4D and 5D sizes"):
        F.affine_grid(t.ones(1, 2, 3), (1, 2, 3), align_corners=False)
    with pytest.raises(ValueError, match="Expected theta to have floating point type"):
        F.affine_grid(t.ones(1, 2, 3, dtype=t.int64), (1, 1, 2, 2), align_corners=False)
