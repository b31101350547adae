"""Proposition 24 (position interpolation divides every speed by s).

A rotary model (Proposition 12) with speeds w_i = b^(-2i/d) is trained on the
positions 0 .. L0 - 1. Position interpolation (Chen et al. 2023) runs it at the
length L' = s L0 by feeding position m as m L0 / L' = m / s: f'(x, m) = f(x, m L0/L').
Turning pair i by (m/s) w_i is turning it by m (w_i / s), so position interpolation
is the rotary model with every speed divided by s: Hugging Face's "linear" scheme.
The offset property survives: the score of a query at m and a key at n is
<q, R((n - m)/s) k>, a function of n - m alone. The positions 0 .. L' - 1 are fed
as 0, 1/s, ..., L0 - 1/s, all in [0, L0): pair i turns by at most
(L0 - 1/s) w_i < L0 w_i, at most (1 - 1/s) w_i beyond the largest angle
(L0 - 1) w_i of training. Neighbouring positions are turned apart by w_i / s
instead of w_i: the resolution near every token drops by the factor s.

Uses: 12.
"""

from __future__ import annotations

import inspect
import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from posenc import rope
from posenc.figures.interpolation import fig_position_interpolation
from posenc.rotary import rotary_matrix
from proofs.exact import minus
from proofs.kit import Misreading, Recorder, Show, Witness, substitute

NUMBER = 24
TITLE = "Position interpolation divides every speed by s"
USES = (12,)

# The numbers this proposition chooses: the paper's base; the worked example of the
# page (a model trained to L0 = 4096 positions run at L' = 16384, so s = 4, head
# width 128, and the token 10000 of "Check yourself"); the figure's small training
# length. L' = s L0 is checked in step 4.
INPUTS = {
    "base": 10000,
    "head_dim": 128,
    "train_length": 4096,
    "scale": 4,
    "stretched_length": 16384,
    "token": 10000,
    "figure_length": 16,
}

# Symbols, declared once. Positions are real (integers are the case that matters,
# nothing below needs integrality); a speed, the scale and the base are positive;
# the training length is a positive integer.
m, n, t = sp.symbols("m n t", real=True)
w, s = sp.symbols("w s", positive=True)
base = sp.Symbol("b", positive=True)
L0 = sp.Symbol("L0", positive=True, integer=True)
i = sp.Symbol("i", integer=True, nonnegative=True)
d = sp.Symbol("d", positive=True, even=True)

#: The library configurations whose "linear" speeds are checked (head_dim, base, s).
POWERS_OF_TWO = (2.0, 4.0, 8.0, 16.0)
OTHER_SCALES = (1.5, 2.5, 3.0, 5.0)
CONFIGS = [
    (dim, b, factor)
    for dim in (64, 128)
    for b in (10000, 500000)
    for factor in POWERS_OF_TWO + OTHER_SCALES
]


def turn(angle: sp.Expr) -> sp.Matrix:
    """The anticlockwise rotation of one pair by ``angle`` (Proposition 12's R)."""
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def fed(position: sp.Expr) -> sp.Expr:
    """The position that PI feeds for ``position``: m L0 / L' with L' = s L0, unevaluated."""
    stretched = sp.Mul(s, L0, evaluate=False)  # L'
    return sp.Mul(position, L0, sp.Pow(stretched, -1, evaluate=False), evaluate=False)


def pi_score(q: sp.Matrix, k: sp.Matrix, speed: sp.Expr) -> sp.Expr:
    """One pair's score under PI: the query turned by (m/s) w, the key by (n/s) w."""
    return ((turn(m / s * speed) * q).T * (turn(n / s * speed) * k))[0, 0]


def vector(name: str, width: int) -> sp.Matrix:
    """A column of ``width`` real symbols."""
    return sp.Matrix(sp.symbols(f"{name}_0:{width}", real=True))


