"""The estimate for scoring traces: the scorer rehearsed on what it reads of each trace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scorer_runtime.costs.estimate import SAMPLE_SIZE, CostEstimate, SampleExample, estimate_cost
from scorer_runtime.judge.cache import AnswerCache
from scorer_runtime.scorer import Scorer
from scorer_runtime.traces.model import Trace
from scorer_runtime.traces.span_run import trace_to_target
from scorer_runtime.traces.targets import NotScorableTarget


def trace_examples(scorer: Scorer[Any, Any], traces: Sequence[Trace]) -> list[SampleExample]:
    """What ``scorer`` reads of each trace it can score (a trace with nothing to score costs
    nothing and is left out)."""
    examples = []
    for trace in traces:
        target = trace_to_target(trace, agent=scorer.type == "agent")
        if isinstance(target, NotScorableTarget):
            continue
        examples.append(SampleExample(target.input, target.output, target.ground_truth))
    return examples


async def estimate_traces(
    scorer: Scorer[Any, Any],
    traces: Sequence[Trace],
    *,
    count: int | None = None,
    cache: AnswerCache | None = None,
) -> CostEstimate:
    """What scoring ``count`` traces (default: those given) costs, rehearsed on up to
    :data:`~scorer_runtime.costs.estimate.SAMPLE_SIZE` of ``traces`` spread over them."""
    step = max(1, len(traces) // SAMPLE_SIZE)
    sample = trace_examples(scorer, list(traces)[::step][:SAMPLE_SIZE])
    return await estimate_cost(
        scorer, sample, examples=len(traces) if count is None else count, cache=cache
    )
