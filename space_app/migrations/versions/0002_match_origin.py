"""Where each match's record comes from: `matches.origin`.

'here' for a match this arena played, 'dataset' for one restored from the records dataset
whose signature verified, 'adopted' for an unsigned line the operator chose to trust. Stores
written before this revision get '' (origin not kept), which `verify` reports as such: an
older store's matches cannot be told apart after the fact.

Revision ID: 0002_match_origin
Revises: 0001_baseline
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, inspect

from space_app.dbtypes import Chars

revision = "0002_match_origin"
down_revision = "0001_baseline"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in inspect(op.get_bind()).get_columns("matches")}
    if "origin" not in columns:
        op.add_column("matches", Column("origin", Chars(20), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("origin")
