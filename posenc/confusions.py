"""The confusions about position that users of 2024-2026 models report, seen in a config.

Each rule looks at a reading of a config (:func:`posenc.model_config.read_model`) and, if
the config has the feature that the reports are about, returns a :class:`Caution`: what
to watch for, in this config's own numbers, and the reports that document it. A rule
stays quiet on a config without the feature; ``tests/test_model_config.py`` shows each
one firing and staying quiet.

The reports are GitHub issues and pull requests, cited as ``owner/repository#number``;
each was read in its thread (``../shared/FACTS-zoo.md``'s section 8 lists them, and a
helper's reading of every thread corrected that list where a thread reports something
else).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc import rope
from posenc.families import Family

__all__ = ["RULES", "cautions"]

_V5_RENAME = (
    "vllm-project/vllm#28542",
    "vllm-project/vllm#29700",
    "sgl-project/sglang#14745",
    "ggml-org/llama.cpp#18013",
    "ROCm/aiter#4742",
    "allenai/molmo2#22",
)
_PARTIAL = (
    "pie-project/pie#603",
    "zml/zml#662",
    "AI-Hypercomputer/maxtext#4616",
    "AI-Hypercomputer/maxtext#4764",
    "huggingface/transformers#48652",
    "apache/tvm#18102",
)
_PER_LAYER = (
    "antonellof/ferrox#39",
    "lablup/mlxcel#1340",
    "Blaizzy/mlx-vlm#1709",
    "ollama/ollama#13452",
    "ggml-org/llama.cpp#14367",
    "vllm-project/vllm#41185",
)
_STATIC_YARN = (
    "turboderp-org/exllamav2#642",
    "turboderp-org/exllamav3#29",
    "ggml-org/llama.cpp#10698",
    "sgl-project/sglang#6030",
    "QwenLM/Qwen3#1567",
)
_LONGROPE = (
    "microsoft/onnxruntime-genai#1161",
    "microsoft/onnxruntime-genai#1787",
    "ggml-org/llama.cpp#8995",
    "ggml-org/llama.cpp#24823",
)
_LLAMA3_KEY = ("microsoft/KBLaM#37", "lablup/mlxcel#1355", "vllm-project/vllm#9481")
_LLAMA4_TEMPERATURE = ("vllm-project/vllm#16439", "vllm-project/vllm#19997")
_TWO_PAIRINGS = (
    "ml-explore/mlx-lm#1431",
    "vllm-project/vllm#28968",
    "1bit-MONSTER/1bit-MONSTER#2418",
    "ikawrakow/ik_llama.cpp#2099",
    "sgl-project/sglang#13530",
    "huggingface/transformers#46842",
)
_TRANSFORMERS = "transformers: modeling_rope_utils.py (RotaryEmbeddingConfigMixin)"


def _rotating(reading):
    return [k for k in reading.kinds if k.rotates and k.rope is not None]


def _precedence(reading, part: Mapping[str, Any], fam: Family):
    if reading.form != "both":
        return None
    held = part["rope_parameters"]
    dropped = [
        v.get("rope_theta") if isinstance(v, Mapping) else None
        for v in (held, *(held.values() if isinstance(held, Mapping) else ()))
    ]
    dropped = [float(t) for t in dropped if isinstance(t, int | float) and not isinstance(t, bool)]
    used = sorted({k.rope.base for k in _rotating(reading)})
    lost = [t for t in dropped if t not in used]
    message = (
        "the config holds both rope_parameters and a non-empty rope_scaling: Transformers"
        " 5.x builds from rope_scaling and ignores rope_parameters"
    )
    if lost:
        message += (
            f"; the base {', '.join(f'{t:g}' for t in lost)} that rope_parameters held is"
            f" dropped, and the model is built over base {', '.join(f'{b:g}' for b in used)}"
            " (the top-level rope_theta, or the class default)"
        )
    return ("precedence", message, (_TRANSFORMERS,))


def _v5_form(reading, part, fam):
    scaled = [k for k in _rotating(reading) if k.rope.scheme not in ("default", "proportional")]
    if reading.form != "rope_parameters" or not scaled:
        return None
    names = ", ".join(sorted({k.rope.scheme for k in scaled}))
    return (
        "v5_form",
        f"the {names} scaling is in rope_parameters (the Transformers 5 form) and the config"
        " has no rope_scaling: an engine that reads only rope_scaling (the 4.x key) builds"
        " plain rotary and drops the scaling",
        _V5_RENAME,
    )


def _proportional(reading, part, fam):
    for k in _rotating(reading):
        if k.rope.scheme != "proportional":
            continue
        p = float(k.rope.params.get("partial_rotary_factor", 1.0))
        d = k.rope.head_dim
        w = k.inv_freq[k.inv_freq > 0]
        slowest = 2 * math.pi / float(w[-1])
        partial, _ = rope.inv_freq("default", d, base=k.rope.base, partial_rotary_factor=p)
        misread = 2 * math.pi / float(partial[-1])
        return (
            "proportional",
            f"the {k.name} layers use proportional rotary: {w.size} of the {d // 2} pairs turn,"
            f" at base**(-2i/{d}) (the exponent over the whole head), the slowest with"
            f" wavelength {slowest:.4g}; read as NeoX partial rotary with the same factor"
            f" {p:g} (the exponent over the rotated {int(d * p)}), the slowest would have"
            f" wavelength {misread:.4g}",
            _PARTIAL,
        )
    return None


def _partial(reading, part, fam):
    for k in _rotating(reading):
        p = k.rope.params.get("partial_rotary_factor")
        if p is None or k.rope.scheme == "proportional":
            continue
        return (
            "partial",
            f"the {k.name} layers rotate {k.rotary_dim} of the {k.rope.head_dim} coordinates of"
            f" each head (partial_rotary_factor {p:g}); an engine that ignores the factor"
            " rotates all of them, at speeds over the whole head",
            _PARTIAL,
        )
    return None


def _per_layer_type(reading, part, fam):
    rotating = _rotating(reading)
    if len({k.name for k in rotating}) < 2:
        return None
    scaled = [k for k in rotating if k.rope.scheme not in ("default", "proportional", "axial")]
    plain = [k for k in rotating if k not in scaled]
    if not scaled or not plain:
        return None
    return (
        "per_layer_type",
        f"the {scaled[0].rope.scheme} scaling applies to the {', '.join(k.name for k in scaled)}"
        f" layers only; the {', '.join(k.name for k in plain)} layers keep their own scheme."
        " Applying the factor to the wrong layers (to all of them, or to none) is a reported"
        " bug",
        _PER_LAYER,
    )


def _no_rope_layers(reading, part, fam):
    flags = part.get("no_rope_layers")
    if not flags:
        return None
    still = sum(1 for f in flags if not f)
    return (
        "no_rope_layers",
        "no_rope_layers[i] == 1 means layer i does rotate (despite the name):"
        f" {len(flags) - still} of the {len(flags)} layers rotate, {still} have no position code",
        ("transformers: models/llama4/configuration_llama4.py",),
    )


def _static_yarn(reading, part, fam):
    for k in _rotating(reading):
        if k.rope.scheme == "yarn":
            s = k.rope.params.get("factor")
            return (
                "static_yarn",
                f"YaRN here is static: once set, its speeds (factor {s:g}) and its attention"
                f" factor {k.rope.inv_freq()[1]:.4g} apply at every length, short prompts too;"
                " add it only when long inputs are expected",
                _STATIC_YARN,
            )
    return None


def _longrope(reading, part, fam):
    for k in _rotating(reading):
        if k.rope.scheme == "longrope":
            length = k.rope.params.get("original_max_position_embeddings")
            return (
                "longrope_switch",
                f"LongRoPE switches from short_factor to long_factor once the sequence passes"
                f" {length} positions; keys cached before the switch were rotated with the"
                " short factors, so a KV cache that crosses it is inconsistent",
                _LONGROPE,
            )
    return None


def _llama3_key(reading, part, fam):
    scaling = part.get("rope_scaling")
    if not isinstance(scaling, Mapping) or scaling.get("rope_type") != "llama3":
        return None
    if scaling.get("type") is not None:
        return None
    return (
        "llama3_key",
        'rope_scaling names its scheme under "rope_type" only: code that reads'
        ' rope_scaling["type"] (older releases) finds none and applies no scaling',
        _LLAMA3_KEY,
    )


def _llama4_temperature(reading, part, fam):
    for k in reading.kinds:
        for t in k.temperatures:
            if t.rule == "llama4":
                step = t.params["floor_scale"]
                first = float(t.on_logits(np.array([step - 1]))[0])
                return (
                    "llama4_temperature",
                    f"attention temperature tuning is on: the queries of the {len(k.layers)}"
                    f" layers without rotary are scaled from position {step - 1} on"
                    f" ({first:.4f} there); an engine without it differs past that position",
                    _LLAMA4_TEMPERATURE,
                )
    return None


#: The config keys that give a sparse-attention indexer's head width: DeepSeek-V3.2's
#: and most DSA families' ``index_head_dim`` (MiniMax-M3-VL's alias
#: ``sparse_index_dim``), Qwen4-Exp's ``indexer_head_dim``.
INDEXER_WIDTH_KEYS = ("index_head_dim", "sparse_index_dim", "indexer_head_dim")


def _indexer_width(part):
    """The indexer's width key and value in ``part``, or None for a model without one."""
    key = next((k for k in INDEXER_WIDTH_KEYS if part.get(k) is not None), None)
    return None if key is None else (key, part[key])


