"""Text built-ins on realistic answers: matching, keywords, regex, length, similarity, numbers."""

from __future__ import annotations

import pytest

from scorer_runtime import NotScorable, ScorerRun, StepResults, create_scorer
from scorer_runtime.spec.builtins import (
    BuiltinStepError,
    contains,
    exact_match,
    excludes,
    keyword_coverage,
    length_bounds,
    numeric_closeness,
    regex_match,
    text_difference,
    text_similarity,
)
from scorer_runtime.spec.registry import StepParamsError

REFUND_ANSWER = (
    "You can return any unworn item within 30 days. The refund goes back to your original "
    "payment method within 5-7 business days."
)
AGENT_OUTPUT = [
    {
        "role": "assistant",
        "content": {
            "format": 2,
            "parts": [
                {
                    "type": "tool-invocation",
                    "toolInvocation": {
                        "state": "result",
                        "toolCallId": "c1",
                        "toolName": "search_docs",
                        "args": {"query": "refund"},
                        "result": {"passages": ["Refunds take 5-7 business days."]},
                    },
                }
            ],
        },
    },
    {"role": "assistant", "content": "Your refund arrives within 5-7 business days."},
]


def call(step, output, ground_truth=None, input="question", results=None):
    run = ScorerRun(input=input, output=output, run_id="r1", ground_truth=ground_truth)
    return step(run=run, results=results or StepResults())


# -- exact match ----------------------------------------------------------------------------


def test_exact_match_against_ground_truth_ignores_outer_whitespace():
    step = exact_match()
    assert call(step, "  billing \n", ground_truth="billing") == 1.0
    assert call(step, "Billing", ground_truth="billing") == 0.0
    assert call(exact_match(case_sensitive=False), "Billing", ground_truth="billing") == 1.0


def test_exact_match_accepts_any_of_several_answers_and_a_fixed_expected_value():
    assert call(exact_match(), "Paris", ground_truth=["Paris", "Paris, France"]) == 1.0
    assert call(exact_match(expected="yes"), "yes") == 1.0
    assert call(exact_match(expected=["yes", "y"]), "no") == 0.0


def test_exact_match_without_ground_truth_is_not_scorable():
    result = call(exact_match(), "billing", ground_truth=None)
    assert isinstance(result, NotScorable)
    assert result.reason == "exact_match: there is no ground_truth to compare with"


def test_exact_match_on_empty_output_scores_zero():
    assert call(exact_match(), "", ground_truth="billing") == 0.0


def test_exact_match_reads_a_previous_result_by_path():
    step = exact_match(field="results.analyze_step_result.category", expected="billing")
    results = StepResults(analyze_step_result={"category": "Billing "})
    assert call(step, "ignored", results=results) == 0.0
    step = exact_match(field="results.analyze_step_result.category", expected="Billing")
    assert call(step, "ignored", results=results) == 1.0


def test_a_missing_path_is_a_clear_error_naming_what_is_there():
    step = exact_match(field="results.analyze_step_result.categry", expected="billing")
    results = StepResults(analyze_step_result={"category": "billing", "confidence": 0.9})
    with pytest.raises(BuiltinStepError) as caught:
        call(step, "x", results=results)
    message = str(caught.value)
    assert "exact_match: cannot read 'results.analyze_step_result.categry'" in message
    assert "has the keys: category, confidence" in message


def test_a_path_into_a_step_that_has_not_run_says_so():
    step = contains(values=["x"], field="results.preprocess_step_result.text")
    with pytest.raises(BuiltinStepError, match="preprocess_step_result is empty"):
        call(step, "x")


# -- contains / excludes --------------------------------------------------------------------


def test_contains_any_and_all():
    assert call(contains(values=["refund", "exchange"]), REFUND_ANSWER) == 1.0
    assert call(contains(values=["refund", "exchange"], mode="all"), REFUND_ANSWER) == 0.0
    assert call(contains(values=["refund", "30 days"], mode="all"), REFUND_ANSWER) == 1.0


def test_contains_case_and_whole_words():
    assert call(contains(values=["REFUND"]), REFUND_ANSWER) == 1.0
    assert call(contains(values=["REFUND"], case_sensitive=True), REFUND_ANSWER) == 0.0
    assert call(contains(values=["pay"]), REFUND_ANSWER) == 1.0
    assert call(contains(values=["pay"], whole_words=True), REFUND_ANSWER) == 0.0
    assert call(contains(values=["5-7"], whole_words=True), REFUND_ANSWER) == 1.0


def test_contains_on_empty_output_is_zero():
    assert call(contains(values=["refund"]), "") == 0.0
    assert call(contains(values=["refund"]), None) == 0.0


def test_excludes_flags_rude_answers():
    rude = "Calm down. Packages get delayed, that's not our fault."
    step = excludes(values=["calm down", "not our fault", "obviously"])
    assert call(step, rude) == 0.0
    assert call(step, REFUND_ANSWER) == 1.0
    assert call(step, "") == 1.0
    some = excludes(values=["calm down", "obviously"], mode="any")
    assert call(some, rude) == 1.0


