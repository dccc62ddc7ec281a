"""The runs a trust check starts stop at the judge's default spend cap, as a run started on the
Runs page does: every stability repeat, and each version's run of an A/B (queued or scored
here, against the fake judge over real HTTP)."""

from __future__ import annotations

import asyncio

import pytest

from scorer_runtime.costs import estimate_dataset
from scorer_runtime.costs.cap import CapError
from scorer_runtime.money import format_dollars
from scorer_runtime.runs import RunRefusedError
from scorer_runtime.saved_scorers import compile_version
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    get_run,
    get_version_by_id,
    latest_flip_evidence,
    latest_stability_check,
    list_runs,
    read_session,
    repeat_runs,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.trust.ab import compare_versions, queue_missing
from scorer_runtime.trust.stability import check_report, plan_stability, run_check, start_check
from tests.cli.helpers import verdict_spec
from tests.trust.conftest import make_answers

pytestmark = pytest.mark.usefixtures("judge_key")
PRICED = "openai/gpt-4o-mini"


def _capped_version(engine, api_base: str, cap: float | None, template: str | None = None) -> int:
    """A version of the verdict scorer on a priced model whose judge stops runs at ``cap``."""
    spec = verdict_spec(api_base)
    spec["judge"]["model"] = PRICED
    if cap is not None:
        spec["judge"]["default_max_cost"] = cap
    if template is not None:
        spec["steps"][0]["template"] = template
    with session_scope(engine) as session:
        return save_scorer_version(session, spec=load_spec(spec)).id


def _worst_example_cost(engine, api_base: str, dataset_id: int) -> float:
    """The most one example of the dataset can cost the priced verdict scorer, estimated."""
    probe = _capped_version(engine, api_base, None)
    with read_session(engine) as session:
        scorer = compile_version(session, get_version_by_id(session, version_id=probe))
    estimate = asyncio.run(estimate_dataset(engine, scorer, dataset_id=dataset_id))
    assert estimate.example_worst_cost
    return estimate.example_worst_cost


@pytest.mark.parametrize("cap", [0.25, None])
def test_every_stability_repeat_stops_at_the_judges_default_cap(engine, fake_judge, cap) -> None:
    version_id = _capped_version(engine, fake_judge.base_url, cap)
    dataset_id = make_answers(engine, 6)
    with read_session(engine) as session:
        plan = plan_stability(session, scorer_version_id=version_id, dataset_id=dataset_id)
    check_id = start_check(engine, plan)
    with read_session(engine) as session:
        repeats = repeat_runs(session, check_id=check_id)
    assert len(repeats) == plan.repeats
    assert {run.max_cost for run in repeats} == {cap}
    # An unpriced model cannot be held to a default cap: its repeats run all the same.
    assert {run.allow_unpriced for run in repeats} == {cap is not None}


def test_a_queued_ab_run_stops_at_its_versions_default_cap(engine, fake_judge) -> None:
    capped = _capped_version(engine, fake_judge.base_url, 0.5)
    uncapped = _capped_version(engine, fake_judge.base_url, None, "Strictly: {{ output }}")
    dataset_id = make_answers(engine, 4)
    queued = queue_missing(engine, version_ids=[capped, uncapped], dataset_id=dataset_id)
    with read_session(engine) as session:
        runs = [get_run(session, run_id=run_id) for run_id in queued]
    assert [(r.scorer_version_id, r.max_cost) for r in runs] == [(capped, 0.5), (uncapped, None)]


