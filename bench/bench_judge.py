"""P2b (the fake server's own floor) and P2c (client CPU per judge call)."""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from common import Figure, median_of, size

from scorer_runtime import Judge, PromptStep, create_scorer

HERE = Path(__file__).resolve().parent
BODY = {
    "model": "fake-judge",
    "messages": [{"role": "system", "content": "Grade."}, {"role": "user", "content": "Rate: x"}],
}


@contextmanager
def fake_server(latency_s: float) -> Iterator[str]:
    """A fake judge server in a child process; yields its base URL."""
    process = subprocess.Popen(
        [sys.executable, str(HERE / "fake_server_process.py"), str(latency_s)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip()
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=10)


async def _direct_calls(base_url: str, n: int, concurrency: int) -> float:
    """Wall time of ``n`` direct HTTP calls with ``concurrency`` workers."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        queue = list(range(n))

        async def worker() -> None:
            while queue:
                queue.pop()
                response = await client.post(f"{base_url}/chat/completions", json=BODY)
                response.raise_for_status()

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


async def _socket_calls(base_url: str, n: int, concurrency: int) -> float:
    """Like :func:`_direct_calls`, with a bare HTTP/1.1 keep-alive client on asyncio streams
    (no httpx): what is left is the server, the kernel and the event loop."""
    host_port = base_url.split("://", 1)[1].split("/", 1)[0]
    host, port = host_port.rsplit(":", 1)
    path = "/" + base_url.split("://", 1)[1].split("/", 1)[1] + "/chat/completions"
    body = json.dumps(BODY).encode()
    request = (
        f"POST {path} HTTP/1.1\r\nHost: {host_port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    queue = list(range(n))

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            while queue:
                queue.pop()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                if not head.startswith(b"HTTP/1.1 200"):
                    raise RuntimeError(head.decode(errors="replace"))
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                await reader.readexactly(length)
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started


def server_floor(n: int = size(1000, 20), concurrency: int = 8, latency_s: float = 0.05) -> Figure:
    with fake_server(latency_s) as url:
        wall = median_of(3, lambda: asyncio.run(_direct_calls(url, n, concurrency)))
        bare = median_of(3, lambda: asyncio.run(_socket_calls(url, n, concurrency)))
    ideal = n * latency_s / concurrency
    ratio = wall / ideal
    return Figure(
        "P2b",
        f"fake server floor: {n} direct calls, 50 ms, concurrency {concurrency}",
        ratio,
        "x ideal",
        "<= 1.05",
        ratio <= 1.05,
        f"httpx client; with a bare socket client instead {bare / ideal:.3f}x "
        "(the server's own floor)",
    )


def _judge_scorer(url: str, model: str = "openai/fake-judge"):
    judge = Judge(
        model=model,
        instructions="Grade.",
        api_base=url,
        api_key="sk-bench",
        json_prompt_injection="system",
    )
    return create_scorer(id="p2c", description="one prompt step", judge=judge).generate_score(
        PromptStep(
            description="score",
            create_prompt=lambda run: f"Rate: {run.output}",
            calculate_score=lambda judge_output: judge_output["score"],
        )
    )


async def _cpu_ms_per_call(call, n: int) -> float:
    started = time.process_time()
    for _ in range(n):
        await call()
    return (time.process_time() - started) * 1000 / n


@contextmanager
def _old_path() -> Iterator[None]:
    """The judge client as it was before: no pricing keywords for any model, so for a model
    its cost map does not know litellm searched the map again on every call."""
    from scorer_runtime.judge import client

    saved = client.pricing
    setattr(client, "pricing", lambda model: client.Pricing(known=True, arguments={}))  # noqa: B010
    try:
        yield
    finally:
        setattr(client, "pricing", saved)  # noqa: B010


async def _old_and_new(call, n: int, rounds: int) -> tuple[float, float]:
    """Median CPU ms per call of ``call`` on the old and the new path, measured in turns
    (old-new, new-old, ...) so both see the same load on a shared machine and neither
    always goes first."""
    for _ in range(20):  # warm-up: connection pools, lazy imports, caches
        await call()
        with _old_path():
            await call()
    old: list[float] = []
    new: list[float] = []
    for turn in range(rounds):
        for path in ("old", "new") if turn % 2 == 0 else ("new", "old"):
            if path == "new":
                new.append(await _cpu_ms_per_call(call, n))
                continue
            with _old_path():
                old.append(await _cpu_ms_per_call(call, n))
    return statistics.median(old), statistics.median(new)


def client_cpu(n: int = size(50, 5), rounds: int = size(20, 2)) -> list[Figure]:
    from scorer_runtime.judge.client import _litellm

    litellm = _litellm()
    with fake_server(0.0) as url:
        scorer = _judge_scorer(url)
        # The same, under the name of a model litellm can price (as real judges are): litellm
        # looks harder, and longer, for the price of a model it does not know.
        priced = _judge_scorer(url, "openai/gpt-4o-mini")

        async def raw_http(client: httpx.AsyncClient) -> None:
            response = await client.post(f"{url}/chat/completions", json=BODY)
            response.raise_for_status()

        async def raw_litellm() -> None:
            await litellm.acompletion(
                model="openai/fake-judge",
                messages=BODY["messages"],
                api_base=url,
                api_key="sk-bench",
                num_retries=0,
                max_retries=0,
                timeout=30,
            )

        async def measure_all() -> tuple[tuple[float, float], tuple[float, float], float, float]:
            async with httpx.AsyncClient(timeout=30) as client:  # one per event loop
                for _ in range(20):
                    await raw_litellm()
                    await raw_http(client)
                return (
                    await _old_and_new(lambda: scorer.run(output="x"), n, rounds),
                    await _old_and_new(lambda: priced.run(output="x"), n, rounds),
                    await _cpu_ms_per_call(raw_litellm, n * rounds),
                    await _cpu_ms_per_call(lambda: raw_http(client), n * rounds),
                )

        (old, new), (old_priced, new_priced), lite, raw = asyncio.run(measure_all())
    return [
        Figure(
            "P2c",
            "client CPU per judge call through scorer_runtime",
            new,
            "ms/call",
            "-",  # retired (issue 28): litellm stays the one client; a figure, not a target
            None,
            f"old path {old:.2f} ms/call, new {new:.2f} (new/old {new / old:.2f}); "
            f"raw litellm {lite:.2f}, raw HTTP {raw:.2f} ms/call",
        ),
        Figure(
            "P2c",
            "the same for a model litellm prices",
            new_priced,
            "ms/call",
            "-",
            None,
            f"old path {old_priced:.2f} ms/call, new {new_priced:.2f} (new/old "
            f"{new_priced / old_priced:.2f}; the same code: litellm caches a priced lookup)",
        ),
    ]


def run() -> list[Figure]:
    return [server_floor(), *client_cpu()]


if __name__ == "__main__":
    from common import print_table

    print_table(run())
