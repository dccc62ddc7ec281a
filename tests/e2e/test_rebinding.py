"""DNS rebinding in a real browser: Chromium resolves a foreign name to 127.0.0.1 (as a
rebinding attacker's DNS would) and opens the studio under that name. The studio refuses the
page and its websocket; the same studio under 127.0.0.1 serves as always."""

from __future__ import annotations

from playwright.sync_api import sync_playwright

from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS
from tests.e2e.server import StudioServer

REBOUND = "attacker.rebind.example"

_OPEN_SOCKET = """(url) => new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.onopen = () => { socket.close(); resolve("open"); };
    socket.onerror = () => resolve("refused");
})"""


def test_a_rebound_name_gets_neither_the_studio_nor_its_websocket(studio: StudioServer):
    port = studio.url.rsplit(":", 1)[1].strip("/")
    rules = f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=[*CHROMIUM_ARGS, rules]
        )
        try:
            tab = browser.new_page()
            answer = tab.goto(f"http://{REBOUND}:{port}/")
            assert answer is not None
            assert answer.status == 403
            assert "not one Scorer Studio answers to" in tab.content()
            socket = tab.evaluate(_OPEN_SOCKET, f"ws://{REBOUND}:{port}/_stcore/stream")
            assert socket == "refused"

            home = browser.new_page()
            served = home.goto(studio.url)
            assert served is not None
            assert served.status == 200
            here = home.evaluate(_OPEN_SOCKET, f"ws://127.0.0.1:{port}/_stcore/stream")
            assert here == "open"
        finally:
            browser.close()
