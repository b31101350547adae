"""posenc: positional encodings in transformers, computed exactly and checked.

The sinusoidal code of Vaswani et al. (2017, section 3.5), its frequencies,
wavelengths and shift matrices; rotary embeddings (Su et al. 2021); the
similarity and distance profiles of the code; each major library's convention
(``posenc.conventions``) and floating-point formats (``posenc.precision``); and
the small NumPy attention pieces that the figures and numeric checks of the
posenc corpus use. The figures live in ``posenc.figures`` (imported on demand:
it needs matplotlib).
"""

from importlib.metadata import PackageNotFoundError, version

from posenc import conventions, precision, relative, rope
from posenc._validate import TooLargeError
from posenc.attention import (
    EncoderLayerParams,
    attention,
    causal_mask,
    encoder_layer,
    feed_forward,
    layer_norm,
    multi_head_attention,
    softmax,
)
from posenc.encoding import frequencies, shift_matrix, sinusoidal, wavelengths
from posenc.identify import identify, load_table
from posenc.precision import exact_integer_limit, to_bfloat16
from posenc.rotary import pairing_permutation, rotary, rotary_angles, rotary_matrix
from posenc.similarity import distance_profile, dot_profile, first_rise

try:
    __version__ = version("posenc")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "EncoderLayerParams",
    "TooLargeError",
    "attention",
    "causal_mask",
    "conventions",
    "distance_profile",
    "dot_profile",
    "encoder_layer",
    "exact_integer_limit",
    "feed_forward",
    "first_rise",
    "frequencies",
    "identify",
    "layer_norm",
    "load_table",
    "multi_head_attention",
    "pairing_permutation",
    "precision",
    "relative",
    "rope",
    "rotary",
    "rotary_angles",
    "rotary_matrix",
    "shift_matrix",
    "sinusoidal",
    "softmax",
    "to_bfloat16",
    "wavelengths",
]
