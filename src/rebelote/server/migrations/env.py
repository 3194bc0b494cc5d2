"""Alembic environment: migrations run online against the configured URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from rebelote.server.store import Base

config = context.config
url = config.get_main_option("sqlalchemy.url")
assert url is not None
connectable = create_engine(url)
with connectable.connect() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
