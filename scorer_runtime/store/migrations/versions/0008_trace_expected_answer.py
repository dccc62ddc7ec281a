"""A trace can be given an expected answer (the ground truth its scorers compare with).

The answer comes from the import file or is typed on the Traces page: a list of tool names
in the order they should be called, or the answer text. Traces stored before have none.

Revision ID: 0008_trace_expected_answer
Revises: 0007_redact_stored_keys
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

# Spelled out here, not imported from the models: a migration stays as it was written.
JSON_TYPE = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")

revision = "0008_trace_expected_answer"
down_revision: str | None = "0007_redact_stored_keys"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("traces") as batch:
        batch.add_column(sa.Column("expected", JSON_TYPE, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("traces") as batch:
        batch.drop_column("expected")
