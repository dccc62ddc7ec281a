"""The scorer list: search and pages in SQL, each scorer's versions and newest run."""

from __future__ import annotations

from scorer_runtime.spec import ScorerSpec
from scorer_runtime.store import (
    add_scores,
    archive_scorer,
    create_dataset,
    create_run,
    finish_run,
    load_names,
    read_session,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.store.scorers import free_scorer_name, scorer_counts, scorer_name_taken
from scorer_runtime.store.views.scorer_list import scorer_page
from tests.store.fixtures import counting_selects, valid_spec


def _spec(scorer_id: str, description: str = "d", **extra) -> ScorerSpec:
    return valid_spec(scorer_id, description, **extra)


def test_search_matches_every_word_and_escapes_wildcards(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=_spec("tone", "Is the answer polite?"))
        save_scorer_version(session, spec=_spec("pct", "Counts 100% of the claims"))
        save_scorer_version(session, spec=_spec("under_score", "plain"))
    with read_session(engine) as session:
        assert [line.name for line in scorer_page(session, search="POLITE answer").lines] == [
            "tone"
        ]
        assert [line.name for line in scorer_page(session, search="100%").lines] == ["pct"]
        assert [line.name for line in scorer_page(session, search="r_s").lines] == ["under_score"]
        assert scorer_page(session, search="%").total == 1  # a literal %, not a wildcard
        assert scorer_page(session, search="nothing here").lines == []


def test_page_numbers_clamp_and_count(engine):
    with session_scope(engine) as session:
        for n in range(5):
            save_scorer_version(session, spec=_spec(f"s{n}"))
    with read_session(engine) as session:
        page = scorer_page(session, page=9, page_size=2)
    assert page.page == 2
    assert page.pages == 3
    assert [line.name for line in page.lines] == ["s4"]


def test_archived_scorers_only_when_asked_and_display_names(engine):
    with session_scope(engine) as session:
        kept = save_scorer_version(session, spec=_spec("a", name="Answer tone", type="agent"))
        gone = save_scorer_version(session, spec=_spec("b"))
        archive_scorer(session, scorer_id=gone.scorer_id)
    with read_session(engine) as session:
        (line,) = scorer_page(session).lines
        both = scorer_page(session, include_archived=True).lines
        names = load_names(session).live_scorers()
        all_names = load_names(session).scorers
    assert (line.name, line.display_name, line.agent, line.archived) == (
        "a",
        "Answer tone",
        True,
        False,
    )
    assert [(x.name, x.archived, x.display_name) for x in both] == [
        ("a", False, "Answer tone"),
        ("b", True, "b"),
    ]
    assert names == {kept.scorer_id: "a"}
    assert all_names == {kept.scorer_id: "a", gone.scorer_id: "b"}


def _scores(v1, v2, dataset_id, old_id, new_id) -> list[dict]:
    base = {"scorer_id": v1.scorer_id, "dataset_id": dataset_id, "example_id": None}
    return [
        {**base, "run_id": old_id, "scorer_version_id": v1.id, "score": 0.0, "outcome": "scored"},
        {**base, "run_id": new_id, "scorer_version_id": v2.id, "score": 0.2, "outcome": "scored"},
        {**base, "run_id": new_id, "scorer_version_id": v2.id, "score": 0.6, "outcome": "scored"},
        {
            **base,
            "run_id": new_id,
            "scorer_version_id": v2.id,
            "score": None,
            "outcome": "step_error",
        },
    ]


def test_last_run_mean_counts_only_scored_results(engine):
    with session_scope(engine) as session:
        v1 = save_scorer_version(session, spec=_spec("a"))
        v2 = save_scorer_version(session, spec=_spec("a", "changed"), note="second")
        save_scorer_version(session, spec=_spec("never-run"))
        dataset = create_dataset(session, name="ds")
        old = create_run(session, scorer_version_id=v1.id, dataset_id=dataset.id)
        new = create_run(session, scorer_version_id=v2.id, dataset_id=dataset.id)
        add_scores(session, rows=_scores(v1, v2, dataset.id, old.id, new.id))
        finish_run(session, run_id=new.id, status="done")
    with read_session(engine) as session:
        line, never = scorer_page(session).lines
        counts = scorer_counts(session, scorer_id=line.scorer_id)
        missing = scorer_counts(session, scorer_id=999)
    assert (line.versions, line.latest_version, line.latest_note) == (2, 2, "second")
    assert line.last_run_id == new.id
    assert line.last_run_status == "done"
    assert abs(line.last_run_mean - 0.4) < 1e-9
    assert line.last_run_scored == 2
    assert (never.last_run_id, never.last_run_mean, never.last_run_scored) == (None, None, 0)
    assert (counts.name, counts.versions, counts.runs, counts.scores) == ("a", 2, 2, 4)
    assert (missing.name, missing.versions, missing.runs, missing.scores) == ("999", 0, 0, 0)


def test_a_page_costs_the_same_statements_whatever_the_number_of_scorers(engine):
    def statements(count: int) -> int:
        with session_scope(engine) as session:
            for n in range(count):
                version = save_scorer_version(session, spec=_spec(f"p{count}-{n}"))
                dataset = create_dataset(session, name=f"ds{count}-{n}")
                create_run(session, scorer_version_id=version.id, dataset_id=dataset.id)
        with counting_selects(engine) as seen, read_session(engine) as session:
            scorer_page(session, search=f"p{count}-")
        return len(seen)

    assert statements(2) == statements(7) == 7


def test_names_taken_and_free(engine):
    with session_scope(engine) as session:
        save_scorer_version(session, spec=_spec("tone"))
        save_scorer_version(session, spec=_spec("tone-copy"))
        gone = save_scorer_version(session, spec=_spec("old"))
        archive_scorer(session, scorer_id=gone.scorer_id)
    with read_session(engine) as session:
        assert scorer_name_taken(session, name="tone")
        assert scorer_name_taken(session, name="old")  # archived names stay taken
        assert not scorer_name_taken(session, name="Tone-v2")
        assert free_scorer_name(session, base="tone-copy") == "tone-copy-2"
        assert free_scorer_name(session, base="old") == "old-2"
        assert free_scorer_name(session, base="fresh") == "fresh"


def test_a_stability_repeat_is_not_the_scorers_last_run(engine):
    from scorer_runtime.store import (
        ExampleData,
        add_examples,
        create_stability_check,
        list_examples,
    )

    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=_spec("a"))
        dataset = create_dataset(session, name="ds")
        add_examples(session, dataset_id=dataset.id, examples=[ExampleData(output="x")])
        (example,) = list_examples(session, dataset_id=dataset.id)
        run = create_run(session, scorer_version_id=version.id, dataset_id=dataset.id)
        check = create_stability_check(
            session,
            scorer_version_id=version.id,
            dataset_id=dataset.id,
            example_ids=[example.id],
            repeats=2,
        )
        create_run(
            session,
            scorer_version_id=version.id,
            dataset_id=dataset.id,
            stability_check_id=check.id,
        )
    with read_session(engine) as session:
        (line,) = scorer_page(session).lines
    assert line.last_run_id == run.id
