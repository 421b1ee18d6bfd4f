"""Running an op on Tensors: forward on numpy, and the node that backward will need.

:func:`apply_op` is the one door every differentiable Tensor method goes through: it computes the
forward with the op's rule on the numeric namespace, applies PyTorch's dtype rules, and, when
gradients are being recorded, creates the backward node. :func:`apply_inplace` does the same for
in-place methods, bumping the version counter that backward checks saved values against and, for
views, recording the change on the view's base. Views (numpy views of a tensor's storage) are
tracked here too, so that they share version counters and follow their base's history.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad import ops
from symgrad.autograd import graph as _graph
from symgrad.autograd.grad_mode import _mode, off_threads
from symgrad.autograd.graph import node_class
from symgrad.numeric import dtypes
from symgrad.numeric import numpy_namespace as xp
from symgrad.tensor import Tensor, _make, _torch_size, counter_of

_F64, _F32 = np.dtype(np.float64), np.dtype(np.float32)
_DROPPED, _AT_EDGE = _graph.DROPPED, _graph.AT_EDGE
_new = object.__new__
_getframe = sys._getframe
_INT64_MIN, _UINT64_END, _INT64_END = dtypes.INT64_MIN, dtypes.UINT64_END, dtypes.INT64_END
_int_operand = dtypes.int_operand
_check_int = dtypes.check_int


def _broadcast_error(values: Sequence[Any], quiet: bool = False) -> str:
    shapes = [np.shape(v) for v in values]
    a, b = shapes[0], shapes[1] if len(shapes) > 1 else ()
    for i in range(1, max(len(a), len(b)) + 1):
        sa = a[-i] if i <= len(a) else 1
        sb = b[-i] if i <= len(b) else 1
        if sa != sb and sa != 1 and sb != 1:
            return (f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                    f"non-singleton dimension {max(len(a), len(b)) - i}")
    return "" if quiet else f"shapes {_torch_size(a)} and {_torch_size(b)} are not compatible"


def _matmul_error(a: np.ndarray, b: np.ndarray) -> str:
    if a.ndim == 1 and b.ndim == 1:
        return (f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
                "to have the same number of elements, but got "
                f"{a.shape[0]} and {b.shape[0]} elements respectively")
    if a.ndim == 2 and b.ndim == 1:
        return f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), " \
               f"vec ({b.shape[0]})"
    if a.ndim > 2 and b.ndim > 2:
        batch = _broadcast_error([np.empty(a.shape[:-2]), np.empty(b.shape[:-2])], quiet=True)
        if batch:
            return batch
    if a.ndim == 1:
        rows = f"1x{a.shape[0]}"
    else:
        rows = f"{math.prod(a.shape[:-1])}x{a.shape[-1]}"
    cols = f"{b.shape[-2]}x{b.shape[-1]}" if b.ndim > 1 else f"{b.shape[0]}x1"
    return f"mat1 and mat2 shapes cannot be multiplied ({rows} and {cols})"


def _result_dtype(op: ops.Op, inputs: Sequence[Any], params: dict) -> np.dtype:
    """PyTorch's dtype for an op's result where numpy's promotion differs (numpy widens more
    eagerly: int / int, int * float, float32 with a float64 0-d tensor ...)."""
    tensors = [(x.dtype, x._value.ndim) for x in inputs if isinstance(x, Tensor)]
    scalars = [x for x in inputs if not isinstance(x, Tensor) and isinstance(x, int | float)]
    scalars += [params[name] for name in op.scalar_params if name in params]
    result = dtypes.promote(tensors, scalars)
    if op.float_only and not result.is_floating_point:
        result = dtypes.get_default_dtype()
    return result.np_dtype


def _forward_error(op: ops.Op, values: Sequence[Any], error: ValueError) -> Exception:
    """A PyTorch-worded error for a numpy failure in ``op``'s forward (a singular matrix's
    ``LinAlgError`` as it is: the spelling words it, knowing which function met it)."""
    if isinstance(error, np.linalg.LinAlgError):
        return error
    if op is ops.linalg.matmul:
        return RuntimeError(_matmul_error(*values))
    message = str(error)
    if "broadcast" in message:
        return RuntimeError(_broadcast_error(values))
    return RuntimeError(message)


def _forward_quietly(op: ops.Op, values: Sequence[Any], params: dict) -> Any:
    """``op``'s forward again, where the user's numpy error state raised on an inf or nan
    (the first run costs nothing extra; forwards are pure)."""
    with xp.quiet():
        try:
            return op.forward(xp, *values, **params)
        except ValueError as error:
            raise _forward_error(op, values, error) from None


def apply_op(op: ops.Op, *inputs: Any, **params: Any) -> Tensor:
    """Run ``op`` forward on the inputs' values and record its node when grad is needed.

    Only floating-point results are recorded: integer and bool results (casts, comparisons)
    are not differentiable, as in PyTorch. (One- and two-input calls go through
    :func:`apply_unary` and :func:`apply_binary`, which hot callers call directly.)

    >>> apply_op(ops.elementwise.mul, symgrad.ones(2, requires_grad=True), 3.0)
    tensor([3., 3.], grad_fn=<MulBackward0>)
    """
    n = len(inputs)
    if n == 2:
        return apply_binary(op, inputs[0], inputs[1], params, 3)
    if n == 1 and isinstance(inputs[0], Tensor):
        return apply_unary(op, inputs[0], params, 3)
    values, need = _unpack(inputs)
    if op.float_only:
        values = _floats(values)
    out = _forward(op, values, params)
    if out.__class__ is not np.ndarray:
        out = np.asarray(out)
    dtype = out.dtype
    if dtype is _F64 and op.promotes:
        out, values = _promoted(op, inputs, params, out, values, need)
        dtype = out.dtype
    elif op.promotes and dtype.kind != "b" and (dtype.kind in "iu" or len(
            {v.dtype for v in values if v.__class__ is np.ndarray and v.dtype.kind != "b"}) > 1):
        out, values = _retyped(op, inputs, params, out, values)
        dtype = out.dtype
    if need and (not off_threads or _mode.enabled) and (dtype is _F32 or dtype.kind == "f"):
        node = _node(op, params, values, out, need, 2)
        node.versions = _graph.saved_versions(inputs, node.saved) if node.saved \
            else _graph._epoch
        node._inputs = inputs
        node.next = edges = _edges(inputs)
        _graph.count_uses(edges)
        result = _new(Tensor)
        result._value = out
        result._counter = None
        result._requires_grad = True
        result.grad_fn = node
    else:
        result = _make(out)
    if out.base is not None and isinstance(inputs[0], Tensor):
        _maybe_view(result, inputs[0], op, params)
    return result


def _floats(values: tuple) -> tuple:
    """The values of a float-only op: integer and bool arrays in the default float dtype."""
    for v in values:
        if v.__class__ is np.ndarray and v.dtype.kind in "biu":
            return tuple([_as_float(v) for v in values])
    return values


def _forward(op: ops.Op, values: Sequence[Any], params: dict | None) -> Any:
    """``op``'s forward on the values, numpy's failures worded as PyTorch's."""
    try:
        return op.forward(xp, *values, **params) if params else op.forward(xp, *values)
    except ValueError as error:
        raise _forward_error(op, values, error) from None
    except xp.FLOAT_ERRORS:  # the user's np.seterr / warnings filter: compute as PyTorch does
        return _forward_quietly(op, values, params or {})


