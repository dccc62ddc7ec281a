"""Improve this judge, end to end against a judge with a planted bias (over real HTTP, a real
store): it fails every answer about refunds, which people grade good, unless its prompt says
refund answers are fine. The candidates built from the tuning part fix it; the holdout proves
it; nothing of the holdout reaches a candidate or the guidelines writer."""

from __future__ import annotations

import asyncio
import re

import pytest
from scipy.stats import binomtest
from sklearn.metrics import cohen_kappa_score

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    add_label,
    add_scores,
    create_run,
    list_examples,
    list_versions,
    read_session,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.trust.align import (
    NotReadyError,
    candidate_specs,
    plan_align,
    save_best,
    try_candidates,
    write_guidelines,
)
from scorer_runtime.trust.align_candidates import GUIDELINES_HEADING
from tests.cli.helpers import verdict_spec
from tests.store.fixtures import make_dataset

FIX = "Refund answers are fine when they explain the policy"
N = 36


def _kind(i: int) -> str:
    return ("refund", "good", "bad")[i % 3]


def _output(i: int) -> str:
    return {
        "refund": f"Refunds take 5 days, see the policy. ref-{i}",
        "good": f"A good answer with the steps. ok-{i}",
        "bad": f"Nope. bad-{i}",
    }[_kind(i)]


def _note(i: int) -> str:
    return f"{FIX} (n{i})." if _kind(i) == "refund" else f"Seen (n{i})."


def _verdict(text: str) -> dict[str, str] | None:
    """The biased judge: reads every message, grades the answer after 'Grade this answer:'."""
    if "Examples where the judge and a person disagreed" in text:
        return {"guidelines": [f"{FIX}."]}
    graded = text.rsplit("Grade this answer: ", 1)[-1]
    if "Refunds" in graded:
        return {"verdict": "good" if FIX in text.rsplit("Grade this answer: ", 1)[0] else "bad"}
    return {"verdict": "good" if "good answer" in graded else "bad"}


@pytest.fixture
def biased(engine, fake_judge, judge_key):
    """A stored version whose run scored every example as the biased judge does, each graded
    by a person with a note; its id and the example ids, in order."""
    fake_judge.reply_by(_verdict, whole=True)
    examples = [ExampleData(input=f"question {i}", output=_output(i)) for i in range(N)]
    dataset_id = make_dataset(engine, "support", examples)
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(verdict_spec(fake_judge.base_url)))
        run = create_run(session, scorer_version_id=version.id, dataset_id=dataset_id)
        ids = [e.id for e in list_examples(session, dataset_id=dataset_id, limit=100)]
        add_scores(
            session,
            rows=[
                dict(
                    run_id=run.id,
                    example_id=example_id,
                    scorer_id=version.scorer_id,
                    scorer_version_id=version.id,
                    dataset_id=dataset_id,
                    score=1.0 if _kind(i) == "good" else 0.0,
                    outcome="scored",
                )
                for i, example_id in enumerate(ids)
            ],
        )
        for i, example_id in enumerate(ids):
            human = 0.0 if _kind(i) == "bad" else 1.0
            add_label(
                session,
                example_id=example_id,
                scorer_id=version.scorer_id,
                value=human,
                labeller="Marco",
                note=_note(i),
            )
    return version.id, ids


def _improve(engine, version_id):
    plan = plan_align(engine, scorer_version_id=version_id)
    guidelines, _ = asyncio.run(write_guidelines(engine, plan))
    candidates = candidate_specs(engine, plan, guidelines)
    report = asyncio.run(try_candidates(engine, plan, candidates, guidelines=guidelines))
    return plan, guidelines, save_best(engine, report)


