"""The one processors form: what happens "before the judge reads it" (hide personal data,
shorten long prompts) and "after the judge answers" (stop on these answers), asked the same
way on the Judges page and in the builder (the scorer's judge, a step's own judge).

Like the retry form, every widget's key is a member of the family ``key`` and its value lives
in session state, written before the widget is drawn: values survive reruns, a page can load
another judge into the widgets, and a field Streamlit forgot while hidden comes back.
Each part shows what it does on a sample text (the chosen example's prompt in the builder).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, fields
from typing import Any

import streamlit as st

from studio import state
from studio.widgets.processor_forms import (
    KEEP,
    KINDS,
    ORDER_NOTE,
    PROCESSOR_FIELDS,
    SAMPLE_ANSWER,
    SAMPLE_TEXT,
    UNITS,
    ProcessorFormError,
    ProcessorsForm,
    Rule,
    before_preview,
    in_words,
    processor_settings,
    processors_form,
    stopping_patterns,
)

_SIMPLE = [f.name for f in fields(ProcessorsForm) if f.name not in ("kinds", "rules")]


def load_processors_form(
    form: ProcessorsForm, *, key: state.Key, missing_only: bool = False
) -> None:
    """Put a form's values into the widgets under ``key``; call it before they are drawn.
    ``missing_only`` fills only the values Streamlit has forgotten."""
    values: dict[str, Any] = {name: getattr(form, name) for name in _SIMPLE}
    values |= {f"kind.{k}": k in form.kinds for k in KINDS}
    rules = form.rules or [Rule()]
    values["rule_count"] = len(rules)
    for index, rule in enumerate(rules):
        values[f"rule.{index}.name"], values[f"rule.{index}.pattern"] = rule.name, rule.pattern
    for suffix, value in values.items():
        if not (missing_only and state.has(key.child(suffix))):
            state.put(key.child(suffix), value)


def read_processors_form(*, key: state.Key) -> ProcessorsForm:
    """The form as the widgets under ``key`` hold it now."""
    default = asdict(ProcessorsForm())
    values = {name: state.peek(key.child(name), default[name]) for name in _SIMPLE}
    count = int(state.peek(key.child("rule_count"), 0) or 0)
    rules = [
        Rule(
            str(state.peek(key.child(f"rule.{i}.name"), "") or ""),
            str(state.peek(key.child(f"rule.{i}.pattern"), "") or ""),
        )
        for i in range(count)
    ]
    kinds = [k for k in KINDS if state.peek(key.child(f"kind.{k}"), True)]
    return ProcessorsForm(**values, kinds=kinds, rules=rules)


def render_processors(
    settings: Mapping[str, Any],
    *,
    key: state.Key,
    sample: str | None = None,
    before: bool = True,
    after: bool = True,
) -> dict[str, Any]:
    """Draw the form for a judge's ``settings`` (a JudgeSpec dict; only its processor fields
    are read) and return the processor fields it now holds, each None when off.

    A value that cannot be used is explained next to its field, and the settings given are
    returned unchanged until it is fixed. Settings the fields leave as they were come back
    exactly as given. ``sample`` is the text the previews start from (the example's prompt).
    ``before``/``after`` False leaves that part out (its settings are returned as given).
    """
    given = {name: settings.get(name) for name in PROCESSOR_FIELDS}
    load_processors_form(processors_form(given), key=key, missing_only=True)
    _sample(key, sample or SAMPLE_TEXT)
    if before:
        st.markdown("##### Before the judge reads it")
        _redaction(key)
        _shortening(key)
    current = _current(key, before=before, after=after)
    shown = _merged(current, given, before=before, after=after)
    if before:
        _order(key, shown)
    if after:
        st.markdown("##### After the judge answers")
        _stopping(key, shown)
    if current is None or current == _current_of(processors_form(given)):
        return given  # unusable, or untouched: keep the settings exactly as written
    return shown


def _merged(
    current: dict[str, Any] | None, given: dict[str, Any], *, before: bool, after: bool
) -> dict[str, Any]:
    if current is None:
        return given
    merged = dict(given)
    if before:
        merged |= {"redact_pii": current["redact_pii"], "truncate": current["truncate"]}
    if after:
        merged["output_guard"] = current["output_guard"]
    return merged


def _current(key: state.Key, *, before: bool = True, after: bool = True) -> dict[str, Any] | None:
    form = read_processors_form(key=key)
    # A part left out is read as off here (and as given by the caller), never from the
    # values its hidden widgets may still hold.
    form.redact, form.shorten = form.redact and before, form.shorten and before
    form.guard = form.guard and after
    try:
        return processor_settings(form)
    except ProcessorFormError as error:
        for problem in error.problems:
            st.error(problem, icon=":material/edit_note:")
        return None


def _current_of(form: ProcessorsForm) -> dict[str, Any] | None:
    try:
        return processor_settings(form)
    except ProcessorFormError:
        return None


def _sample(key: state.Key, sample: str) -> None:
    """Start the preview boxes from ``sample``, and again whenever it changes."""
    if state.peek(key.child("sample_from")) != sample:
        state.put(key.child("sample_from"), sample)
        state.put(key.child("sample"), sample)
    if not state.has(key.child("answer")):
        state.put(key.child("answer"), SAMPLE_ANSWER)


def _redaction(key: state.Key) -> None:
    on = st.toggle(
        "Hide personal data",
        key=key.child("redact").name,
        help="Replaces personal data with a label (such as [REDACTED:email]) in everything "
        "sent to the judge, so the judge's provider never sees it.",
    )
    if not on:
        return
    st.caption("What to hide")
    columns = st.columns(2)  # two by two: the labels fit the builder's narrower column too
    for index, kind in enumerate(KINDS):
        columns[index % 2].checkbox(KINDS[kind], key=key.child(f"kind.{kind}").name)
    st.text_input(
        "Shown instead",
        key=key.child("replacement").name,
        help="{name} becomes the kind of data, e.g. [REDACTED:email]. Leave out {name} to "
        "show the same text for everything.",
    )
    with st.expander("Advanced: hide text of your own (patterns)", key=key.child("adv").name):
        _rules(key)


def _rules(key: state.Key) -> None:
    st.caption(
        "A rule hides every piece of text that matches its pattern (a regular expression). "
        "For example, the pattern T-\\d{6} hides ticket numbers like T-123456. The name is "
        "shown in the label."
    )
    count = int(state.peek(key.child("rule_count"), 1) or 1)
    for index in range(count):
        name, pattern, remove = st.columns([3, 5, 2], vertical_alignment="bottom")
        name.text_input(
            f"Rule {index + 1}: name",
            key=key.child(f"rule.{index}.name").name,
            placeholder="ticket",
        )
        pattern.text_input(
            f"Rule {index + 1}: pattern",
            key=key.child(f"rule.{index}.pattern").name,
            placeholder="T-\\d{6}",
        )
        remove.button(
            "Remove",
            key=key.child(f"rule.{index}.remove").name,
            on_click=_remove_rule,
            args=(key, index),
        )
    st.button("Add a rule", key=key.child("rule_add").name, on_click=_add_rule, args=(key,))


def _add_rule(key: state.Key) -> None:
    count = int(state.peek(key.child("rule_count"), 1) or 1)
    state.put(key.child(f"rule.{count}.name"), "")
    state.put(key.child(f"rule.{count}.pattern"), "")
    state.put(key.child("rule_count"), count + 1)


def _remove_rule(key: state.Key, index: int) -> None:
    form = read_processors_form(key=key)
    rules = form.rules[:index] + form.rules[index + 1 :]
    form.rules = rules or [Rule()]
    load_processors_form(form, key=key)


def _shortening(key: state.Key) -> None:
    on = st.toggle(
        "Shorten long prompts",
        key=key.child("shorten").name,
        help="Cuts a question that is longer than the budget, so a very long answer cannot "
        "make the judge request fail or cost too much. The judge's instructions are never cut.",
    )
    if not on:
        return
    budget, unit = st.columns([2, 3])
    budget.number_input("Longest prompt", key=key.child("budget").name, step=500)
    unit.selectbox(
        "Counted in", list(UNITS), format_func=UNITS.__getitem__, key=key.child("unit").name
    )
    st.radio(
        "Which part to keep",
        list(KEEP),
        format_func=KEEP.__getitem__,
        horizontal=True,
        key=key.child("keep").name,
    )
    st.text_input(
        "Mark where text was cut",
        key=key.child("marker").name,
        help="Put in place of the text that was cut, so the judge knows something is missing.",
    )


def _order(key: state.Key, settings: Mapping[str, Any]) -> None:
    steps = in_words(settings)
    if steps:
        both = settings.get("redact_pii") is not None and settings.get("truncate") is not None
        note = ORDER_NOTE if both else ""
        st.caption(
            "In this order: "
            + " → ".join(f"{i}. {s}" for i, s in enumerate(steps, start=1))
            + f". {note}"
        )
    if settings.get("redact_pii") is None and settings.get("truncate") is None:
        return
    with st.expander("See what the judge would read", expanded=True):
        sample = st.text_area("Text to try it on", key=key.child("sample").name, height=100)
        preview = before_preview(settings, str(sample or ""))
        st.caption("What the judge would read")
        st.code(preview.text, language=None, wrap_lines=True)
        st.caption("  \n".join(preview.notes or ["Nothing to hide or cut in this text."]))


def _stopping(key: state.Key, settings: Mapping[str, Any]) -> None:
    on = st.toggle(
        "Stop on these answers",
        key=key.child("guard").name,
        help="When the judge answers with one of these, the example is marked as failed with "
        "your message, instead of being scored from an answer that is not a grade.",
    )
    if not on:
        return
    st.checkbox(
        "When the judge refuses (“As an AI language model…”, “I cannot help with that”)",
        key=key.child("refusals").name,
    )
    st.text_area(
        "Also stop when the answer contains (one per line)",
        key=key.child("phrases").name,
        placeholder="I'm sorry, but\nI don't have enough information",
        height=80,
        help="Exact words; case does not matter.",
    )
    with st.expander("Advanced: stop on patterns", key=key.child("guard_adv").name):
        st.text_area(
            "Patterns (one per line)",
            key=key.child("patterns").name,
            placeholder="\\bunable to (grade|evaluate)\\b",
            height=80,
            help="Regular expressions, case does not matter.",
        )
    st.text_input(
        "Message shown when an answer is stopped",
        key=key.child("message").name,
        placeholder="The judge refused to grade this answer.",
        help="What people see on the score instead of a grade. Leave empty for a message "
        "that names the pattern.",
    )
    guard = settings.get("output_guard")
    if guard is None:
        return
    answer = st.text_area("Try it on an answer", key=key.child("answer").name, height=68)
    matched = stopping_patterns(guard, str(answer or ""))
    if matched:
        shown = str(settings["output_guard"].get("message") or "the judge's answer was stopped")
        st.warning(
            f"This answer would be stopped (it matches {matched[0]!r}). People would see: "
            f"“{shown}”.",
            icon=":material/block:",
        )
    else:
        st.success("This answer would pass to the scorer.", icon=":material/check:")
