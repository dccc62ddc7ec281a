"""People's labels: the latest per example counts, progress counts, the judge's latest result."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from scorer_runtime.store import (
    ExampleData,
    add_label,
    add_scores,
    agreement_data,
    create_run,
    examples_by_id,
    existing_example_ids,
    graded_count,
    judge_verdicts,
    latest_labels,
    list_labels,
    read_session,
    review_example_ids,
    session_scope,
)
from tests.store.fixtures import make_dataset, make_version


def _examples(engine, size: int = 4) -> tuple[int, list[int]]:
    dataset_id = make_dataset(engine, "faq", [ExampleData(output=f"a{i}") for i in range(size)])
    with read_session(engine) as session:
        return dataset_id, review_example_ids(session, dataset_id=dataset_id)


def test_the_latest_label_of_an_example_counts_and_older_ones_are_kept(engine):
    _, ids = _examples(engine)
    scorer_id, _ = make_version(engine)
    other_scorer, _ = make_version(engine, "other")
    with session_scope(engine) as session:
        add_label(session, example_id=ids[0], scorer_id=scorer_id, value=0.0, labeller="ann")
        add_label(session, example_id=ids[0], scorer_id=scorer_id, value=1.0, labeller="bob")
        add_label(session, example_id=ids[1], scorer_id=scorer_id, value=0.5, labeller="ann")
        add_label(session, example_id=ids[2], scorer_id=other_scorer, value=1.0, labeller="ann")
    with read_session(engine) as session:
        latest = latest_labels(session, scorer_id=scorer_id)
        only_first = latest_labels(session, scorer_id=scorer_id, example_ids=[ids[0], ids[3]])
        history = list_labels(session, scorer_id=scorer_id, example_id=ids[0])
        graded = graded_count(session, scorer_id=scorer_id, example_ids=ids)
    assert {k: (v.value, v.labeller) for k, v in latest.items()} == {
        ids[0]: (1.0, "bob"),
        ids[1]: (0.5, "ann"),
    }
    assert list(only_first) == [ids[0]]
    assert [label.labeller for label in history] == ["bob", "ann"]
    assert graded == 2


def test_the_latest_label_is_the_one_graded_last_whatever_order_it_was_added_in(engine):
    """An imported grade keeps its time: a grade from last week added today is not the latest;
    grades of the same time fall back to the order they were added in."""
    dataset_id, ids = _examples(engine, size=3)
    scorer_id, version_id = make_version(engine)
    week_ago = datetime.now(UTC) - timedelta(days=7)
    paris = timezone(timedelta(hours=2))
    noon = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    with session_scope(engine) as session:
        add_label(session, example_id=ids[0], scorer_id=scorer_id, value=1.0, labeller="new")
        add_label(
            session,
            example_id=ids[0],
            scorer_id=scorer_id,
            value=0.0,
            labeller="old",
            created_at=week_ago,
        )
        # 13:00 in Paris (11:00 UTC) is before noon UTC; a time without a zone is UTC.
        for value, who, when in [
            (1.0, "noon", datetime(2026, 3, 1, 12, 0)),
            (0.0, "paris", datetime(2026, 3, 1, 13, 0, tzinfo=paris)),
            (0.5, "noon again", noon),
        ]:
            add_label(
                session,
                example_id=ids[1],
                scorer_id=scorer_id,
                value=value,
                labeller=who,
                created_at=when,
            )
        add_scores(
            session,
            rows=[
                {
                    "scorer_id": scorer_id,
                    "scorer_version_id": version_id,
                    "dataset_id": dataset_id,
                    "example_id": example_id,
                    "score": 1.0,
                    "outcome": "scored",
                }
                for example_id in ids[:2]
            ],
        )
    with read_session(engine) as session:
        latest = latest_labels(session, scorer_id=scorer_id)
        history = list_labels(session, scorer_id=scorer_id, example_id=ids[1])
        pairs = agreement_data(session, scorer_id=scorer_id, scorer_version_id=version_id).pairs
    assert {k: v.labeller for k, v in latest.items()} == {ids[0]: "new", ids[1]: "noon again"}
    assert [label.labeller for label in history] == ["noon again", "noon", "paris"]
    stored = history[-1].created_at
    assert stored.replace(tzinfo=stored.tzinfo or UTC) == datetime(2026, 3, 1, 11, 0, tzinfo=UTC)
    assert {pair.example_id: pair.human for pair in pairs} == {ids[0]: 1.0, ids[1]: 0.5}


def test_progress_counts_only_the_examples_asked_about(engine):
    _, ids = _examples(engine, size=3)
    scorer_id, _ = make_version(engine)
    with session_scope(engine) as session:
        for example_id in ids:
            add_label(session, example_id=example_id, scorer_id=scorer_id, value=1, labeller="a")
    with read_session(engine) as session:
        assert graded_count(session, scorer_id=scorer_id, example_ids=ids[:2]) == 2
        assert graded_count(session, scorer_id=scorer_id, example_ids=[]) == 0


def test_many_examples_are_read_in_chunks(engine):
    _, ids = _examples(engine, size=1_203)
    scorer_id, _ = make_version(engine)
    with session_scope(engine) as session:
        for example_id in ids[::2]:
            add_label(session, example_id=example_id, scorer_id=scorer_id, value=1, labeller="a")
    with read_session(engine) as session:
        assert graded_count(session, scorer_id=scorer_id, example_ids=ids) == 602
        assert len(latest_labels(session, scorer_id=scorer_id, example_ids=ids)) == 602
        assert existing_example_ids(session, example_ids=[*ids, 10**9]) == set(ids)
        assert set(examples_by_id(session, example_ids=ids[:700])) == set(ids[:700])


def test_a_review_lists_a_datasets_examples_in_dataset_order(engine):
    dataset_id, ids = _examples(engine, size=3)
    make_dataset(engine, "other", [ExampleData(output="x")])
    with read_session(engine) as session:
        found = examples_by_id(session, example_ids=ids)
        assert review_example_ids(session, dataset_id=dataset_id) == sorted(ids)
    assert [found[i].output for i in ids] == ["a0", "a1", "a2"]


def test_the_judges_verdict_is_the_latest_result_of_the_version_or_of_one_run(engine):
    dataset_id, ids = _examples(engine, size=3)
    scorer_id, version_id = make_version(engine)
    base = {"scorer_id": scorer_id, "scorer_version_id": version_id, "dataset_id": dataset_id}
    with session_scope(engine) as session:
        first = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        second = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        add_scores(
            session,
            rows=[
                {
                    **base,
                    "run_id": first.id,
                    "example_id": ids[0],
                    "score": 0.0,
                    "outcome": "scored",
                },
                {
                    **base,
                    "run_id": first.id,
                    "example_id": ids[1],
                    "score": 1.0,
                    "outcome": "scored",
                },
                {
                    **base,
                    "run_id": second.id,
                    "example_id": ids[0],
                    "score": 1.0,
                    "outcome": "scored",
                },
                {
                    **base,
                    "run_id": second.id,
                    "example_id": ids[1],
                    "score": None,
                    "outcome": "step_error",
                    "reason": None,
                },
            ],
        )
    with read_session(engine) as session:
        latest = judge_verdicts(session, example_ids=ids, scorer_version_id=version_id)
        of_first = judge_verdicts(session, example_ids=ids, run_id=first.id)
    assert {k: (v.score, v.outcome) for k, v in latest.items()} == {
        ids[0]: (1.0, "scored"),
        ids[1]: (None, "step_error"),
    }
    assert {k: v.score for k, v in of_first.items()} == {ids[0]: 0.0, ids[1]: 1.0}


def test_a_verdict_needs_a_version_or_a_run_not_both(engine):
    with read_session(engine) as session, pytest.raises(ValueError, match="not both"):
        judge_verdicts(session, example_ids=[1])
