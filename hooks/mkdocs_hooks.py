"""The MkDocs adapter: each event hands data to a plain function and back.

Kept thin on purpose (see DESIGN.md): the registry, the proof runner, the
blocks, the citations, the SVG figures and the KaTeX renderer are plain Python
that tests call without MkDocs, so the site could move to another generator.
"""

from __future__ import annotations

import html
import logging
import os
import posixpath
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # MkDocs loads this file by path, not as part of a package
    sys.path.insert(0, str(ROOT))

from hooks import (  # noqa: E402
    a11y,
    abbreviations,
    apidoc,
    apiindex,
    bind,
    blocks,
    cache,
    cite,
    cli_reference,
    export,
    graph,
    highlight,
    katex,
    links,
    loading,
    notebooks,
    parts,
    printable,
    rawtex,
    registry,
    search_index,
    svg,
)
from proofs import runner  # noqa: E402

log = logging.getLogger("mkdocs.hooks.posenc")


@dataclass
class Build:
    """What one build knows: registry, proof results, sources, version."""

    registry: dict[int, registry.Proposition]
    parts: dict[str, parts.Part]
    results: dict[int, runner.Result]
    sources: dict[str, Any]
    version: str
    site_url: str
    docs: str
    by_page: dict[str, registry.Proposition] = field(default_factory=dict)
    values: dict[int, dict[str, bind.Value]] = field(default_factory=dict)
    renderer: katex.LastingRenderer | None = None
    has_bibliography: bool = False
    #: Where figures, notebooks and math are kept between builds (None: nowhere).
    cache: Path | None = None
    figures: svg.FigureCache | None = None
    api: apidoc.RenderCache | None = None
    highlights: highlight.LastingHighlights | None = None
    #: Our stylesheets, inlined into the pages that use them (hooks/loading.py).
    styles: dict[str, str] = field(default_factory=dict)
    #: KaTeX's font files and the classes that select them, for preloading (hooks/loading.py).
    faces: list[loading.Face] = field(default_factory=list)
    #: How many families' rows of the model atlas link to each proposition.
    atlas_citations: dict[int, int] = field(default_factory=dict)
    #: The blocks search does not index, kept aside while it reads the pages.
    hidden: search_index.Hidden = field(default_factory=search_index.Hidden)

    def state(self, entry: registry.Proposition) -> str:
        return blocks.status(entry, self.results, self.registry)


STATE: dict[str, Build] = {}


def _progress(index: int, total: int, path: Path, result: runner.Result | None) -> None:
    if result is None:
        log.info(f"proof {index}/{total}: Proposition {runner.number_of(path)} running")
    else:
        how = "cached" if result.cached else f"{result.seconds:.1f} s"
        log.info(
            f"proof {index}/{total}: Proposition {runner.number_of(path)} {result.status} ({how})"
        )


def uses_differ(entries, results) -> list[str]:
    """Where a proof's ``USES`` and its page's ``uses:`` name different propositions.

    The page's list draws the graph and the reading order; the proof's says what its
    argument leans on. Each is checked on its own (smaller numbers, no repeats); this
    keeps them one list.
    """
    out = []
    for number, entry in sorted(entries.items()):
        result = results.get(number)
        if result is None or entry.retired is not None:
            continue
        proof, page = sorted(int(u) for u in result.uses), sorted(entry.uses)
        if proof != page:
            out.append(
                f"{entry.page}: uses {page or 'nothing'}, but its proof's USES says"
                f" {proof or 'nothing'}; make them the same list"
            )
    return out


