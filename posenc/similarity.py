"""How alike two sinusoidal codes are, as a function of the offset between their positions.

Pair ``i`` of the code (Vaswani et al. 2017, section 3.5) is the point
``(sin(p * w_i), cos(p * w_i))`` on the unit circle, ``w_i = base**(-2i/d)``.
For two positions ``p`` and ``q`` the angle between their points is
``w_i * (p - q)``, so with ``k = p - q``

    PE(p) . PE(q)      = sum_i cos(w_i k)                  (Proposition 9),
    |PE(p) - PE(q)|**2 = sum_i (2 - 2 cos(w_i k))          (Proposition 7).

Both depend on the offset ``k`` alone, and not on its sign. The functions here
evaluate these sums, optionally over a subset of the pairs (say the fast third),
for any integer offsets.

How the sums are computed
-------------------------
``np.cos(k * w)`` rounds the angle ``k * w`` before taking the cosine, which
costs about ``k * 1e-16`` absolute: 1e-10 at offset one million. Here each angle
is reduced exactly and its sine and cosine are taken in double-double
arithmetic (the routine behind :func:`posenc.sinusoidal`), so every term is
correct to about 1e-16 whatever the offset. The terms ``2 - 2 cos x`` of a
distance are formed as ``2 sin(x)**2 / (1 + cos x)`` when ``cos x >= 0``, which
keeps their relative accuracy when ``x`` is tiny (slow pairs at small offsets),
where ``2 - 2 cos x`` would cancel.

References
----------
- A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.5.
- H. Yan, B. Deng, X. Li, X. Qiu, "TENER: Adapting Transformer Encoder for Named
  Entity Recognition", arXiv:1911.04474 (2019): the dot product of two codes does
  not depend on the sign of the offset.
- X. Men, M. Xu, B. Wang, Q. Zhang, H. Lin, X. Han, W. Chen, "Base of RoPE Bounds
  Context Length", arXiv:2405.14591 (2024): the same sum over a rotary head's speeds,
  and a lower bound on the base from asking it to stay non-negative up to a length
  (:func:`base_bound`).
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from posenc import _validate
from posenc.encoding import _cis, _ladder

__all__ = [
    "BaseBound",
    "GridBase",
    "base_bound",
    "distance_profile",
    "dot_profile",
    "first_negative",
    "first_rise",
    "grid_base",
    "lowest_dot",
    "smallest_grid_base",
]

# Elements (offsets x pairs) per pass of the double-double routine: keeps the
# temporaries of a pass near 1 MiB.
_CHUNK = 8192


def _offsets(value: object) -> np.ndarray:
    """Return integer offsets as exact float64 values, keeping their shape.

    A Python or NumPy integer, or an array-like of them, with ``|k| <= 2**53``.
    ``bool`` and floats (even ``3.0``) are refused, as :mod:`posenc._validate` does
    for positions.
    """
    message = "offsets must be integers with |k| <= 2**53, got {}"
    if isinstance(value, bool | np.bool_):
        raise TypeError(message.format(f"bool {value!r}"))
    if isinstance(value, int | np.integer):  # a scalar; Python ints may be huge
        k = operator.index(value)
        if abs(k) > _validate.MAX_POSITION:
            raise ValueError(message.format(k))
        return np.array(float(k))
    array = np.asarray(value)
    _validate.memory(f"offsets of shape {array.shape}", 40 * array.size)
    if array.size == 0:
        return np.zeros(array.shape)
    if array.dtype.kind not in "iu":
        raise TypeError(message.format(f"an array of {array.dtype}"))
    low, high = int(array.min()), int(array.max())  # exact, unlike a float64 copy
    if max(-low, high) > _validate.MAX_POSITION:
        raise ValueError(message.format(f"values {low}..{high}"))
    return array.astype(np.float64)  # exact: every value is at most 2**53


def _pairs(value: object, width: int) -> np.ndarray:
    """Return pair indices as an int array: every pair if ``None``, else each in range."""
    half = width // 2
    if value is None:
        _validate.memory(f"width={width}", _peak(width, half))
        return np.arange(half)
    message = f"pairs must be distinct integers in 0..{half - 1} for width {width}, got {{}}"
    if isinstance(value, bool | np.bool_):
        raise TypeError(message.format(repr(value)))
    array = np.asarray(value)
    if array.ndim != 1:
        raise TypeError(message.format(f"an array of shape {array.shape}"))
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if array.dtype.kind not in "iu":
        raise TypeError(message.format(f"an array of {array.dtype}"))
    array = array.astype(np.int64)
    if array.min() < 0 or array.max() >= half:
        raise ValueError(message.format(f"values {array.min()}..{array.max()}"))
    if np.unique(array).size != array.size:
        raise ValueError(message.format("a repeated index"))
    return array


def _peak(width: int, pairs: int) -> int:
    """Bytes :func:`_cosines` needs: the ladder and its selected pairs (8 d each), and
    the double-double temporaries of one pass, about 100 bytes for each of at least
    ``_CHUNK`` elements (measured with ``tracemalloc``)."""
    return 16 * width + 100 * max(_CHUNK, pairs)


def _cosines(k: np.ndarray, width: int, base: float, pairs: np.ndarray, distance: bool):
    """Sum over ``pairs`` of ``cos(w_i k)``, or of ``2 - 2 cos(w_i k)``: shape of ``k``."""
    _validate.memory(f"width={width}", _peak(width, pairs.size))
    w_hi, w_lo = _ladder(base, width)  # (d/2,) each
    w_hi, w_lo = w_hi[pairs], w_lo[pairs]  # (m,)
    flat = k.ravel()  # (n,)
    total = np.zeros(flat.shape)  # (n,)
    if pairs.size == 0:
        return total.reshape(k.shape)
    rows = max(1, _CHUNK // pairs.size)
    for top in range(0, flat.size, rows):
        part = flat[top : top + rows, None]  # (r, 1)
        sin, _, cos, _ = _cis(part, w_hi, w_lo)  # (r, m) each, double-double high parts
        if distance:
            # 2 - 2 cos x = 2 sin^2 x / (1 + cos x): no cancellation when cos x >= 0.
            term = np.where(cos >= 0.0, 2.0 * sin * sin / (1.0 + np.abs(cos)), 2.0 - 2.0 * cos)
        else:
            term = cos
        total[top : top + rows] = term.sum(axis=1)  # (r,)
    return total.reshape(k.shape)


def dot_profile(
    offsets: ArrayLike, width: int, *, base: float = 10000.0, pairs: ArrayLike | None = None
) -> np.ndarray:
    """The dot product ``PE(p) . PE(p + k) = sum_i cos(w_i k)`` at each offset ``k``.

    It is the same for every position ``p`` (Proposition 9): ``width / 2`` at
    ``k = 0``, even in ``k``, and not monotone in ``|k|``.

    Parameters
    ----------
    offsets : int or array_like of int
        Offsets ``k``, integers with ``|k| <= 2**53``; negative offsets look back.
    width : int
        Model width ``d``, an even integer ``>= 2``.
    base : float, optional
        A finite real number ``> 1``; 10000 in the paper.
    pairs : array_like of int, optional
        Pair indices ``i`` in ``0 .. width/2 - 1`` to sum over (default: all),
        for the share of a group of pairs.

    Returns
    -------
    numpy.ndarray
        float64, the shape of ``offsets`` (a 0-d array for a scalar). Each cosine is
        within about 1e-16 of its exact value, so a sum over ``m`` pairs is within
        about ``m * 1e-16``.

    Examples
    --------
    At width 128 the dot product falls from 64 until offset 11, then rises:

    >>> print(dot_profile([0, 6, 11, 12], 128).round(3))
    [64.    47.067 42.344 42.381]
    >>> bool(dot_profile(-5, 16) == dot_profile(5, 16))
    True
    >>> print(dot_profile([0, 1], 4, pairs=[0]).round(6))
    [1.       0.540302]
    """
    width = _validate.width(width)
    base = _validate.base(base)
    k = _offsets(offsets)
    return _cosines(k, width, base, _pairs(pairs, width), distance=False)


def distance_profile(
    offsets: ArrayLike, width: int, *, base: float = 10000.0, pairs: ArrayLike | None = None
) -> np.ndarray:
    """The distance ``|PE(p) - PE(p + k)| = sqrt(sum_i (2 - 2 cos(w_i k)))`` at each offset.

    It is the same for every position ``p`` (Proposition 7). Restricted to a group
    of pairs it is that group's share: the squares of the shares of disjoint
    groups add up to the square of the whole distance.

    Parameters
    ----------
    offsets : int or array_like of int
        Offsets ``k``, integers with ``|k| <= 2**53``.
    width : int
        Model width ``d``, an even integer ``>= 2``.
    base : float, optional
        A finite real number ``> 1``; 10000 in the paper.
    pairs : array_like of int, optional
        Pair indices ``i`` in ``0 .. width/2 - 1`` to sum over (default: all).

    Returns
    -------
    numpy.ndarray
        float64, the shape of ``offsets`` (a 0-d array for a scalar), with a
        relative error of a few units in 1e-16 even for tiny distances.

    Examples
    --------
    Neighbours at width 512 are 3.714 apart; almost all of it comes from the fast pairs:

    >>> print(distance_profile([0, 1, 10000], 512).round(4))
    [ 0.      3.7143 23.3448]
    >>> print(distance_profile(1, 512, pairs=range(171, 256)).round(4))
    0.0081
    """
    width = _validate.width(width)
    base = _validate.base(base)
    k = _offsets(offsets)
    squares = _cosines(k, width, base, _pairs(pairs, width), distance=True)
    return np.sqrt(squares, out=squares)  # in place: a 0-d array stays an array


def first_rise(width: int, *, base: float = 10000.0) -> int:
    """The first offset ``k >= 1`` at which the dot product rises: ``S(k) > S(k - 1)``.

    ``S(k) = sum_i cos(w_i k)`` falls from its maximum ``width / 2`` at ``k = 0``;
    this is where it first stops falling, so ``S`` is not monotone in the distance
    (Proposition 9). The comparison is made in float64, on values accurate to
    about ``width * 1e-16``.

    Parameters
    ----------
    width : int
        Model width ``d``, an even integer ``>= 2``.
    base : float, optional
        A finite real number ``> 1``; 10000 in the paper.

    Returns
    -------
    int

    Examples
    --------
    >>> first_rise(128)
    12
    >>> first_rise(2)  # cos 4 > cos 3
    4
    """
    width = _validate.width(width)
    base = _validate.base(base)
    span = 64
    while True:  # S is almost periodic and not constant, so it rises somewhere
        values = dot_profile(np.arange(span + 1), width, base=base)  # (span + 1,)
        rises = np.flatnonzero(np.diff(values) > 0)
        if rises.size:
            return int(rises[0]) + 1
        if span > _validate.MAX_POSITION // 2:  # pragma: no cover - never reached in practice
            raise ValueError(f"no rise found up to offset {span} for width {width}")
        span *= 2


# -- the lowest value of the dot product up to a length, and the base bound -------

#: Offsets per row of a block (the steps ``j``) and rows per block (the anchors ``s``):
#: ``S(s + j) = cos(s w) . cos(j w) - sin(s w) . sin(j w)``, two matrix products.
_STEPS = 1024
_ANCHORS = 64


def _steps(w_hi: np.ndarray, w_lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``cos(j w)`` and ``sin(j w)`` for ``j = 0 .. _STEPS - 1``: (J, d/2) each.

    Plain float64: ``j w`` is below ``_STEPS`` radians, so its rounding costs at most
    ``_STEPS * 2**-53``, about 1e-13 (double-double here would cost most of the time).
    """
    angles = np.arange(_STEPS, dtype=np.float64)[:, None] * (w_hi + w_lo)  # (J, d/2)
    return np.cos(angles), np.sin(angles)


