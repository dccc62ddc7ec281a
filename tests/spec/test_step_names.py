"""An earlier step's result is read by the step's number (``step2.solved``), the name the
builder shows; the older long form (``results.analyze_step_result.solved``) still reads the
same value, so scorers written with it keep loading, running and exporting."""

from __future__ import annotations

from typing import Any

import pytest

from scorer_runtime.run import ScorerRun, StepResults
from scorer_runtime.spec import (
    ScorerDraft,
    StepDraft,
    compile_spec,
    export_json,
    export_python,
    export_yaml,
    load_spec,
)
from scorer_runtime.spec.builtins.labels import label_to_score
from scorer_runtime.spec.context import CONTEXT_NAMES, STEP_NAMES, build_context
from scorer_runtime.spec.fields import fields_read
from scorer_runtime.spec.formulas import formula
from scorer_runtime.spec.references import short_references, with_short_references
from scorer_runtime.spec.templates import template

ANSWER = {
    "type": "object",
    "properties": {
        "solved": {"type": "string", "enum": ["yes", "no"]},
        "explanation": {"type": "string"},
    },
}


def _analyze() -> StepDraft:
    return StepDraft(step="analyze", description="S", template="{{ output }}", output_schema=ANSWER)


def _context() -> dict[str, Any]:
    results = StepResults(
        preprocess_step_result={"summary": "a refund"},
        analyze_step_result={"solved": "yes", "explanation": "It says how."},
        generate_score_step_result=0.75,
    )
    return build_context(ScorerRun(run_id="r", input="q", output="a"), results, score=0.75)


def test_each_readable_step_has_a_short_name_in_the_context():
    assert STEP_NAMES == {"step1": "preprocess", "step2": "analyze", "step3": "generate_score"}
    assert set(STEP_NAMES) <= set(CONTEXT_NAMES)
    context = _context()
    assert context["step1"] == {"summary": "a refund"}
    assert context["step2"] == context["results"]["analyze_step_result"]
    assert context["step3"] == 0.75
    assert build_context()["step2"] is None  # no step gave anything yet


@pytest.mark.parametrize(
    ("short", "long"),
    [
        ("step2.solved == 'yes'", "results.analyze_step_result.solved == 'yes'"),
        ("step1.summary + '!'", "results.preprocess_step_result.summary + '!'"),
        ("step3 * 2", "results.generate_score_step_result * 2"),
    ],
)
def test_a_formula_reads_the_same_value_by_either_name(short, long):
    context = _context()
    assert formula(short).evaluate(context) == formula(long).evaluate(context)
    assert formula(short).evaluate(context) is not None


def test_a_prompt_and_a_built_in_read_the_short_name():
    context = _context()
    assert template("Solved: {{ step2.solved }}").evaluate(context) == "Solved: yes"
    step = label_to_score(field="step2.solved", mapping={"yes": 1, "no": 0})
    assert step.evaluate(context) == 1


def test_an_empty_step_is_explained_by_its_number():
    with pytest.raises(ValueError, match="Step 2 is not part of this scorer"):
        formula("step2.solved").evaluate(build_context())


def test_long_references_are_rewritten_short_outside_quotes():
    text = (
        "results.analyze_step_result.solved == 'results.analyze_step_result' "
        "and results.preprocess_step_result and results.generate_score_step_result > 0 "
        "and results and my.results.analyze_step_result"
    )
    assert short_references(text) == (
        "step2.solved == 'results.analyze_step_result' and step1 and step3 > 0 "
        "and results and my.results.analyze_step_result"
    )
    assert short_references("{{ results.analyze_step_result.x }}") == "{{ step2.x }}"


def test_a_draft_saved_with_the_long_form_opens_with_the_short_one():
    draft = ScorerDraft(
        steps=[
            StepDraft(step="analyze", description="Solved?", template="{{ output }}"),
            StepDraft(
                step="generate_score",
                use="weighted_average",
                with_={"weights": {"results.analyze_step_result.solved": 1.0}},
            ),
            StepDraft(
                step="generate_reason",
                formula="results.analyze_step_result.explanation",
            ),
        ]
    )
    short = with_short_references(draft)
    assert short.steps[1].with_ == {"weights": {"step2.solved": 1.0}}
    assert short.steps[2].formula == "step2.explanation"
    assert short.steps[0] == draft.steps[0]


def test_the_words_of_a_formula_name_every_field_it_reads():
    draft = ScorerDraft(steps=[_analyze()])
    groups = draft.fields_available_at("generate_score")
    text = "1 if step2.solved == 'yes' and len(output) > 3 else 'step2.explanation'"
    assert fields_read(text, groups) == ["output", "step2.solved"]
    assert fields_read("request_context.lang == 'en'", groups) == ["request_context"]
    assert fields_read("'output' + inputs", groups) == []


@pytest.mark.parametrize(
    ("formula_text", "found"),
    [("step2.solved", []), ("step2.solvd", ["formula"]), ("step9.x", ["formula"])],
)
def test_short_references_are_checked_before_anything_runs(formula_text, found, registry):
    draft = ScorerDraft(
        steps=[
            _analyze(),
            StepDraft(step="generate_score", formula=formula_text),
        ]
    )
    assert [m.field for m in draft.missing_references(registry=registry)] == found


def _spec_data(names: dict[str, str]) -> dict[str, Any]:
    return {
        "id": "lengths",
        "name": "Lengths",
        "description": "Twice the words of the answer, as a share of 10.",
        "steps": [
            {"step": "preprocess", "formula": "{'words': len(output.split())}"},
            {"step": "analyze", "formula": f"{names['step1']}.words * 2"},
            {"step": "generate_score", "formula": f"min(1, {names['step2']} / 10)"},
            {"step": "generate_reason", "formula": f"'twice the words: ' + str({names['step2']})"},
        ],
    }


def test_old_and_new_specs_load_run_and_export_alike(registry, import_code):
    short = load_spec(_spec_data({"step1": "step1", "step2": "step2"}), registry=registry)
    old = _spec_data(
        {"step1": "results.preprocess_step_result", "step2": "results.analyze_step_result"}
    )
    long = load_spec(old, registry=registry)
    example = {"input": "q", "output": "one two three", "run_id": "r"}
    first = compile_spec(short, registry).run_sync(**example)
    assert (first.score, first.reason) == (0.6, "twice the words: 6")
    second = compile_spec(long, registry).run_sync(**example)
    assert (second.score, second.reason) == (first.score, first.reason)
    assert load_spec(export_json(short), registry=registry) == short
    assert load_spec(export_yaml(short), registry=registry) == short
    exported = import_code(export_python(short, registry)).scorer.run_sync(**example)
    assert (exported.score, exported.reason) == (first.score, first.reason)
