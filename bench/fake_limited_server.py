"""The tests' fake judge server, admitting R requests a second (429 + Retry-After: 1 above
it), in its own process, counting the requests of each second as they arrive.

Usage: python fake_limited_server.py R LATENCY_S — prints the base URL, then answers lines
on stdin: ``reset`` (a fresh bucket and fresh counts; prints ``ok``), ``counts`` (prints the
counts since the last reset as JSON: [[second, received, refused], ...]). Ends when stdin
closes.
"""

from __future__ import annotations

import contextlib
import json
import sys

import common  # noqa: F401 - puts tests/ on sys.path
from fakes.openai_server import FakeOpenAIServer


def main() -> None:
    per_second, latency = float(sys.argv[1]), float(sys.argv[2])
    with FakeOpenAIServer() as server:

        def reset() -> None:
            server.reset()
            server.limit_rate(per_second)
            server.reply({"score": 0.5}, latency_s=latency)

        reset()
        print(server.base_url, flush=True)
        for line in sys.stdin:
            if line.strip() == "reset":
                reset()
                print("ok", flush=True)
            elif line.strip() == "counts":
                seconds = [[s.second, s.received, s.refused] for s in server.seconds()]
                print(json.dumps(seconds), flush=True)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C on `make bench`: stop quietly
        main()
