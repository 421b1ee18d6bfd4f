"""The Tensor: a numpy array plus autograd state, with PyTorch's API and semantics.

Every differentiable method runs a registered op through ``symgrad.dispatch.apply_op``, which
computes the forward on numpy and, when gradients are being recorded, creates the backward node;
in-place methods go through ``apply_inplace``. This module holds the Tensor's own state (value,
requires_grad, grad, grad_fn, version counter) and the argument checks PyTorch makes.
"""

from __future__ import annotations

import math
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from symgrad import _docs, ops
from symgrad.autograd.grad_mode import _mode
from symgrad.autograd.graph import Node, RemovableHandle, Version, leaf_hooks, node_class
from symgrad.numeric import dtypes
from symgrad.numeric import namespace as xp
from symgrad.numeric.printing import format_tensor

_new = object.__new__


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``symgrad.Size([2, 3])`` (PyTorch's ``torch.Size``).

    >>> s = symgrad.zeros(2, 3).shape
    >>> s
    symgrad.Size([2, 3])
    >>> s[1], s[1:]
    (3, symgrad.Size([3]))
    """

    def __repr__(self) -> str:
        return f"symgrad.Size({list(self)})"

    def numel(self) -> int:
        """The number of elements of a tensor of this shape.

        >>> symgrad.Size([2, 3]).numel()
        6
        """
        return math.prod(self)

    def __getitem__(self, key: Any) -> Any:
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other: Any) -> Size:
        return Size(tuple(self) + tuple(other))


_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


class device:  # noqa: N801 - PyTorch's name
    """A device, as PyTorch names them (``device('cuda:0')`` can be written down); symgrad
    computes on the CPU only, and refuses to put a tensor anywhere else.

    Its attributes ``type`` (``'cpu'``, ``'cuda'`` ...) and ``index`` (an int or None) are as in
    PyTorch.

    >>> symgrad.device("cpu")
    device(type='cpu')
    >>> d = symgrad.device("cuda:1")
    >>> d.type, d.index
    ('cuda', 1)
    >>> symgrad.ones(2).device
    device(type='cpu')
    """

    __slots__ = ("type", "index")

    def __init__(self, type: str | device = "cpu",  # noqa: A002 - PyTorch's name
                 index: int | None = None) -> None:
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(type, str):
            raise TypeError(f"device(): argument 'type' must be str, not {type.__class__.__name__}")
        kind, colon, number = type.partition(":")
        if kind not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start "
                               f"of device string: {type}")
        if colon:
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        if index is not None:
            if not isinstance(index, int) or isinstance(index, bool):
                raise TypeError("device(): argument 'index' (position 2) must be int, not "
                                f"{index.__class__.__name__}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self.type, self.index = kind, index

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, device) and other.type == self.type
                and other.index == self.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


_CPU_ONLY = " (symgrad computes on the CPU only: its tensors are numpy arrays in host memory)"


def check_device(value: Any) -> None:
    """Refuse any device but the CPU with the error PyTorch gives when built without it:
    AssertionError for CUDA (XPU, MTIA), RuntimeError for the others."""
    if value is None:
        return
    kind = device(value).type
    if kind == "cpu":
        return
    if kind in ("cuda", "xpu", "mtia"):
        raise AssertionError(f"Torch not compiled with {kind.upper()} enabled{_CPU_ONLY}")
    raise RuntimeError(f"PyTorch is not linked with support for {kind} devices{_CPU_ONLY}")


CPU = device("cpu")


def _make(value: np.ndarray, grad_fn: Node | None = None, requires_grad: bool = False) -> Tensor:
    """Wrap an ndarray as a Tensor without copying (internal fast constructor)."""
    t = _new(Tensor)
    t._value = value
    t._requires_grad = requires_grad
    t._grad = None
    t.grad_fn = grad_fn
    t._counter = None  # created on first need (see counter_of): most tensors never need one
    return t


def _from_graph(operand: Any) -> bool:
    """Whether ``operand`` is a graph value or a mask computed from one (see
    ``Tensor._recipe``)."""
    return isinstance(operand, Tensor) and (operand._requires_grad or operand.grad_fn is not None
                                            or operand._recipe is not None)


def counter_of(t: Tensor) -> Version:
    """``t``'s version counter, created on first use."""
    counter = t._counter
    if counter is None:
        counter = t._counter = Version()
        node = t.grad_fn  # its backward may read this output: it watches the new counter
        if node is not None and node.out_version is None and node.ans is t._value \
                and node.op.saves_output:
            node.out_version = counter
    return counter


def _torch_size(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _normalize_key(key: Any) -> Any:
    """Turn Tensors and lists inside an index into numpy arrays; keep slices, ints, None, ...

    An index of integers only gets a trailing ``...``, so that numpy returns a 0-d view rather
    than a scalar copy: ``x[0]`` is a view of ``x``, as in PyTorch.
    """
    if isinstance(key, tuple):
        key = tuple(_normalize_key_part(k) for k in key)
    else:
        key = _normalize_key_part(key)
    if isinstance(key, int) or (isinstance(key, tuple) and key and all(
            isinstance(k, int) for k in key)):
        return (*key, Ellipsis) if isinstance(key, tuple) else (key, Ellipsis)
    return key


def _normalize_key_part(part: Any) -> Any:
    if isinstance(part, Tensor):
        if part.dtype is dtypes.bool_ or part.dtype is dtypes.int64:
            # a copy: the graph keeps the index as it was (PyTorch saves the index tensor)
            return part._value.copy() if part._value.ndim else part._value.item()
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if isinstance(part, list) and not part:
        return np.zeros(0, dtype=np.int64)  # x[[]]: an empty integer index
    if isinstance(part, list | np.ndarray):
        return np.array(part, copy=True)
    if isinstance(part, np.integer):
        return int(part)
    return part


def _dim(dim: int, ndim: int) -> int:
    """Validate a possibly negative dim and return it as a non-negative one."""
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not isinstance(dim, int | np.integer) or not low <= dim <= high:
        if not isinstance(dim, int | np.integer):
            raise TypeError(f"dim must be an int, got {type(dim).__name__}")
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], "
                         f"but got {dim})")
    return int(dim) % max(ndim, 1)


def _dims(dim: int | Sequence[int], ndim: int) -> tuple[int, ...]:
    """Reduction dims as sorted non-negative ints; ``()`` means all dims, as in PyTorch."""
    if isinstance(dim, int | np.integer):
        dim = (dim,)
    normalized = [_dim(d, ndim) for d in dim]
    for d in normalized:
        if normalized.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if not ndim:
        return ()  # a 0-d tensor accepts dim 0 / -1 and has nothing to reduce
    return tuple(sorted(normalized)) if normalized else tuple(range(ndim))


def _shape_arg(shape: tuple) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], Sequence | np.ndarray):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _expanded_shape(shape: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...]:
    """``target`` with -1 resolved, checked as PyTorch checks an ``expand`` to it."""
    if len(target) < len(shape):
        raise RuntimeError(f"expand(symgrad.Tensor{{{_torch_size(shape)}}}, "
                           f"size={_torch_size(target)}): the number of sizes provided "
                           f"({len(target)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(shape)})")
    lead = len(target) - len(shape)
    for i, s in enumerate(target[:lead]):
        if s < 0:
            raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                               f"leading, non-existing dimension {i}")
    resolved = tuple(shape[i - lead] if s == -1 and i >= lead else s
                     for i, s in enumerate(target))
    for i, s in enumerate(shape):
        if s != 1 and s != resolved[lead + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({resolved[lead + i]}) must match the "
                f"existing size ({s}) at non-singleton dimension {lead + i}.  Target sizes: "
                f"{_torch_size(target)}.  Tensor sizes: {_torch_size(shape)}")
    return resolved


