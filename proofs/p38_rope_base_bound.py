"""Proposition 38 (the base bound: where the rotary sum of Men et al. stays non-negative).

A rotary head of width d turns pair i at the speed theta_i = b^(-2i/d), i = 0 .. d/2 - 1.
Men et al. (arXiv 2405.14591) take B(m) = sum_i cos(m theta_i), which is the score
q^T R(m) q of a query with itself at offset m when every pair of q has length 1, and
ask that B(m) >= 0 for every offset m = 0 .. L; the smallest base that meets this they
call the lower bound of the base for the context L.

The condition is not monotone in b: above a base that meets it, other bases fail it.
For d = 128 the search of posenc.similarity.base_bound (bases 2 * 2^(k/16) upwards to
the first that meets the condition, then halving that step to a relative width of
10^-6) returns a base b*(L) with: B(m) >= 0 for every integer m in [0, L] at b*(L),
and B(m) < 0 at some m <= L at a base less than 10^-6 below it. Checked for
L = 4096, 8192, 32768 and 131072 over every offset; for L = 2^20 at the offsets
stated in the check only. Of the shipped kinds of layer with a head of width 128 that
rotate every pair by the plain ladder, Llama 2 7B (base 10^4 at 4096), Qwen2.5-7B and
Qwen3-8B (base 10^6 at 32768, above b*(32768)) and Qwen3-VL-8B (base 5 x 10^6 at
262144) fail the condition at their lengths; the others meet it.

Uses: 9, 12, 22.
"""

from __future__ import annotations

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

# The head width; the lengths of the rows checked at every offset; the factor of the
# base above b*(4096) that fails; the bracket's relative width; the step below b* of
# the figure's lower curve; the margin of the failing sums; the largest width of the
# symbolic family; the float64 margin under which a sum is confirmed at 50 digits; the
# random offsets of the 2^20 row; the base koboldcpp's automatic rule gives Llama 2 at
# 8192 (PR #910's table).
INPUTS = {
    "width": 128,
    "len_4096": 4096,
    "len_8192": 8192,
    "len_32768": 32768,
    "len_131072": 131072,
    "above": Fraction(3, 2),
    "rtol": Fraction(1, 10**6),
    "lower": Fraction(1, 10**3),
    "witness_margin": Fraction(1, 10**5),
    "most_width": 8,
    "margin": Fraction(1, 10**7),
    "sampled": 4096,
    "kobold_base": 26784,
}
WIDTH = INPUTS["width"]
MARGIN = float(INPUTS["margin"])

ROOT = Path(kit.__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "data/configs"

#: The rows checked over every offset; the row checked at stated offsets only.
FULL = (INPUTS["len_4096"], INPUTS["len_8192"], INPUTS["len_32768"], INPUTS["len_131072"])
SAMPLED = 1048576

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
    "Qwen2.5-7B, Qwen3-8B": (("qwen2.5-7b-yarn-4", "qwen3-8b-yarn-4"), None),
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
    "Qwen2.5-7B, Qwen3-8B": "qwen",
    "SmolLM3-3B": "smol",
    "Qwen3-VL-8B": "qwen3vl",
}
#: The models the page says fail the condition at their length.
FAILING = {"Llama 2 7B", "Qwen2.5-7B, Qwen3-8B", "Qwen3-VL-8B"}
#: Files whose scaling block was added by hand to a model that ships without one.
STAND_INS = {"llama-2-7b-dynamic-2", "llama-2-7b-linear-4", "phi-3-mini-128k-shape"}


