"""posenc.relative against the libraries' own code: T5's buckets, BLOOM's and MPT's ALiBi.

- **T5** (transformers ``T5Attention._relative_position_bucket``): the library takes a
  float32 logarithm and truncates; posenc decides the same floor in integers. On every
  configuration below they must give the same bucket for every offset (bit for bit).
- **ALiBi** in BLOOM (``build_alibi_tensor``) and MPT (``build_mpt_alibi_tensor``):
  float32 slopes against posenc's exact ones. BLOOM raises a float32 base
  ``2**(-8/c)`` (rounded once, relative error at most ``eps / 2``) to the power ``p``,
  so its slope can be off by ``p eps / 2`` plus about an ulp for ``pow`` and the
  rounding of the result: a relative bound ``(p / 2 + 2) eps`` with ``p <= H``. MPT
  computes ``1 / 2**q`` from a float32 ``q`` (relative error ``eps / 2``, worth
  ``q ln 2 eps / 2 <= 3 eps``) and two roundings: ``5 eps`` relative. The biases are the
  slopes times integer distances below ``2**24``, rounded once more: one ulp more.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import not_run, record, version

from posenc.relative import alibi_bias, alibi_slopes, t5_bucket

EPS32 = 2.0**-23

#: (num_buckets, max_distance): T5's, and others that Hugging Face configs use.
T5_CONFIGS = [(32, 128), (32, 256), (64, 128), (128, 1024), (16, 64), (8, 20), (2, 2)]

HEADS = [1, 2, 3, 4, 5, 6, 8, 12, 16, 20, 24, 32, 40, 48, 64, 71, 96, 112, 128]


def _t5():
    try:
        from transformers.models.t5.modeling_t5 import T5Attention
    except ImportError as error:
        not_run("transformers T5", "relative", str(error))
    return T5Attention._relative_position_bucket


@pytest.mark.parametrize(("num_buckets", "max_distance"), T5_CONFIGS)
@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_buckets(num_buckets, max_distance, bidirectional):
    bucket = _t5()
    exact = num_buckets // 4 if bidirectional else num_buckets // 2
    if exact < 1 or max_distance <= exact:
        _t5_refusal(bucket, num_buckets, max_distance, bidirectional)
        return
    rng = np.random.default_rng(num_buckets * 1000 + max_distance + bidirectional)
    offsets = np.concatenate(
        [np.arange(-3000, 3001), rng.integers(-(2**40), 2**40, 2000), [-(2**62), 2**62]]
    )
    real = bucket(
        torch.from_numpy(offsets),
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    ).numpy()
    ours = t5_bucket(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    same = np.array_equal(real, ours)
    record(
        library="transformers T5",
        version=version("transformers"),
        kind="relative",
        case=f"{'bidirectional' if bidirectional else 'causal'}, {num_buckets} buckets, "
        f"max_distance {max_distance}",
        convention="t5",
        compared=f"bucket of {offsets.size} offsets (-3000..3000 and random to 2**40)",
        dtype="int64",
        largest_difference=float(np.max(np.abs(real - ours))),
        verdict="bit-identical" if same else "differs",
    )
    assert same, f"first offset that differs: {offsets[real != ours][:5]}"


def _t5_refusal(bucket, num_buckets, max_distance, bidirectional):
    """posenc refuses a configuration with no exact bucket or no logarithmic range; the
    library then divides by zero, or returns buckets outside 0 .. num_buckets - 1."""
    offsets = np.arange(-300, 301)
    try:
        real = bucket(
            torch.from_numpy(offsets),
            bidirectional=bidirectional,
            num_buckets=num_buckets,
            max_distance=max_distance,
        ).numpy()
        failure = "buckets outside 0 .. num_buckets - 1"
        assert real.min() < 0 or real.max() >= num_buckets, "the library computes real buckets"
    except ZeroDivisionError as error:
        failure = f"ZeroDivisionError: {error}"
    with pytest.raises(ValueError, match=r"num_buckets|max_distance"):
        t5_bucket(
            offsets,
            bidirectional=bidirectional,
            num_buckets=num_buckets,
            max_distance=max_distance,
        )
    record(
        library="transformers T5",
        version=version("transformers"),
        kind="refusal",
        case=f"{'bidirectional' if bidirectional else 'causal'}, {num_buckets} buckets, "
        f"max_distance {max_distance}",
        convention="t5",
        compared=f"posenc refuses; the library: {failure}",
        dtype="int64",
        largest_difference=None,
        verdict="agrees",
    )


def _alibi(library: str, num_heads: int, length: int) -> np.ndarray:
    """The library's bias of the last query over all keys, (H, L), float32."""
    if library == "transformers BLOOM":
        from transformers.models.bloom.modeling_bloom import build_alibi_tensor

        mask = torch.ones(1, length, dtype=torch.long)
        return build_alibi_tensor(mask, num_heads, torch.float32)[:, 0, :].numpy()  # m_h j
    from transformers.models.mpt.modeling_mpt import build_mpt_alibi_tensor

    return build_mpt_alibi_tensor(num_heads, length)[:, 0, :].numpy()  # -m_h (L - 1 - j)


@pytest.mark.parametrize("library", ["transformers BLOOM", "transformers MPT"])
@pytest.mark.parametrize("num_heads", HEADS)
def test_alibi(library, num_heads):
    length = 257
    try:
        real = _alibi(library, num_heads, length).astype(np.float64)  # (H, L)
    except ImportError as error:
        not_run(library, "relative", str(error))
    slopes = alibi_slopes(num_heads)  # (H,)
    last = alibi_bias(length, num_heads)[:, -1, :]  # (H, L): -m_h (L - 1 - j)
    if library == "transformers BLOOM":
        ours = last + slopes[:, None] * (length - 1)  # m_h j: the same row, shifted
        real_slopes = real[:, 1]
        relative = (num_heads / 2 + 2) * EPS32
    else:
        ours = last
        real_slopes = -real[:, -2]
        relative = 5 * EPS32
    slope_error = np.abs(real_slopes - slopes) / slopes  # (H,)
    distance = np.abs(ours / slopes[:, None])  # (H, L): the integer distances
    bound = slopes[:, None] * distance * (relative + EPS32)  # (H, L)
    difference = np.abs(real - ours)
    within = bool(np.all(slope_error <= relative) and np.all(difference <= bound))
    record(
        library=library,
        version=version("transformers"),
        kind="relative",
        case=f"{num_heads} heads, {length} keys",
        convention="alibi",
        compared="head slopes and the last query's bias row",
        dtype="float32",
        largest_difference=float(difference.max()),
        verdict="bit-identical"
        if np.array_equal(real, ours)
        else ("within the float32 model" if within else "differs"),
        slope_eps=float(slope_error.max() / EPS32),
    )
    assert within, (
        f"{library}, {num_heads} heads: slope error {slope_error.max() / EPS32:.2f} eps "
        f"(bound {relative / EPS32:.2f}), bias difference {difference.max():.3g}"
    )
