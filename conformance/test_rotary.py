"""posenc.rotary against the rotary code people run: Hugging Face Llama, GPT-NeoX, GPT-J
and Meta's reference (``llama_models.llama3.model``).

Each library is checked in two parts, because they fail in different ways.

**The rotation.** The library's own rotation function, given cosines and sines that
posenc computed (correctly rounded float64), against :func:`posenc.rotary.rotary`
with the pairing posenc names for it. This checks which coordinates form a pair and
the sign of the turn, and nothing else.

- Llama's ``apply_rotary_pos_emb`` (``rotate_half``), GPT-NeoX's (with a partial
  rotary width) and GPT-J's (``rotate_every_two``) compute ``a cos - b sin`` and
  ``a sin + b cos`` as posenc does: two products and a sum, in the input's dtype.
  In float64 they must be **bit-identical** to posenc.
- Meta's ``apply_rotary_emb`` always works in float32 (``xq.float()``): a complex64
  product with the float32-rounded ``cis``. With unit roundoff ``u = 2**-24``, each
  output coordinate is within ``u |pair|`` (the rounded cosine and sine) plus
  ``2u |pair|`` (two products and a sum) of the exact rotation, and posenc's float32
  result is within ``u |pair|`` of it (plus its float64 error, below ``4e-16 |pair|``):
  a bound of ``4u |pair|`` between the two, to first order (4.01 is used).

**The angles.** The library's cosine and sine caches (its own code from the config
to the cache) against the exact ones. All four build them in float32:
``w = 1 / base ** (2i / d)`` (the exponent rounded, relative error ``u``, worth
``|ln base| u`` in ``w``; ``pow`` within one ulp, ``2u``; the reciprocal ``u``), then
``t = position * w`` (``u``), so the angle is within ``(|ln base| + 4) u |t|`` of the
exact one; ``cos`` and ``sin`` of it add one ulp (``2u``) and the exact reference
``2**-53``. The bound ``(|ln base| + 4) u |t| + 2u + 2**-53`` grows with the
position, as the float32 model of :mod:`posenc.identify` does; the record keeps the
largest fraction of it that any entry used.

The bridge between the two layouts is checked on the libraries' own functions: a
query in Meta's (interleaved) layout, its columns rearranged by
``numpy.argsort(pairing_permutation(d))``, is rotated by Llama's ``rotate_half``
code to Meta's result rearranged the same way. Odd widths, which posenc refuses,
make every library fail too, by an error or (Llama at width 1) by returning vectors of
another width (recorded as refusals).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from conftest import not_run, record, version

from posenc.rotary import pairing_permutation, rotary

U = 2.0**-24  # unit roundoff of float32

#: Positions of every cache check: a training window and scattered ones up to 2**17
#: (Llama 3.1's 128K context), seeded.
_RNG = np.random.default_rng(20261202)
POSITIONS = np.unique(np.concatenate([np.arange(4096), _RNG.integers(4096, 2**17, 1024)]))
POSITIONS_TEXT = (
    f"{POSITIONS.size} positions: 0..4095 and {POSITIONS.size - 4096} drawn up to 2**17"
)

#: (head_dim, base): Llama 2, Llama 3, Qwen2.5 and CodeLlama, Gemma, small and odd sizes.
LLAMA = [(128, 1e4), (128, 5e5), (128, 1e6), (64, 1e4), (80, 1e4), (96, 1e4), (256, 1e4)]
LLAMA += [(2, 1e4), (6, 1e4), (128, 2.5e4)]

#: (head_dim, partial_rotary_factor, base): Pythia's quarter, a half, the whole head.
NEOX = [(128, 0.25, 1e4), (64, 0.25, 1e4), (80, 0.25, 1e4), (96, 0.5, 1e4), (128, 1.0, 1e4)]

#: rotary_dim: GPT-J-6B's 64, and others.
GPTJ = [64, 32, 128, 2, 6]

#: (dim, theta) of Meta's precompute_freqs_cis: Llama 2, Llama 3, smaller heads.
META = [(128, 1e4), (128, 5e5), (64, 1e4), (80, 1e4), (2, 1e4)]


# --------------------------------------------------------------------------------------
# Exact references and the error models.


def exact_cos_sin(positions: np.ndarray, width: int, base: float) -> tuple[np.ndarray, ...]:
    """posenc's correctly rounded float64 ``cos`` and ``sin`` of ``p * base**(-2i/width)``.

    ``rotary`` of a vector whose pairs are all ``(1, 0)`` is ``(cos t, sin t)`` in each
    pair, with no rounding beyond that of the cosine and the sine (``1 cos - 0 sin``).
    """
    ones = np.zeros((positions.size, width))
    ones[:, 0::2] = 1.0
    turned = rotary(ones, positions, base=base)  # (L, width)
    return turned[:, 0::2], turned[:, 1::2]  # (L, width/2) each


def angles(positions: np.ndarray, width: int, base: float) -> np.ndarray:
    """The angles ``p * base**(-2i/width)`` in float64, for the bound only, (L, width/2)."""
    return positions[:, None] * base ** (-np.arange(0, width, 2) / width)


def cache_bound(positions: np.ndarray, width: int, base: float) -> np.ndarray:
    """The float32 cache model of the module docstring, per entry, (L, width/2)."""
    return (abs(math.log(base)) + 4) * U * np.abs(angles(positions, width, base)) + 2 * U + 2**-53


def pair_length(x: np.ndarray, pairing: str) -> np.ndarray:
    """``|pair|`` for every coordinate of ``x`` (..., d): each pair's length, in both members."""
    half = x.shape[-1] // 2
    if pairing == "interleaved":
        length = np.hypot(x[..., 0::2], x[..., 1::2])
        return np.repeat(length, 2, axis=-1)
    length = np.hypot(x[..., :half], x[..., half:])
    return np.concatenate([length, length], axis=-1)


