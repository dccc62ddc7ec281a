"""Secrets out of every text a judge call leaves behind: one redaction, used wherever such
text is made or kept.

A provider may echo the API key it was sent in an error message ("Incorrect API key
provided: sk-…"), a gateway may put it in an HTML error page, a proxy in a header it prints.
:func:`redact` replaces two things by ``[redacted]``:

- the key values it is given (the judge's own key, read from the environment variable the
  judge names), whatever their shape, and in the other shapes a server may quote them:
  URL-encoded, base64 (standard or URL-safe, at each of the three byte alignments a key can
  have inside an encoded stream), in any letter case, and any run of
  :data:`MIN_RUN` or more of its characters (a key cut short, or split by a length limit);
  values shorter than :data:`MIN_SECRET_LENGTH` are ignored, as replacing ``"test"``
  everywhere would garble messages and protect nothing;
- anything shaped like a provider key (OpenAI ``sk-…``/``sk-proj-…``, Anthropic ``sk-ant-…``,
  Google ``AIza…``, AWS ``AKIA…``, GitHub, Slack, Groq, Hugging Face tokens), a bearer token,
  and the value after ``api_key=`` / ``"x-api-key": …``. The shapes demand a prefix and a
  long run of key characters, so ordinary words ("sk-wrong", "task-based") survive.

The judge client and the judge execution call it where the text is made; the store calls it
again when it writes errors and judge evidence, and the CLI on what a run prints (defence in
depth: the same function everywhere). Plain ``re`` only: the core may import this module.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import quote, quote_plus

__all__ = [
    "JUDGE_TEXT_FIELDS",
    "KEY_SHAPES",
    "MIN_RUN",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "environment_secrets",
    "redact",
    "redact_evidence",
    "secret_span",
    "secret_values",
]

REDACTED = "[redacted]"
"""What a secret is replaced by."""

MIN_SECRET_LENGTH = 8
"""Known key values shorter than this are not replaced (see the module docstring)."""

MIN_RUN = 12
"""A run of this many characters of a known key (in any of its shapes) is redacted: a key
cut short by a length limit or quoted in part still gives nothing away (a shorter key is
matched whole)."""

KEY_SHAPES = re.compile(
    r"(?<![\w-])sk-[A-Za-z0-9_-]{20,}"  # OpenAI sk-..., sk-proj-..., Anthropic sk-ant-...
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"  # AWS access key ids
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_\w{22,}"  # GitHub tokens
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"  # Slack tokens
    r"|\bAIza[0-9A-Za-z_-]{35}"  # Google API keys
    r"|\b(?:gsk|hf)_[A-Za-z0-9]{30,}\b"  # Groq, Hugging Face
    # Only the token after "Bearer" (or after a key's name) is secret; the words stay so the
    # message still says what was refused.
    r"|(?i:\bbearer\s+)(?P<redact>[A-Za-z0-9._~+/=-]{16,})"
    r"|(?i:\b(?:x-)?api[_-]?key[\"']?\s*[:=]\s*[\"']?)(?P<redact_value>[A-Za-z0-9._~+/=-]{16,})"
)
"""Text shaped like a provider key or token. A match's ``redact`` or ``redact_value`` group,
when set, is the only part that is secret."""

# Environment variables whose value is a credential, by the conventions providers document
# (OPENAI_API_KEY, ANTHROPIC_API_KEY, HF_TOKEN, AZURE_OPENAI_SECRET, ...).
_SECRET_NAME = re.compile(r"(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$", re.IGNORECASE)

JUDGE_TEXT_FIELDS = ("error", "raw_output")
"""The fields of a judge execution (``JudgeExecution.to_dict()``) that hold text the judge's
server sent back, besides each provider call's ``error`` (``raw_output`` only matters for a
failed execution: a successful answer is the model's own text)."""


def secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The part of a :data:`KEY_SHAPES` match that is secret, relative to the match."""
    offset = match.start()
    for group in ("redact", "redact_value"):
        if match.group(group) is not None:
            start, end = match.span(group)
            return start - offset, end - offset
    return 0, len(match.group(0))


def _shape(match: re.Match[str]) -> str:
    start, end = secret_span(match)
    text = match.group(0)
    return text[:start] + REDACTED + text[end:]


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with the given key values and anything shaped like a key replaced by
    ``[redacted]``; ``None`` and values shorter than :data:`MIN_SECRET_LENGTH` are skipped."""
    known = [s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH]
    # Longest first: a key that contains another known key is replaced whole.
    for secret in sorted(known, key=len, reverse=True):
        for form in key_forms(secret):
            text = _redact_runs(text, form)
    if not _may_hold_key(text):
        return text
    return KEY_SHAPES.sub(_shape, text)


