"""The API reference's rendered docstrings, kept between builds (see hooks/cache.py).

mkdocstrings turns each ``::: posenc.name`` line of docs/reference/api/ into
HTML in two steps: it *collects* the object (griffe reads posenc's sources,
quickly, once per build) and *renders* it (Jinja templates, the docstrings
through Markdown, the signatures through Pygments). Rendering was a fifth of a
warm build. Its result depends only on the collected object, the options, and
the code and configuration that do the rendering, so it is kept under a key
of all of those:

* every file of ``posenc/`` and ``data/configs/`` (the docstrings, signatures
  and defaults), the whole of ``mkdocs.yml`` (the handler's options and the
  Markdown extensions that render docstrings), ``docs/includes/`` (the
  abbreviations every page gets) and this file;
* the versions of Python and of each distribution that takes part in
  rendering: mkdocstrings and its Python handler, griffe, Jinja, Markdown,
  PyMdown, Pygments, autorefs, MkDocs, Material, and the two formatters the
  handler may use for signatures (ruff, black).

An entry is one object: its HTML, and the headings its templates registered
for the table of contents, the cross-references and ``objects.inv``
(mkdocstrings collects these as a side effect of rendering; a kept entry
hands them back the same way, so everything after rendering runs as before).
Collecting still happens on every build, so a name that no longer exists
fails the build as it always did. A render that logged a warning is not kept,
so that ``--strict`` sees the warning on every build.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from hooks import cache

ROOT = Path(__file__).resolve().parent.parent
#: Distributions whose code takes part in rendering one object.
RENDERERS = (
    "mkdocstrings",
    "mkdocstrings-python",
    "griffelib",
    "jinja2",
    "markupsafe",
    "markdown",
    "pymdown-extensions",
    "pygments",
    "mkdocs-autorefs",
    "mkdocs",
    "mkdocs-material",
    "ruff",
    "black",
)
#: Loggers a render may warn through (griffe's docstring parser, mkdocstrings, MkDocs).
LOGGERS = ("", "mkdocs", "griffe", "mkdocstrings")


def key(root: Path = ROOT) -> str:
    """The generation key: everything above except the object and its options."""
    root = Path(root)
    return cache.digest(
        [
            cache.library_digest(root),
            cache.files_digest([root / "mkdocs.yml", root / "docs" / "includes"], root),
            Path(__file__).read_bytes(),
            cache.versions(*RENDERERS),
        ]
    )


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: set[int] = set()

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.add(id(record))


@contextmanager
def _watching() -> Iterator[_Warnings]:
    """Notes every warning logged meanwhile on any of :data:`LOGGERS`."""
    handler = _Warnings()
    loggers = [logging.getLogger(name) for name in LOGGERS]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


def _heading(data: Any) -> Element | None:
    """A heading element from its kept form, or None if the form is not one."""
    if not (isinstance(data, dict) and isinstance(data.get("tag"), str)):
        return None
    attrib, text = data.get("attrib"), data.get("text")
    if not isinstance(attrib, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in attrib.items()
    ):
        return None
    if text is not None and not isinstance(text, str):
        return None
    element = Element(data["tag"], attrib)
    element.text = text
    return element


def _kept_form(element: Element) -> dict[str, Any]:
    if len(element):  # mkdocstrings' headings hold text only; anything else is not kept
        raise ValueError("a heading with child elements")
    return {"tag": element.tag, "attrib": dict(element.attrib), "text": element.text}


class RenderCache:
    """Keeps what one mkdocstrings handler renders. ``base=None`` renders everything afresh."""

    def __init__(self, base: Path | None, root: Path = ROOT) -> None:
        self.folder = cache.generation(base, "api", key(root)) if base is not None else None
        self.kept: list[str] = []
        self.rendered: list[str] = []

    def wrap(self, handler: Any) -> None:
        """Make ``handler.render`` go through this cache (once per handler)."""
        if getattr(handler.render, "posenc_cached", False):
            return
        render: Callable[..., str] = handler.render

        def cached_render(data: Any, options: Any, locale: str | None = None) -> str:
            return self.render(handler, render, data, options, locale)

        cached_render.posenc_cached = True  # type: ignore[attr-defined]
        handler.render = cached_render

    def render(self, handler: Any, render: Callable[..., str], data, options, locale) -> str:
        name = str(getattr(data, "path", data))
        entry = None
        if self.folder is not None:
            entry = self.folder / (cache.digest([name, repr(options), str(locale)]) + ".json")
            kept = cache.read_json(entry)
            if kept is not None and isinstance(kept.get("html"), str):
                headings = [_heading(h) for h in kept.get("headings", ())]
                if isinstance(kept.get("headings"), list) and None not in headings:
                    handler._headings.extend(headings)
                    self.kept.append(name)
                    return kept["html"]
        before = len(handler._headings)
        with _watching() as warned:
            html = render(data, options, locale=locale)
        self.rendered.append(name)
        if entry is not None and not warned.seen:
            try:
                headings = [_kept_form(h) for h in handler._headings[before:]]
            except ValueError:
                return html
            cache.write_json(entry, {"html": html, "headings": headings})
        return html
