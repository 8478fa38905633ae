"""Baseline: the schema of every store written before versioned migrations.

On an empty database it creates the tables. On a store written by an older version of the
arena (no alembic_version table) it brings what is there to this schema in place: missing
tables, columns (`matches.rules`, `matches.rated`) and indexes are added, and standings kept
under the pools of an older version are dropped, to be derived again at the next catch-up.

The tables are written out here, not imported from `space_app.store`, so later changes to
the store's tables go in later revisions and this one stays what it was.

Revision ID: 0001_baseline
Revises:
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import (
    JSON,
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    Table,
    UniqueConstraint,
    inspect,
    text,
)

from space_app.dbtypes import BigId, BigInt, Chars, LongText

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None


def baseline() -> MetaData:
    md = MetaData()
    Table(
        "agents", md,
        Column("id", Chars(200), primary_key=True),
        Column("name", Chars(200), nullable=False),
        Column("kind", Chars(20), nullable=False),
        Column("src", Chars(500), nullable=False),
        Column("secret", Chars(500), nullable=True),
        Column("owner", Chars(100), nullable=False),
        Column("description", LongText, nullable=False),
        Column("games", JSON, nullable=False),
        Column("info", JSON, nullable=False),
        Column("created_at", Float, nullable=False),
        Column("last_seen", Float, nullable=True),
        Column("failures", Integer, nullable=False),
        Column("calls", Integer, nullable=False),
        Column("active", Integer, nullable=False),
    )
    Table(
        "matches", md,
        Column("id", Chars(40), primary_key=True),
        Column("game", Chars(40), nullable=False, index=True),
        Column("seed", BigInt, nullable=False),
        Column("settings", JSON, nullable=False),
        Column("status", Chars(20), nullable=False, index=True),
        Column("tag", Chars(100), nullable=False),
        Column("owner", Chars(100), nullable=False),
        Column("created_at", Float, nullable=False, index=True),
        Column("finished_at", Float, nullable=True),
        Column("result", JSON, nullable=True),
        Column("error", LongText, nullable=True),
        Column("process", Chars(200), nullable=False),
        Column("rules", Chars(40), nullable=False, server_default=""),
        Column("rated", Integer, nullable=False, server_default="0", index=True),
    )
    Table(
        "seats", md,
        Column("match_id", Chars(40), primary_key=True),
        Column("seat", Chars(40), primary_key=True),
        Column("position", Integer, nullable=False),
        Column("agent_id", Chars(200), nullable=False, index=True),
        Column("agent_name", Chars(200), nullable=False),
    )
    Table(
        "events", md,
        Column("id", BigId, primary_key=True, autoincrement=True),
        Column("match_id", Chars(40), nullable=False, index=True),
        Column("seq", Integer, nullable=False),
        Column("kind", Chars(40), nullable=False),
        Column("actor", Chars(100), nullable=False),
        Column("round", Integer, nullable=True),
        Column("visible_to", JSON, nullable=True),
        Column("text", LongText, nullable=False),
        Column("data", JSON, nullable=False),
        Column("created_at", Float, nullable=False),
        UniqueConstraint("match_id", "seq", name="uq_event_seq"),
    )
    Table(
        "seat_records", md,
        Column("match_id", Chars(40), primary_key=True),
        Column("seat", Chars(40), primary_key=True),
        Column("game", Chars(40), nullable=False),
        Column("tag", Chars(100), nullable=False),
        Column("rated", Integer, nullable=False),
        Column("agent_id", Chars(200), nullable=False),
        Column("role", Chars(40), nullable=False),
        Column("team", Chars(40), nullable=False),
        Column("won", Integer, nullable=False),
        Column("score", Float, nullable=False),
        Column("stats", JSON, nullable=False),
        Index("ix_seat_records_game_rated", "game", "rated"),
        Index("ix_seat_records_agent", "game", "agent_id"),
    )
    Table(
        "agent_totals", md,
        Column("game", Chars(40), primary_key=True),
        Column("pool", Chars(40), primary_key=True),
        Column("agent_id", Chars(200), primary_key=True),
        Column("role", Chars(40), primary_key=True),
        Column("tally", JSON, nullable=False),
    )
    Table(
        "ratings", md,
        Column("game", Chars(40), primary_key=True),
        Column("pool", Chars(40), primary_key=True),
        Column("system", Chars(20), primary_key=True),
        Column("subject", Chars(240), primary_key=True),
        Column("mu", Float, nullable=False),
        Column("sigma", Float, nullable=False),
        Column("matches", Integer, nullable=False),
    )
    Table(
        "suite_answers", md,
        Column("suite", Chars(200), primary_key=True),
        Column("agent_id", Chars(200), primary_key=True),
        Column("item_id", Chars(200), primary_key=True),
        Column("types", JSON, nullable=False),
        Column("gold", Chars(40), nullable=False),
        Column("parsed", Chars(200), nullable=True),
        Column("correct", Integer, nullable=False),
        Column("status", Chars(20), nullable=False),
        Column("detail", LongText, nullable=False),
        Column("reply", LongText, nullable=True),
        Column("latency_ms", Float, nullable=False),
        Column("tokens", Integer, nullable=False),
        Column("created_at", Float, nullable=False),
    )
    Table(
        "judge_verdicts", md,
        Column("match_id", Chars(40), primary_key=True),
        Column("seat", Chars(200), primary_key=True),
        Column("score", Chars(40), primary_key=True),
        Column("item", Integer, primary_key=True),
        Column("judge", Chars(200), primary_key=True),
        Column("value", Float, nullable=False),
        Column("fallback", LongText, nullable=False),
        Column("created_at", Float, nullable=False),
    )
    return md


def upgrade() -> None:
    bind = op.get_bind()
    md = baseline()
    have = set(inspect(bind).get_table_names())
    older = "matches" in have  # a store written before migrations: bring it to this schema
    md.create_all(bind, checkfirst=True)  # missing tables, with their indexes
    if not older:
        return
    found = inspect(bind)  # a fresh inspector: the one above cached the tables before
    columns = {c["name"] for c in found.get_columns("matches")}
    # the two columns added after the first stores were written
    if "rules" not in columns:
        op.add_column("matches", Column("rules", Chars(40), nullable=False, server_default=""))
    if "rated" not in columns:  # their per-seat records are derived at the next catch-up
        op.add_column("matches", Column("rated", Integer, nullable=False, server_default="0"))
    for name in have & set(md.tables):
        indexed = {ix["name"] for ix in found.get_indexes(name)}
        for index in md.tables[name].indexes:
            if index.name not in indexed:
                index.create(bind)
    # standings kept under the pools of an older version ('no-studies' counted demo matches):
    # derived data is dropped and derived again at the next catch-up, so no total mixes two
    # definitions
    if bind.execute(text("SELECT 1 FROM agent_totals WHERE pool = 'no-studies' LIMIT 1")).first():
        for name in ("seat_records", "agent_totals", "ratings"):
            bind.execute(text(f"DELETE FROM {name}"))
        bind.execute(text("UPDATE matches SET rated = 0"))


def downgrade() -> None:
    raise NotImplementedError("the baseline is the first revision: there is nothing to go back to")
