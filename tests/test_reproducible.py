"""Two builds of the same sources are the same bytes, wherever and whenever they run.

What used to differ between two builds with the proof cache cleared: the
order of the versions (and of every other mapping) in a fresh result and in a
cached one, the run's date and duration on every proposition page, in the
BibTeX and in ``propositions.json``, and on the notebook pages nbformat's random
cell ids and the pieces in which the kernel happened to flush what a cell
printed. The cheap tests below pin each of these down; the last one builds the
site from scratch in one checkout, with the build cache off
(``POSENC_BUILD_CACHE=off``), and compares every file with two builds in
another checkout that start from a copy of the repository's build cache
(hooks/cache.py): after a change every figure and notebook depends on, and
warm. So one cold build serves both this module and what
tests/test_build_cache.py asks of a real build.

The proof results come from the proof run in this repository (the one
``make test`` starts with, fresh in a fresh clone; content-keyed, see
proofs/runner.py), except that the first checkout runs the quick half of the
proofs afresh: a result made at one place and a result made at another, and a
fresh result and a kept one, must give the same pages. The slow half (a minute
of SymPy) is not run a second time here; a path can reach a result only
through what a proof reads or imports, which is the same for both halves.

That last test costs about two minutes on two cores. ``make test`` runs it; set
``POSENC_SKIP_FRESH_BUILDS=1`` to skip it locally.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hooks import blocks, cache, cite, export, notebooks, registry
from proofs import runner

ROOT = Path(__file__).resolve().parent.parent
EPOCH = "1767225600"  # 2026-01-01T00:00:00Z: any fixed value will do
SITE_URL = "https://posenc.github.io/"
NUMBER = 5  # a quick proof


@pytest.fixture(scope="module")
def fresh_and_cached(tmp_path_factory) -> tuple[runner.Result, runner.Result]:
    """One proof run now, and the same result read back from the cache."""
    cache = tmp_path_factory.mktemp("proof-cache")
    [fresh] = runner.run([NUMBER], cache_dir=cache)
    [cached] = runner.run([NUMBER], cache_dir=cache)
    assert not fresh.cached and cached.cached and cached.passed
    return fresh, cached


@pytest.fixture(scope="module")
def entries():
    return registry.load(ROOT / "docs", ROOT)


@pytest.fixture(scope="module")
def sources():
    return yaml.safe_load((ROOT / "docs" / "sources.yml").read_text(encoding="utf-8"))


def _as_json(result: runner.Result) -> str:
    """The result as JSON in its own key order (no sort_keys: order is what is tested)."""
    data = {k: v for k, v in result.as_dict().items() if k != "cached"}
    return json.dumps(data)


# -- fresh and cached results --------------------------------------------------------------


def test_a_fresh_and_a_cached_result_serialise_alike(fresh_and_cached):
    fresh, cached = fresh_and_cached
    assert list(fresh.versions) == sorted(fresh.versions)
    assert _as_json(fresh) == _as_json(cached)


def test_the_export_of_a_fresh_and_a_cached_result_is_the_same_bytes(
    fresh_and_cached, entries, sources
):
    records = [
        json.dumps(export.proposition_record(entries[NUMBER], r, "verified", sources, SITE_URL))
        for r in fresh_and_cached
    ]
    assert records[0] == records[1]


# -- no run date, no duration in anything the site publishes ----------------------------------


def _published(result: runner.Result, entries, sources) -> dict[str, str]:
    """Everything the build writes from one result, keyed by where it goes."""
    entry, state = entries[NUMBER], "verified with all dependencies"
    results = {NUMBER: result}
    return {
        "status line": blocks.status_line(entry, result, state),
        "checks table": blocks.checks_table(result),
        "misreadings": blocks.misreadings_list(result),
        "cite block": cite.cite_block(
            entry, site_url=SITE_URL, version="0.1.0", year="2026", note=cite.record(result, state)
        ),
        "propositions.json": export.propositions_json(
            {NUMBER: entry}, results, sources, site_url=SITE_URL, version="0.1.0"
        ),
        "corpus.bib": export.corpus_bib(
            {NUMBER: entry}, results, site_url=SITE_URL, version="0.1.0", year="2026"
        ),
    }


def _stamped(result: runner.Result, date: str, seconds: float) -> runner.Result:
    """``result`` as if it had run on ``date`` and every part had taken ``seconds``."""
    return dataclasses.replace(
        result,
        date=date,
        seconds=seconds,
        checks=[{**c, "seconds": seconds} for c in result.checks],
        misreadings=[{**m, "seconds": seconds} for m in result.misreadings],
    )


def test_pages_and_exports_do_not_depend_on_when_or_how_long_a_proof_ran(
    fresh_and_cached, entries, sources
):
    fresh, _ = fresh_and_cached
    early = _published(_stamped(fresh, "1999-09-09T09:09:09+00:00", 0.5), entries, sources)
    late = _published(_stamped(fresh, "2031-07-04T12:34:56+00:00", 8642.1357), entries, sources)
    differ = [name for name in early if early[name] != late[name]]
    assert not differ, f"the run's date or duration shows in: {', '.join(differ)}"
    for name, text in late.items():
        assert "2031" not in text and "8642" not in text, name


def test_the_corpus_bib_names_the_year_of_the_sources_not_of_the_run(
    fresh_and_cached, entries, sources
):
    fresh, _ = fresh_and_cached
    old_run = _stamped(fresh, "1999-09-09T09:09:09+00:00", 1.0)
    text = export.corpus_bib(
        {NUMBER: entries[NUMBER]}, {NUMBER: old_run}, site_url=SITE_URL, version="0", year="2026"
    )
    years = [line.split("=", 1)[1].strip(" {},") for line in text.splitlines() if "year " in line]
    assert years == ["2026", "2026"]


# -- the date of the sources ---------------------------------------------------------------


def test_the_year_comes_from_source_date_epoch(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "2000000000")  # 2033-05-18
    assert cite.year() == "2033"
    assert cite.source_date().isoformat() == "2033-05-18T03:33:20+00:00"


@pytest.mark.parametrize("raw", ["yesterday", "-5", "1.5", "17e8"])
def test_a_malformed_source_date_epoch_is_refused_by_name(monkeypatch, raw):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", raw)
    with pytest.raises(
        ValueError, match=r"SOURCE_DATE_EPOCH must be a whole number.*" + re.escape(raw)
    ):
        cite.source_epoch()


def _git(*args: str, cwd: Path) -> None:
    stamp = "@1800000000 +0000"  # 2027-01-15
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args]
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True, timeout=60)


def test_without_source_date_epoch_the_date_is_the_last_commits_never_the_clock(
    monkeypatch, tmp_path
):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    _git("init", "-q", cwd=checkout)
    _git("commit", "-q", "--allow-empty", "-m", "sources", cwd=checkout)
    assert cite.source_epoch(checkout) == 1800000000
    # A copy that is not a checkout, or sits inside someone else's: the documented 0.
    (checkout / "copy").mkdir()
    assert cite.source_epoch(checkout / "copy") == cite.FALLBACK_EPOCH == 0
    assert cite.year(tmp_path) == "1970"


def test_the_cache_directory_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("POSENC_PROOF_CACHE", str(tmp_path / "elsewhere"))
    assert runner.cache_directory() == (tmp_path / "elsewhere").resolve()
    [result] = runner.run([NUMBER])
    assert result.passed and not result.cached
    assert [p.name for p in (tmp_path / "elsewhere").iterdir()] == ["p05_bank_of_clocks.json"]
    monkeypatch.delenv("POSENC_PROOF_CACHE")
    assert runner.cache_directory() == ROOT / ".cache" / "proofs"


# -- notebook pages ------------------------------------------------------------------------

HEAD = "<script>\n(function (global, factory) {})</script>"


def _printed(text: str) -> str:
    """One block of printed text, as nbconvert writes a stream output."""
    return (
        '<div class="jp-OutputArea-child">\n'
        '<div class="jp-OutputPrompt jp-OutputArea-prompt"></div>\n'
        '<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain" '
        f'tabindex="0">\n<pre>{text}</pre>\n</div>\n</div>\n'
    )


def _result_block(text: str) -> str:
    """An execute result (``Out[n]``): not printed text, never joined."""
    return (
        '<div class="jp-OutputArea-child jp-OutputArea-executeResult">\n'
        '<div class="jp-OutputPrompt jp-OutputArea-prompt">Out[3]:</div>\n'
        '<div class="jp-RenderedText jp-OutputArea-output jp-OutputArea-executeResult" '
        f'data-mime-type="text/plain" tabindex="0">\n<pre>{text}</pre>\n</div>\n</div>\n'
    )


def _page(cell_ids: tuple[str, str], outputs: str) -> str:
    first, second = cell_ids
    return (
        HEAD + '<div class="jupyter-wrapper">'
        f'<div class="jp-Cell jp-CodeCell" id="cell-id={first}">'
        f'<div class="jp-OutputArea jp-Cell-outputArea">\n{outputs}</div></div>'
        f'<div class="jp-Cell jp-MarkdownCell" id="cell-id={second}"></div></div>'
    )


def test_a_notebook_page_does_not_depend_on_cell_ids_or_how_the_kernel_flushed():
    one_piece = _page(("dd4f38ed", "e4e6907e"), _printed("a = 1\nb = 2\nc = 3\n"))
    three_pieces = _page(
        ("b02bb9e4", "1be022a6"), _printed("a = 1\n") + _printed("b = 2\n") + _printed("c = 3\n")
    )
    assert notebooks.clean(one_piece) == notebooks.clean(three_pieces)
    settled = notebooks.settle(three_pieces)
    assert settled.count("<pre>") == 1 and "<pre>a = 1\nb = 2\nc = 3\n</pre>" in settled
    assert 'id="nb-cell-1"' in settled and 'id="nb-cell-2"' in settled
    assert "cell-id=" not in settled
    assert notebooks.settle(settled) == settled


def test_printed_text_is_not_joined_across_an_execute_result():
    outputs = _printed("before\n") + _result_block("42") + _printed("after\n")
    settled = notebooks.settle(_page(("x1", "x2"), outputs))
    assert settled.count("<pre>") == 3 and "Out[3]:" in settled


# -- the whole site, twice, from scratch ---------------------------------------------------


def _checkout_files() -> list[str]:
    """The files a fresh clone would hold, as they are in this working tree."""
    done = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    if done.returncode != 0:
        pytest.skip(f"{ROOT} is not a git checkout: nothing to copy the sources from")
    names = [n for n in done.stdout.decode().split("\0") if n]
    return [n for n in names if (ROOT / n).is_file()]  # not what was deleted, not submodules


def _copy_checkout(files: list[str], dest: Path) -> Path:
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    # The npm packages (KaTeX) are installed, not tracked: share the installed ones.
    (dest / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    return dest


class _Build:
    """A strict build of ``checkout`` into ``site``, started now; :meth:`said` waits for it.

    ``build_cache=None`` turns the build cache off: every figure, notebook and
    formula is made in this build.
    """

    def __init__(self, checkout: Path, site: Path, proofs: Path, build_cache: Path | None):
        env = {
            **os.environ,
            "SOURCE_DATE_EPOCH": EPOCH,
            "POSENC_PROOF_CACHE": str(proofs),
            cache.CACHE_ENV: "off" if build_cache is None else str(build_cache),
            "PYTHONPATH": str(checkout),  # this copy's posenc, hooks and proofs, not ROOT's
            "NO_MKDOCS_2_WARNING": "1",
        }
        self.checkout = checkout
        # To a file, not a pipe: two builds run at once, and neither may block on a full pipe.
        self.log = site.with_name(site.name + ".log")
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                cwd=checkout,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # so that stop() ends what it started, too
            )

    def stop(self) -> None:
        """Kill the build if it is still running (nothing, if it has ended)."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait()

    def said(self) -> str:
        """Everything the build printed, once it has succeeded."""
        try:
            code = self.process.wait(timeout=1800)  # a guard against a hang, not a speed limit
        finally:
            self.stop()
        said = self.log.read_text(encoding="utf-8", errors="replace")
        assert code == 0, f"the build in {self.checkout} failed:\n{said[-4000:]}"
        return said


