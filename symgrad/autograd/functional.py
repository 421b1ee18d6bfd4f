"""Higher-level differentiation of whole functions: ``jacobian``, ``hessian``, ``vjp``, ``jvp``,
``hvp`` and ``vhp``, with the signatures, return structures and errors of
``torch.autograd.functional``.

Everything is computed with the reverse-mode engine. Forward-mode products (``jvp``, ``hvp``)
use the double-backward trick: the VJP is linear in its cotangent ``u``, so differentiating
``vjp(u)`` with respect to ``u`` in the direction ``v`` gives ``J v``. ``strategy=
"forward-mode"`` therefore falls back to reverse mode (same values), and ``vectorize`` only
takes part in PyTorch's checks of the arguments (symgrad has no vmap: one backward pass per
row).

An argument ``inputs`` given as a Tensor gives results as Tensors; given as a tuple, tuples.
Results are detached unless ``create_graph=True``; with ``strict=True`` an output that does not
depend on an input raises instead of giving zeros.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.autograd.grad_mode import _mode, enable_grad, set_grad_enabled
from symgrad.tensor import Tensor, _make

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

Tensors = Tensor | tuple[Tensor, ...]


def _tupled(value: Any, what: str, fn: str) -> tuple[bool, tuple[Tensor, ...]]:
    """``(was_a_tuple, value as a tuple)``, refusing anything but Tensors (PyTorch's wording)."""
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"value at index {i}" if was_tuple else f"given {what}"
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but the {where} has type {type(item)}.")
    return was_tuple, items


_OUTPUTS = "outputs of the user-provided function"


def _fresh(tensors: tuple[Tensor, ...], create_graph: bool, need_graph: bool) -> tuple:
    """New tensor objects for the inputs (and v), so that what ``func`` captures from outside
    is told apart from its arguments: linked to the originals only with ``create_graph``."""
    return tuple(t.view_as(t) if create_graph and t._requires_grad
                 else t.detach().requires_grad_(need_graph) for t in tensors)


def _grad(outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None,
          create_graph: bool = False, retain_graph: bool | None = None,
          ) -> tuple[Tensor | None, ...]:
    """``autograd.grad`` over the outputs that require grad (None where nothing flows)."""
    from symgrad.autograd.api import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs, strict=True)
            if o is not None and o._requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return grad([o for o, _ in kept], inputs, [g for _, g in kept], retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True)


def _require_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """In strict mode, refuse tensors (outputs, gradients) that are disconnected."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if t._requires_grad:
            continue
        raise RuntimeError({
            "outputs": f"Output {i} of the user-provided function does not require gradients. "
                       "The outputs must be computed in a differentiable manner from the input "
                       "when running in strict mode.",
            "grad_inputs": f"The gradient with respect to input {i} is independent of the "
                           "inputs of the user-provided function. This is not allowed in "
                           "strict mode.",
            "jacobian": "While computing the hessian, found that the jacobian of the "
                        f"user-provided function with respect to input {i} is independent of "
                        "the input. This is not allowed in strict mode. You should ensure that "
                        "your function is twice differentiable and that the jacobian depends "
                        "on the inputs (this would be violated by a linear function for "
                        "example).",
        }[kind])


_MISSING = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _zeros_where_missing(grads: tuple, like: tuple, strict: bool, create_graph: bool,
                         stage: str) -> tuple[Tensor, ...]:
    """Replace missing gradients by zeros (the mathematical value), or raise in strict mode."""
    result = []
    for i, (g, ref) in enumerate(zip(grads, like, strict=True)):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING[stage].format(i=i))
            g = _make(np.zeros_like(ref._value))
        elif strict and create_graph and not g._requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        result.append(g)
    return tuple(result)


def _detached(tensors: tuple, create_graph: bool) -> tuple:
    """The results as returned: without history unless ``create_graph`` (nested tuples too)."""
    if create_graph:
        return tensors
    return tuple(_detached(t, False) if isinstance(t, tuple) else t.detach() for t in tensors)


def _untupled(result: tuple, was_tuple: bool) -> Any:
    return result if was_tuple else result[0]


def _check_v(v: tuple, like: tuple, like_is_tuple: bool) -> None:
    if len(v) != len(like):
        if like_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, like, strict=True)):
        if a.shape != b.shape:
            entry = f"Entry {i} in " if like_is_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {b.shape!r} but got "
                               f"{a.shape!r}.")


def _prepare_v(v: Any, like: tuple, like_is_tuple: bool, fn: str, create_graph: bool,
               missing: str) -> tuple | None:
    """Check the vector ``v`` against ``like``; None allowed only when ``like`` is one
    single-element tensor."""
    if v is None:
        if len(like) != 1 or like[0]._value.size != 1:
            raise RuntimeError(missing)
        return None
    _, v = _tupled(v, "v", fn)
    v = _fresh(v, create_graph, need_graph=False)
    _check_v(v, like, like_is_tuple)
    return v


def _call(func: Callable[..., Any], inputs: tuple, fn: str,
          strict: bool) -> tuple[bool, tuple[Tensor, ...]]:
    was_tuple, outputs = _tupled(func(*inputs), _OUTPUTS, fn)
    _require_grad(outputs, "outputs", strict)
    return was_tuple, outputs


def _scalar_output(outputs: tuple, was_tuple: bool, fn: str) -> None:
    if was_tuple:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outputs[0]._value.size != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain "
                           "a single element")


def vjp(func: Callable[..., Tensors], inputs: Tensors, v: Tensors | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Tensors, Tensors]:
    """``(func(*inputs), vᵀ J)``: the vector-Jacobian product at ``inputs``.

    >>> x = symgrad.tensor([1.0, 2.0])
    >>> symgrad.autograd.functional.vjp(lambda x: x ** 2, x, symgrad.ones(2))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    with enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _call(func, inputs, "vjp", strict)
        v = _prepare_v(v, outputs, outputs_tuple, "vjp", create_graph,
                       "The vector v can only be None if the user-provided function returns "
                       "a single Tensor with a single element.")
    with set_grad_enabled(create_graph or _mode.enabled):
        grads = _grad(outputs, inputs, v, create_graph)
        result = _zeros_where_missing(grads, inputs, strict, create_graph, "back")
    return (_untupled(_detached(outputs, create_graph), outputs_tuple),
            _untupled(_detached(result, create_graph), inputs_tuple))


