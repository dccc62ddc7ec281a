"""The Review page's logic without a browser: order, moves, and the words it shows."""

from __future__ import annotations

from scorer_runtime.store import JudgeVerdict
from scorer_runtime.trust import Scale
from studio.app_pages.review.logic import (
    agreement_words,
    grade_buttons,
    grade_words,
    grading_order,
    move,
    next_ungraded,
    progress_words,
    shown_text,
    verdict_words,
)

POLITENESS = Scale("labels", (("polite", 1.0), ("neutral", 0.5), ("rude", 0.0)))
NUMBER = Scale("number", low=0.0, high=10.0, pass_mark=5.0)


def _verdict(score: float | None, outcome: str = "scored", reason: str | None = None):
    return JudgeVerdict(1, 1, score, outcome, reason)  # type: ignore[arg-type]


def test_ungraded_examples_come_first_each_in_dataset_order() -> None:
    assert grading_order([1, 2, 3, 4, 5], {2, 4}) == [1, 3, 5, 2, 4]
    assert grading_order([], set()) == []


def test_moving_stops_at_either_end() -> None:
    order = [3, 1, 2]
    assert move(order, 1, 1) == 2
    assert move(order, 2, 1) == 2
    assert move(order, 3, -1) == 3
    assert move(order, 99, 1) == 1  # an example no longer there: from the start
    assert move([], None, 1) is None


def test_the_next_ungraded_example_wraps_round_and_none_when_all_are_graded() -> None:
    order = [1, 2, 3, 4]
    assert next_ungraded(order, 1, {1, 2}) == 3
    assert next_ungraded(order, 4, {2, 4}) == 1
    assert next_ungraded(order, 3, {1, 2, 3, 4}) is None
    assert next_ungraded(order, 3, {1, 2, 4}) is None  # only the current one is left


def test_grade_buttons_follow_the_scale_with_number_keys_up_to_nine() -> None:
    buttons = grade_buttons(POLITENESS)
    assert [(b.label, b.value, b.shortcut) for b in buttons] == [
        ("polite", 1.0, "1"),
        ("neutral", 0.5, "2"),
        ("rude", 0.0, "3"),
    ]
    many = Scale("labels", tuple((f"g{i}", float(i)) for i in range(11, 0, -1)))
    assert [b.shortcut for b in grade_buttons(many)][8:] == ["9", None, None]
    assert [b.label for b in grade_buttons(Scale("pass_fail"))] == ["pass", "fail"]


def test_a_number_scale_has_five_steps_on_keys_one_to_five_lowest_first() -> None:
    unit = Scale("number")
    assert [(b.label, b.value, b.shortcut) for b in grade_buttons(unit)] == [
        ("0 (fail)", 0.0, "1"),
        ("0.25 (fail)", 0.25, "2"),
        ("0.5 (pass)", 0.5, "3"),
        ("0.75 (pass)", 0.75, "4"),
        ("1 (pass)", 1.0, "5"),
    ]
    # The steps follow the scale's range; pass or fail follows its own pass mark.
    assert [(b.label, b.value) for b in grade_buttons(NUMBER)] == [
        ("0 (fail)", 0.0),
        ("2.5 (fail)", 2.5),
        ("5 (pass)", 5.0),
        ("7.5 (pass)", 7.5),
        ("10 (pass)", 10.0),
    ]
    strict = grade_buttons(unit.with_pass_mark(0.8))
    assert [b.label for b in strict][3:] == ["0.75 (fail)", "1 (pass)"]
    thirds = Scale("number", low=1.0, high=2.0)
    assert [b.value for b in grade_buttons(thirds)] == [1.0, 1.25, 1.5, 1.75, 2.0]


def test_words_for_progress_grades_and_the_judge() -> None:
    assert progress_words(12, 40) == "12 of 40 graded"
    assert grade_words(POLITENESS, 0.5) == "neutral"
    assert grade_words(NUMBER, 7.5) == "7.5 (pass)"
    assert verdict_words(POLITENESS, _verdict(0.0)) == "The judge said **rude** (score 0)."
    assert verdict_words(POLITENESS, None).startswith("The judge has not scored this example")
    assert verdict_words(POLITENESS, _verdict(None, "provider_error", "rate limited")) == (
        "The judge could not score this example: rate limited."
    )
    assert agreement_words(POLITENESS, 1.0, _verdict(0.0)) == "You disagree."
    assert agreement_words(NUMBER, 6.0, _verdict(9.0)) == "You agree."
    assert agreement_words(NUMBER, 6.0, None) == ""


def test_values_are_shown_as_text_to_read() -> None:
    assert shown_text("hello") == "hello"
    assert shown_text(None) == ""
    assert shown_text(["30 days", "free label"]) == "• 30 days\n• free label"
    assert shown_text({"a": 1}) == '{\n  "a": 1\n}'
    agent_output = [{"role": "assistant", "content": "It ships today."}]
    assert shown_text(agent_output) == "Agent: It ships today."
