"""``state.choose_valid``: a drop-down's remembered choice that is no longer offered becomes
the first option, set in the session (so the browser shows it too), or goes when there is
none; a choice still offered is kept."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _app(remembered: object, options: list[int]) -> AppTest:
    def script(remembered: object, options: list[int]) -> None:
        import streamlit as st

        from studio import state

        key = state.Key("test.choice")
        if remembered is not None and "seeded" not in st.session_state:
            st.session_state["seeded"] = True
            state.put(key, remembered)
        state.choose_valid(key, options)
        st.write(repr(state.peek(key, "none")))

    return AppTest.from_function(script, args=(remembered, options)).run()


def test_a_choice_no_longer_offered_becomes_the_first_option() -> None:
    assert _app(7, [3, 2, 1]).markdown[0].value == "3"


def test_a_choice_still_offered_is_kept() -> None:
    assert _app(2, [3, 2, 1]).markdown[0].value == "2"


def test_no_option_leaves_no_choice() -> None:
    assert _app(7, []).markdown[0].value == "'none'"
