"""Proposition 30 (M-RoPE: three axes, chunked or interleaved pairs, 1-D RoPE on text).

M-RoPE gives each token three positions, a time t, a height h and a width w. Pair j of
a rotary head (rotated width r, speed theta_j = b^(-2j/r)) turns by theta_j times the
token's position on the axis a(j) of that pair. The sections (n_t, n_h, n_w), summing to
the r/2 pairs, say how many pairs each axis gets; the layout says which:

- chunked (Qwen2-VL, Qwen2.5-VL): pairs 0 .. n_t - 1 temporal, the next n_h height, the
  last n_w width;
- interleaved (Qwen3-VL, Qwen3.5): pair j height if j = 1 (mod 3) and j < 3 n_h, width if
  j = 2 (mod 3) and j < 3 n_w, temporal otherwise.

Hugging Face pairs coordinate j with j + r/2 (split halves) and uses the same table on
both halves, in both layouts.

(1) If t = h = w = p for a token, every pair turns by p theta_j, in every layout: the
angles, and so the scores, are those of 1-D RoPE at p.
(2) The score of q at (t, h, w) and k at (t', h', w') depends on the positions only
through the three offsets, each read by the pairs of its own axis (Proposition 12,
applied pair by pair).
(3) With the same sections, and if the last height and width pairs exist (3 n_h - 2 < r/2
and 3 n_w - 1 < r/2; (3, 4, 3) over 10 pairs gives height 3 pairs and time 4), the two
layouts give each axis as many pairs and differ by a permutation of the pairs: list
the interleaved layout's pairs axis by axis (temporal, height, width), each in ladder
order, as pi(0), pi(1), ...; the interleaved angle of
pair pi(i) is the chunked angle of pair i over the ladder theta_pi(0), theta_pi(1), ...
Qwen2-VL (d = 128, b = 10^6, sections 16, 24, 24, chunked): time pairs 0-15, height
16-39, width 40-63, so width rides only the slowest clocks. Qwen3-VL 8B (its config:
d = 128, b = 5 10^6, sections 24, 20, 20, interleaved): height 1, 4, ..., 58, width
2, 5, ..., 59, time 0, 3, ..., 57 and the four slowest, 60-63. Qwen3.5 9B (head 256,
partial 0.25: 32 pairs, b = 10^7, sections 11, 11, 10, interleaved): every pair is in the
interleaved run, and the slowest pair, 31, is height's last (3 * 11 - 2 = 31 < 32).

Uses: 12, 22.
"""

from __future__ import annotations

import inspect
import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import families, model_config, rope
from posenc.figures import mrope as figure
from posenc.figures.mrope import fig_mrope_sections
from proofs import kit
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 30
TITLE = "M-RoPE: three axes, chunked or interleaved pairs, 1-D RoPE on text"
USES = (12, 22)

# Qwen2-VL's rotary configuration (its config.json: rope_theta 1e6, head width 128; its
# mrope_section [16, 24, 24] is also the default of Transformers' Qwen2-VL code, which
# step 0 compares with posenc.families; no copy of the config is under data/configs); the
# text positions swept for the reduction; the random tokens of the layout checks; and the
# largest offset of the figure's right panels.
INPUTS = {
    "base": 1000000,
    "head_dim": 128,
    "section_temporal": 16,
    "section_height": 24,
    "section_width": 24,
    "text_positions": 32768,
    "random_tokens": 256,
    "figure_max_offset": 100,
}
#: Transformers 5.24's Qwen2-VL text config, transcribed: ``default_theta = 1000000.0``.
HF_QWEN2_VL_DEFAULT_THETA = 1000000.0
#: Key offsets of the Euclidean-distance witness, all three at distance 60.
OFFSETS = ((0, 60, 0), (0, 0, 60), (0, 36, 48))

CONFIG_DIR = Path(kit.__file__).resolve().parent.parent / "data" / "configs"
QWEN3_VL = "qwen3-vl-8b-instruct"
QWEN35 = "qwen3.5-9b"

BASE = INPUTS["base"]
WIDTH = INPUTS["head_dim"]
SECTIONS = (INPUTS["section_temporal"], INPUTS["section_height"], INPUTS["section_width"])
AXES = ("temporal", "height", "width")


# -- the models: Qwen2-VL from the inputs, the others read from data/configs -----------


def raw_mrope(stem: str) -> dict:
    """The rotary facts of a kept config, read from the plain JSON (not by posenc).

    The rotary block is rope_parameters, else rope_scaling (Qwen3-VL's file keeps the v4
    form, rope_theta beside it); the rotated width is int(head_dim * partial_rotary_factor)
    (Qwen3.5's compute_default_rope_parameters).
    """
    text = json.loads((CONFIG_DIR / f"{stem}.json").read_text())["text_config"]
    block = text.get("rope_parameters") or text["rope_scaling"]
    base = block.get("rope_theta", text.get("rope_theta"))
    rotated = int(text["head_dim"] * block.get("partial_rotary_factor", 1.0))
    return {
        "head_dim": text["head_dim"],
        "base": Fraction(base),
        "rotated": rotated,
        "sections": tuple(block["mrope_section"]),
        "interleaved": bool(block.get("mrope_interleaved", False)),
    }


def read_mrope(stem: str) -> dict:
    """The same facts as posenc reads them: the kind of layer that rotates."""
    reading = model_config.read_model(CONFIG_DIR / f"{stem}.json")
    rotating = [k for k in reading.kinds if k.rotates]
    kind = rotating[0]
    layout, sections = kind.mrope
    return {
        "kinds": len(rotating),
        "head_dim": kind.rope.head_dim,
        "base": Fraction(kind.rope.base),
        "rotated": kind.rotary_dim,
        "sections": tuple(sections),
        "layout": layout,
        "inv_freq": kind.inv_freq,
    }


