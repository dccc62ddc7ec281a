"""A product manager improves a judge from the Trust page in a real browser: the judge (a fake
over real HTTP) fails answers offering refunds that people grade good; the PM asks for
guidelines, edits them, tries the candidates, reads the result on the examples kept apart and
finds the new version saved, not approved, "not enough evidence" until its own checks."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from scorer_runtime.store import Engine, get_version, list_approvals, make_engine, read_session
from studio import state
from tests.e2e.browser import StudioPage
from tests.e2e.server import JUDGE_KEY_ENV
from tests.fakes.openai_server import FakeOpenAIServer
from tests.trust.align_world import build_world

pytestmark = pytest.mark.e2e


@pytest.fixture
def store(studio_database: str) -> Iterator[Engine]:
    engine = make_engine(studio_database)
    yield engine
    engine.dispose()


def test_a_pm_improves_a_judge_and_finds_a_new_unapproved_version(
    studio_page: StudioPage, store: Engine, fake_judge: FakeOpenAIServer, monkeypatch
) -> None:
    monkeypatch.setenv(JUDGE_KEY_ENV, "sk-test")  # the version 1 run scored here first
    with ThreadPoolExecutor(1) as pool:  # it runs its own event loop, apart from the browser's
        world = pool.submit(build_world, store, fake_judge, key_env=JUDGE_KEY_ENV).result()
    studio = studio_page
    studio.open()
    studio.navigate("Trust", title="Trust")
    studio.select(state.TRUST_SCORER.name, "verdict")
    studio.page.get_by_role("tab", name="Improve").click()
    studio.text("20 to build candidates from, 10 held out")
    studio.screenshot("improve form")

    studio.rerun(studio.page.get_by_role("button", name="Write guidelines").click)
    box = studio.widget(state.TRUST_IMPROVE_GUIDELINES.child(world.version_id).name)
    area = box.locator("textarea")
    expect(area).to_have_value(
        "Refunds are fine: an answer that offers a refund is good.\nRude is bad.", timeout=60_000
    )
    area.fill(area.input_value() + "\nBe brief.")
    studio.rerun(lambda: area.press("Control+Enter"))
    studio.text("+ - Be brief.")
    studio.screenshot("improve guidelines edited")

    studio.rerun(studio.page.get_by_role("button", name="Try the candidates").click, timeout_s=180)
    studio.text("Saved version 2", timeout_s=180)
    studio.text("saved but not approved")
    studio.settle()
    studio.screenshot("improve result")
    expect(studio.page.get_by_text("v2 · Not enough evidence").first).to_be_visible()
    with read_session(store) as session:
        saved = get_version(session, scorer_id=world.scorer_id)
        assert saved.version == 2
        assert "holdout kappa" in saved.note
        assert list_approvals(session, scorer_id=world.scorer_id) == []
