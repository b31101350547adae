"""Which rotary scheme and parameters explain a vector of speeds, a cos/sin cache or a config.

Every explanation is a candidate recomputed in full with :func:`posenc.rope.inv_freq`; the
reported error is the largest relative difference over all pairs. Parameters are first
fitted by closed forms: the base from the ratio of the first two speeds (which every scheme
but "longrope" leaves alone or divides by the same ``s``), ``s`` from the slowest pair, and
the band edges from where the ratio to the default ladder leaves 1 and reaches ``1/s``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from posenc import rope

__all__ = ["RopeIdentification", "identify_cache", "identify_config", "identify_inv_freq"]

#: Relative tolerance of "exact": a few float32 ulps, so float32-stored vectors qualify.
FLOAT32_TOLERANCE = 4.0 * 2.0**-23

_LENGTHS = (*tuple(2**k for k in range(8, 21)), 2048 * 3, 4096 * 3, 4000, 32000)
_BETAS = ((32.0, 1.0),)


@dataclass
class RopeIdentification:
    """The scheme that explains some speeds best, its parameters and its error."""

    scheme: str
    rotary_dim: int
    base: float
    params: dict[str, Any] = field(default_factory=dict)
    max_rel_error: float = math.inf
    exact: bool = False
    bands: str = ""
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the result."""
        params = {
            k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.params.items()
        }
        return {
            "scheme": self.scheme,
            "rotary_dim": self.rotary_dim,
            "base": self.base,
            "params": params,
            "max_rel_error": self.max_rel_error,
            "exact": self.exact,
            "bands": self.bands,
            "notes": list(self.notes),
        }


def _speeds(values: Any) -> np.ndarray:
    w = np.asarray(values, dtype=np.float64)
    if w.ndim != 1:
        raise ValueError(f"inverse frequencies must be one vector, got shape {w.shape}")
    if w.size < 2:
        raise ValueError("inverse frequencies need at least two pairs")
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
        result.notes.append(
            f"no scheme recomputes the vector within {tolerance:.1e} (closest: {scheme},"
            f" {err:.2e}); as any vector, it is a longrope vector with per-pair factors"
            " default/speed given in params"
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


def _layout(cos_row: np.ndarray) -> str:
    n = cos_row.size // 2
    if np.allclose(cos_row[:n], cos_row[n:], rtol=0, atol=1e-6):
        return "half"
    if np.allclose(cos_row[0::2], cos_row[1::2], rtol=0, atol=1e-6):
        return "interleaved"
    raise ValueError("the cache is neither in half layout nor interleaved")


def identify_cache(cos: Any, sin: Any, **kwargs: Any) -> tuple[str, RopeIdentification]:
    """Recover the speeds from position 1 of a cos/sin cache (positions x dims), then identify.

    Returns the layout found ("half" or "interleaved") and the identification. Position 1
    gives each speed by ``atan2``, valid for speeds below pi (every real ladder starts at 1).
    """
    c = np.asarray(cos, dtype=np.float64)
    s = np.asarray(sin, dtype=np.float64)
    if c.ndim != 2 or c.shape != s.shape or c.shape[0] < 2 or c.shape[1] % 2:
        raise ValueError(
            "cos and sin must be two arrays of the same shape (positions >= 2, even dims),"
            f" got {c.shape} and {s.shape}"
        )
    if not (np.all(np.isfinite(c)) and np.all(np.isfinite(s))):
        raise ValueError("the cache holds NaN or infinity")
    layout = _layout(c[1])
    n = c.shape[1] // 2
    pick = slice(0, n) if layout == "half" else slice(0, None, 2)
    w = np.arctan2(s[1, pick], c[1, pick])
    kwargs.setdefault("tolerance", 1e-6)
    return layout, identify_inv_freq(w, **kwargs)


def identify_config(config: Any, *, layer_type: str | None = None) -> RopeIdentification:
    """Name the scheme and parameters of a ``config.json`` and say its bands in words."""
    cfg = rope.read_config(config, layer_type=layer_type)
    w, _ = cfg.inv_freq()
    dim = 2 * w.size
    default = rope.default_inv_freq(dim, cfg.base)
    factor = float(cfg.params.get("factor") or 1.0)
    length = cfg.params.get("original_max_position_embeddings") or cfg.params.get(
        "max_position_embeddings"
    )
    alone = identify_inv_freq(w)
    result = RopeIdentification(
        cfg.scheme, dim, cfg.base, dict(cfg.params), alone.max_rel_error, True
    )
    result.bands = _band_words(w, default, factor if cfg.scheme != "default" else 1.0, length)
    result.notes = [
        (
            "no rope_scaling or rope_parameters: the plain ladder"
            if cfg.form == "none"
            else f"read from the {cfg.form} form"
        ),
        *cfg.notes,
        f"its speeds alone are identified as {alone.scheme}"
        + ("" if alone.exact else " (not exactly)")
        + f"; the error shown is that identification's ({alone.max_rel_error:.2g})",
    ]
    return result
