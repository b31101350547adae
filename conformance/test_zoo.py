"""The zoo: posenc's reading of every rotary family of Transformers against its own code.

For every model type of the pinned Transformers whose modeling file defines a rotary
class (``_zoo_enumerate.zoo_families``: 366 types of 5.24.0), one test:

1. the family's default config (``CONFIG_MAPPING[type]()``) is saved with
   ``save_pretrained``; its ``config.json`` is read back as plain JSON (what posenc is
   given) and with ``from_pretrained`` (what the family's model is built from). The
   model is built on the meta device and each rotary module it constructs is built again
   on the CPU with the same arguments (``_zoo_build``);
2. ``posenc.model_config.read_model`` reads the JSON, and each kind of layer it reads
   is compared with the family's code (``_zoo_compare``): the speeds (within the float32
   bound of ``test_rope.py``), the attention factor, which layers rotate (the family's
   forward on the meta device, watching its apply functions: ``_zoo_layers``), the
   pairing of the apply function those layers call and the axes of an M-RoPE table
   (measured: ``_zoo_probe``);
3. the family is recorded (kind "zoo", case its model type) with the Transformers file,
   the verdict and posenc's reading per kind, for the site's model atlas.

The verdicts: "agrees"; "differs" (what differs, by aspect); "not modelled" (posenc
refuses with the reason ``posenc.families`` gives); "could not build" (the family's own
code cannot be built from its default config, and why). In the record's schema these
are "agrees", "differs", "recorded only: not modelled: ..." and "not run: could not
build: ...", with the zoo's own word under ``status``. An aspect the harness could not
measure is listed under ``unmeasured`` with why.

**What fails.** A family that differs must be in :data:`KNOWN` with the same aspects
(the text before the first colon: "layers", "speeds, part", ...), and a family in
:data:`KNOWN` that no longer differs fails too, so the list cannot rot. The same holds
for :data:`UNBUILT` (the families whose code cannot be built from the default config)
and :data:`UNMEASURED` (the aspects the harness cannot measure for a family it
compares, and why). A family posenc does not model passes only if posenc's refusal
gives the family's ``unsupported`` reason. "agrees" covers a family whose model builds
no rotary when posenc refuses its config or reads no rotating layer.

Then the scaled variants: each rope type of ``ROPE_INIT_FUNCTIONS`` (linear, dynamic,
yarn, longrope and llama3 on Llama; proportional on Gemma 4) in the ``rope_scaling``
(4.x) and the ``rope_parameters`` (5.x) form, and the precedence case (both keys:
Transformers builds YaRN over base 1e4, dropping the 5e5 of ``rope_parameters``; posenc
must read the same and say so with a caution "precedence").

The reasons below are one line each; the record holds what was measured.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from _zoo_build import build
from _zoo_compare import judge
from _zoo_enumerate import err, zoo_families
from conftest import not_run, record, version

_ODD = "refused: an odd rotated width (Transformers makes ceil(r / 2) speeds over it)"

#: Families where posenc's reading differs from the family's code: "aspects: reason".
KNOWN: dict[str, str] = {
    # posenc refuses the odd rotated width of these default configs (released ones are even)
    **dict.fromkeys(
        "glm4_moe glm4v_moe glm4v_moe_text qwen3_omni_moe qwen3_omni_moe_text"
        " qwen3_omni_moe_thinker".split(),
        _ODD,
    ),
    "glm5_next": (
        "part: the text part has qk_rope_head_dim 0 (read as no position code); the rotary"
        " modules are the vision tower's, which posenc does not read"
    ),
}

_NO_MODEL = "no model class for this config (a part of another model), no rotary takes it"

#: Families whose code cannot be built from the default config: the reason.
UNBUILT: dict[str, str] = {
    **dict.fromkeys(
        (
            "edgetam_video_mask_decoder edgetam_video_prompt_encoder gemma4_unified_audio"
            " gemma4_unified_vision idefics_perciever idefics_vision sam2_video_mask_decoder"
            " sam2_video_prompt_encoder sam3_geometry_encoder sam3_tracker_video_mask_decoder"
            " sam3_tracker_video_prompt_encoder sapiens2_head t5_gemma_module"
        ).split(),
        _NO_MODEL,
    ),
    "cohere_compass": "its own rotary raises KeyError 'full_attention' on the default config",
    "cohere_compass_text": "its own rotary raises KeyError 'full_attention' on the default config",
    "gemma3n_vision": "the timm wrapper needs PIL, not installed in the conformance venv",
    "pe_audio_video": "the timm wrapper needs PIL; the text model is never built",
    "pe_video": "the timm wrapper needs PIL; the text model is never built",
    "qwen3_omni_moe_talker_text": "the model needs shared_expert_intermediate_size",
    "t5gemma2_decoder": "the model needs dropout_rate, which the default config lacks",
    "gemma4_text [proportional, flat rope_scaling]": "Gemma 4's rotary wants layer types",
}

_MODEL_FAILS = "layers: the model cannot be built from the default config"

#: What the harness cannot measure for a family that it compares: "aspects: why".
UNMEASURED: dict[str, str] = {
    **dict.fromkeys(
        (
            "chameleon dbrx deepseek_ocr2 deepseek_ocr2_text diffusion_gemma"
            " diffusion_gemma_text dots1 emu3 gemma3n granite4_vision hunyuan_v1_dense"
            " hunyuan_v1_moe hunyuan_vl hunyuan_vl_text lfm2_moe ministral moonshine_streaming"
            " nemotron pe_audio_video_encoder pe_video_encoder t5gemma2_encoder t5gemma2_text"
        ).split(),
        _MODEL_FAILS,
    ),
    "qwen4_exp": "layers, pairing: the model cannot be built from the default config",
    "qwen4_exp_text": "layers, pairing: the model cannot be built from the default config",
    "dory": "layers: the config lists 72 layers, the model builds 36",
    "hrm_text": "layers: the config lists 128 layers, the model two stacks of 16",
    "moonshine": "layers: no layer count posenc reads, and two stacks of 6",
    "musicflamingo": "layers: its top-level rotary turns audio timestamps, in no layer list",
    "idefics": "layers: the rotation depends on is_cross_attention, an argument",
    "gemma4_vision": "pairing, mrope: apply_multidimensional_rope takes other arguments",
    "glm4v": "mrope: the default text config's sections do not fit its 64 pairs",
    "glm4v_text": "mrope: the default text config's sections do not fit its 64 pairs",
    "kimi_k25_vision": "mrope: the rotary takes one position axis in the probe",
    "step3p5_vision": "mrope: the rotary takes one position axis in the probe",
    "minimax_m3_vl_vision": "mrope: the rotary takes one position axis in the probe",
}

COMPARED = (
    "posenc.model_config.read_model on the saved config.json against the family's own"
    " rotary modules (speeds, attention factor, axes) and forward (which layers apply a"
    " rotation, and with which pairing)"
)

try:
    FAMILIES = zoo_families()
    BROKEN = None
except Exception as error:  # no Transformers: one test says so, and records it
    FAMILIES, BROKEN = (), err(error)


def _verdict(status: str, reason: str) -> str:
    """The zoo's status as a verdict of the record's schema."""
    if status == "not modelled":
        return f"recorded only: not modelled: {reason}"
    if status == "could not build":
        return f"not run: could not build: {reason}"
    return status


def _record(case: str, judged, known: str | None, kind: str = "zoo", **extra) -> None:
    """One record case: a family of the zoo (kind "zoo") or a published config ("config")."""
    record(
        library="transformers",
        version=version("transformers"),
        kind=kind,
        case=case,
        convention=judged.file,
        compared=COMPARED,
        dtype="float32",
        largest_difference=judged.largest,
        verdict=_verdict(judged.status, judged.reason),
        model_type=judged.model_type,
        status=judged.status,
        differences=judged.differences,
        known=known,
        posenc=judged.reading,
        notes=judged.notes,
        **extra,
    )


def _record_family(case: str, judged, known: str | None) -> None:
    _record(
        case,
        judged,
        known,
        file=judged.file,
        reason=judged.reason,
        unmeasured=judged.unmeasured,
        measured=judged.measured,
        bound_used=judged.bound_used,
    )


def _aspects(text: str) -> tuple[str, ...]:
    return tuple(a.strip() for a in text.partition(":")[0].split(","))


def _check(case: str, judged) -> None:
    """Fail on a difference not listed, and on a listed one that is gone."""
    known, unbuilt = KNOWN.get(case), UNBUILT.get(case)
    what = "; ".join(f"{k}: {v}" for k, v in judged.differences.items())
    if judged.status == "differs":
        assert known is not None, f"{case}: posenc differs ({what}); not in KNOWN"
        assert set(_aspects(known)) == set(judged.aspects), (
            f"{case}: differs in {', '.join(judged.aspects)} ({what}); KNOWN says {known!r}"
        )
    else:
        assert known is None, f"{case}: {judged.status} now; remove it from KNOWN ({known!r})"
    if judged.status == "could not build":
        assert unbuilt is not None, f"{case}: could not build ({judged.reason}); not in UNBUILT"
        return
    assert unbuilt is None, f"{case}: {judged.status} now; remove it from UNBUILT"
    if judged.status == "not modelled":
        return
    listed = _aspects(UNMEASURED[case]) if case in UNMEASURED else ()
    missing = "; ".join(f"{k}: {v}" for k, v in judged.unmeasured.items())
    assert set(listed) == set(judged.unmeasured), (
        f"{case}: not measured: {missing or 'nothing'}; UNMEASURED says {listed or 'nothing'}"
    )


@pytest.mark.parametrize("model_type", FAMILIES or ["(none)"])
def test_family(model_type: str):
    """One family: built, read by posenc, compared and recorded (see the module's top)."""
    if BROKEN is not None:
        not_run("transformers", "zoo", f"the zoo cannot be listed: {BROKEN}")
    judged = judge(build(model_type))
    _record_family(model_type, judged, KNOWN.get(model_type))
    _check(model_type, judged)


def test_known_lists_name_zoo_families():
    """Every family of KNOWN and UNBUILT is one the zoo enumerates (or a variant here)."""
    if BROKEN is not None:
        not_run("transformers", "zoo", f"the zoo cannot be listed: {BROKEN}")
    variants = {case for case, *_ in VARIANTS}
    stray = sorted((set(KNOWN) | set(UNBUILT) | set(UNMEASURED)) - set(FAMILIES) - variants)
    assert not stray, f"not families of the zoo: {stray}"
    for name, reason in KNOWN.items():
        assert set(_aspects(reason)) <= {
            "refused",
            "part",
            "layers",
            "speeds",
            "attention",
            "pairing",
            "mrope",
        }, f"{name}: {reason!r} must start with the aspects that differ"


# --------------------------------------------------------------------------------------
# Scaled variants and the precedence of rope_scaling.

#: A ``longrope`` factor list over Llama's 64 pairs (short and long).
_SHORT = [1.0 + i / 64 for i in range(64)]
_LONG = [1.0 + i / 16 for i in range(64)]

#: Each rope type on Llama, as a ``rope_scaling`` block (4.x: "type" as Llama 2's configs
#: wrote it, "rope_type" as Llama 3.1's).
_LLAMA = {
    "linear": {"type": "linear", "factor": 4.0},
    "dynamic": {"type": "dynamic", "factor": 2.0},
    "yarn": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 512},
    "longrope": {
        "rope_type": "longrope",
        "short_factor": _SHORT,
        "long_factor": _LONG,
        "original_max_position_embeddings": 512,
    },
    "llama3": {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 512,
    },
}
_PROPORTIONAL = {
    "rope_type": "proportional",
    "partial_rotary_factor": 0.25,
    "factor": 2.0,
    "rope_theta": 1e6,
}


