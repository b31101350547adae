"""Scaled dot-product attention in NumPy, small enough to read in one sitting.

These are reference pieces for the figures and numeric checks of the corpus, not a
training library: float64 throughout, one sequence at a time, no batching.

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

References
----------
- A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, sections 3.2.1
  (scaled dot-product attention), 3.2.2 (multi-head attention) and 3.2.3 (masking in
  the decoder).
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.typing import ArrayLike

from posenc import _validate

__all__ = ["attention", "causal_mask", "multi_head_attention", "softmax"]


def softmax(x: ArrayLike, axis: int = -1) -> np.ndarray:
    """Softmax along ``axis``, stable for large inputs.

    The largest entry is subtracted before exponentiating, which leaves the result
    unchanged and keeps ``exp`` from overflowing. Entries equal to ``-inf`` get
    weight 0; each slice along ``axis`` needs a finite largest entry.

    Parameters
    ----------
    x : array_like
        Real scores.
    axis : int, optional
        The axis that sums to one.

    Returns
    -------
    numpy.ndarray
        float64, the shape of ``x``.

    Examples
    --------
    >>> print(softmax([0.0, np.log(3.0)]))
    [0.25 0.75]
    >>> print(softmax([1000.0, 1000.0, -np.inf]))
    [0.5 0.5 0. ]
    """
    x = np.asarray(x, dtype=np.float64)  # (..., n, ...)
    top = np.max(x, axis=axis, keepdims=True)  # (..., 1, ...)
    if not np.all(np.isfinite(top)):
        raise ValueError("softmax needs a finite largest entry in every slice along axis")
    e = np.exp(x - top)  # (..., n, ...)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    """The decoder mask: query ``i`` may attend to key ``j`` exactly when ``j <= i``.

    Parameters
    ----------
    n : int
        Sequence length, an integer ``>= 0``.

    Returns
    -------
    numpy.ndarray
        bool, shape ``(n, n)``, True where attention is allowed (lower triangle).

    Examples
    --------
    >>> print(causal_mask(3).astype(int))
    [[1 0 0]
     [1 1 0]
     [1 1 1]]
    """
    n = _validate.integer("n", n)
    return np.tril(np.ones((n, n), dtype=bool))  # (n, n)


def _matrix(name: str, value: ArrayLike, rows: int | None, shape: str) -> np.ndarray:
    """``value`` as a float64 matrix with ``rows`` rows (any, if None)."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim != 2 or (rows is not None and array.shape[0] != rows) or 0 in array.shape:
        raise ValueError(f"{name} must have shape {shape}, got {array.shape}")
    return array


def _mask(mask: ArrayLike | None, n: int) -> np.ndarray | None:
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.shape != (n, n) or mask.dtype != np.bool_:
        raise ValueError(
            f"mask must be a bool array of shape (n, n) = ({n}, {n}), "
            f"got {mask.dtype} {mask.shape}"
        )
    if not np.all(mask.any(axis=1)):
        raise ValueError("mask must allow every query at least one key (a True in each row)")
    return mask


