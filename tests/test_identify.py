"""Tests of posenc.identify and the ``posenc identify`` command.

Inputs are built with posenc.conventions.table (each library's formula) and with
independent formulas written here: mpmath at 50 digits, plain NumPy for the classic
mistakes, random noise. The expected answers (convention, base, first position) are
the arguments the tables were built with, never an earlier output of identify.
"""

from __future__ import annotations

import json
import math
import sys
import types

import mpmath
import numpy as np
import pytest

from posenc import _cli_identify, cli
from posenc.conventions import CONVENTIONS, table
from posenc.identify import Identification, identify, load_table

NAMES = tuple(CONVENTIONS)
INTERLEAVED = ("paper", "xlm", "pytorch-tutorial", "keras-hub")

# Conventions whose tables can agree to the last bit, so that the table alone cannot
# tell them apart: fairseq and whisper away from fairseq's padding row (and
# tensor2tensor when its float32 frequencies round alike); xlm and the paper's
# formula rounded to float32; in float16 storage, the interleaved conventions too.
TWINS = {
    "tensor2tensor": {"fairseq", "whisper"},
    "fairseq": {"tensor2tensor", "whisper"},
    "whisper": {"tensor2tensor", "fairseq"},
    "xlm": {"paper"},
    "paper": {"xlm"},
}


def names_it(found: Identification, name: str) -> bool:
    """The convention is named, or is among those computing the same numbers."""
    return found.convention == name or name in found.equivalent


def assert_identified(found: Identification, name: str, *, base=10000.0, start=0):
    assert found.matched, found.explanation
    assert names_it(found, name), found.explanation
    assert found.base == base, found.explanation
    assert found.start == start, found.explanation
    assert found.fit <= 1.0 and found.residual <= found.tolerance


def widths_for(name: str) -> list[int]:
    convention = CONVENTIONS[name]
    widths = [4, 16, 64, 128]
    if convention.odd_width != "error":
        widths.append(7)
    return [w for w in widths if w >= convention.min_width]


# --------------------------------------------------------------------------------------
# Every convention, at several widths, bases and first positions.


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("start", [0, 1, 37, 10**5])
def test_every_convention_and_first_position(name, start):
    for width in widths_for(name):
        found = identify(table(name, 120, width, start=start))
        assert_identified(found, name, start=start)
        assert found.width == width
        assert found.columns == (0, width)
        assert found.rows == 120


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("base", [100.0, 500000.0, 1e6])
def test_other_bases(name, base):
    found = identify(table(name, 150, 64, base=base, start=37))
    assert_identified(found, name, base=base, start=37)


@pytest.mark.parametrize("name", ["paper", "pytorch-tutorial", "keras-hub", "marian", "fairseq"])
def test_exact_name_where_the_numbers_differ(name):
    # Far from position 0 these conventions' roundings differ, so the name is exact;
    # fairseq from position 0 has its padding row (position 1) in the table.
    # posenc's emulation of each library's operations: its roundings are the library's
    # (the exact path would give every convention the same correctly rounded values).
    start = 0 if name == "fairseq" else 54321
    found = identify(table(name, 200, 64, start=start, path="emulated"))
    assert found.convention == name, found.explanation
    assert found.start == start
    assert found.emulation is not None and found.emulation.identical, found.explanation


def test_xlm_is_named_for_float32_and_paper_for_float64():
    xlm = identify(table("xlm", 100, 32, start=500))
    assert (xlm.convention, xlm.dtype) == ("xlm", "float32")
    assert "paper" in xlm.equivalent  # the same numbers: the exact values, rounded
    paper = identify(table("paper", 100, 32, start=500))
    assert (paper.convention, paper.dtype, paper.model) == ("paper", "float64", "rounded once")
    assert paper.residual <= 4e-16  # both within a few 1e-16 of the real numbers
    assert paper.emulation is not None and paper.emulation.identical


@pytest.mark.parametrize("name", NAMES)
def test_row_cuts(name):
    rows = table(name, 2000, 32, start=0)
    found = identify(rows[1234:1534])
    assert_identified(found, name, start=1234)
    found = identify(table(name, 40, 32, start=10**5 + 17)[5:])
    assert_identified(found, name, start=10**5 + 22)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("start", [0, 37, 10**5])
