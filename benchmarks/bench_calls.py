"""Python-level calls per spelling: what one ``a + b`` or ``x.exp()`` costs in function calls.

Timings on a shared machine are noisy; a count of calls is not. ``sys.setprofile`` counts every
Python and C function entered while one spelling runs once (after a warm-up call), so a layer
that adds a call per op (a wrapper around an installed method, an extra dispatch hop) shows up
as a changed count, whatever the machine is doing. Run from the repository root::

    python benchmarks/bench_calls.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import symgrad as t  # noqa: E402

SPELLINGS = ("a + b", "a * 2.0", "a - b", "2.0 / a", "a.exp()", "t.exp(a)", "a.add(b)",
             "c + c", "a[0]", "a > 0", "a.sum()", "a.reshape(3, 1)", "(a * 1.0).add_(1.0)",
             "a @ a")


def calls(source: str, env: dict) -> int:
    """The functions entered while ``source`` runs once (the call of eval itself excluded)."""
    code = compile(source, "<spelling>", "eval")
    eval(code, env)  # warm-up: first-use caches (node classes ...) are not counted
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        eval(code, env)
    finally:
        sys.setprofile(None)
    return count - 1  # sys.setprofile(None) itself


def main() -> None:
    env = {"t": t, "a": t.ones(3, requires_grad=True), "b": t.ones(3), "c": t.ones(3)}
    print(f"symgrad {t.__version__} from {Path(t.__file__).parent}")
    print("calls per spelling (a requires grad, b and c do not; float32[3]):")
    for source in SPELLINGS:
        print(f"  {source:22s} {calls(source, env):4d}")


if __name__ == "__main__":
    main()
