"""The judge form: its widgets (every one keyed), loading a profile into them, and reading
them back as a :class:`~studio.app_pages.judges.logic.JudgeForm`.

Widget values live under the keys below; :func:`load_form` writes them before the widgets
are drawn (when another judge is chosen), so a widget never gets a value and a default.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from studio import services, state
from studio.app_pages.judges.logic import JSON_MODES, MODEL_EXAMPLES, JudgeForm, kept_in_words
from studio.app_pages.judges.logic.keys import PastedKeyError, use_key
from studio.widgets.forms import RetryForm, retry_policy
from studio.widgets.judge_processors import (
    load_processors_form,
    read_processors_form,
    render_processors,
)
from studio.widgets.retry_form import load_retry_form, read_retry_form, render_retry_form
from studio.words import HARDEN_HELP, HARDEN_LABEL, KEY_PLACE, KEY_PLACE_HELP

_FIELDS = {
    state.JUDGES_NAME: "name",
    state.JUDGES_MODEL: "model",
    state.JUDGES_API_BASE: "api_base",
    state.JUDGES_KEY_ENV: "api_key_env",
    state.JUDGES_INSTRUCTIONS: "instructions",
    state.JUDGES_TEMPERATURE: "temperature",
    state.JUDGES_TIMEOUT: "timeout_s",
    state.JUDGES_INPUT_PRICE: "input_price",
    state.JUDGES_OUTPUT_PRICE: "output_price",
    state.JUDGES_DEFAULT_CAP: "default_cap",
    state.JUDGES_REQUESTS_PER_MINUTE: "requests_per_minute",
    state.JUDGES_TOKENS_PER_MINUTE: "tokens_per_minute",
    state.JUDGES_JSON_MODE: "json_mode",
    state.JUDGES_HARDEN: "harden_prompt",
}
NEW_JUDGE_RETRY = retry_policy(RetryForm())
"""The retry policy a new judge starts with (the usual one)."""
DEFAULT_INSTRUCTIONS = (
    "You are a careful, strict reviewer. You grade answers that an AI assistant gave to "
    "users. Judge only what is written, be consistent, and answer briefly."
)


def load_form(form: JudgeForm) -> None:
    """Put a form's values into the widgets (call before they are drawn, or in a callback)."""
    for key, name in _FIELDS.items():
        state.put(key, getattr(form, name))
    load_retry_form(form.retry, key=state.JUDGES_RETRY)
    load_processors_form(form.processors, key=state.JUDGES_PROCESSORS)


def ensure_loaded(form: JudgeForm) -> None:
    """Load ``form`` when the widgets have no values yet (first visit, or back from another
    page, where Streamlit forgets the values of widgets that were not drawn)."""
    if not state.has(state.JUDGES_MODEL):
        load_form(form)
    else:  # fields hidden while their part was off come back with this judge's values
        load_retry_form(form.retry, key=state.JUDGES_RETRY, missing_only=True)
        load_processors_form(form.processors, key=state.JUDGES_PROCESSORS, missing_only=True)


def read_form(kept: dict[str, Any]) -> JudgeForm:
    """The form as the widgets hold it now."""
    values = {name: state.peek(key) for key, name in _FIELDS.items()}
    return JudgeForm(
        name=str(values["name"] or ""),
        model=str(values["model"] or ""),
        api_base=str(values["api_base"] or ""),
        api_key_env=str(values["api_key_env"] or ""),
        instructions=str(values["instructions"] or ""),
        temperature=values["temperature"],
        timeout_s=values["timeout_s"],
        input_price=values["input_price"],
        output_price=values["output_price"],
        default_cap=str(values["default_cap"] or ""),
        requests_per_minute=values["requests_per_minute"],
        tokens_per_minute=values["tokens_per_minute"],
        json_mode=values["json_mode"] or "auto",
        harden_prompt=bool(values["harden_prompt"]),
        retry=read_retry_form(key=state.JUDGES_RETRY),
        processors=read_processors_form(key=state.JUDGES_PROCESSORS),
        kept=kept,
    )


def new_judge() -> JudgeForm:
    """What a new judge starts with: sensible defaults and two retries."""
    return JudgeForm(instructions=DEFAULT_INSTRUCTIONS, temperature=0.0)


