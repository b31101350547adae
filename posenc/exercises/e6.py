"""E6, YaRN's speeds: ``solve(head_dim, base, factor, original_max_position_embeddings,
beta_fast, beta_slow)`` returns the new speed of every pair, then the logit scale.

YaRN (Peng et al. 2024), as its reference code and Hugging Face compute it: pair ``i``
of ``d = head_dim`` turns ``r = L0 w_i / (2 pi)`` times in the training length ``L0``,
and ``c(rho) = d ln(L0 / (2 pi rho)) / (2 ln b)`` is the (fractional) pair that turns
``rho`` times. The correction range is ``low = floor(c(beta_fast))`` to ``high =
ceil(c(beta_slow))``, clipped to ``[0, d - 1]``; the ramp ``t_j = clamp((j - low) /
(high - low), 0, 1)`` takes pair ``j`` from its own speed (``t = 0``) to its speed
divided by ``factor`` (``t = 1``). Both caches are multiplied by ``a = 0.1 ln s + 1``,
so the logits gain ``a**2``: that is the last entry of the answer. The right answer is
``posenc.rope.inv_freq("yarn", ...)``; the classic mistakes are written out below.
"""

from __future__ import annotations

import math

import numpy as np

from posenc.exercises._base import Exercise, Mistake, Smaller
from posenc.rope import inv_freq

#: The reference code's rotation counts: the ramp runs from 32 turns in L0 down to one.
BETAS = (32, 1)


def expected(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow):
    speeds, attention = inv_freq(
        "yarn",
        head_dim,
        base=base,
        factor=factor,
        original_max_position_embeddings=original_max_position_embeddings,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
    )
    return np.append(speeds, attention**2)  # (d/2 + 1,)


def _dim(rotations, head_dim, base, length, *, coordinate=False):
    """The pair that turns ``rotations`` times in ``length``; ``coordinate``: no 2 below."""
    two = 1 if coordinate else 2
    return head_dim * math.log(length / (2 * math.pi * rotations)) / (two * math.log(base))


def yarn(
    head_dim,
    base,
    factor,
    original_max_position_embeddings,
    beta_fast,
    beta_slow,
    *,
    rounded=True,
    coordinate=False,
    reversed_ramp=False,
    multiply=False,
    paper=False,
    logits="square",
):
    """YaRN in float64, with switches that make the classic mistakes.

    rounded: floor and ceil the correction range (right). coordinate: the correction
    dimension without the 2 of ``2 ln b``, a coordinate index instead of a pair index.
    reversed_ramp: the fast pairs interpolated and the slow ones kept. multiply: speeds
    multiplied by the factor instead of divided. paper: the paper's ramp, linear in the
    rotation count between beta_slow and beta_fast. logits: 'square' (right) or 'once' (the
    cache factor itself).
    """
    d, s, length = head_dim, float(factor), original_max_position_embeddings
    w = float(base) ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # (d/2,)
    if paper:
        turns = length * w / (2 * math.pi)  # (d/2,): rotations in L0
        keep = np.clip((turns - beta_slow) / (beta_fast - beta_slow), 0.0, 1.0)  # (d/2,)
        ramp = 1.0 - keep
    else:
        low = _dim(beta_fast, d, base, length, coordinate=coordinate)
        high = _dim(beta_slow, d, base, length, coordinate=coordinate)
        if rounded:
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, d - 1)
        if high == low:
            high += 0.001
        ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)  # (d/2,)
    if reversed_ramp:
        ramp = 1.0 - ramp
    stretched = w * s if multiply else w / s  # (d/2,)
    speeds = w * (1.0 - ramp) + stretched * ramp  # (d/2,)
    a = 0.1 * math.log(s) + 1.0 if s > 1 else 1.0
    scale = a * a if logits == "square" else a
    return np.append(speeds, scale)  # (d/2 + 1,)


def in_float32(*args):
    """The right answer, as a float32 implementation (PyTorch's default) stores it."""
    return expected(*args).astype(np.float32).astype(np.float64)


