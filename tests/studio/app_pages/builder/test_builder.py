"""The builder: a scorer built entirely through the form widgets, tried, and saved."""

from __future__ import annotations

import re

from sqlmodel import select

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    get_judge_profile,
    judge_profile_dict,
    read_session,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.store.tables import DraftRecord, ScorerVersionRecord
from studio import state

B0 = state.BUILDER_FORM.child(0).name
B1 = state.BUILDER_FORM.child(1).name


def _stage(at, name):
    at.segmented_control(key=f"{B0}.stage").set_value(name).run()
    assert not at.exception, at.exception


def test_build_try_and_save_a_two_step_scorer(studio_db, open_page, fake_judge, monkeypatch):
    monkeypatch.setenv("FAKE_JUDGE_KEY", "sk-test")
    fake_judge.reply({"verdict": "yes", "explanation": "Polite and helpful."})
    at = open_page("builder")
    assert not at.exception

    at.text_input(key=f"{B0}.basics.name").input("Polite answers").run()
    at.text_area(key=f"{B0}.basics.description").input("Is the support answer polite?").run()

    _stage(at, "judge")
    at.text_input(key=f"{B0}.judge.settings.model").input("openai/fake-judge").run()
    at.text_input(key=f"{B0}.judge.settings.env").input("FAKE_JUDGE_KEY").run()
    at.text_input(key=f"{B0}.judge.settings.base").input(fake_judge.base_url).run()
    at.selectbox(key=f"{B0}.judge.settings.json").set_value("system").run()
    at.text_area(key=f"{B0}.judge.settings.instructions").input("You grade politeness.").run()
    assert any("set on this machine" in c.value for c in at.caption)
    hardened = at.checkbox(key=f"{B0}.judge.settings.harden")
    assert hardened.label == "Mark the judged text as data (recommended)"
    assert hardened.value  # a new scorer's judge marks the judged text as data

    _stage(at, "steps")
    at.radio(key=f"{B0}.steps.analyze.how").set_value("judge").run()
    at.text_input(key=f"{B0}.steps.analyze.judge.description").input("Is it polite?").run()
    at.text_area(key=f"{B0}.steps.analyze.judge.template").input(
        "Is this answer polite? {{ output }}"
    ).run()
    at.radio(key=f"{B0}.steps.generate_score.how").set_value("builtin").run()
    at.selectbox(key=f"{B0}.steps.generate_score.builtin.use").set_value("label_to_score").run()
    # The label to read and its scores are chosen for the person: the judge's answer of
    # step 2 has one "one of" field, verdict (yes, partial, no).
    prefix = f"{B0}.steps.generate_score.builtin.label_to_score"
    field = at.selectbox(key=f"{prefix}.field")
    assert field.value == "step2.verdict"
    assert "Step 2, the judge's answer › verdict" in field.options
    scores = {label: at.number_input(key=f"{prefix}.mapping.score.{label}").value
              for label in ("yes", "partial", "no")}  # fmt: skip
    assert scores == {"yes": 1.0, "partial": 0.5, "no": 0.0}
    assert not at.exception, at.exception

    _stage(at, "try")
    at.text_area(key=f"{B0}.example.input").input("Where is my order?").run()
    at.text_area(key=f"{B0}.example.output").input("Happy to help! It arrives tomorrow.").run()
    at.button(key=f"{B0}.try.run").click().run()
    assert not at.exception, at.exception
    assert [m.value for m in at.metric] == ["1.00"]
    prompt = fake_judge.last_request.last_user_content
    code = re.fullmatch(r"Is this answer polite\? <<<DATA ([0-9a-f]{16})\n.*", prompt, re.DOTALL)
    assert code is not None, prompt
    nonce = code.group(1)
    assert prompt.endswith(f"\nHappy to help! It arrives tomorrow.\nDATA {nonce}>>>")

    _stage(at, "save")
    assert not [w.value for w in at.warning], [w.value for w in at.warning]
    at.text_input(key=f"{B0}.save.note").input("First version").run()
    at.button(key=f"{B0}.save.save").click().run()
    assert not at.exception, at.exception
    assert any("Saved version 1" in s.value for s in at.success)

    with session_scope(studio_db) as session:
        version = session.exec(select(ScorerVersionRecord)).one()
    assert version.note == "First version"
    # The header names the saved scorer, and the other pages open on it.
    assert any("Editing **Polite answers**" in m.value for m in at.markdown)
    assert at.session_state[state.CURRENT_SCORER_ID.name] == version.scorer_id
    spec = version.spec
    assert spec["id"] == "polite-answers"
    assert spec["judge"]["api_key_env"] == "FAKE_JUDGE_KEY"
    assert spec["judge"]["harden_prompt"] is True
    assert "sk-test" not in str(spec)
    assert [s["step"] for s in spec["steps"]] == ["analyze", "generate_score"]
    assert spec["steps"][1]["use"] == "label_to_score"


