"""posenc.identify_rope: which rotary scheme explains speeds, a cos/sin cache or a config.

Expected vectors come from closed forms evaluated here in mpmath (50 digits), written from
the Hugging Face definitions as FACTS-modern states them, and from posenc.rope as a second
source; configs are the real ones under data/configs, in both forms.
"""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
from _configs import CONFIGS, ONE_LADDER
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc import rope
from posenc.identify_rope import identify_cache, identify_config, identify_inv_freq

mpmath.mp.dps = 50


def _ladder(dim, base):
    return [mpmath.mpf(base) ** (-mpmath.mpf(2 * i) / dim) for i in range(dim // 2)]


def mp_default(dim, base):
    return np.array([float(w) for w in _ladder(dim, base)])


def mp_linear(dim, base, s):
    return np.array([float(w / s) for w in _ladder(dim, base)])


def mp_llama3(dim, base, s, length, low_ff, high_ff):
    out = []
    for w in _ladder(dim, base):
        wave = 2 * mpmath.pi / w
        if wave < mpmath.mpf(length) / high_ff:
            out.append(w)
        elif wave > mpmath.mpf(length) / low_ff:
            out.append(w / s)
        else:
            smooth = (length / wave - low_ff) / mpmath.mpf(high_ff - low_ff)
            out.append((1 - smooth) * w / s + smooth * w)
    return np.array([float(w) for w in out])


def mp_yarn(dim, base, s, length, fast=32, slow=1):
    def corr(rotations):
        return dim * mpmath.log(length / (rotations * 2 * mpmath.pi)) / (2 * mpmath.log(base))

    low = max(int(mpmath.floor(corr(fast))), 0)
    high = min(int(mpmath.ceil(corr(slow))), dim - 1)
    out = []
    for j, w in enumerate(_ladder(dim, base)):
        ramp = min(max(mpmath.mpf(j - low) / (high - low), 0), 1)
        keep = 1 - ramp
        out.append(w / s * (1 - keep) + w * keep)
    return np.array([float(w) for w in out]), (low, high)


CASES = [
    ("default", dict(dim=128, base=10000.0), {}),
    ("default", dict(dim=64, base=1000000.0), {}),
    ("linear", dict(dim=128, base=10000.0), dict(factor=4.0)),
    ("llama3", dict(dim=128, base=500000.0), dict(factor=8.0, length=8192, lo=1.0, hi=4.0)),
    ("llama3", dict(dim=64, base=500000.0), dict(factor=32.0, length=8192, lo=1.0, hi=4.0)),
    ("yarn", dict(dim=128, base=1000000.0), dict(factor=4.0, length=32768)),
    ("yarn", dict(dim=64, base=10000.0), dict(factor=40.0, length=4096)),
]


def _mp_vector(scheme, shape, p):
    dim, base = shape["dim"], shape["base"]
    if scheme == "default":
        return mp_default(dim, base)
    if scheme == "linear":
        return mp_linear(dim, base, p["factor"])
    if scheme == "llama3":
        return mp_llama3(dim, base, p["factor"], p["length"], p["lo"], p["hi"])
    return mp_yarn(dim, base, p["factor"], p["length"])[0]


def _rope_vector(scheme, shape, p):
    kw = {}
    if "factor" in p:
        kw["factor"] = p["factor"]
    if scheme in ("llama3", "yarn"):
        kw["original_max_position_embeddings"] = p["length"]
    if scheme == "llama3":
        kw.update(low_freq_factor=p["lo"], high_freq_factor=p["hi"])
    return rope.inv_freq(scheme, shape["dim"], base=shape["base"], **kw)[0]


def _check(found, scheme, shape, p):
    assert found.exact, found.notes
    assert found.scheme == scheme
    assert found.rotary_dim == shape["dim"]
    assert found.base == pytest.approx(shape["base"], rel=1e-9)
    if "factor" in p:
        assert found.params["factor"] == pytest.approx(p["factor"], rel=1e-9)
    if scheme == "llama3":
        # identifiable: the band edges L0/low_ff and L0/high_ff
        got = found.params
        edge_lo = got["original_max_position_embeddings"] / got["low_freq_factor"]
        edge_hi = got["original_max_position_embeddings"] / got["high_freq_factor"]
        assert edge_lo == pytest.approx(p["length"] / p["lo"], rel=1e-6)
        assert edge_hi == pytest.approx(p["length"] / p["hi"], rel=1e-6)


@pytest.mark.parametrize(("scheme", "shape", "p"), CASES)
@pytest.mark.parametrize("source", ["mpmath", "posenc.rope"])
def test_every_scheme_recovered(scheme, shape, p, source):
    make = _mp_vector if source == "mpmath" else _rope_vector
    w = make(scheme, shape, p)
    _check(identify_inv_freq(w), scheme, shape, p)


@pytest.mark.parametrize(("scheme", "shape", "p"), CASES)
def test_float32_vector_recovered(scheme, shape, p):
    w = _mp_vector(scheme, shape, p).astype(np.float32)
    _check(identify_inv_freq(w), scheme, shape, p)


def test_yarn_ramp_ends_reproduced():
    w, (low, high) = mp_yarn(128, 1000000.0, 4.0, 32768)
    found = identify_inv_freq(w)
    got, _ = rope.inv_freq("yarn", 128, base=found.base, **found.params)
    share = got / mp_default(128, 1000000.0)
    blended = np.flatnonzero((share < 1 - 1e-12) & (share > 1 / 4.0 + 1e-12))
    # the ramp is 0 at pair `low` and 1 at pair `high`: strictly between them it blends
    assert blended[0] == low + 1
    assert blended[-1] == high - 1
    assert found.max_rel_error <= 1e-12


def _cache(w, positions, layout):
    cos = np.empty((positions, 2 * w.size))
    sin = np.empty_like(cos)
    for m in range(positions):
        angles = [mpmath.mpf(m) * mpmath.mpf(x) for x in w]
        c = np.array([float(mpmath.cos(a)) for a in angles])
        s = np.array([float(mpmath.sin(a)) for a in angles])
        if layout == "half":
            cos[m], sin[m] = np.concatenate([c, c]), np.concatenate([s, s])
        else:
            cos[m], sin[m] = np.repeat(c, 2), np.repeat(s, 2)
    return cos.astype(np.float32), sin.astype(np.float32)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize(("scheme", "shape", "p"), [CASES[0], CASES[2], CASES[3], CASES[5]])
def test_float32_cache_recovered(layout, scheme, shape, p):
    w = _mp_vector(scheme, shape, p)
    found_layout, found = identify_cache(*_cache(w, 4, layout))
    assert found_layout == layout
    assert found.scheme == scheme
    assert found.exact, found.notes
    if "factor" in p:
        assert found.params["factor"] == pytest.approx(p["factor"], rel=1e-6)


def _other_form(config: dict) -> dict:
    """The same config in the other form: rope_scaling + rope_theta <-> rope_parameters."""
    config = dict(config)
    if "rope_parameters" in config:
        params = dict(config.pop("rope_parameters"))
        config["rope_theta"] = params.pop("rope_theta")
        if params.get("rope_type") != "default":
            config["rope_scaling"] = params
        return config
    scaling = dict(config.pop("rope_scaling", None) or {"rope_type": "default"})
    scaling["rope_type"] = scaling.pop("type", None) or scaling["rope_type"]
    scaling["rope_theta"] = config.pop("rope_theta", 10000.0)
    config["rope_parameters"] = scaling
    return config


def _layer(path):
    return {"layer_type": "full_attention"} if "gemma" in path.name else {}


def test_the_named_configs_are_all_there():
    assert len(ONE_LADDER) == 12


@pytest.mark.parametrize("path", ONE_LADDER, ids=lambda p: p.stem)
def test_real_configs_named_in_both_forms(path):
    config = json.loads(path.read_text())
    expected = {"llama-2-7b-dynamic-2": "dynamic", "phi-3-mini-128k-shape": "longrope"}
    expected_scheme = expected.get(path.stem)
    found = identify_config(path, **_layer(path))
    if expected_scheme:
        assert found.scheme == expected_scheme
    forms = [config]
    if "gemma" not in path.name:
        forms.append(_other_form(config))
    for form in forms:
        again = identify_config(form, **_layer(path))
        assert again.scheme == found.scheme
        assert again.base == found.base
        assert again.params == found.params
    # the speeds the config implies are named again from the vector alone
    w, _ = rope.read_config(path, **_layer(path)).inv_freq()
    from_vector = identify_inv_freq(w)
    named = {"dynamic": "default"}.get(found.scheme, found.scheme)
    assert from_vector.scheme == named
    assert from_vector.exact == (named != "longrope")


def test_config_bands_in_words():
    path = next(p for p in CONFIGS if p.stem == "llama-3.1-8b")
    found = identify_config(path)
    kinds = rope.llama3_bands(128)
    high, blend, low = (int((kinds == k).sum()) for k in ("high", "blend", "low"))
    assert f"{high} pairs unchanged, {blend} blended, {low} divided by s" in found.bands


def test_near_miss_not_claimed_exact():
    w = mp_llama3(128, 500000.0, 8.0, 8192, 1.0, 4.0)
    w[40] *= 1 + 1e-4
    found = identify_inv_freq(w)
    assert not found.exact
    assert found.scheme == "longrope"
    assert found.params["closest"] == "llama3"
    assert found.max_rel_error >= 0.5e-4


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.ones((2, 3)), "one vector"),
        (np.array([1.0]), "at least two"),
        (np.array([1.0, np.nan]), "NaN"),
        (np.array([1.0, -0.1]), "positive"),
        (np.array([0.1, 1.0]), "fall"),
    ],
)
def test_wrong_vectors_refused(bad, message):
    with pytest.raises(ValueError, match=message):
        identify_inv_freq(bad)


