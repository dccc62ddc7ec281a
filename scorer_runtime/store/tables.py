"""The database schema: one SQLModel table per entity, owned by this module alone.

Every timestamp is timezone-aware UTC (sqlmodel rejects naive datetimes). JSON columns hold
plain data (dicts, lists, strings, numbers); PostgreSQL stores them as JSONB. The migrations
in ``migrations/versions`` create exactly these tables; a test compares the two.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import AutoString, Field, SQLModel

from scorer_runtime.types import Outcome, RunStatus

JSON_TYPE = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")
"""JSON, with Python None stored as SQL NULL (not the JSON text ``null``)."""


def utc_now() -> datetime:
    """The current time, timezone-aware UTC (what every timestamp column stores)."""
    return datetime.now(UTC)


def as_utc(at: datetime) -> datetime:
    """A stored time as timezone-aware UTC (SQLite gives it back naive, as UTC)."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def _json(*, nullable: bool = True) -> Any:
    return Field(default=None, sa_type=JSON_TYPE, nullable=nullable)


def _created() -> Any:
    return Field(default_factory=utc_now, nullable=False)


class JudgeProfileRecord(SQLModel, table=True):
    """A saved judge: model, base URL and the *name* of the env var holding the key.

    Never a key: ``settings`` is checked on save to hold no secret-looking field.
    """

    __tablename__ = "judge_profiles"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=200, unique=True)
    model: str = Field(max_length=300)
    api_base: str | None = Field(default=None, max_length=1000)
    api_key_env: str | None = Field(default=None, max_length=200)
    settings: dict[str, Any] | None = _json()
    """Everything else of the judge (instructions, JSON mode, retry policy, temperature, ...)."""
    created_at: datetime = _created()
    updated_at: datetime = _created()


class ScorerRecord(SQLModel, table=True):
    """A scorer: a name that owns a list of immutable versions; archived softly."""

    __tablename__ = "scorers"
    __table_args__ = (sa.Index("ix_scorers_external_name", "external_name", unique=True),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=200, unique=True)
    description: str = Field(default="")
    archived_at: datetime | None = Field(default=None)
    external_name: str | None = Field(default=None, max_length=200)
    """Set for an external scorer: the ``gen_ai.evaluation.name`` another tool sends its
    scores under (see :mod:`scorer_runtime.store.external_scores`). Such a scorer has no
    steps to run: it is never run, exported or offered where scorers are built or run."""
    created_at: datetime = _created()
    updated_at: datetime = _created()


class ScorerVersionRecord(SQLModel, table=True):
    """One immutable version of a scorer: its spec as JSON and the hash of that JSON."""

    __tablename__ = "scorer_versions"
    __table_args__ = (
        sa.UniqueConstraint("scorer_id", "version", name="uq_scorer_versions_scorer_version"),
        sa.Index("ix_scorer_versions_scorer_hash", "scorer_id", "content_hash"),
    )

    id: int | None = Field(default=None, primary_key=True)
    scorer_id: int = Field(foreign_key="scorers.id", nullable=False)
    version: int
    spec: dict[str, Any] = Field(sa_type=JSON_TYPE, nullable=False)
    content_hash: str = Field(max_length=64)
    """SHA-256 of the canonical JSON of ``spec`` (sorted keys, no whitespace)."""
    note: str = Field(default="")
    created_at: datetime = _created()


class DatasetRecord(SQLModel, table=True):
    """A named set of examples to score."""

    __tablename__ = "datasets"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=200, unique=True)
    description: str = Field(default="")
    archived_at: datetime | None = Field(default=None)
    created_at: datetime = _created()


class ExampleRecord(SQLModel, table=True):
    """One example of a dataset: input, output, ground truth, request context and tags."""

    __tablename__ = "examples"
    __table_args__ = (sa.Index("ix_examples_dataset_position", "dataset_id", "position"),)

    id: int | None = Field(default=None, primary_key=True)
    dataset_id: int = Field(foreign_key="datasets.id", nullable=False)
    position: int = 0
    """Order within the dataset (the row of the imported file)."""
    input: Any = _json()
    output: Any = _json()
    ground_truth: Any = _json()
    request_context: dict[str, Any] | None = _json()
    tags: list[str] | None = _json()
    created_at: datetime = _created()


