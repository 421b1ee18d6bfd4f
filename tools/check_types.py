"""Type-check symgrad's public API with mypy, and check that the checker catches wrong calls.

``tests/typecheck/public_api.py`` (code a user writes) must type-check cleanly;
``tests/typecheck/bad_calls.py`` must get an error on every line marked ``# error:``, and on
no other line. Configuration: ``[tool.mypy]`` in pyproject.toml.
Usage: ``python tools/check_types.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BAD = REPO / "tests" / "typecheck" / "bad_calls.py"


def _mypy(*args: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "mypy", *args], cwd=REPO, capture_output=True,
                          text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def main() -> int:
    code, out = _mypy()
    if code != 0:
        print(f"mypy found errors in the public API usage:\n{out}")
        return 1
    _, out = _mypy(str(BAD.relative_to(REPO)))
    reported = {int(n) for n in re.findall(rf"{re.escape(BAD.name)}:(\d+): error", out)}
    marked = {k for k, line in enumerate(BAD.read_text().splitlines(), 1) if "# error:" in line}
    if reported != marked:
        print(f"mypy should report exactly the lines marked '# error:' in {BAD.name}: "
              f"missed {sorted(marked - reported)}, unexpected {sorted(reported - marked)}\n{out}")
        return 1
    print(f"types: the public API checks clean; all {len(marked)} wrong calls are caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
