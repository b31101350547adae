"""The exercises of the posenc pages, and the checker that marks a reader's solution.

Each exercise is a page under ``docs/exercises/`` and a module here:

- E1 (``e1``), the sinusoidal table: ``solve(length, width, base)`` returns the code;
- E2 (``e2``), the shift matrix: ``solve(k, width, base)`` returns ``M_k``;
- E3 (``e3``), order blindness: ``solve(X, Wq, Wk, Wv, order)`` returns how far
  attention is from following a reordering of its input, without and with the code;
- E4 (``e4``), the ALiBi slopes: ``solve(num_heads)`` returns the slopes of the heads,
  by the rule of the ALiBi reference code for any head count;
- E5 (``e5``), T5 buckets: ``solve(relative_position, bidirectional, num_buckets,
  max_distance)`` returns the bucket of each offset, key minus query;
- E6 (``e6``), the YaRN speeds: ``solve(head_dim, base, factor,
  original_max_position_embeddings, beta_fast, beta_slow)`` returns the new speed of
  every rotary pair under YaRN, then the factor on the logits;
- E7 (``e7``), the Llama 3 bands: ``solve(head_dim, base, factor,
  original_max_position_embeddings, low_freq_factor, high_freq_factor)`` returns the
  new speed of every rotary pair under Llama 3's scaling;
- E8 (``e8``), the proportional ladder: ``solve(head_dim, base, partial_rotary_factor)``
  returns the speed of every pair of a head under Gemma 4's proportional rotary, the
  stopped pairs' zeros included;
- E9 (``e9``), which layers rotate: ``solve(config)`` returns, for each layer of a
  model's config (a dict), whether it rotates, its base and its factor.

E1 and E2 also take the classic shorter ``solve`` without ``base``, judged on the cases
with base 10000 only, and E5 the shorter ``solve(relative_position, bidirectional)``
with T5's sizes built in, judged on the cases with those sizes only (``_calls``); E6
and E7 take the four-argument ``solve`` with the reference values of the last two
built in (rotation counts 32 and 1, band factors 1 and 4).

``posenc exercise check E1 my_solution.py`` calls :func:`check`, which runs the
reader's ``solve`` in a child process with limits on time, CPU and memory, on the
worked examples of the page and on unseen cases from a seeded generator, and judges
the answers against ``posenc.sinusoidal``, ``posenc.shift_matrix``,
``posenc.attention``, ``posenc.relative.alibi_slopes``, ``posenc.relative.t5_bucket``,
``posenc.rope.inv_freq`` and ``posenc.model_config.read_model`` (``checker``). A pass
needs an answer to every case, each compared in this process; the child is sent the
inputs of each case and nothing else, holds no answer and cannot import posenc; no
process it starts outlives the check. The classic mistakes of each exercise are written
out as formulas, so a wrong answer can be matched to the mistake that produces it.

References
----------
- A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, sections 3.2.1
  (scaled dot-product attention) and 3.5 (the sinusoidal code).
- O. Press, N. A. Smith, M. Lewis, "Train Short, Test Long: Attention with Linear
  Biases Enables Input Length Extrapolation", ICLR 2022 (ALiBi and its head slopes).
- C. Raffel et al., "Exploring the Limits of Transfer Learning with a Unified
  Text-to-Text Transformer", JMLR 2020, section 2.1 (T5's relative position buckets).
- B. Peng, J. Quesnelle, H. Fan, E. Shippole, "YaRN: Efficient Context Window
  Extension of Large Language Models", ICLR 2024, arXiv:2309.00071.
- A. Grattafiori et al., "The Llama 3 Herd of Models", arXiv:2407.21783 (2024); the
  scaling of E7 is that of Meta's reference code (``apply_scaling``).
"""

from __future__ import annotations

import os
from pathlib import Path

from posenc import _files
from posenc.exercises import checker
from posenc.exercises._base import TOLERANCE, Case, Exercise, Mistake
from posenc.exercises.checker import MEMORY, TIMEOUT, Report
from posenc.exercises.e1 import E1
from posenc.exercises.e2 import E2
from posenc.exercises.e3 import E3
from posenc.exercises.e4 import E4
from posenc.exercises.e5 import E5
from posenc.exercises.e6 import E6
from posenc.exercises.e7 import E7
from posenc.exercises.e8 import E8
from posenc.exercises.e9 import E9

