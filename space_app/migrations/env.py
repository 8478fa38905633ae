"""Alembic's entry point for the store's migrations.

The arena runs it through `space_app.migrations.upgrade`, which hands over a connection that
already holds the migration lock. Run by the `alembic` command (to write a new revision:
`alembic -c space_app/migrations/alembic.ini revision -m "what changes"`), it opens the
database named by ARENA_DB.
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine

from space_app.store import metadata, to_url

connection = context.config.attributes.get("connection")
if connection is not None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    engine = create_engine(to_url(os.environ.get("ARENA_DB", "data/arena.db")))
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()
