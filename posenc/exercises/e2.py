"""E2, the shift matrix: ``solve(k, width, base)`` returns M_k, shape (d, d).

PE(pos + k) = M_k PE(pos) for every pos, with M_k block diagonal: for the paper's
(sin, cos) column order, block i is [[cos a, sin a], [-sin a, cos a]], a = k w_i and
w_i = base**(-2i/d). The right answer is ``posenc.shift_matrix``.
"""

from __future__ import annotations

import numpy as np

from posenc.encoding import shift_matrix, sinusoidal
from posenc.exercises._base import (
    FIXED_BASE_HINT,
    PAIR_HINT,
    Exercise,
    Mistake,
    even,
    pairs,
    without_base,
)


def _blocks(width, angle, block, *, halves=False):
    """Block-diagonal (d, d) matrix; ``block(c, s)`` is the 2x2 block from cos and sin."""
    c, s = np.cos(angle), np.sin(angle)  # (d/2,) each
    (b00, b01), (b10, b11) = block(c, s)
    i = np.arange(width // 2)  # (d/2,)
    first, second = (i, i + width // 2) if halves else (2 * i, 2 * i + 1)  # pair i's coordinates
    m = np.zeros((width, width))  # (d, d)
    m[first, first], m[first, second] = b00, b01
    m[second, first], m[second, second] = b10, b11
    return m


def _right(c, s):
    return (c, s), (-s, c)  # the block for (sin, cos) pairs


def _speeds(width, base):
    return base ** (-2 * pairs(width) / width)  # (d/2,): w_i


def expected(k, width, base):
    return shift_matrix(k, width, base)


def sign_flipped(k, width, base):
    # the textbook block [[cos, -sin], [sin, cos]], which turns (sin, cos) pairs backwards
    return _blocks(width, k * _speeds(width, base), lambda c, s: ((c, -s), (s, c)))


def no_speed(k, width, base):
    # every pair turned by k, as if every hand had speed 1
    return _blocks(width, np.full(width // 2, float(k)), _right)


def column_in_exponent(k, width, base):
    # base**(-2j/d) with the column j = 2i of the pair, that is base**(-4i/d)
    return _blocks(width, k * base ** (-4 * pairs(width) / width), _right)


def power_of_quotient(k, width, base):
    # (k / base)**(2i/d)
    return _blocks(width, (k / base) ** (2 * pairs(width) / width), _right)


def multiplied(k, width, base):
    # k * base**(2i/d)
    return _blocks(width, k * base ** (2 * pairs(width) / width), _right)


def swapped_block(k, width, base):
    # sine on the diagonal, cosine off it
    return _blocks(width, k * _speeds(width, base), lambda c, s: ((s, c), (-c, s)))


def split_halves(k, width, base):
    # pair i on coordinates (i, i + d/2), the rotate_half pairing of some rotary code
    return _blocks(width, k * _speeds(width, base), _right, halves=True)


def fixed_base(k, width, base):
    return shift_matrix(k, width)


MISTAKES = (
    Mistake(
        "rotation sign",
        "Your blocks turn each hand the wrong way, so your matrix gives PE(pos - k), not "
        "PE(pos + k). The textbook rotation `[[cos a, -sin a], [sin a, cos a]]` is for "
        "pairs stored as (cos, sin). The code stores (sin, cos), so its block is "
        "`[[cos a, sin a], [-sin a, cos a]]`.",
        sign_flipped,
    ),
    Mistake(
        "no speed",
        "You turned every pair by the same angle k. Each hand has its own speed "
        "`w_i = base ** (-2 * i / d)`, so pair i turns by `a = w_i * k`.",
        no_speed,
    ),
    Mistake("column in exponent", PAIR_HINT, column_in_exponent),
    Mistake(
        "power of the quotient",
        "Your brackets put the power on the quotient: `(k / base) ** (2 * i / d)`. The "
        "angle is `k / base ** (2 * i / d)`, that is `k / (base ** (2 * i / d))`.",
        power_of_quotient,
    ),
    Mistake(
        "multiplied",
        "You multiplied k by `base ** (2 * i / d)`. The angle is "
        "`k / base ** (2 * i / d)`: later pairs turn more slowly, not faster.",
        multiplied,
    ),
    Mistake(
        "swapped block",
        "Sine and cosine have traded places in your blocks. The diagonal holds cos a, "
        "so that a shift by k = 0 gives the identity matrix.",
        swapped_block,
    ),
    Mistake(
        "split halves",
        "Your pairs are the coordinates `(i, i + d/2)`, the rotate_half layout of some "
        "rotary code. In the sinusoidal table a pair is two neighbouring columns, "
        "`(2i, 2i + 1)`.",
        split_halves,
    ),
    Mistake("fixed base", FIXED_BASE_HINT, fixed_base),
)


def draw(rng):
    """Unseen cases: longer shifts, negative shifts, other bases, wider matrices."""
    return [
        (int(rng.integers(5, 101)), even(rng, 6, 16), 10000.0),
        (-int(rng.integers(1, 50)), even(rng, 6, 12), 10000.0),
        (int(rng.integers(2, 20)), even(rng, 8, 16), float(rng.choice([2.0, 100.0]))),
        (int(rng.integers(1000, 5001)), even(rng, 32, 64), 10000.0),
        (-int(rng.integers(100, 1000)), even(rng, 16, 24), float(rng.choice([500.0, 1e5]))),
    ]


def where(args, index):
    r, c = index
    if r // 2 != c // 2:
        return f"at row {r}, column {c} (outside every block, so it must be 0)"
    return f"at row {r}, column {c} (in the block of pair {r // 2})"


def moves_the_code(args, got):
    """How far the reader's matrix is from taking PE(pos) to PE(pos + k)."""
    k, width, base = args
    first = max(0, -k)  # the first position with pos + k >= 0
    pe = sinusoidal(first + max(k, 0) + 8, width, base=base)  # (L, d)
    before = pe[first : first + 8]  # (8, d): PE(pos), pos = first .. first + 7
    after = pe[first + k : first + k + 8]  # (8, d): PE(pos + k)
    with np.errstate(all="ignore"):
        miss = np.max(np.abs(before @ got.T - after))  # rows are M_k PE(pos) - PE(pos + k)
    return (
        f"With your matrix, M_k PE(pos) misses PE(pos + k) by up to {float(miss):.6g} "
        f"for pos from {first} to {first + 7}."
    )


TASK = """\
Build the matrix M_k that moves the sinusoidal code k positions on:
PE(pos + k) = M_k PE(pos) for every position pos.

Write a file with a function

    def solve(k, width, base=10000.0):

k       the shift, an int (it may be 0 or negative)
width   the model width d, an even int >= 2
base    the base b, a float > 1 (10000 in the paper)

It returns a matrix of floats (float64) of shape (width, width), a NumPy array or a
list of rows (lists or tuples). M_k is block diagonal: rows and columns 2i and 2i + 1
hold the block of pair i, which for the paper's (sin, cos) column order is

    [[ cos(a_i), sin(a_i)],
     [-sin(a_i), cos(a_i)]],    a_i = k / base ** (2i / width),

and every entry outside the blocks is 0.

Worked examples (6 significant digits):

    solve(1, 2) -> [[ 0.540302, 0.841471],
                    [-0.841471, 0.540302]]
    solve(3, 2) -> [[-0.989992,  0.14112 ],
                    [-0.14112,  -0.989992]]
    solve(0, 4) -> the 4 x 4 identity matrix
    solve(2, 4) -> the blocks [[-0.416147, 0.909297], [-0.909297, -0.416147]]
                   and [[0.9998, 0.0199987], [-0.0199987, 0.9998]]

A solve(k, width), with base 10000 built in, is checked too: on the cases with base
10000 only, and the report says how many others it did not run."""


E2 = Exercise(
    key="E2",
    title="The shift matrix",
    page="exercises/e2-shift-matrix.md",
    params=("k", "width", "base"),
    returns="floats of shape (width, width): a NumPy array, or a list of rows",
    task=TASK,
    worked=((1, 2, 10000.0), (3, 2, 10000.0), (0, 4, 10000.0), (2, 4, 10000.0)),
    draw=draw,
    expected=expected,
    shape=lambda k, width, base: (width, width),
    describe=lambda k, width, base: f"solve({k}, {width}, {base!r})",
    where=where,
    mistakes=MISTAKES,
    fallback=lambda k, width, base: (
        "Test your matrix on its own: take rows pos and pos + k of "
        f"posenc.sinusoidal(L, {width}, base={base:g}) and compare M_k @ PE(pos) with "
        "PE(pos + k), one pair of columns at a time."
    ),
    extra=moves_the_code,
    smaller=without_base("k"),
)
