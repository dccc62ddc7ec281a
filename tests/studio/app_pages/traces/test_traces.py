"""The traces page: importing saves the traces in the database (problems listed), the stored
list (search, pages) survives a new session, the span tree, scoring stored traces with an agent
scorer against the fake judge, deleting after asking, and the scores linked to trace and span."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from scorer_runtime.batch.trace_scoring import store_trace_outcomes
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    count_traces,
    get_trace,
    read_session,
    save_scorer_version,
    save_traces,
    session_scope,
    set_trace_expected,
)
from scorer_runtime.store.tables import ScoreRecord
from scorer_runtime.traces import Span, Trace, TraceScoreOutcome
from studio import state
from tests.cli.helpers import agent_verdict_spec

FIXTURES = Path(__file__).resolve().parents[3] / "traces" / "fixtures"
SUPPORT_TRACE = "5b8aa5a2d2c872e8321cf37308d69df2"
SUMMARY_TRACE = "0af7651916cd43dd8448eb211c80319c"
WEATHER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
KEY_ENV = "S3_TRACE_JUDGE_KEY"
JUDGE_TIMEOUT = 90
"""Seconds per script run of a page that calls the judge: the first call imports litellm,
which takes long on a busy machine."""


def agent_spec(base_url: str, *, key_env: str = KEY_ENV) -> dict:
    """An agent scorer asking the fake judge whether the agent answered the user."""
    return agent_verdict_spec(base_url, key_env=key_env)


def upload(at, name: str, data: bytes | None = None):
    data = (FIXTURES / name).read_bytes() if data is None else data
    at.get("file_uploader")[0].set_value((name, data, "application/json"))
    return at.run()


def stored(engine) -> list[ScoreRecord]:
    with read_session(engine) as session:
        return list(session.exec(select(ScoreRecord).order_by(ScoreRecord.id)).all())


def traces_in(engine) -> int:
    with read_session(engine) as session:
        return count_traces(session)


def trace_table(at):
    (table,) = [df.value for df in at.dataframe if "Model calls" in df.value.columns]
    return table


def small_traces(count: int) -> list[Trace]:
    """``count`` one-span agent traces, "bot-01" the oldest, a minute apart."""
    start = datetime(2025, 6, 1, 9, 0, tzinfo=UTC)
    traces = []
    for n in range(1, count + 1):
        trace_id = f"{n:032x}"
        began = start + timedelta(minutes=n)
        name = f"invoke_agent bot-{n:02d}"
        span = Span(trace_id, f"{n:016x}", name, "agent_run", began, began + timedelta(seconds=2))
        traces.append(Trace(trace_id, (span,)))
    return traces


def agent_version(engine, base_url: str) -> tuple[int, int]:
    """Save the agent scorer; its (scorer id, version id)."""
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(agent_spec(base_url)))
        return version.scorer_id, version.id


def test_empty_page_explains_traces_and_that_they_are_kept(studio_db, open_page):
    at = open_page("traces")
    assert not at.exception
    assert at.get("file_uploader")  # the uploader stays above the explanation
    (text,) = [m.value for m in at.markdown if "A *trace* records one turn" in m.value]
    assert "file exporter" in text
    assert "Mastra" in text
    assert "kept in the studio's database" in text
    assert "upload the file again" not in text
    assert not at.dataframe


def test_import_lists_problems_with_line_and_span_and_saves_good_traces(studio_db, open_page):
    at = upload(open_page("traces"), "malformed.otlp.jsonl")
    assert not at.exception
    assert [s.value for s in at.success] == ["Imported 1 trace from malformed.otlp.jsonl: 1 new."]
    assert any("5 problems in malformed.otlp.jsonl" in w.value for w in at.warning)
    problems = [m.value for m in at.markdown if m.value.startswith("- **")]
    assert any(
        "Line 2 · span “abc0000000000001”" in p and "startTimeUnixNano" in p for p in problems
    )
    assert any(p.startswith("- **Line 3**: not valid JSON") for p in problems)
    assert any("Fix those lines in the file" in c.value for c in at.caption)
    assert len(trace_table(at)) == 1
    assert traces_in(studio_db) == 1


def test_nothing_importable_saves_nothing_and_says_what_to_do(studio_db, open_page):
    at = open_page("traces")
    at.get("file_uploader")[0].set_value(("notes.json", b'{"hello": 1}', "application/json"))
    at.run()
    assert not at.exception
    assert any("nothing could be imported" in w.value for w in at.warning)
    assert any("Export the traces again" in c.value for c in at.caption)
    assert not at.success
    assert not at.dataframe
    assert traces_in(studio_db) == 0


def test_trace_list_and_span_tree(studio_db, open_page):
    at = upload(open_page("traces"), "support_agent.otlp.jsonl")
    assert not at.exception
    assert "2 stored traces, the most recent first. 2 traces chosen for scoring." in [
        m.value for m in at.markdown
    ]
    table = trace_table(at)
    assert list(table["Trace"]) == [SUMMARY_TRACE, SUPPORT_TRACE]  # the most recent first
    rows = {row["Trace"]: row for row in table.to_dict("records")}
    assert rows[SUPPORT_TRACE]["Spans"] == 9
    assert rows[SUPPORT_TRACE]["Model calls"] == 5
    assert rows[SUPPORT_TRACE]["Tool calls"] == 4  # 3 spans, 1 asked for in a model's answer
    assert rows[SUPPORT_TRACE]["Failed spans"] == 1
    assert rows[SUPPORT_TRACE]["Agent"] == "support-agent"
    assert rows[SUPPORT_TRACE]["Took"] == "6.5 s"
    assert rows[SUPPORT_TRACE]["Started (UTC)"] == "2025-06-12 09:16:02"
    assert rows[SUPPORT_TRACE]["File"] == "support_agent.otlp.jsonl"
    at.selectbox(key=state.TRACES_VIEW.name).select(SUPPORT_TRACE).run()
    labels = [e.label for e in at.expander if "·" in e.label]
    assert labels[0].startswith("invoke_agent support-agent · Agent run · 6.5 s")
    assert any(
        "↳ execute_tool issue_refund · Tool call (issue_refund) · 1 s · :red[failed]" in label
        for label in labels
    )
    assert sum("Model call (claude-sonnet-4)" in label for label in labels) == 5
    assert sum("Tool call (" in label for label in labels) == 3
    assert (
        "The agent made 4 tool calls, as the scorers count them: 3 as Tool call spans below "
        "and 1 that a model asked for in its answer with no span of its own (open that Model "
        "call span and read its output)." in [c.value for c in at.caption]
    )
    at.selectbox(key=state.TRACES_VIEW.name).select(SUMMARY_TRACE).run()
    assert next(e.label for e in at.expander if "·" in e.label).startswith(
        "chat gpt-4o-mini · Model call"
    )


def test_imported_traces_are_listed_in_a_new_session(studio_db, open_page):
    with session_scope(studio_db) as session:  # one saved by other means (the CLI)
        save_traces(session, traces=small_traces(1), source="cli.jsonl")
    upload(open_page("traces"), "support_agent.otlp.jsonl")
    at = open_page("traces")  # a new browser session: nothing uploaded
    assert not at.exception
    assert at.get("file_uploader")[0].value is None
    table = trace_table(at)
    assert set(table["Trace"]) == {SUPPORT_TRACE, SUMMARY_TRACE, f"{1:032x}"}
    assert "cli.jsonl" in set(table["File"])
    at.selectbox(key=state.TRACES_VIEW.name).select(SUPPORT_TRACE).run()
    assert sum("Model call (claude-sonnet-4)" in e.label for e in at.expander) == 5


def test_importing_again_adds_only_what_is_new(studio_db, open_page):
    first_line = (FIXTURES / "support_agent.otlp.jsonl").read_bytes().splitlines()[0]
    at = upload(open_page("traces"), "part.otlp.jsonl", first_line)
    assert [s.value for s in at.success] == ["Imported 1 trace from part.otlp.jsonl: 1 new."]
    assert list(trace_table(at)["Spans"]) == [3]
    at = upload(at, "support_agent.otlp.jsonl")
    assert [s.value for s in at.success] == [
        "Imported 2 traces from support_agent.otlp.jsonl: 1 new, 1 with new spans."
    ]
    at = upload(at, "support_agent.otlp.jsonl")
    assert not at.success
    assert any(
        i.value == "Imported 2 traces from support_agent.otlp.jsonl: 2 already stored. "
        "Nothing changed."
        for i in at.info
    )
    table = trace_table(at)
    assert sorted(table["Trace"]) == sorted([SUPPORT_TRACE, SUMMARY_TRACE])  # each once
    assert dict(zip(table["Trace"], table["Spans"], strict=True))[SUPPORT_TRACE] == 9
    assert traces_in(studio_db) == 2
    at.run()  # a rerun with the file still in the uploader does not import it again
    assert any("2 already stored" in i.value for i in at.info)


def test_search_narrows_the_list(studio_db, open_page):
    at = upload(open_page("traces"), "support_agent.otlp.jsonl")
    at = upload(at, "http_only.otlp.json")
    assert len(trace_table(at)) == 3
    at.text_input(key=state.TRACES_SEARCH.name).input("GPT-4O").run()  # any case, part of the name
    assert list(trace_table(at)["Trace"]) == [SUMMARY_TRACE]
    assert any(m.value.startswith("1 stored trace matching “GPT-4O”.") for m in at.markdown)
    at.text_input(key=state.TRACES_SEARCH.name).input("http_only").run()  # the file name
    assert list(trace_table(at)["File"]) == ["http_only.otlp.json"]
    at.text_input(key=state.TRACES_SEARCH.name).input(SUPPORT_TRACE[:10]).run()  # the id
    assert list(trace_table(at)["Trace"]) == [SUPPORT_TRACE]
    at.text_input(key=state.TRACES_SEARCH.name).input("no-such-agent").run()
    assert not at.exception
    assert any("No stored trace matches “no-such-agent”" in i.value for i in at.info)
    assert not at.dataframe


def test_the_list_pages_in_the_database(studio_db, open_page):
    with session_scope(studio_db) as session:
        save_traces(session, traces=small_traces(60), source="many.jsonl")
    at = open_page("traces")
    table = trace_table(at)
    assert len(table) == 50
    assert table["What"][0] == "invoke_agent bot-60"  # the most recent first
    assert (
        "Showing 1–50 of 60 stored traces, the most recent first. 50 traces chosen for "
        "scoring." in [m.value for m in at.markdown]
    )
    assert any(c.value == "Page 1 of 2" for c in at.caption)
    assert at.button(key=state.TRACES_PREV.name).disabled
    at.button(key=state.TRACES_NEXT.name).click().run()
    assert not at.exception
    table = trace_table(at)
    assert list(table["What"]) == [f"invoke_agent bot-{n:02d}" for n in range(10, 0, -1)]
    assert any(
        m.value.startswith("Showing 51–60 of 60 stored traces, the most recent first.")
        for m in at.markdown
    )
    assert at.button(key=state.TRACES_NEXT.name).disabled
    assert at.selectbox(key=state.TRACES_VIEW.name).options[0].startswith("invoke_agent bot-10")
    at.text_input(key=state.TRACES_SEARCH.name).input("bot-0").run()  # a new search: its first page
    assert len(trace_table(at)) == 9
    assert not any(c.value.startswith("Page ") for c in at.caption)


def texts(at) -> str:
    """Every message, caption and markdown on the page, in one string."""
    parts = [e.value for kind in ("markdown", "caption", "info", "warning") for e in at.get(kind)]
    return " ".join(parts)


def score_button(at):
    return at.button(key=state.TRACES_SCORE.name)


def test_score_traces_and_store_them_linked_to_trace_and_span(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    agent_version(studio_db, fake_judge.base_url)
    fake_judge.reply({"verdict": "yes"}, when="Please cancel order 4821")
    fake_judge.reply({"verdict": "no"})
    at = upload(open_page("traces", timeout=JUDGE_TIMEOUT), "support_agent.otlp.jsonl")
    assert at.selectbox(key=state.TRACES_SCORER.name).options == ["agent-answered · version 1"]
    assert len(at.multiselect(key=state.TRACES_SELECTED.name).value) == 2  # imported: chosen
    assert "**2 traces chosen.** agent-answered can score all 2." in texts(at)
    assert "up to 2 times (1 per trace)" in texts(at)
    assert "already scored" not in texts(at)
    assert score_button(at).label == "Score 2 traces"
    score_button(at).click().run()
    assert not at.exception
    assert fake_judge.request_count == 2
    rows = {r.trace_id: r for r in stored(studio_db)}
    assert set(rows) == {SUPPORT_TRACE, SUMMARY_TRACE}
    support = rows[SUPPORT_TRACE]
    assert support.outcome == "scored"
    assert support.score == 1.0
    assert support.span_id == "051581bf3cb55c13"  # the agent's root span
    assert support.run_id is None
    assert support.example_id is None
    assert support.dataset_id is None
    assert "refund" in support.prompts["analyze"]
    assert support.judge["analyze"]["status"] == "success"
    assert support.attempts == 1
    assert support.total_tokens > 0
    assert any("Scored 2 traces with agent-answered · version 1" in t.value for t in at.toast)
    (scores,) = [df.value for df in at.dataframe if "Outcome" in df.value.columns]
    assert sorted(scores["Score"]) == ["0.00", "1.00"]
    summary = "**2 stored scores**: mean **0.50** over 2 scored (from 0.00 to 1.00); 2 scored."
    assert any(m.value == summary for m in at.markdown)
    assert list(trace_table(at)["Stored scores"]) == [1, 1]
    # The choice stays; what is said about it follows the new scores at once.
    assert len(at.multiselect(key=state.TRACES_SELECTED.name).value) == 2
    assert score_button(at).label == "Score 2 traces"
    assert "All 2 were already scored by this version" in texts(at)
    assert "None of the chosen traces has been scored" not in texts(at)


def test_one_choice_behind_the_list_the_picker_the_counts_and_the_button(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    agent_version(studio_db, fake_judge.base_url)
    fake_judge.reply({"verdict": "yes"})
    with session_scope(studio_db) as session:
        save_traces(session, traces=small_traces(3), source="three.jsonl")
    at = open_page("traces", timeout=JUDGE_TIMEOUT)
    three = [f"{n:032x}" for n in (3, 2, 1)]
    assert at.multiselect(key=state.TRACES_SELECTED.name).value == three  # the listed ones
    at.multiselect(key=state.TRACES_SELECTED.name).set_value(three[:2]).run()
    assert list(trace_table(at)["Chosen"]) == [True, True, False]
    assert "2 traces chosen for scoring." in texts(at)
    assert "**2 traces chosen.**" in texts(at)
    assert score_button(at).label == "Score 2 traces"
    # An import adds its traces to the choice; the others stay chosen.
    at = upload(at, "weather.mastra.json")
    chosen = at.multiselect(key=state.TRACES_SELECTED.name).value
    assert chosen == [*three[:2], WEATHER_TRACE]
    assert "**3 traces chosen.**" in texts(at)
    assert score_button(at).label == "Score 3 traces"
    assert dict(zip(trace_table(at)["Trace"], trace_table(at)["Chosen"], strict=True)) == {
        WEATHER_TRACE: True,
        three[0]: True,
        three[1]: True,
        three[2]: False,
    }
    # Adding one never clears the others.
    at.button(key=state.TRACES_CHOOSE_PAGE.name).click().run()
    assert at.multiselect(key=state.TRACES_SELECTED.name).value == [*chosen, three[2]]
    assert score_button(at).label == "Score 4 traces"
    assert at.button(key=state.TRACES_CHOOSE_PAGE.name).disabled
    score_button(at).click().run()
    assert not at.exception
    assert len(stored(studio_db)) == 4
    assert "All 4 were already scored by this version" in texts(at)
    assert score_button(at).label == "Score 4 traces"
    at.button(key=state.TRACES_CHOOSE_NONE.name).click().run()
    assert "No trace is chosen yet." in texts(at)
    assert score_button(at).label == "Score traces"
    assert score_button(at).disabled
    assert "up to 0" not in texts(at)


def test_a_score_opens_with_what_the_scorer_saw_in_a_new_session(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    agent_version(studio_db, fake_judge.base_url)
    fake_judge.reply({"verdict": "yes"})
    at = upload(open_page("traces", timeout=JUDGE_TIMEOUT), "support_agent.otlp.jsonl")
    at.button(key=state.TRACES_SCORE.name).click().run()
    support = next(r for r in stored(studio_db) if r.trace_id == SUPPORT_TRACE)
    # A new session, nothing uploaded: the trace comes from the store.
    at = open_page("traces", timeout=JUDGE_TIMEOUT)
    at.selectbox(key=state.TRACES_DETAIL.name).select(support.id).run()
    assert not at.exception
    assert any(e.label == "The example that was scored" for e in at.expander)
    seen = " ".join(str(j.value) for j in at.json)
    assert "Please cancel order 4821" in seen  # the user's message the scorer read, as stored
    turns = "\n".join(t.value for t in at.text)
    assert "User: Please cancel order 4821" in turns  # and as a person reads it
    facts = " ".join(c.value for c in at.caption)
    assert "051581bf3cb55c13" in facts  # the facts name the span
    page_text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.code)
    assert "refund" in page_text  # the prompt the judge got


def test_delete_asks_first_and_keeps_the_scores(studio_db, open_page):
    with session_scope(studio_db) as session:
        version = save_scorer_version(session, spec=load_spec(agent_spec("http://127.0.0.1:9")))
        traces = small_traces(3)
        save_traces(session, traces=traces, source="three.jsonl")
        outcomes = [
            TraceScoreOutcome("agent-answered", t.trace_id, None, "not_scorable", reason="why")
            for t in (traces[0], traces[0], traces[1])
        ]
        store_trace_outcomes(
            session, outcomes, scorer_id=version.scorer_id, scorer_version_id=version.id
        )
    doomed = [traces[0].trace_id, traces[1].trace_id]
    at = open_page("traces")
    assert at.button(key=state.TRACES_DELETE.name).disabled
    at.multiselect(key=state.TRACES_DELETE_CHOICE.name).set_value(doomed).run()
    at.button(key=state.TRACES_DELETE.name).click().run()
    assert any(
        w.value == "Delete 2 traces? Their 3 stored scores stay in the history." for w in at.warning
    )
    assert traces_in(studio_db) == 3  # nothing gone before the answer
    at.button(key=state.TRACES_DELETE_NO.name).click().run()
    assert not any(w.value.startswith("Delete ") for w in at.warning)
    assert traces_in(studio_db) == 3
    at.button(key=state.TRACES_DELETE.name).click().run()
    at.button(key=state.TRACES_DELETE_YES.name).click().run()
    assert not at.exception
    assert any(
        t.value == "Deleted 2 traces. Their stored scores stay in the history." for t in at.toast
    )
    assert list(trace_table(at)["Trace"]) == [traces[2].trace_id]
    assert at.multiselect(key=state.TRACES_DELETE_CHOICE.name).value == []
    assert traces_in(studio_db) == 1
    assert len(stored(studio_db)) == 3  # the scores stay
    with read_session(studio_db) as session:
        assert get_trace(session, trace_id=traces[2].trace_id).trace_id == traces[2].trace_id


def test_the_demo_traces_score_with_the_keyless_demo_scorer(demo_db, open_page, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = open_page("traces")
    assert not at.exception
    assert len(trace_table(at)) == 3  # seeded from data/traces
    # Offered first: the scorer that can run here (the other demo agent scorer needs a key).
    picker = at.selectbox(key=state.TRACES_SCORER.name)
    assert picker.format_func(picker.value) == "Tool calls that worked · version 1"
    assert not at.warning
    assert "never calls a judge" in texts(at)
    score_button(at).click().run()
    assert not at.exception
    scores = {r.trace_id: r for r in stored(demo_db)}
    assert len(scores) == 3
    assert scores[SUPPORT_TRACE].score == pytest.approx(0.825)  # one of its 4 tool calls failed
    assert scores[SUPPORT_TRACE].reason == "25% of the tool calls failed."


def pick(at, label: str):
    picker = at.selectbox(key=state.TRACES_SCORER.name)
    return picker.select_index(picker.options.index(label)).run()  # options read as shown


def test_the_demo_judge_scorer_can_score_the_demo_traces_once_its_key_is_added(
    demo_db, open_page, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = pick(open_page("traces"), "Tool-call accuracy · version 1")
    assert "Tool-call accuracy can score all 3." in texts(at)  # the demo traces' expected tools
    assert "up to 3 times (1 per trace)" in texts(at)
    (warning,) = at.warning
    assert warning.value.startswith("Its judge needs an API key in OPENAI_API_KEY")
    assert "use one of your saved judges" in warning.value
    assert "restart" not in warning.value
    # Its judge is its own settings: the way out is its Judge… panel, not an unrelated judge.
    fix = at.button(key=state.TRACES_FIX_JUDGE.name)
    assert fix.label == "Use one of your judges, or add the key"
    assert score_button(at).label == "Score 3 traces"
    assert score_button(at).disabled  # the key first
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    ready = open_page("traces")
    picker = ready.selectbox(key=state.TRACES_SCORER.name)
    assert picker.format_func(picker.value) == "Tool-call accuracy · version 1"  # first by name
    assert not ready.warning
    assert not score_button(ready).disabled


def forget_expected(engine, trace_id: str) -> None:
    with session_scope(engine) as session:
        set_trace_expected(session, trace_id=trace_id, expected=None)


def test_a_trace_without_an_expected_answer_is_named_and_given_one_on_the_page(
    demo_db, open_page, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    forget_expected(demo_db, WEATHER_TRACE)
    at = pick(open_page("traces"), "Tool-call accuracy · version 1")
    assert WEATHER_TRACE in at.multiselect(key=state.TRACES_SELECTED.name).value
    assert score_button(at).label == "Score 2 of the 3 chosen traces"
    assert (
        "1 of the 3 chosen traces (agent run: 'weather-agent' · 12 Jun 09:15:02 · 4bf92f35…) "
        "cannot be scored by Tool-call accuracy yet" in texts(at)
    )
    assert "it has no expected answer" in texts(at)
    form = state.TRACES_EXPECTED.child(f"score.{WEATHER_TRACE}")
    assert at.radio(key=form.child("kind").name).value == "tools"  # what this scorer needs
    assert "the agent called: geocode, get_weather" in texts(at)
    at.text_input(key=form.child("tools").name).input("geocode, get_weather")
    at.button(key=f"FormSubmitter:{form.name}-Save the expected answer").click().run()
    assert not at.exception
    assert any("saved: geocode → get_weather" in t.value for t in at.toast)
    with read_session(demo_db) as session:
        assert get_trace(session, trace_id=WEATHER_TRACE).expected == ["geocode", "get_weather"]
    assert score_button(at).label == "Score 3 traces"
    assert "cannot be scored" not in texts(at)
    rows = dict(zip(trace_table(at)["Trace"], trace_table(at)["Expected answer"], strict=True))
    assert rows[WEATHER_TRACE] == "geocode → get_weather"
    assert rows[SUMMARY_TRACE] == "no tool call"


def test_when_nothing_can_be_scored_the_page_says_why_and_what_to_do(
    demo_db, open_page, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    forget_expected(demo_db, WEATHER_TRACE)
    at = open_page("traces")
    at.button(key=state.TRACES_CHOOSE_NONE.name).click().run()
    at.multiselect(key=state.TRACES_SELECTED.name).set_value([WEATHER_TRACE]).run()
    at = pick(at, "Tool-call accuracy · version 1")
    assert score_button(at).label == "Score traces"
    assert score_button(at).disabled
    page = texts(at)
    assert (
        "The chosen trace (agent run: 'weather-agent' · 12 Jun 09:15:02 · 4bf92f35…) cannot be "
        "scored by Tool-call accuracy yet" in page
    )
    assert "Give it an expected answer below, or choose a scorer that needs none." in page
    assert "0 times" not in page
    assert "Score 0" not in page


def test_no_agent_scorer_explains_what_one_is(demo_db, open_page):
    with session_scope(demo_db) as session:
        from scorer_runtime.store import archive_scorer, get_scorer

        for name in ("tool-call-accuracy", "tool-health"):  # the demo's agent scorers
            archive_scorer(session, scorer_id=get_scorer(session, name=name).id)
    at = upload(open_page("traces"), "weather.mastra.json")
    assert any("There is no agent scorer yet" in i.value for i in at.info)


def test_a_failing_judge_is_stored_as_a_judge_error(studio_db, open_page, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    agent_version(studio_db, fake_judge.base_url)
    fake_judge.fault(status=401, times=None)
    at = upload(open_page("traces", timeout=JUDGE_TIMEOUT), "weather.otlp.json")
    at.button(key=state.TRACES_SCORE.name).click().run()
    assert not at.exception
    (row,) = stored(studio_db)
    assert row.trace_id == WEATHER_TRACE
    assert row.outcome == "provider_error"
    assert row.score is None
    assert row.failed_step == "analyze"
    assert row.error
    (scores,) = [df.value for df in at.dataframe if "Outcome" in df.value.columns]
    assert list(scores["Outcome"]) == ["Judge unavailable"]


def test_a_judge_key_not_set_stops_before_any_call(studio_db, open_page, fake_judge, monkeypatch):
    monkeypatch.delenv("S3_UNSET_KEY", raising=False)
    with session_scope(studio_db) as session:
        save_scorer_version(
            session, spec=load_spec(agent_spec(fake_judge.base_url, key_env="S3_UNSET_KEY"))
        )
    at = upload(open_page("traces"), "weather.mastra.json")
    assert score_button(at).disabled  # not offered before the key is added
    (warning,) = at.warning
    assert "S3_UNSET_KEY" in warning.value
    assert "use one of your saved judges" in warning.value
    assert fake_judge.request_count == 0
    assert stored(studio_db) == []


def test_the_scorer_picker_opens_on_the_agent_scorer_being_worked_on(demo_db, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from scorer_runtime.store import get_scorer
    from tests.studio.conftest import APP

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # it opens on it even without its key
    with read_session(demo_db) as session:
        current = get_scorer(session, name="tool-call-accuracy").id
    at = AppTest.from_file(str(APP), default_timeout=30)
    at.run()
    at.session_state[state.CURRENT_SCORER_ID.name] = current  # saved or run on another page
    at.switch_page("app_pages/traces/page.py")
    at.run()
    picker = at.selectbox(key=state.TRACES_SCORER.name)
    assert picker.format_func(picker.value) == "Tool-call accuracy · version 1"
    assert all(" · version " in option for option in picker.options)  # names, not ids
    assert "tool-call-accuracy" not in picker.options[0]


def test_look_inside_shows_the_trace_just_picked(studio_db, open_page, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    agent_version(studio_db, fake_judge.base_url)
    with session_scope(studio_db) as session:
        save_traces(session, traces=small_traces(3), source="three.jsonl")
    at = open_page("traces")
    three = [f"{n:032x}" for n in (3, 2, 1)]
    at.multiselect(key=state.TRACES_SELECTED.name).set_value([three[0]]).run()
    assert at.selectbox(key=state.TRACES_VIEW.name).value == three[0]
    at.multiselect(key=state.TRACES_SELECTED.name).set_value([three[0], three[2]]).run()
    assert not at.exception
    assert at.selectbox(key=state.TRACES_VIEW.name).value == three[2]
    assert next(e.label for e in at.expander if "·" in e.label).startswith(
        "invoke_agent bot-01 · Agent run"
    )
    # Taking one out leaves the trace looked at as it was.
    at.multiselect(key=state.TRACES_SELECTED.name).set_value([three[2]]).run()
    assert at.selectbox(key=state.TRACES_VIEW.name).value == three[2]
