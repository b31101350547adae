"""The zoo, part 5: posenc's reading of a family's config.json against its built modules.

:func:`judge` takes a family as :func:`_zoo_build.build` built it, reads the saved
config.json with :func:`posenc.model_config.read_model`, and compares, for each kind of
layer posenc reads (a layer type, a block, or "all"):

- **speeds**: posenc's inverse frequencies against the ``inv_freq`` of the rotary table
  those layers use (traced through the forward: the table whose cos and sin reached the
  layer's apply function; else by layer type). Same length, and each speed within the
  float32 model's bound of ``test_rope.py`` (``bound``: ``(|ln base| + 5) u`` for the
  ladder, plus the roundings of each scheme; ``u = 2**-24``). A speed that posenc stops
  (proportional rotary) must be exactly 0 in the module too. M-RoPE whose buffer is
  stored permuted (Ernie 4.5 VL) is compared as a ladder (sorted), and its axes below;
- **attention**: the module's ``attention_scaling`` against posenc's attention factor,
  within ``8 * 2**-53`` relative (both compute it in float64, as ``test_rope.py`` says);
- **layers**: the layers posenc says rotate against the layers whose forward applied a
  rotation (``_zoo_layers``);
- **pairing**: the pairing of the apply function those layers called (measured on unit
  vectors, ``_zoo_probe.pairing``) against posenc's;
- **mrope**: the axis that turns each speed of the ladder, from the module's forward
  with one position axis set at a time, against ``posenc.layouts.mrope_axes``; a module
  that takes three position axes where posenc reads one differs too;
- **part**: posenc reads one part of the config (``text_config``, ...); a family whose
  rotary modules are all built from other parts differs.

A family posenc refuses is "not modelled" when the refusal is one of
``posenc.families``' ``unsupported`` reasons, else it differs ("refused"). An aspect the
harness could not measure (a forward that failed, a table no layer reached) is listed in
``unmeasured`` with why, never passed over in silence.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field

import numpy as np
from _zoo_enumerate import err, quiet, scan, source_file
from _zoo_layers import trace
from _zoo_probe import pairing, probe, tables
from test_rope import EPS64, U, bound, ladder_error

from posenc.families import FAMILIES
from posenc.layouts import mrope_axes
from posenc.model_config import read_model

ASPECTS = ("refused", "part", "layers", "speeds", "attention", "pairing", "mrope")
#: Attention factors: both sides compute them in float64 (math.log, math.sqrt).
ATTENTION_BOUND = 8 * EPS64
_UNSUPPORTED = re.compile(r"posenc does not read (\S+)'s position scheme: (.*)$", re.S)


class _Joined(dict):
    """Differences by aspect: a second text for an aspect is added to the first."""

    def __setitem__(self, key, value):
        if key in self and value not in self[key]:
            value = f"{self[key]}; {value}"
        super().__setitem__(key, value)


@dataclass
class Judgement:
    """What the zoo records for one family."""

    model_type: str
    file: str
    status: str  # "agrees", "differs", "not modelled", "could not build"
    differences: dict[str, str] = field(default_factory=_Joined)  # aspect -> what differs
    unmeasured: dict[str, str] = field(default_factory=dict)  # aspect -> why
    reason: str = ""  # posenc's refusal, or why the family could not be built
    reading: dict | None = None  # posenc's reading, for the record
    measured: list[dict] = field(default_factory=list)  # per kind: what the module does
    notes: list[str] = field(default_factory=list)
    largest: float | None = None  # largest relative speed difference
    bound_used: float | None = None  # its largest fraction of the bound

    @property
    def aspects(self) -> tuple[str, ...]:
        return tuple(a for a in ASPECTS if a in self.differences)


def speed_bound(rope) -> float:
    """The relative bound on a float32 module's speeds for posenc's scheme ``rope``."""
    if rope.scheme in ("default", "linear", "dynamic", "longrope", "llama3", "yarn"):
        return bound(rope.scheme, rope.base, rope.params)
    return ladder_error(rope.base) + 2 * U  # proportional (one division), axial


def ranges(indices) -> str:
    """[0, 1, 2, 5, 7, 9] -> "0-2, 5-9 step 2" (layer lists, short)."""
    idx = sorted(indices)
    if not idx:
        return "none"
    parts, i = [], 0
    while i < len(idx):
        j = i
        step = idx[i + 1] - idx[i] if i + 1 < len(idx) else 1
        while j + 1 < len(idx) and idx[j + 1] - idx[j] == step:
            j += 1
        if j - i >= 2 or (j > i and step == 1):
            parts.append(f"{idx[i]}-{idx[j]}" + (f" step {step}" if step != 1 else ""))
        else:
            parts.extend(str(x) for x in idx[i : j + 1])
        i = j + 1
    return ", ".join(parts)


def reading_record(reading) -> dict:
    """posenc's reading, as the record keeps it (and the atlas shows it)."""
    kinds = []
    for k in reading.kinds:
        rope = k.rope
        factor = None if rope is None else float(rope.inv_freq()[1])
        kinds.append(
            {
                "name": k.name,
                "layers": list(k.layers),
                "rotates": k.rotates,
                "scheme": None if rope is None else rope.scheme,
                "base": None if rope is None else rope.base,
                "head_dim": None if rope is None else rope.head_dim,
                "rotary_dim": k.rotary_dim,
                "params": {} if rope is None else _plain(rope.params),
                "pairing": k.pairing,
                "mrope": None if k.mrope is None else [k.mrope[0], list(k.mrope[1])],
                "attention_factor": factor,
                "temperatures": [
                    {"rule": t.rule, "applied": t.applied, "params": _plain(t.params)}
                    for t in k.temperatures
                ],
                "sliding_window": k.sliding_window,
            }
        )
    return {
        "path": reading.path,
        "form": reading.form,
        "num_layers": reading.num_layers,
        "kinds": kinds,
        "cautions": [c.code for c in reading.cautions],
    }


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def judge(built) -> Judgement:
    """Compare posenc's reading of the family's saved config with its modules."""
    out = Judgement(built.model_type, source_file(built.model_type), "agrees")
    if built.data is None:
        out.status, out.reason = "could not build", built.error or "no config"
        return out
    try:
        reading = read_model(built.data)
    except (ValueError, TypeError) as error:
        reading, refusal = None, " ".join(str(error).split())
    if reading is None:
        found = _UNSUPPORTED.search(refusal)
        family = FAMILIES.get(found.group(1)) if found else None
        if family is not None and family.unsupported and family.unsupported in refusal:
            out.status, out.reason = "not modelled", family.unsupported
            return out
        out.reason = refusal
    else:
        out.reading = reading_record(reading)
    if built.error is not None:
        out.status, out.reason = "could not build", built.error
        return out
    if reading is None:
        if built.constructions:
            out.differences["refused"] = (
                f"posenc refuses ({refusal}); the model rotates (rotary modules built from"
                f" {_where(built)})"
            )
        else:
            out.notes.append(f"the model builds no rotary, and posenc refuses: {refusal}")
    else:
        _compare(built, reading, out)
    if out.differences:
        out.status = "differs"
    elif _rotating(reading) and not any("largest_difference" in m for m in out.measured):
        out.status = "could not build"  # no table of the family's to compare with
        out.reason = out.unmeasured.get("speeds") or out.unmeasured.get("layers") or "no table"
    return out


