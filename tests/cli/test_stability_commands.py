"""``scorer-studio stability`` and ``compare-versions`` in-process, against the fake judge
over real HTTP and a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import binomtest

from scorer_runtime.saved_scorers import ScorerSource
from scorer_runtime.store import list_runs, make_engine, read_session
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
    assert found["needs_check"] is True
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


@pytest.fixture
def built(monkeypatch) -> list[int]:
    """One item for every time a stored version is built into a scorer."""
    found: list[int] = []
    original = ScorerSource.build
    monkeypatch.setattr(ScorerSource, "build", lambda self: found.append(1) or original(self))
    return found


def test_stability_compiles_the_version_once_for_its_estimate_and_every_repeat(
    loaded, fake_judge, built
):
    fake_judge.reply({"verdict": "good"})
    result = cli(loaded, "stability", "verdict", "answers", "--repeats", "3", "--sample", "2")
    assert result.exit_code == 0, result.output
    assert "an unpriced model" in result.output  # the estimate was said, from the same build
    assert len(built) == 1


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
    assert "1 example got a different verdict." in result.output
    assert "A says good, B says bad" in result.output
    assert "The difference could be chance (McNemar's exact test, p = 1)" in result.output
    # The fake judge's model has no price: its cost is unknown, not "$0".
    assert "$0" not in result.output
    assert "│ cost         │ unknown (5 results on an" in result.output
    again = cli(loaded, "compare-versions", "verdict", "answers", "--a", "1", "--b", "2", "--json")
    found = json.loads(again.stdout)
    assert fake_judge.request_count == 10  # the second comparison reused both runs
    assert (found["a_only"], found["b_only"], found["p_value"]) == (1, 0, 1.0)
    assert [d["verdict_b"] for d in found["differences"]] == ["bad"]
    assert found["a"]["mean_score"] == 1.0
    assert found["b"]["mean_score"] == pytest.approx(0.8)
    assert found["a"]["percent_agreement"] is None
    assert (found["a"]["priced"], found["a"]["unpriced"]) == (0, 5)


def test_compare_versions_compiles_each_version_it_scores_once(loaded, fake_judge, built):
    fake_judge.reply({"verdict": "good"})
    result = cli(loaded, "compare-versions", "verdict", "answers", "--a", "1", "--b", "2")
    assert result.exit_code == 0, result.output
    assert result.output.count("has no finished run of the dataset: it is scored first") == 2
    assert len(built) == 2  # one build per version, for its estimate and its run


def test_compare_versions_of_an_unknown_version_fails_in_words(loaded):
    result = cli(loaded, "compare-versions", "verdict", "answers", "--a", "1", "--b", "7")
    assert result.exit_code == 2
    assert "version 7" in result.stderr


def _label(db_url: str, grades: dict[str, float]) -> None:
    """People's grades of the answers (by their text) for the verdict scorer."""
    from scorer_runtime.store import (
        add_label,
        dataset_example_ids,
        example_outputs,
        get_dataset,
        get_scorer,
        make_engine,
        session_scope,
    )

    made = make_engine(db_url)
    try:
        with session_scope(made) as session:
            scorer_id = get_scorer(session, name="verdict").id
            ids = dataset_example_ids(session, dataset_id=get_dataset(session, name="answers").id)
            for example_id, output in example_outputs(session, example_ids=ids).items():
                add_label(
                    session,
                    example_id=example_id,
                    scorer_id=scorer_id,
                    value=grades[output],
                    labeller="ann",
                )
    finally:
        made.dispose()


def test_compare_versions_gives_each_versions_kappa_with_people(loaded, fake_judge):
    fake_judge.reply({"verdict": "bad"}, when="Grade this answer: answer 3.")
    fake_judge.reply({"verdict": "bad"}, when="Strictly grade this answer: answer 1.")
    fake_judge.reply({"verdict": "bad"}, when="Strictly grade this answer: answer 3.")
    fake_judge.reply({"verdict": "good"})
    _label(loaded, {f"answer {i}.": 0.0 if i in (1, 3) else 1.0 for i in range(5)})
    # A misses answer 1: 4 of 5 agree. People say good 3/5, A says good 4/5, so chance
    # agreement is 0.6 * 0.8 + 0.4 * 0.2 = 0.56 and kappa = (0.8 - 0.56) / 0.44 = 6/11.
    result = cli(loaded, "compare-versions", "verdict", "answers", "--a", "1", "--b", "2")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert (
        "Version 1 (A) agrees with people on 4 of 5 labelled examples "
        "(80%, 95 % interval 38% to 96%), kappa 0.55." in lines
    )
    assert (
        "Version 2 (B) agrees with people on 5 of 5 labelled examples "
        "(100%, 95 % interval 57% to 100%), kappa 1.00." in lines
    )
    again = cli(loaded, "compare-versions", "verdict", "answers", "--a", "1", "--b", "2", "--json")
    found = json.loads(again.stdout)
    assert found["a"]["kappa"] == pytest.approx(6 / 11)
    assert found["a"]["kappa_kind"] == "kappa"
    low, high = found["a"]["kappa_ci"]
    assert low <= 6 / 11 <= high
    assert found["b"]["kappa"] == pytest.approx(1.0)
    assert found["b"]["kappa_missing"] is None
    assert found["b"]["kappa_ci"][0] < 0.95  # 5 of 5 agreeing is not certainty
    wilson = binomtest(5, 5).proportion_ci(method="wilson")
    assert found["b"]["percent_agreement_ci"] == pytest.approx([wilson.low, wilson.high])


def test_stability_of_a_version_that_asks_no_judge_says_it_needs_no_check(
    db_url, tmp_path, fake_judge
):
    spec = Path(__file__).resolve().parents[2] / "data" / "scorers" / "tool-health.json"
    assert cli(db_url, "scorers", "import", str(spec)).exit_code == 0
    answers = write_examples(tmp_path, ["answer 1.", "answer 2."])
    assert cli(db_url, "datasets", "import", str(answers), "--name", "answers").exit_code == 0
    said = cli(db_url, "stability", "tool-health", "answers")
    assert said.exit_code == 0, said.output
    assert "Scorer tool-health v1 needs no stability check. It asks no judge" in said.output
    found = json.loads(cli(db_url, "stability", "tool-health", "answers", "--json").stdout)
    assert (found["needs_check"], found["judge_calls"]) == (False, 0)
    engine = make_engine(db_url)
    with read_session(engine) as session:
        assert list_runs(session) == []  # nothing was scored
    engine.dispose()
