"""Reading a label file: columns mapped as in a dataset import, every bad row said by its line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from scorer_runtime.datasets import parse_labels
from scorer_runtime.trust import Scale

POLITENESS = Scale("labels", (("polite", 1.0), ("neutral", 0.5), ("rude", 0.0)))
PASS_FAIL = Scale("pass_fail")
NUMBER = Scale("number", low=0.0, high=10.0)


def test_grades_are_read_as_a_score_or_a_name_of_the_scale() -> None:
    text = "example_id,grade,grader,note\n1,polite,ann,\n2,0.5,ann,so-so\n3,RUDE,bob,shouted\n"
    parsed = parse_labels(text, scale=POLITENESS)
    assert parsed.issues == []
    assert [(r.line, r.example_id, r.value, r.grader, r.note) for r in parsed.rows] == [
        (2, 1, 1.0, "ann", ""),
        (3, 2, 0.5, "ann", "so-so"),
        (4, 3, 0.0, "bob", "shouted"),
    ]


def test_the_grade_name_column_is_read_when_the_grade_is_empty() -> None:
    text = "example_id,grade,grade_name,grader\n1,,pass,ann\n2,0,fail,ann\n"
    parsed = parse_labels(text, scale=PASS_FAIL)
    assert [(r.example_id, r.value) for r in parsed.rows] == [(1, 1.0), (2, 0.0)]


def test_columns_are_mapped_like_a_dataset_import() -> None:
    text = "id,verdict,who\n7,pass,ann\n"
    mapping = {"example_id": "id", "grade": "verdict", "grader": "who"}
    parsed = parse_labels(text, scale=PASS_FAIL, mapping=mapping)
    assert [(r.example_id, r.value, r.grader) for r in parsed.rows] == [(7, 1.0, "ann")]


def test_bad_rows_are_said_by_their_line_and_the_good_ones_kept() -> None:
    text = (
        "example_id,grade,grader\n"
        "1,0.7,ann\n"
        "x,polite,ann\n"
        "2,polite,\n"
        "3,,ann\n"
        "4,kind,ann\n"
        "5,polite,ann,extra\n"
        "6,neutral,ann\n"
    )
    parsed = parse_labels(text, scale=POLITENESS)
    assert [r.example_id for r in parsed.rows] == [6]
    assert [str(issue) for issue in parsed.issues] == [
        "line 2: example 1: 0.7 is not a grade of this scorer; its grades are polite = 1, "
        "neutral = 0.5, rude = 0",
        'line 3: the example id is "x"; it must be a whole number',
        "line 4: example 2 has no grader; say who graded it",
        "line 5: example 3 has no grade",
        'line 6: example 4: "kind" is not a grade of this scorer; its grades are polite, '
        "neutral, rude",
        "line 7: 4 cells, but the header has 3 columns",
    ]


def test_a_number_off_the_range_is_refused_in_words() -> None:
    parsed = parse_labels("example_id,grade,grader\n1,11,ann\n2,nan,ann\n3,7.5,ann\n", scale=NUMBER)
    assert [r.value for r in parsed.rows] == [7.5]
    assert [str(issue) for issue in parsed.issues] == [
        "line 2: example 1: 11 is outside this scorer's range, 0 to 10",
        "line 3: example 2: the grade is not a number",
    ]


def test_a_file_without_the_needed_columns_is_refused_as_a_whole() -> None:
    no_grade = parse_labels("example_id,grader\n1,ann\n", scale=PASS_FAIL)
    no_grader = parse_labels("example_id,grade\n1,pass\n", scale=PASS_FAIL)
    empty = parse_labels("", scale=PASS_FAIL)
    assert no_grade.fatal
    assert no_grader.fatal
    assert empty.fatal
    assert str(no_grade.issues[0]).startswith('line 1: no column "grade" or "grade_name"')
    assert str(no_grader.issues[0]).startswith('line 1: no column "grader" for the grader')
    assert str(empty.issues[0]) == "line 1: the file is empty"


def test_a_grader_too_long_to_keep_or_a_huge_note_is_a_bad_row() -> None:
    name = "a" * 201
    note = "n" * (1024 * 1024 + 1)
    text = f"example_id,grade,grader,note\n1,pass,{name},\n2,pass,ann,{note}\n3,pass,{'b' * 200},\n"
    parsed = parse_labels(text, scale=PASS_FAIL)
    assert [r.example_id for r in parsed.rows] == [3]
    assert [str(issue) for issue in parsed.issues] == [
        "line 2: example 1: the grader's name is 201 characters; at most 200",
        "line 3: example 2: the note is 1.0 MB; the limit is 1 MB",
    ]


def test_the_time_a_grade_was_given_is_read_with_or_without_its_zone() -> None:
    text = (
        "example_id,grade,grader,time\n"
        "1,pass,ann,2026-03-01T09:30:00+02:00\n"
        "2,pass,ann,2026-03-01 09:30:00\n"
        "3,fail,ann,2026-03-01T09:30:00Z\n"
        "4,fail,ann,\n"
    )
    parsed = parse_labels(text, scale=PASS_FAIL)
    assert parsed.issues == []
    assert [(r.example_id, r.time) for r in parsed.rows] == [
        (1, datetime(2026, 3, 1, 7, 30, tzinfo=UTC)),
        (2, datetime(2026, 3, 1, 9, 30, tzinfo=UTC)),  # no zone: UTC
        (3, datetime(2026, 3, 1, 9, 30, tzinfo=UTC)),
        (4, None),  # no time: the import's own
    ]


def test_a_bad_or_future_time_is_a_bad_row_said_by_its_line() -> None:
    tomorrow_and_more = (datetime.now(UTC) + timedelta(days=3)).isoformat(timespec="seconds")
    text = (
        "id,grade,grader,graded on\n"
        "1,pass,ann,yesterday\n"
        "2,pass,ann,2026-02-30T10:00:00\n"
        f"3,pass,ann,{tomorrow_and_more}\n"
        "4,fail,ann,2026-03-01T10:00:00\n"
    )
    parsed = parse_labels(text, scale=PASS_FAIL, mapping={"example_id": "id", "time": "graded on"})
    assert [(r.example_id, r.time) for r in parsed.rows] == [
        (4, datetime(2026, 3, 1, 10, 0, tzinfo=UTC))
    ]
    assert [str(issue) for issue in parsed.issues] == [
        'line 2: example 1: the time "yesterday" is not a date and time; write it as '
        "2026-03-01T09:30:00 (UTC) or with its zone, e.g. 2026-03-01T09:30:00+02:00",
        'line 3: example 2: the time "2026-02-30T10:00:00" is not a date and time; write it '
        "as 2026-03-01T09:30:00 (UTC) or with its zone, e.g. 2026-03-01T09:30:00+02:00",
        f"line 4: example 3: the time {tomorrow_and_more} is in the future; say when the "
        "example was graded",
    ]


def test_a_spreadsheet_without_ids_is_read_by_its_usual_column_names() -> None:
    text = "Question,Answer,Verdict,Comments\nWhere?,Here.,pass,ok\n,Only an answer,FAIL,\n"
    parsed = parse_labels(text, scale=PASS_FAIL, grader="sheet.csv")
    assert parsed.issues == []
    assert [(r.example_id, r.input, r.output, r.value, r.grader, r.note) for r in parsed.rows] == [
        (None, "Where?", "Here.", 1.0, "sheet.csv", "ok"),
        (None, "", "Only an answer", 0.0, "sheet.csv", ""),
    ]


def test_the_example_number_finds_the_example_and_an_id_wins_over_content() -> None:
    text = (
        "example_id,#,input,output,grade,grader\n7,,q,a,pass,ann\n,3,q,a,pass,ann\n,x,,,pass,ann\n"
    )
    parsed = parse_labels(text, scale=PASS_FAIL)
    assert [(r.example_id, r.number, r.input) for r in parsed.rows] == [
        (7, None, None),  # the id says which: the content is not needed
        (None, 3, None),
    ]
    assert [str(i) for i in parsed.issues] == [
        'line 4: the example number is "x"; it must be a whole number from 1'
    ]


def test_a_file_that_names_no_example_or_no_grader_is_refused_in_words() -> None:
    nothing = parse_labels("grade,grader\npass,ann\n", scale=PASS_FAIL)
    assert nothing.fatal
    assert str(nothing.issues[0]) == (
        "line 1: no column says which example a row grades: give its example_id, its number "
        "in the dataset, or its input and output (e.g. columns question and answer); the "
        "columns are: grade, grader"
    )
    no_grader = parse_labels("question,answer,grade\nq,a,pass\n", scale=PASS_FAIL)
    assert no_grader.fatal
    assert "or say who graded the file" in str(no_grader.issues[0])
    empty_row = parse_labels("question,answer,grade,grader\n,,pass,ann\n", scale=PASS_FAIL)
    assert [str(i) for i in empty_row.issues] == [
        "line 2: the row does not say which example it grades (all empty)"
    ]
