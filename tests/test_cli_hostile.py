"""The command line and the library under hostile input: one line, never a traceback.

Huge sizes are refused before anything is allocated, with the bytes they need; bad
files (corrupt or forged archives, lying headers, pickles, endless lines, devices) are
refused after a bounded read; output files are written atomically and never
overwritten without ``--force``; Ctrl-C and SIGTERM end the command with one line.
"""

from __future__ import annotations

import errno
import io
import json
import math
import os
import re
import signal
import struct
import subprocess
import sys
import threading
import time
import zipfile
from importlib import import_module
from pathlib import Path

import numpy as np
import pytest

import posenc
from posenc import _output, _validate, cli, conventions
from posenc.cli import main

#: The module that reads the files of ``posenc identify``.
reading = import_module("posenc._files")

#: The one line of a refusal: ``posenc: error: `` and a message, then the newline.
ONE_LINE = re.compile(r"posenc: error: [^\n]+\n")

#: "needs about 4.1 TB (4.1e12 bytes) of memory; the limit is ... 25 GB (2.5e10 bytes)"
NEEDS = re.compile(
    r"needs about [0-9.]+ [kMGTPEZY]B \([0-9.]+e[0-9]+ bytes\) of memory; "
    r"the limit is [^,]+, [0-9.]+ [kMGTPEZY]B \([0-9.]+e[0-9]+ bytes\)$"
)


def refusal(capsys) -> str:
    """The one line a refused command printed, without its prefix; nothing on stdout."""
    out, err = capsys.readouterr()
    assert out == ""
    assert ONE_LINE.fullmatch(err), err
    return err.removeprefix("posenc: error: ").rstrip("\n")


def python(*args: str, **options) -> subprocess.Popen:
    """``python -m posenc ARGS`` in a child process, text output."""
    return subprocess.Popen(
        [sys.executable, "-m", "posenc", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **options,
    )


# --------------------------------------------------------------------------------------
# 1. Huge sizes: refused before allocating, with the bytes needed and the limit.


def test_a_billion_rows_are_refused_with_the_bytes_they_need(capsys):
    assert main(["table", "--length", "1000000000", "--width", "512"]) == 2
    message = refusal(capsys)
    assert message.startswith("length=1000000000, width=512: needs about 4.1 TB (4.1e12 bytes)")
    assert NEEDS.search(message), message


@pytest.mark.parametrize("convention", ["xlm", "keras-hub", "whisper"])
def test_huge_tables_of_the_conventions_are_refused(capsys, convention):
    args = ["table", "--convention", convention, "--length", "1000000000", "--width", "512"]
    assert main(args) == 2
    message = refusal(capsys)
    assert message.startswith("length=1000000000, width=512: needs about ")
    assert NEEDS.search(message), message


def test_the_refusal_is_immediate(monkeypatch):
    """Nothing is allocated: the check comes before np.empty (here made to fail)."""

    def no_allocation(*args, **kwargs):
        raise AssertionError("allocated before the size check")

    monkeypatch.setattr(np, "empty", no_allocation)
    with pytest.raises(posenc.TooLargeError, match=r"^length=1, width=1000000000: needs about"):
        posenc.sinusoidal(1, 10**9)


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda: posenc.sinusoidal(1, 10**9), "length=1, width=1000000000"),
        (lambda: posenc.sinusoidal(10**9, 512, dtype="float16"), "length=1000000000"),
        (lambda: conventions.table("fairseq", 10**9, 512), "length=1000000000, width=512"),
        (lambda: conventions.table("paper", 2, 10**9), "length=2, width=1000000000"),
        (lambda: posenc.frequencies(10**12), "width=1000000000000"),
        (lambda: posenc.wavelengths(10**12), "width=1000000000000"),
        (lambda: posenc.shift_matrix(1, 10**6), "width=1000000"),
        (lambda: posenc.rotary_matrix(1, 10**6), "width=1000000"),
        (lambda: posenc.rotary_angles(np.arange(10**5), 10**8), "len(positions)=100000"),
        (lambda: posenc.pairing_permutation(10**12), "width=1000000000000"),
        (lambda: conventions.columns("paper", 10**12), "width=1000000000000"),
        (lambda: conventions.concatenated_order(10**12), "width=1000000000000"),
        (lambda: conventions.rotary_pairs("half", 10**12), "width=1000000000000"),
        (lambda: posenc.causal_mask(10**6), "n=1000000"),
        (lambda: posenc.attention(np.ones((10**6, 1)), *np.ones((3, 1, 1))), "X of shape"),
        (lambda: posenc.EncoderLayerParams.random(10**6, 10), "d_model=1000000"),
        (lambda: posenc.dot_profile(1, 10**12), "width=1000000000000"),
        (
            lambda: posenc.rotary(np.broadcast_to(0.0, (10**6, 10**6)), np.zeros(10**6)),
            "x of shape (1000000, 1000000)",
        ),
        (
            lambda: posenc.rotary_angles(np.broadcast_to(np.int64(3), (10**12,)), 8),
            "positions of shape (1000000000000,)",
        ),
        (
            lambda: posenc.dot_profile(np.broadcast_to(np.int64(3), (10**12,)), 8),
            "offsets of shape (1000000000000,)",
        ),
        (lambda: posenc.identify(np.broadcast_to(0.5, (10**6, 10**6))), "table of shape"),
    ],
)
def test_the_library_refuses_sizes_beyond_memory_before_allocating(call, named):
    with pytest.raises(posenc.TooLargeError) as raised:
        call()
    message = str(raised.value)
    assert message.startswith(named), message
    assert NEEDS.search(message), message
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, MemoryError)


