"""Proposition 33 (position per layer type: a sliding window sees only offsets below W).

A layer with a sliding window of width W >= 1 lets the query at position m score the
key at position n exactly when 0 <= m - n < W (the predicates of Transformers' causal
mask and sliding_window_overlay, kv_idx > q_idx - W, transcribed for text attention).
Over a context of L positions the offsets it scores are 0, 1, ..., min(L, W) - 1: the
same W offsets at every L >= W. With rotary, its term of pair i is q^T R((n - m) w_i) k
(Proposition 12), so the angles it uses are k w_i with 0 <= k < W, whatever the context:
a window layer trained at any length >= W needs no change to its rotary.

Dividing its speeds by s > 1 (a linear factor, Proposition 24) is not harmless, even
for the pairs whose wavelength exceeds W: the angle of pair i at offset k moves by
k w_i (1 - 1/s), at every visible offset k >= 1, and the term by
2 |sin(k w_i (1 - 1/s) / 2)| |q| |k| for some q, k (Proposition 32). With
0 < w_i <= 1 the move at offset 1 lies in (0, 1): never a whole number of turns.
For Gemma 3 27B's sliding layers (base 10^4, head 128, W = 1024) and its global
factor 8: 28 of the 64 pairs have a wavelength above W; the factor moves the term of
47 pairs by at least |q| |k| somewhere inside the window, and even the slowest pair's by
about 0.103 |q| |k|.

A layer's type is Transformers' layer_types: the file's list, else the list the
family's config class builds (its rule transcribed here). Seven kept configs have more
than one type, Llama 4 Scout among them (36 chunked_attention layers with rotary, 12
full_attention without). Which layers slide and what each kind rotates with is read from
data/configs by posenc and compared with the files: Gemma 3 (52 sliding layers at base
10^4, unscaled; 10 global at base 10^6, linear factor 8), Gemma 4 31B, gpt-oss-120b (one
YaRN block, applied to both kinds) and Command R7B (its global layers do not rotate).

The issue's wording, "a scaling that changes only speeds whose wavelength exceeds W
changes nothing it can see", is false: it is the first misreading below.

Uses: 12, 22, 24, 32.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import model_config, rope
from posenc.figures import window as figure
from proofs import kit
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 33
TITLE = "Position per layer type: a sliding window sees only offsets below its width"
USES = (12, 22, 24, 32)

# The toy family of step 1: every window up to toy_window over every context up to
# toy_longest; the offset at which the second misreading compares the terms.
INPUTS = {
    "toy_window": 8,
    "toy_longest": 48,
    "misread_offset": 3,
}

ROOT = Path(kit.__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "data/configs"
GEMMA3 = "gemma-3-27b-it"
GEMMA3_V5 = "gemma-3-4b-rope-parameters"
#: What gemma-3-27b-it.json leaves to Gemma3TextConfig's class defaults (data/configs/
#: README.md): the global layers' base, the sliding layers' base, and the pattern (every
#: sixth layer global). Step 6 checks the bases against the v5 file, which states them.
GEMMA3_CLASS = {"rope_theta": 1_000_000, "rope_local_base_freq": 10_000, "pattern": 6}
#: Every config kept in data/configs whose layers are of more than one type (Transformers'
#: layer_types), by the model's name; and those among them with sliding-window layers
#: (key -> file stem).
PER_TYPE_MODELS = {
    "command-r7b-12-2024": "Command R7B",
    "gemma-3-27b-it": "Gemma 3 27B",
    "gemma-3-4b-rope-parameters": "Gemma 3 4B",
    "gemma-4-31b": "Gemma 4 31B",
    "gpt-oss-120b": "gpt-oss-120b",
    "llama-4-scout-17b-16e": "Llama 4 Scout",
    "qwen3.5-9b": "Qwen3.5-9B",
}
#: Of those, how many state layer_types in the file (Gemma 4, gpt-oss, Qwen3.5) and how
#: many get them from their config class (Command R7B, both Gemma 3, Llama 4 Scout).
PER_TYPE_STATED, PER_TYPE_BUILT = 3, 4
SCOUT = "llama-4-scout-17b-16e"
#: How the page shows a base that is a power of ten (others are shown in full).
SCI_BASES = {10_000: Show(sig=1, style="sci"), 1_000_000: Show(sig=1, style="sci")}
SLIDING = {
    "gemma3": "gemma-3-27b-it",
    "gemma4": "gemma-4-31b",
    "gptoss": "gpt-oss-120b",
    "command": "command-r7b-12-2024",
}


def block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def visible(length: int, window: int) -> np.ndarray:
    """Transformers' sliding-window causal mask over ``length`` positions: (query, key)."""
    m = np.arange(length)[:, None]  # (L, 1) query positions
    n = np.arange(length)[None, :]  # (1, L) key positions
    return (n <= m) & (n > m - window)  # (L, L)