def on_config(config, **_):
    try:
        epoch = cite.source_epoch(ROOT)
    except ValueError as exc:
        raise PluginError(f"posenc: {exc}") from exc
    # MkDocs dates the sitemap by SOURCE_DATE_EPOCH, or else by the clock: give it ours.
    if not os.environ.get("SOURCE_DATE_EPOCH", "").strip():
        os.environ["SOURCE_DATE_EPOCH"] = str(epoch)
    docs = Path(config.docs_dir)
    try:
        entries = registry.load(docs, ROOT)
        registry.check_pages(docs)
        sources = registry.load_sources(docs / "sources.yml")
        groups = parts.load(docs)
    except (registry.RegistryError, parts.PartError) as exc:
        raise PluginError(_registry_message(exc)) from None
    problems = parts.check(groups, entries)
    if problems:
        raise PluginError(_registry_message(registry.RegistryError("\n".join(problems))))
    _part_nav(config, groups, entries)
    results = {r.number: r for r in runner.run(directory=ROOT / "proofs", progress=_progress)}
    runner.write_report(list(results.values()))
    failed = [r for r in results.values() if not r.passed]
    if failed:
        lines = [
            f"Proposition {r.number} ({r.title}): {line}" for r in failed for line in r.failures()
        ]
        raise PluginError(
            "posenc: a proof failed, so the site is not built:\n  " + "\n  ".join(lines)
        )
    missing = [n for n, e in entries.items() if e.retired is None and n not in results]
    if missing:
        raise PluginError(f"posenc: no proof result for proposition(s) {missing}")
    differ = uses_differ(entries, results)
    if differ:
        raise PluginError("posenc: " + "; ".join(differ))
    unknown = sorted(
        {f"{e.page}: {k}" for e in entries.values() for k in e.sources if k not in sources}
    )
    if unknown:
        raise PluginError("posenc: sources not in docs/sources.yml: " + "; ".join(unknown))
    values = bind.table(results)
    try:
        findings = bind.lint_site(docs, ROOT, results, entries=entries)
    except bind.BindError as exc:
        raise PluginError(f"posenc: {exc}") from exc
    if findings:
        raise PluginError(
            f"posenc: {len(findings)} number(s) on the pages are not bound to a check:\n  "
            + "\n  ".join(str(f) for f in findings)
        )
    entries = {n: bind.render_entry(e, values) for n, e in entries.items()}
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    config.extra["posenc_version"] = version
    kept = cache.directory(ROOT)
    _notebook_cache(config, kept)
    STATE["build"] = Build(
        cache=kept,
        values=values,
        registry=entries,
        parts=groups,
        results=results,
        sources=sources,
        version=version,
        site_url=config.site_url,
        by_page={e.page: e for e in entries.values()},
        docs=str(docs),
        highlights=highlight.LastingHighlights(kept).open(),
        atlas_citations=_atlas_citations(),
    )
    return config


def _atlas_citations() -> dict[int, int]:
    """From the committed record (hooks/atlas.py): none when it holds no zoo yet."""
    from hooks import atlas, conformance

    try:
        return atlas.citations(conformance.load(ROOT)[1])
    except (conformance.RecordError, atlas.AtlasError):
        return {}


#: The section of mkdocs.yml's nav that the parts fill.
PROPOSITIONS_NAV = "Propositions"


def _part_nav(config, groups, entries) -> None:
    """Append a section per part to the nav's Propositions section (hooks/parts.py)."""
    for item in config.nav or ():
        if isinstance(item, dict) and PROPOSITIONS_NAV in item:
            section = item[PROPOSITIONS_NAV]
            if not isinstance(section, list):
                section = item[PROPOSITIONS_NAV] = [section]
            listed = set(_nav_order(section))
            made = parts.nav(groups, entries)
            twice = sorted(listed & set(_nav_order(made)))
            if twice:
                raise PluginError(
                    f"posenc: mkdocs.yml lists {', '.join(twice)} under {PROPOSITIONS_NAV}, "
                    "where the parts put them (hooks/parts.py): remove them there"
                )
            section.extend(made)
            return
    raise PluginError(
        f"posenc: mkdocs.yml's nav has no section '{PROPOSITIONS_NAV}' for the parts to fill"
    )


#: What an executed notebook can depend on beyond its own bytes, which
#: mkdocs-jupyter hashes: the library, the data, and the kernel's stack.
NOTEBOOK_STACK = ("numpy", "matplotlib", "jupytext", "nbconvert", "nbclient", "ipykernel")


