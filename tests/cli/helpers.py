"""Helpers of the CLI tests: a judge-backed spec, example files, and running the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from scorer_runtime.cli import app

KEY_ENV = "FAKE_JUDGE_KEY"
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["good", "bad"]}},
    "required": ["verdict"],
}


def verdict_spec(api_base: str | None = None, scorer_id: str = "verdict") -> dict:
    """A scorer spec that asks the judge for a verdict and maps it to 1 or 0."""
    judge = {
        "model": "openai/fake-judge",
        "instructions": "You grade answers.",
        "api_key_env": KEY_ENV,
        "json_prompt_injection": "system",
        "timeout_s": 10,
    }
    if api_base:
        judge["api_base"] = api_base
    return {
        "id": scorer_id,
        "description": "Is the answer good?",
        "judge": judge,
        "steps": [
            {
                "step": "analyze",
                "description": "Judge it",
                "template": "Grade this answer: {{ output }}",
                "output_schema": VERDICT_SCHEMA,
            },
            {
                "step": "generate_score",
                "use": "label_to_score",
                "with": {
                    "mapping": {"good": 1.0, "bad": 0.0},
                    "field": "results.analyze_step_result.verdict",
                },
            },
        ],
    }


def agent_verdict_spec(
    api_base: str, scorer_id: str = "agent-answered", *, key_env: str = KEY_ENV
) -> dict:
    """An agent scorer asking the judge whether the agent answered the user (yes → 1)."""
    return {
        "id": scorer_id,
        "description": "Whether the agent answered what the user asked.",
        "type": "agent",
        "judge": {
            "model": "openai/fake-judge",
            "api_base": api_base,
            "api_key_env": key_env,
            "instructions": "You grade support agents.",
            "json_prompt_injection": "system",
            "timeout_s": 5,
        },
        "steps": [
            {
                "step": "analyze",
                "description": "Did the agent answer?",
                "template": (
                    "User: {{ input | user_message }}\nAgent: {{ output | assistant_message }}"
                ),
                "output_schema": {
                    "type": "object",
                    "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]}},
                    "required": ["verdict"],
                },
            },
            {
                "step": "generate_score",
                "use": "label_to_score",
                "with": {
                    "mapping": {"yes": 1, "no": 0},
                    "field": "results.analyze_step_result.verdict",
                },
            },
        ],
    }


def write_spec(tmp_path: Path, spec: dict, name: str = "verdict.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def write_examples(tmp_path: Path, outputs: list[str], name: str = "answers.jsonl") -> Path:
    path = tmp_path / name
    lines = [json.dumps({"input": f"question {i}", "output": o}) for i, o in enumerate(outputs)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cli(db_url: str, *args: str):
    """Run the command in-process; returns click's Result (output, stderr, exit_code)."""
    return CliRunner().invoke(app, ["--database-url", db_url, *args], catch_exceptions=False)


def cli_process(db_url: str, *args: str) -> subprocess.Popen[str]:
    """Start the command in a child process (for tests that kill it)."""
    env = {**os.environ, KEY_ENV: "sk-test", "SCORER_STUDIO_DATABASE_URL": db_url}
    code = "from scorer_runtime.cli import main; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
