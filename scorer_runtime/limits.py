"""The limits on files a person hands the studio (scorer specs, example files, traces).

One place for every cap, so the README, the messages and the checks agree. Each limit is
far above what a real file needs and far below what hangs or exhausts the process: a file
over a limit is refused with a message naming the limit, before it is expanded or stored.
"""

from __future__ import annotations

KB = 1024
MB = 1024 * KB

MAX_SPEC_FILE_BYTES = 1 * MB
"""A scorer spec file (JSON or YAML), from ``scorers import`` or the studio's upload."""

SPEC_TEXT_LIMITS: dict[str, tuple[str, int]] = {
    "description": ("description", 64 * KB),
    "template": ("prompt template", 256 * KB),
    "instructions": ("judge instructions", 256 * KB),
    "formula": ("formula", 16 * KB),
}
"""The cap on a text field of a spec, by its key: (the field in words, bytes)."""

MAX_SPEC_OTHER_TEXT_BYTES = 64 * KB
"""The cap on any other text in a spec (names, models, step settings)."""

MAX_SPEC_STEPS = 100
"""How many steps a scorer may have (checking each unknown step costs a few milliseconds of
name suggestions: 10,000 of them took a minute)."""

MAX_SPEC_VALUES = 50_000
"""How many values (texts, numbers, lists, objects) a spec file may hold in all."""

MAX_NESTING = 64
"""How deep lists and objects may nest in a spec file or in one example row."""

MAX_TRACE_NESTING = 128
"""How deep lists and objects may nest in a trace file (OTLP attribute values nest)."""

MAX_DATA_FILE_BYTES = 200 * MB
"""An examples or grades file (CSV, JSONL), as the studio's upload allows. An import of
examples reads its file a line at a time (its memory is that of a batch of rows); a grades
file, and an upload while the Examples page checks it, are held whole (about 20 times their
size), so a larger one would take the machine; split it."""

MAX_TRACE_FILE_BYTES = 200 * MB
"""A trace file (OTLP JSON or Mastra spans)."""

MAX_FIELD_BYTES = 1 * MB
"""One field of one example (a CSV cell, a JSONL value)."""

MAX_PROBLEMS_SHOWN = 20
"""How many problems a message lists before "and N more"."""


def size_words(size: int) -> str:
    """A size in bytes as people read it: ``10.0 MB``, ``64 KB``, ``300 bytes``."""
    for unit, name in ((MB, "MB"), (KB, "KB")):
        if size >= unit:
            value = size / unit
            return f"{value:.0f} {name}" if size % unit == 0 else f"{value:.1f} {name}"
    return f"{size} bytes"


def more_words(total: int, shown: int = MAX_PROBLEMS_SHOWN) -> str:
    """``and N more`` for a list cut at ``shown`` items (empty when nothing was cut)."""
    return f"and {total - shown:,} more" if total > shown else ""


MAX_OTLP_BODY_BYTES = 20 * MB
"""One OTLP/HTTP export request as sent (compressed or not), as an OpenTelemetry Collector's
receiver allows by default; an exporter's batch of a few hundred spans is far smaller."""

MAX_OTLP_DECODED_BYTES = 64 * MB
"""One export request after gzip is undone (the SDK exporter's own cap on a request)."""