def test_the_chosen_candidate_agrees_better_on_examples_it_never_saw(engine, fake_judge, biased):
    version_id, ids = biased
    plan, guidelines, report = _improve(engine, version_id)
    assert guidelines == [f"{FIX}."]
    assert (len(plan.split.tuning), len(plan.split.holdout)) == (24, 12)
    assert {c.kind for c in report.candidates} == {"worked_examples", "guidelines", "both"}
    chosen = report.chosen
    assert chosen is not None
    assert report.saved_version == 2
    assert chosen.holdout.kappa > report.current_holdout.kappa
    # Independent figures: the holdout's grades against each version's verdicts.
    holdout = plan.split.holdout
    people = [g.human for g in holdout]
    before = [g.judge for g in holdout]
    after = [1.0 if _kind(ids.index(g.example_id)) != "bad" else 0.0 for g in holdout]
    assert report.current_holdout.kappa == pytest.approx(cohen_kappa_score(people, before))
    assert chosen.holdout.kappa == pytest.approx(cohen_kappa_score(people, after))
    fixed = sum(b != p for b, p in zip(before, people, strict=True))
    assert chosen.mcnemar_p == pytest.approx(binomtest(fixed, fixed, 0.5).pvalue)
    assert report.current_holdout.ci_low < report.current_holdout.kappa
    with read_session(engine) as session:
        versions = list_versions(session, scorer_id=plan.scorer_id)
    newest = versions[0]
    assert newest.version == 2
    assert "holdout kappa" in newest.note
    assert "Not approved" in newest.note


def test_nothing_of_the_holdout_reaches_a_candidate_or_the_guidelines_writer(
    engine, fake_judge, biased
):
    version_id, ids = biased
    plan, _, report = _improve(engine, version_id)
    held = {ids.index(g.example_id) for g in plan.split.holdout}
    tokens = [tok for i in held for tok in (f"ref-{i}", f"ok-{i}", f"bad-{i}")]
    notes = [f"(n{i})" for i in held]
    for request in fake_judge.chat_requests:
        text = "\n".join(m["content"] for m in request.json["messages"])
        shown, _, _ = text.rpartition("Grade this answer: ")
        if "Examples where the judge and a person disagreed" in text:
            shown = text  # the writer's request shows no example to grade
        assert not _found(tokens, shown)
        assert not [n for n in notes if n in text]
    saved = report.chosen.spec.model_dump_json()
    assert not _found(tokens, saved)
    assert not [n for n in notes if n in saved]
    assert GUIDELINES_HEADING in saved or "worked_examples" in saved


def _found(tokens: list[str], text: str) -> list[str]:
    """The tokens in ``text`` as whole words (ref-2 is not in ref-24)."""
    return [t for t in tokens if re.search(rf"{re.escape(t)}\b", text)]


def test_the_split_is_stratified_and_the_same_for_the_same_grades(engine, biased):
    version_id, _ = biased
    first = plan_align(engine, scorer_version_id=version_id)
    again = plan_align(engine, scorer_version_id=version_id)
    assert first.split == again.split
    held = [g.human for g in first.split.holdout]
    assert (held.count(1.0), held.count(0.0)) == (8, 4)  # 24 good, 12 bad: a third of each


def test_a_version_with_too_few_grades_or_disagreements_says_what_is_missing(engine, judge_key):
    from tests.trust.graded import graded

    few = graded(engine, [(float(i % 2), float(i % 2)) for i in range(19)], name="few")
    with pytest.raises(NotReadyError, match=r"grade 1 more example and find 5 more"):
        plan_align(engine, scorer_version_id=few.version_id)
    agreeing = [(float(i % 2), float(i % 2)) for i in range(26)]
    agreeing[:4] = [(1.0, 0.0)] * 4
    close = graded(engine, agreeing, name="close")
    with pytest.raises(NotReadyError, match=r"find 1 more where the judge and the person"):
        plan_align(engine, scorer_version_id=close.version_id)


def test_no_better_candidate_saves_nothing(engine, fake_judge, biased):
    version_id, _ = biased
    fake_judge.reset()
    fake_judge.reply_by(lambda text: {"verdict": "bad"}, whole=True)  # no fix helps this one
    plan = plan_align(engine, scorer_version_id=version_id)
    report = save_best(
        engine,
        asyncio.run(try_candidates(engine, plan, candidate_specs(engine, plan, []))),
    )
    assert report.chosen is None
    assert report.saved_version is None
    assert report.as_json()["chosen_version"] is None
