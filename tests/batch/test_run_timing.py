"""A run started as the studio starts it (a new ``scorer-studio run`` process) records honest
times: the model client's start-up belongs to the run starting, not to any example's time
nor to any judge call's."""

from __future__ import annotations

import os
import subprocess
import time

from scorer_runtime.batch.local_runner import cli_program
from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    create_run,
    get_run,
    get_score,
    list_scores,
    read_session,
    session_scope,
)
from tests.store.fixtures import SCORE_ONE, judge_step, make_dataset, make_version

LATENCY_S = 0.3
KEY_ENV = "SCORER_STUDIO_TEST_TIMING_KEY"


def _judge(base_url: str) -> dict[str, object]:
    return {
        "model": "openai/fake-judge",
        "instructions": "You grade answers.",
        "api_base": base_url,
        "api_key_env": KEY_ENV,
        "json_prompt_injection": "system",
    }


def test_a_fresh_runner_keeps_its_start_up_out_of_examples_and_judge_calls(
    engine, db_url, fake_judge
):
    fake_judge.reply({"ok": True}, latency_s=LATENCY_S)
    judge = _judge(fake_judge.base_url)
    _, version_id = make_version(engine, "polite", judge=judge, steps=[judge_step(), SCORE_ONE])
    dataset_id = make_dataset(engine, "three", [ExampleData(output=f"a{i}") for i in range(3)])
    with session_scope(engine) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
    assert run_id is not None
    env = {
        **os.environ,
        KEY_ENV: "sk-test",
        "SCORER_STUDIO_DATABASE_URL": db_url,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_OFFLINE_MODE": "true",
    }
    command = [*cli_program(), "run", "--resume", str(run_id), "--processes", "1"]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, "--", "polite", "three"],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    wall_ms = (time.perf_counter() - started) * 1000
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    with read_session(engine) as session:
        listed = list_scores(session, filter=ScoreFilter(run_id=run_id)).rows
        rows = [get_score(session, score_id=row.id) for row in listed]
        run = get_run(session, run_id=run_id)
    assert len(rows) == 3
    assert run.started_at is not None
    assert run.finished_at is not None
    calls = [c["duration_ms"] for r in rows for c in (r.judge or {})["analyze"]["calls"]]
    assert len(calls) == 3
    assert min(calls) >= LATENCY_S * 1000  # the server slept that long before answering
    # The process paid seconds of start-up (the model client's import); no example's time,
    # no judge call and not the run's own running time include it.
    assert max(calls) <= max(r.latency_ms or 0 for r in rows) < wall_ms / 2
    running_ms = (run.finished_at - run.started_at).total_seconds() * 1000
    assert running_ms < wall_ms / 2
