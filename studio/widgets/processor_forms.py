"""A judge's processors as form values, previews and words (Streamlit-free, unit-tested
without a browser).

"Before the judge reads it": hide personal data (``redact_pii``) and shorten long prompts
(``truncate``); "After the judge answers": stop on these answers (``output_guard``). The
Judges page and the builder (the scorer's judge, a step's own judge) edit them with this
mapping; :mod:`studio.widgets.judge_processors` draws the form.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from scorer_runtime.processors import RedactPII, TruncateInput
from scorer_runtime.processors.patterns import pattern_problem
from scorer_runtime.spec.models import OutputGuardSpec, RedactPIISpec, TruncateSpec
from studio.words import plural

KINDS: dict[str, str] = {
    "email": "E-mail addresses",
    "phone": "Phone numbers",
    "card": "Payment card numbers",
    "api_key": "API keys and access tokens",
}
_ONE: dict[str, tuple[str, str]] = {
    "email": ("e-mail address", "e-mail addresses"),
    "phone": ("phone number", "phone numbers"),
    "card": ("payment card number", "payment card numbers"),
    "api_key": ("API key", "API keys"),
}
KEEP: dict[str, str] = {
    "head": "The start",
    "tail": "The end",
    "both": "Both ends (cut out the middle)",
}
UNITS: dict[str, str] = {"chars": "characters", "tokens": "tokens (about 4 characters each)"}
DEFAULT_REPLACEMENT = "[REDACTED:{name}]"
DEFAULT_MARKER = "…[truncated]"
REFUSALS = (
    r"as an ai(?: language)? model",
    r"\bi(?:'m| am) (?:unable|not able) to (?:help|assist|comply|evaluate|grade)",
    r"\bi (?:can't|cannot|can not) (?:help|assist|comply|evaluate|grade) with",
)
"""The ready-made "the judge refuses" answers."""
SAMPLE_TEXT = (
    "Hi, this is Jane Doe (jane.doe@example.com, +44 20 7946 0958). My card "
    "4111 1111 1111 1111 was charged twice for order 55123. Our test key is "
    "sk-proj-a1B2c3D4e5F6g7H8i9J0kLmN. Please refund the second charge."
)
SAMPLE_ANSWER = "As an AI language model, I cannot grade this answer."
ORDER_NOTE = (
    "Personal data is always hidden before a prompt is shortened, so a cut never leaves half "
    "an e-mail address or card number for the judge to read."
)


@dataclass
class Rule:
    """An extra "hide this" rule: a name (shown in the replacement) and a pattern."""

    name: str = ""
    pattern: str = ""


@dataclass
class ProcessorsForm:
    """Everything the "before the judge reads it" / "after the judge answers" form holds."""

    redact: bool = False
    kinds: list[str] = field(default_factory=lambda: list(KINDS))
    rules: list[Rule] = field(default_factory=list)
    replacement: str = DEFAULT_REPLACEMENT
    shorten: bool = False
    unit: str = "chars"
    budget: int = 8000
    keep: str = "head"
    marker: str = DEFAULT_MARKER
    guard: bool = False
    refusals: bool = True
    phrases: str = ""
    """Stop on answers containing one of these texts, one per line (exact words)."""
    patterns: str = ""
    """Stop on answers matching one of these patterns, one per line (advanced)."""
    message: str = ""


class ProcessorFormError(ValueError):
    """Form values that cannot be used; ``problems`` says which field and what to do."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


PROCESSOR_FIELDS = ("redact_pii", "truncate", "output_guard")


# -- spec -> form ----------------------------------------------------------------------------


def processors_form(judge: Mapping[str, Any]) -> ProcessorsForm:
    """The form of a judge's processor settings (a JudgeSpec dict; other fields ignored)."""
    form = ProcessorsForm()
    redact, cut, guard = (judge.get(name) for name in PROCESSOR_FIELDS)
    if isinstance(redact, Mapping):
        form.redact = True
        form.kinds = list(redact.get("kinds") or KINDS) if redact.get("include_defaults", 1) else []
        form.rules = [Rule(n, p) for n, p in dict(redact.get("patterns") or {}).items()]
        form.replacement = str(redact.get("replacement", DEFAULT_REPLACEMENT))
    if isinstance(cut, Mapping):
        form.shorten = True
        form.unit = "tokens" if cut.get("max_tokens") is not None else "chars"
        form.budget = int(cut.get("max_tokens") or cut.get("max_chars") or 0)
        form.keep = str(cut.get("keep", "head"))
        form.marker = str(cut.get("marker", DEFAULT_MARKER))
    if isinstance(guard, Mapping):
        form.guard = True
        patterns = [str(p) for p in guard.get("patterns", [])]
        form.refusals = all(p in patterns for p in REFUSALS)
        rest = [p for p in patterns if not (form.refusals and p in REFUSALS)]
        form.phrases = "\n".join(phrase for p in rest if (phrase := _phrase(p)) is not None)
        form.patterns = "\n".join(p for p in rest if _phrase(p) is None)
        form.message = str(guard.get("message") or "")
    return form


