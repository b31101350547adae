"""Files the ``posenc`` command writes: all or nothing, and never over a file unasked.

:func:`atomic` writes into a temporary file beside the target, flushes it to the disk
(``fsync``), and only then gives it the target's name. On any failure on the way (a
full disk, a broken pipe, Ctrl-C, SIGTERM, a bug in the formatting) the temporary file
is removed and whatever had the target's name before is left as it was.

An existing file is replaced only when asked (``--force``), as ``cp -n``, ``curl
--no-clobber`` and ``ffmpeg -n`` behave by default in scripts: no prompt, since the
command runs unattended. The name is taken with ``link(2)``, which fails if the name
exists, so a file made by another process after the check is not overwritten either.

A target that exists and is not a regular file (``/dev/null``, ``/dev/stdout``, a FIFO)
has nothing to replace: it is written in place, as any program would.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
from collections.abc import Iterator
from typing import IO

__all__ = ["OutputError", "atomic", "check"]


class OutputError(Exception):
    """The output file cannot be written: the message is one line for the user."""


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _existing(path: str) -> tuple[str, os.stat_result | None]:
    """The file that ``path`` names (through symbolic links), and its status if it exists."""
    target = os.path.realpath(path)
    try:
        return target, os.stat(target)
    except FileNotFoundError:
        return target, None
    except OSError as error:
        raise OutputError(f"cannot write {path!r}: {_reason(error)}") from None


def check(path: str, *, force: bool) -> None:
    """Refuse early what :func:`atomic` would refuse: a directory, an existing file.

    Called before a long computation, so that the user does not wait for a refusal.
    """
    target, status = _existing(path)
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise OutputError(f"cannot write {path!r}: it is a directory")
    if status is not None and stat.S_ISREG(status.st_mode) and not force:
        raise OutputError(f"{path} exists; pass --force to overwrite it")
    directory = os.path.dirname(target)
    if status is None and not os.path.isdir(directory):
        raise OutputError(f"cannot write {path!r}: there is no directory {directory!r}")


@contextlib.contextmanager
def atomic(path: str, *, force: bool, binary: bool = False) -> Iterator[IO]:
    """A file to write to, which becomes ``path`` only if the ``with`` block succeeds.

    Text is UTF-8 with ``\\n`` line ends. Raises :class:`OutputError` for a target that
    cannot be written, or that exists without ``force``.
    """
    check(path, force=force)
    target, status = _existing(path)
    if status is not None and not stat.S_ISREG(status.st_mode):
        with _in_place(path, target, binary) as file:
            yield file
        return
    directory, name = os.path.split(target)
    temporary, descriptor = _temporary(path, directory, name)
    try:
        if status is not None:  # keep the permissions of the file being replaced
            os.fchmod(descriptor, stat.S_IMODE(status.st_mode))
        with _opened(path, descriptor, binary) as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        _commit(path, temporary, target, force=force)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(directory)


def _temporary(path: str, directory: str, name: str) -> tuple[str, int]:
    """A new file ``.NAME.XXXXXXXX.tmp`` in ``directory``, open for writing."""
    for _ in range(100):
        temporary = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
        try:  # mode 0o666 less the umask, as open() gives a new file
            return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        except OSError as error:
            raise OutputError(f"cannot write {path!r}: {_reason(error)}") from None
    raise OutputError(f"cannot write {path!r}: no free temporary name in {directory!r}")


@contextlib.contextmanager
def _opened(path: str, descriptor: int, binary: bool) -> Iterator[IO]:
    """The descriptor as a file object; an OSError while writing becomes an OutputError."""
    raw = os.fdopen(descriptor, "wb")
    file: IO = raw if binary else io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    try:
        with file:
            yield file
    except OSError as error:
        raise OutputError(f"cannot write {path!r}: {_reason(error)}") from None


@contextlib.contextmanager
def _in_place(path: str, target: str, binary: bool) -> Iterator[IO]:
    """Write straight into a device or FIFO: there is no file to keep or replace."""
    try:
        if binary:
            file: IO = open(target, "wb")  # closed by the with-block below
        else:
            file = open(target, "w", encoding="utf-8", newline="\n")
    except OSError as error:
        raise OutputError(f"cannot write {path!r}: {_reason(error)}") from None
    try:
        with file:
            yield file
            file.flush()
    except OSError as error:
        raise OutputError(f"cannot write {path!r}: {_reason(error)}") from None


def _commit(path: str, temporary: str, target: str, *, force: bool) -> None:
    """Give the finished temporary file the target's name."""
    try:
        if force:
            os.replace(temporary, target)
            return
        try:
            os.link(temporary, target)  # fails if the name exists: nothing is overwritten
        except FileExistsError:
            raise OutputError(f"{path} exists; pass --force to overwrite it") from None
        except OSError as error:
            if error.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK):
                raise
            # No hard links here (some network and FUSE file systems): check, then rename.
            if os.path.lexists(target):
                raise OutputError(f"{path} exists; pass --force to overwrite it") from None
            os.replace(temporary, target)
            return
        os.unlink(temporary)
    except OSError as error:
        raise OutputError(f"cannot write {path!r}: {_reason(error)}") from None


def _sync_directory(directory: str) -> None:
    """Flush the directory entry of the new name to the disk (best effort)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
