"""The Tensor's state and protocols: a numpy array plus autograd state, as PyTorch has them.

This module holds the storage (``_value``), ``requires_grad``, ``grad``, ``grad_fn``, the version
counter, hooks, views' bookkeeping, printing and the Python protocols (``len``, ``bool``,
``float``, pickling ...), plus the small argument helpers every layer above uses (``_dim``,
``_shape_arg``, ``_torch_size``). It records no op: every PyTorch spelling that does (methods,
operators, in-place variants, ``x[key]``) is declared in ``symgrad.torch_api`` and installed on
the class from there, running through ``symgrad.dispatch.apply_op``.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from symgrad.autograd import graph as _graph
from symgrad.autograd.grad_mode import is_grad_enabled
from symgrad.autograd.graph import (
    Node,
    RemovableHandle,
    Version,
    keep_tracked,
    leaf_hooks,
    warn_at_user,
)
from symgrad.numeric import dtypes

if TYPE_CHECKING:  # the methods symgrad.torch_api installs, as a generated stub
    from symgrad._tensor_methods import TensorMethods as _InstalledMethods
else:
    _InstalledMethods = object

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


class layout:  # noqa: N801 - PyTorch's name
    """How a tensor's elements are laid out in memory: symgrad's tensors are dense numpy
    arrays, so the one layout is :data:`strided` (PyTorch's sparse layouts are not made).

    >>> symgrad.strided, symgrad.ones(2).layout is symgrad.strided
    (symgrad.strided, True)
    >>> isinstance(symgrad.strided, symgrad.layout)
    True
    """

    __slots__ = ("_name",)
    _made = False

    def __new__(cls, *args: Any, **kwargs: Any) -> layout:
        if cls._made:
            raise TypeError("cannot create 'symgrad.layout' instances")
        return super().__new__(cls)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"symgrad.{self._name}"

    def __reduce__(self) -> str:
        return self._name


strided = layout("strided")
layout._made = True


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
    t._counter = None
    t._requires_grad = requires_grad
    t.grad_fn = grad_fn
    return t


def _stand_in(value: np.ndarray, grad_fn: Node) -> Tensor:
    return _make(value, grad_fn, True)


_graph._stand_in = _stand_in


def counter_of(t: Tensor) -> Version:
    """``t``'s version counter, created on first use."""
    counter = t._counter
    if counter is None:
        counter = t._counter = Version()
        node = t.grad_fn  # its backward may read this output: it watches the new counter
        if node is not None and node.out_version is None and node.ans is t._value \
                and node.op.saves_output:
            _graph.watch_output(node, counter)
    return counter


def _torch_size(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


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


class Tensor(_InstalledMethods):
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
    # (``_grad`` too: most tensors never get one, and a recorded op's output tensor is one
    # object of five slots.) Every op reads ``_counter``, the version counter, created on first
    # need (counter_of): a slot, None until then, which whoever makes a Tensor sets
    __slots__ = ("_value", "_requires_grad", "grad_fn", "_counter", "__dict__", "__weakref__")
    _grad: Tensor | None = None  # see the ``grad`` property
    _name: str | None = None
    _retains_grad: bool = False
    _hooks: dict | None = None
    _base: Tensor | None = None  # the tensor this one is a numpy view of
    _view_ops: tuple = ()  # the (op, params) that take this view from its base
    _view_version: int = 0  # the base's version when this view's grad_fn was recorded
    _made_without_grad: bool = False  # a view of a tensor requiring grad, taken under no_grad
    _multi_output: tuple[str, int] | None = None  # a piece of split/chunk/unbind: (op, index)
    # an input a custom Function returned as is: (its name, output index, whether the Function
    # returned several such views); PyTorch refuses to modify it in place
    _custom_view: tuple[str, int, bool] | None = None
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
        if value is not None:  # (the fast paths read only the name of a tensor with a counter)
            counter_of(self)

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
            warn_at_user(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed "
                "want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() "
                "on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
                "you access the leaf Tensor instead.")
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
        self.grad_fn.special = self.grad_fn.special or True

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
                self.grad_fn.special = self.grad_fn.special or True
                keep_tracked(self.grad_fn)
            hooks = self.grad_fn.tensor_hooks
        else:
            if self._hooks is None:
                self._hooks = {}
                _graph.hooked_leaves[id(self)] = self
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
        warn_at_user("volatile was removed (Variable.volatile is always False)")
        return False

    @volatile.setter
    def volatile(self, value: bool) -> None:
        warn_at_user("volatile was removed and now has no effect. Use `with symgrad.no_grad():` "
                     "instead.")

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's storage has seen (PyTorch's ``_version``)."""
        return 0 if self._counter is None else self._counter.value


    # ------------------------------------------------------------------ conversion
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The values as an ndarray sharing storage (refused while requires_grad unless
        ``force``: use ``x.detach().numpy()``).

        >>> symgrad.tensor([1.0, 2.0]).numpy()
        array([1., 2.], dtype=float32)
        """
        if self._requires_grad and not force:
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


    # ------------------------------------------------------------------ Python protocols
    def __repr__(self) -> str:
        from symgrad.numeric.printing import format_tensor  # (loaded on first print)

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
        if self._requires_grad and (not _warned_scalar_conversion or _graph.warn_always) \
                and is_grad_enabled():
            _warned_scalar_conversion = True  # once per process, as PyTorch (with grad on)
            warn_at_user("Converting a tensor with requires_grad=True to a scalar may lead to "
                         "unexpected behavior.\nConsider using tensor.detach() first.")
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


_warned_scalar_conversion = False
Tensor.__module__ = "symgrad"  # shown as <class 'symgrad.Tensor'>, like <class 'torch.Tensor'>
Size.__module__ = "symgrad"
device.__module__ = "symgrad"


def _rebuild(value: np.ndarray, requires_grad: bool) -> Tensor:
    return _make(value, None, requires_grad)


