"""The judge's masking, shortening and blocked-answer check behave the same in Mastra."""

from __future__ import annotations

from typing import Any

from scorer_runtime.spec import compile_spec, load_spec
from scorer_runtime.spec.mastra import export_mastra
from tests.fakes.openai_server import FakeOpenAIServer
from tests.spec.conftest import with_api_base

_VERDICT = {
    "type": "object",
    "properties": {"verdict": {"type": "string"}},
    "required": ["verdict"],
    "additionalProperties": False,
}

PROCESSED = {
    "id": "processed-judge",
    "description": "A judge that masks, shortens and blocks.",
    "judge": {
        "model": "openai/gpt-4o-mini",
        "instructions": "Grade strictly. Questions to qa@example.org, key sk-abcdefghijklmnop1234.",
        "redact_pii": {
            "kinds": ["email", "card", "phone", "api_key"],
            "patterns": {
                "order": r"(?i:order) (?P<redact>\d{5})\b",
                "email": r"[\w.]+@example\.org",
            },
            "replacement": "<{name}>",
        },
        "truncate": {"max_tokens": 25, "keep": "both", "marker": " [...] "},
        "output_guard": {"patterns": [r"as an ai", r"\bforbidden\b"]},
    },
    "steps": [
        {
            "step": "preprocess",
            "description": "First look",
            "template": "Look: {{ output }}",
            "output_schema": _VERDICT,
            "judge": {"truncate": {"max_chars": 45, "keep": "tail"}},
        },
        {
            "step": "analyze",
            "description": "Check",
            "template": "Check: {{ output }}",
            "output_schema": _VERDICT,
        },
        {"step": "generate_score", "formula": "1 if step2.verdict == 'ok' else 0.5"},
        {"step": "generate_reason", "formula": "step1.verdict + ' ' + step2.verdict"},
    ],
}

BRANCHES = {
    "id": "branching-prompt",
    "description": "A prompt with if, elif and else.",
    "judge": {"model": "openai/gpt-4o-mini", "instructions": "Grade."},
    "steps": [
        {
            "step": "analyze",
            "description": "Check",
            "template": "{% if not output %}Nothing.{% elif input.kind == 'refund' %}Refund: "
            "{{ output }}{% elif input.kind %}Other {{ input.kind }}{% else %}Plain"
            "{% endif %}\n{% for t in input.tags %}{% if t %}{{ loop.index }}={{ t }}"
            "{% elif t == 0 %}zero{% endif %};{% endfor %}",
            "output_schema": _VERDICT,
        },
        {"step": "generate_score", "formula": "1 if step2.verdict == 'ok' else 0.5"},
    ],
}
BRANCH_EXAMPLES = [
    {"input": {"kind": "refund", "tags": ["a", 0, ""]}, "output": "Paid back."},
    {"input": {"kind": "swap", "tags": []}, "output": "Done."},
    {"input": {"kind": "", "tags": [1]}, "output": "Done."},
    {"input": {"kind": "refund", "tags": []}, "output": ""},
]

OUTPUTS = [
    "Order 12345 (see order 12345): call +44 20 7946 0958 or 415-555-2671, "
    "card 4111 1111 1111 1111, mail bob@example.org and ann@example.com, "
    "key sk-abcdefghijklmnopqrstuvwxyz123.",
    "GUARD: a short answer",
    "FORBID: Ünïcode ٤١١١١١١١١١١١١١١١ and 5555-5555-5555-4444 (Bearer abcdefghijklmnopqrstu)",
    "Fine.",
]


def _script(server: FakeOpenAIServer) -> None:
    server.reset()
    server.reply({"verdict": "As an AI, I cannot"}, when="Check: GUARD")
    server.reply({"verdict": "forbidden"}, when="Check: FORBID")
    server.reply({"verdict": "looked"}, when="Look:")
    server.reply({"verdict": "ok"})


def _sent(server: FakeOpenAIServer) -> list[list[tuple[str, str]]]:
    return [[(m["role"], m["content"]) for m in r.json["messages"]] for r in server.chat_requests]


def _python(spec: Any, examples: list[dict[str, Any]]) -> list[Any]:
    scorer = compile_spec(spec)
    expected: list[Any] = []
    for example in examples:
        try:
            result = scorer.run_sync(**example)
        except Exception as error:
            expected.append(("error", "blocked pattern" in str(error)))
        else:
            expected.append((result.score, result.reason))
    return expected


