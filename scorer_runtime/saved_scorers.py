"""Scorers kept in the store: load and compile a version, check its judges, import a spec
file, load the demo data (:func:`load_demo`, the one demo loader of the CLI and the studio).

:class:`ScorerSource` is how the batch engine builds a stored version's scorer in its worker
processes. The spec package is imported lazily here (only these functions need it), so the store and
the runner stay usable with hand-built scorers.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import func
from sqlmodel import Session, col, select

from scorer_runtime.judge.config import Judge
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.datasets import dataset_names
from scorer_runtime.store.judges import judge_profile_dict, list_judge_profiles
from scorer_runtime.store.names import load_names
from scorer_runtime.store.scorers import ScorerVersionInfo, save_scorer_version
from scorer_runtime.store.tables import DatasetRecord, ScorerRecord

if TYPE_CHECKING:
    from scorer_runtime.spec import JudgeSpec, ScorerSpec


def judge_profiles(session: Session) -> dict[str, JudgeSpec]:
    """Every saved judge profile as a JudgeSpec, by name (what compile_spec looks names up in)."""
    from scorer_runtime.spec import JudgeSpec

    return {
        name: JudgeSpec.model_validate(data) for name, data in _judge_profile_data(session).items()
    }


def _judge_profile_data(session: Session) -> dict[str, dict[str, Any]]:
    return {record.name: judge_profile_dict(record) for record in list_judge_profiles(session)}


def load_stored_spec(session: Session, version: ScorerVersionInfo) -> ScorerSpec:
    """The spec of a stored version, checked against the saved judge profiles and the step
    registry (SpecError lists every problem, those of a stored row that no longer reads as a
    spec included)."""
    from scorer_runtime.spec import load_spec

    _refuse_external(session, version)
    _refuse_unreadable(version)
    return load_spec(version.spec, judge_profiles=judge_profiles(session))


class ExternalScorerError(ValueError):
    """A scorer whose scores come from another tool was asked to run: it has nothing to run."""


def _refuse_external(session: Session, version: ScorerVersionInfo) -> None:
    """Raise :class:`ExternalScorerError` for another tool's scorer, in words."""
    scorer = session.get(ScorerRecord, version.scorer_id)
    if scorer is not None and scorer.external_name is not None:
        raise ExternalScorerError(
            f"{scorer.name!r} holds scores another tool sent (evaluation events named "
            f"{scorer.external_name!r}); it has no steps, so it cannot be run or exported "
            "here. Build a scorer of your own to score the same traces"
        )


def _refuse_unreadable(version: ScorerVersionInfo) -> None:
    """Raise SpecError for a version whose stored row no longer validates: what the store
    could read of it is for showing, never for running."""
    if version.problems:
        from scorer_runtime.spec import SpecError

        raise SpecError(version.problems, source=f"of version {version.version}")


@dataclass(frozen=True, slots=True)
class ScorerSource:
    """Everything needed to build a stored version's scorer, as plain JSON data.

    The batch runner sends it to its worker processes, which build the very scorer the
    parent runs (a compiled scorer holds functions, which cannot cross a process boundary;
    its spec can). Holds no secret: judges name the environment variable of their key.
    """

    spec: dict[str, Any]
    judge_profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The saved judge profiles, by name, as :func:`judge_profile_dict` gives them."""
    api_base: str | None = None
    """Send every judge of the scorer to this OpenAI-compatible base URL instead."""

    def build(self) -> Scorer[Any, Any]:
        """The runnable scorer (SpecError lists every problem of the spec)."""
        from scorer_runtime.spec import JudgeSpec, compile_spec

        profiles = {n: JudgeSpec.model_validate(d) for n, d in self.judge_profiles.items()}
        return _with_api_base(compile_spec(self.spec, judge_profiles=profiles), self.api_base)

    def to_data(self) -> dict[str, Any]:
        """The source as a JSON object (what :meth:`from_data` reads back)."""
        return {"spec": self.spec, "judge_profiles": self.judge_profiles, "api_base": self.api_base}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> ScorerSource:
        """The source :meth:`to_data` wrote."""
        return cls(data["spec"], dict(data.get("judge_profiles") or {}), data.get("api_base"))


def scorer_source(
    session: Session,
    version: ScorerVersionInfo,
    *,
    api_base: str | None = None,
    candidate_spec: dict[str, Any] | None = None,
) -> ScorerSource:
    """How to build the scorer of a stored version (``api_base`` as for compile_version);
    SpecError for a stored row that no longer reads as a spec. ``candidate_spec`` builds an
    alignment candidate's spec instead (a run of the version that scores the candidate)."""
    _refuse_external(session, version)
    _refuse_unreadable(version)
    spec = spec_as_data(version.spec) if candidate_spec is None else candidate_spec
    return ScorerSource(spec, _judge_profile_data(session), api_base)


