"""Reading a model's ``config.json``: the position scheme of every layer, as Transformers reads it.

:func:`read_model` reads a Hugging Face config whole: which layers there are and of which
type, which of them rotate their queries and keys, and for each kind of layer the rotary
scheme (:mod:`posenc.rope`), its base, the width of the head it turns, the pairing of its
coordinates, the layout of a multimodal position (:mod:`posenc.layouts`) and any
temperature on the queries or the logits (:mod:`posenc.temperature`); what it inferred,
and from what; and the known confusions the config invites (:mod:`posenc.confusions`).
:func:`read_config` gives the rotary scheme of one kind of layer, as before.

How a config is read, as Transformers 5.x reads it:

- **The part.** The language model's settings are at the top level, or in a sub-config
  (``text_config``, ``llm_config``, ``decoder``, ``thinker_config.text_config``, ...).
- **Precedence.** Both forms are read: ``rope_parameters`` (holding ``rope_type``,
  ``rope_theta``, ``partial_rotary_factor``; the v5 form, filled for unscaled models too)
  and ``rope_scaling`` beside ``rope_theta`` (the v4 form). A non-empty ``rope_scaling``
  wins over ``rope_parameters`` (``modeling_rope_utils.py``:
  ``self.rope_parameters = rope_scaling or self.rope_parameters``), and ``rope_theta``
  then comes from the top-level key or the class default: a base that only
  ``rope_parameters`` held is dropped, and the reading says so.
- **Class defaults.** Where a config leaves a key out, the config class's constant
  (``posenc/_class_defaults.py``, generated from the pinned Transformers): the base,
  ``head_dim``, ``sliding_window``, ``partial_rotary_factor``, ``rotary_dim``, and the
  whole rotary block when the config has neither form (Apertus builds llama3 scaling,
  gpt-oss YaRN, Gemma 4 proportional rotary on its global layers). Where a class builds
  these from other keys by a rule posenc does not mirror, the reading cautions.
- **Layers.** ``layer_types`` names each layer's type; ``rope_parameters`` may be nested by
  layer type (Gemma 3: ``full_attention``, ``sliding_attention``) or by block (DeepSeek-V4:
  ``main``, ``compress``). Which layers rotate at all is the family's rule
  (:mod:`posenc.families`): ``no_rope_layers`` (1 means the layer rotates), NoPE layers
  every ``no_rope_layer_interval``, rotary on sliding-window layers only, ...
- **Width.** The head width is ``head_dim`` (per layer in ``per_layer_config``, or
  ``global_head_dim`` for the global layers of Gemma 4), else ``hidden_size //
  num_attention_heads``, under the family's own key names; the rotated width is
  ``int(head_dim * partial_rotary_factor)``, or MLA's ``qk_rope_head_dim`` when the config
  has no partial factor.

The rules above are those of the Transformers pinned for ``make conformance`` (5.24).
Older versions read some configs otherwise: transformers#38224 (May 2025) reports that a
YaRN config holding ``original_max_position_embeddings`` had its ``factor`` replaced by
``max_position_embeddings / original_max_position_embeddings``, whatever ``factor`` it
gave; a maintainer named pull request #40320 as the fix. posenc reads ``factor`` as given.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from posenc import _files, _validate
from posenc.families import FAMILIES, Family, family
from posenc.rope import _PARAMETERS, SCHEMES, _length, inv_freq, yarn_mscale
from posenc.temperature import Temperature

__all__ = [
    "CONFIG_LIMIT",
    "Caution",
    "LayerKind",
    "ModelReading",
    "RopeConfig",
    "read_config",
    "read_model",
]

# Old names of schemes in configs, and what they mean now.
_OLD_NAMES = {"su": "longrope", "mrope": "default"}

#: Largest config.json read, in bytes. A model's config is a few kilobytes; one that
#: lists tens of thousands of class labels is a few megabytes. A file beyond this is not
#: a config, and the limit keeps its parse small: see ``_JSON_BYTES``.
CONFIG_LIMIT = 16 * 10**6

#: Memory that parsing JSON may take per character of text, in bytes: at most 28
#: measured (CPython 3.11, a list of one-key objects ``[{"a":[]},...]``), 8 to 12 for
#: numbers and strings. So a config of ``CONFIG_LIMIT`` bytes needs at most 512 MB.
_JSON_BYTES = 32


def _read_json(path: str | os.PathLike) -> object:
    """The JSON value of the file ``path``: a regular file of at most ``CONFIG_LIMIT`` bytes.

    A FIFO or a device is refused without blocking (:func:`posenc._files.read_text`); the
    parse is checked against the memory limit before it starts.
    """
    shown = _validate.shown(os.fspath(path), 200)
    text = _files.read_text(path, limit=CONFIG_LIMIT, what=shown)
    _validate.memory(f"{shown}, {len(text)} characters of JSON", _JSON_BYTES * len(text))
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{shown} is not JSON: {error.msg} at line {error.lineno}") from None
    except RecursionError:
        raise ValueError(
            f"{shown} nests its JSON too deeply to be read (a config nests a few levels)"
        ) from None
    except ValueError as error:  # an integer of more than 4300 digits
        raise ValueError(f"{shown} is not a config: {' '.join(str(error).split())}") from None


def _section(where: str, value: object) -> dict:
    """A JSON object of the config (``rope_scaling``, ``rope_parameters``) as a dict."""
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{where} must be a JSON object (a dict), got {type(value).__name__} "
            f"{_validate.shown(value)}"
        )
    return dict(value)


def _config_base(key: str, value: object) -> float:
    """``rope_theta`` (or the key it came from), checked under its own name."""
    try:
        return _validate.base(value)
    except (TypeError, ValueError) as error:  # "base must be ...": say the config's key
        raise type(error)(key + str(error).removeprefix("base")) from None


@dataclass(frozen=True)
class RopeConfig:
    """A model's rotary scheme as read from its ``config.json``.

    ``params`` holds the keyword arguments of :func:`inv_freq` that the config sets
    (Hugging Face's names); ``form`` says where they were found ("rope_parameters",
    "rope_scaling" or "none": no scaling entry), and ``notes`` what was inferred.
    """

    scheme: str
    head_dim: int
    base: float
    params: dict[str, Any] = field(default_factory=dict)
    form: str = "none"
    notes: tuple[str, ...] = ()

    def inv_freq(self, seq_len: int | None = None) -> tuple[np.ndarray, float]:
        """The speeds and attention factor, at ``seq_len`` for "dynamic" and "longrope"."""
        params = dict(self.params)
        if seq_len is not None:
            if self.scheme not in ("dynamic", "longrope"):
                raise ValueError(f'the "{self.scheme}" scheme does not depend on seq_len')
            params["seq_len"] = seq_len
        return inv_freq(self.scheme, self.head_dim, base=self.base, **params)


# --------------------------------------------------------------------------------------
# The part of the config that holds the language model, and its family.

#: Keys that say a (sub-)config holds an attention stack's position settings.
_SETTINGS = (
    "rope_parameters",
    "rope_scaling",
    "rope_theta",
    "head_dim",
    "hidden_size",
    "qk_rope_head_dim",
    "num_attention_heads",
)

#: Sub-configs that hold a multimodal or encoder-decoder model's language model, in the
#: order they are looked for.
_TEXT_PARTS = (
    "text_config",
    "llm_config",
    "language_config",
    "thinker_config",
    "decoder",
    "decoder_config",
    "global_config",
    "encoder_config",
    "asr_config",
    "audio_config",
    "dit_config",
)


def _load(config: Mapping[str, Any] | str | Path) -> Mapping[str, Any]:
    if isinstance(config, str | Path):
        config = _read_json(config)
    if not isinstance(config, Mapping):
        raise TypeError(
            f"config must be a dict or the path of a config.json, got {type(config).__name__}"
        )
    return config


#: Keys that give the width of a head, in one family or another.
_WIDTHS = (
    "head_dim",
    "hidden_size",
    "qk_rope_head_dim",
    "kv_channels",
    "d_model",
    "embed_dim",
    "n_embd",
)


def _text_part(config: Mapping[str, Any], notes: list[str]) -> tuple[Mapping[str, Any], str]:
    """The (sub-)config that holds the language model's settings, and its path.

    The top level, when it holds position settings and a head width; else the first
    sub-config of :data:`_TEXT_PARTS` that does (searched one level further down, for
    ``thinker_config.text_config``); else the top level, whose reading then names what
    is missing.
    """
    found = _parts(config, "")
    for needs in (_complete, _widthful):  # rotary parameters and a width; else a width
        for part, path in found:
            if needs(part):
                if path:
                    notes.append(f"read from {path}")
                return part, path
    return config, ""


def _parts(config: Mapping[str, Any], path: str) -> list[tuple[Mapping[str, Any], str]]:
    """The config and its text-model sub-configs (two levels down), the top first."""
    found = [(config, path)]
    for key in _TEXT_PARTS:
        sub = config.get(key)
        if isinstance(sub, Mapping) and path.count(".") < 1:
            found += _parts(sub, f"{path}.{key}" if path else key)
    return found


def _widthful(part: Mapping[str, Any]) -> bool:
    return any(part.get(k) is not None for k in _WIDTHS)


def _complete(part: Mapping[str, Any]) -> bool:
    rotary = ("rope_parameters", "rope_scaling", "rope_theta", "rotary_dim", "rotary_emb_base")
    return _widthful(part) and any(part.get(k) is not None for k in rotary)


# --------------------------------------------------------------------------------------
# One kind of layer: its rotary scheme, read from a flat config.


class _NoRotary(Exception):
    """The config says these layers have no rotary part (MLA with qk_rope_head_dim 0)."""


def _integer_key(config: Mapping[str, Any], key: str, minimum: int) -> int:
    return _validate.integer(key, config[key], minimum=minimum)


def _head_dim(config: Mapping[str, Any], fam: Family, partial: object, notes: list[str]) -> int:
    """The width of the head the rotation is taken over.

    ``head_dim`` (under the family's name for it), else ``hidden_size //
    num_attention_heads``. MLA's ``qk_rope_head_dim`` is the rotated part of a head: it is
    the head when the config has no partial factor (DeepSeek-V2/V3); with one, the
    partial factor applies to ``head_dim`` as Transformers applies it (DeepSeek-V4,
    Mistral 4).
    """

    def key(name: str) -> str:
        return fam.width.get(name, name)

    rope_part = config.get("qk_rope_head_dim")
    if rope_part == 0:
        raise _NoRotary("qk_rope_head_dim 0: the heads have no rotary part")
    if rope_part is not None and partial is None:
        notes.append("head_dim = qk_rope_head_dim (MLA: the rotated part of each head)")
        return _integer_key(config, "qk_rope_head_dim", 2)
    if config.get(key("head_dim")) is not None:
        if key("head_dim") != "head_dim":
            notes.append(f"head_dim = {key('head_dim')} (the family's name for it)")
        return _integer_key(config, key("head_dim"), 2)
    hidden_key, heads_key = key("hidden_size"), key("num_attention_heads")
    if config.get(heads_key) is None and config.get("num_heads") is not None:
        heads_key = "num_heads"  # the name vision configs give it (their attribute_map)
    if config.get(hidden_key) is None or config.get(heads_key) is None:
        raise ValueError(f"config has neither {key('head_dim')} nor {hidden_key} and {heads_key}")
    hidden = _integer_key(config, hidden_key, 1)
    heads = _integer_key(config, heads_key, 1)
    notes.append(f"head_dim = {hidden_key} // {heads_key}")
    if hidden // heads < 2:
        raise ValueError(
            f"head_dim = {hidden_key} // {heads_key} = {_validate.shown(hidden)} // "
            f"{_validate.shown(heads)} = {hidden // heads} must be >= 2"
        )
    return hidden // heads


def _scheme_name(where: str, scaling: Mapping[str, Any], fam: Family, notes: list[str]) -> str:
    type_key = "rope_type" if "rope_type" in scaling else "type"
    name = scaling.get(type_key, "default")
    if not isinstance(name, str):
        raise TypeError(
            f"{where}'s {type_key} must be the name of a scheme (a string), got "
            f"{type(name).__name__} {_validate.shown(name)}"
        )
    if name in fam.scheme_aliases:
        notes.append(f'"{name}" is read as "{fam.scheme_aliases[name]}", as this family does')
        name = fam.scheme_aliases[name]
    if name in _OLD_NAMES:
        notes.append(f'"{name}" is read as "{_OLD_NAMES[name]}"')
        name = _OLD_NAMES[name]
    if name not in SCHEMES:
        raise ValueError(
            f"rotary scheme {_validate.shown(name)} is not one posenc computes"
            f" ({', '.join(SCHEMES)})"
        )
    return name


def _read_kind(
    config: Mapping[str, Any],
    scaling: Mapping[str, Any],
    form: str,
    base: float,
    fam: Family,
    notes: list[str],
) -> RopeConfig:
    """The rotary scheme of one kind of layer, from the (sub-)config and its parameters.

    ``scaling`` holds the kind's rotary parameters (from ``rope_parameters`` or
    ``rope_scaling``), ``base`` its base, already resolved. As Transformers reads them: a
    top-level ``original_max_position_embeddings`` wins over the one in the parameters
    for "yarn", "longrope" and "llama3", and a missing one is ``max_position_embeddings``;
    "dynamic" stretches from ``max_position_embeddings``.
    """
    name = _scheme_name(form, scaling, fam, notes)
    partial = scaling.get("partial_rotary_factor")
    if partial is None and config.get("partial_rotary_factor") is not None:
        if fam.legacy == "gpt_neox":
            notes.append("partial_rotary_factor at the top is not read by this family")
        else:
            partial = config["partial_rotary_factor"]
    if partial is None and "rotary_pct" in config:  # GPT-NeoX
        partial = _validate.real("rotary_pct", config["rotary_pct"])
        notes.append("partial_rotary_factor from rotary_pct")
    key = fam.rotated_key
    if partial is None and "partial_rotary_factor" in fam.defaults:
        if key is None or config.get(key) is None:
            partial = fam.defaults["partial_rotary_factor"]
            notes.append(f"partial_rotary_factor not set: {partial:g} (the class default)")
    head_dim = _head_dim(config, fam, partial, notes)
    if partial is None and key is not None and config.get(key) is not None:
        rotated = _validate.integer(key, config[key], minimum=2)
        partial = rotated / head_dim
        notes.append(f"{key} {rotated} of the {head_dim} coordinates rotate")
    elif config.get("rotary_dim") is not None and key != "rotary_dim":
        shown = _validate.shown(config["rotary_dim"])
        notes.append(
            f"rotary_dim {shown} is in the config, but this family's code does not read it:"
            " the width comes from the head and partial_rotary_factor"
        )
    params: dict[str, Any] = {}
    if partial is not None and not (isinstance(partial, int | float) and partial == 1):
        params["partial_rotary_factor"] = partial
    for key in _PARAMETERS[name]:
        if key in ("seq_len", "max_position_embeddings", "original_max_position_embeddings"):
            continue
        if scaling.get(key) is not None:
            params[key] = scaling[key]
    if "truncate" in scaling and name == "yarn":
        params["truncate"] = scaling["truncate"]
    max_pos = config.get("max_position_embeddings")
    if isinstance(max_pos, float) and max_pos.is_integer():  # 1200.0: a whole number
        max_pos = int(max_pos)
    if max_pos is not None:  # checked here, under the name the config gives it
        max_pos = _length("max_position_embeddings", max_pos)
    if name in ("yarn", "longrope", "llama3"):
        if config.get("original_max_position_embeddings") is not None:
            params["original_max_position_embeddings"] = config["original_max_position_embeddings"]
        elif scaling.get("original_max_position_embeddings") is not None:
            params["original_max_position_embeddings"] = scaling[
                "original_max_position_embeddings"
            ]
        elif max_pos is not None:
            params["original_max_position_embeddings"] = max_pos
            notes.append("original_max_position_embeddings = max_position_embeddings")
    if name in ("dynamic", "yarn", "longrope") and max_pos is not None:
        params["max_position_embeddings"] = max_pos
    if name in ("yarn", "longrope") and "factor" not in params and max_pos is not None:
        notes.append("factor = max_position_embeddings / original_max_position_embeddings")
    spec = RopeConfig(name, head_dim, base, params, form, tuple(notes))
    spec.inv_freq()  # every value checked now, with the parameter's name in the message
    return spec


# --------------------------------------------------------------------------------------
# The whole model: which layers, of which kind, rotating how.


@dataclass(frozen=True)
class LayerKind:
    """The position scheme of one kind of layer of a model.

    Attributes
    ----------
    name : str
        The layer type (``full_attention``, ``sliding_attention``, ...), the block
        (``main``, ``compress``), or ``all`` for a model whose layers are alike.
    layers : tuple of int
        The indices of the layers of this kind (empty when the config does not say).
    rotates : bool
        Whether these layers rotate their queries and keys at all.
    rope : RopeConfig or None
        The rotary scheme (None when the layers do not rotate).
    pairing : str or None
        "half" (coordinate ``i`` with ``i + r/2``, ``rotate_half``) or "interleaved"
        (``2i`` with ``2i + 1``).
    mrope : tuple or None
        ``(layout, sections)`` of a multimodal rotary (:func:`posenc.layouts.mrope_axes`).
    temperatures : tuple of Temperature
        Factors these layers put on the queries or the cos and sin caches.
    sliding_window : int or None
        The attention window of these layers, if they have one.
    notes : tuple of str
        What was inferred, and from what.
    """

    name: str
    layers: tuple[int, ...]
    rotates: bool
    rope: RopeConfig | None
    pairing: str | None = None
    mrope: tuple[str, tuple[int, ...]] | None = None
    temperatures: tuple[Temperature, ...] = ()
    sliding_window: int | None = None
    notes: tuple[str, ...] = ()

    @property
    def inv_freq(self) -> np.ndarray | None:
        """The speeds of the rotated pairs (0 for the pairs proportional rotary stops)."""
        return None if self.rope is None else self.rope.inv_freq()[0]

    @property
    def rotary_dim(self) -> int:
        """Coordinates of each head that turn: twice the pairs with a nonzero speed."""
        w = self.inv_freq
        if w is None:
            return 0
        turning = 2 * int(np.count_nonzero(w))
        return 2 * turning if self.rope.scheme == "axial" else turning


@dataclass(frozen=True)
class Caution:
    """A known confusion the config invites: a code, what to watch for, and the sources."""

    code: str
    message: str
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelReading:
    """A model's position scheme, layer by layer, as :func:`read_model` read it.

    Attributes
    ----------
    model_type : str or None
        The config's ``model_type`` (of the part read).
    path : str
        Where in the config the language model's settings were found ("" for the top).
    form : str
        "rope_parameters", "rope_scaling", "both" (``rope_scaling`` wins) or "none".
    num_layers : int or None
    kinds : tuple of LayerKind
    max_position_embeddings : int or None
    cautions : tuple of Caution
    notes : tuple of str
    """

    model_type: str | None
    path: str
    form: str
    num_layers: int | None
    kinds: tuple[LayerKind, ...]
    max_position_embeddings: int | None = None
    cautions: tuple[Caution, ...] = ()
    notes: tuple[str, ...] = ()

    def kind(self, name: str | None = None) -> LayerKind:
        """The kind of layer called ``name``, or the only rotating scheme if there is one."""
        if name is not None:
            for k in self.kinds:
                if k.name == name and k.rotates:
                    return k
            for k in self.kinds:
                if k.name == name:
                    return k
            names = ", ".join(dict.fromkeys(k.name for k in self.kinds))
            raise ValueError(f"layer_type must be one of {names}, got {_validate.shown(name)}")
        rotating = [k for k in self.kinds if k.rotates]
        distinct = {
            (k.rope.scheme, k.rope.base, k.rope.head_dim, repr(k.rope.params)) for k in rotating
        }
        if len(distinct) > 1:
            names = ", ".join(sorted({k.name for k in rotating}))
            raise ValueError(
                f"this config sets one rotary scheme per layer type ({names}): choose one"
                " with layer_type= (on the command line, --layer-type)"
            )
        if not rotating:
            raise ValueError("no layer of this config rotates its queries and keys")
        return rotating[0]

    def layer(self, index: int) -> LayerKind:
        """The kind of layer ``index``."""
        index = _validate.integer("index", index)
        for k in self.kinds:
            if index in k.layers:
                return k
        raise ValueError(f"layer {index} is not a layer of this reading")


def read_model(config: Mapping[str, Any] | str | Path) -> ModelReading:
    """Read the position scheme of every layer of a model from its ``config.json``.

    ``config`` is a dict or the path of a config.json. See the module's docstring for how
    it is read. Raises ValueError (or TypeError) naming the key for a config that cannot
    be read, and for a family whose position scheme posenc does not model (with why).

    Examples
    --------
    >>> reading = read_model({
    ...     "model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16,
    ...     "num_hidden_layers": 8, "rope_theta": 5e6, "no_rope_layer_interval": 4})
    >>> [(k.name, k.layers, k.rotates) for k in reading.kinds]
    [('all', (0, 1, 2, 4, 5, 6), True), ('all', (3, 7), False)]
    """
    top = _load(config)
    notes: list[str] = []
    part, path = _text_part(top, notes)
    model_type = part.get("model_type", top.get("model_type"))
    for value in (model_type, top.get("model_type")):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"model_type must be a string, got {_validate.shown(value)}")
    # The part's own family when posenc has an entry for it (qwen3_vl_text) or the part
    # holds rotary settings (ModernBERT inside pe_audio); else the model's (SAM 3's CLIP
    # text part holds none, and SAM 3 builds no rotary from it).
    own = part.get("model_type")
    mine = own is not None and (str(own) in FAMILIES or _complete(part))
    fam = family(own if mine else top.get("model_type"))
    if fam.unsupported:
        raise ValueError(f"posenc does not read {model_type}'s position scheme: {fam.unsupported}")
    part = _class_defaults(part, fam, notes)
    form, params, base_of = _parameters(part, fam, notes)
    num_layers, types = _layer_types(part, params, fam, notes)
    kinds = _kinds(part, fam, form, params, base_of, num_layers, types, notes)
    reading = ModelReading(
        model_type=model_type,
        path=path,
        form=form,
        num_layers=num_layers,
        kinds=tuple(kinds),
        max_position_embeddings=part.get("max_position_embeddings"),
        notes=tuple(notes),
    )
    from posenc.confusions import cautions  # here: it reads a ModelReading

    return replace(reading, cautions=tuple(cautions(reading, part, fam)))


def _class_defaults(part: Mapping[str, Any], fam: Family, notes: list[str]):
    """The config with the keys it leaves out that its class fills with a constant.

    ``head_dim``, ``sliding_window`` and, where the family's code reads it, ``rotary_dim``
    here (a key present with null is kept: the class reads null as "none");
    ``partial_rotary_factor`` in :func:`_read_kind`, after the other places it may come
    from.
    """
    filled = dict(part)
    for key, value in fam.defaults.items():
        if key == "partial_rotary_factor" or key in part or fam.width.get(key, key) in part:
            continue
        if key == "rotary_dim" and fam.rotated_key != "rotary_dim":  # its code never reads it
            continue
        filled[key] = value
        notes.append(f"{key} not set: {value:g} (the config class's default)")
    return filled


def _parameters(part: Mapping[str, Any], fam: Family, notes: list[str]):
    """Which form the rotary parameters come from, the parameters, and how bases resolve.

    Returns ``(form, params, base_of)``: ``params`` the dict Transformers builds from
    (possibly nested by layer type or block), ``base_of(kind_params)`` the base of one
    kind's parameters.
    """
    given = {k: part.get(k) for k in ("rope_parameters", "rope_scaling")}
    for key, value in given.items():
        if value is not None and not isinstance(value, Mapping):
            raise TypeError(
                f"{key} must be a JSON object (a dict), got {type(value).__name__} "
                f"{_validate.shown(value)}"
            )
    top_theta = part.get("rope_theta")
    if fam.legacy == "gemma3":
        return _gemma3_parameters(part, given, notes)
    if given["rope_scaling"]:  # Transformers: rope_parameters = rope_scaling or rope_parameters
        form = "both" if given["rope_parameters"] else "rope_scaling"
        params = dict(given["rope_scaling"])
    elif given["rope_parameters"]:
        form, params = "rope_parameters", dict(given["rope_parameters"])
    else:
        form, params = "none", {}
        if given["rope_parameters"] is None and fam.default_rope is not None:
            # Transformers: the class builds its own block when the config has none.
            params = copy.deepcopy(fam.default_rope)
            notes.append(
                f"rope_parameters not set: {json.dumps(params)} (the config class's default)"
            )

    def base_of(kind: Mapping[str, Any], group: str = "all") -> float:
        if kind.get("rope_theta") is not None:
            return _config_base("rope_theta", kind["rope_theta"])
        if top_theta is not None and fam.legacy != "gpt_neox":
            return _config_base("rope_theta", top_theta)
        if top_theta is not None:
            notes.append("rope_theta at the top is not read by this family")
        if part.get("rotary_emb_base") is not None:  # GPT-NeoX
            notes.append("rope_theta from rotary_emb_base")
            return _config_base("rotary_emb_base", part["rotary_emb_base"])
        default = fam.default_theta
        if isinstance(default, Mapping):
            default = default.get(group, default["full_attention"])
        source = "the family's class default" if default is not None else "unset"
        default = 10000.0 if default is None else default
        notes.append(f"rope_theta not set: {default:g} ({source})")
        return default

    return form, params, base_of


def _gemma3_parameters(part: Mapping[str, Any], given, notes: list[str]):
    """Gemma 3's own reading: ``rope_scaling`` scales the global layers, and only them.

    Its config class (``Gemma3TextConfig.convert_rope_params_to_dict``) starts from
    ``rope_parameters`` (default rotary for both layer types if absent), updates the
    ``full_attention`` entry with ``rope_scaling``, and gives the global layers the base
    ``rope_theta`` (1e6 by default) and the sliding layers ``rope_local_base_freq`` (1e4).
    """
    source = given["rope_parameters"] or {}
    params = {
        kind: dict(source.get(kind) or {"rope_type": "default"})
        for kind in ("sliding_attention", "full_attention")
    }
    form = "rope_parameters"
    if given["rope_scaling"]:
        params["full_attention"].update(given["rope_scaling"])
        form = "both" if given["rope_parameters"] else "rope_scaling"
        notes.append("Gemma 3 reads rope_scaling as the global (full_attention) layers' only")
    params["full_attention"].setdefault("rope_theta", part.get("rope_theta", 1_000_000.0))
    local = part.get("rope_local_base_freq", 10_000.0)
    if "rope_local_base_freq" in part:
        notes.append("the sliding layers' base is rope_local_base_freq")
    params["sliding_attention"].setdefault("rope_theta", local)

    def base_of(kind: Mapping[str, Any], group: str = "all") -> float:
        return _config_base("rope_theta", kind["rope_theta"])

    return form, params, base_of


#: Layer types without attention (and so without rotary): linear attention (Gated
#: DeltaNet), convolutions, state-space blocks.
_NOT_ATTENTION = ("linear_attention", "conv", "mamba", "mamba2", "ssm", "recurrent")


def _nested(params: Mapping[str, Any]) -> list[str]:
    """The keys by which the rotary parameters are nested (layer types, blocks), or []."""
    if not params or any(k in params for k in ("rope_type", "type", "rope_theta")):
        return []
    return [str(k) for k, v in params.items() if isinstance(v, Mapping) or v is None]


def _layer_types(part: Mapping[str, Any], params, fam: Family, notes: list[str]):
    """The number of layers and each layer's type (None where the config says nothing)."""
    count = part.get("num_hidden_layers")
    if count is not None:
        count = _validate.integer("num_hidden_layers", count, minimum=1)
    types = part.get("layer_types")
    if types is not None:
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise TypeError(f"layer_types must be a list of strings, got {_validate.shown(types)}")
        if count is not None and len(types) != count:
            raise ValueError(
                f"layer_types lists {len(types)} layers and num_hidden_layers is {count}"
            )
        return len(types), list(types)
    pattern = part.get("sliding_window_pattern", fam.window_pattern)
    if pattern is not None and count is not None:  # Gemma 2/3: every pattern-th layer global
        pattern = _validate.integer("sliding_window_pattern", pattern, minimum=1)
        notes.append(
            f"layer types from sliding_window_pattern {pattern}: layer i is global when"
            f" (i + 1) % {pattern} == 0"
        )
        types = [
            "sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(count)
        ]
        return count, types
    return count, None


