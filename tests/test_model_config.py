"""posenc.model_config.read_model and ``posenc config explain``: a model, layer by layer.

The expected answers come from the published configs themselves (data/configs, whose
README names the source of every value) read by the rules the families' code states
(the Transformers file each test names), and from closed forms computed here with
mpmath: never from an earlier answer of posenc. ``make conformance`` checks the same
readings against each family's own rotary module (conformance/test_zoo.py).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest

from posenc.cli import main
from posenc.layouts import mrope_axes
from posenc.model_config import read_config, read_model

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"


def raw(name: str) -> dict:
    config = json.loads((CONFIGS / name).read_text())
    return config.get("text_config", config)


def rotating(reading) -> list[int]:
    return sorted(i for k in reading.kinds if k.rotates for i in k.layers)


def codes(reading) -> set[str]:
    return {c.code for c in reading.cautions}


# --------------------------------------------------------------------------------------
# Real configs of 2025-2026 models.


def test_gemma4_global_layers_are_proportional_over_their_own_head():
    # Gemma 4: every 6th layer global, proportional rotary over its 512-wide head
    # (global_head_dim), a quarter of the pairs turning; the sliding layers default rotary
    # over 256 (models/gemma4/configuration_gemma4.py, modeling_rope_utils.py).
    config = raw("gemma-4-31b.json")
    reading = read_model(CONFIGS / "gemma-4-31b.json")
    full, sliding = reading.kind("full_attention"), reading.kind("sliding_attention")
    types = config["layer_types"]
    assert full.layers == tuple(i for i, t in enumerate(types) if t == "full_attention")
    assert (full.rope.scheme, full.rope.head_dim, full.rotary_dim) == ("proportional", 512, 128)
    assert (sliding.rope.scheme, sliding.rope.head_dim, sliding.rotary_dim) == (
        "default",
        256,
        256,
    )
    turning = full.inv_freq[full.inv_freq > 0]
    with mpmath.workdps(30):
        slowest = 2 * mpmath.pi * mpmath.mpf(10) ** (6 * mpmath.mpf(126) / 512)
    assert 2 * math.pi / turning[-1] == pytest.approx(float(slowest), rel=1e-12)
    assert np.count_nonzero(full.inv_freq == 0) == 192
    assert "proportional" in codes(reading)


def test_llama4_rotates_three_layers_in_four_and_warms_the_others():
    # Llama 4 Scout publishes no_rope_layers: []: Transformers then builds it from
    # no_rope_layer_interval 4 (1 = rotary), and scales the queries of the other layers.
    reading = read_model(CONFIGS / "llama-4-scout-17b-16e.json")
    count = raw("llama-4-scout-17b-16e.json")["num_hidden_layers"]
    assert rotating(reading) == [i for i in range(count) if (i + 1) % 4]
    still = [k for k in reading.kinds if not k.rotates]
    (temperature,) = still[0].temperatures
    factors = temperature.on_logits([0, 8190, 8191, 1_048_575])
    assert factors.tolist() == pytest.approx(
        [1, 1, 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(129)]
    )
    rope = reading.kind().rope  # one rotary scheme: llama3 with equal band factors, a step
    assert (rope.scheme, rope.params["factor"], reading.kind().pairing) == (
        "llama3",
        16.0,
        "interleaved",
    )
    assert {"llama4_temperature", "llama3_key"} <= codes(reading)


def test_smollm3_reads_its_own_list():
    flags = raw("smollm3-3b.json")["no_rope_layers"]
    reading = read_model(CONFIGS / "smollm3-3b.json")
    assert rotating(reading) == [i for i, f in enumerate(flags) if f == 1]
    assert "no_rope_layers" in codes(reading)


def test_gemma3_scales_its_global_layers_only():
    # Gemma 3's config class updates the full_attention entry with rope_scaling and
    # gives the sliding layers rope_local_base_freq (models/gemma3/configuration_gemma3.py).
    reading = read_model(CONFIGS / "gemma-3-27b-it.json")
    full, sliding = reading.kind("full_attention"), reading.kind("sliding_attention")
    count = raw("gemma-3-27b-it.json")["num_hidden_layers"]
    assert full.layers == tuple(i for i in range(count) if (i + 1) % 6 == 0)
    assert (full.rope.scheme, full.rope.params["factor"], full.rope.base) == ("linear", 8.0, 1e6)
    assert (sliding.rope.scheme, sliding.rope.base) == ("default", 1e4)
    assert "per_layer_type" in codes(reading)


def test_command_r7b_rotates_its_sliding_layers_only():
    # Cohere 2 without layer_types: every sliding_window_pattern-th layer is global, the
    # rest sliding (models/cohere2/configuration_cohere2.py), and only sliding layers
    # rotate (modeling_cohere2.py: `if self.sliding_window is not None`).
    config = raw("command-r7b-12-2024.json")
    reading = read_model(CONFIGS / "command-r7b-12-2024.json")
    pattern = config["sliding_window_pattern"]
    sliding = [i for i in range(config["num_hidden_layers"]) if (i + 1) % pattern]
    assert rotating(reading) == sliding
    assert {k.pairing for k in reading.kinds if k.rotates} == {"interleaved"}


def test_qwen35_linear_attention_layers_have_no_rotary():
    config = raw("qwen3.5-9b.json")
    reading = read_model(CONFIGS / "qwen3.5-9b.json")
    full = [i for i, t in enumerate(config["layer_types"]) if t == "full_attention"]
    assert rotating(reading) == full
    kind = reading.kind("full_attention")
    assert (kind.rope.head_dim, kind.rotary_dim) == (256, 64)
    assert kind.mrope == ("interleaved_thw", (11, 11, 10))


def test_qwen3_vl_interleaves_its_three_axes():
    reading = read_model(CONFIGS / "qwen3-vl-8b-instruct.json")
    kind = reading.kind()
    assert kind.mrope == ("interleaved_thw", (24, 20, 20))
    axes = mrope_axes(*kind.mrope)
    assert np.bincount(axes).tolist() == [24, 20, 20]
    assert axes[:6].tolist() == [0, 1, 2, 0, 1, 2]  # every axis gets fast pairs


@pytest.mark.parametrize(
    ("name", "rotated", "pairing", "scheme"),
    [
        ("deepseek-v3.2-exp.json", 64, "interleaved", "yarn"),  # MLA: qk_rope_head_dim
        ("kimi-k2.5.json", 64, "interleaved", "yarn"),  # DeepSeek-V3's architecture
        ("glm-4.5-air.json", 64, "half", "default"),  # 128 wide, partial 0.5
        ("phi-4-mini-instruct.json", 96, "half", "longrope"),  # 128 wide, partial 0.75
        ("gpt-oss-120b.json", 64, "half", "yarn"),
        ("ministral-3-3b-reasoning-2512.json", 128, "half", "yarn"),
    ],
)
def test_widths_pairings_and_schemes(name, rotated, pairing, scheme):
    kinds = [k for k in read_model(CONFIGS / name).kinds if k.rotates]
    assert {(k.rotary_dim, k.pairing, k.rope.scheme) for k in kinds} == {
        (rotated, pairing, scheme)
    }


def test_two_pairings_in_deepseek_v32():
    reading = read_model(CONFIGS / "deepseek-v3.2-exp.json")
    (caution,) = [c for c in reading.cautions if c.code == "two_pairings"]
    assert "half pairing" in caution.message and "interleaved pairing" in caution.message


# Transformers 5.24's code, read by hand (models/<family>/modeling_<family>.py): the
# rotary call of the attention and of the indexer. No config key is read for either.
INDEXER_FAMILIES = {
    "deepseek_v32": ("interleaved", "half"),  # DeepseekV32Attention, DeepseekV32Indexer
    "axk2": ("interleaved", "half"),  # AXK2Attention, AXK2Indexer ("NON-interleaved")
    "glm_moe_dsa": ("interleaved", "interleaved"),  # both apply_rotary_pos_emb_interleave
    "hy_v4": ("half", "half"),  # both apply_rotary_pos_emb
}


@pytest.mark.parametrize("model_type", INDEXER_FAMILIES)
@pytest.mark.parametrize(
    "keys", [{}, {"rope_interleave": False}, {"indexer_rope_interleave": True}]
)
def test_the_indexer_pairing_follows_the_family_code(model_type, keys):
    attention, indexer = INDEXER_FAMILIES[model_type]
    config = {**raw("deepseek-v3.2-exp.json"), "model_type": model_type, **keys}
    reading = read_model(config)
    assert {k.pairing for k in reading.kinds if k.rotates} == {attention}
    found = [c.message for c in reading.cautions if c.code == "two_pairings"]
    if attention == indexer:
        assert found == []
    else:
        (message,) = found
        assert f"with the {indexer} pairing" in message
        assert f"uses the {attention} pairing" in message


def test_every_measured_indexer_pairing_is_the_family_one():
    # The conformance run (Transformers 5.24) traces the indexer's apply call and
    # measures its pairing on unit vectors: "<function> in <module>.indexer: <pairing>".
    from posenc.families import family

    record = json.loads((CONFIGS.parents[1] / "conformance" / "record.json").read_text())
    measured = {}
    for case in record["cases"]:
        for found in case.get("measured") or []:
            for line in found.get("also", []) if isinstance(found, dict) else []:
                where, _, label = line.rpartition(": ")
                if where.endswith(".indexer"):
                    measured.setdefault(case["model_type"], set()).add(label)
    assert {"deepseek_v32", "axk2", "glm_moe_dsa", "hy_v4"} <= set(measured)
    assert {t: {family(t).indexer} for t in measured} == measured


def test_an_unread_indexer_is_said_to_be_unknown():
    config = {**raw("deepseek-v3.2-exp.json"), "model_type": "deepseek_v4_unknown"}
    cautions = read_model(config).cautions
    assert [c.code for c in cautions if "indexer" in c.message] == ["indexer_pairing_unknown"]
    (message,) = [c.message for c in cautions if c.code == "indexer_pairing_unknown"]
    assert "does not know" in message


# The indexers posenc had not recorded (Transformers 5.24): MiniMaxM3VLIndexer and
# Qwen4ExpTextQSAIndexer call the rotate_half apply_rotary_pos_emb, as their attention
# does; Glm5NextTextIndexer makes no rotary call. Qwen4-Exp names the width
# indexer_head_dim, MiniMax-M3-VL's config may save index_head_dim as sparse_index_dim.
@pytest.mark.parametrize(
    "model_type, indexer",
    [
        ("minimax_m3_vl", "half"),
        ("minimax_m3_vl_text", "half"),
        ("qwen4_exp", "half"),
        ("qwen4_exp_text", "half"),
        ("glm5_next", "none"),
        ("glm5_next_text", "none"),
    ],
)
@pytest.mark.parametrize("key", ["index_head_dim", "indexer_head_dim", "sparse_index_dim"])
def test_the_late_indexer_families_need_no_caution(model_type, indexer, key):
    from posenc.families import family

    assert family(model_type).indexer == indexer
    config = {**BASE, "model_type": model_type, key: 128}
    assert [c.code for c in read_model(config).cautions if "indexer" in c.message] == []


@pytest.mark.parametrize("key", ["index_head_dim", "indexer_head_dim", "sparse_index_dim"])
def test_every_indexer_width_key_is_read(key):
    # An unrecorded family with each key gets the unknown caution; a two-pairing one
    # (DeepSeek-V3.2) the two_pairings caution whichever key names the width.
    config = {**BASE, "model_type": "an_unread_dsa", key: 128}
    assert "indexer_pairing_unknown" in codes(read_model(config))
    config = {**raw("deepseek-v3.2-exp.json"), key: 128}
    config.pop("index_head_dim") if key != "index_head_dim" else None
    assert "two_pairings" in codes(read_model(config))


def test_ministral3_scales_every_query():
    reading = read_model(CONFIGS / "ministral-3-3b-reasoning-2512.json")
    params = raw("ministral-3-3b-reasoning-2512.json")["rope_parameters"]
    beta, length = params["llama_4_scaling_beta"], params["original_max_position_embeddings"]
    (query,) = [t for t in reading.kind().temperatures if t.rule == "llama4_beta"]
    factors = query.on_logits([length - 1, length, 3 * length])
    assert factors.tolist() == pytest.approx([1, 1 + beta * math.log(2), 1 + beta * math.log(4)])


def _softmax(reading) -> list[float]:
    return [
        t.params["factor"] for k in reading.kinds for t in k.temperatures if t.rule == "softmax"
    ]


@pytest.mark.parametrize("name", ["deepseek-v3.json", "deepseek-v3.2-exp.json"])
def test_deepseek_scales_its_softmax(name):
    # modeling_deepseek_v3.py, yarn_apply_mscale: scale * (0.1 mscale_all_dim ln s + 1)^2.
    scaling = raw(name)["rope_scaling"]
    with mpmath.workdps(30):
        want = (1 + scaling["mscale_all_dim"] * mpmath.log(scaling["factor"]) / 10) ** 2
    reading = read_model(CONFIGS / name)
    factors = _softmax(reading)
    assert factors and all(f == pytest.approx(float(want), rel=1e-15) for f in factors)
    assert reading.kinds[0].rope.inv_freq()[1] == 1.0  # mscale == mscale_all_dim: caches at 1


def test_no_softmax_factor_without_scaling_mscale_all_dim_or_the_family():
    config = raw("deepseek-v3.json")
    del config["rope_scaling"]
    assert _softmax(read_model(config)) == []
    config = raw("deepseek-v3.json")
    config["rope_scaling"] = {**config["rope_scaling"], "mscale_all_dim": 0}
    assert _softmax(read_model(config)) == []
    # An ordinary decoder's attention never reads mscale_all_dim.
    llama = raw("llama-2-7b.json")
    llama["rope_scaling"] = {**raw("deepseek-v3.json")["rope_scaling"]}
    assert _softmax(read_model(llama)) == []


# Transformers 5.24's config classes: Qwen2VLTextConfig.default_theta = 1e6,
# ModernBertConfig.default_theta = {"global": 160000.0, "local": 10000.0},
# BailingHybridConfig's rope_theta field 6e6; LlamaConfig sets none (1e4).
@pytest.mark.parametrize(
    ("config", "want"),
    [
        ({"model_type": "qwen2_vl_text", "hidden_size": 1536, "num_attention_heads": 12}, 1e6),
        ({"model_type": "bailing_hybrid", "head_dim": 128}, 6e6),
        ({"model_type": "llama", "head_dim": 128}, 1e4),
    ],
)
def test_a_config_without_rope_theta_gets_its_class_default(config, want):
    reading = read_model(config)
    assert [k.rope.base for k in reading.kinds] == [want]
    source = "class default" if want != 1e4 else "unset"
    assert any(f"rope_theta not set: {want:g}" in n and source in n for n in reading.notes)


def test_a_class_default_per_layer_type():
    config = {
        "model_type": "modernbert",
        "hidden_size": 768,
        "num_attention_heads": 12,
        "layer_types": ["full_attention", "sliding_attention", "sliding_attention"],
    }
    bases = {k.name: k.rope.base for k in read_model(config).kinds}
    assert bases == {"full_attention": 160_000.0, "sliding_attention": 10_000.0}


# Transformers 5.24's config classes: Gemma2Config head_dim=256, sliding_window=4096;
# GPTNeoXConfig partial_rotary_factor 0.25; GPTJConfig rotary_dim=64.
def test_keys_left_out_get_the_class_constants():
    gemma2 = {
        "model_type": "gemma2",
        "hidden_size": 2304,
        "num_attention_heads": 8,
        "num_hidden_layers": 4,
        "layer_types": ["sliding_attention", "full_attention"] * 2,
        "rope_theta": 10000.0,
    }
    reading = read_model(gemma2)
    assert {k.rope.head_dim for k in reading.kinds} == {256}  # not 2304 / 8 = 288
    window = {k.name: k.sliding_window for k in reading.kinds}
    assert window["sliding_attention"] == 4096
    assert any("sliding_window not set: 4096" in n for n in reading.notes)
    neox = {"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64}
    assert read_model(neox).kinds[0].rotary_dim == 24  # 96 * 0.25
    gptj = {"model_type": "gptj", "n_embd": 4096, "n_head": 16}
    assert read_model(gptj).kinds[0].rotary_dim == 64


def test_a_key_saved_as_null_is_not_replaced():
    gemma2 = {
        "model_type": "gemma2",
        "hidden_size": 2304,
        "num_attention_heads": 8,
        "head_dim": 256,
        "sliding_window": None,
        "num_hidden_layers": 2,
        "layer_types": ["sliding_attention", "full_attention"],
    }
    window = {k.name: k.sliding_window for k in read_model(gemma2).kinds}
    assert window["sliding_attention"] is None


# --------------------------------------------------------------------------------------
# Precedence, widths and families.


def test_rope_scaling_wins_and_the_base_of_rope_parameters_is_dropped():
    # Transformers 5.24 builds YaRN over base 1e4 from this config (FACTS-zoo section 1).
    config = {
        "model_type": "llama",
        "head_dim": 128,
        "max_position_embeddings": 131072,
        "rope_parameters": {"rope_type": "default", "rope_theta": 5e5},
        "rope_scaling": {
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 32768,
        },
    }
    reading = read_model(config)
    assert (reading.form, reading.kind().rope.scheme, reading.kind().rope.base) == (
        "both",
        "yarn",
        1e4,
    )
    (caution,) = [c for c in reading.cautions if c.code == "precedence"]
    assert "the base 500000 that rope_parameters held is dropped" in caution.message
    assert read_config(config).base == 1e4
    # With the base at the top level (the 4.x form) it is kept, and nothing is dropped.
    kept = read_model({**config, "rope_theta": 5e5})
    assert kept.kind().rope.base == 5e5
    (caution,) = [c for c in kept.cautions if c.code == "precedence"]
    assert "dropped" not in caution.message


def test_mla_with_a_partial_factor_rotates_part_of_head_dim():
    # DeepSeek-V4 and Mistral 4 hold head_dim, partial_rotary_factor and
    # qk_rope_head_dim; Transformers rotates int(head_dim * partial).
    config = {"model_type": "mistral4", "head_dim": 128, "partial_rotary_factor": 0.5,
              "qk_rope_head_dim": 64, "rope_theta": 1e4}  # fmt: skip
    assert read_model(config).kind().rotary_dim == 64
    deepseek = {"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "hidden_size": 7168,
                "num_attention_heads": 128, "rope_theta": 1e4}  # fmt: skip
    assert read_model(deepseek).kind().rotary_dim == 64


@pytest.mark.parametrize(
    ("config", "width"),
    [
        (
            {
                "model_type": "jetmoe",
                "kv_channels": 128,
                "hidden_size": 2048,
                "num_attention_heads": 32,
            },
            128,
        ),
        ({"model_type": "dbrx", "d_model": 6144, "n_heads": 48}, 128),
        ({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32}, 128),
    ],
)
def test_width_keys_of_each_family(config, width):
    assert read_model(config).kind().rope.head_dim == width


def test_rotary_dim_counts_only_where_the_family_reads_it():
    # GPT-J (modeling_gptj.py) rotates the first rotary_dim coordinates, pairs 2i, 2i + 1;
    # MiniMax-M2's config class turns rotary_dim into partial_rotary_factor.
    gptj = {"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64}
    kind = read_model(gptj).kind()
    assert (kind.rope.head_dim, kind.rotary_dim, kind.pairing) == (256, 64, "interleaved")
    m2 = {"model_type": "minimax_m2", "head_dim": 128, "rotary_dim": 64,
          "num_attention_heads": 48, "hidden_size": 3072, "rope_theta": 5e6}  # fmt: skip
    assert read_model(m2).kind().rotary_dim == 64
    # MiniMax-M3-VL's config declares rotary_dim 64; its rotary module rotates the whole
    # head (modeling_minimax_m3_vl.py reads partial_rotary_factor only), and posenc says so.
    m3 = {**m2, "model_type": "minimax_m3_vl_text"}
    reading = read_model(m3)
    assert reading.kind().rotary_dim == 128
    assert any("does not read it" in note for note in reading.kind().notes + reading.notes)


def test_a_part_without_rotary_settings_takes_the_models_family():
    # SAM 3's text part is a CLIP text model: a width, no rotary settings; the model's
    # family (sam3) builds no rotary from it, so no layer of it rotates.
    sam3 = {"model_type": "sam3",
            "text_config": {"model_type": "clip_text_model", "hidden_size": 1024,
                            "num_attention_heads": 16, "num_hidden_layers": 24}}  # fmt: skip
    assert rotating(read_model(sam3)) == []
    # A part whose own type posenc knows keeps its family: Unlimited-OCR's CLIP-like
    # encoder (unlimited_ocr_vision_encoder) builds no rotary either.
    ocr = {"model_type": "unlimited_ocr_vision",
           "encoder_config": {"model_type": "unlimited_ocr_vision_encoder", "hidden_size": 1024,
                              "num_attention_heads": 16, "num_hidden_layers": 24}}  # fmt: skip
    assert rotating(read_model(ocr)) == []


def test_a_config_without_a_rotary_block_gets_its_class_block():
    # ApertusConfig.__post_init__ (Transformers 5.24): with no rope_parameters it builds
    # llama3 scaling, factor 8 over 8192 positions, low and high frequency factors 1 and 4,
    # base 1.2e7, and keeps that base even when the config has a rope_theta at the top.
    bare = {"model_type": "apertus", "hidden_size": 4096, "num_attention_heads": 32,
            "num_hidden_layers": 2, "rope_theta": 5e5}  # fmt: skip
    rope = read_model(bare).kind().rope
    assert (rope.scheme, rope.base) == ("llama3", 12_000_000.0)
    assert rope.params == {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                           "original_max_position_embeddings": 8192}  # fmt: skip
    assert any("rope_parameters not set" in n for n in read_model(bare).notes)
    # A block the config states, even an unscaled one, is read as stated.
    stated = {**bare, "rope_parameters": {"rope_type": "default", "rope_theta": 5e5}}
    assert read_model(stated).kind().rope.scheme == "default"
    # GptOssConfig's YaRN block takes the base from the top of the config when it is there.
    oss = {"model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64,
           "head_dim": 64, "num_hidden_layers": 2, "rope_theta": 5e5}  # fmt: skip
    rope = read_model(oss).kinds[0].rope
    assert (rope.scheme, rope.base, rope.params["factor"]) == ("yarn", 5e5, 32.0)
    # Gemma4TextConfig: proportional rotary over a quarter of the pairs on the global layers.
    gemma = {"model_type": "gemma4_text", "hidden_size": 2560, "num_attention_heads": 8,
             "head_dim": 256, "num_hidden_layers": 2,
             "layer_types": ["sliding_attention", "full_attention"]}  # fmt: skip
    glob = read_model(gemma).kind("full_attention").rope
    assert (glob.scheme, glob.base) == ("proportional", 1e6)


def test_gpt_neox_reads_rotary_emb_base_and_rotary_pct_only():
    # GPTNeoXConfig.convert_rope_params_to_dict (Transformers 5.24) fills the base from
    # rotary_emb_base (else 10,000) and the share from rotary_pct (else 0.25); a top-level
    # rope_theta or partial_rotary_factor never reaches the model.
    neox = {"model_type": "gpt_neox", "hidden_size": 1024, "num_attention_heads": 8,
            "num_hidden_layers": 2, "rope_theta": 5e5, "partial_rotary_factor": 0.5}  # fmt: skip
    kind = read_model(neox).kind()
    assert (kind.rope.base, kind.rotary_dim) == (10_000.0, 32)
    kind = read_model({**neox, "rotary_emb_base": 777.0, "rotary_pct": 0.75}).kind()
    assert (kind.rope.base, kind.rotary_dim) == (777.0, 96)
    # Another family reads both at the top.
    kind = read_model({**neox, "model_type": "llama"}).kind()
    assert (kind.rope.base, kind.rotary_dim) == (5e5, 64)


def test_a_family_posenc_does_not_model_is_refused_with_why():
    with pytest.raises(
        ValueError, match="posenc does not read dinov3_vit's position scheme: a vision"
    ):
        read_model({"model_type": "dinov3_vit", "hidden_size": 768, "num_attention_heads": 12})


def test_nested_parameters_without_a_layer_type_are_refused_by_read_config():
    with pytest.raises(ValueError, match=r"per layer type \(full_attention, sliding_attention\)"):
        read_config(CONFIGS / "gemma-4-31b.json")


# --------------------------------------------------------------------------------------
# Each caution fires on a config with its problem and stays quiet on one without.

BASE = {"model_type": "llama", "head_dim": 64, "rope_theta": 1e4, "max_position_embeddings": 8192}

CAUTIONS = {
    "v5_form": (
        {**BASE, "rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e4}},
        {**BASE, "rope_scaling": {"type": "linear", "factor": 2.0}},
    ),
    "llama3_key": (
        {**BASE, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                  "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}},  # noqa: E501
        {**BASE, "rope_scaling": {"type": "llama3", "rope_type": "llama3", "factor": 8.0,
                                  "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                  "original_max_position_embeddings": 8192}},
    ),
    "partial": ({**BASE, "partial_rotary_factor": 0.5}, BASE),
    "static_yarn": (
        {**BASE, "rope_scaling": {"type": "yarn", "factor": 4.0}},
        {**BASE, "rope_scaling": {"type": "linear", "factor": 4.0}},
    ),
    "longrope_switch": (
        {**BASE, "model_type": "phi3", "original_max_position_embeddings": 4096,
         "rope_scaling": {"type": "longrope", "short_factor": [1.0] * 32, "long_factor": [2.0] * 32}},  # noqa: E501
        BASE,
    ),
    "no_rope_layers": (
        {**BASE, "model_type": "smollm3", "num_hidden_layers": 4, "no_rope_layers": [1, 1, 1, 0]},
        {**BASE, "model_type": "smollm3", "num_hidden_layers": 4, "no_rope_layers": []},
    ),
    "two_pairings": (
        {**BASE, "model_type": "deepseek_v32", "qk_rope_head_dim": 64, "index_head_dim": 128},
        {**BASE, "model_type": "deepseek_v3", "qk_rope_head_dim": 64},
    ),
    "indexer_pairing_unknown": (
        {**BASE, "model_type": "an_unread_dsa", "index_head_dim": 128},
        {**BASE, "model_type": "glm5_next_text", "index_head_dim": 128},
    ),
    "precedence": (
        {**BASE, "rope_parameters": {"rope_theta": 5e5}, "rope_scaling": {"type": "linear", "factor": 2.0}},  # noqa: E501
        {**BASE, "rope_scaling": {"type": "linear", "factor": 2.0}},
    ),
    # Gemma2Config alternates sliding and global layers when layer_types is not set.
    "layer_types_rule": (
        {**BASE, "model_type": "gemma2", "num_hidden_layers": 4},
        {**BASE, "model_type": "gemma2", "num_hidden_layers": 4, "layer_types": ["sliding_attention", "full_attention"] * 2},  # noqa: E501
    ),
    # Ministral3Config builds its YaRN block from max_position_embeddings when the config
    # has none; a config that states one is read as stated.
    "rope_parameters_rule": (
        {**BASE, "model_type": "ministral3", "num_hidden_layers": 4},
        {**BASE, "model_type": "ministral3", "num_hidden_layers": 4, "rope_parameters": {"rope_type": "default", "rope_theta": 1e6}},  # noqa: E501
    ),
}  # fmt: skip


@pytest.mark.parametrize("code", CAUTIONS)
def test_each_caution_fires_on_its_problem_only(code):
    fires, quiet = CAUTIONS[code]
    assert code in codes(read_model(fires))
    assert code not in codes(read_model(quiet))


def test_the_sections_caution_fires_when_they_do_not_cover_the_head():
    # GLM-4V's code default sections [8, 12, 12] cover 32 pairs; a 128-wide head rotated
    # in full has 64, and Transformers' split of the cache fails.
    fires = {"model_type": "glm4v_text", "head_dim": 128, "rope_theta": 1e4}
    quiet = {**fires, "partial_rotary_factor": 0.5}
    assert "mrope_sections" in codes(read_model(fires))
    assert "mrope_sections" not in codes(read_model(quiet))


def test_every_rule_has_a_test():
    from posenc.confusions import RULES

    tested = {*CAUTIONS, "proportional", "per_layer_type", "llama4_temperature", "mrope_sections"}
    assert set(RULES) == tested


# --------------------------------------------------------------------------------------
# The command.


def test_explain_prints_one_row_per_kind(capsys):
    assert main(["config", "explain", str(CONFIGS / "gemma-4-31b.json")]) == 0
    out = capsys.readouterr().out
    assert "full_attention     proportional  512   128" in out
    assert "sliding_attention  default       256   256" in out
    assert "[proportional]" in out and "reported in: pie-project/pie#603" in out


def test_explain_json_and_markdown(capsys):
    path = str(CONFIGS / "llama-4-scout-17b-16e.json")
    assert main(["config", "explain", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    nope = [k for k in data["kinds"] if not k["rotates"]]
    assert [len(k["layers"]) for k in nope] == [12]
    assert nope[0]["temperatures"][0]["rule"] == "llama4"
    assert main(["config", "explain", path, "--markdown"]) == 0
    out = capsys.readouterr().out
    assert (
        out.startswith("**")
        and "| layers | type | rotary |" in out
        and "**llama4_temperature**" in out
    )


def test_explain_refuses_in_one_line(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "dinov3_vit", "hidden_size": 64}))
    assert main(["config", "explain", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "posenc: error: posenc does not read dinov3_vit"
    )


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.json")), ids=lambda p: p.stem)
def test_explain_reads_every_config(capsys, path):
    assert main(["config", "explain", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kinds"] and all(k["rotary_dim"] > 0 for k in data["kinds"] if k["rotates"])


def test_the_readme_shows_what_the_command_prints(capsys, monkeypatch):
    readme = (CONFIGS.parents[1] / "README.md").read_text()
    command = "$ .venv/bin/posenc config explain data/configs/gemma-3-27b-it.json\n"
    shown = readme.split(command)[1].split("```")[0]
    monkeypatch.chdir(CONFIGS.parents[1])  # the path as the README gives it
    assert main(["config", "explain", "data/configs/gemma-3-27b-it.json"]) == 0
    assert capsys.readouterr().out == shown


def test_deepseek_v4_layers_use_the_block_their_type_names():
    # modeling_deepseek_v4.py: rope_layer_type = "main" if the layer type is
    # "sliding_attention" else "compress"; rope_parameters is keyed by those blocks.
    types = ["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"]
    config = {"model_type": "deepseek_v4", "head_dim": 512, "hidden_size": 4096,
              "num_attention_heads": 64, "num_hidden_layers": 6, "layer_types": types * 2,
              "rope_parameters": {
                  "main": {"rope_type": "default", "rope_theta": 1e4,
                           "partial_rotary_factor": 0.125},
                  "compress": {"rope_type": "default", "rope_theta": 1.6e5,
                               "partial_rotary_factor": 0.125}}}  # fmt: skip
    kinds = {k.name: k for k in read_model(config).kinds}
    assert kinds["main"].layers == (0, 3) and kinds["main"].rope.base == 1e4
    assert kinds["compress"].layers == (1, 2, 4, 5) and kinds["compress"].rope.base == 1.6e5
    assert kinds["main"].rotary_dim == kinds["compress"].rotary_dim == 64
