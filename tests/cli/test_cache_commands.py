"""``run --no-cache`` and ``cache stats|clear`` through the real command, on the fake judge."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from scorer_runtime.cli.cache import parse_age
from scorer_runtime.store import make_engine
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec


@pytest.fixture
def loaded(db_url, tmp_path, fake_judge, monkeypatch):
    """The verdict scorer (priced model) and a dataset of four answers."""
    monkeypatch.setenv(KEY_ENV, "sk-test")
    spec = verdict_spec(fake_judge.base_url)
    spec["judge"]["model"] = "openai/gpt-4o-mini"
    assert cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec))).exit_code == 0
    answers = write_examples(tmp_path, ["fine answer", "poor answer", "fine again", "poor again"])
    assert cli(db_url, "datasets", "import", str(answers), "--name", "answers").exit_code == 0
    fake_judge.reply({"verdict": "bad"}, when="poor")
    fake_judge.reply({"verdict": "good"})
    return db_url


def test_a_second_run_says_its_answers_came_from_the_cache(loaded, fake_judge):
    first = cli(loaded, "run", "verdict", "answers")
    assert first.exit_code == 0, first.output
    assert "0 of 4 judge answers from the cache" in first.output
    again = cli(loaded, "run", "verdict", "answers")
    assert again.exit_code == 0, again.output
    assert fake_judge.request_count == 4
    assert "4 of 4 judge answers from the cache, $" in again.output
    assert " saved" in again.output


def test_no_cache_asks_the_judge_again(loaded, fake_judge):
    assert cli(loaded, "run", "verdict", "answers").exit_code == 0
    again = cli(loaded, "run", "verdict", "answers", "--no-cache")
    assert again.exit_code == 0, again.output
    assert fake_judge.request_count == 8
    assert "0 of 4 judge answers from the cache" in again.output


def test_stats_and_clear_by_scorer_and_age(loaded, fake_judge):
    empty = cli(loaded, "cache", "stats")
    assert "holds no answer" in empty.output
    assert cli(loaded, "run", "verdict", "answers").exit_code == 0
    stats = cli(loaded, "cache", "stats", "--scorer", "verdict")
    assert "holds 4 answers of scorer verdict, $" in stats.output
    engine = make_engine(loaded)
    old = datetime.now(UTC) - timedelta(days=40)
    with engine.begin() as connection:  # two answers were stored 40 days ago
        keys = connection.execute(text("SELECT key FROM judge_answers LIMIT 2")).scalars().all()
        for key in keys:
            connection.execute(
                text("UPDATE judge_answers SET created_at = :t WHERE key = :k"),
                {"t": old, "k": key},
            )
    engine.dispose()
    cleared = cli(loaded, "cache", "clear", "--older-than", "30d")
    assert cleared.exit_code == 0, cleared.output
    assert "Removed 2 judge answers older than 30d from the cache." in cleared.output
    assert cli(loaded, "run", "verdict", "answers").exit_code == 0
    assert fake_judge.request_count == 4 + 2  # only the forgotten ones were asked again
    cleared = cli(loaded, "cache", "clear", "--scorer", "verdict")
    assert "Removed 4 judge answers of scorer verdict from the cache." in cleared.output


def test_a_bad_age_or_scorer_is_said_in_words(loaded):
    bad = cli(loaded, "cache", "clear", "--older-than", "soon")
    assert bad.exit_code == 2
    assert "is not an age" in bad.output
    unknown = cli(loaded, "cache", "stats", "--scorer", "nope")
    assert unknown.exit_code == 2
    assert "nope" in unknown.output


def test_ages_read_hours_days_and_weeks():
    assert parse_age("12h") == timedelta(hours=12)
    assert parse_age("30d") == timedelta(days=30)
    assert parse_age(" 2W ") == timedelta(weeks=2)
