"""How the major libraries actually compute the sinusoidal position code.

The 2017 paper gives one formula; libraries wrote it down in several ways. They
differ in four things, each a fact about the library's code:

- **layout**: the paper interleaves the columns (``sin, cos, sin, cos, ...``);
  tensor2tensor, fairseq and Whisper put all sines first, then all cosines
  ("concatenated"); Marian and Pegasus put ``ceil(d/2)`` sines then ``floor(d/2)``
  cosines;
- **exponent**: the paper's pair ``i`` turns at ``base**(-2i/d)``; tensor2tensor,
  fairseq and Whisper use ``base**(-i/(h-1))`` with ``h = d // 2``, which makes
  the slowest pair's wavelength exactly ``2*pi*base``;
- **first position**: 0 for most, ``padding_idx + 1`` for fairseq, the length of
  the cache for Marian and Pegasus, an argument for tensor2tensor and Keras-Hub;
- **precision**: float32 throughout (tensor2tensor, fairseq, the PyTorch tutorial,
  Whisper), float64 then rounded to float32 (Hugging Face XLM, DistilBERT, Marian,
  Pegasus), or the layer's compute dtype (Keras-Hub).

:data:`CONVENTIONS` holds one :class:`Convention` per library family, with the
widths each library computes and those it fails on. :func:`columns` gives the
exact formula behind each table: which function each column holds, and its
angular speed. :func:`table` builds the table in one of two ways:

- ``path="exact"`` (the default): the formula's real values, exact speeds and
  exact integer positions, each rounded once to the library's output dtype. A
  float64 entry is within 4e-16 of the real value; a float32 (float16, bfloat16)
  entry is the nearest number of its type, except where the real value lies
  within that distance of a rounding midpoint. This is what the library's table
  means, and no library computes it.
- ``path="emulated"``: the library's operations in order, in the same
  floating-point types, with NumPy's ``exp``, ``sin``, ``cos`` and ``pow``. It
  does not reproduce the library's bits: float32 elementary functions are
  faithful, not correctly rounded, and NumPy, torch, TensorFlow and XLA round
  them differently. What the emulation shares with the library is the order of
  the operations and every float32 argument, so the two differ by at most
  ``(4 t + 2) eps`` per entry (``t = pos * speed``, ``eps = 2**-23`` in
  float32; the model in ``conformance/README.md``, derived for ``exp`` and
  only measured for Keras-Hub's ``pow``). Measured against the real libraries:
  bit-identical for the float64 pipelines (XLM, DistilBERT, Marian, Pegasus);
  up to 2.4e-4 at 2,048 rows and 7.8e-3 near position 100,000 for the float32
  pipelines, within the model. Keras-Hub's float64 tables on TensorFlow and
  JAX are not yet explained by the emulation (see that README).

The formulas are facts about the libraries' public code; the code here is written
from those facts, not copied.

References
----------
- A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.5.
- A. Vaswani et al., "Tensor2Tensor for Neural Machine Translation",
  arXiv:1803.07416, 2018: ``get_timing_signal_1d`` in
  ``tensor2tensor/layers/common_attention.py``; pull request 177 there discusses
  (and declined to keep) the switch to the paper's interleaved order.
- M. Ott et al., "fairseq: A Fast, Extensible Toolkit for Sequence Modeling",
  NAACL 2019 (demonstrations): ``SinusoidalPositionalEmbedding.get_embedding``.
- T. Wolf et al., "Transformers: State-of-the-Art Natural Language Processing",
  EMNLP 2020 (demonstrations): ``create_sinusoidal_embeddings`` (XLM, DistilBERT),
  ``MarianSinusoidalPositionalEmbedding`` (Marian, Pegasus), and the fairseq-style
  embeddings of FSMT, M2M100 and Speech2Text.
- PyTorch tutorial "Language Modeling with nn.Transformer" and A. Rush, "The
  Annotated Transformer", NLP-OSS 2018: ``PositionalEncoding``.
- Keras-Hub (formerly KerasNLP): ``keras_hub.layers.SinePositionEncoding``.
- A. Radford et al., "Robust Speech Recognition via Large-Scale Weak Supervision"
  (Whisper), arXiv:2212.04356, 2022: ``sinusoids`` in ``whisper/model.py``.
- J. Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding",
  arXiv:2104.09864, 2021: the rotary pairings of :data:`ROTARY_PAIRINGS`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Literal

import numpy as np
from numpy.typing import DTypeLike

from posenc import _validate
from posenc.encoding import _cis, sinusoidal
from posenc.precision import to_bfloat16

__all__ = [
    "CONVENTIONS",
    "ROTARY_PAIRINGS",
    "Convention",
    "RotaryPairing",
    "columns",
    "concatenated_order",
    "rotary_pairs",
    "table",
]

Layout = Literal["interleaved", "concatenated", "marian"]
OddWidth = Literal["error", "zero column", "extra sine"]

#: The largest position of libraries that count positions in int32 (tf.range, ops.arange).
_INT32_TOP = 2**31 - 1


@dataclass(frozen=True)
class Convention:
    """One library family's way of writing the sinusoidal code.

    Attributes
    ----------
    name : str
        Key in :data:`CONVENTIONS` and first argument of :func:`table`.
    title : str
        The function or class that computes the table.
    libraries : tuple of str
        Libraries and models that compute the table this way.
    layout : {"interleaved", "concatenated", "marian"}
        Column order: ``sin, cos, sin, cos, ...``; all ``d // 2`` sines then all
        cosines; or ``ceil(d/2)`` sines then ``floor(d/2)`` cosines.
    exponent : str
        The exponent rule: pair ``i`` (or column ``j``) turns at ``base**(-exponent)``.
    frequency : str
        The expression the library evaluates for the angular speeds.
    base : float
        The default base, or largest timescale (``max_timescale``, ``max_wavelength``).
    min_timescale : float or None
        tensor2tensor's smallest timescale (1.0); ``None`` where there is none.
    first_position : str
        The rule for the position of the first token.
    start : int
        The first position :func:`table` uses by default.
    padding_idx : int or None
        The row that is zero (fairseq); ``None`` where there is none.
    odd_width : {"error", "zero column", "extra sine"}
        What an odd width of 3 or more gives: refused (the library fails), a zero
        last column, or one more sine column than cosine columns. Width 1 is
        governed by ``min_width`` alone.
    min_width : int
        The smallest width the library computes. At width 1 (where ``min_width``
        is 1) the table is the odd-width rule's: a zero column, or the one sine
        ``sin(pos)``.
    refused_widths : tuple of int
        Widths of at least ``min_width`` that the library fails on all the same
        (fairseq's 2 and 3, where ``h - 1 = 0``).
    compute_dtype : str
        The type the angles are computed in ("exact" for the paper's formula).
    output_dtype : str
        The type of the table.
    notes : str
        Anything else a reader porting a checkpoint needs to know.
    """

    name: str
    title: str
    libraries: tuple[str, ...]
    layout: Layout
    exponent: str
    frequency: str
    base: float
    min_timescale: float | None
    first_position: str
    start: int
    padding_idx: int | None
    odd_width: OddWidth
    min_width: int
    refused_widths: tuple[int, ...]
    compute_dtype: str
    output_dtype: str
    notes: str


#: The conventions of the major libraries, by name (shared FACTS section 4).
CONVENTIONS: dict[str, Convention] = {
    c.name: c
    for c in (
        Convention(
            name="paper",
            title="Vaswani et al. (2017), section 3.5",
            libraries=("the paper",),
            layout="interleaved",
            exponent="2i/d",
            frequency="pos / base**(2i/d)",
            base=10000.0,
            min_timescale=None,
            first_position="not stated; 0 here",
            start=0,
            padding_idx=None,
            odd_width="error",
            min_width=2,
            refused_widths=(),
            compute_dtype="exact",
            output_dtype="float64",
            notes="The reference: posenc.sinusoidal, each entry within 4e-16 of the real "
            "number (float32 and float16 within one ulp).",
        ),
        Convention(
            name="tensor2tensor",
            title="tensor2tensor get_timing_signal_1d",
            libraries=("tensor2tensor", "Trax-era TensorFlow Transformer code"),
            layout="concatenated",
            exponent="i/(h-1), h = d // 2 (h - 1 taken as at least 1)",
            frequency="min_timescale * exp(-i * log(max_timescale / min_timescale) / (h-1))",
            base=10000.0,
            min_timescale=1.0,
            first_position="start_index argument, default 0",
            start=0,
            padding_idx=None,
            odd_width="zero column",
            min_width=1,
            refused_widths=(),
            compute_dtype="float32",
            output_dtype="float32",
            notes="min_timescale multiplies the frequencies, so the timescales are right "
            "only for min_timescale = 1. The increment log(max/min) / (h-1) is divided in "
            "float32. Positions are int32 (tf.range), then float32.",
        ),
        Convention(
            name="fairseq",
            title="fairseq SinusoidalPositionalEmbedding.get_embedding",
            libraries=("fairseq", "Hugging Face FSMT", "M2M100", "Speech2Text"),
            layout="concatenated",
            exponent="i/(h-1), h = d // 2",
            frequency="exp(-i * log(10000) / (h-1))",
            base=10000.0,
            min_timescale=None,
            first_position="padding_idx + 1 (token t gets row padding_idx + 1 + t)",
            start=2,
            padding_idx=1,
            odd_width="zero column",
            min_width=1,
            refused_widths=(2, 3),
            compute_dtype="float32",
            output_dtype="float32",
            notes="Row padding_idx is zero. Widths 2 and 3 give h - 1 = 0: the library "
            "stops with Python's ZeroDivisionError (math.log(10000) / 0). Width 1 gives "
            "h = 0 pairs (h - 1 = -1, no division by zero) and the odd width's zero "
            "column: a table of zeros. A model cast to half precision holds the table "
            "in float16.",
        ),
        Convention(
            name="xlm",
            title="Hugging Face create_sinusoidal_embeddings",
            libraries=("Hugging Face XLM", "DistilBERT (sinusoidal_pos_embds=True)"),
            layout="interleaved",
            exponent="2(j//2)/d for column j",
            frequency="pos / 10000**(2(j//2)/d)",
            base=10000.0,
            min_timescale=None,
            first_position="0",
            start=0,
            padding_idx=None,
            odd_width="extra sine",
            min_width=1,
            refused_widths=(),
            compute_dtype="float64",
            output_dtype="float32",
            notes="The angles and their sines and cosines are float64 (NumPy); the table is "
            "rounded once to float32, so every entry is within half a float32 ulp.",
        ),
        Convention(
            name="marian",
            title="Hugging Face MarianSinusoidalPositionalEmbedding",
            libraries=("Hugging Face Marian", "Pegasus"),
            layout="marian",
            exponent="2(j//2)/d for column j of the interleaved table",
            frequency="pos / 10000**(2(j//2)/d)",
            base=10000.0,
            min_timescale=None,
            first_position="past_key_values_length, 0 without a cache",
            start=0,
            padding_idx=None,
            odd_width="extra sine",
            min_width=1,
            refused_widths=(),
            compute_dtype="float64",
            output_dtype="float32",
            notes="The XLM table with its even columns moved in front of its odd ones: "
            "ceil(d/2) sines, then floor(d/2) cosines.",
        ),
        Convention(
            name="pytorch-tutorial",
            title="PyTorch tutorial PositionalEncoding",
            libraries=("PyTorch nn.Transformer tutorial", "The Annotated Transformer"),
            layout="interleaved",
            exponent="2i/d",
            frequency="exp(2i * (-log(10000) / d))",
            base=10000.0,
            min_timescale=None,
            first_position="0",
            start=0,
            padding_idx=None,
            odd_width="error",
            min_width=1,
            refused_widths=(),
            compute_dtype="float32",
            output_dtype="float32",
            notes="Every step is float32: the factor -log(10000)/d, its product with 2i, "
            "exp, the position (int64, then float32) times the frequency, sin and cos. An "
            "odd width of 3 or more crashes (ceil(d/2) frequencies for floor(d/2) cosine "
            "columns). Width 1 works: one frequency, exp(0) = 1, fills column 0 with "
            "sin(pos), and the (L, 1) cosines broadcast into the empty slice pe[:, 1::2].",
        ),
        Convention(
            name="keras-hub",
            title="Keras-Hub SinePositionEncoding",
            libraries=("Keras-Hub", "KerasNLP"),
            layout="interleaved",
            exponent="2(j//2)/d for column j",
            frequency="(1 / max_wavelength) ** (2(j//2)/d)",
            base=10000.0,
            min_timescale=None,
            first_position="start_index argument, default 0",
            start=0,
            padding_idx=None,
            odd_width="extra sine",
            min_width=1,
            refused_widths=(),
            compute_dtype="the layer's compute dtype (float32 by default)",
            output_dtype="the compute dtype",
            notes="Positions, frequencies and angles are all in the compute dtype: under a "
            "float16 policy positions above 2048 are rounded, above 65504 infinite. Every "
            "column holds sin(angle) * sin_mask + cos(angle) * cos_mask.",
        ),
        Convention(
            name="whisper",
            title="Whisper sinusoids",
            libraries=("OpenAI Whisper (audio encoder)", "Hugging Face Whisper"),
            layout="concatenated",
            exponent="i/(h-1), h = d // 2",
            frequency="exp(-i * log(max_timescale) / (h-1))",
            base=10000.0,
            min_timescale=None,
            first_position="0",
            start=0,
            padding_idx=None,
            odd_width="error",
            min_width=4,
            refused_widths=(),
            compute_dtype="float32",
            output_dtype="float32",
            notes="An odd width fails: an assertion in OpenAI's code, a ValueError in "
            "Hugging Face's. At width 2, h - 1 = 0: OpenAI's code divides a NumPy float by "
            "zero and returns a table of NaN; Hugging Face's stops with ZeroDivisionError. "
            "posenc refuses width 2, since neither gives a number.",
        ),
    )
}


@dataclass(frozen=True)
class RotaryPairing:
    """Which two coordinates of a query or key one rotary frequency turns together.

    Rotary embeddings (see ``posenc.rotary``) turn each pair of coordinates by an
    angle proportional to the position. The two pairings in use differ by the same
    column permutation that takes the interleaved sinusoidal layout to the
    concatenated one (:func:`concatenated_order`); weights must be permuted to move
    a checkpoint between them.
    """

    name: str
    libraries: tuple[str, ...]
    rule: str
    notes: str


#: The rotary pairings in use, by name (shared FACTS section 3).
ROTARY_PAIRINGS: dict[str, RotaryPairing] = {
    p.name: p
    for p in (
        RotaryPairing(
            name="interleaved",
            libraries=("Meta LLaMA", "GPT-J", "RoFormer"),
            rule="pair i is coordinates (2i, 2i+1)",
            notes="The pairing of the RoFormer paper, like the 2017 paper's sin/cos layout.",
        ),
        RotaryPairing(
            name="half",
            libraries=("Hugging Face Llama (rotate_half)", "GPT-NeoX"),
            rule="pair i is coordinates (i, i + d/2)",
            notes="Splits the vector into halves, like the concatenated sin/cos layout.",
        ),
    )
}


# --------------------------------------------------------------------------------------
# Argument checks.


def _convention(name: object) -> Convention:
    allowed = ", ".join(repr(n) for n in CONVENTIONS)
    if not isinstance(name, str):
        raise TypeError(f"name must be one of {allowed}, got {type(name).__name__} {name!r}")
    if name not in CONVENTIONS:
        raise ValueError(f"name must be one of {allowed}, got {name!r}")
    return CONVENTIONS[name]


def _width(convention: Convention, value: object) -> int:
    """The width, checked against what the library computes (and refused where it fails)."""
    width = _validate.integer("width", value, minimum=1)
    odd_refused = width >= 3 or convention.min_width > 1  # width 1 is min_width's
    if width % 2 and odd_refused and convention.odd_width == "error":
        allowed = "even or 1" if convention.min_width == 1 else "even"
        raise ValueError(
            f"width must be {allowed} for {convention.name!r} "
            f"({_ODD_FAILURE[convention.name]}), got {width}"
        )
    if width < convention.min_width:
        raise ValueError(
            f"width must be >= {convention.min_width} for {convention.name!r} "
            f"({_NARROW_FAILURE.get(convention.name, 'the formula needs a pair')}), got {width}"
        )
    if width in convention.refused_widths:
        others = " or ".join(str(w) for w in convention.refused_widths)
        raise ValueError(
            f"width must not be {others} for {convention.name!r} "
            f"({_NARROW_FAILURE[convention.name]}), got {width}"
        )
    return width


_ODD_FAILURE = {
    "paper": "the formula pairs every sine with a cosine",
    "pytorch-tutorial": "the library fails to broadcast: ceil(d/2) frequencies, floor(d/2) "
    "cosine columns",
    "whisper": "OpenAI's code asserts an even width, Hugging Face's raises ValueError",
}
_NARROW_FAILURE = {
    "fairseq": "h - 1 = 0 at widths 2 and 3: the library divides by zero and raises "
    "ZeroDivisionError",
    "whisper": "h - 1 = 0 at width 2: OpenAI's code divides by zero and returns NaN, "
    "Hugging Face's raises ZeroDivisionError",
}


def _positive(name: str, value: object) -> float:
    result = _validate.real(name, value)
    if result <= 0:
        raise ValueError(f"{name} must be a finite real number > 0, got {result!r}")
    return result


def _compute_dtype(convention: Convention, value: DTypeLike | None) -> str:
    """The dtype option: the output dtype of the paper, the compute dtype of Keras-Hub."""
    if convention.name == "paper":
        return "float64" if value is None else _validate.dtype(value).name
    if convention.name == "keras-hub":
        if isinstance(value, str) and value == "bfloat16":
            return "bfloat16"
        if value is None:
            return "float32"
        try:
            return _validate.dtype(value).name
        except (TypeError, ValueError):
            raise ValueError(
                f"dtype must be one of bfloat16, float16, float32, float64 for 'keras-hub', "
                f"got {value!r}"
            ) from None
    if value is not None:
        raise ValueError(
            f"dtype applies to 'paper' and 'keras-hub' only; {convention.name!r} always "
            f"computes in {convention.compute_dtype}, got dtype={value!r}"
        )
    return convention.output_dtype


def _only_for(option: str, value: object, convention: Convention, owner: str) -> None:
    if value is not None and convention.name != owner:
        raise ValueError(f"{option} applies to {owner!r} only, not {convention.name!r}")


# --------------------------------------------------------------------------------------
# The emulated path, one builder per convention. Each takes the checked arguments and
# returns the (length, width) table, following the library's operations in order
# with NumPy's elementary functions. ``f32`` marks a rounding to float32 that the
# library performs.

_f32 = np.float32


def _sin_cos(angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sin`` and ``cos`` in the angles' own type, quietly NaN for infinite angles."""
    with np.errstate(invalid="ignore"):
        return np.sin(angles), np.cos(angles)


def _positions_f32(start: int, length: int) -> np.ndarray:
    """Integer positions converted to float32 (exact up to 2**24, rounded beyond)."""
    return np.arange(start, start + length, dtype=np.int64).astype(np.float32)  # (L,)


def _concatenate(sines: np.ndarray, cosines: np.ndarray, width: int) -> np.ndarray:
    """All sines, then all cosines, then a zero column when the width is odd."""
    table = np.zeros((sines.shape[0], width), dtype=sines.dtype)  # (L, d)
    half = sines.shape[1]
    table[:, :half] = sines
    table[:, half : 2 * half] = cosines
    return table


def _paper(length, width, base, start, options):
    return sinusoidal(length, width, base=base, start=start, dtype=options["dtype"])


def _tensor2tensor(length, width, base, start, options):
    half = width // 2
    min_timescale = options["min_timescale"]
    # log(max/min) is a Python float; dividing it by a float32 tensor rounds it to
    # float32 first, and the quotient is float32.
    increment = _f32(math.log(base / min_timescale)) / _f32(max(half - 1, 1))
    exponent = np.arange(half, dtype=np.float32) * -increment  # (h,) float32
    with np.errstate(under="ignore"):
        inverse = _f32(min_timescale) * np.exp(exponent)  # (h,) float32
    scaled = _positions_f32(start, length)[:, None] * inverse[None, :]  # (L, h) float32
    sines, cosines = _sin_cos(scaled)
    return _concatenate(sines, cosines, width)


def _fairseq(length, width, base, start, options):
    half = width // 2
    step = math.log(base) / (half - 1)  # Python float64; half - 1 is -1 (no pairs) or >= 1
    with np.errstate(under="ignore"):
        inverse = np.exp(np.arange(half, dtype=np.float32) * _f32(-step))  # (h,) float32
    angles = _positions_f32(start, length)[:, None] * inverse[None, :]  # (L, h) float32
    sines, cosines = _sin_cos(angles)
    table = _concatenate(sines, cosines, width)  # (L, d)
    row = options["padding_idx"] - start
    if 0 <= row < length:
        table[row] = 0.0  # the padding row
    return table


def _float64_angles(length, width, base, start):
    """``pos / base**(2(j//2)/d)`` for every column j, in float64 (NumPy)."""
    j = np.arange(width)  # (d,)
    exponent = 2 * (j // 2) / width  # (d,) float64, each a correctly rounded quotient
    denominator = np.power(base, exponent)  # (d,) float64
    positions = np.arange(start, start + length, dtype=np.int64).astype(np.float64)  # exact
    return positions[:, None] / denominator[None, :]  # (L, d) float64


def _xlm(length, width, base, start, options):
    angles = _float64_angles(length, width, base, start)  # (L, d) float64
    table = np.empty((length, width), dtype=np.float32)  # (L, d)
    table[:, 0::2] = np.sin(angles[:, 0::2])  # float64, rounded once to float32
    table[:, 1::2] = np.cos(angles[:, 1::2])
    return table


def _marian(length, width, base, start, options):
    angles = _float64_angles(length, width, base, start)  # (L, d) float64
    sentinel = (width + 1) // 2  # ceil(d/2) sine columns
    table = np.empty((length, width), dtype=np.float32)  # (L, d)
    table[:, :sentinel] = np.sin(angles[:, 0::2])
    table[:, sentinel:] = np.cos(angles[:, 1::2])
    return table


def _pytorch_tutorial(length, width, base, start, options):
    factor = _f32(-math.log(base) / width)  # Python float64, then float32 in the product
    two_i = np.arange(0, width, 2).astype(np.float32)  # (d/2,): int64, then float32
    frequency = np.exp(two_i * factor)  # (d/2,) float32
    angles = _positions_f32(start, length)[:, None] * frequency[None, :]  # (L, d/2) float32
    table = np.empty((length, width), dtype=np.float32)  # (L, d)
    # At width 1 the (L, 1) cosines broadcast into the empty (L, 0) slice, as in torch.
    table[:, 0::2], table[:, 1::2] = _sin_cos(angles)
    return table


def _rounding(dtype: str) -> tuple[type, Callable[[np.ndarray], np.ndarray]]:
    """(working type, rounding to ``dtype``) for an emulated compute dtype.

    float16 and bfloat16 arithmetic is done in float32 and each result rounded,
    which is what NumPy, TensorFlow and JAX do for these types on a CPU.
    """
    if dtype == "float64":
        return np.float64, lambda x: np.asarray(x, dtype=np.float64)
    if dtype == "float32":
        return np.float32, lambda x: np.asarray(x, dtype=np.float32)
    if dtype == "float16":

        def to_half(x):
            with np.errstate(over="ignore"):
                return np.asarray(x).astype(np.float16).astype(np.float32)

        return np.float32, to_half
    return np.float32, lambda x: to_bfloat16(x)


def _keras_hub(length, width, base, start, options):
    dtype = options["dtype"]
    work, rnd = _rounding(dtype)
    raw = np.arange(start, start + length, dtype=np.int64).astype(np.float64)  # exact ints
    positions = rnd(raw)  # (L,) in the compute dtype
    min_freq = rnd(np.float64(1.0 / base))  # Python 1 / max_wavelength, then cast
    j = np.arange(width)  # (d,)
    numerator = rnd((2 * (j // 2)).astype(np.float64))  # (d,)
    exponent = rnd(numerator / rnd(np.float64(width)).astype(work))  # (d,)
    with np.errstate(under="ignore"):
        timescales = rnd(np.power(min_freq.astype(work), exponent.astype(work)))  # (d,)
    with np.errstate(over="ignore"):
        angles = rnd(positions[:, None] * timescales[None, :])  # (L, d)
    cos_mask = rnd((j % 2).astype(work))  # (d,): 1 on odd columns
    sin_mask = rnd(1 - cos_mask)  # (d,)
    sines, cosines = _sin_cos(angles)
    with np.errstate(invalid="ignore"):
        table = rnd(rnd(rnd(sines) * sin_mask) + rnd(rnd(cosines) * cos_mask))  # (L, d)
    if dtype == "float16":
        return table.astype(np.float16)
    return table


def _whisper(length, width, base, start, options):
    half = width // 2
    increment = math.log(base) / (half - 1)  # NumPy float64 in the library; half >= 2 here
    with np.errstate(under="ignore"):
        inverse = np.exp(_f32(-increment) * np.arange(half).astype(np.float32))  # (h,) float32
    scaled = _positions_f32(start, length)[:, None] * inverse[None, :]  # (L, h) float32
    sines, cosines = _sin_cos(scaled)
    return _concatenate(sines, cosines, width)


_EMULATIONS = {
    "paper": _paper,
    "tensor2tensor": _tensor2tensor,
    "fairseq": _fairseq,
    "xlm": _xlm,
    "marian": _marian,
    "pytorch-tutorial": _pytorch_tutorial,
    "keras-hub": _keras_hub,
    "whisper": _whisper,
}


# --------------------------------------------------------------------------------------
# The exact path: the formula's values, each rounded once.
#
# Every convention's columns are sines and cosines of pos * w for a few speeds w (the
# "pairs"), plus zero columns. For L rows, B = a power of two near sqrt(2 L) offsets
# and A = ceil(L / B) anchors, the sine and cosine of (start + a B) w and of j w are
# computed from exactly reduced angles (posenc.encoding._cis, double-double) and
# rounded once to float64; each row is then one complex multiplication, anchor by
# offset, as in posenc.sinusoidal (its module docstring, step 4, bounds the error by
# (4 + 2 sqrt 2) 2**-54 < 3.8e-16). Entries below _SMALL in magnitude are computed
# again directly, so that their relative error is about 2**-53 too.

#: Entries smaller than this are recomputed for outputs narrower than float64.
_SMALL = 2.0**-20
#: Elements per temporary array in the exact path (fits in a 1 MiB cache).
_EXACT_CHUNK = 1 << 16


def _pairs(convention: Convention, width: int) -> tuple[list[Fraction], np.ndarray]:
    """The exponents of the pairs' speeds, and where each column reads its value.

    Pair ``k`` turns at ``low * (top / low)**(-exponent[k])``. Column ``j`` of the
    table holds entry ``source[j]`` of the row ``sin w0, cos w0, sin w1, cos w1, ...``
    (``2k`` the sine of pair ``k``, ``2k + 1`` its cosine), or zero where ``source[j]``
    is ``-1``.
    """
    half = width // 2
    if convention.exponent.startswith("i/(h-1)"):
        # h pairs, exponent i / (h - 1), h - 1 at least 1 (tensor2tensor's maximum).
        exponents = [Fraction(i, max(half - 1, 1)) for i in range(half)]
        source = [2 * i for i in range(half)] + [2 * i + 1 for i in range(half)]
        return exponents, np.array(source + [-1] * (width % 2), dtype=np.int64)
    # ceil(d/2) pairs: column j of the interleaved table is entry j of the row.
    exponents = [Fraction(2 * i, width) for i in range((width + 1) // 2)]
    source = np.arange(width, dtype=np.int64)  # (d,)
    if convention.layout == "marian":
        source = source[concatenated_order(width)]
    return exponents, source


@functools.lru_cache(maxsize=32)
def _double_double_speeds(
    top: float, low: float, exponents: tuple[Fraction, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """``low * (top / low)**(-e)`` for each exponent, as read-only double-doubles (hi, lo).

    50-digit decimal arithmetic: each speed is within about 1e-49 of its own size.
    """
    hi = np.empty(len(exponents))  # (m,)
    lo = np.empty(len(exponents))  # (m,)
    with localcontext() as context:
        context.prec = 50
        log = (Decimal(top) / Decimal(low)).ln()
        for k, e in enumerate(exponents):
            speed = Decimal(low) * (-(log * e.numerator / e.denominator)).exp()
            hi[k] = float(speed)
            lo[k] = float(speed - Decimal(hi[k]))
    hi.flags.writeable = False
    lo.flags.writeable = False
    return hi, lo


def _exact_sin_cos(n: np.ndarray, w_hi: np.ndarray, w_lo: np.ndarray) -> np.ndarray:
    """``sin(n w)`` and ``cos(n w)`` in float64: (2, len(n), m).

    ``n`` holds integer positions (exact in float64); the angles are reduced exactly,
    and each value is the high part of a double-double: within half a float64 ulp,
    plus about ``2**-104``.
    """
    result = np.empty((2, n.size, w_hi.size))  # (2, k, m)
    rows = max(1, _EXACT_CHUNK // (8 * max(1, w_hi.size)))  # bounds the series' temporaries
    for top in range(0, n.size, rows):
        part = n[top : top + rows, None].astype(np.float64)  # (r, 1)
        sin, _, cos, _ = _cis(part, w_hi, w_lo)  # (r, m) each: double-double high parts
        result[0, top : top + rows], result[1, top : top + rows] = sin, cos
    return result


def _round_to(values: np.ndarray, dtype: str) -> np.ndarray:
    """float64 values rounded once to ``dtype`` (bfloat16: float32 holding bfloat16)."""
    if dtype == "bfloat16":
        return to_bfloat16(values)
    return values.astype(dtype)


def _exact(convention, length, width, base, start, options):
    """The convention's formula, every entry rounded once to its output dtype."""
    dtype = options["dtype"]
    if convention.name == "paper":
        return sinusoidal(length, width, base=base, start=start, dtype=dtype)
    if not length:
        return np.zeros((0, width), dtype=np.float32 if dtype == "bfloat16" else dtype)
    low = options.get("min_timescale", 1.0)
    exponents, source = _pairs(convention, width)  # (m pairs), (d,)
    w_hi, w_lo = _double_double_speeds(base, low, tuple(exponents))  # (m,) each
    out = np.zeros((length, width), dtype=np.float32 if dtype == "bfloat16" else dtype)
    live = np.flatnonzero(source >= 0)  # (c,): the columns that are not zero
    take = source[live]  # (c,)
    if length and live.size:
        _fill_exact(out, live, take, w_hi, w_lo, start, dtype)
    if convention.name == "fairseq":
        row = options["padding_idx"] - start
        if 0 <= row < length:
            out[row] = 0.0  # the padding row
    return out


def _fill_exact(out, live, take, w_hi, w_lo, start, dtype):
    """Write rows ``start, start + 1, ..`` into ``out[:, live]`` (L, d), from entries ``take``."""
    length, m = out.shape[0], w_hi.size
    block = 1 << ((length - 1).bit_length() + 2) // 2  # B: a power of two in [sqrt 2L, sqrt 8L)
    blocks = -(-length // block)  # A = ceil(L / B)
    sin, cos = _exact_sin_cos(np.arange(block), w_hi, w_lo)  # (B, m) each, angles y = j w
    offset = cos - 1j * sin  # (B, m)
    sin, cos = _exact_sin_cos(start + block * np.arange(blocks), w_hi, w_lo)  # (A, m) each
    anchor = sin + 1j * cos  # (A, m), angles x = (start + a B) w
    per = max(1, _EXACT_CHUNK // (block * m))  # anchors per pass
    for first in range(0, blocks, per):
        last = min(blocks, first + per)
        # (sin x + i cos x)(cos y - i sin y) = sin(x + y) + i cos(x + y)
        product = (anchor[first:last, None, :] * offset[None, :, :]).reshape(-1, m)  # (r, m)
        top = first * block
        rows = min(product.shape[0], length - top)
        values = product[:rows].view(np.float64)[:, take]  # (rows, c): from sin0 cos0 sin1 ..
        if dtype != "float64":
            _recompute_small(values, take, w_hi, w_lo, start + top)
        out[top : top + rows, live] = _round_to(values, dtype)


def _recompute_small(values, take, w_hi, w_lo, first):
    """Entries of ``values`` (rows, c) below ``_SMALL``, again from their own exact angle.

    Row ``r`` is position ``first + r``; column ``k`` is entry ``take[k]`` of the row.
    """
    r, k = np.nonzero(np.abs(values) < _SMALL)  # (s,) each
    for top in range(0, r.size, _EXACT_CHUNK):
        rr, kk = r[top : top + _EXACT_CHUNK], k[top : top + _EXACT_CHUNK]  # (t,) each
        pair = take[kk] // 2  # (t,)
        sin, _, cos, _ = _cis((first + rr).astype(np.float64), w_hi[pair], w_lo[pair])  # (t,)
        values[rr, kk] = np.where(take[kk] % 2 == 1, cos, sin)


# --------------------------------------------------------------------------------------
# Public functions.


def table(
    name: str,
    length: int,
    width: int,
    *,
    base: float | None = None,
    start: int | None = None,
    min_timescale: float | None = None,
    padding_idx: int | None = None,
    dtype: DTypeLike | None = None,
    path: str = "exact",
) -> np.ndarray:
    """The position table of a library convention: its formula, or its operations.

    Row ``r`` holds position ``start + r``; the columns are in the library's
    layout, with its first position, padding row and odd-width rule.

    With ``path="exact"`` (the default) every entry is the convention's formula,
    the one :func:`columns` states (exact real speeds, exact integer positions),
    rounded once to the library's output dtype. With ``path="emulated"`` the table
    follows the library's operations in order, in NumPy, rounding where the
    library rounds.

    Parameters
    ----------
    name : str
        A key of :data:`CONVENTIONS`: ``"paper"``, ``"tensor2tensor"``,
        ``"fairseq"``, ``"xlm"``, ``"marian"``, ``"pytorch-tutorial"``,
        ``"keras-hub"`` or ``"whisper"``.
    length : int
        Number of rows, an integer ``>= 0``.
    width : int
        Number of columns ``d``, an integer the library computes: at least the
        convention's ``min_width``, not one of its ``refused_widths``, and odd
        (from 3 up) only where its ``odd_width`` is not ``"error"``.
    base : float, optional
        The base (largest timescale), a finite real number ``> 1``; by default the
        convention's, 10000.
    start : int, optional
        The first row's position, an integer ``>= 0``; by default the convention's
        ``start`` (``padding_idx + 1`` for fairseq, 0 for the others).
        ``start + length`` is at most ``2**53``, and at most ``2**31`` for
        tensor2tensor and Keras-Hub, which count positions in int32.
    min_timescale : float, optional
        tensor2tensor only: a finite real number ``> 0``, default 1.0.
    padding_idx : int, optional
        fairseq only: the position whose row is zero, an integer ``>= 0``,
        default 1.
    dtype : optional
        ``"paper"`` only: the output dtype (float64, float32 or float16).
        ``"keras-hub"`` only: the compute dtype (float32 by default, float16,
        float64, or ``"bfloat16"``, returned as float32 holding bfloat16 values).
    path : {"exact", "emulated"}, optional
        ``"exact"``: the formula, rounded once. ``"emulated"``: the library's
        operations in order. The two are the same for ``"paper"``.

    Returns
    -------
    numpy.ndarray
        Shape ``(length, width)``; float32 for the libraries (or the Keras-Hub
        compute dtype), float64 for ``"paper"`` unless ``dtype`` says otherwise.

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong kind or out of range, and for a width the
        library itself fails on (the message names the width and the failure).
    posenc.TooLargeError
        When the table would need more memory than the machine has.

    Notes
    -----
    **The exact path.** Before the last rounding each entry is a float64 within
    3.8e-16 of the formula's real value (the angles are reduced exactly, as in
    :func:`posenc.sinusoidal`), and entries below ``2**-20`` in magnitude are
    within about ``2**-52`` of their own size. So a float64 entry is within
    4e-16, and a float32, float16 or bfloat16 entry is the number of its type
    nearest to the real value, except where the real value lies that close to a
    midpoint between two neighbours (then it may be either). Zero columns and
    fairseq's padding row are exactly zero. Tested against mpmath at widths
    from 1 to 1024, at positions up to ``2**31`` (and up to ``2**53`` for
    entries near zero). For ``"paper"`` the table is :func:`posenc.sinusoidal`'s,
    whose own docstring states its accuracy.

    **The emulated path.** The library's operations in their order, with its
    float32 arguments, and NumPy's ``exp``, ``sin``, ``cos`` and ``pow``. Float32
    elementary functions are faithful, not correctly rounded, and NumPy, torch,
    TensorFlow and XLA round them differently, so this is not the library's
    table bit for bit. Sharing the library's operations and arguments, it differs
    from the real library by at most ``(4 t + 2) eps`` per entry, with
    ``t = pos * speed`` and ``eps`` the dtype's machine epsilon (the model of
    ``conformance/README.md``). Measured against the libraries: bit-identical for
    the float64 pipelines (XLM, DistilBERT, Marian, Pegasus), and up to 2.4e-4 at
    2,048 rows and 7.8e-3 near position 100,000 for the float32 ones.

    Examples
    --------
    The paper interleaves; tensor2tensor puts the sines first, and its second
    pair turns at ``10000**(-1/(h-1))``:

    >>> print(table("paper", 2, 4).round(4))
    [[0.     1.     0.     1.    ]
     [0.8415 0.5403 0.01   1.    ]]
    >>> [round(float(x), 4) for x in table("tensor2tensor", 2, 4)[1]]
    [0.8415, 0.0001, 0.5403, 1.0]

    fairseq starts at ``padding_idx + 1 = 2``, and its row ``padding_idx`` is zero:

    >>> [round(float(x), 4) for x in table("fairseq", 1, 4)[0]]
    [0.9093, 0.0002, -0.4161, 1.0]
    >>> table("fairseq", 2, 4, start=0)[1].tolist()
    [0.0, 0.0, 0.0, 0.0]

    Far out, the float32 operations drift from the formula; the exact path does not:

    >>> exact = table("pytorch-tutorial", 1, 8, start=10**6)
    >>> emulated = table("pytorch-tutorial", 1, 8, start=10**6, path="emulated")
    >>> print(f"{float(np.abs(emulated - exact).max()):.0e}")
    8e-03
    """
    convention = _convention(name)
    if not isinstance(path, str):
        raise TypeError(f"path must be 'exact' or 'emulated', got {type(path).__name__} {path!r}")
    if path not in ("exact", "emulated"):
        raise ValueError(f"path must be 'exact' or 'emulated', got {path!r}")
    length = _validate.integer("length", length)
    width = _width(convention, width)
    base = convention.base if base is None else _validate.base(base)
    _only_for("min_timescale", min_timescale, convention, "tensor2tensor")
    _only_for("padding_idx", padding_idx, convention, "fairseq")
    options: dict[str, object] = {"dtype": _compute_dtype(convention, dtype)}
    if convention.name == "tensor2tensor":
        options["min_timescale"] = (
            convention.min_timescale
            if min_timescale is None
            else _positive("min_timescale", min_timescale)
        )
    if convention.name == "fairseq":
        pad = convention.padding_idx if padding_idx is None else padding_idx
        options["padding_idx"] = _validate.integer("padding_idx", pad)
        default_start = options["padding_idx"] + 1
    else:
        default_start = convention.start
    length, start = _validate.positions(length, default_start if start is None else start)
    if convention.name in ("tensor2tensor", "keras-hub") and start + length - 1 > _INT32_TOP:
        raise ValueError(
            f"start + length must be <= 2**31 for {convention.name!r} (positions are int32), "
            f"got start={start}, length={length}"
        )
    if convention.name == "paper":  # posenc.sinusoidal checks its own peak
        return sinusoidal(length, width, base=base, start=start, dtype=options["dtype"])
    if path == "emulated":
        per_entry = _PEAK_PER_ENTRY.get((convention.name, options["dtype"]), 12)
        # The table's entries, and the few (d,) vectors of exponents and speeds.
        needed = per_entry * length * width + 64 * width
        _validate.memory(f"length={length}, width={width}", needed)
        result = _EMULATIONS[convention.name](length, width, base, start, options)  # (L, d)
        return np.ascontiguousarray(result)
    low = options.get("min_timescale", 1.0)
    fastest = max(low, low * low / base)  # speeds run from low to low * (base / low)**-1
    if length and (start + length - 1) * fastest > 2.0**53:
        raise ValueError(
            f"the exact path needs every angle pos * speed <= 2**53, got position "
            f"{start + length - 1} at speed up to {fastest!r}"
        )
    _validate.memory(f"length={length}, width={width}", _exact_peak(length, width, options))
    return _exact(convention, length, width, base, start, options)  # (L, d)


def _exact_peak(length: int, width: int, options: dict[str, object]) -> int:
    """Bytes the exact path needs at its peak: the table, the anchors, offsets and one pass.

    Anchors and offsets are ``A + B <= 2 sqrt(8 L)`` rows of ``ceil(d/2)`` complex
    numbers (with their sine and cosine arrays); a pass holds a few arrays of
    ``_EXACT_CHUNK`` complex entries, or one block of rows when that is larger. The
    ``ceil(d/2)`` exponents and speeds are counted even for an empty table, since
    they would be built before it.
    """
    pairs = (width + 1) // 2
    speeds = 256 * pairs  # the exponents (Fractions), the speeds and the column map
    if not length:
        return speeds
    itemsize = 4 if options["dtype"] == "bfloat16" else np.dtype(options["dtype"]).itemsize
    edges = 2 * math.isqrt(8 * length) + 2  # A + B
    block = 1 << ((length - 1).bit_length() + 2) // 2
    one_pass = 64 * max(_EXACT_CHUNK, block * pairs)
    return itemsize * length * width + 48 * edges * pairs + one_pass + speeds


#: Bytes per table entry at the peak of a builder (angles, sines, cosines and the
#: table), rounded up from what ``tracemalloc`` measured: 10 for the float32 builders,
#: 16 for xlm and marian (float64 angles), 20 to 41 for keras-hub's compute dtypes.
_PEAK_PER_ENTRY = {
    ("xlm", "float32"): 20,
    ("marian", "float32"): 20,
    ("keras-hub", "float32"): 24,
    ("keras-hub", "float16"): 32,
    ("keras-hub", "bfloat16"): 48,
    ("keras-hub", "float64"): 48,
}


def columns(
    name: str,
    width: int,
    *,
    base: float | None = None,
    min_timescale: float | None = None,
) -> tuple[tuple[str, ...], np.ndarray]:
    """What each column of a convention's table holds, by its exact formula.

    Column ``j`` of the table is ``kind[j](pos * speed[j])``, where ``kind[j]``
    is ``"sin"``, ``"cos"`` or ``"zero"`` (the padding column of an odd width, with
    speed 0). The speeds are the real numbers of the formula, each rounded once to
    float64 (from 40-digit decimal arithmetic); :func:`table` evaluates the same
    formula exactly (``path="exact"``) or with the library's operations
    (``path="emulated"``). The wavelength of a column is
    ``2*pi / speed``.

    Parameters
    ----------
    name : str
        A key of :data:`CONVENTIONS`.
    width : int
        As for :func:`table`.
    base, min_timescale : float, optional
        As for :func:`table`.

    Returns
    -------
    kinds : tuple of str
        ``width`` entries, each ``"sin"``, ``"cos"`` or ``"zero"``.
    speeds : numpy.ndarray
        float64, shape ``(width,)``: angular speeds in radians per position.

    Examples
    --------
    >>> kinds, speeds = columns("whisper", 6)
    >>> kinds
    ('sin', 'sin', 'sin', 'cos', 'cos', 'cos')
    >>> speeds.tolist()  # 10000**(-i/2): the last pair turns at exactly 1/10000
    [1.0, 0.01, 0.0001, 1.0, 0.01, 0.0001]
    >>> columns("marian", 5)[0]
    ('sin', 'sin', 'sin', 'cos', 'cos')
    """
    convention = _convention(name)
    width = _width(convention, width)
    base = convention.base if base is None else _validate.base(base)
    _only_for("min_timescale", min_timescale, convention, "tensor2tensor")
    _validate.memory(f"width={width}", 64 * width)  # lists of Python floats, then arrays
    half = width // 2
    if convention.exponent.startswith("i/(h-1)"):
        # Pair i of h: exponent i / (h - 1), h - 1 at least 1 (tensor2tensor's maximum).
        low = 1.0
        if convention.name == "tensor2tensor":
            low = (
                convention.min_timescale
                if min_timescale is None
                else _positive("min_timescale", min_timescale)
            )
        rates = [_speed(base, Fraction(i, max(half - 1, 1)), low=low) for i in range(half)]
        kinds = ("sin",) * half + ("cos",) * half + ("zero",) * (width % 2)
        speeds = rates + rates + [0.0] * (width % 2)
        return kinds, np.array(speeds, dtype=np.float64)
    # Column j of the interleaved table turns at base**(-2(j//2)/d).
    rates = [_speed(base, Fraction(2 * (j // 2), width)) for j in range(width)]
    kinds = tuple("sin" if j % 2 == 0 else "cos" for j in range(width))
    if convention.layout == "marian":
        order = concatenated_order(width)
        return tuple(kinds[j] for j in order), np.array(rates, dtype=np.float64)[order]
    return kinds, np.array(rates, dtype=np.float64)


def _speed(top: float, exponent: Fraction, *, low: float = 1.0) -> float:
    """``low * (top / low)**(-exponent)``, rounded once to float64 (40-digit arithmetic).

    With ``low = 1`` this is ``top**(-exponent)``; tensor2tensor's frequencies are
    ``min_timescale * (max_timescale / min_timescale)**(-i/(h-1))``.
    """
    with localcontext() as context:
        context.prec = 40
        log = (Decimal(top) / Decimal(low)).ln() * exponent.numerator / exponent.denominator
        return float(Decimal(low) * (-log).exp())


def concatenated_order(width: int) -> np.ndarray:
    """The column permutation from the interleaved layout to the concatenated one.

    Column ``k`` of the concatenated table is column ``order[k]`` of the
    interleaved table: the even columns (sines) first, then the odd ones
    (cosines). For an odd width this is the Marian split: ``ceil(d/2)`` sines,
    ``floor(d/2)`` cosines. ``np.argsort(order)`` undoes it.

    Parameters
    ----------
    width : int
        Number of columns, an integer ``>= 1``.

    Returns
    -------
    numpy.ndarray
        int64, shape ``(width,)``, a permutation of ``0 .. width - 1``.

    Examples
    --------
    >>> concatenated_order(8).tolist()
    [0, 2, 4, 6, 1, 3, 5, 7]
    >>> paper = table("paper", 5, 8)
    >>> bool(np.array_equal(table("marian", 5, 8), paper[:, concatenated_order(8)]
    ...                     .astype(np.float32)))
    True
    """
    width = _validate.integer("width", width, minimum=1)
    _validate.memory(f"width={width}", 16 * width)
    return np.concatenate([np.arange(0, width, 2), np.arange(1, width, 2)])


def rotary_pairs(pairing: str, width: int) -> np.ndarray:
    """The coordinate pairs that one rotary frequency turns, for a pairing.

    Parameters
    ----------
    pairing : str
        A key of :data:`ROTARY_PAIRINGS`: ``"interleaved"`` or ``"half"``.
    width : int
        Head dimension ``d``, an even integer ``>= 2``.

    Returns
    -------
    numpy.ndarray
        int64, shape ``(width // 2, 2)``: row ``i`` holds the two coordinates that
        frequency ``i`` turns.

    Examples
    --------
    >>> rotary_pairs("interleaved", 6).tolist()
    [[0, 1], [2, 3], [4, 5]]
    >>> rotary_pairs("half", 6).tolist()
    [[0, 3], [1, 4], [2, 5]]
    """
    allowed = ", ".join(repr(n) for n in ROTARY_PAIRINGS)
    if not isinstance(pairing, str):
        raise TypeError(f"pairing must be one of {allowed}, got {type(pairing).__name__}")
    if pairing not in ROTARY_PAIRINGS:
        raise ValueError(f"pairing must be one of {allowed}, got {pairing!r}")
    width = _validate.width(width)
    _validate.memory(f"width={width}", 24 * width)
    i = np.arange(width // 2)  # (d/2,)
    if pairing == "interleaved":
        return np.stack([2 * i, 2 * i + 1], axis=1)  # (d/2, 2)
    return np.stack([i, i + width // 2], axis=1)  # (d/2, 2)
