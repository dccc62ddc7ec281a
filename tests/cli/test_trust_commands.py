"""``scorer-studio agreement`` and ``gate`` on scores made by the judge over real HTTP."""

from __future__ import annotations

import json

import pytest

from scorer_runtime.store import add_label, list_examples, make_engine, session_scope
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec
from tests.trust.graded import agreeing, graded

ANSWERS = ["fine answer", "poor answer", "fine again", "poor again", "fine third", "poor third"]


@pytest.fixture
def scored(db_url, tmp_path, fake_judge, monkeypatch):
    """The verdict scorer run over six answers by the fake judge, graded by a person who
    disagrees on one: the judge says good to every 'fine', bad to every 'poor'."""
    monkeypatch.setenv(KEY_ENV, "sk-test")
    assert (
        cli(
            db_url,
            "scorers",
            "import",
            str(write_spec(tmp_path, verdict_spec(fake_judge.base_url))),
        ).exit_code
        == 0
    )
    assert (
        cli(
            db_url,
            "datasets",
            "import",
            str(write_examples(tmp_path, ANSWERS)),
            "--name",
            "answers",
        ).exit_code
        == 0
    )
    fake_judge.reply({"verdict": "bad"}, when="poor")
    fake_judge.reply({"verdict": "good"})
    assert cli(db_url, "run", "verdict", "answers").exit_code == 0
    engine = make_engine(db_url)
    with session_scope(engine) as session:
        for example in list_examples(session, dataset_id=1):
            grade = 1.0 if "fine" in str(example.output) else 0.0
            grade = 0.0 if example.output == "fine third" else grade  # the one disagreement
            add_label(session, example_id=example.id, scorer_id=1, value=grade, labeller="Marco")
    engine.dispose()
    return db_url


def test_agreement_json_has_the_figures_ci_and_base_rates(scored):
    result = cli(scored, "agreement", "verdict", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["n"] == 6
    assert data["percent_agreement"] == pytest.approx(5 / 6)
    assert data["kappa"] == pytest.approx(2 / 3)  # po 5/6, pe 1/2
    assert data["ci_low"] <= data["kappa"] <= data["ci_high"]
    assert (data["human_pass_rate"], data["judge_pass_rate"]) == (pytest.approx(1 / 3), 0.5)
    assert data["confusion"] == {
        "labels": ["good", "bad"],
        "rows_people_columns_judge": [[2, 0], [1, 3]],
    }


def test_agreement_of_one_run_and_in_words(scored):
    result = cli(scored, "agreement", "verdict", "--run", "1")
    assert result.exit_code == 0, result.output
    assert "Version 1: Substantial agreement with people on 6 examples" in result.output
    assert "grade about" in result.output


def test_gate_exits_1_saying_why(scored):
    result = cli(scored, "gate", "verdict")
    assert result.exit_code == 1
    assert "verdict version 1: Not enough evidence" in result.stderr
    assert "6 of the 30 graded examples the policy asks for: grade 24 more" in result.stderr
    assert "No complete stability check yet: run one with `scorer-studio stability`" in " ".join(
        result.stderr.split()
    )


def test_an_unknown_scorer_or_too_few_grades_are_said_in_words(db_url, engine):
    missing = cli(db_url, "agreement", "nope")
    assert missing.exit_code == 2
    assert "error:" in missing.stderr
    graded(engine, agreeing(1))
    few = cli(db_url, "agreement", "verdict", "--json")
    assert few.exit_code == 0, few.output
    data = json.loads(few.output)
    assert data["kappa"] is None
    assert "at least 2 are needed" in data["reading"]
    assert cli(db_url, "gate", "1").exit_code == 1  # a scorer named by its id


def test_agreement_of_a_chosen_version_and_a_version_that_does_not_exist(scored):
    chosen = cli(scored, "agreement", "verdict", "--version", "1", "--json")
    assert chosen.exit_code == 0, chosen.output
    assert json.loads(chosen.output)["version"] == 1
    missing = cli(scored, "gate", "verdict", "--version", "9")
    assert missing.exit_code == 2
    assert "version" in missing.stderr
    both = cli(scored, "agreement", "verdict", "--version", "1", "--run", "1")
    assert both.exit_code == 2
    assert "give --version or --run, not both" in both.stderr
