"""``symgrad.utils``: PyTorch's ``torch.utils`` helpers that a training script reaches for
(``symgrad.utils.data``: datasets, samplers and the DataLoader, imported on first use so that
``import symgrad`` does not pay for them)."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["data"]


def __getattr__(name: str) -> ModuleType:
    if name == "data":
        return importlib.import_module("symgrad.utils.data")
    raise AttributeError(f"module 'symgrad.utils' has no attribute '{name}'")


def __dir__() -> list[str]:
    return list(__all__)