def _queries(seed: int, heads: int, length: int, width: int, dtype) -> np.ndarray:
    """Seeded queries (1, heads, length, width): normal, with some large and tiny entries."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, heads, length, width))
    x *= 10.0 ** rng.integers(-3, 4, size=x.shape)
    return x.astype(dtype)


def _cache_case(library, lib_version, case, width, base, cos, sin, **extra) -> None:
    """Compare a library's float32 cos and sin (L, width/2) with the exact ones, and record it."""
    want_cos, want_sin = exact_cos_sin(POSITIONS, width, base)
    error = np.maximum(
        np.abs(cos.astype(np.float64) - want_cos), np.abs(sin.astype(np.float64) - want_sin)
    )
    bound = cache_bound(POSITIONS, width, base)
    used = float(np.max(error / bound))
    record(
        library=library,
        version=lib_version,
        kind="rotary",
        case=case,
        convention="rotary",
        compared=f"cos and sin caches, {POSITIONS_TEXT}",
        dtype="float32",
        largest_difference=float(error.max()),
        verdict="within the float32 model" if used <= 1 else "differs",
        bound_used=used,
        **extra,
    )
    worst = np.unravel_index(np.argmax(error / bound), error.shape)
    assert used <= 1, (
        f"{library} {case}: position {POSITIONS[worst[0]]}, pair {worst[1]} is "
        f"{error[worst]:.3g} off, beyond the float32 model's {bound[worst]:.3g}"
    )


def _rotation_case(library, lib_version, case, pairing, got, want, x, bound_units, dtype):
    """Compare a library's rotation with posenc's; bit-identical when ``bound_units`` is 0."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    difference = np.abs(got - want)
    same = np.array_equal(got, want)
    if bound_units == 0:
        ok, verdict, used = same, ("bit-identical" if same else "differs"), None
    else:
        bound = bound_units * U * pair_length(np.asarray(x, dtype=np.float64), pairing)
        bound = bound + np.finfo(np.float32).tiny  # an all-zero pair rounds to exactly zero
        used = float(np.max(difference / bound))
        ok = used <= 1
        verdict = "bit-identical" if same else ("within the float32 model" if ok else "differs")
    record(
        library=library,
        version=lib_version,
        kind="rotary",
        case=case,
        convention=f"rotary, {pairing} pairing",
        compared="rotation with posenc's cos and sin",
        dtype=dtype,
        largest_difference=float(difference.max()),
        verdict=verdict,
        **({} if used is None else {"bound_used": used}),
    )
    assert ok, f"{library} {case}: the rotation differs from posenc's {pairing} pairing"


# --------------------------------------------------------------------------------------
# Hugging Face Llama: rotate_half.


def _llama():
    try:
        from transformers import LlamaConfig
        from transformers.models.llama import modeling_llama
    except ImportError as error:
        not_run("transformers Llama", "rotary", str(error))
    return LlamaConfig, modeling_llama


def _llama_config(config_class, head_dim, base):
    return config_class(
        hidden_size=2 * head_dim,
        num_attention_heads=2,
        head_dim=head_dim,
        max_position_embeddings=2**17,
        rope_parameters={"rope_type": "default", "rope_theta": base},
    )


def _halves_cache(cos: np.ndarray, sin: np.ndarray, dtype) -> tuple[torch.Tensor, ...]:
    """Hugging Face's cache layout: (1, L, d) with the d/2 angles written twice."""
    cos = torch.from_numpy(np.concatenate([cos, cos], axis=-1)[None].astype(dtype))
    sin = torch.from_numpy(np.concatenate([sin, sin], axis=-1)[None].astype(dtype))
    return cos, sin


