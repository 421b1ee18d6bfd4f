"""symgrad's reST-ish docstrings as Markdown (for the docs' API reference), without changing
them in the code.

- ``:func:`lower``` (any Sphinx role) becomes the code span ``lower``;
- doctest examples (a ``>>>`` line up to the next blank line) become ``pycon`` code blocks;
- ``Name::`` followed by an indented block (reST's literal block) becomes a code block.
``double backticks`` are already a Markdown code span.

Used by the griffe extension (``griffe_docstrings.py``) and by the pages rendered by hand
(``docs_reference.py``); imports nothing beyond the standard library.
"""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`~?([^`]+)`")


def markdown_docstring(text: str) -> str:
    """The docstring ``text`` rewritten as Markdown (see the module docstring)."""
    text = ROLE.sub(r"``\1``", text)
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent)
                             else lines[i].strip())
                i += 1
            block = ["" if b.strip() == "<BLANKLINE>" else b for b in block]  # doctest's marker
            out += [f"{indent}```pycon", *(f"{indent}{b}" for b in block), f"{indent}```"]
            continue
        if line.rstrip().endswith("::") and not line.strip().startswith((">>>", "-")):
            out.append(line.rstrip()[:-1])  # "Usage::" reads "Usage:"
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            base = len(line) - len(stripped)
            block = []
            while j < len(lines) and (not lines[j].strip()
                                      or len(lines[j]) - len(lines[j].lstrip()) > base):
                block.append(lines[j])
                j += 1
            while block and not block[-1].strip():
                block.pop()
            if block:
                inner = min(len(b) - len(b.lstrip()) for b in block if b.strip())
                out += ["", " " * base + "```python",
                        *(" " * base + b[inner:] for b in block), " " * base + "```", ""]
                i = j
                continue
        out.append(line)
        i += 1
    return "\n".join(out)