def offsets_seen(length: int, window: int) -> set[int]:
    """The offsets m - n the mask lets through."""
    m, n = np.nonzero(visible(length, window))
    return set((m - n).tolist())


def raw_part(stem: str) -> dict:
    """The language model's part of a config file, as plain JSON."""
    raw = json.loads((CONFIG_DIR / f"{stem}.json").read_text())
    return raw.get("text_config", raw)


def layer_types(part: dict) -> list[str]:
    """Transformers' type of each layer: the file's layer_types, else the class's rule.

    The rules are those of the config classes' __post_init__ in Transformers 5.24
    (models/<family>/configuration_<family>.py), for the families kept in data/configs.
    """
    if "layer_types" in part:
        return list(part["layer_types"])
    # A file may leave num_hidden_layers to its class (Gemma3TextConfig's default is 26, as
    # for gemma-3-4b-rope-parameters.json); it matters only to the rules below.
    family = part["model_type"]
    count = part.get("num_hidden_layers", 26 if family == "gemma3_text" else 0)
    if family in ("gemma3_text", "cohere2"):
        # Every pattern-th layer global; the default pattern is 6 (Gemma 3), 4 (Cohere 2).
        pattern = part.get("sliding_window_pattern", 6 if family == "gemma3_text" else 4)
        return [
            "sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(count)
        ]
    if family == "llama4_text":
        # no_rope_layers[i] = 1 for a rotary layer; an empty list means every
        # no_rope_layer_interval-th layer (default 4) has no rotary. Rotary layers are
        # chunked when attention_chunk_size is set (default 8192).
        interval = part.get("no_rope_layer_interval", 4)
        rotary = part.get("no_rope_layers") or [(i + 1) % interval != 0 for i in range(count)]
        chunked = part.get("attention_chunk_size", 8192) is not None
        return ["chunked_attention" if r and chunked else "full_attention" for r in rotary]
    if family in ("qwen2", "qwen3", "smollm3") and part.get("use_sliding_window"):
        raise NotImplementedError(f"{family} with use_sliding_window: no kept config has it")
    if family == "deepseek_v32":
        return ["indexed_attention"] * count
    return ["full_attention"] * count


def raw_layers(part: dict, kind: str) -> tuple[int, ...]:
    """The layers of a type: the file's layer_types, else its config class's rule."""
    return tuple(i for i, t in enumerate(layer_types(part)) if t == kind)


def raw_rotation(part: dict, kind: str) -> tuple[bool, str | None, Fraction | None, object]:
    """(rotates, scheme, base, factor) of a layer type, read from the plain JSON.

    A rope_parameters entry of the type says it; Gemma 3's v4 form puts rope_scaling on
    the global layers only, the sliding ones at rope_local_base_freq (its config class);
    Cohere 2's global layers do not rotate (its attention applies rotary on sliding
    layers only); otherwise rope_scaling and rope_theta hold for every layer.
    """
    nested = part.get("rope_parameters") or {}
    if kind in nested:
        entry = nested[kind]
        return True, entry["rope_type"], Fraction(entry["rope_theta"]), entry.get("factor")
    if part["model_type"] == "cohere2" and kind == "full_attention":
        return False, None, None, None
    if part["model_type"].startswith("gemma3"):
        if kind == "sliding_attention":
            local = part.get("rope_local_base_freq", GEMMA3_CLASS["rope_local_base_freq"])
            return True, "default", Fraction(local), None
        base = part.get("rope_theta", GEMMA3_CLASS["rope_theta"])
        scaling = part["rope_scaling"]
        return True, scaling["rope_type"], Fraction(base), scaling["factor"]
    scaling = part.get("rope_scaling") or {"rope_type": "default"}
    return True, scaling["rope_type"], Fraction(part["rope_theta"]), scaling.get("factor")


