"""The one module that talks to litellm.

litellm is imported lazily (it takes seconds) with its cost map read locally, never from
the network. Every call passes ``num_retries=0`` and ``max_retries=0``: retries belong to the
error processors alone, so provider attempts never multiply. Whatever litellm raises is
turned into a :class:`~scorer_runtime.errors.ProviderError`.

Whether litellm's local cost map prices a model is read once per model (:func:`pricing`).
litellm caches what it finds for a model it knows, but not a miss: for a model the map does
not know it searched again on every call, a fifth of the call's CPU (profiled). Such a model
gets a stand-in price per call instead, and no cost is recorded for it.

litellm's ``aiohttp_openai/`` route costs less CPU per call but is not used: in 1.110.2 it
drops the answer's token counts and reports every HTTP error as a 500 without Retry-After.
Measured against the bench's fake server (litellm 1.110.2, on a busy machine, interleaved),
these public options saved no client CPU and are not used either: a shared ``client=`` (an
``openai.AsyncOpenAI`` made once) cost 7-9 % more than litellm's own cached client over its
aiohttp transport; ``logging = False``, ``turn_off_message_logging`` and
``disable_token_counter`` together did not help; httpx instead of aiohttp
(``disable_aiohttp_transport``) cost ~40 % more. What is left per call is
litellm's own wrapper: its logging object, its cost calculation (it prices every call, even
one priced by us; no setting turns it off) and the OpenAI SDK's request building and parsing.

Everything this module hands back is redacted (:func:`scorer_runtime.secrets.redact`) with
the call's key: an error message, an answer's text. An answer that is not a chat completion
(an HTML page, an empty body, JSON without ``choices``) becomes a ProviderError saying what
came back (:mod:`scorer_runtime.judge.bad_answers`), never an ``IndexError``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import warnings
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType, ModuleType
from typing import Any

from scorer_runtime.errors import ProviderError, Transport
from scorer_runtime.judge import bad_answers
from scorer_runtime.processors.base import JudgeMessage
from scorer_runtime.results import Usage
from scorer_runtime.secrets import redact


@dataclass(frozen=True, slots=True)
class Completion:
    """A judge's answer to one provider call."""

    text: str
    usage: Usage
    cost: float | None
    model: str


@cache
def _litellm() -> ModuleType:
    # Both must be set before the import, or litellm fetches its cost map from the internet.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    return litellm


_warm_ups: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
    weakref.WeakKeyDictionary()
)
_warmed = False


async def warm() -> None:
    """Pay the model client's start-up now: its import and what its first call loads.

    litellm imports for seconds and its first completion loads more (its logging, the
    provider's handler); paid inside a call, that start-up would be recorded as the judge's
    time. Call this before a clock that should measure the provider alone starts. Once per
    process: callers at the same time wait for the one warm-up. Never raises and never
    reaches the network (the warm-up call is answered by litellm itself); a warm-up that
    fails leaves the first call to pay the rest.
    """
    if _warmed:
        return
    loop = asyncio.get_running_loop()
    task = _warm_ups.get(loop)
    if task is None:
        task = _warm_ups[loop] = loop.create_task(_warm_up())
        task.add_done_callback(lambda _: _warm_ups.pop(loop, None))
    await asyncio.shield(task)


async def _warm_up() -> None:
    global _warmed
    try:
        litellm = _litellm()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await litellm.acompletion(
                model="openai/gpt-4o-mini",
                messages=[{"role": "user", "content": "warm-up"}],
                mock_response="ok",
            )
    except Exception:  # noqa: S110 - only a head start: the first real call pays instead
        pass
    _warmed = True


@dataclass(frozen=True, slots=True)
class Pricing:
    """Whether litellm's local cost map prices a model, read once per model."""

    known: bool  # when not, no cost is recorded for the model's calls
    arguments: Mapping[str, Any]  # per-call pricing keywords handed to litellm


# For a model the cost map does not price, litellm looks for it again (by name, then by name
# patterns) on every call, and finds nothing. A stand-in price spares it that search; the cost
# it then reports is discarded (recorded as None). Not zero: a zero cost makes litellm look up
# the model once more to explain it.
_STAND_IN_PRICES: Mapping[str, float] = MappingProxyType(
    {"input_cost_per_token": 1e-9, "output_cost_per_token": 1e-9}
)
_PRICED = Pricing(known=True, arguments=MappingProxyType({}))


