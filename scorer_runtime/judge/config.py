"""The judge configuration, and how a step's judge overrides the scorer's."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Literal

from scorer_runtime.judge.rate import RateLimit, limit_key
from scorer_runtime.processors.base import ErrorProcessor, InputProcessor, OutputProcessor

JsonPromptInjection = bool | Literal["auto", "system", "inline"]

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_PROCESSOR_RETRIES = 10
"""The retry cap when error processors are configured without ``max_processor_retries``."""


@dataclass(frozen=True, slots=True)
class Judge:
    """Which LLM judges a prompt step, and how it is asked.

    Every field left as ``None`` is inherited: a step's judge overrides the scorer's field by
    field. Processor lists given on a step *replace* the scorer's (an empty list disables
    them); an omitted ``max_processor_retries`` inherits the scorer's.

    ``model`` is a litellm model string (``openai/gpt-4o-mini``, ``anthropic/...``,
    ``ollama/...``); ``api_base`` points at any OpenAI-compatible server. Prefer
    ``api_key_env`` (the *name* of the environment variable holding the key) over ``api_key``.

    ``json_prompt_injection``: ``False`` uses the provider's native structured output;
    ``True``/``"system"`` appends the JSON schema to the system message, ``"inline"`` to the
    user message; ``"auto"`` (the default) is native when the model supports response
    schemas, else inline.

    ``harden_prompt``: fence every judged value a prompt inserts as data, with a fresh code
    per call, and tell the judge that text inside is never instructions
    (:mod:`scorer_runtime.judge.fence`; a prompt written in code marks its values with
    :func:`~scorer_runtime.judge.fence.as_data`). Left unset it is off, so a judge saved
    before the setting existed asks exactly what it asked before; the studio turns it on
    for every new judge.
    """

    model: str | None = None
    instructions: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    json_prompt_injection: JsonPromptInjection | None = None
    input_processors: Sequence[InputProcessor] | None = None
    output_processors: Sequence[OutputProcessor] | None = None
    error_processors: Sequence[ErrorProcessor] | None = None
    max_processor_retries: int | None = None
    temperature: float | None = None
    timeout_s: float | None = None
    input_price_per_million: float | None = None
    """Dollars per 1M input tokens, used instead of litellm's price (see ``prices``)."""
    output_price_per_million: float | None = None
    default_max_cost: float | None = None
    """The spend cap in dollars of a run with this judge that is given no cap of its own
    (see :func:`~scorer_runtime.costs.cap.default_cap`); it never changes an answer."""
    requests_per_minute: int | None = None
    """What the provider allows this judge's key: requests a minute. Every run, runner and
    process sharing a ledger keeps to it together (:mod:`scorer_runtime.judge.rate`)."""
    tokens_per_minute: int | None = None
    """What the provider allows this judge's key: tokens a minute (prompt and answer)."""
    harden_prompt: bool | None = None
    """Fence the judged text as data (see the class docstring); None: off."""

    def __post_init__(self) -> None:
        for name in ("input_processors", "output_processors", "error_processors"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple(value))
        if self.max_processor_retries is not None and self.max_processor_retries < 0:
            raise ValueError("max_processor_retries must be 0 or more")
        for price in (self.input_price_per_million, self.output_price_per_million):
            if price is not None and not price >= 0:
                raise ValueError("a price per 1M tokens must be 0 or more")
        cap = self.default_max_cost
        if cap is not None and not (math.isfinite(cap) and cap > 0):
            raise ValueError("default_max_cost is a spend cap in dollars: an amount above 0")
        for limit in (self.requests_per_minute, self.tokens_per_minute):
            if limit is not None and (isinstance(limit, bool) or limit < 1):
                raise ValueError("a rate limit is a whole number a minute, 1 or more")
        if self.timeout_s is not None and self.timeout_s <= 0:
            raise ValueError("timeout_s must be a positive number of seconds")
        if self.harden_prompt is not None and not isinstance(self.harden_prompt, bool):
            raise ValueError(f"harden_prompt must be True or False, not {self.harden_prompt!r}")
        if self.json_prompt_injection not in (None, True, False, "auto", "system", "inline"):
            raise ValueError(
                "json_prompt_injection must be True, False, 'auto', 'system' or 'inline', "
                f"not {self.json_prompt_injection!r}"
            )

    def __repr__(self) -> str:
        # Never show a key; show only which fields are set.
        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            shown.append(f"{f.name}=***" if f.name == "api_key" else f"{f.name}={value!r}")
        return f"Judge({', '.join(shown)})"

    def override(self, step_judge: Judge | None) -> Judge:
        """This judge with every field the step's judge sets replaced by the step's value."""
        if step_judge is None:
            return self
        merged = {
            f.name: getattr(step_judge, f.name)
            if getattr(step_judge, f.name) is not None
            else getattr(self, f.name)
            for f in fields(self)
        }
        return Judge(**merged)


