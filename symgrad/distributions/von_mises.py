"""The von Mises distribution on the circle, PyTorch's ``VonMises``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution, broadcast_all, lazy_property
from symgrad.tensor import Size, Tensor

# Abramowitz & Stegun 9.8.1–9.8.4: polynomial approximations of the modified Bessel functions
# I0 and I1, in (x / 3.75)² below 3.75 and in 3.75 / x above (where I_n(x) √x e^-x is given);
# relative error about 1e-7, as PyTorch's VonMises uses them
_SMALL = ((1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813),
          (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411))
_LARGE = ((0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706,
           0.02635537, -0.01647633, 0.00392377),
          (0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967,
           -0.02895312, 0.01787654, -0.00420059))


def _polynomial(y: Tensor, coefficients: Sequence[float]) -> Tensor:
    """``Σ c_i y^i`` by Horner's rule."""
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = c + y * result
    return result


def _log_bessel_i(x: Tensor, order: int) -> Tensor:
    """``log I_order(x)`` for x > 0 and order 0 or 1, from the approximations above."""
    small = _polynomial((x / 3.75) * (x / 3.75), _SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _polynomial(3.75 / x, _LARGE[order]).log()
    return symgrad.where(x < 3.75, small.log(), large)


class VonMises(Distribution):
    """The von Mises distribution of angles about ``loc`` with ``concentration`` κ: density
    ``exp(κ cos(x - loc)) / (2π I0(κ))`` (I0 from Abramowitz & Stegun's approximation, as
    PyTorch). Angles are read modulo 2π; samples lie in [-π, π). No ``rsample``.

    >>> symgrad.distributions.VonMises(symgrad.tensor(0.0), symgrad.tensor(2.0)).log_prob(
    ...     symgrad.tensor(0.5))
    tensor(-0.9067)
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Tensor | float, concentration: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def expand(self, batch_shape: Sequence[int]) -> VonMises:
        """The same distribution with its parameters expanded to ``batch_shape``.

        >>> symgrad.distributions.VonMises(0.0, 1.0).expand((2,)).batch_shape
        symgrad.Size([2])
        """
        return self._expanded(batch_shape, loc=self.loc.expand(batch_shape),
                              concentration=self.concentration.expand(batch_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """``κ cos(value - loc) - log 2π - log I0(κ)``."""
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * symgrad.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_bessel_i(self.concentration, 0)

    @property
    def mean(self) -> Tensor:
        """``loc`` (the circular mean)."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        """The circular variance ``1 - I1(κ) / I0(κ)``."""
        return 1 - (_log_bessel_i(self.concentration, 1)
                    - _log_bessel_i(self.concentration, 0)).exp()

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        """Best and Fisher's rejection sampler (1979), in float64, not recorded.

        >>> symgrad.distributions.VonMises(symgrad.zeros(2), 1.0).sample((3,)).shape
        symgrad.Size([3, 2])
        """
        shape = tuple(self._extended_shape(sample_shape))
        with symgrad.no_grad():
            loc = self.loc.detach().double()
            kappa = self.concentration.detach().double()
            tau = 1 + (1 + 4 * kappa ** 2).sqrt()
            rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
            # (near κ = 0 the closed form cancels: its expansion 1/κ + κ instead)
            r = symgrad.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
            kappa, r = kappa.expand(shape), r.expand(shape)
            x = symgrad.zeros(shape, dtype=symgrad.float64)
            done = symgrad.zeros(shape, dtype=symgrad.bool)
            while not bool(done.all()):
                u1, u2, u3 = symgrad.rand((3, *shape), dtype=symgrad.float64).unbind()
                z = symgrad.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
                x = symgrad.where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
                done = done | accept
            return ((x + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)
