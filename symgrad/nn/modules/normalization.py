"""Normalization layers: ``BatchNorm1d/2d/3d`` (running statistics updated in training mode
and used in eval mode), ``InstanceNorm1d/2d/3d``, ``LayerNorm``, ``GroupNorm``, ``RMSNorm``
and ``LocalResponseNorm``."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.creation import empty, ones, tensor, zeros
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor


def _affine_parameters(module: Module, affine: bool, bias: bool, shape: Any,
                       dtype: dtypes.dtype | None, device: Any) -> None:
    """Register a norm layer's ``weight`` and ``bias`` of ``shape`` (values set by its
    ``reset_parameters``), or None for those it does not learn, as PyTorch's norm layers do."""
    weight = Parameter(empty(shape, dtype=dtype, device=device)) if affine else None
    module.register_parameter("weight", weight)
    offset = Parameter(empty(shape, dtype=dtype, device=device)) if affine and bias else None
    module.register_parameter("bias", offset)


class _BatchNorm(Module):
    _expected: tuple[int, ...] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: dtypes.dtype | None = None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine_parameters(self, affine, bias, num_features, dtype, device)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=dtypes.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches tracked.

        >>> bn = symgrad.nn.BatchNorm1d(2)
        >>> bn.reset_running_stats()
        >>> bn.running_var
        tensor([1., 1.])
        """
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def reset_parameters(self) -> None:
        """Reset the running statistics, the weight to ones and the bias to zeros.

        >>> bn = symgrad.nn.BatchNorm1d(2)
        >>> bn.reset_parameters()
        >>> bn.weight
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
        """
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.ndim not in self._expected:
            wanted = " or ".join(f"{d}D" for d in self._expected)
            raise ValueError(f"expected {wanted} input (got {input.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Normalise over the batch (and spatial) dimensions per channel. In training mode
        with ``track_running_stats`` the batch statistics also update the running ones
        (``momentum`` None: a cumulative average); in eval mode the running ones are used.

        >>> bn = symgrad.nn.BatchNorm1d(1)
        >>> bn(symgrad.tensor([[1.0], [3.0]]))
        tensor([[-1.0000],
                [ 1.0000]], grad_fn=<...>)
        >>> bn.running_mean
        tensor([0.2000])
        """
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None,
                            self.running_var if keep else None, self.weight, self.bias,
                            use_batch, factor, self.eps)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.BatchNorm2d(4, momentum=None).extra_repr()
        '4, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True'
        """
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) input.

    >>> symgrad.nn.BatchNorm1d(3)
    BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    _expected = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) input.

    >>> symgrad.nn.BatchNorm2d(3)(symgrad.zeros(2, 3, 4))
    Traceback (most recent call last):
        ...
    ValueError: expected 4D input (got 3D input)
    """

    _expected = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalization of (N, C, D, H, W) input.

    >>> symgrad.nn.BatchNorm3d(3)
    BatchNorm3d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    _expected = (5,)


class LayerNorm(Module):
    """Normalise over the last ``len(normalized_shape)`` dimensions, then scale and shift
    elementwise (``weight`` ones, ``bias`` zeros).

    >>> ln = symgrad.nn.LayerNorm(4)
    >>> ln
    LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
    >>> ln(symgrad.zeros(2, 4)).shape
    symgrad.Size([2, 4])
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, elementwise_affine, bias, self.normalized_shape, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight to ones, bias to zeros.

        >>> ln = symgrad.nn.LayerNorm(2)
        >>> ln.reset_parameters()
        >>> ln.bias
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
        """
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.layer_norm(input, normalized_shape, weight, bias, eps)``.

        >>> symgrad.nn.LayerNorm(2)(symgrad.tensor([[1.0, 3.0]]))
        tensor([[-1.0000,  1.0000]], grad_fn=<...>)
        """
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.LayerNorm(5, bias=False).extra_repr()
        '(5,), eps=1e-05, elementwise_affine=True, bias=False'
        """
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalise over groups of channels (and the spatial dimensions), then scale and shift
    per channel.

    >>> gn = symgrad.nn.GroupNorm(2, 4)
    >>> gn
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    >>> gn(symgrad.zeros(3, 4, 5)).shape
    symgrad.Size([3, 4, 5])
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: Any = None, dtype: dtypes.dtype | None = None,
                 *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, affine, bias, num_channels, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight to ones, bias to zeros.

        >>> gn = symgrad.nn.GroupNorm(1, 2)
        >>> gn.reset_parameters()
        >>> gn.weight
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
        """
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.group_norm(input, num_groups, weight, bias, eps)``.

        >>> symgrad.nn.GroupNorm(1, 2)(symgrad.tensor([[1.0, 3.0]]))
        tensor([[-1.0000,  1.0000]], grad_fn=<...>)
        """
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.GroupNorm(1, 3, affine=False).extra_repr()
        '1, 3, eps=1e-05, affine=False, bias=False'
        """
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class _InstanceNorm(_BatchNorm):
    _no_batch_dim = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: dtypes.dtype | None = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.instance_norm`` of each sample and channel (batch statistics in training or
        without running statistics, else the running ones); an unbatched input is a batch of
        one.

        >>> symgrad.nn.InstanceNorm1d(1)(symgrad.tensor([[1.0, 3.0]]))
        tensor([[-1.0000,  1.0000]])
        """
        self._check_input_dim(input)
        feature_dim = input.ndim - self._no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", UserWarning, stacklevel=2)
        unbatched = input.ndim == self._no_batch_dim
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or (C, L) input: each sample's channel normalised
    over its length (no learned affine map and no running statistics by default).

    >>> symgrad.nn.InstanceNorm1d(3)
    InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    """

    _expected = (2, 3)
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or (C, H, W) input.

    >>> symgrad.nn.InstanceNorm2d(3, affine=True)
    InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False)
    """

    _expected = (3, 4)
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or (C, D, H, W) input.

    >>> symgrad.nn.InstanceNorm3d(2)(symgrad.zeros(2, 2, 2, 2)).shape
    symgrad.Size([2, 2, 2, 2])
    """

    _expected = (4, 5)
    _no_batch_dim = 4


class RMSNorm(Module):
    """Root-mean-square normalization over the last ``len(normalized_shape)`` dimensions,
    times a learned ``weight`` (ones); ``eps`` None is the dtype's machine epsilon.

    >>> symgrad.nn.RMSNorm(4)
    RMSNorm((4,), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        weight = (Parameter(empty(self.normalized_shape, dtype=dtype, device=device))
                  if elementwise_affine else None)
        self.register_parameter("weight", weight)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight to ones.

        >>> rms = symgrad.nn.RMSNorm(2); rms.reset_parameters(); rms.weight
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
        """
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        """``F.rms_norm(x, normalized_shape, weight, eps)``.

        >>> symgrad.nn.RMSNorm(2)(symgrad.tensor([[3.0, 4.0]]))
        tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
        """
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.RMSNorm([2, 3], eps=1e-5, elementwise_affine=False).extra_repr()
        '(2, 3), eps=1e-05, elementwise_affine=False'
        """
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Each element divided by ``(k + alpha * mean of the squares over ``size`` neighbouring
    channels)^beta`` (``F.local_response_norm``).

    >>> symgrad.nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.local_response_norm(input, size, alpha, beta, k)``.

        >>> symgrad.nn.LocalResponseNorm(1, alpha=1.0, k=0.0)(symgrad.ones(1, 1, 1))
        tensor([[[1.]]])
        """
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.LocalResponseNorm(3, beta=0.5).extra_repr()
        '3, alpha=0.0001, beta=0.5, k=1.0'
        """
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
