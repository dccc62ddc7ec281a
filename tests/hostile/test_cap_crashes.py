"""A spend cap killed with ``kill -9`` again and again: the provider is paid no more than the
cap, counting every request it received, answered or in flight when the runner died.

Each kill is gated on the fake judge, never on a clock: it answers a few requests, holds
the next, and the runner is killed once a held request has arrived, so it dies with answers
on their way (paid for, never stored). The run is then resumed, killed again, and at last
resumed until its cap stops it.
"""

from __future__ import annotations

import asyncio
import json
import signal

from scorer_runtime.costs import estimate_dataset
from scorer_runtime.money import format_dollars
from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.store import get_run, make_engine, read_session
from scorer_runtime.store.reservations import lost_spend
from tests.cli.helpers import cli, cli_process, verdict_spec, write_examples, write_spec
from tests.fakes.openai_server import counted_usage
from tests.store.fixtures import db_url

__all__ = ["db_url"]  # a fresh database: an SQLite file, and PostgreSQL when configured

EXAMPLES = 80
KILLS = 5
CONCURRENCY = 3
ANSWERED_PER_LIFE = 2
"""Requests the judge answers in each life of the runner before it holds the rest."""
PRICES = (2.0, 8.0)
"""The judge's dollars per 1M input and output tokens (set on the spec: known exactly)."""
VERDICT = {"verdict": "good"}
BUDGET_EXIT = 3


def _spec(base_url: str) -> dict:
    spec = verdict_spec(base_url)
    spec["judge"]["input_price_per_million"] = PRICES[0]
    spec["judge"]["output_price_per_million"] = PRICES[1]
    return spec


def _paid_at_the_provider(fake_judge) -> float:
    """What the provider charges for every request it received (answered or not)."""
    total = 0.0
    for request in fake_judge.chat_requests:
        prompt, completion = counted_usage(request.json, json.dumps(VERDICT))
        total += (prompt * PRICES[0] + completion * PRICES[1]) / 1e6
    return total


def _worst_example_cost(engine, spec: dict) -> float:
    estimate = asyncio.run(estimate_dataset(engine, compile_spec(load_spec(spec)), dataset_id=1))
    assert estimate.example_worst_cost
    return estimate.example_worst_cost


def _kill_with_answers_in_flight(proc, fake_judge, before: int) -> None:
    """Kill ``proc`` once the judge answered its first requests and holds another."""
    try:
        fake_judge.wait_for_requests(before + ANSWERED_PER_LIFE + 1, timeout_s=60)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        fake_judge.release()  # the dead runner's requests are answered into the void
    assert proc.returncode == -signal.SIGKILL, proc.communicate()


def test_a_run_killed_again_and_again_pays_no_more_than_its_cap(db_url, tmp_path, fake_judge):
    spec = _spec(fake_judge.base_url)
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec)))
    outputs = [f"answer number {i}" for i in range(EXAMPLES)]
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, outputs)), "--name", "big")
    fake_judge.reply(VERDICT, usage="counted")
    engine = make_engine(db_url)
    cap = 30 * _worst_example_cost(engine, spec)
    args = ["run", "verdict", "big", "--concurrency", str(CONCURRENCY)]

    for life in range(KILLS):
        fake_judge.hold(after=ANSWERED_PER_LIFE)
        before = fake_judge.request_count
        again = ["--resume", "1"] if life else ["--max-cost", f"{cap:.10f}"]
        _kill_with_answers_in_flight(cli_process(db_url, *args, *again), fake_judge, before)

    last = cli_process(db_url, *args, "--resume", "1")
    out, err = last.communicate(timeout=120)

    assert last.returncode == BUDGET_EXIT, out + err  # the cap stopped it, not the dataset
    paid = _paid_at_the_provider(fake_judge)
    assert paid <= cap, f"paid ${paid:.6f} under a ${cap:.6f} cap"
    with read_session(engine) as session:
        run = get_run(session, run_id=1)
        lost = lost_spend(session, run_id=1)
    assert run.status == "stopped"
    assert run.done_count < EXAMPLES
    assert lost.answers >= KILLS  # each kill left at least its held request behind
    assert run.cost + lost.cost <= cap
    said = " ".join(out.split())
    counted = f"Counted as spent: {format_dollars(lost.cost)} counted for {lost.answers} judge"
    assert f"{counted} answers lost when the run stopped" in said, said
    engine.dispose()
