"""Which rotary scheme and parameters explain a vector of speeds, a cos/sin cache or a config.

Every explanation is a candidate recomputed in full with :func:`posenc.rope.inv_freq`; the
reported error is the largest relative difference over all pairs. Parameters are first
fitted by closed forms: the base from the ratio of the first two speeds (which every scheme
but "longrope" leaves alone or divides by the same ``s``), ``s`` from the slowest pair, and
the band edges from where the ratio to the default ladder leaves 1 and reaches ``1/s``.

A recomputation within the tolerance is not yet an answer: with two pairs, any falling
vector is a default ladder for some base. So, as for tables (:mod:`posenc._evidence`),
the pairs are weighed in bits (how unlikely random speeds are to fall within the
tolerance of the scheme's) against the bits it takes to name the scheme and its
parameters, and the verdict is "identified" only when the evidence suffices. A cos/sin
cache is judged on every row given, recomputed from the scheme found; a config is read,
and its parameters are checked against what its scheme needs (a factor of at least 1,
``beta_fast > beta_slow``, ...).

:func:`identify_pairing` answers another question, about one layer's query and key
weights: do they pair their rotary coordinates by halves or in turn? Its answer is a
sign-flip test of the energies of each pair's two coordinates, exact in its level under
the symmetry its docstring states, and it says when the weights do not tell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from posenc import rope
from posenc._evidence import LEVEL_BITS, number_bits
from posenc.precision import FORMATS, round_to, ulp
from posenc.rotary import _halves, _pairing

__all__ = [
    "PairingIdentification",
    "RopeIdentification",
    "identify_cache",
    "identify_config",
    "identify_inv_freq",
    "identify_pairing",
    "pairing_pairs",
]

#: Relative tolerance of "exact": a few float32 ulps, so float32-stored vectors qualify.
FLOAT32_TOLERANCE = 4.0 * 2.0**-23

_LENGTHS = (*tuple(2**k for k in range(8, 21)), 2048 * 3, 4096 * 3, 4000, 32000)
_BETAS = ((32.0, 1.0),)


#: The verdicts, as :func:`posenc.identify.identify` gives them.
IDENTIFIED, UNDECIDED, NOT_IDENTIFIED = "identified", "cannot tell", "not identified"


@dataclass
class RopeIdentification:
    """The scheme that explains some speeds best, its parameters, its error and the verdict.

    ``exact`` says the scheme recomputes the speeds within the tolerance; ``verdict`` is
    "identified" only when, besides, the speeds hold the evidence to name it
    (``evidence``: bits held and bits needed), and, for a cache, every row fits; "cannot
    tell" when the fit is exact but the evidence too thin; "not identified" otherwise,
    with the reasons in ``problems``.
    """

    scheme: str
    rotary_dim: int
    base: float
    params: dict[str, Any] = field(default_factory=dict)
    max_rel_error: float = math.inf
    exact: bool = False
    bands: str = ""
    notes: list[str] = field(default_factory=list)
    verdict: str = NOT_IDENTIFIED
    evidence: dict[str, float] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the result."""
        params = {
            k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.params.items()
        }
        return {
            "verdict": self.verdict,
            "scheme": self.scheme,
            "rotary_dim": self.rotary_dim,
            "base": self.base,
            "params": params,
            "max_rel_error": self.max_rel_error if math.isfinite(self.max_rel_error) else None,
            "exact": self.exact,
            "evidence": {k: round(v, 1) for k, v in self.evidence.items()},
            "bands": self.bands,
            "problems": list(self.problems),
            "notes": list(self.notes),
        }


def _speeds(values: Any) -> np.ndarray:
    w = np.asarray(values, dtype=np.float64)
    if w.ndim != 1:
        raise ValueError(f"inverse frequencies must be one vector, got shape {w.shape}")
    if w.size < 2:
        raise ValueError("inverse frequencies need at least two pairs")
    rope.check_pairs(w.size, "the vector of inverse frequencies")  # the time to fit them
    if not np.all(np.isfinite(w)):
        raise ValueError("inverse frequencies hold NaN or infinity")
    if np.any(w <= 0):
        raise ValueError("inverse frequencies must all be positive")
    if np.any(np.diff(w) >= 0):
        raise ValueError("inverse frequencies must fall strictly from the first pair to the last")
    return w


def _error(w: np.ndarray, candidate: np.ndarray) -> float:
    return float(np.max(np.abs(candidate - w) / w))


