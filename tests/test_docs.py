"""Every page under docs/ runs through tools/docs_exec.py, so the docs cannot rot.

The harness itself is tested on small pages written to a temporary directory.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


docs_exec = _load("docs_exec", REPO / "tools" / "docs_exec.py")
PAGES = docs_exec.pages()


def test_docs_have_pages():
    assert REPO / "docs" / "index.md" in PAGES


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_page(page):
    problems = docs_exec.check_page(page)
    assert not problems, "\n\n".join(problems)


# --- the source document's behaviours are taught in tutorials 1-4 ------------------------

# the source document's behaviours: a copy of the blog post's behaviour table, kept in the
# repository so that a fresh clone can run this test
SEED = REPO / "tests" / "data" / "SEED.md"
SEED_TUTORIALS = sorted((REPO / "docs" / "tutorials").glob("0[1-4]-*.md"))


def _seed_rows() -> list[str]:
    assert SEED.is_file(), f"{SEED} (the source document's behaviours) is missing"
    return re.findall(r"^\|\s*(S\d+)\s*\|", SEED.read_text(encoding="utf-8"), re.MULTILINE)


def test_every_seed_row_is_demonstrated_in_tutorials_1_to_4():
    rows = _seed_rows()
    assert rows[0] == "S1" and len(rows) == len(set(rows)) >= 14, rows
    assert [p.name[:2] for p in SEED_TUTORIALS] == ["01", "02", "03", "04"]
    # a marker line <!-- S7 --> directly above (blank lines allowed) the python block showing it
    shown = {}
    for page in SEED_TUTORIALS:
        lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
        code_starts = {f.start for f in docs_exec.parse_fences(lines) if f.kind == "python"}
        for i, line in enumerate(lines):
            m = re.fullmatch(r"<!--\s*(S\d+)\s*-->\s*", line)
            if m:
                j = i + 1
                while j < len(lines) and not lines[j].strip():
                    j += 1
                assert j in code_starts, f"{page.name}:{i + 1}: {m[1]} marks no python block"
                shown.setdefault(m[1], []).append(page.name)
    missing = [r for r in rows if r not in shown]
    assert not missing, f"rows of SEED.md not demonstrated in tutorials 1-4: {missing}"
    assert not set(shown) - set(rows), f"markers of no SEED.md row: {set(shown) - set(rows)}"


# --- the harness -------------------------------------------------------------------------

def _page(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "page.md"
    path.write_text(textwrap.dedent(text).replace("'''", "```"), encoding="utf-8")
    return path


def test_matching_page_passes_and_blocks_share_one_namespace(tmp_path):
    page = _page(tmp_path, """\
        Prose.

        '''python
        x = 2
        '''

        '''python
        print(x + 1)
        '''

        '''text
        3
        '''

        '''py
        this is displayed only, never run
        '''
    """)
    assert docs_exec.check_page(page) == []


def test_mismatch_is_reported_with_a_diff(tmp_path):
    page = _page(tmp_path, """\
        '''python
        print(1 + 1)
        '''

        '''text
        3
        '''
    """)
    [problem] = docs_exec.check_page(page)
    assert "page.md:1: output differs (fence at line 5)" in problem
    assert "-3" in problem and "+2" in problem
    assert docs_exec.main([str(page)]) == 1


def test_exception_is_compared_by_its_last_line(tmp_path):
    page = _page(tmp_path, """\
        '''python
        print("before")
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
        '''

        '''text
        before
        Traceback (most recent call last):
          File "whatever", line 99, in <module>
            anything here is ignored
        RuntimeError: grad can be implicitly created only for scalar outputs
        '''
    """)
    assert docs_exec.check_page(page) == []
    wrong = _page(tmp_path, page.read_text().replace("RuntimeError:", "ValueError:"))
    [problem] = docs_exec.check_page(wrong)
    assert "+RuntimeError: grad can be implicitly" in problem


def test_raising_without_a_traceback_fence_fails(tmp_path):
    page = _page(tmp_path, """\
        '''python
        1 / 0
        '''
    """)
    [problem] = docs_exec.check_page(page)
    assert "raised" in problem and "ZeroDivisionError" in problem


def test_addresses_and_trailing_whitespace_are_normalized(tmp_path):
    page = _page(tmp_path, """\
        '''python
        print(object())
        print("end   ")
        '''

        '''text
        <object object at 0x7f00deadbeef>
        end
        '''
    """)
    assert docs_exec.check_page(page) == []


def test_rounding_level_error_figures_are_normalized(tmp_path):
    """A gradient check's float64 rounding differs between CPUs: below 1e-12 (or 0) after the
    word ``error``, figures compare equal; larger ones, and other numbers, do not."""
    page = _page(tmp_path, """\
        '''python
        print("max abs error 1.7e-18, max rel error 0, error 0.5, error 2e-11")
        '''

        '''text
        max abs error 0, max rel error 3.6e-16, error 0.5, error 2e-11
        '''
    """)
    assert docs_exec.check_page(page) == []
    wrong = _page(tmp_path, """\
        '''python
        print("error 0.5, error 2e-11")
        '''

        '''text
        error 0.25, error 3e-11
        '''
    """)
    assert len(docs_exec.check_page(wrong)) == 1


def test_unfenced_printing_block_fails(tmp_path):
    page = _page(tmp_path, """\
        '''python
        print("hello")
        '''

        Prose between the block and a text fence: the fence is not its output.

        '''text
        hello
        '''
    """)
    [problem] = docs_exec.check_page(page)
    assert "prints, but no output fence" in problem


def test_cwd_is_the_repository_root_and_fences_may_be_indented(tmp_path):
    page = _page(tmp_path, """\
        === "Tab"

            '''python
            import os
            print(os.path.isfile("pyproject.toml"))
            '''

            '''math
            True
            '''
    """)
    assert docs_exec.check_page(page) == []


def test_update_rewrites_and_inserts_output_fences(tmp_path):
    page = _page(tmp_path, """\
        '''python
        print("new")
        '''

        '''mermaid
        old
        '''

        '''python
        print("added")
        '''

        '''python
        int("x")
        '''
    """)
    assert docs_exec.update_page(page)
    text = page.read_text()
    assert "```mermaid\nnew\n```" in text
    assert "print(\"added\")\n```\n\n```text\nadded\n```" in text
    assert ("```text\nTraceback (most recent call last):\n  ...\n"
            "ValueError: invalid literal for int() with base 10: 'x'\n```") in text
    assert docs_exec.check_page(page) == []
    assert not docs_exec.update_page(page)


# --- the generated reference and the offline check ---------------------------------------

sys.path.insert(0, str(REPO / "tools"))
docs_reference = _load("docs_reference", REPO / "tools" / "docs_reference.py")
check_offline_site = _load("check_offline_site", REPO / "tools" / "check_offline_site.py")


def _table_rows(markdown: str) -> dict[str, list[list[str]]]:
    rows: dict[str, list[list[str]]] = {}
    for line in markdown.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.setdefault(cells[0].strip("`"), []).append(cells)
    return rows


def test_coverage_table_lists_every_registry_op_once():
    from symgrad.ops import REGISTRY

    rows = _table_rows(docs_reference.coverage_table())
    assert set(rows) == set(REGISTRY)
    assert all(len(r) == 1 for r in rows.values())
    assert rows["exp"][0][1] == "`ExpBackward0`"
    assert "`Tensor.exp`" in rows["exp"][0][2] and "`symgrad.exp`" in rows["exp"][0][2]
    assert "`F.mse_loss`" in rows["mse_loss"][0][2]
    assert rows["cat"][0][3] == "joint" and rows["clamp"][0][4] == "explicit `lower`"


def test_conventions_are_computed_from_the_declared_kinks():
    rows = _table_rows(docs_reference.conventions_table())
    # | op | node | params | point | left | right | used |
    assert rows["relu"] == [["`relu`", "`ReluBackward0`", "—", "0", "0", "1", "0"]]
    assert rows["abs"][0][3:] == ["0", "-1", "1", "0"]
    assert ["-0.5", "0", "1", "1"] in [r[3:] for r in rows["clamp"]]
    assert rows["floor"][0][3:] == ["-2, -1, 0, 1, 2", "jump", "0", "0"]


# README's hand-written table ("The same gradient, as a formula"), checked against the
# generated one: op, the point, the gradient README states.
README_CLAIMS = [("relu", "0", "0"), ("abs", "0", "0"), ("sign", "0", "0"),
                 ("clamp", "-0.5", "1"), ("clamp", "0.5", "1"), ("hardtanh", "-1", "0"),
                 ("hardtanh", "1", "0"), ("leaky_relu", "0", "0.01"), ("elu", "0", "1"),
                 ("floor", "0", "0"), ("ceil", "0", "0"), ("round", "0.5", "0"),
                 ("trunc", "0", "0")]


def test_readme_conventions_table_agrees_with_the_generated_one():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for row in ("| `relu` | x = 0 | 0 |", "| `abs`, `sign` | x = 0 | 0 |",
                "| `clamp` / `clip` | x = min or x = max | 1 (passes) |",
                "| `hardtanh`, `relu6` | at the bounds | 0 |",
                "| `floor`, `ceil`, `round`, `trunc` | everywhere | 0 |",
                "| `maximum`, `minimum` | ties | ½ to each input |",
                "| `max(dim)`, `min(dim)` | ties | all to the returned index |"):
        assert row in readme, row
    rows = _table_rows(docs_reference.conventions_table())
    for op, point, used in README_CLAIMS:
        assert any(point in r[3].split(", ") and r[6] == used for r in rows[op]), (op, point)
    ties = {r[0][0]: r[0][2] for r in _table_rows(docs_reference.ties_table()).values()}
    assert ties["`symgrad.maximum(x, c)`"] == "`[0.5, 0, 1]`"  # ½ to each tied input
    assert ties["`x.max(dim=0).values`"] == "`[1, 0, 0]`"  # all to the returned index
    assert ties["`x.max()`"] == "`[0.5, 0, 0.5]`"  # split evenly


def test_api_pages_cover_every_public_name():
    import symgrad

    text = docs_reference.api_markdown("symgrad.symbolic")
    for name in symgrad.symbolic.__all__:
        assert f"symgrad.symbolic.{name}" in text, name
    methods = docs_reference.tensor_methods_markdown()
    assert "Tensor.tan" in methods and "Tensor.logsumexp" in methods


def test_offline_check_finds_remote_assets(tmp_path):
    (tmp_path / "index.html").write_text(
        '<link rel="stylesheet" href="https://cdn.example/k.css">'
        '<link rel="canonical" href="https://example.org/">'
        '<a href="https://example.org">a link is fine</a>'
        '<script src="//cdn.example/m.js"></script><script src="assets/local.js"></script>')
    (tmp_path / "s.css").write_text("@font-face{src:url(https://fonts.example/f.woff2)}")
    found = check_offline_site.remote_assets(tmp_path)
    assert found == ["index.html: <link href=https://cdn.example/k.css>",
                     "index.html: <script src=//cdn.example/m.js>",
                     "s.css: https://fonts.example/f.woff2"]
    assert check_offline_site.main([str(tmp_path)]) == 1
