"""Reading a table from a file, within bounds: what ``posenc identify`` reads.

A file is checked before it is read in full: it must be a regular file (a FIFO or a
device has no end, or no size), its declared sizes (a .npy header, a .npz member) must
fit in the file and in the memory limit in force (:func:`posenc._validate.current_limit`), a
.npz member is read no further than its declared size and its CRC is checked, a .csv
line is read no further than ``_MAX_LINE`` characters, and arrays of Python objects
(pickles) are never loaded.
"""

from __future__ import annotations

import io
import lzma
import math
import os
import stat
import zipfile
import zlib
from pathlib import Path
from tokenize import TokenError
from typing import Any, BinaryIO

import numpy as np

from posenc import _validate

__all__ = ["load_table", "open_regular", "read_text"]


def open_regular(path: str | os.PathLike, *, limit: int, what: str = "") -> BinaryIO:
    """Open ``path`` for reading if it is a regular file of at most ``limit`` bytes.

    The file is opened without blocking (a FIFO with no writer would block ``open``
    forever) and judged by ``fstat`` of what was opened, not by a ``stat`` of the name
    that something could replace in between. A FIFO, a device (``/dev/zero`` never
    ends), a socket or a directory is refused, and so is a file larger than ``limit``,
    all with a ValueError that names the file (``what``, or the path) and the reason.
    """
    shown = what or repr(str(path))
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ValueError(f"cannot read {shown}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"cannot read {shown}: it is a directory") from None
    except OSError as error:
        raise ValueError(f"cannot read {shown}: {error.strerror or error}") from None
    try:
        mode, size = (info := os.fstat(fd)).st_mode, info.st_size
        if stat.S_ISDIR(mode):
            raise ValueError(f"cannot read {shown}: it is a directory")
        if not stat.S_ISREG(mode):  # no end (/dev/zero, a FIFO), or no size
            raise ValueError(f"cannot read {shown}: it is not a regular file ({_kind(mode)})")
        if size > limit:
            raise ValueError(
                f"cannot read {shown}: it holds {size} bytes, more than the {limit} allowed"
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_text(path: str | os.PathLike, *, limit: int, what: str = "") -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes (see :func:`open_regular`).

    No more than ``limit + 1`` bytes are read, so a file that grows after it was opened is
    refused too; text that is not UTF-8 is a ValueError.
    """
    shown = what or repr(str(path))
    with open_regular(path, limit=limit, what=what) as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"cannot read {shown}: it holds more than the {limit} bytes allowed")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"cannot read {shown}: it is not UTF-8 text") from None


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
    declared size) holds, and no more than the memory limit in force
    (:func:`posenc._validate.current_limit`: the machine's, or the lower one of the
    ``posenc`` command, ``--memory``); a .npz member is read no further than its
    declared size, and its CRC is checked; a .csv line is at most ``_MAX_LINE``
    characters and ``_MAX_COLUMNS`` fields, and the file's size times 8 must fit the
    memory limit; a .pt file's tensors (its zip members) must too. The file is opened
    without blocking and must be a regular file (:func:`open_regular`). Arrays of Python
    objects (pickles) are never loaded.

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
    if suffix not in readers:
        raise ValueError(
            f"cannot read {shown}: unknown file type {_validate.shown(suffix or '(none)')} "
            "(expected .npy, .npz, .csv or .pt)"
        )
    if suffix not in (".npz", ".pt", ".pth") and key is not None:
        raise ValueError(f"key applies to .npz and .pt files only, not {shown}")
    # No size limit here: each reader checks the sizes its file declares against memory.
    with open_regular(path, limit=_ANY_SIZE, what=shown) as file:
        try:
            size = os.fstat(file.fileno()).st_size
            if size == 0:
                raise ValueError(f"cannot read {shown}: the file is empty")
            return readers[suffix](file, size, shown, key)
        except OSError as error:
            raise ValueError(f"cannot read {shown}: {error.strerror or error}") from None


#: The size limit of :func:`open_regular` for a table: none (the readers judge sizes).
_ANY_SIZE = 2**63 - 1


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


def _read_npy(file: BinaryIO, size: int, shown: str, key: str | None) -> np.ndarray:
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


def _read_npz(file: BinaryIO, size: int, shown: str, key: str | None) -> np.ndarray:
    what = f"{shown} as a .npz file"
    try:
        archive = zipfile.ZipFile(file)
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
    listed = _listed(list(names))
    if key is not None:
        if key not in names:
            raise ValueError(f"{shown} has no array {_validate.shown(key)} (arrays: {listed})")
        return get(key)
    if len(names) == 1:
        return get(next(iter(names)))
    if not names:
        raise ValueError(f"{shown} holds no arrays")
    raise ValueError(f"{shown} holds several arrays ({listed}): choose one with --key")


def _listed(names: list[str], most: int = 8) -> str:
    """The names, each quoted briefly; past ``most`` of them, how many more."""
    words = [name if len(name) <= 40 else f"{name[:25]}...{name[-10:]}" for name in names[:most]]
    if len(names) > most:
        words.append(f"and {len(names) - most} more")
    return ", ".join(words) or "none"


_INDEX_NAMES = ("", "pos", "position", "positions", "index", "idx")

#: Longest .csv line read, in characters: 2**20 columns of 24-digit numbers.
_MAX_LINE = 2**25

#: Most fields on a .csv line.
_MAX_COLUMNS = 2**20


def _read_csv(file: BinaryIO, size: int, shown: str, key: str | None) -> np.ndarray:
    # Each value takes at least 2 bytes ("0,") and becomes 8: the rows and their stack.
    _validate.memory(f"{shown} of {size} bytes", 8 * size)
    text = io.TextIOWrapper(file, encoding="utf-8-sig", newline=None)
    try:
        header, rows, columns = _csv_rows(text, shown)
    finally:
        text.detach()  # load_table closes the file; the wrapper must not, later
    if not rows and header is None:
        raise ValueError(f"cannot read {shown}: it holds no rows")
    if not rows:
        raise ValueError(f"cannot read {shown}: it has a header but no rows of numbers")
    values = np.stack(rows)  # (n, k)
    if header is not None and len(header) != columns:
        raise ValueError(
            f"cannot read {shown}: the header has {len(header)} fields, the rows {columns}"
        )
    if columns > 1 and _index_column(values[:, 0], None if header is None else header[0]):
        values = values[:, 1:]
    return values


def _csv_rows(text: io.TextIOWrapper, shown: str) -> tuple[list | None, list, int | None]:
    """The header (or None), the rows of numbers and their number of fields."""
    rows: list[np.ndarray] = []
    header = None
    columns = None
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
            if columns is None and header is None and not all(_is_number(f) for f in fields):
                header = fields
                continue
            if columns is None:
                columns = len(fields)
            if len(fields) != columns:
                raise ValueError(
                    f"cannot read {shown}: line {number} has {len(fields)} fields, "
                    f"the first row has {columns}"
                )
            rows.append(_csv_row(fields, number, shown))
    except UnicodeDecodeError:
        raise ValueError(f"cannot read {shown} as a .csv file: it is not text") from None
    return header, rows, columns


def _csv_row(fields: list[str], number: int, shown: str) -> np.ndarray:
    try:
        return np.array([float(f) for f in fields], dtype=np.float64)  # (k,)
    except ValueError:
        bad = next(f for f in fields if not _is_number(f))
        message = f"cannot read {shown}: line {number} has {_validate.shown(bad)}, not a number"
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


def _torch_bytes(file: BinaryIO, size: int) -> int:
    """The bytes of tensor data a .pt file declares: its zip members' sizes, or its size.

    A .pt file saved by PyTorch since 1.6 is a zip archive whose members hold the data
    of the tensors; the old format holds them in the file itself.
    """
    try:
        with zipfile.ZipFile(file) as archive:
            return max(size, sum(info.file_size for info in archive.infolist()))
    except _ZIP_ERRORS:
        return size
    finally:
        file.seek(0)


def _read_torch(file: BinaryIO, size: int, shown: str, key: str | None) -> np.ndarray:
    try:
        import torch
    except ImportError:
        raise ValueError("reading .pt files needs PyTorch: pip install torch") from None
    declared = _torch_bytes(file, size)
    # The tensors, and a float32 copy of a bfloat16 one (twice its bytes).
    _validate.memory(f"{shown}, {declared} bytes of tensors", 3 * declared)
    try:
        loaded = torch.load(file, map_location="cpu", weights_only=True)
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