def test_the_limit_is_the_memory_of_this_machine():
    limit, source = _validate.memory_limit()
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert 0 < limit <= physical
    assert "limit" in source or source == "this machine's memory"


def test_sizes_are_rounded_to_tell_need_and_limit_apart():
    assert _validate.sizes(4_100_000_000_000, 25 * 10**9) == (
        "4.1 TB (4.1e12 bytes)",
        "25 GB (2.5e10 bytes)",
    )
    # Close to the limit, more digits: never "about 25 GB, more than 25 GB".
    need, have = _validate.sizes(25_376_502_016, 25_276_502_016)
    assert need != have and need.startswith("25.4 GB") and have.startswith("25.3 GB")
    assert _validate.sizes(10**40, 10**10)[0] == "1.0e40 bytes"


def test_a_size_within_the_limit_is_still_computed(monkeypatch):
    monkeypatch.setattr(_validate, "memory_limit", lambda: (10**6, "a test limit"))
    assert posenc.sinusoidal(10, 8).shape == (10, 8)
    with pytest.raises(posenc.TooLargeError, match=r"the limit is a test limit, 1 MB \(1\.0e6"):
        posenc.sinusoidal(10**4, 64)


# --------------------------------------------------------------------------------------
# 2. Bad files: one line, exit 2, after a bounded read.


def paper_npz(path: Path, compression=zipfile.ZIP_STORED) -> None:
    buffer = io.BytesIO()
    np.save(buffer, posenc.sinusoidal(20, 8))
    with zipfile.ZipFile(path, "w", compression) as archive:
        archive.writestr("table.npy", buffer.getvalue())


def npy_header(shape, descr="<f8") -> bytes:
    buffer = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue()


def identify_refuses(path: Path, capsys) -> str:
    assert main(["identify", str(path)]) == 2
    return refusal(capsys)


def test_an_npz_that_is_not_a_zip(tmp_path, capsys):
    path = tmp_path / "t.npz"
    path.write_bytes(b"PK this is not a zip archive at all")
    message = identify_refuses(path, capsys)
    assert message == f"cannot read {str(path)!r} as a .npz file: File is not a zip file"


def test_a_truncated_npz(tmp_path, capsys):
    path = tmp_path / "t.npz"
    paper_npz(path)
    path.write_bytes(path.read_bytes()[:-30])  # the end of the central directory is cut
    message = identify_refuses(path, capsys)
    assert message.startswith(f"cannot read {str(path)!r} as a .npz file: ")


def test_an_npz_with_a_bad_crc(tmp_path, capsys):
    path = tmp_path / "t.npz"
    paper_npz(path)
    data = bytearray(path.read_bytes())
    data[data.index(b"\x00\x00\x00\x00\x00\x00\xf0?") + 7] ^= 0x01  # flip a bit of the 1.0
    path.write_bytes(bytes(data))
    message = identify_refuses(path, capsys)
    assert message == (
        f"cannot read {str(path)!r} as a .npz file: Bad CRC-32 for file 'table.npy'"
    )


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path, capsys, monkeypatch):
    """64 MB of zeros deflate to 64 kB; with a 16 MB limit they are never inflated."""
    path = tmp_path / "bomb.npz"
    shape = (2**13, 2**10)  # 64 MiB of float64 zeros
    body = npy_header(shape) + bytes(8 * 2**23)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("table.npy", body)
    assert path.stat().st_size < 2**20
    monkeypatch.setattr(_validate, "memory_limit", lambda: (16 * 10**6, "a test limit"))
    inflated = []
    original = zipfile.ZipExtFile.read
    monkeypatch.setattr(
        zipfile.ZipExtFile, "read", lambda self, n=-1: inflated.append(n) or original(self, n)
    )
    message = identify_refuses(path, capsys)
    assert message.startswith(
        f"{str(path)!r}, shape (8192, 1024) of float64: needs about 67 MB (6.7e7 bytes)"
    )
    assert all(0 <= n <= 2**16 for n in inflated), inflated  # only the header was read


def test_an_npz_member_whose_directory_claims_less_than_its_header(tmp_path, capsys):
    path = tmp_path / "t.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("table.npy", npy_header((10**6, 10**6)) + bytes(64))
    message = identify_refuses(path, capsys)
    assert message == (
        f"cannot read {str(path)!r} as a .npz file: array 'table': its header claims "
        "shape (1000000, 1000000) of float64 (8000000000000 bytes), but only 64 bytes "
        "follow (truncated or forged)"
    )


