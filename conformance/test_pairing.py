"""``posenc.identify_rope.identify_pairing`` on weights trained with the libraries' rotary code.

identify_pairing says from one layer's ``W_q`` and ``W_k`` whether the model pairs its
rotary coordinates by halves or in turn. Its evidence is statistical (see its
docstring), so it is judged here on weights that real training produced, with the
rotation the libraries themselves apply:

- **half**: Hugging Face Llama's ``apply_rotary_pos_emb`` (``rotate_half``), with the
  cosines and sines laid out as Llama's rotary embedding lays them out
  (``cat(freqs, freqs)``);
- **interleaved**: Meta's ``llama_models.llama3.model.apply_rotary_emb`` (a complex
  product of adjacent coordinates), with its own ``precompute_freqs_cis``.

Each model is one causal attention layer (16 heads of width 32 over a 64-wide
embedding of 64 tokens) trained from PyTorch's default initialisation with AdamW to
read the tokens 1, 2, 3, 4, 6 and 8 places back: a task that needs heads whose scores
depend on the offset. identify_pairing must name the pairing the model was trained
with, and the other one for the same weights with every head's rows reordered as the
conversion between the layouts reorders them. Untrained weights from the same
initialisation must not be named. Each answer is one case of kind "identify".
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import not_run, record, version

from posenc.identify_rope import identify_pairing
from posenc.rotary import pairing_permutation

VOCAB, HIDDEN, HEADS, HEAD_DIM, LENGTH, BATCH = 64, 64, 16, 32, 24, 32
OFFSETS = (1, 2, 3, 4, 6, 8)
BASE = 10000.0
STEPS = 400


def _rotation(pairing: str):
    """The library's rotation as f(q, k) on (batch, heads, positions, head_dim) tensors."""
    if pairing == "half":
        from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

        speeds = 1.0 / (BASE ** (torch.arange(0, HEAD_DIM, 2).float() / HEAD_DIM))
        angles = torch.outer(torch.arange(LENGTH).float(), speeds)  # (L, d/2)
        emb = torch.cat((angles, angles), dim=-1)[None]  # (1, L, d): Llama's layout
        cos, sin = emb.cos(), emb.sin()
        return lambda q, k: apply_rotary_pos_emb(q, k, cos, sin)
    try:
        from llama_models.llama3.model import apply_rotary_emb, precompute_freqs_cis
    except Exception as error:  # any failure to import means Meta's code cannot run here
        not_run("llama-models (Meta)", "identify", f"cannot import its model: {error}")
    cis = precompute_freqs_cis(HEAD_DIM, LENGTH, BASE)

    def meta(q, k):  # Meta's code takes (batch, positions, heads, head_dim)
        q_out, k_out = apply_rotary_emb(q.transpose(1, 2), k.transpose(1, 2), cis)
        return q_out.transpose(1, 2), k_out.transpose(1, 2)

    return meta


def _train(pairing: str, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """W_q and W_k (heads * head_dim, hidden) of a trained layer, and its last loss."""
    torch.manual_seed(seed)
    rotate = _rotation(pairing)
    embed = torch.nn.Embedding(VOCAB, HIDDEN)
    wq, wk, wv = (torch.nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False) for _ in range(3))
    readout = torch.nn.Linear(HEADS * HEAD_DIM, VOCAB * len(OFFSETS), bias=False)
    modules = (embed, wq, wk, wv, readout)
    optimiser = torch.optim.AdamW([p for m in modules for p in m.parameters()], lr=3e-3)
    causal = torch.ones(LENGTH, LENGTH, dtype=torch.bool).tril()
    first = max(OFFSETS)
    generator = torch.Generator().manual_seed(seed)
    loss = torch.tensor(float("nan"))
    for _ in range(STEPS):
        tokens = torch.randint(0, VOCAB, (BATCH, LENGTH), generator=generator)
        x = embed(tokens)  # (B, L, hidden)

        def heads(linear, x=x):
            return linear(x).view(BATCH, LENGTH, HEADS, HEAD_DIM).transpose(1, 2)

        q, k = rotate(heads(wq), heads(wk))  # (B, H, L, d) each
        scores = (q @ k.transpose(-1, -2)) / HEAD_DIM**0.5
        weights = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        out = (weights @ heads(wv)).transpose(1, 2).reshape(BATCH, LENGTH, -1)
        logits = readout(out).view(BATCH, LENGTH, len(OFFSETS), VOCAB)
        loss = sum(
            torch.nn.functional.cross_entropy(
                logits[:, first:, j].reshape(-1, VOCAB),
                tokens[:, first - offset : LENGTH - offset].reshape(-1),
            )
            for j, offset in enumerate(OFFSETS)
        ) / len(OFFSETS)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return wq.weight.detach().numpy(), wk.weight.detach().numpy(), float(loss.detach())


def _convert(w: np.ndarray, to: str) -> np.ndarray:
    """Every head's rows reordered into the other layout (posenc.rotary's permutation)."""
    perm = pairing_permutation(HEAD_DIM)  # half -> interleaved
    order = perm if to == "interleaved" else np.argsort(perm)
    return w.reshape(-1, HEAD_DIM, w.shape[1])[:, order].reshape(w.shape)


_LIBRARY = {"half": "transformers (Llama)", "interleaved": "llama-models (Meta)"}
_DISTRIBUTION = {"half": "transformers", "interleaved": "llama-models"}


def _record(pairing, case, expected, result, loss=None):
    right = result.pairing == expected
    record(
        library=_LIBRARY[pairing],
        version=version(_DISTRIBUTION[pairing]),
        kind="identify",
        case=case,
        convention=pairing,
        compared="identify_pairing's answer on W_q and W_k of one trained attention layer",
        dtype="float32",
        largest_difference=None,
        verdict="agrees" if right else "differs",
        expected=expected,
        found=result.pairing,
        p_value=dict(result.p_value),
        statistic={p: round(v, 4) for p, v in result.statistic.items()},
        **({} if loss is None else {"final_loss": round(loss, 3)}),
    )
    return right


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("pairing", ["half", "interleaved"])
def test_trained_layer_pairing_named(pairing, seed):
    wq, wk, loss = _train(pairing, seed)
    assert loss < 1.0, f"the layer did not learn the task (loss {loss:.3f}): nothing to judge"
    found = identify_pairing(wq, wk, HEAD_DIM)
    right = _record(pairing, f"trained with {pairing} pairing, seed {seed}", pairing, found, loss)
    other = "interleaved" if pairing == "half" else "half"
    moved = identify_pairing(_convert(wq, other), _convert(wk, other), HEAD_DIM)
    right_moved = _record(
        pairing,
        f"trained with {pairing} pairing, seed {seed}, rows converted to {other}",
        other,
        moved,
    )
    assert right, f"{pairing}, seed {seed}: identify_pairing said {found}"
    assert right_moved, f"{pairing} converted to {other}, seed {seed}: said {moved}"


def test_untrained_layer_not_named():
    torch.manual_seed(0)
    wq, wk = (torch.nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False).weight for _ in range(2))
    found = identify_pairing(wq.detach().numpy(), wk.detach().numpy(), HEAD_DIM)
    right = _record("half", "PyTorch's default initialisation, untrained", None, found)
    assert right, f"untrained weights were named {found.pairing}: {found}"
