"""What every built-in step callable promises: a readable repr that rebuilds it, a spec form,
immutability, and keyword injection for each step it suits."""

from __future__ import annotations

import pytest

import scorer_runtime.spec.builtins as builtins_pkg
from scorer_runtime.spec.builtins import BUILTIN_ENTRIES, BuiltinStep, contains
from scorer_runtime.spec.mastra.builtins_ts import builtin_call
from scorer_runtime.spec.mastra.formula_ts import Untranslatable
from scorer_runtime.spec.registry import default_registry
from scorer_runtime.steps import _CALCULATE_SCORE_KWARGS, _STEP_KWARGS, prepare_call


def test_every_builtin_says_everything_the_project_asks_about_it():
    """One entry per built-in holds every fact about it: a sample (valid parameters) and
    whether the Mastra export has a TypeScript form for it, which must be true."""
    for entry in BUILTIN_ENTRIES:
        assert entry.sample is not None, entry.name
        try:
            builtin_call(entry.name, entry.sample, "the test")
        except Untranslatable:
            assert not entry.typescript, f"{entry.name} says it has a TypeScript form"
        else:
            assert entry.typescript, f"{entry.name} has a TypeScript form it does not declare"


@pytest.mark.parametrize("entry", BUILTIN_ENTRIES, ids=lambda e: e.name)
def test_repr_is_the_call_that_rebuilds_the_step(entry):
    step = entry.build(entry.sample)
    assert isinstance(step, BuiltinStep)
    text = repr(step)
    assert text.startswith(f"{entry.name}(")
    rebuilt = eval(text, {name: getattr(builtins_pkg, name) for name in builtins_pkg.__all__})
    assert rebuilt == step
    assert hash(rebuilt) == hash(step)


@pytest.mark.parametrize("entry", BUILTIN_ENTRIES, ids=lambda e: e.name)
def test_spec_form_builds_an_equal_step(entry):
    step = entry.build(entry.sample)
    spec = step.to_spec()
    assert spec == {"use": entry.name, "with": step.given_params()}
    again = default_registry(plugins=False).get(spec["use"]).build(spec["with"])
    assert again == step


@pytest.mark.parametrize("entry", BUILTIN_ENTRIES, ids=lambda e: e.name)
def test_keyword_injection_accepts_the_step_wherever_it_suits(entry):
    step = entry.build(entry.sample)
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