def _band_words(w: np.ndarray, default: np.ndarray, factor: float, length: int | None) -> str:
    ratio = w / default
    same = int(np.sum(np.abs(ratio - 1) <= FLOAT32_TOLERANCE))
    divided = int(np.sum(np.abs(ratio * factor - 1) <= FLOAT32_TOLERANCE)) if factor > 1 else 0
    blended = w.size - same - divided
    words = [f"{same} pairs unchanged, {blended} blended, {divided} divided by s"]
    if length:
        waves = rope.wavelengths(w)
        words.append(f"{int(np.sum(waves <= length))} pairs turn within L0 = {length}")
        if factor > 1:
            n = int(np.sum(waves <= factor * length))
            words.append(f"{n} within s*L0 = {factor * length:g}")
    return "; ".join(words)


def _try(w, scheme, dim, base, **params) -> tuple[float, dict[str, Any]]:
    try:
        candidate, _ = rope.inv_freq(scheme, dim, base=base, **params)
    except (ValueError, TypeError):
        return math.inf, params
    return _error(w, candidate), params


# --------------------------------------------------------------------------------------
# Evidence for a scheme found from speeds (see posenc._evidence).

#: Random speeds are weighed as log-speeds drawn uniformly from [ln 1e-12, 0], then sorted.
_LOG_RANGE = math.log(1e12)

#: Bases named at 1 + log2(len) bits; any other costs its digits (number_bits).
_COMMON_BASES = (10000.0, 500000.0, 1e6, 1e5, 5e6, 1e7)


def _speed_bits(pairs: int, tolerance: float) -> float:
    """Bits of evidence in ``pairs`` speeds each recomputed within ``tolerance`` (relative).

    A random log-speed lands within ``tolerance`` of a given one with a chance of at most
    ``2 tolerance / _LOG_RANGE``; a vector of ``pairs`` sorted ones is ``pairs!`` times
    likelier than one in a given order, hence the ``log2(pairs!)`` taken off.
    """
    each = math.log2(_LOG_RANGE / (2 * tolerance))
    return max(0.0, pairs * each - math.lgamma(pairs + 1) / math.log(2))


def _length_bits(length: int) -> float:
    if length in _LENGTHS:
        return 1 + math.log2(len(_LENGTHS))
    return 1 + 21  # any length up to 2**21


def _scheme_bits(scheme: str, base: float, params: dict[str, Any]) -> float:
    """Bits to name a scheme and the parameters that were fitted to the speeds."""
    bits = math.log2(len(rope.SCHEMES))
    bits += 1 + (math.log2(len(_COMMON_BASES)) if base in _COMMON_BASES else number_bits(base))
    if "factor" in params:
        bits += number_bits(float(params["factor"]))
    if "original_max_position_embeddings" in params:
        bits += _length_bits(int(params["original_max_position_embeddings"]))
    for key in ("low_freq_factor", "high_freq_factor"):
        if key in params:
            bits += number_bits(float(params[key]))
    return bits


