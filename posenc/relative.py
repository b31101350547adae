"""Order in the score: relative position terms added to attention logits.

Three schemes in use put position into the attention score rather than into the
token vectors:

- **Shaw et al. (2018)**: a learned vector per clipped offset ``clip(j - i, -k, k)``,
  added to the keys (and the values); :func:`shaw_index` gives the row of that table,
  so exactly ``2k + 1`` offsets can be told apart.
- **T5 (Raffel et al. 2020)**: one learned scalar per head and *bucket* of the offset
  ``key - query``; :func:`t5_bucket` gives the bucket. Small offsets get a bucket of
  their own, larger ones share logarithmically wider buckets up to ``max_distance``,
  and everything beyond shares the last bucket.
- **ALiBi (Press, Smith and Lewis 2022)**: no learned parameters; head ``h`` adds
  ``-m_h (i - j)`` to the score of query ``i`` and key ``j <= i``;
  :func:`alibi_slopes` gives the slopes of the reference code, :func:`alibi_bias`
  the bias.

Every function here is exact: bucket boundaries are decided in integer arithmetic
(the libraries use float32 logarithms; the conformance suite, ``make conformance``,
checks that they agree on the configurations shipped), and slopes are the real
numbers ``2**(-q)`` rounded once to float64.

References
----------
- P. Shaw, J. Uszkoreit, A. Vaswani, "Self-Attention with Relative Position
  Representations", NAACL 2018, arXiv:1803.02155.
- C. Raffel et al., "Exploring the Limits of Transfer Learning with a Unified
  Text-to-Text Transformer", JMLR 21, 2020, arXiv:1910.10683: the bucket function of
  its code (``_relative_position_bucket`` in Hugging Face transformers).
- O. Press, N. A. Smith, M. Lewis, "Train Short, Test Long: Attention with Linear
  Biases Enables Input Length Extrapolation", ICLR 2022, arXiv:2108.12409: the slopes
  of its reference code (``get_slopes``), also BLOOM's and MPT's.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from posenc import _validate

__all__ = ["alibi_bias", "alibi_slopes", "shaw_index", "t5_bucket"]


def _offsets(name: str, value: object) -> np.ndarray:
    """An integer array (any shape) of offsets, as int64."""
    array = np.asarray(value)
    if array.dtype == bool or array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an array of integers, got dtype {array.dtype}")
    if array.dtype.kind == "u" and array.size and int(array.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name} must fit in int64")
    return array.astype(np.int64)


def shaw_index(relative_position: ArrayLike, k: int) -> np.ndarray:
    """Row of Shaw et al.'s table of relative vectors for each offset ``j - i``.

    The offset is clipped to ``[-k, k]`` and shifted by ``k``, so the rows run from
    0 to ``2k``: exactly ``2k + 1`` vectors, and every offset beyond ``k`` (or below
    ``-k``) shares the last (or first) one.

    Parameters
    ----------
    relative_position : array_like of int
        Offsets ``j - i`` (key minus query), any shape.
    k : int
        The clipping distance, an integer ``>= 0``.

    Returns
    -------
    numpy.ndarray
        int64, the shape of ``relative_position``, values in ``0 .. 2k``.

    Examples
    --------
    >>> shaw_index([-5, -2, -1, 0, 1, 2, 5], 2).tolist()
    [0, 0, 1, 2, 3, 4, 4]
    """
    offsets = _offsets("relative_position", relative_position)
    k = _validate.integer("k", k)
    return np.clip(offsets, -k, k) + k


def _t5_thresholds(exact: int, buckets: int, max_distance: int) -> np.ndarray:
    """Smallest distance of each logarithmic bucket after the first, (buckets - exact - 1,).

    Distance ``n >= exact`` goes to bucket ``exact + floor(ln(n/exact) / ln(M/exact) * a)``
    (``a = buckets - exact``, ``M = max_distance``), capped at ``buckets - 1``. That
    floor is at least ``q`` exactly when ``n**a * exact**q >= M**q * exact**a``, an
    inequality between integers, so each threshold is found by bisection in integers.
    """
    a = buckets - exact
    found = []
    for q in range(1, a):
        target = max_distance**q * exact**a
        low, high = exact, max(exact, max_distance) + 1
        while high**a * exact**q < target:
            high *= 2
        while low < high:  # smallest n with n**a * exact**q >= target
            middle = (low + high) // 2
            if middle**a * exact**q >= target:
                high = middle
            else:
                low = middle + 1
        found.append(low)
    return np.array(found, dtype=np.int64)


def t5_bucket(
    relative_position: ArrayLike,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> np.ndarray:
    """T5's bucket of each offset ``key - query``.

    Bidirectional (the encoder): half of the buckets for each sign, positive offsets
    in the upper half. Causal (the decoder): all buckets for the past; offsets to the
    future (positive) fall in bucket 0 with offset 0. In each half, with ``h`` buckets
    and ``e = h // 2``, a distance ``n < e`` has bucket ``n``; a larger one bucket
    ``e + floor(ln(n / e) / ln(max_distance / e) * (h - e))``, at most ``h - 1``.
    The floor is decided exactly, in integers.

    Parameters
    ----------
    relative_position : array_like of int
        Offsets, key position minus query position, any shape.
    bidirectional : bool, optional
        True for T5's encoder (default), False for its decoder.
    num_buckets : int, optional
        Number of buckets, an integer ``>= 2`` (even when bidirectional); 32 in T5.
    max_distance : int, optional
        The distance the logarithmic buckets stretch to, an integer ``>`` the number
        ``e`` of exact buckets; 128 in T5. (The last bucket of a half begins earlier:
        at 91 for T5's encoder.)

    Returns
    -------
    numpy.ndarray
        int64, the shape of ``relative_position``, values in ``0 .. num_buckets - 1``.

    Examples
    --------
    Exact below 8, then logarithmic; the last bucket of each half starts at 91, long
    before max_distance:

    >>> t5_bucket([0, 1, 7, 8, 12, 90, 91, 500]).tolist()
    [0, 17, 23, 24, 25, 30, 31, 31]
    >>> t5_bucket([0, -1, -7, -8, -91]).tolist()
    [0, 1, 7, 8, 15]
    >>> t5_bucket([3, 0, -15, -16, -113], bidirectional=False).tolist()
    [0, 0, 15, 16, 31]
    """
    offsets = _offsets("relative_position", relative_position)
    if not isinstance(bidirectional, (bool, np.bool_)):
        raise TypeError(f"bidirectional must be True or False, got {bidirectional!r}")
    num_buckets = _validate.integer("num_buckets", num_buckets, minimum=2)
    if bidirectional and num_buckets % 2:
        raise ValueError(
            f"num_buckets must be even when bidirectional (half for each sign), got {num_buckets}"
        )
    half = num_buckets // 2 if bidirectional else num_buckets
    exact = half // 2
    if exact < 1:
        raise ValueError(
            f"num_buckets must leave at least one exact bucket per half, got {num_buckets}"
        )
    max_distance = _validate.integer("max_distance", max_distance, minimum=1)
    if max_distance <= exact:
        raise ValueError(
            f"max_distance must be > {exact}, the exact buckets of each half (T5's code "
            f"divides by log(max_distance / {exact})), got {max_distance}"
        )
    _validate.memory(f"relative_position of shape {offsets.shape}", 32 * offsets.size)
    if bidirectional:
        upper = np.where(offsets > 0, half, 0)
        distance = np.abs(offsets)
    else:
        upper = np.zeros_like(offsets)
        distance = np.maximum(-offsets, 0)
    thresholds = _t5_thresholds(exact, half, max_distance)
    large = np.minimum(exact + np.searchsorted(thresholds, distance, side="right"), half - 1)
    return upper + np.where(distance < exact, distance, large)


def _slope_exponents(num_heads: int, max_bias: Fraction) -> list[Fraction]:
    """Exponents ``q_h`` of the slopes ``2**(-q_h)``, in head order (reference code)."""
    closest = 1 << (num_heads.bit_length() - 1)  # 2**floor(log2 H)
    first = [max_bias * h / closest for h in range(1, closest + 1)]
    if closest == num_heads:
        return first
    # Then every other slope of the series for 2 * closest heads: its odd terms.
    extra = [max_bias * h / (2 * closest) for h in range(1, 2 * closest + 1, 2)]
    return first + extra[: num_heads - closest]


def alibi_slopes(num_heads: int, *, max_bias: float = 8) -> np.ndarray:
    """ALiBi's head slopes, as its reference code chooses them.

    For ``H`` a power of two, head ``h = 1 .. H`` gets ``m_h = 2**(-max_bias h / H)``
    (``1/2, 1/4, ..., 1/256`` for eight heads). For other ``H`` the reference code
    takes the slopes for ``c = 2**floor(log2 H)`` heads, then every other slope of the
    series for ``2c`` heads, the first ``H - c`` of them. So for 12 heads the last four
    are ``2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5``, not ``2**(-8h/12)``.

    Parameters
    ----------
    num_heads : int
        Number of heads, an integer ``>= 1``.
    max_bias : float, optional
        The exponent scale, 8 in the paper (MPT's ``alibi_bias_max``); a finite
        number ``> 0``.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(num_heads,)``: each ``2**(-q_h)`` rounded once.

    Examples
    --------
    >>> alibi_slopes(8).tolist()
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    >>> [round(float(m), 6) for m in alibi_slopes(12)[8:]]
    [0.707107, 0.353553, 0.176777, 0.088388]
    """
    num_heads = _validate.integer("num_heads", num_heads, minimum=1)
    if isinstance(max_bias, bool):
        raise TypeError(f"max_bias must be a finite number > 0, got bool {max_bias!r}")
    scale = _validate.real("max_bias", max_bias)
    if not scale > 0:
        raise ValueError(f"max_bias must be a finite number > 0, got {scale!r}")
    _validate.memory(f"num_heads={num_heads}", 256 * num_heads)
    exponents = _slope_exponents(num_heads, Fraction(scale))
    return np.array([_power_of_half(q) for q in exponents], dtype=np.float64)


def _power_of_half(q: Fraction) -> float:
    """``2**(-q)`` rounded once to float64 (the integer part exactly, the rest to 40 digits)."""
    from decimal import Decimal, localcontext

    whole, part = divmod(q, 1)
    with localcontext() as context:
        context.prec = 40
        fraction = (-(Decimal(part.numerator) / part.denominator) * Decimal(2).ln()).exp()
        return float(fraction * Decimal(2) ** -int(whole))


def alibi_bias(length: int, num_heads: int, *, max_bias: float = 8) -> np.ndarray:
    """ALiBi's bias ``-m_h (i - j)`` for every head, query ``i`` and key ``j``.

    A causal model masks the keys ``j > i``; above the diagonal the values here
    (positive) are what the formula gives, for a reader to mask. Implementations
    often add ``m_h j`` instead (BLOOM does): that differs from this bias by
    ``m_h i``, the same for every key of a row, which softmax ignores.

    Parameters
    ----------
    length : int
        Number of positions, an integer ``>= 0``.
    num_heads : int
        Number of heads, an integer ``>= 1``.
    max_bias : float, optional
        As for :func:`alibi_slopes`.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(num_heads, length, length)``; entry ``[h, i, j]`` is
        ``-m_h (i - j)``, exact to float64 rounding of one product.

    Examples
    --------
    >>> alibi_bias(3, 2)[0].tolist()  # slope 2**(-8/2) = 1/16 for the first of two heads
    [[0.0, 0.0625, 0.125], [-0.0625, 0.0, 0.0625], [-0.125, -0.0625, 0.0]]
    """
    length = _validate.integer("length", length)
    num_heads = _validate.integer("num_heads", num_heads, minimum=1)
    _validate.memory(
        f"length={length}, num_heads={num_heads}", 8 * num_heads * length * length + 64 * length
    )
    slopes = alibi_slopes(num_heads, max_bias=max_bias)  # (H,)
    position = np.arange(length, dtype=np.float64)  # (L,)
    offset = position[None, :] - position[:, None]  # (L, L): j - i, exact
    return slopes[:, None, None] * offset[None, :, :]  # (H, L, L): -m (i - j)
