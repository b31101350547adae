"""Rotary position embeddings: turn each query and key pair by its position's angle.

Su et al. (2021, RoFormer) do not add anything to the token. Instead, just before
the attention score, they rotate pair ``i`` of a query or key at position ``m`` by
the angle ``m * w_i``, with the speeds of the sinusoidal code,

    w_i = base ** (-2i / d),        i = 0 .. d/2 - 1,

turning ``(a, b)`` to ``(a cos t - b sin t, a sin t + b cos t)``, ``t = m * w_i``
(anticlockwise). Since ``R(m t)^T R(n t) = R((n - m) t)``, the score of a query at
``m`` and a key at ``n`` is ``<q, R((n - m) t) k>``: it depends on the positions
only through the offset ``n - m``.

Two pairings
------------
Which two coordinates form pair ``i`` is a convention, and both are in use:

- ``"interleaved"``: coordinates ``(2i, 2i + 1)``. RoFormer, Meta's LLaMA
  reference code (it reads adjacent coordinates as one complex number) and GPT-J
  ("rotate every two").
- ``"half"``: coordinates ``(i, i + d/2)``, the "rotate_half" layout of Hugging
  Face Transformers' Llama and of GPT-NeoX.

The speeds are the same in both. The layouts differ by a fixed permutation of the
coordinates (:func:`pairing_permutation`), so the same query and key give different
scores under the two pairings. A checkpoint moves from one to the other only if the
output columns of its query and key projections are permuted to match.

How the rotation is computed
----------------------------
The angle ``m * w_i`` is never rounded before its sine and cosine are taken: as in
:mod:`posenc.encoding`, ``w_i`` is held as a double-double, the product with the
(exact float64) position is formed exactly and reduced modulo ``pi/2``, and the
cosine and sine come out correctly rounded to float64, for every ``|m| <= 2**53``.
The rotation itself is two products and a sum per coordinate in float64. Each
cosine and sine is within 2**-54 of its true value (half an ulp of a number <= 1),
each product and the sum add one rounding, so an output pair is within
``(2 + 3*sqrt(2)) * 2**-54``, about 3.5e-16, times the length of the input pair of
the exact rotation (to first order; below 4e-16 in all).

References
----------
- J. Su, Y. Lu, S. Pan, A. Murtadha, B. Wen, Y. Liu, "RoFormer: Enhanced
  Transformer with Rotary Position Embedding", arXiv:2104.09864 (2021), section 3.
- A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.5 (the
  speeds ``w_i``).
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from posenc import _validate
from posenc.encoding import _cis, _ladder, _two_prod

__all__ = ["PAIRINGS", "pairing_permutation", "rotary", "rotary_angles", "rotary_matrix"]

#: The two ways of grouping coordinates into pairs, by name.
PAIRINGS = ("interleaved", "half")

# Elements per temporary array when the cosines and sines are computed (as in encoding).
_CHUNK = 8192


# --------------------------------------------------------------------------------------
# Argument checks, in the style of posenc._validate.


def _pairing(value: object) -> str:
    """Return the pairing name: ``"interleaved"`` or ``"half"``."""
    message = f'pairing must be "interleaved" or "half", got {value!r}'
    if not isinstance(value, str):
        raise TypeError(message)
    if value not in PAIRINGS:
        raise ValueError(message)
    return value


def _position(value: object) -> float:
    """Return one position as a float: a finite real number with ``|p| <= 2**53``."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_):
        if abs(int(value)) > _validate.MAX_POSITION:
            raise ValueError(f"position must satisfy |position| <= 2**53, got {value!r}")
    result = _validate.real("position", value)
    if abs(result) > _validate.MAX_POSITION:
        raise ValueError(f"position must satisfy |position| <= 2**53, got {result!r}")
    return result


