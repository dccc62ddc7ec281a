"""``scorer-studio rules add|list|backfill`` in-process, on a real database (SQLite, and
PostgreSQL when configured), traces stored as an import stores them, the fake judge over HTTP."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from scorer_runtime.batch.rule_scoring import RuleScoring
from scorer_runtime.costs.trace_estimate import estimate_traces
from scorer_runtime.money import format_dollars
from scorer_runtime.runs import plan_rule
from scorer_runtime.store import make_engine
from tests.batch.rule_fixtures import (
    judge_free_version,
    priced_judge_version,
    scores_by_trace,
    store_traces,
)
from tests.cli.helpers import KEY_ENV, cli
from tests.traces.rule_traces import agent_trace, trace_ids

_HOUR = timedelta(hours=1)


@pytest.fixture
def store(db_url, engine, monkeypatch):
    """The test database's engine (migrated), for setting up what the commands read; a wide
    terminal, so that a table's cells read whole."""
    monkeypatch.setenv("COLUMNS", "300")
    return engine


def test_add_then_list_says_what_the_rule_takes(db_url, store):
    judge_free_version(store, "always-one")
    added = cli(
        db_url,
        "rules",
        "add",
        "always-one",
        "--filter",
        "service=checkout",
        "--filter",
        "environment=production",
        "--sample",
        "0.25",
    )
    assert added.exit_code == 0, added.output
    assert "Rule 1 added: always-one v1 scores 25% of service=checkout, environment=production" in (
        " ".join(added.output.split())
    )
    assert "rules backfill 1" in added.output
    listed = cli(db_url, "rules", "list")
    assert listed.exit_code == 0, listed.output
    text = " ".join(listed.output.split())
    for words in ("always-one v1", "service=checkout", "none", "0 scored", "scoring new traces"):
        assert words in text


def test_list_with_no_rule_says_how_to_add_one(db_url, store):
    listed = cli(db_url, "rules", "list")
    assert listed.exit_code == 0
    assert "No rules yet. Add one: scorer-studio rules add SCORER" in listed.output


def test_a_filter_that_is_not_key_value_is_refused_and_nothing_is_added(db_url, store):
    judge_free_version(store, "always-one")
    refused = cli(db_url, "rules", "add", "always-one", "--filter", "checkout")
    assert refused.exit_code == 2
    assert "the filter 'checkout' is not KEY=VALUE" in " ".join(refused.stderr.split())
    assert "No rules yet" in cli(db_url, "rules", "list").output


def test_a_rule_of_a_judge_without_its_key_is_refused(db_url, store, fake_judge, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    priced_judge_version(store, fake_judge.base_url, "verdict")
    refused = cli(db_url, "rules", "add", "verdict", "--max-cost-per-day", "5")
    assert refused.exit_code == 2
    assert "The rule was not added" in refused.stderr
    assert KEY_ENV in refused.stderr


def test_backfill_shows_the_estimate_first_and_scores_only_when_confirmed(
    db_url, store, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "good"})
    version = priced_judge_version(store, fake_judge.base_url, "verdict")
    store_traces(store, [agent_trace(t, answer=f"answer {t}") for t in trace_ids(3)])
    assert cli(db_url, "rules", "add", "verdict").exit_code == 0
    declined = CliRunnerInput.invoke(db_url, "n\n", "rules", "backfill", "1")
    assert declined.exit_code == 0, declined.output
    text = " ".join(declined.output.split())
    assert "Rule 1 takes 3 stored traces not scored yet" in text
    assert "About 3 judge calls" in text
    assert "Nothing was scored." in text
    assert fake_judge.request_count == 0
    done = cli(db_url, "rules", "backfill", "1", "--yes")
    assert done.exit_code == 0, done.output
    assert "Rule 1: 3 traces scored." in done.output
    assert len(scores_by_trace(store, version)) == 3
    again = cli(db_url, "rules", "backfill", "1", "--yes")
    assert "Rule 1 takes 0 stored traces not scored yet (3 it scored already" in " ".join(
        again.output.split()
    )
    assert fake_judge.request_count == 3


