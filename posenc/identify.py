"""Which library's convention made a sinusoidal position table?

Given a table of numbers (one row per position, one column per feature), find the
convention of :data:`posenc.conventions.CONVENTIONS`, the base and the first position
that explain it, and say how well: the largest absolute difference between the table
and the convention's formula, judged against an error model of the library's precision
path; then say which precision path fits best.

How a table is read
-------------------
The structure first, then the precision path.

**Structure.** Each convention fixes which columns hold a sine and which the matching
cosine, and the exponent rule of each pair's angular speed ``w_i = base**(-e_i)``. For
each layout in turn:

1. Each pair ``(sin, cos)`` of columns is read as unit complex numbers
   ``z[r] = cos + i sin = exp(i (phi + r w))``, one per row ``r``. The angular speed
   ``w`` is the angle of ``sum z[r+1] conj(z[r])`` (a shift is a rotation), then
   sharpened with a long lag; the phase ``phi`` is the angle of
   ``sum z[r] exp(-i r w)``.
2. The base comes from the log-speeds, ``ln w_i = -e_i ln(base)``, by weighted least
   squares; round bases near the estimate (10000, 500000, ...) are tried first.
3. With the exact speeds of that base, the first position ``s`` solves
   ``s w_i = phi_i (mod 2 pi)`` for every pair: the slowest pair gives a few
   candidates (one per turn), each refined pair by pair from slow to fast, and the
   few that agree best with every pair are kept.
4. Each hypothesis (convention, base, first position, columns) is judged against the
   convention's **formula**, :func:`posenc.conventions.columns` evaluated exactly (with
   fairseq's zero padding row and an odd width's zero column), entry by entry, under
   each **error model** the library's precision path may follow (:data:`MODELS`).

**The error models.** For an entry of angle ``t = pos * w`` (exact) with
``|ln w|`` the log of its column's speed, and ``eps`` the ulp at 1 of the type the
angles are computed in, a table may differ from the formula by at most::

    ((2 |ln w| + 3) t + 2) eps        angles in float32 (or float16, bfloat16, float64)
    half an ulp + ((2 |ln w| + 3) t + 2) eps64        "rounded once"

plus half an ulp of the storage type when it is narrower than the compute type (and
half a float32 ulp more for a float32 table cast to float16 or bfloat16). The count
behind it: the float32 argument of ``exp`` (``-i ln(base) / (h-1)`` or
``2i ln(base) / d``) is rounded two or three times, each worth ``|ln w| eps / 2`` of
relative error in the speed; ``exp`` or ``pow`` adds about an ulp; rounding
``pos * w`` half an ulp of ``t``; and ``sin`` and ``cos``, of slope at most 1, about two
more ulps at 1. So the error grows like position times ulp: at position 100,000 a
float32 table may be off by a few 1e-2 in its fastest columns, while a table rounded
once is within half an ulp everywhere. ``fit`` is the largest ratio of the difference to
this bound; the table is explained when it is at most 1. The conformance suite
(``make conformance``) measures the real libraries against it.

Which models a convention may follow: the paper's formula, Hugging Face XLM and Marian
are ``"rounded once"``; fairseq, tensor2tensor, Whisper and the PyTorch tutorial compute
their angles in float32; Keras-Hub in the layer's compute dtype (float32, or the
table's own precision). Among explanations, a round base comes before one with many
digits, a whole table before a slice, and a tighter model before a looser one; so no odd
base is offered when a named convention explains the table within its model.

**Evidence: can the table decide?** A fit is not yet an answer. Far from position 0
in a low precision the error model allows a difference of 2 (a whole sine), and a table
of random values fits it. So each fit is weighed (:func:`_evidence`): a pair of entries
allowed ``b_s`` and ``b_c`` is worth ``-log2 min(1, max(b_s, b_c))`` bits, since values
drawn uniformly from [-1, 1], or pairs at random angles, land within such bounds with a
chance of at most ``max(b_s, b_c)``. A structure is named when its bits reach
``LEVEL_BITS`` (20: a chance of about one in a million) plus the length of a code that
names it among all the structures searched (:func:`_needed`: convention, error model,
storage type, base, first position, columns); these lengths obey Kraft's inequality, so
however the search picked it, random values of either kind are identified with a chance
of at most ``2**-LEVEL_BITS``. The named first position must also be told from its
neighbours (a position the precision cannot resolve is not an answer), and no structure
with another first position may explain the table almost as well (bits to name minus
bits of evidence within ``LEVEL_BITS``). Otherwise the verdict is "cannot tell", with the
reason. Structures at the same first position that read the same numbers with another
base (one row at position 0 fits every base; a column slice fixes only
``ln(base)/width``) are reported as what was assumed.

**Storage.** The storage type is part of the hypothesis: the array's own type (the
tightest bound), and the narrowest format that holds every value (a table cast down,
such as a float32 table cast to bfloat16 and back); the better explanation wins, the
array's own type between equals.

**Precision path.** Then, separately, the named convention's own operations are run
(``conventions.table(..., path="emulated")``, for Keras-Hub in each compute dtype, and
in float64 also with ``1 / max_wavelength`` rounded to float32 as Keras does on
TensorFlow) and the closest is reported in ``emulation``: its call, its largest
difference, and whether it is bit-identical. Conventions whose formula and model explain
the table equally well (fairseq and Whisper away from fairseq's padding row; the four
interleaved conventions on a table rounded once) are listed in ``equivalent``, and
the closest emulation decides which one is named.

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

Limits
------
- The rows must be consecutive positions, in order.
- Each convention is tried with its own options (tensor2tensor's ``min_timescale`` 1,
  fairseq's ``padding_idx`` 1); only the base, the first position and the columns are
  searched.
- A base that is not a round number is found only as closely as the speeds allow,
  which a float64 table may not accept.
- A single row gives no speeds: the base then comes from the phases alone, among
  common values, and a single row at position 0 fits every base (the convention's own
  is assumed, and the answer says so).
- A narrow table (a handful of pairs) whose angles were rounded to float32, far from
  position 0, can have several first positions that fit its angles about as well;
  the whole-table comparison picks among a few, and may then report none.
- The error model is loose far from position 0 (it grows with the angle), so there
  two structures that differ by less than the bound cannot be told apart: both are
  then in ``equivalent`` when their base and first position agree, and the verdict is
  "cannot tell" when their first positions differ.
- The guarantee against random values holds for the two kinds of noise that
  :func:`_evidence` weighs, each independent from pair to pair. A table made to fool
  it (a real code with one column replaced, say) is judged by its fit, entry by entry.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from posenc import _validate, conventions, encoding
from posenc._evidence import LEVEL_BITS, number_bits, significant_digits
from posenc._files import load_table
from posenc.precision import FORMATS, round_to, ulp

__all__ = [
    "LEVEL_BITS",
    "MODELS",
    "Candidate",
    "Emulation",
    "Evidence",
    "Identification",
    "identify",
    "load_table",
]

_TWO_PI = 2 * math.pi

#: Where :func:`identify` reports what it is doing on a long table (its ``status``).
_STATUS: ContextVar[Callable[[str], None] | None] = ContextVar("status", default=None)


def _say(text: str) -> None:
    say = _STATUS.get()
    if say is not None:
        say(text)


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
        Largest absolute difference from the convention's formula (exact values).
    model : str
        The error model judged (one of :data:`MODELS`): the tightest that fits, or the
        one that comes closest.
    fit : float
        Largest ratio of the difference to the model's bound, entry by entry; the
        candidate explains the table when it is at most 1.
    complete : bool
        Whether ``residual`` and ``fit`` are over every row; otherwise they are over
        the first and last rows only (a lower bound).
    """

    convention: str
    base: float
    start: int
    width: int
    columns: tuple[int, int]
    residual: float
    model: str
    fit: float
    complete: bool