def _rotating(reading) -> bool:
    """Whether posenc says some layer of the model rotates."""
    if reading is None:
        return False
    known = reading.num_layers is not None
    return any(k.rotates and (k.layers or not known) for k in reading.kinds)


def _compare(built, reading, out: Judgement) -> None:
    path = reading.path
    here = [i for i, c in enumerate(built.constructions) if c.config_path == path]
    posenc_rotates = sorted({i for k in reading.kinds if k.rotates for i in k.layers})
    if not built.constructions:
        if any(k.rotates for k in reading.kinds):
            out.differences["layers"] = (
                f"posenc: {_which(posenc_rotates)}; the model ({built.model_class}) builds no"
                " rotary module"
            )
        return
    if not here:  # a config the model derived (Mimi's encoder and decoder configs)
        here = [i for i, c in enumerate(built.constructions) if c.config_path is None]
    if not here:
        _elsewhere(built, reading, posenc_rotates, out)
        return
    count = reading.num_layers
    traces = trace(built, path, count)
    if count is None and len(traces) == 1 and len(reading.kinds) == 1:
        # posenc reads no layer count: its one kind is every layer of the one list
        count = traces[0].count
        if reading.kinds[0].rotates:
            posenc_rotates = list(range(count))
        out.notes.append(f"posenc reads no layer count; the model has {count} layers")
    lengths = sorted({t.count for t in traces})
    traces = [t for t in traces if t.count == count]
    layer_trace = next((t for t in traces if t.complete), traces[0] if traces else None)
    if layer_trace is None:
        found = f" (its layer lists: {', '.join(map(str, lengths))} layers)" if lengths else ""
        out.unmeasured["layers"] = (
            f"no layer list of {count} layers built from {path or 'the top level'}"
            f"{found}: {built.route}"
        )
    elif not layer_trace.complete:
        out.unmeasured["layers"] = (
            f"{layer_trace.owner or 'the model'}: {layer_trace.error}"
            f" ({layer_trace.reached} of {layer_trace.count} layers reached)"
        )
        layer_trace = None
    if layer_trace is not None:
        measured = layer_trace.rotating
        others = [t.rotating for t in traces if t.complete and t is not layer_trace]
        if any(m != measured for m in others):  # Mimi's encoder and decoder
            out.differences["layers"] = "the model's layer lists of this length rotate differently"
        if measured != posenc_rotates:
            out.differences["layers"] = (
                f"posenc: layers {ranges(posenc_rotates)} rotate; the model applies a"
                f" rotation in layers {ranges(measured)}"
            )
    cache: dict = {}
    if layer_trace is not None:
        out.notes.append(f"which layers rotate: by the {layer_trace.method}")
    for kind in reading.kinds:
        facts = {"name": kind.name}
        out.measured.append(facts)
        if not kind.rotates:
            continue
        if not kind.layers and reading.num_layers:
            out.notes.append(f"{kind.name}: no layer of the model is of this kind")
            continue
        layers = kind.layers or (tuple(posenc_rotates) if len(reading.kinds) == 1 else ())
        calls = _main_calls(layer_trace, layers)
        source = _source(built, here, kind, calls)
        if isinstance(source, str):
            out.unmeasured.setdefault("speeds", f"{kind.name}: {source}")
            continue
        index, key = source
        if key != kind.name and key in {k.name for k in reading.kinds}:
            out.differences["layers"] = (
                f"{kind.name}: posenc gives it layers {ranges(kind.layers)}; their apply"
                f" calls get the {key} table"
            )
        construction = built.constructions[index]
        facts["module"] = construction.name + (f" [{key}]" if key else "")
        rope_type = getattr(construction.module, "rope_type", None)
        if isinstance(rope_type, dict):
            rope_type = rope_type.get(key)
        facts["rope_type"] = rope_type if isinstance(rope_type, str) else None
        table, found = _table(construction, key, cache)
        if table is None:
            out.unmeasured.setdefault("speeds", f"{kind.name}: {found}")
            continue
        _speeds(kind, table, facts, out)
        _attention(kind, table, facts, out)
        shape = _probe(construction, key, table, built, cache)
        facts["layout"] = shape.layout
        _pairing(kind, calls, shape, table, built, facts, out, cache)
        _mrope(kind, shape, facts, out)


