"""Hostile files, written for these tests: what an attacker or a careless user uploads.

Each is made on the fly (some are megabytes), with the words its refusal must contain.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Kind = Literal["spec", "dataset", "traces"]

GOOD_STEP = {"step": "generate_score", "formula": "1.0"}


@dataclass(frozen=True)
class Hostile:
    """One hostile file: its name, how to make its bytes, what the refusal must say."""

    name: str
    kind: Kind
    file_name: str
    make: Callable[[], bytes]
    expect: str | tuple[str, ...]
    """Words the message must contain (case-insensitive), each of them."""
    refused: bool = True
    """False: handled (the good rows imported with --skip-bad-rows, the bad ones listed)."""
    max_lines: int = 1
    """How many lines the message may take (a long problem list stops at 20)."""
    never: tuple[str, ...] = ()
    """Words the message must not hold (the file's content, a developer's hint)."""

    def __str__(self) -> str:
        return self.name


def _spec(**fields: object) -> dict[str, object]:
    return {"id": "hostile", "description": "A hostile spec.", "steps": [GOOD_STEP], **fields}


def _json(data: object) -> bytes:
    return json.dumps(data).encode()


def _alias_tree(depth: int, width: int) -> bytes:
    """Each anchor a list of ``width`` aliases of the one before: width**depth items."""
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, depth):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
    return ("\n".join(lines) + "\nid: bomb\ndescription: boom\nsteps: []\n").encode()


def _enum_bomb() -> bytes:
    """A spec that looks fine, its output schema's enum a tree of aliases."""
    anchors = "\n".join(
        f"  e{i}: &e{i} [{', '.join([f'*e{i - 1}' if i else 'ok'] * 8)}]" for i in range(8)
    )
    return (
        "id: enum-bomb\ndescription: x\nanchors:\n" + anchors + "\nsteps:\n"
        "  - step: analyze\n    description: judge\n    template: '{{ output }}'\n"
        "    output_schema:\n      type: object\n      properties:\n"
        "        v: {type: string, enum: *e7}\n"
    ).encode()


def _many_steps(count: int) -> bytes:
    return _json(_spec(steps=[{"step": "analyze", "use": f"no_such_{i}"} for i in range(count)]))


def _rows_csv(count: int, bad_row: int, bad: str) -> bytes:
    rows = ["input,output"] + [f"question {i},answer {i}" for i in range(count)]
    rows[bad_row] = bad
    return ("\n".join(rows) + "\n").encode()


def _jsonl(*rows: str) -> bytes:
    good = [json.dumps({"input": f"q{i}", "output": f"a{i}"}) for i in range(3)]
    return ("\n".join([*good, *rows, *good]) + "\n").encode()


SPECS = [
    Hostile("yaml alias bomb, 9 deep", "spec", "bomb.yaml", lambda: _alias_tree(9, 9), "anchor"),
    Hostile("yaml aliases in an enum", "spec", "enum.yaml", _enum_bomb, "anchor"),
    Hostile(
        "yaml alias without anchor",
        "spec",
        "alias.yaml",
        lambda: b"id: x\ndescription: *nowhere\nsteps: []\n",
        "yaml",
    ),
    Hostile(
        "json nested 100k deep",
        "spec",
        "deep.json",
        lambda: b'{"id": "x", "description": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "nest more than 64",
    ),
    Hostile(
        "json array nested 200k deep",
        "spec",
        "deep-array.json",
        lambda: b"[" * 200_000 + b"]" * 200_000,
        "nest more than 64",
    ),
    Hostile(
        "yaml flow nested 20k deep",
        "spec",
        "deep-flow.yaml",
        lambda: b"id: x\ndescription: " + b"{a: " * 20_000 + b"1" + b"}" * 20_000 + b"\n",
        "nest more than 64",
    ),
    Hostile(
        "yaml block nested 1k deep",
        "spec",
        "deep-block.yaml",
        lambda: (
            "id: x\ndescription:\n"
            + "".join(f"{' ' * i}k{i}:\n" for i in range(1, 1000))
            + " " * 1000
            + "v\n"
        ).encode(),
        "nest more than 64",
    ),
    Hostile(
        "json duplicate key",
        "spec",
        "dup.json",
        lambda: b'{\n  "id": "a",\n  "description": "x",\n  "steps": [],\n  "id": "b"\n}\n',
        "line 5",
    ),
    Hostile(
        "yaml duplicate key in a step",
        "spec",
        "dup.yaml",
        lambda: (
            b"id: a\ndescription: x\nsteps:\n  - step: generate_score\n"
            b"    formula: '1'\n    formula: '0'\n"
        ),
        "named twice",
    ),
    Hostile(
        "10 MB description",
        "spec",
        "huge.json",
        lambda: _json(_spec(description="d" * 10 * 1024 * 1024)),
        "the limit for a scorer file is 1 MB",
    ),
    Hostile(
        "100 KB description",
        "spec",
        "desc.yaml",
        lambda: ("id: x\ndescription: " + "w " * 50 * 1024 + "\nsteps: []\n").encode(),
        "the description is 100.0 KB; the limit is 64 KB",
    ),
    Hostile(
        "300 KB prompt template",
        "spec",
        "template.json",
        lambda: _json(
            _spec(steps=[{"step": "analyze", "description": "x", "template": "t" * 300 * 1024}])
        ),
        "the prompt template is 300 KB; the limit is 256 KB",
    ),
    Hostile(
        "10,000 steps",
        "spec",
        "steps.json",
        lambda: _many_steps(10_000),
        "the scorer has 10,000 steps; the limit is 100",
    ),
    Hostile(
        "100 bad steps: 20 problems shown, then the count",
        "spec",
        "bad-steps.json",
        lambda: _many_steps(100),
        "and 180 more",
        max_lines=22,
    ),
    Hostile(
        "python object tag",
        "spec",
        "tag.yaml",
        lambda: b"id: !!python/object/apply:os.system ['echo owned']\ndescription: x\n",
        "tag",
    ),
    Hostile(
        "NaN in a spec",
        "spec",
        "nan.json",
        lambda: b'{"id": "x", "description": "x", "steps": [], "threshold": NaN}',
        "nan",
    ),
    Hostile(
        "two yaml documents",
        "spec",
        "two.yaml",
        lambda: b"id: a\ndescription: x\n---\nid: b\n",
        "more than one yaml document",
    ),
    Hostile(
        "not text at all",
        "spec",
        "binary.yaml",
        lambda: b"\xff\xfe\x00id: \x80\x81",
        "utf-8",
    ),
]