def _phrase(pattern: str) -> str | None:
    """The exact words a pattern stands for, when it is just (escaped) text."""
    text = re.sub(r"\\(.)", r"\1", pattern)
    return text if text.strip() and _escape(text) == pattern else None


def _escape(text: str) -> str:
    """Exact words as a pattern: only the characters patterns give a meaning are escaped
    (unlike ``re.escape``, spaces stay as they are, so files stay readable)."""
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", text)


# -- form -> spec ----------------------------------------------------------------------------


def processor_settings(form: ProcessorsForm) -> dict[str, Any]:
    """The judge fields the form sets: ``redact_pii``, ``truncate`` and ``output_guard``,
    each a spec dict or None (off); raises ProcessorFormError listing every problem."""
    problems: list[str] = []
    settings = {
        "redact_pii": _redaction(form, problems) if form.redact else None,
        "truncate": _truncation(form, problems) if form.shorten else None,
        "output_guard": _guard(form, problems) if form.guard else None,
    }
    if problems:
        raise ProcessorFormError(problems)
    return settings


def _redaction(form: ProcessorsForm, problems: list[str]) -> dict[str, Any] | None:
    where = "Hide personal data"
    rules: dict[str, str] = {}
    for number, rule in enumerate(form.rules, start=1):
        name, pattern = rule.name.strip(), rule.pattern
        if not name and not pattern.strip():
            continue
        if not name or not pattern.strip():
            missing = "a name (e.g. ticket)" if not name else "a pattern (e.g. T-\\d{6})"
            problems.append(f"{where}: rule {number} needs {missing}")
            continue
        if name in rules:
            problems.append(f"{where}: two rules are named {name!r}; give each its own name")
            continue
        problem = pattern_problem(pattern)
        if problem is not None:
            problems.append(f"{where}: " + problem.sentence(f"rule {name!r}", pattern))
            continue
        rules[name] = pattern
    kinds = [k for k in KINDS if k in form.kinds]
    if not kinds and not rules and not problems:
        problems.append(
            f"{where}: choose at least one kind of data to hide, or add a rule of your own"
        )
        return None
    data: dict[str, Any] = {"patterns": rules, "replacement": form.replacement}
    if not kinds:
        data["include_defaults"] = False
    elif len(kinds) < len(KINDS):
        data["kinds"] = kinds
    return _valid(RedactPIISpec, data, where, problems)


def _truncation(form: ProcessorsForm, problems: list[str]) -> dict[str, Any] | None:
    where = "Shorten long prompts"
    unit = UNITS.get(form.unit, "characters").split(" ")[0]
    if form.budget is None or form.budget <= 0:
        problems.append(
            f"{where}: the budget must be more than 0 {unit} (it is {form.budget}); "
            "e.g. 8000 characters or 2000 tokens"
        )
        return None
    key = "max_tokens" if form.unit == "tokens" else "max_chars"
    data = {key: int(form.budget), "keep": form.keep, "marker": form.marker}
    if len(form.marker) >= form.budget * (4 if form.unit == "tokens" else 1):
        problems.append(
            f"{where}: the mark {form.marker!r} alone is longer than the budget of "
            f"{form.budget} {unit}; raise the budget or shorten the mark"
        )
        return None
    return _valid(TruncateSpec, data, where, problems)


def _guard(form: ProcessorsForm, problems: list[str]) -> dict[str, Any] | None:
    where = "Stop on these answers"
    patterns = list(REFUSALS) if form.refusals else []
    patterns += [_escape(p.strip()) for p in form.phrases.splitlines() if p.strip()]
    for number, line in enumerate(form.patterns.splitlines(), start=1):
        if not line.strip():
            continue
        problem = pattern_problem(line)
        if problem is not None:
            problems.append(f"{where}: " + problem.sentence(f"pattern on line {number}", line))
            continue
        patterns.append(line)
    if not patterns:
        if not problems:
            problems.append(
                f"{where}: tick the ready-made refusals or add words to stop on, "
                "e.g. “I cannot help with that”"
            )
        return None
    data: dict[str, Any] = {"patterns": list(dict.fromkeys(patterns))}
    if form.message.strip():
        data["message"] = form.message.strip()
    return _valid(OutputGuardSpec, data, where, problems)


