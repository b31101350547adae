"""posenc's sinusoidal conventions against the libraries' own code.

Each real table (built once per session by ``conftest.RealTables``) is compared with
two of posenc's tables, and each comparison is one case of ``record.json``:

- **the emulation**, ``table(..., path="emulated")``: the library's operations in
  order, in NumPy. For the float64 pipelines (Hugging Face XLM, DistilBERT, Marian,
  Pegasus: angles, sines and cosines in float64, rounded once to float32) it must
  match bit for bit; for the float32 pipelines (fairseq and its ports, Whisper,
  tensor2tensor, Keras-Hub) within the emulation model below.
- **the exact formula**, ``table(..., path="exact")``: exact speeds and positions,
  each entry rounded once. Every library must lie within the exact model below.

Besides, posenc's exact table is checked against this file's own reference
(:func:`reference`: speeds from mpmath, angles, sines and cosines in float64).

Notation: ``eps`` is the machine epsilon of the pipeline's type (``2**-23`` for
float32, ``2**-52`` for float64); an ulp of ``v`` is at most ``eps |v|``, and at most
``eps / 2`` for ``|v| < 1``. ``w`` is a column's exact speed, ``t = pos * w`` its exact
angle. Bounds are to first order in ``eps``.

The emulation model: real vs ``path="emulated"``
------------------------------------------------
Both sides compute ``w = exp(x)`` from the *same* float32 argument ``x``, round
``pos * w`` once, then take ``sin`` or ``cos``. Each faithful ``exp`` is within one ulp
of ``e**x``, so the two speeds differ by at most ``2 eps w``; each side's product adds
half an ulp, so the angles differ by at most ``3 eps t``; each ``sin``/``cos`` is
within half an ulp of its own angle's value, adding ``eps``. So
``|real - emulated| <= (3 t + 1) eps``; the test asserts ``(4 t + 2) eps``, a third
more, because it uses the exact angle for the computed one.

The exact model: real vs ``path="exact"``
-----------------------------------------
Here the float32 argument of ``exp`` (or ``pow``) is itself a rounded number, and its
error is multiplied by the size of the argument, ``|x| = |ln w|``:

1. *The argument.* fairseq, Whisper and tensor2tensor form ``x = -i * step`` with
   ``step = ln(base) / (h - 1)``: the step rounded to float32 (and in tensor2tensor
   divided in float32), the product rounded again. At most three roundings of half an
   ulp: ``|x - ln w| <= (3/2) eps |ln w|``, so ``e**x`` is within
   ``(3/2) |ln w| eps`` of ``w``, relatively.
2. *exp* is faithful: one more ``eps`` relative. The speed is within
   ``((3/2) |ln w| + 1) eps`` of ``w``.
3. *The angle.* The position is exact (below ``2**24``), the product adds half an ulp:
   the angle is within ``((3/2) |ln w| + 3/2) eps t`` of ``t``.
4. *sin and cos* add half an ulp, and posenc's rounding of the exact value another.

So ``|real - exact| <= (((3/2) |ln w| + 3/2) t + 1) eps``. For Keras-Hub the speed is
``pow(m, e)`` with ``m = fl(1e-4)`` and ``e = fl(2k / d)``: the base's rounding shifts
``ln w = e ln m`` by at most ``e eps / 2 <= eps / 2``, the exponent's by
``|ln w| eps / 2``, and a faithful ``pow`` adds ``eps``: ``(|ln w| / 2 + 3/2) eps`` in
the speed, ``((|ln w| / 2 + 2) t + 1) eps`` in the entry. If ``pow`` is instead
``exp(e * log m)`` in float32, the rounded ``log m`` and the rounded product add
``|ln w| eps`` more: ``(((3/2) |ln w| + 2) t + 1) eps``. Keras-Hub's masks multiply by
0 and 1 and its sum adds a zero, both exact. The test asserts
``((2 |ln w| + 3) t + 2) eps`` for all of them (at base 10000, ``|ln w| <= 9.21``).
The record's ``eps_per_angle`` is the measured constant ``max(diff / (eps max(t, 1)))``
and ``eps_per_log_angle`` is ``max(diff / (eps (|ln w| + 1) max(t, 1)))``.

Two Keras-Hub float64 pipelines are not float64 throughout:

- **TensorFlow**: ``ops.cast(1 / max_wavelength, "float64")`` converts the Python float
  to a float32 tensor first, so the table is Keras-Hub's at base
  ``1 / float32(1e-4)``, computed in float64. Asserted: within the float64 models of
  posenc's tables at that base.
- **JAX**: Keras's type promotion (``keras.src.backend.common.dtypes.result_type``)
  maps float64 to float32 on every backend but TensorFlow, and Keras's ``ops.sin`` and
  ``ops.cos`` on JAX cast their argument to that type. So the float64 angles are
  rounded to float32 (half an ulp: ``eps32 t / 2``), their sines taken in float32
  (``eps32 / 2``) and stored in float64: every value is a float32 number, within
  ``(t + 1) eps32 / 2`` of the formula. Asserted: float32 values, within
  ``(t + 1) eps32`` of both posenc tables. Keras-Hub on torch calls ``torch.sin``
  directly, in float64.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from conftest import LIBRARIES, Refused, real_table, record, sinusoidal_specs

from posenc.conventions import table

EPS = {"float32": 2.0**-23, "float64": 2.0**-52}

#: Keras-Hub's float64 base on TensorFlow: 1 / max_wavelength passes through float32.
TF_FLOAT64_BASE = 1.0 / float(np.float32(1.0 / 10000.0))


def reference(convention, length, width, start, dtype, base=10000.0):
    """The formula's table by this file's own reading of it, and each entry's angle and |ln w|.

    Speeds from mpmath (30 digits), angles ``pos * w`` and their sines and cosines in
    float64, rounded to ``dtype``. Returns ``(table, angle, log_speed)``, each (L, d).
    """
    mpmath.mp.dps = 30
    half = width // 2
    if convention in ("tensor2tensor", "fairseq", "whisper"):
        denominator = max(half - 1, 1)
        pair = [mpmath.power(base, -mpmath.mpf(i) / denominator) for i in range(half)]
        speeds = pair + pair + [mpmath.mpf(0)] * (width % 2)  # sines, cosines, a zero column
        kinds = ["sin"] * half + ["cos"] * half + ["zero"] * (width % 2)
    else:  # column j of the interleaved table turns at base**(-2(j//2)/d)
        speeds = [mpmath.power(base, -mpmath.mpf(2 * (j // 2)) / width) for j in range(width)]
        kinds = ["sin" if j % 2 == 0 else "cos" for j in range(width)]
        if convention == "marian":
            order = list(range(0, width, 2)) + list(range(1, width, 2))
            speeds, kinds = [speeds[j] for j in order], [kinds[j] for j in order]
    w = np.array([float(s) for s in speeds])  # (d,)
    logs = np.array([float(-mpmath.log(s)) if s else 0.0 for s in speeds])  # (d,) |ln w|
    positions = np.arange(start, start + length, dtype=np.float64)  # (L,), exact
    angle = positions[:, None] * w[None, :]  # (L, d)
    values = np.zeros((length, width))  # (L, d)
    kinds = np.array(kinds)
    values[:, kinds == "sin"] = np.sin(angle[:, kinds == "sin"])
    values[:, kinds == "cos"] = np.cos(angle[:, kinds == "cos"])
    if convention == "fairseq" and 0 <= 1 - start < length:
        values[1 - start] = 0.0  # padding_idx 1
    log_speed = np.broadcast_to(logs[None, :], angle.shape)
    return values.astype(dtype), angle, log_speed


def _posenc(convention, spec, path, base=None):
    options = {"start": spec.start, "path": path}
    if convention == "keras-hub":
        options["dtype"] = spec.dtype
    if base is not None:
        options["base"] = base
    return table(convention, spec.length, spec.width, **options)


def compare(
    name,
    lib_version,
    case,
    real,
    ours,
    bound,
    angle,
    log_speed,
    *,
    precision,
    compared,
    kind="sinusoidal",
    convention,
    expect,
    **extra,
):
    """Record one comparison and assert it: expect "bit-identical", "model" or None."""
    real = np.asarray(real)
    assert real.shape == ours.shape, f"{name} {case}: shape {real.shape} != {ours.shape}"
    with np.errstate(invalid="ignore"):
        difference = np.abs(real.astype(np.float64) - ours.astype(np.float64))  # (L, d)
    finite = bool(np.isfinite(difference).all())
    largest = float(difference.max()) if difference.size and finite else None
    eps = EPS[precision]
    identical = bool(np.array_equal(real, ours))
    within = finite and bool(np.all(difference <= bound))
    if identical:
        verdict = "bit-identical"
    elif within and expect != "bit-identical":
        verdict = f"within the {precision} model"
    else:
        verdict = "differs"
    if expect is None and not identical:
        verdict = "recorded only: " + extra.pop("reason")
    extra.pop("reason", None)
    scale = eps * np.maximum(angle, 1.0)  # (L, d)
    measured = {}
    if difference.size and finite:
        measured["eps_per_angle"] = float((difference / scale).max())
        measured["eps_per_log_angle"] = float((difference / (scale * (log_speed + 1))).max())
    record(
        library=name,
        version=lib_version,
        kind=kind,
        case=case,
        convention=convention,
        compared=compared,
        dtype=str(real.dtype),
        largest_difference=largest,
        verdict=verdict,
        **measured,
        **extra,
    )
    if expect == "bit-identical":
        assert identical, f"{name} {case}: not bit-identical, largest difference {largest}"
    elif expect == "model":
        assert finite, f"{name} {case}: not finite"
        worst = np.unravel_index(np.argmax(difference - bound), difference.shape)
        assert within, (
            f"{name} {case}: {compared}: difference {difference[worst]:.3g} at {worst} "
            f"exceeds the {precision} model's {bound[worst]:.3g}"
        )


def emulation_bound(angle, eps):
    return (4.0 * angle + 2.0) * eps


def exact_bound(angle, log_speed, eps):
    return ((2.0 * log_speed + 3.0) * angle + 2.0) * eps


def check_table(name, lib_version, spec, real, *, kind="sinusoidal", case=None):
    """Compare one real table with both of posenc's tables, by its library's pipeline."""
    lib = LIBRARIES[name]
    convention = lib.convention
    case = case or spec.key + (", padding_idx 1" if lib.family == "fairseq" else "")
    out = "float64" if spec.dtype == "float64" else "float32"
    keras64 = lib.family == "keras" and spec.dtype == "float64"
    base = TF_FLOAT64_BASE if keras64 and lib.backend == "tensorflow" else 10000.0
    ref, angle, log_speed = reference(convention, spec.length, spec.width, spec.start, out, base)
    exact = _posenc(convention, spec, "exact", base if base != 10000.0 else None)
    # posenc's exact table against this file's reference: one rounding apart at most.
    slack = EPS[out] * np.abs(ref.astype(np.float64)) + (angle + 2.0) * EPS["float64"]
    assert np.all(np.abs(exact.astype(np.float64) - ref) <= slack), (
        f"{name} {spec.key}: posenc's path='exact' is not the formula rounded once"
    )
    emulated = _posenc(convention, spec, "emulated", base if base != 10000.0 else None)
    at = "" if base == 10000.0 else " at base 1/float32(1e-4)"
    what = {
        "emulated": f"posenc's emulation (path='emulated'){at}",
        "exact": f"the exact formula rounded once (path='exact'){at}",
    }
    common = {"kind": kind, "convention": convention}
    if lib.family == "float64":  # float64 angles and sines, rounded once to float32
        compare(
            name,
            lib_version,
            case + ": emulated",
            real,
            emulated,
            0.0,
            angle,
            log_speed,
            precision="float32",
            compared=what["emulated"],
            expect="bit-identical",
            **common,
        )
        bound = exact_bound(angle, log_speed, EPS["float64"]) + EPS["float32"] / 2
        compare(
            name,
            lib_version,
            case + ": exact",
            real,
            exact,
            bound,
            angle,
            log_speed,
            precision="float64",
            compared=what["exact"],
            expect="model",
            **common,
        )
        return
    if keras64 and lib.backend == "jax":
        assert np.array_equal(real.astype(np.float32).astype(np.float64), real), (
            f"{name} {spec.key}: the float64 table should hold float32 values on JAX"
        )
        bound = (angle + 1.0) * EPS["float32"]
        for path, ours in (("emulated", emulated), ("exact", exact)):
            compare(
                name,
                lib_version,
                f"{case}: {path}",
                real,
                ours,
                bound,
                angle,
                log_speed,
                precision="float32",
                compared=what[path] + ", float32 sin and cos",
                expect="model",
                float32_values=True,
                **common,
            )
        return
    precision = out
    eps = EPS[precision]
    compare(
        name,
        lib_version,
        case + ": emulated",
        real,
        emulated,
        emulation_bound(angle, eps),
        angle,
        log_speed,
        precision=precision,
        compared=what["emulated"],
        expect="model",
        **common,
    )
    compare(
        name,
        lib_version,
        case + ": exact",
        real,
        exact,
        exact_bound(angle, log_speed, eps),
        angle,
        log_speed,
        precision=precision,
        compared=what["exact"],
        expect="model",
        **common,
    )
    if keras64 and lib.backend == "tensorflow":  # what posenc's default base gives
        default = _posenc(convention, spec, "emulated")
        compare(
            name,
            lib_version,
            case + ": emulated at base 10000",
            real,
            default,
            emulation_bound(angle, eps),
            angle,
            log_speed,
            precision=precision,
            compared="posenc's emulation (path='emulated') at base 10000",
            expect=None,
            reason="on TensorFlow 1/max_wavelength goes through float32",
            **common,
        )


def _params():
    for name, lib in LIBRARIES.items():
        for spec in sinusoidal_specs(lib):
            yield pytest.param(name, spec, id=f"{name}-{spec.key}".replace(" ", "_"))


@pytest.mark.parametrize(("name", "spec"), list(_params()))
def test_sinusoidal(real, name, spec):
    got = real_table(real, name, spec, "sinusoidal")
    assert not isinstance(got, Refused), f"{name} refused {spec.key}: {got}"
    assert str(got.dtype) == spec.dtype, f"{name} {spec.key}: dtype {got.dtype}"
    check_table(name, real.version(name), spec, got)


# --------------------------------------------------------------------------------------
# Code that is not a library.


def test_pytorch_tutorial():
    reason = (
        "the PyTorch tutorial's PositionalEncoding is code in a tutorial, not in any package: "
        "there is nothing to call, and copying it here is not allowed"
    )
    for kind in ("sinusoidal", "refusal", "identify"):
        record(
            library="pytorch-tutorial",
            version="none",
            kind=kind,
            case="all",
            convention="pytorch-tutorial",
            compared="nothing",
            dtype="float32",
            largest_difference=None,
            verdict="not run: " + reason,
        )
    pytest.skip(reason)
