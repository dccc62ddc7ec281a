"""The builder offers what a step can read as choices, with defaults that exist, and checks
the references before Try it calls the judge (issue 13: "Data flows forward, as choices")."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from scorer_runtime.spec import ScorerDraft, StepDraft, load_spec
from scorer_runtime.store import save_judge_profile, save_scorer_version, session_scope
from scorer_runtime.store.tables import DraftRecord
from studio import state

B0 = state.BUILDER_FORM.child(0).name
STEPS = f"{B0}.steps"
ANSWER = {
    "type": "object",
    "properties": {
        "solved": {"type": "string", "enum": ["yes", "partly", "no"]},
        "polite": {"type": "string", "enum": ["yes", "no"]},
        "explanation": {"type": "string"},
    },
    "required": ["solved", "polite", "explanation"],
}


def _draft(*steps: StepDraft) -> ScorerDraft:
    return ScorerDraft(
        id="",
        name="Solved and polite",
        description="Does the answer solve the problem, politely?",
        type="plain",
        judge={
            "model": "openai/fake-judge",
            "api_key_env": "FAKE_JUDGE_KEY",
            "instructions": "You grade support answers.",
        },
        steps=list(steps),
    )


def _analyze() -> StepDraft:
    return StepDraft(
        step="analyze",
        description="Solved and polite?",
        template="Question: {{ input }}\n\nAnswer: {{ output }}",
        output_schema=ANSWER,
    )


def _open_with(open_page, draft: ScorerDraft, stage: str = "steps"):
    at = open_page("builder")
    at.session_state[state.BUILDER_DRAFT.name] = draft
    at.session_state[f"{B0}.stage"] = stage
    at.run()
    assert not at.exception, at.exception
    return at


def _said(at) -> str:
    parts = [*at.error, *at.warning, *at.caption, *at.markdown, *at.info]
    return " ".join(str(p.value) for p in parts)


def test_label_to_score_reads_the_judges_first_label_and_scores_its_choices(studio_db, open_page):
    at = _open_with(open_page, _draft(_analyze(), StepDraft(step="generate_score", formula="1")))
    at.radio(key=f"{STEPS}.generate_score.how").set_value("builtin").run()
    at.selectbox(key=f"{STEPS}.generate_score.builtin.use").set_value("label_to_score").run()
    assert not at.exception, at.exception
    prefix = f"{STEPS}.generate_score.builtin.label_to_score"
    field = at.selectbox(key=f"{prefix}.field")
    assert field.value == "step2.solved"  # never judge_output.verdict
    # The choices are grouped by where they come from, in words.
    assert "The example › expected answer" in field.options
    assert "Step 2, the judge's answer › polite" in field.options
    scores = {c: at.number_input(key=f"{prefix}.mapping.score.{c}").value for c in ANSWER[
        "properties"]["solved"]["enum"]}  # fmt: skip
    assert scores == {"yes": 1.0, "partly": 0.5, "no": 0.0}

    field.set_value("step2.polite").run()  # another label: its choices
    assert at.number_input(key=f"{prefix}.mapping.score.no").value == 0.0
    step = at.session_state[state.BUILDER_DRAFT.name].step("generate_score")
    assert step.with_ == {
        "mapping": {"yes": 1.0, "no": 0.0},
        "field": "step2.polite",
    }
    assert "this scorer does not have" not in _said(at)


def test_a_number_field_way_picks_the_first_number_field(studio_db, open_page):
    answer = {
        "type": "object",
        "properties": {"explanation": {"type": "string"}, "rating": {"type": "number"}},
    }
    analyze = _analyze().model_copy(update={"output_schema": answer})
    at = _open_with(open_page, _draft(analyze, StepDraft(step="generate_score", formula="1")))
    at.radio(key=f"{STEPS}.generate_score.how").set_value("builtin").run()
    at.selectbox(key=f"{STEPS}.generate_score.builtin.use").set_value("clamp").run()
    field = at.selectbox(key=f"{STEPS}.generate_score.builtin.clamp.field")
    assert field.value == "step2.rating"


def test_inserting_a_field_into_the_prompt_and_a_formula(studio_db, open_page):
    reason = StepDraft(step="generate_reason", formula="'ok'")
    at = _open_with(
        open_page, _draft(_analyze(), StepDraft(step="generate_score", formula="1"), reason)
    )
    at.selectbox(key=f"{STEPS}.generate_reason.formula.insert").set_value("step2.explanation").run()
    # The formula reads as the picker said it: step 2's explanation, and names it in words.
    assert at.text_area(key=f"{STEPS}.generate_reason.formula.text").value == (
        "'ok' step2.explanation"
    )
    assert "Reads: Step 2, the judge's answer › explanation (step2.explanation)" in _said(at)
    assert "_step_result" not in _said(at)
    at.selectbox(key=f"{STEPS}.analyze.judge.insert").set_value("ground_truth").run()
    template = at.text_area(key=f"{STEPS}.analyze.judge.template").value
    assert template == "Question: {{ input }}\n\nAnswer: {{ output }} {{ ground_truth }}"
    assert at.selectbox(key=f"{STEPS}.analyze.judge.insert").value is None  # ready again
    assert not at.exception, at.exception
    # The help says in words what can be used; it lists no filters and no internal paths.
    said = _said(at) + " ".join(str(e.help) for e in at.text_area)
    assert "_step_result" not in said
    assert "assistant_message" not in said


def test_the_judges_own_label_becomes_the_score_by_choosing(studio_db, open_page):
    at = _open_with(open_page, _draft(StepDraft(step="generate_score", formula="1")))
    at.radio(key=f"{STEPS}.generate_score.how").set_value("judge").run()
    calc = f"{STEPS}.generate_score.judge.calc"
    assert at.radio(key=f"{calc}.way").value == "labels"
    assert at.selectbox(key=f"{calc}.label_field").value == "judge_output.verdict"
    assert at.number_input(key=f"{calc}.score.partial").value == 0.5
    assert not at.exception, at.exception


def test_try_it_names_a_missing_field_in_words_and_does_not_call_the_judge(
    studio_db, open_page, fake_judge, monkeypatch
):
    monkeypatch.setenv("FAKE_JUDGE_KEY", "sk-test")
    score = StepDraft.builtin("label_to_score", {"mapping": {"yes": 1, "no": 0}})
    score.step = "generate_score"
    draft = _draft(_analyze(), score)
    draft.judge = {**draft.judge, "api_base": fake_judge.base_url}
    at = _open_with(open_page, draft, stage="try")
    at.text_area(key=f"{B0}.example.output").input("Reset it under Settings.").run()
    assert all(b.key != f"{B0}.try.run" for b in at.button)
    said = _said(at)
    assert (
        "Step 3, Give the score, reads ‘the judge's answer: verdict’, which this scorer does "
        "not have at this step. It has: solved, polite, explanation."
    ) in said
    assert "judge_output" not in said
    assert fake_judge.request_count == 0


def test_a_missing_key_says_where_to_add_it(studio_db, open_page):
    draft = _draft(_analyze(), StepDraft(step="generate_score", formula="1"))
    draft.judge = {
        "model": "openai/x",
        "api_key_env": "NOT_SET_ANYWHERE_KEY",
        "instructions": "Grade.",
    }
    at = _open_with(open_page, draft, stage="try")
    at.text_area(key=f"{B0}.example.output").input("Hello").run()
    said = _said(at)
    assert "The judge needs an API key in `NOT_SET_ANYWHERE_KEY`" in said
    assert "restart" not in said
    assert any("Add it on the Judges page" in str(link.proto) for link in at.get("page_link"))
    assert all(b.key != f"{B0}.try.run" for b in at.button)


@pytest.mark.filterwarnings("error")  # a new row's empty Required changes no column's type
def test_answer_fields_accept_any_edit_order_and_leave_out_nameless_rows(studio_db, open_page):
    at = _open_with(open_page, _draft(_analyze(), StepDraft(step="generate_score", formula="1")))
    editor = f"{STEPS}.analyze.judge.fields.editor"
    # A name typed before its kind; a row given a kind but no name; a row left empty.
    at.session_state[editor] = {
        "edited_rows": {},
        "added_rows": [{"name": "tone"}, {"kind": "number"}, {}],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception, at.exception
    schema = at.session_state[state.BUILDER_DRAFT.name].step("analyze").output_schema
    assert schema["properties"]["tone"] == {"type": "string"}
    assert "tone" in schema["required"]
    assert "nan" not in json.dumps(schema).lower()
    assert "Rows 5, 6 have no name yet" in _said(at)


def test_a_new_scorer_starts_on_a_saved_judge_whose_key_is_set(studio_db, open_page, monkeypatch):
    monkeypatch.setenv("FAKE_JUDGE_KEY", "sk-test")
    monkeypatch.delenv("UNSET_JUDGE_KEY", raising=False)
    with session_scope(studio_db) as session:
        save_judge_profile(session, name="a-unset", model="openai/x", api_key_env="UNSET_JUDGE_KEY")
        save_judge_profile(session, name="b-ready", model="openai/y", api_key_env="FAKE_JUDGE_KEY")
    at = open_page("builder")
    assert at.session_state[state.BUILDER_DRAFT.name].judge == "b-ready"
    at.segmented_control(key=f"{B0}.stage").set_value("judge").run()
    assert at.selectbox(key=f"{B0}.judge.profile").value == "b-ready"


def test_visiting_the_builder_writes_no_empty_draft(studio_db, open_page):
    at = open_page("builder")
    at.segmented_control(key=f"{B0}.stage").set_value("steps").run()
    assert not at.exception, at.exception
    with session_scope(studio_db) as session:
        assert session.exec(select(DraftRecord)).all() == []


def test_the_example_list_follows_the_chosen_dataset(demo_db, open_page):
    at = open_page("builder")
    at.radio(key=f"{B0}.example.way").set_value("dataset").run()
    datasets = at.selectbox(key=f"{B0}.example.dataset")
    before = datasets.value
    at.selectbox(key=f"{B0}.example.row.{before}").select_index(2).run()
    datasets.select_index(1 if datasets.index == 0 else 0).run()
    assert not at.exception, at.exception
    after = at.selectbox(key=f"{B0}.example.dataset").value
    assert after != before
    # A list of the new dataset's examples, from its first one (not the old list's third).
    rows = at.selectbox(key=f"{B0}.example.row.{after}")
    assert rows.value == 0
    assert all(r.key != f"{B0}.example.row.{before}" for r in at.selectbox)


def test_a_scorer_saved_with_long_references_opens_with_step_names(studio_db, open_page):
    spec = _draft(
        _analyze(),
        StepDraft(step="generate_score", formula="results.analyze_step_result.solved == 'yes'"),
        StepDraft(step="generate_reason", formula="results.analyze_step_result.explanation"),
    ).model_copy(update={"id": "old-style"})
    with session_scope(studio_db) as session:
        scorer_id = save_scorer_version(session, spec=load_spec(spec.to_data())).scorer_id
    at = open_page("builder")
    at.session_state[state.BUILDER_SCORER_ID.name] = scorer_id
    at.run()
    form = state.BUILDER_FORM.child(1).name
    at.segmented_control(key=f"{form}.stage").set_value("steps").run()
    assert not at.exception, at.exception
    score = at.text_area(key=f"{form}.steps.generate_score.formula.text").value
    assert score == "step2.solved == 'yes'"
    assert at.text_area(key=f"{form}.steps.generate_reason.formula.text").value == (
        "step2.explanation"
    )
    assert "Reads: Step 2, the judge's answer › solved (step2.solved)" in _said(at)