def _node(op: ops.Op, params: dict | None, values: tuple, out: np.ndarray, need: int,
          depth: int, cls: type | None = None) -> Any:
    """A new node of ``op`` (its edges, inputs and versions left to the caller), created
    ``depth`` frames below the op's caller; of class ``cls`` when the caller knows it. Its
    creation site is the first frame outside symgrad from there (in anomaly mode, its forward
    stack is recorded too)."""
    if cls is None:
        cls = op.node_class
        if cls is None:
            cls = _node_class(op, params or {}, values)
    node = _new(cls)
    try:
        frame = _getframe(depth + 1)
        code = frame.f_code
        if code is _graph._user_code:
            node.code = code
            node.lasti = frame.f_lasti
        else:
            node.code, node.lasti = _graph.locate(frame)
    except ValueError:  # a shallow stack
        node.code, node.lasti = None, 0
    if _graph._anomaly_threads:
        _graph._record_forward(node, depth + 1)
    node.saved = op.saved_by_need[need]
    node.op = op
    node.params = params or None
    node.ans = out
    node.special = op.joint_vjp is not None  # (such nodes run the engine's careful way)
    if values.__class__ is _Promoted:  # (the careful way casts its gradients to these)
        node.input_dtypes, values = values.dtypes, tuple(values)
        node.special = True
    node.values = values
    node.uses = 0
    return node


def _edge_and_kept(x: Tensor, value: Any, read: bool) -> tuple[Any, Any]:
    """For input ``x`` (which needs a gradient) of a new node: where its gradient goes (a node
    there counts the use, see ``graph.count_uses``), and what the node keeps of it:
    ``graph.AT_EDGE`` for a leaf its edge holds, ``graph.DROPPED`` for a tensor computed by
    another node whose value the rules do not ``read``, else ``x`` (so that a long chain keeps
    no tensor per op; see Node.inputs). ``value``: the array the forward saw."""
    if x._base is not None:
        edge = _edge(x)
        _graph.count_uses((edge,))
        return edge, x
    edge = x.grad_fn
    if edge is None:
        return x, _AT_EDGE if value is x._value else x
    edge.uses += 1
    if not read and value is x._value and (x._counter is None or x._name is None):
        return edge, _DROPPED
    return edge, x


def _maybe_view(result: Tensor, source: Tensor, op: ops.Op, params: dict | None) -> None:
    """Mark ``result`` a view of ``source`` when its array is a numpy view of the source's."""
    base = result._value.base
    if base is source._value or base is source._value.base:
        _mark_view(result, source, op, params if params is not None else {})


