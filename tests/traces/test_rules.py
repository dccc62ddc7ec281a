"""Which traces a scoring rule takes: filters on service, environment, agent, span name and
any attribute; sampling by trace id, the same traces for two rules of one rate."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scorer_runtime.traces.model import Trace
from scorer_runtime.traces.rules import (
    RuleFilterError,
    filters_data,
    filters_of,
    filters_words,
    parse_filter,
    parse_filters,
    rule_takes,
)
from scorer_runtime.traces.sampling import in_sample
from tests.traces.rule_traces import agent_trace, trace_ids

TRACE = agent_trace(
    "a" * 32,
    service="checkout",
    environment="staging",
    agent="refund-bot",
    span_name="invoke_agent refund-bot",
    attributes={"gen_ai.request.model": "gpt-4o-mini", "app.premium": True, "app.tier": 3},
)


@pytest.mark.parametrize(
    "text",
    [
        "service=checkout",
        "service.name=checkout",
        "environment=staging",
        "deployment.environment=staging",
        "agent=refund-bot",
        "span=invoke_agent refund-bot",
        "span.name=invoke_agent*",
        "gen_ai.request.model=gpt-4o-mini",
        "app.premium=true",
        "app.tier=3",
        "service=check*",
    ],
)
def test_a_filter_on_what_the_trace_says_takes_it(text):
    assert rule_takes(TRACE, [parse_filter(text)], None)


@pytest.mark.parametrize(
    "text",
    [
        "service=billing",
        "environment=production",
        "agent=support-agent",
        "span=chat",
        "gen_ai.request.model=gpt-4o",
        "app.premium=false",
        "missing.attribute=x",
        "service=Checkout",  # letter case counts
    ],
)
def test_a_filter_on_anything_else_leaves_it(text):
    assert not rule_takes(TRACE, [parse_filter(text)], None)


def test_every_filter_must_hold():
    both = parse_filters(["service=checkout", "agent=refund-bot"])
    assert rule_takes(TRACE, both, None)
    assert not rule_takes(TRACE, [*both, parse_filter("environment=production")], None)


def test_the_older_environment_attribute_is_read_too():
    older = agent_trace("b" * 32, environment=None)
    span = older.spans[0]
    moved = replace(span, resource={**span.resource, "deployment.environment": "production"})
    production = [parse_filter("environment=production")]
    assert rule_takes(Trace(older.trace_id, (moved,)), production, None)


def test_a_filter_that_is_not_key_value_is_refused_in_words_naming_every_wrong_one():
    with pytest.raises(RuleFilterError) as raised:
        parse_filters(["service", "=checkout", "agent=ok", "env="])
    said = str(raised.value)
    assert said.count("is not KEY=VALUE") == 3
    for wrong in ("'service'", "'=checkout'", "'env='"):
        assert wrong in said
    assert "service=checkout" in said  # an example of how to write one


def test_filters_read_back_as_stored_and_read_as_words():
    filters = parse_filters(["service=checkout", " agent = refund-bot "])
    assert filters_of(filters_data(filters)) == filters
    assert filters_words(filters) == "service=checkout, agent=refund-bot"
    assert filters_words([]) == "every trace"


def test_two_rules_of_one_rate_take_the_same_traces_and_a_larger_rate_takes_more():
    traces = [agent_trace(t) for t in trace_ids(400)]
    service = [parse_filter("service=checkout")]
    agent = [parse_filter("agent=support-agent")]
    first = {t.trace_id for t in traces if rule_takes(t, service, 0.25)}
    second = {t.trace_id for t in traces if rule_takes(t, agent, 0.25)}
    larger = {t.trace_id for t in traces if rule_takes(t, agent, 0.5)}
    assert first == second
    assert 60 < len(first) < 140  # about a quarter of 400
    assert first < larger
    assert first == {t.trace_id for t in traces if in_sample(t.trace_id, 0.25)}
