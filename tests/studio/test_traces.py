"""The traces page: import with problems listed, the span tree, scoring with an agent scorer
against the fake judge, and the scores stored linked to trace and span."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import select

from scorer_runtime.store import ScoreRecord, read_session, save_scorer_version, session_scope

FIXTURES = Path(__file__).resolve().parents[1] / "traces" / "fixtures"
SUPPORT_TRACE = "5b8aa5a2d2c872e8321cf37308d69df2"
SUMMARY_TRACE = "0af7651916cd43dd8448eb211c80319c"
KEY_ENV = "S3_TRACE_JUDGE_KEY"


def agent_spec(base_url: str, *, key_env: str = KEY_ENV) -> dict:
    """An agent scorer asking the fake judge whether the agent answered the user."""
    return {
        "id": "agent-answered",
        "description": "Whether the agent answered what the user asked.",
        "type": "agent",
        "judge": {
            "model": "openai/fake-judge",
            "api_base": base_url,
            "api_key_env": key_env,
            "instructions": "You grade support agents.",
            "json_prompt_injection": "system",
            "timeout_s": 5,
        },
        "steps": [
            {
                "step": "analyze",
                "description": "Did the agent answer?",
                "template": (
                    "User: {{ input | user_message }}\nAgent: {{ output | assistant_message }}"
                ),
                "output_schema": {
                    "type": "object",
                    "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]}},
                    "required": ["verdict"],
                },
            },
            {
                "step": "generate_score",
                "use": "label_to_score",
                "with": {
                    "mapping": {"yes": 1, "no": 0},
                    "field": "results.analyze_step_result.verdict",
                },
            },
        ],
    }


def upload(at, name: str):
    data = (FIXTURES / name).read_bytes()
    at.get("file_uploader")[0].set_value((name, data, "application/json"))
    return at.run()


def stored(engine) -> list[ScoreRecord]:
    with read_session(engine) as session:
        return list(session.exec(select(ScoreRecord).order_by(ScoreRecord.id)).all())


def test_empty_page_explains_traces(studio_db, open_page):
    at = open_page("traces")
    assert not at.exception
    assert any("A *trace* records one turn" in m.value for m in at.markdown)


def test_import_lists_problems_with_line_and_span_and_keeps_good_traces(studio_db, open_page):
    at = upload(open_page("traces"), "malformed.otlp.jsonl")
    assert not at.exception
    assert any("5 problems in malformed.otlp.jsonl" in w.value for w in at.warning)
    problems = [m.value for m in at.markdown if m.value.startswith("- **")]
    assert any(
        "Line 2 · span “abc0000000000001”" in p and "startTimeUnixNano" in p for p in problems
    )
    assert any(p.startswith("- **Line 3**: not valid JSON") for p in problems)
    assert any("Fix those lines in the file" in c.value for c in at.caption)
    (table,) = [df.value for df in at.dataframe if "Trace" in df.value.columns]
    assert len(table) == 1


def test_nothing_importable_says_what_to_do(studio_db, open_page):
    at = open_page("traces")
    at.get("file_uploader")[0].set_value(("notes.json", b'{"hello": 1}', "application/json"))
    at.run()
    assert any("nothing could be imported" in w.value for w in at.warning)
    assert any("Export the traces again" in c.value for c in at.caption)
    assert not at.dataframe


def test_trace_list_and_span_tree(studio_db, open_page):
    at = upload(open_page("traces"), "support_agent.otlp.jsonl")
    assert not at.exception
    (table,) = [df.value for df in at.dataframe if "Model calls" in df.value.columns]
    rows = {row["Trace"]: row for row in table.to_dict("records")}
    assert rows[SUPPORT_TRACE]["Spans"] == 9
    assert rows[SUPPORT_TRACE]["Model calls"] == 5
    assert rows[SUPPORT_TRACE]["Tool calls"] == 3
    assert rows[SUPPORT_TRACE]["Agent"] == "support-agent"
    assert rows[SUPPORT_TRACE]["Took"] == "6.5 s"
    labels = [e.label for e in at.expander]
    assert labels[0].startswith("invoke_agent support-agent · Agent run · 6.5 s")
    assert any(
        "↳ execute_tool issue_refund · Tool call (issue_refund) · 1.0 s · :red[failed]" in label
        for label in labels
    )
    assert sum("Model call (claude-sonnet-4)" in label for label in labels) == 5
    at.selectbox(key="traces.view").select(SUMMARY_TRACE).run()
    assert next(e.label for e in at.expander).startswith("chat gpt-4o-mini · Model call")


def test_no_agent_scorer_explains_what_one_is(demo_db, open_page, monkeypatch):
    with session_scope(demo_db) as session:
        from scorer_runtime.store import archive_scorer, get_scorer

        archive_scorer(session, scorer_id=get_scorer(session, name="tool-call-accuracy").id)
    at = upload(open_page("traces"), "weather.mastra.json")
    assert any("There is no agent scorer yet" in i.value for i in at.info)


def test_score_traces_and_store_them_linked_to_trace_and_span(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with session_scope(studio_db) as session:
        save_scorer_version(session, spec=agent_spec(fake_judge.base_url))
    fake_judge.reply({"verdict": "yes"}, when="Please cancel order 4821")
    fake_judge.reply({"verdict": "no"})
    at = upload(open_page("traces"), "support_agent.otlp.jsonl")
    assert at.selectbox(key="traces.scorer").options == ["agent-answered · version 1"]
    assert "up to 2 times (1 per trace)" in " ".join(c.value for c in at.caption)
    at.button(key="traces.score").click().run()
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
    (table,) = [df.value for df in at.dataframe if "Stored scores" in df.value.columns]
    assert list(table["Stored scores"]) == [1, 1]
    at.selectbox(key="traces.detail").select(support.id).run()
    assert not at.exception
    page_text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.code)
    assert "051581bf3cb55c13" in page_text  # the facts name the span
    assert "refund" in page_text  # the prompt the judge got


def test_a_failing_judge_is_stored_as_a_judge_error(studio_db, open_page, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with session_scope(studio_db) as session:
        save_scorer_version(session, spec=agent_spec(fake_judge.base_url))
    fake_judge.fault(status=401, times=None)
    at = upload(open_page("traces"), "weather.otlp.json")
    at.button(key="traces.score").click().run()
    assert not at.exception
    (row,) = stored(studio_db)
    assert row.outcome == "provider_error"
    assert row.score is None
    assert row.failed_step == "analyze"
    assert row.error
    (scores,) = [df.value for df in at.dataframe if "Outcome" in df.value.columns]
    assert list(scores["Outcome"]) == ["Judge unavailable"]


def test_a_judge_key_not_set_stops_before_any_call(studio_db, open_page, fake_judge, monkeypatch):
    monkeypatch.delenv("S3_UNSET_KEY", raising=False)
    with session_scope(studio_db) as session:
        save_scorer_version(session, spec=agent_spec(fake_judge.base_url, key_env="S3_UNSET_KEY"))
    at = upload(open_page("traces"), "weather.mastra.json")
    at.button(key="traces.score").click().run()
    assert not at.exception
    assert any(
        e.value.startswith("**The judge cannot be called.**") and "S3_UNSET_KEY" in e.value
        for e in at.error
    )
    assert fake_judge.request_count == 0
    assert stored(studio_db) == []


def test_a_new_file_replaces_the_traces_and_remove_clears_them(studio_db, open_page):
    at = upload(open_page("traces"), "weather.otlp.json")
    assert any("from *weather.otlp.json*" in m.value for m in at.markdown)
    at = upload(at, "http_only.otlp.json")
    assert any("from *http_only.otlp.json*" in m.value for m in at.markdown)
    at.button(key="traces.clear").click().run()
    assert not at.exception
    assert any("No traces loaded" in m.value for m in at.markdown)
    assert at.get("file_uploader")[0].value is None
