"""'Improve this judge' end to end: a fake judge with a planted bias over real HTTP, a real
store (SQLite, and PostgreSQL when configured), the candidates measured on the holdout."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import cohen_kappa_score

from scorer_runtime.batch import BatchProgress
from scorer_runtime.store import get_run, get_version, list_runs, read_session
from scorer_runtime.store.alignments import alignment_runs
from scorer_runtime.trust.align import (
    NotReadyError,
    plan_alignment,
    prepare_candidates,
    run_alignment,
    stop_alignment,
)
from scorer_runtime.trust.policy import version_trust
from tests.trust.align_world import build_world, unique_strings
from tests.trust.conftest import db_url, engine, judge_key

__all__ = ["db_url", "engine", "judge_key"]


def _align(engine, world):
    with read_session(engine) as session:
        plan = plan_alignment(session, scorer_version_id=world.version_id)
    candidates = asyncio.run(prepare_candidates(engine, plan))
    return plan, candidates, asyncio.run(run_alignment(engine, plan, candidates))


def _reference_interval(people: list[str], judge: list[str]) -> tuple[float, float]:
    """Kappa's 95 % interval computed apart: 20,000 Dirichlet draws (Perks' prior, 1/4 a
    cell) of the 2x2 table, another seed, kappa of each draw by its textbook formula."""
    cells = {("pass", "pass"): 0, ("pass", "fail"): 1, ("fail", "pass"): 2, ("fail", "fail"): 3}
    counts = np.zeros(4)
    for pair in zip(people, judge, strict=True):
        counts[cells[pair]] += 1
    draws = np.random.default_rng(12345).dirichlet(counts + 0.25, size=20_000)
    observed = draws[:, 0] + draws[:, 3]
    people_pass, judge_pass = draws[:, 0] + draws[:, 1], draws[:, 0] + draws[:, 2]
    chance = people_pass * judge_pass + (1 - people_pass) * (1 - judge_pass)
    kappas = (observed - chance) / (1 - chance)
    low, high = np.percentile(kappas, [2.5, 97.5])
    return float(low), float(high)


def _verdict(score: float) -> str:
    return "pass" if score >= 0.5 else "fail"


def test_each_candidate_fixes_the_planted_bias_and_the_best_is_saved_with_its_evidence(
    engine, fake_judge, judge_key
):
    world = build_world(engine, fake_judge)
    plan, candidates, report = _align(engine, world)

    assert "Refunds are fine" in candidates.guidelines.text()
    assert [c.kind for c in report.candidates] == ["worked_examples", "guidelines", "both"]
    # Independent reference: the judge's holdout verdicts as the fake decides them.
    holdout = list(plan.split.holdout)
    people = [_verdict(world.grades[e]) for e in holdout]
    before = [
        "fail" if ("refund" in world.outputs[e] or "rude" in world.outputs[e]) else "pass"
        for e in holdout
    ]
    after = ["fail" if "rude" in world.outputs[e] else "pass" for e in holdout]
    now = report.current_holdout.agreement.kappa
    assert now.value == pytest.approx(cohen_kappa_score(people, before))
    assert (now.low, now.high) == pytest.approx(_reference_interval(people, before), abs=0.02)
    fixed = sum(a == p != b for a, b, p in zip(after, before, people, strict=True))
    broken = sum(b == p != a for a, b, p in zip(after, before, people, strict=True))
    assert fixed > 0
    assert broken == 0
    for candidate in report.candidates:  # each fixes the planted bias
        kappa = candidate.holdout.agreement.kappa
        assert candidate.better
        assert kappa.value == pytest.approx(cohen_kappa_score(people, after))
        assert kappa.value > now.value
        assert (kappa.low, kappa.high) == pytest.approx(
            _reference_interval(people, after), abs=0.02
        )
        assert candidate.mcnemar_p == pytest.approx(binomtest(fixed, fixed + broken).pvalue)
    # Ties go to the first kind tried, the worked examples; only it is saved.
    assert [c.version for c in report.candidates] == [2, None, None]
    assert report.chosen_version == 2
    # The new version holds the worked examples (tuning ones only) and its evidence.
    with read_session(engine) as session:
        saved = get_version(session, scorer_id=world.scorer_id)
        runs = list_runs(session, scorer_id=world.scorer_id, repeats=False)
    assert saved.version == 2
    assert "holdout kappa" in saved.note
    assert "McNemar p" in saved.note
    worked = saved.spec.prompt_steps()[0].worked_examples
    assert worked
    assert any(w.note and "refunds are fine" in w.note for w in worked)
    tuning_outputs = {world.outputs[e] for e in plan.split.tuning}
    assert {w.output for w in worked} <= tuning_outputs
    assert any(not w.note or "refunds" not in w.note for w in worked)  # agreements too
    assert [r.scorer_version_id for r in runs] == [world.version_id]  # alignment runs hidden
    with read_session(engine) as session:  # its holdout runs are no evidence of its own
        trust = version_trust(session, scorer_version_id=saved.id)
    assert trust.verdict.badge == "not_enough_evidence"
    assert trust.agreement.n == 0
    data = report.as_json()
    assert data["tuning_n"] + data["holdout_n"] == 30
    assert data["holdout_n"] == 10
    assert data["holdout_example_ids"] == holdout
    assert data["chosen_version"] == 2
    assert data["current"]["kappa"] == report.current_holdout.agreement.kappa.value
    assert {c["kind"] for c in data["candidates"]} >= {"guidelines"}


def test_no_holdout_string_reaches_a_candidate_or_the_optimizer(engine, fake_judge, judge_key):
    world = build_world(engine, fake_judge)
    before = len(fake_judge.chat_requests)
    plan, _candidates, report = _align(engine, world)

    held = unique_strings(world, plan.split.holdout)
    assert held
    assert any(tag.startswith("Note") for tag in held)
    requests = fake_judge.chat_requests[before:]
    optimizer = [r for r in requests if "Disagreements:" in r.all_content]
    assert len(optimizer) == 1
    assert not [tag for tag in held if tag in optimizer[0].all_content]
    for request in requests:
        text = request.all_content
        for tag, example in held.items():
            if tag in text:
                # Only the example being graded, only as the judged answer.
                assert tag.startswith("Out")
                assert world.outputs[example] in request.last_user_content
                system = text.replace(request.last_user_content, "")
                assert tag not in system
    with read_session(engine) as session:
        saved = json.dumps(
            get_version(session, scorer_id=world.scorer_id).spec.model_dump(mode="json")
        )
    assert report.chosen_version is not None
    assert not [tag for tag in held if tag in saved]


def _stubborn(text: str) -> dict[str, str] | str | None:
    """A judge whose bias nothing in its prompt fixes."""
    if "Disagreements:" in text:
        return "- Be fair."
    answer = text.rpartition("Grade this answer:")[2]
    if "Grade this answer:" not in text:
        return None
    return {"verdict": "bad" if "refund" in answer or "rude" in answer else "good"}


def test_when_no_candidate_is_better_nothing_is_saved(engine, fake_judge, judge_key):
    fake_judge.reply_by(_stubborn, whole=True)
    world = build_world(engine, fake_judge)
    _plan, candidates, report = _align(engine, world)

    assert candidates.guidelines.lines == ("Be fair.",)
    assert report.chosen_version is None
    assert all(c.version is None and not c.better for c in report.candidates)
    assert "nothing was saved" in report.words()
    with read_session(engine) as session:
        assert get_version(session, scorer_id=world.scorer_id).version == 1


def test_too_few_grades_say_how_many_more(engine, fake_judge, judge_key):
    world = build_world(engine, fake_judge, count=19)
    with read_session(engine) as session, pytest.raises(NotReadyError) as refused:
        plan_alignment(session, scorer_version_id=world.version_id)
    assert "grade 1 more example on the Review page" in str(refused.value)


def test_edited_guidelines_are_the_ones_tried(engine, fake_judge, judge_key):
    world = build_world(engine, fake_judge)
    with read_session(engine) as session:
        plan = plan_alignment(session, scorer_version_id=world.version_id)
    written = asyncio.run(prepare_candidates(engine, plan))
    edited = written.edited(["Be kind.", "  "])
    guided = next(c for c in edited.items if c.kind == "guidelines")
    assert "- Be kind." in json.dumps(guided.spec)
    assert "Refunds are fine" not in json.dumps(guided.spec)
    report = asyncio.run(run_alignment(engine, plan, edited))
    tried = next(c for c in report.candidates if c.kind == "guidelines")
    assert not tried.better  # the edit dropped the guideline that fixed the bias


def test_a_stopped_alignment_starts_no_more_runs_and_saves_nothing(engine, fake_judge, judge_key):
    world = build_world(engine, fake_judge)
    with read_session(engine) as session:
        plan = plan_alignment(session, scorer_version_id=world.version_id)
    candidates = asyncio.run(prepare_candidates(engine, plan))
    stopped: list[int] = []

    def progress(kind: str, p: BatchProgress) -> None:
        if kind == "worked_examples" and not stopped:  # stop during the first candidate
            with read_session(engine) as session:
                alignment_id = get_run(session, run_id=p.run_id).alignment_id
            stopped.extend(stop_alignment(engine, alignment_id))

    report = asyncio.run(run_alignment(engine, plan, candidates, progress=progress))

    assert stopped
    assert report.cut_short == tuple(stopped)
    assert report.chosen_version is None
    with read_session(engine) as session:
        runs = alignment_runs(session, alignment_id=report.alignment_id)
        assert get_version(session, scorer_id=world.scorer_id).version == 1
    assert [r.candidate for r in runs] == [None, "worked_examples"]  # none started after
    assert runs[-1].status == "cancelled"
