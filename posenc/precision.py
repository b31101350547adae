"""Floating-point formats the position code meets: limits, rounding and spacing.

A binary floating-point format with a ``p``-bit significand holds every integer
``n`` with ``|n| <= 2**p`` and not ``2**p + 1`` (it would need ``p + 1``
significant bits). The formats met in practice:

=========  ====  ===========================  =========================
format     p     largest exact integer run    where it is met
=========  ====  ===========================  =========================
bfloat16   8     256                          TPUs, mixed precision
float16    11    2048                         mixed precision, Keras
float32    24    16,777,216                   every library's table
float64    53    9,007,199,254,740,992        NumPy's default
=========  ====  ===========================  =========================

NumPy has no bfloat16, so :func:`to_bfloat16` rounds to it with integer
operations on the bits of a float32: bfloat16 is the top 16 bits of a float32
(sign, the same 8 exponent bits, 7 stored significand bits).

References
----------
- IEEE Standard for Floating-Point Arithmetic, IEEE 754-2019: binary16, binary32,
  binary64, and round to nearest, ties to even.
- D. Goldberg, "What Every Computer Scientist Should Know About Floating-Point
  Arithmetic", ACM Computing Surveys 23 (1991): ulps and relative error.
- D. Kalamkar et al., "A Study of BFLOAT16 for Deep Learning Training",
  arXiv:1905.12322, 2019: the bfloat16 format.
- S. Boldo and G. Melquiond, "Emulation of FMA and Correctly Rounded Sums: Proved
  Algorithms Using Rounding to Odd", IEEE Transactions on Computers 57 (2008):
  rounding to odd first makes a second rounding safe.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["FORMATS", "Format", "exact_integer_limit", "round_to", "to_bfloat16", "ulp"]


@dataclass(frozen=True)
class Format:
    """A binary floating-point format: significand bits and normal exponent range.

    A finite value is ``m * 2**(e - p + 1)`` with an integer ``|m| < 2**p`` and
    ``min_exponent <= e <= max_exponent`` (subnormals use ``e = min_exponent``).
    """

    name: str
    significand_bits: int  # p, counting the implicit leading bit
    min_exponent: int  # exponent of the smallest normal number, 2**min_exponent
    max_exponent: int  # exponent of the largest finite numbers, just under 2**(max+1)


#: The formats of this module, by name.
FORMATS: dict[str, Format] = {
    "bfloat16": Format("bfloat16", 8, -126, 127),
    "float16": Format("float16", 11, -14, 15),
    "float32": Format("float32", 24, -126, 127),
    "float64": Format("float64", 53, -1022, 1023),
}


def _format(dtype: object) -> Format:
    """The :class:`Format` named by ``dtype``: a name, a NumPy type or dtype."""
    allowed = ", ".join(FORMATS)
    if isinstance(dtype, str) and dtype in FORMATS:
        return FORMATS[dtype]
    if dtype is None or isinstance(dtype, bool):
        raise TypeError(f"dtype must be one of {allowed}, got {dtype!r}")
    try:
        name = np.dtype(dtype).name
    except (TypeError, ValueError, SyntaxError):  # NumPy parses "," as a record spec
        raise TypeError(f"dtype must be one of {allowed}, got {dtype!r}") from None
    if name not in FORMATS:
        raise ValueError(f"dtype must be one of {allowed}, got {name}")
    return FORMATS[name]


def exact_integer_limit(dtype: object) -> int:
    """The largest ``N`` such that every integer ``0 .. N`` is exact in ``dtype``: ``2**p``.

    Parameters
    ----------
    dtype : {"bfloat16", "float16", "float32", "float64"} or a NumPy float dtype
        The format.

    Returns
    -------
    int
        ``2**p`` for a ``p``-bit significand; ``2**p + 1`` is the first integer
        the format cannot hold (it rounds to ``2**p``, ties to even).

    Examples
    --------
    >>> [exact_integer_limit(name) for name in ("bfloat16", "float16", "float32")]
    [256, 2048, 16777216]
    >>> int(np.float16(2049))
    2048
    """
    return 2 ** _format(dtype).significand_bits


def _round_to_odd_float32(x: np.ndarray) -> np.ndarray:
    """float64 to float32, rounding to odd: truncate, then set the last bit if inexact.

    Rounding to odd keeps enough information that a later rounding to a format at
    least two bits narrower gives the correctly rounded result (Boldo and Melquiond).
    """
    with np.errstate(over="ignore"):  # beyond float32's range: inf, handled below
        nearest = x.astype(np.float32)  # round to nearest even
    back = nearest.astype(np.float64)
    finite = np.isfinite(x)
    inexact = finite & (back != x)
    overshoot = inexact & (np.abs(back) > np.abs(x))  # nearest rounded away from zero
    truncated = np.where(overshoot, np.nextafter(nearest, np.float32(0)), nearest)
    bits = truncated.astype(np.float32).view(np.uint32)
    return (bits | inexact.astype(np.uint32)).view(np.float32)


def to_bfloat16(values: ArrayLike) -> np.ndarray:
    """Round to the nearest bfloat16, ties to even; return the values as float32.

    Every finite input is rounded once, correctly: a float64 input is first
    rounded to odd in float32 (which cannot cause a second rounding error), then
    the low 16 bits of the float32 are rounded away. Values beyond the largest
    bfloat16 (about 3.39e38) become infinities; NaN stays NaN.

    Parameters
    ----------
    values : array_like
        Real numbers (integers, float16, float32 or float64).

    Returns
    -------
    numpy.ndarray
        float32, the same shape, each value a bfloat16 number.

    Examples
    --------
    >>> to_bfloat16([255, 256, 257, 258, 259]).tolist()
    [255.0, 256.0, 256.0, 258.0, 260.0]
    >>> float(to_bfloat16(1 / 3))
    0.333984375
    """
    x = np.asarray(values)
    if x.dtype.kind not in "biuf":
        raise TypeError(f"values must be real numbers, got dtype {x.dtype}")
    if x.dtype == np.float32:
        single = x
    elif x.dtype == np.float16:
        single = x.astype(np.float32)  # exact
    else:
        single = _round_to_odd_float32(x.astype(np.float64))
    bits = np.ascontiguousarray(single, dtype=np.float32).view(np.uint32)
    nan = np.isnan(single)
    safe = np.where(nan, np.uint32(0), bits)  # NaN bits could carry past the top
    lowest_kept = (safe >> np.uint32(16)) & np.uint32(1)
    # Adding 0x7FFF plus the last kept bit, then clearing the low half, rounds to
    # nearest with ties to even; a carry out of the significand bumps the exponent.
    rounded = (safe + np.uint32(0x7FFF) + lowest_kept) & np.uint32(0xFFFF0000)
    quiet_nan = (bits & np.uint32(0x80000000)) | np.uint32(0x7FC00000)
    return np.where(nan, quiet_nan, rounded).view(np.float32).reshape(x.shape)


def round_to(values: ArrayLike, dtype: object) -> np.ndarray:
    """``values`` rounded once to ``dtype`` (nearest, ties to even), returned as float64.

    Parameters
    ----------
    values : array_like
        Real numbers.
    dtype : {"bfloat16", "float16", "float32", "float64"} or a NumPy float dtype
        The format to round to.

    Returns
    -------
    numpy.ndarray
        float64, the same shape; each value is exactly a number of ``dtype``.

    Examples
    --------
    >>> round_to([2048, 2049, 2050, 2051], "float16").tolist()
    [2048.0, 2048.0, 2050.0, 2052.0]
    >>> round_to(0.1, "bfloat16").item()
    0.10009765625
    """
    fmt = _format(dtype)
    x = np.asarray(values, dtype=np.float64)
    if fmt.name == "bfloat16":
        return to_bfloat16(x).astype(np.float64)
    with np.errstate(over="ignore"):  # overflow to inf is the rounding rule
        return x.astype(fmt.name).astype(np.float64)


def ulp(values: ArrayLike, dtype: object) -> np.ndarray:
    """The unit in the last place of ``dtype`` at ``|x|``: ``2**(e - p + 1)``.

    ``e`` is the exponent of ``|x|`` (``2**e <= |x| < 2**(e+1)``), or the smallest
    normal exponent for subnormal numbers and zero. At a power of two this is the
    gap above ``|x|``; the gap below is half as large.

    Parameters
    ----------
    values : array_like
        Finite real numbers.
    dtype : {"bfloat16", "float16", "float32", "float64"} or a NumPy float dtype
        The format.

    Returns
    -------
    numpy.ndarray
        float64, the same shape as ``values``.

    Examples
    --------
    >>> ulp([1.0, 1e6, 2048.0], "float32").tolist()
    [1.1920928955078125e-07, 0.0625, 0.000244140625]
    >>> ulp(2048.0, "float16").item(), ulp(256.0, "bfloat16").item()
    (2.0, 2.0)
    """
    fmt = _format(dtype)
    x = np.abs(np.asarray(values, dtype=np.float64))
    if not np.all(np.isfinite(x)):
        raise ValueError("values must be finite to have an ulp")
    _, exponent = np.frexp(x)  # x = f * 2**exponent with 0.5 <= f < 1, so e = exponent - 1
    e = np.maximum(exponent - 1, fmt.min_exponent)
    e = np.where(x == 0, fmt.min_exponent, e)
    if np.any(e > fmt.max_exponent):
        raise ValueError(f"values must lie within the range of {fmt.name}")
    return np.ldexp(1.0, e - fmt.significand_bits + 1)