def ladder_50(base: Fraction, rotated: int, pair: int) -> mpmath.mpf:
    """theta_j = b^(-2j/r) at 50 digits."""
    with mpmath.workdps(50):
        b = mpmath.mpf(base.numerator) / base.denominator
        return b ** (-mpmath.mpf(2 * pair) / rotated)


def speeds() -> np.ndarray:
    return rope.default_inv_freq(WIDTH, float(BASE))  # (64,)


def wavelength_50(pair: int, base: Fraction = Fraction(BASE), rotated: int = WIDTH) -> mpmath.mpf:
    """lambda_j = 2 pi b^(2j/r) at 50 digits."""
    with mpmath.workdps(50):
        return 2 * mpmath.pi / ladder_50(base, rotated, pair)


def stated_axes(layout: str, sections: tuple[int, int, int], pairs: int) -> list[int]:
    """The axis of each pair as the statement words it (0 time, 1 height, 2 width)."""
    n_t, n_h, n_w = sections
    if layout == "chunked":
        return [0 if j < n_t else 1 if j < n_t + n_h else 2 for j in range(pairs)]
    return [
        1 if j % 3 == 1 and j < 3 * n_h else 2 if j % 3 == 2 and j < 3 * n_w else 0
        for j in range(pairs)
    ]


# -- Hugging Face's two constructions, transcribed ---------------------------------------


def hf_chunked(thw: np.ndarray, inv_freq: np.ndarray, sections) -> np.ndarray:
    """Qwen2-VL's angles as Transformers 5.24 builds them, transcribed here (r coordinates).

    models/qwen2_vl/modeling_qwen2_vl.py, Qwen2VLRotaryEmbedding.recomposition_frequencies:
    ``freq = torch.cat([m[i % 3] for i, m in enumerate(freq.split(self.mrope_section,
    dim=-1))], dim=-1)`` then ``torch.cat((freq, freq), dim=-1)``: each axis gives a full
    table p_a theta_j, the pair axis is split into the sections and chunk i is taken from
    axis i mod 3; the result fills both halves (rotate_half pairs j with j + r/2).
    """
    tables = np.stack([np.multiply.outer(row, inv_freq) for row in thw])  # (3, L, P)
    chunks = np.split(tables, np.cumsum(sections)[:-1], axis=-1)  # 3 x (3, L, n_i)
    half = np.concatenate([m[i % 3] for i, m in enumerate(chunks)], axis=-1)  # (L, P)
    return np.concatenate([half, half], axis=-1)  # (L, 2P)


def hf_interleaved(thw: np.ndarray, inv_freq: np.ndarray, sections) -> np.ndarray:
    """Qwen3-VL's and Qwen3.5's angles as Transformers 5.24 builds them, transcribed here.

    models/qwen3_vl/modeling_qwen3_vl.py (and models/qwen3_5/modeling_qwen3_5.py, the same
    lines), Qwen3VLTextRotaryEmbedding.recomposition_frequencies:
    ``freqs_thw = freq[0]``; ``for dim, offset in enumerate((1, 2), start=1):``
    ``length = self.mrope_section[dim] * 3``; ``idx = slice(offset, length, 3)``;
    ``freqs_thw[..., idx] = freq[dim, ..., idx]``; then ``torch.cat((freqs_thw, freqs_thw),
    dim=-1)``.
    """
    freq = np.stack([np.multiply.outer(row, inv_freq) for row in thw])  # (3, L, P)
    freqs_thw = freq[0].copy()  # (L, P)
    for dim, offset in enumerate((1, 2), start=1):
        length = sections[dim] * 3
        idx = slice(offset, length, 3)
        freqs_thw[..., idx] = freq[dim, ..., idx]
    return np.concatenate([freqs_thw, freqs_thw], axis=-1)  # (L, 2P)


def probe_axes(inv_freq: np.ndarray, sections, layout: str) -> list[int]:
    """Which axis turns each pair, found by moving one axis at a time by 1 (posenc)."""
    axes = [-1] * inv_freq.size
    for axis in range(3):
        step = np.zeros((3, 1), dtype=np.int64)
        step[axis, 0] = 1
        for j in np.flatnonzero(rope.mrope_angles(step, inv_freq, sections, layout)[0]):
            axes[int(j)] = axis if axes[int(j)] == -1 else 3  # 3: turned by two axes
    return axes


# -- scores -------------------------------------------------------------------------


def block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def mrope_score(q: sp.Matrix, k: sp.Matrix, pos_q, pos_k, thetas) -> sp.Expr:
    """Score of one query and one key with one pair per axis: sum of rotated 2-D dots."""
    total = sp.Integer(0)
    for j, (a, b, th) in enumerate(zip(pos_q, pos_k, thetas, strict=True)):
        qj, kj = q[2 * j : 2 * j + 2, 0], k[2 * j : 2 * j + 2, 0]
        total += ((block(a * th) * qj).T * (block(b * th) * kj))[0, 0]
    return total


def score_float(
    q: np.ndarray, k: np.ndarray, offset, inv=None, sections=SECTIONS, layout="chunked"
) -> float:
    """posenc's M-RoPE score, split-half pairing, query at the origin, key at ``offset``."""
    inv = speeds() if inv is None else inv
    thw = np.array([[0, o] for o in offset], dtype=np.int64)  # (3, 2)
    ang = rope.mrope_angles(thw, inv, sections, layout)  # (2, P)
    half = inv.size
    rot = []
    for vec, a in ((q, ang[0]), (k, ang[1])):
        x, y = vec[:half], vec[half:]
        rot.append(np.concatenate([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)]))
    return float(rot[0] @ rot[1])


