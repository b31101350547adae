"""posenc: positional encodings in transformers, computed exactly and checked.

The sinusoidal code of Vaswani et al. (2017, section 3.5), its frequencies,
wavelengths and shift matrices, and the small NumPy attention pieces that the
figures and numeric checks of the posenc corpus use.
"""

from importlib.metadata import PackageNotFoundError, version

from posenc.attention import attention, causal_mask, multi_head_attention, softmax
from posenc.encoding import frequencies, shift_matrix, sinusoidal, wavelengths

try:
    __version__ = version("posenc")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "attention",
    "causal_mask",
    "frequencies",
    "multi_head_attention",
    "shift_matrix",
    "sinusoidal",
    "softmax",
    "wavelengths",
]