def _block(w_hi, w_lo, steps, first: int, rows: int) -> np.ndarray:
    """``S(m)`` for ``m = first .. first + rows * _STEPS - 1`` (``first`` a multiple of
    ``_STEPS``), in order: angle addition from exactly reduced anchors, as a matrix product."""
    cos_j, sin_j = steps  # (J, d/2) each
    s = first + _STEPS * np.arange(rows, dtype=np.float64)[:, None]  # (R, 1) anchors
    sin_s, _, cos_s, _ = _cis(s, w_hi, w_lo)  # (R, d/2) each
    return (cos_s @ cos_j.T - sin_s @ sin_j.T).ravel()  # (R * J,)


def _scan(w_hi, w_lo, length: int, *, stop_at_negative: bool) -> tuple[float, int]:
    """The smallest ``S(m)`` over ``m = 0 .. length`` and the first ``m`` where it is
    taken; with ``stop_at_negative``, the smallest over the first block that holds a
    negative value (so a failing length costs only up to that block)."""
    steps = _steps(w_hi, w_lo)
    lowest, where, first, rows = math.inf, -1, 0, 1
    while first <= length:
        values = _block(w_hi, w_lo, steps, first, rows)  # (rows * J,)
        values = values[: length + 1 - first]  # offsets past the length are not asked about
        k = int(np.argmin(values))
        if values[k] < lowest:
            lowest, where = float(values[k]), first + k
        if stop_at_negative and lowest < 0:
            break
        first += rows * _STEPS
        rows = min(2 * rows, _ANCHORS)  # short blocks first: a failing base fails early
    return lowest, where