def apply_unary(op: ops.Op, x: Tensor, params: dict | None = None, depth: int = 2,
                cls: type | None = None) -> Tensor:
    """:func:`apply_op` for one Tensor input (the hot path of unary methods): ``params`` a dict
    or None; ``depth``, the frames from here to the op's caller; ``cls``, the node class when
    the caller knows it (else the op's, or the one its ``node_name_of`` names).

    >>> apply_unary(ops.elementwise.exp, symgrad.zeros(2, requires_grad=True))
    tensor([1., 1.], grad_fn=<ExpBackward0>)
    """
    value = x._value
    if op.float_only and value.__class__ is np.ndarray and value.dtype.kind in "biu":
        value = _as_float(value)
    try:
        out = op.forward(xp, value, **params) if params else op.forward(xp, value)
    except ValueError as error:
        raise _forward_error(op, (value,), error) from None
    except xp.FLOAT_ERRORS:  # the user's np.seterr / warnings filter: compute as PyTorch does
        out = _forward_quietly(op, (value,), params or {})
    if out.__class__ is not np.ndarray:
        out = np.asarray(out)
    dtype = out.dtype
    values = (value,)
    if dtype is _F64 and op.promotes and value.dtype is not _F64:
        out, values = _promoted(op, (x,), params or {}, out, values, x._requires_grad)
        dtype = out.dtype
    elif (dtype.kind == "f" and value.dtype.kind in "biu" or dtype.kind in "iu"
          and value.dtype.kind == "b" and dtype.itemsize < 8) and op.promotes:
        # (numpy computes rint of int16 in float32, bool ** 2 in int8)
        out = out.astype(_result_dtype(op, (x,), params or {}))
        dtype = out.dtype
    if x._requires_grad and (not off_threads or _mode.enabled) and (
            dtype is _F32 or dtype.kind == "f"):
        node = _node(op, params, values, out, 1, depth, cls)
        saved = node.saved
        counter = x._counter
        node.versions = _graph.saved_versions((x,), saved) if saved and counter is not None \
            and counter._value else _graph._epoch
        # where the input's gradient goes (next), and the input the node keeps: not one
        # computed by another node whose value the rules do not read (graph.DROPPED), nor a
        # leaf its edge holds (graph.AT_EDGE), so that a long chain keeps no tensor and no tuple
        # of inputs per op (see Node.inputs)
        edge, kept = _edge_and_kept(x, values[0], bool(saved))
        node.next = (edge,)
        node._inputs = _graph.ONE_AT_EDGE if kept is _AT_EDGE else \
            _graph.ONE_DROPPED if kept is _DROPPED else (x,)
        result = _new(Tensor)
        result._value = out
        result._counter = None
        result._requires_grad = True
        result.grad_fn = node
    else:
        result = _new(Tensor)
        result._value = out
        result._counter = None
        result._requires_grad = False
        result.grad_fn = None
    if out.base is not None:
        _maybe_view(result, x, op, params)
    return result


def apply_binary(op: ops.Op, a: Any, b: Any, params: dict | None = None,
                 depth: int = 2, cls: type | None = None) -> Tensor:
    """:func:`apply_op` for two inputs, Tensors or Python numbers (the hot path of binary
    operators): ``params`` a dict or None; ``depth``, the frames from here to the op's caller;
    ``cls``, the node class when the caller knows it (as :func:`apply_unary`).

    >>> apply_binary(ops.elementwise.add, symgrad.ones(2, requires_grad=True), 1.0)
    tensor([2., 2.], grad_fn=<AddBackward0>)
    """
    need = 0
    va, vb = a, b
    if a.__class__ is Tensor or isinstance(a, Tensor):  # (subclasses: nn.Parameter)
        if a._requires_grad:
            need = 1
        va = a._value
    if b.__class__ is Tensor or isinstance(b, Tensor):
        if b._requires_grad:
            need |= 2
        vb = b._value
    elif vb.__class__ is int and not _INT64_MIN <= vb < _INT64_END:
        vb = _int_operand(vb, None if op.float_only else va)
    if va.__class__ is int and not _INT64_MIN <= va < _INT64_END:
        va = _int_operand(va, None if op.float_only else vb)
    if op.float_only and (va.__class__ is np.ndarray and va.dtype.kind in "biu"
                          or vb.__class__ is np.ndarray and vb.dtype.kind in "biu"):
        va, vb = _as_float(va), _as_float(vb)
    try:
        out = op.forward(xp, va, vb, **params) if params else op.forward(xp, va, vb)
    except ValueError as error:
        raise _forward_error(op, (va, vb), error) from None
    except xp.FLOAT_ERRORS:  # the user's np.seterr / warnings filter: compute as PyTorch does
        out = _forward_quietly(op, (va, vb), params or {})
    except OverflowError:  # a Python int a small integer dtype does not hold: PyTorch wraps it
        va, vb = _wrapped(va, vb), _wrapped(vb, va)
        out = _forward(op, (va, vb), params)
    if out.__class__ is not np.ndarray:
        out = np.asarray(out)
    dtype = out.dtype
    values = (va, vb)
    # (two float64 arrays: PyTorch's result is float64 too)
    if dtype is _F64 and op.promotes and not (va.__class__ is np.ndarray and va.dtype is _F64
                                              and vb.__class__ is np.ndarray
                                              and vb.dtype is _F64):
        out, values = _promoted(op, (a, b), params or {}, out, values, need)
        dtype = out.dtype
    elif op.promotes and dtype.kind != "b" and (dtype.kind in "iu" or (
            va.__class__ is np.ndarray and vb.__class__ is np.ndarray
            and va.dtype is not vb.dtype)):
        out, values = _retyped(op, (a, b), params or {}, out, values)
        dtype = out.dtype
    if need and (not off_threads or _mode.enabled) and (dtype is _F32 or dtype.kind == "f"):
        node = _node(op, params, values, out, need, depth, cls)
        saved = node.saved
        node.versions = _graph._epoch
        if saved:  # (a saved input with in-place changes: their versions)
            counter = a._counter if va is not a else None
            if counter is not None and counter._value:
                node.versions = _graph.saved_versions((a, b), saved)
            else:
                counter = b._counter if vb is not b else None
                if counter is not None and counter._value:
                    node.versions = _graph.saved_versions((a, b), saved)
        # where each input's gradient goes (next), and the inputs the node keeps: not an input
        # computed by another node whose value the rules do not read (graph.DROPPED), nor a
        # second reference to a leaf its edge holds (graph.AT_EDGE), so that a long chain keeps
        # no tensor and, mostly, no tuple of inputs per op (see Node.inputs)
        ea, ka = _edge_and_kept(a, values[0], 0 in saved) if need & 1 else (None, a)
        eb, kb = _edge_and_kept(b, values[1], 1 in saved) if need & 2 else (None, b)
        node.next = (ea, eb)
        if (ka is _DROPPED or ka is _AT_EDGE) and (kb is _DROPPED or kb is _AT_EDGE):
            node._inputs = _graph.TWO[(ka is _AT_EDGE) * 2 + (kb is _AT_EDGE)]  # (shared)
        else:
            node._inputs = (ka, kb)
        result = _new(Tensor)
        result._value = out
        result._counter = None
        result._requires_grad = True
        result.grad_fn = node
    else:
        result = _new(Tensor)
        result._value = out
        result._counter = None
        result._requires_grad = False
        result.grad_fn = None
    if out.base is not None and va is not a:
        _maybe_view(result, a, op, params)
    return result


