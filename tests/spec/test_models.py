"""The spec models: shapes, defaults left out when writing, inferred step kinds, the schema."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import ValidationError

from scorer_runtime.spec import (
    ExponentialDelaySpec,
    FieldScoreSpec,
    FormulaStepSpec,
    FunctionScoreSpec,
    FunctionStepSpec,
    JudgeSpec,
    PromptStepSpec,
    RetryPolicySpec,
    ScorerSpec,
    TruncateSpec,
    export_json,
    spec_json_schema,
)
from scorer_runtime.spec.models import OutputGuardSpec, RedactPIISpec
from scorer_runtime.spec.models.schema import SCHEMA_PATH, main, schema_text

from .conftest import demo_spec_paths

MINIMAL = {
    "id": "tone",
    "description": "Is the answer polite?",
    "steps": [{"step": "generate_score", "formula": "1"}],
}


def test_kind_is_read_from_the_keys():
    spec = ScorerSpec.model_validate(
        {
            **MINIMAL,
            "judge": {"model": "openai/gpt-4o-mini", "instructions": "Grade."},
            "steps": [
                {"step": "preprocess", "use": "json_valid", "with": {"expect": "object"}},
                {"step": "analyze", "description": "Ask", "template": "Hi", "output_schema": {}},
                {"step": "generate_score", "formula": "1"},
            ],
        }
    )
    kinds = [type(step) for step in spec.steps]
    assert kinds == [FunctionStepSpec, PromptStepSpec, FormulaStepSpec]
    assert spec.steps[0].with_ == {"expect": "object"}


def test_an_explicit_kind_wins_and_is_not_written_back():
    with pytest.raises(ValidationError) as caught:
        ScorerSpec.model_validate(
            {**MINIMAL, "steps": [{"kind": "prompt", "step": "generate_score", "formula": "1"}]}
        )
    assert {e["loc"][-1] for e in caught.value.errors()} == {"description", "template", "formula"}
    spec = ScorerSpec.model_validate(
        {**MINIMAL, "steps": [{"kind": "formula", "step": "generate_score", "formula": "1"}]}
    )
    assert "kind" not in export_json(spec)


def test_calculate_score_kinds():
    def calc(value):
        step = {"step": "generate_score", "description": "d", "template": "t"}
        return PromptStepSpec.model_validate({**step, "calculate_score": value}).calculate_score

    assert calc({"field": "verdict.score"}) == FieldScoreSpec(field="verdict.score")
    assert isinstance(calc({"use": "label_to_score", "with": {"mapping": {}}}), FunctionScoreSpec)
    with pytest.raises(ValidationError, match="calculate_score is"):
        calc({"fields": "score"})
    with pytest.raises(ValidationError):
        calc({"field": "a..b"})


def test_writing_leaves_defaults_out_and_keeps_field_order():
    spec = ScorerSpec.model_validate(
        {
            **MINIMAL,
            "type": "plain",
            "judge": {"model": "m", "instructions": "i", "retry": {"max_retries": 2}},
        }
    )
    assert json.loads(export_json(spec)) == {
        "id": "tone",
        "description": "Is the answer polite?",
        "judge": {"model": "m", "instructions": "i", "retry": {}},
        "steps": [{"step": "generate_score", "formula": "1"}],
    }
    assert list(json.loads(export_json(spec))) == ["id", "description", "judge", "steps"]


def test_specs_are_immutable_and_name_defaults_to_id():
    spec = ScorerSpec.model_validate(MINIMAL)
    with pytest.raises(ValidationError):
        spec.id = "other"  # type: ignore[misc]
    assert spec.display_name == "tone"
    assert spec.model_copy(update={"name": "Tone"}).display_name == "Tone"


@pytest.mark.parametrize("bad", ["answer relevancy", "../etc/passwd", "", "-x"])
def test_ids_are_safe_file_names(bad):
    with pytest.raises(ValidationError):
        ScorerSpec.model_validate({**MINIMAL, "id": bad})


def test_a_judge_never_holds_a_key():
    assert "api_key" not in JudgeSpec.model_fields
    with pytest.raises(ValidationError, match="api_key"):
        JudgeSpec.model_validate({"model": "m", "api_key": "sk-secret"})
    with pytest.raises(ValidationError, match="NAME of an environment variable"):
        JudgeSpec.model_validate({"api_key_env": "sk-abc123"})
    assert JudgeSpec(api_key_env="OPENAI_API_KEY").api_key_env == "OPENAI_API_KEY"


def test_retry_delay_is_a_number_or_an_exponential_backoff():
    assert RetryPolicySpec.model_validate({"delay": 250}).delay == 250
    backoff = RetryPolicySpec.model_validate({"delay": {"initial_ms": 100}}).delay
    assert backoff == ExponentialDelaySpec(initial_ms=100, factor=2, max_ms=30000)
    assert RetryPolicySpec().delay == ExponentialDelaySpec()
    with pytest.raises(ValidationError, match="number of milliseconds"):
        RetryPolicySpec.model_validate({"delay": [1, 2]})
    with pytest.raises(ValidationError):
        RetryPolicySpec.model_validate({"delay": -1})
    with pytest.raises(ValidationError):
        RetryPolicySpec.model_validate({"retry_on_status": [42]})


def test_processor_options_are_checked_like_the_processors():
    with pytest.raises(ValidationError, match="exactly one of max_chars or max_tokens"):
        TruncateSpec()
    with pytest.raises(ValidationError, match="marker"):
        TruncateSpec(max_chars=3, marker="[cut here]")
    with pytest.raises(ValidationError, match=r"not a valid pattern .*at character 3"):
        RedactPIISpec(patterns={"ticket": "T-("})
    with pytest.raises(ValidationError, match=r"could take very long .*characters 1–5"):
        OutputGuardSpec(patterns=["(a+)+$"])
    with pytest.raises(ValidationError, match="include_defaults"):
        RedactPIISpec(include_defaults=False, kinds=["email"], patterns={"t": "T-1"})
    with pytest.raises(ValidationError, match="nothing to redact"):
        RedactPIISpec(include_defaults=False)
    with pytest.raises(ValidationError):
        JudgeSpec.model_validate({"output_guard": {"patterns": []}})


def test_the_committed_json_schema_is_up_to_date():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), (
        "scorer-spec.schema.json is stale: run python -m scorer_runtime.spec.models.schema"
    )
    assert main(["--check"]) == 0


def test_the_schema_check_notices_a_stale_file(monkeypatch, tmp_path, capsys):
    stale = tmp_path / "scorer-spec.schema.json"
    stale.write_text("{}\n")
    monkeypatch.setattr("scorer_runtime.spec.models.schema.SCHEMA_PATH", stale)
    assert main(["--check"]) == 1
    assert "stale" in capsys.readouterr().out
    assert main([]) == 0
    assert stale.read_text() == schema_text()


def test_the_schema_accepts_the_demo_specs_and_rejects_broken_ones():
    validator = jsonschema.Draft202012Validator(spec_json_schema())
    validator.check_schema(spec_json_schema())
    for path in demo_spec_paths():
        errors = list(validator.iter_errors(json.loads(path.read_text())))
        assert errors == [], f"{path.name}: {errors[0].message}"
    broken = [
        {**MINIMAL, "judge": {"model": "m", "api_key": "sk-x"}},
        {**MINIMAL, "steps": [{"step": "generate_score", "formula": "1", "use": "x"}]},
        {**MINIMAL, "steps": [{"step": "score", "formula": "1"}]},
        {**MINIMAL, "colour": "blue"},
    ]
    for data in broken:
        assert not validator.is_valid(data), data


def test_the_spec_package_is_cheap_to_import_and_exports_what_it_lists():
    import subprocess
    import sys

    import scorer_runtime.spec as package

    heavy = ("jinja2", "simpleeval", "rapidfuzz", "yaml", "jsonschema", "litellm")
    code = (
        "import sys, scorer_runtime, scorer_runtime.spec, scorer_runtime.spec.loading, "
        "scorer_runtime.spec.export; print(' '.join(sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = set(done.stdout.split())
    assert not loaded & set(heavy), loaded & set(heavy)
    assert all(getattr(package, name) is not None for name in package.__all__)
    assert set(package.__all__) <= set(dir(package))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = package.nope