@cache
def pricing(model: str) -> Pricing:
    """Whether the map prices ``model`` (then litellm prices each call from its own cached
    lookup, tiers and cached input included) or not (then the stand-in price is handed over)."""
    try:
        info = _litellm().get_model_info(model=model)
    except Exception:  # litellm raises for a model it does not know
        return Pricing(known=False, arguments=_STAND_IN_PRICES)
    if info.get("input_cost_per_token") is None and info.get("output_cost_per_token") is None:
        return Pricing(known=False, arguments=_STAND_IN_PRICES)
    return _PRICED


def _own_price(prices: tuple[float, float]) -> Pricing:
    """The judge's own price per token, handed to litellm for the call."""
    per_input, per_output = prices
    return Pricing(
        known=True,
        arguments=MappingProxyType(
            {"input_cost_per_token": per_input, "output_cost_per_token": per_output}
        ),
    )


@cache
def supports_response_schema(model: str) -> bool:
    """Whether litellm knows the model to support native JSON-schema output."""
    try:
        return bool(_litellm().supports_response_schema(model=model))
    except Exception:
        return False


async def complete(
    *,
    model: str,
    messages: Sequence[JudgeMessage],
    api_base: str | None,
    api_key: str | None,
    temperature: float | None,
    timeout_s: float,
    response_format: Mapping[str, Any] | None,
    prices: tuple[float, float] | None = None,
) -> Completion:
    """One provider call; raises :class:`ProviderError` on any failure of the call.

    ``prices`` (dollars per input and output token, set on the judge) price the call
    instead of litellm's cost map."""
    litellm = _litellm()
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        "timeout": timeout_s,
        "num_retries": 0,
        "max_retries": 0,
    }
    if api_base:
        kwargs["api_base"] = api_base
    if api_key:
        kwargs["api_key"] = api_key
    if temperature is not None:
        kwargs["temperature"] = temperature
    if response_format is not None:
        kwargs["response_format"] = dict(response_format)
    known = pricing(model) if prices is None else _own_price(prices)
    kwargs.update(known.arguments)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            response = await litellm.acompletion(**kwargs)
    except Exception as e:
        error = to_provider_error(e, secrets=(api_key,))
        # The library's exception still holds what the server said, key and all: it is not
        # chained when the key was in it, so no traceback can print it.
        leaked = redact(str(e), (api_key,)) != str(e)
        raise error from (None if leaked else e)
    return _completion(litellm, response, model, api_key, priced=known.known)


def _completion(
    litellm: ModuleType, response: Any, model: str, api_key: str | None, *, priced: bool
) -> Completion:
    choices = getattr(response, "choices", None)
    if not choices:  # litellm lets an empty list through
        raise ProviderError(
            bad_answers.empty_choices_message(), code=bad_answers.INVALID_RESPONSE_CODE
        )
    message = getattr(choices[0], "message", None)
    text = redact(str(getattr(message, "content", None) or ""), (api_key,))
    usage = getattr(response, "usage", None)
    tokens = Usage(
        input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        total_tokens=int(getattr(usage, "total_tokens", 0) or 0),
    )
    return Completion(
        text=text,
        usage=tokens,
        cost=_cost(litellm, response) if priced else None,
        model=str(response.model or model),
    )


def _cost(litellm: ModuleType, response: Any) -> float | None:
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")
    # litellm prices the call itself. Ask again only when it did not try: asking costs
    # ~1.4 ms of CPU per call (profiled).
    if cost is None and "response_cost" not in hidden:
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:
            cost = None  # litellm does not know the model's price
    return None if cost is None else float(cost)


# Names of exception classes (anywhere in the cause chain) that mean the request failed
# below HTTP. litellm reports these as a 500 "Connection error.", so the chain tells.
_TRANSPORT_BY_CLASS: dict[str, Transport] = {
    "ConnectError": "connect",
    "ConnectionRefusedError": "connect",
    "ClientConnectorError": "connect",
    "ConnectTimeout": "timeout",
    "ReadTimeout": "timeout",
    "WriteTimeout": "timeout",
    "PoolTimeout": "timeout",
    "TimeoutException": "timeout",
    "APITimeoutError": "timeout",
    "Timeout": "timeout",
    "TimeoutError": "timeout",
    "RemoteProtocolError": "dropped",
    "ServerDisconnectedError": "dropped",
    "IncompleteRead": "dropped",
    "ReadError": "reset",
    "WriteError": "reset",
    "ConnectionResetError": "reset",
    "BrokenPipeError": "reset",
}