def test_list_says_a_capped_rule_is_paused_until_the_next_utc_day(
    db_url, store, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "good"})
    version = priced_judge_version(store, fake_judge.base_url, "verdict")
    cap = _room_for_two(store, version)
    assert cli(db_url, "rules", "add", "verdict", "--max-cost-per-day", str(cap)).exit_code == 0
    store_traces(store, [agent_trace(t, answer=f"answer {t}") for t in trace_ids(6)])
    engine = make_engine(db_url)
    try:
        scored = asyncio.run(RuleScoring(engine, "runner-a").poll())
    finally:
        engine.dispose()
    assert scored == 2
    text = " ".join(cli(db_url, "rules", "list").output.split())
    assert f"paused until 00:00 UTC: today's cap of {format_dollars(cap)} is reached" in text
    assert f"{scored} scored" in text


def test_a_backfill_stopped_by_the_daily_cap_exits_with_3(db_url, store, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "good"})
    version = priced_judge_version(store, fake_judge.base_url, "verdict")
    cap = _room_for_two(store, version)
    store_traces(store, [agent_trace(t, answer=f"answer {t}") for t in trace_ids(6)])
    assert cli(db_url, "rules", "add", "verdict", "--max-cost-per-day", str(cap)).exit_code == 0
    done = cli(db_url, "rules", "backfill", "1", "--yes")
    assert done.exit_code == 3
    assert "Rule 1: 2 traces scored." in done.output
    assert "stopped at its daily spend cap" in done.stderr
    assert fake_judge.request_count == 2


def _room_for_two(engine, version_id: int) -> float:
    """A daily cap with room for two traces at their worst case, not three."""
    plan = plan_rule(engine, scorer_version_id=version_id)
    like = trace_ids(1, prefix="w")[0]  # as long as the traces' ids, in their answers too
    traces = [agent_trace(like, answer=f"answer {like}")]
    worst = asyncio.run(estimate_traces(plan.scorer, traces, count=1)).example_worst_cost
    assert worst
    return round(worst * 2.5, 6)


class CliRunnerInput:
    """The command in-process with text typed at its prompts."""

    @staticmethod
    def invoke(db_url: str, typed: str, *args: str):
        from typer.testing import CliRunner

        from scorer_runtime.cli import app

        runner = CliRunner()
        return runner.invoke(app, ["--database-url", db_url, *args], input=typed)


def test_add_with_alerts_says_what_they_watch_and_alerts_lists_them(db_url, store):
    from tests.batch.test_rule_alerts import GOOD, RUDE, last_hour, polite_version, timed

    polite_version(store)
    ids = trace_ids(40)
    store_traces(store, timed(ids[:20], last_hour(), [GOOD]))
    store_traces(store, timed(ids[20:], last_hour() + _HOUR, [RUDE]))
    added = cli(
        db_url,
        "rules",
        "add",
        "polite",
        "--alert-drop",
        "0.2",
        "--webhook-env",
        "TEAM_ALERT_HOOK",
    )
    assert added.exit_code == 0, added.output
    text = " ".join(added.output.split())
    assert "It alerts when an hour's mean score drops by 0.2 or more" in text
    assert "POSTed once to the address in $TEAM_ALERT_HOOK" in text
    assert cli(db_url, "rules", "alerts").output.startswith("No alerts.")

    backfilled = cli(db_url, "rules", "backfill", "1", "--yes")
    assert backfilled.exit_code == 0, backfilled.output
    assert "Alert: Mean score 1.00 the hour before" in " ".join(backfilled.output.split())

    listed = cli(db_url, "rules", "alerts", "1")
    assert listed.exit_code == 0, listed.output
    text = " ".join(listed.output.split())
    assert "Mean score 1.00 the hour before (20 scores), 0.00 this hour (20 scores)" in text
    assert "waiting for a runner to send it" in text


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--alert-drop", "0.1", "--alert-every", "week"], "an hour or a day"),
        (["--webhook-env", "HOOK"], "say which drop is worth one with --alert-drop"),
        (["--alert-drop", "0.1", "--webhook-env", "https://hooks.example/x"], "never stored"),
    ],
)
def test_add_refuses_alerts_that_cannot_be(db_url, store, args, words):
    judge_free_version(store, "always-one")
    added = cli(db_url, "rules", "add", "always-one", *args)
    assert added.exit_code != 0
    assert words in " ".join(added.output.split())
    assert "Rule 1 added" not in added.output
