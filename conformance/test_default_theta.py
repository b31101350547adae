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

import pytest
from _defaults import rebuilt, text_config, without
from _zoo_enumerate import err, zoo_families

from posenc.model_config import read_model


def _bases(config: dict) -> list[tuple]:
    reading = read_model(config)
    return [(k.name, k.layers, None if k.rope is None else k.rope.base) for k in reading.kinds]


@pytest.mark.parametrize("model_type", zoo_families())
def test_a_config_without_rope_theta_gets_the_class_default(model_type):
    try:
        text = text_config(model_type)
        stripped = without(text.to_dict(), "rope_theta")
        filled = rebuilt(type(text), stripped)
    except Exception as error:  # its own defaults do not build: nothing to compare
        pytest.skip(f"Transformers: {err(error)}")
    try:
        want = _bases(filled)
    except ValueError as error:  # posenc refuses the family, and says why
        pytest.skip(f"posenc: {err(error)}")
    assert _bases(stripped) == want
