"""The scorer the person is working on (``state.CURRENT_SCORER_ID``), as pages that pick a
scorer follow it: Runs, Results, Compare runs and Export open on it, and picking or running a
scorer there makes it the current one.

Each page remembers in its own key which current scorer it last followed, so it moves to a
scorer saved in the builder (or picked on another page) once, and otherwise keeps what the
person chose on it (including "All scorers").
"""

from __future__ import annotations

from studio import state


def newly_current(followed: state.Key) -> int | None:
    """The current scorer when it changed since this page last followed it (it is then
    remembered as followed), else None: the page should switch to it now."""
    current = state.get(state.CURRENT_SCORER_ID)
    if current is None or current == state.get(followed):
        return None
    state.put(followed, current)
    return int(current)


def scorer_to_open(followed: state.Key, widget: state.Key) -> int | None:
    """The scorer a page's picker (``widget``) should switch to now: the current one when it
    changed, or when the picker holds no choice (a first visit; Streamlit forgets a widget's
    value while its page is not shown). None: keep what the picker holds."""
    changed = newly_current(followed)
    if changed is not None:
        return changed
    current = state.get(state.CURRENT_SCORER_ID)
    return None if current is None or state.has(widget) else int(current)


def work_on(scorer_id: int | None, followed: state.Key) -> None:
    """The person picked or ran this scorer on a page: it becomes the current one."""
    if scorer_id is None:
        return
    state.put(state.CURRENT_SCORER_ID, scorer_id)
    state.put(followed, scorer_id)
