"""The interactive figures of the site (docs/javascripts/widgets.js), in headless Chromium.

Four widgets, each included in a proposition page from ``docs/includes/widgets/``:

- ``dog-bites-man`` (Proposition 4): the toy sentence in both orders; without the
  position code every word's output is the same in both (distance exactly 0),
  with it they differ; a guess first, then a walk of six steps (word vectors,
  scores, shares, outputs, the code, outputs again), each lighting its part of
  the tables;
- ``heatmap`` (Proposition 5): the sinusoidal code for a chosen width and length,
  and the code of a chosen position;
- ``clock-bank`` (Proposition 8): one clock per chosen pair, and the block of
  ``M_k`` that turns ``PE(pos)`` into ``PE(pos + k)``;
- ``alibi`` (Proposition 16): ALiBi's bias row of every head for a chosen query, and
  the weights the bias alone gives the keys;
- ``rope-ladder`` (Proposition 28): a rotary head's speeds before and after a chosen
  scheme stretches it by s, the band of each pair, and the pairs that turn within L0
  and within s L0.

Each widget writes its current numbers into its ``data-state`` attribute. The
tests drive the widgets with the mouse, the keyboard and a touch screen, read
that attribute and compare it with :mod:`posenc` (``sinusoidal``, ``attention``, ``softmax``,
``shift_matrix``, ``relative.alibi_slopes``, ``relative.alibi_bias`` and ``rope``) to
within 1e-12. They also check the static version shown without JavaScript, the accessible
names and descriptions, the live region, the canvas resolution, the focus ring, the
contrast of the widget's text in both colour schemes, and that no page logs a console error.

A widget missing from the built site is a failure: the pages must include it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pytest
from conftest import local_context

import posenc

pytestmark = pytest.mark.browser

TOLERANCE = 1e-12
BASE = 10000.0

# Which proposition's page is to hold each widget (the lead includes the snippets).
HOMES = {
    "dog-bites-man": "Proposition 4 (the toy: dog bites man)",
    "heatmap": "Proposition 5 (the bank of clocks)",
    "clock-bank": "Proposition 8 (a shift is a rotation)",
    "alibi": "Proposition 16 (ALiBi)",
    "rope-ladder": "Proposition 28 (Llama 3's scaling)",
}
KINDS = tuple(HOMES)
_MARKER = re.compile(r'data-posenc-widget="([a-z-]+)"')

# ----------------------------------------------------------------------------
# Finding the widgets and opening their pages


@pytest.fixture(scope="session")
def widget_pages(site_dir: Path) -> dict[str, list[str]]:
    """For each widget kind, the pages of the built site that hold it (paths from the root)."""
    found: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for path in sorted(site_dir.rglob("*.html")):
        for kind in set(_MARKER.findall(path.read_text(encoding="utf-8"))):
            found.setdefault(kind, []).append(path.relative_to(site_dir).as_posix())
    for pages in found.values():  # a proposition's own page before a page that collects many
        pages.sort(key=lambda page: (page.count("/"), "all" in page, page))
    return found


def _url(served_url: str, page: str) -> str:
    return served_url + page.removesuffix("index.html")


@pytest.fixture(scope="session")
def page_of(widget_pages: dict[str, list[str]], served_url: str) -> Callable[[str], str]:
    """The URL of the first page holding a widget; fails, saying what to include, if none does."""

    def find(kind: str) -> str:
        pages = widget_pages.get(kind) or []
        if not pages:
            pytest.fail(
                f"no page of the built site holds the {kind!r} widget: the lead must include "
                f"it in {HOMES[kind]}'s page, with the line\n"
                f'    --8<-- "docs/includes/widgets/{kind}.html"\n'
                "on its own, and load docs/javascripts/widgets.js and "
                "docs/stylesheets/widgets.css (extra_javascript, extra_css in mkdocs.yml)",
                pytrace=False,
            )
        return _url(served_url, pages[0])

    return find


@pytest.fixture(scope="session")
def new_context(chromium, served_url) -> Iterator[Callable[..., object]]:
    """Make browser contexts (closed at the end); requests off the site are aborted."""
    made = []

    def make(**options):
        context = local_context(chromium, served_url, **options)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


@pytest.fixture(scope="session")
def touch_context(new_context):
    """A phone: 390 px wide, a touch screen, two device pixels per CSS pixel."""
    return new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, device_scale_factor=2
    )


class Opened:
    """A page with one widget, and everything the page reported while the test ran."""

    def __init__(self, context, url: str, kind: str) -> None:
        self.problems: list[str] = []
        self.page = page = context.new_page()
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught exception: {error}"))
        page.goto(url)
        self.root = page.locator(f'[data-posenc-widget="{kind}"]').first
        self.root.and_(page.locator(".posenc-widget--live")).wait_for(timeout=5000)

    def _console(self, message) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    def state(self) -> dict:
        return json.loads(self.root.get_attribute("data-state"))

    def announced(self) -> str:
        """The live region's text once the debounce has passed."""
        self.page.wait_for_timeout(900)
        return self.root.locator("[aria-live=polite]").inner_text()

    def close(self) -> None:
        self.page.close()
        assert not self.problems, "\n".join(self.problems)


@pytest.fixture(scope="session")
def widget_context(new_context):
    """The desktop context the widget tests share."""
    return new_context()


@pytest.fixture
def open_widget(widget_context) -> Iterator[Callable[..., Opened]]:
    """Open a widget's page (in the default context unless given); check its console after."""
    opened: list[Opened] = []

    def open_(url: str, kind: str, context=None) -> Opened:
        page = Opened(context or widget_context, url, kind)
        opened.append(page)
        return page

    yield open_
    for page in opened:
        page.close()


def _close(actual, expected, what: str) -> None:
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    error = float(np.max(np.abs(actual - expected))) if actual.size else 0.0
    assert error <= TOLERANCE, (
        f"{what}: off by {error:.3g} (tolerance {TOLERANCE})\n{actual}\n{expected}"
    )


def _pe(position: int, width: int) -> np.ndarray:
    """``PE(position)`` for any integer position: M_position applied to PE(0)."""
    return posenc.shift_matrix(position, width) @ posenc.sinusoidal(1, width)[0]


# ----------------------------------------------------------------------------
# Every widget is somewhere, and every page can run the script


@pytest.mark.parametrize("kind", KINDS)
def test_widget_is_on_a_page(kind: str, page_of) -> None:
    page_of(kind)


