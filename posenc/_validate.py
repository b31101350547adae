"""Argument checks shared by the public functions.

Every check returns the value in the canonical type the caller computes with, or
raises an error whose message names the argument, the allowed range and the value
it got. ``TypeError`` means the argument is of the wrong kind (a float where an
integer is needed); ``ValueError`` means it is of the right kind but out of range.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import functools
import math
import numbers
import operator
import os
from collections.abc import Iterator
from decimal import Decimal

import numpy as np

#: Largest position the tables accept: every position must be an exact float64 integer.
MAX_POSITION = 2**53

#: Output dtypes of :func:`posenc.sinusoidal`, by name.
DTYPES = ("float16", "float32", "float64")


#: Most characters of a value quoted in a message: an error about a 5 MB string in a
#: config must not print the string back.
QUOTE = 60


def shown(value: object, limit: int = QUOTE) -> str:
    """``repr(value)`` for a message, its middle elided when longer than ``limit``.

    A long string keeps its two ends and says its length; a huge integer is described by
    its number of digits (its decimal text alone could be thousands of characters, and
    past 4300 digits Python refuses to write it).

    Examples
    --------
    >>> shown("x" * 1000)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxx' (1000 characters)"
    >>> shown(10**400), shown(-(10**400)), shown(12345)
    ('an integer of 401 digits', 'a negative integer of 401 digits', '12345')
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        sign = "a negative integer" if value < 0 else "an integer"
        try:
            return f"{sign} of {len(str(abs(value)))} digits"
        except ValueError:  # beyond sys.get_int_max_str_digits()
            return f"{sign} of about {math.floor(math.log10(abs(value))) + 1} digits"
    if isinstance(value, str) and len(value) > limit:
        head, tail = repr(value[: 2 * limit // 3]), repr(value[-limit // 4 :])
        return f"{head[:-1]}...{tail[1:]} ({len(value)} characters)"
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: 2 * limit // 3]}...{text[-limit // 4 :]}"


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
        message = f"{name} must be an integer >= {minimum}, got {kind} {shown(value)}"
        raise TypeError(message) from None
    if result < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {shown(result)}")
    return result


def width(value: object) -> int:
    """Return the model width as an ``int``: an even integer ``>= 2``."""
    message = "width must be an even integer >= 2, got {}"
    if _is_bool(value):
        raise TypeError(message.format(shown(value)))
    try:
        result = operator.index(value)
    except TypeError:
        raise TypeError(message.format(shown(value))) from None
    if result < 2 or result % 2:
        raise ValueError(message.format(shown(result)))
    return result


def real(name: str, value: object) -> float:
    """Return ``value`` as a finite ``float``; ``bool``, complex and strings are refused."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        kind = type(value).__name__
        raise TypeError(f"{name} must be a finite real number, got {kind} {shown(value)}")
    try:
        result = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a finite real number, got {shown(value)}") from None
    if not math.isfinite(result):
        raise ValueError(f"{name} must be a finite real number, got {result!r}")
    return result


def base(value: object) -> float:
    """Return the frequency base as a ``float``: a finite real number ``> 1``."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        kind = type(value).__name__
        raise TypeError(f"base must be a finite real number > 1, got {kind} {shown(value)}")
    try:
        result = float(value)
    except OverflowError:
        raise ValueError(f"base must be a finite real number > 1, got {shown(value)}") from None
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
            f"got start={shown(start)}, length={shown(length)}"
        )
    return length, start


def shift(value: object) -> float:
    """Return a shift ``k`` as a ``float``: a finite real number with ``|k| <= 2**53``."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        kind = type(value).__name__
        raise TypeError(f"k must be a finite real number, got {kind} {shown(value)}")
    if isinstance(value, numbers.Integral) and abs(int(value)) > MAX_POSITION:
        raise ValueError(f"k must be a finite real number with |k| <= 2**53, got {shown(value)}")
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
        raise TypeError(f"dtype must be one of {allowed}, got {shown(value)}") from None
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
    if "E" in text.upper():  # 100 to 2 digits is "1.0E+2"; 999.6 rounds to "1.0E+3"
        if Decimal(text) >= 1000:  # say 1 MB, not 1000 kB
            return _in_units(1000 ** (exponent + 1), digits)
        text = format(Decimal(text), "f")
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


# --------------------------------------------------------------------------------------
# The limit of one run of the command.

#: The ``posenc`` command's default limit, in bytes: 2 GB, or half the machine's limit
#: if that is less. A command run from a shell should not be able to take a laptop's
#: memory (and its other programs' pages) because a file declared a large array; no
#: table a page or a check uses comes near (a 10**5 x 1024 float64 table is 0.8 GB).
#: Half, because a process holds more than the arrays it plans for: the interpreter,
#: NumPy, the text being written.
COMMAND_MEMORY = 2 * 10**9

#: The attribute of parsed arguments that :func:`add_memory_option` fills: ``--memory``.
MEMORY_DEST = "memory_mb"

#: The limit set by :func:`limited` for what runs inside it; None outside: the library
#: used directly keeps :func:`memory_limit`.
_LIMIT: contextvars.ContextVar[tuple[int, str] | None] = contextvars.ContextVar(
    "posenc_memory_limit", default=None
)


@contextlib.contextmanager
def limited(limit: int, source: str) -> Iterator[None]:
    """Within the ``with`` block, refuse what needs more than ``limit`` bytes.

    ``source`` says in words what set the limit (it follows "the limit is" in a
    refusal). The limit only lowers :func:`memory_limit`, never raises it, and is
    undone on leaving the block (a context variable: threads and tests do not share it).

    Examples
    --------
    >>> with limited(10**6, "a test limit"):
    ...     current_limit()
    (1000000, 'a test limit')
    >>> current_limit() == memory_limit()
    True
    """
    token = _LIMIT.set((limit, source))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def current_limit() -> tuple[int, str]:
    """The limit in force: :func:`memory_limit`, or the lower one of :func:`limited`."""
    machine = memory_limit()
    chosen = _LIMIT.get()
    return chosen if chosen is not None and chosen[0] < machine[0] else machine


def command_limit(megabytes: int | None) -> tuple[int, str]:
    """The limit of one run of the command: ``--memory MB``, or :data:`COMMAND_MEMORY`.

    Returned as ``(bytes, words)`` for :func:`limited`; whichever is lower of it and
    :func:`memory_limit` is the one that applies.
    """
    if megabytes is not None:
        return megabytes * 10**6, "the one set by --memory"
    machine, source = memory_limit()
    if machine // 2 < COMMAND_MEMORY:
        return machine // 2, f"half of {source} (--memory MB sets another)"
    return COMMAND_MEMORY, "the command's default (--memory MB sets another)"


def _megabytes(text: str) -> int:
    """The value of ``--memory``: a whole number of megabytes, at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(
            f"must be a whole number of megabytes >= 1, got {shown(text)}"
        )
    return value


def add_memory_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--memory MB`` to a subcommand's parser; ``posenc.cli`` applies it to the run.

    The value lands in ``args.memory_mb`` (:data:`MEMORY_DEST`), not ``args.memory``,
    which ``posenc exercise check`` uses for its children's limit.
    """
    parser.add_argument(
        "--memory",
        metavar="MB",
        type=_megabytes,
        dest=MEMORY_DEST,
        # Not this machine's number: the help is printed in the site, built anywhere.
        help="the most memory, in MB (10**6 bytes), that the run may plan to use: an input "
        "that declares more (a table's size, a file's array) is refused before it is read "
        f"or computed (default: {COMMAND_MEMORY // 10**6}, or half of this machine's "
        "memory if that is less; a value above the machine's memory is lowered to it)",
    )


def memory(what: str, needed: int) -> None:
    """Raise :class:`TooLargeError` if ``needed`` bytes exceed the limit in force.

    ``what`` names the arguments, e.g. ``"length=1000000000, width=512"``; ``needed``
    is the peak the caller expects: its result and the intermediates it knows of. The
    limit is :func:`memory_limit`, or a lower one set by :func:`limited` (the command's).
    """
    limit, source = current_limit()
    if needed > limit:
        need, have = sizes(needed, limit)
        raise TooLargeError(f"{what}: needs about {need} of memory; the limit is {source}, {have}")
