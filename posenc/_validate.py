"""Argument checks shared by the public functions.

Every check returns the value in the canonical type the caller computes with, or
raises an error whose message names the argument, the allowed range and the value
it got. ``TypeError`` means the argument is of the wrong kind (a float where an
integer is needed); ``ValueError`` means it is of the right kind but out of range.
"""

from __future__ import annotations

import math
import numbers
import operator

import numpy as np

#: Largest position the tables accept: every position must be an exact float64 integer.
MAX_POSITION = 2**53

#: Output dtypes of :func:`posenc.sinusoidal`, by name.
DTYPES = ("float16", "float32", "float64")


def _is_bool(value: object) -> bool:
    return isinstance(value, bool | np.bool_)


def integer(name: str, value: object, *, minimum: int = 0) -> int:
    """Return ``value`` as an ``int`` if it is an integer ``>= minimum``.

    Python and NumPy integers are accepted; ``bool`` and floats (even ``3.0``) are not.
    """
    if _is_bool(value):
        raise TypeError(f"{name} must be an integer >= {minimum}, got bool {value!r}")
    try:
        result = operator.index(value)
    except TypeError:
        kind = type(value).__name__
        raise TypeError(f"{name} must be an integer >= {minimum}, got {kind} {value!r}") from None
    if result < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {result}")
    return result


def width(value: object) -> int:
    """Return the model width as an ``int``: an even integer ``>= 2``."""
    message = "width must be an even integer >= 2, got {!r}"
    if _is_bool(value):
        raise TypeError(message.format(value))
    try:
        result = operator.index(value)
    except TypeError:
        raise TypeError(message.format(value)) from None
    if result < 2 or result % 2:
        raise ValueError(message.format(result))
    return result


def real(name: str, value: object) -> float:
    """Return ``value`` as a finite ``float``; ``bool``, complex and strings are refused."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        kind = type(value).__name__
        raise TypeError(f"{name} must be a finite real number, got {kind} {value!r}")
    try:
        result = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a finite real number, got {value!r}") from None
    if not math.isfinite(result):
        raise ValueError(f"{name} must be a finite real number, got {result!r}")
    return result


def base(value: object) -> float:
    """Return the frequency base as a ``float``: a finite real number ``> 1``."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        kind = type(value).__name__
        raise TypeError(f"base must be a finite real number > 1, got {kind} {value!r}")
    try:
        result = float(value)
    except OverflowError:
        raise ValueError(f"base must be a finite real number > 1, got {value!r}") from None
    if not (math.isfinite(result) and result > 1.0):
        raise ValueError(f"base must be a finite real number > 1, got {result!r}")
    return result


def positions(length: object, start: object) -> tuple[int, int]:
    """Return ``(length, start)`` after checking that every position is exact in float64."""
    length = integer("length", length)
    start = integer("start", start)
    if start + length > MAX_POSITION:
        raise ValueError(
            f"start + length must be <= 2**53 (positions are exact float64 integers), "
            f"got start={start}, length={length}"
        )
    return length, start


def shift(value: object) -> float:
    """Return a shift ``k`` as a ``float``: a finite real number with ``|k| <= 2**53``."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        kind = type(value).__name__
        raise TypeError(f"k must be a finite real number, got {kind} {value!r}")
    if isinstance(value, numbers.Integral) and abs(int(value)) > MAX_POSITION:
        raise ValueError(f"k must be a finite real number with |k| <= 2**53, got {value!r}")
    result = real("k", value)
    if abs(result) > MAX_POSITION:
        raise ValueError(f"k must be a finite real number with |k| <= 2**53, got {result!r}")
    return result


def dtype(value: object) -> np.dtype:
    """Return the output dtype: float16, float32 or float64 (names, types or dtypes)."""
    allowed = ", ".join(DTYPES)
    if value is None:
        raise TypeError(f"dtype must be one of {allowed}, got None")
    try:
        result = np.dtype(value)
    except TypeError:
        raise TypeError(f"dtype must be one of {allowed}, got {value!r}") from None
    if result.name not in DTYPES:
        raise ValueError(f"dtype must be one of {allowed}, got {result.name}")
    return np.dtype(result.name)  # native byte order
