"""``scorer-studio health`` in-process, against fake judges over real HTTP and a real
database: what it prints (``--json`` and words), and the spend cap it keeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import binomtest

from scorer_runtime.store import list_runs, make_engine, read_session
from tests.cli.helpers import KEY_ENV, cli, write_spec
from tests.trust.health_judges import compare_spec, fair_judge, gullible_judge

PRICED = "openai/gpt-4o-mini"  # litellm knows its price


def _write_facts(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "facts.jsonl"
    rows = [
        {"input": f"question {i}", "output": f"answer {i}", "ground_truth": f"fact {i}"}
        for i in range(count)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _load(db_url: str, tmp_path: Path, base_url: str, *, model: str | None = None) -> str:
    spec = compare_spec(base_url)
    if model is not None:
        spec["judge"]["model"] = model
    assert cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec))).exit_code == 0
    facts = str(_write_facts(tmp_path, 5))
    assert cli(db_url, "datasets", "import", facts, "--name", "facts").exit_code == 0
    return db_url


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")


def _wilson(count: int, n: int) -> tuple[float, float]:
    interval = binomtest(count, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(interval.low), float(interval.high)


def test_health_json_reports_each_family_of_a_swayed_judge(db_url, tmp_path, fake_judge):
    loaded = _load(db_url, tmp_path, fake_judge.base_url)
    fake_judge.reply_by(gullible_judge)

    result = cli(loaded, "health", "compare", "facts", "--json")

    assert result.exit_code == 0, result.output
    assert "5 examples scored as they are and under 6 perturbations (7 runs)" in result.stderr
    found = json.loads(result.stdout)
    assert found["n"] == 5
    families = {f["family"]: f for f in found["families"]}
    assert list(families) == [
        "direct_injection",
        "format_impersonation",
        "protocol_override",
        "dummy_answers",
        "verbosity",
        "order",
    ]
    for name in ("direct_injection", "format_impersonation", "dummy_answers"):
        family = families[name]
        assert (family["changed"], family["rate"], family["toward_best"]) == (5, 1.0, 5)
        assert (family["ci_low"], family["ci_high"]) == pytest.approx(_wilson(5, 5))
        assert family["changes"][0]["before"] == "bad"
        assert family["changes"][0]["after"] == "good"
    assert families["verbosity"]["changed"] == 0
    assert "mark the judged text as data" in found["summary"]


def test_health_says_in_words_that_a_fair_judge_was_not_swayed(db_url, tmp_path, fake_judge):
    loaded = _load(db_url, tmp_path, fake_judge.base_url)
    fake_judge.reply_by(fair_judge)

    result = cli(loaded, "health", "compare", "facts", "--sample", "3")

    assert result.exit_code == 0, result.output
    assert "0 of 3 verdicts changed: 0% (95 % interval 0% to 56%)." in result.output
    assert "No perturbation moved a verdict toward the best grade." in result.output


def test_health_shares_the_cap_among_its_runs(db_url, tmp_path, fake_judge):
    loaded = _load(db_url, tmp_path, fake_judge.base_url, model=PRICED)
    fake_judge.reply_by(fair_judge)

    result = cli(loaded, "health", "compare", "facts", "--max-cost", "0.7")

    assert result.exit_code == 0, result.output
    assert "Cost: about $" in result.output
    assert "Each run stops at $0.1000 (--max-cost)." in result.output
    engine = make_engine(loaded)
    try:
        with read_session(engine) as session:
            runs = list_runs(session)
    finally:
        engine.dispose()
    assert len(runs) == 7
    assert [run.max_cost for run in runs] == [pytest.approx(0.1)] * 7
    assert sum(run.cost for run in runs) <= 0.7
