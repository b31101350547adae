# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Which scaling does my model use?
#
# A rotary model's `config.json` says how fast each pair of its queries and keys
# turns, and how those speeds were changed to run it past the length it was
# trained on. This notebook reads the rotary fields of real configs, names the
# scheme of each, draws the ladder of wavelengths before and after scaling, and
# ends with the lines to run on your own model. Every number below is computed
# by `posenc` when the site is built.

# %%
import json
import math
import os
from pathlib import Path

import numpy as np
from IPython.display import SVG
from matplotlib.figure import Figure

from posenc import rope
from posenc.cli import main as posenc_cli
from posenc.figures import to_svg
from posenc.identify_rope import identify_config, identify_inv_freq


def configs_folder(start: Path) -> Path:
    """The data/configs folder of the posenc checkout that holds ``start``."""
    for folder in (start, *start.parents):
        if (folder / "data" / "configs").is_dir():
            return folder / "data" / "configs"
    raise FileNotFoundError(f"no data/configs above {start}: set CONFIGS by hand")


# The site build runs this notebook in docs/notebooks; so does Jupyter in a clone.
CONFIGS = configs_folder(Path.cwd())


def raw(name: str) -> dict:
    return json.loads((CONFIGS / name).read_text(encoding="utf-8"))


print(len(list(CONFIGS.glob("*.json"))), "configs in", os.path.relpath(CONFIGS))

# %% [markdown]
# ## Where the rotary fields live
#
# Four things decide the speeds $\omega_i = b^{-2i/d}$ and how they are scaled:
#
# - the base $b$, `rope_theta`;
# - the scaling entry: a dict named `rope_scaling`, beside `rope_theta`, in
#   older configs, or `rope_parameters`, which holds `rope_theta` itself, in
#   newer ones. Its `rope_type` (or `type`) names the scheme;
# - the head width: `head_dim`, or else `hidden_size / num_attention_heads`;
# - the rotated share of each head, when it is not all of it
#   (`partial_rotary_factor`, or GPT-NeoX's `rotary_pct`).
#
# Here is Llama 3.1 8B in both forms. `read_config` reads the same scheme from
# each, and the speeds it computes are identical:

# %%
SHOWN = ("rope_theta", "rope_scaling", "rope_parameters", "hidden_size", "num_attention_heads")
pair = ("llama-3.1-8b.json", "llama-3.1-8b-rope-parameters.json")
for name in pair:
    print(name)
    for key in SHOWN:
        if key in raw(name):
            print(f"  {key}: {json.dumps(raw(name)[key])}")
old, new = (rope.read_config(CONFIGS / name) for name in pair)
assert (old.scheme, old.base, old.params) == (new.scheme, new.base, new.params)
assert np.array_equal(old.inv_freq()[0], new.inv_freq()[0])
print(f"read as: {old.scheme}, base {old.base:g}, from {old.form} and from {new.form}")
assert not any("head_dim" in raw(name) for name in pair)
assert old.head_dim == raw(pair[0])["hidden_size"] // raw(pair[0])["num_attention_heads"]
print(f"head_dim: {old.head_dim}, from hidden_size / num_attention_heads")

# %% [markdown]
# GPT-NeoX-20B rotates only part of each head, and the exponent of its ladder
# uses the rotated width, not the head's:

# %%
neox = rope.read_config(CONFIGS / "gpt-neox-20b.json")
rotated = rope.rotary_dim(neox.head_dim, neox.params["partial_rotary_factor"])
speeds, _ = neox.inv_freq()  # (rotated/2,)
assert np.array_equal(speeds, rope.default_inv_freq(rotated, neox.base))
print(f"head_dim {neox.head_dim}, rotary_pct {raw('gpt-neox-20b.json')['rotary_pct']}:")
print(f"{rotated} of {neox.head_dim} dims rotate, in {speeds.size} pairs")
for note in neox.notes:
    print("  read_config:", note)

# %% [markdown]
# ## What each model uses
#
# `identify_config` reads the scheme from the config, then asks what the
# speeds alone would say (`identify_inv_freq`, the function behind
# `posenc identify --rope speeds`). Gemma 3 sets one scheme per layer type, so
# it must be read once per type; asked for a single scheme, it refuses:

# %%
GEMMA = "gemma-3-4b-rope-parameters.json"
try:
    rope.read_config(CONFIGS / GEMMA)
except ValueError as error:
    print(error)


