"""The Judges page, driven like a person would: create, edit, test the connection against the
fake judge over real HTTP, and delete after a question naming the scorers that use it."""

from __future__ import annotations

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    get_judge_profile,
    judge_profile_dict,
    list_judge_profiles,
    read_session,
    save_judge_profile,
    save_scorer_version,
    session_scope,
)
from studio import state

KEY_ENV = "STUDIO_PAGE_JUDGE_KEY"


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]
    return "\n".join(str(p) for p in parts)


def _profile(engine, name: str) -> dict | None:
    with read_session(engine) as session:
        names = [p.name for p in list_judge_profiles(session)]
        return judge_profile_dict(get_judge_profile(session, name=name)) if name in names else None


def _fill(at, **values) -> None:
    for key, value in values.items():
        at.text_input(key=getattr(state, "JUDGES_" + key.upper().replace("-", "_")).name).input(
            value
        )
    at.run()


def test_create_a_judge_with_a_retry_policy(studio_db, open_page, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    at = open_page("judges")
    assert "No judges yet" in _texts(at)
    _fill(at, name="strict", model="openai/gpt-4o-mini", **{"key-env": KEY_ENV})
    assert "Not set" in _texts(at)  # the key's variable is named, shown as not set
    at.number_input(key=state.JUDGES_RETRY.child("retries").name).set_value(3).run()
    assert "Up to 4 attempts per judge request" in _texts(at)
    at.radio(key=state.JUDGES_JSON_MODE.name).set_value("system").run()
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert not at.exception
    saved = _profile(studio_db, "strict")
    assert saved is not None
    assert saved["model"] == "openai/gpt-4o-mini"
    assert saved["api_key_env"] == KEY_ENV
    assert saved["json_prompt_injection"] == "system"
    assert saved["retry"] == {"max_retries": 3}
    assert at.toast[0].value == "Saved the judge strict."
    assert at.selectbox(key=state.JUDGES_PICK.name).value == "strict"
    assert at.text_input(key=state.JUDGES_NAME.name).disabled


def test_problems_are_listed_by_field_and_nothing_is_saved(studio_db, open_page):
    at = open_page("judges")
    _fill(at, name="bad", **{"api-base": "localhost:8000"})
    at.button(key=state.JUDGES_SAVE.name).click().run()
    text = _texts(at)
    assert "The judge is not saved yet" in text
    assert "A new judge needs a name and a model before anything else" in text
    assert "Model: choose the judge's model" in text
    assert "Base URL: start it with http://" in text
    assert _profile(studio_db, "bad") is None


def test_edit_a_saved_judge(studio_db, open_page, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with session_scope(studio_db) as session:
        save_judge_profile(
            session,
            name="local",
            model="ollama/llama3",
            api_base="http://localhost:11434",
            api_key_env=KEY_ENV,
            settings={"instructions": "Grade.", "output_guard": {"patterns": ["as an ai"]}},
        )
    at = open_page("judges")
    at.selectbox(key=state.JUDGES_PICK.name).set_value("local").run()
    assert at.text_input(key=state.JUDGES_MODEL.name).value == "ollama/llama3"
    assert at.text_area(key=state.JUDGES_INSTRUCTIONS.name).value == "Grade."
    assert not at.toggle(key=state.JUDGES_RETRY.child("on").name).value
    assert "Set" in _texts(at)
    processors = state.JUDGES_PROCESSORS
    assert at.toggle(key=processors.child("guard").name).value  # its file's output guard
    assert at.text_area(key=processors.child("phrases").name).value == "as an ai"
    at.text_input(key=state.JUDGES_MODEL.name).input("ollama/qwen2").run()
    at.button(key=state.JUDGES_SAVE.name).click().run()
    saved = _profile(studio_db, "local")
    assert saved["model"] == "ollama/qwen2"
    assert saved["output_guard"] == {"patterns": ["as an ai"]}
    assert "retry" not in saved


def test_test_connection_succeeds_against_the_fake_judge(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"ok": True})
    at = open_page("judges")
    _fill(at, model="openai/fake-judge", **{"api-base": fake_judge.base_url, "key-env": KEY_ENV})
    at.button(key=state.JUDGES_TEST.name).click().run()
    assert not at.exception
    assert at.success[0].value.startswith("Connected: the judge answered in ")
    assert fake_judge.request_count == 1
    assert _profile(studio_db, "") is None  # testing does not save


def test_test_connection_explains_a_refused_key(studio_db, open_page, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-wrong")
    fake_judge.fault(status=401)
    at = open_page("judges")
    _fill(at, model="openai/fake-judge", **{"api-base": fake_judge.base_url, "key-env": KEY_ENV})
    at.button(key=state.JUDGES_TEST.name).click().run()
    assert "The provider refused the key" in at.error[0].value
    assert "Incorrect API key provided" in at.error[0].value
    assert "holds a valid key" in _texts(at)
    assert "sk-wrong" not in _texts(at)


def test_test_connection_explains_a_refused_connection(
    studio_db, open_page, refused_base_url, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    at = open_page("judges")
    _fill(at, model="openai/fake-judge", **{"api-base": refused_base_url, "key-env": KEY_ENV})
    at.button(key=state.JUDGES_TEST.name).click().run()
    assert "The judge could not be reached" in at.error[0].value
    assert "Check the model's base URL" in _texts(at)


def test_delete_asks_first_and_names_the_scorers_using_the_judge(studio_db, open_page):
    with session_scope(studio_db) as session:
        save_judge_profile(session, name="strict", model="openai/gpt-4o-mini")
        save_judge_profile(
            session, name="capped", model="openai/gpt-4o", settings={"default_max_cost": 2.5}
        )
        save_scorer_version(
            session,
            spec=load_spec(
                {
                    "id": "politeness",
                    "description": "d",
                    "judge": "strict",
                    "steps": [{"step": "generate_score", "formula": "1"}],
                }
            ),
        )
    at = open_page("judges")
    table = at.dataframe[0].value
    assert "1 scorer" in str(table["Used by"].tolist())
    caps = dict(zip(table["Judge"], table["Runs stop at"], strict=True))
    assert caps == {"capped": "$2.5000", "strict": "no cap"}
    at.selectbox(key=state.JUDGES_PICK.name).set_value("strict").run()
    at.button(key=state.JUDGES_DELETE.name).click().run()
    text = _texts(at)
    assert "1 scorer uses the judge strict" in text
    assert "politeness (version 1, the latest)" in text
    assert _profile(studio_db, "strict") is not None  # only asked so far
    at.button(key=state.JUDGES_DELETE_YES.name).click().run()
    assert not at.exception
    assert _profile(studio_db, "strict") is None
    assert at.selectbox(key=state.JUDGES_PICK.name).value == ""
    assert at.text_input(key=state.JUDGES_MODEL.name).value == ""
    assert at.toast[0].value == "Deleted the judge strict."


def test_hidden_retry_fields_come_back_with_their_defaults(studio_db, open_page):
    at = open_page("judges")
    at.checkbox(key=state.JUDGES_RETRY.child("growing").name).uncheck().run()
    assert "Up to 3 attempts per judge request; waits 1 s, then 1 s" in _texts(at)
    at.checkbox(key=state.JUDGES_RETRY.child("growing").name).check().run()
    assert at.number_input(key=state.JUDGES_RETRY.child("factor").name).value == 2.0
    at.toggle(key=state.JUDGES_RETRY.child("on").name).set_value(False).run()
    assert "No retries: a failed judge request fails the step at once." in _texts(at)
    at.toggle(key=state.JUDGES_RETRY.child("on").name).set_value(True).run()
    assert at.number_input(key=state.JUDGES_RETRY.child("retries").name).value == 2
    assert "Up to 3 attempts per judge request; waits 1 s, then 2 s" in _texts(at)


def test_switching_judges_loads_each_one(studio_db, open_page):
    with session_scope(studio_db) as session:
        save_judge_profile(session, name="a", model="openai/gpt-4o-mini")
        save_judge_profile(session, name="b", model="ollama/llama3", settings={"timeout_s": 9})
    at = open_page("judges")
    at.selectbox(key=state.JUDGES_PICK.name).set_value("a").run()
    assert at.text_input(key=state.JUDGES_MODEL.name).value == "openai/gpt-4o-mini"
    at.selectbox(key=state.JUDGES_PICK.name).set_value("b").run()
    assert at.text_input(key=state.JUDGES_MODEL.name).value == "ollama/llama3"
    assert at.number_input(key=state.JUDGES_TIMEOUT.name).value == 9
    at.selectbox(key=state.JUDGES_PICK.name).set_value("").run()
    assert at.text_input(key=state.JUDGES_MODEL.name).value == ""
    assert not at.text_input(key=state.JUDGES_NAME.name).disabled


def test_a_bad_status_code_is_explained_and_nothing_is_saved(studio_db, open_page):
    at = open_page("judges")
    _fill(at, name="busy", model="openai/gpt-4o-mini")
    at.text_input(key=state.JUDGES_RETRY.child("statuses").name).input("529, busy").run()
    problem = "Retries: busy is not an HTTP status code (a number like 529)"
    assert [e.value for e in at.error] == [problem]  # said next to the fields at once
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert problem in _texts(at)
    assert "The judge is not saved yet" in _texts(at)
    assert "nothing was changed" in _texts(at)
    assert _profile(studio_db, "busy") is None
    at.text_input(key=state.JUDGES_RETRY.child("statuses").name).input("529").run()
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert _profile(studio_db, "busy")["retry"] == {"retry_on_status": [529]}


def test_a_judge_with_extra_errors_opens_with_them(studio_db, open_page):
    policy = {"max_retries": 4, "retry_on_status": [529], "retry_unknown_errors": True}
    with session_scope(studio_db) as session:
        save_judge_profile(
            session, name="busy", model="openai/gpt-4o-mini", settings={"retry": policy}
        )
    at = open_page("judges")
    at.selectbox(key=state.JUDGES_PICK.name).set_value("busy").run()
    assert at.number_input(key=state.JUDGES_RETRY.child("retries").name).value == 4
    assert at.text_input(key=state.JUDGES_RETRY.child("statuses").name).value == "529"
    assert at.checkbox(key=state.JUDGES_RETRY.child("unknown").name).value
    assert "also retries 529; also retries unknown errors" in _texts(at)
    at.toggle(key=state.JUDGES_RETRY.child("on").name).set_value(False).run()
    at.toggle(key=state.JUDGES_RETRY.child("on").name).set_value(True).run()
    assert (
        at.number_input(key=state.JUDGES_RETRY.child("retries").name).value == 4
    )  # this judge's, not a new one's
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert _profile(studio_db, "busy")["retry"] == policy


def test_a_judge_hides_shortens_and_stops_set_in_the_form(studio_db, open_page):
    at = open_page("judges")
    _fill(at, name="private", model="openai/gpt-4o-mini")
    form = state.JUDGES_PROCESSORS
    at.toggle(key=form.child("redact").name).set_value(True).run()
    at.checkbox(key=form.child("kind.phone").name).uncheck().run()
    at.text_input(key=form.child("rule.0.name").name).input("ticket")
    at.text_input(key=form.child("rule.0.pattern").name).input("T-(").run()
    # A pattern that does not compile is refused in words, at its place.
    assert "rule 'ticket' is not a valid pattern" in _texts(at)
    assert "at character 3" in _texts(at)
    at.text_input(key=form.child("rule.0.pattern").name).input(r"T-\d{6}").run()
    at.text_area(key=form.child("sample").name).input("Ticket T-123456 from a@b.io").run()
    assert at.code[0].value == "Ticket [REDACTED:ticket] from [REDACTED:email]"
    at.toggle(key=form.child("shorten").name).set_value(True).run()
    at.number_input(key=form.child("budget").name).set_value(0).run()
    assert "Shorten long prompts: the budget must be more than 0 characters" in _texts(at)
    at.number_input(key=form.child("budget").name).set_value(2000).run()
    at.radio(key=form.child("keep").name).set_value("tail").run()
    at.toggle(key=form.child("guard").name).set_value(True).run()
    at.text_area(key=form.child("phrases").name).input("out of scope").run()
    at.text_input(key=form.child("message").name).input("The judge refused.").run()
    at.text_area(key=form.child("answer").name).input("That is out of scope.").run()
    assert "This answer would be stopped (it matches 'out of scope')" in _texts(at)
    assert "“The judge refused.”" in _texts(at)
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert not at.exception
    saved = _profile(studio_db, "private")
    assert saved["redact_pii"] == {
        "kinds": ["email", "card", "api_key"],
        "patterns": {"ticket": r"T-\d{6}"},
    }
    assert saved["truncate"] == {"max_chars": 2000, "keep": "tail"}
    assert saved["output_guard"]["patterns"][-1] == "out of scope"
    assert saved["output_guard"]["message"] == "The judge refused."


def test_a_judge_with_a_bad_pattern_is_not_saved(studio_db, open_page):
    at = open_page("judges")
    _fill(at, name="greedy", model="openai/gpt-4o-mini")
    form = state.JUDGES_PROCESSORS
    at.toggle(key=form.child("guard").name).set_value(True).run()
    at.text_area(key=form.child("patterns").name).input(r"^(\w+\s?)*$").run()
    assert "could take very long on a long text" in _texts(at)
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert not at.exception
    assert _profile(studio_db, "greedy") is None


def test_extra_rules_are_added_and_removed(studio_db, open_page):
    at = open_page("judges")
    _fill(at, name="rules", model="openai/gpt-4o-mini")
    form = state.JUDGES_PROCESSORS
    at.toggle(key=form.child("redact").name).set_value(True).run()
    for index, (name, pattern) in enumerate([("a", "A-1"), ("b", "B-2"), ("c", "C-3")]):
        if index:
            at.button(key=form.child("rule_add").name).click().run()
        at.text_input(key=form.child(f"rule.{index}.name").name).input(name)
        at.text_input(key=form.child(f"rule.{index}.pattern").name).input(pattern).run()
    at.button(key=form.child("rule.1.remove").name).click().run()
    names = [at.text_input(key=form.child(f"rule.{i}.name").name).value for i in range(2)]
    assert names == ["a", "c"]
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert _profile(studio_db, "rules")["redact_pii"] == {"patterns": {"a": "A-1", "c": "C-3"}}


def test_a_judge_s_default_spend_cap_is_saved_or_refused_in_words(studio_db, open_page):
    at = open_page("judges")
    _fill(at, name="capped", model="openai/gpt-4o-mini", **{"default-cap": "ten"})
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert "Stop a run at $: The spend cap 'ten' is not an amount" in _texts(at)
    assert _profile(studio_db, "capped") is None
    _fill(at, **{"default-cap": "$3"})
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert not at.exception
    assert _profile(studio_db, "capped")["default_max_cost"] == 3.0
    again = open_page("judges")
    again.selectbox(key=state.JUDGES_PICK.name).set_value("capped").run()
    assert again.text_input(key=state.JUDGES_DEFAULT_CAP.name).value == "3"  # read back


def test_a_judge_s_rate_limit_is_saved_shown_and_read_back(studio_db, open_page):
    at = open_page("judges")
    _fill(at, name="limited", model="openai/gpt-4o-mini")
    at.number_input(key=state.JUDGES_REQUESTS_PER_MINUTE.name).set_value(600).run()
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert not at.exception
    assert _profile(studio_db, "limited")["requests_per_minute"] == 600
    again = open_page("judges")
    table = again.dataframe[0].value
    limits = dict(zip(table["Judge"], table["Rate limit"], strict=True))
    assert limits["limited"] == "600 requests a minute"
    again.selectbox(key=state.JUDGES_PICK.name).set_value("limited").run()
    assert again.number_input(key=state.JUDGES_REQUESTS_PER_MINUTE.name).value == 600
    assert again.number_input(key=state.JUDGES_TOKENS_PER_MINUTE.name).value is None


def test_a_new_judge_marks_the_judged_text_as_data_unless_unticked(studio_db, open_page):
    at = open_page("judges")
    box = at.checkbox(key=state.JUDGES_HARDEN.name)
    assert box.label == "Mark the judged text as data (recommended)"
    assert box.value  # on for a new judge
    _fill(at, name="hardened", model="openai/gpt-4o-mini")
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert _profile(studio_db, "hardened")["harden_prompt"] is True


def test_a_new_judge_unticked_is_saved_without_the_setting(studio_db, open_page):
    at = open_page("judges")
    _fill(at, name="plain", model="openai/gpt-4o-mini")
    at.checkbox(key=state.JUDGES_HARDEN.name).uncheck().run()
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert not at.exception
    assert "harden_prompt" not in _profile(studio_db, "plain")


def test_a_judge_saved_before_the_setting_opens_unticked_and_saves_unchanged(studio_db, open_page):
    with session_scope(studio_db) as session:
        save_judge_profile(
            session, name="older", model="openai/gpt-4o-mini", settings={"instructions": "Grade."}
        )
    at = open_page("judges")
    at.selectbox(key=state.JUDGES_PICK.name).set_value("older").run()
    assert not at.checkbox(key=state.JUDGES_HARDEN.name).value
    at.text_area(key=state.JUDGES_INSTRUCTIONS.name).input("Grade strictly.").run()
    at.button(key=state.JUDGES_SAVE.name).click().run()
    saved = _profile(studio_db, "older")
    assert saved["instructions"] == "Grade strictly."
    assert "harden_prompt" not in saved
