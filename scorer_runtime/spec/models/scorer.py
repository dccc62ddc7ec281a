"""``ScorerSpec``: a whole scorer as plain data, the object the studio edits and saves."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from scorer_runtime.spec.models.base import SpecModel
from scorer_runtime.spec.models.judge import JudgeRef
from scorer_runtime.spec.models.steps import StepSpec

ScorerKind = Literal["plain", "agent"]


class FilterRunSpec(SpecModel):
    """Trim the run before any step sees it (the options of ``filter_run``)."""

    drop_request_context: bool = Field(default=False, description="Hide the request context.")
    drop_ground_truth: bool = Field(default=False, description="Hide the ground truth.")
    part_types: list[str] | None = Field(
        default=None,
        min_length=1,
        description="Keep only message parts of these types: text, reasoning, tool-invocation…",
    )
    tool_names: list[str] | None = Field(
        default=None, description="Keep only calls to these tools ([] drops every tool call)."
    )
    max_remembered_messages: int = Field(
        default=0, ge=0, description="Keep the last N remembered messages (0: all)."
    )
    max_output_messages: int = Field(
        default=0, ge=0, description="Keep the last N output messages (0: all)."
    )


class ScorerSpec(SpecModel):
    """A scorer as data: what it is, its judge, and its steps in order.

    Load one with :func:`~scorer_runtime.spec.load_spec` (which reports every problem at
    once), run it with :func:`~scorer_runtime.spec.compile_spec`, hand it over with
    :func:`~scorer_runtime.spec.export_python`. Written files leave defaults out.
    """

    schema_version: Literal[1] = Field(default=1, description="The version of this file format.")
    id: str = Field(
        min_length=1,
        max_length=100,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
        description="Short unique name: letters, digits, -, _ and . (e.g. answer-relevancy).",
        examples=["answer-relevancy"],
    )
    name: str | None = Field(
        default=None, min_length=1, description="Display name; defaults to id."
    )
    description: str = Field(min_length=1, description="What the scorer judges, in plain words.")
    type: ScorerKind = Field(
        default="plain", description="'agent' for agent runs (messages and tool calls)."
    )
    judge: JudgeRef | None = Field(
        default=None, description="The judge for prompt steps: settings or a saved profile's name."
    )
    prepare: FilterRunSpec | None = Field(
        default=None, description="Trim the run before the steps see it."
    )
    steps: list[StepSpec] = Field(
        description="The steps in order: preprocess, analyze, generate_score, generate_reason."
    )

    @property
    def display_name(self) -> str:
        """The name to show: ``name``, or the id when no name is set."""
        return self.name or self.id
