"""Every loss of ``symgrad.nn.functional`` as a module with ``reduction`` ('mean', 'sum' or
'none'), PyTorch's constructor arguments, and class weights registered as buffers."""

from __future__ import annotations

import warnings
from collections.abc import Callable

from symgrad.nn import functional as F
from symgrad.nn.losses import _reduction
from symgrad.nn.modules.distance import PairwiseDistance
from symgrad.nn.modules.module import Module
from symgrad.tensor import Tensor


class _Loss(Module):
    """A loss: ``forward(input, target)`` is ``F.<_function>(input, target, **options)``."""

    _function: str = ""
    _options: tuple[str, ...] = ()  # attributes passed to F by keyword, besides reduction

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:  # the legacy flags, with a warning
            reduction = _reduction(reduction, size_average, reduce)
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """``F.<name>(input, target, reduction=..., ...)`` with this module's options.

        >>> symgrad.nn.MSELoss(reduction="sum")(symgrad.tensor([1.0, 2.0]), symgrad.zeros(2))
        tensor(5.)
        """
        options = {o: getattr(self, o) for o in self._options}
        return getattr(F, self._function)(input, target, reduction=self.reduction, **options)


class _WeightedLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """Mean (or sum) absolute error.

    >>> symgrad.nn.L1Loss()(symgrad.tensor([1.0, -3.0]), symgrad.zeros(2))
    tensor(2.)
    """

    _function = "l1_loss"


class MSELoss(_Loss):
    """Mean (or sum) squared error.

    >>> symgrad.nn.MSELoss()(symgrad.tensor([1.0, 3.0]), symgrad.zeros(2))
    tensor(5.)
    """

    _function = "mse_loss"


class SmoothL1Loss(_Loss):
    """Squared error below ``beta`` (halved, divided by beta), absolute error above.

    >>> symgrad.nn.SmoothL1Loss()(symgrad.tensor([0.5, 3.0]), symgrad.zeros(2))
    tensor(1.3125)
    """

    _function, _options = "smooth_l1_loss", ("beta",)

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta


class HuberLoss(_Loss):
    """Half squared error below ``delta``, ``delta·(|x| - delta/2)`` above.

    >>> symgrad.nn.HuberLoss(delta=2.0)(symgrad.tensor([1.0, 4.0]), symgrad.zeros(2))
    tensor(3.2500)
    """

    _function, _options = "huber_loss", ("delta",)

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence with ``input`` given as log-probabilities (and ``target``
    too when ``log_target``).

    >>> symgrad.nn.KLDivLoss(reduction="sum")(symgrad.tensor([0.5, 0.5]).log(),
    ...                                       symgrad.tensor([0.5, 0.5]))
    tensor(0.)
    """

    _function, _options = "kl_div", ("log_target",)

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities.

    >>> symgrad.nn.BCELoss()(symgrad.tensor([0.5]), symgrad.tensor([1.0]))
    tensor(0.6931)
    """

    _function, _options = "binary_cross_entropy", ("weight",)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits (sigmoid inside, computed stably), with optional
    ``weight`` and ``pos_weight`` buffers.

    >>> symgrad.nn.BCEWithLogitsLoss()(symgrad.tensor([0.0]), symgrad.tensor([1.0]))
    tensor(0.6931)
    """

    _function, _options = "binary_cross_entropy_with_logits", ("weight", "pos_weight")

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood of class indices, ``input`` being log-probabilities.

    >>> symgrad.nn.NLLLoss()(symgrad.tensor([[0.5, 0.5]]).log(), symgrad.tensor([1]))
    tensor(0.6931)
    """

    _function, _options = "nll_loss", ("weight", "ignore_index")

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index


class NLLLoss2d(NLLLoss):
    """:class:`NLLLoss` under its deprecated name, with PyTorch's FutureWarning.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.nn.NLLLoss2d()
    NLLLoss2d()
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see https://pytorch.org/docs/main/nn.html"
                      "#torch.nn.NLLLoss for more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or class probabilities, with optional
    class ``weight``, ``ignore_index`` and ``label_smoothing``.

    >>> loss = symgrad.nn.CrossEntropyLoss()
    >>> loss(symgrad.tensor([[0.0, 0.0]]), symgrad.tensor([1]))
    tensor(0.6931)
    """

    _function, _options = "cross_entropy", ("weight", "ignore_index", "label_smoothing")

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing


class SoftMarginLoss(_Loss):
    """Two-class logistic loss for targets ±1.

    >>> symgrad.nn.SoftMarginLoss()(symgrad.tensor([0.0, 2.0]), symgrad.tensor([1.0, -1.0]))
    tensor(1.4100)
    """

    _function = "soft_margin_loss"


