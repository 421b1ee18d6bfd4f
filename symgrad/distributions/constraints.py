"""``symgrad.distributions.constraints``: the sets a distribution's parameters and samples must
lie in (PyTorch's ``constraints``), each with ``check(value)``: a bool tensor, elementwise (or
per event, for ``event_dim`` > 0)."""

from __future__ import annotations

from typing import Any

__all__ = ["Constraint", "MixtureSameFamilyConstraint", "boolean", "cat", "corr_cholesky",
           "dependent", "dependent_property", "greater_than", "greater_than_eq",
           "half_open_interval", "independent", "integer_interval", "interval", "is_dependent",
           "less_than", "lower_cholesky", "lower_triangular", "multinomial", "nonnegative",
           "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer",
           "positive_semidefinite", "real", "real_vector", "simplex", "square", "stack",
           "symmetric", "unit_interval"]


class Constraint:
    """A region of valid values: ``check(value)`` tells, elementwise, which values lie in it.

    >>> symgrad.distributions.constraints.positive.check(symgrad.tensor([1.0, -1.0]))
    tensor([ True, False])
    """

    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> Any:
        """Which values lie in the region (a bool tensor).

        >>> symgrad.distributions.constraints.real.check(symgrad.tensor([1.0, float("nan")]))
        tensor([ True, False])
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__.lstrip("_") + "()"


class _Real(Constraint):
    def check(self, value: Any) -> Any:
        return value == value  # (False at nan)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value: Any) -> Any:
        return (value == 0) | (value == 1)


class _Bound(Constraint):
    """A bound or two, printed as PyTorch prints them."""

    def __init__(self, **bounds: Any) -> None:
        self.__dict__.update(bounds)
        self._names = tuple(bounds)

    def __repr__(self) -> str:
        given = ", ".join(f"{name}={getattr(self, name)}" for name in self._names)
        return f"{type(self).__name__.lstrip('_')}({given})"


class _GreaterThan(_Bound):
    def __init__(self, lower_bound: Any) -> None:
        super().__init__(lower_bound=lower_bound)

    def check(self, value: Any) -> Any:
        return self.lower_bound < value


class _LessThan(_Bound):
    def __init__(self, upper_bound: Any) -> None:
        super().__init__(upper_bound=upper_bound)

    def check(self, value: Any) -> Any:
        return value < self.upper_bound


class _GreaterThanEq(_Bound):
    def __init__(self, lower_bound: Any) -> None:
        super().__init__(lower_bound=lower_bound)

    def check(self, value: Any) -> Any:
        return self.lower_bound <= value


class _Interval(_Bound):
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        super().__init__(lower_bound=lower_bound, upper_bound=upper_bound)

    def check(self, value: Any) -> Any:
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_Bound):
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        super().__init__(lower_bound=lower_bound, upper_bound=upper_bound)

    def check(self, value: Any) -> Any:
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value: Any) -> Any:
        return (value % 1 == 0) & super().check(value)


class _IntegerGreaterThan(_Bound):
    is_discrete = True

    def __init__(self, lower_bound: Any) -> None:
        super().__init__(lower_bound=lower_bound)

    def check(self, value: Any) -> Any:
        return (value % 1 == 0) & (value >= self.lower_bound)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value: Any) -> Any:
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _Multinomial(Constraint):
    """Non-negative counts summing to at most ``upper_bound`` along the last dim."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value: Any) -> Any:
        return (value >= 0).all(dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Square(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        import symgrad

        return symgrad.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                            dtype=symgrad.bool)


class _Symmetric(_Square):
    def check(self, value: Any) -> Any:
        square = super().check(value)
        if not bool(square.all()):
            return square
        return value.isclose(value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value: Any) -> Any:
        import numpy as np

        import symgrad

        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        matrices = value.detach().numpy()
        ok = np.ones(matrices.shape[:-2], dtype=bool)
        for index in np.ndindex(*matrices.shape[:-2]):
            try:
                np.linalg.cholesky(matrices[index])
            except np.linalg.LinAlgError:
                ok[index] = False
        return symgrad.tensor(ok)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        lower = (value.tril() == value).flatten(-2).all(-1)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        return (value.tril() == value).flatten(-2).all(-1)


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: rows of unit norm (to 10 ulps a row
    element)."""

    event_dim = 2

    def check(self, value: Any) -> Any:
        import numpy as np

        import symgrad

        tolerance = float(np.finfo(value.dtype.np_dtype).eps) * value.size(-1) * 10
        norms = symgrad.linalg.norm(value.detach(), dim=-1)
        return _LowerCholesky().check(value) & ((norms - 1.0).abs() <= tolerance).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value: Any) -> Any:
        import symgrad

        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return (symgrad.linalg.eigvalsh(value) >= 0).all(-1)


class _IndependentConstraint(Constraint):
    """``base`` over the last ``reinterpreted_batch_ndims`` dims at once."""

    def __init__(self, base: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint, self.reinterpreted_batch_ndims = base, reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Any) -> Any:
        result = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            result = result.all(-1)
        return result

    def __repr__(self) -> str:
        return (f"IndependentConstraint({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


def _check_dim(dim: int, value: Any, what: str = "value") -> None:
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for {what} with {value.dim()} dimensions")


class _Cat(Constraint):
    """The constraints ``cseq`` on consecutive slices (of ``lengths``, 1 each by default) of
    dim ``dim``, as ``cat`` joins them."""

    def __init__(self, cseq: Any, dim: int = 0, lengths: Any = None) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq "
                                 f"({len(self.cseq)})")
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Any) -> Any:
        import symgrad

        _check_dim(self.dim, value)
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths, strict=True):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return symgrad.cat(checks, self.dim)


class _Stack(Constraint):
    """The constraints ``cseq`` on the successive entries of dim ``dim``, as ``stack`` joins
    them."""

    def __init__(self, cseq: Any, dim: int = 0) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq, self.dim = list(cseq), dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value: Any) -> Any:
        import symgrad

        _check_dim(self.dim, value)
        entries = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return symgrad.stack([c.check(v) for v, c in zip(entries, self.cseq, strict=False)],
                             self.dim)


class MixtureSameFamilyConstraint(Constraint):
    """The support of a mixture: its component's, checked at every component (the rightmost
    batch dim added back) and required of all of them."""

    def __init__(self, base_constraint: Constraint) -> None:
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Any) -> Any:
        """Whether ``value`` lies in every component's support."""
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.ndim < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.ndim}")
        kept = value.ndim - self.event_dim
        return result.reshape(*result.shape[:kept], -1).all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Dependent(Constraint):
    """A region that depends on the distribution's parameters: not checked on its own."""

    def check(self, value: Any) -> Any:
        raise ValueError("Cannot determine validity of dependent constraint")