def _which(layers) -> str:
    return f"layers {ranges(layers)} rotate" if layers else "every layer rotates"


def _where(built) -> str:
    """The config parts the family's rotary modules are built from, in words."""
    names = {
        "the top level" if c.config_path == "" else c.config_path or "a config the model derived"
        for c in built.constructions
    }
    return ", ".join(sorted(names))


def _elsewhere(built, reading, posenc_rotates, out: Judgement) -> None:
    """No rotary module is built from the part posenc reads: do its layers rotate?"""
    path = reading.path or "the top level"
    where = _where(built)
    if built.model is None:  # the model's own rotary for this part was not reached
        out.unmeasured["speeds"] = f"no rotary module built from {path}: {built.route}"
        return
    traces = trace(built, reading.path, reading.num_layers)
    if reading.num_layers is not None or len(traces) != 1:  # one list: posenc's "all"
        traces = [t for t in traces if t.count == reading.num_layers]
    done = [t for t in traces if t.complete]
    if done and not done[0].rotating:
        if posenc_rotates or (reading.num_layers is None and _rotating(reading)):
            out.differences["layers"] = (
                f"posenc: {_which(posenc_rotates)} (in {path}); the model builds no rotary module"
                f" from it and its layers apply none (its rotary modules are built from {where})"
            )
        return
    out.differences["part"] = (
        f"posenc reads {path}; the family's rotary modules are built from {where}"
    )


