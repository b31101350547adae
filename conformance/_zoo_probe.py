"""The zoo, part 3: what a family's rotary module and apply functions do, measured.

- :func:`tables`: the speeds of a built rotary module: every ``*inv_freq`` buffer (one
  per layer type when the module keeps ``<layer_type>_inv_freq``) with its
  ``attention_scaling``; a module without a buffer (GPT-J and CodeGen keep a sin/cos
  table) has its speeds read off its forward at position 1.
- :func:`probe`: the module's forward at position 1: how many columns its cos and sin
  have and how they are laid out (``cat(f, f)``, ``f0 f0 f1 f1 ...``, one per pair);
  then with two, three or four position axes, each set to 1 alone, accepted only when
  the module consumed the axis dimension. For a multimodal (M-RoPE) module this gives
  the axis that turns each speed of the ladder.
- :func:`pairing`: an apply function called on the ``d`` unit vectors; the inputs whose
  images span the same plane are a pair. This is a measurement of the code, not a
  reading of it: a table laid out ``cat(f, f)`` and an apply function that re-lays it
  and pairs ``2i`` with ``2i + 1`` (GLM) is "interleaved".
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field

import numpy as np
from _zoo_enumerate import err

AXIS_NAMES = ("t", "h", "w", "a3")


@dataclass
class Table:
    """The speeds of one rotary table, as float64 values of what the module holds."""

    inv_freq: np.ndarray  # (P,)
    attention_scaling: float | None
    dtype: str
    derived: str | None = None  # how the speeds were found when there is no buffer


@dataclass
class Probe:
    """The forward of a rotary module at position 1, one axis at a time."""

    columns: int | None = None
    layout: str | None = None  # "half", "interleaved", "pairs", ... (see _layout)
    axes: int = 1  # position axes the module consumed
    axis_of_speed: list[int] | None = None  # per ladder index (fastest first); -1 unset
    axis_of_column: list[int] | None = None  # per column: the one axis that turns it
    error: str | None = None
    notes: list[str] = field(default_factory=list)


def tables(module, config) -> dict[str, Table]:
    """The module's inv_freq buffers by layer type ("" for a single one)."""
    import torch

    found: dict[str, Table] = {}
    tensors = dict(module.named_buffers())
    for name, value in vars(module).items():  # a plain tensor attribute, not a buffer
        if isinstance(value, torch.Tensor) and name not in tensors:
            tensors[name] = value
    names = [n for n in tensors if n.endswith("inv_freq") and not n.endswith("original_inv_freq")]
    if any("." not in n for n in names):  # a sub-module's table is another rotary's
        names = [n for n in names if "." not in n]
    for name in names:
        tensor = tensors[name]
        owner_name, _, leaf = name.rpartition(".")
        owner = module.get_submodule(owner_name) if owner_name else module
        key = leaf[: -len("inv_freq")].rstrip("_")
        scaling = getattr(owner, f"{key}_attention_scaling" if key else "attention_scaling", None)
        key = f"{owner_name}:{key}" if owner_name else key
        if isinstance(scaling, torch.Tensor):
            scaling = float(scaling.detach().double().reshape(-1)[0])
        speeds = tensor.detach().double().cpu().numpy().reshape(-1)
        dtype = str(tensor.dtype).replace("torch.", "")
        found[key] = Table(speeds, None if scaling is None else float(scaling), dtype)
    if not found:
        found[""] = _from_forward(module, config)
    return found


def _hidden(config) -> int:
    hidden = getattr(config, "hidden_size", None)
    return hidden if isinstance(hidden, int) and 0 < hidden <= 65536 else 8


def _call(module, x, positions, extra):
    import torch

    with torch.no_grad():
        return module(x, positions, **extra)


def _cos_sin(output):
    """(cos, sin) as float64 arrays (last axis: columns), or None."""
    import torch

    if (
        isinstance(output, tuple | list)
        and len(output) == 2
        and all(isinstance(t, torch.Tensor) for t in output)
    ):
        cos, sin = (t.detach().double().cpu().numpy() for t in output)
        if cos.shape == sin.shape:
            return cos, sin
    if isinstance(output, torch.Tensor):
        if output.is_complex():
            z = output.detach().cpu().to(torch.complex128).numpy()
            return z.real, z.imag
        angles = output.detach().double().cpu().numpy()
        return np.cos(angles), np.sin(angles)
    return None


def _row(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1, a.shape[-1])[-1]


def _swapped(module, x, extra) -> bool:
    """At position 0 cos is 1 and sin 0: True when the module returns (sin, cos)."""
    import torch

    got = _cos_sin(_call(module, x, torch.zeros(1, 1, dtype=torch.long), extra))
    if got is None:
        return False
    first, second = (_row(a) for a in got)
    return bool(np.allclose(first, 0, atol=1e-6) and not np.allclose(second, 0, atol=1e-6))


