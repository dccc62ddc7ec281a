"""The Trust page: badges, agreement with intervals, disagreements into Results, policy,
approval."""

from __future__ import annotations

import json

from scipy.stats import binomtest

from scorer_runtime.store import ExampleData, list_approvals, read_session
from scorer_runtime.trust.policy import policy_of
from studio import state
from tests.store.fixtures import make_dataset
from tests.trust.graded import graded

MOSTLY_AGREEING = [(float(i % 2), float(i % 2) if i % 10 else 1.0 - i % 2) for i in range(40)]


def _text(at) -> str:
    parts = [m.value for m in (*at.markdown, *at.caption, *at.info, *at.warning, *at.error)]
    return " ".join(str(p) for p in parts)


def test_without_scorers_the_page_says_what_to_do(studio_db, open_page):
    at = open_page("trust")
    assert not at.exception
    assert "Trust is measured per scorer" in _text(at)


def test_a_graded_version_shows_its_badge_agreement_and_disagreements(studio_db, open_page):
    graded(studio_db, MOSTLY_AGREEING)
    at = open_page("trust")
    assert not at.exception
    assert "Version 1: Not enough evidence." in _text(at)
    # On the Trust page, the way to a stability check is the tab below, in plain words.
    assert "No complete stability check yet: run one in the Stability tab below" in _text(at)
    assert "scorer-studio" not in _text(at)
    assert "on the Trust page" not in _text(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Examples graded and scored"] == "40"
    assert metrics["Same verdict"] == "90%"
    assert metrics["Cohen's kappa"] == "0.80"
    wilson = binomtest(36, 40).proportion_ci(method="wilson")  # 36 of 40 the same verdict
    assert f"95 % interval: {wilson.low:.0%} to {wilson.high:.0%}" in _text(at)
    assert "agreement with people on 40 examples" in _text(at)
    assert "Where people and the judge disagree (4)" in [s.value for s in at.subheader]
    specs = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    marks = [[layer["mark"]["type"] for layer in spec["layer"]] for spec in specs]
    assert marks == [["rect", "text"], ["rule", "point", "text", "rule"]]  # heat map, over time


def test_disagreements_name_examples_by_their_number_in_the_dataset(studio_db, open_page):
    make_dataset(studio_db, "earlier", [ExampleData(input=f"e{i}") for i in range(7)])
    made = graded(studio_db, MOSTLY_AGREEING)  # its examples' ids start after the 7 above
    assert made.example_ids[0] == 8
    at = open_page("trust")
    said = [m.value for m in at.markdown if ": people said" in m.value]
    assert [s.split(":")[0] for s in said] == [
        "Example 1",
        "Example 11",
        "Example 21",
        "Example 31",
    ]


def test_a_disagreement_opens_its_score_in_results(studio_db, open_page):
    made = graded(studio_db, MOSTLY_AGREEING)
    at = open_page("trust")
    opens = [b for b in at.button if b.key and b.key.startswith(state.TRUST_OPEN.name)]
    score_id = int(opens[0].key.rsplit(".", 1)[1])
    opens[0].click().run()
    assert not at.exception
    assert at.session_state[state.SELECTED_SCORE_ID.name] == score_id
    assert at.session_state[state.RESULTS_FILTERS.name]["version_id"] == made.version_id
    assert any(t.value == "Results" for t in at.title)


def test_approving_a_version_that_is_not_trusted_records_the_written_reason(studio_db, open_page):
    made = graded(studio_db, MOSTLY_AGREEING)
    at = open_page("trust")
    assert at.button(key=state.TRUST_APPROVE.name).disabled
    at.text_input(key=state.TRUST_APPROVER.name).input("Priya").run()
    assert at.button(key=state.TRUST_APPROVE.name).disabled  # no reason yet
    at.text_area(key=state.TRUST_OVERRIDE.name).input("Checked 20 answers by hand").run()
    at.button(key=state.TRUST_APPROVE.name).click().run()
    assert not at.exception
    with read_session(studio_db) as session:
        approvals = list_approvals(session, scorer_id=made.scorer_id)
    assert [(a.approver, a.override_reason) for a in approvals] == [
        ("Priya", "Checked 20 answers by hand")
    ]
    assert "although it was not trusted: “Checked 20 answers by hand”" in _text(at)


def test_the_policy_form_saves_the_scorers_policy(studio_db, open_page):
    made = graded(studio_db, MOSTLY_AGREEING)
    at = open_page("trust")
    at.number_input(key=state.TRUST_MIN_GRADED.child(made.scorer_id).name).set_value(50)
    at.slider(key=state.TRUST_MIN_KAPPA.child(made.scorer_id).name).set_value(0.7)
    at.button(key="FormSubmitter:trust.save_policy.form-Save the policy").click().run()
    assert not at.exception
    with read_session(studio_db) as session:
        saved = policy_of(session, made.scorer_id)
    assert (saved.min_graded, saved.min_kappa_low) == (50, 0.7)
    assert "40 of the 50 graded examples the policy asks for" in _text(at)


def test_the_scorers_list_and_results_show_the_badge(studio_db, open_page):
    made = graded(studio_db, MOSTLY_AGREEING)
    at = open_page("scorers")
    assert not at.exception
    assert "Version 1: Not enough evidence" in " ".join(m.value for m in at.markdown)
    at = open_page("results")
    at.selectbox(key=state.RESULTS_SCORER.name).set_value(made.scorer_id).run()
    assert not at.exception
    assert "Version 1: Not enough evidence" in " ".join(m.value for m in at.markdown)