def test_a_page_loads_the_widget_script_and_style_exactly_when_it_has_a_widget(
    site_dir: Path,
) -> None:
    """hooks/loading.py: the script and the (inlined) stylesheet go only where a widget is."""
    wrong, with_widgets = [], 0
    for path in sorted(site_dir.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        if 'http-equiv="refresh"' in text or "<body" not in text:
            continue  # a redirect stub
        has_widget = "data-posenc-widget" in text.partition("</head>")[2]
        script = re.search(r'<script[^>]+src="[^"]*javascripts/widgets\.js', text) is not None
        style = 'data-posenc-from="stylesheets/widgets.css"' in text
        linked = re.search(r'<link[^>]+href="[^"]*stylesheets/widgets\.css', text) is not None
        if (script, style, linked) != (has_widget, has_widget, False):
            wrong.append(f"{path.relative_to(site_dir).as_posix()} {(script, style, linked)}")
        with_widgets += has_widget
    assert not wrong, (
        f"widget script, inline style, linked style where they should not be: {wrong[:5]}"
    )
    assert with_widgets >= 5, "the pages with widgets (P4, P5, P8, P16, P28) were not found"


def test_script_is_quiet_on_a_page_without_widgets(served_url: str, browser_context) -> None:
    page = browser_context.new_page()
    problems: list[str] = []
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(served_url)  # the home page: the script runs and finds nothing to do
    page.wait_for_load_state("load")
    page.close()
    assert not problems, problems


@pytest.mark.parametrize("kind", KINDS)
def test_widget_is_described_and_announced(kind: str, page_of, open_widget) -> None:
    w = open_widget(page_of(kind), kind)
    described = w.root.get_attribute("aria-describedby")
    assert described, "the widget root needs aria-describedby"
    description = w.page.locator(f"#{described}")
    assert description.count() == 1 and len(description.inner_text().strip()) > 40
    assert w.root.get_attribute("aria-labelledby") or w.root.get_attribute("aria-label")
    region = w.root.locator('[aria-live="polite"]')
    assert region.count() == 1
    assert region.inner_text() == "", "nothing is announced before the reader does anything"
    # Every control has a name (Playwright computes it as a screen reader would).
    for control in w.root.locator("button, input, [role=slider], [tabindex='0']").all():
        name = control.evaluate(
            "el => el.getAttribute('aria-label') || el.labels?.[0]?.textContent"
            " || el.textContent || ''"
        )
        assert name.strip(), f"a control without a name: {control.evaluate('e => e.outerHTML')}"


# ----------------------------------------------------------------------------
# 1. Dog bites man


def _dog_expected(words: dict[str, list[float]], with_code: bool):
    names = list(words)
    width = len(words[names[0]])
    eye = np.eye(width)
    orders = [names, names[::-1]]
    code = posenc.sinusoidal(len(names), width) if with_code else np.zeros((len(names), width))
    outputs = {}
    for order in orders:
        x = np.array([words[name] for name in order], dtype=np.float64) + code
        outputs[" ".join(order)] = (x, posenc.attention(x, eye, eye, eye))
    distances = {
        name: float(
            np.linalg.norm(
                outputs[" ".join(orders[0])][1][orders[0].index(name)]
                - outputs[" ".join(orders[1])][1][orders[1].index(name)]
            )
        )
        for name in names
    }
    return outputs, distances


def _check_dog(w: Opened, with_code: bool) -> dict:
    words = json.loads(w.root.get_attribute("data-words"))
    state = w.state()
    assert state["withCode"] is with_code
    button = w.root.get_by_role("button", name=re.compile("position code"))
    assert button.get_attribute("aria-pressed") == str(with_code).lower()
    outputs, distances = _dog_expected(words, with_code)
    assert set(state["outputs"]) == set(outputs)
    for title, (x, out) in outputs.items():
        _close(state["inputs"][title], x, f"{title}: inputs")
        _close(state["outputs"][title], out, f"{title}: attention outputs")
    assert list(state["distances"]) == list(words)
    for name, distance in state["distances"].items():
        if with_code:
            assert distance > 1e-3, f"{name}: the code should separate the two sentences"
            assert abs(distance - distances[name]) <= TOLERANCE, (name, distance, distances[name])
        else:
            assert distance == 0.0, f"{name}: without the code the distance must be exactly 0"
    return state


def test_dog_bites_man_mouse_and_keyboard(page_of, open_widget) -> None:
    w = open_widget(page_of("dog-bites-man"), "dog-bites-man")
    _check_dog(w, with_code=False)
    shown = w.root.locator(".posenc-dog__dist td.posenc-num").all_inner_texts()
    assert shown and all(text == "0" for text in shown), shown

    button = w.root.get_by_role("button", name=re.compile("position code"))
    button.click()  # mouse
    state = _check_dog(w, with_code=True)
    announced = w.announced()
    assert "added" in announced and "dog" in announced, announced
    shown = w.root.locator(".posenc-dog__dist td.posenc-num").all_inner_texts()
    assert all(text != "0" for text in shown), shown
    assert shown[0] == _shown(state["distances"]["dog"])

    button.focus()
    w.page.keyboard.press("Space")  # keyboard
    _check_dog(w, with_code=False)
    w.page.keyboard.press("Enter")
    _check_dog(w, with_code=True)


# Words for which adding up attention's terms in sentence order would leave the two
# sentences' outputs a rounding error apart (1e-16) without the code: the widget must
# still give exactly 0, as the mathematics does.
OTHER_WORDS = {
    "cat": [0.7, -0.9, -0.9, 0.1],
    "chases": [0.3, -1.0, -0.2, -0.9],
    "mouse": [-0.2, 0.4, 0.2, 0.9],
}


def test_dog_bites_man_takes_its_words_from_the_page(page_of, open_widget, new_context) -> None:
    url = page_of("dog-bites-man")
    context = new_context()

    def rewrite(route) -> None:  # the page's author chose other words: data-words only
        response = route.fetch()
        words = "data-words='" + json.dumps(OTHER_WORDS) + "'"
        body, count = re.subn(r"data-words='[^']*'", words, response.text(), count=1)
        assert count == 1, "the dog-bites-man widget has no data-words attribute"
        route.fulfill(response=response, body=body)

    context.route(url, rewrite)
    w = open_widget(url, "dog-bites-man", context)
    assert json.loads(w.root.get_attribute("data-words")) == OTHER_WORDS
    assert _check_dog(w, with_code=False)["sentences"] == ["cat chases mouse", "mouse chases cat"]
    w.root.get_by_role("button", name=re.compile("position code")).click()
    _check_dog(w, with_code=True)


def _fits_a_phone(w: Opened) -> None:
    """Nothing wider than the 390 px window; every control at least 24 x 24 px to touch."""
    overflow = w.page.evaluate("document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than a 390 px phone"
    small = w.root.evaluate(
        """root => [...root.querySelectorAll('button, input, [role=slider]')].filter(el => {
             const r = el.getBoundingClientRect();
             return r.width < 24 || r.height < 24;
           }).map(el => el.outerHTML.slice(0, 80))"""
    )
    assert not small, f"controls smaller than 24 x 24 px: {small}"


def test_dog_bites_man_touch(page_of, open_widget, touch_context) -> None:
    w = open_widget(page_of("dog-bites-man"), "dog-bites-man", touch_context)
    _fits_a_phone(w)
    w.root.get_by_role("button", name=re.compile("position code")).tap()
    _check_dog(w, with_code=True)
    w.root.get_by_role("button", name=re.compile("position code")).tap()
    _check_dog(w, with_code=False)


# ----------------------------------------------------------------------------
# 1b. Dog bites man, step by step: a guess first, then six steps


# What each step of the walk lights, as the issue asks for it: the word vectors, the
# scores, the shares, the outputs (equal in both orders), the code, the outputs again.
WALK = {
    1: ("The word vectors", {"in"}, {"inputs"}),
    2: ("The scores", {"scores"}, {"scores"}),
    3: ("The shares", {"shares"}, {"shares"}),
    4: ("The outputs, in both orders", {"out", "dist"}, {"outputs", "distances"}),
    5: ("Add the position code", {"code", "in"}, {"code", "inputs"}),
    6: ("The outputs now differ", {"out", "dist"}, {"outputs", "distances"}),
}
PARTS = ("code", "in", "scores", "shares", "out")

# Everything the walk shows, read in one round trip.
_WALK_SHOWN = """
root => {
  const texts = (cells) => [...cells].map((c) => c.textContent);
  const weight = (el) => el ? getComputedStyle(el).fontWeight : null;
  return {
    state: JSON.parse(root.dataset.state),
    tables: [...root.querySelectorAll("table.posenc-dog__table")].map((t) => ({
      sentence: t.dataset.sentence,
      words: texts(t.querySelectorAll("thead th.posenc-dog__word > span:last-child")),
      parts: Object.fromEntries([...t.querySelectorAll("tbody[data-part]")].map((b) => [
        b.dataset.part,
        {
          visible: b.checkVisibility(),
          rows: [...b.rows].map((r) => texts(r.querySelectorAll("td.posenc-num"))),
          labels: [...b.rows].map((r) => r.querySelector(".posenc-dog__label").textContent),
          weight: weight(b.querySelector("td.posenc-num")),
          marker: getComputedStyle(b.querySelector("th.posenc-dog__part")).boxShadow,
        },
      ])),
    })),
    dist: texts(root.querySelectorAll(".posenc-dog__dist td.posenc-num")),
    distOutline: getComputedStyle(root.querySelector(".posenc-dog__dist")).outlineStyle,
    lit: [...root.querySelectorAll(".posenc-dog--lit")].map((el) => [
      el.dataset.part, el.hasAttribute("data-lit"), el.closest("table").dataset.sentence || "",
    ]),
    current: [...root.querySelectorAll(".posenc-walk__step")].map(
      (b) => b.getAttribute("aria-current")),
    disabled: [...root.querySelectorAll(".posenc-walk__move")].map(
      (b) => b.getAttribute("aria-disabled")),
    heading: root.querySelector(".posenc-walk__now").textContent,
    text: root.querySelector(".posenc-walk__text").textContent,
    reply: root.querySelector(".posenc-guess__answer").checkVisibility()
      ? root.querySelector(".posenc-guess__answer").textContent : null,
    pressed: [...root.querySelectorAll(".posenc-guess__choice")].map(
      (b) => [b.dataset.guess, b.getAttribute("aria-pressed")]),
  };
}
"""


def _fixed3(x: float) -> str:
    """How the dog widget's tables print a number: 3 decimals, ties away from 0, no -0.000."""
    text = str(Decimal(float(x)).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))
    if re.fullmatch(r"-0\.0*", text):
        text = text[1:]
    return text.replace("-", "\u2212")


def _close_rel(actual, expected, what: str) -> None:
    """Equal to 1e-12 relative, entry by entry (an exact 0 must be an exact 0)."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    np.testing.assert_allclose(actual, expected, rtol=TOLERANCE, atol=0, err_msg=what)


def _walk_expected(words: dict[str, list[float]], with_code: bool) -> dict:
    """Per sentence, from posenc: code, inputs, scores, shares and outputs; and the distances."""
    names = list(words)
    n, width = len(names), len(words[names[0]])
    eye = np.eye(width)
    code = posenc.sinusoidal(n, width) if with_code else np.zeros((n, width))  # (n, d)
    sentences = {}
    for order in (names, names[::-1]):
        x = np.array([words[name] for name in order], dtype=np.float64) + code  # (n, d)
        scores = x @ x.T / np.sqrt(width)  # (n, n): query i, key j
        shares = posenc.softmax(scores, axis=-1)  # (n, n): rows add up to 1
        out = posenc.attention(x, eye, eye, eye)  # (n, d)
        _close_rel(shares @ x, out, "posenc: the shares mix the values into the outputs")
        sentences[" ".join(order)] = {
            "order": order,
            "code": code,
            "x": x,
            "scores": scores,
            "shares": shares,
            "out": out,
        }
    one, two = sentences.values()
    distances = {
        name: float(
            np.linalg.norm(one["out"][names.index(name)] - two["out"][n - 1 - names.index(name)])
        )
        for name in names
    }  # the second order is the first reversed
    return {"sentences": sentences, "distances": distances}


def _step_quotes(step: int, words: dict[str, list[float]], expected: dict) -> list[str]:
    """The numbers step ``step`` quotes in its text, printed from posenc's values."""
    names = list(words)
    first, last, n = names[0], names[-1], len(names)
    s1, s2 = expected["sentences"].values()
    width = len(words[first])

    def vector(v) -> str:
        return "(" + ", ".join(_shown(x) for x in v) + ")"

    def distances() -> str:
        return ", ".join(f"{name} {_shown(expected['distances'][name])}" for name in names)

    return {
        1: [f"{first} = {vector(words[first])}", f"position {n - 1} in"],
        2: [
            f"\u221a{width} = {_shown(np.sqrt(width))}",
            f"score {_shown(s1['scores'][0, n - 1])} in \u201c{' '.join(s1['order'])}\u201d",
            f"and {_shown(s2['scores'][n - 1, 0])} in \u201c{' '.join(s2['order'])}\u201d",
        ],
        3: [
            f"{first} gives {last} the share {_shown(s1['shares'][0, n - 1])} in",
            f"and {_shown(s2['shares'][n - 1, 0])} in",
        ],
        4: [f"two outputs: {', '.join(f'{name} 0' for name in names)}."],
        5: [f"PE(1) = {vector(_pe(1, width))}", f"{first} + PE({n - 1})"],
        6: [f"Distances: {distances()}."],
    }[step]


def _check_walk(w: Opened, step: int) -> dict:
    """Everything step ``step`` of the walk shows, against posenc computed here."""
    shown = w.root.evaluate(_WALK_SHOWN)
    state = shown["state"]
    words = json.loads(w.root.get_attribute("data-words"))
    names = list(words)
    name, parts, keys = WALK[step]
    with_code = step >= 5
    assert state["step"] == step and state["stepName"] == name, (state["step"], step)
    assert state["withCode"] is with_code
    expected = _walk_expected(words, with_code)

    # Every number of the state, at every step.
    for title, e in expected["sentences"].items():
        _close_rel(state["inputs"][title], e["x"], f"step {step}, {title}: inputs")
        _close_rel(state["scores"][title], e["scores"], f"step {step}, {title}: scores")
        _close_rel(state["shares"][title], e["shares"], f"step {step}, {title}: shares")
        _close_rel(state["outputs"][title], e["out"], f"step {step}, {title}: outputs")
    if with_code:
        _close_rel(state["code"], posenc.sinusoidal(len(names), len(words[names[0]])), "the code")
    else:
        assert state["code"] is None
    for word in names:
        if with_code:
            assert expected["distances"][word] > 1e-3, f"posenc: {word} should move"
            _close_rel(state["distances"][word], expected["distances"][word], f"{word}: distance")
        else:
            assert expected["distances"][word] <= TOLERANCE, f"posenc: {word} should not move"
            assert state["distances"][word] == 0.0, f"{word}: without the code, exactly 0"

    # The step's own numbers.
    assert set(state["shown"]) == keys, (step, sorted(state["shown"]))
    for key in keys:
        if key == "distances":
            assert state["shown"][key] == state["distances"]
            continue
        if key == "code":
            _close_rel(state["shown"][key], state["code"], f"step {step}: the code")
            continue
        field = {"inputs": "x", "scores": "scores", "shares": "shares", "outputs": "out"}[key]
        for title, e in expected["sentences"].items():
            _close_rel(state["shown"][key][title], e[field], f"step {step}, {title}: {key}")

    # The tables, at the 3 decimals they show: each word's column holds, downwards, its
    # code, its input, its score for and share given to each partner, and its output.
    assert [t["sentence"] for t in shown["tables"]] == list(expected["sentences"])
    for table in shown["tables"]:
        e = expected["sentences"][table["sentence"]]
        assert table["words"] == e["order"]
        assert table["parts"]["code"]["visible"] is with_code, "the code rows show with the code"
        values_of = (e["code"], e["x"], e["scores"], e["shares"], e["out"])
        for part, values in zip(PARTS, values_of, strict=True):
            text = [[_fixed3(v) for v in row] for row in values.T]
            assert table["parts"][part]["rows"] == text, (step, table["sentence"], part)
        for part in ("scores", "shares"):
            assert table["parts"][part]["labels"] == ["with " + word for word in e["order"]]
    assert shown["dist"] == [_shown(state["distances"][word]) for word in names]

    # The highlight: the step's parts in both sentences, by panel, weight and marker.
    lit = {part for part, _, _ in shown["lit"]}
    assert lit == parts, f"step {step} lights {sorted(lit)}, not {sorted(parts)}"
    assert all(flag for _, flag, _ in shown["lit"])
    for part in parts - {"dist"}:  # a part of the sentences' tables is lit in both
        assert {where for p, _, where in shown["lit"] if p == part} == set(expected["sentences"])
    for table in shown["tables"]:
        for part in PARTS:
            info = table["parts"][part]
            if not info["visible"]:
                continue
            on = part in parts
            assert (info["weight"] == "700") is on, (step, part, info["weight"])
            assert (info["marker"] != "none") is on, (step, part, info["marker"])
    assert (shown["distOutline"] != "none") is ("dist" in parts)

    # The step list, the moves and the panel.
    assert shown["current"] == ["step" if k == step else None for k in range(1, 7)]
    assert shown["disabled"] == [str(step == 1).lower(), str(step == 6).lower()]
    assert shown["heading"] == f"Step {step} of 6: {name}"
    for quote in _step_quotes(step, words, expected):
        assert quote in shown["text"], f"step {step} should say {quote!r}:\n{shown['text']}"
    if step == 4:  # equal in both orders: each word's column is the same in both tables
        first, second = shown["tables"]
        for word in names:
            i, j = first["words"].index(word), second["words"].index(word)
            a = [row[i] for row in first["parts"]["out"]["rows"]]
            b = [row[j] for row in second["parts"]["out"]["rows"]]
            assert a == b, f"step 4: {word}'s output is shown differently in the two orders"
            outputs = state["outputs"]
            assert outputs[first["sentence"]][i] == outputs[second["sentence"]][j], word
    if step == 6:  # the code makes every word's two outputs differ
        first, second = shown["tables"]
        for word in names:
            i, j = first["words"].index(word), second["words"].index(word)
            a = [row[i] for row in first["parts"]["out"]["rows"]]
            b = [row[j] for row in second["parts"]["out"]["rows"]]
            assert a != b, f"step 6: {word}'s output should differ between the two orders"
    return shown


def _guess_answer(words: dict[str, list[float]]) -> str:
    """What posenc says: with no code, is every word's output the same in both orders?"""
    moved = _walk_expected(words, with_code=False)["distances"]
    return "same" if all(d <= TOLERANCE for d in moved.values()) else "differ"


def test_dog_walk_by_click(page_of, open_widget) -> None:
    w = open_widget(page_of("dog-bites-man"), "dog-bites-man")
    shown = _check_walk(w, 1)
    assert shown["reply"] is None, "the answer waits for a guess or for step 4"
    assert w.state()["revealed"] is False
    nxt = w.root.get_by_role("button", name="Next step")
    for step in range(2, 7):
        nxt.click()
        shown = _check_walk(w, step)
        announced = w.announced()
        assert announced.startswith(f"Step {step} of 6: {WALK[step][0]}."), announced
        if step < 4:
            assert shown["reply"] is None, f"the answer showed at step {step}"
    nxt.click(force=True)  # at the end, Next is aria-disabled: nothing moves
    _check_walk(w, 6)
    prev = w.root.get_by_role("button", name="Previous step")
    for step in range(5, 0, -1):
        prev.click()
        _check_walk(w, step)
    for step in (6, 3, 5, 2, 4, 1):  # the list goes straight to a step
        w.root.locator(f".posenc-walk__step[data-step='{step}']").click()
        _check_walk(w, step)


def test_dog_walk_by_keyboard(page_of, open_widget) -> None:
    w = open_widget(page_of("dog-bites-man"), "dog-bites-man")
    nxt = w.root.get_by_role("button", name="Next step")
    nxt.focus()
    w.page.keyboard.press("Shift+Tab")
    w.page.keyboard.press("Tab")  # focus by keyboard, so :focus-visible applies
    ring = nxt.evaluate(
        "el => [el === document.activeElement, getComputedStyle(el).outlineStyle,"
        " parseFloat(getComputedStyle(el).outlineWidth)]"
    )
    assert ring[0] and ring[1] != "none" and ring[2] >= 2, f"no visible focus ring: {ring}"
    w.page.keyboard.press("Enter")
    _check_walk(w, 2)
    w.page.keyboard.press("Space")
    _check_walk(w, 3)
    w.page.keyboard.press("ArrowRight")
    _check_walk(w, 4)
    assert "Answer." in w.announced(), "reaching step 4 says the answer"
    w.page.keyboard.press("End")
    _check_walk(w, 6)
    w.page.keyboard.press("ArrowLeft")
    _check_walk(w, 5)
    w.page.keyboard.press("Home")
    _check_walk(w, 1)
    # From the step list, the arrows move the step and the focus with it.
    w.root.locator(".posenc-walk__step[data-step='1']").focus()
    for step in range(2, 7):
        w.page.keyboard.press("ArrowRight")
        _check_walk(w, step)
        current = w.page.evaluate("document.activeElement.dataset.step")
        assert current == str(step), f"focus stayed on step {current}, not {step}"
    w.page.keyboard.press("Shift+Tab")
    w.page.keyboard.press("Shift+Tab")
    w.page.keyboard.press("Enter")  # step 4's button, two to the left
    _check_walk(w, 4)


def test_dog_guess_first(page_of, open_widget) -> None:
    w = open_widget(page_of("dog-bites-man"), "dog-bites-man")
    words = json.loads(w.root.get_attribute("data-words"))
    answer = _guess_answer(words)
    assert answer == "same", "posenc: attention alone does not tell the two orders apart"
    title = w.root.locator(".posenc-guess .admonition-title").inner_text()
    assert title.startswith("Guess first") and "no position code" in title, title
    group = w.root.get_by_role("group", name=re.compile("Guess first"))
    assert group.count() == 1
    shown = w.root.evaluate(_WALK_SHOWN)
    assert shown["reply"] is None and shown["pressed"] == [["same", "false"], ["differ", "false"]]
    assert shown["state"]["answer"] == answer and shown["state"]["guess"] is None

    w.root.get_by_role("button", name=re.compile("^Yes")).click()  # the wrong guess
    shown = w.root.evaluate(_WALK_SHOWN)
    assert shown["pressed"] == [["same", "false"], ["differ", "true"]]
    assert shown["reply"].startswith("Your guess was the other answer. No:"), shown["reply"]
    assert "same partners with the same scores and shares" in shown["reply"]
    assert w.announced() == shown["reply"]
    assert shown["state"]["guess"] == "differ" and shown["state"]["revealed"] is True
    _check_walk(w, 1)  # guessing does not move the walk

    choice = w.root.get_by_role("button", name=re.compile("^No"))
    choice.focus()
    w.page.keyboard.press("Enter")  # by keyboard, the right one
    shown = w.root.evaluate(_WALK_SHOWN)
    assert shown["pressed"] == [["same", "true"], ["differ", "false"]]
    assert shown["reply"].startswith("Your guess is right. No:"), shown["reply"]


def test_dog_guess_is_answered_at_step_4(page_of, open_widget) -> None:
    w = open_widget(page_of("dog-bites-man"), "dog-bites-man")
    for step in (2, 3):
        w.root.locator(f".posenc-walk__step[data-step='{step}']").click()
        assert _check_walk(w, step)["reply"] is None
    w.root.locator(".posenc-walk__step[data-step='4']").click()
    shown = _check_walk(w, 4)
    assert shown["reply"] and shown["reply"].startswith("Answer. No:"), shown["reply"]
    assert all(pressed == "false" for _, pressed in shown["pressed"])
    announced = w.announced()
    assert announced.startswith("Step 4 of 6") and "Answer. No:" in announced, announced
    w.root.locator(".posenc-walk__step[data-step='1']").click()
    assert _check_walk(w, 1)["reply"] == shown["reply"], "once answered, the answer stays"


def test_dog_switch_and_walk_agree(page_of, open_widget) -> None:
    w = open_widget(page_of("dog-bites-man"), "dog-bites-man")
    switch = w.root.get_by_role("button", name=re.compile("position code"))
    switch.click()  # on: the walk's outputs with the code
    _check_walk(w, 6)
    switch.click()  # off: the outputs without it
    _check_walk(w, 4)
    w.root.locator(".posenc-walk__step[data-step='5']").click()
    assert switch.get_attribute("aria-pressed") == "true"
    w.root.locator(".posenc-walk__step[data-step='3']").click()
    assert switch.get_attribute("aria-pressed") == "false"


def test_dog_walk_touch(page_of, open_widget, touch_context) -> None:
    w = open_widget(page_of("dog-bites-man"), "dog-bites-man", touch_context)
    _fits_a_phone(w)
    w.root.get_by_role("button", name=re.compile("^No")).tap()
    assert w.root.evaluate(_WALK_SHOWN)["reply"].startswith("Your guess is right.")
    _fits_a_phone(w)
    nxt = w.root.get_by_role("button", name="Next step")
    for step in range(2, 7):
        nxt.tap()
        _check_walk(w, step)
        _fits_a_phone(w)
    w.root.locator(".posenc-walk__step[data-step='2']").tap()
    _check_walk(w, 2)


def test_dog_walk_without_javascript(page_of, new_context) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(page_of("dog-bites-man"))
    static = page.locator('[data-posenc-widget="dog-bites-man"] .posenc-widget__static').first
    guess = static.locator("details.question")
    assert guess.count() == 1 and guess.is_visible()
    assert guess.locator("summary").inner_text().startswith("Guess first")
    assert not guess.locator("p").is_visible(), "the answer stays folded until the reader opens it"
    guess.locator("summary").click()
    assert guess.locator("p").inner_text().startswith("No."), "without JavaScript it still opens"
    steps = static.locator("ol.posenc-widget__steps > li").all_inner_texts()
    heads = [text.split(".")[0] for text in steps]
    assert heads == [WALK[k][0] for k in range(1, 7)], heads
    page.close()


# A non-text mark needs 3:1 against what is next to it (WCAG 1.4.11).
_MARKS = """
root => {
  const parse = (c) => (c.match(/rgba?\\(([^)]+)\\)/) || [null, "0,0,0,0"])[1]
    .split(/[\\s,/]+/).filter(Boolean).map(Number);
  const lum = (rgb) => {
    const linear = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    const [r, g, b] = rgb.slice(0, 3).map(linear);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const page = parse(getComputedStyle(root).backgroundColor);
  const out = [];
  for (const th of root.querySelectorAll(".posenc-dog--lit th.posenc-dog__part")) {
    const bar = parse(getComputedStyle(th).boxShadow);
    out.push(["marker on its panel", ratio(bar, parse(getComputedStyle(th).backgroundColor))]);
    out.push(["panel edge on the page", ratio(bar, page)]);
  }
  for (const t of root.querySelectorAll("table.posenc-dog--lit")) {
    out.push(["outline on the page", ratio(parse(getComputedStyle(t).outlineColor), page)]);
  }
  return out;
}
"""


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_dog_walk_contrast(scheme: str, page_of, open_widget) -> None:
    w = open_widget(page_of("dog-bites-man"), "dog-bites-man")
    w.page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    w.root.get_by_role("button", name=re.compile("^Yes")).click()  # the answer shows too
    for step in range(1, 7):
        w.root.locator(f".posenc-walk__step[data-step='{step}']").click()
        bad = w.root.evaluate(_CONTRAST)
        assert not bad, f"step {step}, text below 4.5:1 in the {scheme} scheme:\n" + "\n".join(bad)
        marks = w.root.evaluate(_MARKS)
        assert marks, f"step {step} marks nothing"
        weak = [f"{what}: {ratio:.2f}" for what, ratio in marks if ratio < 3]
        assert not weak, f"step {step}, highlight below 3:1 in the {scheme} scheme: {weak}"


# ----------------------------------------------------------------------------
# 2. The heatmap


# What the heatmap shows besides its state, read in one round trip.
_HEATMAP_SHOWN = """
root => {
  const slider = root.querySelector("[role=slider]");
  const rows = [...root.querySelectorAll(".posenc-heat__table tbody tr")];
  return {
    state: JSON.parse(root.dataset.state),
    now: slider.getAttribute("aria-valuenow"),
    max: slider.getAttribute("aria-valuemax"),
    title: root.querySelector(".posenc-heat__code-title").textContent,
    rows: rows.map((tr) => [tr.cells[1].textContent, tr.cells[2].textContent]),
  };
}
"""


def _shown(x: float) -> str:
    """How the widgets print a number: 6 significant digits and a real minus sign."""
    return f"{x:.6g}".replace("-", "\u2212")


def _check_heatmap(w: Opened) -> dict:
    shown = w.root.evaluate(_HEATMAP_SHOWN)
    state = shown["state"]
    width, length, position = state["width"], state["length"], state["position"]
    assert width % 2 == 0 and 2 <= width <= 128 and 1 <= length <= 200
    assert 0 <= position < length
    expected = posenc.sinusoidal(1, width, start=position)[0]
    _close(state["code"], expected, f"PE({position}), d={width}")
    half = width // 2
    assert state["pairs"] == sorted(set([0, (half - 1) // 2, half - 1]))
    assert shown["now"] == str(position) and shown["max"] == str(length - 1)
    assert f"PE({position})" in shown["title"] and str(width) in shown["title"]
    # The table beside the heatmap: the same numbers, to 6 significant digits.
    assert shown["rows"] == [
        [_shown(state["code"][2 * i]), _shown(state["code"][2 * i + 1])] for i in range(half)
    ]
    return state


def test_heatmap_keyboard(page_of, open_widget) -> None:
    w = open_widget(page_of("heatmap"), "heatmap")
    start = _check_heatmap(w)
    heat = w.root.get_by_role("slider", name=re.compile("Position to read"))
    heat.focus()
    w.page.keyboard.press("Tab")
    w.page.keyboard.press("Shift+Tab")  # focus by keyboard, so :focus-visible applies
    outline = heat.evaluate(
        "el => [el === document.activeElement, getComputedStyle(el).outlineStyle,"
        " parseFloat(getComputedStyle(el).outlineWidth)]"
    )
    assert outline[0] and outline[1] != "none" and outline[2] >= 2, (
        f"no visible focus ring: {outline}"
    )
    w.page.keyboard.press("ArrowRight")
    assert _check_heatmap(w)["position"] == start["position"] + 1
    w.page.keyboard.press("ArrowLeft")
    w.page.keyboard.press("ArrowLeft")
    assert _check_heatmap(w)["position"] == start["position"] - 1
    w.page.keyboard.press("End")
    assert _check_heatmap(w)["position"] == start["length"] - 1
    w.page.keyboard.press("Home")
    assert _check_heatmap(w)["position"] == 0
    w.page.keyboard.press("PageUp")
    assert _check_heatmap(w)["position"] == min(10, start["length"] - 1)

    width = w.root.get_by_role("slider", name=re.compile("Width"))
    width.focus()
    w.page.keyboard.press("End")
    assert _check_heatmap(w)["width"] == 128
    w.page.keyboard.press("ArrowLeft")
    assert _check_heatmap(w)["width"] == 126
    w.page.keyboard.press("Home")
    assert _check_heatmap(w)["width"] == 2
    length = w.root.get_by_role("slider", name=re.compile("Positions"))
    length.focus()
    w.page.keyboard.press("End")
    assert _check_heatmap(w)["length"] == 200
    w.page.keyboard.press("Home")
    state = _check_heatmap(w)
    assert state["length"] == 1 and state["position"] == 0
    announced = w.announced()
    assert "Width 2" in announced and "Position 0" in announced, announced


def test_heatmap_mouse_hover_and_drag(page_of, open_widget) -> None:
    w = open_widget(page_of("heatmap"), "heatmap")
    width = w.root.get_by_role("slider", name=re.compile("Width"))
    width.focus()
    w.page.keyboard.press("End")  # widest code: 128 dimensions
    heat = w.root.locator("canvas.posenc-heat__map")
    box = heat.bounding_box()
    y = box["y"] + box["height"] / 2
    seen = []
    for fraction in np.linspace(0.0, 1.0, 25):
        w.page.mouse.move(box["x"] + 1 + fraction * (box["width"] - 2), y)  # hovering
        seen.append(_check_heatmap(w)["position"])
    length = w.state()["length"]
    assert seen[0] == 0 and seen[-1] == length - 1, seen
    assert seen == sorted(seen) and len(set(seen)) > 10, seen
    # A drag on the waves beneath moves the same position.
    waves = w.root.locator("canvas.posenc-heat__waves")
    wbox = waves.bounding_box()
    w.page.mouse.move(wbox["x"] + wbox["width"] - 2, wbox["y"] + 30)
    w.page.mouse.down()
    w.page.mouse.move(wbox["x"] + wbox["width"] * 0.5, wbox["y"] + 30, steps=5)
    middle = _check_heatmap(w)["position"]
    w.page.mouse.up()
    assert 0 < middle < length - 1


def test_heatmap_touch_and_resolution(page_of, open_widget, touch_context) -> None:
    w = open_widget(page_of("heatmap"), "heatmap", touch_context)
    heat = w.root.locator("canvas.posenc-heat__map")
    heat.scroll_into_view_if_needed()
    box = heat.bounding_box()
    y = box["y"] + box["height"] / 2
    w.page.touchscreen.tap(box["x"] + box["width"] - 3, y)
    state = _check_heatmap(w)
    assert state["position"] == state["length"] - 1
    # A horizontal drag with one finger picks positions as it goes.
    cdp = touch_context.new_cdp_session(w.page)
    x0, x1 = box["x"] + box["width"] - 3, box["x"] + 0.6 * box["width"]
    cdp.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y}]}
    )
    for x in np.linspace(x0, x1, 8)[1:]:
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
        )
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()
    assert 0 < _check_heatmap(w)["position"] < state["length"] - 1
    # Canvases are drawn at the screen's resolution, and nothing is wider than the phone.
    for canvas in w.root.locator("canvas").all():
        pixels, css, ratio = canvas.evaluate(
            "c => [c.width, c.getBoundingClientRect().width, devicePixelRatio]"
        )
        assert ratio == 2 and abs(pixels - css * ratio) <= 1, (pixels, css, ratio)
    _fits_a_phone(w)


