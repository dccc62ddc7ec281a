"""Every page of the studio renders without an exception, empty and with demo data."""

from __future__ import annotations

import pytest

PAGES = [
    "home",
    "scorers",
    "builder",
    "judges",
    "examples",
    "traces",
    "runs",
    "results",
    "review",
    "compare",
    "trust",
    "export",
]


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_on_an_empty_database(studio_db, open_page, page):
    at = open_page(page)
    assert not at.exception, at.exception


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_demo_data(demo_db, open_page, page):
    at = open_page(page)
    assert not at.exception, at.exception