def read_rotation(kind) -> tuple[bool, str | None, Fraction | None, object]:
    """(rotates, scheme, base, factor) of a kind of layer as posenc reads it."""
    if not kind.rotates:
        return False, None, None, None
    r = kind.rope
    return True, r.scheme, Fraction(r.base), r.params.get("factor")


def kinds_of(stem: str) -> dict:
    """posenc's reading of a config: layer type -> LayerKind."""
    reading = model_config.read_model(CONFIG_DIR / f"{stem}.json")
    return {k.name: k for k in reading.kinds}


def gemma3_speeds() -> tuple[np.ndarray, np.ndarray, int, float]:
    """Gemma 3 27B's sliding speeds, the same with the global factor, the window, the factor."""
    kinds = kinds_of(GEMMA3)
    sliding, full = kinds["sliding_attention"], kinds["full_attention"]
    factor = float(full.rope.params["factor"])
    misread = rope.inv_freq(
        "linear", sliding.rope.head_dim, base=sliding.rope.base, factor=factor
    )[0]
    return sliding.inv_freq, misread, sliding.sliding_window, factor


def largest_change(w: np.ndarray, misread: np.ndarray, window: int) -> np.ndarray:
    """For each pair, the largest 2 |sin(k (w - w') / 2)| over the offsets 0 <= k < W."""
    k = np.arange(window)[:, None]  # (W, 1)
    return np.max(2 * np.abs(np.sin(k * (w - misread) / 2)), axis=0)  # (d/2,)


