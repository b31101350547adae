"""``make mutants``: mutation testing of the proof scripts with Cosmic Ray.

For every proof ``proofs/pNN_*.py`` (or the numbers given), Cosmic Ray makes
one mutant at a time of that file alone (an operator swapped, a comparison
moved by one, a loop emptied, ...) and runs ``python -m proofs NN`` on it: a
mutant the proof still verifies has *survived*. Every survivor must be listed
in ``proofs/mutants-survivors.toml`` with a one-line reason why it is
equivalent (or why the proof is right not to notice it); a survivor that is
not listed, or listed with an empty reason, fails the run (exit 1).

The mutants run in scratch copies of the checkout (its tracked and untracked,
not ignored, files), one per job, so the work tree is never touched, even by a
run that is killed. Each proof's Cosmic Ray session is kept in
``build/mutants/pNN.sqlite`` with the key of what it depends on (the proof, the
shared modules of proofs/, posenc when imported, the versions, the operators):
an unchanged proof is not run again, and an interrupted run resumes.

    python tools/mutants.py                # every proof, 2 jobs
    python tools/mutants.py 15 19 -j 2     # some proofs
    python tools/mutants.py --write-new    # also append new survivors, reason "", to the file

A survivor is identified without line numbers, so that editing elsewhere in a
file does not disturb the list: the proof's number, the enclosing function
(``where``, ``<module>`` at top level), the operator, and the changed line(s)
before (``was``) and after (``now``), stripped of indentation. Identical
survivors (same four fields) share one entry.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import hashlib
import json
import os
import shlex
import shutil
import socket as _socket
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SURVIVORS = ROOT / "proofs" / "mutants-survivors.toml"
WORKER = Path("tools") / "mutant_worker.py"  # run from the scratch copy
STATE = ROOT / "build" / "mutants"

# The operators used (Cosmic Ray's names without "core/"). Cosmic Ray's full set
# replaces every binary operator by each of the 11 others and every comparison
# by each of 7: about 54,000 mutants over the 30 proofs, mostly type errors that
# die at once. This set keeps one meaningful swap per operator: about 5,000.
# NumberReplacer (every literal +1 and -1, another 10,000) is left out: the
# numbers of a proof are mostly its chosen inputs (sizes, seeds, sample points,
# tolerances), and a proof of a true statement stays true at other inputs.
OPERATORS = (
    "ReplaceBinaryOperator_Add_Sub",
    "ReplaceBinaryOperator_Sub_Add",
    "ReplaceBinaryOperator_Mul_Div",
    "ReplaceBinaryOperator_Div_Mul",
    "ReplaceBinaryOperator_Pow_Mul",
    "ReplaceBinaryOperator_FloorDiv_Div",
    "ReplaceBinaryOperator_Mod_FloorDiv",
    "ReplaceBinaryOperator_BitAnd_BitOr",
    "ReplaceBinaryOperator_BitOr_BitAnd",
    "ReplaceBinaryOperator_BitXor_BitOr",
    "ReplaceComparisonOperator_Lt_LtE",
    "ReplaceComparisonOperator_LtE_Lt",
    "ReplaceComparisonOperator_Gt_GtE",
    "ReplaceComparisonOperator_GtE_Gt",
    "ReplaceComparisonOperator_Eq_NotEq",
    "ReplaceComparisonOperator_NotEq_Eq",
    "ReplaceComparisonOperator_Is_IsNot",
    "ReplaceComparisonOperator_IsNot_Is",
    "ReplaceUnaryOperator_Delete_USub",
    "ReplaceUnaryOperator_Delete_Not",
    "ReplaceUnaryOperator_Delete_Invert",
    "AddNot",
    "ReplaceTrueWithFalse",
    "ReplaceFalseWithTrue",
    "ReplaceAndWithOr",
    "ReplaceOrWithAnd",
    "ReplaceBreakWithContinue",
    "ReplaceContinueWithBreak",
    "ZeroIterationForLoop",
    "ExceptionReplacer",
    "RemoveDecorator",
)
NUMBERS = "NumberReplacer"

#: A mutant may take this many times the unmutated proof's time (at least MIN_TIMEOUT s).
TIMEOUT_FACTOR = 10
MIN_TIMEOUT = 60.0
#: Seconds between two lines of progress while a proof's mutants run.
PROGRESS_EVERY = 60.0


@dataclass(frozen=True, order=True)
class Survivor:
    proof: int
    where: str
    operator: str
    was: str
    now: str

    def toml(self, reason: str = "") -> str:
        fields = [*asdict(self).items(), ("reason", reason)]
        body = "\n".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in fields)
        return f"[[survivor]]\n{body}\n"


@dataclass
class Outcome:
    proof: int
    name: str
    mutants: int = 0
    killed: int = 0
    survived: list[tuple[Survivor, int]] = field(default_factory=list)  # (survivor, line)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    reused: bool = False


# -- the scratch copies ------------------------------------------------------------


def copy_checkout(target: Path) -> None:
    """Copy the checkout's tracked and untracked (not ignored) files to ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / os.fsdecode(name)
        if source.is_file():  # a tracked file deleted in the work tree is skipped
            (target / source.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / source.relative_to(ROOT))


