"""Shared pieces of the Runs tests: a runner serving the studio's database (stopped on
teardown), a scorer that asks the fake judge, and waiting on a run in the database."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine

from scorer_runtime.batch import start_attached_runner, stop_started_runners
from scorer_runtime.spec import ScorerSpec
from scorer_runtime.store import (
    DATABASE_URL_ENV,
    add_examples,
    create_dataset,
    get_run,
    read_session,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.store.tables import RunRecord
from tests.batch.runner_fixtures import wait_for_runners

KEY_ENV = "RUNS_TEST_JUDGE_KEY"


@pytest.fixture
def runner(studio_db: Engine) -> Iterator[None]:
    """A runner attached to this process (as the studio starts one) on the studio's database,
    alive before the test goes on; it and any runner the page started stop at the end."""
    url = os.environ[DATABASE_URL_ENV]
    start_attached_runner(url)
    try:
        wait_for_runners(url, 1)
        yield
    finally:
        stop_started_runners()


VERDICT = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["verdict"],
    "additionalProperties": False,
}


def judge_spec(base_url: str, *, name: str = "polite-check") -> dict[str, Any]:
    """A scorer with one question to the judge (at ``base_url``) and a label-to-score step."""
    return {
        "id": name,
        "name": "Polite check",
        "description": "Asks the judge whether the answer is polite.",
        "judge": {
            "model": "openai/fake-judge",
            "api_base": base_url,
            "api_key_env": KEY_ENV,
            "instructions": "You grade politeness.",
            "json_prompt_injection": "system",
            "timeout_s": 20,
        },
        "steps": [
            {
                "step": "analyze",
                "description": "Is it polite?",
                "template": "Is this answer polite? {{ output }}",
                "output_schema": VERDICT,
            },
            {
                "step": "generate_score",
                "use": "label_to_score",
                "with": {
                    "mapping": {"yes": 1.0, "no": 0.0},
                    "field": "results.analyze_step_result.verdict",
                },
            },
        ],
    }


def save_spec(engine: Engine, spec: dict[str, Any]) -> tuple[int, int]:
    """Save ``spec`` as a scorer version: (scorer id, version id).

    Only its shape is checked, so a test can store a version whose meaning no longer checks
    (a formula function since removed): what the Runs page must explain, not crash on.
    """
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=ScorerSpec.model_validate(spec))
        assert version.id is not None
        return version.scorer_id, version.id


def make_dataset(engine: Engine, name: str, outputs: list[str]) -> int:
    """A dataset with one example per output; its id."""
    with session_scope(engine) as session:
        dataset = create_dataset(session, name=name)
        assert dataset.id is not None
        rows = [{"input": f"question {i}", "output": out} for i, out in enumerate(outputs)]
        add_examples(session, dataset_id=dataset.id, examples=rows)
        return dataset.id


def read_run(engine: Engine, run_id: int) -> RunRecord:
    with read_session(engine) as session:
        return get_run(session, run_id=run_id)


def wait_for(engine: Engine, run_id: int, check: Any, *, timeout_s: float = 60) -> RunRecord:
    """Poll the run's row until ``check(run)`` holds (fails the test after ``timeout_s``)."""
    deadline = time.monotonic() + timeout_s
    while True:
        run = read_run(engine, run_id)
        if check(run):
            return run
        if time.monotonic() > deadline:
            pytest.fail(
                f"run {run_id} did not get there in {timeout_s} s: status {run.status}, "
                f"{run.done_count}/{run.total} done"
            )
        time.sleep(0.1)


def finished(run: RunRecord) -> bool:
    return run.status in ("done", "stopped", "failed", "cancelled")
