"""Write a spec as one TypeScript module for ``createScorer`` of ``@mastra/core`` 1.71."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorer_runtime.spec.compile import checked_spec
from scorer_runtime.spec.context import STEP_NAMES
from scorer_runtime.spec.mastra.formula_ts import FormulaTranslator, Untranslatable
from scorer_runtime.spec.mastra.judge_ts import judge_config, judge_differences
from scorer_runtime.spec.mastra.kinds_ts import DATA, UNSURE, whole_value_difference
from scorer_runtime.spec.mastra.prepare_ts import prepare_differences, prepare_run
from scorer_runtime.spec.mastra.processors_ts import input_processors, output_guard
from scorer_runtime.spec.mastra.template_ts import TemplateTranslator
from scorer_runtime.spec.mastra.ts_helpers import helper_sources
from scorer_runtime.spec.mastra.worked_ts import example_lines
from scorer_runtime.spec.mastra.zod_ts import zod_schema
from scorer_runtime.spec.models import (
    FieldScoreSpec,
    FormulaScoreSpec,
    FormulaStepSpec,
    FunctionStepSpec,
    JudgeSpec,
    PromptStepSpec,
    ScorerSpec,
)

_CAMEL = {
    "preprocess": "preprocess",
    "analyze": "analyze",
    "generate_score": "generateScore",
    "generate_reason": "generateReason",
}


class MastraExportError(ValueError):
    """The scorer cannot be written for Mastra; ``problems`` says what, in plain words."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("This scorer cannot be exported to Mastra: " + " ".join(problems))
        self.problems = problems


@dataclass
class MastraExport:
    """The TypeScript module, and what it does differently from the studio's scorer."""

    text: str
    differences: list[str] = field(default_factory=list)


