"""griffe extension: symgrad's docstrings rewritten as Markdown
(:func:`docstring_markdown.markdown_docstring`) as mkdocstrings loads them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from griffe import Extension, Object

# griffe loads this file by path, without tools/ on sys.path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from docstring_markdown import markdown_docstring  # noqa: E402


class SymgradDocstrings(Extension):
    """Rewrite every loaded object's docstring with :func:`markdown_docstring`."""

    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