def _rotates_nowhere(part, fam: Family, notes: list[str]) -> bool:
    """Whether the family's code rotates no layer of this model at all."""
    if not fam.rotary:
        notes.append("this model type builds no rotary module: its layers have no rotary")
        return True
    if fam.switch is not None:
        key, value, default = fam.switch
        given = part.get(key, default)
        if given != value:
            notes.append(f"{key} is {given!r}, not {value!r}: no layer rotates")
            return True
    return False


def _rotating(part, fam: Family, types, count, notes: list[str]):
    """Whether each layer rotates (a list), None when every layer does, False when none."""
    if _rotates_nowhere(part, fam, notes):
        return False
    if count is None:
        return None
    rule = fam.nope
    if rule == "attention_indices":
        indices = set(part.get("attn_layer_indices") or ())
        notes.append("only the layers of attn_layer_indices are attention layers, and rotate")
        return [i in indices for i in range(count)]
    if rule == "cross_attention":
        cross = set(part.get("cross_attention_layers") or ())
        notes.append("the layers of cross_attention_layers attend to the image, without rotary")
        return [i not in cross for i in range(count)]
    if rule == "block_types":
        blocks = list(part.get("block_types") or ("recurrent", "recurrent", "attention"))
        notes.append("only the attention blocks of block_types rotate; recurrent ones have none")
        return [blocks[i % len(blocks)] == "attention" for i in range(count)]
    if rule is None and ("no_rope_layers" in part or "no_rope_layer_interval" in part):
        rule = "no_rope_layers"
    if rule == "no_rope_layers":
        flags = part.get("no_rope_layers")
        if flags:
            if not isinstance(flags, list) or len(flags) != count:
                raise ValueError(
                    f"no_rope_layers must list one 0 or 1 for each of the {count} layers,"
                    f" got {_validate.shown(flags)}"
                )
            notes.append("no_rope_layers[i] == 1 means layer i rotates (and 0 that it does not)")
            return [bool(f) for f in flags]
        interval = _validate.integer(
            "no_rope_layer_interval", part.get("no_rope_layer_interval", 4), minimum=1
        )
        notes.append(
            f"no_rope_layers empty or not set: every {interval}th layer has no rotary"
            f" (no_rope_layer_interval {interval})"
        )
        return [(i + 1) % interval != 0 for i in range(count)]
    if rule in ("sliding_only", "sliding_or_all") and types is not None:
        window = part.get("sliding_window")
        if rule == "sliding_or_all" and window is None:
            notes.append("no sliding window: every layer rotates")
            return [True] * count
        forced = bool(part.get("force_rope"))
        if forced:
            notes.append("force_rope: every layer rotates")
        notes.append("only the sliding-window layers rotate; the global layers have no rotary")
        return [forced or (t == "sliding_attention" and window is not None) for t in types]
    if rule == "zero_theta" and part.get("layer_rope_theta") is not None:
        thetas = part["layer_rope_theta"]
        notes.append("layer_rope_theta[i] == 0: layer i has no rotary")
        return [bool(t) for t in thetas]
    return None