@dataclass(frozen=True)
class Emulation:
    """How close posenc's emulation of the library's own operations comes to the table.

    Attributes
    ----------
    call : str
        The :func:`posenc.conventions.table` call that builds it (``path="emulated"``).
    note : str
        What the emulation follows.
    residual : float
        Largest absolute difference from the table, after rounding to its precision.
    identical : bool
        Whether every entry is the same number.
    """

    call: str
    note: str
    residual: float
    identical: bool


#: The three verdicts of :func:`identify`.
IDENTIFIED, UNDECIDED, NOT_IDENTIFIED = "identified", "cannot tell", "not identified"


@dataclass(frozen=True)
class Evidence:
    """How much the table says for the named structure, in bits.

    Attributes
    ----------
    bits : float
        ``-log2`` of the chance that a table of random values (uniform in [-1, 1], or
        pairs at random angles) lies within the error model's bounds of the structure,
        entry by entry: 0 when the bounds allow anything.
    needed : float
        The bits a structure needs before it is named: ``LEVEL_BITS`` (a chance of one
        in about a million that random values are identified at all) plus the length
        of a code that names this structure among all that are searched.
    """

    bits: float
    needed: float


@dataclass(frozen=True)
class Identification:
    """What :func:`identify` found: the structure, the error model, the precision path.

    :meth:`as_dict` gives the JSON of ``posenc identify --json`` (``schema`` 3).

    Attributes
    ----------
    verdict : {"identified", "cannot tell", "not identified"}
        "identified" when the best structure lies within its error model's bound at
        every entry, the table holds the evidence to name it (``evidence``), its first
        position is told from its neighbours, and no other structure with the evidence
        to be named fits as well. "cannot tell" when it fits but one of these fails
        (``undecided`` says which). "not identified" when nothing fits.
    matched : bool
        ``verdict == "identified"``.
    fits : bool
        The best structure lies within its error model's bound at every entry
        (``fit <= 1``), whether or not the table can decide.
    convention, base, start, width, columns, residual, model, fit
        The best candidate (see :class:`Candidate`); when ``matched`` is false, the
        closest one.
    tolerance : float
        The largest bound of ``model`` over the table's entries.
    rows : int
        Number of rows of the table: positions ``start .. start + rows - 1``.
    dtype : str
        The storage type of the explanation: the array's own type, or the narrowest
        format that holds every value when that explains the table better
        (``"bfloat16"``, ``"float16"``, ``"float32"`` or ``"float64"``).
    evidence : Evidence
        The bits of evidence for the best structure, and the bits it needs.
    undecided : tuple of str
        Why the data cannot decide, when the verdict is "cannot tell".
    assumed : tuple of str
        What was assumed where these rows cannot decide (a base, when other bases fit
        them as well).
    equivalent : tuple of str
        Other conventions with the same base, first position and columns whose formula
        and error model also explain the table: on these rows it cannot tell them apart.
    emulation : Emulation or None
        The precision path, second: the closest of posenc's emulations of the named
        convention's operations (``None`` when nothing matched).
    alternatives : tuple of Candidate
        The next best explanations, best first, one per convention.
    explanation : str
        A few sentences for a reader.
    """

    verdict: str
    matched: bool
    fits: bool
    convention: str
    base: float
    start: int
    width: int
    columns: tuple[int, int]
    residual: float
    model: str
    fit: float
    tolerance: float
    rows: int
    dtype: str
    evidence: Evidence
    undecided: tuple[str, ...]
    assumed: tuple[str, ...]
    equivalent: tuple[str, ...]
    emulation: Emulation | None
    alternatives: tuple[Candidate, ...]
    explanation: str = field(repr=False)

    def as_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready data (infinite numbers become ``None``)."""
        data = {"schema": 3, **asdict(self)}
        data["columns"] = list(self.columns)
        data["undecided"] = list(self.undecided)
        data["assumed"] = list(self.assumed)
        data["evidence"] = {
            k: round(v, 1) if math.isfinite(v) else None for k, v in data["evidence"].items()
        }
        data["equivalent"] = list(self.equivalent)
        data["alternatives"] = [
            {
                **asdict(c),
                "columns": list(c.columns),
                "residual": _finite(c.residual),
                "fit": _finite(c.fit),
            }
            for c in self.alternatives
        ]
        for key in ("residual", "fit", "tolerance"):
            data[key] = _finite(data[key])
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
        vector = (
            "; a vector of rotary speeds (inverse frequencies) is read by "
            "posenc.identify_rope.identify_inv_freq, on the command line with --rope speeds"
            if array.ndim == 1
            else ""
        )
        raise ValueError(
            f"table must be 2-D (one row per position, one column per feature), "
            f"got shape {array.shape}{vector}"
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


@functools.lru_cache(maxsize=256)
def _columns_of(name: str, width: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """``conventions.columns`` as arrays (read-only): kinds (d,) and speeds (d,)."""
    kinds, speeds = conventions.columns(name, width, base=base)
    kinds, speeds = np.array(kinds), np.array(speeds)
    kinds.flags.writeable = speeds.flags.writeable = False
    return kinds, speeds


@functools.lru_cache(maxsize=64)
def _low_parts(name: str, width: int, base: float) -> np.ndarray:
    """What each column's float64 speed misses of the real one, (d,): ``w - fl(w)``.

    Every speed is ``base**(-e)`` with ``e`` a fraction of denominator at most ``d``
    (``2(j//2)/d`` or ``i/(h-1)``), so ``e`` is recovered exactly from the float64 speed
    and the real speed computed in 40-digit arithmetic.
    """
    _, speeds = _columns_of(name, width, base)
    low = np.zeros(width)  # (d,)
    with localcontext() as context:
        context.prec = 40
        log_base = Decimal(base).ln()
        for j, w in enumerate(speeds.tolist()):
            if w > 0 and w != 1.0:
                e = Fraction(-math.log(w) / math.log(base)).limit_denominator(2 * width)
                real = (-log_base * e.numerator / e.denominator).exp()
                low[j] = float(real - Decimal(w))
    return low


def _allowed_width(name: str, width: int) -> bool:
    """Whether the convention's library computes a table of this width."""
    try:
        _columns_of(name, width, conventions.CONVENTIONS[name].base)
    except ValueError:
        return False
    return True


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
# The error models: how far a table may lie from its formula, entry by entry.

#: The error models, tightest first (the order in which a fit is preferred).
MODELS = ("rounded once", "float64 angles", "float32 angles", "float16 angles", "bfloat16 angles")

_NARROWER = {"float64": 0, "float32": 1, "float16": 2, "bfloat16": 3}


def _eps(precision: str) -> float:
    """One ulp at 1 in a format: ``2**(1 - p)``."""
    return 2.0 ** (1 - FORMATS[precision].significand_bits)


def _models(name: str, precision: str) -> tuple[str, ...]:
    """The error models a convention's table may follow, stored in ``precision``.

    The paper's formula (posenc's reference), XLM and Marian (float64, rounded once to
    float32) are rounded once; fairseq, tensor2tensor, Whisper and the PyTorch tutorial
    compute their angles in float32; Keras-Hub in the layer's compute dtype, float32 by
    default or the table's own precision.
    """
    convention = conventions.CONVENTIONS[name]
    if name == "keras-hub":
        own = f"{precision} angles"
        return tuple(m for m in MODELS if m in ("float32 angles", own))
    if convention.compute_dtype == "float32":
        return ("float32 angles",)
    return ("rounded once",)


def _bound(model: str, exact: np.ndarray, angle: np.ndarray, log_speed: np.ndarray, stored):
    """The largest ``|table - formula|`` the model allows, entry by entry, (n, k).

    ``exact`` holds the formula's values, ``angle`` the exact angles ``t = pos * w``
    and ``log_speed`` ``|ln w|`` of each column (0 for a zero column). With ``eps`` the
    ulp at 1 of the compute type:

    - **angles in a binary type** (``"float32 angles"`` and the others): the speed's
      argument (``-i ln(base) / (h - 1)`` or ``2i ln(base) / d``) is rounded two or
      three times, each worth ``|ln w| eps / 2`` of relative error in the speed, and
      ``exp`` or ``pow`` adds about an ulp: together at most ``(2 |ln w| + 2) eps``
      relative. Rounding ``pos * w`` adds ``eps / 2`` of ``t``, and ``sin`` or ``cos``
      (slope at most 1, faithful) about ``2 eps``. So ``((2 |ln w| + 3) t + 2) eps``.
    - **rounded once**: the formula in float64 (within ``((2 |ln w| + 3) t + 2)`` float64
      ulps, by the same count), rounded once to the library's float32.

    Either way storing the result in a narrower type adds half its ulp, and a float32
    table cast to a narrower type half a float32 ulp more (double rounding).
    """
    spread = (2.0 * log_speed[None, :] + 3.0) * angle + 2.0  # (n, k), in ulps at 1
    compute = "float64" if model == "rounded once" else model.split()[0]
    bound = spread * _eps(compute)
    if model == "rounded once" or _NARROWER[stored] > _NARROWER[compute]:
        bound = bound + 0.5 * ulp(exact, stored)
    if _NARROWER[stored] > _NARROWER["float32"]:
        bound = bound + 0.5 * ulp(exact, "float32")
    return bound


# --------------------------------------------------------------------------------------
# Evidence: could a table that is not a position code have fitted as well?

#: Widest table a column slice is read from (:func:`_column_slices`).
_MAX_SLICE_WIDTH = 2**20


@functools.lru_cache(maxsize=256)
def _pair_columns(name: str, width: int, first: int, cols: int):
    """Columns of the table that hold a pair's sine, its cosine, and columns with no pair.

    The columns are ``first .. first + cols - 1`` of the convention's table of ``width``;
    a pair cut by the slice, an odd width's extra column and a zero column have no pair.
    """
    layout = _layout(name, width, first, cols)
    paired = np.zeros(cols, dtype=bool)
    paired[layout.sines] = paired[layout.cosines] = True
    return layout.sines, layout.cosines, np.flatnonzero(~paired)


def _evidence(bound: np.ndarray, sines, cosines, lone) -> float:
    """Bits of evidence in a model's bounds: ``-log2`` of the chance that noise fits them.

    Two kinds of noise are weighed, each independent from pair to pair: values drawn
    uniformly from [-1, 1] (the chance that one lands within ``b`` of a given value is
    at most ``b``), and pairs ``(sin a, cos a)`` at uniformly random angles ``a`` (within
    ``b`` of the pair's value in both columns only if ``a`` is within about ``b`` of the
    angle, a share ``b / pi`` of the turn). So a pair whose entries are allowed ``b_s``
    and ``b_c`` counts ``-log2 min(1, max(b_s, b_c))`` bits, and a column without a pair
    ``-log2 min(1, b)`` per entry. A bound of 1 or more is worth nothing: at a far
    position in a low precision, where the error model allows a whole sine, the table
    carries no evidence at all.
    """
    b = np.minimum(bound, 1.0)  # (n, k), > 0
    pair = np.maximum(b[:, sines], b[:, cosines])  # (n, p)
    return float(-np.log2(pair).sum() - np.log2(b[:, lone]).sum())


def _needed(h: _Hypothesis, conventions_tried: int) -> float:
    """Bits of evidence a hypothesis needs before it is named: ``LEVEL_BITS`` + its cost.

    The cost is the length of a code that names the hypothesis among all that identify
    could try: which convention, which error model and storage type, the base (1 bit
    for the convention's own, more for others, by their digits), the first position (1
    bit for the convention's own, else one of ``MAX_START + 1``), the columns (1 bit for
    the whole table, else a width and a first column). These lengths satisfy Kraft's
    inequality (``sum 2**-cost <= 1`` over every hypothesis), so if each named hypothesis
    has ``bits >= LEVEL_BITS + cost``, the chance that noise of either kind of
    :func:`_evidence` gets any hypothesis named is at most ``2**-LEVEL_BITS``, however
    the search picked it.
    """
    convention = conventions.CONVENTIONS[h.convention]
    cost = math.log2(conventions_tried) + math.log2(len(MODELS)) + math.log2(len(_PRECISIONS))
    cost += 1 if h.base == convention.base else 1 + number_bits(h.base)
    cost += 1 if h.start == convention.start else 1 + math.log2(MAX_START + 1)
    if h.sliced:
        cost += 1 + math.log2(_MAX_SLICE_WIDTH) + math.log2(h.width)
    else:
        cost += 1
    return LEVEL_BITS + cost


# --------------------------------------------------------------------------------------
# Judging hypotheses against the formula.


@dataclass
class _Hypothesis:
    convention: str
    base: float
    start: int
    width: int
    first: int  # first column
    base_rank: int  # 0 for the convention's default base, else its significant digits
    sliced: bool  # a slice of the columns of a wider table
    models: tuple[str, ...] = ()  # the error models it may follow, tightest first
    fits: dict = field(default_factory=dict)  # model -> largest |difference| / bound
    residual: float = math.inf  # largest |table - formula|
    peaks: dict = field(default_factory=dict)  # model -> largest bound
    complete: bool = False  # fits and residual are over every row, not a sample
    emulation: dict | None = None  # the closest emulation of the library's operations
    bits: dict = field(default_factory=dict)  # model -> evidence, bits (see _evidence)
    needed: float = math.inf  # bits of evidence it needs to be named (see _needed)

    @property
    def model(self) -> str:
        """The tightest model that fits, else the one that comes closest."""
        for model in self.models:
            if self.fits.get(model, math.inf) <= 1.0:
                return model
        return min(self.models, key=lambda m: self.fits.get(m, math.inf))

    @property
    def fit(self) -> float:
        return self.fits.get(self.model, math.inf)

    @property
    def matched(self) -> bool:
        """Within its error model's bound at every entry judged."""
        return self.fit <= 1.0

    @property
    def decided(self) -> bool:
        """Matched, and the bound is tight enough that random values would not be."""
        return self.matched and self.bits.get(self.model, 0.0) >= self.needed


def _formula(h: _Hypothesis, top: int, count: int, cols: int, accurate: bool = False):
    """The formula's values, exact angles and ``|ln w|`` for rows ``top .. top+count-1``.

    With ``accurate`` (for float64 tables) each value is within a few 1e-16 of the
    real number; otherwise within about ``t * 2**-52``, which the error models allow.
    """
    kinds, speeds = _columns_of(h.convention, h.width, h.base)
    kinds, speeds = kinds[h.first : h.first + cols], speeds[h.first : h.first + cols]  # (k,)
    if kinds.size != cols:
        raise ValueError("the slice runs past the convention's table")
    positions = np.arange(h.start + top, h.start + top + count, dtype=np.float64)  # (n,)
    angle = positions[:, None] * speeds[None, :]  # (n, k)
    exact = np.zeros_like(angle)  # (n, k): the zero columns stay zero
    sines, cosines = kinds == "sin", kinds == "cos"
    if accurate:  # within a few 1e-16 at any position: exactly reduced double-doubles
        low = _low_parts(h.convention, h.width, h.base)[h.first : h.first + cols]  # (k,)
        sin_hi, _, cos_hi, _ = encoding._cis(positions[:, None], speeds[None, :], low[None, :])
        exact[:, sines], exact[:, cosines] = sin_hi[:, sines], cos_hi[:, cosines]
    else:  # float64 angles: off by about t * 2**-52, far inside a float32 ulp
        exact[:, sines] = np.sin(angle[:, sines])
        exact[:, cosines] = np.cos(angle[:, cosines])
    padding = conventions.CONVENTIONS[h.convention].padding_idx
    if padding is not None:
        exact[positions == padding] = 0.0  # fairseq's padding row
    with np.errstate(divide="ignore"):
        log_speed = np.where(speeds > 0, np.abs(np.log(speeds)), 0.0)  # (k,)
    return exact, angle, log_speed


def _judge(h: _Hypothesis, values: np.ndarray, stored: str, rows, accurate=False) -> None:
    """Set the hypothesis's residual and model fits over the given row ranges.

    The models' bounds allow for the float64 evaluation of the formula, so the fits
    hold either way; ``accurate`` makes the residual of a float64 table exact too.
    """
    residual, fits, peaks = 0.0, dict.fromkeys(h.models, 0.0), dict.fromkeys(h.models, 0.0)
    bits = dict.fromkeys(h.models, 0.0)
    sines, cosines, lone = _pair_columns(h.convention, h.width, h.first, values.shape[1])
    total = values.shape[0]
    for top, count in rows:
        _say(f"judging {h.convention}, base {h.base:g}, start {h.start}: row {top} of {total}")
        try:
            exact, angle, log_speed = _formula(h, top, count, values.shape[1], accurate)
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            h.residual, h.fits = math.inf, dict.fromkeys(h.models, math.inf)
            return
        difference = np.abs(values[top : top + count] - exact)  # (count, k)
        if not np.all(np.isfinite(difference)):
            h.residual, h.fits = math.inf, dict.fromkeys(h.models, math.inf)
            return
        residual = max(residual, float(difference.max(initial=0.0)))
        for model in h.models:
            bound = _bound(model, exact, angle, log_speed, stored)  # (count, k), > 0
            fits[model] = max(fits[model], float((difference / bound).max(initial=0.0)))
            peaks[model] = max(peaks[model], float(bound.max(initial=0.0)))
            bits[model] += _evidence(bound, sines, cosines, lone)
    h.residual, h.fits, h.peaks, h.bits = residual, fits, peaks, bits


def _sample_rows(rows: int) -> list[tuple[int, int]]:
    if rows <= 2 * _SAMPLE_ROWS:
        return [(0, rows)]
    return [(0, _SAMPLE_ROWS), (rows - _SAMPLE_ROWS, _SAMPLE_ROWS)]


def _all_rows(rows: int) -> list[tuple[int, int]]:
    step = 4096  # bounds the memory of one block
    return [(top, min(step, rows - top)) for top in range(0, rows, step)]


# --------------------------------------------------------------------------------------
# Hypotheses.


def _add(found, name, base, width, first, z, layout, *, sliced, solved, precision, tried):
    """Add ``(name, base, width, first column)`` with the first position it implies.

    ``tried`` is the number of conventions searched, which the evidence needed counts.
    """
    default = conventions.CONVENTIONS[name].base
    speed = np.power(base, -layout.exponents)  # (p,): the formula's speeds
    key = (base, layout.exponents.tobytes(), layout.sines.tobytes(), layout.cosines.tobytes())
    if key not in solved:  # conventions with the same columns and speeds share it
        solved[key] = _solve_start(_phases(z, speed), speed) if speed.size else [0]
    rank = 0 if base == default else significant_digits(base)
    for start in solved[key]:
        entry = (name, base, width, first, start)
        if entry not in found:
            h = _Hypothesis(
                name, base, start, width, first, rank, sliced, models=_models(name, precision)
            )
            h.needed = _needed(h, tried)
            found[entry] = h


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
                tried=len(names),
            )


_INTERLEAVED = tuple(
    name for name, c in conventions.CONVENTIONS.items() if c.layout == "interleaved"
)


def _column_slices(names, values, precision, found) -> None:
    """Hypotheses that the table is a slice of columns of a wider interleaved table."""
    rows, cols = values.shape
    tried = len(names)
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
                    tried=tried,
                )


