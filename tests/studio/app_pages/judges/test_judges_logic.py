"""The Judges page's Streamlit-free logic: the form, profile use, and the connection test
over real HTTP to the fake judge."""

from __future__ import annotations

import pytest

from scorer_runtime.spec import JudgeSpec
from scorer_runtime.store import (
    ConflictError,
    get_judge_profile,
    judge_profile_dict,
    read_session,
    save_judge_profile,
    save_scorer_version,
    session_scope,
)
from studio.app_pages.judges.logic import (
    JudgeForm,
    JudgeFormError,
    check_connection,
    form_of_profile,
    judge_spec,
    probe_spec,
    profile_uses,
    profile_uses_by_name,
    save_profile,
)
from studio.widgets.forms import RetryForm
from tests.store.fixtures import SCORE_ONE, judge_step, valid_spec

KEY_ENV = "STUDIO_TEST_JUDGE_KEY"


@pytest.fixture
def key_set(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")


def _judge(fake_judge, **changes) -> JudgeSpec:
    base = {"model": "openai/fake-judge", "api_base": fake_judge.base_url, "api_key_env": KEY_ENV}
    return JudgeSpec.model_validate({**base, **changes})


# -- the form --------------------------------------------------------------------------------


def test_judge_spec_lists_every_problem_by_field():
    form = JudgeForm(model=" ", api_base="localhost:11434", api_key_env="sk-abc123-secret")
    with pytest.raises(JudgeFormError) as caught:
        judge_spec(form)
    problems = caught.value.problems
    assert problems[0].startswith("Model: choose the judge's model")
    assert problems[1].startswith("Base URL: start it with http:// or https://")
    assert problems[2].startswith(
        "Where the key is kept: write the name of the setting that holds the key"
    )
    assert all("sk-abc123-secret" not in p for p in problems)  # a pasted key is never echoed


def test_judge_spec_maps_answer_format_and_leaves_empty_fields_out():
    spec = judge_spec(JudgeForm(model="ollama/llama3", json_mode="system", retry=None))
    assert spec.model_dump(exclude_none=True) == {
        "model": "ollama/llama3",
        "json_prompt_injection": "system",
        "timeout_s": 60.0,
        "harden_prompt": True,  # a new judge marks the judged text as data
    }
    unticked = judge_spec(JudgeForm(model="ollama/llama3", retry=None, harden_prompt=False))
    assert unticked.harden_prompt is None  # off is the setting left out
    native = judge_spec(JudgeForm(model="openai/gpt-4o-mini", json_mode="native"))
    assert native.json_prompt_injection is False
    assert native.retry is not None
    assert native.retry.max_retries == 2


def test_save_profile_creates_refuses_a_taken_name_and_keeps_the_processors(studio_db):
    with session_scope(studio_db) as session:
        save_judge_profile(
            session,
            name="strict",
            model="openai/gpt-4o-mini",
            api_key_env="OPENAI_API_KEY",
            settings={"instructions": "Be strict.", "redact_pii": {}, "temperature": 0},
        )
    with read_session(studio_db) as session:
        form = form_of_profile(
            "strict", judge_profile_dict(get_judge_profile(session, name="strict"))
        )
    assert (form.model, form.instructions, form.temperature, form.retry) == (
        "openai/gpt-4o-mini",
        "Be strict.",
        0,
        None,
    )
    assert form.kept == {}
    assert form.processors.redact
    assert not form.processors.shorten
    with pytest.raises(ConflictError, match="already exists"), session_scope(studio_db) as session:
        save_profile(session, form, new=True)
    form.model = "anthropic/claude-3-5-haiku-latest"
    form.retry = RetryForm(max_retries=1)
    with session_scope(studio_db) as session:
        save_profile(session, form, new=False)
    with read_session(studio_db) as session:
        saved = judge_profile_dict(get_judge_profile(session, name="strict"))
    assert saved["model"] == "anthropic/claude-3-5-haiku-latest"
    assert saved["redact_pii"] == {}
    assert saved["retry"] == {"max_retries": 1}
    assert saved["api_key_env"] == "OPENAI_API_KEY"


def test_save_profile_needs_a_name(studio_db):
    with pytest.raises(JudgeFormError) as caught, session_scope(studio_db) as session:
        save_profile(session, JudgeForm(model=""), new=True)
    assert [p.split(":")[0] for p in caught.value.problems] == ["Name", "Model"]


# -- which scorers use a profile -------------------------------------------------------------


def test_profile_uses_finds_scorer_and_step_references(studio_db):
    on_scorer = valid_spec("a", judge="strict")
    on_step = valid_spec("b", steps=[judge_step(judge="strict"), SCORE_ONE])
    other = valid_spec("b", judge={"model": "openai/x"})
    with session_scope(studio_db) as session:
        save_scorer_version(session, spec=on_scorer)
        save_scorer_version(session, spec=on_step)
        save_scorer_version(session, spec=other)  # b's latest no longer names it
    with read_session(studio_db) as session:
        uses = profile_uses(session, name="strict")
        assert profile_uses(session, name="lenient") == []
        assert set(profile_uses_by_name(session)) == {"strict"}
    assert [use.sentence() for use in uses] == [
        "a (version 1, the latest)",
        "b (version 1)",
    ]


# -- the connection test, over real HTTP -----------------------------------------------------


def test_probe_spec_turns_retries_off_and_shortens_the_timeout(fake_judge):
    spec = probe_spec(_judge(fake_judge, timeout_s=120, retry={"max_retries": 5}), timeout_s=10)
    assert spec["judge"]["timeout_s"] == 10
    assert "retry" not in spec["judge"]
    assert spec["judge"]["instructions"]  # a judge without instructions can still be tested


def test_a_working_judge_connects(fake_judge, key_set):
    fake_judge.reply({"ok": True}, when="connection test")
    result = check_connection(_judge(fake_judge, instructions="Grade strictly."))
    assert result.status == "connected"
    assert result.ok
    assert result.title.startswith("Connected: the judge answered in ")
    assert result.seconds is not None
    assert 0 < result.seconds < 10
    assert result.answer == '{"ok": true}'
    assert fake_judge.request_count == 1
    request = fake_judge.chat_requests[0]
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.json["messages"][0]["content"].startswith("Grade strictly.")


def test_a_refused_key_is_said_in_plain_words(fake_judge, key_set):
    fake_judge.fault(status=401, times=None)
    result = check_connection(_judge(fake_judge, retry={"max_retries": 3}))
    assert (result.status, result.title) == ("failed", "The provider refused the key")
    assert result.detail == "HTTP 401: Incorrect API key provided."
    assert "environment variable" in result.what_to_do
    assert fake_judge.request_count == 1  # no retries in a test


def test_an_unknown_model_is_said_in_plain_words(fake_judge, key_set):
    fake_judge.fault(status=404)
    result = check_connection(_judge(fake_judge))
    assert result.title == "The provider rejected the request"
    assert "The model does not exist" in result.detail
    assert "openai/gpt-4o-mini" in result.what_to_do


def test_a_refused_connection_is_said_in_plain_words(refused_base_url, key_set):
    spec = JudgeSpec(model="openai/fake-judge", api_base=refused_base_url, api_key_env=KEY_ENV)
    result = check_connection(spec)
    assert (result.status, result.title) == ("failed", "The judge could not be reached")
    assert "base URL" in result.what_to_do


def test_a_slow_judge_times_out(fake_judge, key_set):
    fake_judge.fault(latency_s=3)
    fake_judge.reply({"ok": True})
    result = check_connection(_judge(fake_judge), timeout_s=0.5)
    assert (result.status, result.title) == ("failed", "The judge did not answer within 500 ms")


def test_an_answer_that_is_not_json_is_connected_but_flagged(fake_judge, key_set):
    fake_judge.reply("Sure! Everything is fine.")
    result = check_connection(_judge(fake_judge))
    assert result.status == "format"
    assert result.ok
    assert result.title.startswith("Connected, but the judge's answer was not in the shape")
    assert result.answer == "Sure! Everything is fine."
    assert "Answer only with JSON" in result.what_to_do


def test_a_missing_key_variable_sends_nothing(fake_judge, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    result = check_connection(_judge(fake_judge))
    assert (result.status, result.title) == ("failed", "The key is not set")
    assert KEY_ENV in result.what_to_do
    assert fake_judge.request_count == 0


def test_a_test_never_retries_even_with_a_retry_policy(fake_judge, key_set):
    fake_judge.fault(status=503, times=None)
    result = check_connection(_judge(fake_judge, retry={"max_retries": 4, "delay": 10}))
    assert (result.status, result.title) == ("failed", "The provider had an error on its side")
    assert fake_judge.request_count == 1
