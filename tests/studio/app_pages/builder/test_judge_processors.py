"""The builder's judge stage: hiding, shortening and stopping for the scorer's judge and a
step's own (which replaces the scorer's), tried against the fake judge, and saved."""

from __future__ import annotations

from sqlmodel import select

from scorer_runtime.store import session_scope
from scorer_runtime.store.tables import ScorerVersionRecord
from studio import state

B0 = state.BUILDER_FORM.child(0).name
P = f"{B0}.judge.processors"
STEP = f"{B0}.judge.steps.analyze"
ANSWER = "Mail jane.doe@example.com, we refund. " + "More words here. " * 20


def _stage(at, name):
    at.segmented_control(key=f"{B0}.stage").set_value(name).run()
    assert not at.exception, at.exception


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]
    return "\n".join(str(p) for p in parts)


def _two_steps(at, fake_judge) -> None:
    at.text_input(key=f"{B0}.basics.name").input("Private grading").run()
    at.text_area(key=f"{B0}.basics.description").input("Grades without personal data").run()
    _stage(at, "steps")
    at.radio(key=f"{B0}.steps.analyze.how").set_value("judge").run()
    at.text_input(key=f"{B0}.steps.analyze.judge.description").input("Is it polite?").run()
    at.text_area(key=f"{B0}.steps.analyze.judge.template").input("Polite? {{ output }}").run()
    at.radio(key=f"{B0}.steps.generate_score.how").set_value("builtin").run()
    at.selectbox(key=f"{B0}.steps.generate_score.builtin.use").set_value("label_to_score").run()
    at.text_area(key=f"{B0}.example.output").input(ANSWER).run()
    _stage(at, "judge")
    at.text_input(key=f"{B0}.judge.settings.model").input("openai/fake-judge").run()
    at.text_input(key=f"{B0}.judge.settings.env").input("FAKE_JUDGE_KEY").run()
    at.text_input(key=f"{B0}.judge.settings.base").input(fake_judge.base_url).run()
    at.selectbox(key=f"{B0}.judge.settings.json").set_value("system").run()
    at.text_area(key=f"{B0}.judge.settings.instructions").input("You grade.").run()
    # These tests read the exact text the processors leave; the judged text's markers (on for
    # a new judge) are checked in test_builder and tests/judge/test_fence.py.
    at.checkbox(key=f"{B0}.judge.settings.harden").uncheck().run()


def test_the_scorers_judge_hides_shortens_and_stops(studio_db, open_page, fake_judge, monkeypatch):
    monkeypatch.setenv("FAKE_JUDGE_KEY", "sk-test")
    fake_judge.reply({"verdict": "yes"})
    at = open_page("builder")
    _two_steps(at, fake_judge)
    at.toggle(key=f"{P}.redact").set_value(True).run()
    at.toggle(key=f"{P}.shorten").set_value(True).run()
    at.number_input(key=f"{P}.budget").set_value(-1).run()
    assert "the budget must be more than 0 characters (it is -1)" in _texts(at)
    at.number_input(key=f"{P}.budget").set_value(60).run()
    # The preview starts from the step's prompt on the chosen example.
    preview = at.text_area(key=f"{P}.sample").value
    assert preview == "Polite? " + ANSWER
    assert "Hid 1 e-mail address, shown as [REDACTED:email]." in _texts(at)
    shown = "Polite? Mail [REDACTED:email], we refund. More w…[truncated]"
    assert any(c.value == shown for c in at.code)
    assert "1. Hide personal data" in _texts(at)
    assert "Personal data is always hidden before a prompt is shortened" in _texts(at)
    at.toggle(key=f"{P}.guard").set_value(True).run()
    at.text_area(key=f"{P}.answer").input("I am unable to grade this.").run()
    assert "This answer would be stopped" in _texts(at)

    _stage(at, "try")
    at.button(key=f"{B0}.try.run").click().run()
    assert not at.exception, at.exception
    sent = fake_judge.last_request.last_user_content
    assert sent.startswith("Polite? Mail [REDACTED:email], we refund. More w…[truncated]")
    # Try it: the messages as sent, with what was hidden and cut said.
    assert "In the question: Hid 1 e-mail address, shown as [REDACTED:email]." in _texts(at)
    assert "In the question: cut where '…[truncated]' stands." in _texts(at)

    _stage(at, "save")
    at.button(key=f"{B0}.save.save").click().run()
    assert not at.exception, at.exception
    with session_scope(studio_db) as session:
        spec = session.exec(select(ScorerVersionRecord)).one().spec
    assert spec["judge"]["redact_pii"] == {}
    assert spec["judge"]["truncate"] == {"max_chars": 60}
    assert spec["judge"]["output_guard"]["patterns"][0] == "as an ai(?: language)? model"


def test_a_steps_own_settings_replace_the_scorers(studio_db, open_page, fake_judge, monkeypatch):
    monkeypatch.setenv("FAKE_JUDGE_KEY", "sk-test")
    fake_judge.reply({"verdict": "yes"})
    at = open_page("builder")
    _two_steps(at, fake_judge)
    at.toggle(key=f"{P}.redact").set_value(True).run()
    assert "Each step uses the scorer's settings above (Hide personal data" in _texts(at)
    at.toggle(key=f"{STEP}.own_before").set_value(True).run()
    # Its own settings start as a copy of the scorer's: hiding is on; turn it off, shorten.
    assert at.toggle(key=f"{STEP}.processors.redact").value
    at.toggle(key=f"{STEP}.processors.redact").set_value(False).run()
    assert "this step still uses the scorer's settings" in _texts(at)
    at.toggle(key=f"{STEP}.processors.shorten").set_value(True).run()
    at.number_input(key=f"{STEP}.processors.budget").set_value(30).run()
    _stage(at, "try")
    at.button(key=f"{B0}.try.run").click().run()
    assert not at.exception, at.exception
    sent = fake_judge.last_request.last_user_content
    assert sent == "Polite? Mail jane.…[truncated]"  # cut, not hidden: the step's own
    _stage(at, "save")
    at.button(key=f"{B0}.save.save").click().run()
    with session_scope(studio_db) as session:
        spec = session.exec(select(ScorerVersionRecord)).one().spec
    assert spec["judge"]["redact_pii"] == {}
    assert spec["steps"][0]["judge"] == {"truncate": {"max_chars": 30}}
