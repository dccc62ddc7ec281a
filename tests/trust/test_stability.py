"""Stability checks end to end: repeats scored through litellm against the fake judge over
real HTTP, stored in a real database; a judge scripted to change its mind flips."""

from __future__ import annotations

import asyncio

import pytest

from scorer_runtime.batch import BatchRunner
from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import compile_version
from scorer_runtime.store import (
    ScoreFilter,
    get_version_by_id,
    latest_flip_evidence,
    latest_full_run,
    latest_stability_check,
    list_scores,
    read_session,
    repeat_runs,
)
from scorer_runtime.trust.stability import (
    check_report,
    flip_rates,
    load_report,
    plan_stability,
    run_check,
    start_check,
)
from tests.trust.conftest import judged_version, make_answers

pytestmark = pytest.mark.usefixtures("judge_key")


def _plan(engine, version_id, dataset_id, **kwargs):
    with read_session(engine) as session:
        return plan_stability(
            session, scorer_version_id=version_id, dataset_id=dataset_id, **kwargs
        )


def test_a_judge_that_changes_its_mind_on_one_example_flips_it(engine, fake_judge) -> None:
    version_id = judged_version(engine, fake_judge.base_url)
    dataset_id = make_answers(engine, 6)
    fake_judge.reply({"verdict": "good"}, when="answer 2.", times=1)  # then bad
    fake_judge.reply({"verdict": "bad"}, when="answer 2.")
    fake_judge.reply({"verdict": "good"})
    plan = _plan(engine, version_id, dataset_id, sample=20, repeats=3)
    assert plan.judge_calls == 18
    assert plan.describe() == "6 examples × 3 repeats × 1 judge step = 18 judge calls."

    check_id = asyncio.run(run_check(engine, plan))

    assert fake_judge.request_count == 18  # every repeat asked the judge again
    report = load_report(engine, check_id)
    assert report.ended
    assert len(report.runs) == 3
    assert {run.stability_check_id for run in report.runs} == {check_id}
    flips = report.flips
    assert (flips.compared, flips.flipped) == (6, 1)
    (unstable,) = flips.unstable
    assert unstable.verdicts == ("good", "bad", "bad")
    assert unstable.spread == 1.0
    assert report.words().startswith("1 of 6 examples changed verdict between repeats: a flip")
    with read_session(engine) as session:
        evidence = latest_flip_evidence(session, version_id)
        assert evidence is not None
        assert (evidence.examples, evidence.repeats, evidence.flipped) == (6, 3, 1)
        assert evidence.rate == pytest.approx(1 / 6)
        assert evidence.ci_low < 1 / 6 < evidence.ci_high
        scorer_id = get_version_by_id(session, version_id=version_id).scorer_id
        rates = flip_rates(session, scorer_id=scorer_id)
    assert [(r.version, r.rate) for r in rates] == [(1, pytest.approx(1 / 6))]


def test_each_repeat_scores_the_seeded_sample_only(engine, fake_judge) -> None:
    version_id = judged_version(engine, fake_judge.base_url)
    dataset_id = make_answers(engine, 12)
    fake_judge.reply({"verdict": "good"})
    plan = _plan(engine, version_id, dataset_id, sample=4, repeats=2, seed=3)
    assert plan == _plan(engine, version_id, dataset_id, sample=4, repeats=2, seed=3)

    check_id = asyncio.run(run_check(engine, plan))

    assert fake_judge.request_count == 8
    with read_session(engine) as session:
        for run in repeat_runs(session, check_id=check_id):
            assert (run.total, run.done_count, run.status) == (4, 4, "done")
            scored = list_scores(session, filter=ScoreFilter(run_id=run.id)).rows
            assert sorted(row.example_id for row in scored) == list(plan.example_ids)
        report = check_report(session, check_id=check_id)
    assert (report.flips.compared, report.flips.flipped, report.flips.rate) == (4, 0, 0.0)


def test_queued_repeats_are_scored_by_a_runner_and_end_the_check(engine, fake_judge) -> None:
    version_id = judged_version(engine, fake_judge.base_url)
    dataset_id = make_answers(engine, 3)
    fake_judge.reply({"verdict": "bad"}, when="answer 0.", times=1)
    fake_judge.reply({"verdict": "good"})
    check_id = start_check(engine, _plan(engine, version_id, dataset_id, repeats=2))

    with read_session(engine) as session:
        runs = repeat_runs(session, check_id=check_id)
        assert [run.status for run in runs] == ["queued", "queued"]
        assert latest_flip_evidence(session, version_id) is None  # not ended yet
        assert not check_report(session, check_id=check_id).ended
        scorer = compile_version(session, get_version_by_id(session, version_id=version_id))
    asyncio.run(BatchRunner(engine, scorer, run_id=runs[0].id).run())
    with read_session(engine) as session:
        half = check_report(session, check_id=check_id)
        assert half.repeats_ended == 1
        assert "1 of 2 repeats have ended" in half.words()
    asyncio.run(BatchRunner(engine, scorer, run_id=runs[1].id).run())

    with read_session(engine) as session:
        evidence = latest_flip_evidence(session, version_id)
        assert latest_stability_check(session, scorer_version_id=version_id).id == check_id
    assert evidence is not None
    assert (evidence.flipped, evidence.examples) == (1, 3)


def test_a_check_that_cannot_call_its_judge_is_refused_before_anything_is_stored(
    engine, fake_judge, monkeypatch
) -> None:
    version_id = judged_version(engine, fake_judge.base_url)
    dataset_id = make_answers(engine, 3)
    monkeypatch.delenv("FAKE_JUDGE_KEY")
    with pytest.raises(ValueError, match="FAKE_JUDGE_KEY"):
        start_check(engine, _plan(engine, version_id, dataset_id))
    with read_session(engine) as session:
        assert latest_stability_check(session, scorer_version_id=version_id) is None
        assert latest_flip_evidence(session, version_id) is None


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"repeats": 1}, "repeats must be from 2 to 10"),
        ({"repeats": 11}, "repeats must be from 2 to 10"),
        ({"sample": 0}, "the sample must be from 1 to 500"),
    ],
)
def test_a_plan_out_of_bounds_is_refused_in_words(engine, fake_judge, kwargs, words) -> None:
    version_id = judged_version(engine, fake_judge.base_url)
    dataset_id = make_answers(engine, 3)
    with pytest.raises(ValueError, match=words):
        _plan(engine, version_id, dataset_id, **kwargs)


def test_an_empty_dataset_is_refused_in_words(engine, fake_judge) -> None:
    version_id = judged_version(engine, fake_judge.base_url)
    with pytest.raises(ValueError, match="this dataset has no examples"):
        _plan(engine, version_id, make_answers(engine, 0))


def test_the_ab_run_of_a_version_is_never_a_stability_repeat(engine, fake_judge) -> None:
    version_id = judged_version(engine, fake_judge.base_url)
    dataset_id = make_answers(engine, 3)
    fake_judge.reply({"verdict": "good"})
    asyncio.run(run_check(engine, _plan(engine, version_id, dataset_id, repeats=2)))
    with read_session(engine) as session:
        assert latest_full_run(session, scorer_version_id=version_id, dataset_id=dataset_id) is None
        scorer = compile_version(session, get_version_by_id(session, version_id=version_id))
    summary = asyncio.run(
        run_batch(engine, scorer, scorer_version_id=version_id, dataset_id=dataset_id)
    )
    with read_session(engine) as session:
        full = latest_full_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
    assert full is not None
    assert full.id == summary.run_id
    assert full.total == 3
