"""Drop-downs that follow another one show, in the browser, what the page uses: picking a
scorer with several versions shows its latest ("Version 2 (latest)"), not the words of the
scorer picked before (which the browser kept when the choice was only dropped)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from scorer_runtime.spec import load_spec
from scorer_runtime.store import make_engine, save_scorer_version, session_scope
from studio import state
from tests.e2e.browser import StudioPage

pytestmark = pytest.mark.e2e

TONE = Path(__file__).parents[2] / "data" / "scorers" / "tone-politeness.json"


def test_a_scorer_picked_shows_its_own_latest_version(
    studio_page: StudioPage, studio_database: str
) -> None:
    spec = json.loads(TONE.read_text())
    spec["description"] = "A second version: the same checks, described again."
    engine = make_engine(studio_database)
    try:
        with session_scope(engine) as session:
            version = save_scorer_version(session, spec=load_spec(spec)).version
    finally:
        engine.dispose()
    assert version >= 2
    studio = studio_page
    for page, title, scorer, version_key in (
        ("/runs", "Runs", state.RUNS_SCORER, state.RUNS_VERSION),
        ("/trust", "Trust", state.TRUST_SCORER, state.TRUST_VERSION),
    ):
        studio.open(page, title=title)
        studio.select(scorer.name, "Answer relevancy")  # one version: "Version 1 (latest)"
        studio.select(scorer.name, "Tone and politeness")
        wanted = f"Version {version} (latest)"
        deadline = time.monotonic() + 15  # the browser may draw the new words a moment late
        while not (shown := studio.chosen(version_key.name)).startswith(wanted):
            if time.monotonic() > deadline:
                break
            studio.page.wait_for_timeout(100)
        assert shown.startswith(wanted), (page, shown)