def test_float16_storage(name, start):
    stored = table(name, 100, 64, start=start).astype(np.float16)
    found = identify(stored)
    assert found.dtype == "float16"
    assert found.matched, found.explanation
    assert found.start == start and found.base == 10000.0
    # In float16 the interleaved conventions round to the same numbers.
    family = INTERLEAVED if name in INTERLEAVED else (name, *TWINS.get(name, ()))
    assert found.convention in family or names_it(found, name), found.explanation


def test_bfloat16_values_stored_as_float32():
    from posenc.precision import to_bfloat16

    found = identify(to_bfloat16(table("xlm", 100, 64, start=37)))
    assert found.dtype == "bfloat16"
    assert found.matched and found.start == 37


@pytest.mark.parametrize("name", INTERLEAVED)
@pytest.mark.parametrize(("first", "stop"), [(0, 64), (0, 8), (100, 164), (101, 165)])
def test_column_slices_of_interleaved_tables(name, first, stop):
    full = table(name, 300, 512, start=37)
    found = identify(full[:, first:stop])
    assert_identified(found, name, start=37)
    assert found.width == 512
    assert found.columns == (first, stop)


def test_rows_and_columns_cut_together():
    found = identify(table("pytorch-tutorial", 300, 512, start=37)[50:80, 20:60])
    assert_identified(found, "pytorch-tutorial", start=87)
    assert (found.width, found.columns) == (512, (20, 60))


def test_a_whole_table_with_a_round_base_stays_whole():
    # Width 64 with base 10 has the speeds of the first 64 columns of width 256 with
    # base 10000: the same numbers. The whole table with a round base is preferred.
    found = identify(table("paper", 100, 64, base=10.0, start=5))
    assert (found.width, found.columns, found.base) == (64, (0, 64), 10.0)


def test_slices_of_concatenated_tables_are_not_recognised():
    # Documented limit: a slice of the sines of a concatenated table has no pairs.
    found = identify(table("whisper", 100, 128)[:, :32])
    assert not found.matched
    assert "interleaved layouts only" in found.explanation


# --------------------------------------------------------------------------------------
# Independent formulas.