def test_an_npz_whose_directory_lies_about_the_size(tmp_path, capsys):
    """The central directory says 4 GB; the member holds 1 kB: the stream ends early."""
    path = tmp_path / "t.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("table.npy", npy_header((2**14, 2**12), "<f4") + bytes(1024))
    data = bytearray(path.read_bytes())
    central = data.index(b"PK\x01\x02")
    data[central + 24 : central + 28] = struct.pack("<I", 2**32 - 1)  # uncompressed size
    local = data.index(b"PK\x03\x04")
    data[local + 22 : local + 26] = struct.pack("<I", 2**32 - 1)
    path.write_bytes(bytes(data))
    message = identify_refuses(path, capsys)
    assert message.startswith(f"cannot read {str(path)!r} as a .npz file: ")


def test_an_npy_whose_header_claims_more_than_the_file(tmp_path, capsys):
    path = tmp_path / "t.npy"
    path.write_bytes(npy_header((10**9, 10**9)) + bytes(100))
    message = identify_refuses(path, capsys)
    assert message == (
        f"cannot read {str(path)!r} as a .npy file: its header claims shape "
        "(1000000000, 1000000000) of float64 (8000000000000000000 bytes), but only 100 "
        "bytes follow (truncated or forged)"
    )


def test_an_npy_larger_than_memory_is_refused_before_reading(tmp_path, capsys, monkeypatch):
    path = tmp_path / "t.npy"
    header = npy_header((1000, 1000))
    with open(path, "wb") as file:
        file.write(header)
        file.truncate(len(header) + 8 * 10**6)  # sparse: 8 MB of zeros on no disk
    monkeypatch.setattr(_validate, "memory_limit", lambda: (10**6, "a test limit"))
    message = identify_refuses(path, capsys)
    assert message.startswith(f"{str(path)!r}, shape (1000, 1000) of float64: needs about 8 MB")


def test_an_npy_of_python_objects_is_never_unpickled(tmp_path, capsys, monkeypatch):
    path = tmp_path / "t.npy"
    np.save(path, np.array([[{"a": 1}, None]], dtype=object), allow_pickle=True)
    monkeypatch.setattr("pickle.load", lambda *a, **k: pytest.fail("unpickled"))
    message = identify_refuses(path, capsys)
    assert message == (
        f"cannot read {str(path)!r} as a .npy file: it holds Python objects (dtype object), "
        "which would have to be unpickled; save the table as numbers"
    )


def test_an_npz_of_python_objects_is_never_unpickled(tmp_path, capsys):
    path = tmp_path / "t.npz"
    np.savez(path, table=np.array([[{"a": 1}, None]], dtype=object))
    message = identify_refuses(path, capsys)
    assert message.startswith(f"cannot read {str(path)!r} as a .npz file: array 'table': ")
    assert "Python objects" in message


def test_a_csv_line_without_end_is_read_no_further_than_the_bound(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reading, "_MAX_LINE", 1000)
    path = tmp_path / "t.csv"
    path.write_text("0.5," * 10**5)  # 400 kB on one line
    read = []

    class Recording(io.TextIOWrapper):
        def readline(self, size=-1):
            read.append(size)
            return super().readline(size)

    monkeypatch.setattr(io, "TextIOWrapper", Recording)
    message = identify_refuses(path, capsys)
    assert message == (
        f"cannot read {str(path)!r}: line 1 is longer than 1000 characters; "
        "is it a table of numbers?"
    )
    assert read == [1001]


def test_a_csv_of_too_many_columns(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reading, "_MAX_COLUMNS", 100)
    path = tmp_path / "t.csv"
    path.write_text(",".join(["0.5"] * 200) + "\n")
    message = identify_refuses(path, capsys)
    assert message == f"cannot read {str(path)!r}: line 1 has more than 100 fields"


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda p: os.mkfifo(p), "a FIFO"),
        (lambda p: os.symlink("/dev/zero", p), "a character device"),
    ],
)
def test_a_file_that_is_a_fifo_or_a_device_is_not_read(tmp_path, capsys, make, kind):
    """A FIFO would block forever and /dev/zero never ends: neither is opened."""
    path = tmp_path / "t.npy"
    make(path)
    message = identify_refuses(path, capsys)
    assert message == f"cannot read {str(path)!r}: it is not a regular file ({kind})"


