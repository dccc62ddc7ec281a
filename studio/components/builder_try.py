"""The example the builder previews on, and the "try it" result view."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from scorer_runtime.store import list_datasets, list_examples
from studio import services
from studio.builder_logic import Example, TryOutcome
from studio.components.common import format_score


@st.cache_data(show_spinner=False, ttl=30)
def _datasets(url: str) -> list[tuple[int, str]]:
    with services.reading() as session:
        return [(d.id, d.name) for d in list_datasets(session) if d.id is not None]


@st.cache_data(show_spinner=False, ttl=30)
def _examples(url: str, dataset_id: int) -> list[dict[str, Any]]:
    with services.reading() as session:
        rows = list_examples(session, dataset_id=dataset_id, limit=50)
        return [
            {
                "id": r.id,
                "input": r.input,
                "output": r.output,
                "ground_truth": r.ground_truth,
                "request_context": r.request_context,
            }
            for r in rows
        ]


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


def example_picker(*, key: str) -> Example | None:
    """Choose an example from a dataset, or type one."""
    url = str(services.engine().url)
    datasets = _datasets(url)
    ways = ["dataset", "typed"] if datasets else ["typed"]
    labels = {"dataset": "From a dataset", "typed": "Type one"}
    way = st.radio(
        "Example", ways, format_func=labels.__getitem__, horizontal=True, key=f"{key}.way"
    )
    if way == "dataset":
        names = dict(datasets)
        dataset_id = st.selectbox(
            "Dataset", list(names), format_func=names.__getitem__, key=f"{key}.dataset"
        )
        rows = _examples(url, int(dataset_id))
        if not rows:
            st.caption("This dataset has no examples yet.")
            return None
        index = st.selectbox(
            "Example",
            range(len(rows)),
            format_func=lambda i: f"{i + 1}. {_short(rows[i]['input'])}",
            key=f"{key}.row",
        )
        row = rows[int(index)]
        with st.expander("See the example"):
            st.json({k: v for k, v in row.items() if k != "id"}, expanded=False)
        return Example(row["input"], row["output"], row["ground_truth"], row["request_context"])
    question = st.text_area(
        "Question (input)", placeholder="How do I reset my password?", key=f"{key}.input", height=80
    )
    answer = st.text_area(
        "Answer to score (output)",
        placeholder="Open Settings, then Security, then Reset password.",
        key=f"{key}.output",
        height=80,
    )
    truth = st.text_area("Expected answer (optional)", key=f"{key}.truth", height=68)
    if not answer.strip():
        return None
    return Example(_parse(question), _parse(answer), _parse(truth) if truth.strip() else None)


def try_result(outcome: TryOutcome) -> None:
    """Each step's result, the exact prompts, the judge's answers, attempts, latency and cost."""
    if outcome.error is not None:
        st.error(f"**{outcome.error.title}.** {outcome.error.detail}", icon=":material/error:")
        st.info(outcome.error.what_to_do, icon=":material/lightbulb:")
    result = outcome.result
    if result is None:
        return
    if result.get("not_scorable"):
        info = result["not_scorable"]
        st.warning(f"Not scorable ({info['step']}): {info.get('reason') or 'no reason given'}")
    col1, col2 = st.columns([1, 3])
    col1.metric("Score", format_score(result.get("score")))
    col2.markdown(f"**Reason:** {result.get('reason') or '—'}")
    step_details(result)


_STEPS = (
    ("preprocess", "Prepare the data"),
    ("analyze", "Analyse"),
    ("generate_score", "Give the score"),
    ("generate_reason", "Explain the score"),
)


def step_details(result: dict[str, Any]) -> None:
    """Per step: its result, the prompt the judge got, the judge's raw answer and telemetry."""
    judge = result.get("judge") or {}
    for step, title in _STEPS:
        value = result.get(f"{step}_step_result") if step in ("preprocess", "analyze") else None
        prompt = result.get(f"{step}_prompt")
        execution = judge.get(step)
        if value is None and prompt is None and execution is None:
            continue
        with st.expander(
            title, expanded=execution is not None and execution["status"] != "success"
        ):
            if value is not None:
                st.markdown("**Result**")
                st.json(value, expanded=True)
            if prompt is not None:
                st.markdown("**Prompt the judge got**")
                st.code(prompt, language=None, wrap_lines=True)
            if execution is not None:
                _execution(execution)


def _execution(execution: dict[str, Any]) -> None:
    st.markdown("**The judge's raw answer**")
    st.code(execution.get("raw_output") or "(no answer)", language=None, wrap_lines=True)
    usage = execution.get("usage") or {}
    cost = execution.get("cost")
    st.caption(
        f"Model {execution.get('model')} · {execution.get('attempt_count')} attempt(s) · "
        f"{execution.get('model_call_count')} call(s) to the provider · "
        f"{execution.get('duration_ms', 0):.0f} ms · {usage.get('total_tokens', 0)} tokens · "
        + ("cost unknown" if cost is None else f"${cost:.5f}")
    )
    if execution.get("error"):
        st.error(execution["error"])
