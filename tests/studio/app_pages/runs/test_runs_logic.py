"""The Runs page's Streamlit-free logic: the plan before a run, where a run is, the paged list,
a run the runner cannot start, and numbers in words — on real SQLite files."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from scorer_runtime.batch import QueueRunner
from scorer_runtime.store import (
    claim_queued,
    count_examples,
    create_run,
    get_dataset,
    get_scorer,
    latest_version,
    read_session,
    save_judge_profile,
    session_scope,
    utc_now,
)
from scorer_runtime.store.runs import STALE_AFTER
from scorer_runtime.store.views import RunLine, run_line
from studio.app_pages.runs.logic import (
    PHASE_LABELS,
    RESUMABLE_PHASES,
    estimate_text,
    format_when,
    key_checks,
    plan_problems,
    progress_words,
    read_run_plan,
    run_mark,
    run_phase,
    share,
)

from .test_runs_helpers import (
    KEY_ENV,
    judge_spec,
    make_dataset,
    save_spec,
)

ROOT = Path(__file__).resolve().parents[4]


def _version_and_dataset(engine, scorer: str, dataset: str) -> tuple[int, int]:
    with read_session(engine) as session:
        version = latest_version(session, scorer_id=get_scorer(session, name=scorer).id)
        return version.id, get_dataset(session, name=dataset).id


def _plan(engine, scorer: str, dataset: str):
    version_id, dataset_id = _version_and_dataset(engine, scorer, dataset)
    with read_session(engine) as session:
        return read_run_plan(session, version_id=version_id, dataset_id=dataset_id)


def _dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


# -- the plan ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scorer", "dataset"),
    [
        ("tone-politeness", "customer_support"),
        ("faithfulness", "rag_answers"),
        ("keyword-coverage", "customer_support"),
    ],
)
def test_the_plan_counts_the_steps_that_ask_the_judge(demo_db, scorer, dataset):
    spec = json.loads((ROOT / f"data/scorers/{scorer}.json").read_text())
    asks = tuple(step["step"] for step in spec["steps"] if "template" in step)
    plan = _plan(demo_db, scorer, dataset)
    with read_session(demo_db) as session:
        examples = count_examples(session, dataset_id=plan.dataset_id)
    assert plan.examples == examples
    assert plan.prompt_steps == asks
    assert plan.judge_calls == examples * len(asks)
    assert plan.key_envs == (("OPENAI_API_KEY",) if asks else ())
    assert (plan.scorer, plan.version, plan.dataset) == (scorer, 1, dataset)


def test_the_estimate_in_words(demo_db):
    plan = _plan(demo_db, "faithfulness", "rag_answers")
    text = estimate_text(plan)
    assert f"**{plan.judge_calls:,} times**" in text
    assert f"{plan.examples} examples in the dataset × {len(plan.prompt_steps)} questions" in text
    assert "re-asked or retried" in text
    assert "**3 times**: 1 example left to score × 3 questions" in estimate_text(plan, remaining=1)
    free = _plan(demo_db, "keyword-coverage", "customer_support")
    assert "no judge calls and costs nothing" in estimate_text(free)


def test_a_judge_from_a_saved_profile_brings_its_key_variable(studio_db, fake_judge):
    with session_scope(studio_db) as session:
        save_judge_profile(
            session,
            name="house-judge",
            model="openai/fake-judge",
            api_base=fake_judge.base_url,
            api_key_env="HOUSE_JUDGE_KEY",
            settings={"instructions": "You grade answers."},
        )
    spec = judge_spec(fake_judge.base_url)
    spec["judge"] = "house-judge"
    _, version_id = save_spec(studio_db, spec)
    dataset_id = make_dataset(studio_db, "two", ["a", "b"])
    with read_session(studio_db) as session:
        plan = read_run_plan(session, version_id=version_id, dataset_id=dataset_id)
    assert plan.key_envs == ("HOUSE_JUDGE_KEY",)
    assert plan.judge_calls == 2
    assert key_checks(plan, {"HOUSE_JUDGE_KEY": "  "})[0].is_set is False
    assert key_checks(plan, {"HOUSE_JUDGE_KEY": "sk-x"})[0].is_set is True


def test_problems_say_what_is_wrong_and_what_to_do(demo_db, fake_judge):
    plan = _plan(demo_db, "tone-politeness", "customer_support")
    missing = plan_problems(plan, {})
    assert [p.title for p in missing] == ["The judge's key is not set"]
    assert "`OPENAI_API_KEY`" in missing[0].detail
    # A person can act on it from the studio: paste the key or use a saved judge, no restart.
    assert "use one of your saved judges" in missing[0].what_to_do
    assert "restart the studio" not in missing[0].what_to_do
    assert missing[0].go_to == "judges"
    assert plan_problems(plan, {"OPENAI_API_KEY": "sk-value"}) == []
    for problem in missing:
        assert "sk-value" not in problem.detail + problem.what_to_do

    empty = replace(plan, examples=0)
    titles = [p.title for p in plan_problems(empty, {"OPENAI_API_KEY": "x"})]
    assert titles == ["The dataset has no examples"]
    assert plan_problems(empty, {"OPENAI_API_KEY": "x"})[0].go_to == "examples"

    broken = {
        "id": "broken",
        "name": "Broken",
        "description": "Two problems at once.",
        "steps": [
            {"step": "preprocess", "formula": "unknown_fn(1)"},
            {"step": "generate_score", "formula": "missing_fn(2)"},
        ],
    }
    _, version_id = save_spec(demo_db, broken)
    with read_session(demo_db) as session:
        bad = read_run_plan(session, version_id=version_id, dataset_id=plan.dataset_id)
    assert len(bad.spec_problems) == 2  # every problem at once
    (problem,) = plan_problems(bad, {})
    assert problem.title == "This scorer version cannot run"
    assert "steps[0].formula" in problem.detail
    assert "steps[1].formula" in problem.detail
    assert problem.go_to == "builder"


# -- where a run is ------------------------------------------------------------------------------


def _line(**changes) -> RunLine:
    now = utc_now()
    base = RunLine(
        run_id=7,
        scorer_id=1,
        scorer="s",
        version_id=1,
        version=1,
        dataset_id=1,
        dataset="d",
        status="running",
        cancel_requested=False,
        concurrency=4,
        total=10,
        done=3,
        failed=0,
        cost=0.0,
        created_at=now,
        started_at=now,
        heartbeat_at=now,
        runner=f"{socket.gethostname()}:{os.getpid()}",
    )
    return replace(base, **changes)


def test_a_running_run_is_running_stopping_or_stalled():
    for alive in (True, False):
        assert run_phase(_line(), runner_alive=alive) == "running"
        assert run_phase(_line(cancel_requested=True), runner_alive=alive) == "stopping"
    old = utc_now() - STALE_AFTER - timedelta(seconds=1)
    assert run_phase(_line(heartbeat_at=old), runner_alive=True) == "stalled"
    dead = f"{socket.gethostname()}:{_dead_pid()}"
    assert run_phase(_line(runner=dead), runner_alive=True) == "stalled"


def test_a_queued_run_waits_for_a_runner_when_none_is_alive():
    now = utc_now()
    queued = _line(status="queued", started_at=None, heartbeat_at=None, runner=None)
    assert run_phase(queued, runner_alive=True) == "queued"
    assert run_phase(queued, runner_alive=False) == "waiting"
    for status in ("stopped", "cancelled", "failed", "done"):
        ended = _line(status=status, finished_at=now)
        assert run_phase(ended, runner_alive=False) == status


def test_a_run_its_cap_stopped_is_stopped_also_when_stored_as_cancelled():
    # Runs stored before the status "stopped" existed were cancelled with the budget's words.
    now, said = utc_now(), "stopped: budget reached: $0.10 spent of the $0.10 cap."
    old = _line(status="cancelled", finished_at=now, error=said)
    assert run_phase(old, runner_alive=True) == "stopped"
    assert PHASE_LABELS["stopped"] == "Stopped: budget reached"
    assert "stopped" in RESUMABLE_PHASES
    cancelled = _line(status="cancelled", finished_at=now, error=None)
    assert run_phase(cancelled, runner_alive=True) == "cancelled"


# -- a run the runner cannot start -----------------------------------------------------------------


def test_a_run_the_runner_cannot_start_fails_saying_why(studio_db, fake_judge, monkeypatch):
    # Queued while the key was set (the studio checks it), claimed by a runner without it.
    monkeypatch.delenv(KEY_ENV, raising=False)
    _, version_id = save_spec(studio_db, judge_spec(fake_judge.base_url))
    dataset_id = make_dataset(studio_db, "one", ["hello"])
    with session_scope(studio_db) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
    runner = QueueRunner(studio_db, say=False)
    with session_scope(studio_db) as session:
        assert claim_queued(session, runner=runner.name) == run_id
    assert runner._prepare(run_id) is None
    with read_session(studio_db) as session:
        line = run_line(session, run_id=run_id)
    assert run_phase(line, runner_alive=True) == "failed"
    assert KEY_ENV in (line.error or "")
    assert "the runner could not start it" in (line.error or "")
    assert fake_judge.request_count == 0


# -- progress in words ----------------------------------------------------------------------------


def test_progress_in_words():
    assert format_when(None) == "—"
    assert format_when(utc_now().replace(2026, 11, 30, 14, 3)) == "30 Nov 2026, 14:03 UTC"
    assert progress_words(12, 24, 0) == "12 of 24 examples have a result"
    assert progress_words(1, 1, 1) == "1 of 1 example has a result (1 failed)"
    assert share(3, 4) == 0.75
    assert share(0, 0) == 1.0
    assert share(5, 4) == 1.0


def test_a_finished_run_with_failures_has_no_success_mark():
    now = utc_now()
    clean = run_mark(_line(status="done", done=10, finished_at=now), "done")
    assert (clean.label, clean.color, clean.success) == ("Finished", "green", True)
    one = run_mark(_line(status="done", done=10, failed=1, finished_at=now), "done")
    assert (one.label, one.color, one.success) == ("Finished, 1 failed", "orange", False)
    failed = run_mark(_line(status="failed", finished_at=now), "failed")
    assert (failed.color, failed.success) == ("red", False)


def test_a_running_run_held_by_a_limit_says_so_with_its_time_left():
    from studio.app_pages.runs.logic import run_pace_words

    pace = {"examples_per_s": 30.0, "held_by": "limit", "requests_per_s": 10.0}
    assert run_pace_words(_line(pace=pace, total=1003, done=3)) == (
        "At the limit of 600 requests a minute: 10 a second. About 1 min 40 s left."
    )
    assert run_pace_words(_line(pace=None)) is None
    assert run_pace_words(_line(pace=pace, status="done")) is None
