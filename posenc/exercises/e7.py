"""E7, Llama 3's bands: ``solve(head_dim, base, factor, original_max_position_embeddings,
low_freq_factor, high_freq_factor)`` returns the new speed of every pair, shape (d/2,).

Llama 3's scaling (Meta's reference code, ``apply_scaling``; Hugging Face's "llama3"):
pair ``i`` of ``d = head_dim`` turns at ``w_i = b**(-2i/d)``, with wavelength ``lambda_i
= 2 pi / w_i`` positions. A pair whose wavelength is below ``L0 / high_freq_factor``
keeps its speed, one above ``L0 / low_freq_factor`` is divided by ``factor``, and one
between is blended: ``w ((1 - g) / s + g)`` with ``g = (L0 / lambda - low) / (high -
low)``. The right answer is ``posenc.rope.inv_freq("llama3", ...)``; the classic
mistakes are written out below.
"""

from __future__ import annotations

import math

import numpy as np

from posenc.exercises._base import Exercise, Mistake, Smaller
from posenc.rope import inv_freq

#: Llama 3.1's band factors: the edges are L0 / 4 and L0.
BANDS = (1.0, 4.0)


def expected(
    head_dim, base, factor, original_max_position_embeddings, low_freq_factor, high_freq_factor
):
    speeds, _ = inv_freq(
        "llama3",
        head_dim,
        base=base,
        factor=factor,
        original_max_position_embeddings=original_max_position_embeddings,
        low_freq_factor=low_freq_factor,
        high_freq_factor=high_freq_factor,
    )
    return speeds  # (d/2,)


def llama3(
    head_dim,
    base,
    factor,
    original_max_position_embeddings,
    low_freq_factor,
    high_freq_factor,
    *,
    fixed_factor=None,
    turn=2 * math.pi,
    stretched=False,
    blend="right",
    compare="wavelength",
):
    """Llama 3's speeds in float64, with switches that make the classic mistakes.

    fixed_factor: a factor written into the code instead of the argument. turn: the
    radians in one turn (2 pi, right; 1 takes 1/w for the wavelength). stretched: the
    band edges from ``factor * L0`` instead of ``L0``. blend: 'right' or 'reversed' (the
    weights of the two speeds swapped). compare: 'wavelength' (right), 'frequency' (the
    speed compared with the wavelength edges) or 'swapped' (the edges turned into
    speeds, the comparisons left as they were for wavelengths).
    """
    d = head_dim
    s = float(factor if fixed_factor is None else fixed_factor)
    length = original_max_position_embeddings * (factor if stretched else 1)
    low, high = float(low_freq_factor), float(high_freq_factor)
    w = float(base) ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # (d/2,)
    wave = turn / w  # (d/2,)
    g = (length / wave - low) / (high - low)  # (d/2,): 1 at L0/high, 0 at L0/low
    mixed = (1 - g) * w + g * w / s if blend == "reversed" else (1 - g) * w / s + g * w
    if compare == "frequency":  # w < L0 / high for every pair: all are kept
        return np.where(w < length / high, w, np.where(w > length / low, w / s, mixed))
    if compare == "swapped":  # w < 2 pi high / L0 keeps; the blend band is then empty
        return np.where(w < turn * high / length, w, w / s)
    return np.where(wave < length / high, w, np.where(wave > length / low, w / s, mixed))


def in_float32(*args):
    """The right answer, as a float32 implementation (PyTorch's default) stores it."""
    return expected(*args).astype(np.float32).astype(np.float64)


MISTAKES = (
    Mistake(
        "factor fixed at 8",
        "Your answer is right for a factor of 8 only: 8 is written into your code. "
        "Llama 3.1 uses 8, but Llama 3.2 1B and 3B use 32, and code that kept 8 was a "
        "reported bug (llama-models#166, #241). Take the factor from the third argument.",
        lambda *args: llama3(*args, fixed_factor=8.0),
    ),
    Mistake(
        "speed against wavelengths",
        "Every one of your pairs keeps its speed: you compared the speed `w` with the "
        "band edges `L0 / high_freq_factor` and `L0 / low_freq_factor`, which are "
        "wavelengths, in positions. A speed is below 1, so it always looks short. "
        "Compare the wavelength `2 * pi / w` with them.",
        lambda *args: llama3(*args, compare="frequency"),
    ),
    Mistake(
        "bands swapped",
        "Your fast pairs are divided by the factor and your slow pairs keep their speed: "
        "the bands are the wrong way round. You turned the edges into speeds but kept "
        "the comparisons of wavelengths; a short wavelength is a high speed. Keep a pair "
        "whose wavelength `2 * pi / w` is below `L0 / high_freq_factor`, divide one "
        "whose wavelength is above `L0 / low_freq_factor`.",
        lambda *args: llama3(*args, compare="swapped"),
    ),
    Mistake(
        "blend reversed",
        "Your pairs outside the blend band are right, but inside it the two weights are "
        "swapped. With `g = (L0 / wavelength - low_freq_factor) / (high_freq_factor - "
        "low_freq_factor)`, g is 1 at the fast edge, where the pair keeps its speed, and "
        "0 at the slow edge, where it is divided: `(1 - g) * w / factor + g * w`.",
        lambda *args: llama3(*args, blend="reversed"),
    ),
    Mistake(
        "stretched length",
        "Your band edges come from the stretched length `factor * L0`. They come from "
        "the training length `L0`, original_max_position_embeddings (8192 for Llama "
        "3.1), not from the length the model is stretched to (its "
        "max_position_embeddings).",
        lambda *args: llama3(*args, stretched=True),
    ),
    Mistake(
        "wavelength without 2 pi",
        "Your wavelengths are `1 / w`. A pair turns `w` radians per position, so it needs "
        "`2 * pi / w` positions for one turn: that is the wavelength the band edges are "
        "compared with, and the one in `g = (L0 / wavelength - low) / (high - low)`.",
        lambda *args: llama3(*args, turn=1.0),
    ),
    Mistake(
        "float32",
        "Your speeds agree with the right ones to the precision of float32 (a few times "
        "1e-8), but not to 1e-9. Some step runs in float32 (np.float32, or PyTorch's "
        "default dtype, as Hugging Face computes these speeds). Compute in float64.",
        in_float32,
        tolerance=1e-6,  # a float32 power and blend round a few times over
    ),
)


