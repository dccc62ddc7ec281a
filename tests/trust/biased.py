"""A version whose judge has a planted bias, graded by a person with notes (the align tests).

The judge fails every answer about refunds, which the person grades good, unless its prompt
says refund answers are fine; otherwise it grades an answer good when it reads "good answer".
Every example's output and note carry a unique token (``ref-7``, ``(n7)``) a leak test looks for.
"""

from __future__ import annotations

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

FIX = "Refund answers are fine when they explain the policy"
N = 36


def kind_of(i: int) -> str:
    return ("refund", "good", "bad")[i % 3]


def _output(i: int) -> str:
    return {
        "refund": f"Refunds take 5 days, see the policy. ref-{i}",
        "good": f"A good answer with the steps. ok-{i}",
        "bad": f"Nope. bad-{i}",
    }[kind_of(i)]


def _note(i: int) -> str:
    return f"{FIX} (n{i})." if kind_of(i) == "refund" else f"Seen (n{i})."


def _verdict(text: str) -> dict[str, str] | None:
    """The biased judge: reads every message, grades the answer after 'Grade this answer:'."""
    if "Examples where the judge and a person disagreed" in text:
        return {"guidelines": [f"{FIX}."]}
    graded = text.rsplit("Grade this answer: ", 1)[-1]
    if "Refunds" in graded:
        return {"verdict": "good" if FIX in text.rsplit("Grade this answer: ", 1)[0] else "bad"}
    return {"verdict": "good" if "good answer" in graded else "bad"}


def store_biased(engine, fake_judge) -> tuple[int, list[int]]:
    """A stored version whose run scored every example as the biased judge does, each graded
    by a person with a note; its id and the example ids, in order."""
    fake_judge.reply_by(_verdict, whole=True)
    examples = [ExampleData(input=f"question {i}", output=_output(i)) for i in range(N)]
    dataset_id = make_dataset(engine, "support", examples)
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(verdict_spec(fake_judge.base_url)))
        run = create_run(session, scorer_version_id=version.id, dataset_id=dataset_id)
        ids = [e.id for e in list_examples(session, dataset_id=dataset_id, limit=100)]
        add_scores(
            session,
            rows=[
                dict(
                    run_id=run.id,
                    example_id=example_id,
                    scorer_id=version.scorer_id,
                    scorer_version_id=version.id,
                    dataset_id=dataset_id,
                    score=1.0 if kind_of(i) == "good" else 0.0,
                    outcome="scored",
                )
                for i, example_id in enumerate(ids)
            ],
        )
        for i, example_id in enumerate(ids):
            human = 0.0 if kind_of(i) == "bad" else 1.0
            add_label(
                session,
                example_id=example_id,
                scorer_id=version.scorer_id,
                value=human,
                labeller="Marco",
                note=_note(i),
            )
    return version.id, ids
