"""symgrad: PyTorch-style autograd on numpy whose recorded graphs lower to sympy.

Write ``import symgrad as t`` and use it as you would use PyTorch's autograd.
"""

from __future__ import annotations

import warnings
from typing import Any

from symgrad import _docs, autograd, cuda, linalg, methods, nn, ops, symbolic, testing, viz
from symgrad.autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled
from symgrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from symgrad.creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randn,
    randn_like,
    tensor,
    zeros,
    zeros_like,
)
from symgrad.dispatch import apply_op as _apply_op
from symgrad.methods.reductions import return_types
from symgrad.numeric.dtypes import bool_ as bool  # noqa: A001 - PyTorch's name
from symgrad.numeric.dtypes import (
    dtype,
    float32,
    float64,
    get_default_dtype,
    int64,
    set_default_dtype,
)
from symgrad.numeric.printing import set_printoptions
from symgrad.tensor import Size, Tensor, _operand, device

# numpy warns where PyTorch silently computes inf or nan (log(0), 0/0, exp overflow, 0 * inf in
# a backward rule); silence that in symgrad's own code only: the user's numpy calls still warn
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"symgrad\.")

float = float32  # noqa: A001 - PyTorch's alias
double = float64
long = int64

__version__ = "0.1.0"


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a symgrad Tensor.

    >>> symgrad.is_tensor(symgrad.ones(1)), symgrad.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:  # noqa: A002 - PyTorch's name
    """The number of elements of ``input``.

    >>> symgrad.numel(symgrad.zeros(2, 3))
    6
    """
    return input.numel()


def where(condition: Tensor, input: Any, other: Any) -> Tensor:  # noqa: A002
    """Elementwise ``input`` where ``condition`` else ``other`` (``WhereBackward0``).

    >>> x = symgrad.tensor([-1.0, 2.0])
    >>> symgrad.where(x > 0, x, 0.0)
    tensor([0., 2.])
    """
    if not isinstance(condition, Tensor) or condition.dtype is not bool:
        got = f", but got a tensor with dtype {condition.dtype._torch_name}" if isinstance(
            condition, Tensor) else ""
        raise RuntimeError(f"where expected condition to be a boolean tensor{got}")
    return _apply_op(ops.elementwise.where, condition, _operand(input, strict=True),
                    _operand(other, strict=True))


# Function spellings of Tensor methods: symgrad.exp(x) is x.exp(), as in PyTorch.
def add(input: Any, other: Any, *, alpha: float = 1) -> Tensor:  # noqa: A002
    """``input + alpha * other``; either may be a Python number (``AddBackward0``).

    >>> symgrad.add(symgrad.tensor([1.0, 2.0]), symgrad.tensor([10.0, 20.0]), alpha=2)
    tensor([21., 42.])
    >>> symgrad.add(1.0, symgrad.tensor([1.0, 2.0]))
    tensor([2., 3.])
    """
    if isinstance(input, Tensor):
        return input.add(other, alpha=alpha)
    return other.mul(alpha).add(input) if alpha != 1 else other.add(input)


def sub(input: Any, other: Any, *, alpha: float = 1) -> Tensor:  # noqa: A002
    """``input - alpha * other``; either may be a Python number (``SubBackward0``). Alias
    ``subtract``.

    >>> symgrad.sub(symgrad.tensor([5.0, 6.0]), symgrad.tensor([1.0, 2.0]), alpha=2)
    tensor([3., 2.])
    >>> symgrad.sub(1.0, symgrad.tensor([1.0, 2.0]))
    tensor([ 0., -1.])
    """
    if isinstance(input, Tensor):
        return input.sub(other, alpha=alpha)
    return _apply_op(ops.elementwise.sub, _operand(input, strict=True), other * alpha
                    if alpha != 1 else other)


def mul(input: Any, other: Any) -> Tensor:  # noqa: A002
    """Elementwise product; either may be a Python number (``MulBackward0``). Alias
    ``multiply``.

    >>> symgrad.mul(symgrad.tensor([1.0, 2.0]), symgrad.tensor([3.0, 4.0]))
    tensor([3., 8.])
    """
    return input.mul(other) if isinstance(input, Tensor) else other.mul(input)


def div(input: Any, other: Any) -> Tensor:  # noqa: A002
    """True division; either may be a Python number (``DivBackward0``). Aliases ``divide`` and
    ``true_divide``.

    >>> symgrad.div(symgrad.tensor([1.0, 3.0]), 2)
    tensor([0.5000, 1.5000])
    >>> symgrad.div(1.0, symgrad.tensor([2.0, 4.0]))
    tensor([0.5000, 0.2500])
    """
    if isinstance(input, Tensor):
        return input.div(other)
    return _apply_op(ops.elementwise.div, _operand(input, strict=True), other)


subtract = _docs.alias(sub, "subtract", method=False)
multiply = _docs.alias(mul, "multiply", method=False)
divide = _docs.alias(div, "divide", method=False)
true_divide = _docs.alias(div, "true_divide", method=False)


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001,A002 - PyTorch's name
    """``input ** exponent``; either may be a Python number (``symgrad.pow(2, x)``).

    >>> symgrad.pow(symgrad.tensor([1.0, 2.0, 3.0]), 2)
    tensor([1., 4., 9.])
    >>> symgrad.pow(2, symgrad.tensor([0.0, 3.0]))
    tensor([1., 8.])
    """
    if isinstance(input, Tensor):
        return input.pow(exponent)
    return exponent.__rpow__(input)


neg = Tensor.neg
negative = Tensor.neg
reciprocal = Tensor.reciprocal
square = Tensor.square
exp = Tensor.exp
log = Tensor.log
sqrt = Tensor.sqrt
sin = Tensor.sin
cos = Tensor.cos
tanh = Tensor.tanh
sigmoid = Tensor.sigmoid
relu = Tensor.relu
relu_ = Tensor.relu_
abs = Tensor.abs  # noqa: A001
sign = Tensor.sign
sum = Tensor.sum  # noqa: A001
mean = Tensor.mean
matmul = Tensor.matmul
mm = Tensor.mm
mv = Tensor.mv
dot = Tensor.dot
reshape = Tensor.reshape
flatten = Tensor.flatten
transpose = Tensor.transpose
swapaxes = Tensor.transpose
permute = Tensor.permute
t = Tensor.t
unsqueeze = Tensor.unsqueeze
squeeze = Tensor.squeeze
clone = Tensor.clone
detach = Tensor.detach
broadcast_to = Tensor.broadcast_to
eq = Tensor.eq
ne = Tensor.ne
lt = Tensor.lt
le = Tensor.le
gt = Tensor.gt
ge = Tensor.ge
equal = Tensor.equal
all = Tensor.all  # noqa: A001
any = Tensor.any  # noqa: A001
allclose = Tensor.allclose


def _install_functions() -> None:
    """Re-export the function spellings of ``symgrad.methods`` (``symgrad.tan`` ...)."""
    namespace = globals()
    clash = sorted(name for name in methods.FUNCTIONS if name in namespace)
    if clash:
        raise ImportError(f"symgrad.methods redefines {clash}")
    namespace.update(methods.FUNCTIONS)


_install_functions()

