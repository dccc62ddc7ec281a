"""What every built-in step callable promises: a readable repr that rebuilds it, a spec form,
immutability, and keyword injection for each step it suits."""

from __future__ import annotations

import pytest

import scorer_runtime.spec.builtins as builtins_pkg
from scorer_runtime.spec.builtins import BUILTIN_ENTRIES, BuiltinStep, contains
from scorer_runtime.spec.registry import default_registry
from scorer_runtime.steps import _CALCULATE_SCORE_KWARGS, _STEP_KWARGS, prepare_call

# One realistic parameter set per built-in; a new built-in must add one here.
SAMPLES: dict[str, dict] = {
    "contains": {"values": ["refund", "30 days"], "mode": "all"},
    "excludes": {"values": ["calm down"]},
    "keyword_coverage": {"keywords": ["refund", "days"], "whole_words": True},
    "regex_match": {"pattern": r"\d+ days", "ignore_case": True},
    "length_bounds": {"min": 20, "max": 150, "scoring": "soft"},
    "exact_match": {"expected": ["yes", "y"], "case_sensitive": False},
    "text_similarity": {"method": "token_set_ratio"},
    "text_difference": {"unit": "characters", "max_changes": 10},
    "numeric_closeness": {"rel_tolerance": 0.05, "soft_margin": 2.5},
    "json_valid": {"expect": "object"},
    "json_schema_valid": {"json_schema": {"type": "object", "required": ["answer"]}},
    "tool_called": {"tool": "lookup_order", "min_times": 2},
    "tool_not_called": {"tools": ["delete_account"]},
    "tool_order": {"expected": ["lookup_order", "issue_refund"], "mode": "strict"},
    "max_tool_calls": {"max_calls": 3, "tool": "search_docs"},
    "no_tool_errors": {"scoring": "fraction"},
    "weighted_average": {"weights": {"relevance": 0.7, "tone": 0.3}},
    "threshold": {"field": "score", "threshold": 0.7, "pass_value": "pass", "fail_value": "fail"},
    "clamp": {"field": "judge_output.score", "min": 0.0, "max": 5.0},
    "label_to_score": {"mapping": {"yes": 1.0, "partial": 0.5, "no": 0.0}, "default": 0.0},
    "proportion": {"equals": ["yes", "partly"], "if_empty": 1.0},
}


def test_every_builtin_has_a_sample():
    assert set(SAMPLES) == {e.name for e in BUILTIN_ENTRIES}


@pytest.mark.parametrize("entry", BUILTIN_ENTRIES, ids=lambda e: e.name)
def test_repr_is_the_call_that_rebuilds_the_step(entry):
    step = entry.build(SAMPLES[entry.name])
    assert isinstance(step, BuiltinStep)
    text = repr(step)
    assert text.startswith(f"{entry.name}(")
    rebuilt = eval(text, {name: getattr(builtins_pkg, name) for name in builtins_pkg.__all__})
    assert rebuilt == step
    assert hash(rebuilt) == hash(step)


@pytest.mark.parametrize("entry", BUILTIN_ENTRIES, ids=lambda e: e.name)
def test_spec_form_builds_an_equal_step(entry):
    step = entry.build(SAMPLES[entry.name])
    spec = step.to_spec()
    assert spec == {"use": entry.name, "with": step.given_params()}
    again = default_registry(plugins=False).get(spec["use"]).build(spec["with"])
    assert again == step


@pytest.mark.parametrize("entry", BUILTIN_ENTRIES, ids=lambda e: e.name)
def test_keyword_injection_accepts_the_step_wherever_it_suits(entry):
    step = entry.build(SAMPLES[entry.name])
    for use in entry.suits:
        allowed = _CALCULATE_SCORE_KWARGS if use == "calculate_score" else _STEP_KWARGS[use]
        prepared = prepare_call(step, allowed, what=use)
        assert prepared.accepts == allowed
        assert not prepared.is_async


def test_defaults_are_left_out_of_repr_and_spec():
    step = contains(values=["refund"])
    assert repr(step) == "contains(values=['refund'])"
    assert step.to_spec() == {"use": "contains", "with": {"values": ["refund"]}}
    assert step != contains(values=["refund"], mode="all")
    assert step.params.mode == "any"


def test_step_callables_are_immutable():
    step = contains(values=["refund"])
    with pytest.raises(AttributeError, match="immutable"):
        step.name = "other"
    with pytest.raises(Exception, match="frozen"):
        step.params.mode = "all"  # type: ignore[misc]


def test_evaluate_runs_on_a_ready_context():
    step = contains(values=["refund"])
    assert step.evaluate({"output": "Your refund is on its way"}) == 1.0