def test_problems_are_shown_next_to_the_step(studio_db, open_page):
    at = open_page("builder")
    _stage(at, "steps")
    at.text_area(key=f"{B0}.steps.generate_score.formula.text").input("__import__('os')").run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "formula: column 1: names starting with '_' are not allowed (__import__)"
    ]
    at.segmented_control(key=f"{B0}.stage").set_value("save").run()
    assert any("Fix these first" in w.value for w in at.warning)
    assert all(b.key != f"{B0}.save.save" for b in at.button)


def test_an_unreachable_judge_is_explained_in_plain_words(
    studio_db, open_page, refused_base_url, monkeypatch
):
    monkeypatch.setenv("FAKE_JUDGE_KEY", "sk-test")
    at = open_page("builder")
    at.text_input(key=f"{B0}.basics.name").input("Reachability").run()
    at.text_area(key=f"{B0}.basics.description").input("d").run()
    _stage(at, "judge")
    at.text_input(key=f"{B0}.judge.settings.model").input("openai/fake-judge").run()
    at.text_input(key=f"{B0}.judge.settings.env").input("FAKE_JUDGE_KEY").run()
    at.text_input(key=f"{B0}.judge.settings.base").input(refused_base_url).run()
    _stage(at, "steps")
    at.radio(key=f"{B0}.steps.generate_score.how").set_value("judge").run()
    _stage(at, "try")
    at.text_area(key=f"{B0}.example.output").input("Hello").run()
    at.button(key=f"{B0}.try.run").click().run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "Connection error." in errors
    tips = " ".join(c.value for c in at.caption)
    assert "could not be reached" in tips


def test_a_draft_survives_closing_the_browser(studio_db, open_page):
    at = open_page("builder")
    at.text_input(key=f"{B0}.basics.name").input("Half-built scorer").run()
    at.text_area(key=f"{B0}.basics.description").input("Not finished yet").run()
    with session_scope(studio_db) as session:
        drafts = session.exec(select(DraftRecord)).all()
    assert [d.title for d in drafts] == ["Half-built scorer"]

    later = open_page("builder")  # a new browser session: nothing in session state
    assert later.text_input(key=f"{B0}.basics.name").value == ""
    later.selectbox(key=f"{B0}.drafts.pick").set_value(drafts[0].id).run()
    later.button(key=f"{B0}.drafts.go").click().run()
    assert not later.exception, later.exception
    assert later.text_input(key=f"{B1}.basics.name").value == "Half-built scorer"
    assert later.text_area(key=f"{B1}.basics.description").value == "Not finished yet"


def test_saving_a_version_forgets_the_draft(studio_db, open_page):
    at = open_page("builder")
    at.text_input(key=f"{B0}.basics.name").input("Length check").run()
    at.text_area(key=f"{B0}.basics.description").input("Long enough").run()
    _stage(at, "save")
    at.button(key=f"{B0}.save.save").click().run()
    assert any("Saved version 1" in s.value for s in at.success)
    with session_scope(studio_db) as session:
        assert session.exec(select(DraftRecord)).all() == []


def _saved_spec(engine) -> dict:
    with session_scope(engine) as session:
        versions = session.exec(select(ScorerVersionRecord)).all()
        return dict(versions[-1].spec)


def _new_scorer(at, name: str) -> None:
    at.text_input(key=f"{B0}.basics.name").input(name).run()
    at.text_area(key=f"{B0}.basics.description").input("Retries a busy provider").run()
    _stage(at, "retries")


