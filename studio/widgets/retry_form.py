"""The one retry-policy form: how failed judge requests are retried, asked the same way in
the builder (the scorer's judge, a step's own judge) and on the Judges page.

Every widget's key is a member of the family ``key`` (``key.child("retries")``…) and its
value lives in session state, written before the widget is drawn (never passed as
``value=``): so values survive reruns, a page can load another policy into the widgets, and
a field Streamlit forgot while it was hidden comes back with the value of the policy given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from studio import state
from studio.widgets.forms import RetryForm, RetryFormError, describe_retry, retry_form, retry_policy

_FIELDS = {
    "retries": "max_retries",
    "growing": "growing",
    "first": "first_wait_s",
    "factor": "factor",
    "longest": "longest_wait_s",
    "cap": "retry_after_cap_s",
    "statuses": "extra_statuses",
    "texts": "extra_texts",
    "unknown": "retry_unknown",
}
"""Widget key suffix -> RetryForm field."""
_DEFAULTS = RetryForm()


def _widget_value(name: str, value: Any) -> Any:
    # number_input refuses an int value with float limits (and the other way round).
    default = getattr(_DEFAULTS, name)
    if isinstance(default, float):
        return float(value)
    return int(value) if type(default) is int else value


def load_retry_form(form: RetryForm | None, *, key: state.Key, missing_only: bool = False) -> None:
    """Put a retry form's values into the widgets under ``key`` (None: retries off); call it
    before they are drawn. ``missing_only`` fills only the values Streamlit has forgotten."""
    values: dict[str, Any] = {"on": form is not None}
    current = form or RetryForm()
    values |= {s: _widget_value(n, getattr(current, n)) for s, n in _FIELDS.items()}
    for suffix, value in values.items():
        if not (missing_only and state.has(key.child(suffix))):
            state.put(key.child(suffix), value)


def read_retry_form(*, key: state.Key) -> RetryForm | None:
    """The retry form as the widgets under ``key`` hold it now (None: retries are off)."""
    if not state.peek(key.child("on")):
        return None
    return RetryForm(
        **{n: state.peek(key.child(s), getattr(_DEFAULTS, n)) for s, n in _FIELDS.items()}
    )


def render_retry_form(
    policy: Mapping[str, Any] | None,
    *,
    key: state.Key,
    label: str = "Retry failed judge requests",
) -> dict[str, Any] | None:
    """Draw the retry form for ``policy`` (a ``RetryPolicySpec`` dict; None: no retries) and
    return the policy it now holds, None when retries are off.

    The policy is said in words as it changes. A value that cannot be used (a status code
    like "busy") is explained next to the fields, and the policy given is returned unchanged
    until it is fixed. A policy the fields leave as it was comes back exactly as given.
    """
    try:
        given = retry_form(policy)
    except RetryFormError as error:
        st.warning(
            "This retry policy could not be read (" + "; ".join(error.problems) + "). The "
            "fields show the usual values; change them to replace it.",
            icon=":material/warning:",
        )
        given = RetryForm()
    load_retry_form(given, key=key, missing_only=True)
    on = st.toggle(
        label,
        key=key.child("on").name,
        help="Retries one failed request to the judge (never the whole scorer): rate limits, "
        "busy servers and dropped connections. A wrong key or a bad request is never retried.",
    )
    if not on:
        st.caption(describe_retry(None))
        return None
    _timing(key)
    _more(key, open_=given is not None and _has_extras(given))
    form = read_retry_form(key=key) or RetryForm()
    try:
        result = retry_policy(form)
    except RetryFormError as error:
        for problem in error.problems:
            st.error(problem, icon=":material/edit_note:")
        return dict(policy) if policy is not None else {}  # {}: the usual policy
    st.info(describe_retry(result), icon=":material/replay:")
    if given is not None and policy is not None and result == retry_policy(given):
        return dict(policy)  # untouched: keep the policy exactly as it was written
    return result


def _has_extras(form: RetryForm) -> bool:
    return bool(form.extra_statuses or form.extra_texts or form.retry_unknown)


def _timing(key: state.Key) -> None:
    left, middle, right = st.columns(3)
    left.number_input(
        "Retries",
        key=key.child("retries").name,
        min_value=0,
        max_value=20,
        step=1,
        help="How many times one request is tried again (attempts = 1 + this).",
    )
    middle.number_input(
        "First wait (seconds)",
        key=key.child("first").name,
        min_value=0.0,
        max_value=600.0,
        step=0.5,
        help="The wait before the first retry.",
    )
    right.number_input(
        "Longest wait to honour from the provider (seconds)",
        key=key.child("cap").name,
        min_value=0.0,
        max_value=600.0,
        step=5.0,
        help="Providers may say how long to wait (Retry-After); waits longer "
        "than this are cut short.",
    )
    growing = st.checkbox(
        "Wait longer after each failure",
        key=key.child("growing").name,
        help="Multiply the wait each time (e.g. 1 s, 2 s, 4 s) instead of waiting the same time.",
    )
    if growing:
        factor, longest = st.columns(2)
        factor.number_input(
            "Multiply the wait by",
            key=key.child("factor").name,
            min_value=1.0,
            max_value=10.0,
            step=0.5,
            help="2 doubles the wait each time.",
        )
        longest.number_input(
            "Longest wait (seconds)",
            key=key.child("longest").name,
            min_value=0.0,
            max_value=600.0,
            step=1.0,
            help="Waits never grow beyond this.",
        )


def _more(key: state.Key, *, open_: bool) -> None:
    with st.expander(
        "More: which other errors to retry", expanded=open_, key=key.child("more").name
    ):
        st.text_input(
            "Also retry these HTTP status codes",
            key=key.child("statuses").name,
            placeholder="529, 520",
            help="Codes your provider uses for 'busy, try again', separated by commas.",
        )
        st.text_area(
            "Also retry errors whose message contains",
            key=key.child("texts").name,
            placeholder="overloaded\ntry again later",
            height=80,
            help="One text per line; case does not matter.",
        )
        st.checkbox(
            "Also retry errors of unknown kind",
            key=key.child("unknown").name,
            help="Retries failures that are not known to be temporary. A wrong or "
            "missing key is still never retried.",
        )