def test_a_file_without_permission(tmp_path, capsys, monkeypatch):
    """Root reads any file, so the refusal of open(2) is simulated, for this file only."""
    path = tmp_path / "t.npy"
    np.save(path, posenc.sinusoidal(4, 4))
    original = os.open

    def refuse(name, *args, **kwargs):
        if os.fspath(name) == str(path):
            raise PermissionError(errno.EACCES, "Permission denied")
        return original(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    message = identify_refuses(path, capsys)
    assert message == f"cannot read {str(path)!r}: Permission denied"


# --------------------------------------------------------------------------------------
# 3. Output files: atomic, and never overwritten without --force.

TABLE = ["table", "--length", "3", "--width", "4"]
OLD = b"an existing file, precious\n"


@pytest.fixture
def existing(tmp_path) -> Path:
    path = tmp_path / "t.csv"
    path.write_bytes(OLD)
    return path


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


@pytest.mark.parametrize("fmt", ["text", "csv", "json", "npy"])
def test_an_existing_file_is_not_overwritten_without_force(existing, capsys, fmt):
    assert main([*TABLE, "--format", fmt, "-o", str(existing)]) == 2
    assert refusal(capsys) == f"{existing} exists; pass --force to overwrite it"
    assert existing.read_bytes() == OLD


@pytest.mark.parametrize("fmt", ["text", "csv", "json", "npy"])
def test_force_overwrites_whole(existing, capsys, fmt):
    assert main([*TABLE, "--format", fmt, "-o", str(existing), "--force"]) == 0
    assert capsys.readouterr() == ("", "")
    if fmt == "npy":
        np.testing.assert_array_equal(np.load(existing), posenc.sinusoidal(3, 4))
    else:
        main([*TABLE, "--format", fmt])
        assert existing.read_text(encoding="utf-8") == capsys.readouterr().out
    assert leftovers(existing.parent) == ["t.csv"]


def test_force_keeps_the_permissions_of_the_file_it_replaces(existing):
    existing.chmod(0o640)
    assert main([*TABLE, "-o", str(existing), "-f"]) == 0
    assert existing.stat().st_mode & 0o777 == 0o640


def test_the_refusal_comes_before_the_computation(existing, capsys, monkeypatch):
    monkeypatch.setattr(posenc.encoding, "sinusoidal", lambda *a, **k: pytest.fail("computed"))
    assert main([*TABLE, "-o", str(existing)]) == 2
    assert refusal(capsys).endswith("exists; pass --force to overwrite it")


def test_a_full_disk_leaves_the_existing_file_untouched(existing, capsys, monkeypatch):
    def full(descriptor):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_output.os, "fsync", full)
    assert main([*TABLE, "--format", "csv", "-o", str(existing), "--force"]) == 2
    assert refusal(capsys) == f"cannot write {str(existing)!r}: No space left on device"
    assert existing.read_bytes() == OLD
    assert leftovers(existing.parent) == ["t.csv"]


def test_a_failure_while_formatting_leaves_the_existing_file_untouched(
    existing, capsys, monkeypatch
):
    """A bug is one line and status 70; the file it was writing is whole, no temp stays."""
    monkeypatch.setattr(cli, "_CHUNK_ENTRIES", 4)  # one row per piece: fail after the first
    calls = []

    def shortest(block):
        calls.append(block)
        if len(calls) > 1:
            raise RuntimeError("a bug in the formatting")
        return [[repr(float(x)) for x in row] for row in block]

    monkeypatch.setattr(cli, "_shortest", shortest)
    monkeypatch.delenv("POSENC_DEBUG", raising=False)
    assert main([*TABLE, "--format", "json", "-o", str(existing), "--force"]) == 70
    assert capsys.readouterr() == (
        "",
        "posenc: internal error: RuntimeError: a bug in the formatting "
        "(please report it; POSENC_DEBUG=1 shows the traceback)\n",
    )
    assert existing.read_bytes() == OLD
    assert leftovers(existing.parent) == ["t.csv"]
    monkeypatch.setenv("POSENC_DEBUG", "1")  # the traceback, for a bug report
    calls.clear()
    with pytest.raises(RuntimeError, match="a bug in the formatting"):
        main([*TABLE, "--format", "json", "-o", str(existing), "--force"])
    assert existing.read_bytes() == OLD
    assert leftovers(existing.parent) == ["t.csv"]


def test_a_file_made_during_the_computation_is_not_overwritten(tmp_path, capsys, monkeypatch):
    """The name is taken with link(2), which fails when another process took it first."""
    path = tmp_path / "t.csv"
    original = posenc.encoding.sinusoidal

    def racing(*args, **kwargs):
        path.write_bytes(OLD)
        return original(*args, **kwargs)

    monkeypatch.setattr(posenc.encoding, "sinusoidal", racing)
    assert main([*TABLE, "-o", str(path)]) == 2
    assert refusal(capsys) == f"{path} exists; pass --force to overwrite it"
    assert path.read_bytes() == OLD
    assert leftovers(tmp_path) == ["t.csv"]


def test_writing_through_a_symlink_keeps_the_link(existing, capsys):
    link = existing.parent / "link.csv"
    link.symlink_to(existing)
    assert main([*TABLE, "--format", "csv", "-o", str(link), "--force"]) == 0
    assert link.is_symlink() and existing.read_text().startswith("pos,sin0,cos0")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing/t.csv", "cannot write {path!r}: there is no directory {parent!r}"),
        (".", "cannot write {path!r}: it is a directory"),
    ],
)
def test_output_where_no_file_can_be(tmp_path, capsys, target, message):
    path = str(tmp_path / target)
    assert main([*TABLE, "-o", path]) == 2
    parent = os.path.realpath(os.path.dirname(path))
    assert refusal(capsys) == message.format(path=path, parent=parent)


def test_a_device_is_written_in_place(capsys):
    """/dev/null is not replaced by a file, and a full device says so in one line."""
    assert main([*TABLE, "-o", "/dev/null"]) == 0
    assert Path("/dev/null").is_char_device()
    assert main([*TABLE, "-o", "/dev/full"]) == 2
    assert refusal(capsys) == "cannot write '/dev/full': No space left on device"


