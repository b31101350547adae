"""Proposition 37 (two pairings in one model: the sparse-attention indexer's rotary).

Let r >= 4 be even, h = r/2, and let a rotary part turn pair i by the angle p w_i at
position p, with any speeds w_i. Weights trained with the adjacent pairing (pair i in
coordinates 2i, 2i + 1) give u, v, the parts of a query and a key that the rotary call
will turn. Code that applies the split-half pairing (pair i in coordinates i, i + h) to
them computes, for the query at m and the key at n, with j = n - m,

    s_half(j) = sum_i cos(j w_i) (u_i v_i + u_(i+h) v_(i+h))
                    + sin(j w_i) (u_(i+h) v_i - u_i v_(i+h)),

still a function of the offset only, but not the trained score
s_adj(j) = u^T R_adj(j) v: it turns coordinate i of the trained vector, which belongs to
trained pair floor(i/2), together with coordinate i + h, which belongs to another pair
(since h >= 2), at the speed w_i. It is the trained model fed P^T u and P^T v
(Proposition 23's P). Every trained coordinate c but c = 0 and c = r - 1 turns at another
speed, w_(c mod h) instead of w_(floor(c/2)). The two scores agree at j = 0; at offsets 1
and 2 the largest difference over unit u, v for DeepSeek-V3.2-Exp's speeds is about
gap_one and gap_two, of a possible 2. The mirror case, split-half-trained weights under
adjacent code, is the same with P in place of P^T.

The fix, in an indexer whose index heads rotate their first r of D coordinates, whose key
is N(W_k x) and whose query heads are the slices of W_q x, each through N_q or as they
are, N and N_q each a LayerNorm (weight gamma, bias beta per coordinate) or an RMSNorm
(weight gamma, no bias) over one head, N_q with one weight for all heads, and whose scores
are built from the products q . k: permute the rows of W_q by I_H (x) M, and W_k and each
norm's gamma and beta by M = diag(P, I_(D - r)) (P inside the rotated slice of each index
head, the rest untouched); in the mirror case M = diag(P^T, I_(D - r)). The other code
then computes the trained index scores (exactly in exact arithmetic, up to rounding in
floating point), hence the same top-k keys. Permuting W_k without a norm's weights is not
the fix. Without any fix the selection changes: with keys equal to the query's content
e_h at offsets 1 to toy_keys, the trained model's top toy_top are the nearest keys, the
split-half code's those at offsets wrong_1 and wrong_2. Up to index_topk keys nothing
changes at all: every key is selected.

In the pinned Transformers (transcribed here, not imported), of the indexer_families
families with an indexer only two pair their parts differently: the indexers of
DeepSeek-V3.2 and AXK2 rotate split-half and their MLA parts interleaved; GLM-MoE-DSA
(GLM-5) and four more rotate both interleaved, HY-V4, MiniMax-M3-VL and Qwen4-Exp both
split-half, and GLM-5-Next's indexer does not rotate. posenc records each family's two
pairings; the proof compares them with the transcription and with the calls the
conformance run measured, and runs posenc's cautions on a config of each family.

Uses: 12, 23.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import confusions, families, model_config
from posenc.rotary import pairing_permutation, rotary
from proofs import kit
from proofs.exact import in_order, minus, product
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 37
TITLE = "Two pairings in one model: an indexer read with the other pairing picks other keys"
USES = (12, 23)

# The toy selection of step 6: keys at offsets 1 .. toy_keys, all equal to the query's
# content, and the top toy_top of them; the random indexers of step 5 (queries, keys,
# model width, the top-k kept); the offset of the misreadings' witnesses.
INPUTS = {
    "toy_keys": 8,
    "toy_top": 2,
    "models_queries": 24,
    "models_keys": 96,
    "models_width": 32,
    "models_top": 16,
    "witness_offset": 3,
    "max_width": 512,
}

ROOT = Path(kit.__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "data/configs"
DEEPSEEK = "deepseek-v3.2-exp"
#: The config keys of a sparse-attention indexer (DeepseekV32Config, GlmMoeDsaConfig).
INDEXER_KEYS = ("index_topk", "index_head_dim", "index_n_heads")
#: Transcribed from Transformers 5.24, models/<family>/modeling_<family>.py: the rotary
#: call of the attention's rotary part and of the indexer. DeepseekV32Attention and
#: AXK2Attention call apply_rotary_pos_emb_interleave; DeepseekV32Indexer and AXK2Indexer
#: call apply_rotary_pos_emb ("The indexer uses NON-interleaved (half-split) RoPE").
#: GlmMoeDsaAttention and GlmMoeDsaIndexer both call apply_rotary_pos_emb_interleave;
#: HYV4Attention and HYV4Indexer both apply_rotary_pos_emb (HY-V4's indexer turns the
#: last r coordinates of a head, not the first). No family reads a config key for either
#: choice (DeepseekV32Config deletes rope_interleave). Each of these four indexers passes
#: its key through k_norm, an nn.LayerNorm of width index_head_dim, before the split.
FAMILY_PAIRINGS = {
    "deepseek_v32": {"attention": "interleaved", "indexer": "half"},
    "axk2": {"attention": "interleaved", "indexer": "half"},
    "glm_moe_dsa": {"attention": "interleaved", "indexer": "interleaved"},
    "hy_v4": {"attention": "half", "indexer": "half"},
}
#: Every sparse-attention indexer class of Transformers 5.24 (a ``class ...Indexer(`` in
#: models/<module>/modeling_<module>.py, read by hand; conformance/test_indexers.py finds
#: them in the library and measures each pairing): the module, the pairing of its
#: attention's rotary call (None: GLM-5-Next's DSA attention is NoPE, Glm5NextTextConfig
#: rejects qk_rope_head_dim > 0) and of its indexer's ("none": Glm5NextTextIndexer makes
#: no rotary call). DeepseekV4Indexer, Dots3NoteTextIndexer and MistralLarge4TextIndexer
#: call the interleaved pairing as their attention does; HYV4VLIndexer and HYV4VLAttention
#: both the module's apply_rotary_pos_emb, which is interleaved (repeat_interleave and an
#: interleaved rotate_half); MiniMaxM3VLIndexer and Qwen4ExpTextQSAIndexer both the
#: rotate_half one, as their attention.
INDEXERS = {
    "axk2": ("interleaved", "half"),
    "deepseek_v32": ("interleaved", "half"),
    "deepseek_v4": ("interleaved", "interleaved"),
    "dots3_note": ("interleaved", "interleaved"),
    "glm5_next": (None, "none"),
    "glm_moe_dsa": ("interleaved", "interleaved"),
    "hy_v4": ("half", "half"),
    "hy_v4_vl": ("interleaved", "interleaved"),
    "minimax_m3_vl": ("half", "half"),
    "mistral_large4": ("interleaved", "interleaved"),
    "qwen4_exp": ("half", "half"),
}
RECORD = ROOT / "conformance/record.json"
#: DeepseekV32Config's class defaults (configuration_deepseek_v32.py, 5.24).
V32_DEFAULTS = {"index_topk": 2048, "index_head_dim": 128, "index_n_heads": 64}


# -- symbolic rotary ------------------------------------------------------------------


def pair_places(width: int, pairing: str) -> list[tuple[int, int]]:
    """Where pair i sits: (2i, 2i + 1) adjacent, (i, i + width/2) split-half."""
    half = width // 2
    if pairing == "adjacent":
        return [(2 * i, 2 * i + 1) for i in range(half)]
    return [(i, i + half) for i in range(half)]


def speeds(count: int) -> list[sp.Symbol]:
    """Arbitrary positive speeds w_0 .. w_(count-1)."""
    return list(sp.symbols(f"w0:{count}", positive=True))


def rotation(angle: sp.Expr, width: int, pairing: str, w: list, full: int | None = None):
    """R(angle): pair i of the first ``width`` coordinates turned by angle w_i.

    With ``full`` > width, the other coordinates pass through (a rotated slice, as in an
    index head).
    """
    size = full or width
    matrix = sp.eye(size)
    for i, (a, b) in enumerate(pair_places(width, pairing)):
        c, s = sp.cos(angle * w[i]), sp.sin(angle * w[i])
        matrix[a, a], matrix[a, b], matrix[b, a], matrix[b, b] = c, -s, s, c
    return matrix


def vector(name: str, size: int) -> sp.Matrix:
    return sp.Matrix(sp.symbols(f"{name}_0:{size}", real=True))


def dot(a: sp.Matrix, b: sp.Matrix) -> sp.Expr:
    return (a.T * b)[0, 0]


def closed_form(u: sp.Matrix, v: sp.Matrix, j: sp.Expr, w: list) -> sp.Expr:
    """The split-half code's score of adjacent-trained u, v at offset j, term by term."""
    h = u.rows // 2
    return sp.Add(
        *(
            sp.cos(j * w[i]) * (u[i] * v[i] + u[i + h] * v[i + h])
            + sp.sin(j * w[i]) * (u[i + h] * v[i] - u[i] * v[i + h])
            for i in range(h)
        )
    )


