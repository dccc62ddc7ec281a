"""What the batch runner and its worker processes say to each other: one JSON object a line.

JSON, not pickle: everything that crosses is plain data already (examples come from the
store, outcomes are stored as JSON), and a line of JSON cannot run code when read.

Parent to worker: ``run`` (a ScorerSource and the worker's concurrency), then ``example``
lines, then ``end``. Worker to parent: ``hello`` once started, ``ready`` (or ``failed``)
for each run, a ``result`` per example, ``ended`` when the run's examples are all done.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import fields
from typing import Any

from scorer_runtime.batch.outcome import ExampleInput, ExampleScore

LINE_LIMIT = 1 << 27
"""The longest message (128 MiB): one example with its whole agent transcript fits."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line of JSON (JSON escapes newlines inside strings)."""
    # ASCII escapes: a lone surrogate in some odd text still makes a valid line.
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


async def receive(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None once the other side has closed the pipe."""
    line = await reader.readline()
    if not line:
        return None
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError("a batch worker message must be a JSON object")
    return message


_EXAMPLE_FIELDS = tuple(f.name for f in fields(ExampleInput))
_SCORE_FIELDS = tuple(f.name for f in fields(ExampleScore))


def example_message(example: ExampleInput, label: str) -> dict[str, Any]:
    """An ``example`` message; ``label`` is the scorer run id the example is scored with."""
    # Not dataclasses.asdict: it deep-copies what is plain data already (~0.3 ms a result).
    data = {name: getattr(example, name) for name in _EXAMPLE_FIELDS}
    return {"type": "example", "example": data, "label": label}


def example_of(message: dict[str, Any]) -> tuple[ExampleInput, str]:
    """The example and its label from an ``example`` message."""
    return ExampleInput(**message["example"]), str(message["label"])


def result_message(score: ExampleScore) -> dict[str, Any]:
    """A ``result`` message carrying one example's outcome."""
    return {"type": "result", "score": {name: getattr(score, name) for name in _SCORE_FIELDS}}


def score_of(message: dict[str, Any]) -> ExampleScore:
    """The outcome from a ``result`` message."""
    return ExampleScore(**message["score"])