def _infer_shape(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    unknown = [i for i, s in enumerate(shape) if s == -1]
    known = math.prod(s for s in shape if s != -1)
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if unknown and known and numel % known == 0:
        shape = shape[: unknown[0]] + (numel // known,) + shape[unknown[0] + 1:]
    if any(s < 0 for s in shape) or math.prod(shape) != numel:
        raise RuntimeError(f"shape '{_torch_size(shape)}' is invalid for input of size {numel}")
    return shape


_ADD, _MUL, _DIV = ops.elementwise.add, ops.elementwise.mul, ops.elementwise.div


def _fast_binary(op: ops.Op) -> Callable[[Tensor, Any], Tensor]:
    """``self <op> other`` for the hottest operators: tensors and Python numbers pass through a
    set lookup; other operands are converted, or refused with NotImplemented (so Python raises
    its own TypeError, as with PyTorch)."""

    def method(self: Tensor, other: Any) -> Tensor:
        if other.__class__ not in _FAST_OPERANDS:
            other = _operand(other)
            if other is None:
                return NotImplemented
        return apply_op(op, self, other)

    return method


class Tensor:
    """A multi-dimensional array that records the operations applied to it for autograd.

    Create tensors with :func:`symgrad.tensor`, :func:`symgrad.ones` and friends. The attribute
    ``grad_fn`` is the backward node (:class:`symgrad.autograd.Node`) of the op that made a tensor,
    or None for a leaf.

    >>> a = symgrad.ones(3, requires_grad=True)
    >>> b = symgrad.tensor([1.0, 2.0, 3.0])
    >>> c = (a * b).sum()
    >>> c.grad_fn
    <SumBackward0 object at 0x...>
    >>> c.backward()
    >>> a.grad
    tensor([1., 2., 3.])
    """

    # The hot attributes live in slots; the rarely set ones are class-level defaults that an
    # instance overrides in its __dict__, which Python only allocates when first written to.
    __slots__ = ("_value", "_requires_grad", "_grad", "grad_fn", "_counter", "__dict__",
                 "__weakref__")
    _name: str | None = None
    _retains_grad: bool = False
    _hooks: dict | None = None
    _base: Tensor | None = None  # the tensor this one is a numpy view of
    _view_ops: tuple = ()  # the (op, params) that take this view from its base
    _view_version: int = 0  # the base's version when this view's grad_fn was recorded
    _made_without_grad: bool = False  # a view of a tensor requiring grad, taken under no_grad
    _multi_output: tuple[str, int] | None = None  # a piece of split/chunk/unbind: (op, index)
    _accumulator: Any = None  # weak reference to this leaf's AccumulateGrad
    _leaf_hooks: Any = None  # graph.LeafHooks: AccumulateGrad and post-accumulate hooks
    # a bool tensor compared from graph values (x > 0, and & | ~ of such masks): the numpy
    # function and its operands as ((tensor or number, its grad_fn then), ...), so that
    # lowering writes the mask as the condition it is (where -> Piecewise), not as the
    # constant it was at this point; autograd never reads it
    _recipe: tuple[str, tuple] | None = None

    __array_priority__ = 1000  # numpy defers to Tensor's reflected operators

    def __init__(self, *args: Any) -> None:
        """``Tensor(data)`` copies data as the default float dtype; ``Tensor(2, 3)`` makes
        a (zero-filled) tensor of that size, like PyTorch's legacy constructor."""
        default = dtypes.get_default_dtype().np_dtype
        if args and all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            value = np.zeros(args, dtype=default)
        else:
            value = np.array(args[0] if args else (), dtype=default)
        self._value = value
        self._requires_grad = False
        self._grad = None
        self.grad_fn = None
        self._counter = None

    # ------------------------------------------------------------------ attributes
    @property
    def shape(self) -> Size:
        """The size of each dimension, as a :class:`Size`.

        >>> symgrad.zeros(2, 3).shape
        symgrad.Size([2, 3])
        """
        return Size(self._value.shape)

    @property
    def dtype(self) -> dtypes.dtype:
        """The element type (``symgrad.float32`` by default).

        >>> symgrad.tensor([1.0]).dtype, symgrad.tensor([1]).dtype
        (symgrad.float32, symgrad.int64)
        """
        return dtypes.from_numpy_dtype(self._value.dtype)

    @property
    def ndim(self) -> int:
        """The number of dimensions.

        >>> symgrad.zeros(2, 3).ndim
        2
        """
        return self._value.ndim

    @property
    def device(self) -> device:
        """Always ``device(type='cpu')``.

        >>> symgrad.ones(2).device
        device(type='cpu')
        """
        return CPU

    @property
    def is_cuda(self) -> bool:
        """False: symgrad's tensors live in host memory.

        >>> symgrad.ones(2).is_cuda
        False
        """
        return False

    @property
    def name(self) -> str | None:
        """An optional name, used for this tensor's symbols when the graph is lowered (symgrad only;
        PyTorch's named tensors are a different feature).

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> x.name = "w"
        >>> x.name
        'w'
        """
        return self._name

    @name.setter
    def name(self, value: str | None) -> None:
        if value is not None and not isinstance(value, str):
            raise TypeError(f"name must be a str or None, got {type(value).__name__}")
        self._name = value

    def dim(self) -> int:
        """The number of dimensions (same as ``ndim``).

        >>> symgrad.zeros(2, 3).dim()
        2
        """
        return self._value.ndim

    def size(self, dim: int | None = None) -> Size | int:
        """The shape, or the size of dimension ``dim`` (negative counts from the end).

        >>> x = symgrad.zeros(2, 3)
        >>> x.size()
        symgrad.Size([2, 3])
        >>> x.size(-1)
        3
        """
        if dim is None:
            return Size(self._value.shape)
        if self._value.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._value.shape[_dim(dim, self._value.ndim)]

    def ndimension(self) -> int:
        """The number of dimensions (same as ``dim()``).

        >>> symgrad.zeros(2, 3).ndimension()
        2
        """
        return self._value.ndim

    def data_ptr(self) -> int:
        """The address of the first element (tensors sharing storage share it).

        >>> x = symgrad.zeros(3)
        >>> x.detach().data_ptr() == x.data_ptr()
        True
        """
        return self._value.__array_interface__["data"][0]

    def int(self) -> Tensor:
        """Refused: symgrad has no int32 dtype; its integer dtype is int64 (use ``.long()``).

        >>> symgrad.ones(2).int()
        Traceback (most recent call last):
            ...
        TypeError: symgrad supports the dtypes float32, float64, int64 and bool; use .long() ...
        """
        raise TypeError("symgrad supports the dtypes float32, float64, int64 and bool; use "
                        ".long() for integers")

    def half(self) -> Tensor:
        """Refused: symgrad's floating dtypes are float32 and float64.

        >>> symgrad.ones(2).half()
        Traceback (most recent call last):
            ...
        TypeError: symgrad supports the dtypes float32, float64, int64 and bool; use .float() ...
        """
        raise TypeError("symgrad supports the dtypes float32, float64, int64 and bool; use "
                        ".float() or .double()")

    def is_contiguous(self) -> bool:
        """Whether the elements are laid out in row-major order without gaps.

        >>> x = symgrad.zeros(2, 3)
        >>> x.is_contiguous(), x.t().is_contiguous()
        (True, False)
        """
        return bool(self._value.flags.c_contiguous)

    def numel(self) -> int:
        """The number of elements.

        >>> symgrad.zeros(2, 3).numel()
        6
        """
        return self._value.size

    def nelement(self) -> int:
        """The number of elements (same as ``numel``).

        >>> symgrad.zeros(2, 3).nelement()
        6
        """
        return self._value.size

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating-point type.

        >>> symgrad.tensor([1.0]).is_floating_point(), symgrad.tensor([1]).is_floating_point()
        (True, False)
        """
        return self._value.dtype.kind == "f"

    def element_size(self) -> int:
        """Bytes per element.

        >>> symgrad.zeros(2).element_size(), symgrad.zeros(2, dtype=symgrad.float64).element_size()
        (4, 8)
        """
        return self._value.itemsize

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for differentiation; settable on leaves
        (floating-point tensors only).

        >>> x = symgrad.ones(2)
        >>> x.requires_grad
        False
        >>> x.requires_grad = True
        >>> (x * 2).requires_grad
        True
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and self._value.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place and return self.

        >>> symgrad.zeros(2).requires_grad_()
        tensor([0., 0.], requires_grad=True)
        """
        if requires_grad and self._value.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors created by the user (or not requiring grad): no ``grad_fn``.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> x.is_leaf, (x * 2).is_leaf
        (True, False)
        """
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by backward (leaves, and non-leaves after
        :meth:`retain_grad`); None until then. It may be assigned a tensor of the same shape and
        dtype, or None.

        >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> print(x.grad)
        None
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4.])
        """
        if self.grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed "
                "want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() "
                "on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
                "you access the leaf Tensor instead.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._value.dtype != self._value.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype._cpp_name}' to a "
                    f"tensor with grad_dtype '{self.dtype._torch_name}'. The gradient must match "
                    "the tensor's grad_dtype (defaults to the tensor's dtype)."
                )
            if value._value.shape != self._value.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{_torch_size(value.shape)}' to a "
                    f"tensor of size '{_torch_size(self.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        """Whether this non-leaf keeps its ``.grad`` (see :meth:`retain_grad`).

        >>> y = symgrad.ones(2, requires_grad=True) * 2
        >>> y.retains_grad
        False
        >>> y.retain_grad()
        >>> y.retains_grad
        True
        """
        return self._retains_grad

    def retain_grad(self) -> None:
        """Make backward fill ``.grad`` of this non-leaf tensor too.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> y = x * 2
        >>> y.retain_grad()
        >>> (y * y).sum().backward()
        >>> y.grad
        tensor([4., 4.])
        """
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None:
            return
        self._retains_grad = True
        self.grad_fn.retained = weakref.ref(self)
        self.grad_fn.special = True

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor
        replaces the gradient. Returns a handle whose ``remove()`` unregisters the hook.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> handle = x.register_hook(lambda g: g * 2)
        >>> x.sum().backward(); x.grad
        tensor([2., 2.])
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            if self.grad_fn.tensor_hooks is None:
                self.grad_fn.tensor_hooks = {}
                self.grad_fn.special = True
            hooks = self.grad_fn.tensor_hooks
        else:
            if self._hooks is None:
                self._hooks = {}
            hooks = self._hooks
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(
            self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Call ``hook(tensor)`` on this leaf after backward accumulated into its ``.grad``.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> _ = x.register_post_accumulate_grad_hook(lambda p: print(p.grad))
        >>> (x * 2).sum().backward()
        tensor([2., 2.])
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        hooks = leaf_hooks(self).post_accumulate
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def detach(self) -> Tensor:
        """A tensor with the same values and storage, outside the graph.

        It shares the version counter: an in-place change through it to a value that backward
        needs is detected at backward.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> (x * 2).detach()
        tensor([2., 2.])
        """
        out = _make(self._value)
        out._counter = counter_of(self)
        return out

    def detach_(self) -> Tensor:
        """Detach this tensor from the graph in place: it becomes a leaf without grad.

        >>> y = symgrad.ones(2, requires_grad=True) * 2
        >>> y.detach_()
        tensor([2., 2.])
        >>> y.is_leaf, y.requires_grad
        (True, False)
        """
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """The same values and storage, outside the graph, with its own version counter.

        In-place changes through ``.data`` are not seen by autograd (unlike ``.detach()``).
        Assigning a tensor to ``.data`` replaces the values, keeping the autograd state.

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> x.data
        tensor([1., 1.])
        >>> x.data.mul_(3)
        tensor([3., 3.])
        >>> x
        tensor([3., 3.], requires_grad=True)
        """
        return _make(self._value)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._value = value._value

    @property
    def volatile(self) -> bool:
        """Removed in PyTorch 0.4: always False, with a warning (setting it has no effect).

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     symgrad.ones(1).volatile
        False
        """
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                      stacklevel=2)
        return False

    @volatile.setter
    def volatile(self, value: bool) -> None:
        warnings.warn("volatile was removed and now has no effect. Use `with symgrad.no_grad():` "
                      "instead.", UserWarning, stacklevel=2)

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's storage has seen (PyTorch's ``_version``)."""
        return 0 if self._counter is None else self._counter.value

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Tensor | Sequence[Tensor] | None = None,
    ) -> None:
        """Accumulate the gradient of this tensor into the ``.grad`` of the graph's leaves.

        ``gradient`` is the vector v of the vector-Jacobian product vᵀJ and must have this
        tensor's shape; it may be omitted only for a one-element tensor. See
        :func:`symgrad.autograd.backward` for ``retain_graph``, ``create_graph`` and ``inputs``.

        >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> (x ** 2).sum().backward()
        >>> x.grad
        tensor([2., 4.])
        >>> (x * 3).backward(symgrad.tensor([1.0, 10.0]))
        >>> x.grad
        tensor([ 5., 34.])
        """
        _api.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ------------------------------------------------------------------ conversion
    def numpy(self) -> np.ndarray:
        """The values as an ndarray sharing storage (refused while requires_grad: use
        ``x.detach().numpy()``).

        >>> symgrad.tensor([1.0, 2.0]).numpy()
        array([1., 2.], dtype=float32)
        """
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._value

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        value = self.numpy()
        if dtype is not None:
            return value.astype(dtype)
        return value.copy() if copy else value

    def item(self) -> float | int | bool:
        """The value of a one-element tensor as a Python number.

        >>> symgrad.tensor([2.5]).item()
        2.5
        """
        if self._value.size != 1:
            raise RuntimeError(f"a Tensor with {self._value.size} elements cannot be converted "
                               "to Scalar")
        return self._value.item()

    def tolist(self) -> Any:
        """The values as (nested) Python lists.

        >>> symgrad.tensor([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
        """
        return self._value.tolist()

    def clone(self) -> Tensor:
        """A copy with its own storage that stays in the graph (``CloneBackward0``).

        >>> x = symgrad.ones(2, requires_grad=True)
        >>> x.clone()
        tensor([1., 1.], grad_fn=<CloneBackward0>)
        """
        return apply_op(ops.elementwise.clone, self)

    def contiguous(self) -> Tensor:
        """Self when its elements are in row-major order, else a row-major copy
        (``CloneBackward0``), so that ``.contiguous().view(...)`` works as in PyTorch.

        >>> x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
        >>> x.is_contiguous(), x.contiguous().is_contiguous()
        (False, True)
        >>> x.contiguous().view(4)
        tensor([1., 3., 2., 4.])
        """
        if self._value.flags.c_contiguous:
            return self
        return self.clone()

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Convert dtype (``x.to(symgrad.float64)``, or to another tensor's dtype); the device
        may only be the CPU. Returns self when nothing changes (unless ``copy=True``).

        >>> x = symgrad.tensor([1.5, 2.5])
        >>> x.to(symgrad.float64)
        tensor([1.5000, 2.5000], dtype=symgrad.float64)
        >>> x.to("cpu") is x
        True
        """
        target = kwargs.pop("dtype", None)
        copy = kwargs.pop("copy", False)
        for arg in (*args, kwargs.pop("device", None)):
            if arg is None:
                continue
            if isinstance(arg, dtypes.dtype):
                target = arg
            elif isinstance(arg, Tensor):
                target = arg.dtype
            else:
                check_device(arg)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        if target is None or target is self.dtype:
            return self.clone() if copy else self
        return self._cast(target)

    def _cast(self, target: dtypes.dtype) -> Tensor:
        if target is self.dtype:
            return self
        return apply_op(ops.elementwise.to_dtype, self, dtype=target.np_dtype.name)

    def new_tensor(self, data: Any, *, dtype: dtypes.dtype | None = None, device: Any = None,
                   requires_grad: bool = False) -> Tensor:
        """A new leaf holding ``data``, in this tensor's dtype unless ``dtype``.

        >>> symgrad.zeros(1, dtype=symgrad.float64).new_tensor([1, 2])
        tensor([1., 2.], dtype=symgrad.float64)
        """
        from symgrad.creation import tensor

        return tensor(data, dtype=dtype or self.dtype, device=device,
                      requires_grad=requires_grad)

    def new_full(self, size: Sequence[int], fill_value: Any, *,
                 dtype: dtypes.dtype | None = None, device: Any = None,
                 requires_grad: bool = False) -> Tensor:
        """A new leaf of ``size`` filled with ``fill_value``, in this tensor's dtype.

        >>> symgrad.zeros(1).new_full((2, 2), 7.0)
        tensor([[7., 7.],
                [7., 7.]])
        """
        from symgrad.creation import full

        return full(tuple(size), fill_value, dtype=dtype or self.dtype, device=device,
                    requires_grad=requires_grad)

    def new_ones(self, *size: Any, dtype: dtypes.dtype | None = None, device: Any = None,
                 requires_grad: bool = False) -> Tensor:
        """A new leaf of ones, in this tensor's dtype.

        >>> symgrad.tensor([1, 2]).new_ones(3)
        tensor([1, 1, 1])
        """
        return self.new_full(_shape_arg(size), 1, dtype=dtype, device=device,
                             requires_grad=requires_grad)

    def new_zeros(self, *size: Any, dtype: dtypes.dtype | None = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:
        """A new leaf of zeros, in this tensor's dtype.

        >>> symgrad.tensor([1.0]).new_zeros(2, 2)
        tensor([[0., 0.],
                [0., 0.]])
        """
        return self.new_full(_shape_arg(size), 0, dtype=dtype, device=device,
                             requires_grad=requires_grad)

    new_empty = _docs.alias(new_zeros, "new_empty", doc="""PyTorch's uninitialized new tensor:
        here zero-filled, as :meth:`new_zeros`.

        >>> symgrad.tensor([1.0]).new_empty(2)
        tensor([0., 0.])
        """)

    def cpu(self) -> Tensor:
        """Self: tensors are always on the CPU.

        >>> x = symgrad.ones(2)
        >>> x.cpu() is x
        True
        """
        return self

    def cuda(self, device: Any = None, non_blocking: bool = False, **kwargs: Any) -> Tensor:
        """Refused: symgrad computes on the CPU only (PyTorch's AssertionError without CUDA).

        >>> symgrad.ones(2).cuda()
        Traceback (most recent call last):
            ...
        AssertionError: Torch not compiled with CUDA enabled (symgrad computes on the CPU only: ...)
        """
        check_device("cuda" if device is None else device)
        raise AssertionError(f"Torch not compiled with CUDA enabled{_CPU_ONLY}")

    @property
    def is_sparse(self) -> bool:
        """False: symgrad's tensors are dense (strided).

        >>> symgrad.ones(2).is_sparse
        False
        """
        return False

    def is_complex(self) -> bool:
        """False: symgrad has no complex dtypes.

        >>> symgrad.ones(2).is_complex()
        False
        """
        return False

    def to_sparse(self, *args: Any, **kwargs: Any) -> Tensor:
        """Refused: symgrad has dense tensors only.

        >>> symgrad.ones(2).to_sparse()
        Traceback (most recent call last):
            ...
        RuntimeError: symgrad does not support sparse layouts: its tensors are dense numpy arrays
        """
        raise RuntimeError("symgrad does not support sparse layouts: its tensors are dense "
                           "numpy arrays")

    def type(self, dtype: dtypes.dtype | None = None) -> str | Tensor:
        """The PyTorch type name (``'symgrad.FloatTensor'``), or a conversion to ``dtype``.

        >>> x = symgrad.ones(2)
        >>> x.type()
        'symgrad.FloatTensor'
        >>> x.type(symgrad.int64)
        tensor([1, 1])
        """
        if dtype is None:
            return f"symgrad.{self.dtype._torch_name}Tensor"
        return self._cast(dtypes.as_dtype(dtype))

    def float(self) -> Tensor:
        """Convert to float32 (self if it already is).

        >>> symgrad.tensor([1, 2]).float()
        tensor([1., 2.])
        """
        return self._cast(dtypes.float32)

    def double(self) -> Tensor:
        """Convert to float64.

        >>> symgrad.tensor([1, 2]).double()
        tensor([1., 2.], dtype=symgrad.float64)
        """
        return self._cast(dtypes.float64)

    def long(self) -> Tensor:
        """Convert to int64 (rounding toward zero).

        >>> symgrad.tensor([1.7, -1.7]).long()
        tensor([ 1, -1])
        """
        return self._cast(dtypes.int64)

    def bool(self) -> Tensor:
        """Convert to bool (nonzero is True).

        >>> symgrad.tensor([0.0, 2.0]).bool()
        tensor([False,  True])
        """
        return self._cast(dtypes.bool_)

    # ------------------------------------------------------------------ Python protocols
    def __repr__(self) -> str:
        suffixes = []
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn=<{type(self.grad_fn).__name__}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        d = self.dtype
        return format_tensor(self._value, d.name, d is dtypes.get_default_dtype(), suffixes)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._value.ndim == 0:
            return format(self._value.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._value.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self._value.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._value.shape[0]))

    def __bool__(self) -> bool:
        if self._value.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self._value.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._value.item())

    def __float__(self) -> float:
        global _warned_scalar_conversion
        value = self._scalar_value()
        if self._requires_grad and not _warned_scalar_conversion:
            _warned_scalar_conversion = True  # once per process, as PyTorch
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                          "unexpected behavior.\nConsider using tensor.detach() first.",
                          UserWarning, stacklevel=2)
        return float(value)

    def __int__(self) -> int:
        return int(self._scalar_value())

    def _scalar_value(self) -> Any:
        if self._value.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._value.item()

    def __index__(self) -> int:
        if self._value.dtype.kind not in "iub" or self._value.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self._value.item())

    __hash__ = object.__hash__  # identity, at C speed (tensors are dict keys in the engine)

    def __reduce_ex__(self, protocol: int) -> tuple:
        return (_rebuild, (self._value.copy(), self._requires_grad))

    def __deepcopy__(self, memo: dict) -> Tensor:
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.")
        out = _make(self._value.copy(), None, self._requires_grad)
        if self._grad is not None:
            out._grad = _make(self._grad._value.copy())
        memo[id(self)] = out
        return out

    # ------------------------------------------------------------------ comparisons (no grad)
    def _compare(self, other: Any, fn: Callable[[Any, Any], np.ndarray]) -> Tensor:
        if isinstance(other, Tensor):
            other_value = other._value
        elif isinstance(other, bool | int | float | np.generic):
            other_value = other
        elif isinstance(other, complex):
            raise TypeError("symgrad does not support complex numbers")
        else:
            return NotImplemented
        try:
            out = _make(np.asarray(fn(self._value, other_value)))
        except ValueError:
            raise RuntimeError(_broadcast_error([self._value, other_value])) from None
        if _from_graph(self) or _from_graph(other):
            out._recipe = (fn.__name__, ((self, self.grad_fn),
                                         (other, getattr(other, "grad_fn", None))))
        return out

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        """Elementwise ``self == other`` with broadcasting, as a bool tensor (``Tensor.eq``); not
        recorded for autograd.

        >>> symgrad.tensor([1.0, 2.0]).eq(2.0)
        tensor([False,  True])
        """
        return self._compare(other, np.equal)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        """Elementwise ``self != other`` with broadcasting, as a bool tensor (``Tensor.ne``); not
        recorded for autograd.

        >>> symgrad.tensor([1.0, 2.0]).ne(2.0)
        tensor([ True, False])
        """
        return self._compare(other, np.not_equal)

    def __lt__(self, other: Any) -> Tensor:
        """Elementwise ``self < other`` with broadcasting, as a bool tensor (``Tensor.lt``); not
        recorded for autograd.

        >>> symgrad.tensor([1.0, 2.0]).lt(2.0)
        tensor([ True, False])
        """
        return self._compare(other, np.less)

    def __le__(self, other: Any) -> Tensor:
        """Elementwise ``self <= other`` with broadcasting, as a bool tensor (``Tensor.le``); not
        recorded for autograd.

        >>> symgrad.tensor([1.0, 2.0]).le(2.0)
        tensor([True, True])
        """
        return self._compare(other, np.less_equal)

    def __gt__(self, other: Any) -> Tensor:
        """Elementwise ``self > other`` with broadcasting, as a bool tensor (``Tensor.gt``); not
        recorded for autograd.

        >>> symgrad.tensor([1.0, 2.0]).gt(1.0)
        tensor([False,  True])
        """
        return self._compare(other, np.greater)

    def __ge__(self, other: Any) -> Tensor:
        """Elementwise ``self >= other`` with broadcasting, as a bool tensor (``Tensor.ge``); not
        recorded for autograd.

        >>> symgrad.tensor([1.0, 2.0]).ge(2.0)
        tensor([False,  True])
        """
        return self._compare(other, np.greater_equal)

    eq, ne, lt, le, gt, ge = __eq__, __ne__, __lt__, __le__, __gt__, __ge__

    def all(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Whether all elements (or all along ``dim``) are true, as a bool tensor.

        >>> x = symgrad.tensor([[True, False], [True, True]])
        >>> x.all()
        tensor(False)
        >>> x.all(dim=1)
        tensor([False,  True])
        """
        axis = None if dim is None else _dim(dim, self._value.ndim)
        return _make(np.asarray(np.all(self._value, axis=axis, keepdims=keepdim)))

    def any(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Whether any element (or any along ``dim``) is true, as a bool tensor.

        >>> x = symgrad.tensor([[0.0, 0.0], [0.0, 1.0]])
        >>> x.any()
        tensor(True)
        >>> x.any(dim=1)
        tensor([False,  True])
        """
        axis = None if dim is None else _dim(dim, self._value.ndim)
        return _make(np.asarray(np.any(self._value, axis=axis, keepdims=keepdim)))

    def equal(self, other: Tensor) -> bool:
        """True when both tensors have the same shape and values.

        >>> symgrad.tensor([1.0, 2.0]).equal(symgrad.tensor([1.0, 2.0]))
        True
        """
        return self._value.shape == other._value.shape and bool(
            np.array_equal(self._value, other._value))

    def allclose(self, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8,
                 equal_nan: bool = False) -> bool:
        """Whether all elements are close: ``|self - other| <= atol + rtol * |other|``.

        >>> symgrad.tensor([1.0, 2.0]).allclose(symgrad.tensor([1.0, 2.000001]))
        True
        """
        return bool(np.allclose(self._value, _value_of(other), rtol=rtol, atol=atol,
                                equal_nan=equal_nan))

    def __invert__(self) -> Tensor:
        if self._value.dtype.kind not in "biu":
            raise TypeError("bitwise_not is only supported for integer and boolean tensors")
        out = _make(np.invert(self._value))
        if self._recipe is not None:
            out._recipe = ("invert", ((self, None),))
        return out

    def __and__(self, other: Any) -> Tensor:
        return self._compare(other, np.bitwise_and)

    def __or__(self, other: Any) -> Tensor:
        return self._compare(other, np.bitwise_or)

    def __xor__(self, other: Any) -> Tensor:
        return self._compare(other, np.bitwise_xor)

    # ------------------------------------------------------------------ arithmetic
    # Operators return NotImplemented for operands they do not take, so Python raises its own
    # "unsupported operand type(s)" TypeError, exactly as with PyTorch.
    def add(self, other: Any, *, alpha: float = 1) -> Tensor:
        """``self + alpha * other`` with broadcasting (``AddBackward0``); ``other`` may be a number.

        >>> x = symgrad.tensor([1.0, 2.0])
        >>> x.add(symgrad.tensor([10.0, 20.0]), alpha=2)
        tensor([21., 42.])
        """
        other = _operand(other, strict=True)
        if alpha != 1:
            _check_alpha(self, other, alpha)
            return apply_op(ops.elementwise.add, self, other, alpha=alpha)
        return apply_op(ops.elementwise.add, self, other)

    def sub(self, other: Any, *, alpha: float = 1) -> Tensor:
        """``self - alpha * other`` with broadcasting (``SubBackward0``); ``other`` may be a number.

        >>> x = symgrad.tensor([1.0, 2.0])
        >>> x.sub(symgrad.tensor([10.0, 20.0]), alpha=2)
        tensor([-19., -38.])
        """
        other = _operand(other, strict=True)
        _check_not_bool_sub(self, other)
        if alpha != 1:
            _check_alpha(self, other, alpha)
            return apply_op(ops.elementwise.sub, self, other, alpha=alpha)
        return apply_op(ops.elementwise.sub, self, other)

    def mul(self, other: Any) -> Tensor:
        """Elementwise product with broadcasting (``MulBackward0``); ``other`` may be a number.

        >>> x = symgrad.tensor([1.0, 2.0])
        >>> x.mul(symgrad.tensor([3.0, 4.0]))
        tensor([3., 8.])
        """
        return apply_op(ops.elementwise.mul, self, _operand(other, strict=True))

    def div(self, other: Any) -> Tensor:
        """True division with broadcasting (``DivBackward0``); integers divide to floats.

        >>> x = symgrad.tensor([1.0, 3.0])
        >>> x.div(2)
        tensor([0.5000, 1.5000])
        """
        return apply_op(ops.elementwise.div, self, _operand(other, strict=True))

    def pow(self, exponent: Any) -> Tensor:
        """``self ** exponent`` for a tensor or Python number exponent (``PowBackward0``, or
        ``PowBackward1`` for a tensor exponent).

        >>> x = symgrad.tensor([1.0, 2.0, 3.0])
        >>> x.pow(2)
        tensor([1., 4., 9.])
        """
        if isinstance(exponent, Tensor):
            return apply_op(ops.elementwise.pow, self, exponent)
        return apply_op(ops.elementwise.pow_scalar, self, exponent=_scalar(exponent))

    __add__ = _fast_binary(_ADD)
    __radd__ = __add__

    def __sub__(self, other: Any) -> Tensor:
        other = _operand(other)
        if other is None:
            return NotImplemented
        _check_not_bool_sub(self, other)
        return apply_op(ops.elementwise.sub, self, other)

    def __rsub__(self, other: Any) -> Tensor:
        other = _operand(other)
        if other is None:
            return NotImplemented
        _check_not_bool_sub(self, other)
        if isinstance(other, Tensor):
            return apply_op(ops.elementwise.sub, other, self)
        return apply_op(ops.elementwise.rsub, self, other=other)

    __mul__ = _fast_binary(_MUL)
    __rmul__ = __mul__
    __truediv__ = _fast_binary(_DIV)

    def __rtruediv__(self, other: Any) -> Tensor:
        other = _operand(other)
        if other is None:
            return NotImplemented
        if isinstance(other, Tensor):
            return apply_op(ops.elementwise.div, other, self)
        return self.reciprocal() * other  # PyTorch records 2 / x as MulBackward0(reciprocal)

    def __pow__(self, exponent: Any) -> Tensor:
        exponent = _operand(exponent)
        if exponent is None:
            return NotImplemented
        return self.pow(exponent)

    def __rpow__(self, base: Any) -> Tensor:
        base = _operand(base)
        if base is None:
            return NotImplemented
        if isinstance(base, Tensor):
            return apply_op(ops.elementwise.pow, base, self)
        return apply_op(ops.elementwise.rpow_scalar, self, base=base)

    def __neg__(self) -> Tensor:
        return self.neg()

    def __pos__(self) -> Tensor:
        return self

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, Tensor):
            return NotImplemented
        return self.matmul(other)

    def __rmatmul__(self, other: Any) -> Tensor:
        if not isinstance(other, Tensor):
            return NotImplemented
        return other.matmul(self)

    def __abs__(self) -> Tensor:
        return self.abs()

    def neg(self) -> Tensor:
        """``-self`` (``NegBackward0``); refused for bool tensors. Also ``symgrad.neg``.

        >>> symgrad.neg(symgrad.tensor([1.0, -2.0]))
        tensor([-1.,  2.])
        """
        if self._value.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                               "you are trying to invert a mask, use the `~` or `logical_not()` "
                               "operator instead.")
        return apply_op(ops.elementwise.neg, self)

    def negative(self) -> Tensor:
        """Alias of :meth:`neg`.

        >>> symgrad.tensor([1.0, -2.0]).negative()
        tensor([-1.,  2.])
        """
        return self.neg()

    def reciprocal(self) -> Tensor:
        """``1 / self`` (``ReciprocalBackward0``).

        >>> symgrad.reciprocal(symgrad.tensor([2.0, 4.0]))
        tensor([0.5000, 0.2500])
        """
        return apply_op(ops.elementwise.reciprocal, self)

    def square(self) -> Tensor:
        """``self ** 2`` (``PowBackward0``, as in PyTorch).

        >>> symgrad.square(symgrad.tensor([2.0, -3.0]))
        tensor([4., 9.])
        """
        return self.pow(2)

    def exp(self) -> Tensor:
        """Elementwise ``e ** x`` (``ExpBackward0``).

        >>> symgrad.exp(symgrad.tensor([0.0, 1.0]))
        tensor([1.0000, 2.7183])
        """
        return apply_op(ops.elementwise.exp, self)

    def log(self) -> Tensor:
        """Elementwise natural logarithm (``LogBackward0``); nan below 0, -inf at 0.

        >>> symgrad.log(symgrad.tensor([1.0, 2.0]))
        tensor([0.0000, 0.6931])
        """
        return apply_op(ops.elementwise.log, self)

    def sqrt(self) -> Tensor:
        """Elementwise square root (``SqrtBackward0``).

        >>> symgrad.sqrt(symgrad.tensor([4.0, 2.0]))
        tensor([2.0000, 1.4142])
        """
        return apply_op(ops.elementwise.sqrt, self)

    def sin(self) -> Tensor:
        """Elementwise sine (``SinBackward0``).

        >>> symgrad.sin(symgrad.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8415])
        """
        return apply_op(ops.elementwise.sin, self)

    def cos(self) -> Tensor:
        """Elementwise cosine (``CosBackward0``).

        >>> symgrad.cos(symgrad.tensor([0.0, 1.0]))
        tensor([1.0000, 0.5403])
        """
        return apply_op(ops.elementwise.cos, self)

    def tanh(self) -> Tensor:
        """Elementwise hyperbolic tangent (``TanhBackward0``).

        >>> symgrad.tanh(symgrad.tensor([0.0, 1.0]))
        tensor([0.0000, 0.7616])
        """
        return apply_op(ops.elementwise.tanh, self)

    def sigmoid(self) -> Tensor:
        """Elementwise logistic function ``1 / (1 + e ** -x)`` (``SigmoidBackward0``).

        >>> symgrad.sigmoid(symgrad.tensor([0.0, 2.0]))
        tensor([0.5000, 0.8808])
        """
        return apply_op(ops.elementwise.sigmoid, self)

    def relu(self) -> Tensor:
        """Elementwise ``max(x, 0)``; the gradient at 0 is 0, as in PyTorch (``ReluBackward0``).

        >>> symgrad.relu(symgrad.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
        """
        return apply_op(ops.elementwise.relu, self)

    def abs(self) -> Tensor:
        """Elementwise absolute value; the gradient at 0 is 0, as in PyTorch (``AbsBackward0``).

        >>> symgrad.abs(symgrad.tensor([-1.5, 2.0]))
        tensor([1.5000, 2.0000])
        """
        return apply_op(ops.elementwise.abs, self)

    def sign(self) -> Tensor:
        """Elementwise sign (-1, 0 or 1); its gradient is zero (``SignBackward0``).

        >>> symgrad.sign(symgrad.tensor([-2.0, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
        """
        return apply_op(ops.elementwise.sign, self)

    # ------------------------------------------------------------------ reductions
    def sum(self, dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
            dtype: dtypes.dtype | None = None, axis: int | Sequence[int] | None = None) -> Tensor:
        """Sum of all elements (``SumBackward0``), or over ``dim`` (an int or a tuple), keeping the
        summed dims with size 1 if ``keepdim`` (``SumBackward1``); bools and ints sum as int64.

        >>> x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> x.sum()
        tensor(10.)
        >>> symgrad.sum(x, dim=1, keepdim=True)
        tensor([[3.],
                [7.]])
        """
        return self._reduce(ops.reduction.sum, "sum", axis if dim is None else dim, keepdim,
                            self._cast(dtype) if dtype is not None else self)

    def _reduce(self, op: ops.Op, name: str, dim: Any, keepdim: bool, source: Tensor) -> Tensor:
        """Apply a reduction: all elements when ``dim`` is None, else the given dims."""
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments - got "
                                "(keepdim=bool, ), but expected one of: (*, dtype dtype = None) "
                                "or (tuple of ints dim, bool keepdim = False, *, dtype dtype = "
                                "None)")
            return apply_op(op, source)
        dims = _dims(dim, self._value.ndim)
        return apply_op(op, source, dim=dims, keepdim=bool(keepdim))

    def mean(self, dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
             dtype: dtypes.dtype | None = None, axis: int | Sequence[int] | None = None
             ) -> Tensor:
        """Mean of all elements, or over ``dim``; floating-point tensors only (``MeanBackward0`` /
        ``MeanBackward1``).

        >>> x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> x.mean()
        tensor(2.5000)
        >>> symgrad.mean(x, dim=0)
        tensor([2., 3.])
        """
        source = self._cast(dtype) if dtype is not None else self
        if not source.is_floating_point():
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                               "a floating point or complex dtype. Got: "
                               f"{source.dtype._torch_name}")
        return self._reduce(ops.reduction.mean, "mean", axis if dim is None else dim, keepdim,
                            source)

    # ------------------------------------------------------------------ linear algebra
    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product with numpy/PyTorch rank rules (1-D, 2-D, batched, broadcast), also
        written ``a @ b`` (``MmBackward0``, ``MvBackward0``, ``DotBackward0`` ... as PyTorch names
        them).

        >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> symgrad.matmul(a, symgrad.tensor([1.0, 1.0]))
        tensor([3., 7.])
        """
        if not isinstance(other, Tensor):
            raise TypeError(f"matmul(): argument 'other' must be Tensor, not "
                            f"{type(other).__name__}")
        a, b = self._value, other._value
        if a.ndim == 0 or b.ndim == 0:
            raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                               f"{a.ndim}D and {b.ndim}D")
        if a.dtype != b.dtype:
            da, db = self.dtype, other.dtype
            if a.ndim == 1 and b.ndim == 1:
                raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                                   f"{da._torch_name} and {db._torch_name}")
            raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                               f"{da._cpp_name} != {db._cpp_name}")
        return apply_op(ops.linalg.matmul, self, other)

    def mm(self, other: Tensor) -> Tensor:
        """Product of two 2-D matrices.

        >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> symgrad.mm(a, symgrad.eye(2))
        tensor([[1., 2.],
                [3., 4.]])
        """
        for name, t in (("self", self), ("mat2", other)):
            if t.dim() != 2:
                raise RuntimeError(f"{name} must be a matrix")
        return self.matmul(other)

    def mv(self, vec: Tensor) -> Tensor:
        """Product of a 2-D matrix and a 1-D vector.

        >>> a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> symgrad.mv(a, symgrad.tensor([1.0, -1.0]))
        tensor([-1., -1.])
        """
        if self.dim() != 2 or vec.dim() != 1:
            raise RuntimeError("vector + matrix @ vector expected, got "
                               f"1, {self.dim()}, {vec.dim()}")
        return self.matmul(vec)

    def dot(self, other: Tensor) -> Tensor:
        """Inner product of two 1-D tensors.

        >>> symgrad.dot(symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]))
        tensor(11.)
        """
        if self.dim() != 1 or other.dim() != 1:
            raise RuntimeError("1D tensors expected, but got "
                               f"{self.dim()}D and {other.dim()}D tensors")
        return self.matmul(other)

    # ------------------------------------------------------------------ shape
    def reshape(self, *shape: Any) -> Tensor:
        """The same elements in a new shape (one dim may be -1); a view when the layout allows.

        >>> x = symgrad.arange(6.0)
        >>> symgrad.reshape(x, (2, -1))
        tensor([[0., 1., 2.],
                [3., 4., 5.]])
        """
        target = _infer_shape(_shape_arg(shape), self._value.size)
        return apply_op(ops.shape.reshape, self, shape=target)

    def view(self, *shape: Any) -> Tensor:
        """The same storage seen with a new shape; fails where a copy would be needed
        (after a transpose, say), exactly where PyTorch's ``view`` fails.

        >>> symgrad.arange(6.0).view(3, 2)
        tensor([[0., 1.],
                [2., 3.],
                [4., 5.]])
        """
        if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
            raise NotImplementedError("view(dtype) is not supported by symgrad")
        target = _infer_shape(_shape_arg(shape), self._value.size)
        probe = self._value.view()
        try:
            probe.shape = target  # numpy refuses when the strides do not allow it
        except AttributeError:
            raise RuntimeError("view size is not compatible with input tensor's size and stride "
                               "(at least one dimension spans across two contiguous subspaces). "
                               "Use .reshape(...) instead.") from None
        return apply_op(ops.shape.reshape, self, shape=target)

    def reshape_as(self, other: Tensor) -> Tensor:
        """Reshape to ``other``'s shape.

        >>> symgrad.arange(4.0).reshape_as(symgrad.zeros(2, 2))
        tensor([[0., 1.],
                [2., 3.]])
        """
        return self.reshape(other.shape)

    def view_as(self, other: Tensor) -> Tensor:
        """View with ``other``'s shape.

        >>> symgrad.arange(4.0).view_as(symgrad.zeros(2, 2))
        tensor([[0., 1.],
                [2., 3.]])
        """
        return self.reshape(other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge dims ``start_dim .. end_dim`` into one.

        >>> x = symgrad.zeros(2, 3, 4)
        >>> x.flatten().shape, symgrad.flatten(x, 1).shape
        (symgrad.Size([24]), symgrad.Size([2, 12]))
        """
        shape = self._value.shape
        if not shape:
            return self.reshape(1)
        start, end = _dim(start_dim, len(shape)), _dim(end_dim, len(shape))
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if start == end:
            return self
        return self.reshape(*shape[:start], -1, *shape[end + 1:])

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap dims ``dim0`` and ``dim1`` (a view, ``TransposeBackward0``).

        >>> x = symgrad.tensor([[1.0, 2.0, 3.0]])
        >>> symgrad.transpose(x, 0, 1)
        tensor([[1.],
                [2.],
                [3.]])
        """
        n = self._value.ndim
        return apply_op(ops.shape.transpose, self, dim0=_dim(dim0, n), dim1=_dim(dim1, n))

    swapaxes = _docs.alias(transpose, "swapaxes")

    def permute(self, *dims: Any) -> Tensor:
        """Reorder the dims: dim ``i`` of the result is dim ``dims[i]`` of this tensor (a view).

        >>> symgrad.zeros(2, 3, 4).permute(2, 0, 1).shape
        symgrad.Size([4, 2, 3])
        """
        order = tuple(_dim(d, self._value.ndim) for d in _shape_arg(dims))
        if len(order) == self._value.ndim and len(set(order)) != len(order):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        if len(order) != self._value.ndim:
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input "
                               "does not match the length of the desired ordering of dimensions "
                               "i.e. input.dim() = "
                               f"{self._value.ndim} is not equal to len(dims) = {len(order)}")
        return apply_op(ops.shape.permute, self, dims=order)

    def t(self) -> Tensor:
        """Transpose a tensor of at most 2 dims (``TBackward0``).

        >>> symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
        tensor([[1., 3.],
                [2., 4.]])
        """
        if self._value.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{self._value.ndim}D")
        return apply_op(ops.shape.t, self)

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """All dims reversed (``PermuteBackward0``; deprecated in PyTorch beyond 2 dims).

        >>> symgrad.tensor([[1.0, 2.0]]).T
        tensor([[1.],
                [2.]])
        """
        if self._value.ndim == 0:
            warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity "
                          "in these cases.", UserWarning, stacklevel=2)
        if self._value.ndim > 2:
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                          "shape is deprecated and it will throw an error in a future release. "
                          "Consider `x.mT` to transpose batches of matrices or "
                          "`x.permute(*symgrad.arange(x.ndim - 1, -1, -1))` to reverse the "
                          "dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(*reversed(range(self._value.ndim)))

    @property
    def mT(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """The last two dims swapped (batches of matrices transposed).

        >>> symgrad.zeros(5, 2, 3).mT.shape
        symgrad.Size([5, 3, 2])
        """
        if self._value.ndim < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self._value.ndim}-D tensor.")
        return self.transpose(-2, -1)

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a dim of size 1 at ``dim`` (negative counts from the end of the result).

        >>> x = symgrad.tensor([1.0, 2.0])
        >>> x.unsqueeze(0).shape, x.unsqueeze(-1).shape
        (symgrad.Size([1, 2]), symgrad.Size([2, 1]))
        """
        return apply_op(ops.shape.unsqueeze, self, dim=_dim(dim, self._value.ndim + 1))

    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        """Remove dims of size 1 (all, or those among ``dim`` that have size 1).

        >>> x = symgrad.zeros(1, 2, 1)
        >>> x.squeeze().shape, x.squeeze(0).shape
        (symgrad.Size([2]), symgrad.Size([2, 1]))
        """
        if dim is None:
            return apply_op(ops.shape.squeeze, self)
        dims = _dims(dim, self._value.ndim) if not isinstance(dim, Sequence) or dim else ()
        dims = tuple(d for d in dims if self._value.shape[d] == 1)
        return apply_op(ops.shape.squeeze, self, dim=dims)

    def expand(self, *sizes: Any) -> Tensor:
        """Broadcast to a larger shape without copying (-1 keeps a size; ``ExpandBackward0``).

        >>> symgrad.tensor([[1.0], [2.0]]).expand(-1, 3)
        tensor([[1., 1., 1.],
                [2., 2., 2.]])
        """
        target = _shape_arg(sizes)
        shape = self._value.shape
        if len(target) < len(shape):
            raise RuntimeError(f"expand({self.type()}{{{_torch_size(shape)}}}, "
                               f"size={_torch_size(target)}): the number of sizes provided "
                               f"({len(target)}) must be greater or equal to the number of "
                               f"dimensions in the tensor ({len(shape)})")
        return apply_op(ops.shape.expand, self, shape=_expanded_shape(shape, target))

    def expand_as(self, other: Tensor) -> Tensor:
        """Expand to ``other``'s shape.

        >>> symgrad.tensor([1.0, 2.0]).expand_as(symgrad.zeros(2, 2))
        tensor([[1., 2.],
                [1., 2.]])
        """
        return self.expand(other.shape)

    def broadcast_to(self, shape: Sequence[int]) -> Tensor:
        """Same as :meth:`expand`.

        >>> symgrad.broadcast_to(symgrad.tensor([1.0, 2.0]), (2, 2))
        tensor([[1., 2.],
                [1., 2.]])
        """
        return self.expand(tuple(shape))

    def __getitem__(self, key: Any) -> Tensor:
        key = _normalize_key(key)
        self._check_index(key)
        return apply_op(ops.shape.index, self, key=key)

    def __setitem__(self, key: Any, value: Any) -> None:
        key = _normalize_key(key)
        if _mode.enabled and self._requires_grad and self.grad_fn is None:
            # for ints and slices PyTorch writes through a view of self, hence its wording
            view = xp.is_basic_index(key) and key is not Ellipsis and key != slice(None)
            raise RuntimeError(f"a {'view of a ' if view else ''}leaf Variable that requires "
                               "grad is being used in an in-place operation.")
        target = self._check_index(key)
        value = _operand(value, strict=True)
        if isinstance(value, Tensor):
            shape = value._value.shape
            extra = len(shape) - target.ndim
            if extra > 0 and all(s == 1 for s in shape[:extra]):
                value = value.reshape(shape[extra:])  # PyTorch drops leading size-1 dims
            _expanded_shape(value._value.shape, target.shape)
        apply_inplace(ops.shape.setitem, self, value, key=key)

    def _check_index(self, key: Any) -> np.ndarray:
        """Validate an index with PyTorch's messages; return the indexed values."""
        if self._value.ndim == 0 and not (key is None or key is Ellipsis or key == () or (
                isinstance(key, np.ndarray) and key.dtype == bool)):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        try:
            return self._value[key]
        except IndexError as error:
            raise IndexError(str(error).replace("axis", "dimension")) from None

    # ------------------------------------------------------------------ in-place
    @_docs.inplace_of(add)
    def add_(self, other: Any, *, alpha: float = 1) -> Tensor:
        """In-place ``self += alpha * other``."""
        other = _operand(other, strict=True)
        if alpha != 1:
            return apply_inplace(ops.elementwise.add, self, other, alpha=alpha)
        return apply_inplace(ops.elementwise.add, self, other)

    @_docs.inplace_of(sub)
    def sub_(self, other: Any, *, alpha: float = 1) -> Tensor:
        """In-place ``self -= alpha * other``."""
        _check_not_bool_sub(self, other)
        other = _operand(other, strict=True)
        if alpha != 1:
            return apply_inplace(ops.elementwise.sub, self, other, alpha=alpha)
        return apply_inplace(ops.elementwise.sub, self, other)

    @_docs.inplace_of(mul)
    def mul_(self, other: Any) -> Tensor:
        """In-place ``self *= other``."""
        return apply_inplace(ops.elementwise.mul, self, _operand(other, strict=True))

    @_docs.inplace_of(div)
    def div_(self, other: Any) -> Tensor:
        """In-place ``self /= other``."""
        return apply_inplace(ops.elementwise.div, self, _operand(other, strict=True))

    @_docs.inplace_of(pow)
    def pow_(self, exponent: Any) -> Tensor:
        """In-place ``self **= exponent`` for a Python number exponent."""
        if isinstance(exponent, Tensor):
            return apply_inplace(ops.elementwise.pow, self, exponent)
        return apply_inplace(ops.elementwise.pow_scalar, self, exponent=_scalar(exponent))

    def zero_(self) -> Tensor:
        """Fill with zeros in place.

        >>> x = symgrad.tensor([1.0, 2.0])
        >>> x.zero_()
        tensor([0., 0.])
        >>> x
        tensor([0., 0.])
        """
        return apply_inplace(ops.elementwise.zero, self)

    def fill_(self, value: Any) -> Tensor:
        """Fill with ``value`` in place.

        >>> x = symgrad.zeros(3)
        >>> x.fill_(2.5)
        tensor([2.5000, 2.5000, 2.5000])
        """
        return apply_inplace(ops.elementwise.fill, self, value=_scalar(value))

    def copy_(self, src: Tensor) -> Tensor:
        """Copy ``src``'s values (broadcast, converted to this dtype) into self in place.

        >>> x = symgrad.zeros(2, 2)
        >>> x.copy_(symgrad.tensor([1, 2]))
        tensor([[1., 2.],
                [1., 2.]])
        """
        if not isinstance(src, Tensor):
            raise TypeError("copy_(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(src).__name__}")
        return apply_inplace(ops.elementwise.copy, self, src)

    def _reshape_(self, op: ops.Op, node_name: str, **params: Any) -> Tensor:
        """An in-place shape op: same storage, new shape, history rebased like PyTorch's."""
        if _mode.enabled and self._requires_grad and self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        before = _make(self._value, self.grad_fn, self._requires_grad)
        before._counter = self._counter
        result = apply_op(op, before, **params)
        self._value = result._value
        counter_of(self).value += 1
        if result.grad_fn is not None:
            result.grad_fn.__class__ = node_class(node_name)  # PyTorch's in-place variant name
            _rebase_history(self, result.grad_fn)
        return self

    def unsqueeze_(self, dim: int) -> Tensor:
        """In-place version of :meth:`unsqueeze`: insert a dim of size 1 at ``dim``.

        >>> x = symgrad.tensor([1.0, 2.0])
        >>> x.unsqueeze_(0)
        tensor([[1., 2.]])
        >>> x.shape
        symgrad.Size([1, 2])
        """
        return self._reshape_(ops.shape.unsqueeze, "UnsqueezeBackward1",
                              dim=_dim(dim, self._value.ndim + 1))

    def squeeze_(self, dim: int | None = None) -> Tensor:
        """In-place version of :meth:`squeeze`: remove dims of size 1.

        >>> x = symgrad.zeros(1, 2, 1)
        >>> x.squeeze_().shape
        symgrad.Size([2])
        >>> x.shape
        symgrad.Size([2])
        """
        if dim is None:
            return self._reshape_(ops.shape.squeeze, "SqueezeBackward3")
        dims = tuple(d for d in _dims(dim, self._value.ndim) if self._value.shape[d] == 1)
        return self._reshape_(ops.shape.squeeze, "SqueezeBackward4", dim=dims)

    def transpose_(self, dim0: int, dim1: int) -> Tensor:
        """In-place version of :meth:`transpose`: swap two dims.

        >>> x = symgrad.zeros(2, 3)
        >>> x.transpose_(0, 1).shape
        symgrad.Size([3, 2])
        >>> x.shape
        symgrad.Size([3, 2])
        """
        n = self._value.ndim
        return self._reshape_(ops.shape.transpose, "TransposeBackward1", dim0=_dim(dim0, n),
                              dim1=_dim(dim1, n))

    def t_(self) -> Tensor:
        """In-place version of :meth:`t`: transpose a tensor of at most 2 dims.

        >>> x = symgrad.tensor([[1.0, 2.0]])
        >>> x.t_()
        tensor([[1.],
                [2.]])
        >>> x.shape
        symgrad.Size([2, 1])
        """
        if self._value.ndim > 2:
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                               f"{self._value.ndim}D")
        return self._reshape_(ops.shape.t, "TBackward1")

    def _unary_(self, op: ops.Op) -> Tensor:
        return apply_inplace(op, self)

    @_docs.inplace_of(neg)
    def neg_(self) -> Tensor:
        """In-place ``-self``."""
        return self._unary_(ops.elementwise.neg)

    @_docs.inplace_of(exp)
    def exp_(self) -> Tensor:
        """In-place exp."""
        return self._unary_(ops.elementwise.exp)

    @_docs.inplace_of(log)
    def log_(self) -> Tensor:
        """In-place natural logarithm."""
        return self._unary_(ops.elementwise.log)

    @_docs.inplace_of(sqrt)
    def sqrt_(self) -> Tensor:
        """In-place square root."""
        return self._unary_(ops.elementwise.sqrt)

    @_docs.inplace_of(sin)
    def sin_(self) -> Tensor:
        """In-place sine."""
        return self._unary_(ops.elementwise.sin)

    @_docs.inplace_of(cos)
    def cos_(self) -> Tensor:
        """In-place cosine."""
        return self._unary_(ops.elementwise.cos)

    @_docs.inplace_of(tanh)
    def tanh_(self) -> Tensor:
        """In-place hyperbolic tangent."""
        return self._unary_(ops.elementwise.tanh)

    @_docs.inplace_of(sigmoid)
    def sigmoid_(self) -> Tensor:
        """In-place logistic function."""
        return self._unary_(ops.elementwise.sigmoid)

    @_docs.inplace_of(relu)
    def relu_(self) -> Tensor:
        """In-place max(x, 0)."""
        return self._unary_(ops.elementwise.relu)

    @_docs.inplace_of(abs)
    def abs_(self) -> Tensor:
        """In-place absolute value."""
        return self._unary_(ops.elementwise.abs)

    @_docs.inplace_of(sign)
    def sign_(self) -> Tensor:
        """In-place sign."""
        return self._unary_(ops.elementwise.sign)

    @_docs.inplace_of(reciprocal)
    def reciprocal_(self) -> Tensor:
        """In-place ``1 / self``."""
        return self._unary_(ops.elementwise.reciprocal)

    @_docs.inplace_of(square)
    def square_(self) -> Tensor:
        """In-place ``self ** 2``."""
        return self.pow_(2)

    def where(self, condition: Tensor, other: Any) -> Tensor:
        """``self`` where ``condition`` holds, else ``other`` (see :func:`symgrad.where`).

        >>> x = symgrad.tensor([-1.0, 2.0])
        >>> x.where(x > 0, 0.0)
        tensor([0., 2.])
        """
        from symgrad import where

        return where(condition, self, other)

    def __iadd__(self, other: Any) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self.div_(other)

    def __ipow__(self, other: Any) -> Tensor:
        return self.pow_(other)


_warned_scalar_conversion = False
_FAST_OPERANDS = frozenset((float, int, Tensor))  # operands taken as they are, checked fast
Tensor.__module__ = "symgrad"  # shown as <class 'symgrad.Tensor'>, like <class 'torch.Tensor'>
Size.__module__ = "symgrad"
device.__module__ = "symgrad"


def _rebuild(value: np.ndarray, requires_grad: bool) -> Tensor:
    return _make(value, None, requires_grad)


def _scalar(value: Any) -> Any:
    """A Python number from a Python or numpy scalar (anything else is refused)."""
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Tensor):
        return value.item()
    raise TypeError(f"expected a Python number, got {type(value).__name__}")






