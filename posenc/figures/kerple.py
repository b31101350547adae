"""Figures about KERPLE: distance kernels as attention biases (Proposition 20).

KERPLE adds ``k(m - n)`` to the score of query ``m`` and key ``n``, with a
conditionally positive definite kernel ``k``. Two families:

- power: ``k(d) = -r1 |d|**r2`` with ``r1 > 0`` and ``0 < r2 <= 2`` (ALiBi is
  ``r2 = 1``);
- log: ``k(d) = -r1 ln(1 + r2 |d|)`` with ``r1, r2 > 0``.

Reference: T.-C. Chi, T.-H. Fan, P. J. Ramadge, A. I. Rudnicky, "KERPLE:
Kernelized Relative Positional Embedding for Length Extrapolation", NeurIPS
2022, arXiv:2205.09921.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_kerple"]

#: The exponents r2 of the power kernels drawn, and the r2 of the log kernels.
POWERS = (0.5, 1.0, 1.5, 2.0)
LOGS = (0.5, 1.0, 2.0, 4.0)


def _power_kernel(distance: np.ndarray, r1: float, r2: float) -> np.ndarray:
    """-r1 |d|^r2, elementwise."""
    return -r1 * np.abs(distance) ** r2


def _log_kernel(distance: np.ndarray, r1: float, r2: float) -> np.ndarray:
    """-r1 ln(1 + r2 |d|), elementwise (log1p keeps small distances accurate)."""
    return -r1 * np.log1p(r2 * np.abs(distance))


def _check(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number from {low} to {high}, got {value!r}")
    if not low <= float(value) <= high:
        raise ValueError(f"{name} must be a number from {low} to {high}, got {value!r}")
    return float(value)


def _label(r2: float) -> str:
    return f"{r2:g}"


def fig_kerple(distance: int = 16, r1: float = 1.0) -> Figure:
    """KERPLE's power kernels for four exponents and its log kernels, against the distance.

    Left: the power kernel -r1 |m - n|^r2 for r2 = 0.5, 1, 1.5 and 2, for the
    distances 0 .. ``distance``; r2 = 1 (thick) is ALiBi's bias with slope r1.
    Right: the log kernel -r1 ln(1 + r2 |m - n|) for r2 = 0.5, 1, 2 and 4 on the
    same distances, with the power kernel r2 = 1 dashed for comparison. Every
    curve is 0 at distance 0 and falls; only a kernel's differences matter to
    softmax.
    """
    if isinstance(distance, bool) or not isinstance(distance, int) or not 1 <= distance <= 256:
        raise ValueError(f"distance must be an integer from 1 to 256, got {distance!r}")
    r1 = _check("r1", r1, 1e-3, 1e3)
    grid = np.linspace(0.0, float(distance), 8 * distance + 1)  # (8 D + 1,): smooth curves
    points = np.arange(distance + 1, dtype=np.float64)  # (D + 1,): the token distances

    fig = _figure(4.0)
    left, right = fig.subplots(1, 2, sharey=True)
    for colour, r2 in zip(_OKABE_ITO, POWERS, strict=False):
        left.plot(
            grid,
            _power_kernel(grid, r1, r2),
            color=colour,
            lw=2.4 if r2 == 1.0 else 1.4,
            gid=f"power-{_label(r2)}",
            label=rf"$r_2 = {_label(r2)}$" + (" (ALiBi)" if r2 == 1.0 else ""),
        )
        left.plot(
            points,
            _power_kernel(points, r1, r2),
            "o",
            color=colour,
            ms=2.4,
            gid=f"power-points-{_label(r2)}",
        )
    for colour, r2 in zip(_OKABE_ITO, LOGS, strict=False):
        right.plot(
            grid,
            _log_kernel(grid, r1, r2),
            color=colour,
            lw=1.6,
            gid=f"log-{_label(r2)}",
            label=rf"$r_2 = {_label(r2)}$",
        )
        right.plot(
            points,
            _log_kernel(points, r1, r2),
            "o",
            color=colour,
            ms=2.4,
            gid=f"log-points-{_label(r2)}",
        )
    right.plot(
        grid,
        _power_kernel(grid, r1, 1.0),
        color=_MUTED,
        lw=1.0,
        ls="--",
        gid="log-reference",
        label=r"power, $r_2 = 1$",
    )
    # The power kernel with r2 = 2 reaches -r1 D^2; show the range of the others.
    low = -r1 * distance * 1.15
    for axes, title in (
        (left, r"power: $-r_1\,|m - n|^{r_2}$"),
        (right, r"log: $-r_1 \ln(1 + r_2\,|m - n|)$"),
    ):
        axes.axhline(0.0, color=_MUTED, lw=0.6, ls=":")
        axes.set_xlim(0.0, float(distance))
        axes.set_ylim(low, r1 * distance * 0.05)
        axes.set_xlabel("distance |m \u2212 n|", fontsize=_FONT)
        axes.tick_params(labelsize=_SMALL)
        axes.set_title(title + rf", $r_1 = {r1:g}$", fontsize=_SMALL, color=_INK)
    # Each legend where its panel's curves leave room: below the flattest power kernel,
    # and under the log kernels.
    left.legend(fontsize=_SMALL, frameon=False, loc="upper right", bbox_to_anchor=(1.0, 0.74))
    right.legend(fontsize=_SMALL, frameon=False, loc="lower left")
    left.set_ylabel("bias added to the score", fontsize=_FONT)
    return fig
