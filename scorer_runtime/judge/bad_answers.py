"""Answers that are not a chat completion, said in words: what came back, and what to check.

A gateway's login page, a proxy's empty 200, a load balancer's HTML error, JSON of some other
API: litellm reports each in its own wording (or, for an empty ``choices`` list, not at all).
These functions turn that into one line saying what the judge's server sent, with its first
:data:`PREVIEW_CHARS` characters. Such an answer is a server-side failure, not a format
failure of the model: a ``ProviderError`` with the code :data:`INVALID_RESPONSE_CODE`, which
is classified ``server_error`` and retried like a 5xx (gateways send these while a backend
restarts). No model library is imported here.
"""

from __future__ import annotations

import re

__all__ = [
    "INVALID_RESPONSE_CODE",
    "PREVIEW_CHARS",
    "describe_body",
    "empty_choices_message",
    "from_library_message",
    "http_body_message",
    "preview",
]

INVALID_RESPONSE_CODE = "invalid_response"
"""The ``ProviderError.code`` of an answer that is not a chat completion."""

PREVIEW_CHARS = 200
"""How much of an unexpected answer a message quotes."""

_ADVICE = (
    "Check the judge's base URL, and whether a proxy or gateway answered in the model "
    "server's place."
)
_EMPTY_OR_INVALID = re.compile(
    r"Empty or invalid response from LLM endpoint\. Received: (?P<body>.*)\. Check the reverse "
    r"proxy or model server configuration\.",
    re.DOTALL,
)
_NO_CHOICES = re.compile(
    r"provider returned (?:a response with no 'choices'|'choices' that is not a list[^.]*)\. "
    r"Raw keys: \[(?P<keys>[^\]]*)\]"
)
_UNREADABLE = "Invalid response object"
_BARE_STATUS = re.compile(r"^Error code: \d{3}$")
_HTML = re.compile(r"^\s*<(?:!doctype|html|head|body|\?xml|[a-z][\w-]*[\s>/])", re.IGNORECASE)


def preview(text: str) -> str:
    """The first :data:`PREVIEW_CHARS` characters of ``text`` on one line ("…" if cut)."""
    line = " ".join(text.split())
    return line if len(line) <= PREVIEW_CHARS else line[:PREVIEW_CHARS] + "…"


def describe_body(body: str) -> str:
    """What a body is, in words: an empty body, an HTML page, JSON, or plain text."""
    stripped = body.strip()
    if not stripped:
        return "an empty body"
    if _HTML.match(stripped):
        return "an HTML page"
    if stripped[0] in "[{" or stripped in ("null", "true", "false") or stripped[0].isdigit():
        return "JSON"
    return "plain text"


def _with_body(what: str, body: str) -> str:
    shown = preview(body)
    quoted = f": {shown}" if shown else ""
    return f"The judge's server answered with {what}, not a chat completion{quoted}. {_ADVICE}"


def _unquoted(body: str) -> str:
    # litellm prints the body with repr(): a text body comes quoted, JSON data does not.
    if len(body) >= 2 and body[0] == body[-1] and body[0] in "'\"":
        return body[1:-1]
    return body


def from_library_message(message: str) -> str | None:
    """Our message for litellm's report of an answer that is not a chat completion, or None
    when ``message`` is no such report."""
    found = _EMPTY_OR_INVALID.search(message)
    if found is not None:
        raw = found.group("body")
        body = _unquoted(raw)
        what = describe_body(body)
        if raw == body and what == "plain text":  # printed unquoted: it was JSON data
            what = "JSON"
        if what == "an empty body":
            return (
                f"The judge's server answered with an empty body, not a chat completion. {_ADVICE}"
            )
        return _with_body(what, body)
    found = _NO_CHOICES.search(message)
    if found is not None:
        keys = ", ".join(
            k.strip().strip("'\"") for k in found.group("keys").split(",") if k.strip()
        )
        has = f"; its keys: {keys}" if keys else ""
        return (
            "The judge's server answered with JSON that is not a chat completion (no list of "
            f"'choices'{has}). {_ADVICE}"
        )
    if message.lstrip().startswith(_UNREADABLE):
        return (
            "The judge's server answered with a chat completion that cannot be read (its "
            f"choices or message have the wrong shape). {_ADVICE}"
        )
    return None


def empty_choices_message() -> str:
    """The message for a chat completion whose ``choices`` list is empty."""
    return (
        "The judge's server answered with a chat completion without any answer in it (an "
        f"empty 'choices' list). {_ADVICE}"
    )


def http_body_message(message: str, body: str | None) -> str | None:
    """For an HTTP error whose body the model library could not read (its message is only
    "Error code: 502"): what the body was, quoted. None when the message says more already."""
    if body is None or not _BARE_STATUS.match(message.strip()):
        return None
    what = describe_body(body)
    if what == "an empty body":
        return "The judge's server answered with an empty body."
    return f"The judge's server answered with {what}: {preview(body)}"