def checks(rec: Recorder) -> None:
    # Step 1. The window: with Transformers' predicates (n <= m and n > m - W), the
    # offsets m - n scored over L positions are exactly 0 .. min(L, W) - 1. Every window
    # up to toy_window over every context up to toy_longest, then Gemma 3's own window.
    toy, longest = INPUTS["toy_window"], INPUTS["toy_longest"]
    pairs = [(window, length) for window in range(1, toy + 1) for length in range(1, longest + 1)]
    rec.exact(
        "(W, L) pairs of the toy family checked",
        len(pairs),
        toy * longest,
        scope=f"W = 1 .. {toy}, L = 1 .. {longest}",
    )
    wrong = sum(
        offsets_seen(length, window) != set(range(min(length, window))) for window, length in pairs
    )
    rec.exact(
        "the offsets a window-W layer scores over L positions are 0 .. min(L, W) - 1 "
        "(pairs (W, L) where they are not)",
        wrong,
        0,
        scope=f"every W = 1 .. {toy} and L = 1 .. {longest}: the mask built position by "
        "position and its offsets collected",
    )
    kinds = kinds_of(GEMMA3)
    window = kinds["sliding_attention"].sliding_window
    lengths = (window // 2, window, 2 * window, 4 * window)
    wrong_real = sum(
        offsets_seen(length, window) != set(range(min(length, window))) for length in lengths
    )
    rec.exact(
        "the same for Gemma 3 27B's window, at contexts of W/2, W, 2W and 4W (mismatches)",
        wrong_real,
        0,
        scope=f"W = {window} read by posenc; L = {', '.join(map(str, lengths))}",
    )
    longest_seen = max(offsets_seen(4 * window, window))
    rec.exact(
        "so the largest offset it ever scores is W - 1, here at a context of 4W",
        longest_seen,
        window - 1,
        scope=f"W = {window}",
        quantity="g3_last_offset",
        show=Show(),
    )

    # Step 2. Rotary's term depends on the offset only (Proposition 12): so the angles a
    # window layer uses are k w_i for 0 <= k < W, at every context length.
    m, n = sp.symbols("m n", integer=True)
    w = sp.Symbol("omega", positive=True)
    rec.identity(
        "R(m w)^T R(n w) = R((n - m) w)",
        block(m * w).T * block(n * w) - block((n - m) * w),
        scope="every integer m, n and real w > 0",
    )

    # Step 3. The change of a pair's rotation when its speed is divided by s:
    # R(u + v) - R(u - v) = 2 sin(v) R(u + pi/2), with u +- v = k w and k w / s. So the
    # term moves by at most 2 |sin(v)| |q| |k|, and the key k = R(-(u + pi/2)) q reaches it.
    u, v = sp.symbols("u v", real=True)
    rec.identity(
        "R(u + v) - R(u - v) = 2 sin(v) R(u + pi/2)",
        block(u + v) - block(u - v) - 2 * sp.sin(v) * block(u + sp.pi / 2),
        scope="every real u, v",
    )
    q = sp.Matrix(sp.symbols("q0:2", real=True))
    tight = block(-(u + sp.pi / 2)) * q
    rec.identity(
        "with k = R(-(u + pi/2)) q the change of the term is exactly 2 sin(v) |q|^2",
        (q.T * (block(u + v) - block(u - v)) * tight)[0, 0] - 2 * sp.sin(v) * (q.T * q)[0, 0],
        scope="every real q in R^2 and u, v",
    )
    k, s = sp.Symbol("k", integer=True, positive=True), sp.Symbol("s", positive=True)
    rec.identity(
        "with u = k w (1 + 1/s) / 2 and v = k w (1 - 1/s) / 2: u + v = k w, u - v = k w / s",
        sp.Matrix([(k * w * (1 + 1 / s) + k * w * (1 - 1 / s)) / 2 - k * w,
                   (k * w * (1 + 1 / s) - k * w * (1 - 1 / s)) / 2 - k * w / s]),
        scope="every integer k >= 1 and real w, s > 0",
    )  # fmt: skip

    # Step 4. At offset 1 the angle moves by w (1 - 1/s), in (0, 1) when 0 < w <= 1 and
    # s > 1: not a whole number of turns, so some unit q, k see a different term.
    sliding, misread, window, factor = gemma3_speeds()
    moves = [
        Fraction(a) - Fraction(b) for a, b in zip(sliding.tolist(), misread.tolist(), strict=True)
    ]
    rec.exact(
        "Gemma 3's sliding pairs with the global factor: pairs whose angle at offset 1 "
        "does not move by a number in (0, 1)",
        sum(not (0 < x < 1) for x in moves),
        0,
        scope=f"the {sliding.size} pairs of posenc's float64 speeds w and w / {factor:g}, "
        "as exact rationals",
    )
    with mpmath.workdps(50):
        reference = [mpmath.mpf(10) ** (-mpmath.mpf(4 * 2 * i) / 128) for i in range(sliding.size)]
    rec.close(
        "posenc's sliding speeds are b^(-2i/d) with b = 10^4, d = 128",
        sliding.tolist(),
        [sp.Float(x, 50) for x in reference],
        tol=1e-15,
        scope="Gemma 3 27B's sliding kind read by posenc, against mpmath at 50 digits",
    )

    # Step 5. Gemma 3 27B's numbers. Wavelengths above W (decided by SymPy exactly), the
    # first of them, the largest move of each pair's term over the window (float64 and
    # mpmath), and the slowest pair's.
    rec.exact(
        "pairs of a sliding head",
        sliding.size,
        kinds["sliding_attention"].rope.head_dim // 2,
        scope="Gemma 3 27B, head_dim read by posenc",
        quantity="g3_pairs",
        show=Show(),
    )
    long_float = rope.wavelengths(sliding) > window  # (d/2,)
    long_exact = [
        bool(2 * sp.pi * sp.Integer(10) ** sp.Rational(8 * i, 128) > window)
        for i in range(sliding.size)
    ]
    rec.exact(
        "float64 wavelengths against SymPy's exact 2 pi 10^(8i/128) > W (pairs that differ)",
        int(np.sum(long_float != np.array(long_exact))),
        0,
        scope=f"the {sliding.size} sliding pairs, W = {window}",
    )
    rec.exact(
        "pairs whose wavelength exceeds the window",
        int(long_float.sum()),
        sum(long_exact),
        scope=f"W = {window}",
        quantity="g3_long_pairs",
        show=Show(),
    )
    first = int(np.flatnonzero(long_float)[0])
    rec.exact(
        "the first of them (the figure's pair)",
        first,
        figure.first_long_pair(),
        scope="posenc.figures.window.first_long_pair against this proof's count",
        quantity="g3_first_long",
        show=Show(),
    )
    with mpmath.workdps(50):
        first_wave = 2 * mpmath.pi * mpmath.mpf(10) ** (mpmath.mpf(8 * first) / 128)
    rec.close(
        "its wavelength",
        float(rope.wavelengths(sliding)[first]),
        sp.Float(first_wave, 50),
        tol=1e-9,
        scope="posenc against 2 pi 10^(8i/128) at 50 digits",
        quantity="g3_first_wave",
        show=Show(sig=4),
    )
    change = largest_change(sliding, misread, window)  # (d/2,)
    with mpmath.workdps(30):
        exact_change = []
        for i in range(sliding.size):
            step = mpmath.mpf(float(sliding[i])) - mpmath.mpf(float(misread[i]))
            exact_change.append(max(abs(2 * mpmath.sin(j * step / 2)) for j in range(window)))
    rec.close(
        "each pair's largest move of the term over the window, float64 against mpmath",
        change.tolist(),
        [sp.Float(x, 30) for x in exact_change],
        tol=1e-12,
        scope=f"{sliding.size} pairs, every offset 0 <= k < {window}, 30 digits",
    )
    margin = min(abs(float(x) - 1) for x in exact_change)
    rec.numeric(
        "no pair's largest move lies within 10^-6 of |q||k| (so the count below is exact)",
        [max(0.0, 1e-6 - margin)],
        tol=0.0,
        scope="the 64 largest moves at 30 digits",
    )
    rec.exact(
        "pairs whose term the factor moves by at least |q||k| at some visible offset",
        int(np.sum(change >= 1)),
        sum(int(x >= 1) for x in exact_change),
        scope="float64 count against the mpmath count",
        quantity="g3_big_moves",
        show=Show(),
    )
    rec.exact(
        "of them, pairs whose wavelength exceeds W",
        int(np.sum((change >= 1) & long_float)),
        sum(int(x >= 1 and y) for x, y in zip(exact_change, long_exact, strict=True)),
        scope="float64 against mpmath and SymPy",
        quantity="g3_big_long",
        show=Show(),
    )
    slowest = int(np.argmin(change))
    rec.exact(
        "the least moved pair is the slowest",
        slowest,
        sliding.size - 1,
        scope="argmin of the largest moves",
    )
    with mpmath.workdps(50):
        angle = (
            (window - 1)
            * mpmath.mpf(10) ** (-mpmath.mpf(8 * slowest) / 128)
            * (1 - 1 / mpmath.mpf(factor))
        )
        least = 2 * mpmath.sin(angle / 2)
    rec.close(
        "its move, at the window's last offset: 2 sin((W - 1) w (1 - 1/s) / 2)",
        float(change[slowest]),
        sp.Float(least, 50),
        tol=1e-12,
        scope=f"pair {slowest}, k = {window - 1}, s = {factor:g}; float64 against mpmath",
        quantity="g3_least_move",
        show=Show(sig=3),
    )
    offset = INPUTS["misread_offset"]
    with mpmath.workdps(50):
        trained_term = mpmath.cos(offset * mpmath.mpf(1))
        misread_term = mpmath.cos(offset / mpmath.mpf(factor))
    rec.close(
        "pair 0 at the misreading's offset: the trained term cos(k w_0)",
        float(np.cos(offset * sliding[0])),
        sp.Float(trained_term, 50),
        tol=1e-15,
        scope=f"q = k unit, k = {offset}, w_0 = 1",
        quantity="g3_term_trained",
        show=Show(sig=3),
    )
    rec.close(
        "and with the global factor, cos(k w_0 / s)",
        float(np.cos(offset * misread[0])),
        sp.Float(misread_term, 50),
        tol=1e-15,
        scope=f"q = k unit, k = {offset}, s = {factor:g}",
        quantity="g3_term_misread",
        show=Show(sig=3),
    )

    # Step 6. Which layers slide and what each kind rotates with, read by posenc from
    # data/configs and compared with the plain JSON of the same files.
    per_type, stated = set(), 0
    for path in sorted(CONFIG_DIR.glob("*.json")):
        part = raw_part(path.stem)
        if len(set(layer_types(part))) > 1:
            per_type.add(path.stem)
            stated += "layer_types" in part
    found = ", ".join(PER_TYPE_MODELS.get(stem, stem) for stem in sorted(per_type))
    rec.exact(
        f"configs whose layers are of more than one type ({found}) are those the page "
        "names (differences)",
        len(per_type ^ set(PER_TYPE_MODELS)),
        0,
        scope="data/configs/*.json: layer_types from the file, else by the rule of the "
        "family's config class in Transformers 5.24",
    )
    rec.exact(
        "how many the page names",
        len(per_type),
        len(PER_TYPE_MODELS),
        scope="data/configs/*.json",
        quantity="per_type_models",
        show=Show(),
    )
    rec.exact(
        "of them, with layer_types in the file",
        stated,
        PER_TYPE_STATED,
        scope="hand count: Gemma 4, gpt-oss, Qwen3.5",
    )
    rec.exact(
        "and with layer_types built by the config class",
        len(per_type) - stated,
        PER_TYPE_BUILT,
        scope="hand count: Command R7B, both Gemma 3, Llama 4 Scout",
    )
    scout_types = layer_types(raw_part(SCOUT))
    scout = {k.rotates: k for k in model_config.read_model(CONFIG_DIR / f"{SCOUT}.json").kinds}
    scout_done = []
    for name, rotates, tag in (
        ("chunked_attention", True, "chunked"),
        ("full_attention", False, "full"),
    ):
        scout_done.append(name)
        want = tuple(i for i, t in enumerate(scout_types) if t == name)
        rec.exact(
            f"Llama 4 Scout: its {name} layers are those posenc reads as "
            + ("rotary" if rotates else "without rotary")
            + " (layers that differ)",
            len(set(scout[rotates].layers) ^ set(want)),
            0,
            scope=f"data/configs/{SCOUT}.json, Llama4TextConfig's rule against posenc",
        )
        rec.exact(
            f"Llama 4 Scout: how many {name} layers",
            len(scout[rotates].layers),
            len(want),
            scope=f"data/configs/{SCOUT}.json",
            quantity=f"scout_{tag}_layers",
            show=Show(),
        )
    rec.exact(
        "Llama 4 Scout: layer types checked against posenc",
        len(scout_done),
        len(set(scout_types)),
        scope=f"data/configs/{SCOUT}.json: the types Llama4TextConfig's rule gives",
    )
    rec.exact(
        "Llama 4 Scout: its chunk, the file's attention_chunk_size",
        raw_part(SCOUT)["attention_chunk_size"],
        8192,
        scope=f"data/configs/{SCOUT}.json against Llama4TextConfig's default",
        quantity="scout_chunk",
        show=Show(),
    )
    rec.exact(
        "Llama 4 Scout: the factor posenc reads on its chunked (rotary) layers is the "
        "file's rope_scaling factor",
        Fraction(scout[True].rope.params["factor"]),
        Fraction(raw_part(SCOUT)["rope_scaling"]["factor"]),
        scope=f"data/configs/{SCOUT}.json, scheme {scout[True].rope.scheme}",
        quantity="scout_factor",
        show=Show(),
    )
    windowed = set()
    for path in sorted(CONFIG_DIR.glob("*.json")):
        reading = model_config.read_model(path)
        # A window the file leaves to its class (the v5 Gemma 3 file: Gemma3TextConfig's
        # 4096) is not a shipped model's; the page tabulates the files that state one.
        stated = not any(n.startswith("sliding_window not set") for n in reading.notes)
        if stated and any(k.sliding_window for k in reading.kinds):
            windowed.add(path.stem)
    rec.exact(
        "configs with a sliding window are those the page tabulates (differences)",
        len(windowed ^ set(SLIDING.values())),
        0,
        scope="data/configs/*.json read by posenc",
        quantity=None,
    )
    kinds_done = []
    for key, stem in SLIDING.items():
        part, read = raw_part(stem), kinds_of(stem)
        slide, full = read["sliding_attention"], read["full_attention"]
        rec.exact(
            f"{stem}: the window posenc reads is the file's sliding_window",
            slide.sliding_window,
            part["sliding_window"],
            scope=f"data/configs/{stem}.json",
            quantity=f"{key}_window",
            show=Show(),
        )
        for name, kind, tag in (
            ("sliding_attention", slide, "sliding"),
            ("full_attention", full, "global"),
        ):
            kinds_done.append((stem, name))
            want = raw_layers(part, name)
            rec.exact(
                f"{stem}: the {name} layers posenc reads are the file's (layers that differ)",
                len(set(kind.layers) ^ set(want)),
                0,
                scope=f"data/configs/{stem}.json"
                + ("" if "layer_types" in part else ", pattern: file or class default"),
            )
            rec.exact(
                f"{stem}: how many {name} layers",
                len(kind.layers),
                len(want),
                scope=f"data/configs/{stem}.json",
                quantity=f"{key}_{tag}_layers",
                show=Show(),
            )
            got, given = read_rotation(kind), raw_rotation(part, name)
            rec.exact(
                f"{stem}: the {name} layers' rotation (rotates, scheme, base, factor) is the "
                "file's (fields that differ)",
                sum(a != b for a, b in zip(got, given, strict=True)),
                0,
                scope=f"data/configs/{stem}.json, posenc against plain JSON",
            )
            if got[0]:
                rec.exact(
                    f"{stem}: the {name} layers' base",
                    got[2],
                    given[2],
                    scope=f"data/configs/{stem}.json",
                    quantity=f"{key}_{tag}_base",
                    show=SCI_BASES.get(got[2], Show()),
                )
            if got[3] is not None:
                rec.exact(
                    f"{stem}: the {name} layers' factor",
                    Fraction(got[3]),
                    Fraction(given[3]),
                    scope=f"data/configs/{stem}.json",
                    quantity=f"{key}_{tag}_factor",
                    show=Show(),
                )
    rec.exact(
        "layer types checked against the files: two per config with a sliding window",
        len(kinds_done),
        2 * len(windowed),
        scope="data/configs/*.json read by posenc: sliding_attention and full_attention",
    )
    v5 = kinds_of(GEMMA3_V5)
    differences = sum(
        read_rotation(kinds[name]) != read_rotation(v5[name])
        for name in ("sliding_attention", "full_attention")
    )
    rec.exact(
        "Gemma 3 27B's v4 config (class defaults filled in) and Gemma 3 4B's v5 config, "
        "which states every field, give each layer type the same rotation (types that differ)",
        differences,
        0,
        scope=f"{GEMMA3}.json and {GEMMA3_V5}.json read by posenc",
    )
    rec.exact(
        "Gemma 3 27B's sliding layers carry no factor (factors posenc reads on them)",
        int("factor" in kinds["sliding_attention"].rope.params),
        0,
        scope=f"data/configs/{GEMMA3}.json",
    )
    rec.exact(
        "nor do Gemma 3 4B's (factors posenc reads on them)",
        int("factor" in v5["sliding_attention"].rope.params),
        0,
        scope=f"data/configs/{GEMMA3_V5}.json",
    )
    pattern = np.diff(kinds["full_attention"].layers)
    rec.exact(
        "Gemma 3 27B: the global layers come every pattern-th layer (gaps that differ)",
        int(np.sum(pattern != GEMMA3_CLASS["pattern"])),
        0,
        scope="posenc's global layer indices against Gemma3TextConfig's default pattern",
    )

    # Step 7. The figure draws Gemma 3 27B as its config gives it.
    full = kinds["full_attention"]
    drawn = {
        "layers": model_config.read_model(CONFIG_DIR / f"{GEMMA3}.json").num_layers,
        "pattern": int(pattern[0]),
        "window": window,
        "head_dim": kinds["sliding_attention"].rope.head_dim,
        "sliding_base": kinds["sliding_attention"].rope.base,
        "global_base": full.rope.base,
        "factor": float(full.rope.params["factor"]),
    }
    rec.exact(
        "the figure's table is Gemma 3 27B's reading (fields that differ)",
        sum(figure.GEMMA3[key] != value for key, value in drawn.items()),
        0,
        scope="posenc.figures.window.GEMMA3 against posenc's reading of the config",
    )


# -- misreadings -------------------------------------------------------------------


def _long_speeds_only(wit: Witness) -> None:
    # "A scaling that changes only the speeds whose wavelength exceeds W changes nothing
    # a window-W layer sees." Gemma 3's first such pair passes half a turn at an offset
    # inside the window: a unit q = k scores cos(pi) there, about 0.92 with speed / 8.
    sliding, misread, window, factor = gemma3_speeds()
    pair = int(np.flatnonzero(rope.wavelengths(sliding) > window)[0])
    offset = round(np.pi / float(sliding[pair]))
    with mpmath.workdps(50):
        trained = mpmath.cos(offset * mpmath.mpf(float(sliding[pair])))
        scaled = mpmath.cos(offset * mpmath.mpf(float(misread[pair])))
    wit.differs(
        sp.Float(trained, 50),
        sp.Float(scaled, 50),
        at=f"Gemma 3 27B sliding pair {pair} (wavelength above W = {window}), speed divided "
        f"by {factor:g}, unit q = k, offset {offset} < W",
        margin=1,
        by="half the range of a unit pair's term",
    )


def _factor_everywhere(wit: Witness) -> None:
    # "Gemma 3's factor 8 may go on the sliding layers too: inside a window of 1024 it
    # changes little." Pair 0 at offset 3: cos 3 against cos(3/8).
    sliding, misread, _, factor = gemma3_speeds()
    offset = INPUTS["misread_offset"]
    with mpmath.workdps(50):
        trained = mpmath.cos(offset * mpmath.mpf(float(sliding[0])))
        scaled = mpmath.cos(offset * mpmath.mpf(float(misread[0])))
    wit.differs(
        sp.Float(trained, 50),
        sp.Float(scaled, 50),
        at=f"Gemma 3 27B sliding pair 0, unit q = k, offset {offset}: the trained speed "
        f"against speed / {factor:g}",
        margin=Fraction(3, 2),
        by="three quarters of the range [-1, 1] of a unit pair's term",
    )


def _never_scaled(wit: Witness) -> None:
    # "Sliding-window layers never carry a rope scaling." gpt-oss-120b's config gives its
    # sliding layers YaRN with factor 32: their slowest pair turns 32 times slower than
    # the default ladder of the same base would.
    slide = kinds_of("gpt-oss-120b")["sliding_attention"]
    plain = rope.inv_freq("default", slide.rope.head_dim, base=slide.rope.base)[0]
    ratio = Fraction(float(plain[-1])) / Fraction(float(slide.inv_freq[-1]))
    factor = Fraction(raw_part("gpt-oss-120b")["rope_scaling"]["factor"])
    wit.exact(
        ratio == factor != 1,
        at="gpt-oss-120b's sliding layers (window "
        f"{slide.sliding_window}), slowest pair: default speed over posenc's YaRN speed is "
        f"exactly {ratio}, the file's rope_scaling factor, not 1",
    )


def _needs_extension(wit: Witness) -> None:
    # "At a longer context a sliding layer sees longer offsets, so it needs the global
    # layers' context extension too." Gemma 4 31B: at its full context, the last query of
    # a sliding layer still scores offsets below its window only.
    reading = model_config.read_model(CONFIG_DIR / "gemma-4-31b.json")
    window = reading.kind("sliding_attention").sliding_window
    length = reading.max_position_embeddings
    m = length - 1
    n = np.arange(length)  # (L,) every key position
    seen = (n <= m) & (n > m - window)  # the last query's row of the mask
    largest = int(m - n[seen].min())
    wit.exact(
        (int(seen.sum()), largest, largest < m) == (window, window - 1, True),
        at=f"Gemma 4 31B, the last query (position {m}) at its context of {length}: a "
        f"window-{window} layer scores {int(seen.sum())} keys, offsets up to {largest} = W - 1, "
        f"where a global layer reaches {m}",
    )


MISREADINGS = [
    Misreading(
        "A scaling that changes only the speeds whose wavelength exceeds the window W "
        "changes nothing a window-W layer can see",
        _long_speeds_only,
        why="A pair whose wavelength exceeds W still turns by up to 2 pi (W - 1) / wavelength "
        "inside the window, nearly a whole turn for the first such pair of Gemma 3; slowing "
        "it changes its term at every visible offset from 1 on.",
    ),
    Misreading(
        "Gemma 3's linear factor can go on the sliding layers too: inside their short "
        "window it changes little",
        _factor_everywhere,
        why="The fastest pair turns a radian per position: three positions apart, its "
        "angle is already most of a half turn away from the one with the factor.",
    ),
    Misreading(
        "Sliding-window layers never carry a rope scaling, in any model",
        _never_scaled,
        why="Per layer type is read per model: gpt-oss-120b's config gives its sliding "
        "layers the same YaRN block as its global ones.",
    ),
    Misreading(
        "At a longer context a sliding-window layer sees longer offsets, so it needs the "
        "context extension of the global layers",
        _needs_extension,
        why="The mask keeps every offset below W at every context length: the last query "
        "of a long context scores the same W offsets as any other.",
    ),
]
