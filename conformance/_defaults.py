"""Keys left out of a family's default config: what ``tools/class_defaults.py`` and the
tests that strip keys (``test_class_defaults.py``, ``test_default_theta.py``) share.

A family's default text config, a copy of its saved dict without a key (wherever it is
nested), the dict its config class saves again after building itself from that copy (so
that Transformers fills the key in its own way), and posenc's reading of a dict, as the
record keeps it, without the path it was read from.
"""

from __future__ import annotations

import copy

from _zoo_compare import reading_record
from _zoo_enumerate import quiet

from posenc.model_config import read_model


def text_config(model_type: str):
    """The text config of a model type's default config (it raises if it cannot build)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    with quiet():
        return CONFIG_MAPPING[model_type]().get_text_config()


def without(value, key: str):
    """``value`` with ``key`` removed from every dict in it, at any depth."""
    if isinstance(value, dict):
        return {k: without(v, key) for k, v in value.items() if k != key}
    if isinstance(value, list):
        return [without(v, key) for v in value]
    return value


def holds(value, key: str) -> bool:
    """Whether some dict in ``value``, at any depth, has ``key``."""
    if isinstance(value, dict):
        return key in value or any(holds(v, key) for v in value.values())
    if isinstance(value, list):
        return any(holds(v, key) for v in value)
    return False


def rebuilt(cls, saved: dict) -> dict:
    """What config class ``cls``, built from ``saved``, saves again."""
    with quiet():
        return cls(**copy.deepcopy(saved)).to_dict()


def reading(config: dict) -> dict:
    """posenc's reading of ``config`` as the record keeps it, without its path."""
    record = reading_record(read_model(config))
    record.pop("path", None)
    return record
