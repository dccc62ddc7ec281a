"""Importing examples from CSV/JSONL (every bad row reported by line) and exporting them."""

from __future__ import annotations

import json

import pytest

from scorer_runtime.datasets import (
    ImportFailure,
    export_examples,
    import_examples,
    iter_dataset,
    parse_mapping,
)
from scorer_runtime.store import ExampleData, list_datasets, read_session, session_scope

GOOD_CSV = (
    """question,answer,expected,context,tags
How do I reset my password?,"Open Settings, then Security.",\
"[""settings"", ""security""]","{""channel"": ""chat""}","billing, urgent"
"A question
over two lines",[Note] see the FAQ,,,
"""
    + 'Did anyone answer?,"""""",,,\n'
)


def _import(engine, path, **options):
    with session_scope(engine) as session:
        return import_examples(session, path=path, **options)


def _examples(engine, name):
    with read_session(engine) as session:
        dataset = {d.name: d for d in list_datasets(session)}[name]
        return list(iter_dataset(session, dataset_id=dataset.id))


def _failure(engine, tmp_path, name, text, **options):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ImportFailure) as caught:
        _import(engine, path, **options)
    with read_session(engine) as session:
        assert list_datasets(session) == []  # an aborted import writes nothing
    return [str(issue) for issue in caught.value.issues], str(caught.value)


MAPPING = parse_mapping(
    ["input=question", "output=answer", "ground_truth=expected", "request_context=context"]
)


def test_csv_with_a_mapping_parses_json_cells_and_keeps_text(engine, tmp_path):
    path = tmp_path / "faq.csv"
    path.write_text(GOOD_CSV, encoding="utf-8")
    result = _import(engine, path, mapping=MAPPING)
    assert (result.dataset_name, result.imported, result.skipped) == ("faq", 3, [])
    assert _examples(engine, "faq") == [
        ExampleData(
            input="How do I reset my password?",
            output="Open Settings, then Security.",
            ground_truth=["settings", "security"],
            request_context={"channel": "chat"},
            tags=["billing", "urgent"],
        ),
        # An answer that merely starts with "[" stays text.
        ExampleData(input="A question\nover two lines", output="[Note] see the FAQ"),
        # A blank cell is an error, but a cell holding "" is an empty answer.
        ExampleData(input="Did anyone answer?", output=""),
    ]


def test_every_bad_csv_row_is_reported_with_its_line(engine, tmp_path):
    text = (
        "input,output,ground_truth,request_context,tags\n"  # line 1
        "q1,a1,,,\n"  # line 2: fine
        "q2,,,,\n"  # line 3: no output
        'q3,a3,"{""a"": 1,}",,\n'  # line 4: bad JSON ground truth
        "q4,a4,,[1],\n"  # line 5: context is not an object
        "q5,a5,,,\n"  # line 6: fine
        '"q6\nstill q6",,,,\n'  # lines 7-8: a quoted cell spanning two lines, no output
        "q7,a7,,,,extra\n"  # line 9: too many cells
        'q8,a8,,,"{""x"": 1}"\n'  # line 10: tags not a list
    )
    issues, message = _failure(engine, tmp_path, "bad.csv", text)
    assert issues == [
        'line 3: column "output" is empty',
        'line 4: column "ground_truth" is not valid JSON: Expecting property name enclosed '
        "in double quotes (at character 9)",
        'line 5: column "request_context" must be a JSON object like {"user": "ann"}, not a list',
        'line 7: column "output" is empty',
        "line 9: 6 cells, but the header has 5 columns",
        'line 10: column "tags" must be a list of words like ["billing", "urgent"], not an object',
    ]
    assert message.startswith("6 problems in bad.csv; nothing was imported:")
    assert "skip bad rows" in message


