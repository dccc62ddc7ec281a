"""Files that are valid and used to be refused or altered, read as they are: JSON lines with
U+2028 and U+0085 inside a text, UTF-16 (with or without its byte-order mark), CR-only line
endings, YAML's yes/no/off as the words typed, columns no field reads said (not dropped
without a word), and a trace's looping spans left out of what is stored (not stored as if
fine). Each through the command line and through the studio's upload, checked in the store.
"""

from __future__ import annotations

import json

import pytest
import yaml
from sqlalchemy import Engine

from scorer_runtime.store import (
    ExampleData,
    ensure_schema,
    get_dataset,
    get_scorer,
    get_trace,
    latest_version,
    list_examples,
    make_engine,
    read_session,
    session_scope,
)
from studio import state
from studio.app_pages.examples.logic import import_upload
from studio.app_pages.export.logic import check_import, save_import
from studio.app_pages.traces.logic import read_upload
from tests.cli.helpers import KEY_ENV, cli
from tests.hostile.inputs_altered import _span
from tests.store.fixtures import db_url
from tests.studio.conftest import open_page, studio_db

__all__ = ["db_url", "open_page", "studio_db"]  # fixtures of the tests below

EXAMPLES = [
    ExampleData(input="Où est ma commande ?", output="Elle part demain 📦"),
    ExampleData(input="two\nlines", output="kept, with a comma"),
]
LINES = [
    "input,output",
    "Où est ma commande ?,Elle part demain 📦",
    '"two\nlines","kept, with a comma"',
]
CSV_TEXT = "\n".join(LINES) + "\n"


def _encodings() -> dict[str, bytes]:
    """The same CSV in every encoding and line ending the importer must read."""
    crlf = "\r\n".join(LINES) + "\r\n"  # as Excel writes it: LF alone inside a cell
    return {
        "utf-8": CSV_TEXT.encode(),
        "utf-8 with its byte-order mark": b"\xef\xbb\xbf" + CSV_TEXT.encode(),
        "utf-16 with its byte-order mark": CSV_TEXT.encode("utf-16"),
        "utf-16 little-endian, no byte-order mark": CSV_TEXT.encode("utf-16-le"),
        "utf-16 big-endian, no byte-order mark": CSV_TEXT.encode("utf-16-be"),
        "utf-16 with CRLF": crlf.encode("utf-16"),
        "CR-only line endings": CSV_TEXT.replace("\n", "\r").encode(),  # an old Mac's file
    }


def _examples(url: str, name: str) -> list[ExampleData]:
    engine = make_engine(url)
    try:
        with read_session(engine) as session:
            dataset = get_dataset(session, name=name)
            records = list_examples(session, dataset_id=dataset.id, limit=100)
            return [ExampleData.of(r) for r in records]
    finally:
        engine.dispose()


def _said(result) -> str:
    return " ".join(result.output.split())


# -- examples: the command line ----------------------------------------------------------------


@pytest.mark.parametrize("encoding", list(_encodings()))
def test_the_command_line_reads_every_encoding_and_line_ending(db_url, tmp_path, encoding):
    path = tmp_path / "orders.csv"
    path.write_bytes(_encodings()[encoding])
    done = cli(db_url, "datasets", "import", str(path))
    assert done.exit_code == 0, done.output
    assert _examples(db_url, "orders") == EXAMPLES


def test_json_lines_with_u2028_and_u0085_inside_a_text_import_and_export_whole(db_url, tmp_path):
    rows = [{"input": "a\u2028b", "output": "c\u0085d"}, {"input": "e\u2029f", "output": "g"}]
    path = tmp_path / "separators.jsonl"
    # Raw characters (ensure_ascii=False), as editors and other tools write them.
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    assert cli(db_url, "datasets", "import", str(path)).exit_code == 0
    assert _examples(db_url, "separators") == [ExampleData(**r) for r in rows]

    exported = tmp_path / "out.jsonl"
    assert cli(db_url, "datasets", "export", "separators", str(exported)).exit_code == 0
    again = cli(db_url, "datasets", "import", str(exported), "--name", "again")
    assert again.exit_code == 0, again.output
    assert _examples(db_url, "again") == [ExampleData(**r) for r in rows]


def test_json_lines_with_cr_only_line_endings_import(db_url, tmp_path):
    path = tmp_path / "mac.jsonl"
    path.write_bytes(b'{"input": "q1", "output": "a1"}\r{"input": "q2", "output": "a2"}\r')
    assert cli(db_url, "datasets", "import", str(path)).exit_code == 0
    assert [e.output for e in _examples(db_url, "mac")] == ["a1", "a2"]