def test_wrong_cache_refused():
    with pytest.raises(ValueError, match="same shape"):
        identify_cache(np.ones((4, 6)), np.ones((4, 8)))
    with pytest.raises(ValueError, match="NaN"):
        identify_cache(np.full((4, 6), np.nan), np.ones((4, 6)))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="neither"):
        identify_cache(rng.random((4, 6)), rng.random((4, 6)))


def test_cli_rotary(tmp_path, capsys):
    from posenc.cli import main

    w = mp_llama3(128, 500000.0, 8.0, 8192, 1.0, 4.0)
    np.save(tmp_path / "w.npy", w.astype(np.float32))
    assert main(["identify", str(tmp_path / "w.npy"), "--rope", "speeds", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scheme"] == "llama3"
    assert data["params"]["factor"] == pytest.approx(8.0)
    perturbed = w.copy()
    perturbed[40] *= 1 + 1e-4
    np.save(tmp_path / "p.npy", perturbed)
    assert main(["identify", str(tmp_path / "p.npy"), "--rope", "speeds"]) == 1
    assert "not identified; closest: longrope" in capsys.readouterr().out
    cos, sin = _cache(w, 3, "interleaved")
    np.savez(tmp_path / "c.npz", cos=cos, sin=sin)
    assert main(["identify", str(tmp_path / "c.npz"), "--rope", "cache", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["layout"] == "interleaved"
    path = next(p for p in CONFIGS if p.stem == "qwen2.5-7b-yarn-4")
    assert main(["identify", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scheme"] == "yarn"
    assert main(["identify", str(tmp_path / "w.npy"), "--rope", "cache"]) == 2


# --------------------------------------------------------------------------------------
# No confident answer where the data cannot decide (issue 32).


def test_a_cache_is_judged_on_every_row():
    # Rows 0 and 1 of a real ladder, the other rows random: the old reading took the
    # speeds from row 1 alone and said "default, difference 2e-16".
    w = mp_default(64, 10000.0)
    cos, sin = _cache(w, 64, "half")
    layout, found = identify_cache(cos, sin)
    assert (layout, found.verdict, found.scheme) == ("half", "identified", "default")
    assert "all 64 rows compared, in float32 storage" in found.notes
    rng = np.random.default_rng(5)
    cos[2:], sin[2:] = rng.uniform(-1, 1, cos[2:].shape), rng.uniform(-1, 1, sin[2:].shape)
    _, noisy = identify_cache(cos, sin)
    assert noisy.verdict == "not identified" and noisy.problems


def test_a_cache_with_one_bad_row_names_it():
    w = mp_llama3(128, 500000.0, 8.0, 8192, 1.0, 4.0)
    cos, sin = _cache(w, 40, "interleaved")
    assert identify_cache(cos, sin)[1].verdict == "identified"
    sin[33, 10] += 0.01  # one entry of row 33, far beyond a float32 implementation's error
    _, found = identify_cache(cos, sin)
    assert found.verdict == "not identified"
    (problem,) = found.problems
    assert problem.startswith(
        "1 of the 40 rows do not fit the llama3 ladder found; the first, row 33"
    )
    assert "column 10" in problem


def test_a_cache_scaled_by_an_attention_factor_reports_it():
    # YaRN multiplies cos and sin by 0.1 ln s + 1; the old reading dropped the factor.
    w, _ = mp_yarn(128, 1000000.0, 4.0, 32768)
    a = 0.1 * math.log(4.0) + 1  # YaRN's attention factor at s = 4
    cos, sin = _cache(w, 32, "half")
    _, found = identify_cache(a * cos.astype(np.float64), a * sin.astype(np.float64))
    assert (found.verdict, found.scheme) == ("identified", "yarn")
    assert found.params["cache_attention_factor"] == pytest.approx(a, rel=1e-6)
    assert any("the attention factor of this yarn scheme" in n for n in found.notes), found.notes
    # The default ladder scaled by 1.25: identified, and the factor is reported as not its own.
    cos, sin = _cache(mp_default(64, 10000.0), 16, "half")
    _, scaled = identify_cache(1.25 * cos.astype(np.float64), 1.25 * sin.astype(np.float64))
    assert scaled.verdict == "identified"
    assert any("scaled by 1.25" in n and "attention factor 1" in n for n in scaled.notes)


def test_two_speeds_are_any_base_and_cannot_tell():
    # (1, x) is the default ladder of width 4 with base x**-2 for every x: no evidence.
    found = identify_inv_freq(np.array([1.0, 0.3]))
    assert found.exact and found.verdict == "cannot tell", found.problems
    assert "too few pairs to decide" in found.problems[0]
    # With a round base, the same two numbers are worth naming: base 10000 costs few bits.
    assert identify_inv_freq(np.array([1.0, 0.01])).verdict == "identified"


@pytest.mark.parametrize(
    ("scaling", "problem"),
    [
        ({"rope_type": "yarn", "factor": 0.5}, "factor 0.5 is below 1"),
        (
            {"rope_type": "yarn", "factor": 8.0, "beta_fast": 1, "beta_slow": 32},
            "beta_fast 1 is not above beta_slow 32",
        ),
        ({"rope_type": "linear", "factor": 0.25}, "factor 0.25 is below 1"),
    ],
)
def test_a_config_that_breaks_its_schemes_rules_is_not_identified(
    tmp_path, capsys, scaling, problem
):
    from posenc.cli import main

    config = {
        "head_dim": 64,
        "rope_theta": 10000.0,
        "max_position_embeddings": 32768,
        "original_max_position_embeddings": 4096,
        "rope_scaling": scaling,
    }
    found = identify_config(config)
    assert found.verdict == "not identified" and not found.exact
    assert any(problem in p for p in found.problems), found.problems
    path = tmp_path / "config.JSON"  # any case of .json is a config
    path.write_text(json.dumps(config))
    assert main(["identify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "read, but not a valid scheme" in out and problem in out


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_the_real_configs_are_identified_by_the_command(capsys, path):
    from posenc.cli import main

    status = main(["identify", str(path), "--json"])
    runs = [[]]
    if status == 2:  # one scheme per layer type: each must be named
        error = capsys.readouterr().err
        assert "choose one with layer_type" in error, error
        listed = error.split("per layer type (")[1].split(")")[0].split(", ")
        runs = [["--layer-type", kind] for kind in listed]
    else:
        capsys.readouterr()
    for extra in runs:
        assert main(["identify", str(path), "--json", *extra]) == 0, (path.name, extra)
        data = json.loads(capsys.readouterr().out)
        assert data["verdict"] == "identified" and not data["problems"], (path.name, extra)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    pairs=st.integers(2, 48),
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from(["float64", "float32"]),
    low=st.sampled_from([1e-9, 1e-4, 0.1]),
)
def test_random_falling_speeds_are_never_identified(pairs, seed, dtype, low):
    # Random numbers (from a seeded generator, not Hypothesis's floats, which shrink to
    # round values such as 1 and 0.5: those are a ladder of base 4, rightly named).
    rng = np.random.default_rng(seed)
    w = np.sort(np.exp(rng.uniform(math.log(low), 0.0, pairs)))[::-1].astype(dtype)
    w = w.astype(np.float64)
    if np.any(np.diff(w) >= 0):
        return  # the cast made two of them equal: not a falling vector
    assert identify_inv_freq(w).verdict != "identified"


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    rows=st.integers(2, 24),
    pairs=st.integers(2, 16),
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["uniform", "angles", "first-rows-real"]),
)
def test_random_caches_are_never_identified(rows, pairs, seed, kind):
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        cos, sin = rng.uniform(-1, 1, (2, rows, 2 * pairs))
    else:  # pairs on the circle at random angles, or a real ladder's rows 0 and 1 then those
        a = rng.uniform(0, 2 * np.pi, (rows, pairs))
        if kind == "first-rows-real":
            a[:2] = np.arange(2)[:, None] * mp_default(2 * pairs, 10000.0)[None, :]
        cos, sin = np.concatenate([np.cos(a)] * 2, axis=1), np.concatenate([np.sin(a)] * 2, axis=1)
    try:
        _, found = identify_cache(cos, sin)
    except ValueError as error:  # not a cache in either layout: refused, as input
        assert "neither in half layout nor interleaved" in str(error)
        return
    assert found.verdict != "identified", (kind, rows, pairs, seed, found.problems)
