"""The status line of long work: drawn only on a terminal, after a delay, erased at the end."""

from __future__ import annotations

import io

import numpy as np

from posenc import _progress, identify
from posenc.cli import main
from posenc.conventions import table


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_drawn_on_a_file_or_before_the_delay(monkeypatch):
    log = io.StringIO()  # not a terminal
    with _progress.Status("posenc x", log) as status:
        status("working")
    assert log.getvalue() == ""
    screen = Terminal()
    with _progress.Status("posenc x", screen) as status:
        status("working")  # at once: within the delay
    assert screen.getvalue() == ""


def test_a_long_run_draws_then_erases_its_line(monkeypatch):
    clock = iter(np.arange(0.0, 100.0, 0.5))
    monkeypatch.setattr(_progress.time, "monotonic", lambda: float(next(clock)))
    screen = Terminal()
    with _progress.Status("posenc x", screen) as status:
        for k in range(4):
            status(f"step {k}")
    drawn = screen.getvalue()
    assert "\rposenc x: step 2 (" in drawn and "\rposenc x: step 3 (" in drawn
    assert "step 0" not in drawn  # within the first second
    last = drawn.split("\r")[-2]  # the erasing line: only spaces, as wide as the last drawn
    assert last.strip() == "" and len(last) >= len("posenc x: step 3 (3 s)")
    assert drawn.endswith("\r")


def test_identify_reports_each_block_of_each_pass():
    seen = []
    found = identify(table("paper", 9000, 16, start=5), status=seen.append)
    assert found.matched
    # 9000 rows are judged in blocks of 4096: rows 0, 4096 and 8192 of the best's pass.
    for top in (0, 4096, 8192):
        assert f"judging paper, base 10000, start 5: row {top} of 9000" in seen


def test_the_command_draws_on_a_terminal_only(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setattr(_progress, "RATE", 1e9)
    path = tmp_path / "t.npy"
    np.save(path, table("xlm", 5000, 16, start=3))
    assert main(["identify", str(path)]) == 0
    assert capsys.readouterr().err == ""  # pytest's stderr is no terminal
    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    assert main(["identify", str(path)]) == 0
    assert (
        "posenc identify: judging xlm" in screen.getvalue() or "judging paper" in screen.getvalue()
    )
    assert screen.getvalue().endswith("\r")


def test_a_long_table_written_to_a_file_draws_its_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setattr(_progress, "RATE", 1e9)
    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    out = tmp_path / "t.txt"
    args = ["table", "--length", "5000", "--width", "64", "--format", "text", "-o", str(out)]
    assert main(args) == 0
    drawn = screen.getvalue()
    assert "\rposenc table: measuring row 0 of 5000" in drawn
    assert "\rposenc table: writing row 1024 of 5000" in drawn
    assert out.read_text().count("\n") == 5001  # the header and every row, untouched