def test_columns_no_field_reads_are_named_not_dropped_without_a_word(db_url, tmp_path):
    path = tmp_path / "sheet.csv"
    path.write_text("input,output,notes,,source,\nq,a,check this,x,web,\nq2,a2,,,,\n", "utf-8")
    done = cli(db_url, "datasets", "import", str(path))
    assert done.exit_code == 0
    said = _said(done)
    assert "Imported 2 examples from sheet.csv into dataset sheet." in said
    assert "Not imported: line 1 names columns no field of an example reads: notes, source" in said
    # The unnamed column 4 holds a value; the empty unnamed column 6 is no loss to report.
    assert "column 4 has no name on line 1 but holds values (the first on line 2)" in said
    assert "column 6" not in said
    mapped = cli(db_url, "datasets", "import", str(path), "--name", "b", "--map", "tags=notes")
    assert "notes" not in _said(mapped).partition("reads:")[2].split("(")[0]
    assert _examples(db_url, "b")[0].tags == ["check this"]


def test_ten_thousand_extra_columns_are_counted_in_one_sentence(db_url, tmp_path):
    extra = [f"c{i}" for i in range(10_000)]
    path = tmp_path / "wide.csv"
    path.write_text(f"input,output,{','.join(extra)}\nq,a,{','.join('x' * 10_000)}\n", "utf-8")
    done = cli(db_url, "datasets", "import", str(path))
    assert done.exit_code == 0
    assert "c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 and 9,990 more" in _said(done)
    assert len(done.output.strip().splitlines()) == 1


def test_json_keys_no_field_reads_are_named(db_url, tmp_path):
    path = tmp_path / "keys.jsonl"
    path.write_text('{"output": "a"}\n{"output": "b", "notes": "n", "score": 3}\n', "utf-8")
    done = cli(db_url, "datasets", "import", str(path))
    assert done.exit_code == 0
    assert "Not imported: the keys notes (line 2), score (line 2)" in _said(done)


# -- examples: the studio's upload ---------------------------------------------------------------


@pytest.mark.parametrize("encoding", list(_encodings()))
def test_the_studio_upload_reads_every_encoding_and_line_ending(db_url, encoding):
    engine = make_engine(db_url)
    ensure_schema(engine)
    try:
        with session_scope(engine) as session:
            result = import_upload(
                session,
                data=_encodings()[encoding],
                filename="orders.csv",
                dataset_name="orders",
                mapping={},
                skip_bad_rows=False,
                append=False,
            )
        assert result.imported == 2
    finally:
        engine.dispose()
    assert _examples(db_url, "orders") == EXAMPLES


def _upload(at, name: str, data: bytes) -> None:
    at.session_state[state.EXAMPLES_TAB.name] = "Import a file"
    at.run()
    uploader = state.EXAMPLES_IMPORT_UPLOAD.child(0).name
    at.file_uploader(key=uploader).upload(name, data, "text/csv").run()


def _page_words(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]
    return " ".join(" ".join(str(p).split()) for p in parts)


def test_the_examples_page_imports_utf16_and_names_the_columns_it_leaves(studio_db, open_page):
    at = open_page("examples")
    sheet = "input,output,notes\nOù ?,Là 📦,aside\n".encode("utf-16")
    _upload(at, "sheet.csv", sheet)
    assert not at.exception
    said = _page_words(at)
    assert "1 examples are ready to import" in said
    assert "Not imported: line 1 names a column no field of an example reads: notes" in said
    at.button(key=state.EXAMPLES_IMPORT_GO.name).click().run()
    assert not at.exception
    url = str(studio_db.url)
    assert _examples(url, "sheet") == [ExampleData(input="Où ?", output="Là 📦")]
    assert "Not imported: line 1 names a column" in _page_words(at)


def test_the_examples_page_refuses_a_lone_surrogate_by_its_line(studio_db, open_page):
    at = open_page("examples")
    _upload(at, "half.jsonl", b'{"output": "fine"}\n{"output": "half \\ud800"}\n')
    assert not at.exception
    assert "line 2: a text holds \\ud800" in _page_words(at)
    at.button(key=state.EXAMPLES_IMPORT_GO.name).click().run()  # all or nothing
    with read_session(studio_db) as session:
        assert not [d for d in _dataset_names(session) if d == "half"]


def _dataset_names(session) -> list[str]:
    from scorer_runtime.store import list_datasets

    return [d.name for d in list_datasets(session, include_archived=True)]


# -- scorer specs: YAML's yes, no and off are the words typed --------------------------------------

