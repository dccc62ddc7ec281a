"""A scorer version with people's grades and its scores, stored for the trust tests."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    add_label,
    add_scores,
    create_run,
    list_examples,
    save_scorer_version,
    session_scope,
)
from tests.cli.helpers import verdict_spec
from tests.store.fixtures import make_dataset


@dataclass(frozen=True)
class Graded:
    scorer_id: int
    version_id: int
    run_id: int
    dataset_id: int
    example_ids: list[int]


def graded(engine: Engine, grades: list[tuple[float, float]], name: str = "verdict") -> Graded:
    """A good/bad scorer's version whose run scored example i ``grades[i][1]``, graded by a
    person ``grades[i][0]``."""
    examples = [ExampleData(input=f"q{i}", output=f"a{i}") for i in range(len(grades))]
    dataset_id = make_dataset(engine, f"{name}-answers", examples)
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(verdict_spec(scorer_id=name)))
        run = create_run(session, scorer_version_id=version.id, dataset_id=dataset_id)
        ids = [e.id for e in list_examples(session, dataset_id=dataset_id, limit=10_000)]
        rows = [
            dict(
                run_id=run.id,
                example_id=example_id,
                scorer_id=version.scorer_id,
                scorer_version_id=version.id,
                dataset_id=dataset_id,
                score=judge,
                outcome="scored",
            )
            for example_id, (_, judge) in zip(ids, grades, strict=True)
        ]
        add_scores(session, rows=rows)
        for example_id, (human, _) in zip(ids, grades, strict=True):
            add_label(
                session,
                example_id=example_id,
                scorer_id=version.scorer_id,
                value=human,
                labeller="Marco",
            )
        return Graded(version.scorer_id, version.id, run.id, dataset_id, ids)


def agreeing(n: int) -> list[tuple[float, float]]:
    """``n`` pairs, half good and half bad, on which people and the judge always agree."""
    return [(float(i % 2), float(i % 2)) for i in range(n)]