def jvp(func: Callable[..., Tensors], inputs: Tensors, v: Tensors | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Tensors, Tensors]:
    """``(func(*inputs), J v)``: the Jacobian-vector product at ``inputs`` (computed with the
    double-backward trick).

    >>> x = symgrad.tensor([1.0, 2.0])
    >>> symgrad.autograd.functional.jvp(lambda x: x ** 2, x, symgrad.ones(2))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    with enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "jvp", create_graph,
                       "The vector v can only be None if the input to the user-provided "
                       "function is a single Tensor with a single element.")
        outputs_tuple, outputs = _call(func, inputs, "jvp", strict)
        # the VJP is linear in u, so u's value does not matter: zeros keep inf and nan out
        u = tuple(_make(np.zeros_like(o._value), None, True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, u, create_graph=True)
        _require_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(create_graph or _mode.enabled):
        grads = _grad(grad_inputs, u, v, create_graph)
        result = _zeros_where_missing(grads, outputs, strict, create_graph, "back_trick")
    return (_untupled(_detached(outputs, create_graph), outputs_tuple),
            _untupled(_detached(result, create_graph), outputs_tuple))


def _stack_rows(rows: list[Tensor], shape: tuple[int, ...], create_graph: bool) -> Tensor:
    """One Jacobian block from its rows (one per output element), shaped ``shape``."""
    if create_graph and any(r._requires_grad for r in rows):
        if len(rows) == 1:
            return rows[0].reshape(shape)
        block = _make(np.zeros((len(rows), *rows[0]._value.shape), dtype=rows[0]._value.dtype))
        for j, row in enumerate(rows):
            block[j] = row  # recorded: the block stays differentiable
        return block.reshape(shape)
    return _make(np.stack([r._value for r in rows]).reshape(shape))


def jacobian(func: Callable[..., Tensors], inputs: Tensors, create_graph: bool = False,
             strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Tensors | tuple[Tensors, ...]:
    """The Jacobian of ``func`` at ``inputs``: for output ``i`` and input ``j`` a tensor of
    shape ``outputs[i].shape + inputs[j].shape`` (nested tuples follow which of ``inputs`` and
    the outputs are tuples). ``vectorize`` changes nothing but PyTorch's checks of the
    arguments; ``strategy="forward-mode"`` (with ``vectorize=True``, as PyTorch requires) gives
    the same values, computed in reverse mode.

    >>> symgrad.autograd.functional.jacobian(lambda x: x ** 2, symgrad.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "symgrad.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                "symgrad.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.')
        _tupled(inputs, "inputs", "jacobian")
        if not vectorize:  # (PyTorch's message, space missing)
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-"
                                      "reverse Hessian isonly implemented for `vectorize=True`.")
    with enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _call(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError("symgrad.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        blocks = []
        for i, out in enumerate(outputs):
            rows: list[list[Tensor]] = [[] for _ in inputs]
            seed = np.zeros(out._value.size, dtype=out._value.dtype)
            for e in range(out._value.size):
                seed[e] = 1
                onehot = _make(seed.reshape(out._value.shape).copy())
                seed[e] = 0
                grads = _grad((out,), inputs, (onehot,), create_graph, retain_graph=True)
                for j, (g, x) in enumerate(zip(grads, inputs, strict=True)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {j}. This is not allowed "
                                               "in strict mode.")
                        g = _make(np.zeros_like(x._value))
                    elif strict and create_graph and not g._requires_grad:
                        # (PyTorch names the output's index here)
                        raise RuntimeError("The jacobian of the user-provided function is "
                                           f"independent of input {i}. This is not allowed in "
                                           "strict mode when create_graph=True.")
                    rows[j].append(g)
            blocks.append(tuple(
                _stack_rows(r, tuple(out.shape) + tuple(x.shape), create_graph)
                if r else _make(np.zeros(tuple(out.shape) + tuple(x.shape), x._value.dtype))
                for r, x in zip(rows, inputs, strict=True)))
    result = _detached(tuple(blocks), create_graph)
    if not inputs_tuple:
        result = tuple(block[0] for block in result)
    return _untupled(result, outputs_tuple)


def hessian(func: Callable[..., Tensor], inputs: Tensors, create_graph: bool = False,
            strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Tensors | tuple[tuple, ...]:
    """The Hessian of a function returning one element: for inputs ``i`` and ``j`` a tensor
    of shape ``inputs[i].shape + inputs[j].shape`` (a tuple of tuples when ``inputs`` is one).

    >>> symgrad.autograd.functional.hessian(lambda x: (x ** 3).sum(), symgrad.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    inputs_tuple, inputs = _tupled(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar(*args: Tensor) -> Tensor:
        was_tuple, outputs = _call(func, args, "hessian", strict)
        _scalar_output(outputs, was_tuple, "hessian")
        return outputs[0].squeeze()

    def gradient(*args: Tensor) -> tuple[Tensor, ...]:
        jac = jacobian(scalar, args, create_graph=True)
        _require_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    if not inputs_tuple:
        return result[0][0]
    return result


def vhp(func: Callable[..., Tensor], inputs: Tensors, v: Tensors | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Tensor, Tensors]:
    """``(func(*inputs), vᵀ H)`` for a function returning one element.

    >>> f = lambda x: (x ** 3).sum()
    >>> symgrad.autograd.functional.vhp(f, symgrad.tensor([1.0, 2.0]), symgrad.ones(2))
    (tensor(9.), tensor([ 6., 12.]))
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(func: Callable[..., Tensor], inputs: Tensors, v: Tensors | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Tensor, Tensors]:
    """``(func(*inputs), H v)`` for a function returning one element (the double-backward
    trick; equal to ``vhp`` when the function is twice continuously differentiable).

    >>> f = lambda x: (x ** 3).sum()
    >>> symgrad.autograd.functional.hvp(f, symgrad.tensor([1.0, 2.0]), symgrad.ones(2))
    (tensor(9.), tensor([ 6., 12.]))
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(func: Callable[..., Tensor], inputs: Tensors, v: Tensors | None,
                     create_graph: bool, strict: bool, fn: str) -> tuple[Tensor, Tensors]:
    with enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", fn)
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, fn, create_graph,
                       "The vector v can only be None if the input to the user-provided "
                       "function is a single Tensor with a single element.")
        outputs_tuple, outputs = _call(func, inputs, fn, strict)
        _scalar_output(outputs, outputs_tuple, fn)
        jac = _grad(outputs, inputs, create_graph=True)
        _require_grad(jac, "jacobian", strict)
        if fn == "hvp":  # H v as the derivative of (wᵀH) in w, in the direction v
            w = tuple(_make(np.zeros_like(x._value), None, True) for x in inputs)
            of, wrt, stage = _grad(jac, inputs, w, create_graph=True), w, "double_back_trick"
        else:
            of, wrt, stage = jac, inputs, "double_back"
    with set_grad_enabled(create_graph or _mode.enabled):
        grads = _grad(of, wrt, v, create_graph)
        result = _zeros_where_missing(grads, inputs, strict, create_graph, stage)
    return (_untupled(_detached(outputs, create_graph), outputs_tuple),
            _untupled(_detached(result, create_graph), inputs_tuple))