def _outcome(got: dict[str, Any]) -> Any:
    if "error" in got:
        return ("error", "blocked pattern" in got["error"])
    return (got["score"], got["reason"])


def test_masked_shortened_and_blocked_like_the_studio(
    mastra_node: Any, fake_judge: FakeOpenAIServer, judge_key: str
) -> None:
    spec = with_api_base(load_spec(PROCESSED), fake_judge.base_url)
    branches = with_api_base(load_spec(BRANCHES), fake_judge.base_url)
    examples = [{"output": output} for output in OUTPUTS]
    _script(fake_judge)
    expected = _python(spec, examples)
    branch_expected = _python(branches, BRANCH_EXAMPLES)
    python_sent = _sent(fake_judge)
    exported = export_mastra(spec)
    # only that a whole output written 3.0 would read 3 (these outputs are text)
    assert [d[:40] for d in exported.differences] == ["The preprocess and analyze steps show {{"]
    _script(fake_judge)
    runs = [(exported.text, spec.id, examples)]
    runs.append((export_mastra(branches).text, branches.id, BRANCH_EXAMPLES))
    got, branch_got = mastra_node.score_many(runs)
    mine = [_outcome(g) for g in got]
    assert [_outcome(g) for g in branch_got] == branch_expected
    assert len({sent[1][1] for sent in python_sent[-4:]}) == 4  # each branch taken
    assert mine == expected
    assert expected[1] == expected[2] == ("error", True)
    assert expected[0] == (1.0, "ok ok")
    assert expected[3] == (1.0, "looked ok")
    assert _sent(fake_judge) == python_sent
    # The first step sets only its own shortening, so (as in the studio) it masks nothing.
    masked = [sent for sent in python_sent if "<api_key>" in sent[0][1]]
    assert len(masked) == len(examples)
    everything = str(masked)
    for secret in ("bob@example.org", "12345", "4111", "7946", "sk-abcdef"):
        assert secret not in everything
    for shown in ("[...]", "<card>", "Bearer <api_key>", "Order <order> (see order <order>)"):
        assert shown in everything


def test_a_masking_rule_read_differently_in_javascript_is_refused_by_name() -> None:
    import pytest

    from scorer_runtime.spec.mastra import MastraExportError

    spec = {
        **PROCESSED,
        "judge": {**PROCESSED["judge"], "redact_pii": {"patterns": {"x": "(?x) a"}}},
    }
    with pytest.raises(MastraExportError, match=r"'\(\?x\) a'"):
        export_mastra(load_spec(spec))


PHONES_SPEC = {
    "id": "masked-phones",
    "description": "A judge that hides personal data in the prompt.",
    "judge": {"model": "openai/gpt-4o-mini", "instructions": "Grade.", "redact_pii": {}},
    "steps": [
        {
            "step": "analyze",
            "description": "Read",
            "template": "Read: {{ output }}",
            "output_schema": _VERDICT,
        },
        {"step": "generate_score", "formula": "1"},
    ],
}


def test_every_phone_shape_is_hidden_the_same_in_javascript(
    mastra_node: Any, fake_judge: FakeOpenAIServer, judge_key: str
) -> None:
    from tests.processors.phone_shapes import AROUND, NOT_PHONES, PHONES

    spec = with_api_base(load_spec(PHONES_SPEC), fake_judge.base_url)
    outputs = [template.format(p, p) for p in PHONES for template, _ in AROUND]
    outputs += [*NOT_PHONES, "Mail (ana@example.com, 0049 30 1234567)."]
    examples = [{"output": output} for output in outputs]
    fake_judge.reset()
    fake_judge.reply({"verdict": "ok"})
    assert _python(spec, examples) == [(1.0, None)] * len(examples)
    python_prompts = [sent[-1][1] for sent in _sent(fake_judge)]
    fake_judge.reset()
    fake_judge.reply({"verdict": "ok"})
    got = mastra_node.score(export_mastra(spec).text, spec.id, examples)
    assert [_outcome(g) for g in got] == [(1, None)] * len(examples)
    assert [sent[-1][1] for sent in _sent(fake_judge)] == python_prompts
    expected = [f"Read: {out}" for p in PHONES for _, out in AROUND]
    expected += [f"Read: {text}" for text in NOT_PHONES]
    assert python_prompts == [*expected, "Read: Mail ([REDACTED:email], [REDACTED:phone])."]