def render(*, editing: bool, kept: dict[str, Any]) -> None:
    """Draw the form's widgets."""
    _basics(editing)
    _key_variable()
    _grading()
    st.markdown("**When a request fails**")
    _retries()
    # ensure_loaded has put this judge's values into every widget: nothing to load here.
    render_processors({}, key=state.JUDGES_PROCESSORS)
    if kept:
        st.caption(
            "This judge also "
            + "; ".join(kept_in_words(kept))
            + ". These settings come from its file and are kept as they are."
        )


def _basics(editing: bool) -> None:
    st.text_input(
        "Name",
        key=state.JUDGES_NAME.name,
        disabled=editing,
        placeholder="gpt-4o-mini-strict",
        help="How scorers refer to this judge. To rename a judge, create a new one and "
        "delete this one (scorers refer to judges by name).",
    )
    st.text_input(
        "Model",
        key=state.JUDGES_MODEL.name,
        placeholder=MODEL_EXAMPLES,
        help="Which AI model grades, written as provider/model: "
        f"{MODEL_EXAMPLES}. (Technically a litellm model string; see docs.litellm.ai.)",
    )
    st.text_input(
        "Base URL (optional)",
        key=state.JUDGES_API_BASE.name,
        placeholder="http://localhost:11434 (leave empty for the provider's own address)",
        help="Only for a model served somewhere other than the provider's usual address: a "
        "local server (Ollama, vLLM) or any OpenAI-compatible endpoint.",
    )


def _key_variable() -> None:
    name_col, status_col = st.columns([3, 1], vertical_alignment="bottom")
    with name_col:
        st.text_input(
            KEY_PLACE,
            key=state.JUDGES_KEY_ENV.name,
            placeholder="OPENAI_API_KEY",
            help=KEY_PLACE_HELP,
        )
    env = str(state.peek(state.JUDGES_KEY_ENV) or "").strip()
    with status_col:
        if not env:
            st.badge("No key", color="gray", help="Requests are sent without a key.")
        elif services.env_is_set(env):
            st.badge("Set", icon=":material/check:", color="green", help=f"{env} is set.")
        else:
            st.badge(
                "Not set",
                icon=":material/warning:",
                color="orange",
                help=f"{env} is not set where the studio runs: paste the key below.",
            )
    if env:
        _paste_key(env)


def _paste_key(env: str) -> None:
    """A password box for the key itself, kept in the studio's memory (and, when ticked, in a
    .env file); it is emptied once used and never shown back."""
    is_set = services.env_is_set(env)
    with st.expander(
        f"Replace the key for {env}" if is_set else f"Paste the key for {env}",
        expanded=not is_set,
        key=state.JUDGES_KEY_BOX.name,
    ):
        box, go = st.columns([3, 1], vertical_alignment="bottom")
        box.text_input(
            "API key",
            key=state.JUDGES_KEY_VALUE.name,
            type="password",
            placeholder="sk-…",
            help="Kept in the studio's memory until it stops, never in the database, an "
            "export or a log, and never shown again.",
        )
        go.button("Use this key", key=state.JUDGES_KEY_USE.name, on_click=_use_key, args=(env,))
        st.checkbox(
            "Also remember it on this computer",
            key=state.JUDGES_KEY_REMEMBER.name,
            help="Also writes it to a .env file in the folder the studio was started from "
            "(readable only by you, left out of git), so the studio and `scorer-studio run` "
            "have it after a restart.",
        )
    outcome = state.get(state.JUDGES_KEY_OUTCOME)
    if outcome:
        kind, text = outcome
        if kind == "ok":
            st.success(text, icon=":material/key:")
        else:
            st.error(text, icon=":material/error:")


def _use_key(env: str) -> None:
    # A callback: it may empty the password box before it is drawn again.
    key = str(state.peek(state.JUDGES_KEY_VALUE) or "")
    remember = bool(state.peek(state.JUDGES_KEY_REMEMBER))
    state.put(state.JUDGES_KEY_VALUE, "")
    try:
        outcome = use_key(env, key, remember=remember)
    except PastedKeyError as error:
        state.put(state.JUDGES_KEY_OUTCOME, ("error", str(error)))
        return
    except OSError as error:
        state.put(
            state.JUDGES_KEY_OUTCOME,
            ("error", f"The key could not be written to the .env file ({error.strerror})."),
        )
        return
    state.put(state.JUDGES_KEY_OUTCOME, ("ok", outcome.sentence()))
    state.reset(state.JUDGES_CONNECTION)


