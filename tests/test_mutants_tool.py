"""tools/mutants.py without Cosmic Ray: how a survivor is named, skipped and matched.

``make mutants`` itself runs for about two hours and needs Cosmic Ray (not in the test
environment); what can go wrong without it is tested here: a survivor's name must not
move with line numbers or comments, mutants inside annotations are skipped, the
committed list parses, with a reason for every entry, and the warm worker that runs
the mutants (tools/mutant_worker.py) answers as the runner would, and never for a
mutant it could not run.
"""

from __future__ import annotations

import importlib.util
import os
import socket as _socket
import subprocess
import sys
import time
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


def test_the_warm_worker_answers_as_the_runner(tmp_path):
    """tools/mutants.py's warm worker, serving a copy of Proposition 4 (stopped after 5 s):
    verified, then failed on the broken copy make test uses, then failed on a hang and an
    exit, each read from the file as it now is; once it is stopped, the cold command runs.
    It counts the five requests it answered (not the unmutated proof's, asked first)."""
    from test_proofs import BREAKS

    proof = tmp_path / "p04_dog_bites_man.py"
    source = (ROOT / "proofs" / proof.name).read_text(encoding="utf-8")
    good, bad = BREAKS[proof.name]
    proof.write_text(source)
    socket = tmp_path / "w.sock"

    def ask():
        command = mutants.ask_command(ROOT, socket, [sys.executable, "-c", "raise SystemExit(7)"])
        return subprocess.run(command, capture_output=True, timeout=60).returncode

    with mutants.worker(socket, proof, 5, ROOT, dict(os.environ)) as served:
        assert ask() == 0
        proof.write_text(source.replace(good, bad))
        assert ask() == 1
        proof.write_text(source + "\nimport time\n\ntime.sleep(60)\n")
        started = time.monotonic()
        assert ask() == 1 and time.monotonic() - started < 30  # stopped at its 5 s
        proof.write_text(source + "\nraise SystemExit(0)\n")
        assert ask() == 1  # an exit before the result is a failure, as for the runner
        proof.write_text(source)
        assert ask() == 0
        with _socket.socket(_socket.AF_UNIX) as conn:  # the worker stopped
            conn.connect(str(socket))
            conn.sendall(b"end\n")
        assert ask() == 7  # no answer: the fallback ran, and its status is the answer
    assert served == [5]
