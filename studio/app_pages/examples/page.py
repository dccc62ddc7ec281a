"""Examples: datasets of answers to judge, edited in a grid, imported from and exported to
CSV and JSONL."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.examples import data as examples_data
from studio.app_pages.examples.datasets import (
    TABS,
    archived,
    create_form,
    empty_page,
    overview,
    picker,
    settings,
)
from studio.app_pages.examples.export import export_section
from studio.app_pages.examples.file_import import import_section
from studio.app_pages.examples.grid import grid
from studio.widgets.common import page_header

state.show_flashes()
page_header(
    "Examples",
    "The answers your scorers judge: what was asked, what your AI answered, and the right "
    "answer when you know it.",
)
rows = examples_data.datasets()
current = None
if rows:
    pick, new = st.columns([4, 1], vertical_alignment="bottom")
    with pick:
        current = picker(rows)
    with new:
        create_form()
    if current.description:
        st.caption(current.description)
    overview(rows)

examples_tab, import_tab, export_tab, settings_tab = st.tabs(
    list(TABS), key=state.EXAMPLES_TAB.name, on_change="rerun"
)
if examples_tab.open:
    with examples_tab:
        if current is None:
            empty_page()
            create_form()
        else:
            grid(current)
if import_tab.open:
    with import_tab:
        import_section(current)
if export_tab.open:
    with export_tab:
        if current is None:
            st.info("Import or create a dataset first; then you can download it here.")
        else:
            export_section(current)
if settings_tab.open:
    with settings_tab:
        if current is not None:
            settings(current)
        else:
            st.info("There is no dataset to change yet.")
        archived()
