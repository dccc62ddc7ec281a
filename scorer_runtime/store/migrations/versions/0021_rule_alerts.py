"""Drift alerts of scoring rules: a rule may watch its scores for a drop (by the hour or the
day, on the mean score or the pass rate, with the smallest drop worth a message and the name
of the environment variable that holds a webhook's address); ``rule_alerts`` holds each alert
once per rule and window, with whether its message was sent.

Revision ID: 0021_rule_alerts
Revises: 0020_alignments
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021_rule_alerts"
down_revision: str | None = "0020_alignments"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("scoring_rules") as batch:
        batch.add_column(sa.Column("alert_period", sa.String(length=4), nullable=True))
        batch.add_column(sa.Column("alert_measure", sa.String(length=10), nullable=True))
        batch.add_column(sa.Column("alert_drop", sa.Float(), nullable=True))
        batch.add_column(sa.Column("webhook_env", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("changed_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "rule_alerts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("rule_id", sa.Integer(), nullable=False),
        sa.Column("period", sa.String(length=4), nullable=False),
        sa.Column("measure", sa.String(length=10), nullable=False),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("baseline_n", sa.Integer(), nullable=False),
        sa.Column("baseline_value", sa.Float(), nullable=False),
        sa.Column("difference", sa.Float(), nullable=False),
        sa.Column("ci_low", sa.Float(), nullable=True),
        sa.Column("ci_high", sa.Float(), nullable=True),
        sa.Column("words", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sending_by", sa.String(length=200), nullable=True),
        sa.Column("sending_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("send_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["rule_id"], ["scoring_rules.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(
            "rule_id", "period", "measure", "window_start", name="uq_rule_alerts_window"
        ),
    )


def downgrade() -> None:
    op.drop_table("rule_alerts")
    with op.batch_alter_table("scoring_rules") as batch:
        batch.drop_column("changed_at")
        batch.drop_column("webhook_env")
        batch.drop_column("alert_drop")
        batch.drop_column("alert_measure")
        batch.drop_column("alert_period")
