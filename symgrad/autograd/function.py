"""Custom autograd Functions: ``class MyFn(symgrad.autograd.Function)``, as in PyTorch.

A subclass gives static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``;
``MyFn.apply(*args)`` runs the forward with grad disabled and records one node named
``MyFnBackward``. Each subclass gets one :class:`~symgrad.ops.Op` (cached on the class, not in
the registry) whose ``joint_vjp`` calls the user's backward: on numpy for a plain backward, on
Tensors (recorded) under ``create_graph=True``. A None it returns means "no gradient", as in
PyTorch (the engine knows such nodes by ``graph.runs_custom_backward``). A ``symbolic``
staticmethod, if the subclass has one, is its rule for ``symgrad.symbolic.lower``.

What lowering needs stays on the node: ``node.op.forward(xp, *values, **node.params)`` re-runs
the subclass's forward on other input values (``params["args"]`` is the call with each tensor
replaced by a :class:`Slot`, ``params["kwargs"]`` its keywords), ``type(node)._forward_cls`` is
the subclass and ``node.inputs`` the tensor arguments. The joint VJP reads the call's ctx
(``params["ctx"]``): its saved tensors are the recorded values, so it holds at the recorded
point only.

Several differentiable outputs: a node has one output, so the node of the Function computes
their concatenation (flattened, in their common dtype) and each output is a slice of it, taken
by a small node of the same class name. ``a.grad_fn`` and ``b.grad_fn`` of ``a, b = F.apply(x)``
are therefore two objects (one in PyTorch), whose ctx attributes are those of the one call.
"""

from __future__ import annotations

import inspect
import warnings
import weakref
from typing import Any

import numpy as np

from symgrad.autograd.grad_mode import _mode, off_threads, set_recording
from symgrad.autograd.graph import Node
from symgrad.ops import Op
from symgrad.tensor import Tensor, _make, _torch_size, counter_of

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "Slot"]

LEGACY = ("Legacy autograd function with non-static forward method is deprecated. Please use "
          "new-style autograd function with static forward method. (Example: "
          "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")


