"""The layers of ``symgrad.nn``, one file per family."""

from symgrad.nn.modules.activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from symgrad.nn.modules.container import ModuleDict, ModuleList, Sequential
from symgrad.nn.modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d
from symgrad.nn.modules.distance import CosineSimilarity, PairwiseDistance
from symgrad.nn.modules.dropout import (
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
)
from symgrad.nn.modules.flatten import Flatten, Unflatten
from symgrad.nn.modules.linear import Bilinear, Identity, Linear
from symgrad.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    CTCLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from symgrad.nn.modules.module import Module
from symgrad.nn.modules.normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm
from symgrad.nn.modules.pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)
from symgrad.nn.modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from symgrad.nn.modules.sparse import Embedding
from symgrad.nn.modules.transformer import (
    MultiheadAttention,
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AlphaDropout", "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d",
    "BatchNorm2d", "Bilinear", "CELU", "CTCLoss", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
    "ConvTranspose2d", "CosineEmbeddingLoss", "CosineSimilarity", "CrossEntropyLoss", "Dropout",
    "Dropout1d", "Dropout2d", "Dropout3d", "ELU", "Embedding", "FeatureAlphaDropout", "Flatten",
    "GELU", "GLU", "GRU", "GRUCell", "GaussianNLLLoss", "GroupNorm", "Hardshrink", "Hardsigmoid",
    "Hardswish", "Hardtanh", "HingeEmbeddingLoss", "HuberLoss", "Identity", "KLDivLoss", "L1Loss",
    "LSTM", "LSTMCell", "LayerNorm", "LeakyReLU", "Linear", "LogSigmoid", "LogSoftmax", "MSELoss",
    "MarginRankingLoss", "MaxPool1d", "MaxPool2d", "Mish", "Module", "ModuleDict", "ModuleList",
    "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiheadAttention",
    "NLLLoss", "PReLU", "PairwiseDistance", "PoissonNLLLoss", "RNN", "RNNBase", "RNNCell",
    "RNNCellBase", "RReLU", "ReLU", "ReLU6", "SELU", "Sequential", "SiLU", "Sigmoid",
    "SmoothL1Loss", "SoftMarginLoss", "Softmax", "Softmax2d", "Softmin", "Softplus", "Softshrink",
    "Softsign", "Tanh", "Tanhshrink", "Threshold", "Transformer", "TransformerDecoder",
    "TransformerDecoderLayer", "TransformerEncoder", "TransformerEncoderLayer",
    "TripletMarginLoss", "TripletMarginWithDistanceLoss", "Unflatten",
]
