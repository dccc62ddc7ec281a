"""``scorer-studio labels import`` of a person's spreadsheet: no example ids, only the question,
the answer and a grade (or the example's number), matched to the stored examples by content.
Agreement computed from such a file is the same as from the file with ids."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from scorer_runtime.store import latest_labels, list_examples, make_engine, read_session
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec

N = 120
ANSWERS = ["fine answer" if i % 3 else "poor answer" for i in range(N)]
"""120 answers, only two distinct texts: an example is told apart by its question."""


def _grade(i: int) -> str:
    """The person's grade of answer ``i``: the judge's, except on every seventh."""
    agrees = ANSWERS[i] == "fine answer"
    return "good" if agrees != (i % 7 == 0) else "bad"


def _scored(db_url: str, tmp_path: Path, fake_judge) -> dict[str, int]:
    """The verdict scorer run over the 120 answers; their ids by question."""
    spec = write_spec(tmp_path, verdict_spec(fake_judge.base_url))
    assert cli(db_url, "scorers", "import", str(spec)).exit_code == 0
    answers = write_examples(tmp_path, ANSWERS)
    assert cli(db_url, "datasets", "import", str(answers), "--name", "answers").exit_code == 0
    fake_judge.reply({"verdict": "bad"}, when="poor")
    fake_judge.reply({"verdict": "good"})
    done = cli(db_url, "run", "verdict", "answers")
    assert done.exit_code == 0, done.output
    engine = make_engine(db_url)
    with read_session(engine) as session:
        examples = list_examples(session, dataset_id=1, limit=N)
    engine.dispose()
    return {str(e.input): e.id for e in examples}


def _write(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(stream.getvalue(), encoding="utf-8")
    return path


def _agreement(db_url: str) -> dict:
    result = cli(db_url, "agreement", "verdict", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _grades(db_url: str) -> dict[int, float]:
    engine = make_engine(db_url)
    with read_session(engine) as session:
        found = {k: v.value for k, v in latest_labels(session, scorer_id=1).items()}
    engine.dispose()
    return found


@pytest.fixture
def judge_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")


def test_a_sheet_of_input_output_and_grade_imports_every_row_and_agrees_as_with_ids(
    db_url, tmp_path, fake_judge, judge_key
):
    ids = _scored(db_url, tmp_path, fake_judge)
    sheet = _write(
        tmp_path / "sheet.csv",
        ["input", "output", "grade"],
        [[f"question {i}", ANSWERS[i], _grade(i)] for i in range(N)],
    )
    done = cli(db_url, "labels", "import", str(sheet), "--scorer", "verdict")
    assert done.exit_code == 0, done.output
    assert done.output.strip() == f"Imported {N} grades from sheet.csv."
    by_content = _agreement(db_url)
    assert by_content["n"] == N

    # The same grades with ids, in a database of its own holding the same run.
    other_dir = tmp_path / "by-id"
    other_dir.mkdir()
    other = f"sqlite:///{other_dir / 'store.db'}"
    other_ids = _scored(other, other_dir, fake_judge)
    with_ids = _write(
        tmp_path / "with-ids.csv",
        ["example_id", "grade", "grader"],
        [[other_ids[f"question {i}"], _grade(i), "sheet.csv"] for i in range(N)],
    )
    done = cli(other, "labels", "import", str(with_ids), "--scorer", "verdict")
    assert done.exit_code == 0, done.output
    assert _agreement(other) == by_content
    # Each grade landed on the example it was written for.
    expected = {ids[f"question {i}"]: float(_grade(i) == "good") for i in range(N)}
    assert _grades(db_url) == expected
    # Imported again: every row found, none added twice.
    again = cli(db_url, "labels", "import", str(sheet), "--scorer", "verdict")
    assert f"Nothing new in sheet.csv: its {N} grades are already stored." in again.output
    assert _agreement(db_url) == by_content


def test_usual_column_names_numbers_and_rows_that_match_nothing_or_several(
    db_url, tmp_path, fake_judge, judge_key
):
    ids = _scored(db_url, tmp_path, fake_judge)
    sheet = _write(
        tmp_path / "priya.csv",
        ["Question", "Answer", "Verdict", "Reviewer"],
        [
            ["question 1", "fine answer", "good", "Priya"],
            ["  question 2 ", "fine   answer", "bad", "Priya"],  # spaces do not matter
            ["question 1", "poor answer", "good", "Priya"],  # no such pair
            ["", "fine answer", "good", "Priya"],  # an empty question: no such example
        ],
    )
    done = cli(db_url, "labels", "import", str(sheet), "--scorer", "verdict")
    assert done.exit_code == 0, done.output
    assert "Imported 2 grades from priya.csv." in done.output
    assert (
        'line 4: the example "question 1" / "poor answer": no example of any dataset says this'
        in done.output
    )
    assert 'line 5: the example "" / "fine answer": no example of any dataset says this' in (
        done.output
    )
    assert _grades(db_url) == {ids["question 1"]: 1.0, ids["question 2"]: 0.0}

    # Only the answer: 80 examples say "fine answer", so the row names none of them.
    answers_only = _write(tmp_path / "answers.csv", ["answer", "grade"], [["fine answer", "bad"]])
    several = cli(db_url, "labels", "import", str(answers_only), "--scorer", "verdict")
    assert several.exit_code == 2
    assert "80 examples say this (example 2 of answers, example 3 of answers" in several.stderr
    assert "add an example_id or number column, or choose the dataset" in several.stderr

    # By number in the dataset (what the grid shows as #): needs the dataset.
    numbered = _write(tmp_path / "numbered.csv", ["#", "grade"], [[1, "bad"], [121, "good"]])
    no_dataset = cli(db_url, "labels", "import", str(numbered), "--scorer", "verdict")
    assert no_dataset.exit_code == 2
    assert "say which dataset the examples' numbers are in" in no_dataset.stderr
    done = cli(
        db_url, "labels", "import", str(numbered), "--scorer", "verdict", "--dataset", "answers"
    )
    assert done.exit_code == 0, done.output
    assert "Imported 1 grade from numbered.csv." in done.output
    assert "line 3: example number 121: no example of dataset answers says this" in done.output
    assert _grades(db_url)[ids["question 0"]] == 0.0
