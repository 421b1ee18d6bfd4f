"""``symgrad.nn.utils.fusion``: PyTorch's folding of an evaluation-mode batch norm into the
convolution or linear layer before it (one layer computing what the two computed)."""

from __future__ import annotations

import copy
from typing import Any, TypeVar

from symgrad.creation import ones_like, zeros_like
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]

ConvT = TypeVar("ConvT", bound=Module)
LinearT = TypeVar("LinearT", bound=Module)


def _check_eval(layer: Module, bn: Any) -> None:
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")


def _check_stats(bn: Any) -> None:
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv: ConvT, bn: Any, transpose: bool = False) -> ConvT:
    """A copy of ``conv`` (evaluation mode) whose weight and bias also apply ``bn`` (an
    evaluation-mode batch norm over its output channels; ``transpose``: ``conv`` is a
    transposed convolution, its output channels in the weight's second dimension).

    >>> conv, bn = symgrad.nn.Conv1d(2, 3, 2).eval(), symgrad.nn.BatchNorm1d(3).eval()
    >>> with symgrad.no_grad():
    ...     _ = bn.running_mean.fill_(0.5)
    >>> fused = symgrad.nn.utils.fuse_conv_bn_eval(conv, bn)
    >>> x = symgrad.randn(1, 2, 5)
    >>> symgrad.allclose(fused(x), bn(conv(x)), atol=1e-6)
    True
    """
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    _check_stats(bn)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                         bn_eps: float, bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The weight and bias of a convolution followed by a batch norm with running mean
    ``bn_rm``, variance ``bn_rv``, ``bn_eps`` and affine ``bn_w``, ``bn_b`` (None: 1 and 0),
    as Parameters (requiring grad as ``conv_w`` and ``conv_b`` do; a missing bias counts as
    zeros that do not).

    >>> w, b = symgrad.nn.utils.fuse_conv_bn_weights(
    ...     symgrad.ones(2, 1, 1), None, symgrad.zeros(2), symgrad.tensor([3.0, 0.0]), 1.0,
    ...     None, symgrad.tensor([0.5, 0.5]))
    >>> w.flatten(), b
    (tensor([0.5000, 1.0000]), Parameter containing:
    tensor([0.5000, 0.5000]))
    """
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    inv_std = (bn_rv + bn_eps).rsqrt()
    rest = [1] * (conv_w.ndim - 2)
    shape = [1, -1, *rest] if transpose else [-1, 1, *rest]
    weight = (conv_w * (bn_w * inv_std).reshape(shape)).to(dtype=weight_dtype)
    bias = ((conv_b - bn_rm) * inv_std * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: LinearT, bn: Any) -> LinearT:
    """A copy of ``linear`` (evaluation mode) whose weight and bias also apply ``bn`` (an
    evaluation-mode batch norm over its ``out_features``, or over one feature).

    >>> lin, bn = symgrad.nn.Linear(2, 3).eval(), symgrad.nn.BatchNorm1d(3).eval()
    >>> fused = symgrad.nn.utils.fuse_linear_bn_eval(lin, bn)
    >>> x = symgrad.randn(4, 2)
    >>> symgrad.allclose(fused(x), bn(lin(x)), atol=1e-6)
    True
    """
    _check_eval(linear, bn)
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or "
                             "bn.num_features == 1, got linear.out_features="
                             f"{linear.out_features} and bn.num_features={bn.num_features}")
    _check_stats(bn)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor,
                           bn_rv: Tensor, bn_eps: float, bn_w: Tensor,
                           bn_b: Tensor) -> tuple[Parameter, Parameter]:
    """The weight and bias of a linear layer followed by a batch norm (running mean ``bn_rm``,
    variance ``bn_rv``, ``bn_eps``, affine ``bn_w`` and ``bn_b``), as Parameters.

    >>> w, b = symgrad.nn.utils.fuse_linear_bn_weights(
    ...     symgrad.ones(2, 1), symgrad.zeros(2), symgrad.zeros(2), symgrad.tensor([3.0, 0.0]),
    ...     1.0, symgrad.ones(2), symgrad.zeros(2))
    >>> w.flatten()
    tensor([0.5000, 1.0000])
    """
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    weight = linear_w * scale.unsqueeze(-1).to(dtype=weight_dtype)
    bias = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad)