def test_closed_standard_output():
    child = subprocess.run(
        [sys.executable, "-m", "posenc", *TABLE],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: os.close(1),
    )
    assert (child.returncode, child.stderr) == (
        2,
        "posenc: error: standard output is closed: there is nowhere to print\n",
    )


# --------------------------------------------------------------------------------------
# 4. Ctrl-C and SIGTERM.


def test_keyboard_interrupt_is_one_line_and_130(capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(posenc.encoding, "sinusoidal", interrupted)
    try:
        status = main(TABLE)
    except KeyboardInterrupt:
        pytest.fail("KeyboardInterrupt escaped main: a traceback")
    assert status == 130
    assert capsys.readouterr() == ("", "posenc: interrupted\n")


class Escaped(Exception):
    """Raised by the test's own SIGTERM handler: main did not install its own."""


def test_sigterm_runs_finally_blocks_then_is_one_line_and_143(capsys, monkeypatch):
    def escaped(signum, frame):
        raise Escaped

    before = signal.signal(signal.SIGTERM, escaped)  # never the default, which kills pytest
    cleaned = []

    def terminated(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(60)  # the handler raises long before this ends
        finally:
            cleaned.append(True)

    monkeypatch.setattr(posenc.encoding, "sinusoidal", terminated)
    try:
        status = main(TABLE)
        after = signal.getsignal(signal.SIGTERM)
    except Escaped:
        pytest.fail("SIGTERM reached the handler outside main: no finally, no one line")
    finally:
        signal.signal(signal.SIGTERM, before)
    assert status == 143
    assert capsys.readouterr() == ("", "posenc: terminated\n")
    assert cleaned == [True]
    assert after is escaped  # main's handler is main's only: the one before is back


def wait_for_temporary(directory: Path, child: subprocess.Popen) -> None:
    """Until the child has begun to write its output (a generous bound)."""
    deadline = time.monotonic() + 120
    while not any(p.name.endswith(".tmp") for p in directory.iterdir()):
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the child never started writing"
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("sent", "status", "line"),
    [
        (signal.SIGINT, 130, "posenc: interrupted\n"),
        (signal.SIGTERM, 143, "posenc: terminated\n"),
    ],
)
def test_a_signal_while_writing_removes_the_temporary_file(tmp_path, sent, status, line):
    """A long text table is being written over an existing file when the signal comes."""
    path = tmp_path / "t.txt"
    path.write_bytes(OLD)
    child = python(
        *("table", "--length", "200000", "--width", "128", "-o", str(path), "--force"),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # even from a `&` job
    )
    try:
        wait_for_temporary(tmp_path, child)
        child.send_signal(sent)
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
        child.wait()
    assert (child.returncode, out, err) == (status, "", line)
    assert path.read_bytes() == OLD
    assert leftovers(tmp_path) == ["t.txt"]


# --------------------------------------------------------------------------------------
# 5. Configs, one memory limit per run, and the machine's own errors.

#: A number of 400 digits: exact for JSON and Python, beyond every float.
HUGE = 10**399


def config_refused(tmp_path: Path, capsys, config, *extra: str) -> str:
    """``posenc identify config.json``: exit 2, one line; the message."""
    path = tmp_path / "config.json"
    path.write_text(config if isinstance(config, str) else json.dumps(config))
    assert main(["identify", str(path), *extra]) == 2
    return refusal(capsys)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        # Each was a traceback: OverflowError, ZeroDivisionError.
        (
            {"head_dim": 64, "rope_theta": HUGE},
            "rope_theta must be a finite real number > 1, got an integer of 400 digits",
        ),
        (
            {"head_dim": HUGE},
            "head_dim must be an integer from 2 to 2**53, got an integer of 400 digits",
        ),
        (
            {"hidden_size": 3 * HUGE, "num_attention_heads": 3},
            "head_dim must be an integer from 2 to 2**53, got an integer of 400 digits",
        ),
        (
            {
                "head_dim": 64,
                "max_position_embeddings": HUGE,
                "rope_scaling": {"type": "yarn", "factor": 4.0},
            },
            "max_position_embeddings must be an integer from 1 to 2**53 (positions are exact "
            "float64 integers), got an integer of 400 digits",
        ),
        (
            {
                "head_dim": 64,
                "original_max_position_embeddings": HUGE,
                "rope_scaling": {
                    "rope_type": "llama3",
                    "factor": 8.0,
                    "low_freq_factor": 1.0,
                    "high_freq_factor": 4.0,
                },
            },
            "original_max_position_embeddings must be an integer from 1 to 2**53 (positions "
            "are exact float64 integers), got an integer of 400 digits",
        ),
        (
            {"hidden_size": 4096, "num_attention_heads": 0},
            "num_attention_heads must be an integer >= 1, got 0",
        ),
        # Wrong types: a string was read as a number, the others named nothing.
        (
            {"head_dim": 64, "rope_theta": "10000"},
            "rope_theta must be a finite real number > 1, got str '10000'",
        ),
        (
            {"head_dim": 64, "rope_theta": True},
            "rope_theta must be a finite real number > 1, got bool True",
        ),
        (
            {"head_dim": 64, "rope_theta": [10000]},
            "rope_theta must be a finite real number > 1, got list [10000]",
        ),
        (
            {"hidden_size": "4096", "num_attention_heads": 32},
            "hidden_size must be an integer >= 1, got str '4096'",
        ),
        (
            {"head_dim": 64, "rope_scaling": [["type", "linear"]]},
            "rope_scaling must be a JSON object (a dict), got list [['type', 'linear']]",
        ),
        (
            {"head_dim": 64, "rope_scaling": {"type": ["linear"], "factor": 2.0}},
            "rope_scaling's type must be the name of a scheme (a string), got list ['linear']",
        ),
        (
            '{"head_dim": 64, "rope_theta": NaN}',
            "rope_theta must be a finite real number > 1, got nan",
        ),
        (
            {"head_dim": 64, "rope_scaling": {"type": "linear", "factor": None}},
            'the "linear" scheme needs factor',
        ),
    ],
)
def test_a_config_with_a_huge_zero_or_wrongly_typed_value(tmp_path, capsys, config, message):
    assert config_refused(tmp_path, capsys, config) == message


