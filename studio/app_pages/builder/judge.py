"""The builder's judge form: the scorer's judge, and each judge step's own "before the judge
reads it" / "after the judge answers" settings (shared forms: retry_form.py for retries,
judge_processors.py for the processors)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from scorer_runtime.spec import ScorerDraft
from scorer_runtime.spec.draft import JudgeValue
from studio import state
from studio.app_pages.builder.logic import STEP_HEADINGS, Example, sample_prompt
from studio.app_pages.judges.logic import JSON_MODES, json_mode_of, json_mode_value
from studio.services import env_is_set
from studio.widgets.judge_processors import render_processors
from studio.widgets.processor_forms import PROCESSOR_FIELDS, in_words
from studio.words import HARDEN_HELP, HARDEN_LABEL


def key_missing(envs: Sequence[str]) -> None:
    """The judge cannot be called: say which key it needs, and where to add it."""
    names = " and ".join(f"`{env}`" for env in envs)
    st.warning(
        f"The judge needs an API key in {names}, which is not set yet.",
        icon=":material/key:",
    )
    st.page_link(
        "app_pages/judges/page.py", label="Add it on the Judges page", icon=":material/key:"
    )


def judge_form(
    judge: JudgeValue | None,
    profiles: Mapping[str, Mapping[str, Any]],
    *,
    key: state.Key,
    sample: str | None = None,
) -> JudgeValue | None:
    """The scorer's judge: a saved profile's name, or settings (plain data); returns the new
    value (a draft's judge, as ``ScorerDraft.judge`` holds it)."""
    ways = ["inline", "profile"]
    labels = {"inline": "Set up a judge here", "profile": "Use a saved judge"}
    way = st.radio(
        "Which judge?",
        ways,
        index=1 if isinstance(judge, str) else 0,
        format_func=labels.__getitem__,
        horizontal=True,
        key=key.child("way").name,
    )
    if way == "profile":
        if not profiles:
            st.info("No judge is saved yet. Save one on the Judges page, or set one up here.")
            st.page_link(
                "app_pages/judges/page.py", label="Open the Judges page", icon=":material/gavel:"
            )
            return judge
        names = sorted(profiles)
        current = judge if isinstance(judge, str) and judge in profiles else names[0]
        chosen: str = st.selectbox(
            "Saved judge",
            names,
            index=names.index(current),
            key=key.child("profile").name,
        )
        env = profiles[chosen].get("api_key_env")
        if isinstance(env, str) and env and not env_is_set(env):
            key_missing([env])
        steps = in_words(profiles[chosen])
        st.caption(
            ("Before and after the judge reads: " + " → ".join(steps) + ". ")
            if steps
            else "This judge hides nothing, shortens nothing and stops on no answer. "
        )
        st.caption("These settings are changed on the Judges page.")
        return chosen
    # A judge set up here anew (none yet, or a saved one left) starts with the recommended
    # hardening; a scorer's own judge keeps what it has (off when saved before the setting).
    settings = dict(judge) if isinstance(judge, Mapping) else {"harden_prompt": True}
    out = judge_settings(settings, key=key.child("settings"))
    with st.container(border=True):
        processors = render_processors(settings, key=key.child("processors"), sample=sample)
    out |= {name: value for name, value in processors.items() if value is not None}
    return {k: v for k, v in out.items() if k not in processors or processors[k] is not None}


def judge_settings(
    settings: Mapping[str, Any], *, key: state.Key, instructions: bool = True
) -> dict[str, Any]:
    """Model, where the key lives, how the answer is asked for, and the instructions."""
    out = {
        k: v
        for k, v in settings.items()
        if k not in ("model", "api_base", "api_key_env", "json_prompt_injection", "harden_prompt")
    }
    col1, col2 = st.columns(2)
    out["model"] = col1.text_input(
        "Model",
        value=str(settings.get("model") or ""),
        placeholder="openai/gpt-4o-mini",
        help="Provider and model, e.g. openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, "
        "ollama/llama3. Technical name: a litellm model string.",
        key=key.child("model").name,
    )
    env = col2.text_input(
        "Name of the environment variable holding the API key",
        value=str(settings.get("api_key_env") or ""),
        placeholder="OPENAI_API_KEY",
        help="The studio stores only this NAME, never the key itself.",
        key=key.child("env").name,
    )
    out["api_key_env"] = env.strip()
    if env.strip() and env_is_set(env.strip()):
        col2.caption("✅ set on this machine")
    elif env.strip():
        with col2:
            key_missing([env.strip()])
    hardened = st.checkbox(
        HARDEN_LABEL,
        value=settings.get("harden_prompt") is True,
        help=HARDEN_HELP,
        key=key.child("harden").name,
    )
    out["harden_prompt"] = True if hardened else None  # off is the setting left out
    with st.expander("More judge settings"):
        out["api_base"] = st.text_input(
            "Server address (optional)",
            value=str(settings.get("api_base") or ""),
            placeholder="http://localhost:11434/v1",
            help="Only for a self-hosted or OpenAI-compatible server.",
            key=key.child("base").name,
        )
        mode = st.selectbox(
            "How the answer format is asked for",
            list(JSON_MODES),
            index=list(JSON_MODES).index(json_mode_of(settings.get("json_prompt_injection"))),
            format_func=lambda m: JSON_MODES[m][0],
            help="If a model fails with structured answers, describe the answer in the prompt.",
            key=key.child("json").name,
        )
        out["json_prompt_injection"] = json_mode_value(mode)
        out["temperature"] = st.number_input(
            "Temperature",
            min_value=0.0,
            max_value=2.0,
            step=0.1,
            value=float(settings.get("temperature") or 0.0),
            help="0 gives the most consistent grades.",
            key=key.child("temperature").name,
        )
    if instructions:
        out["instructions"] = st.text_area(
            "Instructions for the judge",
            value=str(settings.get("instructions") or ""),
            placeholder="You are a strict, fair evaluator of customer-support answers…",
            help="Who the judge is and how it grades; sent before every question.",
            key=key.child("instructions").name,
            height=120,
        )
    return {k: v for k, v in out.items() if v not in (None, "")}


def step_judges(
    draft: ScorerDraft,
    example: Example | None,
    profiles: Mapping[str, Mapping[str, Any]],
    *,
    key: state.Key,
) -> None:
    """Each judge step: the scorer's processors, or its own (which replace them)."""
    judge = draft.judge
    scorer = dict(profiles.get(judge, {}) if isinstance(judge, str) else judge or {})
    steps = [s for s in draft.prompt_steps() if s.step is not None]
    if not steps:
        return
    st.markdown("#### For one step")
    inherited = in_words(scorer)
    st.caption(
        "Each step uses the scorer's settings above ("
        + (" → ".join(inherited) if inherited else "none")
        + "), unless you give it its own: its own settings replace the scorer's, they are "
        "not added to them."
    )
    for step in steps:
        assert step.step is not None
        if isinstance(step.judge, str):
            st.caption(f"{STEP_HEADINGS[step.step][3:]}: uses the saved judge {step.judge}.")
            continue
        own = dict(step.judge) if isinstance(step.judge, dict) else {}
        with st.container(border=True):
            st.markdown(f"**{STEP_HEADINGS[step.step][3:]}**")
            own = _own_processors(
                own, scorer, sample_prompt(draft, example, step.step), key=key.child(step.step)
            )
        step.judge = own or None
        draft.put_step(step.step, step)


def _own_processors(
    own: dict[str, Any], scorer: Mapping[str, Any], sample: str | None, *, key: state.Key
) -> dict[str, Any]:
    before = st.toggle(
        "Its own “before the judge reads it” settings",
        value="redact_pii" in own or "truncate" in own,
        key=key.child("own_before").name,
        help="Off: the scorer's hiding and shortening apply. On: only the settings you set "
        "here apply to this step.",
    )
    after = st.toggle(
        "Its own “after the judge answers” settings",
        value="output_guard" in own,
        key=key.child("own_after").name,
        help="Off: the scorer's “stop on these answers” applies. On: only this step's does.",
    )
    if not (before or after):
        return {k: v for k, v in own.items() if k not in PROCESSOR_FIELDS}
    # A step's own settings start as a copy of the scorer's, so one can change one thing.
    start = {f: own.get(f, scorer.get(f)) for f in PROCESSOR_FIELDS}
    result = render_processors(
        start, key=key.child("processors"), sample=sample, before=before, after=after
    )
    parts = (("redact_pii", "truncate") if before else ()) + (("output_guard",) if after else ())
    out = {k: v for k, v in own.items() if k not in PROCESSOR_FIELDS}
    out |= {k: result[k] for k in parts if result[k] is not None}
    if before and out.get("redact_pii") is None and out.get("truncate") is None:
        st.info(
            "Nothing is turned on before the judge reads it, so this step still uses the "
            "scorer's settings: a step can replace them, not remove them.",
            icon=":material/info:",
        )
    return out


def answer_cache_switch(draft: ScorerDraft, *, key: state.Key) -> None:
    """Whether runs of the scorer reuse judge answers already paid for (the answer cache)."""
    chosen = st.toggle(
        "Reuse judge answers already paid for (answer cache)",
        value=draft.cache_answers is not False,
        key=key.name,
        help="On: when a run asks the judge exactly the same question as before (same words, "
        "model and settings), it takes the earlier answer: no judge call, nothing spent. "
        "Turn it off when each answer should be a fresh one: to see how much the judge's "
        "grades vary from one asking to the next, or when the provider may have changed the "
        "model behind the same name.",
    )
    # An untouched switch leaves the scorer as it was written (no setting means on).
    draft.cache_answers = None if chosen and draft.cache_answers is None else chosen
