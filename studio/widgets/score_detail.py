"""The drill-down into one score: the verdict, any error in plain words, the example, and each
step — its result, the exact messages the judge got, its raw answer, the calls and their cost.

Takes plain data (a stored score as ``score_view.load_score`` returns it, or a
``ScoreResult.to_dict()``), so the builder's "try it" shows exactly what the Results page does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import streamlit as st

from scorer_runtime.agent.readable import readable_run
from studio import state
from studio.widgets.common import outcome_badge
from studio.widgets.score_view import JudgeView, ScoreDetail, StepView, score_detail
from studio.words import format_cost, format_duration, plural, step_number

_ROLES = {
    "system": "Instructions (system message)",
    "user": "Prompt (user message)",
    "assistant": "Earlier answer (assistant message)",
}
PARTIAL_HELP = (
    "Computed before a later step failed, and kept here so nothing is lost. It does not "
    "count: the example is not scored, so it is left out of means, pass rates and agreement."
)
_KIND_WORDS = {
    "rate_limited": "rate-limited",
    "server_error": "provider error",
    "connection": "could not connect",
    "timeout": "timed out",
    "auth": "key refused",
    "invalid_request": "request refused",
    "context_length": "prompt too long",
    "format": "unreadable answer",
}


def render_score_detail(data: Mapping[str, Any], *, key: state.Key) -> None:
    """Show one score in full. ``key`` keeps two details on one page apart (compare view)."""
    view = score_detail(data)
    _headline(view)
    if view.external:
        st.caption(
            ":material/call_received: Sent by another tool as an OpenTelemetry evaluation "
            "event: no steps, judge calls or cost are known here."
        )
    if view.problem is not None:
        problem = view.problem
        if view.outcome == "not_scorable":
            st.info(f"**{problem.title}.** {problem.detail}", icon=":material/block:")
        else:
            st.error(f"**{problem.title}.** {problem.detail}", icon=":material/error:")
        st.caption(f":material/lightbulb: {problem.what_to_do}")
    if not view.external:
        _totals(view)
    if view.example:
        with st.expander("The example that was scored", expanded=False):
            for name, label in (
                ("input", "Input"),
                ("output", "Answer"),
                ("ground_truth", "Expected"),
            ):
                if name in view.example:
                    st.markdown(f"**{label}**")
                    _value(view.example[name])
    for step in view.steps:  # numbered as the builder numbers them: Analyse is always 2
        _step(step_number(step.step), step, key=key.child(step.step))


def _headline(view: ScoreDetail) -> None:
    left, right = st.columns([1, 3])
    with left:
        if not (view.external and view.label and view.score is None):  # a verdict, in words
            outcome_badge(view.outcome)
        if view.score is not None:
            st.metric("Score", f"{view.score:.2f}")
            if view.label:
                st.caption(f"Label: {view.label}")
        elif view.label:
            st.metric("Verdict", view.label, help="The label the other tool sent, in its words.")
        elif view.partial_score is not None:
            st.metric(
                "Score (not counted)",
                f"{view.partial_score:.2f}",
                help=PARTIAL_HELP,
            )
    with right:
        if view.reason:
            st.markdown(f"**Reason:** {view.reason}")
        if view.facts:
            st.caption(" · ".join(f"{label}: {value}" for label, value in view.facts))


def _totals(view: ScoreDetail) -> None:
    parts = [f"{plural(view.provider_calls, 'call')} to the judge"]
    if view.latency_ms is not None:
        parts.append(format_duration(view.latency_ms / 1000))
    tokens = view.input_tokens + view.output_tokens
    parts.append(f"{tokens:,} tokens ({view.input_tokens:,} in, {view.output_tokens:,} out)")
    parts.append("cost unknown" if view.cost is None else format_cost(view.cost))
    st.caption(" · ".join(parts))


def _value(value: Any) -> None:
    """A value as a person reads it: text as text, an agent run's messages and tool calls as
    turns (the stored JSON a click away), other structures as collapsible JSON."""
    if value is None:
        st.caption("(empty)")
    elif (turns := readable_run(value)) is not None:
        st.text(turns)
        with st.popover("As stored (JSON)"):
            st.json(value, expanded=2)
    elif isinstance(value, str):
        st.text(value)
    elif isinstance(value, dict | list):
        st.json(value, expanded=2)
    else:
        st.code(json.dumps(value, ensure_ascii=False, default=str), language=None)


def _step(number: int, step: StepView, *, key: state.Key) -> None:
    icon = ":material/error:" if step.failed else None
    title = f"{number}. {step.title}"
    if step.failed:
        title += " — failed here"
    elif step.not_scorable:
        title += " — said 'not scorable'"
    with st.expander(title, expanded=step.failed or step.not_scorable or step.partial, icon=icon):
        st.caption(f"Step: `{step.step}`" + (" · asks the judge" if step.prompt else ""))
        if step.has_result:
            st.markdown("**Result**")
            _value(step.result)
            if step.partial:
                st.caption(f":material/info: {PARTIAL_HELP}")
        elif step.skipped:
            st.caption("Did not run: an earlier step ended the scoring of this example.")
        elif not step.failed:
            st.caption("No result.")
        if step.judge is not None:
            _judge(step.judge, key=key)
        elif step.prompt:
            st.markdown("**Prompt**")
            st.code(step.prompt, language=None, wrap_lines=True)


def _judge(judge: JudgeView, *, key: state.Key) -> None:
    st.markdown(f"**What the judge was asked** (model `{judge.model}`)")
    for message in judge.messages:
        role = str(message.get("role", ""))
        st.caption(_ROLES.get(role, role))
        st.code(str(message.get("content", "")), language=None, wrap_lines=True)
    st.markdown("**The judge's answer, exactly as received**")
    if judge.raw_output is None:
        st.caption("No answer was received.")
    else:
        st.code(judge.raw_output, language="json", wrap_lines=True)
    if judge.parsed_output is not None:
        st.markdown("**Read as**")
        _value(judge.parsed_output)
    if judge.error:
        st.error(judge.error, icon=":material/error:")
    asks = "once" if judge.asks == 1 else f"{judge.asks} times (re-asked for a readable answer)"
    retried = sum(1 for c in judge.calls if not c.ok)
    seconds = "" if judge.duration_ms is None else f" · {format_duration(judge.duration_ms / 1000)}"
    cost = "cost unknown" if judge.cost is None else format_cost(judge.cost)
    st.caption(
        f"Asked {asks} · {len(judge.calls)} provider call(s), {retried} failed{seconds} · "
        f"{judge.input_tokens:,} + {judge.output_tokens:,} tokens · {cost}"
    )
    if len(judge.calls) > 1 or retried:
        _calls_table(judge, key=key)


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def _calls_table(judge: JudgeView, *, key: state.Key) -> None:
    """Every HTTP call of the step: which failed, why, and how long the retry waited."""
    st.dataframe(
        [
            {
                "Call": c.number,
                "Result": "OK"
                if c.ok
                else f"Failed ({_KIND_WORDS.get(c.error_kind or '', 'error')})",
                "HTTP status": "—" if c.status_code is None else str(c.status_code),
                "Took (ms)": _ms(c.duration_ms),
                "Waited after (ms)": _ms(c.delay_ms),
                "Message": c.error or "",
            }
            for c in judge.calls
        ],
        hide_index=True,
        key=key.child("calls").name,
    )
