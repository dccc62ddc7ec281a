"""Crash safety: kill a CLI batch run with SIGKILL at several points, resume, lose nothing.

The run is a real ``scorer-studio run`` child process scoring through litellm against the
fake judge server (with latency, so the run takes seconds); the test watches the database
and kills the process mid-run, twice, then resumes to the end.
"""

from __future__ import annotations

import signal
import time

import pytest

from scorer_runtime.store import (
    ScoreFilter,
    get_run,
    list_scores,
    make_engine,
    read_session,
)
from tests.cli.helpers import cli, cli_process, verdict_spec, write_examples, write_spec

EXAMPLES = 60


def _rows(engine, run_id=1):
    with read_session(engine) as session:
        rows, cursor = [], None
        while True:
            page = list_scores(session, filter=ScoreFilter(run_id=run_id), after=cursor, limit=500)
            rows += page.rows
            if page.next_cursor is None:
                return rows
            cursor = page.next_cursor


def _status(engine, run_id=1):
    with read_session(engine) as session:
        try:
            return get_run(session, run_id=run_id).status
        except LookupError:
            return None


def _kill_when(proc, engine, ready, timeout_s=60.0):
    deadline = time.monotonic() + timeout_s
    while not ready():
        assert proc.poll() is None, f"the run ended before the kill: {proc.communicate()}"
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    return {(r.id, r.example_id, r.score, r.created_at) for r in _rows(engine)}


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_killed_runs_resume_and_score_every_example_exactly_once(db_url, tmp_path, fake_judge):
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, verdict_spec())))
    outputs = [f"{'poor' if i % 3 == 0 else 'fine'} answer {i}" for i in range(EXAMPLES)]
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, outputs)), "--name", "big")
    fake_judge.reply({"verdict": "bad"}, when="poor", latency_s=0.1)
    fake_judge.reply({"verdict": "good"}, latency_s=0.1)
    engine = make_engine(db_url)
    args = ["run", "verdict", "big", "--concurrency", "3", "--api-base", fake_judge.base_url]

    # 1. Killed as soon as the run is going, before (or just as) the first results land.
    first = cli_process(db_url, *args)
    kept = _kill_when(first, engine, lambda: _status(engine) == "running")
    # 2. Resumed, then killed mid-run.
    second = cli_process(db_url, *args, "--resume", "1")
    seen = _kill_when(second, engine, lambda: len(_rows(engine)) >= len(kept) + 12)
    assert kept <= seen  # nothing committed before the first kill was lost or rewritten
    # 3. Resumed again, killed again.
    third = cli_process(db_url, *args, "--resume", "1")
    later = _kill_when(third, engine, lambda: len(_rows(engine)) >= len(seen) + 12)
    assert seen <= later
    assert _status(engine) == "running"  # a killed runner never got to close its run
    # 4. Resumed to the end.
    last = cli_process(db_url, *args, "--resume", "1", "--fail-under", "0.5")
    out, err = last.communicate(timeout=120)
    assert last.returncode == 0, err
    assert f"{EXAMPLES} of {EXAMPLES} have a result" in out

    rows = _rows(engine)
    assert later <= {(r.id, r.example_id, r.score, r.created_at) for r in rows}
    assert len(rows) == len({r.example_id for r in rows}) == EXAMPLES
    assert {r.outcome for r in rows} == {"scored"}
    assert sorted(r.score for r in rows) == sorted(
        0.0 if o.startswith("poor") else 1.0 for o in outputs
    )
    assert _status(engine) == "done"
    # Only examples in flight (or in the last unflushed moment) at a kill were asked twice.
    assert EXAMPLES <= fake_judge.request_count <= EXAMPLES + 3 * 2 * 3
    engine.dispose()
