"""A progress bar on stderr for symbolic work that may run for a while.

``progress=None`` (the default of check, check_hessian, compile and lower): a bar appears on a
terminal once the work has run for about :data:`DELAY` seconds, and nothing is printed when
stderr is not a terminal; ``True`` shows it always, from the start; ``False`` never. The bar is
tqdm's when tqdm is installed (``pip install symgrad[progress]``), else one line redrawn in
place.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any

DELAY = 2.0  # seconds of work before a bar appears on its own


def _enabled(progress: bool | None) -> bool:
    if progress is not None:
        return bool(progress)
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stderr
        return False


class Progress:
    """A context manager counting ``total`` steps of ``desc`` (see the module docstring).

    >>> with Progress(3, "demo", progress=False) as bar:
    ...     for _ in range(3):
    ...         bar.update()
    >>> bar.count
    3
    """

    def __init__(self, total: int, desc: str, progress: bool | None = None) -> None:
        self.total = total
        self.desc = desc
        self.count = 0
        self.show = _enabled(progress)
        self.delay = DELAY if progress is None else 0.0
        self.start = time.monotonic()
        self._bar: Any = None
        self._drawn = 0.0
        if self.show:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=total, desc=desc, delay=self.delay, file=sys.stderr,
                                 leave=False, dynamic_ncols=True)

    def __enter__(self) -> Progress:
        return self

    def update(self, n: int = 1) -> None:
        """Count ``n`` more steps done."""
        self.count += n
        if not self.show:
            return
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.monotonic()
        if now - self.start >= self.delay and now - self._drawn >= 0.2:
            self._drawn = now
            width = 30
            done = int(width * self.count / max(1, self.total))
            sys.stderr.write(f"\r{self.desc}: [{'#' * done}{'.' * (width - done)}] "
                             f"{self.count}/{self.total} {now - self.start:.0f}s")
            sys.stderr.flush()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.show and self._drawn:
            sys.stderr.write("\r" + " " * 79 + "\r")
            sys.stderr.flush()


__all__ = ["DELAY", "Progress"]