def test_the_builder_retries_other_errors_too(studio_db, open_page):
    at = open_page("builder")
    _new_scorer(at, "Busy provider")
    assert not at.toggle(key=f"{B0}.retries.scorer.on").value  # a new scorer: no retries yet
    at.toggle(key=f"{B0}.retries.scorer.on").set_value(True).run()
    at.number_input(key=f"{B0}.retries.scorer.retries").set_value(4).run()
    at.text_input(key=f"{B0}.retries.scorer.statuses").input("529, 520").run()
    at.text_area(key=f"{B0}.retries.scorer.texts").input("overloaded").run()
    at.checkbox(key=f"{B0}.retries.scorer.unknown").check().run()
    words = " ".join(i.value for i in at.info)
    assert "Up to 5 attempts per judge request" in words
    assert "also retries 529, 520, “overloaded”" in words
    _stage(at, "save")
    at.button(key=f"{B0}.save.save").click().run()
    assert not at.exception, at.exception
    assert _saved_spec(studio_db)["judge"]["retry"] == {
        "max_retries": 4,
        "retry_unknown_errors": True,
        "retry_on_status": [529, 520],
        "retry_on_text": ["overloaded"],
    }


def test_a_bad_status_code_is_explained_and_not_saved(studio_db, open_page):
    at = open_page("builder")
    _new_scorer(at, "Bad code")
    at.toggle(key=f"{B0}.retries.scorer.on").set_value(True).run()
    at.text_input(key=f"{B0}.retries.scorer.statuses").input("529, busy").run()
    assert [e.value for e in at.error] == [
        "Retries: busy is not an HTTP status code (a number like 529)"
    ]
    _stage(at, "retries")  # back again later: the field still shows what was typed
    _stage(at, "save")
    at.button(key=f"{B0}.save.save").click().run()
    assert not at.exception, at.exception
    assert _saved_spec(studio_db)["judge"]["retry"] == {}  # the usual policy, no "busy"


def test_a_policy_from_the_judges_page_loads_into_the_builder_unchanged(studio_db, open_page):
    judges = open_page("judges")
    judges.text_input(key=state.JUDGES_NAME.name).input("busy-aware")
    judges.text_input(key=state.JUDGES_MODEL.name).input("openai/gpt-4o-mini").run()
    judges.checkbox(key=state.JUDGES_RETRY.child("growing").name).uncheck().run()
    judges.number_input(key=state.JUDGES_RETRY.child("first").name).set_value(1.5).run()
    judges.text_input(key=state.JUDGES_RETRY.child("statuses").name).input("529").run()
    judges.text_area(key=state.JUDGES_RETRY.child("texts").name).input(
        "overloaded\ntry again later"
    ).run()
    judges.button(key=state.JUDGES_SAVE.name).click().run()
    with read_session(studio_db) as session:
        policy = judge_profile_dict(get_judge_profile(session, name="busy-aware"))["retry"]
    assert policy == {
        "delay": 1500,
        "retry_on_status": [529],
        "retry_on_text": ["overloaded", "try again later"],
    }
    spec = {
        "id": "busy-aware",
        "name": "Busy aware",
        "description": "d",
        "judge": {"model": "openai/gpt-4o-mini", "instructions": "Grade.", "retry": policy},
        "steps": [
            {
                "step": "analyze",
                "description": "Is it polite?",
                "template": "Is it polite? {{ output }}",
                "output_schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
                # written with a default value: kept exactly as written
                "judge": {"retry": {"max_retries": 2, "delay": {"initial_ms": 200}}},
            },
            {"step": "generate_score", "formula": "1"},
        ],
    }
    with session_scope(studio_db) as session:
        scorer_id = save_scorer_version(session, spec=load_spec(spec)).scorer_id

    at = open_page("builder")
    at.session_state["builder.scorer_id"] = scorer_id
    at.run()
    at.segmented_control(key=f"{B1}.stage").set_value("retries").run()
    assert not at.exception, at.exception
    assert at.text_input(key=f"{B1}.retries.scorer.statuses").value == "529"
    assert at.text_area(key=f"{B1}.retries.scorer.texts").value == "overloaded\ntry again later"
    assert not at.checkbox(key=f"{B1}.retries.scorer.growing").value
    assert at.number_input(key=f"{B1}.retries.scorer.first").value == 1.5
    assert at.toggle(key=f"{B1}.retries.analyze.own").value
    assert at.number_input(key=f"{B1}.retries.analyze.first").value == 0.2
    draft = at.session_state["builder.draft"]  # a ScorerDraft
    assert draft.judge["retry"] == policy
    assert draft.steps[0].judge["retry"] == {"max_retries": 2, "delay": {"initial_ms": 200}}
    at.segmented_control(key=f"{B1}.stage").set_value("save").run()
    assert not at.warning, [m.value for m in at.markdown]
    at.button(key=f"{B1}.save.save").click().run()
    assert not at.exception, at.exception
    saved = _saved_spec(studio_db)
    assert saved["judge"]["retry"] == policy
    assert saved["steps"][0]["judge"] == {"retry": {"max_retries": 2, "delay": {"initial_ms": 200}}}


