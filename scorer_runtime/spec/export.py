"""Export a spec: as readable Python on the public API, or as JSON / YAML that loads back.

The Python is the same plan of calls :func:`~scorer_runtime.spec.compile_spec` evaluates,
printed in the layout ``ruff format`` produces (line length 100), so it lints clean and
behaves exactly like the compiled spec.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from scorer_runtime.spec._export_printer import INDENT, LINE_LENGTH, Printer, walk, width
from scorer_runtime.spec.compile import Chain, Plan, checked_spec, scorer_plan
from scorer_runtime.spec.models import JudgeSpec, ScorerSpec

if TYPE_CHECKING:
    from scorer_runtime.spec.registry import StepRegistry


# -- JSON and YAML ----------------------------------------------------------------------------


def spec_data(spec: ScorerSpec) -> dict[str, Any]:
    """The spec as plain data, defaults left out, in the models' field order."""
    return spec.model_dump(mode="json", exclude_defaults=True, by_alias=True)


def export_json(spec: ScorerSpec) -> str:
    """The spec as pretty JSON (defaults left out, stable key order, trailing newline)."""
    return json.dumps(spec_data(spec), indent=2, ensure_ascii=False) + "\n"


_YAML_BREAKS = frozenset("\x85\u2028\u2029")


def export_yaml(spec: ScorerSpec) -> str:
    """The spec as YAML; multi-line texts (prompts, instructions) as readable blocks."""
    import yaml

    class _Dumper(yaml.SafeDumper):  # type: ignore[misc]  # yaml has no type stubs here
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        # PyYAML writes these line breaks raw in plain/quoted styles and reads them back as
        # spaces; double quotes escape them. "|" suits multi-line text (the emitter falls back
        # on its own when a block cannot hold the text).
        style = '"' if _YAML_BREAKS.intersection(value) else "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    _Dumper.add_representer(str, text)
    dumped: str = yaml.dump(
        spec_data(spec),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=LINE_LENGTH,
    )
    return dumped


# -- Python -----------------------------------------------------------------------------------


def export_python(
    spec: ScorerSpec | Mapping[str, Any],
    registry: StepRegistry | None = None,
    *,
    judge_profiles: Mapping[str, JudgeSpec] | None = None,
) -> str:
    """A runnable Python module building the same scorer as ``compile_spec(spec)``.

    It uses only the public API, reads the judge's key from the environment variable the
    spec names, exposes a module-level ``scorer``, and scores a JSON example given on the
    command line or stdin when run as a script. Judge profiles are written out in full.
    """
    resolved = checked_spec(spec, registry, judge_profiles)
    plan = scorer_plan(resolved, registry)
    names = _import_names(plan)
    parts = [
        _docstring(resolved),
        _imports(names),
        *(_assignment(name, expr, names) for name, expr in plan.assignments),
        _scorer_assignment(plan.scorer, names),
    ]
    return "\n\n".join(parts) + "\n\n\n" + _MAIN


_MAIN = '''
def main(argv: list[str]) -> None:
    """Score one example: a JSON object with "output" (and "input", "ground_truth", ...).

    Pass the example as a file path or as JSON text, or pipe it in on stdin.
    """
    text = argv[0] if argv else sys.stdin.read()
    if argv and not text.lstrip().startswith("{"):
        with open(text, encoding="utf-8") as file:
            text = file.read()
    example = json.loads(text)
    if not isinstance(example, dict) or "output" not in example:
        sys.exit('The example must be a JSON object with an "output" key.')
    result = scorer.run_sync(**example)
    print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
'''.lstrip("\n")


def _docstring(spec: ScorerSpec) -> str:
    keys = spec.key_envs()
    needs = (
        f"The judge's API key is read from the environment variable {' / '.join(keys)}."
        if keys
        else "Set the judge's API key the way its provider expects (no key variable is named)."
        if _judges(spec)
        else "It calls no judge: every step is a function."
    )
    about = _doc_text(f"{spec.display_name}: {spec.description}") or (
        "A scorer exported from Scorer Studio; its name and description are given to "
        "create_scorer below."
    )
    paragraphs = [
        about,
        f"Exported from Scorer Studio (scorer id {spec.id!r}); runs on scorer_runtime. {needs}",
        "Score one example, a JSON object with output (and input, ground_truth, ...):",
    ]
    body = "\n\n".join(_wrap(p, LINE_LENGTH - 4) for p in paragraphs)
    body = "\\" + body if body.startswith('"') else body  # '""""' would end the quotes early
    script = f"{re.sub(r'[^A-Za-z0-9_]', '_', spec.id)}.py"
    usage = f"    python {script} example.json\n    python {script} < example.json"
    return f'"""{body}\n\n{usage}\n"""'