def _notebook_cache(config, base: Path | None) -> None:
    """Point mkdocs-jupyter's cache at a folder named by what the notebooks import."""
    plugin = config.plugins.get("mkdocs-jupyter")
    if plugin is None:
        return
    if base is None:
        plugin.config["cache"] = False
        return
    key = cache.digest([cache.library_digest(ROOT), cache.versions(*NOTEBOOK_STACK)])
    plugin.config["cache"] = True
    plugin.config["cache_dir"] = str(cache.generation(base, "notebooks", key))


def _registry_message(exc: registry.RegistryError) -> str:
    """One line per problem, under a line that says what they are problems of."""
    problems = str(exc).splitlines()
    if len(problems) == 1:
        return f"posenc registry: {problems[0]}"
    return f"posenc registry: {len(problems)} problems:\n  " + "\n  ".join(problems)


def _check_figures(
    entries: dict[int, registry.Proposition], kept: svg.FigureCache | None = None
) -> None:
    """Every figure a page names is a function of posenc.figures.

    A kept figure was drawn from this very library (its key hashes every file
    of posenc/), so it is one; the others are looked up, which imports
    matplotlib (half a second that a warm build no longer spends).
    """
    has = kept.has if kept is not None else lambda name: False
    named = [(e, f) for e in entries.values() for f in e.figures if not has(f.name)]
    if not named:
        return
    from posenc import figures

    unknown = [
        f"{e.page}: figures: {f.name} is not a function of posenc.figures"
        for e, f in named
        if not callable(getattr(figures, f.name, None))
    ]
    if unknown:
        raise PluginError("posenc registry: " + "; ".join(unknown))


def on_files(files, config, **_):
    build = STATE["build"]
    build.figures = svg.FigureCache(build.cache, ROOT)
    _check_figures(build.registry, build.figures)
    for entry in build.registry.values():
        for figure in entry.figures:
            if files.get_file_from_path(f"figures/{figure.name}.svg") is None:
                drawn = build.figures.svg(figure.name)
                files.append(File.generated(config, f"figures/{figure.name}.svg", content=drawn))
        target = "../../" + entry.url
        title = f"Proposition {entry.number}: {entry.title}"
        files.append(
            File.generated(
                config, f"{entry.permalink}index.html", content=svg.redirect_page(target, title)
            )
        )
    for source, dest in katex.katex_assets(ROOT):
        files.append(File.generated(config, dest, abs_src_path=str(source)))
    year = cite.year(ROOT)
    files.append(
        File.generated(
            config,
            "propositions.json",
            content=export.propositions_json(
                build.registry,
                build.results,
                build.sources,
                site_url=build.site_url,
                version=build.version,
                parts=build.parts,
            ),
        )
    )
    files.append(
        File.generated(
            config,
            "corpus.bib",
            content=export.corpus_bib(
                build.registry,
                build.results,
                site_url=build.site_url,
                version=build.version,
                year=year,
            ),
        )
    )
    csl = export.csl_files(
        build.registry,
        build.results,
        site_url=build.site_url,
        version=build.version,
        date=cite.source_date(ROOT),
    )
    for path, content in csl.items():
        files.append(File.generated(config, path, content=content))
    for page in list(files.documentation_pages()):
        if page.src_uri.startswith("notebooks/") and page.src_uri.endswith(".py"):
            ipynb = page.src_uri[: -len(".py")] + ".ipynb"
            content = notebooks.as_ipynb(Path(page.abs_src_path))
            files.append(File.generated(config, ipynb, content=content))
    build.has_bibliography = files.get_file_from_path("bibliography.md") is not None
    return files


def _url_root(page) -> str:
    """The relative path from a page's URL to the site root ('' or '../../')."""
    return "../" * page.url.count("/")


def _relative_root(src: str) -> str:
    """The relative path from a page's source file to the docs root ('' or '../')."""
    up = posixpath.relpath(".", posixpath.dirname(src) or ".")
    return "" if up == "." else up + "/"