def test_skip_bad_rows_imports_the_good_ones_and_lists_the_rest(engine, tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        '{"input": "q1", "output": "a1", "tags": ["x"]}\n'
        "\n"
        '{"input": "q2", "output": }\n'
        '["not", "an", "object"]\n'
        '{"input": "q3"}\n'
        '{"question": "q4", "output": {"text": "a4"}, "ground_truth": 3}\n'
        '{"input": "q5", "output": null}\n'
        '{"input": "q6", "output": ""}\n',
        encoding="utf-8",
    )
    result = _import(engine, path, skip_bad_rows=True, dataset_name="mixed data")
    assert result.imported == 3
    assert [str(i) for i in result.skipped] == [
        "line 3: not valid JSON: Expecting value (column 27)",
        'line 4: expected a JSON object like {"input": …, "output": …}, got a list',
        'line 5: key "output" is missing',
        'line 7: key "output" is null',
    ]
    assert _examples(engine, "mixed data") == [
        ExampleData(input="q1", output="a1", tags=["x"]),
        ExampleData(output={"text": "a4"}, ground_truth=3),
        ExampleData(input="q6", output=""),  # an empty answer is data, to be scored as such
    ]


@pytest.mark.parametrize(
    ("name", "text", "options", "expected"),
    [
        ("empty.csv", "", {}, ["line 1: the file is empty"]),
        ("blank.jsonl", "\n\n", {}, ["line 1: the file is empty"]),
        (
            "header.csv",
            "input,answer\nq,a\n",
            {},
            [
                'line 1: no column "output" for the output; the columns are: input, answer. '
                "Map a column to output (e.g. output=answer)"
            ],
        ),
        (
            "mapped.csv",
            "input,output\nq,a\n",
            {"mapping": {"ground_truth": "expected"}},
            [
                'line 1: no column "expected" for the ground_truth; the columns are: input, '
                "output. Map a column to ground_truth (e.g. ground_truth=answer)"
            ],
        ),
        (
            "dupes.csv",
            "output,output\na,b\n",
            {},
            ["line 1: the header names 'output' more than once"],
        ),
        ("only-header.csv", "input,output\n", {}, ["line 1: the file has no examples to import"]),
    ],
)
def test_unusable_files_fail_whatever_the_skip_option(
    engine, tmp_path, name, text, options, expected
):
    issues, _ = _failure(engine, tmp_path, name, text, skip_bad_rows=True, **options)
    assert issues == expected