def _keeps_dtype(kernel: Callable[..., Any], arity: int) -> bool:
    """Whether ``kernel`` (a numpy ufunc) gives a new array of its float operand's dtype for
    each operand the fast paths pass it: an array of that dtype, a Python float or int. numpy
    takes a ufunc's result dtype from the operands' dtypes alone (a Python number is weak), so
    one check of each kind here holds for every value."""
    if not isinstance(kernel, np.ufunc):
        return False
    for dtype in (_F32, _F64):
        a = np.ones(2, dtype)
        try:
            outs = [kernel(a, other) for other in (a, 1.5, 2)] if arity == 2 else [kernel(a)]
        except (TypeError, ValueError):  # (matmul refuses a number)
            return False
        for out in outs:
            if out.__class__ is not np.ndarray or out.dtype is not dtype or out.base is not None:
                return False
    return True


def binary_method(op: ops.Op, convert: Callable[[Any], Any],
                  check: Callable[[Tensor, Any], None] | None = None, *,
                  kernel: Callable[[Any, Any], Any] | None = None, cls: type | None = None,
                  depth: int = 1) -> Callable[[Tensor, Any], Tensor]:
    """The Tensor method ``self <op> other`` (an operator such as ``__mul__``): a fast path for
    the common case, ``self`` a float tensor that is not a view and ``other`` one of the same
    dtype or a Python number, and :func:`apply_binary` for every other. ``convert(other)``
    takes an operand that is not a Tensor or Python number (None: the method returns
    NotImplemented); ``check(self, other)`` raises PyTorch's error for operands the op refuses
    (it is not called on the fast path, whose operands it would accept).

    A spelling that is not elementwise gives its own ``kernel`` (the forward without ``xp``) and
    node class ``cls`` (``a @ b`` of two float matrices: np.matmul, MmBackward0), and its
    ``depth``, the frames from the method to the op's caller; its nodes do not fit (Node.fits).

    >>> mul = binary_method(ops.elementwise.mul, lambda other: None)
    >>> mul(symgrad.ones(2, requires_grad=True), symgrad.tensor([2.0, 3.0]))
    tensor([2., 3.], grad_fn=<MulBackward0>)
    """
    saved_by_need = op.saved_by_need
    elementwise = kernel is None  # (Node.fits: an op's own kernel is elementwise)
    kernel = kernel or op.kernel or functools.partial(op.forward, xp)  # (forward without xp)
    special = op.joint_vjp is not None
    # whether input 0 / 1 is saved, per need mask (bit i: input i needs a gradient)
    keeps = [(0 in saved, 1 in saved) for saved in saved_by_need]
    fast = op.node_name_of is None or cls is not None
    exact = _keeps_dtype(kernel, 2)  # (then its result need not be looked at)
    # (the fast path's node class, known now: the method's own cls is other's class)
    node_cls = cls or _node_class(op, {}, ()) if fast else None

    def general(self: Tensor, other: Any) -> Tensor:
        if check is not None:
            if other.__class__ is int:  # (PyTorch converts the operand first)
                _check_int(other)
            check(self, other)
        return apply_binary(op, self, other, None, depth + 2, cls)

    def method(self: Tensor, other: Any) -> Tensor:
        cls = other.__class__
        # (a view has a version counter: one without is no view)
        if cls is Tensor:
            vb = other._value
            rb = other._requires_grad
            cb = other._counter
            plain = cb is None or other._base is None
        elif cls is float:
            vb, rb, plain, cb = other, False, True, None
        elif cls is int:  # (one outside int64 and uint64 is refused by the general path)
            vb, rb, plain, cb = other, False, _INT64_MIN <= other < _UINT64_END, None
        else:
            if not isinstance(other, Tensor):
                other = convert(other)
                if other is None:
                    return NotImplemented
            return general(self, other)
        va = self._value
        dtype = va.dtype
        ca = self._counter
        if fast and plain and (dtype is _F32 or dtype is _F64) and (
                ca is None or self._base is None) and (vb is other or vb.dtype is dtype):
            try:
                out = kernel(va, vb)
            except Exception:  # (numpy's errors, worded as PyTorch's, on the general path)
                return general(self, other)
            if out.__class__ is not np.ndarray:  # a 0-d result: numpy gives a scalar
                out = np.asarray(out)
            if exact or out.dtype is dtype and out.base is None:  # (a view: the general path)
                result = _new(Tensor)
                result._value = out
                result._counter = None
                ra = self._requires_grad
                if (ra or rb) and (not off_threads or _mode.enabled):
                    node = _new(node_cls)
                    frame = _getframe(depth)
                    code = node.code = frame.f_code
                    if code is _graph._user_code:
                        node.lasti = frame.f_lasti
                    else:
                        node.code, node.lasti = _graph.locate(frame)
                    if _graph._anomaly_threads:
                        _graph._record_forward(node, depth)
                    need = 3 if ra and rb else 1 if ra else 2
                    saved = node.saved = saved_by_need[need]
                    # (a saved input with in-place changes: their versions)
                    node.versions = _graph.saved_versions((self, other), saved) if saved and (
                        ca is not None and ca._value or cb is not None and cb._value) \
                        else _graph._epoch
                    node.op = op
                    node.params = None
                    node.values = (va, vb)
                    node.ans = out
                    # (a Python number has no edge; two arrays of one dtype and shape: no
                    # broadcasting, and the elementwise rules keep the dtype: Node.fits)
                    node.special = special or (None if elementwise and (
                        vb is other or va.shape == vb.shape) else False)
                    # as in apply_binary: the edges, and the inputs kept
                    keep_a, keep_b = keeps[need]
                    node.uses = 0
                    a = self
                    if ra:
                        ea = self.grad_fn
                        if ea is None:
                            ea, a = self, _AT_EDGE
                        else:
                            ea.uses += 1
                            # (a named tensor has a counter: see Tensor.name)
                            if not keep_a and (ca is None or self._name is None):
                                a = _DROPPED
                    else:
                        ea = None
                    b = other
                    if rb:
                        eb = other.grad_fn
                        if eb is None:
                            eb, b = other, _AT_EDGE
                        else:
                            eb.uses += 1
                            if not keep_b and (cb is None or other._name is None):
                                b = _DROPPED
                    else:
                        eb = None
                    node.next = (ea, eb)
                    if (a is _DROPPED or a is _AT_EDGE) and (b is _DROPPED or b is _AT_EDGE):
                        node._inputs = _graph.TWO[(a is _AT_EDGE) * 2 + (b is _AT_EDGE)]
                    else:
                        node._inputs = (a, b)
                    result._requires_grad = True
                    result.grad_fn = node
                else:
                    result._requires_grad = False
                    result.grad_fn = None
                return result
        return general(self, other)

    # a code object of its own, not shared with the other ops' methods: CPython specialises an
    # attribute access for one class, and this method's node writes then see one node class
    method.__code__ = method.__code__.replace()
    return method


