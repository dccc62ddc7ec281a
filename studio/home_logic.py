"""What the home page shows, free of Streamlit: the database at a glance and usable judges.

Everything here reads through an explicit session (or a mapping of environment variables), so
it is unit-tested on a real SQLite file without a browser. Key values are never read out:
:func:`key_statuses` only says whether each variable is set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, func
from sqlmodel import Session, col, select

from scorer_runtime.store import (
    DatasetRecord,
    ExampleRecord,
    JudgeProfileRecord,
    RunRecord,
    ScoreFilter,
    ScorerRecord,
    ScorerVersionRecord,
    score_stats,
)

WELL_KNOWN_KEYS: tuple[tuple[str, str], ...] = (
    ("OPENAI_API_KEY", "OpenAI"),
    ("ANTHROPIC_API_KEY", "Anthropic"),
    ("GEMINI_API_KEY", "Google Gemini"),
    ("GROQ_API_KEY", "Groq"),
    ("MISTRAL_API_KEY", "Mistral"),
    ("AZURE_API_KEY", "Azure OpenAI"),
    ("COHERE_API_KEY", "Cohere"),
    ("DEEPSEEK_API_KEY", "DeepSeek"),
    ("OPENROUTER_API_KEY", "OpenRouter"),
    ("TOGETHERAI_API_KEY", "Together AI"),
    ("XAI_API_KEY", "xAI"),
    ("FIREWORKS_AI_API_KEY", "Fireworks AI"),
)
"""The key variables litellm reads for the providers people use most, with the provider."""


@dataclass(frozen=True, slots=True)
class KeyStatus:
    """Whether one key variable is set (never its value), and who needs it."""

    env: str
    provider: str
    is_set: bool
    used_by: tuple[str, ...] = ()
    """Judge profiles and scorers that name this variable."""


def key_statuses(
    environ: Mapping[str, str], named_by: Mapping[str, Iterable[str]]
) -> list[KeyStatus]:
    """The well-known key variables, then every other one a profile or scorer names.

    ``named_by`` maps a variable name to who names it ("judge profile 'fast'", ...). Keys
    named by someone come first, so what the saved scorers need is what one sees first.
    """
    providers = dict(WELL_KNOWN_KEYS)
    names = [env for env, _ in WELL_KNOWN_KEYS] + sorted(set(named_by) - set(providers))
    statuses = [
        KeyStatus(
            env=env,
            provider=providers.get(env, "named by a saved judge"),
            is_set=bool(environ.get(env, "").strip()),
            used_by=tuple(sorted(set(named_by.get(env, ())))),
        )
        for env in names
    ]
    return sorted(statuses, key=lambda s: not s.used_by)


def key_names_in_use(session: Session) -> dict[str, list[str]]:
    """Every key variable named by a saved judge profile or a scorer's latest version."""
    named: dict[str, list[str]] = {}
    for name, env in session.exec(
        select(JudgeProfileRecord.name, JudgeProfileRecord.api_key_env)
    ).all():
        if env:
            named.setdefault(env, []).append(f"judge “{name}”")
    for scorer_name, spec in _latest_specs(session):
        for env in spec_key_names(spec):
            named.setdefault(env, []).append(f"scorer “{scorer_name}”")
    return named


def _latest_specs(session: Session) -> list[tuple[str, dict[str, object]]]:
    latest = (
        select(ScorerVersionRecord.scorer_id, func.max(ScorerVersionRecord.version).label("v"))
        .group_by(col(ScorerVersionRecord.scorer_id))
        .subquery()
    )
    query = (
        select(ScorerRecord.name, ScorerVersionRecord.spec)
        .join(ScorerVersionRecord, col(ScorerVersionRecord.scorer_id) == col(ScorerRecord.id))
        .join(
            latest,
            (latest.c.scorer_id == col(ScorerVersionRecord.scorer_id))
            & (latest.c.v == col(ScorerVersionRecord.version)),
        )
        .where(col(ScorerRecord.archived_at).is_(None))
    )
    return [(str(name), dict(spec)) for name, spec in session.exec(query).all()]


