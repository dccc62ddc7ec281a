"""Importing trace files: format detection, JSON vs JSON lines, every problem reported."""

from __future__ import annotations

import json

import pytest

from scorer_runtime.traces import (
    TraceImportError,
    TraceProblem,
    load_traces,
    parse_traces,
    read_traces,
)

from .conftest import FIXTURES

MALFORMED = FIXTURES / "malformed.otlp.jsonl"
SPAN_PATH = "resourceSpans[0].scopeSpans[0].spans"


def test_a_malformed_file_lists_every_problem_with_line_span_and_path():
    with pytest.raises(TraceImportError) as caught:
        load_traces(MALFORMED)
    error = caught.value
    assert error.source == str(MALFORMED)
    assert [(p.line, p.span_id) for p in error.problems] == [
        (2, "abc0000000000001"),
        (3, None),
        (4, "abc0000000000002"),
        (4, "abc0000000000002"),
        (4, "xyz"),
    ]
    assert [str(p) for p in error.problems] == [
        f"line 2, span 'abc0000000000001': startTimeUnixNano is missing (at {SPAN_PATH}[0])",
        "line 3: not valid JSON: Expecting ',' delimiter (column 171)",
        "line 4, span 'abc0000000000002': attribute 'gen_ai.usage.input_tokens': intValue "
        f"must be an integer; got 'twelve' (at {SPAN_PATH}[0])",
        "line 4, span 'abc0000000000002': gen_ai.input.messages is not valid JSON "
        f"(Expecting value: line 1 column 29 (char 28)) (at {SPAN_PATH}[0])",
        "line 4, span 'xyz': spanId must be a hex string of 16 characters; got 'xyz' "
        f"(at {SPAN_PATH}[1])",
    ]
    message = str(error)
    assert message.startswith(f"Cannot import traces from {MALFORMED}: 5 problems:\n  - line 2")
    assert "Traceback" not in message


def test_reading_leniently_keeps_the_good_spans():
    found = read_traces(MALFORMED.read_text(), source="malformed.otlp.jsonl")
    assert not found.ok
    assert len(found.problems) == 5
    (trace,) = found.traces
    assert [s.name for s in trace.spans] == ["invoke_agent faq-agent"]
    with pytest.raises(TraceImportError, match=r"from malformed\.otlp\.jsonl: 5 problems"):
        found.raise_for_problems()


def test_a_single_json_document_with_a_syntax_error_names_line_and_column():
    text = '{\n  "resourceSpans": [\n    {"resource": {}\n  ]\n}\n'
    with pytest.raises(TraceImportError) as caught:
        parse_traces(text)
    assert [str(p) for p in caught.value.problems] == [
        "not valid JSON: Expecting ',' delimiter (line 4 column 3)"
    ]


def test_json_lines_whose_first_line_is_broken_are_still_read_line_by_line(mastra_span):
    good = json.dumps(mastra_span("a", "agent_run", "00:01"))
    found = read_traces('{"traceId": "t1", "spanId": \n' + good + "\n")
    assert [p.line for p in found.problems] == [1]
    assert [t.spans[0].span_id for t in found.traces] == ["a"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "there is nothing to import"),
        ("  \n\n", "there is nothing to import"),
        ('{"hello": "world"}', "not a trace document: expected OTLP JSON"),
        ("42", "not a trace document"),
    ],
)
def test_documents_that_are_not_traces(text, message):
    with pytest.raises(TraceImportError, match=message):
        parse_traces(text)


def test_a_forced_format_rejects_the_other_one():
    with pytest.raises(TraceImportError, match="expected OTLP JSON: an object with resourceSpans"):
        load_traces(FIXTURES / "weather.mastra.json", format="otlp")
    with pytest.raises(TraceImportError, match="expected Mastra span records"):
        load_traces(FIXTURES / "weather.otlp.json", format="mastra")
    with pytest.raises(ValueError, match="format must be 'auto', 'otlp' or 'mastra'"):
        parse_traces("[]", format="zipkin")  # type: ignore[arg-type]


def test_a_missing_file_and_a_non_utf8_file(tmp_path):
    with pytest.raises(TraceImportError, match="cannot read the file: No such file"):
        load_traces(tmp_path / "nope.json")
    binary = tmp_path / "trace.json"
    binary.write_bytes(b'{"resourceSpans": [\xff]}')
    with pytest.raises(TraceImportError, match="not UTF-8 text"):
        load_traces(binary)


def test_a_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + (FIXTURES / "weather.mastra.json").read_bytes())
    assert len(load_traces(path)[0].spans) == 7


def test_long_problem_lists_are_cut_in_the_message_but_kept_whole():
    problems = [TraceProblem(f"problem {n}", line=n) for n in range(1, 26)]
    error = TraceImportError(problems, source="big.jsonl")
    assert len(error.problems) == 25
    assert str(error).splitlines()[-1] == "  … and 5 more"
    assert "problem 20" in str(error)
    assert "problem 21" not in str(error)
