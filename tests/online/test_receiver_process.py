"""``scorer-studio receive`` as a process: an acknowledged span survives kill -9 (the answer
comes after the commit), the studio's receiver stops with the studio, a taken port is
refused in words."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

from sqlalchemy import Engine

from scorer_runtime.store import get_traces, list_traces, read_session
from tests.online.receiver_process import ROOT, start_receiver, stop_receiver
from tests.online.senders import AckRecorder, agent_trace, protobuf_exporter, tracer_provider

ACKS_BEFORE_KILL = 20


def _all_stored_span_ids(engine: Engine) -> set[str]:
    with read_session(engine) as session:
        ids = [t.trace_id for t in list_traces(session, limit=10_000)]
        return {s.span_id for t in get_traces(session, trace_ids=ids) for s in t.spans}


def test_every_acknowledged_span_survives_kill_9_and_the_restarted_receiver_goes_on(engine, db_url):
    receiver = start_receiver(db_url)
    recorder = AckRecorder(protobuf_exporter(receiver.endpoint, timeout=2), ACKS_BEFORE_KILL)
    stop = threading.Event()

    def traffic() -> None:  # exports one span at a time until told to stop
        with tracer_provider(recorder) as provider:
            while not stop.is_set():
                agent_trace(provider)

    sender = threading.Thread(target=traffic)
    sender.start()
    try:
        assert recorder.enough.wait(60), "the receiver acknowledged too few exports"
        os.kill(receiver.process.pid, signal.SIGKILL)  # while the sender keeps exporting
        receiver.process.wait(30)
    finally:
        stop.set()
        sender.join(60)
        stop_receiver(receiver)
    acked_before_kill = set(recorder.acked)

    again = start_receiver(db_url)
    try:
        after = AckRecorder(protobuf_exporter(again.endpoint))
        with tracer_provider(after) as provider:
            agent_trace(provider, "after the restart")
    finally:
        stop_receiver(again)

    assert receiver.process.returncode == -signal.SIGKILL
    assert len(acked_before_kill) >= ACKS_BEFORE_KILL
    stored = _all_stored_span_ids(engine)
    assert acked_before_kill <= stored, f"lost: {sorted(acked_before_kill - stored)}"
    assert set(after.acked) <= stored
    assert after.acks == 3


def test_the_attached_receiver_stops_when_its_standard_input_closes(db_url):
    receiver = start_receiver(db_url)
    assert receiver.process.stdin is not None
    receiver.process.stdin.close()
    assert receiver.process.wait(30) == 0


def test_a_port_already_taken_is_refused_in_words(db_url):
    first = start_receiver(db_url)
    port = first.endpoint.rsplit(":", 1)[1].split("/")[0]
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-c", "from scorer_runtime.cli import main; main()"]
        command += ["--database-url", db_url, "receive", "--port", port]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    finally:
        stop_receiver(first)
    assert done.returncode == 2
    words = " ".join(done.stdout.split() + done.stderr.split())
    assert f"cannot listen on 127.0.0.1:{port}" in words
    assert "start this one with --port" in words
