"""Scaled dot-product attention in NumPy, small enough to read in one sitting.

These are reference pieces for the figures and numeric checks of the corpus, not a
training library: float64 throughout, one sequence at a time, no batching.

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V
    FFN(x)             = act(x W1 + b1) W2 + b2                  (each row alone)
    LayerNorm(x)       = (x - mean(x)) / sqrt(var(x) + eps) * g + b   (each row alone)
    EncoderLayer(X)    = LN2(H + FFN(H)),  H = LN1(X + MHA(X))   (post-norm)

References
----------
- A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, sections 3.1 (the
  encoder layer: residual connection, then layer normalisation), 3.2.1 (scaled
  dot-product attention), 3.2.2 (multi-head attention), 3.2.3 (masking in the
  decoder) and 3.3 (position-wise feed-forward networks).
- J. L. Ba, J. R. Kiros, G. E. Hinton, "Layer Normalization", arXiv:1607.06450, 2016.
- D. Hendrycks, K. Gimpel, "Gaussian Error Linear Units (GELUs)", arXiv:1606.08415,
  2016.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Mapping
from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import ArrayLike

from posenc import _validate

__all__ = [
    "EncoderLayerParams",
    "attention",
    "causal_mask",
    "encoder_layer",
    "feed_forward",
    "layer_norm",
    "multi_head_attention",
    "softmax",
]


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
    x = _validate.real_array("x", x)  # (..., n, ...)
    if _validate._is_bool(axis) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis must be an integer, got {type(axis).__name__} {axis!r}")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis must be in {-x.ndim}..{x.ndim - 1} for x of shape {x.shape}")
    if x.shape[axis] == 0:
        raise ValueError(f"x must have at least one entry along axis {axis}, got {x.shape}")
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
    _validate.memory(f"n={n}", 3 * n * n)  # the ones and their lower triangle
    return np.tril(np.ones((n, n), dtype=bool))  # (n, n)


def _matrix(name: str, value: ArrayLike, rows: int | None, shape: str) -> np.ndarray:
    """``value`` as a float64 matrix with ``rows`` rows (any, if None)."""
    array = _validate.real_array(name, value)
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
    # q, k, v; then the scores, their exponentials and weights (n, n), three at a time.
    needed = 8 * n * (2 * Wq.shape[1] + Wv.shape[1]) + 32 * n * n
    _validate.memory(f"X of shape {X.shape}", needed)
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


# --------------------------------------------------------------------------------------
# Position-wise pieces: the same map applied to every row on its own.

_ACTIVATIONS = ("relu", "gelu")


def _vector(name: str, value: ArrayLike | None, size: int, fill: float) -> np.ndarray:
    """``value`` as a float64 vector of length ``size``; ``None`` means all ``fill``."""
    if value is None:
        return np.full(size, fill)  # (size,)
    array = _validate.real_array(name, value)
    if array.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), got {array.shape}")
    return array


def _activate(h: np.ndarray, activation: str) -> np.ndarray:
    if activation == "relu":
        return np.maximum(h, 0.0)  # max(0, h), entry by entry
    if activation == "gelu":
        # h * Phi(h), Phi the standard normal distribution function (the exact GELU)
        erf = np.frompyfunc(math.erf, 1, 1)(h / math.sqrt(2.0)).astype(np.float64)
        return 0.5 * h * (1.0 + erf)
    raise ValueError(f"activation must be one of {', '.join(_ACTIVATIONS)}, got {activation!r}")


def feed_forward(
    X: ArrayLike,
    W1: ArrayLike,
    b1: ArrayLike,
    W2: ArrayLike,
    b2: ArrayLike,
    activation: str = "relu",
) -> np.ndarray:
    """The position-wise feed-forward network: ``act(x W1 + b1) W2 + b2`` for each row x.

    Every row goes through the same two affine maps with the nonlinearity between
    them; no row sees another (Vaswani et al. 2017, section 3.3).

    Parameters
    ----------
    X : array_like
        Token vectors, shape ``(n, d_model)``.
    W1 : array_like
        First weight matrix, shape ``(d_model, d_ff)``.
    b1 : array_like
        First bias, shape ``(d_ff,)``.
    W2 : array_like
        Second weight matrix, shape ``(d_ff, d_model_out)``.
    b2 : array_like
        Second bias, shape ``(d_model_out,)``.
    activation : {"relu", "gelu"}, optional
        ``"relu"`` is ``max(0, h)``, as in the 2017 paper; ``"gelu"`` is the exact
        ``h * Phi(h)`` with ``Phi`` the standard normal distribution function.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n, d_model_out)``.

    Examples
    --------
    One feature in, two hidden units, one out: ``max(0, x) + max(0, -x) = |x|``.

    >>> X = [[-2.0], [0.5], [3.0]]
    >>> print(feed_forward(X, [[1.0, -1.0]], [0.0, 0.0], [[1.0], [1.0]], [0.0]).ravel())
    [2.  0.5 3. ]
    """
    X = _matrix("X", X, None, "(n, d_model)")  # (n, d_model)
    d_model = X.shape[1]
    W1 = _matrix("W1", W1, d_model, f"(d_model, d_ff) with d_model = {d_model}")
    d_ff = W1.shape[1]
    b1 = _vector("b1", b1, d_ff, 0.0)  # (d_ff,)
    W2 = _matrix("W2", W2, d_ff, f"(d_ff, d_model_out) with d_ff = {d_ff}")
    b2 = _vector("b2", b2, W2.shape[1], 0.0)  # (d_model_out,)
    if activation not in _ACTIVATIONS:
        raise ValueError(
            f"activation must be one of {', '.join(_ACTIVATIONS)}, got {activation!r}"
        )
    hidden = _activate(X @ W1 + b1, activation)  # (n, d_ff)
    return hidden @ W2 + b2  # (n, d_model_out)


def layer_norm(
    X: ArrayLike,
    eps: float = 1e-5,
    gain: ArrayLike | None = None,
    bias: ArrayLike | None = None,
) -> np.ndarray:
    """Layer normalisation of each row: ``(x - mean(x)) / sqrt(var(x) + eps) * gain + bias``.

    The mean and the (population) variance are taken over the features of one row,
    never across rows (Ba, Kiros and Hinton 2016), so each position is normalised on
    its own with the same ``gain`` and ``bias``.

    Parameters
    ----------
    X : array_like
        Token vectors, shape ``(n, d)``.
    eps : float, optional
        A finite number ``> 0`` added to the variance.
    gain, bias : array_like, optional
        Shape ``(d,)`` each; default all ones and all zeros.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n, d)``.

    Examples
    --------
    The row (1, 3) has mean 2 and variance 1: with ``eps = 0`` it would become
    exactly (-1, 1); the default ``eps`` shrinks it by ``1 / sqrt(1 + 1e-5)``.

    >>> print(layer_norm([[1.0, 3.0], [5.0, 5.0]]).round(6))
    [[-0.999995  0.999995]
     [ 0.        0.      ]]
    >>> print(layer_norm([[1.0, 3.0]], gain=[2.0, 2.0], bias=[10.0, 0.0]).round(4))
    [[8. 2.]]
    """
    X = _matrix("X", X, None, "(n, d)")  # (n, d)
    d = X.shape[1]
    eps = _validate.real("eps", eps)
    if eps <= 0.0:
        raise ValueError(f"eps must be a finite real number > 0, got {eps!r}")
    gain = _vector("gain", gain, d, 1.0)  # (d,)
    bias = _vector("bias", bias, d, 0.0)  # (d,)
    centred = X - X.mean(axis=1, keepdims=True)  # (n, d): x - mean(x), per row
    var = np.mean(centred**2, axis=1, keepdims=True)  # (n, 1): population variance
    return centred / np.sqrt(var + eps) * gain + bias  # (n, d)


# --------------------------------------------------------------------------------------
# The encoder layer


@dataclass(frozen=True)
class EncoderLayerParams:
    """The weights of one post-norm encoder layer (Vaswani et al. 2017, section 3.1).

    Shapes, with ``d = d_model`` and ``f = d_ff``: ``Wq, Wk, Wv, Wo`` are
    ``(d, d)``; ``W1`` is ``(d, f)``, ``b1`` is ``(f,)``, ``W2`` is ``(f, d)`` and
    ``b2`` is ``(d,)``; the layer-norm gains and biases ``gain1, bias1, gain2,
    bias2`` are ``(d,)`` (``None``: ones and zeros). ``eps`` is the layer norms'
    ``eps`` and ``activation`` the feed-forward nonlinearity (``"relu"`` or
    ``"gelu"``). The arrays are checked when the layer is applied.

    Examples
    --------
    >>> p = EncoderLayerParams.random(d_model=4, d_ff=8, seed=0)
    >>> p.Wq.shape, p.W1.shape, p.b1.shape, p.W2.shape, p.gain2.shape
    ((4, 4), (4, 8), (8,), (8, 4), (4,))
    """

    Wq: np.ndarray
    Wk: np.ndarray
    Wv: np.ndarray
    Wo: np.ndarray
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    gain1: np.ndarray | None = None
    bias1: np.ndarray | None = None
    gain2: np.ndarray | None = None
    bias2: np.ndarray | None = None
    eps: float = 1e-5
    activation: str = "relu"

    @classmethod
    def random(cls, d_model: int, d_ff: int, *, seed: int = 0) -> EncoderLayerParams:
        """Generic weights for checks and figures, from ``numpy.random.default_rng(seed)``.

        Matrices are normal with standard deviation ``1 / sqrt(fan_in)``; biases are
        normal with standard deviation 0.1; gains are ``1 + 0.1 * normal``.
        """
        d_model = _validate.integer("d_model", d_model, minimum=1)
        d_ff = _validate.integer("d_ff", d_ff, minimum=1)
        seed = _validate.integer("seed", seed)
        # Six matrices and their vectors, in float64, and one normal draw at a time.
        entries = 4 * d_model * d_model + 2 * d_model * d_ff + d_ff + 5 * d_model
        _validate.memory(
            f"d_model={d_model}, d_ff={d_ff}",
            8 * entries + 16 * max(d_model * d_model, d_model * d_ff),
        )
        rng = np.random.default_rng(seed)
        square = [rng.normal(size=(d_model, d_model)) / math.sqrt(d_model) for _ in range(4)]
        return cls(
            *square,  # Wq, Wk, Wv, Wo: (d_model, d_model) each
            W1=rng.normal(size=(d_model, d_ff)) / math.sqrt(d_model),
            b1=0.1 * rng.normal(size=d_ff),
            W2=rng.normal(size=(d_ff, d_model)) / math.sqrt(d_ff),
            b2=0.1 * rng.normal(size=d_model),
            gain1=1.0 + 0.1 * rng.normal(size=d_model),
            bias1=0.1 * rng.normal(size=d_model),
            gain2=1.0 + 0.1 * rng.normal(size=d_model),
            bias2=0.1 * rng.normal(size=d_model),
        )


def _params(params: EncoderLayerParams | Mapping[str, object]) -> EncoderLayerParams:
    if isinstance(params, EncoderLayerParams):
        return params
    if not isinstance(params, Mapping):
        raise TypeError(
            f"params must be an EncoderLayerParams or a mapping, got {type(params).__name__}"
        )
    known = [f.name for f in fields(EncoderLayerParams)]
    unknown = sorted(set(params) - set(known))
    missing = [name for name in known[:8] if name not in params]  # the eight without default
    if unknown or missing:
        raise ValueError(
            f"params must have the keys {', '.join(known)} (the last six optional); "
            f"unknown: {unknown or 'none'}, missing: {missing or 'none'}"
        )
    return EncoderLayerParams(**params)


def encoder_layer(
    X: ArrayLike,
    params: EncoderLayerParams | Mapping[str, object],
    *,
    heads: int,
    mask: ArrayLike | None = None,
) -> np.ndarray:
    """One encoder layer of the 2017 paper, post-norm, without dropout.

    ``H = LayerNorm1(X + MHA(X))`` and ``out = LayerNorm2(H + FFN(H))``: each
    sublayer is followed by a residual connection and a layer normalisation
    (Vaswani et al. 2017, section 3.1). With a causal ``mask`` it is the decoder's
    masked self-attention block, without the cross-attention.

    Parameters
    ----------
    X : array_like
        Token vectors, shape ``(n, d_model)``.
    params : EncoderLayerParams or mapping
        The weights; a mapping takes the field names of :class:`EncoderLayerParams`
        as keys.
    heads : int
        Number of attention heads, a positive integer dividing ``d_model``.
    mask : array_like of bool, optional
        Shape ``(n, n)``, as in :func:`attention`.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n, d_model)``.

    Examples
    --------
    Without a position signal, swapping two tokens swaps their outputs:

    >>> p = EncoderLayerParams.random(d_model=4, d_ff=8, seed=1)
    >>> X = np.random.default_rng(2).normal(size=(3, 4))
    >>> out, swapped = encoder_layer(X, p, heads=2), encoder_layer(X[[1, 0, 2]], p, heads=2)
    >>> bool(np.allclose(swapped, out[[1, 0, 2]]))
    True
    """
    p = _params(params)
    X = _matrix("X", X, None, "(n, d_model)")  # (n, d_model)
    attended = multi_head_attention(X, p.Wq, p.Wk, p.Wv, p.Wo, heads=heads, mask=mask)
    H = layer_norm(X + attended, p.eps, p.gain1, p.bias1)  # (n, d_model)
    ffn = feed_forward(H, p.W1, p.b1, p.W2, p.b2, p.activation)  # (n, d_model)
    if ffn.shape != H.shape:
        raise ValueError(
            f"W2 must have shape (d_ff, d_model) = ({p.W1.shape[1]}, {H.shape[1]}), "
            f"got {np.shape(p.W2)}"
        )
    return layer_norm(H + ffn, p.eps, p.gain2, p.bias2)  # (n, d_model)