def ladder(width: int) -> list[sp.Expr]:
    """w_i = b^(-2i/d), i = 0 .. d/2 - 1, the speeds of Proposition 12."""
    return [base ** (-2 * sp.Integer(j) / width) for j in range(width // 2)]


def rotation(position: sp.Expr, width: int) -> sp.Matrix:
    """The rotary matrix of width ``width`` at ``position``, every speed divided by s."""
    matrix = sp.zeros(width, width)
    for j, speed in enumerate(ladder(width)):
        block = turn(position * speed / s)
        matrix[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = block
    return matrix


def whole_offset(width: int) -> sp.Expr:
    """<R'(m) q, R'(n) k> - <q, R'(n - m) k>, written with exponentials."""
    q, k = vector("q", width), vector("k", width)
    score = ((rotation(m, width) * q).T * (rotation(n, width) * k))[0, 0]
    relative = (q.T * rotation(n - m, width) * k)[0, 0]
    return (score - relative).rewrite(sp.exp)


def nearest_root(value: float, power: Fraction, root: int) -> bool:
    """Is ``value`` the float64 nearest to the positive real T with T**root = power?

    T lies strictly between the midpoints to the neighbouring floats, lo < T < hi,
    exactly when lo**root < power < hi**root (x -> x**root increases for x > 0):
    decided in integers. A tie would need T to be such a midpoint; the check then
    fails rather than pass.
    """
    here = Fraction(value)
    low = (here + Fraction(math.nextafter(value, 0.0))) / 2
    high = (here + Fraction(math.nextafter(value, math.inf))) / 2
    return low**root < power < high**root


def linear_is_nearest(dim: int, b: int, factor: float) -> int:
    """Right answers, 3 per pair, to: is "linear" the float64 nearest to b^(-2i/d) / s?

    Each pair's speed must pass, and both neighbouring floats must fail (they cannot be
    the nearest when it is): 3 d/2 in all only if every speed is the nearest float and
    the test tells it from its neighbours; a test that accepts anything scores d/2.
    """
    got, _ = rope.inv_freq("linear", dim, base=float(b), factor=factor)  # (d/2,)
    scale = Fraction(factor)
    right = 0  # answers that are right
    for j, value in enumerate(got.tolist()):
        exponent = Fraction(2 * j, dim)  # T = b^(-p/r) / s, so T^r = 1 / (b^p s^r)
        p, r = exponent.numerator, exponent.denominator
        power = 1 / (Fraction(b) ** p * scale**r)
        below, above = math.nextafter(value, 0.0), math.nextafter(value, math.inf)
        right += nearest_root(value, power, r)
        right += not nearest_root(below, power, r)
        right += not nearest_root(above, power, r)
    return right


def checks(rec: Recorder) -> None:
    # Step 1. Position interpolation is a change of speeds. PI feeds position m as
    # m L0 / L' with L' = s L0, so pair i turns by (m L0 / (s L0)) w_i; regrouping
    # the product, that is m (w_i / s): the rotary model with every speed divided by
    # s. The products are written out unevaluated, so the kit carries them out.
    speed = base ** (-2 * i / d)
    rec.identity(
        "R((m L0 / L') w_i) = R(m (w_i / s)) with L' = s L0, for pair i",
        minus(
            turn(sp.Mul(fed(m), speed, evaluate=False)),
            turn(sp.Mul(m, sp.Mul(speed, sp.Pow(s, -1), evaluate=False), evaluate=False)),
        ),
        scope="every pair i, width d, base b > 0, scale s > 0, length L0 and position m",
    )

    # Step 2. The library's "linear" scheme is these speeds. Each value is the float64
    # nearest to b^(-2i/d) / s, decided in integers; for a power of two s it is the
    # default speed divided by s, bit for bit (dividing by a power of two is exact in
    # float64, and keeps the nearest float the nearest).
    # The page counts the configurations: the check counts those where every pair is
    # the nearest float64, against the number tried.
    rec.exact(
        'posenc.rope.inv_freq("linear") is the float64 nearest to b^(-2i/d) / s for every '
        "pair, and neither neighbouring float is (count of configurations where it is, "
        "against the number tried)",
        sum(int(linear_is_nearest(*config) == 3 * config[0] // 2) for config in CONFIGS),
        len(CONFIGS),
        scope="d = 64, 128; b = 10000, 500000; s = 2, 4, 8, 16, 1.5, 2.5, 3, 5; every pair; "
        "exact integer comparison of powers",
        quantity="configurations",
    )
    equal = 0
    for dim, b, factor in CONFIGS:
        if factor not in POWERS_OF_TWO:
            continue
        linear, _ = rope.inv_freq("linear", dim, base=float(b), factor=factor)  # (d/2,)
        plain, _ = rope.inv_freq("default", dim, base=float(b))  # (d/2,)
        equal += int(np.count_nonzero(linear == plain / factor))
    rec.exact(
        'for s a power of two, "linear" = "default" / s bit for bit (count of equal speeds, '
        "against the 4 scales x 2 bases x (32 + 64) pairs)",
        equal,
        4 * 2 * (32 + 64),
        scope="d = 64, 128; b = 10000, 500000; s = 2, 4, 8, 16; every pair",
    )
    # The caches agree as well: positions m with the speeds divided by 4, and the
    # positions m/4 (exact in float64) with the default speeds, have the same exact
    # angles, so the correctly rounded cosines and sines are the same floats.
    length = 4 * 512
    positions = np.arange(length)  # (L',)
    linear, _ = rope.inv_freq("linear", 128, base=float(INPUTS["base"]), factor=4.0)  # (64,)
    plain, _ = rope.inv_freq("default", 128, base=float(INPUTS["base"]))  # (64,)
    cos_a, sin_a = rope.cos_sin(positions, linear, layout="pairs")  # (L', 64) each
    cos_b, sin_b = rope.cos_sin(positions / 4, plain, layout="pairs")  # (L', 64) each
    rec.exact(
        "posenc.rope.cos_sin: speeds w_i / 4 at positions m equal speeds w_i at m / 4 "
        "(count of equal entries, against 2048 positions x 64 pairs x cosine and sine)",
        int(np.count_nonzero(cos_a == cos_b) + np.count_nonzero(sin_a == sin_b)),
        2048 * 64 * 2,
        scope="d = 128, b = 10000, s = 4, m = 0..2047, every pair, cosine and sine, float64",
    )

    # Step 3. The offset survives (Proposition 12 with the speed w / s): one pair.
    q, k = vector("q", 2), vector("k", 2)
    rec.identity(
        "<R((m/s) w) q, R((n/s) w) k> = <q, R(((n - m)/s) w) k>, one pair",
        (pi_score(q, k, w) - (q.T * turn((n - m) / s * w) * k)[0, 0]).rewrite(sp.exp),
        scope="every speed w > 0, scale s > 0, positions m, n and real q, k",
    )
    rec.identity(
        "moving both positions by t leaves the PI score unchanged, one pair",
        (
            pi_score(q, k, w).subs({m: m + t, n: n + t}, simultaneous=True) - pi_score(q, k, w)
        ).rewrite(sp.exp),
        scope="every speed w > 0, scale s > 0, positions m, n, shift t and real q, k",
    )
    # The matrix R'(m) used for the whole vector is posenc's rotary matrix at the fed
    # position m / s: at b = 10000, s = 4, m = 5 (fed as 1.25, exact), width 8.
    built = substitute(rotation(m, 8), {m: 5, base: 10000, s: 4})
    rec.numeric(
        "R'(m) built from the speeds b^(-2i/d) / s equals posenc.rotary.rotary_matrix at m / s",
        np.array(sp.N(built, 30), dtype=float) - rotary_matrix(1.25, 8, base=10000.0),
        tol=1e-15,
        scope="d = 8, b = 10000, s = 4, m = 5, every entry; float64 correctly rounded",
    )
    rec.instances(
        "<R'(m) q, R'(n) k> = <q, R'(n - m) k> for the whole vector, speeds b^(-2i/d) / s",
        ((f"d = {width}", whole_offset(width)) for width in (2, 4, 6, 8)),
        scope="d = 2, 4, 6, 8; symbolic q, k, m, n, base and scale",
    )

    # Step 4. Where the new positions land. m = 0 .. L' - 1 with L' = s L0 is fed as
    # m / s, from 0 to (s L0 - 1)/s = L0 - 1/s, which is below L0 by 1/s and above
    # the last trained position L0 - 1 by 1 - 1/s < 1. Pair i turns by at most
    # (L0 - 1/s) w_i = L0 w_i - w_i / s.
    rec.identity(
        "the last position fed, (L' - 1)/s with L' = s L0, is L0 - 1/s",
        (s * L0 - 1) / s - (L0 - 1 / s),
        scope="every L0 and s > 0",
    )
    rec.identity(
        "pair i's largest angle (L0 - 1/s) w_i = L0 w_i - w_i/s = (L0 - 1) w_i + (1 - 1/s) w_i",
        sp.Matrix(
            [
                (L0 - 1 / s) * w - (L0 * w - w / s),
                (L0 - 1 / s) * w - ((L0 - 1) * w + (1 - 1 / s) * w),
            ]
        ),
        scope="every L0, speed w > 0 and s > 0",
    )
    lengths = [(2048, 4096), (2048, 3072), (4096, 16384), (4096, 32768), (8192, 65536)]
    landed = 0
    for train, stretched in lengths:
        scale = Fraction(stretched, train)
        fed_all = [Fraction(p * train, stretched) for p in range(stretched)]
        # The distinct fed positions in [0, L0 - 1/s]: L' of them iff all are there and
        # no two tokens share a position; and one more if the last is L0 - 1/s.
        landed += len({f for f in fed_all if 0 <= f <= train - 1 / scale})
        landed += max(fed_all) == train - 1 / scale
    rec.exact(
        "every fed position m L0 / L' lies in [0, L0 - 1/s], the last one is L0 - 1/s, "
        "and no two coincide (distinct positions in range plus lengths ending at L0 - 1/s, "
        "against the sum of L' plus 5)",
        landed,
        (4096 + 3072 + 16384 + 32768 + 65536) + 5,
        scope="(L0, L') = (2048, 4096), (2048, 3072), (4096, 16384), (4096, 32768), "
        "(8192, 65536); every m, exact rationals",
    )
    # The figure's toy model: trained on figure_length positions and run at the
    # example's s (the defaults of posenc.figures.interpolation, which the page draws).
    drawn = inspect.signature(fig_position_interpolation).parameters
    rec.exact(
        "the figure draws a model trained on the input's figure_length positions, run at "
        "the input's s (count of differences from its defaults)",
        int(drawn["train_length"].default != INPUTS["figure_length"])
        + int(drawn["scale"].default != INPUTS["scale"]),
        0,
        scope="posenc.figures.interpolation.fig_position_interpolation's train_length and scale",
    )
    train, scale, stretched = INPUTS["train_length"], INPUTS["scale"], INPUTS["stretched_length"]
    rec.exact(
        "the example's lengths: L' = s L0",
        stretched,
        scale * train,
        scope="L0 = 4096, s = 4, L' = 16384; the inputs, exact integers",
    )
    rec.exact(
        "L0 = 4096, s = 4: the last position fed is 4095.75, below L0",
        Fraction(stretched - 1, scale),
        Fraction(train) - Fraction(1, scale),
        scope="L0 = 4096, L' = 16384, exact",
        quantity="last_fed",
        show=Show(decimals=2),
    )
    rec.exact(
        "L0 = 4096, s = 4: without interpolation the last position would be L' - 1 = 16383",
        stretched - 1,
        16383,
        scope="L' = 16384, exact",
        quantity="last_plain",
    )
    rec.exact(
        "L0 = 4096, s = 4: the positions fed above L0 - 1 are the last s - 1 = 3",
        sum(int(Fraction(p, scale) > train - 1) for p in range(stretched)),
        scale - 1,
        scope="L0 = 4096, L' = 16384, every m, exact",
        quantity="beyond_last",
    )

    # Step 5. The resolution. Neighbouring positions m and m + 1 are turned apart by
    # (m + 1)/s w - (m/s) w = w / s on pair i, instead of w: s times less.
    rec.identity(
        "PI turns neighbouring positions apart by w / s: ((m + 1)/s) w - (m/s) w = w/s",
        (m + 1) / s * w - m / s * w - w / s,
        scope="every speed w > 0, scale s > 0 and position m",
    )
    linear, _ = rope.inv_freq(
        "linear", INPUTS["head_dim"], base=float(INPUTS["base"]), factor=float(scale)
    )
    rec.exact(
        'posenc: pair 0 of "linear" at s = 4 turns by 1/4 radian per position',
        Fraction(float(linear[0])),
        Fraction(1, scale),
        scope="d = 128, b = 10000, s = 4, pair 0; the float64 as an exact rational",
        quantity="neighbour_angle",
        show=Show(style="fraction"),
    )

    # Step 6. Numeric spot check through the library: scores built from
    # posenc.rope.cos_sin with the "linear" speeds are constant along each diagonal
    # n - m and equal <q, R((n - m)/s) k> in mpmath at 50 digits.
    rng = np.random.default_rng(24)
    width, length, factor = 16, 64, 3.0
    speeds, _ = rope.inv_freq("linear", width, factor=factor)  # (8,)
    cos, sin = rope.cos_sin(np.arange(length), speeds, layout="pairs")  # (L, 8) each
    qv, kv = rng.normal(size=(2, width))  # (d,) each
    qa, qb, ka, kb = qv[0::2], qv[1::2], kv[0::2], kv[1::2]  # (8,) each: pairs (2j, 2j+1)
    rq_a, rq_b = qa * cos - qb * sin, qa * sin + qb * cos  # (L, 8) each: query at m
    rk_a, rk_b = ka * cos - kb * sin, ka * sin + kb * cos  # (L, 8) each: key at n
    scores = rq_a @ rk_a.T + rq_b @ rk_b.T  # (L, L): row m, column n
    errors = []
    with mpmath.workdps(50):
        true = [mpmath.power(10000, mpmath.mpf(-2 * j) / width) / 3 for j in range(width // 2)]
        exact = [
            tuple(mpmath.mpf(float(x[j])) for x in (qa, qb, ka, kb)) for j in range(width // 2)
        ]
        for offset in range(-length + 1, length):
            closed = mpmath.fsum(
                (a1 * b1 + a2 * b2) * mpmath.cos(offset * v)
                + (a2 * b1 - a1 * b2) * mpmath.sin(offset * v)
                for (a1, a2, b1, b2), v in zip(exact, true, strict=True)
            )
            errors.append(np.diagonal(scores, offset) - float(closed))
    rec.numeric(
        'scores from posenc.rope.cos_sin with "linear" speeds equal <q, R((n - m)/s) k>',
        np.concatenate(errors),
        tol=1e-13,
        scope="d = 16, b = 10000, s = 3, m, n = 0..63, one normal q and k; mpmath at 50 digits",
    )

    # The page's "Check yourself": token 10000 of a model trained to 4096 and run at
    # s = 4 is fed as position 2500; neighbours on pair 0 differ by 1/4 radian.
    token = INPUTS["token"]
    rec.exact(
        "L0 = 4096, s = 4: token 10000 is fed as position 10000 / 4 = 2500",
        Fraction(token * train, stretched),
        2500,
        scope="L0 = 4096, L' = 16384, m = 10000, exact",
        quantity="token_fed",
    )


# -- misreadings -------------------------------------------------------------------


def _same_resolution(wit: Witness) -> None:
    # "PI extends the context without changing the nearby resolution." On pair 0
    # (speed 1), neighbours are turned apart by 1 radian in training and by 1/4 under
    # PI at s = 4.
    point = {w: 1, s: 4, m: 0}
    stretched = substitute((m + 1) / s * w - m / s * w, point)
    trained = substitute((m + 1) * w - m * w, point)
    # The two steps are pinned to the page's values: 1/4 radian under PI (pair 0 of
    # "linear" at s = 4 turns by 1/4 per position), 1 radian in training.
    if (stretched, trained) != (sp.Rational(1, 4), 1):
        raise ValueError(f"the steps are not 1/4 and 1 radian: {stretched}, {trained}")
    wit.differs(
        stretched,
        trained,
        at="pair 0 (w = 1), s = 4, positions 0 and 1: PI's angle step against training's",
        margin=sp.Rational(1, 2),
        by="half a radian",
    )


def _trained_positions_only(wit: Witness) -> None:
    # "PI feeds the model only positions it was trained on." Token 1 at s = 4 is fed
    # as 1/4, a quarter of a position from the nearest trained one; the last token
    # of L' = 16384 is fed as 4095.75, beyond the last trained position 4095.
    last = substitute(fed(m), {m: 16383, s: 4, L0: 4096}).doit()
    wit.differs(
        last,
        4095,
        at="L0 = 4096, s = 4, m = L' - 1 = 16383: the position fed against the last trained one",
        margin=sp.Rational(1, 2),
        by="half a position",
    )


MISREADINGS = [
    Misreading(
        "Position interpolation extends the context without changing the nearby resolution",
        _same_resolution,
        why="Every speed is divided by s, so neighbouring tokens are turned apart by w_i / s: "
        "the model must tell apart angles s times smaller than in training.",
    ),
    Misreading(
        "Position interpolation feeds the model only positions it was trained on",
        _trained_positions_only,
        why="It feeds m / s, mostly fractions; they lie in [0, L0), and the last s - 1 of "
        "them fall between the last trained position L0 - 1 and L0.",
    ),
]
