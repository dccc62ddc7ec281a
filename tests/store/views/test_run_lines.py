"""Runs as a list reads them: pages newest first, each run with its scorer's and dataset's
names, its scored count and mean, how much of its cost is known, and what its cap counts for
answers lost in a crash — in three statements."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine

from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    add_scores,
    create_run,
    finish_run,
    list_examples,
    read_session,
    score_stats,
    session_scope,
)
from scorer_runtime.store.reservations import mark_lost, reserve_spend
from scorer_runtime.store.tables import RunRecord
from scorer_runtime.store.views import run_line, runs_page
from tests.store.fixtures import counting_selects, make_dataset, make_version


def _scores(
    run: RunRecord, scored: list[tuple[float | None, float | None]], example_ids: list[int]
) -> list[dict[str, Any]]:
    """Score rows of ``run``: (score, cost) per example; a None score is a step error."""
    return [
        {
            "run_id": run.id,
            "scorer_id": run.scorer_id,
            "scorer_version_id": run.scorer_version_id,
            "dataset_id": run.dataset_id,
            "example_id": example_id,
            "score": score,
            "cost": cost,
            "outcome": "scored" if score is not None else "step_error",
        }
        for (score, cost), example_id in zip(scored, example_ids, strict=True)
    ]


@pytest.fixture
def runs(engine: Engine) -> list[int]:
    """23 runs of one scorer on one dataset (oldest first); the sixth has four results."""
    dataset_id = make_dataset(
        engine, "support", [ExampleData(input=f"q{i}", output=f"a{i}") for i in range(5)]
    )
    _, version_id = make_version(engine, "keywords")
    with session_scope(engine) as session:
        made = [
            create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
            for _ in range(23)
        ]
        examples = [int(e.id or 0) for e in list_examples(session, dataset_id=dataset_id)][:4]
        results = [(0.2, 0.01), (0.9, None), (None, 0.0), (1.0, 0.02)]
        add_scores(session, rows=_scores(made[5], results, examples))
        finish_run(session, run_id=int(made[5].id or 0), status="done")
        return [int(run.id or 0) for run in made]


def test_runs_come_a_page_at_a_time_newest_first(engine, runs):
    seen: list[int] = []
    before = None
    with read_session(engine) as session:
        while True:
            with counting_selects(engine) as selects:
                page = runs_page(session, before_id=before, limit=10)
            assert len(selects) == 3  # the runs with their names, their tallies, reservations
            assert 0 < len(page.lines) <= 10
            seen += [line.run_id for line in page.lines]
            if page.older_than is None:
                break
            before = page.older_than
    assert seen == sorted(runs, reverse=True)


def test_a_run_line_has_its_names_mean_and_known_cost(engine, runs):
    with read_session(engine) as session:
        stats = score_stats(session, filter=ScoreFilter(run_id=runs[5]))
        line = run_line(session, run_id=runs[5])
        untouched = run_line(session, run_id=runs[0])
        assert run_line(session, run_id=max(runs) + 1) is None
    assert line is not None
    assert untouched is not None
    assert line.scored == stats.count == 3
    assert line.mean == pytest.approx(stats.mean)
    assert (line.done, line.failed, line.total, line.remaining) == (4, 1, 5, 1)
    assert (line.priced, line.unpriced) == (2, 1)  # a zero cost is neither
    assert (line.scorer, line.version, line.dataset, line.status) == (
        "keywords",
        1,
        "support",
        "done",
    )
    assert (untouched.scored, untouched.mean, untouched.priced, untouched.unpriced) == (
        0,
        None,
        0,
        0,
    )
    assert (untouched.status, untouched.remaining) == ("queued", 5)


def test_a_run_line_counts_what_its_cap_set_aside_and_never_got_back(engine, runs):
    with session_scope(engine) as session:
        for example_id, amount in ((1, 0.25), (2, 0.5)):
            reserve_spend(
                session, run_id=runs[3], runner_token="killed", example_id=example_id, amount=amount
            )
        mark_lost(session, run_id=runs[3])
    with read_session(engine) as session:
        line = run_line(session, run_id=runs[3])
        page = runs_page(session, limit=50)
    assert line is not None
    assert (line.set_aside, line.set_aside_cost) == (2, pytest.approx(0.75))
    assert line.spent == pytest.approx(line.cost + 0.75)  # what counts against its cap
    on_page = {one.run_id: (one.set_aside, one.set_aside_cost) for one in page.lines}
    assert on_page[runs[3]] == (2, pytest.approx(0.75))
    assert on_page[runs[4]] == (0, 0.0)


def test_an_empty_page(engine, runs):
    with read_session(engine) as session:
        page = runs_page(session, before_id=min(runs), limit=10)
    assert (page.lines, page.older_than) == ([], None)
