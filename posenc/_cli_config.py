"""``posenc config explain CONFIG.json``: a model's position scheme, one kind of layer a row.

Reads a Hugging Face config.json with :func:`posenc.model_config.read_model` and prints,
for each kind of layer (a layer type, or a block), which layers are of that kind, whether
they rotate, the scheme, the width of the head and how much of it turns, the base, the
pairing, the fastest and slowest wavelength, the context trained on and stretched to, and
the temperatures applied and where; then what was inferred and from what, and a caution
for each known confusion the config invites, with the reports that document it.
Text by default, ``--json`` for scripts, ``--markdown`` for an issue comment. Exit status
0 when the config is read, 2 when it cannot be (``posenc: error: ...`` on one line).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any, TextIO

from posenc.model_config import LayerKind, ModelReading, read_model

__all__ = ["add_parser", "explain"]

EXIT_READ = 0

_EPILOG = """\
columns:
  layers       the indices of the layers of this kind (ranges, from 0)
  type         the layer type (layer_types) or block; "all" when the layers are alike
  rotary       the scheme, or "none" for layers without a position code (NoPE)
  head         the width of the head the rotation is taken over
  rotated      how many of its coordinates turn
  base         rope_theta of these layers
  pairing      half (i with i + r/2, rotate_half) or interleaved (2i with 2i + 1)
  wavelengths  the fastest and the slowest turning pair's wavelength, in positions
  context      the length trained on (L0) and the length the scaling stretches to
  temperature  factors on the queries or the cos and sin caches, and where

examples:
  posenc config explain config.json
  posenc config explain config.json --json
  posenc config explain config.json --markdown > comment.md
