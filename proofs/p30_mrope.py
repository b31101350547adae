"""Proposition 30 (M-RoPE: three axes, contiguous sections, 1-D RoPE on text).

Qwen2-VL's multimodal rotary embedding (M-RoPE) gives each token three positions, a
time t, a height h and a width w. The d/2 rotated pairs of a head are split, in
ladder order, into a temporal, a height and a width section (Qwen2-VL: 16, 24 and 24
pairs, d = 128, b = 10^6); pair j of a token turns by theta_j times the token's
position on the axis of j's section.

(1) If t = h = w = p for a token, every pair turns by p theta_j: the angles, and so
the scores, are those of 1-D RoPE at p.
(2) The score of q at (t, h, w) and k at (t', h', w') depends on the positions only
through the three offsets t' - t, h' - h, w' - w, each acting on its own section
(Proposition 12, applied pair by pair).
(3) The sections are contiguous runs of the ladder: pairs 0-15 (temporal) get the
fastest clocks, 16-39 (height) the middle ones, 40-63 (width) the slowest; in
Hugging Face's split-half layout pair j is the coordinates (j, j + d/2), and the
same split is used on both halves.

Uses: 12, 22.
"""

from __future__ import annotations

import inspect
import itertools
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from posenc import rope
from posenc.figures.mrope import fig_mrope_sections
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 30
TITLE = "M-RoPE: three axes, contiguous sections, 1-D RoPE on text"
USES = (12, 22)

# Qwen2-VL's rotary configuration (its config.json: rope_theta 1e6, head width 128,
# mrope_section [16, 24, 24]; no copy of it is under data/configs); the text positions
# swept for the reduction; the random tokens of the layout check; and the largest offset
# of the figure's right panel, over which step 4 measures how little width moves the score.
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
#: Key offsets of the Euclidean-distance witness, all three at distance 60.
OFFSETS = ((0, 60, 0), (0, 0, 60), (0, 36, 48))

BASE = INPUTS["base"]
WIDTH = INPUTS["head_dim"]
SECTIONS = (INPUTS["section_temporal"], INPUTS["section_height"], INPUTS["section_width"])
AXES = ("temporal", "height", "width")


def speeds() -> np.ndarray:
    return rope.default_inv_freq(WIDTH, float(BASE))  # (64,)


def wavelength_50(pair: int) -> mpmath.mpf:
    """lambda_j = 2 pi b^(2j/d) at 50 digits."""
    with mpmath.workdps(50):
        return 2 * mpmath.pi * mpmath.mpf(BASE) ** (mpmath.mpf(2 * pair) / WIDTH)


def hf_layout_angles(thw: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    """Qwen2-VL's angles as Hugging Face builds them, written out here (d coordinates).

    Each axis gives a full table p_a theta_j (L, d/2); the pair axis is split into the
    sections and chunk i is taken from axis i mod 3; the result is repeated on both
    halves (split-half pairing: coordinate j and j + d/2 share an angle).
    """
    tables = [np.multiply.outer(row, inv_freq) for row in thw]  # 3 x (L, d/2)
    cuts = np.cumsum(SECTIONS)[:-1]
    chunks = [np.split(table, cuts, axis=-1) for table in tables]
    half = np.concatenate([chunks[i % 3][i] for i in range(3)], axis=-1)  # (L, d/2)
    return np.concatenate([half, half], axis=-1)  # (L, d)


def block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def mrope_score(q: sp.Matrix, k: sp.Matrix, pos_q, pos_k, thetas) -> sp.Expr:
    """Score of one query and one key with one pair per axis: sum of rotated 2-D dots."""
    total = sp.Integer(0)
    for j, (a, b, th) in enumerate(zip(pos_q, pos_k, thetas, strict=True)):
        qj, kj = q[2 * j : 2 * j + 2, 0], k[2 * j : 2 * j + 2, 0]
        total += ((block(a * th) * qj).T * (block(b * th) * kj))[0, 0]
    return total


def score_float(q: np.ndarray, k: np.ndarray, offset: tuple[int, int, int]) -> float:
    """posenc's M-RoPE score, split-half pairing, query at the origin, key at ``offset``."""
    thw = np.array([[0, o] for o in offset], dtype=np.int64)  # (3, 2)
    ang = rope.mrope_angles(thw, speeds(), SECTIONS)  # (2, 64)
    half = WIDTH // 2
    rot = []
    for vec, a in ((q, ang[0]), (k, ang[1])):
        x, y = vec[:half], vec[half:]
        rot.append(np.concatenate([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)]))
    return float(rot[0] @ rot[1])


