"""The base posenc reads from a config that saves no ``rope_theta``, against Transformers.

A config.json written by hand, or by an old tool, may leave out ``rope_theta``.
Transformers then takes the config class's default: ``default_theta`` (10,000 unless the
class sets another; 80 of the zoo's classes do, some with one base for sliding-window
layers and one for the others), or a ``rope_theta`` field's default. posenc keeps these
in ``posenc.families`` (``default_theta``).

For every zoo family: its default config, as a dict, with every ``rope_theta`` removed
(at the top and in ``rope_parameters``), is read by posenc; the same dict given to the
config class and saved again (so that Transformers fills in the base its way) is read by
posenc too; the two readings must give every kind of layer the same base. A family whose
default config posenc does not read (it names the reason), or that Transformers cannot
build from its own defaults, is skipped with the reason.
"""

from __future__ import annotations

import copy

import pytest
from _zoo_enumerate import err, quiet, zoo_families

from posenc.model_config import read_model


def _without_theta(value):
    if isinstance(value, dict):
        return {k: _without_theta(v) for k, v in value.items() if k != "rope_theta"}
    if isinstance(value, list):
        return [_without_theta(v) for v in value]
    return value


def _bases(config: dict) -> list[tuple]:
    reading = read_model(config)
    return [(k.name, k.layers, None if k.rope is None else k.rope.base) for k in reading.kinds]


@pytest.mark.parametrize("model_type", zoo_families())
def test_a_config_without_rope_theta_gets_the_class_default(model_type):
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    try:
        with quiet():
            text = CONFIG_MAPPING[model_type]().get_text_config()
            stripped = _without_theta(text.to_dict())
            rebuilt = type(text)(**copy.deepcopy(stripped)).to_dict()
    except Exception as error:  # its own defaults do not build: nothing to compare
        pytest.skip(f"Transformers: {err(error)}")
    try:
        want = _bases(rebuilt)
    except ValueError as error:  # posenc refuses the family, and says why
        pytest.skip(f"posenc: {err(error)}")
    assert _bases(stripped) == want
