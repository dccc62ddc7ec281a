"""A real headless Chromium on the studio: launch it, drive a tab, check what it showed.

Streamlit renders asynchronously over a websocket. Instead of sleeping, :class:`StudioPage`
reads the protocol itself: every script run ends with a ``script_finished`` message, and an
interaction is complete when the next one has arrived and the browser has drawn it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import ViewportSize

if TYPE_CHECKING:
    from playwright.sync_api import (
        Browser,
        ConsoleMessage,
        Locator,
        Page,
        Playwright,
        Route,
        WebSocket,
    )
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

CHROMIUM = "/usr/bin/chromium"  # Debian's package; Playwright's own download is never used
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
VIEWPORT: ViewportSize = {"width": 1400, "height": 900}
# Requests to anywhere but this machine are answered in the browser (see StudioPage).
EXTERNAL = re.compile(r"^(?!(?:https?|wss?)://(?:127\.0\.0\.1|localhost)(?::\d+)?/)[a-z]+://")
# Finished runs that end one interaction (an early finish for a rerun is followed by another).
_DONE_STATUSES = frozenset({0, 1, 3})  # successfully, with a compile error, fragment run
_ASK_REPORTED_MS = 120
"""How long a rerun request the browser sent may take to be reported to the test."""
_SETTLED = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app !== null
        && app.dataset.testConnectionState === 'CONNECTED'
        && app.dataset.testScriptState === 'notRunning'
        && document.querySelector('[data-stale="true"]') === null
        && document.querySelector('[data-testid="stSkeleton"]') === null;  // lazy parts drawn
}"""
# Streamlit's own noise, not the studio's: opened at a page's address (a bookmark), its frontend
# first probes <page>/_stcore/health and host-config, which answer 404, then the real ones
# (streamlit/streamlit#7074, open). Only these exact console lines are forgiven.
_KNOWN_NOISE = re.compile(
    r"^console error: Failed to load resource: the server responded with a status of 404 "
    r"\(Not Found\) \(http://127\.0\.0\.1:\d+/[a-z_]+/_stcore/(?:health|host-config)\)$"
)
_CONTENT_HEIGHT = """() => Math.max(
    document.documentElement.scrollHeight,
    ...[...document.querySelectorAll(
        '[data-testid="stMain"], [data-testid="stAppViewContainer"], [data-testid="stSidebar"]'
    )].map((el) => el.scrollHeight),
)"""


def launch_chromium(playwright: Playwright) -> Browser:
    """Debian's Chromium, headless, with nothing phoning home."""
    return playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_ARGS)
    )


def key_class(key: str) -> str:
    """The CSS class Streamlit gives the element of a widget with this ``key=``."""
    return "st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())


def _finished_status(payload: str | bytes) -> int | None:
    """The status of a ``script_finished`` message, or None for any other frame."""
    if isinstance(payload, str):
        return None
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    try:
        message = ForwardMsg.FromString(payload)
    except Exception:  # a frame of some other protocol: not ours to judge
        return None
    if message.WhichOneof("type") != "script_finished":
        return None
    return int(message.script_finished)


def _asks_rerun(payload: str | bytes) -> bool:
    """Whether a frame the browser sent asks the server to run the script again (a widget
    changed, a button was pressed)."""
    if isinstance(payload, str):
        return False
    from streamlit.proto.BackMsg_pb2 import BackMsg

    try:
        message = BackMsg.FromString(payload)
    except Exception:  # a frame of some other protocol: not ours to judge
        return False
    return bool(message.WhichOneof("type") == "rerun_script")


