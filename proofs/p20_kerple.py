"""Proposition 20 (KERPLE: distance kernels as biases).

KERPLE adds k(m - n) to the score of query m and key n. The power kernel is
k(d) = -r1 |d|^r2 (r1 > 0, 0 < r2 <= 2), the log kernel k(d) = -r1 ln(1 + r2 |d|)
(r1, r2 > 0). ALiBi's bias -m_h (i - j), j <= i, is the power kernel with r1 = m_h
and r2 = 1.

A kernel k is conditionally positive definite (CPD) if sum_ij c_i c_j k(x_i - x_j)
>= 0 for all points x_1..x_N and real c with sum c_i = 0. Proven here:

- for all real a, c: sum_ij c_i c_j (a_i - a_j)^2 = 2 (sum c)(sum c a^2) - 2 (sum c a)^2,
  so with sum c = 0 the form of -|x - y|^2 is 2 (sum c_i x_i)^2 >= 0 (r2 = 2);
- |d + 1| + |d - 1| - 2 |d| = 2 [d = 0] on the integers, so on the points 0..N-1,
  in the basis e_k - e_(k+1) of the zero-sum vectors, the form of -|x - y| is
  2 sum_k (c_1 + ... + c_k)^2 (r2 = 1), and by embedding, scaling and continuity
  -|x - y| is CPD on the reals;
- ln(1 + b) = int_0^oo (1 - e^(-s b)) e^(-s) / s ds and det[rho^|i - j|] =
  (1 - rho^2)^(N-1), so the log kernel is CPD for every r2 > 0;
- for 0 < r2 < 2 the power kernel is CPD by Schoenberg's representation (the
  Fourier step is checked for N <= 5; the rest is evidence in floating point).

CPD is not positive definite: c = (1, 1) at the points 0, 1 gives -2 r1 < 0. The
power kernel with r2 = 3 is not CPD: c = (1, -2, 1) at 0, 1, 2 gives -8 r1. A
constant added to k changes no softmax row.

Uses: 1.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from posenc.figures import kerple as figure
from posenc.relative import alibi_bias, alibi_slopes
from proofs.kit import Misreading, Recorder, Show, Witness, reduce_to_zero

NUMBER = 20
TITLE = "KERPLE: distance kernels as biases"
USES = (1,)

# What the proposition chooses: the sizes of the symbolic families, the size of
# the exact family for r2 = 1, and the exponents and points of the numeric checks.
INPUTS = {
    "symbolic_points": 7,
    "fourier_points": 5,
    "exact_points": 40,
    "numeric_points": 16,
    "kms_size": 8,
    "eigenvalue_margin": Fraction(1, 10**6),
}
SYMBOLIC_SIZES = range(2, INPUTS["symbolic_points"] + 1)
FOURIER_SIZES = range(2, INPUTS["fourier_points"] + 1)
EXACT_SIZES = range(2, INPUTS["exact_points"] + 1)
POWER_EXPONENTS = tuple(Fraction(t, 4) for t in range(1, 8))  # 1/4, 1/2, ..., 7/4
LOG_RATES = (Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4))

# Symbols, declared once. Positions and scores are real; r1 and r2 positive; a
# distance on the integers, split into its cases d >= 1 and n <= -1; rho in (0, 1)
# for the log kernel.
u, b0 = sp.symbols("u b_0", real=True)
r1 = sp.Symbol("r_1", positive=True)
s = sp.Symbol("s", positive=True)
b = sp.Symbol("b", nonnegative=True)
d = sp.Symbol("d", integer=True, positive=True)
n = sp.Symbol("n", integer=True, negative=True)
rho = sp.Symbol("rho", positive=True)
i, k = sp.symbols("i k", integer=True, nonnegative=True)
L = sp.Symbol("L", integer=True, positive=True)
score = sp.IndexedBase("s", real=True)  # content scores s[i] of one row


def power_kernel(distance, weight, exponent):
    """k(d) = -r1 |d|^r2."""
    return -weight * sp.Abs(distance) ** exponent


def log_kernel(distance, weight, exponent):
    """k(d) = -r1 ln(1 + r2 |d|)."""
    return -weight * sp.log(1 + exponent * sp.Abs(distance))


def form(kernel, points, c):
    """sum_ij c_i c_j k(x_i - x_j), for a kernel given as a function of the distance."""
    return sum(
        ci * cj * kernel(xi - xj)
        for (xi, ci), (xj, cj) in itertools.product(zip(points, c, strict=True), repeat=2)
    )


def zero_sum(name: str, size: int) -> list[sp.Expr]:
    """c_1 .. c_(N-1) free, and c_N = -(c_1 + ... + c_(N-1)): a generic zero-sum vector."""
    free = list(sp.symbols(f"{name}_1:{size}", real=True))
    return [*free, -sum(free)]


def differences(size: int) -> list[list[int]]:
    """The basis e_k - e_(k+1), k = 1..N-1, of the zero-sum vectors in R^N (as columns)."""
    return [[(r == col) - (r == col + 1) for col in range(size - 1)] for r in range(size)]


def projected(matrix: list[list], size: int) -> list[list]:
    """B^T A B for the basis B of :func:`differences`: A on the zero-sum vectors."""
    basis = differences(size)
    return [
        [
            sum(basis[p][x] * matrix[p][q] * basis[q][y] for p in range(size) for q in range(size))
            for y in range(size - 1)
        ]
        for x in range(size - 1)
    ]


def smallest_eigenvalue(kernel, points: list) -> mpmath.mpf:
    """The smallest eigenvalue of B^T A B, A_ij = k(x_i - x_j), at 40 digits."""
    with mpmath.workdps(40):
        size = len(points)
        matrix = [[kernel(mpmath.mpf(p) - mpmath.mpf(q)) for q in points] for p in points]
        small = mpmath.matrix(projected(matrix, size))
        return min(mpmath.eigsy(small, eigvals_only=True))


def float_smallest_eigenvalue(matrix: np.ndarray) -> float:
    """The same eigenvalue in float64, with numpy and a basis built anew: a reference."""
    size = matrix.shape[0]  # matrix (N, N)
    basis = np.eye(size, size - 1) - np.eye(size, size - 1, k=-1)  # columns e_k - e_(k+1)
    return float(np.linalg.eigvalsh(basis.T @ matrix @ basis)[0])  # ascending


def checks(rec: Recorder) -> None:
    # Step 1. ALiBi is the power kernel with r2 = 1. For j <= i its bias is
    # -m_h (i - j) = -m_h |i - j|^1. The library's ALiBi bias is compared, entry by
    # entry and exactly, with the power kernel at r1 = m_h, r2 = 1.
    length = 64
    bias = alibi_bias(length, 8)  # (H, L, L)
    slopes = alibi_slopes(8)  # (H,)
    equal = 0
    for h in range(8):
        slope = sp.Rational(Fraction(float(slopes[h])))
        for row in range(length):
            for col in range(row + 1):
                wanted = power_kernel(sp.Integer(row - col), slope, 1)
                equal += sp.Rational(Fraction(float(bias[h, row, col]))) == wanted
    # Every entry on or below the diagonal: 8 heads of 64 * 65 / 2 entries.
    rec.exact(
        "posenc.alibi_bias(64, 8)[h, i, j] = -m_h |i - j|^1 for every j <= i "
        "(count of equal entries, against 8 * 64 * 65 / 2)",
        int(equal),
        8 * (length * (length + 1) // 2),
        scope="H = 8, i = 0..63, j = 0..i; exact rationals",
    )

    # Step 2. The lemma behind every case. Expanding (a_i - a_j)^2 and summing gives
    # 2 (sum c)(sum c a^2) - 2 (sum c a)^2, with no condition on c.
    def lemma(size: int) -> sp.Expr:
        c = sp.symbols(f"c_1:{size + 1}", real=True)
        a = sp.symbols(f"a_1:{size + 1}", real=True)
        lhs = sum(c[p] * c[q] * (a[p] - a[q]) ** 2 for p in range(size) for q in range(size))
        first, second = sum(c), sum(cp * ap**2 for cp, ap in zip(c, a, strict=True))
        return lhs - (
            2 * first * second - 2 * sum(cp * ap for cp, ap in zip(c, a, strict=True)) ** 2
        )

    lemma_cases = rec.instances(
        "sum_ij c_i c_j (a_i - a_j)^2 = 2 (sum c)(sum c a^2) - 2 (sum c a)^2",
        ((f"N = {size}", lemma(size)) for size in SYMBOLIC_SIZES),
        scope=f"N = 2..{INPUTS['symbolic_points']}; every c_i and a_i a real symbol",
    )

    # Hence r2 = 2: for a zero-sum c the form of -|x - y|^2 is 2 (sum c_i x_i)^2 >= 0.
    def squared(size: int) -> sp.Expr:
        c = zero_sum("c", size)
        x = sp.symbols(f"x_1:{size + 1}", real=True)
        moment = sum(cp * xp for cp, xp in zip(c, x, strict=True))
        return form(lambda t: power_kernel(t, r1, 2), x, c) - 2 * r1 * moment**2

    # The page names the largest N of both families as the input symbolic_points.
    squared_cases = rec.instances(
        "sum c = 0: sum_ij c_i c_j (-r1 |x_i - x_j|^2) = 2 r1 (sum c_i x_i)^2",
        ((f"N = {size}", squared(size)) for size in SYMBOLIC_SIZES),
        scope=f"N = 2..{INPUTS['symbolic_points']}; symbolic points x_i, r1 > 0 and zero-sum c, "
        "c_N = -(c_1 + ... + c_(N-1))",
    )
    rec.exact(
        "the two families above ran N = 2..symbolic_points each (count of cases)",
        lemma_cases.samples + squared_cases.samples,
        2 * (INPUTS["symbolic_points"] - 1),
        scope="the numbers of cases of the two instances checks",
    )

    # Step 3. r2 = 1 on the integers. The second difference of |d| is 2 at d = 0 and
    # 0 elsewhere: for d >= 1, |d + 1| + |d - 1| - 2|d| = (d + 1) + (d - 1) - 2d, and
    # |d| is even. The absolute values are built unevaluated so the kit evaluates them.
    def second_difference(t):
        return (
            sp.Abs(t + 1, evaluate=False)
            + sp.Abs(t - 1, evaluate=False)
            - 2 * sp.Abs(t, evaluate=False)
        )

    rec.identity(
        "|d + 1| + |d - 1| - 2 |d| = 0 for every integer d >= 1",
        second_difference(d),
        scope="every integer d >= 1 (and d <= -1 by symmetry)",
    )
    rec.identity(
        "|d + 1| + |d - 1| - 2 |d| = 0 for every integer d <= -1",
        second_difference(n),
        scope="every integer d <= -1 (a negative integer symbol)",
    )
    rec.exact(
        "|0 + 1| + |0 - 1| - 2 |0| = 2",
        int(second_difference(sp.Integer(0)).doit()),
        2,
        scope="d = 0",
    )
    # So the matrix of -|x - y| on 0..N-1, in the basis e_k - e_(k+1), is 2 I: the form
    # is 2 sum_k (c_1 + ... + c_k)^2. Checked by computing B^T A B in integers.
    holds = 0
    for size in EXACT_SIZES:
        matrix = [[-abs(p - q) for q in range(size)] for p in range(size)]
        twice = [[2 * (x == y) for y in range(size - 1)] for x in range(size - 1)]
        holds += projected(matrix, size) == twice
    # The page names the largest N as the input exact_points.
    rec.exact(
        "on 0..N-1, B^T [-|i - j|] B = 2 I for the basis e_k - e_(k+1) (count of the sizes "
        "N = 2..exact_points where it holds)",
        int(holds),
        INPUTS["exact_points"] - 1,
        scope=f"N = 2..{INPUTS['exact_points']}; integer arithmetic",
    )
    # The partial-sum form on scattered integer points (a set inside 0..L-1, c extended
    # by zeros), against the form computed directly: exact, on random cases.
    generator = random.Random(20)
    agree, cases = 0, 300
    for _ in range(cases):
        size = generator.randint(2, 9)
        points = sorted(generator.sample(range(-50, 50), size))
        c = [generator.randint(-9, 9) for _ in range(size - 1)]
        c.append(-sum(c))
        pairs = list(zip(points, c, strict=True))
        direct = sum(-ci * cj * abs(p - q) for p, ci in pairs for q, cj in pairs)
        # Every gap between neighbours contributes 2 (gap) (c_1 + ... + c_k)^2.
        partial = itertools.accumulate(c)
        gaps = [q - p for p, q in itertools.pairwise(points)]
        agree += direct == sum(2 * g * t * t for g, t in zip(gaps, partial, strict=False))
    rec.exact(
        "scattered integer points: the form of -|x - y| is 2 sum_k gap_k (c_1 + ... + c_k)^2 "
        "(count of agreeing cases)",
        int(agree),
        cases,
        scope="300 random cases: 2..9 distinct points in -50..49, zero-sum integer c in -9..9",
    )

    # Step 4. The log kernel. ln(1 + b) vanishes at b = 0, and its derivative is the
    # derivative of int_0^oo (1 - e^(-s b)) e^(-s)/s ds, namely int_0^oo e^(-s (1 + b)) ds.
    rec.identity(
        "int_0^oo e^(-s (1 + b)) ds = 1/(1 + b) = d/db ln(1 + b)",
        sp.Integral(sp.exp(-s * (1 + b)), (s, 0, sp.oo)) - sp.Derivative(sp.log(1 + b), b),
        scope="every b >= 0",
    )

    # With sum c = 0 the 1 drops out, and the log kernel's form is
    # r1 int_0^oo (sum_ij c_i c_j rho^|x_i - x_j|) e^(-s)/s ds, rho = e^(-s r2) in (0, 1).
    # On 0..N-1 the matrix [rho^|i - j|] has leading minors (1 - rho^2)^(k-1) > 0.
    def kms_minor(size: int) -> sp.Expr:
        matrix = sp.Matrix(size, size, lambda p, q: rho ** abs(p - q))
        return matrix.det() - (1 - rho**2) ** (size - 1)

    minors = rec.instances(
        "det [rho^|i - j|]_(i, j < N) = (1 - rho^2)^(N - 1)",
        ((f"N = {size}", kms_minor(size)) for size in range(1, INPUTS["kms_size"] + 1)),
        scope=f"N = 1..{INPUTS['kms_size']}; symbolic rho > 0",
    )
    rec.exact(
        "the determinants above ran N = 1..kms_size (count of cases)",
        minors.samples,
        INPUTS["kms_size"],
        scope="the number of cases of the instances check",
    )

    # Step 5. The power kernel for 0 < r2 < 2. Schoenberg's route writes |x|^r2 as
    # C int_0^oo (1 - cos(u x)) u^(-1 - r2) du, C > 0. The step the argument needs:
    # sum_ij c_i c_j cos(u (x_i - x_j)) = (sum c_i cos u x_i)^2 + (sum c_i sin u x_i)^2.
    def fourier(size: int) -> sp.Expr:
        c = sp.symbols(f"c_1:{size + 1}", real=True)
        x = sp.symbols(f"x_1:{size + 1}", real=True)
        lhs = sum(
            c[p] * c[q] * sp.cos(u * (x[p] - x[q])) for p in range(size) for q in range(size)
        )
        cosines = sum(cp * sp.cos(u * xp) for cp, xp in zip(c, x, strict=True))
        sines = sum(cp * sp.sin(u * xp) for cp, xp in zip(c, x, strict=True))
        return lhs - (cosines**2 + sines**2)

    expansions = rec.instances(
        "sum_ij c_i c_j cos(u (x_i - x_j)) = (sum c cos u x)^2 + (sum c sin u x)^2",
        ((f"N = {size}", fourier(size)) for size in FOURIER_SIZES),
        scope=f"N = 2..{INPUTS['fourier_points']}; symbolic c_i, x_i and u",
    )
    rec.exact(
        "the expansions above ran N = 2..fourier_points (count of cases)",
        expansions.samples,
        INPUTS["fourier_points"] - 1,
        scope="the number of cases of the instances check",
    )
    # The representation itself is not checked here. Evidence for the conclusion, in
    # floating point: on 0..15 and on 12 random real points, the smallest eigenvalue
    # of each kernel's matrix on the zero-sum vectors, at 40 digits.
    rng = np.random.default_rng(20)
    scattered = sorted(rng.uniform(0.0, 40.0, size=12).tolist())
    grid = list(range(INPUTS["numeric_points"]))
    # The reference: the same matrices in float64, built by numpy from |x_i - x_j|.
    distances = [
        np.abs(np.subtract.outer(p, p)) for p in (np.array(grid, float), np.array(scattered))
    ]
    lowest, count, values = None, 0, []
    for exponent in POWER_EXPONENTS:
        power = float(exponent)
        for points in (grid, scattered):
            value = smallest_eigenvalue(lambda t, e=power: -(abs(t) ** e), points)
            lowest = value if lowest is None else min(lowest, value)
            count += 1
            values.append(value)
    rec.close(
        "power kernel, r2 = 1/4..7/4: each smallest eigenvalue (mpmath) against numpy's eigvalsh "
        "of -|x_i - x_j|^r2 in float64",
        values,
        [float_smallest_eigenvalue(-(g ** float(e))) for e in POWER_EXPONENTS for g in distances],
        tol=1e-9,
        scope="the 14 matrices of the next check: 7 exponents on points 0..15 and on the 12 "
        "random points; mpmath eigsy at 40 digits against numpy float64",
    )
    margin = INPUTS["eigenvalue_margin"]
    rec.band(
        "power kernel, r2 = 1/4..7/4: every B^T A B in the basis e_k - e_(k+1) of the "
        "zero-sum vectors has eigenvalues above 1e-6 (only their sign speaks of the kernel)",
        float(lowest),
        low=margin,
        high=10**6,
        samples=count,
        scope=f"r2 = 1/4, 1/2, ..., 7/4 and r1 = 1; points 0..{INPUTS['numeric_points'] - 1} "
        "and 12 uniform points in [0, 40]; mpmath eigsy at 40 digits",
        quantity="power_smallest_eigenvalue",
        show=Show(sig=2),
    )
    lowest, count, values = None, 0, []
    for speed in LOG_RATES:
        slope = float(speed)
        for points in (grid, scattered):
            value = smallest_eigenvalue(lambda t, g=slope: -mpmath.log(1 + g * abs(t)), points)
            lowest = value if lowest is None else min(lowest, value)
            count += 1
            values.append(value)
    rec.close(
        "log kernel, r2 = 1/4..4: each smallest eigenvalue (mpmath) against numpy's eigvalsh "
        "of -ln(1 + r2 |x_i - x_j|) in float64",
        values,
        [float_smallest_eigenvalue(-np.log1p(float(r) * g)) for r in LOG_RATES for g in distances],
        tol=1e-9,
        scope="the 10 matrices of the next check: 5 rates on points 0..15 and on the 12 "
        "random points; mpmath eigsy at 40 digits against numpy float64",
    )
    rec.band(
        "log kernel, r2 = 1/4..4: every B^T A B in the basis e_k - e_(k+1) of the zero-sum "
        "vectors has eigenvalues above 1e-6 (only their sign speaks of the kernel)",
        float(lowest),
        low=margin,
        high=10**6,
        samples=count,
        scope="r2 = 1/4, 1/2, 1, 2, 4 and r1 = 1; the same points; mpmath eigsy at 40 digits",
        quantity="log_smallest_eigenvalue",
        show=Show(sig=2),
    )

    # Step 6. A constant added to the kernel changes no softmax row: e^(s_k + c) has
    # the factor e^c, which leaves the fraction.
    def weight(shift):
        return sp.exp(score[i] + shift) / sp.Sum(sp.exp(score[k] + shift), (k, 0, L))

    rec.identity(
        "softmax of the scores s_k + k(m - n_k) + c equals that of s_k + k(m - n_k)",
        weight(b0) - weight(0),
        scope="every row length L + 1 >= 2, key i, real scores (bias included) and constant c",
    )

    # Step 7. The numbers of the page: the witnesses, exactly. (a) Not positive
    # definite: c = (1, 1) at 0, 1 (sum c = 2) gives 2 k(0) + 2 k(1) = -2 r1.
    one = form(lambda t: power_kernel(t, 1, 1), [0, 1], [1, 1])
    rec.exact(
        "power kernel r1 = 1, r2 = 1, points 0, 1, c = (1, 1): the form is -2",
        one,
        -2,
        scope="exact integers",
        quantity="not_pd_form",
    )
    log_one = form(lambda t: log_kernel(t, 1, 1), [0, 1], [1, 1])
    rec.exact(
        "log kernel r1 = r2 = 1, points 0, 1, c = (1, 1): the form -2 ln 2 < 0",
        int(sp.simplify(log_one + 2 * sp.log(2)) == 0),
        1,
        scope="exact symbolic value",
    )
    # (b) r2 = 3 is not CPD: c = (1, -2, 1) at 0, 1, 2 gives -8 r1.
    cube = form(lambda t: power_kernel(t, 1, 3), [0, 1, 2], [1, -2, 1])
    rec.exact(
        "power kernel r1 = 1, r2 = 3, points 0, 1, 2, c = (1, -2, 1): the form is -8",
        cube,
        -8,
        scope="exact integers",
        quantity="cube_form",
    )
    # (c) r2 = 2 is CPD but not strictly: the same c has sum c_i x_i = 0, form 0.
    flat = form(lambda t: power_kernel(t, 1, 2), [0, 1, 2], [1, -2, 1])
    rec.exact(
        "power kernel r2 = 2, points 0, 1, 2, c = (1, -2, 1): the form is 0",
        flat,
        0,
        scope="exact integers",
        quantity="flat_form",
    )
    # Check yourself: r2 = 1 and the same c: 2 ((1)^2 + (1 - 2)^2) = 4.
    rec.exact(
        "power kernel r1 = r2 = 1, points 0, 1, 2, c = (1, -2, 1): the form is 4",
        form(lambda t: power_kernel(t, 1, 1), [0, 1, 2], [1, -2, 1]),
        4,
        scope="exact integers; the partial sums are 1 and -1",
        quantity="check_form",
    )

    # Step 8. The figure draws what is proven: its kernels against mpmath.
    where = np.linspace(0.0, 16.0, 129)  # (129,)
    errors = []
    with mpmath.workdps(30):
        for exponent in figure.POWERS:
            got = figure._power_kernel(where, 1.5, exponent)  # (129,)
            errors += [
                float(g + mpmath.mpf(1.5) * mpmath.mpf(t) ** exponent)
                for g, t in zip(got, where, strict=True)
            ]
        for speed in figure.LOGS:
            got = figure._log_kernel(where, 1.5, speed)  # (129,)
            errors += [
                float(g + mpmath.mpf(1.5) * mpmath.log(1 + speed * mpmath.mpf(t)))
                for g, t in zip(got, where, strict=True)
            ]
    rec.numeric(
        "posenc.figures.kerple's power and log kernels equal the formulas",
        errors,
        tol=1e-12,
        samples=len(where) * (len(figure.POWERS) + len(figure.LOGS)),
        scope="r1 = 1.5, the figure's r2 values, 129 distances in [0, 16]; mpmath at 30 digits",
    )


# -- misreadings -------------------------------------------------------------------


def _positive_definite(wit: Witness) -> None:
    # "The bias matrix [k(x_i - x_j)] is positive definite." For c = (1, 1), which
    # does not sum to 0, the form is -2 r1 < 0.
    value = form(lambda t: power_kernel(t, 1, 1), [0, 1], [1, 1])
    wit.exact(value < 0, at=f"power kernel r1 = r2 = 1, points 0, 1, c = (1, 1): form {value}")


def _every_power(wit: Witness) -> None:
    # "-r1 |x - y|^r2 is CPD for every r2 > 0." At r2 = 3 a zero-sum c gives -8.
    c = [1, -2, 1]
    if sum(c) != 0:  # the claim is about zero-sum c only
        raise ValueError(f"c = {c} does not sum to 0")
    value = form(lambda t: power_kernel(t, 1, 3), [0, 1, 2], c)
    wit.exact(
        value < 0, at=f"r2 = 3, r1 = 1, points 0, 1, 2, zero-sum c = (1, -2, 1): form {value}"
    )


def _strict(wit: Witness) -> None:
    # "For r2 = 2 the form is positive for every nonzero zero-sum c." It is 0 at
    # c = (1, -2, 1) on 0, 1, 2, because sum c_i x_i = 0.
    value = form(lambda t: power_kernel(t, 1, 2), [0, 1, 2], [1, -2, 1])
    wit.exact(value == 0, at=f"r2 = 2, r1 = 1, points 0, 1, 2, c = (1, -2, 1): form {value}")


def _constant_matters(wit: Witness) -> None:
    # "Adding a constant r0 to the kernel changes the attention." The difference of
    # the weights reduces to 0 for every row, key, score and constant.
    def weight(shift):
        return sp.exp(score[i] + shift) / sp.Sum(sp.exp(score[k] + shift), (k, 0, L))

    wit.exact(
        reduce_to_zero(weight(b0) - weight(0)) is not None,
        at="every row, key, content score and constant: the difference of the weights "
        "reduces to 0",
    )


MISREADINGS = [
    Misreading(
        "KERPLE's bias matrix [k(m - n)] is positive definite",
        _positive_definite,
        why="CPD asks for a non-negative form only when sum c = 0; with c = (1, 1) the form "
        "is -2 r1, since k(0) = 0 and k(1) = -r1.",
    ),
    Misreading(
        "-r1 |m - n|^r2 is conditionally positive definite for every exponent r2 > 0",
        _every_power,
        why="Only 0 < r2 <= 2 works: at r2 = 3 the zero-sum c = (1, -2, 1) on 0, 1, 2 gives "
        "-8 r1.",
    ),
    Misreading(
        "For r2 = 2 the form is positive for every nonzero zero-sum c (strictly CPD)",
        _strict,
        why="The form is 2 r1 (sum c_i x_i)^2, which is 0 whenever c is orthogonal to the "
        "points as well as to the constants.",
    ),
    Misreading(
        "Adding a constant to the kernel changes the attention weights",
        _constant_matters,
        why="The constant is added to every score of a row, and softmax cancels it.",
    ),
]