@dataclass
class _Writer:
    spec: ScorerSpec
    formulas: FormulaTranslator = field(default_factory=FormulaTranslator)
    functions: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    uses_not_scorable: bool = False
    moved: dict[str, str] = field(default_factory=dict)
    instructions: str | None = None

    def step(self, step: Any) -> None:
        name = _CAMEL[step.step]
        part = "prompt" if isinstance(step, PromptStepSpec) else "formula"
        self.formulas.where = f"The {step.step} step's {part}"
        self.formulas.step = step.step
        try:
            if isinstance(step, PromptStepSpec):
                self.prompt_step(step, name)
            elif isinstance(step, FormulaStepSpec):
                body = f"return {self.formulas.translate(step.formula)}"
                self.function_step(name, body)
                self.note_float(step.step, self.formulas.gives_float(step.formula))
                self.note_unsure(step.step, self.formulas.kind(step.formula) in (UNSURE, DATA))
            elif isinstance(step, FunctionStepSpec):
                body = f"return {self.builtin(step.use, step.with_, step.step)}"
                self.function_step(name, body)
                texts = step.use == "threshold" and isinstance(
                    step.with_.get("pass_value", 1.0), str
                )
                self.note_float(step.step, not texts)
        except Untranslatable as why:
            self.problems.append(f"The {step.step} step uses {why}, which has no Mastra form yet.")

    def note_float(self, step: str, gives_float: bool) -> None:
        """Remember that a built-in or formula step's result is a Python float."""
        if gives_float and step in ("preprocess", "analyze"):
            self.formulas.float_paths.add(f"results.{step}_step_result")
            self.formulas.float_paths.update(n for n, s in STEP_NAMES.items() if s == step)

    def note_unsure(self, step: str, unsure: bool) -> None:
        """Remember that a formula step's result may be a whole number or a float."""
        if unsure and step in ("preprocess", "analyze"):
            self.formulas.unsure_paths.add(f"results.{step}_step_result")
            self.formulas.unsure_paths.update(n for n, s in STEP_NAMES.items() if s == step)

    def function_step(self, name: str, body: str) -> None:
        check = {"generateScore": "scoreValue", "generateReason": "reasonText"}.get(name)
        if check is not None:
            self.formulas.used.add(check)
            body = body.replace("return ", f"return {check}(", 1) + ")"
        self.functions.append(f"function {name}Step(ctx: any): any {{\n  {body}\n}}")
        args = "{ run, results, score }" if name == "generateReason" else "{ run, results }"
        extra = ", score" if name == "generateReason" else ""
        self.links.append(f".{name}(({args}: any) => {name}Step(context(run, results{extra})))")

    def prompt_step(self, step: PromptStepSpec, name: str) -> None:
        own = step.judge if isinstance(step.judge, JudgeSpec) else None
        harden = self.merged(own).harden_prompt is True if own else self.hardened
        lines = TemplateTranslator(self.formulas, harden=harden).translate(step.template)
        shown = example_lines(step.worked_examples, self.formulas, harden=harden)
        lines[int(harden) : int(harden)] = shown  # after the nonce, before the prompt
        body = "\n".join(f"  {line}" for line in ["let out = ''", *lines, "return out"])
        self.functions.append(f"function {name}Prompt(ctx: any): string {{\n{body}\n}}")
        self.note_unsure(step.step, _holds_numbers(step.output_schema))
        calc = step.calculate_score
        if name == "generateScore" and not (
            calc is None or (isinstance(calc, FieldScoreSpec) and calc.field == "score")
        ):
            self.moved_score_step(step, calc)
            return
        args = "{ run, results, score }" if name == "generateReason" else "{ run, results }"
        extra = ", score" if name == "generateReason" else ""
        parts = [f"description: {json.dumps(step.description, ensure_ascii=False)}"]
        if step.output_schema is not None:
            parts.append(f"outputSchema: {zod_schema(step.output_schema)}")
        elif name != "generateReason":
            raise Untranslatable("a judge answer without an answer format")
        prompt = self.sent(step, f"{name}Prompt(context(run, results{extra}))")
        parts.append(f"createPrompt: ({args}: any) => {prompt}")
        parts += self.step_judge(step)
        self.links.append(f".{name}({{\n    " + ",\n    ".join(parts) + ",\n  })")

    def moved_score_step(self, step: PromptStepSpec, calc: Any) -> None:
        """Mastra takes a prompt score from the answer's ``score`` field and ignores
        ``calculateScore``: the judge is asked in ``analyze`` and the score computed after."""
        if any(s.step == "analyze" for s in self.spec.steps):
            raise Untranslatable("a judge score with its own calculation next to an analyze step")
        self.functions[-1] = self.functions[-1].replace("generateScorePrompt", "analyzePrompt")
        self.links.append(
            ".analyze({\n    "
            f"description: {json.dumps(step.description, ensure_ascii=False)},\n    "
            f"outputSchema: {zod_schema(step.output_schema)},\n    "
            "createPrompt: ({ run, results }: any) => "
            f"{self.sent(step, 'analyzePrompt(context(run, results))')},\n    "
            + "".join(f"{part},\n    " for part in self.step_judge(step)).rstrip()
            + "\n  })"
        )
        self.moved["analyze"] = "judge_output"
        if isinstance(calc, FormulaScoreSpec):
            self.formulas.where = "The generate_score step's score calculation"
            code = self.formulas.translate(calc.formula)
        else:
            code = self.builtin(calc.use, calc.with_, "calculate_score")
        self.formulas.used.add("scoreValue")
        self.functions.append(
            f"function generateScoreStep(ctx: any): any {{\n  return scoreValue({code})\n}}"
        )
        self.links.append(
            ".generateScore(({ run, results }: any) =>\n    "
            "generateScoreStep(context(run, results, null, results.analyzeStepResult)),\n  )"
        )

    def sent(self, step: PromptStepSpec, code: str) -> str:
        """The prompt's code as the judge receives it: masked and shortened as in the studio."""
        own = step.judge if isinstance(step.judge, JudgeSpec) else None
        code, used = input_processors(self.scorer_judge, own).prompt(code)
        self.formulas.used.update(used)
        return code

    @property
    def hardened(self) -> bool:
        """Whether the scorer's judge fences the judged text as data."""
        return self.scorer_judge is not None and self.scorer_judge.harden_prompt is True

    @property
    def scorer_judge(self) -> JudgeSpec | None:
        return self.spec.judge if isinstance(self.spec.judge, JudgeSpec) else None

    def step_judge(self, step: PromptStepSpec) -> list[str]:
        """``judge: {...}`` for a step with its own judge or a blocked-answer check."""
        own = step.judge if isinstance(step.judge, JudgeSpec) else None
        guard = own.output_guard if own is not None and own.output_guard else None
        guard = guard or (self.scorer_judge.output_guard if self.scorer_judge else None)
        extra = (
            []
            if guard is None
            else [f"outputProcessors: {output_guard(guard, self.spec.id, step.step)}"]
        )
        if own is None:
            return [f"judge: {{ {extra[0]} }}"] if extra else []
        judge = self.merged(own)
        text = input_processors(self.scorer_judge, own).instructions(judge.instructions)
        judge = judge.model_copy(update={"instructions": text})
        return [f"judge: {judge_config(judge, '    ', extra)}"]

    def merged(self, judge: JudgeSpec) -> JudgeSpec:
        base = self.spec.judge if isinstance(self.spec.judge, JudgeSpec) else JudgeSpec()
        return base.model_copy(update=judge.model_dump(exclude_unset=True))

    def builtin(self, use: str, params: Mapping[str, Any], where: str) -> str:
        from scorer_runtime.spec.mastra.builtins_ts import builtin_call

        code, used = builtin_call(use, params, where)
        self.formulas.used.update(used)
        return code


