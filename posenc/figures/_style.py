"""Shared look of the posenc figures: size, fonts, colours, small drawing helpers."""

from __future__ import annotations

from matplotlib.figure import Figure

_WIDTH_IN = 7.0  # the site shows figures about 700 px wide
_FONT = 10.0  # points; close to the body text at that width
_SMALL = 8.5
_INK = "#222222"
_MUTED = "#6b6b6b"
_DIVERGING = "RdBu_r"  # ColorBrewer RdBu: colour-blind safe; red positive
_OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
_MINUS = "\u2212"


def _figure(height: float) -> Figure:
    """A blank figure with an opaque white background and constrained layout."""
    return Figure(figsize=(_WIDTH_IN, height), facecolor="white", layout="constrained")


def _number(value: float, digits: int = 2) -> str:
    """``value`` with a typographic minus sign, never "-0.00"."""
    text = f"{value + 0.0:.{digits}f}"
    if text.lstrip("-").strip("0.") == "":
        text = text.lstrip("-")
    return text.replace("-", _MINUS)
