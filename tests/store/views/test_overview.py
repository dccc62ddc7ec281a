"""The database at a glance: live counts, the latest runs, the key variables named."""

from __future__ import annotations

from scorer_runtime.spec import ScorerSpec
from scorer_runtime.store import (
    ExampleData,
    add_examples,
    add_scores,
    archive_dataset,
    archive_scorer,
    create_dataset,
    create_run,
    finish_run,
    read_session,
    save_judge_profile,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.store.views.overview import (
    KeyNameUse,
    key_name_uses,
    latest_runs,
    read_overview,
)
from tests.store.fixtures import valid_spec


def _spec(scorer_id: str, **extra) -> ScorerSpec:
    return valid_spec(scorer_id, "d", **extra)


def test_an_empty_database_is_empty(engine):
    with read_session(engine) as session:
        seen = read_overview(session)
    assert (seen.scorers, seen.versions, seen.datasets, seen.examples, seen.runs) == (0, 0, 0, 0, 0)
    assert seen.latest_runs == []
    assert seen.is_empty


def test_counts_leave_archived_scorers_and_datasets_out(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=_spec("a"))
        save_scorer_version(session, spec=_spec("a", name="A changed"))
        gone = save_scorer_version(session, spec=_spec("b"))
        archive_scorer(session, scorer_id=gone.scorer_id)
        live = create_dataset(session, name="live")
        old = create_dataset(session, name="old")
        add_examples(session, dataset_id=live.id, examples=[ExampleData(output="x")] * 3)
        add_examples(session, dataset_id=old.id, examples=[ExampleData(output="y")] * 2)
        archive_dataset(session, dataset_id=old.id)
    with read_session(engine) as session:
        seen = read_overview(session)
    # versions count every version, archived scorers' too: they still own scores
    assert (seen.scorers, seen.versions, seen.datasets, seen.examples, seen.runs) == (1, 3, 1, 3, 0)
    assert not seen.is_empty


def test_latest_runs_newest_first_with_their_scores(engine):
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=_spec("tone"))
        dataset = create_dataset(session, name="ds")
        runs = [
            create_run(session, scorer_version_id=version.id, dataset_id=dataset.id)
            for _ in range(3)
        ]
        base = {"scorer_id": version.scorer_id, "dataset_id": dataset.id, "example_id": None}
        base |= {"scorer_version_id": version.id, "run_id": runs[-1].id}
        add_scores(
            session,
            rows=[
                {**base, "score": 0.5, "outcome": "scored"},
                {**base, "score": 1.0, "outcome": "scored"},
                {**base, "score": None, "outcome": "provider_error"},
            ],
        )
        finish_run(session, run_id=runs[-1].id, status="done")
    with read_session(engine) as session:
        two = latest_runs(session, limit=2)
        seen = read_overview(session, runs=1)
    assert [r.run_id for r in two] == [runs[2].id, runs[1].id]
    newest = two[0]
    assert (newest.scorer, newest.version, newest.dataset, newest.status) == (
        "tone",
        1,
        "ds",
        "done",
    )
    assert (newest.done, newest.scored, newest.mean) == (3, 2, 0.75)
    assert newest.outcome_counts == {"scored": 2, "provider_error": 1}
    assert (two[1].done, two[1].mean, two[1].status) == (0, None, "queued")
    assert [r.run_id for r in seen.latest_runs] == [runs[2].id]


def test_key_name_uses_profiles_first_then_live_latest_versions(engine):
    judge = {"model": "openai/x", "api_key_env": "OLD_KEY"}
    with session_scope(engine) as session:
        save_judge_profile(session, name="fast", model="openai/x", api_key_env="FAST_KEY")
        save_judge_profile(session, name="local", model="ollama/llama3")
        save_scorer_version(session, spec=_spec("tone", judge=judge))
        save_scorer_version(session, spec=_spec("tone", judge={**judge, "api_key_env": "NEW"}))
        gone = save_scorer_version(session, spec=_spec("gone", judge={"api_key_env": "GONE"}))
        archive_scorer(session, scorer_id=gone.scorer_id)
    with read_session(engine) as session:
        uses = key_name_uses(session)
    assert uses == [KeyNameUse("FAST_KEY", "judge", "fast"), KeyNameUse("NEW", "scorer", "tone")]
