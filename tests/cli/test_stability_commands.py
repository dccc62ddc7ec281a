"""``scorer-studio stability`` and ``compare-versions`` in-process, against the fake judge
over real HTTP and a real SQLite file."""

from __future__ import annotations

import json

import pytest

from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec


@pytest.fixture
def loaded(db_url, tmp_path, fake_judge, monkeypatch):
    """The verdict scorer in two versions (v2 grades "strictly") and five answers."""
    monkeypatch.setenv(KEY_ENV, "sk-test")
    spec = verdict_spec(fake_judge.base_url)
    assert cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec))).exit_code == 0
    spec["steps"][0]["template"] = "Strictly grade this answer: {{ output }}"
    done = cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec, "v2.json")))
    assert done.exit_code == 0, done.output
    answers = write_examples(tmp_path, [f"answer {i}." for i in range(5)])
    assert cli(db_url, "datasets", "import", str(answers), "--name", "answers").exit_code == 0
    return db_url


def test_stability_counts_the_example_the_judge_changed_its_mind_on(loaded, fake_judge):
    fake_judge.reply({"verdict": "bad"}, when="Grade this answer: answer 3.", times=1)
    fake_judge.reply({"verdict": "good"})
    result = cli(loaded, "stability", "verdict", "answers", "--version", "1", "--json")
    assert result.exit_code == 0, result.output
    assert "5 examples × 3 repeats × 1 judge step = 15 judge calls." in result.stderr
    found = json.loads(result.stdout)
    assert (found["examples"], found["repeats"], found["judge_calls"]) == (5, 3, 15)
    assert (found["compared"], found["flipped"]) == (5, 1)
    assert found["flip_rate"] == pytest.approx(0.2)
    assert found["ci_low"] < 0.2 < found["ci_high"]
    (unstable,) = found["unstable"]
    assert unstable["verdicts"] == ["bad", "good", "good"]
    assert fake_judge.request_count == 15


def test_stability_says_the_flip_rate_in_words(loaded, fake_judge):
    fake_judge.reply({"verdict": "good"})
    result = cli(loaded, "stability", "verdict", "answers", "--repeats", "2", "--sample", "3")
    assert result.exit_code == 0, result.output
    assert "3 examples × 2 repeats × 1 judge step = 6 judge calls." in result.output
    assert "0 of 3 examples changed verdict between repeats: a flip rate of 0%" in result.output


def test_stability_refuses_a_single_repeat_in_words(loaded):
    result = cli(loaded, "stability", "verdict", "answers", "--repeats", "1")
    assert result.exit_code == 2
    assert "repeats must be from 2 to 10" in result.stderr


def test_compare_versions_lists_differences_and_tests_them(loaded, fake_judge):
    fake_judge.reply({"verdict": "bad"}, when="Strictly grade this answer: answer 1.")
    fake_judge.reply({"verdict": "good"})
    result = cli(loaded, "compare-versions", "verdict", "answers", "--a", "1", "--b", "2")
    assert result.exit_code == 0, result.output
    assert "5 examples scored by both" in result.output
    assert "1 example(s) got a different verdict." in result.output
    assert "A says good, B says bad" in result.output
    assert "The difference could be chance (McNemar's exact test, p = 1)" in result.output
    again = cli(loaded, "compare-versions", "verdict", "answers", "--a", "1", "--b", "2", "--json")
    found = json.loads(again.stdout)
    assert fake_judge.request_count == 10  # the second comparison reused both runs
    assert (found["a_only"], found["b_only"], found["p_value"]) == (1, 0, 1.0)
    assert [d["verdict_b"] for d in found["differences"]] == ["bad"]
    assert found["a"]["mean_score"] == 1.0
    assert found["b"]["mean_score"] == pytest.approx(0.8)
    assert found["a"]["percent_agreement"] is None


def test_compare_versions_of_an_unknown_version_fails_in_words(loaded):
    result = cli(loaded, "compare-versions", "verdict", "answers", "--a", "1", "--b", "7")
    assert result.exit_code == 2
    assert "version 7" in result.stderr
