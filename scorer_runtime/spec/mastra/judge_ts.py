"""The judge of an exported Mastra scorer: model, instructions, retries, settings.

Judge features Mastra has no counterpart for are listed in plain words as differences.
"""

from __future__ import annotations

import json

from scorer_runtime.judge.fence import hardened_instructions
from scorer_runtime.spec.models import JudgeSpec


def judge_config(judge: JudgeSpec, indent: str, extra: list[str] | None = None) -> str:
    """``{ model, instructions, ... }`` for ``createScorer``'s (or a step's) ``judge``."""
    model = judge.model or "openai/gpt-4o-mini"
    if "/" not in model:
        model = f"openai/{model}"
    key = f"process.env.{judge.api_key_env}" if judge.api_key_env else "undefined"
    if judge.api_base:
        model_code = (
            f"{{ id: {json.dumps(model)}, url: {json.dumps(judge.api_base)}, apiKey: {key} }}"
        )
    elif judge.api_key_env and judge.api_key_env != _default_env(model):
        model_code = f"{{ id: {json.dumps(model)}, apiKey: {key} }}"
    else:
        model_code = json.dumps(model)
    fields = [f"model: {model_code}"]
    instructions = judge.instructions or ""
    if judge.harden_prompt:
        instructions = hardened_instructions(instructions)
    fields.append(f"instructions: {json.dumps(instructions, ensure_ascii=False)}")
    if judge.json_prompt_injection is not None:
        fields.append(f"jsonPromptInjection: {json.dumps(judge.json_prompt_injection)}")
    settings = ["maxRetries: 0"]
    if judge.temperature is not None:
        settings.insert(0, f"temperature: {judge.temperature}")
    fields.append(f"modelSettings: {{ {', '.join(settings)} }}")
    if judge.retry is not None:
        fields.append(f"errorProcessors: [{_retry_processor(judge)}]")
        fields.append(f"maxProcessorRetries: {judge.retry.max_retries}")
    fields += extra or []
    inner = ",\n".join(f"{indent}  {field}" for field in fields)
    return f"{{\n{inner},\n{indent}}}"


def _default_env(model: str) -> str:
    return f"{model.split('/', 1)[0].upper().replace('-', '_')}_API_KEY"


def _retry_processor(judge: JudgeSpec) -> str:
    retry = judge.retry
    assert retry is not None
    delay = retry.delay
    if isinstance(delay, int):
        delay_code = str(delay)
    else:
        delay_code = (
            f"({{ retryCount }}: {{ retryCount: number }}) => "
            f"Math.min({delay.initial_ms} * {delay.factor} ** retryCount, {delay.max_ms})"
        )
    options = [
        f"maxRetries: {retry.max_retries}",
        f"maxRetryAfterMs: {retry.max_retry_after_ms}",
        f"delayMs: {delay_code}",
        f"retryUnknownErrors: {'true' if retry.retry_unknown_errors else 'false'}",
    ]
    return f"new StreamErrorRetryProcessor({{ {', '.join(options)} }})"


def judge_differences(judge: JudgeSpec, where: str) -> list[str]:
    """What this judge does in the studio that the Mastra module does not."""
    found: list[str] = []
    injected = judge.json_prompt_injection not in (None, False)
    if injected and (judge.redact_pii is not None or judge.truncate is not None):
        found.append(
            f"{where}: the description of the answer format Mastra adds is not masked or "
            "shortened (the studio masks and shortens its own with the prompt)."
        )
    if judge.timeout_s is not None:
        found.append(f"{where}: there is no {judge.timeout_s:g}-second limit on one answer.")
    if judge.json_prompt_injection not in (None, False):
        found.append(
            f"{where}: the answer format is described to the judge in Mastra's own words, "
            "so its instructions read differently (the prompts are the same)."
        )
    if judge.retry is not None and (judge.retry.retry_on_status or judge.retry.retry_on_text):
        found.append(f"{where}: the extra error codes and texts to retry are not retried.")
    if judge.default_max_cost is not None:
        found.append(
            f"{where}: runs are not stopped at the default spend cap of "
            f"${judge.default_max_cost:g} (the module scores one example at a time, with no "
            "run to cap)."
        )
    if judge.harden_prompt:
        found.append(
            f"{where}: the judged text is marked as data with a new code for each prompt, not "
            "for each retry of it, and Mastra reads the answer itself: an answer with words "
            "around its JSON is not refused and asked again."
        )
    limits = _limit_words(judge)
    if limits:
        found.append(
            f"{where}: the limit of {limits} is not kept (Mastra has no rate limit for a "
            "judge: give runEvals a concurrency low enough for it), and a 429 is retried "
            "only by the retry policy, without the pause for every other request."
        )
    return found


def _limit_words(judge: JudgeSpec) -> str:
    parts = []
    if judge.requests_per_minute is not None:
        parts.append(f"{judge.requests_per_minute:,} requests a minute")
    if judge.tokens_per_minute is not None:
        parts.append(f"{judge.tokens_per_minute:,} tokens a minute")
    return " and ".join(parts)
