"""Speed, memory and accuracy of posenc.sinusoidal, beside the usual formulas.

Run from the repository root:

    python benchmarks/bench_sinusoidal.py            # the whole report, about a minute
    python benchmarks/bench_sinusoidal.py --quick    # smaller sizes, a few seconds

Three parts, printed in one run:

1. Speed. A 65536 x 1024 table in float64 and float32, as a ratio to the time
   ``np.full`` takes to allocate and fill an array of the same size and type (the
   floor for any function that returns a fresh array). Targets: at most 2x (float64)
   and 3x (float32). Beside it, the tutorial formula (float32 angles from exp/log
   frequencies) and per-element ``np.sin``/``np.cos`` in float64. Times are the best
   of several runs, and ``start`` changes between runs so that no cached anchor helps
   (what posenc keeps between calls does not depend on ``start``: the offsets, and the
   turns the anchors are made from; the first, cold call is shown too).
2. Peak extra memory beyond the output (tracemalloc, which sees NumPy's
   allocations), for growing lengths, with posenc's caches emptied first; divided by
   ``sqrt(L) * d * 8`` bytes it should stay flat.
3. Accuracy against mpmath at 50 digits: largest ulp and absolute error by position
   range, on a stated sample that includes entries near zero (positions where
   ``pos * w_i`` is within a hair of a multiple of pi/2, from continued fractions).

The machine may be shared: ratios are measured in the same run, best of N, and the
CPU time of this process is shown beside the wall-clock time.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import time
import tracemalloc
from pathlib import Path

import mpmath
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from posenc import encoding
from posenc.encoding import sinusoidal

BASE = 10000.0


# --------------------------------------------------------------------------------------
# The formulas posenc is compared with, written out here.


def tutorial(length: int, width: int, start: int = 0) -> np.ndarray:
    """The PyTorch tutorial's PositionalEncoding, every step in float32."""
    position = np.arange(start, start + length, dtype=np.int64).astype(np.float32)[:, None]
    factor = np.float32(-math.log(BASE) / width)
    div_term = np.exp(np.arange(0, width, 2).astype(np.float32) * factor)  # (d/2,)
    angle = position * div_term  # (L, d/2) float32
    table = np.empty((length, width), dtype=np.float32)
    table[:, 0::2] = np.sin(angle)
    table[:, 1::2] = np.cos(angle)
    return table


def naive(length: int, width: int, start: int = 0) -> np.ndarray:
    """Per-element np.sin/np.cos of float64 angles, w = base**(-2i/d) by power."""
    w = np.power(BASE, -np.arange(0, width, 2) / width)  # (d/2,)
    angle = np.arange(start, start + length, dtype=np.float64)[:, None] * w  # (L, d/2)
    table = np.empty((length, width))
    table[:, 0::2] = np.sin(angle)
    table[:, 1::2] = np.cos(angle)
    return table


def exp_log(length: int, width: int, start: int = 0) -> np.ndarray:
    """As :func:`naive`, with w = exp(-(2i/d) ln(base)) in float64."""
    w = np.exp(np.arange(0, width, 2) * (-math.log(BASE) / width))  # (d/2,)
    angle = np.arange(start, start + length, dtype=np.float64)[:, None] * w
    table = np.empty((length, width))
    table[:, 0::2] = np.sin(angle)
    table[:, 1::2] = np.cos(angle)
    return table


# --------------------------------------------------------------------------------------
# 1. Speed.


def best_of(*makes, repeats: int) -> list[tuple[float, float]]:
    """Best wall-clock and CPU times of each ``make(k)``, k = 0 .. repeats-1.

    The functions take turns, so that a busy moment of a shared machine falls on all
    of them alike.
    """
    best = [(math.inf, math.inf) for _ in makes]
    for k in range(repeats):
        for n, make in enumerate(makes):
            gc.collect()
            w0, c0 = time.perf_counter(), time.process_time()
            result = make(k)
            w1, c1 = time.perf_counter(), time.process_time()
            del result
            best[n] = (min(best[n][0], w1 - w0), min(best[n][1], c1 - c0))
    return best


