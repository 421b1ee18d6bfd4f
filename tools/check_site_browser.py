"""Open every page of a built site in headless Chromium at 1280 px and fail on what a reader
would see broken: horizontal overflow (of the page, or of a code block, formula or table that
needs a scrollbar), a formula KaTeX could not render, a Mermaid diagram that did not draw.

Usage: ``python tools/check_site_browser.py site`` (after ``mkdocs build``; needs Debian's
``chromium``). Each page is served from localhost with a probe script added; Chromium runs the
page's own scripts (KaTeX, Mermaid), then the probe writes what it measured into the page, which
``--dump-dom`` returns. Standard library only.
"""

from __future__ import annotations

import argparse
import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

WIDTH = 1280
PROBE_NAME = "__layout_probe.js"
REPORT = re.compile(r'<pre id="__layout_report">(.*?)</pre>', re.DOTALL)

# Runs before the page's scripts (first in <head>): Material draws each Mermaid diagram into a
# closed shadow root of its div.mermaid, which the probe opens to look inside. After the page
# loaded, it waits for the diagrams, then measures.
PROBE = r"""
(function () {
  var attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    return attach.call(this, Object.assign({}, init, { mode: "open" }));
  };
  function diagramsPending() {
    return Array.from(document.querySelectorAll("div.mermaid, pre.mermaid")).filter(function (el) {
      var root = el.shadowRoot || el;
      return !root.querySelector("svg");
    });
  }
  function describe(el) {
    var text = (el.textContent || "").trim().replace(/\s+/g, " ");
    return el.tagName.toLowerCase() + "." + (el.className || "").toString().split(" ")[0]
      + ": " + text.slice(0, 80);
  }
  function measure() {
    var problems = [];
    var page = document.documentElement;
    if (page.scrollWidth > window.innerWidth + 1) {
      problems.push("the page is " + page.scrollWidth + " px wide at " + window.innerWidth + " px");
    }
    var scrollers = document.querySelectorAll(".md-typeset pre > code, "
      + ".md-typeset .katex-display, .md-typeset__scrollwrap, .md-typeset table");
    scrollers.forEach(function (el) {
      if (el.offsetParent === null) { return; }  // hidden (an inactive tab)
      if (el.scrollWidth > el.clientWidth + 1) {
        problems.push("overflows by " + (el.scrollWidth - el.clientWidth) + " px: " + describe(el));
      }
    });
    document.querySelectorAll(".katex-error").forEach(function (el) {
      problems.push("KaTeX error: " + (el.getAttribute("title") || describe(el)));
    });
    document.querySelectorAll(".arithmatex").forEach(function (el) {
      if (!el.querySelector(".katex")) { problems.push("formula not rendered: " + describe(el)); }
    });
    diagramsPending().forEach(function (el) {
      problems.push("Mermaid diagram not rendered: " + describe(el));
    });
    document.querySelectorAll("div.mermaid, pre.mermaid").forEach(function (el) {
      var root = el.shadowRoot || el;
      if (/Syntax error/i.test(root.textContent || "")) {
        problems.push("Mermaid syntax error: " + describe(el));
      }
    });
    var report = document.createElement("pre");
    report.id = "__layout_report";
    report.textContent = JSON.stringify(problems);
    document.body.appendChild(report);
  }
  var waited = 0;
  function poll() {
    if (diagramsPending().length && waited < 10000) { waited += 100; setTimeout(poll, 100); }
    else { setTimeout(measure, 200); }
  }
  window.addEventListener("load", function () { setTimeout(poll, 100); });
})();
"""


def _serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, int]:
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("check_site_browser: no chromium found (Debian: apt-get install chromium)")


def _dump(browser: str, url: str, profile: str) -> str:
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
               f"--window-size={WIDTH},900", "--virtual-time-budget=20000", "--dump-dom", url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    return done.stdout


def check_site(site: Path, only: str | None = None) -> dict[str, list[str]]:
    """Every page's problems (pages without problems are left out); ``only``: the pages whose
    path under ``site`` contains it."""
    pages = sorted(p for p in site.rglob("*.html") if p.name != "404.html"
                   and (only is None or only in p.relative_to(site).as_posix()))
    if not pages:
        sys.exit(f"check_site_browser: no pages under {site}")
    browser = _chromium()
    found: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "site"
        shutil.copytree(site, copy)
        (copy / PROBE_NAME).write_text(PROBE, encoding="utf-8")
        for page in pages:
            target = copy / page.relative_to(site)
            text = target.read_text(encoding="utf-8")
            target.write_text(text.replace("<head>", f'<head><script src="/{PROBE_NAME}">'
                                           "</script>", 1), encoding="utf-8")
        server, port = _serve(copy)
        try:
            for page in pages:
                relative = page.relative_to(site).as_posix()
                dom = _dump(browser, f"http://127.0.0.1:{port}/{relative}",
                            os.path.join(tmp, "profile"))
                match = REPORT.search(dom)
                problems = (json.loads(html.unescape(match.group(1))) if match
                            else ["the page did not finish loading (no probe report)"])
                if problems:
                    found[relative] = problems
        finally:
            server.shutdown()
    return found


# A page with one problem of each kind, for --self-test: the checker must report all three.
BROKEN_PAGE = """<!doctype html><html><head><title>broken</title>
<style>pre > code {{ display: block; overflow: auto; }}</style></head><body>
<div class="md-typeset"><pre><code>{long}</code></pre>
<span class="katex-error" title="ParseError: KaTeX parse error: Undefined control sequence">
\\nosuchmacro</span>
<div class="mermaid"></div></div></body></html>"""


def self_test() -> int:
    """Check the checker: a planted overflow, KaTeX error and undrawn diagram are all found."""
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        (site / "index.html").write_text(BROKEN_PAGE.format(long="x" * 400), encoding="utf-8")
        problems = check_site(site).get("index.html", [])
    expected = ("overflows by", "KaTeX error", "Mermaid diagram not rendered")
    missed = [kind for kind in expected if not any(p.startswith(kind) for p in problems)]
    print(f"self-test: {len(problems)} planted problem(s) found" +
          (f"; MISSED {missed}" if missed else ""))
    return 1 if missed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, nargs="?", help="the built site (mkdocs build's site/)")
    parser.add_argument("--only", help="check only the pages whose path contains this text")
    parser.add_argument("--self-test", action="store_true",
                        help="check that planted problems are reported, then exit")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    if args.site is None:
        parser.error("the site directory is required")
    found = check_site(args.site, args.only)
    for page, problems in found.items():
        print(f"{page}:")
        for problem in problems:
            print(f"  {problem}")
    pages = len([p for p in args.site.rglob("*.html") if p.name != "404.html"
                 and (args.only is None or args.only in p.relative_to(args.site).as_posix())])
    print(f"{pages} pages opened at {WIDTH} px: "
          f"{sum(map(len, found.values()))} problem(s) on {len(found)} page(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
