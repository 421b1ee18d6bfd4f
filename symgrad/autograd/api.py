"""``symgrad.autograd.backward`` and ``symgrad.autograd.grad``, as in PyTorch."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.autograd import engine
from symgrad.autograd import tensor_namespace as differentiable
from symgrad.autograd.engine import NO_GRAD_FN, execute, implicit_seed
from symgrad.tensor import Size, Tensor, _make


def _as_sequence(x: Any) -> list:
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _seed_gradients(outputs: list[Tensor], grad_outputs: list[Any],
                    create_graph: bool) -> list[Any]:
    """Check each output and its seed gradient (v of vᵀJ); build the implicit ones."""
    for g in grad_outputs:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
    if grad_outputs and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    seeds = []
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(f"outputs must be Tensors, got {type(out).__name__}")
        if not out._requires_grad:
            raise RuntimeError(NO_GRAD_FN.format(i))
        g = grad_outputs[i] if grad_outputs else None
        if g is None:
            g = implicit_seed(out)
            seeds.append(_make(g) if create_graph else g)
            continue
        if g._value.shape != out._value.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} "
                               f"and output[{i}] has a shape of {out.shape!r}.")
        if create_graph:
            seeds.append(g if g._value.dtype == out._value.dtype else g._cast(out.dtype))
        else:
            seeds.append(g._value.astype(out._value.dtype, copy=False))
    return seeds


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Accumulate the gradients of ``tensors`` (weighted by ``grad_tensors``) into the leaves.

    >>> x = symgrad.ones(3, requires_grad=True)
    >>> symgrad.autograd.backward([(x * x).sum()])
    >>> x.grad
    tensor([2., 2., 2.])
    """
    if grad_tensors is None and inputs is None and not (create_graph or retain_graph) and (
            tensors.__class__ is Tensor or isinstance(tensors, Tensor)):
        engine.backward_root(tensors)  # (the commonest call, the shortest way)
        return
    outputs = [tensors] if tensors.__class__ is Tensor else _as_sequence(tensors)
    grads = [] if grad_tensors is None else _as_sequence(grad_tensors) \
        if not isinstance(grad_tensors, Tensor) else [grad_tensors]
    if retain_graph is None:
        retain_graph = create_graph
    seeds = _seed_gradients(outputs, grads, create_graph)
    accumulate_into = None
    if inputs is not None:
        inputs = _as_sequence(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for x in inputs:
            if not isinstance(x, Tensor) or not x._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        accumulate_into = {x.grad_fn if x.grad_fn is not None else x for x in inputs}
        for x in inputs:
            x.retain_grad()  # a non-leaf input gets its .grad, as in PyTorch
    execute(outputs, seeds, keep_graph=retain_graph, create_graph=create_graph,
            accumulate_into=accumulate_into)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, returned instead of accumulated.

    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> symgrad.autograd.grad((x ** 3).sum(), x)
    (tensor([ 3., 12.]),)
    """
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "symgrad.autograd.backward.", FutureWarning, stacklevel=2)
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    outs = _as_sequence(outputs)
    ins = _as_sequence(inputs)
    grads = (_as_sequence(grad_outputs) if not isinstance(grad_outputs, Tensor)
             else [grad_outputs])
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    seeds = _seed_gradients(outs, grads, create_graph)
    for x in ins:
        if not isinstance(x, Tensor):
            raise TypeError(f"inputs must be Tensors, got {type(x).__name__}")
        if not x._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    targets = [x.grad_fn if x.grad_fn is not None else x for x in ins]
    captured = execute(outs, seeds, keep_graph=retain_graph, create_graph=create_graph,
                       capture=targets)
    results: list[Tensor | None] = []
    for i, (x, target) in enumerate(zip(ins, targets, strict=True)):
        g = captured.get(target)
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
            results.append(_make(np.zeros_like(x._value)) if materialize_grads else None)
            continue
        if isinstance(g, Tensor):
            results.append(g)
        else:
            results.append(_make(np.array(g, dtype=x._value.dtype, copy=True)))
    return tuple(results)


_BATCHED_SHAPES = (
    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
    "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
    "corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of {got} "
    "and output[{i}] has a shape of {want}. If you only want some tensors in `grad_output` to "
    "be considered batched, consider using vmap.")


def _batched_grad(outputs: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
                  grad_outputs: Any, retain_graph: bool | None, create_graph: bool,
                  allow_unused: bool | None, materialize_grads: bool,
                  ) -> tuple[Tensor | None, ...]:
    """:func:`grad` with ``is_grads_batched``: one pass per row of the grad_outputs (PyTorch
    maps one pass over them), the gradients stacked along a new first dim. A materialized
    gradient of an unused input has the input's shape, without the batch dim, as PyTorch's."""
    outs = _as_sequence(outputs)
    grads = (_as_sequence(grad_outputs) if not isinstance(grad_outputs, Tensor)
             else [grad_outputs])
    batch = None
    for i, (out, g) in enumerate(zip(outs, grads, strict=False)):
        if isinstance(g, Tensor):
            if g._value.shape[1:] != out._value.shape or not g._value.ndim:
                raise RuntimeError(_BATCHED_SHAPES.format(
                    i=i, got=repr(Size(g._value.shape[1:])), want=repr(out.shape)))
            batch = g._value.shape[0] if batch is None else batch
    if batch is None:  # (no grad_output: PyTorch's error for the implicit ones)
        return grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                    allow_unused=allow_unused, materialize_grads=materialize_grads)
    keep = create_graph if retain_graph is None else retain_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    rows = [grad(outputs, inputs, [g[b] if isinstance(g, Tensor) else g for g in grads],
                 retain_graph=keep or b < batch - 1, create_graph=create_graph,
                 allow_unused=allow_unused, materialize_grads=False) for b in range(batch)]
    results: list[Tensor | None] = []
    for k, x in enumerate(_as_sequence(inputs)):
        parts = [row[k] for row in rows]
        if parts[0] is None:
            results.append(_make(np.zeros_like(x._value)) if materialize_grads else None)
        elif create_graph:
            results.append(differentiable.stack(parts, 0))
        else:
            results.append(_make(np.stack([p._value for p in parts])))
    return tuple(results)
