"""Scorer definitions as data: specs, the step registry, formulas, templates, compile, export.

A :class:`ScorerSpec` is a whole scorer as plain data (JSON or YAML): its judge, and steps
that are built-in operations (``use``), safe formulas or prompts for the judge. It names
registered functions, never carries code::

    from scorer_runtime.spec import compile_spec, export_python, load_spec

    spec = load_spec("data/scorers/tone-politeness.json")  # every problem reported at once
    scorer = compile_spec(spec)                             # a runnable Scorer
    code = export_python(spec)                              # the same scorer as Python

Names are imported on first use, so ``import scorer_runtime.spec`` stays cheap and the
template engine, the formula evaluator and YAML load only when needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorer_runtime._lazy import lazy_exports

if TYPE_CHECKING:
    from scorer_runtime.spec.builtins import BuiltinStep, BuiltinStepError
    from scorer_runtime.spec.compile import JudgeField, JudgeFieldError, compile_spec, judge_field
    from scorer_runtime.spec.context import CONTEXT_NAMES, build_context, get_path
    from scorer_runtime.spec.draft import DraftProblem, ScorerDraft, StepDraft
    from scorer_runtime.spec.export import export_json, export_python, export_yaml
    from scorer_runtime.spec.fields import FieldGroup, FieldRef
    from scorer_runtime.spec.formulas import (
        FORMULA_FUNCTIONS,
        FORMULA_VARIABLES,
        Formula,
        FormulaError,
        check_formula,
        formula,
    )
    from scorer_runtime.spec.loading import load_spec, spec_problems
    from scorer_runtime.spec.models import (
        CalculateScoreSpec,
        ExponentialDelaySpec,
        FieldScoreSpec,
        FilterRunSpec,
        FormulaScoreSpec,
        FormulaStepSpec,
        FunctionScoreSpec,
        FunctionStepSpec,
        JudgeSpec,
        OutputGuardSpec,
        PromptStepSpec,
        RedactPIISpec,
        RetryPolicySpec,
        ScorerSpec,
        SpecError,
        SpecProblem,
        StepSpec,
        TruncateSpec,
    )
    from scorer_runtime.spec.models.schema import spec_json_schema
    from scorer_runtime.spec.registry import (
        StepEntry,
        StepParamsError,
        StepRegistry,
        StepUse,
        UnknownStepError,
        default_registry,
    )
    from scorer_runtime.spec.templates import (
        TEMPLATE_FILTERS,
        TEMPLATE_VARIABLES,
        Template,
        TemplateError,
        check_template,
        template,
    )

_MODULES = {
    "builtins": ("BuiltinStep", "BuiltinStepError"),
    "compile": ("JudgeField", "JudgeFieldError", "compile_spec", "judge_field"),
    "context": ("CONTEXT_NAMES", "build_context", "get_path"),
    "draft": ("DraftProblem", "ScorerDraft", "StepDraft"),
    "export": ("export_json", "export_python", "export_yaml"),
    "fields": ("FieldGroup", "FieldRef"),
    "formulas": (
        "FORMULA_FUNCTIONS",
        "FORMULA_VARIABLES",
        "Formula",
        "FormulaError",
        "check_formula",
        "formula",
    ),
    "loading": ("load_spec", "spec_problems"),
    "models": (
        "CalculateScoreSpec",
        "ExponentialDelaySpec",
        "FieldScoreSpec",
        "FilterRunSpec",
        "FormulaScoreSpec",
        "FormulaStepSpec",
        "FunctionScoreSpec",
        "FunctionStepSpec",
        "JudgeSpec",
        "OutputGuardSpec",
        "PromptStepSpec",
        "RedactPIISpec",
        "RetryPolicySpec",
        "ScorerSpec",
        "SpecError",
        "SpecProblem",
        "StepSpec",
        "TruncateSpec",
    ),
    "models.schema": ("spec_json_schema",),
    "registry": (
        "StepEntry",
        "StepParamsError",
        "StepRegistry",
        "StepUse",
        "UnknownStepError",
        "default_registry",
    ),
    "templates": (
        "TEMPLATE_FILTERS",
        "TEMPLATE_VARIABLES",
        "Template",
        "TemplateError",
        "check_template",
        "template",
    ),
}
__getattr__ = lazy_exports(__name__, _MODULES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "CONTEXT_NAMES",
    "FORMULA_FUNCTIONS",
    "FORMULA_VARIABLES",
    "TEMPLATE_FILTERS",
    "TEMPLATE_VARIABLES",
    "BuiltinStep",
    "BuiltinStepError",
    "CalculateScoreSpec",
    "DraftProblem",
    "ExponentialDelaySpec",
    "FieldGroup",
    "FieldRef",
    "FieldScoreSpec",
    "FilterRunSpec",
    "Formula",
    "FormulaError",
    "FormulaScoreSpec",
    "FormulaStepSpec",
    "FunctionScoreSpec",
    "FunctionStepSpec",
    "JudgeField",
    "JudgeFieldError",
    "JudgeSpec",
    "OutputGuardSpec",
    "PromptStepSpec",
    "RedactPIISpec",
    "RetryPolicySpec",
    "ScorerDraft",
    "ScorerSpec",
    "SpecError",
    "SpecProblem",
    "StepDraft",
    "StepEntry",
    "StepParamsError",
    "StepRegistry",
    "StepSpec",
    "StepUse",
    "Template",
    "TemplateError",
    "TruncateSpec",
    "UnknownStepError",
    "build_context",
    "check_formula",
    "check_template",
    "compile_spec",
    "default_registry",
    "export_json",
    "export_python",
    "export_yaml",
    "formula",
    "get_path",
    "judge_field",
    "load_spec",
    "spec_json_schema",
    "spec_problems",
    "template",
]
