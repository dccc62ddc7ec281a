"""Drift alerts sent to a webhook: one JSON POST per alert, readable by Slack as it is.

The body's ``text`` field is the alert in one message (Slack's incoming webhooks, and the many
tools that copy them, show it as it is); the other fields say the same as data, for a tool that
reads them::

    {"text": "Scorer Studio alert, rule 'support tone': Mean score 0.82 the hour before …",
     "rule": "support tone", "scorer": "tone", "version": 3, "measure": "mean",
     "window_start": "2026-12-05T14:00:00+00:00", "period": "hour",
     "value": 0.61, "baseline_value": 0.82, "difference": -0.21,
     "ci_low": -0.3, "ci_high": -0.12, "n": 95, "baseline_n": 120}

Sent with the standard library's HTTP client (no extra dependency), with a time limit; a
refusal or an unreachable address raises :class:`WebhookError` in words.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from scorer_runtime.trust.drift import DriftReading, Measure, Period

TIMEOUT_S = 10.0


class WebhookError(RuntimeError):
    """An alert the webhook did not take; the message says why, in words."""


@dataclass(frozen=True, slots=True)
class DriftAlert:
    """An alert of one rule in one window."""

    rule: str
    scorer: str
    version: int
    measure: Measure
    period: Period
    reading: DriftReading


def alert_payload(alert: DriftAlert) -> dict[str, Any]:
    """The JSON body of one alert (see the module's docstring)."""
    reading = alert.reading
    return {
        "text": f"Scorer Studio alert, rule '{alert.rule}' ({alert.scorer} v{alert.version}): "
        + reading.words,
        "rule": alert.rule,
        "scorer": alert.scorer,
        "version": alert.version,
        "measure": alert.measure,
        "period": alert.period,
        "window_start": reading.window.isoformat(),
        "value": reading.value,
        "baseline_value": reading.baseline_value,
        "difference": reading.difference,
        "ci_low": reading.ci_low,
        "ci_high": reading.ci_high,
        "n": reading.n,
        "baseline_n": reading.baseline_n,
    }


def check_webhook_url(url: str) -> str:
    """The URL, if it can take a POST (http or https with a host); ValueError in words."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"{url!r} is not a web address a message can be sent to: give one starting "
            "with https:// (a Slack incoming webhook, for one)"
        )
    return url.strip()


def post_alert(url: str, alert: DriftAlert, *, timeout_s: float = TIMEOUT_S) -> None:
    """POST one alert as JSON; :class:`WebhookError` when the webhook does not take it."""
    body = json.dumps(alert_payload(alert)).encode("utf-8")
    # S310: the scheme is checked to be http or https just above (check_webhook_url).
    request = urllib.request.Request(  # noqa: S310
        check_webhook_url(url),
        data=body,
        headers={"Content-Type": "application/json", "User-Agent": "scorer-studio"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:  # noqa: S310
            answer.read()
    except urllib.error.HTTPError as e:
        raise WebhookError(
            f"the webhook refused the alert (HTTP {e.code}): check its address"
        ) from None
    except (urllib.error.URLError, TimeoutError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise WebhookError(
            f"the webhook could not be reached ({reason}); the alert is sent again next time"
        ) from None