# ----------------------------------------------------------------------------
# 3. The clock bank


def _check_clocks(w: Opened) -> dict:
    state = w.state()
    width, p, k, pair = state["width"], state["position"], state["k"], state["pair"]
    assert state["base"] == BASE and pair in state["pairs"]
    row = posenc.sinusoidal(1, width, start=p)[0]
    _close(
        state["code"], [row[2 * i : 2 * i + 2] for i in state["pairs"]], f"PE({p}) on the pairs"
    )
    block = posenc.shift_matrix(k, width)[2 * pair : 2 * pair + 2, 2 * pair : 2 * pair + 2]
    _close(state["block"], block, f"block {pair} of M_{k}")
    here = row[2 * pair : 2 * pair + 2]
    _close(state["rotated"], block @ here, "the block times PE(pos)")
    target = _pe(p + k, width)[2 * pair : 2 * pair + 2]
    _close(state["target"], target, f"PE({p} + {k}) on pair {pair}")
    _close(state["rotated"], state["target"], "M_k PE(pos) = PE(pos + k)")
    _close(state["angle"], k * posenc.frequencies(width)[pair], "the angle w_i k")
    pressed = w.root.locator(".posenc-clock[aria-pressed=true]")
    assert pressed.count() == 1 and f"pair {pair}" in pressed.inner_text()
    return state


