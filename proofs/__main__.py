"""``python -m proofs [N ...]``: run the proofs, print a table, write a JSON report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from proofs import runner


def _progress(stream):
    def show(index: int, total: int, path: Path, result: runner.Result | None) -> None:
        label = f"[{index}/{total}] Proposition {runner.number_of(path)}"
        if result is None:
            print(f"{label} ({path.name}) ...", file=stream, flush=True)
            return
        checks = sum(c["passed"] for c in result.evidence)
        refuted = sum(m["refuted"] for m in result.misreadings)
        how = "cached" if result.cached else f"{result.seconds:.1f} s"
        print(
            f"{label}: {result.status}, {checks}/{len(result.evidence)} checks, "
            f"{refuted}/{len(result.misreadings)} misreadings refuted ({how})",
            file=stream,
            flush=True,
        )
        for line in result.failures():
            print(f"    {line}", file=stream, flush=True)

    return show


def table(results: list[runner.Result]) -> str:
    """A plain-text table: one row per proposition."""
    head = (
        "N",
        "Proposition",
        "Checks",
        "Definitions",
        "Misreadings",
        "Evidence",
        "Time",
        "Status",
    )
    rows = [
        (
            str(r.number),
            r.title,
            f"{sum(c['passed'] for c in r.evidence)}/{len(r.evidence)}",
            str(len(r.definitions)),
            f"{sum(m['refuted'] for m in r.misreadings)}/{len(r.misreadings)} refuted",
            ", ".join(r.kinds) or "-",
            f"{r.seconds:.1f} s",
            r.status.upper() if not r.passed else r.status,
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    lines = [head, tuple("-" * w for w in widths), *rows]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in lines
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m proofs",
        description="Run the machine checks of the posenc propositions.",
    )
    parser.add_argument(
        "numbers", nargs="*", type=int, metavar="N", help="propositions to run (default: all)"
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="re-run even when a cached result matches (and update the cache: "
        f"${runner.CACHE_ENV} or .cache/proofs)",
    )
    parser.add_argument(
        "--report",
        type=Path,
        default=runner.DEFAULT_REPORT,
        help="where to write the JSON report (the one record of each run's date and time)",
    )
    parser.add_argument(
        "--dir", type=Path, default=runner.HERE, help="directory holding the proof files"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop a proof that runs longer than this "
        f"(default: $POSENC_PROOF_TIMEOUT or {runner.DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--first-failure",
        action="store_true",
        help="stop each proof at its first failed check (the other proofs still run): "
        "a quick answer while a proof is being edited; such a result is never cached",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    if args.timeout is not None and not args.timeout > 0:
        parser.error(f"--timeout must be a positive number of seconds, got {args.timeout:g}")
    try:
        results = runner.run(
            args.numbers or None,
            directory=args.dir,
            # A directory other than proofs/ (a scratch copy) gets no cache.
            cache_dir=runner.cache_directory() if args.dir.resolve() == runner.HERE else None,
            refresh=args.no_cache,
            progress=None if args.quiet else _progress(sys.stderr),
            timeout=args.timeout,
            first_failure=args.first_failure,
        )
    except ValueError as exc:
        print(f"python -m proofs: error: {exc}", file=sys.stderr)
        return 2
    if not results:
        print(f"python -m proofs: error: no proof files in {args.dir}", file=sys.stderr)
        return 2
    print(table(results))
    path = runner.write_report(results, args.report)
    failed = [r for r in results if not r.passed]
    shown = (
        path.resolve().relative_to(Path.cwd())
        if path.resolve().is_relative_to(Path.cwd())
        else path
    )
    summary = f"{len(results) - len(failed)} verified, {len(failed)} failed; report: {shown}"
    print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
