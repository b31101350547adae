"""Proposition 22 (base and wavelength: which pairs turn within the training length).

Pair i of a rotary head of width d with base b > 1 turns at theta_i = b^(-2i/d)
radians per position, so it comes back to where it started once every
lambda_i = 2 pi b^(2i/d) positions. For a training length L0 > 0,

    lambda_i < L0  if and only if  i < c,   c = (d/2) ln(L0 / (2 pi)) / ln b,

and lambda_i = L0 never holds for a rational b and L0 (pi is transcendental), so
the number of pairs that complete a turn within L0 is min(d/2, ceil(c)) for
L0 > 2 pi. For d = 128 this is 46 pairs for Llama 2 (b = 10^4, L0 = 4096), 35 for
Llama 3 (b = 5 x 10^5, L0 = 8192) and 37 for Code Llama (b = 10^6, L0 = 16384),
decided in exact rational arithmetic from an enclosure of pi. Pair 0 has
wavelength 2 pi for every base: a larger base stretches pair i by (b'/b)^(2i/d),
not every pair by one factor.

Partial rotary: only the first rotary_dim = int(head_dim * partial_rotary_factor)
coordinates of a head rotate, and their speeds are b^(-2i/rotary_dim), the
ladder of a head of width rotary_dim; the exponent is not over head_dim.

Uses: 5, 12.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import rope
from posenc.encoding import frequencies, wavelengths
from posenc.figures import wavelength as figure
from proofs import kit
from proofs.exact import PI_HIGH, PI_LOW, cell, enclose_pi, inside_cell
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 22
TITLE = "Base and wavelength: which pairs turn within the training length; partial rotary"
USES = (5, 12)

# The numbers this proposition takes from its sources. Bases: RoFormer and
# Llama 2 keep 10^4; Llama 3 uses 5 x 10^5 (arXiv 2407.21783); Code Llama 10^6
# (arXiv 2308.12950). Head width 128 (hidden 4096 over 32 heads in all three).
# Training lengths: 4096 for Llama 2, 8192 for Llama 3's main pre-training (before
# its long-context stage), 16384 for Code Llama's long-context fine-tuning. The
# partial-rotary models, from their Hugging Face config.json files: GPT-NeoX-20B
# (hidden 6144, 64 heads, rotary_pct 0.25), GPT-J-6B (n_embd 4096, 16 heads,
# rotary_dim 64), Phi-2 (hidden 2560, 32 heads, partial_rotary_factor 0.4), all
# with base 10^4 and 2048 positions. The page's question doubles Llama 2's length.
# The inputs that quote a config.json kept in data/configs/ (Llama 2, Llama 3.1, Code
# Llama, GPT-NeoX-20B) are checked against that file in step 4; GPT-J's and Phi-2's
# files are not kept, so their numbers rest on the sources named above.
INPUTS = {
    "base_llama2": 10000,
    "base_llama3": 500000,
    "base_code_llama": 1000000,
    "head_dim": 128,
    "l0_llama2": 4096,
    "l0_llama3": 8192,
    "l0_code_llama": 16384,
    "neox_hidden": 6144,
    "neox_heads": 64,
    "neox_rotary_pct": Fraction(1, 4),
    "gptj_hidden": 4096,
    "gptj_heads": 16,
    "gptj_rotary_dim": 64,
    "phi2_hidden": 2560,
    "phi2_heads": 32,
    "phi2_factor": Fraction(2, 5),
    "l0_partial": 2048,
    "base_partial": 10000,
    "question_l0": 8192,
}

#: The full-rotary models: key -> (name, base, head_dim, L0, pairs that turn within L0).
#: The counts are ceil(c) with c = 64 ln(L0 / 2 pi) / ln b: 45.03, 34.98 and 36.44.
FULL = {
    "llama2": ("Llama 2", INPUTS["base_llama2"], INPUTS["head_dim"], INPUTS["l0_llama2"], 46),
    "llama3": ("Llama 3", INPUTS["base_llama3"], INPUTS["head_dim"], INPUTS["l0_llama3"], 35),
    "code_llama": (
        "Code Llama",
        INPUTS["base_code_llama"],
        INPUTS["head_dim"],
        INPUTS["l0_code_llama"],
        37,
    ),
}

#: The partial-rotary models: key -> (name, hidden, heads, partial_rotary_factor, L0,
#: rotated pairs that turn within L0), all with base INPUTS["base_partial"]. GPT-J's
#: config gives rotary_dim = 64 of a 256-wide head; as a factor that is 64/256 = 1/4.
#: Counts: c = (r/2) ln(L0 / 2 pi) / ln 10^4 = 7.54, 20.11 and 10.05 for r = 24, 64, 32.
PARTIAL = {
    "neox": (
        "GPT-NeoX-20B",
        INPUTS["neox_hidden"],
        INPUTS["neox_heads"],
        INPUTS["neox_rotary_pct"],
        INPUTS["l0_partial"],
        8,
    ),
    "gptj": (
        "GPT-J-6B",
        INPUTS["gptj_hidden"],
        INPUTS["gptj_heads"],
        Fraction(INPUTS["gptj_rotary_dim"], INPUTS["gptj_hidden"] // INPUTS["gptj_heads"]),
        INPUTS["l0_partial"],
        21,
    ),
    "phi2": (
        "Phi-2",
        INPUTS["phi2_hidden"],
        INPUTS["phi2_heads"],
        INPUTS["phi2_factor"],
        INPUTS["l0_partial"],
        11,
    ),
}

#: The rotary fields of published config.json files, kept in the repository.
CONFIG_DIR = Path(kit.__file__).resolve().parent.parent / "data/configs/"

#: What each kept config.json says, against the input that quotes it: file ->
#: ((field, input value), ...). A field "a / b" is the exact quotient of two fields,
#: "a.b" a field of the block a.
QUOTED = {
    "llama-2-7b": (
        ("rope_theta", INPUTS["base_llama2"]),
        ("max_position_embeddings", INPUTS["l0_llama2"]),
        ("hidden_size / num_attention_heads", INPUTS["head_dim"]),
    ),
    "llama-3.1-8b": (
        ("rope_theta", INPUTS["base_llama3"]),
        ("rope_scaling.original_max_position_embeddings", INPUTS["l0_llama3"]),
        ("hidden_size / num_attention_heads", INPUTS["head_dim"]),
    ),
    "code-llama-7b": (
        ("rope_theta", INPUTS["base_code_llama"]),
        ("max_position_embeddings", INPUTS["l0_code_llama"]),
        ("hidden_size / num_attention_heads", INPUTS["head_dim"]),
    ),
    "gpt-neox-20b": (
        ("hidden_size", INPUTS["neox_hidden"]),
        ("num_attention_heads", INPUTS["neox_heads"]),
        ("rotary_pct", INPUTS["neox_rotary_pct"]),
        ("rotary_emb_base", INPUTS["base_partial"]),
        ("max_position_embeddings", INPUTS["l0_partial"]),
    ),
}

#: How far from a whole number the 50-digit c must lie for its ceiling to be read off.
MARGIN = Fraction(1, 100)

# Symbols, declared once. The base is b = 1 + s > 1 where the sign matters; widths,
# lengths and bases are positive; a pair index is a non-negative integer.
b, b2, d, L = sp.symbols("b b2 d L", positive=True)
s = sp.Symbol("s", positive=True)
i = sp.Symbol("i", integer=True, nonnegative=True)
m = sp.Symbol("m", real=True)

speed = b ** (-2 * i / d)  # theta_i (Propositions 5 and 12)
wavelength = 2 * sp.pi * b ** (2 * i / d)  # lambda_i
threshold = d / 2 * sp.log(L / (2 * sp.pi)) / sp.log(b)  # c(b, L, d)


def positive(expr: sp.Expr) -> sp.Expr:
    """sign(expr) - 1, unevaluated: it reduces to 0 when SymPy decides ``expr > 0``."""
    return sp.sign(expr, evaluate=False) - 1


# -- exact decisions -------------------------------------------------------------------


def turns_within(pair: int, width: int, base: int, length: int) -> bool | None:
    """Is 2 pi base^(2 pair / width) < length? Decided in exact rational arithmetic.

    With 2 pair / width = p/q in lowest terms, both sides are positive, and x -> x^q
    is increasing, so the question is whether (2 pi)^q base^p < length^q. With
    PI_LOW < pi < PI_HIGH: if (2 PI_HIGH)^q base^p < length^q the answer is yes; if
    (2 PI_LOW)^q base^p > length^q it is no; otherwise the enclosure is too wide to
    tell and the answer is None (a check counts that as a failure).
    """
    exponent = Fraction(2 * pair, width)
    p, q = exponent.numerator, exponent.denominator
    target = Fraction(length) ** q
    if (2 * PI_HIGH) ** q * base**p < target:
        return True
    if (2 * PI_LOW) ** q * base**p > target:
        return False
    return None


def root_enclosure(base: int, p: int, q: int, digits: int = 30) -> tuple[Fraction, Fraction]:
    """Rationals lo <= base^(p/q) < hi, 10^-digits apart, from the integer q-th root.

    r = floor((base^p 10^(digits q))^(1/q)) satisfies r^q <= base^p 10^(digits q) <
    (r + 1)^q, so r / 10^digits <= base^(p/q) < (r + 1) / 10^digits.
    """
    scale = 10**digits
    root, _ = sp.integer_nthroot(base**p * scale**q, q)
    return Fraction(int(root), scale), Fraction(int(root) + 1, scale)


def wavelength_enclosure(pair: int, width: int, base: int) -> tuple[Fraction, Fraction]:
    """Rationals enclosing 2 pi base^(2 pair / width), from PI_LOW, PI_HIGH and a root."""
    power = Fraction(2 * pair, width)
    low, high = root_enclosure(base, power.numerator, power.denominator)
    return 2 * PI_LOW * low, 2 * PI_HIGH * high


def threshold_50(width: int, base: int, length: int) -> mpmath.mpf:
    """c = (width/2) ln(length / 2 pi) / ln base, at 50 digits."""
    with mpmath.workdps(50):
        return (
            mpmath.mpf(width)
            / 2
            * mpmath.log(mpmath.mpf(length) / (2 * mpmath.pi))
            / (mpmath.log(base))
        )


def shown(rec: Recorder, name: str, what: str, pair: int, width: int, base: int, sig: int):
    """State the wavelength of one pair as a quantity, its digits fixed by an enclosure.

    The quantity is the lower end of the exact enclosure of 2 pi base^(2 pair / width):
    a rational the check reads, and every number of the enclosure, the true wavelength
    among them, shows as the same digits. Returns that rational.
    """
    show = Show(sig=sig)
    low, high = wavelength_enclosure(pair, width, base)
    where = cell(low, show)
    rec.quantity(
        name,
        low,
        show=show,
        by=inside_cell(
            rec,
            f"{what}: pair {pair}, 2 pi {base}^({2 * pair}/{width}), shows as {where.text}",
            (low, high),
            where,
            scope=f"d = {width}, b = {base}, pair {pair}: pi enclosed 1e-20 apart, "
            f"b^(2i/d) by an integer root 1e-30 apart (exact)",
        ),
    )
    return low


def config_field(config: dict, field: str) -> Fraction:
    """A number of a config.json, exactly as written (0.25 is 1/4, 10000.0 is 10000).

    ``field`` names a top-level key, a key of a block ("rope_scaling.factor"), or the
    quotient of two keys ("hidden_size / num_attention_heads").
    """
    if " / " in field:
        top, bottom = field.split(" / ")
        return config_field(config, top) / config_field(config, bottom)
    value = config
    for key in field.split("."):
        value = value[key]
    return Fraction(str(value))


def count_pairs(rec: Recorder, key: str, name: str, width: int, base: int, length: int, want):
    """Decide every pair of one ladder exactly, and cross-check the count at 50 digits."""
    decided = [turns_within(pair, width, base, length) for pair in range(width // 2)]
    rec.exact(
        f"{name} (d = {width}, b = {base}, L0 = {length}): the pairs with lambda_i < L0 are "
        f"exactly i = 0..{want - 1} (count of pairs decided otherwise or undecided)",
        sum(int(got is not (pair < want)) for pair, got in enumerate(decided)),
        0,
        scope=f"every pair i = 0..{width // 2 - 1}; (2 pi)^q b^p against L0^q, "
        "pi enclosed by rationals (exact)",
    )
    # So c lies between want - 1 (pair want - 1 turns: want - 1 < c) and want. The
    # slowest pair that turns is read off the decisions.
    last = max((pair for pair, got in enumerate(decided) if got is True), default=-1)
    rec.exact(
        f"{name}: the slowest pair that turns within L0 is pair {want - 1}",
        last,
        want - 1,
        scope=f"d = {width}, b = {base}, L0 = {length}; the largest i decided lambda_i < L0",
        quantity=f"last_pair_{key}",
    )
    count = sum(int(got is True) for got in decided)
    rec.exact(
        f"{name}: {want} of the {width // 2} pairs turn within L0",
        count,
        want,
        scope=f"d = {width}, b = {base}, L0 = {length}; exact decisions",
        quantity=f"turning_{key}",
    )
    rec.exact(
        f"{name}: {width // 2 - want} pairs never complete a turn within L0",
        sum(int(got is False) for got in decided),
        width // 2 - want,
        scope=f"d = {width}, b = {base}, L0 = {length}; exact decisions",
        quantity=f"never_{key}",
    )
    # A window of L0 positions has offsets up to L0 - 1 only. Reading "turns within
    # L0" as lambda_i <= L0 - 1 gives the same pairs here: the slowest one that
    # turns is shorter than L0 - 1 (and lambda_i = L0 - 1 is impossible, as for L0).
    rec.exact(
        f"{name}: pair {want - 1} turns within L0 - 1 positions too (1 if so)",
        int(turns_within(want - 1, width, base, length - 1) is True),
        1,
        scope=f"d = {width}, b = {base}, L0 - 1 = {length - 1}; exact decision",
    )
    c = threshold_50(width, base, length)
    rec.band(
        f"{name}: c = (d/2) ln(L0/2 pi)/ln b lies in ({want - 1}, {want}), at least 1/100 "
        "from both ends, so ceil(c) = the count (the distance to the nearer end)",
        float(min(c - (want - 1), want - c)),
        low=MARGIN,
        high=Fraction(1, 2),
        samples=1,
        scope=f"mpmath at 50 digits, then float64 (error far below the margin 1/100); "
        f"c = {mpmath.nstr(c, 8)}",
    )
    return last, count


def relative_errors(got: np.ndarray, exact: list) -> list[float]:
    """|got - exact| / exact, each exact value an mpmath number at 50 digits."""
    with mpmath.workdps(50):
        return [float(abs(mpmath.mpf(float(g)) - e) / e) for g, e in zip(got, exact, strict=True)]


def steps_from_nearest(got: np.ndarray, exact: list) -> list[int]:
    """How many float64 steps each positive ``got`` lies from the float64 nearest ``exact``.

    mpmath rounds its 50-digit ``exact`` to the nearest float64; no value here is
    halfway between two float64 (each is irrational or 1), so 0 steps means within half
    an ulp, the only float64 that is. Positive float64 are ordered as their bit patterns,
    so the step count is the difference of those integers.
    """
    with mpmath.workdps(50):
        return [
            abs(int(np.float64(g).view(np.int64)) - int(np.float64(float(e)).view(np.int64)))
            for g, e in zip(got, exact, strict=True)
        ]


def ladder_50(width: int, base: int, sign: int = -1) -> list:
    """base^(sign 2i/width), i = 0 .. width/2 - 1, at 50 digits."""
    with mpmath.workdps(50):
        return [mpmath.power(base, mpmath.mpf(sign * 2 * k) / width) for k in range(width // 2)]


def checks(rec: Recorder) -> None:
    # Step 1. The wavelength. Pair i turns by m theta_i at position m; moved on by
    # lambda_i = 2 pi b^(2i/d) positions it has turned by exactly 2 pi more, so its
    # cosine and sine (and the whole 2 x 2 rotation) repeat.
    rec.identity(
        "theta_i lambda_i = 2 pi: cos and sin of (m + lambda_i) theta_i equal those of m theta_i",
        sp.Matrix(
            [
                sp.cos((m + wavelength) * speed) - sp.cos(m * speed),
                sp.sin((m + wavelength) * speed) - sp.sin(m * speed),
            ]
        ),
        scope="every real position m, base b > 0, width d > 0, pair i >= 0",
    )

    # Step 2. Which pairs turn within L0. ln lambda_i - ln L0 = (2 ln b / d)(i - c):
    # for b > 1 the factor is positive, so lambda_i < L0 exactly when i < c.
    # The sign check below reads the same factor the identity proves.
    factor = 2 * sp.log(b) / d
    rec.identity(
        "ln lambda_i - ln L0 = (2 ln b / d) (i - c), c = (d/2) ln(L0 / 2 pi) / ln b",
        sp.log(wavelength) - sp.log(L) - factor * (i - threshold),
        scope="every b > 0 with b != 1, d > 0, L0 > 0, pair i >= 0",
    )
    rec.identity(
        "for b > 1 the factor 2 ln b / d is positive",
        positive(factor.subs(b, 1 + s)),
        scope="b = 1 + s with s > 0, d > 0 (sign decided by SymPy's assumptions)",
    )
    # Doubling L0 raises c by (d/2) ln 2 / ln b, whatever L0 is.
    rec.identity(
        "c(2 L0) - c(L0) = (d/2) ln 2 / ln b",
        threshold.subs(L, 2 * L) - threshold - d / 2 * sp.log(2) / sp.log(b),
        scope="every b > 0 with b != 1, d > 0, L0 > 0",
    )

    # Step 3. Changing the base. lambda_i(b2) / lambda_i(b) = (b2 / b)^(2i/d): the
    # factor depends on i, and is 1 for pair 0 whatever the bases.
    ratio = wavelength.subs(b, b2) / wavelength
    rec.identity(
        "lambda_i(b2) / lambda_i(b) = (b2 / b)^(2i/d)",
        ratio - (b2 / b) ** (2 * i / d),
        scope="all bases b, b2 > 0, width d > 0, pair i >= 0",
    )
    rec.identity(
        "pair 0: lambda_0 = 2 pi for every base",
        sp.Subs(wavelength, i, 0) - 2 * sp.pi,
        scope="every base b > 0 and width d > 0",
    )

    # Step 4. The models' numbers, and the three models of width 128. The inputs that
    # quote a config.json kept in data/configs/ are compared with the file, field by
    # field, exactly as written there.
    configs = {
        stem: json.loads((CONFIG_DIR / f"{stem}.json").read_text(encoding="utf-8"))
        for stem in QUOTED
    }
    rec.exact(
        f"data/configs/ ({', '.join(f'{stem}.json' for stem in QUOTED)}): every field the "
        "inputs quote is the input (count of fields that differ)",
        sum(
            int(config_field(configs[stem], f) != Fraction(v))
            for stem, fields in QUOTED.items()
            for f, v in fields
        ),
        0,
        scope=f"{sum(len(fields) for fields in QUOTED.values())} fields of "
        f"{len(QUOTED)} kept config.json files, exact rationals",
    )
    # pi is enclosed between two rationals first; every pair's comparison with L0 is
    # then exact.
    enclose_pi(rec)
    ends = {}
    for key, (name, base, width, length, want) in FULL.items():
        ends[key] = count_pairs(rec, key, name, width, base, length, want)

    # The page's wavelengths: pair 0 (2 pi for all three), the last pair d/2 - 1 for
    # each base, and the two pairs on either side of L0, each enclosed exactly. The
    # pairs are the ones the checks above found: the slowest that turns (the page's
    # last_pair) and the next one, the first of those that do not (the page's turning).
    width2, base2 = FULL["llama2"][2], FULL["llama2"][1]
    enclosed = [shown(rec, "first_wavelength", "lambda_0 = 2 pi", 0, width2, base2, 3)]
    drawn = [rope.wavelengths(rope.inv_freq("default", width2, base=float(base2))[0])[0]]
    for key, (name, base, width, _, _) in FULL.items():
        last, count = ends[key]
        top = width // 2 - 1
        enclosed += [
            shown(rec, f"last_wavelength_{key}", f"{name}, the last pair", top, width, base, 3),
            shown(rec, f"inside_{key}", f"{name}, the slowest that turns", last, width, base, 4),
            shown(
                rec, f"outside_{key}", f"{name}, the fastest that does not", count, width, base, 4
            ),
        ]
        # The same pairs of the ladder the figure draws (posenc.rope).
        ladder = rope.wavelengths(rope.inv_freq("default", width, base=float(base))[0])
        drawn += [ladder[width // 2 - 1], ladder[ends[key][0]], ladder[ends[key][1]]]
    rec.close(
        "the figure's ladders (posenc.rope.wavelengths), at the pairs the page names, are the "
        "enclosed wavelengths",
        [float(v) for v in drawn],
        enclosed,
        tol=1e-6,
        scope="pair 0, and for each model its last pair, the slowest that turns and the next "
        "one; float64 against the exact enclosures' lower ends",
    )

    # Step 5. The library computes what is proven. posenc.rope.inv_freq("default",
    # 128, base=b) holds the float64 nearest b^(-2i/128) (half an ulp at most, against
    # mpmath at 50 digits); it agrees bit for bit with posenc.encoding.frequencies;
    # rope.wavelengths (2 pi / w in float64: three roundings) and encoding.wavelengths
    # (correctly rounded) are within their stated errors of 2 pi b^(2i/128).
    steps, same, rope_rel, enc_steps = [], 0, [], []
    for _, base, width, _, _ in FULL.values():
        inv, factor = rope.inv_freq("default", width, base=float(base))  # (64,)
        steps += steps_from_nearest(inv, ladder_50(width, base))
        same += int(np.count_nonzero(inv != frequencies(width, base=float(base))))
        same += int(factor != 1.0)
        with mpmath.workdps(50):
            exact = [2 * mpmath.pi * v for v in ladder_50(width, base, sign=1)]
        rope_rel += relative_errors(rope.wavelengths(inv), exact)
        enc_steps += steps_from_nearest(wavelengths(width, base=float(base)), exact)
    rec.numeric(
        "posenc.rope.inv_freq('default', 128, base=b) is b^(-2i/128) to half an ulp: the "
        "float64 nearest (error in float64 steps from it)",
        steps,
        tol=0,
        scope="b = 10^4, 5 x 10^5, 10^6, every pair; mpmath at 50 digits rounded to the "
        "nearest float64",
    )
    rec.exact(
        "rope.inv_freq('default', 128, base=b) equals encoding.frequencies(128, base=b), "
        "attention factor 1 (count of differences)",
        same,
        0,
        scope="b = 10^4, 5 x 10^5, 10^6; every float64 value compared exactly",
    )
    rec.numeric(
        "posenc.rope.wavelengths of those speeds is 2 pi b^(2i/128) (relative error)",
        rope_rel,
        tol=4 * 2.0**-53,
        scope="b = 10^4, 5 x 10^5, 10^6, every pair; the speed, 2 pi and the quotient are "
        "each rounded once (3 x 2^-53 to first order), tolerance 4 x 2^-53; mpmath at 50 digits",
    )
    rec.numeric(
        "posenc.encoding.wavelengths(128, base=b) is 2 pi b^(2i/128) to half an ulp: the "
        "float64 nearest (error in float64 steps from it)",
        enc_steps,
        tol=0,
        scope="b = 10^4, 5 x 10^5, 10^6, every pair; mpmath at 50 digits rounded to the "
        "nearest float64",
    )
    # Llama 3.1's "llama3" scaling divides the pairs with wavelength above L0 = 8192
    # by its factor. Those are the pairs that never turn within 8192: 64 - 35 of them.
    _, base3, width3, length3, _ = FULL["llama3"]
    bands = rope.llama3_bands(
        width3, base=float(base3), factor=8.0, original_max_position_embeddings=length3
    )
    rec.exact(
        f"posenc.rope.llama3_bands marks as 'low' exactly the pairs i >= {ends['llama3'][1]} "
        f"that never turn within {length3} (count of pairs marked otherwise)",
        sum(int((bands[k] == "low") != (k >= ends["llama3"][1])) for k in range(width3 // 2)),
        0,
        scope=f"d = {width3}, b = {base3}, factor 8, L0 = {length3}, low_freq_factor 1",
    )

    # Step 6. Partial rotary. rotary_dim = int(head_dim * factor); the rotated pairs
    # have speeds b^(-2i/rotary_dim): the ladder of a head of width rotary_dim.
    base = INPUTS["base_partial"]
    widths, rotated = {}, {}
    for key, (name, hidden, heads, factor, length, want) in PARTIAL.items():
        head_dim = hidden // heads
        rec.exact(
            f"{name}: head_dim = hidden / heads = {head_dim}",
            Fraction(hidden, heads),
            head_dim,
            scope="exact division of the config's numbers",
            quantity=f"head_dim_{key}",
        )
        dim = rope.rotary_dim(head_dim, float(factor))
        rec.exact(
            f"{name}: posenc.rope.rotary_dim = floor(head_dim * factor) = {dim}",
            dim,
            math.floor(head_dim * factor),
            scope=f"head_dim {head_dim}, factor {factor}; the exact product floored",
            quantity=f"rotary_dim_{key}",
        )
        rec.exact(
            f"{name}: {dim // 2} rotated pairs",
            dim // 2,
            math.floor(head_dim * factor) // 2,
            scope="exact",
            quantity=f"pairs_{key}",
        )
        inv, _ = rope.inv_freq(
            "default", head_dim, base=float(base), partial_rotary_factor=float(factor)
        )
        rec.numeric(
            f"{name}: rope.inv_freq('default', {head_dim}, partial_rotary_factor={factor}) "
            f"is {base}^(-2i/{dim}) to half an ulp: the float64 nearest (error in float64 "
            "steps from it)",
            steps_from_nearest(inv, ladder_50(dim, base))
            if inv.shape == (dim // 2,)
            else [math.inf],
            tol=0,
            scope=f"i = 0..{dim // 2 - 1}, base {base}; the shape must be ({dim // 2},); "
            "mpmath at 50 digits rounded to the nearest float64",
        )
        rec.exact(
            f"{name}: those speeds are the full ladder of width {dim}, bit for bit "
            "(count of differences from rope.default_inv_freq)",
            int(np.count_nonzero(inv != rope.default_inv_freq(dim, float(base)))),
            0,
            scope=f"head_dim {head_dim}, rotary_dim {dim}, base {base}",
        )
        with mpmath.workdps(50):
            exact = [2 * mpmath.pi * v for v in ladder_50(dim, base, sign=1)]
        rec.numeric(
            f"{name}: rope.wavelengths of the rotated pairs is 2 pi {base}^(2i/{dim})",
            relative_errors(rope.wavelengths(inv), exact),
            tol=4 * 2.0**-53,
            scope=f"i = 0..{dim // 2 - 1}; relative error, tolerance 4 x 2^-53 as in step 5; "
            "mpmath at 50 digits",
        )
        count_pairs(rec, key, name, dim, base, length, want)
        widths[key], rotated[key] = (head_dim, dim), inv
    # GPT-NeoX's slowest rotated pair, the last of the pairs_neox checked above, under
    # the code's reading (exponent over rotary_dim) and under the misreading (the same
    # pair of a ladder over head_dim), each enclosed exactly.
    head_neox, dim_neox = widths["neox"]
    slowest = dim_neox // 2 - 1
    rotated_end = shown(
        rec, "neox_slowest", "GPT-NeoX, the slowest rotated pair", slowest, dim_neox, base, 3
    )
    misread_end = shown(
        rec, "neox_misread", "GPT-NeoX misread over head_dim", slowest, head_neox, base, 3
    )
    # The figure draws both ladders from posenc: the rotated pairs' wavelengths, and the
    # grey crosses, the same pairs with the exponent over head_dim. Their largest values
    # are the two the page names.
    crosses = rope.wavelengths(rope.default_inv_freq(head_neox, float(base))[: dim_neox // 2])
    rec.close(
        "GPT-NeoX: the figure's rotated ladder and its grey crosses (posenc) end at the "
        "enclosed wavelengths of the slowest rotated pair",
        [float(rope.wavelengths(rotated["neox"]).max()), float(crosses.max())],
        [rotated_end, misread_end],
        tol=1e-9,
        scope=f"head_dim {head_neox}, rotary_dim {dim_neox}, base {base}: the largest of the "
        f"{dim_neox // 2} wavelengths of each ladder against the exact enclosures' lower ends",
    )
    # The first misreading's witness is that pair under the two readings.
    _, _, pair_wit, *readings = _neox_readings()
    rec.exact(
        "the first misreading's witness is at GPT-NeoX's slowest rotated pair",
        pair_wit,
        slowest,
        scope=f"head_dim {head_neox}, rotary_dim {dim_neox}: pair rotary_dim / 2 - 1, an integer",
    )
    rec.close(
        "the first misreading's witness: the two wavelengths it compares are the enclosed ones",
        readings,
        [rotated_end, misread_end],
        tol=1e-12,
        scope=f"pair {slowest}, exponent over {dim_neox} and over {head_neox}: SymPy at 50 "
        "digits against the exact enclosures' lower ends (1e-19 wide)",
    )
    _, fig_head, fig_factor, fig_base, fig_length = figure.NEOX
    rec.exact(
        "the figure's GPT-NeoX (posenc.figures.wavelength.NEOX) has the inputs' head_dim, "
        "rotary_pct, base and L0 (count of differences)",
        sum(
            int(drawn != given)
            for drawn, given in (
                (fig_head, head_neox),
                (Fraction(fig_factor), INPUTS["neox_rotary_pct"]),
                (fig_base, base),
                (fig_length, INPUTS["l0_partial"]),
            )
        ),
        0,
        scope="the constants the figure draws GPT-NeoX-20B with",
    )

    # Step 7. The page's question: Llama 2 at twice its length. c rises by
    # 64 ln 2 / ln 10^4 = 4.82 to 49.84, so 50 pairs turn within 8192.
    _, base2, width2, _, _ = FULL["llama2"]
    count_pairs(rec, "question", "Llama 2 at 8192", width2, base2, INPUTS["question_l0"], 50)
    with mpmath.workdps(50):
        step = float(mpmath.mpf(width2) / 2 * mpmath.log(2) / mpmath.log(base2))
    rec.rounds_to(
        f"doubling L0 raises c by {width2 // 2} ln 2 / ln {base2}, which shows as 4.8",
        step,
        "4.8",
        show=Show(sig=2),
        scope=f"d = {width2}, b = {base2}; mpmath at 50 digits",
        quantity="doubling_step",
    )
    # From Llama 2's base to Code Llama's the last pair, i = d/2 - 1, stretches by
    # (b'/b)^((d-2)/d) = 100^(63/64), enclosed by an integer root.
    ratio = Fraction(FULL["code_llama"][1], base2)
    power = Fraction(width2 - 2, width2)
    low, high = root_enclosure(int(ratio), power.numerator, power.denominator)
    stretch = Show(sig=3)
    where = cell(low, stretch)
    rec.quantity(
        "last_stretch",
        low,
        show=stretch,
        by=inside_cell(
            rec,
            f"from b = {base2} to {FULL['code_llama'][1]} the last pair stretches by "
            f"{ratio}^({power}), which shows as {where.text}",
            (low, high),
            where,
            scope=f"integer {power.denominator}th root, 1e-30 apart (exact)",
        ),
    )
    # The stretch, and the second misreading's two stretches, against the ratio of
    # the two ladders at the last pair and at pair 0 (mpmath at 50 digits).
    with mpmath.workdps(50):
        ladders = [ladder_50(width2, base, sign=1) for base in (base2, FULL["code_llama"][1])]
        ratios = [ladders[1][k] / ladders[0][k] for k in (-1, -1, 0)]
    rec.close(
        "the last pair's stretch (enclosed) and the second misreading's stretches of pair "
        f"{width2 // 2 - 1} and pair 0 are the ratios of the two ladders",
        [low, *_stretches()],
        ratios,
        tol=1e-25,
        scope=f"d = {width2}, b = {base2} and {FULL['code_llama'][1]}; "
        "b2^(2i/d) / b^(2i/d) at 50 digits (mpmath)",
    )


# -- misreadings -------------------------------------------------------------------


def _neox_readings() -> tuple[int, int, int, sp.Expr, sp.Expr]:
    """The first misreading's witness: GPT-NeoX-20B's slowest rotated pair.

    Returns (head_dim, rotary_dim, pair, its wavelength with the exponent over
    rotary_dim, and over head_dim); step 6 checks the pair and both wavelengths
    against posenc's widths and the exact enclosures.
    """
    head = INPUTS["neox_hidden"] // INPUTS["neox_heads"]
    dim = rope.rotary_dim(head, float(INPUTS["neox_rotary_pct"]))
    pair, base = dim // 2 - 1, sp.Integer(INPUTS["base_partial"])
    return (
        head,
        dim,
        pair,
        2 * sp.pi * base ** sp.Rational(2 * pair, dim),
        2 * sp.pi * base ** sp.Rational(2 * pair, head),
    )


def _stretches() -> tuple[sp.Expr, sp.Expr]:
    """The second misreading's witness: (b'/b)^(2i/d) from b = 10^4 to 10^6 at d = 128,
    for pair 63 and for pair 0. Step 7 checks both against mpmath's ladders."""
    factor = sp.Integer(100)
    return factor ** sp.Rational(2 * 63, 128), factor ** sp.Rational(0, 128)


