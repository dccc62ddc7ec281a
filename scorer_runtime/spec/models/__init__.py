"""The spec models: a scorer, its judge and its steps as plain, serialisable data."""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel

from scorer_runtime.spec.models.base import SpecModel
from scorer_runtime.spec.models.judge import (
    DelaySpec,
    ExponentialDelaySpec,
    JudgeRef,
    JudgeSpec,
    OutputGuardSpec,
    RedactPIISpec,
    RetryPolicySpec,
    TruncateSpec,
)
from scorer_runtime.spec.models.problems import SpecError, SpecProblem
from scorer_runtime.spec.models.scorer import FilterRunSpec, ScorerKind, ScorerSpec
from scorer_runtime.spec.models.steps import (
    AnyStepSpec,
    CalculateScoreSpec,
    FieldScoreSpec,
    FormulaScoreSpec,
    FormulaStepSpec,
    FunctionScoreSpec,
    FunctionStepSpec,
    PromptStepSpec,
    StepKind,
    StepSpec,
)
from scorer_runtime.spec.models.worked import WorkedExampleSpec


@cache
def tagged_models() -> dict[str, type[BaseModel]]:
    """The model class behind each union tag (tags appear in pydantic error locations)."""
    return {
        "judge-settings": JudgeSpec,
        "delay-exponential": ExponentialDelaySpec,
        "function-step": FunctionStepSpec,
        "formula-step": FormulaStepSpec,
        "prompt-step": PromptStepSpec,
        "score-field": FieldScoreSpec,
        "score-formula": FormulaScoreSpec,
        "score-use": FunctionScoreSpec,
    }


__all__ = [
    "AnyStepSpec",
    "CalculateScoreSpec",
    "DelaySpec",
    "ExponentialDelaySpec",
    "FieldScoreSpec",
    "FilterRunSpec",
    "FormulaScoreSpec",
    "FormulaStepSpec",
    "FunctionScoreSpec",
    "FunctionStepSpec",
    "JudgeRef",
    "JudgeSpec",
    "OutputGuardSpec",
    "PromptStepSpec",
    "RedactPIISpec",
    "RetryPolicySpec",
    "ScorerKind",
    "ScorerSpec",
    "SpecError",
    "SpecModel",
    "SpecProblem",
    "StepKind",
    "StepSpec",
    "TruncateSpec",
    "WorkedExampleSpec",
    "tagged_models",
]