def _two_pairings(reading, part, fam):
    """An indexer that pairs its rotary coordinates otherwise than the attention does.

    The rule follows Transformers 5.24: each part's pairing is fixed by its family's code
    (:attr:`Family.indexer` and the attention's pairing), and no config key is read for
    the indexer (``indexer_rope_interleave``, kept in some GLM-5 configs, is ignored).
    No caution where both parts pair alike, the indexer does not rotate, or posenc has
    not read the family's indexer (that is :func:`_indexer_pairing_unknown`'s).
    """
    width = _indexer_width(part)
    if width is None or fam.indexer in (None, "none"):
        return None
    main = sorted({k.pairing for k in _rotating(reading)} - {None})
    if main == [fam.indexer]:
        return None
    return (
        "two_pairings",
        f"the model has a sparse-attention indexer ({width[0]} {width[1]}) that rotates"
        f" its keys with the {fam.indexer} pairing, while the attention's rotary part uses"
        f" the {', '.join(main)} pairing: two pairings in one model, and weights trained"
        " one way read the other give degraded long inputs",
        _TWO_PAIRINGS,
    )


def _indexer_pairing_unknown(reading, part, fam):
    """A sparse-attention indexer of a family whose indexer posenc has not read."""
    width = _indexer_width(part)
    if width is None or fam.indexer is not None:
        return None
    main = sorted({k.pairing for k in _rotating(reading)} - {None})
    return (
        "indexer_pairing_unknown",
        f"the model has a sparse-attention indexer ({width[0]} {width[1]}) whose rotary"
        f" pairing posenc does not know for model type {part.get('model_type')!r}; the"
        f" attention's rotary part uses the {', '.join(main) or 'no'} pairing: check the"
        " indexer's code before running its weights",
        _TWO_PAIRINGS,
    )


