"""The recorded graph: backward nodes (``grad_fn``), AccumulateGrad, hook handles.

A :class:`Node` stores what ran (the op, its inputs, its params, its output value) rather than a
closure, so the engine can call the op's VJP rules on numpy and the symbolic side can replay its
forward on sympy. Each node has a single output. Node classes are created per PyTorch name
(``MulBackward0``...), so ``type(y.grad_fn).__name__`` reads as in PyTorch. Every node also
remembers where in user code its forward op was called (:attr:`Node.creation_site`).
"""

from __future__ import annotations

import ctypes
import gc
import itertools
import os
import sys
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.ops import Op


class Version:
    """A tensor's in-place version counter, shared by tensors that share storage and history.

    Every change counts also in the module's ``_epoch``: a node that saved inputs remembers
    the epoch it was made in, and backward skips its version checks while nothing changed
    since."""

    __slots__ = ("_value",)

    def __init__(self) -> None:
        self._value = 0

    @property
    def value(self) -> int:
        """The number of in-place changes so far."""
        return self._value

    @value.setter
    def value(self, value: int) -> None:
        global _epoch
        _epoch += 1
        self._value = value


_epoch = 0  # the number of version changes in this process (see Version)


class RemovableHandle:
    """Returned by ``register_hook``: ``handle.remove()`` unregisters the hook (also a context
    manager that removes it on exit).

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> with x.register_hook(lambda g: g * 10):
    ...     (x * 1).sum().backward()
    >>> x.grad
    tensor([10., 10.])
    """

    _ids = itertools.count()

    def __init__(self, hooks: dict[int, Callable[..., Any]], *,
                 extra_dict: dict | list[dict] | None = None) -> None:
        self.id = next(self._ids)
        self._hooks = hooks
        # dicts keyed by the same id that say more about the hook (a module hook's flags)
        self._extra = [] if extra_dict is None else (
            list(extra_dict) if isinstance(extra_dict, list) else [extra_dict])

    def remove(self) -> None:
        """Unregister the hook (a second call does nothing).

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> handle = x.register_hook(lambda g: g * 10)
        >>> handle.remove()
        >>> x.sum().backward(); x.grad
        tensor([1., 1.])
        """
        self._hooks.pop(self.id, None)
        for extra in self._extra:
            extra.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class _Internal(dict):
    """Source file name -> whether it is part of the symgrad package (filled on first sight)."""

    prefix = os.path.dirname(os.path.dirname(__file__)) + os.sep

    def __missing__(self, filename: str) -> bool:
        # the package's __main__ (the demonstration) is a user program
        inside = self[filename] = filename.startswith(self.prefix) and not filename.endswith(
            os.sep + "__main__.py")
        return inside


_INTERNAL = _Internal()
_user_code: Any = None  # the code of the last frame found at once outside symgrad
_getframe = sys._getframe
# The number of threads with anomaly mode on (symgrad.autograd.anomaly keeps it): while 0, node
# creation pays one global read for anomaly mode. ``_record_forward`` is set by that module.
_anomaly_threads = 0
_record_forward: Callable[[Node, int], None] | None = None


FREED_GRAPH = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)


FREED: Any = type("Freed", (), {"__repr__": lambda self: "<freed>"})()
"""A node's ``special`` flag once a backward without ``retain_graph`` freed it (true, as the
flag is for every node the engine runs its careful way)."""
DROPPED: Any = type("Dropped", (), {"__repr__": lambda self: "<dropped input>"})()
"""In a node's recorded inputs: a tensor computed by another node, not kept (see Node.inputs)."""
AT_EDGE: Any = type("AtEdge", (), {"__repr__": lambda self: "<the edge's leaf>"})()
"""In a node's recorded inputs: the leaf its edge holds (``node.next[i]``), not stored twice."""
# recorded inputs without a tuple of their own: one input, and two (index: 2 * (the first is
# AT_EDGE) + (the second is))
ONE_DROPPED, ONE_AT_EDGE = (DROPPED,), (AT_EDGE,)
TWO = ((DROPPED, DROPPED), (DROPPED, AT_EDGE), (AT_EDGE, DROPPED), (AT_EDGE, AT_EDGE))
# ``_make(value, grad_fn, True)`` (installed by symgrad.tensor, the layer above): the tensor that
# stands for a dropped input
_stand_in: Callable[[Any, Any], Any] = None  # type: ignore[assignment]