def unary_method(op: ops.Op, refuse_bool: Callable[[], Exception] | None = None, *,
                 kernel: Callable[[Any], Any] | None = None, cls: type | None = None,
                 depth: int = 1) -> Callable[[Tensor], Tensor]:
    """The Tensor method applying ``op`` to ``self``: a fast path for the common case, a plain
    float tensor that is not a view, and :func:`apply_unary` for every other (a bool tensor
    raises ``refuse_bool()`` when given: PyTorch's kernel refuses it).

    ``kernel``, ``cls`` and ``depth`` as for :func:`binary_method` (``x.sum()`` of all elements:
    np.add.reduce over every axis, SumBackward0).

    >>> unary_method(ops.elementwise.exp)(symgrad.zeros(2, requires_grad=True))
    tensor([1., 1.], grad_fn=<ExpBackward0>)
    """
    saved = op.saved_by_need[1]
    kernel = kernel or op.kernel or functools.partial(op.forward, xp)  # (forward without xp)
    fast = op.node_name_of is None or cls is not None
    node_cls = cls or _node_class(op, {}, ()) if fast else None  # (the fast path's node class)
    # (Node.fits, for an elementwise op: the output has the input's shape)
    special = op.joint_vjp is not None or (None if op.kernel is not None else False)
    exact = _keeps_dtype(kernel, 1)  # (then its result need not be looked at)

    def method(self: Tensor) -> Tensor:
        value = self._value
        dtype = value.dtype
        counter = self._counter  # (a view has one: one without is no view)
        if (dtype is _F32 or dtype is _F64) and fast and (counter is None or self._base is None):
            try:
                out = kernel(value)
            except Exception:  # (numpy's errors, worded as PyTorch's, on the general path)
                return apply_unary(op, self, None, depth + 1, cls)
            if out.__class__ is not np.ndarray:  # a 0-d result: numpy gives a scalar
                out = np.asarray(out)
            if exact or out.dtype is dtype and out.base is None:  # (a view: the general path)
                result = _new(Tensor)
                result._value = out
                result._counter = None
                if self._requires_grad and (not off_threads or _mode.enabled):
                    node = _new(node_cls)
                    frame = _getframe(depth)
                    code = node.code = frame.f_code
                    if code is _graph._user_code:
                        node.lasti = frame.f_lasti
                    else:
                        node.code, node.lasti = _graph.locate(frame)
                    if _graph._anomaly_threads:
                        _graph._record_forward(node, depth)
                    node.saved = saved
                    # (a saved input with in-place changes: its version)
                    node.versions = _graph.saved_versions((self,), saved) if saved \
                        and counter is not None and counter._value else _graph._epoch
                    node.op = op
                    node.params = None
                    node.values = (value,)
                    node.ans = out
                    node.special = special
                    # as in apply_unary: the edge, the input kept
                    node.uses = 0
                    edge = self.grad_fn
                    if edge is None:
                        node.next = (self,)
                        node._inputs = _graph.ONE_AT_EDGE
                    else:
                        edge.uses += 1
                        node.next = (edge,)
                        # (a named tensor has a counter: see Tensor.name)
                        node._inputs = _graph.ONE_DROPPED if not saved and (
                            counter is None or self._name is None) else (self,)
                    result._requires_grad = True
                    result.grad_fn = node
                else:
                    result._requires_grad = False
                    result.grad_fn = None
                return result
        if refuse_bool is not None and dtype.kind == "b":
            raise refuse_bool()
        return apply_unary(op, self, None, depth + 1, cls)

    method.__code__ = method.__code__.replace()  # (one per op: see binary_method)
    return method


