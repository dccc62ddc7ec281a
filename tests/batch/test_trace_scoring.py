"""Scoring stored traces with a stored scorer version: every outcome stored with its trace and
span and the same evidence as a batch run; already-scored traces skipped; sampling stable."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer_runtime.batch import plan_trace_scoring, score_stored_traces
from scorer_runtime.batch.trace_scoring import stored_outcome, trace_score_row
from scorer_runtime.judge.config import JudgeConfigError
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ScoreFilter,
    get_score,
    list_scores,
    read_session,
    save_scorer_version,
    save_traces,
    session_scope,
)
from scorer_runtime.traces import TraceScoreOutcome, load_traces, sample_trace_ids
from tests.cli.helpers import KEY_ENV, agent_verdict_spec

FIXTURES = Path(__file__).resolve().parents[1] / "traces" / "fixtures"
SUPPORT_TRACE = "5b8aa5a2d2c872e8321cf37308d69df2"
SUMMARY_TRACE = "0af7651916cd43dd8448eb211c80319c"
WEATHER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
HTTP_TRACE_FILE = "http_only.otlp.json"


@pytest.fixture
def stored(engine, fake_judge, monkeypatch):
    """Four stored traces and the agent scorer's version 1 (judge: the fake server)."""
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with session_scope(engine) as session:
        for name in ("support_agent.otlp.jsonl", "weather.otlp.json", HTTP_TRACE_FILE):
            save_traces(session, traces=load_traces(FIXTURES / name), source=name)
        version = save_scorer_version(
            session, spec=load_spec(agent_verdict_spec(fake_judge.base_url))
        )
    return version


def _scores(engine, version):
    with read_session(engine) as session:
        rows = list_scores(session, filter=ScoreFilter(scorer_version_id=version.id)).rows
        return {r.trace_id: get_score(session, score_id=r.id) for r in rows}


def test_every_trace_gets_a_stored_outcome_with_its_evidence(engine, stored, fake_judge):
    fake_judge.reply({"verdict": "yes"}, when="Please cancel order 4821")
    fake_judge.reply({"verdict": "no"})
    with read_session(engine) as session:
        plan = plan_trace_scoring(session, scorer_version_id=stored.id)
    assert len(plan.to_score) == 4
    seen: list[TraceScoreOutcome] = []
    outcomes = score_stored_traces(engine, stored, plan.to_score, on_outcome=seen.append)
    assert sorted(o.trace_id for o in seen) == sorted(plan.to_score)
    rows = _scores(engine, stored)
    assert set(rows) == set(plan.to_score)
    support = rows[SUPPORT_TRACE]
    assert (support.outcome, support.score) == ("scored", 1.0)
    assert support.span_id == "051581bf3cb55c13"  # the agent's root span
    assert (support.run_id, support.example_id, support.dataset_id) == (None, None, None)
    assert "refund" in support.prompts["analyze"]
    assert support.judge["analyze"]["status"] == "success"
    assert support.attempts == 1
    assert support.total_tokens > 0
    assert rows[WEATHER_TRACE].score == 0.0
    http_only = next(
        o for o in outcomes if o.trace_id not in (SUPPORT_TRACE, WEATHER_TRACE, SUMMARY_TRACE)
    )
    assert http_only.status == "not_scorable"
    assert rows[http_only.trace_id].outcome == "not_scorable"
    assert rows[http_only.trace_id].reason == http_only.reason
    assert fake_judge.request_count == 3  # the HTTP-only trace never reached the judge


def test_scoring_again_skips_what_this_version_scored_unless_rescore(engine, stored, fake_judge):
    fake_judge.reply({"verdict": "yes"})
    score_stored_traces(engine, stored, [SUPPORT_TRACE])
    with read_session(engine) as session:
        plan = plan_trace_scoring(session, scorer_version_id=stored.id)
        assert SUPPORT_TRACE in plan.already_scored
        assert SUPPORT_TRACE not in plan.to_score
        again = plan_trace_scoring(session, scorer_version_id=stored.id, rescore=True)
        assert SUPPORT_TRACE in again.to_score
        only = plan_trace_scoring(session, scorer_version_id=stored.id, trace_ids=[WEATHER_TRACE])
        assert only.to_score == [WEATHER_TRACE]


def test_a_sample_picks_the_same_traces_as_the_runtime(engine, stored):
    with read_session(engine) as session:
        every = plan_trace_scoring(session, scorer_version_id=stored.id).to_score
        half = plan_trace_scoring(session, scorer_version_id=stored.id, sample=0.5)
    assert half.to_score == sample_trace_ids(every, 0.5)
    assert sorted(half.to_score + half.not_sampled) == sorted(every)
    with read_session(engine) as session, pytest.raises(ValueError, match="between 0 and 1"):
        plan_trace_scoring(session, scorer_version_id=stored.id, sample=2)


