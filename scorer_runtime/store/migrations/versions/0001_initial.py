"""Initial schema: judge profiles, scorers and versions, datasets and examples, runs, scores.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0001_initial"
down_revision: str | None = None
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def _when(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _id() -> sa.Column[int]:
    return sa.Column("id", sa.Integer(), primary_key=True, nullable=False)


def upgrade() -> None:
    _create_scorers()
    _create_datasets()
    _create_runs()
    _create_scores()


def _create_scorers() -> None:
    op.create_table(
        "judge_profiles",
        _id(),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("model", sa.String(300), nullable=False),
        sa.Column("api_base", sa.String(1000), nullable=True),
        sa.Column("api_key_env", sa.String(200), nullable=True),
        sa.Column("settings", JSON, nullable=True),
        _when("created_at"),
        _when("updated_at"),
    )
    op.create_table(
        "scorers",
        _id(),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("description", sa.String(), nullable=False),
        _when("archived_at", nullable=True),
        _when("created_at"),
        _when("updated_at"),
    )
    op.create_table(
        "scorer_versions",
        _id(),
        sa.Column("scorer_id", sa.Integer(), sa.ForeignKey("scorers.id"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("spec", JSON, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("note", sa.String(), nullable=False),
        _when("created_at"),
        sa.UniqueConstraint("scorer_id", "version", name="uq_scorer_versions_scorer_version"),
    )
    op.create_index(
        "ix_scorer_versions_scorer_hash", "scorer_versions", ["scorer_id", "content_hash"]
    )


def _create_datasets() -> None:
    op.create_table(
        "datasets",
        _id(),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("description", sa.String(), nullable=False),
        _when("archived_at", nullable=True),
        _when("created_at"),
    )
    op.create_table(
        "examples",
        _id(),
        sa.Column("dataset_id", sa.Integer(), sa.ForeignKey("datasets.id"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("input", JSON, nullable=True),
        sa.Column("output", JSON, nullable=True),
        sa.Column("ground_truth", JSON, nullable=True),
        sa.Column("request_context", JSON, nullable=True),
        sa.Column("tags", JSON, nullable=True),
        _when("created_at"),
    )
    op.create_index("ix_examples_dataset_position", "examples", ["dataset_id", "position"])


def _create_runs() -> None:
    op.create_table(
        "runs",
        _id(),
        sa.Column("scorer_id", sa.Integer(), sa.ForeignKey("scorers.id"), nullable=False),
        sa.Column(
            "scorer_version_id", sa.Integer(), sa.ForeignKey("scorer_versions.id"), nullable=False
        ),
        sa.Column("dataset_id", sa.Integer(), sa.ForeignKey("datasets.id"), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("concurrency", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("done_count", sa.Integer(), nullable=False),
        sa.Column("failed_count", sa.Integer(), nullable=False),
        sa.Column("cost", sa.Float(), nullable=False),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("error", sa.String(), nullable=True),
        _when("created_at"),
        _when("started_at", nullable=True),
        _when("finished_at", nullable=True),
        _when("heartbeat_at", nullable=True),
    )
    op.create_index("ix_runs_scorer_version_id", "runs", ["scorer_version_id"])
    op.create_index("ix_runs_dataset_created", "runs", ["dataset_id", "created_at"])


def _create_scores() -> None:
    op.create_table(
        "scores",
        _id(),
        sa.Column("run_id", sa.Integer(), sa.ForeignKey("runs.id"), nullable=True),
        sa.Column("example_id", sa.Integer(), sa.ForeignKey("examples.id"), nullable=True),
        sa.Column("scorer_id", sa.Integer(), sa.ForeignKey("scorers.id"), nullable=False),
        sa.Column(
            "scorer_version_id", sa.Integer(), sa.ForeignKey("scorer_versions.id"), nullable=False
        ),
        sa.Column("dataset_id", sa.Integer(), sa.ForeignKey("datasets.id"), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("outcome", sa.String(30), nullable=False),
        sa.Column("reason", sa.String(), nullable=True),
        sa.Column("error", sa.String(), nullable=True),
        sa.Column("failed_step", sa.String(30), nullable=True),
        sa.Column("step_results", JSON, nullable=True),
        sa.Column("prompts", JSON, nullable=True),
        sa.Column("judge", JSON, nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("input_tokens", sa.Integer(), nullable=False),
        sa.Column("output_tokens", sa.Integer(), nullable=False),
        sa.Column("total_tokens", sa.Integer(), nullable=False),
        sa.Column("cost", sa.Float(), nullable=True),
        _when("created_at"),
        sa.UniqueConstraint("run_id", "example_id", name="uq_scores_run_example"),
    )
    for name, columns in (
        ("ix_scores_scorer_created", ["scorer_id", "created_at"]),
        ("ix_scores_version_created", ["scorer_version_id", "created_at"]),
        ("ix_scores_dataset_created", ["dataset_id", "created_at"]),
        ("ix_scores_scorer_outcome_score", ["scorer_id", "outcome", "created_at", "score", "cost"]),
        (
            "ix_scores_version_outcome_score",
            ["scorer_version_id", "outcome", "created_at", "score", "cost"],
        ),
    ):
        op.create_index(name, "scores", columns)


def downgrade() -> None:
    for table in ("scores", "runs", "examples", "datasets", "scorer_versions", "scorers"):
        op.drop_table(table)
    op.drop_table("judge_profiles")
