"""Argument checks shared by the public functions.

Every check returns the value in the canonical type the caller computes with, or
raises an error whose message names the argument, the allowed range and the value
it got. ``TypeError`` means the argument is of the wrong kind (a float where an
integer is needed); ``ValueError`` means it is of the right kind but out of range.
"""

from __future__ import annotations

import functools
import math
import numbers
import operator
import os
from decimal import Decimal

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


def real_array(name: str, value: object) -> np.ndarray:
    """Return ``value`` as a float64 array; complex, text and objects are refused.

    NumPy's own conversion would name no argument (``could not convert string to
    float``) and would drop the imaginary part of a complex array with a warning.
    """
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:  # ragged nested lists
        reason = " ".join(str(error).split(".")[0].split())
        raise ValueError(f"{name} must be an array of real numbers ({reason})") from None
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be an array of real numbers, got dtype {array.dtype}")
    return array.astype(np.float64, copy=False)


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


# --------------------------------------------------------------------------------------
# Memory: refuse a size before allocating it.


class TooLargeError(ValueError, MemoryError):
    """A request whose arrays would need more memory than the machine has.

    Raised before anything is allocated. It is a ``ValueError`` (the arguments are out
    of the range this machine can serve, and callers that catch bad arguments catch it
    too) and a ``MemoryError`` (what NumPy would have raised, after a long wait or an
    out-of-memory kill). The message names the arguments, the bytes needed and the
    limit.
    """


def _cgroup_limit() -> int | None:
    """The memory limit of this process's cgroup (v2 ``memory.max``), if it sets one."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as file:
            lines = file.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, _, path = line.partition("::")
        if not path:
            continue
        try:
            with open(f"/sys/fs/cgroup{path}/memory.max", encoding="utf-8") as file:
                text = file.read().strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None
    return None


@functools.cache
def memory_limit() -> tuple[int, str]:
    """The most bytes one call may need, and what that limit is, in words.

    The limit is the machine's physical memory (``SC_PHYS_PAGES * SC_PAGE_SIZE``),
    lowered by a cgroup memory limit and by ``RLIMIT_AS`` / ``RLIMIT_DATA`` when these
    are set (as the exercise checker does for its children). Physical memory and these
    limits are fixed while the process runs, so the same call is accepted or refused
    every time; ``MemAvailable`` would change with the load of the moment, and a call
    above it but below physical memory can still succeed once the page cache gives
    way. Above physical memory a call can only swap for a long time or be killed, so
    that is where refusing helps.
    """
    limits: list[tuple[int, str]] = []
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not a POSIX system
        pages = size = -1
    if pages > 0 and size > 0:
        limits.append((pages * size, "this machine's memory"))
    cgroup = _cgroup_limit()
    if cgroup:
        limits.append((cgroup, "this process's cgroup memory limit"))
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        resource = None
    if resource is not None:
        for name, words in (("RLIMIT_AS", "address space"), ("RLIMIT_DATA", "data")):
            soft, _ = resource.getrlimit(getattr(resource, name))
            if soft != resource.RLIM_INFINITY and soft > 0:
                limits.append((soft, f"this process's {words} limit ({name})"))
    if not limits:  # pragma: no cover - no way to ask: a limit no machine exceeds today
        return 2**50, "a fixed limit of 1 PiB"
    return min(limits)


_UNITS = ("kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB")


def _scientific(count: int, digits: int) -> str:
    """``count`` as ``4.1e12``: exact for any int (``Decimal``, not a float)."""
    mantissa, _, exponent = format(Decimal(count), f".{digits - 1}e").partition("e")
    return f"{mantissa}e{int(exponent)}"


def _in_units(count: int, digits: int) -> str:
    """``count`` bytes in decimal units (kB = 1000 bytes), to ``digits`` significant digits."""
    if count < 1000:
        return f"{count} bytes"
    exponent = (len(str(count)) - 1) // 3
    if exponent > len(_UNITS):
        return f"{_scientific(count, digits)} bytes"
    text = format(Decimal(count) / Decimal(1000) ** exponent, f".{digits}g")
    if "E" in text.upper():  # 999.6 kB rounds to 1E+3 kB: say 1 MB
        return _in_units(1000 ** (exponent + 1), digits)
    return f"{text} {_UNITS[exponent - 1]}"


def sizes(needed: int, limit: int) -> tuple[str, str]:
    """``needed`` and ``limit`` in words, with enough digits to tell them apart."""
    for digits in range(2, 8):
        need, have = _in_units(needed, digits), _in_units(limit, digits)
        if need != have:
            break
    if not need.endswith(" bytes"):
        need += f" ({_scientific(needed, digits)} bytes)"
    if not have.endswith(" bytes"):
        have += f" ({_scientific(limit, digits)} bytes)"
    return need, have


def memory(what: str, needed: int) -> None:
    """Raise :class:`TooLargeError` if ``needed`` bytes exceed :func:`memory_limit`.

    ``what`` names the arguments, e.g. ``"length=1000000000, width=512"``; ``needed``
    is the peak the caller expects: its result and the intermediates it knows of.
    """
    limit, source = memory_limit()
    if needed > limit:
        need, have = sizes(needed, limit)
        raise TooLargeError(f"{what}: needs about {need} of memory; the limit is {source}, {have}")
