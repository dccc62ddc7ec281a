"""Score history for the results and comparison tests, written through the store API.

Not a test module: the store's ``test_compare``/``test_results`` modules and the studio's
``test_results*``/``test_compare*`` modules import :func:`seed_history`. Every value is derived
from the row index, and the rows written are returned, so tests compute what the page must
show from the same data, independently of SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from scorer_runtime.store import (
    ExampleData,
    add_examples,
    add_scores,
    create_dataset,
    create_run,
    create_stability_check,
    finish_run,
    list_examples,
    save_scorer_version,
    session_scope,
)
from tests.store.fixtures import add_repeat_run, valid_spec

DAY0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
SUPPORT_SIZE = 120
OTHER_SIZE = 20


@dataclass
class History:
    """Ids of what was seeded, and every score row written (plain dicts)."""

    tone: int = 0
    tone_v1: int = 0
    tone_v2: int = 0
    facts: int = 0
    facts_v1: int = 0
    support: int = 0
    other: int = 0
    run1: int = 0
    run2: int = 0
    run3: int = 0
    support_examples: list[int] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)

    def of_run(self, run_id: int) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["run_id"] == run_id]

    def number(self, example_id: int) -> int:
        """A support example's number in its dataset, as the Examples page shows it."""
        return self.support_examples.index(example_id) + 1


def v1_score(i: int) -> float:
    return ((i * 7) % 11) / 10


def v2_score(i: int) -> float:
    return ((i * 5) % 11) / 10


def _failure(i: int) -> dict[str, Any] | None:
    """Run 2's non-scored results: one of each kind every 20 examples."""
    kind = i % 20
    if kind == 0:
        return {
            "outcome": "not_scorable",
            "reason": "the example has no answer to grade",
            "failed_step": "preprocess",
        }
    if kind == 1:
        call = {
            "ok": False,
            "duration_ms": 12.0,
            "status_code": 429,
            "error": "HTTP 429: Rate limit reached for requests.",
            "error_kind": "rate_limited",
            "delay_ms": 500.0,
        }
        judge = {
            "analyze": {
                "step": "analyze",
                "model": "openai/fake-judge",
                "status": "failed",
                "prompt": f"Label answer {i}",
                "messages": [{"role": "user", "content": f"Label answer {i}"}],
                "raw_output": None,
                "usage": {},
                "attempt_count": 1,
                "model_call_count": 4,
                "duration_ms": 1600.0,
                "cost": None,
                "error": "HTTP 429: Rate limit reached for requests.",
                "error_kind": "rate_limited",
                "calls": [call] * 4,
            }
        }
        return {
            "outcome": "provider_error",
            "failed_step": "analyze",
            "judge": judge,
            "error": "Scorer 'tone' failed in its analyze step: HTTP 429: Rate limit "
            "reached for requests.",
            "attempts": 4,
        }
    if kind == 2:
        return {
            "outcome": "judge_format_error",
            "failed_step": "analyze",
            "error": "Scorer 'tone' failed in its analyze step: the judge's answer is not JSON",
        }
    return None


def _examples(engine: Engine, name: str, size: int) -> tuple[int, list[int]]:
    with session_scope(engine) as session:
        dataset = create_dataset(session, name=name)
        assert dataset.id is not None
        examples = [
            ExampleData(input=f"{name} question {i}", output=f"answer {i}", ground_truth=["x"])
            for i in range(size)
        ]
        add_examples(session, dataset_id=dataset.id, examples=examples)
        ids = [e.id for e in list_examples(session, dataset_id=dataset.id, limit=size)]
        return dataset.id, [int(i) for i in ids if i is not None]


def _run(engine: Engine, version_id: int, dataset_id: int, rows: list[dict[str, Any]]) -> int:
    with session_scope(engine) as session:
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        assert run.id is not None
        for row in rows:
            row["run_id"] = run.id
        add_scores(session, rows=rows)
        finish_run(session, run_id=run.id, status="done")
        return run.id


