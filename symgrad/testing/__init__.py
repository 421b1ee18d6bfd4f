"""Assertions for a test suite: prove gradients right with sympy and finite differences.

``assert_gradients_correct(fn, inputs)`` is the one-line test a researcher writes for a custom
``autograd.Function`` (or any function of tensors): at several random points it runs the exact
symbolic check (sympy's derivative of the lowered forward, and with ``exact=True`` every node's
VJP rule against sympy's derivative of that node's forward) with a random vector ``gradient=``,
and then ``gradcheck`` (central finite differences). Points at a kink or where the derivative is
undefined are redrawn. A failure is an ``AssertionError`` whose message names the point and the
first node whose rule is wrong, so pytest shows it like a failed ``assert``.

Installing symgrad also installs a pytest plugin with the fixture ``symgrad_gradients``, this
function. sympy loads only when a check first runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.autograd.gradcheck import GradcheckError, gradcheck
from symgrad.creation import tensor
from symgrad.numeric.dtypes import float64
from symgrad.tensor import Tensor

__all__ = ["GradientCheckError", "assert_gradients_correct"]

_MAX_DRAWS = 20  # redraws per point before giving up on finding a differentiable point


class GradientCheckError(AssertionError):
    """A gradient proved wrong by :func:`assert_gradients_correct` (an ``AssertionError``).

    >>> issubclass(GradientCheckError, AssertionError)
    True
    """


def assert_gradients_correct(
    fn: Callable[..., Tensor],
    inputs: Tensor | Sequence[Any],
    *,
    points: int = 3,
    low: float = -2.0,
    high: float = 2.0,
    seed: int = 0,
    exact: bool = False,
    finite_differences: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    """Assert that ``fn``'s gradients agree with sympy's exact derivative and with finite
    differences, at ``points`` random points.

    ``inputs`` is one tensor or a sequence of arguments, as ``gradcheck`` takes them: the
    tensors that require grad fix each differentiated argument's shape (their values are not
    used): at each point their values are drawn uniformly from ``[low, high]`` in float64,
    seeded by ``seed``. Other arguments are passed unchanged. The gradient
    is checked as a vector-Jacobian product with a random ``gradient=`` of the output's shape
    (for a scalar output too), so a rule that is right only for a gradient of ones fails.
    ``exact=True`` also proves every node's VJP rule against sympy's derivative of its own
    forward; ``finite_differences=True`` adds ``gradcheck``. Points where the check finds a
    kink or an undefined derivative are redrawn (up to 20 times each).

    Raises :class:`GradientCheckError` naming the point and, for a wrong rule, the node (its
    name and the line that created it).

    >>> class Cube(symgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return g * 3 * x ** 2
    >>> x = symgrad.zeros(4, requires_grad=True)
    >>> symgrad.testing.assert_gradients_correct(Cube.apply, x)
    """
    __tracebackhide__ = True  # pytest shows the assertion, not this function's frames
    from symgrad.symbolic import GradientMismatch, check

    args = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    wrt = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    if not wrt:
        raise ValueError("assert_gradients_correct: no input requires grad; pass the tensors "
                         "to differentiate with requires_grad=True")
    if points < 1:
        raise ValueError(f"assert_gradients_correct: points must be at least 1, got {points}")
    name = _function_name(fn)
    names = _argument_names(fn, args)
    rng = np.random.default_rng(seed)
    for number in range(points):
        for _ in range(_MAX_DRAWS):
            point = _draw(args, wrt, names, rng, low, high)
            output = fn(*point)
            if not isinstance(output, Tensor) or not output.requires_grad:
                raise ValueError(f"assert_gradients_correct: {name} must return a tensor that "
                                 "requires grad")
            gradient = tensor(rng.uniform(0.5, 1.5, output.shape) * rng.choice((-1, 1),
                              output.shape), dtype=output.dtype)
            where = _describe(number, point, wrt)
            try:
                report = check(output, gradient=gradient, exact=exact, rtol=rtol, atol=atol)
            except GradientMismatch as mismatch:
                raise GradientCheckError(f"gradient of {name} is wrong {where}:\n{mismatch}"
                                         ) from None
            if report.kinks or any(r.undefined or r.at_kinks for r in report.inputs):
                continue  # not differentiable here: draw another point
            break
        else:
            raise GradientCheckError(
                f"no differentiable point found for {name} in {_MAX_DRAWS} draws from "
                f"[{low}, {high}]: every draw met a kink or an undefined derivative; pass "
                "low= and high= inside the function's smooth domain")
        if finite_differences:
            try:
                gradcheck(fn, tuple(point))
            except GradcheckError as mismatch:
                raise GradientCheckError(f"finite differences disagree with the gradient of "
                                         f"{name} {where}:\n{mismatch}") from None


def _function_name(fn: Callable[..., Any]) -> str:
    """``Cube.apply`` for a custom Function's apply, else the function's qualified name."""
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, type):
        return f"{owner.__name__}.{fn.__name__}"
    return getattr(fn, "__qualname__", None) or repr(fn)


def _argument_names(fn: Callable[..., Any], args: list[Any]) -> list[str]:
    """The name each argument's symbols get: the tensor's ``name``, else ``fn``'s parameter
    name (``x`` of ``def f(x)``, or of a custom Function's ``forward(ctx, x)``), else
    ``input0``, ``input1`` ..."""
    owner = getattr(fn, "__self__", None)
    forward = getattr(owner, "forward", None) if isinstance(owner, type) else None
    try:
        parameters = [p.name for p in inspect.signature(forward or fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        parameters = []
    if forward is not None:
        parameters = parameters[1:]  # a custom Function's forward(ctx, ...)
    names = []
    for i, arg in enumerate(args):
        given = arg.name if isinstance(arg, Tensor) else None
        names.append(given or (parameters[i] if i < len(parameters) else f"input{i}"))
    return names


def _draw(args: list[Any], wrt: list[int], names: list[str], rng: np.random.Generator,
          low: float, high: float) -> list[Any]:
    """Fresh float64 leaves drawn from ``[low, high]`` for the differentiated arguments; other
    arguments unchanged."""
    point = list(args)
    for i in wrt:
        values = rng.uniform(low, high, args[i].shape)
        point[i] = tensor(values, dtype=float64, requires_grad=True)
        point[i].name = names[i]
    return point


def _describe(number: int, point: list[Any], wrt: list[int]) -> str:
    values = ", ".join(
        f"{point[i].name}={np.array2string(point[i].detach().numpy(), precision=6, separator=', ')}"
        for i in wrt)
    return f"at point {number + 1} ({values})"