# %%
def layer_types(config: dict) -> list[str | None]:
    """The layer types of a config with one scheme per type, else [None]."""
    entry = config.get("rope_parameters") or config.get("rope_scaling") or {}
    return [key for key, value in entry.items() if isinstance(value, dict)] or [None]


def stretch(config: dict, spec: rope.RopeConfig) -> tuple[float, int | None]:
    """``(s, L0)``: the scale, and the length trained on (None if the scheme reads none)."""
    params = spec.params
    length = params.get("original_max_position_embeddings", params.get("max_position_embeddings"))
    if "factor" in params:
        return float(params["factor"]), length
    if spec.scheme == "longrope":  # s = max_position_embeddings / L0, as read_config notes
        return config["max_position_embeddings"] / length, length
    return 1.0, length


# The configs of the models that scale one ladder (Llama 2 to Qwen 2.5); the models of
# 2025-2026 mix schemes inside one network, and `posenc config explain` reads those
# layer by layer.
ONE_LADDER = (
    "code-llama-7b.json",
    "deepseek-v3.json",
    "gemma-3-4b-rope-parameters.json",
    "gpt-neox-20b.json",
    "llama-2-7b-dynamic-2.json",
    "llama-2-7b-linear-4.json",
    "llama-2-7b.json",
    "llama-3.1-8b-rope-parameters.json",
    "llama-3.1-8b.json",
    "llama-3.2-1b.json",
    "phi-3-mini-128k-shape.json",
    "qwen2.5-7b-yarn-4.json",
)
found = {}
for path in (CONFIGS / name for name in ONE_LADDER):
    config = json.loads(path.read_text(encoding="utf-8"))
    for layer in layer_types(config):
        spec = rope.read_config(path, layer_type=layer)
        alone = identify_inv_freq(spec.inv_freq()[0])
        s, length = stretch(config, spec)
        label = path.name + (f" [{layer}]" if layer else "")
        found[label] = spec
        print(
            f"{label:<52} {spec.form:<15} {spec.scheme:<8} base {spec.base:<9g}"
            f" s {s:<4g} L0 {length or '-':<6} speeds alone: {alone.scheme}"
            + ("" if alone.exact else " (not exactly)")
        )

# %% [markdown]
# Some rows deserve a word. Dynamic NTK changes the base only once the input
# grows past $L_0$, so up to $L_0$ its speeds are the plain ladder, and the
# speeds alone say "default": only the config says "dynamic". Any vector of
# speeds is a LongRoPE vector (one factor per pair), so "longrope" is what the
# speeds alone say when nothing else fits. The Phi-3 file keeps the fields of
# Phi-3-mini-128k, but its two factor lists are seeded stand-ins of the right
# shape, not Microsoft's searched values. And Gemma 3 scales its global layers
# linearly while its sliding-window layers keep a plain ladder, with another
# base. The L0 column is the training length that a scheme reads: linear
# scaling reads none, and a config without scaling has nothing to stretch, so
# both show "-".

# %%
dynamic = found["llama-2-7b-dynamic-2.json"]
s, length = stretch(raw("llama-2-7b-dynamic-2.json"), dynamic)
assert np.array_equal(dynamic.inv_freq()[0], rope.default_inv_freq(dynamic.head_dim, dynamic.base))
for seq_len in (length, 2 * length, 4 * length):
    grown = rope.dynamic_base(dynamic.base, s, seq_len, length, dynamic.head_dim)
    print(f"dynamic, s = {s:g}, input of {seq_len:>5} tokens: base {grown:,.0f}")
gemma = {layer: found[f"{GEMMA} [{layer}]"] for layer in layer_types(raw(GEMMA))}
for layer, spec in gemma.items():
    print(f"{layer}: {spec.scheme}, base {spec.base:g}, {spec.params or 'no parameters'}")
full, sliding = gemma["full_attention"], gemma["sliding_attention"]
assert (full.scheme, sliding.scheme) == ("linear", "default") and full.base != sliding.base

# %% [markdown]
# ## The ladder before and after
#
# Pair $i$ turns once every $\lambda_i = 2\pi / \omega_i$ positions. Each panel
# below draws that wavelength for every pair, before scaling (grey) and after,
# with the training length $L_0$ and the stretched length $sL_0$ as lines.
# Llama 3 leaves the fast pairs alone, divides the slow ones by $s$ and blends
# a band between (shaded); YaRN does the same with a ramp in the pair index
# (shaded); LongRoPE divides each pair by its own factor, here the long list,
# used past $L_0$.

