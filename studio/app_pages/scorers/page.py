"""Scorers: every saved scorer, searchable, with its versions and what one can do with it."""

from __future__ import annotations

from studio import state
from studio.app_pages.scorers.listing import render_list
from studio.widgets.common import page_header

page_header(
    "Scorers",
    "Every scorer you have saved. Open one in the builder to change it, compare its versions, "
    "copy it, export it, or archive the ones you no longer use.",
)
state.show_flashes()
render_list()