def speeds(base) -> np.ndarray:
    """theta_i = b^(-2i/d), each correctly rounded from 50 digits: (d/2,)."""
    with mpmath.workdps(50):
        b = mpmath.mpf(base)
        return np.array([float(b ** (-mpmath.mpf(2 * i) / WIDTH)) for i in range(WIDTH // 2)])


def exact_sum(m: int, base) -> mpmath.mpf:
    """B(m) at 50 digits, for a base given as an int or a float (taken exactly)."""
    with mpmath.workdps(50):
        b = mpmath.mpf(base)
        return mpmath.fsum(
            mpmath.cos(m * b ** (-mpmath.mpf(2 * i) / WIDTH)) for i in range(WIDTH // 2)
        )


def float_bound(length: int) -> Fraction:
    """An upper bound on the float64 error of one value of :func:`pass_over`.

    Each angle m theta_i (theta_i <= 1, correctly rounded) is off by at most
    2 m 2^-53 <= length 2^-52; NumPy's cosine adds a few units of 2^-53; the sum of
    d/2 terms below d/2 adds d/2 roundings of 2^-53 d/2. Counted generously:
    d/2 (length + 4 + d/2) 2^-52.
    """
    return Fraction(WIDTH // 2 * (length + 4 + WIDTH // 2), 2**52)


def pass_over(base, length: int) -> np.ndarray:
    """B(m) for every m = 0 .. length in float64, with np.cos, in chunks: (length + 1,)."""
    theta = speeds(base)  # (d/2,)
    out = np.empty(length + 1)  # (L + 1,)
    for start in range(0, length + 1, 4096):
        m = np.arange(start, min(length + 1, start + 4096), dtype=np.float64)  # (c,)
        out[start : start + m.size] = np.cos(m[:, None] * theta).sum(axis=1)  # (c,)
    return out


def meets(rec: Recorder, base, length: int, label: str):
    """Check B(m) >= 0 for every m in [0, length] at ``base``: a float64 pass over every
    offset, the values under the margin confirmed at 50 digits. Returns the smallest
    value (at 50 digits) and where."""
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
    rec.numeric(
        f"{label}: B(m) >= 0 at every offset (at 50 digits below the margin; above it, "
        "the float64 value less its error bound; the amount below 0)",
        [float(max(-v, 0)) for v in confirmed]
        + list(np.maximum(float(float_bound(length)) - values[values >= MARGIN], 0)),
        tol=0.0,
        scope=f"every integer m in [0, {length}], base {base!r}; {len(checked)} offsets at 50 "
        "digits (the smallest, and any under 10^-7)",
    )
    rec.exact(
        f"{label}: offsets looked at, against L + 1",
        values.size,
        length + 1,
        scope="the pass above",
    )
    return min(confirmed), at


def config_rows():
    """Every kind of layer of data/configs with a head of 128 that turns all 64 pairs by
    the plain ladder (default), or by a scaled ladder with an original length: name of
    the file, kind, base, and the length the plain ladder serves."""
    rows = []
    for path in sorted(CONFIG_DIR.glob("*.json")):
        if path.stem in STAND_INS:
            continue
        reading = model_config.read_model(path)
        for kind in reading.kinds:
            rope = kind.rope
            if not kind.rotates or rope.head_dim != WIDTH:
                continue
            if int(np.count_nonzero(kind.inv_freq)) != WIDTH // 2:
                continue
            if kind.sliding_window:
                length = kind.sliding_window
            elif rope.scheme == "default":
                length = reading.max_position_embeddings
            else:
                length = rope.params.get("original_max_position_embeddings")
            if length is None:
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

    # Step 3. The rows: at b*(L), B >= 0 at every offset; at the base below it (within
    # 10^-6), an offset with B < 0, confirmed at 50 digits. The table is the library's.
    lengths = []
    for length, base, at, below, witness in figure.BOUNDS:
        lengths.append(length)
        label = f"L = {length}"
        if length in FULL:
            lowest, where = meets(rec, base, length, label)
            rec.exact(
                f"{label}: the smallest value is where the library's search says",
                where,
                at,
                scope="argmin of the pass against posenc.similarity.base_bound's",
            )
        else:
            # 2^20 offsets cost too much here: the offset where the library's scan found the
            # smallest value, the 4096 offsets around it, and random ones.
            near = np.arange(max(0, at - 2048), min(length, at + 2048) + 1)
            picks = np.unique(
                np.concatenate([near, rng.integers(0, length + 1, INPUTS["sampled"])])
            )
            values = similarity.dot_profile(picks, WIDTH, base=base)
            rec.exact(
                f"{label}: offsets around the smallest value, 2048 on each side and m itself",
                near.size,
                4097,
                scope=f"m = {at}, whose neighbourhood lies inside [0, {length}]",
            )
            lowest = exact_sum(at, base)
            rec.numeric(
                f"{label}: B(m) >= 0 at the offsets looked at (the amount below 0)",
                np.maximum(-values, 0),
                tol=0.0,
                scope=f"{picks.size} offsets of [0, {length}]: m = {at} (where posenc's full "
                "scan found the smallest value), the 4096 around it and 4096 random; NOT every "
                "offset",
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
            f"{label}: at the base just below, B(m) < 0 at m = {witness} (50 digits)",
            float(missed),
            low=-WIDTH // 2,
            high=-INPUTS["witness_margin"],
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
    rec.band(
        "b* grows more than ten thousand times from 4096 to 2^20 positions (b*(2^20) / b*(4096))",
        growth()[0],
        low=10**4,
        high=2 * 10**4,
        scope="the first and last rows of posenc.figures.basebound.BOUNDS, checked above",
    )
    rec.exact(
        "while the context grows 2^8 times (2^20 / 4096, from the same rows)",
        growth()[1],
        2**8,
        scope="the first and last rows of posenc.figures.basebound.BOUNDS",
    )
    rec.exact(
        "rows checked: 4096, 8192, 32768, 131072 and 2^20",
        len(lengths),
        len(FULL) + 1,
        scope="posenc.figures.basebound.BOUNDS",
    )
    rec.exact(
        "the rows are the lengths the page names",
        int(lengths == [*FULL, SAMPLED]),
        1,
        scope="posenc.figures.basebound.BOUNDS",
    )

    # Step 4. Not monotone: at L = 131072 the base b*(1 - 10^-3), below b*, meets the
    # condition at every offset; at L = 4096 a base above b* fails it.
    length, base = figure.BOUNDS[3][0], figure.BOUNDS[3][1]
    lower = base * float(1 - INPUTS["lower"])
    rec.exact(
        f"L = {length}: the base b*(1 - 10^-3) is below b*",
        Fraction(lower),
        Fraction(base),
        relation="<",
        scope="float64 values as exact rationals",
    )
    meets(rec, lower, length, f"L = {length}, base b*(1 - 10^-3)")
    length, base = figure.BOUNDS[0][0], figure.BOUNDS[0][1]
    lower = base * float(1 - INPUTS["lower"])  # the figure's second curve
    miss = similarity.first_negative(length, WIDTH, base=lower)
    rec.band(
        f"L = {length}: at b*(1 - 10^-3), the figure's lower curve, B(m) < 0 at some m <= L",
        float(exact_sum(miss, lower)),
        low=-WIDTH // 2,
        high=-Fraction(1, 100),
        samples=1,
        scope=f"m = {miss} found by posenc.similarity.first_negative, mpmath at 50 digits",
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
        f"L = {length}: at b* times 3/2, above the bound, B(m) < 0 at some m <= L (50 digits)",
        float(exact_sum(miss, above)),
        low=-WIDTH // 2,
        high=-Fraction(1, 100),
        samples=1,
        scope=f"m = {miss} found by posenc.similarity.first_negative, base {above!r}",
    )

    # Step 5. Shipped kinds of layer: base and length read by posenc against the raw JSON;
    # the condition at their own base and length (a witness where it fails, a full pass
    # where it holds).
    rows = config_rows()
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
            verdicts[name] = lowest >= 0
        else:
            value = exact_sum(miss, base)
            rec.band(
                f"{name}: B(m) < 0 at m = {miss} <= {length}, base {base:g} (50 digits)",
                float(value),
                low=-WIDTH // 2,
                high=-Fraction(1, 10),
                samples=1,
                scope="the offset posenc.similarity.first_negative found; mpmath at 50 digits",
            )
            verdicts[name] = False
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
    # "A base above the bound meets the condition." Qwen2.5-7B's base 10^6 is above
    # b*(32768), yet B(m) < 0 at an offset below 32768. Written as B = |B|.
    reading = model_config.read_model(CONFIG_DIR / "qwen2.5-7b-yarn-4.json")
    kind = reading.kinds[0]
    base = float(kind.rope.base)
    length = int(kind.rope.params["original_max_position_embeddings"])
    miss = similarity.first_negative(length, WIDTH, base=base)
    value = sp.Float(exact_sum(miss, base), 50)
    wit.differs(
        value,
        abs(value),
        at=f"Qwen2.5-7B: base {base:g} > b*({length}) = {figure.BOUNDS[2][1]:.6g}, m = {miss}",
        margin=sp.Rational(1, 2),
        by="B(m) - |B(m)| = 2 B(m): a sum below -1/4",
    )


def growth() -> tuple[Fraction, Fraction]:
    """From the first to the last row of the table: b*(2^20) / b*(4096) and 2^20 / 4096."""
    first, last = figure.BOUNDS[0], figure.BOUNDS[-1]
    return Fraction(last[1]) / Fraction(first[1]), Fraction(last[0], first[0])


def _linear(wit: Witness) -> None:
    # "The bound grows in proportion to L." From 4096 to 2^20 (256 times longer) b*
    # grows by a factor over ten thousand.
    bases, lengths = growth()
    wit.differs(
        sp.Rational(bases),
        sp.Rational(lengths),
        at=f"b*(2^20) / b*(4096) against 2^20 / 4096 = {lengths}",
        margin=1000,
        by="a thousand",
    )


def _any_large_base(wit: Witness) -> None:
    # "Any base above 10,000 covers 128k." Llama 3.1 8B's base 500000, with the plain
    # ladder, at 131072: an offset with B < 0.
    reading = model_config.read_model(CONFIG_DIR / "llama-3.1-8b.json")
    base = float(reading.kinds[0].rope.base)
    length = 131072
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
    # koboldcpp PR #910: a q4-quantised Llama 2 13B at 8192 with the base 26784 from the new rule had
    # the lower perplexity of the table's two rows at that length. "A base that gives
    # good perplexity at a length meets the condition there." It does not: B(m) < 0 at
    # some m <= 8192.
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
        why="The condition is not monotone in the base: Qwen2.5-7B's base is above b*(32768) "
        "and still has an offset below 32768 where the sum is negative.",
    ),
    Misreading(
        "The bound grows in proportion to the context length",
        _linear,
        why="From 4096 to 2^20 positions the context grows 2^8 times and b* more than ten "
        "thousand times.",
    ),
    Misreading(
        "Any base above 10,000 covers a context of 128k",
        _any_large_base,
        why="With the plain ladder, Llama 3.1's base leaves a negative sum below 131072 "
        "positions, far under the bound there.",
    ),
    Misreading(
        "A base that keeps perplexity low at a length meets the paper's condition there",
        _good_perplexity,
        why="The base koboldcpp's new rule gave a q4-quantised Llama 2 13B at 8192 had the "
        "lower perplexity of two, yet the sum is negative below 8192 with it. Men et al.'s "
        "abstract warns of a superficial long-context ability; that perplexity does not show "
        "it is what secondary accounts of the paper say.",
    ),
]