def _transport(error: BaseException) -> Transport | None:
    seen: set[int] = set()
    found: Transport | None = None
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        for cls in type(current).__mro__:
            kind = _TRANSPORT_BY_CLASS.get(cls.__name__)
            if kind is not None:
                found = kind  # the deepest cause is the most specific
                break
        current = current.__cause__ or current.__context__
    return found


def _headers(error: BaseException) -> dict[str, str]:
    raw = getattr(error, "litellm_response_headers", None)
    if raw is None:
        response = getattr(error, "response", None)
        raw = getattr(response, "headers", None)
    try:
        return {str(k).lower(): str(v) for k, v in dict(raw or {}).items()}
    except (TypeError, ValueError):
        return {}


def _error_body(error: BaseException) -> dict[str, Any]:
    body = getattr(error, "body", None)
    if not isinstance(body, dict):
        text = str(getattr(error, "message", "") or error)
        start = text.find("{")
        try:
            body = json.loads(text[start:]) if start >= 0 else {}
        except json.JSONDecodeError:
            body = {}
    inner = body.get("error", body) if isinstance(body, dict) else {}
    return inner if isinstance(inner, dict) else {}


# litellm prefixes messages with its class names ("litellm.AuthenticationError:
# AuthenticationError: OpenAIException - ..."); people only need what the provider said.
_LITELLM_PREFIX = re.compile(r"^(?:\s*(?:litellm\.)?\w+(?:Error|Exception)(?::| -)\s*)+")


def clean_message(text: str) -> str:
    """A provider's error message without litellm's class-name prefixes."""
    return _LITELLM_PREFIX.sub("", text).strip() or text.strip()


def to_provider_error(error: BaseException, *, secrets: Sequence[str | None] = ()) -> ProviderError:
    """Describe a failed litellm call in the library-independent ProviderError shape, its
    message redacted with ``secrets`` (the call's key) and every key-shaped text."""
    transport = _transport(error)
    status = getattr(error, "status_code", None)
    body = _error_body(error)
    headers = _headers(error)
    hint = headers.get("x-should-retry")
    message = clean_message(str(body.get("message") or getattr(error, "message", None) or error))
    code = _str_or_none(body.get("code"))
    status_code = None if transport is not None else (int(status) if status else None)
    not_completion = bad_answers.from_library_message(message)
    if not_completion is not None:
        # litellm reports these as a made-up 500; the server most likely said 200.
        message, code, status_code = not_completion, bad_answers.INVALID_RESPONSE_CODE, None
    else:
        # Redacted before it is cut to a preview: a key across the cut leaves no part behind.
        body_text = _response_text(error)
        if body_text is not None:
            body_text = redact(body_text, secrets)
        message = bad_answers.http_body_message(message, body_text) or message
    cause = error.__cause__ or error.__context__
    if transport is not None and cause is not None:
        message = f"{message} ({type(cause).__name__}: {cause})"
    return ProviderError(
        message=redact(message, secrets),
        # A transport failure got no HTTP response: litellm's 500/408 there is made up.
        status_code=status_code,
        headers=headers if transport is None else {},
        code=code,
        type=_str_or_none(body.get("type")),
        retryable=None if hint is None else hint.strip().lower() == "true",
        transport=transport,
    )


def _response_text(error: BaseException) -> str | None:
    """The body of the HTTP response behind an error, when there was one."""
    response = getattr(error, "response", None)
    try:
        text = getattr(response, "text", None)
    except Exception:  # a streamed response that was never read
        return None
    return text if isinstance(text, str) else None


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def count_tokens(model: str, messages: Sequence[JudgeMessage]) -> int:
    """Input tokens of ``messages`` for ``model``, by litellm's counter (offline; a model it
    has no tokenizer for is counted with a common one)."""
    litellm = _litellm()
    plain = [{"role": m["role"], "content": m["content"]} for m in messages]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return int(litellm.token_counter(model=model, messages=plain))


def count_text_tokens(model: str, text: str) -> int:
    """Tokens of a piece of text (an answer, a schema) for ``model``."""
    litellm = _litellm()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return int(litellm.token_counter(model=model, text=text, count_response_tokens=True))


@cache
def token_prices(model: str) -> tuple[float, float] | None:
    """Dollars per input token and per output token in litellm's local cost map, or None
    when the map does not price ``model`` (a price of zero there, as for local models, is
    no price: nothing says what running them costs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not pricing(model).known:
            return None
        info = _litellm().get_model_info(model=model)
    prices = (
        float(info.get("input_cost_per_token") or 0.0),
        float(info.get("output_cost_per_token") or 0.0),
    )
    return None if prices == (0.0, 0.0) else prices