def test_an_ab_run_stopped_by_the_cap_says_how_to_resume_it_and_keeps_its_scores(
    engine, fake_judge
) -> None:
    fake_judge.reply({"verdict": "good"}, usage="counted")
    examples = 12
    dataset_id = make_answers(engine, examples)
    # Room for about three examples at their worst.
    cap = _worst_example_cost(engine, fake_judge.base_url, dataset_id) * 3
    version_a = _capped_version(engine, fake_judge.base_url, cap, "Grade: {{ output }}")
    version_b = _capped_version(engine, fake_judge.base_url, cap, "Judge: {{ output }}")

    with pytest.raises(ValueError, match="stopped: budget reached") as stopped:
        asyncio.run(
            compare_versions(
                engine, version_a=version_a, version_b=version_b, dataset_id=dataset_id
            )
        )

    said = str(stopped.value)
    assert said.startswith("run ")
    assert " of version " in said
    run_id = int(said.split()[1])
    assert f"scorer-studio run --resume {run_id} --max-cost AMOUNT" in said
    with read_session(engine) as session:
        run = get_run(session, run_id=run_id)
    assert (run.status, run.max_cost) == ("stopped", cap)
    assert 0 < run.done_count < examples  # what it scored is kept for the resume
    assert run.cost <= cap
    assert fake_judge.request_count == run.done_count  # version B was never started


def test_a_stability_check_whose_repeat_reaches_the_cap_ends_and_is_no_evidence(
    engine, fake_judge
) -> None:
    fake_judge.reply({"verdict": "good"}, usage="counted")
    dataset_id = make_answers(engine, 8)
    # Room for about two of the eight examples.
    cap = _worst_example_cost(engine, fake_judge.base_url, dataset_id) * 2
    version_id = _capped_version(engine, fake_judge.base_url, cap, "Grade: {{ output }}")
    with read_session(engine) as session:
        plan = plan_stability(
            session, scorer_version_id=version_id, dataset_id=dataset_id, sample=8, repeats=3
        )

    check_id = asyncio.run(run_check(engine, plan))

    with read_session(engine) as session:
        report = check_report(session, check_id=check_id)
        evidence = latest_flip_evidence(session, version_id)
    assert [run.status for run in report.runs] == ["stopped"]  # no repeat after the cap
    assert (report.ended, report.stopped) == (True, True)
    assert evidence is None  # a check cut short is no evidence for the trust policy
    assert report.words().startswith(
        f"A repeat reached its spend cap ({format_dollars(cap)}) "
        "before the check's 3 repeats finished."
    )
    assert fake_judge.request_count == report.runs[0].done_count


TINY_CAP = 1e-7
"""A judge's default cap below what one example of the verdict scorer can cost at worst."""


def test_a_stability_check_under_a_default_cap_no_repeat_could_keep_is_refused_in_words(
    engine, fake_judge
) -> None:
    version_id = _capped_version(engine, fake_judge.base_url, TINY_CAP)
    dataset_id = make_answers(engine, 4)
    with read_session(engine) as session:
        plan = plan_stability(session, scorer_version_id=version_id, dataset_id=dataset_id)

    for start in (lambda: start_check(engine, plan), lambda: asyncio.run(run_check(engine, plan))):
        with pytest.raises(CapError, match="below what one example can cost at worst") as refused:
            start()
        assert "the judge's default spend cap: “Stop a run at $” on the Judges page" in str(
            refused.value
        )
    with read_session(engine) as session:
        assert latest_stability_check(session, scorer_version_id=version_id) is None
        assert list_runs(session) == []
    assert fake_judge.request_count == 0


def test_an_ab_under_a_default_cap_no_run_could_keep_queues_and_scores_nothing(
    engine, fake_judge
) -> None:
    fine = _capped_version(engine, fake_judge.base_url, None, "Grade: {{ output }}")
    tiny = _capped_version(engine, fake_judge.base_url, TINY_CAP, "Judge: {{ output }}")
    dataset_id = make_answers(engine, 4)

    with pytest.raises(RunRefusedError, match="The run of version 2 was not queued: the cap"):
        queue_missing(engine, version_ids=[fine, tiny], dataset_id=dataset_id)
    with pytest.raises(CapError, match="Judges page"):
        asyncio.run(compare_versions(engine, version_a=fine, version_b=tiny, dataset_id=dataset_id))
    with read_session(engine) as session:
        assert list_runs(session) == []  # not even the run of the version that could run
    assert fake_judge.request_count == 0
