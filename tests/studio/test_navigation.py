"""Every page of the studio renders without an exception, empty and with demo data."""

from __future__ import annotations

from pathlib import Path

import pytest

PAGES = sorted(
    folder.name
    for folder in (Path(__file__).resolve().parents[2] / "studio" / "app_pages").iterdir()
    if (folder / "page.py").is_file()
)
"""Every page of the studio: each folder of studio/app_pages (a new page is picked up)."""


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_on_an_empty_database(studio_db, open_page, page):
    at = open_page(page)
    assert not at.exception, at.exception


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_demo_data(demo_db, open_page, page):
    at = open_page(page)
    assert not at.exception, at.exception
