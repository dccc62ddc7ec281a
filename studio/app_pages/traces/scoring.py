"""What the traces page needs to score stored traces, free of Streamlit: the agent scorer
versions to choose from, which traces to choose by default, how many scores each trace has,
the outcome in words, and a stored trace score as the drill-down reads it.

Scoring and storing themselves are the runtime's
(:func:`scorer_runtime.batch.score_stored_traces`), the same for the studio and the CLI.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from scorer_runtime.store import Session, jsonable
from scorer_runtime.store.views import (
    AgentScorerVersion,
    agent_scorer_versions,
    stored_trace_score,
)
from scorer_runtime.traces import TraceScoreOutcome
from studio.words import noun, plural


@dataclass(frozen=True, slots=True)
class AgentScorerOption:
    """A saved version of an agent scorer (``type: agent``), which can score traces."""

    scorer_id: int
    name: str
    version_id: int
    version: int
    note: str
    judge_steps: int
    """Steps that ask the judge: each scored trace makes this many judge requests (or more,
    with retries)."""
    key_envs: tuple[str, ...] = ()
    """The key variables its judges name (a judge given by profile name names its own)."""

    def label(self) -> str:
        """The option in a picker: "tool-call-accuracy · version 2"."""
        return f"{self.name} · version {self.version}"


def agent_scorer_options(session: Session) -> list[AgentScorerOption]:
    """Every version of a live agent scorer, by scorer name, newest version first, with how
    many judge requests it makes per trace."""
    return [_option(version) for version in agent_scorer_versions(session)]


def _option(version: AgentScorerVersion) -> AgentScorerOption:
    spec = version.spec
    return AgentScorerOption(
        scorer_id=version.scorer_id,
        name=version.name,
        version_id=version.version_id,
        version=version.version,
        note=version.note,
        judge_steps=len(spec.prompt_steps()),
        key_envs=tuple(spec.key_envs()),
    )


def missing_keys(option: AgentScorerOption, is_set: Callable[[str], bool]) -> list[str]:
    """The key variables the option's judges name that are not set (none for a scorer that
    never asks a judge)."""
    return [env for env in option.key_envs if not is_set(env)] if option.judge_steps else []


def ready_first(options: Sequence[AgentScorerOption], is_set: Callable[[str], bool]) -> int:
    """The option to offer first: the first one whose judges can be called here (every key
    it names is set, or it asks no judge), else the first."""
    return next((i for i, o in enumerate(options) if not missing_keys(o, is_set)), 0)


def not_yet_scored(trace_ids: Sequence[str], scored: Collection[str]) -> list[str]:
    """The traces to choose by default: those this scorer version has no result for yet,
    in the list's order."""
    return [t for t in trace_ids if t not in scored]


def rescore_words(chosen: Sequence[str], scored: Collection[str], *, listed: int) -> str:
    """Whether scoring the chosen traces scores some again, in plain words (``listed``: how
    many traces could be chosen)."""
    if not chosen:
        if listed and len(scored) >= listed:
            return (
                "This version has scored every trace on this page. Choose traces to score "
                "them again: a new score is added and the earlier one stays in the history."
            )
        return "Choose the traces to score."
    again = sum(1 for t in chosen if t in scored)
    if again == 0:
        return "None of the chosen traces has been scored by this version yet."
    if len(chosen) == 1:
        who = "The chosen trace was"
    elif again == len(chosen):
        who = f"All {len(chosen)} chosen traces were"
    else:
        who = f"{again} of the {len(chosen)} chosen traces were"
    return (
        f"{who} already scored by this version: {noun(again, 'it is', 'they are')} "
        "scored again, a new score is added and the earlier one stays in the history."
    )


def trace_scoring_cost_note(option: AgentScorerOption, traces: int) -> str:
    """How many judge calls scoring ``traces`` traces makes, at most (before retries)."""
    if option.judge_steps == 0:
        return "This scorer never calls a judge: scoring costs nothing."
    calls = option.judge_steps * traces
    return (
        f"This asks the judge up to {plural(calls, 'time')} "
        f"({option.judge_steps} per trace), more if a request is retried."
    )


def outcome_words(option: AgentScorerOption, outcomes: Sequence[TraceScoreOutcome]) -> str:
    """ "Scored 2 traces with agent-answered · version 1: 1 failed, 1 scored."."""
    counts = Counter(o.status for o in outcomes)
    words = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in sorted(counts.items()))
    count = len(outcomes)
    return f"Scored {plural(count, 'trace')} with {option.label()}: {words}."


def _or(value: object, missing: str) -> str:
    return missing if value is None else str(value)


def trace_score_data(session: Session, *, score_id: int) -> dict[str, Any]:
    """A stored trace score as the score drill-down reads it: the row, what the scorer saw of
    the stored trace (its agent run's input and output), and facts in words."""
    from scorer_runtime.traces import AgentRunTarget, trace_to_target

    stored = stored_trace_score(session, score_id=score_id)
    record, trace = stored.score, stored.trace
    data: dict[str, Any] = record.json_data()
    if trace is not None and record.span_id and trace.get(record.span_id) is not None:
        target = trace_to_target(trace, agent=True, span_id=record.span_id)
        if isinstance(target, AgentRunTarget):
            data.update(input=jsonable(target.input), output=jsonable(target.output))
    data["facts"] = [
        ("Scorer", f"{_or(stored.scorer, '—')} v{_or(stored.version, '?')}"),
        ("Trace", record.trace_id or "—"),
        ("Span", record.span_id or "—"),
        ("When (UTC)", record.created_at.strftime("%Y-%m-%d %H:%M:%S")),
    ]
    if record.trace_id and trace is None:
        data["facts"].append(("Trace stored", "no (deleted)"))
    return data
