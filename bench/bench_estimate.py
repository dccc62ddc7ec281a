"""P9: the cost estimate before a run — its time for 10,000 stored examples, and how close it
comes to the tokens a real run sends (the fake judge counts them as a provider does).

The measured run scores each example in-process (``run_sync``), outside any batch run, so no
judge answer cache is in use: every judge step is a real request to the fake judge.

    python bench/bench_estimate.py
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from common import ROOT, Figure, median_of, print_table, size

from scorer_runtime.costs import SampleExample, estimate_cost, estimate_dataset
from scorer_runtime.spec import compile_spec, default_registry, load_spec
from scorer_runtime.store import (
    ExampleData,
    add_examples,
    create_dataset,
    ensure_schema,
    make_engine,
    session_scope,
)

SCORER = "answer-relevancy"
DATASET = "customer_support"
EXAMPLES = size(10_000, 50)
_FIELDS = ("input", "output", "ground_truth", "request_context")


def _rows() -> list[dict[str, Any]]:
    lines = (ROOT / "data" / "datasets" / f"{DATASET}.jsonl").read_text().splitlines()
    return [{k: v for k, v in json.loads(line).items() if k in _FIELDS} for line in lines if line]


def _scorer(api_base: str | None = None) -> Any:
    from spec.conftest import with_api_base  # the tests' helper: every judge to one server

    registry = default_registry(plugins=False)
    spec = load_spec(ROOT / "data" / "scorers" / f"{SCORER}.json", registry=registry)
    return compile_spec(with_api_base(spec, api_base) if api_base else spec, registry)


def _time_for_10k(folder: Path) -> tuple[float, float]:
    """(first estimate, with the model client's start-up; median estimate after it), seconds."""
    engine = make_engine(f"sqlite:///{folder / 'estimate.db'}")
    ensure_schema(engine)
    rows = _rows()
    with session_scope(engine) as session:
        dataset = create_dataset(session, name="big")
        assert dataset.id is not None
        examples = [ExampleData(**rows[i % len(rows)]) for i in range(EXAMPLES)]
        add_examples(session, dataset_id=dataset.id, examples=examples)
    scorer = _scorer()

    def once() -> float:
        started = time.perf_counter()
        found = asyncio.run(estimate_dataset(engine, scorer, dataset_id=dataset.id, use_cache=True))
        assert found.examples == EXAMPLES
        return time.perf_counter() - started

    cold = once()
    warm = median_of(5, once)
    engine.dispose()
    return cold, warm


def _estimate_vs_actual() -> tuple[float, float]:
    """(estimated / measured input tokens, estimated / measured calls) over the dataset."""
    import os

    from fakes.openai_server import FakeOpenAIServer
    from spec.conftest import DEMO_REPLIES

    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    rows = _rows()
    with FakeOpenAIServer() as server:
        for when, content in DEMO_REPLIES[SCORER]:
            server.reply(content, when=when, usage="counted")
        scorer = _scorer(server.base_url)
        sample = [SampleExample(**row) for row in rows[::2]]
        found = asyncio.run(estimate_cost(scorer, sample, examples=len(rows)))
        tokens = calls = 0
        for row in rows:
            result = scorer.run_sync(**row)
            for execution in result.judge.values():
                tokens += execution.usage.input_tokens
                calls += execution.model_call_count
    return found.input_tokens / tokens, found.calls / calls


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder:
        cold, warm = _time_for_10k(Path(folder))
    tokens, calls = _estimate_vs_actual()
    return [
        Figure(
            "P9",
            f"estimate for {EXAMPLES:,} stored examples ({SCORER})",
            warm,
            "s",
            "<= 1 s",
            warm <= 1.0,
            f"the first estimate in a process took {cold:.1f} s: it loads the model client",
        ),
        Figure(
            "P9a",
            "estimated / measured input tokens (demo dataset)",
            tokens,
            "ratio",
            "0.75-1.25",
            0.75 <= tokens <= 1.25,
        ),
        Figure(
            "P9b",
            "estimated / measured judge calls (demo dataset)",
            calls,
            "ratio",
            "0.75-1.25",
            0.75 <= calls <= 1.25,
        ),
    ]


if __name__ == "__main__":
    print_table(run())