# --------------------------------------------------------------------------------------
# Ranking: the structure first, then the precision path.

_ORDER = {name: k for k, name in enumerate(conventions.CONVENTIONS)}


def _order(h: _Hypothesis, stored: str):
    """Sort key: explained first, then simple bases, whole tables, tight models, exact fits.

    Explained with the evidence to be named (:func:`_needed`) comes before explained by a
    bound that noise would fit too.

    A slice of a wider table counts as one more digit of base, so that a whole table
    with a round base wins over a slice, and a slice with the default base wins over a
    whole table whose base has many digits. Among explanations of the same structure,
    the tightest error model wins, then the closest emulation of the library's own
    operations. Unexplained hypotheses are ordered by their largest difference.
    """
    convention = conventions.CONVENTIONS[h.convention]
    # Stored in the type the library makes: its output type, or Keras-Hub's compute type.
    made = h.model.split()[0] if h.convention == "keras-hub" else convention.output_dtype
    tail = (stored != made, h.start != convention.start, _ORDER[h.convention])
    if h.matched:  # with the evidence to be named first: a bound noise fits explains nothing
        emulated = h.emulation["residual"] if h.emulation else math.inf
        rest = (h.base_rank + h.sliced, h.sliced, MODELS.index(h.model), emulated, *tail)
        return (0 if h.decided else 1, *rest)
    # Unexplained: the closest values. (Not the smallest fit: far from position 0 the
    # models are loose, and a fit there would favour odd first positions.)
    return (2, h.residual, h.fit, h.base_rank + h.sliced, h.sliced, *tail)


