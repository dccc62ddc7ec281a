"""export_python / export_json / export_yaml: readable, lint-clean, runnable, and loadable."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

from scorer_runtime import Scorer
from scorer_runtime.spec import (
    ScorerSpec,
    SpecError,
    StepEntry,
    StepRegistry,
    export_json,
    export_python,
    export_yaml,
    load_spec,
)
from scorer_runtime.spec.builtins import BUILTIN_ENTRIES, KeywordCoverageParams

from .conftest import ROOT, demo_spec_paths

RUFF = Path(sys.executable).with_name("ruff")  # the ruff installed beside this Python


def ruff_problems(files):
    """What ``ruff check`` and ``ruff format --check`` say about ``files`` (project config)."""
    # Plugins are imported from the engineer's own modules, which the export writes in the
    # third-party block; here such a plugin lives in this test module (tests.spec.…), which
    # the project's own config would count as first party.
    config = [
        *("--config", str(ROOT / "pyproject.toml")),
        *("--config", 'lint.isort.known-third-party = ["tests"]'),
        "--no-cache",
    ]
    out = []
    for command in (["check", *config], ["format", "--check", "--diff", *config]):
        done = subprocess.run(
            [str(RUFF), *command, *map(str, files)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        if done.returncode != 0:
            out.append(done.stdout + done.stderr)
    return "\n".join(out)


EDGE = {
    "id": "edge-cases",
    "name": 'The "edge" cases — ünïcödé, 漢字 and \\ backslashes',
    "description": "A description long enough to be wrapped over several lines of the module "
    "docstring, with \"double\" and 'single' quotes, a tab\there, 全角の文字 and emoji 🎉, "
    'and a triple quote """ that must not end the docstring.',
    "judge": {
        "model": "openai/gpt-4o-mini",
        "instructions": "Line one.\nLine two has a very long sentence that goes on and on "
        "until it cannot possibly fit on a single line of code, and a 'quote'.",
        "api_key_env": "OPENAI_API_KEY",
        "retry": {"delay": 0, "retry_on_text": ["it's overloaded", 'say "again"']},
        "truncate": {"max_tokens": 4000, "keep": "both"},
    },
    "steps": [
        {
            "step": "preprocess",
            "use": "keyword_coverage",
            "with": {"keywords": ["x" * 120, 'quote"d', "back\\slash", "漢字" * 30]},
        },
        {
            "step": "analyze",
            "description": "A step with a long prompt",
            "template": "{{ output }}\n" + "word " * 60 + "\n\n\ttabbed\r\nand\x07bell\u2028sep",
            "output_schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            "judge": {"instructions": "Override", "temperature": 0.0},
        },
        {"step": "generate_score", "formula": "1 if results.analyze_step_result.ok else 0"},
        {"step": "generate_reason", "formula": "'a \\'quoted\\' \"reason\" ' + str(score)"},
    ],
}


def test_exported_code_is_lint_clean_and_formatted(tmp_path, registry):
    files = []
    for path in [*demo_spec_paths(), None]:
        spec = load_spec(path if path else EDGE, registry=registry)
        target = tmp_path / f"{spec.id.replace('-', '_')}.py"
        target.write_text(export_python(spec, registry), encoding="utf-8")
        files.append(target)
    assert len(files) >= 9
    assert ruff_problems(files) == ""


def test_exported_code_reads_well(registry):
    code = export_python(load_spec(ROOT / "data/scorers/rubric-judge.json"), registry)
    assert code.startswith('"""Resolves the question (rubric): A rubric grade')
    assert (
        "from scorer_runtime import Judge, PromptStep, RedactPII, StreamErrorRetryProcessor, "
        "create_scorer\n"
    ) in code
    assert "from scorer_runtime.spec import judge_field" not in code
    assert "from scorer_runtime.spec.builtins import label_to_score" in code
    assert 'api_key_env="OPENAI_API_KEY",' in code
    assert "api_key=" not in code
    assert "\ngenerate_score_step = PromptStep(\n" in code
    assert "create_prompt=template(\n" in code
    assert "calculate_score=label_to_score(" in code
    assert "delay_ms=exponential_backoff(initial_ms=500, factor=2.0, max_ms=8000)" in code
    assert "\nscorer = (\n    create_scorer(\n" in code
    assert "    .generate_score(generate_score_step)\n" in code
    assert code.endswith('if __name__ == "__main__":\n    main(sys.argv[1:])\n')
    compile(code, "rubric_judge.py", "exec")


