"""Proposition 13 (library conventions are the same ladder in other clothes).

Let d be the width and h = d // 2. The concatenated layout (all sines, then all
cosines) is the interleaved layout of the 2017 paper with its columns permuted by
the fixed permutation sigma(i) = 2i on the sine block, sigma(h + i) = 2i + 1 on
the cosine block; for odd d the same rule gives the ceil(d/2)/floor(d/2) split
of Marian. The exponent i/(h-1) (tensor2tensor, fairseq, Whisper) instead of 2i/d
stretches the ladder so that it runs from 2*pi to exactly 2*pi*b, b the largest
timescale; tensor2tensor's min_timescale multiplies the frequencies, which is
right only for min_timescale = 1. A permutation matrix is orthogonal, so dot
products between codes do not depend on the layout; but a table added to learned
embeddings meets each coordinate's own weights, so the two layouts give a trained
model different inputs and checkpoints do not transfer.

The libraries themselves are not run here (make conformance runs them, and
its record is the page's table "Checked against the real libraries").
posenc.conventions.table gives each library's formula, every entry rounded once
to the library's output type (path="exact", the default), or the library's
operations in NumPy (path="emulated"). The proof compares both with the
formulas, written out again in this script and evaluated at 30 digits: the
exact path within half a unit in the last place of the output type, the
emulated path within the rounding that the library's precision explains.

Uses: 5, 6, 9.
"""

from __future__ import annotations

import inspect

import mpmath
import numpy as np
import sympy as sp

from posenc import conventions
from posenc.figures import conventions as conventions_figure
from proofs.exact import minus, product
from proofs.kit import Misreading, Recorder, Show, Witness, substitute
from proofs.numbers import render

NUMBER = 13
TITLE = "Library conventions are the same ladder in other clothes"
USES = (5, 6, 9)

# The numbers this proposition chooses: the base of every library's default
# (max_timescale, max_wavelength), the width and length of the figure's
# table (posenc.figures.conventions draws width 8, positions 0..23), and the
# widest code of each family of symbolic checks: the rows and Pi^T Pi = I
# (widths 1 .. rows_max_width), the dot products and the embedding identity
# (even widths 2 .. dots_max_width and 2 .. embedding_max_width).
INPUTS = {
    "base": 10000,
    "figure_width": 8,
    "figure_positions": 24,
    "rows_max_width": 10,
    "dots_max_width": 8,
    "embedding_max_width": 6,
}
ROW_WIDTHS = range(1, INPUTS["rows_max_width"] + 1)
DOT_WIDTHS = range(2, INPUTS["dots_max_width"] + 1, 2)
EMBEDDING_WIDTHS = range(2, INPUTS["embedding_max_width"] + 1, 2)

