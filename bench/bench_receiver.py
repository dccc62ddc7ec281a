"""P12: the OTLP receiver's throughput, from the real OpenTelemetry exporter.

Agent traces of 10 spans each (an agent run, model calls and tool calls with GenAI message
attributes) are recorded by the SDK first; then, with the clock running, every finished span is
handed to a ``BatchSpanProcessor`` whose ``OTLPSpanExporter`` (protobuf, gzip, batches of 512)
sends them to ``scorer-studio receive`` running in its own process on an SQLite file, until
``force_flush`` returns: every batch acknowledged, and the receiver acknowledges only after its
commit. Spans stored per second = spans / that time; then the stored spans are counted (0 lost).
Making the spans (the application's own work) is outside the clock.

    python bench/bench_receiver.py [--traces N] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from common import Figure, print_table, size
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from sqlalchemy import func, select

from scorer_runtime.store import make_engine, read_session
from scorer_runtime.store.tables import TraceRecord
from tests.online.receiver_process import receiver_process
from tests.online.senders import protobuf_exporter

SPANS_PER_TRACE = 10
BATCH = 512
TARGET = 5_000.0


def recorded_spans(traces: int) -> list[ReadableSpan]:
    """``traces`` finished agent traces of 10 spans, as an instrumented app ends them."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("support-agent")
    messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Hi " * 40}]}])
    for n in range(traces):
        with tracer.start_as_current_span("invoke_agent support") as agent:
            agent.set_attribute("gen_ai.operation.name", "invoke_agent")
            agent.set_attribute("gen_ai.agent.name", "support")
            agent.set_attribute("gen_ai.input.messages", messages)
            agent.set_attribute("gen_ai.output.messages", messages)
            for step in range(SPANS_PER_TRACE - 1):
                kind = "chat" if step % 2 == 0 else "execute_tool"
                with tracer.start_as_current_span(f"{kind} {step}") as span:
                    span.set_attribute("gen_ai.operation.name", kind)
                    span.set_attribute("gen_ai.request.model", "gpt-4o-mini")
                    span.set_attribute("gen_ai.tool.name", f"tool_{step}")
                    span.set_attribute("gen_ai.usage.input_tokens", 100 + n)
    provider.shutdown()
    return list(memory.get_finished_spans())


def stored_spans(db_url: str) -> int:
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            query = select(func.sum(TraceRecord.span_count))
            return int(session.execute(query).scalar_one() or 0)
    finally:
        engine.dispose()


def measure(spans: list[ReadableSpan], folder: Path, n: int) -> tuple[float, int]:
    """Seconds to send and store ``spans`` through a fresh receiver, and how many are stored."""
    db_url = f"sqlite:///{folder / f'receiver-{n}.db'}"
    with receiver_process(db_url) as receiver:
        processor = BatchSpanProcessor(
            protobuf_exporter(receiver.endpoint, gzip_body=True),
            max_queue_size=len(spans),
            max_export_batch_size=min(BATCH, len(spans)),
        )
        started = time.perf_counter()
        for span in spans:
            processor.on_end(span)
        assert processor.force_flush(timeout_millis=600_000), "the exporter did not finish"
        elapsed = time.perf_counter() - started
        processor.shutdown()
    return elapsed, stored_spans(db_url)


def run(traces: int = size(2_000, 20), repeat: int = size(3, 1)) -> list[Figure]:
    spans = recorded_spans(traces)
    with tempfile.TemporaryDirectory() as folder:
        results = [measure(spans, Path(folder), n) for n in range(repeat)]
    rate = statistics.median(len(spans) / elapsed for elapsed, _ in results)
    lost = max(len(spans) - stored for _, stored in results)
    return [
        Figure(
            "P12",
            f"receiver: {len(spans):,} spans from the OTLP exporter, stored per second",
            rate,
            "spans/s",
            f">= {TARGET:,.0f}",
            rate >= TARGET and lost == 0,
            f"{lost} lost (worst of {repeat} runs); BatchSpanProcessor, protobuf + gzip, "
            f"batches of {BATCH}, receiver in its own process on an SQLite file",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print_table(run(args.traces, args.repeat))


if __name__ == "__main__":
    main()
