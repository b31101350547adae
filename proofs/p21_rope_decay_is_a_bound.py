"""Proposition 21 (RoPE's long-term decay is a bound, not a property).

Let d = 2N, b > 1 and w_t = b^(-2t/d), t = 0..N-1. Read pair t of a query q and
a key k (interleaved pairing) as the complex numbers q_t = q_(2t) + i q_(2t+1) and
k_t = k_(2t) + i k_(2t+1), and put h_t = q_t conj(k_t). For a query at position m
and a key at position n, with offset r = m - n, the rotary score is
s(r) = <R_m q, R_n k> = Re sum_(t<N) h_t e^(i r w_t).

With S_0 = 0, S_j = sum_(t<j) e^(i r w_t) for j = 1..N, and RoFormer's convention
h_N = 0, Abel summation gives
    sum_(t<N) h_t e^(i r w_t) = -sum_(j=1..N) S_j (h_j - h_(j-1)),
hence |s(r)| <= sum_j |S_j| |h_j - h_(j-1)| <= (max_j |h_j - h_(j-1)|) sum_j |S_j|,
with equality at r = 0 for h_t = N - t.

The factor B(r) = (1/N) sum_j |S_j(r)| (RoFormer's "relative upper bound") is
(N + 1)/2 at r = 0 and even in r, and limsup_(R -> oo) of its mean over
r = 0..R-1 is at most (1/N) sum_j sqrt(j). For d = 128 and b = 10^4, its means over
[0, 64), [64, 128), [128, 256) and [256, 512) fall, though B itself rises at many
single steps. The score need not fall at all: for q = (1, ..., 1) and k = R_s q
(q turned as if at position s), s(r) = <q, R_(s - r) q> reaches |q|^2 = d, the
largest value any offset can give, at r = s, while s(0) <= 2(N - 1) + 2 cos s. For
q = k = (1, ..., 1) the bound is 2 N B(r); it exceeds |q| |k| = d wherever
B(r) > 1, which holds at every offset |r| <= 10^5.

Rotary embeddings turn queries and keys only, not values: a head's output depends
on the positions only through the offsets.

Uses: 12.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from posenc.attention import softmax
from posenc.encoding import frequencies
from posenc.figures import decay as figure
from posenc.rotary import rotary, rotary_angles
from proofs.exact import PI_HIGH, PI_LOW, enclose_pi
from proofs.kit import Misreading, Recorder, Show, Witness, reduce_to_zero

NUMBER = 21
TITLE = "RoPE's long-term decay is a bound, not a property"
USES = (12,)

# The numbers this proposition chooses: RoFormer's base and the width of its
# Figure 2, the offsets the figure draws (0 .. 511) and the edges of its windows,
# the offset s at which the turned key peaks, and how far the all-ones bound is
# followed.
INPUTS = {
    "base": 10000,
    "width": 128,
    "figure_length": 512,
    "window_edge": 256,
    "peak_distance": 400,
    "far_offset": 100000,
}
BASE, WIDTH, PAIRS = INPUTS["base"], INPUTS["width"], INPUTS["width"] // 2
LENGTH, PEAK, FAR = INPUTS["figure_length"], INPUTS["peak_distance"], INPUTS["far_offset"]
WINDOWS = ((0, 64), (64, 128), (128, INPUTS["window_edge"]), (INPUTS["window_edge"], LENGTH))

# Symbols, declared once. Positions, offsets and angles are real; a speed is
# positive, and so is the base. Coefficients h and unit vectors z of the Abel
# summation are left without assumptions: the identity is one of polynomials.
m, n, s, x = sp.symbols("m n s x", real=True)
w = sp.Symbol("w", positive=True)
base = sp.Symbol("base", positive=True)
WIDTHS = (2, 4, 6, 8, 10, 12, 14, 16)
ABEL_SIZES = range(1, 65)  # N = d/2 = 1 .. 64: every width up to 128


def turn(angle: sp.Expr) -> sp.Matrix:
    """The anticlockwise rotation of one pair by ``angle``."""
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def vector(name: str, width: int) -> sp.Matrix:
    """A column of ``width`` real symbols, name_0 .. name_(width-1)."""
    return sp.Matrix(sp.symbols(f"{name}_0:{width}", real=True))


def rotation(p: sp.Expr, width: int) -> sp.Matrix:
    """R_p, interleaved: pair t (coordinates 2t, 2t+1) turned by p w_t, w_t = base^(-2t/d)."""
    matrix = sp.zeros(width, width)
    for t in range(width // 2):
        block = turn(p * base ** (-2 * sp.Integer(t) / width))
        matrix[2 * t : 2 * t + 2, 2 * t : 2 * t + 2] = block
    return matrix


def complex_form(q: sp.Matrix, k: sp.Matrix, width: int, offset: sp.Expr) -> sp.Expr:
    """Re sum_t h_t e^(i r w_t), h_t = q_t conj(k_t), written as (z + conj z) / 2.

    The conjugates are written out, conj(h_t) = (q_a - i q_b)(k_a + i k_b) for real
    coordinates, so no ``re`` or ``conjugate`` is left for the simplifier.
    """
    terms = []
    for t in range(width // 2):
        qa, qb, ka, kb = q[2 * t], q[2 * t + 1], k[2 * t], k[2 * t + 1]
        phase = sp.I * offset * base ** (-2 * sp.Integer(t) / width)
        h, h_bar = (qa + sp.I * qb) * (ka - sp.I * kb), (qa - sp.I * qb) * (ka + sp.I * kb)
        terms.append((h * sp.exp(phase) + h_bar * sp.exp(-phase)) / 2)
    return sp.Add(*terms)


def score(q: sp.Matrix, k: sp.Matrix, width: int, at_q: sp.Expr, at_k: sp.Expr) -> sp.Expr:
    """<R_(at_q) q, R_(at_k) k>: the rotary score, query at ``at_q``, key at ``at_k``."""
    return ((rotation(at_q, width) * q).T * (rotation(at_k, width) * k))[0, 0]


def abel_difference(size: int) -> sp.Expr:
    """sum_(i<N) h_i z_i + sum_(j=1..N) S_j (h_j - h_(j-1)), which Abel says is 0.

    S_0 = 0 and S_j = z_0 + ... + z_(j-1); h_N = 0 is RoFormer's convention.
    """
    h, z = list(sp.symbols(f"h_0:{size}")), list(sp.symbols(f"z_0:{size}"))
    coefficients = [*h, sp.Integer(0)]  # RoFormer's boundary convention h_N = 0
    partial = [sp.Add(*z[:j]) for j in range(size + 1)]  # S_0 = 0, S_1, ..., S_N
    direct = sp.Add(*(h[i] * z[i] for i in range(size)))
    summed = sp.Add(
        *(partial[j] * (coefficients[j] - coefficients[j - 1]) for j in range(1, size + 1))
    )
    return direct + summed


# -- the same objects at 30 to 50 digits -------------------------------------------------


def mp_speeds(width: int, digits: int = 40) -> list[mpmath.mpf]:
    """w_t = base^(-2t/d), t = 0..N-1, with mpmath."""
    with mpmath.workdps(digits):
        return [mpmath.power(BASE, mpmath.mpf(-2 * t) / width) for t in range(width // 2)]


def mp_partial_sums(offsets: list[int] | range, width: int) -> list[list[mpmath.mpc]]:
    """S_1(r) .. S_N(r), S_j(r) = sum_(t<j) e^(i r w_t), for each offset, at 30 digits."""
    out = []
    with mpmath.workdps(30):
        speeds = mp_speeds(width, 30)
        for r in offsets:
            partial, row = mpmath.mpc(0), []
            for speed in speeds:
                partial += mpmath.expj(r * speed)
                row.append(partial)
            out.append(row)
    return out


def mp_bound(offsets: list[int] | range, width: int) -> list[mpmath.mpf]:
    """B(r) = (1/N) sum_(j=1..N) |S_j(r)| for each offset, at 30 digits."""
    return bound_of(mp_partial_sums(offsets, width))


def bound_of(rows: list[list[mpmath.mpc]]) -> list[mpmath.mpf]:
    """B = (1/N) sum_j |S_j| for each row S_1 .. S_N of partial sums, at 30 digits."""
    with mpmath.workdps(30):
        return [mpmath.fsum(abs(v) for v in row) / len(row) for row in rows]


def float_bound(offsets: np.ndarray, width: int) -> np.ndarray:
    """B(r) in float64 from the correctly rounded speeds, in blocks of 10,000 offsets."""
    speeds = np.array([float(v) for v in mp_speeds(width)])  # (N,)
    out = []
    for top in range(0, offsets.size, 10000):
        block = offsets[top : top + 10000].astype(np.float64)  # (<= 10000,)
        partial = np.cumsum(np.exp(1j * block[:, None] * speeds), axis=1)  # (block, N)
        out.append(np.abs(partial).mean(axis=1))
    return np.concatenate(out)


def cosine_is_negative(offset: int) -> bool:
    """(2k + 1/2) pi < offset < (2k + 3/2) pi for some integer k, in exact arithmetic.

    PI_LOW < pi < PI_HIGH (checked by ``enclose_pi``), so the enclosure is decided
    exactly; cos is negative on every such interval.
    """
    k = math.floor((offset / math.pi - 0.5) / 2)
    low, high = (2 * k + Fraction(1, 2)) * PI_HIGH, (2 * k + Fraction(3, 2)) * PI_LOW
    return low < offset < high


def checks(rec: Recorder) -> None:
    # Step 1. One pair as a complex number. With x = x_a + i x_b, a turn by t is
    # multiplication by e^(i t), and <x, y> = Re(x conj(y)) for two pairs read as
    # complex numbers. So <R(m w) q, R(n w) k> = Re(q conj(k) e^(i (m - n) w)).
    qa, qb, ka, kb = sp.symbols("q_a q_b k_a k_b", real=True)
    q1, k1 = sp.Matrix([qa, qb]), sp.Matrix([ka, kb])
    pair = ((turn(m * w) * q1).T * (turn(n * w) * k1))[0, 0]
    phase = sp.I * (m - n) * w
    h, h_bar = (qa + sp.I * qb) * (ka - sp.I * kb), (qa - sp.I * qb) * (ka + sp.I * kb)
    rec.identity(
        "one pair: <R(m w) q, R(n w) k> = Re(h e^(i (m - n) w)), h = q conj(k)",
        (pair - (h * sp.exp(phase) + h_bar * sp.exp(-phase)) / 2).rewrite(sp.exp),
        scope="all real q_a, q_b, k_a, k_b, m, n and every speed w > 0",
    )

    # Step 2. The whole vector: the score is the sum of its pairs' scores, each at
    # its own speed w_t = base^(-2t/d), so s(r) = Re sum_t h_t e^(i r w_t), r = m - n.
    rec.instances(
        "<R_m q, R_n k> = Re sum_t h_t e^(i (m - n) w_t), interleaved pairing",
        (
            (
                f"d = {d}",
                (
                    score(vector("q", d), vector("k", d), d, m, n)
                    - complex_form(vector("q", d), vector("k", d), d, m - n)
                ).rewrite(sp.exp),
            )
            for d in WIDTHS
        ),
        scope="d = 2, 4, ..., 16; symbolic q, k (d entries each), m, n and base",
    )

    # Step 3. Abel summation. With S_(j+1) - S_j = z_j, the sum of h_j z_j is a sum
    # of h_j (S_(j+1) - S_j); moving the index of the first half by one gives
    # -sum_j S_j (h_j - h_(j-1)), with S_0 = 0 and h_N = 0 closing both ends.
    # Induction on N: A(N) = sum_(i<N) h_i z_i - h_(N-1) S_N + sum_(j<N) S_j (h_j -
    # h_(j-1)) vanishes at N = 1 (S_1 = z_0), and A(N+1) - A(N) is the expression
    # below, with S_(N+1) = S_N + z_N: it vanishes for all values.
    h_now, h_before, z_now, s_now = sp.symbols("h_N h_Nm1 z_N S_N")
    rec.identity(
        "induction step: A(N+1) - A(N) = h_N z_N - h_N S_(N+1) + h_(N-1) S_N "
        "+ S_N (h_N - h_(N-1)) = 0",
        h_now * z_now - h_now * (s_now + z_now) + h_before * s_now + s_now * (h_now - h_before),
        scope="all values of h_N, h_(N-1), z_N and S_N (complex numbers or any commuting symbols)",
    )
    rec.instances(
        "sum_(i<N) h_i z_i = -sum_(j=1..N) S_j (h_j - h_(j-1)), S_0 = 0, h_N = 0",
        ((f"N = {size}", abel_difference(size)) for size in ABEL_SIZES),
        scope="N = d/2 = 1 .. 64 (d up to 128); symbolic h_0 .. h_(N-1), z_0 .. z_(N-1)",
    )

    # Step 4. The bound. The triangle inequality gives |s| <= |sum h e^(i r w)| <=
    # sum_j |S_j| |h_j - h_(j-1)| <= max_j |h_j - h_(j-1)| sum_j |S_j| (the argument).
    # Sampled with posenc's scores at the left end, links of the chain as errors.
    rng = np.random.default_rng(21)
    errors = []
    for d in (8, 64, WIDTH):
        speeds = np.array([float(v) for v in mp_speeds(d)])  # (N,)
        for _ in range(40):
            q, k = rng.normal(size=(2, d))  # (d,) each
            key_at = int(rng.integers(0, 10**4))
            offset = int(rng.integers(-(10**4), 10**4))
            got = float(rotary(q[None], [key_at + offset])[0] @ rotary(k[None], [key_at])[0])
            h = (q[0::2] + 1j * q[1::2]) * np.conj(k[0::2] + 1j * k[1::2])  # (N,)
            z = np.exp(1j * offset * speeds)  # (N,)
            partial = np.cumsum(z)  # (N,): S_1 .. S_N
            steps = np.append(h[1:], 0.0) - h  # (N,): h_j - h_(j-1), j = 1..N, h_N = 0
            total = complex(np.sum(h * z))
            middle = float(np.sum(np.abs(partial) * np.abs(steps)))
            chain = [
                abs(got),
                abs(total),
                middle,
                float(np.abs(steps).max() * np.abs(partial).sum()),
            ]
            errors += [max(0.0, a - b) for a, b in itertools.pairwise(chain)]
            errors.append(abs(total + complex(np.sum(partial * steps))))  # Abel, in floats
    rec.numeric(
        "|s(r)| <= |sum h e^(i r w)| <= sum |S_j| |h_j - h_(j-1)| <= max |dh| sum |S_j| "
        "(posenc scores)",
        errors,
        tol=1e-9,
        scope="d = 8, 64, 128; 40 normal q, k each; offsets in [-10^4, 10^4]; "
        "three links and Abel's two sides per sample",
    )
    # The bound is sharp at r = 0: for h_t = N - t every difference is -1 (the last
    # one is h_N - h_(N-1) = 0 - 1), and S_j(0) = j, so both sides are N(N+1)/2.
    size, j, t = (
        sp.Symbol("N", integer=True, positive=True),
        sp.Symbol("j", integer=True),
        sp.Symbol("t", integer=True),
    )
    rec.identity(
        "h_t = N - t, r = 0: sum_t h_t = N (N + 1)/2 = 1 * sum_(j=1..N) |S_j(0)|",
        sp.Sum(size - t, (t, 0, size - 1)) - sp.Sum(j, (j, 1, size)),
        scope="every N >= 1 (sums over t = 0..N-1 and j = 1..N)",
    )
    slope = [PAIRS - t_ for t_ in range(PAIRS)] + [0]  # h_0 .. h_N, integers
    largest_step = max(abs(slope[j_] - slope[j_ - 1]) for j_ in range(1, PAIRS + 1))
    rec.exact(
        "d = 128, h_t = 64 - t: the bound max |dh| sum_j |S_j(0)| equals sum_t h_t",
        largest_step * sum(range(1, PAIRS + 1)),
        sum(slope),
        scope="d = 128, r = 0, exact integers",
        quantity="sharp_value",
    )
    q_sharp = np.zeros(WIDTH)
    q_sharp[0::2] = slope[:-1]  # q_t = 64 - t (real), k_t = 1: h_t = 64 - t
    k_sharp = np.zeros(WIDTH)
    k_sharp[0::2] = 1.0
    got = float(rotary(q_sharp[None], [1000])[0] @ rotary(k_sharp[None], [1000])[0])
    rec.numeric(
        "posenc: q_t = 64 - t, k_t = 1 at equal positions scores sum_t h_t, the bound",
        [got - sum(slope)],
        tol=1e-9,
        scope="d = 128, m = n = 1000, base 10000",
    )

    # Step 5. The library computes what is proven: the speeds, the angles r w_t,
    # and the score Re sum h_t e^(i r w_t), against mpmath.
    # Correctly rounded means equal to the float64 nearest to w_t: mpmath's w_t at 40
    # digits, rounded once (float() of an mpf rounds to nearest). Counted, not measured.
    speed_widths = (2, 8, 64, WIDTH, 1024)
    matches = 0
    for d in speed_widths:
        exact = mp_speeds(d, 40)
        got = frequencies(d, base=BASE)  # (N,)
        matches += sum(int(float(g) == float(e)) for g, e in zip(got, exact, strict=True))
    rec.exact(
        "posenc.frequencies(d) is w_t = base^(-2t/d), correctly rounded: every speed is "
        "the float64 nearest to w_t",
        matches,
        sum(d // 2 for d in speed_widths),
        scope="d = 2, 8, 64, 128, 1024 (613 speeds); base 10000; mpmath at 40 digits, "
        "rounded once to float64",
    )
    where = [0, 1, 7, PEAK, LENGTH - 1, FAR, 10**9 + 7]
    got = rotary_angles(where, WIDTH, base=BASE)  # (7, N)
    speeds40 = mp_speeds(WIDTH, 40)
    errors = []
    with mpmath.workdps(40):
        for row, r in enumerate(where):
            for col, speed in enumerate(speeds40):
                exact = r * speed
                if exact:
                    errors.append(float((mpmath.mpf(float(got[row, col])) - exact) / exact))
                else:
                    errors.append(float(got[row, col]))
    rec.numeric(
        "posenc.rotary_angles(r, 128) is r w_t to within one float64 ulp",
        errors,
        tol=2.0**-52,
        scope="d = 128, r = 0, 1, 7, 400, 511, 10^5, 10^9 + 7; relative error, mpmath 40 digits",
    )
    errors = []
    with mpmath.workdps(50):
        speeds50 = mp_speeds(WIDTH, 50)
        for _ in range(3):
            q, k = rng.normal(size=(2, WIDTH))  # (d,) each
            size_qk = float(np.linalg.norm(q) * np.linalg.norm(k))
            for offset in (0, 1, -1, 37, PEAK, -4095, FAR, 10**9 + 7):
                got = float(rotary(q[None], [offset + 5])[0] @ rotary(k[None], [5])[0])
                exact = mpmath.fsum(
                    mpmath.re(
                        mpmath.mpc(q[2 * t], q[2 * t + 1])
                        * mpmath.conj(mpmath.mpc(k[2 * t], k[2 * t + 1]))
                        * mpmath.expj(offset * speed)
                    )
                    for t, speed in enumerate(speeds50)
                )
                errors.append(float((got - exact) / size_qk))
    rec.numeric(
        "posenc.rotary scores equal Re sum_t h_t e^(i r w_t), relative to |q| |k|",
        errors,
        tol=1e-15,
        scope="d = 128, 3 normal q, k; r = 0, +-1, 37, 400, -4095, 10^5, 10^9 + 7 "
        "(key at 5); mpmath at 50 digits",
    )

    # Step 6. What decays: B(r) = (1/N) sum_j |S_j(r)|. At r = 0 every unit vector
    # is 1, so S_j(0) = j and B(0) = (N + 1)/2.
    rec.identity(
        "B(0) = (1/N) sum_(j=1..N) j = (N + 1)/2",
        sp.Sum(j, (j, 1, size)) / size - (size + 1) / 2,
        scope="every N >= 1",
    )
    rec.exact(
        "d = 128: B(0) = 2080/64 = 65/2",
        Fraction(sum(range(1, PAIRS + 1)), PAIRS),
        Fraction(PAIRS + 1, 2),
        scope="N = 64, exact rationals",
        quantity="bound_at_zero",
        show=Show(style="fraction"),
    )
    offsets = np.arange(LENGTH)  # (L,)
    partials = mp_partial_sums(range(LENGTH), WIDTH)  # (L, N): S_1(r) .. S_N(r), 30 digits
    reference = bound_of(partials)  # B(r), 30 digits
    drawn = figure._relative_bound(offsets, WIDTH, float(BASE))  # (L,)
    rec.numeric(
        "the figure's B(r), from posenc.rotary_angles, equals B(r) at 30 digits",
        [float(g - e) for g, e in zip(drawn, reference, strict=True)],
        tol=1e-12,
        scope="d = 128, base 10000, r = 0 .. 511",
    )
    # S_j(-r) is the conjugate of S_j(r), so |S_j| and B are even. Both checks read
    # the same negative offsets; the first compares S_j itself, which is not even.
    negative = -offsets  # (L,): r = 0, -1, ..., -511
    mirrored = mp_partial_sums(negative.tolist(), WIDTH)  # (L, N): S_j(-r), 30 digits
    with mpmath.workdps(30):
        errors = [
            float(abs(a - mpmath.conj(b)))
            for row_a, row_b in zip(mirrored, partials, strict=True)
            for a, b in zip(row_a, row_b, strict=True)
        ]
    rec.numeric(
        "S_j(-r) = conj S_j(r) at 30 digits, j = 1 .. 64 (so |S_j| and B are even)",
        errors,
        tol=1e-25,
        scope="d = 128, base 10000, r = 0 .. 511 against -r; mpmath at 30 digits",
    )
    rec.numeric(
        "B(-r) = B(r): the figure's helper at -r against B(r) at 30 digits",
        [
            float(g - e)
            for g, e in zip(figure._relative_bound(negative, WIDTH, 1e4), reference, strict=True)
        ],
        tol=1e-12,
        scope="d = 128, base 10000, r = 0 .. 511",
    )
    means = [mpmath.fsum(reference[a:b]) / (b - a) for a, b in WINDOWS]
    rec.band(
        "mean of B(r) over r = 0 .. 63",
        float(means[0]),
        low=Fraction(149, 10),
        high=Fraction(15),
        samples=64,
        scope="d = 128, base 10000; B at 30 digits",
        quantity="mean_first",
        show=Show(sig=3),
    )
    rec.band(
        "mean of B(r) over r = 256 .. 511",
        float(means[-1]),
        low=Fraction(69, 10),
        high=Fraction(7),
        samples=256,
        scope="d = 128, base 10000; B at 30 digits",
        quantity="mean_last",
        show=Show(sig=3),
    )
    rec.band(
        "each window's mean is at least 1 below the one before ([0,64), [64,128), "
        "[128,256), [256,512))",
        float(min(a - b for a, b in itertools.pairwise(means))),
        low=1,
        high=10,
        samples=len(WINDOWS) - 1,
        scope="d = 128, base 10000; the smallest of the three drops, B at 30 digits",
    )
    steps = [b - a for a, b in itertools.pairwise(reference)]
    rec.band(
        f"every step B(r + 1) - B(r), r = 0 .. {LENGTH - 2}, is at least 1e-4 in size "
        "(its sign is certain)",
        float(min(abs(v) for v in steps)),
        low=Fraction(1, 10**4),
        high=1,
        samples=len(steps),
        scope="d = 128, base 10000; B at 30 digits, so each sign is beyond rounding",
    )
    # The page counts the rises. Counted on B at 30 digits and, independently, on the
    # figure's float64 B (within 1e-12 of it, so a step of 1e-4 keeps its sign there).
    rises = sum(int(v > 0) for v in steps)
    rec.exact(
        "the steps where B rises: as many in the figure's float64 B as in B at 30 digits",
        rises,
        int(np.count_nonzero(np.diff(drawn) > 0)),
        scope=f"d = 128, base 10000, r = 0 .. {LENGTH - 1}; signs of the steps, counted",
        quantity="rises",
    )
    # Every step rises or falls (none is 0: each is at least 1e-4 in size), and the
    # offsets 0 .. L - 1 of the figure have L - 1 steps between neighbours.
    falls = sum(int(v < 0) for v in steps)
    every_step = rec.exact(
        "the rises and the falls of B together are the L - 1 steps between the figure's L offsets",
        rises + falls,
        LENGTH - 1,
        scope=f"d = 128, base 10000, L = {LENGTH} offsets r = 0 .. {LENGTH - 1}; "
        "signs of the steps, counted",
    )
    rec.quantity("steps", LENGTH - 1, show=Show(), by=every_step)
    # On average over long ranges: |S_j|^2 = j + 2 sum_(t<u) cos(r (w_t - w_u)), and
    # the mean of e^(i r phi) over r = 0..R-1 is (1 - e^(i R phi)) / (R (1 - e^(i phi))),
    # which tends to 0 when phi is not a multiple of 2 pi (here 0 < |w_t - w_u| < 1).
    # So the mean of |S_j|^2 tends to j, the mean of |S_j| is at most sqrt(j) in the
    # limit (Cauchy-Schwarz), and that of B at most (1/N) sum_j sqrt(j).
    rec.instances(
        "|S_j(x)|^2 = j + 2 sum_(t<u) cos(x (w_t - w_u))",
        ((f"j = {count}", _mean_square_difference(count)) for count in range(2, 7)),
        scope="j = 2 .. 6; symbolic offset x and speeds w_0 .. w_(j-1)",
    )
    ratio, top = sp.Symbol("z"), sp.Symbol("R", integer=True, positive=True)
    index = sp.Symbol("r", integer=True, nonnegative=True)
    rec.identity(
        "(1 - z) sum_(r=0..R-1) z^r = 1 - z^R (the geometric sum)",
        (1 - ratio) * sp.Sum(ratio**index, (index, 0, top - 1)) - (1 - ratio**top),
        scope="every R >= 1 and every z (the unit vector e^(i phi) in the argument)",
    )
    with mpmath.workdps(30):
        limit = mpmath.fsum(mpmath.sqrt(v) for v in range(1, PAIRS + 1)) / PAIRS
    rec.band(
        "(1/64) sum_(j=1..64) sqrt(j), the long-run ceiling of the mean of B",
        float(limit),
        low=Fraction(539, 100),
        high=Fraction(540, 100),
        samples=1,
        scope="N = 64, mpmath at 30 digits",
        quantity="longrun_ceiling",
        show=Show(sig=3),
    )
    far = float_bound(np.arange(FAR + 1), WIDTH)  # (FAR + 1,)
    rec.exact(
        "the far range's float64 B was computed at every offset r = 0 .. 10^5",
        far.size,
        FAR + 1,
        scope="d = 128, base 10000; the values of B from float_bound, counted",
    )
    rec.close(
        "the far range's float64 B at r = 0, 5 * 10^4 and 10^5 equals B at 30 digits",
        [far[0], far[FAR // 2], far[FAR]],
        mp_bound([0, FAR // 2, FAR], WIDTH),
        tol=1e-10,
        scope="d = 128, base 10000; float64 from correctly rounded speeds against mpmath",
    )
    rec.band(
        "mean of B(r) over r = 0 .. 10^5",
        float(far.mean()),
        low=Fraction(47, 10),
        high=Fraction(48, 10),
        samples=far.size,
        scope="d = 128, base 10000; float64 from correctly rounded speeds",
        quantity="mean_far",
        show=Show(sig=3),
    )

    # Step 7. What does not decay. With q = (1, ..., 1) and k = R_s q, the score of a
    # query at n + s and a key at n is <R_(n+s) q, R_n R_s q> = |R_(n+s) q|^2 = |q|^2:
    # R_n R_s = R_(n+s) and turns keep lengths (Proposition 12). By Cauchy-Schwarz no
    # offset scores more than |q| |k| = |q|^2.
    rec.instances(
        "k = R_s q: the query at n + s and the key at n score |q|^2",
        (
            (
                f"d = {d}",
                (
                    score(vector("q", d), rotation(s, d) * vector("q", d), d, n + s, n)
                    - (vector("q", d).T * vector("q", d))[0, 0]
                ).rewrite(sp.exp),
            )
            for d in WIDTHS
        ),
        scope="d = 2, 4, ..., 16; symbolic q, n, s and base",
    )
    ones_drawn, aligned_drawn = figure._scores(offsets, WIDTH, float(BASE), PEAK)  # (L,) each
    errors = []
    with mpmath.workdps(50):
        speeds50 = mp_speeds(WIDTH, 50)
        closed_ones = [2 * mpmath.fsum(mpmath.cos(r * v) for v in speeds50) for r in offsets]
        closed = [2 * mpmath.fsum(mpmath.cos((PEAK - r) * v) for v in speeds50) for r in offsets]
        errors += [float(g - e / WIDTH) for g, e in zip(ones_drawn, closed_ones, strict=True)]
        errors += [float(g - e / WIDTH) for g, e in zip(aligned_drawn, closed, strict=True)]
    rec.numeric(
        "the figure's scores (posenc.rotary) are 2 sum_t cos(r w_t)/d and "
        "2 sum_t cos((400 - r) w_t)/d",
        errors,
        tol=1e-13,
        scope="d = 128, base 10000, r = 0 .. 511, k = q and k = R_400 q; mpmath at 50 digits",
    )
    rec.numeric(
        "posenc: the turned key's score at r = 400 is |q|^2 = 128 (over |q| |k|: 1)",
        [float(aligned_drawn[PEAK]) - 1.0],
        tol=1e-14,
        scope="d = 128, base 10000, q = (1, ..., 1), k = R_400 q",
    )
    enclose_pi(rec)
    # cos 400 < 0: 400 lies between (2k + 1/2) pi and (2k + 3/2) pi, an interval of
    # length pi on which cos is negative. Each end is compared with 400/pi in exact
    # rationals: 400/PI_HIGH < 400/pi < 400/PI_LOW. Both ends are then compared with
    # 400/pi at 30 digits: a one-sided comparison alone holds for too large a number.
    k_turns = math.floor((PEAK / math.pi - 0.5) / 2)
    fraction = Show(style="fraction")
    left_end, right_end = Fraction(PEAK) / PI_HIGH, Fraction(PEAK) / PI_LOW
    rec.exact(
        f"cos 400 < 0, left end: 400/pi > {2 * k_turns} + 1/2 (400/PI_HIGH is below 400/pi)",
        left_end,
        2 * k_turns + Fraction(1, 2),
        relation=">",
        scope="exact rationals, from PI_LOW < pi < PI_HIGH",
    )
    rec.quantity("turns_low", 2 * k_turns + Fraction(1, 2), show=fraction, by=rec.checks[-1])
    rec.exact(
        f"cos 400 < 0, right end: 400/pi < {2 * k_turns} + 3/2 (400/PI_LOW is above 400/pi)",
        right_end,
        2 * k_turns + Fraction(3, 2),
        relation="<",
        scope="exact rationals, from PI_LOW < pi < PI_HIGH",
    )
    rec.quantity("turns_high", 2 * k_turns + Fraction(3, 2), show=fraction, by=rec.checks[-1])
    with mpmath.workdps(30):
        turns = mpmath.mpf(PEAK) / mpmath.pi
    rec.close(
        "400/PI_HIGH and 400/PI_LOW are 400/pi to within 10^-15",
        [left_end, right_end],
        [turns, turns],
        tol=1e-15,
        scope="exact rationals against mpmath at 30 digits",
    )
    # Hence s(0) = 2 sum_t cos(400 w_t) <= 2 (N - 1) + 2 cos 400 < 2 (N - 1) < |q|^2.
    with mpmath.workdps(50):
        at_zero = closed[0]
    rec.band(
        "k = R_400 q: the score at r = 0 is 2 sum_t cos(400 w_t)",
        float(at_zero),
        low=Fraction(356, 10),
        high=Fraction(357, 10),
        samples=1,
        scope="d = 128, base 10000; mpmath at 50 digits",
        quantity="aligned_at_zero",
        show=Show(sig=3),
    )
    rec.band(
        "k = R_400 q: the score at r = 400 over the score at r = 0",
        float(WIDTH / at_zero),
        low=Fraction(355, 100),
        high=Fraction(365, 100),
        samples=1,
        scope="d = 128, base 10000; mpmath at 50 digits",
        quantity="peak_ratio",
        show=Show(sig=2),
    )

    # Step 8. The simplest pair, q = k = (1, ..., 1): h_t = (1 + i)(1 - i) = 2 for every
    # t, so the only nonzero difference is the boundary one, h_N - h_(N-1) = -2. The
    # bound is 2 N B(r), and it exceeds |q| |k| = 2N wherever B(r) > 1.
    coefficients = [sp.expand((1 + sp.I) * (1 - sp.I))] * PAIRS + [sp.Integer(0)]
    rec.exact(
        "q = k = (1, ..., 1): max_j |h_j - h_(j-1)| = |h_N - h_(N-1)| = 2",
        max(abs(coefficients[j_] - coefficients[j_ - 1]) for j_ in range(1, PAIRS + 1)),
        2,
        scope="d = 128, exact Gaussian integers, h_N = 0",
    )
    rec.band(
        "the smallest B(r) over r = 0 .. 10^5 (B is even, so over |r| <= 10^5)",
        float(far.min()),
        low=Fraction(117, 100),
        high=Fraction(119, 100),
        samples=far.size,
        scope="d = 128, base 10000; float64 from correctly rounded speeds "
        "(rounding below 1e-10, the band's width 1e-2)",
        quantity="far_minimum",
        show=Show(sig=2),
    )

    # Step 9. The values are not turned. A head's output at positions p is
    # softmax(<R q_i, R k_j> / sqrt(d)) v with the values as they are; the weights
    # depend only on offsets (Proposition 12), so moving every position by c leaves
    # the output unchanged.
    d, count = 8, 6
    q, k, v = rng.normal(size=(3, count, d))  # (L, d) each
    where = np.arange(count) * 3  # (L,)

    def head(p: np.ndarray) -> np.ndarray:
        scores = rotary(q, p) @ rotary(k, p).T / math.sqrt(d)  # (L, L)
        return softmax(scores) @ v  # (L, d)

    errors = [head(where + c) - head(where) for c in (1, 17, 1000, 10**6)]
    rec.numeric(
        "posenc: rotary on q and k only, values untouched: the output is unchanged when "
        "every position moves by c",
        np.concatenate([e.ravel() for e in errors]),
        tol=1e-12,
        scope="d = 8, 6 tokens at 0, 3, ..., 15, normal q, k, v; c = 1, 17, 1000, 10^6",
    )

    # Step 10. The page's "Check yourself": d = 2, q = k = (1, 0). Then h_0 = 1 and
    # h_1 = 0, so the bound is |S_1| = 1 at every offset, and the score is cos r.
    # The page shows these two scores: each is compared, as shown, with cos r.
    one = np.array([[1.0, 0.0]])  # (1, 2)
    worked = {r: float(rotary(one, [r])[0] @ one[0]) for r in (3, 6)}
    with mpmath.workdps(30):
        cosines = {r: mpmath.cos(r) for r in (3, 6)}
    rec.close(
        "d = 2, q = k = (1, 0): posenc.rotary's score at r = 3 is cos 3",
        worked[3],
        cosines[3],
        tol=1e-15,
        scope="d = 2, base 10000 (w_0 = 1); against mpmath at 30 digits",
        quantity="cos_three",
        show=Show(sig=2),
    )
    rec.close(
        "d = 2, q = k = (1, 0): posenc.rotary's score at r = 6 is cos 6",
        worked[6],
        cosines[6],
        tol=1e-15,
        scope="d = 2, base 10000 (w_0 = 1); against mpmath at 30 digits",
        quantity="cos_six",
        show=Show(sig=2),
    )


def _mean_square_difference(count: int) -> sp.Expr:
    """|S_j|^2 - (j + 2 sum_(t<u) cos(x (w_t - w_u))), written with exponentials."""
    speeds = sp.symbols(f"w_0:{count}", positive=True)
    partial = sp.Add(*(sp.exp(sp.I * x * v) for v in speeds))
    conjugate = sp.Add(*(sp.exp(-sp.I * x * v) for v in speeds))
    cross = sp.Add(
        *(sp.cos(x * (speeds[a] - speeds[b])) for a in range(count) for b in range(a + 1, count))
    )
    return (partial * conjugate - (count + 2 * cross)).rewrite(sp.exp)


# -- misreadings -------------------------------------------------------------------


def _decays_with_distance(wit: Witness) -> None:
    # "RoPE makes attention decay with distance": then a key 400 positions back
    # could not outscore a key at the query's own position. With q = (1, ..., 1)
    # and k = R_400 q it does: s(400) = |q|^2 = 128 (every pair keeps its length),
    # while s(0) = 2 sum_t cos(400 w_t) <= 2 * 63 + 2 cos 400 < 126, since
    # cos 400 < 0.
    a, x_a, x_b = sp.symbols("a x_a x_b", real=True)
    one_pair = turn(a) * sp.Matrix([x_a, x_b])
    keeps_length = reduce_to_zero(sp.expand(one_pair.dot(one_pair)) - x_a**2 - x_b**2)
    peak = PAIRS * 2  # |q|^2: 64 pairs of length^2 2
    ceiling = 2 * (PAIRS - 1)  # s(0) < 2 (N - 1) because cos 400 < 0
    # s(0) itself, at 50 digits, against the ceiling it is said to be under; |q|^2 = d.
    with mpmath.workdps(50):
        at_zero = 2 * mpmath.fsum(mpmath.cos(PEAK * v) for v in mp_speeds(WIDTH, 50))
        under = at_zero <= ceiling + 2 * mpmath.cos(PEAK)
    # The s(0) the witness shows, against posenc's score of q and R_400 q at one position.
    ones = np.ones((1, WIDTH))  # (1, d)
    scored = float(rotary(ones, [0])[0] @ rotary(ones, [PEAK])[0])
    if abs(float(at_zero) - scored) > 1e-10:
        raise ValueError(f"s(0) = {at_zero}, but posenc.rotary scores {scored}")
    wit.exact(
        keeps_length is not None
        and cosine_is_negative(PEAK)
        and under
        and ceiling < peak
        and peak == WIDTH,
        at=f"d = 128, base 10000, q = (1, ..., 1), k = R_400 q: s(400) = |q|^2 = {peak}, "
        f"while s(0) = {mpmath.nstr(at_zero, 3)} <= {ceiling} + 2 cos 400 < {ceiling} "
        "(s(0) at 50 digits; cos 400 < 0, decided with rationals around pi); the key 400 "
        "back beats the key at distance 0 by more than 2",
    )


def _values_turned_too(wit: Witness) -> None:
    # "RoPE multiplies the key and the value": then turning the values by their
    # positions would change nothing. Two tokens at positions 0 and 1, d = 2
    # (w_0 = 1), q = 0 so both weights are 1/2, and v = (1, 0) for both: RoPE's
    # output is (1, 0); with the values turned it is ((1 + cos 1)/2, (sin 1)/2).
    value = sp.Matrix([1, 0])
    half = sp.Rational(1, 2)
    rope = half * value + half * value
    turned = half * turn(0) * value + half * turn(1) * value
    # Each output is the closed form above, and the turned one is also what posenc's
    # rotary makes of the two values (d = 2, base 10000, so w_0 = 1), to 1e-15.
    closed = sp.Matrix([(1 + sp.cos(1)) / 2, sp.sin(1) / 2])
    if rope != sp.Matrix([1, 0]) or sp.expand(turned - closed) != sp.zeros(2, 1):
        raise ValueError(f"not (1, 0) and ((1 + cos 1)/2, (sin 1)/2): {rope}, {turned}")
    library = rotary(np.array([[1.0, 0.0], [1.0, 0.0]]), [0, 1]).mean(axis=0)  # (2,)
    if max(abs(float(a - b)) for a, b in zip(library, sp.N(turned, 30), strict=True)) > 1e-15:
        raise ValueError(f"posenc.rotary turns the values to {library}, not {turned}")
    wit.differs(
        rope,
        turned,
        at="d = 2, tokens at 0 and 1, q = 0 (weights 1/2 each), v = (1, 0) for both: "
        "output of query 0 with the values as they are against the values turned",
        margin=sp.Rational(1, 4),
        by="a quarter of the values' length 1",
    )


def _boundary_term_dropped(wit: Witness) -> None:
    # "Abel summation needs no boundary term": sum_(t<N) h_t z_t = -sum_(j<N) S_j
    # (h_j - h_(j-1)) with the last difference, h_N - h_(N-1) = -h_(N-1), left out.
    # For q = k = (1, ..., 1), every h_t is 2, so the right side is 0; at r = 0
    # (every z_t = 1) the left side is 2N = 128.
    h = [sp.expand((1 + sp.I) * (1 - sp.I))] * PAIRS  # h_t = q_t conj(k_t) = 2
    partial = list(range(PAIRS + 1))  # S_j(0) = j
    left = sp.Add(*h)  # sum_t h_t e^(i 0 w_t)
    right = -sp.Add(*(partial[j] * (h[j] - h[j - 1]) for j in range(1, PAIRS)))
    # The closed forms: h is constant, so every h_j - h_(j-1) with j < N is 0 and the
    # right side is 0, while the left side is |q|^2 = d, as posenc scores it at r = 0.
    ones = np.ones((1, WIDTH))  # (1, d)
    scored = float(rotary(ones, [5])[0] @ rotary(ones, [5])[0])
    if left != WIDTH or right != 0 or abs(scored - WIDTH) > 1e-12:
        raise ValueError(f"not {WIDTH} (posenc: {scored}) and 0: {left}, {right}")
    wit.differs(
        left,
        right,
        at="d = 128, q = k = (1, ..., 1), r = 0: sum_t h_t against the sum without "
        "the term of h_N - h_(N-1)",
        margin=0,
        by="exact integers, against a claim of exact equality",
    )


MISREADINGS = [
    Misreading(
        "RoPE makes attention decay with distance: the farther a key, the lower its score",
        _decays_with_distance,
        why="Only RoFormer's bound falls, and only on average. A query and key can place "
        "their largest score at any offset: with k = R_s q the score is |q|^2 at r = s.",
    ),
    Misreading(
        "RoPE multiplies the key and the value by the rotation",
        _values_turned_too,
        why="RoFormer turns the query and the key, whose dot product makes the weights; "
        "the values are mixed as they are. Turning them too changes the output.",
    ),
    Misreading(
        "Abel summation needs no boundary term: "
        "sum_t h_t e^(i r w_t) = -sum_(j<N) S_j (h_j - h_(j-1))",
        _boundary_term_dropped,
        why="The convention h_N = 0 keeps the last difference -h_(N-1) in the sum; "
        "without it the identity is false, already for q = k = (1, ..., 1) at r = 0.",
    ),
]
