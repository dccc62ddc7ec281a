"""Every page of the studio opens in a real browser on the demo data, without an error, in plain
words, and is kept as a full-page screenshot."""

from __future__ import annotations

import re

import pytest

from tests.e2e.browser import StudioPage

pytestmark = pytest.mark.e2e

# (address, title on the page, label in the sidebar)
PAGES = [
    ("/", "Scorer Studio", "Home"),
    ("/scorers", "Scorers", "Scorers"),
    ("/builder", "Build a scorer", "Build a scorer"),
    ("/judges", "Judges", "Judges"),
    ("/examples", "Examples", "Examples"),
    ("/traces", "Traces", "Traces"),
    ("/monitor", "Monitor", "Monitor"),
    ("/runs", "Runs", "Runs"),
    ("/results", "Results", "Results"),
    ("/review", "Review", "Review"),
    ("/compare", "Compare runs", "Compare runs"),
    ("/trust", "Trust", "Trust"),
    ("/export", "Export & import", "Export & import"),
]
# What a person must never read: Python's insides instead of words.
RAW_PYTHON = re.compile(r"Traceback \(most recent call last\)|<class '|object at 0x[0-9a-f]+")


@pytest.mark.parametrize(("path", "title", "label"), PAGES, ids=[p[2] for p in PAGES])
def test_the_page_opens_cleanly(studio_page: StudioPage, path: str, title: str, label: str) -> None:
    studio_page.open(path, title=title)
    studio_page.screenshot(label)
    studio_page.check()

    nav = studio_page.page.get_by_test_id("stSidebarNav")
    current = nav.get_by_role("link", name=label, exact=True)
    assert current.get_attribute("aria-current") == "page", f"the sidebar does not mark {label}"
    body = studio_page.page.get_by_test_id("stMain").inner_text()
    assert not RAW_PYTHON.search(body), f"{label} shows Python internals: {body[:2000]}"
    intro = studio_page.page.get_by_test_id("stCaptionContainer").first.inner_text()
    assert len(intro.split()) >= 5, f"{label} has no sentence saying what it is for"


def test_the_sidebar_reaches_every_page_in_one_session(studio_page: StudioPage) -> None:
    studio_page.open("/", title="Scorer Studio")
    for path, title, label in PAGES[1:]:
        studio_page.navigate(label, title=title)
        assert studio_page.page.url.endswith(path)
        studio_page.screenshot(label)
        studio_page.check()


def test_no_request_leaves_this_machine(studio_page: StudioPage) -> None:
    """The studio works offline: no page asks another machine for anything (fonts, icons,
    usage statistics)."""
    studio_page.open("/", title="Scorer Studio")
    for _, title, label in PAGES[1:]:
        studio_page.navigate(label, title=title)
    assert studio_page.external_requests == []
