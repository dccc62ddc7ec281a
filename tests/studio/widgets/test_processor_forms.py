"""A judge's processors as form values (studio.widgets.processor_forms): round trips with the
spec, problems said in words with their place, and the previews the form shows."""

from __future__ import annotations

import pytest

from scorer_runtime.spec import JudgeSpec
from studio.widgets.processor_forms import (
    REFUSALS,
    ProcessorFormError,
    ProcessorsForm,
    Rule,
    before_preview,
    in_words,
    marks_in,
    processor_settings,
    processors_form,
    stopping_patterns,
)

EVERYTHING = {
    "redact_pii": {
        "kinds": ["email", "card"],
        "patterns": {"ticket": r"T-\d{6}"},
        "replacement": "<{name}>",
    },
    "truncate": {"max_tokens": 300, "keep": "both", "marker": "[cut]"},
    "output_guard": {
        "patterns": [*REFUSALS, r"I'm sorry\.", r"\bunable to (grade|rate)\b"],
        "message": "The judge refused.",
    },
}


def test_every_processor_setting_round_trips_through_the_form():
    form = processors_form(EVERYTHING)
    assert form.kinds == ["email", "card"]
    assert form.rules == [Rule("ticket", r"T-\d{6}")]
    assert (form.unit, form.budget, form.keep, form.marker) == ("tokens", 300, "both", "[cut]")
    assert form.refusals
    assert form.phrases == "I'm sorry."  # plain words, shown without escapes
    assert form.patterns == r"\bunable to (grade|rate)\b"
    assert processor_settings(form) == EVERYTHING
    # and the settings are a valid judge as a scorer file holds it
    assert (
        JudgeSpec.model_validate(EVERYTHING).model_dump(
            include=set(EVERYTHING), exclude_defaults=True
        )
        == EVERYTHING
    )


def test_defaults_and_off():
    assert processor_settings(ProcessorsForm()) == dict.fromkeys(
        ("redact_pii", "truncate", "output_guard")
    )
    on = ProcessorsForm(redact=True, shorten=True, guard=True)
    assert processor_settings(on) == {
        "redact_pii": {},
        "truncate": {"max_chars": 8000},
        "output_guard": {"patterns": list(REFUSALS)},
    }
    only_rules = ProcessorsForm(redact=True, kinds=[], rules=[Rule("order", r"#\d+")])
    assert processor_settings(only_rules)["redact_pii"] == {
        "patterns": {"order": r"#\d+"},
        "include_defaults": False,
    }
    assert processors_form(processor_settings(only_rules)).kinds == []


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        (
            ProcessorsForm(redact=True, rules=[Rule("ticket", "T-(")]),
            "Hide personal data: rule 'ticket' is not a valid pattern (missing ), "
            "unterminated subpattern); the problem is at character 3 ('(')",
        ),
        (
            ProcessorsForm(guard=True, refusals=False, patterns="ok\n(a+)+$"),
            "Stop on these answers: pattern on line 2 could take very long on a long text",
        ),
        (ProcessorsForm(shorten=True, budget=0), "Shorten long prompts: the budget must be more"),
        (ProcessorsForm(shorten=True, budget=-5), "than 0 characters (it is -5)"),
        (ProcessorsForm(shorten=True, budget=5), "the mark '…[truncated]' alone is longer"),
        (ProcessorsForm(redact=True, kinds=[]), "choose at least one kind of data to hide"),
        (ProcessorsForm(redact=True, rules=[Rule("", "x")]), "rule 1 needs a name"),
        (ProcessorsForm(guard=True, refusals=False), "tick the ready-made refusals"),
    ],
)
def test_problems_are_refused_in_words_with_their_place(form, expected):
    with pytest.raises(ProcessorFormError) as caught:
        processor_settings(form)
    assert any(expected in problem for problem in caught.value.problems), caught.value.problems


def test_previews_hide_then_cut_and_say_what_they_did():
    settings = {"redact_pii": {"kinds": ["email"]}, "truncate": {"max_chars": 40}}
    text = "Mail jane.doe@example.com or call +44 20 7946 0958 about order 12345 today"
    preview = before_preview(settings, text)
    assert preview.text == "Mail [REDACTED:email] or cal…[truncated]"  # 28 kept + the mark
    assert preview.notes[0] == "Hid 1 e-mail address, shown as [REDACTED:email]."
    hidden = len(text) - len("jane.doe@example.com") + len("[REDACTED:email]")
    assert preview.notes[1] == (
        f"Shortened from {hidden} to 40 characters: kept the start (28 characters)."
    )
    assert before_preview({}, text) == type(preview)(text, [])


def test_the_stop_list_is_tried_on_a_sample_answer():
    guard = processor_settings(ProcessorsForm(guard=True, phrases="out of scope"))["output_guard"]
    assert stopping_patterns(guard, "As an AI language model, I won't.") == [REFUSALS[0]]
    assert stopping_patterns(guard, "This is OUT OF SCOPE.") == ["out of scope"]
    assert stopping_patterns(guard, '{"verdict": "yes"}') == []


def test_the_order_in_words_and_the_marks_in_sent_messages():
    words = in_words(EVERYTHING)
    assert words[0] == "Hide personal data (e-mail addresses, payment card numbers, “ticket”)"
    assert words[1:3] == ["Shorten prompts longer than 300 tokens", "The judge reads and answers"]
    assert words[3] == "Stop on answers with refusals, “I'm sorry.”, “\\bunable to (grade|rate)\\b”"
    sent = [
        {"role": "system", "content": "Grade."},
        {"role": "user", "content": "Ticket <ticket> from <email> and <email> [cut] end"},
    ]
    assert marks_in(sent, EVERYTHING) == [
        "In the question: Hid 2 e-mail addresses, shown as <email>.",
        "In the question: Hid 1 match of “ticket”, shown as <ticket>.",
        "In the question: cut where '[cut]' stands.",
    ]
