"""Attention temperatures: factors on the queries or the logits that grow with position.

A model stretched past its training length, or one whose layers carry no position code,
may scale its attention logits up as the context grows, so that softmax stays as sharp
at position 100,000 as at 1,000. Three rules are shipped, in three places:

- **YaRN and LongRoPE** multiply the cos and sin caches by an attention factor ``a``
  (:func:`posenc.rope.inv_freq` returns it): every rotated logit is multiplied by ``a**2``,
  the same at every position.
- **Llama 4** scales the queries of its layers *without* rotary by
  ``1 + attn_scale * ln(floor((p + 1) / floor_scale) + 1)`` at position ``p``
  (:func:`llama4`): a step function, 1 before position ``floor_scale - 1``.
- **Ministral 3, Mistral 4** scale the queries of every layer by
  ``1 + beta * ln(1 + floor(p / L0))`` (:func:`llama4_beta`), ``beta`` the
  ``llama_4_scaling_beta`` of ``rope_parameters`` and ``L0`` its
  ``original_max_position_embeddings``.

- **DeepSeek-V2 and the MLA families after it** multiply the softmax scale by
  ``mscale(s, mscale_all_dim)**2``, ``mscale(s, m) = 0.1 m ln s + 1``
  (:func:`posenc.rope.yarn_mscale`), when the rotary is scaled: the same factor on every
  logit, rotated part and content part.

A factor on the queries multiplies each logit once; one on the cos and sin caches twice.

References
----------
- Transformers 5.24, ``models/llama4/modeling_llama4.py`` (``attn_temperature_tuning``),
  ``models/ministral3/modeling_ministral3.py`` (``get_llama_4_attn_scale``),
  ``models/deepseek_v3/modeling_deepseek_v3.py`` (``yarn_apply_mscale``).
- B. Peng et al., "YaRN", ICLR 2024, arXiv:2309.00071 (the factor ``0.1 ln s + 1``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from posenc import _validate

__all__ = ["Temperature", "llama4", "llama4_beta"]


def _positions(positions: ArrayLike) -> np.ndarray:
    p = _validate.real_array("positions", positions)
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p != np.floor(p)):
        raise ValueError("positions must be whole numbers >= 0")
    return p


def llama4(positions: ArrayLike, attn_scale: float = 0.1, floor_scale: int = 8192) -> np.ndarray:
    """Llama 4's query scale on its layers without rotary, at each position.

    ``1 + attn_scale * ln(floor((p + 1) / floor_scale) + 1)``: 1 for ``p + 1 <
    floor_scale``, then a step at each multiple of ``floor_scale`` (``p = k floor_scale -
    1``).

    Examples
    --------
    >>> [round(float(x), 4) for x in llama4([0, 8190, 8191, 16383])]
    [1.0, 1.0, 1.0693, 1.1099]
    """
    p = _positions(positions)
    scale = _validate.real("attn_scale", attn_scale)
    step = _validate.integer("floor_scale", floor_scale, minimum=1)
    return 1.0 + scale * np.log1p(np.floor((p + 1.0) / step))


def llama4_beta(positions: ArrayLike, beta: float, length: int) -> np.ndarray:
    """Ministral 3's and Mistral 4's query scale: ``1 + beta ln(1 + floor(p / L0))``.

    Examples
    --------
    >>> [round(float(x), 4) for x in llama4_beta([0, 16383, 16384], 0.1, 16384)]
    [1.0, 1.0, 1.0693]
    """
    p = _positions(positions)
    b = _validate.real("beta", beta)
    length = _validate.integer("length", length, minimum=1)
    return 1.0 + b * np.log1p(np.floor(p / length))


@dataclass(frozen=True)
class Temperature:
    """A temperature a kind of layer applies: its rule, where it applies, its parameters.

    ``rule`` is "cache" (YaRN's or LongRoPE's factor on the cos and sin caches, ``params``
    holding ``factor``), "softmax" (a factor on the softmax scale, ``params`` holding
    ``factor``, the one on the logits), "llama4" (``attn_scale``, ``floor_scale``) or
    "llama4_beta" (``beta``, ``length``); ``applied`` says where, in words.
    """

    rule: str
    applied: str
    params: dict[str, Any] = field(default_factory=dict)

    def on_logits(self, positions: ArrayLike) -> np.ndarray:
        """The factor on a rotated logit at each position (a cache factor counts twice)."""
        p = _positions(positions)
        if self.rule == "cache":
            return np.full(p.shape, float(self.params["factor"]) ** 2)
        if self.rule == "softmax":
            return np.full(p.shape, float(self.params["factor"]))
        if self.rule == "llama4":
            return llama4(p, self.params["attn_scale"], self.params["floor_scale"])
        if self.rule == "llama4_beta":
            return llama4_beta(p, self.params["beta"], self.params["length"])
        raise ValueError(f"unknown temperature rule {self.rule!r}")

    def words(self) -> str:
        """The rule in a few words, for a table."""
        if self.rule == "cache":
            a = float(self.params["factor"])
            return f"cos and sin times {a:.6g} (logits times {a * a:.6g})"
        if self.rule == "softmax":
            return f"times {float(self.params['factor']):.6g} (every logit)"
        if self.rule == "llama4":
            return (
                f"queries times 1 + {self.params['attn_scale']:g} ln(floor((p + 1) / "
                f"{self.params['floor_scale']}) + 1)"
            )
        return (
            f"queries times 1 + {self.params['beta']:g} ln(1 + floor(p / {self.params['length']}))"
        )
