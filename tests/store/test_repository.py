"""Repository functions: scorer versions, judge profiles, datasets, runs, labels."""

from __future__ import annotations

import os
import socket

import pytest
from sqlalchemy import select

from scorer_runtime.saved_scorers import spec_as_data
from scorer_runtime.spec import load_spec
from scorer_runtime.spec.export import spec_data
from scorer_runtime.store import (
    ConflictError,
    ExampleData,
    NotFoundError,
    add_label,
    add_scores,
    archive_scorer,
    content_hash,
    count_examples,
    create_dataset,
    create_run,
    delete_example,
    duplicate_scorer,
    example_counts,
    get_judge_profile,
    get_run,
    get_scorer,
    get_version,
    judge_profile_dict,
    latest_version_numbers,
    list_datasets,
    list_examples,
    list_labels,
    list_scorers,
    list_versions,
    mark_running,
    read_session,
    request_cancel,
    save_judge_profile,
    save_scorer_version,
    session_scope,
    update_example,
)
from scorer_runtime.store.tables import RunRecord, ScorerVersionRecord
from tests.store.fixtures import make_dataset, make_version, valid_spec

SPEC = valid_spec("tone", "Is it polite?")


def test_saving_an_identical_spec_returns_the_existing_version(engine):
    with session_scope(engine) as session:
        first = save_scorer_version(session, spec=SPEC, note="first")
        # Same content, keys in another order: same canonical JSON, same version.
        again = save_scorer_version(
            session, spec=load_spec(dict(reversed(spec_data(SPEC).items())))
        )
    assert (again.id, again.version) == (first.id, 1)
    assert first.content_hash == content_hash(spec_as_data(SPEC))
    with read_session(engine) as session:
        assert len(session.exec(select(ScorerVersionRecord)).all()) == 1


def test_a_changed_spec_makes_a_new_version_and_a_revert_makes_another(engine):
    changed = SPEC.model_copy(update={"description": "Is it kind?"})
    with session_scope(engine) as session:
        v1 = save_scorer_version(session, spec=SPEC)
        v2 = save_scorer_version(session, spec=changed, note="kinder")
        v3 = save_scorer_version(session, spec=SPEC, note="back")
    assert [v1.version, v2.version, v3.version] == [1, 2, 3]
    with read_session(engine) as session:
        scorer = get_scorer(session, name="tone")
        versions = list_versions(session, scorer_id=v1.scorer_id)
        latest = get_version(session, scorer_id=scorer.id)
        second = get_version(session, scorer_id=scorer.id, version=2)
    assert [v.version for v in versions] == [3, 2, 1]
    assert latest.spec == SPEC
    assert latest.note == "back"
    assert second.spec == changed


def test_versions_keep_the_spec_as_saved(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=SPEC)
    with read_session(engine) as session:
        stored = get_version(session, scorer_id=get_scorer(session, name="tone").id)
        (record,) = session.exec(select(ScorerVersionRecord)).all()
    assert stored.spec == SPEC
    assert record[0].spec == spec_as_data(SPEC)  # the values it was written with


def test_archive_hides_a_scorer_and_duplicate_copies_it(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=SPEC)
        save_scorer_version(session, spec=valid_spec("length"))
        tone = get_scorer(session, name="tone")
        copy = duplicate_scorer(session, scorer_id=tone.id, new_name="tone-strict")
        archive_scorer(session, scorer_id=tone.id)
    assert copy.version == 1
    assert copy.spec == SPEC.model_copy(update={"id": "tone-strict"})
    with read_session(engine) as session:
        latest = latest_version_numbers(session)
        assert [(s.name, latest[s.id]) for s in list_scorers(session)] == [
            ("length", 1),
            ("tone-strict", 1),
        ]
        names = [s.name for s in list_scorers(session, include_archived=True)]
        assert names == ["length", "tone", "tone-strict"]
    with session_scope(engine) as session, pytest.raises(ConflictError, match="already exists"):
        duplicate_scorer(session, scorer_id=copy.scorer_id, new_name="length")


def test_unknown_names_are_reported_with_the_known_ones(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=SPEC)
    with read_session(engine) as session:
        with pytest.raises(NotFoundError, match=r"no scorer 'tnoe' \(scorers: tone\)"):
            get_scorer(session, name="tnoe")
        with pytest.raises(NotFoundError, match=r"no version 7 \(versions: 1\)"):
            get_version(session, scorer_id=get_scorer(session, name="tone").id, version=7)


