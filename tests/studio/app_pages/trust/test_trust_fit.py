"""The Stability and Compare-versions tabs and a dataset that does not suit the scorer: each
warns in words and offers the dataset that does, as the Runs form does (AppTest, a real
SQLite file)."""

from __future__ import annotations

import json

import pytest

from scorer_runtime.spec import load_spec
from scorer_runtime.store import add_examples, create_dataset, save_scorer_version, session_scope
from studio import state
from tests.studio.app_pages.runs.test_runs_fit import AGENT_OUTPUT, TOOL_HEALTH, _agent_runs
from tests.studio.app_pages.runs.test_runs_helpers import make_dataset

TOOL_CALL_ACCURACY = TOOL_HEALTH.parent / "tool-call-accuracy.json"
"""An agent scorer that asks the judge (Tool calls that worked asks none: no stability
check)."""
AGENT_WARNING = (
    "“Tool-call accuracy” judges agent runs (an agent's messages and tool calls), but the "
    "examples of “a plain answers” are plain answers: their scores would say nothing about "
    "the agent. Pick a dataset of agent runs."
)


def _agent_runs_with_tools(engine, name: str) -> int:
    """Agent runs whose expected answer lists the tools to call, as Tool-call accuracy reads."""
    with session_scope(engine) as session:
        dataset = create_dataset(session, name=name)
        rows = [
            {"input": f"Where is A{i}?", "output": AGENT_OUTPUT, "ground_truth": ["lookup_order"]}
            for i in range(3)
        ]
        add_examples(session, dataset_id=dataset.id, examples=rows)
        return dataset.id


def _warnings(at) -> list[str]:
    return [w.value for w in at.warning if not w.value.startswith("**No runner is running.**")]


@pytest.mark.parametrize(
    ("picker", "button"),
    [
        (state.TRUST_STABILITY_DATASET, state.TRUST_STABILITY_FITTING),
        (state.TRUST_VERSIONS_DATASET, state.TRUST_VERSIONS_FITTING),
    ],
)
def test_a_trust_tab_warns_of_a_dataset_the_scorer_does_not_judge_and_offers_one_it_does(
    studio_db, open_page, picker, button
):
    plain = make_dataset(studio_db, "a plain answers", ["Thanks!", "No.", "Sure."])
    agent = _agent_runs_with_tools(studio_db, "b agent runs")
    spec = json.loads(TOOL_CALL_ACCURACY.read_text())
    with session_scope(studio_db) as session:
        scorer_id = save_scorer_version(session, spec=load_spec(spec)).scorer_id
        spec["description"] = "The second version."
        save_scorer_version(session, spec=load_spec(spec))  # Compare versions needs two

    at = open_page("trust")
    at.selectbox(key=state.TRUST_SCORER.name).set_value(scorer_id).run()
    assert not at.exception, at.exception
    box = at.selectbox(key=picker.child(scorer_id).name)
    assert box.value == agent  # it opens on one that suits the scorer
    assert AGENT_WARNING not in _warnings(at)

    box.set_value(plain).run()
    assert not at.exception, at.exception
    assert _warnings(at).count(AGENT_WARNING) == 1  # once, though two versions are compared
    use = at.button(key=button.child(scorer_id).name)
    assert use.label == "Use “b agent runs” instead"
    use.click().run()
    assert not at.exception, at.exception
    assert at.selectbox(key=picker.child(scorer_id).name).value == agent
    assert AGENT_WARNING not in _warnings(at)


def test_a_scorer_that_asks_no_judge_is_told_it_needs_no_stability_check(studio_db, open_page):
    _agent_runs(studio_db, "agent runs")
    with session_scope(studio_db) as session:
        saved = save_scorer_version(session, spec=load_spec(json.loads(TOOL_HEALTH.read_text())))

    at = open_page("trust")
    at.selectbox(key=state.TRUST_SCORER.name).set_value(saved.scorer_id).run()
    assert not at.exception, at.exception
    said = " ".join(s.value for s in at.success)
    assert "Version 1 needs no stability check. It asks no judge" in said
    starts = [
        b for b in at.button if b.key == state.TRUST_STABILITY_START.child(saved.scorer_id).name
    ]
    assert starts == []  # nothing to start
    badge_reasons = " ".join(w.value for w in at.warning)
    assert "stability" not in badge_reasons  # the policy does not ask for one
