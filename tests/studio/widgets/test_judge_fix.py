"""The link under the Runs page's "the judge's key is not set": a scorer naming a saved judge
leads to that judge on the Judges page (where its key is pasted), not to a blank new one."""

from __future__ import annotations

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    add_examples,
    create_dataset,
    save_judge_profile,
    save_scorer_version,
    session_scope,
)
from studio import state

KEY = "JUDGE_FIX_TEST_KEY"


def test_a_missing_key_of_a_saved_judge_opens_that_judge(studio_db, open_page, monkeypatch):
    monkeypatch.delenv(KEY, raising=False)
    with session_scope(studio_db) as session:
        save_judge_profile(session, name="aaa-first", model="openai/other")
        save_judge_profile(
            session,
            name="house",
            model="openai/house-model",
            api_key_env=KEY,
            settings={"instructions": "You grade answers."},
        )
        spec = {
            "id": "graded",
            "description": "d",
            "judge": "house",
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
        version = save_scorer_version(session, spec=load_spec(spec))
        dataset = create_dataset(session, name="some")
        add_examples(session, dataset_id=dataset.id, examples=[ExampleData(output="An answer.")])
        ids = (version.scorer_id, dataset.id)
    at = open_page("judges")  # the session has seen the Judges page, on another judge
    assert at.selectbox(key=state.JUDGES_PICK.name).value == "house"  # the one in use
    at.selectbox(key=state.JUDGES_PICK.name).set_value("aaa-first").run()
    at.switch_page("app_pages/runs/page.py").run()
    at.selectbox(key=state.RUNS_SCORER.name).set_value(ids[0]).run()
    at.selectbox(key=state.RUNS_DATASET.name).set_value(ids[1]).run()
    assert not at.exception
    (fix,) = [b for b in at.button if b.label == "Add the key to the judge house"]
    fix.click().run()
    assert not at.exception
    assert at.selectbox(key=state.JUDGES_PICK.name).value == "house"
    assert at.text_input(key=state.JUDGES_MODEL.name).value == "openai/house-model"
    assert at.text_input(key=state.JUDGES_KEY_ENV.name).value == KEY
    assert any(f"Paste the key for {KEY}" in e.label for e in at.expander)
