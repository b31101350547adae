"""What a model family's code decides that its config.json does not say.

A config.json names a rotary scheme, a base and a width, but some facts of the position
scheme live in the family's modeling code: which coordinates pair up, which layers skip
the rotation, how a multimodal model splits its pairs among axes, a temperature on the
queries, a value the saved config leaves to a class default. :data:`FAMILIES` holds these
for the model types of Hugging Face Transformers (the version pinned in
``requirements-conformance.in``), each with the file of Transformers that decides it.
``make conformance`` builds every family's own rotary module from its default config and
checks each entry here against what that code does (``conformance/test_zoo.py``).

A model type with no entry is an ordinary decoder: ``rotate_half`` pairing (coordinate
``i`` with ``i + r/2``), every layer rotated, one position axis.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from posenc._class_defaults import DEFAULTS, LAYER_TYPES_RULED, ROPE_DEFAULTS, ROPE_RULED

__all__ = ["FAMILIES", "Family", "family"]


@dataclass(frozen=True)
class Family:
    """The position facts of one model family that its code decides.

    Attributes
    ----------
    pairing : {"half", "interleaved"}
        Which coordinates a rotation turns together: ``i`` with ``i + r/2``
        (``rotate_half``), or ``2i`` with ``2i + 1``.
    pairing_key : str or None
        A config key that switches the pairing to "interleaved" when true (DeepSeek-V3's
        ``rope_interleave``); ``pairing_default`` is its class default.
    indexer : {"half", "interleaved", "none"} or None
        The pairing of the sparse-attention indexer's own rotary call, fixed in the code
        (no config key is read for it): DeepSeek-V3.2's ``apply_rotary_pos_emb``,
        GLM-MoE-DSA's ``apply_rotary_pos_emb_interleave``; "none" for an indexer that
        makes no rotary call (GLM-5-Next's). None for a family whose indexer posenc has
        not read.
    nope : str or None
        How the config says which layers rotate: "no_rope_layers" (a list, 1 = the layer
        rotates, else built from ``no_rope_layer_interval``), "sliding_only" (only
        sliding-window layers rotate), "sliding_or_all" (sliding layers, or every layer
        when the model has no sliding window), "null_params" (a layer type whose
        ``rope_parameters`` entry is null), "zero_theta" (``layer_rope_theta[i] == 0``).
    temperature : str or None
        A position-dependent scale on the queries: "llama4" (NoPE layers only,
        ``attn_temperature_tuning``), "llama4_beta" (every layer, the
        ``llama_4_scaling_beta`` of ``rope_parameters``).
    softmax_mscale : bool
        The attention's softmax scale is multiplied by ``mscale(factor, mscale_all_dim)**2``,
        ``mscale(s, m) = 0.1 m ln s + 1`` (1 when ``s <= 1``), when the ``rope_type`` is
        not "default" and ``mscale_all_dim`` is set and non-zero (DeepSeek-V2's
        ``yarn_apply_mscale``, copied by the MLA families after it).
    mrope : str or None
        How a multimodal text model splits its pairs among the temporal, height and
        width axes (:mod:`posenc.layouts`): "chunked", "interleaved_thw", "ernie",
        "glm"; ``mrope_section`` is the code default when the config saves none.
    labels : tuple of str
        Keys that nest ``rope_parameters`` by block rather than by layer type.
    blocks : dict
        Which block of ``labels`` each layer type uses, ``"*"`` for any other type
        (DeepSeek-V4: sliding-window layers "main", the compressed ones "compress").
    rotated_key : str or None
        A config key that holds how many coordinates of the head rotate (GPT-J's and
        CodeGen's ``rotary_dim``; MiniMax-M2's config class turns it into
        ``partial_rotary_factor``). A family without one ignores such a key.
    width : dict
        Config keys the family keeps the head width under, by the name the rotary code
        reads (the config class's ``attribute_map``).
    defaults : dict
        Constant values the config class gives ``partial_rotary_factor``,
        ``sliding_window``, ``head_dim`` or ``rotary_dim`` when the config leaves them out
        (generated from Transformers into ``posenc/_class_defaults.py``).
    layer_types_ruled : bool
        The config class builds ``layer_types`` by a rule of its own when the config sets
        none, and posenc does not mirror it (generated, as ``defaults``).
    default_rope : dict or None
        The rotary parameters the config class builds when the config sets neither
        ``rope_parameters`` nor ``rope_scaling`` (Apertus's llama3 block, Gemma 4's
        proportional global layers), where they are constant (generated, as
        ``defaults``). None: default rotary.
    rope_ruled : bool
        The config class builds those parameters from other keys of the config, and
        posenc does not mirror it (generated, as ``defaults``).
    default_theta : float, dict or None
        The base the config class falls back to when the config holds none; a dict maps
        layer types to bases ("sliding_attention" and "full_attention", whose base every
        other type takes). None: 10,000.
    window_pattern : int or None
        Without ``layer_types``, every ``sliding_window_pattern``-th layer is global (the
        rest sliding); this is the class default of the pattern when the config has none.
    legacy : str or None
        The family's own reading of the 4.x form: "gemma3" (``rope_scaling`` updates the
        global layers' parameters only; ``rope_local_base_freq`` is the sliding layers'
        base); "gpt_neox" (the base and the rotated share come from ``rotary_emb_base``
        and ``rotary_pct``; a top-level ``rope_theta`` or ``partial_rotary_factor`` is not
        read).
    scheme_aliases : dict
        Scheme names the family's config class renames (Phi-3: "yarn" and "su" are
        "longrope").
    rotary : bool
        False for a model type whose model builds no rotary module at all (a vision or
        audio tower of a family whose rotary lives in its text model).
    switch : tuple or None
        ``(key, value, default)``: the model rotates only when the config's ``key`` (the
        class default ``default`` when absent) is ``value`` (ESM's
        ``position_embedding_type``, Zamba 2's ``use_mem_rope``).
    unsupported : str or None
        Why posenc does not read this family's position scheme.
    source : str
        The Transformers file that decides these facts.
    """

    pairing: str = "half"
    pairing_key: str | None = None
    pairing_default: bool = False
    indexer: str | None = None
    nope: str | None = None
    temperature: str | None = None
    softmax_mscale: bool = False
    mrope: str | None = None
    mrope_section: tuple[int, ...] | None = None
    labels: tuple[str, ...] = ()
    blocks: dict[str, str] = field(default_factory=dict)
    rotated_key: str | None = None
    width: dict[str, str] = field(default_factory=dict)
    default_theta: float | dict[str, float] | None = None
    defaults: dict[str, Any] = field(default_factory=dict)
    layer_types_ruled: bool = False
    default_rope: dict[str, Any] | None = None
    rope_ruled: bool = False
    window_pattern: int | None = None
    legacy: str | None = None
    scheme_aliases: dict[str, str] = field(default_factory=dict)
    rotary: bool = True
    switch: tuple[str, object, object] | None = None
    unsupported: str | None = None
    source: str = ""


#: The families whose position facts differ from an ordinary decoder's, by model type.
FAMILIES: dict[str, Family] = {}


def _source(module: str) -> str:
    return f"transformers/models/{module}/modeling_{module}.py"


def _put(names: str, module: str, **facts) -> None:
    """Enter ``facts`` for each model type of ``names``, whose code is ``module``'s."""
    for name in names.split():
        FAMILIES[name] = Family(source=_source(module), **facts)


def _amend(names: str, module: str | None = None, **facts) -> None:
    """Add ``facts`` to each model type of ``names``: to its entry, or to a new one (whose
    code is ``module``'s, where given)."""
    new = Family(source=_source(module)) if module else Family()
    for name in names.split():
        FAMILIES[name] = replace(FAMILIES.get(name, new), **facts)


# Pairing 2i with 2i + 1: an interleaved rotate_half, a complex multiply, or a table laid
# out c0 c0 c1 c1 (measured on each family's code by conformance/test_zoo.py).
for _module, _names in (
    ("cohere", "cohere"),
    ("glm", "glm"),
    ("glm4", "glm4"),
    ("helium", "helium"),
    ("ernie4_5", "ernie4_5"),
    ("ernie4_5_moe", "ernie4_5_moe"),
    ("moonshine_streaming", "moonshine_streaming"),
    ("musicflamingo", "musicflamingo"),
    ("openai_privacy_filter", "openai_privacy_filter"),
    ("bailing_hybrid", "bailing_hybrid"),
    ("longcat_flash", "longcat_flash"),
    ("blt", "blt blt_global_transformer blt_local_decoder blt_local_encoder blt_patcher"),
    ("deepseek_v2", "deepseek_v2"),
    ("pe_audio", "pe_audio pe_audio_encoder"),
    ("pe_audio_video", "pe_audio_video pe_audio_video_encoder"),
    ("pe_video", "pe_video pe_video_encoder"),
):
    _put(_names, _module, pairing="interleaved")
_put(
    "hy_v4_vl hy_v4_vl_text",
    "hy_v4_vl",
    pairing="interleaved",
    indexer="interleaved",
    mrope="interleaved_thw",
)
_put("dots3_note dots3_note_text", "dots3_note", pairing="interleaved", indexer="interleaved")
# The sparse-attention (DSA) families of Transformers 5.24 and the pairing of each part's
# rotary call: GlmMoeDsaAttention and GlmMoeDsaIndexer both call
# apply_rotary_pos_emb_interleave; DeepseekV32Attention and AXK2Attention call
# apply_rotary_pos_emb_interleave whatever the config says (DeepseekV32Config deletes
# rope_interleave, AXK2Config has none), their indexers apply_rotary_pos_emb
# (split-half); HYV4Attention and HYV4Indexer both call apply_rotary_pos_emb. The
# conformance run measures every indexer's call (record.json, "also").
_put("glm_moe_dsa", "glm_moe_dsa", pairing="interleaved", indexer="interleaved")
_put("deepseek_v32", "deepseek_v32", pairing="interleaved", indexer="half")
_put("axk2", "axk2", pairing="interleaved", indexer="half")
_put("hy_v4", "hy_v4", indexer="half")
_put(
    "moonshine",
    "moonshine",
    pairing="interleaved",
    width={"num_attention_heads": "decoder_num_attention_heads"},
)

# DeepSeek-V3 and the MLA families after it: rope_interleave (true by default) pairs
# 2i with 2i + 1 (the coordinates are de-interleaved, then rotate_half).
for _name in (
    "deepseek_v3",
    "glm4_moe_lite",
    "axk1",
    "sarvam_mla",
    "youtu",
):
    _put(_name, _name, pairing_key="rope_interleave", pairing_default=True)
_put(
    "mistral4",
    "mistral4",
    pairing_key="rope_interleave",
    pairing_default=True,
    temperature="llama4_beta",
)
_put("ministral3", "ministral3", temperature="llama4_beta")
_put(
    "mistral_large4 mistral_large4_text",
    "mistral_large4",
    pairing="interleaved",
    indexer="interleaved",
    nope="no_rope_layers",
    temperature="llama4_beta",
)
_put(
    "deepseek_v4",
    "deepseek_v4",
    pairing="interleaved",
    indexer="interleaved",
    labels=("main", "compress"),
    blocks={"sliding_attention": "main", "*": "compress"},
)

# Which layers rotate.
_put(
    "llama4 llama4_text",
    "llama4",
    pairing="interleaved",
    nope="no_rope_layers",
    temperature="llama4",
    default_theta=500000.0,
)
_put("smollm3", "smollm3", nope="no_rope_layers")
for _name in ("cohere2", "cohere2_moe"):
    _put(_name, _name, pairing="interleaved", nope="sliding_only", window_pattern=4)
for _name in ("flint", "afmoe"):
    _put(_name, _name, nope="sliding_only")
for _name in ("exaone4", "exaone_moe", "kolibri1"):
    _put(_name, _name, nope="sliding_or_all")
_put("beam", "beam", nope="null_params")
for _module, _names in (
    ("granite_swa", "granite_swa"),
    ("granitemoe_swa", "granitemoe_swa"),
    ("muse_glimmer", "muse_glimmer muse_glimmer_text"),
    ("muse_spark", "muse_spark muse_spark_text"),
):
    _put(_names, _module, nope="zero_theta")

# Multimodal text models: how the pairs are split among the (t, h, w) axes.
_put("qwen2_vl qwen2_vl_text", "qwen2_vl", mrope="chunked", mrope_section=(16, 24, 24))
_put("qwen2_5_vl qwen2_5_vl_text", "qwen2_5_vl", mrope="chunked", mrope_section=(16, 24, 24))
_put("paddleocr_vl paddleocr_vl_text", "paddleocr_vl", mrope="chunked", mrope_section=(16, 24, 24))
_put(
    "qwen2_5_omni qwen2_5_omni_text qwen2_5_omni_thinker qwen2_5_omni_talker",
    "qwen2_5_omni",
    mrope="chunked",
    mrope_section=(16, 24, 24),
)
_put("cosmos3_edge cosmos3_edge_text", "cosmos3_edge", mrope="interleaved_thw")
for _module, _names in (
    ("qwen3_vl", "qwen3_vl qwen3_vl_text"),
    ("qwen3_vl_moe", "qwen3_vl_moe qwen3_vl_moe_text"),
    ("qwen3_omni_moe", "qwen3_omni_moe qwen3_omni_moe_text qwen3_omni_moe_thinker"),
):
    _put(_names, _module, mrope="interleaved_thw", mrope_section=(24, 20, 20))
for _module, _names in (
    ("qwen3_5", "qwen3_5 qwen3_5_text"),
    ("qwen3_5_moe", "qwen3_5_moe qwen3_5_moe_text"),
    ("qwen4_exp", "qwen4_exp qwen4_exp_text"),
):
    _put(_names, _module, mrope="interleaved_thw", mrope_section=(11, 11, 10))
_put(
    "ernie4_5_vl_moe ernie4_5_vl_moe_text",
    "ernie4_5_vl_moe",
    pairing="interleaved",
    mrope="ernie",
    mrope_section=(22, 22, 20),
)
for _module, _names in (
    ("glm4v", "glm4v glm4v_text"),
    ("glm4v_moe", "glm4v_moe glm4v_moe_text"),
    ("glm_ocr", "glm_ocr glm_ocr_text"),
):
    _put(_names, _module, pairing="interleaved", mrope="glm", mrope_section=(8, 12, 12))

# Families whose config class reads the 4.x form its own way.
_put("gemma3 gemma3_text", "gemma3", legacy="gemma3", window_pattern=6)
# GPTNeoXConfig (and the Japanese one) fill the base and the rotated share from
# rotary_emb_base and rotary_pct (convert_rope_params_to_dict), never from a top-level
# rope_theta or partial_rotary_factor.
_put("gpt_neox", "gpt_neox", legacy="gpt_neox")
_put("gpt_neox_japanese", "gpt_neox_japanese", legacy="gpt_neox")
_put("phi3", "phi3", scheme_aliases={"yarn": "longrope", "su": "longrope"})

# Kimi K2 and K2.5: DeepSeek-V3's architecture (Transformers reads kimi_k2 as deepseek_v3).
_put("kimi_k2", "deepseek_v3", pairing_key="rope_interleave", pairing_default=True)
_put("kimi_k25", "kimi_k25", pairing_key="rope_interleave", pairing_default=True)

# More rules for which layers rotate.
_put("bamba", "bamba", nope="attention_indices")
_put("mllama mllama_text_model", "mllama", nope="cross_attention")
_put("recurrent_gemma", "recurrent_gemma", nope="block_types")
_put("lara_mini", "lara_mini", nope="sliding_only")

# Models that rotate only when a key says so.
_put("esm", "esm", switch=("position_embedding_type", "rotary", "absolute"))
_put(
    "wav2vec2-conformer",
    "wav2vec2_conformer",
    switch=("position_embeddings_type", "rotary", "relative"),
)
_put(
    "wav2vec2-bert", "wav2vec2_bert", switch=("position_embeddings_type", "rotary", "relative_key")
)
_put(
    "zamba2",
    "zamba2",
    width={"head_dim": "attention_head_dim"},
    switch=("use_mem_rope", True, False),
)
_put("granitemoehybrid", "granitemoehybrid", switch=("position_embedding_type", "rope", None))

# Model types whose model builds no rotary module: towers of families whose rotary
# lives in the text model, decoders and codecs without one.
for _module, _names in (
    ("clvp", "clvp_decoder"),
    ("cosmos3_edge", "cosmos3_edge_vision"),
    ("deepseek_ocr2", "deepseek_ocr2_sam_vision_model"),
    ("emu3", "emu3_vqgan"),
    ("gemma4", "gemma4_audio"),
    ("glm_image", "glm_image_vision"),
    ("granite_docling", "granite_docling_vision"),
    ("hunyuan_vl", "hunyuan_vl_vision"),
    ("hy_v4_vl", "hy_v4_vl_vision"),
    ("inkling2", "inkling2 inkling2_text"),
    ("molmo2", "molmo2_adapter molmo2_vision"),
    ("moonshine_streaming", "moonshine_streaming_encoder"),
    ("moshi", "moshi_depth"),
    ("nemo_speechlm", "nemo_speechlm"),
    ("phi4_multimodal", "phi4_multimodal_audio phi4_multimodal_vision"),
    ("sam3", "sam3 sam3_detr_decoder sam3_detr_encoder sam3_mask_decoder"),
    ("unlimited_ocr", "unlimited_ocr_sam_vision_model unlimited_ocr_vision_encoder"),
):
    _put(_names, _module, rotary=False)

# Vision towers: the 2-D "axial" ladder over head_dim // 2 (see posenc.layouts).
_put("qwen2_vl_vision", "qwen2_vl", width={"hidden_size": "embed_dim"})

# The head width under another key.
_put("jetmoe", "jetmoe", width={"head_dim": "kv_channels"})
_put("dbrx", "dbrx", width={"hidden_size": "d_model", "num_attention_heads": "n_heads"})
for _name in ("gptj", "codegen"):  # rotary_dim coordinates rotate, pairs 2i and 2i + 1
    _put(
        _name,
        _name,
        pairing="interleaved",
        rotated_key="rotary_dim",
        width={"hidden_size": "n_embd", "num_attention_heads": "n_head"},
    )
# MiniMax-M2's config class reads rotary_dim as partial_rotary_factor; MiniMax-M3-VL's
# config declares a rotary_dim that its rotary module never reads (the whole head turns).
_put("minimax_m2", "minimax_m2", rotated_key="rotary_dim")

# Position schemes posenc does not model, and why.
_COORDINATES = (
    "a vision rotary over normalised patch coordinates (angles 2 pi x coordinate x speed),"
    " not a rotary ladder over integer positions"
)
for _name in ("dinov3_vit", "eomt_dinov3", "sapiens2"):
    _put(_name, _name, unsupported=_COORDINATES)
_put(
    "clvp clvp_encoder",
    "clvp",
    unsupported="CLVP's rotary table is built over the projection width, not a head ladder",
)
_put("efficientloftr", "efficientloftr", unsupported="a 2-D rotary over a feature grid")
_put(
    "esmfold2",
    "esmfold2",
    unsupported="a rotary over 3-D atom coordinates and a residue index, with two bases",
)
_put("vjepa2", "vjepa2", unsupported="a 3-D rotary computed inside the attention, no ladder")
_put(
    "llama4_vision_model",
    "llama4",
    unsupported="a 2-D rotary grid of complex numbers built in the vision tower",
)
_put(
    "pixtral",
    "pixtral",
    unsupported=(
        "a 2-D rotary that gives one ladder's even speeds to the row and its odd speeds to"
        " the column, not posenc's axial layout"
    ),
)
_put(
    "inkling2_vision",
    "inkling2",
    unsupported="a 2-D rotary that pairs 2i with 2i + 1 and turns the width axis first",
)
_put(
    "sam3_vit_model",
    "sam3",
    unsupported="a 2-D rotary that pairs 2i with 2i + 1, each axis's speeds interleaved",
)
_put(
    "minimax_m3_vl_vision",
    "minimax_m3_vl",
    unsupported="a 3-D axial rotary over 2 * ((head_dim // 3) // 2) coordinates per axis",
)
_put(
    "sam3_vision_model",
    "sam3",
    unsupported="the rotary is in its backbone_config (a SAM 3 ViT, read on its own)",
)
_MEMORY = (
    "the rotary is in the memory attention, whose width is memory_attention_hidden_size"
    " over memory_attention_num_heads, a 2-D rotary over the feature map"
)
for _module, _names in (
    ("edgetam_video", "edgetam_video"),
    ("sam2_video", "sam2_video"),
    ("sam3_tracker_video", "sam3_tracker_video"),
):
    _put(_names, _module, unsupported=_MEMORY)

# The sparse-attention indexers entered after their families' other facts: both parts of
# MiniMax-M3-VL (MiniMaxM3VLIndexer, MiniMaxM3VLAttention) and of Qwen4-Exp
# (Qwen4ExpTextQSAIndexer, its attention) call the rotate_half apply_rotary_pos_emb;
# Glm5NextTextIndexer makes no rotary call (Glm5NextTextConfig rejects
# qk_rope_head_dim > 0: its DSA layers are NoPE). conformance/test_indexers.py checks that
# every *Indexer class of the pinned Transformers has a family here.
for _module, _names, _indexer in (
    ("minimax_m3_vl", "minimax_m3_vl minimax_m3_vl_text", "half"),
    ("qwen4_exp", "qwen4_exp qwen4_exp_text", "half"),
    ("glm5_next", "glm5_next glm5_next_text", "none"),
):
    _amend(_names, _module, indexer=_indexer)

# A temperature on the softmax scale, set where the attention class is built: every
# family whose code calls yarn_apply_mscale (conformance/test_softmax_scale.py finds them
# in the pinned Transformers and checks each against its attention's scaling). Sarvam-M
# and Kimi K2 run DeepSeek-V3's classes.
for _module, _names in (
    ("axk1", "axk1"),
    ("axk2", "axk2"),
    ("bailing_hybrid", "bailing_hybrid"),
    ("deepseek_v2", "deepseek_v2"),
    ("deepseek_v3", "deepseek_v3 kimi_k2 sarvam_mla"),
    ("deepseek_v32", "deepseek_v32"),
    ("glm4_moe_lite", "glm4_moe_lite"),
    ("glm_moe_dsa", "glm_moe_dsa"),
    ("hy_v4", "hy_v4"),
    ("hy_v4_vl", "hy_v4_vl hy_v4_vl_text"),
    ("longcat_flash", "longcat_flash"),
    ("minicpm3", "minicpm3"),
    ("mistral4", "mistral4"),
    ("mistral_large4", "mistral_large4 mistral_large4_text"),
    ("youtu", "youtu"),
):
    _amend(_names, _module, softmax_mscale=True)

# The base that Transformers gives a config that saves no rope_theta: its config class's
# default_theta (BailingHybrid: its rope_theta field), 10,000 where the class sets none;
# one per layer type where the class keeps a global and a local one (the local for
# sliding-window layers). conformance/test_default_theta.py strips rope_theta from every
# family's default config and compares posenc's bases with those Transformers builds.
_GEMMA_THETAS = {"full_attention": 1_000_000.0, "sliding_attention": 10_000.0}
_BERT_THETAS = {"full_attention": 160_000.0, "sliding_attention": 10_000.0}
for _theta, _names in (
    (100.0, "gemma4_vision"),
    (1_000.0, "nomic_bert"),
    (20_000.0, "jina_embeddings_v3 pe_audio_encoder pe_audio_video_encoder pe_video_encoder"),
    (100_000.0, "helium"),
    (150_000.0, "gpt_oss openai_privacy_filter"),
    (160_000.0, "gte"),
    (
        500_000.0,
        "EvollaModel evolla bitnet blt blt_global_transformer blt_local_decoder"
        " blt_local_encoder cohere csm csm_depth_decoder_model ernie4_5 ernie4_5_moe"
        " ernie4_5_vl_moe ernie4_5_vl_moe_text exaone flex_olmo mllama mllama_text_model"
        " muse_glimmer_assistant olmo3 paddleocr_vl paddleocr_vl_text qwen3_vl qwen3_vl_text"
        " qwen3_vl_moe qwen3_vl_moe_text",
    ),
    (
        1_000_000.0,
        "cwm emu3 emu3_text_model lfm2 lfm2_moe lfm3 lfm3_vl lfm3_vl_vision minimax mixtral"
        " phimoe qwen2_5_omni qwen2_5_omni_talker qwen2_5_omni_text qwen2_5_omni_thinker"
        " qwen2_5_vl qwen2_5_vl_text qwen2_vl qwen2_vl_text solar_open",
    ),
    (2_000_000.0, "smollm3"),
    (5_000_000.0, "minimax_m2 minimax_m3_vl minimax_m3_vl_text"),
    (6_000_000.0, "bailing_hybrid"),
    (8_000_000.0, "sarvam_moe"),
    (10_000_000.0, "longcat_flash"),
    (11_158_840.0, "hy_v3"),
    (12_000_000.0, "apertus apertus1p5 apertus1p5_text"),
    (80_000_000.0, "dots3_note dots3_note_text"),
    (100_000_000.0, "cosmos3_edge cosmos3_edge_text"),
    (
        _GEMMA_THETAS,
        "gemma3n gemma3n_text neomme t5gemma2 t5gemma2_decoder t5gemma2_encoder t5gemma2_text",
    ),
    (_BERT_THETAS, "modernbert modernbert-decoder pe_audio pe_audio_video pe_video"),
):
    _amend(_names, default_theta=_theta)

for _name, _values in DEFAULTS.items():
    _amend(_name, defaults=dict(_values))
_amend(" ".join(LAYER_TYPES_RULED), layer_types_ruled=True)
for _name, _params in ROPE_DEFAULTS.items():
    _amend(_name, default_rope=_params)
_amend(" ".join(ROPE_RULED), rope_ruled=True)


def family(model_type: str | None) -> Family:
    """The facts of a model type's family: its entry, or an ordinary decoder's."""
    if model_type is None:
        return Family()
    return FAMILIES.get(str(model_type), Family())
