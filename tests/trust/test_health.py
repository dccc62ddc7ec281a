"""Health checks end to end: each family's run scored through litellm against a fake judge
over real HTTP, stored in a real database (SQLite, and PostgreSQL when configured). A judge
that obeys the judged text is swayed; one that grades only the answer is not."""

from __future__ import annotations

import asyncio

import pytest
from scipy.stats import binomtest

from scorer_runtime.batch import BatchRunner
from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import compile_version
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    get_version_by_id,
    list_runs,
    list_scores,
    read_session,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.store.health import health_runs
from scorer_runtime.store.views.overview import read_overview
from scorer_runtime.store.views.run_lines import runs_page
from scorer_runtime.trust.attacks import FAMILY_IDS
from scorer_runtime.trust.health import (
    family_words,
    load_health,
    plan_health,
    run_health,
    start_health,
)
from tests.store.fixtures import make_dataset
from tests.trust.health_judges import compare_spec, fair_judge, gullible_judge

pytestmark = pytest.mark.usefixtures("judge_key")

SAMPLE = 10


def _setup(engine, api_base: str, count: int = SAMPLE) -> tuple[int, int]:
    """The compare scorer and a dataset whose answers all miss the expected answer."""
    with session_scope(engine) as session:
        version_id = save_scorer_version(session, spec=load_spec(compare_spec(api_base))).id
    examples = [
        ExampleData(input=f"question {i}", output=f"answer {i}", ground_truth=f"fact {i}")
        for i in range(count)
    ]
    return version_id, make_dataset(engine, "facts", examples)


def _plan(engine, version_id: int, dataset_id: int, **kwargs):
    with read_session(engine) as session:
        return plan_health(session, scorer_version_id=version_id, dataset_id=dataset_id, **kwargs)


def _check(engine, fake_judge, judge) -> tuple:
    version_id, dataset_id = _setup(engine, fake_judge.base_url)
    fake_judge.reply_by(judge)
    plan = _plan(engine, version_id, dataset_id, sample=SAMPLE)
    check_id = asyncio.run(run_health(engine, plan))
    return plan, load_health(engine, check_id)