TRUNCATE = (
    "Your correction range is not rounded: the reference code floors `c(beta_fast)` and "
    "ceils `c(beta_slow)` before the ramp, so that the ramp starts and ends on whole "
    "pairs. Hugging Face's `truncate` setting switches that rounding off (gpt-oss sets it "
    "to false); which one a model uses is a reported source of bugs (vLLM#27722, "
    "#28244; transformers#42189). Here it is on: `low = math.floor(...)`, "
    "`high = math.ceil(...)`."
)

MISTAKES = (
    Mistake(
        "temperature once",
        "Your speeds are right, but your last entry is `0.1 ln s + 1` itself. That is the "
        "factor YaRN puts on the cosine and on the sine cache. The query and the key are "
        "each multiplied by it, so a logit gains its square: return "
        "`(0.1 * math.log(factor) + 1) ** 2`.",
        lambda *args: yarn(*args, logits="once"),
    ),
    Mistake(
        "ramp reversed",
        "Your fast pairs are slowed and your slow pairs keep their speed: the ramp runs "
        "the wrong way. A pair below the correction range turns many times in L0 and is "
        "kept as it is (ramp 0); a pair above it turns less than once and is divided by "
        "the factor (ramp 1). New speed: `w * (1 - t) + w / factor * t`.",
        lambda *args: yarn(*args, reversed_ramp=True),
    ),
    Mistake(
        "multiplied by the factor",
        "Your slow pairs turn faster than before. Interpolation divides their speed by "
        "the factor, so that a position `s * L0` turns them as far as `L0` did: "
        "`w / factor`, not `w * factor`.",
        lambda *args: yarn(*args, multiply=True),
    ),
    Mistake("range not rounded", TRUNCATE, lambda *args: yarn(*args, rounded=False)),
    Mistake(
        "coordinate index",
        "Your correction range is twice as far out as it should be. Pair `i` turns at "
        "`b ** (-2 * i / d)`, so the pair that turns `rho` times in L0 is "
        "`d * ln(L0 / (2 * pi * rho)) / (2 * ln(b))`: the 2 in the denominator makes it "
        "a pair index, from 0 to d/2 - 1, not a coordinate index.",
        lambda *args: yarn(*args, coordinate=True),
    ),
    Mistake(
        "the paper's ramp",
        "You blend linearly in the rotation count `r = L0 * w / (2 * pi)`, between "
        "beta_slow and beta_fast turns, as the paper writes it. The reference code, and "
        "Hugging Face and vLLM after it, blend linearly in the pair index between the "
        "rounded correction dimensions. The two agree at the ends and differ inside the "
        "range; this exercise follows the code.",
        lambda *args: yarn(*args, paper=True),
    ),
    Mistake(
        "float32",
        "Your answers agree with the right ones to the precision of float32 (a few times "
        "1e-8), but not to 1e-9. Some step runs in float32 (np.float32, or PyTorch's "
        "default dtype, as Hugging Face computes these speeds). Compute in float64.",
        in_float32,
        tolerance=1e-6,  # a float32 power and ramp round a few times over
    ),
)


def draw(rng):
    """Unseen cases: heads of real models, several stretches, and other rotation counts."""
    heads = [64, 80, 96, 128, 256]

    def one(betas):
        return (
            int(rng.choice(heads)),
            float(rng.choice([10000.0, 500000.0, 1000000.0])),
            float(rng.choice([2.0, 4.0, 8.0, 16.0, 32.0, 40.0])),
            int(rng.choice([2048, 4096, 8192, 32768])),
            *betas,
        )

    other = [(16, 1), (64, 1), (32, 2), (64, 2)]
    return [
        (128, 1000000.0, 4.0, 32768, *BETAS),  # Qwen2.5's head
        (64, 10000.0, 40.0, 4096, *BETAS),  # DeepSeek-V3's rotated part
        one(BETAS),
        one(BETAS),
        one(other[int(rng.integers(len(other)))]),
        one(other[int(rng.integers(len(other)))]),
    ]


