"""posenc.identify_rope.identify_pairing: which pairing one layer's W_q and W_k are in.

The weights here are drawn from a stated model of trained rotary weights, not from
posenc: every head gives pair i an energy E_i that depends on the pair (so on its speed:
a fixed lognormal profile, the same in every head), and splits it between the pair's two
coordinates by an angle of its own, uniformly at random (the quarter-turn symmetry of a
pair's plane makes every split equally likely).
The rows are then laid out in the pairing under test, by index arithmetic written here.
Weights of tiny models trained with the real libraries' rotary code (Hugging Face's
rotate_half, Meta's interleaved code) are judged in conformance/test_pairing.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from posenc.identify_rope import PAIRING_ALPHA, identify_pairing, pairing_pairs

HIDDEN = 96


def _energy(pairs: int, spread: float = 1.0) -> np.ndarray:
    """Each pair's energy: lognormal, drawn once (seed 0), shared by every head."""
    return np.exp(spread * np.random.default_rng(0).standard_normal(pairs))


def _smooth(pairs: int) -> np.ndarray:
    """A profile that changes little from one pair to the next: a slow fall and a bump."""
    i = np.arange(pairs)
    return np.exp(-i / (pairs / 3)) + 0.5 * np.exp(-(((i - 0.7 * pairs) / 4) ** 2))


