"""What one mutant costs ``make mutants``: the cold command against the warm worker.

Run from the repository root (Cosmic Ray is not needed):

    python benchmarks/bench_mutants.py            # Propositions 6 and 35, 10 runs each
    python benchmarks/bench_mutants.py 27 --runs 5

For each proof, the unmutated file is run ``--runs`` times as a mutant is run:

1. **cold**: ``python -m proofs N --no-cache -q --first-failure --timeout ...``,
   the command ``make mutants`` ran before the worker (two Python processes,
   each importing what it needs);
2. **warm**: ``tools/mutant_worker.py ask``, answered by a worker that imported
   the proof's modules once and forks a child per request.

Both run in a copy of the checkout, as ``make mutants`` runs them. An unmutated
proof runs every check, where most mutants stop at their first failed one, so
the proof's own time weighs more here than in a real run: the ratio is a floor
for the saving. The machine may be shared: the median of the runs is reported,
and the ratio is taken within one run of this script.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]


def timed(command: list[str], cwd: Path, env: dict[str, str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("numbers", nargs="*", type=int, default=[6, 35], metavar="N")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()

    import mutants

    from proofs import runner

    by_number = {runner.number_of(p): p for p in runner.discover()}
    print(f"{'proof':>5}  {'cold (s)':>9}  {'warm (s)':>9}  {'cold / warm':>11}")
    with tempfile.TemporaryDirectory(prefix="posenc-bench-mutants-") as scratch:
        tree = Path(scratch)
        mutants.copy_checkout(tree)
        env = {
            **os.environ,
            "POSENC_PROOF_CACHE": str(tree / ".cache" / "bench"),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        for number in args.numbers:
            proof = tree / by_number[number].relative_to(ROOT)
            cold = mutants.cold_command(number, 600, tree / "build" / "proofs-report.json")
            socket = tree / "worker.sock"
            with mutants.worker(socket, proof, 600, tree, env):
                warm = mutants.ask_command(tree, socket, ["/bin/false"])
                warm_times = timed(warm, tree, env, args.runs)
            cold_times = timed(cold, tree, env, args.runs)
            c, w = statistics.median(cold_times), statistics.median(warm_times)
            print(f"{number:>5}  {c:>9.2f}  {w:>9.2f}  {c / w:>11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
