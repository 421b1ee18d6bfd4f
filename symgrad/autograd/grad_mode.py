"""Thread-local gradient recording mode: no_grad, enable_grad, set_grad_enabled."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class _Mode(threading.local):
    enabled = True  # (written through set_recording only)
    inference = False


_mode = _Mode()
_get_ident = threading.get_ident

off_threads: set[int] = set()
"""The threads whose grad mode is off (:func:`set_recording` keeps it). While it is empty,
recording reads no thread-local state: ``not off_threads or _mode.enabled`` is the grad mode,
the thread-local read (costly) only when some thread turned it off."""


def set_recording(enabled: bool) -> None:
    """Turn graph recording on or off in this thread (every switch of the grad mode)."""
    _mode.enabled = enabled
    if enabled:
        off_threads.discard(_get_ident())
    else:
        off_threads.add(_get_ident())


def is_grad_enabled() -> bool:
    """Whether operations on tensors that require grad are recorded in this thread.

    >>> symgrad.is_grad_enabled()
    True
    >>> with symgrad.no_grad():
    ...     symgrad.is_grad_enabled()
    False
    """
    return not off_threads or _mode.enabled


class _GradModeContext:
    """Base of the grad-mode switches: a context manager that also decorates functions
    (``@no_grad()`` and, as in PyTorch, ``@no_grad`` without parentheses)."""

    _target: bool

    def __new__(cls, func: Callable[..., Any] | None = None) -> Any:
        self = super().__new__(cls)
        if func is not None and callable(func) and cls is not set_grad_enabled:
            return self(func)
        return self

    def __init__(self, func: Callable[..., Any] | None = None) -> None:
        pass

    def __enter__(self) -> None:
        self._previous = _mode.enabled
        set_recording(self._target)

    def __exit__(self, *exc: object) -> None:
        set_recording(self._previous)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_GradModeContext):  # noqa: N801 - PyTorch's name
    """Disable graph recording inside a ``with`` block or a decorated function.

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> with symgrad.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    _target = False


class enable_grad(_GradModeContext):  # noqa: N801 - PyTorch's name
    """Re-enable graph recording (inside ``no_grad``) for a block or a decorated function.

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> with symgrad.no_grad():
    ...     with symgrad.enable_grad():
    ...         y = x * 2
    >>> y.requires_grad
    True
    """

    _target = True


class set_grad_enabled(_GradModeContext):  # noqa: N801 - PyTorch's name
    """Set recording on or off: takes effect at once, and as a context manager restores after.

    >>> with symgrad.set_grad_enabled(False):
    ...     symgrad.is_grad_enabled()
    False
    """

    def __new__(cls, mode: bool) -> set_grad_enabled:
        return object.__new__(cls)

    def __init__(self, mode: bool) -> None:
        self._previous = _mode.enabled
        self._target = bool(mode)
        set_recording(self._target)

    def __enter__(self) -> None:
        pass

    def __call__(self, func: F) -> F:
        mode = self._target
        set_recording(self._previous)  # used as a decorator: do not switch at definition time

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class inference_mode(_GradModeContext):  # noqa: N801 - PyTorch's name
    """Like ``no_grad`` (symgrad has no separate inference tensors); ``inference_mode(False)``
    leaves the mode as it is.

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> with symgrad.inference_mode():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __new__(cls, mode: Any = True) -> Any:
        self = object.__new__(cls)
        if callable(mode):  # @inference_mode without parentheses
            self._mode_on = True
            return self(mode)
        return self

    def __init__(self, mode: bool = True) -> None:
        self._mode_on = bool(mode)

    def __enter__(self) -> None:
        self._previous = _mode.enabled
        self._inference_previous = _mode.inference
        if self._mode_on:
            set_recording(False)
            _mode.inference = True

    def __exit__(self, *exc: object) -> None:
        set_recording(self._previous)
        _mode.inference = self._inference_previous

    def __call__(self, func: F) -> F:
        mode = self._mode_on

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


def is_inference_mode_enabled() -> bool:
    """Whether an ``inference_mode`` block is active in this thread.

    >>> with symgrad.inference_mode():
    ...     symgrad.is_inference_mode_enabled()
    True
    >>> symgrad.is_inference_mode_enabled()
    False
    """
    return _mode.inference
