"""The Scorers page's "Judge…" panel: the demo agent scorer pointed at a saved judge (a new
version naming it, which then scores through the fake judge), or its own key pasted; and the
panel's words (Streamlit-free logic)."""

from __future__ import annotations

import os

from scorer_runtime.saved_scorers import compile_version
from scorer_runtime.spec import JudgeSpec, load_spec
from scorer_runtime.store import (
    get_scorer,
    list_versions,
    read_session,
    save_judge_profile,
    session_scope,
)
from studio import state
from studio.app_pages.scorers.judge_logic import judge_now, key_words, profile_words

SCORER = "tool-call-accuracy"


def _scorer_id(engine, name: str = SCORER) -> int:
    with read_session(engine) as session:
        return get_scorer(session, name=name).id


def _panel(at, scorer_id: int):
    at.button(key=state.SCORERS_JUDGE.child(scorer_id).name).click().run()
    assert not at.exception
    return at


def _save_profile(engine, base_url: str) -> None:
    with session_scope(engine) as session:
        save_judge_profile(
            session,
            name="my-judge",
            model="openai/local-model",
            api_base=base_url,
            api_key_env="MY_JUDGE_KEY",
            settings={"json_prompt_injection": "system"},
        )


def test_the_demo_agent_scorer_takes_a_saved_judge_and_scores_with_it(
    demo_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("MY_JUDGE_KEY", "anything")
    _save_profile(demo_db, fake_judge.base_url)
    sid = _scorer_id(demo_db)
    at = open_page("scorers")
    at.text_input(key=state.SCORERS_SEARCH.name).input("tool order").run()
    at = _panel(at, sid)
    panel = " ".join(m.value for m in at.markdown)
    assert "its own judge settings (openai/gpt-4o-mini), not a saved judge" in panel
    assert "kept in the setting `OPENAI_API_KEY`, is not set yet" in panel
    pick = at.selectbox(key=state.SCORERS_JUDGE.child(sid).child("pick").name)
    assert pick.value == "my-judge"
    assert pick.format_func("my-judge").startswith("my-judge — openai/local-model at http")
    assert any("kept in the setting `MY_JUDGE_KEY`, which is set" in c.value for c in at.caption)
    at.button(key=state.SCORERS_JUDGE.child(sid).child("use").name).click().run()
    assert not at.exception
    assert any("now uses the judge my-judge: saved as version 2" in t.value for t in at.toast)
    assert at.session_state[state.SCORERS_PENDING.name] is None
    with read_session(demo_db) as session:
        newest = list_versions(session, scorer_id=sid)[0]
        assert newest.spec.judge == "my-judge"
        scorer = compile_version(session, newest)
    fake_judge.reply("Looked the order up first.", when="Explain the score")
    result = scorer.run_sync(
        input=[{"role": "user", "content": "Where is order 7?"}],
        output=[{"role": "assistant", "content": "It ships today."}],
        ground_truth=["lookup_order"],
    )
    assert result.reason == "Looked the order up first."
    assert fake_judge.last_request is not None
    assert fake_judge.last_request.json["model"] == "local-model"
    # Opened again, the panel says which saved judge it uses now, and offers no change.
    at = _panel(at, sid)
    assert any("the saved judge **my-judge** (openai/local-model)" in m.value for m in at.markdown)
    assert at.button(key=state.SCORERS_JUDGE.child(sid).child("use").name).disabled
    assert any("It uses my-judge already" in c.value for c in at.caption)
    # Its saved judge's key missing: the way to it is that judge on the Judges page.
    monkeypatch.delenv("MY_JUDGE_KEY")
    at = _panel(at, sid)
    at.button(key=state.SCORERS_JUDGE.child(sid).child("open").name).click().run()
    assert not at.exception
    assert at.selectbox(key=state.JUDGES_PICK.name).value == "my-judge"
    assert at.text_input(key=state.JUDGES_MODEL.name).value == "openai/local-model"


def test_with_no_saved_judge_the_panel_leads_to_the_judges_page(demo_db, open_page, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = _panel(open_page("scorers"), _scorer_id(demo_db))
    assert any("No judge is saved yet" in i.value for i in at.info)
    links = [link.proto for link in at.get("page_link")]
    assert any(link.label == "Set up a judge on the Judges page" for link in links)


def test_its_own_key_can_be_pasted_in_the_panel_and_is_never_shown(demo_db, open_page, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    sid = _scorer_id(demo_db)
    at = _panel(open_page("scorers"), sid)
    paste = state.SCORERS_JUDGE.child(sid).child("paste")
    at.text_input(key=paste.child("value").name).input("sk-pasted-secret").run()
    at.button(key=paste.child("use").name).click().run()
    assert not at.exception
    assert os.environ.get("OPENAI_API_KEY") == "sk-pasted-secret"
    assert at.session_state[paste.child("value").name] == ""
    assert not any("sk-pasted-secret" in str(e.proto) for e in at.main)
    assert any("The key for OPENAI_API_KEY is set" in t.value for t in at.toast)
    monkeypatch.delenv("OPENAI_API_KEY")


def test_a_scorer_that_asks_no_judge_says_so(demo_db, open_page):
    at = _panel(open_page("scorers"), _scorer_id(demo_db, "keyword-coverage"))
    assert any("asks no judge" in i.value for i in at.info)


def test_profile_and_key_words():
    data = {"model": "ollama/llama3", "api_base": "http://x", "api_key_env": "K"}
    assert profile_words("mine", data) == "mine — ollama/llama3 at http://x"
    assert profile_words("free", {"model": "m"}) == "free — m"
    assert key_words(data, lambda _: True) == "Its key is kept in the setting `K`, which is set."
    assert "not set yet: add it on the Judges page" in key_words(data, lambda _: False)
    assert key_words({"model": "m"}, lambda _: False) == "It needs no key."


def test_judge_now_names_the_profile_or_the_own_settings():
    spec = load_spec(
        {
            "id": "s",
            "description": "d",
            "judge": "mine",
            "steps": [
                {
                    "step": "generate_score",
                    "description": "d",
                    "template": "x",
                    "output_schema": {"type": "object", "properties": {"s": {"type": "number"}}},
                    "calculate_score": {"field": "s"},
                }
            ],
        },
    )
    now = judge_now(spec, {"mine": JudgeSpec(model="m", api_key_env="K")}, lambda _: False)
    assert now is not None
    assert now.profile == "mine"
    assert now.missing == ("K",)
    assert "the saved judge **mine** (m)" in now.sentence()
