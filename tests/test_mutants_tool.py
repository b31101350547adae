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
import subprocess
import sys
import time
from pathlib import Path

import pytest

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


WORKER = ROOT / "tools" / "mutant_worker.py"


@pytest.fixture
def worker(tmp_path):
    """A warm worker serving a copy of Proposition 4 (stopped after 5 s), and its ``ask``."""
    from test_proofs import BREAKS

    proof = tmp_path / "p04_dog_bites_man.py"
    proof.write_text((ROOT / "proofs" / proof.name).read_text(encoding="utf-8"))
    socket = tmp_path / "w.sock"
    server = subprocess.Popen(
        [sys.executable, str(WORKER), "serve", str(socket), str(proof), "5"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not socket.exists():
        assert server.poll() is None and time.monotonic() < deadline, "the worker did not start"
        time.sleep(0.05)

    def ask(fallback=(sys.executable, "-c", "raise SystemExit(7)")):
        command = [sys.executable, str(WORKER), "ask", str(socket), "--", *fallback]
        return subprocess.run(command, capture_output=True, text=True, timeout=60).returncode

    try:
        yield proof, BREAKS[proof.name], ask, server
    finally:
        server.kill()
        server.wait()


def test_the_warm_worker_answers_as_the_runner(worker):
    """Verified, then failed on the broken copy make test uses, then failed on a hang and an
    exit, each read from the file as it now is; with the server gone, the cold command runs."""
    proof, (good, bad), ask, server = worker
    source = proof.read_text(encoding="utf-8")
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
    server.kill()
    server.wait()
    assert ask() == 7  # no answer: the fallback ran, and its status is the answer