def lowest_dot(length: int, width: int, *, base: float = 10000.0) -> tuple[float, int]:
    """The smallest ``S(k) = sum_i cos(w_i k)`` over ``k = 0 .. length``, and where.

    ``S`` is the dot product of :func:`dot_profile`, and for a rotary head with speeds
    ``w_i = base**(-2i/d)`` it is Men et al.'s sum ``B(m)`` (arXiv:2405.14591). The
    offsets are taken in blocks by angle addition from exactly reduced anchors, so each
    value is within about ``width * 1e-13`` of the exact sum, and memory stays bounded.

    Parameters
    ----------
    length : int
        The largest offset, an integer ``>= 0`` and ``<= 2**53``.
    width : int
        Head width ``d``, an even integer ``>= 2``.
    base : float, optional
        A finite real number ``> 1``.

    Returns
    -------
    (float, int)
        The smallest value and the first offset at which it is taken.

    Examples
    --------
    At width 128 and base 10000 the sum first dips below zero before offset 8192:

    >>> value, at = lowest_dot(8192, 128)
    >>> bool(value < 0), bool(abs(dot_profile(at, 128) - value) < 1e-12)
    (True, True)
    >>> lowest_dot(0, 128)
    (64.0, 0)
    """
    length = _validate.integer("length", length)
    if length > _validate.MAX_POSITION:
        raise ValueError(f"length must be <= 2**53, got {length}")
    width = _validate.width(width)
    base = _validate.base(base)
    w_hi, w_lo = _ladder(base, width)
    return _scan(w_hi, w_lo, length, stop_at_negative=False)


