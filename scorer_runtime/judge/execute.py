"""Running one prompt step's judge request: processors, retries, structured output, the re-ask.

The flow for one step:
1. build the messages (system = instructions, user = the prompt; the schema injected per
   ``json_prompt_injection``) and pass them through the input processors;
2. call the provider (the model client warmed up first, so each call's recorded duration
   is the provider's, never the client's start-up); on failure ask the error processors
   whether to retry, within the judge's cap (so one request makes at most
   ``1 + max_processor_retries`` calls);
3. pass the answer through the output processors, then parse and validate it;
4. on a *format* failure only, re-ask once with the schema in the system message — a new
   request with its own retry budget.

With a judge answer cache in use (:mod:`scorer_runtime.judge.cache`) the first request's
messages, once through the input processors, are looked up before any call: a stored answer
that still parses and fits the schema is the answer (``cached``, no provider call, its first
cost recorded as saved); one that no longer does is logged and treated as a miss. A
successful answer that was not found carries its ``cache_key`` for whoever stores the run.

A judge with ``harden_prompt`` on (:mod:`scorer_runtime.judge.fence`) gets the data rule at
the end of its instructions; its prompt's markers carry a stand-in code in the evidence and
the cache key, and a fresh random code in each call as sent. Its answer must be exactly one
JSON document (a whole answer in one fenced block is one; prose around it is not).

Every text of the evidence that the judge's server sent back (errors, a failed call's raw
answer) and the exception a failure raises are redacted with the judge's key before anything
sees them (:func:`scorer_runtime.secrets.redact`); the client has already done so for what
it returns, this also covers what processors raise.
"""

from __future__ import annotations

import inspect
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

from scorer_runtime.errors import ErrorKind, JudgeFormatError, ProviderError
from scorer_runtime.judge import client, fence, rate, rehearsal
from scorer_runtime.judge.cache import AnswerCache, active_cache, answer_key
from scorer_runtime.judge.config import ResolvedJudge
from scorer_runtime.judge.structured import AnswerFormatError, StructuredOutput
from scorer_runtime.processors.base import (
    JudgeMessage,
    ProcessorContext,
    RetryContext,
    RetryDecision,
)
from scorer_runtime.processors.retry import parse_retry_after_ms
from scorer_runtime.results import JudgeExecution, ProviderCall, Usage
from scorer_runtime.secrets import redact
from scorer_runtime.types import StepName

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """What one prompt step asks of the judge."""

    scorer_id: str
    step: StepName
    run_id: str
    prompt: str
    judge: ResolvedJudge
    output: StructuredOutput | None
    """None for a plain-text answer (generate_reason)."""
    use_cache: bool = True
    """Whether the judge answer cache in use (if any) may answer this request."""


