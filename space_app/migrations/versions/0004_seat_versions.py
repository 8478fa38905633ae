"""Which version of its agent each seat had: `seats.version`.

A JSON object {'sdk', 'model', 'revision'} as the agent reported it in its `info` when the
match began (`sdk/versions.py`), so a leaderboard can tell an agent before and after its author
changed the model. Seats stored before this revision get {} (version not kept).

Revision ID: 0004_seat_versions
Revises: 0003_retryable_answers
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import JSON, Column, inspect

revision = "0004_seat_versions"
down_revision = "0003_retryable_answers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "version" not in {c["name"] for c in inspect(op.get_bind()).get_columns("seats")}:
        op.add_column("seats", Column("version", JSON, nullable=False, server_default="{}"))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("version")
