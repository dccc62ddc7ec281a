"""Whether a dataset's examples are what a scorer judges: an agent scorer on plain answers, a
scorer that compares with the expected answer on examples without one, a tool-order check on
text expectations — each said in words; what fits says nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from scorer_runtime.datasets.fit import fit_problems, fit_rank, fits, reads_expected, shape_of
from scorer_runtime.spec import ScorerSpec, load_spec
from scorer_runtime.store import ExampleData

SCORERS = Path(__file__).parents[2] / "data" / "scorers"
MESSAGES = [{"role": "assistant", "content": "Your order ships today."}]


def _demo(name: str) -> ScorerSpec:
    return load_spec(json.loads((SCORERS / f"{name}.json").read_text()))


def _examples(count: int, *, output: Any = "An answer.", expected: Any = None) -> list[ExampleData]:
    return [ExampleData(output=output, ground_truth=expected) for _ in range(count)]


def _formula_scorer(formula: str) -> ScorerSpec:
    return load_spec(
        {"id": "f", "description": "A formula.", "steps": [
            {"step": "generate_score", "formula": formula},
        ]}
    )  # fmt: skip


def test_an_agent_scorer_on_plain_answers_is_told_to_pick_agent_runs() -> None:
    spec = _demo("tool-health")
    (said,) = fit_problems(spec, shape_of(_examples(5)), scorer="Tool health", dataset="faq")
    assert said == (
        "“Tool health” judges agent runs (an agent's messages and tool calls), but the examples "
        "of “faq” are plain answers: their scores would say nothing about the agent. Pick a "
        "dataset of agent runs."
    )
    assert fits(spec, shape_of(_examples(5, output=MESSAGES)))


def test_a_few_plain_answers_among_agent_runs_are_counted_only_when_they_are_most() -> None:
    spec = _demo("tool-health")
    mixed = _examples(3, output=MESSAGES) + _examples(2)
    assert fits(spec, shape_of(mixed))
    mostly_plain = _examples(2, output=MESSAGES) + _examples(3)
    (said,) = fit_problems(spec, shape_of(mostly_plain), scorer="T", dataset="d")
    assert "3 of the first 5 examples of “d” are plain answers" in said


def test_a_plain_scorer_reads_agent_runs_as_their_text_and_fits_them() -> None:
    assert fits(_demo("conciseness"), shape_of(_examples(4, output=MESSAGES)))


@pytest.mark.parametrize(
    "spec",
    [
        _formula_scorer("1 if contains(output, ground_truth) else 0"),
        _demo("keyword-coverage"),  # a formula in preprocess
        _demo("rubric-judge"),  # the judge's prompt shows the expected answer
        _demo("tool-call-accuracy"),  # a built-in step's expected_field
    ],
    ids=["formula", "keyword-coverage", "prompt", "built-in"],
)
def test_a_scorer_that_compares_with_the_expected_answer_needs_examples_that_have_one(
    spec: ScorerSpec,
) -> None:
    assert reads_expected(spec)
    output = MESSAGES if spec.type == "agent" else "An answer."
    (said,) = fit_problems(spec, shape_of(_examples(3, output=output)), scorer="S", dataset="d")
    assert said == (
        "“S” compares each answer with the example's expected answer (ground truth), but the "
        "examples of “d” have none: those cannot be scored. Add expected answers on the "
        "Examples page, or pick another dataset."
    )
    assert fits(spec, shape_of(_examples(3, output=output, expected=["lookup_order"])))


def test_a_scorer_that_never_reads_the_expected_answer_needs_none() -> None:
    assert not reads_expected(_demo("conciseness"))
    assert not reads_expected(_formula_scorer("1 if 'ground_truth' in output else 0"))
    assert fits(_demo("conciseness"), shape_of(_examples(3)))


def test_a_tool_order_check_on_text_expectations_says_they_are_texts() -> None:
    spec = _demo("tool-call-accuracy")
    shape = shape_of(_examples(4, output=MESSAGES, expected="Looks the order up, then refunds."))
    (said,) = fit_problems(spec, shape, scorer="Tool order", dataset="faq")
    assert said.startswith(
        "“Tool order” compares the tools an agent called with the tools expected, in order, "
        "but the expected answers of “faq” are texts"
    )


def test_an_empty_dataset_has_nothing_to_misfit() -> None:
    assert fit_problems(_demo("tool-health"), shape_of([]), scorer="T", dataset="d") == []


def test_datasets_rank_by_how_well_they_suit_the_scorer() -> None:
    agent_runs = shape_of(_examples(3, output=MESSAGES))
    plain = shape_of(_examples(3))
    assert (fit_rank(_demo("tool-health"), agent_runs), fit_rank(_demo("tool-health"), plain)) == (
        2,
        0,
    )
    assert (fit_rank(_demo("conciseness"), plain), fit_rank(_demo("conciseness"), agent_runs)) == (
        2,
        1,
    )
    assert fit_rank(_demo("conciseness"), shape_of([])) == 0


def _aged(engine, dataset_id: int, when: datetime) -> None:
    """Date a dataset and its examples ``when`` (as if made then)."""
    from sqlmodel import col, update

    from scorer_runtime.store import session_scope
    from scorer_runtime.store.tables import DatasetRecord, ExampleRecord

    with session_scope(engine) as session:
        session.execute(
            update(DatasetRecord).where(col(DatasetRecord.id) == dataset_id).values(created_at=when)
        )
        session.execute(
            update(ExampleRecord)
            .where(col(ExampleRecord.dataset_id) == dataset_id)
            .values(created_at=when)
        )


def _suited(engine, version, ids: list[int]) -> int | None:
    from scorer_runtime.datasets.fit import suited_dataset
    from scorer_runtime.store import read_session

    with read_session(engine) as session:
        return suited_dataset(
            session, scorer_id=version.scorer_id, version_id=version.id, dataset_ids=ids
        )


def test_a_form_opens_on_the_suited_dataset_made_added_to_or_scored_last(engine) -> None:
    from scorer_runtime.store import add_examples, create_run, save_scorer_version, session_scope
    from scorer_runtime.store.tables import RunRecord
    from tests.store.fixtures import make_dataset

    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=_demo("conciseness"))
    demo = make_dataset(engine, "a-demo", _examples(3))
    mine = make_dataset(engine, "mine", _examples(3))
    agent = make_dataset(engine, "newest-agent-runs", _examples(3, output=MESSAGES))
    empty = make_dataset(engine, "z-empty", [])
    for dataset_id, month in ((demo, 1), (mine, 2), (agent, 4), (empty, 5)):
        _aged(engine, dataset_id, datetime(2026, month, 1, tzinfo=UTC))
    ids = [demo, mine, agent, empty]
    # The plain datasets suit best; of them, the one just made (not the first by name).
    assert _suited(engine, version, ids) == mine
    with session_scope(engine) as session:  # the scorer ran on the demo since
        run = create_run(session, scorer_version_id=version.id, dataset_id=demo)
        record = session.get(RunRecord, run.id)
        record.created_at = datetime(2026, 3, 1, tzinfo=UTC)
        session.add(record)
    assert _suited(engine, version, ids) == demo
    with session_scope(engine) as session:  # then the person added examples to theirs
        add_examples(session, dataset_id=mine, examples=_examples(1))
    assert _suited(engine, version, ids) == mine
    assert _suited(engine, version, [agent, empty]) == agent  # it fits, if less well
    assert _suited(engine, version, [empty]) is None
