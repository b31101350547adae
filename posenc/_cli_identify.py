"""``posenc identify TABLE``: which library convention made a position table.

The subcommand reads a table from a file (.npy, .npz, .csv or .pt), runs
:func:`posenc.identify.identify` and prints a short report, or JSON with ``--json``.
Exit status: 0 when a convention explains the table within its error model and the table
holds the evidence to name it, 1 when none does or the table cannot decide (the closest
is still printed, with the reason), 2 for a file that cannot be read as a table
(``posenc: error: ...`` on one line, from ``posenc.cli.main``). The ``--json`` output
is :meth:`posenc.identify.Identification.as_dict` with the file name added.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import TextIO

from posenc._progress import Status
from posenc.conventions import CONVENTIONS
from posenc.identify import LEVEL_BITS, Identification, identify, load_table

__all__ = ["add_parser", "run"]

EXIT_IDENTIFIED = 0
EXIT_NOT_IDENTIFIED = 1

_EPILOG = """\
The table holds one row per position (consecutive, in order) and one column per
feature. Row cuts (any first position up to 2**24) and float16/bfloat16 storage are
fine; column slices are recognised for the interleaved layouts (paper, xlm,
pytorch-tutorial, keras-hub), with the width worked out for the default base.

The structure (convention, base, first position, columns) is judged against the
convention's exact formula, within an error model of its precision path: "rounded once"
(half an ulp), or angles computed in float32 (or another type), where the allowed
difference grows like position x ulp. Then posenc's emulation of the library's own
operations that comes closest is shown: bit-identical, or how far it is.

A fit is named only when it is evidence: far from position 0 in a low precision the
error model allows a whole sine, and random values would fit it too. The bounds are
counted in bits (how unlikely random values are to fall within them), and a structure
is named when they hold more bits than it takes to name it among all that are searched,
when its first position is told from its neighbours, and when no other structure fits
as well. Otherwise the answer is "cannot tell", with the reason.

files:
  .npy          the array
  .npz          its only array, or the one named by --key
  .csv          numbers separated by commas; an optional header line; a first column
                of positions (named pos or index, or counting 0, 1, 2, ...) is dropped
  .pt, .pth     a tensor, or the tensor named by --key in a saved dictionary (needs
                PyTorch)

exit status: 0 identified, 1 no convention explains the table or the table cannot decide
(the closest is shown, with the reason), 2 the file cannot be read as a table

examples:
  posenc table --length 100 --width 64 --format npy -o t.npy && posenc identify t.npy
  posenc identify embeddings.npz --key positions --json
  posenc identify table.csv --candidates fairseq,whisper
