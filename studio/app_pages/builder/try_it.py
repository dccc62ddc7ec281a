"""The example the builder previews on, and the "try it" result view."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import streamlit as st

from studio import services, state
from studio.app_pages.builder import data
from studio.app_pages.builder.logic import STEP_HEADINGS, Example, TryOutcome, example_dataset
from studio.widgets.processor_forms import marks_in
from studio.widgets.score_detail import render_score_detail


def _short(value: Any, width: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _parse(text: str) -> Any:
    """Typed text: JSON when it is JSON (lists, objects), else the text itself."""
    stripped = text.strip()
    if stripped[:1] in ("[", "{"):
        try:
            return json.loads(stripped)
        except json.JSONDecodeError:
            pass
    return text


def example_picker(*, kind: str, key: state.Key) -> Example | None:
    """Choose an example from a dataset, or type one. It opens on a dataset whose examples
    suit a scorer of ``kind`` ("plain" or "agent"), or on typing one when none does."""
    url = str(services.engine().url)
    datasets = data.datasets(url)
    names = {d: name for d, name, _ in datasets}
    suited = example_dataset(
        kind, {d: agent for d, _, agent in datasets}, state.peek(state.SELECTED_DATASET_ID)
    )
    ways = ["dataset", "typed"] if datasets else ["typed"]
    labels = {"dataset": "From a dataset", "typed": "Type one"}
    way_key, dataset_key, opened_for = (key.child(part) for part in ("way", "dataset", "kind"))
    if state.peek(opened_for) != kind or not state.has(way_key):
        # First drawn, or the scorer made an agent scorer (or back): open on what suits it.
        state.put(way_key, "dataset" if suited is not None else ways[-1])
        if suited is not None:
            state.put(dataset_key, suited)
    state.put(opened_for, kind)
    state.choose_valid(way_key, ways)
    way = st.radio(
        "Example", ways, format_func=labels.__getitem__, horizontal=True, key=way_key.name
    )
    if way == "dataset":
        ids = list(names)
        state.choose_valid(dataset_key, ids)
        dataset_id = st.selectbox(
            "Dataset", ids, format_func=names.__getitem__, key=dataset_key.name
        )
        rows = data.examples(url, int(dataset_id))
        if not rows:
            st.caption("This dataset has no examples yet.")
            return None
        # One list per dataset: a list kept across datasets would show the last one's rows.
        index = st.selectbox(
            "Example",
            range(len(rows)),
            format_func=lambda i: f"{i + 1}. {_short(rows[i]['input'])}",
            key=key.child("row").child(dataset_id).name,
        )
        row = rows[int(index)]
        with st.expander("See the example"):
            st.json({k: v for k, v in row.items() if k != "id"}, expanded=False)
        return Example(row["input"], row["output"], row["ground_truth"], row["request_context"])
    question = st.text_area(
        "Question (input)",
        placeholder="How do I reset my password?",
        key=key.child("input").name,
        height=80,
    )
    answer = st.text_area(
        "Answer to score (output)",
        placeholder="Open Settings, then Security, then Reset password.",
        key=key.child("output").name,
        height=80,
    )
    truth = st.text_area("Expected answer (optional)", key=key.child("truth").name, height=68)
    if not answer.strip():
        return None
    return Example(_parse(question), _parse(answer), _parse(truth) if truth.strip() else None)


def try_result(
    outcome: TryOutcome, processors: Mapping[str, Mapping[str, Any]] | None = None
) -> None:
    """The same drill-down the Results page shows: each step's result, the exact prompts, the
    judge's raw answers, attempts, latency and cost; then, for each judge step whose
    ``processors`` hid or cut something, the messages as sent with what was hidden or cut."""
    if outcome.result is None:
        if outcome.error is not None:
            st.error(f"**{outcome.error.title}.** {outcome.error.detail}", icon=":material/error:")
            st.info(outcome.error.what_to_do, icon=":material/lightbulb:")
        return
    render_score_detail(outcome.result, key=state.BUILDER_TRY_DETAIL)
    for step, evidence in (outcome.result.get("judge") or {}).items():
        settings = (processors or {}).get(str(step)) or {}
        if settings.get("redact_pii") is None and settings.get("truncate") is None:
            continue
        _as_sent(str(step), list(evidence.get("messages") or []), settings)


def _as_sent(step: str, messages: list[Mapping[str, Any]], settings: Mapping[str, Any]) -> None:
    notes = marks_in(messages, settings)
    headings: dict[str, str] = {str(k): v[3:] for k, v in STEP_HEADINGS.items()}
    heading = headings.get(step, step)
    title = f"{heading}: what the judge read, after hiding and cutting"
    with st.expander(title, expanded=bool(notes), icon=":material/visibility_off:"):
        for note in notes or ["Nothing was hidden or cut in this example."]:
            st.markdown(f"- {note}")
        for message in messages:
            role = "Instructions" if message.get("role") == "system" else "Question"
            st.caption(role)
            st.code(str(message.get("content", "")), language=None, wrap_lines=True)
