"""The Runs page says how long a run took without the pause of a resumed run: stopped at its
cap after a minute, resumed an hour later and finished in 30 s, it took 1 min 30 s."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from scorer_runtime.store import (
    add_scores,
    claim_queued,
    create_run,
    enqueue_again,
    finish_run,
    list_examples,
    session_scope,
)
from studio import state

from .test_runs_helpers import judge_spec, make_dataset, save_spec

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _scored(ids: tuple[int, int], run_id: int, example) -> dict[str, object]:
    scorer_id, version_id = ids
    return {
        "scorer_id": scorer_id,
        "scorer_version_id": version_id,
        "dataset_id": example.dataset_id,
        "example_id": example.id,
        "run_id": run_id,
        "outcome": "scored",
        "score": 1.0,
    }


def _resumed_run(engine, base_url: str, monkeypatch) -> int:
    """A run stopped at 60 s, queued again an hour later, finished 30 s after its resume."""
    ids = save_spec(engine, judge_spec(base_url))
    version_id = ids[1]
    dataset_id = make_dataset(engine, "few", ["a", "b"])
    now = {"at": T0}
    with monkeypatch.context() as patched:
        for module in ("runs", "queue"):
            patched.setattr(f"scorer_runtime.store.{module}.utc_now", lambda: now["at"])
        with session_scope(engine) as session:
            run_id = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id).id
            claim_queued(session, runner="host:1")
            examples = list_examples(session, dataset_id=dataset_id)
            add_scores(session, rows=[_scored(ids, run_id, e) for e in examples])
            now["at"] = T0 + timedelta(seconds=60)
            finish_run(session, run_id=run_id, status="stopped")
            now["at"] = T0 + timedelta(hours=1)
            enqueue_again(session, run_id=run_id)
            claim_queued(session, runner="host:1")
            now["at"] += timedelta(seconds=30)
            finish_run(session, run_id=run_id, status="done")
    return run_id


def test_a_resumed_run_took_only_the_time_it_ran(studio_db, open_page, fake_judge, monkeypatch):
    run_id = _resumed_run(studio_db, fake_judge.base_url, monkeypatch)
    at = open_page("runs")
    assert not at.exception, at.exception
    lines = [m.value for m in at.markdown]
    assert "01 Dec 2026, 09:00 · took 1 min 30 s" in lines  # not "took 1 h 1 min"
    at.button(key=state.RUNS_OPEN.child(run_id).name).click().run()
    assert next(m.value for m in at.metric if m.label == "Time") == "1 min 30 s"
