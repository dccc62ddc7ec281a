"""Export and import of scorers, free of Streamlit (unit-tested on real files and SQLite).

Export turns a stored version into a file an engineer can use (Python that runs on
``scorer_runtime``, or JSON / YAML that imports back) plus the instructions to run it.
Import checks an uploaded JSON / YAML file completely — every problem, with its JSON path
and line — before anything is saved, then saves it as a new scorer or a new version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from scorer_runtime.input_text import NotText, decode_input
from scorer_runtime.limits import MAX_PROBLEMS_SHOWN
from scorer_runtime.store import (
    ConflictError,
    Session,
    get_scorer,
    latest_version,
    save_scorer_version,
)
from studio.app_pages.scorers.diff import FIELD_WORDS
from studio.app_pages.scorers.logic import is_scorer_id, scorer_name_problem

if TYPE_CHECKING:
    from scorer_runtime.spec import JudgeSpec, ScorerSpec, SpecProblem, StepRegistry

ExportFormat = Literal["python", "mastra", "json", "yaml"]
EXPORT_FORMATS: dict[ExportFormat, str] = {
    "python": "Python code",
    "mastra": "Mastra (TypeScript)",
    "json": "JSON definition",
    "yaml": "YAML definition",
}
_MIME = {
    "python": "text/x-python",
    "mastra": "text/typescript",
    "json": "application/json",
    "yaml": "application/x-yaml",
}
_SUFFIX = {"python": ".py", "mastra": ".ts", "json": ".json", "yaml": ".yaml"}
MASTRA_PROBLEM = "Mastra"
"""Where a problem of a Mastra export is (the scorer as a whole)."""
_LANGUAGE = {"python": "python", "mastra": "typescript", "json": "json", "yaml": "yaml"}
EXAMPLE_RUN = {
    "input": "How do I reset my password?",
    "output": "Open Settings, choose Security, then Reset password. We will email you a link.",
}
"""The example the run instructions show (works for plain and agent scorers alike)."""


@dataclass(frozen=True, slots=True)
class ExportFile:
    """A scorer as a file to download."""

    format: ExportFormat
    file_name: str
    text: str
    mime: str
    language: str
    """The code view's syntax highlighting."""
    differences: tuple[str, ...] = ()
    """What the exported scorer does differently from the studio's, in plain words."""


def file_stem(spec_id: str) -> str:
    """The file name (without suffix) the exported Python docstring tells people to use."""
    return re.sub(r"[^A-Za-z0-9_]", "_", spec_id)


def export_file(
    spec: ScorerSpec,
    format: ExportFormat,
    *,
    registry: StepRegistry | None = None,
    judge_profiles: Mapping[str, JudgeSpec] | None = None,
    version: int | None = None,
) -> ExportFile:
    """``spec`` as Python, JSON or YAML (raises SpecError when it cannot be exported)."""
    from scorer_runtime.spec import export_json, export_python, export_yaml

    if format == "mastra":
        from scorer_runtime.spec.mastra import export_mastra

        made = export_mastra(spec, judge_profiles=judge_profiles, version=version)
        name = spec.id + _SUFFIX[format]
        return ExportFile(
            format, name, made.text, _MIME[format], "typescript", tuple(made.differences)
        )
    if format == "python":
        text = export_python(spec, registry, judge_profiles=judge_profiles)
    elif format == "json":
        text = export_json(spec)
    else:
        text = export_yaml(spec)
    name = file_stem(spec.id) if format == "python" else spec.id
    return ExportFile(format, name + _SUFFIX[format], text, _MIME[format], _LANGUAGE[format])


@dataclass(frozen=True, slots=True)
class RunGuide:
    """How an engineer runs the exported Python."""

    file_name: str
    command: str
    key_names: list[str] = field(default_factory=list)
    calls_judge: bool = False

    def steps(self) -> list[str]:
        """The instructions, one short Markdown paragraph each."""
        out = [
            "Save the file and install Scorer Studio's runtime (the `scorer_runtime` "
            "package) in the same Python environment."
        ]
        if self.key_names:
            keys = " and ".join(f"`{k}`" for k in self.key_names)
            out.append(f"Set the judge's API key in the environment variable {keys}.")
        elif self.calls_judge:
            out.append("Set the judge's API key the way its provider expects.")
        else:
            out.append("No key is needed: this scorer never calls a judge.")
        out.append(
            "Run it on one example (a JSON object with `output`, and `input`, "
            "`ground_truth` … when the scorer uses them); it prints the score, the reason "
            "and every step's result as JSON. In code: "
            f"`from {self.file_name.removesuffix('.py')} import scorer`, then "
            "`scorer.run_sync(input=..., output=...)`."
        )
        return out


def run_guide(spec: ScorerSpec, judge_profiles: Mapping[str, JudgeSpec]) -> RunGuide:
    """The run instructions of a spec's exported Python."""
    file_name = file_stem(spec.id) + ".py"
    example = json.dumps(EXAMPLE_RUN, ensure_ascii=False)
    keys = spec.key_envs(judge_profiles)
    exports = "".join(f"export {k}=...\n" for k in keys)
    command = f"{exports}python {file_name} '{example}'"
    return RunGuide(file_name, command, keys, bool(spec.prompt_steps()))