@lru_cache(maxsize=64)
def key_forms(secret: str) -> tuple[str, ...]:
    """The shapes a server may quote ``secret`` in: as it is, URL-encoded, and base64
    (standard and URL-safe) at each alignment, each without the characters that depend on
    the bytes around the key in a longer encoded text."""
    forms = [secret, quote(secret, safe=""), quote_plus(secret)]
    raw = secret.encode()
    for skip in range(3):  # the key starts at byte 0, 1 or 2 of a 3-byte base64 group
        whole = raw[skip:][: (len(raw) - skip) // 3 * 3]  # only groups of the key's own bytes
        if len(whole) >= 3:
            forms.append(base64.b64encode(whole).decode())
            forms.append(base64.urlsafe_b64encode(whole).decode())
    return tuple(dict.fromkeys(form for form in forms if len(form) >= MIN_RUN or form == secret))


def _redact_runs(text: str, form: str) -> str:
    """``text`` with every run of ``MIN_RUN`` or more characters of ``form`` (any case)
    replaced; a form shorter than that only when whole.

    Any such run holds one of the pieces of half that length that start at a multiple of
    it, so only those few pieces are searched for, and each hit is widened and kept when
    long enough.
    """
    size = min(MIN_RUN, len(form))
    half = max(1, size // 2)
    lowered, pattern = text.lower(), form.lower()
    spans: list[tuple[int, int]] = []
    for start in range(0, len(pattern) - half + 1, half):
        piece = pattern[start : start + half]
        found = lowered.find(piece)
        while found != -1:
            left, right = _widest(lowered, pattern, found, start, half)
            if right - left >= size:
                spans.append((left, right))
            found = lowered.find(piece, found + 1)
    if not spans:
        return text
    kept, end = [], 0
    for left, right in _merged(spans):
        kept.append(text[end:left] + REDACTED)
        end = right
    return "".join(kept) + text[end:]


def _widest(text: str, pattern: str, at: int, start: int, size: int) -> tuple[int, int]:
    """The span of ``text`` around ``at`` that matches ``pattern`` around ``start``."""
    left, right = at, at + size
    first, last = start, start + size
    while left > 0 and first > 0 and text[left - 1] == pattern[first - 1]:
        left, first = left - 1, first - 1
    while right < len(text) and last < len(pattern) and text[right] == pattern[last]:
        right, last = right + 1, last + 1
    return left, right


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for left, right in sorted(spans):
        if merged and left <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], right))
        else:
            merged.append((left, right))
    return merged


# Every shape of KEY_SHAPES contains one of these. Substring tests cost a fraction of the
# regex (measured here: 8x less for a short message), and most texts hold none of them; the
# store runs this on every row it writes.
_MARKERS: tuple[str, ...] = ("sk-", "AKIA", "ASIA", "xox", "AIza", "gsk_", "hf_", "github_pat_")
_MARKERS += ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")
_MARKERS_ANY_CASE = ("bearer", "api")


def _may_hold_key(text: str) -> bool:
    if any(marker in text for marker in _MARKERS):
        return True
    lowered = text.lower()
    return any(marker in lowered for marker in _MARKERS_ANY_CASE)


def secret_values(
    names: Iterable[str | None], environ: Mapping[str, str] | None = None
) -> tuple[str, ...]:
    """The values of the environment variables ``names`` that are set (and long enough)."""
    env = os.environ if environ is None else environ
    values = (env.get(name) for name in names if name)
    return tuple(v for v in values if v and len(v) >= MIN_SECRET_LENGTH)


def environment_secrets(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of environment variables named like credentials (``*_KEY``, ``*_TOKEN``,
    ``*_SECRET``, ...): the keys a judge in this process can have read, for places that do
    not know which judge wrote a text (the store, a run's log)."""
    env = os.environ if environ is None else environ
    return secret_values((name for name in env if _SECRET_NAME.search(name)), env)


def redact_evidence(judge: Any, secrets: Iterable[str | None] = ()) -> Any:
    """Judge evidence (a step name -> ``JudgeExecution.to_dict()`` mapping, as stored) with
    its server texts redacted: each execution's ``error``, a failed execution's
    ``raw_output`` and each provider call's ``error``. Anything else is kept; ``judge``
    itself is returned when nothing changed (the store calls this for every row it writes)."""
    if not isinstance(judge, Mapping):
        return judge
    known = tuple(secrets)
    changed = {step: _redact_execution(e, known) for step, e in judge.items()}
    if all(changed[step] is judge[step] for step in judge):
        return judge
    return changed


def _redact_execution(execution: Any, secrets: tuple[str | None, ...]) -> Any:
    if not isinstance(execution, Mapping):
        return execution
    changes: dict[str, Any] = {}
    for name in JUDGE_TEXT_FIELDS:
        if name == "raw_output" and execution.get("status") == "success":
            continue  # the model's own answer, which never saw a key (and was redacted)
        value = execution.get(name)
        if isinstance(value, str) and (clean := redact(value, secrets)) != value:
            changes[name] = clean
    calls = execution.get("calls")
    if isinstance(calls, list):
        new_calls = list(calls)
        for i, call in enumerate(calls):
            error = call.get("error") if isinstance(call, Mapping) else None
            if isinstance(error, str) and (clean := redact(error, secrets)) != error:
                new_calls[i] = {**call, "error": clean}
        if new_calls != calls:
            changes["calls"] = new_calls
    return {**execution, **changes} if changes else execution
