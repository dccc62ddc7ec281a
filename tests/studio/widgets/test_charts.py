"""The chart builders: Vega-Lite specs made from SQL aggregates of a real score history."""

from __future__ import annotations

from datetime import date

import pytest

from scorer_runtime.store import (
    HistogramBin,
    ScoreFilter,
    load_names,
    read_session,
    score_histogram,
)
from scorer_runtime.store.views.results_page import TrendPoint, version_trends
from studio.widgets.charts import (
    FAIL_HEX,
    OUTCOME_HEX,
    PASS_HEX,
    OutcomeShare,
    histogram_chart,
    outcome_chart,
    outcome_shares,
    trend_chart,
)
from studio.words import OUTCOME_LABELS
from tests.studio.app_pages.results.test_results_seed import seed_history


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


def _values(spec: dict, part: dict | None = None) -> list[dict]:
    """A chart's (or layer's) data rows; Altair moves inline data into ``datasets``."""
    data = (part or spec)["data"]
    return data["values"] if "values" in data else spec["datasets"][data["name"]]


def test_histogram_bars_are_the_sql_bins_coloured_by_the_pass_mark(studio_db):
    history = seed_history(studio_db)
    with read_session(studio_db) as session:
        bins = score_histogram(session, filter=ScoreFilter(run_id=history.run1), lo=0, hi=1)
    spec = histogram_chart(bins, threshold=0.6).to_dict()
    bars, rule = _layers(spec)
    values = _values(spec, bars)
    assert [(v["from"], v["to"], v["count"]) for v in values] == [
        (b.lo, b.hi, b.count) for b in bins
    ]
    assert sum(v["count"] for v in values) == 120
    # Bins whose middle is at or above 0.6 pass; the others fail.
    assert [v["side"] for v in values] == ["fails"] * 6 + ["passes"] * 4
    assert bars["encoding"]["color"]["scale"] == {
        "domain": ["passes", "fails"],
        "range": [PASS_HEX, FAIL_HEX],
    }
    assert bars["encoding"]["x"]["bin"] == "binned"
    assert rule["mark"]["type"] == "rule"
    assert _values(spec, rule) == [{"threshold": 0.6}]


def test_histogram_without_a_pass_mark_is_one_layer():
    spec = histogram_chart([HistogramBin(0.0, 0.5, 2), HistogramBin(0.5, 1.0, 3)]).to_dict()
    assert "layer" not in spec
    assert spec["mark"]["type"] == "bar"
    assert [v["range"] for v in _values(spec)] == ["0.00 – 0.50", "0.50 – 1.00"]


def test_trend_has_one_line_per_version_from_daily_means(studio_db):
    history = seed_history(studio_db)
    with read_session(studio_db) as session:
        trends = version_trends(
            session, filter=ScoreFilter(scorer_id=history.tone), names=load_names(session)
        )
    spec = trend_chart(trends.points, domain=(0.0, 1.0)).to_dict()
    values = _values(spec)
    assert {v["version"] for v in values} == {"v1", "v2"}
    assert len(values) == len(trends.points) == 5  # v1 on days 0-2, v2 on days 3-4
    assert spec["encoding"]["color"]["field"] == "version"
    assert spec["encoding"]["x"]["type"] == "temporal"
    assert spec["encoding"]["y"]["scale"]["domain"] == [0.0, 1.0]
    assert spec["mark"] == {"type": "line", "point": True}


def test_trend_points_keep_their_day_and_mean():
    point = TrendPoint(7, "tone v3", date(2026, 11, 30), 12, 0.625)
    spec = trend_chart([point]).to_dict()
    assert _values(spec) == [
        {"day": "2026-11-30", "version": "tone v3", "mean": 0.625, "count": 12}
    ]
    assert spec["encoding"]["y"]["scale"] == {"zero": False}


def test_outcome_chart_uses_plain_labels_and_fixed_colours():
    shares = [OutcomeShare("scored", 9, 0.9), OutcomeShare("provider_error", 1, 0.1)]
    spec = outcome_chart(shares, OUTCOME_LABELS).to_dict()
    scale = spec["encoding"]["color"]["scale"]
    assert scale["domain"] == ["Scored", "Judge unavailable"]
    assert scale["range"] == [OUTCOME_HEX["scored"], OUTCOME_HEX["provider_error"]]
    assert spec["encoding"]["y"]["sort"] == ["Scored", "Judge unavailable"]
    assert spec["encoding"]["color"]["legend"] is None
    assert [v["count"] for v in _values(spec)] == [9, 1]


@pytest.mark.parametrize("count", [0, 100_000])
def test_chart_size_does_not_grow_with_the_number_of_scores(count):
    # The chart holds bins, never rows: 100,000 scores make the same ten bars as none.
    bins = [HistogramBin(i / 10, (i + 1) / 10, count // 10) for i in range(10)]
    spec = histogram_chart(bins, threshold=0.5).to_dict()
    values = _values(spec, spec["layer"][0])
    assert len(values) == 10
    assert sum(v["count"] for v in values) == count


def test_outcome_shares_is_in_a_fixed_order_with_shares():
    mix = outcome_shares({"provider_error": 1, "scored": 3, "odd": 0, "not_scorable": 0})
    assert [(m.outcome, m.count, m.share) for m in mix] == [
        ("scored", 3, 0.75),
        ("provider_error", 1, 0.25),
    ]
