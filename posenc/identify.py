"""Which library's convention made a sinusoidal position table?

Given a table of numbers (one row per position, one column per feature), find the
convention of :data:`posenc.conventions.CONVENTIONS`, the base and the first position
that explain it, and say how well: the largest absolute difference between the table
and the convention's own table, built by :func:`posenc.conventions.table`.

How a table is read
-------------------
Each convention fixes which columns hold a sine and which the matching cosine, and
the exponent rule of each pair's angular speed ``w_i = base**(-e_i)``. For each
layout in turn:

1. Each pair ``(sin, cos)`` of columns is read as unit complex numbers
   ``z[r] = cos + i sin = exp(i (phi + r w))``, one per row ``r``. The angular speed
   ``w`` is the angle of ``sum z[r+1] conj(z[r])`` (a shift is a rotation), then
   sharpened with a long lag; the phase ``phi`` is the angle of
   ``sum z[r] exp(-i r w)``.
2. The base comes from the log-speeds, ``ln w_i = -e_i ln(base)``, by weighted least
   squares; round bases near the estimate (10000, 500000, ...) are tried too.
3. With the exact speeds of that base, the first position ``s`` solves
   ``s w_i = phi_i (mod 2 pi)`` for every pair: the slowest pair gives a few
   candidates (one per turn), each refined pair by pair from slow to fast, and the
   few that agree best with every pair are kept.
4. Confirmation: the convention's table for that base and first position, rounded
   to the table's precision, is compared with the table entry by entry (first on
   the first and last rows, then on all rows for the leaders).

The best explanation (a round base before one with many digits, the whole table
before a slice, then the smallest difference) is reported as identified when its
difference is within the tolerance, ``4 * eps`` of the table's precision (``eps = 2**-23`` for
float32 values, ``2**-10`` for float16, ``2**-7`` for bfloat16, ``2**-52`` for
float64). The precision is guessed from the values: the narrowest format that holds
every value exactly.

What it supports
----------------
- Row cuts: any run of consecutive rows, first position up to ``2**24`` (fewer when
  the slowest pair turns fast and the pairs are many: about ``2**20`` candidates times
  pairs are tried).
- Column cuts: a contiguous slice of columns of an interleaved table (``paper``,
  ``xlm``, ``pytorch-tutorial``, ``keras-hub``) holding at least two whole
  ``(sin, cos)`` pairs. A slice fixes only ``ln(base) / width``, so the full width is
  worked out for the convention's default base (or a common one: 500000, 1e6, ...)
  and reported with that assumption. Tables in the concatenated layouts
  (``tensor2tensor``, ``fairseq``, ``whisper``, ``marian``) must keep all columns.
- Storage in float16, bfloat16 or float32 of a table computed in more precision.
- Tables that two conventions compute alike (``fairseq`` and ``whisper`` away from
  fairseq's padding row; ``xlm`` and the paper's formula rounded to float32) are
  reported with the others in ``equivalent``.

Limits
------
- The rows must be consecutive positions, in order.
- Each convention is tried with its own options (tensor2tensor's ``min_timescale`` 1,
  fairseq's ``padding_idx`` 1); only the base and the first position are searched,
  and Keras-Hub's compute dtype among float32 and the table's precision.
- A base that is not a round number is found only as closely as the speeds allow,
  which a float64 table may not accept.
- A single row gives no speeds: the base then comes from the phases alone, among
  common values, and a single row at position 0 fits every base.
- A narrow table (a handful of pairs) whose angles were rounded to float32, far from
  position 0, can have several first positions that fit its angles about as well;
  the whole-table comparison picks among a few, and may then report none.
"""

from __future__ import annotations

import io
import lzma
import math
import os
import stat
import zipfile
import zlib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from tokenize import TokenError
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import ArrayLike

from posenc import _validate, conventions
from posenc.precision import FORMATS, round_to

__all__ = ["Candidate", "Identification", "identify", "load_table"]

_TWO_PI = 2 * math.pi

#: Largest first position searched.
MAX_START = 2**24

#: Most candidates (turns of the slowest pair) times pairs, when solving for the start.
_MAX_WORK = 2**20

#: Largest ratio of speeds between two pairs of the chain that solves the start.
_STEP = 8.0

#: First positions kept from the solution for each base, best agreement first.
_STARTS = 3

#: Rows at each end of the table used to rank hypotheses before the full check.
_SAMPLE_ROWS = 48

#: Bases tried for column slices, after the convention's default.
_COMMON_BASES = (10000.0, 500000.0, 1e6, 1e5, 1000.0, 100.0, 10.0)

#: Formats tried for the precision guess, narrowest first.
_PRECISIONS = ("bfloat16", "float16", "float32", "float64")


@dataclass(frozen=True)
class Candidate:
    """One explanation of a table: a convention with its base and first position.

    Attributes
    ----------
    convention : str
        A key of :data:`posenc.conventions.CONVENTIONS`.
    base : float
        The base (largest timescale) of the convention's formula.
    start : int
        Position of the table's first row.
    width : int
        Width of the convention's table the columns come from.
    columns : tuple of int
        ``(first, stop)``: the table is columns ``first .. stop - 1`` of that table.
    residual : float
        Largest absolute difference from the convention's table.
    complete : bool
        Whether ``residual`` is over every row; otherwise it is over the first and
        last rows only (a lower bound), for a candidate far outside the tolerance.
    """

    convention: str
    base: float
    start: int
    width: int
    columns: tuple[int, int]
    residual: float
    complete: bool


