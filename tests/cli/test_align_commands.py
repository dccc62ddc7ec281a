"""``scorer-studio align`` in-process, against the biased fake judge over real HTTP and a
real database: the ``--json`` fields, the words, the spend cap, and too few grades."""

from __future__ import annotations

import json

import pytest

from scorer_runtime.store import get_version, list_runs, read_session
from tests.cli.helpers import KEY_ENV, cli
from tests.trust.align_world import build_world


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")


def test_align_json_names_the_split_each_candidate_and_the_saved_version(
    db_url, engine, fake_judge
):
    world = build_world(engine, fake_judge)

    result = cli(db_url, "align", "verdict", "--json")

    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["tuning_n"] == 20
    assert found["holdout_n"] == 10
    assert len(found["holdout_example_ids"]) == 10
    assert set(found["holdout_example_ids"]) <= set(world.example_ids)
    assert set(found["current"]) >= {"kappa", "ci_low", "ci_high"}
    guided = next(c for c in found["candidates"] if c["kind"] == "guidelines")
    assert guided["holdout"]["kappa"] > found["current"]["kappa"]
    assert guided["tuning"]["n"] == 20
    assert guided["mcnemar_p"] is not None
    assert found["chosen_version"] == 2
    assert [c["version"] for c in found["candidates"]] == [2, None, None]
    assert found["cost"] == 0.0  # the fake model has no price: nothing is counted
    assert "Improving scorer verdict v1: 30 graded examples" in result.stderr
    with read_session(engine) as session:
        note = get_version(session, scorer_id=world.scorer_id).note
    assert note.startswith("Improved from version 1")
    assert "Not approved" in note


def test_align_says_what_each_candidate_changed_and_that_it_is_not_approved(
    db_url, engine, fake_judge
):
    build_world(engine, fake_judge)

    result = cli(db_url, "align", "verdict")

    assert result.exit_code == 0, result.output
    words = " ".join(result.stdout.split())
    assert "Guidelines written from people's notes added to the judge's instructions" in words
    assert "Worked examples from people's grades added to the judge step" in words
    assert "Saved version 2" in words
    assert "not approved" in words
    assert "The holdout is a third of the graded examples" in words


def test_align_with_too_few_grades_says_how_many_more(db_url, engine, fake_judge):
    build_world(engine, fake_judge, count=19)

    result = cli(db_url, "align", "verdict")

    assert result.exit_code != 0
    assert "grade 1 more example on the Review page" in " ".join(result.output.split())


PRICED = "openai/gpt-4o-mini"  # litellm knows its price


def test_a_cap_too_small_refuses_before_anything_is_spent(db_url, engine, fake_judge):
    world = build_world(engine, fake_judge, model=PRICED)
    before = len(fake_judge.chat_requests)

    # Enough for the current version's runs, not for the worked examples' longer prompts.
    result = cli(db_url, "align", "verdict", "--max-cost", "0.0005")

    assert result.exit_code != 0
    assert "cap" in " ".join(result.output.split()).lower()
    assert len(fake_judge.chat_requests) == before  # not even the guidelines were asked
    with read_session(engine) as session:
        assert list_runs(session, scorer_id=world.scorer_id) == list_runs(
            session, scorer_id=world.scorer_id, repeats=False
        )
        assert get_version(session, scorer_id=world.scorer_id).version == 1


def test_align_counts_what_it_spent_within_its_cap(db_url, engine, fake_judge):
    world = build_world(engine, fake_judge, model=PRICED)

    result = cli(db_url, "align", "verdict", "--max-cost", "1.00", "--json")

    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert 0 < found["cost"] <= 1.00
    assert found["cost_words"].startswith("$")
    with read_session(engine) as session:
        runs = [r for r in list_runs(session, scorer_id=world.scorer_id) if r.alignment_id]
    assert len(runs) == 4
    assert all(
        r.max_cost == pytest.approx((1.00 - _guidelines_cost(found, runs)) / 4) for r in runs
    )
    assert _guidelines_cost(found, runs) > 0  # the guidelines request was priced and counted


def _guidelines_cost(found, runs) -> float:
    """What the guidelines request cost: the alignment's cost less its runs'."""
    return found["cost"] - sum(r.cost for r in runs)


def test_a_run_stopped_at_its_share_of_the_cap_saves_nothing(db_url, engine, fake_judge):
    world = build_world(engine, fake_judge, model=PRICED)

    # Each run may start (its share is above one example's worst case) but not finish.
    result = cli(db_url, "align", "verdict", "--max-cost", "0.001", "--json")

    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["cut_short_runs"]
    assert found["chosen_version"] is None
    assert all(c["version"] is None for c in found["candidates"])
    assert "stopped before scoring every example" in found["summary"]
    assert found["cost"] <= 0.001
    with read_session(engine) as session:
        assert get_version(session, scorer_id=world.scorer_id).version == 1
