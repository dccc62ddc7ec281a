"""What changed between two versions of a scorer, in plain words (Streamlit-free, unit-tested).

Two specs (plain JSON data) are compared field by field. Steps are matched by which step
they are (preprocess, analyze, ...), not by position, so adding a first step does not make
every later step look changed. Each change has its JSON path (for engineers), a label in
plain words (for everyone else), and for long texts such as prompts a line-by-line diff.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from studio.words import step_words

ChangeKind = Literal["added", "removed", "changed"]

FIELD_WORDS = {
    "id": "id",
    "name": "display name",
    "description": "description",
    "type": "kind of scorer",
    "judge": "judge",
    "model": "model",
    "instructions": "instructions",
    "api_base": "server address",
    "api_key_env": "where the key is kept",
    "json_prompt_injection": "describe the answer in the prompt",
    "harden_prompt": "mark the judged text as data",
    "temperature": "temperature",
    "timeout_s": "time limit",
    "retry": "retries",
    "redact_pii": "hide personal data",
    "truncate": "shorten long prompts",
    "output_guard": "answer guard",
    "prepare": "trim the run",
    "steps": "steps",
    "use": "built-in check",
    "with": "settings",
    "formula": "formula",
    "template": "prompt",
    "output_schema": "answer fields",
    "calculate_score": "how the answer becomes a score",
}
_SHORT_VALUE = 160


@dataclass(frozen=True, slots=True)
class SpecChange:
    """One difference between two specs."""

    path: str
    """The JSON path of the field, e.g. ``steps[1].template``."""
    label: str
    """The field in plain words, e.g. "The analysis step › prompt"."""
    kind: ChangeKind
    before: Any = None
    after: Any = None

    def summary(self) -> str:
        """The change in one line: "Changed: old → new", "Added: value", "Removed: value"."""
        if self.kind == "added":
            return f"Added: {short_value(self.after)}"
        if self.kind == "removed":
            return f"Removed: {short_value(self.before)}"
        if self.line_diff() is not None:
            return "Changed (see the lines below)"
        return f"Changed: {short_value(self.before)} → {short_value(self.after)}"

    def line_diff(self) -> str | None:
        """For a changed long or multi-line text: the lines removed (-) and added (+)."""
        before, after = self.before, self.after
        if not (isinstance(before, str) and isinstance(after, str)):
            return None
        if "\n" not in before + after and max(len(before), len(after)) <= _SHORT_VALUE:
            return None
        lines = difflib.unified_diff(
            before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=1
        )
        return "\n".join(list(lines)[2:])  # without the ---/+++ header


def _step_words(step: Mapping[str, Any]) -> str:
    if "template" in step:
        how = "asks the judge"
    elif "use" in step:
        how = f"built-in check “{step['use']}”"
    elif "formula" in step:
        how = f"formula {step['formula']}"
    else:
        how = "a Python function"
    described = f"“{step['description']}”, " if step.get("description") else ""
    return f"{described}{how}"


def short_value(value: Any) -> str:
    """A value in one short line (a step in words, JSON for other lists and objects)."""
    if value is None:
        return "nothing"
    if isinstance(value, Mapping) and isinstance(value.get("step"), str):
        return _step_words(value)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    if isinstance(value, str):
        text = f"“{text}”"
    return text if len(text) <= _SHORT_VALUE else text[: _SHORT_VALUE - 1] + "…"


def spec_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[SpecChange]:
    """Every difference from ``before`` to ``after``, in the order the fields appear."""
    changes: list[SpecChange] = []
    _diff(before, after, "", [], changes)
    return changes


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: 0 and 0.0 are the same number, but true is not 1."""
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return isinstance(a, bool) == isinstance(b, bool) and a == b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _diff(a: Any, b: Any, path: str, words: list[str], out: list[SpecChange]) -> None:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in [*a, *(k for k in b if k not in a)]:
            here = f"{path}.{key}" if path else str(key)
            label = [*words, FIELD_WORDS.get(str(key), str(key).replace("_", " "))]
            if key not in b:
                out.append(SpecChange(here, _label(label), "removed", before=a[key]))
            elif key not in a:
                out.append(SpecChange(here, _label(label), "added", after=b[key]))
            else:
                _diff(a[key], b[key], here, label, out)
        return
    if _is_steps(a) and _is_steps(b):
        _diff_steps(a, b, path, out)
        return
    if _is_object_list(a) and _is_object_list(b):
        for index in range(max(len(a), len(b))):
            here, label = f"{path}[{index}]", [*words, f"item {index + 1}"]
            if index >= len(b):
                out.append(SpecChange(here, _label(label), "removed", before=a[index]))
            elif index >= len(a):
                out.append(SpecChange(here, _label(label), "added", after=b[index]))
            else:
                _diff(a[index], b[index], here, label, out)
        return
    if not _same(a, b):
        out.append(SpecChange(path, _label(words), "changed", before=a, after=b))


def _is_object_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, Mapping) for v in value)


def _is_steps(value: Any) -> bool:
    if not _is_object_list(value):
        return False
    names = [v.get("step") for v in value]
    return all(isinstance(n, str) for n in names) and len(set(names)) == len(names)


def _diff_steps(
    a: Sequence[Mapping[str, Any]],
    b: Sequence[Mapping[str, Any]],
    path: str,
    out: list[SpecChange],
) -> None:
    old = {step["step"]: (i, step) for i, step in enumerate(a)}
    new = {step["step"]: (i, step) for i, step in enumerate(b)}
    for name in [*old, *(n for n in new if n not in old)]:
        label = [step_words(name).removeprefix("the ").capitalize()]
        if name not in new:
            index, step = old[name]
            out.append(SpecChange(f"{path}[{index}]", _label(label), "removed", before=step))
        elif name not in old:
            index, step = new[name]
            out.append(SpecChange(f"{path}[{index}]", _label(label), "added", after=step))
        else:
            _diff(old[name][1], new[name][1], f"{path}[{new[name][0]}]", label, out)


def _label(words: Sequence[str]) -> str:
    if not words:
        return "The whole scorer"
    first, *rest = words
    return " › ".join([first[:1].upper() + first[1:], *rest])


def json_text_diff(
    before: Mapping[str, Any], after: Mapping[str, Any], *, before_name: str, after_name: str
) -> str:
    """A unified diff of the two specs as pretty JSON (for engineers; empty when equal)."""
    a = json.dumps(before, indent=2, ensure_ascii=False, sort_keys=True).splitlines()
    b = json.dumps(after, indent=2, ensure_ascii=False, sort_keys=True).splitlines()
    return "\n".join(difflib.unified_diff(a, b, before_name, after_name, lineterm=""))