def draw(rng):
    """Unseen cases: Llama 3.1 and 3.2, other heads, bases and lengths, other bands."""

    def one(bands):
        return (
            int(rng.choice([64, 96, 128, 256])),
            float(rng.choice([10000.0, 500000.0, 1000000.0])),
            float(rng.choice([4.0, 8.0, 16.0, 32.0])),
            int(rng.choice([2048, 4096, 8192, 16384])),
            *bands,
        )

    other = [(1.0, 2.0), (2.0, 8.0), (1.0, 8.0), (0.5, 4.0)]
    return [
        (128, 500000.0, 8.0, 8192, *BANDS),  # Llama 3.1
        one(BANDS),
        one(BANDS),
        one(other[int(rng.integers(len(other)))]),
        one(other[int(rng.integers(len(other)))]),
    ]


def describe(head_dim, base, factor, original_max_position_embeddings, low, high):
    return (
        f"solve({head_dim}, {base!r}, {factor!r}, {original_max_position_embeddings}, "
        f"{low!r}, {high!r})"
    )


def where(args, index):
    (i,) = index
    wave = 2 * math.pi * float(args[1]) ** (2 * i / args[0])
    return f"at index {i} (pair {i}, wavelength {wave:.6g})"


def fallback(head_dim, base, factor, original_max_position_embeddings, low, high):
    length = original_max_position_embeddings
    return (
        f"Print the wavelength `2 * pi / w` of each pair and its band. Here pairs with a "
        f"wavelength below {length / high:g} keep their speed, those above {length / low:g} "
        f"are divided by {factor!r}, and those between get "
        f"`w * ((1 - g) / {factor!r} + g)` with `g = ({length} / wavelength - {low!r}) / "
        f"({high!r} - {low!r})`."
    )


TASK = """\
Compute the speeds of a rotary head under Llama 3's scaling, as Meta's reference
code and Hugging Face compute them.

Write a file with a function

    def solve(head_dim, base, factor, original_max_position_embeddings, low_freq_factor, high_freq_factor):

head_dim     the rotated width d of a head, an even int; d / 2 pairs
base         rope_theta b, a float; 500000.0 in Llama 3
factor       the stretch s, a float; 8.0 in Llama 3.1, 32.0 in Llama 3.2 1B
original_max_position_embeddings   the training length L0, an int; 8192
low_freq_factor, high_freq_factor  floats, low < high; 1.0 and 4.0

It returns d/2 floats (float64), the new speed of pair i = 0 .. d/2 - 1: a NumPy
array, a list or a tuple.

    w_i = b ** (-2i / d),  wavelength lambda_i = 2 * pi / w_i
    lambda_i < L0 / high_freq_factor:   w_i, unchanged
    lambda_i > L0 / low_freq_factor:    w_i / s
    otherwise, with g = (L0 / lambda_i - low_freq_factor)
                        / (high_freq_factor - low_freq_factor):
                                        w_i * ((1 - g) / s + g)

Worked examples (6 significant digits):

    solve(16, 500000.0, 8.0, 8192, 1.0, 4.0)
        -> [1, 0.193923, 0.037606, 0.00729266, 0.000524846, 3.4281e-05,
            6.64787e-06, 1.28917e-06]
    solve(128, 500000.0, 8.0, 8192, 1.0, 4.0): pairs 0 to 28 unchanged,
        29 to 34 blended, 35 to 63 divided by 8
    solve(64, 500000.0, 32.0, 8192, 1.0, 4.0): Llama 3.2 1B

A solve(head_dim, base, factor, original_max_position_embeddings), with 1.0 and
4.0 built in, is checked too: on the cases with those band factors only, and the
report says how many others it did not run."""  # noqa: E501 (the def line, unbroken)


E7 = Exercise(
    key="E7",
    title="The Llama 3 bands",
    page="exercises/e7-llama3-bands.md",
    params=(
        "head_dim",
        "base",
        "factor",
        "original_max_position_embeddings",
        "low_freq_factor",
        "high_freq_factor",
    ),
    returns="head_dim / 2 floats: a NumPy array, a list or a tuple",
    task=TASK,
    worked=(
        (16, 500000.0, 8.0, 8192, *BANDS),
        (128, 500000.0, 8.0, 8192, *BANDS),
        (64, 500000.0, 32.0, 8192, *BANDS),
    ),
    draw=draw,
    expected=expected,
    shape=lambda head_dim, *rest: (head_dim // 2,),
    describe=describe,
    where=where,
    mistakes=MISTAKES,
    fallback=fallback,
    smaller=Smaller(
        arity=4,
        keeps=lambda *args: tuple(args[4:]) == BANDS,
        kept="with low_freq_factor 1.0 and high_freq_factor 4.0",
        others="with other band factors",
        opt_in="Add the arguments low_freq_factor and high_freq_factor to be judged on "
        "them too: `def solve(head_dim, base, factor, original_max_position_embeddings, "
        "low_freq_factor=1.0, high_freq_factor=4.0):`.",
    ),
)