"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``identify`` subcommand to the subparsers ``commands``."""
    parser = commands.add_parser(
        "identify",
        help="say which library convention, base and first position made a table",
        description=(
            "Find the library convention (paper, tensor2tensor, fairseq, xlm, marian,\n"
            "pytorch-tutorial, keras-hub, whisper), the base and the first position that\n"
            "explain a table of position codes, with the largest difference."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("table", metavar="TABLE", help="a .npy, .npz, .csv or .pt file")
    parser.add_argument("--key", help="which array of an .npz file (or tensor of a .pt file)")
    parser.add_argument(
        "--candidates",
        metavar="NAME,...",
        help="conventions to consider, separated by commas (default: all of "
        + ", ".join(CONVENTIONS)
        + ")",
    )
    parser.add_argument(
        "--rope",
        choices=("speeds", "cache", "weights"),
        help="read TABLE as rotary input: a vector of inverse frequencies (speeds), an"
        " .npz/.pt holding cos and sin caches (cache), or one layer's query and key"
        " projection weights (weights, with --head-dim); a .json TABLE is read as a config",
    )
    parser.add_argument(
        "--head-dim", type=int, help="--rope weights: the width of one attention head"
    )
    parser.add_argument(
        "--rotary-dim",
        type=int,
        help="--rope weights: how many coordinates of each head rotate (default: all)",
    )
    parser.add_argument(
        "--layer-type", help="config.json with one rotary scheme per layer type: which one"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    """Identify the table of ``args.table``; print the report; return the exit status.

    A file that cannot be read, or a table that cannot be one (NaN, wrong shape),
    raises ValueError, which ``posenc.cli.main`` reports on one line with status 2.
    """
    if getattr(args, "rope", None) or _is_config(args.table):
        return _run_rope(args, stdout)
    candidates = None
    if args.candidates is not None:
        candidates = [name.strip() for name in args.candidates.split(",") if name.strip()]
    table = load_table(args.table, key=args.key)
    with Status("posenc identify") as status:
        result = identify(table, candidates=candidates, status=status)
    if args.json:
        stdout.write(json.dumps({"file": args.table, **result.as_dict()}, indent=2) + "\n")
    else:
        stdout.write(report(result, args.table))
    stdout.flush()
    return EXIT_IDENTIFIED if result.matched else EXIT_NOT_IDENTIFIED


def _run_rope(args: argparse.Namespace, stdout: TextIO) -> int:
    """Rotary input: a config.json, a vector of speeds, or cos and sin caches."""
    from posenc import identify_rope

    if args.rope == "weights":
        return _run_weights(args, stdout)
    layout = None
    is_config = _is_config(args.table)
    if is_config:
        result = identify_rope.identify_config(args.table, layer_type=args.layer_type)
    elif args.rope == "cache":
        cos = load_table(args.table, key="cos")
        sin = load_table(args.table, key="sin")
        layout, result = identify_rope.identify_cache(cos, sin)
    else:
        result = identify_rope.identify_inv_freq(load_table(args.table, key=args.key))
    out = {"file": args.table, **result.as_dict()}
    if layout is not None:
        out["layout"] = layout
    if args.json:
        stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        stdout.write(_rope_report(result, args.table, layout, config=is_config))
    stdout.flush()
    return EXIT_IDENTIFIED if result.verdict == "identified" else EXIT_NOT_IDENTIFIED


def _is_config(path: str) -> bool:
    """A .json file (any case: config.JSON too) is read as a model config."""
    return str(path).lower().endswith(".json")


_ROPE_HEADS = {
    "identified": "identified",
    "cannot tell": "cannot tell; it fits",
    "not identified": "not identified; closest",
}


def _rope_report(result, name: str, layout: str | None, *, config: bool) -> str:
    """The text report of a rotary identification (speeds, a cache or a config)."""
    if config:
        head = "read" if result.verdict == "identified" else "read, but not a valid scheme"
    else:
        head = _ROPE_HEADS[result.verdict]
    params = {k: v for k, v in result.params.items() if k != "factors_to_default"}
    lines = [
        f"{name}: rotary, {result.rotary_dim} rotated dims",
        f"{head}: {result.scheme}, base {result.base:g}"
        + (f", layout {layout}" if layout else ""),
        f"  parameters: {json.dumps(params)}",
    ]
    if not config and math.isfinite(result.max_rel_error):
        lines.append(
            f"  largest relative difference when recomputed: {_number(result.max_rel_error)}"
        )
    if result.evidence:
        lines.append(
            f"  evidence: {result.evidence['bits']:.0f} bits,"
            f" {result.evidence['needed']:.0f} needed"
        )
    lines += [f"  problem: {why}" for why in result.problems]
    if result.bands:
        lines.append(f"  bands: {result.bands}")
    lines += [f"  note: {n}" for n in result.notes]
    return "\n".join(lines) + "\n"


#: Names tried, in order, for the query and key weights of --rope weights.
_WEIGHT_NAMES = (
    ("q_proj.weight", "k_proj.weight"),
    ("q_proj", "k_proj"),
    ("wq.weight", "wk.weight"),
    ("wq", "wk"),
    ("query", "key"),
    ("q", "k"),
)


def _load_weights(path: str, key: str | None) -> tuple[str, str, object, object]:
    """The query and key weights of an .npz/.pt file: named by --key Q,K or found by name."""
    if key is not None:
        names = [part.strip() for part in key.split(",")]
        if len(names) != 2 or not all(names):
            raise ValueError(f"--key for --rope weights names two arrays, Q,K; got {key!r}")
        tried = [tuple(names)]
    else:
        tried = list(_WEIGHT_NAMES)
    for q_name, k_name in tried:
        try:
            wq = load_table(path, key=q_name)
            wk = load_table(path, key=k_name)
        except ValueError as error:
            # Only a missing name sends the search on; a file that cannot be read, holds
            # no arrays or needs PyTorch is reported as it is.
            if key is not None or " has no array " not in str(error):
                raise
            if "(arrays: none)" in str(error):
                raise ValueError(f"{path!r} holds no arrays: no query and key weights") from None
            continue
        return q_name, k_name, wq, wk
    shown = ", ".join(f"{q}/{k}" for q, k in _WEIGHT_NAMES)
    raise ValueError(
        f"cannot find query and key weights in {path!r} (tried {shown}): name them with --key Q,K"
    )


def _run_weights(args: argparse.Namespace, stdout: TextIO) -> int:
    """--rope weights: which pairing one layer's W_q and W_k are in."""
    from posenc import identify_rope

    if args.head_dim is None:
        raise ValueError("--rope weights needs --head-dim, the width of one attention head")
    q_name, k_name, wq, wk = _load_weights(args.table, args.key)
    result = identify_rope.identify_pairing(wq, wk, args.head_dim, rotary_dim=args.rotary_dim)
    out = {"file": args.table, "query": q_name, "key": k_name, **result.as_dict()}
    if args.json:
        stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        words = {
            "half": "half (pair i in coordinates i and i + r/2: rotate_half, GPT-NeoX, HF Llama)",
            "interleaved": "interleaved (pair i in 2i and 2i + 1: Meta's Llama code, GPT-J)",
        }
        lines = [
            f"{args.table}: {q_name} and {k_name}, {result.heads} query and {result.kv_heads}"
            f" key heads of width {result.head_dim}, {result.rotary_dim} rotated",
            (
                f"pairing: {words[result.pairing]}"
                if result.pairing
                else "pairing: not identified; the weights do not tell"
            ),
            "  are a pair's two coordinates interchangeable? sign-flip test of their energies:",
            *(
                f"    {p:<11}  statistic {result.statistic[p]:.3g}, p = {result.p_value[p]:.2g}"
                + ("  (rejected)" if result.p_value[p] < result.alpha else "")
                for p in ("half", "interleaved")
            ),
            f"  a pairing is named when the other is rejected at level {result.alpha:g} and it"
            " is not",
            *(f"  note: {n}" for n in result.notes),
        ]
        stdout.write("\n".join(lines) + "\n")
    stdout.flush()
    return EXIT_IDENTIFIED if result.pairing else EXIT_NOT_IDENTIFIED


def report(result: Identification, name: str) -> str:
    """The short text report of an identification."""
    rows, cols = result.rows, result.columns[1] - result.columns[0]
    head = {
        "identified": "identified",
        "cannot tell": "cannot tell; it fits",
        "not identified": "not identified; closest",
    }[result.verdict]
    lines = [
        f"{name}: {rows} rows x {cols} columns, {result.dtype} values",
        f"{head}: {result.convention} ({CONVENTIONS[result.convention].title})",
        f"  base {result.base:g}, first position {result.start}, {_where(result)}",
        f"  largest difference from the formula {_number(result.residual)}: "
        f"{_number(result.fit)} of the {result.model} model's bound",
    ]
    if result.fits:
        lines.append(
            f"  evidence: {result.evidence.bits:.0f} bits, {result.evidence.needed:.0f} needed"
            " (random values are named at most once in 2**"
            f"{LEVEL_BITS})"
        )
    lines.extend(f"  cannot tell: {why}" for why in result.undecided)
    lines.extend(f"  assumed: {what}" for what in result.assumed)
    if result.equivalent:
        lines.append(f"  cannot be told apart here: {', '.join(result.equivalent)}")
    if result.emulation is not None:
        same = "bit-identical" if result.emulation.identical else "largest difference"
        shown = "" if result.emulation.identical else " " + _number(result.emulation.residual)
        lines.append(f"  precision path: {result.emulation.note}, {same}{shown}")
    if result.alternatives:
        lines.append("next best:")
        width = max(len(c.convention) for c in result.alternatives)
        for c in result.alternatives:
            bound = "" if c.complete else " or more"
            lines.append(
                f"  {c.convention:<{width}}  base {c.base:g}  first position {c.start}"
                f"  largest difference {_number(c.residual)}{bound}"
                f"  ({_number(c.fit)} of the {c.model} bound)"
            )
    lines.append(result.explanation)
    return "\n".join(lines) + "\n"


def _where(result: Identification) -> str:
    first, stop = result.columns
    if (first, stop) == (0, result.width):
        return f"width {result.width}"
    return f"columns {first}..{stop - 1} of width {result.width}"


def _number(x: float) -> str:
    return f"{x:.3g}" if x else "0"