def _exponent_over_head_dim(wit: Witness) -> None:
    # "The rotated pairs turn at b^(-2i/head_dim)." GPT-NeoX-20B: head_dim 96,
    # rotary_dim 24. Its slowest rotated pair, i = 11, has wavelength
    # 2 pi (10^4)^(22/24), about 29,000; the misreading gives 2 pi (10^4)^(22/96),
    # about 52. posenc's speed agrees with the first (checked in step 6).
    head, dim, pair, rotated, misread = _neox_readings()
    wit.differs(
        rotated,
        misread,
        at=f"GPT-NeoX-20B, base {INPUTS['base_partial']}, pair {pair}: lambda with exponent "
        f"over rotary_dim {dim} against over head_dim {head}",
        margin=10000,
        by="ten thousand positions",
    )


def _every_pair_same_factor(wit: Witness) -> None:
    # "A larger base slows every pair by the same factor." From 10^4 to 10^6 at
    # d = 128, pair 0 keeps its wavelength 2 pi (factor 1), pair 63 stretches by
    # 100^(63/64), about 93.
    wit.differs(
        *_stretches(),
        at="d = 128, b = 10^4 -> 10^6: the stretch of pair 63 against that of pair 0",
        margin=10,
        by="a factor of ten",
    )


def _every_pair_turns(wit: Witness) -> None:
    # "In training every pair completes at least one turn." Llama 3's last pair has
    # wavelength 2 pi (5 x 10^5)^(63/64), far above its 8192 positions; the exact
    # decision of step 4 says so without rounding.
    wit.exact(
        turns_within(63, 128, 500000, 8192) is False,
        at="Llama 3, d = 128, b = 5 x 10^5, L0 = 8192: (2 pi)^64 b^63 > 8192^64 for pair 63, "
        "with pi enclosed by rationals",
    )


MISREADINGS = [
    Misreading(
        "Partial rotary keeps the exponent over head_dim: the rotated pairs turn at "
        "b^(-2i/head_dim)",
        _exponent_over_head_dim,
        why="The rotated part is a rotary head of width rotary_dim: its speeds are "
        "b^(-2i/rotary_dim), so its slowest pair is almost as slow as a full head's.",
    ),
    Misreading(
        "A larger base makes every pair slower by the same factor",
        _every_pair_same_factor,
        why="lambda_i(b2) / lambda_i(b) = (b2/b)^(2i/d): pair 0 keeps 2 pi, and the "
        "stretch grows with i up to nearly b2/b for the last pair.",
    ),
    Misreading(
        "During training every rotary pair turns at least once",
        _every_pair_turns,
        why="Only the pairs with i < c = (d/2) ln(L0/2 pi)/ln b do; for Llama 3 that is 35 of "
        "64, and the other 29 never come back to their start.",
    ),
]
