"""``symgrad.backends.cuda``: CUDA's switches, with PyTorch's defaults (symgrad has no CUDA;
setting them changes nothing it computes)."""

from __future__ import annotations

from typing import Any


def is_built() -> bool:
    """False: symgrad is not built with CUDA.

    >>> symgrad.backends.cuda.is_built()
    False
    """
    return False


class _Matmul:
    """``cuda.matmul``: the reduced-precision switches of CUDA matmuls."""

    _DEFAULTS = {"allow_tf32": False, "allow_fp16_reduced_precision_reduction": True,
                 "allow_bf16_reduced_precision_reduction": True}

    def __init__(self) -> None:
        self.__dict__.update(self._DEFAULTS)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._DEFAULTS:
            raise AttributeError(f"Unknown attribute {name}")
        super().__setattr__(name, value)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"Unknown attribute {name}")


matmul = _Matmul()
_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    """Whether scaled-dot-product attention may use the flash kernel (PyTorch's switch).

    >>> symgrad.backends.cuda.flash_sdp_enabled()
    True
    """
    return _sdp["flash"]


def mem_efficient_sdp_enabled() -> bool:
    """Whether attention may use the memory-efficient kernel (PyTorch's switch).

    >>> symgrad.backends.cuda.mem_efficient_sdp_enabled()
    True
    """
    return _sdp["mem_efficient"]


def math_sdp_enabled() -> bool:
    """Whether attention may use the math kernel, the one symgrad always uses.

    >>> symgrad.backends.cuda.math_sdp_enabled()
    True
    """
    return _sdp["math"]


def enable_flash_sdp(enabled: bool) -> None:
    """Set :func:`flash_sdp_enabled`.

    >>> symgrad.backends.cuda.enable_flash_sdp(True)
    """
    _sdp["flash"] = bool(enabled)


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Set :func:`mem_efficient_sdp_enabled`.

    >>> symgrad.backends.cuda.enable_mem_efficient_sdp(True)
    """
    _sdp["mem_efficient"] = bool(enabled)


def enable_math_sdp(enabled: bool) -> None:
    """Set :func:`math_sdp_enabled`.

    >>> symgrad.backends.cuda.enable_math_sdp(True)
    """
    _sdp["math"] = bool(enabled)
