"""Counterfactual branches: `match_branches`, one row per branch match.

A branch replays its parent's recorded replies up to a step and goes on with another agent in
one seat (`space_app.branches`); the row links it to its parent (the step, the first seq played
live, the seat, the agent, the study arm and sample, the house agents' salt). Stores written
before this revision get the empty table: none of their matches is a branch.

Revision ID: 0005_match_branches
Revises: 0004_seat_versions
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, Float, Integer, inspect

from space_app.dbtypes import Chars

revision = "0005_match_branches"
down_revision = "0004_seat_versions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "match_branches" in inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "match_branches",
        Column("match_id", Chars(40), primary_key=True),
        Column("parent_id", Chars(40), nullable=False, index=True),
        Column("from_step", Integer, nullable=False),
        Column("live_seq", Integer, nullable=False),
        Column("seat", Chars(40), nullable=False),
        Column("agent_id", Chars(200), nullable=False),
        Column("arm", Chars(20), nullable=False),
        Column("sample", Integer, nullable=False),
        Column("salt", Chars(200), nullable=False),
        Column("created_at", Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("match_branches")
