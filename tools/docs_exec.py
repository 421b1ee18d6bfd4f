"""Run the ``python`` blocks of the docs' pages and compare what they print with the page.

The format (see ``docs/README.md``): in a page, every fence whose info string is exactly ``python``
is executed; all such blocks of one page run in order in one fresh namespace, with the working
directory at the repository root. A block is followed (only blank lines between) by an output fence
(```` ```text ````, ```` ```mermaid ```` or ```` ```math ````) holding exactly what it prints, or it
prints nothing. A block that raises shows, in a ``text`` fence, its stdout, then
``Traceback (most recent call last):``, then the exception line(s) as doctest does; only the
traceback's first line and the final ``Type: message`` are compared. A warning the block raises
shows where it happens as a ``Category: message`` line of the output. Comparison ignores trailing
whitespace, writes memory addresses ``0x...`` and rounding-level error figures (``error
1.7e-18``: any figure below 1e-12, 0 included, after the word ``error``; they differ between
CPUs and numpy builds) ``error <1e-12`` on both sides; nothing else is normalized.

Usage::

    python tools/docs_exec.py                        # check every docs/**/*.md
    python tools/docs_exec.py docs/tutorials/foo.md  # check one page: diff + exit 1 on mismatch
    python tools/docs_exec.py --update docs/x.md     # rewrite the output fences (then READ them)
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import difflib
import importlib
import io
import os
import re
import sys
import traceback
import types
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
EXECUTED = "python"
OUTPUT_KINDS = ("text", "mermaid", "math")
TRACEBACK_HEADER = "Traceback (most recent call last):"

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# a gradient check's error at the level of float64 rounding (its last digits depend on the machine)
_ROUNDING = re.compile(r"\berror (?:0(?![.\d])|\d(?:\.\d+)?e-(?:1[2-9]|[2-9]\d|\d{3})\b)")


@dataclasses.dataclass
class Fence:
    """One fenced code block of a page: lines ``start`` (the opening fence) to ``end`` (closing)."""

    start: int  # 0-based line index of the opening fence
    end: int  # 0-based line index of the closing fence (len(lines) if unclosed)
    indent: str
    marker: str
    info: str
    body: str  # dedented content, ending with a newline unless empty

    @property
    def kind(self) -> str:
        return self.info.strip()


def parse_fences(lines: list[str]) -> list[Fence]:
    """Every top-level fenced block of a page (fences inside fences are content)."""
    fences = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m or (m["fence"][0] == "`" and "`" in m["info"]):
            i += 1
            continue
        indent, marker = m["indent"], m["fence"]
        close = re.compile(rf"^[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        body = "".join(_dedent(line, indent) for line in lines[i + 1:j])
        fences.append(Fence(i, j, indent, marker, m["info"], body))
        i = j + 1
    return fences


def _dedent(line: str, indent: str) -> str:
    return line[len(indent):] if line.startswith(indent) else line.lstrip(" \t")


@dataclasses.dataclass
class Block:
    """An executed ``python`` fence and the output fence that follows it, if any."""

    code: Fence
    output: Fence | None


def executed_blocks(lines: list[str], fences: list[Fence]) -> list[Block]:
    blocks = []
    for k, fence in enumerate(fences):
        if fence.kind != EXECUTED:
            continue
        nxt = fences[k + 1] if k + 1 < len(fences) else None
        between = lines[fence.end + 1: nxt.start] if nxt else []
        if nxt and nxt.kind in OUTPUT_KINDS and all(not s.strip() for s in between):
            blocks.append(Block(fence, nxt))
        else:
            blocks.append(Block(fence, None))
    return blocks


@dataclasses.dataclass
class Run:
    """What one block printed, and the exception it raised (``None`` if it did not)."""

    stdout: str
    exception: str | None  # "Type: message" as traceback.format_exception_only gives it
    full_traceback: str | None

    def rendered(self) -> str:
        """The output fence's content for this run (the ``--update`` text)."""
        if self.exception is None:
            return self.stdout
        out = self.stdout
        if out and not out.endswith("\n"):
            out += "\n"
        return f"{out}{TRACEBACK_HEADER}\n  ...\n{self.exception}"