# PyTorch's set_warn_always (symgrad.runtime): the warnings it gives once per process are given
# every time
warn_always = False


def warn_at_user(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the first frame outside the symgrad package: where
    PyTorch's warnings from its C++ core point, the user's call (so that a filter on the
    user's module, or the line shown, is the same as with PyTorch)."""
    stacklevel = 2
    frame = _getframe(1)
    while frame is not None and _INTERNAL[frame.f_code.co_filename]:
        frame = frame.f_back
        stacklevel += 1
    warnings.warn(message, category, stacklevel=stacklevel if frame is not None else 1)


def user_frame(skip: int = 1) -> Any:
    """The first frame outside the symgrad package, starting ``skip`` frames above the caller
    (None if there is none)."""
    try:
        frame = _getframe(skip + 1)
        while _INTERNAL[frame.f_code.co_filename]:
            frame = frame.f_back
    except (ValueError, AttributeError):  # a shallow stack, or no frame outside symgrad
        return None
    return frame


def _line_of(code: Any, lasti: int) -> int:
    """The source line of the instruction at byte offset ``lasti`` of ``code``."""
    for start, end, line in code.co_lines():
        if start <= lasti < end and line is not None:
            return line
    return code.co_firstlineno


def locate(frame: Any) -> tuple[Any, int]:
    """``(code, offset of the current instruction)`` of the first frame outside the symgrad
    package, from ``frame`` outwards; ``(None, 0)`` when there is none."""
    global _user_code
    try:
        code = frame.f_code
        if code is not _user_code:  # (the code found last time is known to be outside)
            if not _INTERNAL[code.co_filename]:
                _user_code = code
            while _INTERNAL[code.co_filename]:
                frame = frame.f_back
                code = frame.f_code
        return code, frame.f_lasti
    except AttributeError:  # no frame outside symgrad
        return None, 0


def saved_versions(inputs: Sequence[Any], saved: tuple[int, ...]) -> tuple[int, ...] | int:
    """The versions of the saved inputs now, or, when all are 0 (no counter, or a number),
    the current epoch: while it stays the same, no version has changed since."""
    for i in saved:
        counter = getattr(inputs[i], "_counter", None)
        if counter is not None and counter._value:
            return tuple([_version_of(inputs[j]) for j in saved])
    return _epoch


class Node:
    """A backward function: one recorded op application (``tensor.grad_fn``), PyTorch's
    ``torch.autograd.graph.Node``. Its class name is PyTorch's node name.

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> y = (x * 2).sum()
    >>> y.grad_fn
    <SumBackward0 object at 0x...>
    >>> y.grad_fn.next_functions
    ((<MulBackward0 object at 0x...>, 0),)
    """

    # What every node sets lives in slots; what few nodes set overrides class-level defaults in
    # the instance __dict__, which Python allocates only when first written to.
    # ``special``: hooked, retaining, freed or watching its output's counter (whoever sets one
    # of the rarely set attributes below sets it too, out_version included), which the engine
    # checks first so that plain nodes cost one read;
    # (a backward pass that did not retain the graph sets ``special`` to FREED: see freed)
    # ``_inputs``: the inputs as recorded (see :attr:`inputs`), DROPPED where the node does not
    # keep the tensor
    # A plain node's ``special`` (false) is None where it fits (see :attr:`fits`), else False.
    # ``uses``: the edges into this node from the nodes recorded since (see count_uses)
    __slots__ = ("op", "params", "_inputs", "values", "ans", "next", "saved", "versions",
                 "code", "lasti", "special", "uses", "__dict__", "__weakref__")
    # the output's counter, set when the output first gets one, for ops whose VJP reads it
    out_version: Version | None = None
    out_version_value: int = 0  # the output's version when saved (not 0 after an in-place op)
    custom_backward: bool = False  # a custom Function's node (function.BackwardCFunction)
    # the inputs' dtypes where its values were promoted to float64 for its rules (such a node
    # is special: the careful way casts each input's gradient to its dtype, as PyTorch does)
    input_dtypes: tuple | None = None
    # Calling a node (``y.grad_fn(g)``) runs the engine: ``Node.__call__`` is installed by
    # symgrad.autograd.engine, the layer above, so that this module imports nothing above it.
    # Rarely set (in the instance __dict__, allocated only then)
    tensor_hooks: dict | None = None  # hooks registered on the output tensor
    retained: Any = None  # weak reference to the output tensor that retains its grad
    pre_hooks: dict | None = None  # register_prehook: fn(grad_outputs)
    post_hooks: dict | None = None  # register_hook: fn(grad_inputs, grad_outputs)
    cyclic: bool = False  # holds what may lead back to it: the collector tracks it (keep_tracked)
    # anomaly mode only: the forward call's stack, and the node whose backward created this one
    forward_stack: Any = None
    anomaly_parent: Node | None = None

    def __init__(self, op: Op, inputs: tuple, values: Sequence[Any], params: dict | None,
                 ans: Any, next_: Sequence[Any], saved: tuple[int, ...] = (),
                 skip: int = 2) -> None:
        """``skip``: the frames, counting this one, known to be symgrad's: 2 = this one and the
        creator. The search for the user's frame starts above them, so that those frames are
        never materialized as Python objects. (``dispatch.apply_op`` fills the slots itself, on
        the hot path.)"""
        try:
            frame = _getframe(skip)
        except ValueError:  # a shallow stack
            frame = None
        self.code, self.lasti = locate(frame)
        if _anomaly_threads:
            _record_forward(self, skip)
        self.op = op
        self.params = params
        self._inputs = inputs  # the input Tensors (or Python numbers)
        self.values = tuple(values)  # their arrays, as the forward saw them
        self.ans = ans
        self.next = tuple(next_)
        self.uses = 0
        count_uses(self.next)
        self.special = op.joint_vjp is not None  # (such nodes run the engine's careful way)
        # the inputs whose values backward will read (the op's saved_by_need), and their
        # versions now (see saved_versions)
        self.saved = saved
        self.versions = saved_versions(inputs, saved)

    @property
    def fits(self) -> bool:
        """Whether the recording proved that each input's gradient has the input's shape and
        dtype (an elementwise op without params on inputs of the output's shape and dtype, as
        the fast paths record it), so that the engine's loop neither sums nor casts it: a plain
        node whose ``special`` flag is None.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> (x * x).grad_fn.fits, (x * symgrad.ones(3, 2)).grad_fn.fits
        (True, False)
        """
        return self.special is None

    @fits.setter
    def fits(self, value: bool) -> None:
        if not self.special:  # (a node run the careful way stays so)
            self.special = None if value else False

    @property
    def freed(self) -> bool:
        """Whether a backward without ``retain_graph`` freed this node's saved values (then
        its ``special`` flag is :data:`FREED`, which whoever sets the flag keeps).

        >>> y = symgrad.ones(2, requires_grad=True).exp()
        >>> y.sum().backward()
        >>> y.grad_fn.freed
        True
        """
        return self.special is FREED

    @freed.setter
    def freed(self, value: bool) -> None:
        if value:
            self.special = FREED
        elif self.special is FREED:
            self.special = True

    @property
    def inputs(self) -> tuple:
        """The op's inputs: Tensors (or Python numbers) as the op was called with them.

        An input computed by another node whose value this node's rules do not read is not
        kept alive by the node (so that a long chain keeps no tensor per op): it is given back
        as a tensor with the recorded value and producer, not the original object.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> y = (x * 2).exp()
        >>> y.grad_fn.inputs[0].grad_fn is y.grad_fn.next[0]
        True
        """
        raw = self._inputs
        for r in raw:
            if r is DROPPED or r is AT_EDGE:
                return tuple([e if r is AT_EDGE else _stand_in(v, e) if r is DROPPED else r
                              for r, v, e in zip(raw, self.values, self.next, strict=True)])
        return raw

    @inputs.setter
    def inputs(self, value: tuple) -> None:
        self._inputs = value

    def name(self) -> str:
        """PyTorch's name of this node, e.g. ``'MulBackward0'``; the nodes PyTorch's autograd
        defines itself rather than a derivative formula carry its namespace
        (``'torch::autograd::CopySlices'``, ``'torch::autograd::CopyBackwards'``), their class
        names do not.

        >>> (symgrad.ones(2, requires_grad=True) * 2).grad_fn.name()
        'MulBackward0'
        """
        name = type(self).__name__
        return f"torch::autograd::{name}" if name in _NAMESPACED else name

    @property
    def creation_site(self) -> tuple[str, int] | None:
        """Where the forward op that recorded this node was called: ``(filename, line)`` of the
        first frame outside the symgrad package, or None if there was none.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> filename, line = (x * 2).grad_fn.creation_site
        >>> isinstance(filename, str) and isinstance(line, int)
        True
        """
        code = self.code
        if code is None:
            return None
        return code.co_filename, _line_of(code, self.lasti)

    @property
    def created_at(self) -> str | None:
        """:attr:`creation_site` as ``'file:line'`` (None if unknown).

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> (x * 2).grad_fn.created_at  # doctest: +SKIP
        '/home/me/script.py:2'
        >>> isinstance((x * 2).grad_fn.created_at, str)
        True
        """
        site = self.creation_site
        return None if site is None else f"{site[0]}:{site[1]}"

    @property
    def metadata(self) -> dict:
        """A dict for the user's own annotations (as PyTorch's ``grad_fn.metadata``). In
        anomaly mode it holds the forward call's formatted stack under ``'traceback_'`` and,
        for a node created by a backward pass, the node whose backward made it under
        ``'parent_'``.

        >>> y = symgrad.ones(2, requires_grad=True) * 2
        >>> y.grad_fn.metadata["note"] = "scaling"
        >>> y.grad_fn.metadata
        {'note': 'scaling'}
        """
        data = self.__dict__.get("_metadata")
        if data is None:
            data = self.__dict__["_metadata"] = {}
            keep_tracked(self)
            if self.forward_stack is not None:
                data["traceback_"] = self.forward_stack.format()
            if self.anomaly_parent is not None:
                data["parent_"] = self.anomaly_parent
        return data

    def register_prehook(self, hook: Callable[[tuple], tuple | None]) -> RemovableHandle:
        """Call ``hook(grad_outputs)`` before this node runs in backward (after the hooks of
        its output tensor); a returned tuple replaces ``grad_outputs``.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> y = x * 3
        >>> _ = y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        >>> y.sum().backward(); x.grad
        tensor([6., 6.])
        """
        if self.pre_hooks is None:
            self.pre_hooks = {}
            self.special = self.special or True
            keep_tracked(self)
        return _add_hook(self.pre_hooks, hook)

    def register_hook(self, hook: Callable[[tuple, tuple], tuple | None]) -> RemovableHandle:
        """Call ``hook(grad_inputs, grad_outputs)`` after this node ran in backward:
        ``grad_inputs`` holds one gradient per entry of :attr:`next_functions` (None where none
        is computed); a returned tuple of the same length replaces it.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> y = x * 3
        >>> _ = y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
        >>> y.sum().backward(); x.grad
        tensor([4., 4.])
        """
        if self.post_hooks is None:
            self.post_hooks = {}
            self.special = self.special or True
            keep_tracked(self)
        return _add_hook(self.post_hooks, hook)

    @property
    def next_functions(self) -> tuple[tuple[Node | AccumulateGrad | None, int], ...]:
        """The nodes that receive this node's input gradients, as PyTorch lists them: pairs
        ``(node, 0)``, with an :class:`AccumulateGrad` for a leaf and None for an input that
        needs no gradient.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> (x * symgrad.ones(2)).grad_fn.next_functions
        ((<AccumulateGrad object at 0x...>, 0), (None, 0))
        """
        return tuple((_edge_function(target), 0)
                     for target, rule in zip(self.next, _rules(self.op, self.next),
                                             strict=True)
                     if rule is not None)  # a where's condition is not an input to backward

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"


def runs_custom_backward(node: Node) -> bool:
    """Whether ``node`` runs a custom Function's backward (through its Op's joint VJP). Its
    None for an input is PyTorch's undefined gradient: no gradient at all, where a registry op's
    None is a zero gradient (the Op contract); and it runs even when no gradient reached it
    (its backward gets zeros, or None after ``set_materialize_grads(False)``), where an op's
    node passes None on without running its rules."""
    return node.custom_backward and node.op.joint_vjp is not None


def _rules(op: Op, next_: Sequence[Any]) -> Sequence[Any]:
    """The per-input VJP rules of ``op`` (a joint-VJP op has one for every input)."""
    return op.vjp if op.joint_vjp is None else (True,) * len(next_)


def _add_hook(hooks: dict, hook: Callable[..., Any]) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


class LeafHooks:
    """The hooks of a leaf's AccumulateGrad (``pre``, ``post``) and its tensor's
    ``register_post_accumulate_grad_hook`` (``post_accumulate``): kept on the tensor, since its
    AccumulateGrad object is made on demand."""

    __slots__ = ("pre", "post", "post_accumulate")

    def __init__(self) -> None:
        self.pre: dict[int, Callable[..., Any]] = {}
        self.post: dict[int, Callable[..., Any]] = {}
        self.post_accumulate: dict[int, Callable[..., Any]] = {}


def leaf_hooks(tensor: Any) -> LeafHooks:
    """The (created on demand) :class:`LeafHooks` of a leaf tensor."""
    hooks = tensor._leaf_hooks
    if hooks is None:
        hooks = tensor._leaf_hooks = LeafHooks()
        hooked_leaves[id(tensor)] = tensor
    return hooks


hooked_leaves: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
"""The live leaf tensors that got a hook, by id (while there is one, backward finds before it starts
when each leaf's gradient is complete: see the engine)."""


def watch_output(node: Node, counter: Version) -> None:
    """Have ``node``, whose VJP reads its output, check at backward that ``counter`` (its
    output's version counter) has not moved since now; the engine checks it on its careful way,
    so the node becomes ``special``."""
    node.out_version = counter
    node.out_version_value = counter.value
    node.special = node.special or True  # (or FREED, kept)


def count_uses(edges: Sequence[Any]) -> None:
    """Count the edges of a new node into the nodes among ``edges`` (their ``uses``: every
    place that records a node counts its edges, here or inline in ``symgrad.dispatch``)."""
    for target in edges:
        if isinstance(target, Node):
            target.uses += 1


class AccumulateGrad:
    """The node that adds gradients into a leaf tensor's ``.grad``; its ``variable`` is that
    leaf.

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> acc = (x * 2).grad_fn.next_functions[0][0]
    >>> acc
    <AccumulateGrad object at 0x...>
    >>> acc.variable is x
    True
    """

    __slots__ = ("variable", "__weakref__")

    def __init__(self, variable: Any) -> None:
        self.variable = variable

    next_functions: tuple = ()
    creation_site = created_at = None  # no forward op

    def name(self) -> str:
        """PyTorch's name of this node, ``'torch::autograd::AccumulateGrad'`` (its class is
        ``AccumulateGrad``, as its repr shows).

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> (x * 2).grad_fn.next_functions[0][0].name()
        'torch::autograd::AccumulateGrad'
        """
        return "torch::autograd::AccumulateGrad"

    def register_prehook(self, hook: Callable[[tuple], tuple | None]) -> RemovableHandle:
        """Call ``hook(grad_outputs)`` before the gradient is accumulated (after the leaf's
        tensor hooks); a returned tuple replaces it.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> y = x * 2
        >>> acc = y.grad_fn.next_functions[0][0]
        >>> _ = acc.register_prehook(lambda go: (go[0] + 1,))
        >>> y.sum().backward(); x.grad
        tensor([3., 3.])
        """
        return _add_hook(leaf_hooks(self.variable).pre, hook)

    def register_hook(self, hook: Callable[[tuple, tuple], Any]) -> RemovableHandle:
        """Call ``hook((), grad_outputs)`` after the gradient was accumulated into ``.grad``.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> y = x * 2
        >>> acc = y.grad_fn.next_functions[0][0]
        >>> _ = acc.register_hook(lambda gi, go: print(gi, go))
        >>> y.sum().backward()
        () (tensor([2., 2.]),)
        """
        return _add_hook(leaf_hooks(self.variable).post, hook)

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"


def _edge_function(target: Any) -> Node | AccumulateGrad | None:
    """Map an engine edge target (a node, a leaf tensor or None) to what PyTorch shows."""
    if target is None or isinstance(target, Node):
        return target
    accumulator = target._accumulator() if target._accumulator is not None else None
    if accumulator is None:
        accumulator = AccumulateGrad(target)
        target._accumulator = weakref.ref(accumulator)
    return accumulator


def _version_of(value: Any) -> int:
    """The version of a saved input: its counter's value, 0 without one (Python numbers)."""
    counter = getattr(value, "_counter", None)
    return 0 if counter is None else counter.value
_node_classes: dict[str, type[Node]] = {}


_NAMESPACED = frozenset({"CopySlices", "CopyBackwards", "NotImplemented"})
_MISSING: Any = object()
# The names PyTorch gives a node's inputs in its ``_saved_<name>`` attributes where they are
# not ``self`` (one input) or ``self`` and ``other`` (two)
_SAVED_NAMES = {
    "PowBackward1": ("self", "exponent"), "MmBackward0": ("self", "mat2"),
    "BmmBackward0": ("self", "mat2"), "MvBackward0": ("self", "vec"),
    "DotBackward0": ("self", "tensor"), "WhereBackward0": ("condition", "self", "other"),
}


def _saved(node: Node, what: str) -> Any:
    """The value behind ``node._saved_<what>`` (see _saved_property), or _MISSING."""
    params = node.params
    if params and what in params and not hasattr(params[what], "shape"):
        return params[what]
    op = node.op
    if what == "result":
        if not op.saves_output:
            return _MISSING
        if node.special is FREED:
            raise RuntimeError(FREED_GRAPH)
        return _stand_in(node.ans, node)
    n = len(node.values)
    names = _SAVED_NAMES.get(type(node).__name__, ("self",) if n == 1 else
                             ("self", "other") if n == 2 else ())
    if what not in names:
        return _MISSING
    i = names.index(what)
    if not any(i in op.saved_by_need[mask] for mask in range(1, 1 << n)):
        return _MISSING  # (this op never saves it: PyTorch's node has no such attribute)
    if node.special is FREED:
        raise RuntimeError(FREED_GRAPH)
    if i not in node.saved:
        return None
    value = node.inputs[i]
    if hasattr(value, "grad_fn"):
        return value
    return _stand_in(np.asarray(value), None).detach()  # (a number, as a tensor: PyTorch's)


def _saved_property(what: str) -> property:
    """``Node._saved_<what>``: what the node saved for its backward, as PyTorch's nodes show it
    (None for an input this op saves only when another input requires grad; PyTorch's error
    once a backward freed it; AttributeError where the op saves no such thing).

    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x).grad_fn._saved_self is x, x.exp().grad_fn._saved_result
    (True, tensor([2.7183, 7.3891], grad_fn=<ExpBackward0>))
    """
    def read(node: Node) -> Any:
        found = _saved(node, what)
        if found is _MISSING:
            raise AttributeError(f"'{type(node).__name__}' object has no attribute "
                                 f"'_saved_{what}'")
        return found
    read.__name__ = f"_saved_{what}"
    return property(read, doc=_saved_property.__doc__)


# (properties, not a __getattr__: a class with one loses CPython's specialised attribute
# reads, which the engine's loop makes on every node)
for _what in ("self", "other", "result", "exponent", "mat2", "vec", "tensor", "condition"):
    setattr(Node, f"_saved_{_what}", _saved_property(_what))


def node_class(name: str) -> type[Node]:
    """The Node subclass named ``name`` (created once, then cached)."""
    cls = _node_classes.get(name)
    if cls is None:
        cls = type(name, (Node,), {"__slots__": (), "__module__": "symgrad.autograd.graph"})
        _node_classes[name] = cls
        _plain_classes.add(cls)
    return cls


def named_node(result: Any, name: str) -> Any:
    """``result`` (a Tensor) with its node, if it has one, of the class ``name``: PyTorch's
    name for what symgrad records with another op (``x.squeeze((1,))``: SqueezeBackward2)."""
    if result.grad_fn is not None:
        result.grad_fn.__class__ = node_class(name)
    return result


# The cycle collector. PyTorch's nodes are C++ objects that Python's collector never sees; ours
# are Python objects (a node and its edge tuple per recorded op), and a long graph made every
# full collection walk all of them, and full collections came more often as it grew. They cannot
# form a reference cycle among themselves (a graph is acyclic and a node does not point back at
# its output), so when a collection of the older generations starts, the plain nodes that
# survived the young generation stop being tracked, with their edge and input tuples;
# refcounting still frees them. A node that may sit on a cycle stays tracked (or is tracked
# again by keep_tracked): one with hooks, metadata, a retained grad or a lowering cache, and a
# custom Function's node (its ctx may hold its outputs). Other interpreters keep tracking all.

_plain_classes: set[type] = set()  # the registry ops' node classes (node_class)
if sys.implementation.name == "cpython":
    # (given the object's address, id(), which ctypes passes on faster than the object)
    _untrack = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(("PyObject_GC_UnTrack", ctypes.pythonapi))
    _track = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("PyObject_GC_Track", ctypes.pythonapi))
else:  # pragma: no cover - the collector keeps tracking everything
    _untrack = _track = None


def _untrack_graphs(phase: str, info: dict[str, int]) -> None:
    """``gc.callbacks`` entry: before a collection of the older generations, untrack the plain
    nodes that survived in the younger ones, and their edge and input tuples."""
    global _half_made
    if phase != "start" or not info["generation"]:
        return
    if len(sys._current_frames()) > 1:
        # Another thread may be building a tuple that gc.get_objects lists: a reference held
        # here when the scheduler switches threads makes its final resize fail (SystemError in
        # _PyTuple_Resize, seen in dask's tokenize). With other threads, nothing is untracked
        # (the nodes this collection moves to the oldest generation stay tracked).
        return
    candidates = [node for node in (ref() for ref in _half_made) if node is not None]
    _half_made = []
    for generation in (0, 1):
        candidates += [obj for obj in gc.get_objects(generation) if type(obj) in _plain_classes]
    is_tracked, untrack = gc.is_tracked, _untrack
    for node in candidates:
        try:
            edges, inputs = node.next, node._inputs
            if node.special or node.cyclic:
                continue
        except AttributeError:  # being made: the collection started in apply_op
            _half_made.append(weakref.ref(node))  # (this collection moves it on: see it later)
            continue
        untrack(id(node))  # (PyObject_GC_UnTrack does nothing to an untracked object)
        untrack(id(edges))
        if type(inputs) is tuple and is_tracked(inputs):  # (often a shared, untracked one)
            untrack(id(inputs))


_half_made: list[weakref.ref] = []  # nodes a collection found half made, for the next one


def keep_tracked(node: Node) -> None:
    """Keep ``node`` tracked by the cycle collector (track it again if it was untracked): it
    now holds something that may lead back to it (a hook, metadata, a cache)."""
    node.cyclic = True
    if _track is not None and not gc.is_tracked(node):
        _track(node)


if _untrack is not None:
    gc.callbacks.append(_untrack_graphs)
