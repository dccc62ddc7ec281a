"""The random walk catches what it promises to, on a small page made to misbehave: an
exception, a Python error's name in the page's words, a missing value shown as ``nan`` or
``None``, a traceback in the server's log and Streamlit's Arrow fallback for a mixed column —
and a walk that meets one stops with its seed, its page, its actions and a screenshot."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext

from tests.e2e.browser import VIEWPORT, StudioPage
from tests.e2e.server import StudioServer, start_streamlit_app
from tests.e2e.walker import Walk, walk_page

pytestmark = pytest.mark.e2e

APP = """
import logging
import traceback

import pandas as pd
import streamlit as st

st.title("Made to misbehave")
only = st.query_params.get("only")
def offered(name):
    return only is None or only == name
if offered("say") and st.button("Say", key="say"):
    st.error("ValueError: could not convert string to float: 'x'")
if offered("nan") and st.button("Show nan", key="nan"):
    st.metric("Mean score", "nan")
if offered("none") and st.button("Show None", key="none"):
    st.dataframe(pd.DataFrame({"score": [0.5, None], "label": ["yes", None]}))
if offered("text nan") and st.button("Text nan", key="text_nan"):
    st.dataframe(pd.DataFrame({"Mean": ["0.5", "nan"]}))
if offered("calm") and st.button("Blank", key="blank"):
    st.dataframe(pd.DataFrame({"score": [0.5, None]}), placeholder="")
if offered("mixed") and st.button("Mixed column", key="mixed"):
    st.dataframe(pd.DataFrame({"Example": [1, "trace-1"]}))
if offered("log") and st.button("Log", key="log"):
    try:
        {}["missing"]
    except KeyError:
        traceback.print_exc()
    st.write("All is well here.")
if offered("raise") and st.button("Raise", key="raise"):  # last: nothing after it is drawn
    raise KeyError("nan")
if offered("calm"):
    st.text_input("A calm field", key="calm")
    st.checkbox("A calm box", key="box")
"""


@pytest.fixture(scope="module")
def misbehaving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StudioServer]:
    folder = tmp_path_factory.mktemp("misbehaving-app")
    (folder / "app.py").write_text(APP)
    server = start_streamlit_app(folder / "app.py", log=folder / "app.log")
    try:
        yield server
    finally:
        server.stop()


def _walk(tab: StudioPage, server: StudioServer) -> Walk:
    return Walk(tab, server, 99, "Misbehaving", random.Random(99))


@pytest.fixture(scope="module")
def context(browser: Browser) -> Iterator[BrowserContext]:
    made = browser.new_context(viewport=VIEWPORT)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def walk(context: BrowserContext, misbehaving: StudioServer, tmp_path: Path) -> Iterator[Walk]:
    tab = context.new_page()
    try:
        yield Walk(
            StudioPage(tab, misbehaving.url, tmp_path),
            misbehaving,
            99,
            "Misbehaving",
            random.Random(99),
        )
    finally:
        tab.close()


@pytest.fixture(scope="module")
def one_session(
    context: BrowserContext, misbehaving: StudioServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Walk]:
    """One open page for the problems one button each shows (each click clears the last)."""
    tab = context.new_page()
    shots = tmp_path_factory.mktemp("shots")
    walk = Walk(
        StudioPage(tab, misbehaving.url, shots), misbehaving, 99, "Misbehaving", random.Random(99)
    )
    walk.begin("/", "Made to misbehave")
    try:
        yield walk
    finally:
        tab.close()


def test_a_calm_walk_passes(walk: Walk) -> None:
    walk_page(walk, "/?only=calm", "Made to misbehave", steps=6)
    assert len(walk.actions) == 7


@pytest.mark.parametrize(
    ("button", "problem"),
    [
        ("Say", r"Python on the page: ValueError: could not convert"),
        ("Show nan", r"a missing value shown as 'nan'"),
        ("Show None", r"column “score” of a table shows 1 empty cells as None"),
        ("Text nan", r"column “Mean” of a table shows 'nan'"),
        ("Mixed column", r"Serialization of dataframe to Arrow table was unsuccessful"),
        ("Log", r"the server logged: Traceback \(most recent call last\):.*KeyError: 'missing'"),
        ("Raise", r"exception box: KeyError"),  # last: the script stops, no button after it
    ],
)
def test_each_problem_fails_the_check(one_session: Walk, button: str, problem: str) -> None:
    click = one_session.tab.page.get_by_role("button", name=button, exact=True).click
    one_session.tab.act(click)
    with pytest.raises(AssertionError, match=re.compile(problem, re.DOTALL)):
        one_session.check()


def test_a_table_that_shows_missing_values_blank_passes(walk: Walk) -> None:
    walk.begin("/?only=calm", "Made to misbehave")
    walk.tab.act(walk.tab.page.get_by_role("button", name="Blank", exact=True).click)
    walk.check()


def test_a_value_the_walk_typed_is_not_a_missing_value(walk: Walk) -> None:
    walk.typed.add("nan")
    walk.begin("/", "Made to misbehave")
    walk.tab.act(walk.tab.page.get_by_role("button", name="Show nan", exact=True).click)
    walk.check()


def test_a_walk_that_meets_an_error_says_how_to_find_it_again(walk: Walk) -> None:
    with pytest.raises(AssertionError) as failed:
        walk_page(walk, "/?only=raise", "Made to misbehave", steps=3)
    message = str(failed.value)
    assert "random walk, seed 99, page Misbehaving: after action 2" in message
    assert "1. open /?only=raise" in message
    assert "2. click button “Raise” (st-key-raise)" in message
    shot = re.search(r"screenshot: (\S+\.png)", message)
    assert shot is not None
    assert Path(shot.group(1)).is_file()
