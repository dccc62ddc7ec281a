"""The traces page's Streamlit-free logic: reading uploads, what an import did in words, pages
of stored traces, the span tree, and the words around scoring and deleting."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from scorer_runtime.batch.trace_scoring import store_trace_outcomes
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ensure_schema,
    make_engine,
    read_session,
    save_scorer_version,
    save_traces,
    session_scope,
)
from scorer_runtime.store.views import trace_score_counts
from scorer_runtime.traces import ExpectedNeed, Span, Trace, TraceScoreOutcome
from studio.app_pages.traces.logic import (
    ImportReport,
    delete_question,
    import_words,
    list_row,
    read_upload,
    span_lines,
    trace_page,
)
from studio.app_pages.traces.scoring import (
    AgentScorerOption,
    agent_scorer_options,
    button_label,
    chosen_words,
    first_option,
    lacking_words,
    no_run_words,
    outcome_words,
    plan_scoring,
    rescore_words,
    trace_scoring_cost_note,
)

FIXTURES = Path(__file__).resolve().parents[3] / "traces" / "fixtures"
DATA = Path(__file__).resolve().parents[4] / "data"


def engine_at(tmp_path: Path, name: str):
    engine = make_engine(f"sqlite:///{tmp_path / name}")
    ensure_schema(engine)
    return engine


def saved(engine, name: str):
    """Save a fixture file's traces; what saving did."""
    loaded = read_upload((FIXTURES / name).read_bytes(), name)
    with session_scope(engine) as session:
        return save_traces(session, traces=loaded.traces, source=name)


def test_mastra_and_otlp_files_are_listed_alike(tmp_path):
    otlp, mastra = engine_at(tmp_path, "otlp.db"), engine_at(tmp_path, "mastra.db")
    saved(otlp, "weather.otlp.json")
    saved(mastra, "weather.mastra.json")
    with read_session(otlp) as session:
        (a,) = trace_page(session).lines
    with read_session(mastra) as session:
        (b,) = trace_page(session).lines
    assert a.trace_id == b.trace_id
    assert (a.tool_calls, b.tool_calls) == (2, 2)
    assert a.model_calls >= 1
    assert b.model_calls >= 1
    assert a.agent == "weather-agent"
    assert b.agent == "Weather Agent"  # Mastra names the agent as its code does
    row = list_row(a, 3)
    assert row["Stored scores"] == 3
    assert row["File"] == "weather.otlp.json"
    assert row["Tool calls"] == 2
    assert row["Started (UTC)"] == f"{a.started_at:%Y-%m-%d %H:%M:%S}"


def test_import_words_say_what_was_new_changed_or_already_there(tmp_path):
    engine = engine_at(tmp_path, "s.db")
    lines = (FIXTURES / "support_agent.otlp.jsonl").read_bytes().splitlines()
    with session_scope(engine) as session:
        first = save_traces(session, traces=read_upload(lines[0], "a").traces)
    assert import_words("a.jsonl", first) == "Imported 1 trace from a.jsonl: 1 new."
    both = saved(engine, "support_agent.otlp.jsonl")
    assert (
        import_words("b.jsonl", both) == "Imported 2 traces from b.jsonl: 1 new, 1 with new spans."
    )
    again = saved(engine, "support_agent.otlp.jsonl")
    assert import_words("b.jsonl", again) == "Imported 2 traces from b.jsonl: 2 already stored."
    report = ImportReport("b.jsonl", "u1", read=2, summary=again)
    assert report.words() == import_words("b.jsonl", again)
    assert ImportReport("c.jsonl", "u2").words() is None


def small_traces(count: int) -> list[Trace]:
    start = datetime(2025, 6, 1, tzinfo=UTC)
    return [
        Trace(
            f"{n:032x}",
            (Span(f"{n:032x}", f"{n:016x}", f"agent-{n:03d}", "agent_run", start + timedelta(n)),),
        )
        for n in range(1, count + 1)
    ]


