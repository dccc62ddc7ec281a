"""A draft's references to values it does not have are found before anything runs, with
what the scorer does have (issue 13: the label -> score step that read judge_output.verdict)."""

from __future__ import annotations

import pytest

from scorer_runtime.spec import ScorerDraft, StepDraft, default_registry
from scorer_runtime.spec.builtins.base import READS_FIELD
from scorer_runtime.spec.fields import (
    choices_of,
    first_label_field,
    first_number_field,
    spaced_scores,
)

REGISTRY = default_registry()
ANSWER = {
    "type": "object",
    "properties": {
        "solved": {"type": "string", "enum": ["yes", "partly", "no"]},
        "polite": {"type": "string", "enum": ["yes", "no"]},
        "explanation": {"type": "string"},
    },
}


def _analyze(**extra) -> StepDraft:
    return StepDraft(
        step="analyze", description="Solved?", template="{{ output }}", output_schema=ANSWER
    ).model_copy(update=extra)


def _score(**params) -> StepDraft:
    step = StepDraft.builtin("label_to_score", {"mapping": {"yes": 1, "no": 0}, **params})
    step.step = "generate_score"
    return step


def _missing(*steps: StepDraft):
    return ScorerDraft(steps=list(steps)).missing_references(registry=REGISTRY)


def test_the_default_judge_output_verdict_after_a_judge_step_is_named_with_what_exists():
    [missing] = _missing(_analyze(), _score())
    assert missing.step == "generate_score"
    assert missing.field == "with.field"
    assert missing.sentence() == (
        "reads ‘the judge's answer: verdict’, which this scorer does not have at this step. "
        "It has: solved, polite, explanation."
    )


@pytest.mark.parametrize(
    ("steps", "found"),
    [
        ((_analyze(), _score(field="results.analyze_step_result.solved")), []),
        ((_analyze(), _score(field="results.analyze_step_result.nope")), ["with.field"]),
        ((_score(field="results.analyze_step_result.solved"),), ["with.field"]),
        (
            (
                _analyze(),
                StepDraft(step="generate_score", formula="results.analyze_step_result.solvd"),
            ),
            ["formula"],
        ),
        (
            (
                _analyze(),
                StepDraft(step="generate_score", formula="'results.analyze_step_result.x'"),
            ),
            [],  # a quoted text is no reference
        ),
        (
            (
                _analyze(),
                StepDraft(step="generate_score", formula="1"),
                StepDraft(
                    step="generate_reason",
                    description="Why",
                    template="results.nothing {{ results.analyze_step_result.explanation }} "
                    "{{ score }} {{ results.analyze_step_result.why }}",
                ),
            ),
            ["template"],  # text outside {{ }} is prose
        ),
        (
            (
                StepDraft(
                    step="generate_score",
                    description="Score",
                    template="{{ output }}",
                    output_schema=ANSWER,
                    calculate_score={"use": "label_to_score", "with": {"mapping": {"yes": 1}}},
                ),
            ),
            ["calculate_score.with.field"],
        ),
        (
            (
                StepDraft(
                    step="generate_score",
                    description="Score",
                    template="{{ output }}",
                    output_schema=ANSWER,
                    calculate_score={"formula": "judge_output.polite == 'yes'"},
                ),
            ),
            [],
        ),
        ((StepDraft(step="generate_score", formula="score + 1"),), ["formula"]),
        ((_analyze(), StepDraft(step="generate_score", formula="len(results)")), []),
    ],
)
def test_references_are_checked_where_they_are_read(steps, found):
    assert [m.field for m in _missing(*steps)] == found


def test_the_result_of_a_built_in_may_hold_anything():
    prepare = StepDraft.builtin("text_difference")
    prepare.step = "preprocess"
    formula = StepDraft(step="generate_score", formula="results.preprocess_step_result.distance")
    assert _missing(prepare, formula) == []


def test_built_ins_mark_what_their_field_parameters_read():
    props = REGISTRY.get("label_to_score").params_schema["properties"]
    assert props["field"][READS_FIELD] == "label"
    assert props["mapping"]["title"] == "Score of each label"
    assert REGISTRY.get("clamp").params_schema["properties"]["field"][READS_FIELD] == "number"
    assert REGISTRY.get("contains").params_schema["properties"]["field"][READS_FIELD] == "any"
    for entry in REGISTRY.entries():
        for prop in entry.params_schema["properties"].values():
            assert "_step_result" not in prop.get("description", ""), entry.name


def test_pickers_and_defaults_come_from_what_exists():
    draft = ScorerDraft(steps=[_analyze(), _score()])
    groups = draft.fields_available_at("generate_score")
    choices = choices_of(groups)
    assert choices["step2.polite"] == "Step 2, the judge's answer › polite"
    assert choices["ground_truth"] == "The example › expected answer"
    label = first_label_field(groups)
    assert label is not None
    assert (label.path, label.choices) == ("step2.solved", ("yes", "partly", "no"))
    assert label.template == "{{ step2.solved }}"
    assert first_number_field(groups) is None
    reason = draft.fields_available_at("generate_reason")
    number = first_number_field(reason)
    assert number is not None
    assert number.path == "score"


def test_spaced_scores_run_from_one_to_zero():
    assert spaced_scores(["yes", "partly", "no"]) == {"yes": 1.0, "partly": 0.5, "no": 0.0}
    assert spaced_scores(["pass"]) == {"pass": 1.0}