def attention(
    X: ArrayLike,
    Wq: ArrayLike,
    Wk: ArrayLike,
    Wv: ArrayLike,
    mask: ArrayLike | None = None,
) -> np.ndarray:
    """One head of self-attention: ``softmax((X Wq)(X Wk)^T / sqrt(d_k)) (X Wv)``.

    Parameters
    ----------
    X : array_like
        Token vectors, one row per position, shape ``(n, d_model)``.
    Wq, Wk : array_like
        Query and key projections, shape ``(d_model, d_k)`` each.
    Wv : array_like
        Value projection, shape ``(d_model, d_v)``.
    mask : array_like of bool, optional
        Shape ``(n, n)``; where False, query ``i`` ignores key ``j`` (its score is set
        to ``-inf`` before the softmax). Every row needs at least one True.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n, d_v)``.

    Examples
    --------
    With identity projections and two orthogonal tokens, each token gives itself
    the weight ``e**s / (e**s + 1)`` with ``s = 4 / sqrt(2)``, about 0.944:

    >>> X = 2.0 * np.eye(2)
    >>> print(attention(X, np.eye(2), np.eye(2), np.eye(2)).round(4))
    [[1.8884 0.1116]
     [0.1116 1.8884]]
    """
    X = _matrix("X", X, None, "(n, d_model)")  # (n, d_model)
    n, d_model = X.shape
    Wq = _matrix("Wq", Wq, d_model, f"(d_model, d_k) with d_model = {d_model}")
    Wk = _matrix("Wk", Wk, d_model, f"(d_model, d_k) = {(d_model, Wq.shape[1])}")
    if Wk.shape != Wq.shape:
        raise ValueError(f"Wk must have shape (d_model, d_k) = {Wq.shape}, got {Wk.shape}")
    Wv = _matrix("Wv", Wv, d_model, f"(d_model, d_v) with d_model = {d_model}")
    mask = _mask(mask, n)
    q = X @ Wq  # (n, d_k)
    k = X @ Wk  # (n, d_k)
    v = X @ Wv  # (n, d_v)
    scores = q @ k.T / np.sqrt(q.shape[1])  # (n, n)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # (n, n)
    return softmax(scores, axis=-1) @ v  # (n, d_v)


def multi_head_attention(
    X: ArrayLike,
    Wq: ArrayLike,
    Wk: ArrayLike,
    Wv: ArrayLike,
    Wo: ArrayLike,
    *,
    heads: int,
    mask: ArrayLike | None = None,
) -> np.ndarray:
    """Multi-head self-attention: ``heads`` parallel heads, concatenated, times ``Wo``.

    Head ``h`` uses columns ``h*d_k .. (h+1)*d_k - 1`` of ``Wq``, ``Wk`` and ``Wv``,
    with ``d_k = d_model / heads``.

    Parameters
    ----------
    X : array_like
        Token vectors, shape ``(n, d_model)``.
    Wq, Wk, Wv, Wo : array_like
        Square projections, shape ``(d_model, d_model)`` each.
    heads : int
        Number of heads, a positive integer dividing ``d_model``.
    mask : array_like of bool, optional
        Shape ``(n, n)``, shared by all heads, as in :func:`attention`.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n, d_model)``.

    Examples
    --------
    One head with identity output projection is plain attention:

    >>> rng = np.random.default_rng(0)
    >>> X, Wq, Wk, Wv = rng.normal(size=(4, 4, 4))
    >>> one = multi_head_attention(X, Wq, Wk, Wv, np.eye(4), heads=1)
    >>> bool(np.allclose(one, attention(X, Wq, Wk, Wv)))
    True
    """
    X = _matrix("X", X, None, "(n, d_model)")  # (n, d_model)
    d_model = X.shape[1]
    if isinstance(heads, bool | np.bool_):
        raise TypeError(
            f"heads must be a positive integer dividing d_model = {d_model}, got {heads!r}"
        )
    try:
        heads = operator.index(heads)
    except TypeError:
        raise TypeError(
            f"heads must be a positive integer dividing d_model = {d_model}, got {heads!r}"
        ) from None
    if heads < 1 or d_model % heads:
        raise ValueError(
            f"heads must be a positive integer dividing d_model = {d_model}, got {heads}"
        )
    square = f"(d_model, d_model) = ({d_model}, {d_model})"
    weights = {}
    for name, value in (("Wq", Wq), ("Wk", Wk), ("Wv", Wv), ("Wo", Wo)):
        weights[name] = _matrix(name, value, d_model, square)  # (d_model, d_model)
        if weights[name].shape != (d_model, d_model):
            raise ValueError(f"{name} must have shape {square}, got {weights[name].shape}")
    d_k = d_model // heads
    outputs = []
    for h in range(heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        q, k, v = (weights[name][:, cols] for name in ("Wq", "Wk", "Wv"))  # (d_model, d_k)
        outputs.append(attention(X, q, k, v, mask))  # (n, d_k)
    return np.concatenate(outputs, axis=1) @ weights["Wo"]  # (n, d_model)
