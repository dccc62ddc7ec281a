"""The judge rate ledger in the store: runners sharing a store share each judge's limit,
counted per second at the fake provider (SQLite file and PostgreSQL)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from sqlalchemy import text

from scorer_runtime.judge.rate import RateLimit
from scorer_runtime.store import make_engine
from scorer_runtime.store.rate_windows import KEPT_WINDOWS, StoreRateLedger

ROOT = Path(__file__).resolve().parents[2]
R = 20


def test_takers_on_two_engines_never_get_more_than_a_second_s_budget(engine, db_url):
    other = make_engine(db_url)
    limit = RateLimit(requests_per_minute=60 * 50)  # 50 a second
    granted: list[int] = []
    lock = threading.Lock()

    def take(ledger: StoreRateLedger) -> None:
        for _ in range(20):
            grant = ledger.take("judge", 1_000, limit, [0] * 3)
            with lock:
                granted.extend(range(grant.first, grant.first + grant.count))

    threads = [threading.Thread(target=take, args=(StoreRateLedger(e),)) for e in (engine, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    other.dispose()
    assert sorted(granted) == list(range(50))  # every slot once, none twice, none over


def test_tokens_and_their_debt_are_counted_in_the_store(engine):
    ledger, limit = StoreRateLedger(engine), RateLimit(tokens_per_minute=6_000)  # 100 a second
    assert ledger.take("judge", 5, limit, [40, 40, 40]).count == 2
    assert ledger.take("judge", 5, limit, [10], debt=15).count == 0  # 80 + 15 + 10 > 100
    assert ledger.take("judge", 6, limit, [40], debt=-1_000).tokens_before == 0


def test_rows_older_than_a_minute_are_deleted(engine):
    ledger, limit = StoreRateLedger(engine), RateLimit(requests_per_minute=60)
    ledger.take("judge", 10, limit, [0])
    ledger.take("other", 10, limit, [0])
    ledger.take("judge", 11 + KEPT_WINDOWS, limit, [0])
    with engine.connect() as connection:
        rows = connection.execute(
            text("SELECT limit_key, unix_second FROM judge_rate_windows ORDER BY 1, 2")
        ).all()
    assert [tuple(r) for r in rows] == [("judge", 11 + KEPT_WINDOWS), ("other", 10)]


def test_two_runner_processes_on_one_store_keep_one_limit_together(engine, db_url, fake_judge):
    # The provider's own limit: a token bucket of R a second holding one and a half seconds'
    # worth. Two runners not sharing the limit send 2 R at once, and 0.5 R of them are
    # refused; sharing it, none is, even when a loaded machine sends a second's grants late.
    fake_judge.limit_rate(R, burst=1.5 * R)
    fake_judge.reply({"score": 1})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [db_url, fake_judge.base_url, str(R * 60), str(R)]
    runners = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.store.rate_runner", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    for runner in runners:  # both have their model client loaded: start them together
        assert runner.stdout is not None
        assert runner.stdout.readline().strip() == "ready"
    for runner in runners:
        assert runner.stdin is not None
        runner.stdin.write("go\n")
        runner.stdin.flush()
    failed = [runner.communicate(timeout=120)[0].strip() for runner in runners]

    assert failed == ["0", "0"]  # the runners print what failed, if anything did
    seconds = fake_judge.seconds()
    assert sum(s.received for s in seconds) == 2 * R
    assert sum(s.refused for s in seconds) == 0, seconds
