"""A built-in step is described once: a new entry in the catalogue is all it takes, and every
set the rest of the project asks (Review's pass/fail scale, the trace import's tool lists) is
derived from the entries, so it picks the new step up."""

from __future__ import annotations

import pytest

import scorer_runtime.spec.builtins as builtins_pkg
from scorer_runtime.spec import ScorerSpec
from scorer_runtime.spec.builtins import BUILTIN_ENTRIES, catalogue
from scorer_runtime.spec.builtins.agent_checks import ToolOrderParams, tool_order
from scorer_runtime.spec.registry import StepEntry
from scorer_runtime.traces import expected_need
from scorer_runtime.trust import scale_of

NEW = StepEntry(
    "tools_in_order_strictly",
    "Check the tools ran in this order",
    "Gives 1 when the agent called the tools in exactly this order, else 0.",
    frozenset({"generate_score"}),
    ToolOrderParams,
    tool_order,
    "Agent",
    verdict="pass_fail",
    expected="tools",
    typescript=False,
    sample={"expected": ["search", "answer"], "mode": "strict"},
)


@pytest.fixture
def one_more_builtin(monkeypatch):
    entries = (*BUILTIN_ENTRIES, NEW)
    monkeypatch.setattr(catalogue, "BUILTIN_ENTRIES", entries)
    monkeypatch.setattr(builtins_pkg, "BUILTIN_ENTRIES", entries)


def _spec(params: dict) -> ScorerSpec:
    return ScorerSpec.model_validate(
        {
            "id": "new-step",
            "description": "Did the agent use its tools in order?",
            "steps": [{"step": "generate_score", "use": NEW.name, "with": params}],
        }
    )


def test_a_new_entry_is_all_it_takes(one_more_builtin):
    spec = _spec({"expected_field": "ground_truth", "mode": "strict"})
    assert scale_of(spec).kind == "pass_fail"  # Review grades it pass or fail
    need = expected_need(spec)  # the trace import fills its expected tool list
    assert (need.required, need.kind) == (True, "tools")


def test_without_the_entry_the_step_is_unknown_to_those_sets():
    spec = _spec({"expected_field": "ground_truth", "mode": "strict"})
    assert scale_of(spec).kind == "number"
    assert expected_need(spec).required is False