def test_the_module_exposes_the_scorer_and_runs_as_a_script(tmp_path, import_code, registry):
    spec = load_spec(ROOT / "data/scorers/keyword-coverage.json", registry=registry)
    code = export_python(spec, registry)
    module = import_code(code)
    assert isinstance(module.scorer, Scorer)
    assert module.scorer.id == "keyword-coverage"
    script = tmp_path / "keyword_coverage.py"
    script.write_text(code)
    example = {"output": "Refunds take 5-7 business days.", "ground_truth": ["refund", "email"]}
    example_file = tmp_path / "example.json"
    example_file.write_text(json.dumps(example))
    runs = [
        ([json.dumps(example)], None),
        ([str(example_file)], None),
        ([], json.dumps(example)),
    ]
    for argv, stdin in runs:
        done = subprocess.run(
            [sys.executable, str(script), *argv],
            input=stdin,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        result = json.loads(done.stdout)
        assert result["score"] == 0.5
        assert result["reason"] == 'Missing 1 of 2 key facts: ["email"]'
    done = subprocess.run(
        [sys.executable, str(script), '{"input": "no output"}'],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 1
    assert 'must be a JSON object with an "output" key' in done.stderr


def test_the_script_calls_the_judge_with_the_key_from_the_environment(
    tmp_path, fake_judge, registry
):
    fake_judge.reply({"score": 0.9, "filler": []}, when="Rate how concise")
    fake_judge.reply("Short and complete.", when="In one sentence")
    spec = load_spec(ROOT / "data/scorers/conciseness.json", registry=registry)
    judge = spec.judge.model_copy(update={"api_base": fake_judge.base_url})
    script = tmp_path / "conciseness.py"
    script.write_text(export_python(spec.model_copy(update={"judge": judge}), registry))
    env = {
        "PATH": "/usr/bin:/bin",
        "OPENAI_API_KEY": "sk-from-env",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    done = subprocess.run(
        [sys.executable, str(script), '{"input": "Hi?", "output": "Hello."}'],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    )
    result = json.loads(done.stdout)
    assert (result["score"], result["reason"]) == (0.9, "Short and complete.")
    assert fake_judge.chat_requests[0].headers["authorization"] == "Bearer sk-from-env"


def test_plugin_names_that_clash_are_imported_under_an_alias(tmp_path, import_code):
    entry = StepEntry(
        name="template",
        title="A clashing plugin",
        description="Named like the template helper; exported code must still work.",
        suits=frozenset({"generate_score"}),
        params_model=KeywordCoverageParams,
        factory=template,
        category="Text",
    )
    registry = StepRegistry([*BUILTIN_ENTRIES, entry])
    spec = {
        "id": "clash",
        "description": "d",
        "steps": [
            {
                "step": "analyze",
                "description": "a",
                "template": "{{ output }}",
                "output_schema": {},
            },
            {"step": "generate_score", "use": "template", "with": {"keywords": ["a"]}},
        ],
        "judge": {"model": "openai/x", "instructions": "i"},
    }
    code = export_python(spec, registry)
    assert "from scorer_runtime.spec import template\n" in code
    assert f"from {__name__} import template as template_1\n" in code
    assert '.generate_score(template_1(keywords=["a"]))' in code
    path = tmp_path / "clash.py"
    path.write_text(code)
    assert ruff_problems([path]) == ""
    assert import_code(code).scorer.steps[1].call.fn == ClashStep(("a",))


class ReservedParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    klass: str = Field(alias="class")


def reserved_words(**params):
    """A plugin factory whose parameter is a Python keyword ("class")."""
    return ClashStep((ReservedParams.model_validate(params).klass,))


def test_parameters_named_like_python_keywords_are_passed_as_a_dict(tmp_path, import_code):
    entry = StepEntry(
        name="reserved_words",
        title="A plugin with a keyword parameter",
        description="Its parameter is called class.",
        suits=frozenset({"generate_score"}),
        params_model=ReservedParams,
        factory=reserved_words,
        category="Text",
    )
    registry = StepRegistry([entry])
    spec = {
        "id": "kw",
        "description": "d",
        "steps": [{"step": "generate_score", "use": "reserved_words", "with": {"class": "vip"}}],
    }
    code = export_python(spec, registry)
    assert '.generate_score(reserved_words(**{"class": "vip"}))' in code
    path = tmp_path / "reserved.py"
    path.write_text(code)
    assert ruff_problems([path]) == ""
    assert import_code(code).scorer.steps[0].call.fn == ClashStep(("vip",))


@dataclass(frozen=True)
class ClashStep:
    keywords: tuple[str, ...]

    def __call__(self) -> float:
        return 1.0


def template(**params):
    """A plugin factory whose name clashes with scorer_runtime.spec.template."""
    return ClashStep(tuple(params["keywords"]))


def test_json_and_yaml_leave_defaults_out_and_load_back(registry):
    spec = load_spec(ROOT / "data/scorers/answer-relevancy.json", registry=registry)
    text = export_json(spec)
    assert '"schema_version"' not in text
    assert '"type": "plain"' not in text
    assert text.endswith("}\n")
    assert load_spec(text, registry=registry) == spec
    yaml_text = export_yaml(spec)
    assert "template: |-\n    Break the answer below" in yaml_text
    assert load_spec(yaml_text, registry=registry) == spec


def test_exporting_an_invalid_spec_reports_its_problems(registry):
    with pytest.raises(SpecError, match=r"steps\[0\]\.use"):
        export_python(
            {"id": "x", "description": "d", "steps": [{"step": "generate_score", "use": "nope"}]},
            registry,
        )
    assert isinstance(load_spec(EDGE, registry=registry), ScorerSpec)