def test_clock_bank_keyboard(page_of, open_widget) -> None:
    w = open_widget(page_of("clock-bank"), "clock-bank")
    start = _check_clocks(w)
    assert start["width"] == 64 and start["pairs"] == [0, 6, 12, 18, 24, 31]
    position = w.root.get_by_role("slider", name=re.compile("Position"))
    position.focus()
    for _ in range(5):
        w.page.keyboard.press("ArrowRight")
    assert _check_clocks(w)["position"] == start["position"] + 5
    w.page.keyboard.press("End")
    assert _check_clocks(w)["position"] == 1000
    shift = w.root.get_by_role("slider", name=re.compile("Shift"))
    shift.focus()
    w.page.keyboard.press("Home")
    assert _check_clocks(w)["k"] == -500
    w.page.keyboard.press("ArrowRight")
    assert _check_clocks(w)["k"] == -499
    # The exact-value box: typed, it moves the slider too.
    box = w.root.get_by_role("spinbutton", name=re.compile("Position"))
    box.fill("777")
    state = _check_clocks(w)
    assert state["position"] == 777 and position.input_value() == "777"
    box.fill("5000")
    box.press("Tab")  # out of range: clamped when the box is left
    assert _check_clocks(w)["position"] == 1000
    # Choosing a clock by keyboard.
    clock = w.root.get_by_role("button", name=re.compile(r"^Pair 18,"))
    clock.focus()
    w.page.keyboard.press("Enter")
    state = _check_clocks(w)
    assert state["pair"] == 18 and clock.get_attribute("aria-pressed") == "true"
    announced = w.announced()
    assert "pair 18" in announced and "Position 1000" in announced, announced


