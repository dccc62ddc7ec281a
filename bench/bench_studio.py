"""P4: how fast the studio appears in a real browser, and how fast a large Results page draws.

    python bench/bench_studio.py [--runs N]

(a) From starting ``scorer-studio ui`` (the installed command) to Home's title drawn in headless
Chromium. The browser is already open: its own start is not the studio's cost.
(b) The Results page over 100,000 stored scores (100 finished runs of one demo scorer over
1,000 examples, over 60 days, written with the store's bulk ``add_scores``): from the click on
"Results" in the sidebar to the histogram drawn with its bars. One scorer: the page draws its
histogram only when the results are of one scorer (several scorers' are listed side by side,
each on its own scale). Every measurement starts a fresh server, so no read is
cached; Home is opened first, as a person does, so the page modules are already loaded.

No judge is asked here (the scores are written with ``add_scores``), so the judge answer
cache plays no part in these figures. Median of ``--runs`` (3) each. The same server and
browser helpers as the end-to-end tests (tests/e2e/server.py, tests/e2e/browser.py). Prints
a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import tempfile
import time
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common import Figure, print_table, size
from e2e.browser import VIEWPORT, StudioPage, launch_chromium
from e2e.server import running_studio, seed_database, sqlite_url

from studio.app_pages.results.logic import HISTOGRAM_TITLE

if TYPE_CHECKING:
    from playwright.sync_api import Browser

RUNS = size(3, 1)
SCORES = size(100_000, 200)
EXAMPLES = size(1_000, 20)
OUTCOMES = ["scored"] * 17 + ["not_scorable", "step_error", "provider_error"]
START = datetime(2026, 9, 1, tzinfo=UTC)
WAIT_S = 120  # a generous bound on what a busy machine may take; the histogram is awaited


def fill_scores(database_url: str, total: int = SCORES, per_run: int = EXAMPLES) -> None:
    """``total`` scores as finished runs of one demo scorer over one ``per_run``-example
    dataset."""
    from scorer_runtime.store import (
        ExampleData,
        add_examples,
        add_scores,
        create_dataset,
        create_run,
        finish_run,
        latest_version,
        list_examples,
        list_scorers,
        make_engine,
        session_scope,
    )

    engine = make_engine(database_url)
    rng = random.Random(4)
    try:
        with session_scope(engine) as session:
            dataset_id = int(create_dataset(session, name="support-tickets-bench").id or 0)
            add_examples(
                session,
                dataset_id=dataset_id,
                examples=[ExampleData(input=f"q{i}", output=f"a{i}") for i in range(per_run)],
            )
            stored = list_examples(session, dataset_id=dataset_id, limit=per_run)
            example_ids = [int(e.id) for e in stored if e.id is not None]
            scorer = list_scorers(session)[0]
            version = latest_version(session, scorer_id=int(scorer.id or 0))
            assert version is not None
            assert version.id is not None
            scorer_id, version_id = version.scorer_id, version.id
        for n in range(total // per_run):
            when = START + timedelta(days=60 * n / (total // per_run))
            with session_scope(engine) as session:
                run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
                rows = _rows(rng, scorer_id, version_id, dataset_id, example_ids, when)
                run_id = int(run.id or 0)  # set by the insert
                add_scores(session, rows=[{**row, "run_id": run_id} for row in rows])
                finish_run(session, run_id=run_id, status="done")
    finally:
        engine.dispose()


def _copy(source: Path, target: Path) -> None:
    """A copy of a SQLite file, made by SQLite (whatever its journal holds)."""
    with closing(sqlite3.connect(source)) as read, closing(sqlite3.connect(target)) as write:
        read.backup(write)


def _rows(
    rng: random.Random,
    scorer_id: int,
    version_id: int,
    dataset_id: int,
    example_ids: list[int],
    when: datetime,
) -> list[dict[str, Any]]:
    rows = []
    for i, example_id in enumerate(example_ids):
        outcome = rng.choice(OUTCOMES)
        score = round(rng.betavariate(5, 2), 3) if outcome == "scored" else None
        rows.append(
            {
                "example_id": example_id,
                "scorer_id": scorer_id,
                "scorer_version_id": version_id,
                "dataset_id": dataset_id,
                "outcome": outcome,
                "score": score,
                "reason": "Polite and complete." if score is not None else None,
                "attempts": 1,
                "latency_ms": rng.uniform(300, 1500),
                "input_tokens": 220,
                "output_tokens": 40,
                "total_tokens": 260,
                "cost": 0.00008,
                "created_at": when + timedelta(milliseconds=40 * i),
            }
        )
    return rows


@dataclass(frozen=True)
class Timing:
    """One measurement and where its time went (seconds from the same start)."""

    total: float
    server: float  # (a) the server answered /_stcore/health; (b) the page's whole script ended
    other: float = 0.0  # (b) the same click once the page's reads are cached


def _median(timings: list[Timing]) -> Timing:
    """The measurement with the median total (its parts stay together)."""
    return sorted(timings, key=lambda t: t.total)[len(timings) // 2]


def startup(browser: Browser, database_url: str, log: Path) -> Timing:
    """(a) `scorer-studio ui` started → Home's title drawn in the (already open) browser."""
    context = browser.new_context()
    try:
        started = time.perf_counter()
        with running_studio(database_url, log=log) as server:
            healthy = time.perf_counter() - started
            page = context.new_page()
            page.goto(server.url, wait_until="commit")
            heading = page.get_by_role("heading", name="Scorer Studio", exact=True)
            heading.wait_for(timeout=WAIT_S * 1000)
            return Timing(time.perf_counter() - started, healthy)
    finally:
        context.close()


