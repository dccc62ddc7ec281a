"""Another tool's scores beside ours in Chromium: the Results page names them "(external)",
shows a label in words where there is no number, and opening one says where it came from."""

from __future__ import annotations

import re

import pytest

from scorer_runtime.store import make_engine
from studio import state
from tests.e2e.browser import StudioPage
from tests.e2e.server import seed_database, sqlite_url
from tests.studio.app_pages.results.external_seed import seed_compared

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def studio_database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The demo data, and one trace scored by our scorer and by another tool."""
    url = sqlite_url(tmp_path_factory.mktemp("studio") / "studio.db")
    seed_database(url)
    engine = make_engine(url)
    seed_compared(engine)
    engine.dispose()
    return url


def test_results_show_another_tools_scores_marked_external(studio_page: StudioPage):
    studio_page.open("/results", title="Results")
    table = studio_page.page.get_by_test_id("stDataFrame").last
    table.wait_for()
    studio_page.screenshot("results-with-external-scores")
    # Tables are drawn on a canvas (their words are checked in the AppTest); the trend
    # chart's legend names the other tool's scorer beside ours.
    assert "ragas (external)" in studio_page.page.inner_text("body")

    studio_page.select(state.RESULTS_OPEN.name, re.compile(r"Verdict in words “on topic”"))
    verdict = studio_page.page.get_by_test_id("stMetric").filter(has_text="Verdict")
    assert verdict.get_by_test_id("stMetricValue").inner_text() == "on topic"
    assert studio_page.page.get_by_text("Sent by another tool", exact=False).is_visible()
    studio_page.screenshot("another-tools-verdict-opened")