def test_pages_of_stored_traces_and_where_they_sit(tmp_path):
    engine = engine_at(tmp_path, "s.db")
    with session_scope(engine) as session:
        save_traces(session, traces=small_traces(7), source="seven.jsonl")
    with read_session(engine) as session:
        first = trace_page(session, per_page=3)
        last = trace_page(session, page=2, per_page=3)
        beyond = trace_page(session, page=9, per_page=3)  # after deleting: the last page
        found = trace_page(session, search="AGENT-00", per_page=3)
        single = trace_page(session, search="agent-005")
        none = trace_page(session, search="nothing")
    assert [t.name for t in first.lines] == ["agent-007", "agent-006", "agent-005"]
    assert (first.pages, first.total) == (3, 7)
    assert first.showing() == "Showing 1–3 of 7 stored traces, the most recent first."
    assert [t.name for t in last.lines] == ["agent-001"]
    assert last.showing() == "Showing 7–7 of 7 stored traces, the most recent first."
    assert (beyond.page, [t.name for t in beyond.lines]) == (2, ["agent-001"])
    assert found.total == 7
    assert found.showing("AGENT-00").startswith("Showing 1–3 of 7 stored traces matching")
    assert single.showing("agent-005") == "1 stored trace matching “agent-005”."
    assert (none.total, none.lines, none.pages, none.page) == (0, [], 1, 0)


def test_span_tree_depths_follow_parents():
    loaded = read_upload((FIXTURES / "weather.mastra.json").read_bytes(), "w.json")
    lines = span_lines(loaded.traces[0])
    depth = {line.span.span_id: line.depth for line in lines}
    for line in lines:
        parent = line.span.parent_span_id
        if parent in depth:
            assert line.depth == depth[parent] + 1
        else:
            assert line.depth == 0
    assert max(depth.values()) >= 2  # tool calls sit under model steps in Mastra files
    assert lines[0].label().startswith(lines[0].span.name)
    assert lines[-1].label().startswith("\u2003")


def test_unreadable_uploads_are_problems_not_crashes():
    # Not UTF-8, and not UTF-16 either (an odd number of bytes after its byte-order mark):
    # b"\xff\xfe" + an even number of bytes is UTF-16 text, read as such.
    binary = read_upload(b"\xff\xfe\x00garbag", "x.json")
    assert binary.traces == []
    assert "not UTF-8" in binary.problems[0].message
    empty = read_upload(b"  ", "x.json")
    assert empty.traces == []
    assert "nothing to import" in empty.problems[0].message
    report = ImportReport("x.json", "u", empty.problems, read=0)
    assert "Nothing could be imported" in report.what_to_do()
    partial = ImportReport("x.json", "u", empty.problems, read=2)
    assert "the missing spans are added to the traces already stored" in partial.what_to_do()


@pytest.mark.parametrize(
    ("traces", "scores", "question"),
    [
        (3, 5, "Delete 3 traces? Their 5 stored scores stay in the history."),
        (1, 1, "Delete 1 trace? Its 1 stored score stays in the history."),
        (2, 0, "Delete 2 traces? None of them has a stored score."),
        (1, 0, "Delete 1 trace? It has no stored score."),
    ],
)
def test_delete_asks_naming_what_goes_and_what_stays(traces, scores, question):
    assert delete_question(traces, scores) == question


TOOLS = ExpectedNeed(required=True, kind="tools", steps=("tool order",))


def test_the_plan_counts_agree_with_the_button_and_the_words():
    plan = plan_scoring(["t1", "t2", "t3"], {}, ExpectedNeed(), {"t2"})
    assert plan.to_score == ("t1", "t2", "t3")
    assert button_label(plan) == "Score 3 traces"
    assert chosen_words(plan) == "**3 traces chosen.**"
    assert plan.again == ("t2",)
    assert rescore_words(plan) == (
        "1 of the 3 were already scored by this version: scoring again adds a new score, "
        "and the earlier one stays in the history."
    )
    assert rescore_words(plan_scoring(["t1"], {}, ExpectedNeed(), set())) is None


def test_traces_without_the_expected_answer_a_scorer_needs_are_left_out_and_named():
    option = AgentScorerOption(
        1, "tca", 2, 1, "", judge_steps=1, title="Tool-call accuracy", need=TOOLS
    )
    expected = {"t1": ["lookup_order"], "t2": None, "t3": "Refunded."}
    plan = plan_scoring(["t1", "t2", "t3"], expected, TOOLS, set())
    assert plan.to_score == ("t1",)
    assert button_label(plan) == "Score 1 of the 3 chosen traces"
    words = lacking_words(plan, option)
    assert words is not None
    assert words.startswith("2 of the 3 chosen traces cannot be scored by Tool-call accuracy")
    assert "the tools the agent should call, in order" in words
    assert "they have no expected answer" in words
    assert "their expected answer is a text" in words
    none = plan_scoring(["t2"], expected, TOOLS, set())
    assert button_label(none) == "Score traces"  # never "Score 0 traces"
    assert lacking_words(none, option).startswith(
        "The chosen trace cannot be scored by Tool-call accuracy yet"
    )
    assert trace_scoring_cost_note(option, len(none.to_score)) is None  # never "0 times"
    assert chosen_words(plan_scoring([], {}, TOOLS, set())) == "No trace is chosen yet."


