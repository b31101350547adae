"""posenc's refusals and narrow widths against what the libraries really do.

For each library, tables of 4 rows at widths 0, 1, 2, 3 and 5 (``conftest.NARROW_WIDTHS``)
are asked of the library and of posenc (``table(..., start=0)``):

- where the library fails (an exception, or a table of NaN), posenc must refuse too,
  with ValueError; the record names the library's exception and posenc's message;
- where the library computes a table, posenc must compute the same numbers: both of
  posenc's paths are compared with the models of ``test_sinusoidal.py``;
- width 0 is posenc's own argument check (a table needs a column): the libraries
  return an empty ``(4, 0)`` table; that is recorded, not asserted.

fairseq's 1-row table is a refusal of the library's own (row ``padding_idx = 1`` is
outside it); posenc computes its one row, and that is recorded too.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import LIBRARIES, Refused, Spec, call_library, narrow_specs, real_table, record
from test_sinusoidal import check_table

from posenc.conventions import table


def _library_failure(got) -> str | None:
    """The library's failure, in a few words, or None if it computed a finite table."""
    if isinstance(got, Refused):
        return got.exception
    if not np.all(np.isfinite(got)):
        return "a table holding NaN"
    return None


def _posenc_refusal(convention: str, spec: Spec) -> str | None:
    """posenc's ValueError message for the table, or None if posenc computes it."""
    options = {"dtype": spec.dtype} if convention == "keras-hub" else {}
    try:
        for path in ("exact", "emulated"):
            table(convention, spec.length, spec.width, start=spec.start, path=path, **options)
    except ValueError as error:
        return str(error)
    return None


def _params():
    for name, lib in LIBRARIES.items():
        for spec in narrow_specs(lib):
            yield pytest.param(name, spec, id=f"{name}-{spec.key}".replace(" ", "_"))


@pytest.mark.parametrize(("name", "spec"), list(_params()))
def test_narrow_width(real, name, spec):
    lib = LIBRARIES[name]
    got = real_table(real, name, spec, "refusal")
    failure = _library_failure(got)
    refusal = _posenc_refusal(lib.convention, spec)
    lib_version = real.version(name)
    case = f"{spec.length}x{spec.width}"
    common = {
        "library": name,
        "version": lib_version,
        "kind": "refusal",
        "convention": lib.convention,
        "dtype": spec.dtype,
        "largest_difference": None,
        "library_failure": failure,
        "library_message": got.message if isinstance(got, Refused) else None,
        "posenc_refusal": refusal,
    }
    if spec.width == 0:
        verdict = "agrees" if failure and refusal else "recorded only: "
        if verdict != "agrees":
            verdict += (
                "posenc refuses width 0 (an argument check)"
                if refusal
                else "posenc computes width 0"
            ) + ("; the library fails" if failure else "; the library returns an empty table")
        record(case=case, compared="failure or not, at width 0", verdict=verdict, **common)
        return
    if failure:
        record(
            case=case,
            compared="failure or not",
            verdict="agrees" if refusal else "differs",
            **common,
        )
        assert refusal, f"{name} fails at {case} ({failure}) but posenc computes a table"
        return
    if refusal:
        record(case=case, compared="failure or not", verdict="differs", **common)
        pytest.fail(f"{name} computes a {case} table but posenc refuses: {refusal}")
    check_table(name, lib_version, spec, got, kind="refusal", case=case)


@pytest.mark.parametrize("name", [n for n, lib in LIBRARIES.items() if lib.family == "fairseq"])
def test_fairseq_one_row(real, name):
    """One row, padding_idx 1: the library indexes row 1 and fails; posenc computes row 0."""
    spec = Spec(1, 4)
    real_table(real, name, Spec(4, 4), "refusal")  # skips, recorded, if the library is broken
    got = call_library(LIBRARIES[name], spec)
    failure = _library_failure(got)
    refusal = _posenc_refusal("fairseq", spec)
    record(
        library=name,
        version=real.version(name),
        kind="refusal",
        case="1x4, padding_idx 1",
        convention="fairseq",
        compared="failure or not",
        dtype="float32",
        largest_difference=None,
        verdict="recorded only: the library indexes padding row 1 of a 1-row table"
        if failure and not refusal
        else ("agrees" if failure and refusal else "differs"),
        library_failure=failure,
        library_message=got.message if isinstance(got, Refused) else None,
        posenc_refusal=refusal,
    )
    assert failure == "IndexError", f"{name}: a 1-row table gave {failure or 'a table'}"