@pytest.mark.parametrize(("head_dim", "base"), LLAMA)
def test_llama_rotation(head_dim, base):
    _, modeling = _llama()
    positions = POSITIONS[::8]
    x = _queries(head_dim, 2, positions.size, head_dim, np.float64)
    cos, sin = exact_cos_sin(positions, head_dim, base)
    q, _ = modeling.apply_rotary_pos_emb(
        torch.from_numpy(x), torch.from_numpy(x), *_halves_cache(cos, sin, np.float64)
    )
    want = rotary(x, positions, base=base, pairing="half")
    _rotation_case(
        "transformers Llama",
        version("transformers"),
        f"apply_rotary_pos_emb, head_dim {head_dim}, base {base:g}",
        "half",
        q.numpy(),
        want,
        x,
        0,
        "float64",
    )


@pytest.mark.parametrize(("head_dim", "base"), LLAMA)
def test_llama_cache(head_dim, base):
    config_class, modeling = _llama()
    embedding = modeling.LlamaRotaryEmbedding(_llama_config(config_class, head_dim, base))
    ids = torch.from_numpy(POSITIONS[None])
    cos, sin = embedding(torch.zeros(1, dtype=torch.float32), ids)  # (1, L, d) each
    half = head_dim // 2
    cos, sin = cos[0].numpy(), sin[0].numpy()
    # The two copies of each angle must be the same numbers before either is compared.
    assert np.array_equal(cos[:, :half], cos[:, half:])
    assert np.array_equal(sin[:, :half], sin[:, half:])
    _cache_case(
        "transformers Llama",
        version("transformers"),
        f"LlamaRotaryEmbedding, head_dim {head_dim}, base {base:g}",
        head_dim,
        base,
        cos[:, :half],
        sin[:, :half],
    )


# --------------------------------------------------------------------------------------
# GPT-NeoX: rotate_half on the first rotary_dim coordinates, the rest passed through.


def _neox():
    try:
        from transformers import GPTNeoXConfig
        from transformers.models.gpt_neox import modeling_gpt_neox
    except ImportError as error:
        not_run("transformers GPT-NeoX", "rotary", str(error))
    return GPTNeoXConfig, modeling_gpt_neox


@pytest.mark.parametrize(("head_dim", "partial", "base"), NEOX)
def test_neox_rotation(head_dim, partial, base):
    _, modeling = _neox()
    rotary_dim = int(head_dim * partial)
    positions = POSITIONS[::8]
    x = _queries(head_dim + 1, 2, positions.size, head_dim, np.float64)
    cos, sin = exact_cos_sin(positions, rotary_dim, base)
    q, _ = modeling.apply_rotary_pos_emb(
        torch.from_numpy(x), torch.from_numpy(x), *_halves_cache(cos, sin, np.float64)
    )
    # posenc has no partial rotary: it turns the first rotary_dim coordinates, the rest stay.
    want = x.copy()
    want[..., :rotary_dim] = rotary(x[..., :rotary_dim], positions, base=base, pairing="half")
    _rotation_case(
        "transformers GPT-NeoX",
        version("transformers"),
        f"apply_rotary_pos_emb, head_dim {head_dim}, rotary_dim {rotary_dim}, base {base:g}",
        "half",
        q.numpy(),
        want,
        x,
        0,
        "float64",
    )


