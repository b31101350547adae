"""What posenc reads from a config that leaves out a key its config class fills in.

A config.json may leave out ``partial_rotary_factor``, ``sliding_window``, ``head_dim``
or ``rotary_dim``; Transformers then builds the model with the config class's default.
posenc keeps the constant ones in ``posenc/_class_defaults.py``, generated from the
pinned Transformers by ``tools/class_defaults.py``. Two checks:

- the module is what the tool writes from the installed Transformers (not stale);
- for every zoo family and every such key in its default config: the config without the
  key (at the top and in a flat ``rope_parameters``), read by posenc, gives the same
  reading as the config the class fills in and saves again. The pairs where it does not
  are listed in ``KNOWN`` with the reason; a listed pair that starts to agree fails too,
  so the list cannot go stale;
- for every zoo family whose default config holds ``layer_types``: without them, posenc
  reads every layer as Transformers builds it, or it gives the caution
  ``layer_types_rule`` (and only then);
- for every zoo family whose default config holds ``rope_parameters``: without any
  rotary key (``rope_parameters``, ``rope_scaling``, ``rope_theta``), and again with only
  an odd ``rope_theta`` or ``partial_rotary_factor`` at the top, posenc reads every layer
  as Transformers builds it (its scheme, base, width, pairing, window), or, for a class
  that builds the block by a rule posenc does not mirror, it gives the caution
  ``rope_parameters_rule`` (and for no other class).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest
from _defaults import holds, reading, rebuilt, text_config, without
from _zoo_enumerate import err, zoo_families

from posenc._class_defaults import ROPE_RULED
from posenc.model_config import read_model

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("partial_rotary_factor", "sliding_window", "head_dim", "rotary_dim")

_NESTED = "its rope_parameters are per layer type, where the tool does not read a default"
#: (model type, key): why posenc's reading without the key differs from Transformers'.
KNOWN = {
    ("dots3_note", "partial_rotary_factor"): _NESTED,
    ("dots3_note_text", "partial_rotary_factor"): _NESTED,
    ("neomme", "partial_rotary_factor"): _NESTED,
    ("deepseek_v4", "partial_rotary_factor"): (
        "the class computes it, qk_rope_head_dim / head_dim = 64 / 512; without it posenc"
        " reads a 64-wide head rotated in full: the same 32 speeds, another head width"
    ),
    ("mistral4", "partial_rotary_factor"): (
        "the class computes it, qk_rope_head_dim / head_dim = 64 / 128; without it posenc"
        " reads a 64-wide head rotated in full: the same 32 speeds, another head width"
    ),
}


def _tool():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import class_defaults
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return class_defaults


def test_the_table_is_what_the_pinned_transformers_gives(capsys):
    assert _tool().main(["--check"]) == 0, capsys.readouterr().out


@functools.cache
def _saved() -> dict[str, tuple[type, dict]]:
    """Every zoo family's text config class and default config, saved, where it builds."""
    out = {}
    for model_type in zoo_families():
        try:
            text = text_config(model_type)
        except Exception:  # its own defaults do not build (test_zoo says so)
            continue
        out[model_type] = (type(text), text.to_dict())
    return out


def _cases():
    return [(t, key) for t, (_, saved) in _saved().items() for key in KEYS if holds(saved, key)]


@pytest.mark.parametrize(("model_type", "key"), _cases())
def test_a_left_out_key_reads_as_transformers_fills_it(model_type, key):
    cls, saved = _saved()[model_type]
    stripped = without(saved, key)
    try:
        filled = rebuilt(cls, stripped)
    except Exception as error:  # the class needs the key: nothing to compare
        pytest.skip(f"Transformers: {err(error)}")
    try:
        want = reading(filled)
    except ValueError as error:  # posenc refuses the family, and says why
        pytest.skip(f"posenc: {err(error)}")
    same = reading(stripped) == want
    if (model_type, key) in KNOWN:
        assert not same, f"listed as known, but now agrees: {KNOWN[model_type, key]}"
    else:
        assert same


def _as_built(cls, stripped: dict) -> dict:
    """posenc's per-layer reading of the config that ``cls`` rebuilds from ``stripped``;
    the test is skipped where the class cannot build it (it needs the keys, or refuses an
    odd value) or posenc refuses what it builds."""
    try:
        filled = rebuilt(cls, stripped)
    except Exception as error:
        pytest.skip(f"Transformers: {err(error)}")
    try:
        return _tool()._per_layer(filled)
    except ValueError as error:
        pytest.skip(f"posenc: {err(error)}")


@pytest.mark.parametrize(
    "model_type", [t for t, (_, saved) in _saved().items() if "layer_types" in saved]
)
def test_without_layer_types_posenc_reads_the_class_rule_or_says_it_cannot(model_type):
    """Each layer read as Transformers builds it, or the caution layer_types_rule."""
    cls, saved = _saved()[model_type]
    stripped = {k: v for k, v in saved.items() if k != "layer_types"}
    want = _as_built(cls, stripped)
    per_layer = _tool()._per_layer
    cautioned = "layer_types_rule" in [c.code for c in read_model(stripped).cautions]
    if per_layer(stripped) == want:
        assert not cautioned, "a caution where posenc reads every layer as Transformers builds it"
    else:
        assert cautioned, "posenc reads other layers than Transformers builds, and says nothing"


#: What is left at the top of a config that sets no rotary block: nothing, or one odd value.
_TOPS = dict(zip(("bare", "rope_theta", "partial"), _tool().TOPS, strict=True))


@pytest.mark.parametrize("top", _TOPS)
@pytest.mark.parametrize(
    "model_type", [t for t, (_, saved) in _saved().items() if "rope_parameters" in saved]
)
def test_without_a_rotary_block_posenc_reads_the_class_block_or_says_it_cannot(model_type, top):
    """Each layer read as Transformers builds it, or the caution rope_parameters_rule."""
    cls, saved = _saved()[model_type]
    stripped = {**_tool().without_rope(saved), **_TOPS[top]}
    want = _as_built(cls, stripped)
    per_layer = _tool()._per_layer
    cautioned = "rope_parameters_rule" in [c.code for c in read_model(stripped).cautions]
    if model_type in ROPE_RULED:
        assert cautioned, "a class rule posenc does not mirror, and no caution"
    else:
        assert per_layer(stripped) == want
        assert not cautioned, "a caution where posenc mirrors the class"