# -- import ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportProblem:
    """One problem of an uploaded spec: where in plain words and as a JSON path, and what."""

    where: str
    path: str
    line: int | None
    message: str


@dataclass(frozen=True, slots=True)
class ImportCheck:
    """An uploaded file, checked: the spec when it is fine, else every problem found."""

    file_name: str
    spec: ScorerSpec | None = None
    problems: list[ImportProblem] = field(default_factory=list)
    """The first problems (at most MAX_PROBLEMS_SHOWN: 10,000 are no help to anyone)."""
    more: int = 0
    """How many more problems the file has than ``problems`` lists."""

    @property
    def ok(self) -> bool:
        """True when the file holds a complete scorer that can be saved."""
        return self.spec is not None and not self.problems


def path_words(path: str) -> str:
    """A JSON path in plain words (``steps[2].with.keywords`` is "Step 3, settings, keywords",
    joined by arrows)."""
    if not path:
        return "The file as a whole"
    words: list[str] = []
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            index = int(part[1:-1]) + 1
            words[-1:] = [f"{'Step' if words[-1:] == ['steps'] else 'Item'} {index}"]
        else:
            words.append(part)
    plain = [w if w.startswith(("Step ", "Item ")) else FIELD_WORDS.get(w, w) for w in words]
    first, *rest = plain
    return " › ".join([first[:1].upper() + first[1:], *rest])


def _problem(problem: SpecProblem) -> ImportProblem:
    where = path_words(problem.path)
    if problem.line is not None:
        where = f"Line {problem.line} · {where}"
    return ImportProblem(where, problem.path, problem.line, problem.message)


def check_import(
    data: bytes,
    file_name: str,
    *,
    registry: StepRegistry | None = None,
    judge_profiles: Mapping[str, JudgeSpec] | None = None,
) -> ImportCheck:
    """Read and check an uploaded JSON / YAML spec; nothing is saved here."""
    from scorer_runtime.spec import load_spec, spec_problems

    try:
        text = decode_input(data)
    except NotText as e:
        problem = ImportProblem(f"Line {e.line} · The file", "", e.line, e.words)
        return ImportCheck(file_name, problems=[problem])
    if not text.strip():
        message = "the file is empty; export a scorer as JSON or YAML and upload that file"
        return ImportCheck(file_name, problems=[ImportProblem("The file", "", None, message)])
    # Text without a line break could be taken for a file path by the loader: never read a
    # file named by an upload.
    text = text if "\n" in text else text + "\n"
    problems = spec_problems(text, registry=registry, judge_profiles=judge_profiles)
    if problems:
        shown = [_problem(p) for p in problems[:MAX_PROBLEMS_SHOWN]]
        return ImportCheck(file_name, problems=shown, more=len(problems) - len(shown))
    spec = load_spec(text, registry=registry, judge_profiles=judge_profiles)
    return ImportCheck(file_name, spec=spec)


ImportMode = Literal["new", "version"]


def same_version(session: Session, *, scorer_id: int, spec: ScorerSpec) -> int | None:
    """The number of the scorer's version whose spec is exactly ``spec`` (None when none is).

    The spec's id is taken as the scorer's name, as :func:`save_import` saves it.
    """
    from scorer_runtime.saved_scorers import spec_as_data
    from scorer_runtime.store import content_hash, list_versions

    scorer = get_scorer(session, id=scorer_id)
    if spec.id != scorer.name and is_scorer_id(scorer.name):
        spec = spec.model_copy(update={"id": scorer.name})
    digest = content_hash(spec_as_data(spec))
    versions = list_versions(session, scorer_id=scorer_id)
    return next((v.version for v in versions if v.content_hash == digest), None)


@dataclass(frozen=True, slots=True)
class SavedImport:
    """What saving an import did."""

    scorer_id: int
    scorer_name: str
    version: int
    unchanged: bool
    """True when the file equals the scorer's latest version (nothing new was saved)."""
    renamed_from: str | None = None
    """The spec's own id, when it was changed to the scorer's name."""


def save_import(
    session: Session,
    *,
    spec: ScorerSpec,
    mode: ImportMode,
    name: str | None = None,
    scorer_id: int | None = None,
    note: str = "",
) -> SavedImport:
    """Save a checked spec as a new scorer ``name`` or as the next version of ``scorer_id``.

    The spec's id becomes the scorer's name, so exported code scores under the same name.
    """
    if mode == "new":
        target = (name or spec.id).strip()
        problem = scorer_name_problem(session, target)
        if problem:
            raise ConflictError(problem)
        previous = None
    else:
        if scorer_id is None:
            raise ConflictError("Choose the scorer this file is a new version of.")
        scorer = get_scorer(session, id=scorer_id)
        target, previous = scorer.name, latest_version(session, scorer_id=scorer_id)
    renamed = spec.id if spec.id != target and is_scorer_id(target) else None
    if renamed:
        spec = spec.model_copy(update={"id": target})
    record = save_scorer_version(
        session, spec=spec, name=target, description=spec.description, note=note
    )
    unchanged = previous is not None and previous.id == record.id
    return SavedImport(record.scorer_id, target, record.version, unchanged, renamed)
