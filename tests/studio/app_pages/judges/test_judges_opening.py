"""The Judges page in a new session opens on a saved judge (the one a scorer uses), so setting
its prices saves them; a new judge saved with only prices says what to do first; where the key
is kept is said in words a PM reads."""

from __future__ import annotations

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    get_judge_profile,
    judge_profile_dict,
    read_session,
    save_judge_profile,
    save_scorer_version,
    session_scope,
)
from studio import state
from studio.app_pages.judges.logic import ProfileUse, opening_judge, refusal
from studio.words import KEY_PLACE, KEY_PLACE_HELP


def _save_two(engine) -> None:
    with session_scope(engine) as session:
        save_judge_profile(session, name="alpha", model="openai/gpt-4o-mini")
        save_judge_profile(session, name="local", model="ollama/llama3")
        spec = {
            "id": "uses-local",
            "description": "d",
            "judge": "local",
            "steps": [
                {
                    "step": "generate_score",
                    "description": "Grade",
                    "template": "Grade {{ output }}",
                    "output_schema": {"type": "object", "properties": {"s": {"type": "number"}}},
                    "calculate_score": {"field": "s"},
                }
            ],
        }
        save_scorer_version(session, spec=load_spec(spec, judge_profiles=None))


def test_a_new_session_opens_on_the_judge_in_use_and_saves_its_prices(studio_db, open_page):
    _save_two(studio_db)
    at = open_page("judges")
    assert not at.exception
    assert at.selectbox(key=state.JUDGES_PICK.name).value == "local"  # a scorer uses it
    assert at.text_input(key=state.JUDGES_MODEL.name).value == "ollama/llama3"
    at.number_input(key=state.JUDGES_INPUT_PRICE.name).set_value(0.25)
    at.number_input(key=state.JUDGES_OUTPUT_PRICE.name).set_value(1.0)
    at.button(key=state.JUDGES_SAVE.name).click().run()
    assert not at.exception
    assert not at.error
    assert at.toast[0].value == "Saved the judge local."
    with read_session(studio_db) as session:
        saved = judge_profile_dict(get_judge_profile(session, name="local"))
    assert (saved["input_price_per_million"], saved["output_price_per_million"]) == (0.25, 1.0)


def test_prices_on_a_new_judge_say_what_to_do_first(studio_db, open_page):
    _save_two(studio_db)
    at = open_page("judges")
    at.selectbox(key=state.JUDGES_PICK.name).set_value("").run()
    at.number_input(key=state.JUDGES_INPUT_PRICE.name).set_value(0.25).run()
    at.button(key=state.JUDGES_SAVE.name).click().run()
    (error,) = at.error
    assert error.value.startswith("**The judge is not saved yet.**")
    assert "cannot be used" not in error.value
    infos = " ".join(i.value for i in at.info)
    assert "needs a name and a model before anything else can be saved" in infos
    assert "choose it in “Judge to edit” above: alpha, local." in infos


def test_where_the_key_is_kept_is_said_in_plain_words(studio_db, open_page):
    at = open_page("judges")
    box = at.text_input(key=state.JUDGES_KEY_ENV.name)
    assert box.label == KEY_PLACE == "Where the key is kept"
    assert box.help == KEY_PLACE_HELP
    assert "setting (environment variable)" in KEY_PLACE_HELP
    assert "Key variable" not in str(at.main)


def test_the_opening_judge_is_the_one_in_use_else_the_first():
    latest = [ProfileUse("s", [2], latest=True)]
    old = [ProfileUse("s", [1], latest=False)]
    assert opening_judge(["a", "b"], {"b": latest}) == "b"
    assert opening_judge(["a", "b"], {"b": old}) == "a"
    assert opening_judge([], {}) is None


def test_refusal_words():
    new = refusal(["Model: choose", "Name: give"], saving=True, new=True, saved=["x"])
    assert new.title == "The judge is not saved yet"
    assert "“Judge to edit” above: x." in new.what_to_do
    alone = refusal(["Model: choose"], saving=True, new=True)
    assert "Judge to edit" not in alone.what_to_do
    test = refusal(["Model: choose"], saving=False, new=True)
    assert test.title == "The judge cannot be tested yet"
    edit = refusal(["Retries: busy"], saving=True, new=False, saved=["x"])
    assert edit.what_to_do.startswith("Fix the fields named above")
