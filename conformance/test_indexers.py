"""posenc's record of the sparse-attention indexers against the pinned Transformers.

posenc records, per family, the pairing of the indexer's own rotary call
(``Family.indexer``: "half", "interleaved", or "none" for an indexer that makes no rotary
call). The zoo run measures the indexer calls it traces (record.json, "also"); this test
makes sure no indexer family is left out of posenc's record:

- **Which families.** The folders of the library whose modeling file defines a
  ``class ...Indexer(`` are exactly the modules of the model types posenc gives an
  indexer record. A new indexer family fails here instead of passing unseen.
- **Whether it rotates.** posenc's "none" is given exactly where the class's code
  (comments left out) calls no rotary function.
- **Which pairing.** The one rotary function each other indexer class calls, taken from
  its module: the query ``e_0`` turned a quarter turn (cos 0, sin 1) against each key
  ``e_b`` not turned (cos 1, sin 0), width 8, scores nonzero only at ``e_0``'s partner,
  4 for the split-half pairing and 1 for the adjacent one, which must be posenc's.
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest
import torch
from _zoo_enumerate import module_name, package_dir, transformers

from posenc.families import FAMILIES

CLASS = re.compile(r"^class (\w+Indexer)\(", re.M)
CALLS = re.compile(r"\b(apply_rotary\w*)\(")
WIDTH = 8


def _indexer_classes() -> dict[str, tuple[str, str]]:
    """Folder -> (class name, class source without comments), for every Indexer class."""
    transformers()
    found = {}
    for path in sorted((package_dir() / "models").glob("*/modeling_*.py")):
        text = path.read_text(encoding="utf-8")
        for match in CLASS.finditer(text):
            rest = text[match.end() :]
            end = re.search(r"^\S", rest[rest.index("\n") + 1 :], re.M)
            end = end and rest.index("\n") + 1 + end.start()
            body = rest[:end] if end else rest
            body = "\n".join(line.split("#", 1)[0] for line in body.splitlines())
            assert path.parent.name not in found, f"two indexer classes in {path.parent.name}"
            found[path.parent.name] = (match.group(1), body)
    return found


def _recorded() -> dict[str, set[str]]:
    """Module folder -> posenc's indexer records of its model types."""
    out: dict[str, set[str]] = {}
    for model_type, fam in FAMILIES.items():
        if fam.indexer is not None:
            out.setdefault(module_name(model_type), set()).add(fam.indexer)
    return out


def test_every_indexer_class_has_a_posenc_record_and_the_reverse():
    classes = _indexer_classes()
    assert len(classes) >= 11, f"the scan found only {sorted(classes)}"
    assert set(classes) == set(_recorded())


def test_each_family_has_one_indexer_record():
    assert {m: len(v) for m, v in _recorded().items() if len(v) != 1} == {}


@pytest.mark.parametrize("folder", sorted(_recorded()))
def test_the_recorded_indexer_pairing_is_the_code_one(folder):
    (recorded,) = _recorded()[folder]
    name, body = _indexer_classes()[folder]
    calls = sorted(set(CALLS.findall(body)))
    if recorded == "none":
        assert calls == [] and "rotary" not in body.lower(), (name, calls)
        return
    assert len(calls) == 1, (name, calls)
    module = importlib.import_module(f"transformers.models.{folder}.modeling_{folder}")
    apply = getattr(module, calls[0])
    unit = torch.eye(WIDTH).reshape(WIDTH, 1, 1, 1, WIDTH)
    q = _turned(apply, unit[0], 0.0, 1.0)
    scores = [float((q * _turned(apply, unit[b], 1.0, 0.0)).sum()) for b in range(WIDTH)]
    partner = max(range(WIDTH), key=lambda b: abs(scores[b]))
    assert {WIDTH // 2: "half", 1: "interleaved"}.get(partner) == recorded, (name, scores)


def _turned(apply, x, cos: float, sin: float) -> torch.Tensor:
    """``x`` turned by the rotary function with every pair's cos and sin as given: the
    function's own layout of the output, the same for the query and the key.

    The functions take (q, k, cos, sin) or (x, cos, sin) (DeepSeek-V4's), and cos and
    sin of the full width or of one entry per pair (DeepSeek-V4's, repeated inside).
    """
    params = list(inspect.signature(apply).parameters)
    errors = []
    for width in (WIDTH, WIDTH // 2):
        c, s = torch.full((1, 1, width), cos), torch.full((1, 1, width), sin)
        try:
            out = apply(x, x.clone(), c, s) if params[1] == "k" else apply(x, c, s)
        except (RuntimeError, TypeError, IndexError) as error:
            errors.append(error)
            continue
        out = out[0] if isinstance(out, tuple) else out
        if out.shape == x.shape:
            return out
    raise AssertionError(f"{apply.__name__}: {errors}")


#: The norms each indexer class builds, as Proposition 37 names them for the families its
#: fix covers: a LayerNorm (on the key; Mistral-Large-4's second one on the token before
#: W_q), or RMSNorms (on the key and on each query head). The kind is the constructed
#: class's name ending.
NORMS = {
    "axk2": {"LayerNorm"},
    "deepseek_v32": {"LayerNorm"},
    "dots3_note": {"LayerNorm"},
    "glm_moe_dsa": {"LayerNorm"},
    "mistral_large4": {"LayerNorm"},
    "minimax_m3_vl": {"RMSNorm"},
    "qwen4_exp": {"RMSNorm"},
}


@pytest.mark.parametrize("folder", sorted(NORMS))
def test_the_norms_of_the_indexers_the_fix_covers(folder):
    name, body = _indexer_classes()[folder]
    built = re.findall(r"=\s*(?:nn\.)?(\w*(?:LayerNorm|RMSNorm))\(", body)
    kinds = {"LayerNorm" if b.endswith("LayerNorm") else "RMSNorm" for b in built}
    assert built and kinds == NORMS[folder], (name, built)
    if NORMS[folder] == {"RMSNorm"}:
        assert len(built) == 2, (name, built)  # the key's and the query heads'
