"""Which rotary scheme and parameters explain a vector of speeds, a cos/sin cache or a config.

Every explanation is a candidate recomputed in full with :func:`posenc.rope.inv_freq`; the
reported error is the largest relative difference over all pairs. Parameters are first
fitted by closed forms: the base from the ratio of the first two speeds (which every scheme
but "longrope" leaves alone or divides by the same ``s``), ``s`` from the slowest pair, and
the band edges from where the ratio to the default ladder leaves 1 and reaches ``1/s``.

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