def identify_inv_freq(values: Any, *, tolerance: float = FLOAT32_TOLERANCE) -> RopeIdentification:
    """Say which scheme and parameters explain the speeds ``values`` (one per rotated pair).

    "dynamic" speeds are a default ladder with a larger base: the base is reported, and
    a note says so. Any positive vector is a "longrope" vector (one factor per pair), so
    "longrope" is the answer, with the per-pair factors to the default ladder, only when no
    other scheme recomputes the vector within ``tolerance``.
    """
    w = _speeds(values)
    pairs = w.size
    dim = 2 * pairs
    best: tuple[float, str, dict[str, Any], float] | None = None
    for base in _bases(w, dim):
        for err, scheme, params in _candidates(w, dim, base, tolerance):
            if (
                best is None
                or err < best[0] - tolerance * 1e-3
                or (err <= tolerance and best[0] > tolerance)
            ):
                best = (err, scheme, params, base)
            if best[0] <= tolerance:
                break
        if best is not None and best[0] <= tolerance:
            break
    assert best is not None
    err, scheme, params, base = best
    default = rope.default_inv_freq(dim, base)
    factor = float(params.get("factor", 1.0))
    result = RopeIdentification(scheme, dim, base, params, err, err <= tolerance)
    bits, needed = _speed_bits(pairs, tolerance), LEVEL_BITS + _scheme_bits(scheme, base, params)
    result.evidence = {"bits": bits, "needed": needed}
    if result.exact and bits >= needed:
        result.verdict = IDENTIFIED
    elif result.exact:
        result.verdict = UNDECIDED
        result.problems.append(
            f"{pairs} speeds recomputed within {tolerance:.1e} hold {bits:.0f} bits of evidence,"
            f" and naming {scheme} with these parameters needs {needed:.0f}: too few pairs to"
            " decide (any two falling speeds are a default ladder for some base)"
        )
    length = params.get("original_max_position_embeddings")
    if scheme == "default":
        result.notes.append(
            "a dynamic-NTK model gives a default ladder with a grown base: if the model's own"
            " base is b0, the base found here is its dynamic base"
        )
    if scheme == "llama3" and result.exact:
        result.notes.append(
            "only the band edges L0/low_freq_factor and L0/high_freq_factor are identifiable;"
            " L0 is given for low_freq_factor = 1"
        )
    if scheme == "yarn" and result.exact:
        result.notes.append(
            "only the integer ramp ends are identifiable; L0 is the first power of two (or"
            " usual length) that gives them with beta_fast = 32, beta_slow = 1"
        )
    if not result.exact:
        result.problems.append(
            f"no scheme recomputes the vector within {tolerance:.1e} (closest: {scheme},"
            f" {err:.2e})"
        )
        result.notes.append(
            "as any vector, it is a longrope vector with per-pair factors default/speed"
            " given in params"
        )
        result.scheme = "longrope"
        result.params = {"factors_to_default": default / w, "closest": scheme, **params}
    result.bands = _band_words(w, default, factor if scheme != "default" else 1.0, length)
    return result


def _bases(w: np.ndarray, dim: int) -> list[float]:
    """Candidate bases: round ones near the estimates first, then the estimates themselves."""
    from_ratio = float((w[1] / w[0]) ** (-dim / 2.0))
    slope = np.polyfit(2.0 * np.arange(w.size) / dim, np.log(w), 1)[0]
    from_fit = float(np.exp(-slope))
    out: list[float] = []
    for estimate in (from_fit, from_ratio):
        for digits in (2, 3, 4):
            out.append(float(f"{estimate:.{digits - 1}e}"))
    out += [from_fit, from_ratio]
    return list(dict.fromkeys(b for b in out if b > 1))


def _candidates(w, dim, base, tolerance):
    """Candidate explanations in order of preference: default, linear, llama3, yarn."""
    default = rope.default_inv_freq(dim, base)
    ratio = w / default
    yield (*_try(w, "default", dim, base)[:1], "default", {})
    raw = float(1.0 / ratio[-1])
    factors = list(dict.fromkeys([float(f"{raw:.4e}"), raw]))
    for factor in factors:
        if factor <= 1 + 1e-4:
            continue
        if abs(ratio[0] * factor - 1) <= 10 * tolerance + 1e-6:
            err, params = _try(w, "linear", dim, base, factor=factor)
            yield err, "linear", params
        if abs(ratio[0] - 1) <= 10 * tolerance + 1e-6:
            yield from _fit_llama3(w, dim, base, factor, ratio)
            yield from _fit_yarn(w, dim, base, factor)


def _fit_llama3(w, dim, base, factor, ratio):
    """Llama 3: in the blend, the share kept is linear in ``1/wavelength``; fit that line."""
    share = (ratio - 1 / factor) / (1 - 1 / factor)
    blend = (share > FLOAT32_TOLERANCE * 100) & (share < 1 - FLOAT32_TOLERANCE * 100)
    out = []
    inv_wave = 1.0 / rope.wavelengths(w / ratio)
    if np.sum(blend) >= 2:
        slope, intercept = np.polyfit(inv_wave[blend], share[blend], 1)
        if intercept < 0:
            # only L0/low_ff and L0/high_ff are identifiable; Llama's convention is low_ff = 1
            length = round(-slope / intercept)
            params = dict(
                factor=factor,
                original_max_position_embeddings=length,
                low_freq_factor=1.0,
                high_freq_factor=float(round(1.0 + length / slope, 6)),
            )
            err, _ = _try(w, "llama3", dim, base, **params)
            out.append((err, "llama3", params))
        # share = (L0/wave - lff) / (hff - lff): slope = L0/(hff-lff), intercept = -lff/(hff-lff)
        for length in _LENGTHS:
            gap = length / slope
            lff = -intercept * gap
            hff = lff + gap
            if lff > 0 and hff > lff:
                params = dict(
                    factor=factor,
                    original_max_position_embeddings=length,
                    low_freq_factor=float(round(lff, 6)),
                    high_freq_factor=float(round(hff, 6)),
                )
                err, _ = _try(w, "llama3", dim, base, **params)
                out.append((err, "llama3", params))
    return out


