"""A drift alert goes to a webhook as one JSON POST with a Slack-compatible ``text`` field;
a refusal or an unreachable webhook is said in words (a real HTTP server on 127.0.0.1)."""

from __future__ import annotations

import json
import socket
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from scorer_runtime.traces.webhooks import (
    DriftAlert,
    WebhookError,
    alert_payload,
    check_webhook_url,
    post_alert,
)
from scorer_runtime.trust.drift import compare_windows

WINDOW = datetime(2026, 12, 5, 14, tzinfo=UTC)


@pytest.fixture
def webhook():
    """A webhook answering with the status in ``server.status``; bodies in ``server.bodies``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            server.bodies.append((self.headers["Content-Type"], json.loads(body)))
            self.send_response(server.status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.bodies, server.status = [], 200
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _alert() -> DriftAlert:
    reading = compare_windows(
        WINDOW,
        [0.6] * 20 + [0.7] * 20,
        [0.9] * 20 + [0.8] * 20,
        period="hour",
        measure="mean",
        drop_threshold=0.1,
    )
    assert reading.alert
    return DriftAlert("support tone", "tone", 3, "mean", "hour", reading)


def test_an_alert_is_one_json_post_slack_can_show(webhook):
    post_alert(f"http://127.0.0.1:{webhook.server_address[1]}/hook", _alert())
    ((content_type, body),) = webhook.bodies
    assert content_type == "application/json"
    assert body["text"].startswith("Scorer Studio alert, rule 'support tone' (tone v3): ")
    assert "Mean score 0.85 the hour before (40 scores), 0.65 this hour (40 scores)" in body["text"]
    assert body["window_start"] == "2026-12-05T14:00:00+00:00"
    assert body["difference"] == pytest.approx(-0.2)
    assert body["ci_high"] < 0
    assert body == json.loads(json.dumps(alert_payload(_alert())))


def test_a_webhook_that_refuses_is_said_in_words(webhook):
    webhook.status = 404
    with pytest.raises(WebhookError, match=r"refused the alert \(HTTP 404\)"):
        post_alert(f"http://127.0.0.1:{webhook.server_address[1]}/gone", _alert())


def test_a_webhook_that_cannot_be_reached_is_said_in_words():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    with pytest.raises(WebhookError, match="could not be reached"):
        post_alert(f"http://127.0.0.1:{closed}/hook", _alert(), timeout_s=2)


@pytest.mark.parametrize("url", ["hooks.slack.com/services/x", "file:///etc/passwd", ""])
def test_only_a_web_address_is_a_webhook(url):
    with pytest.raises(ValueError, match="not a web address"):
        check_webhook_url(url)