_TYPOGRAPHY = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u00b4\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        "\u2026": "...",
        "\u00d7": "x",
        "\u00b8": ",",
    }
)


def _doc_text(text: str) -> str | None:
    """``text`` for the module docstring, in ASCII; None when it cannot be said in ASCII.

    Ruff flags look-alike characters in docstrings (RUF002), so typographic punctuation
    becomes its ASCII twin and accents are dropped; the exact text stays in the code.
    """
    plain = unicodedata.normalize("NFKD", text.translate(_TYPOGRAPHY))
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    plain = " ".join(plain.split())  # control characters and line breaks become spaces
    if not plain.isascii() or not plain.isprintable():
        return None
    return plain.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _wrap(text: str, columns: int) -> str:
    """Greedy word wrap by display width (so wide characters cannot overflow a line)."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if current and width(candidate) > columns:
            lines.append(current)
            candidate = word
        current = candidate
    return "\n".join([*lines, current])


def _judges(spec: ScorerSpec) -> list[JudgeSpec]:
    return [ref for ref in spec.judge_refs() if isinstance(ref, JudgeSpec)]


# -- imports ----------------------------------------------------------------------------------


def _import_names(plan: Plan) -> dict[tuple[str, str], str]:
    """(module, name) -> the local name used in the code (aliased on a clash)."""
    taken = {"json", "sys", "main", "scorer", *(name for name, _ in plan.assignments)}
    names: dict[tuple[str, str], str] = {}
    calls = walk([expr for _, expr in plan.assignments]) + walk(plan.scorer)
    for call in calls:
        key = (call.module, call.name)
        if key in names:
            continue
        local, n = call.name, 1
        while local in taken:
            local, n = f"{call.name}_{n}", n + 1
        taken.add(local)
        names[key] = local
    return names


def _imports(names: Mapping[tuple[str, str], str]) -> str:
    """Import blocks as ruff's isort writes them: stdlib, third party, then scorer_runtime."""
    modules: dict[str, list[str]] = {}
    for (module, name), local in names.items():
        member = name if local == name else f"{name} as {local}"
        modules.setdefault(module, []).append(member)
    blocks: list[list[str]] = [["import json", "import sys"], [], []]
    for module in sorted(modules):
        first_party = module.split(".")[0] == "scorer_runtime"
        blocks[2 if first_party else 1] += _from_imports(module, modules[module])
    return "\n\n".join("\n".join(block) for block in blocks if block)


def _from_imports(module: str, members: list[str]) -> list[str]:
    """One ``from`` line for plain names, then one per aliased name (isort's default)."""
    plain = sorted((m for m in members if " as " not in m), key=_member_order)
    aliased = sorted((m for m in members if " as " in m), key=_member_order)
    lines = [_from_import(module, plain)] if plain else []
    return lines + [f"from {module} import {member}" for member in aliased]


def _member_order(name: str) -> tuple[int, str]:
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower()


def _from_import(module: str, members: list[str]) -> str:
    line = f"from {module} import {', '.join(members)}"
    if width(line) <= LINE_LENGTH:
        return line
    body = "".join(f"    {member},\n" for member in members)
    return f"from {module} import (\n{body})"


# -- expressions ------------------------------------------------------------------------------


def _assignment(name: str, expression: Any, names: Mapping[tuple[str, str], str]) -> str:
    return "\n".join(Printer(names).lines(expression, 0, f"{name} = ", ""))


def _scorer_assignment(chain: Chain, names: Mapping[tuple[str, str], str]) -> str:
    """``scorer = ...`` in ruff's layout: one line if it fits; with one step method, the
    call split after ``create_scorer(``; with more, one ``.step(...)`` per line."""
    printer = Printer(names)
    flat = f"scorer = {printer.flat(chain)}"
    if printer.fits(chain, flat):
        return flat
    if len(chain.links) == 1:
        (method, argument), head = chain.links[0], chain.head
        lines = printer.exploded(head, 0, "scorer = ", "")
        last = lines.pop()  # the closing ")" of create_scorer(...)
        return "\n".join(lines + printer.lines_call(f"{last}.{method}", [argument], 0, ""))
    lines = ["scorer = (", *printer.lines(chain.head, INDENT, "", "")]
    for method, argument in chain.links:
        lines += printer.lines_call(f".{method}", [argument], INDENT, "")
    return "\n".join([*lines, ")"])