class Slot:
    """Marks where a tensor argument stood in a recorded ``apply`` call (its input index)."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"Slot({self.index})"


class FunctionCtx:
    """The ``ctx`` passed to a Function's ``forward`` and ``backward`` (PyTorch's
    ``torch.autograd.function.FunctionCtx``).

    Besides the methods below it takes any attribute (``ctx.k = k`` in forward, read back in
    backward); ``y.grad_fn`` shows them too, as in PyTorch. ``ctx.needs_input_grad`` tells, per
    forward argument, whether it needs a gradient.

    >>> class Scale(symgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x, k):
    ...         ctx.k = k
    ...         return x * k
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         return grad * ctx.k, None
    >>> x = symgrad.ones(2, requires_grad=True)
    >>> y = Scale.apply(x, 3.0)
    >>> y.grad_fn.k, y.grad_fn.needs_input_grad
    (3.0, (True, False))
    """

    def __init__(self) -> None:
        self.needs_input_grad: tuple[bool, ...] = ()
        self.materialize_grads = True
        self._to_save: tuple = ()
        self._saved: list | None = None  # set when the call is recorded
        self._freed = False  # set when a backward without retain_graph freed the graph
        self._packed: Any = None  # the outputs' concatenation (several differentiable ones)
        self._dirty: tuple = ()
        self._non_differentiable: tuple = ()
        self._node: Any = None  # weak reference to the recorded node
        self._outputs: list = []  # what backward receives for each forward output

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors (inputs, outputs or intermediates) for backward, where
        ``ctx.saved_tensors`` returns them after checking they were not changed in place.

        >>> class Cube(symgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         x, = ctx.saved_tensors
        ...         return 3 * x ** 2 * grad
        >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> Cube.apply(x).sum().backward(); x.grad
        tensor([ 3., 12.])
        """
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """The tensors given to ``save_for_backward``; raises PyTorch's error when one was
        modified in place since, or when a backward without ``retain_graph`` freed them.

        >>> class Exp(symgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         y, = ctx.saved_tensors
        ...         return grad * y
        >>> x = symgrad.zeros(1, requires_grad=True)
        >>> y = Exp.apply(x)
        >>> y.grad_fn.saved_tensors
        (tensor([1.], grad_fn=<ExpBackward>),)
        """
        from symgrad.autograd import engine

        if self._freed:
            raise RuntimeError(engine.FREED_GRAPH)
        if self._saved is None:
            return ()
        node = self._node()
        result = []
        for entry in self._saved:
            if entry is None or isinstance(entry, tuple) and entry[0] is None:
                result.append(None)
                continue
            if isinstance(entry, _SavedOutput):
                result.append(entry.unpack(node))
                continue
            t, expected = entry
            version = t._version
            if version != expected:
                raise engine._modified_error(t, version, expected, t.grad_fn)
            result.append(t)
        return tuple(result)

    saved_variables = saved_tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare the inputs that forward modified in place (and returns): they become
        outputs of this Function, their version bumped, as in PyTorch.

        >>> class AddOne_(symgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         x.add_(1)
        ...         ctx.mark_dirty(x)
        ...         return x
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         return grad
        >>> a = symgrad.zeros(2, requires_grad=True)
        >>> b = a * 2
        >>> AddOne_.apply(b)
        tensor([1., 1.], grad_fn=<AddOne_Backward>)
        >>> b.sum().backward(); a.grad
        tensor([2., 2.])
        """
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Declare outputs that get no gradient (they do not require grad; backward receives
        zeros for them, or None after ``set_materialize_grads(False)``).

        >>> class Sorted(symgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         order = symgrad.tensor(x.detach().numpy().argsort())
        ...         ctx.mark_non_differentiable(order)
        ...         ctx.order = order
        ...         return x[order], order
        ...     @staticmethod
        ...     def backward(ctx, grad, _):
        ...         out = symgrad.zeros_like(grad)
        ...         out[ctx.order] = grad
        ...         return out
        >>> values, order = Sorted.apply(symgrad.tensor([3.0, 1.0, 2.0], requires_grad=True))
        >>> order, order.requires_grad
        (tensor([1, 2, 0]), False)
        """
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward receives zeros (True, the default) or None for outputs without a
        gradient.

        >>> class Both(symgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.set_materialize_grads(False)
        ...         return x * 1, x * 2
        ...     @staticmethod
        ...     def backward(ctx, g1, g2):
        ...         return g1 if g2 is None else g1 + 2 * g2
        >>> x = symgrad.ones(1, requires_grad=True)
        >>> a, b = Both.apply(x)
        >>> a.sum().backward(); x.grad
        tensor([1.])
        """
        self.materialize_grads = bool(value)


class _SavedOutput:
    """A saved output of the Function: its value and version counter, without the tensor
    (which would make a reference cycle through the node); unpacked with its grad_fn."""

    __slots__ = ("index", "value", "counter", "version")

    def __init__(self, index: int, out: Tensor) -> None:
        self.index = index
        self.value = out._value
        self.counter = counter_of(out)
        self.version = self.counter.value

    def unpack(self, node: Any) -> Tensor:
        from symgrad.autograd import engine

        out = _make(self.value, None, True)
        out._counter = self.counter
        if node is not None:
            out.grad_fn = node._output_node(self.index, self.value)
        if self.counter.value != self.version:
            raise engine._modified_error(out, self.counter.value, self.version, node)
        return out


_FREED = Node.freed  # the property BackwardCFunction.freed extends


class BackwardCFunction(Node):
    """The node of one ``Function.apply`` call; attributes not found on the node are read from
    the call's ctx (``y.grad_fn.saved_tensors``, ``y.grad_fn.k``)."""

    __slots__ = ()
    _forward_cls: type = None  # type: ignore[assignment]
    custom_backward = True  # see graph.runs_custom_backward

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            params = Node.params.__get__(self)  # type: ignore[attr-defined]
        except AttributeError:
            raise AttributeError(name) from None
        return getattr(params["ctx"], name)

    @property
    def freed(self) -> bool:  # type: ignore[override]
        """Whether a backward without ``retain_graph`` freed this node (set by the engine)."""
        return _FREED.fget(self)

    @freed.setter
    def freed(self, value: bool) -> None:
        _FREED.fset(self, value)
        if value:  # PyTorch frees the ctx's saved tensors with the graph
            ctx = Node.params.__get__(self).get("ctx")  # type: ignore[attr-defined]
            if ctx is not None:
                ctx._saved, ctx._freed = None, True
                if ctx._packed is not None:  # only its dtype is read again (lowering's replay)
                    ctx._packed = ctx._packed[:0]

    def _output_node(self, index: int, value: Any) -> Node:
        """The grad_fn of differentiable output ``index`` (whose value is ``value``): this
        node, or a slice of its packed output when the Function has several."""
        layout = self.params.get("layout")
        if layout is None:
            return self
        start, stop, shape, dtype = layout[index]
        ctx = self.params["ctx"]
        packed = _make(ctx._packed, self, True)
        return type(self)(_output_op, (packed,), [ctx._packed],
                          {"ctx": ctx, "start": start, "stop": stop, "shape": shape,
                           "dtype": dtype}, value, [self])


def _select(xp: Any, packed: Any, *, ctx: Any = None, start: int, stop: int,
            shape: tuple[int, ...], dtype: str) -> Any:
    return xp.astype(xp.reshape(packed[start:stop], shape), dtype)


def _select_vjp(xp: Any, g: Any, ans: Any, packed: Any, *, ctx: Any = None, start: int,
                stop: int, shape: tuple[int, ...], dtype: str) -> Any:
    return xp.index_backward(xp.reshape(g, (stop - start,)), packed.shape, slice(start, stop))


# one output of a Function with several differentiable outputs: a slice of their concatenation
_output_op = Op("function_output", "FunctionOutputBackward", _select, (_select_vjp,))


class Function:
    """Base class of custom differentiable operations (PyTorch's ``torch.autograd.Function``).

    Subclass it with static ``forward`` and ``backward`` methods and call it with
    :meth:`apply`; the recorded node is named after the class (``SquareBackward``) and the
    symbolic side lowers it through its forward.

    >>> class Square(symgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         x, = ctx.saved_tensors
    ...         return 2 * x * grad
    >>> x = symgrad.tensor([1.0, 3.0], requires_grad=True)
    >>> Square.apply(x).sum().backward(); x.grad
    tensor([2., 6.])
    """

    _backward_cls: type[BackwardCFunction] = BackwardCFunction
    _op: Op | None = None  # the subclass's Op, created on its first recorded apply

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # each subclass's node class, named <Name>Backward as in PyTorch
        cls._backward_cls = type(f"{cls.__name__}Backward", (BackwardCFunction,),
                                 {"__slots__": (), "_forward_cls": cls,
                                  "__module__": "symgrad.autograd.function"})
        cls._op = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd "
                      "functions are all static, so you should invoke them on the class "
                      "itself. Instantiating an autograd function will raise an error in a "
                      "future version.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(LEGACY)

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        """Compute the outputs from the inputs (grad is disabled here); override it as a
        staticmethod taking ``ctx`` first (or not, with :meth:`setup_context`).

        >>> class Double(symgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         return grad * 2
        >>> Double.apply(symgrad.tensor([1.0, 2.0], requires_grad=True))
        tensor([2., 4.], grad_fn=<DoubleBackward>)
        """
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        """PyTorch 2's alternative to a ``ctx`` argument of forward: fill ctx from the inputs
        and the output (overridden, it makes ``forward`` take no ctx).

        >>> class Sin(symgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(x):
        ...         return x.sin()
        ...     @staticmethod
        ...     def setup_context(ctx, inputs, output):
        ...         x, = inputs
        ...         ctx.save_for_backward(x)
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         x, = ctx.saved_tensors
        ...         return grad * x.cos()
        >>> x = symgrad.zeros(2, requires_grad=True)
        >>> Sin.apply(x).sum().backward(); x.grad
        tensor([1., 1.])
        """
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """One gradient (or None) per forward argument, from one per forward output (``vjp`` is
        the same method).

        >>> class Mul(symgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, a, b):
        ...         ctx.save_for_backward(a, b)
        ...         return a * b
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         a, b = ctx.saved_tensors
        ...         return grad * b, grad * a
        >>> a = symgrad.tensor([2.0], requires_grad=True)
        >>> b = symgrad.tensor([5.0], requires_grad=True)
        >>> Mul.apply(a, b).backward(); a.grad, b.grad
        (tensor([5.]), tensor([2.]))
        """
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` on the arguments (tensors and anything else) and, when an input
        tensor requires grad, record the call so that backward calls ``backward``.

        >>> class Clip(symgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x, limit):
        ...         ctx.save_for_backward(x)
        ...         ctx.limit = limit
        ...         return x.clamp(-limit, limit)
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         x, = ctx.saved_tensors
        ...         return grad * (x.abs() <= ctx.limit), None
        >>> x = symgrad.tensor([-3.0, 0.5, 3.0], requires_grad=True)
        >>> y = Clip.apply(x, 1.0)
        >>> y
        tensor([-1.0000,  0.5000,  1.0000], grad_fn=<ClipBackward>)
        >>> y.sum().backward(); x.grad
        tensor([0., 1., 0.])
        """
        setup = _overrides(cls, "setup_context")
        if setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = tuple(bound.args), {}
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        tensors = [a for a in args if isinstance(a, Tensor)]
        record = (not off_threads or _mode.enabled) and any(ctx.needs_input_grad)
        if record:
            from symgrad.dispatch import _edge

            next_ = [_edge(t) if t._requires_grad else None for t in tensors]
            values = [t._value for t in tensors]
        previous = _mode.enabled
        set_recording(False)
        try:
            if setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        finally:
            set_recording(previous)
        if not record:
            return output
        return _record(cls, ctx, args, kwargs, tensors, values, next_, output)


def _overrides(cls: type, name: str) -> bool:
    return getattr(cls, name) is not getattr(Function, name)


def _record(cls: type, ctx: FunctionCtx, args: tuple, kwargs: dict, tensors: list,
            values: list, next_: list, output: Any) -> Any:
    """Make the node of one recorded call and attach the differentiable outputs to it."""
    from symgrad.dispatch import _rebase_history

    single = not isinstance(output, tuple)
    outputs = [output] if single else list(output)
    inputs = {id(t) for t in tensors}
    dirty = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    for t in ctx._dirty:
        if t._requires_grad and t.grad_fn is None and t._base is None:
            raise RuntimeError("a leaf Variable that requires grad has been used in an "
                               "in-place operation.")
        counter_of(t).value += 1
    diff = []  # indices of the differentiable outputs
    aliases: list[tuple[int, Tensor]] = []  # inputs returned as is, each as a new tensor
    for k, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            ctx._outputs.append(None)
            continue
        if id(out) in non_diff or not out.is_floating_point():
            ctx._outputs.append((out._value.shape, out._value.dtype))
            continue
        if id(out) in inputs and id(out) not in dirty:
            alias = _make(out._value)  # an input returned as is: a new tensor, as PyTorch's view
            alias._counter = counter_of(out)
            aliases.append((k, alias))
            outputs[k] = out = alias
        ctx._outputs.append(len(diff))
        diff.append(k)
    for k, alias in aliases:
        alias._custom_view = (cls.__name__, k, len(aliases) > 1)
    op = cls._op or _make_op(cls)
    slots = iter(range(len(tensors)))
    template = [Slot(next(slots)) if isinstance(a, Tensor) else a for a in args]
    params: dict[str, Any] = {"ctx": ctx, "args": template, "kwargs": kwargs}
    if len(diff) == 1:
        ans = outputs[diff[0]]._value
    else:
        if not diff:
            return output  # nothing differentiable came out: nothing to record
        common = np.result_type(*[outputs[k]._value.dtype for k in diff])
        layout, start = [], 0
        for k in diff:
            value = outputs[k]._value
            layout.append((start, start + value.size, value.shape, value.dtype.name))
            start += value.size
        ans = np.concatenate([outputs[k]._value.reshape(-1).astype(common) for k in diff])
        params["layout"] = layout
        ctx._packed = ans
    node = cls._backward_cls(op, tuple(tensors), values, params, ans, next_)
    ctx._node = weakref.ref(node)
    for j, k in enumerate(diff):
        out = outputs[k]
        grad_fn = node._output_node(j, out._value)
        if id(out) in dirty:
            _rebase_history(out, grad_fn)
        else:
            out.grad_fn = grad_fn
            out._requires_grad = True
    output_index = {id(outputs[k]): j for j, k in enumerate(diff)}
    saved = []
    for t in ctx._to_save:
        if t is None:
            saved.append(None)
        elif id(t) in output_index:
            saved.append(_SavedOutput(output_index[id(t)], t))
        else:
            saved.append((t, t._version))
    ctx._saved = saved
    ctx._to_save = ()
    return outputs[0] if single else tuple(outputs)


def _make_op(cls: type) -> Op:
    """The Op of Function subclass ``cls``: its forward re-runs ``cls.forward`` on values, its
    joint VJP runs ``cls.backward``."""

    def forward(xp: Any, *values: Any, ctx: Any = None, args: list, kwargs: dict,
                layout: Any = None) -> Any:
        call = [_make(values[a.index]) if isinstance(a, Slot) else a for a in args]
        fresh = FunctionCtx()
        previous = _mode.enabled
        set_recording(False)
        try:
            if _overrides(cls, "setup_context"):
                output = cls.forward(*call, **kwargs)
            else:
                output = cls.forward(fresh, *call, **kwargs)
        finally:
            set_recording(previous)
        outputs = output if isinstance(output, tuple) else (output,)
        kept = ctx._outputs if ctx is not None else [0]
        diff = [o._value for o, kind in zip(outputs, kept, strict=False) if isinstance(kind, int)]
        if layout is None:
            return diff[0]
        packed = np.concatenate([d.reshape(-1) for d in diff])
        return packed.astype(ctx._packed.dtype) if packed.dtype.kind == "f" else packed

    def joint_vjp(xp: Any, g: Any, ans: Any, needs: tuple[bool, ...], *values: Any, ctx: Any,
                  args: list, kwargs: dict, layout: Any = None) -> list:
        return _run_backward(cls, ctx, xp, g, ans, needs, values, args, layout)

    def lower(xp: Any, *values: Any, ctx: Any = None, args: list, kwargs: dict,
              layout: Any = None) -> Any:
        call = [values[a.index] if isinstance(a, Slot) else a for a in args]
        return cls.symbolic(*call, **kwargs)

    op = Op(f"{cls.__module__}.{cls.__qualname__}", f"{cls.__name__}Backward", forward,
            joint_vjp=joint_vjp, lower=lower if hasattr(cls, "symbolic") else None)
    op.node_class = cls._backward_cls
    cls._op = op
    return op


def _run_backward(cls: type, ctx: FunctionCtx, xp: Any, g: Any, ans: Any,
                  needs: tuple[bool, ...], values: tuple, args: list, layout: Any) -> list:
    """Call ``cls``'s backward: wrap the output cotangent(s) (an array, or a Tensor when the
    pass records; None when no gradient reached the outputs, which backward receives as zeros,
    or as None after ``set_materialize_grads(False)``, as in PyTorch), check what comes back,
    return one cotangent or None per tensor input."""
    recording = isinstance(g if g is not None else ans, Tensor)
    if g is None:  # undefined
        diff_grads = [None] * (1 if layout is None else len(layout))
    elif layout is not None:  # several differentiable outputs: unpack the concatenation
        diff_grads = [_wrap(_select(xp, g, start=s, stop=e, shape=shape, dtype=dt), recording)
                      for s, e, shape, dt in layout]
    else:
        diff_grads = [_wrap(g, recording)]
    grads = []
    for kind in ctx._outputs:
        if isinstance(kind, int):
            grad = diff_grads[kind]
            if grad is None and ctx.materialize_grads:
                if layout is None:
                    value = ans._value if recording else ans
                    grad = _make(np.zeros(value.shape, dtype=value.dtype))
                else:
                    grad = _make(np.zeros(layout[kind][2], dtype=layout[kind][3]))
            grads.append(grad)
        elif kind is None or not ctx.materialize_grads:
            grads.append(None)
        else:
            grads.append(_make(np.zeros(kind[0], dtype=kind[1])))
    if _overrides(cls, "vjp"):
        if _overrides(cls, "backward"):
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        backward = cls.vjp
    else:
        backward = cls.backward
    result = backward(ctx, *grads)
    if not isinstance(result, tuple):
        result = (result,)
    name = cls._backward_cls.__name__
    if len(result) < len(args) or any(r is not None for r in result[len(args):]):
        raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                           f"(expected {len(args)}, got {len(result)})")
    out = []
    for position, (arg, r) in enumerate(zip(args, result, strict=False)):
        if not isinstance(arg, Slot):
            if r is not None:
                raise RuntimeError(f"function {name} returned a gradient different than None "
                                   f"at position {position + 1}, but the corresponding forward "
                                   "input was not a Variable")
            continue
        i = arg.index
        if r is None or not needs[i]:
            out.append(None)
            continue
        if not isinstance(r, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
        value = values[i]
        shape, wanted = r._value.shape, (value._value if recording else value).shape
        if not _expandable(wanted, shape):
            raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - "
                               f"got {_torch_size(shape)} but expected shape compatible with "
                               f"{_torch_size(wanted)}")
        out.append(r if recording else r._value)
    return out


def _wrap(value: Any, recording: bool) -> Tensor:
    return value if recording else _make(value)


def _expandable(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether ``shape`` broadcasts to ``target`` (a gradient may be given in a broadcast
    shape, which the engine sums back)."""
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(shape[::-1], target[::-1], strict=False))