def test_a_config_nested_100000_deep(tmp_path, capsys):
    """json.loads raised RecursionError: a traceback."""
    deep = '{"a": ' * 100_000 + "1" + "}" * 100_000
    path = tmp_path / "config.json"
    assert config_refused(tmp_path, capsys, deep) == (
        f"{str(path)!r} nests its JSON too deeply to be read (a config nests a few levels)"
    )


def test_a_config_with_an_integer_python_cannot_read(tmp_path, capsys):
    """json.loads refuses integers of more than 4300 digits with a message naming no file."""
    path = tmp_path / "config.json"
    message = config_refused(tmp_path, capsys, '{"head_dim": 1' + "0" * 5000 + "}")
    assert message.startswith(f"{str(path)!r} is not a config: Exceeds the limit (4300")


def test_an_error_quotes_at_most_a_few_dozen_characters_of_a_value(tmp_path, capsys):
    """The message quoted all 5 MB of the string back."""
    config = {"head_dim": 64, "rope_scaling": {"type": "x" * 5_000_000}}
    assert config_refused(tmp_path, capsys, config) == (
        f"rotary scheme '{'x' * 40}...{'x' * 15}' (5000000 characters) is not one posenc "
        "computes (default, linear, dynamic, yarn, longrope, llama3, proportional, axial)"
    )


