"""The trust policy's badge and reasons, and approving a version."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ConflictError,
    add_label,
    add_scores,
    agreement_data,
    create_run,
    create_stability_check,
    ensure_schema,
    judge_verdicts,
    list_approvals,
    make_engine,
    read_session,
    save_scorer_version,
    save_trust_policy,
    session_scope,
)
from scorer_runtime.trust import FlipEvidence
from scorer_runtime.trust.agreement import measure
from scorer_runtime.trust.policy import (
    NO_JUDGE_WORDS,
    TrustPolicy,
    approve,
    evaluate,
    version_trust,
)
from scorer_runtime.trust.scale import Scale
from tests.cli.helpers import verdict_spec
from tests.store.fixtures import add_repeat_run
from tests.trust.graded import Graded, agreeing, graded

SCALE = Scale("pass_fail")
SCORERS = Path(__file__).resolve().parents[2] / "data" / "scorers"


def _flips(rate: float) -> FlipEvidence:
    flipped = round(rate * 20)
    return FlipEvidence(1, 20, 3, flipped, rate, 0.0, 0.3, datetime(2026, 12, 1, tzinfo=UTC))


def test_enough_agreeing_grades_and_a_stable_judge_are_trusted() -> None:
    verdict = evaluate(TrustPolicy(), measure(agreeing(60), SCALE), _flips(0.05))
    assert (verdict.badge, verdict.words) == ("trusted", "Trusted")


def test_too_few_grades_is_not_enough_evidence_saying_how_many_more() -> None:
    verdict = evaluate(TrustPolicy(), measure(agreeing(12), SCALE), _flips(0.0))
    assert verdict.badge == "not_enough_evidence"
    assert verdict.reasons[0] == (
        "12 of the 30 graded examples the policy asks for: grade 18 more on the Review page."
    )


def test_no_stability_check_is_not_enough_evidence_in_words() -> None:
    verdict = evaluate(TrustPolicy(), measure(agreeing(60), SCALE), None)
    assert verdict.badge == "not_enough_evidence"
    assert verdict.reasons[0] == (
        "No complete stability check yet: run one on the Trust page's Stability tab to see "
        "whether the judge gives the same verdict when asked again."
    )
    # Read on the Trust page itself, it points to the tab below, not to the page it is on;
    # on the command line, to the command.
    (here,) = verdict.reasons_for(stability_where="in the Stability tab below")
    assert here.startswith("No complete stability check yet: run one in the Stability tab below")
    (there,) = verdict.reasons_for(stability_where="with `scorer-studio stability`")
    assert "run one with `scorer-studio stability` to see" in there
    assert not any("scorer-studio" in reason for reason in verdict.reasons)


def test_reasons_other_than_stability_read_the_same_everywhere() -> None:
    verdict = evaluate(TrustPolicy(), measure(agreeing(12), SCALE), None)
    said = verdict.reasons_for(stability_where="in the Stability tab below")
    assert said[0] == verdict.reasons[0]  # the grades: the Review page is another page
    assert said[1] != verdict.reasons[1]


def test_low_agreement_or_a_flipping_judge_is_failing_with_each_reason() -> None:
    disagreeing = [(float(i % 2), float((i // 2) % 2)) for i in range(60)]
    verdict = evaluate(TrustPolicy(), measure(disagreeing, SCALE), _flips(0.25))
    assert verdict.badge == "failing"
    assert verdict.reasons[0].startswith("Agreement with people is too low: kappa is 0.00")
    assert verdict.reasons[1].startswith("The verdict flipped on 25% of examples")


def test_a_kappa_above_the_minimum_whose_interval_reaches_below_asks_for_more_grades() -> None:
    mostly = [(float(i % 2), float(i % 2) if i % 10 else 1.0 - i % 2) for i in range(30)]
    agreement = measure(mostly, SCALE)
    assert agreement.kappa.value is not None
    assert agreement.kappa.value > 0.6
    verdict = evaluate(TrustPolicy(), agreement, _flips(0.0))
    assert verdict.badge == "not_enough_evidence"
    assert "below the 0.60 the policy asks for: grade about" in verdict.reasons[0]


def test_a_version_is_measured_on_the_latest_label_and_latest_score(engine: Engine) -> None:
    made = graded(engine, agreeing(4))
    with session_scope(engine) as session:
        add_label(
            session,
            example_id=made.example_ids[0],
            scorer_id=made.scorer_id,
            value=1.0,
            labeller="Priya",
        )
        again = create_run(session, scorer_version_id=made.version_id, dataset_id=made.dataset_id)
        row = dict(
            run_id=again.id,
            example_id=made.example_ids[3],
            scorer_id=made.scorer_id,
            scorer_version_id=made.version_id,
            score=0.0,
            outcome="scored",
        )
        add_scores(session, rows=[row])
    with read_session(engine) as session:
        data = agreement_data(session, scorer_id=made.scorer_id, scorer_version_id=made.version_id)
        trust = version_trust(session, scorer_version_id=made.version_id)
    assert [(p.human, p.judge) for p in data.pairs] == [
        (1.0, 0.0),
        (1.0, 1.0),
        (0.0, 0.0),
        (1.0, 0.0),
    ]
    assert trust.agreement.n == 4
    assert trust.agreement.confusion == ((1, 2), (0, 1))  # rows: people good, bad


def test_a_stability_checks_repeats_never_replace_the_runs_verdict_agreement_is_measured_on(
    engine: Engine,
) -> None:
    """A repeat asks the judge again only to see whether it changes its mind: its scores
    (here the opposite of the run's on every example) leave agreement, and the verdict the
    Review page shows, as the run had them; a later run does replace them."""
    made = graded(engine, agreeing(4))
    with session_scope(engine) as session:
        check = create_stability_check(
            session,
            scorer_version_id=made.version_id,
            dataset_id=made.dataset_id,
            example_ids=made.example_ids,
            repeats=2,
        )
        for _ in range(check.repeats):
            repeat = add_repeat_run(session, check_id=check.id, concurrency=1)
            add_scores(session, rows=_scores(made, repeat.id, flipped=True))
    with read_session(engine) as session:
        trust = version_trust(session, scorer_version_id=made.version_id)
        shown = judge_verdicts(
            session, example_ids=made.example_ids, scorer_version_id=made.version_id
        )
    assert trust.agreement.n == 4
    assert trust.agreement.confusion == ((2, 0), (0, 2))  # the run's: all agree
    assert {p.score_id for p in trust.pairs} == {v.score_id for v in shown.values()}
    assert [shown[i].score for i in made.example_ids] == [0.0, 1.0, 0.0, 1.0]

    with session_scope(engine) as session:
        again = create_run(session, scorer_version_id=made.version_id, dataset_id=made.dataset_id)
        add_scores(session, rows=_scores(made, again.id, flipped=True))
    with read_session(engine) as session:
        trust = version_trust(session, scorer_version_id=made.version_id)
    assert trust.agreement.confusion == ((0, 2), (2, 0))  # the newer run's: none agree


def _scores(made: Graded, run_id: int, *, flipped: bool) -> list[dict[str, object]]:
    """A result for each example of ``made`` in the run: its first run's score, or the
    opposite one."""
    return [
        dict(
            run_id=run_id,
            example_id=example_id,
            scorer_id=made.scorer_id,
            scorer_version_id=made.version_id,
            dataset_id=made.dataset_id,
            score=float((i % 2 == 1) != flipped),
            outcome="scored",
        )
        for i, example_id in enumerate(made.example_ids)
    ]


def test_grades_off_the_scale_are_left_out_and_named(engine: Engine) -> None:
    made = graded(engine, [*agreeing(4), (0.5, 1.0)])
    with read_session(engine) as session:
        trust = version_trust(session, scorer_version_id=made.version_id)
    assert trust.agreement.n == 4
    assert trust.left_out[0].startswith("1 grade is not on this scorer's scale and was left out")
    assert "0.5 is not a grade of this scorer" in trust.left_out[0]


def test_grades_of_examples_that_no_longer_exist_are_left_out_and_counted(tmp_path) -> None:
    path = tmp_path / "gone.db"
    engine = make_engine(f"sqlite:///{path}")
    ensure_schema(engine)
    made = graded(engine, agreeing(3))
    engine.dispose()
    with sqlite3.connect(path) as raw:  # an example removed behind the store's back
        raw.execute("DELETE FROM scores WHERE example_id = ?", (made.example_ids[2],))
        raw.execute("DELETE FROM examples WHERE id = ?", (made.example_ids[2],))
    engine = make_engine(f"sqlite:///{path}")
    with read_session(engine) as session:
        trust = version_trust(session, scorer_version_id=made.version_id)
    engine.dispose()
    assert trust.agreement.n == 2
    assert trust.left_out == (
        f"1 graded example no longer exists (example {made.example_ids[2]}) and was left out.",
    )


def test_approving_a_version_that_is_not_trusted_needs_a_written_reason(engine: Engine) -> None:
    made = graded(engine, agreeing(40))
    with session_scope(engine) as session, pytest.raises(ConflictError, match="write why"):
        approve(session, scorer_version_id=made.version_id, approver="Priya")
    with session_scope(engine) as session:
        approve(
            session,
            scorer_version_id=made.version_id,
            approver="Priya",
            override_reason="Checked by hand on 40 examples",
        )
    with read_session(engine) as session:
        approvals = list_approvals(session, scorer_id=made.scorer_id)
    assert [(a.approver, a.badge, a.override_reason) for a in approvals] == [
        ("Priya", "not_enough_evidence", "Checked by hand on 40 examples")
    ]


def test_a_saved_policy_with_a_pass_mark_is_used(engine: Engine) -> None:
    made = graded(engine, agreeing(10))
    with session_scope(engine) as session:
        save_trust_policy(
            session,
            scorer_id=made.scorer_id,
            min_graded=5,
            min_kappa_low=0.5,
            max_flip_rate=0.2,
            pass_mark=0.9,
        )
        with pytest.raises(ConflictError, match="flip rate between 0 and 1"):
            save_trust_policy(
                session,
                scorer_id=made.scorer_id,
                min_graded=5,
                min_kappa_low=0.5,
                max_flip_rate=2.0,
            )
    with read_session(engine) as session:
        trust = version_trust(session, scorer_version_id=made.version_id)
    assert trust.scale.pass_mark == 0.9
    assert not any("graded examples the policy asks for" in r for r in trust.verdict.reasons)


def test_a_version_that_asks_no_judge_needs_no_stability_check() -> None:
    trusted = evaluate(TrustPolicy(), measure(agreeing(60), SCALE), None, asks_judge=False)
    assert (trusted.badge, trusted.reasons[1:]) == ("trusted", (NO_JUDGE_WORDS,))
    waiting = evaluate(TrustPolicy(), measure(agreeing(12), SCALE), None, asks_judge=False)
    assert waiting.badge == "not_enough_evidence"
    assert [r for r in waiting.reasons if "stability" in r] == []  # only the grades it lacks


def test_a_stored_version_without_a_judge_step_is_not_asked_for_stability(
    engine: Engine,
) -> None:
    with session_scope(engine) as session:
        no_judge = save_scorer_version(session, spec=load_spec(SCORERS / "tool-health.json"))
        judged = save_scorer_version(session, spec=load_spec(verdict_spec(scorer_id="judged")))
    with read_session(engine) as session:
        reasons = {
            version.id: version_trust(session, scorer_version_id=version.id).verdict.reasons
            for version in (no_judge, judged)
        }
    assert not any("stability" in reason for reason in reasons[no_judge.id])
    assert any(r.startswith("No complete stability check yet") for r in reasons[judged.id])
