"""``biject_to`` and ``transform_to``, PyTorch's constraint registries: for a constraint, a
transform from unconstrained reals onto it (a bijection for ``biject_to``, any map for
``transform_to``), so that a parameter can be optimized freely and constrained by the map."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from symgrad.distributions import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Transforms for constraints, looked up by the constraint's class: ``registry(c)``.

    >>> C = symgrad.distributions.constraints
    >>> symgrad.distributions.transform_to(C.simplex)
    SoftmaxTransform()
    """

    def __init__(self) -> None:
        self._registry: dict[type, Callable[[Any], transforms.Transform]] = {}

    def register(self, constraint: Any, factory: Callable | None = None) -> Any:
        """Register ``factory(constraint)`` for ``constraint``'s class (a decorator without
        ``factory``)."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not (isinstance(constraint, type) and issubclass(constraint, constraints.Constraint)):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: constraints.Constraint) -> transforms.Transform:
        """The transform registered for ``constraint``."""
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} "
                                      "constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _real(constraint: Any) -> transforms.Transform:
    return transforms.identity_transform


def _independent_of(registry: ConstraintRegistry) -> Callable[[Any], transforms.Transform]:
    def factory(constraint: Any) -> transforms.Transform:
        return transforms.IndependentTransform(registry(constraint.base_constraint),
                                               constraint.reinterpreted_batch_ndims)
    return factory


def _above(constraint: Any) -> transforms.Transform:
    # (positive and nonnegative are greater_than(0) and greater_than_eq(0): exp, shifted)
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


def _below(constraint: Any) -> transforms.Transform:
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


def _between(constraint: Any) -> transforms.Transform:
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, numbers.Number) and isinstance(high, numbers.Number) and low == 0 \
            and high == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(low, high - low)])


def _cat_of(registry: ConstraintRegistry) -> Callable[[Any], transforms.Transform]:
    def factory(constraint: Any) -> transforms.Transform:
        return transforms.CatTransform([registry(c) for c in constraint.cseq], constraint.dim,
                                       constraint.lengths)
    return factory


def _stack_of(registry: ConstraintRegistry) -> Callable[[Any], transforms.Transform]:
    def factory(constraint: Any) -> transforms.Transform:
        return transforms.StackTransform([registry(c) for c in constraint.cseq],
                                         constraint.dim)
    return factory


for _registry in (biject_to, transform_to):
    _registry.register(constraints.cat, _cat_of(_registry))
    _registry.register(constraints.stack, _stack_of(_registry))
    _registry.register(constraints.real, _real)
    _registry.register(constraints.independent, _independent_of(_registry))
    for _kind in (constraints.greater_than, constraints.greater_than_eq):
        _registry.register(_kind, _above)
    _registry.register(constraints.less_than, _below)
    for _kind in (constraints.interval, constraints.half_open_interval):
        _registry.register(_kind, _between)
for _registry in (biject_to, transform_to):
    _registry.register(constraints.corr_cholesky, lambda c: transforms.CorrCholeskyTransform())
biject_to.register(constraints.simplex, lambda c: transforms.StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: transforms.SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda c: transforms.LowerCholeskyTransform())
transform_to.register(constraints.positive_definite,
                      lambda c: transforms.PositiveDefiniteTransform())
del _registry, _kind