"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``config`` command (``config explain``) to the subparsers ``commands``."""
    parser = commands.add_parser(
        "config",
        help="explain a model's position scheme, layer by layer, from its config.json",
        description="Read a model's config.json as Transformers reads it.",
    )
    actions = parser.add_subparsers(title="actions", dest="action", metavar="ACTION")
    actions.required = True
    explain_parser = actions.add_parser(
        "explain",
        help="one row per kind of layer, what was inferred, and the known confusions",
        description=(
            "Explain a model's position scheme layer by layer: which layers rotate, with\n"
            "which scheme, base and width, and the known confusions the config invites."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explain_parser.add_argument("config", metavar="CONFIG", help="a config.json")
    shape = explain_parser.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print the reading as JSON")
    shape.add_argument("--markdown", action="store_true", help="print a Markdown table")
    explain_parser.set_defaults(run=run)


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    """Read ``args.config`` and print the explanation; return the exit status."""
    reading = read_model(args.config)
    if args.json:
        stdout.write(json.dumps(as_dict(reading, args.config), indent=2) + "\n")
    else:
        stdout.write(explain(reading, args.config, markdown=args.markdown))
    stdout.flush()
    return EXIT_READ


# --------------------------------------------------------------------------------------
# The numbers of a row.


def _ranges(indices: tuple[int, ...]) -> str:
    """``0-4, 6-10, 12`` for the indices, or "-" when the config lists no layers."""
    if not indices:
        return "-"
    parts, start, last = [], indices[0], indices[0]
    for i in indices[1:]:
        if i == last + 1:
            last = i
            continue
        parts.append(f"{start}-{last}" if last > start else str(start))
        start = last = i
    parts.append(f"{start}-{last}" if last > start else str(start))
    return ", ".join(parts)


def _wavelengths(kind: LayerKind) -> tuple[float, float] | None:
    w = kind.inv_freq
    if w is None:
        return None
    turning = w[w > 0]
    if not turning.size:
        return None
    return 2 * math.pi / float(turning.max()), 2 * math.pi / float(turning.min())


def _context(kind: LayerKind, reading: ModelReading) -> tuple[int | None, float | None]:
    """The length trained on, and the length the scaling stretches to."""
    if kind.rope is None:
        return None, None
    params = kind.rope.params
    trained = params.get("original_max_position_embeddings")
    factor = params.get("factor")
    if trained is not None and factor is not None:
        return int(trained), float(factor) * int(trained)
    if trained is not None:  # a factor read as max_position_embeddings / L0
        return int(trained), params.get("max_position_embeddings")
    if factor is not None and kind.rope.scheme in ("linear", "dynamic"):
        length = reading.max_position_embeddings
        return length, None if length is None else float(factor) * length
    return reading.max_position_embeddings, None


def row(kind: LayerKind, reading: ModelReading) -> dict[str, Any]:
    """One kind of layer as plain data: the columns of the table, unformatted."""
    waves = _wavelengths(kind)
    trained, stretched = _context(kind, reading)
    rope = kind.rope
    return {
        "type": kind.name,
        "layers": list(kind.layers),
        "rotates": kind.rotates,
        "scheme": rope.scheme if rope else None,
        "head_dim": rope.head_dim if rope else None,
        "rotary_dim": kind.rotary_dim,
        "base": rope.base if rope else None,
        "params": {k: v for k, v in (rope.params if rope else {}).items() if k != "short_factor"}
        | ({"short_factor": "(list)"} if rope and "short_factor" in rope.params else {}),
        "pairing": kind.pairing,
        "mrope": None
        if kind.mrope is None
        else {"layout": kind.mrope[0], "sections": list(kind.mrope[1])},
        "wavelengths": None if waves is None else list(waves),
        "trained_context": trained,
        "stretched_context": stretched,
        "sliding_window": kind.sliding_window,
        "temperatures": [
            {"rule": t.rule, "applied": t.applied, "words": t.words(), **t.params}
            for t in kind.temperatures
        ],
        "notes": list(kind.notes),
    }


def as_dict(reading: ModelReading, name: str) -> dict[str, Any]:
    """The whole reading as JSON-ready data (``--json``)."""
    return {
        "file": str(name),
        "model_type": reading.model_type,
        "read_from": reading.path or None,
        "form": reading.form,
        "num_layers": reading.num_layers,
        "kinds": [row(k, reading) for k in reading.kinds],
        "notes": list(reading.notes),
        "cautions": [
            {"code": c.code, "message": c.message, "sources": list(c.sources)}
            for c in reading.cautions
        ],
    }


# --------------------------------------------------------------------------------------
# Text and Markdown.

_HEADS = (
    "layers", "type", "rotary", "head", "rotated", "base", "pairing", "wavelengths",
    "context", "temperature",
)  # fmt: skip


def _cells(kind: LayerKind, reading: ModelReading) -> list[str]:
    r = row(kind, reading)
    if not kind.rotates:
        rotary = "none (NoPE)"
    else:
        rotary = r["scheme"]
        if r["params"].get("factor") is not None:
            rotary += f" (s {float(r['params']['factor']):g})"
        if kind.mrope is not None:
            rotary += f", M-RoPE {kind.mrope[0]} {list(kind.mrope[1])}"
    waves = "-" if r["wavelengths"] is None else "{:.3g} .. {:.4g}".format(*r["wavelengths"])
    trained, stretched = r["trained_context"], r["stretched_context"]
    context = "-" if trained is None else f"{trained}"
    if stretched is not None:
        context += f" -> {stretched:g}"
    temps = "; ".join(f"{t['words']} on {t['applied']}" for t in r["temperatures"]) or "-"
    if kind.sliding_window is not None:
        context += f" (window {kind.sliding_window})"
    return [
        _ranges(kind.layers),
        kind.name,
        rotary,
        "-" if r["head_dim"] is None else str(r["head_dim"]),
        str(r["rotary_dim"]) if kind.rotates else "0",
        "-" if r["base"] is None else f"{r['base']:g}",
        r["pairing"] or "-",
        waves,
        context,
        temps,
    ]


def explain(reading: ModelReading, name: str, *, markdown: bool = False) -> str:
    """The explanation as text (a table, then notes and cautions) or as Markdown."""
    where = f" (read from {reading.path})" if reading.path else ""
    layers = f", {reading.num_layers} layers" if reading.num_layers else ""
    model = reading.model_type or "model type not given"
    head = f"{name}: {model}{where}, {reading.form} form{layers}"
    rows = [_cells(k, reading) for k in reading.kinds]
    inferred = [*reading.notes, *(f"{k.name}: {n}" for k in reading.kinds for n in k.notes)]
    if markdown:
        lines = [f"**{head}**", "", "| " + " | ".join(_HEADS) + " |", "|" + "---|" * len(_HEADS)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |" for cells in rows]
        if inferred:
            lines += ["", "Inferred:", *(f"- {n}" for n in inferred)]
        if reading.cautions:
            lines += ["", "Cautions:"]
            for c in reading.cautions:
                lines.append(f"- **{c.code}**: {c.message} ({', '.join(c.sources)})")
        return "\n".join(lines) + "\n"
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(_HEADS)]
    table = [
        "  ".join(cell.ljust(w) for cell, w in zip(cells, widths, strict=True)).rstrip()
        for cells in [list(_HEADS), *rows]
    ]
    lines = [head, "", *table]
    if inferred:
        lines += ["", "inferred:", *(f"  {n}" for n in inferred)]
    if reading.cautions:
        lines += ["", "cautions:"]
        for c in reading.cautions:
            lines.append(f"  [{c.code}] {c.message}")
            if c.sources:
                lines.append(f"      reported in: {', '.join(c.sources)}")
    return "\n".join(lines) + "\n"
