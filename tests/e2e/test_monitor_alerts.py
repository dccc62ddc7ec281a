"""A product manager watches live traffic in a real browser: she adds a rule on the Monitor
page with the demo "Support style guide" scorer and an alert on its pass rate; the agent's app
sends its traces to the studio's OTLP receiver through the real OpenTelemetry SDK (last hour's
answers polite, this hour's mostly rude); she watches the scores arrive and sees the alert."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from playwright.sync_api import Browser

from studio import state
from tests.e2e.browser import VIEWPORT, StudioPage
from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.server import StudioServer, free_port, running_studio
from tests.online.senders import protobuf_exporter, tracer_provider

pytestmark = pytest.mark.e2e

POLITE = (
    "Thanks for your patience. Your refund was approved today and will reach your card "
    "within three to five business days."
)
RUDE = (
    "That is not my problem, so please stop writing to us about this refund and wait like "
    "every other customer has to."
)
RECEIVER_WAIT_S = 60.0


@pytest.fixture(scope="module")
def receiver_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def studio(
    studio_database: str, tmp_path_factory: pytest.TempPathFactory, receiver_port: int
) -> Iterator[StudioServer]:
    """The studio with its runner and its OTLP receiver, as ``make run`` starts them."""
    log = tmp_path_factory.mktemp("studio-log") / "studio.log"
    with running_studio(studio_database, log=log, receiver_port=receiver_port) as server:
        yield server


@pytest.fixture
def monitor(browser: Browser, studio: StudioServer) -> Iterator[StudioPage]:
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    tab = StudioPage(context.new_page(), studio.url, SCREENSHOTS / "monitor-alerts")
    try:
        yield tab
        tab.check()
    finally:
        context.close()


def _wait_for_receiver(port: int, studio: StudioServer) -> None:
    """Until the receiver takes connections (it starts beside the studio)."""
    deadline = time.monotonic() + RECEIVER_WAIT_S
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                pytest.fail(f"the receiver never listened on {port}:\n{studio.log_tail()}")
            time.sleep(0.1)


def _in_a_table(tab: StudioPage, text: str, *, timeout_s: float = 30) -> None:
    """Until a table cell holds ``text`` (a table is drawn on a canvas: its cells are in the
    page for screen readers, not shown as elements)."""
    cell = tab.page.get_by_role("gridcell", include_hidden=True).filter(has_text=text).first
    cell.wait_for(state="attached", timeout=timeout_s * 1000)


def _send(provider: TracerProvider, answers: list[str], *, at_ns: int) -> None:
    """One agent trace per answer, as a GenAI-instrumented app emits it, run at ``at_ns``."""
    tracer = provider.get_tracer("support-agent")
    for n, answer in enumerate(answers):
        start = at_ns + n * 1_000_000_000
        span = tracer.start_span("invoke_agent support", start_time=start)
        span.set_attribute("gen_ai.operation.name", "invoke_agent")
        span.set_attribute("gen_ai.agent.name", "support")
        question = [{"role": "user", "parts": [{"type": "text", "content": "My refund?"}]}]
        reply = [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]
        span.set_attribute("gen_ai.input.messages", json.dumps(question))
        span.set_attribute("gen_ai.output.messages", json.dumps(reply))
        span.end(end_time=start + 500_000_000)


def test_a_pm_adds_a_rule_sends_traffic_watches_scores_arrive_and_sees_an_alert(
    monitor: StudioPage, studio: StudioServer, receiver_port: int
) -> None:
    monitor.open()
    monitor.navigate("Monitor", title="Monitor")
    monitor.text("No rules yet.")
    monitor.select(state.MONITOR_SCORER.name, "Support style guide")
    monitor.widget(state.MONITOR_ALERT_DROP.name).locator("input").fill("0.2")
    monitor.open_menu(state.MONITOR_ALERT_MEASURE.name).get_by_text("Pass rate", exact=True).click()
    monitor.screenshot("monitor add rule with an alert")
    monitor.rerun(monitor.page.get_by_role("button", name="Add rule").click)
    monitor.text("Rule 1 added: it scores new traces as they arrive and alerts you")
    _in_a_table(monitor, "pass rate drops by 0.2+ from one hour to the next")

    _wait_for_receiver(receiver_port, studio)
    now_ns = time.time_ns()
    endpoint = f"http://127.0.0.1:{receiver_port}/v1/traces"
    with tracer_provider(protobuf_exporter(endpoint)) as provider:
        _send(provider, [POLITE] * 12, at_ns=now_ns - 3_600_000_000_000)  # the hour before
        _send(provider, [POLITE, RUDE, RUDE] * 4, at_ns=now_ns)  # this hour: 4 of 12 polite

    # The page reads the rules, scores and alerts again every few seconds: no reload.
    monitor.text("Newest scores", timeout_s=60)
    _in_a_table(monitor, "Meets the style guide.", timeout_s=60)  # a polite answer scored
    alert = monitor.text(
        "Pass rate 100% the hour before (12 scores), 33% this hour (12 scores)", timeout_s=90
    )
    assert "a drop chance alone would rarely give" in alert.inner_text()
    _in_a_table(monitor, "shown here only (the rule names no webhook)")
    monitor.screenshot("monitor scores and an alert")