class BaseBound(NamedTuple):
    """The result of :func:`base_bound`.

    ``base``: where the sum stays ``>= 0`` up to the length (its ``lowest`` value, at
    offset ``at``). ``below``: a base at most ``rtol`` lower where it does not (its value
    ``missed`` at offset ``witness``). ``misses``: each base of the grid below ``base``
    that the scan tried, with an offset where the sum is negative there.
    """

    base: float
    lowest: float
    at: int
    below: float
    witness: int
    missed: float
    misses: tuple[tuple[float, int], ...]


def _first_miss(w_hi, w_lo, length: int) -> int | None:
    value, where = _scan(w_hi, w_lo, length, stop_at_negative=True)
    return where if value < 0 else None


def first_negative(length: int, width: int, *, base: float = 10000.0) -> int | None:
    """An offset ``k <= length`` with ``sum_i cos(w_i k) < 0``, or ``None`` if there is none.

    The offsets are scanned in blocks of growing size, and the scan stops at the first
    block that holds a negative value: the offset returned is the lowest point of that
    block (not always the first negative offset), so it is cheap to find and has a
    margin. ``None`` costs a scan of every offset, as :func:`lowest_dot`.

    Examples
    --------
    >>> k = first_negative(4096, 128)
    >>> bool(dot_profile(k, 128) < 0), k <= 4096
    (True, True)
    >>> first_negative(4096, 128, base=1e6) is None
    True
    """
    length = _validate.integer("length", length)
    if length > _validate.MAX_POSITION:
        raise ValueError(f"length must be <= 2**53, got {length}")
    width = _validate.width(width)
    base = _validate.base(base)
    return _first_miss(*_ladder(base, width), length)


