"""Loading specs from JSON, YAML, files and dicts; every problem reported at once, with paths."""

from __future__ import annotations

import json

import pytest

from scorer_runtime.spec import (
    JudgeSpec,
    ScorerSpec,
    SpecError,
    SpecProblem,
    export_json,
    export_yaml,
    load_spec,
    spec_problems,
)

JUDGE = {"model": "openai/gpt-4o-mini", "instructions": "Grade strictly.", "api_key_env": "K"}
GOOD = {
    "id": "kw",
    "description": "Mentions the refund policy",
    "judge": JUDGE,
    "steps": [
        {"step": "preprocess", "use": "keyword_coverage", "with": {"keywords": ["refund"]}},
        {
            "step": "analyze",
            "description": "Is it polite?",
            "template": "Is this polite? {{ output }}",
            "output_schema": {"type": "object", "properties": {"polite": {"type": "boolean"}}},
        },
        {"step": "generate_score", "formula": "results.preprocess_step_result"},
    ],
}

YAML = """\
id: kw
description: Mentions the refund policy
steps:
  - step: generate_score
    use: keyword_coverage
    with:
      keywords: [refund, 30 days]
"""


def paths(error: SpecError) -> list[str]:
    return [problem.path for problem in error.problems]


def test_loads_from_a_dict_json_yaml_a_file_and_a_spec(tmp_path, registry):
    spec = load_spec(GOOD, registry=registry)
    assert isinstance(spec, ScorerSpec)
    assert load_spec(json.dumps(GOOD), registry=registry) == spec
    assert load_spec(export_yaml(spec), registry=registry) == spec
    assert load_spec(spec, registry=registry) is spec
    json_file = tmp_path / "kw.json"
    json_file.write_text(export_json(spec))
    assert load_spec(json_file, registry=registry) == spec
    # A file name given as text is text, never read from disk (text may come from a person).
    with pytest.raises(SpecError, match=r"a file.s name rather than a scorer"):
        load_spec(str(json_file), registry=registry)
    yaml_file = tmp_path / "kw.yaml"
    yaml_file.write_text(YAML)
    from_yaml = load_spec(yaml_file, registry=registry)
    assert from_yaml.steps[0].with_ == {"keywords": ["refund", "30 days"]}
    assert load_spec(YAML, registry=registry) == from_yaml


def test_every_problem_is_reported_at_once_with_its_path(registry):
    data = {
        "id": "broken",
        "description": "Everything wrong at once",
        "judge": {**JUDGE, "api_key": "sk-live-123", "temprature": 0},
        "steps": [
            {"step": "preprocess", "use": "keyword_coverge", "with": {}},
            {"step": "analyze", "use": "keyword_coverage", "with": {"keywords": "refund"}},
            {"step": "analyze", "formula": "len(output) +"},
            {"step": "generate_reason", "formula": "'ok'"},
            {"step": "generate_score", "description": "Score", "template": "{{ output "},
            {"step": "preprocess", "description": "Extract", "template": "{{ output }}"},
            {"step": "generate_scor", "formula": "1"},
        ],
    }
    with pytest.raises(SpecError) as caught:
        load_spec(data, registry=registry)
    found = {problem.path: problem.message for problem in caught.value.problems}
    assert set(found) == {
        "judge.api_key",
        "judge.temprature",
        "steps[0].use",
        "steps[1].with.keywords",
        "steps[2].formula",
        "steps[2].step",
        "steps[4].template",
        "steps[4].calculate_score",
        "steps[4].step",
        "steps[5].output_schema",
        "steps[5].step",
        "steps[6].step",
    }
    assert "API key" in found["judge.api_key"]
    assert "api_key_env" in found["judge.api_key"]
    assert "Did you mean 'temperature'?" in found["judge.temprature"]
    assert "'keyword_coverage'" in found["steps[0].use"]
    assert found["steps[0].use"].index("keyword_coverage") < found["steps[0].use"].index("regex")
    assert "already a analyze step" in found["steps[2].step"]
    assert "must come before the generate_reason step" in found["steps[4].step"]
    assert "needs calculate_score" in found["steps[4].calculate_score"]
    assert "needs an output_schema" in found["steps[5].output_schema"]
    assert "did you mean 'generate_score'?" in found["steps[6].step"]
    message = str(caught.value)
    assert message.startswith("The scorer spec has 12 problems:")
    assert all(f"  - {path}" in message for path in found)