def exact_paper(rows: int, width: int, start: int) -> np.ndarray:
    """The paper's table from mpmath at 50 digits, each entry rounded to float64."""
    result = np.empty((rows, width))
    with mpmath.workdps(50):
        for i in range(width // 2):
            w = mpmath.mpf(10000) ** (mpmath.mpf(-2 * i) / width)
            for r in range(rows):
                angle = (start + r) * w
                result[r, 2 * i] = float(mpmath.sin(angle))
                result[r, 2 * i + 1] = float(mpmath.cos(angle))
    return result


def test_the_paper_from_mpmath():
    found = identify(exact_paper(12, 8, 1000))
    assert_identified(found, "paper", start=1000)
    assert found.convention == "paper"
    assert found.residual <= 4e-16


def test_the_tutorial_formula_written_out():
    # PositionalEncoding of the PyTorch tutorial, step by step in float32.
    rows, width, start = 80, 32, 2000
    position = np.arange(start, start + rows, dtype=np.float32)[:, None]
    factor = np.float32(-math.log(10000.0) / width)
    div_term = np.exp(np.arange(0, width, 2).astype(np.float32) * factor)
    pe = np.zeros((rows, width), dtype=np.float32)
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    found = identify(pe)
    assert_identified(found, "pytorch-tutorial", start=start)
    assert found.convention == "pytorch-tutorial"


def paper_like(rows, width, *, exponent, swap=False):
    pos = np.arange(rows)[:, None]  # (L, 1)
    j = np.arange(width)  # (d,)
    angle = pos / 10000.0 ** (exponent(j) / width)  # (L, d)
    even = j % 2 == 0
    if swap:
        even = ~even
    return np.where(even, np.sin(angle), np.cos(angle))


@pytest.mark.parametrize(
    "mistake",
    [
        paper_like(200, 64, exponent=lambda j: j),  # column j instead of pair j // 2
        paper_like(200, 64, exponent=lambda j: 2 * (j // 2), swap=True),  # cos, sin
        np.random.default_rng(1).standard_normal((100, 64)),
        np.random.default_rng(2).uniform(-1, 1, (50, 16)),
        table("paper", 100, 64) + 1e-4 * np.random.default_rng(3).standard_normal((100, 64)),
    ],
    ids=["column-j", "swapped", "normal-noise", "uniform-noise", "paper-plus-noise"],
)
def test_other_formulas_are_not_matched(mistake):
    found = identify(mistake)
    assert not found.matched
    assert found.fit > 1.0
    assert found.convention in CONVENTIONS  # the closest is named
    assert found.alternatives
    assert "No convention explains this table" in found.explanation


# --------------------------------------------------------------------------------------
# The error model: structure first, precision path second.


def float32_pipeline(rows, width, start, *, nudge=0):
    """Whisper's formula in float32, written out here, each speed moved ``nudge`` ulps.

    A library whose float32 ``exp`` rounds differently from NumPy's gives speeds an ulp
    or so away from NumPy's; ``nudge`` plays that library.
    """
    half = width // 2
    speed = np.exp(np.float32(-math.log(10000.0) / (half - 1)) * np.arange(half, dtype=np.float32))
    for _ in range(abs(nudge)):
        speed = np.nextafter(speed, np.float32(np.inf if nudge > 0 else 0))
    angle = np.arange(start, start + rows, dtype=np.float32)[:, None] * speed[None, :]
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)  # (L, d) float32


@pytest.mark.parametrize("nudge", [-2, -1, 1, 2])
@pytest.mark.parametrize(("rows", "width", "start"), [(50, 16, 0), (2048, 64, 0), (16, 64, 10**5)])
def test_another_librarys_float32_rounding_is_still_named(nudge, rows, width, start):
    # The failure: such tables were "not identified", or Marian with base 37275.9.
    found = identify(float32_pipeline(rows, width, start, nudge=nudge))
    assert found.matched, found.explanation
    assert found.model == "float32 angles"
    assert {"whisper", "fairseq", "tensor2tensor"} & {found.convention, *found.equivalent}
    assert (found.base, found.start) == (10000.0, start), found.explanation
    assert found.emulation is not None and not found.emulation.identical
    assert all(c.base == 10000.0 or not c.fit <= 1.0 for c in found.alternatives)


def test_a_rounded_once_table_is_told_from_a_float32_pipeline():
    rounded = identify(table("paper", 2048, 64, dtype="float32"))
    assert rounded.model == "rounded once", rounded.explanation
    # Far from 0 the float32 angles of the tutorial are off by many ulps: not rounded once.
    pipeline = identify(table("pytorch-tutorial", 64, 64, start=10**5, path="emulated"))
    assert pipeline.model == "float32 angles", pipeline.explanation
    assert pipeline.convention in ("pytorch-tutorial", "keras-hub")


def test_the_bound_is_tight_enough_to_refuse_a_wrong_structure():
    # One entry moved past the float32 model's bound, near position 0 where the bound is a
    # few ulps: the witness is refused, and the same move inside the bound is accepted.
    good = float32_pipeline(200, 32, 0)
    assert identify(good).matched
    # Column 30 is the cosine of pair 14 of 16, speed w = 10000**(-14/15); row 3 is
    # position 3. The documented bound there: ((2 |ln w| + 3) t + 2) eps, t = 3 w.
    w = 10000.0 ** (-14 / 15)
    bound = 2.0**-23 * ((2 * abs(math.log(w)) + 3) * 3 * w + 2)
    for factor, expected in ((0.5, True), (3.0, False)):
        moved = good.astype(np.float64)
        moved[3, 30] += factor * bound
        assert identify(moved).matched is expected, factor


def test_keras_float64_on_tensorflow_is_named_with_its_path():
    # Keras on TensorFlow rounds 1 / max_wavelength to float32 before its float64 work.
    tf_like = table(
        "keras-hub", 300, 32, dtype="float64", base=1 / float(np.float32(1e-4)), path="emulated"
    )
    found = identify(tf_like)
    assert found.matched, found.explanation
    assert (found.convention, found.base, found.dtype) == ("keras-hub", 10000.0, "float64")
    assert found.emulation is not None and "TensorFlow" in found.emulation.note
    assert found.emulation.residual < 1e-12, found.explanation


def test_the_json_is_stable():
    data = json.loads(json.dumps(identify(table("fairseq", 40, 16)).as_dict()))
    assert set(data) == {
        "schema", "verdict", "matched", "fits", "convention", "base", "start", "width",
        "columns", "residual", "model", "fit", "tolerance", "rows", "dtype", "evidence",
        "undecided", "assumed", "equivalent", "emulation", "alternatives", "explanation",
    }  # fmt: skip
    assert data["schema"] == 3
    assert (data["verdict"], data["matched"], data["fits"]) == ("identified", True, True)
    assert set(data["evidence"]) == {"bits", "needed"}
    assert data["evidence"]["bits"] >= data["evidence"]["needed"]
    assert set(data["emulation"]) == {"call", "note", "residual", "identical"}
    for candidate in data["alternatives"]:
        assert set(candidate) == {
            "convention", "base", "start", "width", "columns", "residual", "model", "fit",
            "complete",
        }  # fmt: skip


# --------------------------------------------------------------------------------------
# Odd input.


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.full((3, 4), np.nan), r"NaN or infinite values \(first at row 0, column 0\)"),
        (np.array([[0.0, 1.0], [np.inf, 0.0]]), r"NaN or infinite"),
        (np.zeros(5), r"table must be 2-D .* got shape \(5,\)"),
        (np.zeros((2, 3, 4)), r"table must be 2-D"),
        (np.zeros((0, 4)), r"at least 1 row and 2 columns, got shape \(0, 4\)"),
        (np.zeros((4, 1)), r"at least 1 row and 2 columns"),
        (np.array([["a", "b"]]), r"table must hold real numbers, got dtype <U1"),
        (np.zeros((3, 4), dtype=complex), r"table must hold real numbers"),
    ],
)
def test_bad_tables_are_refused_clearly(value, message):
    with pytest.raises(ValueError, match=message):
        identify(value)


