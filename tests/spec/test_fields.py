"""What a step can read (``fields_available_at``), and that every reference it gives works in
a formula, a prompt template, a built-in's field and calculate_score."""

from __future__ import annotations

import pytest

from scorer_runtime.spec import FieldGroup, FieldRef, JudgeSpec, ScorerSpec, compile_spec

SOLVED = {
    "type": "object",
    "properties": {
        "solved": {"type": "string", "enum": ["yes", "no"], "description": "Is it solved?"},
        "polite": {"type": "boolean"},
    },
    "required": ["solved", "polite"],
}


def _spec(**extra):
    return ScorerSpec.model_validate(
        {
            "id": "s",
            "description": "d",
            "judge": {"model": "openai/x", "instructions": "Grade.", "api_key_env": "A_KEY"},
            "steps": [
                {"step": "preprocess", "formula": "len(output)"},
                {
                    "step": "analyze",
                    "description": "Solved?",
                    "template": "{{ output }}",
                    "output_schema": SOLVED,
                    "judge": {"api_key_env": "B_KEY"},
                },
                {"step": "generate_score", "formula": "1"},
                {"step": "generate_reason", "description": "Why", "template": "{{ score }}"},
            ],
            **extra,
        }
    )


def test_a_step_sees_the_example_and_every_earlier_step_grouped_by_source():
    groups = _spec().fields_available_at("generate_score")
    assert [(g.source, g.label) for g in groups] == [
        ("example", "The example"),
        ("preprocess", "Step 1, the prepared data"),
        ("analyze", "Step 2, the judge's answer"),
    ]
    assert [f.path for f in groups[0].fields] == [
        "input",
        "output",
        "ground_truth",
        "request_context",
    ]
    assert groups[0].fields[2].label == "expected answer"
    assert groups[1].fields == (FieldRef("step1", "prepared data"),)
    assert groups[2] == FieldGroup(
        "analyze",
        "Step 2, the judge's answer",
        (
            FieldRef(
                "step2.solved",
                "solved",
                "string",
                ("yes", "no"),
                "Is it solved?",
            ),
            FieldRef("step2.polite", "polite", "boolean"),
        ),
    )


def test_the_first_step_sees_only_the_example_and_the_reason_sees_the_score():
    spec = _spec()
    assert [g.source for g in spec.fields_available_at("preprocess")] == ["example"]
    last = spec.fields_available_at("generate_reason")
    assert [g.source for g in last] == ["example", "preprocess", "analyze", "generate_score"]
    assert last[-1].fields == (FieldRef("score", "score", "number"),)


def test_agent_shapes_request_context_keys_and_what_prepare_hides():
    spec = _spec(type="agent", prepare={"drop_ground_truth": True})
    example = spec.fields_available_at("analyze", request_context_keys=["user_tier"])[0]
    assert [f.path for f in example.fields] == [
        "input.input_messages",
        "input.remembered_messages",
        "input.system_messages",
        "input.tagged_system_messages",
        "output",
        "request_context",
        "request_context.user_tier",
    ]


def test_calculate_score_also_sees_its_own_judge_answer_as_judge_output():
    spec = ScorerSpec.model_validate(
        {
            "id": "s",
            "description": "d",
            "judge": {"model": "openai/x", "instructions": "Grade."},
            "steps": [
                {
                    "step": "generate_score",
                    "description": "Grade",
                    "template": "{{ output }}",
                    "output_schema": SOLVED,
                    "calculate_score": {"field": "solved"},
                }
            ],
        }
    )
    groups = spec.fields_available_at("generate_score", own_answer=True)
    assert groups[-1].label == "This step, the judge's answer"
    assert [f.path for f in groups[-1].fields] == ["judge_output.solved", "judge_output.polite"]
    assert [g.source for g in spec.fields_available_at("generate_score")] == ["example"]