def test_an_error_quotes_a_short_piece_of_a_csv_field(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("0.5,0.25\n1," + "y" * 5_000_000 + "\n")
    assert identify_refuses(path, capsys) == (
        f"cannot read {str(path)!r}: line 2 has '{'y' * 40}...{'y' * 15}' (5000000 "
        "characters), not a number"
    )


def test_a_message_is_cut_to_a_few_hundred_characters_in_the_middle(capsys, monkeypatch):
    """Whatever a message quotes, the line keeps its two ends and 400 characters."""

    def long_refusal(*args, **kwargs):
        raise ValueError("the start " + "z" * 10**6 + " the end")

    monkeypatch.setattr(posenc.encoding, "sinusoidal", long_refusal)
    assert main(TABLE) == 2
    message = refusal(capsys)
    assert len(message) == 400
    assert message.startswith("the start zzz") and message.endswith("zzz the end")
    assert " ... " in message


def test_a_wide_head_is_refused_at_once_with_the_size_and_why(tmp_path, capsys):
    """head_dim 10**6 computed 500 000 speeds to 50 digits, then failed to fit: > 30 s."""
    began = time.monotonic()
    message = config_refused(tmp_path, capsys, {"head_dim": 10**6})
    assert time.monotonic() - began < 10
    assert message == (
        "rotary_dim = int(head_dim * partial_rotary_factor) = int(1000000 * 1.0) = 1000000 "
        "is more than 8192, the widest posenc computes: real models rotate at most a few "
        "hundred coordinates per head, and each speed is computed to 50 digits, so a wider "
        "ladder would take minutes to identify"
    )


def test_a_million_speeds_are_refused_at_once(tmp_path, capsys):
    path = tmp_path / "speeds.npy"
    np.save(path, 10000.0 ** -np.linspace(0, 1, 10**6, endpoint=False))
    began = time.monotonic()
    assert main(["identify", str(path), "--rope", "speeds"]) == 2
    assert time.monotonic() - began < 10
    assert (
        "has 1000000 rotated pairs (a rotary width of 2000000): posenc computes rotary "
        "widths up to 8192 (4096 pairs)"
    ) in refusal(capsys)


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda p: os.mkfifo(p), "a FIFO"),
        (lambda p: os.symlink("/dev/zero", p), "a character device"),
    ],
)
def test_a_config_that_is_a_fifo_or_a_device(tmp_path, make, kind):
    """A FIFO blocked forever; /dev/zero grew until memory ran out. In a child, timed."""
    path = tmp_path / "config.json"
    make(path)
    child = subprocess.run(
        [sys.executable, "-m", "posenc", "identify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (child.returncode, child.stdout, child.stderr) == (
        2,
        "",
        f"posenc: error: cannot read {str(path)!r}: it is not a regular file ({kind})\n",
    )


def test_a_config_larger_than_16_mb_is_not_read(tmp_path, capsys):
    path = tmp_path / "config.json"
    with open(path, "wb") as file:
        file.truncate(16 * 10**6 + 1)  # sparse
    assert main(["identify", str(path)]) == 2
    assert refusal(capsys) == (
        f"cannot read {str(path)!r}: it holds 16000001 bytes, more than the 16000000 allowed"
    )


def test_a_table_swapped_for_a_fifo_after_its_stat_does_not_block(tmp_path, monkeypatch):
    """The file is judged by what was opened (fstat), not by a stat of its name before."""
    path = tmp_path / "t.npy"
    os.mkfifo(path)
    regular = os.stat(__file__)

    def seen_before_the_swap(self, *args, **kwargs):
        return regular if self == path else Path.stat.__wrapped__(self, *args, **kwargs)

    seen_before_the_swap.__wrapped__ = Path.stat
    monkeypatch.setattr(Path, "stat", seen_before_the_swap)
    outcome = []

    def read():
        try:
            reading.load_table(path)
        except ValueError as error:
            outcome.append(str(error))

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():  # blocked in open(): give it a writer, then fail
        with open(path, "wb"):
            pass
        worker.join(20)
        pytest.fail("load_table blocked opening a FIFO")
    assert outcome == [f"cannot read {str(path)!r}: it is not a regular file (a FIFO)"]


def deflated_npz(path: Path, shape: tuple[int, ...]) -> None:
    """An .npz whose one member holds zeros of ``shape`` (float64), deflated."""
    header = npy_header(shape)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("table.npy", "w", force_zip64=True) as member:
            member.write(header)
            left, zeros = 8 * math.prod(shape), bytes(2**22)
            while left:
                member.write(zeros[: min(left, len(zeros))])
                left -= min(left, len(zeros))


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    """2.4 MB on disk, 2.5 GB inflated: below a 24 GB machine's memory, above 2 GB."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.npz"
    deflated_npz(path, (2500, 125_000))
    return path


def no_inflating(monkeypatch) -> None:
    """Fail the test if any member is read beyond its header."""
    original = zipfile.ZipExtFile.read

    def read(self, n=-1):
        if not 0 <= n <= 2**16:
            raise AssertionError(f"inflated a member: read({n})")
        return original(self, n)

    monkeypatch.setattr(zipfile.ZipExtFile, "read", read)


def test_the_command_refuses_a_bomb_below_the_machines_memory(bomb, capsys, monkeypatch):
    """The 0.8 MB .npz of the report inflated to 5.4 GB: the limit was the machine's."""
    monkeypatch.setattr(_validate, "memory_limit", lambda: (24 * 10**9, "this machine's memory"))
    no_inflating(monkeypatch)
    assert main(["identify", str(bomb)]) == 2
    assert refusal(capsys) == (
        f"{str(bomb)!r}, shape (2500, 125000) of float64: needs about 2.5 GB (2.5e9 bytes) "
        "of memory; the limit is the command's default (--memory MB sets another), "
        "2 GB (2.0e9 bytes)"
    )


def test_memory_sets_the_limit_of_the_run(bomb, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_validate, "memory_limit", lambda: (24 * 10**9, "this machine's memory"))
    no_inflating(monkeypatch)
    assert main(["identify", str(bomb), "--memory", "100"]) == 2
    assert refusal(capsys) == (
        f"{str(bomb)!r}, shape (2500, 125000) of float64: needs about 2.5 GB (2.5e9 bytes) "
        "of memory; the limit is the one set by --memory, 100 MB (1.0e8 bytes)"
    )
    # Above the machine's memory, the machine's limit stays.
    monkeypatch.setattr(_validate, "memory_limit", lambda: (10**9, "this machine's memory"))
    assert main(["identify", str(bomb), "--memory", str(10**9)]) == 2
    assert refusal(capsys).endswith("the limit is this machine's memory, 1 GB (1.0e9 bytes)")
    # A table within --memory is computed; one above it is refused before allocating.
    assert main([*TABLE, "--memory", "1"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(np, "empty", lambda *a, **k: pytest.fail("allocated"))
    assert main(["table", "--length", "1000", "--width", "1000", "--memory", "1"]) == 2
    message = refusal(capsys)  # the table alone is 8 MB; its intermediates, sinusoidal's
    assert message.startswith("length=1000, width=1000: needs about "), message
    assert message.endswith("of memory; the limit is the one set by --memory, 1 MB (1.0e6 bytes)")


def test_the_default_is_half_the_machine_when_that_is_less(capsys, monkeypatch):
    monkeypatch.setattr(_validate, "memory_limit", lambda: (3 * 10**9, "this machine's memory"))
    monkeypatch.setattr(np, "empty", lambda *a, **k: pytest.fail("allocated"))
    assert main(["table", "--length", "200000", "--width", "1024"]) == 2
    assert refusal(capsys) == (
        "length=200000, width=1024: needs about 1.7 GB (1.7e9 bytes) of memory; the limit "
        "is half of this machine's memory (--memory MB sets another), 1.5 GB (1.5e9 bytes)"
    )


@pytest.mark.parametrize(
    ("value", "said"), [("0", "'0'"), ("-5", "'-5'"), ("1.5", "'1.5'"), ("lots", "'lots'")]
)
@pytest.mark.parametrize("command", [TABLE, ["identify", "t.npy"]])
def test_memory_must_be_a_whole_number_of_megabytes(capsys, command, value, said):
    assert main([*command, "--memory", value]) == 2
    assert refusal(capsys) == (
        f"argument --memory: must be a whole number of megabytes >= 1, got {said} "
        f"(see 'posenc {command[0]} --help')"
    )


def test_every_reader_checks_the_limit_of_the_run(tmp_path, capsys, monkeypatch):
    """.npy, .csv (8 bytes a value), a .pt's tensors and a config's JSON, with --memory 1."""
    npy = tmp_path / "t.npy"
    np.save(npy, np.zeros((400, 400)))  # 1.28 MB
    csv = tmp_path / "t.csv"
    csv.write_text("0.5,0.25\n" * 20_000)  # 180 kB: 1.44 MB as values
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"head_dim": 64, "pad": "p" * 40_000}))  # 32 bytes a char
    pt = tmp_path / "t.pt"
    with zipfile.ZipFile(pt, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive/data/0", bytes(10**6))  # a tensor's 1 MB, deflated
    fake_torch = type(sys)("torch")
    fake_torch.load = lambda *a, **k: pytest.fail("torch.load reached")
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    needs = {
        npy: f"{str(npy)!r}, shape (400, 400) of float64: needs about 1.3 MB (1.3e6 bytes)",
        csv: f"{str(csv)!r} of 180000 bytes: needs about 1.4 MB (1.4e6 bytes)",
        config: f"{str(config)!r}, 40027 characters of JSON: needs about 1.3 MB (1.3e6 bytes)",
        pt: f"{str(pt)!r}, 1000000 bytes of tensors: needs about 3 MB (3.0e6 bytes)",
    }
    for path, need in needs.items():
        assert main(["identify", str(path), "--memory", "1"]) == 2
        assert refusal(capsys) == (
            f"{need} of memory; the limit is the one set by --memory, 1 MB (1.0e6 bytes)"
        )


def test_the_limit_of_a_run_ends_with_it(capsys):
    """The library used directly keeps the machine's limit, after a run and after a failure."""
    assert main(["table", "--length", "2000", "--width", "512", "--memory", "1"]) == 2
    capsys.readouterr()
    assert _validate.current_limit() == _validate.memory_limit()
    assert posenc.sinusoidal(2000, 512).shape == (2000, 512)  # 8 MB
    with pytest.raises(RuntimeError), _validate.limited(10, "a test limit"):
        assert _validate.current_limit() == (10, "a test limit")
        raise RuntimeError
    assert _validate.current_limit() == _validate.memory_limit()


def test_a_limit_never_raises_the_machines(monkeypatch):
    monkeypatch.setattr(_validate, "memory_limit", lambda: (10**9, "this machine's memory"))
    with _validate.limited(10**12, "a limit above it"):
        assert _validate.current_limit() == (10**9, "this machine's memory")
    assert _validate.command_limit(None) == (
        5 * 10**8,
        "half of this machine's memory (--memory MB sets another)",
    )
    assert _validate.command_limit(7) == (7 * 10**6, "the one set by --memory")


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (
            MemoryError("Unable to allocate 5.4 GiB"),
            "out of memory (MemoryError: Unable to allocate 5.4 GiB); with a lower --memory "
            "MB such input is refused sooner",
        ),
        (
            RecursionError("maximum recursion depth exceeded"),
            "the input nests too deeply to be read (RecursionError: maximum recursion depth "
            "exceeded)",
        ),
        (
            OverflowError("int too large to convert to float"),
            "a number in the input is too large (OverflowError: int too large to convert to "
            "float)",
        ),
    ],
)
def test_the_machines_errors_are_one_line_and_status_2(capsys, monkeypatch, error, line):
    def failing(*args, **kwargs):
        raise error

    monkeypatch.setattr(posenc.encoding, "sinusoidal", failing)
    assert main(TABLE) == 2
    assert refusal(capsys) == line


def test_any_other_error_is_an_internal_error_of_one_line(capsys, monkeypatch):
    def failing(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(posenc.encoding, "sinusoidal", failing)
    monkeypatch.delenv("POSENC_DEBUG", raising=False)
    assert main(TABLE) == 70
    assert capsys.readouterr() == (
        "",
        "posenc: internal error: KeyError: 'a bug' (please report it; POSENC_DEBUG=1 shows "
        "the traceback)\n",
    )


# --------------------------------------------------------------------------------------
# 6. Neighbours.


def test_messages_are_one_line_even_when_an_error_quotes_a_file(tmp_path, capsys):
    path = tmp_path / "t.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00\x10\x00{'descr':\n'<f8'\n,}   \n")
    message = identify_refuses(path, capsys)
    assert message.startswith(f"cannot read {str(path)!r} as a .npy file: ")
