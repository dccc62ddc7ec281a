"""How a run looks judge answers up in the store: its scorer's answers and the table's keys
are read once; a key the table did not hold is a miss without a query; a key of another
scorer is read by its own query; a table bigger than the key bound falls back to a query
per unknown key."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from scorer_runtime.store import answers as answers_module
from scorer_runtime.store import session_scope
from scorer_runtime.store.answers import StoreAnswerCache, store_answers
from tests.store.fixtures import counting_selects, make_version


def _keep(engine: Engine, scorer_id: int, *keys: str) -> None:
    rows = [{"key": k, "scorer_id": scorer_id, "answer": f'{{"k": "{k}"}}'} for k in keys]
    with session_scope(engine) as session:
        store_answers(session, rows=rows)


@pytest.fixture
def two_scorers(engine: Engine) -> tuple[int, int]:
    mine, _ = make_version(engine, "mine")
    other, _ = make_version(engine, "other")
    _keep(engine, mine, "a" * 64, "b" * 64)
    _keep(engine, other, "c" * 64)
    return mine, other


def test_a_miss_asks_the_database_nothing_when_every_key_was_read(engine, two_scorers):
    mine, _ = two_scorers
    cache = StoreAnswerCache(engine, scorer_id=mine)
    cache.preload()
    with counting_selects(engine) as seen:
        assert cache.get("d" * 64) is None
        found = cache.get("a" * 64)
    assert seen == []
    assert found is not None
    assert found.text == '{"k": "' + "a" * 64 + '"}'


def test_another_scorers_answer_is_found_by_its_own_query(engine, two_scorers):
    mine, _ = two_scorers
    cache = StoreAnswerCache(engine, scorer_id=mine)
    cache.preload()
    with counting_selects(engine) as seen:
        found = cache.get("c" * 64)
    assert len(seen) == 1
    assert found is not None
    assert found.text == '{"k": "' + "c" * 64 + '"}'


def test_a_table_bigger_than_the_key_bound_asks_about_each_unknown_key(
    engine, two_scorers, monkeypatch
):
    monkeypatch.setattr(answers_module, "KEY_SET_LIMIT", 2)  # the table holds 3 keys
    mine, _ = two_scorers
    cache = StoreAnswerCache(engine, scorer_id=mine)
    cache.preload()
    with counting_selects(engine) as seen:
        assert cache.get("d" * 64) is None
        assert cache.get("a" * 64) is not None  # the scorer's own: read at the start
    assert len(seen) == 1


def test_a_scorer_whose_answers_are_the_whole_table_reads_no_key_list(engine):
    mine, _ = make_version(engine, "alone")
    _keep(engine, mine, "a" * 64, "b" * 64)
    cache = StoreAnswerCache(engine, scorer_id=mine)
    with counting_selects(engine) as at_start:
        cache.preload()
    with counting_selects(engine) as per_key:
        assert cache.get("d" * 64) is None
    assert len(at_start) == 2  # the scorer's answers and the table's size
    assert per_key == []