# -- one proof ---------------------------------------------------------------------


def session_key(path: Path, operators: tuple[str, ...]) -> str:
    from proofs import runner

    digest = hashlib.sha256(runner.cache_key(path).encode())
    digest.update(json.dumps([metadata.version("cosmic-ray"), operators, RULES]).encode())
    return digest.hexdigest()


def cosmic_ray(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cosmic_ray.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"cosmic-ray {args[0]} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def tally(session: Path) -> tuple[int, int, int]:
    """(mutants run, mutants in all, survivors so far) of a session, skipped ones left out."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    with use_db(str(session), WorkDB.Mode.open) as db:
        results = [result for _, result in db.results]
        items = db.num_work_items
    skipped = sum(r.worker_outcome == WorkerOutcome.SKIPPED for r in results)
    survived = sum(r.test_outcome == TestOutcome.SURVIVED for r in results)
    return len(results) - skipped, items - skipped, survived


def execute(config: Path, session: Path, tree: Path, env: dict[str, str], log) -> None:
    """``cosmic-ray exec`` (the pending mutants only), with a line of progress every minute."""
    from sqlalchemy.exc import OperationalError

    started, (before, _, _) = time.monotonic(), tally(session)
    with tempfile.TemporaryFile("w+") as output:
        child = subprocess.Popen(
            [sys.executable, "-m", "cosmic_ray.cli", "exec", str(config), str(session)],
            cwd=tree,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            text=True,
        )
        while True:
            try:
                child.wait(timeout=PROGRESS_EVERY)
                break
            except subprocess.TimeoutExpired:
                try:
                    run, total, survived = tally(session)
                except OperationalError:  # the database is busy: say it next time
                    continue
                rate = (run - before) / (time.monotonic() - started)
                left = f", about {(total - run) / rate / 60:.0f} min left" if rate else ""
                log(f"{run} of {total} mutants run, {survived} survived so far{left}")
        if child.returncode != 0:
            output.seek(0)
            raise RuntimeError(f"cosmic-ray exec failed:\n{output.read()}")


def cold_command(number: int, limit: float, report: Path) -> list[str]:
    """How a mutant is run without the worker: the runner, stopped at the first failure."""
    flags = ["--no-cache", "-q", "--first-failure", "--timeout", f"{limit:g}"]
    return [sys.executable, "-m", "proofs", str(number), *flags, "--report", str(report)]


def ask_command(tree: Path, socket: Path, fallback: list[str]) -> list[str]:
    """How a mutant is run with the worker: ``ask``, which runs ``fallback`` if no answer comes."""
    return [sys.executable, str(tree / WORKER), "ask", str(socket), "--", *fallback]


@contextlib.contextmanager
def worker(socket: Path, proof: Path, limit: float, tree: Path, env: dict[str, str]):
    """tools/mutant_worker.py serving ``proof`` on ``socket``, checked on the unmutated proof.

    Yields a one-item list that holds, once the block ends, how many requests it answered.
    """
    socket.unlink(missing_ok=True)
    command = [sys.executable, str(tree / WORKER), "serve", str(socket), str(proof), f"{limit:g}"]
    server = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.PIPE, text=True)
    served = [0]
    try:
        deadline = time.monotonic() + 300
        while not socket.exists():
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the warm worker did not start: {' '.join(command)}")
            time.sleep(0.1)
        # The unmutated proof, answered warm, must verify as it did cold.
        asked = ask_command(tree, socket, ["/bin/false"])
        if subprocess.run(asked, cwd=tree, env=env, capture_output=True).returncode != 0:
            raise RuntimeError(f"the warm worker fails the unmutated proof {proof.name}")
        yield served
    finally:
        if server.poll() is None:
            with contextlib.suppress(OSError), _socket.socket(_socket.AF_UNIX) as conn:
                conn.connect(str(socket))
                conn.sendall(b"end\n")
        try:
            out, _ = server.communicate(timeout=30)
            served[0] = int(out.split()[-1]) - 1  # less the unmutated proof's request
        except (subprocess.TimeoutExpired, ValueError, IndexError):
            server.kill()
            server.communicate()


def without_comment(line: str) -> str:
    """``line`` stripped, without a trailing comment (kept as is if it does not tokenize alone)."""
    import io
    import tokenize

    try:
        for token in tokenize.generate_tokens(io.StringIO(line.strip()).readline):
            if token.type == tokenize.COMMENT:
                return line.strip()[: token.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):  # part of a longer statement
        pass
    return line.strip()


def changed_lines(diff: str) -> tuple[str, str]:
    """The removed and the added lines of a mutant's diff, stripped, joined by ' / '."""
    was, now = [], []
    for line in diff.splitlines():
        if line.startswith(("---", "+++", "@@")):
            continue
        if line.startswith("-"):
            was.append(without_comment(line[1:]))
        elif line.startswith("+"):
            now.append(without_comment(line[1:]))
    return " / ".join(was), " / ".join(now)


#: Bump when the rules of :func:`skipped_spans` change: it invalidates every session.
RULES = 1


def skipped_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end), as (line, column in characters), of the code whose mutants are skipped.

    Annotations: with ``from __future__ import annotations`` (every proof) an
    annotation is never evaluated, so a mutant inside one (``int | None`` to
    ``int & None``) is equivalent by construction. F-strings: in a proof they
    are text (a claim, a scope, a witness's description, a quantity's name),
    which no check reads.
    """
    import ast

    lines = source.splitlines()

    def chars(line: int, byte: int) -> int:  # ast counts UTF-8 bytes, Cosmic Ray characters
        return len(lines[line - 1].encode()[:byte].decode(errors="replace"))

    spans = []
    for node in ast.walk(ast.parse(source)):
        notes = []
        if isinstance(node, ast.arg | ast.AnnAssign):
            notes.append(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            notes.append(node.returns)
        if isinstance(node, ast.JoinedStr):
            notes.append(node)
        for note in filter(None, notes):
            spans.append(
                (
                    (note.lineno, chars(note.lineno, note.col_offset)),
                    (note.end_lineno, chars(note.end_lineno, note.end_col_offset)),
                )
            )
    return spans


def skip_spans(session: Path, path: Path) -> int:
    """Mark the pending mutants in :func:`skipped_spans` as skipped (Cosmic Ray's filter API)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    spans = skipped_spans(path.read_text(encoding="utf-8"))
    skipped = 0
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item in db.pending_work_items:
            (m,) = item.mutations
            if any(a <= tuple(m.start_pos) and tuple(m.end_pos) <= b for a, b in spans):
                db.set_result(
                    item.job_id,
                    WorkResult(
                        output="inside an annotation or f-string",
                        worker_outcome=WorkerOutcome.SKIPPED,
                    ),
                )
                skipped += 1
    return skipped


def run_proof(
    path: Path, tree: Path, operators: tuple[str, ...], log, warm: bool = True
) -> Outcome:
    number = int(path.name[1:3])
    outcome = Outcome(number, path.stem)
    started = time.perf_counter()
    STATE.mkdir(parents=True, exist_ok=True)
    session, keyfile = STATE / f"{path.stem}.sqlite", STATE / f"{path.stem}.key"
    key = session_key(path, operators)
    # No .pyc of a proof in the scratch copy: a mutant of the same size written in the same
    # second could otherwise be run from the bytecode of the one before it.
    env = {
        **os.environ,
        "POSENC_PROOF_CACHE": str(tree / ".cache" / "mutants"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    python = sys.executable
    report = tree / "build" / "proofs-report.json"

    reuse = session.exists() and keyfile.exists() and keyfile.read_text() == key
    outcome.reused = reuse
    # The unmutated proof must pass in the scratch copy, and sets the time limit.
    t0 = time.perf_counter()
    base = subprocess.run(
        [python, "-m", "proofs", str(number), "--no-cache", "-q", "--report", str(report)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    baseline = time.perf_counter() - t0
    if base.returncode != 0:
        outcome.errors.append(f"the unmutated proof fails:\n{base.stdout}{base.stderr}")
        return outcome
    limit = max(MIN_TIMEOUT, TIMEOUT_FACTOR * baseline)
    config = tree / f"cosmic-ray-{path.stem}.toml"
    module = path.relative_to(ROOT).as_posix()
    exclude = "(?!core/(" + "|".join(operators) + ")$)"
    command = cold_command(number, limit, report)
    socket = tree / "worker.sock"
    if warm:  # the worker answers; the cold command is its fallback
        command = ask_command(tree, socket, command)
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(module)}\n"
        f"timeout = {limit + 60:g}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(shlex.join(command))}\n\n"
        '[cosmic-ray.distributor]\nname = "local"\n\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = [{json.dumps(exclude)}]\n"
    )
    if not reuse:
        session.unlink(missing_ok=True)
        keyfile.unlink(missing_ok=True)
        cosmic_ray("init", str(config), str(session), cwd=tree, env=env)
        subprocess.run(
            [python, "-m", "cosmic_ray.tools.filters.operators_filter", str(session), str(config)],
            cwd=tree,
            env=env,
            check=True,
        )
        # Lines marked "# pragma: no mutate", then annotations and f-strings.
        subprocess.run(
            [python, "-m", "cosmic_ray.tools.filters.pragma_no_mutate", str(session)],
            cwd=tree,
            env=env,
            check=True,
        )
        skip_spans(session, tree / module)
        keyfile.write_text(key)
    log(f"p{number:02d}: baseline {baseline:.1f} s, mutant time limit {limit:g} s")
    say = lambda text: log(f"p{number:02d}: {text}")  # noqa: E731
    if warm:
        with worker(socket, tree / module, limit, tree, env) as served:
            execute(config, session, tree, env, say)
        say(f"{served[0]} mutants answered by the warm worker")
    else:
        execute(config, session, tree, env, say)

    for line in cosmic_ray("dump", str(session), cwd=tree, env=env).splitlines():
        item, result = json.loads(line)
        if result is None or result["worker_outcome"] == "skipped":
            continue
        (mutation,) = item["mutations"]
        if result["worker_outcome"] != "normal" or result["test_outcome"] == "incompetent":
            outcome.errors.append(
                f"{mutation['operator_name']} at line {mutation['start_pos'][0]}: "
                f"{result['worker_outcome']}/{result['test_outcome']}"
            )
            continue
        outcome.mutants += 1
        if result["test_outcome"] == "killed":
            outcome.killed += 1
            continue
        was, now = changed_lines(result["diff"])
        survivor = Survivor(
            number,
            mutation["definition_name"] or "<module>",
            mutation["operator_name"].removeprefix("core/"),
            was,
            now,
        )
        outcome.survived.append((survivor, mutation["start_pos"][0]))
    outcome.seconds = time.perf_counter() - started
    return outcome


# -- the list of known survivors ---------------------------------------------------


def read_known(path: Path) -> dict[Survivor, str]:
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    known = {}
    for entry in data.get("survivor", []):
        reason = str(entry.get("reason", "")).strip()
        fields = (str(entry[k]) for k in ("where", "operator", "was", "now"))
        known[Survivor(int(entry["proof"]), *fields)] = reason
    return known


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/mutants.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("numbers", nargs="*", type=int, metavar="N", help="proofs (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--numbers",
        dest="with_numbers",
        action="store_true",
        help="also mutate numeric literals (about 3x the mutants)",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="run each mutant as python -m proofs N (two fresh processes) instead of "
        "forking it from a warm worker (tools/mutant_worker.py): slower, for comparison",
    )
    parser.add_argument("--survivors", type=Path, default=SURVIVORS)
    parser.add_argument(
        "--write-new",
        action="store_true",
        help="append the new survivors to the survivors file with an empty reason",
    )
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    from proofs import runner

    paths = runner.discover()
    if args.numbers:
        by_number = {runner.number_of(p): p for p in paths}
        unknown = sorted(set(args.numbers) - set(by_number))
        if unknown:
            parser.error(f"no proof numbered {unknown}")
        paths = [by_number[n] for n in sorted(set(args.numbers))]
    operators = OPERATORS + ((NUMBERS,) if args.with_numbers else ())
    # Longest files first, so that two jobs finish together.
    paths.sort(key=lambda p: -p.stat().st_size)

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    scratch = Path(tempfile.mkdtemp(prefix="posenc-mutants-"))
    jobs = max(1, min(args.jobs, len(paths)))
    trees = []
    for k in range(jobs):
        tree = scratch / f"tree{k}"
        copy_checkout(tree)
        trees.append(tree)
    free = list(trees)
    outcomes: list[Outcome] = []
    try:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            pending = {}
            queue = list(paths)
            while queue or pending:
                while queue and free:
                    path, tree = queue.pop(0), free.pop()
                    pending[pool.submit(run_proof, path, tree, operators, log, not args.cold)] = (
                        tree
                    )
                done, _ = concurrent.futures.wait(pending, return_when="FIRST_COMPLETED")
                for future in done:
                    free.append(pending.pop(future))
                    o = future.result()
                    outcomes.append(o)
                    rate = f"{100 * o.killed / o.mutants:.1f}%" if o.mutants else "-"
                    log(
                        f"p{o.proof:02d}: {o.mutants} mutants, {o.killed} killed ({rate}), "
                        f"{len(o.survived)} survived, {len(o.errors)} errors, {o.seconds:.0f} s"
                        + (" (session reused)" if o.reused else "")
                    )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    outcomes.sort(key=lambda o: o.proof)
    known = read_known(args.survivors)
    ran = {o.proof for o in outcomes}
    found: dict[Survivor, int] = {}
    for o in outcomes:
        for survivor, line in o.survived:
            found.setdefault(survivor, line)
    new = sorted(s for s in found if s not in known)
    unexplained = sorted(s for s in found if s in known and not known[s])
    stale = sorted(s for s in known if s.proof in ran and s not in found)
    errors = [f"p{o.proof:02d}: {e}" for o in outcomes for e in o.errors]

    total = sum(o.mutants for o in outcomes)
    killed = sum(o.killed for o in outcomes)
    survived = sum(len(o.survived) for o in outcomes)
    STATE.mkdir(parents=True, exist_ok=True)
    (STATE / "report.json").write_text(
        json.dumps(
            {
                "operators": operators,
                "proofs": [
                    {
                        "proof": o.proof,
                        "mutants": o.mutants,
                        "killed": o.killed,
                        "seconds": round(o.seconds, 1),
                        "survivors": [{**asdict(s), "line": line} for s, line in o.survived],
                        "errors": o.errors,
                    }
                    for o in outcomes
                ],
            },
            indent=1,
        )
        + "\n"
    )

    for s in new:
        print(
            f"NEW SURVIVOR p{s.proof:02d}:{found[s]} in {s.where} ({s.operator})\n"
            f"    was: {s.was}\n    now: {s.now}"
        )
    for s in unexplained:
        print(
            f"SURVIVOR WITHOUT A REASON p{s.proof:02d}:{found[s]} in {s.where} "
            f"({s.operator}): {s.was}"
        )
    for s in stale:
        print(f"stale entry (no longer survives): p{s.proof:02d} {s.where} {s.operator}: {s.was}")
    for e in errors:
        print(f"ERROR {e}")
    if args.write_new and new:
        text = args.survivors.read_text(encoding="utf-8") if args.survivors.exists() else ""
        args.survivors.write_text(text + "".join("\n" + s.toml() for s in new), encoding="utf-8")
        print(f"appended {len(new)} new survivors to {args.survivors}: give each a reason")
    rate = f"{100 * killed / total:.1f}%" if total else "-"
    explained = sum(1 for o in outcomes for s, _ in o.survived if known.get(s))
    print(
        f"{len(outcomes)} proofs, {total} mutants: {killed} killed ({rate}), "
        f"{survived} survived "
        f"({explained} with a reason, {survived - explained} without); "
        f"kill rate counting the explained as equivalent: "
        f"{100 * killed / max(1, total - explained):.1f}%"
    )
    if errors:
        return 2
    return 1 if new or unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
