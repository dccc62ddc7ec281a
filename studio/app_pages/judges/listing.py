"""The saved judges: a table with each key's status, and choosing one to edit."""

from __future__ import annotations

import streamlit as st

from studio import services, state
from studio.app_pages.judges.data import Profile
from studio.app_pages.judges.form import load_form, new_judge
from studio.app_pages.judges.logic import opening_judge
from studio.words import KEY_PLACE, format_dollars, plural

NEW = ""
"""The picker's option for a new judge."""


def table(profiles: list[Profile]) -> None:
    """One row per judge: model, address, where its key is kept and whether it is set, the spend cap
    its runs start with, use."""

    def key_status(env: str | None) -> str:
        if not env:
            return "no key needed"
        return f"{env} (set)" if services.env_is_set(env) else f"{env} (NOT set)"

    st.dataframe(
        [
            {
                "Judge": p.name,
                "Model": p.data.get("model", ""),
                "Base URL": p.data.get("api_base", "provider default"),
                KEY_PLACE: key_status(p.data.get("api_key_env")),
                "Runs stop at": _cap(p.data.get("default_max_cost")),
                "Rate limit": _limit(p.data),
                "Used by": _used_by(p),
            }
            for p in profiles
        ],
        hide_index=True,
        key=state.JUDGES_TABLE.name,
    )


def _cap(dollars: object) -> str:
    return format_dollars(float(dollars)) if isinstance(dollars, int | float) else "no cap"


def _limit(data: dict[str, object]) -> str:
    parts = []
    for field, unit in (("requests_per_minute", "requests"), ("tokens_per_minute", "tokens")):
        value = data.get(field)
        if isinstance(value, int):
            parts.append(f"{value:,} {unit} a minute")
    return ", ".join(parts) or "none set"


def _used_by(profile: Profile) -> str:
    count = len(profile.uses)
    return "no scorer" if not count else plural(count, "scorer")


def _on_pick(profiles: dict[str, Profile]) -> None:
    chosen = state.peek(state.JUDGES_PICK) or None
    state.put(state.JUDGES_SELECTED, chosen)
    state.reset(state.JUDGES_CONNECTION)
    state.reset(state.JUDGES_CONFIRM_DELETE)
    profile = profiles.get(chosen or "")
    load_form(profile.form() if profile else new_judge())


def picker(profiles: list[Profile]) -> Profile | None:
    """Which judge the form shows (or a new one); the choice is kept in JUDGES_SELECTED. A
    new session opens on the judge in use (or the first saved), never on a blank new one."""
    by_name = {p.name: p for p in profiles}
    if not state.has(state.JUDGES_SELECTED):  # a new session opens on a saved judge
        uses = {p.name: p.uses for p in profiles}
        state.put(state.JUDGES_SELECTED, opening_judge(list(by_name), uses))
    wanted = state.get(state.JUDGES_SELECTED)
    if wanted not in by_name:
        wanted = None
        state.put(state.JUDGES_SELECTED, None)
    if state.peek(state.JUDGES_PICK, NEW) != (wanted or NEW):
        state.put(state.JUDGES_PICK, wanted or NEW)  # chosen by an action (save, delete)
    chosen = st.selectbox(
        "Judge to edit",
        [NEW, *by_name],
        format_func=lambda n: n or "+ New judge",
        key=state.JUDGES_PICK.name,
        on_change=_on_pick,
        args=(by_name,),
        help="Choose a saved judge to change, test or delete, or start a new one.",
    )
    return by_name.get(chosen or "")
