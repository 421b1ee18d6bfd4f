"""Maps of tensors with the log of their Jacobian's absolute value, PyTorch's
``torch.distributions.transforms``: elementwise ones (``ExpTransform``, ``AffineTransform``,
``SigmoidTransform``, ``TanhTransform``, ``SoftplusTransform``, ``AbsTransform``,
``PowerTransform``), ones coupling an event's elements (``SoftmaxTransform``,
``StickBreakingTransform``, ``LowerCholeskyTransform``, ``ReshapeTransform``), and the
combinators ``ComposeTransform``, ``IndependentTransform`` and
``CumulativeDistributionTransform``; ``t.inv`` is the inverse."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import symgrad
from symgrad.distributions import constraints
from symgrad.distributions.distribution import (
    _sum_rightmost,
    tril_matrix_to_vec,
    vec_to_tril_matrix,
)
from symgrad.tensor import Tensor

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "Transform", "identity_transform"]


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

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple[Any, Any] = (None, None)
        self._inv: Transform | None = None

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same map keeping its last ``(x, y)`` pair (``cache_size=1``): calling it on that
        ``x``, or its inverse on that ``y``, returns the other without computing.

        >>> t = symgrad.distributions.transforms.ExpTransform().with_cache()
        >>> x = symgrad.tensor(1.0)
        >>> t.inv(t(x)) is x
        True
        """
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

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
        if not self._cache_size:
            return self._call(x)
        if x is self._cached_x_y[0]:
            return self._cached_x_y[1]
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        """The inverse at ``y`` (the cached ``x`` if ``y`` is the cached output)."""
        if not self._cache_size:
            return self._inverse(y)
        if y is self._cached_x_y[1]:
            return self._cached_x_y[0]
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

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
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self._inv.with_cache(cache_size).inv

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
        return self._inv._inv_call(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self._inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return self._inv.forward_shape(shape)

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


def _broadcast_shape(shape: Sequence[int], *parameters: Tensor | float) -> tuple[int, ...]:
    """``shape`` broadcast with the shapes of the tensor ``parameters``."""
    shapes = [tuple(p.shape) for p in parameters if isinstance(p, Tensor)]
    return tuple(symgrad.broadcast_shapes(tuple(shape), *shapes))


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

    def __init__(self, loc: Tensor | float, scale: Tensor | float, event_dim: int = 0,
                 cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc, self.scale = loc, scale
        self._event_dim = event_dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    @property
    def event_dim(self) -> int:
        """The trailing dims read as one event (their log-Jacobians summed)."""
        return self._event_dim

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        """The reals, over ``event_dim`` dims."""
        return constraints.independent(constraints.real, self._event_dim) \
            if self._event_dim else constraints.real

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        """The reals, over ``event_dim`` dims."""
        return self.domain

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        """``shape`` broadcast with the parameters'."""
        return _broadcast_shape(shape, self.loc, self.scale)

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        """``shape`` broadcast with the parameters'."""
        return _broadcast_shape(shape, self.loc, self.scale)

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
        """``log |scale|`` at each element, summed over the last ``event_dim`` dims."""
        scale = self.scale
        if isinstance(scale, int | float):
            result = symgrad.full_like(x, math.log(abs(scale)))
        else:
            result = scale.abs().log().expand_as(x) if scale.shape != x.shape else \
                scale.abs().log()
        if self._event_dim:
            summed = result.reshape(*result.shape[:result.ndim - self._event_dim], -1).sum(-1)
            return summed.expand(x.shape[:x.ndim - self._event_dim])
        return result

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
        info = symgrad.finfo(x.dtype)
        return x.sigmoid().clamp(min=float(info.tiny), max=1 - float(info.eps))

    def _inverse(self, y: Tensor) -> Tensor:
        info = symgrad.finfo(y.dtype)
        y = y.clamp(min=float(info.tiny), max=1 - float(info.eps))
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

    def __init__(self, exponent: Tensor | float, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.exponent = exponent

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

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

    def __init__(self, parts: Sequence[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    @property
    def inv(self) -> Transform:
        """The composition of the parts' inverses, in reverse order."""
        if self._inv is None:
            inverse = ComposeTransform([part.inv for part in reversed(self.parts)])
            inverse._inv = self
            self._inv = inverse
        return self._inv

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        """The first part's domain, over as many dims as the parts couple."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):  # (the event dims each part needs, backwards)
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim,
                            part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        """The last part's codomain, over as many dims as the parts couple."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim,
                            part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> Any:
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    def _call(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y: Tensor) -> Tensor:
        for part in reversed(self.parts):
            y = part.inv(y)
        return y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """The parts' log-Jacobians at their inputs, each summed over the event dims it
        does not couple."""
        if not self.parts:
            return symgrad.zeros_like(x)
        inputs = [x]
        for part in self.parts[:-1]:
            inputs.append(part(inputs[-1]))
        outputs = [*inputs[1:], y]
        event_dim = self.domain.event_dim
        total: Tensor | None = None
        for part, a, b in zip(self.parts, inputs, outputs, strict=True):
            term = _sum_rightmost(part.log_abs_det_jacobian(a, b),
                                  event_dim - part.domain.event_dim)
            total = term if total is None else total + term
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    def __hash__(self) -> int:
        return hash(ComposeTransform)

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``; its inverse ``log(-expm1(-y)) + y``."""

    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        from symgrad.nn.functional import softplus

        return softplus(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``log sigmoid(x) = -softplus(-x)``."""
        from symgrad.nn.functional import softplus

        return -softplus(-x)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftplusTransform)

    def __hash__(self) -> int:
        return hash(SoftplusTransform)


def _vector_shape(shape: Sequence[int]) -> Sequence[int]:
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")
    return shape


class SoftmaxTransform(Transform):
    """Real vectors to the simplex by ``softmax`` over the last dim (not bijective: its
    ``inv`` is ``log``, one of the preimages).

    >>> symgrad.distributions.transforms.SoftmaxTransform()(symgrad.zeros(2))
    tensor([0.5000, 0.5000])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x: Tensor) -> Tensor:
        shifted = (x - x.max(-1, keepdim=True)[0]).exp()
        return shifted / shifted.sum(-1, keepdim=True)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return _vector_shape(shape)

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return _vector_shape(shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    def __hash__(self) -> int:
        return hash(SoftmaxTransform)


class StickBreakingTransform(Transform):
    """Real vectors of K - 1 elements to the K-simplex, bijectively, by breaking a stick:
    ``z_i = sigmoid(x_i - log(K - i))`` of what remains (the shift maps 0 to the uniform
    point).

    >>> symgrad.distributions.transforms.StickBreakingTransform()(symgrad.zeros(2))
    tensor([0.3333, 0.3333, 0.3333])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    @staticmethod
    def _log_offsets(like: Tensor, count: int, top: int) -> Tensor:
        """``log(top - i)`` for i = 0 .. count - 1."""
        return (top - like.new_ones(count).cumsum(-1)).log()

    def _call(self, x: Tensor) -> Tensor:
        from symgrad.nn.functional import pad

        k = x.shape[-1]
        z = (x - self._log_offsets(x, k, k + 1)).sigmoid()
        remaining = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(remaining, [1, 0], value=1)

    def _inverse(self, y: Tensor) -> Tensor:
        cropped = y[..., :-1]
        left = (1 - cropped.cumsum(-1)).clamp(min=float(symgrad.finfo(y.dtype).tiny))
        return cropped.log() - left.log() + self._log_offsets(y, cropped.shape[-1],
                                                               y.shape[-1])

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``Σ (log sigmoid(u_i) - u_i + log y_i)``, ``u = x - log(K - i)``."""
        from symgrad.nn.functional import logsigmoid

        u = x - self._log_offsets(x, x.shape[-1], x.shape[-1] + 1)
        return (-u + logsigmoid(u) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        _vector_shape(shape)
        return (*shape[:-1], shape[-1] + 1)

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        _vector_shape(shape)
        return (*shape[:-1], shape[-1] - 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    def __hash__(self) -> int:
        return hash(StickBreakingTransform)


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones of positive diagonal: the strict lower part
    kept, the diagonal exponentiated (not bijective).

    >>> symgrad.distributions.transforms.LowerCholeskyTransform()(symgrad.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x: Tensor) -> Tensor:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    def __hash__(self) -> int:
        return hash(LowerCholeskyTransform)


class IndependentTransform(Transform):
    """``base_transform`` with its last ``reinterpreted_batch_ndims`` batch dims read as event
    dims: its log-Jacobian summed over them.

    >>> T = symgrad.distributions.transforms
    >>> T.IndependentTransform(T.ExpTransform(), 1).log_abs_det_jacobian(
    ...     symgrad.ones(2), symgrad.ones(2).exp())
    tensor(2.)
    """

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int,
                 cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        """The base's domain over the reinterpreted dims."""
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        """The base's codomain over the reinterpreted dims."""
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:
        return self.base_transform.sign

    def _call(self, x: Tensor) -> Tensor:
        if x.ndim < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        if y.ndim < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_transform!r}, " \
            f"{self.reinterpreted_batch_ndims})"


class ReshapeTransform(Transform):
    """Events of shape ``in_shape`` reshaped to ``out_shape`` (as many elements): a bijection
    of log-Jacobian 0.

    >>> symgrad.distributions.transforms.ReshapeTransform((4,), (2, 2))(symgrad.arange(4.0))
    tensor([[0., 1.],
            [2., 3.]])
    """

    bijective = True

    def __init__(self, in_shape: Sequence[int], out_shape: Sequence[int],
                 cache_size: int = 0) -> None:
        self.in_shape, self.out_shape = symgrad.Size(in_shape), symgrad.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        """The reals over ``len(in_shape)`` dims."""
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        """The reals over ``len(out_shape)`` dims."""
        return constraints.independent(constraints.real, len(self.out_shape))

    def _call(self, x: Tensor) -> Tensor:
        batch = x.shape[:x.ndim - len(self.in_shape)]
        return x.reshape(*batch, *self.out_shape)

    def _inverse(self, y: Tensor) -> Tensor:
        batch = y.shape[:y.ndim - len(self.out_shape)]
        return y.reshape(*batch, *self.in_shape)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """Zeros over the batch dims."""
        return x.new_zeros(x.shape[:x.ndim - len(self.in_shape)])

    def _reshaped(self, shape: Sequence[int], source: Sequence[int],
                  target: Sequence[int]) -> tuple[int, ...]:
        if len(shape) < len(source):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(source)
        if tuple(shape[cut:]) != tuple(source):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got "
                             f"{source!r}")
        return (*shape[:cut], *target)

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return self._reshaped(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        return self._reshaped(shape, self.out_shape, self.in_shape)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: a distribution's support to the unit interval, its inverse
    the ``icdf``, its log-Jacobian the log density.

    >>> T = symgrad.distributions.transforms
    >>> T.CumulativeDistributionTransform(symgrad.distributions.Normal(0.0, 1.0))(
    ...     symgrad.tensor(0.0))
    tensor(0.5000)
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        """The distribution's support."""
        return self.distribution.support

    def _call(self, x: Tensor) -> Tensor:
        return self.distribution.cdf(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.distribution.log_prob(x)


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive definite ones: ``L Lᵀ``, L their
    :class:`LowerCholeskyTransform` (not bijective; the inverse goes through the Cholesky
    factor).

    >>> symgrad.distributions.transforms.PositiveDefiniteTransform()(symgrad.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x: Tensor) -> Tensor:
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y: Tensor) -> Tensor:
        return LowerCholeskyTransform().inv(symgrad.linalg.cholesky(y))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    def __hash__(self) -> int:
        return hash(PositiveDefiniteTransform)


class CatTransform(Transform):
    """The transforms ``tseq`` applied to consecutive slices of dim ``dim`` (of ``lengths``,
    1 each by default), joined by ``cat``.

    >>> T = symgrad.distributions.transforms
    >>> T.CatTransform([T.ExpTransform(), T.identity_transform], lengths=[1, 2])(
    ...     symgrad.zeros(3))
    tensor([1., 0., 0.])
    """

    def __init__(self, tseq: Sequence[Transform], dim: int = 0,
                 lengths: Sequence[int] | None = None, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size=cache_size)

    @property
    def event_dim(self) -> int:
        """The most event dims any part couples."""
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        """The size of dim ``dim`` the parts cover."""
        return sum(self.lengths)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        """The parts' domains, side by side."""
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        """The parts' codomains, side by side."""
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    def _check(self, z: Tensor, what: str, name: str) -> None:
        if not -z.dim() <= self.dim < z.dim():
            raise AssertionError(f"dim {self.dim} out of range for {what} with {z.dim()} "
                                 "dimensions")
        if z.size(self.dim) != self.length:
            raise AssertionError(f"{name}.size({self.dim}) = {z.size(self.dim)} must equal "
                                 f"length {self.length}")

    def _slices(self, z: Tensor) -> list[Tensor]:
        slices, start = [], 0
        for length in self.lengths:
            slices.append(z.narrow(self.dim, start, length))
            start += length
        return slices

    def _call(self, x: Tensor) -> Tensor:
        self._check(x, "tensor", "x")
        return symgrad.cat([t(s) for t, s in zip(self.transforms, self._slices(x),
                                                  strict=True)], dim=self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        self._check(y, "tensor", "y")
        return symgrad.cat([t.inv(s) for t, s in zip(self.transforms, self._slices(y),
                                                      strict=True)], dim=self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """The parts' log-Jacobians: joined along ``dim`` if it is a batch dim, summed if it
        lies within the event."""
        self._check(x, "x", "x")
        self._check(y, "y", "y")
        terms = []
        for t, a, b in zip(self.transforms, self._slices(x), self._slices(y), strict=True):
            term = t.log_abs_det_jacobian(a, b)
            if t.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - t.event_dim)
            terms.append(term)
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        if dim < 0:
            return symgrad.cat(terms, dim=dim)
        total: Any = 0
        for term in terms:
            total = total + term
        return total


class StackTransform(Transform):
    """The transforms ``tseq`` applied to the successive entries of dim ``dim``, joined by
    ``stack``.

    >>> T = symgrad.distributions.transforms
    >>> T.StackTransform([T.ExpTransform(), T.identity_transform])(symgrad.zeros(2))
    tensor([1., 0.])
    """

    def __init__(self, tseq: Sequence[Transform], dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms, self.dim = list(tseq), dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size=cache_size)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        """The parts' domains, stacked."""
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        """The parts' codomains, stacked."""
        return constraints.stack([t.codomain for t in self.transforms], self.dim)

    def _check(self, z: Tensor, what: str, name: str) -> None:
        if not -z.dim() <= self.dim < z.dim():
            raise AssertionError(f"dim {self.dim} out of range for {what} with {z.dim()} "
                                 "dimensions")
        if z.size(self.dim) != len(self.transforms):
            raise AssertionError(f"{name}.size({self.dim}) = {z.size(self.dim)} must equal "
                                 f"len(transforms) {len(self.transforms)}")

    def _entries(self, z: Tensor) -> list[Tensor]:
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x: Tensor) -> Tensor:
        self._check(x, "tensor", "x")
        return symgrad.stack([t(s) for t, s in zip(self.transforms, self._entries(x),
                                                    strict=True)], dim=self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        self._check(y, "tensor", "y")
        return symgrad.stack([t.inv(s) for t, s in zip(self.transforms, self._entries(y),
                                                        strict=True)], dim=self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """The parts' log-Jacobians, stacked."""
        self._check(x, "x", "x")
        self._check(y, "y", "y")
        return symgrad.stack([t.log_abs_det_jacobian(a, b) for t, a, b in zip(
            self.transforms, self._entries(x), self._entries(y), strict=True)], dim=self.dim)


class CorrCholeskyTransform(Transform):
    """Real vectors of ``D (D - 1) / 2`` elements to lower Cholesky factors of ``D × D``
    correlation matrices, bijectively: ``tanh`` puts each element in (-1, 1), and each row is
    filled from them by stick breaking so that it has unit norm.

    >>> symgrad.distributions.transforms.CorrCholeskyTransform()(symgrad.zeros(1))
    tensor([[1., 0.],
            [0., 1.]])
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Tensor) -> Tensor:
        from symgrad.nn.functional import pad

        eps = float(symgrad.finfo(x.dtype).eps)
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # row i: r_ij times what the earlier elements of the row left of its unit norm
        remaining = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + symgrad.eye(r.shape[-1], dtype=r.dtype)
        return r * pad(remaining[..., :-1], [1, 0], value=1)

    def _inverse(self, y: Tensor) -> Tensor:
        from symgrad.nn.functional import pad

        left = pad((1 - (y * y).cumsum(-1))[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """The stick breaking's ``Σ log(1 - Σ_{k<j} y_ik²) / 2`` plus tanh's
        ``log(1 - tanh² x)``."""
        from symgrad.nn.functional import softplus

        left = tril_matrix_to_vec(1 - (y * y).cumsum(-1), diag=-2)
        stick = 0.5 * left.log().sum(-1)
        tanh = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick + tanh

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return (*shape[:-1], d, d)

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return (*shape[:-2], d * (d - 1) // 2)