__all__ = [
    "EXERCISES",
    "MEMORY",
    "TIMEOUT",
    "TOLERANCE",
    "Case",
    "Exercise",
    "Mistake",
    "Report",
    "check",
    "exercise",
    "listing",
    "show",
]

#: Every exercise, by key.
EXERCISES: dict[str, Exercise] = {e.key: e for e in (E1, E2, E3, E4, E5, E6, E7, E8, E9)}


def exercise(name: str) -> Exercise:
    """The exercise called ``name``: 'E1', 'e1' or '1'.

    Examples
    --------
    >>> exercise("e2").title
    'The shift matrix'
    """
    key = str(name).strip().upper()
    key = key if key.startswith("E") else "E" + key
    if key not in EXERCISES:
        raise ValueError(f"exercise must be one of {', '.join(EXERCISES)}, got {name!r}")
    return EXERCISES[key]


def listing() -> str:
    """One line per exercise: key, title, and the call the checker makes.

    Examples
    --------
    >>> print(listing(), end="")
    E1  The sinusoidal table     solve(length, width, base)
    E2  The shift matrix         solve(k, width, base)
    E3  Order blindness          solve(X, Wq, Wk, Wv, order)
    E4  The ALiBi slopes         solve(num_heads)
    E5  The T5 buckets           solve(relative_position, bidirectional, num_buckets, max_distance)
    E6  The YaRN speeds          solve(head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow)
    E7  The Llama 3 bands        solve(head_dim, base, factor, original_max_position_embeddings, low_freq_factor, high_freq_factor)
    E8  The proportional ladder  solve(head_dim, base, partial_rotary_factor)
    E9  Which layers rotate      solve(config)
    """  # noqa: E501 (one line per exercise, as printed)
    width = max(len(e.title) for e in EXERCISES.values())
    lines = [f"{e.key}  {e.title:<{width}}  {e.signature}" for e in EXERCISES.values()]
    return "\n".join(lines) + "\n"


def show(name: str) -> str:
    """The task of an exercise, as ``posenc exercise show`` prints it."""
    e = exercise(name)
    heading = f"{e.key}. {e.title}"
    return (
        f"{heading}\n{'=' * len(heading)}\n\n{e.task}\n\n"
        f"Check your file with:\n\n    posenc exercise check {e.key} my_solution.py\n\n"
        f"Words to know, hints and a solution: the posenc site, Exercises, {e.key}\n"
        f"(docs/{e.page} in the repository).\n"
    )


def check(
    name: str,
    solution: str | os.PathLike,
    *,
    timeout: float = TIMEOUT,
    seed: int = 0,
    memory: int = MEMORY,
) -> Report:
    """Run a reader's ``solve`` on every case of an exercise and judge the answers.

    The file runs in a child process, in a session of its own, with a time limit, a
    CPU-time limit to match and a memory limit. That process holds no expected value and
    cannot import posenc: it is sent the inputs of each case, and a pass needs an answer
    to every case, each compared here with the expected value. The child and every
    process it starts are stopped before this returns or raises (Ctrl-C included).

    Parameters
    ----------
    name : str
        The exercise: 'E1' to 'E9' (see :func:`exercise`).
    solution : path
        A Python file that defines ``solve``: a regular file of at most 1 MB
        (``checker.SOLUTION_LIMIT``), or a ValueError before anything runs.
    timeout : float, optional
        Seconds allowed for loading the file and answering every case, at most a day.
    seed : int, optional
        Draws the unseen cases; the worked examples are always those of the page.
    memory : int, optional
        MB (2**20 bytes) of address space the child may use, from 256 to 2**24.

    Returns
    -------
    Report
        ``passed``, and the text to show: a verdict line, one paragraph on the first
        problem, and a hint when the answers match a known mistake; ``judged`` and
        ``skipped`` count the cases run and those not run for the signature of solve.
    """
    e = exercise(name)
    timeout, memory = checker.limits(timeout, memory)
    shown = repr(os.fspath(solution))
    with _files.open_regular(solution, limit=checker.SOLUTION_LIMIT, what=shown):
        pass  # a FIFO or a device would block or never end: refused here, before any process
    path = Path(solution).resolve()
    return checker.check(e, path, timeout=timeout, seed=seed, memory=memory)