def _kinds(part, fam: Family, form, params, base_of, count, types, notes):
    """Every kind of layer of the model, with its scheme."""
    nested = _nested(params)
    if nested and types is None and not fam.labels:
        notes.append(
            "rope_parameters is nested by layer type, but the config lists no layer_types:"
            " which layers are of which type is not known"
        )
    flags = _rotating(part, fam, types, count, notes)
    groups = nested or (list(dict.fromkeys(types)) if types is not None else ["all"])
    every = tuple(range(count)) if count else ()
    kinds = []
    if fam.blocks and types is not None and nested:
        notes.append(
            "each layer's block: "
            + ", ".join(f"{t} layers use {b!r}" for t, b in fam.blocks.items() if t != "*")
            + (f", the others {fam.blocks['*']!r}" if "*" in fam.blocks else "")
        )
    for group in groups:
        if fam.blocks and group in fam.labels and types is not None:
            default = fam.blocks.get("*")
            indices = tuple(i for i, t in enumerate(types) if fam.blocks.get(t, default) == group)
        elif group in fam.labels or types is None:
            indices = every
        else:
            indices = tuple(i for i, t in enumerate(types) if t == group)
        kind_params = params.get(group) if nested else params
        where = f"{form}[{group!r}]" if nested else form
        if kind_params is None or group in _NOT_ATTENTION:  # a null entry, or no attention
            kinds.append(_kind(part, fam, where, group, indices, False, None, base_of))
            continue
        if flags is False:  # no layer of this model rotates
            kinds.append(_kind(part, fam, where, group, indices, False, None, base_of))
            continue
        turning = tuple(i for i in indices if flags is None or flags[i])
        still = tuple(i for i in indices if flags is not None and not flags[i])
        if turning or not still:
            kinds.append(_kind(part, fam, where, group, turning, True, kind_params, base_of))
        if still:
            kinds.append(_kind(part, fam, where, group, still, False, kind_params, base_of))
    return kinds