def _llama(scheme: str, form: str, data: dict) -> dict:
    """Llama's default config.json with ``scheme`` in the given form, over base 5e5."""
    out = {k: v for k, v in data.items() if k != "rope_parameters"}
    block = copy.deepcopy(_LLAMA[scheme])
    if form == "rope_scaling":
        out["rope_theta"] = 5e5
        out["rope_scaling"] = block
    else:
        block = {("rope_type" if k == "type" else k): v for k, v in block.items()}
        out["rope_parameters"] = {**block, "rope_theta": 5e5}
    return out


def _gemma4(form: str, data: dict) -> dict:
    """Gemma 4's default config.json with a proportional factor of 2 on its global layers:
    as ``rope_parameters`` nested by layer type (5.x), or the same nesting under
    ``rope_scaling`` (the 4.x key)."""
    out = copy.deepcopy(data)
    params = out.pop("rope_parameters")
    params["full_attention"] = dict(_PROPORTIONAL)
    out["rope_parameters" if form == "rope_parameters" else "rope_scaling"] = params
    return out


def _gemma4_flat(data: dict) -> dict:
    """The 4.x form flat, as a Llama config holds it: Gemma 4's code cannot build it."""
    out = {k: v for k, v in data.items() if k != "rope_parameters"}
    return {**out, "rope_theta": 1e6, "rope_scaling": dict(_PROPORTIONAL)}


