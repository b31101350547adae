"""Tests of the posenc command line: output formats, help, and one-line errors.

Values are checked against the worked example of shared FACTS section 2, typed in by
hand; the machine formats are also read back and compared bit for bit.
"""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from posenc import sinusoidal
from posenc.cli import main

FACTS_3x4 = [
    [0, 1, 0, 1],
    [0.841471, 0.540302, 0.00999983, 0.99995],
    [0.909297, -0.416147, 0.0199987, 0.9998],
]


def run(*args: str) -> subprocess.CompletedProcess:
    """``python -m posenc ARGS`` in a child process, stdout as bytes."""
    return subprocess.run(
        [sys.executable, "-m", "posenc", *args], capture_output=True, timeout=120, check=False
    )


def test_text_table(capsys):
    assert main(["table", "--length", "3", "--width", "4"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["pos", "sin0", "cos0", "sin1", "cos1"]
    assert lines[1].split() == ["0", "0", "1", "0", "1"]
    assert lines[2].split() == ["1", "0.841471", "0.540302", "0.00999983", "0.99995"]
    assert lines[3].split() == ["2", "0.909297", "-0.416147", "0.0199987", "0.9998"]
    assert len({len(line) for line in lines}) == 1  # aligned columns


def test_text_precision_and_start(capsys):
    assert (
        main(["table", "--length", "2", "--width", "2", "--start", "1", "--precision", "3"]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["1", "0.841", "0.54"]
    assert lines[2].split() == ["2", "0.909", "-0.416"]


def test_csv_is_full_precision(capsys):
    assert main(["table", "--length", "3", "--width", "4", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["pos", "sin0", "cos0", "sin1", "cos1"]
    assert [row[0] for row in rows[1:]] == ["0", "1", "2"]
    values = np.array([[float(x) for x in row[1:]] for row in rows[1:]])
    np.testing.assert_allclose(values, FACTS_3x4, rtol=0, atol=5e-7)
    assert np.array_equal(values, sinusoidal(3, 4))  # the text reads back bit for bit
    assert rows[2][1] == "0.8414709848078965"  # sin(1), to 17 significant digits


def test_csv_float32_uses_the_shortest_float32_digits(capsys):
    args = ["table", "--length", "3", "--width", "4", "--format", "csv", "--dtype", "float32"]
    assert main(args) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[2][1] == "0.84147096"
    values = np.array([[np.float32(x) for x in row[1:]] for row in rows[1:]], dtype=np.float32)
    assert np.array_equal(values, sinusoidal(3, 4, dtype=np.float32))


def test_json_is_a_list_of_rows(capsys):
    assert main(["table", "--length", "3", "--width", "4", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, list)
    assert [len(row) for row in data] == [4, 4, 4]
    np.testing.assert_allclose(data, FACTS_3x4, rtol=0, atol=5e-7)
    assert np.array_equal(np.array(data), sinusoidal(3, 4))


def test_json_of_an_empty_table(capsys):
    assert main(["table", "--length", "0", "--width", "2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_npy_to_a_file(tmp_path, capsys):
    path = tmp_path / "table.npy"
    args = ["table", "--length", "5", "--width", "6", "--format", "npy", "--dtype", "float32"]
    assert main([*args, "-o", str(path)]) == 0
    assert capsys.readouterr().out == ""
    table = np.load(path)
    assert table.dtype == np.float32
    assert table.shape == (5, 6)
    assert np.array_equal(table, sinusoidal(5, 6, dtype="float32"))


@pytest.mark.parametrize("fmt", ["text", "csv", "json"])
def test_output_file_for_text_formats(tmp_path, capsys, fmt):
    path = tmp_path / f"table.{fmt}"
    assert main(["table", "--length", "2", "--width", "2", "--format", fmt, "-o", str(path)]) == 0
    assert capsys.readouterr().out == ""
    assert "0.84147" in path.read_text(encoding="utf-8")


def test_npy_to_a_pipe():
    result = run("table", "--length", "3", "--width", "4", "--format", "npy")
    assert result.returncode == 0, result.stderr
    table = np.load(io.BytesIO(result.stdout))
    np.testing.assert_allclose(table, FACTS_3x4, rtol=0, atol=5e-7)


def test_npy_refuses_a_terminal(monkeypatch, capsys):
    class Terminal(io.TextIOWrapper):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdout", Terminal(io.BytesIO(), encoding="utf-8"))
    assert main(["table", "--length", "1", "--width", "2", "--format", "npy"]) == 2
    err = capsys.readouterr().err
    assert err == "posenc: error: npy output is binary: give -o FILE or redirect standard output\n"


# --------------------------------------------------------------------------------------
# Help and version.


@pytest.mark.parametrize("args", [["--help"], ["table", "--help"], ["-h"], ["table", "-h"]])
def test_help_on_every_command(capsys, args):
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: posenc")
    if "table" in args:
        for option in ("--length", "--width", "--base", "--start", "--dtype", "--format", "-o"):
            assert option in out
        assert "npy" in out and "terminal" in out


@pytest.mark.parametrize("command", ["table", "identify"])
def test_memory_is_an_option_of_table_and_identify(capsys, command):
    """The help says the default in numbers that do not depend on the machine."""
    assert main([command, "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--memory MB the most memory, in MB (10**6 bytes)" in help_text
    assert "(default: 2000, or half of this machine's memory if that is less;" in help_text


def test_the_exercise_checker_keeps_its_own_memory_option(capsys):
    """exercise check --memory limits the solution's process: not the run's limit."""
    assert main(["exercise", "check", "--help"]) == 0
    assert "memory your solution may use" in capsys.readouterr().out


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("posenc ")


def test_python_dash_m_works():
    result = run("table", "--length", "2", "--width", "2")
    assert result.returncode == 0
    assert result.stdout.decode().splitlines()[2].split() == ["1", "0.841471", "0.540302"]


# --------------------------------------------------------------------------------------
# Bad input: one line on stderr, exit status 2, no traceback.

BAD = [
    (["table", "--length", "-1", "--width", "4"], "length must be an integer >= 0, got -1"),
    (["table", "--length", "3", "--width", "3"], "width must be an even integer >= 2, got 3"),
    (["table", "--length", "3", "--width", "0"], "width must be an even integer >= 2, got 0"),
    (["table", "--length", "3", "--width", "4", "--base", "1"], "base must be a finite real"),
    (["table", "--length", "3", "--width", "4", "--base", "nan"], "base must be a finite real"),
    (["table", "--length", "3", "--width", "4", "--start", "-5"], "start must be an integer"),
    (["table", "--length", "3.0", "--width", "4"], "argument --length: invalid int value"),
    (["table", "--length", "3"], "the following arguments are required: --width"),
    (["table", "--length", "3", "--width", "4", "--dtype", "int8"], "argument --dtype"),
    (["table", "--length", "3", "--width", "4", "--format", "xml"], "argument --format"),
    (["table", "--length", "3", "--width", "4", "--precision", "0"], "precision must be"),
    (["table", "--length", "3", "--width", "4", "-o", "/nonexistent/dir/t.csv"], "cannot write"),
    ([], "the following arguments are required: COMMAND"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_bad_input_in_process(capsys, args, message):
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("posenc: error: ")
    assert message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(("args", "message"), [BAD[1], BAD[4], BAD[6], BAD[11], BAD[12]])
def test_bad_input_exit_status_and_one_line(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert result.stdout == b""
    err = result.stderr.decode()
    assert err.startswith("posenc: error: ")
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_table_in_a_library_convention_uses_its_layout_and_first_position(capsys):
    # fairseq: sines then cosines, exponent i/(h-1), first position padding_idx + 1 = 2, float32.
    assert (
        main(
            [
                "table",
                "--convention",
                "fairseq",
                "--length",
                "2",
                "--width",
                "4",
                "--format",
                "csv",
            ]
        )
        == 0
    )
    header, *rows = capsys.readouterr().out.strip().splitlines()
    assert header == "pos,sin0,sin1,cos0,cos1"
    for line, pos in zip(rows, (2, 3), strict=True):
        cells = line.split(",")
        assert int(cells[0]) == pos
        want = [math.sin(pos), math.sin(pos * 1e-4), math.cos(pos), math.cos(pos * 1e-4)]
        got = [float(c) for c in cells[1:]]
        assert max(abs(g - w) for g, w in zip(got, want, strict=True)) < 1e-6  # float32 table


def test_table_rejects_an_unknown_convention(capsys):
    assert main(["table", "--convention", "nope", "--length", "2", "--width", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'nope'" in err and "fairseq" in err
