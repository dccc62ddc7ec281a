"""The Trust page shows honest intervals, a kappa chart that reads as numbers and says its
times are UTC, and a sentence (not a badge name) on why a version needs a reason to approve."""

from __future__ import annotations

import json
from datetime import datetime

import pandas as pd
from scipy.stats import binomtest

from studio.app_pages.trust.charts import over_time_chart
from tests.trust.graded import agreeing, graded


def _text(at) -> str:
    parts = [m.value for m in (*at.markdown, *at.caption, *at.info, *at.warning, *at.error)]
    return " ".join(str(p) for p in parts)


def test_thirty_agreements_of_thirty_show_an_interval_below_certainty(studio_db, open_page):
    graded(studio_db, agreeing(30))
    at = open_page("trust")
    assert not at.exception
    text = _text(at)
    wilson = binomtest(30, 30).proportion_ci(method="wilson")
    assert f"95 % interval: {wilson.low:.0%} to 100%" in text  # 89% to 100%
    assert "100% to 100%" not in text
    assert "1.00 to 1.00" not in text
    helps = {m.label: m.help for m in at.metric}
    assert "Wilson" in helps["Same verdict"]
    assert "Bayesian bootstrap" in helps["Cohen's kappa"]
    assert "Perks" in helps["Cohen's kappa"]


def test_a_version_without_enough_evidence_is_said_in_a_sentence(studio_db, open_page):
    graded(studio_db, agreeing(10))
    at = open_page("trust")
    text = _text(at)
    assert "There is **not enough evidence yet** to trust this version, so it can" in text
    assert "This version is **not enough evidence**" not in text


def test_the_kappa_chart_reads_two_decimals_and_draws_utc_times_labelled_utc() -> None:
    frame = pd.DataFrame(
        {
            "Version": ["v1"],
            "Saved": [datetime(2026, 12, 4, 20, 5)],  # stored in UTC, without a zone
            "Kappa": [0.345],
            "Low": [0.1],
            "High": [0.6],
            "Examples": [30],
        }
    )
    spec = over_time_chart(frame, 0.6).to_dict()
    bars, points = spec["layer"][0]["encoding"], spec["layer"][1]["encoding"]
    assert bars["y"]["axis"]["format"] == ".2f"
    assert bars["x"]["scale"]["type"] == "utc"
    assert "UTC" in bars["x"]["title"]
    formats = {t.get("field"): t.get("format") for t in points["tooltip"]}
    assert formats["Kappa"] == formats["Low"] == formats["High"] == ".2f"
    (rows,) = [rows for rows in spec["datasets"].values() if "Version" in rows[0]]
    assert rows[0]["Saved"] == "2026-12-04T20:05:00+00:00"  # an instant, not a local time
    assert rows[0]["Saved (UTC)"] == "04 Dec 2026, 20:05"
    json.dumps(spec)
