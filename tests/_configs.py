"""The real configs under data/configs that the tests share."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "data" / "configs").glob("*.json"))

#: The configs whose speeds alone name their scheme again: one rotary ladder of the six
#: schemes identify_inv_freq fits, the ones the notebook "Which scaling does my model
#: use?" reads. The configs of 2025-2026 models (proportional rotary, layers without
#: rotary, Llama 4's step, YaRN untruncated) are read layer by layer in
#: tests/test_model_config.py.
ONE_LADDER_NAMES = frozenset(
    {
        "code-llama-7b", "deepseek-v3", "gemma-3-4b-rope-parameters", "gpt-neox-20b",
        "llama-2-7b-dynamic-2", "llama-2-7b-linear-4", "llama-2-7b",
        "llama-3.1-8b-rope-parameters", "llama-3.1-8b", "llama-3.2-1b",
        "phi-3-mini-128k-shape", "qwen2.5-7b-yarn-4",
    }
)  # fmt: skip
ONE_LADDER = [path for path in CONFIGS if path.stem in ONE_LADDER_NAMES]
