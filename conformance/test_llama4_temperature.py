"""Llama 4's attention temperature as posenc reads it, against Transformers' own attention.

``Llama4TextAttention`` multiplies the queries of its layers without rotary by
``1 + attn_scale * ln(floor((p + 1) / floor_scale) + 1)`` when
``attn_temperature_tuning`` is on (Proposition 34), and leaves its rotary layers alone.
posenc reads this as a temperature of rule "llama4" on the kinds of layer that do not
rotate, with ``Llama4TextConfig``'s defaults for the keys a config leaves out. Here:

- the defaults: a config without ``attn_scale``, ``floor_scale`` and
  ``attn_temperature_tuning`` is read with the values ``Llama4TextConfig()`` holds;
- the factor: a small Llama 4 layer of each kind is built and run on 40 positions with
  ``floor_scale`` 8 (five steps), its queries captured where the attention receives them;
  their ratio to the queries of the same layer with the tuning off must be posenc's
  factor at every position (1 on the rotary layer), and with the tuning off posenc must
  read no temperature.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from _zoo_enumerate import quiet, transformers

from posenc.model_config import read_model

LENGTH, FLOOR, SCALE = 40, 8, 0.25


def _small(tuning: bool):
    from transformers.models.llama4.configuration_llama4 import Llama4TextConfig

    with quiet():
        config = Llama4TextConfig(
            hidden_size=64,
            intermediate_size=64,
            intermediate_size_mlp=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            head_dim=16,
            no_rope_layers=[1, 0],
            attn_temperature_tuning=tuning,
            floor_scale=FLOOR,
            attn_scale=SCALE,
            use_qk_norm=False,
        )
    config._attn_implementation = "posenc_capture"
    return config


def _queries(config, layer: int) -> np.ndarray:
    """The queries layer ``layer`` hands to its attention function, (heads, L, head_dim)."""
    from transformers import AttentionInterface
    from transformers.models.llama4 import modeling_llama4

    seen = []

    def capture(module, query, key, value, attention_mask, **kwargs):
        seen.append(query.detach().double().numpy()[0])
        batch, heads, length, width = query.shape
        return torch.zeros(batch, length, heads, width), None

    AttentionInterface.register("posenc_capture", capture)
    torch.manual_seed(0)
    with quiet():
        attention = modeling_llama4.Llama4TextAttention(config, layer_idx=layer)
        rotary = modeling_llama4.Llama4TextRotaryEmbedding(config)
    hidden = torch.randn(1, LENGTH, config.hidden_size)
    positions = torch.arange(LENGTH)[None]
    with torch.no_grad():
        attention(hidden, rotary(hidden, positions), None)
    (queries,) = seen
    return queries


def test_the_defaults_are_the_config_classes():
    transformers()
    from transformers.models.llama4.configuration_llama4 import Llama4TextConfig

    with quiet():
        defaults = Llama4TextConfig()
    config = {
        "model_type": "llama4_text",
        "hidden_size": 5120,
        "num_attention_heads": 40,
        "head_dim": 128,
        "num_hidden_layers": 4,
        "no_rope_layers": [1, 1, 1, 0],
        "rope_theta": 500000.0,
    }
    kinds = read_model(config).kinds
    temps = [t for k in kinds if not k.rotates for t in k.temperatures if t.rule == "llama4"]
    assert bool(temps) == bool(defaults.attn_temperature_tuning)
    (temp,) = temps
    assert temp.params == {"attn_scale": defaults.attn_scale, "floor_scale": defaults.floor_scale}


@pytest.mark.parametrize(("layer", "rotates"), [(0, True), (1, False)])
def test_the_factor_is_the_attentions(layer, rotates):
    transformers()
    tuned, plain = _small(True), _small(False)
    ratio = _queries(tuned, layer) / _queries(plain, layer)
    factor = ratio[0, :, 0]
    assert np.allclose(ratio, factor[None, :, None], rtol=1e-6), "one factor per position"
    reading = read_model(tuned.to_dict())
    (kind,) = [k for k in reading.kinds if k.rotates == rotates]
    temps = [t for t in kind.temperatures if t.rule == "llama4"]
    want = temps[0].on_logits(np.arange(LENGTH)) if temps else np.ones(LENGTH)
    assert bool(temps) == (not rotates)
    assert np.allclose(factor, want, rtol=1e-6, atol=0)
    assert len(set(np.round(want, 9))) == (1 if rotates else LENGTH // FLOOR + 1)
    off = read_model(plain.to_dict())
    assert not [t for k in off.kinds for t in k.temperatures if t.rule == "llama4"]
