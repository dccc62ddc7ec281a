"""Which traces a scoring rule takes: its filters (``KEY=VALUE``) and its sample.

A filter names a fact of the trace and the value it must have. A trace passes a filter when
**any** of its spans has that value; it passes a rule when it passes **every** filter of the
rule and its id is in the rule's sample (:func:`~scorer_runtime.traces.sampling.in_sample`:
rules sampling at the same rate take the same traces). Keys:

- ``service`` (or ``service.name``): the OpenTelemetry resource attribute ``service.name``;
- ``environment`` (or ``deployment.environment``, ``deployment.environment.name``): the
  resource attribute ``deployment.environment.name`` or, as older SDKs write it,
  ``deployment.environment``;
- ``agent``: the agent's name (``gen_ai.agent.name``, or Mastra's agent span name);
- ``span`` (or ``span.name``): a span's name;
- any other key: a span attribute or a resource attribute of that name (its value written
  as text: ``true``, ``42``).

A value may hold ``*`` (any text) and ``?`` (one character); otherwise it must be the whole
value, letter case included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from scorer_runtime.traces.model import Span, Trace
from scorer_runtime.traces.sampling import in_sample

_ENVIRONMENT_KEYS = ("deployment.environment.name", "deployment.environment")
_ALIASES = {
    "service.name": "service",
    "deployment.environment": "environment",
    "deployment.environment.name": "environment",
    "span.name": "span",
}
NAMED_KEYS = ("service", "environment", "agent", "span")
"""The keys with a meaning of their own (any other key is an attribute's name)."""


class RuleFilterError(ValueError):
    """A filter that cannot be read, in words saying how to write it."""


@dataclass(frozen=True, slots=True)
class RuleFilter:
    """One ``KEY=VALUE`` filter of a rule (``key`` as written, minus spaces at its ends)."""

    key: str
    value: str

    @property
    def text(self) -> str:
        """The filter as a person writes it."""
        return f"{self.key}={self.value}"

    def matches(self, trace: Trace) -> bool:
        """Whether any span of ``trace`` has the value (see the module)."""
        wanted = self.value
        return any(fnmatchcase(found, wanted) for found in _values(trace, self.key))


def parse_filter(text: str) -> RuleFilter:
    """A filter from ``KEY=VALUE`` (the first ``=`` splits it); :class:`RuleFilterError`
    when there is no ``=`` or no key or no value."""
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key or not value:
        raise RuleFilterError(
            f"the filter {text!r} is not KEY=VALUE: write for example service=checkout, "
            "agent=support-agent, span=invoke_agent, environment=production or "
            "any attribute, such as gen_ai.request.model=gpt-4o-mini"
        )
    return RuleFilter(key, value)


def parse_filters(texts: Iterable[str]) -> list[RuleFilter]:
    """Every filter of ``texts``; one :class:`RuleFilterError` naming all that are wrong."""
    filters: list[RuleFilter] = []
    wrong: list[str] = []
    for text in texts:
        try:
            filters.append(parse_filter(text))
        except RuleFilterError as error:
            wrong.append(str(error))
    if wrong:
        raise RuleFilterError("; ".join(wrong))
    return filters


def filters_of(data: Sequence[Mapping[str, Any]] | None) -> list[RuleFilter]:
    """Filters stored as plain data (``[{"key": ..., "value": ...}]``)."""
    return [RuleFilter(str(f["key"]), str(f["value"])) for f in data or ()]


def filters_data(filters: Iterable[RuleFilter]) -> list[dict[str, str]]:
    """Filters as plain data, to store."""
    return [{"key": f.key, "value": f.value} for f in filters]


def filters_words(filters: Sequence[RuleFilter]) -> str:
    """The filters as a person reads them ("every trace" when there is none)."""
    return ", ".join(f.text for f in filters) if filters else "every trace"


def rule_takes(trace: Trace, filters: Sequence[RuleFilter], sample: float | None) -> bool:
    """Whether a rule with ``filters`` and ``sample`` scores ``trace``."""
    return in_sample(trace.trace_id, sample) and all(f.matches(trace) for f in filters)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _attribute(name: str) -> Callable[[Span], Iterator[str]]:
    def read(span: Span) -> Iterator[str]:
        for where in (span.attributes, span.resource):
            if name in where and where[name] is not None:
                yield _text(where[name])

    return read


def _resource(*names: str) -> Callable[[Span], Iterator[str]]:
    def read(span: Span) -> Iterator[str]:
        for name in names:
            if span.resource.get(name) is not None:
                yield _text(span.resource[name])

    return read


def _agent(span: Span) -> Iterator[str]:
    if span.gen_ai.agent_name:
        yield span.gen_ai.agent_name


def _span_name(span: Span) -> Iterator[str]:
    yield span.name


_READERS: dict[str, Callable[[Span], Iterator[str]]] = {
    "service": _resource("service.name"),
    "environment": _resource(*_ENVIRONMENT_KEYS),
    "agent": _agent,
    "span": _span_name,
}


def _values(trace: Trace, key: str) -> Iterator[str]:
    """Every value ``key`` has in the spans of ``trace``."""
    named = _ALIASES.get(key, key)
    read = _READERS.get(named) or _attribute(key)
    for span in trace.spans:
        yield from read(span)
