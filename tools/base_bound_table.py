"""Compute data/base-bound.json: the smallest grid base that meets Men et al.'s condition.

The condition (posenc's reading of Men et al., arXiv:2405.14591) at head width
d = 128 and context L: B(m) = sum_i cos(m b^(-2i/d)) >= 0 at every integer offset
m = 0 .. L. The grid of bases is b_k = 2 * 1.001^k, k = 0, 1, ..., each rounded to float64 from 50
digits: a resolution of 0.1 %. For each context L of Proposition 38's rows this script finds
the first grid base that meets the condition, and for every grid base below it an
offset m <= L with B(m) < 0 there: a certificate that Proposition 38's proof checks
(it recomputes everything it uses, and trusts nothing in the file).

How it is fast. If a base meets the condition up to L, it meets it up to any shorter
context, so the answer for L is at least the answer for a shorter row, and a witness
for a shorter row is one for L. The rows are therefore done in increasing L, one
shared list of witnesses growing as they go. For each new grid base the recent
witnesses are tried first (64 cosines each), then the first 1024 offsets; only when
neither finds a negative sum is posenc.similarity.first_negative's block scan run (up
to L + 1 offsets; at L = 2^20 a passing base costs about half a second).

The file holds, for each grid index k below the largest answer, one offset
``witnesses[k]``; each row holds its L, the index of its answer and the answer itself.
A witness of index k is at most the L of the first row whose answer lies above k.

Run with ``make base-bound``, or by hand (progress on stderr, one line per 500 grid
bases; ``--check`` recomputes and compares the answers with the file, writing nothing)::

    nice -n 19 .venv/bin/python tools/base_bound_table.py
    nice -n 19 .venv/bin/python tools/base_bound_table.py --check

Measured when the committed file was written (2026-12-07, two cores shared with other
work, nice 19; ``seconds`` in each row of the file): L = 4096 and 8192 in about a
second each, 32768 in 14 s, 131072 in 75 s and 2^20 in 242 s (2415 block scans), under
six minutes in all with the final full scans; an earlier run under heavier load took
374 s for 2^20. posenc.similarity.smallest_grid_base, which screens without reusing
witnesses, took 511 s for 131072 alone; its grid is this one (exact, rounded once).
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from posenc import similarity  # noqa: E402

WIDTH = 128
START, RATIO = 2, "1001/1000"
LENGTHS = (4096, 8192, 32768, 131072, 1048576)
OUT = ROOT / "data" / "base-bound.json"
#: A candidate offset is taken only if its float64 sum is below this (the float64
#: error of a sum is below 10^-7 for L <= 2^20); first_negative's own offsets are
#: taken whatever their margin (the proof confirms small ones at 50 digits).
CLEAR = 1e-6
RECENT = 256


#: The k-th base of the grid, 2 * (1001/1000)^k rounded once to float64.
grid_base = functools.cache(similarity.grid_base)


def speeds(base: float) -> np.ndarray:
    return base ** (-2.0 * np.arange(WIDTH // 2) / WIDTH)  # (d/2,)


def row(length: int, witnesses: list[int], first: int, log) -> int:
    """Extend ``witnesses`` from grid index ``first`` to the first grid base that meets
    the condition up to ``length``; return its index."""
    recent = collections.deque(dict.fromkeys(reversed(witnesses[-RECENT:])), maxlen=RECENT)
    head = np.arange(min(length, 1023) + 1, dtype=np.float64)  # (J,)
    scans, began = 0, time.monotonic()
    k = first
    while True:
        if (k - first) % 500 == 0:
            log(f"L={length} k={k} base={grid_base(k):.6g} scans={scans} "
                f"{time.monotonic() - began:.0f}s")  # fmt: skip
        theta = speeds(grid_base(k))  # (d/2,)
        if recent:
            cands = np.fromiter(recent, dtype=np.float64)  # (c,)
            values = np.cos(cands[:, None] * theta).sum(axis=1)  # (c,)
            j = int(np.argmin(values))
            if values[j] < -CLEAR:
                witnesses.append(int(cands[j]))
                k += 1
                continue
        values = np.cos(head[:, None] * theta).sum(axis=1)  # (J,)
        j = int(np.argmin(values))
        if values[j] < -CLEAR:
            miss = j
        else:
            scans += 1
            miss = similarity.first_negative(length, WIDTH, base=grid_base(k))
            if miss is None:
                log(f"L={length}: answer k={k} base={grid_base(k)!r} after {scans} scans, "
                    f"{time.monotonic() - began:.0f}s")  # fmt: skip
                return k
        witnesses.append(miss)
        if miss in recent:
            recent.remove(miss)
        recent.appendleft(miss)
        k += 1


def compute(lengths, log) -> dict:
    witnesses: list[int] = []
    rows, first = [], 0
    for length in lengths:
        began = time.monotonic()
        index = row(length, witnesses, first, log)
        seconds = time.monotonic() - began
        lowest, at = similarity.lowest_dot(length, WIDTH, base=grid_base(index))
        rows.append({
            "length": length,
            "index": index,
            "base": grid_base(index),
            "lowest": lowest,
            "at": at,
            "seconds": round(seconds, 1),
        })  # fmt: skip
        first = index
        del witnesses[index:]  # the answer itself has no witness
    return {
        "about": "Proposition 38: for head width 128 and each context L, the first base of "
        "the grid b_k = 2 * (1001/1000)**k (exact, rounded once to float64) with "
        "B(m) = sum_i cos(m b^(-2i/128)) >= 0 at "
        "every integer m = 0..L; witnesses[k] is an offset with B(m) < 0 at b_k, for every "
        "k below the last row's index. Written by tools/base_bound_table.py; checked, not "
        "trusted, by proofs/p38_rope_base_bound.py. Each row's lowest, at and seconds are "
        "informational (the smallest float64 sum at the answer, its offset, the search's "
        "time): the proof recomputes the pass and does not read them.",
        "width": WIDTH,
        "start": START,
        "ratio": RATIO,
        "rows": rows,
        "witnesses": witnesses,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with the file, write nothing"
    )
    parser.add_argument("--lengths", type=int, nargs="*", default=list(LENGTHS))
    args = parser.parse_args(argv)
    data = compute(sorted(args.lengths), lambda s: print(s, file=sys.stderr, flush=True))
    if args.check:
        old = json.loads(OUT.read_text())
        same = [r["index"] for r in old["rows"]] == [r["index"] for r in data["rows"]]
        print("same answers" if same else "DIFFERENT answers")
        return 0 if same else 1
    # the witnesses on one line: the file stays small and its head readable
    head = json.dumps({k: v for k, v in data.items() if k != "witnesses"}, indent=1)
    text = head[:-2] + ',\n "witnesses": ' + json.dumps(data["witnesses"]) + "\n}\n"
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(text)
    tmp.replace(OUT)
    print(f"wrote {OUT} ({len(data['witnesses'])} witnesses)", file=sys.stderr)
    assert math.isfinite(data["rows"][-1]["base"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
