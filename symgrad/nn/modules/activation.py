"""Every activation of ``symgrad.nn.functional`` as a module, with PyTorch's constructor
arguments and repr. Each forward calls the ``F`` function of the same name."""

from __future__ import annotations

from typing import Any

from symgrad.creation import empty
from symgrad.nn import functional as F
from symgrad.nn import init as _init
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor


class _Activation(Module):
    """An activation: ``forward`` is ``F.<_function>(input, *options)``; the repr lists the
    options PyTorch's repr shows."""

    _function: str = ""
    _options: tuple[str, ...] = ()  # attributes passed to F after input, in F's order
    _shown: tuple[str, ...] | None = None  # shown in the repr (default: the options)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.<name>(input, ...)`` with this module's options.

        >>> symgrad.nn.LeakyReLU(0.5)(symgrad.tensor([-2.0, 3.0]))
        tensor([-1.,  3.])
        """
        return getattr(F, self._function)(input, *[getattr(self, o) for o in self._options])

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.LeakyReLU(0.2, inplace=True).extra_repr()
        'negative_slope=0.2, inplace=True'
        """
        shown = self._options if self._shown is None else self._shown
        parts = [f"{o}={getattr(self, o)!r}" if isinstance(getattr(self, o), str)
                 else f"{o}={getattr(self, o)}" for o in shown if o != "inplace"]
        if "inplace" in shown and self.inplace:
            parts.append("inplace=True")
        return ", ".join(parts)


class ReLU(_Activation):
    """``max(x, 0)``.

    >>> symgrad.nn.ReLU()(symgrad.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    _function, _options = "relu", ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class ReLU6(_Activation):
    """``min(max(x, 0), 6)``.

    >>> symgrad.nn.ReLU6()(symgrad.tensor([-1.0, 7.0]))
    tensor([0., 6.])
    """

    _function, _options = "relu6", ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class LeakyReLU(_Activation):
    """``x`` for x ≥ 0, ``negative_slope·x`` below.

    >>> symgrad.nn.LeakyReLU(0.1)
    LeakyReLU(negative_slope=0.1)
    """

    _function, _options = "leaky_relu", ("negative_slope", "inplace")

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace


class RReLU(_Activation):
    """Randomized leaky relu: in training a slope drawn from ``[lower, upper]`` per negative
    element (numpy's stream), in eval the mean slope ``(lower + upper) / 2``.

    >>> symgrad.nn.RReLU(0.1, 0.3)
    RReLU(lower=0.1, upper=0.3)
    >>> symgrad.nn.RReLU(0.1, 0.3).eval()(symgrad.tensor([-1.0, 2.0]))
    tensor([-0.2000,  2.0000])
    """

    _shown = ("lower", "upper", "inplace")

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.rrelu(input, lower, upper, self.training, inplace)``.

        >>> symgrad.nn.RReLU(0.5, 0.5)(symgrad.tensor([-2.0, 1.0]))
        tensor([-1.,  1.])
        """
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)


class ELU(_Activation):
    """``x`` for x > 0, ``alpha·(exp(x) - 1)`` below.

    >>> symgrad.nn.ELU()(symgrad.tensor([0.0, 1.0]))
    tensor([0., 1.])
    """

    _function, _options = "elu", ("alpha", "inplace")

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace


class CELU(_Activation):
    """``max(0, x) + min(0, alpha·(exp(x/alpha) - 1))``.

    >>> symgrad.nn.CELU(2.0)
    CELU(alpha=2.0)
    """

    _function, _options = "celu", ("alpha", "inplace")

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace


class SELU(_Activation):
    """Scaled ELU with PyTorch's constants.

    >>> symgrad.nn.SELU()
    SELU()
    """

    _function, _options = "selu", ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class GELU(_Activation):
    """``x·Φ(x)`` (``approximate='tanh'``: the tanh approximation).

    >>> symgrad.nn.GELU()(symgrad.tensor([0.0]))
    tensor([0.])
    >>> symgrad.nn.GELU("tanh")
    GELU(approximate='tanh')
    """

    _function, _options = "gelu", ("approximate",)

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate


class SiLU(_Activation):
    """``x·sigmoid(x)`` (swish).

    >>> symgrad.nn.SiLU()(symgrad.tensor([0.0]))
    tensor([0.])
    """

    _function, _options = "silu", ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class Mish(_Activation):
    """``x·tanh(softplus(x))``.

    >>> symgrad.nn.Mish()
    Mish()
    """

    _function, _options = "mish", ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class Hardswish(_Activation):
    """``x·relu6(x + 3)/6``.

    >>> symgrad.nn.Hardswish()
    Hardswish()
    """

    _function, _options, _shown = "hardswish", ("inplace",), ()

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class Hardsigmoid(_Activation):
    """``relu6(x + 3)/6``.

    >>> symgrad.nn.Hardsigmoid()
    Hardsigmoid()
    """

    _function, _options, _shown = "hardsigmoid", ("inplace",), ()

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class Hardtanh(_Activation):
    """``x`` clamped to [min_val, max_val].

    >>> symgrad.nn.Hardtanh()(symgrad.tensor([-3.0, 0.5, 3.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """

    _function, _options = "hardtanh", ("min_val", "max_val", "inplace")

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0,
                 inplace: bool = False) -> None:
        super().__init__()
        if max_val <= min_val:
            raise AssertionError("max_val must be greater than min_val")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace


class Threshold(_Activation):
    """``x`` where x > threshold, else ``value``.

    >>> symgrad.nn.Threshold(0.1, 20)
    Threshold(threshold=0.1, value=20)
    """

    _function, _options = "threshold", ("threshold", "value", "inplace")

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace


class Softplus(_Activation):
    """``log(1 + exp(beta·x))/beta`` (linear above ``threshold``).

    >>> symgrad.nn.Softplus()
    Softplus(beta=1.0, threshold=20.0)
    """

    _function, _options = "softplus", ("beta", "threshold")

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold


class _Shrink(_Activation):
    _options = ("lambd",)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Softshrink(0.25).extra_repr()
        '0.25'
        """
        return str(self.lambd)


class Softshrink(_Shrink):
    """``x ∓ lambd`` outside [-lambd, lambd], 0 inside.

    >>> symgrad.nn.Softshrink()
    Softshrink(0.5)
    """

    _function = "softshrink"


class Hardshrink(_Shrink):
    """``x`` outside [-lambd, lambd], 0 inside.

    >>> symgrad.nn.Hardshrink(1.0)
    Hardshrink(1.0)
    """

    _function = "hardshrink"


class Tanh(_Activation):
    """Hyperbolic tangent.

    >>> symgrad.nn.Tanh()(symgrad.tensor([0.0]))
    tensor([0.])
    """

    _function = "tanh"


class Sigmoid(_Activation):
    """``1 / (1 + exp(-x))``.

    >>> symgrad.nn.Sigmoid()(symgrad.tensor([0.0]))
    tensor([0.5000])
    """

    _function = "sigmoid"


class Softsign(_Activation):
    """``x / (1 + |x|)``.

    >>> symgrad.nn.Softsign()
    Softsign()
    """

    _function = "softsign"


class Tanhshrink(_Activation):
    """``x - tanh(x)``.

    >>> symgrad.nn.Tanhshrink()
    Tanhshrink()
    """

    _function = "tanhshrink"


class LogSigmoid(_Activation):
    """``log(sigmoid(x))``.

    >>> symgrad.nn.LogSigmoid()
    LogSigmoid()
    """

    _function = "logsigmoid"


class GLU(_Activation):
    """Gated linear unit: the first half of ``dim`` times the sigmoid of the second.

    >>> symgrad.nn.GLU()
    GLU(dim=-1)
    """

    _function, _options = "glu", ("dim",)

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim


class Softmax(_Activation):
    """Softmax along ``dim``.

    >>> symgrad.nn.Softmax(dim=0)(symgrad.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """

    _function, _options = "softmax", ("dim",)

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim


class LogSoftmax(_Activation):
    """``log(softmax(x))`` along ``dim``, computed stably.

    >>> symgrad.nn.LogSoftmax(dim=0)(symgrad.tensor([0.0, 0.0]))
    tensor([-0.6931, -0.6931])
    """

    _function, _options = "log_softmax", ("dim",)

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim


class Softmin(_Activation):
    """``softmax(-x)`` along ``dim``.

    >>> symgrad.nn.Softmin(dim=0)(symgrad.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """

    _function, _options = "softmin", ("dim",)

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim


class Softmax2d(_Activation):
    """Softmax over the channels (dimension -3) of (N, C, H, W) or (C, H, W) input.

    >>> symgrad.nn.Softmax2d()(symgrad.zeros(1, 2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    _function = "softmax"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.softmax(input, -3)`` for 3-d or 4-d input.

        >>> symgrad.nn.Softmax2d()(symgrad.zeros(2, 1, 1))
        tensor([[[0.5000]],
        <BLANKLINE>
                [[0.5000]]])
        """
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             "instead")
        return F.softmax(input, -3)


class PReLU(Module):
    """``x`` for x ≥ 0, ``a·x`` below, with a learnt ``a`` (one, or one per channel of
    dimension 1), initialised to ``init``.

    >>> act = symgrad.nn.PReLU()
    >>> act
    PReLU(num_parameters=1)
    >>> act(symgrad.tensor([-4.0, 2.0]))
    tensor([-1.,  2.], grad_fn=<WhereBackward0>)
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, dtype=dtype, device=device))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Fill the slopes with ``init``.

        >>> act = symgrad.nn.PReLU(2, init=0.1)
        >>> act.reset_parameters()
        >>> act.weight
        Parameter containing:
        tensor([0.1000, 0.1000], requires_grad=True)
        """
        _init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``where(input > 0, input, weight·input)``, ``weight`` along dimension 1.

        >>> symgrad.nn.PReLU()(symgrad.tensor([[-1.0, 1.0]])).shape
        symgrad.Size([1, 2])
        """
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.PReLU(3).extra_repr()
        'num_parameters=3'
        """
        return f"num_parameters={self.num_parameters}"