def test_a_missing_generate_score_and_wrong_step_order(registry):
    data = {
        **GOOD,
        "steps": [
            {"step": "analyze", "formula": "1"},
            {"step": "preprocess", "formula": "2"},
            {"step": "generate_reason", "formula": "'x'"},
        ],
    }
    problems = spec_problems(data, registry=registry)
    assert [str(p) for p in problems] == [
        "steps[1].step: the preprocess step must come before the analyze step (steps run in "
        "the order preprocess, analyze, generate_score, generate_reason)",
        "steps: there is no generate_score step; add one: it computes the score",
    ]


def test_prompt_steps_are_checked(registry):
    schema = {"type": "object", "properties": {"verdict": {"type": "string"}}}
    data = {
        "id": "p",
        "description": "d",
        "steps": [
            {"step": "analyze", "description": "a", "template": "t", "output_schema": {"type": 5}},
            {
                "step": "generate_score",
                "description": "s",
                "template": "t",
                "output_schema": schema,
                "calculate_score": {"field": "score"},
            },
            {
                "step": "generate_reason",
                "description": "r",
                "template": "t",
                "output_schema": schema,
                "judge": {"model": "m"},
            },
        ],
    }
    found = {p.path: p.message for p in spec_problems(data, registry=registry)}
    assert set(found) == {
        "steps[0].output_schema",
        "steps[0].judge",
        "steps[1].calculate_score.field",
        "steps[1].judge",
        "steps[2].output_schema",
        "steps[2].judge",
    }
    assert "not a valid JSON Schema" in found["steps[0].output_schema"]
    assert "no field 'score'" in found["steps[1].calculate_score.field"]
    assert "verdict" in found["steps[1].calculate_score.field"]
    assert "plain text" in found["steps[2].output_schema"]
    assert "no model or instructions is set" in found["steps[0].judge"]
    assert "no instructions is set" in found["steps[2].judge"]


def test_built_in_fit_and_calculate_score_checks(registry):
    data = {
        **GOOD,
        "steps": [
            {"step": "generate_score", "use": "text_difference"},
            {"step": "generate_reason", "use": "keyword_coverage", "with": {"keywords": ["a"]}},
        ],
    }
    found = {p.path: p.message for p in spec_problems(data, registry=registry)}
    assert set(found) == {"steps[0].use", "steps[1].use"}
    assert "does not fit a generate_score step" in found["steps[0].use"]
    step = {
        "step": "generate_score",
        "description": "s",
        "template": "t",
        "calculate_score": {"use": "label_to_score", "with": {"mapping": "yes"}},
    }
    found = {p.path for p in spec_problems({**GOOD, "steps": [step]}, registry=registry)}
    assert found == {"steps[0].calculate_score.with.mapping"}
    step["calculate_score"] = {"formula": "judge_output.score +"}
    found = {p.path for p in spec_problems({**GOOD, "steps": [step]}, registry=registry)}
    assert found == {"steps[0].calculate_score.formula"}
    step["step"] = "analyze"
    step["output_schema"] = {"type": "object"}
    found = {p.path for p in spec_problems({**GOOD, "steps": [step]}, registry=registry)}
    assert found == {"steps[0].calculate_score", "steps"}