def proposition_blocks(build: Build, entry: registry.Proposition, base: str) -> dict[str, str]:
    """Every generated block of one proposition page."""
    result = build.results.get(entry.number)
    state = build.state(entry)
    bib = f"{base}bibliography.md" if build.has_bibliography else None
    head = (
        blocks.retired_notice(entry, build.registry, base)
        if entry.retired is not None
        else blocks.statement_box(entry)
    )
    return {
        "statement": head,
        "status": blocks.status_line(entry, result, state),
        "checks": blocks.checks_table(result),
        "misreadings": blocks.misreadings_list(result),
        "relations": blocks.relations(
            entry, build.registry, base, build.atlas_citations.get(entry.number, 0)
        ),
        "sources": blocks.sources_list(entry, build.sources, bib),
        "cite": cite.cite_block(
            entry,
            site_url=build.site_url,
            version=build.version,
            date=cite.source_date(ROOT),
            note=cite.record(result, state),
            base=base,
            pin=cite.pinned(entry, Path(build.docs), build.version),
        ),
    }


#: The comment that opens each proposition on the printable page.
SOURCE_MARK = "posenc-source:"
SOURCE_MARK_RE = re.compile(rf"<!-- {SOURCE_MARK} (\S+) -->\n?")
CLOSED_DETAILS_RE = re.compile(r"<details(?![^>]*\sopen\b)(?=[\s>])")


def common_blocks(
    build: Build, base: str, src: str, url_base: str, wanted: set[str]
) -> dict[str, str]:
    """Blocks any page may use, each made only for a page whose markers ask for it.

    Every name is in the result (so that an unknown marker can be told from a
    known one); the graph's layout and the bibliography cost a tenth of a
    second each, which every page with a marker used to pay.
    """

    def cited_by() -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for entry in build.registry.values():
            for key in entry.sources:
                found.setdefault(key, []).append(
                    f"[Proposition {entry.number}]({base}{entry.page})"
                )
        return found

    def statuses() -> dict[int, str]:
        return {n: build.state(e) for n, e in build.registry.items()}

    makers = {
        "corpus": lambda: blocks.corpus_table(build.registry, build.results, base, build.parts),
        "version": lambda: f"This site is corpus version **{build.version}**.\n",
        "bibliography": lambda: blocks.bibliography(build.sources, cited_by()),
        "graph": lambda: graph.block(build.registry, statuses(), url_base, build.parts),
        "all": lambda: printable.PLACEHOLDER if src == PRINT_PAGE else "",
        "part": lambda: _part_contents(build, src, base),
        "questions": lambda: parts.questions(build.parts, build.registry, base),
        "api-index": lambda: apiindex.PLACEHOLDER if src == apiindex.INDEX else "",
        "cli": lambda: _cli_help() if src == CLI_PAGE else "",
        "history": lambda: (
            cite.history_block(Path(build.docs), build.version, base)
            if src == HISTORY_PAGE
            else ""
        ),
    }
    return {name: make() if name in wanted else "" for name, make in makers.items()}


def _part_contents(build: Build, src: str, base: str) -> str:
    part = next((p for p in build.parts.values() if p.page == src), None)
    if part is None:
        raise blocks.BlockError(f"{src}: <!-- posenc:part --> is only for a part's page")
    return parts.contents(part, build.registry, base)


PRINT_PAGE = "propositions/all.md"
KATEX_CSS = "assets/katex/katex.min.css"
CLI_PAGE = "reference/cli.md"
HISTORY_PAGE = "history.md"


def _cli_help() -> str:
    from posenc import cli

    return cli_reference.markdown(cli._parser())


def on_page_content(html, page, **_):
    # Before Material's search plugin reads the page (on_page_context).
    if notebooks.is_notebook(html):
        html = notebooks.settle(html)  # the index must not depend on how the kernel flushed
    html = highlight.lighten(abbreviations.first_only(html))
    try:
        html = loading.defer_sections(html)
    except ValueError as exc:
        log.warning("posenc: %s: sections not deferred: %s", page.file.src_uri, exc)
    return STATE["build"].hidden.hide(search_index.exclude_boilerplate(html))


