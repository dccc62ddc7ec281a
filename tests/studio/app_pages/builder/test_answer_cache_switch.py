"""The builder's answer cache switch: it reaches the saved spec, loads back as saved, and an
untouched switch leaves the scorer as it was written."""

from __future__ import annotations

import json

from sqlmodel import select

from scorer_runtime.spec import ScorerSpec, load_spec
from scorer_runtime.spec.export import export_json
from scorer_runtime.store import save_scorer_version, session_scope
from scorer_runtime.store.tables import ScorerVersionRecord
from studio import state

B0 = state.BUILDER_FORM.child(0).name
B1 = state.BUILDER_FORM.child(1).name
SPEC = {
    "id": "cached-or-not",
    "name": "Cached or not",
    "description": "d",
    "judge": {"model": "openai/gpt-4o-mini", "instructions": "Grade."},
    "steps": [
        {
            "step": "analyze",
            "description": "Polite?",
            "template": "Polite? {{ output }}",
            "output_schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        },
        {"step": "generate_score", "formula": "1"},
    ],
}


def _saved_specs(engine) -> list[dict]:
    with session_scope(engine) as session:
        versions = session.exec(select(ScorerVersionRecord)).all()
        return [dict(v.spec) for v in versions]


def _open_saved(open_page, engine, spec: dict):
    with session_scope(engine) as session:
        scorer_id = save_scorer_version(session, spec=load_spec(spec)).scorer_id
    at = open_page("builder")
    at.session_state["builder.scorer_id"] = scorer_id
    at.run()
    at.segmented_control(key=f"{B1}.stage").set_value("judge").run()
    assert not at.exception, at.exception
    return at


def _save(at, gen: str) -> None:
    at.segmented_control(key=f"{gen}.stage").set_value("save").run()
    at.button(key=f"{gen}.save.save").click().run()
    assert not at.exception, at.exception


def test_turning_the_cache_off_is_saved_and_exported(studio_db, open_page):
    at = open_page("builder")
    at.text_input(key=f"{B0}.basics.name").input("Fresh answers").run()
    at.text_area(key=f"{B0}.basics.description").input("Asks the judge every time").run()
    at.segmented_control(key=f"{B0}.stage").set_value("judge").run()
    switch = at.toggle(key=f"{B0}.judge.cache")
    assert switch.value is True
    assert "Reuse judge answers already paid for" in switch.label
    switch.set_value(False).run()
    _save(at, B0)
    (saved,) = _saved_specs(studio_db)
    assert saved["cache_answers"] is False
    assert json.loads(export_json(ScorerSpec.model_validate(saved)))["cache_answers"] is False


def test_a_scorer_saved_without_the_cache_loads_with_the_switch_off(studio_db, open_page):
    at = _open_saved(open_page, studio_db, {**SPEC, "cache_answers": False})
    assert at.toggle(key=f"{B1}.judge.cache").value is False
    _save(at, B1)
    assert [s.get("cache_answers") for s in _saved_specs(studio_db)] == [False, False]


def test_turning_it_back_on_and_leaving_it_alone(studio_db, open_page):
    at = _open_saved(open_page, studio_db, {**SPEC, "cache_answers": False})
    at.toggle(key=f"{B1}.judge.cache").set_value(True).run()
    _save(at, B1)
    assert _saved_specs(studio_db)[-1]["cache_answers"] is True

    untouched = _open_saved(open_page, studio_db, {**SPEC, "id": "untouched"})
    assert untouched.toggle(key=f"{B1}.judge.cache").value is True
    _save(untouched, B1)
    assert "cache_answers" not in _saved_specs(studio_db)[-1]