@dataclass(frozen=True, slots=True)
class ResolvedJudge:
    """A judge with every default applied, ready to call."""

    model: str
    instructions: str
    api_base: str | None
    api_key: str | None = field(repr=False)
    json_prompt_injection: JsonPromptInjection
    input_processors: tuple[InputProcessor, ...]
    output_processors: tuple[OutputProcessor, ...]
    error_processors: tuple[ErrorProcessor, ...]
    max_processor_retries: int
    temperature: float | None
    timeout_s: float
    prices: tuple[float, float] | None = None
    """Dollars per input and per output token set on the judge (a price per 1M tokens);
    None: litellm's own price for the model, when it has one."""
    rate_limit: RateLimit = field(default_factory=RateLimit)
    """What the provider allows (nothing set: held back only after a 429)."""
    limit_key: str = ""
    """The name the judge's rate is counted under (:func:`~scorer_runtime.judge.rate.limit_key`)."""
    harden_prompt: bool = False
    """Whether the judged text is fenced as data (:mod:`scorer_runtime.judge.fence`)."""


class JudgeConfigError(ValueError):
    """The judge for a prompt step is missing something it needs to run."""


def resolve_judge(judge: Judge) -> ResolvedJudge:
    """Apply defaults; raise :class:`JudgeConfigError` saying what is missing."""
    if not judge.model:
        raise JudgeConfigError(
            "no judge model is set; give the scorer (or this step) a judge with a model, "
            "e.g. Judge(model='openai/gpt-4o-mini', instructions='...')"
        )
    if not judge.instructions:
        raise JudgeConfigError(
            "the judge has no instructions; set Judge(instructions=...) on the scorer or step "
            "(they become the judge's system message)"
        )
    api_key = judge.api_key
    if api_key is None and judge.api_key_env:
        api_key = os.environ.get(judge.api_key_env)
        if not api_key:
            raise JudgeConfigError(
                f"the environment variable {judge.api_key_env} that should hold the judge's "
                "API key is not set; set it before running the scorer"
            )
    error_processors = tuple(judge.error_processors or ())
    cap = judge.max_processor_retries
    if cap is None:
        cap = DEFAULT_MAX_PROCESSOR_RETRIES if error_processors else 0
    injection = judge.json_prompt_injection
    return ResolvedJudge(
        model=judge.model,
        instructions=judge.instructions,
        api_base=judge.api_base,
        api_key=api_key,
        json_prompt_injection="auto" if injection is None else injection,
        input_processors=tuple(judge.input_processors or ()),
        output_processors=tuple(judge.output_processors or ()),
        error_processors=error_processors,
        max_processor_retries=cap,
        temperature=judge.temperature,
        timeout_s=judge.timeout_s if judge.timeout_s is not None else DEFAULT_TIMEOUT_S,
        prices=_prices(judge),
        rate_limit=RateLimit(judge.requests_per_minute, judge.tokens_per_minute),
        limit_key=limit_key(judge.model, judge.api_base, judge.api_key_env),
        harden_prompt=bool(judge.harden_prompt),
    )


def _prices(judge: Judge) -> tuple[float, float] | None:
    """The judge's own price per token, when it sets one (a price left out counts 0)."""
    per_input, per_output = judge.input_price_per_million, judge.output_price_per_million
    if per_input is None and per_output is None:
        return None
    return (per_input or 0.0) / 1_000_000, (per_output or 0.0) / 1_000_000