def _partner(inputs: Sequence[Any]) -> Any:
    """The array beside which a Python int among ``inputs`` is converted (see
    dtypes.int_operand): a floating one if there is one, else the first."""
    arrays = [x._value for x in inputs if isinstance(x, Tensor)]
    return next((a for a in arrays if a.dtype.kind == "f"), arrays[0] if arrays else None)


def _unpack(inputs: Sequence[Any]) -> tuple[tuple, int]:
    """The inputs' arrays (numbers as they are), and the bit mask of those requiring grad."""
    values = []
    need = 0
    bit = 1
    for x in inputs:
        if x.__class__ is Tensor or isinstance(x, Tensor):  # (subclasses: nn.Parameter)
            values.append(x._value)
            if x._requires_grad:
                need |= bit
        else:
            if x.__class__ is int and not _INT64_MIN <= x < _INT64_END:
                x = _int_operand(x, _partner(inputs))
            values.append(x)
        bit <<= 1
    return tuple(values), need


def _edges(inputs: Sequence[Any]) -> tuple:
    """Where each input's gradient goes: its grad_fn, the leaf itself, or None (no grad)."""
    edges = []
    for x in inputs:
        if isinstance(x, Tensor) and x._requires_grad:
            edges.append((x.grad_fn or x) if x._base is None else _edge(x))
        else:
            edges.append(None)
    return tuple(edges)


def _promoted(op: ops.Op, inputs: Sequence[Any], params: dict, out: np.ndarray,
              values: tuple, need: int) -> tuple[np.ndarray, tuple]:
    """A float64 forward result in PyTorch's result dtype (numpy widens more eagerly); when it
    is float64 indeed, the VJPs read float32 inputs in float64, as PyTorch computes them."""
    wanted = _result_dtype(op, inputs, params)
    if wanted != _F64:
        return out.astype(wanted), values
    if need and any(v.__class__ is np.ndarray and v.dtype.kind == "f" and v.dtype is not _F64
                    for v in values):
        values = _Promoted([v.astype(_F64) if v.__class__ is np.ndarray and v.dtype.kind == "f"
                            and v.dtype is not _F64 else v for v in values],
                           [getattr(v, "dtype", None) for v in values])
    return out, values