def _positions(value: object) -> np.ndarray:
    """Return positions as a float64 array (L,): finite reals, each ``|p| <= 2**53``.

    Integer positions are exact; ``bool``, complex and non-numeric entries are refused.
    """
    array = np.asarray(value)
    if array.dtype == object:  # Python integers too large for int64, or mixed objects
        entries = array.ravel().tolist()
        if all(
            isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_) for v in entries
        ):
            if any(
                isinstance(v, numbers.Integral) and abs(v) > _validate.MAX_POSITION
                for v in entries
            ):
                raise ValueError("positions must satisfy |position| <= 2**53 (exact in float64)")
            array = np.array(entries, dtype=np.float64).reshape(array.shape)
    if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
        raise TypeError(
            f"positions must be a 1-D sequence of real numbers, got dtype {array.dtype}"
        )
    if array.ndim != 1:
        raise ValueError(
            f"positions must be a 1-D sequence of real numbers, got shape {array.shape}"
        )
    _validate.memory(f"positions of shape {array.shape}", 8 * array.size)  # the float64 copy
    if array.dtype.kind in "iu":
        if array.size and max(-int(array.min()), int(array.max())) > _validate.MAX_POSITION:
            raise ValueError("positions must satisfy |position| <= 2**53 (exact in float64)")
        return array.astype(np.float64)
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError("positions must be finite real numbers, got inf or nan")
    if array.size and np.abs(array).max() > _validate.MAX_POSITION:
        raise ValueError("positions must satisfy |position| <= 2**53 (exact in float64)")
    return array


def _vectors(value: object, count: int) -> tuple[np.ndarray, np.dtype]:
    """``x`` as float64 (..., L, d) with L = ``count``, and the dtype of the result."""
    array = np.asarray(value)
    if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
        raise TypeError(f"x must hold real numbers, got dtype {array.dtype}")
    if array.ndim < 2:
        raise ValueError(f"x must have shape (..., L, d), got {array.shape}")
    if array.shape[-2] != count:
        raise ValueError(
            f"x must have shape (..., L, d) with L = len(positions) = {count}, got {array.shape}"
        )
    width = array.shape[-1]
    if width < 2 or width % 2:
        raise ValueError(f"the last axis of x (the width d) must be even and >= 2, got {width}")
    # The float64 copy, cos and sin (L, d/2), the products and the output: rotary's
    # peak, measured at about 26 bytes per entry of x.
    _validate.memory(f"x of shape {array.shape}", 32 * array.size + 112 * width)
    out = array.dtype if array.dtype.kind == "f" else np.dtype(np.float64)
    array = array.astype(np.float64, copy=False)
    if not np.all(np.isfinite(array)):
        raise ValueError("x must hold finite real numbers, got inf or nan")
    return array, out


# --------------------------------------------------------------------------------------
# Public functions.


def pairing_permutation(width: int) -> np.ndarray:
    """Indices that rearrange a split-half vector into the interleaved layout.

    With ``p = pairing_permutation(d)`` and ``x`` in the split-half layout (pair ``i``
    in coordinates ``i`` and ``i + d/2``), ``x[..., p]`` is the same vector in the
    interleaved layout (pair ``i`` in coordinates ``2i`` and ``2i + 1``):
    ``p[2i] = i`` and ``p[2i + 1] = i + d/2``. Writing ``Pi`` for the matrix with
    ``Pi @ x == x[p]``, the two rotations are related by

        rotary(x, pos, pairing="half") == Pi.T @ rotary(Pi @ x, pos)

    applied to each vector. The inverse, ``np.argsort(p)``, lists the even
    coordinates and then the odd ones: it takes interleaved vectors (or the output
    columns of interleaved query and key weights) to the split-half layout.

    Parameters
    ----------
    width : int
        Model width ``d``, an even integer ``>= 2``.

    Returns
    -------
    numpy.ndarray
        Integer indices, shape ``(width,)``, a permutation of ``0 .. width - 1``.

    Examples
    --------
    >>> pairing_permutation(6)
    array([0, 3, 1, 4, 2, 5])
    >>> np.argsort(pairing_permutation(6))
    array([0, 2, 4, 1, 3, 5])
    """
    width = _validate.width(width)
    _validate.memory(f"width={width}", 16 * width)
    half = width // 2
    perm = np.empty(width, dtype=np.intp)  # (d,)
    perm[0::2] = np.arange(half)  # interleaved 2i   <- split-half i
    perm[1::2] = np.arange(half, width)  # interleaved 2i+1 <- split-half i + d/2
    return perm