@event_priority(-100)  # after Material's search plugin has read the page
def on_page_context(context, page, **_):
    build = STATE["build"]
    page.content = build.hidden.restore(page.content)
    if page.file.src_uri == PRINT_PAGE:
        pages = {
            number: posixpath.relpath(entry.url.rstrip("/"), page.url.rstrip("/")) + "/"
            for number, entry in build.registry.items()
        }
        try:
            page.content = printable.without_scripts(page.content, pages)
        except printable.PrintableError as exc:
            raise PluginError(f"posenc: {PRINT_PAGE}: {exc}") from None
    return context


def _escape_meta(page, build: Build, own: int | None) -> None:
    """The title and description, as the templates print them: as HTML, so escaped.

    Material puts ``page.meta.title`` into ``<title>`` and the header, and
    ``page.meta.description`` into an attribute, without escaping them.
    """
    if isinstance(page.meta.get("description"), str):
        description = bind.render(page.meta["description"], build.values, own, plain=True)
        page.meta["description"] = html.escape(" ".join(description.split()), quote=True)
    if isinstance(page.meta.get("title"), str):
        page.meta["title"] = html.escape(page.meta["title"].strip(), quote=True)


def on_page_markdown(markdown, page, config, files, **_):
    if page.file.src_uri.startswith(apiindex.FOLDER) and "mkdocstrings" in config.plugins:
        _keep_api(STATE["build"], config.plugins["mkdocstrings"])
    try:
        return _page_markdown(markdown, page)
    except (blocks.BlockError, bind.BindError) as exc:
        message = str(exc)
        if not message.startswith(page.file.src_uri):
            message = f"{page.file.src_uri}: {message}"
        raise PluginError(f"posenc: {message}") from None


def _keep_api(build: Build, plugin) -> None:
    """Route the Python handler's rendering through the build cache (hooks/apidoc.py)."""
    if build.api is None:
        build.api = apidoc.RenderCache(build.cache, ROOT)
    build.api.wrap(plugin.handlers.get_handler("python"))


def _page_markdown(markdown: str, page) -> str:
    build = STATE["build"]
    src = page.file.src_uri
    base = _relative_root(src)
    found = set(blocks.MARKER_RE.findall(markdown))
    entry = build.by_page.get(src)
    own = entry.number if entry is not None else None
    _escape_meta(page, build, own)
    if not found:
        return bind.render(markdown, build.values, own)
    # Raw HTML links are not rewritten by MkDocs: they go from the page's URL.
    url_base = _url_root(page)
    generated = common_blocks(build, base, src, url_base, found)
    if entry is not None:
        generated.update(proposition_blocks(build, entry, base))
        # Found first by search, and titled by its permanent number.
        page.meta.setdefault("search", {}).setdefault("boost", 4)
        # Read by overrides/main.html, which prints them as <meta> without escaping.
        tags = cite.scholar_tags(entry, site_url=build.site_url, date=cite.source_date(ROOT))
        page.meta["posenc_citation"] = [
            (name, html.escape(content, quote=True)) for name, content in tags
        ]
        markdown = blocks.numbered_title(markdown, entry)
    markdown = bind.render(blocks.fill(markdown, generated), build.values, own)
    return blocks.figure_alts(markdown, entry) if entry is not None else markdown


def _managed_styles(config, files) -> dict[str, str]:
    """The text of each stylesheet hooks/loading.py inlines, by its path in the site."""
    styles = {}
    for path in loading.STYLESHEETS:
        file = files.get_file_from_path(path)
        if file is not None:
            styles[path] = loading.site_css(path, file.content_string)
    if "mkdocstrings" in config.plugins and "assets/_mkdocstrings.css" not in styles:
        # Written by mkdocstrings after the build, from the handlers the pages used.
        seen = config.plugins["mkdocstrings"].handlers.seen_handlers
        text = "\n".join(handler.extra_css for handler in seen)
        styles["assets/_mkdocstrings.css"] = loading.site_css("assets/_mkdocstrings.css", text)
    return styles


