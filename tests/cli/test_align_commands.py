"""``scorer-studio align`` in-process, against a judge with a planted bias over real HTTP and
a real database: the JSON it prints, its words, and what it says when it cannot start."""

from __future__ import annotations

import json

import pytest

from scorer_runtime.store import list_versions, read_session
from tests.cli.helpers import KEY_ENV, cli
from tests.trust.biased import store_biased
from tests.trust.graded import agreeing, graded


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")


def test_align_json_says_the_split_each_candidate_and_the_version_saved(db_url, engine, fake_judge):
    store_biased(engine, fake_judge)
    done = cli(db_url, "align", "verdict", "--json")
    assert done.exit_code == 0, done.output
    found = json.loads(done.stdout)
    assert (found["tuning_n"], found["holdout_n"]) == (24, 12)
    assert len(found["holdout_example_ids"]) == 12
    assert {"kappa", "ci_low", "ci_high"} <= set(found["current"])
    kinds = {c["kind"]: c for c in found["candidates"]}
    assert set(kinds) == {"worked_examples", "guidelines", "both"}
    for candidate in kinds.values():
        assert {"holdout", "tuning", "mcnemar_p", "version"} <= set(candidate)
    assert found["chosen_version"] == 2
    assert [c["version"] for c in found["candidates"]].count(2) == 1
    assert found["cost"] == 0.0  # the fake judge's model has no price
    with read_session(engine) as session:
        assert [v.version for v in list_versions(session, scorer_id=1)] == [2, 1]


def test_align_in_words_names_the_holdout_and_why_the_version_is_not_approved(
    db_url, engine, fake_judge
):
    store_biased(engine, fake_judge)
    done = cli(db_url, "align", "verdict")
    assert done.exit_code == 0, done.output
    assert "24 graded examples to learn from, 12 kept apart" in done.output
    assert "holdout kappa" in done.output
    assert "saved but not approved" in done.output
    assert "Traceback" not in done.output


def test_align_with_too_few_grades_says_how_many_more(db_url, engine):
    graded(engine, agreeing(12), name="verdict")
    done = cli(db_url, "align", "verdict")
    assert done.exit_code != 0
    assert "grade 8 more examples" in done.stderr
    assert "Traceback" not in done.output
