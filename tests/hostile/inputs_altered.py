"""Hostile files, second round: what used to be imported and then broke (a lone surrogate),
stored altered without a word (a key named twice, 1e-400 as 0, YAML's yes as true, spans in
a loop), or refused in a developer's words (a 5,000-digit number, the csv module's message,
the first line of /etc/passwd quoted). Each must now be refused in plain words naming its
line, and never quote the file. The files that must now be *read* are in
``test_accepted_files``.
"""

from __future__ import annotations

import json

from tests.hostile.inputs import Hostile, _jsonl, _spec

PASSWD = (
    b"root:x:0:0:root:/root:/bin/bash\n"
    b"daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
    b"bin:x:2:2:bin:/bin:/usr/sbin/nologin\n"
)
"""What /etc/passwd holds: a file that is no file of ours, whose lines a refusal never shows."""
NEVER_QUOTED = ("root:x", "/bin/bash", "daemon", "pathlib")
"""Its content, and the developer's hint a person was once shown."""
DEVELOPER_WORDS = ("set_int_max_str_digits", "universal-newline", "mapping.False")


def _pretty(data: object) -> bytes:
    """JSON over several lines (so the line a problem is on is worth naming)."""
    return json.dumps(data, indent=2).encode()


def _span(trace: str, span: str, parent: str | None) -> str:
    return json.dumps(
        {
            "traceId": trace,
            "spanId": span,
            "parentSpanId": parent,
            "name": f"step {span}",
            "spanType": "agent_run",
            "startedAt": "2025-06-12T09:15:02.100Z",
            "endedAt": "2025-06-12T09:15:03.100Z",
        }
    )


def _digits(count: int) -> str:
    return "9" * count


ALTERED_DATASETS = [
    Hostile(
        "jsonl lone surrogate escape",
        "dataset",
        "surrogate.jsonl",
        lambda: _jsonl('{"input": "q", "output": "half \\ud800 a pair"}'),
        ("line 4", "\\ud800", "half of a pair"),
    ),
    Hostile(
        "jsonl lone low surrogate in a key",
        "dataset",
        "surrogate-key.jsonl",
        lambda: _jsonl('{"output": "a", "\\udc00": 1}'),
        ("line 4", "\\udc00"),
    ),
    Hostile(
        "jsonl key named twice",
        "dataset",
        "twice.jsonl",
        lambda: _jsonl('{"input": "q", "output": "kept?", "output": "or this?"}'),
        ("line 4", "the key 'output' appears twice"),
    ),
    Hostile(
        "jsonl 1e-400 would be stored as 0",
        "dataset",
        "underflow.jsonl",
        lambda: _jsonl('{"output": "a", "ground_truth": 1e-400}'),
        ("line 4", "1e-400 is too small to store"),
    ),
    Hostile(
        "jsonl whole number of 5,000 digits",
        "dataset",
        "digits.jsonl",
        lambda: _jsonl('{"output": "a", "ground_truth": ' + _digits(5000) + "}"),
        ("line 4", "5,000 digits is too long"),
        never=DEVELOPER_WORDS,
    ),
    Hostile(
        "csv json cell naming a key twice",
        "dataset",
        "twice-cell.csv",
        lambda: b'input,output,request_context\nq,a,"{""user"": 1, ""user"": 2}"\n',
        ("line 2", "the key 'user' appears twice"),
    ),
    Hostile(
        "csv with a carriage return alone inside a line",
        "dataset",
        "lone-cr.csv",
        lambda: b"input,output\nq1,a1\nq2,half\rline\nq3,a3\n",
        ("line 3", "carriage return"),
        never=DEVELOPER_WORDS,
    ),
    Hostile(
        "csv that is /etc/passwd",
        "dataset",
        "passwd.csv",
        lambda: PASSWD,
        ("line 1", "the first line holds no comma"),
        never=NEVER_QUOTED,
    ),
    Hostile(
        "jsonl that is /etc/passwd",
        "dataset",
        "passwd.jsonl",
        lambda: PASSWD,
        ("line 1", "not valid json"),
        max_lines=5,
        never=NEVER_QUOTED,
    ),
    Hostile(
        "csv holding a NUL byte",
        "dataset",
        "nul.csv",
        lambda: b"input,output\nq1,a1\nq2,a\x00b\n",
        ("line 3", "nul character"),
    ),
    Hostile(
        "csv that says UTF-16 and is not",
        "dataset",
        "broken-utf16.csv",
        lambda: b"\xff\xfe" + "input,output\nq,a\n".encode("utf-16-le") + b"\x00",
        ("line 3", "not utf-16", "save it as utf-8"),
    ),
]