class RunRecord(SQLModel, table=True):
    """A batch run of one scorer version over one dataset."""

    __tablename__ = "runs"
    __table_args__ = (
        sa.Index("ix_runs_dataset_created", "dataset_id", "created_at"),
        sa.Index("ix_runs_status", "status"),  # runners poll for queued runs several times a second
    )

    id: int | None = Field(default=None, primary_key=True)
    scorer_id: int = Field(foreign_key="scorers.id", nullable=False)
    scorer_version_id: int = Field(foreign_key="scorer_versions.id", nullable=False, index=True)
    dataset_id: int = Field(foreign_key="datasets.id", nullable=False)
    status: RunStatus = Field(default="queued", sa_type=AutoString(20))
    concurrency: int = 4
    total: int = 0
    done_count: int = 0
    """Examples with a stored result, whatever their outcome."""
    failed_count: int = 0
    """Examples whose outcome is an error (step, provider or judge format)."""
    cost: float = 0.0
    cancel_requested: bool = False
    """Set by anyone (the studio, another process) to ask the runner to stop."""
    error: str | None = None
    runner: str | None = Field(default=None, max_length=200)
    """``host:pid`` of the process running it, so a crashed runner's run can be taken over."""
    stability_check_id: int | None = Field(
        default=None, foreign_key="stability_checks.id", nullable=True, index=True
    )
    """Set when the run is one repeat of a stability check: it scores only the check's
    sample of examples (see :class:`StabilityCheckRecord`)."""
    health_check_id: int | None = Field(
        default=None, foreign_key="health_checks.id", nullable=True, index=True
    )
    """Set when the run is part of a health check: it scores only the check's sample, each
    example changed as ``perturbation`` says (see :class:`HealthCheckRecord`)."""
    perturbation: dict[str, Any] | None = _json()
    """How a health check's run changes each example before it is scored (None: as it is);
    see ``scorer_runtime.trust.perturb``."""
    alignment_id: int | None = Field(
        default=None, foreign_key="alignments.id", nullable=True, index=True
    )
    """Set when the run is part of an alignment ("Improve this judge"): it scores only the
    alignment's graded examples of its dataset (see :class:`AlignmentRecord`)."""
    candidate: str | None = Field(default=None, max_length=40)
    """In an alignment, which candidate the run scores (None: the version as it is)."""
    candidate_spec: dict[str, Any] | None = _json()
    """The candidate's spec that scores the run instead of the version's own (None: the
    version's own): a candidate is no version until it is chosen and saved."""
    use_cache: bool = Field(default=True, sa_column_kwargs={"server_default": sa.true()})
    """Whether judge answers may come from the judge answer cache."""
    judge_answers: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """Judge answers the run's stored results hold (asked or from the cache)."""
    cached_answers: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """Of those, answers that came from the judge answer cache."""
    saved_cost: float = Field(default=0.0, sa_column_kwargs={"server_default": "0"})
    """What the cached answers cost when first asked: not spent again."""
    created_at: datetime = _created()
    started_at: datetime | None = None
    """When the run first started (a resume keeps it)."""
    finished_at: datetime | None = None
    heartbeat_at: datetime | None = None
    running_since: datetime | None = None
    """When the stretch of running going on now began: its start, or its latest resume or
    takeover (None while the run is not running)."""
    active_s: float = Field(default=0.0, sa_column_kwargs={"server_default": "0"})
    """Seconds the run spent running in its stretches that ended (each from its start or
    resume to its stop, cancel, end, or last heartbeat before a crash): the time it sat
    stopped, cancelled, crashed or queued before a resume is not in it."""
    max_cost: float | None = None
    """The spend cap in dollars (None: no cap); the run stops before passing it."""
    allow_unpriced: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    """Whether the cap may go unchecked because a judge model has no price."""
    pace: dict[str, Any] | None = _json()
    """While the run runs: its pace as its runner last measured it (examples a second, the
    judge rate limit holding it back; see ``batch.pace``); None once it has ended."""