def _main_calls(layer_trace, layers) -> list:
    """The apply calls of the given layers, shallowest first (the attention's own)."""
    if layer_trace is None:
        return []
    calls = [c for i in layers for c in layer_trace.applied.get(i, [])]
    return sorted(calls, key=lambda c: c.where.count("."))


def _source(built, here, kind, calls):
    """(construction index, table key) these layers use, or why it is not known."""
    depth = min((c.where.count(".") for c in calls), default=None)
    traced = {c.source for c in calls if c.where.count(".") == depth and c.source is not None}
    if len(traced) == 1:
        return next(iter(traced))
    if len(traced) > 1:
        return f"these layers use {len(traced)} different tables"
    named = [i for i in here if built.constructions[i].layer_type == kind.name]
    if len(named) == 1:
        return named[0], ""
    if len(here) == 1:
        return here[0], kind.name
    return "which rotary table these layers use is not known (no traced call)"


def _table(construction, key, cache):
    """The table of a construction for a key (a layer type, or "")."""
    if construction.module is None:
        return None, construction.error or "the module was not built"
    name = id(construction)
    if name not in cache:
        try:
            with quiet():
                cache[name] = tables(construction.module, _config_of(construction))
        except Exception as error:
            cache[name] = err(error)
    found = cache[name]
    if isinstance(found, str):
        return None, found
    if key in found:
        return found[key], key
    if len(found) == 1:
        return next(iter(found.values())), next(iter(found))
    return None, f"no table for {key!r} among {sorted(found)}"


def _config_of(construction):
    values = [*construction.args, *construction.kwargs.values()]
    return next((v for v in values if hasattr(v, "to_dict")), None)


def _probe(construction, key, table, built, cache):
    name = ("probe", id(construction), key)
    if name not in cache:
        config = _config_of(construction) or built.config
        with quiet():
            cache[name] = probe(construction.module, config, table, key)
    return cache[name]


def _relative(posenc: np.ndarray, module: np.ndarray) -> float:
    scale = np.maximum(np.abs(posenc), np.abs(module))
    diff = np.abs(posenc - module)
    return float(np.max(np.where(scale > 0, diff / np.where(scale > 0, scale, 1), 0.0)))


