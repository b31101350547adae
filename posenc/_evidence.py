"""When is a fit an answer? Bits of evidence against the bits it takes to name the answer.

``posenc identify`` searches many explanations (conventions, bases, first positions,
rotary schemes with their parameters) for a table, a vector of speeds or a cache, and
judges each within an error model. A fit alone is no answer: a model loose enough fits
random numbers, and with enough parameters any short vector fits some scheme. So each
fit is weighed, in bits:

- **evidence**: ``-log2`` of the chance that random numbers (of a stated kind) would
  lie within the error model's bounds of the explanation;
- **cost**: the length of a code that names the explanation among all that are searched
  (which scheme, the digits of each number it needs, which first position...).

An explanation is named when its evidence reaches ``LEVEL_BITS`` plus its cost. The
code lengths satisfy Kraft's inequality (``sum 2**-cost <= 1`` over every explanation
that could be named), so the chance that random numbers get any explanation named,
however the search picked it, is at most ``sum 2**-(LEVEL_BITS + cost) <=
2**-LEVEL_BITS``: the union bound, weighted by the code. This is the minimum
description length principle used as a test (J. Rissanen, "Modeling by shortest data
description", Automatica 14, 1978; for the weighted union bound, see any treatment of
Occam's razor bounds, e.g. A. Blumer et al., Information Processing Letters 24, 1987).
"""

from __future__ import annotations

import math

__all__ = ["LEVEL_BITS", "number_bits", "significant_digits"]

#: The chance, at most, that random numbers get an answer named: ``2**-LEVEL_BITS``.
LEVEL_BITS = 20

#: Decimal exponents a number named by :func:`number_bits` may have: 1e-300 to 1e304.
_DECADES = 605


def significant_digits(x: float) -> int:
    """The fewest significant decimal digits that give ``x`` back as a float64.

    Examples
    --------
    >>> significant_digits(10000.0), significant_digits(500000.0), significant_digits(0.1)
    (1, 1, 1)
    >>> significant_digits(9995.12), significant_digits(1 / 3)
    (6, 16)
    """
    for digits in range(1, 18):
        if float(f"{x:.{digits}g}") == x:
            return digits
    return 18


def number_bits(x: float) -> float:
    """Bits of a prefix code that names a nonzero float64 by its digits and exponent.

    ``k`` digits cost ``k`` bits to say how many (a code of ``2**-k``), then one of the
    ``9 * 10**(k - 1)`` mantissas of ``k`` significant digits, then one of ``_DECADES``
    decimal exponents. So 10000 costs about 13 bits, 9995.12 about 35.
    Summed over every number with every ``k``, ``2**-bits`` is at most 1.

    Examples
    --------
    >>> round(number_bits(10000.0), 1), round(number_bits(9995.12), 1)
    (13.4, 35.0)
    """
    digits = significant_digits(abs(x))
    return digits + math.log2(9 * 10 ** (digits - 1)) + math.log2(_DECADES)