@dataclass
class StudioPage:
    """One browser tab on the studio that records what went wrong while a test drives it.

    ``shots`` is the folder of its screenshots (None: :meth:`screenshot` takes none).

    Console errors, uncaught page errors and Streamlit exception boxes are problems;
    :meth:`check` fails with all of them. Requests to other machines never leave the
    browser: they are answered empty and listed in :attr:`external_requests`.
    """

    page: Page
    base_url: str
    shots: Path | None = None
    problems: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    visited: list[str] = field(default_factory=list)
    last_finished_at: float = 0.0
    """When (``time.perf_counter``) the last script run's end reached the browser."""
    message_listeners: list[Callable[[ForwardMsg], None]] = field(default_factory=list)
    """Called with every message the server sends (what a test wants to read in them)."""
    _ws: WebSocket | None = None
    _finished: int = 0
    _asked: int = 0
    _finished_when_asked: int = 0
    _shot_count: int = 0

    def __post_init__(self) -> None:
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("websocket", self._on_websocket)
        self.page.route(EXTERNAL, self._answer_external)

    # -- what the browser reports ---------------------------------------------------------------

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            where = message.location.get("url", "")
            problem = f"console error: {message.text} ({where})"
            if not _KNOWN_NOISE.match(problem):
                self.problems.append(problem)

    def _on_websocket(self, ws: WebSocket) -> None:
        if not ws.url.endswith("/_stcore/stream"):
            return
        self._ws, self._finished, self._finished_when_asked = ws, 0, 0
        ws.on("framereceived", self._on_frame)
        ws.on("framesent", self._on_sent)
        ws.on("framereceived", self._tell_listeners)

    def _on_frame(self, payload: str | bytes) -> None:
        if _finished_status(payload) in _DONE_STATUSES:
            self._finished += 1
            self.last_finished_at = time.perf_counter()

    def _tell_listeners(self, payload: str | bytes) -> None:
        if not self.message_listeners or isinstance(payload, str):
            return
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        try:
            message = ForwardMsg.FromString(payload)
        except Exception:  # a frame of some other protocol: not ours to judge
            return
        for listener in self.message_listeners:
            listener(message)

    def _on_sent(self, payload: str | bytes) -> None:
        if _asks_rerun(payload):
            self._asked += 1
            self._finished_when_asked = self._finished

    def _answer_external(self, route: Route) -> None:
        self.external_requests.append(route.request.url)
        route.fulfill(status=204, body="")

    # -- waiting --------------------------------------------------------------------------------

    def open(self, path: str = "/", *, title: str | None = None) -> None:
        """Load a page by its address (a new browser session) and wait until it is drawn."""
        with self.page.expect_websocket(lambda ws: ws.url.endswith("/_stcore/stream")):
            self.page.goto(self.base_url + path)
        self.wait_for_runs(0)
        self.settle(title)

    def rerun(self, action: Callable[[], object], *, timeout_s: float = 30) -> None:
        """Do ``action`` (a click, a typed value) and wait for the script run it causes."""
        before = self._finished
        action()
        self.wait_for_runs(before, timeout_s)
        self.settle()

    def act(self, action: Callable[[], object], *, timeout_s: float = 60) -> bool:
        """Do ``action`` when it is not known whether it makes the script run (opening an
        expander does not; a changed field does), and wait until the studio is idle again.

        The browser asks for a run in the same turn as the click or keystroke; the short
        pause is only for that request to be reported here. Returns whether a run was asked.
        """
        asked = self._asked
        action()
        self.page.wait_for_timeout(_ASK_REPORTED_MS)
        rerun = self._asked > asked
        if rerun:
            self.wait_for_runs(self._finished_when_asked, timeout_s)
        self.settle(timeout_s=timeout_s)
        return rerun

    @property
    def finished_runs(self) -> int:
        """How many script runs have ended since the page was loaded."""
        return self._finished

    def wait_for_runs(self, before: int, timeout_s: float = 30) -> None:
        """Wait until more than ``before`` script runs have ended."""
        if self._ws is None:
            raise AssertionError("the studio's websocket never opened")
        while self._finished <= before:
            self._ws.wait_for_event(
                "framereceived",
                predicate=lambda payload: _finished_status(payload) in _DONE_STATUSES,
                timeout=timeout_s * 1000,
            )

    def settle(self, title: str | None = None, *, timeout_s: float = 30) -> None:
        """Wait until no script runs, nothing stale or half-loaded is shown, and ``title`` (if
        given) is visible."""
        self.page.wait_for_function(_SETTLED, timeout=timeout_s * 1000)
        if title is not None:
            self.heading(title).wait_for(timeout=timeout_s * 1000)

    # -- finding things -------------------------------------------------------------------------

    def heading(self, title: str) -> Locator:
        return self.page.get_by_role("heading", name=title, exact=True).first

    def widget(self, key: str) -> Locator:
        """The element of the widget created with ``key=key``."""
        return self.page.locator(f".{key_class(key)}")

    def chart(self, heading: str) -> Locator:
        """The drawing of the Altair chart under ``heading`` (vega-embed draws SVG or canvas).

        Charts carry no widget key in the page, so they are found by the words above them.
        """
        column = self.page.get_by_test_id("stColumn").filter(has_text=heading)
        return column.get_by_test_id("stVegaLiteChart").locator("svg, canvas").first

    def text(self, text: str, *, timeout_s: float = 30) -> Locator:
        """The first element showing ``text``, once it is visible."""
        found = self.page.get_by_text(text).first
        found.wait_for(timeout=timeout_s * 1000)
        return found

    # -- doing things ---------------------------------------------------------------------------

    def navigate(self, label: str, *, title: str) -> None:
        """Go to another page with the sidebar, as a person does (the session is kept)."""
        link = self.page.get_by_test_id("stSidebarNav").get_by_role("link", name=label, exact=True)
        self.rerun(link.click)
        self.settle(title)

    def type(self, key: str, text: str) -> None:
        """Type into a text field and leave it, which is when Streamlit takes the value."""
        box = self.widget(key).locator("input, textarea").first
        box.fill(text)
        self.rerun(box.blur)

    def click(self, key: str) -> None:
        self.rerun(self.widget(key).get_by_role("button").first.click)

    def choose(self, key: str, label: str) -> None:
        """Pick an option of a radio group or a segmented control by its words (clicked where
        a person clicks: the words, since a radio's own circle is drawn over its input)."""
        self.rerun(self.widget(key).get_by_text(label, exact=True).click)

    def select(self, key: str, label: str | re.Pattern[str], *, attempts: int = 3) -> None:
        """Pick an option of a drop-down by its words (or a pattern of them).

        The list re-renders while a rerun finishes, detaching the option under the pointer;
        a person opens it again and clicks again, so do we (each try bounded). An option the
        drop-down already shows (a page may open on the right one) is left as it is: picking
        it again changes nothing, and no rerun would come to wait for.
        """
        if isinstance(label, str) and self.chosen(key) == label:
            return
        for attempt in range(attempts):
            self.open_menu(key)
            option = self.page.get_by_role("option", name=label, exact=isinstance(label, str))
            try:
                self.rerun(lambda: option.click(timeout=5_000))  # noqa: B023 - used at once
                return
            except PlaywrightTimeout:
                if attempt == attempts - 1:
                    raise
                self.page.keyboard.press("Escape")

    def chosen(self, key: str) -> str:
        """The words of the option a drop-down shows as chosen ("" when none)."""
        box = self.widget(key).get_by_role("combobox")
        return str(box.evaluate("el => el.value || ''"))

    def open_menu(self, key: str, *, attempts: int = 3) -> Locator:
        """Open a drop-down's list of options and return it.

        The list is a popover that closes when the page scrolls under it, which a chart
        finishing its drawing can do just after the click; a person clicks again, so do we.
        """
        box = self.widget(key).get_by_role("combobox")
        menu = self.page.get_by_role("listbox")
        for attempt in range(attempts):
            box.click()
            try:
                menu.wait_for(state="visible", timeout=2_000)
            except PlaywrightTimeout:
                if attempt == attempts - 1:
                    raise
                self.page.keyboard.press("Escape")
            else:
                return menu
        raise AssertionError("unreachable")

    # -- checking -------------------------------------------------------------------------------

    def check(self) -> None:
        """Fail with every console error, page error and exception box seen so far."""
        boxes = self.page.get_by_test_id("stException")
        found = list(self.problems)
        found += [
            f"exception box: {boxes.nth(i).inner_text()[:1500]}" for i in range(boxes.count())
        ]
        if found:
            raise AssertionError(
                f"the studio showed problems on {self.page.url}:\n" + "\n".join(found)
            )

    def screenshot(self, name: str) -> Path | None:
        """A full-page screenshot (the whole scrolled content, not only the window)."""
        if self.shots is None:
            return None
        self._shot_count += 1
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{self._shot_count:02d}-{re.sub(r'[^a-z0-9]+', '-', name.lower())}.png"
        self.page.mouse.move(0, 0)  # no tooltip of whatever was clicked last
        height = int(self.page.evaluate(_CONTENT_HEIGHT))
        self.page.set_viewport_size({"width": VIEWPORT["width"], "height": min(height, 12_000)})
        try:
            self.settle()
            self.page.screenshot(path=path, full_page=True, animations="disabled")
        finally:
            self.page.set_viewport_size(VIEWPORT)
        self.visited.append(name)
        return path
