"""Comparing two runs in SQL: per-example deltas in order, summary deltas, what to compare."""

from __future__ import annotations

import statistics
from collections import Counter

import pytest

from scorer_runtime.store import (
    add_scores,
    create_run,
    list_examples,
    mark_running,
    read_session,
    session_scope,
)
from scorer_runtime.store.views.compare import (
    CompareRow,
    RunPair,
    compare_rows,
    compare_summary,
    count_rows,
    default_pair,
    example_inputs,
    example_numbers,
    iter_comparison,
    latest_run,
    run_facts,
)
from tests.store.history import History, seed_history


@pytest.fixture
def history(engine) -> History:
    return seed_history(engine)


def _verdict(row, threshold):
    if row is None:
        return "missing"
    if row["outcome"] != "scored":
        return row["outcome"]
    return "pass" if row["score"] >= threshold else "fail"


def _expected(before_rows, after_rows, threshold):
    """The comparison computed in Python from the rows written: (example, va, vb, delta)."""
    before = {r["example_id"]: r for r in before_rows}
    after = {r["example_id"]: r for r in after_rows}
    keyed = []
    for example in set(before) | set(after):
        a, b = before.get(example), after.get(example)
        va, vb = _verdict(a, threshold), _verdict(b, threshold)
        sa, sb = (a or {}).get("score"), (b or {}).get("score")
        delta = sb - sa if sa is not None and sb is not None else None
        rank = 2 if va == vb else 0 if {va, vb} <= {"pass", "fail"} else 1
        key = (rank, delta is None, -abs(delta) if delta is not None else 0.0, example)
        keyed.append((key, (example, va, vb, delta)))
    return [value for _, value in sorted(keyed)]


def _plain(rows: list[CompareRow]):
    return [(r.example_id, r.before.verdict, r.after.verdict, r.delta) for r in rows]


def test_rows_come_flips_first_then_other_changes_then_largest_moves(engine, history):
    pair = RunPair(history.run1, history.run2)
    expected = _expected(history.of_run(history.run1), history.of_run(history.run2), 0.5)
    with read_session(engine) as session:
        everything = list(iter_comparison(session, pair=pair, threshold=0.5))
        second_page = compare_rows(session, pair=pair, threshold=0.5, offset=50, limit=50)
    assert _plain(everything) == expected
    assert _plain(second_page) == expected[50:100]
    changes = [r.change for r in everything]
    # The order is by kind of change: every flip, then every other change, then the rest.
    assert changes == sorted(changes, key=["flipped", "changed", "same"].index)
    assert {"flipped", "changed", "same"} <= set(changes)
    flip = everything[0]
    assert {flip.before.verdict, flip.after.verdict} == {"pass", "fail"}
    assert flip.before.score_id is not None
    assert flip.after.score_id is not None


def test_only_changed_and_counts(engine, history):
    pair = RunPair(history.run1, history.run2)
    expected = _expected(history.of_run(history.run1), history.of_run(history.run2), 0.7)
    changed = [e for e in expected if e[1] != e[2]]
    with read_session(engine) as session:
        assert count_rows(session, pair=pair, threshold=0.7) == len(expected) == 120
        assert count_rows(session, pair=pair, threshold=0.7, only_changed=True) == len(changed)
        rows = compare_rows(session, pair=pair, threshold=0.7, limit=500, only_changed=True)
    assert _plain(rows) == changed


