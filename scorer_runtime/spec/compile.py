"""``compile_spec``: a spec becomes a runnable :class:`~scorer_runtime.Scorer`.

A spec is first turned into a *plan*: the Python calls that build the scorer (``Judge(...)``,
``PromptStep(...)``, ``keyword_coverage(...)``, ``formula(...)``, ``create_scorer(...)
.analyze(...)``), as data. :func:`compile_spec` evaluates the plan; :func:`export_python`
prints the same plan as source code. One plan for both is what makes exported code behave
exactly like the compiled spec: they are the same calls.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from scorer_runtime.results import plain
from scorer_runtime.spec.context import get_path
from scorer_runtime.spec.models import (
    FieldScoreSpec,
    FormulaScoreSpec,
    FormulaStepSpec,
    FunctionStepSpec,
    JudgeSpec,
    ScorerSpec,
    SpecError,
    SpecProblem,
    WorkedExampleSpec,
)

if TYPE_CHECKING:
    from scorer_runtime.scorer import Scorer
    from scorer_runtime.spec.registry import StepRegistry


# -- the plan: the calls that build a scorer, as data ---------------------------------------


@dataclass(frozen=True, slots=True)
class PlanCall:
    """``name(*args, **kwargs)``, where ``name`` is ``func`` imported from ``module``.

    Arguments are plain data or other plan nodes. ``where`` is the spec path an error in
    this call is reported at.
    """

    func: Callable[..., Any]
    module: str
    name: str
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()
    where: str = ""


@dataclass(frozen=True, slots=True)
class Name:
    """A module-level variable of the plan (see :attr:`Plan.assignments`)."""

    name: str


@dataclass(frozen=True, slots=True)
class Chain:
    """``head.method(argument).method(argument)...``: the scorer's step methods."""

    head: Any
    links: tuple[tuple[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Plan:
    """Variables assigned in order, then the expression that builds the scorer."""

    assignments: tuple[tuple[str, Any], ...]
    scorer: Any


def evaluate(plan: Plan) -> Any:
    """Run the plan's calls; :class:`SpecError` at the failing call's spec path."""
    env: dict[str, Any] = {}
    for name, expression in plan.assignments:
        env[name] = _evaluate(expression, env)
    return _evaluate(plan.scorer, env)


def _evaluate(node: Any, env: Mapping[str, Any]) -> Any:
    if isinstance(node, PlanCall):
        args = [_evaluate(arg, env) for arg in node.args]
        kwargs = {key: _evaluate(value, env) for key, value in node.kwargs}
        try:
            return node.func(*args, **kwargs)
        except (ValueError, TypeError) as error:
            if isinstance(error, SpecError):
                raise
            raise SpecError([SpecProblem(node.where, f"{node.name}: {error}")]) from error
    if isinstance(node, Name):
        return env[node.name]
    if isinstance(node, Chain):
        value = _evaluate(node.head, env)
        for method, argument in node.links:
            value = getattr(value, method)(_evaluate(argument, env))
        return value
    if isinstance(node, list | tuple):
        return [_evaluate(item, env) for item in node]
    if isinstance(node, dict):
        return {key: _evaluate(value, env) for key, value in node.items()}
    return node


# -- judge_field ------------------------------------------------------------------------------


class JudgeFieldError(ValueError):
    """The judge's answer has no usable number in the field ``calculate_score`` names."""


@dataclass(frozen=True, slots=True)
class JudgeField:
    """``calculate_score`` reading one field of the judge's answer as a number.

    Numbers are taken as they are, ``true``/``false`` as 1/0 and numeric text is parsed, so a
    judge answering ``"0.8"`` still scores; anything else fails with a message naming the
    field and what the answer held.
    """

    field: str

    def __call__(self, *, judge_output: Any) -> float:
        """The field of ``judge_output`` as a float."""
        answer = plain(judge_output)
        try:
            value = get_path({"judge_output": answer}, f"judge_output.{self.field}")
        except KeyError:
            fields = ", ".join(answer) if isinstance(answer, dict) else type(answer).__name__
            raise JudgeFieldError(
                f"the judge's answer has no field {self.field!r} (it has: {fields}); ask for "
                "it in the output schema or change calculate_score's field"
            ) from None
        number = _as_number(value)
        if number is None:
            raise JudgeFieldError(
                f"the judge's answer field {self.field!r} is {value!r}, not a number; make "
                "the output schema ask for a number there"
            )
        return number

    def __repr__(self) -> str:
        return f"judge_field({self.field!r})"


def judge_field(field: str) -> JudgeField:
    """A ``calculate_score`` taking the score from the field ``field`` of the judge's answer
    (dotted for nested fields: ``"verdict.score"``)."""
    if not isinstance(field, str) or not field or "" in field.split("."):
        raise ValueError(f"judge_field needs a field name such as 'score', got {field!r}")
    return JudgeField(field)


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


# -- compile ----------------------------------------------------------------------------------


def compile_spec(
    spec: ScorerSpec | Mapping[str, Any],
    registry: StepRegistry | None = None,
    *,
    judge_profiles: Mapping[str, JudgeSpec] | None = None,
) -> Scorer[Any, Any]:
    """Build the runtime scorer a spec describes; :class:`SpecError` lists every problem.

    Judge profile names in the spec are looked up in ``judge_profiles``. The scorer keeps
    the spec it ran from, with profiles filled in, as ``scorer.spec``.
    """
    resolved = checked_spec(spec, registry, judge_profiles)
    scorer: Scorer[Any, Any] = evaluate(scorer_plan(resolved, registry))
    return replace(scorer, spec=resolved)


def checked_spec(
    spec: ScorerSpec | Mapping[str, Any],
    registry: StepRegistry | None,
    judge_profiles: Mapping[str, JudgeSpec] | None,
) -> ScorerSpec:
    """``spec`` checked (all problems at once) and with judge profile names filled in."""
    from scorer_runtime.spec.loading import load_spec

    loaded = load_spec(spec, registry=registry, judge_profiles=judge_profiles)
    return resolve_profiles(loaded, judge_profiles or {})


def resolve_profiles(spec: ScorerSpec, profiles: Mapping[str, JudgeSpec]) -> ScorerSpec:
    """``spec`` with every judge given by profile name replaced by that profile's settings."""
    problems: list[SpecProblem] = []

    def lookup(ref: JudgeSpec | str | None, path: str) -> JudgeSpec | None:
        if not isinstance(ref, str):
            return ref
        if ref not in profiles:
            saved = ", ".join(sorted(profiles)) or "(none saved)"
            problems.append(
                SpecProblem(path, f"there is no saved judge profile named {ref!r}; saved: {saved}")
            )
            return None
        return profiles[ref]

    judge = lookup(spec.judge, "judge")
    steps = [
        step.model_copy(update={"judge": lookup(step.judge, f"steps[{i}].judge")})
        if not isinstance(step, FunctionStepSpec | FormulaStepSpec)
        else step
        for i, step in enumerate(spec.steps)
    ]
    if problems:
        raise SpecError(problems)
    return spec.model_copy(update={"judge": judge, "steps": steps})


# -- the plan ---------------------------------------------------------------------------------

_RUNTIME = "scorer_runtime"
_SPEC = "scorer_runtime.spec"
_POLICIES = "scorer_runtime.processors.policies"


def scorer_plan(spec: ScorerSpec, registry: StepRegistry | None = None) -> Plan:
    """The calls that build ``spec``'s scorer (``spec`` checked, profiles resolved)."""
    from scorer_runtime import PromptStep, create_scorer

    if registry is None:
        from scorer_runtime.spec.registry import default_registry

        registry = default_registry()
    assignments: list[tuple[str, Any]] = []
    options: list[tuple[str, Any]] = [("id", spec.id)]
    options += [("name", spec.name)] if spec.name is not None else []
    options.append(("description", spec.description))
    options += [("type", "agent")] if spec.type == "agent" else []
    if isinstance(spec.judge, JudgeSpec):
        assignments.append(("judge", _judge_call(spec.judge)))
        options.append(("judge", Name("judge")))
    if spec.prepare is not None:
        options.append(("prepare_run", _filter_call(spec)))
    options += [("cache_answers", False)] if not spec.cache_answers else []
    links: list[tuple[str, Any]] = []
    for index, step in enumerate(spec.steps):
        where = f"steps[{index}]"
        if isinstance(step, FunctionStepSpec):
            links.append((step.step, _use_call(step.use, step.with_, registry, where)))
        elif isinstance(step, FormulaStepSpec):
            links.append((step.step, _formula_call(step.formula, where)))
        else:
            prompt: list[tuple[str, Any]] = [
                ("description", step.description),
                ("create_prompt", _template_call(step.template, f"{where}.template")),
            ]
            prompt += (
                [("output_schema", step.output_schema)] if step.output_schema is not None else []
            )
            if isinstance(step.judge, JudgeSpec):
                prompt.append(("judge", _judge_call(step.judge)))
            if step.calculate_score is not None:
                prompt.append(("calculate_score", _score_call(step, registry, where)))
            if step.worked_examples:
                prompt.append(("worked_examples", _worked_calls(step.worked_examples, where)))
            assignments.append((f"{step.step}_step", _call(PromptStep, _RUNTIME, prompt, where)))
            links.append((step.step, Name(f"{step.step}_step")))
    head = _call(create_scorer, _RUNTIME, options, "")
    return Plan(tuple(assignments), Chain(head, tuple(links)))


def _call(
    func: Callable[..., Any], module: str, kwargs: list[tuple[str, Any]], where: str
) -> PlanCall:
    return PlanCall(func, module, func.__name__, (), tuple(kwargs), where)


def _use_call(use: str, params: Mapping[str, Any], registry: StepRegistry, where: str) -> PlanCall:
    entry = registry.get(use)
    module, name = entry.import_path
    return PlanCall(entry.factory, module, name, (), tuple(params.items()), f"{where}.with")


def _formula_call(expression: str, where: str) -> PlanCall:
    from scorer_runtime.spec.formulas import formula

    return PlanCall(formula, _SPEC, "formula", (expression,), (), f"{where}.formula")


def _template_call(source: str, where: str) -> PlanCall:
    from scorer_runtime.spec.templates import template

    return PlanCall(template, _SPEC, "template", (source,), (), where)


def _score_call(step: Any, registry: StepRegistry, where: str) -> PlanCall:
    calc, where = step.calculate_score, f"{where}.calculate_score"
    if isinstance(calc, FieldScoreSpec):
        return PlanCall(judge_field, _SPEC, "judge_field", (calc.field,), (), f"{where}.field")
    if isinstance(calc, FormulaScoreSpec):
        return _formula_call(calc.formula, where)
    return _use_call(calc.use, calc.with_, registry, where)


def _worked_calls(examples: list[WorkedExampleSpec], where: str) -> list[PlanCall]:
    """``[WorkedExample(...), ...]``, each with the fields its example sets."""
    from scorer_runtime import WorkedExample

    return [
        _call(
            WorkedExample,
            _RUNTIME,
            list(example.model_dump(exclude_defaults=True).items()),
            f"{where}.worked_examples[{index}]",
        )
        for index, example in enumerate(examples)
    ]


def _filter_call(spec: ScorerSpec) -> PlanCall:
    from scorer_runtime import filter_run

    assert spec.prepare is not None
    options = spec.prepare.model_dump(exclude_defaults=True)
    return _call(filter_run, _RUNTIME, list(options.items()), "prepare")


_JUDGE_SETTINGS = (
    "model",
    "instructions",
    "api_base",
    "api_key_env",
    "json_prompt_injection",
    "temperature",
    "timeout_s",
    "input_price_per_million",
    "output_price_per_million",
    "default_max_cost",
    "requests_per_minute",
    "tokens_per_minute",
    "harden_prompt",
)


def _judge_call(judge: JudgeSpec) -> PlanCall:
    """``Judge(...)`` for a scorer's judge, or a step's: a step's judge sets only its own
    fields. Its processor lists replace the scorer's, as in the runtime: a step that sets
    ``redact_pii`` or ``truncate`` runs exactly the input processors it sets, one that sets
    neither runs the scorer's."""
    from scorer_runtime import Judge

    kwargs: list[tuple[str, Any]] = [
        (name, getattr(judge, name)) for name in _JUDGE_SETTINGS if getattr(judge, name) is not None
    ]
    if judge.redact_pii is not None or judge.truncate is not None:
        kwargs.append(("input_processors", _input_processors(judge.redact_pii, judge.truncate)))
    if judge.output_guard is not None:
        guard = judge.output_guard.model_dump(exclude_defaults=True)
        kwargs.append(("output_processors", [_processor_call("OutputGuard", guard)]))
    if judge.retry is not None:
        kwargs.append(("error_processors", [_retry_call(judge.retry)]))
        kwargs.append(("max_processor_retries", judge.retry.max_retries))
    return _call(Judge, _RUNTIME, kwargs, "judge")


def _input_processors(redact: Any, truncate: Any) -> list[PlanCall]:
    calls = []
    if redact is not None:  # redact first: a cut must never leave half a secret behind
        calls.append(_processor_call("RedactPII", redact.model_dump(exclude_defaults=True)))
    if truncate is not None:
        calls.append(_processor_call("TruncateInput", truncate.model_dump(exclude_defaults=True)))
    return calls


def _processor_call(name: str, options: Mapping[str, Any]) -> PlanCall:
    import scorer_runtime

    return _call(getattr(scorer_runtime, name), _RUNTIME, list(options.items()), "judge")


def _retry_call(retry: Any) -> PlanCall:
    from scorer_runtime import StreamErrorRetryProcessor
    from scorer_runtime.processors import policies

    delay = retry.delay
    if not isinstance(delay, int):
        options = [("initial_ms", delay.initial_ms), ("factor", delay.factor)]
        delay = _call(
            policies.exponential_backoff, _POLICIES, [*options, ("max_ms", delay.max_ms)], ""
        )
    kwargs: list[tuple[str, Any]] = [("max_retries", retry.max_retries), ("delay_ms", delay)]
    if retry.max_retry_after_ms != 30_000:
        kwargs.append(("max_retry_after_ms", retry.max_retry_after_ms))
    matchers = []
    if retry.retry_on_status:
        matchers.append(
            PlanCall(policies.status_in, _POLICIES, "status_in", tuple(retry.retry_on_status))
        )
    if retry.retry_on_text:
        matchers.append(
            PlanCall(
                policies.message_contains, _POLICIES, "message_contains", tuple(retry.retry_on_text)
            )
        )
    kwargs += [("matchers", matchers)] if matchers else []
    kwargs += [("retry_unknown_errors", True)] if retry.retry_unknown_errors else []
    return _call(StreamErrorRetryProcessor, _RUNTIME, kwargs, "judge.retry")