DATASETS = [
    Hostile(
        "csv quote never closed on row 3 of 1,000",
        "dataset",
        "quote.csv",
        lambda: _rows_csv(1000, 3, 'question 2,"answer 2 and the rest'),
        "line 4",
    ),
    Hostile(
        "csv quote never closed after a good multi-line cell (CRLF)",
        "dataset",
        "quote-crlf.csv",
        lambda: (
            'input,output\r\nq1,"two\r\nlines"\r\nq2,"open\r\n'
            + "".join(f"q{i},a{i}\r\n" for i in range(50))
        ).encode(),
        "line 4",
    ),
    Hostile(
        "csv quote never closed, even with --skip-bad-rows",
        "dataset",
        "quote-skip.csv",
        lambda: _rows_csv(200, 100, 'q,"x'),
        "never closed",
        refused=True,
    ),
    Hostile("jsonl NaN", "dataset", "nan.jsonl", lambda: _jsonl('{"output": NaN}'), "nan"),
    Hostile(
        "jsonl -Infinity in a list",
        "dataset",
        "inf.jsonl",
        lambda: _jsonl('{"output": "a", "ground_truth": [1, -Infinity]}'),
        "infinity",
    ),
    Hostile(
        "jsonl number beyond a float",
        "dataset",
        "big-number.jsonl",
        lambda: _jsonl('{"output": 1e400}'),
        "too large",
    ),
    Hostile(
        "jsonl row nested 100k deep",
        "dataset",
        "deep.jsonl",
        lambda: _jsonl('{"output": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        "line 4",
    ),
    Hostile(
        "jsonl field of 2 MB",
        "dataset",
        "field.jsonl",
        lambda: _jsonl(json.dumps({"output": "é" * 1024 * 1024})),
        "the limit for one field is 1 MB",
    ),
    Hostile(
        "csv json cell nested 50k deep",
        "dataset",
        "deep-cell.csv",
        lambda: ("input,output,ground_truth\nq,a," + "[" * 50_000 + "]" * 50_000 + "\n").encode(),
        "line 2",
    ),
    Hostile(
        "csv cell of 1.5 MB",
        "dataset",
        "cell.csv",
        lambda: ("input,output\nq,a\nq2," + "c" * 1536 * 1024 + "\n").encode(),
        "1.5 MB; the limit for one field is 1 MB",
    ),
    Hostile(
        "jsonl bad rows skipped, good rows kept",
        "dataset",
        "skip.jsonl",
        lambda: _jsonl('{"output": NaN}', '{"output": ' + "{" * 5000 + "}" * 5000 + "}"),
        "skipped 2",
        refused=False,
        max_lines=4,
    ),
]

TRACES = [
    Hostile(
        "trace json nested 100k deep",
        "traces",
        "deep-trace.json",
        lambda: b'{"resourceSpans": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "nest more than 128",
        max_lines=2,
    ),
    Hostile(
        "trace lines with NaN and Infinity",
        "traces",
        "nan-trace.jsonl",
        lambda: (
            b'{"traceId": "t", "spanId": "s", "name": "x", "startTime": NaN}\n'
            b'{"traceId": "t", "spanId": "s2", "name": "y", "endTime": Infinity}\n'
        ),
        "nan",
        max_lines=3,
    ),
]
