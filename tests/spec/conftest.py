"""Shared fixtures of the spec tests: a registry, demo specs, results to compare, modules
imported from exported code."""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCORERS = ROOT / "data" / "scorers"
DATASETS = ROOT / "data" / "datasets"


@pytest.fixture
def registry() -> Any:
    """The built-in steps, without plugins (tests must not depend on what is installed)."""
    from scorer_runtime.spec import default_registry

    return default_registry(plugins=False)


@pytest.fixture
def judge_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The key exported and compiled judges read from OPENAI_API_KEY (the fake accepts any)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    return "sk-test-key"


def _strip_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_timings(v) for k, v in value.items() if k != "duration_ms"}
    if isinstance(value, list):
        return [_strip_timings(v) for v in value]
    return value


@pytest.fixture
def comparable() -> Callable[[Any], dict[str, Any]]:
    """A score result as plain data without timings or the run id, for equality checks."""

    def strip(result: Any) -> dict[str, Any]:
        data = _strip_timings(result.to_dict())
        data.pop("run_id", None)
        return data

    return strip


_counter = itertools.count()


@pytest.fixture
def import_code(tmp_path: Path) -> Iterator[Callable[[str], ModuleType]]:
    """Write Python source to a file and import it as a fresh module."""
    names: list[str] = []

    def load(source: str) -> ModuleType:
        name = f"exported_scorer_{next(_counter)}"
        path = tmp_path / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        names.append(name)
        spec.loader.exec_module(module)
        return module

    yield load
    for name in names:
        sys.modules.pop(name, None)


def demo_spec_paths() -> list[Path]:
    """Every demo scorer spec in data/scorers."""
    return sorted(SCORERS.glob("*.json"))


def dataset_rows(name: str, count: int) -> list[dict[str, Any]]:
    """The first ``count`` rows of a demo dataset (data/datasets/<name>.jsonl)."""
    lines = (DATASETS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()][:count]


def with_api_base(spec: Any, base_url: str) -> Any:
    """A copy of ``spec`` whose judges (scorer and steps) talk to ``base_url``."""
    from scorer_runtime.spec import JudgeSpec

    def point(judge: Any) -> Any:
        if isinstance(judge, JudgeSpec):
            return judge.model_copy(update={"api_base": base_url})
        return judge

    steps = [
        step.model_copy(update={"judge": point(step.judge)}) if hasattr(step, "judge") else step
        for step in spec.steps
    ]
    return spec.model_copy(update={"judge": point(spec.judge), "steps": steps})


DEMO_DATASETS = {
    "answer-relevancy": "customer_support",
    "conciseness": "customer_support",
    "faithfulness": "rag_answers",
    "hallucination": "rag_answers",
    "json-format": None,
    "keyword-coverage": "customer_support",
    "rubric-judge": "customer_support",
    "support-style": "customer_support",
    "tone-politeness": "customer_support",
    "tool-call-accuracy": "agent_tool_runs",
    "tool-health": "agent_tool_runs",
}
"""The dataset each demo scorer is meant for (None: examples below)."""

TRIAGE_EXAMPLES = [
    {
        "input": "My card was charged twice for order 1182.",
        "output": '{"category": "billing", "priority": "urgent", "summary": "Double charge."}',
    },
    {
        "input": "Where is my parcel?",
        "output": '```json\n{"category": "shipping", "priority": "low", "summary": "Late"}\n```',
    },
    {"input": "Cancel my account", "output": '{"category": "account", "priority": "asap"}'},
    {"input": "Hi", "output": "category: other"},
]
"""Ticket-triage model outputs for the json-format demo (no demo dataset has JSON outputs)."""


def demo_examples(spec_id: str, count: int = 3) -> list[dict[str, Any]]:
    """The first examples of a demo scorer's dataset, as keyword arguments of ``run``."""
    name = DEMO_DATASETS[spec_id]
    return TRIAGE_EXAMPLES[:count] if name is None else dataset_rows(name, count)


DEMO_REPLIES: dict[str, list[tuple[str, Any]]] = {
    "answer-relevancy": [
        (
            "Break the answer below",
            {"statements": ["Returns are free within 30 days.", "We love our customers."]},
        ),
        (
            "For each statement, decide",
            {
                "verdicts": [
                    {"statement": "Returns are free", "verdict": "yes", "reason": "On topic."},
                    {"statement": "We love", "verdict": "unsure", "reason": "Filler."},
                ]
            },
        ),
        ("explain the score to a support team lead", "One statement helps; one is filler."),
    ],
    "faithfulness": [
        ("List every factual claim", {"claims": ["It charges in 4.5 h.", "It is waterproof."]}),
        (
            "For each claim, answer yes",
            {
                "verdicts": [
                    {"claim": "It charges in 4.5 h.", "verdict": "yes", "evidence": "[1]"},
                    {"claim": "It is waterproof.", "verdict": "unsure"},
                ]
            },
        ),
        ("Quote the claims", "The documents do not say the battery is waterproof."),
    ],
    "hallucination": [
        (
            "label it: supported",
            {
                "claims": [
                    {"claim": "Full charge in 4.5 hours", "verdict": "supported"},
                    {"claim": "Rated IP67", "verdict": "not_in_context"},
                ]
            },
        ),
    ],
    "tone-politeness": [
        ("Label the tone", {"verdict": "neutral", "reason": "Correct but curt."}),
    ],
    "rubric-judge": [
        ("Grade the support answer", {"verdict": "partial", "missing_facts": ["email"]}),
    ],
    "conciseness": [
        ("Rate how concise", {"score": 0.8, "filler": ["Thanks for reaching out!"]}),
        ("In one sentence", "Concise apart from the greeting."),
    ],
    "tool-call-accuracy": [
        ("Explain the score in two sentences", "It looked the order up before answering."),
    ],
}
"""Scripted judge answers for the demo scorers, keyed by a phrase of each prompt."""


@pytest.fixture
def demo_judge(fake_judge: Any, judge_key: str) -> Callable[[Any], Any]:
    """Script the fake judge for a demo spec; return the spec pointed at the fake judge."""

    def prepare(spec: Any) -> Any:
        for when, content in DEMO_REPLIES.get(spec.id, []):
            fake_judge.reply(content, when=when)
        return with_api_base(spec, fake_judge.base_url)

    return prepare