def _said(at) -> str:
    return " ".join(e.value for e in at.error) + " " + " ".join(c.value for c in at.caption)


def test_a_blank_form_shows_no_problems_until_the_person_acts(studio_db, open_page):
    at = open_page("builder")
    assert not at.exception
    assert [e.value for e in at.error] == []
    assert "to fix" not in _said(at)

    at.button(key=f"{B0}.next").click().run()  # Next on an empty Basics stage
    assert not at.exception, at.exception
    # The Judge stage shows its own problems only: the Basics ones are counted, not shown.
    assert [e.value for e in at.error] == []
    assert "2 things to fix before saving" in _said(at)
    _stage(at, "basics")
    errors = [e.value for e in at.error]
    assert "Give the scorer a name." in errors
    assert "Say in a sentence what the scorer judges." in errors
    assert "2 things to fix before saving" in _said(at)
    assert "String should" not in _said(at)
    assert "id:" not in _said(at)

    _stage(at, "save")  # and Save stays refused
    assert any("Fix these first" in w.value for w in at.warning)
    assert all(b.key != f"{B0}.save.save" for b in at.button)
    said = " ".join(m.value for m in at.markdown)
    assert "Give the scorer a name." in said
    assert "String should" not in said


def test_typing_shows_the_problems_of_that_stage_only(studio_db, open_page):
    at = open_page("builder")
    at.text_input(key=f"{B0}.basics.name").input("Polite answers").run()
    assert [e.value for e in at.error] == ["Say in a sentence what the scorer judges."]
    assert "1 thing to fix before saving" in _said(at)


def test_a_built_in_missing_a_parameter_names_it_by_its_label(studio_db, open_page):
    at = open_page("builder")
    at.text_input(key=f"{B0}.basics.name").input("Threshold check").run()
    at.text_area(key=f"{B0}.basics.description").input("Passes over one half").run()
    _stage(at, "steps")
    assert [e.value for e in at.error] == []
    at.radio(key=f"{B0}.steps.generate_score.how").set_value("builtin").run()
    at.selectbox(key=f"{B0}.steps.generate_score.builtin.use").set_value("threshold").run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert "Fill in ‘Threshold’." in errors
    assert "this parameter is required" not in _said(at)
    assert "with." not in _said(at)


def test_a_scorer_saved_before_the_setting_keeps_its_judge_unhardened(studio_db, open_page):
    spec = {
        "id": "older",
        "description": "Saved before hardening existed.",
        "judge": {"model": "openai/gpt-4o-mini", "instructions": "Grade."},
        "steps": [{"step": "generate_score", "formula": "1"}],
    }
    with session_scope(studio_db) as session:
        scorer_id = save_scorer_version(session, spec=load_spec(spec)).scorer_id
    at = open_page("builder")
    at.session_state["builder.scorer_id"] = scorer_id
    at.run()
    at.segmented_control(key=f"{B1}.stage").set_value("judge").run()
    assert not at.exception, at.exception
    assert not at.checkbox(key=f"{B1}.judge.settings.harden").value
    assert "harden_prompt" not in at.session_state["builder.draft"].judge
    at.segmented_control(key=f"{B1}.stage").set_value("save").run()
    at.button(key=f"{B1}.save.save").click().run()
    assert not at.exception, at.exception
    assert "harden_prompt" not in _saved_spec(studio_db)["judge"]