def spec_key_names(spec: Mapping[str, object]) -> list[str]:
    """The key variables a spec's judges name (the scorer's judge and any step's own)."""
    judges = [spec.get("judge")]
    steps = spec.get("steps")
    if isinstance(steps, list):
        judges += [step.get("judge") for step in steps if isinstance(step, Mapping)]
    names = [j.get("api_key_env") for j in judges if isinstance(j, Mapping)]
    return sorted({str(n) for n in names if n})


@dataclass(frozen=True, slots=True)
class RunLine:
    """One recent run as the home page lists it."""

    run_id: int
    scorer: str
    version: int
    dataset: str
    status: str
    created_at: datetime
    total: int
    done: int
    scored: int
    mean: float | None
    outcome_counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Overview:
    """What the database holds, in the numbers the home page shows."""

    scorers: int
    versions: int
    datasets: int
    examples: int
    runs: int
    latest_runs: list[RunLine] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        """Nothing to show yet: no scorer and no dataset."""
        return self.scorers == 0 and self.datasets == 0


def _count(session: Session, column: Any, *where: ColumnElement[bool]) -> int:
    return int(session.exec(select(func.count(column)).where(*where)).one())


def overview(session: Session, *, runs: int = 5) -> Overview:
    """Counts of scorers, versions, datasets, examples and runs, and the latest ``runs`` runs."""
    live_scorer = col(ScorerRecord.archived_at).is_(None)
    live_dataset = col(DatasetRecord.archived_at).is_(None)
    examples = session.exec(
        select(func.count(col(ExampleRecord.id)))
        .join(DatasetRecord, col(DatasetRecord.id) == col(ExampleRecord.dataset_id))
        .where(live_dataset)
    ).one()
    return Overview(
        scorers=_count(session, col(ScorerRecord.id), live_scorer),
        versions=_count(session, col(ScorerVersionRecord.id)),
        datasets=_count(session, col(DatasetRecord.id), live_dataset),
        examples=int(examples),
        runs=_count(session, col(RunRecord.id)),
        latest_runs=latest_runs(session, limit=runs),
    )


def latest_runs(session: Session, *, limit: int = 5) -> list[RunLine]:
    """The newest runs with their scorer, version, dataset, status and mean score."""
    query = (
        select(RunRecord, ScorerRecord.name, ScorerVersionRecord.version, DatasetRecord.name)
        .join(ScorerRecord, col(ScorerRecord.id) == col(RunRecord.scorer_id))
        .join(ScorerVersionRecord, col(ScorerVersionRecord.id) == col(RunRecord.scorer_version_id))
        .join(DatasetRecord, col(DatasetRecord.id) == col(RunRecord.dataset_id))
        .order_by(col(RunRecord.id).desc())
        .limit(limit)
    )
    lines = []
    for run, scorer, version, dataset in session.exec(query).all():
        assert run.id is not None
        stats = score_stats(session, filter=ScoreFilter(run_id=run.id))
        lines.append(
            RunLine(
                run_id=run.id,
                scorer=scorer,
                version=version,
                dataset=dataset,
                status=run.status,
                created_at=run.created_at,
                total=run.total,
                done=stats.total,
                scored=stats.count,
                mean=stats.mean,
                outcome_counts=stats.outcome_counts,
            )
        )
    return lines


def outcome_mix(counts: Mapping[str, int], labels: Mapping[str, str]) -> str:
    """Outcome counts in words, scored first: "8 scored, 1 not scorable, 1 failed"."""
    order: Sequence[str] = ("scored", "not_scorable")
    failed = sum(n for o, n in counts.items() if o not in order)
    parts = [f"{counts[o]} {labels.get(o, o).lower()}" for o in order if counts.get(o)]
    if failed:
        parts.append(f"{failed} failed")
    return ", ".join(parts) or "no results yet"