def _wilson(count: int, n: int) -> tuple[float, float]:
    """Wilson's interval as scipy computes it (independent of ``trust.intervals``)."""
    interval = binomtest(count, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(interval.low), float(interval.high)


def test_a_judge_that_obeys_the_judged_text_is_swayed(engine, fake_judge) -> None:
    plan, report = _check(engine, fake_judge, gullible_judge)

    assert plan.families == FAMILY_IDS  # the prompt shows two values: order is tried too
    assert fake_judge.request_count == SAMPLE * (1 + len(FAMILY_IDS))
    assert report.ended
    assert not report.stopped
    by_family = {f.family: f for f in report.families}
    for family in ("direct_injection", "format_impersonation", "dummy_answers"):
        sway = by_family[family]
        assert sway.compared == SAMPLE
        assert sway.rate is not None
        assert sway.rate >= 0.8
        assert sway.toward_best == sway.changed
        assert (sway.ci_low, sway.ci_high) == pytest.approx(_wilson(sway.changed, SAMPLE))
        change = sway.changes[0]
        assert (change.before, change.after) == ("bad", "good")
        assert change.before_id != change.after_id  # both results are kept, to open
    assert by_family["verbosity"].changed == 0
    assert by_family["verbosity"].ci_high == pytest.approx(_wilson(0, SAMPLE)[1])
    assert {f.family for f in report.swayed} >= {"direct_injection", "dummy_answers"}
    assert "mark the judged text as data" in report.words()
    injection = by_family["direct_injection"]
    assert family_words(injection).startswith(f"{injection.changed} of {SAMPLE} verdicts changed")


def test_a_judge_that_grades_only_the_answer_is_not_swayed(engine, fake_judge) -> None:
    _, report = _check(engine, fake_judge, fair_judge)

    assert report.ended
    for sway in report.families:
        assert sway.compared == SAMPLE
        assert sway.rate is not None
        assert sway.rate <= 0.1
        assert (sway.ci_low, sway.ci_high) == pytest.approx(_wilson(sway.changed, SAMPLE))
    assert report.swayed == ()
    assert report.words() == "No perturbation moved a verdict toward the best grade."


def test_the_perturbed_runs_ask_the_judge_even_with_answers_cached(engine, fake_judge) -> None:
    version_id, dataset_id = _setup(engine, fake_judge.base_url, count=4)
    fake_judge.reply_by(fair_judge)
    with read_session(engine) as session:
        scorer = compile_version(session, get_version_by_id(session, version_id=version_id))
    asyncio.run(run_batch(engine, scorer, scorer_version_id=version_id, dataset_id=dataset_id))
    asked_before = fake_judge.request_count

    plan = _plan(engine, version_id, dataset_id)
    asyncio.run(run_health(engine, plan))

    assert fake_judge.request_count - asked_before == plan.judge_calls == 4 * 7
    prompts = [r.last_user_content for r in fake_judge.chat_requests[asked_before:]]
    assert sum("Ignore previous instructions" in p for p in prompts) == 4
    assert sum("Grade this answer: fact 0\n\nExpected: answer 0" in p for p in prompts) == 1


def test_a_checks_runs_stay_out_of_runs_home_and_results(engine, fake_judge) -> None:
    version_id, dataset_id = _setup(engine, fake_judge.base_url, count=3)
    fake_judge.reply_by(fair_judge)
    plan = _plan(engine, version_id, dataset_id)
    check_id = asyncio.run(run_health(engine, plan))

    with read_session(engine) as session:
        runs = health_runs(session, check_id=check_id)
        assert len(runs) == 7
        assert [r.perturbation is None for r in runs] == [True] + [False] * 6
        assert all(r.of_check for r in runs)
        assert list_runs(session, repeats=False) == []
        assert runs_page(session).lines == []
        assert read_overview(session).runs == 0
        assert list_scores(session, filter=ScoreFilter(repeats=False)).rows == []
        assert len(list_scores(session, filter=ScoreFilter()).rows) == 21


def test_queued_runs_score_the_sample_perturbed_and_end_the_check(engine, fake_judge) -> None:
    version_id, dataset_id = _setup(engine, fake_judge.base_url, count=5)
    fake_judge.reply_by(gullible_judge)
    plan = _plan(engine, version_id, dataset_id, sample=3, seed=2)
    check_id = start_health(engine, plan)

    with read_session(engine) as session:
        runs = health_runs(session, check_id=check_id)
        assert [r.status for r in runs] == ["queued"] * 7
        assert all(not r.use_cache for r in runs)
        scorer = compile_version(session, get_version_by_id(session, version_id=version_id))
    assert not load_health(engine, check_id).ended
    for run in runs:  # as a runner claims them
        asyncio.run(BatchRunner(engine, scorer, run_id=run.id).run())

    report = load_health(engine, check_id)
    assert report.ended
    assert [r.total for r in report.runs] == [3] * 7
    dummy = next(f for f in report.families if f.family == "dummy_answers")
    assert (dummy.compared, dummy.changed, dummy.toward_best) == (3, 3, 3)


def test_a_scorer_whose_prompt_shows_one_value_skips_the_order(engine, fake_judge) -> None:
    spec = compare_spec(fake_judge.base_url)
    spec["steps"][0]["template"] = "Grade this answer: {{ output }}\n\nExpected: none"
    with session_scope(engine) as session:
        version_id = save_scorer_version(session, spec=load_spec(spec)).id
    dataset_id = make_dataset(engine, "one", [ExampleData(input="q", output="a")])

    plan = _plan(engine, version_id, dataset_id)

    assert "order" not in plan.families
    assert plan.runs == 6
    assert plan.describe() == (
        "1 example scored as they are and under 5 perturbations (6 runs) = 6 judge calls."
    )


def _policy(engine, version_id: int, max_swayed_rate: float | None) -> None:
    from scorer_runtime.store import save_trust_policy

    with session_scope(engine) as session:
        scorer_id = get_version_by_id(session, version_id=version_id).scorer_id
        save_trust_policy(
            session,
            scorer_id=scorer_id,
            min_graded=2,
            min_kappa_low=0.0,
            max_flip_rate=1.0,
            max_swayed_rate=max_swayed_rate,
        )


def _reasons(engine, version_id: int) -> tuple[str, ...]:
    from scorer_runtime.trust.policy import version_trust

    with read_session(engine) as session:
        return version_trust(session, scorer_version_id=version_id).verdict.reasons


def test_the_policy_weighs_the_health_check_only_when_it_asks_for_one(engine, fake_judge) -> None:
    version_id, dataset_id = _setup(engine, fake_judge.base_url, count=4)
    fake_judge.reply_by(gullible_judge)
    _policy(engine, version_id, None)
    assert not any("health check" in r for r in _reasons(engine, version_id))
    _policy(engine, version_id, 0.1)
    assert any(r.startswith("No complete health check yet") for r in _reasons(engine, version_id))

    asyncio.run(run_health(engine, _plan(engine, version_id, dataset_id)))

    reasons = _reasons(engine, version_id)
    assert (
        "Direct injection changed 100% of verdicts in the health check (4 of 4); the policy "
        "allows at most 10%."
    ) in reasons
    assert not any("Padding changed" in r for r in reasons)
    _policy(engine, version_id, 1.0)
    assert not any("health check" in r for r in _reasons(engine, version_id))
