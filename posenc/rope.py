"""Rotary frequency schemes: the speeds of a rotary model, and how its context is stretched.

A rotary head of width ``d`` turns pair ``i`` of its queries and keys by ``m * w_i`` at
position ``m`` (:mod:`posenc.rotary`). Which speeds ``w_i`` a model uses is its *scheme*.
Trained at length ``L0`` with ``w_i = b**(-2i/d)``, a model is run at ``L = s * L0`` by
changing the speeds (and sometimes scaling the logits). This module computes the speeds of
the schemes that Hugging Face Transformers names in ``ROPE_INIT_FUNCTIONS`` (and the
default ladder, which each model's rotary class computes itself), with its parameter names
and its reading of them, so that a table from a real model can be checked against it:

================  ===================================================================
``"default"``     ``w_i = b**(-2i/d)`` (RoFormer).
``"linear"``      Position interpolation (Chen et al. 2023): every ``w_i`` divided by
                  ``factor``.
``"dynamic"``     Dynamic NTK: the base becomes ``b * (s L / L0 - (s - 1))**(d/(d-2))``
                  for the current length ``L = max(seq_len, L0)``, ``L0`` being
                  ``max_position_embeddings``.
``"yarn"``        YaRN (Peng et al. 2024): pairs below the correction range keep their
                  speed, pairs above it are divided by ``factor``, with a linear ramp in
                  the pair index between; an attention factor ``0.1 ln s + 1``.
``"longrope"``    LongRoPE (Ding et al. 2024): one searched factor per pair,
                  ``short_factor`` up to ``L0`` and ``long_factor`` beyond; an attention
                  factor ``sqrt(1 + ln s / ln L0)``.
``"llama3"``      Llama 3.1 (Meta's reference code): wavelengths below
                  ``L0 / high_freq_factor`` unchanged, above ``L0 / low_freq_factor``
                  divided by ``factor``, blended between.
``"proportional"`` Gemma 4's global layers: the first ``int(p d / 2)`` pairs turn at
                  ``b**(-2i/d)``, the exponent over the whole head, and the other pairs
                  not at all (speed 0); not NeoX partial rotary, whose exponent is over
                  the rotated width.
``"axial"``       2-D rotary of vision towers (Qwen2-VL and after): the default ladder
                  over ``d / 2`` coordinates, turned once by the row and once by the
                  column of a patch (:mod:`posenc.layouts`).
================  ===================================================================

Each scheme returns the speeds and an *attention factor*: implementations multiply the
cosine and sine caches by it, so a query-key logit is multiplied by its square.

The caches and multimodal layouts are in :mod:`posenc.layouts`, the reading of a model's
``config.json`` in :mod:`posenc.model_config` (both are also importable from here).

Precision
---------
The speeds are computed with 50 significant digits and rounded once, so each is the
float64 nearest the real number the scheme defines (half an ulp). The two exceptions are
the discrete choices that the reference code makes in floating point and that posenc
makes the same way: YaRN's correction range is floored and ceiled from its float64 value
(the formula with :func:`math.log`, as the reference code computes it), and the integer
``rotary_dim = int(head_dim * partial_rotary_factor)`` is the float64 product truncated.
Hugging Face computes the same speeds in float32: its values differ from posenc's by a
few float32 ulps (``make conformance`` measures by how much).

References
----------
- J. Su et al., "RoFormer", arXiv:2104.09864 (2021), section 3.
- S. Chen, S. Wong, L. Chen, Y. Tian, "Extending Context Window of Large Language Models
  via Positional Interpolation", arXiv:2306.15595 (2023).
- bloc97, "NTK-Aware Scaled RoPE", and emozilla, "Dynamically Scaled RoPE", posts on
  Reddit r/LocalLLaMA (2023); no paper.
- B. Peng, J. Quesnelle, H. Fan, E. Shippole, "YaRN", ICLR 2024, arXiv:2309.00071.
- Y. Ding et al., "LongRoPE", arXiv:2402.13753 (2024).
- A. Grattafiori et al., "The Llama 3 Herd of Models", arXiv:2407.21783 (2024); the
  scaling itself is in Meta's reference code (``apply_scaling``), not in the paper.
- P. Wang et al., "Qwen2-VL", arXiv:2409.12191 (2024): M-RoPE.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal, localcontext

import numpy as np
from numpy.typing import ArrayLike

from posenc import _validate

__all__ = [
    "CONFIG_LIMIT",
    "LAYOUTS",
    "MAX_ROTARY_DIM",
    "PATHS",
    "SCHEMES",
    "RopeConfig",
    "check_pairs",
    "cos_sin",
    "default_inv_freq",
    "dynamic_base",
    "inv_freq",
    "llama3_bands",
    "mrope_angles",
    "ntk_base",
    "read_config",
    "rotary_dim",
    "wavelengths",
    "yarn_correction_dim",
    "yarn_correction_range",
    "yarn_mscale",
    "yarn_ramp",
]

#: The schemes of Hugging Face's ``ROPE_INIT_FUNCTIONS`` that posenc computes, and the
#: 2-D "axial" ladder of its vision towers.
SCHEMES = ("default", "linear", "dynamic", "yarn", "longrope", "llama3", "proportional", "axial")

# Which parameters each scheme reads (beyond head_dim, base, partial_rotary_factor).
_PARAMETERS = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor", "max_position_embeddings", "seq_len"),
    "yarn": (
        "factor",
        "original_max_position_embeddings",
        "max_position_embeddings",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "attention_factor",
        "truncate",
    ),
    "longrope": (
        "factor",
        "original_max_position_embeddings",
        "max_position_embeddings",
        "seq_len",
        "short_factor",
        "long_factor",
        "attention_factor",
    ),
    "llama3": (
        "factor",
        "original_max_position_embeddings",
        "low_freq_factor",
        "high_freq_factor",
    ),
    "proportional": ("factor",),
    "axial": (),
}

#: Widest rotated part of a head that posenc computes. Real models rotate a few hundred
#: coordinates per head at most (head_dim is 64 to 256), and each speed is computed to 50
#: digits: identifying a vector of speeds recomputes a few hundred candidate ladders, and
#: at this width (4096 pairs) that took up to 5 s (a vector no scheme explains, all
#: candidates tried), 30 s before the ladder was made of products. The widest ladder a
#: proof uses (Proposition 28's dense one) is half of it.
MAX_ROTARY_DIM = 8192

#: Why the rotated width is bounded, for the messages that refuse a wider one.
_WHY_BOUNDED = (
    "real models rotate at most a few hundred coordinates per head, and each speed is "
    "computed to 50 digits, so a wider ladder would take minutes to identify"
)

#: Largest length (a training length, a position count) read: positions are exact
#: float64 integers up to 2**53, and lengths enter float64 arithmetic (YaRN's range).
MAX_LENGTH = _validate.MAX_POSITION

# 60 digits of pi, for the wavelength comparisons made in Decimal.
_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")
_DIGITS = 50


# --------------------------------------------------------------------------------------
# Argument checks.


def _scheme(value: object) -> str:
    message = f"scheme must be one of {', '.join(SCHEMES)}, got {_validate.shown(value)}"
    if not isinstance(value, str):
        raise TypeError(message)
    if value not in SCHEMES:
        raise ValueError(message)
    return value


def _positive(name: str, value: object) -> float:
    result = _validate.real(name, value)
    if result <= 0:
        raise ValueError(f"{name} must be a finite real number > 0, got {result!r}")
    return result


def _length(name: str, value: object) -> int:
    result = _validate.integer(name, value, minimum=1)
    if result > MAX_LENGTH:
        raise ValueError(
            f"{name} must be an integer from 1 to 2**53 (positions are exact float64 "
            f"integers), got {_validate.shown(result)}"
        )
    return result


def check_pairs(pairs: object, what: str = "inv_freq") -> int:
    """Return ``pairs`` if a ladder of that many rotated pairs is one posenc computes.

    ``what`` names the input in the message (a vector of speeds, a config's head). The
    bound is :data:`MAX_ROTARY_DIM` coordinates, ``MAX_ROTARY_DIM // 2`` pairs.

    Examples
    --------
    >>> check_pairs(64)
    64
    >>> check_pairs(10**6, "speeds.npy")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: speeds.npy has 1000000 rotated pairs (a rotary width of 2000000): ...
    """
    pairs = _validate.integer("pairs", pairs, minimum=1)
    if pairs > MAX_ROTARY_DIM // 2:
        raise ValueError(
            f"{what} has {_validate.shown(pairs)} rotated pairs (a rotary width of "
            f"{_validate.shown(2 * pairs)}): posenc computes rotary widths up to "
            f"{MAX_ROTARY_DIM} ({MAX_ROTARY_DIM // 2} pairs); {_WHY_BOUNDED}"
        )
    return pairs


def _rotary_width(value: object) -> int:
    """``rotary_dim`` checked: even, at least 2, at most :data:`MAX_ROTARY_DIM`."""
    dim = _validate.width(value)
    if dim > MAX_ROTARY_DIM:
        raise ValueError(
            f"rotary_dim must be at most {MAX_ROTARY_DIM}, got {_validate.shown(dim)}: "
            f"{_WHY_BOUNDED}"
        )
    return dim


def _required(scheme: str, name: str, value: object) -> object:
    if value is None:
        raise ValueError(f'the "{scheme}" scheme needs {name}')
    return value


def rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0) -> int:
    """The number of rotated coordinates, ``int(head_dim * partial_rotary_factor)``.

    Only the first ``rotary_dim`` coordinates of a head rotate (GPT-NeoX rotates 25 %,
    GPT-J 64 of 256), and the speeds are ``b**(-2i/rotary_dim)``: the exponent is over the
    rotated width, not the head width. The product is truncated in float64, as
    Hugging Face does. The result is at most :data:`MAX_ROTARY_DIM`.

    Examples
    --------
    >>> rotary_dim(128), rotary_dim(96, 0.25), rotary_dim(80, 0.4)
    (128, 24, 32)
    """
    head_dim = _validate.integer("head_dim", head_dim, minimum=2)
    if head_dim > 2**53:  # the product below is taken in float64
        raise ValueError(
            f"head_dim must be an integer from 2 to 2**53, got {_validate.shown(head_dim)}"
        )
    factor = _validate.real("partial_rotary_factor", partial_rotary_factor)
    if not 0 < factor <= 1:
        raise ValueError(f"partial_rotary_factor must lie in (0, 1], got {factor!r}")
    dim = int(head_dim * factor)
    if dim < 2 or dim % 2:
        raise ValueError(
            f"rotary_dim = int(head_dim * partial_rotary_factor) = int({head_dim} * {factor!r})"
            f" = {dim} must be even and >= 2 (pairs of coordinates rotate)"
        )
    if dim > MAX_ROTARY_DIM:
        raise ValueError(
            f"rotary_dim = int(head_dim * partial_rotary_factor) = int({head_dim} * {factor!r})"
            f" = {dim} is more than {MAX_ROTARY_DIM}, the widest posenc computes: "
            f"{_WHY_BOUNDED}"
        )
    return dim


# --------------------------------------------------------------------------------------
# The ladder in 50 digits.


def _ladder(dim: int, base: Decimal) -> list[Decimal]:
    """``base**(-2i/dim)`` for ``i = 0 .. dim/2 - 1``, each to 50 digits.

    One exponential, the step ``base**(-2/dim)``, then products, in 10 guard digits: each
    product adds at most ``10**-59`` of relative error, so after the at most
    ``MAX_ROTARY_DIM / 2`` products each value is within ``10**-55`` before it is rounded
    to 50 digits. An exponential per pair took 13 us, a product takes well under 1 us.
    """
    with localcontext() as context:
        context.prec = _DIGITS + 10
        step = (-2 * base.ln() / dim).exp()
        powers = [Decimal(1)]
        for _ in range(dim // 2 - 1):
            powers.append(powers[-1] * step)
    return [+w for w in powers]  # rounded to the caller's 50 digits


def _round(values: Sequence[Decimal]) -> np.ndarray:
    return np.array([float(v) for v in values], dtype=np.float64)


def default_inv_freq(rotary_dim: int, base: float = 10000.0) -> np.ndarray:
    """The speeds ``base**(-2i/rotary_dim)``, ``i = 0 .. rotary_dim/2 - 1``, each rounded once.

    Examples
    --------
    >>> print(default_inv_freq(4, 100.0))
    [1.  0.1]
    """
    dim = _rotary_width(rotary_dim)
    base = _validate.base(base)
    with localcontext() as context:
        context.prec = _DIGITS
        return _round(_ladder(dim, Decimal(base)))


def wavelengths(inv_freq: ArrayLike) -> np.ndarray:
    """Wavelengths ``2*pi / w`` in positions: pair ``i`` turns once every ``2*pi/w_i``.

    Examples
    --------
    >>> print(wavelengths([1.0, 0.5]).round(4))
    [ 6.2832 12.5664]
    """
    w = _validate.real_array("inv_freq", inv_freq)
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("inv_freq must hold finite real numbers > 0")
    return 2 * np.pi / w


def ntk_base(base: float, factor: float, rotary_dim: int) -> float:
    """The NTK-aware base ``base * factor**(d/(d-2))`` (bloc97, 2023).

    With it, pair 0 keeps speed 1 and the slowest pair ``d/2 - 1`` is slowed by exactly
    ``factor``: ``(b s**(d/(d-2)))**(-(d-2)/d) = b**(-(d-2)/d) / s``. Rounded once.

    Examples
    --------
    >>> ntk_base(10000.0, 4.0, 4)
    160000.0
    """
    base = _validate.base(base)
    factor = _positive("factor", factor)
    dim = _rotary_width(rotary_dim)
    if dim == 2:
        raise ValueError("rotary_dim must be >= 4: the exponent d/(d-2) is undefined at d = 2")
    with localcontext() as context:
        context.prec = _DIGITS
        return float(Decimal(base) * (Decimal(factor).ln() * dim / (dim - 2)).exp())


def _dynamic_base(base, factor, seq_len, max_pos, dim) -> Decimal:
    length = max(seq_len, max_pos)
    stretch = Decimal(factor) * length / max_pos - (Decimal(factor) - 1)
    if stretch <= 0:
        raise ValueError(
            f"factor * L / L0 - (factor - 1) must be > 0, got {float(stretch)!r}"
            f" (factor={factor!r}, L={length}, L0={max_pos})"
        )
    return Decimal(base) * (stretch.ln() * dim / (dim - 2)).exp()


def dynamic_base(
    base: float, factor: float, seq_len: int, max_position_embeddings: int, rotary_dim: int
) -> float:
    """Dynamic NTK's base at the current length: ``b * (s L/L0 - (s - 1))**(d/(d-2))``.

    ``L = max(seq_len, L0)``, so up to the training length ``L0`` the base is unchanged.
    At ``L = s L0`` the factor is ``(s**2 - s + 1)**(d/(d-2))``, not the static NTK
    factor ``s**(d/(d-2))``.

    Examples
    --------
    >>> dynamic_base(10000.0, 4.0, 2048, 2048, 128)
    10000.0
    """
    base = _validate.base(base)
    factor = _positive("factor", factor)
    seq_len = _length("seq_len", seq_len)
    max_pos = _length("max_position_embeddings", max_position_embeddings)
    dim = _rotary_width(rotary_dim)
    if dim == 2:
        raise ValueError("rotary_dim must be >= 4: the exponent d/(d-2) is undefined at d = 2")
    with localcontext() as context:
        context.prec = _DIGITS
        return float(_dynamic_base(base, factor, seq_len, max_pos, dim))


def yarn_correction_dim(
    rotations: float, rotary_dim: int, base: float, original_max_position_embeddings: int
) -> float:
    """The (fractional) pair index that turns ``rotations`` times in ``L0`` positions.

    ``d ln(L0 / (2 pi rotations)) / (2 ln b)``, in float64 with :func:`math.log`, the way
    YaRN's reference code and Hugging Face compute it (their floor and ceil are taken of
    this float64 value).
    """
    rotations = _positive("rotations", rotations)
    dim = _rotary_width(rotary_dim)
    base = _validate.base(base)
    length = _length("original_max_position_embeddings", original_max_position_embeddings)
    return (dim * math.log(length / (rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_correction_range(
    beta_fast: float,
    beta_slow: float,
    rotary_dim: int,
    base: float,
    original_max_position_embeddings: int,
    truncate: bool = True,
) -> tuple[float, float]:
    """The pair indices ``(low, high)`` between which YaRN's ramp rises from 0 to 1.

    ``low`` is the correction dim of ``beta_fast`` rotations, floored, and ``high`` that of
    ``beta_slow``, ceiled (when ``truncate``; left fractional otherwise), clipped to
    ``[0, rotary_dim - 1]`` as the reference code clips them. Pairs below ``low`` turn more
    than ``beta_fast`` times in ``L0`` and keep their speed; pairs above ``high`` turn less
    than ``beta_slow`` times and are interpolated.
    """
    if not isinstance(truncate, bool | np.bool_):
        raise TypeError(f"truncate must be True or False, got {_validate.shown(truncate)}")
    low = yarn_correction_dim(beta_fast, rotary_dim, base, original_max_position_embeddings)
    high = yarn_correction_dim(beta_slow, rotary_dim, base, original_max_position_embeddings)
    for name, beta, end in (("beta_fast", beta_fast, low), ("beta_slow", beta_slow, high)):
        if not math.isfinite(end):  # L0 / (2 pi beta) overflowed: beta is below 1e-300
            raise ValueError(
                f"{name} = {beta!r} is too small: its correction dim "
                "d ln(L0 / (2 pi beta)) / (2 ln b) is infinite in float64"
            )
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, rotary_dim - 1)


def yarn_ramp(low: float, high: float, pairs: int) -> np.ndarray:
    """``clamp((j - low) / (high - low), 0, 1)`` for ``j = 0 .. pairs - 1``.

    The reference code moves ``high`` up by 0.001 when ``low == high``; so does this.

    Examples
    --------
    >>> yarn_ramp(1, 3, 5).tolist()
    [0.0, 0.0, 0.5, 1.0, 1.0]
    """
    low = _validate.real("low", low)
    high = _validate.real("high", high)
    pairs = check_pairs(pairs, "pairs")
    if high < low:
        raise ValueError(f"high must be >= low, got low={low!r}, high={high!r}")
    if high == low:
        high += 0.001
    if not high > low:  # the 0.001 is lost beside a huge low
        raise ValueError(
            f"high must exceed low once 0.001 is added to an equal high, got {high!r}"
        )
    with np.errstate(over="ignore"):  # a ramp steeper than float64: its clip is exact
        return np.clip((np.arange(pairs) - low) / (high - low), 0.0, 1.0)


def yarn_mscale(factor: float, mscale: float = 1.0) -> float:
    """YaRN's ``0.1 * mscale * ln(factor) + 1``, and 1 for ``factor <= 1``.

    Applied to both the cosine and the sine, it multiplies the logits by its square
    (about 1.459 for ``factor = 8``).
    """
    factor = _positive("factor", factor)
    mscale = _validate.real("mscale", mscale)
    if factor <= 1:
        return 1.0
    with localcontext() as context:
        context.prec = _DIGITS
        return float(Decimal("0.1") * Decimal(mscale) * Decimal(factor).ln() + 1)


def _llama3_kinds(ladder, factor, length, low_ff, high_ff) -> list[str]:
    low_wave = Decimal(length) / Decimal(low_ff)
    high_wave = Decimal(length) / Decimal(high_ff)
    kinds = []
    for w in ladder:
        wave = 2 * _PI / w
        kinds.append("low" if wave > low_wave else "high" if wave < high_wave else "blend")
    return kinds


def llama3_bands(
    rotary_dim: int,
    *,
    base: float = 500000.0,
    factor: float = 8.0,
    original_max_position_embeddings: int = 8192,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
) -> np.ndarray:
    """Which band each pair falls in under Llama 3's scaling: "high", "blend" or "low".

    A pair whose wavelength is below ``L0 / high_freq_factor`` is "high" (unchanged),
    above ``L0 / low_freq_factor`` "low" (divided by ``factor``), otherwise "blend". The
    comparisons are made in 50 digits. The defaults are Llama 3.1's configuration.

    Examples
    --------
    >>> bands = llama3_bands(128)
    >>> [int((bands == kind).sum()) for kind in ("high", "blend", "low")]
    [29, 6, 29]
    """
    dim = _rotary_width(rotary_dim)
    args = _llama3_args(base, factor, original_max_position_embeddings)
    low_ff, high_ff = _llama3_factors(low_freq_factor, high_freq_factor)
    with localcontext() as context:
        context.prec = _DIGITS
        ladder = _ladder(dim, Decimal(args[0]))
        return np.array(_llama3_kinds(ladder, args[1], args[2], low_ff, high_ff))


def _llama3_args(base, factor, length) -> tuple[float, float, int]:
    return (
        _validate.base(base),
        _positive("factor", factor),
        _length("original_max_position_embeddings", length),
    )


def _llama3_factors(low_freq_factor, high_freq_factor) -> tuple[float, float]:
    low_ff = _positive("low_freq_factor", low_freq_factor)
    high_ff = _positive("high_freq_factor", high_freq_factor)
    if high_ff < low_ff:
        raise ValueError(
            f"high_freq_factor must be >= low_freq_factor, got {high_ff!r} < {low_ff!r}"
        )
    return low_ff, high_ff  # equal factors: no blend band, a step at L0 / low_freq_factor


# --------------------------------------------------------------------------------------
# The schemes.


def _factors(name: str, value: object, pairs: int) -> list[Decimal]:
    array = _validate.real_array(name, value)
    if array.shape != (pairs,):
        raise ValueError(
            f"{name} must hold one factor per rotated pair ({pairs}), got shape {array.shape}"
        )
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"{name} must hold finite real numbers > 0")
    return [Decimal(float(v)) for v in array]


def inv_freq(
    scheme: str,
    head_dim: int,
    *,
    base: float = 10000.0,
    partial_rotary_factor: float = 1.0,
    factor: float | None = None,
    original_max_position_embeddings: int | None = None,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
    low_freq_factor: float | None = None,
    high_freq_factor: float | None = None,
    beta_fast: float | None = None,
    beta_slow: float | None = None,
    mscale: float | None = None,
    mscale_all_dim: float | None = None,
    attention_factor: float | None = None,
    truncate: bool = True,
    short_factor: ArrayLike | None = None,
    long_factor: ArrayLike | None = None,
) -> tuple[np.ndarray, float]:
    """The speeds of the rotated pairs under a scheme, and the attention factor.

    Parameters keep Hugging Face's names and meaning (``transformers.modeling_rope_utils``):

    Parameters
    ----------
    scheme : str
        One of :data:`SCHEMES`: "default", "linear", "dynamic", "yarn", "longrope",
        "llama3", "proportional", "axial".
    head_dim : int
        The width of one attention head. "proportional" returns ``head_dim / 2`` speeds,
        the last ones 0; "axial" ``head_dim / 4``, the ladder each of its two axes turns.
    base : float
        ``rope_theta``, > 1.
    partial_rotary_factor : float
        The rotated share of the head, in (0, 1]; ``rotary_dim = int(head_dim * it)``.
        For "proportional", the share of the pairs that turn: ``int(it * head_dim // 2)``.
    factor : float
        The scale ``s``. Needed by every scheme but "default", "axial" and "proportional"
        (which divides every speed by it, 1 by default). For "yarn" and "longrope"
        it may be left out when ``max_position_embeddings`` is given: then
        ``s = max_position_embeddings / original_max_position_embeddings``.
    original_max_position_embeddings : int
        The training length ``L0`` ("yarn", "longrope", "llama3").
    max_position_embeddings : int
        "dynamic": the length ``L0`` beyond which the base grows. "yarn", "longrope":
        the stretched length, used only to derive a missing ``factor``.
    seq_len : int
        The current length: "dynamic" grows the base with it; "longrope" switches to
        ``long_factor`` when it exceeds ``L0``. If left out, "dynamic" uses ``L0``
        (its base unchanged) and "longrope" ``short_factor``, as Hugging Face does when it
        builds the model.
    low_freq_factor, high_freq_factor : float
        "llama3": the band edges are ``L0 / low_freq_factor`` and ``L0 / high_freq_factor``
        (1 and 4 in Llama 3.1).
    beta_fast, beta_slow : float
        "yarn": rotation counts that bound the ramp (32 and 1 by default).
    mscale, mscale_all_dim : float
        "yarn", DeepSeek's form: when both are given and non-zero, the attention factor is
        ``yarn_mscale(s, mscale) / yarn_mscale(s, mscale_all_dim)``.
    attention_factor : float
        "yarn", "longrope": overrides the attention factor.
    truncate : bool
        "yarn": floor and ceil the correction range (True by default, as in the
        reference code); False leaves it fractional.
    short_factor, long_factor : array_like
        "longrope": one factor per rotated pair.

    Returns
    -------
    (numpy.ndarray, float)
        The speeds, float64 of shape ``(rotary_dim // 2,)``, and the attention factor.

    Examples
    --------
    >>> w, a = inv_freq("linear", 4, base=100.0, factor=2.0)
    >>> print(w, a)
    [0.5  0.05] 1.0
    >>> w, a = inv_freq("yarn", 128, factor=8.0, original_max_position_embeddings=4096)
    >>> round(a, 4), bool(w[0] == 1.0), bool(w[-1] == inv_freq("default", 128)[0][-1] / 8)
    (1.2079, True, True)
    >>> w, _ = inv_freq("proportional", 8, base=100.0, partial_rotary_factor=0.5)
    >>> print(w)  # the exponent over all 8 coordinates; 2 of the 4 pairs stopped
    [1.         0.31622777 0.         0.        ]
    """
    scheme = _scheme(scheme)
    if scheme == "proportional":  # every pair of the head has a speed; some are 0
        dim = rotary_dim(head_dim)
        given_partial = _validate.real("partial_rotary_factor", partial_rotary_factor)
        if not 0 < given_partial <= 1:
            raise ValueError(f"partial_rotary_factor must lie in (0, 1], got {given_partial!r}")
    elif scheme == "axial":  # each of the two axes turns over half of the head
        if partial_rotary_factor != 1:
            raise ValueError('the "axial" scheme does not read partial_rotary_factor')
        dim = _axial_width(head_dim)
    else:
        dim = rotary_dim(head_dim, partial_rotary_factor)
    base = _validate.base(base)
    given = {
        "factor": factor,
        "original_max_position_embeddings": original_max_position_embeddings,
        "max_position_embeddings": max_position_embeddings,
        "seq_len": seq_len,
        "low_freq_factor": low_freq_factor,
        "high_freq_factor": high_freq_factor,
        "beta_fast": beta_fast,
        "beta_slow": beta_slow,
        "mscale": mscale,
        "mscale_all_dim": mscale_all_dim,
        "attention_factor": attention_factor,
        "short_factor": short_factor,
        "long_factor": long_factor,
    }
    unused = [k for k, v in given.items() if v is not None and k not in _PARAMETERS[scheme]]
    if unused:
        raise ValueError(
            f'the "{scheme}" scheme does not read {", ".join(unused)}'
            f" (it reads: {', '.join(_PARAMETERS[scheme]) or 'head_dim and base only'})"
        )
    if truncate is not True and scheme != "yarn":
        raise ValueError(f'the "{scheme}" scheme does not read truncate')
    with localcontext() as context:
        context.prec = _DIGITS
        if scheme == "proportional":
            return _proportional(dim, base, given_partial, given)
        return _SCHEMES[scheme](dim, base, given, truncate)


def _axial_width(head_dim: object) -> int:
    """The width each axis of an axial (2-D) rotary turns over: ``head_dim // 2``, even."""
    head_dim = _validate.integer("head_dim", head_dim, minimum=4)
    spatial = head_dim // 2
    if spatial % 2:
        raise ValueError(
            f'the "axial" scheme turns each axis over head_dim // 2 = {spatial} coordinates,'
            " which must be even"
        )
    return _rotary_width(spatial)


def _proportional(dim, base, partial, given):
    """Gemma 4's proportional rotary: the exponent over the whole head, slow pairs stopped.

    ``k = int(partial * dim // 2)`` pairs turn at ``base**(-2i/dim)`` (the exponent over
    the whole head, ``dim = head_dim``), the other ``dim/2 - k`` at speed 0; every speed
    is then divided by ``factor`` (1 by default). This is not NeoX partial rotary, whose
    exponent is over the rotated width ``int(dim * partial)``.
    """
    factor = (
        Decimal(1) if given["factor"] is None else Decimal(_positive("factor", given["factor"]))
    )
    turning = int(partial * dim // 2)
    ladder = _ladder(dim, Decimal(base))[:turning]
    speeds = [w / factor for w in ladder] + [Decimal(0)] * (dim // 2 - turning)
    return _round(speeds), 1.0


def _axial(dim, base, given, truncate):
    return _round(_ladder(dim, Decimal(base))), 1.0


def _default(dim, base, given, truncate):
    return _round(_ladder(dim, Decimal(base))), 1.0


def _linear(dim, base, given, truncate):
    s = Decimal(_positive("factor", _required("linear", "factor", given["factor"])))
    return _round([w / s for w in _ladder(dim, Decimal(base))]), 1.0


def _dynamic(dim, base, given, truncate):
    factor = _positive("factor", _required("dynamic", "factor", given["factor"]))
    max_pos = _length(
        "max_position_embeddings",
        _required("dynamic", "max_position_embeddings", given["max_position_embeddings"]),
    )
    seq_len = max_pos if given["seq_len"] is None else _length("seq_len", given["seq_len"])
    if dim == 2:
        raise ValueError("rotary_dim must be >= 4: the exponent d/(d-2) is undefined at d = 2")
    return _round(_ladder(dim, _dynamic_base(base, factor, seq_len, max_pos, dim))), 1.0


def _stretch(scheme, given) -> tuple[float, int]:
    """``(factor, L0)`` for "yarn" and "longrope", deriving a missing factor as HF does."""
    length = _length(
        "original_max_position_embeddings",
        _required(
            scheme,
            "original_max_position_embeddings",
            given["original_max_position_embeddings"],
        ),
    )
    if given["factor"] is not None:
        return _positive("factor", given["factor"]), length
    if given["max_position_embeddings"] is None:
        raise ValueError(
            f'the "{scheme}" scheme needs factor, or max_position_embeddings to derive it'
            " as max_position_embeddings / original_max_position_embeddings"
        )
    stretched = _length("max_position_embeddings", given["max_position_embeddings"])
    return stretched / length, length


def _yarn(dim, base, given, truncate):
    factor, length = _stretch("yarn", given)
    beta_fast = 32.0 if given["beta_fast"] is None else _positive("beta_fast", given["beta_fast"])
    beta_slow = 1.0 if given["beta_slow"] is None else _positive("beta_slow", given["beta_slow"])
    if given["attention_factor"] is not None:
        attention = _positive("attention_factor", given["attention_factor"])
    elif given["mscale"] and given["mscale_all_dim"]:
        attention = yarn_mscale(factor, given["mscale"]) / yarn_mscale(
            factor, given["mscale_all_dim"]
        )
    else:
        attention = yarn_mscale(factor)
    low, high = yarn_correction_range(beta_fast, beta_slow, dim, base, length, truncate)
    if high == low:
        high += 0.001  # as the reference code does, to avoid dividing by zero
    # The ramp in exact arithmetic (0: keep the speed; 1: divide it by the factor).
    lo, width = Decimal(low), Decimal(high) - Decimal(low)
    s = Decimal(factor)
    speeds = []
    for j, w in enumerate(_ladder(dim, Decimal(base))):
        r = min(max((j - lo) / width, Decimal(0)), Decimal(1))
        speeds.append(w * (1 - r) + w / s * r)
    return _round(speeds), float(attention)


def _longrope(dim, base, given, truncate):
    factor, length = _stretch("longrope", given)
    pairs = dim // 2
    seq_len = given["seq_len"]
    if seq_len is not None:
        seq_len = _length("seq_len", seq_len)
    long = seq_len is not None and seq_len > length
    name = "long_factor" if long else "short_factor"
    scales = _factors(name, _required("longrope", name, given[name]), pairs)
    other = "short_factor" if long else "long_factor"
    if given[other] is not None:
        _factors(other, given[other], pairs)  # checked, though not used at this length
    if given["attention_factor"] is not None:
        attention = _positive("attention_factor", given["attention_factor"])
    elif factor <= 1:
        attention = 1.0
    elif length == 1:
        raise ValueError(
            "original_max_position_embeddings must be >= 2 for longrope's attention factor "
            "sqrt(1 + ln(factor) / ln(original_max_position_embeddings)), got 1"
        )
    else:
        attention = float((1 + Decimal(factor).ln() / Decimal(length).ln()).sqrt())
    ladder = _ladder(dim, Decimal(base))
    return _round([w / lam for w, lam in zip(ladder, scales, strict=True)]), attention


def _llama3(dim, base, given, truncate):
    _, factor, length = _llama3_args(
        base,
        _required("llama3", "factor", given["factor"]),
        _required(
            "llama3",
            "original_max_position_embeddings",
            given["original_max_position_embeddings"],
        ),
    )
    low_ff, high_ff = _llama3_factors(
        _required("llama3", "low_freq_factor", given["low_freq_factor"]),
        _required("llama3", "high_freq_factor", given["high_freq_factor"]),
    )
    ladder = _ladder(dim, Decimal(base))
    s = Decimal(factor)
    kinds = _llama3_kinds(ladder, factor, length, low_ff, high_ff)
    speeds = []
    for w, kind in zip(ladder, kinds, strict=True):
        if kind == "high":
            speeds.append(w)
        elif kind == "low":
            speeds.append(w / s)
        elif high_ff == low_ff:  # a wavelength exactly at the one edge: 0 / 0 in the blend
            raise ValueError(
                f"low_freq_factor = high_freq_factor = {low_ff!r} puts a pair's wavelength"
                f" exactly at L0 / low_freq_factor, where the blend divides 0 by 0"
            )
        else:
            g = (Decimal(length) * w / (2 * _PI) - Decimal(low_ff)) / (
                Decimal(high_ff) - Decimal(low_ff)
            )
            speeds.append((1 - g) * w / s + g * w)
    return _round(speeds), 1.0


_SCHEMES = {
    "axial": _axial,
    "default": _default,
    "linear": _linear,
    "dynamic": _dynamic,
    "yarn": _yarn,
    "longrope": _longrope,
    "llama3": _llama3,
}


# --------------------------------------------------------------------------------------
# Kept here for the readers of posenc.rope: the caches and layouts live in
# posenc.layouts, the reading of configs in posenc.model_config.

from posenc.layouts import LAYOUTS, PATHS, cos_sin, mrope_angles  # noqa: E402
from posenc.model_config import CONFIG_LIMIT, RopeConfig, read_config  # noqa: E402