def _valid(
    model: type[RedactPIISpec | TruncateSpec | OutputGuardSpec],
    data: Mapping[str, Any],
    where: str,
    problems: list[str],
) -> dict[str, Any] | None:
    try:
        return model.model_validate(data).model_dump(exclude_defaults=True, mode="json")
    except ValidationError as error:
        for err in error.errors():
            problems.append(f"{where}: " + str(err.get("msg", "")).removeprefix("Value error, "))
        return None


# -- previews: what the processors do to a text ---------------------------------------------


@dataclass(frozen=True)
class Preview:
    """A text after the processors, and what they did to it, in words."""

    text: str
    notes: list[str]


def before_preview(settings: Mapping[str, Any], text: str) -> Preview:
    """``text`` as the judge would read it: personal data hidden, then shortened."""
    notes: list[str] = []
    redact, cut = settings.get("redact_pii"), settings.get("truncate")
    if redact is not None:
        hidden = RedactPII(**redact).redact(text)
        notes += hidden_in_words(text, hidden, redact)
        text = hidden
    if cut is not None:
        short = TruncateInput(**cut).truncate(text)
        if short != text:
            kept = len(short) - len(str(cut.get("marker", DEFAULT_MARKER)))
            notes.append(
                f"Shortened from {len(text):,} to {len(short):,} characters: kept "
                f"{KEEP[str(cut.get('keep', 'head'))].lower()} ({kept:,} characters)."
            )
        text = short
    return Preview(text, notes)


def hidden_in_words(before: str, after: str, redact: Mapping[str, Any]) -> list[str]:
    """What a redaction hid, e.g. ["Hid 1 e-mail address (email)."]."""
    replacement = str(redact.get("replacement", DEFAULT_REPLACEMENT))
    if "{name}" not in replacement:
        count = after.count(replacement) - before.count(replacement)
        return [f"Hid {plural(count, 'part')}, each shown as {replacement}."] if count else []
    names = [*(redact.get("kinds") or KINDS), *dict(redact.get("patterns") or {})]
    notes = []
    for name in dict.fromkeys(names):
        label = replacement.replace("{name}", name)
        count = after.count(label) - before.count(label)
        if count:
            one, many = _ONE.get(name, (f"match of “{name}”", f"matches of “{name}”"))
            notes.append(f"Hid {plural(count, one, many)}, shown as {label}.")
    return notes


def stopping_patterns(guard: Mapping[str, Any], answer: str) -> list[str]:
    """The patterns of an output guard that ``answer`` matches (case does not matter)."""
    return [str(p) for p in guard.get("patterns", []) if re.search(str(p), answer, re.IGNORECASE)]


def in_words(settings: Mapping[str, Any]) -> list[str]:
    """The processors in the order they run, in words ([] when none is on)."""
    steps = []
    redact, cut, guard = (settings.get(name) for name in PROCESSOR_FIELDS)
    if redact is not None:
        chosen = redact.get("kinds") or list(KINDS) if redact.get("include_defaults", 1) else []
        kinds = [_ONE[k][1] for k in chosen]
        rules = list(dict(redact.get("patterns") or {}))
        what = ", ".join(kinds + [f"“{r}”" for r in rules])
        steps.append(f"Hide personal data ({what})")
    if cut is not None:
        unit = "tokens" if cut.get("max_tokens") is not None else "characters"
        budget = cut.get("max_tokens") or cut.get("max_chars")
        steps.append(f"Shorten prompts longer than {budget:,} {unit}")
    if redact is not None or cut is not None:
        steps.append("The judge reads and answers")
    if guard is not None:
        steps.append("Stop on " + _stops_in_words([str(p) for p in guard.get("patterns", [])]))
    return steps


def _stops_in_words(patterns: list[str]) -> str:
    refusals = all(p in patterns for p in REFUSALS)
    rest = [p for p in patterns if not (refusals and p in REFUSALS)]
    words = (["refusals"] if refusals else []) + [f"“{_phrase(p) or p}”" for p in rest[:3]]
    if len(rest) > 3:
        words.append(f"{len(rest) - 3} more")
    return "answers with " + ", ".join(words)


def marks_in(messages: Sequence[Mapping[str, Any]], settings: Mapping[str, Any]) -> list[str]:
    """What was hidden or cut in the messages a judge was sent, in words (Try it evidence)."""
    notes: list[str] = []
    redact, cut = settings.get("redact_pii"), settings.get("truncate")
    for message in messages:
        content, role = str(message.get("content", "")), str(message.get("role", ""))
        whose = "the instructions" if role == "system" else "the question"
        if redact is not None:
            notes += [f"In {whose}: {note}" for note in hidden_in_words("", content, redact)]
        if cut is not None and role == "user":
            marker = str(cut.get("marker", DEFAULT_MARKER))
            if marker and marker in content:
                notes.append(f"In {whose}: cut where {marker!r} stands.")
    return notes
