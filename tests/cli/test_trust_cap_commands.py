"""``--max-cost`` and ``--allow-unpriced`` of ``scorer-studio stability`` and
``compare-versions``: what stops the runs a trust check scores, said before it starts, and a
cap no run could keep refused before anything is stored or asked (the fake judge over real
HTTP, a real SQLite file)."""

from __future__ import annotations

import pytest

from scorer_runtime.store import list_runs, make_engine, read_session
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec

PRICED = "openai/gpt-4o-mini"  # litellm knows its price
TOO_LOW = "0.0000001"  # below what one example can cost at worst on the priced model


def _load(db_url, tmp_path, base_url, *, model: str | None = PRICED, default_cap=None):
    """The verdict scorer in two versions (v2 grades "strictly") and five answers."""
    spec = verdict_spec(base_url)
    if model is not None:
        spec["judge"]["model"] = model
    if default_cap is not None:
        spec["judge"]["default_max_cost"] = default_cap
    assert cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec))).exit_code == 0
    spec["steps"][0]["template"] = "Strictly grade this answer: {{ output }}"
    assert (
        cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec, "v2.json"))).exit_code == 0
    )
    answers = write_examples(tmp_path, [f"answer {i}." for i in range(5)])
    assert cli(db_url, "datasets", "import", str(answers), "--name", "answers").exit_code == 0
    return db_url


@pytest.fixture(autouse=True)
def _key_and_answers(monkeypatch, fake_judge):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake_judge.reply({"verdict": "good"}, usage="counted")


def _caps(db_url) -> list[tuple[float | None, bool]]:
    """Each stored run's cap and whether it may run unpriced, oldest first."""
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            runs = sorted(list_runs(session), key=lambda run: run.id)
    finally:
        engine.dispose()
    return [(run.max_cost, run.allow_unpriced) for run in runs]


def _stability(db_url, *options: str):
    return cli(db_url, "stability", "verdict", "answers", "--repeats", "2", *options)


def test_stability_stops_each_repeat_at_the_typed_cap_and_says_so(db_url, tmp_path, fake_judge):
    loaded = _load(db_url, tmp_path, fake_judge.base_url, default_cap=0.25)
    result = _stability(loaded, "--max-cost", "2")
    assert result.exit_code == 0, result.output
    assert "Cost: about $" in result.output
    assert "Each repeat stops at $2.0000 (--max-cost)." in result.output
    assert _caps(loaded) == [(2.0, False), (2.0, False)]


def test_stability_without_a_cap_stops_at_the_judges_default_and_none_means_none(
    db_url, tmp_path, fake_judge
):
    loaded = _load(db_url, tmp_path, fake_judge.base_url, default_cap=0.25)
    result = _stability(loaded)
    assert result.exit_code == 0, result.output
    assert "Each repeat stops at $0.2500 (the judge's default spend cap)." in result.output
    uncapped = _stability(loaded, "--max-cost", "none")
    assert uncapped.exit_code == 0, uncapped.output
    assert "stops at" not in uncapped.output
    assert _caps(loaded) == [(0.25, True), (0.25, True), (None, False), (None, False)]


@pytest.mark.parametrize(
    ("typed", "said"),
    [("ten", "is not an amount"), ("-1", "must be an amount above $0"), (TOO_LOW, "below what")],
)
def test_stability_refuses_a_cap_it_could_not_keep_before_asking_anything(
    db_url, tmp_path, fake_judge, typed, said
):
    loaded = _load(db_url, tmp_path, fake_judge.base_url)
    result = _stability(loaded, "--max-cost", typed)
    assert result.exit_code == 2, result.output
    assert said in result.stderr
    assert fake_judge.request_count == 0
    assert _caps(loaded) == []  # no check, no repeat stored


def test_stability_caps_an_unpriced_model_only_when_told_to(db_url, tmp_path, fake_judge):
    loaded = _load(db_url, tmp_path, fake_judge.base_url, model=None)  # no price known
    refused = _stability(loaded, "--max-cost", "1")
    assert refused.exit_code == 2
    assert "a spend cap needs prices" in refused.stderr
    assert "--allow-unpriced" in refused.stderr
    assert (fake_judge.request_count, _caps(loaded)) == (0, [])
    allowed = _stability(loaded, "--max-cost", "1", "--allow-unpriced")
    assert allowed.exit_code == 0, allowed.output
    assert _caps(loaded) == [(1.0, True), (1.0, True)]


def _compare(db_url, *options: str):
    return cli(db_url, "compare-versions", "verdict", "answers", "--a", "1", "--b", "2", *options)


def test_compare_versions_stops_each_run_it_scores_at_the_typed_cap(db_url, tmp_path, fake_judge):
    loaded = _load(db_url, tmp_path, fake_judge.base_url, default_cap=0.25)
    result = _compare(loaded, "--max-cost", "3")
    assert result.exit_code == 0, result.output
    for version in (1, 2):
        assert f"Version {version} has no finished run of the dataset: it is scored first." in (
            result.output
        )
    assert result.output.count("Its run stops at $3.0000 (--max-cost).") == 2
    assert _caps(loaded) == [(3.0, False), (3.0, False)]
    again = _compare(loaded)  # both runs are reused: nothing to score, nothing to say of it
    assert again.exit_code == 0, again.output
    assert "is scored first" not in again.output
    assert fake_judge.request_count == 10


def test_compare_versions_refuses_a_cap_too_low_before_scoring_either_version(
    db_url, tmp_path, fake_judge
):
    loaded = _load(db_url, tmp_path, fake_judge.base_url)
    result = _compare(loaded, "--max-cost", TOO_LOW)
    assert result.exit_code == 2, result.output
    assert "below what one example can cost at worst" in result.stderr
    assert (fake_judge.request_count, _caps(loaded)) == (0, [])


def test_compare_versions_caps_an_unpriced_model_only_when_told_to(db_url, tmp_path, fake_judge):
    loaded = _load(db_url, tmp_path, fake_judge.base_url, model=None)
    refused = _compare(loaded, "--max-cost", "1")
    assert refused.exit_code == 2
    assert "a spend cap needs prices" in refused.stderr
    assert (fake_judge.request_count, _caps(loaded)) == (0, [])
    allowed = _compare(loaded, "--max-cost", "1", "--allow-unpriced")
    assert allowed.exit_code == 0, allowed.output
    assert _caps(loaded) == [(1.0, True), (1.0, True)]


def test_a_judges_default_cap_no_run_could_keep_is_refused_naming_where_it_is_set(
    db_url, tmp_path, fake_judge
):
    loaded = _load(db_url, tmp_path, fake_judge.base_url, default_cap=float(TOO_LOW))
    for result in (_stability(loaded), _compare(loaded)):
        assert result.exit_code == 2, result.output
        assert "below what one example can cost at worst" in result.stderr
        assert "the judge's default spend cap: “Stop a run at $” on the Judges page" in " ".join(
            result.stderr.split()
        )
    assert (fake_judge.request_count, _caps(loaded)) == (0, [])
