"""E1, the sinusoidal table: ``solve(length, width, base)`` returns PE, shape (L, d).

PE[pos, 2i] = sin(pos / base**(2i/d)) and PE[pos, 2i+1] = cos(pos / base**(2i/d)),
Vaswani et al. (2017), section 3.5. The right answer is ``posenc.sinusoidal``; the
classic mistakes below are the same table computed the wrong way.
"""

from __future__ import annotations

import numpy as np

from posenc.encoding import sinusoidal
from posenc.exercises._base import (
    FIXED_BASE_HINT,
    PAIR_HINT,
    Exercise,
    Mistake,
    even,
    pairs,
    without_base,
)


def _positions(length, start=0):
    return np.arange(start, start + length, dtype=np.float64)[:, None]  # (L, 1)


def _interleave(sines, cosines):
    """Columns (sin_0, cos_0, sin_1, cos_1, ...) from two (L, d/2) arrays."""
    table = np.empty((sines.shape[0], 2 * sines.shape[1]), dtype=sines.dtype)  # (L, d)
    table[:, 0::2], table[:, 1::2] = sines, cosines
    return table


def _by_column(length, width, angle):
    """Sine of ``angle(pos, j)`` in even columns j, cosine in odd ones."""
    pos = _positions(length)  # (L, 1)
    j = np.arange(width, dtype=np.float64)  # (d,)
    theta = angle(pos, j)  # (L, d)
    return np.where(j % 2 == 0, np.sin(theta), np.cos(theta))  # (L, d)


def _angles(length, width, base, start=0):
    return _positions(length, start) / base ** (2 * pairs(width) / width)  # (L, d/2)


def expected(length, width, base):
    return sinusoidal(length, width, base=base)


def column_in_exponent(length, width, base):
    # pos / base**(2j/d), with the column j where the pair i = j // 2 belongs
    return _by_column(length, width, lambda pos, j: pos / base ** (2 * j / width))


def column_over_width(length, width, base):
    # pos / base**(j/d): right for the sines (j = 2i), wrong for the cosines (j = 2i + 1)
    return _by_column(length, width, lambda pos, j: pos / base ** (j / width))


def doubled_pair_index(length, width, base):
    # pos / base**(4i/d) in both columns of pair i: a loop over the even columns j = 2i
    # that writes base ** (2 * j / d), as if j were the pair index
    angle = _positions(length) / base ** (4 * pairs(width) / width)  # (L, d/2)
    return _interleave(np.sin(angle), np.cos(angle))


def power_of_quotient(length, width, base):
    # (pos / base)**(2i/d): the power applied to the quotient
    angle = (_positions(length) / base) ** (2 * pairs(width) / width)  # (L, d/2)
    return _interleave(np.sin(angle), np.cos(angle))


def unbracketed_exponent(length, width, base):
    # pos / base ** 2 * i / d, which Python reads as ((pos / base**2) * i) / d
    angle = _positions(length) / base**2 * pairs(width) / width  # (L, d/2)
    return _interleave(np.sin(angle), np.cos(angle))


def multiplied(length, width, base):
    # pos * base**(2i/d): the fast and the slow pairs exchanged
    angle = _positions(length) * base ** (2 * pairs(width) / width)  # (L, d/2)
    return _interleave(np.sin(angle), np.cos(angle))


def swapped(length, width, base):
    angle = _angles(length, width, base)  # (L, d/2)
    return _interleave(np.cos(angle), np.sin(angle))


def from_one(length, width, base):
    angle = _angles(length, width, base, start=1)  # (L, d/2): positions 1 .. L
    return _interleave(np.sin(angle), np.cos(angle))


def concatenated(length, width, base):
    angle = _angles(length, width, base)  # (L, d/2)
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)  # (L, d): sines, then cosines