def _grading() -> None:
    st.text_area(
        "Instructions",
        key=state.JUDGES_INSTRUCTIONS.name,
        height=110,
        placeholder=DEFAULT_INSTRUCTIONS,
        help="What the judge is told before every question: who it is and how it grades. "
        "(They become the judge's system message.)",
    )
    temperature, timeout = st.columns(2)
    temperature.number_input(
        "Temperature (optional)",
        key=state.JUDGES_TEMPERATURE.name,
        min_value=0.0,
        max_value=2.0,
        step=0.1,
        help="How much the judge's answers vary. 0 gives the most consistent grades; leave "
        "empty for the provider's default.",
    )
    timeout.number_input(
        "Timeout (seconds)",
        key=state.JUDGES_TIMEOUT.name,
        placeholder="60",
        min_value=1.0,
        max_value=3600.0,
        step=5.0,
        help="How long to wait for one answer before giving up on that request.",
    )
    _prices()
    _limits()
    modes = list(JSON_MODES)
    st.radio(
        "Answer format",
        modes,
        format_func=lambda m: JSON_MODES[m][0],
        captions=[JSON_MODES[m][1] for m in modes],
        key=state.JUDGES_JSON_MODE.name,
        help="How the judge is made to answer in the exact shape a scorer asks for "
        "(technically: native structured output, or JSON prompt injection).",
    )
    st.checkbox(HARDEN_LABEL, key=state.JUDGES_HARDEN.name, help=HARDEN_HELP)


def _prices() -> None:
    per_input, per_output = st.columns(2)
    said = (
        "Leave empty to use the known price of the model, if there is one. With a price, "
        "runs show what they cost and can stop at a spend cap."
    )
    per_input.number_input(
        "Price per 1M input tokens ($, optional)",
        key=state.JUDGES_INPUT_PRICE.name,
        min_value=0.0,
        max_value=100_000.0,
        step=0.05,
        format="%.4f",
        help=f"What the provider charges for 1 million tokens sent to the judge. {said}",
    )
    per_output.number_input(
        "Price per 1M output tokens ($, optional)",
        key=state.JUDGES_OUTPUT_PRICE.name,
        min_value=0.0,
        max_value=100_000.0,
        step=0.05,
        format="%.4f",
        help=f"What the provider charges for 1 million tokens the judge answers. {said}",
    )
    cap, _ = st.columns(2)
    cap.text_input(
        "Stop a run at $ (default for runs with this judge, optional)",
        key=state.JUDGES_DEFAULT_CAP.name,
        placeholder="No default cap",
        help="A run of a scorer using this judge stops before its judge calls could cost "
        "more than this many dollars, unless a different amount is typed in the Runs page's "
        "'Stop at $' box (it starts filled with this; empty it to run without a cap). "
        "Leave empty for no default.",
    )


def _limits() -> None:
    per_minute, tokens = st.columns(2)
    said = (
        "Every run and runner using this judge keeps to it together, on this computer and on "
        "every computer sharing the studio's database. Leave empty if you do not know it: "
        "runs then slow down by themselves when the provider says 'too many requests'."
    )
    per_minute.number_input(
        "This key allows … requests a minute (optional)",
        key=state.JUDGES_REQUESTS_PER_MINUTE.name,
        min_value=1,
        max_value=10_000_000,
        step=60,
        placeholder="e.g. 500 (your provider's page says)",
        help=f"The provider's rate limit for this key and model, in requests a minute. {said}",
    )
    tokens.number_input(
        "This key allows … tokens a minute (optional)",
        key=state.JUDGES_TOKENS_PER_MINUTE.name,
        min_value=1,
        max_value=1_000_000_000,
        step=1_000,
        placeholder="e.g. 200000",
        help="The provider's limit in tokens a minute (questions and answers together); each "
        f"request's tokens are counted before it is sent. {said}",
    )


def _retries() -> None:
    # ensure_loaded has already put this judge's values into every retry widget (also those
    # Streamlit forgot while hidden), so the policy given here is only a fallback.
    render_retry_form(NEW_JUDGE_RETRY, key=state.JUDGES_RETRY, label="Retry failed requests")