def describe(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow):
    return (
        f"solve({head_dim}, {base!r}, {factor!r}, {original_max_position_embeddings}, "
        f"{beta_fast}, {beta_slow})"
    )


def where(args, index):
    (i,) = index
    if i == args[0] // 2:
        return f"at index {i}, the last one (the logit scale)"
    return f"at index {i} (pair {i})"


def fallback(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow):
    args = (beta_fast, head_dim, base, original_max_position_embeddings)
    low = max(math.floor(_dim(*args)), 0)
    high = min(math.ceil(_dim(beta_slow, *args[1:])), head_dim - 1)
    return (
        f"Print your ramp. Here the correction range is from pair {low} (the floor of "
        f"c({beta_fast})) to pair {high} (the ceiling of c({beta_slow})): pairs up to {low} "
        f"keep their speed, pairs from {high} on are divided by {factor!r}, and pair j "
        f"between gets `t = (j - {low}) / ({high} - {low})`. The last entry is "
        "`(0.1 * ln(factor) + 1) ** 2`."
    )


TASK = """\
Compute the speeds of a rotary head stretched by YaRN, as its reference code and
Hugging Face compute them, and the factor YaRN puts on the logits.

Write a file with a function

    def solve(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow):

head_dim     the rotated width d of a head, an even int; d / 2 pairs
base         rope_theta b, a float
factor       the stretch s, a float > 1
original_max_position_embeddings   the training length L0, an int
beta_fast, beta_slow   rotation counts in L0 that bound the ramp (32 and 1)

It returns d/2 + 1 floats (float64): the new speed of pair j = 0 .. d/2 - 1, then
the factor on the logits. A NumPy array, a list or a tuple.

    w_j = b ** (-2j / d)
    c(rho) = d * ln(L0 / (2 * pi * rho)) / (2 * ln b)    # the pair turning rho times
    low = floor(c(beta_fast)), high = ceil(c(beta_slow)), clipped to [0, d - 1]
    t_j = clamp((j - low) / (high - low), 0, 1)
    new w_j = w_j * (1 - t_j) + (w_j / s) * t_j
    last entry: (0.1 * ln s + 1) ** 2

Worked examples (6 significant digits):

    solve(16, 10000.0, 4.0, 2048, 32, 1)
        -> [1, 0.316228, 0.1, 0.0256935, 0.00625, 0.0013835, 0.00025,
            7.90569e-05, 1.29648]
    solve(128, 10000.0, 8.0, 4096, 32, 1): low 20, high 46, pair 0 speed 1,
        pair 63 speed 1.44348e-05, last entry 1.45913

A solve(head_dim, base, factor, original_max_position_embeddings), with 32 and 1
built in, is checked too: on the cases with those counts only, and the report
says how many others it did not run."""


E6 = Exercise(
    key="E6",
    title="The YaRN speeds",
    page="exercises/e6-yarn-inverse-frequencies.md",
    params=(
        "head_dim",
        "base",
        "factor",
        "original_max_position_embeddings",
        "beta_fast",
        "beta_slow",
    ),
    returns="head_dim / 2 + 1 floats: a NumPy array, a list or a tuple",
    task=TASK,
    worked=((16, 10000.0, 4.0, 2048, *BETAS), (128, 10000.0, 8.0, 4096, *BETAS)),
    draw=draw,
    expected=expected,
    shape=lambda head_dim, *rest: (head_dim // 2 + 1,),
    describe=describe,
    where=where,
    mistakes=MISTAKES,
    fallback=fallback,
    smaller=Smaller(
        arity=4,
        keeps=lambda *args: tuple(args[4:]) == BETAS,
        kept="with beta_fast 32 and beta_slow 1",
        others="with other rotation counts",
        opt_in="Add the arguments beta_fast and beta_slow to be judged on them too: "
        "`def solve(head_dim, base, factor, original_max_position_embeddings, "
        "beta_fast=32, beta_slow=1):`.",
    ),
)
