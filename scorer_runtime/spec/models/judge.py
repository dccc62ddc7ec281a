"""The judge of a spec: model, instructions, where the key lives, retries and processors."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Self

from pydantic import Discriminator, Field, Tag, field_validator, model_validator

from scorer_runtime.spec.models.base import SpecModel

DEFAULT_MAX_RETRY_AFTER_MS = 30_000


class ExponentialDelaySpec(SpecModel):
    """Wait longer after each failure: ``initial_ms``, then times ``factor``, up to ``max_ms``."""

    initial_ms: int = Field(default=1000, ge=0, description="Wait before the first retry, in ms.")
    factor: float = Field(
        default=2.0, ge=1, le=10, description="How much each wait grows (2 doubles)."
    )
    max_ms: int = Field(
        default=30_000, ge=0, description="The longest wait between retries, in ms."
    )


def _delay_tag(value: Any) -> str | None:
    if isinstance(value, dict | ExponentialDelaySpec):
        return "delay-exponential"
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        return "delay-ms"
    return None


DelaySpec = Annotated[
    Annotated[int, Tag("delay-ms"), Field(ge=0, le=600_000)]
    | Annotated[ExponentialDelaySpec, Tag("delay-exponential")],
    Discriminator(
        _delay_tag,
        custom_error_type="delay",
        custom_error_message=(
            "the delay is a number of milliseconds (e.g. 1000) or an exponential backoff "
            '(e.g. {"initial_ms": 500, "factor": 2, "max_ms": 8000})'
        ),
    ),
]
"""A constant wait in milliseconds, or an exponential backoff."""


class RetryPolicySpec(SpecModel):
    """How failed judge requests are retried (one request at a time, never the whole scorer).

    Rate limits, server errors and dropped connections are retried by default; a status code
    in ``retry_on_status`` or a text in ``retry_on_text`` is retried as well.
    """

    max_retries: int = Field(
        default=2, ge=0, le=20, description="Retries per judge request (attempts = 1 + retries)."
    )
    delay: DelaySpec = Field(
        default=ExponentialDelaySpec(),
        description="The wait before each retry: milliseconds, or an exponential backoff.",
    )
    max_retry_after_ms: int = Field(
        default=DEFAULT_MAX_RETRY_AFTER_MS,
        ge=0,
        description="The longest wait honoured when the provider sends Retry-After, in ms.",
    )
    retry_unknown_errors: bool = Field(
        default=False,
        description="Also retry failures that are not known to be transient (never bad keys).",
    )
    retry_on_status: list[Annotated[int, Field(ge=100, le=599)]] = Field(
        default_factory=list,
        description="Extra HTTP status codes to retry, e.g. [529] for an overloaded provider.",
    )
    retry_on_text: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list,
        description="Retry errors whose message contains any of these texts (ignoring case).",
    )


class RedactPIISpec(SpecModel):
    """Replace e-mails, phone numbers, card numbers and API keys before the judge sees them."""

    patterns: dict[str, str] = Field(
        default_factory=dict,
        description="Extra rules, name -> regular expression (a built-in name replaces it).",
    )
    replacement: str = Field(
        default="[REDACTED:{name}]", description="What replaces a match; {name} is the rule's name."
    )
    include_defaults: bool = Field(
        default=True, description="Apply the built-in rules (email, phone, card, api_key)."
    )
    kinds: list[Literal["email", "phone", "card", "api_key"]] | None = Field(
        default=None,
        min_length=1,
        description="Only these built-in rules (all four when omitted).",
    )

    @field_validator("patterns")
    @classmethod
    def _patterns_compile(cls, patterns: dict[str, str]) -> dict[str, str]:
        for name, regex in patterns.items():
            _check_regex(regex, f"the pattern {name!r}")
        return patterns

    @model_validator(mode="after")
    def _something_to_redact(self) -> Self:
        if not self.include_defaults and not self.patterns:
            raise ValueError("nothing to redact: add patterns or keep include_defaults true")
        if not self.include_defaults and self.kinds is not None:
            raise ValueError("kinds chooses built-in rules: keep include_defaults true with it")
        return self


class TruncateSpec(SpecModel):
    """Shorten over-long messages to the judge to a character or token budget."""

    max_chars: int | None = Field(default=None, gt=0, description="Budget in characters.")
    max_tokens: int | None = Field(
        default=None, gt=0, description="Budget in tokens (about 4 chars)."
    )
    marker: str = Field(default="…[truncated]", description="Put where text was cut.")
    keep: Literal["head", "tail", "both"] = Field(
        default="head", description="Which part survives: the start, the end, or both ends."
    )

    @model_validator(mode="after")
    def _one_budget(self) -> Self:
        if (self.max_chars is None) == (self.max_tokens is None):
            raise ValueError("set exactly one of max_chars or max_tokens")
        from scorer_runtime.processors.builtin import TruncateInput

        # The processor's own checks (e.g. the marker must fit the budget), at load time.
        TruncateInput(self.max_chars, self.max_tokens, marker=self.marker, keep=self.keep)
        return self


class OutputGuardSpec(SpecModel):
    """Reject judge answers matching any of these regular expressions (ignoring case)."""

    patterns: list[str] = Field(min_length=1, description="Regular expressions to block.")
    message: str | None = Field(default=None, description="What to say when an answer is rejected.")

    @field_validator("patterns")
    @classmethod
    def _patterns_compile(cls, patterns: list[str]) -> list[str]:
        for index, regex in enumerate(patterns):
            _check_regex(regex, f"pattern {index + 1}")
        return patterns


JsonPromptInjectionSpec = bool | Literal["auto", "system", "inline"]


class JudgeSpec(SpecModel):
    """The LLM judge for prompt steps. A spec never holds an API key, only the NAME of the
    environment variable that does (``api_key_env``).

    On a step, every field that is set overrides the scorer's judge; unset fields inherit.
    """

    model: str | None = Field(
        default=None,
        min_length=1,
        description="A litellm model string, e.g. openai/gpt-4o-mini or ollama/llama3.",
        examples=["openai/gpt-4o-mini"],
    )
    instructions: str | None = Field(
        default=None,
        min_length=1,
        description="The judge's system prompt: who it is, how it grades.",
    )
    api_base: str | None = Field(
        default=None,
        min_length=1,
        description="Base URL of an OpenAI-compatible server, if not default.",
    )
    api_key_env: str | None = Field(
        default=None,
        description="NAME of the environment variable holding the API key, e.g. OPENAI_API_KEY.",
        examples=["OPENAI_API_KEY"],
    )
    json_prompt_injection: JsonPromptInjectionSpec | None = Field(
        default=None,
        description=(
            "Put the JSON schema in the prompt (true/'system'/'inline') instead of the "
            "provider's structured output (false); 'auto' picks by model."
        ),
    )
    temperature: float | None = Field(default=None, ge=0, le=2, description="Sampling temperature.")
    timeout_s: float | None = Field(
        default=None, gt=0, le=3600, description="Seconds to wait for one judge answer."
    )
    input_price_per_million: float | None = Field(
        default=None,
        ge=0,
        le=100_000,
        description="Dollars per 1M input tokens: a price for a model litellm does not price "
        "(or your own). With it, runs record a cost and a spend cap can be checked.",
    )
    output_price_per_million: float | None = Field(
        default=None,
        ge=0,
        le=100_000,
        description="Dollars per 1M output tokens (see input_price_per_million).",
    )
    default_max_cost: float | None = Field(
        default=None,
        gt=0,
        le=1_000_000,
        description="A spend cap in dollars for each run with this judge: a run given no cap "
        "of its own stops before its judge calls could cost more.",
    )
    requests_per_minute: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000,
        description="What the provider allows this key: requests a minute. Every run and "
        "runner sharing a store keeps to it together; none set: slow down only after a 429.",
    )
    tokens_per_minute: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000_000,
        description="What the provider allows this key: tokens a minute (prompts and answers).",
    )
    harden_prompt: bool | None = Field(
        default=None,
        description="Mark the judged text as data: each value a prompt inserts is fenced with "
        "a fresh code per call, the judge is told text inside is never instructions, and its "
        "answer must be one JSON document alone. Left out: off (as judges saved before it).",
    )
    retry: RetryPolicySpec | None = Field(default=None, description="Retry failed judge requests.")
    redact_pii: RedactPIISpec | None = Field(
        default=None, description="Redact personal data first."
    )
    truncate: TruncateSpec | None = Field(
        default=None, description="Shorten over-long prompts first."
    )
    output_guard: OutputGuardSpec | None = Field(
        default=None, description="Reject unwanted answers."
    )

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.fullmatch(value):
            raise ValueError(
                "api_key_env is the NAME of an environment variable (letters, digits and _, "
                "such as OPENAI_API_KEY), never the key itself"
            )
        return value


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _judge_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "judge-profile"
    if isinstance(value, dict | JudgeSpec):
        return "judge-settings"
    return None


JudgeRef = Annotated[
    Annotated[JudgeSpec, Tag("judge-settings")]
    | Annotated[str, Tag("judge-profile"), Field(min_length=1)],
    Discriminator(
        _judge_tag,
        custom_error_type="judge",
        custom_error_message=(
            "the judge is either settings (an object with model, instructions, ...) "
            "or the name of a saved judge profile"
        ),
    ),
]
"""A judge given in place, or the name of a saved judge profile."""


def _check_regex(regex: str, what: str) -> None:
    from scorer_runtime.processors.patterns import check_pattern

    check_pattern(regex, what)