def _kind(part, fam: Family, where, group, layers, rotates, kind_params, base_of) -> LayerKind:
    """One kind of layer: the scheme of ``kind_params`` over the head of those layers."""
    notes: list[str] = []
    window = part.get("sliding_window") if "sliding" in group else None
    if not rotates:
        temps = _temperatures(part, fam, None, rotates=False)
        return LayerKind(group, layers, False, None, None, None, temps, window, tuple(notes))
    flat = dict(part)
    head = _per_layer_head_dim(part, group, layers, notes)
    if head is not None:
        flat["head_dim"] = head
    form = where if where != "none" else "rope_parameters"
    if not isinstance(kind_params, Mapping):
        raise TypeError(
            f"{form} must be a JSON object (a dict), got {_validate.shown(kind_params)}"
        )
    try:
        rope = _read_kind(
            flat, kind_params, where.partition("[")[0], base_of(kind_params, group), fam, notes
        )
    except _NoRotary as why:
        notes.append(str(why))
        temps = _temperatures(part, fam, None, rotates=False)
        return LayerKind(group, layers, False, None, None, None, temps, window, tuple(notes))
    pairing = fam.pairing
    if fam.pairing_key is not None:
        flag = bool(part.get(fam.pairing_key, fam.pairing_default))
        pairing = "interleaved" if flag else "half"
        notes.append(f"{fam.pairing_key} {str(flag).lower()}: pairing {pairing}")
    mrope = _mrope(part, fam, kind_params, rope, notes)
    temps = _temperatures(part, fam, rope, rotates=True, params=kind_params)
    return LayerKind(group, layers, True, rope, pairing, mrope, temps, window, tuple(notes))


