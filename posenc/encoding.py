"""The sinusoidal position code of the Transformer, computed to the last bit.

Vaswani et al. (2017), "Attention Is All You Need", section 3.5, add to the token at
position ``pos`` the vector

    PE(pos, 2i) = sin(pos * w_i),   PE(pos, 2i + 1) = cos(pos * w_i),
    w_i = base ** (-2i / d),        i = 0 .. d/2 - 1,

with ``base = 10000`` and ``d`` the model width (the columns of a pair are
interleaved, as in the paper).

How the table is computed
-------------------------
The obvious ``np.sin(pos * w)`` rounds the product ``pos * w`` before taking the
sine, so its error grows with the angle: about ``pos * 2**-53``, i.e. 1e-10 at
position one million. Here the angle is never rounded:

1. ``w_i`` is held as a double-double ``hi + lo`` (106 bits), from 50-digit decimal
   arithmetic.
2. For a few angles ``n * w_i`` (``n`` a power of two, or the first position), the
   product is formed exactly (Dekker's two-product), reduced modulo ``pi/2`` with a
   three-part ``pi/2`` (Cody and Waite), and its sine and cosine are summed from the
   Taylor series in double-double arithmetic.
3. "A shift is a rotation": ``PE(pos + k)`` is ``PE(pos)`` turned by the angles
   ``k * w_i``. Products of the rotations from step 2 give, still in double-double,
   the rows of ``B`` offsets ``j = 0 .. B-1`` and of ``A`` anchors
   ``start + a*B``, with ``A`` and ``B`` about the square root of the length.
   Each is then rounded once to float64. The offsets, and the turns ``a*B*w`` that
   the anchors are made from, do not depend on ``start`` and are kept between calls.
4. Every row is one more rotation, anchor by offset, in float64. Written as complex
   numbers, ``(sin x + i cos x) (cos y - i sin y) = sin(x + y) + i cos(x + y)``, and
   the interleaved columns of a row are the real and imaginary parts of ``d/2``
   complex numbers, so a block of rows is one complex multiplication written
   straight into the table. Each factor is off by at most 2**-54 (half an ulp of a
   number <= 1); each of the two products and the sum adds at most one rounding
   (one fewer where the multiplication uses a fused multiply-add); and
   ``|sin| + |cos| <= sqrt(2)``. So a float64 entry is within
   ``(4 + 2*sqrt(2)) * 2**-54 < 3.8e-16`` of the true value (up to terms below 1e-24
   for positions below 2**24).
5. For float32 and float16 the float64 product is rounded once to the output type.
   Near zero, 3.8e-16 is no longer small beside a float32 ulp (for values near
   ``2**-27`` and below), so float32 entries whose angle lies within ``2**-22`` of a
   multiple of ``pi/2`` are computed again directly by step 2. They are found from
   the angles, not by scanning the table: the offsets' angles modulo ``pi/2`` are
   sorted once per pair, and each anchor needs one binary search per pair. Every
   other entry exceeds ``2**-23`` in magnitude, so every float32 and float16 entry is
   within one ulp.

Extra memory is ``O(sqrt(length) * width)``; the table itself is written by one
array operation (float32, float64) or one per block of rows (float16).

References
----------
- A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.5.
- T. J. Dekker, "A floating-point technique for extending the available precision",
  Numerische Mathematik 18 (1971): exact products and sums.
- D. E. Knuth, The Art of Computer Programming, vol. 2, section 4.2.2: two-sum.
- W. J. Cody and W. Waite, Software Manual for the Elementary Functions (1980):
  argument reduction with a split constant.
"""

from __future__ import annotations

import functools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
from numpy.typing import DTypeLike

from posenc import _validate

__all__ = ["frequencies", "shift_matrix", "sinusoidal", "wavelengths"]

# --------------------------------------------------------------------------------------
# Double-double arithmetic. A number is an unevaluated sum hi + lo of two float64
# arrays with |lo| <= ulp(hi) / 2, which carries about 106 significant bits.

_SPLITTER = 134217729.0  # 2**27 + 1: Dekker's constant to split a float64 in two halves


def _two_sum(a, b):
    """Return ``(s, e)`` with ``s = fl(a + b)`` and ``s + e = a + b`` exactly."""
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _fast_two_sum(a, b):
    """As :func:`_two_sum`, for ``|a| >= |b|`` (or ``a == 0``)."""
    s = a + b
    return s, b - (s - a)