def test_contains_reads_the_assistant_text_of_agent_messages():
    assert call(contains(values=["5-7 business days"]), AGENT_OUTPUT) == 1.0
    # tool results are not the assistant's words
    assert call(contains(values=["passages"]), AGENT_OUTPUT) == 0.0


def test_contains_reads_dict_outputs_as_json_text():
    assert call(contains(values=['"status": "ok"']), {"status": "ok"}) == 1.0


@pytest.mark.parametrize("values", [[], [""]])
def test_contains_needs_non_empty_values(values):
    with pytest.raises(StepParamsError, match="values"):
        contains(values=values)


# -- regex ----------------------------------------------------------------------------------


def test_regex_search_and_whole_text():
    step = regex_match(pattern=r"\d+-\d+ business days")
    assert call(step, REFUND_ANSWER) == 1.0
    assert call(step, "Refunds are quick.") == 0.0
    whole = regex_match(pattern=r"[A-Z]\d{4}", whole_text=True)
    assert call(whole, "A1042") == 1.0
    assert call(whole, "Order A1042") == 0.0


def test_regex_flags():
    assert call(regex_match(pattern="^refund", ignore_case=True), "Refund issued") == 1.0
    assert call(regex_match(pattern="^thanks$", multiline=True), "Hi\nthanks\nBye") == 1.0
    assert call(regex_match(pattern="a.b", dot_all=True), "a\nb") == 1.0
    assert call(regex_match(pattern="a.b"), "a\nb") == 0.0


def test_invalid_regex_names_the_field():
    with pytest.raises(StepParamsError) as caught:
        regex_match(pattern="(unclosed")
    [(path, message)] = caught.value.problems
    assert path == "pattern"
    assert message.startswith("not a valid regular expression: missing )")


def test_regex_pattern_length_is_bounded():
    with pytest.raises(StepParamsError, match="pattern: String should have at most 500"):
        regex_match(pattern="a" * 501)


# -- keyword coverage -----------------------------------------------------------------------


def test_keyword_coverage_is_the_fraction_found():
    step = keyword_coverage(keywords=["30 days", "refund", "receipt", "original payment"])
    assert call(step, REFUND_ANSWER) == 0.75
    assert call(step, "") == 0.0


def test_keyword_coverage_counts_repeated_keywords_once():
    assert call(keyword_coverage(keywords=["Refund", "refund", "days"]), "refund") == 0.5
    sensitive = keyword_coverage(keywords=["Refund", "refund"], case_sensitive=True)
    assert call(sensitive, "refund") == 0.5


def test_keyword_coverage_whole_words():
    step = keyword_coverage(keywords=["art", "party"], whole_words=True)
    assert call(step, "Join the party!") == 0.5
    assert call(keyword_coverage(keywords=["art", "party"]), "Join the party!") == 1.0


def test_keyword_coverage_on_agent_output_and_agent_input():
    assert call(keyword_coverage(keywords=["refund", "5-7"]), AGENT_OUTPUT) == 1.0
    agent_input = {"inputMessages": [{"role": "user", "content": "Where is my refund?"}]}
    step = keyword_coverage(keywords=["refund", "order"], field="input")
    assert call(step, "x", input=agent_input) == 0.5


def test_keyword_coverage_reads_ground_truth_lists_as_text():
    step = keyword_coverage(keywords=["30 days"], field="ground_truth")
    assert call(step, "x", ground_truth=["30 days", "unworn"]) == 1.0


# -- length bounds --------------------------------------------------------------------------


def test_length_bounds_strict_words():
    step = length_bounds(min=5, max=30)
    assert call(step, REFUND_ANSWER) == 1.0
    assert call(step, "Yes.") == 0.0
    assert call(step, "") == 0.0
    assert call(length_bounds(max=3), "") == 1.0


def test_length_bounds_soft_and_characters():
    assert call(length_bounds(min=10, scoring="soft"), "one two three four five") == 0.5
    assert call(length_bounds(max=10, unit="characters", scoring="soft"), "x" * 40) == 0.25
    assert call(length_bounds(min=1, max=3, unit="characters"), "abc") == 1.0


@pytest.mark.parametrize(
    ("params", "problem"),
    [({}, "give a minimum, a maximum, or both"), ({"min": 9, "max": 3}, "is larger than")],
)
def test_length_bounds_needs_sensible_bounds(params, problem):
    with pytest.raises(StepParamsError, match=problem):
        length_bounds(**params)


# -- similarity / difference ----------------------------------------------------------------


def test_text_similarity_methods():
    ref = "The capital of France is Paris"
    assert call(text_similarity(), ref.upper() + "!", ground_truth=ref) == 1.0
    shuffled = "Paris is the capital of France"
    assert call(text_similarity(), shuffled, ground_truth=ref) < 0.8
    assert call(text_similarity(method="token_sort_ratio"), shuffled, ground_truth=ref) == 1.0
    extra = "Paris, a lovely city, is the capital of France"
    assert call(text_similarity(method="token_set_ratio"), extra, ground_truth=ref) == 1.0
    assert call(text_similarity(normalize=False), ref.upper(), ground_truth=ref) < 0.5


