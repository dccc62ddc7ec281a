"""A judged scorer with a planted bias, its graded examples, and a fake judge that obeys it.

The judge fails every answer that mentions a refund unless the request it reads says that
refunds are fine (a guideline or a worked example); people grade such answers good, with a
note saying so. Every example's output and every note hold a unique string, so a test can
tell which example reached which request.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from scorer_runtime.runs import run_batch
from scorer_runtime.saved_scorers import compile_version
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    add_label,
    get_version_by_id,
    list_examples,
    read_session,
    save_scorer_version,
    session_scope,
)
from tests.cli.helpers import verdict_spec
from tests.fakes.openai_server import FakeOpenAIServer
from tests.store.fixtures import make_dataset

FIXES = "refunds are fine"
ASKED = "Grade this answer:"


@dataclass(frozen=True)
class World:
    version_id: int
    scorer_id: int
    dataset_id: int
    example_ids: list[int]
    outputs: dict[int, str]
    notes: dict[int, str]
    grades: dict[int, float]


def _kind(i: int) -> str:
    return ("refund", "rude", "plain")[i % 3] if i < 30 else "plain"


def _example(i: int) -> tuple[str, float, str]:
    """Output, the person's grade, their note."""
    kind = _kind(i)
    if kind == "refund":
        return f"Out-{i:03d}-xq: we will refund your order.", 1.0, f"Note-{i:03d}-zk: {FIXES}."
    if kind == "rude":
        return f"Out-{i:03d}-xq: that is rude nonsense.", 0.0, f"Note-{i:03d}-zk: rude."
    return f"Out-{i:03d}-xq: thanks, it ships today.", 1.0, ""


def biased_judge(text: str) -> dict[str, str] | str | None:
    """The fake judge: a verdict for a grading request, guidelines for the optimizer's."""
    if "Disagreements:" in text:
        if FIXES in text.lower():
            return "- Refunds are fine: an answer that offers a refund is good.\n- Rude is bad."
        return "- Be fair."
    if ASKED not in text:
        return None
    instructions, _, answer = text.rpartition(ASKED)
    if "rude" in answer:
        return {"verdict": "bad"}
    if "refund" in answer and FIXES not in instructions.lower():
        return {"verdict": "bad"}
    return {"verdict": "good"}


def build_world(
    engine: Engine,
    fake: FakeOpenAIServer,
    count: int = 30,
    *,
    model: str | None = None,
    key_env: str | None = None,
) -> World:
    """The scorer, a dataset of ``count`` answers scored by its version 1, each graded
    (``model``: the judge's model, for one litellm knows the price of)."""
    fake.reply_by(biased_judge, whole=True)
    examples = [ExampleData(input=f"question {i}", output=_example(i)[0]) for i in range(count)]
    dataset_id = make_dataset(engine, "support-answers", examples)
    with session_scope(engine) as session:
        spec = verdict_spec(fake.base_url)
        if model is not None:
            spec["judge"]["model"] = model
        if key_env is not None:  # the variable the studio's server has set
            spec["judge"]["api_key_env"] = key_env
        version = save_scorer_version(session, spec=load_spec(spec))
    with read_session(engine) as session:
        scorer = compile_version(session, get_version_by_id(session, version_id=version.id))
    asyncio.run(run_batch(engine, scorer, scorer_version_id=version.id, dataset_id=dataset_id))
    with session_scope(engine) as session:
        ids = [e.id for e in list_examples(session, dataset_id=dataset_id, limit=1000)]
        for i, example_id in enumerate(ids):
            _, grade, note = _example(i)
            add_label(
                session,
                example_id=example_id,
                scorer_id=version.scorer_id,
                value=grade,
                labeller="Ana",
                note=note,
            )
    return World(
        version.id,
        version.scorer_id,
        dataset_id,
        ids,
        {e: _example(i)[0] for i, e in enumerate(ids)},
        {e: _example(i)[2] for i, e in enumerate(ids) if _example(i)[2]},
        {e: _example(i)[1] for i, e in enumerate(ids)},
    )


def unique_strings(world: World, example_ids: Any) -> dict[str, int]:
    """Each example's unique strings (its output's and its note's tag), to the example."""
    found: dict[str, int] = {}
    for e in example_ids:
        for text in (world.outputs[e], world.notes.get(e, "")):
            for tag in re.findall(r"(?:Out|Note)-\d{3}-(?:xq|zk)", text):
                found[tag] = e
    return found
