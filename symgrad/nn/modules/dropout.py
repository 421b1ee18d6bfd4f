"""``Dropout`` and its channel-wise and self-normalizing variants: zero elements (or whole
channels) with probability p in training mode, identity in eval."""

from __future__ import annotations

from symgrad.nn import functional as F
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor


class _DropoutNd(Module):
    """A dropout layer: ``p`` and ``inplace``, forward ``F.<_function>(input, p, training,
    inplace)``."""

    _function = "dropout"

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.<name>(input, p, training, inplace)``.

        >>> symgrad.nn.Dropout(0.0)(symgrad.ones(2))
        tensor([1., 1.])
        """
        return getattr(F, self._function)(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Dropout().extra_repr()
        'p=0.5, inplace=False'
        """
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """In training mode each element is zeroed with probability ``p`` and the rest scaled by
    1/(1-p) (numpy's random stream); in eval mode the input passes unchanged.

    >>> drop = symgrad.nn.Dropout(0.2)
    >>> drop
    Dropout(p=0.2, inplace=False)
    >>> drop.eval()(symgrad.ones(3))
    tensor([1., 1., 1.])
    """


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of a (N, C, L) or (C, L) input in training.

    >>> symgrad.nn.Dropout1d(0.2)
    Dropout1d(p=0.2, inplace=False)
    """

    _function = "dropout1d"


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of a (N, C, H, W) input in training.

    >>> symgrad.nn.Dropout2d(0.2)
    Dropout2d(p=0.2, inplace=False)
    """

    _function = "dropout2d"


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of a (N, C, D, H, W) or (C, D, H, W) input in training.

    >>> symgrad.nn.Dropout3d(0.2)
    Dropout3d(p=0.2, inplace=False)
    """

    _function = "dropout3d"


class AlphaDropout(_DropoutNd):
    """Dropout keeping selu's self-normalizing mean and variance (``F.alpha_dropout``).

    >>> symgrad.nn.AlphaDropout(0.2).eval()(symgrad.ones(2))
    tensor([1., 1.])
    """

    _function = "alpha_dropout"


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (``F.feature_alpha_dropout``).

    >>> symgrad.nn.FeatureAlphaDropout(0.2)
    FeatureAlphaDropout(p=0.2, inplace=False)
    """

    _function = "feature_alpha_dropout"