def slice_move(rotated: int, full: int) -> sp.Matrix:
    """diag(P, I): P (P e_c = e_(p_c), p = pairing_permutation) on the rotated slice only."""
    matrix = sp.zeros(full, full)
    p = pairing_permutation(rotated).tolist()
    for c in range(full):
        matrix[p[c] if c < rotated else c, c] = 1
    return matrix


def layer_norm(x: sp.Matrix, gamma: sp.Matrix, beta: sp.Matrix, eps: sp.Symbol) -> sp.Matrix:
    """nn.LayerNorm: gamma_c (x_c - mean) / sqrt(var + eps) + beta_c, sums kept in order."""
    size = x.rows
    mean = in_order(list(x)) / size
    var = in_order([(x[c] - mean) ** 2 for c in range(size)]) / size
    return sp.Matrix(
        [gamma[c] * (x[c] - mean) / sp.sqrt(var + eps) + beta[c] for c in range(size)]
    )


def rms_norm(x: sp.Matrix, gamma: sp.Matrix, eps: sp.Symbol) -> sp.Matrix:
    """RMSNorm (MiniMax-M3-VL's, Qwen4-Exp's): gamma_c x_c / sqrt(mean(x^2) + eps)."""
    size = x.rows
    mean_square = in_order([x[c] ** 2 for c in range(size)]) / size
    return sp.Matrix([gamma[c] * x[c] / sp.sqrt(mean_square + eps) for c in range(size)])


# -- Transformers 5.24, transcribed (numpy) -------------------------------------------
# DeepseekV32RotaryEmbedding.forward, with attention_scaling 1 (DeepSeek's YaRN has
# mscale = mscale_all_dim); rotate_half and apply_rotary_pos_emb; and
# apply_rotary_pos_emb_interleave, as in models/deepseek_v32/modeling_deepseek_v32.py.