# Symbols, declared once. Positions are real; the base (largest timescale) b and
# tensor2tensor's smallest timescale m are positive; h is the number of pairs and
# n = h - 1 >= 1 the number of steps of an (h-1) ladder (h >= 2 there).
pos, q = sp.symbols("pos q", real=True)
b, m = sp.symbols("b m", positive=True)
h = sp.Symbol("h", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
k, i = sp.symbols("k i", integer=True, nonnegative=True)
a, c = sp.symbols("a c", real=True)  # two angles
w = sp.Function("w")  # w(k): the angular speed of pair k, any positive numbers


def interleaved_column(j: sp.Expr, p: sp.Expr) -> sp.Expr:
    """Column j of the paper's layout, as a function of the index j.

    Column j holds pair floor(j/2), as a sine if j is even and a cosine if j is
    odd. The floor and the parity are left unevaluated, so that putting j = 2k
    or j = 2k + 1 leaves the integer arithmetic (floor(k + 1/2) = k, (2k + 1)
    mod 2 = 1) for the kit to do.
    """
    parity = sp.Mod(j, 2, evaluate=False)
    pair = sp.floor(sp.Mul(j, sp.Rational(1, 2), evaluate=False), evaluate=False)
    return (1 - parity) * sp.sin(p * w(pair)) + parity * sp.cos(p * w(pair))


def sigma(column: int, width: int) -> int:
    """Interleaved column that column ``column`` of the concatenated layout holds."""
    sines = (width + 1) // 2  # ceil(d/2) sines; floor(d/2) cosines
    return 2 * column if column < sines else 2 * (column - sines) + 1


def _sigma_list(width: int) -> list[int]:
    return [sigma(col, width) for col in range(width)]


def permutation_matrix(width: int) -> sp.Matrix:
    """P with (P x)[k] = x[sigma(k)]: P times an interleaved row is the concatenated row."""
    return sp.Matrix(width, width, lambda r, c: 1 if c == sigma(r, width) else 0)


def speeds(width: int) -> list[sp.Symbol]:
    """Generic positive speeds w_0, w_1, ...: the layout does not care what they are."""
    return list(sp.symbols(f"w0:{(width + 1) // 2}", positive=True))


def interleaved(p: sp.Expr, width: int) -> sp.Matrix:
    """The paper's layout: column j holds sin (j even) or cos (j odd) of p * w_(j//2)."""
    ws = speeds(width)
    return sp.Matrix([(sp.sin if j % 2 == 0 else sp.cos)(p * ws[j // 2]) for j in range(width)])


def concatenated(p: sp.Expr, width: int) -> sp.Matrix:
    """All sines first, then all cosines, written from that definition alone."""
    ws = speeds(width)
    sines = [sp.sin(p * ws[t]) for t in range((width + 1) // 2)]
    cosines = [sp.cos(p * ws[t]) for t in range(width // 2)]
    return sp.Matrix(sines + cosines)


def closed_form(p: sp.Expr, other: sp.Expr, width: int) -> sp.Expr:
    """sum_t cos((p - q) w_t): the dot product of two codes (Proposition 9)."""
    return sum(sp.cos((p - other) * speed) for speed in speeds(width)[: width // 2])


# The exponents of the two ladders, for pair i of h = n + 1 pairs.
paper_exponent = i / (n + 1)  # 2i/d with d = 2h
stretched_exponent = i / n  # i/(h-1)


def library_formula(name: str, width: int) -> list[tuple[str, sp.Expr]]:
    """(function, exact speed) of every column, as the library's formula states it."""
    base = sp.Integer(INPUTS["base"])
    half = width // 2
    if name in ("tensor2tensor", "fairseq", "whisper"):
        # No pair at width 1 (h = 0): only the zero column.
        rates = [base ** (-sp.Rational(t, max(half - 1, 1))) for t in range(half)]
        zero = [("zero", sp.Integer(0))] * (width % 2)
        return [("sin", r) for r in rates] + [("cos", r) for r in rates] + zero
    rates = [base ** (-sp.Rational(2 * (j // 2), width)) for j in range(width)]
    row = [("sin" if j % 2 == 0 else "cos", rates[j]) for j in range(width)]
    if name == "marian":
        return [row[sigma(c, width)] for c in range(width)]
    return row


# Tolerances of the emulated path, for positions below 50 and widths up to 9 (see Step 8).
EPS32 = 2.0**-24
PATHS = ("exact", "emulated")  # posenc.conventions.table's two paths
TOLERANCE = {
    "paper": 4e-16,
    "xlm": 2.0**-25 + 1e-15,
    "marian": 2.0**-25 + 1e-15,
    "pytorch-tutorial": 50 * 16 * EPS32,
    "tensor2tensor": 50 * 16 * EPS32,
    "fairseq": 50 * 16 * EPS32,
    "whisper": 50 * 16 * EPS32,
    "keras-hub": 50 * 16 * EPS32,
}
PRECISION = {
    "paper": "posenc.sinusoidal, float64",
    "xlm": "float64, rounded once to float32",
    "marian": "float64, rounded once to float32",
}
# The exact path: half a unit in the last place of float32, plus what the float64
# values it rounds may carry (below 4e-16 relative, about 7e-9 float32 ulp).
HALF_ULP = 0.5 + 2.0**-26
# The widths Step 8 looks at: width 1 where the library computes it (a zero column
# for tensor2tensor and fairseq, sin(pos) for the tutorial and the extra-sine
# conventions), an even and an odd width where it takes odd ones.
WIDTHS = {"paper": (8,), "whisper": (8,), "pytorch-tutorial": (1, 8)}


def checks(rec: Recorder) -> None:
    # Step 1. The index map, for every width at once. Concatenated column k
    # (k < h) holds sin(pos w_k); sigma sends it to interleaved column 2k,
    # which holds the sine of pair floor(2k/2) = k. Concatenated column h + k
    # holds cos(pos w_k); sigma sends it to column 2((h + k) - h) + 1 = 2k + 1,
    # the cosine of pair floor((2k + 1)/2) = k. The floor and the parity are
    # evaluated by the kit, for a symbolic integer k.
    rec.identity(
        "interleaved column sigma(i) = 2i holds sin(pos w_i), concatenated column i",
        interleaved_column(2 * k, pos) - sp.sin(pos * w(k)),
        scope="every integer pair index k >= 0, every speed function w, real pos",
    )
    source = 2 * ((h + k) - h) + 1
    rec.identity(
        "interleaved column sigma(h + i) = 2i + 1 holds cos(pos w_i), concatenated column h + i",
        interleaved_column(source, pos) - sp.cos(pos * w(k)),
        scope="every integer k >= 0 and h >= 1, every speed function w, real pos",
    )

    # Step 2. Whole rows, written from each layout's own definition: the
    # concatenated row is P times the interleaved row, with P the permutation
    # matrix of sigma. Odd widths give the Marian split (one more sine).
    rows = rec.instances(
        "concatenated(pos) = Pi interleaved(pos)",
        (
            (
                f"d = {d}",
                minus(concatenated(pos, d), product(permutation_matrix(d), interleaved(pos, d))),
            )
            for d in ROW_WIDTHS
        ),
        scope=f"widths d = 1..{INPUTS['rows_max_width']} (odd d: ceil(d/2) sines, floor(d/2) "
        "cosines); "
        "symbolic pos and speeds; the product evaluated by the kit",
    )
    rec.exact(
        f"the rows and Pi^T Pi = I are checked at every width 1..{INPUTS['rows_max_width']}",
        rows.samples,
        INPUTS["rows_max_width"],
        scope="the cases the row check ran (count), against the widths the page names",
    )
    rec.exact(
        "posenc.conventions.concatenated_order(d) is sigma",
        sum(
            int(conventions.concatenated_order(d)[c] != sigma(c, d))
            for d in range(1, 65)
            for c in range(d)
        ),
        0,
        scope="d = 1..64, every column (count of mismatches)",
    )

    # Step 3. The stretched ladder. With exponent i/(h-1) = i/n, the wavelength
    # of pair i is 2 pi b^(i/n): it starts at 2 pi, ends at exactly 2 pi b (pair
    # i = n = h - 1), and is geometric with ratio b^(1/n). The paper's last rung,
    # 2 pi b^(n/(n+1)) (Proposition 6), is a factor b^(1/h) lower.
    # The substitutions i = 0 and i = n are left unevaluated (sp.Subs): SymPy
    # would otherwise turn b^0 into 1 and b^(n/n) into b on sight.
    wavelength = 2 * sp.pi * b**stretched_exponent
    rec.identity(
        "(h-1) ladder starts at 2 pi",
        sp.Subs(wavelength, i, 0) - 2 * sp.pi,
        scope="b > 0, n = h - 1 >= 1",
    )
    rec.identity(
        "(h-1) ladder ends at exactly 2 pi b (pair i = h - 1)",
        sp.Subs(wavelength, i, n) - 2 * sp.pi * b,
        scope="b > 0, n = h - 1 >= 1",
    )
    rec.identity(
        "(h-1) ladder is geometric with ratio b^(1/(h-1))",
        wavelength.subs(i, i + 1) / wavelength - b ** (1 / n),
        scope="b > 0, n = h - 1 >= 1, integer i >= 0",
    )
    # The paper's rung B^(2i/d), with B = b^(h/(h-1)) put in by the kit (sp.Subs):
    # SymPy would otherwise merge the powers on sight and leave nothing to prove.
    paper_base = sp.Symbol("B")
    rec.identity(
        "the (h-1) ladder is the paper's ladder with base b^(h/(h-1))",
        b**stretched_exponent
        - sp.Subs(paper_base**paper_exponent, paper_base, b ** ((n + 1) / n)),
        scope="b > 0, n = h - 1 >= 1, integer i >= 0 (d = 2h)",
    )
    paper_top = 2 * sp.pi * b ** paper_exponent.subs(i, n)
    rec.identity(
        "2 pi b is a factor b^(1/h) above the paper's last rung",
        2 * sp.pi * b / paper_top - b ** (1 / (n + 1)),
        scope="b > 0, h = n + 1 >= 2",
    )

    # Step 4. tensor2tensor's min_timescale m. The code computes the frequency
    # m * exp(-i log(b/m) / (h-1)) = m (b/m)^(-i/(h-1)); the timescale it means
    # is m (b/m)^(i/(h-1)). Their product is m^2, not 1: right only for m = 1.
    computed = m * sp.exp(-i * sp.log(b / m) / n)
    intended_timescale = m * (b / m) ** (i / n)
    rec.identity(
        "tensor2tensor: computed frequency x intended timescale = min_timescale^2",
        sp.expand_log(computed * intended_timescale) - m**2,
        scope="b, m > 0, n = h - 1 >= 1, integer i >= 0",
    )
    _, rates = conventions.columns("tensor2tensor", 8, min_timescale=2.0, base=5000.0)
    expected = [2 * (5000 / 2) ** (-t / 3) for t in range(4)]
    rec.numeric(
        "posenc.conventions.columns follows tensor2tensor's rule for min_timescale = 2",
        (rates[:4] - np.array(expected)) / 2,
        tol=1e-15,
        scope="d = 8, min_timescale 2, max_timescale 5000, the four speeds; "
        "relative to the first speed",
    )

    # Step 5. Dot products. P is orthogonal (P^T P = I), so P x . P y = x . y;
    # in particular PE_c(pos) . PE_c(q) = PE(pos) . PE(q). Each layout's dot
    # product is checked against the same closed form, sum_t cos((pos - q) w_t)
    # (Proposition 9), which rests on sin a sin c + cos a cos c = cos(a - c).
    rec.instances(
        "Pi^T Pi = I",
        (
            (
                f"d = {d}",
                minus(product(permutation_matrix(d).T, permutation_matrix(d)), sp.eye(d)),
            )
            for d in ROW_WIDTHS
        ),
        scope=f"widths d = 1..{INPUTS['rows_max_width']}; the product evaluated by the kit",
    )
    dots = {}
    for layout, code in (("concatenated", concatenated), ("interleaved", interleaved)):
        dots[layout] = rec.instances(
            f"{layout}(pos) . {layout}(q) = sum_i cos((pos - q) w_i), the same in both layouts",
            (
                (f"d = {d}", (code(pos, d).T * code(q, d))[0] - closed_form(pos, q, d))
                for d in DOT_WIDTHS
            ),
            scope=f"widths d = {', '.join(map(str, DOT_WIDTHS))}; symbolic pos, q and speeds",
        )
    rec.exact(
        "the dot products are checked in both layouts at every even width 2.."
        f"{INPUTS['dots_max_width']}",
        sum(check.samples for check in dots.values()),
        2 * (INPUTS["dots_max_width"] // 2),
        scope="the cases the two dot-product checks ran (count), against 2 layouts x the even "
        "widths the page names",
    )
    rec.identity(
        "one pair: sin a sin c + cos a cos c = cos(a - c)",
        sp.sin(a) * sp.sin(c) + sp.cos(a) * sp.cos(c) - sp.cos(a - c),
        scope="all real a, c",
    )

    # Step 6. Adding a table to embeddings. With e the token's embedding,
    # e + P p = P (P^T e + p): the concatenated model sees the interleaved
    # model's input in a permuted basis. A checkpoint moves across only if its
    # embedding table and every weight that reads or writes the residual stream
    # are permuted with it.
    ported = rec.instances(
        "e + Pi p = Pi (Pi^T e + p)",
        ((f"d = {d}", _ported(d)) for d in EMBEDDING_WIDTHS),
        scope=f"widths d = {', '.join(map(str, EMBEDDING_WIDTHS))}; symbolic embedding e, pos "
        "and speeds; "
        "the products evaluated by the kit",
    )
    rec.exact(
        "the embedding identity is checked at every even width 2.."
        f"{INPUTS['embedding_max_width']}",
        ported.samples,
        INPUTS["embedding_max_width"] // 2,
        scope="the cases the embedding check ran (count), against the even widths the page names",
    )

    # Step 7. Numeric spot check of Steps 2 and 5 with the library: the paper's
    # table, permuted, keeps every dot product (float64, width 64).
    paper = conventions.table("paper", 200, 64, start=1000)  # (200, 64)
    permuted = paper[:, conventions.concatenated_order(64)]  # (200, 64)
    rec.numeric(
        "dot products of posenc's codes do not change under the permutation",
        permuted @ permuted.T - paper @ paper.T,
        tol=1e-12,
        scope="positions 1000..1199, width 64, every one of the 200 x 200 dot products, float64",
    )
    _, fairseq_rates = conventions.columns("fairseq", 512)
    rec.numeric(
        "posenc: the slowest fairseq wavelength is 2 pi 10000",
        [2 * np.pi / fairseq_rates[255] / (2 * np.pi * INPUTS["base"]) - 1],
        tol=2e-16,
        scope="d = 512, pair 255 of 256; relative error, float64",
    )

    # Step 8. posenc.conventions against each library's formula, every entry
    # against the formula written above at 30 digits. The exact path (the
    # default) must give the float32 number nearest the formula's value: its
    # error is at most half a float32 ulp of the entry. The paper's table is
    # float64 (posenc.sinusoidal, within 4e-16). The emulated path repeats the
    # library's float32 operations, so its tolerance is the rounding they explain:
    # exp turns the rounding of its argument, up to ln 10000, into ~16 ulp of the
    # frequency, times an angle below 50. Neither is a check against the
    # libraries, which are not run here: their float32 exp, sin and cos need not
    # round as NumPy's do.
    mpmath.mp.dps = 30
    # Controls: tables a tolerance must tell from the right one. On the exact
    # path, each float32 entry moved one ulp up (half an ulp is the claim); the
    # paper's table and the emulated path, one position off. Their largest errors
    # must exceed the tolerances, or the checks could not fail.
    controls = {}  # name -> (exact control's largest error, its tolerance, emulated control's)
    for name, convention in conventions.CONVENTIONS.items():
        widths = WIDTHS.get(name, (1, 8, 9))
        exact_errors, emulated_errors = [], []
        control_exact, control_emulated = [], []
        for width in widths:
            formula = [
                (kind, mpmath.mpf(sp.N(rate, 30))) for kind, rate in library_formula(name, width)
            ]
            exact_table = conventions.table(name, 48, width)  # (48, width), the default path
            emulated = conventions.table(name, 48, width, path="emulated")  # (48, width)
            ulps = np.spacing(np.abs(exact_table)).astype(np.float64)  # (48, width)
            for r in range(48):
                for col, (kind, rate) in enumerate(formula):
                    value = _entry(kind, (convention.start + r) * rate)
                    later = _entry(kind, (convention.start + r + 1) * rate)  # one position off
                    entry, ulp = exact_table[r, col], float(ulps[r, col])
                    exact_errors.append(_exact_error(name, entry, value, ulp))
                    # The exact path's control: a float32 entry one ulp up, no longer the
                    # nearest; the paper's float64 table, one position off.
                    control_exact.append(
                        _exact_error(name, entry, later, ulp)
                        if name == "paper"
                        else _exact_error(name, np.nextafter(entry, np.inf), value, ulp)
                    )
                    emulated_errors.append(float(mpmath.mpf(float(emulated[r, col])) - value))
                    control_emulated.append(float(mpmath.mpf(float(emulated[r, col])) - later))
        exact_tolerance = TOLERANCE[name] if name == "paper" else HALF_ULP
        controls[name] = (
            max(abs(e) for e in control_exact),
            exact_tolerance,
            max(abs(e) for e in control_emulated),
        )
        where = (
            f"{'widths' if len(widths) > 1 else 'width'} {', '.join(map(str, widths))}, "
            f"positions {convention.start}..{convention.start + 47}, every entry"
        )
        if name == "paper":
            rec.numeric(
                "posenc's table('paper') matches the paper's formula",
                exact_errors,
                tol=exact_tolerance,
                scope=f"{where}; {PRECISION[name]}",
            )
        else:
            rec.numeric(
                f"posenc's table({name!r}) is {convention.title}'s formula rounded once to "
                "float32: within half an ulp of each entry",
                exact_errors,
                tol=exact_tolerance,
                scope=f"{where}; error in float32 ulps of the entry, path='exact' (default)",
            )
        rec.numeric(
            f"posenc's table({name!r}, path='emulated') matches the formula of {convention.title}",
            emulated_errors,
            tol=TOLERANCE[name],
            scope=f"{where}; {PRECISION.get(name, 'float32 throughout')}",
        )
    rec.exact(
        "Step 8's exact-path tolerances tell each table from its control: every float32 entry "
        "one ulp up (the paper's float64 table: one position off)",
        sum(int(error > tolerance) for error, tolerance, _ in controls.values()),
        len(conventions.CONVENTIONS),
        scope="the 8 conventions, Step 8's entries and widths (count of conventions whose "
        "control's largest error exceeds the tolerance)",
    )
    rec.exact(
        "Step 8's emulated-path tolerances tell each table from its control: the formula one "
        "position off, as a wrong start or padding offset would give",
        sum(int(controls[name][2] > TOLERANCE[name]) for name in controls),
        len(conventions.CONVENTIONS),
        scope="the 8 conventions, Step 8's entries and widths (count of conventions whose "
        "control's largest error exceeds the tolerance)",
    )

    # Step 9. Exact facts of posenc's tables, on both paths: its Marian table is
    # its XLM table with the columns permuted, bit for bit (both round the same
    # numbers: the same float64 values, or the same exact ones); its fairseq and
    # Whisper tables have the same formula (emulated: the same float32 operations)
    # and differ only in fairseq's zero padding row; at width 1 and at odd widths
    # tensor2tensor and fairseq end in a zero column, which at width 1 is all of
    # the table.
    # Each count is of the entries that agree, against the number compared: a
    # loop that ran short would come up short.
    marian_widths = (1, 2, 3, 8, 9, 64)
    agreeing = 0
    for path in PATHS:
        for width in marian_widths:
            xlm = conventions.table("xlm", 40, width, path=path)  # (40, width)
            marian = conventions.table("marian", 40, width, path=path)
            agreeing += int(
                np.count_nonzero(
                    marian.view(np.uint32) == xlm[:, _sigma_list(width)].view(np.uint32)
                )
            )
    rec.exact(
        "posenc: the Marian table is the XLM table with columns permuted by sigma, bit for bit",
        agreeing,
        len(PATHS) * 40 * sum(marian_widths),
        scope="both paths; widths 1, 2, 3, 8, 9, 64; positions 0..39 "
        "(count of equal float32 entries, against all compared)",
    )
    same, padding_zeros = 0, 0
    for path in PATHS:
        fairseq = conventions.table("fairseq", 40, 64, start=0, path=path)  # (40, 64), pos 0..39
        whisper = conventions.table("whisper", 40, 64, path=path)
        same += int(
            np.count_nonzero(
                np.delete(fairseq, 1, 0).view(np.uint32)
                == np.delete(whisper, 1, 0).view(np.uint32)
            )
        )
        padding_zeros += int(np.count_nonzero(fairseq[1].view(np.uint32) == 0))
    rec.exact(
        "posenc: the fairseq table is the Whisper table except its padding row",
        same,
        len(PATHS) * 39 * 64,
        scope="both paths; width 64, positions 0..39 but padding_idx 1 "
        "(count of equal entries, against all compared)",
    )
    rec.exact(
        "posenc: fairseq's padding row is zero",
        padding_zeros,
        len(PATHS) * 64,
        scope="both paths; width 64, row padding_idx 1 (count of entries +0.0, against all)",
    )
    rec.exact(
        "posenc: tensor2tensor and fairseq give an odd width a zero last column; at width 1 "
        "the whole table is that zero column",
        sum(
            int(np.count_nonzero(conventions.table(name, 40, width, path=path)[:, width - 1]))
            for name in ("tensor2tensor", "fairseq")
            for width in (1, 9)
            for path in PATHS
        ),
        0,
        scope="both paths; widths 1 and 9, 40 positions each (count of nonzero entries)",
    )

    # Step 10. What posenc refuses, where the library's code cannot compute: an
    # odd width for the paper's formula and Whisper, and from 3 up for the
    # tutorial (at width 1 its code runs: Step 8); width 2 for Whisper (h - 1 = 0,
    # no number comes out); widths 2 and 3 for fairseq (h - 1 = 0, a division by
    # zero; width 1 runs). Every other convention computes every width from 1 to
    # 9. The count is of (convention, width, path) triples where posenc's
    # behaviour differs from that list.
    refused = {
        "paper": {1, 3, 5, 7, 9},
        "pytorch-tutorial": {3, 5, 7, 9},
        "whisper": {1, 2, 3, 5, 7, 9},
        "fairseq": {2, 3},
    }
    right = 0
    for name in conventions.CONVENTIONS:
        for width in range(1, 10):
            for path in PATHS:
                try:
                    conventions.table(name, 3, width, path=path)
                    raised = False
                except ValueError:
                    raised = True
                right += int(raised == (width in refused.get(name, set())))
    rec.exact(
        "posenc refuses exactly the widths its conventions record as failing: odd for the "
        "paper and Whisper, odd from 3 for the tutorial, 2 for Whisper, 2 and 3 for fairseq",
        right,
        len(conventions.CONVENTIONS) * 9 * len(PATHS),
        scope="the 8 conventions, widths 1..9, both paths "
        "(count of (convention, width, path) triples refused or computed as recorded, "
        "against all)",
    )

    # Step 11. The numbers of the page. The figure (posenc.figures.conventions)
    # draws the wavelengths 2 pi / speed of the four pairs at width 8 from
    # posenc.conventions.columns, for the paper's exponent and the (h-1) one;
    # each is compared with its closed form, 2 pi 10000^(2i/8) and
    # 2 pi 10000^(i/3), at 30 digits.
    width, base_value = INPUTS["figure_width"], sp.Integer(INPUTS["base"])
    drawn = inspect.signature(conventions_figure.fig_library_conventions).parameters
    rec.exact(
        f"the figure draws width {width} and positions 0..{INPUTS['figure_positions'] - 1}",
        sum(
            int(drawn[parameter].default != value)
            for parameter, value in (("width", width), ("length", INPUTS["figure_positions"]))
        ),
        0,
        scope="posenc.figures.conventions.fig_library_conventions's defaults against the "
        "inputs (count of mismatches)",
    )
    half = width // 2
    shown_rungs = []  # (value, show) of every rung the page states
    for name, label, exponent, written in (
        ("paper", "paper", sp.Rational(2, width), f"2i/{width}"),
        ("whisper", "stretched", sp.Rational(1, half - 1), f"i/{half - 1}"),
    ):
        kinds, rates = conventions.columns(name, width)
        rungs = (2 * np.pi / rates[np.array(kinds) == "sin"]).tolist()  # (h,) float64
        ladder = rec.close(
            f"the figure's {label} ladder at width {width} is 2 pi {base_value}^({written}), "
            "rung by rung",
            rungs,
            [2 * sp.pi * base_value ** (exponent * step) for step in range(half)],
            tol=1e-10,
            scope=f"d = {width}, base {base_value}, the {half} pairs; posenc.conventions.columns "
            "against the closed form at 50 digits (absolute error; no rung exceeds 2 pi 10^4)",
        )
        # The last rung of the (h-1) ladder is 2 pi 10000, stated below as two_pi_base.
        for step, value in enumerate(rungs[:-1] if name == "whisper" else rungs):
            show = Show(decimals=2) if value < 100 else Show(decimals=0)  # as the figure labels
            rec.quantity(f"fig_{label}_{step}", value, show=show, by=ladder)
            shown_rungs.append((value, show))
    figure = conventions_figure.fig_library_conventions()
    figure_labels = [text.get_text() for axes in figure.axes for text in axes.texts]
    rec.exact(
        "the page writes each rung it states as the figure labels it",
        sum(int(render(value, show) not in figure_labels) for value, show in shown_rungs),
        0,
        scope="the rungs fig_paper_* and fig_stretched_*, rendered, against the texts of "
        "posenc.figures.conventions.fig_library_conventions() (count of rungs not labelled)",
    )
    rec.exact(
        "at width 8 the paper's ladder climbs by 10000^(2/8) = 10 per pair",
        base_value ** sp.Rational(2, width),
        10,
        scope="d = 8, base 10000, exact",
        quantity="paper_step_d8",
        show=Show(),
    )
    cube_root = sp.cbrt(base_value)  # 10000^(1/3), evaluated by the kit at 50 digits
    kinds, rates = conventions.columns("whisper", width)
    steps = (rates[: half - 1] / rates[1:half]).tolist()  # (h - 1,): neighbouring wavelengths
    climb = rec.close(
        "at width 8 the (h-1) ladder climbs by 10000^(1/3) per pair",
        steps,
        [cube_root] * len(steps),
        tol=1e-13,
        scope="d = 8, base 10000, the three steps; posenc.conventions.columns against the "
        "closed form at 50 digits (absolute error; the steps are near 21.5)",
    )
    rec.quantity("stretched_step_d8", steps[0], show=Show(sig=3), by=climb)

    # The page's "Check yourself", at width 6: column 4 of the concatenated
    # layout holds the paper's column 3; the (h-1) ladder ends at 2 pi 10000,
    # the paper's at 2 pi 10000^(4/6), a factor 10000^(1/3) apart. The
    # library's column map and slowest wavelengths are compared with those
    # values, each number the answer shows by its own check.
    rec.exact(
        "width 6: posenc.conventions.concatenated_order puts the paper's column 3 "
        "(cos w_1) at column 4",
        int(conventions.concatenated_order(6)[4]),
        3,
        scope="d = 6, column 4 (integer comparison)",
    )
    _, paper6 = conventions.columns("paper", 6)
    _, stretched6 = conventions.columns("whisper", 6)
    top_paper, top_stretched = 2 * np.pi / paper6[-1], 2 * np.pi / stretched6[-1]
    scope = "d = 6, base 10000; posenc.conventions.columns against the closed form at 50 digits"
    rec.close(
        "width 6: the slowest wavelength of the (h-1) ladder is 2 pi 10000",
        float(top_stretched),
        2 * sp.pi * base_value,
        tol=1e-10,
        scope=scope + " (absolute error, near 6.3 10^4)",
        quantity="two_pi_base",
        show=Show(decimals=0),
    )
    rec.close(
        "width 6: the paper's slowest wavelength is 2 pi 10000^(4/6)",
        float(top_paper),
        2 * sp.pi * base_value ** sp.Rational(4, 6),
        tol=1e-11,
        scope=scope + " (absolute error, near 2.9 10^3)",
        quantity="paper_top_d6",
        show=Show(decimals=0),
    )
    rec.close(
        "width 6: the two slowest wavelengths are a factor 10000^(1/3) apart",
        float(top_stretched / top_paper),
        cube_root,
        tol=1e-13,
        scope=scope + " (absolute error, near 21.5)",
        quantity="short_factor_d6",
        show=Show(sig=3),
    )

    # The first misreading's example, at width 4 and position 1: tensor2tensor's
    # row is (sin 1, sin(1/10000), cos 1, cos(1/10000)), the paper's
    # (sin 1, cos 1, sin(1/100), cos(1/100)). posenc's float32 and float64
    # rows are compared with those values; the paper's second pair turns at
    # 10000^(-2/4) = 1/100.
    rec.exact(
        "at width 4 the paper's second pair has timescale 10000^(2/4) = 100",
        base_value ** sp.Rational(2, 4),
        100,
        scope="d = 4, i = 1, base 10000, exact",
        quantity="paper_timescale_1_d4",
        show=Show(),
    )
    with mpmath.workdps(30):
        t2t_row = [mpmath.sin(1), mpmath.sin(mpmath.mpf(1) / 10000), mpmath.cos(1)]
        t2t_row.append(mpmath.cos(mpmath.mpf(1) / 10000))
        paper_row = [mpmath.sin(1), mpmath.cos(1), mpmath.sin(mpmath.mpf(1) / 100)]
        paper_row.append(mpmath.cos(mpmath.mpf(1) / 100))
        got = {name: conventions.table(name, 2, 4)[1] for name in ("tensor2tensor", "paper")}
        rows = [
            float(mpmath.mpf(float(v)) - e)
            for name, row in (("tensor2tensor", t2t_row), ("paper", paper_row))
            for v, e in zip(got[name], row, strict=True)
        ]
        rec.numeric(
            "position 1, width 4: tensor2tensor's row and the paper's, entry by entry",
            rows,
            tol=EPS32,  # one float32 ulp of the entries in [1/2, 1), half an ulp at 1
            scope="posenc.conventions.table rows (float32 and float64) against mpmath at "
            "30 digits",
        )
        # The two entries the page shows, each against its value: a float32
        # entry near 10^-4 is within 4e-12 (half its ulp) of the value it
        # rounds; a float64 entry near 0.54 within 6e-17.
        rec.close(
            "position 1, width 4: tensor2tensor's second entry is sin(1/10000)",
            float(got["tensor2tensor"][1]),
            t2t_row[1],
            tol=4e-12,
            scope="posenc.conventions.table('tensor2tensor') (float32) against mpmath at "
            "30 digits",
            quantity="t2t_second_entry",
            show=Show(sig=1),
        )
        rec.close(
            "position 1, width 4: the paper's second entry is cos 1",
            float(got["paper"][1]),
            paper_row[1],
            tol=1e-16,
            scope="posenc.conventions.table('paper') (float64) against mpmath at 30 digits",
            quantity="cos_one",
            show=Show(sig=4),
        )


def _entry(kind: str, angle: mpmath.mpf) -> mpmath.mpf:
    """One table entry from its column's function: sin, cos, or the zero column."""
    return {"sin": mpmath.sin, "cos": mpmath.cos}[kind](angle) if kind != "zero" else 0


def _exact_error(name: str, entry: np.floating, value: mpmath.mpf, ulp: float) -> float:
    """An exact-path error: absolute for the paper's float64 table, else in float32 ulps."""
    error = float(mpmath.mpf(float(entry)) - value)
    return error if name == "paper" else error / ulp


def _ported(width: int) -> sp.Matrix:
    """(e + P p) - P (P^T e + p) for a symbolic embedding e and the code p at pos.

    Every product with P is written out unevaluated, so the kit carries it out.
    """
    e = sp.Matrix(sp.symbols(f"e0:{width}", real=True))
    p, perm = interleaved(pos, width), permutation_matrix(width)
    inner = sp.Matrix(width, 1, lambda r, _: sp.Add(product(perm.T, e)[r], p[r], evaluate=False))
    left = sp.Matrix(width, 1, lambda r, _: sp.Add(e[r], product(perm, p)[r], evaluate=False))
    return minus(left, product(perm, inner))


# -- misreadings -------------------------------------------------------------------

# The first two witnesses are rows of sines and cosines evaluated at 50 digits;
# were the claims true, the rows would agree in every digit. A tenth of the
# unit circle's radius is far above that and below the differences found.
MARGIN = sp.Rational(1, 10)
BY = "a tenth of the unit circle's radius"


def _concatenated_example_is_the_paper(wit: Witness) -> None:
    # An explainer's d = 4 "real example", computed with tensor2tensor's
    # function: [sin(pos), sin(pos/10000), cos(pos), cos(pos/10000)]. The paper's
    # row is [sin(pos), cos(pos), sin(pos/100), cos(pos/100)].
    example = sp.Matrix(
        [
            sp.sin(pos * r) if kind == "sin" else sp.cos(pos * r)
            for kind, r in library_formula("tensor2tensor", 4)
        ]
    )
    paper = sp.Matrix(
        [
            sp.sin(pos * r) if kind == "sin" else sp.cos(pos * r)
            for kind, r in library_formula("paper", 4)
        ]
    )
    # Both rows, built from the formulas, are the rows the misreading and the
    # paper write down; otherwise the witness would compare something else.
    written = (
        (example, [sp.sin(pos), sp.sin(pos / 10000), sp.cos(pos), sp.cos(pos / 10000)]),
        (paper, [sp.sin(pos), sp.cos(pos), sp.sin(pos / 100), sp.cos(pos / 100)]),
    )
    if any(list(built) != row for built, row in written):
        raise ArithmeticError("the d = 4 rows built from the formulas are not the rows written")
    wit.differs(
        substitute(example, {pos: 1}),
        substitute(paper, {pos: 1}),
        at="d = 4, pos = 1",
        margin=MARGIN,
        by=BY,
    )


def _checkpoints_transfer(wit: Witness) -> None:
    # The same embedding table and the same frequencies, the two layouts: the
    # first layer's input differs, coordinate by coordinate.
    e = sp.Matrix([sp.Rational(1, 2), sp.Rational(-1, 4), sp.Rational(1, 8), 1])
    point = {s: v for s, v in zip(speeds(4), (1, sp.Rational(1, 100)), strict=True)} | {pos: 1}
    paper_input = substitute(e + interleaved(pos, 4), point)
    concatenated_input = substitute(e + concatenated(pos, 4), point)
    # The two inputs minus e hold the same four values (sin 1, cos 1, sin 1/100,
    # cos 1/100) in another order: the difference is the layout's alone.
    codes = [sorted(x - e, key=sp.default_sort_key) for x in (paper_input, concatenated_input)]
    if codes[0] != codes[1]:
        raise ArithmeticError("the two inputs do not hold the same code values")
    wit.differs(
        paper_input,
        concatenated_input,
        at="d = 4, pos = 1, paper frequencies, embedding e = (1/2, -1/4, 1/8, 1)",
        margin=MARGIN,
        by=BY,
    )


def _same_frequencies(wit: Witness) -> None:
    # "The libraries differ only in column order": at d = 4 the paper's pair 1
    # (its column 2) turns at 10000^(-2/4) = 1/100; tensor2tensor's pair 1 (its
    # column 1) at 10000^(-1/(h-1)) = 1/10000.
    _, stretched = library_formula("tensor2tensor", 4)[1]
    _, paper = library_formula("paper", 4)[2]
    wit.differs(
        stretched,
        paper,
        at="d = 4, pair 1: 10000^(-1/(h-1)) vs 10000^(-2/d)",
        margin=0,
        by="exact rationals, against a claim of equal frequencies",
    )


MISREADINGS = [
    Misreading(
        "This d = 4 example [sin(pos), sin(pos/10000), cos(pos), cos(pos/10000)] is the "
        "paper's encoding",
        _concatenated_example_is_the_paper,
        why="It is tensor2tensor's table: sines first, and the (h-1) exponent; the paper "
        "interleaves and its second pair turns at 1/{{ paper_timescale_1_d4 }}.",
    ),
    Misreading(
        "Dot products between codes agree, so a checkpoint trained with one layout works "
        "with the other",
        _checkpoints_transfer,
        why="The code is added to learned embeddings, and each coordinate meets its own "
        "weights; tensor2tensor went back to its own layout because the change broke "
        "the models already trained with it.",
    ),
    Misreading(
        "The libraries all use the paper's frequencies and differ only in column order",
        _same_frequencies,
        why="The (h-1) exponent changes every speed but the first; at d = 4 it moves the "
        "second wavelength from 2π·{{ paper_timescale_1_d4 }} to 2π·10000.",
    ),
]
