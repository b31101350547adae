"""posenc.identify_rope: which rotary scheme explains speeds, a cos/sin cache or a config.

Expected vectors come from closed forms evaluated here in mpmath (50 digits), written from
the Hugging Face definitions as FACTS-modern states them, and from posenc.rope as a second
source; configs are the real ones under data/configs, in both forms.
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest

from posenc import rope
from posenc.identify_rope import identify_cache, identify_config, identify_inv_freq

CONFIGS = sorted((Path(__file__).resolve().parents[1] / "data" / "configs").glob("*.json"))
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


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
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
    assert "not identified exactly" in capsys.readouterr().out
    cos, sin = _cache(w, 3, "interleaved")
    np.savez(tmp_path / "c.npz", cos=cos, sin=sin)
    assert main(["identify", str(tmp_path / "c.npz"), "--rope", "cache", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["layout"] == "interleaved"
    path = next(p for p in CONFIGS if p.stem == "qwen2.5-7b-yarn-4")
    assert main(["identify", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scheme"] == "yarn"
    assert main(["identify", str(tmp_path / "w.npy"), "--rope", "cache"]) == 2
