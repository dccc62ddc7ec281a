"""Scorers: every saved scorer, searchable, with its versions and what one can do with it."""

from __future__ import annotations

from studio import state
from studio.components.common import page_header
from studio.components.scorers_list import render_list

page_header(
    "Scorers",
    "Every scorer you have saved. Open one in the builder to change it, compare its versions, "
    "copy it, export it, or archive the ones you no longer use.",
)
state.show_flashes()
render_list()
