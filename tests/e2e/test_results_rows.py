"""The Results table in Chromium: ticking a row's box opens that result below it (its steps,
the judge's answers, the reason), ticking another moves to it, unticking closes it; and every
trust badge a page shows is drawn whole, never cut to "Not enough evi…"."""

from __future__ import annotations

import re

import pytest

from scorer_runtime.store import (
    ScoreFilter,
    list_scores,
    make_engine,
    read_session,
    save_scorer_version,
    session_scope,
)
from studio import state
from tests.e2e.browser import StudioPage
from tests.e2e.server import seed_database, sqlite_url
from tests.store.fixtures import valid_spec
from tests.store.history import seed_history

pytestmark = pytest.mark.e2e

ROW_HEIGHT = 35
"""Streamlit's default row height in a table (the header row has the same)."""
ROW_BOX_X = 14
"""Where a row's box is across, from the table's left edge (the first, narrow column)."""
_CUT_BADGES = """() => [...document.querySelectorAll('.stMarkdownBadge')]
    .filter((badge) => badge.scrollWidth > badge.clientWidth)
    .map((badge) => badge.innerText)"""


@pytest.fixture(scope="module")
def studio_database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The demo scorers and datasets, and a score history of 260 results (three runs) whose
    scorer "Tone v2" has six versions (six trust badges side by side on the Trust page)."""
    url = sqlite_url(tmp_path_factory.mktemp("studio") / "studio.db")
    seed_database(url)
    engine = make_engine(url)
    seed_history(engine)
    with session_scope(engine) as session:
        for n in range(4):
            spec = valid_spec("tone", f"How polite the answer is ({n})", name="Tone v2")
            save_scorer_version(session, spec=spec)
    engine.dispose()
    return url


def _newest_ids(url: str) -> list[int]:
    """The results of the table's first page, as the store pages them (newest first)."""
    engine = make_engine(url)
    with read_session(engine) as session:
        rows = list_scores(session, filter=ScoreFilter(repeats=False)).rows
    engine.dispose()
    return [row.id for row in rows]


def _tick(studio: StudioPage, row: int) -> None:
    """Click the box at the start of ``row`` (0-based) of the table, where a person clicks."""
    canvas = studio.widget(state.RESULTS_TABLE.name).get_by_test_id("data-grid-canvas")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    assert box is not None, "the results table is not drawn"
    y = box["y"] + ROW_HEIGHT * (row + 1.5)  # below the header row
    studio.rerun(lambda: studio.page.mouse.click(box["x"] + ROW_BOX_X, y))


def _open_result(studio: StudioPage) -> str:
    """The heading of the result open below the table ("" when none is)."""
    found = studio.page.get_by_role("heading", name=re.compile(r"^Result \d+$"))
    return found.first.inner_text() if found.count() else ""


def test_ticking_a_row_opens_its_result(studio_page: StudioPage, studio_database: str) -> None:
    ids = _newest_ids(studio_database)
    studio_page.open("/results", title="Results")
    studio_page.text("Tick the box at the start of a row")
    _tick(studio_page, 2)
    assert _open_result(studio_page) == f"Result {ids[2]}"
    assert studio_page.chosen(state.RESULTS_OPEN.name).endswith(f"result {ids[2]}")
    studio_page.text("calls to the judge")  # how it was scored: its calls, steps and answers
    studio_page.screenshot("results-row-2-open")
    _tick(studio_page, 5)
    assert _open_result(studio_page) == f"Result {ids[5]}"
    _tick(studio_page, 5)  # its box again: unticked, the result closes
    assert _open_result(studio_page) == ""
    assert studio_page.chosen(state.RESULTS_OPEN.name) == ""
    studio_page.check()


@pytest.mark.parametrize("path", ["/runs", "/trust", "/scorers", "/export", "/results"])
def test_trust_badges_are_drawn_whole(studio_page: StudioPage, path: str) -> None:
    studio_page.open(path)
    if path == "/results":  # its badge shows once one scorer is chosen
        studio_page.select(state.RESULTS_SCORER.name, "Tone v2")
    if path == "/trust":  # a badge for each of its six versions
        studio_page.select(state.TRUST_SCORER.name, "Tone v2")
        studio_page.screenshot("trust-six-versions")
    assert studio_page.page.locator(".stMarkdownBadge").count() > 0
    assert studio_page.page.evaluate(_CUT_BADGES) == []
    studio_page.check()


def test_the_compare_versions_badges_are_drawn_whole(studio_page: StudioPage) -> None:
    studio_page.open("/compare", title="Compare runs")
    studio_page.choose(state.COMPARE_MODE.name, "Two versions of a scorer on one dataset")
    studio_page.select(state.COMPARE_SCORER.name, "Tone v2")
    studio_page.select(state.COMPARE_BEFORE_VERSION.name, "Version 1")
    studio_page.select(state.COMPARE_AFTER_VERSION.name, "Version 2")
    badges = studio_page.page.locator(".stMarkdownBadge").all_inner_texts()
    said = {found.group(0) for b in badges if (found := re.search(r"[AB] — .*", b))}
    assert said == {"A — Version 1: Not enough evidence", "B — Version 2: Not enough evidence"}
    assert studio_page.page.evaluate(_CUT_BADGES) == []
    studio_page.check()
