"""Suite answers that failed for infrastructure reasons are kept apart: `retryable`.

A question whose call never reached the agent's own code (connection refused, a name that does
not resolve, a Space asleep or restarting, an HTTP 5xx its server gave) is not an answer: it is
stored with `retryable = 1`, left out of every score, and asked again by the next run. Stores
written before this revision hold such failures as answered-and-failed; they are marked
retryable here, so the agent's next run asks them again instead of keeping them for good.

Revision ID: 0003_retryable_answers
Revises: 0002_match_origin
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, Integer, inspect, text

revision = "0003_retryable_answers"
down_revision = "0002_match_origin"
branch_labels = None
depends_on = None

# the details the runner writes for such calls (see `space_app.suites.run.infrastructure_failure`)
_INFRASTRUCTURE = ("status = 'error' AND (detail LIKE 'unreachable:%' "
                   "OR detail LIKE 'agent\\_failed: HTTP 5__:%' ESCAPE '\\' "
                   "OR detail LIKE 'agent\\_failed: HTTP 5__' ESCAPE '\\')")


def upgrade() -> None:
    bind = op.get_bind()
    if "retryable" not in {c["name"] for c in inspect(bind).get_columns("suite_answers")}:
        with op.batch_alter_table("suite_answers") as batch:
            batch.add_column(Column("retryable", Integer, nullable=False, server_default="0"))
    bind.execute(text(f"UPDATE suite_answers SET retryable = 1 WHERE {_INFRASTRUCTURE}"))


def downgrade() -> None:
    # what was retryable reads as answered-and-failed again, as before this revision
    with op.batch_alter_table("suite_answers") as batch:
        batch.drop_column("retryable")
