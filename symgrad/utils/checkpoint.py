"""Activation checkpointing as ``torch.utils.checkpoint``: ``checkpoint`` and
``checkpoint_sequential``.

With ``use_reentrant=True`` (the default, with PyTorch's warning when not passed) the function
runs without recording, its outputs get one ``CheckpointFunctionBackward`` node, and the
backward pass runs the function again, recording, from the saved inputs and the random state
of the forward (``preserve_rng_state``), then back-propagates through that: the intermediate
values live only during the backward. Parameters the function reads get their gradients from
that inner pass; gradients reach the outputs only when some tensor input requires grad, and
``autograd.grad`` or ``backward(inputs=...)`` through it is refused, as in PyTorch.

With ``use_reentrant=False`` the function runs as it is, recording its own nodes (the graph,
values and gradients PyTorch gives); symgrad keeps its intermediate values, where PyTorch
recomputes them in the backward pass.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from symgrad.autograd.api import backward
from symgrad.autograd.engine import partial_pass
from symgrad.autograd.function import Function
from symgrad.autograd.grad_mode import enable_grad, no_grad
from symgrad.autograd.graph import warn_at_user
from symgrad.creation import get_rng_state, set_rng_state
from symgrad.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]

_EXPLICIT = (
    "{fn}: the use_reentrant parameter should be passed explicitly. {when} "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")


class CheckpointFunction(Function):
    """The reentrant checkpoint: the forward without recording, the backward recomputing."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable[..., Any], preserve_rng_state: bool,
                *args: Any) -> Any:
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warn_at_user("None of the inputs have requires_grad=True. Gradients will be None")
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        ctx.positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.others = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*(args[i] for i in ctx.positions))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        if partial_pass():
            raise RuntimeError(
                "When use_reentrant=True, symgrad.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.others)
        for i, saved in zip(ctx.positions, ctx.saved_tensors, strict=True):
            inputs[i] = saved.detach().requires_grad_(saved.requires_grad)
        surrounding = get_rng_state() if ctx.rng_state is not None else None
        try:
            if ctx.rng_state is not None:  # (dropout draws the masks of the forward again)
                set_rng_state(ctx.rng_state)
            with enable_grad():
                outputs = ctx.run_function(*inputs)
        finally:
            if surrounding is not None:
                set_rng_state(surrounding)
        outputs = (outputs,) if isinstance(outputs, Tensor) else outputs
        pairs = [(out, g) for out, g in zip(outputs, grads, strict=False)
                 if isinstance(out, Tensor) and out.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        backward([out for out, _ in pairs], [g for _, g in pairs])
        return (None, None, *(x.grad if isinstance(x, Tensor) else None for x in inputs))


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable[[], Any] | None = None,
               determinism_check: str = "default", debug: bool = False,
               early_stop: bool = True, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, its intermediate values recomputed in the backward pass
    rather than kept (``use_reentrant=True``; see the module's description for
    ``use_reentrant=False``). ``preserve_rng_state`` (default True) replays the forward's
    random draws.

    >>> w = symgrad.tensor([0.5, -1.0], requires_grad=True)
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = checkpoint(lambda a: (a * w).sin(), x, use_reentrant=True)
    >>> y.grad_fn.name()
    'CheckpointFunctionBackward'
    >>> y.sum().backward()
    >>> w.grad
    tensor([ 0.8776, -0.8323])
    """
    if use_reentrant is None:
        warnings.warn(_EXPLICIT.format(
            fn="symgrad.utils.checkpoint", when="Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception."), stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if not use_reentrant:
        return function(*args, **kwargs)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if context_fn is not None or debug is not False:
        raise ValueError("Passing `context_fn` or `debug` is only supported when "
                         "use_reentrant=False.")
    return CheckpointFunction.apply(function, preserve, *args)


def checkpoint_sequential(functions: Any, segments: int, input: Tensor,  # noqa: A002
                          use_reentrant: bool | None = None, **kwargs: Any) -> Tensor:
    """Run ``functions`` (a list of modules or functions, or an ``nn.Sequential``) one after
    the other on ``input``, in ``segments`` parts of which all but the last are checkpointed.

    >>> model = symgrad.nn.Sequential(symgrad.nn.Linear(2, 2), symgrad.nn.Tanh(),
    ...                               symgrad.nn.Linear(2, 1))
    >>> checkpoint_sequential(model, 2, symgrad.ones(3, 2), use_reentrant=False).shape
    symgrad.Size([3, 1])
    """
    if use_reentrant is None:
        warnings.warn(_EXPLICIT.format(
            fn="symgrad.utils.checkpoint.checkpoint_sequential",
            when="In version 2.9 we will raise an exception if use_reentrant is not passed."),
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from symgrad.nn import Sequential  # (nn is loaded on first use)

    parts: Sequence[Any] = list(functions.children()) if isinstance(functions, Sequential) \
        else functions
    size = len(parts) // segments

    def run(start: int, end: int) -> Callable[[Tensor], Tensor]:
        def forward(x: Tensor) -> Tensor:
            for part in parts[start:end]:
                x = part(x)
            return x
        return forward

    end = 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end, len(parts))(input)
