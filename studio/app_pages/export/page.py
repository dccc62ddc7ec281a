"""Export & import: hand a scorer to engineers as Python, JSON or YAML; bring a file back in."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.export.download import render_export
from studio.app_pages.export.file_import import render_import
from studio.widgets.common import page_header

page_header(
    "Export & import",
    "Hand a scorer to engineers as readable Python or as a Mastra (TypeScript) module that "
    "gives the same scores, or share it as a JSON or YAML file that imports back into any "
    "Scorer Studio.",
)
state.show_flashes()
export_tab, import_tab = st.tabs(["Export a scorer", "Import a scorer file"])
with export_tab:
    render_export()
with import_tab:
    render_import()
