"""The browser helpers catch what they promise to: a page whose script fails, an error in the
browser's console, and a request to another machine — on a small page made to misbehave."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Browser

from tests.e2e.browser import VIEWPORT, StudioPage
from tests.e2e.server import StudioServer, start_streamlit_app

pytestmark = pytest.mark.e2e

APP = """
import streamlit as st

st.title("Made to misbehave")
if st.button("Fail", key="fail"):
    raise ValueError("the script failed on purpose")
"""


@pytest.fixture(scope="module")
def broken_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StudioServer]:
    folder = tmp_path_factory.mktemp("broken-app")
    (folder / "app.py").write_text(APP)
    server = start_streamlit_app(folder / "app.py", log=folder / "app.log")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def tab(browser: Browser, broken_app: StudioServer) -> Iterator[StudioPage]:
    context = browser.new_context(viewport=VIEWPORT)
    try:
        yield StudioPage(context.new_page(), broken_app.url)
    finally:
        context.close()


def test_a_calm_page_passes_the_check(tab: StudioPage) -> None:
    tab.open("/", title="Made to misbehave")
    tab.check()


def test_an_exception_box_fails_the_check(tab: StudioPage) -> None:
    tab.open("/", title="Made to misbehave")
    tab.click("fail")
    with pytest.raises(AssertionError, match="the script failed on purpose"):
        tab.check()


def test_a_console_error_fails_the_check(tab: StudioPage) -> None:
    tab.open("/", title="Made to misbehave")
    tab.page.evaluate("console.error('something broke in the browser')")
    with pytest.raises(AssertionError, match="console error: something broke in the browser"):
        tab.check()


def test_a_request_to_another_machine_is_answered_in_the_browser(tab: StudioPage) -> None:
    tab.open("/", title="Made to misbehave")
    status = tab.page.evaluate(
        "fetch('https://example.invalid/track.json').then((reply) => reply.status)"
    )
    assert status == 204
    assert tab.external_requests == ["https://example.invalid/track.json"]


def test_screenshots_hold_the_whole_page(tab: StudioPage, tmp_path: Path) -> None:
    tab.shots = tmp_path
    tab.open("/", title="Made to misbehave")
    tab.page.evaluate(
        "document.querySelector('[data-testid=\"stMain\"]').style.minHeight = '3000px'"
    )
    path = tab.screenshot("tall page")
    assert path is not None
    with Image.open(path) as image:
        assert image.height >= 3000
    assert tab.page.viewport_size == VIEWPORT
