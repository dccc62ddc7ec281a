"""The "Load the demo scorers and datasets" action of an empty studio (Home and Runs offer
it): loads them only into an empty database and says what was loaded."""

from __future__ import annotations

from scorer_runtime.saved_scorers import load_demo
from studio import services, state
from studio.widgets.common import show_error


def load_demo_data() -> None:
    """Load the demo scorers and datasets into an empty database, and say what was loaded."""
    try:
        with services.writing() as session:
            result = load_demo(session, only_into_empty=True)
    except Exception as error:  # shown in plain words; nothing was written
        show_error(error)
        return
    if result.skipped_reason:
        state.flash(f"Nothing loaded: {result.skipped_reason}.", icon=":material/info:")
    else:
        state.flash(
            f"Loaded {len(result.scorers)} demo scorers and {len(result.datasets)} datasets."
        )
