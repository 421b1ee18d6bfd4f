"""mkdocs hooks: the site's own copies of KaTeX and Mermaid, and the generated reference.

- ``on_config``: makes sure ``tools/web/node_modules`` holds the exact KaTeX and Mermaid pinned in
  ``tools/web/package-lock.json`` (runs ``npm ci`` when it does not). No CDN: the built site
  renders math and graphs offline.
- ``on_files``: adds the few files the site needs from those packages under ``assets/vendor/``.
- ``on_page_markdown``: replaces the marker comments ``<!-- symgrad:NAME -->`` with tables
  generated from the code (``tools/docs_reference.py``), so the reference cannot drift.
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from pathlib import Path

from mkdocs.structure.files import File, Files

TOOLS = Path(__file__).resolve().parent
WEB = TOOLS / "web"
MODULES = WEB / "node_modules"
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))

import docs_reference  # noqa: E402
import import_graph  # noqa: E402

log = logging.getLogger("mkdocs.hooks.symgrad")

# (package, file inside it, where the site serves it)
VENDORED = [
    ("katex", "dist/katex.min.js", "assets/vendor/katex/katex.min.js"),
    ("katex", "dist/katex.min.css", "assets/vendor/katex/katex.min.css"),
    ("katex", "dist/contrib/auto-render.min.js", "assets/vendor/katex/auto-render.min.js"),
    ("mermaid", "dist/mermaid.min.js", "assets/vendor/mermaid/mermaid.min.js"),
]
FONTS = ("katex", "dist/fonts", "assets/vendor/katex/fonts")  # katex.min.css loads fonts/...

# a marker is a line of its own (one quoted in prose or a table is left alone)
MARKER = re.compile(r"^<!--\s*symgrad:(?P<name>[a-z-]+)(?:\s+(?P<arg>[\w.]+))?\s*-->[ \t]*$",
                    re.MULTILINE)


def pinned_versions() -> dict[str, str]:
    return json.loads((WEB / "package.json").read_text())["dependencies"]


def installed_version(package: str) -> str | None:
    manifest = MODULES / package / "package.json"
    return json.loads(manifest.read_text())["version"] if manifest.is_file() else None


def ensure_web_assets() -> None:
    """``npm ci`` in tools/web unless the pinned versions are already installed there."""
    if all(installed_version(p) == v for p, v in pinned_versions().items()):
        return
    log.info("installing KaTeX and Mermaid from tools/web/package-lock.json (npm ci)")
    subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund",
                    "--loglevel=error"], cwd=WEB, check=True)


def on_config(config):
    ensure_web_assets()
    fill_tutorials_nav(config)
    return config


def fill_tutorials_nav(config) -> None:
    """The nav's ``Tutorials: []`` lists the pages of docs/tutorials/ in file-name order, so
    that a tutorial appears once its file exists."""
    pages = sorted(Path(config["docs_dir"], "tutorials").glob("*.md"))
    for i, item in enumerate(config["nav"] or []):
        if isinstance(item, dict) and item.get("Tutorials") == []:
            config["nav"][i] = {"Tutorials": [f"tutorials/{p.name}" for p in pages]}


def on_files(files: Files, config) -> Files:
    entries = [(MODULES / pkg / src, dest) for pkg, src, dest in VENDORED]
    pkg, fonts, dest_dir = FONTS
    entries += [(font, f"{dest_dir}/{font.name}")
                for font in sorted((MODULES / pkg / fonts).iterdir())]
    for source, dest in entries:
        files.append(File.generated(config, dest, abs_src_path=str(source)))
    return files


GENERATORS = {
    "ops-coverage": lambda arg: docs_reference.coverage_table(),
    "conventions": lambda arg: docs_reference.conventions_table(),
    "convention-rules": lambda arg: docs_reference.convention_rules_table(),
    "ties": lambda arg: docs_reference.ties_table(),
    "api": lambda arg: docs_reference.api_markdown(arg),
    "tensor-methods": lambda arg: docs_reference.tensor_methods_markdown(),
    "import-graph": lambda arg: import_graph.mermaid(),
}


def on_page_markdown(markdown: str, page, config, files) -> str:
    def replace(match: re.Match) -> str:
        generator = GENERATORS.get(match["name"])
        if generator is None:
            raise ValueError(f"{page.file.src_uri}: unknown marker {match[0]}")
        return generator(match["arg"])

    return MARKER.sub(replace, markdown)


TABLE_CELL = re.compile(r"<td>(.*?)</td>", re.DOTALL)
TAG = re.compile(r"(<[^>]*>)")
NAME_BREAK = re.compile(r"(?<=_)(?=\w)|(?<=\.)(?=[A-Za-z_])|(?<=[a-z])(?=[A-Z])")


def on_page_content(html: str, page, config, files) -> str:
    """Mark where names in table cells may break (see docs/stylesheets/extra.css): the text
    between tags gets ``<wbr>`` after "_", after a "." before a letter, and inside camelCase."""

    def cell(match: re.Match) -> str:
        pieces = TAG.split(match[1])
        return "<td>" + "".join(piece if piece.startswith("<") else NAME_BREAK.sub("<wbr>", piece)
                                for piece in pieces) + "</td>"

    return TABLE_CELL.sub(cell, html)
