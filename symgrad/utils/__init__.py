"""``symgrad.utils``: PyTorch's ``torch.utils`` helpers that a training script reaches for
(``symgrad.utils.data``: datasets, samplers and the DataLoader; ``symgrad.utils.checkpoint``:
activation checkpointing), imported on first use so that ``import symgrad`` does not pay for
them."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["checkpoint", "data"]


def __getattr__(name: str) -> ModuleType:
    if name in __all__:
        return importlib.import_module(f"symgrad.utils.{name}")
    raise AttributeError(f"module 'symgrad.utils' has no attribute '{name}'")


def __dir__() -> list[str]:
    return list(__all__)
