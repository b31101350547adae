"""Which pages `make lighthouse` judges (tools/lighthouse.py): every kind, every page of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hooks import registry
from tools import lighthouse

ROOT = Path(__file__).resolve().parent.parent


def test_every_proposition_exercise_notebook_reference_page_and_the_graph_is_judged(site_dir):
    judged = lighthouse.pages(site_dir)
    paths = set(judged.values())
    for entry in registry.load(ROOT / "docs", ROOT).values():
        assert entry.url in paths, f"Proposition {entry.number} is not judged"
    for folder in ("exercises", "notebooks", "reference"):
        built = {
            p.parent.relative_to(site_dir).as_posix() + "/"
            for p in (site_dir / folder).rglob("index.html")
        }
        assert built and built <= paths, folder
    assert {"", "graph/"} <= paths
    kinds = {lighthouse.kind(p) for p in paths}
    assert kinds == {"home", "proposition", "exercise", "notebook", "reference", "graph", "page"}
    assert not [p for p in paths if p.startswith(("p/", "propositions/all/"))]


def test_a_selection_keeps_kinds_and_path_prefixes_and_refuses_one_that_names_nothing(site_dir):
    some = lighthouse.pages(site_dir, "graph, propositions/p01")
    assert list(some.values()) == [
        "propositions/p01-attention-is-permutation-equivariant/",
        "graph/",
    ]
    with pytest.raises(SystemExit, match="names no page"):
        lighthouse.pages(site_dir, "nothing-like-this")


# -- reading one run (tools/lighthouse.py) ----------------------------------------------


@pytest.mark.parametrize(
    "paint, load, late",
    [
        (1306, 332, True),
        (245, 290, False),
        (830, 330, True),
        (829, 330, False),
        (None, 300, False),
    ],
)
def test_a_first_frame_half_a_second_after_load_is_late(paint, load, late):
    assert lighthouse.late_first_frame({"observedFirstPaint": paint, "observedLoad": load}) is late


def test_withheld_frames_are_counted_by_reason_and_sent_ones_are_not():
    def decision(reason, send):
        return {"name": "SendBeginFrameDecision", "args": {"reason": reason, "should_send": send}}

    events = [
        decision("SendDefault", True),
        decision("ThrottleUndrawnFrames", False),
        decision("ThrottleUndrawnFrames", False),
        decision("StopNotRequested", False),
        {"name": "Other", "args": {"should_send": False}},
    ]
    assert lighthouse.withheld_frames(events) == {
        "ThrottleUndrawnFrames": 2,
        "StopNotRequested": 1,
    }


def _run(performance: int, late: bool = False, withheld=None) -> lighthouse.Run:
    return lighthouse.Run({"performance": performance}, [], late, withheld)


def test_the_median_run_is_judged_and_every_run_is_printed():
    five = [_run(97), _run(84, late=True), _run(99), _run(95), _run(91)]
    assert lighthouse.median_run(five).scores["performance"] == 95
    assert lighthouse.median_run(five[:4]).scores["performance"] == 95  # the lower middle
    printed = [lighthouse.describe(r) for r in five]
    assert printed == ["97", "84*", "99", "95", "91"]
    assert lighthouse.describe(_run(88, True, {"ThrottleUndrawnFrames": 60})) == (
        "88*[ThrottleUndrawnFrames:60]"
    )