def test_a_failing_judge_is_stored_with_its_step_and_kind(engine, stored, fake_judge):
    fake_judge.fault(status=401, times=None)
    (outcome,) = score_stored_traces(engine, stored, [WEATHER_TRACE])
    assert (outcome.status, outcome.failed_step) == ("failed", "analyze")
    assert stored_outcome(outcome) == "provider_error"
    row = _scores(engine, stored)[WEATHER_TRACE]
    assert (row.outcome, row.score, row.failed_step) == ("provider_error", None, "analyze")
    assert row.error == outcome.error
    assert row.judge["analyze"]["status"] == "failed"


def test_a_judge_key_not_set_stops_before_any_call(engine, stored, fake_judge, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(JudgeConfigError, match=KEY_ENV):
        score_stored_traces(engine, stored, [WEATHER_TRACE])
    assert fake_judge.request_count == 0
    assert _scores(engine, stored) == {}


def test_what_completed_is_stored_when_scoring_is_interrupted(engine, stored, fake_judge):
    fake_judge.reply({"verdict": "yes"})

    def stop_after_first(outcome: TraceScoreOutcome) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        score_stored_traces(
            engine,
            stored,
            [SUPPORT_TRACE, WEATHER_TRACE],
            concurrency=1,
            on_outcome=stop_after_first,
        )
    assert list(_scores(engine, stored)) == [SUPPORT_TRACE]


def test_rows_of_outcomes_without_a_result_keep_the_reason(stored):
    outcome = TraceScoreOutcome(
        "agent-answered", "t1", None, "not_scorable", reason="the trace has no agent run"
    )
    row = trace_score_row(outcome, scorer_id=1, scorer_version_id=2)
    assert row["trace_id"] == "t1"
    assert (row["outcome"], row["score"], row["reason"]) == (
        "not_scorable",
        None,
        "the trace has no agent run",
    )


def test_many_traces_are_read_and_scored_a_batch_at_a_time(engine, monkeypatch):
    """More traces than one batch (and than one IN (...) of ids): every one is scored once."""
    from datetime import UTC, datetime, timedelta

    import scorer_runtime.batch.trace_scoring as trace_scoring
    from scorer_runtime.store import all_trace_ids, delete_traces, scored_trace_ids
    from scorer_runtime.traces import Span, Trace

    monkeypatch.setattr(trace_scoring, "TRACES_PER_BATCH", 70)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    traces = [
        Trace(
            f"{n:032x}",
            (Span(f"{n:032x}", f"{n:016x}", "agent", "agent_run", start + timedelta(seconds=n)),),
        )
        for n in range(1, 1201)
    ]
    spec = {
        "id": "spans",
        "description": "d",
        "steps": [{"step": "generate_score", "formula": "1"}],
    }
    with session_scope(engine) as session:
        assert save_traces(session, traces=traces).saved == 1200
        version = save_scorer_version(session, spec=load_spec(spec))
    ids = [t.trace_id for t in traces[:300]]
    seen: list[TraceScoreOutcome] = []
    outcomes = score_stored_traces(engine, version, ids, on_outcome=seen.append)
    assert [o.trace_id for o in outcomes] == ids
    assert len(seen) == 300
    with session_scope(engine) as session:
        assert scored_trace_ids(session, scorer_version_id=version.id) == set(ids)
        assert delete_traces(session, trace_ids=[t.trace_id for t in traces]) == 1200
        assert all_trace_ids(session) == []


def test_the_demo_judge_scorer_scores_the_demo_traces_against_their_expected_answers(
    engine, fake_judge, monkeypatch
):
    from scorer_runtime.saved_scorers import load_demo
    from scorer_runtime.store import get_scorer, latest_version

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake_judge.reply("The agent called the expected tools in order; one refund call failed.")
    with session_scope(engine) as session:
        load_demo(session, parts=("scorers", "traces"))
        scorer = get_scorer(session, name="tool-call-accuracy")
        version = latest_version(session, scorer_id=scorer.id)
        plan = plan_trace_scoring(session, scorer_version_id=version.id)
    assert len(plan.to_score) == 3
    outcomes = score_stored_traces(engine, version, plan.to_score, api_base=fake_judge.base_url)
    by_trace = {o.trace_id: o for o in outcomes}
    assert {o.status for o in outcomes} == {"scored"}  # no trace lacks its expected answer
    support = by_trace[SUPPORT_TRACE]
    assert support.result.ground_truth == ["lookup_order", "cancel_order", "issue_refund"]
    assert support.score == pytest.approx(0.7 * 1 + 0.3 * 0.75)  # in order; 1 of 4 calls failed
    assert by_trace[WEATHER_TRACE].score == 1.0
    assert fake_judge.request_count == 3  # one reason per trace, over real HTTP
    prompt = fake_judge.chat_requests[0].json["messages"][-1]["content"]
    assert "Expected, in order:" in prompt
    rows = _scores(engine, version)
    assert rows[SUPPORT_TRACE].reason.startswith("The agent called the expected tools")