def compile_version(
    session: Session, version: ScorerVersionInfo, *, api_base: str | None = None
) -> Scorer[Any, Any]:
    """The runnable scorer of a stored version, judge profiles filled in from the store.

    ``api_base`` points every judge of the scorer at another OpenAI-compatible server (a
    local proxy, a test server) without changing the stored version.
    """
    return scorer_source(session, version, api_base=api_base).build()


def _with_api_base(scorer: Scorer[Any, Any], api_base: str | None) -> Scorer[Any, Any]:
    if api_base is None:
        return scorer
    steps = tuple(
        replace(
            s, prompt=replace(s.prompt, judge=s.prompt.judge.override(Judge(api_base=api_base)))
        )
        if s.prompt is not None and s.prompt.judge is not None
        else s
        for s in scorer.steps
    )
    judge = (scorer.judge or Judge()).override(Judge(api_base=api_base))
    return replace(scorer, judge=judge, steps=steps)


def check_judges(scorer: Scorer[Any, Any]) -> None:
    """Fail before a run, not on every example, when a prompt step's judge cannot be called
    (no model, no instructions, the key's environment variable not set).

    It walks the *compiled* scorer, not :meth:`ScorerSpec.judge_refs`: the judge a step
    calls is the scorer's judge overridden by the step's own, profiles resolved, which only
    exists once the spec is compiled.
    """
    from scorer_runtime.judge.config import JudgeConfigError, resolve_judge

    for step in scorer.steps:
        if step.prompt is None:
            continue
        try:
            resolve_judge((scorer.judge or Judge()).override(step.prompt.judge))
        except JudgeConfigError as e:
            raise JudgeConfigError(f"scorer {scorer.id!r}, {step.name} step: {e}") from None


def use_judge_profile(
    session: Session, *, scorer_id: int, profile: str, keep_own: bool = True
) -> ScorerVersionInfo:
    """Save a new version of the scorer whose judge is the saved profile ``profile`` (the
    studio's "use this judge"; :func:`~scorer_runtime.spec.judge_choice.with_judge_profile`
    says what moves and what stays). The latest version is the starting point; the version
    returned is the latest unchanged when it already uses the profile that way.

    Raises NotFoundError for an unknown scorer or profile, SpecError when the new version
    would not check against the saved profiles, ValueError for a scorer that asks no judge.
    """
    from scorer_runtime.spec import load_spec
    from scorer_runtime.spec.judge_choice import with_judge_profile
    from scorer_runtime.store.judges import get_judge_profile
    from scorer_runtime.store.scorers import get_scorer, get_version

    get_judge_profile(session, name=profile)  # NotFoundError names the missing profile
    scorer = get_scorer(session, id=scorer_id)
    latest = get_version(session, scorer_id=scorer_id)
    _refuse_external(session, latest)
    _refuse_unreadable(latest)
    changed = with_judge_profile(latest.spec, profile, keep_own=keep_own)
    load_spec(changed, judge_profiles=judge_profiles(session))  # every problem at once
    return save_scorer_version(
        session, spec=changed, name=scorer.name, note=f"uses the saved judge {profile}"
    )


