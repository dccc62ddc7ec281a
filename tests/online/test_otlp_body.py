"""Reading an export request's body (``online.otlp_body``) on its own: encodings named by
``Content-Type`` and ``Content-Encoding``, and the success answer's shape."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from scorer_runtime.online.otlp_body import (
    BadBody,
    encoding_of,
    export_answer,
    otlp_document,
    span_count,
    unpacked,
)


@pytest.mark.parametrize(
    ("content_type", "encoding"),
    [
        ("application/x-protobuf", "protobuf"),
        ("application/protobuf", "protobuf"),
        ("application/json; charset=utf-8", "json"),
        ("Application/JSON", "json"),
    ],
)
def test_the_content_type_names_the_encoding(content_type, encoding):
    assert encoding_of(content_type) == encoding


def test_a_missing_content_type_is_refused_with_415_in_words():
    with pytest.raises(BadBody) as refused:
        encoding_of(None)
    assert refused.value.status == 415
    assert "a body without a Content-Type" in refused.value.words


def test_gzip_deflate_and_identity_are_unpacked():
    body = b'{"resourceSpans": []}'
    assert unpacked(gzip.compress(body), "gzip") == body
    assert unpacked(zlib.compress(body), "deflate") == body
    assert unpacked(body, None) == body


def test_a_cut_gzip_body_and_an_unknown_compression_are_refused():
    with pytest.raises(BadBody, match="cut short") as cut:
        unpacked(gzip.compress(b"x" * 1000)[:-10], "gzip")
    assert cut.value.status == 400
    with pytest.raises(BadBody, match="gzip or none, not 'br'") as other:
        unpacked(b"", "br")
    assert other.value.status == 415


def test_a_json_document_counts_its_spans_good_or_bad():
    document = otlp_document(
        json.dumps(
            {"resourceSpans": [{"scopeSpans": [{"spans": [{}, {"name": "x"}]}, {"spans": [{}]}]}]}
        ).encode(),
        "json",
    )
    assert span_count(document) == 3


def test_the_answer_carries_partial_success_only_when_spans_were_left_out():
    assert export_answer("json") == b"{}"
    assert ExportTraceServiceResponse.FromString(export_answer("protobuf")) == (
        ExportTraceServiceResponse()
    )
    answer = json.loads(export_answer("json", rejected=2, message="left out: two"))
    assert answer == {"partialSuccess": {"rejectedSpans": "2", "errorMessage": "left out: two"}}