def base_bound(
    length: int,
    width: int = 128,
    *,
    start: float = 2.0,
    ratio: float = 2.0 ** (1 / 16),
    rtol: float = 1e-6,
) -> BaseBound:
    """The smallest base whose rotary sum stays non-negative up to ``length``.

    The condition is ``B(m) = sum_i cos(m base**(-2i/d)) >= 0`` at every integer
    offset ``m = 0 .. length`` (posenc's reading of Men et al., arXiv:2405.14591, whose
    text was not read). The base returned is where this search stops, which can be far
    above the smallest base that meets the condition: see :func:`smallest_grid_base`
    for that. The condition is not monotone in the
    base: above the first base that meets it, some bases fail again. So "smallest" is
    found as follows. The bases ``start * ratio**k`` are tried upwards until one meets
    the condition; the step before it is then halved (in log scale) until the two ends
    are within ``rtol`` of each other. The result's ``base`` meets the condition, its
    ``below`` (at most ``rtol`` lower) does not, and every grid base tried below it does
    not, each with an offset that shows it. A base strictly between two grid points
    that meets the condition would not be seen.

    Parameters
    ----------
    length : int
        The context: the largest offset asked about, an integer ``>= 1``. At width 128
        the lengths 1 and 2 are met by every base from 2 up, so they need ``start < 2``.
    width : int, optional
        Head width ``d``, an even integer ``>= 2``; width 2 with ``length >= 2`` is
        refused (``B(m) = cos m`` for every base, and ``cos 2 < 0``).
    start : float, optional
        The first base tried, a finite real number ``> 1``; it must fail the condition.
    ratio : float, optional
        The step of the grid of bases, a real number ``> 1``.
    rtol : float, optional
        The relative width of the final bracket, in ``(0, ratio - 1)``.

    Returns
    -------
    BaseBound

    Examples
    --------
    >>> found = base_bound(1024)
    >>> lowest_dot(1024, 128, base=found.base)[0] >= 0
    True
    >>> bool(lowest_dot(1024, 128, base=found.below)[0] < 0)
    True
    >>> bool(found.below < found.base <= found.below * (1 + 1e-6))
    True
    """
    length = _validate.integer("length", length, minimum=1)
    if length > _validate.MAX_POSITION:
        raise ValueError(f"length must be <= 2**53, got {length}")
    width = _validate.width(width)
    start = _validate.base(start)
    ratio = _validate.real("ratio", ratio)
    if not ratio > 1:
        raise ValueError(f"ratio must be > 1, got {ratio!r}")
    rtol = _validate.real("rtol", rtol)
    if not 0 < rtol < ratio - 1:
        raise ValueError(f"rtol must be in (0, ratio - 1), got {rtol!r}")
    _refuse_width_2(width, length)
    misses, base = [], start
    while True:
        miss = _first_miss(*_ladder(base, width), length)
        if miss is None:
            break
        misses.append((base, miss))
        base *= ratio
        if not math.isfinite(base):  # pragma: no cover - width >= 4 is met by a large base
            raise ValueError(f"no base up to {base!r} meets the condition")
    if not misses:
        raise ValueError(f"start={start!r} already meets the condition: start lower")
    low, high, witness = misses[-1][0], base, misses[-1][1]
    while high > low * (1 + rtol):
        middle = math.sqrt(low * high)
        miss = _first_miss(*_ladder(middle, width), length)
        if miss is None:
            high = middle
        else:
            low, witness = middle, miss
    lowest, at = _scan(*_ladder(high, width), length, stop_at_negative=False)
    missed = float(dot_profile(witness, width, base=low))
    return BaseBound(high, lowest, at, low, witness, missed, tuple(misses))


