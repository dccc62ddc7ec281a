"""A seeded random walk through every page of the studio in a real browser: click, choose,
tick and type at random, and fail on any exception, Python word, missing value shown as
``nan``/``None``, server traceback or Arrow fallback warning.

``make test`` walks with a fixed seed. Walk others with, for example::

    SCORER_STUDIO_WALK_SEED=7 SCORER_STUDIO_WALK_STEPS=30 \\
        .venv/bin/python -m pytest tests/e2e/test_random_walk.py -q

The studio runs on a fresh SQLite file with the demo data and two finished runs. Every
judge it can reach answers from the fake OpenAI-compatible server: the studio has no real
provider key, OpenAI's address points at the fake, and any other address goes to a proxy
where nothing listens.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext

from tests.e2e.browser import VIEWPORT, StudioPage
from tests.e2e.server import ROOT, StudioServer, running_studio, sqlite_url
from tests.e2e.test_every_page import PAGES
from tests.e2e.walker import Walk, walk_page
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.e2e

SEED = int(os.environ.get("SCORER_STUDIO_WALK_SEED", "13"))
STEPS = int(os.environ.get("SCORER_STUDIO_WALK_STEPS", "6"))
"""Actions per page: six keep the ten pages near two minutes on a two-core machine."""
KEEP_GOING = os.environ.get("SCORER_STUDIO_WALK_KEEP_GOING", "") not in ("", "0")
"""Walk every step and list every problem at the end (default: stop at the first)."""
FAKE_KEY = "sk-walk-fake"
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|_API_BASE|_BASE_URL", re.I)
"""Variables the studio must not inherit: a real provider's key, or an address of one."""
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
RUNS = [  # (scorer, dataset): finished runs for Results and Compare (no judge: quick)
    ("keyword-coverage", "customer_support"),
    ("support-style", "customer_support"),
]


@pytest.fixture(scope="module")
def walk_judge(fake_openai_server: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    """The fake judge, answering every request as the demo politeness judge would."""
    fake_openai_server.reset()
    fake_openai_server.reply({"verdict": "polite", "reason": "It thanks the customer."})
    yield fake_openai_server
    fake_openai_server.reset()


@pytest.fixture(scope="module")
def walk_studio(
    walk_judge: FakeOpenAIServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StudioServer]:
    """The studio on a seeded database with finished runs, reaching only the fake judge."""
    folder = tmp_path_factory.mktemp("walk")
    url = sqlite_url(folder / "studio.db")
    _prepare(url)
    env = _offline_env(walk_judge.base_url)
    unset = [name for name in os.environ if SECRET_NAME.search(name)]
    # Its own working folder: nothing the walk saves beside the studio lands in the project.
    with running_studio(url, log=folder / "studio.log", env=env, unset=unset, cwd=folder) as server:
        yield server


def _offline_env(judge_url: str) -> dict[str, str]:
    """OpenAI's address and key go to the fake; every other address to a closed port."""
    return {
        "OPENAI_API_KEY": FAKE_KEY,
        "OPENAI_API_BASE": judge_url,
        "OPENAI_BASE_URL": judge_url,
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "127.0.0.1,localhost",
        "STREAMLIT_LOGGER_LEVEL": "info",  # the level at which Streamlit reports Arrow fixes
    }


_PREPARE = """
import sys
from scorer_runtime.cli import app

url, data, *runs = sys.argv[1:]
app(["--database-url", url, "seed", "--data-dir", data], standalone_mode=False)
for run in runs:
    scorer, dataset = run.split(":")
    app(["--database-url", url, "run", "--processes", "1", "--", scorer, dataset],
        standalone_mode=False)
"""
"""Seed the database and make the runs in one process (its imports are paid once)."""


def _prepare(url: str) -> None:
    runs = [f"{scorer}:{dataset}" for scorer, dataset in RUNS]
    command = [sys.executable, "-c", _PREPARE, url, str(ROOT / "data"), *runs]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"preparing the walk's database failed:\n{done.stdout}{done.stderr}")


@pytest.fixture(scope="module")
def typed() -> set[str]:
    """Everything the walks typed: stored, it may show up on a later page (as itself)."""
    return set()


@pytest.fixture(scope="module")
def walk_context(browser: Browser) -> Iterator[BrowserContext]:
    """One browser profile for the whole walk: the studio's scripts are loaded once, and
    each page still opens in its own tab, a new studio session."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def walk_tab(
    walk_context: BrowserContext, walk_studio: StudioServer, request: pytest.FixtureRequest
) -> Iterator[StudioPage]:
    shots = SCREENSHOTS / re.sub(r"[^a-zA-Z0-9_-]+", "-", request.node.name).strip("-")
    tab = walk_context.new_page()
    try:
        yield StudioPage(tab, walk_studio.url, shots)
    finally:
        tab.close()


@pytest.mark.parametrize(("path", "title", "label"), PAGES, ids=[p[2] for p in PAGES])
def test_a_random_walk_finds_no_error(
    walk_tab: StudioPage,
    walk_studio: StudioServer,
    walk_judge: FakeOpenAIServer,
    typed: set[str],
    path: str,
    title: str,
    label: str,
) -> None:
    rng = random.Random(f"{SEED}:{path}")  # each page its own sequence, whatever ran before
    walk = Walk(walk_tab, walk_studio, SEED, label, rng, typed=typed, keep_going=KEEP_GOING)
    walk_page(walk, path, title, STEPS)
    assert walk_tab.external_requests == []


def test_the_studio_can_reach_no_real_judge(walk_studio: StudioServer) -> None:
    """What the walk's studio (and every run it starts) inherits: the fake's key and address
    for OpenAI, a closed proxy for anything else, and no other key."""
    environ = _environment(walk_studio.process.pid)
    keys = {name: value for name, value in environ.items() if SECRET_NAME.search(name)}
    assert keys.pop("OPENAI_API_KEY") == FAKE_KEY
    assert keys.pop("OPENAI_API_BASE").startswith("http://127.0.0.1:")
    assert keys.pop("OPENAI_BASE_URL").startswith("http://127.0.0.1:")
    assert keys == {}
    assert environ["HTTPS_PROXY"] == "http://127.0.0.1:9"


def _environment(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    pairs = [item.decode(errors="replace").partition("=") for item in raw if item]
    return {name: value for name, _, value in pairs}
