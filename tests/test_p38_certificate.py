"""Proposition 38's certificate, data/base-bound.json, is checked and not trusted.

The proof's :func:`certify` must fail on a corrupted copy: a witness moved to an offset
where the sum is positive, a grid base left out, an answer one grid step lower, a
witness beyond its context, another grid. The copies keep the two shortest rows (4096
and 8192), so each check costs well under a second.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from proofs import p38_rope_base_bound as proof
from proofs.kit import Recorder

LENGTHS = (4096, 8192)


@pytest.fixture(scope="module")
def short() -> dict:
    data = proof.load_certificate()
    rows = data["rows"][: len(LENGTHS)]
    return {**data, "rows": rows, "witnesses": data["witnesses"][: rows[-1]["index"]]}


def _failed(data: dict) -> list[str]:
    rec = Recorder()
    proof.certify(rec, data, LENGTHS)
    return [c.claim for c in rec.checks if not c.passed]


def test_the_short_certificate_passes(short):
    assert _failed(short) == []


def _broken(short: dict, how: str) -> dict:
    data = copy.deepcopy(short)
    first = data["rows"][0]["index"]
    if how == "witness at 0":  # B(0) = 64 > 0
        data["witnesses"][first // 2] = 0
    elif how == "grid base dropped":
        del data["witnesses"][first // 2]
    elif how == "answer one step lower":
        row = data["rows"][0]
        row["index"] -= 1
        row["base"] = proof.grid_base(row["index"])
    elif how == "witness beyond its context":  # index below the 4096 row's answer
        data["witnesses"][first - 1] = 5000
    elif how == "another grid":
        data["ratio"] = "1002/1000"
    return data


@pytest.mark.parametrize(
    ("how", "claim"),
    [
        ("witness at 0", "witnesses with B(m) < 0"),
        ("grid base dropped", "a witness for every grid base"),
        ("answer one step lower", "L = 4096, grid answer: offsets where B(m) >= 0"),
        ("witness beyond its context", "every witness is an offset in [0, L]"),
        ("another grid", "the certificate's grid is the page's"),
    ],
)
def test_a_corrupted_certificate_fails(short, how, claim):
    failed = _failed(_broken(short, how))
    assert any(c.startswith(claim) for c in failed), failed


def test_the_grid_is_two_times_1_001_to_the_k_rounded_once():
    # Exact rationals here, independently of the proof's 50 digits.
    for k in (0, 1, 999, 9514, 17312):
        assert proof.grid_base(k) == float(2 * Fraction(1001, 1000) ** k)
    # not C's pow on the float 1.001, whose ratio is off by about 1e-16 a step
    assert proof.grid_base(17312) != 2.0 * 1.001**17312


def test_each_answer_is_the_grid_base_after_the_run_of_failing_bases(short):
    # The page's grid_L is grid_base(failing): failing counts the grid bases below the
    # row's index whose witness lies in [0, L] with B < 0. It is the index on the file,
    # and falls short of it when a witness does not fail or lies beyond L.
    rows = proof.certify(Recorder(), short, LENGTHS)
    assert [failing for *_, failing in rows] == [row["index"] for row in short["rows"]]
    for how in ("witness at 0", "witness beyond its context"):
        rows = proof.certify(Recorder(), _broken(short, how), LENGTHS)
        assert rows[0][4] == short["rows"][0]["index"] - 1
