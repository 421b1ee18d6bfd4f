"""Lazy modules: layers whose input size (``in_features``, ``in_channels``, ``num_features``)
is read from their first input, as PyTorch's ``torch.nn.modules.lazy``. Until then their
parameters and buffers are :class:`~symgrad.nn.UninitializedParameter` /
:class:`~symgrad.nn.UninitializedBuffer` (the same objects are materialized, so an optimizer
made before the first call keeps working); after it, the module becomes the plain layer
(``LazyConv2d`` a ``Conv2d``). A state_dict of the plain layer loads into a lazy one."""

from __future__ import annotations

import itertools
from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.creation import tensor
from symgrad.nn.modules.conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
)
from symgrad.nn.modules.linear import Linear
from symgrad.nn.modules.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)
from symgrad.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d",
           "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyLinear",
           "LazyModuleMixin"]


class LazyModuleMixin:
    """What makes a module lazy: a forward pre-hook that calls ``initialize_parameters`` with
    the first input and then turns the module into ``cls_to_become``, and a load_state_dict
    pre-hook that materializes what the loaded state_dict holds."""

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _register_hooks(self)

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        # (an uninitialized tensor is saved as it is: detaching would give it a shape)
        for name, value in itertools.chain(self._parameters.items(), self._buffers.items()):
            if value is None or name in self._non_persistent_buffers_set:
                continue
            destination[prefix + name] = value if is_lazy(value) or keep_vars \
                else value.detach()

    def _lazy_load_hook(self, state_dict: dict, prefix: str, *rest: Any) -> None:
        for name, value in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and value is not None and is_lazy(value) \
                    and not is_lazy(state_dict[key]):
                with no_grad():
                    value.materialize(state_dict[key].shape)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Give the parameters their shapes from the first input (each lazy layer's own)."""
        raise NotImplementedError("initialize_parameters is not implemented for "
                                  f"{type(self).__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer is still uninitialized.

        >>> symgrad.nn.LazyConv1d(2, 3).has_uninitialized_params()
        True
        """
        return any(is_lazy(v) for v in itertools.chain(self._parameters.values(),
                                                        self._buffers.values()))

    def _infer_parameters(self, args: tuple, kwargs: dict | None = None) -> None:
        self.initialize_parameters(*args, **(kwargs or {}))
        if self.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        self._initialize_hook.remove()
        self._load_hook.remove()
        del self._initialize_hook, self._load_hook
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become


def _register_hooks(module: Any) -> None:
    module._load_hook = module.register_load_state_dict_pre_hook(
        type(module)._lazy_load_hook)
    module._initialize_hook = module.register_forward_pre_hook(type(module)._infer_parameters,
                                                               with_kwargs=True)


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is read from its first input (``input.shape[-1]``);
    it then becomes a ``Linear``.

    >>> lazy = symgrad.nn.LazyLinear(3)
    >>> lazy, lazy.weight
    (LazyLinear(in_features=0, out_features=3, bias=True), <UninitializedParameter>)
    >>> lazy(symgrad.ones(2, 4)).shape
    symgrad.Size([2, 3])
    >>> lazy
    Linear(in_features=4, out_features=3, bias=True)
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        Linear.__init__(self, 0, 0, False, device, dtype)
        _register_hooks(self)
        self.out_features = out_features
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        """PyTorch's Linear initialisation, once the input size is known (before: nothing).

        >>> lazy = symgrad.nn.LazyLinear(2); lazy.reset_parameters(); lazy.weight
        <UninitializedParameter>
        """
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # noqa: A002
        """``in_features`` from ``input.shape[-1]``, then the weight and bias.

        >>> layer = symgrad.nn.LazyLinear(2)
        >>> layer.initialize_parameters(symgrad.ones(5)); layer.weight.shape
        symgrad.Size([2, 5])
        """
        if not self.has_uninitialized_params():
            return
        with no_grad():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


# ---------------------------------------------------------------- convolutions
class _LazyConvMixin(LazyModuleMixin):
    _dims = 2

    def _lazy_setup(self, out_channels: int, bias: bool, dtype: Any) -> None:
        self.out_channels = out_channels
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        """The layer's initialisation, once the input size is known (before: nothing).

        >>> layer = symgrad.nn.LazyConv1d(2, 3); layer.reset_parameters(); layer.weight
        <UninitializedParameter>
        """
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:  # noqa: A002
        """``in_channels`` from ``input`` (dim 1, or 0 unbatched), then the weight and bias.

        >>> layer = symgrad.nn.LazyConv1d(2, 3)
        >>> layer.initialize_parameters(symgrad.ones(4, 5)); layer.weight.shape
        symgrad.Size([2, 4, 3])
        """
        if not self.has_uninitialized_params():
            return
        self.in_channels = input.shape[0] if input.ndim == self._dims + 1 else input.shape[1]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        shape = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                 else (self.out_channels, self.in_channels // self.groups))
        with no_grad():
            self.weight.materialize((*shape, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(base: type, dims: int) -> type:
    if base.__name__.startswith("ConvTranspose"):
        def __init__(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     bias: bool = True, dilation: Any = 1, padding_mode: str = "zeros",
                     device: Any = None, dtype: dtypes.dtype | None = None) -> None:
            base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups,
                          False, dilation, padding_mode, device, dtype)
            _register_hooks(self)
            self._lazy_setup(out_channels, bias, dtype)
    else:
        def __init__(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1,
                     padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                     padding_mode: str = "zeros", device: Any = None,
                     dtype: dtypes.dtype | None = None) -> None:
            base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False,
                          padding_mode, device, dtype)
            _register_hooks(self)
            self._lazy_setup(out_channels, bias, dtype)

    transposed = base.__name__.startswith("ConvTranspose")
    sizes = ", ".join(["5"] * dims)
    out = ", ".join(["7" if transposed else "3"] * dims)
    doc = (f"A ``{base.__name__}`` whose ``in_channels`` is read from its first input (dim 1, "
           f"or dim 0 of an unbatched one); it then becomes a ``{base.__name__}``.\n\n"
           f"    >>> layer = symgrad.nn.Lazy{base.__name__}(4, 3)\n"
           f"    >>> layer(symgrad.ones(1, 2, {sizes})).shape, type(layer).__name__\n"
           f"    (symgrad.Size([1, 4, {out}]), '{base.__name__}')\n    ")
    return type(f"Lazy{base.__name__}", (_LazyConvMixin, base),
                {"__init__": __init__, "cls_to_become": base, "_dims": dims, "__doc__": doc,
                 "__module__": __name__})

LazyConv1d = _lazy_conv(Conv1d, 1)
LazyConv2d = _lazy_conv(Conv2d, 2)
LazyConv3d = _lazy_conv(Conv3d, 3)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, 3)


# ---------------------------------------------------------------- normalization
class _LazyNormMixin(LazyModuleMixin):

    def _lazy_setup(self, affine: bool, track_running_stats: bool, dtype: Any) -> None:
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=dtypes.int64)

    def reset_parameters(self) -> None:
        """The layer's initialisation, once the input size is known (before: nothing).

        >>> layer = symgrad.nn.LazyBatchNorm1d(); layer.reset_parameters(); layer.running_mean
        <UninitializedBuffer>
        """
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor) -> None:  # noqa: A002
        """``num_features`` from ``input.shape[1]`` (as PyTorch's), then the parameters and
        running statistics.

        >>> layer = symgrad.nn.LazyBatchNorm1d()
        >>> layer.initialize_parameters(symgrad.ones(2, 3)); layer.running_var
        tensor([1., 1., 1.])
        """
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        with no_grad():
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(base: type) -> type:
    def __init__(self: Any, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        base.__init__(self, 0, eps, momentum, False, False, device, dtype)
        _register_hooks(self)
        self._lazy_setup(affine, track_running_stats, dtype)

    dims = int(base.__name__[-2])
    spatial = dims if base.__name__.startswith("Instance") or dims > 1 else 0
    sizes = ", ".join(["2"] * spatial)
    shape = ", ".join(["2", "3", sizes]) if sizes else "2, 3"
    doc = (f"A ``{base.__name__}`` whose ``num_features`` is read from its first input "
           f"(``input.shape[1]``); it then becomes a ``{base.__name__}``.\n\n"
           f"    >>> layer = symgrad.nn.Lazy{base.__name__}()\n"
           f"    >>> layer(symgrad.ones({shape})).shape, type(layer).__name__\n"
           f"    (symgrad.Size([{shape}]), '{base.__name__}')\n    ")
    return type(f"Lazy{base.__name__}", (_LazyNormMixin, base),
                {"__init__": __init__, "cls_to_become": base, "__doc__": doc,
                 "__module__": __name__})


LazyBatchNorm1d = _lazy_norm(BatchNorm1d)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d)