async def _resolve(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _injection_mode(request: JudgeRequest) -> str:
    """``native``, ``system`` or ``inline``: where the schema goes for this request."""
    mode = request.judge.json_prompt_injection
    if mode is False:
        return "native"
    if mode is True or mode == "system":
        return "system"
    if mode == "inline":
        return "inline"
    return "native" if client.supports_response_schema(request.judge.model) else "inline"


def _messages(request: JudgeRequest, mode: str, *, reask: bool) -> list[JudgeMessage]:
    system, user = request.judge.instructions, request.prompt
    if request.judge.harden_prompt:
        system = fence.hardened_instructions(system)
    if request.output is not None:
        instruction = request.output.instruction()
        if mode == "system" or reask:
            system = f"{system}\n\n{instruction}"
        if mode == "inline":
            user = f"{user}\n\n{instruction}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


async def execute(request: JudgeRequest) -> tuple[Any, JudgeExecution]:
    """Run the step's judge request; returns the parsed answer and the evidence.

    On failure the returned execution has ``status="failed"``, the error, and the exception in
    ``execution.exception``; the parsed answer is then None.
    """
    if rehearsal.current() is None:  # a rehearsal calls no provider: nothing to warm up
        await client.warm()  # the client's start-up is not the judge's time
    execution = JudgeExecution(step=request.step, model=request.judge.model, prompt=request.prompt)
    started = time.perf_counter()
    mode = _injection_mode(request)
    response_format = (
        request.output.response_format() if request.output and mode == "native" else None
    )
    context = ProcessorContext(request.scorer_id, request.step, request.run_id, request.judge.model)
    parsed: Any = None
    costs: list[float | None] = []
    cache = active_cache() if request.use_cache else None
    key: str | None = None
    try:
        for reask in (False, True):
            execution.attempt_count += 1
            messages = _messages(request, mode, reask=reask)
            for processor in request.judge.input_processors:
                messages = await _resolve(processor.process_input(messages, context))
            execution.messages = [{"role": m["role"], "content": m["content"]} for m in messages]
            if cache is not None and not reask:
                key = _key(request, mode, response_format, execution.messages)
                if _from_cache(cache, key, request, execution):
                    _rehearsed_hit(request, messages, response_format, execution)
                    return execution.parsed_output, execution
            completion = await _call_with_retries(request, messages, response_format, execution)
            execution.usage = execution.usage + completion.usage
            costs.append(completion.cost)
            execution.cost = None if None in costs else sum(c for c in costs if c is not None)
            text = completion.text
            for out_processor in request.judge.output_processors:
                text = await _resolve(out_processor.process_output(text, context))
            execution.raw_output = text
            if request.output is None:
                parsed = text
                break
            try:
                parsed = request.output.parse(text, strict=request.judge.harden_prompt)
                break
            except AnswerFormatError as e:
                if reask:
                    raise JudgeFormatError(
                        f"{e}. The judge was asked again with the schema and still did not "
                        "answer in the expected format. Try adding 'Answer only with JSON' to "
                        "the instructions, or turn on JSON prompt injection for this judge.",
                        raw_output=text,
                    ) from e
        execution.parsed_output = parsed
        execution.cache_key = key
    except Exception as e:
        secrets = (request.judge.api_key,)
        e = _scrubbed(e, secrets)
        execution.status = "failed"
        execution.error = str(e)
        if execution.raw_output is not None:
            execution.raw_output = redact(execution.raw_output, secrets)
        kind = getattr(e, "kind", None)
        execution.error_kind = kind if isinstance(kind, ErrorKind) else None
        execution.exception = e
        parsed = None
    finally:
        execution.duration_ms = (time.perf_counter() - started) * 1000
    return parsed, execution


def _key(
    request: JudgeRequest,
    mode: str,
    response_format: dict[str, Any] | None,
    messages: list[dict[str, str]],
) -> str:
    judge = request.judge
    return answer_key(
        model=judge.model,
        api_base=judge.api_base,
        temperature=judge.temperature,
        messages=messages,
        response_format=response_format,
        schema=request.output.schema_text if request.output is not None else None,
        mode=mode,
        output_processors=judge.output_processors,
        hardened=judge.harden_prompt,
    )


def _from_cache(
    cache: AnswerCache, key: str, request: JudgeRequest, execution: JudgeExecution
) -> bool:
    """Fill ``execution`` from the cache; False on a miss (a stored answer that no longer
    parses or fits the schema is one: logged, never handed on as an answer)."""
    try:
        found = cache.get(key)
        if found is None:
            return False
        text = found.text
        strict = request.judge.harden_prompt
        parsed = text if request.output is None else request.output.parse(text, strict=strict)
    except Exception as e:
        _log.warning(
            "The stored judge answer for step %s of scorer %r could not be used (%s); "
            "the judge is asked again.",
            request.step,
            request.scorer_id,
            e,
        )
        return False
    execution.attempt_count = 0
    execution.cached = True
    execution.raw_output = text
    execution.parsed_output = parsed
    execution.usage = Usage()
    execution.cost = 0.0
    execution.saved_cost = found.cost
    return True


def _rehearsed_hit(
    request: JudgeRequest,
    messages: list[JudgeMessage],
    response_format: dict[str, Any] | None,
    execution: JudgeExecution,
) -> None:
    """While a cost estimate rehearses the run, record a request the cache answered."""
    rehearsing = rehearsal.current()
    if rehearsing is not None:
        rehearsing.reused(
            step=request.step,
            judge=request.judge,
            messages=messages,
            response_format=response_format,
            output=request.output,
            answer=execution.raw_output or "",
        )


def _scrubbed(error: Exception, secrets: tuple[str | None, ...]) -> Exception:
    """``error`` with no secret in its message (nor its raw answer); when one was found, its
    chain is cut too, so no traceback of it can print the original text."""
    text = str(error)
    raw = getattr(error, "raw_output", None)
    clean_raw = redact(raw, secrets) if isinstance(raw, str) else raw
    if redact(text, secrets) == text and clean_raw == raw:
        return error
    if isinstance(error, ProviderError):
        error.message = redact(error.message, secrets)
        error.args = (error.message,)
    else:
        error.args = (redact(text, secrets),)
    if isinstance(error, JudgeFormatError):
        error.raw_output = clean_raw
    error.__cause__ = None
    error.__suppress_context__ = True
    return error


async def _call_with_retries(
    request: JudgeRequest,
    messages: list[JudgeMessage],
    response_format: dict[str, Any] | None,
    execution: JudgeExecution,
) -> client.Completion:
    """One judge request: provider calls until success, or until no processor retries.

    Each call passes the judge's rate gate first (:mod:`scorer_runtime.judge.rate`); time
    held there is no provider call and spends no retry. A hardened judge's markers get a
    fresh code for every call (:func:`~scorer_runtime.judge.fence.with_nonce`)."""
    retries = 0
    hardened = request.judge.harden_prompt
    while True:
        gate, ticket = await _pass_gate(request, messages, execution)
        execution.model_call_count += 1
        call_started = time.perf_counter()
        sent = fence.with_nonce(messages, fence.new_nonce()) if hardened else messages
        try:
            completion = await _complete(request, sent, response_format)
        except ProviderError as error:
            if gate is not None and ticket is not None and error.status_code == 429:
                after = parse_retry_after_ms(error.headers)
                gate.rate_limited(ticket, None if after is None else after / 1000)
            call = ProviderCall(
                ok=False,
                duration_ms=(time.perf_counter() - call_started) * 1000,
                status_code=error.status_code,
                error=str(error),
                error_kind=error.kind,
            )
            decision = await _decide(request, error, retries, execution.model_call_count)
            if decision is not None:
                call = replace(call, delay_ms=decision.delay_ms)
            execution.calls.append(call)
            if decision is None:
                raise
            retries += 1
            continue
        if gate is not None and ticket is not None:
            usage = completion.usage
            gate.succeeded(
                ticket, prompt_tokens=usage.input_tokens, answer_tokens=usage.output_tokens
            )
        execution.calls.append(
            ProviderCall(ok=True, duration_ms=(time.perf_counter() - call_started) * 1000)
        )
        return completion


async def _pass_gate(
    request: JudgeRequest, messages: list[JudgeMessage], execution: JudgeExecution
) -> tuple[rate.JudgeGate | None, rate.Ticket | None]:
    """Wait at the judge's rate gate (none while a cost estimate rehearses the run)."""
    if rehearsal.current() is not None:
        return None, None
    judge = request.judge
    gate = rate.gate_for(judge.limit_key, judge.rate_limit)
    tokens = 0
    if judge.rate_limit.tokens_per_minute is not None:
        tokens = gate.estimate(client.count_tokens(judge.model, messages))
    ticket = await gate.acquire(tokens)
    hold = ticket.hold
    if hold.by is not None:
        execution.held_ms += hold.held_s * 1000
        execution.held_by = hold.by
        execution.held_rate = hold.per_second
    return gate, ticket


async def _complete(
    request: JudgeRequest, messages: list[JudgeMessage], response_format: dict[str, Any] | None
) -> client.Completion:
    """The provider's answer, or, while a cost estimate rehearses the run, a typical one."""
    judge = request.judge
    rehearsing = rehearsal.current()
    if rehearsing is not None:
        text = rehearsing.answer(
            step=request.step,
            judge=judge,
            messages=messages,
            response_format=response_format,
            output=request.output,
        )
        return client.Completion(text=text, usage=Usage(), cost=0.0, model=judge.model)
    return await client.complete(
        model=judge.model,
        messages=messages,
        api_base=judge.api_base,
        api_key=judge.api_key,
        temperature=judge.temperature,
        timeout_s=judge.timeout_s,
        response_format=response_format,
        prices=judge.prices,
    )


async def _decide(
    request: JudgeRequest, error: ProviderError, retries: int, calls: int
) -> RetryDecision | None:
    """The first error processor's yes, or None when the request must fail now."""
    judge = request.judge
    if retries >= judge.max_processor_retries:
        return None
    context = RetryContext(
        scorer_id=request.scorer_id,
        step=request.step,
        run_id=request.run_id,
        model=judge.model,
        retry_count=retries,
        provider_calls=calls,
        max_processor_retries=judge.max_processor_retries,
    )
    for processor in judge.error_processors:
        decision: RetryDecision = await _resolve(processor.process_api_error(error, context))
        if decision.retry:
            return decision
    return None
