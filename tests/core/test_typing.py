"""A type checker catches a step written for other data than its scorer's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = """
from __future__ import annotations

from dataclasses import dataclass

from scorer_runtime import AgentMessage, AgentRunInput, ScorerRun, create_scorer


@dataclass
class CustomInput:
    query: str
    context: list[str]


@dataclass
class CustomOutput:
    answer: str
    confidence: float


def score(run: ScorerRun[CustomInput, CustomOutput]) -> float:
    return run.output.confidence


def reason(run: ScorerRun[CustomInput, CustomOutput], score: float) -> str:
    return f"{run.input.query}: {score}"


def for_strings(run: ScorerRun[str, str]) -> float:
    return float(len(run.output))


def misreads(run: ScorerRun[CustomInput, CustomOutput]) -> float:
    return float(run.output.score)  # expect-error: no attribute


def agent_score(run: ScorerRun[AgentRunInput, list[AgentMessage]]) -> float:
    return float(len(run.output))


typed = (
    create_scorer(id="c", description="d", input_type=CustomInput, output_type=CustomOutput)
    .generate_score(score)
    .generate_reason(reason)
)
wrong = create_scorer(
    id="c", description="d", input_type=CustomInput, output_type=CustomOutput
).generate_score(for_strings)  # expect-error: incompatible type
agent = create_scorer(id="a", description="d", type="agent").generate_score(agent_score)
agent_wrong = create_scorer(id="a", description="d", type="agent").generate_score(
    score  # expect-error: incompatible type
)
untyped = create_scorer(id="u", description="d").generate_score(lambda run: 1.0)
kwargs = create_scorer(id="u", description="d").generate_score(lambda **kw: 1.0)
"""


@pytest.mark.typecheck
def test_mypy_accepts_matching_steps_and_rejects_mismatched_ones(tmp_path: Path) -> None:
    source = tmp_path / "typed_scorer.py"
    source.write_text(EXAMPLE)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    reported = {int(m.group(1)) for m in re.finditer(r"typed_scorer\.py:(\d+): error", done.stdout)}
    lines = EXAMPLE.splitlines()
    expected = {n for n, line in enumerate(lines, start=1) if "# expect-error" in line}
    # The wrong-scorer call is reported on the line of the call's closing argument list.
    assert len(expected) == 3
    assert reported, done.stdout + done.stderr
    for n in expected:
        assert n in reported or n - 1 in reported, (n, done.stdout)
    assert reported <= expected | {n - 1 for n in expected}, done.stdout