def score_mp(offset: tuple[int, int, int]) -> mpmath.mpf:
    """The same score for q = k = (1, ..., 1) at 50 digits: 2 sum_j cos(delta_a(j) theta_j)."""
    axis = list(itertools.chain.from_iterable([a] * n for a, n in enumerate(SECTIONS)))
    with mpmath.workdps(50):
        return 2 * mpmath.fsum(
            mpmath.cos(offset[axis[j]] * mpmath.mpf(BASE) ** (-mpmath.mpf(2 * j) / WIDTH))
            for j in range(WIDTH // 2)
        )


def checks(rec: Recorder) -> None:
    inv = speeds()  # (64,)
    pairs = inv.size

    # Step 1. Reduction. With t = h = w = p every pair reads p, so its angle is
    # p theta_j: the substitution is the whole argument. The library is checked on
    # every text position below 32768: its angles are the float64 products p * theta_j
    # (one IEEE multiplication, rounded once) that 1-D RoPE uses.
    p = np.arange(INPUTS["text_positions"], dtype=np.int64)  # (L,)
    text = rope.mrope_angles(np.stack([p, p, p]), inv, SECTIONS)  # (L, 64)
    one_d = np.multiply.outer(p.astype(np.float64), inv)  # (L, 64)
    rec.exact(
        "t = h = w = p: posenc's M-RoPE angles equal 1-D RoPE's p theta_j (differing entries)",
        int(np.sum(text != one_d)),
        0,
        scope="Qwen2-VL's ladder (d = 128, b = 1e6), p = 0..32767, all 64 pairs; float64",
    )

    # Step 2. Offsets per axis, in symbols: one pair per axis (the score is a sum over
    # pairs, and each pair sees one axis, so more pairs per section change nothing).
    # q, k arbitrary; the positions of both tokens symbolic; the score equals the one
    # with the key's positions replaced by the offsets and the query at the origin.
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
        sp.expand_trig(sp.expand(shifted - rotated)),
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

    # Step 3. The layout. posenc's angles are compared with Hugging Face's
    # construction written out above (split, chunk i from axis i mod 3, both halves).
    rng = np.random.default_rng(30)
    thw = rng.integers(0, 4096, size=(3, INPUTS["random_tokens"]))  # (3, T)
    ours = rope.mrope_angles(thw, inv, SECTIONS)  # (256, 64)
    hf = hf_layout_angles(thw, inv)  # (256, 128)
    half = WIDTH // 2
    rec.exact(
        "posenc's angles equal HF's layout on both halves (differing entries)",
        int(np.sum(np.concatenate([ours, ours], axis=-1) != hf)),
        0,
        scope="256 random (t, h, w) in [0, 4096)^3, d = 128; HF's two lines re-written here",
    )
    rec.exact(
        "in HF's layout coordinate j and j + d/2 turn by the same angle (differing entries)",
        int(np.sum(hf[:, :half] != hf[:, half:])),
        0,
        scope="the same 256 tokens: the split-half pairs (j, j + 64)",
    )
    # Probe each axis: move one axis by 1 and see which pairs turn. The run of an axis
    # starts where the sections before it end and holds its section's pairs: each end is
    # compared with the sums of the sections (the inputs), and the count with the run's
    # length (so the run has no gap).
    firsts, lasts = [], []
    for axis in range(3):
        probe = np.zeros((3, 1), dtype=np.int64)
        probe[axis, 0] = 1
        turned = np.flatnonzero(rope.mrope_angles(probe, inv, SECTIONS)[0])
        first, last = (int(turned[0]), int(turned[-1])) if turned.size else (-1, -1)
        firsts.append(first)
        lasts.append(last)
        start = sum(SECTIONS[:axis])
        for end, got, want, formula in (
            ("first", first, start, "the sections before it"),
            ("last", last, start + SECTIONS[axis] - 1, "those up to its own, minus 1"),
        ):
            rec.exact(
                f"a unit step in {AXES[axis]} turns, as its {end} pair, the sum of {formula}: "
                f"{want}",
                got,
                want,
                scope="posenc.rope.mrope_angles, Qwen2-VL sections (16, 24, 24), one axis moved",
                quantity=f"{end}_{AXES[axis]}",
                show=Show(),
            )
        rec.exact(
            f"a unit step in {AXES[axis]} turns a contiguous run: pairs turned = last - first + 1",
            int(turned.size),
            last - first + 1,
            scope="posenc.rope.mrope_angles, Qwen2-VL sections, one axis moved",
            quantity=f"count_{AXES[axis]}",
            show=Show(),
        )
    rec.exact(
        "the runs are in ladder order: temporal, then height, then width (gaps/overlaps)",
        abs(firsts[0])
        + abs(firsts[1] - lasts[0] - 1)
        + abs(firsts[2] - lasts[1] - 1)
        + abs(lasts[2] - (pairs - 1)),
        0,
        scope="the three probes above",
    )
    # Wavelengths at the ends of each run: posenc's against mpmath at 50 digits, each to
    # within 10^-14 of its size.
    waves = rope.wavelengths(inv)  # (64,)
    three = Show(sig=3)
    for axis in range(3):
        for end, j in (("lo", firsts[axis]), ("hi", lasts[axis])):
            exact_wave = sp.Float(wavelength_50(j), 50)  # all 50 digits reach the kit
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
    # The width axis rides only slow clocks: its fastest pair is slower than every
    # temporal and every height pair (the ladder grows: Proposition 22).
    rec.exact(
        "every width pair has a longer wavelength than every other pair (count of failures)",
        sum(int(waves[j] <= waves[: firsts[2]].max()) for j in range(firsts[2], pairs)),
        0,
        scope="posenc's float64 wavelengths, d = 128, b = 1e6",
    )

    # Step 4. The score sees the three offsets, not the distance: three keys at
    # Euclidean distance 60 from the query, q = k = (1, ..., 1). posenc's scores against
    # mpmath's 2 sum_j cos(delta theta_j); the page shows mpmath's.
    ones = np.ones(WIDTH)
    witness = rec.close(
        "posenc's M-RoPE scores at offsets (0,60,0), (0,0,60), (0,36,48) equal mpmath's",
        [score_float(ones, ones, o) for o in OFFSETS],
        [sp.Float(score_mp(o), 50) for o in OFFSETS],
        tol=1e-10,
        scope="q = k = (1, ..., 1), d = 128, b = 1e6; absolute error, scores of size 100",
    )
    two = Show(decimals=2)
    for name, o in zip(("score_height", "score_width", "score_both"), OFFSETS, strict=True):
        rec.quantity(name, float(score_mp(o)), show=two, by=witness)
    # Along width the score hardly moves: over the offsets 0 to the figure's largest,
    # posenc's scores equal mpmath's, and mpmath's stay within a thousandth of the score at
    # offset 0 (the slowest clocks turn by at most 100 theta_40, about 0.018 radians).
    reach = INPUTS["figure_max_offset"]
    drawn = inspect.signature(fig_mrope_sections).parameters["max_offset"].default
    rec.exact(
        f"the figure's right panel runs over the offsets 0 to {reach} (its default max_offset)",
        drawn,
        reach,
        scope="posenc.figures.mrope.fig_mrope_sections, as the site's build calls it",
    )
    along = [(0, 0, o) for o in range(reach + 1)]
    exact_along = [sp.Float(score_mp(o), 50) for o in along]
    rec.close(
        f"posenc's scores along width, offsets 0 to {reach}, equal mpmath's",
        [score_float(ones, ones, o) for o in along],
        exact_along,
        tol=1e-10,
        scope=f"q = k = (1, ..., 1), d = 128, b = 1e6, key at (0, 0, w) for w = 0..{reach}",
    )
    drop = float(max(exact_along[0] - v for v in exact_along))
    # The largest fall is at the far end: every width angle w theta_j (j >= 40, w <= 100) is
    # below 0.018 < pi, so each width cosine falls as w grows, while the other pairs do not
    # move; the fall at w = reach is 2 sum over the width pairs of (1 - cos(reach theta_j)).
    slow = range(WIDTH // 2 - INPUTS["section_width"], WIDTH // 2)
    with mpmath.workdps(50):
        fall = 2 * mpmath.fsum(
            1 - mpmath.cos(reach * mpmath.mpf(BASE) ** (-mpmath.mpf(2 * j) / WIDTH)) for j in slow
        )
    rec.close(
        f"the largest fall along width, offsets 0 to {reach}, is the closed form "
        f"2 sum_(j = 40..63) (1 - cos({reach} theta_j))",
        drop,
        sp.Float(fall, 50),
        tol=1e-18,
        scope=f"mpmath at 50 digits against the closed form, d = 128, b = 1e6, w = 0..{reach}; "
        "absolute error, a fall of size 1e-3",
    )
    rec.band(
        f"along width the score stays within 1/1000 of its value at offset 0, up to {reach}",
        drop,
        low=0,
        high=Fraction(1, 1000),
        samples=len(along),
        scope=f"mpmath at 50 digits, offsets 0..{reach} along width; the largest fall",
        quantity="width_score_drop",
        show=Show(sig=2),
    )


# -- misreadings -------------------------------------------------------------------


def _different_model(wit: Witness) -> None:
    # "M-RoPE with equal positions is a different model from RoPE." Every angle of
    # every text position below 32768 equals 1-D RoPE's: not one entry differs.
    inv = speeds()
    p = np.arange(INPUTS["text_positions"], dtype=np.int64)
    same = rope.mrope_angles(np.stack([p, p, p]), inv, SECTIONS) == np.multiply.outer(
        p.astype(np.float64), inv
    )
    wit.exact(
        bool(same.all()),
        at="Qwen2-VL's ladder, t = h = w = p for p = 0..32767: every M-RoPE angle is p theta_j",
    )


def _thirds_of_every_band(wit: Witness) -> None:
    # "Each axis gets a third of every band / the sections interleave." The 16 fastest
    # pairs all belong to the temporal axis; no width pair is among the fastest 40.
    inv = speeds()
    probe = np.array([[0], [0], [1]])
    turned = np.flatnonzero(rope.mrope_angles(probe, inv, SECTIONS)[0])
    wit.exact(
        int(turned.min()) == 40 and turned.size == 24,
        at="Qwen2-VL, a unit step in width: only pairs 40-63 turn, none of the 40 fastest",
    )


def _euclidean(wit: Witness) -> None:
    # "The score depends on the Euclidean distance between patches." Keys at (0, 60, 0)
    # and (0, 0, 60), both at distance 60, get different scores (mpmath, 50 digits).
    wit.differs(
        sp.Float(score_mp(OFFSETS[0]), 30),
        sp.Float(score_mp(OFFSETS[1]), 30),
        at="q = k = (1, ..., 1), d = 128, b = 1e6: key offset (0,60,0) against (0,0,60)",
        margin=1,
        by="one unit of a score of size 128",
    )


MISREADINGS = [
    Misreading(
        "M-RoPE with equal positions on the three axes is a different model from RoPE",
        _different_model,
        why="With t = h = w = p each pair turns by p theta_j, exactly 1-D RoPE's angle; "
        "text tokens see plain RoPE.",
    ),
    Misreading(
        "Each axis gets a third of every frequency band: the sections interleave",
        _thirds_of_every_band,
        why="Qwen2-VL's sections are contiguous runs of the ladder: time takes the fastest "
        "pairs, width the slowest.",
    ),
    Misreading(
        "The score depends on the Euclidean distance between two patches",
        _euclidean,
        why="It depends on the three offsets separately, each read by its own clocks; equal "
        "distances along different axes give different scores.",
    ),
]