class _DependentProperty(property, _Dependent):
    """A property computing a distribution's support from its parameters (PyTorch's
    ``dependent_property``), a dependent constraint on the class."""

    def __init__(self, fn: Any = None, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        property.__init__(self, fn)
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, fn: Any) -> _DependentProperty:
        return _DependentProperty(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` depends on other parameters (and is not checked alone).

    >>> symgrad.distributions.constraints.is_dependent(symgrad.distributions.constraints.real)
    False
    """
    return isinstance(constraint, _Dependent)


dependent = _Dependent()
dependent_property = _DependentProperty
real = _Real()
real_vector = _IndependentConstraint(real, 1)
boolean = _Boolean()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
nonnegative_integer = _IntegerGreaterThan(0)
one_hot = _OneHot()
multinomial = _Multinomial
positive_integer = _IntegerGreaterThan(1)
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
lower_cholesky = _LowerCholesky()
lower_triangular = _LowerTriangular()
corr_cholesky = _CorrCholesky()
positive_semidefinite = _PositiveSemidefinite()
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
greater_than, greater_than_eq, less_than, interval = _GreaterThan, _GreaterThanEq, _LessThan, \
    _Interval
integer_interval = _IntegerInterval
half_open_interval = _HalfOpenInterval
cat, stack = _Cat, _Stack
independent = _IndependentConstraint