def _build(checkout: Path, site: Path, proofs: Path, build_cache: Path | None) -> str:
    """A strict build, waited for; returns everything it printed."""
    return _Build(checkout, site, proofs, build_cache).said()


def _summary(said: str) -> tuple[int, int, int, int]:
    """(figures kept, figures drawn, formulas kept, formulas rendered), as the build said."""
    found = re.search(
        r"posenc build cache: figures (\d+) kept, (\d+) drawn; math (\d+) kept, (\d+) rendered",
        said,
    )
    assert found, said[-2000:]
    return tuple(int(x) for x in found.groups())


def _digests(site: Path) -> dict[str, str]:
    return {
        p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(site.rglob("*"))
        if p.is_file()
    }


def _first_difference(left: Path, right: Path) -> str:
    a = left.read_bytes().decode("utf-8", "replace").splitlines()
    b = right.read_bytes().decode("utf-8", "replace").splitlines()
    for number, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            start = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), 0)
            start = max(0, start - 60)
            return f"line {number}: {x[start : start + 160]!r} vs {y[start : start + 160]!r}"
    return f"one is a prefix of the other ({len(a)} and {len(b)} lines)"


def _same_files(left: Path, right: Path, what: str) -> None:
    """Every file of one site is in the other, with the same bytes."""
    one, other = _digests(left), _digests(right)
    only = sorted(set(one) ^ set(other))
    assert not only, f"{what}: files in one site only: {only}"
    differ = [name for name in one if one[name] != other[name]]
    details = [f"{name}: {_first_difference(left / name, right / name)}" for name in differ]
    assert not differ, f"{what}: {len(differ)} file(s) differ:\n  " + "\n  ".join(details[:20])


