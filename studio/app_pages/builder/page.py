"""Build a scorer: basics → judge → steps → retries → try it → save."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from scorer_runtime.ids import id_from_name
from scorer_runtime.spec import JudgeSpec, ScorerDraft
from scorer_runtime.spec.models import ScorerKind
from scorer_runtime.types import STEP_ORDER, StepName
from studio import services, state
from studio.app_pages.builder import data
from studio.app_pages.builder.judge import (
    answer_cache_switch,
    judge_form,
    key_missing,
    step_judges,
)
from studio.app_pages.builder.logic import (
    STEP_HEADINGS,
    check_draft,
    clean_draft,
    hardened_steps,
    missing_keys,
    processors_by_step,
    sample_prompt,
    try_draft,
)
from studio.app_pages.builder.problems import (
    ProblemWords,
    problems_in_words,
    reference_words,
    step_place,
)
from studio.app_pages.builder.steps import step_editor
from studio.app_pages.builder.try_it import example_picker, try_result
from studio.app_pages.runs.start import preselect_scorer
from studio.widgets.common import page_header, show_error
from studio.widgets.retry_form import render_retry_form
from studio.words import plural

STAGES = {
    "basics": "1 · Basics",
    "judge": "2 · Judge",
    "steps": "3 · Steps",
    "retries": "4 · Retries",
    "try": "5 · Try it",
    "save": "6 · Save",
}


def _drafts_to_continue(*, key: state.Key) -> None:
    drafts = data.drafts_left()
    current = state.get(state.BUILDER_DRAFT_ID)
    others = [d for d in drafts if d[0] != current and d[0] is not None]
    if not others:
        return
    with st.expander(f"Continue a draft you left ({len(others)})"):
        labels = {d[0]: f"{d[1] or 'Untitled'} · changed {d[2]:%Y-%m-%d %H:%M} UTC" for d in others}
        chosen = st.selectbox(
            "Draft", list(labels), format_func=labels.__getitem__, key=key.child("pick").name
        )
        st.button(
            "Continue this draft",
            on_click=data.continue_draft,
            args=(chosen,),
            key=key.child("go").name,
        )


def _go(stage_key: state.Key, stage: str) -> None:
    state.put(stage_key, stage)


def _basics(draft: ScorerDraft, *, key: state.Key, editing: bool) -> None:
    draft.name = st.text_input(
        "Name",
        value=draft.name or "",
        placeholder="Polite and correct support answers",
        help="What people will see in lists and charts.",
        key=key.child("name").name,
    )
    with st.expander("Technical id (used in files and code)"):
        suggested = draft.id or (
            id_from_name(draft.name, fallback_prefix="scorer") if draft.name else ""
        )
        draft.id = st.text_input(
            "Id",
            value=suggested,
            disabled=editing,
            help="Letters, digits, - and _. Fixed once the scorer is saved.",
            key=key.child("id").name,
        )
    if not editing and draft.name and not state.peek(key.child("id_touched")):
        draft.id = draft.id or id_from_name(draft.name, fallback_prefix="scorer")
    draft.description = st.text_area(
        "What does it judge?",
        value=draft.description or "",
        placeholder="Whether a support answer is polite and answers the customer's question.",
        key=key.child("description").name,
    )
    kinds: dict[ScorerKind, str] = {
        "plain": "Answers (text in, text out)",
        "agent": "Agent runs (messages, tool calls)",
    }
    draft.type = st.radio(
        "What does it score?",
        list(kinds),
        index=list(kinds).index(draft.type or "plain"),
        format_func=kinds.__getitem__,
        horizontal=True,
        key=key.child("type").name,
    )


def _steps(
    draft: ScorerDraft,
    example: Any,
    profiles: Mapping[str, Mapping[str, Any]],
    *,
    key: state.Key,
) -> dict[StepName, Any]:
    places: dict[StepName, Any] = {}
    hardened = hardened_steps(draft, profiles)
    for slot in STEP_ORDER:
        step, place = step_editor(
            draft.step(slot),
            slot,
            registry=services.registry(),
            example=example,
            agent=draft.type == "agent",
            groups=draft.fields_available_at(slot),
            key=key.child(slot),
            harden=slot in hardened,
        )
        draft.put_step(slot, step)
        places[slot] = place
    return places


def _retries(draft: ScorerDraft, *, key: state.Key) -> None:
    judge = draft.judge
    st.markdown("#### For the whole scorer")
    if isinstance(judge, dict):
        retry = render_retry_form(judge.get("retry"), key=key.child("scorer"))
        draft.judge = {k: v for k, v in judge.items() if k != "retry"}
        if retry is not None:
            draft.judge["retry"] = retry
    else:
        st.info(
            "This scorer uses a saved judge; its retry policy is set on the Judges page. "
            "You can still give a step its own policy below."
        )
    judge_steps = [s.step for s in draft.prompt_steps() if s.step is not None]
    if judge_steps:
        st.markdown("#### For one step")
    for slot in judge_steps:
        step = draft.step(slot)
        if step is None:
            continue
        own = dict(step.judge) if isinstance(step.judge, dict) else {}
        with st.container(border=True):
            mine = st.toggle(
                f"{STEP_HEADINGS[slot][3:]}: its own retry policy",
                value="retry" in own,
                key=key.child(slot).child("own").name,
            )
            if mine:
                # A step's own policy starts as the usual one; off means "never retry".
                policy = render_retry_form(own.get("retry", {}), key=key.child(slot))
                own["retry"] = {"max_retries": 0} if policy is None else policy
            else:
                own.pop("retry", None)
        step.judge = own or None
        draft.put_step(slot, step)


def _save(draft: ScorerDraft, problems: list[ProblemWords], *, key: state.Key) -> None:
    _saved()
    if state.get(state.BUILDER_JUST_SAVED) is not None:
        return
    if problems:
        st.warning("Fix these first:")
        for problem in problems:
            lead = f"**{problem.place}**: " if problem.place else ""
            st.markdown(f"- {lead}{problem.sentence}")
        return
    note = st.text_input(
        "What changed? (a note kept with this version)",
        placeholder="First version",
        key=key.child("note").name,
    )
    if st.button("Save as a new version", type="primary", key=key.child("save").name):
        try:
            spec = clean_draft(draft).to_spec()  # problems were shown above
            if isinstance(spec, list):
                words = problems_in_words(spec, draft=draft, registry=services.registry())
                raise ValueError(" ".join(str(w) for w in words))
            saved = data.save_version(spec, note)
        except Exception as error:
            show_error(error)
            return
        state.put(state.BUILDER_SCORER_ID, saved[0])
        state.put(state.BUILDER_LOADED_FOR, saved[0])
        state.put(state.CURRENT_SCORER_ID, saved[0])
        state.put(state.BUILDER_JUST_SAVED, saved)
        data.forget_draft()
        preselect_scorer(saved[0])
        st.rerun()  # the header and the stages now speak of the saved scorer


def _saved() -> None:
    """What to do with the version just saved."""
    saved = state.get(state.BUILDER_JUST_SAVED)
    if saved is None:
        return
    st.success(f"Saved version {saved[1]}. Run it on a dataset, or hand it to engineers.")
    st.page_link(
        "app_pages/runs/page.py", label="Run it on a dataset", icon=":material/play_circle:"
    )
    st.page_link("app_pages/export/page.py", label="Export as code", icon=":material/ios_share:")


def _try(
    draft: ScorerDraft,
    example: Any,
    profiles: dict[str, JudgeSpec],
    problems: list[ProblemWords],
    *,
    key: state.Key,
) -> None:
    judge_steps = len(draft.prompt_steps())
    if example is None:
        st.info("Choose or type an example in the panel on the right first.")
        return
    # Checked before the judge is called: a try that cannot work costs nothing.
    blocking = [p for p in problems if p.stage != "basics"]
    if blocking:
        st.warning("Before trying, fix these:", icon=":material/edit_note:")
        st.markdown("\n".join(f"- {p}" for p in blocking))
        return
    missing = missing_keys(draft, profiles, services.env_is_set)
    if missing and judge_steps:
        key_missing(missing)
        return
    st.caption(
        f"Trying makes {plural(judge_steps, 'call')} to the judge (more if an answer is "
        "re-asked or retried)."
        if judge_steps
        else "This scorer needs no judge: trying it costs nothing."
    )
    if st.button("Try it on this example", type="primary", key=key.child("run").name):
        data.touch(*STAGES)
        with st.spinner("Scoring…"):
            outcome = try_draft(draft, example, registry=services.registry(), profiles=profiles)
        state.put(state.TRY_RESULT, outcome)
    outcome = state.get(state.TRY_RESULT)
    if outcome is not None:
        try_result(outcome, processors_by_step(draft, raw_profiles))


state.show_flashes()
page_header(
    "Build a scorer",
    "Describe what a good answer looks like, step by step. Every step shows what it does on "
    "an example; nothing is saved until you save a version.",
)
draft = data.load_draft()
gen = state.get(state.BUILDER_GEN)
key = state.BUILDER_FORM.child(gen)
editing = state.get(state.BUILDER_SCORER_ID) is not None
top = st.columns([4, 1])
top[0].markdown(
    f"Editing **{draft.name or draft.id}** (a new version)" if editing else "A new scorer"
)
top[1].button("Start a new scorer", on_click=data.start_new, key=key.child("new").name)
_drafts_to_continue(key=key.child("drafts"))

stage_key = key.child("stage")
if not state.has(stage_key):  # set here, not as a default: Next and Back set it too
    state.put(stage_key, "basics")
stage = (
    st.segmented_control(
        "Where you are",
        list(STAGES),
        format_func=STAGES.__getitem__,
        required=True,
        key=stage_key.name,
    )
    or "basics"
)
main, side = st.columns([3, 2], gap="large")
with side, st.container(border=True):
    st.markdown("**Example to try on**")
    kind = state.peek(key.child("basics").child("type")) or draft.type or "plain"
    example = example_picker(kind=kind, key=key.child("example"))
raw_profiles = data.profiles(str(services.engine().url))
profiles = {name: JudgeSpec.model_validate(data) for name, data in raw_profiles.items()}
places: dict[StepName, Any] = {}
with main:
    if stage == "basics":
        _basics(draft, key=key.child("basics"), editing=editing)
    elif stage == "judge":
        draft.judge = judge_form(
            draft.judge,
            raw_profiles,
            key=key.child("judge"),
            sample=sample_prompt(draft, example, None),
        )
        step_judges(draft, example, raw_profiles, key=key.child("judge").child("steps"))
        answer_cache_switch(draft, key=key.child("judge").child("cache"))
    elif stage == "steps":
        places = _steps(draft, example, raw_profiles, key=key.child("steps"))
    elif stage == "retries":
        _retries(draft, key=key.child("retries"))
state.put(state.BUILDER_DRAFT, draft)
# Moving on from a stage (Next, or choosing a later one) counts as acting on it.
data.touch(*list(STAGES)[: list(STAGES).index(stage) + (stage == "save")])
if stage != "save":
    data.autosave(draft, stage)
problems = problems_in_words(
    check_draft(clean_draft(draft), registry=services.registry(), profiles=profiles),
    draft=draft,
    registry=services.registry(),
) + reference_words(draft.missing_references(registry=services.registry()))
touched = state.get(state.BUILDER_TOUCHED)
shown = [p for p in problems if p.stage in touched]
for slot, place in places.items():
    for problem in shown:
        if problem.stage == "steps" and problem.place == step_place(slot):
            place.error(problem.sentence, icon=":material/error:")
with main:
    if stage == "try":
        _try(draft, example, profiles, problems, key=key.child("try"))
    elif stage == "save":
        _save(draft, problems, key=key.child("save"))
    elif stage in ("basics", "judge", "retries"):
        for problem in shown:  # each stage shows its own problems only
            if problem.stage == stage:
                st.error(str(problem), icon=":material/error:")
    order = list(STAGES)
    position = order.index(stage)
    back, _, forward = st.columns([1, 3, 1])
    if position > 0:
        back.button(
            "← Back",
            on_click=_go,
            args=(stage_key, order[position - 1]),
            key=key.child("back").name,
        )
    if position < len(order) - 1:
        forward.button(
            "Next →",
            on_click=_go,
            args=(stage_key, order[position + 1]),
            type="primary",
            key=key.child("next").name,
        )
if problems and stage != "save" and state.get(state.BUILDER_TOUCHED):
    st.caption(f"{plural(len(problems), 'thing')} to fix before saving (see 6 · Save).")
