"""Fixtures of the trust tests: a fresh database per test, a judge key, a judged scorer."""

from __future__ import annotations

import pytest

from scorer_runtime.spec import load_spec
from scorer_runtime.store import ExampleData, save_scorer_version, session_scope
from tests.cli.helpers import KEY_ENV, verdict_spec
from tests.store.fixtures import db_url, engine, make_dataset

__all__ = ["db_url", "engine", "judge_key", "judged_version", "make_answers"]


@pytest.fixture
def judge_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")


def judged_version(engine, api_base: str, *, strict: bool = False) -> int:
    """A stored version of the verdict scorer (the judge says good → 1, bad → 0); its id.
    A ``strict`` version asks "Strictly grade this answer: …" (a new version of it)."""
    spec = verdict_spec(api_base)
    if strict:
        spec["steps"][0]["template"] = "Strictly grade this answer: {{ output }}"
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(spec))
        return version.id


def make_answers(engine, count: int, name: str = "answers") -> int:
    """A dataset of ``count`` answers, ``answer 0`` … ``answer N``; its id."""
    examples = [ExampleData(input=f"question {i}", output=f"answer {i}.") for i in range(count)]
    return make_dataset(engine, name, examples)