def results_page(browser: Browser, database_url: str, log: Path) -> Timing:
    """(b) Click on "Results" → the histogram drawn with its bars, on a fresh server (no read
    cached); then the same click again, once the page's reads are cached."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        with running_studio(database_url, log=log) as server:
            studio = StudioPage(context.new_page(), server.url)
            studio.open("/", title="Scorer Studio")
            cold, script = _to_results(studio)
            studio.navigate("Home", title="Scorer Studio")
            warm, _ = _to_results(studio)
            return Timing(cold, script, warm)
    finally:
        context.close()


def _to_results(studio: StudioPage) -> tuple[float, float]:
    """(seconds to the histogram's bars, seconds to the end of the page's script run)."""
    link = studio.page.get_by_test_id("stSidebarNav").get_by_role("link", name="Results")
    before = studio.finished_runs
    started = time.perf_counter()
    link.click()
    # A bar with a height: an empty bin's bar is drawn flat, which no one sees.
    bars = studio.chart(HISTOGRAM_TITLE).locator(".mark-rect path").filter(visible=True)
    bars.first.wait_for(timeout=WAIT_S * 1000)
    drawn = time.perf_counter() - started
    studio.wait_for_runs(before, timeout_s=WAIT_S)
    studio.settle(timeout_s=WAIT_S)
    return drawn, studio.last_finished_at - started


def run(runs: int = RUNS) -> list[Figure]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        folder = Path(tmp)
        demo, large = sqlite_url(folder / "demo.db"), sqlite_url(folder / "large.db")
        seed_database(demo)
        _copy(folder / "demo.db", folder / "large.db")  # seeded once: the command is slow
        fill_scores(large)
        browser = launch_chromium(playwright)
        try:
            a = _median([startup(browser, demo, folder / "a.log") for _ in range(runs)])
            b = _median([results_page(browser, large, folder / "b.log") for _ in range(runs)])
        finally:
            browser.close()
    return [
        Figure(
            "P4",
            "scorer-studio ui start → Home drawn (headless Chromium)",
            a.total,
            "s",
            "<= 2",
            a.total <= 2,
            f"median of {runs}, demo data; the server answered its health check after "
            f"{a.server:.2f} s; the browser was already open",
        ),
        Figure(
            "P4",
            f"Results, {SCORES:,} scores: click → histogram drawn",
            b.total,
            "s",
            "<= 1.5",
            b.total <= 1.5,
            f"median of {runs}, a fresh server each (nothing cached); the page's whole script "
            f"ended after {b.server:.2f} s; the same click with its reads cached: {b.other:.2f} s",
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=RUNS, help="Measurements per figure.")
    print_table(run(parser.parse_args(argv).runs))


if __name__ == "__main__":
    main()
