"""The studio's one wording of durations, money, counts and labels."""

from __future__ import annotations

import pytest

from scorer_runtime.types import OUTCOMES, RUN_STATUSES, STEP_ORDER
from studio.words import (
    OUTCOME_LABELS,
    RUN_STATUS_LABELS,
    STEP_TITLES,
    STEP_WORDS,
    UNPRICED_WHY,
    cost_caption,
    cost_help,
    cost_value,
    cost_words,
    format_cost,
    format_duration,
    noun,
    outcome_label,
    outcome_mix_words,
    plural,
    run_status_label,
    step_words,
)


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (None, "—"),
        (0.0, "0 ms"),
        (0.035, "35 ms"),
        (0.85, "850 ms"),
        (0.9996, "1 s"),
        (1.0, "1 s"),
        (1.234, "1.2 s"),
        (4.25, "4.2 s"),
        (6.5, "6.5 s"),
        (9.96, "10 s"),
        (42, "42 s"),
        (59.6, "1 min"),
        (120, "2 min"),
        (125, "2 min 5 s"),
        (185, "3 min 5 s"),
        (3600, "1 h"),
        (3720, "1 h 2 min"),
    ],
)
def test_a_duration_in_seconds_reads_like_people_say_it(seconds, words):
    assert format_duration(seconds) == words


def test_plurals_count_and_agree():
    assert plural(1, "trace") == "1 trace"
    assert plural(0, "trace") == "0 traces"
    assert plural(3, "trace") == "3 traces"
    assert plural(1200, "row") == "1,200 rows"
    assert plural(1, "row has", "rows have") == "1 row has"
    assert plural(2, "row has", "rows have") == "2 rows have"
    assert noun(1, "is", "are") == "is"
    assert noun(2, "is", "are") == "are"
    assert noun(2, "scorer") == "scorers"


def test_money_is_the_runtime_wording():
    assert format_cost(0.01234) == "$0.0123"
    assert format_cost(None) == "—"
    assert (
        str(cost_words(0.0123, 38, 2)) == "$0.0123 (38 of 40 results priced; the rest are unknown)"
    )


def test_metric_value_help_and_caption_of_each_case():
    partial = cost_words(0.0123, 38, 2)
    assert cost_value(partial) == "$0.0123"
    assert cost_help(partial).startswith("38 of 40 results priced; the rest are unknown: the")
    assert cost_caption(partial) == (
        "Judge cost: $0.0123 (38 of 40 results priced; the rest are unknown). " + UNPRICED_WHY
    )
    assert cost_caption(partial, so_far=True).startswith("Known cost so far: $0.0123 (38 of")
    unknown = cost_words(0.0, 0, 40)
    assert cost_value(unknown) == "Unknown"
    assert cost_caption(unknown, so_far=True).startswith("Cost so far: unknown (40 results on")
    priced = cost_words(0.5, 40, 0)
    assert (cost_value(priced), cost_caption(priced)) == ("$0.5000", None)
    free = cost_words(0.0, 0, 0)
    assert (cost_value(free), cost_caption(free)) == ("$0", None)
    assert "Nothing was spent on judge calls" in cost_help(free)


def test_every_outcome_status_and_step_has_its_words():
    assert set(OUTCOME_LABELS) == set(OUTCOMES)
    assert set(RUN_STATUS_LABELS) == set(RUN_STATUSES)
    assert set(STEP_TITLES) == set(STEP_WORDS) == set(STEP_ORDER)
    assert outcome_label("provider_error") == "Judge unavailable"
    assert outcome_label("something_new") == "something_new"
    assert run_status_label("failed") == "Stopped by an error"
    assert run_status_label(None) == ""
    assert step_words("generate_score") == "the scoring step"
    assert step_words("custom") == "custom"


def test_outcome_mix_in_words():
    counts = {"scored": 3, "not_scorable": 1, "step_error": 1, "provider_error": 2}
    assert outcome_mix_words(counts) == "3 scored, 1 not scorable, 3 failed"
    assert outcome_mix_words({}) == "no results yet"