def _rank(hypotheses, values, stored) -> list[_Hypothesis]:
    """The best hypothesis of each convention, best first.

    Every hypothesis is first judged on the first and last rows; those that fit their
    model there are judged on every row. A convention that nothing explains keeps its
    closest hypothesis, judged on every row for the few closest conventions.
    """
    rows = values.shape[0]
    pool = [h for h in hypotheses if math.isfinite(h.residual) or not h.fits]
    for h in pool:
        if not h.fits:
            _judge(h, values, stored, _sample_rows(rows))
            h.complete = rows <= 2 * _SAMPLE_ROWS
    pool = sorted((h for h in pool if math.isfinite(h.residual)), key=lambda h: _order(h, stored))
    best: dict[str, _Hypothesis] = {}
    for h in pool:  # best first: each convention keeps the first that fits every row
        held = best.get(h.convention)
        if held is not None and held.matched:
            continue
        if h.matched and not h.complete:
            _judge(h, values, stored, _all_rows(rows))
            h.complete = True
        if held is None or (h.matched and not held.matched):
            best[h.convention] = h
    ranked = sorted(best.values(), key=lambda h: _order(h, stored))
    for h in ranked[:_LEADER_CHECKS]:  # the closest unexplained ones, on every row
        if not h.complete:
            _judge(h, values, stored, _all_rows(rows))
            h.complete = True
    for h in ranked:
        if h.matched and h.emulation is None:
            h.emulation = _emulate(h, values, stored)
    return sorted(ranked, key=lambda h: _order(h, stored))