def _layer_types_rule(reading, part, fam):
    """No layer_types, in a family whose config class builds them by a rule posenc lacks."""
    if not fam.layer_types_ruled or "layer_types" in part:
        return None
    read = "; ".join(f"{k.name}: {len(k.layers)} layers" for k in reading.kinds)
    return (
        "layer_types_rule",
        f"the config sets no layer_types: Transformers builds them with the rule of"
        f" {part.get('model_type')!r}'s config class, which posenc does not mirror, so which"
        f" layers slide or rotate may differ from what posenc read ({read}); a config saved"
        " by Transformers 5.x carries layer_types and is read exactly",
        (fam.source or _TRANSFORMERS,),
    )


def _rope_parameters_rule(reading, part, fam):
    """No rotary block at all, in a family whose class builds one by a rule posenc lacks."""
    if not fam.rope_ruled or part.get("rope_parameters") is not None or part.get("rope_scaling"):
        return None
    read = "; ".join(
        f"{k.name}: {k.rope.scheme} rotary, base {k.rope.base:g}" for k in _rotating(reading)
    )
    return (
        "rope_parameters_rule",
        f"the config sets neither rope_parameters nor rope_scaling: Transformers builds the"
        f" rotary parameters with the rule of {part.get('model_type')!r}'s config class,"
        f" from other keys of the config, which posenc does not mirror, so the scheme may"
        f" differ from what posenc read ({read or 'no rotating layer'}); a config saved by"
        " Transformers 5.x carries rope_parameters and is read exactly",
        (fam.source or _TRANSFORMERS,),
    )


def _mrope_sections(reading, part, fam):
    for k in _rotating(reading):
        for note in k.notes:
            if "split_with_sizes" in note:
                return ("mrope_sections", note, (fam.source or _TRANSFORMERS,))
    return None


#: Every rule by the code of its caution, in the order the cautions are listed.
RULES = {
    "precedence": _precedence,
    "v5_form": _v5_form,
    "llama3_key": _llama3_key,
    "proportional": _proportional,
    "partial": _partial,
    "per_layer_type": _per_layer_type,
    "no_rope_layers": _no_rope_layers,
    "llama4_temperature": _llama4_temperature,
    "static_yarn": _static_yarn,
    "longrope_switch": _longrope,
    "two_pairings": _two_pairings,
    "indexer_pairing_unknown": _indexer_pairing_unknown,
    "mrope_sections": _mrope_sections,
    "layer_types_rule": _layer_types_rule,
    "rope_parameters_rule": _rope_parameters_rule,
}


def cautions(reading, part: Mapping[str, Any], fam: Family) -> list:
    """The cautions of every rule that fires on this reading of ``part``."""
    from posenc.model_config import Caution  # the reading's module imports this one

    out = []
    for name, rule in RULES.items():
        found = rule(reading, part, fam)
        if found is not None:
            code, message, sources = found
            assert code == name, (code, name)  # a rule says its own code
            out.append(Caution(code, message, tuple(sources)))
    return out
