"""The scorers page's Streamlit-free logic: names, what archiving keeps, diffs of versions.

The list's search and pages are tested with the store (tests/store/test_scorer_list.py).
"""

from __future__ import annotations

from scorer_runtime.ids import id_from_name
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    add_scores,
    create_dataset,
    create_run,
    finish_run,
    read_session,
    save_scorer_version,
    session_scope,
)
from studio.app_pages.scorers.diff import json_text_diff, spec_changes
from studio.app_pages.scorers.logic import (
    archive_impact,
    copy_name,
    scorer_name_problem,
)


def _spec(name: str, description: str = "d", **extra) -> dict:
    return {
        "id": name,
        "description": description,
        "steps": [{"step": "generate_score", "formula": "1"}],
        **extra,
    }


def test_archive_impact_says_what_is_kept(studio_db):
    with session_scope(studio_db) as session:
        v1 = save_scorer_version(session, spec=load_spec(_spec("a")))
        v2 = save_scorer_version(session, spec=load_spec(_spec("a", "changed")), note="second")
        dataset = create_dataset(session, name="ds")
        old = create_run(session, scorer_version_id=v1.id, dataset_id=dataset.id)
        new = create_run(session, scorer_version_id=v2.id, dataset_id=dataset.id)
        base = {"scorer_id": v1.scorer_id, "dataset_id": dataset.id, "example_id": None}
        add_scores(
            session,
            rows=[
                {
                    **base,
                    "run_id": old.id,
                    "scorer_version_id": v1.id,
                    "score": 0.0,
                    "outcome": "scored",
                },
                {
                    **base,
                    "run_id": new.id,
                    "scorer_version_id": v2.id,
                    "score": 0.2,
                    "outcome": "scored",
                },
                {
                    **base,
                    "run_id": new.id,
                    "scorer_version_id": v2.id,
                    "score": 0.6,
                    "outcome": "scored",
                },
                {
                    **base,
                    "run_id": new.id,
                    "scorer_version_id": v2.id,
                    "score": None,
                    "outcome": "step_error",
                },
            ],
        )
        finish_run(session, run_id=new.id, status="done")
    with read_session(studio_db) as session:
        impact = archive_impact(session, scorer_id=v1.scorer_id)
    assert (impact.name, impact.versions, impact.runs, impact.scores) == ("a", 2, 2, 4)
    assert "“a” from the lists" in impact.sentence()
    assert "2 versions, 2 runs and 4 stored scores are kept" in impact.sentence()


def test_names_for_new_scorers(studio_db):
    with session_scope(studio_db) as session:
        save_scorer_version(session, spec=load_spec(_spec("tone")))
        save_scorer_version(session, spec=load_spec(_spec("tone-copy")))
    with read_session(studio_db) as session:
        assert copy_name(session, "tone") == "tone-copy-2"
        assert scorer_name_problem(session, "tone") is not None
        assert "letters, digits" in scorer_name_problem(session, "my tone!")
        assert scorer_name_problem(session, "  ") == "Give the scorer a name."
        assert scorer_name_problem(session, "tone-v2") is None
    assert id_from_name("Tone check (v2)") == "tone-check-v2"


def test_spec_changes_match_steps_by_name_not_position():
    before = {
        "id": "x",
        "judge": {"model": "a", "temperature": 0},
        "steps": [
            {"step": "analyze", "template": "old"},
            {"step": "generate_score", "formula": "1"},
        ],
    }
    after = {
        "id": "x",
        "judge": {"model": "b", "temperature": 0.0 + 0, "retry": {"max_retries": 2}},
        "steps": [
            {"step": "preprocess", "use": "contains", "with": {"text": "hi"}},
            {"step": "analyze", "template": "old"},
            {"step": "generate_score", "formula": "2"},
        ],
    }
    changes = {(c.path, c.kind) for c in spec_changes(before, after)}
    assert changes == {
        ("judge.model", "changed"),
        ("judge.retry", "added"),
        ("steps[0]", "added"),
        ("steps[2].formula", "changed"),
    }
    labels = {c.path: c.label for c in spec_changes(before, after)}
    assert labels["steps[0]"] == "Preparation step"
    assert labels["steps[2].formula"] == "Scoring step › formula"
    assert labels["judge.retry"] == "Judge › retries"
    assert spec_changes(before, before) == []


def test_long_texts_get_a_line_diff_and_types_count():
    (change,) = spec_changes({"t": "a\nb\nc"}, {"t": "a\nB\nc"})
    assert change.line_diff().splitlines() == ["@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"]
    (typed,) = spec_changes({"n": 1}, {"n": True})  # 1 == True in Python, not in JSON
    assert typed.summary() == "Changed: 1 → true"
    diff = json_text_diff({"a": 1}, {"a": 2}, before_name="v1", after_name="v2")
    assert "--- v1" in diff
    assert '-  "a": 1' in diff
    assert '+  "a": 2' in diff
