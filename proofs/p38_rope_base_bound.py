"""Proposition 38 (the base bound: where the rotary sum of Men et al. stays non-negative).

A rotary head of width d turns pair i at the speed theta_i = b^(-2i/d), i = 0 .. d/2 - 1.
Men et al. (arXiv 2405.14591) take B(m) = sum_i cos(m theta_i), which is the score
q^T R(m) q of a query with itself at offset m when every pair of q has length 1. In
posenc's reading (the paper's text was not read) the condition is B(m) >= 0 at every
integer offset m = 0 .. L, and the smallest base that meets it is posenc's reading of
their lower bound of the base for the context L. The numbers are posenc's computation,
not the paper's: a third-party reading of the paper's Figure 1 gives a fit that agrees
at 4096 and 8192 and is higher at long contexts (compared below).

For d = 128 and each context L of the page, the smallest base of the grid
b_k = 2 * 1.001^k (each rounded to float64) that meets the condition: a certificate in
data/base-bound.json (written by tools/base_bound_table.py) gives the answer's index
and, for every grid base below it, an offset with B(m) < 0; this proof checks all of it
(every offset at the answer, every witness, no index missing). The condition is not
monotone in b, and posenc.similarity.base_bound's b*(L) (its 2^(1/16) grid, then a
bisection) is where that search stops, far above the grid answer at long contexts; its
rows are checked as brackets. Shipped kinds of layer with a head of width 128 are
tested at their own base and length. The numbers are the page's quantities.

Uses: 9, 12, 22.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import model_config, similarity
from posenc.figures import basebound as figure
from proofs import kit
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 38
TITLE = "The base bound: where the rotary sum of Men et al. stays non-negative"
USES = (9, 12, 22)

# The head width; the contexts of the rows; the grid of bases (start, ratio, step); the
# factor of the base above b*(4096) that fails; b*'s bracket width; the margin of the
# failing sums; the largest width of the symbolic family; the float64 margin under
# which a sum is confirmed at 50 digits; how many witnesses closest to 0 are always
# recomputed at 50 digits; a real offset (hundredths) where B < 0 at b*(4096); the base
# the Gradient AI formula of koboldcpp's PR #910 gives Llama 2 13B at 8192, and the
# table's other base there (koboldcpp's earlier automatic rule); the fit
# y = 0.0424 L^1.628 of the paper's Figure 1 as a third-party reading gives it
# (subtext.edge.nugit.net, an automated description of the figure, not the paper's
# text), with the bands its ratio to the grid answer lies in at short and long contexts.
INPUTS = {
    "width": 128,
    "len_4096": 4096,
    "len_8192": 8192,
    "len_32768": 32768,
    "len_131072": 131072,
    "len_1048576": 1048576,
    "grid_start": 2,
    "grid_ratio": Fraction(1001, 1000),
    "grid_step": Fraction(1, 1000),
    "above": Fraction(3, 2),
    "rtol": Fraction(1, 10**6),
    "witness_margin": Fraction(1, 10**5),
    "most_width": 8,
    "margin": Fraction(1, 10**7),
    "closest": 8,
    "real_offset": Fraction(363407, 100),
    "kobold_base": 26784,
    "kobold_other": 32768,
    "fit_coefficient": Fraction(424, 10000),
    "fit_exponent": Fraction(1628, 1000),
}
WIDTH = INPUTS["width"]
MARGIN = float(INPUTS["margin"])

ROOT = Path(kit.__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "data/configs"
CERTIFICATE = ROOT / "data/base-bound.json"

#: The contexts of the page's rows, in order.
LENGTHS = (
    INPUTS["len_4096"],
    INPUTS["len_8192"],
    INPUTS["len_32768"],
    INPUTS["len_131072"],
    INPUTS["len_1048576"],
)

#: The kinds of layer the page names: figure name -> (file stems, layer kind or None).
MODEL_FILES = {
    "Gemma 3 27B, sliding": (("gemma-3-27b-it",), "sliding_attention"),
    "Llama 2 7B": (("llama-2-7b",), None),
    "Command R7B, sliding": (("command-r7b-12-2024",), "sliding_attention"),
    "Llama 3.1 8B, Llama 4 Scout": (
        ("llama-3.1-8b", "llama-3.1-8b-rope-parameters", "llama-4-scout-17b-16e"),
        None,
    ),
    "Code Llama 7B, Ministral 3 3B": (("code-llama-7b", "ministral-3-3b-reasoning-2512"), None),
    "Qwen2.5-7B-Instruct, Qwen3-8B": (("qwen2.5-7b-yarn-4", "qwen3-8b-yarn-4"), None),
    "SmolLM3-3B": (("smollm3-3b",), None),
    "Qwen3-VL-8B": (("qwen3-vl-8b-instruct",), None),
}
#: Short names of the figure's rows, for the page's quantities.
KEYS = {
    "Gemma 3 27B, sliding": "gemma3",
    "Llama 2 7B": "llama2",
    "Command R7B, sliding": "command",
    "Llama 3.1 8B, Llama 4 Scout": "llama31",
    "Code Llama 7B, Ministral 3 3B": "code_llama",
    "Qwen2.5-7B-Instruct, Qwen3-8B": "qwen",
    "SmolLM3-3B": "smol",
    "Qwen3-VL-8B": "qwen3vl",
}
#: The models the page says fail the condition at their length.
FAILING = {"Llama 2 7B", "Qwen2.5-7B-Instruct, Qwen3-8B", "Qwen3-VL-8B"}
#: Files left out of the comparison (data/configs/README.md): Llama 2 7B with a scaling
#: entry added, as users add it (the model is compared in its own file), and Phi-3's
#: shape with seeded stand-in factor lists. The two Qwen files also carry a YaRN block
#: added by hand (Qwen3-8B's as its model card says; the file qwen2.5-7b-yarn-4 is
#: Qwen2.5-7B-Instruct's config, whose max_position_embeddings is that length), and are
#: kept: they are the only files of those models, and the page says where the length
#: that block gives comes from.
STAND_INS = {"llama-2-7b-dynamic-2", "llama-2-7b-linear-4", "phi-3-mini-128k-shape"}


#: Kinds with a head of width 128 that the comparison leaves out, and why: GLM-4.5-Air
#: turns 32 of its 64 pairs and Phi-4-mini only part of its head; Gemma 3 27B's full
#: layers are scaled (linear, factor 8) and give no original length.
EXCLUDED = {
    "partial": {("glm-4.5-air", "all"), ("phi-4-mini-instruct", "all")},
    "no original length": {("gemma-3-27b-it", "full_attention")},
}


def speeds(base) -> np.ndarray:
    """theta_i = b^(-2i/d), each correctly rounded from 50 digits: (d/2,)."""
    with mpmath.workdps(50):
        b = mpmath.mpf(base)
        return np.array([float(b ** (-mpmath.mpf(2 * i) / WIDTH)) for i in range(WIDTH // 2)])


def exact_sum(m, base) -> mpmath.mpf:
    """B(m) at 50 digits, for a base given as an int or a float (taken exactly) and an
    integer or rational offset m."""
    with mpmath.workdps(50):
        b = mpmath.mpf(base)
        m = mpmath.mpf(m.numerator) / m.denominator if isinstance(m, Fraction) else m
        return mpmath.fsum(
            mpmath.cos(m * b ** (-mpmath.mpf(2 * i) / WIDTH)) for i in range(WIDTH // 2)
        )


def grid_base(k: int) -> float:
    """The k-th base of the grid: 2 * (1001/1000)^k at 50 digits, rounded to float64
    (the expression of tools/base_bound_table.py; the same on every machine)."""
    ratio = INPUTS["grid_ratio"]
    with mpmath.workdps(50):
        step = mpmath.mpf(ratio.numerator) / ratio.denominator
        return float(INPUTS["grid_start"] * step**k)


def float_bound(length: int) -> Fraction:
    """An upper bound on the float64 error of one value of :func:`pass_over`.

    Each angle m theta_i (theta_i <= 1, correctly rounded) is off by at most
    2 m 2^-53 <= length 2^-52; NumPy's cosine adds a few units of 2^-53; the sum of
    d/2 terms below d/2 adds d/2 roundings of 2^-53 d/2. Counted generously:
    d/2 (length + 4 + d/2) 2^-52.
    """
    return Fraction(WIDTH // 2 * (length + 4 + WIDTH // 2), 2**52)


def loose_bound(length: int) -> Fraction:
    """The same for :func:`witness_sums`, whose speeds come from NumPy's power (taken
    within 3 units of 2^-53, relative) rather than from 50 digits: each angle is then
    off by at most 4 m 2^-53 <= 2 length 2^-52, so d/2 (2 length + 4 + d/2) 2^-52."""
    return Fraction(WIDTH // 2 * (2 * length + 4 + WIDTH // 2), 2**52)


def pass_over(base, length: int) -> np.ndarray:
    """B(m) for every m = 0 .. length in float64, with np.cos, in chunks: (length + 1,)."""
    theta = speeds(base)  # (d/2,)
    out = np.empty(length + 1)  # (L + 1,)
    for start in range(0, length + 1, 4096):
        m = np.arange(start, min(length + 1, start + 4096), dtype=np.float64)  # (c,)
        out[start : start + m.size] = np.cos(m[:, None] * theta).sum(axis=1)  # (c,)
    return out


def witness_sums(offsets: np.ndarray, bases: np.ndarray) -> np.ndarray:
    """B(offsets[k]) at bases[k], in float64, speeds from NumPy's power: (K,)."""
    out = np.empty(offsets.size)  # (K,)
    exponents = -2.0 * np.arange(WIDTH // 2) / WIDTH  # (d/2,), exact: i / 64
    for top in range(0, offsets.size, 4096):
        theta = bases[top : top + 4096, None] ** exponents  # (c, d/2)
        angles = offsets[top : top + 4096, None] * theta  # (c, d/2)
        out[top : top + 4096] = np.cos(angles).sum(axis=1)  # (c,)
    return out


def meets(rec: Recorder, base, length: int, label: str):
    """Check B(m) >= 0 for every m in [0, length] at ``base``: a float64 pass over every
    offset; the values under the margin (and the smallest) confirmed at 50 digits.
    Returns the smallest value (at 50 digits) and where."""
    values = pass_over(base, length)  # (L + 1,)
    rec.exact(
        f"{label}: the float64 error bound is below the margin 10^-7",
        float_bound(length),
        INPUTS["margin"],
        relation="<",
        scope=f"d = {WIDTH}, offsets up to {length}",
    )
    low = np.flatnonzero(values < MARGIN)  # offsets that the float64 pass cannot settle
    at = int(np.argmin(values))
    checked = sorted({at, *low.tolist()})
    confirmed = [exact_sum(m, base) for m in checked]
    spot = [0, length, *np.random.default_rng(length).integers(0, length + 1, 6).tolist()]
    rec.close(
        f"{label}: the float64 pass against 50 digits, within its error bound",
        [float(values[m]) for m in checked + spot],
        confirmed + [exact_sum(m, base) for m in spot],
        tol=float(float_bound(length)),
        scope=f"the {len(checked)} offsets confirmed below, m = 0, m = L and 6 random offsets",
    )
    # Settled: at or above the margin in float64 (so positive, the error being below
    # it); or non-negative at 50 digits. Every offset must be one or the other.
    settled = int(np.count_nonzero(values >= MARGIN))
    settled += sum(
        1 for m, v in zip(checked, confirmed, strict=True) if values[m] < MARGIN and v >= 0
    )
    rec.exact(
        f"{label}: offsets where B(m) >= 0 is settled (float64 at or above the margin, or "
        "50 digits below it), against L + 1",
        settled,
        length + 1,
        scope=f"every integer m in [0, {length}], base {base!r}; {low.size} offsets under "
        "10^-7 in float64",
    )
    return min(confirmed), at


def load_certificate(path: Path = CERTIFICATE) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def certify(
    rec: Recorder, data: dict, lengths: tuple[int, ...] = LENGTHS
) -> list[tuple[int, int, mpmath.mpf, int]]:
    """Check the certificate ``data`` (data/base-bound.json's content), trusting nothing
    in it: its grid is the page's; at each row's answer B(m) >= 0 at every offset up to
    L; the witnesses cover every grid index below the last answer, each within the
    context of the first row whose answer lies above it, each with B < 0 there.
    ``lengths``: the contexts the rows must have (the page's; a test passes fewer).
    Returns, for each row, (L, index of the answer, smallest value, where, failing):
    ``failing`` counts the grid bases k below the row's index whose witness is an
    offset <= L with B < 0 there (the row is right only if that is its index)."""
    rec.exact(
        "the grid's ratio is one step of 0.1 % (1.001 = 1 + 1/1000)",
        INPUTS["grid_ratio"],
        1 + INPUTS["grid_step"],
        scope="the page's grid",
    )
    rec.exact(
        "the certificate's grid is the page's: width, start and ratio (differences)",
        int(data.get("width") != WIDTH)
        + int(Fraction(data.get("start", 0)) != INPUTS["grid_start"])
        + int(Fraction(data.get("ratio", 0)) != INPUTS["grid_ratio"]),
        0,
        scope="data/base-bound.json against this proof's inputs",
    )
    rows = data["rows"]
    expected, lengths = list(lengths), [int(r["length"]) for r in rows]
    indices = [int(r["index"]) for r in rows]
    rec.exact(
        "the certificate's rows are the page's contexts, in order",
        int(lengths == expected),
        1,
        scope="data/base-bound.json",
    )
    rec.exact(
        "the answers' indices do not decrease with the context (rows out of order)",
        sum(1 for a, b in itertools.pairwise(indices) if b < a),
        0,
        scope="a base that meets the condition up to L meets it up to any shorter context",
    )
    results = []
    for length, index, row in zip(lengths, indices, rows, strict=True):
        base = grid_base(index)
        rec.exact(
            f"L = {length}: the answer is the grid base of its index",
            Fraction(row["base"]),
            Fraction(base),
            scope=f"index {index}: 2 * 1.001^{index} rounded to float64",
        )
        lowest, at = meets(rec, base, length, f"L = {length}, grid answer")
        results.append((length, index, lowest, at))

    witnesses = np.asarray(data["witnesses"], dtype=np.int64)  # (K,)
    count = witnesses.size
    rec.exact(
        "a witness for every grid base below the last answer: indices 0 .. k - 1, none "
        "missing (witnesses against k)",
        count,
        indices[-1],
        scope="data/base-bound.json",
    )
    # The context a witness of index k must lie in: that of the first row above k.
    reach = np.zeros(count, dtype=np.int64)  # (K,)
    for length, index in sorted(zip(lengths, indices, strict=True), reverse=True):
        reach[:index] = length
    rec.exact(
        "every witness is an offset in [0, L] for each row whose answer lies above it (outside)",
        int(np.count_nonzero((witnesses < 0) | (witnesses > reach))),
        0,
        scope=f"{count} witnesses; L of the first row whose index is above theirs",
    )
    bases = np.array([grid_base(k) for k in range(count)])  # (K,)
    values = witness_sums(witnesses.astype(np.float64), bases)  # (K,)
    bound = float(loose_bound(max(lengths)))
    unsettled = np.flatnonzero(values >= -bound)
    closest = np.argsort(values)[-INPUTS["closest"] :]
    confirm = sorted({*unsettled.tolist(), *closest.tolist()})
    exact = {k: exact_sum(int(witnesses[k]), bases[k]) for k in confirm}
    rec.close(
        "the witnesses' float64 sums against 50 digits, within their error bound",
        [float(values[k]) for k in confirm],
        [exact[k] for k in confirm],
        tol=bound,
        scope=f"the {len(confirm)} witnesses nearest to 0 (and any float64 cannot settle)",
    )
    fails = values < -bound  # (K,) B < 0 at the witness: float64 beyond its bound ...
    fails[unsettled] = [exact[k] < 0 for k in unsettled.tolist()]  # ... or 50 digits
    negative = int(np.count_nonzero(fails))
    rec.exact(
        "witnesses with B(m) < 0 at their grid base (float64 below minus its error bound, "
        "or 50 digits), against k",
        negative,
        indices[-1],
        scope=f"every grid base 2 * 1.001^k below the last answer; {unsettled.size} at 50 digits",
        quantity="grid_failing",
        show=Show(),
    )
    nearest = max(exact.values())
    rec.band(
        "the witness nearest to 0 is negative (50 digits)",
        float(nearest),
        low=-WIDTH // 2,
        high=-Fraction(1, 10**9),
        samples=1,
        scope=f"the largest of the {len(confirm)} witnesses recomputed at 50 digits",
        quantity="grid_nearest",
        show=Show(sig=2),
    )
    rows_out = []
    for length, index, lowest, at in results:
        inside = (witnesses[:index] >= 0) & (witnesses[:index] <= length)  # (index,)
        failing = int(np.count_nonzero(inside & fails[:index]))
        rows_out.append((length, index, lowest, at, failing))
    return rows_out


def config_rows(excluded: list | None = None):
    """Every kind of layer of data/configs with a head of 128 that turns all 64 pairs by
    the plain ladder (default), or by a scaled ladder with an original length: name of
    the file, kind, base, and the length the plain ladder serves. Kinds with a head of
    128 left out are appended to ``excluded`` as (file, kind, reason)."""
    rows = []
    excluded = [] if excluded is None else excluded
    for path in sorted(CONFIG_DIR.glob("*.json")):
        if path.stem in STAND_INS:
            continue
        reading = model_config.read_model(path)
        for kind in reading.kinds:
            rope = kind.rope
            if not kind.rotates or rope.head_dim != WIDTH:
                continue
            if int(np.count_nonzero(kind.inv_freq)) != WIDTH // 2:
                excluded.append((path.stem, kind.name, "partial"))
                continue
            if kind.sliding_window:
                length = kind.sliding_window
            elif rope.scheme == "default":
                length = reading.max_position_embeddings
            else:
                length = rope.params.get("original_max_position_embeddings")
            if length is None:
                excluded.append((path.stem, kind.name, "no original length"))
                continue
            rows.append((path.stem, kind.name, float(rope.base), int(length)))
    return rows


def checks(rec: Recorder) -> None:
    # Step 1. B(m) is the score of a query with itself at offset m, every pair of length
    # 1: q^T R(m) q = sum_i |q_i|^2 cos(m theta_i) (Proposition 12), for widths 2 .. 8.
    m = sp.Symbol("m", integer=True)

    def case(d: int) -> sp.Expr:
        thetas = sp.symbols(f"t0:{d // 2}", positive=True)
        q = sp.Matrix(sp.symbols(f"q0:{d}", real=True))
        blocks = [
            sp.Matrix([[sp.cos(m * t), -sp.sin(m * t)], [sp.sin(m * t), sp.cos(m * t)]])
            for t in thetas
        ]
        score = (q.T * sp.diag(*blocks) * q)[0, 0]
        norms = [q[2 * i] ** 2 + q[2 * i + 1] ** 2 for i in range(d // 2)]
        return score - sum(n * sp.cos(m * t) for n, t in zip(norms, thetas, strict=True))

    family = rec.instances(
        "q^T R(m) q = sum_i |q_i|^2 cos(m theta_i): B(m) when each pair of q has length 1",
        ((f"d = {d}", case(d)) for d in range(2, INPUTS["most_width"] + 1, 2)),
        scope=f"d = 2, 4, .., {INPUTS['most_width']}, every real q, integer m, speeds > 0",
    )
    rec.exact(
        "widths of the family checked (d = 2, 4, 6, 8)",
        family.samples,
        4,
        scope="the family above",
    )

    # Step 2. The library's sum against 50 digits: posenc.similarity.dot_profile is B.
    rng = np.random.default_rng(38)
    offsets = np.concatenate([[0, 1, 3634, 2**20], rng.integers(0, 2**20, 60)])  # (64,)
    got = similarity.dot_profile(offsets, WIDTH, base=1.0e6)  # (64,)
    rec.exact(
        "the offsets compared reach 2^20",
        int(offsets.max()),
        2**20,
        scope="the 64 offsets below",
    )
    rec.close(
        "posenc's dot_profile is B(m) = sum_i cos(m 10^(6 (-2i/128)))",
        list(got),
        [exact_sum(int(k), 10**6) for k in offsets],
        tol=1e-12,
        scope="64 offsets in [0, 2^20], base 10^6, d = 128; mpmath at 50 digits",
    )

    # Step 3. The smallest base of the grid 2 * 1.001^k that meets the condition, for
    # each context: the certificate of data/base-bound.json, checked in full.
    answers = {}
    for length, index, lowest, at, failing in certify(rec, load_certificate()):
        base = grid_base(index)
        answers[length] = base
        rec.exact(
            f"the smallest grid base meeting the condition up to L = {length}, as the page "
            "shows it: the grid base after the run of bases from k = 0 that fail up to L "
            "(witness <= L, B < 0), against the answer that passes at every offset",
            Fraction(grid_base(failing)),
            Fraction(base),
            scope=f"{failing} grid bases below index {index} fail up to L; the pass at index "
            f"{index} checked above",
            quantity=f"grid_{length}",
            show=Show(sig=7),
        )
        rec.band(
            f"L = {length}: the smallest value of B at that base (50 digits)",
            float(lowest),
            low=0,
            high=WIDTH // 2,
            samples=1,
            scope=f"m = {at}, the smallest of the float64 pass, recomputed at 50 digits",
            quantity=f"grid_lowest_{length}",
            show=Show(sig=2),
        )

    # Step 4. posenc.similarity.base_bound's b*(L): at b*(L), B >= 0 at every offset; at
    # the base below it (within 10^-6), an offset with B < 0. The table is the library's.
    lengths, gaps = [], []
    for length, base, at, below, witness in figure.BOUNDS:
        lengths.append(length)
        label = f"L = {length}, b*"
        lowest, where = meets(rec, base, length, label)
        rec.exact(
            f"{label}: the smallest value is where the library's search says",
            where,
            at,
            scope="argmin of the pass against posenc.similarity.base_bound's",
        )
        rec.band(
            f"{label}: the smallest value at b*(L) is non-negative and small",
            float(lowest),
            low=0,
            high=Fraction(1, 100),
            samples=1,
            scope=f"m = {at}, mpmath at 50 digits",
        )
        missed = exact_sum(witness, below)
        rec.band(
            f"{label}: at the base just below, B(m) < 0 at m = {witness} (50 digits): -B(m) "
            "is at least the margin",
            float(-missed),
            low=INPUTS["witness_margin"],
            high=WIDTH // 2,
            samples=1,
            scope=f"base {below!r}, mpmath at 50 digits; margin 10^-5 against float64 error",
        )
        rec.band(
            f"{label}: the two bases are within 10^-6 of each other, and the last halving "
            "left more than half that ((b* - below) / b*)",
            (Fraction(base) - Fraction(below)) / Fraction(base),
            low=INPUTS["rtol"] / 2,
            high=INPUTS["rtol"],
            scope="the search halves, in log scale, until the bracket is within 10^-6",
        )
        rec.exact(
            f"{label}: the witness lies in [0, L]",
            int(0 <= witness <= length),
            1,
            scope="the offset of the row",
        )
        rec.exact(
            f"b*({length}) as the page shows it",
            Fraction(base),
            Fraction(below),
            relation=">",
            scope="the row of posenc.figures.basebound.BOUNDS checked above",
            quantity=f"bound_{length}",
            show=Show(sig=3),
        )
        # Not monotone: the grid answer passes, and b*'s lower end, above it, fails.
        gap = Fraction(below) / Fraction(answers[length])
        gaps.append(gap)
        rec.band(
            f"L = {length}: the failing base just below b* over the smallest grid base, "
            "which passes (above 1: the passing set has a gap)",
            gap,
            low=1,
            high=100,
            scope="two bases both checked above at every offset or at a witness",
            quantity=f"gap_{length}",
            show=Show(sig=3),
        )
    # The first row is what the search returns (the others cost minutes to rerun).
    found = similarity.base_bound(LENGTHS[0], WIDTH)
    rec.exact(
        f"b*({LENGTHS[0]}): posenc.similarity.base_bound, rerun, returns the table's row "
        "(base, offset, lower end, witness: differences)",
        sum(
            Fraction(x) != Fraction(y)
            for x, y in zip(
                (found.base, found.at, found.below, found.witness),
                figure.BOUNDS[0][1:],
                strict=True,
            )
        ),
        0,
        scope="base_bound(4096, 128) with its defaults, against posenc.figures.basebound.BOUNDS",
    )
    rec.exact(
        "the rows of b* are the page's contexts, in order",
        int(lengths == list(LENGTHS)),
        1,
        scope="posenc.figures.basebound.BOUNDS",
    )
    rec.exact(
        "b* lies above the smallest grid base by more at longer contexts: the failing base "
        "below b* over the grid answer grows with L (pairs out of order)",
        sum(1 for a, b in itertools.pairwise(gaps) if not b > a),
        0,
        scope="the five ratios above, in order of L",
    )
    rec.band(
        "the smallest grid base grows more than a thousand times from 4096 to 2^20 positions",
        growth(answers)[0],
        low=10**3,
        high=10**4,
        scope="the first and last rows of the certificate, checked above",
        quantity="growth",
        show=Show(sig=2),
    )
    rec.exact(
        "while the context grows 2^8 times (2^20 / 4096, from the same rows)",
        growth(answers)[1],
        2**8,
        scope="the first and last rows of the certificate",
    )
    with mpmath.workdps(50):
        slope = mpmath.log(
            mpmath.mpf(growth(answers)[0].numerator) / growth(answers)[0].denominator
        )
        slope /= mpmath.log(growth(answers)[1])
    rec.band(
        "the smallest grid base grows as L to the power (ln growth / ln 2^8), from 4096 to 2^20",
        float(slope),
        low=Fraction(13, 10),
        high=Fraction(3, 2),
        samples=1,
        scope="the first and last rows of the certificate; mpmath at 50 digits",
        quantity="growth_exponent",
        show=Show(sig=3),
    )
    # A third-party reading of the paper's Figure 1 gives the fit 0.0424 L^1.628. Its
    # ratio to the grid answer: near 1 at 4096 and 8192, larger at long contexts. These
    # are the bands the page's words claim (about 1.2; about 2 and 4).
    bands = {
        INPUTS["len_4096"]: (Fraction(1), Fraction(13, 10)),
        INPUTS["len_8192"]: (Fraction(1), Fraction(13, 10)),
        INPUTS["len_32768"]: (Fraction(13, 10), Fraction(2)),
        INPUTS["len_131072"]: (Fraction(3, 2), Fraction(5, 2)),
        INPUTS["len_1048576"]: (Fraction(3), Fraction(5)),
    }
    coefficient, exponent = INPUTS["fit_coefficient"], INPUTS["fit_exponent"]
    for length in LENGTHS:
        with mpmath.workdps(50):
            fit = mpmath.mpf(coefficient.numerator) / coefficient.denominator
            fit *= mpmath.mpf(length) ** (mpmath.mpf(exponent.numerator) / exponent.denominator)
        low, high = bands[length]
        rec.band(
            f"L = {length}: the third-party fit of the paper's Figure 1 over the smallest grid "
            "base",
            float(fit / mpmath.mpf(answers[length])),
            low=low,
            high=high,
            samples=1,
            scope="0.0424 L^1.628 at 50 digits, against the certificate's answer checked above",
            quantity=f"fit_{length}",
            show=Show(sig=2),
        )

    # Posenc reads the condition at integer offsets. Over real m it fails at b*(4096):
    # between two integers where B >= 0, B dips below 0.
    length, base = figure.BOUNDS[0][:2]
    real = INPUTS["real_offset"]
    rec.band(
        f"L = {length}: at b*, B(m) < 0 at the real offset m = {float(real)} (50 digits): "
        "-B(m) in [10^-3, 1]",
        float(-exact_sum(real, base)),
        low=Fraction(1, 10**3),
        high=1,
        samples=1,
        scope=f"base {base!r}, mpmath at 50 digits; the integers around it pass (step 4)",
    )
    above = base * float(INPUTS["above"])
    rec.exact(
        f"L = {length}: the base b* times 3/2 is above b*",
        Fraction(above),
        Fraction(base),
        relation=">",
        scope="float64 values as exact rationals",
    )
    miss = similarity.first_negative(length, WIDTH, base=above)
    rec.band(
        f"L = {length}: at b* times 3/2, above the bound, B(m) < 0 at some m <= L (50 digits): "
        "-B(m) at least 1/100",
        float(-exact_sum(miss, above)),
        low=Fraction(1, 100),
        high=WIDTH // 2,
        samples=1,
        scope=f"m = {miss} found by posenc.similarity.first_negative, base {above!r}",
    )

    # Step 5. Shipped kinds of layer: base and length read by posenc against the raw JSON;
    # the condition at their own base and length (a witness where it fails, a full pass
    # where it holds).
    excluded = []
    rows = config_rows(excluded)
    rec.exact(
        "kinds with a head of 128 left out: some pairs do not turn",
        sum(1 for e in excluded if e[2] == "partial"),
        len(EXCLUDED["partial"]),
        scope=f"data/configs/*.json without the stand-ins: {sorted(e[0] for e in excluded)}",
        quantity="excluded_partial",
        show=Show(),
    )
    rec.exact(
        "kinds with a head of 128 left out: scaled, with no original length",
        sum(1 for e in excluded if e[2] == "no original length"),
        len(EXCLUDED["no original length"]),
        scope="data/configs/*.json without the stand-ins",
        quantity="excluded_unscaled",
        show=Show(),
    )
    rec.exact(
        "the kinds left out are the ones named here (differences)",
        len({e[:2] for e in excluded} ^ {k for v in EXCLUDED.values() for k in v}),
        0,
        scope="config_rows() against EXCLUDED",
    )
    rec.exact(
        "distinct pairs of base and length among the kinds compared",
        len({(r[2], r[3]) for r in rows}),
        len(figure.MODELS),
        scope="config_rows(): one point of the figure each",
        quantity="pairs_compared",
        show=Show(),
    )
    rec.exact(
        "kinds of layer compared: head 128, every pair turning, a length for the plain ladder",
        len(rows),
        12,
        scope="data/configs/*.json without the stand-ins; posenc.model_config.read_model",
        quantity="kinds_compared",
        show=Show(),
    )
    mismatches, named, verdicts, defaults = 0, 0, {}, 0
    for name, base, length in figure.MODELS:
        stems, layer = MODEL_FILES[name]
        for stem in stems:
            named += 1
            raw = json.loads((CONFIG_DIR / f"{stem}.json").read_text())
            part = raw.get("text_config", raw)
            params = part.get("rope_parameters") or {}
            scaling = part.get("rope_scaling") or {}
            if layer is not None and layer in params:
                params = params[layer]
            theta = params.get("rope_theta", part.get("rope_theta"))
            if layer == "sliding_attention" and "rope_local_base_freq" in part:
                theta = part["rope_local_base_freq"]
            if layer == "sliding_attention":
                span = part["sliding_window"]
            else:
                span = (params.get("original_max_position_embeddings")
                        or scaling.get("original_max_position_embeddings")
                        or part["max_position_embeddings"])  # fmt: skip
            read = [r for r in rows if r[0] == stem and (layer is None or r[1] == layer)]
            if theta is None:  # the file leaves the base to its config class
                defaults += 1
                theta = read[0][2] if read else None
            mismatches += len(read) != 1
            mismatches += sum(r[2:] != (float(theta), span) for r in read)
            mismatches += (float(theta), span) != (base, length)
        kind_rows = [r for r in rows if r[0] == stems[0] and (layer is None or r[1] == layer)]
        rec.exact(
            f"{name}: the base posenc reads is the figure's",
            Fraction(kind_rows[0][2]),
            Fraction(base),
            scope=f"data/configs/{stems[0]}.json",
            quantity=f"base_{KEYS[name]}",
            show=Show(sig=2),
        )
        rec.exact(
            f"{name}: the length posenc reads is the figure's",
            kind_rows[0][3],
            length,
            scope=f"data/configs/{stems[0]}.json",
            quantity=f"length_{KEYS[name]}",
            show=Show(),
        )
        miss = similarity.first_negative(length, WIDTH, base=base)
        if miss is None:
            lowest, _ = meets(rec, base, length, name)
        else:
            lowest = exact_sum(miss, base)
            rec.band(
                f"{name}: B(m) < 0 at m = {miss} <= {length}, base {base:g} (50 digits)",
                float(lowest),
                low=-WIDTH // 2,
                high=-Fraction(1, 10),
                samples=1,
                scope="the offset posenc.similarity.first_negative found; mpmath at 50 digits",
                quantity=f"dip_{KEYS[name]}",
                show=Show(sig=2),
            )
        # The verdict is the sign at 50 digits (the smallest value, or the sum at the
        # offset first_negative gives), not the library's word.
        verdicts[name] = lowest >= 0
    rec.exact(
        "each model's base and length: posenc's reading, the raw JSON and the figure agree "
        "(mismatches)",
        mismatches,
        0,
        scope=f"{named} files of {len(figure.MODELS)} rows of posenc.figures.basebound.MODELS",
    )
    rec.exact(
        "files whose base is a class default, not in the file (compared by length only)",
        defaults,
        1,
        scope="Gemma 3 27B's sliding layers: posenc reads Gemma3TextConfig's rope_local_base_freq",
    )
    rec.exact(
        "files compared: one for each model the page names",
        named,
        sum(len(stems) for stems, _ in MODEL_FILES.values()),
        scope="MODEL_FILES",
    )
    # koboldcpp PR #910's other row at 8192 (the old base 32768) fails as well.
    miss = similarity.first_negative(INPUTS["len_8192"], WIDTH, base=INPUTS["kobold_other"])
    rec.band(
        "koboldcpp's other base at 8192, 32768: B(m) < 0 at some m <= 8192 (50 digits): "
        "-B(m) at least 1/10",
        float(-exact_sum(miss, INPUTS["kobold_other"])),
        low=Fraction(1, 10),
        high=WIDTH // 2,
        samples=1,
        scope=f"m = {miss} found by posenc.similarity.first_negative; mpmath at 50 digits",
    )
    qwen = dict((n, (b, n_)) for n, b, n_ in figure.MODELS)["Qwen2.5-7B-Instruct, Qwen3-8B"]
    rec.exact(
        "Qwen2.5-7B-Instruct's and Qwen3-8B's base is above the smallest grid base for their "
        "length, 32768, and they still fail there (above)",
        Fraction(qwen[0]),
        Fraction(answers[qwen[1]]),
        relation=">",
        scope="posenc.figures.basebound.MODELS, checked against the files above; the "
        "certificate's row for 32768",
    )
    # Qwen3-VL-8B uses interleaved M-RoPE: each pair turns by one of three position ids
    # (time, height, width). For text tokens the three agree, so every pair turns by the
    # plain ladder, which is what the page tests; image tokens are not covered.
    vl = json.loads((CONFIG_DIR / "qwen3-vl-8b-instruct.json").read_text())["text_config"]
    rec.exact(
        "Qwen3-VL-8B: its M-RoPE sections cover the 64 pairs (each pair turns by one of the "
        "three position ids, equal for text tokens)",
        sum(vl["rope_scaling"]["mrope_section"]),
        WIDTH // 2,
        scope="data/configs/qwen3-vl-8b-instruct.json, rope_scaling.mrope_section "
        f"{vl['rope_scaling']['mrope_section']}, interleaved",
    )
    llama = model_config.read_model(CONFIG_DIR / "llama-3.1-8b.json")
    rec.band(
        "Llama 3.1 8B's base over the smallest grid base for its max_position_embeddings, "
        "131072: far below (under 1/5)",
        Fraction(float(llama.kinds[0].rope.base))
        / Fraction(answers[llama.max_position_embeddings]),
        low=0,
        high=Fraction(1, 5),
        scope="data/configs/llama-3.1-8b.json read by posenc; the certificate's row for 131072",
    )
    failing = {n for n, ok in verdicts.items() if not ok}
    rec.exact(
        "the models that fail the condition at their length are the ones the page lists "
        "(differences)",
        len(failing ^ FAILING),
        0,
        scope=f"{len(verdicts)} rows of posenc.figures.basebound.MODELS",
    )
    rec.exact(
        "how many rows of the figure fail",
        len(failing),
        len(FAILING),
        scope="the list above",
        quantity="models_failing",
        show=Show(),
    )
    rec.exact(
        "every kind compared is drawn in the figure (kinds not drawn)",
        len({(r[2], r[3]) for r in rows} - {(b, n) for _, b, n in figure.MODELS}),
        0,
        scope="config_rows() against posenc.figures.basebound.MODELS",
    )


# -- misreadings -------------------------------------------------------------------


def _larger_is_better(wit: Witness) -> None:
    # "A base above the bound meets the condition." Qwen2.5-7B-Instruct's base 10^6 is above
    # the smallest grid base for 32768, yet B(m) < 0 at an offset below 32768. Written
    # as B = |B|.
    reading = model_config.read_model(CONFIG_DIR / "qwen2.5-7b-yarn-4.json")
    kind = reading.kinds[0]
    base = float(kind.rope.base)
    length = int(kind.rope.params["original_max_position_embeddings"])
    miss = similarity.first_negative(length, WIDTH, base=base)
    value = sp.Float(exact_sum(miss, base), 50)
    wit.differs(
        value,
        abs(value),
        at=f"Qwen2.5-7B-Instruct: base {base:g} > {dict(growth_rows())[length]:.6g}, the smallest "
        f"grid base for {length}; m = {miss}",
        margin=sp.Rational(1, 2),
        by="B(m) - |B(m)| = 2 B(m): a sum below -1/4",
    )


def growth_rows() -> list[tuple[int, float]]:
    """(L, smallest grid base) for each row of the certificate."""
    return [(r["length"], grid_base(r["index"])) for r in load_certificate()["rows"]]


def growth(answers: dict[int, float] | None = None) -> tuple[Fraction, Fraction]:
    """From the first to the last context: the ratio of the smallest grid bases (the
    certificate's, checked in step 3) and 2^20 / 4096."""
    answers = dict(growth_rows()) if answers is None else answers
    first, last = LENGTHS[0], LENGTHS[-1]
    return Fraction(answers[last]) / Fraction(answers[first]), Fraction(last, first)


def _linear(wit: Witness) -> None:
    # "The bound grows in proportion to L." From 4096 to 2^20 (256 times longer) the
    # smallest grid base grows by a factor over a thousand.
    bases, lengths = growth()
    wit.differs(
        sp.Rational(bases),
        sp.Rational(lengths),
        at=f"smallest grid base at 2^20 over that at 4096 against 2^20 / 4096 = {lengths}",
        margin=1000,
        by="a thousand",
    )


def _any_large_base(wit: Witness) -> None:
    # "Any base above 10,000 covers 128k." Llama 3.1 8B's base 500000, with the plain
    # ladder, at 131072: an offset with B < 0.
    reading = model_config.read_model(CONFIG_DIR / "llama-3.1-8b.json")
    base = float(reading.kinds[0].rope.base)
    length = reading.max_position_embeddings  # 131072, beyond its original 8192
    miss = similarity.first_negative(length, WIDTH, base=base)
    value = sp.Float(exact_sum(miss, base), 50)
    wit.differs(
        value,
        abs(value),
        at=f"base {base:g} (Llama 3.1 8B's), plain ladder, L = {length}, m = {miss}",
        margin=sp.Rational(1, 2),
        by="B(m) - |B(m)| = 2 B(m): a sum below -1/4",
    )


def _good_perplexity(wit: Witness) -> None:
    # koboldcpp PR #910: a q4-quantised Llama 2 13B at 8192 with the base 26784 from the
    # PR's Gradient AI formula had the lower perplexity of the table's two rows at that
    # length. "A base that gives good perplexity at a length meets the condition there."
    # It does not: B(m) < 0 at some m <= 8192.
    base, length = INPUTS["kobold_base"], INPUTS["len_8192"]
    miss = similarity.first_negative(length, WIDTH, base=base)
    value = sp.Float(exact_sum(miss, base), 50)
    wit.differs(
        value,
        abs(value),
        at=f"base {base}, d = 128, L = {length}, m = {miss}",
        margin=sp.Rational(1, 2),
        by="B(m) - |B(m)| = 2 B(m): a sum below -1/4",
    )


MISREADINGS = [
    Misreading(
        "A base above the bound meets the condition: a larger base is always safe",
        _larger_is_better,
        why="The condition is not monotone in the base: Qwen2.5-7B-Instruct's base is above the "
        "smallest grid base for 32768 and still has an offset below 32768 where the sum is "
        "negative.",
    ),
    Misreading(
        "The bound grows in proportion to the context length",
        _linear,
        why="From 4096 to 2^20 positions the context grows 2^8 times and the smallest grid "
        "base more than a thousand times.",
    ),
    Misreading(
        "Any base above 10,000 covers a context of 128k",
        _any_large_base,
        why="With the plain ladder, Llama 3.1's base leaves a negative sum below 131072 "
        "positions, far under the smallest grid base there.",
    ),
    Misreading(
        "A base that keeps perplexity low at a length meets the paper's condition there",
        _good_perplexity,
        why="The base the Gradient AI formula of koboldcpp's PR #910 gave a q4-quantised "
        "Llama 2 13B at 8192 had the "
        "lower perplexity of two, yet the sum is negative below 8192 with it. Men et al.'s "
        "abstract warns of a superficial long-context ability; that perplexity does not show "
        "it is what secondary accounts of the paper say.",
    ),
]