def _retyped(op: ops.Op, inputs: Sequence[Any], params: dict, out: np.ndarray,
             values: tuple) -> tuple[np.ndarray, tuple]:
    """``op``'s result in PyTorch's result dtype where numpy's differs (a zero-dimensional
    tensor or int16 beside float16, a uint8 beside an int8 0-d tensor, ``bool ** 2`` ...):
    computed again on the values cast to it, as PyTorch computes; the node's rules read the
    cast values and cast each gradient back to its input's dtype."""
    if out.dtype.kind == "O":  # (symbolic values: sympy expressions)
        return out, values
    wanted = _result_dtype(op, inputs, params)
    if out.dtype == wanted:
        return out, values
    cast = [v.astype(wanted) if v.__class__ is np.ndarray and v.dtype != wanted
            and v.dtype.kind != "b" else v for v in values]
    return (np.asarray(_forward(op, cast, params)),
            _Promoted(cast, [getattr(v, "dtype", None) for v in values]))


def _wrapped(value: Any, other: Any) -> Any:
    """A Python int operand beside an array of a small integer dtype, wrapped into it as PyTorch
    converts it (uint8 and 300: 44)."""
    if value.__class__ is int and other.__class__ is np.ndarray and other.dtype.kind in "iu":
        return np.array(value, np.int64).astype(other.dtype)[()]
    return value


class _Promoted(tuple):
    """Values promoted to float64 for a node's rules (see _promoted), with the inputs' own
    dtypes, to which the engine casts their gradients at the node, as PyTorch does."""

    dtypes: tuple

    def __new__(cls, values: list, dtypes: list) -> _Promoted:
        self = super().__new__(cls, values)
        self.dtypes = tuple(dtypes)
        return self


def _node_class(op: ops.Op, params: dict, values: Sequence[Any]) -> type:
    """The node class for one application of ``op``, named as PyTorch names it."""
    if op.node_name_of is not None:
        return node_class(op.node_name_of(params, *values))
    if op.node_class is None:
        op.node_class = node_class(op.node_name)
    return op.node_class


def _rebase_history(tensor: Tensor, node: Any) -> None:
    """Give ``tensor`` a new grad_fn (after an in-place change), keeping its retain_grad."""
    if tensor._retains_grad and tensor.grad_fn is not None:
        node.retained = tensor.grad_fn.retained
        node.special = node.special or True
    tensor.grad_fn = node
    tensor._requires_grad = True


def _need_mask(next_: Sequence[Any]) -> int:
    """The bit mask of the inputs that need a gradient (those with an edge)."""
    return sum(1 << i for i, target in enumerate(next_) if target is not None)


def _edge(x: Tensor) -> Any:
    """Where the gradient for input ``x`` goes: its grad_fn, or ``x`` itself for a leaf."""
    if x._base is not None and x._view_version != x._counter.value:
        _refresh_view(x)
    return x.grad_fn or x


def _mark_view(view: Tensor, source: Tensor, op: ops.Op, params: dict) -> None:
    """Make ``view`` (a numpy view of ``source``'s storage) behave like a PyTorch view.

    It shares the version counter, so an in-place change through either is seen by the
    saved-value checks of the other; and it remembers how it was taken from its base, so that
    after an in-place change of the base its history can be rebuilt from the base's new one.
    """
    view._counter = counter = counter_of(source)
    node = view.grad_fn
    if node is not None and node.op.saves_output and node.out_version is None:
        _graph.watch_output(node, counter)
    if source._base is not None:
        view._base = source._base
        view._view_ops = (*source._view_ops, (op, params))
    else:
        view._base = source
        view._view_ops = ((op, params),)
    view._view_version = source._counter.value
    if off_threads and not _mode.enabled and source._requires_grad:
        view._made_without_grad = True


def _refresh_view(view: Tensor) -> None:
    """Rebuild a view's grad_fn after its base changed in place (PyTorch regenerates it too)."""
    base = view._base
    view._view_version = view._counter.value
    if not (base._requires_grad and (not off_threads or _mode.enabled)):
        return
    current = base
    for op, params in view._view_ops:
        current = apply_op(op, current, **params)
    _rebase_history(view, current.grad_fn)


