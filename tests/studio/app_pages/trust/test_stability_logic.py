"""What the Stability and Compare-versions tabs show, checked without Streamlit."""

from __future__ import annotations

from scorer_runtime.costs import CostEstimate
from scorer_runtime.trust.ab import AbReport, McNemar, PeopleAgreement, VersionSide
from scorer_runtime.trust.agreement import Estimate
from scorer_runtime.trust.flips import ExampleStability
from scorer_runtime.trust.stability import VersionFlipRate
from studio.app_pages.trust.stability_logic import (
    cap_words,
    cost_words,
    example_rows,
    flip_chart,
    preview,
    side_rows,
)


def test_an_example_row_names_each_repeats_verdict_and_a_missing_score_in_words() -> None:
    example = ExampleStability(7, ("good", None, "bad"), (1.0, None, 0.0))
    (row,) = example_rows([example], {7: {"answer": "Sure"}})
    assert row == {
        "Example": "#7",
        "Answer": '{"answer": "Sure"}',
        "Repeat 1": "good",
        "Repeat 2": "no score",
        "Repeat 3": "bad",
        "Changed?": "yes",
        "Score spread": "1",
    }


def test_a_long_answer_is_shortened_to_one_line() -> None:
    shown = preview("word\n" * 100)
    assert "\n" not in shown
    assert len(shown) == 80
    assert shown.endswith("…")


def test_the_chart_draws_each_versions_rate_and_interval() -> None:
    rates = [VersionFlipRate(1, 11, 20, 0.1, 0.03, 0.3), VersionFlipRate(2, 12, 20, 0.0, 0.0, 0.16)]
    spec = flip_chart(rates).to_dict()
    values = spec["datasets"][spec["data"]["name"]]
    assert [(v["Version"], v["Flip rate"], v["Low"], v["High"]) for v in values] == [
        ("Version 1", 0.1, 0.03, 0.3),
        ("Version 2", 0.0, 0.0, 0.16),
    ]
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["bar", "rule"]


def _estimate(
    typical: float | None, worst: float | None, unpriced: tuple[str, ...] = ()
) -> CostEstimate:
    return CostEstimate(
        examples=20, sampled=20, calls=20, worst_calls=80, input_tokens=2_000,
        output_tokens=400, typical_cost=typical, worst_cost=worst, example_worst_cost=None,
        call_worst_cost=None, unpriced_models=unpriced,
    )  # fmt: skip


def test_the_cost_of_two_runs_is_their_sum_in_dollars() -> None:
    words = cost_words([_estimate(0.01, 0.05), _estimate(0.02, 0.1)])
    assert words == "Cost: about $0.0300, at worst $0.1500."


def test_an_unknown_price_or_a_failed_estimate_is_said_instead_of_a_sum() -> None:
    unpriced = _estimate(None, None, ("ollama/llama3",))
    assert cost_words([_estimate(0.01, 0.05), unpriced]) == (
        "Price unknown for ollama/llama3: set a price per 1M tokens on the judge profile."
    )
    failed = "The cost could not be estimated: the judge step has no model"
    assert cost_words([failed, unpriced]) == failed


def test_runs_that_share_the_judges_default_cap_are_said_together() -> None:
    priced = [_estimate(0.01, 0.05), _estimate(0.02, 0.1)]
    caps = {"the run of version 1": 2.0, "the run of version 2": 2.0}
    assert cap_words(caps, priced, each="each run") == (
        "Each run stops at $2.0000 (the judge's default spend cap)."
    )


def test_runs_with_different_caps_or_none_are_each_named() -> None:
    priced = [_estimate(0.01, 0.05), _estimate(0.02, 0.1)]
    caps = {"the run of version 1": 2.0, "the run of version 2": 0.5}
    assert cap_words(caps, priced, each="each run") == (
        "The run of version 1 stops at $2.0000; the run of version 2 stops at $0.5000 "
        "(the judge's default spend cap)."
    )
    caps = {"the run of version 1": None, "the run of version 2": 0.5}
    assert cap_words(caps, priced, each="each run") == (
        "The run of version 2 stops at $0.5000 (the judge's default spend cap)."
    )
    assert cap_words({"each repeat": None}, priced, each="each repeat") == ""