def test_prompt_steps_judge_refs_and_key_envs():
    spec = _spec()
    assert [s.step for s in spec.prompt_steps()] == ["analyze", "generate_reason"]
    assert spec.judge_refs() == [spec.judge, JudgeSpec(api_key_env="B_KEY")]
    assert spec.key_envs() == ["A_KEY", "B_KEY"]
    by_profile = ScorerSpec.model_validate(
        {"id": "p", "description": "d", "judge": "strict", "steps": [_spec().steps[2]]}
    )
    assert by_profile.judge_refs() == ["strict"]
    assert by_profile.key_envs() == []
    assert by_profile.key_envs({"strict": JudgeSpec(api_key_env="S_KEY")}) == ["S_KEY"]
    assert by_profile.prompt_steps() == []


@pytest.mark.parametrize(
    "reads",
    [
        {"step": "generate_score", "formula": "1 if {ref} == 'yes' else 0"},
        {
            "step": "generate_score",
            "use": "label_to_score",
            "with": {"mapping": {"yes": 1, "no": 0}, "field": "{ref}"},
        },
    ],
    ids=["formula", "builtin-field"],
)
def test_every_offered_reference_reads_the_value_in_a_real_run(
    reads, fake_judge, judge_key, registry
):
    fake_judge.reply({"solved": "yes", "polite": True}, when="[analyze]")
    fake_judge.reply("Because it is solved.", when="[reason]")
    judge = {
        "model": "openai/fake-judge",
        "instructions": "Grade.",
        "api_base": fake_judge.base_url,
        "api_key_env": "OPENAI_API_KEY",
        "json_prompt_injection": "system",
        "timeout_s": 5,
    }
    analyze = {
        "step": "analyze",
        "description": "Solved?",
        "template": "[analyze] {{ output }}",
        "output_schema": SOLVED,
    }
    placeholder = {"step": "generate_score", "formula": "0"}
    base = ScorerSpec.model_validate(
        {"id": "s", "description": "d", "judge": judge, "steps": [analyze, placeholder]}
    )
    [solved] = [
        f
        for g in base.fields_available_at("generate_score")
        for f in g.fields
        if f.label == "solved"
    ]
    step = dict(reads)
    if "formula" in step:
        step["formula"] = step["formula"].format(ref=solved.path)
    else:
        step["with"] = {**step["with"], "field": solved.path}
    [score_ref] = base.fields_available_at("generate_reason")[-1].fields
    reason = {
        "step": "generate_reason",
        "description": "Why",
        "template": f"[reason] {{{{ {solved.path} }}}} {{{{ {score_ref.path} }}}}",
    }
    spec = {"id": "s", "description": "d", "judge": judge, "steps": [analyze, step, reason]}
    result = compile_spec(spec, registry).run_sync(input="q", output="a")
    assert result.score == 1.0
    assert result.generate_reason_prompt == "[reason] yes 1.0"


def test_calculate_score_reads_its_own_answer_through_the_offered_reference(
    fake_judge, judge_key, registry
):
    fake_judge.reply({"solved": "no", "polite": True})
    step = {
        "step": "generate_score",
        "description": "Grade",
        "template": "{{ output }}",
        "output_schema": SOLVED,
        "calculate_score": {"formula": "0"},
    }
    judge = {
        "model": "openai/fake-judge",
        "instructions": "Grade.",
        "api_base": fake_judge.base_url,
        "api_key_env": "OPENAI_API_KEY",
        "json_prompt_injection": "system",
        "timeout_s": 5,
    }
    base = ScorerSpec.model_validate(
        {"id": "s", "description": "d", "judge": judge, "steps": [step]}
    )
    own = base.fields_available_at("generate_score", own_answer=True)[-1].fields[0]
    calculate = {
        "use": "label_to_score",
        "with": {"mapping": {"yes": 1, "no": 0.25}, "field": own.path},
    }
    spec = {
        "id": "s",
        "description": "d",
        "judge": judge,
        "steps": [{**step, "calculate_score": calculate}],
    }
    assert compile_spec(spec, registry).run_sync(output="a").score == 0.25
