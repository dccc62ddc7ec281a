"""The Results page's Streamlit-free logic, on a real SQLite file holding 260 results."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from scorer_runtime.store import (
    ScoreFilter,
    add_scores,
    list_scores,
    load_names,
    read_session,
    score_stats,
    session_scope,
)
from studio.app_pages.results.logic import row_label, run_choices, score_range, table_rows
from studio.widgets.csv_export import (
    SCORE_CSV_COLUMNS,
    cap_note,
    safe_cell,
    scores_csv_file,
    write_scores_csv,
)
from studio.widgets.results_filter import ResultsFilter
from studio.words import OUTCOME_LABELS

from .test_results_seed import DAY0, History, seed_history


@pytest.fixture
def history(studio_db) -> History:
    return seed_history(studio_db)


def _scored(rows):
    return [r["score"] for r in rows if r["outcome"] == "scored"]


def test_until_is_an_inclusive_utc_day_and_since_is_inclusive(studio_db, history):
    since, until = (DAY0 + timedelta(days=1)).date(), (DAY0 + timedelta(days=3)).date()
    chosen = ResultsFilter(since=since, until=until)
    expected = [r for r in history.rows if since <= r["created_at"].date() <= until]
    with read_session(studio_db) as session:
        page = list_scores(session, filter=chosen.score_filter(), limit=1000)
    assert len(page.rows) == len(expected) > 0
    assert {r.created_at.date() for r in page.rows} == {r["created_at"].date() for r in expected}


def test_score_range_is_zero_to_one_unless_the_scores_leave_it(studio_db, history):
    with session_scope(studio_db) as session:
        usual = score_stats(session, filter=ScoreFilter())
        add_scores(
            session,
            rows=[
                {
                    "scorer_id": history.tone,
                    "scorer_version_id": history.tone_v1,
                    "outcome": "scored",
                    "score": 4.5,
                }
            ],
        )
        wide = score_stats(session, filter=ScoreFilter())
    assert score_range(usual) == (0.0, 1.0)
    assert score_range(wide) == (0.0, 4.5)


def test_table_rows_name_things_in_words(studio_db, history):
    with read_session(studio_db) as session:
        names = load_names(session)
        page = list_scores(session, filter=ScoreFilter(run_id=history.run2), limit=200)
    rows = table_rows(page.rows, names, OUTCOME_LABELS)
    failed = next(r for r in rows if r["Outcome"] == "Judge unavailable")
    assert failed["Scorer"] == "tone v2"
    assert failed["Dataset"] == "support"
    assert failed["Reason or problem"].startswith("Scorer 'tone' failed in its analyze step")
    assert failed["Score"] == "—"
    assert failed["Cost ($)"] == "0.001000"
    assert next(iter(rows[0])) == "Input"
    first = page.rows[0]
    inputs = {first.example_id: "Where is my order?"}
    with_input = table_rows([first], names, OUTCOME_LABELS, inputs=inputs)
    assert with_input[0]["Input"] == "Where is my order?"
    label = row_label(first, OUTCOME_LABELS, inputs)
    assert label.startswith("“Where is my order?” · ")
    assert label.endswith(f"result {first.id}")


def test_run_choices_follow_the_other_filters(studio_db, history):
    with read_session(studio_db) as session:
        names = load_names(session)
        all_runs = run_choices(session, names)
        tone_v1 = run_choices(session, names, version_id=history.tone_v1)
        other = run_choices(session, names, dataset_id=history.other)
    assert [c.id for c in all_runs] == [history.run3, history.run2, history.run1]
    assert [c.id for c in tone_v1] == [history.run1]
    assert other[0].label.startswith(f"Run {history.run3} · facts v1 on other · ")


def _read_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_csv_holds_the_filtered_rows_newest_first(studio_db, history):
    out = io.StringIO()
    chosen = ScoreFilter(run_id=history.run2)
    with read_session(studio_db) as session:
        result = write_scores_csv(session, filter=chosen, names=load_names(session), out=out)
        expected = list_scores(session, filter=chosen, limit=1000).rows
    rows = _read_csv(out.getvalue())
    assert (result.rows, result.truncated) == (len(expected), False)
    assert list(rows[0]) == list(SCORE_CSV_COLUMNS)
    assert [int(r["result_id"]) for r in rows] == [r.id for r in expected]
    assert {r["scorer"] for r in rows} == {"tone"}
    assert {r["scorer_version"] for r in rows} == {"2"}
    assert sum(r["outcome"] == "provider_error" for r in rows) == 6


def test_csv_stops_at_the_cap_and_says_so(studio_db, history):
    total = len(history.rows)
    with read_session(studio_db) as session:
        names = load_names(session)
        capped = write_scores_csv(
            session, filter=ScoreFilter(), names=names, out=io.StringIO(), cap=25, page_size=7
        )
        exact = write_scores_csv(
            session, filter=ScoreFilter(), names=names, out=io.StringIO(), cap=total
        )
    assert (capped.rows, capped.truncated) == (25, True)
    assert (exact.rows, exact.truncated) == (total, False)
    assert cap_note(total, cap=total) is None
    assert cap_note(total, cap=100) == (
        f"The file holds the newest 100 of {total} results. "
        "Narrow the filters (for example by date) to download the rest."
    )


def test_text_that_a_spreadsheet_would_run_is_defused(studio_db, history):
    assert safe_cell('=HYPERLINK("http://x")') == '\'=HYPERLINK("http://x")'
    assert safe_cell("+1") == "'+1"
    assert safe_cell("@me") == "'@me"
    assert safe_cell("fine") == "fine"
    assert safe_cell(-0.5) == -0.5
    with session_scope(studio_db) as session:
        add_scores(
            session,
            rows=[
                {
                    "scorer_id": history.tone,
                    "scorer_version_id": history.tone_v1,
                    "outcome": "scored",
                    "score": 0.5,
                    "reason": "=1+1 looks fine",
                }
            ],
        )
    raw = scores_csv_file(studio_db, filter=ScoreFilter(), names=_names(studio_db))
    assert raw.startswith(b"\xef\xbb\xbf")  # the BOM spreadsheets use to read UTF-8
    rows = _read_csv(raw.decode("utf-8-sig"))
    assert len(rows) == len(history.rows) + 1
    assert rows[0]["reason"] == "'=1+1 looks fine"


def _names(engine):
    with read_session(engine) as session:
        return load_names(session)
