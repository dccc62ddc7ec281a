"""A judge's default spend cap (``default_max_cost``): it survives JSON, YAML and the Python
export, the compiled scorer carries it, the Mastra export lists it, and bad values are refused
in words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorer_runtime import Judge
from scorer_runtime.costs.cap import default_cap
from scorer_runtime.spec import (
    SpecError,
    compile_spec,
    export_json,
    export_python,
    export_yaml,
    load_spec,
)
from scorer_runtime.spec.mastra import export_mastra

SCORERS = Path(__file__).resolve().parents[2] / "data" / "scorers"


def _tone(**judge: Any) -> dict[str, Any]:
    data = json.loads((SCORERS / "tone-politeness.json").read_text(encoding="utf-8"))
    data["judge"].update(judge)
    return data


def test_the_default_cap_round_trips_through_json_and_yaml(registry):
    spec = load_spec(_tone(default_max_cost=2.5), registry=registry)
    assert spec.judge.default_max_cost == 2.5
    assert '"default_max_cost": 2.5' in export_json(spec)
    assert "default_max_cost: 2.5" in export_yaml(spec)
    assert load_spec(export_json(spec), registry=registry) == spec
    assert load_spec(export_yaml(spec), registry=registry) == spec
    plain = load_spec(_tone(), registry=registry)
    assert "default_max_cost" not in export_json(plain)  # left out when not set


def test_the_compiled_and_the_exported_scorer_carry_it(registry, import_code, judge_key):
    spec = load_spec(_tone(default_max_cost=2.5), registry=registry)
    compiled = compile_spec(spec, registry)
    assert compiled.judge.default_max_cost == 2.5
    assert default_cap(compiled) == 2.5
    code = export_python(spec, registry)
    assert "default_max_cost=2.5" in code
    assert import_code(code).scorer.judge.default_max_cost == 2.5
    assert default_cap(compile_spec(load_spec(_tone(), registry=registry), registry)) is None


def test_a_step_judge_s_own_cap_counts_and_the_smallest_wins(registry):
    data = _tone(default_max_cost=5)
    data["steps"][0]["judge"] = {"default_max_cost": 0.75}
    assert default_cap(compile_spec(load_spec(data, registry=registry), registry)) == 0.75
    data["judge"].pop("default_max_cost")
    assert default_cap(compile_spec(load_spec(data, registry=registry), registry)) == 0.75


def test_the_mastra_export_says_runs_are_not_capped():
    differences = " ".join(export_mastra(load_spec(_tone(default_max_cost=2.5))).differences)
    assert "default spend cap of $2.5" in differences
    assert "spend cap" not in " ".join(export_mastra(load_spec(_tone())).differences)


@pytest.mark.parametrize(
    ("value", "words"),
    [(0, "greater than 0"), (-3, "greater than 0"), ("lots", "valid number")],
)
def test_a_bad_default_cap_is_refused_naming_the_field(registry, value, words):
    with pytest.raises(SpecError) as refused:
        load_spec(_tone(default_max_cost=value), registry=registry)
    said = str(refused.value)
    assert "default_max_cost" in said
    assert words in said


def test_a_judge_in_code_refuses_a_cap_that_is_no_amount():
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="an amount above 0"):
            Judge(model="openai/x", default_max_cost=bad)
    assert Judge(model="openai/x", default_max_cost=0.5).default_max_cost == 0.5