@dataclass(frozen=True)
class Identification:
    """What :func:`identify` found: the best explanation and how good it is.

    Attributes
    ----------
    matched : bool
        True when the largest residual is within the tolerance.
    convention, base, start, width, columns, residual
        The best candidate (see :class:`Candidate`); when ``matched`` is false, the
        closest one.
    rows : int
        Number of rows of the table: positions ``start .. start + rows - 1``.
    dtype : str
        The precision guessed from the values: ``"bfloat16"``, ``"float16"``,
        ``"float32"`` or ``"float64"`` (the narrowest format holding every value).
    tolerance : float
        ``4 * eps`` of that precision.
    equivalent : tuple of str
        Other conventions whose table is also within the tolerance.
    alternatives : tuple of Candidate
        The next best explanations, best first, one per convention.
    explanation : str
        A few sentences for a reader.
    """

    matched: bool
    convention: str
    base: float
    start: int
    width: int
    columns: tuple[int, int]
    residual: float
    rows: int
    dtype: str
    tolerance: float
    equivalent: tuple[str, ...]
    alternatives: tuple[Candidate, ...]
    explanation: str = field(repr=False)

    def as_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready data (``inf`` residuals become ``None``)."""
        data = asdict(self)
        data["columns"] = list(self.columns)
        data["equivalent"] = list(self.equivalent)
        data["alternatives"] = [
            {**asdict(c), "columns": list(c.columns), "residual": _finite(c.residual)}
            for c in self.alternatives
        ]
        data["residual"] = _finite(self.residual)
        return data


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


# --------------------------------------------------------------------------------------
# Checking the input.


def _as_table(table: ArrayLike) -> tuple[np.ndarray, str]:
    """The table as float64 (n, k), and the name of the type it was stored in."""
    array = np.asarray(table)
    if array.dtype == object or array.dtype.kind not in "biuf":
        raise ValueError(f"table must hold real numbers, got dtype {array.dtype}")
    if array.ndim != 2:
        raise ValueError(
            f"table must be 2-D (one row per position, one column per feature), "
            f"got shape {array.shape}"
        )
    rows, cols = array.shape
    if rows < 1 or cols < 2:
        raise ValueError(f"table must have at least 1 row and 2 columns, got shape {array.shape}")
    # identify's peak, measured at 33 to 49 bytes per entry (float64 copies, complex pairs).
    _validate.memory(f"table of shape {array.shape}", 64 * array.size)
    values = array.astype(np.float64)  # (n, k)
    bad = ~np.isfinite(values)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(
            f"table holds {int(bad.sum())} NaN or infinite values (first at row {r}, column {c})"
        )
    stored = array.dtype.name if array.dtype.kind == "f" else "float64"
    return values, stored


def _precision(values: np.ndarray, stored: str) -> str:
    """The narrowest format that holds every value exactly, among those within ``stored``."""
    within = {
        "float16": ("float16",),
        "float32": ("bfloat16", "float16", "float32"),
    }.get(stored, _PRECISIONS)
    sample = values.ravel()[:: max(1, values.size // 4096)]  # a quick look first
    for name in within:
        if name == "float64":
            return name
        with np.errstate(over="ignore"):
            if np.array_equal(round_to(sample, name), sample) and np.array_equal(
                round_to(values, name), values
            ):
                return name
    return "float64"


def _tolerance(precision: str) -> float:
    return 4.0 * 2.0 ** (1 - FORMATS[precision].significand_bits)


def _candidate_names(candidates: object) -> tuple[str, ...]:
    allowed = ", ".join(conventions.CONVENTIONS)
    if candidates is None:
        return tuple(conventions.CONVENTIONS)
    if isinstance(candidates, str):
        names = [candidates]
    else:
        try:
            names = list(candidates)  # type: ignore[call-overload]
        except TypeError:
            raise TypeError(
                f"candidates must be a name or a list of names, got {candidates!r}"
            ) from None
    if not names:
        raise ValueError(f"candidates must name at least one of {allowed}")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"candidates must be names (str), got {type(name).__name__}")
        if name not in conventions.CONVENTIONS:
            raise ValueError(f"candidates must be among {allowed}, got {name!r}")
    return tuple(dict.fromkeys(names))


# --------------------------------------------------------------------------------------
# The layouts: which column holds what, and the exponent of each pair.


@dataclass(frozen=True)
class _Layout:
    """Columns of each pair in the table, and each pair's exponent ``e`` (speed ``base**-e``)."""

    sines: np.ndarray  # (p,) column of each pair's sine in the table
    cosines: np.ndarray  # (p,) column of its cosine
    exponents: np.ndarray  # (p,)


def _allowed_width(name: str, width: int) -> bool:
    convention = conventions.CONVENTIONS[name]
    if width % 2 and convention.odd_width == "error":
        return False
    return width >= convention.min_width


def _layout(name: str, width: int, first: int = 0, count: int | None = None) -> _Layout:
    """Pairs of columns ``first .. first+count-1`` of the convention's table of ``width``.

    The same rules as :func:`posenc.conventions.columns`: the t-th sine goes with the
    t-th cosine; pair t has exponent ``2t/d``, or ``t/(h-1)`` (``h = d // 2``, ``h - 1``
    at least 1) for the layouts with all sines first and the (h-1) rule.
    """
    convention = conventions.CONVENTIONS[name]
    count = width if count is None else count
    half = width // 2
    t = np.arange(half)  # (h,) pairs; an odd width's extra sine or zero column has none
    if convention.layout == "interleaved":
        sines, cosines = 2 * t, 2 * t + 1
    elif convention.layout == "marian":
        sines, cosines = t, (width + 1) // 2 + t
    else:
        sines, cosines = t, half + t
    if convention.exponent.startswith("i/(h-1)"):
        exponents = t / max(half - 1, 1)
    else:
        exponents = 2 * t / width
    inside = (sines >= first) & (sines < first + count) & (cosines >= first)
    inside &= cosines < first + count
    return _Layout(sines[inside] - first, cosines[inside] - first, exponents[inside])


