"""A judge's rate limits (``requests_per_minute``, ``tokens_per_minute``): they survive JSON,
YAML and the Python export, the compiled judge counts them under its limit key, a saved
profile's limits reach the scorers that use it, the Mastra export lists them as a difference,
and bad values are refused in words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorer_runtime import Judge
from scorer_runtime.judge.config import resolve_judge
from scorer_runtime.judge.rate import RateLimit, limit_key
from scorer_runtime.spec import (
    SpecError,
    compile_spec,
    export_json,
    export_python,
    export_yaml,
    load_spec,
)
from scorer_runtime.spec.judge_choice import with_judge_profile
from scorer_runtime.spec.mastra import export_mastra
from scorer_runtime.spec.models import JudgeSpec

SCORERS = Path(__file__).resolve().parents[2] / "data" / "scorers"
LIMITS = {"requests_per_minute": 600, "tokens_per_minute": 150_000}


def _tone(**judge: Any) -> dict[str, Any]:
    data = json.loads((SCORERS / "tone-politeness.json").read_text(encoding="utf-8"))
    data["judge"].update(judge)
    return data


def test_limits_round_trip_through_json_and_yaml(registry):
    spec = load_spec(_tone(**LIMITS), registry=registry)
    assert '"requests_per_minute": 600' in export_json(spec)
    assert "tokens_per_minute: 150000" in export_yaml(spec)
    assert load_spec(export_json(spec), registry=registry) == spec
    assert load_spec(export_yaml(spec), registry=registry) == spec
    assert "per_minute" not in export_json(load_spec(_tone(), registry=registry))


def test_the_compiled_and_the_exported_scorer_keep_the_limit(registry, import_code, judge_key):
    spec = load_spec(_tone(**LIMITS), registry=registry)
    assert compile_spec(spec, registry).judge.requests_per_minute == 600
    code = export_python(spec, registry)
    assert "requests_per_minute=600" in code
    assert "tokens_per_minute=150000" in code
    exported = import_code(code).scorer.judge
    assert (exported.requests_per_minute, exported.tokens_per_minute) == (600, 150_000)


def test_a_resolved_judge_counts_its_limit_under_model_address_and_key_name(monkeypatch):
    monkeypatch.setenv("LIMITED_KEY", "sk-secret-value")
    judge = Judge(
        model="openai/m", instructions="i", api_key_env="LIMITED_KEY", requests_per_minute=60
    )
    resolved = resolve_judge(judge)
    assert resolved.rate_limit == RateLimit(requests_per_minute=60)
    assert resolved.limit_key == limit_key("openai/m", None, "LIMITED_KEY")
    assert "sk-secret" not in resolved.limit_key
    other = resolve_judge(Judge(model="openai/m", instructions="i", api_base="http://x/v1"))
    assert other.limit_key != resolved.limit_key
    assert not other.rate_limit.is_set


def test_a_scorer_that_uses_a_saved_judge_takes_its_limits(registry):
    spec = with_judge_profile(load_spec(_tone(), registry=registry), "limited")
    profile = JudgeSpec(model="openai/gpt-4o-mini", instructions="Grade.", **LIMITS)
    compiled = compile_spec(spec, registry, judge_profiles={"limited": profile})
    judges = [step.prompt.judge for step in compiled.steps if step.prompt is not None]
    merged = [compiled.judge.override(j) if compiled.judge else j for j in judges]
    assert {(j.requests_per_minute, j.tokens_per_minute) for j in merged if j} == {(600, 150_000)}


def test_the_mastra_export_says_the_limit_is_not_kept():
    differences = " ".join(export_mastra(load_spec(_tone(**LIMITS))).differences)
    assert "600 requests a minute and 150,000 tokens a minute is not kept" in differences
    assert "a minute" not in " ".join(export_mastra(load_spec(_tone())).differences)


@pytest.mark.parametrize("value", [0, -5, 2.5, "many"])
def test_a_bad_limit_is_refused_naming_the_field(registry, value):
    with pytest.raises(SpecError) as refused:
        load_spec(_tone(requests_per_minute=value), registry=registry)
    assert "requests_per_minute" in str(refused.value)


def test_a_judge_in_code_refuses_a_limit_below_one():
    with pytest.raises(ValueError, match="1 or more"):
        Judge(model="openai/x", tokens_per_minute=0)
