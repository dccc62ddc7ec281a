"""Comparing two runs, for the page: verdicts and changes in words, previews, the CSV file."""

from __future__ import annotations

import csv
import io

import pytest

from scorer_runtime.store import read_session
from scorer_runtime.store.views.compare import CompareRow, RunPair, SideScore, iter_comparison
from studio.app_pages.compare.logic import (
    COMPARE_CSV_COLUMNS,
    change_words,
    comparison_csv_file,
    verdict_words,
    write_comparison_csv,
)
from studio.app_pages.results.logic import example_previews
from studio.words import OUTCOME_LABELS
from tests.studio.app_pages.results.test_results_seed import History, seed_history


@pytest.fixture
def history(studio_db) -> History:
    return seed_history(studio_db)


def test_words_for_verdicts_and_changes():
    def row(va, vb, change):
        return CompareRow(
            1, SideScore(1, None, None, va), SideScore(2, None, None, vb), None, change
        )

    assert change_words(row("pass", "fail", "flipped"), OUTCOME_LABELS) == "Now fails"
    assert change_words(row("fail", "pass", "flipped"), OUTCOME_LABELS) == "Now passes"
    assert change_words(row("pass", "provider_error", "changed"), OUTCOME_LABELS) == (
        "Pass → Judge unavailable"
    )
    assert change_words(row("missing", "fail", "changed"), OUTCOME_LABELS) == "No result → Fail"
    assert change_words(row("fail", "fail", "same"), OUTCOME_LABELS) == "Same verdict"
    assert verdict_words("not_scorable", OUTCOME_LABELS) == "Not scorable"


def test_previews_are_one_line_of_each_examples_input(studio_db, history):
    with read_session(studio_db) as session:
        previews = example_previews(session, ids=history.support_examples[:2], width=12)
        assert example_previews(session, ids=[]) == {}
    assert previews == {
        history.support_examples[0]: "support que…",
        history.support_examples[1]: "support que…",
    }


def test_csv_of_a_comparison_in_table_order_with_a_cap(studio_db, history):
    pair = RunPair(history.run1, history.run2)
    out = io.StringIO()
    with read_session(studio_db) as session:
        full = write_comparison_csv(session, pair=pair, threshold=0.5, out=out)
        capped = write_comparison_csv(session, pair=pair, threshold=0.5, out=io.StringIO(), cap=7)
        exact = write_comparison_csv(session, pair=pair, threshold=0.5, out=io.StringIO(), cap=120)
        order = list(iter_comparison(session, pair=pair, threshold=0.5))
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert (full.rows, full.truncated) == (120, False)
    assert (capped.rows, capped.truncated) == (7, True)
    assert (exact.rows, exact.truncated) == (120, False)
    assert list(rows[0]) == list(COMPARE_CSV_COLUMNS)
    assert [int(r["example_id"]) for r in rows] == [r.example_id for r in order]
    first = rows[0]
    assert first["change"] == "flipped"
    assert float(first["delta"]) == pytest.approx(order[0].delta)
    download = comparison_csv_file(studio_db, pair=pair, threshold=0.5)
    assert download.startswith(b"\xef\xbb\xbf")
    assert download.decode("utf-8-sig") == out.getvalue()