def _nav_order(nav) -> list[str]:
    """The Markdown files of ``nav`` (mkdocs.yml's nav), in the order a reader meets them."""
    found: list[str] = []
    for item in nav or ():
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            found += _nav_order(value)
        elif isinstance(value, str) and value.endswith(".md"):
            found.append(value)
    return found


def _api_index(config, files) -> None:
    """The library reference's index page lists every name of its pages (hooks/apiindex.py)."""
    index = files.get_file_from_path(apiindex.INDEX)
    if index is None or index.page is None or index.page.content is None:
        return
    pages = []
    for src in _nav_order(config.nav):
        file = files.get_file_from_path(src)
        if apiindex.is_reference_page(src) and file is not None and file.page is not None:
            if file.page.content is None:
                raise PluginError(f"posenc: {apiindex.INDEX}: {src} was not rendered")
            url = apiindex.relative_url(index.page.url, file.page.url)
            pages.append((file.page.title, url, apiindex.names(file.page.content)))
    try:
        index.page.content = apiindex.fill(index.page.content, pages)
    except apiindex.ApiIndexError as exc:
        raise PluginError(f"posenc: {apiindex.INDEX}: {exc}") from None


def on_env(env, config, files, **_):
    """The printable page, from the proposition pages' HTML (see hooks/printable.py),
    and the library reference's index of names (hooks/apiindex.py)."""
    build = STATE["build"]
    build.styles = _managed_styles(config, files)
    katex_css = files.get_file_from_path(KATEX_CSS)
    build.faces = loading.katex_faces(katex_css.content_string) if katex_css else []
    _api_index(config, files)
    whole = files.get_file_from_path(PRINT_PAGE)
    if whole is None or whole.page is None or whole.page.content is None:
        return env
    pieces = []
    # Part by part, each in its reading order (one chapter each); retired numbers last.
    order = parts.reading_order(build.parts)
    order += [n for n in build.registry if n not in order]
    for number in order:
        entry = build.registry[number]
        file = files.get_file_from_path(entry.page)
        if file is None or file.page is None or file.page.content is None:
            raise PluginError(f"posenc: {PRINT_PAGE}: {entry.page} was not rendered")
        pieces.append((number, entry.page, file.page.content, file.page.toc))
    chapters = {part.order[0]: (f"part-{part.key}", part.heading) for part in build.parts.values()}
    try:
        whole.page.content, whole.page.toc = printable.assemble(
            whole.page.content, whole.page.toc, pieces, SOURCE_MARK, chapters
        )
    except printable.PrintableError as exc:
        raise PluginError(f"posenc: {PRINT_PAGE}: {exc}") from None
    return env


def on_post_page(output, page, config, **_):
    build = STATE["build"]
    if build.renderer is None:
        build.renderer = katex.LastingRenderer(build.cache, root=ROOT)
    try:
        if notebooks.is_notebook(output):
            name = page.file.src_uri.rsplit("/", 1)[-1].removesuffix(".py") + ".ipynb"
            output = notebooks.add_download_link(notebooks.clean(output), name)
            output = katex.render_notebook_math(output, build.renderer)
        before = output
        try:
            output = katex.render_math_in_html(output, build.renderer)
        except katex.KatexError as exc:
            raise PluginError(_katex_message(exc, before, page.file.src_uri, build)) from None
        for finding in rawtex.find(output):
            log.warning(
                f"posenc: {_rawtex_where(finding, output, page, build)}: "
                f"{rawtex.describe(finding)}"
            )
        if page.file.src_uri == PRINT_PAGE:
            output = SOURCE_MARK_RE.sub("", output)
            # Every collapsible block opens for print: those written in Markdown (???)
            # and those written as HTML (a widget's static version).
            output = CLOSED_DETAILS_RE.sub("<details open", output)
        output = a11y.repair(output)
        output = loading.preload_math_fonts(output, build.faces)
        return loading.own_assets(output, _url_root(page), build.styles)
    except (katex.KatexError, notebooks.NotebookPageError) as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from None