def _precedence(data: dict) -> dict:
    """Both keys: ``rope_parameters`` with a base of 5e5, and a YaRN ``rope_scaling``."""
    out = {k: v for k, v in data.items() if k != "rope_parameters"}
    out["rope_parameters"] = {"rope_theta": 5e5}
    out["rope_scaling"] = copy.deepcopy(_LLAMA["yarn"])
    return out


#: (case, model type, scheme expected on the scaled layers, kind, the config.json).
VARIANTS = [
    *(
        (f"llama [{s}, {f}]", "llama", s, "all", lambda d, s=s, f=f: _llama(s, f, d))
        for s in _LLAMA
        for f in ("rope_scaling", "rope_parameters")
    ),
    *(
        (f"gemma4_text [proportional, {f}]", "gemma4_text", "proportional", "full_attention",
         lambda d, f=f: _gemma4(f, d))
        for f in ("rope_scaling", "rope_parameters")
    ),
    ("gemma4_text [proportional, flat rope_scaling]", "gemma4_text", "proportional",
     "full_attention", _gemma4_flat),
    ("llama [precedence: rope_parameters and rope_scaling]", "llama", "yarn", "all",
     _precedence),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "model_type", "scheme", "kind", "make"), VARIANTS, ids=[v[0] for v in VARIANTS]
)
def test_variant(case, model_type, scheme, kind, make):
    """A scaled config of a family, compared as the default ones are, and its scheme read."""
    if BROKEN is not None:
        not_run("transformers", "zoo", f"the zoo cannot be listed: {BROKEN}")
    data = make(build(model_type).data)
    judged = judge(build(model_type, data=data))
    _record_family(case, judged, KNOWN.get(case))
    _check(case, judged)
    if judged.status != "agrees":
        return
    read = next(k for k in judged.reading["kinds"] if k["name"] == kind)
    facts = next(m for m in judged.measured if m["name"] == kind)
    assert read["scheme"] == scheme, f"{case}: posenc read {read['scheme']}"
    assert facts.get("rope_type") == scheme, f"{case}: the module built {facts.get('rope_type')}"
    if "precedence" in case:
        assert read["base"] == 1e4, f"{case}: posenc's base {read['base']}, Transformers' 1e4"
        assert "precedence" in judged.reading["cautions"], f"{case}: no precedence caution"