def test_bad_candidates():
    with pytest.raises(ValueError, match=r"candidates must be among .* got 'nope'"):
        identify(table("paper", 3, 4), candidates=["nope"])
    with pytest.raises(ValueError, match=r"no candidate convention can make a table of 2"):
        identify(table("paper", 3, 2), candidates=["fairseq"])


@pytest.mark.parametrize(
    "value",
    [
        np.ones((10, 8)),
        np.zeros((10, 8)),
        np.zeros((3, 4), dtype=bool),
        np.full((3, 4), 1e300),
        table("paper", 10, 2, start=5),
        table("paper", 1, 8, start=37),
        table("paper", 2, 8, start=37),
    ],
    ids=["ones", "zeros", "bool", "huge", "two-columns", "one-row", "two-rows"],
)
def test_odd_tables_do_not_crash(value):
    found = identify(value)
    assert found.convention in CONVENTIONS
    assert found.explanation


def test_one_row_at_position_zero_fits_every_base():
    # sin 0 = 0 and cos 0 = 1 whatever the base: the layout and the position are told,
    # the base is assumed, and the answer says so.
    found = identify(table("paper", 1, 8))
    assert found.matched and found.start == 0 and found.base == 10000.0
    (assumed,) = found.assumed
    assert assumed.startswith("base 10000 (the convention's own): bases ")
    assert "500000" in assumed and "fit these rows as well" in assumed
    assert "Assumed: base 10000" in found.explanation


def test_candidates_restrict_the_search():
    found = identify(table("whisper", 50, 16, start=3), candidates="whisper")
    assert found.convention == "whisper"
    assert {c.convention for c in found.alternatives} <= {"whisper"}


def test_a_large_table():
    found = identify(table("xlm", 4096, 1024, start=12345))
    assert found.matched and found.start == 12345 and found.width == 1024


def test_as_dict_is_json():
    data = identify(table("marian", 20, 8, start=3)).as_dict()
    text = json.dumps(data)
    assert json.loads(text)["convention"] == "marian"


