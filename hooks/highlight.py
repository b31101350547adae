"""Highlighted code blocks, kept between builds (see hooks/cache.py).

Every proposition page shows its proof script, highlighted by Pygments
through PyMdown's ``highlight`` extension: a fifth of a warm build went to
highlighting the same scripts again. A block's HTML is a function of its
source text, its language and options (the arguments of
``pymdownx.highlight.Highlight.highlight``), the extension's settings and the
versions of Pygments and PyMdown, so it is kept under all of those, in one
JSON file per generation, as the math is (hooks/katex.py). Inline code
(``inlinehilite``) is left to the extension: it is cheap, and it returns a
tree element, not text.

While a build runs, :meth:`LastingHighlights.open` routes the extension's
method through the open cache; :meth:`close` writes it back, keeping the
blocks this build used, and stops routing. Nothing else changes: a block not
kept is highlighted by the extension itself.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from hooks import cache

ROOT = Path(__file__).resolve().parent.parent

#: The cache the patched method uses; None outside a build.
_OPEN: LastingHighlights | None = None


def _settings(highlighter: Any) -> str:
    """The extension's settings that shape its output (not its Markdown instance)."""
    return repr(sorted((k, v) for k, v in vars(highlighter).items() if k != "md"))


def _route() -> None:
    """Wrap ``Highlight.highlight`` once per process; the wrapper asks :data:`_OPEN`."""
    from pymdownx.highlight import Highlight

    if getattr(Highlight.highlight, "posenc_kept", False):
        return
    original = Highlight.highlight

    @functools.wraps(original)
    def highlight(self, src, language, *args, **kwargs):
        lasting = _OPEN
        inline = kwargs.get("inline", args[5] if len(args) > 5 else False)
        if lasting is None or inline:
            return original(self, src, language, *args, **kwargs)
        return lasting.block(original, self, src, language, args, kwargs)

    highlight.posenc_kept = True  # type: ignore[attr-defined]
    Highlight.highlight = highlight


class LastingHighlights:
    """The highlighted blocks of the builds so far. ``base=None`` keeps nothing."""

    def __init__(self, base: Path | None) -> None:
        self.path: Path | None = None
        self._kept: dict[str, str] = {}
        if base is not None:
            key = cache.digest(
                [Path(__file__).read_bytes(), cache.versions("pygments", "pymdown-extensions")]
            )
            self.path = cache.generation(base, "highlight", key) / "blocks.json"
            self._kept = cache.read_strings(self.path)
        self._used: dict[str, str] = {}
        #: How many blocks were found kept, and how many highlighted, in this build.
        self.found = 0
        self.highlighted = 0

    def open(self) -> LastingHighlights:
        global _OPEN
        _route()
        _OPEN = self
        return self

    def block(self, original, highlighter, src, language, args, kwargs) -> str:
        name = cache.digest(
            [_settings(highlighter), src, repr(language), repr(args), repr(sorted(kwargs.items()))]
        )
        done = self._used.get(name)
        if done is None:
            done = self._kept.get(name)
            if done is not None:
                self.found += 1
            else:
                done = original(highlighter, src, language, *args, **kwargs)
                self.highlighted += 1
            self._used[name] = done
        return done

    def close(self, complete: bool = True) -> None:
        """Stop routing, and keep the blocks (all seen so far if the build stopped part way)."""
        global _OPEN
        if _OPEN is self:
            _OPEN = None
        self._kept = cache.keep_used(self.path, self._kept, self._used, complete)


# -- fewer elements for the same colours ------------------------------------------------
#
# Pygments puts every token in a span of its class: a proof script is 3 000 to
# 5 000 spans, parsed with every proposition page although its block is closed.
# Two kinds of span change nothing on screen, and go: a name (``n``), whose
# colour in Material's themes is the colour of the code around it (its
# ``--md-code-hl-name-color`` is ``--md-code-fg-color``; tests/test_reading.py
# checks it in both palettes), and whitespace (``w``). Neighbouring spans of the
# same class become one span. The text, and so what the copy button copies, is
# unchanged.

#: Classes whose span looks exactly like the code around it.
PLAIN = ("n", "w")
_CODE = re.compile(r"(<code\b[^>]*>)(.*?)(</code>)", re.S)
_PLAIN_SPAN = re.compile(rf'<span class="(?:{"|".join(PLAIN)})">([^<]*)</span>')
_TWINS = re.compile(r'<span class="([^"]+)">([^<]*)</span><span class="\1">([^<]*)</span>')


def _lighter_code(code: str) -> str:
    code = _PLAIN_SPAN.sub(r"\1", code)
    while True:
        merged = _TWINS.sub(r'<span class="\1">\2\3</span>', code)
        if merged == code:
            return code
        code = merged


def lighten(page_html: str) -> str:
    """``page_html`` with the spans of its code that show nothing taken out (see above)."""
    return _CODE.sub(lambda m: m.group(1) + _lighter_code(m.group(2)) + m.group(3), page_html)