def rotary_angles(positions: ArrayLike, width: int, *, base: float = 10000.0) -> np.ndarray:
    """The rotation angles ``positions[m] * w_i``, ``w_i = base**(-2i/width)``.

    The same angles serve both pairings: pair ``i`` of the token at ``positions[m]``
    is turned by ``angles[m, i]``.

    Parameters
    ----------
    positions : array_like
        Positions, shape ``(L,)``: finite real numbers with ``|p| <= 2**53``
        (integers are exact).
    width : int
        Model width ``d``, an even integer ``>= 2``.
    base : float, optional
        A finite real number ``> 1``; 10000 in RoFormer and the original LLaMA.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(L, width // 2)``. Each angle is the exact product of the
        position and the real number ``base**(-2i/width)``, rounded once (its error is
        at most about half an ulp). :func:`rotary` does not use these rounded angles:
        it takes the cosine and sine of the exact angle.

    Examples
    --------
    >>> print(rotary_angles([0, 1, 2], 4))
    [[0.   0.  ]
     [1.   0.01]
     [2.   0.02]]
    """
    positions = _positions(positions)  # (L,)
    width = _validate.width(width)
    base = _validate.base(base)
    # The (L, d/2) result and the temporaries of the exact product (measured: 14 L d).
    _validate.memory(
        f"len(positions)={positions.size}, width={width}", 16 * positions.size * width + 16 * width
    )
    w_hi, w_lo = _ladder(base, width)  # (d/2,) each: w = w_hi + w_lo
    hi, lo = _two_prod(positions[:, None], w_hi)  # (L, d/2): pos * w_hi exactly
    return hi + (lo + positions[:, None] * w_lo)  # (L, d/2): one final rounding


