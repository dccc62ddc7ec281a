"""The builder's worked examples on a judge step: listed with their grade and note, edited,
removed and added by hand, shown in the prompt preview, and saved into the next version."""

from __future__ import annotations

from sqlmodel import select

from scorer_runtime.judge.worked import HEADING
from scorer_runtime.spec import load_spec
from scorer_runtime.store import save_scorer_version, session_scope
from scorer_runtime.store.tables import ScorerVersionRecord
from studio import state
from studio.app_pages.builder.logic import worked_example_ids

B1 = state.BUILDER_FORM.child(1).name
WORKED = [
    {
        "input": "Where is my parcel?",
        "output": "Read the tracking page.",
        "grade": 0.0,
        "grade_label": "no",
        "note": "Blames the customer.",
    },
    {"output": "Happy to help!", "grade": 1.0, "grade_label": "yes"},
]
SPEC = {
    "id": "polite",
    "name": "Polite",
    "description": "d",
    "judge": {"model": "openai/gpt-4o-mini", "instructions": "Grade."},
    "steps": [
        {
            "step": "analyze",
            "description": "Polite?",
            "template": "Polite? {{ output }}",
            "output_schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            "worked_examples": WORKED,
        },
        {"step": "generate_score", "formula": "1"},
    ],
}
PLACE = f"{B1}.steps.analyze.judge.worked"
IDS = worked_example_ids(WORKED)


def _open_steps(open_page, engine):
    with session_scope(engine) as session:
        scorer_id = save_scorer_version(session, spec=load_spec(SPEC)).scorer_id
    at = open_page("builder")
    at.session_state["builder.scorer_id"] = scorer_id
    at.run()
    at.segmented_control(key=f"{B1}.stage").set_value("steps").run()
    assert not at.exception, at.exception
    return at


def _listed(at) -> str:
    (label,) = [e.label for e in at.expander if e.label.startswith("Examples graded by people")]
    return label


def _saved_steps(at, engine) -> list[dict]:
    at.segmented_control(key=f"{B1}.stage").set_value("save").run()
    at.button(key=f"{B1}.save.save").click().run()
    assert not at.exception, at.exception
    with session_scope(engine) as session:
        versions = session.exec(select(ScorerVersionRecord)).all()
        return [dict(v.spec) for v in versions][-1]["steps"]


def test_the_examples_are_listed_with_grade_and_note_and_edits_are_saved(studio_db, open_page):
    at = _open_steps(open_page, studio_db)
    assert _listed(at) == "Examples graded by people (2)"
    assert any(c.value == "Question: Where is my parcel?" for c in at.caption)
    first, second = (f"{PLACE}.{ident}" for ident in IDS)
    assert at.number_input(key=f"{first}.grade").value == 0.0
    assert at.text_input(key=f"{first}.word").value == "no"
    assert at.text_input(key=f"{first}.note").value == "Blames the customer."
    at.text_input(key=f"{first}.note").input("Sends the customer away.").run()
    at.number_input(key=f"{second}.grade").set_value(0.5).run()
    at.text_input(key=f"{second}.word").input("").run()
    assert not at.exception, at.exception
    steps = _saved_steps(at, studio_db)
    assert steps[0]["worked_examples"] == [
        {**WORKED[0], "note": "Sends the customer away."},
        {"output": "Happy to help!", "grade": 0.5},
    ]


def test_an_example_is_removed_and_the_others_keep_their_edits(studio_db, open_page):
    at = _open_steps(open_page, studio_db)
    second = f"{PLACE}.{IDS[1]}"
    at.text_input(key=f"{second}.note").input("Warm.").run()
    at.button(key=f"{PLACE}.{IDS[0]}.remove").click().run()
    assert not at.exception, at.exception
    assert _listed(at) == "Examples graded by people (1)"
    assert at.text_input(key=f"{second}.note").value == "Warm."
    steps = _saved_steps(at, studio_db)
    assert steps[0]["worked_examples"] == [{**WORKED[1], "note": "Warm."}]


def test_an_example_added_by_hand_is_checked_then_added_and_previewed(studio_db, open_page):
    at = _open_steps(open_page, studio_db)
    add = f"{PLACE}.add"
    at.text_area(key=f"{add}.question").input("Refund?")
    at.button(key=f"FormSubmitter:{add}.form-Add this example").click().run()
    assert [e.value for e in at.error] == [
        "Write the answer the person graded (the question and the rest may stay empty)."
    ]
    assert at.text_area(key=f"{add}.question").value == "Refund?"  # nothing typed is lost
    at.text_area(key=f"{add}.answer").input("Done, sorry for the wait!")
    at.number_input(key=f"{add}.grade").set_value(0.75)
    at.text_input(key=f"{add}.note").input("Kind, a bit slow.")
    at.button(key=f"FormSubmitter:{add}.form-Add this example").click().run()
    assert not at.exception, at.exception
    assert not at.error
    assert _listed(at) == "Examples graded by people (3)"
    assert at.text_area(key=f"{add}.answer").value == ""  # the form is ready for another
    at.text_area(key=f"{B1}.example.output").input("Thanks for waiting!").run()
    (preview,) = [c.value for c in at.code if HEADING in c.value]
    assert "Example 3\nInput:\nRefund?\nOutput:\nDone, sorry for the wait!\n" in preview
    assert "A person graded this: 0.75. Their note: Kind, a bit slow.\n" in preview
    assert preview.endswith("Polite? Thanks for waiting!")
    steps = _saved_steps(at, studio_db)
    assert steps[0]["worked_examples"][2] == {
        "input": "Refund?",
        "output": "Done, sorry for the wait!",
        "grade": 0.75,
        "note": "Kind, a bit slow.",
    }