def _unit(values: np.ndarray, layout: _Layout) -> np.ndarray:
    """``cos + i sin`` of each pair, (n, p) complex; zero rows stay zero."""
    z = np.empty((values.shape[0], layout.sines.size), dtype=np.complex128)  # (n, p)
    z.real = _columns(values, layout.cosines)
    z.imag = _columns(values, layout.sines)
    return z


def _columns(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``values[:, index]``, as a view when the columns are evenly spaced."""
    step = index[1] - index[0] if index.size > 1 else 1
    if step > 0 and np.all(np.diff(index) == step):
        return values[:, index[0] : index[-1] + 1 : step]
    return values[:, index]


def _speeds(z: np.ndarray) -> np.ndarray:
    """Angular speed of each pair from the rotation between rows, (p,) radians per row."""
    rows = z.shape[0]
    if rows < 2:
        return np.full(z.shape[1], np.nan)
    step = np.angle(np.sum(z[1:] * np.conj(z[:-1]), axis=0))  # (p,): in (-pi, pi]
    lag = rows // 2
    if lag >= 2:
        # A long lag sees lag * w: sharper, once its turns are counted from the short one.
        long = np.angle(np.sum(z[lag:] * np.conj(z[:-lag]), axis=0))  # (p,)
        turns = np.rint((lag * step - long) / _TWO_PI)  # (p,)
        step = (long + _TWO_PI * turns) / lag
    return step


def _phases(z: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """Angle of each pair at row 0, given its speed: the circular mean over rows."""
    rows = min(z.shape[0], 64)
    r = np.arange(rows, dtype=np.float64)[:, None]  # (m, 1)
    back = np.exp(-1j * (r * speed[None, :]))  # (m, p)
    return np.angle(np.sum(z[:rows] * back, axis=0))  # (p,)


def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles reduced to about [-pi, pi], by whole turns."""
    return angle - _TWO_PI * np.rint(angle / _TWO_PI)


# --------------------------------------------------------------------------------------
# Base and first position.


def _estimate_log_base(speed: np.ndarray, exponent: np.ndarray) -> float | None:
    """``ln(base)`` from ``ln w_i = -e_i ln(base)`` by weighted least squares, or None."""
    usable = np.isfinite(speed) & (speed > 0) & (exponent > 0)
    if not usable.any():
        return None
    w = speed[usable] ** 2  # var(ln w) ~ var(w) / w**2
    e = exponent[usable]
    log_base = float(np.sum(w * e * -np.log(speed[usable])) / np.sum(w * e * e))
    return log_base if math.isfinite(log_base) and 0 < log_base < 700 else None


def _round_bases(estimate: float, default: float) -> list[float]:
    """Bases to try: the default, then values near the estimate with few digits."""
    near = [float(f"{estimate:.{digits}g}") for digits in range(1, 7)]
    near += [float(round(estimate)), estimate]
    near = [b for b in near if b > 1 and abs(math.log(b / estimate)) < 0.05]
    return list(dict.fromkeys([default, *near]))


def _significant_digits(base: float) -> int:
    for digits in range(1, 18):
        if float(f"{base:.{digits}g}") == base:
            return digits
    return 18


def _solve_start(phase: np.ndarray, speed: np.ndarray) -> list[int]:
    """First positions ``s`` in ``[0, MAX_START]`` with ``s w_i = phi_i (mod 2 pi)``.

    ``phase`` and ``speed`` are (p,). The slowest pair allows one candidate per turn;
    each is carried from slow pairs to fast ones (a pair turning ``q`` times faster
    pins the position ``q`` times more finely). Returns a few candidates that agree
    with every pair nearly as well as the best: the best ones first, then the smallest
    ones. With few pairs and rounded angles the best agreement can be a coincidence,
    which the comparison of whole tables settles.
    """
    order = np.argsort(speed, kind="stable")
    speed, phase = speed[order], phase[order]
    keep = speed > 0
    speed, phase = speed[keep], phase[keep]
    if not speed.size:
        return [0]
    slow = speed[0]
    turns = min(int(MAX_START * slow / _TWO_PI) + 2, max(4096, _MAX_WORK // speed.size))
    s = (_wrap(phase[0]) + _TWO_PI * np.arange(turns)) / slow  # (M,): one per turn
    chain, reached = [0], slow
    for k in range(1, speed.size):
        # Each step may speed up by a factor of _STEP: the position is then known to
        # within (angle error) * _STEP / w, far inside the half turn a step can fix.
        if speed[k] < reached * _STEP and k + 1 < speed.size and speed[k + 1] < reached * _STEP:
            continue
        chain.append(k)
        reached = speed[k]
        s = s + _wrap(phase[k] - s * speed[k]) / speed[k]  # (M,)
    s = np.rint(s)
    s = s[(s >= 0) & (s <= MAX_START)]
    if not s.size:
        return [0]
    # First the pairs of the chain narrow the candidates down; then every pair judges.
    s = s[_best(_miss(s, phase[chain], speed[chain]), 64)]  # (<= 64,)
    miss = _miss(s, phase, speed)
    close = miss <= 4 * miss.min() + 1e-9  # near the best agreement only
    s, miss = s[close], miss[close]
    # The best agreements, and the smallest positions among the close ones: a narrow
    # table in float32 far from 0 has near-periods that fit its angles as well.
    best = s[np.lexsort((s, miss))][: 4 * _STARTS]
    small = np.sort(s)[: 4 * _STARTS]
    found = list(dict.fromkeys(int(x) for x in best))[:_STARTS]
    return found + [x for x in dict.fromkeys(int(x) for x in small) if x not in found][:_STARTS]


def _miss(s: np.ndarray, phase: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """The worst disagreement ``|phi_i - s w_i|`` (mod 2 pi) of each candidate ``s``."""
    parts = np.array_split(s, -(-s.size * speed.size // 2**20))  # bounded temporaries
    return np.concatenate(
        [np.max(np.abs(_wrap(phase - part[:, None] * speed)), axis=1) for part in parts]
    )


def _best(miss: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` smallest values (in no order)."""
    count = min(count, miss.size)
    return np.argpartition(miss, count - 1)[:count]


# --------------------------------------------------------------------------------------
# Building and comparing the conventions' tables.


@dataclass
class _Hypothesis:
    convention: str
    base: float
    start: int
    width: int
    first: int  # first column
    base_rank: int  # 0 for the convention's default base, else its significant digits
    sliced: bool  # a slice of the columns of a wider table
    compute: str = ""  # the type the table is computed in
    sample: float = math.inf  # residual on the head and tail rows
    residual: float = math.inf  # residual on the whole table
    complete: bool = False  # residual is over every row


def _computed_in(name: str, precision: str) -> list[str]:
    """The types a convention's table may have been computed in, for the table's precision.

    The paper's formula is exact whatever its output type; Keras-Hub computes in the
    layer's dtype: float32 by default, or the table's own precision.
    """
    if name == "paper":
        return [precision if precision in ("float16", "float32") else "float64"]
    if name == "keras-hub":
        return list(dict.fromkeys(["float32", precision]))
    return [conventions.CONVENTIONS[name].compute_dtype]


def _options(h: _Hypothesis) -> dict[str, Any]:
    """The dtype argument of conventions.table, for the conventions that take one."""
    return {"dtype": h.compute} if h.convention in ("paper", "keras-hub") else {}


def _build(h: _Hypothesis, top: int, rows: int, cols: int, precision: str) -> np.ndarray:
    """Rows ``top .. top+rows-1`` of the hypothesis's table, rounded to ``precision``."""
    full = conventions.table(
        h.convention,
        rows,
        h.width,
        base=h.base,
        start=h.start + top,
        **_options(h),
    )
    part = full[:, h.first : h.first + cols]  # (rows, k)
    if part.dtype.name == precision:  # already in the table's precision
        return part
    with np.errstate(over="ignore", invalid="ignore"):
        return round_to(part, precision)


def _residual(h: _Hypothesis, values: np.ndarray, precision: str, rows) -> float:
    """Largest |difference| over the given row ranges; inf when the table cannot be built."""
    worst = 0.0
    for top, count in rows:
        try:
            built = _build(h, top, count, values.shape[1], precision)
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            return math.inf
        with np.errstate(invalid="ignore"):
            difference = np.abs(built - values[top : top + count])  # (count, k)
        if not np.all(np.isfinite(difference)):
            return math.inf
        worst = max(worst, float(difference.max(initial=0.0)))
    return worst


def _sample_rows(rows: int) -> list[tuple[int, int]]:
    if rows <= 2 * _SAMPLE_ROWS:
        return [(0, rows)]
    return [(0, _SAMPLE_ROWS), (rows - _SAMPLE_ROWS, _SAMPLE_ROWS)]


def _all_rows(rows: int) -> list[tuple[int, int]]:
    step = 4096  # bounds the memory of one built slice
    return [(top, min(step, rows - top)) for top in range(0, rows, step)]


# --------------------------------------------------------------------------------------
# Hypotheses.


def _add(found, name, base, width, first, z, layout, *, sliced: bool, solved: dict, precision):
    """Add ``(name, base, width, first column)`` with the first position it implies."""
    default = conventions.CONVENTIONS[name].base
    speed = np.power(base, -layout.exponents)  # (p,): the formula's speeds
    key = (base, layout.exponents.tobytes(), layout.sines.tobytes(), layout.cosines.tobytes())
    if key not in solved:  # conventions with the same columns and speeds share it
        solved[key] = _solve_start(_phases(z, speed), speed) if speed.size else [0]
    rank = 0 if base == default else _significant_digits(base)
    for start in solved[key]:
        for compute in _computed_in(name, precision):
            entry = (name, base, width, first, start, compute)
            if entry not in found:
                found[entry] = _Hypothesis(name, base, start, width, first, rank, sliced, compute)


def _full_width(names, values, precision, found) -> None:
    """Hypotheses that the table holds every column of a convention's table."""
    rows, cols = values.shape
    seen: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
    solved: dict = {}
    for name in names:
        if not _allowed_width(name, cols):
            continue
        layout = _layout(name, cols)
        columns = np.concatenate([layout.sines, layout.cosines]).tobytes()
        if columns not in seen:  # conventions with the same layout share z and speeds
            z = _unit(values, layout)  # (n, p)
            seen[columns] = (z, _speeds(z))
        z, speed = seen[columns]
        default = conventions.CONVENTIONS[name].base
        bases = [default]
        if rows == 1:  # no speeds: try common bases through the phases alone
            bases = list(dict.fromkeys([default, *_COMMON_BASES]))
        elif layout.sines.size:
            log_base = _estimate_log_base(speed, layout.exponents)
            if log_base is not None:
                bases = _round_bases(math.exp(log_base), default)
        for base in bases:
            _add(
                found,
                name,
                base,
                cols,
                0,
                z,
                layout,
                sliced=False,
                solved=solved,
                precision=precision,
            )


_INTERLEAVED = tuple(
    name for name, c in conventions.CONVENTIONS.items() if c.layout == "interleaved"
)


def _column_slices(names, values, precision, found) -> None:
    """Hypotheses that the table is a slice of columns of a wider interleaved table."""
    rows, cols = values.shape
    names = [n for n in names if n in _INTERLEAVED]
    if rows < 2 or not names:
        return
    solved: dict = {}
    for parity in (0, 1):  # the slice starts with a sine (0) or with a cosine (1)
        count = (cols - parity) // 2
        if count < 2:
            continue
        sines = parity + 2 * np.arange(count)  # (p,)
        z = _unit(values, _Layout(sines, sines + 1, np.zeros(count)))  # (n, p)
        if np.max(np.abs(np.abs(z) - 1)) > 0.1:  # these columns are not (sin, cos) pairs
            continue
        speed = _speeds(z)  # (p,)
        usable = speed > 0
        if usable.sum() < 2:
            continue
        t = np.arange(count)[usable]
        slope, intercept = np.polyfit(t, np.log(speed[usable]), 1, w=speed[usable])
        if not slope < 0:
            continue
        for name in names:
            default = conventions.CONVENTIONS[name].base
            for base in dict.fromkeys([default, *_COMMON_BASES]):
                width = -2 * math.log(base) / slope  # ln w_t = -(2 (i0 + t) / d) ln(base)
                if not cols < width <= 2**20 or abs(width - round(width)) > 0.25:
                    continue
                width = round(width)
                first = 2 * round(intercept / slope) - parity  # column of the slice's start
                if first < 0 or first + cols > width or not _allowed_width(name, width):
                    continue
                layout = _layout(name, width, first, cols)
                if layout.sines.size != count:
                    continue
                _add(
                    found,
                    name,
                    base,
                    width,
                    first,
                    z,
                    layout,
                    sliced=True,
                    solved=solved,
                    precision=precision,
                )


# --------------------------------------------------------------------------------------
# Ranking.

_ORDER = {name: k for k, name in enumerate(conventions.CONVENTIONS)}


def _order(h: _Hypothesis, residual: float, tolerance: float, stored: str):
    """Sort key: within tolerance first, then simple bases, whole tables, exact fits.

    A slice of a wider table counts as one more digit of base, so that a whole table
    with a round base wins over a slice, and a slice with the default base wins over a
    whole table whose base has many digits.
    """
    convention = conventions.CONVENTIONS[h.convention]
    # Stored in the type the library makes: its output type, or Keras-Hub's compute dtype.
    native = stored == (h.compute if h.convention == "keras-hub" else convention.output_dtype)
    at_default = h.start == convention.start
    simple = h.base_rank + h.sliced
    tail = (not native, not at_default, _ORDER[h.convention])
    if residual <= tolerance:
        return (0, simple, h.sliced, residual, *tail)
    return (1, residual, simple, h.sliced, *tail)


def _rank(hypotheses, values, precision, tolerance, stored) -> list[_Hypothesis]:
    """Hypotheses best first, one per convention.

    Every hypothesis is first compared on the first and last rows; those within the
    tolerance there (or, when none is, the closest) are then compared on every row.
    """
    rows = values.shape[0]
    pool = list(hypotheses)
    for h in pool:
        if h.sample == math.inf:
            h.sample = _residual(h, values, precision, _sample_rows(rows))
            if rows <= 2 * _SAMPLE_ROWS:
                h.residual, h.complete = h.sample, True
    pool = [h for h in pool if h.sample < math.inf]
    pool.sort(key=lambda h: _order(h, h.sample, tolerance, stored))
    best: dict[str, _Hypothesis] = {}
    for h in pool:
        if h.sample > tolerance and best:
            break
        held = best.get(h.convention)
        if held is not None and held.residual <= tolerance:
            continue  # this convention is already explained; its best stays
        if not h.complete:
            h.residual = _residual(h, values, precision, _all_rows(rows))
            h.complete = True
        if held is None or _order(h, h.residual, tolerance, stored) < _order(
            held, held.residual, tolerance, stored
        ):
            best[h.convention] = h
    for h in pool:  # the rest: their sampled residual, a lower bound
        if h.convention not in best:
            h.residual = h.sample
            best[h.convention] = h
    for _ in range(_LEADER_CHECKS):  # the leader is compared on every row
        ranked = sorted(best.values(), key=lambda h: _order(h, h.residual, tolerance, stored))
        if not ranked or ranked[0].complete:
            return ranked
        ranked[0].residual = _residual(ranked[0], values, precision, _all_rows(rows))
        ranked[0].complete = True
    ranked = sorted(best.values(), key=lambda h: _order(h, h.residual, tolerance, stored))
    leader = next(h for h in ranked if h.complete)  # the closest of those checked fully
    return [leader, *(h for h in ranked if h is not leader)]


#: Most full comparisons made to find the closest convention when none matches.
_LEADER_CHECKS = 3


# --------------------------------------------------------------------------------------
# The public functions.


def identify(table: ArrayLike, *, candidates: object = None) -> Identification:
    """Find the library convention, base and first position that explain a table.

    Parameters
    ----------
    table : array_like
        Real numbers, shape ``(rows, columns)``: consecutive positions, one per row,
        at least 1 row and 2 columns, no NaN.
    candidates : str or sequence of str, optional
        Conventions to consider (keys of :data:`posenc.conventions.CONVENTIONS`); all
        of them by default.

    Returns
    -------
    Identification
        The best explanation and its largest residual; ``matched`` says whether that
        residual is within the tolerance of the table's precision.

    Raises
    ------
    ValueError
        For a table that is not 2-D, too small, not real, or holds NaN or infinities,
        and for unknown candidate names.

    Examples
    --------
    >>> from posenc.conventions import table
    >>> found = identify(table("paper", 200, 64, base=500000.0, start=37))
    >>> found.matched, found.convention, found.base, found.start, found.residual
    (True, 'paper', 500000.0, 37, 0.0)

    fairseq's rows 10 and on (positions 12, 13, ...) are also whisper's: away from
    fairseq's padding row the two compute the same numbers.

    >>> found = identify(table("fairseq", 50, 16)[10:])
    >>> found.start, sorted([found.convention, *found.equivalent])
    (12, ['fairseq', 'tensor2tensor', 'whisper'])
    """
    names = _candidate_names(candidates)
    values, stored = _as_table(table)
    precision = _precision(values, stored)
    tolerance = _tolerance(precision)
    rows, cols = values.shape

    found: dict[tuple, _Hypothesis] = {}
    with np.errstate(all="ignore"):  # odd input (huge values, zero columns) is judged below
        _full_width(names, values, precision, found)
        ranked = _rank(found.values(), values, precision, tolerance, stored)
        # Not explained, or only with a base of many digits: perhaps a slice of columns.
        if not ranked or ranked[0].residual > tolerance or ranked[0].base_rank > 2:
            _column_slices(names, values, precision, found)
            ranked = _rank(found.values(), values, precision, tolerance, stored)
    if not ranked:
        raise ValueError(
            f"no candidate convention can make a table of {cols} columns "
            f"(candidates: {', '.join(names)})"
        )
    best = ranked[0]
    result = Identification(
        matched=best.residual <= tolerance,
        convention=best.convention,
        base=best.base,
        start=best.start,
        width=best.width,
        columns=(best.first, best.first + cols),
        residual=best.residual,
        rows=rows,
        dtype=precision,
        tolerance=tolerance,
        equivalent=tuple(h.convention for h in ranked[1:] if h.residual <= tolerance),
        alternatives=tuple(_candidate(h, cols) for h in ranked[1:5]),
        explanation="",
    )
    return replace(result, explanation=_explanation(result, stored))


def _candidate(h: _Hypothesis, cols: int) -> Candidate:
    return Candidate(
        h.convention, h.base, h.start, h.width, (h.first, h.first + cols), h.residual, h.complete
    )


def _number(x: float) -> str:
    return f"{x:.3g}" if x else "0"


def _explanation(result: Identification, stored: str) -> str:
    """A few sentences on the result."""
    convention = conventions.CONVENTIONS[result.convention]
    first, stop = result.columns
    where = (
        f"all {result.width} columns"
        if (first, stop) == (0, result.width)
        else f"columns {first} to {stop - 1} of a table of width {result.width}"
    )
    last = result.start + result.rows - 1
    held = f"{result.dtype} values" + (f" stored as {stored}" if stored != result.dtype else "")
    lines = []
    if result.matched:
        lines.append(f"The table is the {result.convention} convention ({convention.title}).")
    else:
        lines.append(
            "No convention explains this table within the tolerance (column slices are "
            "recognised for the interleaved layouts only)."
        )
        lines.append(f"Closest: {result.convention} ({convention.title}).")
    lines.append(
        f"Base {result.base:g}, positions {result.start} to {last}, {where}; "
        f"largest difference {_number(result.residual)} "
        f"(tolerance {result.tolerance:.2g} for {held})."
    )
    if (first, stop) != (0, result.width):
        lines.append(
            "A column slice fixes only ln(base)/width: the width is the one this base gives."
        )
    if result.equivalent:
        lines.append(
            "Also within the tolerance (they compute the same numbers here): "
            + ", ".join(result.equivalent)
            + "."
        )
    if result.rows == 1 and result.start == 0:
        lines.append("A single row at position 0 is the same for every base.")
    return " ".join(lines)


# --------------------------------------------------------------------------------------
# Reading files.


def load_table(path: str | Path, *, key: str | None = None) -> np.ndarray:
    """Read a table from a .npy, .npz, .csv or .pt file.

    - ``.npy``: the array. ``.npz``: its only array, or the one named ``key``.
    - ``.csv``: numbers separated by commas, one row per line. A first line with a
      field that is not a number is a header. The first column is taken as an index
      (and dropped) when the header names it ``pos``, ``position``, ``index`` or
      leaves it empty, or, without a header, when its values are the consecutive
      integers ``r0, r0 + 1, ...`` and at least one exceeds 1 (a sine or cosine never
      does).
    - ``.pt`` or ``.pth``: a tensor saved by PyTorch, or the tensor named ``key`` in a
      saved dictionary (needs PyTorch).

    A hostile file is refused before it is read in full: the header of a .npy array
    (or of each .npz member) must claim no more bytes than the file (or the member's
    declared size) holds, and no more than the memory limit of
    :func:`posenc._validate.memory_limit`; a .npz member is read no further than its
    declared size, and its CRC is checked; a .csv line is at most ``_MAX_LINE``
    characters and ``_MAX_COLUMNS`` fields. Arrays of Python objects (pickles) are never
    loaded.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    key : str, optional
        Which array of an .npz file or dictionary of tensors.

    Returns
    -------
    numpy.ndarray
        The table, in the type it was stored in (float64 for .csv; float32 for a
        bfloat16 tensor, whose values it holds exactly).

    Raises
    ------
    ValueError
        When the file is missing, unreadable, not a regular file, of an unknown type,
        corrupt, or holds no table (``posenc.TooLargeError``, a ValueError, when it
        claims more than the memory limit).
    """
    if isinstance(path, bytes) or not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a str or a pathlib.Path, got {type(path).__name__}")
    if key is not None and not isinstance(key, str):
        raise TypeError(f"key must be a str or None, got {type(key).__name__}")
    path = Path(path)
    shown = repr(str(path))
    suffix = path.suffix.lower()
    readers = {".npy": _read_npy, ".npz": _read_npz, ".csv": _read_csv, ".pt": _read_torch}
    readers[".pth"] = _read_torch
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise ValueError(f"cannot read {shown}: no such file") from None
    except OSError as error:
        raise ValueError(f"cannot read {shown}: {error.strerror or error}") from None
    if stat.S_ISDIR(mode):
        raise ValueError(f"cannot read {shown}: it is a directory")
    if suffix not in readers:
        raise ValueError(
            f"cannot read {shown}: unknown file type {suffix or '(none)'!r} "
            "(expected .npy, .npz, .csv or .pt)"
        )
    if not stat.S_ISREG(mode):  # a FIFO, a device (/dev/zero), a socket: no end, or no size
        raise ValueError(f"cannot read {shown}: it is not a regular file ({_kind(mode)})")
    if suffix not in (".npz", ".pt", ".pth") and key is not None:
        raise ValueError(f"key applies to .npz and .pt files only, not {shown}")
    try:
        if path.stat().st_size == 0:
            raise ValueError(f"cannot read {shown}: the file is empty")
        return readers[suffix](path, shown, key)
    except OSError as error:
        raise ValueError(f"cannot read {shown}: {error.strerror or error}") from None


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a file"


def _read_npy(path: Path, shown: str, key: str | None) -> np.ndarray:
    size = path.stat().st_size
    with open(path, "rb") as file:
        return _npy_array(file, size, f"{shown} as a .npy file", shown)


def _npy_array(
    file: BinaryIO, size: int, what: str, shown: str, *, whole: bool = False
) -> np.ndarray:
    """The array of a .npy stream of ``size`` bytes, its header checked before the data.

    The header (at most NumPy's 10000 characters) says the dtype and shape; the data
    must then be ``prod(shape) * itemsize`` bytes, which the stream must hold and the
    memory limit allow. Object arrays would be unpickled: refused. With ``whole`` (a
    member of a .npz archive), the data must end the stream, which is then read to its
    end so that zipfile checks its CRC.
    """
    try:
        version = np.lib.format.read_magic(file)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(file)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(file)
        else:
            raise ValueError(f"unknown .npy format version {version}")
    except (ValueError, EOFError, SyntaxError, TypeError, RecursionError, TokenError) as error:
        # NumPy parses the header as a Python literal: a forged one can fail in the parser.
        raise ValueError(f"cannot read {what}: {_one_line(error)}") from None
    if dtype.hasobject:
        raise ValueError(
            f"cannot read {what}: it holds Python objects (dtype {dtype}), which would "
            "have to be unpickled; save the table as numbers"
        )
    claimed = math.prod(shape) * dtype.itemsize
    held = size - file.tell()
    if whole and claimed < held:
        raise ValueError(
            f"cannot read {what}: its header claims shape {shape} of {dtype} "
            f"({claimed} bytes), but {held} bytes follow (a forged member)"
        )
    if claimed > held:
        raise ValueError(
            f"cannot read {what}: its header claims shape {shape} of {dtype} "
            f"({claimed} bytes), but only {held} bytes follow (truncated or forged)"
        )
    _validate.memory(f"{shown}, shape {shape} of {dtype}", claimed)
    data = bytearray(claimed)
    view, done = memoryview(data), 0
    while done < claimed:  # read exactly the claimed bytes, never more
        count = file.readinto(view[done:])
        if not count:
            raise ValueError(
                f"cannot read {what}: it ends after {done} of the {claimed} bytes its "
                "header claims (truncated)"
            )
        done += count
    if whole and file.read(1):  # the end of the member: zipfile checks the CRC here
        raise ValueError(f"cannot read {what}: it holds more bytes than it declares")
    array = np.frombuffer(data, dtype=dtype)
    return array.reshape(shape, order="F" if fortran else "C")


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


#: Errors a damaged zip archive raises as it is read.
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    NotImplementedError,  # a compression method zipfile does not know
    RuntimeError,  # an encrypted member
    ValueError,
    OSError,
)


def _read_npz(path: Path, shown: str, key: str | None) -> np.ndarray:
    what = f"{shown} as a .npz file"
    try:
        archive = zipfile.ZipFile(path)
    except _ZIP_ERRORS as error:
        raise ValueError(f"cannot read {what}: {_one_line(error)}") from None
    with archive:
        members = {}
        for info in archive.infolist():
            name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            members.setdefault(name, info)

        def get(name: str) -> np.ndarray:
            info = members[name]
            try:
                with archive.open(info) as member:
                    # The member stream ends at its declared size; zipfile checks the CRC.
                    where = f"{what}: array {name!r}"
                    return _npy_array(member, info.file_size, where, shown, whole=True)
            except _ZIP_ERRORS as error:
                ours = isinstance(error, _validate.TooLargeError) or str(error).startswith(
                    "cannot read"
                )
                if isinstance(error, ValueError) and ours:
                    raise
                raise ValueError(f"cannot read {what}: {_one_line(error)}") from None

        return _choose(dict.fromkeys(members), key, shown, get)


def _choose(names: dict, key: str | None, shown: str, get) -> Any:
    listed = ", ".join(names) or "none"
    if key is not None:
        if key not in names:
            raise ValueError(f"{shown} has no array {key!r} (arrays: {listed})")
        return get(key)
    if len(names) == 1:
        return get(next(iter(names)))
    if not names:
        raise ValueError(f"{shown} holds no arrays")
    raise ValueError(f"{shown} holds several arrays ({listed}): choose one with --key")


_INDEX_NAMES = ("", "pos", "position", "positions", "index", "idx")

#: Longest .csv line read, in characters: 2**20 columns of 24-digit numbers.
_MAX_LINE = 2**25

#: Most fields on a .csv line.
_MAX_COLUMNS = 2**20


def _read_csv(path: Path, shown: str, key: str | None) -> np.ndarray:
    # Each value takes at least 2 bytes ("0,") and becomes 8: the rows and their stack.
    _validate.memory(f"{shown} of {path.stat().st_size} bytes", 8 * path.stat().st_size)
    with open(path, "rb") as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8-sig", newline=None)
        rows: list[np.ndarray] = []
        header = None
        size = None
        number = 0
        try:
            while line := text.readline(_MAX_LINE + 1):
                number += 1
                if len(line) > _MAX_LINE:
                    raise ValueError(
                        f"cannot read {shown}: line {number} is longer than {_MAX_LINE} "
                        "characters; is it a table of numbers?"
                    )
                if not line.strip():
                    continue
                if line.count(",") >= _MAX_COLUMNS:
                    raise ValueError(
                        f"cannot read {shown}: line {number} has more than {_MAX_COLUMNS} fields"
                    )
                fields = [f.strip() for f in line.split(",")]
                if size is None and header is None and not all(_is_number(f) for f in fields):
                    header = fields
                    continue
                if size is None:
                    size = len(fields)
                if len(fields) != size:
                    raise ValueError(
                        f"cannot read {shown}: line {number} has {len(fields)} fields, "
                        f"the first row has {size}"
                    )
                rows.append(_csv_row(fields, number, shown))
        except UnicodeDecodeError:
            raise ValueError(f"cannot read {shown} as a .csv file: it is not text") from None
    if not rows and header is None:
        raise ValueError(f"cannot read {shown}: it holds no rows")
    if not rows:
        raise ValueError(f"cannot read {shown}: it has a header but no rows of numbers")
    values = np.stack(rows)  # (n, k)
    if header is not None and len(header) != size:
        raise ValueError(
            f"cannot read {shown}: the header has {len(header)} fields, the rows {size}"
        )
    if size > 1 and _index_column(values[:, 0], None if header is None else header[0]):
        values = values[:, 1:]
    return values


def _csv_row(fields: list[str], number: int, shown: str) -> np.ndarray:
    try:
        return np.array([float(f) for f in fields], dtype=np.float64)  # (k,)
    except ValueError:
        bad = next(f for f in fields if not _is_number(f))
        message = f"cannot read {shown}: line {number} has {bad!r}, not a number"
        raise ValueError(message) from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _index_column(column: np.ndarray, name: str | None) -> bool:
    """Whether the first column counts positions rather than holding a sine."""
    whole = bool(np.all(np.isfinite(column)) and np.all(column == np.round(column)))
    if name is not None and name.strip().lower() in _INDEX_NAMES:
        return whole
    consecutive = column.size >= 2 and bool(np.all(np.diff(column) == 1))
    return whole and consecutive and bool(np.max(np.abs(column)) > 1)


def _read_torch(path: Path, shown: str, key: str | None) -> np.ndarray:
    try:
        import torch
    except ImportError:
        raise ValueError("reading .pt files needs PyTorch: pip install torch") from None
    try:
        loaded = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a bad file
        message = f"cannot read {shown} as a PyTorch file: {_one_line(error)}"
        raise ValueError(message) from None
    if isinstance(loaded, dict):
        tensors = {str(k): v for k, v in loaded.items() if hasattr(v, "numpy")}
        loaded = _choose(dict.fromkeys(tensors), key, shown, tensors.__getitem__)
    elif key is not None:
        raise ValueError(f"{shown} holds a single tensor, not a dictionary: drop --key")
    if not hasattr(loaded, "numpy"):
        raise ValueError(f"{shown} holds a {type(loaded).__name__}, not a tensor")
    tensor = loaded.detach().cpu() if hasattr(loaded, "detach") else loaded
    try:
        return np.asarray(tensor.numpy())
    except TypeError:  # bfloat16 has no NumPy type: its values are exact in float32
        return np.asarray(tensor.float().numpy())
