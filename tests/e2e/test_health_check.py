"""A product manager runs a health check from the Trust page in a real browser: the runs are
queued for the studio's runner, which asks a fake judge (over real HTTP) that obeys the
judged text; the tab then shows, per perturbation family, what the store holds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    Engine,
    ExampleData,
    latest_health_check,
    make_engine,
    read_session,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.trust.attacks import BY_ID
from scorer_runtime.trust.health import family_words, health_report, plan_health
from studio import state
from tests.e2e.browser import StudioPage
from tests.e2e.server import JUDGE_KEY_ENV
from tests.fakes.openai_server import FakeOpenAIServer
from tests.store.fixtures import make_dataset
from tests.trust.health_judges import compare_spec, gullible_judge

pytestmark = pytest.mark.e2e

TITLE = "Matches the expected answer (health)"


@pytest.fixture
def store(studio_database: str) -> Iterator[Engine]:
    engine = make_engine(studio_database)
    yield engine
    engine.dispose()


def _pick(studio: StudioPage, key: str, label: str) -> None:
    box = studio.widget(key).get_by_role("combobox")
    if studio.chosen(key) == label:
        return
    box.click()
    box.fill(label)
    studio.page.get_by_role("option", name=label, exact=True).wait_for()
    studio.rerun(lambda: studio.page.keyboard.press("Enter"))
    expect(box).to_have_value(label)


def test_a_pm_runs_the_health_check_and_reads_each_family(
    studio_page: StudioPage, store: Engine, fake_judge: FakeOpenAIServer
) -> None:
    spec = compare_spec(fake_judge.base_url)
    spec["id"], spec["name"] = "health-compare", TITLE
    spec["judge"]["api_key_env"] = JUDGE_KEY_ENV
    examples = [
        ExampleData(input=f"question {i}", output=f"answer {i}", ground_truth=f"fact {i}")
        for i in range(6)
    ]
    dataset_id = make_dataset(store, "health-facts", examples)
    with session_scope(store) as session:
        version = save_scorer_version(session, spec=load_spec(spec))
        version_id, scorer_id = version.id, version.scorer_id
        plan = plan_health(session, scorer_version_id=version_id, dataset_id=dataset_id)
    fake_judge.reply_by(gullible_judge)
    studio = studio_page

    studio.open()
    studio.navigate("Trust", title="Trust")
    _pick(studio, state.TRUST_SCORER.name, TITLE)
    studio.page.get_by_role("tab", name="Health").click()
    studio.select(state.TRUST_HEALTH_DATASET.child(scorer_id).name, "health-facts")
    studio.text(f"Before you start: {plan.describe()}")
    studio.page.get_by_text("What each perturbation is, and what to do").click()
    for family in plan.families:  # what each family is, one sentence each
        studio.text(BY_ID[family].what)
    studio.screenshot("health form")
    studio.rerun(studio.page.get_by_role("button", name="Run the health check").click)
    studio.text(f"Latest health check of version {plan.version}.", timeout_s=120)
    studio.settle()
    studio.screenshot("health results")

    with read_session(store) as session:
        check = latest_health_check(session, scorer_version_id=version_id, dataset_id=dataset_id)
        assert check is not None
        report = health_report(session, check_id=check.id)
    assert report.ended
    assert not report.stopped
    assert len(report.families) == len(plan.families) == 6
    swayed = {f.family for f in report.swayed}
    assert {"direct_injection", "format_impersonation", "dummy_answers"} <= swayed
    expect(studio.page.get_by_text(report.words()).first).to_be_visible()
    for family in report.families:
        said = f"{BY_ID[family.family].name}: {family_words(family)}"
        expect(studio.page.get_by_text(said, exact=True).first).to_be_visible()
    table = studio.page.get_by_test_id("stDataFrame").first
    expect(table).to_be_visible()
