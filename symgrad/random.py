"""``symgrad.random``: PyTorch's ``torch.random`` — the global stream's seed and state, the
``Generator`` class, and ``fork_rng`` to draw numbers without moving the global stream.

>>> _ = symgrad.manual_seed(0)
>>> with symgrad.random.fork_rng():
...     _ = symgrad.rand(3)  # drawn, then the stream is put back
>>> a = symgrad.rand(2)
>>> _ = symgrad.manual_seed(0)
>>> symgrad.equal(a, symgrad.rand(2))
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from symgrad.creation import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from symgrad.tensor import check_device

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
           "manual_seed", "seed", "set_rng_state"]


@contextlib.contextmanager
def fork_rng(devices: Iterable[Any] | None = None, enabled: bool = True,
             _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: str = "cuda") -> Iterator[None]:
    """Run the block, then put the global stream back in the state it had before (nothing
    when ``enabled`` is False). symgrad computes on the CPU only: ``devices`` (of
    ``device_type``) other than none are refused as PyTorch refuses a device it was not built
    with.

    >>> state = symgrad.get_rng_state()
    >>> with symgrad.random.fork_rng():
    ...     _ = symgrad.randn(5)
    >>> symgrad.get_rng_state() == state
    True
    """
    if devices and device_type != "meta":
        check_device(device_type)
    if not enabled or device_type == "meta":
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