@pytest.mark.parametrize(("head_dim", "partial", "base"), NEOX)
def test_neox_cache(head_dim, partial, base):
    config_class, modeling = _neox()
    config = config_class(
        hidden_size=2 * head_dim,
        num_attention_heads=2,
        max_position_embeddings=2**17,
        rope_parameters={
            "rope_type": "default",
            "rope_theta": base,
            "partial_rotary_factor": partial,
        },
    )
    embedding = modeling.GPTNeoXRotaryEmbedding(config)
    cos, sin = embedding(torch.zeros(1, dtype=torch.float32), torch.from_numpy(POSITIONS[None]))
    rotary_dim = int(head_dim * partial)
    # The exponent is over the rotary width, not the head width: the cache must be that wide.
    assert cos.shape[-1] == rotary_dim, f"cache width {cos.shape[-1]}, rotary_dim {rotary_dim}"
    half = rotary_dim // 2
    _cache_case(
        "transformers GPT-NeoX",
        version("transformers"),
        f"GPTNeoXRotaryEmbedding, head_dim {head_dim}, partial {partial:g}, base {base:g}",
        rotary_dim,
        base,
        cos[0, :, :half].numpy(),
        sin[0, :, :half].numpy(),
        exponent_over="rotary_dim",
    )


# --------------------------------------------------------------------------------------
# GPT-J: rotate_every_two, interleaved pairs.


def _gptj():
    try:
        from transformers import GPTJConfig
        from transformers.models.gptj import modeling_gptj
    except ImportError as error:
        not_run("transformers GPT-J", "rotary", str(error))
    return GPTJConfig, modeling_gptj


@pytest.mark.parametrize("rotary_dim", GPTJ)
def test_gptj_rotation(rotary_dim):
    _, modeling = _gptj()
    positions = POSITIONS[::8]
    # GPT-J's layout is (batch, length, heads, rotary_dim); posenc's is (..., length, d).
    x = _queries(rotary_dim + 2, 2, positions.size, rotary_dim, np.float64)
    cos, sin = exact_cos_sin(positions, rotary_dim, 1e4)
    got = modeling.apply_rotary_pos_emb(
        torch.from_numpy(x.transpose(0, 2, 1, 3).copy()),
        torch.from_numpy(sin[None]),
        torch.from_numpy(cos[None]),
    )
    want = rotary(x, positions, base=1e4, pairing="interleaved")
    _rotation_case(
        "transformers GPT-J",
        version("transformers"),
        f"apply_rotary_pos_emb, rotary_dim {rotary_dim}",
        "interleaved",
        got.numpy().transpose(0, 2, 1, 3),
        want,
        x,
        0,
        "float64",
    )


@pytest.mark.parametrize("rotary_dim", GPTJ)
def test_gptj_cache(rotary_dim):
    config_class, modeling = _gptj()
    config = config_class(n_embd=4 * rotary_dim, n_head=2, rotary_dim=rotary_dim)
    config.max_position_embeddings = 2**17  # the cache's length (n_positions)
    embedding = modeling.GPTJRotaryEmbedding(config)
    sin, cos = embedding(torch.zeros(1, dtype=torch.float32), torch.from_numpy(POSITIONS[None]))
    _cache_case(
        "transformers GPT-J",
        version("transformers"),
        f"GPTJRotaryEmbedding, rotary_dim {rotary_dim}",
        rotary_dim,
        1e4,
        cos[0].numpy(),
        sin[0].numpy(),
    )


# --------------------------------------------------------------------------------------
# Meta's reference: adjacent coordinates as one complex number, in float32.


def _meta():
    try:
        from llama_models.llama3 import model
    except ImportError as error:
        not_run("llama-models (Meta)", "rotary", str(error))
    return model


def _meta_layout(x: np.ndarray) -> torch.Tensor:
    """(1, heads, L, d) to Meta's (batch, L, heads, d)."""
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 2, 1, 3)))


