"""Leases on running matches: `match_leases`, one row per match (or agent call) being played.

Several arena replicas share one database: who plays a running match, whose visitor it counts
against, and whether someone asked to cancel it live here, not in a process's memory. The
replica playing it renews `expires_at` on a heartbeat; a lease left to expire belongs to a
replica that died, and whichever replica sees it marks its match aborted (`space_app/leases.py`).

Revision ID: 0006_match_leases
Revises: 0005_match_branches
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, Float, Integer, inspect

from space_app.dbtypes import Chars

revision = "0006_match_leases"
down_revision = "0005_match_branches"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "match_leases" in inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "match_leases",
        Column("key", Chars(40), primary_key=True),
        Column("replica", Chars(40), nullable=False, index=True),
        Column("visitor", Chars(100), nullable=False, server_default=""),
        Column("capped", Integer, nullable=False, server_default="0"),
        Column("expires_at", Float, nullable=False, index=True),
        Column("cancel_requested", Integer, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    op.drop_table("match_leases")
