"""A retry policy as form values and in words (Streamlit-free, unit-tested without a browser).

The Scorer builder (a step's own policy) and Judges (a judge's policy) both edit retries with
this mapping; :mod:`studio.widgets.retry_form` draws the form.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from scorer_runtime.spec import RetryPolicySpec
from studio.words import format_duration

# -- retry policy in words -------------------------------------------------------------------


def describe_retry(policy: Mapping[str, Any] | None) -> str:
    """A retry policy (spec dict) in plain words, e.g. "Up to 3 attempts; waits 1 s, then 2 s;
    honours Retry-After up to 30 s."."""
    if policy is None:
        return "No retries: a failed judge request fails the step at once."
    retries = int(policy.get("max_retries", 2))
    if retries == 0:
        return "No retries: a failed judge request fails the step at once."
    waits = _waits(policy.get("delay", {}), retries)
    cap = int(policy.get("max_retry_after_ms", 30_000))
    parts = [f"Up to {retries + 1} attempts per judge request"]
    if any(waits):
        parts.append("waits " + ", then ".join(format_duration(w / 1000) for w in waits))
    else:
        parts.append("retries at once")
    parts.append(f"honours Retry-After up to {format_duration(cap / 1000)}")
    extra = [str(s) for s in policy.get("retry_on_status", [])]
    extra += [f"“{t}”" for t in policy.get("retry_on_text", [])]
    if extra:
        parts.append("also retries " + ", ".join(extra))
    if policy.get("retry_unknown_errors"):
        parts.append("also retries unknown errors (never a bad key)")
    return "; ".join(parts) + "."


def _waits(delay: Any, retries: int) -> list[float]:
    if isinstance(delay, int | float):
        return [float(delay)] * retries
    initial = float(delay.get("initial_ms", 1000))
    factor = float(delay.get("factor", 2.0))
    cap = float(delay.get("max_ms", 30_000))
    return [min(initial * factor**n, cap) for n in range(retries)]


# -- retry policy: form values <-> spec ------------------------------------------------------


@dataclass
class RetryForm:
    """A retry policy as its form asks for it: waits in seconds, the extras as text."""

    max_retries: int = 2
    growing: bool = True
    """Wait longer after each failure (exponential) rather than the same time."""
    first_wait_s: float = 1.0
    factor: float = 2.0
    longest_wait_s: float = 30.0
    retry_after_cap_s: float = 30.0
    extra_statuses: str = ""
    """Extra HTTP status codes to retry, separated by commas: "529, 520"."""
    extra_texts: str = ""
    """Retry errors whose message contains one of these texts, one per line."""
    retry_unknown: bool = False


class RetryFormError(ValueError):
    """A retry form (or a stored policy) that cannot be used; ``problems`` says, in plain
    words, what is wrong with each value and how to write it."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def retry_policy(form: RetryForm) -> dict[str, Any]:
    """The spec dict of a retry form (as ``describe_retry``, judges and scorers take it), with
    default values left out; raises RetryFormError when a value cannot be used."""
    statuses = [s for s in re.split(r"[\s,;]+", form.extra_statuses) if s]
    bad = [s for s in statuses if not s.isdigit() or not 100 <= int(s) <= 599]
    if bad:
        raise RetryFormError(
            [f"Retries: {', '.join(bad)} is not an HTTP status code (a number like 529)"]
        )
    delay: Any = (
        {
            "initial_ms": _ms(form.first_wait_s),
            "factor": form.factor,
            "max_ms": _ms(form.longest_wait_s),
        }
        if form.growing
        else _ms(form.first_wait_s)
    )
    data = {
        "max_retries": form.max_retries,
        "delay": delay,
        "max_retry_after_ms": _ms(form.retry_after_cap_s),
        "retry_unknown_errors": form.retry_unknown,
        "retry_on_status": [int(s) for s in statuses],
        "retry_on_text": [t.strip() for t in form.extra_texts.splitlines() if t.strip()],
    }
    return _policy_spec(data).model_dump(exclude_defaults=True, mode="json")


def retry_form(policy: Mapping[str, Any] | None) -> RetryForm | None:
    """The form of a spec's retry policy (None: no retries); raises RetryFormError when the
    policy is not a valid one (e.g. hand-edited in a file)."""
    if policy is None:
        return None
    spec = _policy_spec(policy)
    delay = spec.delay
    return RetryForm(
        max_retries=spec.max_retries,
        growing=not isinstance(delay, int),
        first_wait_s=(delay / 1000 if isinstance(delay, int) else delay.initial_ms / 1000),
        factor=2.0 if isinstance(delay, int) else delay.factor,
        longest_wait_s=30.0 if isinstance(delay, int) else delay.max_ms / 1000,
        retry_after_cap_s=spec.max_retry_after_ms / 1000,
        extra_statuses=", ".join(str(s) for s in spec.retry_on_status),
        extra_texts="\n".join(spec.retry_on_text),
        retry_unknown=spec.retry_unknown_errors,
    )


_RETRY_LABELS = {
    "max_retries": "retries",
    "initial_ms": "first wait",
    "factor": "multiply the wait by",
    "max_ms": "longest wait",
    "max_retry_after_ms": "longest wait to honour from the provider",
    "retry_on_status": "status codes",
    "retry_on_text": "message texts",
}


def _policy_spec(data: Mapping[str, Any]) -> RetryPolicySpec:
    try:
        return RetryPolicySpec.model_validate(data)
    except ValidationError as e:
        raise RetryFormError([_retry_problem(err) for err in e.errors()]) from None


def _retry_problem(error: Mapping[str, Any]) -> str:
    labels = [_RETRY_LABELS[str(part)] for part in error.get("loc", ()) if part in _RETRY_LABELS]
    message = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    return f"Retries: {labels[-1]}: {message}" if labels else f"Retries: {message}"
