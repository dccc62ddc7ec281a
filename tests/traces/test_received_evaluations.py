"""Reading other tools' evaluation events out of OTLP documents: what each attribute becomes,
what makes one event unreadable (in words), and log records that are no evaluation event."""

from __future__ import annotations

import pytest

from scorer_runtime.traces.received_evaluations import (
    EVENT_NAME,
    evaluations_in_logs,
    evaluations_in_spans,
)

TRACE, SPAN = "5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174"


def _attributes(**values: object) -> list[dict[str, object]]:
    def any_value(v: object) -> dict[str, object]:
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}  # OTLP/JSON writes 64-bit integers as strings
        if isinstance(v, float):
            return {"doubleValue": v}
        return {"stringValue": v}

    return [{"key": k, "value": any_value(v)} for k, v in values.items()]


def _logs(*records: dict[str, object]) -> dict[str, object]:
    return {"resourceLogs": [{"scopeLogs": [{"logRecords": list(records)}]}]}


def _record(**attributes: object) -> dict[str, object]:
    return {
        "eventName": EVENT_NAME,
        "traceId": TRACE,
        "spanId": SPAN,
        "timeUnixNano": "1764950400000000000",
        "attributes": _attributes(**attributes),
    }


def test_an_integer_score_and_an_older_emitters_event_name_attribute_are_read():
    older = {
        "traceId": TRACE,
        "spanId": SPAN,
        "attributes": _attributes(**{"event.name": EVENT_NAME, "gen_ai.evaluation.name": "a"}),
    }
    found = evaluations_in_logs(
        _logs(
            _record(**{"gen_ai.evaluation.name": "stars", "gen_ai.evaluation.score.value": 4}),
            older,
        )
    )
    assert found.problems == []
    stars, named_by_attribute = found.evaluations
    assert (stars.name, stars.score, stars.time_unix_nano) == ("stars", 4.0, 1764950400000000000)
    assert named_by_attribute.name == "a"


@pytest.mark.parametrize(
    ("attributes", "words"),
    [
        ({"gen_ai.evaluation.score.value": 0.5}, "needs gen_ai.evaluation.name"),
        (
            {"gen_ai.evaluation.name": "a", "gen_ai.evaluation.score.value": True},
            "must be a number, not true or false",
        ),
        (
            {"gen_ai.evaluation.name": "a", "gen_ai.evaluation.score.value": "NaN"},
            "must be a finite number",
        ),
        (
            {"gen_ai.evaluation.name": "a", "gen_ai.evaluation.score.label": "x" * 201},
            "label is longer than 200 characters",
        ),
        ({"gen_ai.evaluation.name": "n" * 201}, "name is longer than 200 characters"),
    ],
)
def test_an_event_that_cannot_be_read_is_named_with_where_it_is(attributes, words):
    found = evaluations_in_logs(
        _logs(_record(**{"gen_ai.evaluation.name": "ok"}), _record(**attributes))
    )
    assert [e.name for e in found.evaluations] == ["ok"]
    [problem] = found.problems
    assert words in problem.message
    assert problem.path == "resourceLogs[0].scopeLogs[0].logRecords[1]"


def test_records_that_are_no_evaluation_event_are_counted_not_read():
    plain = {"body": {"stringValue": "user 7 logged in"}, "attributes": _attributes(user=7)}
    other_event = {**plain, "eventName": "gen_ai.client.inference.operation.details"}
    found = evaluations_in_logs(_logs(plain, other_event))
    assert (found.evaluations, found.problems, found.ignored) == ([], [], 2)


def test_span_events_judge_the_span_that_carries_them_and_other_events_are_left_alone():
    span = {
        "traceId": TRACE,
        "spanId": SPAN,
        "events": [
            {"name": "exception", "attributes": _attributes(**{"exception.type": "KeyError"})},
            {
                "name": EVENT_NAME,
                "timeUnixNano": "1764950400000000001",
                "attributes": _attributes(
                    **{"gen_ai.evaluation.name": "a", "gen_ai.evaluation.score.label": "FAIL"}
                ),
            },
        ],
    }
    found = evaluations_in_spans({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
    [verdict] = found.evaluations
    assert (verdict.trace_id, verdict.span_id) == (TRACE, SPAN)
    assert (verdict.score, verdict.label) == (0.0, "FAIL")  # a plain fail, in any case
