"""Record the graphs PyTorch builds for the calls of tests/test_graph_parity.py.

    python tools/record_torch_graphs.py     # rewrite the RECORDED table of that test module

Needs torch: each case of the module's ``CASES`` runs with ``torch`` and
``torch.nn.functional`` in place of symgrad, and the module's own ``chain`` describes the
graph, so the table holds what torch records; the test then runs the same calls on symgrad
without torch.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULE = ROOT / "tests" / "test_graph_parity.py"
START, END = "# --- recorded chains ---\n", "# --- end ---"


def _entry(case: str, text: str) -> list[str]:
    head = f'    "{case}": '
    if len(head) + len(text) + 3 <= 100:
        return [f'{head}"{text}",']
    parts = textwrap.wrap(text, 88, break_long_words=False, drop_whitespace=False)
    lines = [f"{head}(", *(f'        "{part}"' for part in parts)]
    lines[-1] += "),"
    return lines


def main() -> None:
    import torch
    import torch.nn.functional as torch_functional

    sys.path.insert(0, str(ROOT))  # the module imports this checkout's symgrad
    spec = importlib.util.spec_from_file_location("graph_parity", MODULE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lines = ["RECORDED = {"]
    for case, call in module.CASES.items():
        lines += _entry(case, module.chain(call(torch, torch_functional)))
    lines.append("}")
    source = MODULE.read_text()
    start = source.index(START) + len(START)
    end = source.index(END)
    MODULE.write_text(source[:start] + "\n".join(lines) + "\n" + source[end:])
    print(f"{len(module.CASES)} graphs recorded with torch {torch.__version__}")


if __name__ == "__main__":
    main()
