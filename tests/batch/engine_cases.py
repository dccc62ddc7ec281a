"""What the worker-pool tests (test_sharded) and the Ray tests (test_ray_engine) share: the
judge spec both engines score with, a stored version on a dataset, a run's score rows, and
the cancel-then-resume case each engine must pass alike."""

from __future__ import annotations

from typing import Any

from scorer_runtime.batch import BatchRunner
from scorer_runtime.saved_scorers import ScorerSource, scorer_source
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    Engine,
    ExampleData,
    ScoreFilter,
    ScoreRow,
    create_run,
    list_scores,
    read_session,
    request_cancel,
    save_scorer_version,
    session_scope,
)
from tests.fakes.openai_server import FakeOpenAIServer
from tests.store.fixtures import make_dataset

KEY_ENV = "SCORER_TEST_SHARD_KEY"
"""The key variable the judge spec names (set for the workers and the Ray actors)."""

FORMULA_SPEC = {
    "id": "length",
    "description": "longer is better",
    "steps": [{"step": "generate_score", "formula": "min(len(output) / 10, 1)"}],
}


def judge_spec(server: FakeOpenAIServer) -> dict[str, Any]:
    """A scorer whose judge's number is the score, asking ``server``."""
    return {
        "id": "rate",
        "description": "the judge's number is the score",
        "judge": {
            "model": "openai/fake-judge",
            "instructions": "You grade answers.",
            "api_base": server.base_url,
            "api_key_env": KEY_ENV,
            "json_prompt_injection": "system",
            "timeout_s": 10,
        },
        "steps": [
            {
                "step": "generate_score",
                "description": "Rate it",
                "template": "Rate this answer: {{ output }}",
                "output_schema": {
                    "type": "object",
                    "properties": {"score": {"type": "number"}},
                    "required": ["score"],
                },
                "calculate_score": {"field": "score"},
            }
        ],
    }


def stored_version(
    engine: Engine, spec: dict[str, Any], outputs: list[str]
) -> tuple[int, int, ScorerSource]:
    """``spec`` saved as a version, a dataset of ``outputs``, and the version's source."""
    dataset_id = make_dataset(engine, "answers", [ExampleData(output=o) for o in outputs])
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(spec))
        source = scorer_source(session, version)
    assert version.id is not None
    return version.id, dataset_id, source


def score_rows(engine: Engine, run_id: int) -> list[ScoreRow]:
    """Every stored score of the run, page by page."""
    with read_session(engine) as session:
        rows: list[ScoreRow] = []
        cursor = None
        while True:
            page = list_scores(session, filter=ScoreFilter(run_id=run_id), after=cursor, limit=500)
            rows += page.rows
            if (cursor := page.next_cursor) is None:
                return rows


async def cancel_then_resume(engine: Engine, fake_judge: FakeOpenAIServer, pool: Any) -> None:
    """A run cancelled by another process after 10 answers keeps those 10; its resume scores
    only the 70 left, and no call of the cancelled run comes back late."""
    fake_judge.reply({"score": 0.5})
    fake_judge.hold(after=10)  # 10 answers come back, then every judge call waits
    outputs = [f"answer {i}" for i in range(80)]
    version_id, dataset_id, source = stored_version(engine, judge_spec(fake_judge), outputs)
    with session_scope(engine) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id

    def progress(p: Any) -> None:
        if p.done >= 10:  # another "process" asks to stop
            with session_scope(engine) as session:
                request_cancel(session, run_id=run_id)

    first = await BatchRunner(
        engine,
        source.build(),
        run_id=run_id,
        concurrency=4,
        progress=progress,
        flush_interval_s=0.05,
        source=source,
        pool=pool,
    ).run()
    assert first.status == "cancelled"
    assert first.done == 10  # nothing held was answered
    assert len(score_rows(engine, run_id)) == first.done
    requests_at_cancel = fake_judge.request_count
    fake_judge.release()

    second = await BatchRunner(
        engine, source.build(), run_id=run_id, source=source, pool=pool
    ).run()
    rows = score_rows(engine, run_id)
    assert (second.status, second.done) == ("done", 80)
    assert len(rows) == len({r.example_id for r in rows}) == 80
    # The resume asks once per example left; no call of the cancelled run came late.
    assert fake_judge.request_count == requests_at_cancel + 70