# --------------------------------------------------------------------------------------
# The real configs of data/configs, each read layer by layer and compared with its family's
# modules built from that very config (the same judge as the families' default configs).

REAL = sorted((Path(__file__).resolve().parents[1] / "data" / "configs").glob("*.json"))

#: Real configs on which posenc and the family's modules are known to differ, and why.
KNOWN_REAL: dict[str, str] = {}


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.stem)
def test_real_config_in_the_zoo(path: Path):
    """A published config (its rotary fields), built by its family and read by posenc."""
    if BROKEN is not None:
        not_run("transformers", "config", f"the zoo cannot be listed: {BROKEN}")
    data = json.loads(path.read_text(encoding="utf-8"))
    judged = judge(build(data["model_type"], data=data))
    text = data.get("text_config")
    if judged.status == "could not build" and isinstance(text, dict) and "model_type" in text:
        # A multimodal family whose text model is another family's (Mistral 3's is
        # Ministral 3): its language model, built from the text part of the same file.
        judged = judge(build(text["model_type"], data=text))
    _record(path.name, judged, KNOWN_REAL.get(path.name), kind="config")
    what = "; ".join(f"{k}: {v}" for k, v in judged.differences.items()) or judged.reason
    if path.name in KNOWN_REAL:
        assert judged.status != "agrees", f"{path.name} agrees now: remove it from KNOWN_REAL"
        return
    assert judged.status == "agrees", f"{path.name}: {judged.status}: {what}"
