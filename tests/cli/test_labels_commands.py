"""``scorer-studio labels import|export`` on a real SQLite file."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    add_label,
    latest_labels,
    list_labels,
    make_engine,
    read_session,
    review_example_ids,
    save_scorer_version,
    session_scope,
)
from tests.cli.helpers import cli
from tests.store.fixtures import make_dataset

DEMO = Path(__file__).resolve().parents[2] / "data" / "scorers"


@pytest.fixture
def graded(db_url: str, engine) -> tuple[str, int, list[int]]:
    """A database with the politeness scorer (grades polite / neutral / rude) and 3 examples."""
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(DEMO / "tone-politeness.json"))
    dataset_id = make_dataset(
        engine, "replies", [ExampleData(input=f"q{i}", output=f"reply {i}") for i in range(3)]
    )
    with read_session(engine) as session:
        ids = review_example_ids(session, dataset_id=dataset_id)
    return db_url, version.scorer_id, ids


def _labels(db_url: str, scorer_id: int) -> dict[int, tuple[float, str, str]]:
    engine = make_engine(db_url)
    with read_session(engine) as session:
        found = latest_labels(session, scorer_id=scorer_id)
    engine.dispose()
    return {k: (v.value, v.labeller, v.note) for k, v in found.items()}


def test_import_adds_the_good_rows_and_lists_the_bad_ones_by_line(graded, tmp_path):
    db_url, scorer_id, ids = graded
    path = tmp_path / "grades.csv"
    path.write_text(
        "id,verdict,who,note\n"
        f"{ids[0]},polite,ann,thanked the user\n"
        f"{ids[1]},0.7,ann,\n"
        "999999,rude,ann,\n"
        f"{ids[2]},rude,,\n"
        f"{ids[1]},neutral,bob,\n",
        encoding="utf-8",
    )
    done = cli(
        db_url,
        *("labels", "import", str(path), "--scorer", "tone-politeness"),
        *("--map", "example_id=id", "--map", "grade=verdict", "--map", "grader=who"),
    )
    assert done.exit_code == 0, done.output
    assert "Imported 2 grades from grades.csv." in done.output
    assert "Left out 3 bad rows:" in done.output
    assert "line 3: example " in done.output
    assert "0.7 is not a grade of this scorer" in done.output
    assert "line 4: example 999999 does not exist (it may have been deleted)" in done.output
    assert f"line 5: example {ids[2]} has no grader; say who graded it" in done.output
    assert _labels(db_url, scorer_id) == {
        ids[0]: (1.0, "ann", "thanked the user"),
        ids[1]: (0.5, "bob", ""),
    }


def test_export_writes_the_latest_grade_of_each_example_and_imports_back(graded, tmp_path):
    db_url, scorer_id, ids = graded
    engine = make_engine(db_url)
    with session_scope(engine) as session:
        add_label(session, example_id=ids[0], scorer_id=scorer_id, value=0.0, labeller="ann")
        add_label(
            session, example_id=ids[0], scorer_id=scorer_id, value=1.0, labeller="bob", note="ok"
        )
        add_label(session, example_id=ids[2], scorer_id=scorer_id, value=0.5, labeller="ann")
    engine.dispose()
    out = tmp_path / "out.csv"
    done = cli(db_url, "labels", "export", "--scorer", "tone-politeness", "-o", str(out))
    assert done.exit_code == 0, done.output
    assert f"Wrote 2 grades of scorer tone-politeness to {out}." in done.output
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [
        (
            r["example_id"],
            r["input"],
            r["output"],
            r["grade"],
            r["grade_name"],
            r["note"],
            r["grader"],
        )
        for r in rows
    ] == [
        (str(ids[0]), "q0", "reply 0", "1", "polite", "ok", "bob"),
        (str(ids[2]), "q2", "reply 2", "0.5", "neutral", "", "ann"),
    ]
    assert all(r["time"] for r in rows)
    on_screen = cli(db_url, "labels", "export", "--scorer", str(scorer_id))
    assert on_screen.output.splitlines()[0].startswith("example_id,input,output,grade")

    again = cli(db_url, "labels", "import", str(out), "--scorer", "tone-politeness")
    assert again.exit_code == 0, again.output
    assert "Nothing new in out.csv: its 2 grades are already stored." in again.output
    engine = make_engine(db_url)
    with read_session(engine) as session:
        assert len(list_labels(session, scorer_id=scorer_id)) == 3  # none added twice
    engine.dispose()
    assert _labels(db_url, scorer_id) == {ids[0]: (1.0, "bob", "ok"), ids[2]: (0.5, "ann", "")}


def test_a_file_with_no_good_row_imports_nothing_and_fails(graded, tmp_path):
    db_url, scorer_id, _ = graded
    path = tmp_path / "bad.csv"
    path.write_text("example_id,grade,grader\n999999,polite,ann\n", encoding="utf-8")
    done = cli(db_url, "labels", "import", str(path), "--scorer", "tone-politeness")
    assert done.exit_code == 2
    assert "example 999999 does not exist" in done.stderr
    assert _labels(db_url, scorer_id) == {}


def test_an_unknown_scorer_or_column_is_one_clear_line(graded, tmp_path):
    db_url, _, _ = graded
    path = tmp_path / "grades.csv"
    path.write_text("example_id,grade,grader\n1,polite,ann\n", encoding="utf-8")
    unknown = cli(db_url, "labels", "import", str(path), "--scorer", "nope")
    assert unknown.exit_code == 2
    assert "nope" in unknown.stderr
    bad_map = cli(db_url, "labels", "import", str(path), "--scorer", "1", "--map", "score=x")
    assert bad_map.exit_code == 2
    assert "unknown field 'score'" in bad_map.stderr
    assert "grade_name" in bad_map.stderr


def _history(db_url: str, scorer_id: int, example_id: int) -> list[tuple[float, str, datetime]]:
    """An example's labels, newest first: grade, grader and time (UTC)."""
    engine = make_engine(db_url)
    with read_session(engine) as session:
        found = list_labels(session, scorer_id=scorer_id, example_id=example_id)
    engine.dispose()
    return [(label.value, label.labeller, _naive_utc(label.created_at)) for label in found]