def export_mastra(
    spec: ScorerSpec | Mapping[str, Any],
    *,
    judge_profiles: Mapping[str, JudgeSpec] | None = None,
    version: int | None = None,
) -> MastraExport:
    """The spec as a Mastra TypeScript module, with what differs from the studio.

    Raises :class:`MastraExportError` listing every part with no Mastra form.
    """
    resolved = checked_spec(spec, None, judge_profiles)
    writer = _Writer(resolved)
    writer.formulas.agent = resolved.type == "agent"
    for step in resolved.steps:
        writer.step(step)
    if isinstance(resolved.judge, JudgeSpec):
        try:
            writer.instructions = input_processors(resolved.judge, None).instructions(
                resolved.judge.instructions
            )
        except Untranslatable as why:
            writer.problems.append(f"The judge uses {why}, which has no Mastra form yet.")
    if writer.problems:
        raise MastraExportError(writer.problems)
    differences = _differences(resolved) + writer.formulas.differences
    differences += whole_value_difference(writer.formulas)
    return MastraExport(_module(resolved, writer, version), differences)


def _holds_numbers(schema: Any) -> bool:
    """Whether a judge's answer may hold numbers: Python reads 1.0 in it as a float, Mastra
    as 1 (so a later step showing it as text may read 1 where the studio reads 1.0)."""
    if isinstance(schema, Mapping):
        kinds = schema.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        return bool({"number", "integer"} & set(kinds)) or any(map(_holds_numbers, schema.values()))
    return isinstance(schema, list) and any(map(_holds_numbers, schema))


def _differences(spec: ScorerSpec) -> list[str]:
    found: list[str] = []
    if isinstance(spec.judge, JudgeSpec):
        found += judge_differences(spec.judge, "The judge")
    for step in spec.steps:
        if isinstance(step, PromptStepSpec) and isinstance(step.judge, JudgeSpec):
            found += judge_differences(step.judge, f"The judge of the {step.step} step")
    return found + prepare_differences(spec)


