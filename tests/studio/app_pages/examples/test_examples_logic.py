"""The Examples page's Streamlit-free logic, on a real SQLite file."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from scorer_runtime.datasets import ImportFailure, parse_examples
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ExampleData,
    add_examples,
    add_scores,
    create_dataset,
    create_run,
    list_examples,
    read_session,
    save_scorer_version,
    session_scope,
)
from scorer_runtime.store.views import dataset_rows
from studio.app_pages.examples.logic import (
    ArchiveImpact,
    GridChanges,
    GridSaveError,
    archive_impact,
    can_leave_out,
    cell_text,
    changes_from_editor,
    check_file,
    example_page,
    export_bytes,
    export_file_name,
    grid_height,
    guess_mapping,
    import_upload,
    preview_file,
    read_cell,
    save_changes,
)

ROOT = Path(__file__).resolve().parents[4]


def _dataset(engine, name="qa", count=3) -> int:
    with session_scope(engine) as session:
        dataset = create_dataset(session, name=name, description="questions")
        add_examples(
            session,
            dataset_id=dataset.id,
            examples=[ExampleData(input=f"q{i}", output=f"a{i}") for i in range(count)],
        )
        return int(dataset.id)


def _examples(engine, dataset_id):
    with read_session(engine) as session:
        return list(list_examples(session, dataset_id=dataset_id, limit=1000))


def _score(engine, dataset_id: int, example_id: int) -> None:
    with session_scope(engine) as session:
        version = save_scorer_version(
            session,
            spec=load_spec(
                {
                    "id": "len",
                    "description": "d",
                    "steps": [{"step": "generate_score", "formula": "1"}],
                }
            ),
        )
        run = create_run(session, scorer_version_id=version.id, dataset_id=dataset_id)
        add_scores(
            session,
            rows=[
                {
                    "run_id": run.id,
                    "example_id": example_id,
                    "scorer_id": version.scorer_id,
                    "scorer_version_id": version.id,
                    "dataset_id": dataset_id,
                    "outcome": "scored",
                    "score": 1.0,
                }
            ],
        )


# -- datasets --------------------------------------------------------------------------------


def test_archive_impact_counts_examples_runs_and_scores(studio_db):
    dataset_id = _dataset(studio_db, "qa", 4)
    _score(studio_db, dataset_id, _examples(studio_db, dataset_id)[0].id)
    with read_session(studio_db) as session:
        impact = archive_impact(session, dataset_id=dataset_id)
    assert (impact.examples, impact.runs, impact.scores) == (4, 1, 1)
    sentence = impact.sentence("qa")
    assert "4 examples" in sentence
    assert "1 run and 1 score" in sentence
    assert "restore" in sentence
    unused = ArchiveImpact(examples=1, runs=0, scores=0).sentence("new")
    assert "its 1 example from" in unused
    assert "no run has used it yet" in unused


def test_example_pages_are_read_in_the_database(studio_db):
    dataset_id = _dataset(studio_db, "big", 120)
    _dataset(studio_db, "other", 5)  # rows of another dataset never leak in
    with read_session(studio_db) as session:
        first = example_page(session, dataset_id=dataset_id, page=1)
        last = example_page(session, dataset_id=dataset_id, page=3)
        beyond = example_page(session, dataset_id=dataset_id, page=9)
    assert (first.total, first.pages, len(first.rows), first.first_number) == (120, 3, 50, 1)
    assert [r.cells["input"] for r in first.rows[:2]] == ["q0", "q1"]
    assert (len(last.rows), last.first_number) == (20, 101)
    assert last.rows[0].cells["input"] == "q100"
    assert last.label() == "Examples 101–120 of 120"
    assert beyond.page == 3
    assert beyond.rows == last.rows


def test_an_empty_dataset_has_one_empty_page(studio_db):
    dataset_id = _dataset(studio_db, "empty", 0)
    with read_session(studio_db) as session:
        page = example_page(session, dataset_id=dataset_id, page=2)
    assert (page.page, page.pages, page.rows, page.label()) == (1, 1, [], "No examples yet")


# -- grid ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("input", "plain text"),
        ("input", {"messages": [1, 2]}),
        ("output", ""),
        ("output", "[not json"),
        ("ground_truth", ["a", "b"]),
        ("request_context", {"user": "ann"}),
        ("tags", ["billing", "urgent"]),
        ("ground_truth", None),
    ],
)
def test_cells_read_back_to_the_value_they_show(name, value):
    assert read_cell(name, cell_text(name, value)) == value


def test_tags_show_as_words():
    assert cell_text("tags", ["billing", "urgent"]) == "billing, urgent"


def test_changes_from_editor_state(studio_db):
    dataset_id = _dataset(studio_db, "qa", 3)
    with read_session(studio_db) as session:
        rows = example_page(session, dataset_id=dataset_id).rows
    state = {
        "edited_rows": {"0": {"output": "changed"}, 1: {"output": "a1"}, 2: {"input": "x"}},
        "added_rows": [{"input": "new", "output": "fresh"}, {}],
        "deleted_rows": [2],
    }
    changes = changes_from_editor(rows, state)
    # Row 1 was "edited" to its own value; row 2 is deleted, so its edit does not count.
    assert changes.updates == {rows[0].id: {"output": "changed"}}
    assert changes.added == [{"input": "new", "output": "fresh"}]
    assert changes.deleted == [rows[2].id]
    assert changes.summary() == "1 changed, 1 new, 1 deleted"
    assert changes_from_editor(rows, None).empty


def test_save_changes_updates_adds_and_deletes(studio_db):
    dataset_id = _dataset(studio_db, "qa", 3)
    with read_session(studio_db) as session:
        rows = example_page(session, dataset_id=dataset_id).rows
    changes = GridChanges(
        updates={rows[0].id: {"output": "better", "request_context": '{"user": "ann"}'}},
        added=[{"input": "new", "output": '""', "tags": "billing, urgent"}],
        deleted=[rows[1].id],
    )
    with session_scope(studio_db) as session:
        result = save_changes(session, dataset_id=dataset_id, rows=rows, changes=changes)
    assert result.sentence() == "Saved: 1 changed, 1 added, 1 deleted."
    stored = _examples(studio_db, dataset_id)
    assert [(e.input, e.output) for e in stored] == [("q0", "better"), ("q2", "a2"), ("new", "")]
    assert stored[0].request_context == {"user": "ann"}
    assert stored[2].tags == ["billing", "urgent"]


def test_save_changes_reports_every_problem_and_writes_nothing(studio_db):
    dataset_id = _dataset(studio_db, "qa", 3)
    scored = _examples(studio_db, dataset_id)[2]
    _score(studio_db, dataset_id, scored.id)
    with read_session(studio_db) as session:
        rows = example_page(session, dataset_id=dataset_id).rows
    changes = GridChanges(
        updates={
            rows[0].id: {"output": "fine"},
            rows[1].id: {"request_context": '{"user": ', "output": ""},
        },
        added=[{"input": "no answer"}],
        deleted=[scored.id],
    )
    with pytest.raises(GridSaveError) as caught, session_scope(studio_db) as session:
        save_changes(session, dataset_id=dataset_id, rows=rows, changes=changes, first_number=51)
    problems = [str(p) for p in caught.value.problems]
    assert problems[0].startswith("row 52, Request context: is not valid JSON")
    assert problems[1].startswith("row 52, Output: the output is empty")
    assert problems[2].startswith("new row 1, Output: the output is empty")
    assert problems[3].startswith("row 53: it has 1 stored score")
    assert len(problems) == 4
    assert [e.output for e in _examples(studio_db, dataset_id)] == ["a0", "a1", "a2"]


# -- files -----------------------------------------------------------------------------------

CSV_TEXT = (
    "question,answer,expected,labels\n"
    "What is 2+2?,4,4,math\n"
    "Capital of France?,,Paris,geo\n"
    'Say hi,"hello, there",,"greeting, short"\n'
)


def test_preview_and_guessed_mapping_of_a_csv():
    preview = preview_file(CSV_TEXT, "csv", limit=2)
    assert preview.columns == ["question", "answer", "expected", "labels"]
    assert preview.rows[0] == {
        "question": "What is 2+2?",
        "answer": "4",
        "expected": "4",
        "labels": "math",
    }
    assert len(preview.rows) == 2
    assert guess_mapping(preview.columns) == {
        "input": "question",
        "output": "answer",
        "ground_truth": "expected",
        "tags": "labels",
    }


def test_preview_of_jsonl_skips_bad_lines_and_unions_keys():
    text = '{"input": "a", "output": "b"}\nnot json\n{"output": "c", "tags": ["x"]}\n'
    preview = preview_file(text, "jsonl")
    assert preview.columns == ["input", "output", "tags"]
    assert preview.rows[1] == {"output": "c", "tags": '["x"]'}


def test_a_field_named_column_cannot_be_left_out():
    assert not can_leave_out("input", ["input", "answer"])
    assert can_leave_out("input", ["question", "answer"])
    assert not can_leave_out("output", ["question"])


def test_check_file_lists_bad_rows_with_their_lines():
    checked = check_file(CSV_TEXT, "csv", {"input": "question", "output": "answer"})
    assert checked.good == 2
    assert not checked.fatal
    assert [str(i) for i in checked.issues] == ['line 3: column "answer" (output) is empty']


def test_import_upload_all_or_nothing_then_skip_bad_rows(studio_db):
    mapping = {
        "input": "question",
        "output": "answer",
        "ground_truth": "expected",
        "tags": "labels",
    }
    data = CSV_TEXT.encode()
    with pytest.raises(ImportFailure) as caught, session_scope(studio_db) as session:
        import_upload(
            session,
            data=data,
            filename="quiz.csv",
            dataset_name="quiz",
            mapping=mapping,
            skip_bad_rows=False,
            append=False,
        )
    assert [i.line for i in caught.value.issues] == [3]
    with read_session(studio_db) as session:
        assert dataset_rows(session) == []
    with session_scope(studio_db) as session:
        result = import_upload(
            session,
            data=data,
            filename="quiz.csv",
            dataset_name="quiz",
            mapping=mapping,
            skip_bad_rows=True,
            append=False,
        )
    assert (result.dataset_name, result.imported, [i.line for i in result.skipped]) == (
        "quiz",
        2,
        [3],
    )
    stored = _examples(studio_db, result.dataset_id)
    assert [(e.input, e.output, e.tags) for e in stored] == [
        ("What is 2+2?", "4", ["math"]),
        ("Say hi", "hello, there", ["greeting", "short"]),
    ]


def test_import_upload_appends_to_an_existing_dataset(studio_db):
    dataset_id = _dataset(studio_db, "qa", 2)
    with session_scope(studio_db) as session:
        result = import_upload(
            session,
            data=b'{"input": "more", "output": "rows"}\n',
            filename="more.jsonl",
            dataset_name="qa",
            mapping={},
            skip_bad_rows=False,
            append=True,
        )
    assert (result.dataset_id, result.imported) == (dataset_id, 1)
    assert [e.input for e in _examples(studio_db, dataset_id)] == ["q0", "q1", "more"]


def test_export_round_trips_through_csv_and_jsonl(studio_db):
    with session_scope(studio_db) as session:
        dataset = create_dataset(session, name="mixed")
        add_examples(
            session,
            dataset_id=dataset.id,
            examples=[
                ExampleData(input={"q": 1}, output="[looks like json", ground_truth=["a"]),
                ExampleData(input="hi", output="", request_context={"u": "ann"}, tags=["x"]),
            ],
        )
        dataset_id = int(dataset.id)
    with read_session(studio_db) as session:
        as_csv = export_bytes(session, dataset_id=dataset_id, format="csv").decode()
        as_jsonl = export_bytes(session, dataset_id=dataset_id, format="jsonl").decode()
    header, *rows = list(csv.reader(io.StringIO(as_csv)))
    assert header == ["input", "output", "ground_truth", "request_context", "tags"]
    assert len(rows) == 2
    assert [json.loads(line)["input"] for line in as_jsonl.splitlines()] == [{"q": 1}, "hi"]
    for text, fmt in ((as_csv, "csv"), (as_jsonl, "jsonl")):
        assert check_file(text, fmt, {}).issues == []
        parsed = parse_examples(text, format=fmt)
        assert [(e.input, e.output, e.request_context, e.tags) for e in parsed.examples] == [
            ({"q": 1}, "[looks like json", None, None),
            ("hi", "", {"u": "ann"}, ["x"]),
        ]


def test_export_file_names_are_safe():
    assert export_file_name("support answers/june", "csv") == "support_answers_june.csv"
    assert export_file_name("...", "jsonl") == "dataset.jsonl"


def test_the_grid_shows_at_least_five_rows_and_grows_with_the_data():
    row = 35
    rows_shown = {stored: (grid_height(stored) - 3) // row - 1 for stored in (0, 1, 2, 5, 9, 50)}
    assert rows_shown[0] == rows_shown[1] == rows_shown[2] == 5  # never a one-row grid
    assert rows_shown[5] == 8  # every row, and room below the last for new ones
    assert rows_shown[9] == 12
    assert rows_shown[50] == 15  # then it scrolls inside itself


def test_the_same_changes_have_the_same_fingerprint():
    one = GridChanges(updates={3: {"output": "x"}}, added=[{"input": "q", "output": "a"}])
    same = GridChanges(updates={3: {"output": "x"}}, added=[{"output": "a", "input": "q"}])
    other = GridChanges(added=[{"input": "q", "output": "a"}, {"input": "q", "output": "a"}])
    assert one.digest() == same.digest()
    assert one.digest() != other.digest()
