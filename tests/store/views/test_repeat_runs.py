"""A stability check's repeat runs belong to the check: the lists of runs people started
(Runs, Home, the Results and Compare pickers) and the Results page's scores leave them out,
while the store still gives them to whoever asks for every run."""

from __future__ import annotations

import pytest
from sqlalchemy import func
from sqlalchemy import select as sa_select

from scorer_runtime.store import (
    ScoreFilter,
    iter_score_rows,
    list_runs,
    read_session,
    score_stats,
)
from scorer_runtime.store.tables import ScoreRecord
from scorer_runtime.store.views import read_overview, runs_page
from scorer_runtime.store.views.compare import RunPair, default_pair, latest_run
from tests.store.history import History, add_stability_repeats, seed_history


@pytest.fixture
def history(engine) -> History:
    return seed_history(engine)


@pytest.fixture
def repeats(engine, history) -> list[int]:
    return add_stability_repeats(engine, history, repeats=2, sample=10)


def test_the_results_scores_leave_the_repeats_out(engine, history, repeats):
    own = ScoreFilter(repeats=False)
    with read_session(engine) as session:
        everything = score_stats(session).total
        shown = score_stats(session, filter=own).total
        of_tone_v2 = score_stats(
            session, filter=ScoreFilter(scorer_version_id=history.tone_v2, repeats=False)
        ).total
        listed = {row.run_id for row in iter_score_rows(session, filter=own)}
    assert everything == len(history.rows) + 2 * 10  # the store keeps every score
    assert shown == len(history.rows)
    assert of_tone_v2 == len(history.of_run(history.run2))
    assert listed == {history.run1, history.run2, history.run3}


def test_run_lists_and_pickers_leave_the_repeats_out(engine, history, repeats):
    people = [history.run3, history.run2, history.run1]
    with read_session(engine) as session:
        assert [r.id for r in list_runs(session, repeats=False)] == people
        assert [r.id for r in list_runs(session)] == [*reversed(repeats), *people]
        assert [line.run_id for line in runs_page(session).lines] == people
        overview = read_overview(session)
    assert overview.runs == 3
    assert [line.run_id for line in overview.latest_runs] == people


def test_compare_never_picks_a_repeat_as_a_versions_run(engine, history, repeats):
    with read_session(engine) as session:
        # The repeats are the newest finished runs of tone v2 on "support": still, the run
        # compared is the one that scored the whole dataset.
        found = latest_run(session, version_id=history.tone_v2, dataset_id=history.support)
        assert found is not None
        assert found.id == history.run2
        assert default_pair(session) == RunPair(history.run1, history.run2)


def test_leaving_repeats_out_still_reads_a_scorers_figures_from_its_covering_index(
    engine, history, repeats
):
    if engine.dialect.name != "sqlite":
        pytest.skip("the query plan checked is SQLite's")
    figures = sa_select(func.count(), func.avg(ScoreRecord.score), func.sum(ScoreRecord.cost))
    for flt, index in (
        (ScoreFilter(scorer_id=history.tone, repeats=False), "ix_scores_scorer_created_cover"),
        (
            ScoreFilter(scorer_version_id=history.tone_v2, repeats=False),
            "ix_scores_version_created_cover",
        ),
    ):
        query = figures.where(*flt.clauses())
        sql = str(query.compile(engine, compile_kwargs={"literal_binds": True}))
        with engine.connect() as connection:
            found = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}")
            plan = " ".join(str(row[-1]) for row in found)
        assert f"USING COVERING INDEX {index}" in plan, plan
