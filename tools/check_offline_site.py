"""Fail if a built site loads any script, style sheet, font or image from the internet.

Usage: ``python tools/check_offline_site.py site`` (after ``mkdocs build``). Links a reader
follows (``<a href>``) may point anywhere; what the browser fetches to show a page may not.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])((?:https?:)?//[^'")\s]+)""",
                     re.IGNORECASE)
FETCHED = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
           ("source", "src"), ("video", "src"), ("audio", "src"), ("embed", "src"),
           ("object", "data")}
LINK_RELS_NOT_FETCHED = {"canonical", "alternate", "author", "license", "help", "next", "prev",
                         "search", "me"}


class _Assets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.remote: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self._in_style = tag == "style"
        if tag == "link" and set((values.get("rel") or "").lower().split()) & LINK_RELS_NOT_FETCHED:
            return
        for name, value in attrs:
            if (tag, name) in FETCHED and value and REMOTE.match(value):
                self.remote.append(f"<{tag} {name}={value}>")
        self.remote += CSS_URL.findall(values.get("style") or "")

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.remote += CSS_URL.findall(data)


def remote_assets(site: Path) -> list[str]:
    """``file: asset`` for every internet asset the pages or the site's CSS would load."""
    found = []
    for page in sorted(site.rglob("*.html")):
        parser = _Assets()
        parser.feed(page.read_text(encoding="utf-8"))
        found += [f"{page.relative_to(site)}: {a}" for a in parser.remote]
    for sheet in sorted(site.rglob("*.css")):
        found += [f"{sheet.relative_to(site)}: {u}"
                  for u in CSS_URL.findall(sheet.read_text(encoding="utf-8"))]
    return found


def main(argv: list[str]) -> int:
    site = Path(argv[0] if argv else "site")
    if not (site / "index.html").is_file():
        print(f"{site}/index.html not found: build the site first (mkdocs build)")
        return 2
    found = remote_assets(site)
    for line in found:
        print(line)
    pages = len(list(site.rglob("*.html")))
    print(f"{pages} pages: {len(found)} asset(s) loaded from the internet")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
