"""Readable test ids: a parameter that is a lambda is named by its own source text
(``test_node_names[TanBackward0-x.tan()]``), not ``<lambda>3``, so a failing line says what it
ran."""

from __future__ import annotations

import ast
import functools
import linecache
import re
import types
from typing import Any

_MAX = 60


@functools.cache
def _lambdas(filename: str) -> tuple[str, list[ast.Lambda]]:
    source = "".join(linecache.getlines(filename))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source, []
    return source, [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)]


def lambda_source(fn: types.FunctionType) -> str | None:
    """The body of lambda ``fn`` as written in its file, on one line (None if not found)."""
    code = fn.__code__
    source, lambdas = _lambdas(code.co_filename)
    # (line, column) of every instruction that has one (RESUME and the like have (0, 0))
    positions = [(p[0], p[2]) for p in code.co_positions()
                 if None not in p and (p[2], p[3]) != (0, 0)]

    def contains(node: ast.Lambda) -> bool:
        body = node.body
        return all((body.lineno, body.col_offset) <= position
                   <= (body.end_lineno, body.end_col_offset) for position in positions)

    found = [node for node in lambdas if node.lineno == code.co_firstlineno and contains(node)]
    if not found or not positions:
        return None
    body = min(found, key=lambda node: (node.end_lineno - node.lineno,
                                        node.end_col_offset - node.col_offset)).body
    text = ast.get_source_segment(source, body)
    return re.sub(r"\s+", " ", text).strip() if text else None


def pytest_make_parametrize_id(config: Any, val: Any, argname: str) -> str | None:
    if isinstance(val, types.FunctionType) and val.__name__ == "<lambda>":
        text = lambda_source(val)
        if text:
            return text if len(text) <= _MAX else text[:_MAX - 3] + "..."
    return None