def test_the_picker_opens_on_the_scorer_being_worked_on():
    def option(scorer_id: int, name: str, version_id: int, env: str) -> AgentScorerOption:
        return AgentScorerOption(scorer_id, name, version_id, 1, "", 1, key_envs=(env,))

    options = [option(1, "a", 10, "UNSET"), option(2, "b", 20, "SET"), option(3, "c", 30, "SET")]
    is_set = {"SET": True, "UNSET": False}.__getitem__
    assert first_option(options, is_set) == 1  # the first whose key is set
    assert first_option(options, is_set, 3) == 2  # the current scorer, by id
    assert first_option(options, is_set, "a") == 0  # or by name, even without its key
    assert first_option(options, is_set, 99) == 1  # not an agent scorer: the first ready


def test_cost_and_outcome_words():
    option = AgentScorerOption(1, "agent-answered", 2, 1, "", judge_steps=2)
    assert trace_scoring_cost_note(option, 3) == (
        "This asks the judge up to 6 times (2 per trace), more if a request is retried."
    )
    free = AgentScorerOption(1, "checks", 3, 4, "", judge_steps=0)
    assert (
        trace_scoring_cost_note(free, 3)
        == "This scorer never calls a judge: scoring costs nothing."
    )
    outcomes = [
        TraceScoreOutcome("s", "t1", None, "not_scorable", reason="no agent"),
        TraceScoreOutcome("s", "t2", "a", "failed", error_kind="timeout", error="slow"),
    ]
    assert outcome_words(option, outcomes) == (
        "Scored 2 traces with agent-answered · version 1: 1 failed, 1 not scorable."
    )


def test_agent_scorers_and_score_counts_per_trace(tmp_path):
    engine = engine_at(tmp_path, "s.db")
    spec = json.loads((DATA / "scorers" / "tool-call-accuracy.json").read_text())
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(spec))
        outcomes = [
            TraceScoreOutcome("tool-call-accuracy", trace_id, None, "not_scorable", reason="r")
            for trace_id in ("t1", "t1", "t2")
        ]
        store_trace_outcomes(
            session, outcomes, scorer_id=version.scorer_id, scorer_version_id=version.id
        )
    with read_session(engine) as session:
        (option,) = agent_scorer_options(session)
        assert trace_score_counts(session, trace_ids=[]) == {}
        assert trace_score_counts(session, trace_ids=["t1", "t2", "t3"]) == {"t1": 2, "t2": 1}
    assert option.label() == "Tool-call accuracy · version 1"  # its name, not its id
    assert option.need.required
    assert option.need.kind == "tools"
    assert option.judge_steps == 1  # only the reason asks the judge


def test_traces_without_an_agent_run_are_left_out_and_said_so():
    option = AgentScorerOption(
        1, "tca", 2, 1, "", judge_steps=1, title="Tool-call accuracy", need=TOOLS
    )
    expected = {"t1": ["a"], "t2": None}
    plan = plan_scoring(["t1", "t2", "t3"], expected, TOOLS, set(), no_run={"t3"})
    assert plan.to_score == ("t1",)
    assert plan.no_run == ("t3",)
    assert button_label(plan) == "Score 1 of the 3 chosen traces"
    assert no_run_words(plan).startswith("1 of the 3 chosen traces hold no agent run")
    assert lacking_words(plan, option).startswith(
        "1 of the 3 chosen traces cannot be scored by Tool-call accuracy yet"
    )
    alone = plan_scoring(["t3"], {}, ExpectedNeed(), set(), no_run={"t3"})
    assert button_label(alone) == "Score traces"
    assert no_run_words(alone).startswith("The chosen trace holds no agent run")
    assert "Take it out of the choice" in no_run_words(alone)
    assert no_run_words(plan_scoring(["t1"], {}, ExpectedNeed(), set())) is None
