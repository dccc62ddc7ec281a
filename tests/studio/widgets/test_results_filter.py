"""The Results filter as plain values: its problems in words, and remembering it in the session."""

from __future__ import annotations

from datetime import date

from studio.widgets.results_filter import ResultsFilter


def test_a_start_after_the_end_is_explained_in_plain_words():
    problem = ResultsFilter(since=date(2026, 11, 5), until=date(2026, 11, 1)).problem()
    assert problem is not None
    assert "05 Nov 2026" in problem
    assert "after the end date" in problem
    assert ResultsFilter(since=date(2026, 11, 1), until=date(2026, 11, 1)).problem() is None


def test_a_remembered_filter_round_trips_and_junk_is_dropped():
    chosen = ResultsFilter(1, 2, 3, 4, date(2026, 1, 2), date(2026, 1, 3), ("scored",))
    assert ResultsFilter.from_state(chosen.to_state()) == chosen
    junk = {"scorer_id": "x", "run_id": True, "since": "not a date", "outcomes": ["nope"]}
    assert ResultsFilter.from_state(junk) == ResultsFilter()
    assert ResultsFilter.from_state({"run_id": "7"}).run_id == 7
