"""What the traces page needs to score stored traces, free of Streamlit: the agent scorer
versions to choose from, which traces to choose by default, how many scores each trace has,
the outcome in words, and a stored trace score as the drill-down reads it.

Scoring and storing themselves are the runtime's
(:func:`scorer_runtime.batch.score_stored_traces`), the same for the studio and the CLI.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorer_runtime.store import Session, jsonable
from scorer_runtime.store.views import (
    AgentScorerVersion,
    agent_scorer_versions,
    stored_trace_score,
)
from scorer_runtime.traces import ExpectedNeed, TraceScoreOutcome, expected_need
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
    title: str = ""
    """The scorer's name as people read it ("Tool-call accuracy"); its id when it has none."""
    need: ExpectedNeed = field(default_factory=ExpectedNeed)
    """What it needs of a trace's expected answer."""

    def label(self) -> str:
        """The option in a picker: "Tool-call accuracy · version 2"."""
        return f"{self.title or self.name} · version {self.version}"


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
        title=spec.display_name,
        need=expected_need(spec),
    )


def missing_keys(option: AgentScorerOption, is_set: Callable[[str], bool]) -> list[str]:
    """The key variables the option's judges name that are not set (none for a scorer that
    never asks a judge)."""
    return [env for env in option.key_envs if not is_set(env)] if option.judge_steps else []


def first_option(
    options: Sequence[AgentScorerOption],
    is_set: Callable[[str], bool],
    current: object = None,
) -> int:
    """The option to offer first: the newest version of the scorer the person is working on
    (``current``: its id or name, when it is an agent scorer), else the first one whose
    judges can be called here (every key it names is set, or it asks no judge), else the
    first."""
    if current is not None:
        for i, option in enumerate(options):  # newest version first
            if current in (option.scorer_id, option.name):
                return i
    return next((i for i, o in enumerate(options) if not missing_keys(o, is_set)), 0)


@dataclass(frozen=True, slots=True)
class ScoringPlan:
    """What pressing "Score" does with the chosen traces and one scorer version: every
    count, label and message on the page is read from here, so they always agree."""

    chosen: tuple[str, ...]
    to_score: tuple[str, ...]
    lacking: dict[str, str]
    """Chosen traces the scorer cannot score yet, with why ("it has no expected answer")."""
    again: tuple[str, ...]
    """Traces to score that this version has already scored (a new score is added)."""
    no_run: tuple[str, ...] = ()
    """Chosen traces that hold no agent run (no agent or model span): no agent scorer can
    score them."""


def plan_scoring(
    chosen: Sequence[str],
    expected: Mapping[str, Any],
    need: ExpectedNeed,
    scored: Collection[str],
    *,
    no_run: Collection[str] = (),
) -> ScoringPlan:
    """Split the chosen traces into those to score, those lacking what the scorer needs
    (``expected``: each chosen trace's expected answer, None when it has none) and those
    holding no agent run at all (``no_run``)."""
    runs = [t for t in chosen if t not in no_run]
    lacking = {t: why for t in runs if (why := need.problem(expected.get(t))) is not None}
    to_score = tuple(t for t in runs if t not in lacking)
    again = tuple(t for t in to_score if t in scored)
    empty = tuple(t for t in chosen if t in no_run)
    return ScoringPlan(tuple(chosen), to_score, lacking, again, empty)


def no_run_words(plan: ScoringPlan) -> str | None:
    """Why chosen traces without an agent run are left out, and what to do."""
    count = len(plan.no_run)
    if count == 0:
        return None
    who = (
        noun(count, "The chosen trace holds", "None of the chosen traces holds")
        if count == len(plan.chosen)
        else f"{count} of the {len(plan.chosen)} chosen traces hold"
    )
    return (
        f"{who} no agent run (no agent or model call was recorded), so no agent scorer can "
        f"score {noun(count, 'it', 'them')}: {noun(count, 'it is', 'they are')} left out. "
        f"Take {noun(count, 'it', 'them')} out of the choice, or import the agent's spans."
    )


def button_label(plan: ScoringPlan) -> str:
    """ "Score 3 traces", "Score 2 of the 3 chosen traces", or "Score traces" (disabled)."""
    count = len(plan.to_score)
    if count == 0:
        return "Score traces"
    if count == len(plan.chosen):
        return f"Score {plural(count, 'trace')}"
    return f"Score {count} of the {len(plan.chosen)} chosen traces"


