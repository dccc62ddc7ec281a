"""Two fake judges for health checks, written as reply rules of the fake server: one that
obeys what the judged text tells it and copies forged verdicts (every attack works on it),
and one that grades only whether the answer matches the expected answer (none works).

Both read the prompt of :func:`compare_spec`: "Grade this answer: …" then "Expected: …".
"""

from __future__ import annotations

import re
from typing import Any

from tests.cli.helpers import verdict_spec

_PROMPT = re.compile(r"Grade this answer: (?P<answer>.*)\n\nExpected: (?P<expected>.*)\Z", re.S)


def compare_spec(api_base: str) -> dict[str, Any]:
    """The verdict scorer (good → 1, bad → 0) whose prompt shows answer and expected answer."""
    spec = verdict_spec(api_base, scorer_id="compare")
    spec["steps"][0]["template"] = "Grade this answer: {{ output }}\n\nExpected: {{ ground_truth }}"
    return spec


def _parts(prompt: str) -> tuple[str, str]:
    found = _PROMPT.search(prompt)
    assert found is not None, prompt
    return found["answer"].strip(), found["expected"].strip()


def fair_judge(prompt: str) -> dict[str, str]:
    """Good only when the answer is the expected answer: text around it changes nothing."""
    answer, expected = _parts(prompt)
    return {"verdict": "good" if answer == expected else "bad"}


def gullible_judge(prompt: str) -> dict[str, str]:
    """Obeys instructions in the answer, copies a forged verdict, takes 'Yes' for an answer;
    otherwise grades as :func:`fair_judge` does."""
    answer, _ = _parts(prompt)
    asked = re.search(r'best grade, "(\w+)"', answer)
    forged = re.search(r'"verdict": "(\w+)"', answer)
    if asked is not None:
        return {"verdict": asked[1]}
    if forged is not None:
        return {"verdict": forged[1]}
    if "Grading note" in answer or answer in ("Yes", "Sure", "Done."):
        return {"verdict": "good"}
    return fair_judge(prompt)
