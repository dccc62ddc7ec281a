"""``ScorerDraft``: the builder's working copy, its steps, and its problems by form field."""

from __future__ import annotations

import json

from scorer_runtime.spec import (
    DraftProblem,
    JudgeSpec,
    ScorerDraft,
    ScorerSpec,
    SpecProblem,
    StepDraft,
    load_spec,
)

from .conftest import SCORERS


def test_an_empty_draft_is_valid_and_every_problem_names_its_form_field(registry):
    draft = ScorerDraft()
    assert draft.steps == []
    draft = ScorerDraft.model_validate(
        {
            "name": "x",
            "judge": {"instructions": "Grade."},
            "steps": [
                {
                    "step": "analyze",
                    "description": "d",
                    "template": "{{ output }}",
                    "output_schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
                },
                {
                    "step": "generate_score",
                    "use": "label_to_score",
                    "with": {"field": "results.analyze_step_result.verdict"},
                },
                {"step": "generate_reason", "template": "{{ score }}"},
            ],
        }
    )
    problems = draft.to_spec(registry=registry)
    assert isinstance(problems, list)
    fields = [p.field for p in problems]
    assert "id" in fields
    assert "description" in fields
    assert "steps.generate_reason.description" in fields
    assert "steps.generate_score.with.mapping" in fields
    assert "steps.analyze.judge" in fields  # no model, neither on the scorer nor the step
    mapping = next(p for p in problems if p.field == "steps.generate_score.with.mapping")
    assert mapping.path == "steps[1].with.mapping"
    assert str(mapping) == f"steps.generate_score.with.mapping: {mapping.message}"


def test_a_finished_draft_is_its_spec_and_every_demo_spec_round_trips(registry):
    for path in sorted(SCORERS.glob("*.json")):
        spec = load_spec(path, registry=registry)
        draft = ScorerDraft.from_spec(spec)
        assert draft.to_spec(registry=registry) == spec, path.name
        stored = json.loads(json.dumps(draft.to_data()))
        assert ScorerDraft.model_validate(stored) == draft, path.name
        assert ScorerSpec.model_validate(stored) == spec


def test_from_spec_keeps_a_value_written_as_its_default():
    data = {
        "id": "s",
        "description": "d",
        "judge": {"model": "openai/x", "retry": {"max_retries": 2}},
        "steps": [{"step": "generate_score", "formula": "1"}],
    }
    draft = ScorerDraft.from_spec(ScorerSpec.model_validate(data))
    assert draft.judge == {"model": "openai/x", "retry": {"max_retries": 2}}
    assert draft.to_data() == data


def test_steps_are_put_in_pipeline_order_and_read_by_name():
    draft = ScorerDraft()
    draft.put_step("generate_score", StepDraft(formula="1"))
    draft.put_step("analyze", StepDraft(description="d", template="t"))
    draft.put_step("generate_reason", StepDraft(use="join_text"))
    assert [s.step for s in draft.steps] == ["analyze", "generate_score", "generate_reason"]
    assert [draft.how(n) for n in ("preprocess", "analyze", "generate_score")] == [
        "skip",
        "judge",
        "formula",
    ]
    assert draft.how("generate_reason") == "builtin"
    assert draft.step_index("generate_score") == 1
    copy = draft.step("analyze")
    assert copy is not None
    copy.template = "changed"
    assert draft.step("analyze").template == "t"  # a copy: the draft changes by put_step only
    draft.put_step("analyze", None)
    assert [s.step for s in draft.steps] == ["generate_score", "generate_reason"]
    assert [s.step for s in draft.prompt_steps()] == []


def test_a_half_filled_step_and_unknown_keys_are_kept_and_named():
    draft = ScorerDraft.model_validate(
        {"id": "s", "description": "d", "steps": [{"step": "generate_score", "formla": "1"}]}
    )
    assert draft.to_data()["steps"] == [{"step": "generate_score", "formla": "1"}]
    problems = draft.problems()
    assert any(p.field.startswith("steps.generate_score") for p in problems), problems


def test_the_draft_answers_the_same_questions_as_the_spec():
    draft = ScorerDraft.model_validate(
        {
            "judge": {"api_key_env": "A_KEY"},
            "steps": [
                {"step": "analyze", "template": "t", "judge": "strict"},
                {"step": "generate_score", "template": "t", "judge": {"api_key_env": "C_KEY"}},
            ],
        }
    )
    assert draft.judge_refs() == [{"api_key_env": "A_KEY"}, "strict", {"api_key_env": "C_KEY"}]
    assert draft.key_envs({"strict": JudgeSpec(api_key_env="B_KEY")}) == [
        "A_KEY",
        "B_KEY",
        "C_KEY",
    ]
    groups = draft.fields_available_at("generate_score")
    assert [g.source for g in groups] == ["example", "analyze"]
    assert groups[1].fields[0].path == "step2"


def test_a_problem_of_the_whole_scorer_names_no_field():
    problem = ScorerDraft().problem(SpecProblem("", "broken"))
    assert problem == DraftProblem("", "broken", "")
    assert str(problem) == "broken"