# %%
PANELS = ("llama-3.1-8b.json", "qwen2.5-7b-yarn-4.json", "phi-3-mini-128k-shape.json")


def ladders(name: str) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Wavelengths before and after scaling, at s * L0, with s and L0."""
    spec = found[name]
    s, length = stretch(raw(name), spec)
    if length is None:  # linear: the Llama 2 file keeps the length Llama 2 was trained at
        length = raw(name)["max_position_embeddings"]
    seq_len = round(s * length) if spec.scheme in ("dynamic", "longrope") else None
    after, _ = spec.inv_freq(seq_len)  # (pairs,)
    before = rope.default_inv_freq(2 * after.size, spec.base)  # (pairs,)
    return rope.wavelengths(before), rope.wavelengths(after), s, length


def shaded(name: str) -> tuple[float, float] | None:
    """The pairs, as a span of indices, that a scheme blends rather than keeps or divides."""
    spec = found[name]
    length = stretch(raw(name), spec)[1]
    dim = 2 * ladders(name)[0].size
    if spec.scheme == "llama3":
        blend = np.flatnonzero(rope.llama3_bands(dim, base=spec.base, **spec.params) == "blend")
        return blend[0] - 0.5, blend[-1] + 0.5
    if spec.scheme == "yarn":
        beta_fast = spec.params.get("beta_fast", 32.0)
        beta_slow = spec.params.get("beta_slow", 1.0)
        return rope.yarn_correction_range(beta_fast, beta_slow, dim, spec.base, length)
    return None


fig = Figure(figsize=(9, 3.4), facecolor="white", layout="constrained")
axes = fig.subplots(1, len(PANELS), sharey=True)
for ax, name in zip(axes, PANELS, strict=True):
    before, after, s, length = ladders(name)
    pairs = np.arange(before.size)
    span = shaded(name)
    if span is not None:
        ax.axvspan(*span, color="tab:orange", alpha=0.2, lw=0, label="blended")
    ax.plot(pairs, before, color="0.6", label="before")
    ax.plot(pairs, after, color="tab:blue", label="after")
    ax.axhline(length, color="k", lw=0.8, ls="--", label="$L_0$")
    ax.axhline(s * length, color="k", lw=0.8, ls=":", label="$sL_0$")
    ax.set_yscale("log")
    ax.set_xlabel("pair i")
    ax.set_title(f"{found[name].scheme}: {name.removesuffix('.json')}", fontsize=9)
axes[0].set_ylabel("wavelength (positions)")
axes[0].legend(frameon=False, loc="upper left", fontsize=8)
SVG(to_svg(fig, title="Wavelength of each pair before and after scaling, three real configs"))

# %% [markdown]
# The dashed line is $L_0$, the dotted one $sL_0$. The shaded bands, and what
# happens on either side of them, are in the speeds themselves: for Llama 3.1,
# the pairs left of the band keep their speed exactly, the pairs right of it
# are divided by exactly $s$, and the band's pairs lie strictly between.

# %%
spec = found["llama-3.1-8b.json"]
s, _ = stretch(raw("llama-3.1-8b.json"), spec)
after, _ = spec.inv_freq()  # (64,)
before = rope.default_inv_freq(2 * after.size, spec.base)  # (64,)
bands = rope.llama3_bands(2 * after.size, base=spec.base, **spec.params)  # (64,)
counts = {kind: int((bands == kind).sum()) for kind in ("high", "blend", "low")}
assert set(bands) == set(counts) and sum(counts.values()) == after.size
assert np.allclose(after[bands == "high"], before[bands == "high"], rtol=1e-15, atol=0)
assert np.allclose(after[bands == "low"], before[bands == "low"] / s, rtol=1e-15, atol=0)
mid = bands == "blend"
assert np.all((after[mid] < before[mid]) & (after[mid] > before[mid] / s))
print(f"Llama 3.1, {after.size} pairs: {counts['high']} kept, {counts['blend']} blended,")
print(f"{counts['low']} divided by s = {s:g}")
print("identify_config says:", identify_config(CONFIGS / "llama-3.1-8b.json").bands)

# %% [markdown]
# ## Which pairs complete a turn
#
# A pair whose wavelength is at most $L_0$ went all the way round during
# training, so the model saw it at every angle. A slower pair only ever reached
# the angle $L_0\,\omega_i$. Run at length $sL_0$ after scaling, a good scheme
# should keep both groups as they were: the same pairs complete a turn within
# $sL_0$ as did within $L_0$, and no slow pair goes past the angle it reached in
# training (that is, no slow pair turns faster than $\omega_i / s$). The cell
# counts both for every stretched config; the dynamic row is at length $sL_0$.
# (`identify_config`'s words, printed above for Llama 3.1, count the pairs of
# the scaled ladder that turn within $L_0$ and within $sL_0$; for Llama 3 and
# YaRN the second is the "after" count below.)

# %%
stretched = [name for name, spec in found.items() if spec.scheme not in ("default", "linear")]
stretched.insert(0, "llama-2-7b-linear-4.json")
kept = {}
for name in stretched:
    before, after, s, length = ladders(name)
    then = length / before  # (pairs,): turns made over L0 before scaling
    now = s * length / after  # (pairs,): turns made over s*L0 after
    turned, turns = then >= 1, now >= 1
    beyond = ~turned & (now > then * (1 + 1e-12))  # slow pairs past their training angle
    kept[name] = (int(turned.sum()), int(turns.sum()), bool(np.array_equal(turned, turns)))
    kept[name] += (int(beyond.sum()),)
    words = identify_config(CONFIGS / name).bands
    if found[name].scheme in ("llama3", "yarn"):
        assert f"{turns.sum()} within s*L0" in words, name
    print(
        f"{name:<34} s {s:<4g} turn within L0: {turned.sum():>2} before;"
        f" within s*L0: {turns.sum():>2} after; slow pairs past their angle: {beyond.sum()}"
    )
for name in stretched:
    if found[name].scheme in ("linear", "llama3", "yarn"):
        assert kept[name][2:] == (True, 0), name
dynamic = kept["llama-2-7b-dynamic-2.json"]
assert dynamic[1] < dynamic[0] and dynamic[3] == 0
assert kept["phi-3-mini-128k-shape.json"][3] > 0

# %% [markdown]
# Linear interpolation, Llama 3 and YaRN keep both groups exactly. Dynamic NTK,
# at $sL_0$, overshoots: its base grows so much that a pair which turned in
# training no longer completes a turn. The Phi-3 stand-in factors, which were
# never searched, let a slow pair go past its angle; a real searched list is
# the thing to check this on.
#
# ## The attention factor
#
# YaRN and LongRoPE also return an *attention factor* $a$. Implementations
# multiply the cosine and sine caches by it, so a query-key logit, which has
# one factor from the query side and one from the key side, is multiplied by
# $a^2$. The closed forms, recomputed here with `math`: YaRN's
# $a = 0.1 \ln s + 1$; DeepSeek-V3's ratio of two such terms, with `mscale`
# and `mscale_all_dim` both 1, is $1$; LongRoPE's
# $a = \sqrt{1 + \ln s / \ln L_0}$.

# %%
closed = {
    "qwen2.5-7b-yarn-4.json": lambda s, length: 0.1 * math.log(s) + 1,
    "deepseek-v3.json": lambda s, length: 1.0,
    "phi-3-mini-128k-shape.json": lambda s, length: math.sqrt(1 + math.log(s) / math.log(length)),
}
for name, spec in found.items():
    s, length = stretch(raw(name.split(" ")[0]), spec)
    a = spec.inv_freq()[1]
    if name in closed:
        assert math.isclose(a, closed[name](s, length), rel_tol=1e-15), name
    else:
        assert a == 1.0, name
    if a != 1.0:
        print(f"{name:<28} {spec.scheme:<8} s {s:<3g} a = {a:.4f}, logits times {a * a:.4f}")
print("every other config:", "a = 1")

# %% [markdown]
# ## Your own model
#
# Put the path of your model's `config.json` in `path` and run the cell. It
# works on any Hugging Face config with a rotary scheme; for one with a scheme
# per layer type, add `layer_type="full_attention"` (or another type the error
# names). Here it reads Llama 3.2 1B:

# %%
path = CONFIGS / "llama-3.2-1b.json"  # your config.json here
result = identify_config(path)
print(result.scheme, f"base {result.base:g}, {result.rotary_dim} rotated dims")
print(result.bands)

# %% [markdown]
# From a shell, in a clone with posenc installed, the same check is one
# command; a file ending in `.json` is read as a config. `--layer-type` picks a
# layer type, and `--json` prints the result for a script. With
# `--rope speeds` or `--rope cache` the command reads a saved vector of speeds,
# or a model's cos and sin caches, instead (see the CLI reference). The cell runs
# the command's own code:

# %%
print("$ posenc identify", os.path.relpath(path))
status = posenc_cli(["identify", os.path.relpath(path)])
print("exit status", status)