def _naive_utc(time: datetime) -> datetime:
    """A stored time as naive UTC (SQLite gives it without its zone, PostgreSQL with it)."""
    return time.astimezone(UTC).replace(tzinfo=None) if time.tzinfo else time


def test_an_exported_file_imports_back_with_its_times_and_the_latest_grade_stays(graded, tmp_path):
    """A file exported last week and imported again after a newer grade: the imported grades
    keep their times, so the newer grade is still the latest."""
    db_url, scorer_id, ids = graded
    week_ago = (datetime.now(UTC) - timedelta(days=7)).replace(microsecond=0)
    engine = make_engine(db_url)
    with session_scope(engine) as session:
        for example_id, value in [(ids[0], 1.0), (ids[1], 0.5)]:
            add_label(
                session,
                example_id=example_id,
                scorer_id=scorer_id,
                value=value,
                labeller="ann",
                created_at=week_ago,
            )
    engine.dispose()
    out = tmp_path / "grades.csv"
    exported = cli(db_url, "labels", "export", "--scorer", "tone-politeness", "-o", str(out))
    assert exported.exit_code == 0, exported.output
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [r["time"] for r in rows] == [week_ago.isoformat()] * 2  # UTC, with its zone
    engine = make_engine(db_url)
    with session_scope(engine) as session:  # bob grades the first example again, today
        add_label(session, example_id=ids[0], scorer_id=scorer_id, value=0.0, labeller="bob")
    engine.dispose()

    again = cli(db_url, "labels", "import", str(out), "--scorer", "tone-politeness")
    assert again.exit_code == 0, again.output
    assert "Nothing new in grades.csv: its 2 grades are already stored." in again.output
    assert _labels(db_url, scorer_id) == {ids[0]: (0.0, "bob", ""), ids[1]: (0.5, "ann", "")}
    then = week_ago.replace(tzinfo=None)
    assert _history(db_url, scorer_id, ids[1]) == [(0.5, "ann", then)]

    # Ann's grade of the first example changed in the file: it is added with the file's
    # time, so bob's newer grade stays the latest; the unchanged row is not added again.
    rows[0]["grade"], rows[0]["grade_name"] = "0.5", "neutral"
    with out.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    changed = cli(db_url, "labels", "import", str(out), "--scorer", "tone-politeness")
    assert changed.exit_code == 0, changed.output
    assert (
        "Imported 1 grade from grades.csv. 1 grade was already stored and not added again."
        in changed.output
    )
    assert _labels(db_url, scorer_id)[ids[0]] == (0.0, "bob", "")
    assert _history(db_url, scorer_id, ids[0])[1:] == [(0.5, "ann", then), (1.0, "ann", then)]


