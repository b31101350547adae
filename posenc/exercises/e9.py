"""E9, which layers rotate: ``solve(config)`` returns, for each layer of a model's config,
whether it rotates, its base and its factor, shape (num_hidden_layers, 3).

A config (a dict, as ``json.load`` gives ``config.json``; the v4 form with
``rope_scaling`` or the v5 form with ``rope_parameters``) is read as Transformers 5.x
reads it: the layer types, which layers rotate at all (``no_rope_layers``, where 1 means
the layer rotates; Cohere 2's global layers without rotary), and the rotary parameters
of each layer type (Gemma 3's factor on its global layers only; Proposition 33). Row
``i`` of the answer is ``[1, base, factor]`` for a layer that rotates (factor 1 when the
scheme has none) and ``[0, 0, 0]`` for one that does not. The right answer is read by
``posenc.model_config.read_model``; the configs are those of ``data/configs/``, as
published, or with the changes each case names. The classic mistakes are written out
below.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from posenc.exercises._base import Exercise, Mistake
from posenc.model_config import read_model

#: The published configs the cases start from (``data/configs/README.md`` says where
#: each was read).
CONFIGS = Path(__file__).resolve().parents[2] / "data" / "configs"

#: What each case's config is, by its JSON text: the file, and any change made to it.
_NAMES: dict[str, str] = {}


def _key(config) -> str:
    return json.dumps(config, sort_keys=True)


def config(name: str, change: str = "", **edits) -> dict:
    """The config ``data/configs/<name>.json``, with ``edits`` made in its text part.

    ``change`` says in words what the edits are; the case's description names both.
    """
    path = CONFIGS / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"E9 reads its configs from data/configs in posenc's repository, and {path} is"
            " not there: run it from a clone of the repository"
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    part = data.get("text_config", data)
    for key, value in edits.items():
        part[key] = value
    _NAMES[_key(data)] = f"{name}.json" + (f" {change}" if change else "")
    return data


def _text(config) -> dict:
    return config.get("text_config", config)


def _layers(config) -> int:
    return int(_text(config)["num_hidden_layers"])


def expected(config):
    reading = read_model(copy.deepcopy(config))
    rows = []
    for i in range(_layers(config)):
        kind = reading.layer(i)
        if kind.rotates:
            rows.append([1.0, kind.rope.base, float(kind.rope.params.get("factor", 1.0))])
        else:
            rows.append([0.0, 0.0, 0.0])
    return np.array(rows, dtype=np.float64).reshape(-1, 3)  # (n, 3)


def _by_index(config) -> bool:
    """Whether ``no_rope_layers`` (given, or filled from the interval) decides rotation."""
    part = _text(config)
    flagged = "no_rope_layers" in part or "no_rope_layer_interval" in part
    return flagged or part.get("model_type") in ("llama4_text", "smollm3")


def rows(config, *, factor="right", flags="right", base="right"):
    """The answer with switches that make the classic mistakes.

    factor: 'right', 'every' (the largest factor of the rotating layers, the global
    layers', on all of them) or 'none' (1 on every layer: the scaling never applied).
    flags: 'right', 'backwards' (``no_rope_layers`` read as 1 = no rotary) or 'all'
    (every layer rotates, with the parameters of the rotating layers). base: 'right' or
    'global' (every rotating layer gets the base of the full_attention layers).
    """
    right = expected(config)  # (n, 3)
    turning = right[right[:, 0] == 1.0]  # (m, 3)
    if len(turning) == 0:
        return right
    out = right.copy()
    if flags == "backwards" and _by_index(config):
        out = np.where(right[:, :1] == 1.0, 0.0, turning[0])  # (n, 3): one kind turns
    elif flags == "all":
        out = np.where(right[:, :1] == 1.0, right, turning[0])  # (n, 3)
    on = out[:, 0] == 1.0
    if factor == "every":
        out[on, 2] = turning[:, 2].max()
    elif factor == "none":
        out[on, 2] = 1.0
    if base == "global":
        reading = read_model(copy.deepcopy(config))
        full = [k for k in reading.kinds if k.name == "full_attention" and k.rotates]
        if full:
            out[on, 1] = full[0].rope.base
    return out


MISTAKES = (
    Mistake(
        "factor on every layer",
        "Your sliding-window layers carry the global layers' scaling factor. In Gemma 3 "
        "the linear factor 8 of `rope_scaling` (or of the full_attention entry of "
        "`rope_parameters`) belongs to the full_attention layers only; the "
        "sliding_attention layers keep factor 1 (Proposition 33). Applying it to every "
        "layer is a reported bug (ferrox#39, ollama#13452, llama.cpp#14367).",
        lambda c: rows(c, factor="every"),
    ),
    Mistake(
        "no_rope_layers read backwards",
        "Your rotating layers are the ones that should not rotate, and the other way "
        "round: you read `no_rope_layers` as a list of the layers without rotary. "
        "Despite its name, `no_rope_layers[i] == 1` means that layer i does rotate, and 0 "
        "that it has no position code (Llama 4, SmolLM3; transformers#37344 and "
        "transformers#43756 discuss the name). An empty list is filled with "
        "`int((i + 1) % no_rope_layer_interval != 0)`, with the same meaning.",
        lambda c: rows(c, flags="backwards"),
    ),
    Mistake(
        "sliding layers given the global base",
        "Your sliding-window layers turn with the global layers' base. Each layer type "
        "has its own: in Gemma 3 the sliding layers use `rope_local_base_freq` (10000 "
        "when the config leaves it out) and the global ones `rope_theta` (1000000); in a "
        "`rope_parameters` nested by layer type, each entry has its own `rope_theta`.",
        lambda c: rows(c, base="global"),
    ),
    Mistake(
        "factor on no layer",
        "Your factors are all 1: the scaling of `rope_scaling` (or of `rope_parameters`) "
        "is never applied. Read its `factor` for the layers it belongs to; a config that "
        "sets it and an engine that parses it but never uses it is a reported bug "
        "(mlxcel#1340, Gemma 3's global layers).",
        lambda c: rows(c, factor="none"),
    ),
    Mistake(
        "every layer rotates",
        "Every layer of your answer rotates, but some of this config's layers have no "
        "rotary at all: the layers that `no_rope_layers` marks 0 (or that "
        "`no_rope_layer_interval` leaves out), and in Cohere 2 the full_attention layers. "
        "Their row is `[0, 0, 0]`. Rotating every layer of SmolLM3 is a reported bug "
        "(Camelid#535).",
        lambda c: rows(c, flags="all"),
    ),
)


def draw(rng):
    """Unseen cases: published configs, and some with their layers or parameters changed."""
    scout_layers = int(rng.choice([12, 24, 48]))
    interval = int(rng.choice([2, 3, 4]))
    gemma_layers = int(rng.choice([12, 26, 34]))
    length = int(rng.choice([18, 30, 42]))
    factor = float(rng.choice([4.0, 16.0]))
    local = float(rng.choice([20000.0, 50000.0]))
    smol = int(rng.choice([20, 28, 36]))
    flags = [int(f) for f in rng.random(smol) > 0.3]
    flags[int(rng.integers(smol))] = 0  # one layer at least without rotary
    return [
        (
            config(
                "llama-4-scout-17b-16e",
                f"with num_hidden_layers {scout_layers} and no_rope_layer_interval {interval}",
                num_hidden_layers=scout_layers,
                no_rope_layer_interval=interval,
            ),
        ),
        (config("command-r7b-12-2024"),),
        (config("gpt-oss-120b"),),
        (
            config(
                "gemma-3-4b-rope-parameters",
                f"with num_hidden_layers {gemma_layers} added",
                num_hidden_layers=gemma_layers,
            ),
        ),
        (
            config(
                "gemma-3-27b-it",
                f"with num_hidden_layers {length}, rope_scaling factor {factor:g} and "
                f"rope_local_base_freq {local:g}",
                num_hidden_layers=length,
                rope_scaling={"rope_type": "linear", "factor": factor},
                rope_local_base_freq=local,
            ),
        ),
        (
            config(
                "smollm3-3b",
                f"with {smol} layers and other no_rope_layers",
                num_hidden_layers=smol,
                no_rope_layers=flags,
            ),
        ),
        (config("ministral-3-3b-reasoning-2512"),),
    ]


def describe(config):
    name = _NAMES.get(_key(config))
    if name is None:
        part = _text(config)
        layers = part.get("num_hidden_layers")
        name = f"a {part.get('model_type', 'model')} config of {layers} layers"
    return f"solve(config), config {name}"


COLUMNS = ("whether it rotates", "its base", "its factor")


def where(args, index):
    i, j = index
    return f"at layer {i}, column {j} ({COLUMNS[j]})"


def fallback(config):
    right = expected(config)
    groups: dict[tuple, list[int]] = {}
    for i, row in enumerate(right):
        groups.setdefault(tuple(float(v) for v in row), []).append(i)
    parts = []
    for (rotates, base, factor), layers in groups.items():
        shown = ", ".join(str(i) for i in layers[:4]) + (", ..." if len(layers) > 4 else "")
        if rotates:
            parts.append(
                f"{len(layers)} rotate with base {base:g} and factor {factor:g} (layers {shown})"
            )
        else:
            parts.append(f"{len(layers)} do not rotate (layers {shown})")
    return (
        f"Print the type of each layer and whether it rotates. Of this config's "
        f"{len(right)} layers, " + "; ".join(parts) + "."
    )


TASK = """\
Say, for each layer of a model, whether it rotates its queries and keys, and
with which base and factor, reading its config.json as Transformers 5.x reads
it.

Write a file with a function

    def solve(config):

config   a model's config.json as a dict (json.load gives it), in the v4 form
         (rope_theta beside rope_scaling) or the v5 form (rope_parameters)

It returns num_hidden_layers rows of three floats, one row per layer, in order:
[1, base, factor] for a layer that rotates (factor 1.0 when its parameters set
none) and [0, 0, 0] for a layer without rotary. A NumPy array, or a list of
rows.

The settings are those of config["text_config"] when there is one, else of the
config itself; n = num_hidden_layers.

Layer types: layer_types[i] when the config lists them; else, with
sliding_window_pattern P (6 for a "gemma3_text" model that does not say),
layer i is "full_attention" when (i + 1) % P == 0 and "sliding_attention"
otherwise.

Which layers rotate:
  no_rope_layers[i] == 1: layer i rotates, 0: it does not (despite the name).
      Empty or missing in a "llama4_text" or "smollm3" model, or with
      no_rope_layer_interval set: filled as int((i + 1) % interval != 0), the
      interval no_rope_layer_interval, 4 if unset.
  "cohere2": only the "sliding_attention" layers rotate.
  Otherwise every layer rotates.

Base and factor of a rotating layer (factor 1.0 when the entry has none):
  rope_parameters nested by layer type ({"full_attention": {...},
      "sliding_attention": {...}}): the entry of the layer's type, its
      rope_theta and its factor.
  "gemma3_text" without that nesting: full_attention layers take rope_theta
      (1000000.0 if unset) and the factor of rope_scaling; sliding_attention
      layers take rope_local_base_freq (10000.0 if unset) and factor 1.0.
  Otherwise one entry for every layer: rope_scaling if it is set and not empty
      (its factor; the base is the top-level rope_theta), else rope_parameters
      (its rope_theta and factor); a base the entry does not give is the
      top-level rope_theta.

Worked examples (data/configs/ in the repository):

    gemma-3-27b-it.json: 62 layers; every sixth (5, 11, ..., 59) rotates with
        [1, 1000000, 8], the other 52 with [1, 10000, 1]
    smollm3-3b.json: 36 layers; layers 3, 7, ..., 35 are [0, 0, 0], the other
        27 rotate with [1, 5000000, 1]
    gemma-4-31b.json: 60 layers; every sixth rotates with [1, 1000000, 1]
        (proportional), the other 50 with [1, 10000, 1]"""


class _Read(Sequence):
    """The worked examples, read from ``data/configs`` when first used, not at import.

    An installed posenc without the repository beside it can then still import the
    other exercises; E9 itself says what is missing when it is run.
    """

    def __init__(self, make) -> None:
        self._make = make
        self._cases: tuple | None = None

    def _all(self) -> tuple:
        if self._cases is None:
            self._cases = tuple(self._make())
        return self._cases

    def __getitem__(self, index):
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())


E9 = Exercise(
    key="E9",
    title="Which layers rotate",
    page="exercises/e9-which-layers-rotate.md",
    params=("config",),
    returns="num_hidden_layers rows of three floats: a NumPy array or a list of rows",
    task=TASK,
    worked=_Read(
        lambda: (
            (config("gemma-3-27b-it"),),
            (config("smollm3-3b"),),
            (config("gemma-4-31b"),),
        )
    ),
    draw=draw,
    expected=expected,
    shape=lambda config: (_layers(config), 3),
    describe=describe,
    where=where,
    mistakes=MISTAKES,
    fallback=fallback,
)