def spec_as_data(spec: ScorerSpec) -> dict[str, Any]:
    """A spec as the plain JSON the store keeps (the values it was written with; what a
    version's ``content_hash`` is computed from)."""
    from scorer_runtime.store.lenient_spec import stored_spec_data

    return stored_spec_data(spec)


def import_spec_file(
    session: Session, *, path: Path, name: str | None = None, note: str = ""
) -> ScorerVersionInfo:
    """Check the spec in ``path`` (JSON or YAML) and save it as the scorer's next version."""
    from scorer_runtime.spec import load_spec

    spec = load_spec(path, judge_profiles=judge_profiles(session))
    return save_scorer_version(
        session,
        spec=spec,
        name=name or spec.id,
        description=spec.description,
        note=note or f"imported from {path.name}",
    )


DemoPart = Literal["scorers", "datasets", "traces"]
"""A part of the demo data: ``data_dir/scorers/*.json``, ``data_dir/datasets/*.jsonl`` and
the agent traces of ``data_dir/traces/`` (OTLP JSON or Mastra spans)."""

DEMO_PARTS: tuple[DemoPart, ...] = ("scorers", "datasets", "traces")

DEMO_DATA_DIR = Path(__file__).resolve().parents[1] / "data"
"""The demo scorers, datasets and traces shipped in the project's ``data/`` folder."""


@dataclass(frozen=True, slots=True)
class DemoLoadResult:
    """What loading the demo saved (nothing, with the reason, when it was skipped)."""

    scorers: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)
    traces: int = 0
    skipped_reason: str | None = None


def load_demo(
    session: Session,
    *,
    data_dir: Path = DEMO_DATA_DIR,
    parts: Collection[DemoPart] = DEMO_PARTS,
    only_into_empty: bool = False,
) -> DemoLoadResult:
    """Load the demo ``parts`` of ``data_dir``: the one demo loader of the CLI and the studio.

    A demo scorer or dataset whose name is taken (archived scorers count) is left alone, so
    loading twice adds nothing and never adds a version to a scorer that may have been changed
    on purpose. ``only_into_empty`` skips everything when the database already holds a scorer
    or a dataset (``scorer-studio seed`` and the first-start buttons: safe on every start).
    A bad demo file fails the whole load (the caller's session writes nothing).
    """
    if only_into_empty and _has_scorers_or_datasets(session):
        return DemoLoadResult(skipped_reason="the database already has scorers or datasets")
    scorers = _load_demo_scorers(session, data_dir) if "scorers" in parts else []
    datasets = _load_demo_datasets(session, data_dir) if "datasets" in parts else []
    traces = _load_demo_traces(session, data_dir) if "traces" in parts else 0
    return DemoLoadResult(sorted(scorers), datasets, traces)


def _has_scorers_or_datasets(session: Session) -> bool:
    return bool(
        session.exec(select(func.count(col(ScorerRecord.id)))).one()
        or session.exec(select(func.count(col(DatasetRecord.id)))).one()
    )


def _load_demo_scorers(session: Session, data_dir: Path) -> list[str]:
    taken = set(load_names(session).scorers.values())
    saved = []
    for path in sorted((data_dir / "scorers").glob("*.json")):
        name = json.loads(path.read_text(encoding="utf-8")).get("id")
        if name in taken:
            continue
        import_spec_file(session, path=path, note="demo scorer")
        saved.append(str(name))
    return saved


def _load_demo_datasets(session: Session, data_dir: Path) -> list[str]:
    from scorer_runtime.datasets import import_examples

    taken = dataset_names(session)
    return [
        import_examples(session, path=path).dataset_name
        for path in sorted((data_dir / "datasets").glob("*.jsonl"))
        if path.stem not in taken
    ]


def _load_demo_traces(session: Session, data_dir: Path) -> int:
    from scorer_runtime.store import save_traces
    from scorer_runtime.traces import load_traces

    paths = sorted((data_dir / "traces").glob("*.json*"))
    return sum(save_traces(session, traces=load_traces(p), source=p.name).saved for p in paths)