class StabilityCheckRecord(SQLModel, table=True):
    """A stability check: a seeded sample of a dataset's examples that one scorer version
    scores several times (each time a run tagged with this check), to see whether its
    verdicts flip."""

    __tablename__ = "stability_checks"
    __table_args__ = (sa.Index("ix_stability_checks_version", "scorer_version_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    scorer_id: int = Field(foreign_key="scorers.id", nullable=False)
    scorer_version_id: int = Field(foreign_key="scorer_versions.id", nullable=False)
    dataset_id: int = Field(foreign_key="datasets.id", nullable=False)
    repeats: int
    seed: int = 0
    example_ids: list[int] = _json(nullable=False)
    """The sampled examples, in id order: what every repeat scores."""
    created_at: datetime = _created()


class HealthCheckRecord(SQLModel, table=True):
    """A health check: a seeded sample of a dataset's examples that one scorer version scores
    as it is and once per perturbation family (each time a run tagged with this check), to
    see how easily the judged text sways its verdicts."""

    __tablename__ = "health_checks"
    __table_args__ = (sa.Index("ix_health_checks_version", "scorer_version_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    scorer_id: int = Field(foreign_key="scorers.id", nullable=False)
    scorer_version_id: int = Field(foreign_key="scorer_versions.id", nullable=False)
    dataset_id: int = Field(foreign_key="datasets.id", nullable=False)
    seed: int = 0
    example_ids: list[int] = _json(nullable=False)
    """The sampled examples, in id order: what every run of the check scores."""
    families: list[str] = _json(nullable=False)
    """The perturbation families the check tries, in the order their runs were made."""
    created_at: datetime = _created()


class AlignmentRecord(SQLModel, table=True):
    """An alignment ("Improve this judge") of one scorer version: its graded examples split
    into a tuning part (candidates are built from it) and a holdout (they are measured on it),
    and the runs, tagged with it, that score the version and each candidate."""

    __tablename__ = "alignments"
    __table_args__ = (sa.Index("ix_alignments_version", "scorer_version_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    scorer_id: int = Field(foreign_key="scorers.id", nullable=False)
    scorer_version_id: int = Field(foreign_key="scorer_versions.id", nullable=False)
    seed: int = 0
    tuning_ids: list[int] = _json(nullable=False)
    """The examples candidates are built from, in id order."""
    holdout_ids: list[int] = _json(nullable=False)
    """The examples candidates are measured on, in id order: never in a candidate."""
    created_at: datetime = _created()


class RunnerRecord(SQLModel, table=True):
    """A runner process serving the run queue (``scorer-studio worker``), while it lives.

    It beats ``heartbeat_at`` every second, busy or idle, so anyone can tell whether a
    runner is alive; it removes its row when it stops (a killed one leaves a row whose beat
    grows old).
    """

    __tablename__ = "runners"

    name: str = Field(primary_key=True, max_length=200)
    """``host:pid`` of the process, as it signs the runs it runs."""
    started_at: datetime = _created()
    heartbeat_at: datetime = _created()


class ScoreRecord(SQLModel, table=True):
    """One stored score: the outcome of a scorer version on an example (or a trace span).

    Indexes serve the studio's views. History newest first by scorer or version, and every
    aggregate by scorer or version, read the covering ``(…, created_at, outcome, score,
    cost, run_id)`` indexes (aggregates never touch the table, also when stability checks'
    repeat runs are left out by their run); history by dataset reads
    ``(dataset_id, created_at)``; a run's results are found through the unique
    ``(run_id, example_id)``. Leading with ``created_at`` keeps inserts appending (new rows
    land on one page per scorer, not at random), and each index slows bulk inserts, so
    there are no more: two indexes per scorer and version (history, then aggregates) halved
    the insert rate for no query that needs them (migration 0004).
    """

    __tablename__ = "scores"
    __table_args__ = (
        sa.UniqueConstraint("run_id", "example_id", name="uq_scores_run_example"),
        sa.Index(
            "ix_scores_scorer_created_cover",
            "scorer_id",
            "created_at",
            "outcome",
            "score",
            "cost",
            "run_id",
        ),
        sa.Index(
            "ix_scores_version_created_cover",
            "scorer_version_id",
            "created_at",
            "outcome",
            "score",
            "cost",
            "run_id",
        ),
        sa.Index("ix_scores_dataset_created", "dataset_id", "created_at"),
        # Partial: batch scores have no trace, and cost nothing to this index.
        sa.Index(
            "ix_scores_trace",
            "trace_id",
            "span_id",
            sqlite_where=sa.text("trace_id IS NOT NULL"),
            postgresql_where=sa.text("trace_id IS NOT NULL"),
        ),
        # Partial and unique: an evaluation event delivered twice is stored once.
        sa.Index(
            "ix_scores_event_key",
            "event_key",
            unique=True,
            sqlite_where=sa.text("event_key IS NOT NULL"),
            postgresql_where=sa.text("event_key IS NOT NULL"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: int | None = Field(default=None, foreign_key="runs.id")
    example_id: int | None = Field(default=None, foreign_key="examples.id")
    scorer_id: int = Field(foreign_key="scorers.id", nullable=False)
    scorer_version_id: int = Field(foreign_key="scorer_versions.id", nullable=False)
    dataset_id: int | None = Field(default=None, foreign_key="datasets.id")
    trace_id: str | None = Field(default=None, max_length=100)
    span_id: str | None = Field(default=None, max_length=100)
    score: float | None = None
    outcome: Outcome = Field(sa_type=AutoString(30))
    reason: str | None = None
    error: str | None = None
    failed_step: str | None = Field(default=None, max_length=30)
    step_results: dict[str, Any] | None = _json()
    prompts: dict[str, Any] | None = _json()
    judge: dict[str, Any] | None = _json()
    """The judge evidence: each prompt step's JudgeExecution as plain data."""
    attempts: int = 0
    latency_ms: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost: float | None = None
    created_at: datetime = _created()
    label: str | None = Field(default=None, max_length=200)
    """The verdict in words another tool sent (``gen_ai.evaluation.score.label``), kept
    also when it maps to no number."""
    event_key: str | None = Field(default=None, max_length=64)
    """An external score's event identity (see ``ExternalEvaluation.key``); None for ours."""


class LabelRecord(SQLModel, table=True):
    """A human's judgement of an example for a scorer (to measure the judge against)."""

    __tablename__ = "labels"
    __table_args__ = (sa.Index("ix_labels_scorer_example", "scorer_id", "example_id"),)

    id: int | None = Field(default=None, primary_key=True)
    example_id: int = Field(foreign_key="examples.id", nullable=False)
    scorer_id: int = Field(foreign_key="scorers.id", nullable=False)
    value: float
    note: str = Field(default="")
    labeller: str = Field(max_length=200)
    created_at: datetime = _created()


TABLES = (
    JudgeProfileRecord,
    ScorerRecord,
    ScorerVersionRecord,
    DatasetRecord,
    ExampleRecord,
    StabilityCheckRecord,
    RunRecord,
    ScoreRecord,
    LabelRecord,
)
"""Every table of the store, parents before children."""


class DraftRecord(SQLModel, table=True):
    """A scorer being built in the studio, saved as it changes so no work is lost.

    ``spec`` may be incomplete (it is what the form holds); saving a version is what
    validates it. ``scorer_id`` is set when the draft is a new version of a saved scorer.
    """

    __tablename__ = "drafts"
    __table_args__ = (sa.Index("ix_drafts_updated", "updated_at"),)

    id: int | None = Field(default=None, primary_key=True)
    scorer_id: int | None = Field(default=None, foreign_key="scorers.id", nullable=True)
    title: str = Field(default="", max_length=300)
    spec: dict[str, Any] = _json(nullable=False)
    created_at: datetime = _created()
    updated_at: datetime = _created()


class TraceRecord(SQLModel, table=True):
    """An imported agent trace: its spans as plain data, and what a list of traces shows.

    ``trace_id`` is the trace's own id (OpenTelemetry's hex id, or Mastra's): importing the
    same trace again merges its spans into this row. ``spans`` holds each span's
    ``Span.to_dict()``; the other columns summarise them so a list never reads the spans.
    """

    __tablename__ = "traces"
    __table_args__ = (sa.Index("ix_traces_started", "started_at"),)

    id: int | None = Field(default=None, primary_key=True)
    trace_id: str = Field(max_length=100, unique=True)
    name: str = Field(default="", max_length=300)
    """The name of its first agent span, else of its first root span."""
    agent: str | None = Field(default=None, max_length=300)
    """The agent's name, when a span says it (``gen_ai.agent.name``)."""
    source: str = Field(default="", max_length=500)
    """The file the trace was (last) imported from."""
    formats: str = Field(default="", max_length=30)
    """Which formats its spans came from: ``otlp``, ``mastra`` or ``mastra,otlp``."""
    span_count: int = 0
    agent_runs: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    errors: int = 0
    """Spans whose status is error."""
    started_at: datetime = Field(nullable=False)
    duration_ms: float | None = None
    spans: list[dict[str, Any]] = _json(nullable=False)
    expected: Any = _json()
    """The expected answer (the scorer's ground truth): a list of tool names in the order
    they should be called, or the answer text; None when none was given."""
    imported_at: datetime = _created()
    updated_at: datetime = _created()


class TrustPolicyRecord(SQLModel, table=True):
    """A scorer's trust policy: the evidence a version needs before it is trusted.

    A scorer without a row has the default policy (see ``scorer_runtime.trust.policy``).
    """

    __tablename__ = "trust_policies"

    scorer_id: int = Field(foreign_key="scorers.id", primary_key=True)
    min_graded: int
    """Examples graded by a person (and scored by the version) at least."""
    min_kappa_low: float
    """The lower end of kappa's 95 % interval at least."""
    max_flip_rate: float
    """Share of examples whose verdict flips between repeats at most."""
    max_swayed_rate: float | None = None
    """Share of verdicts a health check's perturbation family may change, at most, in every
    family (None: the policy asks for no health check)."""
    pass_mark: float | None = None
    """The score at and above which a number scale passes (None: the scale's own)."""
    updated_at: datetime = _created()


class ApprovalRecord(SQLModel, table=True):
    """A person approved a scorer version for use, with the badge it had then.

    ``override_reason`` is the written reason when the version was approved although its
    trust policy did not hold ("" when it held).
    """

    __tablename__ = "approvals"
    __table_args__ = (sa.Index("ix_approvals_version", "scorer_version_id", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    scorer_version_id: int = Field(foreign_key="scorer_versions.id", nullable=False)
    approver: str = Field(max_length=200)
    badge: str = Field(max_length=30)
    override_reason: str = Field(default="")
    created_at: datetime = _created()


class JudgeAnswerRecord(SQLModel, table=True):
    """A successful, schema-valid judge answer, kept so the same request is never paid twice.

    ``key`` is the SHA-256 of everything that decides the answer
    (:func:`scorer_runtime.judge.cache.answer_key`), never the API key. ``scorer_id`` is the
    scorer whose run first asked it (what ``cache clear --scorer`` clears).
    """

    __tablename__ = "judge_answers"
    __table_args__ = (sa.Index("ix_judge_answers_scorer_created", "scorer_id", "created_at"),)

    key: str = Field(primary_key=True, max_length=64)
    scorer_id: int | None = None
    answer: str
    """The answer's text (after the output processors), as the judge step read it."""
    cost: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    created_at: datetime = _created()


class JudgeRateWindowRecord(SQLModel, table=True):
    """One second of one judge's rate limit: the requests and tokens granted in it so far.

    ``limit_key`` names the judge (:func:`scorer_runtime.judge.rate.limit_key`: a hash of
    model, address and the key variable's name, never a key); ``unix_second`` is the second
    (its window), in Unix time. Every runner of the store takes its slots here
    (``store.rate_windows``), so their requests together keep to the limit; rows older than
    a minute are deleted.
    """

    __tablename__ = "judge_rate_windows"

    limit_key: str = Field(primary_key=True, max_length=64)
    unix_second: int = Field(primary_key=True, sa_type=sa.BigInteger)
    requests: int = 0
    tokens: int = Field(default=0, sa_type=sa.BigInteger)


class SpendReservationRecord(SQLModel, table=True):
    """The worst-case cost of one example of a capped run, set aside before its judge calls.

    A runner writes it in the same transaction as the cap check (``store.reservations``) and
    deletes it in the commit that stores the example's result, whose actual cost then counts
    instead. One left behind belongs to a runner that stopped (killed, crashed, cancelled)
    with the answers on their way: the provider may have charged for them, so it keeps
    counting as spent, at its worst case (``lost`` once the run has been resumed or ended).
    """

    __tablename__ = "spend_reservations"

    run_id: int = Field(foreign_key="runs.id", primary_key=True)
    runner_token: str = Field(primary_key=True, max_length=32)
    """The runner that set it aside (a new token each time a run starts or resumes)."""
    example_id: int = Field(primary_key=True)
    amount: float
    """Dollars: what the example's judge calls could cost at worst."""
    lost: bool = False
    """Its runner ended without storing the result: it counts as spent for good."""
    created_at: datetime = _created()


# The rules' tables live in a module of their own; importing it puts them in this schema.
from scorer_runtime.store.rule_tables import (  # noqa: E402
    RuleAlertRecord,
    RuleTraceRecord,
    ScoringRuleRecord,
)

RULE_TABLES = (ScoringRuleRecord, RuleTraceRecord, RuleAlertRecord)
"""The tables of scoring rules (see :mod:`scorer_runtime.store.rule_tables`)."""