#: Unexplained conventions judged on every row to find the closest.
_LEADER_CHECKS = 3


# --------------------------------------------------------------------------------------
# The precision path: posenc's emulations of the library's operations.


def _emulations(h: _Hypothesis, stored: str) -> list[tuple[dict[str, Any], str]]:
    """``conventions.table`` options of the emulations worth trying, with a note each."""
    name = h.convention
    if name == "paper":
        dtype = stored if stored in ("float16", "float32", "float64") else "float64"
        return [({"dtype": dtype}, "the formula, as posenc.sinusoidal computes it")]
    if name != "keras-hub":
        return [({}, "the library's operations in order, in NumPy")]
    tried = []
    for model in h.models:
        dtype = model.split()[0]
        tried.append(({"dtype": dtype}, f"Keras-Hub computing in {dtype}"))
        if dtype == "float64":
            # On TensorFlow, 1 / max_wavelength reaches float64 through a float32 tensor.
            rounded = 1.0 / float(np.float32(1.0 / h.base))
            tried.append(
                (
                    {"dtype": dtype, "base": rounded},
                    "Keras-Hub in float64 with 1 / max_wavelength rounded to float32, as "
                    "on TensorFlow",
                )
            )
    return tried


def _emulate(h: _Hypothesis, values: np.ndarray, stored: str) -> dict[str, Any] | None:
    """The closest of the hypothesis's emulations: its call, residual and note."""
    rows, cols = values.shape
    best = None
    for options, note in _emulations(h, stored):
        arguments = {"base": h.base, **options}
        worst = 0.0
        try:
            for top, count in _all_rows(rows):
                _say(f"running {h.convention}'s own operations: row {top} of {rows}")
                built = conventions.table(
                    h.convention,
                    count,
                    h.width,
                    start=h.start + top,
                    path="emulated",
                    **arguments,
                )[:, h.first : h.first + cols]
                with np.errstate(over="ignore", invalid="ignore"):
                    built = round_to(built, stored)
                    difference = np.abs(built - values[top : top + count])
                if not np.all(np.isfinite(difference)):
                    raise OverflowError
                worst = max(worst, float(difference.max(initial=0.0)))
        except (ValueError, TypeError, OverflowError):
            continue
        if best is None or worst < best["residual"]:
            shown = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
            call = (
                f"table({h.convention!r}, {rows}, {h.width}, start={h.start}, {shown}, "
                f"path='emulated')"
            )
            if (h.first, h.first + cols) != (0, h.width):
                call += f"[:, {h.first}:{h.first + cols}]"
            best = {"call": call, "note": note, "residual": worst, "identical": worst == 0.0}
    return best