def normalize(text: str) -> list[str]:
    lines = [_ROUNDING.sub("error <1e-12", _ADDRESS.sub("0x...", line.rstrip()))
             for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _split_expected(text: str) -> tuple[list[str], list[str] | None]:
    """Expected stdout lines, and the expected exception lines (None if no traceback shown)."""
    lines = normalize(text)
    if TRACEBACK_HEADER not in lines:
        return lines, None
    at = lines.index(TRACEBACK_HEADER)
    rest = lines[at + 1:]
    # The frames (indented lines, "  ..." included) end where the exception line starts.
    k = 0
    while k < len(rest) and (rest[k].startswith((" ", "\t")) or not rest[k]):
        k += 1
    return lines[:at], rest[k:]


def matches(expected: str, run: Run) -> bool:
    want_out, want_exc = _split_expected(expected)
    if run.exception is None:
        return want_exc is None and want_out == normalize(run.stdout)
    return want_exc == normalize(run.exception) and want_out == normalize(run.stdout)


@contextlib.contextmanager
def _page_environment():
    """Repository root as cwd and on ``sys.path``; global library state restored afterwards."""
    cwd, path = os.getcwd(), list(sys.path)
    saved = _global_state()
    os.chdir(REPO)
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    try:
        yield
    finally:
        os.chdir(cwd)
        sys.path[:] = path
        _restore_global_state(saved)


def _global_state() -> dict:
    state: dict = {}
    if "numpy" in sys.modules:
        state["numpy"] = sys.modules["numpy"].get_printoptions()
    if "symgrad" in sys.modules:
        sg = sys.modules["symgrad"]
        printing = importlib.import_module("symgrad.numeric.printing")  # (loads on first use)
        state["symgrad"] = (printing.get_printoptions(), sg.get_default_dtype(),
                            sg.is_grad_enabled())
    return state


def _restore_global_state(state: dict) -> None:
    if "numpy" in sys.modules:
        np = sys.modules["numpy"]
        np.set_printoptions(**state.get("numpy", np.get_printoptions()))
    if "symgrad" in state:
        sg = sys.modules["symgrad"]
        printopts, dtype, grad = state["symgrad"]
        sg.set_printoptions(**printopts)
        sg.set_default_dtype(dtype)
        sg.set_grad_enabled(grad)


@contextlib.contextmanager
def _warnings_into(buffer: io.StringIO):
    """Show the warnings a block raises in its output, as ``Category: message`` lines where
    they happen, so that a page shows (and the test compares) them instead of letting them
    reach the test run's output."""

    def show(message, category, filename, lineno, file=None, line=None):
        buffer.write(f"{category.__name__}: {message}\n")

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def execute(path: Path, blocks: list[Block]) -> list[Run]:
    """Run the blocks of one page, in order, in one fresh module namespace."""
    module = types.ModuleType("__docs_page__")
    module.__file__ = str(path)
    namespace = module.__dict__
    runs = []
    with _page_environment():
        # symgrad installs warning filters when first imported: import it here, not inside a
        # block's catch_warnings, which would undo them when the block ends
        import symgrad  # noqa: F401
        previous = sys.modules.get(module.__name__)
        sys.modules[module.__name__] = module  # dataclasses, pickle... look their module up here
        try:
            for block in blocks:
                # Pad so that tracebacks point at the page's own line numbers.
                source = "\n" * (block.code.start + 1) + block.code.body
                buffer = io.StringIO()
                exception = full = None
                try:
                    code = compile(source, _display_path(path), "exec")
                    with contextlib.redirect_stdout(buffer), _warnings_into(buffer):
                        exec(code, namespace)
                except Exception as exc:  # noqa: BLE001 - the page shows it
                    exception = "".join(traceback.format_exception_only(exc)).rstrip("\n")
                    # Drop this function's own frame: the traceback starts in the page.
                    tb = exc.__traceback__.tb_next if exc.__traceback__ else None
                    full = "".join(traceback.format_exception(type(exc), exc, tb))
                runs.append(Run(buffer.getvalue(), exception, full))
        finally:
            if previous is None:
                sys.modules.pop(module.__name__, None)
            else:
                sys.modules[module.__name__] = previous
    return runs


def _display_path(path: Path) -> str:
    """``path`` relative to the repository when inside it: what pages print as file names
    (node sites, tracebacks) must not depend on where the checkout lives."""
    resolved = path.resolve()
    return str(resolved.relative_to(REPO)) if resolved.is_relative_to(REPO) else str(path)


def _where(path: Path, line: int) -> str:
    return f"{_display_path(path)}:{line + 1}"


def check_page(path: Path) -> list[str]:
    """One message per failing block of the page at ``path`` (empty: the page is right)."""
    path = Path(path).resolve()
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    fences = parse_fences(lines)
    problems = [f"{_where(path, f.start)}: unclosed code fence" for f in fences
                if f.end >= len(lines)]
    blocks = executed_blocks(lines, fences)
    for block, run in zip(blocks, execute(path, blocks), strict=True):
        where = _where(path, block.code.start)
        if block.output is None:
            if run.exception is not None:
                problems.append(f"{where}: the python block raised, and no output fence shows "
                                f"it:\n{run.full_traceback}")
            elif normalize(run.stdout):
                problems.append(f"{where}: the python block prints, but no output fence "
                                f"(```text, ```mermaid or ```math) follows it; it printed:\n"
                                f"{run.stdout}")
            continue
        if matches(block.output.body, run):
            continue
        want, got = normalize(block.output.body), normalize(run.rendered())
        diff = "\n".join(difflib.unified_diff(want, got, "page", "actual", lineterm=""))
        message = f"{where}: output differs (fence at line {block.output.start + 1})\n{diff}"
        if run.exception is not None:
            message += f"\n\nThe block raised:\n{run.full_traceback}"
        problems.append(message)
    return problems


def update_page(path: Path) -> bool:
    """Rewrite the output fences of the page with what its blocks print, until they settle
    (a grown fence moves the lines that later blocks report); True if the page changed."""
    changed = False
    for _ in range(5):
        if not _update_once(path):
            return changed
        changed = True
    raise RuntimeError(f"{_where(Path(path), 0)}: the output does not settle after 5 updates")


def _update_once(path: Path) -> bool:
    path = Path(path).resolve()
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    blocks = executed_blocks(lines, parse_fences(lines))
    runs = execute(path, blocks)
    # Edit from the bottom up so that earlier line numbers stay valid.
    for block, run in reversed(list(zip(blocks, runs, strict=True))):
        out = block.output
        if out is not None and matches(out.body, run):
            continue
        content = run.rendered()
        if out is None and not normalize(content):
            continue
        indent = block.code.indent
        if not normalize(content):  # prints nothing now: drop the fence and the blank lines
            del lines[block.code.end + 1: out.end + 1]
            continue
        kind = out.kind if out is not None and run.exception is None else "text"
        marker = out.marker if out is not None else "```"
        body = [f"{indent}{line}".rstrip() + "\n" for line in normalize(content)]
        fence = [f"{indent}{marker}{kind}\n", *body, f"{indent}{marker}\n"]
        if out is None:
            lines[block.code.end + 1: block.code.end + 1] = ["\n", *fence]
        else:
            lines[out.start: out.end + 1] = fence
    new = "".join(lines)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def pages(root: Path = DOCS) -> list[Path]:
    """Every page of the docs, sorted."""
    return sorted(root.rglob("*.md"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path,
                        help="markdown pages (default: every docs/**/*.md)")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the output fences with what the blocks print")
    args = parser.parse_args(argv)
    targets = args.pages or pages()
    for page in targets:
        if not page.is_file():
            parser.error(f"no such page: {page}")
    failed = 0
    for page in targets:
        if args.update:
            if update_page(page):
                print(f"updated {page} (read the new outputs before committing)")
        problems = check_page(page)
        for problem in problems:
            print(problem, end="\n\n")
        failed += bool(problems)
    if failed:
        print(f"{failed} of {len(targets)} page(s) failed")
        return 1
    print(f"{len(targets)} page(s) ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