def _refuse_width_2(width: int, length: int) -> None:
    if width == 2 and length >= 2:
        raise ValueError(
            "no base meets the condition at width 2 up to a length >= 2: "
            "B(m) = cos m for every base, and cos 2 < 0"
        )


class GridBase(NamedTuple):
    """The result of :func:`smallest_grid_base`.

    ``base = start * ratio**index`` (computed exactly, rounded once to float64): the
    first base of the grid where the sum stays ``>= 0`` at every integer offset up to
    the length (its ``lowest`` value, at offset ``at``). ``misses[k]``: for each grid
    base ``start * ratio**k`` with ``k < index``, an offset ``<= length`` where the sum
    is negative there.
    """

    base: float
    index: int
    lowest: float
    at: int
    misses: tuple[int, ...]


#: Grid bases screened together, and the float64 margin a screened value must clear.
_BATCH = 128
_SCREEN = 1e-6


def _grid(start: float, ratio: float, k: int, n: int) -> np.ndarray:
    """Bases ``k .. k + n - 1`` of the grid ``start * ratio**j``: (n,).

    Each is computed exactly from the decimal values of ``start`` and ``ratio`` as
    written (their shortest ``repr``: ``1.001`` is 1001/1000) and rounded once to
    float64, so the grid is the same on every machine. ``start * ratio**j`` in float64
    is not: the float ratio is off by up to 1e-16 and its power by about ``j`` times
    that (1e-12 at ``j = 10**4``). A base too large for float64 is ``inf``.
    """
    start_, ratio_ = Fraction(repr(start)), Fraction(repr(ratio))
    num = start_.numerator * ratio_.numerator**k
    den = start_.denominator * ratio_.denominator**k
    out = np.empty(n)  # (n,)
    for j in range(n):
        try:
            out[j] = num / den  # int / int: correctly rounded
        except OverflowError:
            out[j] = math.inf
        num, den = num * ratio_.numerator, den * ratio_.denominator
    return out


