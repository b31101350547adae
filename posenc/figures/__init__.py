"""Figures of the posenc corpus, drawn from the library's own numbers.

Each ``fig_<slug>`` is a pure function that returns a new
:class:`matplotlib.figure.Figure`. Nothing here uses pyplot, touches
``rcParams`` or writes a file: the site build renders the figure to SVG with
:func:`to_svg`, the same way for every figure. The first line of each docstring is the
figure's default alt text.

>>> fig = fig_shift_rotation(pair=0, width=8, pos=2, k=3)
>>> fig.get_size_inches().tolist(), fig.get_facecolor()
([7.0, 4.0], (1.0, 1.0, 1.0, 1.0))

Every figure has an opaque white background, so it reads the same on a light or
a dark page, and uses colour-blind-safe colours (ColorBrewer ``RdBu``; the
Okabe-Ito palette for categories).

References: Vaswani et al. 2017, *Attention Is All You Need*, section 3.5 (the
sinusoidal code); Okabe and Ito 2008, *Color Universal Design* (the palette).
"""

from __future__ import annotations

from ._svg import to_svg
from .alibi import fig_alibi
from .basebound import fig_base_bound
from .buckets import fig_t5_buckets
from .clocks import fig_clock_bank, fig_shift_rotation
from .conventions import fig_floating_point, fig_library_conventions
from .decay import fig_rope_decay
from .dynamic import fig_dynamic_ntk
from .extrapolation import fig_seen_arcs
from .indexer import fig_indexer_pairings
from .interpolation import fig_ntk_factors, fig_position_interpolation
from .kerple import fig_kerple
from .ladder import fig_ladder_rung_short, fig_position_signature, fig_similarity_offset
from .layers import fig_causal_mask_swap, fig_stack_equivariance
from .llama3 import fig_llama3_scaling
from .longrope import fig_longrope_switch
from .mixing import fig_score_terms
from .mla import fig_mla_cache
from .mrope import fig_mrope_sections
from .nope import fig_nope_counts
from .nopelayers import fig_nope_layers
from .order import fig_permutation_equivariance
from .pairings import fig_rope_pairings
from .proportional import fig_proportional_ladders
from .rotary import fig_rotary_score
from .shaw import fig_shaw_clipping
from .slow import fig_slow_pairs
from .temperatures import fig_temperatures
from .toy import fig_dog_bites_man
from .txl import fig_txl_terms
from .wavelength import fig_wavelength_ladder
from .window import fig_window_layers
from .yarn import fig_yarn_ramps

#: One module per idea; each lists its figures in its own ``__all__``.
MODULES = (
    "alibi",
    "basebound",
    "buckets",
    "clocks",
    "conventions",
    "decay",
    "dynamic",
    "extrapolation",
    "indexer",
    "interpolation",
    "kerple",
    "ladder",
    "layers",
    "llama3",
    "longrope",
    "mla",
    "mixing",
    "mrope",
    "nope",
    "nopelayers",
    "order",
    "pairings",
    "proportional",
    "rotary",
    "shaw",
    "slow",
    "temperatures",
    "toy",
    "txl",
    "wavelength",
    "window",
    "yarn",
)

__all__ = [
    "fig_alibi",
    "fig_base_bound",
    "fig_causal_mask_swap",
    "fig_clock_bank",
    "fig_dog_bites_man",
    "fig_dynamic_ntk",
    "fig_floating_point",
    "fig_indexer_pairings",
    "fig_kerple",
    "fig_ladder_rung_short",
    "fig_library_conventions",
    "fig_llama3_scaling",
    "fig_longrope_switch",
    "fig_mla_cache",
    "fig_mrope_sections",
    "fig_nope_counts",
    "fig_nope_layers",
    "fig_ntk_factors",
    "fig_permutation_equivariance",
    "fig_position_interpolation",
    "fig_position_signature",
    "fig_proportional_ladders",
    "fig_rope_decay",
    "fig_rope_pairings",
    "fig_rotary_score",
    "fig_score_terms",
    "fig_seen_arcs",
    "fig_shaw_clipping",
    "fig_shift_rotation",
    "fig_similarity_offset",
    "fig_slow_pairs",
    "fig_stack_equivariance",
    "fig_t5_buckets",
    "fig_temperatures",
    "fig_txl_terms",
    "fig_wavelength_ladder",
    "fig_window_layers",
    "fig_yarn_ramps",
    "to_svg",
]