class HingeEmbeddingLoss(_Loss):
    """``input`` where target is 1, ``max(0, margin - input)`` where it is -1.

    >>> symgrad.nn.HingeEmbeddingLoss()(symgrad.tensor([0.3]), symgrad.tensor([-1.0]))
    tensor(0.7000)
    """

    _function, _options = "hinge_embedding_loss", ("margin",)

    def __init__(self, margin: float = 1.0, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class PoissonNLLLoss(_Loss):
    """Poisson negative log likelihood (``log_input``: the input is a log-rate).

    >>> symgrad.nn.PoissonNLLLoss()(symgrad.tensor([0.0]), symgrad.tensor([2.0]))
    tensor(1.)
    """

    _function, _options = "poisson_nll_loss", ("log_input", "full", "eps")

    def __init__(self, log_input: bool = True, full: bool = False,
                 size_average: bool | None = None, eps: float = 1e-8,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Binary cross entropy of logits per class, averaged over the classes.

    >>> symgrad.nn.MultiLabelSoftMarginLoss()(symgrad.tensor([[0.0, 0.0]]),
    ...                                       symgrad.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """

    _function, _options = "multilabel_soft_margin_loss", ("weight",)


class _PairLoss(_Loss):
    """A loss of two inputs and a ±1 target, with a ``margin``."""

    def __init__(self, margin: float = 0.0, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """``F.<name>(input1, input2, target, margin, reduction=...)``.

        >>> symgrad.nn.MarginRankingLoss()(symgrad.tensor([1.0]), symgrad.tensor([2.0]),
        ...                                symgrad.tensor([1.0]))
        tensor(1.)
        """
        return getattr(F, self._function)(input1, input2, target, self.margin,
                                          reduction=self.reduction)


class MarginRankingLoss(_PairLoss):
    """``max(0, -target·(input1 - input2) + margin)``.

    >>> symgrad.nn.MarginRankingLoss(margin=0.5)
    MarginRankingLoss()
    """

    _function = "margin_ranking_loss"


class CosineEmbeddingLoss(_PairLoss):
    """``1 - cos(input1, input2)`` where target is 1, ``max(0, cos - margin)`` where -1.

    >>> symgrad.nn.CosineEmbeddingLoss()(symgrad.tensor([[1.0, 0.0]]),
    ...                                  symgrad.tensor([[0.0, 1.0]]), symgrad.tensor([1.0]))
    tensor(1.)
    """

    _function = "cosine_embedding_loss"


class TripletMarginLoss(_Loss):
    """``max(d(anchor, positive) - d(anchor, negative) + margin, 0)`` with the p-norm
    distance.

    >>> symgrad.nn.TripletMarginLoss()(symgrad.tensor([[0.0]]), symgrad.tensor([[1.0]]),
    ...                                symgrad.tensor([[1.5]]))
    tensor(0.5000)
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        """``F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, ...)``.

        >>> symgrad.nn.TripletMarginLoss(margin=0.0)(symgrad.tensor([[0.0]]),
        ...                                          symgrad.tensor([[1.0]]),
        ...                                          symgrad.tensor([[3.0]]))
        tensor(0.)
        """
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log likelihood of ``target`` under mean ``input`` and variance
    ``var``.

    >>> loss = symgrad.nn.GaussianNLLLoss()
    >>> loss(symgrad.tensor([1.0]), symgrad.tensor([1.0]), symgrad.tensor([1.0]))
    tensor(0.)
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6,
                 reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:  # noqa: A002
        """``F.gaussian_nll_loss(input, target, var, full, eps, reduction)``.

        >>> symgrad.nn.GaussianNLLLoss(full=True)(symgrad.zeros(1), symgrad.zeros(1), 1.0)
        tensor(0.9189)
        """
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss of class-index targets (``p`` 1 or 2, ``margin``, class
    ``weight`` buffer).

    >>> symgrad.nn.MultiMarginLoss()(symgrad.tensor([[0.1, 0.2, 0.4, 0.8]]), symgrad.tensor([3]))
    tensor(0.3250)
    """

    _function, _options = "multi_margin_loss", ("p", "margin", "weight")

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.ndim != 1:
            raise ValueError("MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.ndim}D instead")
        super().__init__(weight, size_average, reduce, reduction)
        self.p = p
        self.margin = margin


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss; the targets are class indices padded with -1.

    >>> symgrad.nn.MultiLabelMarginLoss()(symgrad.tensor([[0.1, 0.2, 0.4, 0.8]]),
    ...                                   symgrad.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """

    _function = "multilabel_margin_loss"


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet loss with any distance function (a ``PairwiseDistance`` submodule by default).

    >>> symgrad.nn.TripletMarginWithDistanceLoss()
    TripletMarginWithDistanceLoss(
      (distance_function): PairwiseDistance()
    )
    """

    def __init__(self, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                 margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError("TripletMarginWithDistanceLoss: expected margin to be greater than "
                             f"0, got {margin} instead")
        self.distance_function = (distance_function if distance_function is not None
                                  else PairwiseDistance())
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        """``F.triplet_margin_with_distance_loss(anchor, positive, negative, ...)``.

        >>> symgrad.nn.TripletMarginWithDistanceLoss(margin=0.5)(
        ...     symgrad.tensor([[0.0]]), symgrad.tensor([[1.0]]), symgrad.tensor([[3.0]]))
        tensor(0.)
        """
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class CTCLoss(_Loss):
    """Connectionist temporal classification loss (``F.ctc_loss``) with ``blank``,
    ``reduction`` ('mean' divides by the target lengths first, as PyTorch) and
    ``zero_infinity``.

    >>> loss = symgrad.nn.CTCLoss()
    >>> loss
    CTCLoss()
    >>> lp = symgrad.zeros(3, 1, 2).log_softmax(2)
    >>> loss(lp, symgrad.tensor([[1]]), symgrad.tensor([3]), symgrad.tensor([1]))
    tensor(0.2877)
    """

    def __init__(self, blank: int = 0, reduction: str = "mean",
                 zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor,  # type: ignore[override]
                target_lengths: Tensor) -> Tensor:
        """``F.ctc_loss`` with this module's options.

        >>> lp = symgrad.zeros(2, 2, 3).log_softmax(2)
        >>> symgrad.nn.CTCLoss(reduction="none")(lp, symgrad.tensor([1, 2]), [2, 2], [1, 1])
        tensor([1.0986, 1.0986])
        """
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)
