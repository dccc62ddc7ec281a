"""What the spec models cannot say on their own: the meaning of a spec.

Unknown built-ins, invalid parameters, formula and template errors, step order, missing
judge settings. These checks also run on a spec whose shape is partly invalid: every step
that is valid on its own is checked, so a user sees all problems in one go.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from scorer_runtime.errors import ScorerDefinitionError
from scorer_runtime.judge.structured import SCORE_SCHEMA, StructuredOutput
from scorer_runtime.spec.models.judge import JudgeRef, JudgeSpec
from scorer_runtime.spec.models.problems import SpecProblem
from scorer_runtime.spec.models.scorer import ScorerSpec
from scorer_runtime.spec.models.steps import (
    AnyStepSpec,
    FormulaScoreSpec,
    FormulaStepSpec,
    FunctionScoreSpec,
    FunctionStepSpec,
    PromptStepSpec,
    StepSpec,
)
from scorer_runtime.types import STEP_ORDER

if TYPE_CHECKING:
    from scorer_runtime.spec.registry import StepRegistry

_ORDER: dict[str, int] = {name: rank for rank, name in enumerate(STEP_ORDER)}
_CHECKED_USES = frozenset({"generate_score", "generate_reason", "calculate_score"})
"""Step uses whose result type the pipeline checks; a built-in not suiting them cannot work."""


class _Unknown:
    """A judge that cannot be checked here (a profile name with no profiles given)."""


_UNKNOWN = _Unknown()


def meaning_problems(
    spec: ScorerSpec | None,
    data: Mapping[str, Any],
    registry: StepRegistry,
    profiles: Mapping[str, JudgeSpec] | None,
) -> list[SpecProblem]:
    """Problems the models cannot see. Works on a partly invalid spec too: every step that
    is valid on its own is checked, so all problems are reported in one go."""
    steps = _valid_steps(spec, data)
    problems: list[SpecProblem] = []
    for index, step in steps:
        problems += _step_problems(f"steps[{index}]", step, registry)
    problems += _order_problems(data.get("steps"))
    problems += _number_problems(data, "")
    scorer_judge = _resolve(_valid_judge(spec, data), "judge", profiles, problems)
    for index, step in steps:
        if isinstance(step, PromptStepSpec):
            path = f"steps[{index}].judge"
            own = _resolve(step.judge, path, profiles, problems)
            problems += _judge_settings_problems(path, scorer_judge, own)
    return problems


def _valid_steps(spec: ScorerSpec | None, data: Mapping[str, Any]) -> list[tuple[int, AnyStepSpec]]:
    if spec is not None:
        return list(enumerate(spec.steps))
    raw = data.get("steps")
    if not isinstance(raw, list):
        return []
    valid = []
    for index, item in enumerate(raw):
        try:
            valid.append((index, _step_adapter().validate_python(item)))
        except ValidationError:
            continue  # its shape problems are reported already
    return valid


def _valid_judge(
    spec: ScorerSpec | None, data: Mapping[str, Any]
) -> JudgeSpec | str | _Unknown | None:
    if spec is not None:
        return spec.judge
    try:
        judge: JudgeSpec | str | None = _judge_adapter().validate_python(data.get("judge"))
    except ValidationError:
        return _UNKNOWN
    return judge


@cache
def _step_adapter() -> TypeAdapter[AnyStepSpec]:
    return TypeAdapter(StepSpec)


@cache
def _judge_adapter() -> TypeAdapter[JudgeSpec | str | None]:
    return TypeAdapter(JudgeRef | None)


def _step_problems(path: str, step: AnyStepSpec, registry: StepRegistry) -> list[SpecProblem]:
    if isinstance(step, FunctionStepSpec):
        return _use_problems(path, step.use, step.with_, step.step, registry)
    if isinstance(step, FormulaStepSpec):
        from scorer_runtime.spec.formulas import check_formula

        return [SpecProblem(f"{path}.formula", m) for m in check_formula(step.formula)]
    return _prompt_problems(path, step, registry)


def _use_problems(
    path: str, use: str, params: Mapping[str, Any], step_use: str, registry: StepRegistry
) -> list[SpecProblem]:
    from scorer_runtime.spec.registry import StepParamsError, UnknownStepError

    try:
        entry = registry.get(use)
    except UnknownStepError as error:
        return [SpecProblem(f"{path}.use", str(error))]
    problems = []
    if step_use in _CHECKED_USES and step_use not in entry.suits:
        fits = ", ".join(sorted(entry.suits))
        problems.append(
            SpecProblem(
                f"{path}.use",
                f"{use!r} ({entry.title}) does not fit {_a(step_use)}; it fits: {fits}",
            )
        )
    try:
        entry.build(params)
    except StepParamsError as error:
        problems += [SpecProblem(p, m) for p, m in error.with_prefix(f"{path}.with").problems]
    except (ValueError, TypeError) as error:
        problems.append(SpecProblem(f"{path}.with", str(error)))
    return problems


def _a(step_use: str) -> str:
    return "calculate_score" if step_use == "calculate_score" else f"a {step_use} step"


def _prompt_problems(path: str, step: PromptStepSpec, registry: StepRegistry) -> list[SpecProblem]:
    from scorer_runtime.spec.templates import check_template

    problems = [SpecProblem(f"{path}.template", m) for m in check_template(step.template)]
    schema, name = step.output_schema, step.step
    if name in ("preprocess", "analyze") and schema is None:
        problems.append(
            SpecProblem(
                f"{path}.output_schema",
                f"a {name} step that asks the judge needs an output_schema: the JSON Schema "
                "of the judge's answer (e.g. an object with the fields you want back)",
            )
        )
    if name == "generate_reason" and schema is not None:
        problems.append(
            SpecProblem(
                f"{path}.output_schema",
                "the judge writes the reason as plain text; remove the output_schema",
            )
        )
    if schema is not None:
        try:
            StructuredOutput.of(schema)
        except ScorerDefinitionError as error:
            problems.append(
                SpecProblem(f"{path}.output_schema", str(error).removeprefix("output_schema "))
            )
    return problems + _calculate_problems(path, step, registry)


def _calculate_problems(
    path: str, step: PromptStepSpec, registry: StepRegistry
) -> list[SpecProblem]:
    calc, where = step.calculate_score, f"{path}.calculate_score"
    if step.step != "generate_score":
        if calc is None:
            return []
        return [
            SpecProblem(
                where,
                "only a generate_score step turns the judge's answer into a score; "
                "remove calculate_score",
            )
        ]
    if calc is None:
        return [
            SpecProblem(
                where,
                "a generate_score step that asks the judge needs calculate_score, e.g. "
                '{"field": "score"} to use the "score" field of the judge\'s answer',
            )
        ]
    if isinstance(calc, FormulaScoreSpec):
        from scorer_runtime.spec.formulas import check_formula

        return [SpecProblem(f"{where}.formula", m) for m in check_formula(calc.formula)]
    if isinstance(calc, FunctionScoreSpec):
        return _use_problems(where, calc.use, calc.with_, "calculate_score", registry)
    return _field_problems(f"{where}.field", calc.field, step.output_schema)


def _field_problems(path: str, field: str, schema: Mapping[str, Any] | None) -> list[SpecProblem]:
    properties = (schema if schema is not None else SCORE_SCHEMA).get("properties")
    first = field.split(".")[0]
    if not isinstance(properties, Mapping) or first in properties:
        return []
    known = ", ".join(properties) or "(none)"
    return [
        SpecProblem(
            path,
            f"the judge's answer has no field {first!r} in its output_schema "
            f"(its fields: {known}); name one of them, or add {first!r} to the schema",
        )
    ]


def _order_problems(raw_steps: Any) -> list[SpecProblem]:
    if not isinstance(raw_steps, list):
        return []
    names = [
        (index, str(item["step"]))
        for index, item in enumerate(raw_steps)
        if isinstance(item, Mapping) and item.get("step") in _ORDER
    ]
    problems: list[SpecProblem] = []
    seen: dict[str, int] = {}
    latest: str | None = None
    for index, name in names:
        path = f"steps[{index}].step"
        if name in seen:
            problems.append(
                SpecProblem(
                    path,
                    f"there is already a {name} step (steps[{seen[name]}]); "
                    "a scorer has at most one of each",
                )
            )
            continue
        if latest is not None and _ORDER[name] < _ORDER[latest]:
            problems.append(
                SpecProblem(
                    path,
                    f"the {name} step must come before the {latest} step (steps run in the "
                    "order preprocess, analyze, generate_score, generate_reason)",
                )
            )
        seen[name] = index
        latest = name if latest is None or _ORDER[name] > _ORDER[latest] else latest
    if "generate_score" not in seen:
        problems.append(
            SpecProblem("steps", "there is no generate_score step; add one: it computes the score")
        )
    return problems


def _number_problems(value: Any, path: str) -> list[SpecProblem]:
    """Infinite or NaN numbers (YAML's .inf, .nan): JSON cannot hold them, so the spec could
    not be saved or exported."""
    if isinstance(value, float) and not math.isfinite(value):
        return [SpecProblem(path, f"{value} is not a usable number; use a finite number")]
    if isinstance(value, Mapping):
        return [
            p
            for k, v in value.items()
            for p in _number_problems(v, f"{path}.{k}" if path else str(k))
        ]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _number_problems(v, f"{path}[{i}]")]
    return []


def _resolve(
    ref: JudgeSpec | str | _Unknown | None,
    path: str,
    profiles: Mapping[str, JudgeSpec] | None,
    problems: list[SpecProblem],
) -> JudgeSpec | _Unknown | None:
    if not isinstance(ref, str):
        return ref
    if profiles is None:
        return _UNKNOWN
    if ref in profiles:
        return profiles[ref]
    from scorer_runtime.spec.registry import closest_first

    saved = ", ".join(closest_first(ref, profiles)) or "(none saved)"
    problem = SpecProblem(
        path, f"there is no saved judge profile named {ref!r}; saved profiles: {saved}"
    )
    if problem not in problems:
        problems.append(problem)
    return _UNKNOWN


def _judge_settings_problems(
    path: str, scorer: JudgeSpec | _Unknown | None, own: JudgeSpec | _Unknown | None
) -> list[SpecProblem]:
    if isinstance(scorer, _Unknown) or isinstance(own, _Unknown):
        return []
    judge = merge_judges(scorer, own)
    missing = [
        name for name in ("model", "instructions") if judge is None or getattr(judge, name) is None
    ]
    if not missing:
        return []
    example = {
        "model": "e.g. openai/gpt-4o-mini",
        "instructions": "who the judge is and how it grades",
    }
    what = " and ".join(f"judge.{name} ({example[name]})" for name in missing)
    return [
        SpecProblem(
            path,
            f"this step asks the judge, but no {' or '.join(missing)} is set; "
            f"set {what} on the scorer or on this step",
        )
    ]


def merge_judges(scorer: JudgeSpec | None, step: JudgeSpec | None) -> JudgeSpec | None:
    """The judge a step uses: the scorer's, with every field the step's judge sets replaced."""
    if scorer is None or step is None:
        return step or scorer
    return scorer.model_copy(update=step.model_dump(exclude_none=True, exclude_unset=True))