def _coordinates(rotary_dim: int, pairing: str) -> tuple[np.ndarray, np.ndarray]:
    """Row of the first and of the second coordinate of each pair, by the layout's rule."""
    i = np.arange(rotary_dim // 2)
    if pairing == "half":
        return i, i + rotary_dim // 2
    return 2 * i, 2 * i + 1


def _weights(heads, head_dim, pairing, *, rng, energy=None, rotary_dim=None, extra=1.0):
    """(heads * head_dim, HIDDEN) weights of the stated model, laid out in ``pairing``."""
    r = head_dim if rotary_dim is None else rotary_dim
    e = _energy(r // 2) if energy is None else energy
    first, second = _coordinates(r, pairing)
    w = np.empty((heads, head_dim, HIDDEN))
    for h in range(heads):
        split = rng.uniform(0, 2 * np.pi, size=r // 2)  # (r/2,): the head's own split
        directions = rng.standard_normal((r, HIDDEN)) / np.sqrt(HIDDEN)  # (r, hidden)
        w[h, first] = (np.sqrt(e) * np.cos(split))[:, None] * directions[: r // 2]
        w[h, second] = (np.sqrt(e) * np.sin(split))[:, None] * directions[r // 2 :]
        w[h, r:] = extra * rng.standard_normal((head_dim - r, HIDDEN))  # not rotated
    return w.reshape(heads * head_dim, HIDDEN)


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
@pytest.mark.parametrize("seed", range(4))
def test_the_pairing_is_named(pairing, seed):
    rng = np.random.default_rng(seed)
    wq = _weights(32, 64, pairing, rng=rng)
    wk = _weights(8, 64, pairing, rng=rng)  # grouped attention: 4 query heads per key head
    result = identify_pairing(wq, wk, 64)
    assert result.pairing == pairing, result
    assert (result.heads, result.kv_heads, result.rotary_dim) == (32, 8, 64)
    other = "interleaved" if pairing == "half" else "half"
    assert result.p_value[other] < PAIRING_ALPHA <= result.p_value[pairing]
    assert result.statistic[other] > result.statistic[pairing]


def test_converting_the_layout_turns_the_answer():
    """Meta's interleaved rows, reordered as Hugging Face's conversion does, read as half."""
    rng = np.random.default_rng(7)
    heads, d = 16, 128
    wq, wk = (_weights(heads, d, "interleaved", rng=rng) for _ in range(2))
    assert identify_pairing(wq, wk, d).pairing == "interleaved"
    # Per head: even rows first, then odd rows (the inverse of posenc's pairing_permutation).
    order = np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])
    converted = [w.reshape(heads, d, -1)[:, order].reshape(heads * d, -1) for w in (wq, wk)]
    assert identify_pairing(*converted, d).pairing == "half"


def test_untrained_weights_are_not_named():
    """I.i.d. weights: the two coordinates of any grouping are interchangeable."""
    rng = np.random.default_rng(3)
    wq, wk = rng.standard_normal((32 * 64, HIDDEN)), rng.standard_normal((8 * 64, HIDDEN))
    result = identify_pairing(wq, wk, 64)
    assert result.pairing is None
    assert min(result.p_value.values()) >= PAIRING_ALPHA, result.p_value
    assert any("neither pairing is rejected" in note for note in result.notes)


def test_the_level_holds_for_the_right_pairing():
    """Under the right pairing the test rejects at about its level, not more: over 200
    seeded layers of the stated model, the right pairing's p-value falls below 0.05 in
    about 5 % of them (a binomial count, 3 standard deviations allowed)."""
    rng = np.random.default_rng(12)
    p_values = [
        identify_pairing(
            _weights(8, 32, "half", rng=rng), _weights(8, 32, "half", rng=rng), 32, draws=999
        ).p_value["half"]
        for _ in range(200)
    ]
    below = sum(p < 0.05 for p in p_values)
    assert abs(below - 10) <= 3 * (200 * 0.05 * 0.95) ** 0.5, below


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
def test_a_smooth_profile_is_never_named_wrongly(pairing):
    """Even when neighbouring pairs carry nearly the same energy, the wrong pairing is not
    the one named."""
    for seed in range(4):
        rng = np.random.default_rng(seed)
        wq, wk = (_weights(32, 64, pairing, rng=rng, energy=_smooth(32)) for _ in range(2))
        assert identify_pairing(wq, wk, 64).pairing in (None, pairing)


def test_both_rejected_is_not_named():
    """Coordinates that no pairing makes interchangeable: energies rising with the row."""
    e = np.arange(1.0, 17.0)  # e_j = j + 1: every partner has less energy than the other
    w = np.tile(np.sqrt(e)[:, None] * np.eye(16), (8, 1))  # 8 heads, the same in each
    result = identify_pairing(w, w, 16)
    assert result.pairing is None
    assert max(result.p_value.values()) < PAIRING_ALPHA
    assert any("both pairings are rejected" in note for note in result.notes)


def test_one_group_of_heads_cannot_tell():
    """With one key head, every sign flip gives the observed statistic: p = 1."""
    rng = np.random.default_rng(11)
    wq, wk = _weights(8, 64, "half", rng=rng), _weights(1, 64, "half", rng=rng)
    result = identify_pairing(wq, wk, 64)
    assert result.pairing is None and result.p_value == {"half": 1.0, "interleaved": 1.0}
    assert any("single group of heads" in note for note in result.notes)


def test_partial_rotary_reads_only_the_rotated_coordinates():
    rng = np.random.default_rng(2)
    wq, wk = (_weights(32, 80, "half", rng=rng, rotary_dim=32, extra=10.0) for _ in range(2))
    assert identify_pairing(wq, wk, 80, rotary_dim=32).pairing == "half"
    # Read as fully rotary, the loud unrotated coordinates spoil the half pairs.
    assert identify_pairing(wq, wk, 80).pairing != "half"


def test_the_keras_and_jax_layout_is_read_transposed():
    rng = np.random.default_rng(4)
    wq, wk = (_weights(24, 64, "interleaved", rng=rng) for _ in range(2))
    result = identify_pairing(wq.T, wk.T, 64)
    assert result.pairing == "interleaved"
    assert any("transposed" in note for note in result.notes)


def test_pairs_by_name():
    assert pairing_pairs(8, "half").tolist() == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert pairing_pairs(8, "interleaved").tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    with pytest.raises(ValueError, match="pairing"):
        pairing_pairs(8, "adjacent")


@pytest.mark.parametrize(
    ("wq", "wk", "head_dim", "kwargs", "message"),
    [
        (np.ones((64, 8)), np.ones((64, 8)), 7, {}, "head_dim must be an even"),
        (np.ones((64, 8)), np.ones((64, 8)), 16, {"rotary_dim": 18}, "rotary_dim"),
        (np.ones((64, 8)), np.ones((64, 8)), 16, {"alpha": 1.0}, "alpha"),
        (np.ones((64, 8)), np.ones((64, 8)), 16, {"draws": 10}, "draws"),
        (np.ones((4, 16, 8)), np.ones((64, 8)), 16, {}, "must be a matrix"),
        (np.full((64, 8), np.nan), np.ones((64, 8)), 16, {}, "NaN"),
        (np.ones((64, 8)), np.ones((64, 9)), 16, {}, "same hidden size"),
        (np.ones((48, 8)), np.ones((32, 8)), 16, {}, "evenly"),
        (np.ones((60, 7)), np.ones((60, 7)), 16, {}, "multiple of head_dim"),
        (np.zeros((64, 8)), np.ones((64, 8)), 16, {}, "row of zeros"),
        (np.array([["a"] * 8] * 64), np.ones((64, 8)), 16, {}, "real numbers"),
    ],
)
def test_bad_input_refused(wq, wk, head_dim, kwargs, message):
    with pytest.raises(ValueError, match=message):
        identify_pairing(wq, wk, head_dim, **kwargs)


def test_cli_weights(tmp_path, capsys):
    from posenc.cli import main

    rng = np.random.default_rng(9)
    wq, wk = (_weights(32, 64, "half", rng=rng).astype(np.float32) for _ in range(2))
    np.savez(tmp_path / "layer.npz", **{"q_proj.weight": wq, "k_proj.weight": wk})
    args = ["identify", str(tmp_path / "layer.npz"), "--rope", "weights", "--head-dim", "64"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "pairing: half" in out and "32 query and 32 key heads of width 64" in out
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["pairing"], data["query"], data["key"]) == (
        "half",
        "q_proj.weight",
        "k_proj.weight",
    )
    # Other names, given with --key; untrained weights: exit 1, and the reason.
    np.savez(
        tmp_path / "other.npz", a=rng.standard_normal((256, 32)), b=rng.standard_normal((256, 32))
    )
    other = ["identify", str(tmp_path / "other.npz"), "--rope", "weights", "--head-dim", "64"]
    assert main([*other, "--key", "a,b"]) == 1
    out = capsys.readouterr().out
    assert "not identified" in out and "neither pairing is rejected" in out
    # Names not found, a bad --key, no --head-dim: exit 2 with a one-line reason.
    assert main(other) == 2
    assert "--key Q,K" in capsys.readouterr().err
    assert main([*other, "--key", "a"]) == 2
    assert "two arrays" in capsys.readouterr().err
    assert main(["identify", str(tmp_path / "layer.npz"), "--rope", "weights"]) == 2
    assert "--head-dim" in capsys.readouterr().err
