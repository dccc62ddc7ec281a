"""The Runs form and a dataset that does not suit the scorer: it opens on one that does (of
those, the one made, added to or run on last), and warns in words — without blocking Start —
when the person picks one that does not."""

from __future__ import annotations

import json
from pathlib import Path

from scorer_runtime.store import add_examples, create_dataset, create_run, session_scope
from studio import state

from .test_runs_helpers import make_dataset, save_spec

SCORERS = Path(__file__).parents[4] / "data" / "scorers"
TOOL_HEALTH = SCORERS / "tool-health.json"
CONCISENESS = SCORERS / "conciseness.json"
AGENT_OUTPUT = [{"role": "assistant", "content": "Order A1 ships today."}]


def _agent_runs(engine, name: str) -> int:
    with session_scope(engine) as session:
        dataset = create_dataset(session, name=name)
        rows = [{"input": f"Where is A{i}?", "output": AGENT_OUTPUT} for i in range(3)]
        add_examples(session, dataset_id=dataset.id, examples=rows)
        return dataset.id


def _warnings(at) -> list[str]:
    """The page's warnings but the one that no runner serves the queue (none runs here)."""
    return [w.value for w in at.warning if not w.value.startswith("**No runner is running.**")]


def test_the_form_opens_on_a_dataset_the_scorer_judges_and_warns_about_one_it_does_not(
    studio_db, open_page
):
    # Listed first (by name), plain answers; then agent runs.
    plain = make_dataset(studio_db, "a plain answers", ["Thanks!", "No.", "Sure."])
    agent = _agent_runs(studio_db, "b agent runs")
    scorer_id, _ = save_spec(studio_db, json.loads(TOOL_HEALTH.read_text()))

    at = open_page("runs")
    at.selectbox(key=state.RUNS_SCORER.name).set_value(scorer_id).run()
    assert not at.exception, at.exception
    assert at.selectbox(key=state.RUNS_DATASET.name).value == agent
    assert _warnings(at) == []

    at.selectbox(key=state.RUNS_DATASET.name).set_value(plain).run()
    assert not at.exception, at.exception
    assert at.selectbox(key=state.RUNS_DATASET.name).value == plain  # the person's choice holds
    assert _warnings(at) == [
        "“Tool calls that worked” judges agent runs (an agent's messages and tool calls), "
        "but the examples of “a plain answers” are plain answers: their scores would say "
        "nothing about the agent. Pick a dataset of agent runs."
    ]
    assert not at.button(key=state.RUNS_START.name).disabled  # a warning, not a refusal
    use = at.button(key=state.RUNS_FITTING_DATASET.name)
    assert use.label == "Use “b agent runs” instead"
    use.click().run()
    assert not at.exception, at.exception
    assert at.selectbox(key=state.RUNS_DATASET.name).value == agent
    assert _warnings(at) == []


def test_a_plain_scorer_opens_on_plain_answers_rather_than_agent_runs(studio_db, open_page):
    _agent_runs(studio_db, "a agent runs")  # listed first; a plain scorer reads it as text
    plain = make_dataset(studio_db, "b plain answers", ["Thanks!", "No."])
    scorer_id, _ = save_spec(studio_db, json.loads(CONCISENESS.read_text()))

    at = open_page("runs")
    at.selectbox(key=state.RUNS_SCORER.name).set_value(scorer_id).run()
    assert not at.exception, at.exception
    assert at.selectbox(key=state.RUNS_DATASET.name).value == plain


def test_the_form_opens_on_the_dataset_the_scorer_last_ran_on(studio_db, open_page):
    _agent_runs(studio_db, "a agent runs")
    second = _agent_runs(studio_db, "b agent runs")
    scorer_id, version_id = save_spec(studio_db, json.loads(TOOL_HEALTH.read_text()))
    with session_scope(studio_db) as session:
        create_run(session, scorer_version_id=version_id, dataset_id=second)

    at = open_page("runs")
    at.selectbox(key=state.RUNS_SCORER.name).set_value(scorer_id).run()
    assert not at.exception, at.exception
    assert at.selectbox(key=state.RUNS_DATASET.name).value == second


def test_the_form_opens_on_the_dataset_just_made_not_a_demo_listed_first(studio_db, open_page):
    from datetime import UTC, datetime

    from sqlmodel import col, update

    from scorer_runtime.store.tables import DatasetRecord, ExampleRecord

    demo = make_dataset(studio_db, "a demo answers", ["Thanks!", "No."])
    with session_scope(studio_db) as session:  # seeded last week
        week_ago = datetime(2026, 1, 1, tzinfo=UTC)
        for table in (DatasetRecord, ExampleRecord):
            key = DatasetRecord.id if table is DatasetRecord else ExampleRecord.dataset_id
            session.execute(update(table).where(col(key) == demo).values(created_at=week_ago))
    mine = make_dataset(studio_db, "my answers", ["Sure.", "Done."])
    scorer_id, _ = save_spec(studio_db, json.loads(CONCISENESS.read_text()))

    at = open_page("runs")
    at.selectbox(key=state.RUNS_SCORER.name).set_value(scorer_id).run()
    assert not at.exception, at.exception
    assert at.selectbox(key=state.RUNS_DATASET.name).value == mine
