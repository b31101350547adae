"""The layouts of a rotary model's pairs and axes: cos/sin caches and multimodal angles.

A rotary head turns each pair of its coordinates by an angle; how the angles are laid
out in the cos and sin caches, and which position drives which pair, differ between
implementations:

- :func:`cos_sin`: the caches, in the "half" layout ``cat(c, c)`` (Hugging Face's
  ``rotate_half``), "interleaved" ``c0 c0 c1 c1 ...`` (Meta's Llama code, GPT-J) or one
  column per pair;
- :func:`mrope_axes` and :func:`mrope_angles`: multimodal rotary (M-RoPE), where each pair
  is turned by the token's position on one of three axes (temporal, height, width). Pair
  ``j`` always turns at the ladder's speed ``w_j``; the layouts differ in which axis each
  pair gets (:data:`MROPE_LAYOUTS`):

  - "chunked" (Qwen2-VL, Qwen2.5-VL): the first ``section[0]`` pairs temporal, the next
    ``section[1]`` height, the last ``section[2]`` width, so the width axis gets only
    slow pairs;
  - "interleaved_thw" (Qwen3-VL, Qwen3.5): pairs 1, 4, 7, ... height and 2, 5, 8, ...
    width, ``section[1]`` and ``section[2]`` of them, the rest temporal, so every axis
    gets fast and slow pairs;
  - "glm" (GLM-4V): chunked, in caches laid out ``c0 c0 c1 c1`` (pairs 2i, 2i + 1);
  - "ernie" (Ernie 4.5 VL): the first ``section[0] + section[1]`` pairs alternate height
    (even) and width (odd), the last ``section[2]`` are temporal; Transformers stores the
    ladder permuted to build this, and the pairs are 2i, 2i + 1.

  The layouts differ by a permutation of the pairs' axes: on text, where the three
  positions are equal, every layout is 1-D rotary.

- :func:`axial_angles`: the 2-D rotary of vision towers (Qwen2-VL's ``"axial"``): a
  patch's row turns each pair of the first half, its column each pair of the second.

References
----------
- P. Wang et al., "Qwen2-VL", arXiv:2409.12191 (2024): M-RoPE.
- Transformers 5.24: ``models/qwen2_vl/modeling_qwen2_vl.py`` (chunked; the axial vision
  rotary), ``models/qwen3_vl/modeling_qwen3_vl.py`` (interleaved),
  ``models/glm4v/modeling_glm4v.py``, ``models/ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from posenc import _validate
from posenc.encoding import _cis, _two_prod
from posenc.precision import round_to
from posenc.rotary import _positions

__all__ = [
    "LAYOUTS",
    "MROPE_LAYOUTS",
    "PATHS",
    "axial_angles",
    "cos_sin",
    "mrope_angles",
    "mrope_axes",
]

#: Layouts of a cos/sin cache: ``cat(c, c)``, ``c0 c0 c1 c1 ...``, or one column per pair.
LAYOUTS = ("half", "interleaved", "pairs")

#: How :func:`cos_sin` computes: exactly, or as a float32 implementation does.
PATHS = ("exact", "float32")

#: How M-RoPE assigns its pairs to the temporal, height and width axes (:func:`mrope_axes`).
MROPE_LAYOUTS = ("chunked", "interleaved_thw", "glm", "ernie")


def _positive(name: str, value: object) -> float:
    result = _validate.real(name, value)
    if not result > 0:
        raise ValueError(f"{name} must be a finite real number > 0, got {result!r}")
    return result


def _speeds(value: object) -> np.ndarray:
    w = _validate.real_array("inv_freq", value)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"inv_freq must be a non-empty 1-D array, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("inv_freq must hold finite real numbers >= 0")
    return w


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    message = f"{name} must be one of {', '.join(allowed)}, got {_validate.shown(value)}"
    if not isinstance(value, str):
        raise TypeError(message)
    if value not in allowed:
        raise ValueError(message)
    return value


def cos_sin(
    positions: ArrayLike,
    inv_freq: ArrayLike,
    *,
    attention_factor: float = 1.0,
    layout: str = "half",
    dtype: object = "float64",
    path: str = "exact",
) -> tuple[np.ndarray, np.ndarray]:
    """The cosine and sine caches of a rotary model, as its implementation stores them.

    Entry ``(m, i)`` is ``a * cos(positions[m] * inv_freq[i])`` (and the sine), with ``a``
    the attention factor.

    Parameters
    ----------
    positions : array_like
        Positions, shape ``(L,)``, finite reals with ``|p| <= 2**53``.
    inv_freq : array_like
        The speeds, shape ``(P,)``, each taken as the exact float64 value given.
    attention_factor : float
        Multiplies both caches (so a logit gains its square).
    layout : {"half", "interleaved", "pairs"}
        "half": ``cat(c, c)``, shape ``(L, 2P)``, as Hugging Face stores it for
        ``rotate_half``; "interleaved": ``c0 c0 c1 c1 ...``, shape ``(L, 2P)``; "pairs":
        one column per pair, shape ``(L, P)``.
    dtype : {"float64", "float32", "float16", "bfloat16"}
        The stored format. bfloat16 values are returned as float32 holding bfloat16
        numbers (NumPy has no bfloat16).
    path : {"exact", "float32"}
        "exact": the angle is the exact product, its cosine and sine are correctly
        rounded to float64, multiplied by the attention factor (one rounding) and rounded
        once to ``dtype``. "float32": what a float32 implementation computes: speeds,
        positions and the attention factor rounded to float32, the angle rounded to
        float32 before its cosine and sine are taken (these then correctly rounded).

    Precision
    ---------
    On the exact path each entry is within ``2**-53 (1 + a)`` of ``a cos(angle)`` before
    the rounding to ``dtype``, which adds half an ulp of ``dtype``: 2**-24, 2**-11 and
    2**-8 relative for float32, float16 and bfloat16. A cache computed the float32 way
    carries a phase error: the angle ``t w`` rounded to float32 is off by up to
    ``2**-24 |t w|`` radians, so at position 10**5 and speed 1 the phase can be wrong by
    about 0.006 rad; positions themselves are exact in float32 only up to 2**24, in
    float16 up to 2048 and in bfloat16 up to 256.

    Examples
    --------
    >>> c, s = cos_sin([0, 1], [1.0, 0.5], layout="pairs")
    >>> print(c.round(4), s.round(4), sep="\\n")
    [[1.     1.    ]
     [0.5403 0.8776]]
    [[0.     0.    ]
     [0.8415 0.4794]]
    """
    positions = _positions(positions)  # (L,)
    w = _speeds(inv_freq)  # (P,)
    factor = _positive("attention_factor", attention_factor)
    layout = _choice("layout", layout, LAYOUTS)
    path = _choice("path", path, PATHS)
    out = _cache_dtype(dtype)
    # The (L, P) cos and sin, the exact products' temporaries and the laid-out result.
    _validate.memory(
        f"len(positions)={positions.size}, len(inv_freq)={w.size}", 96 * positions.size * w.size
    )
    if path == "exact":
        cos, sin = _exact_cos_sin(positions, w)
        cos, sin = cos * factor, sin * factor
    else:
        angle = (positions.astype(np.float32)[:, None] * w.astype(np.float32)).astype(np.float64)
        sin, _, cos, _ = _cis(angle, angle * 0 + 1.0, angle * 0)  # cis(angle * 1) exactly
        f32 = np.float32(factor)
        cos = cos.astype(np.float32) * f32
        sin = sin.astype(np.float32) * f32
    cos, sin = round_to(cos, out), round_to(sin, out)
    numpy_out = np.float32 if out == "bfloat16" else np.dtype(out)
    cos, sin = cos.astype(numpy_out), sin.astype(numpy_out)
    if layout == "half":
        return np.concatenate([cos, cos], axis=1), np.concatenate([sin, sin], axis=1)
    if layout == "interleaved":
        return np.repeat(cos, 2, axis=1), np.repeat(sin, 2, axis=1)
    return cos, sin


def _cache_dtype(value: object) -> str:
    names = ("float64", "float32", "float16", "bfloat16")
    if isinstance(value, str):
        return _choice("dtype", value, names)
    try:
        name = np.dtype(value).name
    except TypeError:
        message = f"dtype must be one of {', '.join(names)}, got {_validate.shown(value)}"
        raise TypeError(message) from None
    return _choice("dtype", name, names)


def _exact_cos_sin(positions: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    cos = np.empty((positions.size, w.size))
    sin = np.empty((positions.size, w.size))
    rows = max(1, 8192 // w.size)
    zero = np.zeros_like(w)
    for top in range(0, positions.size, rows):
        part = slice(top, top + rows)
        sin[part], _, cos[part], _ = _cis(positions[part, None], w, zero)
    return cos, sin


def mrope_axes(layout: str, sections: Sequence[int], pairs: int | None = None) -> np.ndarray:
    """The axis (0 temporal, 1 height, 2 width) that turns each pair, in ladder order.

    ``sections`` gives how many pairs each axis has; ``pairs`` how many pairs the head
    rotates (their sum by default). In the interleaved layout the last height and width
    pairs, ``3 n_h - 2`` and ``3 n_w - 1``, must exist (be below ``pairs``), or the call
    raises: Transformers' ``slice(a, 3 n_a, 3)`` would silently give that axis fewer pairs
    than its section and time more. Pair ``j`` turns at the ladder's ``w_j`` by the
    position on axis ``axes[j]``. The interleaved layout may cover fewer pairs than the
    head has (Qwen4-Exp: [11, 11, 10] of 128): the others are temporal, as Transformers
    leaves them; the other layouts split the pairs by the sections, which must cover them.

    Examples
    --------
    >>> mrope_axes("chunked", (2, 2, 2)).tolist()
    [0, 0, 1, 1, 2, 2]
    >>> mrope_axes("interleaved_thw", (2, 2, 2)).tolist()
    [0, 1, 2, 0, 1, 2]
    >>> mrope_axes("ernie", (2, 2, 2)).tolist()
    [1, 2, 1, 2, 0, 0]
    """
    layout = _choice("layout", layout, MROPE_LAYOUTS)
    counts = [_validate.integer("sections", n, minimum=0) for n in sections]
    if len(counts) != 3:
        raise ValueError(
            f"sections must be three pair counts, got {_validate.shown(list(sections))}"
        )
    total = sum(counts)
    pairs = total if pairs is None else _validate.integer("pairs", pairs, minimum=0)
    if pairs != total and (layout != "interleaved_thw" or pairs < total):
        raise ValueError(
            f"the {layout} layout splits the pairs by the sections {counts}, which cover"
            f" {total} pairs, not the {pairs} of the head"
        )
    if layout in ("chunked", "glm"):
        return np.repeat(np.arange(3), counts)  # (P,)
    axes = np.zeros(pairs, dtype=int)  # (P,): temporal where nothing else is set
    if layout == "interleaved_thw":
        for axis in (1, 2):
            # The axis's last pair is 3 n - 3 + axis; it must be one of the head's pairs,
            # or Transformers' slice(axis, 3 n, 3) silently gives the axis fewer than n.
            if 3 * counts[axis] - 3 + axis >= pairs:
                raise ValueError(
                    f"sections {counts}: the interleaved layout puts {counts[axis]} pairs of"
                    f" axis {axis} at {axis}, {axis + 3}, ..., past the {pairs} pairs"
                )
            axes[axis : 3 * counts[axis] : 3] = axis
        return axes
    if counts[0] != counts[1]:  # ernie: height and width alternate over the first pairs
        raise ValueError(f"the ernie layout needs as many height as width pairs, got {counts}")
    alternating = counts[0] + counts[1]
    axes[:alternating:2], axes[1:alternating:2] = 1, 2
    return axes


def axial_angles(rows: ArrayLike, columns: ArrayLike, inv_freq: ArrayLike) -> np.ndarray:
    """The angles of a 2-D (axial) vision rotary: ``(N, 2P)``, row angles then column angles.

    Patch ``n`` at ``(rows[n], columns[n])`` turns pair ``i`` of the first half by
    ``rows[n] * inv_freq[i]`` and pair ``i`` of the second half by ``columns[n] *
    inv_freq[i]``, as Qwen2-VL's vision tower does (``cat(h, w)``, then the whole laid out
    ``cat(., .)`` for ``rotate_half``). Each angle is the exact product, rounded once.

    Examples
    --------
    >>> axial_angles([1, 2], [3, 0], [1.0, 0.5]).tolist()
    [[1.0, 0.5, 3.0, 1.5], [2.0, 1.0, 0.0, 0.0]]
    """
    h = _positions(rows)  # (N,)
    w = _positions(columns)  # (N,)
    if h.shape != w.shape:
        raise ValueError(f"rows and columns must have the same length, got {h.size} and {w.size}")
    speeds = _speeds(inv_freq)  # (P,)
    parts = [_two_prod(axis[:, None], speeds[None, :]) for axis in (h, w)]
    return np.concatenate([hi + lo for hi, lo in parts], axis=1)  # (N, 2P)


def mrope_angles(
    positions_thw: ArrayLike,
    inv_freq: ArrayLike,
    sections: Sequence[int],
    layout: str = "chunked",
) -> np.ndarray:
    """M-RoPE's angles: pair ``j`` turns by the token's position on its axis (:func:`mrope_axes`).

    In the "chunked" layout (Qwen2-VL, the default) the pairs are split, in order, into
    ``sections[0]`` temporal, ``sections[1]`` height and ``sections[2]`` width pairs; the
    other layouts of :data:`MROPE_LAYOUTS` assign them otherwise. Pair ``j`` of the token at
    ``(t, h, w)`` turns by ``p_a * inv_freq[j]``, ``p_a`` the token's position on ``j``'s
    axis. When ``t = h = w`` these are the 1-D rotary angles, in every layout. Each angle
    is the exact product, rounded once.

    Examples
    --------
    >>> mrope_angles([[0, 1], [0, 2], [0, 3]], [1.0, 0.5, 0.25], (1, 1, 1)).tolist()
    [[0.0, 0.0, 0.0], [1.0, 1.0, 0.75]]
    """
    grid = _validate.real_array("positions_thw", positions_thw)
    if grid.ndim != 2 or grid.shape[0] != 3:
        raise ValueError(
            f"positions_thw must have shape (3, L): temporal, height, width; got {grid.shape}"
        )
    rows = [_positions(row) for row in grid]
    w = _speeds(inv_freq)
    counts = [_validate.integer("sections", s, minimum=0) for s in sections]
    if len(counts) != 3 or sum(counts) != w.size:
        raise ValueError(
            f"sections must be three pair counts summing to len(inv_freq) = {w.size},"
            f" got {_validate.shown(list(sections))}"
        )
    axis = mrope_axes(layout, counts)  # (P,): the axis of each pair
    chosen = np.stack(rows)[axis].T  # (L, P)
    hi, lo = _two_prod(chosen, w)
    return hi + lo
