"""Score history for the Results and Compare runs tests (defined in ``tests/store/history.py``,
shared with the store's tests of the same queries).

Not a test module of its own: the other ``test_results*``/``test_compare*`` modules import
:func:`seed_history` from here.
"""

from tests.store.history import (
    DAY0,
    OTHER_SIZE,
    SUPPORT_SIZE,
    History,
    add_stability_repeats,
    seed_history,
    v1_score,
    v2_score,
)

__all__ = [
    "DAY0",
    "OTHER_SIZE",
    "SUPPORT_SIZE",
    "History",
    "add_stability_repeats",
    "seed_history",
    "v1_score",
    "v2_score",
]
