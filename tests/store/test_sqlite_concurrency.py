"""Two processes writing and one reading the same SQLite file: no "database is locked"."""

from __future__ import annotations

import subprocess
import sys

from scorer_runtime.store import ScoreFilter, make_engine, read_session, score_stats
from tests.store.fixtures import make_version

WRITER = """
import sys
from scorer_runtime.spec import ScorerSpec
from scorer_runtime.store import add_scores, make_engine, save_scorer_version, session_scope
url, tag, scorer_id, version_id = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
engine = make_engine(url)
for batch in range(60):
    with session_scope(engine) as session:
        # Read, then write in the same transaction: the case that fails without BEGIN IMMEDIATE.
        spec = {"id": f"w-{tag}", "description": f"batch {batch}", "steps": []}
        save_scorer_version(session, spec=ScorerSpec.model_validate(spec))
        add_scores(session, rows=[
            {"scorer_id": scorer_id, "scorer_version_id": version_id, "outcome": "scored",
             "score": 1.0, "reason": f"{tag}-{batch}-{i}"}
            for i in range(50)
        ])
print("ok")
"""

READER = """
import sys, time
from scorer_runtime.store import (ScoreFilter, list_scores, make_engine, read_session,
    score_stats)
engine = make_engine(sys.argv[1])
deadline = time.monotonic() + 60
seen = 0
while seen < 6000 and time.monotonic() < deadline:
    with read_session(engine) as session:
        seen = score_stats(session).total
        list_scores(session, filter=ScoreFilter(outcomes=("scored",)), limit=50)
print("ok", seen)
"""


def test_two_writers_and_a_reader_share_one_file(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    engine = make_engine(url)
    from scorer_runtime.store import ensure_schema

    ensure_schema(engine)
    scorer_id, version_id = make_version(engine)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, url, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for code, args in (
            (WRITER, ["a", str(scorer_id), str(version_id)]),
            (WRITER, ["b", str(scorer_id), str(version_id)]),
            (READER, []),
        )
    ]
    results = [(p, *p.communicate(timeout=120)) for p in procs]
    for proc, out, err in results:
        assert "locked" not in err
        assert proc.returncode == 0, err
        assert out.startswith("ok")
    assert results[2][1].split() == ["ok", "6000"]
    with read_session(engine) as session:
        assert score_stats(session, filter=ScoreFilter(scorer_id=scorer_id)).count == 6000
    engine.dispose()