def test_clock_bank_mouse(page_of, open_widget) -> None:
    w = open_widget(page_of("clock-bank"), "clock-bank")
    w.root.get_by_role("button", name=re.compile(r"^Pair 24,")).click()
    assert _check_clocks(w)["pair"] == 24
    slider = w.root.get_by_role("slider", name=re.compile("Shift"))
    box = slider.bounding_box()
    w.page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
    state = _check_clocks(w)
    assert state["k"] > 400
    slider = w.root.get_by_role("slider", name=re.compile("Position"))
    box = slider.bounding_box()
    w.page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
    assert 300 < _check_clocks(w)["position"] < 700


def test_clock_bank_touch(page_of, open_widget, touch_context) -> None:
    w = open_widget(page_of("clock-bank"), "clock-bank", touch_context)
    w.root.get_by_role("button", name=re.compile(r"^Pair 6,")).tap()
    assert _check_clocks(w)["pair"] == 6
    slider = w.root.get_by_role("slider", name=re.compile("Position"))
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    w.page.touchscreen.tap(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
    assert _check_clocks(w)["position"] > 700
    _fits_a_phone(w)


# ----------------------------------------------------------------------------
# 4. ALiBi


def _check_alibi(w: Opened) -> dict:
    """The widget's slopes, bias rows and weights against posenc.relative and a softmax."""
    state = w.state()
    heads, length, i, head = state["heads"], state["length"], state["query"], state["head"]
    assert 1 <= head <= heads and 0 <= i < length
    _close(state["slopes"], posenc.relative.alibi_slopes(heads), f"slopes of {heads} heads")
    bias = posenc.relative.alibi_bias(length, heads)[:, i, :]  # (H, L): -m_h (i - j)
    for h in range(heads):
        row = state["bias"][h]
        assert all(value is None for value in row[i + 1 :]), "keys after the query are masked"
        _close(row[: i + 1], bias[h, : i + 1], f"head {h + 1}, query {i}: bias row")
    visible = np.exp(bias[head - 1, : i + 1])
    assert all(value is None for value in state["weights"][i + 1 :])
    _close(state["weights"][: i + 1], visible / visible.sum(), f"head {head}: weights")
    shown = w.root.locator("table.posenc-alibi__bias tbody tr").count()
    assert shown == heads, f"{shown} rows shown for {heads} heads"
    return state


def test_alibi_keyboard_and_typing(page_of, open_widget) -> None:
    w = open_widget(page_of("alibi"), "alibi")
    start = _check_alibi(w)
    assert start["heads"] == 8 and start["query"] == start["length"] - 1
    # Twelve heads, typed: not a power of two, so the reference code's rule shows.
    box = w.root.get_by_role("spinbutton", name=re.compile("Heads"))
    box.fill("12")
    state = _check_alibi(w)
    assert state["heads"] == 12
    series = [2.0 ** (-8 * h / 12) for h in range(1, 13)]
    assert abs(state["slopes"][8] - series[8]) > 0.1, "12 heads do not use 2**(-8h/12)"
    query = w.root.get_by_role("slider", name=re.compile("Query"))
    query.focus()
    w.page.keyboard.press("Home")
    assert _check_alibi(w)["query"] == 0
    for _ in range(3):
        w.page.keyboard.press("ArrowRight")
    assert _check_alibi(w)["query"] == 3
    head = w.root.get_by_role("slider", name=re.compile("to weigh"))
    head.focus()
    w.page.keyboard.press("End")
    state = _check_alibi(w)
    assert state["head"] == 12
    announced = w.announced()
    assert "12 heads" in announced and "Head 12" in announced, announced
    # Fewer heads than the chosen one: the head follows.
    box.fill("3")
    assert _check_alibi(w)["head"] == 3


def test_alibi_touch(page_of, open_widget, touch_context) -> None:
    w = open_widget(page_of("alibi"), "alibi", touch_context)
    slider = w.root.get_by_role("slider", name=re.compile("Query"))
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    w.page.touchscreen.tap(box["x"] + 4, box["y"] + box["height"] / 2)
    assert _check_alibi(w)["query"] <= 1
    _fits_a_phone(w)


# ----------------------------------------------------------------------------
# 5. The frequency ladder

HEAD_DIM = 128
LADDER_BASES = (10000, 500000, 1000000)
LADDER_LENGTHS = (2048, 4096, 8192, 32768)


def _ladder_expected(scheme: str, s: int, base: int, length: int):
    """Speeds, attention factor and bands of a scheme, from posenc.rope (bands: None if none)."""
    rope = posenc.rope
    d = HEAD_DIM
    if scheme == "default":
        speeds, attention = rope.inv_freq("default", d, base=base)
    elif scheme == "linear":
        speeds, attention = rope.inv_freq("linear", d, base=base, factor=s)
    elif scheme == "ntk":  # the static NTK-aware base; Hugging Face has only the dynamic one
        speeds, attention = rope.inv_freq("default", d, base=rope.ntk_base(base, s, d))
    elif scheme == "dynamic":
        speeds, attention = rope.inv_freq(
            "dynamic", d, base=base, factor=s, max_position_embeddings=length, seq_len=s * length
        )
    elif scheme == "yarn":
        speeds, attention = rope.inv_freq(
            "yarn", d, base=base, factor=s, original_max_position_embeddings=length
        )
    elif scheme == "llama3":
        speeds, attention = rope.inv_freq(
            "llama3",
            d,
            base=base,
            factor=s,
            original_max_position_embeddings=length,
            low_freq_factor=1.0,
            high_freq_factor=4.0,
        )
    else:
        raise AssertionError(scheme)
    pairs = d // 2
    if scheme == "default":
        bands = ["unchanged"] * pairs
    elif scheme == "linear":
        bands = ["divided"] * pairs
    elif scheme == "yarn":
        low, high = rope.yarn_correction_range(32.0, 1.0, d, base, length)
        ramp = rope.yarn_ramp(low, high, pairs)
        bands = ["unchanged" if r == 0 else "divided" if r == 1 else "blended" for r in ramp]
    elif scheme == "llama3":
        words = {"high": "unchanged", "blend": "blended", "low": "divided"}
        kinds = rope.llama3_bands(d, base=base, factor=s, original_max_position_embeddings=length)
        bands = [words[kind] for kind in kinds]
    else:
        bands = None
    return speeds, attention, bands


#: What _check_ladder reads of the widget, in one round trip to the page: its state,
#: the texts of the summary table's cells, and the number of dots drawn.
_LADDER_READ = """root => ({
  state: root.getAttribute("data-state"),
  shown: [...root.querySelectorAll(".posenc-ladder__summary tbody td")].map((td) => td.innerText),
  dots: root.querySelectorAll("svg circle.posenc-ladder__after").length,
})"""


#: Set the four controls as a reader's change does (the value, then input and change
#: events), one combination after another, reading the widget after each.
_LADDER_GRID = (
    """([root, controls, combos]) => {
  const read = """
    + _LADDER_READ
    + """;
  const set = (control, value) => {
    control.value = String(value);
    control.dispatchEvent(new Event("input", {bubbles: true}));
    control.dispatchEvent(new Event("change", {bubbles: true}));
  };
  return combos.map((combo) => {
    combo.forEach((value, i) => set(controls[i], value));
    return read(root);
  });
}"""
)


def _check_ladder(w: Opened, read: dict | None = None) -> dict:
    """The widget's speeds, factor, bands and turn counts against posenc.rope.

    ``read`` is what _LADDER_READ returned, if it was read already (default: read now).
    """
    read = w.root.evaluate(_LADDER_READ) if read is None else read
    state = json.loads(read["state"])
    scheme, s, base, length = state["scheme"], state["factor"], state["base"], state["length"]
    what = f"{scheme}, s = {s}, b = {base}, L0 = {length}"
    assert state["headDim"] == HEAD_DIM
    ladder = posenc.rope.default_inv_freq(HEAD_DIM, base)
    speeds, attention, bands = _ladder_expected(scheme, s, base, length)
    # Relative: the speeds run from 1 down to about 1e-6 of it.
    _close(np.array(state["before"]) / ladder, np.ones_like(ladder), f"{what}: speeds before")
    _close(np.array(state["after"]) / speeds, np.ones_like(speeds), f"{what}: speeds after")
    assert abs(state["attention"] - attention) <= TOLERANCE, (what, state["attention"], attention)
    assert state["bands"] == bands, f"{what}: bands"
    if bands is None:
        assert state["counts"] is None
    else:
        assert state["counts"] == {k: bands.count(k) for k in ("unchanged", "blended", "divided")}
    waves, stretched = posenc.rope.wavelengths(ladder), posenc.rope.wavelengths(speeds)
    assert state["turns"] == {
        "beforeL0": int((waves < length).sum()),
        "beforeSL0": int((waves < s * length).sum()),
        "afterL0": int((stretched < length).sum()),
        "afterSL0": int((stretched < s * length).sum()),
    }, what
    shown = read["shown"]
    turns = state["turns"]
    order = ("beforeL0", "beforeSL0", "afterL0", "afterSL0")  # row by row
    assert shown == [str(turns[key]) for key in order], (what, shown)
    dots = read["dots"]
    assert dots == HEAD_DIM // 2, f"{dots} dots drawn for {HEAD_DIM // 2} pairs"
    return state


def test_rope_ladder_opens_on_llama_31(page_of, open_widget) -> None:
    w = open_widget(page_of("rope-ladder"), "rope-ladder")
    state = _check_ladder(w)
    assert (state["scheme"], state["factor"], state["base"], state["length"]) == (
        "llama3",
        8,
        500000,
        8192,
    )
    kinds = posenc.rope.llama3_bands(HEAD_DIM)  # Llama 3.1's configuration, the defaults
    assert state["counts"]["blended"] == int((kinds == "blend").sum())
    shaded = w.root.locator("svg rect.posenc-ladder__band").count()
    assert shaded == 3, f"{shaded} shaded bands for Llama 3's three"
    assert "divided by 8" in w.root.locator(".posenc-ladder__bands").inner_text()


def test_rope_ladder_every_scheme_base_and_length(page_of, open_widget) -> None:
    """Every scheme on every base and trained length, at four scales, against posenc.

    The 288 combinations are set in the page in one go, as a reader's changes
    set them (test_rope_ladder_keyboard_and_announcement and the touch test drive
    the controls themselves); each is read and checked here.
    """
    w = open_widget(page_of("rope-ladder"), "rope-ladder")
    controls = [
        w.root.get_by_label("Scheme"),
        w.root.get_by_label("Base"),
        w.root.get_by_label("Trained length"),
        w.root.get_by_role("spinbutton", name=re.compile("Scale s")),
    ]
    combos = [
        [key, b, n, s]
        for key in ("default", "linear", "ntk", "dynamic", "yarn", "llama3")
        for b in LADDER_BASES
        for n in LADDER_LENGTHS
        for s in (1, 2, 8, 40)
    ]
    reads = w.page.evaluate(
        _LADDER_GRID,
        [w.root.element_handle(), [c.element_handle() for c in controls], combos],
    )
    checked = set()
    for combo, read in zip(combos, reads, strict=True):
        state = _check_ladder(w, read)
        got = [state["scheme"], state["base"], state["length"], state["factor"]]
        assert got == combo, f"set {combo}, the widget shows {got}"
        checked.add(tuple(got))
    assert len(checked) == 6 * 3 * 4 * 4


def test_rope_ladder_tells_static_from_dynamic_ntk(page_of, open_widget) -> None:
    """At the same s, dynamic NTK at s L0 slows the last pair by more than s (Prop. 26)."""
    w = open_widget(page_of("rope-ladder"), "rope-ladder")
    w.root.get_by_role("spinbutton", name=re.compile("Scale s")).fill("4")
    slowed = {}
    for key in ("ntk", "dynamic"):
        w.root.get_by_label("Scheme").select_option(key)
        state = _check_ladder(w)
        assert state["bands"] is None and w.root.locator("svg rect").count() == 0
        slowed[key] = state["before"][-1] / state["after"][-1]
    assert abs(slowed["ntk"] - 4) <= 1e-12, "static NTK divides the last pair by exactly s"
    assert slowed["dynamic"] > 4 + 1, slowed


def test_rope_ladder_keyboard_and_announcement(page_of, open_widget) -> None:
    w = open_widget(page_of("rope-ladder"), "rope-ladder")
    w.root.get_by_label("Scheme").select_option("yarn")
    slider = w.root.get_by_role("slider", name=re.compile("Scale s"))
    slider.focus()
    w.page.keyboard.press("Home")
    state = _check_ladder(w)
    assert state["factor"] == 1 and state["attention"] == 1.0
    ratio = np.array(state["after"]) / np.array(state["before"])  # the blend rounds in float64
    _close(ratio, np.ones_like(ratio), "YaRN with s = 1 changes no speed")
    for _ in range(3):
        w.page.keyboard.press("ArrowRight")
    state = _check_ladder(w)
    assert state["factor"] == 4 and state["attention"] > 1
    announced = w.announced()
    assert "YaRN, s = 4" in announced and f"{state['turns']['afterSL0']} within" in announced
    factor_line = w.root.locator(".posenc-ladder__attention").inner_text()
    assert _shown(state["attention"] ** 2) in factor_line, factor_line


def test_rope_ladder_touch(page_of, open_widget, touch_context) -> None:
    w = open_widget(page_of("rope-ladder"), "rope-ladder", touch_context)
    slider = w.root.get_by_role("slider", name=re.compile("Scale s"))
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    w.page.touchscreen.tap(box["x"] + box["width"] - 3, box["y"] + box["height"] / 2)
    assert _check_ladder(w)["factor"] > 50
    plot = w.root.locator("svg.posenc-ladder__plot").bounding_box()
    assert plot["width"] <= 390, plot
    _fits_a_phone(w)


# ----------------------------------------------------------------------------
# All of them: without JavaScript, and the contrast of their text


@pytest.mark.parametrize("kind", KINDS)
def test_static_version_without_javascript(kind: str, page_of, new_context) -> None:
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(page_of(kind))
    root = page.locator(f'[data-posenc-widget="{kind}"]').first
    assert "posenc-widget--live" not in (root.get_attribute("class") or "")
    static = root.locator(".posenc-widget__static")
    assert static.is_visible(), "the static version must show without JavaScript"
    text = static.inner_text()
    assert len(text) > 80, text
    if kind == "dog-bites-man":
        assert re.search(r"dog\s+0", text) and "same output" in text, text
    else:
        assert "figure above" in text, text
    empty = root.evaluate(
        """root => [...root.querySelectorAll('*')].filter(el => {
             const r = el.getBoundingClientRect();
             return el.checkVisibility() && r.width * r.height > 400
               && !el.innerText.trim() && !el.querySelector('img, svg, canvas');
           }).map(el => el.outerHTML.slice(0, 80))"""
    )
    assert not empty, f"empty boxes without JavaScript: {empty}"
    assert root.locator("canvas, svg, button, input").count() == 0
    page.close()


_CONTRAST = """
root => {
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const v = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3]));
  const background = (el) => {
    const layers = [];
    for (let node = el; node; node = node.parentElement) {
      const c = parse(getComputedStyle(node).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let colour = [255, 255, 255];
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const lum = (rgb) => {
    const linear = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    const [r, g, b] = rgb.map(linear);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const bad = [];
  for (const el of root.querySelectorAll("*")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.nodeValue.trim());
    if (!own || !el.checkVisibility() || el.closest(".posenc-sr-only, svg")) continue;
    const bg = background(el);
    const fg = over(parse(getComputedStyle(el).color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    if (ratio < 4.5) bad.push(`${ratio.toFixed(2)}: ${el.outerHTML.slice(0, 90)}`);
  }
  return bad;
}
"""


@pytest.mark.parametrize("kind", KINDS)
def test_text_contrast(kind: str, page_of, open_widget) -> None:
    """In both colour schemes, with the widget's toggle (if it has one) up and down."""
    w = open_widget(page_of(kind), kind)
    toggle = w.root.locator(".posenc-toggle")
    bad = []
    for scheme in ("default", "slate"):
        w.page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
        for pressed in [False, True] if toggle.count() else [False]:
            if toggle.count() and toggle.get_attribute("aria-pressed") != str(pressed).lower():
                toggle.click()
            bad += [
                f"{scheme}, toggle {'down' if pressed else 'up'}: {line}"
                for line in w.root.evaluate(_CONTRAST)
            ]
    assert not bad, "text below 4.5:1:\n" + "\n".join(bad)