# --------------------------------------------------------------------------------------
# Files.


@pytest.fixture
def paper16(tmp_path):
    return table("paper", 30, 16, start=200)


def test_npy_round_trip(tmp_path, paper16):
    path = tmp_path / "t.npy"
    np.save(path, paper16.astype(np.float16))
    loaded = load_table(path)
    assert loaded.dtype == np.float16
    np.testing.assert_array_equal(loaded, paper16.astype(np.float16))


def test_npz_one_or_chosen_array(tmp_path, paper16):
    one = tmp_path / "one.npz"
    np.savez(one, positions=paper16)
    np.testing.assert_array_equal(load_table(one), paper16)
    several = tmp_path / "several.npz"
    np.savez(several, a=paper16, b=np.zeros(3))
    np.testing.assert_array_equal(load_table(several, key="a"), paper16)
    with pytest.raises(ValueError, match=r"holds several arrays \(a, b\): choose one with --key"):
        load_table(several)
    with pytest.raises(ValueError, match=r"has no array 'c' \(arrays: a, b\)"):
        load_table(several, key="c")


def write_csv(path, rows, header=None, index=None):
    lines = [] if header is None else [",".join(header)]
    for r, row in enumerate(rows):
        fields = [repr(float(x)) for x in row]
        if index is not None:
            fields.insert(0, str(index + r))
        lines.append(",".join(fields))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    ("header", "index"),
    [
        (None, None),
        (["s0", "c0", "s1", "c1"], None),
        (["pos", "s0", "c0", "s1", "c1"], 200),
        (["", "s0", "c0", "s1", "c1"], 200),
        (None, 200),
    ],
    ids=["bare", "header", "pos-column", "unnamed-index", "index-without-header"],
)
def test_csv_round_trip(tmp_path, header, index):
    values = table("paper", 30, 4, start=200)
    path = tmp_path / "t.csv"
    write_csv(path, values, header, index)
    np.testing.assert_array_equal(load_table(path), values)


def test_csv_first_column_of_values_is_kept(tmp_path):
    # A first column in [-1, 1] is a sine, not an index, even when it looks regular.
    values = table("paper", 2, 4)  # first column 0, sin(1)
    path = tmp_path / "t.csv"
    write_csv(path, values)
    assert load_table(path).shape == (2, 4)


class FakeTensor:
    def __init__(self, values, bfloat16=False):
        self.values, self.bfloat16 = values, bfloat16

    def detach(self):
        return self

    def cpu(self):
        return self

    def float(self):
        return FakeTensor(self.values.astype(np.float32))

    def numpy(self):
        if self.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self.values


def fake_torch(monkeypatch, loaded):
    calls = []

    def load(path, map_location=None, weights_only=False):
        calls.append({"map_location": map_location, "weights_only": weights_only})
        return loaded

    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(load=load))
    return calls


def test_pt_tensor_with_fake_torch(tmp_path, monkeypatch, paper16):
    path = tmp_path / "t.pt"
    path.write_bytes(b"not really a torch file")
    calls = fake_torch(monkeypatch, FakeTensor(paper16))
    np.testing.assert_array_equal(load_table(path), paper16)
    assert calls == [{"map_location": "cpu", "weights_only": True}]


def test_pt_dictionary_and_bfloat16_with_fake_torch(tmp_path, monkeypatch, paper16):
    path = tmp_path / "t.pth"
    path.write_bytes(b"x")
    state = {"pe": FakeTensor(paper16, bfloat16=True), "other": FakeTensor(np.zeros(2))}
    fake_torch(monkeypatch, state)
    np.testing.assert_array_equal(load_table(path, key="pe"), paper16.astype(np.float32))
    with pytest.raises(ValueError, match=r"several arrays \(pe, other\)"):
        load_table(path)


def test_pt_without_torch(tmp_path, monkeypatch):
    path = tmp_path / "t.pt"
    path.write_bytes(b"x")
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    with pytest.raises(ValueError, match=r"^reading \.pt files needs PyTorch: pip install torch$"):
        load_table(path)


# --------------------------------------------------------------------------------------
# The command line.


