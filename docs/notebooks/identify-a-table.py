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
# # Which convention made this table?
#
# You have a positional table from some framework, or from your own code, and
# you want to know whether it is the paper's formula, and if not, which
# library's. `posenc identify` answers that. This notebook shows how, on
# tables made the way real code makes them.
#
# The same check runs from the shell:
#
# ```text
# posenc identify my_table.npy
# ```

# %%
import tempfile
from pathlib import Path

import numpy as np

import posenc
from posenc.identify import identify, load_table

np.set_printoptions(precision=6, suppress=True)
scratch = Path(tempfile.mkdtemp())

# %% [markdown]
# ## A table written the tutorial way
#
# Many codebases compute the table as the PyTorch tutorial does: frequencies
# through $\exp(-\ln(10000)\, 2i/d)$, and everything in float32. Here is that
# computation written out in NumPy, saved to a file as a framework would save
# a buffer.

# %%
length, width = 512, 64
position = np.arange(length, dtype=np.float32)[:, None]  # (L, 1)
div_term = np.exp(
    np.arange(0, width, 2, dtype=np.float32) * np.float32(-np.log(10000.0) / width)
)  # (d/2,)
table = np.zeros((length, width), dtype=np.float32)  # (L, d)
table[:, 0::2] = np.sin(position * div_term)
table[:, 1::2] = np.cos(position * div_term)
np.save(scratch / "framework_table.npy", table)

# %%
found = identify(load_table(scratch / "framework_table.npy"))
print(found.explanation)

# %% [markdown]
# The verdict names the convention, the base and the first position, then
# the **error model** the table fits: a float32 table whose angles were
# computed in float32 may drift from the formula by an amount that grows like
# position times ulp, while a table rounded once stays within half an ulp. Last
# comes the **precision path**: how close posenc's emulation of the library's
# own float32 steps comes, bit-identical here because this table was made with
# NumPy, as posenc's emulation is.

# %%
print("error model:", found.model, f"(uses {found.fit:.0%} of its bound)")
print("closest emulation:", found.emulation.call, "identical:", found.emulation.identical)

# %% [markdown]
# ## A slice from the middle, stored in half precision
#
# Tables are often saved cut: a window of rows far from the start, or cast to
# float16 to save space. The first position is then unknown, and each value
# keeps only the few significant digits of float16 (printed first below).
# Several conventions then give the same numbers, to float16 precision, so the
# answer names them all: fairseq's formula is tensor2tensor's with another
# first position, and Marian's, with a larger base, is the same ladder of
# wavelengths in the same layout (Proposition 13).

# %%
print("float16 keeps", np.finfo(np.float16).precision, "significant decimal digits")
window = posenc.conventions.table("fairseq", 200, 32, start=12_345).astype(np.float16)  # (200, 32)
found = identify(window)
print(found.convention, found.base, found.start, f"residual {found.residual:.2e}")
print("computes the same numbers:", ", ".join(found.equivalent))

# %% [markdown]
# ## A table with a classic mistake
#
# Using the column index $j$ in the exponent, instead of the pair index
# $\lfloor j/2 \rfloor$, gives the sine and the cosine of a pair different
# speeds. No library does that, so nothing should match:

# %%
pos = np.arange(100)[:, None]  # (L, 1)
j = np.arange(16)[None, :]  # (1, d)
angles = pos / 10000 ** (j / 16)  # (L, d): the exponent should use 2 * (j // 2)
wrong = np.where(j % 2 == 0, np.sin(angles), np.cos(angles))  # (L, d)
found = identify(wrong)
print("matched:", found.matched)
print(found.explanation)

# %% [markdown]
# ## How far is a float32 table from the true values?
#
# Knowing the convention is half of the story. The other half is precision.
# The tutorial's float32 angles lose accuracy as positions grow (Proposition
# 14); `path="emulated"` follows its float32 steps in NumPy (by default a
# convention's table is its formula rounded once). `posenc.sinusoidal` in
# float32 rounds each entry once; Proposition 14
# checks that it stays within one float32 ulp of the true values at the
# positions it samples. The cell prints both errors, measured against the
# float64 table, the second in float32 ulps:

# %%
for start in (0, 10_000, 1_000_000):
    tutorial = posenc.conventions.table(
        "pytorch-tutorial", 64, 512, start=start, path="emulated"
    )  # (64, 512): the tutorial's float32 steps, in NumPy
    ours = posenc.sinusoidal(64, 512, start=start, dtype=np.float32)  # (64, 512)
    exact = posenc.sinusoidal(64, 512, start=start)  # (64, 512), float64
    ulp = np.spacing(np.abs(exact).astype(np.float32))  # (64, 512): one float32 ulp per entry
    print(
        f"positions from {start:>9,}: tutorial {np.abs(tutorial - exact).max():.2e}, "
        f"posenc float32 {(np.abs(ours - exact) / ulp).max():.2f} ulp"
    )