def _operand(value: Any, strict: bool = False) -> Any:
    """A Tensor or Python number as a binary op's operand; None for anything else (so that an
    operator can return NotImplemented), or a TypeError when ``strict`` (method spellings)."""
    cls = value.__class__
    if cls is float or cls is Tensor or cls is int or cls is bool:  # the common cases, fast
        return value
    if isinstance(value, (Tensor, bool, int, float)):  # noqa: UP038 - tuple is faster
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return _make(value)
    if strict:
        raise TypeError(f"expected a Tensor or a number as the other operand, got "
                        f"{type(value).__name__}")
    return None


def _check_not_bool_sub(a: Tensor, b: Any) -> None:
    if (a._value.dtype.kind == "b" or isinstance(b, bool)
            or (isinstance(b, Tensor) and b._value.dtype.kind == "b")):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def _check_alpha(a: Tensor, b: Any, alpha: float) -> None:
    integral = a._value.dtype.kind in "biu" and (
        not isinstance(b, Tensor) or b._value.dtype.kind in "biu")
    if integral and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def _value_of(value: Any) -> Any:
    return value._value if isinstance(value, Tensor) else value


# The dispatch layer and the autograd API need the Tensor class, and Tensor's methods need
# them: imported last.
from symgrad.autograd import api as _api  # noqa: E402
from symgrad.dispatch import (  # noqa: E402
    _broadcast_error,
    _rebase_history,
    apply_inplace,
    apply_op,
)
