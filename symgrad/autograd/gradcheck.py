"""``gradcheck`` and ``gradgradcheck``: compare analytical gradients with central differences,
with PyTorch's parameters, defaults, checks and messages.

For every differentiable input ``j`` and output ``i`` the numerical Jacobian (one central
difference per input element, in the output's dtype) and the analytical one (one backward per
output element, run twice to catch non-reentrant backwards) must satisfy
``|analytical - numerical| <= atol + rtol * |numerical|``. symgrad has no forward-mode AD and no
vmap: ``check_forward_ad``, ``check_batched_forward_grad`` and ``check_fwd_over_rev`` raise
NotImplementedError; ``check_batched_grad`` has nothing to check (gradients are never batched)
and ``fast_mode`` runs the exact (slow-mode) comparison, which implies fast mode's.

The module is callable (``symgrad.autograd.gradcheck(f, x)`` works whichever of the function and
the module the name is bound to) and holds :class:`GradcheckError`.
"""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.numeric import numpy_namespace as numeric_xp
from symgrad.tensor import Tensor, _make

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


_NONDET = (
    "\n\nNOTE: If your op relies on non-deterministic operations, this failure might be "
    "expected: call gradcheck/gradgradcheck with `nondet_tol=<tol>` as a keyword argument."
)


def _tupled(inputs: Any) -> tuple:
    if isinstance(inputs, tuple):
        return inputs
    if isinstance(inputs, list):
        return tuple(inputs)
    return (inputs,)


def _differentiable(outputs: tuple) -> list[Tensor]:
    return [o for o in outputs if isinstance(o, Tensor) and o._requires_grad]


def _check_inputs(inputs: tuple) -> list[Tensor]:
    """The inputs requiring grad (warning about non-double ones, as PyTorch)."""
    found = []
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x._requires_grad):
            continue
        if x._value.dtype != np.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", stacklevel=4)
        if any(st == 0 and n > 1 for st, n in zip(x._value.strides, x._value.shape,
                                                  strict=True)):
            raise RuntimeError(f"The {i}th input has a dimension with stride 0. gradcheck only "
                               "supports inputs that are non-overlapping to be able to compute "
                               "the numerical gradients correctly. You should call .contiguous "
                               "on the input before passing it to gradcheck.")
        found.append(x)
    if not found:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    return found


def _numerical(func: Callable[..., Any], inputs: tuple, wrt: list[Tensor],
               outputs: list[Tensor], indices: list[int], eps: float) -> list[list[np.ndarray]]:
    """``jac[j][i]``: the central-difference Jacobian of ``outputs[i]`` (func's output number
    ``indices[i]``) with respect to ``wrt[j]``, shaped (input numel, output numel). Each input
    element is perturbed in place and restored."""
    jacobians = []
    for x in wrt:
        value = x._value
        columns: list[list[np.ndarray]] = [[] for _ in outputs]
        for index in np.ndindex(value.shape):  # row-major, as the Jacobian's rows
            original = value[index].copy()
            value[index] = original + eps
            plus = _evaluate(func, inputs, indices)
            value[index] = original - eps
            minus = _evaluate(func, inputs, indices)
            value[index] = original
            for i, (p, m) in enumerate(zip(plus, minus, strict=True)):
                columns[i].append(((p - m) / (2 * eps)).reshape(-1).astype(p.dtype, copy=False))
        jacobians.append([np.stack(c) if c else np.zeros((0, o._value.size), o._value.dtype)
                          for c, o in zip(columns, outputs, strict=True)])
    return jacobians


def _evaluate(func: Callable[..., Any], inputs: tuple, outputs: list[int]) -> list[np.ndarray]:
    result = _tupled(func(*inputs))
    return [np.array(result[k]._value, copy=True) for k in outputs]


def _analytical(output: Tensor, wrt: list[Tensor], check_grad_dtypes: bool,
                nondet_tol: float) -> list[np.ndarray]:
    """``jac[j]``: the Jacobian of ``output`` with respect to ``wrt[j]`` from one backward per
    output element, shaped (input numel, output numel); computed twice (reentrancy)."""
    from symgrad.autograd.api import grad

    runs = []
    for _ in range(2):
        jac = [np.zeros((x._value.size, output._value.size), dtype=x._value.dtype) for x in wrt]
        seed = np.zeros(output._value.size, dtype=output._value.dtype)
        for e in range(output._value.size):
            seed[e] = 1
            grads = grad(output, wrt, _make(seed.reshape(output._value.shape).copy()),
                         retain_graph=True, allow_unused=True)
            seed[e] = 0
            for j, (g, x) in enumerate(zip(grads, wrt, strict=True)):
                if g is None:
                    continue
                if g._value.shape != x._value.shape:
                    raise GradcheckError("Analytical gradient has incorrect size")
                if check_grad_dtypes and g._value.dtype != x._value.dtype:
                    raise GradcheckError("Gradient has dtype mismatch")
                jac[j][:, e] = g._value.reshape(-1)
        runs.append(jac)
    for first, second in zip(*runs, strict=True):
        if first.size and np.max(np.abs(first - second)) > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                "gradient matches numerical gradient.The tolerance for nondeterminism was "
                f"{nondet_tol}." + _NONDET)
    return runs[0]