@pytest.mark.parametrize(("dim", "theta"), META)
def test_meta_rotation(dim, theta):
    model = _meta()
    positions = POSITIONS[::8]
    x = _queries(dim + 3, 2, positions.size, dim, np.float32)
    cos, sin = exact_cos_sin(positions, dim, theta)
    cis = torch.from_numpy((cos + 1j * sin).astype(np.complex64))  # (L, d/2)
    q, _ = model.apply_rotary_emb(_meta_layout(x), _meta_layout(x), cis)
    _rotation_case(
        "llama-models (Meta)",
        version("llama-models"),
        f"apply_rotary_emb, dim {dim}, theta {theta:g}",
        "interleaved",
        q.numpy().transpose(0, 2, 1, 3),
        rotary(x, positions, base=theta, pairing="interleaved"),
        x,
        4.01,
        "float32",
    )


@pytest.mark.parametrize(("dim", "theta"), META)
def test_meta_cache(dim, theta):
    model = _meta()
    cis = model.precompute_freqs_cis(dim, int(POSITIONS[-1]) + 1, theta).numpy()  # (end, d/2)
    rows = cis[POSITIONS]
    _cache_case(
        "llama-models (Meta)",
        version("llama-models"),
        f"precompute_freqs_cis, dim {dim}, theta {theta:g}",
        dim,
        theta,
        rows.real,
        rows.imag,
    )


@pytest.mark.parametrize(("dim", "theta"), [(128, 5e5), (64, 1e4), (6, 1e4)])
def test_meta_to_hf_layout(dim, theta):
    """Meta's rotation, rearranged by argsort(pairing_permutation), is Llama's rotate_half."""
    model = _meta()
    _, modeling = _llama()
    positions = POSITIONS[::8]
    x = _queries(dim + 4, 2, positions.size, dim, np.float32)
    cos, sin = exact_cos_sin(positions, dim, theta)
    cis = torch.from_numpy((cos + 1j * sin).astype(np.complex64))
    meta, _ = model.apply_rotary_emb(_meta_layout(x), _meta_layout(x), cis)
    to_half = np.argsort(pairing_permutation(dim))  # interleaved -> split-half columns
    moved = torch.from_numpy(np.ascontiguousarray(x[..., to_half]))
    hf, _ = modeling.apply_rotary_pos_emb(moved, moved, *_halves_cache(cos, sin, np.float32))
    got = hf.numpy()
    want = meta.numpy().transpose(0, 2, 1, 3)[..., to_half]
    difference = np.abs(got.astype(np.float64) - want)
    # Both round the same float32 cos and sin and do two products and a sum: 2u |pair| each.
    bound = 4.01 * U * pair_length(x[..., to_half].astype(np.float64), "half")
    bound = bound + np.finfo(np.float32).tiny
    same = np.array_equal(got, want)
    ok = same or bool(np.all(difference <= bound))
    record(
        library="llama-models (Meta)",
        version=version("llama-models"),
        kind="rotary",
        case=f"Meta's layout to Hugging Face's by argsort(pairing_permutation({dim})), "
        f"theta {theta:g}",
        convention="rotary, interleaved to half",
        compared="Meta's rotation rearranged against Llama's rotate_half",
        dtype="float32",
        largest_difference=float(difference.max()),
        verdict="bit-identical" if same else ("within the float32 model" if ok else "differs"),
        bound_used=float(np.max(difference / bound)),
        transformers=version("transformers"),
    )
    assert ok, "the rearranged Meta rotation is not Llama's rotate_half rotation"


# --------------------------------------------------------------------------------------
# Odd widths: posenc refuses them; every library fails too.


def _failure(call, width: int) -> str | None:
    """How ``call`` fails to rotate vectors of an odd ``width``, or None if it does rotate them.

    A raised error is a failure; so is a result of another width (Llama's code, at width
    1, broadcasts the input against a cache of width 2 and returns width-2 vectors).
    """
    try:
        result = call(width)
    except Exception as error:  # any failure of the library's code counts
        return f"{type(error).__name__}: {str(error).strip().splitlines()[0][:160]}"
    result = result[0] if isinstance(result, tuple) else result
    if result.shape[-1] != width:
        return f"returns vectors of width {result.shape[-1]} for width {width}"
    return None


def _odd_llama(width):
    config_class, modeling = _llama()
    embedding = modeling.LlamaRotaryEmbedding(_llama_config(config_class, width, 1e4))
    x = torch.ones(1, 1, 4, width)
    cos, sin = embedding(x, torch.arange(4)[None])
    return modeling.apply_rotary_pos_emb(x, x, cos, sin)


