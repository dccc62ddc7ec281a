"""A judge call's recorded time is the provider's, even on a fresh process's first call.

The model client imports for seconds and its first call loads more; none of that may be
recorded as the judge's time. Each test scores in a new Python process (where nothing is
loaded yet) against the fake judge, which answers after a scripted latency.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

LATENCY_S = 0.3

_FIRST_CALL = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from tests.batch.judged import verdict_scorer

    class Server:
        base_url = sys.argv[1]

    async def main():
        started = time.perf_counter()
        result = await verdict_scorer(Server()).run(input="q", output="an answer")
        total_ms = (time.perf_counter() - started) * 1000
        execution = result.judge["analyze"]
        calls = [call.duration_ms for call in execution.calls]
        print(json.dumps({"calls": calls, "step_ms": execution.duration_ms, "total_ms": total_ms}))

    asyncio.run(main())
    """
)


def _fresh_process(script: str, *args: str) -> dict[str, object]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_OFFLINE_MODE": "true"}
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_first_call_of_a_fresh_process_records_the_providers_time_only(fake_judge):
    fake_judge.reply({"verdict": "good"}, latency_s=LATENCY_S)
    seen = _fresh_process(_FIRST_CALL, fake_judge.base_url)
    calls, step_ms, total_ms = seen["calls"], seen["step_ms"], seen["total_ms"]
    assert isinstance(calls, list)
    assert len(calls) == 1
    (call_ms,) = calls
    assert isinstance(step_ms, float)
    assert isinstance(total_ms, float)
    # The server slept the latency before answering: the call cannot have been shorter.
    assert call_ms >= LATENCY_S * 1000
    assert call_ms <= step_ms <= total_ms
    # The first scoring of the process paid the client's start-up (an import of seconds);
    # the judge's recorded time and the step's did not.
    assert step_ms < total_ms / 2
