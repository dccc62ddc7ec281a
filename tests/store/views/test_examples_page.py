"""The Examples page's reads: dataset rows with their example counts, what belongs to a
dataset, pages by number, scores per example — all read in the database."""

from __future__ import annotations

from sqlalchemy import Engine

from scorer_runtime.store import (
    ExampleData,
    add_scores,
    archive_dataset,
    create_run,
    list_examples,
    read_session,
    session_scope,
)
from scorer_runtime.store.views import (
    dataset_rows,
    dataset_usage,
    example_score_counts,
    numbered_example_page,
)
from tests.store.fixtures import counting_selects, make_dataset, make_version


def _examples(count: int) -> list[ExampleData]:
    return [ExampleData(input=f"q{i}", output=f"a{i}") for i in range(count)]


def _example_ids(engine: Engine, dataset_id: int) -> list[int]:
    with read_session(engine) as session:
        return [int(e.id or 0) for e in list_examples(session, dataset_id=dataset_id, limit=1000)]


def _score(engine: Engine, dataset_id: int, example_ids: list[int]) -> None:
    """One run of a small scorer on the dataset, with a score for each of ``example_ids``."""
    scorer_id, version_id = make_version(engine, f"len-{dataset_id}")
    with session_scope(engine) as session:
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        rows = [
            {
                "run_id": run.id,
                "example_id": example_id,
                "scorer_id": scorer_id,
                "scorer_version_id": version_id,
                "dataset_id": dataset_id,
                "outcome": "scored",
                "score": 1.0,
            }
            for example_id in example_ids
        ]
        add_scores(session, rows=rows)


def test_dataset_rows_count_examples_and_hide_archived(engine):
    first = make_dataset(engine, "a", _examples(3))
    make_dataset(engine, "b", [])
    with session_scope(engine) as session:
        archive_dataset(session, dataset_id=first)
    with read_session(engine) as session, counting_selects(engine) as selects:
        active = dataset_rows(session)
        everything = dataset_rows(session, include_archived=True)
    assert [(r.name, r.examples) for r in active] == [("b", 0)]
    assert [(r.name, r.examples, r.archived) for r in everything] == [
        ("a", 3, True),
        ("b", 0, False),
    ]
    assert len(selects) == 4  # two per call, whatever the number of datasets


def test_dataset_usage_counts_examples_runs_and_scores(engine):
    dataset_id = make_dataset(engine, "qa", _examples(4))
    other = make_dataset(engine, "other", _examples(2))
    _score(engine, dataset_id, _example_ids(engine, dataset_id)[:2])
    _score(engine, other, _example_ids(engine, other)[:1])
    new = make_dataset(engine, "new", _examples(1))
    with read_session(engine) as session:
        usage = dataset_usage(session, dataset_id=dataset_id)
        unused = dataset_usage(session, dataset_id=new)
    assert (usage.examples, usage.runs, usage.scores) == (4, 1, 2)
    assert (unused.examples, unused.runs, unused.scores) == (1, 0, 0)


def test_pages_by_number_are_read_in_the_database(engine):
    dataset_id = make_dataset(engine, "big", _examples(120))
    make_dataset(engine, "other", _examples(5))  # rows of another dataset never leak in
    with read_session(engine) as session:
        with counting_selects(engine) as selects:
            first = numbered_example_page(session, dataset_id=dataset_id, page=1, page_size=50)
        assert len(selects) == 2  # the count and the page; the first page needs no offset
        last = numbered_example_page(session, dataset_id=dataset_id, page=3, page_size=50)
        beyond = numbered_example_page(session, dataset_id=dataset_id, page=9, page_size=50)
        before = numbered_example_page(session, dataset_id=dataset_id, page=0, page_size=50)
    assert (first.total, first.pages, len(first.examples), first.first_number) == (120, 3, 50, 1)
    assert [e.input for e in first.examples[:2]] == ["q0", "q1"]
    assert (last.page, len(last.examples), last.first_number) == (3, 20, 101)
    assert last.examples[0].input == "q100"
    assert beyond.page == 3
    assert [e.id for e in beyond.examples] == [e.id for e in last.examples]
    assert (before.page, before.first_number) == (1, 1)


def test_an_empty_dataset_has_one_empty_page(engine):
    dataset_id = make_dataset(engine, "empty", [])
    with read_session(engine) as session:
        page = numbered_example_page(session, dataset_id=dataset_id, page=2, page_size=50)
    assert (page.page, page.pages, page.examples, page.first_number, page.total) == (
        1,
        1,
        [],
        0,
        0,
    )


def test_example_score_counts_name_only_scored_examples(engine):
    dataset_id = make_dataset(engine, "qa", _examples(3))
    ids = _example_ids(engine, dataset_id)
    _score(engine, dataset_id, [ids[0], ids[2]])
    _score(engine, dataset_id, [ids[2]])
    with read_session(engine) as session:
        assert example_score_counts(session, example_ids=ids) == {ids[0]: 1, ids[2]: 2}
        assert example_score_counts(session, example_ids=[ids[1]]) == {}
        with counting_selects(engine) as selects:
            assert example_score_counts(session, example_ids=[]) == {}
    assert selects == []  # nothing asked, nothing read