# --------------------------------------------------------------------------------------
# The verdict: can the table decide?

#: Other explanations judged on every row when looking for rivals of the best.
_RIVAL_CHECKS = 12


def _verdict(best: _Hypothesis, found: dict, values: np.ndarray, precision: str):
    """The verdict, why the data cannot decide (if so), and what was assumed.

    The best explanation is named only if it fits, its bounds hold the evidence to name
    it (:func:`_needed`), the first positions next to its own do not fit (a position
    the table's precision cannot resolve is not an answer), and no explanation with
    another first position explains the table almost as well (:func:`_score` within
    ``LEVEL_BITS``). Explanations at the same first position with another base (and,
    for a slice, width) are the same numbers read otherwise: reported as an assumption.
    """
    if not best.matched:
        return NOT_IDENTIFIED, (), ()
    rows = values.shape[0]
    undecided: list[str] = []
    bits = best.bits.get(best.model, 0.0)
    if bits < best.needed:
        undecided.append(
            f"the {best.model} error model allows a difference of up to "
            f"{_number(best.peaks.get(best.model, math.inf))} on these rows, which leaves "
            f"{bits:.0f} bits of evidence where naming this structure needs "
            f"{best.needed:.0f}: a table of random values would fit it as well"
        )
    for start in (best.start - 1, best.start + 1):
        if not 0 <= start <= MAX_START:
            continue
        near = _Hypothesis(
            best.convention,
            best.base,
            start,
            best.width,
            best.first,
            best.base_rank,
            best.sliced,
            models=(best.model,),
        )
        _judge(near, values, precision, _all_rows(rows))
        if near.matched:
            undecided.append(
                f"first position {best.start} cannot be told from {start} at this precision: "
                f"both fit within the {best.model} error model"
            )
            break
    structure = (best.base, best.start, best.width, best.first)
    rivals = sorted(
        (
            h
            for h in found.values()
            if h is not best and h.matched and (h.base, h.start, h.width, h.first) != structure
        ),
        key=lambda h: _order(h, precision),
    )
    others: dict[tuple[float, int], None] = {}  # (base, width) at the same first position
    for h in rivals[:_RIVAL_CHECKS]:
        if not h.complete:
            _judge(h, values, precision, _all_rows(rows))
            h.complete = True
        # A rival counts if it explains the table almost as well: its cost to name minus
        # its evidence within LEVEL_BITS of the best's (a description-length comparison).
        # A rival that fits only through a looser error model has far less evidence, and
        # does not count: the tighter fit is itself evidence.
        if not (h.matched and _score(h) <= _score(best) + LEVEL_BITS):
            continue
        if h.start != best.start:
            undecided.append(
                f"{h.convention} with base {h.base:g} and first position {h.start} fits as "
                "well, with the evidence to be named"
            )
        else:  # the same numbers read with another base (and, for a slice, width)
            others[(h.base, h.width)] = None
    assumed = []
    if others:
        own = conventions.CONVENTIONS[best.convention].base == best.base
        why = "the convention's own" if own else "the roundest that fits"
        if best.sliced:
            shown = ", ".join(f"{b:g} (width {w})" for b, w in sorted(others))
            assumed.append(
                f"base {best.base:g} ({why}), so width {best.width}: a slice fixes only "
                f"ln(base)/width, and bases {shown} fit these columns as well"
            )
        else:
            shown = ", ".join(f"{b:g}" for b, _ in sorted(others))
            assumed.append(f"base {best.base:g} ({why}): bases {shown} fit these rows as well")
    return (UNDECIDED if undecided else IDENTIFIED), tuple(undecided), tuple(assumed)


