"""The live run panel and the judge answer cache: while a run goes on, it says how many judge
answers came from the cache and what they saved, and marks the newest results the cache gave."""

from __future__ import annotations

import asyncio
import re
import time

from scorer_runtime.batch import BatchRunner
from scorer_runtime.runs import run_batch
from scorer_runtime.store import create_run, request_cancel, session_scope

from .test_runs_cost import PRICED, _captions, _runs_page, _scorer, _spec, _stored
from .test_runs_helpers import KEY_ENV, make_dataset, save_spec

SEEN = [f"Seen answer {i}." for i in range(4)]
NEW = [f"New answer {i}." for i in range(8)]


async def test_the_live_panel_counts_cached_answers_and_marks_cached_results(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "yes"})
    _, version_id = save_spec(studio_db, _spec(fake_judge.base_url, PRICED))
    scorer = _scorer(studio_db, version_id, None)
    first = make_dataset(studio_db, "seen", SEEN)
    await run_batch(studio_db, scorer, scorer_version_id=version_id, dataset_id=first)
    # The first new answer comes at once, the others slowly: the newest ten results then hold
    # the four cached ones and the first asked one however long the page takes to draw.
    fake_judge.reset()
    fake_judge.reply({"verdict": "yes"}, times=1)
    fake_judge.reply({"verdict": "yes"}, latency_s=5)
    both = make_dataset(studio_db, "seen and new", SEEN + NEW)
    with session_scope(studio_db) as session:
        run_id = create_run(session, scorer_version_id=version_id, dataset_id=both).id
    task = asyncio.create_task(
        BatchRunner(studio_db, scorer, run_id=run_id, concurrency=1, flush_interval_s=0.05).run()
    )
    try:
        deadline = time.monotonic() + 30
        while _stored(studio_db, run_id) < len(SEEN) + 1:
            assert time.monotonic() < deadline, "the run did not store the cached results"
            await asyncio.sleep(0.05)
        at = _runs_page(open_page, run_id)  # the run goes on
        assert at.get("progress"), "the live view shows a progress bar"
        said = re.search(
            r"(\d+) of (\d+) judge answers from the cache, \$[\d.]+ saved\.", _captions(at)
        )
        assert said, _captions(at)
        assert int(said.group(1)) == len(SEEN)
        assert int(said.group(2)) > len(SEEN)
        newest = at.dataframe[0].value
        marks = list(newest["Judge answers"])
        assert marks.count("from cache") == len(SEEN)
        assert "asked the judge" in marks
    finally:
        with session_scope(studio_db) as session:
            request_cancel(session, run_id=run_id)
        await task
