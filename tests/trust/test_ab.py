"""Version A/B on the same stored examples: runs reused or scored against the fake judge
over real HTTP, verdict differences, agreement with people and McNemar's exact test."""

from __future__ import annotations

import asyncio

import pytest
from scipy.stats import binomtest

from scorer_runtime.store import (
    add_label,
    dataset_example_ids,
    get_version_by_id,
    read_session,
    session_scope,
)
from scorer_runtime.trust import Scale
from scorer_runtime.trust.ab import agreement_with_people, compare_versions, mcnemar
from scorer_runtime.trust.stability import plan_stability, run_check
from tests.trust.conftest import judged_version, make_answers

pytestmark = pytest.mark.usefixtures("judge_key")
PASS_FAIL = Scale("pass_fail")


@pytest.mark.parametrize(
    ("a_only", "b_only", "p_value"),
    [
        (7, 0, 2 * 0.5**7),  # every discordant pair one way: 2 P(X = 7 | n = 7)
        (3, 1, 2 * (1 + 4) / 16),  # 2 P(X <= 1 | n = 4, p = 1/2)
        (2, 2, 1.0),
    ],
)
def test_mcnemar_is_the_exact_binomial_test_of_the_discordant_pairs(a_only, b_only, p_value):
    a = [True] * a_only + [False] * b_only + [True, False]
    b = [False] * a_only + [True] * b_only + [True, False]  # two concordant pairs
    test = mcnemar(a, b)
    assert (test.a_only, test.b_only) == (a_only, b_only)
    assert test.p_value == pytest.approx(p_value)


def test_no_discordant_pair_is_said_in_words_not_as_a_number() -> None:
    test = mcnemar([True, False], [True, False])
    assert test.p_value is None
    assert test.words() == (
        "Both versions gave the same pass or fail on every example: nothing to test."
    )


def test_agreement_with_people_counts_the_labelled_examples_only() -> None:
    agreement = agreement_with_people(PASS_FAIL, {1: 1.0, 2: 0.0, 3: 1.0}, {1: 1.0, 2: 1.0, 9: 0})
    assert agreement is not None
    assert (agreement.labelled, agreement.agreed) == (2, 1)
    assert agreement.kappa.value is None  # people passed both: no chance to correct for
    assert agreement.words() == (
        "agrees with people on 1 of 2 labelled examples (50%, 95 % interval 9% to 91%), kappa "
        "cannot be measured: "
        "people gave every labelled example the same grade (pass)"
    )
    assert agreement_with_people(PASS_FAIL, {1: 1.0}, {}) is None


def test_agreement_with_people_weighs_it_beyond_chance_with_cohens_kappa() -> None:
    # People pass 1, 2, 3; the version passes 1, 2, 5. Observed agreement 3/5 = 0.6; each
    # side passes 3 of 5, so chance agreement is 0.6 * 0.6 + 0.4 * 0.4 = 0.52, and
    # kappa = (0.6 - 0.52) / (1 - 0.52) = 1/6.
    scores = {1: 1.0, 2: 1.0, 3: 0.0, 4: 0.0, 5: 1.0}
    labels = {1: 1.0, 2: 1.0, 3: 1.0, 4: 0.0, 5: 0.0}
    agreement = agreement_with_people(PASS_FAIL, scores, labels)
    assert agreement is not None
    assert agreement.kappa.value == pytest.approx(1 / 6)
    assert agreement.kappa.low is not None
    assert agreement.kappa.high is not None
    assert agreement.kappa.low <= 1 / 6 <= agreement.kappa.high
    assert agreement.words() == (
        "agrees with people on 3 of 5 labelled examples (60%, 95 % interval 23% to 88%), kappa 0.17"
    )
    wilson = binomtest(3, 5).proportion_ci(method="wilson")
    assert agreement.percent_interval == pytest.approx((wilson.low, wilson.high), abs=1e-9)


def test_the_version_giving_one_verdict_or_a_single_label_is_said_in_words() -> None:
    same = agreement_with_people(PASS_FAIL, {1: 1.0, 2: 1.0}, {1: 1.0, 2: 0.0})
    assert same is not None
    assert same.kappa_missing == "this version gave every labelled example the same grade (pass)"
    one = agreement_with_people(PASS_FAIL, {1: 1.0}, {1: 1.0})
    assert one is not None
    assert one.kappa_words() == ("kappa cannot be measured: it needs at least 2 labelled examples")
    assert "nan" not in one.words().lower()