def _as_float(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.dtype.kind not in "fc":
        return value.astype(dtypes.get_default_dtype().np_dtype)
    return value


def apply_inplace(op: ops.Op, self: Tensor, *others: Any, **params: Any) -> Tensor:
    """Run ``op`` on ``self`` and the others and write the result into ``self``'s storage.

    Every check happens before anything changes; when the change is recorded, ``self`` gets the
    new node as its ``grad_fn`` (PyTorch's "rebase history") and its version counter is bumped.
    A change through a view is recorded on the view's base (PyTorch's ``CopySlices``).
    """
    others_values = [x._value if isinstance(x, Tensor) else
                     _int_operand(x, self._value) if x.__class__ is int else x for x in others]
    recording = (not off_threads or _mode.enabled) and (
        self._requires_grad or any(isinstance(x, Tensor) and x._requires_grad for x in others)
    )
    _check_inplace(self)
    values = [self._value, *others_values]
    if op.float_only:
        values = list(_floats(tuple(values)))
    try:
        new = op.forward(xp, *values, **params) if params else op.forward(xp, *values)
    except ValueError as error:
        raise _forward_error(op, values, error) from None
    except xp.FLOAT_ERRORS:
        new = _forward_quietly(op, values, params)
    new = np.asarray(new)
    _check_inplace_result(op, self, others, params, new)
    if recording and self._base is not None:
        _record_on_base(op, self, others, params)
        return self
    node = None
    if recording:
        # the value before the change, as the new node's first input
        before = _make(self._value.copy(), self.grad_fn, self._requires_grad)
        cls = _node_class(op, params, values)
        inputs = (before, *others)
        next_ = [_edge(x) if isinstance(x, Tensor) and x._requires_grad else None
                 for x in inputs]
        node = cls(op, inputs, [before._value, *others_values], params or None, self._value,
                   next_, op.saved_by_need[_need_mask(next_)], 3)
    self._value[...] = new
    counter = counter_of(self)
    counter.value += 1
    if node is not None:
        if op.saves_output:
            _graph.watch_output(node, counter)
        _rebase_history(self, node)
    return self


def _check_inplace(self: Tensor) -> None:
    """PyTorch's refusals of an in-place change of ``self`` (a leaf, a view of one, a view made
    under no_grad, a piece of a multi-output view op, overlapping memory)."""
    enabled = not off_threads or _mode.enabled
    base = self._base
    if enabled and self._requires_grad and self.grad_fn is None and base is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if enabled and self._made_without_grad:
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad mode "
            "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You "
            "can clarify your code by moving both the view and the inplace either both inside the "
            "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
            "want the inplace to be tracked).")
    if enabled and self._multi_output is not None and self._requires_grad:
        name, index = self._multi_output
        raise RuntimeError(
            f"Output {index} of {name} is a view and is being modified inplace. This view is the "
            "output of a function that returns multiple views. Such functions do not allow the "
            "output views to be modified inplace. You should replace the inplace operation by an "
            "out-of-place one.")
    if enabled and self._custom_view is not None and self._requires_grad:
        name, index, several = self._custom_view
        if several:
            raise RuntimeError(
                f"Output {index} of {name} is a view and is being modified inplace. This view is "
                "the output of a function that returns multiple views. Such functions do not "
                "allow the output views to be modified inplace. You should replace the inplace "
                "operation by an out-of-place one.")
        raise RuntimeError(
            f"Output {index} of {name} is a view and is being modified inplace. This view was "
            "created inside a custom Function (or because an input was returned as-is) and the "
            "autograd logic to handle view+inplace would override the custom backward "
            "associated with the custom Function, leading to incorrect gradients. This behavior "
            "is forbidden. You can fix this by cloning the output of the custom Function.")
    if enabled and base is not None and base._requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if not self._value.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the tensor "
                           "before performing the operation.")


def output_shape_error(shape: tuple[int, ...], broadcast: tuple[int, ...]) -> RuntimeError:
    """PyTorch's error for an in-place result whose broadcast shape is not the tensor's own."""
    return RuntimeError(f"output with shape {_torch_size(shape)} doesn't match the broadcast "
                        f"shape {_torch_size(broadcast)}")


def _check_inplace_result(op: ops.Op, self: Tensor, others: Sequence[Any], params: dict,
                          new: np.ndarray) -> None:
    """The result of an in-place op must keep ``self``'s shape and cast to its dtype."""
    if new.shape != self._value.shape:
        raise output_shape_error(self._value.shape, new.shape)
    # (numpy's dtype where it widens more eagerly than PyTorch, or computes an integer op in a
    # float type: rint or exp of int8 in float16, or a float op in the integer type)
    kind = self._value.dtype.kind
    exact = new.dtype is not _F64 and not (kind in "biu" and (
        new.dtype.kind == "f" or op.float_only or kind == "b" and new.dtype.kind in "iu"))
    result_dtype = dtypes.from_numpy_dtype(new.dtype if exact else _result_dtype(
        op, (self, *others), params))
    if not dtypes.can_cast(result_dtype, self.dtype):
        raise RuntimeError(f"result type {result_dtype._torch_name} can't be cast to the desired "
                           f"output type {self.dtype._torch_name}")


def _record_on_base(op: ops.Op, view: Tensor, others: Sequence[Any], params: dict) -> None:
    """Record an in-place change of ``view`` as a change of its base (PyTorch's CopySlices).

    The view's new value is computed in the graph from its old one; the base's new value is its
    old one with the view's elements replaced, located by replaying the view's ops on an array
    of positions. The view's own history is then rebuilt from the base's new one.
    """
    base = view._base
    if view._view_version != view._counter.value:
        _refresh_view(view)
    before = _make(view._value.copy(), view.grad_fn, view._requires_grad)
    updated = apply_op(op, before, *others, **params)
    positions = np.arange(base._value.size).reshape(base._value.shape)
    for view_op, view_params in view._view_ops:
        positions = view_op.forward(xp, positions, **view_params)
    key = np.unravel_index(positions, base._value.shape)
    base_before = _make(base._value.copy(), base.grad_fn, base._requires_grad)
    inputs = (base_before, updated)
    next_ = [_edge(x) if x._requires_grad else None for x in inputs]
    node = node_class("CopySlices")(ops.shape.setitem, inputs,
                                    [base_before._value, updated._value], {"key": key},
                                    base._value, next_)
    view._value[...] = updated._value
    counter_of(base).value += 1
    _rebase_history(base, node)
    _refresh_view(view)
