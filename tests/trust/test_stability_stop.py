"""Stopping a stability check: every repeat not yet ended is cancelled (a queued one at once,
a running one by its runner), what was scored is kept, and a stopped check is no evidence
for the trust policy. A real SQLite file; the runner is the store calls a runner makes, or a
real ``BatchRunner`` against the fake judge over real HTTP."""

from __future__ import annotations

import asyncio

import pytest

from scorer_runtime.batch import BatchRunner
from scorer_runtime.saved_scorers import scorer_source
from scorer_runtime.store import (
    claim_queued,
    finish_run,
    get_version_by_id,
    latest_flip_evidence,
    latest_stability_check,
    read_session,
    repeat_runs,
    runner_beat,
    session_scope,
)
from scorer_runtime.trust.policy import version_trust
from scorer_runtime.trust.stability import (
    flip_rates,
    load_report,
    plan_stability,
    run_check,
    start_check,
    stop_check,
)
from tests.trust.conftest import judged_version, make_answers

pytestmark = pytest.mark.usefixtures("judge_key")
RUNNER = "another-host:1"  # a runner on another host is judged by its heartbeat alone


def _plan(engine, version_id, dataset_id, repeats):
    with read_session(engine) as session:
        return plan_stability(
            session, scorer_version_id=version_id, dataset_id=dataset_id, repeats=repeats
        )


def _runs(engine, check_id):
    with read_session(engine) as session:
        return repeat_runs(session, check_id=check_id)


def test_stopping_cancels_the_queued_repeats_at_once_and_asks_the_running_one(
    engine, fake_judge
) -> None:
    fake_judge.reply({"verdict": "good"})
    version_id = judged_version(engine, fake_judge.base_url)
    dataset_id = make_answers(engine, 4)
    check_id = start_check(engine, _plan(engine, version_id, dataset_id, repeats=3))
    with session_scope(engine) as session:
        runner_beat(session, name=RUNNER)
        claimed = claim_queued(session, runner=RUNNER)
    first, *others = _runs(engine, check_id)
    assert claimed == first.id

    asked = stop_check(engine, check_id)

    assert asked == [first.id, *(run.id for run in others)]
    running, *queued = _runs(engine, check_id)
    assert (running.status, running.cancel_requested) == ("running", True)
    assert [run.status for run in queued] == ["cancelled", "cancelled"]
    with session_scope(engine) as session:
        assert claim_queued(session, runner=RUNNER) is None  # no runner picks them up
    report = load_report(engine, check_id)
    assert (report.ended, report.stopping) == (False, True)
    assert report.words().startswith("Stopping the check: 2 of 3 repeats have ended")

    with session_scope(engine) as session:  # the runner honours the request
        finish_run(session, run_id=first.id, status="cancelled")
    report = load_report(engine, check_id)
    assert (report.ended, report.stopped, report.stopping) == (True, True, False)
    words = report.words()
    assert words.startswith("This check was stopped before its 3 repeats finished.")
    assert "Nothing had been scored yet" in words
    assert "does not count as evidence for the trust policy" in words
    assert "version 1 has no complete stability check" in words
    assert stop_check(engine, check_id) == []  # nothing is left to stop
    with read_session(engine) as session:
        assert latest_flip_evidence(session, version_id) is None
        trust = version_trust(session, scorer_version_id=version_id)
    assert trust.flips is None
    assert any(r.startswith("No complete stability check yet") for r in trust.verdict.reasons)
    assert fake_judge.request_count == 0


def test_a_stopped_check_is_no_evidence_though_its_flips_could_be_counted(
    engine, fake_judge
) -> None:
    fake_judge.reply({"verdict": "good"}, when="answer 2.", times=2)  # the complete check
    fake_judge.reply({"verdict": "bad"}, when="answer 2.", times=1)  # the stopped one flips
    fake_judge.reply({"verdict": "good"})
    version_id = judged_version(engine, fake_judge.base_url)
    dataset_id = make_answers(engine, 4)
    complete = asyncio.run(run_check(engine, _plan(engine, version_id, dataset_id, repeats=2)))
    stopped = start_check(engine, _plan(engine, version_id, dataset_id, repeats=3))
    with read_session(engine) as session:
        source = scorer_source(session, get_version_by_id(session, version_id=version_id))
    scorer = source.build()
    first, second, third = _runs(engine, stopped)
    for run in (first, second):  # a runner scores two of the three repeats
        asyncio.run(BatchRunner(engine, scorer, run_id=run.id, source=source).run())

    assert stop_check(engine, stopped) == [third.id]

    report = load_report(engine, stopped)
    assert (report.ended, report.stopped) == (True, True)
    assert (report.flips.compared, report.flips.flipped) == (4, 1)  # kept, and shown
    assert [run.status for run in report.runs] == ["done", "done", "cancelled"]
    with read_session(engine) as session:
        evidence = latest_flip_evidence(session, version_id)
        scorer_id = get_version_by_id(session, version_id=version_id).scorer_id
        rates = flip_rates(session, scorer_id=scorer_id)
    assert evidence is not None
    assert (evidence.examples, evidence.flipped, evidence.repeats) == (4, 0, 2)
    assert [(r.version, r.rate) for r in rates] == [(1, 0.0)]
    assert report.evidence == evidence
    words = report.words()
    assert "The 8 results scored before the stop are kept" in words
    assert "badge still goes by its last complete check (0 of 4 examples changed verdict" in words
    assert load_report(engine, complete).stopped is False
    assert fake_judge.request_count == 4 * 2 + 4 * 2


def test_a_new_check_can_start_after_a_stopped_one_and_then_counts(engine, fake_judge) -> None:
    fake_judge.reply({"verdict": "good"})
    version_id = judged_version(engine, fake_judge.base_url)
    dataset_id = make_answers(engine, 3)
    plan = _plan(engine, version_id, dataset_id, repeats=2)
    stop_check(engine, start_check(engine, plan))
    again = asyncio.run(run_check(engine, plan))
    report = load_report(engine, again)
    assert (report.ended, report.stopped) == (True, False)
    with read_session(engine) as session:
        evidence = latest_flip_evidence(session, version_id)
    assert evidence is not None
    assert (evidence.examples, evidence.flipped) == (3, 0)


def test_a_check_scored_here_makes_no_more_repeats_once_stopped(engine, fake_judge) -> None:
    fake_judge.reply({"verdict": "good"}, latency_s=1.0)  # slow enough to be stopped midway
    version_id = judged_version(engine, fake_judge.base_url)
    dataset_id = make_answers(engine, 8)
    plan = _plan(engine, version_id, dataset_id, repeats=3)
    stopped: list[int] = []

    def progress(repeat: int, _progress) -> None:
        if not stopped:  # someone presses "Stop the check" once the first answer is in
            with read_session(engine) as session:
                check = latest_stability_check(session, scorer_version_id=version_id)
            assert check is not None
            stopped.extend(stop_check(engine, check.id))

    check_id = asyncio.run(run_check(engine, plan, progress=progress))

    report = load_report(engine, check_id)
    assert [run.status for run in report.runs] == ["cancelled"]  # repeats 2 and 3 never made
    assert stopped == [report.runs[0].id]
    assert (report.ended, report.stopped) == (True, True)
    assert fake_judge.request_count < 3 * 8
    with read_session(engine) as session:
        assert latest_flip_evidence(session, version_id) is None