def _from_forward(module, config) -> Table:
    """Speeds read off the forward at position 1 (a module that keeps no inv_freq)."""
    import torch

    x = torch.zeros(1, 1, _hidden(config))
    got = _cos_sin(_call(module, x, torch.ones(1, 1, dtype=torch.long), {}))
    if got is None:
        raise ValueError("no inv_freq buffer, and the forward gives no cos and sin")
    if _swapped(module, x, {}):
        got = (got[1], got[0])
    cos, sin = (_row(a) for a in got)
    angle = np.arctan2(sin, cos)
    n = angle.size
    if n % 2 == 0 and np.allclose(angle[: n // 2], angle[n // 2 :]):
        speeds, how = angle[: n // 2], "cat(f, f)"
    elif n % 2 == 0 and np.allclose(angle[0::2], angle[1::2]):
        speeds, how = angle[0::2], "f0 f0 f1 f1"
    else:
        speeds, how = angle, "one column per pair"
    return Table(
        speeds.astype(float),
        float(np.median(np.hypot(cos, sin))),
        "float32 (the forward's table)",
        f"no inv_freq buffer: the angles of the forward at position 1 ({how})",
    )


def probe(module, config, table: Table, layer_type: str = "") -> Probe:
    """The forward at position 1: the layout of cos and sin, and the axis of each speed."""
    import torch

    result = Probe()
    try:
        params = list(inspect.signature(module.forward).parameters)
    except (TypeError, ValueError):
        params = []
    extra = {"layer_type": layer_type} if layer_type and "layer_type" in params else {}
    x = torch.zeros(1, 1, _hidden(config))
    single = None
    try:
        single = _cos_sin(_call(module, x, torch.ones(1, 1, dtype=torch.long), extra))
        if single is not None and _swapped(module, x, extra):
            single = (single[1], single[0])
            result.notes.append("the forward returns (sin, cos)")
    except Exception as error:
        result.error = f"forward(x, position_ids): {err(error)}"
    if single is not None:
        cos, sin = (_row(a) for a in single)
        result.columns = int(cos.shape[-1])
        result.layout = _layout(cos, sin, table.inv_freq)
    axes = _axes(module, x, extra, single)
    if axes is not None:
        result.axes = len(axes)
        rows = [(_row(c), _row(s)) for c, s in axes]
        result.columns = int(rows[0][0].shape[-1])
        result.axis_of_speed = _axis_of_speed(rows, table.inv_freq)
        moved = [_moved(c, si) for c, si in rows]
        result.axis_of_column = [
            next(a for a in range(len(rows)) if moved[a][j])
            if sum(m[j] for m in moved) == 1
            else (-1 if not any(m[j] for m in moved) else -2)
            for j in range(result.columns)
        ]
        result.error = None
    return result


def _axes(module, x, extra, single):
    """Several position axes, one set to 1 at a time; the widest form the module takes.

    A form counts when the module consumed the axis dimension (its output has the shape
    of the one-axis output, or no leading axis dimension) and every axis turns a column.
    """
    import torch

    found = None
    for n_axes in (2, 3, 4):
        for shape in ((n_axes, 1, 1), (n_axes, 1), (1, n_axes)):
            try:
                per_axis = []
                for a in range(n_axes):
                    positions = torch.zeros(shape, dtype=torch.long)
                    if shape[0] == n_axes:
                        positions[a] = 1
                    else:
                        positions[..., a] = 1
                    got = _cos_sin(_call(module, x, positions, extra))
                    if got is None:
                        raise ValueError("no cos and sin")
                    per_axis.append(got)
            except Exception:
                continue
            s = per_axis[0][0].shape
            if single is not None and s != single[0].shape:
                continue  # the axis dimension was read as a batch
            if single is None and s[0] == n_axes and len(s) > 2:
                continue
            if all(_moved(_row(c), _row(si)).any() for c, si in per_axis):
                found = per_axis
            break
    return found


def _moved(c: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Columns turned by the probe: at position 0 an axis leaves sin 0 and cos at its
    magnitude, so any nonzero sin counts (even of a speed near 1e-9)."""
    magnitude = np.hypot(c, s)
    magnitude[magnitude == 0] = 1
    return (s != 0) | (np.abs(c / magnitude - 1) > 1e-12)


def _layout(cos: np.ndarray, sin: np.ndarray, speeds: np.ndarray) -> str:
    """Which arrangement of the speeds gives the columns at position 1."""
    magnitude = np.hypot(cos, sin)
    magnitude[magnitude == 0] = 1
    c, s = cos / magnitude, sin / magnitude
    tries = {
        "half": np.concatenate([speeds, speeds]),
        "interleaved": np.repeat(speeds, 2),
        "pairs": speeds,
    }
    for name, angles in tries.items():
        k = angles.size
        if k > c.size:
            continue
        if np.allclose(c[:k], np.cos(angles), atol=2e-6) and np.allclose(
            s[:k], np.sin(angles), atol=2e-6
        ):
            if k == c.size:
                return name
            if np.allclose(c[k:], 1, atol=2e-6):
                return f"{name}, then {c.size - k} columns pass through"
    return f"other ({c.size} columns for {speeds.size} speeds)"


def _axis_of_speed(rows, speeds: np.ndarray) -> list[int]:
    """For each speed of the ladder (the nonzero speeds, fastest first), the axis that
    turns it: -1 where no column turns at it, -2 where two axes do."""
    ladder = np.sort(np.asarray(speeds, float)[np.asarray(speeds) > 0])[::-1]
    out = [-1] * ladder.size
    moved = [_moved(c, s) for c, s in rows]
    for j in range(rows[0][0].shape[-1]):
        active = [a for a in range(len(rows)) if moved[a][j]]
        if len(active) != 1 or ladder.size == 0:
            continue
        c, s = rows[active[0]]
        angle = math.atan2(s[j], c[j])
        rel = np.abs(ladder - angle) / ladder
        i = int(np.argmin(rel))
        if rel[i] < 1e-4:
            out[i] = active[0] if out[i] in (-1, active[0]) else -2
    return out


# --------------------------------------------------------------------------------------
# Pairing, measured on unit vectors.


def pairing(fn, pairs: int) -> tuple[str, str]:
    """How ``fn`` pairs the coordinates of a ``2 * pairs`` wide vector: ("half",
    "interleaved", "other" or "not measured", and a description)."""
    import torch

    d = 2 * pairs
    angles = torch.linspace(0.3, 1.1, pairs, dtype=torch.float64)
    eye = torch.eye(d, dtype=torch.float32)
    layouts = {
        "half": torch.cat([angles, angles]),
        "interleaved": angles.repeat_interleave(2),
        "one per pair": angles,
    }
    tables = [(k, (v.cos().float(), v.sin().float())) for k, v in layouts.items()]
    tables.append(("complex", (torch.polar(torch.ones(pairs), angles.float()),)))
    shapes = (  # the query's shape, the tables' shape, keyword arguments
        ((1, d, 1, d), (1, 1, -1), {}),
        ((1, 1, d, d), (1, 1, -1), {"unsqueeze_dim": 2}),
        ((1, 1, d, d), (1, 1, -1), {}),
        ((1, d, d), (1, -1), {}),
    )
    errors = []
    for name, tabs in tables:
        for q_shape, t_shape, extra in shapes:
            for two in (True, False):
                q = eye.reshape(q_shape).clone()
                t = tuple(x.reshape(t_shape) for x in tabs)
                try:
                    with torch.no_grad():
                        out = fn(q, q.clone(), *t, **extra) if two else fn(q, *t, **extra)
                    image = out[0] if isinstance(out, tuple | list) else out
                    rows = image.detach().double().reshape(d, d).numpy()
                except Exception as error:
                    errors.append(err(error, 80))
                    continue
                label, text = _pairs(rows, d)
                return label, f"{text} (tables {name})"
    return "not measured", "; ".join(dict.fromkeys(errors))[:240]


def _pairs(rows: np.ndarray, d: int) -> tuple[str, str]:
    """rows[j] is the image of e_j; inputs whose images share a support are a pair."""
    support: dict[tuple, list[int]] = {}
    for j in range(d):
        support.setdefault(tuple(np.nonzero(np.abs(rows[j]) > 1e-6)[0]), []).append(j)
    groups = list(support.values())
    if any(len(g) > 2 for g in groups):
        return "other", f"not pairs: groups of {sorted({len(g) for g in groups})}"
    pairs = [tuple(g) for g in groups if len(g) == 2]
    fixed = sum(len(g) == 1 for g in groups)
    permuted = any(set(np.nonzero(np.abs(rows[j]) > 1e-6)[0]) - set(g) for g in groups for j in g)
    if pairs and all(b - a == d // 2 for a, b in pairs):
        label, text = "half", f"coordinate j with j + {d // 2}"
    elif pairs and all(a % 2 == 0 and b == a + 1 for a, b in pairs):
        label, text = "interleaved", "coordinate 2i with 2i + 1"
    else:
        label, text = "other", f"pairs {pairs[:4]} ..."
    if fixed:
        text += f", {fixed} coordinates not turned"
    if permuted:
        text += ", the output coordinates permuted"
    return label, text