def _fit_yarn(w, dim, base, factor):
    out = []
    for length in _LENGTHS:
        for fast, slow in _BETAS:
            params = dict(
                factor=factor,
                original_max_position_embeddings=length,
                beta_fast=fast,
                beta_slow=slow,
            )
            err, _ = _try(w, "yarn", dim, base, **params)
            out.append((err, "yarn", params))
    return out


def _layout(cos: np.ndarray, sin: np.ndarray) -> str:
    """ "half" or "interleaved": which layout rows 0 and 1 (positions 0 and 1) are in."""
    n = cos.shape[1] // 2
    for name, first, second in (
        ("half", np.s_[:, :n], np.s_[:, n:]),
        ("interleaved", np.s_[:, 0::2], np.s_[:, 1::2]),
    ):
        if all(np.allclose(x[:2][first], x[:2][second], rtol=1e-6, atol=1e-6) for x in (cos, sin)):
            return name
    raise ValueError("the cache is neither in half layout nor interleaved (rows 0 and 1)")


def _rotation(z: np.ndarray) -> np.ndarray:
    """Speed of each pair from the turns between rows, (p,): the median over every row.

    The turn from row ``r`` to ``r + 1`` gives each speed to within the cache's rounding;
    the turn over ``lag = rows // 2`` rows gives it ``lag`` times more finely, once its
    whole turns are counted from the short one. Medians over the rows keep a few wrong
    rows from moving the speeds: those rows are then found when every row is compared.
    """
    rows = z.shape[0]
    step = np.median(np.angle(z[1:] * np.conj(z[:-1])), axis=0)  # (p,), each in (-pi, pi]
    lag = rows // 2
    if lag >= 2:
        long = np.angle(z[lag:] * np.conj(z[:-lag]))  # (rows - lag, p)
        long += 2 * math.pi * np.rint((lag * step[None, :] - long) / (2 * math.pi))
        step = np.median(long, axis=0) / lag
    return step


def _cache_storage(values: np.ndarray, dtype: np.dtype) -> str:
    """The narrowest format that holds every value, within the array's own type."""
    own = dtype.name if dtype.kind == "f" and dtype.name in FORMATS else "float64"
    for name in ("bfloat16", "float16", "float32"):
        if FORMATS[name].significand_bits >= FORMATS[own].significand_bits:
            break
        with np.errstate(over="ignore"):
            if np.array_equal(round_to(values, name), values):
                return name
    return own