def _speeds(kind, table, facts, out: Judgement) -> None:
    ours = np.asarray(kind.inv_freq, dtype=np.float64)
    theirs = np.asarray(table.inv_freq, dtype=np.float64)
    facts["pairs"] = int(theirs.size)
    facts["attention_scaling"] = table.attention_scaling
    if table.derived:
        facts["speeds_from"] = table.derived
    if ours.size != theirs.size:
        out.differences["speeds"] = (
            f"{kind.name}: posenc {ours.size} pairs ({kind.rope.scheme}, head_dim"
            f" {kind.rope.head_dim}), the module {theirs.size}"
        )
        return
    zeros = (ours == 0) != (theirs == 0)
    if zeros.any():
        out.differences["speeds"] = (
            f"{kind.name}: posenc stops {int((ours == 0).sum())} pairs, the module"
            f" {int((theirs == 0).sum())}"
        )
        return
    largest = _relative(ours, theirs)
    if kind.mrope is not None and largest > speed_bound(kind.rope):
        ladder = _relative(np.sort(ours), np.sort(theirs))
        if ladder <= speed_bound(kind.rope):
            facts["permuted"] = True  # Ernie 4.5 VL: the axes are checked on the ladder
            largest = ladder
    limit = speed_bound(kind.rope) if not table.derived else 4e-6  # a float32 angle
    out.largest = max(out.largest or 0.0, largest)
    out.bound_used = max(out.bound_used or 0.0, largest / limit)
    facts["largest_difference"] = largest
    if largest > limit:
        out.differences["speeds"] = (
            f"{kind.name}: relative difference {largest:.3g}, over the float32 bound"
            f" {limit:.3g} ({kind.rope.scheme}, base {kind.rope.base:g})"
        )


def _attention(kind, table, facts, out: Judgement) -> None:
    if table.attention_scaling is None or table.derived:
        return
    ours = float(kind.rope.inv_freq()[1])
    theirs = table.attention_scaling
    if abs(ours - theirs) > ATTENTION_BOUND * max(abs(ours), abs(theirs)):
        out.differences["attention"] = (
            f"{kind.name}: posenc's attention factor {ours:.9g}, the module's {theirs:.9g}"
        )


def _pairs_of(shape, table) -> int:
    """The pairs of the vector an apply function is given: the table's columns."""
    if shape.columns and (shape.layout or "").startswith("pairs"):
        return shape.columns
    if shape.columns:
        return shape.columns // 2
    return int(np.asarray(table.inv_freq).size)


def _only_apply(built) -> list:
    """The family's one apply function, as a call, when no call was traced."""
    from _zoo_build import import_modeling
    from _zoo_layers import Applied

    found = [
        (module.__name__, name)
        for module in import_modeling(built.model_type)
        for name in scan(built.model_type)["applies"]
        if callable(getattr(module, name, None))
    ]
    return [Applied(found[0][1], found[0][0], "")] if len(found) == 1 else []


def _pairing_of(module_name, function, pairs, cache) -> tuple[str, str]:
    name = ("pairing", module_name, function, pairs)
    if name not in cache:
        fn = getattr(sys.modules.get(module_name or ""), function, None)
        if fn is None:
            cache[name] = ("not measured", f"{function} is a method, not measured")
        else:
            with quiet():
                cache[name] = pairing(fn, pairs)
    return cache[name]


def _pairing(kind, calls, shape, table, built, facts, out: Judgement, cache) -> None:
    if not calls:
        calls = _only_apply(built)
        if calls:
            facts["apply_from"] = "the modeling file's only apply function (no call traced)"
        elif "layers" not in out.differences:
            out.unmeasured.setdefault("pairing", f"{kind.name}: no apply call traced")
            return
        else:
            return  # these layers apply none: the layers differ already
    depth = calls[0].where.count(".")
    main = sorted({(c.module, c.function) for c in calls if c.where.count(".") == depth})
    other = sorted({(c.where, c.module, c.function) for c in calls} - set(main), key=str)
    other = [o for o in other if o[0].count(".") != depth]
    pairs = _pairs_of(shape, table)
    labels = []
    for module_name, function in main:
        label, text = _pairing_of(module_name, function, pairs, cache)
        labels.append(label)
        facts.setdefault("apply", []).append(f"{function}: {label} ({text})")
    for where, module_name, function in other:  # DeepSeek-V3.2's indexer: recorded only
        label, _ = _pairing_of(module_name, function, pairs, cache)
        facts.setdefault("also", []).append(f"{function} in {where}: {label}")
    measured = set(labels)
    if measured <= {"not measured", "other"}:
        out.unmeasured.setdefault("pairing", f"{kind.name}: {'; '.join(facts['apply'])}")
        return
    if measured != {kind.pairing}:
        out.differences["pairing"] = (
            f"{kind.name}: posenc {kind.pairing}; the attention calls"
            f" {', '.join(f for _, f in main)}, which pairs {'/'.join(sorted(measured))}"
        )