def on_post_template(output, template_name, config, **_):
    # 404.html: its links go from the site's root (it is served at any depth).
    build = STATE.get("build")
    if template_name != "404.html" or build is None:
        return output
    root = urlsplit(config.site_url or "/").path or "/"
    return loading.own_assets(output, root if root.endswith("/") else root + "/", build.styles)


def _origin(src: str, page_html: str, position: int | None) -> tuple[str, str]:
    """The page that wrote what stands at ``position`` of ``src``'s HTML, and a note.

    On the printable page, that is the proposition whose part holds it (the last
    source mark before it), noted as seen on the printable page; elsewhere ``src``.
    """
    if src == PRINT_PAGE and position is not None:
        marks = list(SOURCE_MARK_RE.finditer(page_html, 0, position))
        if marks:
            return marks[-1].group(1), f" (on the printable page {PRINT_PAGE})"
    return src, ""


def _katex_message(exc: katex.KatexError, page_html: str, src: str, build: Build) -> str:
    """'page:line: KaTeX cannot render ...', naming the page the formula was written on.

    On the printable page, that is the proposition whose part holds the
    formula; the line is the first line of that page's source with the formula
    on it (none when the formula was generated, say from a quantity).
    """
    origin, note = _origin(src, page_html, exc.position)
    line = _line_of(Path(build.docs) / origin, exc.tex)
    return f"{origin}{f':{line}' if line else ''}: {exc}{note}"


def _rawtex_where(finding: rawtex.Finding, page_html: str, page, build: Build) -> str:
    """'page:line' of a raw-TeX finding; on the printable page, the proposition's page."""
    origin, note = _origin(page.file.src_uri, page_html, finding.offset)
    path = Path(build.docs) / origin
    line = None
    if path.is_file() and path.suffix == ".md":
        line = rawtex.source_line(path.read_text(encoding="utf-8"), finding)
    return f"{origin}{f':{line}' if line else ''}{note}"


def _line_of(path: Path, tex: str) -> int | None:
    """The first line of ``path`` holding the first line of ``tex``."""
    first = tex.strip().splitlines()[0].strip() if tex.strip() else ""
    if not first or not path.is_file():
        return None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if first in line:
            return number
    return None


def on_post_build(config, **_):
    build = STATE.get("build")
    if build is not None:
        log.info(_cache_summary(build))
    _close(complete=True)
    if build is not None and build.cache is not None:
        for kind in ("figures", "notebooks", "katex", "api", "highlight"):
            cache.prune(build.cache, kind)
    for broken in links.check_site(Path(config.site_dir), config.site_url):
        log.warning(f"posenc: {broken}")


def on_build_error(error, **_):
    _close(complete=False)


def _cache_summary(build: Build) -> str:
    parts = []
    if build.figures is not None:
        parts.append(f"figures {len(build.figures.kept)} kept, {len(build.figures.drawn)} drawn")
    if build.renderer is not None:
        parts.append(f"math {build.renderer.found} kept, {build.renderer.rendered} rendered")
    if build.api is not None:
        parts.append(f"API {len(build.api.kept)} kept, {len(build.api.rendered)} rendered")
    if build.highlights is not None:
        code = build.highlights
        parts.append(f"code {code.found} kept, {code.highlighted} highlighted")
    parts.append("off (POSENC_BUILD_CACHE)" if build.cache is None else f"in {build.cache}")
    return "posenc build cache: " + "; ".join(parts)


def _close(complete: bool) -> None:
    build = STATE.get("build")
    if build is not None and build.renderer is not None:
        build.renderer.close(complete)
        build.renderer = None
    if build is not None and build.highlights is not None:
        build.highlights.close(complete)
