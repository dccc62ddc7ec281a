"""Fixtures for the browser tests: a seeded studio server per test module, one headless
Chromium per session, and a fresh tab per test that fails the test on any browser problem."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Generator, Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.e2e.browser import CHROMIUM, VIEWPORT, StudioPage, launch_chromium
from tests.e2e.server import (
    JUDGE_KEY_ENV,
    ROOT,
    StudioServer,
    running_studio,
    seed_database,
    sqlite_url,
)

SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
"""Where every page a test visits is kept as a full-page screenshot (git-ignored)."""


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember each phase's report on the test, so a fixture can tell that the test failed."""
    report: pytest.TestReport = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, for one test module (each test opens its own context).

    Not for the session: Playwright's sync API keeps an event loop running in this thread
    while it is started, which would break every asyncio test that runs after it.
    """
    if shutil.which(CHROMIUM) is None:
        pytest.fail(f"{CHROMIUM} is missing: install Debian's package (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = launch_chromium(playwright)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def studio_database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A SQLite file with the demo scorers and datasets, seeded by `scorer-studio seed`."""
    url = sqlite_url(tmp_path_factory.mktemp("studio") / "studio.db")
    seed_database(url)
    return url


@pytest.fixture(scope="module")
def studio(
    studio_database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StudioServer]:
    """`scorer-studio ui` on a free port of 127.0.0.1, with a fake judge key in its environment."""
    log = tmp_path_factory.mktemp("studio-log") / "studio.log"
    with running_studio(studio_database, log=log, env={JUDGE_KEY_ENV: "sk-e2e"}) as server:
        yield server


@pytest.fixture
def studio_page(
    browser: Browser, studio: StudioServer, request: pytest.FixtureRequest
) -> Iterator[StudioPage]:
    """A new browser tab on the studio; screenshots go to test-artifacts/screenshots/<test>/."""
    shots = SCREENSHOTS / _safe(request.node.name)
    shutil.rmtree(shots, ignore_errors=True)  # only this run's pictures
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    tab = StudioPage(context.new_page(), studio.url, shots)
    try:
        yield tab
        if getattr(request.node, "report_call", None) and request.node.report_call.failed:
            with contextlib.suppress(Exception):  # the test's own failure is what matters
                tab.screenshot("failed-here")
        else:
            tab.check()  # what happened after the test's last own check
    finally:
        context.close()
        if studio.process.poll() is not None:
            pytest.fail(f"the studio stopped during the test:\n{studio.log_tail()}")


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name).strip("-")