def _allclose(a: np.ndarray, n: np.ndarray, rtol: float, atol: float) -> bool:
    dtype = np.result_type(a, n)
    a, n = a.astype(dtype), n.astype(dtype)
    with np.errstate(invalid="ignore"):
        return bool(np.all((a == n) | (np.abs(a - n) <= atol + rtol * np.abs(n))))


def _check_mul_by_grad_output(outputs: list[Tensor], wrt: list[Tensor]) -> None:
    """Zero output cotangents must give zero input gradients of the inputs' sizes and types."""
    from symgrad.autograd.api import grad

    zeros = [_make(np.zeros_like(o._value)) for o in outputs]
    grads = grad(outputs, wrt, zeros, retain_graph=True, allow_unused=True)
    for g, x in zip(grads, wrt, strict=True):
        if g is None:
            continue
        if np.any(g._value != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g._value.dtype != x._value.dtype:
            raise GradcheckError("grad is incorrect type")
        if g._value.shape != x._value.shape:
            raise GradcheckError("grad is incorrect size")


def _gradcheck(func: Callable[..., Any], inputs: Any, eps: float, atol: float, rtol: float,
               nondet_tol: float, check_grad_dtypes: bool) -> bool:
    inputs = _tupled(inputs)
    wrt = _check_inputs(inputs)
    results = _tupled(func(*inputs))
    outputs = _differentiable(results)
    if not outputs:
        indices = [k for k, o in enumerate(results) if isinstance(o, Tensor)
                   and o.is_floating_point()]
        numerical = _numerical(func, inputs, wrt, [results[k] for k in indices], indices, eps)
        if any(np.any(n != 0) for per_input in numerical for n in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    indices = [k for k, o in enumerate(results) if any(o is d for d in outputs)]
    numerical = _numerical(func, inputs, wrt, outputs, indices, eps)
    for i, output in enumerate(outputs):
        analytical = _analytical(output, wrt, check_grad_dtypes, nondet_tol)
        for j, a in enumerate(analytical):
            n = numerical[j][i]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
                    f"numerical:{_make(n)}\nanalytical:{_make(a)}\n")
    _check_mul_by_grad_output(outputs, wrt)
    return True


@numeric_xp.quiet_calls
def gradcheck(
    func: Callable[..., Tensor | Sequence[Tensor]],
    inputs: Tensor | Sequence[Tensor],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` (double precision, for tight tolerances)
    against central finite differences; raise :class:`GradcheckError` on a mismatch, or return
    False when ``raise_exception=False``.

    >>> x = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, requires_grad=True)
    >>> symgrad.autograd.gradcheck(lambda x: (x ** 3).sum(), (x,))
    True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be "
                             "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad "
                             "to be True")
    if check_forward_ad or check_batched_forward_grad:
        raise NotImplementedError("symgrad has no forward-mode AD: check_forward_ad and "
                                  "check_batched_forward_grad cannot be True")
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes)
    except GradcheckError:
        if raise_exception:
            raise
        return False


@numeric_xp.quiet_calls
def gradgradcheck(
    func: Callable[..., Tensor | Sequence[Tensor]],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: ``gradcheck`` of the map from (inputs, output cotangents) to
    the gradients of ``func`` (computed with ``create_graph=True``). Without ``grad_outputs``
    the cotangents are random in [-1, 1).

    >>> x = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, requires_grad=True)
    >>> symgrad.autograd.gradgradcheck(lambda x: x ** 3, (x,))
    True
    """
    from symgrad.autograd.api import grad
    from symgrad.creation import rand

    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev "
                             "to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to "
                             "be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to "
                             "be True")
    if check_fwd_over_rev:
        raise NotImplementedError("symgrad has no forward-mode AD: check_fwd_over_rev cannot "
                                  "be True")
    inputs = _tupled(inputs)
    if grad_outputs is None:
        from symgrad.numeric import dtypes

        cotangents = tuple(
            (rand(tuple(o.shape), dtype=o.dtype if o.is_floating_point() else dtypes.float64)
             * 2 - 1).requires_grad_() for o in _differentiable(_tupled(func(*inputs))))
    else:
        cotangents = _tupled(grad_outputs)
    count = len(cotangents)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]

    def gradients(*args: Any) -> tuple[Tensor, ...]:
        args_in, args_out = args[:len(args) - count], args[len(args) - count:]
        outputs = _differentiable(_tupled(func(*args_in)))
        grads = grad(outputs, [args_in[i] for i in wrt], args_out, create_graph=True,
                     allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(gradients, inputs + cotangents, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, masked=masked)


class _CallableModule(types.ModuleType):
    """This module, callable as ``gradcheck`` (``import symgrad.autograd.gradcheck`` binds the
    package attribute ``symgrad.autograd.gradcheck`` to the module)."""

    def __call__(self, *args: Any, **kwargs: Any) -> bool:
        return gradcheck(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