def hf_cos_sin(positions: np.ndarray, inv_freq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    freqs = positions[:, None] * inv_freq[None, :]  # (T, r/2)
    emb = np.concatenate([freqs, freqs], axis=-1)  # (T, r)
    return np.cos(emb), np.sin(emb)


def hf_rotate_half(x: np.ndarray) -> np.ndarray:
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def hf_apply_half(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    return x * cos + hf_rotate_half(x) * sin


def hf_apply_interleave(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    cos = cos[..., : cos.shape[-1] // 2]  # the first half holds each pair's angle
    sin = sin[..., : sin.shape[-1] // 2]
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


def hf_layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """nn.LayerNorm(D, eps=1e-6) over the last axis, with weight gamma and bias beta (D,)."""
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + 1e-6) * gamma + beta


def hf_rms_norm(x: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """MiniMaxM3VLRMSNorm over the last axis, weight gamma (D,), eps 1e-6."""
    return x / np.sqrt((x**2).mean(axis=-1, keepdims=True) + 1e-6) * gamma


def hf_index_scores(
    q, k, weights, rope_width, q_pos, k_pos, inv_freq, apply, norm=None, q_norm=None
):
    """DeepseekV32Indexer.forward from its projections on: q (S, H, D), k (T, D), weights (S, H).

    With ``norm = (gamma, beta)``, k is wk(x) and passes k_norm first (a LayerNorm; with
    beta None, an RMSNorm, as MiniMax-M3-VL's); without, k is taken after k_norm. With
    ``q_norm = gamma_q`` each query head passes an RMSNorm of weight gamma_q first, one
    weight for all heads (MiniMaxM3VLIndexer's q_norm). The first rope_width coordinates
    of each head turn, the rest pass; scores relu(q . k) / sqrt(D), weighted by
    weights / sqrt(H) and summed over heads: (S, T), before the causal mask (every key
    here is before every query).
    """
    if norm is not None:
        gamma, beta = norm
        k = hf_rms_norm(k, gamma) if beta is None else hf_layer_norm(k, gamma, beta)  # (T, D)
    if q_norm is not None:
        q = hf_rms_norm(q, q_norm)  # (S, H, D)
    heads, width = q.shape[1], q.shape[2]
    cos_q, sin_q = hf_cos_sin(q_pos, inv_freq)  # (S, r)
    cos_k, sin_k = hf_cos_sin(k_pos, inv_freq)  # (T, r)
    q_rot = apply(q[..., :rope_width], cos_q[:, None, :], sin_q[:, None, :])  # (S, H, r)
    k_rot = apply(k[..., :rope_width], cos_k, sin_k)  # (T, r)
    q = np.concatenate([q_rot, q[..., rope_width:]], axis=-1)  # (S, H, D)
    k = np.concatenate([k_rot, k[..., rope_width:]], axis=-1)  # (T, D)
    scores = np.maximum(np.einsum("shd,td->sht", q, k) * width**-0.5, 0.0)  # (S, H, T)
    return np.einsum("sh,sht->st", weights * heads**-0.5, scores)  # (S, T)


def random_indexer(seed: int = 37) -> dict:
    """Random indexer weights in DeepSeek-V3.2-Exp's shapes (step 5 and a misreading).

    W_q (H, D, d_model), W_k (D, d_model), k_norm's gamma = 1 + N(0, 1/4) and
    beta = N(0, 0.09) per coordinate, the tokens of S queries and T keys, the per-head
    weights (S, H), and the positions: every query after every key.
    """
    part = raw_part(DEEPSEEK)
    rng = np.random.default_rng(seed)
    heads, full = part["index_n_heads"], part["index_head_dim"]
    count, keys, model = INPUTS["models_queries"], INPUTS["models_keys"], INPUTS["models_width"]
    return {
        "wq": rng.normal(size=(heads, full, model)),  # (H, D, d_model)
        "wk": rng.normal(size=(full, model)),  # (D, d_model)
        "gamma": 1.0 + 0.5 * rng.normal(size=full),  # (D,)
        "beta": 0.3 * rng.normal(size=full),  # (D,)
        "gamma_q": 1.0 + 0.5 * rng.normal(size=full),  # (D,) an RMSNorm's, on each q head
        "xs": rng.normal(size=(count, model)),  # (S, d_model)
        "ys": rng.normal(size=(keys, model)),  # (T, d_model)
        "weights": rng.normal(size=(count, heads)),  # (S, H)
        "k_pos": np.arange(keys, dtype=np.float64),  # (T,)
        "q_pos": keys + 1000.0 * np.arange(count, dtype=np.float64),  # (S,)
        "rng": rng,
    }


def indexer_scores(
    net: dict, rows: np.ndarray, apply, *, norm_rows=None, rms=False, q_rows=None
) -> np.ndarray:
    """The transcribed indexer's scores with the rows of W_q (each head) and W_k taken in
    the order ``rows``, and k_norm's gamma and beta in the order ``norm_rows``.

    With ``rms``, MiniMax-M3-VL's norms instead: an RMSNorm on the key (gamma, no beta)
    and one on each query head (gamma_q, in the order ``q_rows``, else ``norm_rows``).
    """
    norm_rows = rows if norm_rows is None else norm_rows
    part = raw_part(DEEPSEEK)
    q = np.einsum("hdm,sm->shd", net["wq"][:, rows, :], net["xs"])  # (S, H, D)
    k = net["ys"] @ net["wk"][rows].T  # (T, D), before k_norm
    norm = (net["gamma"][norm_rows], None if rms else net["beta"][norm_rows])
    q_norm = net["gamma_q"][norm_rows if q_rows is None else q_rows] if rms else None
    return hf_index_scores(
        q, k, net["weights"], part["qk_rope_head_dim"], net["q_pos"], net["k_pos"],
        deepseek_speeds(), apply, norm, q_norm,
    )  # fmt: skip


def top(scores: np.ndarray, count: int) -> list[frozenset[int]]:
    """index_scores.topk(min(count, T)): the chosen keys of each query, as sets."""
    kept = min(count, scores.shape[-1])
    return [frozenset(np.argsort(-row, kind="stable")[:kept].tolist()) for row in scores]


# -- the configs ------------------------------------------------------------------------


def raw_part(stem: str) -> dict:
    raw = json.loads((CONFIG_DIR / f"{stem}.json").read_text())
    return raw.get("text_config", raw)


def deepseek_speeds() -> np.ndarray:
    """The rotary speeds of DeepSeek-V3.2-Exp as posenc reads them (YaRN, factor 40)."""
    return model_config.read_model(CONFIG_DIR / f"{DEEPSEEK}.json").kinds[0].inv_freq


def score_50(coordinate: int, offset: int, speed: float) -> mpmath.mpf:
    """e_c^T R(offset) e_c = cos(offset * speed) at 50 digits (the speed as a float64)."""
    with mpmath.workdps(50):
        return mpmath.cos(offset * mpmath.mpf(speed))


def difference_norm(w: np.ndarray, offset: int, digits: int | None = None):
    """|| R_adj(offset) - R_half(offset) ||_2 for speeds w: float64, or mpmath at ``digits``."""
    h = w.size
    if digits is None:
        a = np.zeros((2 * h, 2 * h))  # (r, r)
        for i in range(h):
            c, s = np.cos(offset * w[i]), np.sin(offset * w[i])
            for (x, y), sign in (((2 * i, 2 * i + 1), 1), ((i, i + h), -1)):
                a[x, x] += sign * c
                a[x, y] -= sign * s
                a[y, x] += sign * s
                a[y, y] += sign * c
        return float(np.linalg.norm(a, 2))
    with mpmath.workdps(digits):
        a = mpmath.zeros(2 * h, 2 * h)
        for i in range(h):
            angle = offset * mpmath.mpf(float(w[i]))
            c, s = mpmath.cos(angle), mpmath.sin(angle)
            for (x, y), sign in (((2 * i, 2 * i + 1), 1), ((i, i + h), -1)):
                a[x, x] += sign * c
                a[x, y] -= sign * s
                a[y, x] += sign * s
                a[y, y] += sign * c
        return max(mpmath.svd_r(a, compute_uv=False))


def checks(rec: Recorder) -> None:
    m, n, j = sp.symbols("m n j", real=True)

    # Step 1. What the split-half code computes. For adjacent-trained u, v it turns
    # coordinates i and i + h together at w_i: the score at (m, n) is the closed form at
    # j = n - m, a function of the offset only (both rotations are rotary ones).
    rec.instances(
        "<R_half(m) u, R_half(n) v> = the closed form at j = n - m",
        (
            (
                f"r = {r}",
                dot(rotation(m, r, "half", speeds(r // 2)) * vector("u", r),
                    rotation(n, r, "half", speeds(r // 2)) * vector("v", r))
                # cos((n - m) w) and sin((n - m) w) written by the angle-difference
                # formulas, so that expanding the difference is enough to cancel it.
                - sp.expand_trig(
                    sp.expand(closed_form(vector("u", r), vector("v", r), n - m, speeds(r // 2)))
                ),
            )
            for r in (2, 4, 6, 8)
        ),
        scope="r = 2, 4, 6, 8; symbolic u, v, m, n and arbitrary positive speeds w_i",
    )  # fmt: skip
    # Step 2. It is the trained (adjacent) model fed P^T u, P^T v, whose coordinate c is
    # u_(p_c) (p = posenc's pairing_permutation): trained pair i receives u_i and u_(i+h).
    # The mirror case (split-half-trained weights under adjacent code) is u -> P u.
    cases = []
    for r in (4, 6, 8):
        p = pairing_permutation(r).tolist()
        q = np.argsort(pairing_permutation(r)).tolist()
        u, v, w = vector("u", r), vector("v", r), speeds(r // 2)
        back_u = sp.Matrix([u[p[c]] for c in range(r)])  # P^T u
        back_v = sp.Matrix([v[p[c]] for c in range(r)])
        cases.append(
            (
                f"r = {r}, adjacent-trained under split-half code",
                dot(u, product(rotation(j, r, "half", w), v))
                - dot(back_u, product(rotation(j, r, "adjacent", w), back_v)),
            )
        )
        moved_u = sp.Matrix([u[q[c]] for c in range(r)])  # P u
        moved_v = sp.Matrix([v[q[c]] for c in range(r)])
        cases.append((
            f"r = {r}, split-half-trained under adjacent code",
            dot(u, product(rotation(j, r, "adjacent", w), v))
            - dot(moved_u, product(rotation(j, r, "half", w), moved_v)),
        ))  # fmt: skip
    rec.instances(
        "u^T R_half(j) v = (P^T u)^T R_adj(j) (P^T v), "
        "and u^T R_adj(j) v = (P u)^T R_half(j) (P v)",
        cases,
        scope="r = 4, 6, 8, both directions; symbolic u, v, j and speeds; P from posenc",
    )

    # Step 3. Each coordinate's speed. e_c^T R(j) e_c = cos(j w) with w the speed of the
    # pair c sits in: w_(floor(c/2)) adjacent, w_(c mod h) split-half.
    r = 8
    w = speeds(r // 2)
    rec.instances(
        "e_c^T R_adj(j) e_c = cos(j w_(floor(c/2))) and e_c^T R_half(j) e_c = cos(j w_(c mod h))",
        (
            (
                f"c = {c}, {pairing}",
                minus(
                    sp.Matrix([rotation(j, r, pairing, w)[c, c]]),
                    sp.Matrix([sp.cos(j * w[c // 2 if pairing == "adjacent" else c % (r // 2)])]),
                ),
            )
            for c in range(r)
            for pairing in ("adjacent", "half")
        ),
        scope="r = 8, every coordinate c, both pairings; symbolic j and speeds",
    )
    # floor(c/2) = c mod h only for c = 0 and c = r - 1: every even r up to 512.
    fixed = {
        r: [c for c in range(r) if c // 2 == c % (r // 2)]
        for r in range(4, INPUTS["max_width"] + 1, 2)
    }
    rec.exact(
        "even r from 4 to 512 where the coordinates c with floor(c/2) = c mod h "
        "are not {0, r - 1}",
        sum(found != [0, r - 1] for r, found in fixed.items()),
        0,
        scope=f"{len(fixed)} widths, every coordinate",
    )
    rec.exact(
        "widths compared",
        len(fixed),
        (INPUTS["max_width"] - 4) // 2 + 1,
        scope="r = 4, 6, ..., max_width: (max_width - 4) / 2 + 1",
    )
    part = raw_part(DEEPSEEK)
    ds = deepseek_speeds()
    width = part["qk_rope_head_dim"]
    rec.exact(
        "DeepSeek-V3.2-Exp: posenc's rotary speeds number qk_rope_head_dim / 2 of the file",
        2 * ds.size,
        width,
        scope="posenc.model_config.read_model against the raw JSON",
        quantity="ds_rope_width",
        show=Show(),
    )
    exact = [Fraction(float(x)) for x in ds]
    rec.exact(
        "DeepSeek-V3.2-Exp: its speeds strictly decrease: the list is its distinct values "
        "from the largest down (1 = it is not)",
        int(exact != sorted(set(exact), reverse=True)),
        0,
        scope=f"the {ds.size} float64 speeds as exact rationals",
    )
    rec.exact(
        "DeepSeek-V3.2-Exp: its first speed is 1",
        exact[0],
        1,
        scope="posenc's float64 speed as an exact rational",
    )
    half = ds.size
    moved = {c for c in range(width) if exact[c // 2] != exact[c % half]}
    rec.exact(
        "DeepSeek-V3.2-Exp: coordinates the split-half code turns at another speed than trained",
        len(moved),
        width - 2,
        scope="every coordinate c of the rotated slice: w_(floor(c/2)) against w_(c mod h)",
        quantity="ds_moved",
        show=Show(),
    )
    rec.exact(
        "DeepSeek-V3.2-Exp: the coordinates that keep their speed are 0 and r - 1 "
        "(coordinates that differ from that list)",
        len(set(range(width)).difference(moved) ^ {0, width - 1}),
        0,
        scope="every coordinate c of the rotated slice",
    )

    # Step 4. How much. The largest |s_adj(j) - s_half(j)| over unit u, v is the largest
    # singular value of R_adj(j) - R_half(j): 0 at j = 0, at most 2; for DeepSeek's speeds
    # float64 (numpy) against mpmath at 30 digits, at offsets 1 and 2.
    rec.close(
        "DeepSeek-V3.2-Exp: largest |s_adj - s_half| over unit u, v at offset 1",
        difference_norm(ds, 1),
        difference_norm(ds, 1, digits=30),
        tol=1e-12,
        scope="||R_adj - R_half||_2 of posenc's speeds: numpy's 2-norm against mpmath's "
        "singular values at 30 digits",
        quantity="gap_one",
        show=Show(sig=3),
    )
    rec.close(
        "DeepSeek-V3.2-Exp: largest |s_adj - s_half| over unit u, v at offset 2",
        difference_norm(ds, 2),
        difference_norm(ds, 2, digits=30),
        tol=1e-12,
        scope="the same at offset 2",
        quantity="gap_two",
        show=Show(sig=3),
    )
    rec.exact(
        "at offset 0 the two rotations are both I: the difference is 0",
        int(difference_norm(ds, 0) == 0),
        1,
        scope="DeepSeek-V3.2-Exp's speeds, float64",
    )

    # Step 5. The fix. Rows of W_q permuted by I_H (x) M and of W_k by M, M = diag(P, I_(D-r))
    # for adjacent-trained weights under split-half code, M = diag(P^T, I_(D-r)) for the
    # mirror case: per head, the other code's dot product is the trained one.
    cases = []
    for heads, full, rot in ((2, 6, 4), (1, 8, 4), (1, 6, 6)):
        wq = sp.Matrix(heads * full, 2, lambda a, b: sp.Symbol(f"Q_{a}_{b}", real=True))
        wk = sp.Matrix(full, 2, lambda a, b: sp.Symbol(f"K_{a}_{b}", real=True))
        x, y, w = vector("x", 2), vector("y", 2), speeds(rot // 2)
        for trained_as, code, move in (
            ("adjacent", "half", slice_move(rot, full)),
            ("half", "adjacent", slice_move(rot, full).T),
        ):
            # The permuted weights and every product written out unevaluated
            # (proofs.exact): SymPy would otherwise multiply out the 0s and 1s of the
            # permutation on sight.
            fixed_q = product(sp.diag(*([move] * heads)), wq)
            key_trained = product(rotation(n, rot, trained_as, w, full), product(wk, y))
            key_code = product(rotation(n, rot, code, w, full), product(product(move, wk), y))
            for t in range(heads):
                rows = slice(t * full, (t + 1) * full)
                q_trained = product(rotation(m, rot, trained_as, w, full), product(wq[rows, :], x))
                q_code = product(rotation(m, rot, code, w, full), product(fixed_q[rows, :], x))
                cases.append((
                    f"H = {heads}, D = {full}, r = {rot}, head {t}, {trained_as}-trained",
                    minus(product(q_code.T, key_code), product(q_trained.T, key_trained)),
                ))  # fmt: skip
    rec.instances(
        "the other code on permuted W_q, W_k: each head's q . k is the trained one "
        "(M = diag(P, I) for adjacent-trained weights, diag(P^T, I) for split-half-trained)",
        cases,
        scope="(H, D, r) in {(2, 6, 4), (1, 8, 4), (1, 6, 6)}, both directions, d_model = 2; "
        "symbolic weights, tokens, m, n and speeds",
    )
    # The direction matters: P = P^T only for r = 4 (and 2); from r = 6 on, the mirror
    # case needs the inverse permutation.
    involutions = [
        r for r in fixed if (pairing_permutation(r)[pairing_permutation(r)] == np.arange(r)).all()
    ]
    rec.exact(
        "even r from 4 to max_width where P = P^T (P P = I), other than r = 4",
        len(set(involutions) ^ {4}),
        0,
        scope="every even r up to max_width, posenc's pairing_permutation",
    )
    # The key passes k_norm (LayerNorm, weight gamma, bias beta) before the split. Its mean
    # and variance do not see a permutation of the coordinates, its gamma and beta do:
    # LN(M z; M gamma, M beta) = M LN(z; gamma, beta), so with M W_k, M gamma, M beta the
    # key that reaches the split is M times the trained one, as the check above assumes.
    eps = sp.Symbol("epsilon", positive=True)
    cases = []
    for full, rot in ((4, 4), (6, 4), (6, 6)):
        z, gamma, beta = vector("z", full), vector("g", full), vector("b", full)
        for label, move in (("P", slice_move(rot, full)), ("P^T", slice_move(rot, full).T)):
            cases.append((
                f"D = {full}, r = {rot}, M = diag({label}, I)",
                minus(
                    layer_norm(move * z, move * gamma, move * beta, eps),
                    product(move, layer_norm(z, gamma, beta, eps)),
                ),
            ))  # fmt: skip
    rec.instances(
        "k_norm with permuted gamma and beta: LN(M z; M gamma, M beta) = M LN(z; gamma, beta)",
        cases,
        scope="D = 4, 6 with r = 4, 6, both directions; symbolic z, gamma, beta and epsilon; "
        "the sums of the mean and the variance in coordinate order",
    )
    # The same for an RMSNorm (weight gamma, no bias): MiniMax-M3-VL's and Qwen4-Exp's
    # k_norm and q_norm. Its mean square does not see a permutation either.
    cases = []
    for full, rot in ((4, 4), (6, 4), (6, 6)):
        z, gamma = vector("z", full), vector("g", full)
        for label, move in (("P", slice_move(rot, full)), ("P^T", slice_move(rot, full).T)):
            cases.append((
                f"D = {full}, r = {rot}, M = diag({label}, I)",
                minus(rms_norm(move * z, move * gamma, eps),
                      product(move, rms_norm(z, gamma, eps))),
            ))  # fmt: skip
    rec.instances(
        "an RMSNorm with permuted gamma: RMS(M z; M gamma) = M RMS(z; gamma)",
        cases,
        scope="D = 4, 6 with r = 4, 6, both directions; symbolic z, gamma and epsilon; the "
        "sum of the mean square in coordinate order",
    )
    # The two norms themselves, symbolic and transcribed, against values worked by hand:
    # z = (1, 2, 3, 6) has mean 3, deviations (-2, -1, 0, 3), variance 14/4 = 7/2 and
    # mean square 50/4 = 25/2; z' = (0, 4, -2, 2) has mean 1, deviations (-1, 3, -3, 1),
    # variance 20/4 = 5 and mean square 24/4 = 6. LN(z)_c = gamma_c (z_c - mean) /
    # sqrt(variance + eps) + beta_c, RMS(z)_c = gamma_c z_c / sqrt(mean square + eps).
    points = (
        ((1, 2, 3, 6), (-2, -1, 0, 3), sp.Rational(7, 2), sp.Rational(25, 2)),
        ((0, 4, -2, 2), (-1, 3, -3, 1), sp.Integer(5), sp.Integer(6)),
    )
    gamma, beta = vector("g", 4), vector("b", 4)
    cases = []
    for z, deviations, variance, mean_square in points:
        cases.append((
            f"LayerNorm at z = {z}",
            minus(layer_norm(sp.Matrix(z), gamma, beta, eps),
                  sp.Matrix([gamma[c] * deviations[c] / sp.sqrt(variance + eps) + beta[c]
                             for c in range(4)])),
        ))  # fmt: skip
        cases.append((
            f"RMSNorm at z = {z}",
            minus(rms_norm(sp.Matrix(z), gamma, eps),
                  sp.Matrix([gamma[c] * z[c] / sp.sqrt(mean_square + eps) for c in range(4)])),
        ))  # fmt: skip
    rec.instances(
        "the symbolic LayerNorm and RMSNorm at two points against their values by hand",
        cases,
        scope="z = (1, 2, 3, 6) and (0, 4, -2, 2); symbolic gamma, beta and epsilon",
    )
    # The transcribed nn.LayerNorm and RMSNorm (eps = 1e-6, over the last axis) on the
    # same two rows as one (1, 2, 4) array, against the values by hand at 50 digits.
    rows = np.array([[point[0] for point in points]], dtype=np.float64)  # (1, 2, 4)
    g_4, b_4 = np.array([1.0, 2.0, 0.5, 3.0]), np.array([0.5, 1.0, 2.0, 0.0])  # (4,)
    eps_6 = sp.Float(1e-6, 50)  # the float64 1e-6, exactly
    by_hand = [
        sp.Rational(g_4[c]) * deviations[c] / sp.sqrt(variance + eps_6) + sp.Rational(b_4[c])
        for _, deviations, variance, _ in points
        for c in range(4)
    ] + [
        sp.Rational(g_4[c]) * z[c] / sp.sqrt(mean_square + eps_6)
        for z, _, _, mean_square in points
        for c in range(4)
    ]
    rec.close(
        "the transcribed LayerNorm and RMSNorm at the same two points against the values by hand",
        [*hf_layer_norm(rows, g_4, b_4).ravel(), *hf_rms_norm(rows, g_4).ravel()],
        by_hand,
        tol=1e-12,
        scope="a (1, 2, 4) array of the two rows, gamma = (1, 2, 0.5, 3), beta = "
        "(0.5, 1, 2, 0), eps = 1e-6; 16 values at 50 digits",
    )
    # The same through the transcribed Transformers indexer in float64, DeepSeek-V3.2's
    # shapes and speeds, k_norm with random gamma and beta: GLM-style code (interleaved) on
    # W against the split-half code on the permuted W, gamma, beta, and on W unpermuted;
    # then the mirror, DeepSeek-style split-half-trained weights under interleaved code.
    net = random_indexer()
    heads, full = part["index_n_heads"], part["index_head_dim"]
    count, keys = INPUTS["models_queries"], INPUTS["models_keys"]
    kept = INPUTS["models_top"]
    rng = net["rng"]
    same_rows = np.arange(full)  # (D,)
    # The random indexer as its docstring and the witnesses state it: every query after
    # every key (so the causal mask, left out, would mask nothing), and gamma of law
    # 1 + N(0, 1/4), beta of law N(0, 0.09): each sample's mean and standard deviation
    # within four standard errors of the law's (sigma / sqrt(n) and sigma / sqrt(2 (n - 1))).
    rec.exact(
        "random indexer: pairs of a query and a key at or after it",
        int((net["k_pos"][None, :] >= net["q_pos"][:, None]).sum()),
        0,
        scope=f"{count} queries x {keys} keys, their positions",
    )
    laws = (
        f"{full} draws; gamma = 1 + N(0, 1/4), beta = N(0, 0.09): standard errors 0.044 "
        "and 0.031 (gamma's mean and deviation), 0.027 and 0.019 (beta's)"
    )
    rec.band(
        "random indexer: the mean of gamma's draws within four standard errors of its law's",
        float(net["gamma"].mean()),
        low=0.823,
        high=1.177,
        samples=full,
        scope=laws,
    )
    rec.band(
        "random indexer: the standard deviation of gamma's draws within four standard "
        "errors of its law's",
        float(net["gamma"].std(ddof=1)),
        low=0.375,
        high=0.625,
        samples=full,
        scope=laws,
    )
    rec.band(
        "random indexer: the mean of beta's draws within four standard errors of its law's",
        float(net["beta"].mean()),
        low=-0.106,
        high=0.106,
        samples=full,
        scope=laws,
    )
    rec.band(
        "random indexer: the standard deviation of beta's draws within four standard "
        "errors of its law's",
        float(net["beta"].std(ddof=1)),
        low=0.225,
        high=0.375,
        samples=full,
        scope=laws,
    )
    # indexer_scores passes k_norm as a LayerNorm (gamma, beta) and no query norm, or
    # with rms an RMSNorm (gamma) on the key and gamma_q's on the query heads: against
    # the transcribed indexer called on the projections directly.
    q_direct = np.einsum("hdm,sm->shd", net["wq"], net["xs"])  # (S, H, D)
    k_direct = net["ys"] @ net["wk"].T  # (T, D)
    args = (net["weights"], width, net["q_pos"], net["k_pos"], deepseek_speeds(), hf_apply_half)
    rec.numeric(
        "indexer_scores with k_norm a LayerNorm, then with RMSNorms on the key and the "
        "query heads, against the transcribed indexer on the projections",
        np.concatenate([
            (indexer_scores(net, same_rows, hf_apply_half)
             - hf_index_scores(q_direct, k_direct, *args, (net["gamma"], net["beta"]))).ravel(),
            (indexer_scores(net, same_rows, hf_apply_half, rms=True)
             - hf_index_scores(q_direct, k_direct, *args, (net["gamma"], None),
                               net["gamma_q"])).ravel(),
        ]),
        tol=1e-12,
        scope=f"the random indexer, {count} x {keys} scores each, split-half code; each "
        "|difference|",
    )  # fmt: skip
    order = np.concatenate([np.argsort(pairing_permutation(width)), np.arange(width, full)])
    mirror = np.concatenate([pairing_permutation(width), np.arange(width, full)])  # P^T
    trained = indexer_scores(net, same_rows, hf_apply_interleave)
    fixed_scores = indexer_scores(net, order, hf_apply_half)
    unfixed = indexer_scores(net, same_rows, hf_apply_half)
    rec.numeric(
        "transcribed indexer: split-half code on permuted W_q, W_k, gamma, beta gives the "
        "trained index scores",
        (fixed_scores - trained).ravel() / np.abs(trained).max(),
        tol=1e-13,
        scope=f"H = {heads}, D = {full}, r = {width} (DeepSeek-V3.2-Exp), "
        f"d_model = {INPUTS['models_width']}, {count} queries x {keys} keys, random weights, "
        "gamma and beta; each |difference| / largest |score|",
    )
    same = sum(a != b for a, b in zip(top(fixed_scores, kept), top(trained, kept), strict=True))
    rec.exact(
        f"... and the same top-{kept} keys for every query (queries whose choice differs)",
        same,
        0,
        scope=f"{count} queries, top {kept} of {keys} keys",
    )
    half_trained = indexer_scores(net, same_rows, hf_apply_half)
    mirror_scores = indexer_scores(net, mirror, hf_apply_interleave)
    rec.numeric(
        "mirror: interleaved code on W_q, W_k, gamma, beta permuted by diag(P^T, I) gives "
        "the split-half-trained index scores",
        (mirror_scores - half_trained).ravel() / np.abs(half_trained).max(),
        tol=1e-13,
        scope="the same weights read as split-half-trained (DeepSeek-V3.2's indexer); "
        "each |difference| / largest |score|",
    )
    rec.exact(
        f"... and the same top-{kept} keys (queries whose choice differs)",
        sum(a != b for a, b in zip(top(mirror_scores, kept), top(half_trained, kept),
                                   strict=True)),
        0,
        scope=f"{count} queries, top {kept} of {keys} keys",
    )  # fmt: skip
    # MiniMax-M3-VL's indexer: an RMSNorm on the key and one on each query head, one
    # weight gamma_q for all heads. The fix permutes gamma_q by M too; left in place, it is
    # the trained indexer with gamma_q's entries put back in the order M^-1, and that
    # chooses other keys.
    rms_trained = indexer_scores(net, same_rows, hf_apply_interleave, rms=True)
    rms_fixed = indexer_scores(net, order, hf_apply_half, rms=True)
    rms_q_kept = indexer_scores(net, order, hf_apply_half, rms=True, q_rows=same_rows)
    rms_scale = np.abs(rms_trained).max()
    rec.numeric(
        "transcribed indexer with RMSNorms on the key and on each query head: split-half "
        "code on W_q, W_k and both weights permuted gives the trained index scores",
        (rms_fixed - rms_trained).ravel() / rms_scale,
        tol=1e-13,
        scope="the same shapes and weights, k_norm and q_norm RMSNorms with random "
        "gamma, gamma_q (MiniMax-M3-VL's form); each |difference| / largest |score|",
    )
    misplaced = indexer_scores(
        net, same_rows, hf_apply_interleave, rms=True, q_rows=np.argsort(order)
    )
    rec.numeric(
        "... with gamma_q left in place, they are the trained indexer's with gamma_q "
        "misplaced (entry c at trained coordinate order[c])",
        (rms_q_kept - misplaced).ravel(),
        tol=1e-12,
        scope="the same queries and keys; each |difference|",
    )
    q_moved = top(rms_q_kept, kept)
    rec.exact(
        f"... and that chooses other top-{kept} keys (queries whose choice differs)",
        sum(int(q_moved[s] != chosen) for s, chosen in enumerate(top(rms_trained, kept))),
        count // 2,
        relation=">",
        scope=f"the same {count} queries; the query's norm weight must move with W_q",
    )
    changed = sum(a != b for a, b in zip(top(unfixed, kept), top(trained, kept), strict=True))
    rec.exact(
        f"without the permutation the split-half code chooses other top-{kept} keys "
        "(queries whose choice differs)",
        changed,
        count // 2,
        relation=">",
        scope=f"the same {count} queries",
        quantity="unfixed_changed",
        show=Show(),
    )
    rec.exact("queries of the random indexer", len(top(trained, kept)), count, scope="S")
    # top() against its definition: no key left out scores above a chosen one.
    violations = sum(
        int(row[sorted(chosen)].min() < np.delete(row, sorted(chosen)).max())
        for row, chosen in zip(trained, top(trained, kept), strict=True)
    )
    rec.exact(
        "top() keeps the largest scores (queries where a key left out beats a chosen one)",
        violations,
        0,
        scope=f"the {count} queries of the trained indexer, top {kept} of {keys}",
    )
    # The transcriptions are rotary: at a base ladder, apply_rotary_pos_emb is posenc's
    # split-half rotary, and apply_rotary_pos_emb_interleave is posenc's adjacent rotary
    # with its output relabelled by P (evens, then odds).
    base = 10000.0
    ladder = base ** (-np.arange(0, width, 2) / width)  # (r/2,) Transformers' default
    rows = rng.normal(size=(7, width))  # (7, r)
    where = np.array([0.0, 1.0, 5.0, 77.0, 1023.0, 4097.0, 65535.0])  # (7,)
    cos, sin = hf_cos_sin(where, ladder)
    q_idx = np.argsort(pairing_permutation(width))  # (r,): (P y) = y[q_idx]
    errors = np.concatenate([
        (hf_apply_half(rows, cos, sin) - rotary(rows, where, pairing="half", base=base)).ravel(),
        (hf_apply_interleave(rows, cos, sin)
         - rotary(rows, where, pairing="interleaved", base=base)[:, q_idx]).ravel(),
    ])  # fmt: skip
    # Transformers rounds each angle p w once in float64, so an output may be off by about
    # |x| p 2^-52: below 1e-10 here (|x| < 10, p <= 65535); the tolerance is a tenth of it.
    rec.numeric(
        "transcribed apply_rotary_pos_emb = posenc's split-half rotary; "
        "apply_rotary_pos_emb_interleave = P (posenc's interleaved rotary)",
        errors,
        tol=1e-11,
        scope=f"r = {width}, base 10^4, 7 rows (|x| < 10) at positions up to 65535; "
        "each |difference|",
    )
    rec.band(
        "... the rows compared have |x| below 10",
        float(np.linalg.norm(rows, axis=1).max()),
        low=1,
        high=10,
        samples=7,
        scope="the 7 random rows",
    )
    # The transcribed index score against step 5's formula, sum over heads h of
    # w_h / sqrt(H) relu(q_h . k) / sqrt(D), worked in exact arithmetic: H = 3 heads of
    # width D = 4 (r = 4), one query and two keys all at position 7, so that each code
    # turns q and k alike and keeps their dot products. By hand: q_h . k is (2, 5, 2) for
    # the first key and (-1, 0, 3) for the second, so with weights (1, -2, 1/2) the scores
    # are (2 - 10 + 1) / (sqrt(3) 2) = -7 / (2 sqrt(3)) and (0 + 0 + 3/2) / (sqrt(3) 2)
    # = 3 / (4 sqrt(3)): relu drops the -1.
    q_small = [(1, 2, 0, -1), (0, 1, 3, 1), (2, -1, 1, 0)]  # (H, D)
    k_small = [(1, 1, 1, 1), (2, 0, -1, 3)]  # (T, D)
    w_small = (1, -2, 0.5)  # (H,)
    formula = [sp.Rational(-7, 2) / sp.sqrt(3), sp.Rational(3, 4) / sp.sqrt(3)]
    computed = [
        hf_index_scores(
            np.array([q_small], dtype=np.float64), np.array(k_small, dtype=np.float64),
            np.array([w_small], dtype=np.float64), 4, np.array([7.0]), np.array([7.0, 7.0]),
            np.array([1.0, 0.01]), apply,
        )[0]
        for apply in (hf_apply_half, hf_apply_interleave)
    ]  # fmt: skip
    rec.close(
        "the transcribed index scores = sum_h w_h / sqrt(H) relu(q_h . k) / sqrt(D)",
        [*computed[0], *computed[1]],
        formula * 2,
        tol=1e-12,
        scope="H = 3, D = r = 4, one query and two keys at position 7, both pairings; "
        "the formula worked by hand in exact arithmetic",
    )

    # Step 6. The choice changes. Keys at offsets 1 .. K, all equal to the query's
    # content e_h (a repeated token): the trained score is cos(j w_(h/2)), decreasing for
    # j w_(h/2) < pi, so its top keys are the nearest; the split-half code scores
    # cos(j w_0) = cos(j).
    toy, kept = INPUTS["toy_keys"], INPUTS["toy_top"]
    c = half  # the coordinate h: trained pair h/2, split-half pair 0
    rec.exact(
        "the trained speed of e_h times the farthest offset is below 3 < pi",
        toy * exact[c // 2],
        3,
        relation="<",
        scope=f"DeepSeek-V3.2-Exp, c = {c}, offsets 1 .. {toy}",
    )
    trained_50 = {o: score_50(c, o, float(ds[c // 2])) for o in range(1, toy + 1)}
    wrong_50 = {o: score_50(c, o, float(ds[c % half])) for o in range(1, toy + 1)}
    rec.exact(
        "keys scored by both codes at 50 digits",
        len(trained_50) + len(wrong_50),
        2 * toy,
        scope=f"offsets 1 .. {toy}, each under both pairings",
    )
    right_top = sorted(sorted(trained_50, key=lambda o: -trained_50[o])[:kept])
    wrong_top = sorted(sorted(wrong_50, key=lambda o: -wrong_50[o])[:kept])
    rec.exact(
        "the trained model's top keys are the nearest (offsets 1 .. top)",
        sum(a != b for a, b in zip(right_top, range(1, kept + 1), strict=True)),
        0,
        scope=f"scores at 50 digits, top {kept} of {toy}",
    )
    # The split-half code's choice, by the transcribed Transformers indexer in float64 (one
    # head of weight 1, D = r), against the 50-digit scores.
    e = np.zeros(width)
    e[c] = 1.0
    where = np.arange(toy + 1, dtype=np.float64)  # keys at 0 .. K - 1, the query at K
    hf = hf_index_scores(
        e[None, None, :], np.tile(e, (toy, 1)), np.ones((1, 1)), width, where[-1:], where[:-1],
        ds, hf_apply_half,
    )[0]  # fmt: skip
    hf_top = sorted(toy - int(i) for i in np.argsort(-hf, kind="stable")[:kept])
    hf_right = hf_index_scores(
        e[None, None, :], np.tile(e, (toy, 1)), np.ones((1, 1)), width, where[-1:], where[:-1],
        ds, hf_apply_interleave,
    )[0]  # fmt: skip
    rec.exact(
        "the transcribed interleaved indexer chooses the nearest keys too",
        sum(a != b for a, b in zip(sorted(toy - int(i) for i in np.argsort(-hf_right)[:kept]),
                                   right_top, strict=True)),
        0,
        scope=f"top {kept} of {toy} keys, offsets",
    )  # fmt: skip
    rec.exact(
        "the transcribed split-half indexer chooses the same keys as the 50-digit scores",
        sum(a != b for a, b in zip(hf_top, wrong_top, strict=True)),
        0,
        scope=f"top {kept} of {toy} keys, offsets",
    )
    shown = 0
    for index, offset in enumerate(wrong_top):
        shown += 1
        rec.exact(
            f"split-half code's choice {index + 1}: offset",
            offset,
            hf_top[index],
            scope="50-digit scores against the transcribed indexer",
            quantity=f"wrong_{index + 1}",
            show=Show(),
        )
    rec.exact(
        "the split-half code's choices shown, one per chosen key",
        shown,
        kept,
        scope=f"top {kept}",
    )
    rec.exact(
        "keys both choose",
        len(set(right_top) & set(wrong_top)),
        0,
        scope=f"top {kept} of {toy}",
    )
    # Each choice is strict: the last chosen score beats the first left out by more than
    # float64 could blur (cos(a w) - cos(b w) = -2 sin((a + b) w / 2) sin((a - b) w / 2),
    # checked at 50 digits), and is positive, so relu keeps the order.
    margins = 0
    for label, scores, speed in (
        ("trained", trained_50, ds[c // 2]),
        ("split-half", wrong_50, ds[c % half]),
    ):
        margins += 1
        ranked = sorted(scores, key=lambda o: -scores[o])  # offsets, best first
        last, out = ranked[kept - 1], ranked[kept]
        with mpmath.workdps(50):
            w_50 = mpmath.mpf(float(speed))
            formula = (
                -2 * mpmath.sin((last + out) * w_50 / 2) * mpmath.sin((last - out) * w_50 / 2)
            )
            gap = scores[last] - scores[out]
        rec.close(
            f"{label}: the last chosen score minus the first left out, by the formula",
            sp.Float(gap, 50),
            sp.Float(formula, 50),
            tol=1e-40,
            scope=f"offsets {last} and {out}, 50 digits",
        )
        rec.band(
            f"{label}: that margin is above 1e-6",
            float(gap),
            low=1e-6,
            high=2,
            samples=1,
            scope="the margin in float64",
        )
        rec.band(
            f"{label}: the last chosen score is positive",
            float(scores[last]),
            low=1e-6,
            high=1,
            samples=1,
            scope="so relu(score) keeps the order of the chosen keys",
        )

    rec.exact("choices whose margins were checked", margins, 2, scope="trained and split-half")

    # The configs (the page's "Which models have two pairings"). posenc's record of each
    # family's two pairings against the transcription and against the calls the
    # conformance run measured; posenc's caution on a config of each family, with the
    # pairing keys some configs carry, which the code does not read.
    record = json.loads(RECORD.read_text())
    measured = {}
    for case in record["cases"]:
        for found in case.get("measured") or []:
            for line in found.get("also", []) if isinstance(found, dict) else []:
                where, _, label = line.rpartition(": ")
                if where.endswith(".indexer"):
                    measured.setdefault(case["model_type"], set()).add(label)
    wrong_family, wrong_reading, runs = 0, 0, 0
    for name, pairings in FAMILY_PAIRINGS.items():
        facts = families.family(name)
        wrong_family += int(facts.pairing != pairings["attention"])
        wrong_family += int(facts.indexer != pairings["indexer"])
        wrong_family += int(measured.get(name) != {pairings["indexer"]})
        for keys in ({}, {"rope_interleave": False}, {"indexer_rope_interleave": True}):
            runs += 1
            reading = model_config.read_model({**part, "model_type": name, **keys})
            found = [c.message for c in reading.cautions if c.code == "two_pairings"]
            attention = {k.pairing for k in reading.kinds if k.rotates}
            two = pairings["attention"] != pairings["indexer"]
            wrong_reading += int(attention != {pairings["attention"]})
            wrong_reading += int(len(found) != int(two))
            wrong_reading += int(two and f"with the {pairings['indexer']} pairing" not in found[0])
    rec.exact(
        "posenc's pairings of each indexer family against the transcribed code and the "
        "conformance run's measured indexer call (disagreements)",
        wrong_family,
        0,
        scope=f"{', '.join(FAMILY_PAIRINGS)}: attention, indexer, measured indexer",
    )
    rec.exact(
        "posenc's reading and two_pairings caution on a config of each family, with and "
        "without unread pairing keys (disagreements with the transcription)",
        wrong_reading,
        0,
        scope=f"DeepSeek-V3.2-Exp's JSON as each of {len(FAMILY_PAIRINGS)} families, "
        f"{runs} readings: no key, rope_interleave false, indexer_rope_interleave true",
    )
    rec.exact(
        "... readings made, three for each of the four families",
        runs,
        3 * 4,
        scope="deepseek_v32, axk2, glm_moe_dsa, hy_v4; each with no key and with each of "
        "the two keys",
    )
    rec.exact(
        "indexer model types the conformance run measured whose posenc record is not the "
        "measured pairing",
        sum(int(measured[t] != {families.family(t).indexer}) for t in measured),
        0,
        scope=f"conformance/record.json, Transformers 5.24: the indexer apply calls of "
        f"{len(measured)} model types traced and measured",
    )
    # posenc's indexer record, by module, against every Indexer class of the pinned
    # Transformers (INDEXERS): the same modules, and per module the same pairings.
    recorded: dict[str, set] = {}
    for facts in families.FAMILIES.values():
        if facts.indexer is not None:
            module = Path(facts.source).parent.name
            attention = None if facts.indexer == "none" else facts.pairing
            recorded.setdefault(module, set()).add((attention, facts.indexer))
    rec.exact(
        "modules with an Indexer class in the pinned Transformers against those posenc "
        "gives an indexer record (modules in one list only)",
        len(set(recorded) ^ set(INDEXERS)),
        0,
        scope="posenc.families.FAMILIES (source module of each model type with an indexer "
        "record) against the transcribed Indexer classes",
    )
    rec.exact(
        "... and modules where posenc's attention and indexer pairings are not the "
        "transcribed ones",
        sum(int(recorded.get(module) != {pairs}) for module, pairs in INDEXERS.items()),
        0,
        scope="every model type of each module (text parts included)",
    )
    rec.exact(
        "families with an indexer in the pinned Transformers",
        len(recorded),
        len(INDEXERS),
        scope="posenc's record against the transcription",
        quantity="indexer_families",
        show=Show(),
    )
    two_pairing = sorted(
        module
        for module, pairs in recorded.items()
        if any(indexer != "none" and attention != indexer for attention, indexer in pairs)
    )
    rec.exact(
        "the families whose two parts pair differently are DeepSeek-V3.2 and AXK2 alone (1 = yes)",
        int(two_pairing == ["axk2", "deepseek_v32"]),
        1,
        scope="posenc's record of every indexer family",
    )
    rec.exact(
        "families whose two parts pair differently",
        len(two_pairing),
        2,
        scope="of the indexer families",
        quantity="two_pairing_families",
        show=Show(),
    )
    # posenc's cautions on a config of every model type of every indexer family, its
    # width under each of the keys the families use: two_pairings exactly for the two,
    # and never the unknown-pairing caution.
    wrong_caution, caution_runs, cautioned = 0, 0, set()
    for name, facts in families.FAMILIES.items():
        if facts.indexer is None:
            continue
        cautioned.add(name)
        for key in confusions.INDEXER_WIDTH_KEYS:
            caution_runs += 1
            config = {**part, "model_type": name, key: part["index_head_dim"]}
            if key != "index_head_dim":
                config.pop("index_head_dim")
            found = {c.code for c in model_config.read_model(config).cautions}
            two = Path(facts.source).parent.name in two_pairing
            wrong_caution += int(("two_pairings" in found) != two)
            wrong_caution += int("indexer_pairing_unknown" in found)
    rec.exact(
        "posenc's cautions on every indexer model type (two_pairings where the parts "
        "differ, else none; never the unknown caution): disagreements",
        wrong_caution,
        0,
        scope=f"DeepSeek-V3.2-Exp's JSON as each model type, {caution_runs} readings: the "
        "width as index_head_dim, sparse_index_dim, indexer_head_dim",
    )
    rec.exact(
        "... modules of the model types read against those with an Indexer class (modules "
        "in one list only)",
        len({Path(families.family(name).source).parent.name for name in cautioned}
            ^ set(INDEXERS)),
        0,
        scope="the model types given a config above, against the transcribed Indexer classes",
    )  # fmt: skip
    rec.exact(
        "... posenc's indexer width keys against the three the families use (keys in one "
        "list only)",
        len(set(confusions.INDEXER_WIDTH_KEYS)
            ^ {"index_head_dim", "sparse_index_dim", "indexer_head_dim"}),
        0,
        scope="confusions.INDEXER_WIDTH_KEYS against index_head_dim, MiniMax-M3-VL's "
        "sparse_index_dim, Qwen4-Exp's indexer_head_dim",
    )  # fmt: skip
    rec.exact(
        "... readings made, one per width key of each model type read",
        caution_runs,
        3 * len(cautioned),
        scope=f"{len(cautioned)} model types, 3 width keys each",
    )
    # Which kept configs have an indexer (the raw JSON's keys), against those posenc
    # cautions about two pairings; DeepSeek-V3.2-Exp's values against the class defaults
    # and posenc's reading.
    # Which kept configs have an indexer (the raw JSON's keys alone), and each config's
    # indexer caution against its family's record: parts that differ, two_pairings; parts
    # alike or no indexer rotary, none; no record, indexer_pairing_unknown.
    files = sorted(CONFIG_DIR.glob("*.json"))
    raw_with, posenc_with, wrong_config, read = [], [], 0, 0
    codes = {"two_pairings", "indexer_pairing_unknown"}
    for path in files:
        raw = raw_part(path.stem)
        reading = model_config.read_model(path)
        read += 1
        found = {c.code for c in reading.cautions} & codes
        if found or families.family(reading.model_type).indexer is not None:
            posenc_with.append(path.stem)
        if not any(raw.get(key) is not None for key in confusions.INDEXER_WIDTH_KEYS):
            wrong_config += int(found != set())
            continue
        raw_with.append(path.stem)
        facts = families.family(reading.model_type)
        attention = {k.pairing for k in reading.kinds if k.rotates}
        if facts.indexer is None:
            expected = {"indexer_pairing_unknown"}
        elif facts.indexer == "none" or attention == {facts.indexer}:
            expected = set()
        else:
            expected = {"two_pairings"}
        wrong_config += int(found != expected)
    rec.exact("configs read", read, len(list(CONFIG_DIR.glob("*.json"))), scope="data/configs")
    rec.exact(
        "configs whose indexer caution is not the one their family's record calls for",
        wrong_config,
        0,
        scope=f"the {read} configs of data/configs: an indexer width key or not, and the "
        "family's two pairings",
    )
    rec.exact(
        "configs with an indexer",
        len(raw_with),
        len(posenc_with),
        scope="raw JSON keys index_head_dim, sparse_index_dim, indexer_head_dim, against "
        "the configs of a family posenc gives an indexer record or an indexer caution",
        quantity="indexer_configs",
        show=Show(),
    )
    rec.exact(
        "... and it is DeepSeek-V3.2-Exp",
        int(raw_with == [DEEPSEEK]),
        1,
        scope="data/configs",
    )
    compared = 0
    for key, name in (("index_topk", "ds_topk"), ("index_head_dim", "ds_index_head"),
                      ("index_n_heads", "ds_index_heads")):  # fmt: skip
        compared += 1
        rec.exact(
            f"DeepSeek-V3.2-Exp: {key} of the file is DeepseekV32Config's default",
            part[key],
            V32_DEFAULTS[key],
            scope="raw JSON against the transcribed class default",
            quantity=name,
            show=Show(),
        )
    rec.exact(
        "indexer keys compared with the class defaults",
        compared,
        len(INDEXER_KEYS),
        scope="index_topk, index_head_dim, index_n_heads",
    )
    reading = model_config.read_model(CONFIG_DIR / f"{DEEPSEEK}.json")
    family = FAMILY_PAIRINGS[reading.model_type]
    caution = next(c for c in reading.cautions if c.code == "two_pairings")
    agree = (
        int(reading.kinds[0].pairing == family["attention"])
        + int(f"with the {family['indexer']} pairing" in caution.message)
        + int(f"index_head_dim {part['index_head_dim']}" in caution.message)
        + int(reading.kinds[0].rope.head_dim == part["qk_rope_head_dim"])
        + int("rope_interleave" not in part)
        + int("indexer_rope_interleave" not in part)
    )
    rec.exact(
        "DeepSeek-V3.2-Exp: posenc's attention pairing and indexer caution agree with the "
        "transcribed code and the file (of 6 comparisons)",
        agree,
        6,
        scope="model_type, pairing, caution text, rotated width, no pairing key in the file",
    )


# -- misreadings ------------------------------------------------------------------------


def _shows_at_once(wit: Witness) -> None:
    # "A wrong indexer pairing would show at once, even on short prompts." With at most
    # index_topk keys, topk keeps min(index_topk, T) = T: every key, under either pairing,
    # though the scores differ; a smaller top-k on the same scores already chooses
    # otherwise. Every query comes after every key, so the mask (left out) masks nothing;
    # both scores are relu's weighted by 1 and so never negative, and one such score
    # differs from another by at most the larger: here by at most the largest trained one.
    part = raw_part(DEEPSEEK)
    ds = deepseek_speeds()
    width, count = part["qk_rope_head_dim"], part["index_topk"]
    rng = np.random.default_rng(1431)
    q = rng.normal(size=(4, 2, width))  # (S, H, r)
    k = rng.normal(size=(count, width))  # (T, r)
    where = np.arange(count, dtype=np.float64)
    q_pos = count + np.arange(4, dtype=np.float64)
    args = (np.ones((4, 2)), width, q_pos, where, ds)
    right = hf_index_scores(q, k, args[0], *args[1:], hf_apply_interleave)  # (4, T)
    wrong = hf_index_scores(q, k, args[0], *args[1:], hf_apply_half)  # (4, T)
    every = frozenset(range(count))
    spread = float(np.abs(right - wrong).max() / np.abs(right).max())
    smaller = sum(a != b for a, b in zip(top(right, count // 2), top(wrong, count // 2),
                                         strict=True))  # fmt: skip
    wit.exact(
        all(
            [
                top(right, count) == top(wrong, count) == [every] * 4,
                0.5 < spread <= 1,
                smaller == 4,
                q_pos.min() > where.max(),
            ]
        ),
        at=f"DeepSeek-V3.2-Exp's indexer shapes, {count} = index_topk keys, 4 queries after "
        f"them: both pairings select every key, though the scores differ by {spread:.2f} of "
        f"the largest (above one half, at most 1) and a top-{count // 2} on the same scores "
        f"differs for {smaller} of the 4 queries",
    )


def _key_alone(wit: Witness) -> None:
    # "Permuting the rows of W_q and W_k is the whole fix." The key passes k_norm before
    # the split, and its gamma and beta act per coordinate: left in place, they meet
    # permuted rows, and the indexer chooses other keys.
    net = random_indexer()
    part = raw_part(DEEPSEEK)
    width, full = part["qk_rope_head_dim"], part["index_head_dim"]
    kept = INPUTS["models_top"]
    moved = np.concatenate([np.argsort(pairing_permutation(width)), np.arange(width, full)])
    trained = top(indexer_scores(net, np.arange(full), hf_apply_interleave), kept)
    rows_only = top(indexer_scores(net, moved, hf_apply_half, norm_rows=np.arange(full)), kept)
    changed = sum(int(rows_only[s] != chosen) for s, chosen in enumerate(trained))
    wit.exact(
        changed == len(trained),
        at=f"DeepSeek-V3.2-Exp's indexer shapes (H = {part['index_n_heads']}, D = {full}, "
        f"r = {width}), random weights with k_norm's gamma = 1 + N(0, 1/4), beta = N(0, 0.09): "
        "split-half code on W_q, W_k permuted, gamma and beta not, chooses other "
        f"top-{kept} keys than the trained indexer for {changed} of the {len(trained)} "
        "queries",
    )


def _only_noise(wit: Witness) -> None:
    # "A wrong pairing only perturbs the index scores a little." e_h at offset 3: trained
    # cos(3 w_16), split-half code cos(3).
    ds = deepseek_speeds()
    c, offset = ds.size, INPUTS["witness_offset"]
    wit.differs(
        sp.Float(score_50(c, offset, float(ds[c // 2])), 50),
        sp.Float(score_50(c, offset, float(ds[c % ds.size])), 50),
        at=f"DeepSeek-V3.2-Exp's speeds, query and key e_{c} (unit), offset {offset}: trained "
        f"pair {c // 2} against split-half pair 0",
        margin=Fraction(19, 10),
        by="95% of 2, the largest difference any unit q, k can show",
    )


def _one_cache(wit: Witness) -> None:
    # "Both rotary parts take the same cos and sin, so they pair coordinates alike." The
    # transcribed apply_rotary_pos_emb and apply_rotary_pos_emb_interleave, one cos/sin.
    ds = deepseek_speeds()
    width, offset = 2 * ds.size, INPUTS["witness_offset"]
    e = np.zeros((1, width))
    e[0, 1] = 1.0
    cos, sin = hf_cos_sin(np.array([0.0, float(offset)]), ds)
    scores = []
    for apply in (hf_apply_half, hf_apply_interleave):
        query = apply(e, cos[:1], sin[:1])
        key = apply(e, cos[1:], sin[1:])
        scores.append(float((query @ key.T)[0, 0]))
    wit.differs(
        scores[0],
        scores[1],
        at=f"DeepSeek-V3.2-Exp's cos and sin, query e_1 at 0 and key e_1 at {offset}: "
        "rotate_half's score against the interleaved one",
        margin=Fraction(1, 4),
        by="an eighth of the range [-1, 1]",
    )


def _whole_head(wit: Witness) -> None:
    # "The fix is Proposition 23's permutation of the whole index head (index_head_dim)."
    # Trained coordinate 1 (pair 0) moves to place r, outside the rotated slice.
    part = raw_part(DEEPSEEK)
    ds = deepseek_speeds()
    width, full, offset = (
        part["qk_rope_head_dim"],
        part["index_head_dim"],
        INPUTS["witness_offset"],
    )
    e = np.zeros((1, 1, full))
    e[0, 0, 1] = 1.0
    where = (np.array([float(offset)]), np.array([0.0]))
    trained = hf_index_scores(e, e[0], np.ones((1, 1)), width, *where, ds, hf_apply_interleave)
    order = np.argsort(pairing_permutation(full))
    moved = e[..., order]
    misfixed = hf_index_scores(moved, moved[0], np.ones((1, 1)), width, *where, ds, hf_apply_half)
    # The trained q . k is cos(3 w_0) < 0, so relu gives 0; the misfixed one is 1, unturned.
    scale = full**-0.5
    wit.differs(
        float(trained[0, 0]) / scale,
        float(misfixed[0, 0]) / scale,
        at=f"DeepSeek-V3.2-Exp's index head (D = {full}, r = {width}), q = k = e_1, offset "
        f"{offset}: relu(q . k) with the trained pairing against the whole head permuted",
        margin=Fraction(9, 10),
        by="nine tenths of a unit score",
    )


MISREADINGS = [
    Misreading(
        "A wrong pairing in the indexer would show at once, on short prompts too",
        _shows_at_once,
        why="The indexer only chooses keys, and with at most index_topk keys it keeps them "
        "all: up to index_topk tokens the wrong scores change nothing (1bit-MONSTER#2418's "
        "table shows it; its fix, #2421, notes that nothing is dropped then).",
    ),
    Misreading(
        "A wrong pairing only perturbs the index scores a little, like noise",
        _only_noise,
        why="Coordinates change speed: a slow trained pair is turned at the fastest speed, "
        "so its score swings over nearly the whole range within a few positions.",
    ),
    Misreading(
        "The two rotary parts take one cos and sin cache, so they pair coordinates alike",
        _one_cache,
        why="Transformers feeds both parts the same cos and sin; the pairing is which two "
        "coordinates each code combines, and there the two calls differ.",
    ),
    Misreading(
        "The fix is Proposition 23's permutation over the whole index head",
        _whole_head,
        why="Only the first qk_rope_head_dim coordinates of an index head turn; permuting "
        "all index_head_dim rows moves trained rotated coordinates into the part that "
        "does not turn.",
    ),
    Misreading(
        "Permuting the rows of W_q and W_k is the whole fix",
        _key_alone,
        why="The key is k_norm(W_k x), a LayerNorm whose weight and bias act coordinate by "
        "coordinate before the split: they must be permuted with the rows of W_k (and a "
        "query head's norm weight, MiniMax-M3-VL's q_norm, with the rows of W_q).",
    ),
]