def test_a_file_without_times_imported_twice_adds_its_grades_once(graded, tmp_path):
    db_url, scorer_id, ids = graded
    path = tmp_path / "grades.csv"
    path.write_text(
        "example_id,grade,grader,note\n"
        f"{ids[0]},polite,ann,kind\n"
        f"{ids[0]},polite,ann,kind\n"  # the same grade twice in one file
        f"{ids[1]},rude,bob,\n",
        encoding="utf-8",
    )
    first = cli(db_url, "labels", "import", str(path), "--scorer", "tone-politeness")
    assert first.exit_code == 0, first.output
    assert (
        "Imported 2 grades from grades.csv. 1 grade was already stored and not added again."
        in first.output
    )
    again = cli(db_url, "labels", "import", str(path), "--scorer", "tone-politeness")
    assert again.exit_code == 0, again.output
    assert "Nothing new in grades.csv: its 3 grades are already stored." in again.output
    assert [len(_history(db_url, scorer_id, i)) for i in ids[:2]] == [1, 1]

    # Another grade came in between: the file's grade is newer news again, and is added.
    engine = make_engine(db_url)
    with session_scope(engine) as session:
        add_label(session, example_id=ids[1], scorer_id=scorer_id, value=1.0, labeller="cy")
    engine.dispose()
    third = cli(db_url, "labels", "import", str(path), "--scorer", "tone-politeness")
    assert "Imported 1 grade from grades.csv. 2 grades were already stored" in third.output
    assert _labels(db_url, scorer_id)[ids[1]] == (0.0, "bob", "")


def test_a_mapped_time_column_is_read_and_a_bad_time_is_a_bad_row(graded, tmp_path):
    db_url, scorer_id, ids = graded
    path = tmp_path / "grades.csv"
    path.write_text(
        "example_id,grade,grader,when\n"
        f"{ids[0]},polite,ann,2026-03-01T10:00:00+01:00\n"
        f"{ids[1]},rude,ann,1 March\n",
        encoding="utf-8",
    )
    done = cli(
        db_url,
        *("labels", "import", str(path), "--scorer", "tone-politeness", "--map", "time=when"),
    )
    assert done.exit_code == 0, done.output
    assert "Imported 1 grade from grades.csv." in done.output
    assert f'line 3: example {ids[1]}: the time "1 March" is not a date and time' in done.output
    assert _history(db_url, scorer_id, ids[0]) == [(1.0, "ann", datetime(2026, 3, 1, 9, 0))]


def test_a_number_grade_exports_in_full_and_imports_back_as_the_same_grade(graded, tmp_path):
    db_url, _, ids = graded
    engine = make_engine(db_url)
    with session_scope(engine) as session:
        version = save_scorer_version(session, spec=load_spec(DEMO / "faithfulness.json"))
        for example_id, value in zip(ids, (1 / 3, 0.75, 1.0), strict=True):
            add_label(
                session,
                example_id=example_id,
                scorer_id=version.scorer_id,
                value=value,
                labeller="ann",
            )
    engine.dispose()
    out = tmp_path / "grades.csv"
    exported = cli(db_url, "labels", "export", "--scorer", "faithfulness", "-o", str(out))
    assert exported.exit_code == 0, exported.output
    grades = [r["grade"] for r in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8")))]
    assert grades == [repr(1 / 3), "0.75", "1"]  # short where short is exact, never rounded
    again = cli(db_url, "labels", "import", str(out), "--scorer", "faithfulness")
    assert again.exit_code == 0, again.output
    assert "Nothing new in grades.csv: its 3 grades are already stored." in again.output
