"""In a real browser, with no reload: numbers stored after a page was drawn (grades, an
approval) show when the person comes back to the page, Export opens on the approved version,
and a pass mark typed on the Trust page's Policy tab and left unsaved never reaches Runs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from scorer_runtime.store import (
    Engine,
    ExampleData,
    add_examples,
    add_label,
    add_scores,
    create_run,
    finish_run,
    list_examples,
    make_engine,
    session_scope,
)
from scorer_runtime.trust.policy import approve
from studio import state
from tests.e2e.browser import StudioPage
from tests.store.fixtures import make_dataset, make_version
from tests.trust.graded import Graded, agreeing, graded

pytestmark = pytest.mark.e2e


@pytest.fixture
def store(studio_database: str) -> Iterator[Engine]:
    """The studio's database, written to as another tab, the command line or a runner would."""
    engine = make_engine(studio_database)
    yield engine
    engine.dispose()


def _pick(studio: StudioPage, key: str, label: str) -> None:
    """Pick a scorer by typing its name into the drop-down (the list of every demo scorer is
    longer than what the open list draws), then Enter."""
    box = studio.widget(key).get_by_role("combobox")
    if studio.chosen(key) == label:  # the page opened on it: picking it again reruns nothing
        return
    box.click()
    box.fill(label)
    studio.page.get_by_role("option", name=label, exact=True).wait_for()
    studio.rerun(lambda: studio.page.keyboard.press("Enter"))
    expect(box).to_have_value(label)


def _metric(studio: StudioPage, label: str) -> object:
    return expect(studio.page.get_by_test_id("stMetric").filter(has_text=label).first)


def _grade_ten_more(engine: Engine, made: Graded) -> None:
    with session_scope(engine) as session:
        add_examples(
            session,
            dataset_id=made.dataset_id,
            examples=[ExampleData(input=f"n{i}", output=f"b{i}") for i in range(10)],
        )
        every = list_examples(session, dataset_id=made.dataset_id, limit=10_000)
        new = [e.id for e in every if e.id not in made.example_ids]
        base = dict(
            run_id=made.run_id,
            scorer_id=made.scorer_id,
            scorer_version_id=made.version_id,
            dataset_id=made.dataset_id,
            score=1.0,
            outcome="scored",
        )
        add_scores(session, rows=[{**base, "example_id": i} for i in new])
        for example_id in new:
            add_label(
                session, example_id=example_id, scorer_id=made.scorer_id, value=1.0, labeller="P"
            )


def test_trust_and_export_show_what_was_stored_since_without_a_reload(
    studio_page: StudioPage, store: Engine
) -> None:
    made = graded(store, agreeing(30), name="fresh-verdict")
    studio = studio_page
    studio.open("/")
    studio.navigate("Trust", title="Trust")
    _pick(studio, state.TRUST_SCORER.name, "fresh-verdict")
    _metric(studio, "Examples graded and scored").to_contain_text("30")
    studio.screenshot("trust-30-graded")

    _grade_ten_more(store, made)  # grades given in another tab
    studio.navigate("Runs", title="Runs")
    studio.navigate("Trust", title="Trust")  # back, as a person does: no reload
    _metric(studio, "Examples graded and scored").to_contain_text("40")
    expect(studio.page.get_by_text("Version 1: Not enough evidence.").first).to_be_visible()

    studio.navigate("Export & import", title="Export & import")
    _pick(studio, state.EXPORT_SCORER.name, "fresh-verdict")
    expect(studio.page.get_by_text("No version of this scorer is approved yet")).to_be_visible()
    with session_scope(store) as session:
        approve(session, scorer_version_id=made.version_id, approver="Priya", override_reason="ok")
    studio.navigate("Trust", title="Trust")
    studio.page.get_by_role("tab", name="Policy").click()  # tabs switch in the browser
    expect(studio.page.get_by_text("Priya").first).to_be_visible()
    studio.navigate("Export & import", title="Export & import")
    _pick(studio, state.EXPORT_SCORER.name, "fresh-verdict")
    expect(studio.page.get_by_text("Version 1 is the approved one.")).to_be_visible()
    expect(studio.page.get_by_text("Version 1: Not enough evidence").first).to_be_visible()
    studio.screenshot("export-approved")
    studio.check()


def _finished_run(engine: Engine) -> int:
    """A number scorer's finished run scoring 0.3, 0.6 and 0.9 (passes at 0.5: 2 of 3)."""
    scores = (0.3, 0.6, 0.9)
    dataset_id = make_dataset(engine, "pass-mark", [ExampleData(output=str(s)) for s in scores])
    scorer_id, version_id = make_version(engine, "pass-mark-check")
    with session_scope(engine) as session:
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        examples = list_examples(session, dataset_id=dataset_id)
        base = dict(
            run_id=run.id, scorer_id=scorer_id, scorer_version_id=version_id, outcome="scored"
        )
        rows = [
            {**base, "dataset_id": dataset_id, "example_id": e.id, "score": s}
            for e, s in zip(examples, scores, strict=True)
        ]
        add_scores(session, rows=rows)
        finish_run(session, run_id=run.id, status="done")
    return scorer_id


def test_a_pass_mark_left_unsaved_on_trust_never_reaches_runs(
    studio_page: StudioPage, store: Engine
) -> None:
    scorer_id = _finished_run(store)
    studio = studio_page
    studio.open("/")
    studio.navigate("Trust", title="Trust")
    _pick(studio, state.TRUST_SCORER.name, "pass-mark-check")
    studio.page.get_by_role("tab", name="Policy").click()  # tabs switch in the browser
    box = studio.widget(state.TRUST_USE_PASS_MARK.child(scorer_id).name)
    studio.rerun(box.get_by_text("Set the score at which an answer passes").click)
    studio.type(state.TRUST_PASS_MARK.child(scorer_id).name, "0")
    studio.screenshot("policy-unsaved")

    studio.navigate("Runs", title="Runs")  # left without saving
    expect(studio.page.get_by_text("Passes at 0.5:")).to_be_visible()
    _metric(studio, "Pass rate").to_contain_text("67%")
    studio.screenshot("runs-saved-pass-mark")
    studio.check()
