"""tools/mutants.py without Cosmic Ray: how a survivor is named, skipped and matched.

``make mutants`` itself runs for hours and needs Cosmic Ray (not in the test
environment); what can go wrong without it is tested here: a survivor's name must not
move with line numbers or comments, mutants inside annotations are skipped, and the
committed list parses, with a reason for every entry.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("mutants", ROOT / "tools" / "mutants.py")
mutants = importlib.util.module_from_spec(SPEC)
sys.modules["mutants"] = mutants  # dataclasses look their module up by name
SPEC.loader.exec_module(mutants)


def test_a_survivor_is_named_by_its_lines_not_their_numbers():
    diff = "\n".join(
        [
            "--- mutation diff ---",
            "--- aproofs/p01_x.py",
            "+++ bproofs/p01_x.py",
            "@@ -56,1 +56,1 @@",
            "-        return a + b  # the sum",
            "+        return a - b  # the sum",
        ]
    )
    assert mutants.changed_lines(diff) == ("return a + b", "return a - b")
    moved = diff.replace("@@ -56,1 +56,1 @@", "@@ -90,1 +90,1 @@")
    assert mutants.changed_lines(moved) == mutants.changed_lines(diff)


def test_a_comment_sign_inside_a_string_is_kept():
    assert mutants.without_comment('x = "#"  # note') == 'x = "#"'


def test_mutants_in_annotations_are_skipped():
    source = (
        "from __future__ import annotations\n\ndef f(x: int | None) -> int:\n    return x + 1\n"
    )
    spans = mutants.skipped_spans(source)
    lines = {start[0] for start, _ in spans}
    assert 3 in lines and 4 not in lines


def test_the_committed_list_parses_and_every_entry_has_a_reason():
    known = mutants.read_known(mutants.SURVIVORS)
    assert known, "the list holds the survivors of the proofs run so far"
    missing = [s for s, reason in known.items() if not reason]
    assert not missing, missing
    assert all(1 <= s.proof <= 99 and s.was != s.now for s in known)