def test_a_default_cap_on_an_unpriced_model_is_said_not_to_hold() -> None:
    unpriced = [_estimate(None, None, ("ollama/llama3",))]
    assert cap_words({"each repeat": 1.0}, unpriced, each="each repeat") == (
        "The judge's default spend cap cannot stop these runs: its model has no price "
        "(set a price on the Judges page to have them stopped)."
    )


def _side(
    version: int,
    agreement: PeopleAgreement | None,
    *,
    cost: float = 0.0,
    priced: int = 0,
    unpriced: int = 0,
) -> VersionSide:
    return VersionSide(
        10 + version, version, 100 + version, 0.5, 0.5, cost, priced, unpriced, 12.0, agreement
    )


def test_an_unknown_cost_reads_unknown_as_on_every_other_page_never_0_dollars() -> None:
    unpriced = _side(1, None, unpriced=20)
    partly = _side(2, None, cost=0.012, priced=18, unpriced=2)
    report = AbReport(1, unpriced, partly, 20, 0, (), McNemar(0, 0, None))
    cost = next(row for row in side_rows(report) if row[""] == "Cost")
    assert cost["A: version 1"] == "Unknown (20 results on an unpriced model)"
    assert cost["B: version 2"] == "$0.0120 (18 of 20 results priced; the rest are unknown)"
    nothing = AbReport(
        1, _side(1, None), _side(2, None, cost=0.5, priced=20), 20, 0, (), McNemar(0, 0, None)
    )
    cost = next(row for row in side_rows(nothing) if row[""] == "Cost")
    assert (cost["A: version 1"], cost["B: version 2"]) == ("$0", "$0.5000")


def test_the_compare_table_gives_each_versions_kappa_with_people_or_why_not() -> None:
    a = PeopleAgreement(80, 72, Estimate(0.78, 0.70, 0.86), "kappa")
    b = PeopleAgreement(
        20,
        15,
        kappa_name="kappa",
        kappa_missing="people gave every labelled example the same grade (pass)",
    )
    report = AbReport(1, _side(1, a), _side(2, b), 20, 0, (), McNemar(0, 0, None))
    rows = {row[""]: row for row in side_rows(report)}
    kappa = rows["Agreement beyond chance (kappa)"]
    assert kappa["A: version 1"] == "0.78, substantial (95 % interval 0.70 to 0.86)"
    assert kappa["B: version 2"] == (
        "cannot be measured: people gave every labelled example the same grade (pass)"
    )
    assert rows["Agrees with people"]["A: version 1"] == (
        "72 of 80 (90%, 95 % interval 81% to 95%)"
    )
    unlabelled = AbReport(1, _side(1, None), _side(2, None), 20, 0, (), McNemar(0, 0, None))
    (row,) = [r for r in side_rows(unlabelled) if r[""].startswith("Agreement beyond chance")]
    assert row["A: version 1"] == row["B: version 2"] == "no labelled example"


def test_a_kappa_whose_interval_is_too_wide_is_not_given_a_reading() -> None:
    few = PeopleAgreement(20, 18, Estimate(0.78, 0.55, 0.95), "kappa")
    report = AbReport(1, _side(1, few), _side(2, None), 20, 0, (), McNemar(0, 0, None))
    (row,) = [r for r in side_rows(report) if r[""].startswith("Agreement beyond chance")]
    # 20 grades give an interval 0.40 wide; one 0.20 wide needs (0.40 / 0.20)² = 4 times as many.
    assert row["A: version 1"] == (
        "0.78 (95 % interval 0.55 to 0.95: too few grades to read it; grade about 60 more)"
    )