def _header(spec: ScorerSpec, version: int | None, reads_json: bool) -> str:
    keys = spec.key_envs()
    key = (
        f"The judge's API key is read from the environment variable {' / '.join(keys)}."
        if keys
        else "It calls no judge: every step is a function."
    )
    about = f"{spec.display_name}: {spec.description}".replace("*/", "* /")
    lines = [
        *_wrapped(about, 95),
        "",
        f"Exported from Scorer Studio: scorer {spec.id!r}"
        + (f", version {version}." if version is not None else "."),
        "Install: npm i @mastra/core@1.71 zod@4",
        key,
        "Run with Node 22.13 or later (node --experimental-strip-types) or tsx.",
    ]
    if reads_json:
        lines += [
            "Data saved as JSON (such as a studio dataset line): parse it with readJson from",
            "this module instead of JSON.parse, so a number written 89.0 shows as 89.0 in",
            "prompts and reasons, as in the studio.",
        ]
    return "/**\n" + "\n".join(f" * {line}".rstrip() for line in lines) + "\n */"


def _wrapped(text: str, columns: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= columns:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def _step_value(step: str) -> str:
    """A step's result under its short name (``step2``), as the Python context has it."""
    if step == "generate_score":
        return "score"
    return f"picked.{step}_step_result ?? null"


def _context(spec: ScorerSpec, writer: _Writer) -> str:
    names = [s.step for s in spec.steps if s.step in ("preprocess", "analyze")]
    picks = [
        f"    if (results?.{_CAMEL[n]}StepResult !== undefined) "
        f"picked.{n}_step_result = results.{_CAMEL[n]}StepResult"
        for n in names
    ]
    return (
        "function context(run: any, results: any, score: any = null, judgeOutput: any = null)"
        ": any {\n"
        "  const picked: any = {}\n"
        + "".join(f"{p}\n" for p in picks)
        + "  const rc = run.requestContext\n"
        "  const requestContext = rc && typeof rc.entries === 'function' && !Array.isArray(rc)\n"
        "    ? Object.fromEntries(rc.entries()) : rc ?? null\n"
        "  return {\n"
        "    input: run.input ?? null, output: run.output ?? null,\n"
        "    ground_truth: run.groundTruth ?? null, request_context: requestContext,\n"
        "    results: picked, score, judge_output: judgeOutput, extra: {},\n"
        + "".join(f"    {name}: {_step_value(step)},\n" for name, step in STEP_NAMES.items())
        + "  }\n}"
    )


def _module(spec: ScorerSpec, writer: _Writer, version: int | None) -> str:
    imports = ["import { createScorer, isNotScorable, notScorable } from '@mastra/core/evals'"]
    judges = [spec.judge] + [getattr(s, "judge", None) for s in spec.steps]
    if any(isinstance(j, JudgeSpec) and j.retry is not None for j in judges):
        imports.append("import { StreamErrorRetryProcessor } from '@mastra/core/processors'")
    imports.append("import { z } from 'zod'")
    options = [
        f"  id: {json.dumps(spec.id)}",
        f"  name: {json.dumps(spec.display_name, ensure_ascii=False)}",
        f"  description: {json.dumps(spec.description, ensure_ascii=False)}",
    ]
    if spec.type == "agent":
        options.append("  type: 'agent'")
    if spec.prepare is not None:
        options.append(f"  prepareRun: {prepare_run(spec.prepare, writer.formulas.used)}")
    if isinstance(spec.judge, JudgeSpec):
        judge = spec.judge.model_copy(update={"instructions": writer.instructions})
        options.append(f"  judge: {judge_config(judge, '  ')}")
    chain = "\n  ".join(writer.links)
    scorer = "export const scorer = createScorer({\n" + ",\n".join(options) + f",\n}})\n  {chain}"
    helpers = helper_sources(writer.formulas.used)
    parts = [
        _header(spec, version, any("function readJson(" in h for h in helpers)),
        "\n".join(imports),
        *helpers,
        _context(spec, writer),
        *writer.functions,
        scorer,
        "export default scorer",
    ]
    return "\n\n".join(parts) + "\n"
