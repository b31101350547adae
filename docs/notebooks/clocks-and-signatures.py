# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exploring the clocks
#
# This notebook pokes at the sinusoidal code with `posenc`, the library that
# draws every figure on this site. It follows
# Proposition 5 (the bank of clocks) and Proposition 8 (a shift is a
# rotation), and then asks a practical question: how far apart are the codes
# of two positions, and which pairs tell them apart?
#
# Every number below is computed when the site is built, so it cannot drift
# from the library.

# %%
import numpy as np
from IPython.display import SVG

import posenc

np.set_printoptions(precision=6, suppress=True)

# %% [markdown]
# ## The speeds of the hands
#
# Pair $i$ of a code of width $d$ turns at $\omega_i = b^{-2i/d}$ radians per
# position. At width 16 the hands are:

# %%
width = 16
speeds = posenc.frequencies(width)
lengths = posenc.wavelengths(width)
for i, (w, lam) in enumerate(zip(speeds, lengths, strict=True)):
    print(f"pair {i}: speed {w:.6g} rad/position, one turn every {lam:,.1f} positions")

# %% [markdown]
# Each wavelength is the previous one times $b^{2/d}$, here $10000^{1/8}$:

# %%
print(lengths[1:] / lengths[:-1])
print(10000 ** (2 / width))

# %% [markdown]
# ## Every row has the same length
#
# Each pair is a point on the unit circle, so $\lVert \mathrm{PE}(pos) \rVert^2 = d/2$
# at every position, however large:

# %%
table = posenc.sinusoidal(5, width, start=10**6)
print((table**2).sum(axis=1))

# %% [markdown]
# ## A shift is one matrix
#
# Moving $k$ positions is the same rotation wherever you start. Here $k = 7$
# applied to rows 0 and 1000:

# %%
M = posenc.shift_matrix(7, width)
rows = posenc.sinusoidal(1010, width)
print(np.abs(M @ rows[0] - rows[7]).max(), np.abs(M @ rows[1000] - rows[1007]).max())

# %% [markdown]
# ## How far apart are two codes?
#
# The squared distance between the codes of positions $p$ and $q$ depends only
# on the offset $k = p - q$:
# $\lVert \mathrm{PE}(p) - \mathrm{PE}(q) \rVert^2 = \sum_i 2 - 2\cos(\omega_i k)$.
# Split the pairs of a width-128 code into a fast, a middle and a slow third
# and look at what each third contributes.

# %%
from matplotlib.figure import Figure

from posenc.figures import to_svg

width = 128
speeds = posenc.frequencies(width)
offsets = np.unique(np.logspace(0, 5, 400).astype(int))  # (K,)
angles = offsets[:, None] * speeds[None, :]  # (K, d/2)
per_pair = 2 - 2 * np.cos(angles)  # (K, d/2): squared distance, pair by pair
thirds = np.array_split(np.arange(width // 2), 3)

fig = Figure(figsize=(7, 3.4), facecolor="white", layout="constrained")
ax = fig.add_subplot()
for name, pairs in zip(("fast pairs", "middle pairs", "slow pairs"), thirds, strict=True):
    ax.plot(offsets, np.sqrt(per_pair[:, pairs].sum(axis=1)), label=name)
ax.set_xscale("log")
ax.set_xlabel("offset k (positions)")
ax.set_ylabel("distance between codes")
ax.legend(frameon=False)
# As SVG, with a title that becomes its alt text on the site.
SVG(to_svg(fig, title="Distance between codes k apart, by third of the pairs"))

# %% [markdown]
# Once a pair has turned far enough, it adds $2$ to the squared distance on
# average, so each third settles around the square root of twice its number of
# pairs (Proposition 7). The cell below prints, for each third, the first
# offset of the plot at which its distance passes half of that level.

# %%
for name, pairs in zip(("fast", "middle", "slow"), thirds, strict=True):
    half = np.sqrt(2 * len(pairs)) / 2  # half of the level sqrt(2 * number of pairs)
    reached = offsets[np.sqrt(per_pair[:, pairs].sum(axis=1)) > half][0]
    span = f"pairs {pairs[0]}-{pairs[-1]}"
    print(f"{name} third, {span}: first above {half:.2f} at offset {reached:,}")

# %% [markdown]
# The fast third gets there at once: it separates neighbours, and beyond that
# it only oscillates around its level. The slow third gets there last; it is
# what separates distant regions. Read together, no two positions share a code
# (Proposition 7's subject).
#
# ## The nearest pair of positions
#
# Among the positions $0, \dots, n - 1$ of a sequence of $n$ tokens, which two
# codes are closest? For a width-128 code and $n = 2000$:

# %%
codes = posenc.sinusoidal(2000, 128)  # (2000, 128)
gram = codes @ codes.T  # (2000, 2000)
squared = np.add.outer((codes**2).sum(1), (codes**2).sum(1)) - 2 * gram
np.fill_diagonal(squared, np.inf)
p, q = np.unravel_index(np.argmin(squared), squared.shape)
print(
    f"closest pair: positions {min(p, q)} and {max(p, q)}, distance {np.sqrt(squared[p, q]):.4f}"
)
