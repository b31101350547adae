"""``posenc.identify.identify`` on the real tables of the suite, and on copies of them.

Every real table of ``test_sinusoidal.py`` (from the session's cache) is given to
``identify`` as it is and in altered copies:

- **whole**: the table, or its last 2,048 rows when it is longer (identify reads at
  most 2,048 rows here, to keep the suite short);
- **cut**: the middle half of its rows, ``L // 4`` on (tables of 8 to 2,048 rows);
- **offset**: 512 rows from position 50,000 of the 100,016-row tables of the
  libraries that have no start argument (tensor2tensor and Keras-Hub are given a
  start by their own argument: their ``from 12345`` tables);
- **fp16** and **bf16**: the whole rows cast by torch (``.half()``, ``.bfloat16()``)
  and back to float32, as a model cast to half precision holds its table.

identify is right when ``matched`` is true, the library's convention is its
``convention`` or among its ``equivalent`` ones, its base is 10000 and its start is the
first row's position. (Keras-Hub's float64 tables on TensorFlow are the formula at base
``1 / float32(1e-4)``: either base is right for them.) Each answer is one case of kind
"identify" in the record.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import LIBRARIES, Refused, real_table, record, sinusoidal_specs
from test_sinusoidal import TF_FLOAT64_BASE

from posenc.identify import identify

#: The most rows identify is given.
ROWS = 2048
#: The offset copy of the long tables: (first row, rows).
OFFSET_ROWS = (50_000, 512)


def _variants(spec):
    """The copies identify reads of a table: (variant, first row, rows)."""
    first = max(spec.length - ROWS, 0)
    out = [("whole", first, spec.length - first)]
    if 8 <= spec.length <= ROWS:
        out.append(("cut", spec.length // 4, spec.length // 2))
    if spec.length > OFFSET_ROWS[0] + OFFSET_ROWS[1]:
        out.append(("offset", *OFFSET_ROWS))
    out.append(("fp16", first, spec.length - first))
    out.append(("bf16", first, spec.length - first))
    return out


def _params():
    for name, lib in LIBRARIES.items():
        for spec in sinusoidal_specs(lib):
            for variant, first, rows in _variants(spec):
                key = f"{name}-{spec.key}-{variant}".replace(" ", "_")
                yield pytest.param(name, spec, variant, first, rows, id=key)


def _copy(table: np.ndarray, variant: str) -> np.ndarray:
    if variant == "fp16":
        return torch.from_numpy(np.ascontiguousarray(table)).half().float().numpy()
    if variant == "bf16":
        return torch.from_numpy(np.ascontiguousarray(table)).bfloat16().float().numpy()
    return table


@pytest.mark.parametrize(("name", "spec", "variant", "first", "rows"), list(_params()))
def test_identify(real, name, spec, variant, first, rows):
    lib = LIBRARIES[name]
    got = real_table(real, name, spec, "identify")
    assert not isinstance(got, Refused), f"{name} refused {spec.key}: {got}"
    given = _copy(got[first : first + rows], variant)  # (rows, d)
    start = spec.start + first
    bases = [10000.0]
    if lib.family == "keras" and spec.dtype == "float64" and lib.backend == "tensorflow":
        bases.append(TF_FLOAT64_BASE)
    expected = {"convention": lib.convention, "base": 10000.0, "start": start}
    try:
        found = identify(given)
    except ValueError as error:
        answer, right, residual = {"error": str(error)}, False, None
    else:
        names = (found.convention, *found.equivalent)
        right = (
            bool(found.matched)
            and lib.convention in names
            and found.base in bases
            and found.start == start
        )
        residual = found.residual
        answer = {
            "matched": found.matched,
            "convention": found.convention,
            "equivalent": list(found.equivalent),
            "base": found.base,
            "start": found.start,
            "model": getattr(found, "model", None),
            "residual": found.residual,
            "identified_dtype": found.dtype,
        }
    case = f"{spec.key}: {variant}" + (
        f" (rows {first} on)" if variant in ("cut", "offset") else ""
    )
    record(
        library=name,
        version=real.version(name),
        kind="identify",
        case=case,
        convention=lib.convention,
        compared=f"identify's answer on {rows} rows ({variant})",
        dtype=str(given.dtype),
        largest_difference=residual,
        verdict="agrees" if right else "differs",
        rows=rows,
        expected=expected,
        found=answer,
    )
    assert right, f"{name} {case}: expected {expected}, identify said {answer}"