def identify_cache(cos: Any, sin: Any, **kwargs: Any) -> tuple[str, RopeIdentification]:
    """Identify the scheme of a cos/sin cache (positions x dims), judged on every row.

    Row ``m`` is position ``m`` (a cache starts at position 0). The layout ("half" or
    "interleaved") is read from rows 0 and 1; each pair's speed from the turn between
    consecutive rows over the whole cache (valid for speeds below pi: every real ladder
    starts at 1); the attention factor ``a`` from the pairs' length ``sqrt(cos^2 +
    sin^2)``, the same in every entry. The speeds are identified (:func:`identify_inv_freq`),
    then the whole cache is recomputed from the scheme found, in the layout found,
    scaled by ``a``, and every entry must lie within the bound of a float32
    implementation (angles ``m w`` in float32: ``a ((2 |ln w| + 3) m w + 2) 2**-23``, plus
    half an ulp of the storage type). Returns the layout and the identification; a cache
    whose rows do not all fit is "not identified", with the first row that does not.
    """
    c = np.asarray(cos)
    s = np.asarray(sin)
    if c.ndim != 2 or c.shape != s.shape or c.shape[0] < 2 or c.shape[1] < 4 or c.shape[1] % 2:
        raise ValueError(
            "cos and sin must be two arrays of the same shape (positions >= 2, an even number"
            f" of dims >= 4), got {c.shape} and {s.shape}"
        )
    for name, x in (("cos", c), ("sin", s)):
        if x.dtype.kind not in "biuf":
            raise ValueError(f"the {name} cache must hold real numbers, got dtype {x.dtype}")
    storage = _cache_storage(np.concatenate([c.ravel(), s.ravel()]).astype(np.float64), c.dtype)
    c, s = c.astype(np.float64), s.astype(np.float64)
    if not (np.all(np.isfinite(c)) and np.all(np.isfinite(s))):
        raise ValueError("the cache holds NaN or infinity")
    rope.check_pairs(c.shape[1] // 2, "the cache")
    layout = _layout(c, s)
    n = c.shape[1] // 2
    pick = slice(0, n) if layout == "half" else slice(0, None, 2)
    z = c[:, pick] + 1j * s[:, pick]  # (rows, pairs)
    size = np.abs(z)
    factor = float(np.median(size))
    kwargs.setdefault("tolerance", 1e-6)
    if not factor > 0:
        raise ValueError("the cache's pairs have length 0: cos and sin are all zero")
    w = _rotation(z / factor)
    if np.any(w <= 0) or np.any(np.diff(w) >= 0):
        result = RopeIdentification("unknown", c.shape[1], math.nan, {}, math.inf, False)
        result.problems.append(
            "the speeds read from the turns between rows do not fall from pair to pair:"
            " no rotary ladder"
        )
        return layout, result
    result = identify_inv_freq(w, **kwargs)
    result.params["cache_attention_factor"] = factor
    _judge_cache(result, c, s, layout, factor, storage)
    return layout, result


def _judge_cache(result, c, s, layout, factor, storage) -> None:
    """Recompute every row of the cache from the scheme found and compare, entry by entry."""
    params = {k: v for k, v in result.params.items() if k != "cache_attention_factor"}
    if result.scheme == "longrope":  # the fallback: the per-pair factors give the speeds
        w = rope.default_inv_freq(result.rotary_dim, result.base) / params["factors_to_default"]
        own = 1.0
    else:
        w, own = rope.inv_freq(result.scheme, result.rotary_dim, base=result.base, **params)
    positions = np.arange(c.shape[0], dtype=np.float64)  # (rows,)
    ref_cos, ref_sin = rope.cos_sin(positions, w, attention_factor=factor, layout=layout)
    speed = np.concatenate([w, w]) if layout == "half" else np.repeat(w, 2)  # (d,)
    angle = positions[:, None] * speed[None, :]  # (rows, d)
    spread = (2 * np.abs(np.log(speed))[None, :] + 3) * angle + 2  # in float32 ulps at 1
    bad = np.zeros(c.shape, dtype=bool)  # (rows, d)
    allowed = np.empty(c.shape)
    for got, ref in ((c, ref_cos), (s, ref_sin)):
        limit = factor * spread * 2.0**-23 + 0.5 * ulp(ref, storage)  # (rows, d)
        over = np.abs(got - ref) > limit
        allowed = np.where(over & ~bad, limit, allowed)
        bad |= over
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        row = int(rows[0])
        col = int(np.flatnonzero(bad[row])[0])
        diff = max(abs(c[row, col] - ref_cos[row, col]), abs(s[row, col] - ref_sin[row, col]))
        result.verdict = NOT_IDENTIFIED
        result.problems.append(
            f"{rows.size} of the {c.shape[0]} rows do not fit the {result.scheme} ladder"
            f" found; the first, row {row} (position {row}), differs by {diff:.3g} in column"
            f" {col}, more than the {allowed[row, col]:.2g} a float32 implementation allows"
        )
    if abs(factor - 1.0) > 1e-6:
        words = f"cos and sin are scaled by {factor:.6g} (so the logits by {factor**2:.6g})"
        if abs(factor - own) <= 1e-5 * own:
            result.notes.append(f"{words}: the attention factor of this {result.scheme} scheme")
        else:
            result.notes.append(
                f"{words}; the {result.scheme} scheme found has attention factor {own:.6g}"
            )
    result.notes.append(f"all {c.shape[0]} rows compared, in {storage} storage")


def _config_problems(cfg: rope.RopeConfig, w: np.ndarray) -> list[str]:
    """What the config sets that its scheme does not allow, in words (empty if nothing).

    The rules are those of the schemes' definitions, which Transformers also checks (and
    only warns about, in ``modeling_rope_utils``): a scale of at least 1, YaRN's
    ``beta_fast`` above ``beta_slow``, a positive attention factor; and speeds that fall
    from pair to pair, as every rotary ladder's do. (Llama 3's ``high_freq_factor`` not
    above ``low_freq_factor`` is refused by :func:`posenc.rope.inv_freq` itself.)
    """
    p, problems = cfg.params, []
    factor = p.get("factor")
    if factor is not None and cfg.scheme != "default" and float(factor) < 1:
        problems.append(
            f"factor {factor:g} is below 1: the scale s stretches the context, and a factor"
            " below 1 shrinks it (Transformers warns and goes on)"
        )
    if cfg.scheme == "yarn":
        fast, slow = p.get("beta_fast", 32.0), p.get("beta_slow", 1.0)
        if not float(fast) > float(slow):
            problems.append(
                f"beta_fast {fast:g} is not above beta_slow {slow:g}: YaRN's ramp runs from"
                " the pair that turns beta_fast times in L0 to the one that turns beta_slow"
                " times, so swapped values invert it"
            )
    attention = p.get("attention_factor")
    if attention is not None and not float(attention) > 0:
        problems.append(f"attention_factor {attention:g} is not positive")
    if w.size >= 2 and (np.any(w <= 0) or np.any(np.diff(w) >= 0)):
        problems.append("its speeds do not fall from pair to pair, as every rotary ladder's do")
    return problems


def identify_config(config: Any, *, layer_type: str | None = None) -> RopeIdentification:
    """Read the scheme and parameters of a ``config.json``, check them, say the bands in words.

    The verdict is "identified" when the config names a scheme posenc computes and its
    parameters are ones that scheme allows (:func:`_config_problems`); otherwise "not
    identified", with the problems. The speeds the config implies are also identified
    from the vector alone (:func:`identify_inv_freq`), and that answer is given as a
    note; ``max_rel_error`` is its error, or None when the speeds are no ladder.
    """
    cfg = rope.read_config(config, layer_type=layer_type)
    every, _ = cfg.inv_freq()
    w = every[every > 0] if cfg.scheme == "proportional" else every  # the pairs that turn
    dim = 2 * w.size
    factor = float(cfg.params.get("factor") or 1.0)
    length = cfg.params.get("original_max_position_embeddings") or cfg.params.get(
        "max_position_embeddings"
    )
    problems = _config_problems(cfg, w)
    result = RopeIdentification(cfg.scheme, dim, cfg.base, dict(cfg.params))
    result.problems = problems
    result.verdict = NOT_IDENTIFIED if problems else IDENTIFIED
    result.exact = not problems
    if cfg.scheme == "proportional":
        result.bands = (
            f"{w.size} pairs turn at base**(-2i/{cfg.head_dim}), the exponent over the whole"
            f" head; {every.size - w.size} are stopped (speed 0)"
        )
    elif cfg.scheme == "axial":
        result.rotary_dim = 2 * dim
        result.bands = f"{w.size} pairs turned by a patch's row, the same {w.size} by its column"
    else:
        default = rope.default_inv_freq(dim, cfg.base)
        scaled = factor if cfg.scheme != "default" else 1.0
        result.bands = _band_words(w, default, scaled, length)
    result.notes = [
        (
            "no rope_scaling or rope_parameters: the plain ladder"
            if cfg.form == "none"
            else f"read from the {cfg.form} form"
        ),
        *cfg.notes,
    ]
    ladder = cfg.scheme not in ("proportional", "axial")  # others are no 1-D ladder
    if ladder and w.size >= 2 and np.all(w > 0) and np.all(np.diff(w) < 0):
        alone = identify_inv_freq(w)
        result.max_rel_error = alone.max_rel_error
        result.notes.append(
            f"its speeds alone are {alone.verdict} as {alone.scheme}"
            + (f" (closest: {alone.params.get('closest')})" if not alone.exact else "")
            + f", recomputed within {alone.max_rel_error:.2g}"
        )
    return result


# --------------------------------------------------------------------------------------
# Which pairing a pair of projection weights is in.

#: Level of the sign-flip test: a pairing whose partners differ with a p-value below it
#: is rejected.
PAIRING_ALPHA = 1e-3

#: Sign flips drawn for each test (seeded): p-values resolve to 1 / (draws + 1).
PAIRING_DRAWS = 9999


@dataclass
class PairingIdentification:
    """Which pairing the query and key weights of a rotary layer are in, and the evidence.

    ``pairing`` is "half" (pair ``i`` in coordinates ``i`` and ``i + r/2``), "interleaved"
    (``2i`` and ``2i + 1``) or None when the weights do not tell. For each pairing,
    ``statistic`` is the mean over its pairs of ``Z_i**2 / V_i``, where ``Z_i`` sums the
    log energy ratios ``ln(e_a / e_b)`` of the pair's two coordinates over the groups of
    heads and ``V_i`` sums their squares; ``p_value`` is the chance of a statistic at
    least as large when every sign is flipped at random, which is exactly how the
    statistic is distributed if the two coordinates of each pair are interchangeable.
    """

    pairing: str | None
    head_dim: int
    rotary_dim: int
    heads: int
    kv_heads: int
    statistic: dict[str, float]
    p_value: dict[str, float]
    alpha: float
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the result."""
        return {
            "pairing": self.pairing,
            "head_dim": self.head_dim,
            "rotary_dim": self.rotary_dim,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "statistic": dict(self.statistic),
            "p_value": dict(self.p_value),
            "alpha": self.alpha,
            "notes": list(self.notes),
        }


def _projection(name: str, value: Any, head_dim: int) -> tuple[np.ndarray, bool]:
    """A 2-D weight as (heads * head_dim, hidden); True if it had to be transposed."""
    w = np.asarray(value)
    if w.ndim != 2:
        raise ValueError(
            f"{name} must be a matrix (heads * head_dim, hidden), as a PyTorch Linear stores"
            f" it, got shape {w.shape}; reshape a per-head kernel first"
        )
    if not np.issubdtype(w.dtype, np.number) or np.iscomplexobj(w):
        raise ValueError(f"{name} must hold real numbers, got dtype {w.dtype}")
    if w.size == 0:
        raise ValueError(f"{name} has no entries (shape {w.shape})")
    w = w.astype(np.float64)
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} holds NaN or infinity")
    if w.shape[0] % head_dim == 0:
        return w, False
    if w.shape[1] % head_dim == 0:
        return w.T, True  # (hidden, heads * head_dim): the Keras and JAX layout
    raise ValueError(f"neither dimension of {name} {w.shape} is a multiple of head_dim {head_dim}")


def _energies(w: np.ndarray, head_dim: int, rotary_dim: int) -> np.ndarray:
    """Squared row norm of each rotated coordinate of each head: (heads, rotary_dim)."""
    heads = w.reshape(-1, head_dim, w.shape[1])[:, :rotary_dim, :]  # (h, r, hidden)
    return np.sum(heads**2, axis=2)  # (h, r)


def _flip_test(x: np.ndarray, draws: int, rng: np.random.Generator) -> tuple[float, float]:
    """Statistic and sign-flip p-value of the log ratios x, (groups, pairs)."""
    v = np.sum(x**2, axis=0)  # (P,)
    keep = v > 0
    x, v = x[:, keep], v[keep]
    if not keep.any():
        return 1.0, 1.0
    observed = float(np.mean(np.sum(x, axis=0) ** 2 / v))
    larger = 0
    for start in range(0, draws, 500):
        n = min(500, draws - start)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(n, *x.shape))  # (n, G, P)
        null = np.mean(np.sum(signs * x, axis=1) ** 2 / v, axis=1)  # (n,)
        larger += int(np.sum(null >= observed * (1 - 1e-12)))
    return observed, (larger + 1) / (draws + 1)


def pairing_pairs(rotary_dim: int, pairing: str) -> np.ndarray:
    """The coordinates ``(a, b)`` of each pair, shape (rotary_dim/2, 2).

    Examples
    --------
    >>> pairing_pairs(6, "half").tolist()
    [[0, 3], [1, 4], [2, 5]]
    >>> pairing_pairs(6, "interleaved").tolist()
    [[0, 1], [2, 3], [4, 5]]
    """
    first, second = _halves(rotary_dim, _pairing(pairing))  # as posenc.rotary turns them
    coordinates = np.arange(rotary_dim)
    return np.stack([coordinates[first], coordinates[second]], axis=1)


def identify_pairing(
    wq: Any,
    wk: Any,
    head_dim: int,
    *,
    rotary_dim: int | None = None,
    alpha: float = PAIRING_ALPHA,
    draws: int = PAIRING_DRAWS,
    seed: int = 0,
) -> PairingIdentification:
    """Say whether query and key weights pair their rotary coordinates by halves or in turn.

    The weights are those of one layer, ``W_q`` of shape (heads * head_dim, hidden) and
    ``W_k`` of shape (kv_heads * head_dim, hidden), as PyTorch and Hugging Face store them
    (the transpose, as Keras and JAX store them, is recognised). Query heads share key
    heads in consecutive groups, as Hugging Face's ``repeat_kv`` shares them. Only the
    first ``rotary_dim`` coordinates of each head are rotated (partial rotary); by
    default all are.

    The evidence is a test, not a proof. Turning one pair's plane by a quarter turn, in
    one key head and the query heads that share it, changes nothing the model computes;
    it swaps the pair's two rows there and negates one. An initialisation and an
    optimiser that treat the coordinates alike (i.i.d. weights; SGD, Adam, AdamW) give
    weights whose distribution does not change under any of these turns. So under the
    right pairing, the log ratio ``ln(e_a / e_b)`` of the energies (squared row norms) of
    a pair's two coordinates, summed over a group of heads, is as likely to be negative
    as positive, independently for every group and pair: its signs are fair coins, and a
    sign-flip test has exactly its stated level. Under the wrong pairing the two
    coordinates belong to pairs of different speeds, and when trained heads give those
    speeds different energies in the same direction across groups, the test rejects it.

    A pairing is named when the other one is rejected at level ``alpha`` and it is not.
    When neither is rejected (untrained weights, or too few groups of heads) or both are
    (not a rotary layer in either layout), the answer is None, with a note saying which.
    """
    head_dim = int(head_dim)
    if head_dim < 2 or head_dim % 2:
        raise ValueError(f"head_dim must be an even integer >= 2, got {head_dim}")
    r = head_dim if rotary_dim is None else int(rotary_dim)
    if r < 4 or r % 2 or r > head_dim:
        raise ValueError(f"rotary_dim must be even, >= 4 and <= head_dim {head_dim}, got {r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    draws = int(draws)
    if draws < 99:
        raise ValueError(f"draws must be at least 99, got {draws}")
    q, q_turned = _projection("W_q", wq, head_dim)
    k, k_turned = _projection("W_k", wk, head_dim)
    if q.shape[1] != k.shape[1]:
        raise ValueError(
            f"W_q and W_k must read the same hidden size, got {q.shape[1]} and {k.shape[1]}"
        )
    heads, kv_heads = q.shape[0] // head_dim, k.shape[0] // head_dim
    if heads % kv_heads:
        raise ValueError(
            f"{heads} query heads cannot share {kv_heads} key heads evenly (grouped attention)"
        )
    eq, ek = _energies(q, head_dim, r), _energies(k, head_dim, r)  # (h, r), (g, r)
    for name, e in (("W_q", eq), ("W_k", ek)):
        if np.any(e <= 0):
            head, row = (int(v[0]) for v in np.nonzero(e <= 0))
            raise ValueError(
                f"{name} has a row of zeros (head {head}, coordinate {row}): its energy"
                " cannot be compared"
            )
    rng = np.random.default_rng(seed)
    statistic, p_value = {}, {}
    for name in ("half", "interleaved"):
        pairs = pairing_pairs(r, name)
        lq = np.log(eq[:, pairs[:, 0]] / eq[:, pairs[:, 1]])  # (h, P)
        lk = np.log(ek[:, pairs[:, 0]] / ek[:, pairs[:, 1]])  # (g, P)
        x = lk + lq.reshape(kv_heads, heads // kv_heads, -1).sum(axis=1)  # (g, P)
        statistic[name], p_value[name] = _flip_test(x, draws, rng)
    notes = []
    if q_turned or k_turned:
        notes.append(
            "read as (hidden, heads * head_dim), the Keras and JAX layout, and transposed"
        )
    rejected = [name for name in ("half", "interleaved") if p_value[name] < alpha]
    pairing = None
    if len(rejected) == 1:
        pairing = "interleaved" if rejected == ["half"] else "half"
    elif not rejected:
        notes.append(
            f"neither pairing is rejected at level {alpha:g}: the two coordinates of every"
            " pair look interchangeable under both, as in untrained weights"
            + (" or with a single group of heads" if kv_heads == 1 else "")
        )
    else:
        notes.append(
            f"both pairings are rejected at level {alpha:g}: under neither do the"
            " coordinates of a pair look interchangeable (another layout, or not rotary)"
        )
    return PairingIdentification(
        pairing, head_dim, r, heads, kv_heads, statistic, p_value, alpha, notes
    )