def test_summary_counts_transitions_and_deltas(engine, history):
    before_rows, after_rows = history.of_run(history.run1), history.of_run(history.run2)
    expected = _expected(before_rows, after_rows, 0.5)
    with read_session(engine) as session:
        summary = compare_summary(session, pair=RunPair(history.run1, history.run2), threshold=0.5)
    transitions = Counter((va, vb) for _, va, vb, _ in expected)
    assert summary.transitions == dict(transitions)
    assert summary.examples == 120
    assert summary.pass_to_fail == transitions[("pass", "fail")] > 0
    assert summary.fail_to_pass == transitions[("fail", "pass")] > 0
    assert summary.changed == sum(n for (a, b), n in transitions.items() if a != b)
    deltas = [d for *_, d in expected if d is not None]
    assert summary.paired == len(deltas) == 102
    assert summary.paired_mean_delta == pytest.approx(statistics.mean(deltas))
    a_scores = [r["score"] for r in before_rows]
    b_scores = [r["score"] for r in after_rows if r["outcome"] == "scored"]
    assert summary.mean_delta == pytest.approx(
        statistics.mean(b_scores) - statistics.mean(a_scores)
    )
    b_rate = sum(s >= 0.5 for s in b_scores) / len(b_scores)
    a_rate = sum(s >= 0.5 for s in a_scores) / len(a_scores)
    assert summary.pass_rate_delta == pytest.approx(b_rate - a_rate)
    assert summary.after.outcome_counts["provider_error"] == 6


def test_an_example_missing_from_one_run_counts_as_changed(engine, history):
    with session_scope(engine) as session:
        partial = create_run(session, scorer_version_id=history.tone_v2, dataset_id=history.support)
        mark_running(session, run_id=partial.id)
        rows = [
            {**r, "run_id": partial.id, "created_at": None}
            for r in history.of_run(history.run2)[:10]
        ]
        add_scores(session, rows=rows)
        partial_id = partial.id
    with read_session(engine) as session:
        result = list(
            iter_comparison(session, pair=RunPair(history.run1, partial_id), threshold=0.5)
        )
        # A finished run wins over a newer one still running.
        chosen = latest_run(session, version_id=history.tone_v2, dataset_id=history.support)
    missing = [r for r in result if r.after.verdict == "missing"]
    assert len(result) == 120
    assert len(missing) == 110
    assert all(r.change == "changed" and r.after.score_id is None for r in missing)
    assert result.index(missing[0]) > max(i for i, r in enumerate(result) if r.change == "flipped")
    assert chosen is not None
    assert chosen.id == history.run2


def test_default_pair_is_the_newest_run_with_an_earlier_one_on_its_dataset(engine, history):
    with read_session(engine) as session:
        # Run 3 is newest but alone on its dataset; run 2 follows run 1 on "support".
        assert default_pair(session) == RunPair(history.run1, history.run2)
        facts = run_facts(session, run_id=history.run2)
        assert run_facts(session, run_id=9999) is None
        inputs = example_inputs(session, ids=[*history.support_examples[:2], 99_999])
        assert example_inputs(session, ids=[]) == {}
    assert facts is not None
    assert (facts.scorer_version_id, facts.dataset_id) == (history.tone_v2, history.support)
    assert inputs == {
        history.support_examples[0]: "support question 0",
        history.support_examples[1]: "support question 1",
    }


def test_examples_are_numbered_in_their_own_dataset_as_the_examples_page_numbers_them(
    engine, history
):
    with read_session(engine) as session:
        others = list_examples(session, dataset_id=history.other, limit=1000)
        ids = [int(e.id) for e in others]
        picked = [ids[2], ids[0], history.support_examples[4], 99_999]
        numbers = example_numbers(session, ids=picked)
        assert example_numbers(session, ids=[]) == {}
    # "other" was filled after "support": its first example is number 1, not its id.
    assert ids[0] > len(history.support_examples)
    assert numbers == {ids[2]: 3, ids[0]: 1, history.support_examples[4]: 5}


def test_no_default_pair_without_two_runs_on_one_dataset(engine):
    with read_session(engine) as session:
        assert default_pair(session) is None


def test_iter_comparison_stops_at_its_cap(engine, history):
    pair = RunPair(history.run1, history.run2)
    with read_session(engine) as session:
        everything = list(iter_comparison(session, pair=pair, threshold=0.5))
        capped = list(iter_comparison(session, pair=pair, threshold=0.5, cap=7))
    assert len(everything) == 120
    assert capped == everything[:7]