def _per_layer_head_dim(part, group, layers, notes) -> int | None:
    """A head width that this kind's layers set for themselves, if any."""
    per_layer = part.get("per_layer_config")
    if isinstance(per_layer, Mapping) and layers:
        widths = set()
        for i in layers:
            entry = per_layer.get(str(i), per_layer.get(i))
            if isinstance(entry, Mapping) and entry.get("head_dim") is not None:
                widths.add(
                    _validate.integer(
                        f"per_layer_config[{i}].head_dim", entry["head_dim"], minimum=2
                    )
                )
        if len(widths) == 1:
            (width,) = widths
            notes.append(f"head_dim {width} from per_layer_config (these layers' own)")
            return width
        if len(widths) > 1:
            raise ValueError(f"the {group} layers set different head widths: {sorted(widths)}")
    if group == "full_attention" and part.get("global_head_dim") is not None:
        width = _validate.integer("global_head_dim", part["global_head_dim"], minimum=2)
        notes.append(f"head_dim {width} from global_head_dim (the global layers' own)")
        return width
    return None


def _mrope(part, fam: Family, params, rope: RopeConfig, notes: list[str]):
    """``(layout, sections)`` of a multimodal rotary, or None."""
    section = params.get("mrope_section", part.get("mrope_section"))
    layout = fam.mrope
    if layout is None and section is not None:
        layout = "interleaved_thw" if params.get("mrope_interleaved") else "chunked"
    if layout is None:
        return None
    if section is None:
        if fam.mrope_section is None:
            notes.append("M-RoPE without mrope_section: the axes of the pairs are not known")
            return None
        section = fam.mrope_section
        notes.append(f"mrope_section {list(section)}: the family's code default (not saved)")
    if not isinstance(section, list | tuple) or len(section) != 3:
        raise ValueError(
            f"mrope_section must be three pair counts, got {_validate.shown(section)}"
        )
    section = tuple(_validate.integer("mrope_section", n, minimum=0) for n in section)
    pairs = int(np.count_nonzero(rope.inv_freq()[0]))
    if sum(section) != pairs and (layout != "interleaved_thw" or sum(section) > pairs):
        notes.append(
            f"mrope_section {list(section)} sums to {sum(section)} pairs, but the head rotates"
            f" {pairs}: Transformers cannot split the cache (split_with_sizes fails)"
        )
    elif sum(section) < pairs:
        notes.append(
            f"mrope_section {list(section)} covers {sum(section)} of the {pairs} pairs: the"
            " others turn by the temporal position"
        )
    return layout, section