SPEC_YAML = """\
id: yes-no-off
description: Three words a YAML 1.1 reader turns into booleans
cache_answers: no
judge:
  model: openai/fake-judge
  instructions: You grade answers.
  api_key_env: {key}
steps:
  - step: analyze
    description: Judge it
    template: "Grade: {{{{ output }}}}"
    output_schema:
      type: object
      properties:
        verdict: {{type: string, enum: [yes, no, off]}}
      required: [verdict]
  - step: generate_score
    use: label_to_score
    with:
      mapping: {{yes: 1, no: 0, off: 0}}
      field: results.analyze_step_result.verdict
"""


def _check_words(spec) -> None:
    schema = spec.steps[0].output_schema
    assert schema["properties"]["verdict"]["enum"] == ["yes", "no", "off"]
    assert spec.steps[1].with_["mapping"] == {"yes": 1, "no": 0, "off": 0}
    assert spec.cache_answers is False  # a yes/no setting still reads "no" as no


def test_yaml_yes_no_off_are_read_as_typed_on_the_command_line(db_url, tmp_path):
    path = tmp_path / "words.yaml"
    path.write_text(SPEC_YAML.format(key=KEY_ENV), "utf-8")
    done = cli(db_url, "scorers", "import", str(path))
    assert done.exit_code == 0, done.output
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            scorer = get_scorer(session, name="yes-no-off")
            version = latest_version(session, scorer_id=scorer.id)
            assert version is not None
            _check_words(version.spec)
    finally:
        engine.dispose()
    exported = cli(db_url, "scorers", "export", "yes-no-off", "--format", "yaml")
    data = yaml.safe_load(exported.output)  # written so any YAML reader gets the words
    assert data["steps"][0]["output_schema"]["properties"]["verdict"]["enum"] == [
        "yes",
        "no",
        "off",
    ]


def test_yaml_yes_no_off_are_read_as_typed_by_the_studio_upload(db_url):
    data = SPEC_YAML.format(key=KEY_ENV).encode("utf-16")  # and a UTF-16 file is read
    checked = check_import(data, "words.yaml")
    assert checked.ok, checked.problems
    assert checked.spec is not None
    _check_words(checked.spec)
    engine = make_engine(db_url)
    ensure_schema(engine)
    try:
        with session_scope(engine) as session:
            saved = save_import(session, spec=checked.spec, mode="new")
        with read_session(engine) as session:
            version = latest_version(session, scorer_id=saved.scorer_id)
            assert version is not None
            _check_words(version.spec)
    finally:
        engine.dispose()


# -- traces: spans in a loop are left out of what is stored ---------------------------------------

LOOPS = "\n".join(
    [
        _span("good", "root", None),
        _span("good", "child", "root"),
        _span("good", "self", "self"),  # its own parent: no root
        _span("ring", "x", "y"),  # x and y each other's parent: no root, no trace
        _span("ring", "y", "x"),
    ]
).encode()


def _stored_spans(engine: Engine, trace_id: str) -> list[str] | None:
    from scorer_runtime.store import NotFoundError

    with read_session(engine) as session:
        try:
            return sorted(s.span_id for s in get_trace(session, trace_id=trace_id).spans)
        except NotFoundError:
            return None


def test_looping_spans_are_named_and_not_stored_from_the_command_line(db_url, tmp_path):
    path = tmp_path / "loops.jsonl"
    path.write_bytes(LOOPS)
    done = cli(db_url, "traces", "import", str(path))
    assert done.exit_code == 1  # some spans were left out
    said = _said(done)
    assert "Imported 1 trace from loops.jsonl" in said
    assert "line 3, span 'self': it names itself as its parent" in said
    assert "line 4, span 'x': its parent chain loops back to itself" in said
    assert "line 5, span 'y': its parent chain loops back to itself" in said
    engine = make_engine(db_url)
    try:
        assert _stored_spans(engine, "good") == ["child", "root"]
        assert _stored_spans(engine, "ring") is None
    finally:
        engine.dispose()


def test_looping_spans_are_named_and_not_stored_by_the_studio_upload(studio_db, open_page):
    loaded = read_upload(LOOPS, "loops.jsonl")
    assert [t.trace_id for t in loaded.traces] == ["good"]
    assert [(p.where, "itself" in p.message) for p in loaded.problems] == [
        ("Line 3 · span “self”", True),
        ("Line 4 · span “x”", True),
        ("Line 5 · span “y”", True),
    ]
    at = open_page("traces")
    at.get("file_uploader")[0].set_value(("loops.jsonl", LOOPS, "application/json"))
    at.run()
    assert not at.exception
    assert _stored_spans(studio_db, "good") == ["child", "root"]
    assert _stored_spans(studio_db, "ring") is None
    assert "names itself as its parent" in _page_words(at)
