"""Elementwise bijections of tensors with the log of their Jacobian's absolute value, PyTorch's
``torch.distributions.transforms`` for the transforms of one element at a time (event_dim 0):
``ExpTransform``, ``AffineTransform``, ``SigmoidTransform``, ``TanhTransform``, ``AbsTransform``,
``PowerTransform`` and ``ComposeTransform``; ``t.inv`` is the inverse."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import symgrad
from symgrad.distributions import constraints
from symgrad.tensor import Tensor

__all__ = ["AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
           "PowerTransform", "SigmoidTransform", "TanhTransform", "Transform"]


class Transform:
    """A map ``y = t(x)`` with its inverse ``t.inv`` and ``log_abs_det_jacobian(x, y)``, from
    ``domain`` to ``codomain``; ``sign`` is +1 or -1 for a monotone one.

    >>> t = symgrad.distributions.transforms.ExpTransform()
    >>> t(symgrad.tensor(0.0)), t.inv(symgrad.tensor(1.0))
    (tensor(1.), tensor(0.))
    """

    bijective = False
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real

    def __init__(self) -> None:
        self._inv: Transform | None = None

    @property
    def event_dim(self) -> int:
        """The dims of one event the map couples (0: it maps elements)."""
        return self.domain.event_dim

    @property
    def sign(self) -> int:
        """+1 for an increasing map, -1 for a decreasing one."""
        raise NotImplementedError

    @property
    def inv(self) -> Transform:
        """The inverse map."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    def __call__(self, x: Tensor) -> Tensor:
        return self._call(x)

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``log |dy/dx|`` elementwise."""
        raise NotImplementedError

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        """The shape of ``t(x)`` for ``x`` of ``shape``."""
        return shape

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        """The shape of ``t.inv(y)`` for ``y`` of ``shape``."""
        return shape

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform: its calls swapped, its Jacobian negated."""

    def __init__(self, transform: Transform) -> None:
        super().__init__()
        self._inv = transform

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.codomain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective

    @property
    def sign(self) -> int:
        return self._inv.sign

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inverse(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __hash__(self) -> int:
        return hash(("inverse", self._inv))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._inv!r})"


class ExpTransform(Transform):
    """``y = exp(x)``."""

    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    def __hash__(self) -> int:
        return hash(ExpTransform)


def _same(a: Tensor | float, b: Tensor | float) -> bool:
    """Whether two parameters (numbers or tensors) are equal throughout."""
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return bool(symgrad.as_tensor(a == b).all())


class AffineTransform(Transform):
    """``y = loc + scale x`` (numbers or tensors).

    >>> symgrad.distributions.transforms.AffineTransform(1.0, 2.0)(symgrad.tensor(3.0))
    tensor(7.)
    """

    bijective = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float, event_dim: int = 0) -> None:
        if event_dim != 0:
            raise NotImplementedError("symgrad's AffineTransform maps elements (event_dim=0)")
        super().__init__()
        self.loc, self.scale = loc, scale

    @property
    def sign(self) -> Any:
        """The sign of ``scale``."""
        if isinstance(self.scale, int | float):
            return 1 if self.scale > 0 else -1 if self.scale < 0 else 0
        return self.scale.sign()

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        scale = self.scale
        if isinstance(scale, int | float):
            return symgrad.full_like(x, math.log(abs(scale)))
        return scale.abs().log().expand_as(x) if scale.shape != x.shape else scale.abs().log()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AffineTransform) and _same(self.loc, other.loc) and \
            _same(self.scale, other.scale)

    def __hash__(self) -> int:
        return hash(AffineTransform)


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``."""

    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        eps = float(symgrad.finfo(x.dtype).eps)
        return x.sigmoid().clamp(min=eps, max=1 - eps)

    def _inverse(self, y: Tensor) -> Tensor:
        eps = float(symgrad.finfo(y.dtype).eps)
        y = y.clamp(min=eps, max=1 - eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        from symgrad.nn.functional import softplus

        return -softplus(-x) - softplus(x)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    def __hash__(self) -> int:
        return hash(SigmoidTransform)


class TanhTransform(Transform):
    """``y = tanh(x)``."""

    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        from symgrad.nn.functional import softplus

        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    def __hash__(self) -> int:
        return hash(TanhTransform)


class AbsTransform(Transform):
    """``y = |x|`` (not bijective: its inverse gives the positive root)."""

    codomain = constraints.positive

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    def __hash__(self) -> int:
        return hash(AbsTransform)


class PowerTransform(Transform):
    """``y = x ** exponent`` on positive x."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Tensor | float) -> None:
        super().__init__()
        self.exponent = exponent

    @property
    def sign(self) -> Any:
        """The sign of ``exponent``."""
        if isinstance(self.exponent, int | float):
            return 1 if self.exponent > 0 else -1 if self.exponent < 0 else 0
        return self.exponent.sign()

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return (self.exponent * y / x).abs().log()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and _same(self.exponent, other.exponent)

    def __hash__(self) -> int:
        return hash(PowerTransform)


class ComposeTransform(Transform):
    """The transforms ``parts`` applied in order.

    >>> T = symgrad.distributions.transforms
    >>> T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)])(symgrad.tensor(0.0))
    tensor(3.)
    """

    def __init__(self, parts: Sequence[Transform]) -> None:
        super().__init__()
        self.parts = list(parts)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.parts[0].domain if self.parts else constraints.real

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.parts[-1].codomain if self.parts else constraints.real

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> Any:
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    def __call__(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y: Tensor) -> Tensor:
        for part in reversed(self.parts):
            y = part.inv(y)
        return y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return symgrad.zeros_like(x)
        total = 0
        for part in self.parts:
            following = part(x)
            total = total + part.log_abs_det_jacobian(x, following)
            x = following
        return total

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    def __hash__(self) -> int:
        return hash(ComposeTransform)

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"
