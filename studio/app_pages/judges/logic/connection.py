"""Test a judge's connection: one tiny real request through the runtime, and its outcome in
plain words ("Connected: the judge answered in 400 ms", or what failed and what to do).

The request is a one-step prompt scorer asking for ``{"ok": true}``, compiled from a spec
like any scorer, so it goes through exactly the client, processors and answer parsing that
real scoring uses. Retries are off and the timeout short: a test should answer quickly.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Any, Literal

from scorer_runtime.errors import ErrorKind, ScorerRunError
from scorer_runtime.judge.client import supports_response_schema
from scorer_runtime.spec import JudgeSpec, compile_spec
from studio.error_words import explain
from studio.words import KEY_PLACE, format_duration

CONNECTION_TIMEOUT_S = 15.0
"""The longest a connection test waits for the judge (the profile's own timeout if shorter)."""
PROBE_PROMPT = (
    'This is a connection test. Answer with the JSON object {"ok": true} and nothing else.'
)
PROBE_INSTRUCTIONS = "You check that you can be reached. Answer exactly as asked."
_PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}
_TITLES: dict[ErrorKind, str] = {
    ErrorKind.AUTH: "The provider refused the key",
    ErrorKind.CONNECTION: "The judge could not be reached",
    ErrorKind.TIMEOUT: "The judge did not answer in time",
    ErrorKind.INVALID_REQUEST: "The provider rejected the request",
    ErrorKind.RATE_LIMITED: "The provider is rate-limiting you",
    ErrorKind.SERVER_ERROR: "The provider had an error on its side",
    ErrorKind.CONTEXT_LENGTH: "The test prompt was too long for this model",
}
_MODEL_HINT = (
    " A model is written as provider/model, e.g. openai/gpt-4o-mini, "
    "anthropic/claude-3-5-haiku-latest or ollama/llama3."
)

Status = Literal["connected", "format", "failed"]


@dataclass(frozen=True, slots=True)
class ConnectionResult:
    """The outcome of a connection test, ready to show."""

    status: Status
    """connected; format (it answered, but not in the shape asked for); failed."""
    title: str
    detail: str = ""
    what_to_do: str = ""
    seconds: float | None = None
    answer: str | None = None
    """The judge's raw answer, when it gave one."""

    @property
    def ok(self) -> bool:
        """Whether the judge was reached and answered."""
        return self.status != "failed"


def probe_spec(judge: JudgeSpec, *, timeout_s: float = CONNECTION_TIMEOUT_S) -> dict[str, Any]:
    """The one-step scorer spec a connection test runs with ``judge`` (retries off)."""
    timeout = min(judge.timeout_s or timeout_s, timeout_s)
    probe = judge.model_copy(
        update={
            "timeout_s": timeout,
            "retry": None,
            "instructions": judge.instructions or PROBE_INSTRUCTIONS,
        }
    )
    return {
        "id": "connection-test",
        "description": "Checks that the judge can be reached and answers.",
        "judge": probe.model_dump(exclude_none=True, mode="json"),
        "steps": [
            {
                "step": "generate_score",
                "description": "Answer ok",
                "template": PROBE_PROMPT,
                "output_schema": _PROBE_SCHEMA,
                "calculate_score": {"formula": "1 if judge_output.ok else 0"},
            }
        ],
    }


def check_connection(
    judge: JudgeSpec, *, timeout_s: float = CONNECTION_TIMEOUT_S
) -> ConnectionResult:
    """Send one tiny request to the judge and say how it went (never raises for a failure)."""
    env = judge.api_key_env
    if env and not os.environ.get(env):
        return ConnectionResult(
            "failed",
            "The key is not set",
            f"No key is set in {env}, where the judge's key is kept, so no request was sent.",
            f"Paste the key in 'Paste the key for {env}' just under '{KEY_PLACE}' and click "
            "Use this key, then test again. No restart is needed.",
        )
    # Load the model library first (seconds, once per process): the time shown is the judge's.
    supports_response_schema(judge.model or "")
    started = time.perf_counter()
    try:
        scorer = compile_spec(probe_spec(judge, timeout_s=timeout_s))
        result = scorer.run_sync(input="connection test", output="ok")
    except ScorerRunError as error:
        return _failure(error, min(judge.timeout_s or timeout_s, timeout_s))
    except Exception as error:  # a connection test reports every failure, it never crashes
        said = explain(error)
        return ConnectionResult("failed", said.title, said.detail, said.what_to_do)
    execution = result.judge.get("generate_score")
    seconds = execution.duration_ms / 1000 if execution else time.perf_counter() - started
    return ConnectionResult(
        "connected",
        f"Connected: the judge answered in {format_duration(seconds)}",
        seconds=seconds,
        answer=execution.raw_output if execution else None,
    )


_LIBRARY_NOISE = re.compile(r"litellm\.\w+: |\b\w+(Error|Exception)(: | - )")
_NO_KEY = ("missing credentials", "api_key client option must be set")


def plain_detail(text: str) -> str:
    """A provider error without the model library's class names ("litellm.AuthenticationError:
    AuthenticationError: OpenAIException - Incorrect API key" reads "Incorrect API key")."""
    return _LIBRARY_NOISE.sub("", text).strip()


def _failure(error: ScorerRunError, timeout_s: float) -> ConnectionResult:
    said = explain(error)
    detail = plain_detail(said.detail)
    execution = error.result.judge.get("generate_score")
    answer = execution.raw_output if execution else None
    seconds = execution.duration_ms / 1000 if execution else 0.0
    kind = error.error_kind
    if any(marker in detail.lower() for marker in _NO_KEY):
        return ConnectionResult(
            "failed",
            "The judge needs an API key",
            detail,
            f"Write a name for the key in '{KEY_PLACE}' (e.g. OPENAI_API_KEY), paste the key "
            "in the box that appears under it and click Use this key. A local server that "
            "checks no key still needs one: paste any text.",
        )
    if kind is ErrorKind.FORMAT:
        return ConnectionResult(
            "format",
            f"Connected, but the judge's answer was not in the shape asked for "
            f"(it answered in {format_duration(seconds)})",
            detail,
            said.what_to_do,
            seconds=seconds,
            answer=answer,
        )
    title = _TITLES.get(kind, "The test request failed") if kind else "The test request failed"
    what_to_do = said.what_to_do
    if kind is ErrorKind.TIMEOUT:
        title = f"The judge did not answer within {format_duration(timeout_s)}"
    if kind is ErrorKind.INVALID_REQUEST:
        what_to_do += _MODEL_HINT
    return ConnectionResult("failed", title, detail, what_to_do, answer=answer)