def seed_history(engine: Engine) -> History:
    """Two scorers (tone v1, v2; facts v1), two datasets, three finished runs, 260 results.

    Run 1: tone v1 on support, all scored, over days 0-2. Run 2: tone v2 on support, days
    3-4, with a not-scorable result, a judge outage and an unreadable answer every 20
    examples. Run 3: facts v1 on other, day 4.
    """
    h = History()
    with session_scope(engine) as session:
        polite = "How polite the answer is"
        v1 = save_scorer_version(session, spec=valid_spec("tone", polite))
        v2 = save_scorer_version(session, spec=valid_spec("tone", polite, name="Tone v2"))
        f1 = save_scorer_version(session, spec=valid_spec("facts", "Facts"))
        h.tone, h.tone_v1, h.tone_v2 = v1.scorer_id, int(v1.id or 0), int(v2.id or 0)
        h.facts, h.facts_v1 = f1.scorer_id, int(f1.id or 0)
    h.support, h.support_examples = _examples(engine, "support", SUPPORT_SIZE)
    h.other, other_examples = _examples(engine, "other", OTHER_SIZE)

    def base_row(version: int, scorer: int, dataset: int, example: int, day: int, i: int):
        return {
            "scorer_id": scorer,
            "scorer_version_id": version,
            "dataset_id": dataset,
            "example_id": example,
            "created_at": DAY0 + timedelta(days=day, minutes=i),
            "latency_ms": 100.0 + i,
            "total_tokens": 10 + i,
            "cost": 0.001,
        }

    run1 = [
        {
            **base_row(h.tone_v1, h.tone, h.support, e, i % 3, i),
            "outcome": "scored",
            "score": v1_score(i),
            "reason": f"v1 reason {i}",
        }
        for i, e in enumerate(h.support_examples)
    ]
    run2 = [
        {
            **base_row(h.tone_v2, h.tone, h.support, e, 3 + i % 2, i),
            **(_failure(i) or {"outcome": "scored", "score": v2_score(i), "reason": f"v2 {i}"}),
        }
        for i, e in enumerate(h.support_examples)
    ]
    run3 = [
        {
            **base_row(h.facts_v1, h.facts, h.other, e, 4, i),
            "outcome": "scored",
            "score": (i % 5) / 4,
            "reason": f"facts {i}",
        }
        for i, e in enumerate(other_examples)
    ]
    h.run1 = _run(engine, h.tone_v1, h.support, run1)
    h.run2 = _run(engine, h.tone_v2, h.support, run2)
    h.run3 = _run(engine, h.facts_v1, h.other, run3)
    h.rows = run1 + run2 + run3
    return h


def add_stability_repeats(
    engine: Engine, h: History, *, repeats: int = 2, sample: int = 10
) -> list[int]:
    """A finished stability check of tone v2 on the first ``sample`` support examples: its
    ``repeats`` repeat runs (the newest runs, scored on day 5), with every result scored 1.
    Returns the repeat runs' ids; ``h.rows`` is left as it is (what people's runs scored)."""
    with session_scope(engine) as session:
        check = create_stability_check(
            session,
            scorer_version_id=h.tone_v2,
            dataset_id=h.support,
            example_ids=h.support_examples[:sample],
            repeats=repeats,
        )
        made = [add_repeat_run(session, check_id=check.id, concurrency=2) for _ in range(repeats)]
    for n, run in enumerate(made):
        rows = [
            {
                "scorer_id": h.tone,
                "scorer_version_id": h.tone_v2,
                "dataset_id": h.support,
                "example_id": e,
                "run_id": run.id,
                "created_at": DAY0 + timedelta(days=5, minutes=n * sample + i),
                "outcome": "scored",
                "score": 1.0,
                "reason": f"repeat {n + 1}",
                "cost": 0.001,
            }
            for i, e in enumerate(h.support_examples[:sample])
        ]
        with session_scope(engine) as session:
            add_scores(session, rows=rows)
            finish_run(session, run_id=run.id, status="done")
    return [run.id for run in made]