def test_judge_profiles_keep_the_key_name_and_refuse_secrets(engine):
    with session_scope(engine) as session:
        save_judge_profile(
            session,
            name="fast",
            model="openai/gpt-4o-mini",
            api_key_env="OPENAI_API_KEY",
            settings={"instructions": "Be strict.", "retry": {"max_retries": 2}},
        )
        save_judge_profile(
            session, name="fast", model="openai/gpt-4o", api_key_env="OPENAI_API_KEY"
        )
    with read_session(engine) as session:
        profile = get_judge_profile(session, name="fast")
    assert judge_profile_dict(profile) == {
        "model": "openai/gpt-4o",
        "api_key_env": "OPENAI_API_KEY",
    }
    with session_scope(engine) as session:
        with pytest.raises(ConflictError, match=r"secret at settings\.retry\.api_key"):
            save_judge_profile(
                session, name="leaky", model="m", settings={"retry": {"api_key": "sk-123"}}
            )
        with pytest.raises(ConflictError, match="NAME of an environment variable"):
            save_judge_profile(session, name="leaky", model="m", api_key_env="sk-" + "x" * 48)


def test_datasets_hold_examples_as_json_and_refuse_deleting_scored_ones(engine):
    examples = [
        ExampleData(input="q1", output="a1", ground_truth=["x"], tags=["t"]),
        ExampleData(input={"messages": [1]}, output="a2", request_context={"user": "ann"}),
    ]
    dataset_id = make_dataset(engine, "faq", examples)
    scorer_id, version_id = make_version(engine)
    with session_scope(engine) as session:
        stored = list_examples(session, dataset_id=dataset_id)
        assert [ExampleData.of(e) for e in stored] == examples
        update_example(session, example_id=stored[1].id, changes={"output": "better"})
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        add_scores(
            session,
            rows=[
                {
                    "run_id": run.id,
                    "example_id": stored[0].id,
                    "scorer_id": scorer_id,
                    "scorer_version_id": version_id,
                    "outcome": "scored",
                    "score": 1.0,
                }
            ],
        )
    with session_scope(engine) as session, pytest.raises(ConflictError, match="1 stored score"):
        delete_example(session, example_id=stored[0].id)
    with session_scope(engine) as session:
        delete_example(session, example_id=stored[1].id)
        assert count_examples(session, dataset_id=dataset_id) == 1
        counts = example_counts(session)
        assert [(d.name, counts[d.id]) for d in list_datasets(session)] == [("faq", 1)]
        with pytest.raises(ConflictError, match="already exists"):
            create_dataset(session, name="faq")


def test_a_failed_block_commits_nothing(engine):
    def save_then_fail():
        with session_scope(engine) as session:
            save_scorer_version(session, spec=SPEC)
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        save_then_fail()
    with read_session(engine) as session:
        assert list_scorers(session) == []


def test_runs_refuse_a_second_live_runner_and_cancel_from_outside(engine):
    dataset_id = make_dataset(engine, "faq", [ExampleData(output="a")])
    _, version_id = make_version(engine)
    with session_scope(engine) as session:
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        mark_running(session, run_id=run.id)
        # Another live process on this host runs it now (this test's parent process).
        record = session.get(RunRecord, run.id)
        record.runner = f"{socket.gethostname()}:{os.getppid()}"
        session.add(record)
    with session_scope(engine) as session, pytest.raises(ConflictError, match="another process"):
        mark_running(session, run_id=run.id)
    with session_scope(engine) as session:
        request_cancel(session, run_id=run.id)
    with read_session(engine) as session:
        stored = get_run(session, run_id=run.id)
    assert stored.cancel_requested
    assert stored.status == "running"
    assert stored.total == 1


def test_labels_are_kept_per_example_and_scorer(engine):
    dataset_id = make_dataset(engine, "faq", [ExampleData(output="a")])
    scorer_id, _ = make_version(engine)
    with session_scope(engine) as session:
        example = list_examples(session, dataset_id=dataset_id)[0]
        add_label(session, example_id=example.id, scorer_id=scorer_id, value=1.0, labeller="marco")
        add_label(session, example_id=example.id, scorer_id=scorer_id, value=0.0, labeller="priya")
        with pytest.raises(ConflictError, match="who labelled"):
            add_label(session, example_id=example.id, scorer_id=scorer_id, value=1, labeller=" ")
    with read_session(engine) as session:
        labels = list_labels(session, scorer_id=scorer_id, example_id=example.id)
    assert [(label.labeller, label.value) for label in labels] == [("priya", 0.0), ("marco", 1.0)]
