"""What a run will cost, before it starts: judge calls, tokens, a typical and a worst case.

The scorer is rehearsed on a sample of the examples (:mod:`scorer_runtime.judge.rehearsal`):
every prompt step renders as the run would send it, processors and schema injection included,
and is answered with a typical answer shaped by its schema. Input tokens are counted with
litellm's counter for the judge's model, output tokens from that typical answer, and both
priced with litellm's local cost map; the sample's average is scaled to every example.

With the judge answer cache in use (``estimate_cost(..., cache=...)``), each rehearsed request
is looked up in it first, as the run will: a stored answer is used as the answer (so the next
steps' prompts, and their cache keys, are exact) and the call is counted as cached, with
nothing to pay. Costs and tokens are then what is left to pay and send; the cost without the
cache is kept beside them.

The worst case counts every call the retry policy allows: each request may be sent
``1 + max_processor_retries`` times, a JSON answer that does not fit may be asked again once
(with the schema in the system message), and each answer may run to twice the typical length.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from scorer_runtime.judge import client
from scorer_runtime.judge.cache import AnswerCache, using_cache
from scorer_runtime.judge.rehearsal import RehearsedCall, rehearse
from scorer_runtime.money import format_dollars
from scorer_runtime.scorer import Scorer

SAMPLE_SIZE = 20
"""At most this many examples are rehearsed; the rest is scaled from them."""
WORST_OUTPUT_FACTOR = 2
"""In the worst case an answer runs to this many times the typical length."""


@dataclass(frozen=True, slots=True)
class SampleExample:
    """What the scorer reads of one example."""

    input: Any = None
    output: Any = None
    ground_truth: Any = None
    request_context: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class CostEstimate:
    """The estimate for ``examples`` examples, scaled from ``sampled`` rehearsed ones.

    Costs are None when a model is unpriced (named in ``unpriced_models``).
    """

    examples: int
    sampled: int
    calls: int
    """Judge calls when every call succeeds at once."""
    worst_calls: int
    """Judge calls with every allowed retry and re-ask."""
    input_tokens: int
    output_tokens: int
    typical_cost: float | None
    worst_cost: float | None
    example_worst_cost: float | None
    """The most one example can cost (the costliest sampled example, worst case)."""
    call_worst_cost: float | None
    """The most one judge request can cost, every retry and re-ask included."""
    unpriced_models: tuple[str, ...] = ()
    seconds: float = 0.0
    cached_calls: int = 0
    """Of ``calls``, those the judge answer cache likely answers (no provider call, no cost);
    ``worst_calls``, the tokens and the costs count only the others."""
    uncached_typical_cost: float | None = None
    """The typical cost if no answer came from the cache (the same as ``typical_cost`` when
    none does)."""
    uncached_worst_cost: float | None = None

    @property
    def priced(self) -> bool:
        return not self.unpriced_models

    def scaled(self, examples: int) -> CostEstimate:
        """The same estimate for ``examples`` scorings (e.g. a stability check's sample times
        its repeats); the worst case of one example or one request stays as it is."""
        if self.examples == 0:
            return replace(self, examples=examples)
        ratio = examples / self.examples

        def times(cost: float | None) -> float | None:
            return None if cost is None else cost * ratio

        return replace(
            self,
            examples=examples,
            calls=round(self.calls * ratio),
            worst_calls=round(self.worst_calls * ratio),
            input_tokens=round(self.input_tokens * ratio),
            output_tokens=round(self.output_tokens * ratio),
            typical_cost=times(self.typical_cost),
            worst_cost=times(self.worst_cost),
            cached_calls=round(self.cached_calls * ratio),
            uncached_typical_cost=times(self.uncached_typical_cost),
            uncached_worst_cost=times(self.uncached_worst_cost),
        )

    def describe(self) -> str:
        """The estimate in plain words, one or two sentences."""
        if self.calls == 0:
            return f"No judge call: scoring {_examples(self.examples)} costs nothing."
        head = f"About {self.calls:,} judge calls for {_examples(self.examples)}"
        if self.cached_calls >= self.calls:
            head += ", all likely answered from the cache: nothing to send to the judge."
        elif self.cached_calls:
            head += (
                f", {self.cached_calls:,} likely from the cache (the other "
                f"{self.calls - self.cached_calls:,} up to {self.worst_calls:,} with every retry "
                f"and re-ask), about {self.input_tokens:,} input and {self.output_tokens:,} "
                "output tokens to send."
            )
        else:
            head += (
                f" (up to {self.worst_calls:,} with every retry and re-ask), "
                f"about {self.input_tokens:,} input and {self.output_tokens:,} output tokens."
            )
        return f"{head} {self.cost_words()}"

    def cost_words(self) -> str:
        """What it costs, typical to worst, in one sentence (or why that is unknown)."""
        if self.typical_cost is None or self.worst_cost is None:
            return unpriced_words(self.unpriced_models)
        if self.cached_calls:
            return f"{cached_cost_words(self)}."
        return (
            f"Cost: about {format_dollars(self.typical_cost)}, "
            f"at worst {format_dollars(self.worst_cost)}."
        )


def cached_cost_words(estimate: CostEstimate) -> str:
    """What a run that takes some answers from the cache costs, typical to worst, and the
    same without the cache: ``$0.02-$0.05 to pay (without the cache $0.10-$0.25)`` (with an
    en dash)."""
    pay = _dollar_range(estimate.typical_cost, estimate.worst_cost)
    full = _dollar_range(estimate.uncached_typical_cost, estimate.uncached_worst_cost)
    return f"{pay} to pay (without the cache {full})"


def _dollar_range(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "unknown"
    if format_dollars(low) == format_dollars(high):
        return format_dollars(low)
    return f"{format_dollars(low)}–{format_dollars(high)}"


def unpriced_words(models: Sequence[str]) -> str:
    """What to say when no price is known for ``models``."""
    named = ", ".join(models)
    return f"Price unknown for {named}: set a price per 1M tokens on the judge profile."


def _examples(n: int) -> str:
    return "1 example" if n == 1 else f"{n:,} examples"


@dataclass(frozen=True, slots=True)
class _Tally:
    calls: int = 0
    worst_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    typical: float = 0.0
    worst: float = 0.0
    cached: int = 0
    full_typical: float = 0.0
    """What the calls cost without the cache (the same as ``typical`` when none is cached)."""
    full_worst: float = 0.0

    def __add__(self, other: _Tally) -> _Tally:
        return _Tally(*(getattr(self, name) + getattr(other, name) for name in _Tally.__slots__))


async def estimate_cost(
    scorer: Scorer[Any, Any],
    sample: Sequence[SampleExample],
    *,
    examples: int,
    cache: AnswerCache | None = None,
) -> CostEstimate:
    """Rehearse ``scorer`` on ``sample`` (at most :data:`SAMPLE_SIZE` are used) and scale the
    result to ``examples`` examples; with ``cache`` (the run's judge answer cache), answers it
    holds are counted as cached, with nothing to pay."""
    started = time.perf_counter()
    used = list(sample[:SAMPLE_SIZE])
    unpriced: set[str] = set()
    per_example: list[_Tally] = []
    worst_request = 0.0
    for example in used:
        calls = await _rehearse(scorer, example, cache)
        tally = _Tally()
        for call in calls:
            one = _tally(call, unpriced)
            tally += one
            worst_request = max(worst_request, one.full_worst)
        per_example.append(tally)
    total = sum(per_example, _Tally())
    scale = examples / len(used) if used else 0.0
    priced = not unpriced

    def cost(value: float) -> float | None:
        return value * scale if priced else None

    return CostEstimate(
        examples=examples,
        sampled=len(used),
        calls=round(total.calls * scale),
        worst_calls=round(total.worst_calls * scale),
        input_tokens=round(total.input_tokens * scale),
        output_tokens=round(total.output_tokens * scale),
        typical_cost=cost(total.typical),
        worst_cost=cost(total.worst),
        # Not lowered by the cache: an example outside the sample may find nothing in it.
        example_worst_cost=max((t.full_worst for t in per_example), default=0.0)
        if priced
        else None,
        call_worst_cost=worst_request if priced else None,
        unpriced_models=tuple(sorted(unpriced)),
        seconds=time.perf_counter() - started,
        cached_calls=round(total.cached * scale),
        uncached_typical_cost=cost(total.full_typical),
        uncached_worst_cost=cost(total.full_worst),
    )


async def _rehearse(
    scorer: Scorer[Any, Any], example: SampleExample, cache: AnswerCache | None
) -> list[RehearsedCall]:
    # A failing example costs what it called before failing: no more to count.
    with rehearse() as rehearsal, using_cache(cache), contextlib.suppress(Exception):
        await scorer.run(
            input=example.input,
            output=example.output,
            ground_truth=example.ground_truth,
            request_context=example.request_context,
            run_id="cost-estimate",
        )
    return rehearsal.calls


def _tally(call: RehearsedCall, unpriced: set[str]) -> _Tally:
    """One rehearsed request: its typical call and its worst case."""
    model = call.judge.model
    input_tokens = client.count_tokens(model, call.messages)
    if call.response_format is not None:  # a native schema is part of what the model reads
        input_tokens += client.count_text_tokens(model, json.dumps(call.response_format))
    output_tokens = client.count_text_tokens(model, call.answer)
    sends = 1 + call.judge.max_processor_retries
    requests = 2 if call.structured else 1  # a format failure is asked again once
    prices = call.judge.prices or client.token_prices(model)
    if prices is None:
        unpriced.add(model)
        prices = (0.0, 0.0)
    price_in, price_out = prices
    typical = input_tokens * price_in + output_tokens * price_out
    worst_one = input_tokens * price_in + WORST_OUTPUT_FACTOR * output_tokens * price_out
    reask_extra = _reask_extra_tokens(call) * price_in if call.structured else 0.0
    worst = sends * (requests * worst_one + reask_extra)
    if call.cached:  # answered from the cache: nothing sent, nothing to pay
        return _Tally(calls=1, cached=1, full_typical=typical, full_worst=worst)
    return _Tally(
        calls=1,
        worst_calls=sends * requests,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        typical=typical,
        worst=worst,
        full_typical=typical,
        full_worst=worst,
    )


def _reask_extra_tokens(call: RehearsedCall) -> int:
    """Tokens the re-ask adds: the schema instruction in the system message."""
    if call.response_format is None:
        return 0  # injected into the messages already: counted in the first request
    schema = call.response_format.get("json_schema", {}).get("schema", {})
    return client.count_text_tokens(call.judge.model, json.dumps(schema, indent=2)) + 20