def _split(a):
    """Return ``(hi, lo)`` with ``a = hi + lo`` and at most 26 significant bits in each."""
    t = _SPLITTER * a
    hi = t - (t - a)
    return hi, a - hi


def _two_prod(a, b):
    """Return ``(p, e)`` with ``p = fl(a * b)`` and ``p + e = a * b`` exactly."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _dd_add(ah, al, bh, bl):
    """Double-double ``(ah + al) + (bh + bl)``."""
    s, e = _two_sum(ah, bh)
    t, f = _two_sum(al, bl)
    s, e = _fast_two_sum(s, e + t)
    return _fast_two_sum(s, e + f)


def _dd_add_float(ah, al, b):
    """Double-double ``(ah + al) + b`` for a float64 ``b``."""
    s, e = _two_sum(ah, b)
    return _fast_two_sum(s, e + al)


def _dd_mul(ah, al, bh, bl):
    """Double-double ``(ah + al) * (bh + bl)``."""
    p, e = _two_prod(ah, bh)
    return _fast_two_sum(p, e + (ah * bl + al * bh))


def _dd_horner(coefficients, xh, xl):
    """Double-double ``sum_m c_m x**m`` by Horner's rule; ``c_0`` comes first."""
    ah, al = coefficients[-1]
    for ch, cl in reversed(coefficients[:-1]):
        ah, al = _dd_mul(ah, al, xh, xl)
        ah, al = _dd_add(ah, al, ch, cl)
    return ah, al


# --------------------------------------------------------------------------------------
# Constants, from exact or 100-digit arithmetic.

_PI = "3.1415926535897932384626433832795028841971693993751058209749445923078164062862"


def _float_parts(x: Decimal, count: int) -> tuple[float, ...]:
    """Split ``x`` into ``count`` float64 parts, largest first, summing to ``x``."""
    parts = []
    with localcontext() as context:
        context.prec = 100
        for _ in range(count):
            part = float(x)  # correctly rounded
            parts.append(part)
            x -= Decimal(part)  # exact: Decimal(float) is the float's exact value
    return tuple(parts)


def _dd_fraction(q: Fraction) -> tuple[float, float]:
    """A rational number as a double-double ``(hi, lo)``."""
    hi = float(q)
    return hi, float(q - Fraction(hi))


with localcontext() as _context:
    _context.prec = 100
    _HALF_PI = _float_parts(Decimal(_PI) / 2, 3)  # pi/2 to about 160 bits
    _TWO_OVER_PI = float(2 / Decimal(_PI))

# Taylor series on |r| <= pi/4: the first omitted terms, r**29/29! and r**30/30!, are
# below 2e-34, far under the 2**-106 (1.2e-32) resolution of a double-double.
_SIN_SERIES = tuple(
    _dd_fraction(Fraction((-1) ** m, math.factorial(2 * m + 1))) for m in range(14)
)
_COS_SERIES = tuple(_dd_fraction(Fraction((-1) ** m, math.factorial(2 * m))) for m in range(15))

# float32: entries whose angle is this close to a multiple of pi/2 are recomputed
# directly (see the module docstring); every other entry exceeds 2**-23 in magnitude.
_QUARTER_MARGIN = 2.0**-22
_QUARTER = _HALF_PI[0]  # pi/2 rounded to float64
_STRETCH = 4.0  # sorted residues of pair i are kept in [4i, 4i + pi/2]

# Elements per temporary array in the double-double passes (fits in a 1 MiB cache).
_CHUNK = 8192

# Largest table of anchor or offset rotations kept between calls, in elements of d/2.
_CACHED_ELEMENTS = 2**18


# --------------------------------------------------------------------------------------
# Exactly reduced angles.


def _quarter_turns(n, w_hi, w_lo):
    """Write ``n * w = k * pi/2 + r`` with ``|r| <= pi/4``; return ``(k, r_hi, r_lo)``.

    ``n`` holds float64 values with ``|n| <= 2**53``; ``w = w_hi + w_lo``. The product
    is kept exactly as four float64 terms and reduced before it is ever rounded.
    """
    p, e = _two_prod(n, w_hi)  # n * w_hi = p + e exactly
    q, f = _two_prod(n, w_lo)  # n * w_lo = q + f exactly
    k = np.rint(p * _TWO_OVER_PI)  # nearest quarter turn, possibly off by one
    p1, e1 = _two_prod(k, _HALF_PI[0])  # k * pi/2, first part, exactly
    p2, e2 = _two_prod(k, _HALF_PI[1])
    rh, rl = _two_sum(p, -p1)  # the large terms cancel here, without error
    for term in (e, -e1, -p2, q, -e2, f, -k * _HALF_PI[2]):
        rh, rl = _dd_add_float(rh, rl, term)
    # A second, small correction when the first k was off by one: |k2| <= 1.
    k2 = np.rint(rh * _TWO_OVER_PI)
    for part in _HALF_PI:
        rh, rl = _dd_add_float(rh, rl, -k2 * part)  # k2 * part is exact
    return k + k2, rh, rl