def _odd_gptj(width):
    config_class, modeling = _gptj()
    config = config_class(n_embd=4 * width, n_head=2, rotary_dim=width)
    sin, cos = modeling.GPTJRotaryEmbedding(config)(torch.ones(1), torch.arange(4)[None])
    return modeling.apply_rotary_pos_emb(torch.ones(1, 4, 1, width), sin, cos)


def _odd_meta(width):
    model = _meta()
    cis = model.precompute_freqs_cis(width, 4)
    x = torch.ones(1, 4, 1, width)
    return model.apply_rotary_emb(x, x, cis)


ODD = {
    "transformers Llama": ("transformers", _odd_llama),
    "transformers GPT-J": ("transformers", _odd_gptj),
    "llama-models (Meta)": ("llama-models", _odd_meta),
}


@pytest.mark.parametrize("width", [1, 3, 65])
@pytest.mark.parametrize("library", sorted(ODD))
def test_odd_width(library, width):
    distribution, call = ODD[library]
    failure = _failure(call, width)
    refusal = _failure(lambda w: rotary(np.ones((4, w)), np.arange(4)), width)
    record(
        library=library,
        version=version(distribution),
        kind="refusal",
        case=f"rotary, odd width {width}",
        convention="rotary",
        compared="failure or not",
        dtype="float32",
        largest_difference=None,
        verdict="agrees" if failure and refusal else "differs",
        library_failure=failure,
        posenc_refusal=refusal,
    )
    assert refusal, f"posenc rotates an odd width {width}"
    assert failure, f"{library} rotates an odd width {width}; posenc refuses it"


# --------------------------------------------------------------------------------------
# The comparisons can fail: each is shown to reject a nearby false claim. Nothing here is
# recorded; it tests the suite, not posenc.


def test_a_wrong_pairing_is_caught():
    """Llama's rotate_half against posenc's interleaved pairing, and Meta's against half."""
    _, modeling = _llama()
    model = _meta()
    positions = POSITIONS[:64]
    x = _queries(7, 1, positions.size, 8, np.float32)
    cos, sin = exact_cos_sin(positions, 8, 1e4)
    hf, _ = modeling.apply_rotary_pos_emb(
        torch.from_numpy(x), torch.from_numpy(x), *_halves_cache(cos, sin, np.float32)
    )
    wrong = rotary(x, positions, pairing="interleaved")
    assert not np.allclose(hf.numpy(), wrong, rtol=0, atol=1e-3)
    cis = torch.from_numpy((cos + 1j * sin).astype(np.complex64))
    meta, _ = model.apply_rotary_emb(_meta_layout(x), _meta_layout(x), cis)
    excess = np.abs(meta.numpy().transpose(0, 2, 1, 3) - rotary(x, positions, pairing="half"))
    assert np.max(excess / (4.01 * U * pair_length(x.astype(np.float64), "half"))) > 1e3


def test_a_wrong_base_or_width_is_outside_the_cache_model():
    """A base off by one part in a thousand, or NeoX's exponent over the whole head."""
    config_class, modeling = _llama()
    embedding = modeling.LlamaRotaryEmbedding(_llama_config(config_class, 64, 1e4))
    cos, _ = embedding(torch.zeros(1), torch.from_numpy(POSITIONS[None]))
    want, _ = exact_cos_sin(POSITIONS, 64, 1.001e4)
    error = np.abs(cos[0, :, :32].numpy().astype(np.float64) - want)
    assert np.max(error / cache_bound(POSITIONS, 64, 1.001e4)) > 10
    neox_class, neox = _neox()
    config = neox_class(
        hidden_size=256,
        num_attention_heads=2,
        rope_parameters={"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0.25},
    )
    cos, _ = neox.GPTNeoXRotaryEmbedding(config)(torch.zeros(1), torch.from_numpy(POSITIONS[None]))
    # The misreading: the exponent over head_dim 128 instead of rotary_dim 32.
    head = exact_cos_sin(POSITIONS, 128, 1e4)[0][:, :16]
    error = np.abs(cos[0, :, :16].numpy().astype(np.float64) - head)
    assert np.max(error / cache_bound(POSITIONS, 32, 1e4)) > 10