def _cos_sin(positions: np.ndarray, width: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """Correctly rounded ``cos`` and ``sin`` of ``positions[m] * w_i``, each (L, d/2)."""
    w_hi, w_lo = _ladder(base, width)  # (d/2,) each
    half = width // 2
    cos = np.empty((positions.size, half))  # (L, d/2)
    sin = np.empty((positions.size, half))  # (L, d/2)
    rows = max(1, _CHUNK // half)  # rows per pass, to bound the temporaries of _cis
    for top in range(0, positions.size, rows):
        part = slice(top, top + rows)
        sin[part], _, cos[part], _ = _cis(positions[part, None], w_hi, w_lo)  # (rows, d/2)
    return cos, sin


def _halves(width: int, pairing: str) -> tuple[slice | np.ndarray, slice | np.ndarray]:
    """The coordinates holding the first and the second member of every pair."""
    if pairing == "interleaved":
        return slice(0, width, 2), slice(1, width, 2)
    return slice(0, width // 2), slice(width // 2, width)


def rotary(
    x: ArrayLike,
    positions: ArrayLike,
    *,
    base: float = 10000.0,
    pairing: str = "interleaved",
) -> np.ndarray:
    """Rotate every pair of ``x[..., m, :]`` by the angles of position ``positions[m]``.

    Pair ``i`` of the token at position ``p`` is turned anticlockwise by
    ``t = p * base**(-2i/d)``: ``(a, b) -> (a cos t - b sin t, a sin t + b cos t)``.
    Applied to queries at positions ``m`` and keys at positions ``n``, the scores
    ``<rotary(q, m), rotary(k, n)>`` depend on the positions only through ``n - m``
    (Su et al. 2021). Lengths are unchanged: each pair is rotated, not shifted.

    Parameters
    ----------
    x : array_like
        Queries or keys, shape ``(..., L, d)``: one row per position, ``d`` even.
        Real numbers; integers are converted to float64.
    positions : array_like
        The position of each row, shape ``(L,)``: finite real numbers with
        ``|p| <= 2**53`` (integers are exact; negative positions are allowed).
    base : float, optional
        A finite real number ``> 1``; 10000 in RoFormer and the original LLaMA.
    pairing : {"interleaved", "half"}, optional
        ``"interleaved"``: pair ``i`` is coordinates ``(2i, 2i+1)`` (RoFormer, Meta
        LLaMA, GPT-J). ``"half"``: pair ``i`` is ``(i, i + d/2)`` (Hugging Face
        Llama, GPT-NeoX).

    Returns
    -------
    numpy.ndarray
        The shape of ``x``; the dtype of ``x`` if it is float16, float32 or float64,
        otherwise float64. Computed in float64 (the module docstring gives the error
        bound) and rounded once to the output dtype.

    Examples
    --------
    One token at position 1, width 4: pair 0 turns by 1 radian, pair 1 by 0.01.
    Coordinate 0 is paired with coordinate 1 in one layout, with 2 in the other.

    >>> x = np.array([[1.0, 0.0, 0.0, 0.0]])
    >>> print(rotary(x, [1]).round(6))
    [[0.540302 0.841471 0.       0.      ]]
    >>> print(rotary(x, [1], pairing="half").round(6))
    [[0.540302 0.       0.841471 0.      ]]

    The score of a query at m and a key at n depends only on n - m:

    >>> q, k = np.array([[1.0, 2.0, 3.0, 4.0]]), np.array([[0.5, -1.0, 2.0, 1.0]])
    >>> def score(m, n):
    ...     return float(rotary(q, [m])[0] @ rotary(k, [n])[0])
    >>> bool(np.isclose(score(3, 10), score(100, 107)))
    True
    """
    positions = _positions(positions)  # (L,)
    x, out_dtype = _vectors(x, positions.size)  # (..., L, d)
    base = _validate.base(base)
    pairing = _pairing(pairing)
    width = x.shape[-1]
    cos, sin = _cos_sin(positions, width, base)  # (L, d/2) each
    first, second = _halves(width, pairing)
    a, b = x[..., first], x[..., second]  # (..., L, d/2) each: the two members of each pair
    out = np.empty(x.shape)  # (..., L, d)
    out[..., first] = a * cos - b * sin  # (..., L, d/2)
    out[..., second] = a * sin + b * cos  # (..., L, d/2)
    return out.astype(out_dtype, copy=False)


def rotary_matrix(
    position: float,
    width: int,
    *,
    base: float = 10000.0,
    pairing: str = "interleaved",
) -> np.ndarray:
    """The matrix ``R`` with ``R @ v == rotary(v[None], [position], ...)[0]`` for every ``v``.

    For the interleaved pairing ``R`` is block-diagonal, block ``i`` being
    ``[[cos t, -sin t], [sin t, cos t]]`` with ``t = position * base**(-2i/width)``;
    for the split-half pairing it is the same matrix with rows and columns permuted,
    ``Pi.T @ R_interleaved @ Pi`` (see :func:`pairing_permutation`). ``R`` is
    orthogonal, and ``R(m).T @ R(n) == R(n - m)``.

    Parameters
    ----------
    position : int or float
        A finite real number with ``|position| <= 2**53``.
    width : int
        Model width ``d``, an even integer ``>= 2``.
    base : float, optional
        A finite real number ``> 1``; 10000 in RoFormer and the original LLaMA.
    pairing : {"interleaved", "half"}, optional
        Which coordinates form a pair, as in :func:`rotary`.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(width, width)``; entries are correctly rounded.

    Examples
    --------
    >>> print(rotary_matrix(1, 2).round(6))
    [[ 0.540302 -0.841471]
     [ 0.841471  0.540302]]
    >>> print(rotary_matrix(1, 4, pairing="half").round(4))
    [[ 0.5403  0.     -0.8415  0.    ]
     [ 0.      1.      0.     -0.01  ]
     [ 0.8415  0.      0.5403  0.    ]
     [ 0.      0.01    0.      1.    ]]
    """
    position = _position(position)
    width = _validate.width(width)
    base = _validate.base(base)
    pairing = _pairing(pairing)
    _validate.memory(f"width={width}", 8 * width * width + 112 * width)
    cos, sin = _cos_sin(np.array([position]), width, base)  # (1, d/2) each
    first, second = _halves(width, pairing)
    a = np.arange(width)[first]  # (d/2,): first member of each pair
    b = np.arange(width)[second]  # (d/2,): second member of each pair
    matrix = np.zeros((width, width))  # (d, d)
    matrix[a, a] = cos[0]
    matrix[a, b] = -sin[0]
    matrix[b, a] = sin[0]
    matrix[b, b] = cos[0]
    return matrix