def score_mp(
    offset, layout="chunked", sections=SECTIONS, base=Fraction(BASE), rotated=WIDTH
) -> mpmath.mpf:
    """The score for q = k = (1, ..., 1) at 50 digits: 2 sum_j cos(delta_a(j) theta_j)."""
    axis = stated_axes(layout, sections, rotated // 2)
    with mpmath.workdps(50):
        return 2 * mpmath.fsum(
            mpmath.cos(offset[axis[j]] * ladder_50(base, rotated, j)) for j in range(rotated // 2)
        )


def checks(rec: Recorder) -> None:
    inv = speeds()  # (64,)
    pairs = inv.size
    half = WIDTH // 2

    # Step 0. The models. Qwen2-VL's layout and sections as posenc's families table holds
    # them, against the inputs (Transformers' code default, [16, 24, 24], not interleaved).
    # Qwen3-VL 8B and Qwen3.5 9B read by posenc from data/configs, against the plain JSON.
    qwen2 = families.family("qwen2_vl")
    rec.exact(
        "posenc's families table: Qwen2-VL is chunked with sections (16, 24, 24) "
        "(facts that differ)",
        max(int(qwen2.mrope != "chunked"), int(tuple(qwen2.mrope_section or ()) != SECTIONS)),
        0,
        scope="posenc.families.family('qwen2_vl') against the inputs (Transformers' default)",
    )
    table = tuple(qwen2.mrope_section or (0, 0, 0))
    for axis, name in enumerate(("q2_sec_t", "q2_sec_h", "q2_sec_w")):
        rec.exact(
            f"Qwen2-VL: the {AXES[axis]} section in posenc's families table equals the input's",
            table[axis],
            SECTIONS[axis],
            scope="posenc.families.family('qwen2_vl') against the inputs (Transformers' default)",
            quantity=name,
            show=Show(),
        )
    rec.exact(
        "Qwen2-VL: the input base is Transformers' Qwen2-VL default_theta, transcribed",
        Fraction(BASE),
        Fraction(HF_QWEN2_VL_DEFAULT_THETA),
        scope="transformers 5.24 models/qwen2_vl/configuration_qwen2_vl.py, "
        "default_theta = 1000000.0 (transcribed, not imported)",
        quantity="q2_base",
        show=Show(sig=1),
    )
    rec.exact(
        "Qwen2-VL: the input head width is twice the pairs of posenc's table's sections, "
        "so the sections cover the head",
        WIDTH,
        2 * sum(qwen2.mrope_section or ()),
        scope="the inputs (Transformers' Qwen2-VL defaults: 8192 / 64 heads) against "
        "posenc.families",
        quantity="q2_rotated",
        show=Show(),
    )
    # The model types the page names per layout, as posenc's families table holds them
    # (Transformers' recomposition_frequencies is the same lines in each of a layout's
    # modules); GLM-4V's and Ernie 4.5 VL's layouts are others, outside the statement.
    named = {
        "chunked": ("qwen2_vl", "qwen2_5_vl", "qwen2_5_omni_thinker", "paddleocr_vl"),
        "interleaved_thw": (
            "qwen3_vl",
            "qwen3_vl_moe",
            "qwen3_omni_moe_thinker",
            "qwen3_5",
            "qwen3_5_moe",
            "qwen4_exp",
            "cosmos3_edge",
            "hy_v4_vl",
        ),
        "glm": ("glm4v",),
        "ernie": ("ernie4_5_vl_moe",),
    }
    rec.exact(
        "the model types the page names per layout have that layout in posenc's families "
        "table (types that differ)",
        sum(int(families.family(t).mrope != lay) for lay, ts in named.items() for t in ts),
        0,
        scope="posenc.families.family for the 14 model types named on the page",
    )
    models = {}
    for stem, key in ((QWEN3_VL, "q3"), (QWEN35, "q35")):
        raw, ours = raw_mrope(stem), read_mrope(stem)
        models[key] = ours
        layout = "interleaved_thw" if raw["interleaved"] else "chunked"
        rec.exact(
            f"{stem}: posenc reads the raw JSON's layout, sections, base, head width and "
            "rotated width, for the one kind of layer that rotates (facts that differ)",
            max(
                sum(int(ours[f] != raw[f]) for f in ("sections", "base", "head_dim", "rotated")),
                int(ours["layout"] != layout),
                int(ours["kinds"] != 1),
            ),
            0,
            scope=f"data/configs/{stem}.json: posenc.model_config.read_model against json.loads",
        )
        for name, value in (
            ("head_dim", ours["head_dim"]),
            ("rotated", ours["rotated"]),
            ("pairs", ours["rotated"] // 2),
            ("sec_t", ours["sections"][0]),
            ("sec_h", ours["sections"][1]),
            ("sec_w", ours["sections"][2]),
        ):
            want = {
                "head_dim": raw["head_dim"],
                "rotated": raw["rotated"],
                "pairs": raw["rotated"] // 2,
                "sec_t": raw["sections"][0],
                "sec_h": raw["sections"][1],
                "sec_w": raw["sections"][2],
            }[name]
            rec.exact(
                f"{stem}: {name} as posenc reads it equals the JSON's",
                value,
                want,
                scope=f"data/configs/{stem}.json",
                quantity=f"{key}_{name}",
                show=Show(),
            )
        rec.exact(
            f"{stem}: the base as posenc reads it equals the JSON's rope_theta",
            ours["base"],
            raw["base"],
            scope=f"data/configs/{stem}.json",
            quantity=f"{key}_base",
            show=Show(sig=1),
        )
        # posenc's speeds against b^(-2j/r) at 50 digits: the ladder is over the rotated
        # width (NeoX partial for Qwen3.5, as its compute_default_rope_parameters does).
        want = [
            sp.Float(ladder_50(raw["base"], raw["rotated"], j), 50)
            for j in range(raw["rotated"] // 2)
        ]
        rec.close(
            f"{stem}: posenc's speeds are b^(-2j/r), r the rotated width",
            [float(x) for x in ours["inv_freq"]],
            want,
            tol=1e-15,
            scope=f"every pair of data/configs/{stem}.json's rotating layers; absolute error, "
            "speeds of size at most 1",
        )
    q3, q35 = models["q3"], models["q35"]
    # Part (3)'s hypothesis for the interleaved layout: the last height pair 3 n_h - 2 and
    # the last width pair 3 n_w - 1 exist (are below the r/2 pairs); else the rule gives
    # those axes fewer pairs than their sections (the fifth misreading's witness).
    for stem, m in ((QWEN3_VL, q3), (QWEN35, q35)):
        _, n_h, n_w = m["sections"]
        half_r = m["rotated"] // 2
        rec.exact(
            f"{stem}: 3 n_h - 2 < r/2 and 3 n_w - 1 < r/2, the hypothesis of part (3) "
            "(conditions that fail)",
            int(3 * n_h - 2 >= half_r) + int(3 * n_w - 1 >= half_r),
            0,
            scope=f"data/configs/{stem}.json as posenc reads it: sections {m['sections']}, "
            f"{half_r} pairs",
        )
    drawn_models = [
        (m["head_dim"], Fraction(m["base"]), tuple(m["sections"]), m["layout"])
        for m in figure.MODELS
    ]
    rec.exact(
        "the figure draws Qwen2-VL as the inputs and Qwen3-VL 8B as posenc reads its config "
        "(facts that differ)",
        sum(
            int(a != b)
            for got, want in zip(
                drawn_models,
                [
                    (WIDTH, Fraction(BASE), SECTIONS, "chunked"),
                    (q3["head_dim"], q3["base"], q3["sections"], q3["layout"]),
                ],
                strict=True,
            )
            for a, b in zip(got, want, strict=True)
        ),
        0,
        scope="posenc.figures.mrope.MODELS, the two rows of the figure",
    )
    cases = (
        ("Qwen2-VL", inv, SECTIONS, "chunked"),
        ("Qwen3-VL 8B", q3["inv_freq"], q3["sections"], q3["layout"]),
        ("Qwen3.5 9B", q35["inv_freq"], q35["sections"], q35["layout"]),
    )
    rec.exact(
        "models checked below: Qwen2-VL chunked, Qwen3-VL 8B and Qwen3.5 9B interleaved "
        "(models whose layout is not that, plus the difference from 3 models)",
        max(
            sum(
                int(c[3] != want)
                for c, want in zip(
                    cases, ("chunked", "interleaved_thw", "interleaved_thw"), strict=False
                )
            ),
            abs(len(cases) - 3),
        ),
        0,
        scope="one chunked and two interleaved models; the layouts as posenc reads them",
    )

    # Step 1. Reduction. With t = h = w = p every pair reads p, so its angle is p theta_j:
    # the substitution is the whole argument, in every layout. The library is checked on
    # every text position below 32768, for each model: its angles are the float64 products
    # p * theta_j (one IEEE multiplication, rounded once) that 1-D RoPE uses.
    p = np.arange(INPUTS["text_positions"], dtype=np.int64)  # (L,)
    differing, entries = 0, 0
    for _, w, sections, layout in cases:
        text = rope.mrope_angles(np.stack([p, p, p]), w, sections, layout)  # (L, P)
        differing += int(np.sum(text != np.multiply.outer(p.astype(np.float64), w)))
        entries += text.size
    rec.exact(
        "entries compared: every text position times the pairs of the three models",
        entries,
        INPUTS["text_positions"]
        * (half + raw_mrope(QWEN3_VL)["rotated"] // 2 + raw_mrope(QWEN35)["rotated"] // 2),
        scope="the pairs of Qwen3-VL 8B and Qwen3.5 9B from the plain JSON, Qwen2-VL's d / 2",
    )
    rec.exact(
        "t = h = w = p: posenc's M-RoPE angles equal 1-D RoPE's p theta_j (differing entries)",
        differing,
        0,
        scope="Qwen2-VL (chunked), Qwen3-VL 8B and Qwen3.5 9B (interleaved): p = 0..32767, "
        "every pair; float64",
    )

    # Step 2. Offsets per axis, in symbols: one pair per axis (the score is a sum over
    # pairs, and each pair sees one axis, so more pairs per axis, and where they sit in the
    # ladder, change nothing). q, k arbitrary; the positions of both tokens symbolic.
    qs = sp.Matrix(sp.symbols("q0:6", real=True))
    ks = sp.Matrix(sp.symbols("k0:6", real=True))
    thetas = sp.symbols("theta_t theta_h theta_w", positive=True)
    here = sp.symbols("t h w", integer=True)
    there = sp.symbols("t' h' w'", integer=True)
    offsets = [b - a for a, b in zip(here, there, strict=True)]
    rotated = mrope_score(qs, ks, here, there, thetas)
    relative = sum(
        (qs[2 * j : 2 * j + 2, 0].T * block(offsets[j] * thetas[j]) * ks[2 * j : 2 * j + 2, 0])[
            0, 0
        ]
        for j in range(3)
    )
    rec.identity(
        "score(q at (t,h,w), k at (t',h',w')) = sum_a q_a^T R((p'_a - p_a) theta_a) k_a",
        # The angles' sums and differences opened up first (expand, then the addition
        # formulas): what is left cancels term by term.
        sp.expand_trig(sp.expand(rotated - relative)),
        scope="every real q, k in R^6, speeds theta_t, theta_h, theta_w > 0, integer positions",
    )
    shift = sp.Symbol("s", integer=True)
    shifted = mrope_score(qs, ks, [x + shift for x in here], [x + shift for x in there], thetas)
    moved = mrope_score(qs, ks, here, [there[0] + 1, there[1], there[2]], thetas)
    rec.identity(
        "moving both tokens by the same amount on every axis leaves the score unchanged",
        # Opened up, the shift s enters through cos(s theta)^2 and sin(s theta)^2 only:
        # sin^2 is written 1 - cos^2 (Pythagoras), and what is left cancels on expansion.
        sp.expand(sp.expand_trig(sp.expand(shifted - rotated))).subs(
            {sp.sin(shift * th) ** 2: 1 - sp.cos(shift * th) ** 2 for th in thetas}
        ),
        scope="every real q, k, speeds > 0, integer positions, every integer shift s "
        "(the same on all three axes)",
    )
    gap = sp.expand_trig(moved - rotated).subs(
        {**{x: 0 for x in here + there}, **dict.fromkeys(qs, 1), **dict.fromkeys(ks, 1)}
    )
    rec.exact(
        "but moving the key by 1 in time alone changes it: at q = k = 1, theta_t = pi/2, -2",
        sp.nsimplify(gap.subs({thetas[0]: sp.pi / 2})),
        -2,
        scope="one exact point: zero positions, q = k = (1, ..., 1), theta_t = pi/2",
    )

    # Step 3. The layouts. posenc's angles against Hugging Face's two constructions,
    # transcribed above, on random tokens, for each model.
    rng = np.random.default_rng(30)
    laid_out = 0
    for name, w, sections, layout in cases:
        laid_out += 1
        thw = rng.integers(0, 4096, size=(3, INPUTS["random_tokens"]))  # (3, T)
        ours = rope.mrope_angles(thw, w, sections, layout)  # (T, P)
        build = hf_chunked if layout == "chunked" else hf_interleaved
        hf = build(thw, w, sections)  # (T, 2P)
        rec.exact(
            f"{name}: posenc's {layout} angles equal HF's construction on both halves, "
            "and HF's halves agree (differing entries)",
            max(
                int(np.sum(np.concatenate([ours, ours], axis=-1) != hf)),
                int(np.sum(hf[:, : w.size] != hf[:, w.size :])),
            ),
            0,
            scope=f"{INPUTS['random_tokens']} random (t, h, w) in [0, 4096)^3; "
            f"HF's lines transcribed in the proof, not run",
        )
        # Which axis turns each pair: probed on posenc (one axis moved by 1), against the
        # statement's rule, and the count of each axis against its section.
        found = probe_axes(w, sections, layout)
        rec.exact(
            f"{name}: the axis that turns each pair is the statement's {layout} rule "
            "(pairs that differ), and each axis turns as many pairs as its section",
            max(
                sum(
                    int(a != b)
                    for a, b in zip(found, stated_axes(layout, sections, w.size), strict=True)
                ),
                max(abs(found.count(a) - sections[a]) for a in range(3)),
            ),
            0,
            scope=f"posenc.rope.mrope_angles, {name}'s {w.size} pairs, sections {tuple(sections)}",
        )

    rec.exact(
        "models whose layout was compared with HF's construction and with the rule",
        laid_out,
        3,
        scope="Qwen2-VL, Qwen3-VL 8B, Qwen3.5 9B",
    )

    # Qwen2-VL, chunked: each axis's run starts where the sections before it end.
    firsts, lasts = [], []
    chunked = probe_axes(inv, SECTIONS, "chunked")
    for axis in range(3):
        turned = [j for j, a in enumerate(chunked) if a == axis]
        first, last = (turned[0], turned[-1]) if turned else (-1, -1)
        firsts.append(first)
        lasts.append(last)
        start = sum(SECTIONS[:axis])
        for end, got, want, formula in (
            ("first", first, start, "the sections before it"),
            ("last", last, start + SECTIONS[axis] - 1, "those up to its own, minus 1"),
        ):
            rec.exact(
                f"Qwen2-VL: a unit step in {AXES[axis]} turns, as its {end} pair, the sum of "
                f"{formula}: {want}",
                got,
                want,
                scope="posenc.rope.mrope_angles, sections (16, 24, 24), one axis moved",
                quantity=f"{end}_{AXES[axis]}",
                show=Show(),
            )
        rec.exact(
            f"Qwen2-VL: a unit step in {AXES[axis]} turns a contiguous run: "
            "pairs turned = last - first + 1",
            len(turned),
            last - first + 1,
            scope="posenc.rope.mrope_angles, Qwen2-VL sections, one axis moved",
            quantity=f"count_{AXES[axis]}",
            show=Show(),
        )
    # Wavelengths at the ends of each run: posenc's against mpmath at 50 digits.
    waves = rope.wavelengths(inv)  # (64,)
    three = Show(sig=3)
    for axis in range(3):
        for end, j in (("lo", firsts[axis]), ("hi", lasts[axis])):
            exact_wave = sp.Float(wavelength_50(j), 50)
            rec.close(
                f"posenc's wavelength of pair {j}, the {AXES[axis]} section's "
                f"{'first' if end == 'lo' else 'last'}, is 2 pi b^(2j/d)",
                float(waves[j]),
                exact_wave,
                tol=float(exact_wave) * 1e-14,
                scope="posenc.rope.wavelengths against mpmath at 50 digits; tolerance 10^-14 "
                "of the wavelength",
                quantity=f"wave_{AXES[axis]}_{end}",
                show=three,
            )
    rec.exact(
        "Qwen2-VL: every width pair has a longer wavelength than every other pair "
        "(count of failures)",
        sum(int(waves[j] <= waves[: firsts[2]].max()) for j in range(firsts[2], pairs)),
        0,
        scope="posenc's float64 wavelengths, d = 128, b = 1e6",
    )

    # Qwen3-VL, interleaved: the first and last pair of height and width, the temporal
    # pairs past the interleaved run, and who holds the slowest clocks.
    q3_axes = probe_axes(q3["inv_freq"], q3["sections"], q3["layout"])
    q3_waves = rope.wavelengths(q3["inv_freq"])  # (64,)
    _, n_h, n_w = q3["sections"]
    for axis, label in ((1, "height"), (2, "width")):
        mine = [j for j, a in enumerate(q3_axes) if a == axis]
        rec.exact(
            f"Qwen3-VL: the second {label} pair is {axis + 3}, three after the first",
            mine[1],
            axis + 3,
            scope="posenc.rope.mrope_angles probed one axis at a time, Qwen3-VL 8B's config",
            quantity=f"q3_{label}_second",
            show=Show(),
        )
        for end, got, want in (
            ("first", mine[0], axis),
            ("last", mine[-1], 3 * q3["sections"][axis] - 3 + axis),
        ):
            rec.exact(
                f"Qwen3-VL: the {end} {label} pair is {want} "
                "(pair a, and a + 3 (n - 1) for the last)",
                got,
                want,
                scope="posenc.rope.mrope_angles probed one axis at a time, Qwen3-VL 8B's config",
                quantity=f"q3_{label}_{end}",
                show=Show(),
            )
    tail = [j for j, a in enumerate(q3_axes) if a == 0 and j >= 3 * max(n_h, n_w)]
    rec.exact(
        "Qwen3-VL: the temporal pairs past the interleaved run start at 3 max(n_h, n_w)",
        tail[0] if tail else -1,
        3 * max(n_h, n_w),
        scope="Qwen3-VL 8B's config, posenc's probes",
        quantity="q3_tail_first",
        show=Show(),
    )
    slower = [
        j
        for j in range(q3["inv_freq"].size)
        if q3_waves[j] > q3_waves[[a == 2 for a in q3_axes]].max()
    ]
    rec.exact(
        "Qwen3-VL: the pairs slower than every width pair are temporal, and there are "
        "P - 3 n_w of them (count of those temporal)",
        sum(int(q3_axes[j] == 0) for j in slower),
        q3["inv_freq"].size - 3 * n_w,
        scope="posenc's float64 wavelengths and probes, Qwen3-VL 8B",
        quantity="q3_tail",
        show=Show(),
    )
    rec.exact(
        "Qwen3-VL: no other pair is slower than every width pair (count of non-temporal ones)",
        len(slower) - sum(int(q3_axes[j] == 0) for j in slower),
        0,
        scope="posenc's float64 wavelengths and probes, Qwen3-VL 8B",
    )
    # The pairs whose wavelengths the page states are found from posenc's probes and
    # wavelengths (width's fastest and slowest pair, the head's slowest pair), not typed.
    widths = [j for j, a in enumerate(q3_axes) if a == 2]
    stated = (
        ("q3_wave_width_lo", widths[int(np.argmin(q3_waves[widths]))], 2),
        ("q3_wave_width_hi", widths[int(np.argmax(q3_waves[widths]))], 2),
        ("q3_wave_slowest", int(np.argmax(q3_waves)), 0),
    )
    rec.exact(
        "Qwen3-VL: the pairs whose wavelengths the page states turn with width, width and "
        "time (pairs whose axis differs)",
        sum(int(q3_axes[j] != axis) for _, j, axis in stated),
        0,
        scope="posenc's probes and wavelengths, Qwen3-VL 8B",
    )
    for name, j, _ in stated:
        exact_wave = sp.Float(wavelength_50(j, q3["base"], q3["rotated"]), 50)
        rec.close(
            f"Qwen3-VL: posenc's wavelength of pair {j} is 2 pi b^(2j/r) "
            f"(pair of axis {AXES[q3_axes[j]]})",
            float(q3_waves[j]),
            exact_wave,
            tol=float(exact_wave) * 1e-14,
            scope="posenc.rope.wavelengths against mpmath at 50 digits, b = 5e6, r = 128",
            quantity=name,
            show=three,
        )
    q35_axes = probe_axes(q35["inv_freq"], q35["sections"], q35["layout"])
    rec.exact(
        "Qwen3.5: the pair of the longest wavelength is a height pair (its axis, 1 = height)",
        q35_axes[int(np.argmax(rope.wavelengths(q35["inv_freq"])))],
        1,
        scope="posenc's probes, Qwen3.5 9B's config: 32 pairs, sections (11, 11, 10)",
    )
    rec.exact(
        "Qwen3.5: the last height pair, 3 n_h - 2, is the head's last pair, P - 1",
        max(j for j, a in enumerate(q35_axes) if a == 1),
        q35["inv_freq"].size - 1,
        scope="posenc's probes, Qwen3.5 9B's config",
        quantity="q35_height_last",
        show=Show(),
    )
    rec.exact(
        "Qwen3.5: its sections cover all its pairs, with the last pair of each axis at "
        "3n - 3 + a, and the time pairs at multiples of 3 (pairs that differ)",
        sum(
            abs(a - stated)
            for a, stated in zip(
                q35_axes, [j % 3 for j in range(q35["inv_freq"].size)], strict=True
            )
        ),
        0,
        scope="posenc's probes, Qwen3.5 9B: the interleaved rule with nothing left over",
    )

    # Step 3b. The permutation. pi lists the interleaved pairs axis by axis, each in ladder
    # order (a stable sort by axis); the interleaved angles read at pi equal the chunked
    # angles over the ladder read at pi, entry for entry.
    permuted = 0
    for name, w, sections, layout in cases[1:]:
        permuted += 1
        axes_i = np.array(probe_axes(w, sections, layout))
        pi = np.argsort(axes_i, kind="stable")  # (P,)
        thw = rng.integers(0, 4096, size=(3, INPUTS["random_tokens"]))  # (3, T)
        inter = rope.mrope_angles(thw, w, sections, "interleaved_thw")  # (T, P)
        chunk = rope.mrope_angles(thw, w[pi], sections, "chunked")  # (T, P)
        rec.exact(
            f"{name}: pi (a permutation by construction, np.argsort) sorts the interleaved "
            "axes into the chunked ones, and interleaved angles at pi = chunked angles over "
            "the ladder at pi (entries that differ)",
            max(
                int(np.sum(axes_i[pi] != np.array(stated_axes("chunked", sections, w.size)))),
                int(np.sum(inter[:, pi] != chunk)),
            ),
            0,
            scope=f"{INPUTS['random_tokens']} random (t, h, w) in [0, 4096)^3, "
            f"sections {tuple(sections)}; posenc.rope.mrope_angles in both layouts",
        )

    rec.exact(
        "interleaved models whose permutation was checked",
        permuted,
        2,
        scope="Qwen3-VL 8B and Qwen3.5 9B",
    )

    # Step 4. The score sees the three offsets, not the distance: three keys at
    # Euclidean distance 60 from the query, q = k = (1, ..., 1), Qwen2-VL. posenc's scores
    # against mpmath's 2 sum_j cos(delta theta_j); the page shows mpmath's.
    ones = np.ones(WIDTH)
    witness = rec.close(
        "posenc's M-RoPE scores at offsets (0,60,0), (0,0,60), (0,36,48) equal mpmath's",
        [score_float(ones, ones, o) for o in OFFSETS],
        [sp.Float(score_mp(o), 50) for o in OFFSETS],
        tol=1e-10,
        scope="Qwen2-VL: q = k = (1, ..., 1), d = 128, b = 1e6; absolute error, "
        "scores of size 100",
    )
    two = Show(decimals=2)
    for name, o in zip(("score_height", "score_width", "score_both"), OFFSETS, strict=True):
        rec.quantity(name, float(score_mp(o)), show=two, by=witness)
    # Along width, Qwen2-VL's score hardly moves; Qwen3-VL's falls at once.
    reach = INPUTS["figure_max_offset"]
    drawn = inspect.signature(fig_mrope_sections).parameters["max_offset"].default
    rec.exact(
        f"the figure's right panels run over the offsets 0 to {reach} (its default max_offset)",
        drawn,
        reach,
        scope="posenc.figures.mrope.fig_mrope_sections, as the site's build calls it",
    )
    along = [(0, 0, o) for o in range(reach + 1)]
    exact_along = [sp.Float(score_mp(o), 50) for o in along]
    rec.close(
        f"Qwen2-VL: posenc's scores along width, offsets 0 to {reach}, equal mpmath's",
        [score_float(ones, ones, o) for o in along],
        exact_along,
        tol=1e-10,
        scope=f"q = k = (1, ..., 1), d = 128, b = 1e6, key at (0, 0, w) for w = 0..{reach}",
    )
    drop = float(max(exact_along[0] - v for v in exact_along))
    # The largest fall is at the far end: every width angle w theta_j (j >= 40, w <= 100) is
    # below 0.018 < pi, so each width cosine falls as w grows, while the other pairs do not
    # move; the fall at w = reach is 2 sum over the width pairs of (1 - cos(reach theta_j)).
    slow = range(half - INPUTS["section_width"], half)
    with mpmath.workdps(50):
        fall = 2 * mpmath.fsum(
            1 - mpmath.cos(reach * mpmath.mpf(BASE) ** (-mpmath.mpf(2 * j) / WIDTH)) for j in slow
        )
    rec.close(
        f"Qwen2-VL: the largest fall along width, offsets 0 to {reach}, is the closed form "
        f"2 sum_(j = 40..63) (1 - cos({reach} theta_j))",
        drop,
        sp.Float(fall, 50),
        tol=1e-18,
        scope=f"mpmath at 50 digits against the closed form, d = 128, b = 1e6, w = 0..{reach}; "
        "absolute error, a fall of size 1e-3",
    )
    rec.band(
        f"Qwen2-VL: along width the score stays within 1/1000 of its value at offset 0, "
        f"up to {reach}",
        drop,
        low=0,
        high=Fraction(1, 1000),
        samples=len(along),
        scope=f"mpmath at 50 digits, offsets 0..{reach} along width; the largest fall",
        quantity="width_score_drop",
        show=Show(sig=2),
    )
    q3_args = ("interleaved_thw", q3["sections"], q3["base"], q3["rotated"])
    q3_along = [sp.Float(score_mp(o, *q3_args), 50) for o in along]
    rec.close(
        f"Qwen3-VL: posenc's scores along width, offsets 0 to {reach}, equal mpmath's",
        [score_float(ones, ones, o, q3["inv_freq"], q3["sections"], q3["layout"]) for o in along],
        q3_along,
        tol=1e-10,
        scope=f"q = k = (1, ..., 1), Qwen3-VL 8B (d = 128, b = 5e6), key at (0, 0, w), "
        f"w = 0..{reach}",
    )
    q3_drop = float(max(q3_along[0] - v for v in q3_along))
    # The other axes' curves, as the figure draws them: the largest fall within 0..reach.
    # The figure's own curves (its right panels, found by their gid) against mpmath's,
    # offset by offset, so that the falls the caption states are those of the drawn curves.
    drawn_curves = {
        line.get_gid(): line.get_ydata()
        for ax in fig_mrope_sections().axes
        for line in ax.get_lines()
    }
    for label, unit, args, low, high in (
        ("Qwen3-VL", (1, 0, 0), q3_args, 10, 128),
        ("Qwen3-VL", (0, 1, 0), q3_args, 10, 128),
        ("Qwen2-VL", (1, 0, 0), (), 10, 128),
        ("Qwen2-VL", (0, 1, 0), (), 1, 128),
    ):
        axis = AXES[unit.index(1)]
        curve = [
            sp.Float(score_mp(tuple(o * u for u in unit), *args), 50) for o in range(reach + 1)
        ]
        rec.close(
            f"{label}: the figure's {axis} curve is mpmath's score at every offset 0..{reach}",
            [
                float(v)
                for v in drawn_curves[f"{'q3-' if label == 'Qwen3-VL' else ''}score-{axis}"]
            ],
            curve,
            tol=1e-10,
            scope="posenc.figures.mrope.fig_mrope_sections (float64), q = k = (1, ..., 1), "
            f"key moved along {axis}; absolute error, scores of size 100",
        )
        rec.band(
            f"{label}: along {axis} the score falls by more than {low} somewhere in 0..{reach}",
            float(max(curve[0] - v for v in curve)),
            low=low,
            high=high,
            samples=len(curve),
            scope=f"mpmath at 50 digits, offsets 0..{reach} along {axis}; the largest fall",
            quantity=f"{'q3' if label == 'Qwen3-VL' else 'q2'}_{axis}_score_drop",
            show=Show(sig=2),
        )
    rec.band(
        f"Qwen3-VL: along width the score falls by more than 10 somewhere in 0..{reach}",
        q3_drop,
        low=10,
        high=128,
        samples=len(along),
        scope=f"mpmath at 50 digits, offsets 0..{reach} along width; the largest fall",
        quantity="q3_width_score_drop",
        show=Show(sig=2),
    )


# -- misreadings -------------------------------------------------------------------


def _different_model(wit: Witness) -> None:
    # "M-RoPE with equal positions is a different model from RoPE." In both layouts, every
    # angle of every text position below 32768 equals 1-D RoPE's: not one entry differs.
    p = np.arange(INPUTS["text_positions"], dtype=np.int64)
    q3 = read_mrope(QWEN3_VL)
    models = ((speeds(), SECTIONS, "chunked"), (q3["inv_freq"], q3["sections"], q3["layout"]))
    # One count per model: its angles all equal p theta_j; both models must count.
    equal = [
        int((rope.mrope_angles(np.stack([p, p, p]), w, n, lay) == np.multiply.outer(p, w)).all())
        for w, n, lay in models
    ]
    wit.exact(
        sum(equal) == 2,
        at="Qwen2-VL (chunked) and Qwen3-VL 8B (interleaved), t = h = w = p for p = 0..32767: "
        "every M-RoPE angle is p theta_j",
    )


def _width_slowest(wit: Witness) -> None:
    # "Every M-RoPE model gives width the slowest clocks." Qwen3-VL gives width pair 2, the
    # third fastest of the head, and its slowest pair, 63, turns with time.
    q3 = read_mrope(QWEN3_VL)
    axes = probe_axes(q3["inv_freq"], q3["sections"], q3["layout"])
    wit.exact(
        # Both facts counted: width's first pair is 2, the longest wavelength's pair is time.
        int(axes.index(2) == 2) + int(axes[int(np.argmax(rope.wavelengths(q3["inv_freq"])))] == 0)
        == 2,
        at="Qwen3-VL 8B (interleaved, sections 24, 20, 20): width's fastest pair is pair 2, "
        "and the slowest pair, 63, is temporal",
    )


def _layout_is_sections(wit: Witness) -> None:
    # "Qwen3-VL's M-RoPE is Qwen2-VL's with other sections" (an engine that ran Qwen3-VL
    # with the chunked layout: alibaba/MNN#4133). With Qwen3-VL's own ladder and sections,
    # a key 60 patches away along width gets a different score under the two layouts.
    q3 = read_mrope(QWEN3_VL)
    args = (q3["sections"], q3["base"], q3["rotated"])
    wit.differs(
        sp.Float(score_mp((0, 0, 60), "chunked", *args), 30),
        sp.Float(score_mp((0, 0, 60), "interleaved_thw", *args), 30),
        at="Qwen3-VL 8B's ladder and sections, q = k = (1, ..., 1), key offset (0, 0, 60): "
        "chunked against interleaved",
        margin=1,
        by="one unit of a score of size 128",
    )


def _euclidean(wit: Witness) -> None:
    # "The score depends on the Euclidean distance between patches." Keys at (0, 60, 0)
    # and (0, 0, 60), both at distance 60, get different scores (mpmath, 50 digits).
    wit.differs(
        sp.Float(score_mp(OFFSETS[0]), 30),
        sp.Float(score_mp(OFFSETS[1]), 30),
        at="Qwen2-VL: q = k = (1, ..., 1), d = 128, b = 1e6: key offset (0,60,0) against (0,0,60)",
        margin=1,
        by="one unit of a score of size 128",
    )


def _always_as_many(wit: Witness) -> None:
    # "With the same sections the two layouts always give each axis as many pairs." Not
    # without part (3)'s hypothesis: sections (3, 4, 3) over 10 pairs put height's fourth
    # pair at 3 * 4 - 2 = 10, which does not exist. The interleaved rule (and Transformers'
    # slice(1, 12, 3) on a 10-wide table) gives height 3 pairs and time 4; posenc refuses.
    sections, pairs = (3, 4, 3), 10
    counts = [stated_axes("interleaved_thw", sections, pairs).count(a) for a in range(3)]
    try:
        rope.mrope_angles(np.zeros((3, 1)), np.ones(pairs), sections, "interleaved_thw")
        refused = 0
    except ValueError:
        refused = 1
    wit.exact(
        (counts == [4, 3, 3]) + refused == 2,
        at="sections (3, 4, 3) over 10 pairs, 3 n_h - 2 = 10 not below 10: the interleaved "
        "rule gives time, height, width 4, 3, 3 pairs, not 3, 4, 3; posenc raises",
    )


MISREADINGS = [
    Misreading(
        "M-RoPE with equal positions on the three axes is a different model from RoPE",
        _different_model,
        why="With t = h = w = p each pair turns by p theta_j, exactly 1-D RoPE's angle, in "
        "both layouts; text tokens see plain RoPE.",
    ),
    Misreading(
        "Every M-RoPE model gives the width axis the slowest clocks of the head",
        _width_slowest,
        why="True of the chunked layout (Qwen2-VL), false of the interleaved one: Qwen3-VL's "
        "width turns pairs from the third fastest on, and its slowest pairs turn with time.",
    ),
    Misreading(
        "Qwen3-VL's M-RoPE is Qwen2-VL's with other sections",
        _layout_is_sections,
        why="The layout differs, not only the sections: the same sections laid out chunked "
        "and interleaved give a patch other angles, and another score.",
    ),
    Misreading(
        "The score depends on the Euclidean distance between two patches",
        _euclidean,
        why="It depends on the three offsets separately, each read by its own clocks; equal "
        "distances along different axes give different scores.",
    ),
    Misreading(
        "Whatever the sections, the two layouts give each axis as many pairs",
        _always_as_many,
        why="Only if the last height and width pairs, 3 n_h - 2 and 3 n_w - 1, exist; "
        "otherwise the interleaved rule gives those axes fewer pairs and time more.",
    ),
]