@pytest.fixture
def posenc(monkeypatch):
    """``posenc.cli.main`` with the identify subcommand, wired or not yet."""
    if _cli_identify.add_parser not in cli._COMMANDS:
        monkeypatch.setattr(cli, "_COMMANDS", (*cli._COMMANDS, _cli_identify.add_parser))
    return cli.main


def test_cli_identifies(tmp_path, posenc, capsys):
    path = tmp_path / "t.npy"
    np.save(path, table("fairseq", 100, 64, start=0))
    assert posenc(["identify", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "identified: fairseq" in out
    assert "first position 0" in out and "base 10000" in out


def test_cli_json(tmp_path, posenc, capsys):
    path = tmp_path / "t.npz"
    np.savez(path, a=table("keras-hub", 60, 32, start=9), b=np.zeros(2))
    assert posenc(["identify", str(path), "--key", "a", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["start"], data["matched"], data["schema"]) == (9, True, 3)
    assert "keras-hub" in [data["convention"], *data["equivalent"]]


def test_cli_candidates(tmp_path, posenc, capsys):
    path = tmp_path / "t.npy"
    np.save(path, table("whisper", 60, 32, start=9))
    assert posenc(["identify", str(path), "--candidates", "paper,xlm"]) == 1
    out = capsys.readouterr().out
    assert "not identified; closest:" in out


def test_cli_not_identified(tmp_path, posenc, capsys):
    path = tmp_path / "noise.npy"
    np.save(path, np.random.default_rng(0).standard_normal((20, 8)))
    assert posenc(["identify", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "not identified; closest:" in out and "largest difference" in out
    assert err == ""


def test_cli_help(posenc, capsys):
    assert posenc(["identify", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--key" in out and "--json" in out and "--candidates" in out


def bad_files(tmp_path):
    cases = {}
    cases["missing"] = tmp_path / "missing.npy"
    (tmp_path / "empty.npy").write_bytes(b"")
    cases["empty"] = tmp_path / "empty.npy"
    np.save(tmp_path / "flat.npy", np.zeros(5))
    cases["wrong-shape"] = tmp_path / "flat.npy"
    (tmp_path / "garbage.npy").write_bytes(b"this is not an array\n" * 4)
    cases["garbage-npy"] = tmp_path / "garbage.npy"
    (tmp_path / "garbage.csv").write_text("hello,world\nfoo,bar\n")
    cases["garbage-csv"] = tmp_path / "garbage.csv"
    (tmp_path / "ragged.csv").write_text("0,1,0,1\n0.8,0.5\n")
    cases["ragged-csv"] = tmp_path / "ragged.csv"
    np.save(tmp_path / "nan.npy", np.full((4, 4), np.nan))
    cases["nan"] = tmp_path / "nan.npy"
    (tmp_path / "binary.csv").write_bytes(bytes(range(256)))
    cases["binary-csv"] = tmp_path / "binary.csv"
    (tmp_path / "t.txt").write_text("0,1\n")
    cases["unknown-type"] = tmp_path / "t.txt"
    np.savez(tmp_path / "none.npz")
    cases["empty-npz"] = tmp_path / "none.npz"
    cases["directory"] = tmp_path
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    cases["pickled-objects"] = tmp_path / "objects.npy"
    return cases


BAD = [
    "missing",
    "empty",
    "wrong-shape",
    "garbage-npy",
    "garbage-csv",
    "ragged-csv",
    "nan",
    "binary-csv",
    "unknown-type",
    "empty-npz",
    "directory",
    "pickled-objects",
]


@pytest.mark.parametrize("case", BAD)
def test_cli_bad_files_exit_2_with_one_line(tmp_path, posenc, capsys, case):
    path = bad_files(tmp_path)[case]
    assert posenc(["identify", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("posenc: error: ")
    assert "Traceback" not in err


def test_cli_pt_without_torch(tmp_path, posenc, capsys, monkeypatch):
    path = tmp_path / "t.pt"
    path.write_bytes(b"x")
    monkeypatch.setitem(sys.modules, "torch", None)
    assert posenc(["identify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == "posenc: error: reading .pt files needs PyTorch: pip install torch\n"