def _cis(n, w_hi, w_lo):
    """Sine and cosine of ``n * w`` as double-doubles ``(sin_hi, sin_lo, cos_hi, cos_lo)``.

    ``n`` (exact float64 values, ``|n| <= 2**53``) broadcasts against ``w``.
    """
    k, rh, rl = _quarter_turns(np.asarray(n, dtype=np.float64), w_hi, w_lo)
    r2h, r2l = _dd_mul(rh, rl, rh, rl)  # r**2
    sh, sl = _dd_horner(_SIN_SERIES, r2h, r2l)
    sh, sl = _dd_mul(sh, sl, rh, rl)  # sin r = r * (1 - r**2/3! + ...)
    ch, cl = _dd_horner(_COS_SERIES, r2h, r2l)  # cos r = 1 - r**2/2! + ...
    # Turn by k quarter turns: (sin, cos) -> (cos, -sin) per quarter turn.
    quarter = k.astype(np.int64) & 3  # k mod 4, also for negative k
    odd = (quarter & 1) == 1
    sh, ch = np.where(odd, ch, sh), np.where(odd, sh, ch)
    sl, cl = np.where(odd, cl, sl), np.where(odd, sl, cl)
    sin_sign = np.where(quarter >= 2, -1.0, 1.0)
    cos_sign = np.where((quarter == 1) | (quarter == 2), -1.0, 1.0)
    return sh * sin_sign, sl * sin_sign, ch * cos_sign, cl * cos_sign


def _rotate(x, y):
    """Angle addition in double-double: ``cis(x + y)`` from ``cis(x)`` and ``cis(y)``.

    Each argument is four arrays ``(sin_hi, sin_lo, cos_hi, cos_lo)``; shapes broadcast.
    The sums use the short double-double addition: its error, about ``2**-106`` times
    the larger term, is absolute, which is all a table of sines and cosines needs.
    """
    sxh, sxl, cxh, cxl = x
    syh, syl, cyh, cyl = y
    sx, cx, sy, cy = _split(sxh), _split(cxh), _split(syh), _split(cyh)  # each split once
    ah, al = _dd_mul_split(sxh, sx, sxl, cyh, cy, cyl)  # sin x cos y
    bh, bl = _dd_mul_split(cxh, cx, cxl, syh, sy, syl)  # cos x sin y
    ch, cl = _dd_mul_split(cxh, cx, cxl, cyh, cy, cyl)  # cos x cos y
    dh, dl = _dd_mul_split(sxh, sx, sxl, syh, sy, syl)  # sin x sin y
    sh, sl = _two_sum(ah, bh)
    sh, sl = _fast_two_sum(sh, sl + (al + bl))
    ch, cl2 = _two_sum(ch, -dh)
    ch, cl = _fast_two_sum(ch, cl2 + (cl - dl))
    return sh, sl, ch, cl


def _dd_mul_split(ah, a_parts, al, bh, b_parts, bl):
    """Double-double product, given the Dekker halves of ``ah`` and ``bh``."""
    a1, a2 = a_parts
    b1, b2 = b_parts
    p = ah * bh
    e = ((a1 * b1 - p) + a1 * b2 + a2 * b1) + a2 * b2  # p + e = ah * bh exactly
    return _fast_two_sum(p, e + (ah * bl + al * bh))