def _screen(bases: np.ndarray, width: int) -> np.ndarray:
    """For each base, the offset ``m < _STEPS`` where ``S`` is lowest if that value is
    below ``-_SCREEN`` (plain float64, error far below the margin), else -1: (n,)."""
    i = np.arange(width // 2, dtype=np.float64)  # (d/2,)
    theta = bases[:, None] ** (-2.0 * i / width)  # (n, d/2)
    m = np.arange(_STEPS, dtype=np.float64)  # (J,)
    values = np.cos(m[None, :, None] * theta[:, None, :]).sum(axis=2)  # (n, J)
    where = values.argmin(axis=1)  # (n,)
    low = values[np.arange(bases.size), where]  # (n,)
    return np.where(low < -_SCREEN, where, -1)


def grid_base(k: int, start: float = 2.0, ratio: float = 1.001) -> float:
    """Base ``k`` of the grid ``start * ratio**k`` that :func:`smallest_grid_base` searches.

    Exact from the decimal values of ``start`` and ``ratio`` as written (``1.001`` is
    1001/1000), rounded once to float64: the same on every machine.

    >>> grid_base(0), grid_base(1), grid_base(2)
    (2.0, 2.002, 2.004002)
    """
    k = _validate.integer("k", k, minimum=0)
    return float(_grid(start, ratio, k, 1)[0])


def smallest_grid_base(
    length: int, width: int = 128, *, start: float = 2.0, ratio: float = 1.001
) -> GridBase:
    """The smallest base of the grid ``start * ratio**k`` that meets the condition.

    The condition is ``B(m) = sum_i cos(m base**(-2i/d)) >= 0`` at every integer offset
    ``m = 0 .. length`` (posenc's reading of Men et al., arXiv:2405.14591). The grid
    is scanned upwards from ``k = 0``; each base that fails gets an offset where
    ``B < 0`` (most fail at a small offset, found by a batched float64 screen of the
    first 1024 offsets; the others by :func:`first_negative`'s scan), and the first
    that passes is returned. A base strictly between two grid points is not tried:
    ``ratio`` is the resolution. Unlike :func:`base_bound`, no base of the grid below
    the answer passes, by construction.

    The grid is exact: base ``k`` is ``start * ratio**k`` computed from the decimal
    values of ``start`` and ``ratio`` as written (``1.001`` is 1001/1000) and rounded
    once to float64, the same on every machine. With the defaults it is the grid of
    Proposition 38's certificate, ``data/base-bound.json``. (``2.0 * 1.001**k`` in
    float64 drifts from it by about ``k * 1e-16``, relative.)

    Parameters
    ----------
    length : int
        The context, an integer ``>= 0`` and ``<= 2**53``.
    width : int, optional
        Head width ``d``, an even integer ``>= 2``; width 2 with ``length >= 2`` is
        refused (``cos 2 < 0`` for every base).
    start : float, optional
        The first base of the grid, a finite real number ``> 1``.
    ratio : float, optional
        The step of the grid, a real number ``> 1``.

    Returns
    -------
    GridBase

    Examples
    --------
    >>> found = smallest_grid_base(256, 16, ratio=1.01)
    >>> found.index == len(found.misses), lowest_dot(256, 16, base=found.base)[0] >= 0
    (True, True)
    >>> all(dot_profile(m, 16, base=2 * 1.01**k) < 0 for k, m in enumerate(found.misses))
    True
    """
    length = _validate.integer("length", length)
    if length > _validate.MAX_POSITION:
        raise ValueError(f"length must be <= 2**53, got {length}")
    width = _validate.width(width)
    start = _validate.base(start)
    ratio = _validate.real("ratio", ratio)
    if not ratio > 1:
        raise ValueError(f"ratio must be > 1, got {ratio!r}")
    _refuse_width_2(width, length)
    misses: list[int] = []
    k = 0
    while True:
        bases = _grid(start, ratio, k, _BATCH)  # (n,)
        if not np.isfinite(bases).all():  # pragma: no cover - width >= 4 is met by a large base
            raise ValueError(f"no base of the grid up to {bases[-1]!r} meets the condition")
        screened = _screen(bases, width) if length >= _STEPS else np.full(bases.size, -1)
        for j, base in enumerate(bases.tolist()):
            miss = int(screened[j]) if screened[j] >= 0 else None
            if miss is None:
                miss = _first_miss(*_ladder(base, width), length)
            if miss is None:
                lowest, at = _scan(*_ladder(base, width), length, stop_at_negative=False)
                return GridBase(base, k + j, lowest, at, tuple(misses))
            misses.append(miss)
        k += _BATCH
