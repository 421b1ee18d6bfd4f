"""The machinery behind a module's full backward hooks, as PyTorch's
``torch.utils.hooks.BackwardHook``: the module's tensor inputs and outputs pass through an
identity custom Function (``BackwardHookFunctionBackward``) whose nodes catch the gradients
with respect to the outputs (then the backward pre-hooks run) and with respect to the inputs
(then the backward hooks run, with both)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from symgrad.autograd.function import Function
from symgrad.autograd.grad_mode import is_grad_enabled
from symgrad.creation import zeros_like
from symgrad.tensor import Tensor


class BackwardHookFunction(Function):
    """The identity on tensors; its node is where a module's backward hooks attach."""

    @staticmethod
    def forward(ctx: Any, *args: Tensor) -> tuple[Tensor, ...]:
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple[Tensor, ...]:
        return grads


def _pack_with_none(indices: list[int], values: tuple, size: int) -> tuple:
    packed: list[Any] = [None] * size
    for index, value in zip(indices, values, strict=True):
        packed[index] = value
    return tuple(packed)


class BackwardHook:
    """One forward call's backward hooks: ``user_hooks`` get ``(module, grad_input,
    grad_output)``, ``user_pre_hooks`` ``(module, grad_output)``; non-tensor arguments and
    outputs are None in those tuples."""

    def __init__(self, module: Any, user_hooks: list[Callable], user_pre_hooks: list[Callable]
                 ) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs: tuple | None = None
        self.n_outputs = -1
        self.output_tensors_index: list[int] | None = None
        self.n_inputs = -1
        self.input_tensors_index: list[int] | None = None
        self.input_tensors: list[Tensor] = []

    def _apply_on_tensors(self, fn: Callable[[Any, list[bool]], None], args: tuple
                          ) -> tuple[tuple, list[int] | None]:
        index = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        grad_fns = [t.grad_fn for t in new if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        fn(grad_fns[0], [t.requires_grad for t in new])
        items = list(args)
        for i, value in zip(index, new, strict=True):
            items[i] = value
        out = tuple(items) if type(args) is tuple else type(args)(*items)
        return out, index

    def setup_input_hook(self, args: tuple) -> tuple:
        """Route the tensor arguments through the identity; returns the new arguments."""
        def attach(grad_fn: Any, _: list[bool]) -> None:
            grad_fn.register_hook(self._input_hook)

        result, index = self._apply_on_tensors(attach, args)
        self.n_inputs = len(args)
        self.input_tensors_index = index
        if index is not None:
            self.input_tensors = [args[i] for i in index]
        return result

    def _input_hook(self, grad_input: tuple, _: tuple) -> tuple | None:
        if self.grad_outputs is None:
            # the gradient reached the inputs without passing through the outputs (double
            # backward): nothing to report
            return None
        # undefined gradients are zeros, as PyTorch's custom Function materializes them
        grads = tuple(zeros_like(t) if g is None else g
                      for g, t in zip(grad_input, self.input_tensors, strict=True))
        res = _pack_with_none(self.input_tensors_index, grads, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        # an input that requires no grad gets none (PyTorch's engine drops it likewise)
        return tuple(None if given is None else res[i]
                     for i, given in zip(self.input_tensors_index, grad_input, strict=True))

    def setup_output_hook(self, result: Any) -> Any:
        """Route the tensor outputs through the identity; returns the new result."""
        def attach(grad_fn: Any, differentiable: list[bool]) -> None:
            def hook(grad_input: tuple, grad_output: tuple) -> tuple | None:
                # the node reports the differentiable outputs' gradients only
                slots = iter(grad_output)
                per_tensor = tuple(next(slots) if d else None for d in differentiable)
                out = self._output_hook(per_tensor)
                if out is None:
                    return None
                return tuple(None if given is None else new
                             for given, new in zip(grad_input, out, strict=True))

            grad_fn.register_hook(hook)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, index = self._apply_on_tensors(attach, args)
        self.n_outputs = len(args)
        self.output_tensors_index = index
        return res if is_tuple else res[0]

    def _output_hook(self, grad_output: tuple) -> tuple | None:
        self.grad_outputs = _pack_with_none(self.output_tensors_index, grad_output,
                                            self.n_outputs)
        if self.user_pre_hooks:
            expected = len(self.grad_outputs)
            for pre_hook in self.user_pre_hooks:
                changed = pre_hook(self.module, self.grad_outputs)
                if changed is None:
                    continue
                if len(changed) != expected:
                    raise RuntimeError("Backward pre hook returned an invalid number of "
                                       f"grad_output, got {len(changed)}, but expected "
                                       f"{expected}")
                self.grad_outputs = changed
        local = self.grad_outputs
        if self.input_tensors_index is None:  # no input requires grad: call the hooks now
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to "
                "module outputs since no inputs require gradients. See "
                "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.register_full_backward_hook for more details.",
                UserWarning, stacklevel=5)
            grad_inputs = _pack_with_none([], (), self.n_inputs)
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(el is None for el in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        if local is None:
            return None
        return tuple(local[i] for i in self.output_tensors_index)