@functools.lru_cache(maxsize=32)
def _ladder(base: float, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies ``w_i = base**(-2i/width)`` as read-only double-doubles ``(hi, lo)``."""
    hi = np.empty(width // 2)  # (d/2,)
    lo = np.empty(width // 2)  # (d/2,)
    with localcontext() as context:
        context.prec = 50
        ratio = (Decimal(base).ln() * -2 / width).exp()  # w_{i+1} / w_i = base**(-2/d)
        w = Decimal(1)
        for i in range(width // 2):
            hi[i] = float(w)
            lo[i] = float(w - Decimal(hi[i]))
            w *= ratio
    hi.flags.writeable = False
    lo.flags.writeable = False
    return hi, lo


@functools.lru_cache(maxsize=8)
def _doublings(base: float, width: int, count: int) -> tuple[np.ndarray, ...]:
    """``cis(2**k * w)`` for ``k = 0 .. count-1``, four read-only arrays ``(count, d/2)``."""
    w_hi, w_lo = _ladder(base, width)  # (d/2,)
    n = np.ldexp(1.0, np.arange(count))[:, None]  # (count, 1): 2**k
    parts = _cis(n, w_hi, w_lo)  # 4 x (count, d/2)
    for part in parts:
        part.flags.writeable = False
    return parts


def _progression(first, steps, count):
    """Rows ``m = 0 .. count-1`` of ``cis(x + m*y)`` in double-double, by doubling.

    ``first`` is ``cis(x)``, four arrays ``(d/2,)``; ``steps`` holds ``cis(2**k * y)``,
    four arrays ``(levels, d/2)``. Row ``m`` is ``first`` turned by the steps of the
    binary digits of ``m``: ``bit_length(m)`` exactly reduced factors, no long chain.
    """
    half = first[0].shape[-1]
    rows = [np.empty((count, half)) for _ in range(4)]  # 4 x (count, d/2)
    for row, value in zip(rows, first, strict=True):
        row[0] = value
    chunk = max(1, _CHUNK // half)  # rows per pass, to keep temporaries in cache
    filled, level = 1, 0
    while filled < count:
        size = min(filled, count - filled)
        step = tuple(part[level] for part in steps)  # 4 x (d/2,)
        for top in range(0, size, chunk):
            part = slice(top, min(top + chunk, size))
            turned = _rotate(tuple(row[part] for row in rows), step)  # 4 x (chunk, d/2)
            for row, value in zip(rows, turned, strict=True):
                row[filled + part.start : filled + part.stop] = value
        filled, level = filled + size, level + 1
    return rows


# --------------------------------------------------------------------------------------
# Public functions.


def frequencies(width: int, *, base: float = 10000.0) -> np.ndarray:
    """Angular speeds ``w_i = base**(-2i/width)`` of the pairs, ``i = 0 .. width/2 - 1``.

    Parameters
    ----------
    width : int
        Model width ``d``, an even integer ``>= 2``.
    base : float, optional
        A finite real number ``> 1``; 10000 in the paper.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(width // 2,)``. Each value is the float64 nearest to the
        exact real number ``base**(-2i/width)`` (it is computed with 50 digits).

    Examples
    --------
    >>> frequencies(4)
    array([1.  , 0.01])
    >>> print(frequencies(8, base=16.0))
    [1.    0.5   0.25  0.125]
    """
    width = _validate.width(width)
    base = _validate.base(base)
    _validate.memory(f"width={width}", 16 * width)  # hi, lo and the copy: d/2 each
    return _ladder(base, width)[0].copy()


def wavelengths(width: int, *, base: float = 10000.0) -> np.ndarray:
    """Wavelengths ``2*pi / w_i = 2*pi * base**(2i/width)`` of the pairs, in positions.

    The ladder is geometric with ratio ``base**(2/width)``. It starts at ``2*pi`` and
    stops at ``2*pi * base**((width-2)/width)``, one rung short of ``2*pi*base``.

    Parameters
    ----------
    width : int
        Model width ``d``, an even integer ``>= 2``.
    base : float, optional
        A finite real number ``> 1``; 10000 in the paper.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(width // 2,)``, each value correctly rounded.

    Examples
    --------
    >>> print(wavelengths(4).round(4))
    [  6.2832 628.3185]
    >>> print(round(float(wavelengths(512)[-1]), 1))
    60611.5
    """
    width = _validate.width(width)
    base = _validate.base(base)
    _validate.memory(f"width={width}", 8 * width)
    result = np.empty(width // 2)  # (d/2,)
    with localcontext() as context:
        context.prec = 50
        ratio = (Decimal(base).ln() * 2 / width).exp()  # base**(2/d)
        value = 2 * Decimal(_PI)
        for i in range(width // 2):
            result[i] = float(value)
            value *= ratio
    return result


def sinusoidal(
    length: int,
    width: int,
    *,
    base: float = 10000.0,
    start: int = 0,
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    """The sinusoidal position code: one row per position, one column per feature.

    ``PE[pos, 2i] = sin(pos * w_i)`` and ``PE[pos, 2i+1] = cos(pos * w_i)``, with
    ``w_i = base**(-2i/width)`` (Vaswani et al. 2017, section 3.5).

    Parameters
    ----------
    length : int
        Number of rows, an integer ``>= 0``.
    width : int
        Model width ``d``, an even integer ``>= 2``.
    base : float, optional
        A finite real number ``> 1``; 10000 in the paper.
    start : int, optional
        Position of the first row, an integer ``>= 0``; ``start + length <= 2**53``.
    dtype : {float64, float32, float16}, optional
        Output type, as a NumPy dtype, a type or a name.

    Returns
    -------
    numpy.ndarray
        Shape ``(length, width)``; row ``r`` is position ``start + r``.

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong kind or out of range (the message names it).
    posenc.TooLargeError
        When the table and its intermediates would need more memory than the limit
        of :func:`posenc._validate.memory_limit` (the machine's memory), before
        anything is allocated.

    Notes
    -----
    Accuracy, against ``sin(pos * w)`` with the exact real ``w = base**(-2i/width)``:
    for positions below ``2**24``, float64 entries are within 4e-16 and float32 and
    float16 entries within one ulp. The module docstring says how.

    Examples
    --------
    >>> print(sinusoidal(3, 4).round(6))
    [[ 0.        1.        0.        1.      ]
     [ 0.841471  0.540302  0.01      0.99995 ]
     [ 0.909297 -0.416147  0.019999  0.9998  ]]
    >>> sinusoidal(0, 2).shape
    (0, 2)
    """
    length, start = _validate.positions(length, start)
    width = _validate.width(width)
    base = _validate.base(base)
    dtype = _validate.dtype(dtype)
    _validate.memory(f"length={length}, width={width}", peak_bytes(length, width, dtype))
    table = np.empty((length, width), dtype=dtype)  # (L, d)
    if length:
        _fill(table, start, base)
    return table


def peak_bytes(length: int, width: int, dtype: np.dtype) -> int:
    """Bytes :func:`sinusoidal` needs at its peak: the table and its intermediates.

    The table is ``L * d`` entries. The ``K`` doublings ``cis(2**k w)`` (4 double-double
    arrays of ``d/2``, with the temporaries of their Taylor series) cost about
    ``85 K d`` bytes; the ``B`` offsets and ``A`` anchors, in double-double and then
    complex, at most about ``48 (A + B) d`` (float32 finds its near-zero entries from
    them too). The constants are rounded up from the peaks ``tracemalloc`` measured.
    """
    if not length:
        return 0
    block = _block_rows(length)  # B
    blocks = -(-length // block)  # A
    levels = block.bit_length() - 1 + (blocks - 1).bit_length()
    doublings = min(54, 16 * max(1, -(-levels // 16)))  # K, as _anchor_turns asks for
    extra = width * (86 * doublings + 48 * (block + blocks))
    return np.dtype(dtype).itemsize * length * width + extra


def _fill(table: np.ndarray, start: int, base: float) -> None:
    """Write rows ``start, start+1, ...`` of the code into ``table`` (L, d), L >= 1.

    With ``x = (start + a*B) w`` (anchor ``a``) and ``y = j w`` (offset ``j < B``), the
    pair ``(sin, cos)`` of row ``a*B + j`` is the complex product
    ``(sin x + i cos x) * (cos y - i sin y) = sin(x + y) + i cos(x + y)``, and the
    interleaved columns of a row are exactly the real and imaginary parts of ``d/2``
    complex numbers. So each block of ``B`` rows is one complex multiplication, written
    straight into the table (float32: rounded once from the float64 product).
    """
    length, width = table.shape
    block = _block_rows(length)  # B, a power of two near 2 sqrt(L)
    blocks = -(-length // block)  # A = ceil(L / B)
    offset = _offsets(base, width, block)  # (B, d/2) complex: cos y - i sin y
    anchor = _anchors(base, width, start, block, blocks)  # (A, d/2) complex: sin x + i cos x
    offset, anchor = _apart(offset, table), _apart(anchor, table)
    full = length // block  # blocks of B rows
    rest = length - full * block  # rows of the last, short block
    if table.dtype == np.float16:  # no complex float16 in NumPy: round block by block
        product = np.empty((block, width // 2), dtype=np.complex128)  # (B, d/2)
        for a in range(blocks):
            rows = min(block, length - a * block)
            np.multiply(offset[:rows], anchor[a], out=product[:rows])
            target = table[a * block : a * block + rows]  # (rows, d)
            np.copyto(target, product[:rows].view(np.float64), casting="same_kind")
        return
    pairs = table.view(np.complex128 if table.dtype == np.float64 else np.complex64)  # (L, d/2)
    if full:
        blocked = pairs[: full * block].reshape(full, block, width // 2)  # (A', B, d/2)
        np.multiply(offset, anchor[:full, None], out=blocked, casting="same_kind")
    if rest:
        np.multiply(offset[:rest], anchor[full], out=pairs[full * block :], casting="same_kind")
    if table.dtype == np.float32:
        rows, pair = _near_quarter_turns(base, width, block, anchor, length)  # (m,) each
        if rows.size:
            _recompute(table, rows, pair, start, base)


def _apart(array: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``array``, or a copy of it, whose address is not near the table's modulo 4 KiB.

    The complex multiplication reads a row of ``array`` while it writes the same
    column of a row of ``table``; rows are whole multiples of 4 KiB apart for the usual
    widths, so if the two arrays start at nearly the same place within a 4 KiB page
    (as two large arrays from the same allocator do), every load seems to depend on
    the store just before it ("4K aliasing") and the loop runs several times slower.
    A copy half a page away costs far less than that.
    """
    page = 4096
    gap = (array.ctypes.data - table.ctypes.data) % page
    if page // 4 <= gap <= 3 * page // 4:
        return array
    raw = np.empty(array.nbytes + page, dtype=np.uint8)  # room to choose the start
    shift = (table.ctypes.data + page // 2 - raw.ctypes.data) % page
    copy = raw[shift : shift + array.nbytes].view(array.dtype).reshape(array.shape)
    copy[...] = array
    return copy


def _block_rows(length: int) -> int:
    """Rows per anchor ``B``: the power of two in ``[sqrt(2 L), sqrt(8 L))``, ``L = length``.

    Anchors are made afresh for each call and offsets are kept between calls, so more
    offsets than anchors is faster; both stay ``O(sqrt(length))``.
    """
    return 1 << ((length - 1).bit_length() + 2) // 2


def _remembered(compute):
    """``compute(base, width, rows, ...)``, its result kept between calls when small.

    A result of ``rows * (d/2)`` elements is kept when that is at most
    ``_CACHED_ELEMENTS`` (at most 8 MiB per result, four results per function);
    larger ones are made each time.
    """
    cached = functools.lru_cache(maxsize=4)(compute)

    @functools.wraps(compute)
    def call(base: float, width: int, rows: int, *more: int):
        if rows * (width // 2) <= _CACHED_ELEMENTS:
            return cached(base, width, rows, *more)
        return compute(base, width, rows, *more)

    call.cache_clear = cached.cache_clear
    return call


@_remembered
def _offsets(base: float, width: int, count: int) -> np.ndarray:
    """``cos(j w) - i sin(j w)`` for ``j < count``: read-only complex128 (count, d/2).

    Real and imaginary parts are each correctly rounded (see :func:`_compute_turns`).
    """
    sin, cos = _compute_turns(base, width, 0, 0, count)  # (count, d/2) each
    offset = np.empty(sin.shape, dtype=np.complex128)  # (count, d/2)
    offset.real, offset.imag = cos, -sin
    offset.flags.writeable = False
    return offset


@_remembered
def _anchor_turns(base: float, width: int, count: int, block: int) -> tuple[np.ndarray, ...]:
    """``cis(a * block * w)`` for ``a < count`` in double-double: 4 read-only (count, d/2).

    These do not depend on the first position, so they are kept between calls.
    """
    bits = block.bit_length() - 1  # block = 2**bits
    levels = bits + (count - 1).bit_length()  # doublings 2**0 .. 2**(levels-1) may be used
    doubled = _doublings(base, width, min(54, 16 * max(1, -(-levels // 16))))  # 4 x (K, d/2)
    half = width // 2
    origin = (np.zeros(half), np.zeros(half), np.ones(half), np.zeros(half))  # cis(0)
    rows = _progression(origin, [part[bits:] for part in doubled], count)  # 4 x (count, d/2)
    for part in rows:
        part.flags.writeable = False
    return tuple(rows)


def _anchors(base: float, width: int, start: int, block: int, count: int) -> np.ndarray:
    """``sin x + i cos x`` for ``x = (start + a * block) w``, ``a < count``: (count, d/2).

    The kept turns ``cis(a * block * w)`` are turned once more, by the exactly reduced
    ``cis(start * w)``, in double-double; each part is then rounded once to float64.
    """
    turns = _anchor_turns(base, width, count, block)  # 4 x (count, d/2), double-double
    anchor = np.empty((count, width // 2), dtype=np.complex128)  # (A, d/2)
    if not start:
        anchor.real, anchor.imag = turns[0], turns[2]
        return anchor
    w_hi, w_lo = _ladder(base, width)  # (d/2,) each
    first = _cis(float(start), w_hi, w_lo)  # 4 x (d/2,)
    rows = max(1, _CHUNK // (width // 2))  # rows per pass, to keep temporaries in cache
    for top in range(0, count, rows):
        part = slice(top, min(top + rows, count))
        sin, _, cos, _ = _rotate(tuple(turn[part] for turn in turns), first)  # (rows, d/2)
        anchor.real[part], anchor.imag[part] = sin, cos
    return anchor


def _compute_turns(base: float, width: int, first: int, bits: int, count: int):
    """``cis((first + m * 2**bits) * w)`` for ``m < count``, each rounded once to float64.

    Built in double-double from ``cis(first * w)`` and the exactly reduced doublings
    ``cis(2**k * w)``, ``k >= bits``. Returns read-only ``(sin, cos)``, each (count, d/2).
    """
    w_hi, w_lo = _ladder(base, width)  # (d/2,) each
    levels = bits + (count - 1).bit_length()  # doublings 2**0 .. 2**(levels-1) may be used
    doubled = _doublings(base, width, min(54, 16 * max(1, -(-levels // 16))))  # 4 x (K, d/2)
    half = width // 2
    if first:
        origin = _cis(float(first), w_hi, w_lo)  # 4 x (d/2,)
    else:
        origin = (np.zeros(half), np.zeros(half), np.ones(half), np.zeros(half))  # cis(0)
    rows = _progression(origin, [part[bits:] for part in doubled], count)  # 4 x (count, d/2)
    sin, cos = rows[0], rows[2]  # the high parts: correctly rounded
    sin.flags.writeable = False
    cos.flags.writeable = False
    return sin, cos


# --------------------------------------------------------------------------------------
# float32: the few entries near zero.
#
# The float64 product is within 3.8e-16 of the true value; a float32 ulp is smaller
# than that only for values below about 2**-27. Such a value is the sine or cosine of
# an angle close to a multiple of pi/2. Rather than scanning the table for small
# entries, the candidates are found from the angles: row a*B + j, pair i, has angle
# x + y with x = x_a (anchor) and y = y_j (offset), and x + y is within
# ``_QUARTER_MARGIN`` of a multiple of pi/2 exactly when the residue of y_j modulo
# pi/2 is within that margin of the residue of -x_a. The offsets' residues are sorted
# once per pair and kept; each anchor is then one binary search per pair.


def _near_quarter_turns(base, width, block, anchor, length):
    """Rows and pairs whose angle is within ``_QUARTER_MARGIN`` of a multiple of pi/2.

    ``anchor`` (A, d/2) holds ``sin x_a + i cos x_a``. Returns two int64 arrays, rows
    and pairs; every entry of a pair not returned exceeds ``2**-23`` in magnitude.
    """
    keys, order = _sorted_residues(base, width, block)  # (d/2 * B + 1,), (d/2 * B,)
    count, half = anchor.shape
    angle = np.arctan2(anchor.real, anchor.imag)  # (A, d/2): x_a in [-pi, pi]
    residue = np.mod(-np.ascontiguousarray(angle.T), _QUARTER)  # (d/2, A): -x_a mod pi/2
    # Keys are residue + 4i, rounded: widen the window by that rounding, and more.
    margin = _QUARTER_MARGIN + 2 * float(np.spacing(_STRETCH * half))
    stretch = _STRETCH * np.arange(half, dtype=np.float64)[:, None]  # (d/2, 1)
    query = (residue + stretch).ravel()  # (d/2 * A,), pair by pair
    origin = None  # index of each query in the (d/2, A) residues, when not the identity
    # A residue within the margin of 0 or pi/2 also meets keys at the other end.
    wrap = np.flatnonzero((residue < margin) | (residue > _QUARTER - margin))  # (w,)
    if wrap.size:
        turned = query[wrap] + np.where(residue.ravel()[wrap] < margin, _QUARTER, -_QUARTER)
        query = np.concatenate([query, turned])  # (q,)
        origin = np.concatenate([np.arange(residue.size), wrap])  # (q,)
    first = np.searchsorted(keys, query - margin, side="left")  # (q,): first key in window
    hit = np.flatnonzero(keys[first] <= query + margin)  # keys ends with +inf
    if not hit.size:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    first, query = first[hit], query[hit]  # (h,) each
    source = hit if origin is None else origin[hit]  # (h,)
    runs = np.searchsorted(keys, query + margin, side="right") - first  # (h,): >= 1 each
    starts = np.repeat(first - (np.cumsum(runs) - runs), runs)  # (m,)
    position = starts + np.arange(runs.sum())  # (m,): every key in every window
    pair = position // block  # the stretch of the key
    rows = np.repeat(source % count, runs) * block + order[position]  # (m,): a*B + j
    keep = rows < length
    return rows[keep], pair[keep]


@_remembered
def _sorted_residues(base: float, width: int, count: int):
    """Offsets' angles ``j w_i`` modulo pi/2, sorted within each pair.

    Returns ``keys``, float64 (d/2 * B + 1,): pair ``i``'s residues plus ``4 i`` in
    rising order, then ``+inf``; and ``order``, int64 (d/2 * B,): the offset ``j`` of
    each key. The residue of a correctly rounded ``(sin y, cos y)`` is within about
    1e-15 of the true one.
    """
    offset = _offsets(base, width, count)  # (B, d/2): cos y - i sin y
    angle = np.arctan2(-offset.imag, offset.real)  # (B, d/2): y_j in [-pi, pi]
    residue = np.mod(np.ascontiguousarray(angle.T), _QUARTER)  # (d/2, B)
    order = np.argsort(residue, axis=1, kind="stable")  # (d/2, B)
    keys = np.take_along_axis(residue, order, axis=1)  # (d/2, B)
    keys += _STRETCH * np.arange(width // 2, dtype=np.float64)[:, None]
    keys = np.append(keys.ravel(), np.inf)  # (d/2 * B + 1,)
    order = order.ravel()  # (d/2 * B,)
    keys.flags.writeable = False
    order.flags.writeable = False
    return keys, order


def _recompute(table, rows, pair, start, base):
    """Recompute pairs ``(rows[k], pair[k])`` of ``table`` from exactly reduced angles."""
    width = table.shape[1]
    w_hi, w_lo = _ladder(base, width)  # (d/2,) each
    for top in range(0, rows.size, _CHUNK):
        r, i = rows[top : top + _CHUNK], pair[top : top + _CHUNK]  # (m,) each
        sin, _, cos, _ = _cis((start + r).astype(np.float64), w_hi[i], w_lo[i])  # (m,) each
        table[r, 2 * i], table[r, 2 * i + 1] = sin, cos


def shift_matrix(k: float, width: int, base: float = 10000.0) -> np.ndarray:
    """The matrix ``M_k`` with ``PE(pos + k) = M_k @ PE(pos)`` for every ``pos``.

    Block diagonal, one rotation per pair: block ``i`` is
    ``[[cos a, sin a], [-sin a, cos a]]`` with ``a = k * w_i`` (for the paper's
    (sin, cos) column order). It does not depend on ``pos``; ``M_0 = I``,
    ``M_j @ M_k = M_(j+k)`` and ``M_(-k) = M_k.T``.

    Parameters
    ----------
    k : int or float
        The shift, a finite real number with ``|k| <= 2**53``; negative shifts go back.
    width : int
        Model width ``d``, an even integer ``>= 2``.
    base : float, optional
        A finite real number ``> 1``; 10000 in the paper.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(width, width)``; entries are correctly rounded.

    Examples
    --------
    >>> m = shift_matrix(1, 2)
    >>> print(m.round(6))
    [[ 0.540302  0.841471]
     [-0.841471  0.540302]]
    >>> table = sinusoidal(8, 6)
    >>> bool(np.allclose(shift_matrix(3, 6) @ table[2], table[5]))
    True
    """
    k = _validate.shift(k)
    width = _validate.width(width)
    base = _validate.base(base)
    # The matrix, the ladder and the temporaries of the exact sines and cosines.
    _validate.memory(f"width={width}", 8 * width * width + 112 * width)
    w_hi, w_lo = _ladder(base, width)  # (d/2,)
    sin, _, cos, _ = _cis(k, w_hi, w_lo)  # (d/2,) each
    matrix = np.zeros((width, width))  # (d, d)
    even = np.arange(0, width, 2)  # (d/2,)
    matrix[even, even] = cos
    matrix[even, even + 1] = sin
    matrix[even + 1, even] = -sin
    matrix[even + 1, even + 1] = cos
    return matrix