def _axial(kind, shape, out: Judgement) -> None:
    """A 2-D vision rotary: which axis turns each column, against posenc's layout (the
    row's angles on the first half of the pairs, the column's on the second, the whole
    laid out ``cat(., .)`` for rotate_half: ``posenc.layouts.axial_angles``)."""
    speeds = int(np.count_nonzero(kind.inv_freq))
    expected = [0] * speeds + [1] * speeds
    expected = expected * 2 if kind.pairing == "half" else list(np.repeat(expected, 2))
    got = shape.axis_of_column
    if shape.axes != 2 or got is None:
        out.unmeasured["mrope"] = f"{kind.name}: {shape.error or f'{shape.axes} axes'}"
    elif got != expected:
        out.differences["mrope"] = (
            f"{kind.name}: posenc's axial layout turns columns {_runs(expected)} by"
            f" (h, w); the module {_runs(got)}"
        )


def _runs(axes) -> str:
    """[0, 0, 1, 1, 0] -> "h2 w2 h1" (at most 8 runs shown)."""
    runs: list[list] = []
    for a in axes:
        if runs and runs[-1][0] == a:
            runs[-1][1] += 1
        else:
            runs.append([a, 1])
    names = {0: "h", 1: "w", -1: "-", -2: "hw"}
    text = " ".join(f"{names.get(a, a)}{n}" for a, n in runs[:8])
    return text + (f" ... ({len(runs)} runs)" if len(runs) > 8 else "")


def _mrope(kind, shape, facts, out: Judgement) -> None:
    facts["axes"] = shape.axes
    if shape.axis_of_speed is not None:
        facts["axis_of_speed"] = shape.axis_of_speed
    if kind.rope.scheme == "axial":
        _axial(kind, shape, out)
        return
    if kind.mrope is None:
        if shape.axes >= 3:
            out.differences["mrope"] = (
                f"{kind.name}: the module turns its pairs by {shape.axes} position axes;"
                " posenc reads one"
            )
        return
    layout, sections = kind.mrope
    pairs = int(np.count_nonzero(kind.inv_freq))
    try:
        expected = [int(a) for a in mrope_axes(layout, sections, pairs)]
    except ValueError as error:  # sections that do not cover the pairs: posenc says so
        expected = None
        why = str(error)
    if expected is None:
        if shape.error:  # nor can the module split them
            out.unmeasured["mrope"] = f"{kind.name}: {shape.error}"
        else:
            out.differences["mrope"] = f"{kind.name}: {why}; the module turns them"
        return
    if shape.error:
        out.unmeasured["mrope"] = f"{kind.name}: {shape.error}"
        return
    if shape.axes < 3 or shape.axis_of_speed is None:
        out.differences["mrope"] = (
            f"{kind.name}: posenc reads {layout} {list(sections)}; the module takes"
            f" {shape.axes} position axis"
        )
        return
    got = shape.axis_of_speed
    if got != expected:
        first = next(
            (j for j in range(min(len(got), len(expected))) if got[j] != expected[j]),
            min(len(got), len(expected)),
        )
        out.differences["mrope"] = (
            f"{kind.name}: posenc reads {layout} {list(sections)} ({len(expected)} pairs);"
            f" the module's axes differ from pair {first} ({len(got)} pairs measured)"
        )