def _score(h: _Hypothesis) -> float:
    """Bits to name ``h`` minus the bits of evidence it has: smaller explains better."""
    return h.needed - h.bits.get(h.model, 0.0)


# --------------------------------------------------------------------------------------
# The public functions.


def identify(
    table: ArrayLike, *, candidates: object = None, status: Callable[[str], None] | None = None
) -> Identification:
    """Find the library convention, base and first position that explain a table.

    Parameters
    ----------
    table : array_like
        Real numbers, shape ``(rows, columns)``: consecutive positions, one per row,
        at least 1 row and 2 columns, no NaN.
    candidates : str or sequence of str, optional
        Conventions to consider (keys of :data:`posenc.conventions.CONVENTIONS`); all
        of them by default.
    status : callable, optional
        Called with a few words on what is being done, at each block of rows of each
        pass over the table: for a status line when the table is large (the command
        draws one on a terminal).

    Returns
    -------
    Identification
        The structure that explains the table (convention, base, first position,
        columns), the error model it fits and how closely, and the closest emulation of
        the library's operations; ``matched`` says whether the table lies within the
        model's bound of the formula at every entry.

    Raises
    ------
    ValueError
        For a table that is not 2-D, too small, not real, or holds NaN or infinities,
        and for unknown candidate names.

    Examples
    --------
    >>> from posenc.conventions import table
    >>> found = identify(table("paper", 200, 64, base=500000.0, start=37))
    >>> found.matched, found.convention, found.base, found.start, found.model
    (True, 'paper', 500000.0, 37, 'rounded once')

    fairseq's rows 10 and on (positions 12, 13, ...) are also whisper's: away from
    fairseq's padding row the two compute the same formula in float32.

    >>> found = identify(table("fairseq", 50, 16)[10:])
    >>> found.start, found.model, sorted([found.convention, *found.equivalent])
    (12, 'float32 angles', ['fairseq', 'tensor2tensor', 'whisper'])
    """
    token = _STATUS.set(status)
    try:
        return _identify(table, candidates)
    finally:
        _STATUS.reset(token)


