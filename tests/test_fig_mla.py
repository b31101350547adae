"""Tests for the MLA figure (Proposition 36): pure, and true to DeepSeek-V3's config.

The bars must hold the numbers a token leaves in one layer's cache, computed here from
the config's fields as plain JSON; the rotary part on the right must be the mean of
cos(j w_i) over DeepSeek-V3's YaRN speeds, computed here with mpmath from the YaRN rule
(the fast pairs keep b^(-2i/d), the slow ones are divided by the factor, a linear ramp
between). Determinism, untouched rcParams and the absence of pyplot are checked for every
figure at once, in test_figures.py.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc.figures import mla as module
from posenc.figures.mla import CONTENT, DEEPSEEK_V3, fig_mla_cache

CONFIG = Path(__file__).resolve().parent.parent / "data/configs/deepseek-v3.json"


def _yarn_speeds() -> list[float]:
    """DeepSeek-V3's speeds by the YaRN paper's rule, at 50 digits."""
    raw = json.loads(CONFIG.read_text())
    d, base = raw["qk_rope_head_dim"], mpmath.mpf(raw["rope_theta"])
    y = raw["rope_scaling"]
    s, length = mpmath.mpf(y["factor"]), y["original_max_position_embeddings"]
    out = []
    with mpmath.workdps(50):

        def dim(rotations):  # the pair index whose wavelength fits `rotations` turns
            return d * mpmath.log(length / (rotations * 2 * mpmath.pi)) / (2 * mpmath.log(base))

        low = max(math.floor(dim(y["beta_fast"])), 0)
        high = min(math.ceil(dim(y["beta_slow"])), d - 1)
        for i in range(d // 2):
            w = base ** (-mpmath.mpf(2 * i) / d)
            ramp = min(max((i - low) / mpmath.mpf(high - low), 0), 1)
            keep = 1 - ramp  # 1 on the fast pairs, 0 on the slow ones
            out.append(float(w / s * (1 - keep) + w * keep))
    return out


def test_page_width_white_and_alt_text():
    fig = fig_mla_cache()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_mla_cache.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_table_is_the_config():
    raw = json.loads(CONFIG.read_text())
    for key in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "kv_lora_rank"):
        assert DEEPSEEK_V3[key] == raw[key]
    assert DEEPSEEK_V3["heads"] == raw["num_attention_heads"]
    assert DEEPSEEK_V3["base"] == raw["rope_theta"]
    for key, value in DEEPSEEK_V3["yarn"].items():
        assert value == raw["rope_scaling"].get(key, raw.get(key))


def test_bars_hold_the_cache_per_token_per_layer():
    fig = fig_mla_cache()
    raw = json.loads(CONFIG.read_text())
    heads = raw["num_attention_heads"]
    key = raw["qk_nope_head_dim"] + raw["qk_rope_head_dim"]
    want = {
        "cache-multi-head attention-keys": heads * key,
        "cache-multi-head attention-values": heads * raw["v_head_dim"],
        "cache-MLA-latent $c$": raw["kv_lora_rank"],
        "cache-MLA-rotary key $k_R$": raw["qk_rope_head_dim"],
    }
    for gid, size in want.items():
        bar = _by_gid(fig, Rectangle, gid)
        assert bar.get_width() == size
    assert sum(v for k, v in want.items() if "MLA" in k) == 576  # 512 + 64, DeepSeek-V2's 9/2 d_h
    assert sum(v for k, v in want.items() if "multi-head" in k) == 40960


def test_right_panel_is_content_plus_rotary():
    fig = fig_mla_cache(offsets=100)
    speeds = _yarn_speeds()
    np.testing.assert_allclose(module.speeds(), speeds, rtol=1e-13)
    rotary_part = _by_gid(fig, Line2D, "rotary").get_xydata()
    assert rotary_part[0, 0] == 0 and rotary_part[-1, 0] == 100 and len(rotary_part) == 101
    want = [np.mean([math.cos(j * w) for w in speeds]) for j in range(101)]
    np.testing.assert_allclose(rotary_part[:, 1], want, rtol=0, atol=1e-12)
    content = _by_gid(fig, Line2D, "content").get_ydata()
    assert np.all(content == CONTENT)
    total = _by_gid(fig, Line2D, "total").get_ydata()
    np.testing.assert_allclose(total, np.array(want) + CONTENT, rtol=0, atol=1e-12)


@pytest.mark.parametrize("value", [7, 4097, 10.0, True, "100"])
def test_rejects_bad_arguments(value):
    with pytest.raises(ValueError, match="offsets must be"):
        fig_mla_cache(offsets=value)