def test_text_similarity_picks_the_closest_reference_and_handles_empties():
    refs = ["Paris", "The city of Paris"]
    assert call(text_similarity(), "paris", ground_truth=refs) == 1.0
    assert call(text_similarity(), "", ground_truth="Paris") == 0.0
    assert call(text_similarity(reference="hello"), "hello") == 1.0
    missing = call(text_similarity(), "Paris")
    assert isinstance(missing, NotScorable)
    assert "no ground_truth" in (missing.reason or "")


def test_text_difference_lists_changes():
    diff = call(
        text_difference(),
        "Refunds take 30 business days to arrive",
        ground_truth="Refunds take 5-7 business days",
    )
    assert diff["change_count"] == 2
    assert diff["changes"] == [
        {"change": "replaced", "expected": "5-7", "actual": "30"},
        {"change": "added", "expected": "", "actual": "to arrive"},
    ]
    assert 0 < diff["distance"] < 1
    assert diff["similarity"] == pytest.approx(1 - diff["distance"])


def test_text_difference_same_text_and_characters():
    same = call(text_difference(), "Hello World", ground_truth="hello world")
    assert same == {"distance": 0.0, "similarity": 1.0, "change_count": 0, "changes": []}
    chars = call(text_difference(unit="characters", normalize=False), "cat", ground_truth="cut")
    assert chars["changes"] == [{"change": "replaced", "expected": "u", "actual": "a"}]
    removed = call(text_difference(max_changes=1), "", ground_truth="a b")
    assert removed["distance"] == 1.0
    assert removed["changes"] == [{"change": "removed", "expected": "a b", "actual": ""}]


def test_text_difference_as_analyze_step_feeds_a_score():
    scorer = (
        create_scorer(id="diff", description="closeness to the reference")
        .analyze(text_difference())
        .generate_score(lambda results: results.analyze_step_result["similarity"])
    )
    result = scorer.run_sync(output="Paris is big", ground_truth="Paris is large")
    assert result.analyze_step_result["changes"][0]["actual"] == "big"
    assert result.score == pytest.approx(2 / 3)
    unscorable = scorer.run_sync(output="Paris")
    assert unscorable.score is None
    assert unscorable.not_scorable is not None
    assert unscorable.not_scorable.step == "analyze"


# -- numeric closeness ----------------------------------------------------------------------


def test_numeric_closeness_reads_numbers_in_text():
    step = numeric_closeness()
    assert call(step, "The total is 1,234.50 dollars.", ground_truth=1234.5) == 1.0
    assert call(step, "It takes 42 days", ground_truth="42") == 1.0
    assert call(step, "It takes 41 days", ground_truth=42) == 0.0
    assert call(step, "0.30000000000000004", ground_truth=0.3) == 1.0
    assert call(numeric_closeness(number_in_text="last"), "From 3 to 7", ground_truth=7) == 1.0


def test_numeric_closeness_tolerances_and_soft_margin():
    assert call(numeric_closeness(abs_tolerance=1), "41", ground_truth=42) == 1.0
    assert call(numeric_closeness(rel_tolerance=0.05), "about 40", ground_truth=42) == 1.0
    assert call(numeric_closeness(rel_tolerance=0.01), "about 40", ground_truth=42) == 0.0
    soft = numeric_closeness(abs_tolerance=1, soft_margin=4)
    assert call(soft, "45", ground_truth=42) == 0.5
    assert call(soft, "100", ground_truth=42) == 0.0
    assert call(numeric_closeness(expected=-3.5), "minus: -3.5") == 1.0


def test_numeric_closeness_missing_numbers():
    assert call(numeric_closeness(), "I don't know", ground_truth=42) == 0.0
    assert call(numeric_closeness(), "", ground_truth=42) == 0.0
    no_truth = call(numeric_closeness(), "42")
    assert isinstance(no_truth, NotScorable)
    assert no_truth.reason == "numeric_closeness: there is no ground_truth to compare with"
    bad_truth = call(numeric_closeness(), "42", ground_truth="unknown")
    assert isinstance(bad_truth, NotScorable)
    assert "holds no number" in (bad_truth.reason or "")


def test_numeric_closeness_rejects_negative_tolerance():
    with pytest.raises(StepParamsError) as caught:
        numeric_closeness(abs_tolerance=-1)
    assert caught.value.problems[0][0] == "abs_tolerance"


# -- inside a scorer ------------------------------------------------------------------------


def test_builtins_run_inside_a_scorer_with_not_scorable_recorded():
    scorer = create_scorer(id="em", description="exact").generate_score(exact_match())
    assert scorer.run_sync(output="billing", ground_truth="billing").score == 1.0
    result = scorer.run_sync(output="billing")
    assert result.score is None
    assert result.not_scorable is not None
    assert result.not_scorable.reason == "exact_match: there is no ground_truth to compare with"