def chosen_words(plan: ScoringPlan) -> str:
    """How many traces are chosen."""
    if not plan.chosen:
        return "No trace is chosen yet."
    return f"**{plural(len(plan.chosen), 'trace')} chosen.**"


_NAMED = 3
"""Traces named at most in a message (more are counted)."""


def lacking_words(
    plan: ScoringPlan, option: AgentScorerOption, names: Mapping[str, str] | None = None
) -> str | None:
    """Why some chosen traces cannot be scored by this scorer, and what to do; None when
    every chosen trace can be. ``names`` (trace id → how the page names it) names up to
    three of them."""
    if not plan.lacking:
        return None
    count = len(plan.lacking)
    what = (
        "the tools the agent should call, in order"
        if option.need.kind == "tools"
        else "what the agent should have answered"
    )
    who = (
        f"{noun(count, 'The chosen trace', 'None of the chosen traces')}"
        if count == len(plan.chosen)
        else f"{count} of the {len(plan.chosen)} chosen traces"
    )
    if names and count <= _NAMED:
        who += " (" + "; ".join(names.get(t, t) for t in plan.lacking) + ")"
    reasons = sorted(set(plan.lacking.values()))
    why = "; ".join(reasons) if count == 1 else "; ".join(_they(r) for r in reasons)
    verb = "can" if count == len(plan.chosen) and count > 1 else "cannot"  # "None of … can"
    return (
        f"{who} {verb} be scored by {option.title or option.name} yet: it compares the "
        f"agent with an expected answer ({what}), and {why}. Give "
        f"{noun(count, 'it', 'them')} an expected answer below, or choose a scorer that "
        "needs none."
    )


def _they(reason: str) -> str:
    """A reason said of one trace ("it has no …"), said of several ("they have no …")."""
    return reason.replace("it has", "they have").replace(
        "its expected answer is", "their expected answer is"
    )


def rescore_words(plan: ScoringPlan) -> str | None:
    """Whether scoring scores some traces again, in plain words; None when it does not."""
    again, count = len(plan.again), len(plan.to_score)
    if again == 0:
        return None
    if count == 1:
        who = "It was"
    elif again == count:
        who = f"All {count} were"
    else:
        who = f"{again} of the {count} were"
    return (
        f"{who} already scored by this version: scoring again adds a new score, and the "
        "earlier one stays in the history."
    )


def trace_scoring_cost_note(option: AgentScorerOption, traces: int) -> str | None:
    """How many judge calls scoring ``traces`` traces makes, at most (before retries);
    None when there is nothing to score."""
    if option.judge_steps == 0:
        return "This scorer never calls a judge: scoring costs nothing."
    if traces == 0:
        return None
    calls = option.judge_steps * traces
    return (
        f"This asks the judge up to {plural(calls, 'time')} "
        f"({option.judge_steps} per trace), more if a request is retried."
    )


def outcome_words(option: AgentScorerOption, outcomes: Sequence[TraceScoreOutcome]) -> str:
    """ "Scored 2 traces with Agent answered · version 1: 1 failed, 1 scored."."""
    counts = Counter(o.status for o in outcomes)
    words = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in sorted(counts.items()))
    count = len(outcomes)
    return f"Scored {plural(count, 'trace')} with {option.label()}: {words}."


def _or(value: object, missing: str) -> str:
    return missing if value is None else str(value)


def _scorer_fact(scorer: str | None, version: int | None, *, external: bool) -> str:
    """``Politeness v2``; another tool's scorer by its name alone (it has no versions here)."""
    name = _or(scorer, "—")
    return name if external else f"{name} v{_or(version, '?')}"


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
            if target.ground_truth is not None:  # the trace's expected answer, as it is now
                data["ground_truth"] = jsonable(target.ground_truth)
    data["facts"] = [
        ("Scorer", _scorer_fact(stored.scorer, stored.version, external=bool(record.event_key))),
        ("Trace", record.trace_id or "—"),
        ("Span", record.span_id or "—"),
        ("When (UTC)", record.created_at.strftime("%Y-%m-%d %H:%M:%S")),
    ]
    if record.trace_id and trace is None:
        data["facts"].append(("Trace stored", "no (deleted)"))
    return data
