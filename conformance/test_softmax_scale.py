"""posenc's softmax temperature against the attention classes of the pinned Transformers.

DeepSeek-V2's attention multiplies its softmax scale by ``mscale(factor,
mscale_all_dim)**2`` when its rotary is scaled (``yarn_apply_mscale``), and the MLA
families after it copy that code. ``posenc.families`` marks them (``softmax_mscale``) and
``posenc.model_config.read_model`` reports the factor as a temperature of rule "softmax".
Two checks, against the library's own code:

- **Which families.** Every model type whose modeling file calls ``yarn_apply_mscale``
  is marked by posenc, and every marked type calls it (or runs a class that does), apart
  from the types listed in ``NOT_TEXT`` and ``NOT_IN_TRANSFORMERS`` with their reasons.
- **What factor.** For each such type, the attention class is built from the family's
  default config (on the meta device: no weights) with its rotary as shipped, with a
  YaRN block of factor 40 and ``mscale_all_dim`` 1, then 0.707, then without
  ``mscale_all_dim``; its ``scaling`` divided by the scaling of the same class built
  with the plain rotary must be posenc's factor read from the same config (1 where posenc
  reads none). An ordinary decoder (Llama) given the same YaRN block is the control:
  its scale does not move and posenc reads no softmax factor.
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect

import pytest
import torch
from _defaults import text_config
from _zoo_enumerate import err, modeling_files, quiet, transformers

from posenc.families import FAMILIES
from posenc.model_config import read_model

#: Model types whose file calls yarn_apply_mscale but whose own config is not the MLA text
#: model's, with the reason.
NOT_TEXT = {"hy_v4_vl_vision": "the vision tower's config: its attention has no rotary scale"}

#: Types posenc marks that the pinned Transformers has no config class for, with the reason.
NOT_IN_TRANSFORMERS = {
    "kimi_k2": "Kimi K2's saved model type; Transformers builds it with DeepSeek-V3's classes",
}

CALL = "yarn_apply_mscale("
YARN = {
    "rope_type": "yarn",
    "factor": 40.0,
    "original_max_position_embeddings": 4096,
    "beta_fast": 32,
    "beta_slow": 1,
}
VARIANTS = {
    "as shipped": None,
    "yarn, mscale_all_dim 1": {**YARN, "mscale": 1.0, "mscale_all_dim": 1.0},
    "yarn, mscale_all_dim 0.707": {**YARN, "mscale": 0.707, "mscale_all_dim": 0.707},
    "yarn, no mscale_all_dim": dict(YARN),
}


@functools.cache
def _calling_types() -> list[str]:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    transformers()
    return sorted(
        t
        for t in CONFIG_MAPPING_NAMES
        if any(CALL in path.read_text(encoding="utf-8") for path in modeling_files(t))
    )


def _attention(model_type: str) -> type:
    """The one class of the type's modeling file whose constructor calls yarn_apply_mscale."""
    (path,) = modeling_files(model_type)
    module = importlib.import_module(f"transformers.models.{path.parent.name}.{path.stem}")
    found = []
    for obj in vars(module).values():
        if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
            if obj.__module__ != module.__name__:
                continue
            try:
                source = inspect.getsource(obj.__init__)
            except (OSError, TypeError):
                continue
            if CALL in source:
                found.append(obj)
    assert len(found) == 1, f"{model_type}: classes that call {CALL}): {found}"
    return found[0]


def _scaling(cls: type, config) -> float:
    with quiet(), torch.device("meta"):
        return float(cls(config, layer_idx=0).scaling)


def _posenc_factor(config) -> float:
    """posenc's softmax factor for a config (1 where it reads none), one for every kind."""
    reading = read_model(config.to_dict())
    factors = {
        t.params["factor"] for k in reading.kinds for t in k.temperatures if t.rule == "softmax"
    }
    assert len(factors) <= 1, f"kinds of layer with different softmax factors: {factors}"
    return factors.pop() if factors else 1.0


def _with_rope(config, params: dict):
    out = copy.deepcopy(config)
    out.rope_parameters = params
    return out


def test_the_families_posenc_marks_are_the_ones_whose_code_scales_the_softmax():
    calling = set(_calling_types()) - set(NOT_TEXT)
    marked = {t for t, f in FAMILIES.items() if f.softmax_mscale} - set(NOT_IN_TRANSFORMERS)
    assert calling, f"no model type calls {CALL}): the scan is broken"
    assert calling - marked == set(), "families whose code scales the softmax, not marked"
    assert marked - calling == set(), "families marked, whose code does not call it"
    for t in NOT_TEXT:
        assert not FAMILIES.get(t) or not FAMILIES[t].softmax_mscale


@pytest.mark.parametrize("model_type", sorted(set(_calling_types()) - set(NOT_TEXT)))
def test_the_softmax_factor_is_the_attentions(model_type):
    try:
        cls = _attention(model_type)
        text = text_config(model_type)
    except Exception as error:  # a family that cannot be built is a failure
        pytest.fail(f"{model_type}: {err(error)}")
    shipped = dict(text.rope_parameters or {})
    plain = {"rope_type": "default", "rope_theta": shipped.get("rope_theta", 10000.0)}
    reference = _scaling(cls, _with_rope(text, plain))
    assert _posenc_factor(_with_rope(text, plain)) == 1.0
    for name, variant in VARIANTS.items():
        config = text if variant is None else _with_rope(text, {**shipped, **variant})
        if variant is not None and "mscale_all_dim" not in variant:
            config.rope_parameters.pop("mscale_all_dim", None)
        ratio = _scaling(cls, config) / reference
        assert _posenc_factor(config) == pytest.approx(ratio, rel=1e-12, abs=0), name


def test_an_ordinary_decoder_keeps_its_scale():
    from transformers.models.llama import configuration_llama, modeling_llama

    text = configuration_llama.LlamaConfig(num_hidden_layers=1)
    plain = _with_rope(text, {"rope_type": "default", "rope_theta": 10000.0})
    yarn = _with_rope(text, {"rope_theta": 10000.0, **VARIANTS["yarn, mscale_all_dim 1"]})
    cls = modeling_llama.LlamaAttention
    assert _scaling(cls, yarn) == _scaling(cls, plain)
    assert _posenc_factor(yarn) == 1.0
