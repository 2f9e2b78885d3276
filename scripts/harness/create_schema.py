"""Create Letta's database schema (run with the Letta venv's python).

The letta 0.16.8 wheel ships no alembic migrations, so the tables come from Letta's own ORM
(``Base.metadata.create_all``) plus what only the migrations create: the ``message_seq_id``
sequence behind ``messages.sequence_id`` and the ``alembic_version`` row of the 0.16.8 head.
Idempotent: a database that already has ``alembic_version`` is left alone.

Usage: ``python create_schema.py PORT`` (Postgres on 127.0.0.1, superuser ``letta``, trust auth).
"""

from __future__ import annotations

import os
import sys

import sqlalchemy as sa

DATABASE = "letta"
USER = "letta"
ALEMBIC_HEAD = "1c28e167b74f"  # head revision of the letta 0.16.8 tag
MESSAGE_SEQUENCE = "message_seq_id"
#: Column defaults the migrations set and the ORM does not (found by diffing a create_all
#: database against one built with the tag's ``alembic upgrade head``).
MIGRATION_DEFAULTS = {
    ("messages", "sequence_id"): f"nextval('{MESSAGE_SEQUENCE}'::regclass)",
    ("archives_agents", "created_at"): "now()",  # the ORM's default is its import time
    ("identities", "properties"): "'[]'::jsonb",
    ("steps", "prompt_tokens"): "0",
    ("steps", "completion_tokens"): "0",
    ("steps", "total_tokens"): "0",
}


def database_url(port: int, database: str) -> str:
    return f"postgresql+pg8000://{USER}@127.0.0.1:{port}/{database}"


def ensure_database(port: int) -> None:
    """Create the ``letta`` database if it does not exist yet."""
    engine = sa.create_engine(database_url(port, "postgres"), isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        exists = connection.execute(sa.text("SELECT 1 FROM pg_database WHERE datname = :name"),
                                    {"name": DATABASE}).scalar()
        if not exists:
            connection.execute(sa.text(f"CREATE DATABASE {DATABASE} OWNER {USER}"))
    engine.dispose()


def create_schema(connection: sa.Connection) -> None:
    """Tables, sequence, defaults and alembic version, as ``alembic upgrade head`` leaves them."""
    from letta.orm import Base  # imported late: it reads LETTA_PG_URI (pgvector columns)

    connection.execute(sa.text("CREATE EXTENSION IF NOT EXISTS vector"))
    connection.execute(sa.text(f"CREATE SEQUENCE IF NOT EXISTS {MESSAGE_SEQUENCE} START 1"))
    Base.metadata.create_all(connection)
    for (table, column), default in MIGRATION_DEFAULTS.items():
        connection.execute(sa.text(
            f"ALTER TABLE {table} ALTER COLUMN {column} SET DEFAULT {default}"))
    connection.execute(sa.text(
        f"ALTER SEQUENCE {MESSAGE_SEQUENCE} OWNED BY messages.sequence_id"))
    connection.execute(sa.text(
        "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL "
        "CONSTRAINT alembic_version_pkc PRIMARY KEY)"))
    connection.execute(sa.text("INSERT INTO alembic_version (version_num) VALUES (:head)"),
                       {"head": ALEMBIC_HEAD})


def main() -> None:
    port = int(sys.argv[1])
    os.environ["LETTA_PG_URI"] = database_url(port, DATABASE)
    ensure_database(port)
    engine = sa.create_engine(database_url(port, DATABASE))
    with engine.begin() as connection:
        if sa.inspect(connection).has_table("alembic_version"):
            print("schema: already there")
            return
        create_schema(connection)
    engine.dispose()
    print(f"schema: created (alembic head {ALEMBIC_HEAD})")


if __name__ == "__main__":
    main()