def _identify(table: ArrayLike, candidates: object) -> Identification:
    names = _candidate_names(candidates)
    values, stored = _as_table(table)
    rows, cols = values.shape
    # The storage type is part of the hypothesis: the array's own type (the tightest
    # bound), or the narrowest format that holds every value (a table cast down). Both
    # are searched when they differ; the better explanation decides.
    narrowest = _precision(values, stored)
    searches = [
        (precision, *_search(names, values, precision))
        for precision in dict.fromkeys([stored, narrowest])
    ]
    if not any(ranked for _, _, ranked in searches):
        raise ValueError(
            f"no candidate convention can make a table of {cols} columns "
            f"(candidates: {', '.join(names)})"
        )
    precision, found, ranked = min(
        (s for s in searches if s[2]), key=lambda s: _storage_order(s[2][0], s[0], stored)
    )
    best = ranked[0]
    if precision == "float64":  # the residual to a few 1e-16, not to t * 2**-52
        _judge(best, values, precision, _all_rows(rows), accurate=True)
    verdict, undecided, assumed = _verdict(best, found, values, precision)
    same = (best.base, best.start, best.width, best.first)
    result = Identification(
        verdict=verdict,
        matched=verdict == IDENTIFIED,
        fits=best.matched,
        convention=best.convention,
        base=best.base,
        start=best.start,
        width=best.width,
        columns=(best.first, best.first + cols),
        residual=best.residual,
        model=best.model,
        fit=best.fit,
        tolerance=best.peaks.get(best.model, math.inf),
        rows=rows,
        dtype=precision,
        evidence=Evidence(bits=best.bits.get(best.model, 0.0), needed=best.needed),
        undecided=undecided,
        assumed=assumed,
        equivalent=tuple(
            h.convention
            for h in ranked[1:]
            if h.matched and (h.base, h.start, h.width, h.first) == same
        ),
        emulation=None if best.emulation is None else Emulation(**best.emulation),
        alternatives=tuple(_candidate(h, cols) for h in ranked[1:5]),
        explanation="",
    )
    return replace(result, explanation=_explanation(result, stored))


def _search(names, values, precision) -> tuple[dict, list[_Hypothesis]]:
    """Every hypothesis tried for a storage type, and the best of each convention."""
    found: dict[tuple, _Hypothesis] = {}
    with np.errstate(all="ignore"):  # odd input (huge values, zero columns) is judged below
        _full_width(names, values, precision, found)
        ranked = _rank(found.values(), values, precision)
        # Not explained, or only with a base of many digits: perhaps a slice of columns.
        if not ranked or not ranked[0].decided or ranked[0].base_rank > 2:
            _column_slices(names, values, precision, found)
            ranked = _rank(found.values(), values, precision)
    return found, ranked


def _storage_order(h: _Hypothesis, precision: str, stored: str):
    """Which storage type's best explanation wins: the better one, then the array's type.

    Explained comes first, with evidence before without, then the simpler base, the whole
    table, the tighter error model. Between equals the array's own type wins: nothing in
    the fit asks for a cast, and values such as 0 and 1 are held by every format. With
    nothing explained, the narrower type's closest is shown.
    """
    key = _order(h, precision)
    if key[0] == 2:
        return (2, -_NARROWER[precision])
    return (*key[:4], _NARROWER[precision])


def _candidate(h: _Hypothesis, cols: int) -> Candidate:
    return Candidate(
        convention=h.convention,
        base=h.base,
        start=h.start,
        width=h.width,
        columns=(h.first, h.first + cols),
        residual=h.residual,
        model=h.model,
        fit=h.fit,
        complete=h.complete,
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
    if result.verdict == IDENTIFIED:
        lines.append(f"The table is the {result.convention} convention ({convention.title}).")
    elif result.verdict == UNDECIDED:
        lines.append(
            f"The table fits the {result.convention} convention ({convention.title}) within "
            "its error model, but these numbers cannot decide: "
            + "; ".join(result.undecided)
            + "."
        )
    else:
        lines.append(
            "No convention explains this table within its error model (column slices are "
            "recognised for the interleaved layouts only)."
        )
        lines.append(f"Closest: {result.convention} ({convention.title}).")
    lines.append(
        f"Base {result.base:g}, positions {result.start} to {last}, {where}, {held}; "
        f"largest difference from the formula {_number(result.residual)}, "
        f"{result.fit:.2g} of what the {result.model} error model allows."
    )
    if result.fits:
        lines.append(
            f"Evidence: {result.evidence.bits:.0f} bits, of the {result.evidence.needed:.0f} "
            "needed to name this structure."
        )
    lines.extend(f"Assumed: {a}." for a in result.assumed)
    if (first, stop) != (0, result.width):
        lines.append(
            "A column slice fixes only ln(base)/width: the width is the one this base gives."
        )
    if result.equivalent:
        several = len(result.equivalent) > 1
        lines.append(
            "On these rows "
            + ", ".join(result.equivalent)
            + (" compute" if several else " computes")
            + " the same formula, and the table lies within "
            + ("their error models" if several else "its error model")
            + " too: it cannot tell them apart."
        )
    if result.emulation is not None:
        e = result.emulation
        if e.identical:
            lines.append(f"posenc's emulation ({e.note}) gives the same bits: {e.call}.")
        else:
            lines.append(
                f"posenc's closest emulation ({e.note}) differs by at most "
                f"{_number(e.residual)}: {e.call}. Float32 exp, sin and cos are not "
                "correctly rounded, and libraries round them differently."
            )
    return " ".join(lines)
