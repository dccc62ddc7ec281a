"""Judges: saved judge profiles (model, address, where the key is kept, how it grades, retries),
with a connection test."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.judges import data as judges_data
from studio.app_pages.judges.actions import buttons
from studio.app_pages.judges.form import ensure_loaded, new_judge, render
from studio.app_pages.judges.listing import picker, table
from studio.widgets.common import empty_state, page_header

state.show_flashes()
page_header(
    "Judges",
    "A judge is the AI model that reads answers and grades them. Save its settings once "
    "here, then use it in any scorer by name.",
)
profiles = judges_data.profiles()
if profiles:
    table(profiles)
else:
    empty_state(
        "**No judges yet.** A judge profile says which model grades (for example OpenAI's "
        "gpt-4o-mini or a local Llama), where to reach it, where its key is kept (the name of "
        "a setting, never the key itself), and what to do when a request fails. Fill in the "
        "form below, test the connection, and save."
    )
profile = picker(profiles)
form = profile.form() if profile else new_judge()
ensure_loaded(form)
with st.container(border=True):
    st.subheader(profile.name if profile else "New judge")
    render(editing=profile is not None, kept=form.kept)
    buttons(profile, [p.name for p in profiles])