def test_judge_profiles(registry):
    data = {**GOOD, "judge": "team-default"}
    assert spec_problems(data, registry=registry) == []  # no profiles given: not checked
    profiles = {"team-default": JudgeSpec(model="openai/gpt-4o-mini", instructions="Grade.")}
    assert spec_problems(data, registry=registry, judge_profiles=profiles) == []
    problems = spec_problems(data, registry=registry, judge_profiles={"other": JudgeSpec()})
    assert [p.path for p in problems] == ["judge"]
    assert "no saved judge profile named 'team-default'" in problems[0].message
    assert "other" in problems[0].message
    half = {"team-default": JudgeSpec(model="openai/gpt-4o-mini")}
    problems = spec_problems(data, registry=registry, judge_profiles=half)
    assert [(p.path, "instructions" in p.message) for p in problems] == [("steps[1].judge", True)]


def test_a_step_judge_completes_the_scorer_judge(registry):
    steps = list(GOOD["steps"])
    steps[1] = {**steps[1], "judge": {"instructions": "Be kind."}}
    data = {**GOOD, "judge": {"model": "openai/gpt-4o-mini"}, "steps": steps}
    assert spec_problems(data, registry=registry) == []


def test_json_problems_carry_line_numbers(registry):
    text = export_json(ScorerSpec.model_validate(GOOD)).replace('"refund"', "5")
    text = text.replace('"step": "analyze"', '"step": "analyse"')
    problems = spec_problems(text, registry=registry)
    lines = text.splitlines()
    assert [p.path for p in problems] == ["steps[1].step", "steps[0].with.keywords[0]"]
    assert '"step": "analyse"' in lines[problems[0].line - 1]
    assert lines[problems[1].line - 1].strip() == "5"
    assert "(line " in str(SpecError(problems))


def test_yaml_problems_carry_line_numbers(registry):
    text = YAML.replace("keywords: [refund, 30 days]", "keyword: [refund]")
    problems = spec_problems(text, registry=registry)
    assert [(p.path, p.line) for p in problems] == [("steps[0].with.keyword", 7)]
    assert problems[0].message.startswith("unknown parameter")


def test_syntax_errors_name_the_line(tmp_path, registry):
    with pytest.raises(SpecError, match=r"not valid JSON") as caught:
        load_spec('{\n  "id": "x",\n  "steps": [\n}', registry=registry)
    assert caught.value.problems[0].line == 4
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: x\nsteps:\n  - step: [unclosed\n")
    with pytest.raises(
        SpecError, match=r"bad\.yaml has a problem: \(the spec\) \(line \d\): not valid YAML"
    ):
        load_spec(bad, registry=registry)


def test_files_that_cannot_be_read_or_are_not_specs(tmp_path, registry):
    with pytest.raises(SpecError, match=r"missing\.json has a problem: .*cannot read the file"):
        load_spec(tmp_path / "missing.json", registry=registry)
    for text, kind in (("- a\n- b\n", "a list"), ("", "nothing"), ("42", "a number")):
        with pytest.raises(
            SpecError, match=f"an object with id, description and steps; this holds {kind}"
        ):
            load_spec(text, registry=registry)
    with pytest.raises(SpecError, match=r"'data/scorers/tone', a file's name rather than a"):
        load_spec("data/scorers/tone", registry=registry)
    with pytest.raises(SpecError, match="an object with id"):
        load_spec("/etc/passwd", registry=registry)  # text, never a file to read
    with pytest.raises(SpecError, match="not int"):
        load_spec(42, registry=registry)  # type: ignore[arg-type]


def test_a_valid_spec_has_no_problems_with_the_default_registry():
    assert spec_problems(GOOD) == []
    problem = SpecProblem("steps[0].use", "unknown")
    assert str(problem) == "steps[0].use: unknown"
    assert str(SpecProblem("", "empty")) == "(the spec): empty"


def test_infinite_numbers_are_refused(registry):
    text = YAML.replace("keywords: [refund, 30 days]", "keywords: [refund]\n      weight: .inf")
    problems = spec_problems(text, registry=registry)
    assert ("steps[0].with.weight", 8) in [(p.path, p.line) for p in problems]
    assert any("not a usable number" in p.message for p in problems)