def test_a_file_that_is_not_utf8_names_the_line(engine, tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("input,output\nq,caf\xe9\n".encode("latin-1"))
    with pytest.raises(ImportFailure, match="line 2: the file is not UTF-8 text"):
        _import(engine, path)


def test_unknown_formats_and_mappings_are_explained():
    with pytest.raises(ValueError, match="unknown field 'inptu' in 'inptu=q'; fields: input, "):
        parse_mapping(["inptu=q"])
    with pytest.raises(ValueError, match="a mapping looks like input=question"):
        parse_mapping(["input"])
    from pathlib import Path

    from scorer_runtime.datasets import detect_format

    with pytest.raises(ValueError, match=r"cannot tell the format of data\.txt"):
        detect_format(Path("data.txt"))


ROUND_TRIP = [
    ExampleData(input="plain", output="text, with comma", ground_truth=None, tags=["a", "b"]),
    ExampleData(input={"messages": [{"role": "user"}]}, output="[starts like JSON]"),
    ExampleData(input='"quoted"', output='{"looks": "like json"}', ground_truth=["x", 2]),
    ExampleData(output="multi\nline", request_context={"user": "ann", "n": [1, 2]}),
    ExampleData(input="asked", output=""),
]


@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_export_then_import_gives_the_same_examples(engine, tmp_path, suffix):
    from tests.store.fixtures import make_dataset

    dataset_id = make_dataset(engine, "source", ROUND_TRIP)
    path = tmp_path / f"out.{suffix}"
    with read_session(engine) as session:
        assert export_examples(session, dataset_id=dataset_id, path=path) == len(ROUND_TRIP)
    if suffix == "jsonl":
        first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        assert first == {"input": "plain", "output": "text, with comma", "tags": ["a", "b"]}
    _import(engine, path, dataset_name="copy")
    assert _examples(engine, "copy") == ROUND_TRIP


def _stored_count(engine, name):
    return len(_examples(engine, name))


TWICE_CSV = "input,output,ground_truth\nq1,a1,g1\nq2,a2,\nq2,a2,\nq3,a3,g3\n"


def test_an_import_made_twice_adds_nothing_and_says_so(engine, tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text(TWICE_CSV, encoding="utf-8")
    first = _import(engine, path)
    assert (first.imported, first.already) == (4, 0)  # a row repeated on purpose is kept
    assert first.words("twice.csv") == "Imported 4 examples from twice.csv into dataset twice."
    again = _import(engine, path, append=True)
    assert (again.imported, again.already) == (0, 4)
    assert again.words("twice.csv") == (
        "Nothing added from twice.csv: its 4 examples are already stored in dataset twice."
    )
    # The same command again without "add to": the name is that dataset's, holding them all.
    same = _import(engine, path)
    assert (same.dataset_id, same.imported, same.already) == (first.dataset_id, 0, 4)
    assert _stored_count(engine, "twice") == 4


def test_only_the_new_rows_of_a_file_are_added(engine, tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text(TWICE_CSV, encoding="utf-8")
    _import(engine, path)
    grown = tmp_path / "grown.csv"
    # q1 again, q2 three times (stored twice), q3 with another ground truth, q4 new.
    grown.write_text(
        "input,output,ground_truth\nq1,a1,g1\nq2,a2,\nq2,a2,\nq2,a2,\nq3,a3,other\nq4,a4,\n",
        encoding="utf-8",
    )
    result = _import(engine, grown, dataset_name="twice", append=True)
    assert (result.imported, result.already) == (3, 3)
    assert result.words("grown.csv") == (
        "Imported 3 examples from grown.csv into dataset twice: 3 new, 3 already stored "
        "(not added again)."
    )
    added = _examples(engine, "twice")[4:]
    assert [(e.input, e.ground_truth) for e in added] == [
        ("q2", None),
        ("q3", "other"),
        ("q4", None),
    ]


def test_the_same_content_in_another_format_or_key_order_is_already_stored(engine, tmp_path):
    csv_path = tmp_path / "ctx.csv"
    csv_path.write_text(
        'input,output,request_context,tags\nq,a,"{""b"": 1, ""a"": [1, 2]}","x, y"\n',
        encoding="utf-8",
    )
    _import(engine, csv_path)
    jsonl = tmp_path / "ctx.jsonl"
    jsonl.write_text(
        '{"output": "a", "input": "q", "tags": ["x", "y"], '
        '"request_context": {"a": [1, 2], "b": 1}}\n',
        encoding="utf-8",
    )
    result = _import(engine, jsonl, dataset_name="ctx", append=True)
    assert (result.imported, result.already) == (0, 1)
    other = tmp_path / "other.jsonl"  # another tag: another example
    other.write_text('{"input": "q", "output": "a", "tags": ["x"]}\n', encoding="utf-8")
    assert _import(engine, other, dataset_name="ctx", append=True).imported == 1


def test_a_taken_name_whose_dataset_lacks_rows_of_the_file_is_refused(engine, tmp_path):
    from scorer_runtime.store import ConflictError

    path = tmp_path / "twice.csv"
    path.write_text(TWICE_CSV, encoding="utf-8")
    _import(engine, path)
    grown = tmp_path / "grown.csv"
    grown.write_text(TWICE_CSV + "q9,a9,\n", encoding="utf-8")
    with pytest.raises(ConflictError, match="lacks 1 example of this file"):
        _import(engine, grown, dataset_name="twice")
    assert _stored_count(engine, "twice") == 4
