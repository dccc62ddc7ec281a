"""A draft's problems in the builder's words: the form's labels, never a JSON path or
pydantic's phrasing."""

from __future__ import annotations

import pytest

from scorer_runtime.spec import DraftProblem, ScorerDraft, StepDraft, default_registry
from studio.app_pages.builder.logic import clean_draft, new_draft
from studio.app_pages.builder.problems import problem_words, problems_in_words, step_place

REGISTRY = default_registry(plugins=False)
EMPTY = "String should have at least 1 character"
REQUIRED = "this parameter is required"


def _draft():
    draft = new_draft()
    draft.put_step("preprocess", StepDraft.builtin("contains"))
    draft.put_step("analyze", StepDraft(template="x", description="q"))
    draft.put_step("generate_score", StepDraft.builtin("label_to_score"))
    return draft


@pytest.mark.parametrize(
    ("field", "message", "place", "sentence"),
    [
        ("name", EMPTY, "", "Give the scorer a name."),
        ("id", EMPTY, "", "Give the scorer a name."),
        ("description", EMPTY, "", "Say in a sentence what the scorer judges."),
        ("judge.model", EMPTY, "", "Choose the judge's model."),
        (
            "id",
            "String should match pattern '^[A-Za-z0-9][A-Za-z0-9_.-]*$'",
            "",
            "The technical id may use letters, digits, '-', '_' and '.', and starts with a "
            "letter or digit.",
        ),
        # a built-in's parameter: its label from the built-in's catalogue
        (
            "steps.generate_score.with.mapping",
            REQUIRED,
            "Step 3, Give the score",
            "Fill in ‘Score of each label’.",
        ),
        (
            "steps.preprocess.with.values",
            REQUIRED,
            "Step 1, Prepare the data",
            "Fill in ‘Words to look for’.",
        ),
        (
            "steps.generate_score.with.default",
            "Input should be a valid number, unable to parse string as a number",
            "Step 3, Give the score",
            "Score of any other label should be a number.",
        ),
        (
            "steps.generate_score.with.bogus",
            "unknown parameter; valid parameters: mapping, field",
            "Step 3, Give the score",
            "Bogus: unknown parameter; valid parameters: mapping, field.",
        ),
        # the judge's fields
        ("steps.analyze.template", EMPTY, "Step 2, Analyse", "Write the prompt the judge reads."),
        (
            "steps.analyze.template",
            "line 1: unexpected end of template",
            "Step 2, Analyse",
            "Line 1: unexpected end of template.",
        ),
        ("steps.analyze.description", EMPTY, "Step 2, Analyse", "Say what you ask the judge."),
        (
            "steps.analyze.judge",
            "this step asks the judge, but no model or instructions is set; set judge.model",
            "Step 2, Analyse",
            "Choose the judge's model and write its instructions (stage 2 · Judge).",
        ),
        (
            "steps.generate_score.calculate_score.with.mapping",
            REQUIRED,
            "Step 3, Give the score",
            "Give each label a score.",
        ),
        # anything else: the loader's message, placed in the form's words
        (
            "steps.generate_score.output_schema",
            "a generate_score step that asks the judge needs an output_schema",
            "Step 3, Give the score",
            "What the judge answers: a generate_score step that asks the judge needs an "
            "output_schema.",
        ),
        (
            "steps.analyze.retries",
            "Input should be a valid integer",
            "Step 2, Analyse",
            "Retries: should be a whole number.",
        ),
        ("", "a spec needs at least one step", "", "A spec needs at least one step."),
    ],
)
def test_a_problem_in_the_forms_words(field, message, place, sentence):
    path = "steps[1].x" if field.startswith("steps.") else field
    words = problem_words(DraftProblem(field, message, path), draft=_draft(), registry=REGISTRY)
    assert (words.place, words.sentence) == (place, sentence)
    shown = str(words)
    assert "String should" not in shown
    assert "Input should" not in shown
    assert "steps[" not in shown
    assert "with." not in shown


@pytest.mark.parametrize(
    ("field", "stage"),
    [
        ("name", "basics"),
        ("description", "basics"),
        ("judge.model", "judge"),
        ("judge.retry.max_retries", "retries"),
        ("steps.analyze.template", "steps"),
        ("steps.analyze.judge.retry.max_retries", "retries"),
        ("", "save"),
    ],
)
def test_each_problem_belongs_to_a_stage(field, stage):
    words = problem_words(DraftProblem(field, EMPTY), draft=_draft(), registry=REGISTRY)
    assert words.stage == stage


def test_a_blank_draft_says_two_things_in_plain_words():
    draft = new_draft()
    found = clean_draft(draft).problems(registry=REGISTRY, profiles={})
    words = problems_in_words(found, draft=draft, registry=REGISTRY)
    assert [str(w) for w in words] == [
        "Give the scorer a name.",
        "Say in a sentence what the scorer judges.",
    ]


def test_a_built_in_missing_a_parameter_names_its_label():
    draft = new_draft()
    draft.name, draft.description = "Polite", "Is it polite?"
    draft.put_step("generate_score", StepDraft.builtin("threshold"))
    found = clean_draft(draft).problems(registry=REGISTRY, profiles={})
    words = problems_in_words(found, draft=draft, registry=REGISTRY)
    assert [str(w) for w in words] == [
        "Step 3, Give the score: Fill in ‘What to read’.",
        "Step 3, Give the score: Fill in ‘Threshold’.",
    ]


def test_step_places():
    assert [step_place(s) for s in ("preprocess", "analyze", "generate_score")] == [
        "Step 1, Prepare the data",
        "Step 2, Analyse",
        "Step 3, Give the score",
    ]
    assert step_place("generate_reason") == "Step 4, Explain the score"


def test_a_judge_step_without_instructions_says_where_to_write_them():
    draft = ScorerDraft(
        id="x",
        name="x",
        description="d",
        judge={"model": "openai/x", "api_key_env": "K"},
        steps=[
            StepDraft(step="analyze", description="a", template="{{ output }}"),
            StepDraft(step="generate_score", formula="1"),
        ],
    )
    words = problems_in_words(draft.problems(registry=REGISTRY), draft=draft, registry=REGISTRY)
    said = " ".join(str(w) for w in words)
    assert "write the judge's instructions" in said
    assert "judge.instructions" not in said
