"""How long the site takes to build: cold, warm, after editing one page, and plain Material.

Run from the repository root:

    python benchmarks/bench_build.py            # best of 3 for each warm kind, a few minutes
    python benchmarks/bench_build.py --runs 1   # quicker, noisier

Everything happens in a copy of the project in a temporary directory (the
working tree and its caches are not touched), one strict ``mkdocs build`` per
measurement, timed from outside (Python start-up and imports included: what an
author waits for):

1. **cold**: no proof results and no build cache: every proof runs, every
   figure is drawn, every notebook executed, every formula rendered.
2. **warm**: the same again, nothing changed.
3. **one page edited**: a sentence added to one proposition page, then built.
4. **plain Material**: the same pages, theme, extensions and nav, but no hooks,
   no notebooks and no API reference (``mkdocs-jupyter`` and ``mkdocstrings``
   removed): the floor for any build of these pages with this theme.

The ratios are to the plain build of the same run; the target (issue 15) is a
warm build at most 2x the plain one. The machine may be shared: each warm kind
is the best of ``--runs``, and the CPU time of the build beside its wall time.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.project import copy_project  # noqa: E402

EDITED = "docs/propositions/p08-shift-is-rotation.md"
TARGET = 2.0


def plain_config(project: Path) -> Path:
    """mkdocs.yml without the hooks, the notebook plugin and the API reference.

    Edited as text, not parsed: mkdocs.yml may carry YAML tags that only MkDocs
    resolves. Each edit is checked, so that a change to mkdocs.yml that makes
    it miss fails here rather than measuring the wrong build.
    """
    text = (project / "mkdocs.yml").read_text(encoding="utf-8")
    edits = [
        (r"(?m)^hooks:\n(?:  - .*\n)+", ""),
        (r"(?m)^  - mkdocs-jupyter:\n(?:      .*\n)+", ""),
        (r"(?m)^  - mkdocstrings:\n(?:      .*\n)+", ""),
        (r"(?m)^exclude_docs: \|\n", "exclude_docs: |\n  notebooks/\n  reference/api/\n"),
    ]
    for pattern, new in edits:
        text, count = re.subn(pattern, new, text, count=1)
        if count != 1:
            raise SystemExit(f"bench_build: mkdocs.yml no longer matches {pattern!r}")
    path = project / "mkdocs-plain.yml"
    path.write_text(text, encoding="utf-8")
    return path


def build(project: Path, site: Path, env: dict[str, str], config: str | None = None) -> tuple:
    """One build: (wall seconds, CPU seconds of the build and its children)."""
    command = [sys.executable, "-m", "mkdocs", "build", "-d", str(site)]
    command += ["-f", config] if config else ["--strict"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        said = done.stderr[-3000:]
        raise SystemExit(f"bench_build: build failed ({' '.join(command)}):\n{said}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="builds per warm kind (best kept)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="posenc-bench-build-") as tmp:
        work = Path(tmp)
        project = copy_project(work / "project", proof_cache=None)  # cold: no results
        plain = plain_config(project)
        env = {
            **os.environ,
            "NO_MKDOCS_2_WARNING": "1",
            "POSENC_PROOF_CACHE": str(work / "proof-cache"),
            "POSENC_BUILD_CACHE": str(work / "build-cache"),
            "SOURCE_DATE_EPOCH": os.environ.get("SOURCE_DATE_EPOCH", "1767225600"),
        }
        site = work / "site"
        print(f"posenc build benchmark: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
        print("cold build (no proof results, no build cache) ...", flush=True)
        times: dict[str, tuple[float, float]] = {"cold": build(project, site, env)}
        kinds = {"warm": None, "one page edited": None, "plain Material": str(plain)}
        for kind in kinds:
            best = None
            for run in range(args.runs):
                print(f"{kind} build {run + 1}/{args.runs} ...", flush=True)
                if kind == "one page edited":
                    page = project / EDITED
                    with page.open("a", encoding="utf-8") as out:
                        out.write(f"\nAn edit for the build benchmark, number {run}.\n")
                got = build(project, site, env, kinds[kind])
                best = got if best is None or got[0] < best[0] else best
            times[kind] = best
        floor = times["plain Material"][0]
        print()
        print(f"{'build':<18} {'wall s':>8} {'CPU s':>8} {'x plain':>8}")
        for kind, (wall, cpu) in times.items():
            print(f"{kind:<18} {wall:8.2f} {cpu:8.2f} {wall / floor:8.2f}")
        ratio = times["warm"][0] / floor
        verdict = "meets" if ratio <= TARGET else "misses"
        print(f"\nwarm / plain = {ratio:.2f}: {verdict} the target of at most {TARGET:g}x")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
