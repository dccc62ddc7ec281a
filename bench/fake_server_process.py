"""Run the tests' fake OpenAI-compatible server in its own process (so its CPU is not ours).

Usage: python fake_server_process.py LATENCY_S — prints the base URL, serves until stdin closes.
"""

from __future__ import annotations

import contextlib
import sys

import common  # noqa: F401 - puts tests/ on sys.path
from fakes.openai_server import FakeOpenAIServer


def main() -> None:
    latency = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    with FakeOpenAIServer() as server:
        server.reply({"score": 0.5}, latency_s=latency)
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C on `make bench`: stop quietly
        main()
