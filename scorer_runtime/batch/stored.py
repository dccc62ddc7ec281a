"""Stored scorers as runnable scorers: compile a version, import spec files, seed demo data.

The spec package is imported lazily here (only these functions need it), so the store and
the runner stay usable with hand-built scorers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from scorer_runtime.judge.config import Judge
from scorer_runtime.scorer import Scorer
from scorer_runtime.store.judges import judge_profile_dict, list_judge_profiles
from scorer_runtime.store.scorers import save_scorer_version
from scorer_runtime.store.tables import DatasetRecord, ScorerRecord, ScorerVersionRecord

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


def load_stored_spec(session: Session, version: ScorerVersionRecord) -> ScorerSpec:
    """The spec of a stored version, checked (SpecError lists every problem)."""
    from scorer_runtime.spec import load_spec

    return load_spec(version.spec, judge_profiles=judge_profiles(session))


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
    session: Session, version: ScorerVersionRecord, *, api_base: str | None = None
) -> ScorerSource:
    """How to build the scorer of a stored version (``api_base`` as for compile_version)."""
    return ScorerSource(dict(version.spec), _judge_profile_data(session), api_base)


def compile_version(
    session: Session, version: ScorerVersionRecord, *, api_base: str | None = None
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
    (no model, no instructions, the key's environment variable not set)."""
    from scorer_runtime.judge.config import JudgeConfigError, resolve_judge

    for step in scorer.steps:
        if step.prompt is None:
            continue
        try:
            resolve_judge((scorer.judge or Judge()).override(step.prompt.judge))
        except JudgeConfigError as e:
            raise JudgeConfigError(f"scorer {scorer.id!r}, {step.name} step: {e}") from None


def spec_as_data(spec: ScorerSpec) -> dict[str, Any]:
    """A spec as the plain JSON the store keeps (defaults left out, as files write it)."""
    from scorer_runtime.spec.export import spec_data

    return spec_data(spec)


def import_spec_file(
    session: Session, *, path: Path, name: str | None = None, note: str = ""
) -> ScorerVersionRecord:
    """Check the spec in ``path`` (JSON or YAML) and save it as the scorer's next version."""
    from scorer_runtime.spec import load_spec

    spec = load_spec(path, judge_profiles=judge_profiles(session))
    return save_scorer_version(
        session,
        spec=spec_as_data(spec),
        name=name or spec.id,
        description=spec.description,
        note=note or f"imported from {path.name}",
    )


@dataclass(frozen=True, slots=True)
class SeedResult:
    """What seeding loaded (nothing when the database already had scorers or datasets)."""

    scorers: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)
    traces: int = 0
    skipped_reason: str | None = None


def seed_demo_data(session: Session, *, data_dir: Path) -> SeedResult:
    """Load ``data_dir/scorers/*.json``, ``data_dir/datasets/*.jsonl`` and the agent traces of
    ``data_dir/traces/`` (OTLP JSON or Mastra spans) into an empty database.

    Does nothing when the database already holds a scorer or a dataset, so it is safe to
    call on every start. A bad demo file fails the whole seed (nothing written).
    """
    from scorer_runtime.datasets.files import import_examples
    from scorer_runtime.store import save_traces
    from scorer_runtime.traces import load_traces

    has_any = (
        session.exec(select(func.count(col(ScorerRecord.id)))).one()
        or session.exec(select(func.count(col(DatasetRecord.id)))).one()
    )
    if has_any:
        return SeedResult(skipped_reason="the database already has scorers or datasets")
    scorers = [
        import_spec_file(session, path=path, note="demo scorer").scorer_id
        for path in sorted((data_dir / "scorers").glob("*.json"))
    ]
    datasets = [
        import_examples(session, path=path).dataset_name
        for path in sorted((data_dir / "datasets").glob("*.jsonl"))
    ]
    traces = 0
    for path in sorted((data_dir / "traces").glob("*.json*")):
        traces += save_traces(session, traces=load_traces(path), source=path.name).saved
    names = session.exec(select(ScorerRecord.name).where(col(ScorerRecord.id).in_(scorers))).all()
    return SeedResult(sorted(names), datasets, traces)