def test_three_labels_are_weighed_with_the_quadratic_weighted_kappa() -> None:
    from sklearn.metrics import cohen_kappa_score

    scale = Scale("labels", (("good", 1.0), ("ok", 0.5), ("bad", 0.0)), 0.0, 1.0, 0.5)
    labels = {1: 1.0, 2: 0.5, 3: 0.0, 4: 0.0, 5: 0.5}
    scores = {1: 1.0, 2: 1.0, 3: 0.5, 4: 0.0, 5: 0.5}
    agreement = agreement_with_people(scale, scores, labels)
    assert agreement is not None
    assert agreement.kappa_name == "weighted kappa"
    expected = cohen_kappa_score(
        [0, 1, 2, 2, 1], [0, 0, 1, 2, 1], labels=[0, 1, 2], weights="quadratic"
    )
    assert agreement.kappa.value == pytest.approx(expected)
    assert agreement.words().endswith(
        f"(60%, 95 % interval 23% to 88%), weighted kappa {expected:.2f}"
    )


def test_two_versions_score_the_same_examples_and_their_difference_is_tested(
    engine, fake_judge
) -> None:
    version_a = judged_version(engine, fake_judge.base_url)
    version_b = judged_version(engine, fake_judge.base_url, strict=True)
    dataset_id = make_answers(engine, 10)
    for i in range(7):  # the strict version fails answers 0 to 6
        fake_judge.reply({"verdict": "bad"}, when=f"Strictly grade this answer: answer {i}.")
    fake_judge.reply({"verdict": "good"})
    with read_session(engine) as session:  # a stability check's repeats are never reused
        plan = plan_stability(session, scorer_version_id=version_a, dataset_id=dataset_id)
    asyncio.run(run_check(engine, plan))
    report = asyncio.run(
        compare_versions(engine, version_a=version_a, version_b=version_b, dataset_id=dataset_id)
    )
    with read_session(engine) as session:
        ids = dataset_example_ids(session, dataset_id=dataset_id)
    assert (report.compared, report.left_out) == (10, 0)
    assert [d.example_id for d in report.differences] == ids[:7]
    assert {(d.verdict_a, d.verdict_b) for d in report.differences} == {("good", "bad")}
    assert (report.a.mean_score, report.b.mean_score) == (1.0, pytest.approx(0.3))
    assert (report.a.version, report.b.version) == (1, 2)
    assert report.test.p_value == pytest.approx(2 * 0.5**7)
    assert report.test.words().startswith(
        "The versions differ more than chance would explain (McNemar's exact test, p = 0.0156)"
    )
    assert report.a.mean_latency_ms is not None
    assert report.a.agreement is None  # nobody labelled an example yet


def test_finished_runs_are_reused_and_people_labels_are_compared(engine, fake_judge) -> None:
    version_a = judged_version(engine, fake_judge.base_url)
    version_b = judged_version(engine, fake_judge.base_url, strict=True)
    dataset_id = make_answers(engine, 4)
    fake_judge.reply({"verdict": "bad"}, when="Strictly grade this answer: answer 0.")
    fake_judge.reply({"verdict": "good"})
    first = asyncio.run(
        compare_versions(engine, version_a=version_a, version_b=version_b, dataset_id=dataset_id)
    )
    calls = fake_judge.request_count
    assert calls == 8
    assert first.a.agreement is None
    with session_scope(engine) as session:
        scorer_id = get_version_by_id(session, version_id=version_a).scorer_id
        ids = dataset_example_ids(session, dataset_id=dataset_id)
        add_label(session, example_id=ids[0], scorer_id=scorer_id, value=1.0, labeller="ann")
        add_label(session, example_id=ids[0], scorer_id=scorer_id, value=0.0, labeller="bo")
        add_label(session, example_id=ids[1], scorer_id=scorer_id, value=1.0, labeller="ann")
    second = asyncio.run(
        compare_versions(engine, version_a=version_a, version_b=version_b, dataset_id=dataset_id)
    )
    assert fake_judge.request_count == calls  # both runs were reused
    assert (second.a.run_id, second.b.run_id) == (first.a.run_id, first.b.run_id)
    assert second.test.p_value == pytest.approx(1.0)
    assert second.test.words().startswith("The difference could be chance")
    # The latest label of answer 0 says bad: only the strict version agrees on it.
    assert second.a.agreement is not None
    assert second.b.agreement is not None
    assert (second.a.agreement.labelled, second.a.agreement.agreed) == (2, 1)
    assert (second.b.agreement.labelled, second.b.agreement.agreed) == (2, 2)
    # Version A said good to both: its kappa cannot be measured; B agreed on both.
    assert second.a.agreement.kappa.value is None
    assert second.a.agreement.kappa_missing == (
        "this version gave every labelled example the same grade (good)"
    )
    assert second.b.agreement.kappa.value == pytest.approx(1.0)
    assert second.b.agreement.words().endswith("(100%, 95 % interval 34% to 100%), kappa 1.00")
    assert second.b.agreement.kappa.low is not None
    assert second.b.agreement.kappa.low < 0.5  # two agreements say little