ALTERED_SPECS = [
    Hostile(
        "spec json lone surrogate on line 3",
        "spec",
        "surrogate.json",
        lambda: _pretty(_spec(description="half @ a pair")).replace(b"@", b"\\ud800"),
        ("line 3", "\\ud800"),
        max_lines=2,
    ),
    Hostile(
        "spec json 1e-400",
        "spec",
        "underflow.json",
        lambda: b'{\n  "id": "x",\n  "description": "x",\n  "threshold": 1e-400\n}\n',
        ("line 4", "1e-400 is too small to store"),
    ),
    Hostile(
        "spec yaml 1.0e-400",
        "spec",
        "underflow.yaml",
        lambda: (
            b"id: x\ndescription: x\nsteps:\n  - step: generate_score\n    formula: '1'\n"
            b"threshold: 1.0e-400\n"
        ),
        ("line 6", "1.0e-400 is too small to store"),
    ),
    Hostile(
        "spec json whole number of 5,000 digits",
        "spec",
        "digits.json",
        lambda: ('{\n  "id": "x",\n  "n": ' + _digits(5000) + "\n}\n").encode(),
        ("line 3", "5,000 digits is too long"),
        never=DEVELOPER_WORDS,
    ),
    Hostile(
        "spec yaml whole number of 5,000 digits",
        "spec",
        "digits.yaml",
        lambda: ("id: x\ndescription: x\nn: " + _digits(5000) + "\n").encode(),
        ("line 3", "5,000 digits is too long"),
        never=DEVELOPER_WORDS,
    ),
    Hostile(
        "spec yaml that is /etc/passwd",
        "spec",
        "passwd.yaml",
        lambda: PASSWD,
        ("line 1", "plain text"),
        never=NEVER_QUOTED,
    ),
    Hostile(
        "spec json that is /etc/passwd",
        "spec",
        "passwd.json",
        lambda: PASSWD,
        ("line 1", "plain text"),
        never=NEVER_QUOTED,
    ),
]

ALTERED_TRACES = [
    Hostile(
        "trace lines naming a key twice",
        "traces",
        "twice.jsonl",
        lambda: (_span("t", "a", None)[:-1] + ', "name": "x"}\n' + _span("t", "b", "b")).encode(),
        ("line 1", "the key 'name' appears twice", "line 2", "names itself"),
        max_lines=3,
    ),
    Hostile(
        "trace line with a lone surrogate",
        "traces",
        "surrogate.jsonl",
        lambda: (_span("t", "a", None).replace("step a", "\\udfff") + "\n").encode(),
        ("line 1", "\\udfff"),
        max_lines=2,
    ),
    Hostile(
        "trace whose every span is its own parent or in a loop",
        "traces",
        "loops.jsonl",
        lambda: "\n".join(
            [_span("t1", "a", "b"), _span("t1", "b", "a"), _span("t2", "c", "c")]
        ).encode(),
        ("line 1", "line 2", "line 3", "loops back to itself", "names itself as its parent"),
        max_lines=4,
    ),
]

ALTERED = [*ALTERED_DATASETS, *ALTERED_SPECS, *ALTERED_TRACES]