def t2t_ladder(length, width, base):
    # w_i = base**(-i / (d/2 - 1)), the ladder of tensor2tensor, which ends at 1/base
    # (tensor2tensor divides by max(d/2 - 1, 1), so that d = 2 still works)
    angle = _positions(length) / base ** (pairs(width) / max(width // 2 - 1, 1))  # (L, d/2)
    return _interleave(np.sin(angle), np.cos(angle))


def fixed_base(length, width, base):
    return sinusoidal(length, width)


def in_float32(length, width, base):
    # the right formula with every step in float32
    pos = np.arange(length, dtype=np.float32)[:, None]  # (L, 1)
    w = (base ** (-2 * pairs(width) / width)).astype(np.float32)  # (d/2,)
    angle = pos * w  # (L, d/2), float32
    return _interleave(np.sin(angle), np.cos(angle)).astype(np.float64)


MISTAKES = (
    Mistake("column in exponent", PAIR_HINT, column_in_exponent),
    Mistake("column over width", PAIR_HINT, column_over_width),
    Mistake(
        "doubled pair index",
        "Your exponent is `4 * i / d` in both columns of pair i, twice the right one. A "
        "loop over the even columns, `for j in range(0, d, 2)`, already has `j = 2 * i`: "
        "the exponent is then `j / d`, not `2 * j / d`.",
        doubled_pair_index,
    ),
    Mistake(
        "power of the quotient",
        "Your brackets put the power on the quotient: you computed "
        "`(pos / base) ** (2 * i / d)`. The power belongs to the base alone: "
        "`pos / base ** (2 * i / d)` means `pos / (base ** (2 * i / d))`.",
        power_of_quotient,
    ),
    Mistake(
        "unbracketed exponent",
        "The exponent needs brackets: Python reads `base ** 2 * i / d` as "
        "`(base ** 2) * i / d`. Write `base ** (2 * i / d)`.",
        unbracketed_exponent,
    ),
    Mistake(
        "multiplied",
        "You multiplied pos by `base ** (2 * i / d)`, so later pairs turn faster. The "
        "angle is `pos / base ** (2 * i / d)`: pair 0 is the fastest hand, and each pair "
        "after it is slower.",
        multiplied,
    ),
    Mistake(
        "sine and cosine swapped",
        "Sine and cosine are swapped. Even columns `2i` hold the sine and odd columns "
        "`2i + 1` the cosine, so position 0 reads 0, 1, 0, 1, ...",
        swapped,
    ),
    Mistake(
        "positions from one",
        "Your rows start at position 1. Positions count from 0: the first row is "
        "position 0, where every sine is 0 and every cosine is 1.",
        from_one,
    ),
    Mistake(
        "concatenated layout",
        "Your table puts all the sines first and then all the cosines (the layout of "
        "tensor2tensor). The paper interleaves them: column `2i` is the sine of pair i "
        "and column `2i + 1` its cosine.",
        concatenated,
    ),
    Mistake(
        "tensor2tensor ladder",
        "Your exponent is `i / (d/2 - 1)`, the ladder of tensor2tensor. The paper's "
        "exponent is `2 * i / d`, so its last pair stops one rung short of the base.",
        t2t_ladder,
    ),
    Mistake("fixed base", FIXED_BASE_HINT, fixed_base),
    Mistake(
        "float32",
        "Your table agrees with the right one to the precision of float32 (about 1e-7, "
        "and about 1e-4 at large positions), but not to 1e-9. Some step runs in float32 "
        "(np.float32, or PyTorch's default dtype). Compute in float64.",
        in_float32,
        tolerance=1e-3,  # float32 tables differ from each other by up to about 1e-4
        apart=1e-8,  # and from the right one by more, somewhere: rounding alone gives 3e-8
    ),
)


def draw(rng):
    """Unseen cases: other widths and bases, one long table, a width 2 and a length 1."""
    return [
        (int(rng.integers(10, 41)), even(rng, 6, 16), 10000.0),
        (int(rng.integers(10, 41)), even(rng, 6, 16), float(rng.choice([100.0, 500.0]))),
        (int(rng.integers(3, 10)), 2, 10000.0),
        (1, even(rng, 2, 8), float(rng.choice([2.0, 50.0]))),
        (int(rng.integers(100, 301)), even(rng, 20, 64), float(rng.choice([10.0, 1e5]))),
        (int(rng.integers(1000, 2049)), even(rng, 64, 128), 10000.0),
    ]


def where(args, index):
    pos, j = index
    part = "sine" if j % 2 == 0 else "cosine"
    return f"at position {pos}, column {j} (the {part} of pair {j // 2})"


TASK = """\
Build the sinusoidal position code of Vaswani et al. (2017), section 3.5.

Write a file with a function

    def solve(length, width, base=10000.0):

length  the number of positions, an int >= 0 (positions 0 .. length - 1)
width   the model width d, an even int >= 2
base    the base b, a float > 1 (10000 in the paper)

It returns a table of floats (float64) of shape (length, width), a NumPy array or a
list of rows (lists or tuples), whose row pos is the code of position pos:

    PE[pos, 2i]     = sin(pos / base ** (2i / width))
    PE[pos, 2i + 1] = cos(pos / base ** (2i / width)),    i = 0 .. width/2 - 1.

Worked examples (6 significant digits):

    solve(3, 4) -> [[0,         1,         0,          1      ],
                    [0.841471,  0.540302,  0.00999983, 0.99995],
                    [0.909297, -0.416147,  0.0199987,  0.9998 ]]
    solve(1, 4) -> [[0, 1, 0, 1]]
    solve(0, 2) -> an empty table, shape (0, 2)
    solve(2, 2) -> [[0, 1], [0.841471, 0.540302]]

The classic solve(length, width), with base 10000 built in, is checked too: on the
cases with base 10000 only, and the report says how many others it did not run."""


E1 = Exercise(
    key="E1",
    title="The sinusoidal table",
    page="exercises/e1-sinusoidal-table.md",
    params=("length", "width", "base"),
    returns="floats of shape (length, width): a NumPy array, or a list of rows",
    task=TASK,
    worked=((3, 4, 10000.0), (1, 4, 10000.0), (0, 2, 10000.0), (2, 2, 10000.0)),
    draw=draw,
    expected=expected,
    shape=lambda length, width, base: (length, width),
    describe=lambda length, width, base: f"solve({length}, {width}, {base!r})",
    where=where,
    mistakes=MISTAKES,
    fallback=lambda length, width, base: (
        "Print your table for this case beside the right one, "
        f"`posenc table --length {length} --width {width} --base {base:g}`, and compare "
        "the first row that differs."
    ),
    smaller=without_base("length"),
)
