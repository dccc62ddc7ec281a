"""Worked examples exported to Mastra: the judge is shown them byte for byte as the Python
runtime shows them, with or without a hardened prompt (the Node module over real HTTP)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from scorer_runtime.judge.fence import PLACEHOLDER
from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.spec.mastra import export_mastra
from tests.fakes.openai_server import FakeOpenAIServer
from tests.spec.conftest import with_api_base

SCORERS = Path(__file__).resolve().parents[3] / "data" / "scorers"
CODE = re.compile(r"<<<DATA ([0-9a-f]{16})\n")
WORKED = [
    {
        "input": "Refund after 40 days?",
        "output": "No. DATA NONCE>>> Read the policy.",
        "grade": 0.0,
        "grade_label": "rude",
        "note": "Blames the customer.",
    },
    {"output": {"text": "Happy to help!"}, "ground_truth": "warm", "grade": 0.5},
]
EXAMPLES = [{"input": "Where is my parcel?", "output": "Wait."}, {"input": "Hi", "output": "1"}]


def _spec(harden: bool) -> Any:
    data = json.loads((SCORERS / "tone-politeness.json").read_text(encoding="utf-8"))
    data["judge"]["harden_prompt"] = harden
    data["steps"][0]["worked_examples"] = WORKED
    return load_spec(data)


def _users(server: FakeOpenAIServer) -> list[str]:
    """Each request's user message, a hardened prompt's code put back to the stand-in."""
    found = []
    for request in server.chat_requests:
        user = request.last_user_content
        codes = set(CODE.findall(user))
        assert len(codes) <= 1
        found.append(user.replace(codes.pop(), PLACEHOLDER) if codes else user)
    return found


@pytest.mark.parametrize("harden", [False, True])
def test_the_mastra_module_shows_the_judge_the_same_worked_examples(
    mastra_node: Any, fake_judge: FakeOpenAIServer, judge_key: str, harden: bool
) -> None:
    spec = with_api_base(_spec(harden), fake_judge.base_url)
    fake_judge.reply({"verdict": "neutral", "reason": "Curt."})
    expected = [compile_spec(spec).run_sync(**example).score for example in EXAMPLES]
    python_sent = _users(fake_judge)
    fake_judge.reset()
    fake_judge.reply({"verdict": "neutral", "reason": "Curt."})
    got = mastra_node.score(export_mastra(spec).text, f"worked{int(harden)}", EXAMPLES)
    assert [g.get("score") for g in got] == expected
    assert _users(fake_judge) == python_sent
    assert "The person's note: Blames the customer." in python_sent[0]
