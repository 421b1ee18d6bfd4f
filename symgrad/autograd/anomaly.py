"""Anomaly detection: ``detect_anomaly``, ``set_detect_anomaly``, ``is_anomaly_enabled``.

While the mode is on (per thread, like grad mode), every node recorded keeps the stack of the
forward call that created it, and backward checks each node's gradients for NaN: the first node
that returns NaN raises PyTorch's ``RuntimeError`` ("Function 'DivBackward0' returned nan values
in its 1th output."), and any error raised while a node runs in backward is preceded by a warning
giving the forward traceback of that node. Off, it costs nothing beyond one global read per node.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from symgrad.autograd import graph

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    enabled = False
    check_nan = True
    parent: graph.Node | None = None  # the node whose backward is running (create_graph)


_state = _State()
_lock = threading.Lock()


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on in this thread.

    >>> symgrad.is_anomaly_enabled()
    False
    >>> with symgrad.autograd.set_detect_anomaly(True):
    ...     symgrad.is_anomaly_enabled()
    True
    """
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection (when on) checks backward's gradients for NaN.

    >>> with symgrad.autograd.set_detect_anomaly(True, check_nan=False):
    ...     symgrad.is_anomaly_check_nan_enabled()
    False
    """
    return _state.check_nan


def _set(enabled: bool, check_nan: bool) -> None:
    enabled = bool(enabled)
    if enabled != _state.enabled:
        with _lock:
            graph._anomaly_threads += 1 if enabled else -1
    _state.enabled = enabled
    _state.check_nan = bool(check_nan)


class detect_anomaly:  # noqa: N801 - PyTorch's name
    """Turn anomaly detection on inside a ``with`` block (or a decorated function).

    Nodes recorded inside keep the traceback of their forward call; a backward run inside
    raises as soon as a node returns NaN (with ``check_nan``), naming the node and warning with
    its forward traceback.

    >>> import warnings
    >>> x = symgrad.tensor([-1.0], requires_grad=True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with symgrad.autograd.detect_anomaly():
    ...         x.sqrt().sum().backward()
    Traceback (most recent call last):
        ...
    RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output. ...
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = bool(check_nan)
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        self._previous = (_state.enabled, _state.check_nan)
        _set(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        _set(*self._previous)

    def __call__(self, func: F) -> F:
        check_nan = self.check_nan

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            previous = (_state.enabled, _state.check_nan)
            _set(True, check_nan)
            try:
                return func(*args, **kwargs)
            finally:
                _set(*previous)

        return wrapper  # type: ignore[return-value]


class set_detect_anomaly:  # noqa: N801 - PyTorch's name
    """Set anomaly detection on or off: takes effect at once, and as a context manager restores
    the previous setting on exit.

    >>> _ = symgrad.autograd.set_detect_anomaly(True)
    >>> symgrad.autograd.is_anomaly_enabled()
    True
    >>> _ = symgrad.autograd.set_detect_anomaly(False)
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._previous = (_state.enabled, _state.check_nan)
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _set(*self._previous)


def _record_forward(node: graph.Node, skip: int) -> None:
    """Anomaly mode: keep the stack of the forward call creating ``node`` (from the first frame
    outside symgrad outwards; lines are read only when shown), and its parent node."""
    if not _state.enabled:
        return  # on in another thread only
    frame = graph.user_frame(skip + 1)
    if frame is not None:
        import traceback  # (here: anomaly mode is rare, and the module costs import symgrad)

        stack = traceback.StackSummary.extract(traceback.walk_stack(frame), lookup_lines=False)
        stack.reverse()
        node.forward_stack = stack
    if _state.parent is not None:
        node.anomaly_parent = _state.parent


graph._record_forward = _record_forward


def nan_error(node: graph.Node, index: int) -> RuntimeError:
    """PyTorch's error for a node whose ``index``-th gradient output holds NaN, followed by
    where its forward op was called."""
    message = f"Function '{node.name()}' returned nan values in its {index}th output."
    site = node.created_at
    if site is not None:
        message += f" Its forward op ({node.op.name}) was called at {site}."
    return RuntimeError(message)


def warn_error_in(node: Any) -> None:
    """PyTorch's warning when a node fails in backward under anomaly mode: its forward
    traceback, then those of the nodes whose backward created it."""
    stack = getattr(node, "forward_stack", None)
    if stack is None:
        graph.warn_at_user(f"Error detected in {node.name()}. No forward pass information "
                           "available. Enable detect anomaly during forward pass for more "
                           "information.")
        return
    graph.warn_at_user(f"Error detected in {node.name()}. Traceback of forward call that caused "
                       f"the error:\n{''.join(stack.format())}")
    parent = node.anomaly_parent
    while parent is not None and parent.forward_stack is not None:
        graph.warn_at_user(f"\n\nPrevious calculation was induced by {parent.name()}. Traceback "
                           "of forward call that induced the previous calculation:\n"
                           f"{''.join(parent.forward_stack.format())}")
        parent = parent.anomaly_parent
