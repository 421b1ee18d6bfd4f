"""``Embedding``: a lookup table of learnt vectors; ``EmbeddingBag``: their sums, means or
maxima over bags of indices."""

from __future__ import annotations

from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.creation import empty
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor


class Embedding(Module):
    """Row ``i`` of ``weight`` (num_embeddings, embedding_dim) for each index ``i`` of the
    input; the weight starts as N(0, 1), with the ``padding_idx`` row zero.

    >>> emb = symgrad.nn.Embedding(10, 3, padding_idx=0)
    >>> emb
    Embedding(10, 3, padding_idx=0)
    >>> emb.weight[0]
    tensor([0., 0., 0.], grad_fn=<SelectBackward0>)
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        if padding_idx is not None:
            if padding_idx > 0 and padding_idx >= num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
                padding_idx += num_embeddings
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), dtype=dtype,
                                          device=device), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """Redraw the weight from N(0, 1) and zero the ``padding_idx`` row.

        >>> emb = symgrad.nn.Embedding(4, 2, padding_idx=1)
        >>> emb.reset_parameters()
        >>> emb.weight[1].abs().sum().item()
        0.0
        """
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """``F.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq,
        sparse)``.

        >>> symgrad.nn.Embedding(5, 2)(symgrad.tensor([[0, 4, 4]])).shape
        symgrad.Size([1, 3, 2])
        """
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.Embedding(10, 3, max_norm=2.0).extra_repr()
        '10, 3, max_norm=2.0'
        """
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            text += ", scale_grad_by_freq=True"
        if self.sparse is not False:
            text += ", sparse=True"
        return text

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Embedding:
        """An Embedding whose weight is ``embeddings`` (frozen unless ``freeze=False``).

        >>> emb = symgrad.nn.Embedding.from_pretrained(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> emb.weight.requires_grad
        False
        """
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)


class EmbeddingBag(Embedding):
    """The sum, mean or max of the embeddings of each bag of indices (``F.embedding_bag``);
    the weight starts as N(0, 1), with the ``padding_idx`` row zero.

    >>> symgrad.nn.EmbeddingBag(10, 3)
    EmbeddingBag(10, 3, mode='mean')
    >>> symgrad.nn.EmbeddingBag(10, 3)(symgrad.tensor([[1, 2], [3, 4]])).shape
    symgrad.Size([2, 3])
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: Tensor | None = None,
                 include_last_offset: bool = False, padding_idx: int | None = None,
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise AssertionError("padding_idx must be within num_embeddings")
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                         scale_grad_by_freq, sparse, _weight, device=device, dtype=dtype)
        self.mode = mode
        self.include_last_offset = include_last_offset

    def forward(self, input: Tensor, offsets: Tensor | None = None,  # noqa: A002
                per_sample_weights: Tensor | None = None) -> Tensor:
        """``F.embedding_bag(input, weight, offsets, ..., mode, per_sample_weights, ...)``.

        >>> bag = symgrad.nn.EmbeddingBag(4, 2, mode="sum")
        >>> bag(symgrad.tensor([0, 1, 2]), symgrad.tensor([0, 1])).shape
        symgrad.Size([2, 2])
        """
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.EmbeddingBag(10, 3, mode="max", padding_idx=0).extra_repr()
        "10, 3, mode='max', padding_idx=0"
        """
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            text += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        text += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx!r}"
        return text

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,  # type: ignore[override]
                        max_norm: float | None = None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: int | None = None) -> EmbeddingBag:
        """An EmbeddingBag whose weight is ``embeddings`` (frozen unless ``freeze=False``).

        >>> bag = symgrad.nn.EmbeddingBag.from_pretrained(symgrad.ones(3, 2), mode="sum")
        >>> bag(symgrad.tensor([[0, 2]]))
        tensor([[2., 2.]])
        """
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  embeddings, include_last_offset, padding_idx)
        bag.weight.requires_grad_(not freeze)
        return bag