#: A proof whose result in the repository's cache took less than this many seconds is
#: run afresh in the first checkout (about half the corpus, some ten seconds in all).
QUICK = 1.0


def _quick_proofs(proofs: Path) -> list[str]:
    """The cache entries of ``proofs`` (file stems) whose run took under QUICK seconds."""
    quick = []
    for entry in sorted(proofs.glob("p*.json")):
        try:
            seconds = json.loads(entry.read_text())["result"]["seconds"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a damaged entry is a miss for the runner, too: it runs afresh anyway
        if seconds < QUICK:
            quick.append(entry.stem)
    return quick


@pytest.mark.build
@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("POSENC_SKIP_FRESH_BUILDS", "") not in ("", "0"),
    reason="POSENC_SKIP_FRESH_BUILDS is set: a cold build and two more take minutes",
)
def test_a_cold_build_and_builds_from_the_cache_in_another_checkout_are_byte_identical(
    tmp_path,
):
    """A cold build, and builds from the build cache in another checkout, give the same bytes.

    The second checkout builds with the build cache off: every figure drawn,
    every formula rendered, every notebook run, the API reference and the code
    made afresh. The first checkout, at another path and depth, builds twice
    with a copy of the repository's build cache (hooks/cache.py), the one the
    strict build of ``make test`` filled just before (cold, in a fresh clone):

    1. after a change under data/configs, which changes no page but is part of what
       every figure and notebook depends on: every figure is drawn and every
       notebook run again, the math kept; the quick half of the proofs
       (:data:`QUICK`) runs afresh here, and so do the two that read
       data/configs (the change is in their key); the rest is taken from the
       repository's proof cache, as the second checkout takes all of them;
    2. warm: nothing drawn, rendered or executed.

    Each must be the cold build's bytes: neither the place of the
    checkout nor the cache may show in a page, nor whether a figure, a formula,
    a notebook or a proof result was made in this build or kept from another.
    (The repository's proof results were made in the repository: a path that
    leaked into a result would make the proofs run afresh in the first checkout
    differ from them, and so the pages.)
    """
    files = _checkout_files()
    proofs_here = runner.cache_directory()
    cache_here = cache.directory(ROOT)
    # Two different places, at different depths: no absolute path may leak into a page.
    first = _copy_checkout(files, tmp_path / "first" / "posenc")
    second = _copy_checkout(files, tmp_path / "second" / "deeper" / "another-name")
    first_proofs, second_proofs = tmp_path / "proofs-first", tmp_path / "proofs-second"
    first_proofs.mkdir()
    second_proofs.mkdir()
    if proofs_here.is_dir():
        for destination in (first_proofs, second_proofs):
            shutil.copytree(proofs_here, destination, dirs_exist_ok=True)
    quick = _quick_proofs(first_proofs)
    for stem in quick:
        (first_proofs / f"{stem}.json").unlink()
    build_cache = tmp_path / "build-cache"
    if cache_here is not None and cache_here.is_dir():
        shutil.copytree(cache_here, build_cache)

    # A new file under data/configs changes no figure, but the cache cannot know that:
    # every figure is drawn and every notebook run again; the math stays.
    (first / "data" / "configs" / "an-edit-for-the-cache-test.txt").write_text("x\n")

    # The cold build, the longest, runs meanwhile.
    uncached = _Build(second, tmp_path / "uncached", second_proofs, None)
    try:
        edited = _build(first, tmp_path / "edited", first_proofs, build_cache)
        report = json.loads((first / "build" / "proofs-report.json").read_text())
        fresh = {Path(p["file"]).stem for p in report["propositions"] if not p["cached"]}
        assert set(quick) <= fresh, "the quick proofs ran afresh in the first checkout"
        assert all(p["seconds"] > 0 and p["date"] for p in report["propositions"])
        kept, drawn, found, rendered = _summary(edited)
        assert kept == 0 and drawn > 0 and found > 0, _summary(edited)
        assert rendered == 0, (
            f"{rendered} formulas were not in the repository's build cache: it is older than "
            "the pages (make test builds the site before it runs the tests)"
        )
        assert "Cache miss, writing" in edited and "Cache hit" not in edited, "every notebook ran"

        warm = _build(first, tmp_path / "warm", first_proofs, build_cache)
        assert _summary(warm) == (drawn, 0, found, 0), "nothing drawn, nothing rendered"
        assert "Cache hit" in warm and "Cache miss" not in warm, "no notebook executed"
    except BaseException:  # a failure above must not leave the other build running
        uncached.stop()
        raise

    cold = uncached.said()
    assert _summary(cold) == (0, drawn, 0, found), "the cache was off: everything made"
    for name in ("edited", "warm"):
        _same_files(tmp_path / "uncached", tmp_path / name, f"the cold build and the {name} one")