def _temperatures(part, fam: Family, rope, *, rotates: bool, params=None) -> tuple:
    temps = []
    if rope is not None:
        factor = rope.inv_freq()[1]
        if factor != 1.0:
            temps.append(Temperature("cache", "the cos and sin caches", {"factor": factor}))
    if fam.temperature == "llama4" and not rotates and part.get("attn_temperature_tuning", True):
        temps.append(
            Temperature(
                "llama4",
                "the queries of the layers without rotary",
                {
                    "attn_scale": _validate.real("attn_scale", part.get("attn_scale", 0.1)),
                    "floor_scale": _validate.integer(
                        "floor_scale", part.get("floor_scale", 8192), minimum=1
                    ),
                },
            )
        )
    if fam.softmax_mscale and rope is not None and rope.scheme != "default" and params:
        # Transformers reads rope_parameters["factor"] and ["mscale_all_dim"] as saved.
        all_dim = params.get("mscale_all_dim") or 0
        if all_dim:
            s = _validate.real("factor", params.get("factor"))
            m = yarn_mscale(s, _validate.real("mscale_all_dim", all_dim))
            temps.append(
                Temperature(
                    "softmax",
                    "the softmax scale",
                    {"factor": m * m, "scaling": s, "mscale_all_dim": all_dim},
                )
            )
    if fam.temperature == "llama4_beta" and rotates and params is not None:
        beta = params.get("llama_4_scaling_beta")
        length = params.get("original_max_position_embeddings")
        if beta is not None and length is not None:
            temps.append(
                Temperature(
                    "llama4_beta",
                    "the queries",
                    {
                        "beta": _validate.real("llama_4_scaling_beta", beta),
                        "length": _length("original_max_position_embeddings", length),
                    },
                )
            )
    return tuple(temps)


def read_config(
    config: Mapping[str, Any] | str | Path, *, layer_type: str | None = None
) -> RopeConfig:
    """Read the rotary scheme of one kind of layer of a ``config.json`` (a dict or a path).

    The scheme of the layers of type ``layer_type``, read by :func:`read_model`. Without
    ``layer_type``, the config must set one rotary scheme for every layer that rotates;
    a config with one per layer type (Gemma 3's ``full_attention`` and
    ``sliding_attention``) needs ``layer_type``.
    """
    reading = read_model(config)
    if layer_type is not None and len({k.name for k in reading.kinds}) == 1:
        only = reading.kinds[0].name
        if layer_type != only:
            raise ValueError(
                "layer_type is only for configs with one rotary scheme per layer type"
                f" (this config's layers are all {only})"
            )
    kind = reading.kind(layer_type)
    if kind.rope is None:
        raise ValueError(f"the {kind.name} layers do not rotate their queries and keys")
    notes = [*reading.notes, *kind.rope.notes]
    if kind.name != "all":
        notes.append(f"the {kind.name} layers")
    return replace(kind.rope, notes=tuple(notes))