def clear_caches() -> None:
    for cached in (
        encoding._offsets,
        encoding._anchor_turns,
        encoding._sorted_residues,
        encoding._doublings,
        encoding._ladder,
    ):
        cached.cache_clear()


def speed(length: int, width: int, repeats: int) -> None:
    print(f"1. Speed: {length} x {width}, best of {repeats}; ratio to np.full of the same size")
    print(f"   {'':34} {'wall s':>8} {'ratio':>6} {'cpu s':>8} {'ratio':>6}")
    _speed_of(np.float64, 2.0, naive, "np.sin/np.cos per element", length, width, repeats)
    _speed_of(np.float32, 3.0, tutorial, "tutorial formula", length, width, repeats)
    print()


def _speed_of(dtype, target, other, other_name, length, width, repeats) -> None:
    name = np.dtype(dtype).name
    # The first large allocation of a process is slow here (the kernel finds huge
    # pages for it), whoever makes it: make it now, so the cold row shows posenc's own
    # first-call work (the offsets and the anchors' turns, kept for later calls).
    np.full((length, width), 0.5, dtype=dtype)
    clear_caches()
    (cold,) = best_of(lambda k: sinusoidal(length, width, start=7, dtype=dtype), repeats=1)
    full, ours = best_of(
        lambda k: np.full((length, width), 0.5 + k, dtype=dtype),
        lambda k: sinusoidal(length, width, start=1000 * k + 1, dtype=dtype),
        repeats=repeats,
    )

    def row(label, times):
        print(
            f"   {label:34} {times[0]:8.3f} {times[0] / full[0]:6.2f} "
            f"{times[1]:8.3f} {times[1] / full[1]:6.2f}"
        )

    row(f"np.full, {name}", full)
    row(f"posenc {name}, first call (cold)", cold)
    row(f"posenc {name}", ours)
    row(f"{other_name}, {name}", best_of(lambda k: other(length, width, k), repeats=3)[0])
    if (length, width) != (65536, 1024):
        print(f"   (the target, {target:g}x, is set for 65536 x 1024; not judged at this size)")
        return
    met = "met" if ours[0] / full[0] <= target else "NOT met"
    print(f"   target for {name}: at most {target:g}x np.full (wall): {met}")


# --------------------------------------------------------------------------------------
# 2. Memory.


def memory(lengths, width: int) -> None:
    print(f"2. Peak extra memory beyond the output, width {width}, caches emptied first")
    print(
        f"   {'dtype':8} {'length':>8} {'output MiB':>11} {'extra MiB':>10} "
        f"{'extra/(sqrt(L) d 8)':>20}"
    )
    for dtype in (np.float64, np.float32):
        for length in lengths:
            clear_caches()
            gc.collect()
            tracemalloc.start()
            table = sinusoidal(length, width, start=12345, dtype=dtype)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            extra = peak - table.nbytes
            unit = math.sqrt(length) * width * 8
            print(
                f"   {np.dtype(dtype).name:8} {length:8d} {table.nbytes / 2**20:11.1f} "
                f"{extra / 2**20:10.2f} {extra / unit:20.2f}"
            )
            del table
    print()


# --------------------------------------------------------------------------------------
# 3. Accuracy.

RANGES = [(0, 10**3), (10**3, 10**5), (10**5, 10**6), (10**6, 2**24)]
_WINDOW = 1024  # rows of each table an entry is read from


def exact_w(i: int, width: int) -> mpmath.mpf:
    return mpmath.mpf(BASE) ** (mpmath.mpf(-2 * i) / width)


def near_zero(width: int, pairs, low: int, high: int) -> list[tuple[int, int]]:
    """(pos, col) in [low, high) with pos * w_i near a multiple of pi/2.

    If p/q is a convergent of pi / (2 w_i), then p * w_i is within w_i / q of q pi/2:
    the sine is tiny when q is even, the cosine when q is odd.
    """
    found = []
    for i in pairs:
        x = mpmath.pi / (2 * exact_w(i, width))
        p0, q0, p1, q1 = 0, 1, 1, 0
        for _ in range(60):
            a = int(mpmath.floor(x))
            p0, q0, p1, q1 = p1, q1, a * p1 + p0, a * q1 + q0
            if p1 >= high:
                break
            if p1 >= low:
                found.append((p1, 2 * i + (q1 % 2)))
            x = 1 / (x - a)
    return found


