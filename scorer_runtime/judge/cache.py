"""The judge answer cache: never pay twice for the same judge answer.

A judge request is identified by a SHA-256 of a canonical JSON of everything that decides
its answer (:func:`answer_key` of :func:`key_document`): the model, the API base, the
sampling parameters, the messages exactly as sent (after the input processors, the system
message included), the response format and schema, the answer format (where the schema
goes), the output processors and, for a judge that hardens its prompt, that setting (the
messages then hold the markers' stand-in code, never a call's random one, so a repeated
prompt is still answered from the cache). Never the API key.

The cache itself lives wherever the caller keeps it (the batch engine keeps it in the
store); this module only defines what it must do (:class:`AnswerCache`) and which cache the
judge requests of the current task use (:func:`using_cache`), so the pipeline core never
touches storage. A judge step with no cache in use calls the provider as always.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any, Protocol

from scorer_runtime.results import Usage

KEY_VERSION = 1
"""Part of every key: a change to what a key covers starts a fresh cache."""


@dataclass(frozen=True, slots=True)
class CachedAnswer:
    """A stored judge answer: its text (after output processors) and what it first cost."""

    text: str
    cost: float | None
    usage: Usage


class AnswerCache(Protocol):
    """Where judge answers are looked up. Storing is the caller's part: a successful
    answer's execution carries its ``cache_key``, and whoever stores the run stores it."""

    def get(self, key: str) -> CachedAnswer | None:
        """The answer stored under ``key``, or None (unknown, or unreadable)."""


_ACTIVE: ContextVar[AnswerCache | None] = ContextVar("scorer_runtime_answer_cache", default=None)


def active_cache() -> AnswerCache | None:
    """The cache judge requests of the current task use, if any."""
    return _ACTIVE.get()


@contextmanager
def using_cache(cache: AnswerCache | None) -> Iterator[None]:
    """Judge requests made inside (and in tasks created inside) use ``cache``; None: none."""
    token = _ACTIVE.set(cache)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def answer_key(
    *,
    model: str,
    api_base: str | None,
    temperature: float | None,
    messages: Sequence[Mapping[str, str]],
    response_format: Mapping[str, Any] | None,
    schema: str | None,
    mode: str,
    output_processors: Sequence[object] = (),
    hardened: bool = False,
) -> str:
    """The SHA-256 (hex) of everything that decides a judge's answer to one request
    (``schema``: the answer's JSON Schema as canonical JSON text).

    What is hashed is :func:`key_document` as canonical JSON (sorted keys, no spaces). All
    but the messages is the same for every request of a step, so that part of the text is
    made once (:func:`_frame`) and only the messages are encoded per request: a repeated run
    computes a key for every judge step."""
    head, tail = _frame(
        model,
        api_base,
        temperature,
        repr(temperature),  # 0.0 == -0.0 == False as keys of the frame cache, not as JSON
        None if response_format is None else _canonical(response_format),
        schema,
        mode,
        tuple(_processor_name(p) for p in output_processors),
        hardened,
    )
    sent = [{"role": m["role"], "content": m["content"]} for m in messages]
    text = head + _encode_sorted(sent) + tail
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def key_document(
    *,
    model: str,
    api_base: str | None,
    temperature: float | None,
    messages: Sequence[Mapping[str, str]],
    response_format: Mapping[str, Any] | None,
    schema: str | None,
    mode: str,
    output_processors: Sequence[object] = (),
    hardened: bool = False,
) -> dict[str, Any]:
    """What a key covers, as one JSON document (its canonical text is what is hashed).

    ``hardened`` is written only when on, so the keys of judges without it are unchanged."""
    document: dict[str, Any] = {
        "v": KEY_VERSION,
        "model": model,
        "api_base": (api_base or "").rstrip("/"),
        "sampling": {"temperature": temperature},
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        "response_format": response_format,
        "schema": schema,
        "answer_format": mode,
        "output_processors": [_processor_name(p) for p in output_processors],
    }
    if hardened:
        document["hardened"] = True
    return document


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sorted_encoder() -> Callable[[Any], str]:
    # ``_canonical`` without json.dumps's per-call set-up of an encoder (the same text).
    make_encoder = getattr(json.encoder, "c_make_encoder", None)
    if make_encoder is None:  # an interpreter without the C accelerator
        return _canonical
    encoder = make_encoder(
        None, json.JSONEncoder().default, encode_basestring, None, ":", ",", True, False, True
    )
    return lambda value: "".join(encoder(value, 0))


_encode_sorted = _sorted_encoder()


@functools.lru_cache(maxsize=512)
def _frame(
    model: str,
    api_base: str | None,
    temperature: float | None,
    _temperature_text: str,
    response_format: str | None,
    schema: str | None,
    mode: str,
    processors: tuple[str, ...],
    hardened: bool,
) -> tuple[str, str]:
    """The canonical text of a key document before and after its messages (keys sorted:
    answer_format, api_base, hardened (only when on), messages, model, output_processors,
    response_format, sampling, schema, v); ``response_format`` is given as its canonical
    text."""
    flag = '"hardened":true,' if hardened else ""
    head = (
        f'{{"answer_format":{_canonical(mode)},'
        f'"api_base":{_canonical((api_base or "").rstrip("/"))},{flag}"messages":'
    )
    tail = (
        f',"model":{_canonical(model)},"output_processors":{_canonical(list(processors))},'
        f'"response_format":{response_format or "null"},'
        f'"sampling":{_canonical({"temperature": temperature})},'
        f'"schema":{_canonical(schema)},"v":{_canonical(KEY_VERSION)}}}'
    )
    return head, tail


def _processor_name(processor: object) -> str:
    cls = type(processor)
    return f"{cls.__module__}.{cls.__qualname__}"
