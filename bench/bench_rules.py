"""P13: a trace arrives → its scoring rule's score is stored, judge-free scorer, warm runner.

A ``scorer-studio worker`` (started and warmed beforehand) serves one store with a rule of a
judge-free scorer (``service=checkout``). Each round stores a trace the rule leaves (another
service) and one it takes, as a trace import or the OTLP receiver stores them
(``save_traces``), and times from the commit of the second to the commit of its score, read
by polling the store every 5 ms. The median of 20 rounds is the figure.

    python bench/bench_rules.py [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from common import Figure, percentile, print_table, size
from sqlalchemy import func, select

from scorer_runtime.batch.local_runner import cli_program
from scorer_runtime.runs import plan_rule, start_rule
from scorer_runtime.spec import load_spec
from scorer_runtime.store import (
    ensure_schema,
    make_engine,
    read_session,
    save_scorer_version,
    save_traces,
    session_scope,
)
from scorer_runtime.store.tables import ScoreRecord
from scorer_runtime.traces.model import GenAIInfo, Span, Trace
from scorer_runtime.traces.rules import parse_filters

TARGET_S = 2.0
SPEC = {
    "id": "p13-always-one",
    "description": "Every trace scores 1 (no judge)",
    "steps": [{"step": "generate_score", "formula": "1"}],
}


def _trace(trace_id: str, service: str) -> Trace:
    now = datetime.now(UTC)
    span = Span(
        trace_id=trace_id,
        span_id=trace_id[:16],
        name="invoke_agent support-agent",
        type="agent_run",
        start_time=now,
        end_time=now + timedelta(milliseconds=800),
        input="Where is my refund?",
        output="It is on its way.",
        gen_ai=GenAIInfo(operation="invoke_agent", agent_name="support-agent"),
        source="otlp",
        resource={"service.name": service},
    )
    return Trace(trace_id, (span,))


def _start_runner(url: str) -> subprocess.Popen[str]:
    """A runner, returned once it has warmed up (it says it waits for runs)."""
    env = {**os.environ, "SCORER_STUDIO_DATABASE_URL": url}
    runner = subprocess.Popen(
        [*cli_program(), "worker"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert runner.stdout is not None
    while "waiting for runs" not in (line := runner.stdout.readline()):
        if not line:
            status = runner.wait(timeout=30)
            raise RuntimeError(f"the runner ended before it was ready (exit status {status})")
    return runner


def _scored_after(engine, trace_id: str, started: float) -> float:
    deadline = started + 120
    query = select(ScoreRecord.id).where(ScoreRecord.trace_id == trace_id).limit(1)
    while time.perf_counter() < deadline:
        with read_session(engine) as session:
            if session.execute(query).first() is not None:
                return time.perf_counter() - started
        time.sleep(0.005)
    raise TimeoutError(f"trace {trace_id} was not scored in 120 s")


def _rounds(engine, repeat: int) -> tuple[list[float], int]:
    waits: list[float] = []
    for n in range(repeat):
        with session_scope(engine) as session:
            save_traces(session, traces=[_trace(f"{n:032x}", "billing")], source="p13")
        ours = f"{n + 1_000_000:032x}"
        with session_scope(engine) as session:
            save_traces(session, traces=[_trace(ours, "checkout")], source="p13")
        waits.append(_scored_after(engine, ours, time.perf_counter()))
    with read_session(engine) as session:
        stored = session.execute(select(func.count()).select_from(ScoreRecord)).scalar_one()
    return waits, int(stored)


def run(repeat: int = size(20, 3)) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'p13.db'}"
        engine = make_engine(url)
        ensure_schema(engine)
        with session_scope(engine) as session:
            version = save_scorer_version(session, spec=load_spec(SPEC))
        assert version.id is not None
        plan = plan_rule(
            engine, scorer_version_id=version.id, filters=parse_filters(["service=checkout"])
        )
        start_rule(engine, plan)
        runner = _start_runner(url)
        try:
            waits, stored = _rounds(engine, repeat)
        finally:
            runner.terminate()
            runner.wait(timeout=30)
            engine.dispose()
    median = statistics.median(waits)
    return [
        Figure(
            "P13",
            "trace stored → its rule's score stored, judge-free, warm runner",
            median,
            "s",
            f"<= {TARGET_S:g}",
            median <= TARGET_S,
            f"median of {len(waits)}; p90 {percentile(waits, 90):.3f} s, slowest "
            f"{max(waits):.3f} s; {stored} scores stored for {2 * len(waits)} traces (the "
            "rule leaves the other service's)",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description="P13: trace arrives → its rule's score")
    parser.add_argument("--repeat", type=int, default=20)
    print_table(run(parser.parse_args().repeat))


if __name__ == "__main__":
    main()