def accuracy(width: int, per_range: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    methods = {
        "posenc float64": lambda n, s: sinusoidal(n, width, start=s),
        "posenc float32": lambda n, s: sinusoidal(n, width, start=s, dtype=np.float32),
        "tutorial float32": lambda n, s: tutorial(n, width, s),
        "np.sin float64 (power)": lambda n, s: naive(n, width, s),
        "np.sin float64 (exp/log)": lambda n, s: exp_log(n, width, s),
    }
    pairs = sorted({0, 1, 2, 5, width // 8, width // 4, width // 2 - 1})
    print(
        f"3. Accuracy against mpmath (50 digits), width {width}: per range, {per_range} "
        f"random positions x 4 random columns, plus the entries near zero of pairs {pairs}"
    )
    print(
        f"   (each entry read from a {_WINDOW}-row table, at a random row; ulp: of the "
        f"method's own type at the exact value; seed {seed}. posenc promises float64 "
        "entries within 4e-16 absolute, float32 entries within 1 ulp)"
    )
    header = f"   {'positions':>22} {'method':26} {'max ulp':>10} {'max abs':>10}"
    print(header)
    with mpmath.workdps(50):
        w = [exact_w(i, width) for i in range(width // 2)]
        for low, high in RANGES:
            entries = [
                (int(p), int(c))
                for p, c in zip(
                    rng.integers(low, high, per_range).repeat(4),
                    rng.integers(0, width, 4 * per_range),
                    strict=True,
                )
            ]
            tiny = near_zero(width, pairs, low, high)
            entries += tiny
            exact = [
                mpmath.sin(p * w[c // 2]) if c % 2 == 0 else mpmath.cos(p * w[c // 2])
                for p, c in entries
            ]
            # Each entry is read from a table of _WINDOW rows in which it sits at a random
            # row, so that posenc's anchors and offsets are both exercised.
            rows = rng.integers(0, _WINDOW, len(entries))
            for label, method in methods.items():
                worst_ulp = worst_abs = 0.0
                for (p, c), value, r in zip(entries, exact, rows.tolist(), strict=True):
                    r = min(r, p)
                    got = method(_WINDOW, p - r)[r, c]
                    dtype = got.dtype.type
                    error = abs(mpmath.mpf(float(got)) - value)
                    unit = float(np.spacing(dtype(abs(float(value)))))
                    worst_abs = max(worst_abs, float(error))
                    worst_ulp = max(worst_ulp, float(error / unit))
                span = f"[{low:.0e}, {high:.0e})" if high != 2**24 else f"[{low:.0e}, 2^24)"
                print(f"   {span:>22} {label:26} {worst_ulp:10.3g} {worst_abs:10.2e}")
            print(f"   {'':22} ({len(entries)} entries, {len(tiny)} of them near zero)")
    print()


# --------------------------------------------------------------------------------------


def environment() -> None:
    print("Environment")
    print(f"   numpy {np.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} cores")
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        print(f"   {name}={os.environ.get(name, '(unset)')}")
    try:
        import threadpoolctl
    except ImportError:
        print("   threadpoolctl not installed: BLAS kernel not shown")
    else:
        for info in threadpoolctl.threadpool_info():
            print(
                f"   {info.get('internal_api')} {info.get('version')}: "
                f"kernel {info.get('architecture')}, {info.get('num_threads')} threads"
            )
    print("   (the tables use element-wise ufuncs only, no BLAS call)")
    try:
        print(f"   load average: {os.getloadavg()[0]:.2f}")
    except OSError:
        pass
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    args = parser.parse_args()
    began = time.perf_counter()
    environment()
    if args.quick:
        speed(4096, 256, 3)
        memory([256, 1024, 4096], 64)
        accuracy(64, 5)
    else:
        speed(65536, 1024, 7)
        memory([1024, 4096, 16384, 65536, 262144], 512)
        accuracy(512, 40)
    print(f"Total time: {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
